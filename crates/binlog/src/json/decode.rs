//! Parses MySQL's binary JSON into a [`JsonValue`], checking every offset against the
//! enclosing container's declared size and bounding the nesting depth.

use super::encode::*;
use super::JsonValue;
use crate::bytes::uint_le;
use crate::error::{BinlogError, Result};

fn corrupt(detail: impl Into<String>) -> BinlogError {
    BinlogError::corrupt("JSON value", detail)
}

fn slice(data: &[u8], at: usize, n: usize) -> Result<&[u8]> {
    at.checked_add(n)
        .and_then(|end| data.get(at..end))
        .ok_or(BinlogError::Truncated { what: "JSON value" })
}

/// Decodes a JSON column value (type byte then value). An empty input is JSON `null`, as MySQL
/// treats an empty JSON column.
///
/// # Errors
/// [`BinlogError::Truncated`] or [`BinlogError::Corrupt`] for malformed input.
pub fn decode_json(bytes: &[u8]) -> Result<JsonValue> {
    match bytes.split_first() {
        None => Ok(JsonValue::Null),
        Some((&t, rest)) => parse_value(t, rest, 0),
    }
}

fn read_var_len(data: &[u8], at: usize) -> Result<(usize, usize)> {
    let mut len: u64 = 0;
    for i in 0..5 {
        let b = *data.get(at + i).ok_or(BinlogError::Truncated {
            what: "JSON length",
        })?;
        len |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            if len > u64::from(u32::MAX) {
                return Err(corrupt("length over 4 GiB"));
            }
            return Ok((len as usize, i + 1));
        }
    }
    Err(corrupt("unterminated length"))
}

fn parse_value(t: u8, data: &[u8], depth: usize) -> Result<JsonValue> {
    Ok(match t {
        SMALL_OBJECT | LARGE_OBJECT | SMALL_ARRAY | LARGE_ARRAY => {
            let large = t == LARGE_OBJECT || t == LARGE_ARRAY;
            let is_object = t == SMALL_OBJECT || t == LARGE_OBJECT;
            parse_container(data, large, is_object, depth + 1)?
        }
        LITERAL => parse_literal(*data.first().ok_or(BinlogError::Truncated {
            what: "JSON literal",
        })?)?,
        INT16 => JsonValue::Int(i64::from(uint_le(slice(data, 0, 2)?) as u16 as i16)),
        UINT16 => JsonValue::UInt(uint_le(slice(data, 0, 2)?)),
        INT32 => JsonValue::Int(i64::from(uint_le(slice(data, 0, 4)?) as u32 as i32)),
        UINT32 => JsonValue::UInt(uint_le(slice(data, 0, 4)?)),
        INT64 => JsonValue::Int(uint_le(slice(data, 0, 8)?) as i64),
        UINT64 => JsonValue::UInt(uint_le(slice(data, 0, 8)?)),
        DOUBLE => JsonValue::Double(f64::from_bits(uint_le(slice(data, 0, 8)?))),
        STRING => {
            let (len, n) = read_var_len(data, 0)?;
            let s = slice(data, n, len)?;
            JsonValue::String(
                String::from_utf8(s.to_vec()).map_err(|_| corrupt("string is not UTF-8"))?,
            )
        }
        OPAQUE => {
            let field_type = *data.first().ok_or(BinlogError::Truncated {
                what: "JSON opaque",
            })?;
            let (len, n) = read_var_len(data, 1)?;
            JsonValue::Opaque {
                field_type,
                data: slice(data, 1 + n, len)?.to_vec(),
            }
        }
        t => return Err(corrupt(format!("unknown type {t:#x}"))),
    })
}

fn parse_literal(b: u8) -> Result<JsonValue> {
    match b {
        NULL_LITERAL => Ok(JsonValue::Null),
        TRUE_LITERAL => Ok(JsonValue::Bool(true)),
        FALSE_LITERAL => Ok(JsonValue::Bool(false)),
        b => Err(corrupt(format!("unknown literal {b:#x}"))),
    }
}

fn parse_container(data: &[u8], large: bool, is_object: bool, depth: usize) -> Result<JsonValue> {
    if depth > MAX_DEPTH {
        return Err(corrupt("nested deeper than 100"));
    }
    let osz = if large { 4 } else { 2 };
    let count = uint_le(slice(data, 0, osz)?) as usize;
    let size = uint_le(slice(data, osz, osz)?) as usize;
    let data = data.get(..size).ok_or(BinlogError::Truncated {
        what: "JSON container",
    })?;
    let key_entry = if is_object { osz + 2 } else { 0 };
    let value_entry = 1 + osz;
    let header = count
        .checked_mul(key_entry + value_entry)
        .and_then(|n| n.checked_add(2 * osz));
    if header.is_none_or(|n| n > size) {
        return Err(corrupt(format!(
            "{count} elements do not fit in {size} bytes"
        )));
    }
    let mut keys = Vec::new();
    if is_object {
        for i in 0..count {
            let e = 2 * osz + i * key_entry;
            let off = uint_le(slice(data, e, osz)?) as usize;
            let len = uint_le(slice(data, e + osz, 2)?) as usize;
            let k = slice(data, off, len)?;
            keys.push(String::from_utf8(k.to_vec()).map_err(|_| corrupt("key is not UTF-8"))?);
        }
    }
    let mut values = Vec::with_capacity(count);
    for i in 0..count {
        let e = 2 * osz + count * key_entry + i * value_entry;
        let t = slice(data, e, 1)?[0];
        let slot = slice(data, e + 1, osz)?;
        values.push(parse_entry(t, slot, data, large, depth)?);
    }
    Ok(if is_object {
        JsonValue::Object(keys.into_iter().zip(values).collect())
    } else {
        JsonValue::Array(values)
    })
}

/// One value entry: inlined in `slot`, or at the offset in `slot` within `container`.
fn parse_entry(
    t: u8,
    slot: &[u8],
    container: &[u8],
    large: bool,
    depth: usize,
) -> Result<JsonValue> {
    let inlined = match t {
        LITERAL | INT16 | UINT16 => true,
        INT32 | UINT32 => large,
        _ => false,
    };
    if inlined {
        return Ok(match t {
            LITERAL => parse_literal(slot[0])?,
            INT16 => JsonValue::Int(i64::from(uint_le(&slot[..2]) as u16 as i16)),
            UINT16 => JsonValue::UInt(uint_le(&slot[..2])),
            INT32 => JsonValue::Int(i64::from(uint_le(&slot[..4]) as u32 as i32)),
            _ => JsonValue::UInt(uint_le(&slot[..4])),
        });
    }
    let off = uint_le(slot) as usize;
    let rest = container
        .get(off..)
        .filter(|r| !r.is_empty())
        .ok_or_else(|| corrupt(format!("offset {off} out of range")))?;
    parse_value(t, rest, depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::encode_json;

    fn j(text: &str) -> JsonValue {
        // A tiny literal builder for tests: numbers, strings without escapes, nesting.
        fn parse(s: &[u8], i: &mut usize) -> JsonValue {
            while s[*i] == b' ' {
                *i += 1;
            }
            match s[*i] {
                b'{' => {
                    *i += 1;
                    let mut m = Vec::new();
                    loop {
                        while s[*i] == b' ' || s[*i] == b',' {
                            *i += 1;
                        }
                        if s[*i] == b'}' {
                            *i += 1;
                            return JsonValue::Object(m);
                        }
                        let JsonValue::String(k) = parse(s, i) else {
                            panic!()
                        };
                        while s[*i] == b' ' || s[*i] == b':' {
                            *i += 1;
                        }
                        m.push((k, parse(s, i)));
                    }
                }
                b'[' => {
                    *i += 1;
                    let mut a = Vec::new();
                    loop {
                        while s[*i] == b' ' || s[*i] == b',' {
                            *i += 1;
                        }
                        if s[*i] == b']' {
                            *i += 1;
                            return JsonValue::Array(a);
                        }
                        a.push(parse(s, i));
                    }
                }
                b'"' => {
                    let end = *i + 1 + s[*i + 1..].iter().position(|&c| c == b'"').unwrap();
                    let v = JsonValue::String(String::from_utf8(s[*i + 1..end].to_vec()).unwrap());
                    *i = end + 1;
                    v
                }
                _ => {
                    let end = *i
                        + s[*i..]
                            .iter()
                            .position(|&c| b" ,]}".contains(&c))
                            .unwrap_or(s.len() - *i);
                    let t = std::str::from_utf8(&s[*i..end]).unwrap();
                    *i = end;
                    match t {
                        "null" => JsonValue::Null,
                        "true" => JsonValue::Bool(true),
                        "false" => JsonValue::Bool(false),
                        t if t.contains('.') => JsonValue::Double(t.parse().unwrap()),
                        t => JsonValue::Int(t.parse().unwrap()),
                    }
                }
            }
        }
        parse(text.as_bytes(), &mut 0)
    }

    fn round_trip(v: &JsonValue) -> Vec<u8> {
        let bytes = encode_json(v).unwrap();
        assert_eq!(decode_json(&bytes).unwrap(), v.normalized(), "{v}");
        bytes
    }

    #[test]
    fn byte_exact_small_documents() {
        // Scalars: type byte then value.
        assert_eq!(round_trip(&JsonValue::Int(1)), [INT16, 1, 0]);
        assert_eq!(round_trip(&JsonValue::Null), [LITERAL, NULL_LITERAL]);
        assert_eq!(
            round_trip(&JsonValue::String("ab".into())),
            [STRING, 2, b'a', b'b']
        );
        // {"a": 1}: count 1, size 12, key entry (11, 1), value entry (INT16 inline 1), key.
        assert_eq!(
            round_trip(&j(r#"{"a": 1}"#)),
            [SMALL_OBJECT, 1, 0, 12, 0, 11, 0, 1, 0, INT16, 1, 0, b'a']
        );
        // [true, "x"]: count 2, size 12, entries (LITERAL true), (STRING at 10), then 1 'x'.
        assert_eq!(
            round_trip(&j(r#"[true, "x"]"#)),
            [
                SMALL_ARRAY,
                2,
                0,
                12,
                0,
                LITERAL,
                1,
                0,
                STRING,
                10,
                0,
                1,
                b'x'
            ]
        );
    }

    #[test]
    fn round_trips_of_every_kind() {
        let docs = [
            j(r#"{"b": [1, 2, {"c": null}], "a": "x", "aa": {"z": [], "y": {}}}"#),
            j(r#"[1.5, -2.25, 0.0, true, false, null, "", "é"]"#),
            JsonValue::Array(vec![
                JsonValue::Int(i64::MIN),
                JsonValue::Int(-32769),
                JsonValue::Int(-32768),
                JsonValue::Int(2_147_483_647),
                JsonValue::Int(i64::MAX),
                JsonValue::UInt(u64::MAX),
                JsonValue::UInt(65_536),
                JsonValue::UInt(7),
                JsonValue::Opaque {
                    field_type: 246,
                    data: vec![0x81, 0x0d],
                },
            ]),
            JsonValue::Object(vec![]),
            JsonValue::Double(f64::MAX),
            JsonValue::UInt(u64::MAX),
            JsonValue::Int(-5),
        ];
        for d in &docs {
            round_trip(d);
        }
    }

    #[test]
    fn large_storage_format() {
        // 70 000 bytes of string forces the large format at the top level only.
        let big = JsonValue::String("x".repeat(70_000));
        let doc = JsonValue::object([("k", big.clone()), ("n", JsonValue::Int(100_000))]);
        let bytes = round_trip(&doc);
        assert_eq!(bytes[0], LARGE_OBJECT);
        let arr = JsonValue::Array(vec![
            JsonValue::Array(vec![big.clone()]),
            JsonValue::Int(-1),
        ]);
        let bytes = round_trip(&arr);
        assert_eq!(bytes[0], LARGE_ARRAY);
        // A small nested container stays small inside a large parent.
        let mixed = JsonValue::Array(vec![big, JsonValue::Array(vec![JsonValue::Int(1)])]);
        round_trip(&mixed);
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut v = JsonValue::Null;
        for _ in 0..100 {
            v = JsonValue::Array(vec![v]);
        }
        round_trip(&v);
        let too_deep = JsonValue::Array(vec![v]);
        assert!(encode_json(&too_deep).is_err());
        // A hand-made 200-deep document is rejected without overflowing the stack.
        let mut inner: Vec<u8> = vec![0, 0, 4, 0];
        for _ in 0..200 {
            let size = 7 + inner.len();
            let mut c = vec![1, 0, size as u8, (size >> 8) as u8, SMALL_ARRAY, 7, 0];
            c.extend_from_slice(&inner);
            inner = c;
        }
        inner.insert(0, SMALL_ARRAY);
        assert!(matches!(
            decode_json(&inner),
            Err(BinlogError::Corrupt { .. })
        ));
    }

    #[test]
    fn decoder_never_panics_on_truncated_or_corrupt_input() {
        let doc = j(r#"{"b": [1, 2, {"c": null}], "a": "xyz", "aa": {"z": [3.5], "y": {}}}"#);
        let bytes = encode_json(&doc).unwrap();
        for n in 1..bytes.len() {
            assert!(decode_json(&bytes[..n]).is_err(), "prefix {n}");
        }
        for i in 0..bytes.len() {
            for x in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= x;
                let _ = decode_json(&b);
            }
        }
        assert!(decode_json(&[0x0d]).is_err());
        assert!(decode_json(&[STRING, 0xff, 0xff, 0xff, 0xff, 0xff]).is_err());
        assert!(decode_json(&[LITERAL, 7]).is_err());
    }
}
