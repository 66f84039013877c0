//! Event framing: the 19-byte v4 common header, the CRC32 footer, the file magic, and
//! re-stamping an encoded event's `log_pos`.

use crate::bytes::{put_uint_le, uint_le};
use crate::error::{BinlogError, Result};

/// The 4 bytes every binlog file starts with.
pub const BINLOG_MAGIC: [u8; 4] = [0xfe, b'b', b'i', b'n'];
/// Length of the v4 common header.
pub const HEADER_LEN: usize = 19;
/// Length of the CRC32 footer.
pub const CHECKSUM_LEN: usize = 4;
/// Offset of `log_pos` in the common header.
const LOG_POS_OFFSET: usize = 13;
/// Offset of `flags` in the common header.
const FLAGS_OFFSET: usize = 17;
/// Type code of FORMAT_DESCRIPTION_EVENT (its checksum ignores the in-use flag).
const FDE_TYPE: u8 = 15;

/// Common-header flag bits.
pub mod flags {
    /// Set in a file's FORMAT_DESCRIPTION while the file is open for writing; cleared on close.
    pub const BINLOG_IN_USE: u16 = 0x1;
    /// Events a replica should not apply (fake ROTATE, heartbeats).
    pub const ARTIFICIAL: u16 = 0x20;
    /// An event a reader may skip if it does not know its type.
    pub const IGNORABLE: u16 = 0x80;
}

/// The common header of a v4 event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EventHeader {
    /// Seconds since the epoch when the statement started.
    pub timestamp: u32,
    /// The event type code.
    pub type_code: u8,
    /// The originating server's `server_id`.
    pub server_id: u32,
    /// Total length including header and checksum.
    pub event_size: u32,
    /// The file position of the next event (0 when not positioned).
    pub log_pos: u32,
    /// [`flags`] bits.
    pub flags: u16,
}

impl EventHeader {
    /// Parses the first [`HEADER_LEN`] bytes of `bytes`.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] when fewer than 19 bytes are given; [`BinlogError::Corrupt`]
    /// when `event_size` is smaller than a header.
    pub fn decode(bytes: &[u8]) -> Result<EventHeader> {
        let h = bytes.get(..HEADER_LEN).ok_or(BinlogError::Truncated {
            what: "event header",
        })?;
        let header = EventHeader {
            timestamp: uint_le(&h[0..4]) as u32,
            type_code: h[4],
            server_id: uint_le(&h[5..9]) as u32,
            event_size: uint_le(&h[9..13]) as u32,
            log_pos: uint_le(&h[13..17]) as u32,
            flags: uint_le(&h[17..19]) as u16,
        };
        if (header.event_size as usize) < HEADER_LEN {
            return Err(BinlogError::corrupt(
                "event header",
                format!("event size {}", header.event_size),
            ));
        }
        Ok(header)
    }

    /// Appends the 19 header bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        put_uint_le(out, u64::from(self.timestamp), 4);
        out.push(self.type_code);
        put_uint_le(out, u64::from(self.server_id), 4);
        put_uint_le(out, u64::from(self.event_size), 4);
        put_uint_le(out, u64::from(self.log_pos), 4);
        put_uint_le(out, u64::from(self.flags), 2);
    }
}

/// The header fields a writer chooses for an event; `event_size` and `type_code` follow from
/// the event itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct EventMeta {
    /// Seconds since the epoch.
    pub timestamp: u32,
    /// The writing server's `server_id`.
    pub server_id: u32,
    /// The position of the next event, or 0 to let [`crate::BinlogFiles`] stamp it on append.
    pub log_pos: u32,
    /// [`flags`] bits.
    pub flags: u16,
}

/// The CRC32 an event carries, computed over everything before the footer. FORMAT_DESCRIPTION
/// events are checksummed with the in-use flag cleared, as MySQL does, so closing a file only
/// has to rewrite that flag.
pub fn event_checksum(event_without_footer: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    if event_without_footer.get(4) == Some(&FDE_TYPE) && event_without_footer.len() > FLAGS_OFFSET {
        h.update(&event_without_footer[..FLAGS_OFFSET]);
        h.update(&[event_without_footer[FLAGS_OFFSET] & !(flags::BINLOG_IN_USE as u8)]);
        h.update(&event_without_footer[FLAGS_OFFSET + 1..]);
    } else {
        h.update(event_without_footer);
    }
    h.finalize()
}

/// Builds a complete event: header, `body`, and the CRC32 footer when `checksum`.
pub fn frame_event(type_code: u8, meta: &EventMeta, body: &[u8], checksum: bool) -> Vec<u8> {
    let footer = if checksum { CHECKSUM_LEN } else { 0 };
    let header = EventHeader {
        timestamp: meta.timestamp,
        type_code,
        server_id: meta.server_id,
        event_size: (HEADER_LEN + body.len() + footer) as u32,
        log_pos: meta.log_pos,
        flags: meta.flags,
    };
    let mut out = Vec::with_capacity(HEADER_LEN + body.len() + footer);
    header.encode(&mut out);
    out.extend_from_slice(body);
    if checksum {
        let crc = event_checksum(&out);
        out.extend_from_slice(&crc.to_le_bytes());
    }
    out
}

/// Checks the CRC32 footer of a complete event.
///
/// # Errors
/// [`BinlogError::Truncated`] when the event is shorter than a header and footer;
/// [`BinlogError::Checksum`] on mismatch.
pub fn verify_checksum(event: &[u8]) -> Result<()> {
    if event.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(BinlogError::Truncated {
            what: "event checksum",
        });
    }
    let (data, footer) = event.split_at(event.len() - CHECKSUM_LEN);
    let stored = uint_le(footer) as u32;
    let computed = event_checksum(data);
    if stored != computed {
        return Err(BinlogError::Checksum { stored, computed });
    }
    Ok(())
}

/// Sets the `log_pos` of one complete event in place and recomputes its CRC32 when `checksum`.
///
/// # Errors
/// [`BinlogError::Truncated`] when `event` is shorter than a header (and footer).
pub fn set_log_pos(event: &mut [u8], log_pos: u32, checksum: bool) -> Result<()> {
    if event.len() < HEADER_LEN + if checksum { CHECKSUM_LEN } else { 0 } {
        return Err(BinlogError::Truncated {
            what: "event header",
        });
    }
    event[LOG_POS_OFFSET..LOG_POS_OFFSET + 4].copy_from_slice(&log_pos.to_le_bytes());
    if checksum {
        let n = event.len() - CHECKSUM_LEN;
        let crc = event_checksum(&event[..n]);
        event[n..].copy_from_slice(&crc.to_le_bytes());
    }
    Ok(())
}

/// Stamps every event in `events` (complete events back to back) with its end position, given
/// that the first one starts at file offset `start`, as MySQL's `log_pos` requires.
///
/// # Errors
/// [`BinlogError::Corrupt`] when the buffer is not a sequence of whole events.
pub fn stamp_positions(events: &mut [u8], start: u64, checksum: bool) -> Result<()> {
    let mut off = 0usize;
    while off < events.len() {
        let size = EventHeader::decode(&events[off..])?.event_size as usize;
        let end = off
            .checked_add(size)
            .filter(|&e| e <= events.len())
            .ok_or_else(|| BinlogError::corrupt("event buffer", "event runs past the end"))?;
        let pos = start + end as u64;
        set_log_pos(&mut events[off..end], pos as u32, checksum)?;
        off = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_layout() {
        let h = EventHeader {
            timestamp: 0x01020304,
            type_code: 2,
            server_id: 7,
            event_size: 100,
            log_pos: 1000,
            flags: 8,
        };
        let mut out = Vec::new();
        h.encode(&mut out);
        assert_eq!(
            out,
            [4, 3, 2, 1, 2, 7, 0, 0, 0, 100, 0, 0, 0, 0xe8, 3, 0, 0, 8, 0]
        );
        assert_eq!(EventHeader::decode(&out).unwrap(), h);
        assert!(EventHeader::decode(&out[..18]).is_err());
        out[9] = 5;
        assert!(EventHeader::decode(&out).is_err());
    }

    #[test]
    fn checksum_is_zlib_crc32_and_fde_ignores_in_use() {
        let meta = EventMeta {
            timestamp: 1,
            server_id: 1,
            log_pos: 0,
            flags: 0,
        };
        let ev = frame_event(16, &meta, &[1, 2, 3], true);
        verify_checksum(&ev).unwrap();
        assert_eq!(
            u32::from_le_bytes(ev[ev.len() - 4..].try_into().unwrap()),
            crc32fast::hash(&ev[..ev.len() - 4])
        );
        let mut bad = ev.clone();
        bad[20] ^= 1;
        assert!(matches!(
            verify_checksum(&bad),
            Err(BinlogError::Checksum { .. })
        ));
        let mut fde = frame_event(
            FDE_TYPE,
            &EventMeta {
                flags: flags::BINLOG_IN_USE,
                ..meta
            },
            &[9; 10],
            true,
        );
        verify_checksum(&fde).unwrap();
        fde[FLAGS_OFFSET] &= !1;
        verify_checksum(&fde).unwrap();
    }

    #[test]
    fn stamping_positions() {
        let meta = EventMeta::default();
        let mut buf = frame_event(16, &meta, &[0; 8], true);
        buf.extend(frame_event(16, &meta, &[0; 8], true));
        stamp_positions(&mut buf, 120, true).unwrap();
        let first = EventHeader::decode(&buf).unwrap();
        assert_eq!(first.log_pos, 120 + 31);
        assert_eq!(EventHeader::decode(&buf[31..]).unwrap().log_pos, 120 + 62);
        verify_checksum(&buf[..31]).unwrap();
        verify_checksum(&buf[31..]).unwrap();
        assert!(stamp_positions(&mut buf[..40], 0, true).is_err());
    }
}
