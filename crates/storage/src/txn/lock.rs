//! [`LockManager`]: row and unique-value locks keyed by bytes, shared/exclusive, owned by
//! transaction ids, re-entrant, upgradable, held until the transaction ends.
//!
//! The key space is split into mutex-protected shards (no global lock on the hot path). A blocked
//! request waits on its shard's condition variable in slices of at most 10 ms so a KILL is
//! noticed promptly; it reports the wait to an optional [`WaitObserver`] (the thread pool), and
//! checks a global wait-for graph for cycles (deadlock → the requester fails with 1213).

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Error, Result};
use parking_lot::{Condvar, Mutex, MutexGuard};

/// What a blocked thread waits for (reported to [`WaitObserver`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitKind {
    /// A row (or unique-value) lock.
    RowLock,
    /// A table or metadata lock.
    TableLock,
    /// Something else (I/O, sleep).
    Other,
}

/// Notified around blocking waits so a thread pool can start another statement meanwhile.
pub trait WaitObserver: Send + Sync {
    /// The calling thread is about to block.
    fn wait_begin(&self, kind: WaitKind);
    /// The calling thread stopped blocking.
    fn wait_end(&self);
}

/// How a lock request may wait.
#[derive(Clone)]
pub struct WaitCtx {
    /// Maximum wait (`innodb_lock_wait_timeout`, default 50 s).
    pub timeout: Duration,
    /// Set by KILL: a waiting request fails with 1317 within ~10 ms.
    pub killed: Arc<AtomicBool>,
    /// Told about wait begin/end.
    pub observer: Option<Arc<dyn WaitObserver>>,
}

impl Default for WaitCtx {
    fn default() -> Self {
        WaitCtx {
            timeout: Duration::from_secs(50),
            killed: Arc::new(AtomicBool::new(false)),
            observer: None,
        }
    }
}

impl std::fmt::Debug for WaitCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitCtx")
            .field("timeout", &self.timeout)
            .field("killed", &self.killed.load(Ordering::Relaxed))
            .field("observer", &self.observer.is_some())
            .finish()
    }
}

/// Lock strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// Many holders.
    Shared,
    /// One holder.
    Exclusive,
}

/// Result of a successful [`LockManager::lock`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acquired {
    /// Newly held: the caller must release it at transaction end.
    New,
    /// Already held in this or a stronger mode.
    Already,
    /// Upgraded from shared to exclusive (already recorded for release).
    Upgraded,
}

#[derive(Default)]
struct Entry {
    holders: Vec<(u64, Mode)>,
    waiting: u32,
}

struct Shard {
    map: Mutex<HashMap<Vec<u8>, Entry>>,
    cv: Condvar,
}

/// The lock table.
pub struct LockManager {
    shards: Vec<Shard>,
    /// Wait-for graph: waiting txn → txns it waits on.
    graph: Mutex<HashMap<u64, Vec<u64>>>,
    waits: AtomicU64,
    deadlocks: AtomicU64,
    timeouts: AtomicU64,
}

/// Lock-manager counters (for SHOW ENGINE STATUS / metrics).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LockStats {
    /// Requests that had to wait.
    pub waits: u64,
    /// Deadlocks detected.
    pub deadlocks: u64,
    /// Lock wait timeouts.
    pub timeouts: u64,
}

/// How long a waiter sleeps before it checks its kill flag again (a release of the key wakes
/// it at once). Every waiter wakes this often, so with a thousand waiters a short slice costs
/// real CPU; 100 ms keeps KILL QUERY prompt.
const SLICE: Duration = Duration::from_millis(100);

impl Default for LockManager {
    fn default() -> Self {
        Self::new(256)
    }
}

fn conflicts(holders: &[(u64, Mode)], txn: u64, mode: Mode) -> Vec<u64> {
    holders
        .iter()
        .filter(|(t, m)| *t != txn && (mode == Mode::Exclusive || *m == Mode::Exclusive))
        .map(|(t, _)| *t)
        .collect()
}

impl LockManager {
    /// A lock manager with `shards` shards.
    pub fn new(shards: usize) -> Self {
        LockManager {
            shards: (0..shards.max(1))
                .map(|_| Shard {
                    map: Mutex::new(HashMap::new()),
                    cv: Condvar::new(),
                })
                .collect(),
            graph: Mutex::new(HashMap::new()),
            waits: AtomicU64::new(0),
            deadlocks: AtomicU64::new(0),
            timeouts: AtomicU64::new(0),
        }
    }

    fn shard(&self, key: &[u8]) -> &Shard {
        let mut h = DefaultHasher::new();
        key.hash(&mut h);
        &self.shards[(h.finish() as usize) % self.shards.len()]
    }

    /// Counters.
    pub fn stats(&self) -> LockStats {
        LockStats {
            waits: self.waits.load(Ordering::Relaxed),
            deadlocks: self.deadlocks.load(Ordering::Relaxed),
            timeouts: self.timeouts.load(Ordering::Relaxed),
        }
    }

    /// Acquires `key` in `mode` for `txn`, waiting as `ctx` allows.
    ///
    /// # Errors
    /// 1213 deadlock (this request would close a wait-for cycle), 1205 lock wait timeout,
    /// 1317 interrupted (the kill flag was set while waiting).
    pub fn lock(&self, txn: u64, key: &[u8], mode: Mode, ctx: &WaitCtx) -> Result<Acquired> {
        let shard = self.shard(key);
        let mut g = shard.map.lock();
        // Fast path.
        let e = g.entry(key.to_vec()).or_default();
        if let Some(a) = Self::try_grant(e, txn, mode) {
            return Ok(a);
        }
        self.waits.fetch_add(1, Ordering::Relaxed);
        e.waiting += 1;
        let deadline = Instant::now() + ctx.timeout;
        let mut last_blockers: Vec<u64> = Vec::new();
        let mut observing = false;
        let result = loop {
            // The entry stays while `waiting` counts us; `entry` only guards the impossible.
            let e = match g.get_mut(key) {
                Some(e) => e,
                None => g.entry(key.to_vec()).or_default(),
            };
            if let Some(a) = Self::try_grant(e, txn, mode) {
                break Ok(a);
            }
            let mut blockers = conflicts(&e.holders, txn, mode);
            blockers.sort_unstable();
            if blockers != last_blockers {
                if self.add_wait_and_detect(txn, &blockers) {
                    self.deadlocks.fetch_add(1, Ordering::Relaxed);
                    break Err(Error::deadlock());
                }
                last_blockers = blockers;
            }
            if ctx.killed.load(Ordering::Relaxed) {
                break Err(Error::interrupted());
            }
            let now = Instant::now();
            if now >= deadline {
                self.timeouts.fetch_add(1, Ordering::Relaxed);
                break Err(Error::lock_wait_timeout());
            }
            if !observing {
                if let Some(o) = &ctx.observer {
                    MutexGuard::unlocked(&mut g, || o.wait_begin(WaitKind::RowLock));
                    observing = true;
                    continue;
                }
            }
            shard.cv.wait_for(&mut g, SLICE.min(deadline - now));
        };
        if let Some(e) = g.get_mut(key) {
            e.waiting = e.waiting.saturating_sub(1);
            if e.holders.is_empty() && e.waiting == 0 {
                g.remove(key);
            }
        }
        drop(g);
        self.graph.lock().remove(&txn);
        if observing {
            if let Some(o) = &ctx.observer {
                o.wait_end();
            }
        }
        result
    }

    fn try_grant(e: &mut Entry, txn: u64, mode: Mode) -> Option<Acquired> {
        let mine = e.holders.iter().position(|(t, _)| *t == txn);
        if let Some(p) = mine {
            if e.holders[p].1 >= mode {
                return Some(Acquired::Already);
            }
        }
        if !conflicts(&e.holders, txn, mode).is_empty() {
            return None;
        }
        match mine {
            Some(p) => {
                e.holders[p].1 = mode;
                Some(Acquired::Upgraded)
            }
            None => {
                e.holders.push((txn, mode));
                Some(Acquired::New)
            }
        }
    }

    /// Records `txn → blockers` and returns true if that closes a cycle (then the edge is removed).
    fn add_wait_and_detect(&self, txn: u64, blockers: &[u64]) -> bool {
        let mut g = self.graph.lock();
        g.insert(txn, blockers.to_vec());
        let mut seen = HashSet::new();
        let mut stack: Vec<u64> = blockers.to_vec();
        while let Some(t) = stack.pop() {
            if t == txn {
                g.remove(&txn);
                return true;
            }
            if !seen.insert(t) {
                continue;
            }
            if let Some(next) = g.get(&t) {
                stack.extend(next.iter().copied());
            }
        }
        false
    }

    /// Releases `txn`'s locks on `keys` and wakes their waiters.
    pub fn release(&self, txn: u64, keys: &[Vec<u8>]) {
        for key in keys {
            let shard = self.shard(key);
            let mut g = shard.map.lock();
            let mut notify = false;
            if let Some(e) = g.get_mut(key.as_slice()) {
                e.holders.retain(|(t, _)| *t != txn);
                notify = e.waiting > 0;
                if e.holders.is_empty() && e.waiting == 0 {
                    g.remove(key.as_slice());
                }
            }
            drop(g);
            if notify {
                shard.cv.notify_all();
            }
        }
    }

    /// The number of keys currently locked or waited on (for tests and status output).
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.map.lock().len()).sum()
    }

    /// True if no key is locked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    fn ctx(ms: u64) -> WaitCtx {
        WaitCtx {
            timeout: Duration::from_millis(ms),
            ..Default::default()
        }
    }

    #[test]
    fn shared_exclusive_reentrant_upgrade() {
        let m = LockManager::new(4);
        assert_eq!(
            m.lock(1, b"a", Mode::Shared, &ctx(10)).unwrap(),
            Acquired::New
        );
        assert_eq!(
            m.lock(2, b"a", Mode::Shared, &ctx(10)).unwrap(),
            Acquired::New
        );
        assert_eq!(
            m.lock(1, b"a", Mode::Shared, &ctx(10)).unwrap(),
            Acquired::Already
        );
        assert_eq!(
            m.lock(1, b"a", Mode::Exclusive, &ctx(30))
                .unwrap_err()
                .num(),
            1205
        );
        m.release(2, &[b"a".to_vec()]);
        assert_eq!(
            m.lock(1, b"a", Mode::Exclusive, &ctx(10)).unwrap(),
            Acquired::Upgraded
        );
        assert_eq!(
            m.lock(1, b"a", Mode::Shared, &ctx(10)).unwrap(),
            Acquired::Already
        );
        assert_eq!(
            m.lock(2, b"a", Mode::Shared, &ctx(20)).unwrap_err().num(),
            1205
        );
        m.release(1, &[b"a".to_vec()]);
        assert!(m.is_empty());
    }

    #[test]
    fn waiter_wakes_on_release() {
        let m = Arc::new(LockManager::new(4));
        m.lock(1, b"k", Mode::Exclusive, &ctx(10)).unwrap();
        let m2 = m.clone();
        let h = std::thread::spawn(move || m2.lock(2, b"k", Mode::Exclusive, &ctx(5000)));
        std::thread::sleep(Duration::from_millis(50));
        m.release(1, &[b"k".to_vec()]);
        assert_eq!(h.join().unwrap().unwrap(), Acquired::New);
        m.release(2, &[b"k".to_vec()]);
        assert!(m.is_empty());
    }

    #[test]
    fn deadlock_detected() {
        let m = Arc::new(LockManager::new(4));
        m.lock(1, b"a", Mode::Exclusive, &ctx(10)).unwrap();
        m.lock(2, b"b", Mode::Exclusive, &ctx(10)).unwrap();
        let m2 = m.clone();
        let h = std::thread::spawn(move || m2.lock(1, b"b", Mode::Exclusive, &ctx(5000)));
        std::thread::sleep(Duration::from_millis(50));
        let e = m.lock(2, b"a", Mode::Exclusive, &ctx(5000)).unwrap_err();
        assert_eq!(e.num(), 1213);
        m.release(2, &[b"b".to_vec()]);
        assert_eq!(h.join().unwrap().unwrap(), Acquired::New);
        assert_eq!(m.stats().deadlocks, 1);
    }

    #[test]
    fn upgrade_deadlock_detected() {
        let m = Arc::new(LockManager::new(4));
        m.lock(1, b"a", Mode::Shared, &ctx(10)).unwrap();
        m.lock(2, b"a", Mode::Shared, &ctx(10)).unwrap();
        let m2 = m.clone();
        let h = std::thread::spawn(move || m2.lock(1, b"a", Mode::Exclusive, &ctx(5000)));
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            m.lock(2, b"a", Mode::Exclusive, &ctx(5000))
                .unwrap_err()
                .num(),
            1213
        );
        m.release(2, &[b"a".to_vec()]);
        assert_eq!(h.join().unwrap().unwrap(), Acquired::Upgraded);
    }

    #[test]
    fn kill_interrupts_and_observer_called() {
        struct Obs(AtomicUsize, AtomicUsize);
        impl WaitObserver for Obs {
            fn wait_begin(&self, _k: WaitKind) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
            fn wait_end(&self) {
                self.1.fetch_add(1, Ordering::SeqCst);
            }
        }
        let m = Arc::new(LockManager::new(4));
        m.lock(1, b"a", Mode::Exclusive, &ctx(10)).unwrap();
        let obs = Arc::new(Obs(AtomicUsize::new(0), AtomicUsize::new(0)));
        let c = WaitCtx {
            timeout: Duration::from_secs(60),
            killed: Arc::new(AtomicBool::new(false)),
            observer: Some(obs.clone()),
        };
        let killed = c.killed.clone();
        let m2 = m.clone();
        let h = std::thread::spawn(move || m2.lock(2, b"a", Mode::Shared, &c));
        std::thread::sleep(Duration::from_millis(50));
        let t0 = Instant::now();
        killed.store(true, Ordering::SeqCst);
        assert_eq!(h.join().unwrap().unwrap_err().num(), 1317);
        assert!(t0.elapsed() < Duration::from_millis(500));
        assert_eq!(obs.0.load(Ordering::SeqCst), 1);
        assert_eq!(obs.1.load(Ordering::SeqCst), 1);
    }
}
