//! The binary log of a running server: [`Binlog`] turns each committed transaction's row
//! changes (and each DDL statement) into MySQL 8.4 events with a GTID and appends them to the
//! binlog files, in commit order.
//!
//! **Atomic with the data.** A transaction's encoded events are written as a record
//! (`B/<gno>`) into the dictionary column family in the same atomic batch as its rows, under
//! the log's ordering lock; then they are appended to the current binlog file. The record is
//! the durable copy until the file has been fsynced (every [`BinlogOptions::sync_every`]
//! transactions and at rotation); then the records up to that point are deleted, so a
//! commit's only fsync is the engine's log, shared by group commit as with the log off. At
//! startup,
//! [`Binlog::open`] appends every record the files lack (a crash between the batch and the
//! file, or before the file's fsync), so after a crash at any point no committed transaction
//! is missing from the binlog and no binlogged transaction is missing from the data. DDL is
//! logged right after its statement commits (its record written with an fsync), which is not
//! atomic with the dictionary change: a crash between the two loses the DDL's event.
//!
//! **Replicated transactions.** A replica's applier assigns the source's GTID to its session's
//! next commit ([`Binlog::assign_gtid`]): the transaction is logged with that GTID instead of
//! one of this server's own (MySQL's `log_replica_updates`), so the replica's `gtid_executed`
//! holds it atomically with the applied rows. Records are keyed by an ordering slot, not by the
//! GNO, and recovery reads each record's GTID from its GTID event.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{SystemTime, UNIX_EPOCH};

use binlog::event::{GtidEvent, QueryEvent, StatusVars, TableMapEvent};
use binlog::{BinlogConfig, BinlogFileInfo, BinlogFiles, GtidSet, Transaction, TransactionBuilder};
use binlog::{RowMetadata, Uuid};
use common::{Error, Result};
use parking_lot::{Condvar, Mutex};
use storage::engine::{Cf, KvEngine, WriteBatch};
use storage::txn::changes::{CommitLog, LogRecords, RowChange, WriteWith};
use storage::Storage;

use crate::convert;

/// Key prefix of the dictionary records holding transactions not yet fsynced in a file.
const RECORD_PREFIX: &[u8] = b"B/";

fn record_key(gno: u64) -> Vec<u8> {
    let mut k = RECORD_PREFIX.to_vec();
    k.extend_from_slice(&gno.to_be_bytes());
    k
}

/// How the binary log is set up (from the server's options).
#[derive(Debug, Clone)]
pub struct BinlogOptions {
    /// Directory of the files (the data directory by default).
    pub dir: PathBuf,
    /// File name stem (`log_bin_basename`'s last part): `binlog`.
    pub basename: String,
    /// `server_id`.
    pub server_id: u32,
    /// `server_uuid`: the source of this server's GTIDs.
    pub server_uuid: Uuid,
    /// `max_binlog_size`.
    pub max_size: u64,
    /// `gtid_mode=ON`: transactions get `server_uuid:N`; OFF: anonymous.
    pub gtid_mode: bool,
    /// The version written in FORMAT_DESCRIPTION events.
    pub server_version: String,
    /// Fsync the file (and drop the dictionary records it then holds) every N transactions;
    /// also at rotation. Not a durability setting: a transaction is durable with its record.
    pub sync_every: u64,
}

struct Inner {
    files: BinlogFiles,
    /// GTIDs logged (the files' and those appended since).
    executed: GtidSet,
    /// The next GNO of this server's own GTIDs.
    next_gno: u64,
    /// The next ordering slot: transactions reach the files in slot order.
    next_slot: u64,
    /// The logical clock within the current file.
    seq: i64,
    next_xid: u64,
    /// Transactions appended since the last fsync of the file.
    unsynced: u64,
    /// Committed transactions waiting for an earlier slot's commit before they go to the file
    /// (`None`: that slot's commit failed; it is skipped).
    ready: std::collections::BTreeMap<u64, Option<Transaction>>,
    /// The next slot to append to the file.
    next_append: u64,
    /// The greatest slot appended whose record may still be in the dictionary.
    recorded_upto: u64,
    /// A file write failed: records keep being written (a restart appends them), files not.
    broken: Option<String>,
}

/// The binary log (see the module docs). Installed into the storage as its
/// [`CommitLog`].
pub struct Binlog<E: KvEngine> {
    opts: BinlogOptions,
    storage: Weak<Storage<E>>,
    inner: Mutex<Inner>,
    /// Signalled (under `inner`'s lock) whenever the files change: transactions appended, a
    /// rotation, a purge or a reset. Dump threads wait on it ([`Binlog::wait_for_change`]).
    changed: Condvar,
    /// `binlog_row_metadata=FULL`: TABLE_MAP events carry column names, ENUM/SET strings,
    /// the primary key and visibility.
    full_metadata: std::sync::atomic::AtomicBool,
    /// GTIDs assigned to the next commit of a thread (a replica's applier): thread id →
    /// (source UUID, GNO, original commit timestamp in microseconds).
    assigned: Mutex<std::collections::HashMap<u32, (Uuid, u64, u64)>>,
}

/// The GTID in the first event (a GTID event) of a record's transaction bytes.
fn record_gtid(bytes: &[u8]) -> Option<(Uuid, u64)> {
    let len = u32::from_le_bytes(bytes.get(9..13)?.try_into().ok()?) as usize;
    match binlog::decode_event(bytes.get(..len)?, true).ok()?.event {
        binlog::Event::Gtid(g) if g.gno != 0 => Some((g.uuid, g.gno)),
        _ => None,
    }
}

fn now() -> (u32, u64) {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs() as u32, d.as_micros() as u64)
}

fn io(e: binlog::BinlogError) -> Error {
    Error::storage(format!("binary log: {e}"))
}

impl<E: KvEngine> Binlog<E> {
    /// Opens (or creates) the binlog files, appends the transactions the files lack from the
    /// dictionary records, fsyncs, deletes the records, and installs the log into `storage`.
    ///
    /// # Errors
    /// I/O errors of the files or the engine.
    pub fn open(storage: &Arc<Storage<E>>, opts: BinlogOptions) -> Result<Arc<Self>> {
        let mut cfg = BinlogConfig::new(&opts.dir, opts.server_id);
        cfg.basename = opts.basename.clone();
        cfg.max_size = opts.max_size;
        cfg.server_version = opts.server_version.clone();
        let (mut files, report) = BinlogFiles::open(cfg).map_err(io)?;
        if !report.truncated.is_empty() {
            tracing::warn!(truncated = ?report.truncated, "binary log: torn tail cut off");
        }
        let mut executed = report.gtid_executed.clone();
        executed.union_with(files.gtid_purged());
        // transactions committed in the data but not (durably) in the files
        let mut recovered = 0u64;
        let mut last = 0u64;
        let records = records(storage)?;
        for (slot, bytes) in &records {
            last = last.max(*slot);
            let gtid = record_gtid(bytes);
            if let Some((uuid, gno)) = gtid {
                if executed.contains(&uuid, gno) {
                    continue;
                }
            }
            let trx = Transaction {
                bytes: bytes.clone(),
                gtid,
                ddl: false,
            };
            files.append(trx).map_err(io)?;
            if let Some((uuid, gno)) = gtid {
                executed.add(uuid, gno);
            }
            recovered += 1;
        }
        files.sync().map_err(io)?;
        if recovered > 0 {
            tracing::warn!(recovered, "binary log: transactions appended from the data");
        }
        let top = executed
            .intervals(&opts.server_uuid)
            .last()
            .map_or(0, |(_, hi)| *hi);
        let next_gno = top + 1;
        let log = Arc::new(Binlog {
            storage: Arc::downgrade(storage),
            inner: Mutex::new(Inner {
                files,
                executed,
                next_gno,
                next_slot: last + 1,
                seq: 0,
                next_xid: 1,
                unsynced: 0,
                ready: Default::default(),
                next_append: last + 1,
                // the records found are in the synced files now: dropped at the next sync (no
                // engine write while the server starts)
                recorded_upto: last,
                broken: None,
            }),
            changed: Condvar::new(),
            full_metadata: Default::default(),
            assigned: Default::default(),
            opts,
        });
        storage.set_commit_log(Some(log.clone() as Arc<dyn CommitLog>));
        Ok(log)
    }

    /// `binlog_row_metadata`: FULL (`true`) or MINIMAL, for the transactions encoded from now.
    pub fn set_full_row_metadata(&self, full: bool) {
        self.full_metadata.store(full, Ordering::Relaxed);
    }

    /// Assigns GTID `uuid:gno` (originally committed at `original_micros`) to the next
    /// transaction thread `thread_id` commits or DDL statement it logs, in place of one of this
    /// server's own GTIDs (a replica's applier, `log_replica_updates`).
    pub fn assign_gtid(&self, thread_id: u32, uuid: Uuid, gno: u64, original_micros: u64) {
        self.assigned
            .lock()
            .insert(thread_id, (uuid, gno, original_micros));
    }

    /// Takes back a GTID [`Binlog::assign_gtid`] gave `thread_id` that no commit used; true
    /// if there was one.
    pub fn unassign_gtid(&self, thread_id: u32) -> bool {
        self.assigned.lock().remove(&thread_id).is_some()
    }

    /// Logs the GTID assigned to `thread_id` as an empty transaction (BEGIN, COMMIT) if no
    /// commit used it: a source transaction that changed nothing here still counts as
    /// executed, as MySQL's replica records it.
    ///
    /// # Errors
    /// Encoding or engine errors.
    pub fn log_assigned_empty(&self, thread_id: u32) -> Result<()> {
        if !self.assigned.lock().contains_key(&thread_id) {
            return Ok(());
        }
        self.commit(thread_id, None, &[], &mut |records: LogRecords| {
            let st = self.storage()?;
            let mut b = WriteBatch::new();
            for (k, v) in records {
                b.put(Cf::Dict, k, v);
            }
            st.engine().write(&b, true)
        })
    }

    /// The options the log runs with.
    pub fn options(&self) -> &BinlogOptions {
        &self.opts
    }

    fn storage(&self) -> Result<Arc<Storage<E>>> {
        self.storage
            .upgrade()
            .ok_or_else(|| Error::internal("binary log: the storage is gone"))
    }

    fn meta(&self, ts: u32) -> binlog::EventMeta {
        binlog::EventMeta {
            timestamp: ts,
            server_id: self.opts.server_id,
            ..binlog::EventMeta::default()
        }
    }

    /// The events of a row transaction, without its GTID.
    fn encode_rows(
        &self,
        ts: u32,
        thread_id: u32,
        db: Option<&str>,
        changes: &[RowChange],
        xid: u64,
    ) -> Result<binlog::PendingTransaction> {
        let mut begin = QueryEvent::begin(thread_id, StatusVars::mysql_defaults());
        begin.schema = db.unwrap_or_default().to_string();
        let mut b = TransactionBuilder::new(self.meta(ts), begin).map_err(io)?;
        let mut mapped: Vec<u64> = Vec::new();
        for c in changes {
            let t = &c.table;
            let table_id = t.id & 0xFFFF_FFFF_FFFF;
            if !mapped.contains(&table_id) {
                let mut tm = TableMapEvent::new(table_id, &t.db, &t.name, convert::columns(t)?);
                tm.primary_key = convert::primary_key(t);
                tm.metadata = if self.full_metadata.load(Ordering::Relaxed) {
                    RowMetadata::Full
                } else {
                    RowMetadata::Minimal
                };
                b.table_map(&tm).map_err(io)?;
                mapped.push(table_id);
            }
            match (&c.before, &c.after) {
                (None, Some(a)) => b.write_row(table_id, &convert::row(t, a)?),
                (Some(o), Some(n)) => {
                    b.update_row(table_id, &convert::row(t, o)?, &convert::row(t, n)?)
                }
                (Some(o), None) => b.delete_row(table_id, &convert::row(t, o)?),
                (None, None) => continue,
            }
            .map_err(io)?;
        }
        b.end_statement().map_err(io)?;
        b.commit(xid).map_err(io)
    }

    /// Commits one transaction in the log's order: takes the next GTID (a short lock), seals
    /// the events, hands the record to `write` (the data's batch, outside the lock, so the
    /// engine's group commit still merges concurrent writers), then appends every transaction
    /// whose turn has come to the file, in GTID order.
    fn commit_ordered(
        &self,
        thread_id: u32,
        pending: binlog::PendingTransaction,
        micros: u64,
        write: &mut dyn FnMut(LogRecords) -> Result<()>,
    ) -> Result<()> {
        let foreign = self.assigned.lock().remove(&thread_id);
        let (slot, uuid, gno, seq) = {
            let mut inner = self.inner.lock();
            inner.next_slot += 1;
            inner.seq += 1;
            let (uuid, gno) = match foreign {
                Some((uuid, gno, _)) => (uuid, gno),
                None => {
                    inner.next_gno += 1;
                    (self.opts.server_uuid, inner.next_gno - 1)
                }
            };
            (inner.next_slot - 1, uuid, gno, inner.seq)
        };
        let logged_gno = if self.opts.gtid_mode || foreign.is_some() {
            gno
        } else {
            0
        };
        let gtid = GtidEvent {
            uuid,
            gno: logged_gno,
            last_committed: seq - 1,
            sequence_number: seq,
            immediate_commit_timestamp: micros,
            original_commit_timestamp: foreign.map_or(micros, |f| f.2),
            immediate_server_version: 80403,
            original_server_version: 80403,
            ..GtidEvent::default()
        };
        let r = pending
            .seal(gtid)
            .map_err(io)
            .and_then(|trx| write(vec![(record_key(slot), trx.bytes.clone())]).map(|_| trx));
        let mut inner = self.inner.lock();
        let out = match r {
            Ok(trx) => {
                inner.executed.add(uuid, gno);
                inner.ready.insert(slot, Some(trx));
                Ok(())
            }
            Err(e) => {
                inner.ready.insert(slot, None);
                Err(e)
            }
        };
        self.drain(&mut inner)?;
        out
    }

    /// Appends the ready transactions that are next in GTID order.
    fn drain(&self, inner: &mut Inner) -> Result<()> {
        let before = inner.files.position();
        let r = self.drain_ready(inner);
        if inner.files.position() != before {
            self.changed.notify_all();
        }
        r
    }

    fn drain_ready(&self, inner: &mut Inner) -> Result<()> {
        loop {
            let next = inner.next_append;
            let Some(entry) = inner.ready.remove(&next) else {
                return Ok(());
            };
            inner.next_append += 1;
            let Some(trx) = entry else { continue };
            if inner.broken.is_some() {
                continue;
            }
            let file_before = inner.files.current_file().to_string();
            if let Err(e) = inner.files.append(trx) {
                // the data is committed and its record kept: a restart appends it
                tracing::error!(error = %e, "binary log: cannot append; logging to files stopped");
                inner.broken = Some(e.to_string());
                continue;
            }
            inner.recorded_upto = next;
            inner.unsynced += 1;
            let rotated = inner.files.current_file() != file_before;
            if rotated {
                inner.seq = 0;
            }
            if rotated || (self.opts.sync_every > 0 && inner.unsynced >= self.opts.sync_every) {
                self.sync_locked(inner)?;
            }
        }
    }

    /// Fsyncs the file and deletes the records it now holds.
    fn sync_locked(&self, inner: &mut Inner) -> Result<()> {
        if inner.broken.is_some() {
            return Ok(());
        }
        inner.files.sync().map_err(io)?;
        inner.unsynced = 0;
        if inner.recorded_upto > 0 {
            let st = self.storage()?;
            delete_records(&st, 0, inner.recorded_upto)?;
            inner.recorded_upto = 0;
        }
        Ok(())
    }

    /// Logs a DDL statement that has committed (`sql` as the client sent it, run with default
    /// database `db`).
    ///
    /// # Errors
    /// Encoding or engine errors (the statement itself has committed).
    pub fn log_ddl(&self, thread_id: u32, db: Option<&str>, sql: &str) -> Result<()> {
        let (ts, micros) = now();
        let st = self.storage()?;
        let xid = {
            let mut inner = self.inner.lock();
            inner.next_xid += 1;
            inner.next_xid - 1
        };
        let mut status = StatusVars::mysql_defaults();
        status.ddl_xid = Some(xid);
        let q = QueryEvent::ddl(thread_id, db.unwrap_or_default(), sql, status);
        let pending = TransactionBuilder::ddl(self.meta(ts), q).map_err(io)?;
        let mut write = |records: LogRecords| {
            let mut b = WriteBatch::new();
            for (k, v) in records {
                b.put(Cf::Dict, k, v);
            }
            st.engine().write(&b, true)
        };
        self.commit_ordered(thread_id, pending, micros, &mut write)
    }

    /// FLUSH BINARY LOGS: closes the current file and starts the next.
    ///
    /// # Errors
    /// I/O errors.
    pub fn rotate(&self) -> Result<()> {
        let mut inner = self.inner.lock();
        let r = inner.files.rotate().map_err(io);
        self.changed.notify_all();
        r?;
        inner.seq = 0;
        self.sync_locked(&mut inner)
    }

    /// SHOW BINARY LOGS.
    ///
    /// # Errors
    /// I/O errors.
    pub fn list(&self) -> Result<Vec<BinlogFileInfo>> {
        self.inner.lock().files.list().map_err(io)
    }

    /// The current file and position (SHOW BINARY LOG STATUS).
    pub fn status(&self) -> (String, u64) {
        let inner = self.inner.lock();
        (
            inner.files.current_file().to_string(),
            inner.files.position(),
        )
    }

    /// Waits until the files change (a transaction appended, a rotation, a purge, a reset)
    /// or `timeout` passes, unless the current file is already not `file` or longer than
    /// `pos`. True when something changed (or had already changed).
    pub fn wait_for_change(&self, file: &str, pos: u64, timeout: std::time::Duration) -> bool {
        let mut inner = self.inner.lock();
        if inner.files.current_file() != file || inner.files.position() > pos {
            return true;
        }
        !self.changed.wait_for(&mut inner, timeout).timed_out()
    }

    /// `gtid_executed`.
    pub fn gtid_executed(&self) -> GtidSet {
        self.inner.lock().executed.clone()
    }

    /// `gtid_purged`.
    pub fn gtid_purged(&self) -> GtidSet {
        self.inner.lock().files.gtid_purged().clone()
    }

    /// The path of binlog file `name` if it is one of the log's files.
    pub fn path_of(&self, name: &str) -> Option<PathBuf> {
        self.inner.lock().files.path_of(name)
    }

    /// The names of the log's files, oldest first.
    pub fn file_names(&self) -> Vec<String> {
        self.inner.lock().files.files().to_vec()
    }

    /// PURGE BINARY LOGS TO 'name': deletes the files before it.
    ///
    /// # Errors
    /// 1373 for a file that is not in the index; I/O errors.
    pub fn purge_to(&self, name: &str) -> Result<()> {
        let mut inner = self.inner.lock();
        if !inner.files.files().iter().any(|f| f == name) {
            return Err(Error::new(
                common::codes::ER_UNKNOWN_TARGET_BINLOG,
                "Target log not found in binlog index",
            ));
        }
        let r = inner.files.purge_to(name).map_err(io).map(drop);
        self.changed.notify_all();
        r
    }

    /// PURGE BINARY LOGS BEFORE time.
    ///
    /// # Errors
    /// I/O errors.
    pub fn purge_before(&self, time: SystemTime) -> Result<()> {
        let mut inner = self.inner.lock();
        let r = inner.files.purge_before(time).map_err(io).map(drop);
        self.changed.notify_all();
        r
    }

    /// RESET BINARY LOGS AND GTIDS: deletes every file and starts again at `binlog.000001`
    /// with an empty `gtid_executed`.
    ///
    /// # Errors
    /// I/O errors.
    pub fn reset(&self) -> Result<()> {
        let mut inner = self.inner.lock();
        self.sync_locked(&mut inner)?;
        inner.files.reset().map_err(io)?;
        inner.executed = GtidSet::new();
        inner.next_gno = 1;
        inner.ready.clear();
        inner.next_append = inner.next_slot;
        inner.seq = 0;
        self.changed.notify_all();
        Ok(())
    }

    /// Fsyncs the file and removes the records (clean shutdown).
    ///
    /// # Errors
    /// I/O errors.
    pub fn flush(&self) -> Result<()> {
        let mut inner = self.inner.lock();
        self.sync_locked(&mut inner)
    }
}

impl<E: KvEngine> CommitLog for Binlog<E> {
    fn commit(
        &self,
        thread_id: u32,
        db: Option<&str>,
        changes: &[RowChange],
        write: &mut WriteWith<'_>,
    ) -> Result<()> {
        let (ts, micros) = now();
        let xid = {
            let mut inner = self.inner.lock();
            inner.next_xid += 1;
            inner.next_xid - 1
        };
        // encoding runs outside the lock; only the GTID, the write and the append are ordered
        let pending = self.encode_rows(ts, thread_id, db, changes, xid)?;
        self.commit_ordered(thread_id, pending, micros, write)
    }
}

/// The dictionary records, in GNO order.
fn records<E: KvEngine>(st: &Storage<E>) -> Result<Vec<(u64, Vec<u8>)>> {
    let mut end = RECORD_PREFIX.to_vec();
    *end.last_mut().expect("prefix") += 1;
    let mut it = st.engine().iter(Cf::Dict, RECORD_PREFIX, Some(&end), false);
    let mut out = Vec::new();
    while it.valid() {
        let k = it.key();
        if let Ok(b) = <[u8; 8]>::try_from(&k[RECORD_PREFIX.len()..]) {
            out.push((u64::from_be_bytes(b), it.value().to_vec()));
        }
        it.next();
    }
    it.status()?;
    Ok(out)
}

/// Deletes the records of GNOs `first..=last`.
fn delete_records<E: KvEngine>(st: &Storage<E>, first: u64, last: u64) -> Result<()> {
    let mut b = WriteBatch::new();
    b.delete_range(
        Cf::Dict,
        record_key(first),
        record_key(last.saturating_add(1)),
    );
    st.engine().write(&b, false)
}

#[cfg(test)]
mod tests {
    use storage::mem::MemEngine;
    use storage::StorageOptions;

    use super::*;

    fn opts(dir: &std::path::Path, sync_every: u64) -> BinlogOptions {
        BinlogOptions {
            dir: dir.to_path_buf(),
            basename: "binlog".into(),
            server_id: 1,
            server_uuid: Uuid::parse("3e11fa47-71ca-11e1-9e33-c80aa9429562").unwrap(),
            max_size: 1 << 30,
            gtid_mode: true,
            server_version: "8.4.7-strata".into(),
            sync_every,
        }
    }

    #[test]
    fn assigned_gtids_are_logged_and_recovered_from_the_records() {
        let source = Uuid::parse("aaaaaaaa-71ca-11e1-9e33-c80aa9429562").unwrap();
        let st = Storage::open(MemEngine::new(), StorageOptions::default()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let log = Binlog::open(&st, opts(dir.path(), 1000)).unwrap();
        log.assign_gtid(5, source, 10, 1);
        log.log_ddl(5, Some("d"), "CREATE TABLE t (x INT)").unwrap();
        log.log_ddl(6, Some("d"), "CREATE TABLE u (x INT)").unwrap();
        // a source transaction that changed nothing here is still executed
        log.assign_gtid(5, source, 11, 1);
        log.log_assigned_empty(5).unwrap();
        log.log_assigned_empty(5).unwrap(); // nothing assigned: nothing logged
        log.assign_gtid(5, source, 12, 1);
        assert!(log.unassign_gtid(5));
        let own = log.options().server_uuid;
        let want = |g: &GtidSet| {
            g.contains(&source, 10)
                && g.contains(&source, 11)
                && !g.contains(&source, 12)
                && g.intervals(&own) == vec![(1, 1)]
        };
        assert!(want(&log.gtid_executed()), "{:?}", log.gtid_executed());
        // the files lost (not fsynced): a new log appends the records with their GTIDs
        drop(log);
        let dir2 = tempfile::tempdir().unwrap();
        let log = Binlog::open(&st, opts(dir2.path(), 1000)).unwrap();
        assert!(want(&log.gtid_executed()), "{:?}", log.gtid_executed());
        log.log_ddl(6, Some("d"), "CREATE TABLE v (x INT)").unwrap();
        assert_eq!(log.gtid_executed().intervals(&own), vec![(1, 2)]);
    }
}
