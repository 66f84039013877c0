//! Metadata locks (MySQL's MDL, reduced to what Strata's statements need).
//!
//! Every statement that reads or writes a table takes a shared lock on its name before it
//! reads the table's definition, and keeps it until its transaction ends (statement end in
//! autocommit mode), so a definition cannot change under an open transaction. DDL takes
//! stronger locks on the names it changes:
//!
//! | mode        | taken by                                   | conflicts with          |
//! |-------------|--------------------------------------------|-------------------------|
//! | SharedRead  | SELECT and the read side of any statement  | Exclusive               |
//! | SharedWrite | INSERT / UPDATE / DELETE                   | NoWrite, Exclusive      |
//! | NoWrite     | a copying ALTER / index build while it reads the rows | SharedWrite, NoWrite, Exclusive |
//! | Exclusive   | DROP / TRUNCATE / RENAME / CREATE / the publish step of ALTER | everything |
//!
//! Fairness as in MySQL: a queued NoWrite/Exclusive request makes later conflicting shared
//! requests of other connections wait behind it (otherwise a stream of short statements
//! would starve DDL), except for a connection that already holds a lock on the name.
//! A request that would close a cycle of waiting connections fails at once with 1213; a wait
//! longer than `lock_wait_timeout` fails with 1205, and KILL QUERY ends it with 1317.
//! The lock manager is hand-written: it is part of the product's SQL semantics, and no crate
//! offers MySQL's lock modes with deadlock detection across connections.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Error, Result};
use parking_lot::{Condvar, Mutex};
use rustc_hash::FxHashMap;

/// A lock mode, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MdlMode {
    /// Reads rows.
    SharedRead,
    /// Writes rows.
    SharedWrite,
    /// Reads all rows while nobody may write them (copying ALTER).
    NoWrite,
    /// Changes or removes the definition.
    Exclusive,
}

impl MdlMode {
    /// Whether a lock held in `self` lets another connection take `other`.
    fn compatible(self, other: MdlMode) -> bool {
        use MdlMode::*;
        match (self, other) {
            (Exclusive, _) | (_, Exclusive) => false,
            (NoWrite, SharedRead) | (SharedRead, NoWrite) => true,
            (NoWrite, _) | (_, NoWrite) => false,
            _ => true,
        }
    }
}

/// A locked name: database and table, lower-cased, joined by a NUL (which no identifier
/// contains), so keys sort by database, then table. Shared, because every statement takes
/// and releases one per table: the lock table and the holder's list share one allocation.
pub type MdlKey = Arc<str>;

/// The key for `db`.`table`.
pub fn key(db: &str, table: &str) -> MdlKey {
    let mut k = String::with_capacity(db.len() + table.len() + 1);
    k.push_str(db);
    k.push('\0');
    k.push_str(table);
    if k.bytes().any(|b| b.is_ascii_uppercase() || !b.is_ascii()) {
        k = k.to_lowercase();
    }
    Arc::from(k)
}

#[derive(Default)]
struct Entry {
    /// Granted locks: connection → strongest mode it holds.
    granted: FxHashMap<u32, MdlMode>,
    /// Queued requests in arrival order.
    queue: Vec<(u32, MdlMode)>,
}

#[derive(Default)]
struct State {
    locks: FxHashMap<MdlKey, Entry>,
    /// Names each connection holds (each once).
    held: FxHashMap<u32, Vec<MdlKey>>,
    /// The request each waiting connection is blocked on.
    waiting: FxHashMap<u32, (MdlKey, MdlMode)>,
}

impl State {
    /// Connections that keep `conn` from taking `key` in `mode` now.
    fn blockers(&self, conn: u32, key: &MdlKey, mode: MdlMode) -> Vec<u32> {
        let Some(e) = self.locks.get(key) else {
            return Vec::new();
        };
        let mut out: Vec<u32> = e
            .granted
            .iter()
            .filter(|(c, m)| **c != conn && !m.compatible(mode))
            .map(|(c, _)| *c)
            .collect();
        // queued strong requests ahead of us, unless we already hold the name (re-entry)
        if !e.granted.contains_key(&conn) {
            for (c, m) in &e.queue {
                if *c == conn {
                    break;
                }
                if *m >= MdlMode::NoWrite && !m.compatible(mode) {
                    out.push(*c);
                }
            }
        }
        out
    }

    /// Whether `conn` waiting for (`key`, `mode`) closes a cycle of waits.
    fn closes_cycle(&self, conn: u32, key: &MdlKey, mode: MdlMode) -> bool {
        let mut stack = self.blockers(conn, key, mode);
        let mut seen = HashSet::new();
        while let Some(c) = stack.pop() {
            if c == conn {
                return true;
            }
            if !seen.insert(c) {
                continue;
            }
            if let Some((k, m)) = self.waiting.get(&c) {
                stack.extend(self.blockers(c, k, *m));
            }
        }
        false
    }

    fn grant(&mut self, conn: u32, key: &MdlKey, mode: MdlMode) {
        let e = self.locks.entry(key.clone()).or_default();
        match e.granted.get_mut(&conn) {
            Some(m) => *m = (*m).max(mode),
            None => {
                e.granted.insert(conn, mode);
                self.held.entry(conn).or_default().push(key.clone());
            }
        }
    }

    fn dequeue(&mut self, conn: u32, key: &MdlKey) {
        self.waiting.remove(&conn);
        if let Some(e) = self.locks.get_mut(key) {
            e.queue.retain(|(c, _)| *c != conn);
            if e.granted.is_empty() && e.queue.is_empty() {
                self.locks.remove(key);
            }
        }
    }
}

/// The instance-wide metadata lock manager.
#[derive(Default)]
pub struct MdlManager {
    state: Mutex<State>,
    changed: Condvar,
}

/// How long a request may wait and what interrupts it.
pub struct MdlWait<'a> {
    /// `lock_wait_timeout`.
    pub timeout: Duration,
    /// KILL QUERY.
    pub killed: &'a AtomicBool,
}

impl MdlManager {
    /// Takes (or strengthens to) `mode` on `key` for `conn`, waiting as needed.
    pub fn acquire(&self, conn: u32, key: &MdlKey, mode: MdlMode, w: &MdlWait<'_>) -> Result<()> {
        let mut st = self.state.lock();
        if st
            .locks
            .get(key)
            .and_then(|e| e.granted.get(&conn))
            .is_some_and(|m| *m >= mode)
        {
            return Ok(());
        }
        if st.blockers(conn, key, mode).is_empty() {
            st.grant(conn, key, mode);
            return Ok(());
        }
        if st.closes_cycle(conn, key, mode) {
            return Err(Error::deadlock());
        }
        st.locks
            .entry(key.clone())
            .or_default()
            .queue
            .push((conn, mode));
        st.waiting.insert(conn, (key.clone(), mode));
        // the thread pool may start another statement while this one waits
        let _w = common::wait::guard(common::wait::WaitType::MetaDataLock);
        let deadline = Instant::now() + w.timeout;
        loop {
            // short slices so KILL QUERY is noticed promptly
            let slice = deadline
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(100));
            self.changed.wait_for(&mut st, slice);
            if st.blockers(conn, key, mode).is_empty() {
                st.dequeue(conn, key);
                st.grant(conn, key, mode);
                return Ok(());
            }
            let err = if w.killed.load(Ordering::SeqCst) {
                Some(Error::interrupted())
            } else if Instant::now() >= deadline {
                Some(Error::lock_wait_timeout())
            } else if st.closes_cycle(conn, key, mode) {
                // a request queued after ours closed a cycle through us
                Some(Error::deadlock())
            } else {
                None
            };
            if let Some(e) = err {
                st.dequeue(conn, key);
                drop(st);
                // requests queued behind ours may go now
                self.changed.notify_all();
                return Err(e);
            }
        }
    }

    /// Releases every lock `conn` holds.
    pub fn release_all(&self, conn: u32) {
        let mut st = self.state.lock();
        let Some(keys) = st.held.remove(&conn) else {
            return;
        };
        for k in keys {
            if let Some(e) = st.locks.get_mut(&k) {
                e.granted.remove(&conn);
                if e.granted.is_empty() && e.queue.is_empty() {
                    st.locks.remove(&k);
                }
            }
        }
        drop(st);
        self.changed.notify_all();
    }

    /// Weakens `conn`'s lock on `key` to `mode` (after a DDL's copy phase failed, say).
    pub fn downgrade(&self, conn: u32, key: &MdlKey, mode: MdlMode) {
        let mut st = self.state.lock();
        if let Some(m) = st.locks.get_mut(key).and_then(|e| e.granted.get_mut(&conn)) {
            *m = (*m).min(mode);
        }
        drop(st);
        self.changed.notify_all();
    }

    /// Whether `conn` holds any lock (tests).
    #[cfg(test)]
    fn holds(&self, conn: u32, key: &MdlKey) -> Option<MdlMode> {
        self.state
            .lock()
            .locks
            .get(key)
            .and_then(|e| e.granted.get(&conn).copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn wait(ms: u64, killed: &AtomicBool) -> MdlWait<'_> {
        MdlWait {
            timeout: Duration::from_millis(ms),
            killed,
        }
    }

    #[test]
    fn keys_ignore_case_and_sort_by_database_then_table() {
        assert_eq!(key("Db", "T1"), key("db", "t1"));
        assert_eq!(key("ÄB", "Ö"), key("äb", "ö"));
        let mut k = vec![key("ab", "a"), key("a", "z"), key("b", ""), key("a", "b")];
        k.sort();
        let want = [key("a", "b"), key("a", "z"), key("ab", "a"), key("b", "")];
        assert_eq!(k, want);
    }

    #[test]
    fn a_name_taken_twice_is_held_once_and_released_once() {
        let m = MdlManager::default();
        let k = AtomicBool::new(false);
        let t = key("d", "t");
        for mode in [
            MdlMode::SharedRead,
            MdlMode::SharedWrite,
            MdlMode::SharedRead,
        ] {
            m.acquire(1, &t, mode, &wait(10, &k)).unwrap();
        }
        assert_eq!(m.holds(1, &t), Some(MdlMode::SharedWrite));
        assert_eq!(m.state.lock().held[&1].len(), 1);
        m.release_all(1);
        let st = m.state.lock();
        assert!(st.locks.is_empty() && st.held.is_empty());
    }

    #[test]
    fn compatibility_matrix() {
        use MdlMode::*;
        assert!(SharedRead.compatible(SharedWrite));
        assert!(SharedRead.compatible(NoWrite));
        assert!(!SharedWrite.compatible(NoWrite));
        assert!(!NoWrite.compatible(NoWrite));
        for m in [SharedRead, SharedWrite, NoWrite, Exclusive] {
            assert!(!Exclusive.compatible(m));
            assert!(!m.compatible(Exclusive));
        }
    }

    #[test]
    fn shared_locks_coexist_and_exclusive_times_out() {
        let m = MdlManager::default();
        let k = AtomicBool::new(false);
        let t = key("D", "T");
        m.acquire(1, &t, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        m.acquire(2, &t, MdlMode::SharedWrite, &wait(10, &k))
            .unwrap();
        let e = m
            .acquire(3, &t, MdlMode::Exclusive, &wait(50, &k))
            .unwrap_err();
        assert_eq!(e.num(), 1205);
        // the timed-out request no longer blocks newcomers
        m.acquire(4, &t, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        m.release_all(1);
        m.release_all(2);
        m.release_all(4);
        m.acquire(3, &t, MdlMode::Exclusive, &wait(10, &k)).unwrap();
        assert_eq!(m.holds(3, &t), Some(MdlMode::Exclusive));
    }

    #[test]
    fn queued_exclusive_blocks_newcomers_but_not_holders() {
        let m = Arc::new(MdlManager::default());
        let t = key("d", "t");
        let k = AtomicBool::new(false);
        m.acquire(1, &t, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        let m2 = m.clone();
        let t2 = t.clone();
        let ddl = std::thread::spawn(move || {
            let k = AtomicBool::new(false);
            m2.acquire(2, &t2, MdlMode::Exclusive, &wait(5000, &k))
        });
        while m.state.lock().waiting.is_empty() {
            std::thread::yield_now();
        }
        // a newcomer waits behind the queued DDL
        let e = m
            .acquire(3, &t, MdlMode::SharedRead, &wait(50, &k))
            .unwrap_err();
        assert_eq!(e.num(), 1205);
        // the holder may re-enter
        m.acquire(1, &t, MdlMode::SharedWrite, &wait(10, &k))
            .unwrap();
        m.release_all(1);
        ddl.join().unwrap().unwrap();
        assert_eq!(m.holds(2, &t), Some(MdlMode::Exclusive));
    }

    #[test]
    fn no_write_lets_readers_in_and_keeps_writers_out() {
        let m = MdlManager::default();
        let k = AtomicBool::new(false);
        let t = key("d", "t");
        m.acquire(1, &t, MdlMode::NoWrite, &wait(10, &k)).unwrap();
        m.acquire(2, &t, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        let e = m
            .acquire(3, &t, MdlMode::SharedWrite, &wait(30, &k))
            .unwrap_err();
        assert_eq!(e.num(), 1205);
    }

    #[test]
    fn cycle_is_a_deadlock() {
        let m = Arc::new(MdlManager::default());
        let k = AtomicBool::new(false);
        let (a, b) = (key("d", "a"), key("d", "b"));
        m.acquire(1, &a, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        m.acquire(2, &b, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        let m2 = m.clone();
        let b2 = b.clone();
        let first = std::thread::spawn(move || {
            let k = AtomicBool::new(false);
            m2.acquire(1, &b2, MdlMode::Exclusive, &wait(5000, &k))
        });
        while m.state.lock().waiting.is_empty() {
            std::thread::yield_now();
        }
        let e = m
            .acquire(2, &a, MdlMode::Exclusive, &wait(5000, &k))
            .unwrap_err();
        assert_eq!(e.num(), 1213);
        m.release_all(2);
        first.join().unwrap().unwrap();
    }

    #[test]
    fn kill_ends_the_wait() {
        let m = MdlManager::default();
        let t = key("d", "t");
        let k = AtomicBool::new(false);
        m.acquire(1, &t, MdlMode::Exclusive, &wait(10, &k)).unwrap();
        let killed = AtomicBool::new(true);
        let e = m
            .acquire(2, &t, MdlMode::SharedRead, &wait(60_000, &killed))
            .unwrap_err();
        assert_eq!(e.num(), 1317);
    }
}
