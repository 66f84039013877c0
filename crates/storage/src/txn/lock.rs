//! [`LockManager`]: row and unique-value locks keyed by bytes, shared/exclusive, owned by
//! transaction ids, re-entrant, upgradable, held until the transaction ends.
//!
//! The key space is split into mutex-protected shards (no global lock on the hot path). A blocked
//! request waits on its shard's condition variable in slices of at most 10 ms so a KILL is
//! noticed promptly; it reports the wait to an optional [`WaitObserver`] (the thread pool), and
//! checks a global wait-for graph for cycles (deadlock → the requester fails with 1213).
//!
//! The lock manager remembers the last deadlock it detected ([`LockManager::last_deadlock`]:
//! every transaction of the cycle, the lock each waited for and the one it held, and who the
//! thread was — its [`LockOwner`], set per statement by the SQL layer with [`set_owner`]); the
//! report is made only when a cycle is found, never on the path of a lock that is granted.

use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use common::{codes, Error, Result};
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

/// Who the thread taking locks works for, as a deadlock report and SHOW ENGINE INNODB STATUS
/// show it (the SQL layer's session). Installed per thread with [`set_owner`].
pub trait LockOwner: Send + Sync {
    /// The connection (thread) id.
    fn thread_id(&self) -> u64;
    /// What the owner does now, for a report about transaction `txn` (called only when a
    /// deadlock was found, for the transactions of the cycle while they wait).
    fn describe(&self, txn: u64) -> OwnerInfo;
}

/// A lock owner's facts at the moment of a report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnerInfo {
    /// Connection (thread) id.
    pub thread_id: u64,
    /// The statement counter of the connection (InnoDB's "query id").
    pub query_id: u64,
    /// User name.
    pub user: String,
    /// Client host (a host name, an address, or `localhost`).
    pub host: String,
    /// Current database.
    pub db: Option<String>,
    /// The running statement's text.
    pub statement: String,
    /// Seconds the transaction (or, when not known, its statement) has been active.
    pub active_secs: u64,
    /// Row locks the transaction held at its last statement's end (0 when not known).
    pub row_locks: u64,
}

thread_local! {
    static OWNER: RefCell<Option<Arc<dyn LockOwner>>> = const { RefCell::new(None) };
}

/// Makes `owner` the calling thread's lock owner (a pointer comparison when it already is).
pub fn set_owner(owner: &Arc<dyn LockOwner>) {
    OWNER.with(|c| {
        let mut c = c.borrow_mut();
        let same = c
            .as_ref()
            .is_some_and(|o| std::ptr::addr_eq(Arc::as_ptr(o), Arc::as_ptr(owner)));
        if !same {
            *c = Some(owner.clone());
        }
    });
}

fn current_owner() -> Option<Arc<dyn LockOwner>> {
    OWNER.with(|c| c.borrow().clone())
}

/// One transaction of a deadlock cycle.
#[derive(Debug, Clone)]
pub struct DeadlockTxn {
    /// Transaction id.
    pub txn: u64,
    /// Its thread, if it had a [`LockOwner`].
    pub owner: Option<OwnerInfo>,
    /// The key it waited for and in which mode.
    pub waits_for: (Vec<u8>, Mode),
    /// The key it held that the previous transaction of the cycle waited for, and its mode.
    pub holds: (Vec<u8>, Mode),
    /// How long it had been waiting.
    pub waited: Duration,
}

/// The last deadlock the lock manager detected.
#[derive(Debug, Clone)]
pub struct DeadlockReport {
    /// When it was detected.
    pub at: SystemTime,
    /// The cycle: each transaction waits for a key the next one holds (the last one's key is
    /// held by the first); the last is the requester that closed the cycle.
    pub txns: Vec<DeadlockTxn>,
    /// Index in `txns` of the transaction rolled back (the requester).
    pub victim: usize,
}

/// A lock request that is waiting now (SHOW ENGINE INNODB STATUS's lock waits).
#[derive(Debug, Clone)]
pub struct LockWait {
    /// The waiting transaction.
    pub txn: u64,
    /// Its thread id (0 without a [`LockOwner`]).
    pub thread_id: u64,
    /// The key and mode requested.
    pub key: Vec<u8>,
    /// Requested mode.
    pub mode: Mode,
    /// The transactions it waits for, with the mode each holds.
    pub holders: Vec<(u64, Mode)>,
    /// How long it has been waiting.
    pub waited: Duration,
}

/// A waiting transaction in the wait-for graph.
struct WaitNode {
    blockers: Vec<u64>,
    key: Vec<u8>,
    mode: Mode,
    holders: Vec<(u64, Mode)>,
    since: Instant,
    owner: Option<Arc<dyn LockOwner>>,
}

/// What a locking read does about a row another transaction holds (`FOR UPDATE` /
/// `FOR SHARE` with nothing, `NOWAIT` or `SKIP LOCKED`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WaitPolicy {
    /// Wait up to the timeout (deadlock detection on).
    #[default]
    Wait,
    /// Fail the statement at once with 3572.
    NoWait,
    /// Leave the row out of the result ([`is_skipped`] tells the reader).
    SkipLocked,
}

/// The message of the error a [`WaitPolicy::SkipLocked`] request gives for a busy row; readers
/// that can skip it test for it with [`is_skipped`] (it never reaches a client).
const SKIPPED: &str = "row skipped: locked by another transaction (SKIP LOCKED)";

/// Whether `e` is the busy-row signal of a [`WaitPolicy::SkipLocked`] request.
pub fn is_skipped(e: &Error) -> bool {
    e.code.num == codes::ER_LOCK_NOWAIT.num && e.msg == SKIPPED
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
    /// Whether to wait at all (NOWAIT / SKIP LOCKED do not).
    pub policy: WaitPolicy,
}

impl Default for WaitCtx {
    fn default() -> Self {
        WaitCtx {
            timeout: Duration::from_secs(50),
            killed: Arc::new(AtomicBool::new(false)),
            observer: None,
            policy: WaitPolicy::Wait,
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
    /// Wait-for graph: waiting txn → what it waits for and on whom.
    graph: Mutex<HashMap<u64, WaitNode>>,
    waits: AtomicU64,
    deadlocks: AtomicU64,
    timeouts: AtomicU64,
    /// The last deadlock detected.
    last_deadlock: Mutex<Option<Arc<DeadlockReport>>>,
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
            last_deadlock: Mutex::new(None),
        }
    }

    /// The last deadlock detected, if any.
    pub fn last_deadlock(&self) -> Option<Arc<DeadlockReport>> {
        self.last_deadlock.lock().clone()
    }

    /// The lock requests waiting now.
    pub fn waiting(&self) -> Vec<LockWait> {
        let g = self.graph.lock();
        g.iter()
            .map(|(txn, n)| LockWait {
                txn: *txn,
                thread_id: n.owner.as_ref().map_or(0, |o| o.thread_id()),
                key: n.key.clone(),
                mode: n.mode,
                holders: n.holders.clone(),
                waited: n.since.elapsed(),
            })
            .collect()
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
        match ctx.policy {
            WaitPolicy::Wait => {}
            WaitPolicy::NoWait => {
                return Err(Error::new(
                    codes::ER_LOCK_NOWAIT,
                    "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set.",
                ))
            }
            WaitPolicy::SkipLocked => return Err(Error::new(codes::ER_LOCK_NOWAIT, SKIPPED)),
        }
        self.waits.fetch_add(1, Ordering::Relaxed);
        e.waiting += 1;
        let since = Instant::now();
        let deadline = since + ctx.timeout;
        let mut last_blockers: Vec<u64> = Vec::new();
        let mut observing = false;
        let owner = current_owner();
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
                let node = WaitNode {
                    holders: e
                        .holders
                        .iter()
                        .filter(|(t, _)| blockers.contains(t))
                        .copied()
                        .collect(),
                    blockers: blockers.clone(),
                    key: key.to_vec(),
                    mode,
                    since,
                    owner: owner.clone(),
                };
                if let Some(node) = self.add_wait_and_detect(txn, node) {
                    self.deadlocks.fetch_add(1, Ordering::Relaxed);
                    self.record_deadlock(txn, node);
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

    /// Records `txn`'s wait and returns its node back if that closes a cycle (then the node is
    /// not kept).
    fn add_wait_and_detect(&self, txn: u64, node: WaitNode) -> Option<WaitNode> {
        let mut g = self.graph.lock();
        let mut seen = HashSet::new();
        let mut stack: Vec<u64> = node.blockers.clone();
        while let Some(t) = stack.pop() {
            if t == txn {
                g.remove(&txn);
                return Some(node);
            }
            if !seen.insert(t) {
                continue;
            }
            if let Some(next) = g.get(&t) {
                stack.extend(next.blockers.iter().copied());
            }
        }
        g.insert(txn, node);
        None
    }

    /// Keeps a report of the cycle `requester` (waiting as `node`) just closed. Runs only when a
    /// deadlock is found; the other transactions of the cycle are still waiting meanwhile, so
    /// their owners describe the statements that wait.
    fn record_deadlock(&self, requester: u64, node: WaitNode) {
        // the requester, then the path back to it: each waits for the next (breadth first)
        let mut members = vec![(requester, node)];
        {
            let g = self.graph.lock();
            let first = &members[0].1.blockers;
            let mut parent: HashMap<u64, u64> = first.iter().map(|b| (*b, requester)).collect();
            let mut queue: std::collections::VecDeque<u64> = first.iter().copied().collect();
            let mut end = None;
            while let Some(t) = queue.pop_front() {
                let Some(n) = g.get(&t) else { continue };
                if n.blockers.contains(&requester) {
                    end = Some(t);
                    break;
                }
                for b in &n.blockers {
                    if *b != requester && !parent.contains_key(b) {
                        parent.insert(*b, t);
                        queue.push_back(*b);
                    }
                }
            }
            let mut chain = Vec::new();
            let mut at = end;
            while let Some(t) = at.filter(|t| *t != requester) {
                chain.push(t);
                at = parent.get(&t).copied();
            }
            for t in chain.into_iter().rev() {
                if let Some(n) = g.get(&t) {
                    members.push((
                        t,
                        WaitNode {
                            blockers: n.blockers.clone(),
                            key: n.key.clone(),
                            mode: n.mode,
                            holders: n.holders.clone(),
                            since: n.since,
                            owner: n.owner.clone(),
                        },
                    ));
                }
            }
        }
        // each holds what the one before it waits for
        let k = members.len();
        let mut txns: Vec<DeadlockTxn> = (0..k)
            .map(|i| {
                let (txn, n) = &members[i];
                let (_, prev) = &members[(i + k - 1) % k];
                let held_mode = prev
                    .holders
                    .iter()
                    .find(|(t, _)| t == txn)
                    .map_or(Mode::Exclusive, |(_, m)| *m);
                DeadlockTxn {
                    txn: *txn,
                    owner: n.owner.as_ref().map(|o| o.describe(*txn)),
                    waits_for: (n.key.clone(), n.mode),
                    holds: (prev.key.clone(), held_mode),
                    waited: n.since.elapsed(),
                }
            })
            .collect();
        // InnoDB lists the requester, the transaction it rolls back, last
        txns.rotate_left(1);
        let victim = txns.len() - 1;
        *self.last_deadlock.lock() = Some(Arc::new(DeadlockReport {
            at: SystemTime::now(),
            txns,
            victim,
        }));
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
    fn nowait_and_skip_locked_do_not_wait() {
        let m = LockManager::new(4);
        m.lock(1, b"a", Mode::Exclusive, &ctx(10)).unwrap();
        let with = |policy| WaitCtx {
            timeout: Duration::from_secs(60),
            policy,
            ..Default::default()
        };
        let t0 = Instant::now();
        let e = m
            .lock(2, b"a", Mode::Shared, &with(WaitPolicy::NoWait))
            .unwrap_err();
        assert_eq!(e.num(), 3572);
        assert!(!is_skipped(&e));
        let e = m
            .lock(2, b"a", Mode::Exclusive, &with(WaitPolicy::SkipLocked))
            .unwrap_err();
        assert!(is_skipped(&e));
        assert!(t0.elapsed() < Duration::from_secs(1));
        assert_eq!(m.stats().waits, 0);
        // a free key is granted as usual
        assert_eq!(
            m.lock(2, b"b", Mode::Exclusive, &with(WaitPolicy::NoWait))
                .unwrap(),
            Acquired::New
        );
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
    fn the_last_deadlock_is_reported_with_both_transactions() {
        struct Who(u64);
        impl LockOwner for Who {
            fn thread_id(&self) -> u64 {
                self.0
            }
            fn describe(&self, txn: u64) -> OwnerInfo {
                OwnerInfo {
                    thread_id: self.0,
                    statement: format!("statement of {txn}"),
                    ..Default::default()
                }
            }
        }
        let m = Arc::new(LockManager::new(4));
        assert!(m.last_deadlock().is_none());
        m.lock(1, b"a", Mode::Exclusive, &ctx(10)).unwrap();
        m.lock(2, b"b", Mode::Shared, &ctx(10)).unwrap();
        let m2 = m.clone();
        let h = std::thread::spawn(move || {
            set_owner(&(Arc::new(Who(11)) as Arc<dyn LockOwner>));
            m2.lock(1, b"b", Mode::Exclusive, &ctx(5000))
        });
        while m.waiting().is_empty() {
            std::thread::sleep(Duration::from_millis(5));
        }
        let w = m.waiting();
        assert_eq!(
            (w[0].txn, w[0].thread_id, w[0].key.as_slice()),
            (1, 11, &b"b"[..])
        );
        assert_eq!(w[0].holders, vec![(2, Mode::Shared)]);
        set_owner(&(Arc::new(Who(22)) as Arc<dyn LockOwner>));
        let e = m.lock(2, b"a", Mode::Shared, &ctx(5000)).unwrap_err();
        assert_eq!(e.num(), 1213);
        let r = m.last_deadlock().expect("a report");
        assert_eq!(r.txns.len(), 2);
        assert_eq!(r.victim, 1);
        let (t1, t2) = (&r.txns[0], &r.txns[1]);
        assert_eq!((t1.txn, t2.txn), (1, 2));
        assert_eq!(t1.waits_for, (b"b".to_vec(), Mode::Exclusive));
        assert_eq!(t1.holds, (b"a".to_vec(), Mode::Exclusive));
        assert_eq!(t2.waits_for, (b"a".to_vec(), Mode::Shared));
        assert_eq!(t2.holds, (b"b".to_vec(), Mode::Shared));
        let o1 = t1.owner.as_ref().unwrap();
        assert_eq!(
            (o1.thread_id, o1.statement.as_str()),
            (11, "statement of 1")
        );
        assert_eq!(t2.owner.as_ref().unwrap().thread_id, 22);
        m.release(2, &[b"b".to_vec()]);
        assert_eq!(h.join().unwrap().unwrap(), Acquired::New);
        assert!(m.waiting().is_empty());
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
            policy: WaitPolicy::Wait,
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
