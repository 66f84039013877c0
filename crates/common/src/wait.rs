//! Wait callbacks (MySQL's `thd_wait_begin` / `thd_wait_end`): code that is about to block
//! reports it so a thread pool can start another statement in the same thread group meanwhile.
//!
//! The API is thread-local and costs one thread-local read when nobody listens. A pool worker
//! installs its [`WaitHandler`] with [`set_handler`]; any code below it (the lock manager, SLEEP(),
//! user locks, commit sync) calls [`begin`] / [`end`] — or holds a [`WaitGuard`] from [`guard`] —
//! around the blocking part. Nested waits are reported once (the outermost). A session can also
//! install a per-statement [`set_state_cell`] that mirrors the current wait type, which is what
//! `SHOW PROCESSLIST`'s State column reads.
//!
//! ```
//! use common::wait::{self, WaitType};
//! let _g = wait::guard(WaitType::Sleep); // reported to the pool, if this thread is a worker
//! // ... block ...
//! ```

use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What a blocked thread waits for (the numbering of MySQL's `thd_wait_type`, plus `Net`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum WaitType {
    /// An uninterrupted sleep (SLEEP()).
    Sleep = 1,
    /// File I/O very likely to read from disk.
    DiskIo = 2,
    /// A row (or unique-value) lock of the storage engine.
    RowLock = 3,
    /// A global lock (e.g. the global read lock).
    GlobalLock = 4,
    /// A metadata lock other than a table lock.
    MetaDataLock = 5,
    /// A table lock.
    TableLock = 6,
    /// A user-level lock (GET_LOCK).
    UserLock = 7,
    /// Waiting for the binary log.
    Binlog = 8,
    /// Waiting for a group commit.
    GroupCommit = 9,
    /// An fsync (commit durability).
    Sync = 10,
    /// Strata extension: waiting for the client (authentication round trips).
    Net = 11,
}

impl WaitType {
    /// Every wait type, in numbering order.
    pub const ALL: [WaitType; 11] = [
        WaitType::Sleep,
        WaitType::DiskIo,
        WaitType::RowLock,
        WaitType::GlobalLock,
        WaitType::MetaDataLock,
        WaitType::TableLock,
        WaitType::UserLock,
        WaitType::Binlog,
        WaitType::GroupCommit,
        WaitType::Sync,
        WaitType::Net,
    ];

    /// Position in [`WaitType::ALL`] (for per-type counters).
    pub fn index(self) -> usize {
        self as usize - 1
    }

    /// The type with number `n` (1-based, as stored in a state cell).
    pub fn from_u8(n: u8) -> Option<WaitType> {
        WaitType::ALL.get((n as usize).checked_sub(1)?).copied()
    }

    /// Upper-case name (TP_THREAD_STATE.WAIT_TYPE).
    pub fn name(self) -> &'static str {
        match self {
            WaitType::Sleep => "SLEEP",
            WaitType::DiskIo => "DISKIO",
            WaitType::RowLock => "ROW_LOCK",
            WaitType::GlobalLock => "GLOBAL_LOCK",
            WaitType::MetaDataLock => "META_DATA_LOCK",
            WaitType::TableLock => "TABLE_LOCK",
            WaitType::UserLock => "USER_LOCK",
            WaitType::Binlog => "BINLOG",
            WaitType::GroupCommit => "GROUP_COMMIT",
            WaitType::Sync => "SYNC",
            WaitType::Net => "NET",
        }
    }

    /// The processlist State shown while waiting (MySQL's wording where it has one).
    pub fn state(self) -> &'static str {
        match self {
            WaitType::Sleep => "User sleep",
            WaitType::DiskIo => "Reading from disk",
            WaitType::RowLock => "Waiting for row lock",
            WaitType::GlobalLock => "Waiting for global read lock",
            WaitType::MetaDataLock => "Waiting for table metadata lock",
            WaitType::TableLock => "Waiting for table level lock",
            WaitType::UserLock => "User lock",
            WaitType::Binlog => "Waiting for binlog",
            WaitType::GroupCommit => "Waiting for group commit",
            WaitType::Sync => "waiting for handler commit",
            WaitType::Net => "Reading from net",
        }
    }
}

/// Receives a thread's wait reports (implemented by the thread pool for its workers).
///
/// Both methods are called on the blocking thread itself, never while the caller holds a lock
/// the handler might need; they must not block for long.
pub trait WaitHandler: Send + Sync {
    /// The calling thread is about to block for a `t` wait.
    fn wait_begin(&self, t: WaitType);
    /// The calling thread stopped blocking.
    fn wait_end(&self);
}

thread_local! {
    static HANDLER: RefCell<Option<Arc<dyn WaitHandler>>> = const { RefCell::new(None) };
    static DEPTH: Cell<u32> = const { Cell::new(0) };
    static STATE: RefCell<Option<Arc<AtomicU8>>> = const { RefCell::new(None) };
    /// When the current lock wait began (see [`lock_wait_micros`]).
    static LOCK_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// Microseconds this thread has spent in lock waits.
    static LOCK_MICROS: Cell<u64> = const { Cell::new(0) };
}

/// True for the waits a statement's `Lock_time` counts (the slow query log): row, table,
/// metadata and global locks (MySQL 8.0.28+ counts InnoDB's row-lock waits too).
fn is_lock(t: WaitType) -> bool {
    matches!(
        t,
        WaitType::RowLock | WaitType::TableLock | WaitType::MetaDataLock | WaitType::GlobalLock
    )
}

/// Microseconds the calling thread has spent in lock waits ([`WaitType::RowLock`],
/// `TableLock`, `MetaDataLock`, `GlobalLock`) since it started: a statement's lock time is
/// the difference of two readings. Only the outermost wait of a nest is timed.
pub fn lock_wait_micros() -> u64 {
    LOCK_MICROS.with(Cell::get)
}

/// Installs (or removes) the calling thread's handler. Returns the previous one.
pub fn set_handler(h: Option<Arc<dyn WaitHandler>>) -> Option<Arc<dyn WaitHandler>> {
    HANDLER.with(|c| std::mem::replace(&mut *c.borrow_mut(), h))
}

/// Installs (or removes) the cell that mirrors the calling thread's current wait type
/// (0 = not waiting, else the type's number). Returns the previous one.
pub fn set_state_cell(cell: Option<Arc<AtomicU8>>) -> Option<Arc<AtomicU8>> {
    STATE.with(|c| std::mem::replace(&mut *c.borrow_mut(), cell))
}

/// Reports that the calling thread is about to block. Every `begin` must be paired with an
/// [`end`] on the same thread; nested pairs are reported once.
pub fn begin(t: WaitType) {
    let depth = DEPTH.with(|d| {
        let n = d.get();
        d.set(n + 1);
        n
    });
    if depth > 0 {
        return;
    }
    if is_lock(t) {
        LOCK_SINCE.with(|c| c.set(Some(Instant::now())));
    }
    STATE.with(|c| {
        if let Some(cell) = &*c.borrow() {
            cell.store(t as u8, Ordering::Relaxed);
        }
    });
    let h = HANDLER.with(|c| c.borrow().clone());
    if let Some(h) = h {
        h.wait_begin(t);
    }
}

/// Reports that the wait begun with [`begin`] ended.
pub fn end() {
    let depth = DEPTH.with(|d| {
        let n = d.get().saturating_sub(1);
        d.set(n);
        n
    });
    if depth > 0 {
        return;
    }
    if let Some(since) = LOCK_SINCE.with(Cell::take) {
        let waited = since.elapsed().as_micros() as u64;
        LOCK_MICROS.with(|c| c.set(c.get().saturating_add(waited)));
    }
    STATE.with(|c| {
        if let Some(cell) = &*c.borrow() {
            cell.store(0, Ordering::Relaxed);
        }
    });
    let h = HANDLER.with(|c| c.borrow().clone());
    if let Some(h) = h {
        h.wait_end();
    }
}

/// True while the calling thread is inside a reported wait.
pub fn in_wait() -> bool {
    DEPTH.with(|d| d.get() > 0)
}

/// Ends a wait when dropped (also on early return or panic).
#[must_use = "the wait ends when the guard is dropped"]
pub struct WaitGuard(());

/// [`begin`] now and [`end`] when the guard is dropped.
pub fn guard(t: WaitType) -> WaitGuard {
    begin(t);
    WaitGuard(())
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Rec(Mutex<Vec<String>>);

    impl WaitHandler for Rec {
        fn wait_begin(&self, t: WaitType) {
            self.0.lock().unwrap().push(format!("begin {}", t.name()));
        }
        fn wait_end(&self) {
            self.0.lock().unwrap().push("end".into());
        }
    }

    #[test]
    fn nested_waits_reported_once_and_state_mirrored() {
        let rec = Arc::new(Rec::default());
        let cell = Arc::new(AtomicU8::new(0));
        set_handler(Some(rec.clone()));
        set_state_cell(Some(cell.clone()));
        {
            let _a = guard(WaitType::RowLock);
            assert_eq!(cell.load(Ordering::Relaxed), 3);
            assert!(in_wait());
            let _b = guard(WaitType::Sync);
            assert_eq!(cell.load(Ordering::Relaxed), 3);
        }
        assert_eq!(cell.load(Ordering::Relaxed), 0);
        assert!(!in_wait());
        set_handler(None);
        begin(WaitType::Sleep);
        end();
        assert_eq!(*rec.0.lock().unwrap(), vec!["begin ROW_LOCK", "end"]);
        assert_eq!(WaitType::from_u8(10), Some(WaitType::Sync));
        assert_eq!(WaitType::from_u8(0), None);
        assert_eq!(WaitType::Sleep.index(), 0);
    }

    #[test]
    fn lock_waits_are_timed_and_other_waits_are_not() {
        let before = lock_wait_micros();
        {
            let _g = guard(WaitType::Sleep);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(lock_wait_micros(), before);
        {
            let _g = guard(WaitType::RowLock);
            // nested: timed once, as the outer wait
            let _n = guard(WaitType::MetaDataLock);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let waited = lock_wait_micros() - before;
        assert!((5_000..1_000_000).contains(&waited), "{waited}");
    }
}
