//! Per-statement resource limits: the memory budget of intermediate results and
//! `max_execution_time`.
//!
//! **Memory.** The operators that must buffer rows have their own MySQL budgets and spill to
//! temporary files past them (sorts past `sort_buffer_size`, GROUP BY tables and DISTINCT
//! aggregates past `tmp_table_size`/`max_heap_table_size`, hash-join builds past
//! `join_buffer_size`; see `crate::exec`). What is still held in memory (the collected path:
//! set operations, derived tables, blocks with subqueries, a cross join's table) is measured as
//! it grows ([`MemTracker`]); one that exceeds the session's `max_session_mem_used` (MariaDB's
//! variable; bytes) fails the statement with MariaDB's error for that variable (1290,
//! ER_OPTION_PREVENTS_STATEMENT) instead of letting the process be OOM-killed: the last guard,
//! not the normal path. The limit is set for the running statement by [`StatementLimits`], kept in a
//! thread-local because a statement runs on one thread from start to end (no plumbing through
//! every executor signature).
//!
//! **Time.** [`arm_timeout`] registers a deadline with one shared watchdog thread, which sets the
//! session's KILL QUERY flag when it passes; the executor's existing kill checks stop the
//! statement and the session reports 3024 instead of 1317.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use common::{codes, Error, Result, Value};
use parking_lot::{Condvar, Mutex};

/// Rows copied per write batch while a table is rebuilt (ALTER TABLE, repartitioning).
pub const COPY_BATCH: usize = 1000;

/// Default `max_session_mem_used`: 1 GiB.
pub const DEFAULT_MEM_LIMIT: u64 = 1 << 30;

thread_local! {
    static MEM_LIMIT: Cell<u64> = const { Cell::new(DEFAULT_MEM_LIMIT) };
}

/// Sets the memory limit of the statement running on this thread; restores the previous one on
/// drop (statements nest: EXECUTE, stored routines).
pub struct StatementLimits {
    prev: u64,
}

impl StatementLimits {
    /// Applies `mem_limit` bytes to intermediate results until the guard is dropped.
    pub fn new(mem_limit: u64) -> Self {
        let prev = MEM_LIMIT.with(|c| c.replace(mem_limit.max(8192)));
        StatementLimits { prev }
    }
}

impl Drop for StatementLimits {
    fn drop(&mut self) {
        MEM_LIMIT.with(|c| c.set(self.prev));
    }
}

/// Approximate heap footprint of a row.
pub fn row_size(row: &[Value]) -> usize {
    24 + row
        .iter()
        .map(|v| {
            std::mem::size_of::<Value>()
                + match v {
                    Value::Str(s) => s.len(),
                    Value::Bytes(b) => b.len(),
                    _ => 0,
                }
        })
        .sum::<usize>()
}

/// The error for an intermediate result over the memory limit.
pub fn mem_error(limit: u64) -> Error {
    Error::new(
        codes::ER_OPTION_PREVENTS_STATEMENT,
        format!("The MySQL server is running with the --max-session-mem-used={limit} option so it cannot execute this statement"),
    )
}

/// Measures one growing intermediate result against the statement's memory limit.
pub struct MemTracker {
    used: usize,
    limit: u64,
}

impl Default for MemTracker {
    fn default() -> Self {
        Self::new()
    }
}

impl MemTracker {
    /// A tracker under the current statement's limit.
    pub fn new() -> Self {
        MemTracker {
            used: 0,
            limit: MEM_LIMIT.with(|c| c.get()),
        }
    }

    /// Counts `bytes` more.
    ///
    /// # Errors
    /// 1290 when the total passes the limit.
    pub fn add_bytes(&mut self, bytes: usize) -> Result<()> {
        self.used += bytes;
        if self.used as u64 > self.limit {
            return Err(mem_error(self.limit));
        }
        Ok(())
    }

    /// Counts one row.
    ///
    /// # Errors
    /// 1290 when the total passes the limit.
    pub fn add_row(&mut self, row: &[Value]) -> Result<()> {
        self.add_bytes(row_size(row))
    }
}

// ------------------------------------------------------------------------------------- time

struct Armed {
    killed: Arc<AtomicBool>,
    fired: Arc<AtomicBool>,
}

#[derive(Default)]
struct Watchdog {
    deadlines: Mutex<BTreeMap<(Instant, u64), Armed>>,
    wake: Condvar,
    next_id: AtomicU64,
}

fn watchdog() -> &'static Watchdog {
    static W: OnceLock<&'static Watchdog> = OnceLock::new();
    W.get_or_init(|| {
        let w: &'static Watchdog = Box::leak(Box::default());
        std::thread::Builder::new()
            .name("strata-stmt-timer".into())
            .spawn(move || loop {
                let mut d = w.deadlines.lock();
                let now = Instant::now();
                while let Some(e) = d.first_entry() {
                    if e.key().0 > now {
                        break;
                    }
                    let a = e.remove();
                    a.fired.store(true, Ordering::SeqCst);
                    a.killed.store(true, Ordering::SeqCst);
                }
                match d.keys().next().map(|k| k.0) {
                    Some(t) => {
                        w.wake.wait_until(&mut d, t);
                    }
                    None => w.wake.wait(&mut d),
                }
            })
            .expect("cannot start the statement timer thread");
        w
    })
}

/// A statement deadline; disarmed on drop.
pub struct TimeoutGuard {
    key: (Instant, u64),
    fired: Arc<AtomicBool>,
}

impl TimeoutGuard {
    /// True when the deadline passed (and the statement was interrupted by it).
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::SeqCst)
    }
}

impl Drop for TimeoutGuard {
    fn drop(&mut self) {
        watchdog().deadlines.lock().remove(&self.key);
    }
}

/// Sets `killed` once `after` has passed, unless the returned guard is dropped first.
pub fn arm_timeout(after: Duration, killed: Arc<AtomicBool>) -> TimeoutGuard {
    let w = watchdog();
    let key = (
        Instant::now() + after,
        w.next_id.fetch_add(1, Ordering::Relaxed),
    );
    let fired = Arc::new(AtomicBool::new(false));
    w.deadlines.lock().insert(
        key,
        Armed {
            killed,
            fired: fired.clone(),
        },
    );
    w.wake.notify_one();
    TimeoutGuard { key, fired }
}

/// The error of a statement stopped by its deadline.
pub fn timeout_error() -> Error {
    Error::new(
        codes::ER_QUERY_TIMEOUT,
        "Query execution was interrupted, maximum statement execution time exceeded",
    )
}

/// The `MAX_EXECUTION_TIME(n)` optimizer hint of a SELECT, in milliseconds: the hint comment
/// `/*+ … */` must directly follow the statement's first SELECT keyword, as in MySQL.
pub fn hint_max_execution_time(sql: &str) -> Option<u64> {
    let up = sql.to_ascii_uppercase();
    let trimmed = up.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
    let rest = trimmed.strip_prefix("SELECT")?.trim_start();
    let body = rest.strip_prefix("/*+")?;
    let body = &body[..body.find("*/")?];
    let at = body.find("MAX_EXECUTION_TIME")?;
    let args = body[at + "MAX_EXECUTION_TIME".len()..]
        .trim_start()
        .strip_prefix('(')?;
    let num = &args[..args.find(')')?];
    num.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_parsing() {
        assert_eq!(
            hint_max_execution_time("SELECT /*+ MAX_EXECUTION_TIME(100) */ 1"),
            Some(100)
        );
        assert_eq!(
            hint_max_execution_time("  select /*+ BKA(t) max_execution_time( 5 ) */ *"),
            Some(5)
        );
        assert_eq!(
            hint_max_execution_time("SELECT 1 /*+ MAX_EXECUTION_TIME(100) */"),
            None
        );
        assert_eq!(
            hint_max_execution_time("SELECT /* MAX_EXECUTION_TIME(100) */ 1"),
            None
        );
    }

    #[test]
    fn watchdog_fires_and_disarms() {
        let k = Arc::new(AtomicBool::new(false));
        let g = arm_timeout(Duration::from_millis(20), k.clone());
        let t0 = Instant::now();
        while !g.fired() && t0.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(g.fired() && k.load(Ordering::SeqCst));
        let k2 = Arc::new(AtomicBool::new(false));
        drop(arm_timeout(Duration::from_millis(10), k2.clone()));
        std::thread::sleep(Duration::from_millis(50));
        assert!(!k2.load(Ordering::SeqCst));
    }

    #[test]
    fn tracker_limit() {
        let _l = StatementLimits::new(10_000);
        let mut m = MemTracker::new();
        let row = vec![Value::Str("x".repeat(1000))];
        let mut n = 0;
        while m.add_row(&row).is_ok() {
            n += 1;
        }
        assert!((5..10).contains(&n), "{n}");
    }
}
