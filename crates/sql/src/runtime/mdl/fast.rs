//! The fast path: a weak lock (SharedRead / SharedWrite) is one compare-and-swap on its name's
//! [`NameLock`], recorded in the connection's own [`ConnSlot`]; no lock is shared by all
//! connections. Strong requests raise the name's flag, which sends weak requests to the slow path.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::{MdlKey, MdlMode};

/// One weak holder of each kind, and one strong request, in [`NameLock::word`]: three 21-bit
/// fields (a connection counts once per name, so 2 million connections fit).
const READ_ONE: u64 = 1;
const WRITE_ONE: u64 = 1 << 21;
const STRONG_ONE: u64 = 1 << 42;
const FIELD: u64 = WRITE_ONE - 1;

/// Shards of the name and connection maps (a power of two).
const SHARDS: usize = 64;
/// Names a connection keeps looked up (those it holds are kept in any case, and a connection
/// holding many may keep as many again).
const CACHE: usize = 32;
/// A name shard drops names nobody references once it grows to this many.
const SWEEP_MIN: usize = 256;

/// The per-name state both paths share. Weak holders on the fast path are only counted here;
/// who they are is in their [`ConnSlot`]s.
#[derive(Default)]
pub(super) struct NameLock {
    /// SharedRead holders (bits 0-20), SharedWrite holders (21-41) and strong requests queued
    /// or granted in the slow path (42-63). One word, so that a weak acquire sees the strong
    /// requests and counts itself in one step: a strong request raised before it sends it to
    /// the slow path, one raised after it sees its count.
    word: AtomicU64,
}

fn unit(mode: MdlMode) -> u64 {
    match mode {
        MdlMode::SharedRead => READ_ONE,
        MdlMode::SharedWrite => WRITE_ONE,
        // (strong modes never take the fast path)
        MdlMode::NoWrite | MdlMode::Exclusive => unreachable!("a strong mode on the fast path"),
    }
}

impl NameLock {
    /// Takes `to` (giving back `from`, for an upgrade) unless a strong request is flagged.
    fn try_weak(&self, from: Option<MdlMode>, to: MdlMode) -> bool {
        let mut v = self.word.load(Ordering::Relaxed);
        loop {
            if v >= STRONG_ONE {
                return false;
            }
            debug_assert!(
                v & FIELD != FIELD && (v >> 21) & FIELD != FIELD,
                "too many holders"
            );
            let n = v + unit(to) - from.map_or(0, unit);
            match self
                .word
                .compare_exchange_weak(v, n, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(x) => v = x,
            }
        }
    }

    /// Gives back a weak hold; whether a strong request is flagged (its waiter needs a wake-up).
    fn release(&self, mode: MdlMode) -> bool {
        self.word.fetch_sub(unit(mode), Ordering::AcqRel) >= STRONG_ONE
    }

    /// Weak holders on the fast path whose mode conflicts with `mode`.
    pub(super) fn conflicting(&self, mode: MdlMode) -> u64 {
        let v = self.word.load(Ordering::Acquire);
        let (reads, writes) = (v & FIELD, (v >> 21) & FIELD);
        match mode {
            MdlMode::SharedRead | MdlMode::SharedWrite => 0,
            MdlMode::NoWrite => writes,
            MdlMode::Exclusive => reads + writes,
        }
    }

    /// Changes the number of strong requests flagged from `from` to `to`.
    pub(super) fn flag_strong(&self, from: u64, to: u64) {
        let delta = (to * STRONG_ONE).wrapping_sub(from * STRONG_ONE);
        self.word.fetch_add(delta, Ordering::AcqRel);
    }
}

/// A name a connection looked up, and its weak fast-path hold on it.
struct Cached {
    lock: Arc<NameLock>,
    held: Option<MdlMode>,
}

#[derive(Default)]
struct SlotInner {
    names: FxHashMap<MdlKey, Cached>,
    /// Entries of `names` with a hold.
    held: usize,
}

/// A connection's own part of the lock manager: its fast-path holds. Its mutex is taken by the
/// connection and, rarely, by a strong request that looks for the holders of a name.
#[derive(Default)]
pub(super) struct ConnSlot {
    inner: Mutex<SlotInner>,
    /// Whether the connection holds locks in the slow path's `State` (changed under that
    /// path's mutex).
    pub(super) in_state: AtomicBool,
}

impl ConnSlot {
    /// Takes (or strengthens to) the weak `mode` on `key` on the fast path; false when a strong
    /// request flags the name and the caller must take the slow path.
    pub(super) fn try_weak(&self, names: &FastPath, key: &MdlKey, mode: MdlMode) -> bool {
        let mut s = self.inner.lock();
        let s = &mut *s;
        if !s.names.contains_key(key) {
            if s.names.len() >= CACHE.max(2 * s.held) {
                s.names.retain(|_, c| c.held.is_some());
            }
            let lock = names.name(key);
            s.names.insert(key.clone(), Cached { lock, held: None });
        }
        let c = s.names.get_mut(key).expect("just inserted");
        if c.held.is_some_and(|h| h >= mode) {
            return true;
        }
        if !c.lock.try_weak(c.held, mode) {
            return false;
        }
        if c.held.replace(mode).is_none() {
            s.held += 1;
        }
        true
    }

    /// Gives back the fast-path hold on `key`, if any, returning its mode (the slow path takes
    /// it over under its mutex).
    pub(super) fn take(&self, key: &MdlKey) -> Option<MdlMode> {
        let mut s = self.inner.lock();
        let c = s.names.get_mut(key)?;
        let m = c.held.take()?;
        c.lock.release(m);
        s.held -= 1;
        Some(m)
    }

    /// Gives back every fast-path hold; whether a strong request waits on one of the names.
    pub(super) fn release_all(&self) -> bool {
        let mut s = self.inner.lock();
        if s.held == 0 {
            return false;
        }
        s.held = 0;
        let mut wake = false;
        for c in s.names.values_mut() {
            if let Some(m) = c.held.take() {
                wake |= c.lock.release(m);
            }
        }
        wake
    }

    /// Weakens a SharedWrite fast-path hold on `key` to SharedRead; whether a strong request
    /// waits on the name.
    pub(super) fn downgrade(&self, key: &MdlKey, mode: MdlMode) -> bool {
        let mut s = self.inner.lock();
        let Some(c) = s.names.get_mut(key) else {
            return false;
        };
        if mode != MdlMode::SharedRead || c.held != Some(MdlMode::SharedWrite) {
            return false;
        }
        c.held = Some(mode);
        let v = c
            .lock
            .word
            .fetch_add(READ_ONE.wrapping_sub(WRITE_ONE), Ordering::AcqRel);
        v >= STRONG_ONE
    }

    /// The fast-path hold on `key`.
    pub(super) fn held(&self, key: &MdlKey) -> Option<MdlMode> {
        self.inner.lock().names.get(key).and_then(|c| c.held)
    }
}

/// A shard of the connection map.
type ConnShard = RwLock<FxHashMap<u32, Arc<ConnSlot>>>;

#[derive(Default)]
struct NameShard {
    map: FxHashMap<MdlKey, Arc<NameLock>>,
    sweep_at: usize,
}

/// Where the fast path finds a name's [`NameLock`] and a connection's [`ConnSlot`]: maps in
/// shards under read-write locks. A connection looks a name up once and keeps it.
pub(super) struct FastPath {
    names: Box<[RwLock<NameShard>]>,
    conns: Box<[ConnShard]>,
}

impl Default for FastPath {
    fn default() -> Self {
        FastPath {
            names: (0..SHARDS).map(|_| Default::default()).collect(),
            conns: (0..SHARDS).map(|_| Default::default()).collect(),
        }
    }
}

impl FastPath {
    /// The one [`NameLock`] of `key`. A name stays in the map while anybody references its
    /// lock (a connection's cache, the slow path's entry), so both always meet the same one.
    pub(super) fn name(&self, key: &MdlKey) -> Arc<NameLock> {
        let shard = &self.names[(FxBuildHasher.hash_one(&**key) >> 32) as usize % SHARDS];
        if let Some(l) = shard.read().map.get(key) {
            return l.clone();
        }
        let mut g = shard.write();
        if g.map.len() >= g.sweep_at.max(SWEEP_MIN) {
            // (nobody can clone a lock held only by the map while we hold the write lock)
            g.map.retain(|_, l| Arc::strong_count(l) > 1);
            g.sweep_at = g.map.len() * 2;
        }
        g.map.entry(key.clone()).or_default().clone()
    }

    fn conn_shard(&self, conn: u32) -> &ConnShard {
        &self.conns[conn as usize % SHARDS]
    }

    /// `conn`'s slot, if it has one.
    pub(super) fn slot(&self, conn: u32) -> Option<Arc<ConnSlot>> {
        self.conn_shard(conn).read().get(&conn).cloned()
    }

    /// `conn`'s slot, made on its first lock.
    pub(super) fn slot_or_new(&self, conn: u32) -> Arc<ConnSlot> {
        if let Some(s) = self.slot(conn) {
            return s;
        }
        self.conn_shard(conn)
            .write()
            .entry(conn)
            .or_default()
            .clone()
    }

    /// Forgets `conn`'s slot (its connection ended).
    pub(super) fn remove_slot(&self, conn: u32) {
        self.conn_shard(conn).write().remove(&conn);
    }

    /// Connections other than `except` holding `key` on the fast path in a mode that conflicts
    /// with `mode` (for the wait-for graph: visits every connection).
    pub(super) fn holders(&self, key: &MdlKey, except: u32, mode: MdlMode) -> Vec<u32> {
        let mut out = Vec::new();
        for shard in self.conns.iter() {
            for (c, slot) in shard.read().iter() {
                if *c != except && slot.held(key).is_some_and(|h| !h.compatible(mode)) {
                    out.push(*c);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::mdl::key;

    #[test]
    fn a_flagged_name_refuses_weak_locks_and_counts_its_holders() {
        let f = FastPath::default();
        let (a, b) = (f.slot_or_new(1), f.slot_or_new(2));
        let t = key("d", "t");
        assert!(a.try_weak(&f, &t, MdlMode::SharedRead));
        assert!(b.try_weak(&f, &t, MdlMode::SharedWrite));
        let l = f.name(&t);
        assert_eq!(l.conflicting(MdlMode::NoWrite), 1);
        assert_eq!(l.conflicting(MdlMode::Exclusive), 2);
        assert_eq!(f.holders(&t, 0, MdlMode::NoWrite), vec![2]);
        l.flag_strong(0, 1);
        assert!(!f.slot_or_new(3).try_weak(&f, &t, MdlMode::SharedRead));
        // an upgrade also waits, a held mode does not
        assert!(!a.try_weak(&f, &t, MdlMode::SharedWrite));
        assert!(a.try_weak(&f, &t, MdlMode::SharedRead));
        assert!(a.release_all());
        assert_eq!(a.take(&t), None);
        assert_eq!(b.take(&t), Some(MdlMode::SharedWrite));
        assert_eq!(l.conflicting(MdlMode::Exclusive), 0);
        l.flag_strong(1, 0);
        assert_eq!(l.word.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn unreferenced_names_are_swept() {
        let f = FastPath::default();
        let held = f.name(&key("d", "kept"));
        for i in 0..SWEEP_MIN * SHARDS * 4 {
            drop(f.name(&key("d", &i.to_string())));
        }
        let total: usize = f.names.iter().map(|s| s.read().map.len()).sum();
        assert!(total < SWEEP_MIN * SHARDS * 2, "{total} names kept");
        assert!(Arc::ptr_eq(&held, &f.name(&key("d", "kept"))));
    }
}
