//! WEIGHT_STRING(expr [AS CHAR(n) | AS BINARY(n)]): the binary sort key of a value, bytes that
//! compare (memcmp) as the values compare: for strings the collation's weights
//! ([`common::collation::weight`], Strata's weights, not UCA's bytes), for numbers and temporal
//! values a big-endian, sign-adjusted encoding as MySQL's sort keys (integers in the column's
//! byte width, 8 bytes otherwise). Vitess' vtgate merges rows from several shards by these keys
//! when it cannot compare a column itself.

use common::{Collation, Value};

/// The `AS` clause of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WeightAs {
    /// `AS CHAR(n)`: the string cut or padded with spaces to `n` characters.
    Char(usize),
    /// `AS BINARY(n)`: the bytes cut or padded with 0x00 to `n` bytes.
    Binary(usize),
}

/// How the argument of a call is typed, decided when the call is bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeightArg {
    /// The collation of a string argument (a column's own, else the connection's).
    pub collation: Collation,
    /// An integer column's byte width (1..=8); 8 for other integer expressions.
    pub int_bytes: u8,
    /// The `AS` clause.
    pub as_: Option<WeightAs>,
}

/// WEIGHT_STRING of `v`; NULL for NULL.
pub fn weight_string(v: &Value, arg: &WeightArg) -> Value {
    let bytes = match (v, arg.as_) {
        (Value::Null, _) => return Value::Null,
        (v, Some(WeightAs::Binary(n))) => {
            let mut b = match v {
                Value::Bytes(b) => b.clone(),
                other => other.to_text().unwrap_or_default(),
            };
            b.resize(n, 0);
            b
        }
        (v, Some(WeightAs::Char(n))) => {
            let text = match v {
                Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                other => String::from_utf8_lossy(&other.to_text().unwrap_or_default()).into_owned(),
            };
            let cut: String = text.chars().take(n).collect();
            string_weight(&cut, arg.collation, Some(n))
        }
        (Value::Bytes(b), None) => b.clone(),
        (Value::Str(s), None) => string_weight(s, arg.collation, None),
        (Value::Int(i), None) => int_key((*i as u64) ^ (1 << 63), arg.int_bytes, true),
        (Value::UInt(u), None) => int_key(*u, arg.int_bytes, false),
        (Value::Float(f), None) => double_key(f64::from(*f)),
        (Value::Double(f), None) => double_key(*f),
        (Value::Decimal(d), None) => decimal_key(d),
        (Value::Date(d), None) | (Value::DateTime(d, _), None) => {
            d.to_packed().to_be_bytes().to_vec()
        }
        (Value::Time(t, _), None) => ((t.to_micros() as u64) ^ (1 << 63)).to_be_bytes().to_vec(),
    };
    Value::Bytes(bytes)
}

/// A string's weights; with `AS CHAR(n)` (`pad` = Some(n)) followed by the weights of the
/// spaces that pad it to `n` characters (a PAD SPACE collation's weights ignore trailing
/// spaces, so its padding counts from the last non-space character).
fn string_weight(s: &str, coll: Collation, pad: Option<usize>) -> Vec<u8> {
    let mut w = common::collation::weight(coll, s);
    if let Some(n) = pad {
        let kept = if coll.pad_space() {
            s.trim_end_matches(' ')
        } else {
            s
        };
        w.extend(std::iter::repeat_n(
            b' ',
            n.saturating_sub(kept.chars().count()),
        ));
    }
    w
}

/// The low `bytes` bytes of `u` (sign bit of that width flipped for a signed value).
fn int_key(u: u64, bytes: u8, signed: bool) -> Vec<u8> {
    let bytes = usize::from(bytes.clamp(1, 8));
    let u = if signed && bytes < 8 {
        // undo the 64-bit flip, flip the narrower width's sign bit instead
        let i = (u ^ (1 << 63)) as i64;
        (i as u64) ^ (1 << (bytes * 8 - 1))
    } else {
        u
    };
    u.to_be_bytes()[8 - bytes..].to_vec()
}

fn double_key(v: f64) -> Vec<u8> {
    let v = if v == 0.0 { 0.0 } else { v };
    let bits = v.to_bits();
    let enc = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    enc.to_be_bytes().to_vec()
}

/// Sign byte, then (for non-zero values) the decimal exponent and the digits, inverted for
/// negative values: equal values of different scales get equal keys.
fn decimal_key(d: &common::Decimal) -> Vec<u8> {
    let (neg, digits, exp) = d.to_digits();
    if digits.is_empty() {
        return vec![0x02];
    }
    let e = ((exp as i16) as u16) ^ 0x8000;
    let mut out = Vec::with_capacity(digits.len() + 4);
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws(v: Value, coll: Collation, int_bytes: u8, as_: Option<WeightAs>) -> Vec<u8> {
        match weight_string(
            &v,
            &WeightArg {
                collation: coll,
                int_bytes,
                as_,
            },
        ) {
            Value::Bytes(b) => b,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn integers_as_mysql_sort_keys() {
        let c = Collation::Utf8mb4_0900AiCi;
        assert_eq!(ws(Value::Int(1), c, 8, None), hex("8000000000000001"));
        assert_eq!(ws(Value::Int(1), c, 4, None), hex("80000001"));
        assert_eq!(ws(Value::Int(-1), c, 4, None), hex("7fffffff"));
        assert_eq!(ws(Value::UInt(258), c, 2, None), hex("0102"));
    }

    #[test]
    fn keys_order_as_values() {
        let c = Collation::Utf8mb4_0900AiCi;
        let ints = [-5i64, -1, 0, 3, 1000];
        let k: Vec<_> = ints
            .iter()
            .map(|i| ws(Value::Int(*i), c, 8, None))
            .collect();
        assert!(k.windows(2).all(|w| w[0] < w[1]));
        let f: Vec<_> = [-2.5f64, -0.0, 1.0, 7.25]
            .iter()
            .map(|x| ws(Value::Double(*x), c, 8, None))
            .collect();
        assert!(f.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            ws(Value::Str("ABC".into()), c, 8, None),
            ws(Value::Str("abc".into()), c, 8, None)
        );
        assert!(ws(Value::Str("a".into()), c, 8, None) < ws(Value::Str("B".into()), c, 8, None));
        assert_eq!(ws(Value::Bytes(b"Ab".to_vec()), c, 8, None), b"Ab".to_vec());
        assert_eq!(
            weight_string(
                &Value::Null,
                &WeightArg {
                    collation: c,
                    int_bytes: 8,
                    as_: None
                }
            ),
            Value::Null
        );
    }

    #[test]
    fn as_clauses_cut_and_pad() {
        let c = Collation::Utf8mb4_0900AiCi;
        assert_eq!(
            ws(Value::Str("ab".into()), c, 8, Some(WeightAs::Binary(4))),
            b"ab\0\0".to_vec()
        );
        assert_eq!(
            ws(Value::Str("abcdef".into()), c, 8, Some(WeightAs::Binary(2))),
            b"ab".to_vec()
        );
        assert_eq!(
            ws(Value::Str("AB".into()), c, 8, Some(WeightAs::Char(4))),
            b"ab  ".to_vec()
        );
        assert_eq!(
            ws(Value::Str("ABCD".into()), c, 8, Some(WeightAs::Char(2))),
            b"ab".to_vec()
        );
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
