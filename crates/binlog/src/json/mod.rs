//! JSON values and MySQL's binary JSON format (`json_binary.cc`), as JSON columns carry it in
//! row events: [`JsonValue`], [`encode_json`] and [`decode_json`].

mod decode;
mod encode;

use std::fmt;

pub use decode::decode_json;
pub use encode::encode_json;

/// A JSON document as MySQL's binary format distinguishes values.
///
/// Integers keep MySQL's signed/unsigned distinction (`Int` is stored as int16/int32/int64,
/// `UInt` as uint16/uint32/uint64, each in the smallest width that holds it). Object members
/// are kept in the order given; [`encode_json`] sorts keys the way MySQL does (shorter first,
/// then bytewise) and keeps the last of duplicate keys, and [`decode_json`] returns them in
/// stored order. `Opaque` carries MySQL values without a JSON counterpart (DECIMAL, DATETIME,
/// …) as the field type byte and its binary payload.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonValue {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A double.
    Double(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<JsonValue>),
    /// An object.
    Object(Vec<(String, JsonValue)>),
    /// A MySQL-specific scalar: field type and payload.
    Opaque {
        /// The MySQL field type code of the payload.
        field_type: u8,
        /// The payload bytes.
        data: Vec<u8>,
    },
}

impl JsonValue {
    /// An object from members (any order; see [`encode_json`] for normalization).
    pub fn object<K: Into<String>>(members: impl IntoIterator<Item = (K, JsonValue)>) -> Self {
        JsonValue::Object(members.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    /// The same value with object keys in MySQL's order and duplicates removed (last wins),
    /// recursively: what decoding an encoded value returns.
    pub fn normalized(&self) -> JsonValue {
        match self {
            JsonValue::Array(a) => JsonValue::Array(a.iter().map(|v| v.normalized()).collect()),
            JsonValue::Object(members) => {
                let mut out: Vec<(String, JsonValue)> = Vec::with_capacity(members.len());
                for (k, v) in members {
                    let v = v.normalized();
                    match out.iter_mut().find(|(ok, _)| ok == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k.clone(), v)),
                    }
                }
                out.sort_by(|(a, _), (b, _)| key_order(a, b));
                JsonValue::Object(out)
            }
            v => v.clone(),
        }
    }
}

/// MySQL's key order in binary objects: by length, then bytewise.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

fn write_json_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

/// Prints JSON text the way MySQL does (`{"a": 1, "b": [true, null]}`); opaque values print
/// as the string `"opaque:<field type>:<hex payload>"`.
impl fmt::Display for JsonValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonValue::Null => f.write_str("null"),
            JsonValue::Bool(b) => write!(f, "{b}"),
            JsonValue::Int(i) => write!(f, "{i}"),
            JsonValue::UInt(u) => write!(f, "{u}"),
            JsonValue::Double(d) if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e15 => {
                write!(f, "{d:.1}")
            }
            JsonValue::Double(d) => write!(f, "{d}"),
            JsonValue::String(s) => write_json_string(f, s),
            JsonValue::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            JsonValue::Object(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_json_string(f, k)?;
                    write!(f, ": {v}")?;
                }
                f.write_str("}")
            }
            JsonValue::Opaque { field_type, data } => {
                write!(f, "\"opaque:{field_type}:")?;
                for b in data {
                    write!(f, "{b:02x}")?;
                }
                f.write_str("\"")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_like_mysql() {
        let v = JsonValue::object([
            ("a", JsonValue::Int(1)),
            (
                "b",
                JsonValue::Array(vec![JsonValue::Bool(true), JsonValue::Null]),
            ),
            ("c", JsonValue::String("x\"y\n".into())),
            ("d", JsonValue::Double(2.0)),
            ("e", JsonValue::Double(0.5)),
        ]);
        assert_eq!(
            v.to_string(),
            r#"{"a": 1, "b": [true, null], "c": "x\"y\n", "d": 2.0, "e": 0.5}"#
        );
    }

    #[test]
    fn normalization_sorts_and_dedups() {
        let v = JsonValue::object([
            ("bb", JsonValue::Int(1)),
            ("a", JsonValue::Int(2)),
            ("c", JsonValue::Int(3)),
            ("a", JsonValue::Int(4)),
        ]);
        assert_eq!(
            v.normalized(),
            JsonValue::object([
                ("a", JsonValue::Int(4)),
                ("c", JsonValue::Int(3)),
                ("bb", JsonValue::Int(1)),
            ])
        );
    }
}
