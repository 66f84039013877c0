//! Small control events: XID, ROTATE, HEARTBEAT (STOP has no body, PREVIOUS_GTIDS is a
//! [`crate::GtidSet`]).

use crate::bytes::{put_uint_le, Reader};
use crate::error::{BinlogError, Result};

/// ROTATE_EVENT: the next file and the position to continue at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RotateEvent {
    /// Position in the next file (4 when starting it from the top).
    pub position: u64,
    /// The next file's name, e.g. `binlog.000002`.
    pub next_file: String,
}

impl RotateEvent {
    /// Appends the body: 8-byte position then the file name without terminator.
    pub fn encode_body(&self, out: &mut Vec<u8>) {
        put_uint_le(out, self.position, 8);
        out.extend_from_slice(self.next_file.as_bytes());
    }

    /// Parses the body.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed input.
    pub fn decode_body(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body);
        let position = r.u64("ROTATE event")?;
        let name = r.rest();
        if name.is_empty() {
            return Err(BinlogError::corrupt("ROTATE event", "empty file name"));
        }
        Ok(RotateEvent {
            position,
            next_file: String::from_utf8_lossy(name).into_owned(),
        })
    }
}

/// Appends an XID event body: the 8-byte transaction id.
pub fn encode_xid(xid: u64, out: &mut Vec<u8>) {
    put_uint_le(out, xid, 8);
}

/// Parses an XID event body.
///
/// # Errors
/// [`BinlogError::Truncated`] when shorter than 8 bytes.
pub fn decode_xid(body: &[u8]) -> Result<u64> {
    Reader::new(body).u64("XID event")
}

/// Parses a HEARTBEAT_LOG_EVENT body: the current binlog file name (the header's `log_pos` is
/// the current position).
///
/// # Errors
/// [`BinlogError::Corrupt`] for an empty name.
pub fn decode_heartbeat(body: &[u8]) -> Result<String> {
    if body.is_empty() {
        return Err(BinlogError::corrupt("HEARTBEAT event", "empty file name"));
    }
    Ok(String::from_utf8_lossy(body).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotate_and_xid() {
        let r = RotateEvent {
            position: 4,
            next_file: "binlog.000002".into(),
        };
        let mut b = Vec::new();
        r.encode_body(&mut b);
        assert_eq!(&b[..8], &[4, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&b[8..], b"binlog.000002");
        assert_eq!(RotateEvent::decode_body(&b).unwrap(), r);
        assert!(RotateEvent::decode_body(&b[..8]).is_err());
        assert!(RotateEvent::decode_body(&b[..5]).is_err());
        let mut x = Vec::new();
        encode_xid(0x0102, &mut x);
        assert_eq!(x, [2, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(decode_xid(&x).unwrap(), 0x0102);
        assert!(decode_xid(&x[..7]).is_err());
        assert!(decode_heartbeat(b"").is_err());
        assert_eq!(decode_heartbeat(b"binlog.000001").unwrap(), "binlog.000001");
    }
}
