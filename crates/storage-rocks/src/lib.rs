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

use common::wait::{self, WaitType};
use common::{Error, Result};
use rocksdb::{
    AsColumnFamilyRef, BlockBasedIndexType, BlockBasedOptions, Cache, ColumnFamilyDescriptor,
    DBRawIteratorWithThreadMode, Options, ReadOptions, ReadTier, SnapshotWithThreadMode,
    WriteOptions, DB,
};
use storage::engine::{
    BulkWriter, Cf, KvEngine, KvIter, KvSnapshot, StorageClass, WriteBatch, WriteOp,
};

pub mod classes;

mod hotversions;
mod ingest;
mod logsync;
pub mod rangecache;
pub mod rowcache;
pub use classes::DICT_CF;
use classes::{Cfh, Db};
use hotversions::{HotVersions, Probe};
use logsync::LogSync;
use rangecache::{CachedRows, Lookup, RangeCache, ReadAt, Rows};
use rowcache::RowCache;

/// Size of a memtable's bloom filter, as a fraction of the memtable's size: 160 KiB for an
/// 8 MiB memtable, 13 bits per key or more for entries of 80 bytes or more (an index entry of
/// iibench; a sysbench row is about 250).
const MEMTABLE_BLOOM_RATIO: f64 = 0.02;

/// Options of [`RocksEngine::open`].
#[derive(Debug, Clone)]
pub struct RocksOptions {
    /// Shared block cache size in bytes (default 256 MiB).
    pub block_cache_bytes: usize,
    /// Background flush/compaction jobs (default: 2–4 by CPU count).
    pub max_background_jobs: i32,
    /// Size of one memtable in bytes (default 8 MiB). Full memtables are kept until
    /// [`RocksOptions::flush_bytes`] of them can be flushed together into one level-0 file
    /// (see [`RocksOptions::memtables_to_merge`]).
    pub write_buffer_size: usize,
    /// Size of a data block before compression, in bytes (default 16 KiB).
    ///
    /// A range read pays a block cache lookup and a new block iterator for every block it
    /// enters; with 4 KiB blocks (about 20 sysbench rows) that was a tenth of the range reads'
    /// CPU. Sysbench oltp_read_write, 8 threads, 30 s on fresh data, 5 runs each, alternating:
    /// median 1,030 µs of server CPU per transaction with 16 KiB against 1,125 with 4 KiB, and
    /// 1,429 against 1,278 tps. Hot single rows are kept by the row cache, not by the blocks.
    pub block_size: usize,
    /// Incremental fsync of SST/WAL files every N bytes (default 1 MiB).
    pub bytes_per_sync: u64,
    /// Create the directory and column families if missing (default true).
    pub create_if_missing: bool,
    /// Row cache size in bytes (0 = off; see [`rowcache`]). An eighth of it goes to the range
    /// cache ([`rangecache`]), the rest to single rows.
    pub row_cache_bytes: usize,
}

impl RocksOptions {
    /// Default of [`RocksOptions::write_buffer_size`].
    pub const DEFAULT_WRITE_BUFFER_SIZE: usize = 8 << 20;

    /// Bytes of memtables written to level 0 by one flush: 64 MiB, or one memtable if
    /// memtables are larger.
    pub fn flush_bytes(&self) -> usize {
        self.write_buffer_size * self.memtables_to_merge()
    }

    /// Full memtables merged into one level-0 file (RocksDB's
    /// `min_write_buffer_number_to_merge`): as many as make 64 MiB, at most 8.
    ///
    /// Why small memtables merged at flush rather than one large memtable: a write inserts
    /// each key into the active memtable's skip list, and with random keys (secondary indexes)
    /// every insert walks the list through cache misses. In a 64 MiB memtable that walk grew
    /// from ~12 to ~20 µs of server CPU per iibench row as the memtable filled, so the insert
    /// rate fell by half within each memtable's life. An 8 MiB list stays mostly in the CPU
    /// cache, and flushing eight of them together keeps level-0 files, and so compactions, as
    /// large as before. Measured (16 MiB budget, 3 alternating runs each): iibench (3 indexes,
    /// 100-row INSERTs) server CPU 1187/1247/1297 -> 880/919/1033 ticks, insert rate
    /// 124-132k -> 152-176k rows/s, last / first interval 0.38-0.74 -> 1.0-1.3; sysbench at
    /// 8 threads, 2 pairs, µs of server CPU per transaction: oltp_insert 109/103 -> 95/95,
    /// oltp_point_select 17/17 -> 15/15, oltp_read_write 936/929 -> 924/895. Reads look in up
    /// to sixteen small memtables instead of two large ones, each with a bloom filter
    /// ([`RocksEngine::open`]).
    pub fn memtables_to_merge(&self) -> usize {
        ((64 << 20) / self.write_buffer_size.max(1)).clamp(1, 8)
    }
}

impl Default for RocksOptions {
    fn default() -> Self {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get()) as i32;
        RocksOptions {
            block_cache_bytes: 256 << 20,
            max_background_jobs: cpus.clamp(2, 4),
            write_buffer_size: Self::DEFAULT_WRITE_BUFFER_SIZE,
            block_size: 16 << 10,
            bytes_per_sync: 1 << 20,
            create_if_missing: true,
            row_cache_bytes: 0,
        }
    }
}

fn engine_err(what: &str, e: rocksdb::Error) -> Error {
    let text = e.to_string();
    // Out of space: RocksDB stops writes (a background error) and resumes by itself once the
    // free space exceeds a memtable's worth (its SstFileManager polls every few seconds);
    // reads go on meanwhile.
    if text.contains("No space left on device") {
        return Error::new(
            common::codes::ER_DISK_FULL,
            format!(
                "Disk full ({what}); writes are refused until space is freed (errno: 28 \"No space left on device\"): {text}"
            ),
        );
    }
    if text.contains("Read-only file system") {
        return Error::new(
            common::codes::ER_OPEN_AS_READONLY,
            format!("The data directory is read only ({what}): {text}"),
        );
    }
    Error::storage(format!("{what}: {e}"))
}

/// The RocksDB engine. Cheap to clone (shared database).
#[derive(Clone)]
pub struct RocksEngine {
    db: Arc<Db>,
    _cache: Cache,
    /// Strata's row cache (None when its size is 0).
    rows: Option<Arc<RowCache>>,
    /// Strata's range cache (None when the row cache is off).
    ranges: Option<Arc<RangeCache>>,
    /// Bytes an iterator reads ahead after a block-cache miss (see [`RocksIter`]).
    read_ahead: usize,
    /// Flushing memtables full of old versions (see [`hotversions`]).
    hot: Arc<HotVersions>,
    /// Group fsync of the log for commits (see [`logsync`]).
    log_sync: Arc<LogSync>,
    /// RocksDB's ticker counters (block cache hits and misses for SHOW STATUS).
    stats: EngineStats,
}

/// RocksDB's counters, shared with the database (a copy of its options holds the statistics
/// object). Only tickers are kept (`ExceptHistogramOrTimers`): a per-core counter add, no clock.
/// Also reaches the block cache (its size and use) and, while the database is open, its
/// properties (pending compaction).
#[derive(Clone)]
pub struct EngineStats {
    opts: Arc<Options>,
    cache: Cache,
    cache_capacity: u64,
    block_size: u64,
    db: std::sync::Weak<Db>,
}

/// Engine-wide RocksDB counters beyond the block cache (`Rocksdb_*` status).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct EngineCounters {
    /// Point lookups a bloom filter answered "not here" without reading the data block.
    pub bloom_useful: u64,
    /// Microseconds writes were stalled or slowed down by RocksDB's write controller.
    pub stall_micros: u64,
    /// Bytes read by point lookups and iterators.
    pub bytes_read: u64,
    /// Bytes written (puts, deletes, merges).
    pub bytes_written: u64,
    /// Keys read by point lookups.
    pub keys_read: u64,
    /// Keys written.
    pub keys_written: u64,
    /// Bytes compactions read.
    pub compact_read_bytes: u64,
    /// Bytes compactions wrote.
    pub compact_write_bytes: u64,
    /// Bytes memtable flushes wrote.
    pub flush_write_bytes: u64,
    /// 1 while at least one compaction is pending (RocksDB's `rocksdb.compaction-pending`,
    /// summed over the column families).
    pub compaction_pending: u64,
    /// Estimated bytes compaction still has to rewrite
    /// (`rocksdb.estimate-pending-compaction-bytes`).
    pub pending_compaction_bytes: u64,
}

/// The block cache's size and use (`Innodb_buffer_pool_*` status, counted in blocks).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BlockCacheSize {
    /// The cache's capacity in bytes.
    pub capacity: u64,
    /// Bytes the cache holds now.
    pub usage: u64,
    /// The configured (uncompressed) data block size in bytes.
    pub block_size: u64,
}

/// Block cache lookups since the server started (`Strata_block_cache_*` status).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct BlockCacheStats {
    /// Lookups of any block served from the cache.
    pub hits: u64,
    /// Lookups of any block not in the cache (a read's cache-only first attempt counts too,
    /// see [`read_through`]).
    pub misses: u64,
    /// Data blocks (rows and index entries) served from the cache.
    pub data_hits: u64,
    /// Data block lookups not in the cache (cache-only attempts included).
    pub data_misses: u64,
    /// Data blocks read from a file into the cache.
    pub data_adds: u64,
    /// SST index block lookups not in the cache.
    pub index_misses: u64,
    /// Bloom filter block lookups not in the cache.
    pub filter_misses: u64,
}

impl EngineStats {
    /// The block cache's size and use now.
    pub fn block_cache_size(&self) -> BlockCacheSize {
        BlockCacheSize {
            capacity: self.cache_capacity,
            usage: self.cache.get_usage() as u64,
            block_size: self.block_size,
        }
    }

    /// The engine-wide counters now (the compaction figures are 0 once the database closed).
    pub fn counters(&self) -> EngineCounters {
        use rocksdb::statistics::Ticker;
        let t = |k| self.opts.get_ticker_count(k);
        let prop = |name: &str| -> u64 {
            let Some(db) = self.db.upgrade() else {
                return 0;
            };
            db.named()
                .into_iter()
                .filter_map(|(_, h)| db.property_int_value_cf(&h, name).ok()?)
                .sum()
        };
        EngineCounters {
            bloom_useful: t(Ticker::BloomFilterUseful),
            stall_micros: t(Ticker::StallMicros),
            bytes_read: t(Ticker::BytesRead),
            bytes_written: t(Ticker::BytesWritten),
            keys_read: t(Ticker::NumberKeysRead),
            keys_written: t(Ticker::NumberKeysWritten),
            compact_read_bytes: t(Ticker::CompactReadBytes),
            compact_write_bytes: t(Ticker::CompactWriteBytes),
            flush_write_bytes: t(Ticker::FlushWriteBytes),
            compaction_pending: prop("rocksdb.compaction-pending"),
            pending_compaction_bytes: prop("rocksdb.estimate-pending-compaction-bytes"),
        }
    }

    /// SHOW ENGINE ROCKSDB STATUS as MyRocks lays it out: rows of (Type, Name, Status) with
    /// RocksDB's own texts — its statistics (`STATISTICS`), the database's stats
    /// (`rocksdb.dbstats`, `DBSTATS`), each column family's compaction stats
    /// (`rocksdb.cfstats`, `CF_COMPACTION`) and memory use (`MEMORY_STATS`). Only the
    /// statistics row once the database closed.
    pub fn status_rows(&self) -> Vec<(String, String, String)> {
        let mut rows = vec![(
            "STATISTICS".to_string(),
            "rocksdb".to_string(),
            self.opts.get_statistics().unwrap_or_default(),
        )];
        let Some(db) = self.db.upgrade() else {
            return rows;
        };
        if let Ok(Some(t)) = db.property_value("rocksdb.dbstats") {
            rows.push(("DBSTATS".into(), "rocksdb".into(), t));
        }
        let mut memtables = 0;
        let mut readers = 0;
        for (name, h) in db.named() {
            if let Ok(Some(t)) = db.property_value_cf(&h, "rocksdb.cfstats") {
                rows.push(("CF_COMPACTION".into(), name, t));
            }
            let int = |p: &str| db.property_int_value_cf(&h, p).ok().flatten().unwrap_or(0);
            memtables += int("rocksdb.cur-size-all-mem-tables");
            readers += int("rocksdb.estimate-table-readers-mem");
        }
        let size = self.block_cache_size();
        rows.push((
            "MEMORY_STATS".into(),
            "rocksdb".into(),
            format!(
                "\nMemTable Total: {memtables}\nMemTable Unflushed: {memtables}\nTable Readers Total: {readers}\nCache Total: {}\nDefault Cache Capacity: {}\n",
                size.usage, size.capacity
            ),
        ));
        rows
    }

    /// The block cache counters now.
    pub fn block_cache(&self) -> BlockCacheStats {
        use rocksdb::statistics::Ticker;
        let t = |k| self.opts.get_ticker_count(k);
        BlockCacheStats {
            hits: t(Ticker::BlockCacheHit),
            misses: t(Ticker::BlockCacheMiss),
            data_hits: t(Ticker::BlockCacheDataHit),
            data_misses: t(Ticker::BlockCacheDataMiss),
            data_adds: t(Ticker::BlockCacheDataAdd),
            index_misses: t(Ticker::BlockCacheIndexMiss),
            filter_misses: t(Ticker::BlockCacheFilterMiss),
        }
    }
}

impl RocksEngine {
    /// The row cache (None when it is off), for its counters.
    pub fn row_cache(&self) -> Option<Arc<RowCache>> {
        self.rows.clone()
    }

    /// The range cache (None when it is off), for its counters.
    pub fn range_cache(&self) -> Option<Arc<RangeCache>> {
        self.ranges.clone()
    }

    /// RocksDB's counters (block cache hits and misses).
    pub fn stats(&self) -> EngineStats {
        self.stats.clone()
    }

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
        let mut db_opts = cf_options(&opts, &cache, StorageClass::default());
        db_opts.create_if_missing(opts.create_if_missing);
        db_opts.create_missing_column_families(opts.create_if_missing);
        db_opts.set_max_background_jobs(opts.max_background_jobs);
        db_opts.set_bytes_per_sync(opts.bytes_per_sync);
        db_opts.set_wal_bytes_per_sync(opts.bytes_per_sync);
        db_opts.set_keep_log_file_num(10);
        // Commits from many sessions: the next write group writes and syncs its WAL records
        // while the previous one is still inserting into the memtable (measured: -6 % CPU and
        // wall time for sysbench oltp_insert at 8 threads, 4 paired runs).
        db_opts.set_enable_pipelined_write(true);
        db_opts.enable_statistics();
        db_opts.set_statistics_level(rocksdb::statistics::StatsLevel::ExceptHistogramOrTimers);
        // The dictionary column family is written rarely and would otherwise keep every
        // write-ahead log alive (a log goes only once all families flushed their part of it):
        // past two flushes' worth of log, RocksDB flushes the families holding the oldest.
        db_opts.set_max_total_wal_size(2 * opts.flush_bytes() as u64);
        let default = || cf_options(&opts, &cache, StorageClass::default());
        let mut cfs = vec![
            ColumnFamilyDescriptor::new(rocksdb::DEFAULT_COLUMN_FAMILY_NAME, default()),
            ColumnFamilyDescriptor::new(DICT_CF, default()),
        ];
        // the storage classes created before (a new database has none)
        for name in DB::list_cf(&db_opts, path).unwrap_or_default() {
            if let Some(class) = classes::class_of_name(&name) {
                cfs.push(ColumnFamilyDescriptor::new(
                    name,
                    cf_options(&opts, &cache, class),
                ));
            }
        }
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
        ingest::clean_up(path);
        let make = {
            let (opts, cache) = (opts.clone(), cache.clone());
            Box::new(move |class: StorageClass| cf_options(&opts, &cache, class))
        };
        let db = Db::new(db, make)?;
        for h in db.all(Cf::Data) {
            hotversions::configure(&db, &h);
        }
        let db = Arc::new(db);
        let stats = EngineStats {
            opts: Arc::new(db_opts),
            cache: cache.clone(),
            cache_capacity: opts.block_cache_bytes as u64,
            block_size: opts.block_size as u64,
            db: Arc::downgrade(&db),
        };
        Ok(RocksEngine {
            db,
            _cache: cache,
            rows: RowCache::new(opts.row_cache_bytes - opts.row_cache_bytes / 8).map(Arc::new),
            ranges: RangeCache::new(opts.row_cache_bytes / 8).map(Arc::new),
            read_ahead: read_ahead_bytes(opts.block_cache_bytes),
            hot: Arc::new(HotVersions::new()),
            log_sync: Arc::new(LogSync::default()),
            stats,
        })
    }

    /// The underlying database (for engine-specific tooling: properties, checkpoints).
    pub fn db(&self) -> &DB {
        &self.db
    }

    /// An integer RocksDB property of a column family (e.g. `rocksdb.estimate-num-keys`); for
    /// [`Cf::Data`], of the default storage class.
    pub fn property_int(&self, cf: Cf, name: &str) -> Option<u64> {
        self.db
            .property_int_value_cf(&self.db.handle(cf), name)
            .ok()
            .flatten()
    }

    /// The names of the column families (`default`, `dict` and one per storage class in use).
    pub fn column_families(&self) -> Vec<String> {
        self.db.named().into_iter().map(|(n, _)| n).collect()
    }
}

/// The options of the column family of `class` (the default class: the `default` and `dict`
/// families, and the database-wide options built on them).
fn cf_options(opts: &RocksOptions, cache: &Cache, class: StorageClass) -> Options {
    let block_size = match class.block_kb {
        0 => opts.block_size,
        kb => usize::from(kb) << 10,
    };
    let mut bb = BlockBasedOptions::default();
    bb.set_block_cache(cache);
    bb.set_block_size(block_size);
    bb.set_bloom_filter(10.0, false);
    bb.set_whole_key_filtering(true);
    bb.set_cache_index_and_filter_blocks(true);
    bb.set_pin_l0_filter_and_index_blocks_in_cache(true);
    // Partitioned index and filters: a point read loads one 4 KiB partition of each
    // instead of the file's whole index and filter (hundreds of KiB for a large
    // last-level file). With whole blocks, data ≫ cache made them evict each other:
    // measured at a 16 MiB budget over 800 MiB of rows (cache workload), 3.2M filter
    // and 1.1M index block misses against 0.3M data block misses, and lookups that
    // missed the row cache ran at 2–3k/s. Only the small top level stays pinned.
    bb.set_index_type(BlockBasedIndexType::TwoLevelIndexSearch);
    bb.set_partition_filters(true);
    bb.set_metadata_block_size(4096);
    bb.set_pin_top_level_index_and_filter(true);
    bb.set_cache_index_and_filter_blocks_with_high_priority(true);
    bb.set_format_version(5);
    let mut o = Options::default();
    o.set_block_based_table_factory(&bb);
    classes::set_codec(&mut o, class.codec);
    o.set_level_compaction_dynamic_level_bytes(true);
    o.set_write_buffer_size(opts.write_buffer_size);
    let merge = opts.memtables_to_merge();
    o.set_min_write_buffer_number_to_merge(merge as i32);
    // Room for as many again while a flush writes its memtables: at most 128 MiB of
    // memtables, as two 64 MiB ones were. Against room for ten (two more than the
    // eight merged), 3 alternating iibench pairs: server CPU 1293/1216/1229 ->
    // 1199/1055/1108 ticks. The dip in the insert rate at each 64 MiB flush (to about
    // 100k rows/s for two or three intervals) is there with either; its cause (the
    // flush's CPU on 2 cores, or writes waiting) is not established.
    o.set_max_write_buffer_number((2 * merge) as i32);
    // A point read searches every memtable not yet flushed, newest first, until one
    // has the key: with up to sixteen small memtables, a read of a row that none of
    // them holds walked sixteen skip lists (perf, sysbench oltp_read_write: skip-list
    // searches under point reads 2 % of the server's CPU). A whole-key bloom filter
    // per memtable lets the read skip the memtables without the key. Measured
    // (oltp_read_write, 8 threads, 4 x 100k rows, 5 alternating pairs of 30 s runs):
    // server CPU per transaction 981 / 1014 / 845 / 1082 / 922 -> 919 / 861 / 873 /
    // 870 / 886 us; iibench server CPU unchanged (3 pairs).
    o.set_memtable_prefix_bloom_ratio(MEMTABLE_BLOOM_RATIO);
    o.set_memtable_whole_key_filtering(true);
    o
}

/// Whether a RocksDB error is the `Incomplete` status of a block-cache-only read: the data is
/// not in memory (memtables or block cache) and reading it needs file I/O.
fn is_incomplete(e: &rocksdb::Error) -> bool {
    e.kind() == rocksdb::ErrorKind::Incomplete
}

/// Read options for a block-cache-only attempt.
fn cache_only(mut ro: ReadOptions) -> ReadOptions {
    ro.set_read_tier(ReadTier::BlockCache);
    ro
}

/// A point read of the data column family through the row cache, for a reader at `reader_seq`
/// (see `rowcache`): a hit is returned as is, a miss reads RocksDB with `opts` and offers the
/// value to the cache. The dictionary column family bypasses the cache.
fn get_cached(
    db: &Db,
    rows: Option<&RowCache>,
    cf: Cf,
    key: &[u8],
    reader_seq: u64,
    opts: impl Fn() -> ReadOptions,
) -> Result<Option<Vec<u8>>> {
    let rows = rows.filter(|_| cf == Cf::Data);
    if let Some(v) = rows.and_then(|r| r.get(key, reader_seq)) {
        return Ok(Some(v));
    }
    let h = db.route(cf, key);
    let v =
        read_through(opts, |ro| db.get_cf_opt(&h, key, ro)).map_err(|e| engine_err("get", e))?;
    if let (Some(r), Some(v)) = (rows, &v) {
        r.fill(key, v, reader_seq, db.latest_sequence_number());
    }
    Ok(v)
}

/// Runs a read with block-cache-only options first; only when RocksDB answers `Incomplete`
/// (a block is not in the cache, so the read goes to the files) does it report a
/// [`WaitType::DiskIo`] wait to the thread pool and redo the read with normal options. A
/// cached read therefore costs one extra option field and no wait report.
fn read_through<T>(
    make: impl Fn() -> ReadOptions,
    read: impl Fn(&ReadOptions) -> std::result::Result<T, rocksdb::Error>,
) -> std::result::Result<T, rocksdb::Error> {
    match read(&cache_only(make())) {
        Err(e) if is_incomplete(&e) => {
            let _wait = wait::guard(WaitType::DiskIo);
            read(&make())
        }
        r => r,
    }
}

/// [`read_through`] for a multi-get: each key is first read block-cache-only with a point
/// read; the keys whose read was `Incomplete` are read again, together (one batched MultiGet),
/// inside one disk wait.
///
/// The cache-only attempt is not a batched MultiGet: RocksDB's MultiGet with
/// `ReadTier::BlockCache` answered OK with an *empty* value for rows whose data block was not
/// cached (TPC-C at 10 warehouses: the customer rows a secondary-index lookup resolved failed to
/// decode, 1815 "truncated varint", until a point read had cached their blocks), where a point
/// read answers `Incomplete`.
fn multi_get_through(
    db: &Db,
    cf: Cf,
    keys: &[Vec<u8>],
    make: impl Fn() -> ReadOptions,
) -> Result<Vec<Option<Vec<u8>>>> {
    let Some(first) = keys.first() else {
        return Ok(Vec::new());
    };
    let h = db.route(cf, first);
    if keys.iter().all(|k| db.route(cf, k) == h) {
        return multi_get_in(db, h, keys, make);
    }
    // keys of several storage classes: one multi-get per class
    let mut out = vec![None; keys.len()];
    let mut left: Vec<usize> = (0..keys.len()).collect();
    while let Some(&i) = left.first() {
        let h = db.route(cf, &keys[i]);
        let (now, later): (Vec<usize>, Vec<usize>) =
            left.iter().partition(|&&j| db.route(cf, &keys[j]) == h);
        let group: Vec<Vec<u8>> = now.iter().map(|&j| keys[j].clone()).collect();
        for (j, v) in now.iter().zip(multi_get_in(db, h, &group, &make)?) {
            out[*j] = v;
        }
        left = later;
    }
    Ok(out)
}

/// [`multi_get_through`] of keys of one column family.
fn multi_get_in(
    db: &DB,
    cf: Cfh<'_>,
    keys: &[Vec<u8>],
    make: impl Fn() -> ReadOptions,
) -> Result<Vec<Option<Vec<u8>>>> {
    let cf = &cf;
    let mut out: Vec<Option<Vec<u8>>> = Vec::with_capacity(keys.len());
    let mut missing: Vec<usize> = Vec::new();
    let cached = cache_only(make());
    for (i, k) in keys.iter().enumerate() {
        match db.get_cf_opt(cf, k, &cached) {
            Ok(v) => out.push(v),
            Err(e) if is_incomplete(&e) => {
                out.push(None);
                missing.push(i);
            }
            Err(e) => return Err(engine_err("multi_get", e)),
        }
    }
    if missing.is_empty() {
        return Ok(out);
    }
    let _wait = wait::guard(WaitType::DiskIo);
    let again: Vec<&[u8]> = missing.iter().map(|&i| keys[i].as_slice()).collect();
    let res = db.batched_multi_get_cf_opt(cf, again, false, &make());
    for (&i, r) in missing.iter().zip(res) {
        out[i] = r
            .map(|o| o.map(|s| s.to_vec()))
            .map_err(|e| engine_err("multi_get", e))?;
    }
    Ok(out)
}

/// Entries a disk read-ahead of [`RocksIter`] touches at most.
const READ_AHEAD_ENTRIES: usize = 1024;

/// Key + value bytes a disk read-ahead touches at most: 64 KiB, or an eighth of the block
/// cache when that is smaller (so the blocks read ahead are still cached when the scan
/// reaches them).
fn read_ahead_bytes(block_cache_bytes: usize) -> usize {
    (block_cache_bytes / 8).clamp(1, 64 << 10)
}

/// A [`KvIter`] over a RocksDB raw iterator (forward or reverse) that reports disk reads.
///
/// It iterates with a block-cache-only iterator. When that stops with `Incomplete` (the next
/// entry lives in a block that is not cached), it reports a [`WaitType::DiskIo`] wait and, inside
/// it, opens a normal iterator at the same position (the entry after the last one returned),
/// which reads the missing blocks from the files into the block cache, and walks on up to
/// [`READ_AHEAD_ENTRIES`] entries / [`read_ahead_bytes`] bytes so the next blocks are cached
/// too (one wait per read-ahead rather than per block). It then reopens the cache-only
/// iterator at the position and carries on. A snapshot iterator reopens on the same snapshot,
/// so it sees exactly the same data; an iterator over the latest state reopens on the latest
/// state (what such reads are for: locking reads of the latest committed rows), and its
/// entries already returned are not read again. Should the cache fail to keep the blocks just
/// read (a cache smaller than a few blocks per level), the rest of the scan continues on the
/// normal iterator without further reports.
struct RocksIter<'a> {
    db: &'a DB,
    cf: Option<Cfh<'a>>,
    lower: Vec<u8>,
    upper: Option<Vec<u8>>,
    snap: Option<&'a SnapshotWithThreadMode<'static, DB>>,
    read_ahead: usize,
    it: Option<DBRawIteratorWithThreadMode<'a, DB>>,
    /// The current iterator reads through to the files (cache-only mode gave up).
    through: bool,
    reverse: bool,
    err: Option<String>,
    /// The key of the entry last returned (the position to resume after), reused buffer.
    last: Vec<u8>,
    hot: &'a HotVersions,
    /// Counting the old versions this scan steps over (a sample; see [`hotversions`]).
    probe: Option<Probe>,
}

/// Where a [`RocksIter`] reads (a snapshot or the latest state) and the engine state it uses.
struct IterCtx<'a> {
    snap: Option<&'a SnapshotWithThreadMode<'static, DB>>,
    read_ahead: usize,
    hot: &'a HotVersions,
}

impl<'a> RocksIter<'a> {
    fn new(
        db: &'a DB,
        cf: Result<Cfh<'a>>,
        (lower, upper): (&[u8], Option<&[u8]>),
        ctx: IterCtx<'a>,
        reverse: bool,
    ) -> Self {
        let mut me = RocksIter {
            db,
            cf: None,
            lower: lower.to_vec(),
            upper: upper.map(<[u8]>::to_vec),
            snap: ctx.snap,
            read_ahead: ctx.read_ahead,
            it: None,
            through: false,
            reverse,
            err: None,
            last: Vec::new(),
            hot: ctx.hot,
            probe: Probe::sample(),
        };
        match cf {
            Err(e) => me.err = Some(e.msg),
            Ok(cf) if !empty_range(lower, upper) => {
                me.cf = Some(cf);
                let mut it = me.open(true);
                if reverse {
                    it.seek_to_last();
                } else {
                    it.seek_to_first();
                }
                me.it = Some(it);
                me.settle(false);
            }
            Ok(_) => {}
        }
        me
    }

    fn read_opts(&self, cached: bool) -> ReadOptions {
        let mut ro = ReadOptions::default();
        ro.set_iterate_lower_bound(self.lower.clone());
        if let Some(u) = &self.upper {
            ro.set_iterate_upper_bound(u.clone());
        }
        if let Some(s) = self.snap {
            ro.set_snapshot(s);
        }
        if cached {
            ro.set_read_tier(ReadTier::BlockCache);
        }
        ro
    }

    /// A new raw iterator (block-cache-only when `cached`), not positioned.
    fn open(&self, cached: bool) -> DBRawIteratorWithThreadMode<'a, DB> {
        let cf = self.cf.expect("open is only called with a column family");
        self.db.raw_iterator_cf_opt(&cf, self.read_opts(cached))
    }

    /// Positions `it` at the first entry (`resume` false) or at the entry after `self.last`.
    fn position(&self, it: &mut DBRawIteratorWithThreadMode<'a, DB>, resume: bool) {
        match (resume, self.reverse) {
            (false, false) => it.seek_to_first(),
            (false, true) => it.seek_to_last(),
            (true, false) => {
                it.seek(&self.last);
                if it.key() == Some(self.last.as_slice()) {
                    it.next();
                }
            }
            (true, true) => {
                it.seek_for_prev(&self.last);
                if it.key() == Some(self.last.as_slice()) {
                    it.prev();
                }
            }
        }
    }

    /// After a move of the cache-only iterator: when it stopped because a block is not
    /// cached, read through the files inside a disk wait (see the type's documentation).
    fn settle(&mut self, resume: bool) {
        if self.through {
            return;
        }
        let incomplete = match &self.it {
            Some(it) if !it.valid() => matches!(it.status(), Err(e) if is_incomplete(&e)),
            _ => false,
        };
        if !incomplete {
            return;
        }
        let _wait = wait::guard(WaitType::DiskIo);
        self.it = None;
        let mut disk = self.open(false);
        self.position(&mut disk, resume);
        if !disk.valid() {
            // The end of the range, or an I/O error: either way the normal iterator says so.
            self.it = Some(disk);
            self.through = true;
            return;
        }
        // Read ahead so the next blocks are cached as well.
        let (mut n, mut bytes) = (0, 0);
        while disk.valid() && n < READ_AHEAD_ENTRIES && bytes < self.read_ahead {
            bytes += disk.key().map_or(0, <[u8]>::len) + disk.value().map_or(0, <[u8]>::len);
            n += 1;
            if self.reverse {
                disk.prev();
            } else {
                disk.next();
            }
        }
        let mut cached = self.open(true);
        self.position(&mut cached, resume);
        if cached.valid() {
            self.it = Some(cached);
        } else {
            // Evicted already (or another error): go on with the normal iterator.
            self.position(&mut disk, resume);
            self.it = Some(disk);
            self.through = true;
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
        let Some(i) = self.it.as_mut() else { return };
        if !i.valid() {
            return;
        }
        if !self.through {
            self.last.clear();
            self.last.extend_from_slice(i.key().unwrap_or(&[]));
        }
        if self.reverse {
            i.prev();
        } else {
            i.next();
        }
        if let Some(p) = &mut self.probe {
            p.row();
        }
        self.settle(true);
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

impl Drop for RocksIter<'_> {
    fn drop(&mut self) {
        // the RocksDB iterator goes first: its own memtable trigger runs in its destructor
        self.it = None;
        if let (Some(p), Some(cf)) = (self.probe.take(), self.cf) {
            p.finish(self.hot, self.db, &cf);
        }
    }
}

fn empty_range(lower: &[u8], upper: Option<&[u8]>) -> bool {
    upper.is_some_and(|u| u <= lower)
}

/// An owned snapshot of a [`RocksEngine`].
pub struct RocksSnapshot {
    // Field order matters: the snapshot is released before the database handle is dropped.
    snap: SnapshotWithThreadMode<'static, DB>,
    db: Arc<Db>,
    read_ahead: usize,
    rows: Option<Arc<RowCache>>,
    ranges: Option<Arc<RangeCache>>,
    /// RocksDB's latest sequence number just before the snapshot was taken.
    reader_seq: u64,
    /// And just after.
    reader_after: u64,
    hot: Arc<HotVersions>,
}

impl RocksSnapshot {
    fn new(e: &RocksEngine) -> Self {
        let db = &e.db;
        let reader_seq = db.latest_sequence_number();
        let snap = db.snapshot();
        // SAFETY: the snapshot borrows the `DB` inside the `Arc` we store next to it. The `DB`
        // lives on the heap at a fixed address for as long as any `Arc` clone exists, and the
        // field order guarantees `snap` is dropped (released) before our `Arc` clone. Only the
        // lifetime parameter changes; the layout is identical.
        let snap: SnapshotWithThreadMode<'static, DB> = unsafe { std::mem::transmute(snap) };
        let reader_after = db.latest_sequence_number();
        RocksSnapshot {
            snap,
            db: db.clone(),
            read_ahead: e.read_ahead,
            rows: e.rows.clone(),
            ranges: e.ranges.clone(),
            reader_seq,
            reader_after,
            hot: e.hot.clone(),
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
        let rows = self.rows.as_deref();
        get_cached(&self.db, rows, cf, key, self.reader_seq, || {
            self.read_opts()
        })
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        multi_get_through(&self.db, cf, keys, || self.read_opts())
    }

    fn iter(
        &self,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Box<dyn KvIter + '_> {
        let mut fill = None;
        if let (Cf::Data, Some(up), Some(rc)) = (cf, upper, &self.ranges) {
            let at = ReadAt {
                seq: self.reader_seq,
                after: self.reader_after,
            };
            match rc.read(lower, up, at, reverse) {
                Lookup::Hit(rows) => return Box::new(CachedIter { rows, pos: 0 }),
                Lookup::Uncovered => fill = Some((rc.as_ref(), up)),
                Lookup::Cold | Lookup::Covered => {}
            }
        }
        let it = RocksIter::new(
            &self.db,
            Ok(self.db.route(cf, lower)),
            (lower, upper),
            IterCtx {
                snap: Some(&self.snap),
                read_ahead: self.read_ahead,
                hot: &self.hot,
            },
            reverse,
        );
        match fill {
            Some((rc, up)) => Box::new(FillingIter::new(it, rc, lower, up, self.reader_seq)),
            None => Box::new(it),
        }
    }
}

/// The rows of a range served by the range cache.
struct CachedIter {
    rows: CachedRows,
    pos: usize,
}

impl KvIter for CachedIter {
    fn valid(&self) -> bool {
        self.pos < self.rows.len()
    }
    fn key(&self) -> &[u8] {
        if self.valid() {
            self.rows.key(self.pos)
        } else {
            &[]
        }
    }
    fn value(&self) -> &[u8] {
        if self.valid() {
            self.rows.value(self.pos)
        } else {
            &[]
        }
    }
    fn next(&mut self) {
        self.pos += 1;
    }
    fn status(&self) -> Result<()> {
        Ok(())
    }
}

/// A snapshot scan of a range the range cache does not cover: it keeps a copy of what it
/// returns and, when it reaches the end of the range without error, offers the copy to the
/// cache. It stops copying past [`rangecache::MAX_FILL_ENTRIES`] or
/// [`rangecache::MAX_FILL_BYTES`], and a scan dropped before its end offers nothing.
struct FillingIter<'a> {
    it: RocksIter<'a>,
    cache: &'a RangeCache,
    lower: Vec<u8>,
    upper: Vec<u8>,
    reader_seq: u64,
    /// None once the range proved too big.
    rows: Option<Rows>,
    bytes: usize,
}

impl<'a> FillingIter<'a> {
    fn new(
        it: RocksIter<'a>,
        cache: &'a RangeCache,
        lower: &[u8],
        upper: &[u8],
        reader_seq: u64,
    ) -> Self {
        let mut me = FillingIter {
            it,
            cache,
            lower: lower.to_vec(),
            upper: upper.to_vec(),
            reader_seq,
            rows: Some(Vec::new()),
            bytes: 0,
        };
        me.keep();
        me
    }

    /// Copies the current entry.
    fn keep(&mut self) {
        if !self.it.valid() {
            return;
        }
        let Some(rows) = &mut self.rows else { return };
        let (k, v) = (self.it.key(), self.it.value());
        self.bytes += k.len() + v.len();
        if rows.len() >= rangecache::MAX_FILL_ENTRIES || self.bytes > rangecache::MAX_FILL_BYTES {
            self.rows = None;
            return;
        }
        rows.push((Arc::from(k), Arc::from(v)));
    }
}

impl KvIter for FillingIter<'_> {
    fn valid(&self) -> bool {
        self.it.valid()
    }
    fn key(&self) -> &[u8] {
        self.it.key()
    }
    fn value(&self) -> &[u8] {
        self.it.value()
    }
    fn next(&mut self) {
        self.it.next();
        self.keep();
    }
    fn status(&self) -> Result<()> {
        self.it.status()
    }
}

impl Drop for FillingIter<'_> {
    fn drop(&mut self) {
        if self.it.valid() || self.it.status().is_err() {
            return;
        }
        if let Some(rows) = self.rows.take() {
            let now = self.it.db.latest_sequence_number();
            self.cache
                .fill(&self.lower, &self.upper, rows, self.reader_seq, now);
        }
    }
}

impl KvEngine for RocksEngine {
    type Snapshot = RocksSnapshot;

    /// A read of the latest committed value (locking reads: UPDATE and DELETE read the rows
    /// they change this way). Served by the row cache as a snapshot taken now would be.
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        let reader_seq = self.db.latest_sequence_number();
        let rows = self.rows.as_deref();
        get_cached(&self.db, rows, cf, key, reader_seq, ReadOptions::default)
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        multi_get_through(&self.db, cf, keys, ReadOptions::default)
    }

    fn snapshot(&self) -> RocksSnapshot {
        RocksSnapshot::new(self)
    }

    fn iter(
        &self,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Box<dyn KvIter + '_> {
        Box::new(RocksIter::new(
            &self.db,
            Ok(self.db.route(cf, lower)),
            (lower, upper),
            IterCtx {
                snap: None,
                read_ahead: self.read_ahead,
                hot: &self.hot,
            },
            reverse,
        ))
    }

    fn write(&self, batch: &WriteBatch, sync: bool) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }

        // one RocksDB batch over every column family: atomic across storage classes
        let db = &self.db;
        let mut b = rocksdb::WriteBatch::default();
        for op in batch.ops() {
            match op {
                WriteOp::Put { cf, key, value } => b.put_cf(&db.route(*cf, key), key, value),
                WriteOp::Delete { cf, key } => b.delete_cf(&db.route(*cf, key), key),
                WriteOp::DeleteRange { cf, start, end } => {
                    if start < end {
                        for h in db.all(*cf) {
                            b.delete_range_cf(&h, start, end)
                        }
                    }
                }
            }
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(sync);
        self.hot.wrote();
        let (Some(rows), Some(ranges)) = (&self.rows, &self.ranges) else {
            return self
                .db
                .write_opt(b, &wo)
                .map_err(|e| engine_err("write", e));
        };
        // the row cache drops the written keys around the write, and refreshes the ones it
        // held (see `rowcache`); the range cache adds the new versions (see `rangecache`)
        let ops = || {
            batch.ops().iter().filter_map(|op| match op {
                WriteOp::Put {
                    cf: Cf::Data,
                    key,
                    value,
                } => Some((key.as_slice(), Some(value.as_slice()))),
                WriteOp::Delete { cf: Cf::Data, key } => Some((key.as_slice(), None)),
                _ => None,
            })
        };
        let range_deletes: Vec<(&[u8], &[u8])> = batch
            .ops()
            .iter()
            .filter_map(|op| match op {
                WriteOp::DeleteRange {
                    cf: Cf::Data,
                    start,
                    end,
                } => Some((start.as_slice(), end.as_slice())),
                _ => None,
            })
            .collect();
        let mut cached = rows.begin_write(ops().map(|(k, _)| k));
        // a range delete may cover a key written before it in the batch: refresh nothing
        if !range_deletes.is_empty() {
            cached.clear();
        }
        ranges.begin_write(ops().map(|(k, _)| k), &range_deletes);
        let lo = self.db.latest_sequence_number();
        let r = self.db.write_opt(b, &wo);
        let now = self.db.latest_sequence_number();
        rows.end_write(ops(), now, &cached, r.is_ok());
        ranges.end_write(ops(), &range_deletes, lo, now, r.is_ok());
        r.map_err(|e| engine_err("write", e))
    }

    fn sync_log(&self) -> Result<()> {
        let _w = wait::guard(WaitType::Sync);
        self.log_sync
            .sync(&self.db)
            .map_err(|e| engine_err("log sync", e))
    }

    fn compact_range(&self, cf: Cf, start: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        for h in self.db.all(cf) {
            self.db.compact_range_cf(&h, start, end);
        }
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        for (_, h) in self.db.named() {
            self.db.flush_cf(&h).map_err(|e| engine_err("flush", e))?;
        }
        self.db.flush_wal(true).map_err(|e| engine_err("flush", e))
    }

    fn approximate_size(&self, cf: Cf, start: &[u8], end: &[u8]) -> u64 {
        if start >= end {
            return 0;
        }
        approximate_size_with_memtables(&self.db, &self.db.route(cf, start), start, end)
    }

    fn set_index_class(&self, index_id: u32, class: StorageClass) -> Result<()> {
        self.db.set_index_class(index_id, class)
    }

    fn bulk_writer(&self, index_ids: &[u32]) -> Result<Option<Box<dyn BulkWriter + '_>>>
    where
        Self: Sized,
    {
        Ok(ingest::SstBulkWriter::new(self, index_ids)?
            .map(|w| Box::new(w) as Box<dyn BulkWriter + '_>))
    }
}

/// Approximate size of `[start, end)` counting SST files *and* memtables (the crate's wrapper
/// counts files only, so freshly written tables would report 0).
fn approximate_size_with_memtables(db: &DB, cf: &Cfh<'_>, start: &[u8], end: &[u8]) -> u64 {
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

    /// Writes keys `r0..r{keys}` `rounds` times (value = the round), one batch per round.
    fn write_versions(e: &RocksEngine, keys: u8, rounds: u8) {
        for round in 0..rounds {
            let mut b = WriteBatch::new();
            for k in 0..keys {
                b.put(Cf::Data, vec![b'r', k], vec![round]);
            }
            e.write(&b, false).unwrap();
        }
    }

    /// Rows a forward scan of `r…` returns, checking each holds `newest`.
    fn scan_rows(it: &mut dyn KvIter, newest: u8) -> usize {
        let mut rows = 0;
        while it.valid() {
            assert_eq!(it.value(), &[newest]);
            rows += 1;
            it.next();
        }
        rows
    }

    fn in_memtable(e: &RocksEngine) -> Option<u64> {
        e.property_int(Cf::Data, "rocksdb.num-entries-active-mem-table")
    }

    /// True once `cond` holds, polled every 20 ms for up to 10 s (background flushes).
    fn eventually(cond: impl Fn() -> bool) -> bool {
        (0..500).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            cond()
        })
    }

    /// Writes 3000 rows of 1000 bytes (keys `key(0..3000)`, big-endian) in batches of 100:
    /// three memtables' worth at 1 MiB each. Returns the value written.
    fn write_3000_kib_rows(e: &RocksEngine, key: impl Fn(u32) -> u32) -> Vec<u8> {
        let value = vec![7u8; 1000];
        for batch in 0..30u32 {
            let mut b = WriteBatch::new();
            for k in 0..100u32 {
                let k = key(batch * 100 + k).to_be_bytes().to_vec();
                b.put(Cf::Data, k, value.clone());
            }
            e.write(&b, false).unwrap();
        }
        value
    }

    /// Full small memtables wait to be flushed together: after three memtables' worth of
    /// writes there is no level-0 file yet, and one flush writes them into one file.
    #[test]
    fn full_memtables_are_merged_into_one_flush() {
        let opts = |write_buffer_size| RocksOptions {
            write_buffer_size,
            ..Default::default()
        };
        // 64 MiB per flush, at most 8 memtables; a memtable of 64 MiB or more alone
        for (size, merge, flush) in [
            (1 << 20, 8, 8 << 20),
            (8 << 20, 8, 64 << 20),
            (128 << 20, 1, 128 << 20),
        ] {
            let o = opts(size);
            assert_eq!((o.memtables_to_merge(), o.flush_bytes()), (merge, flush));
        }
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), opts(1 << 20)).unwrap();
        let value = write_3000_kib_rows(&e, |i| i);
        // time for a background flush, were one due (a 1 MiB flush takes milliseconds)
        std::thread::sleep(std::time::Duration::from_millis(300));
        let prop = |name: &str| e.property_int(Cf::Data, name).unwrap();
        assert!(prop("rocksdb.num-immutable-mem-table") >= 2);
        assert_eq!(prop("rocksdb.num-files-at-level0"), 0);
        e.flush().unwrap();
        assert_eq!(prop("rocksdb.num-files-at-level0"), 1);
        assert_eq!(
            e.get(Cf::Data, &1234u32.to_be_bytes()).unwrap(),
            Some(value)
        );
    }

    /// A point read of a key that no memtable holds is answered by the memtables' bloom
    /// filters, not by a search of each one's skip list.
    #[test]
    fn point_reads_skip_memtables_without_the_key() {
        use rocksdb::perf::{set_perf_stats, PerfContext, PerfMetric, PerfStatsLevel};
        let dir = tempfile::tempdir().unwrap();
        let o = RocksOptions {
            write_buffer_size: 1 << 20,
            ..Default::default()
        };
        let e = RocksEngine::open(dir.path(), o).unwrap();
        let value = write_3000_kib_rows(&e, |i| 2 * i);
        let memtables = 1 + e
            .property_int(Cf::Data, "rocksdb.num-immutable-mem-table")
            .unwrap();
        assert!(memtables >= 3, "{memtables} memtables");
        set_perf_stats(PerfStatsLevel::EnableCount);
        let mut ctx = PerfContext::default();
        ctx.reset();
        // odd keys were never written; even ones were
        assert_eq!(e.get(Cf::Data, &1235u32.to_be_bytes()).unwrap(), None);
        let skipped = ctx.metric(PerfMetric::BloomMemtableMissCount);
        assert_eq!(
            e.get(Cf::Data, &1234u32.to_be_bytes()).unwrap(),
            Some(value)
        );
        set_perf_stats(PerfStatsLevel::Disable);
        assert!(
            skipped + 1 >= memtables,
            "{skipped} of {memtables} memtables skipped"
        );
    }

    #[test]
    fn a_scan_over_many_old_versions_flushes_the_memtable() {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        // 50 keys, each written 20 times: a scan steps over 19 old versions per row
        write_versions(&e, 50, 20);
        let mut it = e.iter(Cf::Data, b"r", Some(b"s"), false);
        assert_eq!(scan_rows(it.as_mut(), 19), 50);
        drop(it);
        assert_eq!(
            in_memtable(&e),
            Some(1000),
            "nothing flushed before a write"
        );
        // a write into the marked memtable schedules the flush, the next one switches memtables
        let mut b = WriteBatch::new();
        b.put(Cf::Data, b"x".to_vec(), b"y".to_vec());
        e.write(&b, false).unwrap();
        e.write(&b, false).unwrap();
        let flushed = eventually(|| in_memtable(&e).is_some_and(|n| n < 1000));
        assert!(flushed, "the memtable was not flushed");
        let it = e.iter(Cf::Data, b"r", Some(b"s"), false);
        assert_eq!(it.value(), &[19]);
    }

    #[test]
    fn scans_after_the_writes_stopped_flush_a_memtable_of_old_versions() {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        write_versions(&e, 200, 25);
        std::thread::sleep(hotversions::IDLE + std::time::Duration::from_millis(100));
        // only sampled scans count; the snapshot scans take the same path
        let snap = e.snapshot();
        for _ in 0..hotversions::SAMPLE_EVERY {
            let mut it = snap.iter(Cf::Data, b"r", Some(b"s"), false);
            assert_eq!(scan_rows(it.as_mut(), 24), 200);
        }
        let flushed = eventually(|| in_memtable(&e) == Some(0));
        assert!(flushed, "no flush without a write");
        let it = snap.iter(Cf::Data, b"r\x05", Some(b"s"), false);
        assert_eq!((it.key(), it.value()), (&b"r\x05"[..], &[24][..]));
    }

    #[test]
    fn a_scan_over_fresh_rows_does_not_flush() {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        write_versions(&e, 200, 1);
        let mut it = e.iter(Cf::Data, b"r", Some(b"s"), false);
        assert_eq!(scan_rows(it.as_mut(), 0), 200);
        drop(it);
        write_versions(&e, 200, 2);
        // (a flush, had one been scheduled, would have switched memtables inside the writes)
        assert_eq!(in_memtable(&e), Some(600));
    }

    #[test]
    fn multi_get_of_rows_in_uncached_blocks_returns_their_values() {
        // Rows written to files, the database reopened (an empty block cache), then read back
        // in batches: each value must come back whole, whether its block was cached or not.
        let dir = tempfile::tempdir().unwrap();
        let key = |i: u32| format!("row-{i:08}").into_bytes();
        let val = |i: u32| format!("{i}:").repeat(40).into_bytes();
        {
            let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
            for chunk in 0..20u32 {
                let mut b = WriteBatch::new();
                for i in chunk * 1000..(chunk + 1) * 1000 {
                    b.put(Cf::Data, key(i), val(i));
                }
                e.write(&b, false).unwrap();
            }
            e.flush().unwrap();
        }
        let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        let s = e.snapshot();
        for (n, step) in [(2u32, 7919u32), (16, 1237), (64, 311)] {
            let ids: Vec<u32> = (0..n).map(|j| (j * step + n) % 20_000).collect();
            let keys: Vec<Vec<u8>> = ids.iter().map(|&i| key(i)).collect();
            for (got, &i) in s.multi_get(Cf::Data, &keys).unwrap().into_iter().zip(&ids) {
                assert_eq!(got, Some(val(i)), "row {i} of a batch of {n}");
            }
            for (got, &i) in e.multi_get(Cf::Data, &keys).unwrap().into_iter().zip(&ids) {
                assert_eq!(got, Some(val(i)), "row {i} of a batch of {n} (latest)");
            }
        }
        let absent = vec![b"row-x".to_vec(), key(3)];
        assert_eq!(
            s.multi_get(Cf::Data, &absent).unwrap(),
            vec![None, Some(val(3))]
        );
    }

    /// The entries of an index of a storage class live in that class's column family (with
    /// its block size and codec), are read back through every read path, are removed by the
    /// index's range delete, and are found again after a restart.
    #[test]
    fn index_of_a_class_lives_in_its_column_family() {
        use storage::codec::key::index_range;
        use storage::engine::Codec;
        let dir = tempfile::tempdir().unwrap();
        let class = StorageClass {
            block_kb: 4,
            codec: Codec::Zstd,
        };
        let k = |id: u32, i: u32| {
            let mut k = id.to_be_bytes().to_vec();
            k.extend_from_slice(&i.to_be_bytes());
            k
        };
        let raw = |e: &RocksEngine, name: &str, key: &[u8]| {
            let (_, h) = e.db.named().into_iter().find(|(n, _)| n == name).unwrap();
            e.db.get_cf(&h, key).unwrap()
        };
        {
            let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
            e.set_index_class(7, class).unwrap();
            e.set_index_class(7, class).unwrap();
            e.set_index_class(8, StorageClass::default()).unwrap();
            // an index keeps its class
            assert!(e.set_index_class(7, StorageClass::default()).is_err());
            assert_eq!(
                e.column_families(),
                vec!["data_b4k_zstd", "default", "dict"]
            );
            let mut b = WriteBatch::new();
            for i in 0..2000 {
                b.put(Cf::Data, k(7, i), vec![b'x'; 100]);
                b.put(Cf::Data, k(8, i), vec![b'y'; 100]);
            }
            e.write(&b, false).unwrap();
            assert!(raw(&e, "data_b4k_zstd", &k(7, 5)).is_some());
            assert!(raw(&e, "default", &k(7, 5)).is_none());
            assert!(raw(&e, "default", &k(8, 5)).is_some());
            assert!(raw(&e, "data_b4k_zstd", &k(8, 5)).is_none());
            assert_eq!(e.get(Cf::Data, &k(7, 5)).unwrap(), Some(vec![b'x'; 100]));
            let got = e
                .multi_get(Cf::Data, &[k(8, 1), k(7, 1), k(7, 9999)])
                .unwrap();
            assert_eq!(
                got,
                vec![Some(vec![b'y'; 100]), Some(vec![b'x'; 100]), None]
            );
            let (lo, hi) = index_range(7);
            let mut it = e
                .snapshot()
                .iter(Cf::Data, &lo, Some(&hi), false)
                .count_rows();
            assert_eq!(it, 2000);
            e.flush().unwrap();
            let props =
                e.db.property_value_cf(
                    &e.db
                        .named()
                        .into_iter()
                        .find(|(n, _)| n == "data_b4k_zstd")
                        .unwrap()
                        .1,
                    "rocksdb.aggregated-table-properties",
                )
                .unwrap()
                .unwrap();
            // 2000 entries of ~108 bytes in 4 KiB blocks: about 50 blocks
            let blocks: u64 = props
                .split(';')
                .find_map(|p| p.trim().strip_prefix("# data blocks="))
                .unwrap()
                .parse()
                .unwrap();
            assert!((40..=80).contains(&blocks), "{props}");
            it = e.iter(Cf::Data, &lo, Some(&hi), true).count_rows();
            assert_eq!(it, 2000);
        }
        // reopened: the family is opened again, the index declared again when its table loads
        let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        assert_eq!(
            e.column_families(),
            vec!["data_b4k_zstd", "default", "dict"]
        );
        e.set_index_class(7, class).unwrap();
        assert_eq!(e.get(Cf::Data, &k(7, 5)).unwrap(), Some(vec![b'x'; 100]));
        // a range delete reaches every class (a drop after a restart may not know the class)
        let (lo, hi) = index_range(7);
        let mut b = WriteBatch::new();
        b.delete_range(Cf::Data, lo.clone(), hi.clone());
        e.write(&b, false).unwrap();
        assert_eq!(e.get(Cf::Data, &k(7, 5)).unwrap(), None);
        assert!(raw(&e, "data_b4k_zstd", &k(7, 5)).is_none());
        assert_eq!(e.iter(Cf::Data, &lo, Some(&hi), false).count_rows(), 0);
        assert_eq!(e.get(Cf::Data, &k(8, 5)).unwrap(), Some(vec![b'y'; 100]));
    }

    /// Counts the rows of an iterator.
    trait CountRows {
        fn count_rows(self) -> usize;
    }

    impl CountRows for Box<dyn KvIter + '_> {
        fn count_rows(mut self) -> usize {
            let mut n = 0;
            while self.valid() {
                n += 1;
                self.next();
            }
            self.status().unwrap();
            n
        }
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

    /// Counts the DiskIo waits reported on this thread.
    #[derive(Default)]
    struct Waits(std::sync::atomic::AtomicUsize);

    impl wait::WaitHandler for Waits {
        fn wait_begin(&self, t: WaitType) {
            assert_eq!(t, WaitType::DiskIo);
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        fn wait_end(&self) {}
    }

    fn key(i: u32) -> Vec<u8> {
        format!("k{i:08}").into_bytes()
    }

    fn value(i: u32) -> Vec<u8> {
        // Poorly compressible, so the table is much larger than the cache.
        (0..100u32)
            .map(|j| (i.wrapping_mul(2_654_435_761).wrapping_add(j * 40_503) >> 13) as u8)
            .collect()
    }

    #[test]
    fn disk_reads_report_waits_and_read_correctly() {
        const N: u32 = 20_000;
        let dir = tempfile::tempdir().unwrap();
        let opts = RocksOptions {
            block_cache_bytes: 256 << 10,
            ..Default::default()
        };
        let e = RocksEngine::open(dir.path(), opts.clone()).unwrap();
        let mut b = WriteBatch::new();
        for i in 0..N {
            b.put(Cf::Data, key(i), value(i));
        }
        e.write(&b, false).unwrap();
        let waits = Arc::new(Waits::default());
        let count = || waits.0.load(std::sync::atomic::Ordering::SeqCst);
        wait::set_handler(Some(waits.clone()));
        // In the memtable: no disk reads.
        assert_eq!(e.get(Cf::Data, &key(5)).unwrap(), Some(value(5)));
        assert!(e.iter(Cf::Data, b"", None, false).valid());
        assert_eq!(count(), 0);
        e.flush().unwrap();
        drop(e);
        // Reopened: every block is in the files only.
        let e = RocksEngine::open(dir.path(), opts).unwrap();
        let scan = |reverse: bool, snap: bool| {
            let s = e.snapshot();
            let mut it = if snap {
                s.iter(Cf::Data, b"k", Some(b"l"), reverse)
            } else {
                e.iter(Cf::Data, b"k", Some(b"l"), reverse)
            };
            let mut n = 0u32;
            while it.valid() {
                let i = if reverse { N - 1 - n } else { n };
                assert_eq!(it.key(), key(i).as_slice());
                assert_eq!(it.value(), value(i).as_slice());
                n += 1;
                it.next();
            }
            it.status().unwrap();
            n
        };
        let before = count();
        assert_eq!(scan(false, false), N);
        let forward = count() - before;
        // 2 MB of rows through a 256 KiB cache: many misses, one wait per read-ahead.
        assert!(forward > 5, "{forward} waits");
        assert_eq!(scan(true, true), N);
        assert_eq!(scan(false, true), N);
        assert!(count() > before + 2 * forward, "{} waits", count());
        // Point reads: a cold one waits once, a repeated one is cached.
        let before = count();
        assert_eq!(e.get(Cf::Data, &key(N / 2)).unwrap(), Some(value(N / 2)));
        let keys: Vec<Vec<u8>> = [1, N / 3, N - 2].iter().map(|&i| key(i)).collect();
        let got = e.snapshot().multi_get(Cf::Data, &keys).unwrap();
        let want: Vec<Option<Vec<u8>>> =
            [1, N / 3, N - 2].iter().map(|&i| Some(value(i))).collect();
        assert_eq!(got, want);
        assert_eq!(e.get(Cf::Data, b"missing").unwrap(), None);
        let cold = count() - before;
        assert!(cold >= 1, "{cold}");
        let before = count();
        assert_eq!(e.get(Cf::Data, &key(N / 2)).unwrap(), Some(value(N / 2)));
        assert_eq!(count(), before);
        wait::set_handler(None);
    }

    #[test]
    fn row_cache_keeps_snapshot_reads_consistent() {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(
            dir.path(),
            RocksOptions {
                row_cache_bytes: 1 << 20,
                ..Default::default()
            },
        )
        .unwrap();
        let put = |v: &[u8]| {
            let mut b = WriteBatch::new();
            b.put(Cf::Data, b"row".to_vec(), v.to_vec());
            e.write(&b, false).unwrap();
        };
        put(b"v1");
        let s1 = e.snapshot();
        assert_eq!(
            s1.get(Cf::Data, b"row").unwrap().as_deref(),
            Some(&b"v1"[..])
        );
        let s2 = e.snapshot();
        assert_eq!(
            s2.get(Cf::Data, b"row").unwrap().as_deref(),
            Some(&b"v1"[..])
        );
        let rc = e.row_cache().unwrap();
        assert_eq!(
            rc.stats().hits,
            1,
            "the second snapshot is served from the row cache"
        );
        put(b"v2");
        // old snapshots keep their value, new ones see the write
        assert_eq!(
            s1.get(Cf::Data, b"row").unwrap().as_deref(),
            Some(&b"v1"[..])
        );
        let s3 = e.snapshot();
        assert_eq!(
            s3.get(Cf::Data, b"row").unwrap().as_deref(),
            Some(&b"v2"[..])
        );
        assert_eq!(
            s2.get(Cf::Data, b"row").unwrap().as_deref(),
            Some(&b"v1"[..])
        );
        let s4 = e.snapshot();
        assert_eq!(
            s4.get(Cf::Data, b"row").unwrap().as_deref(),
            Some(&b"v2"[..])
        );
        // deletes drop the entry
        let mut b = WriteBatch::new();
        b.delete(Cf::Data, b"row".to_vec());
        e.write(&b, false).unwrap();
        assert_eq!(e.snapshot().get(Cf::Data, b"row").unwrap(), None);
        assert_eq!(
            s4.get(Cf::Data, b"row").unwrap().as_deref(),
            Some(&b"v2"[..])
        );
    }

    /// Writers rewrite a range of rows in atomic batches (every row gets the batch's number and
    /// the row the number picks is deleted; a third writer updates single rows) while readers
    /// scan sub-ranges at fresh and at older snapshots, once through the range cache and once
    /// straight from RocksDB at the same snapshot: the two must return the same rows.
    #[test]
    fn range_cache_scans_match_rocksdb_under_concurrent_writes() {
        use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
        const N: u64 = 40;
        let dir = tempfile::tempdir().unwrap();
        let opts = RocksOptions {
            row_cache_bytes: 8 << 20,
            ..Default::default()
        };
        let e = RocksEngine::open(dir.path(), opts).unwrap();
        let key = |i: u64| format!("t{i:03}").into_bytes();
        let full = |v: u64| {
            let mut b = WriteBatch::new();
            for i in 0..N {
                if i == v % N {
                    b.delete(Cf::Data, key(i));
                } else {
                    b.put(Cf::Data, key(i), v.to_be_bytes().to_vec());
                }
            }
            b
        };
        let scan = |it: &mut dyn KvIter| {
            let mut out = Vec::new();
            while it.valid() {
                out.push((it.key().to_vec(), it.value().to_vec()));
                it.next();
            }
            it.status().unwrap();
            out
        };
        let both = |snap: &RocksSnapshot, a: u64, b: u64, reverse: bool| {
            let (lo, hi) = (key(a), key(b));
            let via = scan(snap.iter(Cf::Data, &lo, Some(&hi), reverse).as_mut());
            let ctx = IterCtx {
                snap: Some(&snap.snap),
                read_ahead: snap.read_ahead,
                hot: &snap.hot,
            };
            let cf = Ok(snap.db.handle(Cf::Data));
            let mut direct = RocksIter::new(&snap.db, cf, (&lo, Some(&hi)), ctx, reverse);
            assert_eq!(via, scan(&mut direct), "range {a}..{b} reverse {reverse}");
            via.len()
        };
        e.write(&full(0), false).unwrap();
        // no writes: the first scan is remembered, the second fills, the third is served
        let snap = e.snapshot();
        for _ in 0..3 {
            assert_eq!(both(&snap, 0, N, false), N as usize - 1);
        }
        let rc = e.range_cache().unwrap();
        assert_eq!((rc.stats().fills, rc.stats().hits), (1, 1));

        let next = AtomicU64::new(1);
        let stop = AtomicBool::new(false);
        std::thread::scope(|s| {
            for w in 0..3 {
                let (e, next, stop) = (&e, &next, &stop);
                s.spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        let v = next.fetch_add(1, Ordering::Relaxed);
                        let b = if w < 2 {
                            full(v)
                        } else {
                            let mut b = WriteBatch::new();
                            b.put(Cf::Data, key(v * 7 % N), v.to_be_bytes().to_vec());
                            b
                        };
                        e.write(&b, false).unwrap();
                        std::thread::sleep(std::time::Duration::from_micros(200));
                    }
                });
            }
            let readers: Vec<_> = (0..3u64)
                .map(|r| {
                    let (e, stop) = (&e, &stop);
                    s.spawn(move || {
                        // a failing reader stops the writers too (else the scope never ends)
                        struct Stop<'a>(&'a AtomicBool);
                        impl Drop for Stop<'_> {
                            fn drop(&mut self) {
                                if std::thread::panicking() {
                                    self.0.store(true, Ordering::Relaxed);
                                }
                            }
                        }
                        let _stop = Stop(stop);
                        let mut old = e.snapshot();
                        for n in 0..1500u64 {
                            let a = (n * 7 + r) % 30;
                            let b = a + 1 + n % 12;
                            let snap = e.snapshot();
                            both(&snap, a, b, n % 3 == 0);
                            both(&old, a, b, n % 4 == 0);
                            if n % 50 == 0 {
                                old = snap;
                            }
                        }
                    })
                })
                .collect();
            let failed = readers.into_iter().any(|r| r.join().is_err());
            stop.store(true, Ordering::Relaxed);
            assert!(!failed, "a reader saw other rows than RocksDB");
        });
        let st = rc.stats();
        eprintln!("range cache under writes: {st:?}");
        assert!(st.hits > 1, "{st:?}");
    }
}
