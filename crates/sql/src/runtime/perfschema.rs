//! performance_schema's statement instrumentation: the instance's digest summary
//! (`events_statements_summary_by_digest`, bounded by `performance_schema_digests_size`, with
//! MySQL's overflow row) and each thread's statement events (`events_statements_current` /
//! `_history`). The statement boundary (`dispatch::perfschema`) fills them; the
//! `performance_schema` tables (`show::perfschema`) read them.
//!
//! Collection is decided once, at startup (`performance_schema`, read-only as in MySQL): with
//! it off a statement pays one load of a plain `bool`. With it on, a statement's digest text
//! is made by [`crate::runtime::digest`] (once per prepared statement, kept per thread), the
//! summary is a sharded map (a statement locks one shard), and a thread's events are written
//! under the thread's own lock, which only readers of the tables share.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use parking_lot::Mutex;
use rustc_hash::{FxHashMap, FxHasher};

use crate::runtime::digest::{self, DigestOptions, Normaliser};

/// Statements per thread in `events_statements_history`
/// (`performance_schema_events_statements_history_size`).
pub const HISTORY_SIZE: usize = 10;

/// Characters of a statement's text kept (`performance_schema_max_sql_text_length`).
pub const MAX_SQL_TEXT: usize = 1024;

/// A digest sample older than this is replaced by the next statement
/// (`performance_schema_max_digest_sample_age`).
const SAMPLE_AGE: Duration = Duration::from_secs(60);

/// Histogram buckets of a digest's latencies: bucket 0 holds waits under 1 µs, bucket `k`
/// those under 1 µs × 10^(k/25) (25 per decade, ~9.6 % wide), the last everything above.
const BUCKETS: usize = 226;

/// Picoseconds per nanosecond: performance_schema's timers are in picoseconds.
const PS_PER_NS: u64 = 1000;

/// A statement digest: its normalised text and SHA-256.
#[derive(Debug)]
pub struct DigestId {
    /// `DIGEST`: 64 hex digits.
    pub hex: Box<str>,
    /// `DIGEST_TEXT`.
    pub text: Box<str>,
    /// FxHash of `text` (the summary's shard and bucket).
    hash: u64,
}

impl DigestId {
    /// The digest of a normalised text.
    pub fn new(text: &str) -> Arc<DigestId> {
        Arc::new(DigestId {
            hex: digest::digest_hex(text).into_boxed_str(),
            text: text.into(),
            hash: text_hash(text),
        })
    }
}

fn text_hash(text: &str) -> u64 {
    let mut h = FxHasher::default();
    text.hash(&mut h);
    h.finish()
}

/// One statement's measurements (the columns `events_statements_*` and the digest summary
/// share).
#[derive(Debug, Clone, Default)]
pub struct StmtStats {
    /// Wait, picoseconds.
    pub timer_wait: u64,
    /// Lock wait, picoseconds.
    pub lock_time: u64,
    /// 1 for a statement that ended in an error.
    pub errors: u64,
    /// Warnings and notes it left.
    pub warnings: u64,
    /// Rows changed.
    pub rows_affected: u64,
    /// Rows sent to the client.
    pub rows_sent: u64,
    /// Rows the storage layer read (every Handler_read_*).
    pub rows_examined: u64,
    /// `Select_range` it counted.
    pub select_range: u64,
    /// `Select_scan` it counted.
    pub select_scan: u64,
    /// 1 when it read a table without an index.
    pub no_index_used: u64,
}

/// A statement event (a row of `events_statements_current` / `_history`).
#[derive(Debug, Clone, Default)]
pub struct StmtEvent {
    /// `EVENT_ID` (per thread, from 1).
    pub event_id: u64,
    /// `EVENT_NAME`, e.g. `statement/sql/select`.
    pub event_name: &'static str,
    /// `TIMER_START`, picoseconds since the server started.
    pub timer_start: u64,
    /// `SQL_TEXT` (its first [`MAX_SQL_TEXT`] characters).
    pub sql_text: String,
    /// `DIGEST` / `DIGEST_TEXT`.
    pub digest: Option<Arc<DigestId>>,
    /// `CURRENT_SCHEMA`.
    pub schema: Option<String>,
    /// `MYSQL_ERRNO` (0: no error).
    pub errno: u16,
    /// `RETURNED_SQLSTATE` of the error.
    pub sqlstate: &'static str,
    /// `MESSAGE_TEXT` of the error (128 characters at most).
    pub message: String,
    /// The measured columns.
    pub stats: StmtStats,
}

impl StmtEvent {
    /// `TIMER_END`.
    pub fn timer_end(&self) -> u64 {
        self.timer_start + self.stats.timer_wait
    }
}

/// A digest's running totals (a row of `events_statements_summary_by_digest`).
#[derive(Debug, Clone)]
pub struct DigestStats {
    /// `COUNT_STAR`.
    pub count: u64,
    /// Summed measurements (`SUM_*`).
    pub sum: StmtStats,
    /// `MIN_TIMER_WAIT`.
    pub min_timer: u64,
    /// `MAX_TIMER_WAIT`.
    pub max_timer: u64,
    /// `FIRST_SEEN`, `LAST_SEEN`.
    pub first_seen: SystemTime,
    /// `LAST_SEEN`.
    pub last_seen: SystemTime,
    /// The statement kept as `QUERY_SAMPLE_TEXT` (the slowest of the last minute).
    pub sample_text: String,
    /// `QUERY_SAMPLE_SEEN`.
    pub sample_seen: SystemTime,
    /// `QUERY_SAMPLE_TIMER_WAIT`.
    pub sample_timer: u64,
    hist: Box<[u64; BUCKETS]>,
}

impl DigestStats {
    fn new(now: SystemTime) -> Self {
        DigestStats {
            count: 0,
            sum: StmtStats::default(),
            min_timer: u64::MAX,
            max_timer: 0,
            first_seen: now,
            last_seen: now,
            sample_text: String::new(),
            sample_seen: now,
            sample_timer: 0,
            hist: Box::new([0; BUCKETS]),
        }
    }

    fn add(&mut self, s: &StmtStats, sql_text: &str, now: SystemTime) {
        self.count += 1;
        let t = &mut self.sum;
        t.timer_wait += s.timer_wait;
        t.lock_time += s.lock_time;
        t.errors += s.errors;
        t.warnings += s.warnings;
        t.rows_affected += s.rows_affected;
        t.rows_sent += s.rows_sent;
        t.rows_examined += s.rows_examined;
        t.select_range += s.select_range;
        t.select_scan += s.select_scan;
        t.no_index_used += s.no_index_used;
        self.min_timer = self.min_timer.min(s.timer_wait);
        self.max_timer = self.max_timer.max(s.timer_wait);
        self.last_seen = now;
        self.hist[bucket(s.timer_wait)] += 1;
        let stale = now
            .duration_since(self.sample_seen)
            .is_ok_and(|d| d > SAMPLE_AGE);
        if self.count == 1 || s.timer_wait > self.sample_timer || stale {
            self.sample_text.clear();
            self.sample_text.push_str(sql_text);
            self.sample_seen = now;
            self.sample_timer = s.timer_wait;
        }
    }

    /// `AVG_TIMER_WAIT`.
    pub fn avg_timer(&self) -> u64 {
        self.sum.timer_wait / self.count.max(1)
    }

    /// `MIN_TIMER_WAIT` (0 before any statement).
    pub fn min(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min_timer
        }
    }

    /// The latency under which fraction `q` of the statements ran: the upper bound of the
    /// histogram bucket that holds the `q` quantile (`QUANTILE_95` …), as MySQL estimates it.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let want = ((self.count as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, n) in self.hist.iter().enumerate() {
            seen += n;
            if seen >= want {
                return bucket_upper(i).min(self.max_timer.max(1));
            }
        }
        self.max_timer
    }
}

/// The histogram bucket of a wait in picoseconds.
fn bucket(ps: u64) -> usize {
    const ONE_US: f64 = 1e6;
    let t = ps as f64;
    if t < ONE_US {
        return 0;
    }
    ((25.0 * (t / ONE_US).log10()).floor() as usize + 1).min(BUCKETS - 1)
}

/// The upper bound of bucket `i` in picoseconds.
fn bucket_upper(i: usize) -> u64 {
    (1e6 * 10f64.powf(i as f64 / 25.0)) as u64
}

/// One digest of the summary.
#[derive(Debug)]
struct DigestEntry {
    schema: Option<Box<str>>,
    id: Arc<DigestId>,
    stats: DigestStats,
}

/// A row of `events_statements_summary_by_digest`: the overflow row has no schema or digest.
#[derive(Debug, Clone)]
pub struct DigestRow {
    /// `SCHEMA_NAME`.
    pub schema: Option<String>,
    /// `DIGEST`, `DIGEST_TEXT` (None for the overflow row).
    pub digest: Option<Arc<DigestId>>,
    /// The totals.
    pub stats: DigestStats,
}

const SHARDS: usize = 16;

/// One shard: digests by the hash of (text, schema), colliding ones side by side.
type Shard = Mutex<FxHashMap<u64, Vec<DigestEntry>>>;

/// The digest summary: digests by (schema, text) in shards, at most `capacity` of them; the
/// statements of digests beyond that go to one overflow row.
#[derive(Debug)]
pub struct DigestTable {
    shards: Box<[Shard]>,
    count: AtomicUsize,
    capacity: usize,
    overflow: Mutex<Option<DigestStats>>,
    /// Statements counted in the overflow row (`Performance_schema_digest_lost`).
    pub lost: AtomicU64,
}

impl DigestTable {
    fn new(capacity: usize) -> Self {
        DigestTable {
            shards: (0..SHARDS)
                .map(|_| Mutex::new(FxHashMap::default()))
                .collect(),
            count: AtomicUsize::new(0),
            capacity,
            overflow: Mutex::new(None),
            lost: AtomicU64::new(0),
        }
    }

    /// Adds a statement of digest `text` (or of the known digest `known`, whose text is the
    /// same) run in `schema`. Returns the digest (None when it went to the overflow row).
    pub fn add(
        &self,
        schema: Option<&str>,
        text: &str,
        known: Option<&Arc<DigestId>>,
        stats: &StmtStats,
        sql_text: &str,
        now: SystemTime,
    ) -> Option<Arc<DigestId>> {
        let th = known.map_or_else(|| text_hash(text), |k| k.hash);
        let mut h = FxHasher::default();
        th.hash(&mut h);
        schema.hash(&mut h);
        let key = h.finish();
        let mut shard = self.shards[(key % SHARDS as u64) as usize].lock();
        let bucket = shard.entry(key).or_default();
        if let Some(e) = bucket
            .iter_mut()
            .find(|e| e.schema.as_deref() == schema && &*e.id.text == text)
        {
            e.stats.add(stats, sql_text, now);
            return Some(e.id.clone());
        }
        if self.count.load(Relaxed) >= self.capacity {
            if bucket.is_empty() {
                shard.remove(&key);
            }
            drop(shard);
            self.lost.fetch_add(1, Relaxed);
            self.overflow
                .lock()
                .get_or_insert_with(|| DigestStats::new(now))
                .add(stats, sql_text, now);
            return None;
        }
        self.count.fetch_add(1, Relaxed);
        let id = known.cloned().unwrap_or_else(|| DigestId::new(text));
        let mut stats_row = DigestStats::new(now);
        stats_row.add(stats, sql_text, now);
        bucket.push(DigestEntry {
            schema: schema.map(Into::into),
            id: id.clone(),
            stats: stats_row,
        });
        Some(id)
    }

    /// Every row, the overflow row last.
    pub fn rows(&self) -> Vec<DigestRow> {
        let mut out = Vec::new();
        for s in self.shards.iter() {
            for e in s.lock().values().flatten() {
                out.push(DigestRow {
                    schema: e.schema.as_deref().map(String::from),
                    digest: Some(e.id.clone()),
                    stats: e.stats.clone(),
                });
            }
        }
        out.sort_by_key(|r| r.stats.first_seen);
        if let Some(o) = self.overflow.lock().clone() {
            out.push(DigestRow {
                schema: None,
                digest: None,
                stats: o,
            });
        }
        out
    }

    /// Forgets every digest (TRUNCATE TABLE).
    pub fn clear(&self) {
        for s in self.shards.iter() {
            let mut s = s.lock();
            let n: usize = s.values().map(Vec::len).sum();
            s.clear();
            self.count.fetch_sub(n, Relaxed);
        }
        *self.overflow.lock() = None;
    }

    /// Digests held (the overflow row not counted).
    pub fn len(&self) -> usize {
        self.count.load(Relaxed)
    }

    /// True when no digest is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The performance_schema tables whose rows TRUNCATE TABLE resets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Truncatable {
    Current,
    History,
    HistoryLong,
}

/// The instance's performance_schema state.
#[derive(Debug)]
pub struct PerfSchema {
    enabled: bool,
    max_digest_length: usize,
    /// `events_statements_summary_by_digest`.
    pub digests: DigestTable,
    /// The start of the timers (`TIMER_START` 0).
    epoch: Instant,
    epoch_wall: SystemTime,
    /// Per truncatable events table: the timer before which its events are no longer shown.
    truncated: [AtomicU64; 3],
    /// The last SHOW ENGINE INNODB STATUS's counters, for its per-second averages.
    pub monitor: Mutex<Option<(Instant, Vec<u64>)>>,
}

impl PerfSchema {
    /// `enabled`: the `performance_schema` variable; `digests`: `performance_schema_digests_size`;
    /// `max_digest_length`: the smaller of `max_digest_length` and
    /// `performance_schema_max_digest_length`.
    pub fn new(enabled: bool, digests: usize, max_digest_length: usize) -> Self {
        PerfSchema {
            enabled,
            max_digest_length,
            digests: DigestTable::new(digests),
            epoch: Instant::now(),
            epoch_wall: SystemTime::now(),
            truncated: Default::default(),
            monitor: Mutex::new(None),
        }
    }

    /// Whether statements are instrumented (the `performance_schema` variable).
    #[inline]
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// The token bytes a digest may use.
    pub fn max_digest_length(&self) -> usize {
        self.max_digest_length
    }

    /// Picoseconds from the timers' start to `t`.
    pub fn timer(&self, t: Instant) -> u64 {
        ps(t.saturating_duration_since(self.epoch))
    }

    /// The wall-clock time of `t` (no clock read).
    pub fn wall(&self, t: Instant) -> SystemTime {
        self.epoch_wall + t.saturating_duration_since(self.epoch)
    }

    /// The wall-clock time of timer value `ps`.
    pub fn wall_of_timer(&self, ps: u64) -> SystemTime {
        self.epoch_wall + Duration::from_nanos(ps / PS_PER_NS)
    }

    /// TRUNCATE TABLE `performance_schema.name` (any letter case): resets a summary or history
    /// table as MySQL does. None when `name` is not a table TRUNCATE resets.
    pub fn truncate(&self, name: &str) -> Option<()> {
        let now = self.timer(Instant::now());
        let which = match name.to_ascii_lowercase().as_str() {
            "events_statements_summary_by_digest" => {
                self.digests.clear();
                return Some(());
            }
            "events_statements_current" => Truncatable::Current,
            "events_statements_history" => Truncatable::History,
            "events_statements_history_long" => Truncatable::HistoryLong,
            _ => return None,
        };
        self.truncated[which as usize].store(now, Relaxed);
        Some(())
    }

    fn shown(&self, which: Truncatable, e: &StmtEvent) -> bool {
        e.timer_end() > self.truncated[which as usize].load(Relaxed)
    }

    /// The events a thread's `events_statements_current` row may show (its last event, if
    /// not truncated away).
    pub fn current_of(&self, t: &ThreadStatements) -> Option<StmtEvent> {
        let h = t.events.lock();
        h.history
            .back()
            .filter(|e| self.shown(Truncatable::Current, e))
            .cloned()
    }

    /// A thread's `events_statements_history` rows, oldest first.
    pub fn history_of(&self, t: &ThreadStatements) -> Vec<StmtEvent> {
        let h = t.events.lock();
        h.history
            .iter()
            .filter(|e| self.shown(Truncatable::History, e))
            .cloned()
            .collect()
    }
}

impl Default for PerfSchema {
    fn default() -> Self {
        PerfSchema::new(true, 10_000, 1024)
    }
}

fn ps(d: Duration) -> u64 {
    u64::try_from(d.as_nanos())
        .unwrap_or(u64::MAX / PS_PER_NS)
        .saturating_mul(PS_PER_NS)
}

/// Picoseconds of a duration.
pub fn picos(d: Duration) -> u64 {
    ps(d)
}

/// Milliseconds since the Unix epoch.
pub fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// One thread's statement events and the scratch space its statements use.
#[derive(Default)]
pub struct ThreadStatements {
    events: Mutex<Events>,
    /// The owning session's scratch space (only it locks this).
    pub work: Mutex<Work>,
    /// The transaction open after the last statement (0: none), for SHOW ENGINE INNODB STATUS.
    pub trx_id: AtomicU64,
    /// When that transaction started (milliseconds of the instance's timers).
    pub trx_started_ms: AtomicU64,
    /// Row locks it held then.
    pub trx_locks: AtomicU64,
    /// This thread's lock owner for the lock manager's reports (made on first use).
    pub lock_owner: OnceLock<Arc<dyn storage::txn::lock::LockOwner>>,
}

impl std::fmt::Debug for ThreadStatements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadStatements")
            .field("events", &self.events.lock().history.len())
            .field("trx_id", &self.trx_id.load(Relaxed))
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct Events {
    next_event_id: u64,
    history: VecDeque<StmtEvent>,
}

/// A session's scratch space for digests.
#[derive(Debug, Default)]
pub struct Work {
    /// The digest normaliser and its output.
    pub normaliser: Normaliser,
    /// The last digest text made.
    pub text: String,
    /// Digests of prepared statements by statement id.
    pub prepared: FxHashMap<u32, Arc<DigestId>>,
    /// (command number, text address, text length, statement index) of the last statement
    /// taken from a text, to tell the statements of one multi-statement text apart.
    pub last_text: (u64, usize, usize, usize),
}

/// Prepared-statement digests a thread keeps before it starts over.
const PREPARED_DIGESTS: usize = 1024;

impl Work {
    /// The digest of prepared statement `id` with text `sql`, made once.
    pub fn prepared_digest(
        &mut self,
        id: u32,
        sql: &str,
        opts: DigestOptions,
    ) -> Option<Arc<DigestId>> {
        if let Some(d) = self.prepared.get(&id) {
            return Some(d.clone());
        }
        self.normaliser.normalise(sql, 0, opts, &mut self.text)?;
        let d = DigestId::new(&self.text);
        if self.prepared.len() >= PREPARED_DIGESTS {
            self.prepared.clear();
        }
        self.prepared.insert(id, d.clone());
        Some(d)
    }
}

impl ThreadStatements {
    /// Appends a finished statement: it becomes the thread's current event and the newest of
    /// its history (the oldest of [`HISTORY_SIZE`] goes, its text buffer reused).
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        event_name: &'static str,
        timer_start: u64,
        sql_text: &str,
        digest: Option<Arc<DigestId>>,
        schema: Option<&str>,
        error: Option<(u16, &'static str, &str)>,
        stats: &StmtStats,
    ) {
        let mut h = self.events.lock();
        h.next_event_id += 1;
        let event_id = h.next_event_id;
        let mut ev = if h.history.len() >= HISTORY_SIZE {
            h.history.pop_front().unwrap_or_default()
        } else {
            StmtEvent::default()
        };
        ev.event_id = event_id;
        ev.event_name = event_name;
        ev.timer_start = timer_start;
        ev.sql_text.clear();
        push_truncated(&mut ev.sql_text, sql_text, MAX_SQL_TEXT);
        ev.digest = digest;
        match (&mut ev.schema, schema) {
            (Some(s), Some(new)) if s == new => {}
            (slot, new) => *slot = new.map(String::from),
        }
        ev.message.clear();
        match error {
            Some((errno, state, msg)) => {
                ev.errno = errno;
                ev.sqlstate = state;
                push_truncated(&mut ev.message, msg, 128);
            }
            None => {
                ev.errno = 0;
                ev.sqlstate = "";
            }
        }
        ev.stats = stats.clone();
        h.history.push_back(ev);
    }

    /// The next event id (the one a running statement's event has).
    pub fn next_event_id(&self) -> u64 {
        self.events.lock().next_event_id + 1
    }
}

/// Appends the first `max` characters of `s`.
fn push_truncated(out: &mut String, s: &str, max: usize) {
    match s.char_indices().nth(max) {
        Some((end, _)) => out.push_str(&s[..end]),
        None => out.push_str(s),
    }
}

/// What the tables show of one thread (gathered from the process list).
#[derive(Debug, Clone)]
pub struct ThreadView {
    /// `THREAD_ID` = `PROCESSLIST_ID` (the connection id, as `PS_CURRENT_THREAD_ID()`).
    pub id: u64,
    /// User.
    pub user: String,
    /// Client host.
    pub host: String,
    /// Current database.
    pub db: Option<String>,
    /// Command (`Query`, `Sleep`, …).
    pub command: &'static str,
    /// When the command started.
    pub since: Instant,
    /// The running statement's text.
    pub info: Option<Arc<str>>,
    /// The processlist State.
    pub state: &'static str,
    /// Statement counter (InnoDB's "query id").
    pub query_id: u64,
    /// The thread's statement events.
    pub stmts: Arc<crate::runtime::status::Counters>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(wait_us: u64) -> StmtStats {
        StmtStats {
            timer_wait: wait_us * 1_000_000,
            rows_sent: 1,
            rows_examined: 2,
            ..Default::default()
        }
    }

    #[test]
    fn summary_counts_per_schema_and_digest() {
        let t = DigestTable::new(10);
        let now = SystemTime::now();
        let a = t
            .add(Some("d"), "SELECT ?", None, &stats(10), "SELECT 1", now)
            .unwrap();
        t.add(Some("d"), "SELECT ?", None, &stats(30), "SELECT 22", now);
        t.add(Some("e"), "SELECT ?", None, &stats(5), "SELECT 3", now);
        t.add(None, "SELECT ?", Some(&a), &stats(5), "SELECT 4", now);
        let rows = t.rows();
        assert_eq!(rows.len(), 3);
        let d = rows
            .iter()
            .find(|r| r.schema.as_deref() == Some("d"))
            .unwrap();
        assert_eq!(d.stats.count, 2);
        assert_eq!(d.stats.sum.timer_wait, 40_000_000);
        assert_eq!(d.stats.min(), 10_000_000);
        assert_eq!(d.stats.max_timer, 30_000_000);
        assert_eq!(d.stats.avg_timer(), 20_000_000);
        assert_eq!(d.stats.sum.rows_examined, 4);
        // the sample is the slowest statement
        assert_eq!(d.stats.sample_text, "SELECT 22");
        assert_eq!(d.stats.sample_timer, 30_000_000);
        // the same text has the same digest in every schema
        let e = rows
            .iter()
            .find(|r| r.schema.as_deref() == Some("e"))
            .unwrap();
        assert_eq!(e.digest.as_ref().unwrap().hex, a.hex);
        assert_eq!(a.hex.len(), 64);
        t.clear();
        assert!(t.rows().is_empty());
        assert!(t.is_empty());
    }

    #[test]
    fn digests_beyond_the_size_go_to_the_overflow_row() {
        let t = DigestTable::new(2);
        let now = SystemTime::now();
        for q in [
            "SELECT ?",
            "UPDATE `t` SET `a` = ?",
            "DELETE FROM `t`",
            "BEGIN",
        ] {
            t.add(Some("d"), q, None, &stats(1), q, now);
        }
        // a digest already held is still counted
        t.add(Some("d"), "SELECT ?", None, &stats(1), "SELECT 1", now);
        let rows = t.rows();
        assert_eq!(rows.len(), 3);
        let last = rows.last().unwrap();
        assert!(last.schema.is_none() && last.digest.is_none());
        assert_eq!(last.stats.count, 2);
        assert_eq!(t.lost.load(Relaxed), 2);
        let select = rows
            .iter()
            .find(|r| r.digest.as_ref().is_some_and(|d| &*d.text == "SELECT ?"));
        assert_eq!(select.unwrap().stats.count, 2);
    }

    #[test]
    fn quantiles_are_bucket_upper_bounds() {
        let t = DigestTable::new(10);
        let now = SystemTime::now();
        for i in 1..=100u64 {
            t.add(None, "SELECT ?", None, &stats(i * 10), "SELECT 1", now);
        }
        let r = &t.rows()[0].stats;
        let q95 = r.quantile(0.95);
        // the 95th of 10 µs … 1000 µs is 950 µs: its bucket ends within 10 % above it
        assert!((950_000_000..=1_050_000_000).contains(&q95), "{q95}");
        assert!(r.quantile(0.99) >= q95);
        assert!(r.quantile(0.999) <= r.max_timer);
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(999_999), 0);
        assert!(bucket(u64::MAX) == BUCKETS - 1);
    }

    #[test]
    fn history_keeps_the_last_ten_and_truncate_hides_them() {
        let ps = PerfSchema::default();
        let th = ThreadStatements::default();
        let start = ps.timer(Instant::now());
        for i in 0..12 {
            th.record(
                "statement/sql/select",
                start + i,
                &format!("SELECT {i}"),
                None,
                Some("d"),
                None,
                &stats(1),
            );
        }
        let h = ps.history_of(&th);
        assert_eq!(h.len(), HISTORY_SIZE);
        assert_eq!(h[0].event_id, 3);
        assert_eq!(h[9].sql_text, "SELECT 11");
        assert_eq!(ps.current_of(&th).unwrap().event_id, 12);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(ps.truncate("EVENTS_STATEMENTS_HISTORY"), Some(()));
        assert!(ps.history_of(&th).is_empty());
        assert!(ps.current_of(&th).is_some());
        assert_eq!(ps.truncate("threads"), None);
    }

    #[test]
    fn prepared_digests_are_made_once() {
        let mut w = Work::default();
        let opts = DigestOptions {
            max_length: 1024,
            ..Default::default()
        };
        let a = w
            .prepared_digest(1, "SELECT c FROM t WHERE id=?", opts)
            .unwrap();
        let b = w.prepared_digest(1, "ignored", opts).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*a.text, "SELECT `c` FROM `t` WHERE `id` = ?");
    }
}
