//! [`DefCache`]: the bounded, sharded LRU of table definitions (`table_definition_cache`).
//!
//! A miss loads from the dictionary; a generation counter keeps a load that raced with DDL from
//! inserting a stale definition.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::num::NonZeroUsize;
use std::sync::Arc;

use std::sync::atomic::{AtomicU64, Ordering};

use lru::LruCache;
use parking_lot::Mutex;

use super::TableDef;

type Key = (String, String);

struct Shard {
    lru: LruCache<Key, Arc<TableDef>>,
    generation: u64,
}

/// A bounded LRU of table definitions keyed by `(db, table)`.
pub struct DefCache {
    shards: Vec<Mutex<Shard>>,
    /// Bumped by every invalidation: any dictionary change moves it (see [`DefCache::epoch`]).
    epoch: AtomicU64,
    /// Which tables reference which, as of an epoch (see [`super::foreign`]).
    pub(crate) referenced_by: super::foreign::ReferencedByCache,
}

impl DefCache {
    /// A cache holding at most `capacity` definitions in total (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        let n = capacity.clamp(1, 16);
        let per = NonZeroUsize::new(capacity / n).unwrap_or(NonZeroUsize::MIN);
        DefCache {
            shards: (0..n)
                .map(|_| {
                    Mutex::new(Shard {
                        lru: LruCache::new(per),
                        generation: 0,
                    })
                })
                .collect(),
            epoch: AtomicU64::new(0),
            referenced_by: Default::default(),
        }
    }

    /// The schema epoch: changes whenever a definition is invalidated, i.e. on every DDL. A
    /// prepared statement's cached plan is reused only while the epoch it was planned at lasts.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    fn shard(&self, db: &str, name: &str) -> &Mutex<Shard> {
        let mut h = DefaultHasher::new();
        db.hash(&mut h);
        name.hash(&mut h);
        &self.shards[(h.finish() as usize) % self.shards.len()]
    }

    /// A cached definition, and the shard generation to pass to [`DefCache::insert`] on a miss.
    pub fn get(&self, db: &str, name: &str) -> (Option<Arc<TableDef>>, u64) {
        let mut s = self.shard(db, name).lock();
        let k = (db.to_string(), name.to_string());
        let g = s.generation;
        (s.lru.get(&k).cloned(), g)
    }

    /// Inserts a loaded definition unless DDL touched the shard since `generation`.
    pub fn insert(&self, def: Arc<TableDef>, generation: u64) {
        let mut s = self.shard(&def.db, &def.name).lock();
        if s.generation == generation {
            s.lru.put((def.db.clone(), def.name.clone()), def);
        }
    }

    /// Drops `(db, name)` and invalidates in-flight loads of its shard.
    pub fn invalidate(&self, db: &str, name: &str) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
        let mut s = self.shard(db, name).lock();
        s.generation += 1;
        s.lru.pop(&(db.to_string(), name.to_string()));
    }

    /// Drops every entry of database `db`.
    pub fn invalidate_db(&self, db: &str) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
        for sh in &self.shards {
            let mut s = sh.lock();
            s.generation += 1;
            let keys: Vec<Key> = s
                .lru
                .iter()
                .filter(|(k, _)| k.0 == db)
                .map(|(k, _)| k.clone())
                .collect();
            for k in keys {
                s.lru.pop(&k);
            }
        }
    }

    /// Number of cached definitions.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().lru.len()).sum()
    }

    /// True if nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::TableOptions;

    fn def(name: &str) -> Arc<TableDef> {
        Arc::new(TableDef {
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            temporary: false,
            partitioning: None,
            leaf: None,
            part_select: None,
            id: 1,
            db: "d".into(),
            name: name.into(),
            columns: vec![],
            indexes: vec![],
            hidden_pk: true,
            version: 1,
            options: TableOptions::default(),
        })
    }

    #[test]
    fn bounded_and_generation_checked() {
        let c = DefCache::new(10);
        for i in 0..100 {
            let (hit, g) = c.get("d", &format!("t{i}"));
            assert!(hit.is_none());
            c.insert(def(&format!("t{i}")), g);
        }
        assert!(c.len() <= 10);
        let (_, g) = c.get("d", "x");
        let e = c.epoch();
        c.invalidate("d", "x");
        assert!(c.epoch() > e, "every invalidation moves the schema epoch");
        c.insert(def("x"), g);
        assert!(
            c.get("d", "x").0.is_none(),
            "stale insert after DDL is refused"
        );
    }
}
