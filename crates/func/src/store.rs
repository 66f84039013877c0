//! Storing a value into a column: MySQL's per-type normalisation, range checks and the
//! strict/non-strict diagnostics of INSERT and UPDATE.
//!
//! In strict mode (STRICT_TRANS_TABLES / STRICT_ALL_TABLES) what would be a warning becomes an
//! error; notes (e.g. DECIMAL rounding, note 1265) stay notes. NULL passes through unchanged: the
//! caller enforces NOT NULL.

use std::cmp::Ordering;

use common::codes::{self, ErrorCode};
use common::collation;
use common::time::{DateTime, Time};
use common::types::LobSize;
use common::Decimal;
use common::{Collation, DataType, Error, Result, Value, Warning};

use crate::convert::{self, scan_number};
use crate::temporal;

/// Where a problem is reported: column name and 1-based row number.
struct Col<'a> {
    name: &'a str,
    row: u64,
    strict: bool,
}

impl Col<'_> {
    fn truncated_msg(&self) -> String {
        format!(
            "Data truncated for column '{}' at row {}",
            self.name, self.row
        )
    }

    /// A condition that is an error in strict mode and a warning otherwise.
    fn problem(&self, code: ErrorCode, msg: String, w: &mut Vec<Warning>) -> Result<()> {
        if self.strict {
            Err(Error::new(code, msg))
        } else {
            w.push(Warning::warn(code, msg));
            Ok(())
        }
    }

    fn truncated(&self, w: &mut Vec<Warning>) -> Result<()> {
        self.problem(codes::WARN_DATA_TRUNCATED, self.truncated_msg(), w)
    }

    fn out_of_range(&self, w: &mut Vec<Warning>) -> Result<()> {
        self.problem(
            codes::ER_WARN_DATA_OUT_OF_RANGE,
            format!(
                "Out of range value for column '{}' at row {}",
                self.name, self.row
            ),
            w,
        )
    }

    fn incorrect(&self, kind: &str, v: &str, w: &mut Vec<Warning>) -> Result<()> {
        self.problem(
            codes::ER_TRUNCATED_WRONG_VALUE_FOR_FIELD,
            format!(
                "Incorrect {kind} value: '{v}' for column '{}' at row {}",
                self.name, self.row
            ),
            w,
        )
    }

    fn incorrect_temporal(&self, kind: &str, v: &str, w: &mut Vec<Warning>) -> Result<()> {
        self.problem(
            codes::ER_TRUNCATED_WRONG_VALUE,
            format!(
                "Incorrect {kind} value: '{v}' for column '{}' at row {}",
                self.name, self.row
            ),
            w,
        )
    }

    fn too_long(&self, w: &mut Vec<Warning>) -> Result<()> {
        if self.strict {
            Err(Error::new(
                codes::ER_DATA_TOO_LONG,
                format!(
                    "Data too long for column '{}' at row {}",
                    self.name, self.row
                ),
            ))
        } else {
            w.push(Warning::warn(
                codes::WARN_DATA_TRUNCATED,
                self.truncated_msg(),
            ));
            Ok(())
        }
    }

    fn note_truncated(&self, w: &mut Vec<Warning>) {
        w.push(Warning::note(
            codes::WARN_DATA_TRUNCATED,
            self.truncated_msg(),
        ));
    }
}

fn text_of(v: &Value) -> String {
    convert::to_string_value(v).unwrap_or_default()
}

/// Normalises `v` for a column of type `ty`.
///
/// `strict` is true under STRICT_TRANS_TABLES/STRICT_ALL_TABLES; `col_name` and `row` (1-based)
/// appear in the messages (`Out of range value for column 'c' at row 1`).
pub fn store(
    v: Value,
    ty: &DataType,
    strict: bool,
    col_name: &str,
    row: u64,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let c = Col {
        name: col_name,
        row,
        strict,
    };
    match ty {
        DataType::Int {
            bytes, unsigned, ..
        } => store_int(v, *bytes, *unsigned, &c, w),
        DataType::Decimal {
            precision,
            scale,
            unsigned,
        } => store_decimal(v, *precision, *scale, *unsigned, &c, w),
        DataType::Float { md, unsigned } => {
            let f = store_real(v, *md, *unsigned, true, &c, w)?;
            Ok(Value::Float(f as f32))
        }
        DataType::Double { md, unsigned } => {
            Ok(Value::Double(store_real(v, *md, *unsigned, false, &c, w)?))
        }
        DataType::Char { len, .. } => store_text(v, *len as u64, true, false, &c, w),
        DataType::VarChar { len, .. } => store_text(v, *len as u64, false, false, &c, w),
        DataType::Text { size, .. } => store_text(v, size.max_bytes(), false, true, &c, w),
        DataType::Binary { len } => store_binary(v, *len as usize, true, &c, w),
        DataType::VarBinary { len } => store_binary(v, *len as usize, false, &c, w),
        DataType::Blob { size } => store_binary(v, lob_len(*size), false, &c, w),
        DataType::Date => store_datetime(v, None, &c, w),
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            store_datetime(v, Some(*fsp), &c, w)
        }
        DataType::Time { fsp } => store_time(v, *fsp, &c, w),
        DataType::Year => store_year(v, &c, w),
        DataType::Enum { values, collation } => store_enum(v, values, *collation, &c, w),
        DataType::Set { values, collation } => store_set(v, values, *collation, &c, w),
        DataType::Bit { len } => store_bit(v, *len, &c, w),
        DataType::Json => store_json(v, col_name),
    }
}

fn lob_len(size: LobSize) -> usize {
    usize::try_from(size.max_bytes()).unwrap_or(usize::MAX)
}

/// Parses a string for a numeric column: the full numeric prefix (with fraction/exponent) as a
/// decimal, or `None` when there is no number at all. The flags report trailing garbage and a
/// number too long for a DECIMAL (clipped to 65 nines).
fn parse_numeric_str(s: &str) -> Option<(Decimal, f64, bool, bool)> {
    let p = scan_number(s);
    if p.empty {
        return None;
    }
    let f: f64 = p.text.parse().unwrap_or(0.0);
    let (d, huge) = match convert::parse_decimal_text(p.text) {
        Some(d) => (d, false),
        None if f < 0.0 => (-convert::dec_max(), true),
        None => (convert::dec_max(), true),
    };
    Some((d, f, !p.complete, huge))
}

fn int_bounds(bytes: u8, unsigned: bool) -> (i128, i128) {
    let bits = (bytes.clamp(1, 8) as u32) * 8;
    if unsigned {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

fn store_int(v: Value, bytes: u8, unsigned: bool, c: &Col, w: &mut Vec<Warning>) -> Result<Value> {
    let (lo, hi) = int_bounds(bytes, unsigned);
    let n: i128 = match &v {
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        Value::Float(f) => f64_to_i128(*f as f64),
        Value::Double(f) => f64_to_i128(*f),
        Value::Decimal(d) => convert::dec_to_i128(d),
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(&v);
            match parse_numeric_str(&s) {
                None => {
                    c.incorrect("integer", &s, w)?;
                    0
                }
                Some((d, f, garbage, huge)) => {
                    if garbage {
                        c.truncated(w)?;
                    }
                    if huge {
                        f64_to_i128(f)
                    } else {
                        convert::dec_to_i128(&d)
                    }
                }
            }
        }
        Value::Date(_) | Value::DateTime(..) | Value::Time(..) => {
            convert::to_i64(&v, w).unwrap_or(0) as i128
        }
        Value::Null => return Ok(Value::Null),
    };
    let n = if n < lo {
        c.out_of_range(w)?;
        lo
    } else if n > hi {
        c.out_of_range(w)?;
        hi
    } else {
        n
    };
    Ok(if unsigned {
        Value::UInt(n as u64)
    } else {
        Value::Int(n as i64)
    })
}

fn f64_to_i128(f: f64) -> i128 {
    if f.is_nan() {
        0
    } else {
        let r = f.round_ties_even();
        if r > 1e30 {
            i128::MAX / 2
        } else if r < -1e30 {
            i128::MIN / 2
        } else {
            r as i128
        }
    }
}

fn store_decimal(
    v: Value,
    precision: u8,
    scale: u8,
    unsigned: bool,
    c: &Col,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    let d = match &v {
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(&v);
            match parse_numeric_str(&s) {
                None => {
                    c.incorrect("decimal", &s, w)?;
                    Decimal::zero()
                }
                Some((d, _, garbage, _)) => {
                    if garbage {
                        c.truncated(w)?;
                    }
                    d
                }
            }
        }
        Value::Double(f) if !f.is_finite() => {
            c.out_of_range(w)?;
            if *f > 0.0 {
                convert::dec_max()
            } else {
                -convert::dec_max()
            }
        }
        other => convert::to_decimal(other, w).unwrap_or_default(),
    };
    if unsigned && d.is_sign_negative() && !d.is_zero() {
        c.out_of_range(w)?;
        let mut z = Decimal::zero();
        z.rescale(scale as u32);
        return Ok(Value::Decimal(z));
    }
    let (r, over) = convert::fit_decimal(d.clone(), precision, scale);
    if over {
        c.out_of_range(w)?;
    } else if r.normalize() != d.normalize() {
        c.note_truncated(w);
    }
    Ok(Value::Decimal(r))
}

fn store_real(
    v: Value,
    md: Option<(u8, u8)>,
    unsigned: bool,
    single: bool,
    c: &Col,
    w: &mut Vec<Warning>,
) -> Result<f64> {
    let mut f = match &v {
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(&v);
            let p = scan_number(&s);
            if p.empty || !p.complete {
                c.truncated(w)?;
            }
            if p.empty {
                0.0
            } else {
                p.text.parse::<f64>().unwrap_or(0.0)
            }
        }
        other => convert::to_f64(other, w).unwrap_or(0.0),
    };
    if !f.is_finite() {
        c.out_of_range(w)?;
        f = if f > 0.0 { f64::MAX } else { -f64::MAX };
    }
    if let Some((m, d)) = md {
        let scale = 10f64.powi(d as i32);
        let rounded = (f * scale).round() / scale;
        let limit = 10f64.powi(m as i32 - d as i32) - 1.0 / scale;
        if rounded.abs() > limit {
            c.out_of_range(w)?;
            f = limit.copysign(f);
        } else {
            f = rounded;
        }
    }
    let max = if single { f32::MAX as f64 } else { f64::MAX };
    if f.abs() > max {
        c.out_of_range(w)?;
        f = max.copysign(f);
    }
    if unsigned && f < 0.0 {
        c.out_of_range(w)?;
        f = 0.0;
    }
    Ok(f)
}

fn store_text(
    v: Value,
    max: u64,
    is_char: bool,
    bytes_limit: bool,
    c: &Col,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    let mut s = match v {
        Value::Str(s) => s,
        Value::Bytes(b) => match String::from_utf8(b) {
            Ok(s) => s,
            Err(e) => {
                let b = e.into_bytes();
                let hex: String = b.iter().take(6).map(|x| format!("\\x{x:02X}")).collect();
                c.incorrect("string", &hex, w).map_err(|mut e| {
                    e.msg = format!(
                        "Incorrect string value: '{hex}' for column '{}' at row {}",
                        c.name, c.row
                    );
                    e
                })?;
                String::from_utf8_lossy(&b).into_owned()
            }
        },
        other => text_of(&other),
    };
    let (too_long, cut) = if bytes_limit {
        if s.len() as u64 > max {
            let mut cut = max as usize;
            while cut > 0 && !s.is_char_boundary(cut) {
                cut -= 1;
            }
            (true, cut)
        } else {
            (false, s.len())
        }
    } else {
        match s.char_indices().nth(max as usize) {
            Some((i, _)) => (true, i),
            None => (false, s.len()),
        }
    };
    if too_long {
        let rest_blank = s[cut..].bytes().all(|b| b == b' ');
        if rest_blank {
            if !is_char {
                c.note_truncated(w);
            }
        } else {
            c.too_long(w)?;
        }
        s.truncate(cut);
    }
    if is_char {
        let t = s.trim_end_matches(' ').len();
        s.truncate(t);
    }
    Ok(Value::Str(s))
}

fn store_binary(v: Value, max: usize, pad: bool, c: &Col, w: &mut Vec<Warning>) -> Result<Value> {
    let mut b = match v {
        Value::Bytes(b) => b,
        Value::Str(s) => s.into_bytes(),
        other => other.to_text().unwrap_or_default(),
    };
    if b.len() > max {
        c.too_long(w)?;
        b.truncate(max);
    }
    if pad && b.len() < max {
        b.resize(max, 0);
    }
    Ok(Value::Bytes(b))
}

fn store_datetime(v: Value, fsp: Option<u8>, c: &Col, w: &mut Vec<Warning>) -> Result<Value> {
    let kind = if fsp.is_some() { "datetime" } else { "date" };
    let zero = || match fsp {
        Some(f) => Value::DateTime(DateTime::default(), f),
        None => Value::Date(DateTime::default()),
    };
    let dt = match &v {
        Value::Date(d) | Value::DateTime(d, _) => *d,
        Value::Time(..) => match convert::to_datetime(&v, w) {
            Some(d) => d,
            None => return Ok(zero()),
        },
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(&v);
            match temporal::parse_datetime(&s) {
                Some(p) => {
                    if p.truncated {
                        c.truncated(w)?;
                    }
                    p.dt
                }
                None => {
                    c.incorrect_temporal(kind, &s, w)?;
                    return Ok(zero());
                }
            }
        }
        other => {
            let mut scratch = Vec::new();
            match convert::to_datetime(other, &mut scratch) {
                Some(d) => d,
                None => {
                    c.incorrect_temporal(kind, &text_of(other), w)?;
                    return Ok(zero());
                }
            }
        }
    };
    Ok(match fsp {
        None => {
            if dt.hour != 0 || dt.minute != 0 || dt.second != 0 || dt.micro != 0 {
                c.note_truncated(w);
            }
            Value::Date(dt.date_part())
        }
        Some(f) => Value::DateTime(temporal::round_dt(&dt, f), f),
    })
}

fn store_time(v: Value, fsp: u8, c: &Col, w: &mut Vec<Warning>) -> Result<Value> {
    let t = match &v {
        Value::Time(t, _) => *t,
        Value::Date(_) | Value::DateTime(..) => convert::to_time(&v, w).unwrap_or_default(),
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(&v);
            match temporal::parse_time(&s) {
                Some(p) => {
                    if p.truncated {
                        // Clamped to ±838:59:59 or trailing garbage.
                        let (_, clamped) = temporal::clamp_time_micros(p.time.to_micros());
                        if clamped || p.time.hour == 838 {
                            c.out_of_range(w)?;
                        } else {
                            c.truncated(w)?;
                        }
                    }
                    p.time
                }
                None => {
                    c.incorrect_temporal("time", &s, w)?;
                    Time::default()
                }
            }
        }
        other => {
            let mut scratch = Vec::new();
            match convert::to_time(other, &mut scratch) {
                Some(t) => {
                    if !scratch.is_empty() {
                        c.out_of_range(w)?;
                    }
                    t
                }
                None => {
                    c.incorrect_temporal("time", &text_of(other), w)?;
                    Time::default()
                }
            }
        }
    };
    let t = temporal::round_time(&t, fsp);
    let (us, clamped) = temporal::clamp_time_micros(t.to_micros());
    if clamped {
        c.out_of_range(w)?;
    }
    Ok(Value::Time(Time::from_micros(us), fsp))
}

fn store_year(v: Value, c: &Col, w: &mut Vec<Warning>) -> Result<Value> {
    let n = match &v {
        Value::Date(d) | Value::DateTime(d, _) => return Ok(Value::Int(d.year as i64)),
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(&v);
            let t = s.trim();
            let p = scan_number(t);
            if p.empty {
                c.incorrect("integer", &s, w)?;
                return Ok(Value::Int(0));
            }
            if !p.complete {
                c.truncated(w)?;
            }
            let n = convert::parse_decimal_text(p.text)
                .map(|d| convert::dec_to_i128(&d))
                .unwrap_or(i128::MAX);
            let digits = p
                .text
                .trim_start_matches(['+', '-'])
                .split('.')
                .next()
                .map_or(0, |x| x.len());
            if n == 0 && digits < 4 {
                return Ok(Value::Int(2000));
            }
            n
        }
        Value::Int(i) => *i as i128,
        Value::UInt(u) => *u as i128,
        other => convert::to_i64(other, w).unwrap_or(0) as i128,
    };
    Ok(Value::Int(match n {
        0 => 0,
        1..=69 => 2000 + n as i64,
        70..=99 => 1900 + n as i64,
        1901..=2155 => n as i64,
        _ => {
            c.out_of_range(w)?;
            0
        }
    }))
}

fn enum_eq(coll: Collation, a: &str, b: &str) -> bool {
    collation::compare(coll, a.trim_end_matches(' '), b.trim_end_matches(' ')) == Ordering::Equal
}

fn store_enum(
    v: Value,
    values: &[String],
    coll: Collation,
    c: &Col,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    let by_index = |n: i128| -> Option<String> {
        if n >= 1 && (n as usize) <= values.len() {
            Some(values[n as usize - 1].clone())
        } else {
            None
        }
    };
    let found = match &v {
        Value::Str(_) | Value::Bytes(_) => {
            let s = text_of(&v);
            match values.iter().find(|m| enum_eq(coll, m, &s)) {
                Some(m) => Some(m.clone()),
                None => {
                    let t = s.trim();
                    if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
                        t.parse::<i128>().ok().and_then(by_index)
                    } else {
                        None
                    }
                }
            }
        }
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            let n = convert::to_i64(&v, &mut Vec::new()).unwrap_or(0);
            by_index(n as i128)
        }
        other => {
            let s = text_of(other);
            values.iter().find(|m| enum_eq(coll, m, &s)).cloned()
        }
    };
    match found {
        Some(m) => Ok(Value::Str(m)),
        None => {
            c.truncated(w)?;
            Ok(Value::Str(String::new()))
        }
    }
}

fn store_set(
    v: Value,
    values: &[String],
    coll: Collation,
    c: &Col,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    let mut mask: u64 = 0;
    let mut bad = false;
    match &v {
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
            let n = convert::to_u64(&v, &mut Vec::new()).unwrap_or(0);
            let all = if values.len() >= 64 {
                u64::MAX
            } else {
                (1u64 << values.len()) - 1
            };
            if n & !all != 0 {
                bad = true;
            }
            mask = n & all;
        }
        other => {
            let s = text_of(other);
            if !s.is_empty() {
                for part in s.split(',') {
                    match values.iter().position(|m| enum_eq(coll, m, part)) {
                        Some(i) if i < 64 => mask |= 1 << i,
                        _ => {
                            let t = part.trim();
                            // A number that is a valid bitmask also works ('3' = 'a,b').
                            match t.parse::<u64>() {
                                Ok(n)
                                    if s.split(',').count() == 1
                                        && values.len() < 64
                                        && n < (1u64 << values.len()) =>
                                {
                                    mask |= n
                                }
                                _ => bad = true,
                            }
                        }
                    }
                }
            }
        }
    }
    if bad {
        c.truncated(w)?;
    }
    let parts: Vec<&str> = values
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 64 && mask & (1 << i) != 0)
        .map(|(_, m)| m.as_str())
        .collect();
    Ok(Value::Str(parts.join(",")))
}

fn store_bit(v: Value, len: u8, c: &Col, w: &mut Vec<Warning>) -> Result<Value> {
    let len = len.clamp(1, 64);
    let max = if len == 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    };
    let n: u128 = match &v {
        Value::Bytes(b) => {
            let sig: &[u8] = {
                let first = b.iter().position(|x| *x != 0).unwrap_or(b.len());
                &b[first..]
            };
            if sig.len() > 8 {
                u128::MAX
            } else {
                sig.iter().fold(0u128, |a, x| a << 8 | *x as u128)
            }
        }
        Value::Str(s) => {
            let b = s.as_bytes();
            if b.len() > 8 {
                u128::MAX
            } else {
                b.iter().fold(0u128, |a, x| a << 8 | *x as u128)
            }
        }
        Value::Int(i) => *i as u64 as u128,
        Value::UInt(u) => *u as u128,
        other => convert::to_u64(other, w).unwrap_or(0) as u128,
    };
    if n > max as u128 {
        c.too_long(w)?;
        return Ok(Value::UInt(max));
    }
    Ok(Value::UInt(n as u64))
}

fn store_json(v: Value, col: &str) -> Result<Value> {
    let invalid = |why: &str| {
        Error::new(
            codes::ER_INVALID_JSON_TEXT,
            format!("Invalid JSON text: \"{why}\" at position 0 in value for column '{col}'."),
        )
    };
    match &v {
        Value::Str(s) => crate::json::normalize(s)
            .map(Value::Str)
            .map_err(|e| invalid(&e)),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => crate::json::normalize(s)
                .map(Value::Str)
                .map_err(|e| invalid(&e)),
            Err(_) => Err(invalid("Invalid encoding in string.")),
        },
        Value::Int(_) | Value::UInt(_) => Ok(Value::Str(v.to_string())),
        Value::Decimal(d) => Ok(Value::Str(crate::json::format_json_double(d.to_f64()))),
        Value::Double(f) => Ok(Value::Str(crate::json::format_json_double(*f))),
        Value::Float(f) => Ok(Value::Str(crate::json::format_json_double(*f as f64))),
        Value::Date(_) | Value::DateTime(..) | Value::Time(..) => {
            Ok(Value::Str(crate::json::quote(&v.to_string())))
        }
        Value::Null => Ok(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(bytes: u8, unsigned: bool) -> DataType {
        DataType::Int {
            bytes,
            unsigned,
            width: None,
            zerofill: false,
        }
    }

    fn st(v: Value, ty: &DataType, strict: bool) -> (Result<Value>, Vec<Warning>) {
        let mut w = vec![];
        let r = store(v, ty, strict, "c", 1, &mut w);
        (r, w)
    }

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn integers() {
        let (r, _) = st(Value::Int(300), &int(1, false), true);
        let e = r.unwrap_err();
        assert_eq!(e.num(), 1264);
        assert_eq!(e.msg, "Out of range value for column 'c' at row 1");
        let (r, w) = st(Value::Int(300), &int(1, false), false);
        assert_eq!(r.unwrap(), Value::Int(127));
        assert_eq!(w[0].code, 1264);
        assert_eq!(
            st(Value::Int(-1), &int(1, true), false).0.unwrap(),
            Value::UInt(0)
        );
        assert_eq!(
            st(Value::Int(255), &int(1, true), true).0.unwrap(),
            Value::UInt(255)
        );
        assert_eq!(
            st(s("12.9910"), &int(4, false), true).0.unwrap(),
            Value::Int(13)
        );
        assert_eq!(
            st(s("1e3"), &int(4, false), true).0.unwrap(),
            Value::Int(1000)
        );
        assert_eq!(
            st(Value::Double(2.5), &int(8, false), true).0.unwrap(),
            Value::Int(2)
        );
        assert_eq!(
            st(Value::Decimal(Decimal::new(25, 1)), &int(8, false), true)
                .0
                .unwrap(),
            Value::Int(3)
        );
        let e = st(s("abc"), &int(4, false), true).0.unwrap_err();
        assert_eq!(e.num(), 1366);
        assert_eq!(
            e.msg,
            "Incorrect integer value: 'abc' for column 'c' at row 1"
        );
        let e = st(s("12abc"), &int(4, false), true).0.unwrap_err();
        assert_eq!(e.num(), 1265);
        assert_eq!(e.msg, "Data truncated for column 'c' at row 1");
        let (r, w) = st(s("12abc"), &int(4, false), false);
        assert_eq!(r.unwrap(), Value::Int(12));
        assert_eq!(w[0].code, 1265);
        assert_eq!(
            st(Value::UInt(u64::MAX), &int(8, true), true).0.unwrap(),
            Value::UInt(u64::MAX)
        );
        assert_eq!(
            st(Value::Int(-8388608), &int(3, false), true).0.unwrap(),
            Value::Int(-8388608)
        );
    }

    #[test]
    fn decimals() {
        let ty = DataType::Decimal {
            precision: 5,
            scale: 2,
            unsigned: false,
        };
        let (r, w) = st(s("1.235"), &ty, true);
        assert_eq!(r.unwrap().to_string(), "1.24");
        assert_eq!(w[0].level, common::Level::Note);
        assert_eq!(w[0].code, 1265);
        let (r, w) = st(Value::Int(3), &ty, true);
        assert_eq!(r.unwrap().to_string(), "3.00");
        assert!(w.is_empty());
        assert_eq!(st(Value::Int(1000), &ty, true).0.unwrap_err().num(), 1264);
        assert_eq!(
            st(Value::Int(1000), &ty, false).0.unwrap().to_string(),
            "999.99"
        );
        assert_eq!(
            st(Value::Int(-1000), &ty, false).0.unwrap().to_string(),
            "-999.99"
        );
        assert_eq!(
            st(s("x"), &ty, true).0.unwrap_err().msg,
            "Incorrect decimal value: 'x' for column 'c' at row 1"
        );
        assert_eq!(
            st(Value::Double(0.125), &ty, true).0.unwrap().to_string(),
            "0.13"
        );
    }

    #[test]
    fn reals() {
        let f = DataType::Float {
            md: None,
            unsigned: false,
        };
        assert_eq!(
            st(Value::Double(1.5), &f, true).0.unwrap(),
            Value::Float(1.5)
        );
        let d = DataType::Double {
            md: Some((5, 2)),
            unsigned: false,
        };
        assert_eq!(
            st(Value::Double(1.234), &d, true).0.unwrap(),
            Value::Double(1.23)
        );
        assert_eq!(
            st(Value::Double(1000.0), &d, true).0.unwrap_err().num(),
            1264
        );
        assert_eq!(
            st(
                s("abc"),
                &DataType::Double {
                    md: None,
                    unsigned: false
                },
                true
            )
            .0
            .unwrap_err()
            .num(),
            1265
        );
    }

    #[test]
    fn strings() {
        let vc = DataType::VarChar {
            len: 3,
            collation: Collation::default(),
        };
        let e = st(s("abcd"), &vc, true).0.unwrap_err();
        assert_eq!(e.num(), 1406);
        assert_eq!(e.msg, "Data too long for column 'c' at row 1");
        let (r, w) = st(s("abcd"), &vc, false);
        assert_eq!(r.unwrap(), s("abc"));
        assert_eq!(w[0].code, 1265);
        assert_eq!(w[0].msg, "Data truncated for column 'c' at row 1");
        assert_eq!(st(s("ab   "), &vc, true).0.unwrap(), s("ab "));
        assert_eq!(st(s("héé"), &vc, true).0.unwrap(), s("héé"));
        let ch = DataType::Char {
            len: 5,
            collation: Collation::default(),
        };
        assert_eq!(st(s("ab  "), &ch, true).0.unwrap(), s("ab"));
        assert_eq!(st(Value::Int(12), &ch, true).0.unwrap(), s("12"));
        let bin = DataType::Binary { len: 4 };
        assert_eq!(
            st(s("ab"), &bin, true).0.unwrap(),
            Value::Bytes(b"ab\0\0".to_vec())
        );
        let tt = DataType::Text {
            size: LobSize::Tiny,
            collation: Collation::default(),
        };
        assert_eq!(
            st(s(&"x".repeat(256)), &tt, true).0.unwrap_err().num(),
            1406
        );
    }

    #[test]
    fn temporals() {
        let (r, w) = st(s("2024-01-02 03:04:05"), &DataType::Date, true);
        assert_eq!(r.unwrap().to_string(), "2024-01-02");
        assert_eq!(w[0].level, common::Level::Note);
        let e = st(s("2024-13-01"), &DataType::Date, true).0.unwrap_err();
        assert_eq!(e.num(), 1292);
        assert_eq!(e.code.sqlstate, "22007");
        assert_eq!(
            e.msg,
            "Incorrect date value: '2024-13-01' for column 'c' at row 1"
        );
        let e = st(s("garbage"), &DataType::DateTime { fsp: 0 }, true)
            .0
            .unwrap_err();
        assert_eq!(
            e.msg,
            "Incorrect datetime value: 'garbage' for column 'c' at row 1"
        );
        let (r, w) = st(s("garbage"), &DataType::DateTime { fsp: 0 }, false);
        assert_eq!(r.unwrap().to_string(), "0000-00-00 00:00:00");
        assert_eq!(w.len(), 1);
        assert_eq!(
            st(
                s("2024-01-02 03:04:05.5678"),
                &DataType::DateTime { fsp: 2 },
                true
            )
            .0
            .unwrap()
            .to_string(),
            "2024-01-02 03:04:05.57"
        );
        assert_eq!(
            st(
                s("2024-01-02 03:04:05.5"),
                &DataType::Timestamp { fsp: 0 },
                true
            )
            .0
            .unwrap()
            .to_string(),
            "2024-01-02 03:04:06"
        );
        assert_eq!(
            st(Value::Int(20240102), &DataType::Date, true)
                .0
                .unwrap()
                .to_string(),
            "2024-01-02"
        );
        assert_eq!(
            st(s("12:34:56"), &DataType::Time { fsp: 0 }, true)
                .0
                .unwrap()
                .to_string(),
            "12:34:56"
        );
        assert_eq!(
            st(Value::Int(123456), &DataType::Time { fsp: 0 }, true)
                .0
                .unwrap()
                .to_string(),
            "12:34:56"
        );
        assert_eq!(
            st(s("900:00:00"), &DataType::Time { fsp: 0 }, false)
                .0
                .unwrap()
                .to_string(),
            "838:59:59"
        );
        assert_eq!(
            st(s("900:00:00"), &DataType::Time { fsp: 0 }, true)
                .0
                .unwrap_err()
                .num(),
            1264
        );
    }

    #[test]
    fn years() {
        let y = DataType::Year;
        assert_eq!(st(Value::Int(5), &y, true).0.unwrap(), Value::Int(2005));
        assert_eq!(st(Value::Int(75), &y, true).0.unwrap(), Value::Int(1975));
        assert_eq!(st(Value::Int(0), &y, true).0.unwrap(), Value::Int(0));
        assert_eq!(st(s("0"), &y, true).0.unwrap(), Value::Int(2000));
        assert_eq!(st(s("2024"), &y, true).0.unwrap(), Value::Int(2024));
        assert_eq!(st(Value::Int(1900), &y, true).0.unwrap_err().num(), 1264);
        assert_eq!(st(Value::Int(2156), &y, false).0.unwrap(), Value::Int(0));
    }

    #[test]
    fn enums_and_sets() {
        let e = DataType::Enum {
            values: vec!["small".into(), "Medium".into(), "large".into()],
            collation: Collation::default(),
        };
        assert_eq!(st(s("MEDIUM"), &e, true).0.unwrap(), s("Medium"));
        assert_eq!(st(Value::Int(3), &e, true).0.unwrap(), s("large"));
        assert_eq!(st(s("2"), &e, true).0.unwrap(), s("Medium"));
        let err = st(s("huge"), &e, true).0.unwrap_err();
        assert_eq!(err.num(), 1265);
        assert_eq!(err.msg, "Data truncated for column 'c' at row 1");
        assert_eq!(st(s("huge"), &e, false).0.unwrap(), s(""));
        assert_eq!(st(Value::Int(0), &e, false).0.unwrap(), s(""));
        let set = DataType::Set {
            values: vec!["a".into(), "b".into(), "c".into(), "d".into()],
            collation: Collation::default(),
        };
        assert_eq!(st(s("d,a,d"), &set, true).0.unwrap(), s("a,d"));
        assert_eq!(st(Value::Int(5), &set, true).0.unwrap(), s("a,c"));
        assert_eq!(st(s(""), &set, true).0.unwrap(), s(""));
        assert_eq!(st(s("a,x"), &set, true).0.unwrap_err().num(), 1265);
        assert_eq!(st(s("a,x"), &set, false).0.unwrap(), s("a"));
    }

    #[test]
    fn bits_and_json() {
        let b = DataType::Bit { len: 8 };
        assert_eq!(st(Value::Int(255), &b, true).0.unwrap(), Value::UInt(255));
        assert_eq!(
            st(Value::Bytes(vec![1, 2]), &DataType::Bit { len: 16 }, true)
                .0
                .unwrap(),
            Value::UInt(258)
        );
        assert_eq!(st(Value::Int(256), &b, true).0.unwrap_err().num(), 1406);
        assert_eq!(st(Value::Int(256), &b, false).0.unwrap(), Value::UInt(255));
        assert_eq!(
            st(s("{\"a\":1}"), &DataType::Json, false).0.unwrap(),
            s("{\"a\": 1}")
        );
        let e = st(s("{x"), &DataType::Json, false).0.unwrap_err();
        assert_eq!(e.num(), 3140);
        assert_eq!(
            st(Value::Null, &DataType::Json, true).0.unwrap(),
            Value::Null
        );
    }
}
