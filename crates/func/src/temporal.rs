//! Calendar arithmetic and MySQL's lenient temporal literal parsing.
//!
//! MySQL's day numbers (`TO_DAYS`) count from year 0 with year 0 treated as a common year;
//! from year 1 on they follow the proleptic Gregorian calendar. Parsing accepts the formats of
//! the manual's "Date and Time Literals" section: delimited strings with any punctuation as
//! delimiter, the compact `YYYYMMDDhhmmss`/`YYMMDD` digit forms, and numbers in the same
//! layouts.

use common::time::{DateTime, Time};

/// True for a Gregorian leap year.
pub fn is_leap(year: u32) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

/// Days in `month` of `year` (0 for month 0).
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 => {
            if year != 0 && is_leap(year) {
                29
            } else {
                28
            }
        }
        _ => 0,
    }
}

/// Days in `year` as MySQL counts them (year 0 has 365).
pub fn days_in_year(year: u32) -> u32 {
    if year != 0 && is_leap(year) {
        366
    } else {
        365
    }
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Day number of 0001-01-01 in MySQL's numbering.
const DAYNR_0001_01_01: i64 = 366;

/// MySQL's day number (`TO_DAYS`) of a date; 0 for `0000-00-00`.
pub fn daynr(year: u32, month: u32, day: u32) -> i64 {
    if year == 0 && month == 0 {
        return 0;
    }
    if year == 0 {
        // Year 0 is a common year in MySQL's numbering; 0000-01-01 is day 1.
        let mut n = 0i64;
        for m in 1..month {
            n += days_in_month(0, m) as i64;
        }
        return n + day as i64;
    }
    days_from_civil(year as i64, month.max(1), day) - days_from_civil(1, 1, 1) + DAYNR_0001_01_01
}

/// The date of MySQL day number `n` (`FROM_DAYS`); `None` outside 0001-01-01..=9999-12-31
/// (MySQL returns the zero date for small numbers).
pub fn from_daynr(n: i64) -> Option<(u32, u32, u32)> {
    if !(DAYNR_0001_01_01..=3_652_424).contains(&n) {
        return None;
    }
    let (y, m, d) = civil_from_days(n - DAYNR_0001_01_01 + days_from_civil(1, 1, 1));
    Some((y as u32, m, d))
}

/// Weekday of a day number: 0 = Monday .. 6 = Sunday (`sunday_first` false), or
/// 0 = Sunday .. 6 = Saturday (`sunday_first` true).
pub fn weekday(daynr: i64, sunday_first: bool) -> u32 {
    ((daynr + 5 + if sunday_first { 1 } else { 0 }).rem_euclid(7)) as u32
}

/// `WEEK()` mode bit: weeks start on Monday.
pub const WEEK_MONDAY_FIRST: u32 = 1;
/// `WEEK()` mode bit: week numbers 1..53 (never 0), the year may be the neighbour's.
pub const WEEK_YEAR: u32 = 2;
/// `WEEK()` mode bit: week 1 is the first week containing the first weekday of the year.
pub const WEEK_FIRST_WEEKDAY: u32 = 4;

/// Turns a `WEEK(d, mode)` mode argument into the behaviour bits above.
pub fn week_mode(mode: u32) -> u32 {
    let mut m = mode & 7;
    if m & WEEK_MONDAY_FIRST == 0 {
        m ^= WEEK_FIRST_WEEKDAY;
    }
    m
}

/// Week number of a date for behaviour bits `behaviour` (see [`week_mode`]); also returns the
/// year the week belongs to.
pub fn calc_week(year: u32, month: u32, day: u32, behaviour: u32) -> (u32, u32) {
    let dnr = daynr(year, month, day);
    let mut first = daynr(year, 1, 1);
    let monday_first = behaviour & WEEK_MONDAY_FIRST != 0;
    let mut week_year = behaviour & WEEK_YEAR != 0;
    let first_weekday = behaviour & WEEK_FIRST_WEEKDAY != 0;
    let mut wd = weekday(first, !monday_first) as i64;
    let mut y = year;
    let starts_late = |wd: i64| (first_weekday && wd != 0) || (!first_weekday && wd >= 4);
    if month == 1 && (day as i64) <= 7 - wd {
        if !week_year && starts_late(wd) {
            return (0, y);
        }
        week_year = true;
        y = y.saturating_sub(1);
        let days = days_in_year(y) as i64;
        first -= days;
        wd = (wd + 53 * 7 - days).rem_euclid(7);
    }
    let days = if starts_late(wd) {
        dnr - (first + (7 - wd))
    } else {
        dnr - (first - wd)
    };
    if week_year && days >= 52 * 7 {
        let wd2 = (wd + days_in_year(y) as i64).rem_euclid(7);
        if (!first_weekday && wd2 < 4) || (first_weekday && wd2 == 0) {
            return (1, y + 1);
        }
    }
    ((days / 7 + 1) as u32, y)
}

/// True if the date part is a real calendar date (no zero parts).
pub fn is_valid_calendar_date(dt: &DateTime) -> bool {
    dt.month >= 1
        && dt.month <= 12
        && dt.day >= 1
        && dt.day as u32 <= days_in_month(dt.year as u32, dt.month as u32)
}

/// Checks ranges, allowing zero month/day (MySQL's default without NO_ZERO_IN_DATE).
pub fn check_datetime(dt: &DateTime) -> bool {
    dt.year <= 9999
        && dt.month <= 12
        && dt.day <= 31
        && (dt.month == 0
            || dt.day == 0
            || dt.day as u32 <= days_in_month(dt.year as u32, dt.month as u32))
        && dt.hour <= 23
        && dt.minute <= 59
        && dt.second <= 59
        && dt.micro <= 999_999
}

/// Microseconds since 0001-01-01 00:00:00 (MySQL day numbering) for calendar arithmetic.
pub fn dt_to_micros(dt: &DateTime) -> i64 {
    let d = daynr(dt.year as u32, dt.month as u32, dt.day as u32);
    ((d * 24 + dt.hour as i64) * 3600 + dt.minute as i64 * 60 + dt.second as i64) * 1_000_000
        + dt.micro as i64
}

/// Inverse of [`dt_to_micros`]; `None` outside 0001-01-01..9999-12-31.
pub fn micros_to_dt(us: i64) -> Option<DateTime> {
    let day = us.div_euclid(86_400_000_000);
    let rest = us.rem_euclid(86_400_000_000);
    let (y, m, d) = from_daynr(day)?;
    let secs = rest / 1_000_000;
    Some(DateTime {
        year: y as u16,
        month: m as u8,
        day: d as u8,
        hour: (secs / 3600) as u8,
        minute: ((secs / 60) % 60) as u8,
        second: (secs % 60) as u8,
        micro: (rest % 1_000_000) as u32,
    })
}

/// Seconds since the Unix epoch of a datetime taken as UTC.
pub fn dt_to_unix_micros(dt: &DateTime) -> i64 {
    let days = days_from_civil(dt.year as i64, dt.month as u32, dt.day as u32);
    ((days * 24 + dt.hour as i64) * 3600 + dt.minute as i64 * 60 + dt.second as i64) * 1_000_000
        + dt.micro as i64
}

/// The UTC datetime of Unix microseconds.
pub fn unix_micros_to_dt(us: i64) -> Option<DateTime> {
    let days = us.div_euclid(86_400_000_000);
    let rest = us.rem_euclid(86_400_000_000);
    let (y, m, d) = civil_from_days(days);
    if !(1..=9999).contains(&y) {
        return None;
    }
    let secs = rest / 1_000_000;
    Some(DateTime {
        year: y as u16,
        month: m as u8,
        day: d as u8,
        hour: (secs / 3600) as u8,
        minute: ((secs / 60) % 60) as u8,
        second: (secs % 60) as u8,
        micro: (rest % 1_000_000) as u32,
    })
}

/// Rounds microseconds to `fsp` digits (half up); may carry into seconds.
pub fn round_micros(micro: u32, fsp: u8) -> u32 {
    if fsp >= 6 {
        return micro;
    }
    let unit = 10u32.pow(6 - fsp as u32);
    (micro + unit / 2) / unit * unit
}

/// Rounds a datetime's fraction to `fsp` digits, carrying into the seconds.
pub fn round_dt(dt: &DateTime, fsp: u8) -> DateTime {
    let r = round_micros(dt.micro, fsp);
    if r == dt.micro {
        return *dt;
    }
    if r < 1_000_000 {
        return DateTime { micro: r, ..*dt };
    }
    if dt.month == 0 || dt.day == 0 {
        // Cannot carry through a zero date part; truncate instead.
        return DateTime {
            micro: 1_000_000 - 10u32.pow(6 - fsp as u32),
            ..*dt
        };
    }
    let base = DateTime { micro: 0, ..*dt };
    micros_to_dt(dt_to_micros(&base) + 1_000_000).unwrap_or(base)
}

/// Rounds a time's fraction to `fsp` digits.
pub fn round_time(t: &Time, fsp: u8) -> Time {
    let r = round_micros(t.micro, fsp);
    if r == t.micro {
        return *t;
    }
    let us = t.to_micros();
    let delta = r as i64 - t.micro as i64;
    Time::from_micros(if t.neg { us - delta } else { us + delta })
}

/// Converts a two-digit year as MySQL does: 00-69 → 2000-2069, 70-99 → 1970-1999.
pub fn year_2digit(y: u32) -> u32 {
    if y < 70 {
        2000 + y
    } else {
        1900 + y
    }
}

/// Result of parsing a datetime literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParsedDateTime {
    /// The value (not yet range-checked beyond field limits).
    pub dt: DateTime,
    /// True when a time part was present.
    pub has_time: bool,
    /// Number of fractional digits given (0..=6).
    pub frac_digits: u8,
    /// True when trailing characters were ignored.
    pub truncated: bool,
}

fn parse_frac(digits: &[u8]) -> (u32, bool) {
    // Returns (micros, carry) with rounding at the 7th digit.
    let mut micro = 0u32;
    for i in 0..6 {
        micro = micro * 10 + digits.get(i).map_or(0, |d| (d - b'0') as u32);
    }
    if digits.get(6).is_some_and(|d| *d >= b'5') {
        micro += 1;
    }
    if micro >= 1_000_000 {
        (0, true)
    } else {
        (micro, false)
    }
}

/// Parses a MySQL datetime/date string. Returns `None` when it is not a datetime at all or its
/// fields are out of range.
pub fn parse_datetime(s: &str) -> Option<ParsedDateTime> {
    let s = s.trim_start_matches([' ', '\t', '\n', '\r']);
    let b = s.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return None;
    }
    // Digit run at the start.
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let first_len = i;
    let compact = first_len >= 5
        && (first_len == b.len()
            || b[first_len] == b'.'
            || b[first_len..].iter().all(|c| c.is_ascii_whitespace()));
    let mut fields: Vec<u32> = Vec::new();
    let mut has_time;
    let mut pos;
    let mut frac = (0u32, false, 0u8);
    let mut truncated = false;
    if compact {
        let d = &b[..first_len];
        let num = |r: std::ops::Range<usize>| -> u32 {
            d[r].iter().fold(0u32, |a, c| a * 10 + (c - b'0') as u32)
        };
        let (year, rest_start) = match first_len {
            14 | 8 => (num(0..4), 4),
            12 | 6 | 10 => (year_2digit(num(0..2)), 2),
            13 | 11 | 9 | 7 | 5 => {
                // Odd lengths: MySQL takes a 4-digit year for 9+ digits (YYYYMMDDh..)
                if first_len >= 9 {
                    (num(0..4), 4)
                } else {
                    (year_2digit(num(0..2)), 2)
                }
            }
            _ => return None,
        };
        fields.push(year);
        let mut k = rest_start;
        while k < first_len {
            let end = (k + 2).min(first_len);
            fields.push(num(k..end));
            k = end;
        }
        has_time = fields.len() > 3;
        pos = first_len;
        if pos < b.len() && b[pos] == b'.' && has_time {
            let st = pos + 1;
            let mut e = st;
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            let (m, c) = parse_frac(&b[st..e]);
            frac = (m, c, (e - st).min(6) as u8);
            pos = e;
        }
    } else {
        // Delimited form: date fields, optional time fields.
        pos = 0;
        let mut field_count = 0;
        let mut year_digits = 0;
        has_time = false;
        loop {
            let st = pos;
            while pos < b.len() && b[pos].is_ascii_digit() {
                pos += 1;
            }
            if pos == st {
                break;
            }
            if pos - st > 9 {
                return None;
            }
            let v: u32 = s[st..pos].parse().ok()?;
            if field_count == 0 {
                year_digits = pos - st;
            }
            fields.push(v);
            field_count += 1;
            if field_count == 6 || pos >= b.len() {
                break;
            }
            let c = b[pos];
            if field_count == 3 {
                // Between date and time: blanks or a single 'T'.
                let mut p2 = pos;
                if c == b'T' {
                    p2 += 1;
                } else {
                    while p2 < b.len() && (b[p2] == b' ' || b[p2] == b'\t') {
                        p2 += 1;
                    }
                }
                if p2 > pos && p2 < b.len() && b[p2].is_ascii_digit() {
                    pos = p2;
                    has_time = true;
                    continue;
                }
                break;
            }
            if c == b'.' && field_count >= 5 {
                break;
            }
            if c.is_ascii_punctuation() && pos + 1 < b.len() && b[pos + 1].is_ascii_digit() {
                pos += 1;
                continue;
            }
            break;
        }
        if fields.len() < 3 {
            return None;
        }
        if year_digits <= 2 {
            fields[0] = year_2digit(fields[0]);
        }
        if fields.len() == 6 && pos < b.len() && b[pos] == b'.' {
            let st = pos + 1;
            let mut e = st;
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            let (m, c) = parse_frac(&b[st..e]);
            frac = (m, c, (e - st).min(6) as u8);
            pos = e;
        }
    }
    if pos < b.len() && !b[pos..].iter().all(|c| c.is_ascii_whitespace()) {
        truncated = true;
    }
    while fields.len() < 6 {
        fields.push(0);
    }
    let dt = DateTime {
        year: u16::try_from(fields[0]).ok()?,
        month: u8::try_from(fields[1]).ok()?,
        day: u8::try_from(fields[2]).ok()?,
        hour: u8::try_from(fields[3]).ok()?,
        minute: u8::try_from(fields[4]).ok()?,
        second: u8::try_from(fields[5]).ok()?,
        micro: frac.0,
    };
    if !check_datetime(&dt) {
        return None;
    }
    let dt = if frac.1 {
        if dt.month == 0 || dt.day == 0 {
            DateTime {
                micro: 999_999,
                ..dt
            }
        } else {
            micros_to_dt(dt_to_micros(&dt) + 1_000_000)?
        }
    } else {
        dt
    };
    Some(ParsedDateTime {
        dt,
        has_time,
        frac_digits: frac.2,
        truncated,
    })
}

/// Converts an integer in `YYYYMMDDhhmmss`, `YYMMDDhhmmss`, `YYYYMMDD` or `YYMMDD` layout.
pub fn datetime_from_number(n: i64, micro: u32) -> Option<(DateTime, bool)> {
    if n == 0 {
        return Some((
            DateTime {
                micro,
                ..DateTime::default()
            },
            false,
        ));
    }
    if n < 0 {
        return None;
    }
    let (full, has_time) = if n < 101 {
        return None;
    } else if n <= 691_231 {
        ((n + 20_000_000) * 1_000_000, false)
    } else if n < 700_101 {
        return None;
    } else if n <= 991_231 {
        ((n + 19_000_000) * 1_000_000, false)
    } else if n < 10_000_101 {
        return None;
    } else if n <= 99_991_231 {
        (n * 1_000_000, false)
    } else if n < 101_000_000 {
        return None;
    } else if n <= 691_231_235_959 {
        (n + 20_000_000_000_000, true)
    } else if n < 700_101_000_000 {
        return None;
    } else if n <= 991_231_235_959 {
        (n + 19_000_000_000_000, true)
    } else if n <= 99_991_231_235_959 {
        (n, true)
    } else {
        return None;
    };
    let date = full / 1_000_000;
    let time = full % 1_000_000;
    let dt = DateTime {
        year: (date / 10_000) as u16,
        month: (date / 100 % 100) as u8,
        day: (date % 100) as u8,
        hour: (time / 10_000) as u8,
        minute: (time / 100 % 100) as u8,
        second: (time % 100) as u8,
        micro,
    };
    if check_datetime(&dt) {
        Some((dt, has_time))
    } else {
        None
    }
}

/// Result of parsing a TIME literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParsedTime {
    /// The value, clamped to ±838:59:59.
    pub time: Time,
    /// Number of fractional digits given.
    pub frac_digits: u8,
    /// True when the value was clamped or trailing characters ignored.
    pub truncated: bool,
}

/// Clamps signed microseconds to the TIME range; returns whether clamping happened.
pub fn clamp_time_micros(us: i64) -> (i64, bool) {
    if us > Time::MAX_MICROS + 999_999 {
        (Time::MAX_MICROS, true)
    } else if us < -(Time::MAX_MICROS + 999_999) {
        (-Time::MAX_MICROS, true)
    } else if us.abs() > Time::MAX_MICROS {
        (us.signum() * Time::MAX_MICROS, true)
    } else {
        (us, false)
    }
}

/// Parses a MySQL TIME string (`[-][D ]hh:mm:ss[.f]`, `hhmmss`, `mm:ss`-less forms, or a full
/// datetime whose time part is taken).
pub fn parse_time(s: &str) -> Option<ParsedTime> {
    let t = s.trim_matches([' ', '\t', '\n', '\r']);
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r.trim_start()),
        None => (false, t),
    };
    let b = body.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return None;
    }
    // A datetime string: take its time part.
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let looks_datetime = (i < b.len() && b[i] == b'-' && !neg)
        || (i >= 12 && (i == b.len() || b[i] == b'.'))
        || (i == 4 && i < b.len() && b[i] != b':' && b[i] != b'.' && b[i] != b' ');
    if looks_datetime {
        let p = parse_datetime(body)?;
        let tm = Time {
            neg: false,
            hour: p.dt.hour as u32,
            minute: p.dt.minute,
            second: p.dt.second,
            micro: p.dt.micro,
        };
        return Some(ParsedTime {
            time: tm,
            frac_digits: p.frac_digits,
            truncated: p.truncated,
        });
    }
    let mut pos = 0;
    let read_num = |pos: &mut usize| -> Option<u64> {
        let st = *pos;
        while *pos < b.len() && b[*pos].is_ascii_digit() {
            *pos += 1;
        }
        if *pos == st || *pos - st > 12 {
            return None;
        }
        body[st..*pos].parse().ok()
    };
    let first = read_num(&mut pos)?;
    let (mut h, mut m, mut sec): (u64, u64, u64);
    let mut days = 0u64;
    let mut fields_after_colon = 0;
    if pos < b.len() && (b[pos] == b' ') && pos + 1 < b.len() && b[pos + 1].is_ascii_digit() {
        // "D hh[:mm[:ss]]"
        days = first;
        pos += 1;
        h = read_num(&mut pos)?;
        m = 0;
        sec = 0;
        if pos < b.len() && b[pos] == b':' {
            pos += 1;
            m = read_num(&mut pos)?;
            fields_after_colon = 1;
            if pos < b.len() && b[pos] == b':' {
                pos += 1;
                sec = read_num(&mut pos)?;
                fields_after_colon = 2;
            }
        }
    } else if pos < b.len() && b[pos] == b':' {
        h = first;
        pos += 1;
        m = read_num(&mut pos)?;
        sec = 0;
        fields_after_colon = 1;
        if pos < b.len() && b[pos] == b':' {
            pos += 1;
            sec = read_num(&mut pos)?;
            fields_after_colon = 2;
        }
    } else {
        // Compact hhmmss from the right.
        sec = first % 100;
        m = first / 100 % 100;
        h = first / 10_000;
        fields_after_colon = 2;
    }
    let _ = fields_after_colon;
    let mut micro = 0u32;
    let mut carry = false;
    let mut frac_digits = 0u8;
    if pos < b.len() && b[pos] == b'.' {
        let st = pos + 1;
        let mut e = st;
        while e < b.len() && b[e].is_ascii_digit() {
            e += 1;
        }
        let (mi, c) = parse_frac(&b[st..e]);
        micro = mi;
        carry = c;
        frac_digits = (e - st).min(6) as u8;
        pos = e;
    }
    let truncated_tail = pos < b.len();
    if m > 59 || sec > 59 {
        return None;
    }
    h += days * 24;
    let total = ((h.min(10_000_000) * 60 + m) * 60 + sec) as i64 * 1_000_000
        + micro as i64
        + if carry { 1_000_000 } else { 0 };
    let (us, clamped) = clamp_time_micros(if neg { -total } else { total });
    Some(ParsedTime {
        time: Time::from_micros(us),
        frac_digits,
        truncated: clamped || truncated_tail,
    })
}

/// Converts a number in `[-]hhmmss` layout to a TIME; `None` when minutes/seconds are out of
/// range. The flag is true when clamped to ±838:59:59.
pub fn time_from_number(n: i64, micro: u32) -> Option<(Time, bool)> {
    let neg = n < 0;
    let a = n.unsigned_abs();
    if a >= 10_000_000_000 {
        // A datetime number: take its time part.
        let (dt, _) = datetime_from_number(a as i64, micro)?;
        return Some((
            Time {
                neg: false,
                hour: dt.hour as u32,
                minute: dt.minute,
                second: dt.second,
                micro,
            },
            false,
        ));
    }
    let sec = a % 100;
    let min = a / 100 % 100;
    let h = a / 10_000;
    if sec > 59 || min > 59 {
        return None;
    }
    let total = ((h * 60 + min) * 60 + sec) as i64 * 1_000_000 + micro as i64;
    let (us, clamped) = clamp_time_micros(if neg { -total } else { total });
    Some((Time::from_micros(us), clamped))
}

/// English month names.
pub const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// English day names, Monday first.
pub const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_match_mysql() {
        assert_eq!(daynr(2007, 10, 7), 733_321); // TO_DAYS('2007-10-07')
        assert_eq!(daynr(2008, 10, 7), 733_687);
        assert_eq!(daynr(0, 1, 1), 1);
        assert_eq!(daynr(1, 1, 1), 366);
        assert_eq!(from_daynr(730_669), Some((2000, 7, 3))); // FROM_DAYS(730669)
        assert_eq!(from_daynr(365), None);
        for n in [366i64, 700_000, 733_321, 3_652_424] {
            let (y, m, d) = from_daynr(n).unwrap();
            assert_eq!(daynr(y, m, d), n);
        }
    }

    #[test]
    fn weekdays() {
        // 2024-01-01 was a Monday.
        assert_eq!(weekday(daynr(2024, 1, 1), false), 0);
        assert_eq!(weekday(daynr(2024, 1, 7), true), 0);
    }

    #[test]
    fn weeks() {
        assert_eq!(calc_week(2008, 2, 20, week_mode(0)).0, 7);
        assert_eq!(calc_week(2008, 2, 20, week_mode(1)).0, 8);
        assert_eq!(calc_week(2008, 12, 31, week_mode(1)).0, 53);
        assert_eq!(calc_week(2000, 1, 1, week_mode(0)).0, 0);
        assert_eq!(calc_week(2000, 1, 1, week_mode(2)), (52, 1999));
        assert_eq!(calc_week(1987, 1, 1, week_mode(0) | WEEK_YEAR), (52, 1986));
    }

    #[test]
    fn parse_datetimes() {
        let p = parse_datetime("2024-01-02 03:04:05.123").unwrap();
        assert_eq!(p.dt.fmt_datetime(3), "2024-01-02 03:04:05.123");
        assert!(p.has_time);
        assert_eq!(p.frac_digits, 3);
        let p = parse_datetime("2024-1-2 3:4:5").unwrap();
        assert_eq!(p.dt.fmt_datetime(0), "2024-01-02 03:04:05");
        let p = parse_datetime("20240102").unwrap();
        assert_eq!(p.dt.fmt_date(), "2024-01-02");
        assert!(!p.has_time);
        let p = parse_datetime("20240102030405").unwrap();
        assert_eq!(p.dt.fmt_datetime(0), "2024-01-02 03:04:05");
        let p = parse_datetime("98-12-31").unwrap();
        assert_eq!(p.dt.fmt_date(), "1998-12-31");
        let p = parse_datetime("2024/01/02T10:11:12").unwrap();
        assert_eq!(p.dt.fmt_datetime(0), "2024-01-02 10:11:12");
        assert!(parse_datetime("0000-00-00").unwrap().dt.is_zero());
        assert!(parse_datetime("2024-02-30").is_none());
        assert!(parse_datetime("2023-02-29").is_none());
        assert!(parse_datetime("2024-13-01").is_none());
        assert!(parse_datetime("abc").is_none());
        assert!(parse_datetime("2024-01-02x").unwrap().truncated);
        let p = parse_datetime("2024-12-31 23:59:59.9999995").unwrap();
        assert_eq!(p.dt.fmt_datetime(6), "2025-01-01 00:00:00.000000");
    }

    #[test]
    fn parse_times() {
        assert_eq!(parse_time("12:34:56").unwrap().time.fmt(0), "12:34:56");
        assert_eq!(parse_time("-838:59:59").unwrap().time.fmt(0), "-838:59:59");
        assert_eq!(parse_time("1 10:00:00").unwrap().time.fmt(0), "34:00:00");
        assert_eq!(parse_time("123456").unwrap().time.fmt(0), "12:34:56");
        assert_eq!(parse_time("1234").unwrap().time.fmt(0), "00:12:34");
        assert_eq!(parse_time("12:34").unwrap().time.fmt(0), "12:34:00");
        assert_eq!(parse_time("11:12:13.5").unwrap().time.fmt(1), "11:12:13.5");
        let p = parse_time("900:00:00").unwrap();
        assert!(p.truncated);
        assert_eq!(p.time.fmt(0), "838:59:59");
        assert_eq!(
            parse_time("2024-01-02 03:04:05").unwrap().time.fmt(0),
            "03:04:05"
        );
        assert!(parse_time("12:60:00").is_none());
        assert_eq!(time_from_number(123456, 0).unwrap().0.fmt(0), "12:34:56");
        assert_eq!(time_from_number(-1, 0).unwrap().0.fmt(0), "-00:00:01");
    }

    #[test]
    fn numbers_to_datetimes() {
        assert_eq!(
            datetime_from_number(20240102030405, 0)
                .unwrap()
                .0
                .fmt_datetime(0),
            "2024-01-02 03:04:05"
        );
        assert_eq!(
            datetime_from_number(20240102, 0).unwrap().0.fmt_date(),
            "2024-01-02"
        );
        assert_eq!(
            datetime_from_number(991231, 0).unwrap().0.fmt_date(),
            "1999-12-31"
        );
        assert_eq!(
            datetime_from_number(101, 0).unwrap().0.fmt_date(),
            "2000-01-01"
        );
        assert!(datetime_from_number(100, 0).is_none());
    }
}
