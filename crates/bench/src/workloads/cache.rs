//! cache (reference notes §10 row 3): an sbtest-like table much larger than the cache, then
//! repeated random point lookups over hot sets of growing size; lookups/s per hot-set size
//! shows how many distinct hot rows the server keeps in memory.
//!
//! The rate alone can't tell a hit from a miss that the device (or, for the RocksDB engines,
//! the OS page cache) serves fast, so the workload also reads each server's own count of
//! storage reads around the timed lookups (see [`ReadCounter`]): with lookups picked
//! uniformly from a set of `h` rows, `h × (1 − reads per lookup)` estimates how many of the
//! set's rows the server held in memory.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::Result;
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{load_sbtest, mib_str, Ctx, Params, Unit, SBTEST_ROW_BYTES};
use crate::chart::ChartSpec;
use crate::client::{self, fresh_database};
use crate::gen;
use crate::report::{Better, Outcome};

const DB: &str = "bench_cache";
const CHART: &str = "cache-lookups";

/// The cache workload.
#[derive(Debug, Clone)]
pub struct Cache {
    /// Table rows.
    pub rows: u64,
    /// Hot-set sizes.
    pub hot_sets: Vec<u64>,
    /// Timed lookups per hot set.
    pub lookups: u64,
    /// Lookup clients.
    pub clients: usize,
    /// Cache budget (for the parameters).
    pub cache_bytes: u64,
    /// Seed.
    pub seed: u64,
}

impl Cache {
    /// From the parameters.
    pub fn new(p: &Params) -> Cache {
        Cache {
            rows: p
                .cache_rows
                .unwrap_or_else(|| (50 * p.cache_bytes()).div_ceil(SBTEST_ROW_BYTES)),
            hot_sets: p.hot_sets.clone(),
            lookups: p.lookups.max(1),
            clients: p.cache_clients.max(1),
            cache_bytes: p.cache_bytes(),
            seed: p.seed,
        }
    }
}

/// The largest hot set whose rate is at least half the best rate of all hot sets: the hot rows
/// that are still served from memory. `points` are (hot-set size, lookups/s) ascending.
pub fn largest_in_memory(points: &[(f64, f64)]) -> f64 {
    let best = points.iter().map(|p| p.1).fold(f64::NAN, f64::max);
    points
        .iter()
        .filter(|(_, r)| *r >= best / 2.0)
        .map(|p| p.0)
        .fold(f64::NAN, f64::max)
}

/// The status variable that counts a server's reads of row data from its files, found by what
/// the server offers: the data blocks Strata and MyRocks read into their block caches (not
/// their cache misses: Strata first tries every read against the cache alone, which counts a
/// miss too; Strata's row cache hits read no block), else InnoDB's buffer pool reads (pages
/// read from its tablespaces).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadCounter {
    /// `Strata_block_cache_data_adds`.
    Strata,
    /// `Rocksdb_block_cache_data_add`.
    MyRocks,
    /// `Innodb_buffer_pool_reads`.
    InnoDb,
}

impl ReadCounter {
    /// The status variable's name.
    pub fn variable(self) -> &'static str {
        match self {
            ReadCounter::Strata => "Strata_block_cache_data_adds",
            ReadCounter::MyRocks => "Rocksdb_block_cache_data_add",
            ReadCounter::InnoDb => "Innodb_buffer_pool_reads",
        }
    }

    /// The counter for table `db`.`table` on the server behind `conn` (None when the server
    /// offers none of them).
    pub fn detect(conn: &mut mysql::Conn, db: &str, table: &str) -> Result<Option<Self>> {
        if client::global_status(conn, ReadCounter::Strata.variable())?.is_some() {
            return Ok(Some(ReadCounter::Strata));
        }
        let engine: Option<String> = conn.exec_first(
            "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            (db, table),
        )?;
        let kind = if engine.is_some_and(|e| e.eq_ignore_ascii_case("rocksdb")) {
            ReadCounter::MyRocks
        } else {
            ReadCounter::InnoDb
        };
        Ok(client::global_status(conn, kind.variable())?.map(|_| kind))
    }

    /// The counter's value now.
    pub fn read(self, conn: &mut mysql::Conn) -> Result<u64> {
        client::global_status(conn, self.variable())?
            .ok_or_else(|| anyhow::anyhow!("status variable {} is gone", self.variable()))
    }
}

/// Of a hot set of `size` rows looked up uniformly, how many the server served from memory,
/// given the storage reads per lookup: `size × (1 − reads per lookup)`, at least 0.
pub fn rows_in_memory(size: f64, reads_per_lookup: f64) -> f64 {
    size * (1.0 - reads_per_lookup).clamp(0.0, 1.0)
}

/// How many untimed lookups warm a hot set of `size` rows up: one pass over the set (at most
/// `lookups`), and at least a quarter of `lookups` (cycling through small sets), so the timed
/// part does not include the connection's and the server's cold start.
pub fn warmup_count(size: u64, lookups: u64) -> u64 {
    size.min(lookups).max(lookups / 4)
}

impl Unit for Cache {
    fn workload(&self) -> &'static str {
        "cache"
    }

    fn title(&self) -> String {
        "cache: point lookups over hot sets of growing size".into()
    }

    fn params(&self) -> Vec<(String, String)> {
        let sets: Vec<String> = self.hot_sets.iter().map(u64::to_string).collect();
        vec![
            ("table rows".into(), self.rows.to_string()),
            (
                "≈ table size (224 B/row)".into(),
                mib_str(self.rows * SBTEST_ROW_BYTES),
            ),
            ("cache".into(), mib_str(self.cache_bytes)),
            ("hot sets".into(), sets.join(", ")),
            ("timed lookups per hot set".into(), self.lookups.to_string()),
            ("clients".into(), self.clients.to_string()),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![ChartSpec::new(
            CHART,
            "cache: point lookups/s vs hot-set size",
            "distinct hot rows (log scale)",
            "lookups per second",
        )
        .log_x()]
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "Each hot set is read once (at most the timed lookup count, at least a quarter \
             of it, cycling through small sets) before the timed lookups \
             `SELECT c FROM sbtest1 WHERE id = ?` (prepared), picked uniformly from the set. \
             RocksDB-based engines read their files through the OS page cache (buffered I/O) while \
             InnoDB uses O_DIRECT, so on a machine with spare RAM a cache miss costs them less \
             than a real disk read."
                .into(),
            "Storage reads per lookup: the server's own counter of row data read from its \
             files, over the timed lookups (Strata: `Strata_block_cache_data_adds`, its row \
             cache hits read no block; MyRocks: `Rocksdb_block_cache_data_add`; InnoDB: \
             `Innodb_buffer_pool_reads`). Hot rows served from memory = hot-set size × \
             (1 − reads per lookup), the best over the hot sets: lookups are uniform over the \
             set, so this estimates how many of its rows the server held in memory, whatever a \
             miss costs on this machine."
                .into(),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        fresh_database(&mut conn, DB)?;
        conn.query_drop(format!("USE {DB}"))?;
        let before = ctx.disk_now();
        let load = load_sbtest(ctx, DB, "sbtest1", self.rows)?;
        let mut out = Outcome::default();
        out.fig(
            "load rate",
            "rows/s",
            self.rows as f64 / load.as_secs_f64(),
            Better::Higher,
        );
        ctx.size_figures(&mut out, &mut conn, DB, before, self.rows)?;
        let counter = ReadCounter::detect(&mut conn, DB, "sbtest1")?;
        if counter.is_none() {
            ctx.say("cache: the server counts no storage reads; only lookup rates are measured");
        }
        let mut points = Vec::new();
        let mut in_memory: Vec<f64> = Vec::new();
        for &h in &self.hot_sets {
            let ids = gen::hot_set(self.seed.wrapping_add(h), h as usize, self.rows);
            let stop = AtomicBool::new(false);
            let warm = warmup_count(ids.len() as u64, self.lookups) as usize;
            let pb = ctx.bar(warm as u64 + self.lookups, &format!("cache hot set {h}"));
            // Warm-up: read the hot rows once (cycling through small sets), split across the
            // clients.
            client::run_clients(ctx.target, Some(DB), self.clients, &stop, |i, c| {
                let stmt = c.prep("SELECT c FROM sbtest1 WHERE id = ?")?;
                for n in (i..warm).step_by(self.clients) {
                    let _: Option<String> = c.exec_first(&stmt, (ids[n % ids.len()],))?;
                    pb.inc(1);
                }
                Ok(())
            })?;
            let per_client = self.lookups.div_ceil(self.clients as u64);
            let reads_before = counter.map(|c| c.read(&mut conn)).transpose()?;
            let t = Instant::now();
            let counts = client::run_clients(ctx.target, Some(DB), self.clients, &stop, |i, c| {
                let stmt = c.prep("SELECT c FROM sbtest1 WHERE id = ?")?;
                let mut rng = StdRng::seed_from_u64(self.seed ^ (h << 8) ^ i as u64);
                for n in 0..per_client {
                    let id = ids[rng.gen_range(0..ids.len())];
                    let _: Option<String> = c.exec_first(&stmt, (id,))?;
                    if n % 64 == 63 {
                        pb.inc(64);
                    }
                }
                Ok(per_client)
            })?;
            let secs = t.elapsed().as_secs_f64();
            pb.finish_and_clear();
            let done = counts.iter().sum::<u64>();
            let rate = done as f64 / secs;
            ctx.say(&format!("cache: hot set {h}: {rate:.0} lookups/s"));
            out.fig(
                format!("lookups/s, hot set {h}"),
                "1/s",
                rate,
                Better::Higher,
            );
            if let (Some(c), Some(b)) = (counter, reads_before) {
                let per_lookup = c.read(&mut conn)?.saturating_sub(b) as f64 / done as f64;
                let held = rows_in_memory(ids.len() as f64, per_lookup);
                ctx.say(&format!(
                    "cache: hot set {h}: {per_lookup:.3} storage reads per lookup"
                ));
                out.fig(
                    format!("storage reads per lookup, hot set {h}"),
                    "",
                    per_lookup,
                    Better::Lower,
                );
                in_memory.push(held);
            }
            points.push((ids.len() as f64, rate));
        }
        out.fig(
            "largest hot set at ≥ 50 % of the best rate",
            "rows",
            largest_in_memory(&points),
            Better::Higher,
        );
        if !in_memory.is_empty() {
            out.fig(
                "hot rows served from memory (best over the hot sets)",
                "rows",
                in_memory.iter().copied().fold(0.0, f64::max),
                Better::Higher,
            );
        }
        out.line(CHART, "", points);
        if ctx.cleanup {
            conn.query_drop(format!("DROP DATABASE {DB}"))?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_memory_knee() {
        // The reference's InnoDB figures (§10 row 3): the cache holds 6400 rows, not 12800.
        let pts = [
            (100.0, 4034.53),
            (200.0, 3896.96),
            (6400.0, 3771.73),
            (12800.0, 258.94),
            (102400.0, 118.81),
        ];
        assert_eq!(largest_in_memory(&pts), 6400.0);
        assert_eq!(largest_in_memory(&pts[..1]), 100.0);
        // A slow first set (cold start) does not lower the bar.
        let cold = [(100.0, 500.0), (1000.0, 4000.0), (10000.0, 1000.0)];
        assert_eq!(largest_in_memory(&cold), 1000.0);
        assert!(largest_in_memory(&[]).is_nan());
    }

    #[test]
    fn rows_held_from_reads_per_lookup() {
        assert_eq!(rows_in_memory(1000.0, 0.0), 1000.0);
        assert_eq!(rows_in_memory(1000.0, 0.25), 750.0);
        // several block reads per lookup count as nothing held, not as a negative
        assert_eq!(rows_in_memory(1000.0, 1.7), 0.0);
    }

    #[test]
    fn warmup_sizes() {
        assert_eq!(warmup_count(100, 20_000), 5000);
        assert_eq!(warmup_count(10_000, 20_000), 10_000);
        assert_eq!(warmup_count(102_400, 20_000), 20_000);
    }
}
