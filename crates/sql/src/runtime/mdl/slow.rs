//! The slow path: strong requests, and weak ones on a name a strong request flags, under one
//! mutex, with the queue, fairness and deadlock detection. Fast-path holders count through
//! their [`NameLock`]'s counters, and the wait-for graph finds them in their connections' slots.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Error, Result};
use rustc_hash::FxHashMap;

use super::fast::{ConnSlot, FastPath, NameLock};
use super::{MdlKey, MdlManager, MdlMode, MdlWait};

pub(super) struct Entry {
    /// Granted locks: connection → strongest mode it holds.
    pub(super) granted: FxHashMap<u32, MdlMode>,
    /// Queued requests in arrival order.
    pub(super) queue: Vec<(u32, MdlMode)>,
    /// The name's lock, whose flag counts this entry's strong requests.
    lock: Arc<NameLock>,
    /// Strong requests (granted or queued) counted in `lock`'s flag.
    flagged: u64,
}

#[derive(Default)]
pub(super) struct State {
    pub(super) locks: FxHashMap<MdlKey, Entry>,
    /// Names each connection holds here (each once).
    pub(super) held: FxHashMap<u32, Vec<MdlKey>>,
    /// The request each waiting connection is blocked on.
    pub(super) waiting: FxHashMap<u32, (MdlKey, MdlMode)>,
}

fn strong(m: MdlMode) -> bool {
    m >= MdlMode::NoWrite
}

impl State {
    fn entry(&mut self, key: &MdlKey, fast: &FastPath) -> &mut Entry {
        self.locks.entry(key.clone()).or_insert_with(|| Entry {
            granted: Default::default(),
            queue: Vec::new(),
            lock: fast.name(key),
            flagged: 0,
        })
    }

    /// Brings `key`'s flag up to date with its entry, and drops the entry once it is empty.
    /// Called after every change to an entry.
    pub(super) fn settle(&mut self, key: &MdlKey) {
        let Some(e) = self.locks.get_mut(key) else {
            return;
        };
        let want = (e.granted.values().filter(|m| strong(**m)).count()
            + e.queue.iter().filter(|(_, m)| strong(*m)).count()) as u64;
        if want != e.flagged {
            e.lock.flag_strong(e.flagged, want);
            e.flagged = want;
        }
        if e.granted.is_empty() && e.queue.is_empty() {
            self.locks.remove(key);
        }
    }

    /// Connections whose locks here keep `conn` from taking `key` in `mode` now.
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
                if strong(*m) && !m.compatible(mode) {
                    out.push(*c);
                }
            }
        }
        out
    }

    /// Grants `mode` on `key` to `conn`, taking its request (if queued) off the queue in the
    /// same step: the flag never drops between the two, or a weak lock could slip in.
    fn grant(&mut self, conn: u32, key: &MdlKey, mode: MdlMode, fast: &FastPath) {
        self.waiting.remove(&conn);
        let e = self.entry(key, fast);
        e.queue.retain(|(c, _)| *c != conn);
        match e.granted.get_mut(&conn) {
            Some(m) => *m = (*m).max(mode),
            None => {
                e.granted.insert(conn, mode);
                self.held.entry(conn).or_default().push(key.clone());
            }
        }
        self.settle(key);
    }

    fn dequeue(&mut self, conn: u32, key: &MdlKey) {
        self.waiting.remove(&conn);
        if let Some(e) = self.locks.get_mut(key) {
            e.queue.retain(|(c, _)| *c != conn);
        }
        self.settle(key);
    }

    /// Releases every lock `conn` holds here.
    pub(super) fn release_all(&mut self, conn: u32) {
        for k in self.held.remove(&conn).unwrap_or_default() {
            if let Some(e) = self.locks.get_mut(&k) {
                e.granted.remove(&conn);
            }
            self.settle(&k);
        }
    }
}

impl MdlManager {
    /// Whether nothing keeps `conn` from taking `key` in `mode` now. A strong request must be
    /// queued (so flagged) first, or fast-path holders could come after the count was read.
    fn free(&self, st: &State, conn: u32, key: &MdlKey, mode: MdlMode) -> bool {
        st.blockers(conn, key, mode).is_empty()
            && st
                .locks
                .get(key)
                .is_none_or(|e| e.lock.conflicting(mode) == 0)
    }

    /// Every connection that keeps `conn` from taking `key` in `mode`, on both paths.
    fn blockers(&self, st: &State, conn: u32, key: &MdlKey, mode: MdlMode) -> Vec<u32> {
        let mut out = st.blockers(conn, key, mode);
        if st
            .locks
            .get(key)
            .is_some_and(|e| e.lock.conflicting(mode) > 0)
        {
            out.extend(self.fast.holders(key, conn, mode));
        }
        out
    }

    /// Whether `conn` waiting for (`key`, `mode`) closes a cycle of waits. (A connection on a
    /// cycle waits here, so its fast-path holds are not changing.)
    fn closes_cycle(&self, st: &State, conn: u32, key: &MdlKey, mode: MdlMode) -> bool {
        let mut stack = self.blockers(st, conn, key, mode);
        let mut seen = HashSet::new();
        while let Some(c) = stack.pop() {
            if c == conn {
                return true;
            }
            if !seen.insert(c) {
                continue;
            }
            if let Some((k, m)) = st.waiting.get(&c) {
                stack.extend(self.blockers(st, c, k, *m));
            }
        }
        false
    }

    /// [`MdlManager::acquire`] under the mutex: a strong mode, or a weak one whose name is
    /// flagged.
    pub(super) fn acquire_slow(
        &self,
        conn: u32,
        slot: &ConnSlot,
        key: &MdlKey,
        mode: MdlMode,
        w: &MdlWait<'_>,
    ) -> Result<()> {
        let mut st = self.state.lock();
        // a hold taken on the fast path moves here, so that it counts as holding the name
        // (re-entry past queued requests) and not among the other connections' holds
        if let Some(m) = slot.take(key) {
            st.grant(conn, key, m, &self.fast);
            slot.in_state.store(true, Ordering::Release);
        }
        if st
            .locks
            .get(key)
            .and_then(|e| e.granted.get(&conn))
            .is_some_and(|m| *m >= mode)
        {
            return Ok(());
        }
        st.entry(key, &self.fast).queue.push((conn, mode));
        st.settle(key);
        if self.free(&st, conn, key, mode) {
            st.grant(conn, key, mode, &self.fast);
            slot.in_state.store(true, Ordering::Release);
            return Ok(());
        }
        if self.closes_cycle(&st, conn, key, mode) {
            st.dequeue(conn, key);
            return Err(Error::deadlock());
        }
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
            if self.free(&st, conn, key, mode) {
                st.grant(conn, key, mode, &self.fast);
                slot.in_state.store(true, Ordering::Release);
                return Ok(());
            }
            let err = if w.killed.load(Ordering::SeqCst) {
                Some(Error::interrupted())
            } else if Instant::now() >= deadline {
                Some(Error::lock_wait_timeout())
            } else if self.closes_cycle(&st, conn, key, mode) {
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
}
