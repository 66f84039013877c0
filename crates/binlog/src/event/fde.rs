//! FORMAT_DESCRIPTION_EVENT: binlog version, server version, header lengths per event type and
//! the checksum algorithm of the file.

use crate::bytes::{put_uint_le, Reader};
use crate::error::{BinlogError, Result};

/// Length of the zero-padded server version field.
const SERVER_VERSION_LEN: usize = 50;
/// Checksum algorithm byte: none.
pub const CHECKSUM_OFF: u8 = 0;
/// Checksum algorithm byte: CRC32 (MySQL 8.4's default `binlog_checksum`).
pub const CHECKSUM_CRC32: u8 = 1;

/// The post-header length of each event type 1..=42 that MySQL 8.4 writes (index = type - 1).
///
/// Quirk kept from MySQL: the TRANSACTION_PAYLOAD entry (type 40) holds 40, the enum value
/// MySQL's table lists instead of its header length.
pub const MYSQL_84_POST_HEADER_LENS: [u8; 42] = [
    0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 99, 0, 4, 26, 8, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 10,
    10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0, 0,
];

/// FORMAT_DESCRIPTION_EVENT, the first event of every binlog file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatDescriptionEvent {
    /// Always 4.
    pub binlog_version: u16,
    /// The server version string, e.g. `8.4.3-strata` (at most 49 bytes are kept).
    pub server_version: String,
    /// Seconds since the epoch when the server started, for the first file after a start;
    /// 0 in files opened by rotation.
    pub created: u32,
    /// The common header length (19).
    pub header_len: u8,
    /// Post-header length per event type (index = type - 1).
    pub post_header_lens: Vec<u8>,
    /// [`CHECKSUM_CRC32`] or [`CHECKSUM_OFF`].
    pub checksum_alg: u8,
}

impl FormatDescriptionEvent {
    /// The event MySQL 8.4 writes, for `server_version`, with CRC32 checksums.
    pub fn new(server_version: &str) -> Self {
        FormatDescriptionEvent {
            binlog_version: 4,
            server_version: server_version.to_string(),
            created: 0,
            header_len: 19,
            post_header_lens: MYSQL_84_POST_HEADER_LENS.to_vec(),
            checksum_alg: CHECKSUM_CRC32,
        }
    }

    /// Whether the events of this file carry a CRC32 footer.
    pub fn has_checksums(&self) -> bool {
        self.checksum_alg == CHECKSUM_CRC32
    }

    /// The server version as the integer `XXYYZZ` (8.4.3 → 80403), 0 when unparsable; MySQL
    /// writes it in GTID events.
    pub fn server_version_number(&self) -> u32 {
        version_number(&self.server_version)
    }

    /// Appends the body (everything between header and footer, the checksum byte included).
    pub fn encode_body(&self, out: &mut Vec<u8>) {
        put_uint_le(out, u64::from(self.binlog_version), 2);
        let mut ver = [0u8; SERVER_VERSION_LEN];
        let b = self.server_version.as_bytes();
        let n = b.len().min(SERVER_VERSION_LEN - 1);
        ver[..n].copy_from_slice(&b[..n]);
        out.extend_from_slice(&ver);
        put_uint_le(out, u64::from(self.created), 4);
        out.push(self.header_len);
        out.extend_from_slice(&self.post_header_lens);
        out.push(self.checksum_alg);
    }

    /// Parses the body of a FORMAT_DESCRIPTION_EVENT including the checksum algorithm byte (the
    /// 4-byte CRC, if any, already removed).
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed input.
    pub fn decode_body(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body);
        let binlog_version = r.u16("FORMAT_DESCRIPTION")?;
        if binlog_version != 4 {
            return Err(BinlogError::Unsupported(format!(
                "binlog version {binlog_version}"
            )));
        }
        let ver = r.bytes(SERVER_VERSION_LEN, "FORMAT_DESCRIPTION")?;
        let end = ver.iter().position(|&c| c == 0).unwrap_or(ver.len());
        let server_version = String::from_utf8_lossy(&ver[..end]).into_owned();
        let created = r.u32("FORMAT_DESCRIPTION")?;
        let header_len = r.u8("FORMAT_DESCRIPTION")?;
        if header_len != 19 {
            return Err(BinlogError::corrupt(
                "FORMAT_DESCRIPTION",
                format!("common header length {header_len}"),
            ));
        }
        let rest = r.rest();
        let (&checksum_alg, lens) = rest.split_last().ok_or(BinlogError::Truncated {
            what: "FORMAT_DESCRIPTION",
        })?;
        Ok(FormatDescriptionEvent {
            binlog_version,
            server_version,
            created,
            header_len,
            post_header_lens: lens.to_vec(),
            checksum_alg,
        })
    }
}

/// `X.Y.Z…` → `XXYYZZ`, 0 when the string does not start with a version.
pub fn version_number(version: &str) -> u32 {
    let mut parts = [0u32; 3];
    let mut it = version.split('.');
    for (i, p) in parts.iter_mut().enumerate() {
        let Some(s) = it.next() else { break };
        let digits: String = s.chars().take_while(|c| c.is_ascii_digit()).collect();
        match digits.parse::<u32>() {
            Ok(n) if n < 256 => *p = n,
            _ => return 0,
        }
        if i < 2 && digits.len() != s.len() {
            break;
        }
    }
    parts[0] * 10000 + parts[1] * 100 + parts[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_layout() {
        let fde = FormatDescriptionEvent::new("8.4.3-strata");
        let mut body = Vec::new();
        fde.encode_body(&mut body);
        // 2 + 50 + 4 + 1 + 42 post-header lengths + 1 checksum byte = 100; with the 19-byte
        // header and 4-byte CRC the event is 123 bytes and the next event starts at 127.
        assert_eq!(body.len(), 100);
        assert_eq!(&body[..2], &[4, 0]);
        assert_eq!(&body[2..14], b"8.4.3-strata");
        assert!(body[14..52].iter().all(|&b| b == 0));
        assert_eq!(body[56], 19);
        assert_eq!(body[57 + 14], 99, "FORMAT_DESCRIPTION post-header length");
        assert_eq!(body[57 + 32], 42, "GTID post-header length");
        assert_eq!(body[99], CHECKSUM_CRC32);
        assert_eq!(FormatDescriptionEvent::decode_body(&body).unwrap(), fde);
        assert_eq!(fde.server_version_number(), 80403);
    }

    #[test]
    fn versions() {
        assert_eq!(version_number("8.0.36-log"), 80036);
        assert_eq!(version_number("10.11.6-MariaDB"), 101106);
        assert_eq!(version_number("8.4"), 80400);
        assert_eq!(version_number("strata"), 0);
    }

    #[test]
    fn decode_rejects_truncated() {
        let mut body = Vec::new();
        FormatDescriptionEvent::new("8.4.3").encode_body(&mut body);
        for n in 0..58 {
            assert!(
                FormatDescriptionEvent::decode_body(&body[..n]).is_err(),
                "{n}"
            );
        }
        body[0] = 3;
        assert!(FormatDescriptionEvent::decode_body(&body).is_err());
    }
}
