//! Byte encodings: memcomparable index keys ([`key`]) and the compact row value format ([`row`]),
//! plus the varint and value-coercion helpers they share.

pub mod key;
pub mod row;

use common::time::DateTime;
use common::Decimal;
use common::{Collation, Error, Result, Value};

/// Appends `v` as an unsigned LEB128 varint.
pub fn put_uvarint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads an unsigned LEB128 varint at `*pos`, advancing it.
///
/// # Errors
/// Truncated or overlong input (corrupt data).
pub fn get_uvarint(buf: &[u8], pos: &mut usize) -> Result<u64> {
    let mut v: u64 = 0;
    let mut shift = 0u32;
    loop {
        let b = *buf.get(*pos).ok_or_else(|| corrupt("truncated varint"))?;
        *pos += 1;
        if shift >= 64 {
            return Err(corrupt("varint too long"));
        }
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
        shift += 7;
    }
}

/// Appends a zigzag-encoded signed varint.
pub fn put_ivarint(out: &mut Vec<u8>, v: i64) {
    put_uvarint(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Reads a zigzag-encoded signed varint.
///
/// # Errors
/// Truncated input.
pub fn get_ivarint(buf: &[u8], pos: &mut usize) -> Result<i64> {
    let u = get_uvarint(buf, pos)?;
    Ok(((u >> 1) as i64) ^ -((u & 1) as i64))
}

/// An error for undecodable stored bytes.
pub(crate) fn corrupt(what: &str) -> Error {
    Error::internal(format!("corrupt stored data: {what}"))
}

/// An error for a value that cannot be converted to a column type for storage.
pub(crate) fn bad_value(v: &Value, ty: &str) -> Error {
    Error::new(
        common::codes::ER_UNKNOWN_ERROR,
        format!(
            "Storage: value '{v}' cannot be stored as {ty} (the SQL layer must convert it first)"
        ),
    )
}

/// The value as i64 (integers, integral doubles/decimals, numeric strings).
pub(crate) fn to_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Double(d) if d.fract() == 0.0 && d.abs() < 9.2e18 => Some(*d as i64),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(*f as i64),
        Value::Decimal(d) if d.fract().is_zero() => d.to_i64(),
        Value::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The value as u64.
pub(crate) fn to_u64(v: &Value) -> Option<u64> {
    match v {
        Value::UInt(u) => Some(*u),
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Double(d) if d.fract() == 0.0 && *d >= 0.0 && *d < 1.8e19 => Some(*d as u64),
        Value::Float(f) if f.fract() == 0.0 && *f >= 0.0 && *f < 1.8e19 => Some(*f as u64),
        Value::Decimal(d) if d.fract().is_zero() => d.to_u64(),
        Value::Str(s) => s.trim().parse().ok(),
        Value::Bytes(b) if b.len() <= 8 => Some(b.iter().fold(0u64, |a, x| a << 8 | *x as u64)),
        _ => None,
    }
}

/// The value as f64.
pub(crate) fn to_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Double(d) => Some(*d),
        Value::Float(f) => Some(*f as f64),
        Value::Int(i) => Some(*i as f64),
        Value::UInt(u) => Some(*u as f64),
        Value::Decimal(d) => Some(d.to_f64()),
        Value::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The value as a decimal.
pub(crate) fn to_decimal(v: &Value) -> Option<Decimal> {
    match v {
        Value::Decimal(d) => Some(d.clone()),
        Value::Int(i) => Some(Decimal::from(*i)),
        Value::UInt(u) => Some(Decimal::from(*u)),
        Value::Double(d) => Decimal::from_f64(*d),
        Value::Float(f) => Decimal::from_f64(*f as f64),
        Value::Str(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The value as a date-time (DATE and DATETIME values).
pub(crate) fn to_datetime(v: &Value) -> Option<DateTime> {
    match v {
        Value::Date(d) | Value::DateTime(d, _) => Some(*d),
        _ => None,
    }
}

/// Text of a string-ish value (bytes are taken as UTF-8, lossily).
pub(crate) fn to_text(v: &Value) -> std::borrow::Cow<'_, str> {
    match v {
        Value::Str(s) => std::borrow::Cow::Borrowed(s.as_str()),
        Value::Bytes(b) => String::from_utf8_lossy(b),
        other => std::borrow::Cow::Owned(other.to_string()),
    }
}

/// Raw bytes of a value (strings as UTF-8).
pub(crate) fn to_bytes(v: &Value) -> std::borrow::Cow<'_, [u8]> {
    match v {
        Value::Bytes(b) => std::borrow::Cow::Borrowed(b.as_slice()),
        Value::Str(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        other => std::borrow::Cow::Owned(other.to_string().into_bytes()),
    }
}

/// The 1-based index of an ENUM member (0 = the empty error value).
pub fn enum_index(values: &[String], coll: Collation, v: &Value) -> Option<u64> {
    match v {
        Value::Int(_) | Value::UInt(_) => to_u64(v),
        _ => {
            let s = to_text(v);
            if s.is_empty() {
                return Some(0);
            }
            values
                .iter()
                .position(|m| common::collation::eq(coll, m, &s))
                .map(|p| p as u64 + 1)
        }
    }
}

/// The member string of ENUM index `i`.
pub fn enum_name(values: &[String], i: u64) -> String {
    if i == 0 {
        return String::new();
    }
    values.get(i as usize - 1).cloned().unwrap_or_default()
}

/// The bitmask of a SET value.
pub fn set_mask(values: &[String], coll: Collation, v: &Value) -> Option<u64> {
    match v {
        Value::Int(_) | Value::UInt(_) => to_u64(v),
        _ => {
            let s = to_text(v);
            let mut mask = 0u64;
            for part in s.split(',').filter(|p| !p.is_empty()) {
                let p = values
                    .iter()
                    .position(|m| common::collation::eq(coll, m, part))?;
                mask |= 1u64 << p;
            }
            Some(mask)
        }
    }
}

/// The string form of a SET bitmask.
pub fn set_name(values: &[String], mask: u64) -> String {
    values
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 64 && mask & (1u64 << i) != 0)
        .map(|(_, m)| m.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_roundtrip() {
        for v in [0u64, 1, 127, 128, 300, u32::MAX as u64, u64::MAX] {
            let mut b = Vec::new();
            put_uvarint(&mut b, v);
            let mut p = 0;
            assert_eq!(get_uvarint(&b, &mut p).unwrap(), v);
            assert_eq!(p, b.len());
        }
        for v in [0i64, -1, 1, i64::MIN, i64::MAX, -300] {
            let mut b = Vec::new();
            put_ivarint(&mut b, v);
            let mut p = 0;
            assert_eq!(get_ivarint(&b, &mut p).unwrap(), v);
        }
        assert!(get_uvarint(&[0x80], &mut 0).is_err());
    }

    #[test]
    fn enum_and_set_names() {
        let vals = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(
            enum_index(&vals, Collation::Utf8mb4GeneralCi, &Value::Str("B".into())),
            Some(2)
        );
        assert_eq!(enum_name(&vals, 2), "b");
        let m = set_mask(
            &vals,
            Collation::Utf8mb4GeneralCi,
            &Value::Str("c,a".into()),
        )
        .unwrap();
        assert_eq!(m, 0b101);
        assert_eq!(set_name(&vals, m), "a,c");
    }
}
