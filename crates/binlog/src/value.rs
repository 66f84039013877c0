//! [`RowValue`]: one column value of a row image, independent of the server's own value type,
//! with the structured temporal values it carries.

use std::fmt;

use crate::json::JsonValue;

/// A DATE value (zero parts allowed: `0000-00-00`, `2024-00-00`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Date {
    /// 0–9999.
    pub year: u16,
    /// 0–12.
    pub month: u8,
    /// 0–31.
    pub day: u8,
}

/// A TIME value: `[-]hours:minutes:seconds.micros`, hours up to 838.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Time {
    /// A negative duration.
    pub negative: bool,
    /// 0–838 (1023 representable).
    pub hours: u16,
    /// 0–59.
    pub minutes: u8,
    /// 0–59.
    pub seconds: u8,
    /// 0–999999.
    pub micros: u32,
}

/// A DATETIME value (zero dates allowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DateTime {
    /// The date part.
    pub date: Date,
    /// 0–23.
    pub hour: u8,
    /// 0–59.
    pub minute: u8,
    /// 0–59.
    pub second: u8,
    /// 0–999999.
    pub micros: u32,
}

/// A TIMESTAMP value: seconds since the Unix epoch in UTC (0 is the zero timestamp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Timestamp {
    /// Seconds since 1970-01-01 00:00:00 UTC.
    pub seconds: u32,
    /// 0–999999.
    pub micros: u32,
}

/// One column value of a row image, as the row event codec reads and writes it.
///
/// Which variants a column accepts depends on its type: integers take `Int`/`UInt` (decoded as
/// `Int` for signed and `UInt` for unsigned columns), DECIMAL takes `Decimal` (the decimal text,
/// decoded with exactly the column's scale, e.g. `"-12.340"`), CHAR/VARCHAR/BLOB/TEXT/GEOMETRY
/// take `Bytes` (text in the column's character set), ENUM takes the 1-based index, SET the
/// member bitmask, BIT the value right-aligned.
#[derive(Clone, Debug, PartialEq)]
pub enum RowValue {
    /// SQL NULL.
    Null,
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// DECIMAL as text.
    Decimal(String),
    /// YEAR (0 or 1901–2155).
    Year(u16),
    /// DATE.
    Date(Date),
    /// TIME.
    Time(Time),
    /// DATETIME.
    DateTime(DateTime),
    /// TIMESTAMP.
    Timestamp(Timestamp),
    /// A string or binary value.
    Bytes(Vec<u8>),
    /// JSON.
    Json(JsonValue),
    /// BIT.
    Bit(u64),
    /// ENUM index (0 is the empty error value).
    Enum(u16),
    /// SET bitmask.
    Set(u64),
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:02}:{:02}:{:02}",
            self.date, self.hour, self.minute, self.second
        )?;
        if self.micros != 0 {
            write!(f, ".{:06}", self.micros)?;
        }
        Ok(())
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.negative { "-" } else { "" };
        write!(
            f,
            "{sign}{:02}:{:02}:{:02}",
            self.hours, self.minutes, self.seconds
        )?;
        if self.micros != 0 {
            write!(f, ".{:06}", self.micros)?;
        }
        Ok(())
    }
}
