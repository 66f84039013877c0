//! Memcomparable index keys: `index_id (u32 BE) ‖ enc(col1) ‖ enc(col2) …`, where byte order of
//! the encodings equals SQL order of the values under each column's type and collation.
//!
//! Per column: a NULL marker byte (`0x00` NULL, `0x01` not NULL, so NULL sorts first), then:
//! signed integers sign-flipped big-endian (8 bytes), unsigned big-endian (8 bytes), FLOAT/DOUBLE
//! as order-preserving f64 bits, DECIMAL as sign ‖ exponent ‖ digits ‖ terminator, temporal types
//! packed, strings as their collation weight escaped in 8-byte groups plus a marker byte
//! (self-delimiting and prefix-safe), ENUM by index (u16), SET by bitmask (u64), YEAR (u8), BIT
//! (u64). A DESC index column has all of its bytes inverted (so NULLs sort last there).
//!
//! Secondary index keys append the primary key's encoded columns (or the hidden 8-byte row id);
//! since every column encoding is self-delimiting, [`handle_from_index_key`] can split them.

use common::time::{DateTime, Time};
use common::Decimal;
use common::{DataType, Result, Value};

use super::{
    bad_value, corrupt, enum_index, enum_name, set_mask, set_name, to_bytes, to_datetime,
    to_decimal, to_f64, to_i64, to_text, to_u64,
};
use crate::catalog::{IndexDef, IndexKind, TableDef};

/// A row's identity: the encoded primary key (or hidden row-id key), index id included.
pub type Handle = Vec<u8>;

/// Marker byte for a NULL column value.
pub const NULL_MARK: u8 = 0x00;
/// Marker byte preceding a non-NULL column value.
pub const NOT_NULL_MARK: u8 = 0x01;

const GROUP: usize = 8;
const GROUP_MARK: u8 = 0xFF;

/// The 4-byte key prefix of an index.
pub fn index_prefix(index_id: u32) -> [u8; 4] {
    index_id.to_be_bytes()
}

/// A key buffer starting with `index_id`'s prefix, with room for a typical key: grown from the
/// 4-byte prefix it was reallocated two or three times per key (perf under iibench's INSERTs:
/// ~2 % of the server's CPU in reallocations, the row buffer's included).
fn key_buf(index_id: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(&index_prefix(index_id));
    out
}

/// The key range `[start, end)` holding every entry of `index_id`.
pub fn index_range(index_id: u32) -> (Vec<u8>, Vec<u8>) {
    let start = index_id.to_be_bytes().to_vec();
    let end = match index_id.checked_add(1) {
        Some(n) => n.to_be_bytes().to_vec(),
        None => vec![0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    };
    (start, end)
}

/// The smallest key greater than every key starting with `prefix` (`None`: no such key, i.e.
/// the prefix is all `0xFF`; use an unbounded end).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut v = prefix.to_vec();
    while let Some(last) = v.pop() {
        if last < 0xFF {
            v.push(last + 1);
            return Some(v);
        }
    }
    None
}

/// The immediate successor of `key` in byte order (`key ‖ 0x00`).
pub fn key_successor(key: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(key.len() + 1);
    v.extend_from_slice(key);
    v.push(0);
    v
}

fn put_group_escaped(out: &mut Vec<u8>, data: &[u8]) {
    let mut chunks = data.chunks_exact(GROUP);
    for c in &mut chunks {
        out.extend_from_slice(c);
        out.push(GROUP_MARK);
    }
    let rem = chunks.remainder();
    let pad = GROUP - rem.len();
    out.extend_from_slice(rem);
    out.extend(std::iter::repeat_n(0u8, pad));
    out.push(GROUP_MARK - pad as u8);
}

fn put_f64(out: &mut Vec<u8>, v: f64) {
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    let enc = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    out.extend_from_slice(&enc.to_be_bytes());
}

fn get_f64(enc: u64) -> f64 {
    let bits = if enc >> 63 == 1 {
        enc & !(1 << 63)
    } else {
        !enc
    };
    f64::from_bits(bits)
}

/// Sign byte (0x01 negative, 0x02 zero, 0x03 positive), then for non-zero values the decimal
/// exponent and the significant digits (trailing zeros dropped, so equal values of different
/// scales encode equally), all inverted for negative values.
fn put_decimal(out: &mut Vec<u8>, d: Decimal) {
    let (neg, digits, exp) = d.to_digits();
    if digits.is_empty() {
        out.push(0x02);
        return;
    }
    let e = ((exp as i16) as u16) ^ 0x8000;
    if neg {
        out.push(0x01);
        out.extend_from_slice(&(!e).to_be_bytes());
        out.extend(digits.bytes().map(|c| 0xFF - (c - b'0' + 1)));
        out.push(0xFF);
    } else {
        out.push(0x03);
        out.extend_from_slice(&e.to_be_bytes());
        out.extend(digits.bytes().map(|c| c - b'0' + 1));
        out.push(0x00);
    }
}

/// Encodes one column value (with its NULL marker) for an index key.
///
/// `prefix_len` limits string columns to their first N characters (bytes for binary strings).
///
/// # Errors
/// The value cannot be converted to the column's type.
pub fn encode_column(
    out: &mut Vec<u8>,
    ty: &DataType,
    v: &Value,
    prefix_len: Option<u32>,
    desc: bool,
) -> Result<()> {
    let start = out.len();
    encode_column_asc(out, ty, v, prefix_len)?;
    if desc {
        for b in &mut out[start..] {
            *b = !*b;
        }
    }
    Ok(())
}

fn encode_column_asc(
    out: &mut Vec<u8>,
    ty: &DataType,
    v: &Value,
    prefix_len: Option<u32>,
) -> Result<()> {
    if v.is_null() {
        out.push(NULL_MARK);
        return Ok(());
    }
    out.push(NOT_NULL_MARK);
    match ty {
        DataType::Int {
            unsigned: false, ..
        } => {
            let i = to_i64(v).ok_or_else(|| bad_value(v, "a signed integer"))?;
            out.extend_from_slice(&((i as u64) ^ (1 << 63)).to_be_bytes());
        }
        DataType::Int { unsigned: true, .. } => {
            let u = to_u64(v).ok_or_else(|| bad_value(v, "an unsigned integer"))?;
            out.extend_from_slice(&u.to_be_bytes());
        }
        DataType::Float { .. } | DataType::Double { .. } => {
            let f = to_f64(v)
                .filter(|f| !f.is_nan())
                .ok_or_else(|| bad_value(v, "a floating-point number"))?;
            put_f64(out, f);
        }
        DataType::Decimal { .. } => {
            let d = to_decimal(v).ok_or_else(|| bad_value(v, "a decimal"))?;
            put_decimal(out, d);
        }
        DataType::Date | DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            let d = to_datetime(v).ok_or_else(|| bad_value(v, "a date/time"))?;
            let d = if matches!(ty, DataType::Date) {
                d.date_part()
            } else {
                d
            };
            out.extend_from_slice(&d.to_packed().to_be_bytes());
        }
        DataType::Time { .. } => {
            let micros = match v {
                Value::Time(t, _) => t.to_micros(),
                _ => return Err(bad_value(v, "a time")),
            };
            out.extend_from_slice(&((micros as u64) ^ (1 << 63)).to_be_bytes());
        }
        DataType::Year => {
            let y = to_i64(v).ok_or_else(|| bad_value(v, "a year"))?;
            out.push(if y <= 0 {
                0
            } else {
                (y - 1900).clamp(1, 255) as u8
            });
        }
        DataType::Enum { values, collation } => {
            let i =
                enum_index(values, *collation, v).ok_or_else(|| bad_value(v, "an ENUM member"))?;
            out.extend_from_slice(&(i.min(u16::MAX as u64) as u16).to_be_bytes());
        }
        DataType::Set { values, collation } => {
            let m = set_mask(values, *collation, v).ok_or_else(|| bad_value(v, "a SET value"))?;
            out.extend_from_slice(&m.to_be_bytes());
        }
        DataType::Bit { .. } => {
            let u = to_u64(v).ok_or_else(|| bad_value(v, "a BIT value"))?;
            out.extend_from_slice(&u.to_be_bytes());
        }
        DataType::Char { collation, .. }
        | DataType::VarChar { collation, .. }
        | DataType::Text { collation, .. } => {
            let s = to_text(v);
            let s: &str = match prefix_len {
                Some(n) => match s.char_indices().nth(n as usize) {
                    Some((i, _)) => &s[..i],
                    None => &s,
                },
                None => &s,
            };
            let w = common::collation::weight(*collation, s);
            put_group_escaped(out, &w);
        }
        DataType::Binary { .. }
        | DataType::VarBinary { .. }
        | DataType::Blob { .. }
        | DataType::Json => {
            let b = to_bytes(v);
            let b = match prefix_len {
                Some(n) if (n as usize) < b.len() => &b[..n as usize],
                _ => &b[..],
            };
            put_group_escaped(out, b);
        }
    }
    Ok(())
}

/// Reads key bytes, inverting them for DESC columns.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    inv: bool,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| corrupt("truncated index key"))?;
        self.pos += 1;
        Ok(if self.inv { !b } else { b })
    }

    fn u64(&mut self) -> Result<u64> {
        let mut a = [0u8; 8];
        for x in &mut a {
            *x = self.byte()?;
        }
        Ok(u64::from_be_bytes(a))
    }

    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes([self.byte()?, self.byte()?]))
    }

    fn group_escaped(&mut self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            let mut g = [0u8; GROUP];
            for x in &mut g {
                *x = self.byte()?;
            }
            let m = self.byte()?;
            let pad = (GROUP_MARK - m) as usize;
            if pad == 0 {
                out.extend_from_slice(&g);
                continue;
            }
            if pad > GROUP {
                return Err(corrupt("bad group marker in index key"));
            }
            out.extend_from_slice(&g[..GROUP - pad]);
            return Ok(out);
        }
    }

    fn decimal(&mut self) -> Result<Decimal> {
        let sign = self.byte()?;
        if sign == 0x02 {
            return Ok(Decimal::zero());
        }
        let neg = match sign {
            0x01 => true,
            0x03 => false,
            _ => return Err(corrupt("bad decimal sign in index key")),
        };
        let mut e = self.u16()?;
        if neg {
            e = !e;
        }
        let exp = (e ^ 0x8000) as i16 as i32;
        let mut digits = String::new();
        loop {
            let b = self.byte()?;
            let d = if neg {
                if b == 0xFF {
                    break;
                }
                0xFF - b
            } else {
                if b == 0 {
                    break;
                }
                b
            };
            if !(1..=10).contains(&d) || digits.len() > 81 {
                return Err(corrupt("bad decimal digit in index key"));
            }
            digits.push((b'0' + d - 1) as char);
        }
        Decimal::from_digits(neg, &digits, exp).ok_or_else(|| corrupt("decimal out of range"))
    }
}

fn read_column(r: &mut Reader<'_>, ty: &DataType, decode: bool) -> Result<Value> {
    let m = r.byte()?;
    if m == NULL_MARK {
        return Ok(Value::Null);
    }
    if m != NOT_NULL_MARK {
        return Err(corrupt("bad NULL marker in index key"));
    }
    Ok(match ty {
        DataType::Int {
            unsigned: false, ..
        } => Value::Int((r.u64()? ^ (1 << 63)) as i64),
        DataType::Int { unsigned: true, .. } => Value::UInt(r.u64()?),
        DataType::Float { .. } => Value::Float(get_f64(r.u64()?) as f32),
        DataType::Double { .. } => Value::Double(get_f64(r.u64()?)),
        DataType::Decimal { scale, .. } => {
            let mut d = r.decimal()?;
            if decode {
                d.rescale(*scale as u32);
            }
            Value::Decimal(d)
        }
        DataType::Date => Value::Date(DateTime::from_packed(r.u64()?)),
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            Value::DateTime(DateTime::from_packed(r.u64()?), *fsp)
        }
        DataType::Time { fsp } => {
            Value::Time(Time::from_micros((r.u64()? ^ (1 << 63)) as i64), *fsp)
        }
        DataType::Year => {
            let y = r.byte()?;
            Value::Int(if y == 0 { 0 } else { 1900 + y as i64 })
        }
        DataType::Enum { values, .. } => Value::Str(enum_name(values, r.u16()? as u64)),
        DataType::Set { values, .. } => Value::Str(set_name(values, r.u64()?)),
        DataType::Bit { .. } => Value::UInt(r.u64()?),
        DataType::Char { .. }
        | DataType::VarChar { .. }
        | DataType::Text { .. }
        | DataType::Json => {
            let b = r.group_escaped()?;
            if decode {
                Value::Str(String::from_utf8_lossy(&b).into_owned())
            } else {
                Value::Null
            }
        }
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. } => {
            Value::Bytes(r.group_escaped()?)
        }
    })
}

/// Skips one encoded column at `*pos` (advancing it).
///
/// # Errors
/// Corrupt key bytes.
pub fn skip_column(buf: &[u8], pos: &mut usize, ty: &DataType, desc: bool) -> Result<()> {
    let mut r = Reader {
        buf,
        pos: *pos,
        inv: desc,
    };
    read_column(&mut r, ty, false)?;
    *pos = r.pos;
    Ok(())
}

/// True if keys of this column type decode back to the original value (no collation weight,
/// no prefix truncation): integers, floats, decimals, temporal types, ENUM/SET/YEAR/BIT and
/// binary strings.
pub fn is_decodable(ty: &DataType, prefix_len: Option<u32>) -> bool {
    match ty {
        DataType::Char { .. }
        | DataType::VarChar { .. }
        | DataType::Text { .. }
        | DataType::Json => false,
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. } => {
            prefix_len.is_none()
        }
        _ => true,
    }
}

/// Decodes one column at `*pos` (advancing it). Non-decodable columns (see [`is_decodable`])
/// are returned as their weight bytes in a `Str`/`Bytes`, which is *not* the original value.
///
/// # Errors
/// Corrupt key bytes.
pub fn decode_column(buf: &[u8], pos: &mut usize, ty: &DataType, desc: bool) -> Result<Value> {
    let mut r = Reader {
        buf,
        pos: *pos,
        inv: desc,
    };
    let v = read_column(&mut r, ty, true)?;
    *pos = r.pos;
    Ok(v)
}

fn column_ty(t: &TableDef, col: usize) -> Result<&DataType> {
    t.columns.get(col).map(|c| &c.ty).ok_or_else(|| {
        common::Error::internal(format!(
            "index refers to missing column {col} of {}",
            t.name
        ))
    })
}

/// Encodes `index_id ‖ enc(values…)` where `values` is a prefix of the index's columns.
///
/// For the hidden primary key, `values` may hold the row id (`Int`/`UInt`).
///
/// # Errors
/// Too many values, or a value that cannot be converted to its column's type.
pub fn encode_index_prefix(t: &TableDef, index: &IndexDef, values: &[Value]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(4 + values.len() * 9);
    out.extend_from_slice(&index_prefix(index.id));
    if index.columns.is_empty() {
        // The hidden row-id key.
        if let Some(v) = values.first() {
            let id = to_u64(v).ok_or_else(|| bad_value(v, "a row id"))?;
            out.extend_from_slice(&id.to_be_bytes());
        }
        return Ok(out);
    }
    if values.len() > index.columns.len() {
        return Err(common::Error::internal(format!(
            "{} values given for index {} with {} columns",
            values.len(),
            index.name,
            index.columns.len()
        )));
    }
    for (ic, v) in index.columns.iter().zip(values) {
        encode_column(&mut out, column_ty(t, ic.col)?, v, ic.prefix_len, ic.desc)?;
    }
    Ok(out)
}

/// The handle of a hidden-primary-key row.
pub fn hidden_handle(t: &TableDef, row_id: u64) -> Handle {
    let mut h = Vec::with_capacity(12);
    h.extend_from_slice(&index_prefix(t.indexes.first().map_or(0, |i| i.id)));
    h.extend_from_slice(&row_id.to_be_bytes());
    h
}

/// The row id of a hidden-primary-key handle.
pub fn hidden_row_id(h: &[u8]) -> Option<u64> {
    let b: [u8; 8] = h.get(4..12)?.try_into().ok()?;
    Some(u64::from_be_bytes(b))
}

fn encode_cols(out: &mut Vec<u8>, t: &TableDef, index: &IndexDef, row: &[Value]) -> Result<()> {
    for ic in &index.columns {
        let v = row
            .get(ic.col)
            .ok_or_else(|| common::Error::internal("row shorter than table"))?;
        encode_column(out, column_ty(t, ic.col)?, v, ic.prefix_len, ic.desc)?;
    }
    Ok(())
}

/// The handle (primary key) of `row`. Not for hidden-pk tables (use [`hidden_handle`]).
///
/// # Errors
/// A key value that cannot be converted to its column's type.
pub fn encode_pk(t: &TableDef, row: &[Value]) -> Result<Handle> {
    let pk = t
        .indexes
        .first()
        .ok_or_else(|| common::Error::internal("table without primary index"))?;
    let mut out = key_buf(pk.id);
    encode_cols(&mut out, t, pk, row)?;
    Ok(out)
}

/// The full key of secondary index `index_no` for `row` whose handle is `handle`:
/// `index_id ‖ enc(index columns) ‖ handle without its index id`.
///
/// # Errors
/// A key value that cannot be converted to its column's type.
pub fn encode_index_key(
    t: &TableDef,
    index_no: usize,
    row: &[Value],
    handle: &[u8],
) -> Result<Vec<u8>> {
    let idx = t
        .indexes
        .get(index_no)
        .ok_or_else(|| common::Error::internal("bad index number"))?;
    let mut out = key_buf(idx.id);
    encode_cols(&mut out, t, idx, row)?;
    out.extend_from_slice(handle.get(4..).unwrap_or(&[]));
    Ok(out)
}

/// The uniqueness key of `row` in a unique (or primary) index: `index_id ‖ enc(columns)`;
/// `None` when any of the columns is NULL (unique indexes allow many NULLs) or the index is not
/// unique.
///
/// # Errors
/// A key value that cannot be converted to its column's type.
pub fn unique_key(t: &TableDef, index_no: usize, row: &[Value]) -> Result<Option<Vec<u8>>> {
    let idx = t
        .indexes
        .get(index_no)
        .ok_or_else(|| common::Error::internal("bad index number"))?;
    if idx.kind == IndexKind::Normal || idx.columns.is_empty() {
        return Ok(None);
    }
    if idx
        .columns
        .iter()
        .any(|c| row.get(c.col).is_none_or(|v| v.is_null()))
    {
        return Ok(None);
    }
    let mut out = key_buf(idx.id);
    encode_cols(&mut out, t, idx, row)?;
    Ok(Some(out))
}

/// Splits a secondary index key: returns the row's handle (primary index id ‖ pk suffix).
///
/// # Errors
/// Corrupt key bytes.
pub fn handle_from_index_key(t: &TableDef, index_no: usize, key: &[u8]) -> Result<Handle> {
    let idx = t
        .indexes
        .get(index_no)
        .ok_or_else(|| common::Error::internal("bad index number"))?;
    let pk = t
        .indexes
        .first()
        .ok_or_else(|| common::Error::internal("table without primary index"))?;
    if index_no == 0 {
        return Ok(key.to_vec());
    }
    let mut pos = 4;
    for ic in &idx.columns {
        skip_column(key, &mut pos, column_ty(t, ic.col)?, ic.desc)?;
    }
    let mut h = key_buf(pk.id);
    h.extend_from_slice(key.get(pos..).unwrap_or(&[]));
    Ok(h)
}

/// Decodes the index columns of an index key (see [`is_decodable`] for which come back exact;
/// the others are `None`). For a secondary key, only the secondary columns are decoded.
///
/// # Errors
/// Corrupt key bytes.
pub fn decode_index_key(t: &TableDef, index_no: usize, key: &[u8]) -> Result<Vec<Option<Value>>> {
    let idx = t
        .indexes
        .get(index_no)
        .ok_or_else(|| common::Error::internal("bad index number"))?;
    let mut pos = 4;
    let mut out = Vec::with_capacity(idx.columns.len());
    for ic in &idx.columns {
        let ty = column_ty(t, ic.col)?;
        let v = decode_column(key, &mut pos, ty, ic.desc)?;
        out.push(if is_decodable(ty, ic.prefix_len) || v.is_null() {
            Some(v)
        } else {
            None
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use common::Collation;

    use super::*;

    fn enc(ty: &DataType, v: &Value) -> Vec<u8> {
        let mut o = Vec::new();
        encode_column(&mut o, ty, v, None, false).unwrap();
        o
    }

    fn assert_sorted(ty: &DataType, vals: &[Value]) {
        let encs: Vec<_> = vals.iter().map(|v| enc(ty, v)).collect();
        for w in encs.windows(2) {
            assert!(w[0] < w[1], "{ty:?}: {:?} !< {:?}", w[0], w[1]);
        }
        // No encoding is a prefix of another (self-delimiting).
        for (i, a) in encs.iter().enumerate() {
            for (j, b) in encs.iter().enumerate() {
                if i != j {
                    assert!(
                        !b.starts_with(a),
                        "{:?} is a prefix of {:?}",
                        vals[i],
                        vals[j]
                    );
                }
            }
        }
        // Skip consumes exactly the encoding, asc and desc; desc reverses the order.
        for (v, e) in vals.iter().zip(&encs) {
            let mut p = 0;
            skip_column(e, &mut p, ty, false).unwrap();
            assert_eq!(p, e.len());
            let mut d = Vec::new();
            encode_column(&mut d, ty, v, None, true).unwrap();
            let mut p = 0;
            skip_column(&d, &mut p, ty, true).unwrap();
            assert_eq!(p, d.len());
        }
        let descs: Vec<_> = vals
            .iter()
            .map(|v| {
                let mut d = Vec::new();
                encode_column(&mut d, ty, v, None, true).unwrap();
                d
            })
            .collect();
        for w in descs.windows(2) {
            assert!(w[0] > w[1]);
        }
    }

    fn roundtrip(ty: &DataType, vals: &[Value]) {
        for v in vals {
            let e = enc(ty, v);
            let mut p = 0;
            assert_eq!(&decode_column(&e, &mut p, ty, false).unwrap(), v, "{ty:?}");
            let mut d = Vec::new();
            encode_column(&mut d, ty, v, None, true).unwrap();
            let mut p = 0;
            assert_eq!(&decode_column(&d, &mut p, ty, true).unwrap(), v);
        }
    }

    fn int(unsigned: bool) -> DataType {
        DataType::Int {
            bytes: 8,
            unsigned,
            width: None,
            zerofill: false,
        }
    }

    #[test]
    fn signed_ints_order() {
        let vals: Vec<Value> = [
            i64::MIN,
            i64::MIN + 1,
            -1000,
            -1,
            0,
            1,
            255,
            256,
            i64::MAX - 1,
            i64::MAX,
        ]
        .iter()
        .map(|v| Value::Int(*v))
        .collect();
        let mut all = vec![Value::Null];
        all.extend(vals.clone());
        assert_sorted(&int(false), &all);
        roundtrip(&int(false), &all);
    }

    #[test]
    fn unsigned_ints_order() {
        let vals: Vec<Value> = [0u64, 1, 127, 128, u32::MAX as u64, u64::MAX - 1, u64::MAX]
            .iter()
            .map(|v| Value::UInt(*v))
            .collect();
        assert_sorted(&int(true), &vals);
        roundtrip(&int(true), &vals);
        // Int values for unsigned columns are accepted when in range.
        assert_eq!(
            enc(&int(true), &Value::Int(5)),
            enc(&int(true), &Value::UInt(5))
        );
        let mut o = Vec::new();
        assert!(encode_column(&mut o, &int(true), &Value::Int(-1), None, false).is_err());
    }

    #[test]
    fn doubles_order() {
        let ty = DataType::Double {
            md: None,
            unsigned: false,
        };
        let vals: Vec<Value> = [
            f64::NEG_INFINITY,
            f64::MIN,
            -1e10,
            -1.5,
            -f64::MIN_POSITIVE,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            1.5,
            1e300,
            f64::INFINITY,
        ]
        .iter()
        .map(|v| Value::Double(*v))
        .collect();
        assert_sorted(&ty, &vals);
        roundtrip(&ty, &vals);
        assert_eq!(
            enc(&ty, &Value::Double(-0.0)),
            enc(&ty, &Value::Double(0.0))
        );
        let ft = DataType::Float {
            md: None,
            unsigned: false,
        };
        roundtrip(&ft, &[Value::Float(1.25), Value::Float(-3.5)]);
    }

    #[test]
    fn decimals_order() {
        let ty = DataType::Decimal {
            precision: 30,
            scale: 4,
            unsigned: false,
        };
        let strs = [
            "-99999999999999999999.9999",
            "-1000",
            "-999.5",
            "-10.01",
            "-10",
            "-9.9999",
            "-1",
            "-0.5",
            "-0.0001",
            "0",
            "0.0001",
            "0.001",
            "0.5",
            "1",
            "1.0001",
            "9.9",
            "10",
            "10.5",
            "100",
            "99999999999999999999.9999",
        ];
        let vals: Vec<Value> = strs
            .iter()
            .map(|s| Value::Decimal(s.parse().unwrap()))
            .collect();
        assert_sorted(&ty, &vals);
        for v in &vals {
            let e = enc(&ty, v);
            let mut p = 0;
            let Value::Decimal(d) = decode_column(&e, &mut p, &ty, false).unwrap() else {
                panic!()
            };
            let Value::Decimal(o) = v else { panic!() };
            assert_eq!(d, *o);
            assert_eq!(d.scale(), 4);
        }
        // Equal values with different scales encode equally.
        assert_eq!(
            enc(&ty, &Value::Decimal("1.50".parse().unwrap())),
            enc(&ty, &Value::Decimal("1.5".parse().unwrap()))
        );
        assert_eq!(
            enc(&ty, &Value::Int(100)),
            enc(&ty, &Value::Decimal("100.00".parse().unwrap()))
        );
    }

    #[test]
    fn wide_decimals_order() {
        // DECIMAL(65,30): 35 integer and 30 fractional digits, mixed scales and signs.
        let ty = DataType::Decimal {
            precision: 65,
            scale: 30,
            unsigned: false,
        };
        let max = format!("{}.{}", "9".repeat(35), "9".repeat(30));
        let strs = [
            format!("-{max}"),
            "-12345678901234567890123456789012345.5".to_string(),
            format!("-1{}", "0".repeat(34)),
            format!("-{}", "9".repeat(34)),
            "-1.000000000000000000000000000001".to_string(),
            "-1".to_string(),
            "-0.999999999999999999999999999999".to_string(),
            "-0.000000000000000000000000000001".to_string(),
            "0".to_string(),
            "0.000000000000000000000000000001".to_string(),
            "0.00000000000000000000000000001".to_string(),
            "0.1".to_string(),
            "0.999999999999999999999999999999".to_string(),
            "1".to_string(),
            "1.000000000000000000000000000001".to_string(),
            "1.1".to_string(),
            "9".repeat(34),
            format!("1{}", "0".repeat(34)),
            "12345678901234567890123456789012345.4".to_string(),
            "12345678901234567890123456789012345.5".to_string(),
            max.clone(),
        ];
        let vals: Vec<Value> = strs
            .iter()
            .map(|s| Value::Decimal(s.parse().unwrap()))
            .collect();
        assert_sorted(&ty, &vals);
        for v in &vals {
            let e = enc(&ty, v);
            let mut p = 0;
            let d = decode_column(&e, &mut p, &ty, false).unwrap();
            assert_eq!(&d, v);
            let Value::Decimal(d) = d else { panic!() };
            assert_eq!(d.scale(), 30);
        }
        assert_eq!(
            enc(&ty, &Value::Decimal("-2.5000".parse().unwrap())),
            enc(&ty, &Value::Decimal("-2.5".parse().unwrap()))
        );
    }

    #[test]
    fn dates_and_times_order() {
        let dates = [
            DateTime::default(),
            DateTime::date(1000, 1, 1),
            DateTime::date(2024, 2, 29),
            DateTime::date(2024, 3, 1),
            DateTime {
                year: 2024,
                month: 3,
                day: 1,
                hour: 0,
                minute: 0,
                second: 0,
                micro: 1,
            },
            DateTime {
                year: 2024,
                month: 3,
                day: 1,
                hour: 23,
                minute: 59,
                second: 59,
                micro: 999_999,
            },
            DateTime::date(9999, 12, 31),
        ];
        let ty = DataType::DateTime { fsp: 6 };
        let vals: Vec<Value> = dates.iter().map(|d| Value::DateTime(*d, 6)).collect();
        assert_sorted(&ty, &vals);
        roundtrip(&ty, &vals);
        let dvals: Vec<Value> = dates.iter().map(|d| Value::Date(d.date_part())).collect();
        let mut dvals2 = dvals.clone();
        dvals2.dedup();
        assert_sorted(&DataType::Date, &dvals2);
        roundtrip(&DataType::Date, &dvals2);
        let tty = DataType::Time { fsp: 0 };
        let times: Vec<Value> = [
            -838 * 3600 * 1_000_000i64,
            -1,
            0,
            1,
            3_600_000_000,
            838 * 3600 * 1_000_000,
        ]
        .iter()
        .map(|m| Value::Time(Time::from_micros(*m), 0))
        .collect();
        assert_sorted(&tty, &times);
        roundtrip(&tty, &times);
    }

    #[test]
    fn strings_by_collation() {
        let ci = DataType::VarChar {
            len: 100,
            collation: Collation::Utf8mb4_0900AiCi,
        };
        assert_eq!(
            enc(&ci, &Value::Str("abc".into())),
            enc(&ci, &Value::Str("ABC".into()))
        );
        assert_eq!(
            enc(&ci, &Value::Str("a".into())),
            enc(&ci, &Value::Str("A".into()))
        );
        assert_eq!(
            enc(&ci, &Value::Str("résumé".into())),
            enc(&ci, &Value::Str("RESUME".into()))
        );
        let words = [
            "",
            "a",
            "B",
            "ba",
            "bab",
            "c",
            "cccccccc",
            "cccccccca",
            "ccccccccc",
            "d\u{0}",
            "zzzzzzzzzzzzzzzzzz",
        ];
        let vals: Vec<Value> = words.iter().map(|w| Value::Str(w.to_string())).collect();
        assert_sorted(&ci, &vals);
        let pad = DataType::Char {
            len: 10,
            collation: Collation::Utf8mb4GeneralCi,
        };
        assert_eq!(
            enc(&pad, &Value::Str("ab  ".into())),
            enc(&pad, &Value::Str("AB".into()))
        );
        let bin = DataType::VarBinary { len: 100 };
        let bvals: Vec<Value> = [
            &b""[..],
            b"\x00",
            b"\x00\x00",
            b"A",
            b"a",
            b"abcdefgh",
            b"abcdefgh\x00",
            b"abcdefghi",
            b"\xff\xff",
        ]
        .iter()
        .map(|b| Value::Bytes(b.to_vec()))
        .collect();
        assert_sorted(&bin, &bvals);
        roundtrip(&bin, &bvals);
    }

    #[test]
    fn string_prefix_index() {
        let ty = DataType::VarChar {
            len: 100,
            collation: Collation::Utf8mb4Bin,
        };
        let mut a = Vec::new();
        encode_column(
            &mut a,
            &ty,
            &Value::Str("héllo world".into()),
            Some(3),
            false,
        )
        .unwrap();
        let mut b = Vec::new();
        encode_column(&mut b, &ty, &Value::Str("hél".into()), None, false).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn enum_set_year_bit() {
        let e = DataType::Enum {
            values: vec!["z".into(), "a".into()],
            collation: Collation::Utf8mb4GeneralCi,
        };
        // ENUM orders by index, not by name.
        assert_sorted(
            &e,
            &[
                Value::Str("".into()),
                Value::Str("z".into()),
                Value::Str("a".into()),
            ],
        );
        roundtrip(&e, &[Value::Str("z".into()), Value::Str("a".into())]);
        let s = DataType::Set {
            values: vec!["x".into(), "y".into()],
            collation: Collation::Utf8mb4GeneralCi,
        };
        roundtrip(&s, &[Value::Str("x,y".into()), Value::Str("y".into())]);
        assert_sorted(
            &DataType::Year,
            &[Value::Int(0), Value::Int(1901), Value::Int(2155)],
        );
        roundtrip(
            &DataType::Year,
            &[Value::Int(0), Value::Int(1901), Value::Int(2155)],
        );
        roundtrip(
            &DataType::Bit { len: 8 },
            &[Value::UInt(0), Value::UInt(255)],
        );
    }

    #[test]
    fn successors() {
        assert_eq!(prefix_successor(&[1, 2, 0xFF]), Some(vec![1, 3]));
        assert_eq!(prefix_successor(&[0xFF, 0xFF]), None);
        assert_eq!(index_range(7), (vec![0, 0, 0, 7], vec![0, 0, 0, 8]));
    }
}
