//! Non-temporal, non-decimal row values: integers, FLOAT/DOUBLE, strings and blobs with their
//! length prefixes, BIT, ENUM and SET.

use crate::bytes::{put_uint_be, put_uint_le, Reader};
use crate::column::{ColumnDef, ColumnType};
use crate::error::{BinlogError, Result};
use crate::value::RowValue;

/// Appends `bytes` after a little-endian length prefix of `prefix` (1–4) bytes.
pub(super) fn put_length_prefixed(out: &mut Vec<u8>, bytes: &[u8], prefix: usize) -> Result<()> {
    if !(1..=4).contains(&prefix) {
        return Err(BinlogError::invalid(format!(
            "bad length prefix size {prefix}"
        )));
    }
    if (bytes.len() as u64) >> (8 * prefix) != 0 {
        return Err(BinlogError::invalid(format!(
            "{} bytes do not fit a {prefix}-byte length",
            bytes.len()
        )));
    }
    put_uint_le(out, bytes.len() as u64, prefix);
    out.extend_from_slice(bytes);
    Ok(())
}

/// Reads bytes after a little-endian length prefix of `prefix` (1–4) bytes.
pub(super) fn read_length_prefixed<'a>(
    r: &mut Reader<'a>,
    prefix: usize,
    what: &'static str,
) -> Result<&'a [u8]> {
    if !(1..=4).contains(&prefix) {
        return Err(BinlogError::corrupt(
            what,
            format!("length prefix size {prefix}"),
        ));
    }
    let len = r.uint_le(prefix, what)? as usize;
    r.bytes(len, what)
}

fn int_width(t: ColumnType) -> Option<usize> {
    Some(match t {
        ColumnType::Tiny => 1,
        ColumnType::Short => 2,
        ColumnType::Int24 => 3,
        ColumnType::Long => 4,
        ColumnType::LongLong => 8,
        _ => return None,
    })
}

fn encode_int(col: &ColumnDef, width: usize, value: &RowValue, out: &mut Vec<u8>) -> Result<bool> {
    let bits = 8 * width as u32;
    let (raw, fits) = match (value, col.unsigned) {
        (&RowValue::Int(i), false) => (i as u64, i >> (bits - 1) == 0 || i >> (bits - 1) == -1),
        (&RowValue::UInt(u), false) => (u, u <= (i64::MAX as u64) >> (64 - bits)),
        (&RowValue::Int(i), true) => (i as u64, i >= 0 && (bits == 64 || i >> bits == 0)),
        (&RowValue::UInt(u), true) => (u, bits == 64 || u >> bits == 0),
        _ => return Ok(false),
    };
    if !fits {
        return Err(BinlogError::invalid(format!(
            "{value:?} out of range for column '{}'",
            col.name
        )));
    }
    put_uint_le(out, raw, width);
    Ok(true)
}

fn decode_int(col: &ColumnDef, width: usize, r: &mut Reader<'_>) -> Result<RowValue> {
    let raw = r.uint_le(width, "integer value")?;
    Ok(if col.unsigned {
        RowValue::UInt(raw)
    } else {
        let shift = 64 - 8 * width as u32;
        RowValue::Int(((raw << shift) as i64) >> shift)
    })
}

/// BIT storage bytes: whole bytes plus one for leftover bits.
fn bit_bytes(col: &ColumnDef) -> usize {
    usize::from(col.meta >> 8) + usize::from(col.meta & 0xff != 0)
}

fn string_prefix(max_len: usize) -> usize {
    if max_len > 255 {
        2
    } else {
        1
    }
}

/// Encodes the types handled here; `Ok(false)` when `value` does not suit the column.
pub(super) fn encode_scalar(col: &ColumnDef, value: &RowValue, out: &mut Vec<u8>) -> Result<bool> {
    use ColumnType as T;
    if let Some(w) = int_width(col.column_type) {
        return encode_int(col, w, value, out);
    }
    let too_long = |len: usize, max: usize| {
        BinlogError::invalid(format!(
            "{len} bytes exceed column '{}' ({max} bytes)",
            col.name
        ))
    };
    match (col.real_type(), value) {
        (T::Float, RowValue::Float(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (T::Float, RowValue::Double(d)) => out.extend_from_slice(&(*d as f32).to_le_bytes()),
        (T::Double, RowValue::Double(d)) => out.extend_from_slice(&d.to_le_bytes()),
        (T::Double, RowValue::Float(f)) => out.extend_from_slice(&f64::from(*f).to_le_bytes()),
        (T::VarChar | T::VarString, RowValue::Bytes(b)) => {
            let max = usize::from(col.meta);
            if b.len() > max {
                return Err(too_long(b.len(), max));
            }
            put_length_prefixed(out, b, string_prefix(max))?;
        }
        (T::String, RowValue::Bytes(b)) => {
            let max = usize::from(col.string_info().1);
            if b.len() > max {
                return Err(too_long(b.len(), max));
            }
            put_length_prefixed(out, b, string_prefix(max))?;
        }
        (T::Blob | T::TinyBlob | T::MediumBlob | T::LongBlob | T::Geometry, RowValue::Bytes(b)) => {
            put_length_prefixed(out, b, usize::from(col.meta))?;
        }
        (T::Enum, RowValue::Enum(e)) => {
            let n = usize::from(col.string_info().1);
            if !matches!(n, 1 | 2) || u64::from(*e) >> (8 * n) != 0 {
                return Err(BinlogError::invalid(format!("ENUM index {e} does not fit")));
            }
            put_uint_le(out, u64::from(*e), n);
        }
        (T::Set, RowValue::Set(s)) => {
            let n = usize::from(col.string_info().1);
            if !matches!(n, 1..=4 | 8) || (n < 8 && s >> (8 * n) != 0) {
                return Err(BinlogError::invalid(format!(
                    "SET value {s:#x} does not fit"
                )));
            }
            put_uint_le(out, *s, n);
        }
        (T::Bit, RowValue::Bit(v)) => {
            let width = col.bit_width();
            if width == 0 || width > 64 || (width < 64 && v >> width != 0) {
                return Err(BinlogError::invalid(format!(
                    "BIT value {v:#x} does not fit BIT({width})"
                )));
            }
            put_uint_be(out, *v, bit_bytes(col));
        }
        (T::Null, _) => {}
        _ => return Ok(false),
    }
    Ok(true)
}

/// Decodes the types handled here.
///
/// # Errors
/// [`BinlogError::Truncated`] for short input, [`BinlogError::Corrupt`] for bad metadata,
/// [`BinlogError::Unsupported`] for types with no decoder.
pub(super) fn decode_scalar(col: &ColumnDef, r: &mut Reader<'_>) -> Result<RowValue> {
    use ColumnType as T;
    if let Some(w) = int_width(col.column_type) {
        return decode_int(col, w, r);
    }
    let real = col.real_type();
    Ok(match real {
        T::Float => RowValue::Float(f32::from_bits(r.u32("FLOAT value")?)),
        T::Double => RowValue::Double(f64::from_bits(r.u64("DOUBLE value")?)),
        T::VarChar | T::VarString => {
            let prefix = string_prefix(usize::from(col.meta));
            RowValue::Bytes(read_length_prefixed(r, prefix, "VARCHAR value")?.to_vec())
        }
        T::String => {
            let prefix = string_prefix(usize::from(col.string_info().1));
            RowValue::Bytes(read_length_prefixed(r, prefix, "CHAR value")?.to_vec())
        }
        T::Blob | T::TinyBlob | T::MediumBlob | T::LongBlob | T::Geometry => {
            RowValue::Bytes(read_length_prefixed(r, usize::from(col.meta), "BLOB value")?.to_vec())
        }
        T::Enum => {
            let n = usize::from(col.string_info().1);
            if !matches!(n, 1 | 2) {
                return Err(BinlogError::corrupt("ENUM metadata", format!("size {n}")));
            }
            RowValue::Enum(r.uint_le(n, "ENUM value")? as u16)
        }
        T::Set => {
            let n = usize::from(col.string_info().1);
            if !matches!(n, 1..=4 | 8) {
                return Err(BinlogError::corrupt("SET metadata", format!("size {n}")));
            }
            RowValue::Set(r.uint_le(n, "SET value")?)
        }
        T::Bit => {
            let n = bit_bytes(col);
            if n == 0 || n > 8 {
                return Err(BinlogError::corrupt(
                    "BIT metadata",
                    format!("{:#x}", col.meta),
                ));
            }
            RowValue::Bit(r.uint_be(n, "BIT value")?)
        }
        T::Null => RowValue::Null,
        t => {
            return Err(BinlogError::Unsupported(format!(
                "row values of type {t:?}"
            )))
        }
    })
}
