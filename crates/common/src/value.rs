//! [`Value`]: one SQL value at run time.

use std::fmt;

use crate::decimal::Decimal;

use crate::time::{DateTime, Time};

/// A runtime SQL value.
///
/// Text is always held as UTF-8 (`Str`); the connection converts from and to the client's
/// character set at the edge. Binary strings (BINARY/VARBINARY/BLOB, `_binary` literals, results of
/// binary functions) are `Bytes`. ENUM and SET values are carried as their string form; YEAR as
/// `Int`; BIT as `UInt`.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A signed integer.
    Int(i64),
    /// An unsigned integer (BIGINT UNSIGNED range).
    UInt(u64),
    /// A FLOAT column value (kept single precision so it prints as MySQL prints it).
    Float(f32),
    /// A DOUBLE value.
    Double(f64),
    /// An exact DECIMAL value; its scale is the number of printed fractional digits.
    Decimal(Decimal),
    /// A character string.
    Str(String),
    /// A binary string.
    Bytes(Vec<u8>),
    /// A DATE (time fields zero).
    Date(DateTime),
    /// A DATETIME or TIMESTAMP with its fractional-seconds precision.
    DateTime(DateTime, u8),
    /// A TIME with its fractional-seconds precision.
    Time(Time, u8),
}

impl Value {
    /// True for SQL NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The text-protocol rendering (what the `mariadb` client prints), `None` for NULL.
    pub fn to_text(&self) -> Option<Vec<u8>> {
        Some(match self {
            Value::Null => return None,
            Value::Bytes(b) => b.clone(),
            Value::Str(s) => s.as_bytes().to_vec(),
            other => other.to_string().into_bytes(),
        })
    }
}

/// Formats a double as MySQL does for DOUBLE results (shortest round-trip form, `1e20` style
/// exponent only for very large/small magnitudes).
pub fn format_double(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let abs = v.abs();
    if (1e-15..1e15).contains(&abs) {
        let s = format!("{v}");
        s
    } else {
        // MySQL prints e.g. 1e20, 1.5e-20
        // MySQL prints e.g. 1e20, 1.5e-20
        format!("{v:e}")
    }
}

/// Formats a float as MySQL does for FLOAT columns (shortest form that round-trips as f32).
pub fn format_float(v: f32) -> String {
    if v.is_finite() && v.abs() < 1e15 && (v == 0.0 || v.abs() >= 1e-15) {
        let s = format!("{v}");
        if s == "-0" {
            return "-0".into();
        }
        s
    } else {
        format_double(v as f64)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("NULL"),
            Value::Int(v) => write!(f, "{v}"),
            Value::UInt(v) => write!(f, "{v}"),
            Value::Float(v) => f.write_str(&format_float(*v)),
            Value::Double(v) => f.write_str(&format_double(*v)),
            Value::Decimal(d) => write!(f, "{d}"),
            Value::Str(s) => f.write_str(s),
            Value::Bytes(b) => f.write_str(&String::from_utf8_lossy(b)),
            Value::Date(d) => f.write_str(&d.fmt_date()),
            Value::DateTime(d, fsp) => f.write_str(&d.fmt_datetime(*fsp)),
            Value::Time(t, fsp) => f.write_str(&t.fmt(*fsp)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rendering() {
        assert_eq!(Value::Double(1.5).to_string(), "1.5");
        assert_eq!(Value::Double(1e20).to_string(), "1e20");
        assert_eq!(Value::Float(0.1).to_string(), "0.1");
        assert_eq!(Value::Decimal(Decimal::new(1050, 2)).to_string(), "10.50");
        assert_eq!(Value::Null.to_text(), None);
    }
}

#[cfg(test)]
mod size_tests {
    /// DECIMAL is boxed so a `Value` stays as small as the largest inline payload (a String).
    #[test]
    fn value_stays_small() {
        assert_eq!(std::mem::size_of::<super::Value>(), 32);
    }
}
