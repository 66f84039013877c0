//! The ordered key-value engine traits ([`KvEngine`], [`KvSnapshot`], [`KvIter`]) and the
//! engine-neutral [`WriteBatch`]. Traits only: implementations live in [`crate::mem`] and in the
//! `storage-rocks` crate.

use common::Result;

/// A column family: an independent ordered key space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cf {
    /// Table rows and index entries (`index_id ‖ key`).
    Data,
    /// The data dictionary (databases, tables, counters, drop markers).
    Dict,
}

impl Cf {
    /// All column families, in a fixed order.
    pub const ALL: [Cf; 2] = [Cf::Data, Cf::Dict];

    /// A dense index (0 for `Data`, 1 for `Dict`), for engines that keep per-CF arrays.
    pub fn index(self) -> usize {
        match self {
            Cf::Data => 0,
            Cf::Dict => 1,
        }
    }
}

/// Compression of a [`StorageClass`]'s data blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Codec {
    /// The engine's default (RocksDB: LZ4, and ZSTD for the bottommost level).
    #[default]
    Default,
    /// No compression.
    None,
    /// LZ4 on every level.
    Lz4,
    /// ZSTD on every level.
    Zstd,
}

impl Codec {
    /// The name as SQL spells it (`COMPRESSION='zstd'`); empty for [`Codec::Default`].
    pub fn name(self) -> &'static str {
        match self {
            Codec::Default => "",
            Codec::None => "none",
            Codec::Lz4 => "lz4",
            Codec::Zstd => "zstd",
        }
    }

    /// The codec named `name` (ASCII case-insensitive; `none`, `lz4`, `zstd`).
    pub fn from_name(name: &str) -> Option<Codec> {
        [Codec::None, Codec::Lz4, Codec::Zstd]
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }
}

/// The physical layout of one index's entries (`index_id ‖ key` in [`Cf::Data`]): data block
/// size and compression, from `KEY_BLOCK_SIZE` / `COMPRESSION`. Engines with one layout ignore
/// it; RocksDB keeps each non-default class in a column family of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct StorageClass {
    /// Data block size in KiB, one of [`StorageClass::BLOCK_KB`]; 0: the engine's default.
    pub block_kb: u8,
    /// Compression.
    pub codec: Codec,
}

impl StorageClass {
    /// The block sizes a class may have, in KiB.
    pub const BLOCK_KB: [u8; 7] = [1, 2, 4, 8, 16, 32, 64];

    /// True for the engine's default layout.
    pub fn is_default(self) -> bool {
        self == StorageClass::default()
    }
}

/// One operation of a [`WriteBatch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteOp {
    /// Sets `key` to `value`.
    Put {
        /// Column family.
        cf: Cf,
        /// Key.
        key: Vec<u8>,
        /// Value.
        value: Vec<u8>,
    },
    /// Removes `key`.
    Delete {
        /// Column family.
        cf: Cf,
        /// Key.
        key: Vec<u8>,
    },
    /// Removes every key in `[start, end)`.
    DeleteRange {
        /// Column family.
        cf: Cf,
        /// Inclusive start.
        start: Vec<u8>,
        /// Exclusive end.
        end: Vec<u8>,
    },
}

/// An ordered list of writes applied atomically by [`KvEngine::write`]. Later operations win over
/// earlier ones on the same key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteBatch {
    ops: Vec<WriteOp>,
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        WriteBatch::default()
    }

    /// Appends a put.
    pub fn put(&mut self, cf: Cf, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) {
        self.ops.push(WriteOp::Put {
            cf,
            key: key.into(),
            value: value.into(),
        });
    }

    /// Appends a delete.
    pub fn delete(&mut self, cf: Cf, key: impl Into<Vec<u8>>) {
        self.ops.push(WriteOp::Delete {
            cf,
            key: key.into(),
        });
    }

    /// Appends a range delete of `[start, end)`.
    pub fn delete_range(&mut self, cf: Cf, start: impl Into<Vec<u8>>, end: impl Into<Vec<u8>>) {
        self.ops.push(WriteOp::DeleteRange {
            cf,
            start: start.into(),
            end: end.into(),
        });
    }

    /// True if the batch has no operation.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// The operations in order.
    pub fn ops(&self) -> &[WriteOp] {
        &self.ops
    }

    /// Appends every operation of `other`.
    pub fn extend(&mut self, other: WriteBatch) {
        self.ops.extend(other.ops);
    }
}

/// The entries of one index for [`BulkWriter::add_index`]: each call returns the next
/// `(key, value)` in strictly ascending key order, `None` at the end, or an error that abandons
/// the load.
pub type SortedEntries<'a> = dyn FnMut() -> Result<Option<(Vec<u8>, Vec<u8>)>> + 'a;

/// A bulk load into empty indexes ([`KvEngine::bulk_writer`]): each index's entries arrive
/// sorted and are written outside the engine's write path (RocksDB: one SST file per index);
/// [`BulkWriter::commit`] makes all of them visible in one atomic step, which a crash either
/// precedes (nothing is visible) or follows (everything is). Dropping the writer without
/// committing discards what was written.
pub trait BulkWriter {
    /// Writes the entries of index `index_id` ([`Cf::Data`] keys starting with its id), pulled
    /// from `next` until it returns `None`. Each index is added at most once.
    ///
    /// # Errors
    /// The error `next` returned, or an engine I/O error (a full disk).
    fn add_index(&mut self, index_id: u32, next: &mut SortedEntries<'_>) -> Result<()>;

    /// Makes every added entry visible at once.
    ///
    /// # Errors
    /// An engine I/O error (nothing is visible then).
    fn commit(self: Box<Self>) -> Result<()>;
}

/// [`BulkWriter`] of engines without a file-level ingest: the entries are collected into one
/// [`WriteBatch`] and written by [`KvEngine::write`] at commit (atomic, memory not bounded).
pub struct BatchBulkWriter<'a, E: KvEngine> {
    engine: &'a E,
    batch: WriteBatch,
}

impl<'a, E: KvEngine> BatchBulkWriter<'a, E> {
    /// A writer that commits into `engine`.
    pub fn new(engine: &'a E) -> Self {
        BatchBulkWriter {
            engine,
            batch: WriteBatch::new(),
        }
    }
}

impl<E: KvEngine> BulkWriter for BatchBulkWriter<'_, E> {
    fn add_index(&mut self, _index_id: u32, next: &mut SortedEntries<'_>) -> Result<()> {
        while let Some((k, v)) = next()? {
            self.batch.put(Cf::Data, k, v);
        }
        Ok(())
    }

    fn commit(self: Box<Self>) -> Result<()> {
        self.engine.write(&self.batch, true)
    }
}

/// A cursor over an ordered key range, positioned at its first entry (in the iteration
/// direction) when created.
///
/// Contract: while [`KvIter::valid`] is true, `key`/`value` return the current entry; `next`
/// moves forward in the iterator's direction (ascending, or descending for reverse iterators).
/// When `valid` turns false, [`KvIter::status`] tells whether the end was reached (`Ok`) or an
/// I/O error stopped the iteration.
pub trait KvIter {
    /// True while positioned on an entry.
    fn valid(&self) -> bool;
    /// The current key (only meaningful while `valid`).
    fn key(&self) -> &[u8];
    /// The current value (only meaningful while `valid`).
    fn value(&self) -> &[u8];
    /// Moves to the next entry in the iteration direction.
    fn next(&mut self);
    /// The error that ended the iteration, if any.
    ///
    /// # Errors
    /// An engine I/O error.
    fn status(&self) -> Result<()>;
}

/// An iterator over a snapshot that keeps the snapshot alive itself, so a scan can hold one
/// positioned iterator across calls instead of opening (and seeking) a new one per batch.
pub struct SharedIter {
    // Field order matters: `it` borrows from `_owner`'s snapshot and is dropped first.
    it: Box<dyn KvIter + 'static>,
    _owner: std::sync::Arc<dyn std::any::Any + Send + Sync>,
}

impl SharedIter {
    /// [`KvSnapshot::iter`] on a shared snapshot.
    pub fn new<S: KvSnapshot>(
        snap: std::sync::Arc<S>,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Self {
        let it = snap.iter(cf, lower, upper, reverse);
        // SAFETY: `it` borrows the snapshot inside the `Arc`, which stays at a fixed heap
        // address for as long as the clone stored next to it lives, and the field order drops
        // `it` before that clone. Only the trait object's lifetime bound changes; the layout of
        // the box is identical.
        let it: Box<dyn KvIter + 'static> = unsafe { std::mem::transmute(it) };
        SharedIter { it, _owner: snap }
    }
}

impl KvIter for SharedIter {
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
    }
    fn status(&self) -> Result<()> {
        self.it.status()
    }
}

/// A consistent, immutable view of the engine at one point in time.
///
/// A snapshot sees every write committed before it was taken and none after. It is owned
/// (`'static`) and may be shared between threads.
pub trait KvSnapshot: Send + Sync + 'static {
    /// The value of `key`, `None` if absent.
    ///
    /// # Errors
    /// An engine I/O error.
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// The values of `keys`, in the same order.
    ///
    /// # Errors
    /// An engine I/O error.
    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>>;

    /// An iterator over `[lower, upper)` (`upper = None`: to the end of the column family),
    /// ascending, or descending when `reverse` (then it starts at the last key `< upper`).
    fn iter(
        &self,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Box<dyn KvIter + '_>;
}

/// An ordered key-value engine with column families, snapshots and atomic batches.
///
/// Keys order bytewise (memcmp, shorter prefix first). Reads through the engine itself see the
/// latest committed state; reads through a [`KvEngine::Snapshot`] see a frozen state.
/// Implementations are shared between threads (`Send + Sync`).
///
/// # Examples
/// ```
/// use storage::engine::{Cf, KvEngine, WriteBatch};
/// use storage::mem::MemEngine;
/// let e = MemEngine::new();
/// let mut b = WriteBatch::new();
/// b.put(Cf::Data, b"k".to_vec(), b"v".to_vec());
/// e.write(&b, false).unwrap();
/// assert_eq!(e.get(Cf::Data, b"k").unwrap(), Some(b"v".to_vec()));
/// ```
pub trait KvEngine: Send + Sync + 'static {
    /// The engine's snapshot type.
    type Snapshot: KvSnapshot;

    /// The latest committed value of `key`, `None` if absent.
    ///
    /// # Errors
    /// An engine I/O error.
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// The latest committed values of `keys`, in the same order.
    ///
    /// # Errors
    /// An engine I/O error.
    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>>;

    /// A snapshot of the current state.
    fn snapshot(&self) -> Self::Snapshot;

    /// An iterator over the latest state of `[lower, upper)`; see [`KvSnapshot::iter`].
    fn iter(
        &self,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Box<dyn KvIter + '_>;

    /// Applies `batch` atomically; with `sync` the write is durable when this returns.
    ///
    /// # Errors
    /// An engine I/O error (nothing of the batch is applied).
    fn write(&self, batch: &WriteBatch, sync: bool) -> Result<()>;

    /// Makes every write that returned before this call durable (an fsync of the log, shared
    /// by the callers that arrive while one runs). A commit writes without `sync`, releases its
    /// locks and then calls this, so a hot row is not locked for the duration of an fsync.
    /// Engines without a log have nothing to do.
    ///
    /// # Errors
    /// An engine I/O error (the writes are applied but may not survive a crash).
    fn sync_log(&self) -> Result<()> {
        Ok(())
    }

    /// Compacts `[start, end)` (reclaims space after range deletes). `None` = unbounded.
    ///
    /// # Errors
    /// An engine I/O error.
    fn compact_range(&self, cf: Cf, start: Option<&[u8]>, end: Option<&[u8]>) -> Result<()>;

    /// Flushes in-memory state to durable storage.
    ///
    /// # Errors
    /// An engine I/O error.
    fn flush(&self) -> Result<()>;

    /// The approximate size in bytes of the data in `[start, end)`.
    fn approximate_size(&self, cf: Cf, start: &[u8], end: &[u8]) -> u64;

    /// Declares the [`StorageClass`] of index `index_id`: the keys of [`Cf::Data`] that start
    /// with its 4-byte big-endian id. Called for every index of a definition before its
    /// entries are read or written (when the definition is loaded, created or given new ids);
    /// an index's class never changes (a new layout means new index ids). Reads, writes and
    /// approximate sizes of [`Cf::Data`] go to the class of the index their (start) key
    /// belongs to, so a range must stay within one index; a range delete of [`Cf::Data`]
    /// applies to every class (a drop after a restart need not know the class). Engines with
    /// one layout keep the default (do nothing).
    ///
    /// # Errors
    /// The engine cannot create the storage of the class, or `index_id` was declared with
    /// another class before (a bug: an internal error).
    fn set_index_class(&self, index_id: u32, class: StorageClass) -> Result<()> {
        let _ = (index_id, class);
        Ok(())
    }

    /// A [`BulkWriter`] for the indexes `index_ids`, which must be empty and stay without
    /// other writers until it commits (the caller's locks ensure it); `None` when the engine
    /// cannot make the entries of these indexes visible atomically (RocksDB: they live in
    /// different storage classes), and the caller writes through transactions instead. The
    /// default collects a [`WriteBatch`] ([`BatchBulkWriter`]).
    ///
    /// # Errors
    /// An engine I/O error.
    fn bulk_writer(&self, index_ids: &[u32]) -> Result<Option<Box<dyn BulkWriter + '_>>>
    where
        Self: Sized,
    {
        let _ = index_ids;
        Ok(Some(Box::new(BatchBulkWriter::new(self))))
    }
}
