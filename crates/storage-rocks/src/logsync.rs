//! Group fsync of the write-ahead log for commits that wrote without syncing.
//!
//! A commit writes its batch unsynced, releases its row locks, then waits here until the log
//! is durable up to its write (see `storage::txn::Txn::commit`). One caller at a time runs
//! RocksDB's `FlushWAL(sync)`; the callers that arrive meanwhile wait for it and, when it
//! covered their writes, return without an fsync of their own. RocksDB's `SyncWAL` alone would
//! make each of them wait for the running sync and then run one more.

use parking_lot::{Condvar, Mutex};
use rocksdb::DB;

#[derive(Debug, Default)]
struct State {
    /// Every write with a sequence number up to this one is durable.
    synced: u64,
    /// A caller is running the fsync.
    running: bool,
}

/// The group-sync state of one database.
#[derive(Debug, Default)]
pub(crate) struct LogSync {
    state: Mutex<State>,
    done: Condvar,
}

impl LogSync {
    /// Returns once every write to `db` that returned before this call is durable.
    ///
    /// # Errors
    /// RocksDB's error from the fsync (the caller that ran it reports it; the waiters try
    /// again themselves).
    pub(crate) fn sync(&self, db: &DB) -> Result<(), rocksdb::Error> {
        self.sync_with(|| db.latest_sequence_number(), || db.flush_wal(true))
    }

    /// [`LogSync::sync`] over any log: `latest` is the sequence number of the last write that
    /// reached the log, `flush` makes the log durable (at least up to what `latest` said just
    /// before it was called).
    fn sync_with<E>(
        &self,
        latest: impl Fn() -> u64,
        flush: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        // Sequence numbers are published after the write reached the log, so a sync that
        // starts after `want` was read covers it.
        let want = latest();
        let mut g = self.state.lock();
        loop {
            if g.synced >= want {
                return Ok(());
            }
            if !g.running {
                break;
            }
            self.done.wait(&mut g);
        }
        g.running = true;
        drop(g);
        let upto = latest();
        let r = flush();
        let mut g = self.state.lock();
        g.running = false;
        if r.is_ok() {
            g.synced = g.synced.max(upto);
        }
        drop(g);
        self.done.notify_all();
        r
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    use super::*;

    /// A log: `written` is the last sequence number written, `durable` the last one synced.
    #[derive(Default)]
    struct FakeLog {
        written: AtomicU64,
        durable: AtomicU64,
        flushes: AtomicU64,
    }

    impl FakeLog {
        fn write(&self) -> u64 {
            self.written.fetch_add(1, Ordering::SeqCst) + 1
        }
        fn sync(&self, s: &LogSync) -> Result<(), ()> {
            s.sync_with(
                || self.written.load(Ordering::SeqCst),
                || {
                    self.flushes.fetch_add(1, Ordering::SeqCst);
                    let w = self.written.load(Ordering::SeqCst);
                    self.durable.fetch_max(w, Ordering::SeqCst);
                    Ok(())
                },
            )
        }
    }

    #[test]
    fn a_sync_covers_the_callers_write_and_a_covered_caller_does_not_flush() {
        let (log, s) = (FakeLog::default(), LogSync::default());
        let seq = log.write();
        log.sync(&s).unwrap();
        assert!(log.durable.load(Ordering::SeqCst) >= seq);
        assert_eq!(log.flushes.load(Ordering::SeqCst), 1);
        // nothing new written: no second fsync
        log.sync(&s).unwrap();
        assert_eq!(log.flushes.load(Ordering::SeqCst), 1);
        log.write();
        log.sync(&s).unwrap();
        assert_eq!(log.flushes.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn concurrent_callers_return_only_once_their_write_is_durable() {
        let log = Arc::new(FakeLog::default());
        let s = Arc::new(LogSync::default());
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (log, s) = (log.clone(), s.clone());
                std::thread::spawn(move || {
                    for _ in 0..500 {
                        let seq = log.write();
                        log.sync(&s).unwrap();
                        assert!(log.durable.load(Ordering::SeqCst) >= seq);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(log.flushes.load(Ordering::SeqCst) <= 4000);
    }

    #[test]
    fn a_failed_flush_is_reported_and_the_next_caller_flushes_again() {
        let (log, s) = (FakeLog::default(), LogSync::default());
        log.write();
        let r = s.sync_with(|| log.written.load(Ordering::SeqCst), || Err("io"));
        assert_eq!(r, Err("io"));
        log.sync(&s).unwrap();
        assert_eq!(log.flushes.load(Ordering::SeqCst), 1);
        assert_eq!(log.durable.load(Ordering::SeqCst), 1);
    }
}
