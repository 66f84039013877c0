//! MySQL comparison semantics (`=`, `<`, `<=>`, ORDER BY of mixed values) and hash keys that
//! agree with them (for GROUP BY, DISTINCT and hash joins).
//!
//! The coercion follows the manual's "Type Conversion in Expression Evaluation":
//! two strings compare under the collation (binary if either is a binary string); two integers
//! as integers (signed/unsigned aware); DECIMAL with an integer or DECIMAL exactly; a temporal
//! value with a string or a number by converting the other side to the temporal type; temporal
//! with temporal as datetimes (or times); everything else as doubles.

use std::cmp::Ordering;

use common::collation;
use common::time::DateTime;
use common::Decimal;
use common::{Collation, Value, Warning};

use crate::convert;

fn is_str(v: &Value) -> bool {
    matches!(v, Value::Str(_) | Value::Bytes(_))
}

fn is_int(v: &Value) -> bool {
    matches!(v, Value::Int(_) | Value::UInt(_))
}

fn is_temporal(v: &Value) -> bool {
    matches!(v, Value::Date(_) | Value::DateTime(..) | Value::Time(..))
}

fn cmp_f64(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b)
        .unwrap_or_else(|| a.is_nan().cmp(&b.is_nan()))
}

fn cmp_int(a: &Value, b: &Value) -> Ordering {
    let x = match a {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        _ => 0,
    };
    let y = match b {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        _ => 0,
    };
    x.cmp(&y)
}

fn exact_decimal(v: &Value) -> Option<Decimal> {
    match v {
        Value::Int(i) => Some(Decimal::from(*i)),
        Value::UInt(u) => Some(Decimal::from(*u)),
        Value::Decimal(d) => Some(d.clone()),
        _ => None,
    }
}

/// Compares a DATETIME-like value with another value converted to datetime; `None` when the
/// other side does not convert.
fn temporal_of(v: &Value, like: &Value) -> Option<Value> {
    let mut w = Vec::new();
    match like {
        Value::Time(..) => {
            let t = convert::to_time(v, &mut w)?;
            Some(Value::Time(t, 6))
        }
        _ => {
            let d = convert::to_datetime(v, &mut w)?;
            Some(Value::DateTime(d, 6))
        }
    }
}

fn cmp_temporal(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Time(x, _), Value::Time(y, _)) => x.cmp(y),
        _ => {
            let mut w = Vec::new();
            let x = convert::to_datetime(a, &mut w).unwrap_or_default();
            let y = convert::to_datetime(b, &mut w).unwrap_or_default();
            x.cmp(&y)
        }
    }
}

fn as_bytes(v: &Value) -> std::borrow::Cow<'_, [u8]> {
    match v {
        Value::Bytes(b) => std::borrow::Cow::Borrowed(b.as_slice()),
        Value::Str(s) => std::borrow::Cow::Borrowed(s.as_bytes()),
        other => std::borrow::Cow::Owned(other.to_text().unwrap_or_default()),
    }
}

/// Compares two values with MySQL's coercion rules; `None` if either is NULL.
pub fn compare(a: &Value, b: &Value, coll: Collation) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    Some(compare_non_null(a, b, coll))
}

/// [`compare`] for a comparison operator in an expression: a string compared with a number as
/// a double adds MySQL's warning 1292 `Truncated incorrect DOUBLE value` for a non-numeric string.
pub fn compare_warn(
    a: &Value,
    b: &Value,
    coll: Collation,
    w: &mut Vec<Warning>,
) -> Option<Ordering> {
    if a.is_null() || b.is_null() {
        return None;
    }
    Some(compare_inner(a, b, coll, w))
}

fn compare_non_null(a: &Value, b: &Value, coll: Collation) -> Ordering {
    compare_inner(a, b, coll, &mut Vec::new())
}

fn compare_inner(a: &Value, b: &Value, coll: Collation, warn: &mut Vec<Warning>) -> Ordering {
    // Strings.
    if is_str(a) && is_str(b) {
        return match (a, b) {
            (Value::Str(x), Value::Str(y)) => collation::compare(coll, x, y),
            _ => as_bytes(a).cmp(&as_bytes(b)),
        };
    }
    // Temporal with temporal.
    if is_temporal(a) && is_temporal(b) {
        return cmp_temporal(a, b);
    }
    // Temporal with string or integer: convert the other side.
    if is_temporal(a) && (is_str(b) || is_int(b)) {
        if let Some(bt) = temporal_of(b, a) {
            return cmp_temporal(a, &bt);
        }
        if is_str(b) {
            return collation::compare(
                coll,
                &a.to_string(),
                &String::from_utf8_lossy(&as_bytes(b)),
            );
        }
    }
    if is_temporal(b) && (is_str(a) || is_int(a)) {
        return compare_inner(b, a, coll, warn).reverse();
    }
    if is_int(a) && is_int(b) {
        return cmp_int(a, b);
    }
    if let (Some(x), Some(y)) = (exact_decimal(a), exact_decimal(b)) {
        return x.cmp(&y);
    }
    // Strings with numbers, and temporals with decimals: compare as doubles.
    let x = convert::to_f64(a, warn).unwrap_or(0.0);
    let y = convert::to_f64(b, warn).unwrap_or(0.0);
    cmp_f64(x, y)
}

/// `a <=> b`: NULL-safe equality (true when both are NULL).
pub fn eq_null_safe(a: &Value, b: &Value, coll: Collation) -> bool {
    match (a.is_null(), b.is_null()) {
        (true, true) => true,
        (false, false) => compare_non_null(a, b, coll) == Ordering::Equal,
        _ => false,
    }
}

/// Total order used by ORDER BY: NULL first, then [`compare`].
pub fn sort_cmp(a: &Value, b: &Value, coll: Collation) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => compare_non_null(a, b, coll),
    }
}

fn push_number(d: Decimal, out: &mut Vec<u8>) {
    let n = d.normalize();
    if n.scale() == 0 {
        if let Some(i) = n.to_i128() {
            out.push(b'N');
            out.extend_from_slice(&i.to_be_bytes());
            return;
        }
    }
    out.push(b'F');
    let s = n.to_string();
    out.extend_from_slice(&(s.len() as u32).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn push_datetime(d: &DateTime, out: &mut Vec<u8>) {
    out.push(b'D');
    out.extend_from_slice(&d.to_packed().to_be_bytes());
}

/// Appends a byte key for `v` such that values of the same kind that are equal under
/// [`compare`] produce equal bytes: numbers are normalised (Int(1), UInt(1), Decimal(1.0) and
/// Double(1.0) agree), strings use the collation's weight, DATE equals a DATETIME at midnight.
/// Keys are self-delimiting, so several can be concatenated for a multi-column key.
pub fn hash_key(v: &Value, coll: Collation, out: &mut Vec<u8>) {
    match v {
        Value::Null => out.push(b'Z'),
        Value::Int(i) => push_number(Decimal::from(*i), out),
        Value::UInt(u) => push_number(Decimal::from(*u), out),
        Value::Decimal(d) => push_number(d.clone(), out),
        Value::Double(_) | Value::Float(_) => {
            let f = match v {
                Value::Double(f) => *f,
                Value::Float(f) => *f as f64,
                _ => 0.0,
            };
            match convert::f64_to_decimal(f) {
                Some(d) if f.fract() == 0.0 || d.to_f64() == f => push_number(d, out),
                _ => {
                    out.push(b'R');
                    let f = if f == 0.0 { 0.0 } else { f };
                    out.extend_from_slice(&f.to_bits().to_be_bytes());
                }
            }
        }
        Value::Str(s) => {
            let w = collation::weight(coll, s);
            out.push(b'S');
            out.extend_from_slice(&(w.len() as u32).to_be_bytes());
            out.extend_from_slice(&w);
        }
        Value::Bytes(b) => {
            out.push(b'S');
            out.extend_from_slice(&(b.len() as u32).to_be_bytes());
            out.extend_from_slice(b);
        }
        Value::Date(d) => push_datetime(d, out),
        Value::DateTime(d, _) => push_datetime(d, out),
        Value::Time(t, _) => {
            out.push(b'T');
            out.extend_from_slice(&t.to_micros().to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use common::time::Time;

    const AI: Collation = Collation::Utf8mb4_0900AiCi;

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn strings_follow_collation() {
        assert_eq!(compare(&s("abc"), &s("ABC"), AI), Some(Ordering::Equal));
        assert_eq!(
            compare(&s("abc"), &s("ABC"), Collation::Utf8mb4Bin),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Value::Bytes(b"abc".to_vec()), &s("ABC"), AI),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&s("a "), &s("a"), Collation::Utf8mb4GeneralCi),
            Some(Ordering::Equal)
        );
    }

    #[test]
    fn numbers() {
        assert_eq!(
            compare(&Value::Int(1), &s("1.0"), AI),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Value::Int(-1), &Value::UInt(u64::MAX), AI),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&Value::UInt(u64::MAX), &Value::Int(i64::MAX), AI),
            Some(Ordering::Greater)
        );
        assert_eq!(
            compare(&Value::Decimal(Decimal::new(10, 1)), &Value::Int(1), AI),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&Value::Double(0.5), &Value::Decimal(Decimal::new(5, 1)), AI),
            Some(Ordering::Equal)
        );
        assert_eq!(
            compare(&s("abc"), &Value::Int(0), AI),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(&s("10"), &s("9"), AI), Some(Ordering::Less)); // string compare
        assert_eq!(
            compare(&s("10"), &Value::Int(9), AI),
            Some(Ordering::Greater)
        );
        assert_eq!(compare(&Value::Null, &Value::Int(9), AI), None);
    }

    #[test]
    fn string_number_comparison_warns() {
        let mut w = Vec::new();
        assert_eq!(
            compare_warn(&s("10abc"), &Value::Int(10), AI, &mut w),
            Some(Ordering::Equal)
        );
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, 1292);
        assert_eq!(w[0].msg, "Truncated incorrect DOUBLE value: '10abc'");
        w.clear();
        compare_warn(&Value::Int(10), &s("10"), AI, &mut w);
        compare_warn(&s("a"), &s("b"), AI, &mut w);
        let d: Decimal = "2.5".parse().unwrap();
        compare_warn(&Value::Decimal(d), &s("2.50"), AI, &mut w);
        assert!(w.is_empty());
    }

    #[test]
    fn temporals() {
        let d = Value::Date(DateTime::date(2024, 1, 2));
        let dt = Value::DateTime(
            DateTime {
                year: 2024,
                month: 1,
                day: 2,
                hour: 1,
                ..Default::default()
            },
            0,
        );
        assert_eq!(compare(&d, &s("2024-01-02"), AI), Some(Ordering::Equal));
        assert_eq!(compare(&d, &s("2024-1-2"), AI), Some(Ordering::Equal));
        assert_eq!(
            compare(&s("2024-01-02 00:00:00"), &d, AI),
            Some(Ordering::Equal)
        );
        assert_eq!(compare(&d, &dt, AI), Some(Ordering::Less));
        assert_eq!(
            compare(&d, &Value::Int(20240102), AI),
            Some(Ordering::Equal)
        );
        let t = Value::Time(
            Time {
                neg: false,
                hour: 10,
                minute: 0,
                second: 0,
                micro: 0,
            },
            0,
        );
        assert_eq!(compare(&t, &s("10:00:00"), AI), Some(Ordering::Equal));
        assert_eq!(compare(&t, &s("9:00:00"), AI), Some(Ordering::Greater));
    }

    #[test]
    fn null_safe() {
        assert!(eq_null_safe(&Value::Null, &Value::Null, AI));
        assert!(!eq_null_safe(&Value::Null, &Value::Int(1), AI));
        assert!(eq_null_safe(&Value::Int(1), &Value::Int(1), AI));
    }

    #[test]
    fn hash_keys_agree_with_equality() {
        let key = |v: &Value| {
            let mut o = vec![];
            hash_key(v, AI, &mut o);
            o
        };
        let one = key(&Value::Int(1));
        assert_eq!(one, key(&Value::UInt(1)));
        assert_eq!(one, key(&Value::Decimal(Decimal::new(100, 2))));
        assert_eq!(one, key(&Value::Double(1.0)));
        assert_eq!(
            key(&Value::Double(0.5)),
            key(&Value::Decimal(Decimal::new(50, 2)))
        );
        assert_ne!(one, key(&Value::Int(2)));
        assert_eq!(key(&s("abc")), key(&s("ABC")));
        assert_ne!(key(&s("abc")), key(&s("abd")));
        assert_eq!(
            key(&Value::Date(DateTime::date(2024, 1, 2))),
            key(&Value::DateTime(DateTime::date(2024, 1, 2), 0))
        );
        assert_ne!(key(&Value::Null), key(&s("")));
    }
}
