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
//!
//! Two paths, as in MySQL (its "fast path" for unobtrusive locks). The weak modes
//! (SharedRead, SharedWrite) do not conflict with each other, and every statement takes one per
//! table and gives it back at commit: behind one mutex for all names, they were a third of the
//! server's CPU at 1024 connections (`docs/benchmarks/2026-11-26-many-cores-profile.md`). So:
//! - `fast`: a weak lock is one compare-and-swap on its name's counters, granted while no
//!   strong request is flagged there, and recorded in the connection's own slot; commit gives
//!   it back with a decrement. No mutex is taken: slots and names are found through sharded
//!   maps under read locks, and a connection keeps the names it used.
//! - `slow`: strong modes, and weak ones on a name a strong request flags, go through one
//!   mutex with the queue, fairness and deadlock detection above. A strong request is flagged
//!   before it counts the fast-path holders, so none comes after it; it waits until they have
//!   left, and each one leaving wakes it. The wait-for graph finds fast-path holders in the
//!   connections' slots; a connection that comes to the slow path for a name it holds on the
//!   fast path moves that hold there (so it counts as a holder for re-entry).

mod fast;
mod slow;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::Result;
use parking_lot::{Condvar, Mutex};

use fast::FastPath;
use slow::State;

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

/// The instance-wide metadata lock manager.
#[derive(Default)]
pub struct MdlManager {
    /// The slow path's lock table.
    state: Mutex<State>,
    /// Signalled when a lock on the slow path is released, and when a fast-path hold on a
    /// flagged name is.
    changed: Condvar,
    fast: FastPath,
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
        let slot = self.fast.slot_or_new(conn);
        if mode < MdlMode::NoWrite && slot.try_weak(&self.fast, key, mode) {
            return Ok(());
        }
        self.acquire_slow(conn, &slot, key, mode, w)
    }

    /// Releases every lock `conn` holds. Takes the mutex only when `conn` holds a lock on the
    /// slow path or a strong request waits on one of its names.
    pub fn release_all(&self, conn: u32) {
        let Some(slot) = self.fast.slot(conn) else {
            return;
        };
        let wake = slot.release_all();
        if slot.in_state.load(Ordering::Acquire) {
            let mut st = self.state.lock();
            slot.in_state.store(false, Ordering::Release);
            st.release_all(conn);
        } else if wake {
            // a waiter reads the counters under the mutex: taking it puts this wake-up after
            // the waiter's read (or it would be lost until the next time slice)
            drop(self.state.lock());
        } else {
            return;
        }
        self.changed.notify_all();
    }

    /// Releases every lock `conn` holds and forgets the connection (it ended).
    pub fn disconnect(&self, conn: u32) {
        self.release_all(conn);
        self.fast.remove_slot(conn);
    }

    /// Weakens `conn`'s lock on `key` to `mode` (after a DDL's copy phase failed, say).
    pub fn downgrade(&self, conn: u32, key: &MdlKey, mode: MdlMode) {
        let Some(slot) = self.fast.slot(conn) else {
            return;
        };
        slot.downgrade(key, mode);
        let mut st = self.state.lock();
        if let Some(m) = st.locks.get_mut(key).and_then(|e| e.granted.get_mut(&conn)) {
            *m = (*m).min(mode);
        }
        st.settle(key);
        drop(st);
        self.changed.notify_all();
    }

    /// The strongest mode `conn` holds on `key`, on either path (tests).
    #[cfg(test)]
    fn holds(&self, conn: u32, key: &MdlKey) -> Option<MdlMode> {
        let slow = self
            .state
            .lock()
            .locks
            .get(key)
            .and_then(|e| e.granted.get(&conn).copied());
        let fast = self.fast.slot(conn).and_then(|s| s.held(key));
        slow.max(fast)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicI64;
    use std::sync::Arc;
    use std::time::Instant;

    use super::*;

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
        // on the fast path: the mutex-protected table stays empty
        assert!(m.state.lock().locks.is_empty());
        assert_eq!(m.fast.name(&t).conflicting(MdlMode::Exclusive), 1);
        m.release_all(1);
        assert_eq!(m.fast.name(&t).conflicting(MdlMode::Exclusive), 0);
        assert_eq!(m.holds(1, &t), None);
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

    /// Waits until `n` connections wait on the slow path.
    fn until_waiting(m: &MdlManager, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while m.state.lock().waiting.len() < n {
            assert!(Instant::now() < deadline, "nobody waits");
            std::thread::yield_now();
        }
    }

    /// Whether `conn` gets `mode` on the fast path alone (without touching the mutex).
    fn fast_only(m: &MdlManager, conn: u32, t: &MdlKey, mode: MdlMode) -> bool {
        m.fast.slot_or_new(conn).try_weak(&m.fast, t, mode)
    }

    #[test]
    fn weak_locks_on_many_threads_take_no_mutex() {
        let m = Arc::new(MdlManager::default());
        let t = key("d", "t");
        // the mutex is held all along: a weak lock that needed it would hang
        let st = m.state.lock();
        let threads: Vec<_> = (0..16u32)
            .map(|c| {
                let (m, t) = (m.clone(), t.clone());
                std::thread::spawn(move || {
                    let k = AtomicBool::new(false);
                    for i in 0..2000 {
                        let mode = if i % 3 == 0 {
                            MdlMode::SharedWrite
                        } else {
                            MdlMode::SharedRead
                        };
                        m.acquire(c, &t, mode, &wait(10, &k)).unwrap();
                        m.acquire(c, &t, MdlMode::SharedRead, &wait(10, &k))
                            .unwrap();
                        m.release_all(c);
                    }
                    m.disconnect(c);
                })
            })
            .collect();
        for th in threads {
            th.join().unwrap();
        }
        assert!(st.locks.is_empty());
        drop(st);
        assert_eq!(m.fast.name(&t).conflicting(MdlMode::Exclusive), 0);
        assert!(m.fast.slot(3).is_none());
    }

    #[test]
    fn a_strong_request_stops_new_weak_locks_and_waits_for_the_old_ones() {
        let m = Arc::new(MdlManager::default());
        let t = key("d", "t");
        let k = AtomicBool::new(false);
        m.acquire(1, &t, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        m.acquire(2, &t, MdlMode::SharedWrite, &wait(10, &k))
            .unwrap();
        let (m2, t2) = (m.clone(), t.clone());
        let ddl = std::thread::spawn(move || {
            let k = AtomicBool::new(false);
            m2.acquire(3, &t2, MdlMode::Exclusive, &wait(5000, &k))
        });
        until_waiting(&m, 1);
        assert!(!fast_only(&m, 4, &t, MdlMode::SharedRead));
        let e = m
            .acquire(4, &t, MdlMode::SharedRead, &wait(30, &k))
            .unwrap_err();
        assert_eq!(e.num(), 1205);
        m.release_all(1);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(
            m.holds(3, &t),
            None,
            "granted while a writer holds the name"
        );
        m.release_all(2);
        ddl.join().unwrap().unwrap();
        assert_eq!(m.holds(3, &t), Some(MdlMode::Exclusive));
        m.release_all(3);
        // the flag is down again
        assert!(fast_only(&m, 4, &t, MdlMode::SharedWrite));
        assert!(m.state.lock().locks.is_empty());
    }

    #[test]
    fn a_no_write_request_waits_for_fast_path_writers_only() {
        let m = Arc::new(MdlManager::default());
        let t = key("d", "t");
        let k = AtomicBool::new(false);
        m.acquire(1, &t, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        m.acquire(2, &t, MdlMode::SharedWrite, &wait(10, &k))
            .unwrap();
        let (m2, t2) = (m.clone(), t.clone());
        let alter = std::thread::spawn(move || {
            let k = AtomicBool::new(false);
            m2.acquire(3, &t2, MdlMode::NoWrite, &wait(5000, &k))
        });
        until_waiting(&m, 1);
        // readers go on (on the slow path), writers queue behind
        m.acquire(4, &t, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        let e = m
            .acquire(5, &t, MdlMode::SharedWrite, &wait(30, &k))
            .unwrap_err();
        assert_eq!(e.num(), 1205);
        m.release_all(2);
        alter.join().unwrap().unwrap();
        assert_eq!(m.holds(1, &t), Some(MdlMode::SharedRead));
        assert_eq!(m.holds(4, &t), Some(MdlMode::SharedRead));
        for c in [1, 3, 4] {
            m.release_all(c);
        }
        assert!(m.state.lock().locks.is_empty());
        assert!(fast_only(&m, 5, &t, MdlMode::SharedWrite));
    }

    #[test]
    fn kill_and_timeout_of_a_strong_waiter_let_weak_locks_take_the_fast_path_again() {
        let m = Arc::new(MdlManager::default());
        let t = key("d", "t");
        let k = AtomicBool::new(false);
        m.acquire(1, &t, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        let e = m
            .acquire(2, &t, MdlMode::Exclusive, &wait(30, &k))
            .unwrap_err();
        assert_eq!(e.num(), 1205);
        assert!(fast_only(&m, 3, &t, MdlMode::SharedRead));
        let killed = Arc::new(AtomicBool::new(false));
        let (m2, t2, k2) = (m.clone(), t.clone(), killed.clone());
        let ddl =
            std::thread::spawn(move || m2.acquire(2, &t2, MdlMode::Exclusive, &wait(60_000, &k2)));
        until_waiting(&m, 1);
        killed.store(true, Ordering::SeqCst);
        assert_eq!(ddl.join().unwrap().unwrap_err().num(), 1317);
        assert!(fast_only(&m, 4, &t, MdlMode::SharedWrite));
        assert!(m.state.lock().locks.is_empty());
    }

    #[test]
    fn a_cycle_through_a_fast_path_holder_is_a_deadlock() {
        let m = Arc::new(MdlManager::default());
        let k = AtomicBool::new(false);
        let (a, b) = (key("d", "a"), key("d", "b"));
        // 1 holds a on the fast path; 2 queues for a behind it; 3 holds b exclusively
        m.acquire(1, &a, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        m.acquire(3, &b, MdlMode::Exclusive, &wait(10, &k)).unwrap();
        let spawn = |c: u32, t: &MdlKey, mode: MdlMode| {
            let (m, t) = (m.clone(), t.clone());
            std::thread::spawn(move || {
                let k = AtomicBool::new(false);
                let r = m.acquire(c, &t, mode, &wait(5000, &k));
                m.release_all(c);
                r
            })
        };
        let two = spawn(2, &a, MdlMode::Exclusive);
        until_waiting(&m, 1);
        let one = spawn(1, &b, MdlMode::SharedWrite);
        until_waiting(&m, 2);
        // 3 → 2 (queued ahead on a) → 1 (fast-path holder of a) → 3
        let e = m
            .acquire(3, &a, MdlMode::SharedRead, &wait(5000, &k))
            .unwrap_err();
        assert_eq!(e.num(), 1213);
        m.release_all(3);
        one.join().unwrap().unwrap();
        two.join().unwrap().unwrap();
        assert!(m.state.lock().locks.is_empty());
    }

    #[test]
    fn release_all_and_disconnect_give_back_fast_path_holds() {
        let m = MdlManager::default();
        let k = AtomicBool::new(false);
        let (a, b) = (key("d", "a"), key("d", "b"));
        m.acquire(1, &a, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        m.acquire(1, &b, MdlMode::SharedWrite, &wait(10, &k))
            .unwrap();
        m.release_all(1);
        m.acquire(2, &a, MdlMode::Exclusive, &wait(10, &k)).unwrap();
        m.acquire(2, &b, MdlMode::Exclusive, &wait(10, &k)).unwrap();
        m.release_all(2);
        m.acquire(1, &a, MdlMode::SharedRead, &wait(10, &k))
            .unwrap();
        m.disconnect(1);
        assert!(m.fast.slot(1).is_none());
        m.acquire(2, &a, MdlMode::Exclusive, &wait(10, &k)).unwrap();
    }

    #[test]
    fn a_fast_path_hold_moves_to_the_slow_path_with_its_connection() {
        let m = MdlManager::default();
        let k = AtomicBool::new(false);
        let t = key("d", "t");
        m.acquire(1, &t, MdlMode::SharedWrite, &wait(10, &k))
            .unwrap();
        // the connection's own weak hold does not block its upgrade
        m.acquire(1, &t, MdlMode::Exclusive, &wait(10, &k)).unwrap();
        assert_eq!(m.holds(1, &t), Some(MdlMode::Exclusive));
        m.downgrade(1, &t, MdlMode::SharedRead);
        assert!(fast_only(&m, 2, &t, MdlMode::SharedWrite));
        m.release_all(1);
        m.release_all(2);
        assert!(m.state.lock().locks.is_empty());
        assert_eq!(m.fast.name(&t).conflicting(MdlMode::Exclusive), 0);
    }

    /// Weak and strong locks from many threads: the modes each holder counts itself in are
    /// checked against the compatibility matrix.
    #[test]
    fn stress_mutual_exclusion() {
        let m = Arc::new(MdlManager::default());
        let names = [key("d", "a"), key("d", "b")];
        // per name: holders in SharedRead, SharedWrite, NoWrite, Exclusive
        let counts: Arc<[[AtomicI64; 4]; 2]> = Arc::new(Default::default());
        let start = Instant::now();
        let threads: Vec<_> = (0..8u32)
            .map(|c| {
                let (m, names, counts) = (m.clone(), names.clone(), counts.clone());
                std::thread::spawn(move || {
                    let k = AtomicBool::new(false);
                    let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(c + 1);
                    for _ in 0..1500 {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        let (mode, n) = match rng % 64 {
                            0 => (MdlMode::Exclusive, 1),
                            1 => (MdlMode::NoWrite, 1),
                            r if r % 2 == 0 => (MdlMode::SharedRead, 2),
                            r => (MdlMode::SharedWrite, 1 + usize::from(r % 3 == 0)),
                        };
                        let first = (rng >> 8) as usize % 2;
                        let mut mine = Vec::new();
                        for i in 0..n {
                            // (two names only in one order, and only weak: no cycles)
                            let t = if n == 2 { i } else { first };
                            m.acquire(c, &names[t], mode, &wait(10_000, &k)).unwrap();
                            let cs = &counts[t];
                            cs[mode as usize].fetch_add(1, Ordering::SeqCst);
                            for other in [
                                MdlMode::SharedRead,
                                MdlMode::SharedWrite,
                                MdlMode::NoWrite,
                                MdlMode::Exclusive,
                            ] {
                                let n = cs[other as usize].load(Ordering::SeqCst)
                                    - i64::from(other == mode);
                                assert!(
                                    n == 0 || mode.compatible(other),
                                    "{mode:?} granted beside {n} {other:?}"
                                );
                            }
                            mine.push((t, mode));
                        }
                        std::thread::yield_now();
                        for (t, mode) in mine {
                            counts[t][mode as usize].fetch_sub(1, Ordering::SeqCst);
                        }
                        m.release_all(c);
                    }
                })
            })
            .collect();
        for th in threads {
            th.join().unwrap();
        }
        assert!(m.state.lock().locks.is_empty());
        for t in &names {
            assert_eq!(m.fast.name(t).conflicting(MdlMode::Exclusive), 0);
        }
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}
