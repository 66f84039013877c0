//! The measured run: `terminals` threads, each with its own connection, draw transactions from
//! the mix and run them back to back (no keying or think time) for the warm-up and then the
//! measured seconds. Deadlocks, lock wait timeouts (MySQL errors 1213, 1205) and detected
//! conflicts roll the transaction back and run it again with the same inputs, counted; any
//! other error ends the run with the statement that failed.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Result;
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::random::{NuRandC, TxnType};
use super::txn::{Conflict, Done, Input, Terminal};
use crate::client;
use crate::machine::{CpuMark, CpuSplit};
use crate::workloads::{is_lock_error, Ctx};

/// Attempts of one transaction before it is given up (counted as abandoned).
pub const MAX_ATTEMPTS: u32 = 50;

/// How to run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    /// Terminals (connections).
    pub terminals: usize,
    /// Measured seconds.
    pub seconds: u64,
    /// Warm-up seconds before them (not counted).
    pub warmup: u64,
    /// Warehouses in the database.
    pub warehouses: u32,
    /// The NURand constants of the run.
    pub c: NuRandC,
    /// Seed of the terminals' generators.
    pub seed: u64,
}

/// What one transaction type did in the measured window.
#[derive(Debug, Clone, Default)]
pub struct TypeStats {
    /// Transactions completed (committed, or rolled back on purpose).
    pub count: u64,
    /// Their latencies in ms (from the first attempt to the end of the last).
    pub latencies_ms: Vec<f64>,
    /// Attempts that hit a deadlock, lock wait timeout or conflict and were run again.
    pub retries: u64,
    /// Transactions given up after [`MAX_ATTEMPTS`] attempts (or at the end of the run).
    pub abandoned: u64,
}

/// What the run measured.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    /// Per type, in [`TxnType::ALL`] order.
    pub types: Vec<TypeStats>,
    /// New-Orders rolled back by their unused item (counted in New-Order's count).
    pub rolled_back: u64,
    /// Districts Deliveries found without a new order.
    pub skipped_districts: u64,
    /// Length of the measured window in seconds.
    pub seconds: f64,
    /// New-Orders completed in each second of the measured window.
    pub new_orders_per_second: Vec<u64>,
    /// CPU spent in the measured window, with all completed transactions as its count.
    pub cpu: CpuSplit,
    /// Retries by reason, in [`RETRY_REASONS`] order.
    pub retry_reasons: [u64; 3],
}

/// Why a transaction is run again.
pub const RETRY_REASONS: [&str; 3] = ["deadlock (1213)", "lock wait timeout (1205)", "conflict"];

impl RunStats {
    fn empty(seconds: u64) -> RunStats {
        RunStats {
            types: vec![TypeStats::default(); TxnType::ALL.len()],
            rolled_back: 0,
            skipped_districts: 0,
            seconds: seconds as f64,
            new_orders_per_second: Vec::new(),
            cpu: CpuSplit::default(),
            retry_reasons: [0; 3],
        }
    }

    fn merge(&mut self, o: RunStats) {
        for (a, b) in self.types.iter_mut().zip(o.types) {
            a.count += b.count;
            a.latencies_ms.extend(b.latencies_ms);
            a.retries += b.retries;
            a.abandoned += b.abandoned;
        }
        self.rolled_back += o.rolled_back;
        for (a, b) in self.retry_reasons.iter_mut().zip(o.retry_reasons) {
            *a += b;
        }
        self.skipped_districts += o.skipped_districts;
    }

    /// Transactions completed, all types.
    pub fn total(&self) -> u64 {
        self.types.iter().map(|t| t.count).sum()
    }

    /// New-Orders per minute (tpmC).
    pub fn tpmc(&self) -> f64 {
        self.types[TxnType::NewOrder.index()].count as f64 * 60.0 / self.seconds.max(1e-9)
    }
}

/// Why the transaction that failed with `e` is run again (an index into [`RETRY_REASONS`]),
/// or `None` when it is not.
pub fn retry_reason(e: &anyhow::Error) -> Option<usize> {
    e.chain().find_map(|c| {
        if c.downcast_ref::<Conflict>().is_some() {
            return Some(2);
        }
        match c.downcast_ref::<mysql::Error>() {
            Some(me) if is_lock_error(me) => match me {
                mysql::Error::MySqlError(x) if x.code == 1213 => Some(0),
                _ => Some(1),
            },
            _ => None,
        }
    })
}

fn date_now() -> String {
    chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string()
}

/// Sleeps until `t` or until `stop` is raised; returns whether `t` was reached.
fn sleep_until(t: Instant, stop: &AtomicBool) -> bool {
    loop {
        let now = Instant::now();
        if now >= t {
            return true;
        }
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep((t - now).min(Duration::from_millis(100)));
    }
}

/// Runs the terminals against database `db`.
pub fn run(ctx: &Ctx, db: &str, spec: &RunSpec) -> Result<RunStats> {
    let stop = AtomicBool::new(false);
    let start = Instant::now() + Duration::from_millis(100);
    let warm_end = start + Duration::from_secs(spec.warmup);
    let end = warm_end + Duration::from_secs(spec.seconds);
    let buckets: Vec<AtomicU64> = (0..spec.seconds).map(|_| AtomicU64::new(0)).collect();
    let pb = ctx.bar(
        spec.warmup + spec.seconds,
        &format!("tpcc {} terminals (seconds)", spec.terminals),
    );
    let pid = ctx.target.server_pid;
    let (per_terminal, cpu) = std::thread::scope(|s| {
        // The CPU times of exactly the measured window.
        let monitor = s.spawn(|| {
            if !sleep_until(warm_end, &stop) {
                return CpuSplit::default();
            }
            let mark = CpuMark::now(pid);
            sleep_until(end, &stop);
            mark.split(None)
        });
        let r = terminals(ctx, db, spec, &stop, start, warm_end, end, &buckets, &pb);
        // Wake the monitor when the terminals failed early.
        if r.is_err() {
            stop.store(true, Ordering::SeqCst);
        }
        let cpu = monitor.join().unwrap_or_default();
        (r, cpu)
    });
    let per_terminal = per_terminal?;
    pb.finish_and_clear();
    let mut all = RunStats::empty(spec.seconds);
    for s in per_terminal {
        all.merge(s);
    }
    all.new_orders_per_second = buckets.iter().map(|b| b.load(Ordering::Relaxed)).collect();
    all.cpu = CpuSplit {
        txns: all.total() as f64,
        ..cpu
    };
    Ok(all)
}

/// The terminal threads of [`run`]: each runs transactions from `start` until `end` and
/// returns what it counted after `warm_end`.
#[allow(clippy::too_many_arguments)]
fn terminals(
    ctx: &Ctx,
    db: &str,
    spec: &RunSpec,
    stop: &AtomicBool,
    start: Instant,
    warm_end: Instant,
    end: Instant,
    buckets: &[AtomicU64],
    pb: &indicatif::ProgressBar,
) -> Result<Vec<RunStats>> {
    client::run_clients(ctx.target, Some(db), spec.terminals, stop, |i, c| {
        let mut term = Terminal::new(c)?;
        let mut rng = StdRng::seed_from_u64(
            spec.seed
                .wrapping_mul(0xD1B5_4A32_D192_ED03)
                .wrapping_add(i as u64),
        );
        let mut st = RunStats::empty(spec.seconds);
        let now = Instant::now();
        if start > now {
            std::thread::sleep(start - now);
        }
        loop {
            let begun = Instant::now();
            if begun >= end || stop.load(Ordering::Relaxed) {
                return Ok(st);
            }
            if i == 0 {
                pb.set_position(begun.duration_since(start).as_secs());
            }
            let t = TxnType::pick(&mut rng);
            let input = Input::draw(t, &mut rng, spec.warehouses, &spec.c);
            let counted = begun >= warm_end;
            let ts = &mut st.types[t.index()];
            let mut attempts = 0;
            let outcome = loop {
                attempts += 1;
                match term.execute(&input, &date_now()) {
                    Ok(r) => break Some(r),
                    Err(e) if retry_reason(&e).is_some() => {
                        if counted {
                            ts.retries += 1;
                            if let Some(r) = retry_reason(&e) {
                                st.retry_reasons[r] += 1;
                            }
                        }
                        if attempts >= MAX_ATTEMPTS || Instant::now() >= end {
                            break None;
                        }
                    }
                    Err(e) => return Err(e.context(format!("{} transaction {input:?}", t.name()))),
                }
            };
            let finished = Instant::now();
            if !counted || finished > end {
                continue;
            }
            let Some((done, extra)) = outcome else {
                ts.abandoned += 1;
                continue;
            };
            ts.count += 1;
            ts.latencies_ms
                .push(finished.duration_since(begun).as_secs_f64() * 1e3);
            st.skipped_districts += u64::from(extra.skipped_districts);
            if t == TxnType::NewOrder {
                st.rolled_back += u64::from(done == Done::RolledBack);
                let sec = finished.duration_since(warm_end).as_secs() as usize;
                if let Some(b) = buckets.get(sec) {
                    b.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lock_error(code: u16) -> anyhow::Error {
        let e = mysql::Error::MySqlError(mysql::MySqlError {
            state: "40001".into(),
            message: "Deadlock found".into(),
            code,
        });
        anyhow::Error::new(e).context("`UPDATE stock …`")
    }

    #[test]
    fn what_is_retried() {
        assert_eq!(retry_reason(&lock_error(1213)), Some(0));
        assert_eq!(retry_reason(&lock_error(1205)), Some(1));
        assert_eq!(retry_reason(&lock_error(1064)), None);
        assert_eq!(
            retry_reason(&anyhow::Error::new(Conflict("taken".into())).context("Delivery")),
            Some(2)
        );
        assert_eq!(retry_reason(&anyhow::anyhow!("customer not found")), None);
    }

    #[test]
    fn stats_merge_and_rates() {
        let mut a = RunStats::empty(30);
        a.types[0].count = 100;
        a.types[0].latencies_ms = vec![1.0, 2.0];
        a.types[1].count = 50;
        let mut b = RunStats::empty(30);
        b.types[0].count = 50;
        b.types[0].latencies_ms = vec![3.0];
        b.types[0].retries = 2;
        b.rolled_back = 1;
        b.retry_reasons = [2, 0, 1];
        a.merge(b);
        assert_eq!(a.retry_reasons, [2, 0, 1]);
        assert_eq!(a.types[0].count, 150);
        assert_eq!(a.types[0].latencies_ms.len(), 3);
        assert_eq!(a.types[0].retries, 2);
        assert_eq!(a.total(), 200);
        assert_eq!(a.rolled_back, 1);
        assert_eq!(a.tpmc(), 300.0);
    }
}
