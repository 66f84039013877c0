//! mvcc (reference notes §10 row 11): hot-row updates (pareto) from many clients, first alone,
//! then while one connection runs `SELECT AVG(k)` over the whole table again and again;
//! foreground tps and p95 latency with and without the scan, and the scan times.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Result;
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::{is_lock_error, load_sbtest, Ctx, Params, Unit};
use crate::chart::ChartSpec;
use crate::client::{self, fresh_database};
use crate::gen::Pareto;
use crate::report::{Better, Outcome};
use crate::stats::{mean, percentile};

const DB: &str = "bench_mvcc";
const CHART_TPS: &str = "mvcc-tps";
const CHART_SCAN: &str = "mvcc-scan";

/// The mvcc workload.
#[derive(Debug, Clone)]
pub struct Mvcc {
    /// Table rows.
    pub rows: u64,
    /// Updating clients.
    pub clients: usize,
    /// Seconds per phase.
    pub seconds: u64,
    /// Scans share one consistent snapshot.
    pub snapshot: bool,
    /// Seed.
    pub seed: u64,
}

impl Mvcc {
    /// From the parameters.
    pub fn new(p: &Params) -> Mvcc {
        Mvcc {
            rows: p.mvcc_rows.max(1),
            clients: p.mvcc_clients.max(1),
            seconds: p.mvcc_seconds.max(1),
            snapshot: p.mvcc_snapshot,
            seed: p.seed,
        }
    }
}

/// What one phase measured.
#[derive(Debug, Default)]
struct Phase {
    tps: f64,
    p95_ms: f64,
    errors: u64,
    per_second: Vec<(f64, f64)>,
    scans: Vec<f64>,
}

impl Mvcc {
    fn phase(&self, ctx: &Ctx, with_scan: bool) -> Result<Phase> {
        let deadline = Instant::now() + Duration::from_secs(self.seconds);
        let buckets: Vec<AtomicU64> = (0..self.seconds + 1).map(|_| AtomicU64::new(0)).collect();
        let errors = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let scans = Mutex::new(Vec::new());
        let pareto = Pareto::new(1, self.rows, 0.2);
        let start = Instant::now();
        let label = if with_scan { "with scan" } else { "no scan" };
        let pb = ctx.bar(self.seconds, &format!("mvcc {label} (seconds)"));
        let lat = std::thread::scope(|s| -> Result<Vec<Vec<f64>>> {
            let scanner = with_scan.then(|| {
                s.spawn(|| -> Result<()> {
                    let mut c = ctx.target.connect(Some(DB))?;
                    if self.snapshot {
                        c.query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT")?;
                    }
                    while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
                        let t = Instant::now();
                        let _: Option<Option<String>> =
                            c.query_first("SELECT AVG(k) FROM sbtest1")?;
                        scans.lock().unwrap_or_else(|p| p.into_inner()).push((
                            t.duration_since(start).as_secs_f64(),
                            t.elapsed().as_secs_f64(),
                        ));
                    }
                    if self.snapshot {
                        c.query_drop("COMMIT")?;
                    }
                    Ok(())
                })
            });
            let lat = client::run_clients(ctx.target, Some(DB), self.clients, &stop, |i, c| {
                let stmt = c.prep("UPDATE sbtest1 SET k = k + 1 WHERE id = ?")?;
                let mut rng = StdRng::seed_from_u64(self.seed.wrapping_mul(131) + i as u64);
                let mut lat = Vec::new();
                loop {
                    let now = Instant::now();
                    if now >= deadline {
                        return Ok(lat);
                    }
                    let id = pareto.sample(&mut rng);
                    match c.exec_drop(&stmt, (id,)) {
                        Ok(()) => {
                            let done = Instant::now();
                            lat.push(done.duration_since(now).as_secs_f64() * 1000.0);
                            let sec = done.duration_since(start).as_secs() as usize;
                            if let Some(b) = buckets.get(sec) {
                                b.fetch_add(1, Ordering::Relaxed);
                            }
                            if i == 0 {
                                pb.set_position(sec as u64);
                            }
                        }
                        Err(e) if is_lock_error(&e) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            });
            if let Some(h) = scanner {
                match h.join() {
                    Ok(r) => r?,
                    Err(_) => anyhow::bail!("the scan thread panicked"),
                }
            }
            lat
        })?;
        pb.finish_and_clear();
        let secs = start
            .elapsed()
            .as_secs_f64()
            .min(self.seconds as f64)
            .max(1e-9);
        let mut all: Vec<f64> = lat.into_iter().flatten().collect();
        let n = all.len();
        let per_second = buckets
            .iter()
            .take(self.seconds as usize)
            .enumerate()
            .map(|(i, b)| ((i + 1) as f64, b.load(Ordering::Relaxed) as f64))
            .collect();
        let scans = scans.into_inner().unwrap_or_else(|p| p.into_inner());
        Ok(Phase {
            tps: n as f64 / secs,
            p95_ms: percentile(&mut all, 95.0),
            errors: errors.load(Ordering::Relaxed),
            per_second,
            scans: scans.iter().map(|s| s.1).collect(),
        })
    }
}

impl Unit for Mvcc {
    fn workload(&self) -> &'static str {
        "mvcc"
    }

    fn title(&self) -> String {
        "mvcc: hot-row updates while a long report scans the table".into()
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("table rows".into(), self.rows.to_string()),
            ("updating clients".into(), self.clients.to_string()),
            ("seconds per phase".into(), self.seconds.to_string()),
            (
                "update".into(),
                "UPDATE sbtest1 SET k = k + 1 WHERE id = ? (pareto h = 0.2)".into(),
            ),
            (
                "scans".into(),
                if self.snapshot {
                    "SELECT AVG(k) FROM sbtest1, repeated in one transaction WITH CONSISTENT SNAPSHOT"
                        .into()
                } else {
                    "SELECT AVG(k) FROM sbtest1, repeated (autocommit)".into()
                },
            ),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![
            ChartSpec::new(
                CHART_TPS,
                "mvcc: foreground updates per second",
                "second of the phase",
                "updates per second",
            ),
            ChartSpec::new(
                CHART_SCAN,
                "mvcc: duration of each SELECT AVG(k)",
                "scan number",
                "seconds",
            ),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        fresh_database(&mut conn, DB)?;
        load_sbtest(ctx, DB, "sbtest1", self.rows)?;
        let a = self.phase(ctx, false)?;
        ctx.say(&format!("mvcc without scan: {:.0} tps", a.tps));
        let b = self.phase(ctx, true)?;
        ctx.say(&format!(
            "mvcc with scan: {:.0} tps, {} scans",
            b.tps,
            b.scans.len()
        ));
        let mut out = Outcome::default();
        out.fig("tps without the scan", "1/s", a.tps, Better::Higher);
        out.fig("tps with the scan", "1/s", b.tps, Better::Higher);
        out.fig("with / without", "×", b.tps / a.tps, Better::Higher);
        out.fig(
            "p95 latency without the scan",
            "ms",
            a.p95_ms,
            Better::Lower,
        );
        out.fig("p95 latency with the scan", "ms", b.p95_ms, Better::Lower);
        out.fig("scans completed", "", b.scans.len() as f64, Better::Higher);
        out.fig("average scan time", "s", mean(&b.scans), Better::Lower);
        if let (Some(f), Some(l)) = (b.scans.first(), b.scans.last()) {
            out.fig("first scan", "s", *f, Better::Lower);
            out.fig("last scan", "s", *l, Better::Lower);
        }
        out.fig(
            "lock errors (1205/1213), both phases",
            "",
            (a.errors + b.errors) as f64,
            Better::Lower,
        );
        out.line(CHART_TPS, "no scan", a.per_second);
        out.line(CHART_TPS, "with scan", b.per_second);
        out.line(
            CHART_SCAN,
            "",
            b.scans
                .iter()
                .enumerate()
                .map(|(i, s)| ((i + 1) as f64, *s))
                .collect(),
        );
        if ctx.cleanup {
            conn.query_drop(format!("DROP DATABASE {DB}"))?;
        }
        Ok(out)
    }
}
