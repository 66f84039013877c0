//! Index statistics gathered by ANALYZE TABLE and used by the planner.
//!
//! For every index: how many distinct key prefixes of each length it holds (InnoDB's
//! "records per key", shown as `Cardinality` by SHOW INDEX and INFORMATION_SCHEMA.STATISTICS).
//! The access-path chooser uses them to prefer the most selective index, and the join orderer
//! to break ties between candidate tables. ANALYZE TABLE stores them in the data dictionary
//! (`storage::catalog::IndexStatistics`, like InnoDB's persistent statistics), so they survive a
//! restart; they belong to one table definition version (a schema change makes them stale until
//! the next ANALYZE TABLE) and are cached in memory after the first read.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use common::{Result, Value};
use parking_lot::RwLock;
use storage::catalog::{IndexStatistics, TableDef};
use storage::engine::KvEngine;
use storage::txn::{IndexRange, LockMode};
use storage::Storage;

use crate::session::session::Session;

/// At most this many index entries are read per index; larger tables are extrapolated.
const SAMPLE_LIMIT: u64 = 200_000;

/// Statistics of one table.
#[derive(Debug, Clone, Default)]
pub struct TableStatistics {
    /// Definition version they were gathered for.
    pub version: u32,
    /// Rows counted (or estimated beyond the sample).
    pub rows: u64,
    /// Per index, per key-prefix length (1..=columns): distinct prefixes.
    pub cardinality: Vec<Vec<u64>>,
}

impl TableStatistics {
    /// Estimated rows matching one value of the first `prefix` columns of index `ino`.
    pub fn rows_per_key(&self, ino: usize, prefix: usize) -> Option<f64> {
        let c = *self.cardinality.get(ino)?.get(prefix.checked_sub(1)?)?;
        Some(self.rows as f64 / c.max(1) as f64)
    }
}

/// Statistics of the tables looked at, by table id: per id, the definition version looked up
/// and what the dictionary holds for it (None: never analysed for that version).
#[derive(Debug, Default)]
pub struct StatsCache {
    map: RwLock<HashMap<u64, CachedStats>>,
}

/// The definition version looked up, and the statistics stored for it.
type CachedStats = (u32, Option<Arc<TableStatistics>>);

impl StatsCache {
    /// The statistics of `t`, if gathered for its current definition: from memory, else from
    /// the dictionary (once per table version).
    pub fn get<E: KvEngine>(&self, st: &Storage<E>, t: &TableDef) -> Option<Arc<TableStatistics>> {
        if let Some((v, s)) = self.map.read().get(&t.id) {
            if *v == t.version {
                return s.clone();
            }
        }
        // a read error leaves the planner without statistics, as before ANALYZE
        let stored = st
            .index_statistics(t)
            .ok()
            .flatten()
            .filter(|s| s.version == t.version)
            .map(|s| {
                Arc::new(TableStatistics {
                    version: s.version,
                    rows: s.rows,
                    cardinality: s.cardinality,
                })
            });
        self.map.write().insert(t.id, (t.version, stored.clone()));
        stored
    }

    fn put(&self, t: &TableDef, s: TableStatistics) {
        self.map
            .write()
            .insert(t.id, (t.version, Some(Arc::new(s))));
    }
}

/// Gathers the statistics of `t` (ANALYZE TABLE) by reading each index in key order.
pub fn analyze<E: KvEngine>(s: &mut Session<E>, t: &TableDef) -> Result<()> {
    let mut cardinality = Vec::with_capacity(t.indexes.len());
    let mut rows = 0u64;
    let total = s.storage().table_stats(t).map(|r| r.0).unwrap_or(0);
    for (ino, idx) in t.indexes.iter().enumerate() {
        let ncols = idx.columns.len();
        let mut distinct = vec![0u64; ncols];
        let mut n = 0u64;
        // a partitioned table: each partition in turn (distinct counts add up)
        let leaves = crate::catalog::partition::all_leaves(s, t)?;
        let txn = s.ensure_txn();
        for leaf in &leaves {
            let mut prev: Option<Vec<Value>> = None;
            for r in txn.scan(leaf, ino, IndexRange::all(), false, LockMode::None)? {
                let (_, row) = r?;
                let key: Vec<Value> = idx.columns.iter().map(|c| row[c.col].clone()).collect();
                // the first differing column: every prefix from there on is new
                let first_diff = match &prev {
                    None => 0,
                    Some(p) => (0..ncols)
                        .find(|&i| {
                            let coll = t.columns[idx.columns[i].col].ty.collation();
                            func::compare::compare(&p[i], &key[i], coll) != Some(Ordering::Equal)
                                && !(p[i].is_null() && key[i].is_null())
                        })
                        .unwrap_or(ncols),
                };
                for d in distinct.iter_mut().skip(first_diff) {
                    *d += 1;
                }
                prev = Some(key);
                n += 1;
                if n >= SAMPLE_LIMIT {
                    break;
                }
            }
            if n >= SAMPLE_LIMIT {
                break;
            }
        }
        if ino == 0 {
            rows = if n >= SAMPLE_LIMIT { total.max(n) } else { n };
        }
        // extrapolate a sample to the whole table
        if n >= SAMPLE_LIMIT && total > n {
            let f = total as f64 / n as f64;
            for d in distinct.iter_mut() {
                *d = ((*d as f64) * f) as u64;
            }
        }
        cardinality.push(distinct);
    }
    s.storage().put_index_statistics(
        t,
        &IndexStatistics {
            version: t.version,
            rows,
            cardinality: cardinality.clone(),
        },
    )?;
    s.inst.stats.put(
        t,
        TableStatistics {
            version: t.version,
            rows,
            cardinality,
        },
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::session::session::test_support::{ok, rows, session};

    #[test]
    fn statistics_are_read_back_from_the_dictionary() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE t (id INT PRIMARY KEY, f INT, KEY kf (f))",
        );
        ok(
            &mut s,
            "INSERT INTO t VALUES (1, 0), (2, 0), (3, 1), (4, 1), (5, 1)",
        );
        rows(&mut s, "ANALYZE TABLE t");
        let t = s.storage().get_table("d", "t").unwrap().unwrap();
        let stored = s.storage().index_statistics(&t).unwrap().unwrap();
        assert_eq!(stored.cardinality, vec![vec![5], vec![2]]);
        // a fresh cache (as after a restart) loads them
        let cache = super::StatsCache::default();
        let st = cache.get(s.storage(), &t).unwrap();
        assert_eq!(
            (st.rows, st.cardinality.clone()),
            (5, vec![vec![5], vec![2]])
        );
        // stale for another definition version
        let mut newer = (*t).clone();
        newer.version += 1;
        assert!(super::StatsCache::default()
            .get(s.storage(), &newer)
            .is_none());
    }
}
