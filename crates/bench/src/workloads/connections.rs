//! connections (issue 6, reference notes §3): how throughput holds up with many concurrently
//! active client connections, and how fast new connections are accepted.
//!
//! Two units, each on its own fresh server instance in `compare`:
//! * sysbench `oltp_point_select` and `oltp_read_write` at 16 … 4096 threads (one connection
//!   each): tps and p95 per thread count, and each server's tps as a share of its *own* peak
//!   over the thread counts — the figure a thread pool exists for (a thread-per-connection
//!   server typically collapses at thousands of active connections);
//! * a connect/disconnect storm: connects scheduled at a fixed rate (open loop: the schedule
//!   does not wait for slow connects), each a full handshake + authentication + COM_QUIT,
//!   measuring the achieved rate, connect latency percentiles, timeouts and errors.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use mysql::prelude::Queryable;

use super::{Ctx, Params, Unit};
use crate::chart::ChartSpec;
use crate::client::{self, fresh_database};
use crate::machine;
use crate::report::{Better, Outcome};
use crate::stats::percentile;
use crate::sysbench::{
    connection_args, parse_output, sysbench, sysbench_run_forced, SysbenchResult,
};

const DB: &str = "sbconn";

/// The note that states the goal of issue 6, printed under both sections.
const TARGET: &str = "target (issue 6): at 1024 and 4096 threads a thread pool keeps \
                      throughput ≥ 80 % of its own peak; a storm of 1000 connects/s sees no \
                      connect timeouts";

/// The units of the `connections` workload.
///
/// # Errors
/// When a thread count or the storm rate is zero.
pub fn units(p: &Params) -> Result<Vec<Box<dyn Unit>>> {
    if p.conn_threads.is_empty() || p.conn_threads.contains(&0) {
        anyhow::bail!("--conn-threads needs thread counts above 0");
    }
    if p.storm_rate == 0 || p.storm_clients == 0 {
        anyhow::bail!("--storm-rate and --storm-clients must be above 0");
    }
    Ok(vec![
        Box::new(ConnSysbench::new(p)),
        Box::new(Storm::new(p)),
    ])
}

/// sysbench at growing thread counts.
#[derive(Debug, Clone)]
pub struct ConnSysbench {
    /// Test names.
    pub tests: Vec<String>,
    /// Thread counts, ascending.
    pub threads: Vec<usize>,
    /// Seconds per run.
    pub time: u64,
    /// Tables.
    pub tables: u64,
    /// Rows per table.
    pub table_size: u64,
}

impl ConnSysbench {
    /// From the parameters.
    pub fn new(p: &Params) -> ConnSysbench {
        let mut threads = p.conn_threads.clone();
        threads.sort_unstable();
        threads.dedup();
        ConnSysbench {
            tests: p.conn_tests.clone(),
            threads,
            time: p.conn_time.max(1),
            tables: p.conn_tables.max(1),
            table_size: p.conn_table_size.max(1),
        }
    }
}

/// `value` as a percentage of `peak` (NaN when either is unknown).
pub fn share_of_peak(value: f64, peak: f64) -> f64 {
    if value.is_finite() && peak.is_finite() && peak > 0.0 {
        100.0 * value / peak
    } else {
        f64::NAN
    }
}

/// The largest finite value (NaN when there is none).
pub fn peak(values: &[f64]) -> f64 {
    values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(f64::NAN, f64::max)
}

impl Unit for ConnSysbench {
    fn workload(&self) -> &'static str {
        "connections"
    }

    fn title(&self) -> String {
        "connections: sysbench at many concurrent connections".into()
    }

    fn params(&self) -> Vec<(String, String)> {
        let threads: Vec<String> = self.threads.iter().map(usize::to_string).collect();
        vec![
            ("tests".into(), self.tests.join(", ")),
            ("threads".into(), threads.join(", ")),
            ("seconds per run".into(), self.time.to_string()),
            (
                "tables × rows".into(),
                format!("{} × {}", self.tables, self.table_size),
            ),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        let mut c = Vec::new();
        for t in &self.tests {
            c.push(
                ChartSpec::new(
                    &format!("connections-{t}"),
                    &format!("{t}: tps vs concurrent connections"),
                    "threads = connections (log scale)",
                    "transactions per second",
                )
                .log_x(),
            );
            c.push(
                ChartSpec::new(
                    &format!("connections-{t}-peak"),
                    &format!("{t}: tps as % of the server's own peak"),
                    "threads = connections (log scale)",
                    "% of own peak",
                )
                .log_x(),
            );
        }
        c
    }

    fn notes(&self) -> Vec<String> {
        vec![
            TARGET.into(),
            "\"% of own peak\" divides each thread count's tps by the best tps the same server \
             reached at any thread count of the same test."
                .into(),
            "sysbench runs on the same machine, one client thread per connection, stopped 5 s \
             after the run time at the latest (--forced-shutdown=5; transactions still running \
             then are not counted), with its defaults otherwise (server-side prepared statements, deadlocks and lock wait \
             timeouts ignored and counted); a thread count that failed shows – and a note."
                .into(),
            machine::CPU_PER_TXN_NOTE.into(),
            machine::CLIENT_CPU_NOTE.into(),
            "The CPU figures include the time sysbench spends connecting its threads and \
             preparing statements before its timer starts, which grows with the thread count. \
             When the two together reach the machine's CPU capacity (CPUs × run time / \
             transactions), the run was CPU-bound."
                .into(),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        fresh_database(&mut conn, DB)?;
        let mut base = connection_args(ctx.target, DB);
        base.push(format!("--tables={}", self.tables));
        base.push(format!("--table-size={}", self.table_size));
        ctx.say(&format!(
            "connections: prepare {} × {} rows",
            self.tables, self.table_size
        ));
        let mut prep = base.clone();
        prep.push(format!("--threads={}", self.tables.min(4)));
        sysbench("oltp_read_write", &prep, "prepare")?;
        let mut out = Outcome::default();
        let mut total = machine::CpuSplit::zero();
        let pb = ctx.bar(
            (self.tests.len() * self.threads.len()) as u64,
            "sysbench runs",
        );
        for test in &self.tests {
            let mut results: Vec<Option<SysbenchResult>> = Vec::new();
            let mut cpus: Vec<machine::CpuSplit> = Vec::new();
            for &t in &self.threads {
                let mut args = base.clone();
                args.push(format!("--threads={t}"));
                args.push(format!("--time={}", self.time));
                args.push("--report-interval=0".into());
                // Transactions that take far longer than the run (lock waits at thousands of
                // threads) would keep sysbench waiting for them: it reports after 5 s more.
                // (sysbench 1.0 gives its threads a fixed 30 s to connect and prepare; 1.1's
                // --thread-init-timeout does not exist there.)
                args.push("--forced-shutdown=5".into());
                let cpu0 = machine::CpuMark::now(ctx.target.server_pid);
                let r = sysbench_run_forced(test, &args)
                    .and_then(|(o, forced)| Ok((parse_output(&o)?, forced)));
                let cpu = cpu0.split(r.as_ref().ok().map(|(r, _)| r.tps * self.time as f64));
                total.server_s += cpu.server_s;
                total.client_s += cpu.client_s;
                cpus.push(cpu);
                pb.inc(1);
                match r {
                    Ok((r, forced)) => {
                        if forced {
                            out.notes.push(format!(
                                "{test} at {t} threads: sysbench forced the shutdown 5 s after \
                                 the run time (transactions were still running)"
                            ));
                        }
                        pb.suspend(|| {
                            ctx.say(&format!(
                                "{test} {t} threads: {:.0} tps, p95 {:.2} ms",
                                r.tps, r.p95_ms
                            ))
                        });
                        if r.errors_per_s > 0.0 {
                            out.notes.push(format!(
                                "{test} at {t} threads: {:.2} ignored errors/s",
                                r.errors_per_s
                            ));
                        }
                        results.push(Some(r));
                    }
                    Err(e) => {
                        let msg = format!("{e:#}");
                        let msg: String = msg.chars().take(300).collect();
                        pb.suspend(|| ctx.say(&format!("{test} {t} threads failed: {msg}")));
                        out.notes
                            .push(format!("{test} at {t} threads failed: {msg}"));
                        results.push(None);
                    }
                }
            }
            let tps: Vec<f64> = results
                .iter()
                .map(|r| r.map_or(f64::NAN, |r| r.tps))
                .collect();
            let top = peak(&tps);
            let mut points = Vec::new();
            let mut shares = Vec::new();
            for (i, &t) in self.threads.iter().enumerate() {
                let share = share_of_peak(tps[i], top);
                out.fig(
                    format!("{test}, {t} thr: tps"),
                    "1/s",
                    tps[i],
                    Better::Higher,
                );
                out.fig(
                    format!("{test}, {t} thr: % of own peak"),
                    "%",
                    share,
                    Better::Higher,
                );
                out.fig(
                    format!("{test}, {t} thr: p95"),
                    "ms",
                    results[i].map_or(f64::NAN, |r| r.p95_ms),
                    Better::Lower,
                );
                out.cpu_per_txn_split(&format!("{test}, {t} thr"), &cpus[i]);
                if tps[i].is_finite() {
                    points.push((t as f64, tps[i]));
                    shares.push((t as f64, share));
                }
            }
            out.fig(format!("{test}: peak tps"), "1/s", top, Better::Higher);
            let at = self
                .threads
                .iter()
                .zip(&tps)
                .find(|(_, v)| **v == top)
                .map_or(f64::NAN, |(t, _)| *t as f64);
            out.fig(format!("{test}: peak at"), "threads", at, Better::Neither);
            out.line(&format!("connections-{test}"), "", points);
            out.line(&format!("connections-{test}-peak"), "", shares);
        }
        pb.finish_and_clear();
        out.fig("server CPU, all runs", "s", total.server_s, Better::Lower);
        out.fig("client CPU, all runs", "s", total.client_s, Better::Neither);
        if ctx.cleanup {
            conn.query_drop(format!("DROP DATABASE {DB}"))?;
        }
        Ok(out)
    }
}

/// The connect/disconnect storm.
#[derive(Debug, Clone)]
pub struct Storm {
    /// Target connects per second.
    pub rate: u64,
    /// Duration in seconds.
    pub seconds: u64,
    /// Connecting client threads.
    pub clients: usize,
    /// A connect slower than this counts as a timeout.
    pub timeout: Duration,
}

/// What happened to one scheduled connect.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Attempt {
    /// Connected (latency in ms).
    Ok(f64),
    /// Timed out (a step exceeded the timeout, or the whole connect took longer).
    Timeout,
    /// Refused or failed otherwise.
    Error,
}

/// Whether a connect error is a timeout: an I/O timeout of the TCP connect or of a
/// handshake read/write.
fn is_timeout(e: &mysql::Error) -> bool {
    match e {
        mysql::Error::IoError(io) => matches!(
            io.kind(),
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
        ),
        mysql::Error::DriverError(mysql::DriverError::ConnectTimeout) => true,
        _ => false,
    }
}

/// The storm's figures from every attempt's outcome, the time from the first scheduled
/// connect to the last completion, and the largest delay of a connect's start behind its slot.
#[derive(Debug, Clone, PartialEq)]
pub struct StormSummary {
    /// Scheduled connects.
    pub attempts: usize,
    /// Successful connects per second over the storm's wall time.
    pub rate: f64,
    /// Latency percentiles of the successful connects, ms.
    pub p50: f64,
    /// 99th percentile, ms.
    pub p99: f64,
    /// Slowest successful connect, ms.
    pub max: f64,
    /// Timeouts.
    pub timeouts: usize,
    /// Other errors.
    pub errors: usize,
}

/// Summarises the attempts of a storm that lasted `wall`.
pub fn summarize(attempts: &[Attempt], wall: Duration) -> StormSummary {
    let mut lat: Vec<f64> = attempts
        .iter()
        .filter_map(|a| match a {
            Attempt::Ok(ms) => Some(*ms),
            _ => None,
        })
        .collect();
    let ok = lat.len();
    StormSummary {
        attempts: attempts.len(),
        rate: ok as f64 / wall.as_secs_f64().max(1e-9),
        p50: percentile(&mut lat, 50.0),
        p99: percentile(&mut lat, 99.0),
        max: percentile(&mut lat, 100.0),
        timeouts: attempts.iter().filter(|a| **a == Attempt::Timeout).count(),
        errors: attempts.iter().filter(|a| **a == Attempt::Error).count(),
    }
}

impl Storm {
    /// From the parameters.
    pub fn new(p: &Params) -> Storm {
        Storm {
            rate: p.storm_rate.max(1),
            seconds: p.storm_seconds.max(1),
            clients: p.storm_clients.max(1),
            timeout: Duration::from_millis(p.storm_timeout_ms.max(1)),
        }
    }
}

/// `SHOW GLOBAL STATUS` value of `name` as a number (NaN when missing).
fn status(conn: &mut mysql::Conn, name: &str) -> f64 {
    client::global_status(conn, name)
        .ok()
        .flatten()
        .map_or(f64::NAN, |v| v as f64)
}

impl Unit for Storm {
    fn workload(&self) -> &'static str {
        "connections"
    }

    fn title(&self) -> String {
        format!(
            "connections: connect/disconnect storm at {} connects/s",
            self.rate
        )
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("target rate".into(), format!("{} connects/s", self.rate)),
            ("duration".into(), format!("{} s", self.seconds)),
            ("connecting threads".into(), self.clients.to_string()),
            (
                "timeout".into(),
                format!("{} ms per connect", self.timeout.as_millis()),
            ),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![ChartSpec::new(
            "connections-storm",
            "connect latency over the storm (per 100 ms: slowest connect)",
            "seconds since the storm began",
            "connect latency, ms",
        )]
    }

    fn notes(&self) -> Vec<String> {
        vec![
            TARGET.into(),
            "each connect is scheduled at its slot of the target rate (open loop) and is a TCP \
             connect + handshake + authentication as root without a password, then COM_QUIT; \
             latency runs from the connect's start to the end of authentication; a timeout is \
             a step (TCP connect, a handshake read or write) exceeding the timeout"
                .into(),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut admin = ctx.target.connect(None)?;
        let aborted_before = status(&mut admin, "Aborted_connects");
        let total = (self.rate * self.seconds) as usize;
        let interval = Duration::from_secs_f64(1.0 / self.rate as f64);
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(f64, Attempt)>> = Mutex::new(Vec::with_capacity(total));
        let max_lag = Mutex::new(Duration::ZERO);
        ctx.say(&format!(
            "storm: {total} connects at {} /s with {} threads",
            self.rate, self.clients
        ));
        let start = Instant::now() + Duration::from_millis(200);
        std::thread::scope(|s| {
            for _ in 0..self.clients {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    let mut lag = Duration::ZERO;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= total {
                            break;
                        }
                        let slot = start + interval * i as u32;
                        let now = Instant::now();
                        if slot > now {
                            std::thread::sleep(slot - now);
                        } else {
                            lag = lag.max(now - slot);
                        }
                        let t0 = Instant::now();
                        let r = ctx.target.connect_within(self.timeout);
                        let took = t0.elapsed();
                        let a = match r {
                            Ok(c) => {
                                drop(c);
                                if took > self.timeout {
                                    Attempt::Timeout
                                } else {
                                    Attempt::Ok(took.as_secs_f64() * 1e3)
                                }
                            }
                            Err(e) if is_timeout(&e) => Attempt::Timeout,
                            Err(_) => Attempt::Error,
                        };
                        mine.push(((t0 - start).as_secs_f64(), a));
                    }
                    results
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .extend(mine);
                    let mut m = max_lag.lock().unwrap_or_else(|p| p.into_inner());
                    *m = (*m).max(lag);
                });
            }
        });
        let wall = start.elapsed();
        let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        let attempts: Vec<Attempt> = results.iter().map(|(_, a)| *a).collect();
        let sum = summarize(&attempts, wall);
        ctx.say(&format!(
            "storm: {:.0} connects/s, p99 {:.2} ms, {} timeouts, {} errors",
            sum.rate, sum.p99, sum.timeouts, sum.errors
        ));
        let mut admin = ctx
            .target
            .connect(None)
            .context("connecting after the storm")?;
        let aborted = status(&mut admin, "Aborted_connects") - aborted_before;
        let lag = max_lag.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut out = Outcome::default();
        out.fig(
            "connects scheduled",
            "",
            sum.attempts as f64,
            Better::Neither,
        );
        out.fig("connects/s achieved", "1/s", sum.rate, Better::Higher);
        out.fig("connect latency p50", "ms", sum.p50, Better::Lower);
        out.fig("connect latency p99", "ms", sum.p99, Better::Lower);
        out.fig("connect latency max", "ms", sum.max, Better::Lower);
        out.fig("connect timeouts", "", sum.timeouts as f64, Better::Lower);
        out.fig("connect errors", "", sum.errors as f64, Better::Lower);
        out.fig(
            "Aborted_connects during the storm (server)",
            "",
            aborted,
            Better::Lower,
        );
        out.fig(
            "latest start behind schedule (client)",
            "ms",
            lag.as_secs_f64() * 1e3,
            Better::Neither,
        );
        // The slowest connect of every 100 ms bucket.
        let buckets = (wall.as_secs_f64() * 10.0).ceil() as usize + 1;
        let mut worst = vec![f64::NAN; buckets];
        for (t, a) in &results {
            let ms = match a {
                Attempt::Ok(ms) => *ms,
                _ => self.timeout.as_secs_f64() * 1e3,
            };
            let b = ((t.max(0.0) * 10.0) as usize).min(buckets - 1);
            if worst[b].is_nan() || ms > worst[b] {
                worst[b] = ms;
            }
        }
        let points: Vec<(f64, f64)> = worst
            .iter()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .map(|(i, v)| (i as f64 / 10.0, *v))
            .collect();
        out.line("connections-storm", "", points);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_and_share() {
        assert_eq!(peak(&[1.0, f64::NAN, 4.0, 2.0]), 4.0);
        assert!(peak(&[f64::NAN]).is_nan());
        assert_eq!(share_of_peak(2.0, 4.0), 50.0);
        assert!(share_of_peak(f64::NAN, 4.0).is_nan());
        assert!(share_of_peak(1.0, 0.0).is_nan());
    }

    #[test]
    fn storm_summary() {
        let mut a: Vec<Attempt> = (1..=100).map(|i| Attempt::Ok(i as f64)).collect();
        a.push(Attempt::Timeout);
        a.push(Attempt::Error);
        let s = summarize(&a, Duration::from_secs(2));
        assert_eq!(s.attempts, 102);
        assert_eq!(s.rate, 50.0);
        assert_eq!(s.p50, 50.0);
        assert_eq!(s.p99, 99.0);
        assert_eq!(s.max, 100.0);
        assert_eq!((s.timeouts, s.errors), (1, 1));
        let e = summarize(&[], Duration::from_secs(1));
        assert!(e.p99.is_nan());
    }

    #[test]
    fn timeouts_are_recognised() {
        let io = std::io::Error::new(std::io::ErrorKind::TimedOut, "t");
        assert!(is_timeout(&mysql::Error::IoError(io)));
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "r");
        assert!(!is_timeout(&mysql::Error::IoError(io)));
    }
}
