//! iibench (reference notes §6.1): concurrent clients insert into iiBench's `purchases` table,
//! with its three secondary indexes (`purchases_index`) or without (`purchases_noindex`);
//! the insert rate per interval against the rows loaded, and the size on disk.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Ctx, Params, Unit, PURCHASES_ROW_BYTES};
use crate::chart::ChartSpec;
use crate::client::{self, fresh_database};
use crate::report::{Better, Outcome};
use crate::stats::IntervalRates;

const DB: &str = "bench_iibench";

/// One variant: with or without the secondary indexes, at one INSERT size.
#[derive(Debug, Clone)]
pub struct IiBench {
    /// With the three secondary indexes.
    pub indexed: bool,
    /// Rows per INSERT statement.
    pub batch: u64,
    /// Rows to insert.
    pub rows: u64,
    /// Concurrent clients.
    pub clients: usize,
    /// Number of reporting intervals.
    pub intervals: u64,
    /// Seed.
    pub seed: u64,
}

/// The variants requested by the parameters.
pub fn units(p: &Params) -> Result<Vec<Box<dyn Unit>>> {
    let rows = p
        .rows
        .unwrap_or_else(|| (10 * p.cache_bytes()).div_ceil(PURCHASES_ROW_BYTES));
    let mut out: Vec<Box<dyn Unit>> = Vec::new();
    for v in &p.iibench_variants {
        let indexed = match v.as_str() {
            "index" => true,
            "noindex" => false,
            other => bail!("unknown iibench variant '{other}' (index, noindex)"),
        };
        for &batch in &p.iibench_batch {
            if batch == 0 {
                bail!("--iibench-batch must be at least 1");
            }
            out.push(Box::new(IiBench {
                indexed,
                batch,
                rows,
                clients: p.iibench_clients.max(1),
                intervals: p.iibench_intervals.max(1),
                seed: p.seed,
            }));
        }
    }
    Ok(out)
}

/// The `CREATE TABLE` of the reference's purchases table (without its partitioning).
pub fn ddl(indexed: bool) -> String {
    let name = table(indexed);
    let mut s = format!(
        "CREATE TABLE {name} (\
         transactionid INT NOT NULL AUTO_INCREMENT, \
         dateandtime DATETIME DEFAULT NULL, \
         cashregisterid INT NOT NULL, \
         customerid INT NOT NULL, \
         productid INT NOT NULL, \
         price FLOAT NOT NULL, \
         PRIMARY KEY (transactionid)"
    );
    if indexed {
        s.push_str(
            ", KEY marketsegment (price, customerid), \
             KEY registersegment (cashregisterid, price, customerid), \
             KEY pdc (price, dateandtime, customerid)",
        );
    }
    s.push(')');
    s
}

fn table(indexed: bool) -> &'static str {
    if indexed {
        "purchases_index"
    } else {
        "purchases_noindex"
    }
}

/// Appends `n` rows of iiBench-like values to an INSERT statement.
pub fn push_rows<R: Rng>(sql: &mut String, rng: &mut R, n: u64, now: &str) {
    for j in 0..n {
        if j > 0 {
            sql.push(',');
        }
        let _ = write!(
            sql,
            "('{now}',{},{},{},{:.2})",
            rng.gen_range(0..1000),
            rng.gen_range(0..100_000),
            rng.gen_range(0..10_000),
            rng.gen_range(0.0..500.0f64)
        );
    }
}

impl IiBench {
    fn chart_id(&self) -> String {
        format!(
            "iibench-{}-b{}",
            if self.indexed { "index" } else { "noindex" },
            self.batch
        )
    }
}

impl Unit for IiBench {
    fn workload(&self) -> &'static str {
        "iibench"
    }

    fn title(&self) -> String {
        format!(
            "iibench: {} ({}), {} row{} per INSERT",
            table(self.indexed),
            if self.indexed {
                "PK + 3 secondary indexes"
            } else {
                "PK only"
            },
            self.batch,
            if self.batch == 1 { "" } else { "s" }
        )
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("rows".into(), self.rows.to_string()),
            ("clients".into(), self.clients.to_string()),
            ("rows per INSERT".into(), self.batch.to_string()),
            ("intervals".into(), self.intervals.to_string()),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![ChartSpec::new(
            &self.chart_id(),
            &format!("iibench {}: insert rate vs rows loaded", self.title_short()),
            "rows loaded",
            "rows inserted per second",
        )]
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "The table is not partitioned (the reference partitions at 100 M rows per \
             partition, far more than these runs insert). Each INSERT is one autocommit \
             transaction."
                .into(),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        fresh_database(&mut conn, DB)?;
        conn.query_drop(format!("USE {DB}"))?;
        conn.query_drop(ddl(self.indexed))?;
        let before = ctx.disk_now();
        let name = table(self.indexed);
        let claimed = AtomicU64::new(0);
        let done = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let finished = AtomicBool::new(false);
        let step = (self.rows / self.intervals).max(self.batch);
        let pb = ctx.bar(self.rows, &format!("iibench {}", self.title_short()));
        let start = Instant::now();
        let mut rates = IntervalRates::new(step, start);
        let result = std::thread::scope(|s| {
            let monitor = s.spawn(|| {
                while !finished.load(Ordering::SeqCst) {
                    let d = done.load(Ordering::SeqCst);
                    rates.observe(d, Instant::now());
                    pb.set_position(d);
                    std::thread::sleep(Duration::from_millis(10));
                }
            });
            let r = client::run_clients(ctx.target, Some(DB), self.clients, &stop, |i, c| {
                let mut rng = StdRng::seed_from_u64(self.seed.wrapping_mul(31) + i as u64);
                let mut sql = String::new();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        return Ok(());
                    }
                    let first = claimed.fetch_add(self.batch, Ordering::SeqCst);
                    if first >= self.rows {
                        return Ok(());
                    }
                    let n = self.batch.min(self.rows - first);
                    let now = chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string();
                    sql.clear();
                    let _ = write!(
                        sql,
                        "INSERT INTO {name} (dateandtime, cashregisterid, customerid, \
                         productid, price) VALUES "
                    );
                    push_rows(&mut sql, &mut rng, n, &now);
                    c.query_drop(&sql)?;
                    done.fetch_add(n, Ordering::SeqCst);
                }
            });
            finished.store(true, Ordering::SeqCst);
            let _ = monitor.join();
            r
        });
        result?;
        let elapsed = start.elapsed();
        let loaded = done.load(Ordering::SeqCst);
        rates.finish(loaded, Instant::now());
        pb.finish_and_clear();
        ctx.say(&format!(
            "iibench {}: {loaded} rows in {:.1} s",
            self.title_short(),
            elapsed.as_secs_f64()
        ));

        let mut out = Outcome::default();
        let secs = elapsed.as_secs_f64();
        out.fig("rows loaded", "rows", loaded as f64, Better::Neither);
        out.fig("load time", "s", secs, Better::Lower);
        out.fig(
            "average insert rate",
            "rows/s",
            loaded as f64 / secs,
            Better::Higher,
        );
        let pts = rates.points.as_slice();
        // The last interval may be a short remainder; compare the first and the last full one.
        let mut full: &[(f64, f64)] = pts;
        if let [.., a, b] = pts {
            if b.0 - a.0 < step as f64 / 2.0 {
                full = &pts[..pts.len() - 1];
            }
        }
        if let (Some(first), Some(last)) = (full.first(), full.last()) {
            out.fig("first interval rate", "rows/s", first.1, Better::Higher);
            out.fig("last interval rate", "rows/s", last.1, Better::Higher);
            out.fig(
                "last / first interval",
                "×",
                last.1 / first.1,
                Better::Higher,
            );
            if let Some(r) = last_over_first_tenth(full) {
                out.fig("last / first tenth", "×", r, Better::Higher);
            }
            let min = full.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            out.fig("lowest interval rate", "rows/s", min, Better::Higher);
        }
        ctx.size_figures(&mut out, &mut conn, DB, before, loaded)?;
        out.line(&self.chart_id(), "", rates.points.clone());
        if ctx.cleanup {
            conn.query_drop(format!("DROP DATABASE {DB}"))?;
        }
        Ok(out)
    }
}

/// The insert rate over the last tenth of the intervals (at least one) divided by the rate
/// over the first tenth; each rate is rows over time (the intervals hold equal row counts, so
/// the harmonic mean of their rates). The single-interval ratio next to it depends on where
/// one short interval falls against the flushes: at 100k rows/s an interval of 50 lasts
/// a fraction of a second, and one flush or one slow fsync decides it.
fn last_over_first_tenth(points: &[(f64, f64)]) -> Option<f64> {
    let k = (points.len() / 10).max(1);
    if points.len() < 2 * k {
        return None;
    }
    let rate = |p: &[(f64, f64)]| p.len() as f64 / p.iter().map(|q| 1.0 / q.1).sum::<f64>();
    Some(rate(&points[points.len() - k..]) / rate(&points[..k]))
}

impl IiBench {
    fn title_short(&self) -> String {
        format!(
            "{}, {}/INSERT",
            if self.indexed {
                "3 indexes"
            } else {
                "no index"
            },
            self.batch
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flatness_over_tenths_uses_rows_over_time() {
        // 20 intervals: the first two at 100 and 300 rows/s, the last two at 50 and 150
        let mut pts: Vec<(f64, f64)> = (0..20).map(|i| (i as f64, 200.0)).collect();
        pts[0].1 = 100.0;
        pts[1].1 = 300.0;
        pts[18].1 = 50.0;
        pts[19].1 = 150.0;
        // harmonic means: 150 rows/s and 75 rows/s
        let r = last_over_first_tenth(&pts).unwrap();
        assert!((r - 0.5).abs() < 1e-9, "{r}");
        assert_eq!(last_over_first_tenth(&pts[..1]), None);
        assert_eq!(
            last_over_first_tenth(&[(0.0, 10.0), (1.0, 20.0)]),
            Some(2.0)
        );
    }

    #[test]
    fn ddl_variants() {
        let d = ddl(true);
        assert!(d.starts_with("CREATE TABLE purchases_index ("));
        assert!(d.contains("KEY registersegment (cashregisterid, price, customerid)"));
        assert!(d.contains("KEY pdc (price, dateandtime, customerid)"));
        let n = ddl(false);
        assert!(n.starts_with("CREATE TABLE purchases_noindex ("));
        assert!(!n.contains("KEY marketsegment"));
    }

    #[test]
    fn row_values() {
        let mut rng = StdRng::seed_from_u64(1);
        let mut s = String::new();
        push_rows(&mut s, &mut rng, 3, "2024-01-02 03:04:05");
        assert_eq!(s.matches("('2024-01-02 03:04:05',").count(), 3);
        assert_eq!(s.matches("),(").count(), 2);
    }

    #[test]
    fn default_rows_are_ten_times_the_cache() {
        use clap::Parser;
        #[derive(Parser)]
        struct P {
            #[command(flatten)]
            p: Params,
        }
        let p = P::parse_from(["x", "--cache-mb", "16"]).p;
        let u = units(&p).unwrap();
        let rows: u64 = u[0].params()[0].1.parse().unwrap();
        assert_eq!(rows, (160u64 << 20).div_ceil(181));
        assert!(u[0].title().contains("PK + 3 secondary indexes"));
    }
}
