//! Old row versions in the memtable: flushing it when scans step over many of them.
//!
//! An update writes a new version of the row; the memtable keeps every version until it is
//! flushed, and a scan steps over all of them. Under a skewed update load (sysbench's default
//! distribution sends 75 % of its updates to 1 % of the rows) a hot row collects dozens of
//! versions in a 64 MiB memtable, and range reads over hot rows became ~3x slower than on fresh
//! data (sum range 570 µs vs 170 µs server CPU per statement, 4 x 100k rows). A flush keeps only
//! the newest version visible to the oldest snapshot, so the next scans see one. InnoDB updates
//! in place and has no such cost.
//!
//! Two mechanisms, one for each kind of load:
//! - **Writes going on**: RocksDB's own trigger ([`configure`]). The iterator counts the hidden
//!   entries it steps over in the active memtable and marks it; the next write into it
//!   schedules the flush.
//! - **No writes** (a read-only load after a write burst): nothing would ever flush the marked
//!   memtable, and every scan kept paying (a read-only sysbench transaction cost 4.6 ms of server
//!   CPU instead of 1.3 ms). One scan in [`SAMPLE_EVERY`] per thread counts its hidden entries
//!   (RocksDB's per-thread perf counters, switched on for that scan only); when they cross the
//!   same threshold and nothing was written for [`IDLE`], [`HotVersions`] flushes the memtable
//!   itself.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rocksdb::perf::{set_perf_stats, PerfContext, PerfMetric, PerfStatsLevel};
use rocksdb::{AsColumnFamilyRef, FlushOptions, DB};

/// Hidden entries (older versions, tombstones) a scan may step over in the active memtable
/// per row it returns, on average, before the memtable is flushed.
///
/// The price is more flushes and compactions. Sysbench oltp_read_write, 8 threads, 4 x 100k
/// rows, paired whole runs (wall time without / with): 36k transactions 1.30x (median of 3
/// pairs; 627 vs 503 tps in the last); 12k transactions 0.92x (4 pairs, 0.85-1.19x), i.e. a
/// short run, before the versions pile up, pays for the flushes. A more eager setting (16 / 1)
/// flushed every 4 s and did worse in short runs.
pub(crate) const AVG_HIDDEN: u32 = 2;
/// ... and at least this many in all (or in one step), so short scans do not flush.
pub(crate) const MIN_HIDDEN: u32 = 64;
/// One scan in this many (per thread) counts its hidden entries when no writes come.
pub(crate) const SAMPLE_EVERY: u32 = 16;
/// No write for this long: RocksDB's own trigger will not fire, the sampled scans flush.
/// Also the least time between two such flushes.
pub(crate) const IDLE: Duration = Duration::from_secs(1);
/// A memtable with fewer entries is not worth a flush (and a file).
const MIN_MEMTABLE_ENTRIES: u64 = 4096;

/// Sets RocksDB's scan-triggered memtable flush ([`AVG_HIDDEN`], [`MIN_HIDDEN`]) on `cf`.
/// The Rust bindings have no setters for these options, so they go through RocksDB's
/// `SetOptions` (dynamic options); a library without them is logged and left as is.
pub(crate) fn configure(db: &DB, cf: &impl AsColumnFamilyRef) {
    let (min, avg) = (MIN_HIDDEN.to_string(), AVG_HIDDEN.to_string());
    if let Err(e) = db.set_options_cf(
        cf,
        &[
            ("memtable_op_scan_flush_trigger", min.as_str()),
            ("memtable_avg_op_scan_flush_trigger", avg.as_str()),
        ],
    ) {
        tracing::warn!("scan-triggered memtable flush not available: {e}");
    }
}

/// Per-engine state of the idle-time flush: when the last write and the last flush happened.
#[derive(Debug)]
pub(crate) struct HotVersions {
    epoch: Instant,
    /// Milliseconds since `epoch`, +1 (0 = never).
    last_write: AtomicU64,
    last_flush: AtomicU64,
}

impl HotVersions {
    pub(crate) fn new() -> Self {
        HotVersions {
            epoch: Instant::now(),
            last_write: AtomicU64::new(0),
            last_flush: AtomicU64::new(0),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64 + 1
    }

    /// Notes a write (any column family).
    pub(crate) fn wrote(&self) {
        self.last_write.store(self.now(), Ordering::Relaxed);
    }

    /// A sampled scan found many hidden entries: flushes `cf`'s memtable when no write came
    /// for [`IDLE`] (else RocksDB's trigger does it), at most once per [`IDLE`], and only a
    /// memtable worth it. The flush runs in the background.
    fn scan_found_versions(&self, db: &DB, cf: &impl AsColumnFamilyRef) {
        let now = self.now();
        let idle = IDLE.as_millis() as u64;
        let since = |t: &AtomicU64| now.saturating_sub(t.load(Ordering::Relaxed));
        if since(&self.last_write) < idle {
            return;
        }
        let last = self.last_flush.load(Ordering::Relaxed);
        if now.saturating_sub(last) < idle
            || self
                .last_flush
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        let entries = db
            .property_int_value_cf(cf, "rocksdb.num-entries-active-mem-table")
            .ok()
            .flatten()
            .unwrap_or(0);
        if entries < MIN_MEMTABLE_ENTRIES {
            return;
        }
        let mut fo = FlushOptions::default();
        fo.set_wait(false);
        match db.flush_cf_opt(cf, &fo) {
            Ok(()) => tracing::debug!(entries, "flushing a memtable full of old versions"),
            Err(e) => tracing::warn!("flush of old versions failed: {e}"),
        }
    }
}

thread_local! {
    /// Scans started on this thread (for the sampling).
    static SCANS: Cell<u32> = const { Cell::new(0) };
    /// A probe is running on this thread (perf counting is per thread: one at a time).
    static PROBING: Cell<bool> = const { Cell::new(false) };
}

/// Counts the hidden entries one sampled scan steps over. Starts and ends on one thread (a
/// RocksDB iterator never moves between threads).
pub(crate) struct Probe {
    ctx: PerfContext,
    start: u64,
    rows: u64,
}

impl Probe {
    /// A probe for one scan in [`SAMPLE_EVERY`] on this thread, when none is running.
    pub(crate) fn sample() -> Option<Probe> {
        let n = SCANS.with(|c| {
            let n = c.get().wrapping_add(1);
            c.set(n);
            n
        });
        if !n.is_multiple_of(SAMPLE_EVERY) || PROBING.with(Cell::get) {
            return None;
        }
        PROBING.with(|p| p.set(true));
        set_perf_stats(PerfStatsLevel::EnableCount);
        let ctx = PerfContext::default();
        let start = hidden_in_memtable(&ctx);
        Some(Probe {
            ctx,
            start,
            rows: 0,
        })
    }

    /// One more row returned.
    pub(crate) fn row(&mut self) {
        self.rows += 1;
    }

    /// Ends the probe; flushes through `hot` when the scan crossed the threshold.
    pub(crate) fn finish(self, hot: &HotVersions, db: &DB, cf: &impl AsColumnFamilyRef) {
        let hidden = hidden_in_memtable(&self.ctx).saturating_sub(self.start);
        let rows = self.rows;
        drop(self);
        if crossed(hidden, rows) {
            hot.scan_found_versions(db, cf);
        }
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        set_perf_stats(PerfStatsLevel::Disable);
        PROBING.with(|p| p.set(false));
    }
}

/// The threshold of RocksDB's own trigger, over a whole scan.
fn crossed(hidden: u64, rows: u64) -> bool {
    hidden >= u64::from(MIN_HIDDEN) && hidden >= u64::from(AVG_HIDDEN) * rows.max(1)
}

/// Hidden entries stepped over so far on this thread, counting only as many as the memtable
/// steps (the counters include the files, whose versions a flush does not remove).
fn hidden_in_memtable(ctx: &PerfContext) -> u64 {
    let hidden = ctx.metric(PerfMetric::InternalKeySkippedCount)
        + ctx.metric(PerfMetric::InternalDeleteSkippedCount);
    hidden.min(ctx.metric(PerfMetric::NextOnMemtableCount))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_is_per_row_with_a_floor() {
        assert!(!crossed(63, 0));
        assert!(crossed(64, 10));
        assert!(!crossed(150, 100));
        assert!(crossed(200, 100));
    }

    #[test]
    fn one_scan_in_sample_every_is_probed_and_probes_do_not_nest() {
        let probes: Vec<Option<Probe>> = (0..SAMPLE_EVERY * 2).map(|_| Probe::sample()).collect();
        // the first probe is still running: the second sample is skipped
        assert_eq!(probes.iter().filter(|p| p.is_some()).count(), 1);
        let hot = HotVersions::new();
        let dir = tempfile::tempdir().unwrap();
        let e = crate::RocksEngine::open(dir.path(), crate::RocksOptions::default()).unwrap();
        let cf = e.db.handle(storage::engine::Cf::Data);
        for p in probes.into_iter().flatten() {
            p.finish(&hot, e.db(), &cf);
        }
        let next: Vec<Option<Probe>> = (0..SAMPLE_EVERY).map(|_| Probe::sample()).collect();
        assert_eq!(next.iter().filter(|p| p.is_some()).count(), 1);
    }
}
