//! GTID_LOG_EVENT (and ANONYMOUS_GTID_LOG_EVENT): the transaction's GTID, logical clock,
//! commit timestamps, length and server versions, as MySQL 8.4 writes them.

use crate::bytes::{packed_size, put_packed, put_uint_le, Reader};
use crate::error::{BinlogError, Result};
use crate::gtid::{Uuid, MAX_GNO};

/// GTID flag: the transaction may contain statement-based events (set for DDL).
pub const FLAG_MAY_HAVE_SBR: u8 = 1;
/// The logical-timestamp type code.
const LOGICAL_TIMESTAMP_TYPECODE: u8 = 2;
/// Bit 55 of the 7-byte immediate timestamp: an original timestamp follows.
const ORIGINAL_TS_FLAG: u64 = 1 << 55;
/// Bit 31 of the immediate server version: an original version follows.
const ORIGINAL_VERSION_FLAG: u32 = 1 << 31;

/// GTID_LOG_EVENT.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GtidEvent {
    /// GTID flags ([`FLAG_MAY_HAVE_SBR`]); 0 for row-only transactions.
    pub flags: u8,
    /// The source UUID.
    pub uuid: Uuid,
    /// The transaction number (0 for anonymous GTIDs).
    pub gno: u64,
    /// Logical clock: the sequence number of the last transaction this one depends on.
    pub last_committed: i64,
    /// Logical clock: this transaction's number in the file (from 1).
    pub sequence_number: i64,
    /// Commit time on this server, microseconds since the epoch.
    pub immediate_commit_timestamp: u64,
    /// Commit time on the originating server (equal to the immediate one when local).
    pub original_commit_timestamp: u64,
    /// Bytes of the whole transaction, this event included.
    pub transaction_length: u64,
    /// This server's version as `XXYYZZ`.
    pub immediate_server_version: u32,
    /// The originating server's version.
    pub original_server_version: u32,
    /// Group replication's commit ticket, written only when set.
    pub commit_group_ticket: Option<u64>,
}

impl GtidEvent {
    /// Appends the event body.
    pub fn encode_body(&self, out: &mut Vec<u8>) {
        out.push(self.flags);
        out.extend_from_slice(self.uuid.as_bytes());
        put_uint_le(out, self.gno, 8);
        out.push(LOGICAL_TIMESTAMP_TYPECODE);
        put_uint_le(out, self.last_committed as u64, 8);
        put_uint_le(out, self.sequence_number as u64, 8);
        let imm = self.immediate_commit_timestamp & (ORIGINAL_TS_FLAG - 1);
        if self.immediate_commit_timestamp != self.original_commit_timestamp {
            put_uint_le(out, imm | ORIGINAL_TS_FLAG, 7);
            put_uint_le(out, self.original_commit_timestamp, 7);
        } else {
            put_uint_le(out, imm, 7);
        }
        put_packed(out, self.transaction_length);
        let imm = self.immediate_server_version & !ORIGINAL_VERSION_FLAG;
        if self.immediate_server_version != self.original_server_version {
            put_uint_le(out, u64::from(imm | ORIGINAL_VERSION_FLAG), 4);
            put_uint_le(out, u64::from(self.original_server_version), 4);
        } else {
            put_uint_le(out, u64::from(imm), 4);
        }
        if let Some(t) = self.commit_group_ticket {
            put_uint_le(out, t, 8);
        }
    }

    /// The body length [`GtidEvent::encode_body`] writes.
    pub fn body_len(&self) -> usize {
        let ts = if self.immediate_commit_timestamp != self.original_commit_timestamp {
            14
        } else {
            7
        };
        let ver = if self.immediate_server_version != self.original_server_version {
            8
        } else {
            4
        };
        42 + ts
            + packed_size(self.transaction_length)
            + ver
            + 8 * usize::from(self.commit_group_ticket.is_some())
    }

    /// Parses the body; fields missing at the end (older servers) keep their defaults.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed input.
    pub fn decode_body(body: &[u8], anonymous: bool) -> Result<Self> {
        const W: &str = "GTID event";
        let mut r = Reader::new(body);
        let mut ev = GtidEvent {
            flags: r.u8(W)?,
            ..GtidEvent::default()
        };
        let mut uuid = [0u8; 16];
        uuid.copy_from_slice(r.bytes(16, W)?);
        ev.uuid = Uuid(uuid);
        ev.gno = r.u64(W)?;
        let gno_ok = if anonymous {
            ev.gno == 0
        } else {
            (1..=MAX_GNO).contains(&ev.gno)
        };
        if !gno_ok {
            return Err(BinlogError::corrupt(W, format!("GNO {}", ev.gno)));
        }
        if r.is_empty() || r.u8(W)? != LOGICAL_TIMESTAMP_TYPECODE {
            return Ok(ev);
        }
        ev.last_committed = r.u64(W)? as i64;
        ev.sequence_number = r.u64(W)? as i64;
        if r.remaining() < 7 {
            return Ok(ev);
        }
        let imm = r.uint_le(7, W)?;
        ev.immediate_commit_timestamp = imm & (ORIGINAL_TS_FLAG - 1);
        ev.original_commit_timestamp = if imm & ORIGINAL_TS_FLAG != 0 {
            r.uint_le(7, W)?
        } else {
            ev.immediate_commit_timestamp
        };
        if r.is_empty() {
            return Ok(ev);
        }
        ev.transaction_length = r.packed(W)?;
        if r.remaining() < 4 {
            return Ok(ev);
        }
        let v = r.u32(W)?;
        ev.immediate_server_version = v & !ORIGINAL_VERSION_FLAG;
        ev.original_server_version = if v & ORIGINAL_VERSION_FLAG != 0 {
            r.u32(W)?
        } else {
            ev.immediate_server_version
        };
        if r.remaining() >= 8 {
            ev.commit_group_ticket = Some(r.u64(W)?);
        }
        Ok(ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> GtidEvent {
        GtidEvent {
            flags: 0,
            uuid: Uuid::parse("3e11fa47-71ca-11e1-9e33-c80aa9429562").unwrap(),
            gno: 42,
            last_committed: 3,
            sequence_number: 4,
            immediate_commit_timestamp: 1_700_000_000_123_456,
            original_commit_timestamp: 1_700_000_000_123_456,
            transaction_length: 300,
            immediate_server_version: 80403,
            original_server_version: 80403,
            commit_group_ticket: None,
        }
    }

    #[test]
    fn layout_local_transaction() {
        let ev = sample();
        let mut b = Vec::new();
        ev.encode_body(&mut b);
        // 42 post-header + 7 timestamp + 3 length (300 > 250) + 4 version.
        assert_eq!(b.len(), 56);
        assert_eq!(b.len(), ev.body_len());
        assert_eq!(b[0], 0);
        assert_eq!(&b[17..25], &42u64.to_le_bytes());
        assert_eq!(b[25], 2);
        assert_eq!(&b[26..34], &3u64.to_le_bytes());
        assert_eq!(&b[34..42], &4u64.to_le_bytes());
        assert_eq!(&b[42..49], &1_700_000_000_123_456u64.to_le_bytes()[..7]);
        assert_eq!(&b[49..52], &[252, 44, 1]);
        assert_eq!(&b[52..56], &80403u32.to_le_bytes());
        assert_eq!(GtidEvent::decode_body(&b, false).unwrap(), ev);
    }

    #[test]
    fn replicated_transaction_carries_originals() {
        let ev = GtidEvent {
            original_commit_timestamp: 1_600_000_000_000_000,
            original_server_version: 80036,
            commit_group_ticket: Some(9),
            transaction_length: 100,
            ..sample()
        };
        let mut b = Vec::new();
        ev.encode_body(&mut b);
        assert_eq!(b.len(), ev.body_len());
        assert_eq!(b[48] & 0x80, 0x80, "bit 55 of the immediate timestamp");
        assert_eq!(GtidEvent::decode_body(&b, false).unwrap(), ev);
    }

    #[test]
    fn decode_rejects_bad_input() {
        let mut b = Vec::new();
        sample().encode_body(&mut b);
        for n in 0..25 {
            assert!(GtidEvent::decode_body(&b[..n], false).is_err(), "{n}");
        }
        for n in 25..b.len() {
            let _ = GtidEvent::decode_body(&b[..n], false);
        }
        let mut zero = b.clone();
        zero[17..25].fill(0);
        assert!(GtidEvent::decode_body(&zero, false).is_err());
        assert!(GtidEvent::decode_body(&zero, true).is_ok());
    }
}
