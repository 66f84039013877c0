//! MySQL's comparison of JSON values (`=`, `<`, …, ORDER BY a JSON column): when one operand
//! of a comparison is JSON, both are compared as JSON — the other converted as for a JSON
//! function argument (a string becomes a JSON string, TRUE / FALSE and comparisons JSON
//! booleans) — first by type precedence, then by value: numbers numerically (`1 = 1.0`),
//! strings by their bytes (utf8mb4_bin), arrays element by element (a prefix first), booleans
//! false before true, temporal values chronologically.
//!
//! The comparison is made a byte comparison: [`sort_key`] encodes a value so that the byte
//! order of two keys is MySQL's order of the values (and equal keys equal values). The SQL
//! layer compares `JSON@KEY(a)` with `JSON@KEY(b)` as binary strings, which also serves
//! ORDER BY, GROUP BY and DISTINCT. Objects compare equal when their members are; MySQL
//! defines no order between unequal objects and neither does this (the key gives some order).

use common::Value;

use crate::jsonfn::Json;

/// Internal function name: `JSON@KEY(x)` is the [`sort_key`] of `x` as a binary string (its
/// argument kind says whether x is JSON text, a boolean or a plain SQL value).
pub const JSON_KEY: &str = "JSON@KEY";

/// Type ranks, lowest first, in MySQL's precedence (NULL < numbers < STRING < OBJECT < ARRAY <
/// BOOLEAN < DATE < TIME < DATETIME < OPAQUE). None is 0: it ends arrays and objects.
fn rank(j: &Json) -> u8 {
    match j {
        Json::Null => 1,
        Json::Int(_) | Json::UInt(_) | Json::Double(_) | Json::Decimal(_) => 2,
        Json::Str(_) => 3,
        Json::Object(_) => 4,
        Json::Array(_) => 5,
        Json::Bool(_) => 6,
        Json::Date(_) => 7,
        Json::Time(_) => 8,
        Json::DateTime(_) => 9,
        Json::Opaque(_) => 10,
    }
}

/// Appends the order-preserving encoding of `j` to `out`.
pub fn sort_key(j: &Json, out: &mut Vec<u8>) {
    out.push(rank(j));
    match j {
        Json::Null => {}
        Json::Bool(b) => out.push(*b as u8),
        Json::Int(i) => number(*i as f64, out),
        Json::UInt(u) => number(*u as f64, out),
        Json::Double(d) => number(*d, out),
        Json::Decimal(d) => number(d.to_f64(), out),
        Json::Str(s) | Json::Date(s) | Json::Time(s) | Json::DateTime(s) => {
            bytes(s.as_bytes(), out)
        }
        Json::Opaque(b) => bytes(b, out),
        Json::Array(items) => {
            for x in items {
                sort_key(x, out);
            }
            out.push(0);
        }
        Json::Object(members) => {
            for (k, v) in members {
                bytes(k.as_bytes(), out);
                sort_key(v, out);
            }
            out.push(0);
        }
    }
}

/// A double as 8 bytes whose unsigned order is the numeric order (-0 = 0).
fn number(d: f64, out: &mut Vec<u8>) {
    let d = if d == 0.0 { 0.0 } else { d };
    let bits = d.to_bits();
    let k = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    out.extend_from_slice(&k.to_be_bytes());
}

/// Bytes, self-delimiting and order-preserving: 0x00 escaped as 0x00 0xFF, ended by 0x00 0x00.
fn bytes(b: &[u8], out: &mut Vec<u8>) {
    for &x in b {
        out.push(x);
        if x == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 0]);
}

/// `JSON@KEY` of a JSON value: the key as a binary string (NULL for SQL NULL).
pub fn key_value(j: Option<&Json>) -> Value {
    match j {
        None => Value::Null,
        Some(j) => {
            let mut out = Vec::new();
            sort_key(j, &mut out);
            Value::Bytes(out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonfn::parse;

    fn key(text: &str) -> Vec<u8> {
        let mut out = Vec::new();
        sort_key(&parse(text).expect("valid JSON"), &mut out);
        out
    }

    #[test]
    fn numbers_compare_numerically_across_kinds() {
        assert_eq!(key("1"), key("1.0"));
        assert!(key("9") < key("10"));
        assert!(key("-2.5") < key("-1"));
        assert!(key("-1") < key("0"));
        assert_eq!(key("0"), key("-0.0"));
    }

    #[test]
    fn types_follow_mysql_precedence() {
        let order = [
            "null", "-5", "100", "\"a\"", "\"b\"", "{}", "[]", "false", "true",
        ];
        for w in order.windows(2) {
            assert!(key(w[0]) < key(w[1]), "{} < {}", w[0], w[1]);
        }
    }

    #[test]
    fn arrays_and_strings_are_prefix_ordered() {
        assert!(key("[1, 2]") < key("[1, 2, 0]"));
        assert!(key("[1, 2]") < key("[1, 3]"));
        assert!(key("\"ab\"") < key("\"abc\""));
        assert!(key("[\"a\", 1]") < key("[\"ab\"]"));
        assert_eq!(
            key("{\"a\": 1, \"b\": [true]}"),
            key("{\"b\": [true], \"a\": 1.0}")
        );
        assert_ne!(key("{\"a\": 1}"), key("{\"a\": 2}"));
    }
}
