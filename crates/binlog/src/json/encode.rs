//! Serializes a [`JsonValue`] to MySQL's binary JSON, choosing the small (2-byte offsets) or
//! large (4-byte offsets) storage per container exactly as `json_binary::serialize` does.

use super::JsonValue;
use crate::error::{BinlogError, Result};

pub(super) const SMALL_OBJECT: u8 = 0x0;
pub(super) const LARGE_OBJECT: u8 = 0x1;
pub(super) const SMALL_ARRAY: u8 = 0x2;
pub(super) const LARGE_ARRAY: u8 = 0x3;
pub(super) const LITERAL: u8 = 0x4;
pub(super) const INT16: u8 = 0x5;
pub(super) const UINT16: u8 = 0x6;
pub(super) const INT32: u8 = 0x7;
pub(super) const UINT32: u8 = 0x8;
pub(super) const INT64: u8 = 0x9;
pub(super) const UINT64: u8 = 0xA;
pub(super) const DOUBLE: u8 = 0xB;
pub(super) const STRING: u8 = 0xC;
pub(super) const OPAQUE: u8 = 0xF;

pub(super) const NULL_LITERAL: u8 = 0x0;
pub(super) const TRUE_LITERAL: u8 = 0x1;
pub(super) const FALSE_LITERAL: u8 = 0x2;

/// MySQL's maximum JSON nesting depth.
pub(super) const MAX_DEPTH: usize = 100;

/// Why a container did not fit.
enum Fail {
    /// An offset or size exceeds the current storage format: retry large.
    TooBig,
    /// Anything else: a hard error.
    Err(BinlogError),
}

impl From<BinlogError> for Fail {
    fn from(e: BinlogError) -> Self {
        Fail::Err(e)
    }
}

fn offset_size(large: bool) -> usize {
    if large {
        4
    } else {
        2
    }
}

fn check_fits(n: usize, large: bool) -> Result<(), Fail> {
    if n > usize::from(u16::MAX) {
        if !large {
            return Err(Fail::TooBig);
        }
        if n > u32::MAX as usize {
            return Err(Fail::Err(BinlogError::invalid(
                "JSON document larger than 4 GiB",
            )));
        }
    }
    Ok(())
}

fn write_offset(out: &mut [u8], pos: usize, v: usize, large: bool) {
    let bytes = (v as u32).to_le_bytes();
    out[pos..pos + offset_size(large)].copy_from_slice(&bytes[..offset_size(large)]);
}

fn push_offset(out: &mut Vec<u8>, v: usize, large: bool) {
    out.extend_from_slice(&(v as u32).to_le_bytes()[..offset_size(large)]);
}

fn push_var_len(out: &mut Vec<u8>, mut len: usize) {
    loop {
        let b = (len & 0x7f) as u8;
        len >>= 7;
        if len == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The inline (type, slot value) of `v`, if it is stored inside its value entry.
fn inline_value(v: &JsonValue, large: bool) -> Option<(u8, i64)> {
    match *v {
        JsonValue::Null => Some((LITERAL, i64::from(NULL_LITERAL))),
        JsonValue::Bool(b) => Some((
            LITERAL,
            i64::from(if b { TRUE_LITERAL } else { FALSE_LITERAL }),
        )),
        JsonValue::Int(i) if i16::try_from(i).is_ok() => Some((INT16, i)),
        JsonValue::Int(i) if large && i32::try_from(i).is_ok() => Some((INT32, i)),
        JsonValue::UInt(u) if u <= u64::from(u16::MAX) => Some((UINT16, u as i64)),
        JsonValue::UInt(u) if large && u <= u64::from(u32::MAX) => Some((UINT32, u as i64)),
        _ => None,
    }
}

/// Encodes `value` as a JSON column value: the type byte followed by the value.
///
/// Objects are normalized first (keys sorted MySQL's way, last duplicate wins).
///
/// # Errors
/// [`BinlogError::InvalidValue`] for documents nested deeper than 100 levels, keys longer than
/// 65535 bytes, or documents over 4 GiB.
pub fn encode_json(value: &JsonValue) -> Result<Vec<u8>> {
    let value = value.normalized();
    let mut out = vec![0u8];
    match serialize_value(&value, 0, 0, false, &mut out) {
        Ok(()) => Ok(out),
        Err(Fail::Err(e)) => Err(e),
        Err(Fail::TooBig) => Err(BinlogError::invalid("JSON document too large")),
    }
}

fn serialize_value(
    v: &JsonValue,
    type_pos: usize,
    depth: usize,
    small_parent: bool,
    out: &mut Vec<u8>,
) -> Result<(), Fail> {
    let start = out.len();
    match v {
        JsonValue::Array(_) | JsonValue::Object(_) => {
            let (small_t, large_t) = match v {
                JsonValue::Array(_) => (SMALL_ARRAY, LARGE_ARRAY),
                _ => (SMALL_OBJECT, LARGE_OBJECT),
            };
            let (values, keys): (Vec<&JsonValue>, Vec<&str>) = match v {
                JsonValue::Object(m) => m.iter().map(|(k, v)| (v, k.as_str())).unzip(),
                JsonValue::Array(a) => (a.iter().collect(), Vec::new()),
                _ => (Vec::new(), Vec::new()),
            };
            out[type_pos] = small_t;
            match serialize_container(&values, &keys, false, depth, out) {
                Err(Fail::TooBig) if !small_parent => {
                    out.truncate(start);
                    out[type_pos] = large_t;
                    serialize_container(&values, &keys, true, depth, out)?;
                }
                r => r?,
            }
        }
        JsonValue::String(s) => {
            push_var_len(out, s.len());
            out.extend_from_slice(s.as_bytes());
            out[type_pos] = STRING;
        }
        JsonValue::Int(i) => {
            let (t, n) = match *i {
                i if i16::try_from(i).is_ok() => (INT16, 2),
                i if i32::try_from(i).is_ok() => (INT32, 4),
                _ => (INT64, 8),
            };
            out.extend_from_slice(&i.to_le_bytes()[..n]);
            out[type_pos] = t;
        }
        JsonValue::UInt(u) => {
            let (t, n) = match *u {
                u if u <= u64::from(u16::MAX) => (UINT16, 2),
                u if u <= u64::from(u32::MAX) => (UINT32, 4),
                _ => (UINT64, 8),
            };
            out.extend_from_slice(&u.to_le_bytes()[..n]);
            out[type_pos] = t;
        }
        JsonValue::Double(d) => {
            out.extend_from_slice(&d.to_le_bytes());
            out[type_pos] = DOUBLE;
        }
        JsonValue::Null | JsonValue::Bool(_) => {
            let (_, lit) = inline_value(v, false).unwrap_or((LITERAL, 0));
            out.push(lit as u8);
            out[type_pos] = LITERAL;
        }
        JsonValue::Opaque { field_type, data } => {
            out.push(*field_type);
            push_var_len(out, data.len());
            out.extend_from_slice(data);
            out[type_pos] = OPAQUE;
        }
    }
    Ok(())
}

/// Serializes an array or object body at the end of `out` in the given storage format.
/// `keys` is empty for an array and parallel to `values` for an object.
fn serialize_container(
    values: &[&JsonValue],
    keys: &[&str],
    large: bool,
    depth: usize,
    out: &mut Vec<u8>,
) -> Result<(), Fail> {
    let depth = depth + 1;
    if depth > MAX_DEPTH {
        return Err(Fail::Err(BinlogError::invalid(
            "JSON document exceeds depth 100",
        )));
    }
    let start = out.len();
    let n = values.len();
    check_fits(n, large)?;
    push_offset(out, n, large);
    let size_pos = out.len();
    push_offset(out, 0, large);
    let key_entry = 2 + offset_size(large);
    let value_entry = 1 + offset_size(large);
    let mut key_offset = out.len() - start + keys.len() * key_entry + n * value_entry;
    for k in keys {
        if k.len() > usize::from(u16::MAX) {
            return Err(Fail::Err(BinlogError::invalid(
                "JSON object key longer than 65535 bytes",
            )));
        }
        check_fits(key_offset, large)?;
        push_offset(out, key_offset, large);
        out.extend_from_slice(&(k.len() as u16).to_le_bytes());
        key_offset += k.len();
    }
    let mut entry_pos = out.len();
    out.resize(out.len() + n * value_entry, 0);
    for k in keys {
        out.extend_from_slice(k.as_bytes());
    }
    for &child in values {
        if let Some((t, slot)) = inline_value(child, large) {
            out[entry_pos] = t;
            write_offset(out, entry_pos + 1, slot as usize, large);
        } else {
            let offset = out.len() - start;
            check_fits(offset, large)?;
            write_offset(out, entry_pos + 1, offset, large);
            serialize_value(child, entry_pos, depth, !large, out)?;
        }
        entry_pos += value_entry;
    }
    let bytes = out.len() - start;
    check_fits(bytes, large)?;
    write_offset(out, size_pos, bytes, large);
    Ok(())
}
