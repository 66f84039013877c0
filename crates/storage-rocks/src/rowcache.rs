//! [`RowCache`]: Strata's own row cache — whole rows (primary-key records of the data column
//! family) kept by key, so a hot row costs its own bytes in memory instead of a whole 16 KiB block
//! (or InnoDB's 16 KiB page) of mostly cold neighbours.
//!
//! Written by hand because RocksDB's built-in `row_cache` refuses `DeleteRange`, which DROP /
//! TRUNCATE TABLE and DROP PARTITION rely on (ARCHITECTURE §7).
//!
//! **Consistency with snapshots.** Readers read at RocksDB snapshots; the cache holds only the
//! latest committed value of a key. The rules, with `seq` = RocksDB's latest sequence number:
//! * A snapshot records `seq` just *before* it is taken (`reader_seq`, a lower bound of its real
//!   sequence number).
//! * A writer calls [`RowCache::begin_write`] before its batch goes to RocksDB (the keys are
//!   dropped and their shards refuse fills), and [`RowCache::end_write`] after, with `seq`
//!   read after the write: the keys are dropped again and the shard's `min_seq` rises to it.
//! * A fill (after a miss read the value at the reader's snapshot) is accepted only when no
//!   write to the shard is in flight and `reader_seq >= min_seq`: the reader then saw every
//!   committed write to the key. The entry keeps `w_bound` = `seq` read after the read, an upper
//!   bound of the sequence number that wrote the value.
//! * A hit is served only to a reader with `reader_seq >= w_bound`: that reader's snapshot
//!   includes the value's write, and no later write exists (it would have dropped the entry).
//!   Older snapshots (long transactions) simply read RocksDB. A read of the latest state (a
//!   locking read) passes RocksDB's latest sequence number as its `reader_seq`.
//! * **Write-through for cached rows.** A key that was cached when its write began gets the
//!   written value back at [`RowCache::end_write`], with `w_bound` = `seq` read after the
//!   write, as a fill from a snapshot that includes the write would. This is refused when
//!   another write of the same key is in flight (each shard keeps the hashes of the keys being
//!   written), since that write may land after ours. Keys not cached stay out: a bulk load does
//!   not push the hot rows out. Without this, a hot row that is updated over and over was never
//!   in the cache when the next UPDATE read it.
//!
//! Keys embed the index id, and ids are never reused: after a DROP / TRUNCATE the dead entries
//! can't be hit again and age out of the LRU, so a range delete needs no cache walk.

use std::hash::{Hash, Hasher};

use lru::LruCache;
use parking_lot::Mutex;

/// Bytes charged per entry on top of key and value (LRU node, hash slot, allocation headers).
const ENTRY_OVERHEAD: usize = 96;

struct Entry {
    value: Vec<u8>,
    w_bound: u64,
}

struct Shard {
    lru: LruCache<Vec<u8>, Entry, rustc_hash::FxBuildHasher>,
    bytes: usize,
    /// Writes to this shard between `begin_write` and `end_write`.
    pending: u32,
    /// Hashes of the keys those writes are writing (one per key per write).
    inflight: Vec<u64>,
    /// Fills must come from snapshots at least this recent.
    min_seq: u64,
    /// Reads served from this shard, and reads that missed it. Counted under the shard's lock:
    /// cache-wide atomic counters were written by every read from every core, and the cache
    /// line they shared with `shards` moved between the cores on each point select.
    hits: u64,
    misses: u64,
}

/// Fx, not SipHash (here and in the shards' maps): every point read hashes its key; the keys
/// are our own.
fn key_hash(key: &[u8]) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    key.hash(&mut h);
    h.finish()
}

impl Shard {
    /// Caches `value` for `key` with `w_bound`, evicting the least recently used entries
    /// beyond `capacity` bytes.
    /// A value bigger than a quarter of the shard is not cached.
    fn put(&mut self, key: &[u8], value: &[u8], w_bound: u64, capacity: usize) {
        if key.len() + value.len() + ENTRY_OVERHEAD > capacity / 4 {
            return;
        }
        let entry = Entry {
            value: value.to_vec(),
            w_bound,
        };
        if let Some(old) = self.lru.put(key.to_vec(), entry) {
            self.bytes -= key.len() + old.value.len() + ENTRY_OVERHEAD;
        }
        self.bytes += key.len() + value.len() + ENTRY_OVERHEAD;
        while self.bytes > capacity {
            match self.lru.pop_lru() {
                Some((k, e)) => self.bytes -= k.len() + e.value.len() + ENTRY_OVERHEAD,
                None => break,
            }
        }
    }
}

/// A key of a write batch, with its shard and hash, its position in the batch and `extra`
/// (the written value at the end of the write).
struct Slot<'a, T> {
    shard: usize,
    hash: u64,
    pos: usize,
    key: &'a [u8],
    extra: T,
}

/// Counters for SHOW STATUS.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RowCacheStats {
    /// Reads served from the cache.
    pub hits: u64,
    /// Reads that went to RocksDB.
    pub misses: u64,
    /// Bytes in use.
    pub bytes: u64,
    /// Capacity in bytes.
    pub capacity: u64,
}

/// A sharded, byte-bounded LRU of rows (see the module docs for the consistency rules).
pub struct RowCache {
    shards: Vec<Mutex<Shard>>,
    per_shard: usize,
    capacity: usize,
}

impl RowCache {
    /// A cache of at most `capacity` bytes; `None` for 0 (disabled).
    pub fn new(capacity: usize) -> Option<RowCache> {
        if capacity == 0 {
            return None;
        }
        let n = 64usize;
        let per_shard = (capacity / n).max(4096);
        Some(RowCache {
            shards: (0..n)
                .map(|_| {
                    Mutex::new(Shard {
                        lru: LruCache::unbounded_with_hasher(rustc_hash::FxBuildHasher),
                        bytes: 0,
                        pending: 0,
                        inflight: Vec::new(),
                        min_seq: 0,
                        hits: 0,
                        misses: 0,
                    })
                })
                .collect(),
            per_shard,
            capacity,
        })
    }

    fn shard_no(&self, key: &[u8]) -> usize {
        self.shard_of(key_hash(key))
    }

    /// The shard comes from middle bits of the key's hash, which the maps' bucket (low bits)
    /// and tag (top 7 bits) do not use, so a shard's keys still spread.
    fn shard_of(&self, hash: u64) -> usize {
        ((hash >> 40) as usize) % self.shards.len()
    }

    /// The cached value of `key` for a reader whose snapshot was taken at or after `reader_seq`.
    pub fn get(&self, key: &[u8], reader_seq: u64) -> Option<Vec<u8>> {
        let mut s = self.shards[self.shard_no(key)].lock();
        let hit = match s.lru.get(key) {
            Some(e) if e.w_bound <= reader_seq => Some(e.value.clone()),
            _ => None,
        };
        match hit {
            Some(_) => s.hits += 1,
            None => s.misses += 1,
        }
        hit
    }

    /// Offers `value`, read for `key` at a snapshot taken at or after `reader_seq`; `now_seq`
    /// is the latest sequence number read after that read.
    pub fn fill(&self, key: &[u8], value: &[u8], reader_seq: u64, now_seq: u64) {
        let mut s = self.shards[self.shard_no(key)].lock();
        if s.pending > 0 || reader_seq < s.min_seq {
            return;
        }
        s.put(key, value, now_seq, self.per_shard);
    }

    /// The batch's keys as (shard, hash, position), grouped by shard: each shard's lock is
    /// taken once per batch instead of once per key (a 100-row INSERT with three secondary
    /// indexes writes 400 keys, and the per-key locking was 2 % of iibench's server CPU).
    fn by_shard<'a, T>(&self, items: impl Iterator<Item = (&'a [u8], T)>) -> Vec<Slot<'a, T>> {
        let mut v: Vec<Slot<'a, T>> = items
            .enumerate()
            .map(|(i, (key, extra))| {
                let hash = key_hash(key);
                Slot {
                    shard: self.shard_of(hash),
                    hash,
                    pos: i,
                    key,
                    extra,
                }
            })
            .collect();
        // stable: a shard's keys keep the batch's order
        v.sort_by_key(|s| s.shard);
        v
    }

    /// Before a batch writing `keys` goes to RocksDB: drops them, holds off fills in their
    /// shards and notes them as in flight. Returns the positions (ascending) of the keys that
    /// were cached, for [`RowCache::end_write`] to refresh.
    pub fn begin_write<'a>(&self, keys: impl Iterator<Item = &'a [u8]>) -> Vec<usize> {
        let slots = self.by_shard(keys.map(|k| (k, ())));
        let mut cached = Vec::new();
        for group in slots.chunk_by(|a, b| a.shard == b.shard) {
            let mut s = self.shards[group[0].shard].lock();
            s.pending += 1;
            for slot in group {
                if let Some(e) = s.lru.pop(slot.key) {
                    s.bytes -= slot.key.len() + e.value.len() + ENTRY_OVERHEAD;
                    cached.push(slot.pos);
                }
                s.inflight.push(slot.hash);
            }
        }
        cached.sort_unstable();
        cached
    }

    /// After that batch was written (`written`) or failed; `now_seq` read after the write.
    /// `ops` are the same keys in the same order, each with its new value (None: deleted);
    /// `cached` is what [`RowCache::begin_write`] returned.
    pub fn end_write<'a>(
        &self,
        ops: impl Iterator<Item = (&'a [u8], Option<&'a [u8]>)>,
        now_seq: u64,
        cached: &[usize],
        written: bool,
    ) {
        let slots = self.by_shard(ops);
        for group in slots.chunk_by(|a, b| a.shard == b.shard) {
            let mut s = self.shards[group[0].shard].lock();
            s.pending -= 1;
            s.min_seq = s.min_seq.max(now_seq);
            for slot in group {
                if let Some(e) = s.lru.pop(slot.key) {
                    s.bytes -= slot.key.len() + e.value.len() + ENTRY_OVERHEAD;
                }
                if let Some(p) = s.inflight.iter().position(|h| *h == slot.hash) {
                    s.inflight.swap_remove(p);
                }
            }
            if !written || cached.is_empty() {
                continue;
            }
            for slot in group {
                let Some(v) = slot.extra else { continue };
                if cached.binary_search(&slot.pos).is_err() {
                    continue;
                }
                // another write of this key (or of one with the same hash) may land after ours
                if s.inflight.contains(&slot.hash) {
                    continue;
                }
                s.put(slot.key, v, now_seq, self.per_shard);
            }
        }
    }

    /// Counters.
    pub fn stats(&self) -> RowCacheStats {
        let mut st = RowCacheStats {
            capacity: self.capacity as u64,
            ..Default::default()
        };
        for s in &self.shards {
            let s = s.lock();
            st.hits += s.hits;
            st.misses += s.misses;
            st.bytes += s.bytes as u64;
        }
        st
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_only_for_snapshots_that_include_the_value() {
        let c = RowCache::new(1 << 20).unwrap();
        assert_eq!(c.get(b"k", 10), None);
        c.fill(b"k", b"v1", 10, 12);
        assert_eq!(c.get(b"k", 12).as_deref(), Some(&b"v1"[..]));
        assert_eq!(c.get(b"k", 11), None, "an older snapshot reads RocksDB");
        let st = c.stats();
        assert_eq!((st.hits, st.misses), (1, 2), "{st:?}");
    }

    #[test]
    fn writes_drop_and_block_stale_fills() {
        let c = RowCache::new(1 << 20).unwrap();
        c.fill(b"k", b"v1", 10, 10);
        let keys = [b"k".to_vec()];
        let cached = c.begin_write(keys.iter().map(|k| k.as_slice()));
        assert_eq!(cached, vec![0]);
        assert_eq!(c.get(b"k", 100), None);
        // a reader that read the old value while the write was in flight may not fill
        c.fill(b"k", b"old", 10, 20);
        assert_eq!(c.get(b"k", 100), None);
        // a delete leaves nothing to refresh
        c.end_write(keys.iter().map(|k| (k.as_slice(), None)), 21, &cached, true);
        // nor after it, from a snapshot older than the write
        c.fill(b"k", b"old", 15, 22);
        assert_eq!(c.get(b"k", 100), None);
        // a snapshot that includes the write may
        c.fill(b"k", b"v2", 21, 22);
        assert_eq!(c.get(b"k", 22).as_deref(), Some(&b"v2"[..]));
    }

    /// A cached key gets its written value back, for snapshots that include the write; a key
    /// that was not cached stays out; a failed write and a concurrent write of the same key
    /// refresh nothing.
    #[test]
    fn writes_refresh_cached_keys_only() {
        let c = RowCache::new(1 << 20).unwrap();
        c.fill(b"hot", b"v1", 10, 10);
        let ops = |v: &'static [u8]| [(&b"hot"[..], Some(v)), (&b"cold"[..], Some(&b"c1"[..]))];
        let cached = c.begin_write(ops(b"v2").iter().map(|o| o.0));
        assert_eq!(cached, vec![0]);
        c.end_write(ops(b"v2").into_iter(), 30, &cached, true);
        assert_eq!(c.get(b"hot", 30).as_deref(), Some(&b"v2"[..]));
        assert_eq!(c.get(b"hot", 29), None, "a snapshot before the write");
        assert_eq!(c.get(b"cold", 100), None, "not cached before: not added");

        // failed write: dropped, not refreshed
        let cached = c.begin_write(ops(b"v3").iter().map(|o| o.0));
        c.end_write(ops(b"v3").into_iter(), 31, &cached, false);
        assert_eq!(c.get(b"hot", 100), None);

        // two writes of one key in flight: the first to finish may not install its value
        c.fill(b"hot", b"v3", 31, 31);
        let a = c.begin_write([&b"hot"[..]].into_iter());
        let b = c.begin_write([&b"hot"[..]].into_iter());
        assert_eq!((a.as_slice(), b.as_slice()), (&[0][..], &[][..]));
        c.end_write([(&b"hot"[..], Some(&b"va"[..]))].into_iter(), 40, &a, true);
        assert_eq!(c.get(b"hot", 100), None);
        c.end_write([(&b"hot"[..], Some(&b"vb"[..]))].into_iter(), 41, &b, true);
        assert_eq!(c.get(b"hot", 100), None, "b did not see it cached");
        // fills work again once no write is in flight
        c.fill(b"hot", b"vb", 41, 41);
        assert_eq!(c.get(b"hot", 41).as_deref(), Some(&b"vb"[..]));
    }

    #[test]
    fn bounded_by_bytes() {
        let c = RowCache::new(64 * 4096).unwrap();
        for i in 0..100_000u32 {
            c.fill(&i.to_be_bytes(), &[0u8; 100], 0, 0);
        }
        let st = c.stats();
        assert!(st.bytes <= st.capacity, "{st:?}");
        assert!(st.bytes > st.capacity / 2, "{st:?}");
    }
}
