//! The binary protocol of prepared statements: decoding COM_STMT_EXECUTE parameters and encoding
//! binary result-set rows.
//!
//! Parameter mapping (type code sent by the client → [`Value`]):
//! * TINY/SHORT/YEAR/LONG/INT24/LONGLONG → `Int`, or `UInt` when the unsigned flag (0x80) is set;
//! * FLOAT → `Float`, DOUBLE → `Double`;
//! * DECIMAL/NEWDECIMAL → `Decimal` when it parses, else `Str`;
//! * VARCHAR/VAR_STRING/STRING/ENUM/SET/JSON → `Str` when valid UTF-8, else `Bytes`;
//! * TINY_BLOB/MEDIUM_BLOB/LONG_BLOB/BLOB/BIT/GEOMETRY → `Bytes` (MySQL treats these as the
//!   binary character set);
//! * DATE → `Date`; DATETIME/TIMESTAMP → `DateTime` (fsp 6 when microseconds are sent, else 0);
//!   TIME → `Time`; NULL → `Null`.
//!
//! Result rows are encoded per [`ColumnMeta::field_type`], converting a value whose variant does
//! not match the declared type (e.g. a `Str` in a LONGLONG column is parsed).

use std::collections::HashMap;
use std::str::FromStr;

use common::time::{DateTime, Time};
use common::types::field_type as ft;
use common::Decimal;
use common::{ColumnMeta, Value};

use crate::packet::{put_lenenc_bytes, Malformed, PResult, Reader};
use crate::response::{bit_bytes, text_value};

/// A parameter's declared type as sent with `new_params_bound_flag`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamType {
    /// The `field_type` code.
    pub code: u8,
    /// The unsigned flag (0x80 of the flags byte).
    pub unsigned: bool,
}

/// The part of COM_STMT_EXECUTE after the statement id: flags, iteration count, parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecuteRequest {
    /// Cursor flags: `CURSOR_TYPE_READ_ONLY` (1) opens a cursor ([`crate::cursor`]); the
    /// other bits are ignored, as MySQL does.
    pub flags: u8,
    /// The decoded parameter values.
    pub params: Vec<Value>,
}

/// Decodes COM_STMT_EXECUTE's payload after the command byte and statement id.
///
/// `types` holds the types bound by a previous execution (updated when the client sends new
/// ones); `long_data` is the data accumulated by COM_STMT_SEND_LONG_DATA, which replaces the
/// value of its parameter (such parameters are neither NULL nor present in the value list).
pub fn decode_execute(
    r: &mut Reader<'_>,
    num_params: usize,
    types: &mut Option<Vec<ParamType>>,
    long_data: &HashMap<u16, Vec<u8>>,
) -> PResult<ExecuteRequest> {
    let flags = r.u8()?;
    let _iterations = r.u32()?;
    if num_params == 0 {
        return Ok(ExecuteRequest {
            flags,
            params: Vec::new(),
        });
    }
    let bitmap = r.bytes(num_params.div_ceil(8))?;
    let new_bound = r.u8()?;
    if new_bound == 1 {
        let mut t = Vec::with_capacity(num_params);
        for _ in 0..num_params {
            let code = r.u8()?;
            let fl = r.u8()?;
            t.push(ParamType {
                code,
                unsigned: fl & 0x80 != 0,
            });
        }
        *types = Some(t);
    } else if new_bound != 0 {
        return Err(Malformed);
    }
    let Some(t) = types.as_ref() else {
        // Values without any bound types cannot be decoded.
        return Err(Malformed);
    };
    let mut params = Vec::with_capacity(num_params);
    for (i, pt) in t.iter().enumerate().take(num_params) {
        if let Some(data) = long_data.get(&(i as u16)) {
            params.push(long_data_value(pt.code, data));
            continue;
        }
        if bitmap[i / 8] & (1 << (i % 8)) != 0 {
            params.push(Value::Null);
            continue;
        }
        params.push(decode_value(r, *pt)?);
    }
    Ok(ExecuteRequest { flags, params })
}

fn is_binary_type(code: u8) -> bool {
    matches!(
        code,
        ft::TINY_BLOB | ft::MEDIUM_BLOB | ft::LONG_BLOB | ft::BLOB | ft::BIT | ft::GEOMETRY
    )
}

fn text_or_bytes(b: &[u8]) -> Value {
    match std::str::from_utf8(b) {
        Ok(s) => Value::Str(s.to_string()),
        Err(_) => Value::Bytes(b.to_vec()),
    }
}

fn long_data_value(code: u8, data: &[u8]) -> Value {
    if is_binary_type(code) {
        Value::Bytes(data.to_vec())
    } else {
        text_or_bytes(data)
    }
}

/// Decodes one non-NULL binary parameter value.
pub fn decode_value(r: &mut Reader<'_>, pt: ParamType) -> PResult<Value> {
    let u = pt.unsigned;
    Ok(match pt.code {
        ft::NULL => Value::Null,
        ft::TINY => {
            let b = r.u8()?;
            if u {
                Value::UInt(b as u64)
            } else {
                Value::Int(b as i8 as i64)
            }
        }
        ft::SHORT | ft::YEAR => {
            let v = r.u16()?;
            if u {
                Value::UInt(v as u64)
            } else {
                Value::Int(v as i16 as i64)
            }
        }
        ft::LONG | ft::INT24 => {
            let v = r.u32()?;
            if u {
                Value::UInt(v as u64)
            } else {
                Value::Int(v as i32 as i64)
            }
        }
        ft::LONGLONG => {
            let v = r.u64()?;
            if u {
                Value::UInt(v)
            } else {
                Value::Int(v as i64)
            }
        }
        ft::FLOAT => Value::Float(f32::from_bits(r.u32()?)),
        ft::DOUBLE => Value::Double(f64::from_bits(r.u64()?)),
        ft::DECIMAL | ft::NEWDECIMAL => {
            let b = r.lenenc_bytes()?;
            let s = String::from_utf8_lossy(b);
            let t = s.trim();
            match Decimal::from_str(t) {
                Ok(d) => Value::Decimal(d),
                Err(_) => Value::Str(s.into_owned()),
            }
        }
        ft::DATE | ft::DATETIME | ft::TIMESTAMP => {
            let len = r.u8()? as usize;
            let mut b = Reader::new(r.bytes(len)?);
            let mut dt = DateTime::default();
            if !matches!(len, 0 | 4 | 7 | 11) {
                return Err(Malformed);
            }
            if len >= 4 {
                dt.year = b.u16()?;
                dt.month = b.u8()?;
                dt.day = b.u8()?;
            }
            if len >= 7 {
                dt.hour = b.u8()?;
                dt.minute = b.u8()?;
                dt.second = b.u8()?;
            }
            if len >= 11 {
                dt.micro = b.u32()?;
            }
            if pt.code == ft::DATE {
                Value::Date(dt.date_part())
            } else {
                Value::DateTime(dt, if len == 11 && dt.micro != 0 { 6 } else { 0 })
            }
        }
        ft::TIME => {
            let len = r.u8()? as usize;
            let mut b = Reader::new(r.bytes(len)?);
            if !matches!(len, 0 | 8 | 12) {
                return Err(Malformed);
            }
            let mut t = Time::default();
            if len >= 8 {
                t.neg = b.u8()? != 0;
                let days = b.u32()?;
                let h = b.u8()? as u32;
                t.hour = days.saturating_mul(24).saturating_add(h);
                t.minute = b.u8()?;
                t.second = b.u8()?;
            }
            if len >= 12 {
                t.micro = b.u32()?;
            }
            Value::Time(t, if len == 12 && t.micro != 0 { 6 } else { 0 })
        }
        ft::VARCHAR | ft::VAR_STRING | ft::STRING | ft::ENUM | ft::SET | ft::JSON => {
            text_or_bytes(r.lenenc_bytes()?)
        }
        c if is_binary_type(c) => Value::Bytes(r.lenenc_bytes()?.to_vec()),
        _ => return Err(Malformed),
    })
}

/// Parses `YYYY-MM-DD[ hh:mm:ss[.ffffff]]` (also `T` as separator), or a number
/// `YYYYMMDD[hhmmss]`. Returns `None` when it does not look like one.
pub fn parse_datetime(s: &str) -> Option<DateTime> {
    let s = s.trim();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        let int = s.split('.').next()?;
        let n: u64 = int.parse().ok()?;
        return datetime_from_number(n);
    }
    let (date, time) = match s.find([' ', 'T']) {
        Some(i) => (&s[..i], Some(s[i + 1..].trim())),
        None => (s, None),
    };
    let mut d = date.split('-');
    let year: u16 = d.next()?.trim().parse().ok()?;
    let month: u8 = d.next()?.trim().parse().ok()?;
    let day: u8 = d.next()?.trim().parse().ok()?;
    if d.next().is_some() {
        return None;
    }
    let mut dt = DateTime::date(year, month, day);
    if let Some(t) = time.filter(|t| !t.is_empty()) {
        let tm = parse_time(t)?;
        if tm.neg || tm.hour > 23 {
            return None;
        }
        dt.hour = tm.hour as u8;
        dt.minute = tm.minute;
        dt.second = tm.second;
        dt.micro = tm.micro;
    }
    Some(dt)
}

fn datetime_from_number(n: u64) -> Option<DateTime> {
    let (date, time) = if n > 99_999_999 {
        (n / 1_000_000, n % 1_000_000)
    } else {
        (n, 0)
    };
    Some(DateTime {
        year: (date / 10000) as u16,
        month: (date / 100 % 100) as u8,
        day: (date % 100) as u8,
        hour: (time / 10000) as u8,
        minute: (time / 100 % 100) as u8,
        second: (time % 100) as u8,
        micro: 0,
    })
}

/// Parses `[-]h:mm[:ss[.ffffff]]` or `[-]hhmmss[.ffffff]`.
pub fn parse_time(s: &str) -> Option<Time> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, f),
        None => (s, ""),
    };
    let micro = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().take(6).collect();
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        format!("{digits:0<6}").parse().ok()?
    };
    let (hour, minute, second) = if whole.contains(':') {
        let mut it = whole.split(':');
        let h: u32 = it.next()?.parse().ok()?;
        let m: u8 = it.next()?.parse().ok()?;
        let sec: u8 = match it.next() {
            Some(x) => x.parse().ok()?,
            None => 0,
        };
        if it.next().is_some() {
            return None;
        }
        (h, m, sec)
    } else {
        let n: u64 = whole.parse().ok()?;
        ((n / 10000) as u32, (n / 100 % 100) as u8, (n % 100) as u8)
    };
    if minute > 59 || second > 59 {
        return None;
    }
    Some(Time {
        neg,
        hour,
        minute,
        second,
        micro,
    })
}

fn str_of(v: &Value) -> Option<String> {
    match v {
        Value::Str(s) => Some(s.clone()),
        Value::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
        _ => None,
    }
}

/// The value as a signed integer (rounded; strings parsed, 0 if they don't parse).
pub fn to_i64(v: &Value) -> i64 {
    match v {
        Value::Null => 0,
        Value::Int(i) => *i,
        Value::UInt(u) => *u as i64,
        Value::Float(f) => f.round() as i64,
        Value::Double(d) => d.round() as i64,
        Value::Decimal(d) => d.round_i64().unwrap_or(if d.is_sign_negative() {
            i64::MIN
        } else {
            i64::MAX
        }),
        Value::Date(d) => (d.year as i64 * 100 + d.month as i64) * 100 + d.day as i64,
        Value::DateTime(d, _) => {
            let date = (d.year as i64 * 100 + d.month as i64) * 100 + d.day as i64;
            date * 1_000_000 + (d.hour as i64 * 100 + d.minute as i64) * 100 + d.second as i64
        }
        Value::Time(t, _) => {
            let v = (t.hour as i64 * 100 + t.minute as i64) * 100 + t.second as i64;
            if t.neg {
                -v
            } else {
                v
            }
        }
        Value::Str(_) | Value::Bytes(_) => {
            let s = str_of(v).unwrap_or_default();
            let t = s.trim();
            t.parse::<i64>()
                .ok()
                .or_else(|| t.parse::<u64>().ok().map(|u| u as i64))
                .or_else(|| t.parse::<f64>().ok().map(|f| f.round() as i64))
                .unwrap_or(0)
        }
    }
}

/// The value as a double (strings parsed, 0 if they don't parse).
pub fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::UInt(u) => *u as f64,
        // Through the shortest decimal form, so 0.1f32 becomes 0.1, not 0.10000000149.
        Value::Float(f) => common::value::format_float(*f).parse().unwrap_or(*f as f64),
        Value::Double(d) => *d,
        Value::Decimal(d) => d.to_f64(),
        Value::Str(_) | Value::Bytes(_) => {
            str_of(v).unwrap_or_default().trim().parse().unwrap_or(0.0)
        }
        Value::Null => 0.0,
        other => to_i64(other) as f64,
    }
}

/// The value as a date-time (zero if it can't be converted).
pub fn to_datetime(v: &Value) -> DateTime {
    match v {
        Value::Date(d) | Value::DateTime(d, _) => *d,
        Value::Int(_) | Value::UInt(_) => {
            datetime_from_number(to_i64(v).max(0) as u64).unwrap_or_default()
        }
        Value::Str(_) | Value::Bytes(_) => {
            parse_datetime(&str_of(v).unwrap_or_default()).unwrap_or_default()
        }
        _ => DateTime::default(),
    }
}

/// The value as a TIME (zero if it can't be converted).
pub fn to_time(v: &Value) -> Time {
    match v {
        Value::Time(t, _) => *t,
        Value::DateTime(d, _) => Time {
            neg: false,
            hour: d.hour as u32,
            minute: d.minute,
            second: d.second,
            micro: d.micro,
        },
        Value::Int(_) | Value::UInt(_) => parse_time(&to_i64(v).to_string()).unwrap_or_default(),
        Value::Str(_) | Value::Bytes(_) => {
            parse_time(&str_of(v).unwrap_or_default()).unwrap_or_default()
        }
        _ => Time::default(),
    }
}

fn put_datetime(out: &mut Vec<u8>, d: &DateTime, date_only: bool) {
    if d.is_zero() {
        out.push(0);
        return;
    }
    let has_time = !date_only && (d.hour != 0 || d.minute != 0 || d.second != 0 || d.micro != 0);
    let len = if !has_time {
        4
    } else if d.micro == 0 {
        7
    } else {
        11
    };
    out.push(len);
    out.extend_from_slice(&d.year.to_le_bytes());
    out.push(d.month);
    out.push(d.day);
    if len >= 7 {
        out.extend_from_slice(&[d.hour, d.minute, d.second]);
    }
    if len == 11 {
        out.extend_from_slice(&d.micro.to_le_bytes());
    }
}

fn put_time(out: &mut Vec<u8>, t: &Time) {
    if t.hour == 0 && t.minute == 0 && t.second == 0 && t.micro == 0 {
        out.push(0);
        return;
    }
    let len = if t.micro == 0 { 8 } else { 12 };
    out.push(len);
    out.push(t.neg as u8);
    out.extend_from_slice(&(t.hour / 24).to_le_bytes());
    out.extend_from_slice(&[(t.hour % 24) as u8, t.minute, t.second]);
    if len == 12 {
        out.extend_from_slice(&t.micro.to_le_bytes());
    }
}

/// Appends the binary encoding of non-NULL `v` for column `c`.
pub fn put_binary_value(out: &mut Vec<u8>, c: &ColumnMeta, v: &Value) {
    match c.field_type {
        ft::TINY => out.push(to_i64(v) as u8),
        ft::SHORT | ft::YEAR => out.extend_from_slice(&(to_i64(v) as u16).to_le_bytes()),
        ft::LONG | ft::INT24 => out.extend_from_slice(&(to_i64(v) as u32).to_le_bytes()),
        ft::LONGLONG => {
            let bits = match v {
                Value::UInt(u) => *u,
                Value::Str(s) if s.trim().parse::<u64>().is_ok() => {
                    s.trim().parse::<u64>().unwrap_or(0)
                }
                other => to_i64(other) as u64,
            };
            out.extend_from_slice(&bits.to_le_bytes());
        }
        ft::FLOAT => {
            let f = match v {
                Value::Float(f) => *f,
                other => to_f64(other) as f32,
            };
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        ft::DOUBLE => out.extend_from_slice(&to_f64(v).to_bits().to_le_bytes()),
        ft::DATE => put_datetime(out, &to_datetime(v), true),
        ft::DATETIME | ft::TIMESTAMP => put_datetime(out, &to_datetime(v), false),
        ft::TIME => put_time(out, &to_time(v)),
        // A NULL-typed column carries no bytes for its (only NULL) values.
        ft::NULL => {}
        ft::BIT => match v {
            Value::UInt(u) => put_lenenc_bytes(out, &bit_bytes(*u, c.length)),
            Value::Int(i) => put_lenenc_bytes(out, &bit_bytes(*i as u64, c.length)),
            other => put_lenenc_bytes(out, &other.to_text().unwrap_or_default()),
        },
        _ => put_lenenc_bytes(out, &text_value(c, v).unwrap_or_default()),
    }
}

/// Appends a binary-protocol result row to `p`: 0x00, NULL bitmap (offset 2), then the
/// non-NULL values.
pub fn put_binary_row(p: &mut Vec<u8>, columns: &[ColumnMeta], row: &[Value]) {
    let n = columns.len();
    p.push(0x00);
    let bitmap_at = p.len();
    p.resize(bitmap_at + (n + 9) / 8, 0);
    for (i, c) in columns.iter().enumerate() {
        match row.get(i) {
            None | Some(Value::Null) => {
                let bit = i + 2;
                p[bitmap_at + bit / 8] |= 1 << (bit % 8);
            }
            Some(v) => put_binary_value(p, c, v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binary_row(columns: &[ColumnMeta], row: &[Value]) -> Vec<u8> {
        let mut p = Vec::new();
        put_binary_row(&mut p, columns, row);
        p
    }
    use crate::packet::put_lenenc_int;

    fn col(t: u8) -> ColumnMeta {
        ColumnMeta {
            name: "c".into(),
            field_type: t,
            length: 20,
            ..Default::default()
        }
    }

    /// Builds an execute payload (after stmt id) with new-params-bound types.
    fn exec(types: &[(u8, bool)], nulls: &[usize], values: &[u8]) -> Vec<u8> {
        let mut p = vec![0u8];
        p.extend_from_slice(&1u32.to_le_bytes());
        let mut bm = vec![0u8; types.len().div_ceil(8)];
        for &i in nulls {
            bm[i / 8] |= 1 << (i % 8);
        }
        p.extend_from_slice(&bm);
        p.push(1);
        for &(t, u) in types {
            p.push(t);
            p.push(if u { 0x80 } else { 0 });
        }
        p.extend_from_slice(values);
        p
    }

    fn decode(p: &[u8], n: usize) -> PResult<Vec<Value>> {
        let mut types = None;
        decode_execute(&mut Reader::new(p), n, &mut types, &HashMap::new()).map(|e| e.params)
    }

    #[test]
    fn every_param_type() {
        let mut v = Vec::new();
        v.push(0xFF); // TINY -1
        v.push(0xFF); // TINY unsigned 255
        v.extend_from_slice(&(-2i16).to_le_bytes());
        v.extend_from_slice(&65535u16.to_le_bytes()); // SHORT unsigned
        v.extend_from_slice(&(-3i32).to_le_bytes());
        v.extend_from_slice(&(-4i64).to_le_bytes());
        v.extend_from_slice(&u64::MAX.to_le_bytes());
        v.extend_from_slice(&1.5f32.to_le_bytes());
        v.extend_from_slice(&2.25f64.to_le_bytes());
        put_lenenc_bytes(&mut v, b"12.340");
        put_lenenc_bytes(&mut v, b"not-a-number");
        put_lenenc_bytes(&mut v, "héllo".as_bytes());
        put_lenenc_bytes(&mut v, &[0xFF, 0xFE]); // VAR_STRING, invalid UTF-8
        put_lenenc_bytes(&mut v, b"blob");
        v.extend_from_slice(&[4, 0xE8, 0x07, 2, 29]); // DATE 2024-02-29
        v.extend_from_slice(&[0]); // DATETIME zero
        v.extend_from_slice(&[7, 0xE8, 0x07, 12, 31, 23, 59, 58]);
        v.extend_from_slice(&[11, 0xE8, 0x07, 1, 2, 3, 4, 5, 0x40, 0xE2, 0x01, 0]); // micro 123456
        v.extend_from_slice(&[8, 1, 1, 0, 0, 0, 10, 20, 30]); // TIME -34:20:30
        v.extend_from_slice(&[12, 0, 0, 0, 0, 0, 1, 2, 3, 1, 0, 0, 0]);
        v.extend_from_slice(&[0]); // TIME zero
        let types = [
            (ft::TINY, false),
            (ft::TINY, true),
            (ft::SHORT, false),
            (ft::SHORT, true),
            (ft::LONG, false),
            (ft::LONGLONG, false),
            (ft::LONGLONG, true),
            (ft::FLOAT, false),
            (ft::DOUBLE, false),
            (ft::NEWDECIMAL, false),
            (ft::DECIMAL, false),
            (ft::STRING, false),
            (ft::VAR_STRING, false),
            (ft::BLOB, false),
            (ft::DATE, false),
            (ft::DATETIME, false),
            (ft::TIMESTAMP, false),
            (ft::DATETIME, false),
            (ft::TIME, false),
            (ft::TIME, false),
            (ft::TIME, false),
            (ft::NULL, false),
            (ft::LONG, false),
        ];
        let p = exec(&types, &[21, 22], &v);
        let got = decode(&p, types.len()).unwrap();
        let dt = |y, mo, d, h, mi, s, us| DateTime {
            year: y,
            month: mo,
            day: d,
            hour: h,
            minute: mi,
            second: s,
            micro: us,
        };
        assert_eq!(
            got,
            vec![
                Value::Int(-1),
                Value::UInt(255),
                Value::Int(-2),
                Value::UInt(65535),
                Value::Int(-3),
                Value::Int(-4),
                Value::UInt(u64::MAX),
                Value::Float(1.5),
                Value::Double(2.25),
                Value::Decimal(Decimal::new(12340, 3)),
                Value::Str("not-a-number".into()),
                Value::Str("héllo".into()),
                Value::Bytes(vec![0xFF, 0xFE]),
                Value::Bytes(b"blob".to_vec()),
                Value::Date(DateTime::date(2024, 2, 29)),
                Value::DateTime(DateTime::default(), 0),
                Value::DateTime(dt(2024, 12, 31, 23, 59, 58, 0), 0),
                Value::DateTime(dt(2024, 1, 2, 3, 4, 5, 123456), 6),
                Value::Time(
                    Time {
                        neg: true,
                        hour: 34,
                        minute: 20,
                        second: 30,
                        micro: 0
                    },
                    0
                ),
                Value::Time(
                    Time {
                        neg: false,
                        hour: 1,
                        minute: 2,
                        second: 3,
                        micro: 1
                    },
                    6
                ),
                Value::Time(Time::default(), 0),
                Value::Null,
                Value::Null,
            ]
        );
    }

    #[test]
    fn types_remembered_and_long_data() {
        let mut v = Vec::new();
        v.extend_from_slice(&7i32.to_le_bytes());
        let p = exec(&[(ft::LONG, false), (ft::BLOB, false)], &[], &v);
        let mut types = None;
        let mut long = HashMap::new();
        long.insert(1u16, vec![0u8, 1, 2]);
        let e = decode_execute(&mut Reader::new(&p), 2, &mut types, &long).unwrap();
        assert_eq!(e.params, vec![Value::Int(7), Value::Bytes(vec![0, 1, 2])]);
        // Second execution: no new types; the remembered ones apply.
        let mut p2 = vec![0u8, 1, 0, 0, 0, 0b10, 0];
        p2.extend_from_slice(&9i32.to_le_bytes());
        let e = decode_execute(&mut Reader::new(&p2), 2, &mut types, &HashMap::new()).unwrap();
        assert_eq!(e.params, vec![Value::Int(9), Value::Null]);
        // Without any types ever bound it is malformed.
        assert_eq!(
            decode_execute(&mut Reader::new(&p2), 2, &mut None, &HashMap::new()),
            Err(Malformed)
        );
    }

    #[test]
    fn malformed_inputs_never_panic() {
        let mut v = Vec::new();
        put_lenenc_bytes(&mut v, b"abc");
        v.extend_from_slice(&[7, 0xE8, 0x07, 12, 31, 23, 59, 58]);
        let p = exec(&[(ft::VAR_STRING, false), (ft::DATETIME, false)], &[], &v);
        for n in 0..p.len() {
            assert_eq!(decode(&p[..n], 2), Err(Malformed), "prefix {n}");
        }
        assert!(decode(&p, 2).is_ok());
        // Bad lengths and unknown types.
        assert_eq!(
            decode(&exec(&[(ft::DATE, false)], &[], &[5, 0, 0, 0, 0, 0]), 1),
            Err(Malformed)
        );
        assert_eq!(
            decode(&exec(&[(ft::TIME, false)], &[], &[3, 0, 0, 0]), 1),
            Err(Malformed)
        );
        assert_eq!(
            decode(&exec(&[(0x42, false)], &[], &[1]), 1),
            Err(Malformed)
        );
        let mut huge = Vec::new();
        put_lenenc_int(&mut huge, u64::MAX);
        assert_eq!(
            decode(&exec(&[(ft::STRING, false)], &[], &huge), 1),
            Err(Malformed)
        );
        let mut bad_flag = exec(&[(ft::LONG, false)], &[], &[0, 0, 0, 0]);
        bad_flag[6] = 7;
        assert_eq!(decode(&bad_flag, 1), Err(Malformed));
    }

    #[test]
    fn binary_rows() {
        let cols = vec![
            col(ft::LONGLONG),
            col(ft::VAR_STRING),
            col(ft::DOUBLE),
            col(ft::DATETIME),
            col(ft::TIME),
            col(ft::TINY),
        ];
        let row = vec![
            Value::Int(1),
            Value::Str("ab".into()),
            Value::Null,
            Value::DateTime(
                DateTime {
                    year: 2000,
                    month: 1,
                    day: 2,
                    hour: 3,
                    minute: 4,
                    second: 5,
                    micro: 0,
                },
                0,
            ),
            Value::Time(
                Time {
                    neg: false,
                    hour: 25,
                    minute: 0,
                    second: 1,
                    micro: 0,
                },
                0,
            ),
            Value::Str("7".into()), // converted to the declared type
        ];
        let p = binary_row(&cols, &row);
        let mut expect = vec![0x00, 0b0001_0000];
        expect.extend_from_slice(&1i64.to_le_bytes());
        expect.extend_from_slice(&[2, b'a', b'b']);
        expect.extend_from_slice(&[7, 0xD0, 0x07, 1, 2, 3, 4, 5]);
        expect.extend_from_slice(&[8, 0, 1, 0, 0, 0, 1, 0, 1]);
        expect.push(7);
        assert_eq!(p, expect);
        // Short rows are padded with NULLs.
        assert_eq!(binary_row(&cols[..1], &[]), vec![0, 0b100]);
    }

    #[test]
    fn conversions() {
        let mut out = Vec::new();
        put_binary_value(
            &mut out,
            &col(ft::DATE),
            &Value::Str("2024-03-01 10:00:00".into()),
        );
        assert_eq!(out, vec![4, 0xE8, 0x07, 3, 1]);
        out.clear();
        put_binary_value(&mut out, &col(ft::DOUBLE), &Value::Float(0.1));
        assert_eq!(out, 0.1f64.to_le_bytes().to_vec());
        out.clear();
        put_binary_value(
            &mut out,
            &col(ft::LONGLONG),
            &Value::Str("18446744073709551615".into()),
        );
        assert_eq!(out, u64::MAX.to_le_bytes().to_vec());
        out.clear();
        put_binary_value(
            &mut out,
            &col(ft::NEWDECIMAL),
            &Value::Decimal(Decimal::new(-105, 1)),
        );
        assert_eq!(out, b"\x05-10.5".to_vec());
        assert_eq!(to_i64(&Value::Double(2.5)), 3);
        assert_eq!(to_i64(&Value::Str(" 42 ".into())), 42);
        assert_eq!(
            parse_time("-838:59:59.5"),
            Some(Time {
                neg: true,
                hour: 838,
                minute: 59,
                second: 59,
                micro: 500000
            })
        );
        assert_eq!(parse_time("12:61:00"), None);
        assert_eq!(
            parse_datetime("20240229"),
            Some(DateTime::date(2024, 2, 29))
        );
        assert_eq!(parse_datetime("nonsense"), None);
        assert_eq!(
            to_time(&Value::Int(101010)),
            Time {
                neg: false,
                hour: 10,
                minute: 10,
                second: 10,
                micro: 0
            }
        );
    }
}
