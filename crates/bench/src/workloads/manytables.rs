//! manytables (reference notes §2.12): create many tables of a few typical shapes, recording
//! the server's resident memory and the create rate against the number of tables.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use mysql::prelude::Queryable;

use super::{Ctx, Params, Unit};
use crate::chart::ChartSpec;
use crate::client;
use crate::machine::mib;
use crate::report::{Better, Outcome};
use crate::stats::IntervalRates;

const CHART_RSS: &str = "manytables-rss";
const CHART_RATE: &str = "manytables-rate";

/// Table shapes, used in rotation: iiBench's purchases, sysbench's sbtest, the DROP TABLE
/// benchmark's ts table, a UUID-keyed events table and an application-style table.
pub const SHAPES: [&str; 5] = [
    "(transactionid INT NOT NULL AUTO_INCREMENT, dateandtime DATETIME, \
     cashregisterid INT NOT NULL, customerid INT NOT NULL, productid INT NOT NULL, \
     price FLOAT NOT NULL, PRIMARY KEY (transactionid), KEY marketsegment (price, customerid))",
    "(id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, \
     c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', \
     PRIMARY KEY (id), KEY k_1 (k))",
    "(begin_time INT NOT NULL, end_time INT NOT NULL, PRIMARY KEY (begin_time))",
    "(id BINARY(16) NOT NULL, ts DATETIME NOT NULL, user_id INT NOT NULL, \
     payload VARCHAR(255), PRIMARY KEY (id), KEY user_ts (user_id, ts))",
    "(id BIGINT NOT NULL AUTO_INCREMENT, name VARCHAR(64) NOT NULL, email VARCHAR(128), \
     status TINYINT NOT NULL DEFAULT 0, created_at DATETIME NOT NULL, updated_at DATETIME NULL, \
     score DECIMAL(10,2), notes TEXT, PRIMARY KEY (id), UNIQUE KEY email (email), \
     KEY status_created (status, created_at))",
];

/// The `CREATE TABLE` of table number `i` (database `bench_mt_<i / per_db>`).
pub fn create_sql(i: u64, per_db: u64) -> String {
    format!(
        "CREATE TABLE {}.t_{i} {}",
        db_name(i / per_db),
        SHAPES[(i % SHAPES.len() as u64) as usize]
    )
}

/// The name of the `k`-th database.
pub fn db_name(k: u64) -> String {
    format!("bench_mt_{k}")
}

/// The manytables workload.
#[derive(Debug, Clone)]
pub struct ManyTables {
    /// Tables to create.
    pub tables: u64,
    /// Tables per database.
    pub per_db: u64,
    /// Creating clients.
    pub clients: usize,
}

impl ManyTables {
    /// From the parameters.
    pub fn new(p: &Params) -> ManyTables {
        ManyTables {
            tables: p.tables.max(1),
            per_db: p.tables_per_db.max(1),
            clients: p.manytables_clients.max(1),
        }
    }
}

impl Unit for ManyTables {
    fn workload(&self) -> &'static str {
        "manytables"
    }

    fn title(&self) -> String {
        format!("manytables: create {} tables", self.tables)
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("tables".into(), self.tables.to_string()),
            ("tables per database".into(), self.per_db.to_string()),
            ("clients".into(), self.clients.to_string()),
            ("shapes (in rotation)".into(), SHAPES.len().to_string()),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![
            ChartSpec::new(
                CHART_RSS,
                "manytables: server RSS vs tables",
                "tables created",
                "resident memory (MiB)",
            ),
            ChartSpec::new(
                CHART_RATE,
                "manytables: CREATE TABLE rate vs tables",
                "tables created",
                "tables created per second",
            ),
        ]
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "Shapes: iiBench purchases (1 secondary index), sbtest, the ts table of the DROP \
             TABLE benchmark, a UUID-keyed events table, an application table with a UNIQUE \
             key. RSS is VmRSS of the server process from /proc."
                .into(),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        let dbs = self.tables.div_ceil(self.per_db);
        for k in 0..dbs {
            conn.query_drop(format!("DROP DATABASE IF EXISTS {}", db_name(k)))?;
            conn.query_drop(format!("CREATE DATABASE {}", db_name(k)))?;
        }
        let mut out = Outcome::default();
        let rss0 = ctx.target.rss_bytes();
        let disk0 = ctx.disk_now();
        let step = (self.tables / 20).max(1);
        let next = AtomicU64::new(0);
        let done = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let finished = AtomicBool::new(false);
        let pb = ctx.bar(self.tables, "manytables");
        let start = Instant::now();
        let mut rates = IntervalRates::new(step, start);
        let mut rss_points = Vec::new();
        if let Some(r) = rss0 {
            rss_points.push((0.0, mib(r)));
        }
        let r = std::thread::scope(|s| {
            let monitor = s.spawn(|| {
                let mut next_rss = step;
                while !finished.load(Ordering::SeqCst) {
                    let d = done.load(Ordering::SeqCst);
                    rates.observe(d, Instant::now());
                    if d >= next_rss {
                        if let Some(r) = ctx.target.rss_bytes() {
                            rss_points.push((d as f64, mib(r)));
                        }
                        next_rss = (d / step + 1) * step;
                    }
                    pb.set_position(d);
                    std::thread::sleep(Duration::from_millis(10));
                }
            });
            let r = client::run_clients(ctx.target, None, self.clients, &stop, |_, c| loop {
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= self.tables {
                    return Ok(());
                }
                c.query_drop(create_sql(i, self.per_db))?;
                done.fetch_add(1, Ordering::SeqCst);
            });
            finished.store(true, Ordering::SeqCst);
            let _ = monitor.join();
            r
        });
        r?;
        let secs = start.elapsed().as_secs_f64();
        let created = done.load(Ordering::SeqCst);
        rates.finish(created, Instant::now());
        pb.finish_and_clear();
        ctx.say(&format!("manytables: {created} tables in {secs:.1} s"));
        out.fig("tables created", "", created as f64, Better::Neither);
        out.fig("total time", "s", secs, Better::Lower);
        out.fig("creates/s", "1/s", created as f64 / secs, Better::Higher);
        if let (Some(f), Some(l)) = (rates.points.first(), rates.points.last()) {
            out.fig("first interval creates/s", "1/s", f.1, Better::Higher);
            out.fig("last interval creates/s", "1/s", l.1, Better::Higher);
        }
        match (rss0, ctx.target.rss_bytes()) {
            (Some(a), Some(b)) => {
                if rss_points.last().map(|p| p.0) != Some(created as f64) {
                    rss_points.push((created as f64, mib(b)));
                }
                out.fig("RSS of the empty server", "MiB", mib(a), Better::Lower);
                out.fig("RSS at the end", "MiB", mib(b), Better::Lower);
                let growth = b as f64 - a as f64;
                out.fig(
                    "RSS growth",
                    "MiB",
                    growth / (1u64 << 20) as f64,
                    Better::Lower,
                );
                out.fig(
                    "RSS growth per 1000 tables",
                    "KiB",
                    growth / 1024.0 / (created as f64 / 1000.0),
                    Better::Lower,
                );
            }
            _ => out
                .notes
                .push("RSS not measured: the server's pid is unknown (pass --server-pid)".into()),
        }
        if let (Some(a), Some(b)) = (disk0, ctx.disk_now()) {
            out.fig(
                "data directory growth",
                "MiB",
                mib(b.saturating_sub(a)),
                Better::Lower,
            );
        }
        out.line(CHART_RSS, "", rss_points);
        out.line(CHART_RATE, "", rates.points.clone());
        if ctx.cleanup {
            for k in 0..dbs {
                conn.query_drop(format!("DROP DATABASE {}", db_name(k)))?;
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_shapes() {
        assert_eq!(
            create_sql(1001, 1000),
            format!("CREATE TABLE bench_mt_1.t_1001 {}", SHAPES[1])
        );
        assert!(create_sql(4, 1000).contains("UNIQUE KEY email"));
    }
}
