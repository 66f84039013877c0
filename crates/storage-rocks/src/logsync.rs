//! Group fsync of the write-ahead log for commits that wrote without syncing.
//!
//! A commit writes its batch unsynced, releases its row locks, then waits here until the log
//! is durable up to its write (see `storage::txn::Txn::commit`). One caller at a time runs
//! RocksDB's `FlushWAL(sync)`; the callers that arrive meanwhile wait for it and, when it
//! covered their writes, return without an fsync of their own. RocksDB's `SyncWAL` alone would
//! make each of them wait for the running sync and then run one more.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::{self, Thread};

use parking_lot::Mutex;
use rocksdb::DB;

/// A waiter's state, set by the caller that ran the fsync.
const WAITING: u8 = 0;
/// The fsync covered the waiter's write.
const DONE: u8 = 1;
/// The waiter runs the next fsync.
const LEAD: u8 = 2;
/// The fsync failed: the waiter starts over.
const RETRY: u8 = 3;

#[derive(Debug)]
struct Waiter {
    want: u64,
    thread: Thread,
    state: Arc<AtomicU8>,
}

#[derive(Debug, Default)]
struct State {
    /// Every write with a sequence number up to this one is durable.
    synced: u64,
    /// A caller is running the fsync (or was handed it).
    running: bool,
    /// Callers waiting for the running fsync, in arrival order.
    waiters: Vec<Waiter>,
}

/// The group-sync state of one database.
///
/// Waiters are woken one by one, not by a condition variable's broadcast: after an fsync the
/// callers it covered are told so and return, and the first caller it did not cover is handed
/// the next fsync; nobody else wakes. With a broadcast every waiter woke, took the mutex in
/// turn, and the ones that arrived during the fsync went back to sleep (measured under sysbench
/// oltp_insert at 8 threads: 3.6 futex calls per insert, 80 % of them here).
#[derive(Debug, Default)]
pub(crate) struct LogSync {
    state: Mutex<State>,
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
        loop {
            let mut g = self.state.lock();
            if g.synced >= want {
                return Ok(());
            }
            if !g.running {
                g.running = true;
                break;
            }
            let state = Arc::new(AtomicU8::new(WAITING));
            g.waiters.push(Waiter {
                want,
                thread: thread::current(),
                state: state.clone(),
            });
            drop(g);
            let s = loop {
                match state.load(Ordering::Acquire) {
                    // park may return spuriously: look again
                    WAITING => thread::park(),
                    s => break s,
                }
            };
            match s {
                DONE => return Ok(()),
                LEAD => break,
                _ => continue,
            }
        }
        let upto = latest();
        let r = flush();
        let mut g = self.state.lock();
        let waiters = std::mem::take(&mut g.waiters);
        let mut wake = Vec::with_capacity(waiters.len());
        if r.is_ok() {
            g.synced = g.synced.max(upto);
            let synced = g.synced;
            let mut lead = false;
            for w in waiters {
                if w.want <= synced {
                    wake.push((w, DONE));
                } else if !lead {
                    lead = true;
                    wake.push((w, LEAD));
                } else {
                    g.waiters.push(w);
                }
            }
            // `running` passes to the new leader, if any
            g.running = lead;
        } else {
            g.running = false;
            wake.extend(waiters.into_iter().map(|w| (w, RETRY)));
        }
        drop(g);
        for (w, s) in wake {
            w.state.store(s, Ordering::Release);
            w.thread.unpark();
        }
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

    /// A caller waiting on a sync that fails is not told its write is durable: it starts over
    /// and runs its own sync.
    #[test]
    fn waiters_of_a_failed_sync_run_their_own() {
        let log = Arc::new(FakeLog::default());
        let s = Arc::new(LogSync::default());
        log.write();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let leader = {
            let (log, s) = (log.clone(), s.clone());
            std::thread::spawn(move || {
                s.sync_with(
                    || log.written.load(Ordering::SeqCst),
                    || {
                        wait.recv().unwrap();
                        Err("io")
                    },
                )
            })
        };
        while !s.state.lock().running {
            std::thread::yield_now();
        }
        let waiter = {
            let (log, s) = (log.clone(), s.clone());
            std::thread::spawn(move || log.sync(&s))
        };
        while s.state.lock().waiters.is_empty() {
            std::thread::yield_now();
        }
        go.send(()).unwrap();
        assert_eq!(leader.join().unwrap(), Err("io"));
        assert_eq!(waiter.join().unwrap(), Ok(()));
        assert_eq!(
            log.flushes.load(Ordering::SeqCst),
            1,
            "the waiter's own sync"
        );
        assert_eq!(log.durable.load(Ordering::SeqCst), 1);
        assert!(!s.state.lock().running);
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
