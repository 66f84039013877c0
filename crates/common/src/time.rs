//! MySQL temporal values. MySQL allows zero dates (`0000-00-00`) and zero parts, and TIME spans
//! ±838:59:59, so these are plain field structs rather than `chrono` types; the SQL layer converts
//! to `chrono` where it needs calendar arithmetic.

use serde::{Deserialize, Serialize};

/// A DATE, DATETIME or TIMESTAMP value (a DATE has zero time fields).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
pub struct DateTime {
    /// 0..=9999
    pub year: u16,
    /// 0..=12
    pub month: u8,
    /// 0..=31
    pub day: u8,
    /// 0..=23
    pub hour: u8,
    /// 0..=59
    pub minute: u8,
    /// 0..=59
    pub second: u8,
    /// 0..=999_999
    pub micro: u32,
}

impl DateTime {
    /// A date at midnight.
    pub fn date(year: u16, month: u8, day: u8) -> Self {
        DateTime {
            year,
            month,
            day,
            ..Default::default()
        }
    }

    /// True for `0000-00-00 00:00:00`.
    pub fn is_zero(&self) -> bool {
        *self == DateTime::default()
    }

    /// Only the date part.
    pub fn date_part(&self) -> Self {
        DateTime::date(self.year, self.month, self.day)
    }

    /// Renders as `YYYY-MM-DD`.
    pub fn fmt_date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// Renders as `YYYY-MM-DD hh:mm:ss[.ffffff]` with `fsp` fractional digits.
    pub fn fmt_datetime(&self, fsp: u8) -> String {
        let mut s = format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        );
        push_fraction(&mut s, self.micro, fsp);
        s
    }

    /// Packs into a u64 that orders like the value (used by key codecs).
    pub fn to_packed(&self) -> u64 {
        let ymd = (self.year as u64 * 13 + self.month as u64) << 5 | self.day as u64;
        let hms = (self.hour as u64) << 12 | (self.minute as u64) << 6 | self.second as u64;
        ((ymd << 17 | hms) << 24) | self.micro as u64
    }

    /// Inverse of [`DateTime::to_packed`].
    pub fn from_packed(p: u64) -> Self {
        let micro = (p & 0xFF_FFFF) as u32;
        let ymdhms = p >> 24;
        let hms = ymdhms & 0x1FFFF;
        let ymd = ymdhms >> 17;
        let day = (ymd & 31) as u8;
        let ym = ymd >> 5;
        DateTime {
            year: (ym / 13) as u16,
            month: (ym % 13) as u8,
            day,
            hour: (hms >> 12) as u8,
            minute: ((hms >> 6) & 63) as u8,
            second: (hms & 63) as u8,
            micro,
        }
    }
}

/// A TIME value: a signed duration of at most 838:59:59.999999.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub struct Time {
    /// True for a negative duration.
    pub neg: bool,
    /// 0..=838
    pub hour: u32,
    /// 0..=59
    pub minute: u8,
    /// 0..=59
    pub second: u8,
    /// 0..=999_999
    pub micro: u32,
}

impl Time {
    /// Largest TIME value in microseconds (838:59:59.000000); larger values are clamped to it.
    pub const MAX_MICROS: i64 = ((838 * 60 + 59) * 60 + 59) * 1_000_000;

    /// Total microseconds, signed.
    pub fn to_micros(&self) -> i64 {
        let v = ((self.hour as i64 * 60 + self.minute as i64) * 60 + self.second as i64)
            * 1_000_000
            + self.micro as i64;
        if self.neg {
            -v
        } else {
            v
        }
    }

    /// From signed microseconds (not clamped).
    pub fn from_micros(v: i64) -> Self {
        let neg = v < 0;
        let a = v.unsigned_abs();
        let micro = (a % 1_000_000) as u32;
        let s = a / 1_000_000;
        Time {
            neg,
            hour: (s / 3600) as u32,
            minute: ((s / 60) % 60) as u8,
            second: (s % 60) as u8,
            micro,
        }
    }

    /// Renders as `[-]hh:mm:ss[.ffffff]`.
    pub fn fmt(&self, fsp: u8) -> String {
        let mut s = format!(
            "{}{:02}:{:02}:{:02}",
            if self.neg { "-" } else { "" },
            self.hour,
            self.minute,
            self.second
        );
        push_fraction(&mut s, self.micro, fsp);
        s
    }
}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Time {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.to_micros().cmp(&other.to_micros())
    }
}

fn push_fraction(s: &mut String, micro: u32, fsp: u8) {
    if fsp > 0 {
        let frac = format!("{micro:06}");
        s.push('.');
        s.push_str(&frac[..fsp.min(6) as usize]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_roundtrip_and_order() {
        let a = DateTime {
            year: 2024,
            month: 2,
            day: 29,
            hour: 23,
            minute: 59,
            second: 58,
            micro: 7,
        };
        let b = DateTime {
            year: 2024,
            month: 3,
            day: 1,
            ..Default::default()
        };
        assert_eq!(DateTime::from_packed(a.to_packed()), a);
        assert!(a.to_packed() < b.to_packed());
        assert_eq!(a.fmt_datetime(3), "2024-02-29 23:59:58.000");
    }

    #[test]
    fn time_micros() {
        let t = Time {
            neg: true,
            hour: 838,
            minute: 59,
            second: 59,
            micro: 0,
        };
        assert_eq!(Time::from_micros(t.to_micros()), t);
        assert_eq!(t.fmt(0), "-838:59:59");
    }
}
