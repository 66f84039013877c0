//! [`RocksEngine`]: Strata's [`KvEngine`] over RocksDB — the only crate that links `rocksdb`.
//!
//! One plain `rocksdb::DB` with two column families: `default` ([`Cf::Data`]: rows and index
//! entries) and `dict` ([`Cf::Dict`]: the data dictionary). Tuning: one shared, sharded LRU block
//! cache, whole-key bloom filters (10 bits/key), LZ4 for the upper levels and ZSTD for the
//! bottommost level, level compaction with dynamic level bytes, 2–4 background jobs,
//! `bytes_per_sync`, WAL on. Writes are atomic `WriteBatch`es (RocksDB write groups give group
//! commit), synced per call when asked. Snapshots are owned (`'static`): they keep an `Arc` of
//! the database alongside the RocksDB snapshot.

use std::path::Path;
use std::sync::Arc;

use common::{Error, Result};
use rocksdb::{
    AsColumnFamilyRef, BlockBasedOptions, Cache, ColumnFamily, ColumnFamilyDescriptor,
    DBCompressionType, DBRawIteratorWithThreadMode, Options, ReadOptions, SnapshotWithThreadMode,
    WriteOptions, DB,
};
use storage::engine::{Cf, KvEngine, KvIter, KvSnapshot, WriteBatch, WriteOp};

/// Name of the dictionary column family.
pub const DICT_CF: &str = "dict";

/// Options of [`RocksEngine::open`].
#[derive(Debug, Clone)]
pub struct RocksOptions {
    /// Shared block cache size in bytes (default 256 MiB).
    pub block_cache_bytes: usize,
    /// Background flush/compaction jobs (default: 2–4 by CPU count).
    pub max_background_jobs: i32,
    /// Memtable size per column family in bytes (default 64 MiB).
    pub write_buffer_size: usize,
    /// Incremental fsync of SST/WAL files every N bytes (default 1 MiB).
    pub bytes_per_sync: u64,
    /// Create the directory and column families if missing (default true).
    pub create_if_missing: bool,
}

impl Default for RocksOptions {
    fn default() -> Self {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get()) as i32;
        RocksOptions {
            block_cache_bytes: 256 << 20,
            max_background_jobs: cpus.clamp(2, 4),
            write_buffer_size: 64 << 20,
            bytes_per_sync: 1 << 20,
            create_if_missing: true,
        }
    }
}

fn engine_err(what: &str, e: rocksdb::Error) -> Error {
    Error::storage(format!("{what}: {e}"))
}

/// The RocksDB engine. Cheap to clone (shared database).
#[derive(Clone)]
pub struct RocksEngine {
    db: Arc<DB>,
    _cache: Cache,
}

impl RocksEngine {
    /// Opens (or creates) the database at `path`.
    ///
    /// # Errors
    /// The directory cannot be created, the database is locked by another process, permission
    /// is denied, or the files are corrupt — each reported as a storage error naming the path.
    pub fn open(path: &Path, opts: RocksOptions) -> Result<Self> {
        if opts.create_if_missing {
            std::fs::create_dir_all(path).map_err(|e| {
                Error::storage(format!(
                    "cannot create data directory '{}': {e}",
                    path.display()
                ))
                .with_source(e)
            })?;
        }
        let cache = Cache::new_lru_cache(opts.block_cache_bytes);
        let cf_opts = |cache: &Cache| {
            let mut bb = BlockBasedOptions::default();
            bb.set_block_cache(cache);
            bb.set_bloom_filter(10.0, false);
            bb.set_whole_key_filtering(true);
            bb.set_cache_index_and_filter_blocks(true);
            bb.set_pin_l0_filter_and_index_blocks_in_cache(true);
            bb.set_format_version(5);
            let mut o = Options::default();
            o.set_block_based_table_factory(&bb);
            o.set_compression_type(DBCompressionType::Lz4);
            o.set_bottommost_compression_type(DBCompressionType::Zstd);
            o.set_level_compaction_dynamic_level_bytes(true);
            o.set_write_buffer_size(opts.write_buffer_size);
            o
        };
        let mut db_opts = cf_opts(&cache);
        db_opts.create_if_missing(opts.create_if_missing);
        db_opts.create_missing_column_families(opts.create_if_missing);
        db_opts.set_max_background_jobs(opts.max_background_jobs);
        db_opts.set_bytes_per_sync(opts.bytes_per_sync);
        db_opts.set_wal_bytes_per_sync(opts.bytes_per_sync);
        db_opts.set_keep_log_file_num(10);
        // The dictionary column family is written rarely and would otherwise keep every
        // write-ahead log alive (a log goes only once all families flushed their part of it):
        // past two memtables' worth of log, RocksDB flushes the families holding the oldest.
        db_opts.set_max_total_wal_size(2 * opts.write_buffer_size as u64);
        let cfs = vec![
            ColumnFamilyDescriptor::new(rocksdb::DEFAULT_COLUMN_FAMILY_NAME, cf_opts(&cache)),
            ColumnFamilyDescriptor::new(DICT_CF, cf_opts(&cache)),
        ];
        let db = DB::open_cf_descriptors(&db_opts, path, cfs).map_err(|e| {
            let s = e.to_string();
            let why = if s.contains("lock") || s.contains("Resource temporarily unavailable") {
                "the data directory is in use by another process"
            } else if s.contains("Permission denied") {
                "permission denied"
            } else {
                "open failed"
            };
            Error::storage(format!(
                "cannot open RocksDB at '{}': {why} ({s})",
                path.display()
            ))
        })?;
        Ok(RocksEngine {
            db: Arc::new(db),
            _cache: cache,
        })
    }

    /// The underlying database (for engine-specific tooling: properties, checkpoints).
    pub fn db(&self) -> &DB {
        &self.db
    }

    /// An integer RocksDB property of a column family (e.g. `rocksdb.estimate-num-keys`).
    pub fn property_int(&self, cf: Cf, name: &str) -> Option<u64> {
        self.db
            .property_int_value_cf(cf_handle(&self.db, cf).ok()?, name)
            .ok()
            .flatten()
    }
}

fn cf_handle(db: &DB, cf: Cf) -> Result<&ColumnFamily> {
    let name = match cf {
        Cf::Data => rocksdb::DEFAULT_COLUMN_FAMILY_NAME,
        Cf::Dict => DICT_CF,
    };
    db.cf_handle(name)
        .ok_or_else(|| Error::internal(format!("column family {name} missing")))
}

fn read_opts(lower: &[u8], upper: Option<&[u8]>) -> ReadOptions {
    let mut ro = ReadOptions::default();
    ro.set_iterate_lower_bound(lower.to_vec());
    if let Some(u) = upper {
        ro.set_iterate_upper_bound(u.to_vec());
    }
    ro
}

/// A [`KvIter`] over a RocksDB raw iterator (forward or reverse).
struct RocksIter<'a> {
    it: Option<DBRawIteratorWithThreadMode<'a, DB>>,
    reverse: bool,
    err: Option<String>,
}

impl<'a> RocksIter<'a> {
    fn new(it: Result<DBRawIteratorWithThreadMode<'a, DB>>, reverse: bool, empty: bool) -> Self {
        match it {
            Ok(mut it) => {
                if empty {
                    return RocksIter {
                        it: None,
                        reverse,
                        err: None,
                    };
                }
                if reverse {
                    it.seek_to_last();
                } else {
                    it.seek_to_first();
                }
                RocksIter {
                    it: Some(it),
                    reverse,
                    err: None,
                }
            }
            Err(e) => RocksIter {
                it: None,
                reverse,
                err: Some(e.msg),
            },
        }
    }
}

impl KvIter for RocksIter<'_> {
    fn valid(&self) -> bool {
        self.it.as_ref().is_some_and(|i| i.valid())
    }
    fn key(&self) -> &[u8] {
        self.it.as_ref().and_then(|i| i.key()).unwrap_or(&[])
    }
    fn value(&self) -> &[u8] {
        self.it.as_ref().and_then(|i| i.value()).unwrap_or(&[])
    }
    fn next(&mut self) {
        if let Some(i) = self.it.as_mut() {
            if self.reverse {
                i.prev();
            } else {
                i.next();
            }
        }
    }
    fn status(&self) -> Result<()> {
        if let Some(e) = &self.err {
            return Err(Error::storage(e));
        }
        match &self.it {
            Some(i) => i.status().map_err(|e| engine_err("iterator", e)),
            None => Ok(()),
        }
    }
}

fn empty_range(lower: &[u8], upper: Option<&[u8]>) -> bool {
    upper.is_some_and(|u| u <= lower)
}

fn collect_multi(
    res: Vec<std::result::Result<Option<rocksdb::DBPinnableSlice<'_>>, rocksdb::Error>>,
) -> Result<Vec<Option<Vec<u8>>>> {
    res.into_iter()
        .map(|r| {
            r.map(|o| o.map(|s| s.to_vec()))
                .map_err(|e| engine_err("multi_get", e))
        })
        .collect()
}

/// An owned snapshot of a [`RocksEngine`].
pub struct RocksSnapshot {
    // Field order matters: the snapshot is released before the database handle is dropped.
    snap: SnapshotWithThreadMode<'static, DB>,
    db: Arc<DB>,
}

impl RocksSnapshot {
    fn new(db: &Arc<DB>) -> Self {
        let snap = db.snapshot();
        // SAFETY: the snapshot borrows the `DB` inside the `Arc` we store next to it. The `DB`
        // lives on the heap at a fixed address for as long as any `Arc` clone exists, and the
        // field order guarantees `snap` is dropped (released) before our `Arc` clone. Only the
        // lifetime parameter changes; the layout is identical.
        let snap: SnapshotWithThreadMode<'static, DB> = unsafe { std::mem::transmute(snap) };
        RocksSnapshot {
            snap,
            db: db.clone(),
        }
    }

    fn read_opts(&self) -> ReadOptions {
        let mut ro = ReadOptions::default();
        ro.set_snapshot(&self.snap);
        ro
    }
}

impl KvSnapshot for RocksSnapshot {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let h = cf_handle(&self.db, cf)?;
        self.db
            .get_cf_opt(h, key, &self.read_opts())
            .map_err(|e| engine_err("get", e))
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        let h = cf_handle(&self.db, cf)?;
        collect_multi(
            self.db
                .batched_multi_get_cf_opt(h, keys, false, &self.read_opts()),
        )
    }

    fn iter(
        &self,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Box<dyn KvIter + '_> {
        let it = cf_handle(&self.db, cf).map(|h| {
            let mut ro = read_opts(lower, upper);
            ro.set_snapshot(&self.snap);
            self.db.raw_iterator_cf_opt(h, ro)
        });
        Box::new(RocksIter::new(it, reverse, empty_range(lower, upper)))
    }
}

impl KvEngine for RocksEngine {
    type Snapshot = RocksSnapshot;

    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let h = cf_handle(&self.db, cf)?;
        self.db.get_cf(h, key).map_err(|e| engine_err("get", e))
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        let h = cf_handle(&self.db, cf)?;
        collect_multi(self.db.batched_multi_get_cf(h, keys, false))
    }

    fn snapshot(&self) -> RocksSnapshot {
        RocksSnapshot::new(&self.db)
    }

    fn iter(
        &self,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Box<dyn KvIter + '_> {
        let it = cf_handle(&self.db, cf)
            .map(|h| self.db.raw_iterator_cf_opt(h, read_opts(lower, upper)));
        Box::new(RocksIter::new(it, reverse, empty_range(lower, upper)))
    }

    fn write(&self, batch: &WriteBatch, sync: bool) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let data = cf_handle(&self.db, Cf::Data)?;
        let dict = cf_handle(&self.db, Cf::Dict)?;
        let h = |cf: Cf| match cf {
            Cf::Data => data,
            Cf::Dict => dict,
        };
        let mut b = rocksdb::WriteBatch::default();
        for op in batch.ops() {
            match op {
                WriteOp::Put { cf, key, value } => b.put_cf(h(*cf), key, value),
                WriteOp::Delete { cf, key } => b.delete_cf(h(*cf), key),
                WriteOp::DeleteRange { cf, start, end } => {
                    if start < end {
                        b.delete_range_cf(h(*cf), start, end)
                    }
                }
            }
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(sync);
        self.db
            .write_opt(b, &wo)
            .map_err(|e| engine_err("write", e))
    }

    fn compact_range(&self, cf: Cf, start: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        let h = cf_handle(&self.db, cf)?;
        self.db.compact_range_cf(h, start, end);
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        for cf in Cf::ALL {
            self.db
                .flush_cf(cf_handle(&self.db, cf)?)
                .map_err(|e| engine_err("flush", e))?;
        }
        self.db.flush_wal(true).map_err(|e| engine_err("flush", e))
    }

    fn approximate_size(&self, cf: Cf, start: &[u8], end: &[u8]) -> u64 {
        if start >= end {
            return 0;
        }
        let Ok(h) = cf_handle(&self.db, cf) else {
            return 0;
        };
        approximate_size_with_memtables(&self.db, h, start, end)
    }
}

/// Approximate size of `[start, end)` counting SST files *and* memtables (the crate's wrapper
/// counts files only, so freshly written tables would report 0).
fn approximate_size_with_memtables(db: &DB, cf: &ColumnFamily, start: &[u8], end: &[u8]) -> u64 {
    use rocksdb::AsRawPtr;
    let starts = [start.as_ptr() as *const std::ffi::c_char];
    let start_lens = [start.len()];
    let ends = [end.as_ptr() as *const std::ffi::c_char];
    let end_lens = [end.len()];
    let mut sizes = [0u64; 1];
    let mut err: *mut std::ffi::c_char = std::ptr::null_mut();
    // include_memtable | include_files
    let flags: u8 = 1 | 2;
    // SAFETY: all pointers are valid for the duration of the call (locals and the live `db`
    // and `cf` handles); RocksDB writes one u64 into `sizes` and may allocate `err`, which we
    // free with `rocksdb_free`.
    unsafe {
        librocksdb_sys::rocksdb_approximate_sizes_cf_with_flags(
            db.as_raw_ptr(),
            cf.inner(),
            1,
            starts.as_ptr(),
            start_lens.as_ptr(),
            ends.as_ptr(),
            end_lens.as_ptr(),
            flags,
            sizes.as_mut_ptr(),
            &mut err,
        );
        if !err.is_null() {
            librocksdb_sys::rocksdb_free(err as *mut std::ffi::c_void);
            return 0;
        }
    }
    sizes[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_errors_are_clear() {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        let err = RocksEngine::open(dir.path(), RocksOptions::default())
            .err()
            .unwrap();
        assert!(err.msg.contains("in use by another process"), "{}", err.msg);
        drop(e);
        RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        let missing = dir.path().join("nope");
        let err = RocksEngine::open(
            &missing,
            RocksOptions {
                create_if_missing: false,
                ..Default::default()
            },
        )
        .err()
        .unwrap();
        assert!(err.msg.contains("cannot open RocksDB"), "{}", err.msg);
    }

    #[test]
    fn snapshot_outlives_engine_handle() {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        let mut b = WriteBatch::new();
        b.put(Cf::Data, b"k".to_vec(), b"v".to_vec());
        e.write(&b, false).unwrap();
        let s = e.snapshot();
        drop(e);
        assert_eq!(s.get(Cf::Data, b"k").unwrap(), Some(b"v".to_vec()));
        let it = s.iter(Cf::Data, b"", None, false);
        assert!(it.valid());
    }
}
