//! Temporal row values: DATE, YEAR, the fractional-second types TIME2/DATETIME2/TIMESTAMP2
//! (big-endian packed integers plus 0–3 fraction bytes) and the pre-5.6 TIME/DATETIME/TIMESTAMP.

use crate::bytes::{put_uint_be, put_uint_le, Reader};
use crate::error::{BinlogError, Result};
use crate::value::{Date, DateTime, Time, Timestamp};

/// Offset added to DATETIME2's 5-byte integer part (`DATETIMEF_INT_OFS`).
const DATETIMEF_INT_OFS: i64 = 0x80_0000_0000;
/// Offset added to TIME2's 3-byte integer part (`TIMEF_INT_OFS`).
const TIMEF_INT_OFS: i64 = 0x80_0000;
/// Offset added to TIME2's 6-byte form for fsp 5–6 (`TIMEF_OFS`).
const TIMEF_OFS: i64 = 0x8000_0000_0000;

fn check_fsp(fsp: u8) -> Result<()> {
    if fsp > 6 {
        return Err(BinlogError::corrupt(
            "temporal metadata",
            format!("fsp {fsp}"),
        ));
    }
    Ok(())
}

/// Bytes of the fractional part for `fsp`.
pub fn frac_bytes(fsp: u8) -> usize {
    usize::from(fsp).div_ceil(2)
}

/// The stored fraction unit for `fsp`: the value written is `micros / unit`.
fn frac_unit(fsp: u8) -> u32 {
    match fsp {
        1 | 2 => 10_000,
        3 | 4 => 100,
        _ => 1,
    }
}

fn put_frac(out: &mut Vec<u8>, micros: u32, fsp: u8) {
    let n = frac_bytes(fsp);
    if n > 0 {
        put_uint_be(out, u64::from(micros / frac_unit(fsp)), n);
    }
}

fn read_frac(r: &mut Reader<'_>, fsp: u8) -> Result<u32> {
    let n = frac_bytes(fsp);
    if n == 0 {
        return Ok(0);
    }
    let v = r.uint_be(n, "fractional seconds")? as u32;
    let micros = v * frac_unit(fsp);
    if micros > 999_999 {
        return Err(BinlogError::corrupt("fractional seconds", format!("{v}")));
    }
    Ok(micros)
}

fn check_date(d: &Date) -> Result<()> {
    if d.year > 9999 || d.month > 12 || d.day > 31 {
        return Err(BinlogError::invalid(format!("bad date {d}")));
    }
    Ok(())
}

/// DATE: 3 bytes little-endian `day | month << 5 | year << 9`.
pub fn encode_date(d: &Date, out: &mut Vec<u8>) -> Result<()> {
    check_date(d)?;
    let v = u64::from(d.day) | u64::from(d.month) << 5 | u64::from(d.year) << 9;
    put_uint_le(out, v, 3);
    Ok(())
}

/// Reads a DATE.
pub fn decode_date(r: &mut Reader<'_>) -> Result<Date> {
    let v = r.uint_le(3, "DATE value")?;
    let d = Date {
        year: (v >> 9) as u16,
        month: ((v >> 5) & 15) as u8,
        day: (v & 31) as u8,
    };
    check_date(&d).map_err(|_| BinlogError::corrupt("DATE value", format!("{d}")))?;
    Ok(d)
}

/// YEAR: one byte, `year - 1900`, 0 for the zero year.
pub fn encode_year(year: u16, out: &mut Vec<u8>) -> Result<()> {
    match year {
        0 => out.push(0),
        1901..=2155 => out.push((year - 1900) as u8),
        _ => return Err(BinlogError::invalid(format!("YEAR {year} out of range"))),
    }
    Ok(())
}

/// Reads a YEAR.
pub fn decode_year(r: &mut Reader<'_>) -> Result<u16> {
    Ok(match r.u8("YEAR value")? {
        0 => 0,
        b => 1900 + u16::from(b),
    })
}

fn check_hms(hour: u32, minute: u8, second: u8, micros: u32, max_hour: u32) -> Result<()> {
    if hour > max_hour || minute > 59 || second > 59 || micros > 999_999 {
        return Err(BinlogError::invalid(format!(
            "bad time {hour}:{minute}:{second}.{micros}"
        )));
    }
    Ok(())
}

/// DATETIME2(fsp): 5 bytes big-endian of `((year*13+month) << 22 | day << 17 | hour << 12 |
/// minute << 6 | second) + 0x8000000000`, then the fraction.
pub fn encode_datetime2(dt: &DateTime, fsp: u8, out: &mut Vec<u8>) -> Result<()> {
    check_fsp(fsp).map_err(|e| BinlogError::invalid(e.to_string()))?;
    check_date(&dt.date)?;
    check_hms(u32::from(dt.hour), dt.minute, dt.second, dt.micros, 23)?;
    let ym = i64::from(dt.date.year) * 13 + i64::from(dt.date.month);
    let ymd = ym << 5 | i64::from(dt.date.day);
    let hms = i64::from(dt.hour) << 12 | i64::from(dt.minute) << 6 | i64::from(dt.second);
    put_uint_be(out, (DATETIMEF_INT_OFS + (ymd << 17 | hms)) as u64, 5);
    put_frac(out, dt.micros, fsp);
    Ok(())
}

/// Reads a DATETIME2(fsp).
pub fn decode_datetime2(r: &mut Reader<'_>, fsp: u8) -> Result<DateTime> {
    check_fsp(fsp)?;
    let int = r.uint_be(5, "DATETIME2 value")? as i64 - DATETIMEF_INT_OFS;
    let micros = read_frac(r, fsp)?;
    if int < 0 {
        return Err(BinlogError::corrupt("DATETIME2 value", "negative"));
    }
    let (ymd, hms) = (int >> 17, int & 0x1_ffff);
    let ym = ymd >> 5;
    let dt = DateTime {
        date: Date {
            year: (ym / 13) as u16,
            month: (ym % 13) as u8,
            day: (ymd & 31) as u8,
        },
        hour: (hms >> 12) as u8,
        minute: ((hms >> 6) & 63) as u8,
        second: (hms & 63) as u8,
        micros,
    };
    check_date(&dt.date)
        .and_then(|_| check_hms((hms >> 12) as u32, dt.minute, dt.second, 0, 23))
        .map_err(|_| BinlogError::corrupt("DATETIME2 value", format!("{dt}")))?;
    Ok(dt)
}

/// TIMESTAMP2(fsp): 4 bytes big-endian seconds since the epoch, then the fraction.
pub fn encode_timestamp2(ts: &Timestamp, fsp: u8, out: &mut Vec<u8>) -> Result<()> {
    check_fsp(fsp).map_err(|e| BinlogError::invalid(e.to_string()))?;
    if ts.micros > 999_999 {
        return Err(BinlogError::invalid(format!(
            "bad microseconds {}",
            ts.micros
        )));
    }
    put_uint_be(out, u64::from(ts.seconds), 4);
    put_frac(out, ts.micros, fsp);
    Ok(())
}

/// Reads a TIMESTAMP2(fsp).
pub fn decode_timestamp2(r: &mut Reader<'_>, fsp: u8) -> Result<Timestamp> {
    check_fsp(fsp)?;
    let seconds = r.uint_be(4, "TIMESTAMP2 value")? as u32;
    Ok(Timestamp {
        seconds,
        micros: read_frac(r, fsp)?,
    })
}

/// TIME2(fsp): the packed time `±(hms << 24 | micros)` (`hms = hours << 12 | minutes << 6 |
/// seconds`) stored as MySQL's `my_time_packed_to_binary` does; negative values with a
/// fraction borrow from the integer part.
pub fn encode_time2(t: &Time, fsp: u8, out: &mut Vec<u8>) -> Result<()> {
    check_fsp(fsp).map_err(|e| BinlogError::invalid(e.to_string()))?;
    check_hms(u32::from(t.hours), t.minutes, t.seconds, t.micros, 1023)?;
    let hms = i64::from(t.hours) << 12 | i64::from(t.minutes) << 6 | i64::from(t.seconds);
    let micros = i64::from(t.micros / frac_unit(fsp) * frac_unit(fsp));
    let mut nr = hms << 24 | micros;
    if t.negative {
        nr = -nr;
    }
    match fsp {
        0 => put_uint_be(out, (TIMEF_INT_OFS + (nr >> 24)) as u64, 3),
        1..=4 => {
            put_uint_be(out, (TIMEF_INT_OFS + (nr >> 24)) as u64, 3);
            // C's truncating remainder keeps the sign; the fraction is stored two's-complement.
            let frac = (nr % (1 << 24)) / i64::from(frac_unit(fsp));
            put_uint_be(out, frac as u64, frac_bytes(fsp));
        }
        _ => put_uint_be(out, (nr + TIMEF_OFS) as u64, 6),
    }
    Ok(())
}

/// Reads a TIME2(fsp).
pub fn decode_time2(r: &mut Reader<'_>, fsp: u8) -> Result<Time> {
    check_fsp(fsp)?;
    let nr = match fsp {
        0 => (r.uint_be(3, "TIME2 value")? as i64 - TIMEF_INT_OFS) << 24,
        1..=4 => {
            let mut int = r.uint_be(3, "TIME2 value")? as i64 - TIMEF_INT_OFS;
            let n = frac_bytes(fsp);
            let mut frac = r.uint_be(n, "TIME2 fraction")? as i64;
            if int < 0 && frac != 0 {
                int += 1;
                frac -= 1 << (8 * n);
            }
            (int << 24) + frac * i64::from(frac_unit(fsp))
        }
        _ => r.uint_be(6, "TIME2 value")? as i64 - TIMEF_OFS,
    };
    let abs = nr.unsigned_abs();
    let (hms, micros) = (abs >> 24, (abs & 0xff_ffff) as u32);
    let t = Time {
        negative: nr < 0,
        hours: ((hms >> 12) & 0x3ff) as u16,
        minutes: ((hms >> 6) & 63) as u8,
        seconds: (hms & 63) as u8,
        micros,
    };
    if hms >> 22 != 0 {
        return Err(BinlogError::corrupt("TIME2 value", format!("{nr}")));
    }
    check_hms(0, t.minutes, t.seconds, t.micros, 0)
        .map_err(|_| BinlogError::corrupt("TIME2 value", format!("{t}")))?;
    Ok(t)
}

/// Old TIME: 3 bytes little-endian signed `hhmmss`.
pub fn encode_time_old(t: &Time, out: &mut Vec<u8>) -> Result<()> {
    check_hms(u32::from(t.hours), t.minutes, t.seconds, 0, 838)?;
    let v = i64::from(t.hours) * 10000 + i64::from(t.minutes) * 100 + i64::from(t.seconds);
    put_uint_le(out, (if t.negative { -v } else { v }) as u64, 3);
    Ok(())
}

/// Reads an old TIME.
pub fn decode_time_old(r: &mut Reader<'_>) -> Result<Time> {
    let raw = r.uint_le(3, "TIME value")? as i64;
    let v = if raw & 0x80_0000 != 0 {
        raw - (1 << 24)
    } else {
        raw
    };
    let a = v.unsigned_abs();
    Ok(Time {
        negative: v < 0,
        hours: (a / 10000) as u16,
        minutes: (a / 100 % 100) as u8,
        seconds: (a % 100) as u8,
        micros: 0,
    })
}

/// Old DATETIME: 8 bytes little-endian `YYYYMMDDhhmmss`.
pub fn encode_datetime_old(dt: &DateTime, out: &mut Vec<u8>) -> Result<()> {
    check_date(&dt.date)?;
    check_hms(u32::from(dt.hour), dt.minute, dt.second, 0, 23)?;
    let d =
        u64::from(dt.date.year) * 10000 + u64::from(dt.date.month) * 100 + u64::from(dt.date.day);
    let t = u64::from(dt.hour) * 10000 + u64::from(dt.minute) * 100 + u64::from(dt.second);
    put_uint_le(out, d * 1_000_000 + t, 8);
    Ok(())
}

/// Reads an old DATETIME.
pub fn decode_datetime_old(r: &mut Reader<'_>) -> Result<DateTime> {
    let v = r.u64("DATETIME value")?;
    let (d, t) = (v / 1_000_000, v % 1_000_000);
    let dt = DateTime {
        date: Date {
            year: (d / 10000).min(u64::from(u16::MAX)) as u16,
            month: (d / 100 % 100) as u8,
            day: (d % 100) as u8,
        },
        hour: (t / 10000) as u8,
        minute: (t / 100 % 100) as u8,
        second: (t % 100) as u8,
        micros: 0,
    };
    check_date(&dt.date).map_err(|_| BinlogError::corrupt("DATETIME value", format!("{v}")))?;
    Ok(dt)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> DateTime {
        DateTime {
            date: Date {
                year: y,
                month: mo,
                day: d,
            },
            hour: h,
            minute: mi,
            second: s,
            micros: us,
        }
    }

    #[test]
    fn datetime2_known_bytes() {
        // 2024-01-02 03:04:05: ym = 2024*13+1 = 26313; packed = 26313<<22 | 2<<17 | 3<<12 |
        // 4<<6 | 5 = 0x19B2443105, plus 0x8000000000.
        let mut out = Vec::new();
        encode_datetime2(&dt(2024, 1, 2, 3, 4, 5, 0), 0, &mut out).unwrap();
        assert_eq!(out, [0x99, 0xB2, 0x44, 0x31, 0x05]);
        // fsp 3: .123 stored as 1230 (micros / 100) in 2 bytes.
        out.clear();
        encode_datetime2(&dt(2024, 1, 2, 3, 4, 5, 123_000), 3, &mut out).unwrap();
        assert_eq!(out, [0x99, 0xB2, 0x44, 0x31, 0x05, 0x04, 0xCE]);
        // The zero datetime.
        out.clear();
        encode_datetime2(&DateTime::default(), 0, &mut out).unwrap();
        assert_eq!(out, [0x80, 0, 0, 0, 0]);
    }

    #[test]
    fn datetime2_round_trips() {
        for fsp in 0..=6u8 {
            let unit = 10u32.pow(6 - u32::from(fsp));
            for v in [
                dt(2024, 2, 29, 23, 59, 59, 999_999 / unit * unit),
                dt(0, 0, 0, 0, 0, 0, 0),
                dt(1000, 1, 1, 0, 0, 0, 0),
                dt(9999, 12, 31, 12, 30, 1, 500_000 / unit * unit),
                dt(2020, 0, 0, 1, 2, 3, 0),
            ] {
                let mut out = Vec::new();
                encode_datetime2(&v, fsp, &mut out).unwrap();
                assert_eq!(out.len(), 5 + frac_bytes(fsp));
                assert_eq!(decode_datetime2(&mut Reader::new(&out), fsp).unwrap(), v);
            }
        }
    }

    #[test]
    fn time2_known_bytes() {
        // 00:00:00 = 0x800000; -00:00:00.5 with fsp 1 borrows: 0x7fffff, fraction -50 = 0xce.
        let t = |neg, h, m, s, us| Time {
            negative: neg,
            hours: h,
            minutes: m,
            seconds: s,
            micros: us,
        };
        let mut out = Vec::new();
        encode_time2(&t(false, 0, 0, 0, 0), 0, &mut out).unwrap();
        assert_eq!(out, [0x80, 0, 0]);
        out.clear();
        encode_time2(&t(true, 0, 0, 0, 500_000), 1, &mut out).unwrap();
        assert_eq!(out, [0x7f, 0xff, 0xff, 0xce]);
        // 838:59:59 = 838<<12 | 59<<6 | 59 = 0x346efb.
        out.clear();
        encode_time2(&t(false, 838, 59, 59, 0), 0, &mut out).unwrap();
        assert_eq!(out, [0xb4, 0x6e, 0xfb]);
        out.clear();
        encode_time2(&t(true, 838, 59, 59, 0), 0, &mut out).unwrap();
        assert_eq!(out, [0x4b, 0x91, 0x05]);
    }

    #[test]
    fn time2_round_trips() {
        for fsp in 0..=6u8 {
            let unit = 10u32.pow(6 - u32::from(fsp));
            for neg in [false, true] {
                for (h, m, s, us) in [
                    (0, 0, 0, 0),
                    (0, 0, 0, 1),
                    (1, 2, 3, 456_789),
                    (838, 59, 59, 999_999),
                    (12, 0, 0, 500_000),
                ] {
                    let micros = us / unit * unit;
                    let v = Time {
                        negative: neg && (h, m, s, micros) != (0, 0, 0, 0),
                        hours: h,
                        minutes: m,
                        seconds: s,
                        micros,
                    };
                    let mut out = Vec::new();
                    encode_time2(&v, fsp, &mut out).unwrap();
                    assert_eq!(out.len(), 3 + frac_bytes(fsp));
                    assert_eq!(
                        decode_time2(&mut Reader::new(&out), fsp).unwrap(),
                        v,
                        "fsp {fsp}"
                    );
                }
            }
        }
    }

    #[test]
    fn other_temporal_round_trips() {
        for d in [
            Date::default(),
            Date {
                year: 2024,
                month: 12,
                day: 31,
            },
            Date {
                year: 9999,
                month: 0,
                day: 0,
            },
        ] {
            let mut out = Vec::new();
            encode_date(&d, &mut out).unwrap();
            assert_eq!(decode_date(&mut Reader::new(&out)).unwrap(), d);
        }
        let mut out = Vec::new();
        encode_date(
            &Date {
                year: 2024,
                month: 1,
                day: 2,
            },
            &mut out,
        )
        .unwrap();
        assert_eq!(out, [0x22, 0xd0, 0x0f]); // 2 | 1<<5 | 2024<<9 = 0x0fd022
        for y in [0u16, 1901, 2024, 2155] {
            let mut out = Vec::new();
            encode_year(y, &mut out).unwrap();
            assert_eq!(decode_year(&mut Reader::new(&out)).unwrap(), y);
        }
        assert!(encode_year(1900, &mut Vec::new()).is_err());
        for fsp in [0, 3, 6] {
            let ts = Timestamp {
                seconds: 1_700_000_000,
                micros: if fsp == 0 { 0 } else { 123_000 },
            };
            let mut out = Vec::new();
            encode_timestamp2(&ts, fsp, &mut out).unwrap();
            assert_eq!(decode_timestamp2(&mut Reader::new(&out), fsp).unwrap(), ts);
        }
        let v = dt(2001, 2, 3, 4, 5, 6, 0);
        let mut out = Vec::new();
        encode_datetime_old(&v, &mut out).unwrap();
        assert_eq!(decode_datetime_old(&mut Reader::new(&out)).unwrap(), v);
        let t = Time {
            negative: true,
            hours: 800,
            minutes: 1,
            seconds: 2,
            micros: 0,
        };
        out.clear();
        encode_time_old(&t, &mut out).unwrap();
        assert_eq!(decode_time_old(&mut Reader::new(&out)).unwrap(), t);
    }

    #[test]
    fn decoders_reject_truncated_and_corrupt() {
        for fsp in 0..=6 {
            for n in 0..(5 + frac_bytes(fsp)) {
                let buf = vec![0x99; n];
                assert!(decode_datetime2(&mut Reader::new(&buf), fsp).is_err());
            }
            let short = vec![0x80; 2 + frac_bytes(fsp)];
            assert!(decode_time2(&mut Reader::new(&short), fsp).is_err());
        }
        assert!(decode_datetime2(&mut Reader::new(&[0xff; 8]), 6).is_err());
        assert!(decode_datetime2(&mut Reader::new(&[0x00; 5]), 0).is_err());
        assert!(decode_time2(&mut Reader::new(&[0x80, 0, 0x3b]), 0).is_ok());
        assert!(decode_time2(&mut Reader::new(&[0x80, 0, 0x3f]), 0).is_err());
        assert!(decode_time2(&mut Reader::new(&[0x80, 0, 0x3f, 0xff]), 1).is_err());
        assert!(decode_date(&mut Reader::new(&[0xff, 0xff, 0xff])).is_err());
        assert!(decode_datetime2(&mut Reader::new(&[0x80, 0, 0, 0, 0]), 7).is_err());
    }
}
