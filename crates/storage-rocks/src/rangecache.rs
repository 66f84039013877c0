//! [`RangeCache`]: key ranges of the data column family kept whole in memory, with the last few
//! versions of each row, so a range read over hot rows need not walk RocksDB.
//!
//! **Why.** RocksDB keeps every version of a row until a compaction drops it: a hot row updated
//! many times a second has versions in the memtable and in each level-0 file that a flush wrote
//! since the last compaction. A scan steps over all of them (merging the memtable, the level-0
//! files and the last level). InnoDB updates in place and keeps old versions in undo logs, so
//! its scans meet one version per row. The analysis in
//! `docs/benchmarks/2026-11-22-read-write-analysis.md` measured this as the cost that keeps
//! sysbench's `oltp_read_write` behind InnoDB. RocksDB's own `row_cache` serves point reads only,
//! and its in-memory purge of old versions (`experimental_mempurge_threshold`) can reorder
//! memtables; so the cache is Strata's own, written by hand.
//!
//! **What it holds.** *Intervals* `[start, end)` of keys, each *complete*: every key of the
//! interval that exists in the latest committed state has an entry, and every committed write to
//! a key of the interval since the interval was filled is in that key's entry. An entry keeps up
//! to [`MAX_VERSIONS`] versions, newest first, each with bounds of the RocksDB sequence number
//! that wrote it: `lo` (read before the write went to RocksDB; the write's number is greater) and
//! `hi` (read after it; the number is at most `hi`). A version read by the scan that filled the
//! interval has `lo` 0 and `hi` = the sequence number read after that scan. A key first written
//! after the fill starts with an *absent* version of the same bounds.
//!
//! **Readers.** A snapshot knows `seq` (RocksDB's latest sequence number read just before it was
//! taken) and `after` (read just after); its own number lies between. For each key of its range
//! the reader takes the newest version that is provably in its snapshot (`hi <= seq`), provided
//! every newer one is provably not (`lo >= after`). When any key is undecided (a write whose
//! bounds straddle the snapshot, or a version history cut at [`MAX_VERSIONS`]), when a key of the
//! range is being written (between [`RangeCache::begin_write`] and [`RangeCache::end_write`]), or
//! when the snapshot predates the interval's fill, the read goes to RocksDB as before.
//!
//! **Fills.** A snapshot scan of a range no interval covers collects what it read (up to
//! [`MAX_FILL_ENTRIES`] / [`MAX_FILL_BYTES`]) and, having reached the end of its range, offers it
//! — provided the range shares keys with an interval or with one of the last [`GHOSTS`] ranges
//! read ([`Lookup::Cold`]): a range read once is not cached.
//! The fill is accepted only if the scan missed no write: none of its keys is being written, and
//! no write of its range ended with `hi` above the scan's `seq` (a log of the last [`LOG_LEN`]
//! written keys; a snapshot older than the log's horizon is refused). Overlapping and adjacent
//! intervals merge into one, since each is complete.
//!
//! **Writers.** Every write batch of the data column family registers its keys before RocksDB
//! writes it and, after, appends the new version to the entry of each key that lies in an
//! interval. A failed write, or a key written by two batches at once (their order in RocksDB is
//! unknown here), drops the interval. A range delete (DROP / TRUNCATE TABLE) drops the
//! intervals it overlaps and, like a bulk write below, refuses the fills of ranges it overlaps
//! while it is written and from snapshots taken before it ended. Other ranges are unaffected:
//! a DROP of one table (written by a background thread) does not hold off fills of another.
//!
//! **Bulk writers.** A batch of more than [`BULK`] keys (a multi-row INSERT) registers and logs
//! the span from its least to its greatest key instead of each key, and looks its keys up only
//! when an interval shares keys with that span. Key-by-key bookkeeping cost 5–8 % of the
//! server's CPU under iibench's 100-row INSERTs (perf), with no interval to keep current. A
//! span is coarser than its keys: it only makes more reads and fills go to RocksDB.
//!
//! Memory: byte-bounded; the least recently read interval goes first, with its entries.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

use parking_lot::Mutex;

/// Versions kept per key.
pub const MAX_VERSIONS: usize = 4;
/// Entries a scan collects at most to fill the cache (a longer range is not cached).
pub const MAX_FILL_ENTRIES: usize = 1024;
/// Key and value bytes a scan collects at most to fill the cache.
pub const MAX_FILL_BYTES: usize = 256 << 10;
/// Written keys remembered for checking fills.
pub const LOG_LEN: usize = 4096;
/// Intervals kept at most (eviction scans them).
const MAX_INTERVALS: usize = 1024;
/// Ranges remembered for admission (see [`Lookup::Cold`]).
pub const GHOSTS: usize = 64;
/// Keys a batch writes at most to be registered key by key; a larger batch registers its span.
pub const BULK: usize = 32;
/// Spans of bulk writes remembered for checking fills.
pub const SPAN_LOG_LEN: usize = 256;
/// Bytes charged per entry and per version on top of the key and value bytes.
const ENTRY_OVERHEAD: usize = 96;
const VERSION_OVERHEAD: usize = 48;

type Bytes = Arc<[u8]>;

/// Rows of a range: key and value.
pub type Rows = Vec<(Bytes, Bytes)>;

/// Where a snapshot reads: RocksDB's latest sequence number just before (`seq`) and just
/// after (`after`) it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadAt {
    /// A lower bound of the snapshot's sequence number.
    pub seq: u64,
    /// An upper bound of it.
    pub after: u64,
}

struct Version {
    lo: u64,
    hi: u64,
    /// None: the key does not exist (deleted, or not yet inserted).
    value: Option<Bytes>,
}

impl Version {
    fn bytes(&self) -> usize {
        VERSION_OVERHEAD + self.value.as_ref().map_or(0, |v| v.len())
    }
}

/// Versions of one key, newest first.
struct Entry {
    versions: Vec<Version>,
}

impl Entry {
    /// The value a reader at `at` sees: `Ok(None)` when the key does not exist for it,
    /// `Err(())` when that cannot be decided from the versions kept.
    fn pick(&self, at: ReadAt) -> Result<Option<&Bytes>, ()> {
        for v in &self.versions {
            if v.hi <= at.seq {
                return Ok(v.value.as_ref());
            }
            if v.lo < at.after {
                return Err(());
            }
        }
        Err(())
    }
}

struct Interval {
    end: Vec<u8>,
    /// `hi` of the fills that made it (the newest): older snapshots do not read it.
    fill_hi: u64,
    /// When it was last read or filled (eviction order).
    used: u64,
    /// Bytes and rows of the last read served from it (the next read's buffer sizes).
    hint: (usize, usize),
}

#[derive(Default)]
struct Inner {
    entries: BTreeMap<Bytes, Entry>,
    /// By start key; disjoint and not adjacent (touching intervals merge).
    intervals: BTreeMap<Vec<u8>, Interval>,
    /// Keys being written, with the number of batches writing each.
    inflight: BTreeMap<Vec<u8>, u32>,
    /// Bulk batches and range deletes being written: their least and greatest key (both
    /// included; a range delete's end is taken in).
    bulk: Vec<(Vec<u8>, Vec<u8>)>,
    /// Keys whose writes ended, oldest first, with `hi` (raised to be non-decreasing).
    log: VecDeque<(Vec<u8>, u64)>,
    /// Spans of bulk writes and range deletes that ended, oldest first, with `hi` (as in
    /// `log`).
    bulk_log: VecDeque<(Vec<u8>, Vec<u8>, u64)>,
    log_hi: u64,
    /// Fills must come from snapshots with `seq` at least this (writes older than the log).
    floor: u64,
    /// The last uncovered ranges read that were not admitted.
    ghosts: VecDeque<(Vec<u8>, Vec<u8>)>,
    bytes: usize,
    tick: u64,
    hits: u64,
    misses: u64,
    fills: u64,
}

fn entry_bytes(key: &[u8], e: &Entry) -> usize {
    ENTRY_OVERHEAD + key.len() + e.versions.iter().map(Version::bytes).sum::<usize>()
}

fn span<'a>(lower: &'a [u8], upper: &'a [u8]) -> (Bound<&'a [u8]>, Bound<&'a [u8]>) {
    (Bound::Included(lower), Bound::Excluded(upper))
}

/// The least and greatest of a batch's keys when there are more than [`BULK`] of them.
fn bulk_span<'a>(keys: impl Iterator<Item = &'a [u8]>) -> Option<(&'a [u8], &'a [u8])> {
    let mut n = 0usize;
    let mut ends: Option<(&[u8], &[u8])> = None;
    for k in keys {
        n += 1;
        ends = Some(match ends {
            None => (k, k),
            Some((a, b)) => (a.min(k), b.max(k)),
        });
    }
    ends.filter(|_| n > BULK)
}

impl Inner {
    /// The interval that contains `key`, by its start.
    fn containing(&self, key: &[u8]) -> Option<(&Vec<u8>, &Interval)> {
        self.intervals
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(key)))
            .next_back()
            .filter(|(_, iv)| iv.end.as_slice() > key)
    }

    /// Drops the interval starting at `start` and its entries.
    fn drop_interval(&mut self, start: &[u8]) {
        let Some(iv) = self.intervals.remove(start) else {
            return;
        };
        let keys: Vec<Bytes> = self
            .entries
            .range::<[u8], _>(span(start, &iv.end))
            .map(|(k, _)| k.clone())
            .collect();
        for k in keys {
            if let Some(e) = self.entries.remove(&k) {
                self.bytes -= entry_bytes(&k, &e);
            }
        }
    }

    /// Starts of the intervals that overlap or touch `[lower, upper]`.
    fn touching(&self, lower: &[u8], upper: &[u8]) -> Vec<Vec<u8>> {
        let mut out: Vec<Vec<u8>> = self
            .intervals
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(upper)))
            .rev()
            .take_while(|(_, iv)| iv.end.as_slice() >= lower)
            .map(|(s, _)| s.clone())
            .collect();
        out.reverse();
        out
    }

    /// Whether an interval holds a key of `[first, last]` (both included).
    fn overlaps_closed(&self, first: &[u8], last: &[u8]) -> bool {
        self.intervals
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(last)))
            .next_back()
            .is_some_and(|(_, iv)| iv.end.as_slice() > first)
    }

    /// Whether a bulk batch being written may write a key of `[lower, upper)`.
    fn bulk_overlaps(&self, lower: &[u8], upper: &[u8]) -> bool {
        self.bulk
            .iter()
            .any(|(a, b)| a.as_slice() < upper && b.as_slice() >= lower)
    }

    /// Whether a write that ended after a snapshot at `at_seq` may have written a key of
    /// `[lower, upper)`.
    fn wrote_since(&self, lower: &[u8], upper: &[u8], at_seq: u64) -> bool {
        self.log
            .iter()
            .rev()
            .take_while(|(_, hi)| *hi > at_seq)
            .any(|(k, _)| k.as_slice() >= lower && k.as_slice() < upper)
            || self
                .bulk_log
                .iter()
                .rev()
                .take_while(|(_, _, hi)| *hi > at_seq)
                .any(|(a, b, _)| a.as_slice() < upper && b.as_slice() >= lower)
    }

    /// Whether an interval shares a key with `[lower, upper)`. Intervals are disjoint, so only
    /// the last one starting before `upper` can.
    fn overlaps_any(&self, lower: &[u8], upper: &[u8]) -> bool {
        self.intervals
            .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(upper)))
            .next_back()
            .is_some_and(|(_, iv)| iv.end.as_slice() > lower)
    }

    /// An uncovered range is admitted when it shares keys with an interval or with a range
    /// read recently; else it is remembered (see [`Lookup::Cold`]). Sharing keys, not merely
    /// touching: with touching, short ranges spread uniformly over a table were admitted next
    /// to the cold intervals that earlier ones had left (measured under sysbench
    /// oltp_read_write: 40 % of the misses became fills, and the cold intervals filled the
    /// cache).
    fn admit(&mut self, lower: &[u8], upper: &[u8]) -> Lookup {
        if self.overlaps_any(lower, upper)
            || self
                .ghosts
                .iter()
                .any(|(a, b)| a.as_slice() < upper && b.as_slice() > lower)
        {
            return Lookup::Uncovered;
        }
        if self.ghosts.len() >= GHOSTS {
            self.ghosts.pop_front();
        }
        self.ghosts.push_back((lower.to_vec(), upper.to_vec()));
        Lookup::Cold
    }

    fn evict(&mut self, capacity: usize) {
        while self.bytes > capacity || self.intervals.len() > MAX_INTERVALS {
            let Some(start) = self
                .intervals
                .iter()
                .min_by_key(|(_, iv)| iv.used)
                .map(|(s, _)| s.clone())
            else {
                break;
            };
            self.drop_interval(&start);
        }
    }

    /// Remembers that a write of `key` ended at `hi`.
    fn log_write(&mut self, key: Vec<u8>, hi: u64) {
        self.log_hi = self.log_hi.max(hi);
        self.log.push_back((key, self.log_hi));
        while self.log.len() > LOG_LEN {
            if let Some((_, h)) = self.log.pop_front() {
                self.floor = self.floor.max(h);
            }
        }
    }

    /// A bulk write or range delete of `[first, last]` is no longer in flight.
    fn end_span(&mut self, first: &[u8], last: &[u8]) {
        if let Some(p) = self
            .bulk
            .iter()
            .position(|(a, b)| a.as_slice() == first && b.as_slice() == last)
        {
            self.bulk.swap_remove(p);
        }
    }

    /// Remembers that a bulk write of `[first, last]` ended at `hi`.
    fn log_bulk(&mut self, first: &[u8], last: &[u8], hi: u64) {
        self.log_hi = self.log_hi.max(hi);
        self.bulk_log
            .push_back((first.to_vec(), last.to_vec(), self.log_hi));
        while self.bulk_log.len() > SPAN_LOG_LEN {
            if let Some((_, _, h)) = self.bulk_log.pop_front() {
                self.floor = self.floor.max(h);
            }
        }
    }

    /// A write of `key` ended: if an interval holds the key, its entry gets the new version
    /// `value` bounded by `lo` and `hi`, unless another batch writes the key too (`others`) or
    /// the write failed, which drop the interval.
    fn add_version(
        &mut self,
        key: &[u8],
        value: Option<&[u8]>,
        others: bool,
        written: bool,
        (lo, hi): (u64, u64),
    ) {
        let others = others
            || self
                .bulk
                .iter()
                .any(|(a, b)| a.as_slice() <= key && b.as_slice() >= key);
        let Some((start, iv)) = self.containing(key) else {
            return;
        };
        if others || !written {
            let start = start.clone();
            self.drop_interval(&start);
            return;
        }
        let absent_hi = iv.fill_hi;
        let new = Version {
            lo,
            hi,
            value: value.map(Arc::from),
        };
        let added = new.bytes();
        let (mut freed, mut fresh) = (0, false);
        let e = match self.entries.get_mut(key) {
            Some(e) => e,
            None => {
                fresh = true;
                let e = Entry {
                    versions: vec![Version {
                        lo: 0,
                        hi: absent_hi,
                        value: None,
                    }],
                };
                self.entries.entry(Arc::from(key)).or_insert(e)
            }
        };
        e.versions.insert(0, new);
        if e.versions.len() > MAX_VERSIONS {
            freed = e.versions.pop().map_or(0, |v| v.bytes());
        }
        let base = if fresh {
            ENTRY_OVERHEAD + key.len() + VERSION_OVERHEAD
        } else {
            0
        };
        self.bytes = self.bytes + base + added - freed;
    }
}

/// Rows served by [`RangeCache::read`], copied into one buffer in scan order.
///
/// A copy, not reference-counted handles to the cached values: readers on every core would
/// otherwise increment and decrement the same counters of the hot rows (measured: cloning and
/// dropping the handles took 6–9 % of the server's CPU under sysbench oltp_read_only).
#[derive(Default)]
pub struct CachedRows {
    buf: Vec<u8>,
    /// Per row: where its key starts, where its key ends (its value starts), where its value
    /// ends.
    spans: Vec<[usize; 3]>,
}

impl CachedRows {
    fn push(&mut self, key: &[u8], value: &[u8]) {
        let start = self.buf.len();
        self.buf.extend_from_slice(key);
        self.buf.extend_from_slice(value);
        self.spans
            .push([start, start + key.len(), start + key.len() + value.len()]);
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The key of row `i`.
    pub fn key(&self, i: usize) -> &[u8] {
        let [a, b, _] = self.spans[i];
        &self.buf[a..b]
    }

    /// The value of row `i`.
    pub fn value(&self, i: usize) -> &[u8] {
        let [_, b, c] = self.spans[i];
        &self.buf[b..c]
    }
}

/// What [`RangeCache::read`] found.
pub enum Lookup {
    /// The range's rows in scan order.
    Hit(CachedRows),
    /// An interval covers the range, but this reader cannot use it (see the module docs).
    Covered,
    /// No interval covers the range: a scan of it may fill one.
    Uncovered,
    /// No interval covers the range, and it shares no key with an interval or a recently read
    /// range: the scan is not offered to the cache, so that ranges read once
    /// (a uniform spread of short ranges over a big table) do not push out the hot ones and
    /// cost the copies of a fill each. The range is remembered: the next read overlapping it
    /// is admitted.
    Cold,
}

/// Counters for SHOW STATUS.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RangeCacheStats {
    /// Range reads served from the cache.
    pub hits: u64,
    /// Range reads that went to RocksDB.
    pub misses: u64,
    /// Scans accepted into the cache.
    pub fills: u64,
    /// Bytes in use.
    pub bytes: u64,
}

/// Cached key ranges (see the module docs for the rules).
///
/// One lock: a read holds it while it copies its range's rows out ([`CachedRows`]), a write
/// for a few map updates per key.
pub struct RangeCache {
    inner: Mutex<Inner>,
    capacity: usize,
}

impl RangeCache {
    /// A cache of at most `capacity` bytes; `None` for 0 (disabled).
    pub fn new(capacity: usize) -> Option<RangeCache> {
        (capacity > 0).then(|| RangeCache {
            inner: Mutex::new(Inner::default()),
            capacity,
        })
    }

    /// The rows of `[lower, upper)` for a reader at `at`, if the cache can serve them.
    pub fn read(&self, lower: &[u8], upper: &[u8], at: ReadAt, reverse: bool) -> Lookup {
        if lower >= upper {
            // empty (and the maps' range queries refuse an inverted range)
            return Lookup::Hit(CachedRows::default());
        }
        let mut g = self.inner.lock();
        let s = &mut *g;
        let covering = s
            .containing(lower)
            .filter(|(_, iv)| iv.end.as_slice() >= upper)
            .map(|(_, iv)| (iv.fill_hi, iv.hint));
        let Some((fill_hi, (bytes, n))) = covering else {
            s.misses += 1;
            return s.admit(lower, upper);
        };
        if at.seq < fill_hi
            || s.inflight
                .range::<[u8], _>(span(lower, upper))
                .next()
                .is_some()
            || s.bulk_overlaps(lower, upper)
        {
            s.misses += 1;
            return Lookup::Covered;
        }
        let mut rows = CachedRows {
            buf: Vec::with_capacity(bytes),
            spans: Vec::with_capacity(n),
        };
        let mut range = s.entries.range::<[u8], _>(span(lower, upper));
        let mut next = || {
            if reverse {
                range.next_back()
            } else {
                range.next()
            }
        };
        while let Some((k, e)) = next() {
            match e.pick(at) {
                Ok(Some(v)) => rows.push(k, v),
                Ok(None) => {}
                Err(()) => {
                    s.misses += 1;
                    return Lookup::Covered;
                }
            }
        }
        s.tick += 1;
        let tick = s.tick;
        let touched = s
            .intervals
            .range_mut::<[u8], _>((Bound::Unbounded, Bound::Included(lower)))
            .next_back();
        if let Some((_, iv)) = touched {
            iv.used = tick;
            iv.hint = (rows.buf.len(), rows.spans.len());
        }
        s.hits += 1;
        Lookup::Hit(rows)
    }

    /// Offers the whole content of `[lower, upper)` as read by a snapshot scan at `at_seq`
    /// (its `ReadAt::seq`); `now_seq` is RocksDB's latest sequence number read after the scan.
    pub fn fill(&self, lower: &[u8], upper: &[u8], rows: Rows, at_seq: u64, now_seq: u64) {
        if lower >= upper {
            return;
        }
        let mut g = self.inner.lock();
        let s = &mut *g;
        if at_seq < s.floor
            || s.inflight
                .range::<[u8], _>(span(lower, upper))
                .next()
                .is_some()
            || s.bulk_overlaps(lower, upper)
            // a write of the range that ended after the snapshot may be missing from the rows
            || s.wrote_since(lower, upper, at_seq)
        {
            return;
        }
        let old = s.touching(lower, upper);
        let (mut start, mut end, mut fill_hi) = (lower.to_vec(), upper.to_vec(), now_seq);
        let mut old_spans = Vec::with_capacity(old.len());
        for o in &old {
            let iv = s.intervals.remove(o).expect("listed above");
            if o.as_slice() <= lower && iv.end.as_slice() >= upper {
                // covered already (by a fill that won the race): keep it as it is
                s.intervals.insert(o.clone(), iv);
                return;
            }
            start = start.min(o.clone());
            end = end.max(iv.end.clone());
            fill_hi = fill_hi.max(iv.fill_hi);
            old_spans.push((o.clone(), iv.end));
        }
        for (k, v) in rows {
            // keys inside an old interval keep their entries there (kept up to date since)
            let in_old = old_spans
                .iter()
                .any(|(a, b)| k.as_ref() >= a.as_slice() && k.as_ref() < b.as_slice());
            if in_old || k.as_ref() < lower || k.as_ref() >= upper {
                continue;
            }
            let e = Entry {
                versions: vec![Version {
                    lo: 0,
                    hi: now_seq,
                    value: Some(v),
                }],
            };
            s.bytes += entry_bytes(&k, &e);
            if let Some(prev) = s.entries.insert(k.clone(), e) {
                s.bytes -= entry_bytes(&k, &prev);
            }
        }
        s.tick += 1;
        let used = s.tick;
        s.intervals.insert(
            start,
            Interval {
                end,
                fill_hi,
                used,
                hint: (0, 0),
            },
        );
        s.fills += 1;
        s.evict(self.capacity);
    }

    /// Before a batch goes to RocksDB: registers the keys it writes and its range deletes.
    pub fn begin_write<'a>(
        &self,
        keys: impl Iterator<Item = &'a [u8]> + Clone,
        range_deletes: &[(&[u8], &[u8])],
    ) {
        let bulk = bulk_span(keys.clone());
        let mut s = self.inner.lock();
        if let Some((first, last)) = bulk {
            s.bulk.push((first.to_vec(), last.to_vec()));
        } else {
            for k in keys {
                match s.inflight.get_mut(k) {
                    Some(n) => *n += 1,
                    None => {
                        s.inflight.insert(k.to_vec(), 1);
                    }
                }
            }
        }
        for (a, b) in range_deletes {
            for start in s.touching(a, b) {
                s.drop_interval(&start);
            }
            s.bulk.push((a.to_vec(), b.to_vec()));
        }
    }

    /// After that batch was written (`written`) or failed: `ops` are the same keys in the same
    /// order with their new values (None: deleted); `lo` and `now_seq` are RocksDB's latest
    /// sequence numbers read before and after the write.
    pub fn end_write<'a>(
        &self,
        ops: impl Iterator<Item = (&'a [u8], Option<&'a [u8]>)> + Clone,
        range_deletes: &[(&[u8], &[u8])],
        lo: u64,
        now_seq: u64,
        written: bool,
    ) {
        let bulk = bulk_span(ops.clone().map(|(k, _)| k));
        let mut g = self.inner.lock();
        let s = &mut *g;
        if let Some((first, last)) = bulk {
            s.end_span(first, last);
            if s.overlaps_closed(first, last) {
                for (k, v) in ops {
                    let others = s.inflight.contains_key(k);
                    s.add_version(k, v, others, written, (lo, now_seq));
                }
            }
            s.log_bulk(first, last, now_seq);
        } else {
            for (k, v) in ops {
                let others = match s.inflight.get_mut(k) {
                    Some(n) if *n > 1 => {
                        *n -= 1;
                        true
                    }
                    _ => false,
                };
                let key = if others {
                    k.to_vec()
                } else {
                    s.inflight
                        .remove_entry(k)
                        .map_or_else(|| k.to_vec(), |(k, _)| k)
                };
                s.add_version(k, v, others, written, (lo, now_seq));
                s.log_write(key, now_seq);
            }
        }
        for (a, b) in range_deletes {
            s.end_span(a, b);
            for start in s.touching(a, b) {
                s.drop_interval(&start);
            }
            s.log_bulk(a, b, now_seq);
        }
        s.evict(self.capacity);
    }

    /// Counters.
    pub fn stats(&self) -> RangeCacheStats {
        let s = self.inner.lock();
        RangeCacheStats {
            hits: s.hits,
            misses: s.misses,
            fills: s.fills,
            bytes: s.bytes as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bytes {
        Arc::from(s.as_bytes())
    }

    fn rows(kv: &[(&str, &str)]) -> Vec<(Bytes, Bytes)> {
        kv.iter().map(|(k, v)| (b(k), b(v))).collect()
    }

    fn at(seq: u64) -> ReadAt {
        ReadAt { seq, after: seq }
    }

    fn hit(c: &RangeCache, lo: &str, hi: &str, r: ReadAt) -> Option<Vec<(String, String)>> {
        match c.read(lo.as_bytes(), hi.as_bytes(), r, false) {
            Lookup::Hit(v) => Some(
                (0..v.len())
                    .map(|i| {
                        (
                            String::from_utf8(v.key(i).to_vec()).unwrap(),
                            String::from_utf8(v.value(i).to_vec()).unwrap(),
                        )
                    })
                    .collect(),
            ),
            _ => None,
        }
    }

    /// No interval serves `[lo, hi)` (whether the read was remembered for admission or not).
    fn uncovered(c: &RangeCache, lo: &[u8], hi: &[u8], r: ReadAt) -> bool {
        matches!(c.read(lo, hi, r, false), Lookup::Uncovered | Lookup::Cold)
    }

    fn write(c: &RangeCache, ops: &[(&str, Option<&str>)], lo: u64, hi: u64) {
        c.begin_write(ops.iter().map(|(k, _)| k.as_bytes()), &[]);
        c.end_write(
            ops.iter()
                .map(|(k, v)| (k.as_bytes(), v.map(str::as_bytes))),
            &[],
            lo,
            hi,
            true,
        );
    }

    fn pairs(kv: &[(&str, &str)]) -> Vec<(String, String)> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn fill_then_serve_snapshots_after_the_fill() {
        let c = RangeCache::new(1 << 20).unwrap();
        assert!(
            matches!(c.read(b"a", b"z", at(10), false), Lookup::Cold),
            "an empty cache: the first read is only remembered"
        );
        c.fill(b"a", b"z", rows(&[("b", "1"), ("d", "2")]), 10, 12);
        assert_eq!(
            hit(&c, "a", "z", at(12)),
            Some(pairs(&[("b", "1"), ("d", "2")]))
        );
        assert_eq!(hit(&c, "c", "e", at(13)), Some(pairs(&[("d", "2")])));
        assert!(
            matches!(c.read(b"a", b"z", at(11), false), Lookup::Covered),
            "a snapshot before the fill reads RocksDB"
        );
        assert!(uncovered(&c, b"a", b"zz", at(20)));
        assert_eq!(
            hit(&c, "d", "c", at(20)),
            Some(vec![]),
            "an inverted range is empty"
        );
        assert_eq!(hit(&c, "d", "d", at(20)), Some(vec![]));
        match c.read(b"a", b"z", at(20), true) {
            Lookup::Hit(v) => assert_eq!(v.key(0), b"d"),
            _ => panic!("reverse read"),
        }
    }

    /// A range is admitted once it shares keys with a range read before or with an interval;
    /// ranges that only touch (end where another starts) are not.
    #[test]
    fn ranges_are_admitted_when_they_share_keys_with_a_recent_read() {
        let c = RangeCache::new(1 << 20).unwrap();
        let look = |lo: &str, hi: &str| c.read(lo.as_bytes(), hi.as_bytes(), at(10), false);
        assert!(matches!(look("c", "f"), Lookup::Cold), "first read");
        assert!(matches!(look("f", "h"), Lookup::Cold), "touching the first");
        assert!(matches!(look("a", "c"), Lookup::Cold), "touching the first");
        assert!(matches!(look("e", "g"), Lookup::Uncovered), "sharing keys");
        c.fill(b"e", b"g", rows(&[("e", "1")]), 10, 10);
        assert!(matches!(look("m", "p"), Lookup::Cold));
        assert!(matches!(look("g", "j"), Lookup::Uncovered), "ghost f..h");
        assert!(matches!(look("x", "y"), Lookup::Cold));
        assert!(
            matches!(look("y", "z"), Lookup::Cold),
            "touching a ghost only"
        );
        for i in 0..GHOSTS {
            look(&format!("q{i:03}"), &format!("q{i:03}~"));
        }
        assert!(
            matches!(look("a", "c"), Lookup::Cold),
            "the ghost list keeps the last {GHOSTS} ranges"
        );
        // after the fill of e..g, a range inside it is a hit and one overlapping it is admitted
        assert!(matches!(look("e", "f"), Lookup::Hit(_)));
        assert!(
            matches!(look("f", "k"), Lookup::Uncovered),
            "shares f with the interval"
        );
        assert!(
            matches!(look("g", "k"), Lookup::Cold),
            "touches the interval only"
        );
    }

    /// Writes keep the interval complete: updates, deletes and inserts are versioned, and each
    /// snapshot sees the versions its sequence number includes.
    #[test]
    fn writes_add_versions_that_snapshots_pick_by_bounds() {
        let c = RangeCache::new(1 << 20).unwrap();
        c.fill(b"a", b"z", rows(&[("b", "1"), ("d", "2")]), 10, 10);
        write(
            &c,
            &[("b", Some("1b")), ("c", Some("new")), ("d", None)],
            20,
            22,
        );
        let after = pairs(&[("b", "1b"), ("c", "new")]);
        assert_eq!(hit(&c, "a", "z", at(22)), Some(after));
        let before = pairs(&[("b", "1"), ("d", "2")]);
        assert_eq!(
            hit(&c, "a", "z", ReadAt { seq: 15, after: 20 }),
            Some(before)
        );
        assert_eq!(
            hit(&c, "a", "z", ReadAt { seq: 15, after: 21 }),
            None,
            "a snapshot that may or may not include the write reads RocksDB"
        );
        assert_eq!(hit(&c, "a", "z", ReadAt { seq: 21, after: 21 }), None);
        assert_eq!(hit(&c, "a", "z", at(9)), None, "before the fill");
        // history beyond MAX_VERSIONS is cut: old snapshots go to RocksDB
        for i in 0..MAX_VERSIONS as u64 {
            write(&c, &[("b", Some("x"))], 30 + 2 * i, 31 + 2 * i);
        }
        assert_eq!(hit(&c, "a", "c", ReadAt { seq: 15, after: 20 }), None);
        assert_eq!(
            hit(&c, "c", "z", ReadAt { seq: 15, after: 20 }),
            Some(pairs(&[("d", "2")]))
        );
        assert!(hit(&c, "a", "z", at(100)).is_some());
    }

    #[test]
    fn keys_being_written_are_not_served() {
        let c = RangeCache::new(1 << 20).unwrap();
        c.fill(b"a", b"m", rows(&[("b", "1")]), 10, 10);
        c.begin_write([&b"c"[..]].into_iter(), &[]);
        assert_eq!(hit(&c, "a", "m", at(50)), None);
        assert!(
            hit(&c, "d", "m", at(50)).is_some(),
            "the rest of the interval is served"
        );
        c.end_write(
            [(&b"c"[..], Some(&b"3"[..]))].into_iter(),
            &[],
            11,
            12,
            true,
        );
        assert_eq!(
            hit(&c, "a", "m", at(50)),
            Some(pairs(&[("b", "1"), ("c", "3")]))
        );
        // two batches writing one key at once: their order is unknown, the interval goes
        c.begin_write([&b"b"[..]].into_iter(), &[]);
        c.begin_write([&b"b"[..]].into_iter(), &[]);
        c.end_write(
            [(&b"b"[..], Some(&b"x"[..]))].into_iter(),
            &[],
            13,
            14,
            true,
        );
        c.end_write(
            [(&b"b"[..], Some(&b"y"[..]))].into_iter(),
            &[],
            13,
            15,
            true,
        );
        assert!(uncovered(&c, b"a", b"m", at(50)));
        // a failed write drops the interval as well
        c.fill(b"a", b"m", rows(&[("b", "y"), ("c", "3")]), 20, 20);
        assert!(hit(&c, "a", "m", at(50)).is_some());
        c.begin_write([&b"c"[..]].into_iter(), &[]);
        c.end_write([(&b"c"[..], None)].into_iter(), &[], 21, 22, false);
        assert!(uncovered(&c, b"a", b"m", at(50)));
        assert_eq!(c.stats().bytes, 0);
    }

    #[test]
    fn fills_that_may_have_missed_a_write_are_refused() {
        let c = RangeCache::new(1 << 20).unwrap();
        // in flight while the scan ran
        c.begin_write([&b"c"[..]].into_iter(), &[]);
        c.fill(b"a", b"m", rows(&[("b", "1")]), 10, 10);
        assert!(uncovered(&c, b"a", b"m", at(50)));
        // ended after the scan's snapshot
        c.end_write(
            [(&b"c"[..], Some(&b"3"[..]))].into_iter(),
            &[],
            10,
            12,
            true,
        );
        c.fill(b"a", b"m", rows(&[("b", "1")]), 11, 13);
        assert!(uncovered(&c, b"a", b"m", at(50)));
        // a write outside the range does not matter
        c.fill(b"d", b"m", rows(&[]), 11, 13);
        assert_eq!(hit(&c, "d", "m", at(50)), Some(vec![]));
        // a snapshot that includes it may fill
        c.fill(b"a", b"m", rows(&[("b", "1"), ("c", "3")]), 12, 13);
        assert_eq!(
            hit(&c, "a", "m", at(50)),
            Some(pairs(&[("b", "1"), ("c", "3")]))
        );
        // older than the log's horizon: refused
        for i in 0..LOG_LEN as u64 + 1 {
            write(&c, &[("q", Some("v"))], 100 + i, 100 + i);
        }
        c.fill(b"r", b"s", rows(&[]), 50, 50);
        assert!(uncovered(&c, b"r", b"s", at(10_000)));
        // range deletes drop what they overlap and refuse fills of it from older snapshots;
        // other ranges fill as before
        let rd = [(&b"a"[..], &b"c"[..])];
        c.begin_write(std::iter::empty(), &rd);
        assert!(uncovered(&c, b"a", b"m", at(10_000)));
        c.fill(b"b", b"d", rows(&[]), 10_000, 10_000);
        assert!(uncovered(&c, b"b", b"d", at(10_000)), "in flight");
        c.fill(b"x", b"y", rows(&[]), 10_000, 10_000);
        assert!(hit(&c, "x", "y", at(20_000)).is_some(), "another range");
        c.end_write(std::iter::empty(), &rd, 10_000, 10_001, true);
        c.fill(b"b", b"d", rows(&[]), 10_000, 10_001);
        assert!(uncovered(&c, b"b", b"d", at(20_000)), "an older snapshot");
        c.fill(b"b", b"d", rows(&[]), 10_001, 10_002);
        assert!(hit(&c, "b", "d", at(20_000)).is_some());
    }

    /// Keys `k{from:03}` .. `k{to - 1:03}`, each with `value`.
    fn keyed(from: u32, to: u32, value: &str) -> Vec<(String, String)> {
        (from..to)
            .map(|i| (format!("k{i:03}"), value.to_string()))
            .collect()
    }

    fn begin_bulk(c: &RangeCache, kv: &[(String, String)]) {
        c.begin_write(kv.iter().map(|(k, _)| k.as_bytes()), &[]);
    }

    fn end_bulk(c: &RangeCache, kv: &[(String, String)], lo: u64, hi: u64, written: bool) {
        let ops = kv.iter().map(|(k, v)| (k.as_bytes(), Some(v.as_bytes())));
        c.end_write(ops, &[], lo, hi, written);
    }

    fn fill_keyed(c: &RangeCache, from: u32, to: u32, value: &str, at_seq: u64, now: u64) {
        let kv = keyed(from, to, value);
        let r = kv.iter().map(|(k, v)| (b(k), b(v))).collect();
        let (lo, hi) = (format!("k{from:03}"), format!("k{to:03}"));
        c.fill(lo.as_bytes(), hi.as_bytes(), r, at_seq, now);
    }

    /// A batch of more than BULK keys registers its span: reads and fills that share keys
    /// with it wait for it like for single keys, and intervals it writes into get its
    /// versions.
    #[test]
    fn bulk_writes_register_their_span() {
        let c = RangeCache::new(1 << 20).unwrap();
        fill_keyed(&c, 10, 20, "0", 10, 10);
        let bulk = keyed(0, BULK as u32 + 8, "1");
        begin_bulk(&c, &bulk);
        assert!(c.inner.lock().inflight.is_empty(), "one span, no keys");
        assert_eq!(hit(&c, "k012", "k015", at(50)), None, "being written");
        fill_keyed(&c, 30, 35, "x", 11, 11);
        assert!(
            uncovered(&c, b"k030", b"k035", at(50)),
            "refused: in flight"
        );
        fill_keyed(&c, 50, 60, "0", 11, 11);
        assert!(
            hit(&c, "k050", "k060", at(50)).is_some(),
            "outside the span"
        );
        end_bulk(&c, &bulk, 20, 22, true);
        assert_eq!(hit(&c, "k010", "k020", at(22)), Some(keyed(10, 20, "1")));
        assert_eq!(
            hit(&c, "k010", "k020", ReadAt { seq: 15, after: 20 }),
            Some(keyed(10, 20, "0")),
            "older snapshots keep the versions before it"
        );
        fill_keyed(&c, 30, 35, "0", 21, 22);
        assert!(
            uncovered(&c, b"k030", b"k035", at(50)),
            "refused: the snapshot predates the write's end"
        );
        fill_keyed(&c, 30, 35, "1", 22, 22);
        assert_eq!(hit(&c, "k030", "k035", at(50)), Some(keyed(30, 35, "1")));
        // a failed bulk write drops the intervals it wrote into, and only those
        begin_bulk(&c, &bulk);
        end_bulk(&c, &bulk, 23, 24, false);
        assert!(uncovered(&c, b"k010", b"k020", at(50)));
        assert!(hit(&c, "k050", "k060", at(50)).is_some());
        // spans older than the log's horizon: older snapshots are refused
        for i in 0..SPAN_LOG_LEN as u64 + 1 {
            begin_bulk(&c, &bulk);
            end_bulk(&c, &bulk, 100 + i, 100 + i, true);
        }
        fill_keyed(&c, 70, 80, "0", 50, 50);
        assert!(uncovered(&c, b"k070", b"k080", at(10_000)));
        fill_keyed(&c, 70, 80, "0", 10_000, 10_000);
        assert!(hit(&c, "k070", "k080", at(10_000)).is_some());
    }

    /// A single-key batch and a bulk batch writing one key at once: whichever ends first sees
    /// the other in flight, and the interval goes.
    #[test]
    fn a_key_written_by_a_bulk_and_a_single_batch_at_once_drops_its_interval() {
        let bulk = keyed(0, BULK as u32 + 8, "1");
        for single_first in [true, false] {
            let c = RangeCache::new(1 << 20).unwrap();
            fill_keyed(&c, 10, 20, "0", 10, 10);
            begin_bulk(&c, &bulk);
            c.begin_write([&b"k015"[..]].into_iter(), &[]);
            let single = || {
                let ops = [(&b"k015"[..], Some(&b"2"[..]))];
                c.end_write(ops.into_iter(), &[], 20, 21, true);
            };
            if single_first {
                single();
                end_bulk(&c, &bulk, 20, 22, true);
            } else {
                end_bulk(&c, &bulk, 20, 22, true);
                single();
            }
            assert!(
                uncovered(&c, b"k010", b"k020", at(50)),
                "single batch first: {single_first}"
            );
            assert_eq!(c.stats().bytes, 0);
        }
    }

    #[test]
    fn touching_intervals_merge_and_keep_their_entries() {
        let c = RangeCache::new(1 << 20).unwrap();
        c.fill(b"a", b"f", rows(&[("b", "1")]), 10, 10);
        write(&c, &[("b", Some("2"))], 11, 12);
        c.fill(b"f", b"k", rows(&[("g", "3")]), 12, 13);
        c.fill(b"d", b"h", rows(&[("b", "stale"), ("g", "3")]), 13, 14);
        assert_eq!(c.inner.lock().intervals.len(), 1);
        assert_eq!(
            hit(&c, "a", "k", at(20)),
            Some(pairs(&[("b", "2"), ("g", "3")]))
        );
        c.fill(b"c", b"d", rows(&[]), 20, 20);
        assert_eq!(c.stats().fills, 2, "a covered range is not filled again");
    }

    #[test]
    fn bounded_by_bytes_least_recently_read_first() {
        let c = RangeCache::new(64 << 10).unwrap();
        let v = "x".repeat(1000);
        for i in 0..100u32 {
            let lo = format!("k{i:03}");
            let hi = format!("k{i:03}z");
            c.fill(
                lo.as_bytes(),
                hi.as_bytes(),
                rows(&[(&format!("k{i:03}a"), &v)]),
                1,
                1,
            );
            // keep the first interval hot
            assert!(hit(&c, "k000", "k000z", at(1)).is_some());
        }
        let st = c.stats();
        assert!(st.bytes <= 64 << 10, "{st:?}");
        assert!(st.bytes > 32 << 10, "{st:?}");
        assert!(hit(&c, "k099", "k099z", at(1)).is_some());
        assert!(hit(&c, "k001", "k001z", at(1)).is_none());
    }
}
