//! Crash recovery of a binlog file: find the end of the last complete transaction (after an
//! XID, a DDL QUERY or a COMMIT) and the GTIDs of the complete transactions.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::reader::{read_event_bytes, read_file_header, BAD_MAGIC};
use crate::error::{BinlogError, Result};
use crate::event::header::{flags, verify_checksum};
use crate::event::{decode_event, Event};
use crate::gtid::GtidSet;

/// What a scan of one file found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileScan {
    /// Whether the file has its magic, FORMAT_DESCRIPTION and PREVIOUS_GTIDS complete.
    pub header_ok: bool,
    /// The PREVIOUS_GTIDS set (the GTIDs of all earlier files).
    pub previous_gtids: GtidSet,
    /// GTIDs of the complete transactions in the file.
    pub gtids: GtidSet,
    /// The offset just after the last complete transaction (or header, or control event).
    pub valid_end: u64,
    /// Whether the FORMAT_DESCRIPTION still has the in-use flag (not closed cleanly).
    pub in_use: bool,
    /// Whether the file ends with a ROTATE or STOP event.
    pub closed: bool,
    /// XIDs of the complete transactions and atomic DDL statements.
    pub xids: Vec<u64>,
}

/// Transaction-boundary tracking while scanning.
#[derive(Default)]
struct Boundary {
    gtid: Option<(crate::gtid::Uuid, u64)>,
    in_trx: bool,
    in_begin: bool,
}

impl Boundary {
    /// Feeds one event; true when it completes a transaction (or is a complete control event
    /// outside one).
    fn complete_after(&mut self, event: &Event, scan: &mut FileScan) -> bool {
        let mut xid = None;
        let end = match event {
            Event::Gtid(g) => {
                *self = Boundary {
                    gtid: Some((g.uuid, g.gno)),
                    in_trx: true,
                    in_begin: false,
                };
                false
            }
            Event::AnonymousGtid(_) => {
                *self = Boundary {
                    gtid: None,
                    in_trx: true,
                    in_begin: false,
                };
                false
            }
            Event::Query(q) => {
                let text = q.query.trim_ascii();
                let starts = |w: &[u8]| {
                    text.get(..w.len())
                        .is_some_and(|p| p.eq_ignore_ascii_case(w))
                };
                if text.eq_ignore_ascii_case(b"BEGIN") {
                    self.in_trx = true;
                    self.in_begin = true;
                    false
                } else if self.in_begin {
                    // A statement-format transaction ends with COMMIT or ROLLBACK.
                    starts(b"COMMIT") || starts(b"ROLLBACK")
                } else {
                    // DDL: a transaction by itself.
                    xid = q.status.ddl_xid;
                    true
                }
            }
            Event::Xid(x) => {
                xid = Some(*x);
                true
            }
            Event::Rotate(_)
            | Event::Stop
            | Event::FormatDescription(_)
            | Event::PreviousGtids(_) => !self.in_trx,
            _ => false,
        };
        if end {
            if let Some((u, g)) = self.gtid {
                scan.gtids.add(u, g);
            }
            scan.xids.extend(xid);
            *self = Boundary::default();
        }
        end
    }
}

/// The next intact event, or `None` at the end, at a torn or corrupt event.
fn next_intact(r: &mut impl Read, checksums: bool) -> Result<Option<(u64, Event)>> {
    let bytes = match read_event_bytes(r) {
        Ok(Some(b)) => b,
        Ok(None) => return Ok(None),
        Err(BinlogError::Io(e)) => return Err(e.into()),
        Err(_) => return Ok(None),
    };
    if checksums && verify_checksum(&bytes).is_err() {
        return Ok(None);
    }
    Ok(decode_event(&bytes, checksums)
        .ok()
        .map(|ev| (bytes.len() as u64, ev.event)))
}

/// Scans `path`, stopping at the first incomplete, corrupt or undecodable event.
///
/// # Errors
/// I/O errors; [`BinlogError::Corrupt`] when the file does not start with the binlog magic
/// (a file that is not a binlog is never truncated).
pub fn scan_file(path: &Path) -> Result<FileScan> {
    let mut r = BufReader::with_capacity(256 * 1024, File::open(path)?);
    let mut scan = FileScan::default();
    let header = match read_file_header(&mut r) {
        Ok(h) => h,
        Err(BinlogError::Io(e)) => return Err(e.into()),
        Err(e @ BinlogError::Corrupt { .. }) if is_bad_magic(&e) => {
            return Err(BinlogError::corrupt(
                "binlog file",
                format!("{} is not a binlog file", path.display()),
            ))
        }
        Err(_) => return Ok(scan),
    };
    scan.in_use = header.flags & flags::BINLOG_IN_USE != 0;
    let checksums = header.fde.has_checksums();
    let mut pos = header.end;
    match next_intact(&mut r, checksums)? {
        Some((len, Event::PreviousGtids(s))) => {
            pos += len;
            scan.previous_gtids = s;
            scan.header_ok = true;
            scan.valid_end = pos;
        }
        _ => return Ok(scan),
    }
    let mut boundary = Boundary::default();
    while let Some((len, event)) = next_intact(&mut r, checksums)? {
        pos += len;
        scan.closed = matches!(event, Event::Rotate(_) | Event::Stop);
        if boundary.complete_after(&event, &mut scan) {
            scan.valid_end = pos;
        }
    }
    Ok(scan)
}

fn is_bad_magic(e: &BinlogError) -> bool {
    matches!(e, BinlogError::Corrupt { detail, .. } if detail == BAD_MAGIC)
}

/// Reads only the PREVIOUS_GTIDS of a file (the second event).
///
/// # Errors
/// I/O and decoding errors.
pub fn read_previous_gtids(path: &Path) -> Result<GtidSet> {
    let mut r = BufReader::new(File::open(path)?);
    let header = read_file_header(&mut r)?;
    let bytes = read_event_bytes(&mut r)?.ok_or(BinlogError::Truncated {
        what: "PREVIOUS_GTIDS",
    })?;
    match decode_event(&bytes, header.fde.has_checksums())?.event {
        Event::PreviousGtids(s) => Ok(s),
        _ => Err(BinlogError::corrupt(
            "binlog file",
            "second event is not PREVIOUS_GTIDS",
        )),
    }
}
