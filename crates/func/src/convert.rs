//! MySQL's implicit and explicit (`CAST`) conversions between [`Value`] kinds.
//!
//! Strings convert to numbers through their longest numeric prefix; anything after it (other
//! than trailing blanks) raises warning 1292 `Truncated incorrect ... value`. Doubles become
//! integers by rounding half to even (MySQL uses `rint()`), DECIMALs by rounding half away from
//! zero. Temporal values convert to numbers in their `YYYYMMDDhhmmss[.ffffff]` layout.

use std::str::FromStr;

use common::codes;
use common::time::{DateTime, Time};
use common::Decimal;
use common::{Error, Result, Value, Warning};

use crate::temporal;

/// Target type of `CAST(x AS ...)` / `CONVERT(x, ...)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastTarget {
    /// `SIGNED [INTEGER]`
    Signed,
    /// `UNSIGNED [INTEGER]`
    Unsigned,
    /// `DECIMAL(M,D)`: total digits and fractional digits (MySQL's default is DECIMAL(10,0)).
    Decimal(u8, u8),
    /// `DOUBLE` / `REAL`
    Double,
    /// `FLOAT`
    Float,
    /// `CHAR[(N)]` / `NCHAR`
    Char(Option<u32>),
    /// `BINARY[(N)]`
    Binary(Option<u32>),
    /// `DATE`
    Date,
    /// `DATETIME[(fsp)]`
    DateTime(u8),
    /// `TIME[(fsp)]`
    Time(u8),
    /// `YEAR`
    Year,
    /// `JSON` (the result is the normalised JSON text as a string).
    Json,
}

/// The longest numeric prefix of a string, as MySQL's `strtod` finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NumPrefix<'a> {
    /// The prefix text (sign, digits, point, exponent), without leading blanks.
    pub text: &'a str,
    /// The prefix has no fraction or exponent.
    pub is_int: bool,
    /// Only blanks follow the prefix.
    pub complete: bool,
    /// No digit at all was found.
    pub empty: bool,
    /// Length of the integer-only prefix (sign + digits) within `text`.
    pub int_len: usize,
}

fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Scans the numeric prefix of `s`.
pub(crate) fn scan_number(s: &str) -> NumPrefix<'_> {
    let b = s.as_bytes();
    let mut st = 0;
    while st < b.len() && is_blank(b[st]) {
        st += 1;
    }
    let mut i = st;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let ds = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - ds;
    let int_end = i;
    let mut frac_digits = 0;
    let mut is_int = true;
    if i < b.len() && b[i] == b'.' {
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        frac_digits = j - i - 1;
        if int_digits > 0 || frac_digits > 0 {
            i = j;
            is_int = false;
        }
    }
    if int_digits + frac_digits == 0 {
        return NumPrefix {
            text: "",
            is_int: true,
            complete: b[st..].is_empty(),
            empty: true,
            int_len: 0,
        };
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
            is_int = false;
        }
    }
    let complete = b[i..].iter().all(|c| is_blank(*c));
    NumPrefix {
        text: &s[st..i],
        is_int,
        complete,
        empty: false,
        int_len: if int_digits > 0 { int_end - st } else { 0 },
    }
}

fn quote_val(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => other.to_string(),
    }
}

pub(crate) fn truncated_warning(kind: &str, v: &str) -> Warning {
    Warning::warn(
        codes::ER_TRUNCATED_WRONG_VALUE,
        format!("Truncated incorrect {kind} value: '{v}'"),
    )
}

fn str_of(v: &Value) -> Option<std::borrow::Cow<'_, str>> {
    match v {
        Value::Str(s) => Some(std::borrow::Cow::Borrowed(s.as_str())),
        Value::Bytes(b) => Some(String::from_utf8_lossy(b)),
        _ => None,
    }
}

/// Rounds a double to an i64 as `rint()` + saturation does; the flag reports saturation.
pub(crate) fn f64_to_i64(f: f64) -> (i64, bool) {
    let r = f.round_ties_even();
    if r.is_nan() {
        (0, true)
    } else if r >= 9_223_372_036_854_775_808.0 {
        (i64::MAX, true)
    } else if r < -9_223_372_036_854_775_808.0 {
        (i64::MIN, true)
    } else {
        (r as i64, false)
    }
}

/// Rounds a double to a u64 (negative values wrap as MySQL's unsigned cast does).
pub(crate) fn f64_to_u64(f: f64) -> (u64, bool) {
    let r = f.round_ties_even();
    if r.is_nan() {
        (0, true)
    } else if r >= 18_446_744_073_709_551_616.0 {
        (u64::MAX, true)
    } else if r < 0.0 {
        let (i, o) = f64_to_i64(r);
        (i as u64, o)
    } else {
        (r as u64, false)
    }
}

/// Rounds a decimal half away from zero to an integer (as i128 for range checks).
pub(crate) fn dec_to_i128(d: &Decimal) -> i128 {
    d.round_dp(0).to_i128().unwrap_or(if d.is_sign_negative() {
        i128::MIN
    } else {
        i128::MAX
    })
}

/// The `YYYYMMDDhhmmss`-style integer of a temporal value (fraction rounded).
fn temporal_int(v: &Value) -> Option<i64> {
    Some(match v {
        Value::Date(d) => d.year as i64 * 10_000 + d.month as i64 * 100 + d.day as i64,
        Value::DateTime(d, _) => {
            let d = temporal::round_dt(d, 0);
            ((d.year as i64 * 100 + d.month as i64) * 100 + d.day as i64) * 1_000_000
                + d.hour as i64 * 10_000
                + d.minute as i64 * 100
                + d.second as i64
        }
        Value::Time(t, _) => {
            let t = temporal::round_time(t, 0);
            let v = t.hour as i64 * 10_000 + t.minute as i64 * 100 + t.second as i64;
            if t.neg {
                -v
            } else {
                v
            }
        }
        _ => return None,
    })
}

/// The numeric value of a temporal value as an exact decimal (`20240102030405.123`).
pub(crate) fn temporal_decimal(v: &Value) -> Option<Decimal> {
    Some(match v {
        Value::Date(_) => Decimal::from(temporal_int(v)?),
        Value::DateTime(d, fsp) => {
            let whole = temporal_int(&Value::DateTime(DateTime { micro: 0, ..*d }, 0))?;
            let mut r = Decimal::from(whole) + Decimal::new(d.micro as i64, 6);
            r.rescale(*fsp as u32);
            r
        }
        Value::Time(t, fsp) => {
            let whole = temporal_int(&Value::Time(Time { micro: 0, ..*t }, 0))?;
            let frac = Decimal::new(t.micro as i64, 6);
            let mut r = if t.neg {
                Decimal::from(whole) - frac
            } else {
                Decimal::from(whole) + frac
            };
            r.rescale(*fsp as u32);
            r
        }
        _ => return None,
    })
}

/// Parses the integer prefix of a string (sign and digits only), with MySQL's warnings.
fn str_to_i64(s: &str, w: &mut Vec<Warning>) -> i64 {
    let p = scan_number(s);
    if p.empty {
        w.push(truncated_warning("INTEGER", s));
        return 0;
    }
    let it = &p.text[..p.int_len];
    let complete = p.complete && p.is_int;
    match i64::from_str(it) {
        Ok(v) => {
            if !complete {
                w.push(truncated_warning("INTEGER", s));
            }
            v
        }
        Err(_) => {
            w.push(truncated_warning("INTEGER", s));
            if it.is_empty() {
                0
            } else if it.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            }
        }
    }
}

/// Converts to a signed integer; `None` for NULL.
pub fn to_i64(v: &Value, w: &mut Vec<Warning>) -> Option<i64> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => *i,
        Value::UInt(u) => (*u).min(i64::MAX as u64) as i64,
        Value::Float(f) => f64_to_i64(*f as f64).0,
        Value::Double(f) => {
            let (r, over) = f64_to_i64(*f);
            if over {
                w.push(truncated_warning("INTEGER", &v.to_string()));
            }
            r
        }
        Value::Decimal(d) => {
            let r = dec_to_i128(d);
            if r > i64::MAX as i128 || r < i64::MIN as i128 {
                w.push(truncated_warning("INTEGER", &d.to_string()));
                if r > 0 {
                    i64::MAX
                } else {
                    i64::MIN
                }
            } else {
                r as i64
            }
        }
        Value::Str(s) => str_to_i64(s, w),
        Value::Bytes(b) => str_to_i64(&String::from_utf8_lossy(b), w),
        Value::Date(_) | Value::DateTime(..) | Value::Time(..) => temporal_int(v)?,
    })
}

/// Converts to an unsigned integer; negative values wrap to their two's complement as MySQL's
/// unsigned context does. `None` for NULL.
pub fn to_u64(v: &Value, w: &mut Vec<Warning>) -> Option<u64> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        Value::Float(f) => f64_to_u64(*f as f64).0,
        Value::Double(f) => {
            let (r, over) = f64_to_u64(*f);
            if over {
                w.push(truncated_warning("INTEGER", &v.to_string()));
            }
            r
        }
        Value::Decimal(d) => {
            let r = dec_to_i128(d);
            if r > u64::MAX as i128 {
                w.push(truncated_warning("INTEGER", &d.to_string()));
                u64::MAX
            } else if r < i64::MIN as i128 {
                w.push(truncated_warning("INTEGER", &d.to_string()));
                i64::MIN as u64
            } else if r < 0 {
                r as i64 as u64
            } else {
                r as u64
            }
        }
        Value::Str(_) | Value::Bytes(_) => {
            let s = str_of(v).unwrap_or_default();
            let p = scan_number(&s);
            let it = &p.text[..p.int_len];
            if !it.starts_with('-') && !p.empty {
                match u64::from_str(it.trim_start_matches('+')) {
                    Ok(u) => {
                        if !(p.complete && p.is_int) {
                            w.push(truncated_warning("INTEGER", &s));
                        }
                        u
                    }
                    Err(_) => {
                        w.push(truncated_warning("INTEGER", &s));
                        u64::MAX
                    }
                }
            } else {
                str_to_i64(&s, w) as u64
            }
        }
        Value::Date(_) | Value::DateTime(..) | Value::Time(..) => temporal_int(v)? as u64,
    })
}

/// Parses a string as a double via its numeric prefix, warning on trailing garbage.
pub(crate) fn str_to_f64(s: &str, w: &mut Vec<Warning>) -> f64 {
    let p = scan_number(s);
    if p.empty || !p.complete {
        w.push(truncated_warning("DOUBLE", s));
    }
    if p.empty {
        return 0.0;
    }
    let f = f64::from_str(p.text).unwrap_or(0.0);
    if f.is_infinite() {
        if f > 0.0 {
            f64::MAX
        } else {
            f64::MIN
        }
    } else {
        f
    }
}

/// Converts to a double; `None` for NULL.
pub fn to_f64(v: &Value, w: &mut Vec<Warning>) -> Option<f64> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        Value::Float(f) => *f as f64,
        Value::Double(f) => *f,
        Value::Decimal(d) => d.to_f64(),
        Value::Str(s) => str_to_f64(s, w),
        Value::Bytes(b) => str_to_f64(&String::from_utf8_lossy(b), w),
        Value::Date(_) | Value::DateTime(..) | Value::Time(..) => temporal_decimal(v)?.to_f64(),
    })
}

/// Converts a finite double to a decimal through its shortest round-trip text.
pub(crate) fn f64_to_decimal(f: f64) -> Option<Decimal> {
    if !f.is_finite() {
        return None;
    }
    Decimal::from_f64(f).map(|d| d.normalize())
}

/// The largest DECIMAL magnitude a conversion clips to (65 nines).
pub(crate) fn dec_max() -> Decimal {
    Decimal::max_for(common::decimal::MAX_PRECISION, 0)
}

/// Parses decimal text (plain or scientific); `None` past 81 integer digits.
pub(crate) fn parse_decimal_text(t: &str) -> Option<Decimal> {
    let t = t.strip_prefix('+').unwrap_or(t);
    if t.contains(['e', 'E']) {
        return Decimal::from_str(t).ok();
    }
    let t2 = t.strip_suffix('.').unwrap_or(t);
    let t2: std::borrow::Cow<'_, str> = if t2.starts_with('.') {
        format!("0{t2}").into()
    } else if t2.starts_with("-.") {
        format!("-0{}", &t2[1..]).into()
    } else {
        t2.into()
    };
    Decimal::from_str(&t2).ok()
}

/// Converts to a DECIMAL; `None` for NULL.
pub fn to_decimal(v: &Value, w: &mut Vec<Warning>) -> Option<Decimal> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => Decimal::from(*i),
        Value::UInt(u) => Decimal::from(*u),
        Value::Float(f) => {
            // Through the f32's own shortest form, so 0.1f32 becomes 0.1.
            let s = common::value::format_float(*f);
            parse_decimal_text(&s).unwrap_or_default()
        }
        Value::Double(f) => match f64_to_decimal(*f) {
            Some(d) => d,
            None => {
                w.push(truncated_warning("DECIMAL", &v.to_string()));
                if *f > 0.0 {
                    dec_max()
                } else {
                    -dec_max()
                }
            }
        },
        Value::Decimal(d) => d.clone(),
        Value::Str(_) | Value::Bytes(_) => {
            let s = str_of(v).unwrap_or_default();
            let p = scan_number(&s);
            if p.empty || !p.complete {
                w.push(truncated_warning("DECIMAL", &s));
            }
            if p.empty {
                return Some(Decimal::zero());
            }
            match parse_decimal_text(p.text) {
                Some(d) => d,
                None => {
                    if p.text.starts_with('-') {
                        -dec_max()
                    } else {
                        dec_max()
                    }
                }
            }
        }
        Value::Date(_) | Value::DateTime(..) | Value::Time(..) => temporal_decimal(v)?,
    })
}

/// How MySQL renders the value as a string (`None` for NULL).
pub fn to_string_value(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Str(s) => Some(s.clone()),
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        other => Some(other.to_string()),
    }
}

/// The value's bytes as a string function sees them (`None` for NULL).
pub fn to_bytes(v: &Value) -> Option<Vec<u8>> {
    v.to_text()
}

/// Truth value in a boolean context (`WHERE`, `IF`, `AND`...); `None` for NULL.
pub fn to_bool(v: &Value, w: &mut Vec<Warning>) -> Option<bool> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => *i != 0,
        Value::UInt(u) => *u != 0,
        Value::Float(f) => *f != 0.0,
        Value::Double(f) => *f != 0.0,
        Value::Decimal(d) => !d.is_zero(),
        Value::Str(_) | Value::Bytes(_) => to_f64(v, w)? != 0.0,
        Value::Date(d) => !d.is_zero(),
        Value::DateTime(d, _) => !d.is_zero(),
        Value::Time(t, _) => t.to_micros() != 0,
    })
}

fn incorrect_value(kind: &str, v: &str) -> Warning {
    Warning::warn(
        codes::ER_TRUNCATED_WRONG_VALUE,
        format!("Incorrect {kind} value: '{v}'"),
    )
}

/// The local date today (used when a TIME must become a DATETIME and no statement date is known).
pub(crate) fn today_local() -> DateTime {
    use chrono::Datelike;
    let d = chrono::Local::now().date_naive();
    DateTime::date(d.year() as u16, d.month() as u8, d.day() as u8)
}

/// Splits a numeric value into its integer part and microseconds for temporal conversion.
fn number_parts(v: &Value) -> Option<(i64, u32, bool)> {
    match v {
        Value::Int(i) => Some((*i, 0, false)),
        Value::UInt(u) => Some((i64::try_from(*u).ok()?, 0, false)),
        Value::Double(_) | Value::Float(_) | Value::Decimal(_) => {
            let d = to_decimal(v, &mut Vec::new())?;
            let whole = d.trunc();
            let frac = ((d.clone() - whole.clone()).abs() * Decimal::from(1_000_000))
                .round_dp(0)
                .to_u64()? as u32;
            let neg = d.is_sign_negative() && !d.is_zero();
            Some((whole.to_i64()?, frac.min(999_999), neg))
        }
        _ => None,
    }
}

/// Converts to a DATETIME; TIME values take today's date (see [`to_datetime_on`]). `None` for NULL
/// or an invalid value (with warning 1292).
pub fn to_datetime(v: &Value, w: &mut Vec<Warning>) -> Option<DateTime> {
    to_datetime_on(v, None, w)
}

/// Converts to a DATETIME, giving TIME values the date `today` (the statement's CURDATE()) or the
/// local date when `None`.
pub fn to_datetime_on(
    v: &Value,
    today: Option<DateTime>,
    w: &mut Vec<Warning>,
) -> Option<DateTime> {
    match v {
        Value::Null => None,
        Value::Date(d) | Value::DateTime(d, _) => Some(*d),
        Value::Time(t, _) => {
            let base = today.unwrap_or_else(today_local).date_part();
            temporal::micros_to_dt(temporal::dt_to_micros(&base) + t.to_micros())
        }
        Value::Str(_) | Value::Bytes(_) => {
            let s = str_of(v).unwrap_or_default();
            match temporal::parse_datetime(&s) {
                Some(p) => {
                    if p.truncated {
                        w.push(truncated_warning("datetime", &s));
                    }
                    Some(p.dt)
                }
                None => {
                    w.push(incorrect_value("datetime", &s));
                    None
                }
            }
        }
        _ => {
            let parts = number_parts(v);
            match parts.and_then(|(n, us, neg)| {
                if neg {
                    None
                } else {
                    temporal::datetime_from_number(n, us)
                }
            }) {
                Some((dt, _)) => Some(dt),
                None => {
                    w.push(incorrect_value("datetime", &quote_val(v)));
                    None
                }
            }
        }
    }
}

/// Converts to a DATE (time fields zero). `None` for NULL or invalid (with warning).
pub fn to_date(v: &Value, w: &mut Vec<Warning>) -> Option<DateTime> {
    match v {
        Value::Str(_) | Value::Bytes(_) => {
            let s = str_of(v).unwrap_or_default();
            match temporal::parse_datetime(&s) {
                Some(p) => {
                    if p.truncated {
                        w.push(truncated_warning("date", &s));
                    }
                    Some(p.dt.date_part())
                }
                None => {
                    w.push(incorrect_value("datetime", &s));
                    None
                }
            }
        }
        _ => to_datetime(v, w).map(|d| d.date_part()),
    }
}

/// Converts to a TIME. `None` for NULL or invalid (with warning 1292).
pub fn to_time(v: &Value, w: &mut Vec<Warning>) -> Option<Time> {
    match v {
        Value::Null => None,
        Value::Time(t, _) => Some(*t),
        Value::Date(_) => Some(Time::default()),
        Value::DateTime(d, _) => Some(Time {
            neg: false,
            hour: d.hour as u32,
            minute: d.minute,
            second: d.second,
            micro: d.micro,
        }),
        Value::Str(_) | Value::Bytes(_) => {
            let s = str_of(v).unwrap_or_default();
            match temporal::parse_time(&s) {
                Some(p) => {
                    if p.truncated {
                        w.push(truncated_warning("time", &s));
                    }
                    Some(p.time)
                }
                None => {
                    w.push(incorrect_value("time", &s));
                    None
                }
            }
        }
        _ => {
            let r = number_parts(v).and_then(|(n, us, neg)| {
                let (t, clamped) = temporal::time_from_number(n.abs(), us)?;
                let t = if neg || n < 0 {
                    Time {
                        neg: t.to_micros() != 0,
                        ..t
                    }
                } else {
                    t
                };
                Some((t, clamped))
            });
            match r {
                Some((t, clamped)) => {
                    if clamped {
                        w.push(truncated_warning("time", &quote_val(v)));
                    }
                    Some(t)
                }
                None => {
                    w.push(incorrect_value("time", &quote_val(v)));
                    None
                }
            }
        }
    }
}

/// Rounds `d` to `scale` digits and checks it fits DECIMAL(precision, scale); returns the value
/// (clamped to the type's extreme when it does not fit) and whether it was out of range.
pub fn fit_decimal(d: Decimal, precision: u8, scale: u8) -> (Decimal, bool) {
    d.fit(precision as u32, scale as u32)
}

/// The largest value of DECIMAL(precision, scale), e.g. 999.99 for (5,2).
pub fn max_decimal(precision: u8, scale: u8) -> Decimal {
    Decimal::max_for(precision as u32, scale as u32)
}

/// `CAST(v AS target)`.
pub fn cast(v: &Value, target: CastTarget, w: &mut Vec<Warning>) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    Ok(match target {
        CastTarget::Signed => match v {
            Value::UInt(u) => Value::Int(*u as i64),
            Value::Str(_) | Value::Bytes(_) => {
                let s = str_of(v).unwrap_or_default();
                let p = scan_number(&s);
                let it = &p.text[..p.int_len];
                // A positive literal beyond BIGINT wraps like MySQL's cast of an unsigned value.
                match (i64::from_str(it), u64::from_str(it.trim_start_matches('+'))) {
                    (Err(_), Ok(u)) => {
                        w.push(Warning::warn(
                            codes::ER_UNKNOWN_ERROR,
                            "Cast to signed converted positive out-of-range integer to it's negative complement",
                        ));
                        Value::Int(u as i64)
                    }
                    _ => Value::Int(str_to_i64(&s, w)),
                }
            }
            other => to_i64(other, w).map_or(Value::Null, Value::Int),
        },
        CastTarget::Unsigned => match v {
            Value::Str(_) | Value::Bytes(_) => {
                let s = str_of(v).unwrap_or_default();
                let p = scan_number(&s);
                let u = to_u64(v, w).unwrap_or(0);
                if p.text.starts_with('-') && u != 0 {
                    w.push(Warning::warn(
                        codes::ER_UNKNOWN_ERROR,
                        "Cast to unsigned converted negative integer to it's positive complement",
                    ));
                }
                Value::UInt(u)
            }
            other => to_u64(other, w).map_or(Value::Null, Value::UInt),
        },
        CastTarget::Decimal(precision, scale) => {
            let d = to_decimal(v, w).unwrap_or_default();
            let (r, over) = fit_decimal(d, precision, scale);
            if over {
                w.push(Warning::warn(
                    codes::ER_WARN_DATA_OUT_OF_RANGE,
                    format!("Out of range value for column 'cast as decimal({precision},{scale})' at row 1"),
                ));
            }
            Value::Decimal(r)
        }
        CastTarget::Double => to_f64(v, w).map_or(Value::Null, Value::Double),
        CastTarget::Float => to_f64(v, w).map_or(Value::Null, |f| Value::Float(f as f32)),
        CastTarget::Char(n) => {
            let s = to_string_value(v).unwrap_or_default();
            match n {
                Some(n) if s.chars().count() > n as usize => {
                    w.push(truncated_warning(&format!("CHAR({n})"), &s));
                    Value::Str(s.chars().take(n as usize).collect())
                }
                _ => Value::Str(s),
            }
        }
        CastTarget::Binary(n) => {
            let mut b = v.to_text().unwrap_or_default();
            if let Some(n) = n {
                let n = n as usize;
                if b.len() > n {
                    w.push(truncated_warning(
                        &format!("BINARY({n})"),
                        &String::from_utf8_lossy(&b),
                    ));
                    b.truncate(n);
                } else {
                    b.resize(n, 0);
                }
            }
            Value::Bytes(b)
        }
        CastTarget::Date => to_date(v, w).map_or(Value::Null, Value::Date),
        CastTarget::DateTime(fsp) => to_datetime(v, w)
            .map_or(Value::Null, |d| Value::DateTime(temporal::round_dt(&d, fsp), fsp)),
        CastTarget::Time(fsp) => {
            to_time(v, w).map_or(Value::Null, |t| Value::Time(temporal::round_time(&t, fsp), fsp))
        }
        CastTarget::Year => cast_year(v, w),
        CastTarget::Json => match v {
            Value::Str(s) => Value::Str(crate::json::normalize(s).map_err(|e| {
                Error::new(
                    crate::json::ER_INVALID_TYPE_FOR_JSON_CAST,
                    format!("Invalid JSON text in argument 1 to function cast_as_json: \"{e}\" at position 0."),
                )
            })?),
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => Value::Str(v.to_string()),
            Value::Double(f) => Value::Str(crate::json::format_json_double(*f)),
            Value::Float(f) => Value::Str(crate::json::format_json_double(*f as f64)),
            Value::Bytes(b) => Value::Str(format!("\"base64:type15:{}\"", base64(b))),
            Value::Date(_) | Value::DateTime(..) | Value::Time(..) => {
                Value::Str(format!("\"{}\"", json_temporal(v)))
            }
            Value::Null => Value::Null,
        },
    })
}

fn json_temporal(v: &Value) -> String {
    match v {
        Value::DateTime(d, _) => d.fmt_datetime(6),
        Value::Time(t, _) => t.fmt(6),
        other => other.to_string(),
    }
}

/// Standard base64 with padding and no line breaks.
pub(crate) fn base64(b: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for ch in b.chunks(3) {
        let n = (ch[0] as u32) << 16
            | (*ch.get(1).unwrap_or(&0) as u32) << 8
            | *ch.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= ch.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Converts to YEAR per MySQL's rules (1-69 → 20xx, 70-99 → 19xx, 1901..=2155, 0; strings '0'
/// and '00' → 2000). Out of range gives NULL with a warning.
pub(crate) fn year_value(v: &Value, w: &mut Vec<Warning>) -> Option<Option<i64>> {
    let (n, from_str_short_zero) = match v {
        Value::Null => return None,
        Value::Date(d) | Value::DateTime(d, _) => return Some(Some(d.year as i64)),
        Value::Time(..) => return Some(Some(today_local().year as i64)),
        Value::Str(_) | Value::Bytes(_) => {
            let s = str_of(v).unwrap_or_default();
            let t = s.trim();
            let p = scan_number(t);
            if p.empty {
                w.push(truncated_warning("YEAR", &s));
                return Some(None);
            }
            if !p.complete {
                w.push(truncated_warning("YEAR", &s));
            }
            let digits = p.text.trim_start_matches(['+', '-']).len();
            let n = to_i64(&Value::Str(p.text.to_string()), &mut Vec::new()).unwrap_or(0);
            (n, n == 0 && digits < 4)
        }
        other => (to_i64(other, w)?, false),
    };
    Some(match n {
        0 if from_str_short_zero => Some(2000),
        0 => Some(0),
        1..=69 => Some(2000 + n),
        70..=99 => Some(1900 + n),
        1901..=2155 => Some(n),
        _ => {
            w.push(truncated_warning("YEAR", &quote_val(v)));
            None
        }
    })
}

fn cast_year(v: &Value, w: &mut Vec<Warning>) -> Value {
    match year_value(v, w) {
        Some(Some(y)) => Value::Int(y),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn string_to_int() {
        let mut w = vec![];
        assert_eq!(to_i64(&s("12abc"), &mut w), Some(12));
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, 1292);
        assert_eq!(w[0].msg, "Truncated incorrect INTEGER value: '12abc'");
        let mut w = vec![];
        assert_eq!(to_i64(&s(" 42 "), &mut w), Some(42));
        assert!(w.is_empty());
        assert_eq!(to_i64(&s("4.5"), &mut w), Some(4)); // CAST('4.5' AS SIGNED) = 4
        assert_eq!(to_i64(&Value::Null, &mut w), None);
    }

    #[test]
    fn numeric_to_int_rounding() {
        let mut w = vec![];
        assert_eq!(to_i64(&Value::Double(2.5), &mut w), Some(2));
        assert_eq!(to_i64(&Value::Double(3.5), &mut w), Some(4));
        assert_eq!(to_i64(&Value::Double(-2.5), &mut w), Some(-2));
        assert_eq!(
            to_i64(&Value::Decimal(Decimal::new(25, 1)), &mut w),
            Some(3)
        );
        assert_eq!(
            to_i64(&Value::Decimal(Decimal::new(-25, 1)), &mut w),
            Some(-3)
        );
        assert_eq!(to_u64(&Value::Int(-1), &mut w), Some(u64::MAX));
        assert!(w.is_empty());
    }

    #[test]
    fn string_to_double() {
        let mut w = vec![];
        assert_eq!(to_f64(&s("1e3"), &mut w), Some(1000.0));
        assert_eq!(to_f64(&s(".5"), &mut w), Some(0.5));
        assert_eq!(to_f64(&s("-1.5e-1x"), &mut w), Some(-0.15));
        assert_eq!(w.len(), 1);
        let mut w = vec![];
        assert_eq!(to_f64(&s(""), &mut w), Some(0.0));
        assert_eq!(w[0].msg, "Truncated incorrect DOUBLE value: ''");
        assert_eq!(to_f64(&s("1e"), &mut vec![]), Some(1.0));
    }

    #[test]
    fn decimals() {
        let mut w = vec![];
        assert_eq!(to_decimal(&s("1.50"), &mut w).unwrap().to_string(), "1.50");
        assert_eq!(
            to_decimal(&Value::Double(0.1), &mut w).unwrap().to_string(),
            "0.1"
        );
        assert_eq!(
            to_decimal(&Value::Float(0.1), &mut w).unwrap().to_string(),
            "0.1"
        );
        assert_eq!(to_decimal(&s("1e2"), &mut w).unwrap().to_string(), "100");
        let dt = Value::DateTime(
            DateTime {
                year: 2024,
                month: 1,
                day: 2,
                hour: 3,
                minute: 4,
                second: 5,
                micro: 500_000,
            },
            1,
        );
        assert_eq!(
            to_decimal(&dt, &mut w).unwrap().to_string(),
            "20240102030405.5"
        );
        assert_eq!(to_i64(&dt, &mut w), Some(20240102030406));
        assert!(w.is_empty());
    }

    #[test]
    fn datetimes() {
        let mut w = vec![];
        assert_eq!(
            to_datetime(&s("2024-01-02 03:04:05.123"), &mut w)
                .unwrap()
                .micro,
            123_000
        );
        assert_eq!(
            to_datetime(&Value::Int(20240102030405), &mut w)
                .unwrap()
                .fmt_datetime(0),
            "2024-01-02 03:04:05"
        );
        assert_eq!(
            to_date(&s("2024-01-02 10:00:00"), &mut w)
                .unwrap()
                .fmt_date(),
            "2024-01-02"
        );
        assert!(to_datetime(&s("0000-00-00 00:00:00"), &mut w)
            .unwrap()
            .is_zero());
        assert!(w.is_empty());
        assert_eq!(to_datetime(&s("2024-02-30"), &mut w), None);
        assert_eq!(w[0].msg, "Incorrect datetime value: '2024-02-30'");
        let mut w = vec![];
        let d = to_datetime(&Value::Decimal(Decimal::new(202401020304055, 1)), &mut w).unwrap();
        assert_eq!(d.fmt_datetime(1), "2024-01-02 03:04:05.5");
    }

    #[test]
    fn times() {
        let mut w = vec![];
        assert_eq!(
            to_time(&Value::Int(123456), &mut w).unwrap().fmt(0),
            "12:34:56"
        );
        assert_eq!(
            to_time(&Value::Int(-123456), &mut w).unwrap().fmt(0),
            "-12:34:56"
        );
        assert_eq!(
            to_time(&s("-838:59:59"), &mut w).unwrap().fmt(0),
            "-838:59:59"
        );
        assert_eq!(
            to_time(&s("1 10:00:00"), &mut w).unwrap().fmt(0),
            "34:00:00"
        );
        assert!(w.is_empty());
        assert_eq!(
            to_time(&Value::Int(8390000), &mut w).unwrap().fmt(0),
            "838:59:59"
        );
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn casts() {
        let mut w = vec![];
        let c = |v: Value, t: CastTarget, w: &mut Vec<Warning>| cast(&v, t, w).unwrap();
        assert_eq!(
            c(Value::Int(-1), CastTarget::Unsigned, &mut w),
            Value::UInt(u64::MAX)
        );
        assert_eq!(
            c(Value::UInt(u64::MAX), CastTarget::Signed, &mut w),
            Value::Int(-1)
        );
        assert_eq!(c(s("7e0"), CastTarget::Signed, &mut w), Value::Int(7));
        w.clear();
        assert_eq!(
            c(
                Value::Decimal(Decimal::new(12345, 3)),
                CastTarget::Decimal(5, 2),
                &mut w
            ),
            Value::Decimal(Decimal::new(1235, 2))
        );
        assert_eq!(
            c(Value::Int(1000), CastTarget::Decimal(3, 1), &mut w).to_string(),
            "99.9"
        );
        assert_eq!(w[0].code, 1264);
        assert_eq!(
            c(Value::Int(5), CastTarget::Decimal(10, 2), &mut w).to_string(),
            "5.00"
        );
        let big = c(Value::Int(5), CastTarget::Decimal(65, 30), &mut w).to_string();
        assert!(big.starts_with("5.000"), "{big}");
        assert_eq!(max_decimal(5, 2).to_string(), "999.99");
        assert_eq!(fit_decimal(Decimal::new(5, 1), 2, 2).0.to_string(), "0.50");
        assert!(fit_decimal(Decimal::one(), 2, 2).1);
        assert_eq!(fit_decimal(Decimal::one(), 2, 2).0.to_string(), "0.99");
        assert_eq!(c(s("abcdef"), CastTarget::Char(Some(3)), &mut w), s("abc"));
        assert_eq!(
            c(s("ab"), CastTarget::Binary(Some(4)), &mut w),
            Value::Bytes(b"ab\0\0".to_vec())
        );
        assert_eq!(
            c(s("2024-01-02 03:04:05.6"), CastTarget::DateTime(0), &mut w).to_string(),
            "2024-01-02 03:04:06"
        );
        assert_eq!(
            c(s("2024-01-02 03:04:05"), CastTarget::Date, &mut w).to_string(),
            "2024-01-02"
        );
        assert_eq!(
            c(s("10:11:12.34"), CastTarget::Time(1), &mut w).to_string(),
            "10:11:12.3"
        );
        assert_eq!(
            c(Value::Int(1.5f64 as i64 + 68), CastTarget::Year, &mut w),
            Value::Int(2069)
        );
        assert_eq!(
            c(Value::Int(70), CastTarget::Year, &mut w),
            Value::Int(1970)
        );
        assert_eq!(c(s("00"), CastTarget::Year, &mut w), Value::Int(2000));
        assert_eq!(c(Value::Int(0), CastTarget::Year, &mut w), Value::Int(0));
        assert_eq!(
            c(s("{\"b\":1,\"a\":[1,2]}"), CastTarget::Json, &mut w),
            s("{\"a\": [1, 2], \"b\": 1}")
        );
        assert!(cast(&s("{bad"), CastTarget::Json, &mut w).is_err());
        assert_eq!(
            c(Value::Double(1.0), CastTarget::Signed, &mut w),
            Value::Int(1)
        );
        assert_eq!(c(Value::Null, CastTarget::Signed, &mut w), Value::Null);
    }
}
