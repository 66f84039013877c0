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
//!   Older snapshots (long transactions) simply read RocksDB.
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
    /// Fills must come from snapshots at least this recent.
    min_seq: u64,
    /// Reads served from this shard, and reads that missed it. Counted under the shard's lock:
    /// cache-wide atomic counters were written by every read from every core, and the cache
    /// line they shared with `shards` moved between the cores on each point select.
    hits: u64,
    misses: u64,
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
        // Fx, not SipHash (here and in the shards' maps): every point read hashes its key;
        // the keys are our own. The shard comes from middle bits, which the maps' bucket
        // (low bits) and tag (top 7 bits) do not use, so a shard's keys still spread.
        let mut h = rustc_hash::FxHasher::default();
        key.hash(&mut h);
        ((h.finish() >> 40) as usize) % self.shards.len()
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
        let cost = key.len() + value.len() + ENTRY_OVERHEAD;
        if cost > self.per_shard / 4 {
            return;
        }
        let mut s = self.shards[self.shard_no(key)].lock();
        if s.pending > 0 || reader_seq < s.min_seq {
            return;
        }
        let entry = Entry {
            value: value.to_vec(),
            w_bound: now_seq,
        };
        if let Some(old) = s.lru.put(key.to_vec(), entry) {
            s.bytes -= key.len() + old.value.len() + ENTRY_OVERHEAD;
        }
        s.bytes += cost;
        while s.bytes > self.per_shard {
            match s.lru.pop_lru() {
                Some((k, e)) => s.bytes -= k.len() + e.value.len() + ENTRY_OVERHEAD,
                None => break,
            }
        }
    }

    fn drop_keys<'a>(&self, keys: impl Iterator<Item = &'a [u8]>, f: impl Fn(&mut Shard)) {
        let mut touched: Vec<usize> = Vec::new();
        for k in keys {
            let no = self.shard_no(k);
            let mut s = self.shards[no].lock();
            if let Some(e) = s.lru.pop(k) {
                s.bytes -= k.len() + e.value.len() + ENTRY_OVERHEAD;
            }
            if !touched.contains(&no) {
                touched.push(no);
                f(&mut s);
            }
        }
    }

    /// Before a batch writing `keys` goes to RocksDB.
    pub fn begin_write<'a>(&self, keys: impl Iterator<Item = &'a [u8]>) {
        self.drop_keys(keys, |s| s.pending += 1);
    }

    /// After that batch was written (or failed); `now_seq` read after the write.
    pub fn end_write<'a>(&self, keys: impl Iterator<Item = &'a [u8]>, now_seq: u64) {
        self.drop_keys(keys, |s| {
            s.pending -= 1;
            s.min_seq = s.min_seq.max(now_seq);
        });
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
        c.begin_write(keys.iter().map(|k| k.as_slice()));
        assert_eq!(c.get(b"k", 100), None);
        // a reader that read the old value while the write was in flight may not fill
        c.fill(b"k", b"old", 10, 20);
        assert_eq!(c.get(b"k", 100), None);
        c.end_write(keys.iter().map(|k| k.as_slice()), 21);
        // nor after it, from a snapshot older than the write
        c.fill(b"k", b"old", 15, 22);
        assert_eq!(c.get(b"k", 100), None);
        // a snapshot that includes the write may
        c.fill(b"k", b"v2", 21, 22);
        assert_eq!(c.get(b"k", 22).as_deref(), Some(&b"v2"[..]));
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
