//! Transactions: [`Txn`] buffers writes (read-your-own-writes for gets and scans), reads from an
//! engine snapshot (REPEATABLE READ: taken at the first read and kept; READ COMMITTED: refreshed
//! per statement), provides statement atomicity and savepoints, holds row locks from the
//! [`lock::LockManager`] until it ends, and commits as one atomic [`WriteBatch`].
//!
//! The write buffer is a persistent (structurally shared) ordered map, so a statement start, a
//! savepoint or a scan iterator keeps an O(1) copy of it: rolling back a statement restores that
//! copy, and an open scan sees the buffer as it was when the scan started.

pub mod changes;
pub mod iter;
pub mod lock;
pub mod table;

use std::sync::Arc;

use common::{codes, Error, Result, Value};
use imbl::OrdMap;
use parking_lot::Mutex;

pub use self::iter::{IndexRange, RowIter};
use self::lock::{Acquired, Mode};
pub use self::lock::{WaitCtx, WaitKind, WaitObserver};
pub use self::table::{InsertOutcome, KeyedRow, LockMode, UpdateOutcome};
use crate::engine::{Cf, KvEngine, KvSnapshot, WriteBatch};
use crate::Storage;

/// Transaction isolation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// Snapshot taken at the first read, kept for the whole transaction (MySQL's default).
    #[default]
    RepeatableRead,
    /// Snapshot refreshed at every statement start.
    ReadCommitted,
}

/// Options of [`Storage::begin`].
#[derive(Debug, Clone, Default)]
pub struct TxnOptions {
    /// Isolation level.
    pub isolation: Isolation,
    /// How lock waits behave (timeout, kill flag, thread-pool observer).
    pub wait: WaitCtx,
}

/// Buffered writes: key → new value (`None` = delete), per column family.
pub(crate) type WriteMap = OrdMap<Vec<u8>, Option<Vec<u8>>>;

#[derive(Clone, Default)]
pub(crate) struct WriteSet {
    pub(crate) data: WriteMap,
    pub(crate) dict: WriteMap,
    /// Row changes for the commit log (only while the transaction logs).
    pub(crate) changes: changes::ChangeList,
}

impl WriteSet {
    fn map(&self, cf: Cf) -> &WriteMap {
        match cf {
            Cf::Data => &self.data,
            Cf::Dict => &self.dict,
        }
    }
    fn map_mut(&mut self, cf: Cf) -> &mut WriteMap {
        match cf {
            Cf::Data => &mut self.data,
            Cf::Dict => &mut self.dict,
        }
    }
    fn is_empty(&self) -> bool {
        self.data.is_empty() && self.dict.is_empty()
    }
}

/// Lock keys held by a transaction (shared with its scan iterators); `done` once it ended, so a
/// scan iterator that outlives its transaction cannot take locks nobody would release.
#[derive(Default)]
pub(crate) struct Held {
    pub(crate) keys: Vec<Vec<u8>>,
    pub(crate) done: bool,
}

/// Shared handle to [`Held`].
pub(crate) type HeldLocks = Arc<Mutex<Held>>;

/// A transaction. Dropping it without [`Txn::commit`] rolls it back.
pub struct Txn<E: KvEngine> {
    pub(crate) st: Arc<Storage<E>>,
    id: u64,
    isolation: Isolation,
    pub(crate) wait: WaitCtx,
    snapshot: Option<Arc<E::Snapshot>>,
    pub(crate) writes: WriteSet,
    pub(crate) held: HeldLocks,
    stmt: Option<WriteSet>,
    savepoints: Vec<(String, WriteSet)>,
    done: bool,
    /// Set while the transaction's row changes go to the commit log.
    logging: Option<LogCtx>,
    /// Shared copies of the table definitions changes were recorded for (by table id).
    pub(crate) logged_defs: std::collections::HashMap<u64, Arc<crate::catalog::TableDef>>,
}

/// Who a logged transaction belongs to (see [`Txn::set_logging`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogCtx {
    /// The connection id.
    pub thread_id: u32,
    /// The current database.
    pub db: Option<String>,
}

impl<E: KvEngine> Txn<E> {
    pub(crate) fn new(st: Arc<Storage<E>>, id: u64, opts: TxnOptions) -> Self {
        Txn {
            st,
            id,
            isolation: opts.isolation,
            wait: opts.wait,
            snapshot: None,
            writes: WriteSet::default(),
            held: Arc::new(Mutex::new(Held::default())),
            stmt: None,
            savepoints: Vec::new(),
            done: false,
            logging: None,
            logged_defs: Default::default(),
        }
    }

    /// Turns recording of row changes for the storage's commit log on (`Some`) or off. Changes
    /// made while off are not logged. Without an installed commit log nothing is recorded.
    pub fn set_logging(&mut self, ctx: Option<LogCtx>) {
        self.logging = ctx.filter(|_| self.st.commit_log().is_some());
    }

    /// True while row changes are recorded.
    pub fn logging(&self) -> bool {
        self.logging.is_some()
    }

    /// Records a row change when logging.
    pub(crate) fn log_change(
        &mut self,
        t: &crate::catalog::TableDef,
        before: Option<&[Value]>,
        after: Option<&[Value]>,
    ) {
        // TEMPORARY tables are not logged in row format, as MySQL
        if self.logging.is_none() || t.temporary {
            return;
        }
        let table = self
            .logged_defs
            .entry(t.id)
            .or_insert_with(|| Arc::new(t.clone()))
            .clone();
        self.writes.changes.push_back(changes::RowChange {
            table,
            before: before.map(Arc::from),
            after: after.map(Arc::from),
        });
    }

    /// The transaction id (lock owner).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The isolation level.
    pub fn isolation(&self) -> Isolation {
        self.isolation
    }

    /// The lock-wait context.
    pub fn wait_ctx(&self) -> &WaitCtx {
        &self.wait
    }

    /// Replaces the lock-wait context (e.g. a new kill flag or timeout for the next statement).
    pub fn set_wait_ctx(&mut self, wait: WaitCtx) {
        self.wait = wait;
    }

    /// True if the transaction has buffered writes.
    pub fn has_writes(&self) -> bool {
        !self.writes.is_empty()
    }

    /// Number of locks held.
    pub fn lock_count(&self) -> usize {
        self.held.lock().keys.len()
    }

    /// The storage this transaction runs on.
    pub fn storage(&self) -> &Arc<Storage<E>> {
        &self.st
    }

    /// The read snapshot, taken now if not yet taken.
    pub(crate) fn snap(&mut self) -> Arc<E::Snapshot> {
        match &self.snapshot {
            Some(s) => s.clone(),
            None => {
                let s = Arc::new(self.st.engine().snapshot());
                self.snapshot = Some(s.clone());
                s
            }
        }
    }

    /// Starts a statement: READ COMMITTED takes a fresh snapshot at the statement's first read;
    /// the write buffer is remembered for [`Txn::stmt_rollback`].
    pub fn stmt_begin(&mut self) {
        if self.isolation == Isolation::ReadCommitted {
            self.snapshot = None;
        }
        self.stmt = Some(self.writes.clone());
    }

    /// Ends a statement successfully.
    pub fn stmt_commit(&mut self) {
        self.stmt = None;
    }

    /// Undoes the current statement's writes (locks stay held, as in InnoDB).
    pub fn stmt_rollback(&mut self) {
        if let Some(w) = self.stmt.take() {
            self.writes = w;
        }
    }

    /// `SAVEPOINT name` (an existing savepoint with that name is replaced).
    pub fn savepoint(&mut self, name: &str) {
        self.savepoints
            .retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.savepoints
            .push((name.to_string(), self.writes.clone()));
    }

    fn find_savepoint(&self, name: &str) -> Result<usize> {
        self.savepoints
            .iter()
            .rposition(|(n, _)| n.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::new(
                    codes::ER_SP_DOES_NOT_EXIST,
                    format!("SAVEPOINT {name} does not exist"),
                )
            })
    }

    /// `ROLLBACK TO SAVEPOINT name`: undoes the writes made after it; later savepoints are
    /// removed, this one is kept.
    ///
    /// # Errors
    /// 1305 if there is no such savepoint.
    pub fn rollback_to_savepoint(&mut self, name: &str) -> Result<()> {
        let p = self.find_savepoint(name)?;
        self.writes = self.savepoints[p].1.clone();
        self.savepoints.truncate(p + 1);
        if self.stmt.is_some() {
            self.stmt = Some(self.writes.clone());
        }
        Ok(())
    }

    /// `RELEASE SAVEPOINT name`: removes it and every later savepoint.
    ///
    /// # Errors
    /// 1305 if there is no such savepoint.
    pub fn release_savepoint(&mut self, name: &str) -> Result<()> {
        let p = self.find_savepoint(name)?;
        self.savepoints.truncate(p);
        Ok(())
    }

    /// What this transaction's locking reads do about busy rows from now on (the executor sets
    /// NOWAIT / SKIP LOCKED for one statement and puts back [`lock::WaitPolicy::Wait`]).
    pub fn set_wait_policy(&mut self, policy: lock::WaitPolicy) {
        self.wait.policy = policy;
    }

    /// Acquires a lock on `key` for this transaction.
    ///
    /// # Errors
    /// 1213, 1205 or 1317 (see [`lock::LockManager::lock`]).
    pub fn lock_key(&self, key: &[u8], exclusive: bool) -> Result<()> {
        lock_into(&self.st, self.id, &self.held, &self.wait, key, exclusive)
    }

    /// Consistent read of a raw key (own writes, else the snapshot).
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn kv_get(&mut self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if let Some(v) = self.writes.map(cf).get(key) {
            return Ok(v.clone());
        }
        self.snap().get(cf, key)
    }

    /// Current read of a raw key (own writes, else the latest committed value).
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn kv_get_latest(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        if let Some(v) = self.writes.map(cf).get(key) {
            return Ok(v.clone());
        }
        self.st.engine().get(cf, key)
    }

    /// Buffers a raw put (e.g. a dictionary change committed together with data).
    pub fn kv_put(&mut self, cf: Cf, key: Vec<u8>, value: Vec<u8>) {
        self.writes.map_mut(cf).insert(key, Some(value));
    }

    /// Buffers a raw delete.
    pub fn kv_delete(&mut self, cf: Cf, key: Vec<u8>) {
        self.writes.map_mut(cf).insert(key, None);
    }

    /// Commits: writes every buffered change in one atomic batch, releases the locks, and with
    /// `sync` returns once the batch is durable. A transaction without writes writes nothing.
    ///
    /// The locks go before the log's fsync, as InnoDB releases its row locks before it flushes
    /// the redo log: the next writer of a hot row need not wait for this commit's fsync, and
    /// its own commit, logged after this one, cannot become durable without it. (Holding the
    /// locks through the fsync capped a hot row at one update per fsync.) A reader may see the
    /// changes before the commit returns, as with InnoDB.
    ///
    /// # Errors
    /// An engine I/O error; the transaction is rolled back then, unless the write was applied
    /// and only the fsync failed.
    pub fn commit(mut self, sync: bool) -> Result<()> {
        let wrote = !self.writes.is_empty();
        let res = if !wrote {
            Ok(())
        } else {
            let mut b = WriteBatch::new();
            for cf in Cf::ALL {
                for (k, v) in self.writes.map(cf).iter() {
                    match v {
                        Some(v) => b.put(cf, k.clone(), v.clone()),
                        None => b.delete(cf, k.clone()),
                    }
                }
            }
            match (&self.logging, self.st.commit_log()) {
                (Some(ctx), Some(log)) if !self.writes.changes.is_empty() => {
                    let changes: Vec<changes::RowChange> =
                        self.writes.changes.iter().cloned().collect();
                    let engine = self.st.engine();
                    let mut write = |records: changes::LogRecords| {
                        for (k, v) in records {
                            b.put(Cf::Dict, k, v);
                        }
                        engine.write(&b, false)
                    };
                    log.commit(ctx.thread_id, ctx.db.as_deref(), &changes, &mut write)
                }
                _ => self.st.engine().write(&b, false),
            }
        };
        self.finish();
        res?;
        if sync && wrote {
            self.st.engine().sync_log()?;
        }
        Ok(())
    }

    /// Rolls back: drops the buffered writes and releases the locks.
    pub fn rollback(mut self) {
        self.finish();
    }

    fn finish(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        self.writes = WriteSet::default();
        self.snapshot = None;
        let keys = {
            let mut h = self.held.lock();
            h.done = true;
            std::mem::take(&mut h.keys)
        };
        self.st.locks().release(self.id, &keys);
    }
}

impl<E: KvEngine> Drop for Txn<E> {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Locks `key` for `txn` and records it in `held` if newly acquired.
pub(crate) fn lock_into<E: KvEngine>(
    st: &Storage<E>,
    txn: u64,
    held: &HeldLocks,
    wait: &WaitCtx,
    key: &[u8],
    exclusive: bool,
) -> Result<()> {
    let mode = if exclusive {
        Mode::Exclusive
    } else {
        Mode::Shared
    };
    if held.lock().done {
        return Err(Error::internal(
            "lock requested by a scan of a transaction that already ended",
        ));
    }
    if st.locks().lock(txn, key, mode, wait)? == Acquired::New {
        let mut h = held.lock();
        if h.done {
            drop(h);
            st.locks().release(txn, &[key.to_vec()]);
            return Err(Error::internal(
                "lock requested by a scan of a transaction that already ended",
            ));
        }
        h.keys.push(key.to_vec());
    }
    Ok(())
}
