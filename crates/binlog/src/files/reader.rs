//! [`BinlogReader`]: iterates the events of one binlog file from a position, verifying each
//! event's checksum (for SHOW BINLOG EVENTS and, later, COM_BINLOG_DUMP).

use std::fs::File;
use std::io::{BufReader, ErrorKind, Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::{BinlogError, Result};
use crate::event::header::{verify_checksum, BINLOG_MAGIC, HEADER_LEN};
use crate::event::{decode_event, DecodedEvent, Event, EventHeader, FormatDescriptionEvent};

/// The largest event accepted (MySQL's `max_log_event_size`, 1 GiB).
pub const MAX_EVENT_SIZE: usize = 1 << 30;

/// Fills `buf` from `r`; returns how many bytes were read before EOF.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(n)
}

/// Reads one whole event. `Ok(None)` at a clean end of file; [`BinlogError::Truncated`] when
/// the file ends inside an event; [`BinlogError::Corrupt`] for an impossible event size.
pub fn read_event_bytes(r: &mut impl Read) -> Result<Option<Vec<u8>>> {
    let mut header = [0u8; HEADER_LEN];
    match read_full(r, &mut header)? {
        0 => return Ok(None),
        HEADER_LEN => {}
        _ => {
            return Err(BinlogError::Truncated {
                what: "event header",
            })
        }
    }
    let size = EventHeader::decode(&header)?.event_size as usize;
    if size > MAX_EVENT_SIZE {
        return Err(BinlogError::corrupt(
            "event header",
            format!("event size {size}"),
        ));
    }
    // Grow with the data actually read, so a corrupt size cannot allocate a gigabyte.
    let mut event = Vec::with_capacity(size.min(1 << 20));
    event.extend_from_slice(&header);
    r.take((size - HEADER_LEN) as u64).read_to_end(&mut event)?;
    if event.len() != size {
        return Err(BinlogError::Truncated { what: "event" });
    }
    Ok(Some(event))
}

/// The detail of the error for a file without the binlog magic.
pub const BAD_MAGIC: &str = "bad magic number";

/// The start of a binlog file.
#[derive(Clone, Debug)]
pub struct FileHeader {
    /// The FORMAT_DESCRIPTION event.
    pub fde: FormatDescriptionEvent,
    /// Its common-header flags (the in-use flag).
    pub flags: u16,
    /// The offset after it.
    pub end: u64,
}

/// Reads the magic and the FORMAT_DESCRIPTION event at the start of a file.
///
/// # Errors
/// [`BinlogError::Corrupt`] when the file is not a binlog; decoding errors for the event.
pub fn read_file_header(r: &mut impl Read) -> Result<FileHeader> {
    let mut magic = [0u8; 4];
    let n = read_full(r, &mut magic)?;
    if magic[..n] != BINLOG_MAGIC[..n] {
        return Err(BinlogError::corrupt("binlog file", BAD_MAGIC));
    }
    if n != 4 {
        return Err(BinlogError::Truncated {
            what: "binlog magic",
        });
    }
    let bytes = read_event_bytes(r)?.ok_or(BinlogError::Truncated {
        what: "FORMAT_DESCRIPTION",
    })?;
    let ev = decode_event(&bytes, true)?;
    match ev.event {
        Event::FormatDescription(fde) => Ok(FileHeader {
            fde,
            flags: ev.header.flags,
            end: 4 + bytes.len() as u64,
        }),
        _ => Err(BinlogError::corrupt(
            "binlog file",
            "first event is not FORMAT_DESCRIPTION",
        )),
    }
}

/// Iterates a binlog file's events from a position.
///
/// The FORMAT_DESCRIPTION at offset 4 is always read first to learn whether events carry
/// checksums; iteration then starts at the requested position (4 includes that event). On a
/// partial event at the end (a file still being written) the reader returns
/// [`BinlogError::Truncated`] and stays at the event's start, so it can be retried later.
#[derive(Debug)]
pub struct BinlogReader {
    file: BufReader<File>,
    pos: u64,
    fde: FormatDescriptionEvent,
    failed: bool,
}

impl BinlogReader {
    /// Opens `path` and positions at `pos` (values below 4 mean 4).
    ///
    /// # Errors
    /// I/O errors; [`BinlogError::Corrupt`] when the file is not a binlog.
    pub fn open(path: &Path, pos: u64) -> Result<Self> {
        let mut file = BufReader::with_capacity(64 * 1024, File::open(path)?);
        let fde = read_file_header(&mut file)?.fde;
        let pos = pos.max(4);
        file.seek(SeekFrom::Start(pos))?;
        Ok(BinlogReader {
            file,
            pos,
            fde,
            failed: false,
        })
    }

    /// The file's FORMAT_DESCRIPTION event.
    pub fn format_description(&self) -> &FormatDescriptionEvent {
        &self.fde
    }

    /// The offset of the next event.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The next event's start offset and bytes, checksum verified; `Ok(None)` at the end.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] for a partial event (position unchanged),
    /// [`BinlogError::Checksum`] / [`BinlogError::Corrupt`] for a damaged event, I/O errors.
    pub fn next_raw(&mut self) -> Result<Option<(u64, Vec<u8>)>> {
        let start = self.pos;
        let checksums = self.fde.has_checksums();
        let read = read_event_bytes(&mut self.file).and_then(|b| match b {
            Some(b) if checksums => verify_checksum(&b).map(|_| Some(b)),
            b => Ok(b),
        });
        match read {
            Ok(Some(bytes)) => {
                self.pos += bytes.len() as u64;
                Ok(Some((start, bytes)))
            }
            Ok(None) => Ok(None),
            Err(e) => {
                self.file.seek(SeekFrom::Start(start))?;
                Err(e)
            }
        }
    }

    /// The next event decoded, with its start offset; `Ok(None)` at the end.
    ///
    /// # Errors
    /// As [`BinlogReader::next_raw`], plus decoding errors.
    pub fn next_event(&mut self) -> Result<Option<(u64, DecodedEvent)>> {
        match self.next_raw()? {
            None => Ok(None),
            Some((pos, bytes)) => Ok(Some((pos, decode_event(&bytes, self.fde.has_checksums())?))),
        }
    }
}

impl Iterator for BinlogReader {
    type Item = Result<(u64, DecodedEvent)>;

    /// Stops after the first error (use [`BinlogReader::next_event`] to retry a partial tail).
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let item = self.next_event().transpose();
        self.failed = matches!(item, Some(Err(_)));
        item
    }
}
