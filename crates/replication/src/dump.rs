//! The source side of replication: [`BinlogDump`] streams the binary log to one replica
//! (COM_BINLOG_DUMP from a file and position, COM_BINLOG_DUMP_GTID skipping a GTID set), as
//! MySQL 8.4's binlog sender does.
//!
//! Each file starts with an artificial ROTATE (timestamp 0, `log_pos` 0) naming it and the
//! start position, then the file's FORMAT_DESCRIPTION (in-use flag cleared; `log_pos` and
//! `created` zeroed when the dump starts inside the file), then its events from the start
//! position, checksums as written. A file's real ROTATE leads to the next file. Transactions
//! whose GTID the replica has are skipped, and a HEARTBEAT tells it the position after them.
//! Caught up with the current file, the dump waits for the log to change
//! ([`Binlog::wait_for_change`], signalled at each append), sending a HEARTBEAT every
//! `@source_heartbeat_period`; with BINLOG_DUMP_NON_BLOCK (or a replica `server_id` of 0) it
//! ends there instead. Errors are MySQL's 1236 with its messages.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use binlog::event::header::{event_checksum, flags, CHECKSUM_LEN, HEADER_LEN};
use binlog::event::types;
use binlog::{decode_event, BinlogError, BinlogReader, Event, EventMeta, GtidSet, RotateEvent};
use common::{Error, ErrorCode, Result};
use storage::engine::KvEngine;

use crate::service::Binlog;

/// ER_SOURCE_FATAL_ERROR_READING_BINLOG: every error a dump reports to the replica.
pub const ER_SOURCE_FATAL_ERROR_READING_BINLOG: ErrorCode = ErrorCode {
    num: 1236,
    sqlstate: "HY000",
    name: "ER_SOURCE_FATAL_ERROR_READING_BINLOG",
};

/// A 1236 error with `msg`.
pub fn fatal(msg: impl Into<String>) -> Error {
    Error::new(ER_SOURCE_FATAL_ERROR_READING_BINLOG, msg)
}

/// ER_MALFORMED_GTID_SET_ENCODING: COM_BINLOG_DUMP_GTID's set cannot be decoded.
pub const ER_MALFORMED_GTID_SET_ENCODING: ErrorCode = ErrorCode {
    num: 1772,
    sqlstate: "HY000",
    name: "ER_MALFORMED_GTID_SET_ENCODING",
};

/// The GTID set of COM_BINLOG_DUMP_GTID (MySQL's binary encoding; empty: no GTIDs).
///
/// # Errors
/// 1772 for bytes that are not a GTID set.
pub fn decode_gtid_set(bytes: &[u8]) -> Result<GtidSet> {
    if bytes.is_empty() {
        return Ok(GtidSet::new());
    }
    let mut r = binlog::bytes::Reader::new(bytes);
    match GtidSet::decode(&mut r) {
        Ok(set) if r.is_empty() => Ok(set),
        _ => Err(Error::new(
            ER_MALFORMED_GTID_SET_ENCODING,
            "Malformed GTID set encoding.",
        )),
    }
}

const NOT_IN_INDEX: &str = "Could not find first log file name in binary log index file";

/// Offset of `log_pos` in an event header.
const LOG_POS_OFFSET: usize = 13;
/// Offset of the flags in an event header.
const FLAGS_OFFSET: usize = 17;
/// Offset of FORMAT_DESCRIPTION's `created` field: header, binlog version, server version.
const FDE_CREATED_OFFSET: usize = HEADER_LEN + 2 + 50;

/// What a replica asked for.
#[derive(Debug, Clone)]
pub struct DumpRequest {
    /// The file to start in; empty: the first file, or for a GTID dump the first file holding
    /// a transaction the replica lacks.
    pub file: String,
    /// The position in that file (4: its start).
    pub pos: u64,
    /// COM_BINLOG_DUMP_GTID: the GTIDs the replica has (its transactions are not sent).
    pub exclude: Option<GtidSet>,
    /// End at the end of the log instead of waiting (BINLOG_DUMP_NON_BLOCK, or `server_id` 0).
    pub non_block: bool,
    /// `@source_heartbeat_period` (`@master_heartbeat_period`): a HEARTBEAT after this long
    /// without an event; `None` (0): no heartbeats.
    pub heartbeat: Option<Duration>,
    /// The replica declared `@source_binlog_checksum` (`@master_binlog_checksum`), so it
    /// reads events with CRC32 footers.
    pub checksum_aware: bool,
    /// Set when the dump must stop (a newer dump of the same replica, see
    /// [`crate::replicas::Replicas::start_dump`]).
    pub stop: Arc<AtomicBool>,
}

/// One step of a dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpStep {
    /// An event to send (a complete event: header, body, CRC32).
    Event(Vec<u8>),
    /// Nothing new within the wait: the caller checks its client and asks again.
    Idle,
    /// A non-blocking dump reached the end of the log (the caller sends EOF).
    End,
    /// The dump was told to stop: the connection closes without a reply.
    Stopped,
}

/// A running dump (see the module docs). Not thread-safe by itself: one per dump thread.
pub struct BinlogDump<E: KvEngine> {
    log: Arc<Binlog<E>>,
    server_id: u32,
    file: String,
    reader: BinlogReader,
    exclude: Option<GtidSet>,
    /// Inside a transaction the replica has.
    skipping: bool,
    /// The end of skipped events not yet reported with a heartbeat.
    skipped_to: Option<u64>,
    out: VecDeque<Vec<u8>>,
    heartbeat: Option<Duration>,
    last_sent: Instant,
    non_block: bool,
    stop: Arc<AtomicBool>,
    start_file: String,
    start_pos: u64,
    last_event_pos: u64,
}

/// MySQL's text for a read error.
fn read_error(e: &BinlogError) -> &'static str {
    match e {
        BinlogError::Truncated { .. } => {
            "binlog truncated in the middle of event; consider out of disk space on source"
        }
        BinlogError::Checksum { .. } => "event read from binlog did not pass crc check",
        BinlogError::Io(_) => "I/O error reading log event",
        _ => "bogus data in log event",
    }
}

impl<E: KvEngine> BinlogDump<E> {
    /// Checks the request as MySQL does before sending anything and positions the dump.
    ///
    /// # Errors
    /// 1236: the source's `server_id` is 0, a GTID dump with `gtid_mode=OFF`, a replica not
    /// declaring checksums, an unknown file, a position below 4 or past the file's end,
    /// GTIDs the source purged or never had.
    pub fn start(log: Arc<Binlog<E>>, req: DumpRequest) -> Result<Self> {
        let opts = log.options();
        if opts.server_id == 0 {
            return Err(fatal("Misconfigured source - server_id was not set"));
        }
        if req.exclude.is_some() && !opts.gtid_mode {
            return Err(fatal("Request to dump GTID when @@GLOBAL.GTID_MODE <> ON."));
        }
        let names = log.file_names();
        let file = match (&req.exclude, req.file.is_empty()) {
            (_, false) => {
                if !names.contains(&req.file) {
                    return Err(fatal(NOT_IN_INDEX));
                }
                req.file.clone()
            }
            (Some(have), true) => {
                check_gtids(&log, have)?;
                first_file_needed(&log, &names, have)?
            }
            (None, true) => names.first().cloned().ok_or_else(|| fatal(NOT_IN_INDEX))?,
        };
        if req.pos < 4 {
            return Err(fatal(
                "Client requested source to start replication from position < 4",
            ));
        }
        let path = log.path_of(&file).ok_or_else(|| fatal(NOT_IN_INDEX))?;
        let size = std::fs::metadata(&path)
            .map_err(|_| fatal("I/O error reading log event"))?
            .len();
        if req.pos > size {
            return Err(fatal(
                "Client requested source to start replication from position > file size",
            ));
        }
        // Binlog files are always written with CRC32 footers.
        if !req.checksum_aware {
            return Err(fatal(
                "Replica can not handle replication events with the checksum that source is configured to log",
            ));
        }
        let reader = BinlogReader::open(&path, 4).map_err(|e| fatal(read_error(&e)))?;
        let mut dump = BinlogDump {
            server_id: opts.server_id,
            log,
            file: file.clone(),
            reader,
            exclude: req.exclude,
            skipping: false,
            skipped_to: None,
            out: VecDeque::new(),
            heartbeat: req.heartbeat.filter(|d| !d.is_zero()),
            last_sent: Instant::now(),
            non_block: req.non_block,
            stop: req.stop,
            start_file: file.clone(),
            start_pos: req.pos,
            last_event_pos: req.pos,
        };
        dump.open_file(file, req.pos)?;
        Ok(dump)
    }

    /// The file being sent and the position of the next event in it.
    pub fn position(&self) -> (&str, u64) {
        (&self.file, self.reader.position())
    }

    /// True if events are queued that [`BinlogDump::next`] returns without reading or
    /// waiting (the caller may hold its network flush until they are written).
    pub fn has_pending(&self) -> bool {
        !self.out.is_empty()
    }

    /// The next step: a queued or newly read event, else (caught up) a wait of at most
    /// `wait` for the log to change, with heartbeats as due.
    ///
    /// # Errors
    /// 1236 for a file that cannot be read (purged under the dump, damaged).
    pub fn next(&mut self, wait: Duration) -> Result<DumpStep> {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(DumpStep::Stopped);
            }
            if let Some(e) = self.out.pop_front() {
                self.last_sent = Instant::now();
                return Ok(DumpStep::Event(e));
            }
            let (active, end) = self.log.status();
            let at = self.reader.position();
            let in_active = self.file == active;
            if !in_active || at < end {
                match self.reader.next_raw() {
                    Ok(Some((start, bytes))) => {
                        self.take(start, bytes)?;
                        continue;
                    }
                    Ok(None) if !in_active => {
                        self.next_file()?;
                        continue;
                    }
                    Ok(None) => {}
                    Err(e) => return Err(self.failed(&e)),
                }
            }
            if let Some(p) = self.skipped_to.take() {
                self.queue_heartbeat(p)?;
                continue;
            }
            if self.non_block {
                return Ok(DumpStep::End);
            }
            let due = self
                .heartbeat
                .map(|h| h.saturating_sub(self.last_sent.elapsed()));
            if due == Some(Duration::ZERO) {
                self.queue_heartbeat(at)?;
                continue;
            }
            let timeout = due.map_or(wait, |d| d.min(wait));
            if self.log.wait_for_change(&self.file, at, timeout) {
                continue;
            }
            if self
                .heartbeat
                .is_some_and(|h| self.last_sent.elapsed() >= h)
            {
                continue;
            }
            return Ok(DumpStep::Idle);
        }
    }

    /// 1236 for a read error, with MySQL's account of where the dump was.
    fn failed(&self, e: &BinlogError) -> Error {
        fatal(format!(
            "{}; the first event '{}' at {}, the last event read from '{}' at {}, the last byte read from '{}' at {}.",
            read_error(e),
            self.start_file,
            self.start_pos,
            self.file,
            self.last_event_pos,
            self.file,
            self.reader.position()
        ))
    }

    /// Starts sending `file` from `pos`: the artificial ROTATE, the FORMAT_DESCRIPTION, then
    /// the reader at `pos`.
    fn open_file(&mut self, file: String, pos: u64) -> Result<()> {
        let path = self
            .log
            .path_of(&file)
            .ok_or_else(|| fatal("could not find next log"))?;
        let mut reader = BinlogReader::open(&path, 4).map_err(|e| fatal(read_error(&e)))?;
        let mut fde = match reader.next_raw() {
            Ok(Some((_, b))) if b.get(4) == Some(&types::FORMAT_DESCRIPTION) => b,
            Ok(_) => {
                return Err(fatal(
                    "Could not find format_description_event in binlog file",
                ))
            }
            Err(e) => return Err(fatal(read_error(&e))),
        };
        if pos > reader.position() {
            reader = BinlogReader::open(&path, pos).map_err(|e| fatal(read_error(&e)))?;
        }
        let rotate = Event::Rotate(RotateEvent {
            position: pos,
            next_file: file.clone(),
        });
        let meta = EventMeta {
            timestamp: 0,
            server_id: self.server_id,
            log_pos: 0,
            flags: flags::ARTIFICIAL,
        };
        self.out
            .push_back(rotate.encode(&meta).map_err(encode_err)?);
        fix_format_description(&mut fde, pos > 4);
        self.out.push_back(fde);
        self.file = file;
        self.reader = reader;
        self.skipping = false;
        Ok(())
    }

    /// After a file's last event: the next file of the index.
    fn next_file(&mut self) -> Result<()> {
        let names = self.log.file_names();
        let next = names
            .iter()
            .position(|n| *n == self.file)
            .and_then(|i| names.get(i + 1))
            .cloned()
            .ok_or_else(|| fatal("could not find next log"))?;
        self.open_file(next, 4)
    }

    /// An event read at `start`: queued, or skipped when its transaction is in the
    /// replica's GTID set.
    fn take(&mut self, start: u64, bytes: Vec<u8>) -> Result<()> {
        self.last_event_pos = start;
        let end = start + bytes.len() as u64;
        if let Some(have) = &self.exclude {
            match bytes[4] {
                types::GTID => {
                    let ev = decode_event(&bytes, true).map_err(|e| self.failed(&e))?;
                    if let Event::Gtid(g) = ev.event {
                        self.skipping = have.contains(&g.uuid, g.gno);
                    }
                }
                types::ANONYMOUS_GTID | types::ROTATE => self.skipping = false,
                _ => {}
            }
            if self.skipping {
                self.skipped_to = Some(end);
                return Ok(());
            }
        }
        if let Some(p) = self.skipped_to.take() {
            self.queue_heartbeat(p)?;
        }
        self.out.push_back(bytes);
        Ok(())
    }

    /// A HEARTBEAT naming the current file, with `pos` as its `log_pos`.
    fn queue_heartbeat(&mut self, pos: u64) -> Result<()> {
        let meta = EventMeta {
            timestamp: 0,
            server_id: self.server_id,
            log_pos: u32::try_from(pos).unwrap_or(u32::MAX),
            flags: 0,
        };
        let ev = Event::Heartbeat(self.file.clone());
        self.out.push_back(ev.encode(&meta).map_err(encode_err)?);
        Ok(())
    }
}

fn encode_err(e: BinlogError) -> Error {
    Error::internal(format!("binary log dump: cannot encode an event: {e}"))
}

/// A file's FORMAT_DESCRIPTION as a dump sends it: the in-use flag cleared and, when the dump
/// starts inside the file (`skipping`), `log_pos` and `created` zeroed so the replica neither
/// moves its position nor drops its temporary tables; the CRC32 recomputed.
fn fix_format_description(fde: &mut [u8], skipping: bool) {
    if fde.len() < FDE_CREATED_OFFSET + 4 + CHECKSUM_LEN {
        return;
    }
    fde[FLAGS_OFFSET] &= !(flags::BINLOG_IN_USE as u8);
    if skipping {
        fde[LOG_POS_OFFSET..LOG_POS_OFFSET + 4].fill(0);
        fde[FDE_CREATED_OFFSET..FDE_CREATED_OFFSET + 4].fill(0);
    }
    let n = fde.len() - CHECKSUM_LEN;
    let crc = event_checksum(&fde[..n]);
    fde[n..].copy_from_slice(&crc.to_le_bytes());
}

/// The replica's GTIDs against the source's, as MySQL checks them: none of this server's
/// that it never logged, none missing that are purged.
fn check_gtids<E: KvEngine>(log: &Binlog<E>, have: &GtidSet) -> Result<()> {
    let executed = log.gtid_executed();
    let own = log.options().server_uuid;
    let mut mine = GtidSet::new();
    for (lo, hi) in have.intervals(&own) {
        mine.add_interval(own, lo, hi - 1);
    }
    if !executed.contains_set(&mine) {
        return Err(fatal(
            "Replica has more GTIDs than the source has, using the source's SERVER_UUID. This may indicate that the end of the binary log was truncated or that the last binary log file was lost, e.g., after a power or disk failure when sync_binlog != 1. The source may or may not have rolled back transactions that were already replicated to the replica. Suggest to replicate any transactions that source has rolled back from replica to source, and/or commit empty transactions on source to account for transactions that have been committed on source but are not included in GTID_EXECUTED.",
        ));
    }
    let missing = log.gtid_purged().subtract(have);
    if !missing.is_empty() {
        return Err(fatal(format!(
            "Cannot replicate because the source purged required binary logs. Replicate the missing transactions from elsewhere, or provision a new replica from backup. Consider increasing the source's binary log expiration period. The GTID set sent by the replica is '{have}', and the missing transactions are '{missing}'"
        )));
    }
    Ok(())
}

/// The newest file whose PREVIOUS_GTIDS the replica has: every transaction it lacks is in
/// that file or a later one.
fn first_file_needed<E: KvEngine>(
    log: &Binlog<E>,
    names: &[String],
    have: &GtidSet,
) -> Result<String> {
    for name in names.iter().rev() {
        let path = log.path_of(name).ok_or_else(|| fatal(NOT_IN_INDEX))?;
        let previous =
            binlog::files::read_previous_gtids(&path).map_err(|e| fatal(read_error(&e)))?;
        if have.contains_set(&previous) {
            return Ok(name.clone());
        }
    }
    names.first().cloned().ok_or_else(|| fatal(NOT_IN_INDEX))
}

#[cfg(test)]
mod tests;
