//! A 16-byte UUID (a server's `server_uuid`, the source id of GTIDs), printed 8-4-4-4-12.

use std::fmt;
use std::str::FromStr;

use crate::error::{BinlogError, Result};

/// A UUID as MySQL stores it in GTID events: 16 bytes, printed lowercase `8-4-4-4-12`.
///
/// Ordering is bytewise, which is also the order of the printed text; MySQL prints GTID sets in
/// this order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Uuid(pub [u8; 16]);

impl Uuid {
    /// The all-zero UUID.
    pub const NIL: Uuid = Uuid([0; 16]);

    /// Parses `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, also accepting 32 hex digits without dashes
    /// and either form wrapped in braces, as MySQL does.
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] when the text is not a UUID.
    pub fn parse(text: &str) -> Result<Uuid> {
        let bad = || BinlogError::invalid(format!("malformed UUID '{text}'"));
        let t = text
            .strip_prefix('{')
            .and_then(|t| t.strip_suffix('}'))
            .unwrap_or(text);
        let hex: Vec<u8> = if t.len() == 36 {
            for (i, c) in t.bytes().enumerate() {
                if matches!(i, 8 | 13 | 18 | 23) != (c == b'-') {
                    return Err(bad());
                }
            }
            t.bytes().filter(|&c| c != b'-').collect()
        } else if t.len() == 32 {
            t.bytes().collect()
        } else {
            return Err(bad());
        };
        let mut out = [0u8; 16];
        for (i, pair) in hex.chunks(2).enumerate() {
            let hi = hex_val(pair[0]).ok_or_else(bad)?;
            let lo = hex_val(pair[1]).ok_or_else(bad)?;
            out[i] = hi << 4 | lo;
        }
        Ok(Uuid(out))
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Uuid({self})")
    }
}

impl FromStr for Uuid {
    type Err = BinlogError;
    fn from_str(s: &str) -> Result<Uuid> {
        Uuid::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_format() {
        let text = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
        let u = Uuid::parse(text).unwrap();
        assert_eq!(u.0[0], 0x3e);
        assert_eq!(u.0[15], 0x62);
        assert_eq!(u.to_string(), text);
        assert_eq!(
            Uuid::parse("3E11FA47-71CA-11E1-9E33-C80AA9429562").unwrap(),
            u
        );
        assert_eq!(Uuid::parse("3e11fa4771ca11e19e33c80aa9429562").unwrap(), u);
        assert_eq!(
            Uuid::parse("{3e11fa47-71ca-11e1-9e33-c80aa9429562}").unwrap(),
            u
        );
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "",
            "3e11fa47-71ca-11e1-9e33-c80aa942956",
            "3e11fa47-71ca-11e1-9e33xc80aa9429562",
            "3e11fa4771ca-11e1-9e33-c80aa9429562-",
            "zz11fa47-71ca-11e1-9e33-c80aa9429562",
            "é11fa47-71ca-11e1-9e33-c80aa9429562",
        ] {
            assert!(Uuid::parse(bad).is_err(), "{bad}");
        }
    }
}
