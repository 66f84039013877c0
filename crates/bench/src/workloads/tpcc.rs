//! tpcc (issue 40): the TPC-C transaction mix that DBT2, tpcc-mysql and the MySQL performance
//! literature measure OLTP servers with, over W warehouses, with keying and think times off.
//!
//! One section per server: the nine tables are created and loaded (W warehouses with the
//! spec's cardinalities and distributions, in parallel multi-row INSERTs), consistency
//! conditions 1–4 are checked, then for each terminal count the mix runs for a warm-up and the
//! measured seconds on the same data, followed by the consistency check again. Reported: tpmC
//! (New-Orders per minute), transactions per second, per type count and latency (avg, p95,
//! p99), retries, the CPU split between server and load generator, and every consistency
//! condition as pass / FAIL (a failure fails the section).
//!
//! * [`random`] — NURand, last names, strings, the mix;
//! * [`schema`] — the tables;
//! * [`load`] — the initial population;
//! * [`stmts`] — their statements;
//! * [`txn`] — the five transactions;
//! * [`driver`] — terminals, warm-up, retries, statistics;
//! * [`check`] — the consistency conditions.

pub mod check;
pub mod driver;
pub mod load;
pub mod random;
pub mod schema;
pub mod stmts;
pub mod txn;

use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use mysql::Conn;
use rand::rngs::StdRng;
use rand::SeedableRng;

use self::driver::{RunSpec, RunStats, MAX_ATTEMPTS, RETRY_REASONS};
use self::load::LoadSpec;
use self::random::{NuRandC, TxnType};
use super::{Ctx, Params, Unit};
use crate::chart::ChartSpec;
use crate::client::fresh_database;
use crate::machine::{self, CpuMark};
use crate::report::{Better, Outcome};
use crate::stats::{mean, percentile};

const DB: &str = "tpcc";
const CHART_TPMC: &str = "tpcc-tpmc";

/// The units of the `tpcc` workload (one).
///
/// # Errors
/// When the warehouse count or a terminal count is zero.
pub fn units(p: &Params) -> Result<Vec<Box<dyn Unit>>> {
    if p.tpcc_warehouses == 0 {
        bail!("--tpcc-warehouses must be at least 1");
    }
    if p.tpcc_connections.is_empty() || p.tpcc_connections.contains(&0) {
        bail!("--tpcc-connections needs connection counts above 0");
    }
    Ok(vec![Box::new(Tpcc::new(p))])
}

/// The tpcc workload.
#[derive(Debug, Clone)]
pub struct Tpcc {
    /// Warehouses.
    pub warehouses: u32,
    /// Terminal counts, one measured run each, in this order.
    pub connections: Vec<usize>,
    /// Measured seconds per run.
    pub seconds: u64,
    /// Warm-up seconds per run.
    pub warmup: u64,
    /// Loading connections.
    pub load_clients: usize,
    /// Seed.
    pub seed: u64,
}

impl Tpcc {
    /// From the parameters.
    pub fn new(p: &Params) -> Tpcc {
        Tpcc {
            warehouses: p.tpcc_warehouses,
            connections: p.tpcc_connections.clone(),
            seconds: p.tpcc_seconds.max(1),
            warmup: p.tpcc_warmup,
            load_clients: p.load_clients.max(1),
            seed: p.seed,
        }
    }

    fn tpm_chart(n: usize) -> String {
        format!("tpcc-{n}-tpm")
    }

    /// Checks consistency conditions 1–4 and records each as a check named after `point`.
    fn consistency(&self, ctx: &Ctx, out: &mut Outcome, conn: &mut Conn, point: &str) {
        let conds = match check::check(conn, self.warehouses) {
            Ok(c) => c,
            Err(e) => {
                // The check could not run: that fails the section, loudly, like a violation.
                let msg = format!("{e:#}");
                ctx.say(&format!(
                    "tpcc consistency check {point} FAILED to run: {msg}"
                ));
                out.check(format!("{point}: consistency check ran"), false, msg);
                return;
            }
        };
        let mut summary = Vec::new();
        for c in &conds {
            summary.push(format!(
                "{} {}",
                c.number,
                if c.passed() { "pass" } else { "FAIL" }
            ));
            out.check(
                format!("{point}: condition {} ({})", c.number, c.title),
                c.passed(),
                c.detail(),
            );
        }
        ctx.say(&format!("tpcc consistency {point}: {}", summary.join(", ")));
        for c in conds.iter().filter(|c| !c.passed()) {
            ctx.say(&format!(
                "tpcc CONSISTENCY CONDITION {} FAILED {point}: {}",
                c.number,
                c.detail()
            ));
        }
    }

    /// The figures of one measured run.
    fn run_figures(&self, out: &mut Outcome, n: usize, s: &RunStats) {
        let l = format!("{n} conn");
        out.fig(format!("{l}: tpmC"), "1/min", s.tpmc(), Better::Higher);
        out.fig(
            format!("{l}: transactions"),
            "1/s",
            s.total() as f64 / s.seconds.max(1e-9),
            Better::Higher,
        );
        for t in TxnType::ALL {
            let ts = &s.types[t.index()];
            let mut lat = ts.latencies_ms.clone();
            let name = t.name();
            out.fig(
                format!("{l}: {name} count"),
                "",
                ts.count as f64,
                Better::Neither,
            );
            out.fig(format!("{l}: {name} avg"), "ms", mean(&lat), Better::Lower);
            out.fig(
                format!("{l}: {name} p95"),
                "ms",
                percentile(&mut lat, 95.0),
                Better::Lower,
            );
            out.fig(
                format!("{l}: {name} p99"),
                "ms",
                percentile(&mut lat, 99.0),
                Better::Lower,
            );
        }
        let no = s.types[TxnType::NewOrder.index()].count;
        out.fig(
            format!("{l}: New-Orders rolled back (unused item)"),
            "%",
            if no > 0 {
                100.0 * s.rolled_back as f64 / no as f64
            } else {
                f64::NAN
            },
            Better::Neither,
        );
        let retries: u64 = s.types.iter().map(|t| t.retries).sum();
        let abandoned: u64 = s.types.iter().map(|t| t.abandoned).sum();
        out.fig(
            format!("{l}: retries (deadlock, lock wait timeout, conflict)"),
            "",
            retries as f64,
            Better::Lower,
        );
        out.fig(
            format!("{l}: transactions abandoned after {MAX_ATTEMPTS} attempts"),
            "",
            abandoned as f64,
            Better::Lower,
        );
        out.fig(
            format!("{l}: Delivery districts without a new order"),
            "",
            s.skipped_districts as f64,
            Better::Neither,
        );
        out.cpu_split(&l, &s.cpu);
        if retries > 0 {
            let per: Vec<String> = TxnType::ALL
                .iter()
                .filter(|t| s.types[t.index()].retries > 0)
                .map(|t| format!("{} {}", t.name(), s.types[t.index()].retries))
                .collect();
            let why: Vec<String> = RETRY_REASONS
                .iter()
                .zip(s.retry_reasons)
                .filter(|(_, n)| *n > 0)
                .map(|(r, n)| format!("{r} {n}"))
                .collect();
            out.notes.push(format!(
                "{l}: retries by type: {}; by cause: {}",
                per.join(", "),
                why.join(", ")
            ));
        }
        let points: Vec<(f64, f64)> = s
            .new_orders_per_second
            .iter()
            .enumerate()
            .map(|(i, &c)| ((i + 1) as f64, c as f64 * 60.0))
            .collect();
        out.line(&Tpcc::tpm_chart(n), "", points);
    }
}

impl Unit for Tpcc {
    fn workload(&self) -> &'static str {
        "tpcc"
    }

    fn title(&self) -> String {
        let s = if self.warehouses == 1 { "" } else { "s" };
        format!("tpcc: TPC-C mix over {} warehouse{s}", self.warehouses)
    }

    fn params(&self) -> Vec<(String, String)> {
        let conns: Vec<String> = self.connections.iter().map(usize::to_string).collect();
        let mix: Vec<String> = TxnType::ALL
            .iter()
            .map(|t| format!("{} {} %", t.name(), t.percent()))
            .collect();
        vec![
            ("warehouses".into(), self.warehouses.to_string()),
            ("connections (terminals)".into(), conns.join(", ")),
            ("measured seconds per run".into(), self.seconds.to_string()),
            ("warm-up seconds".into(), self.warmup.to_string()),
            ("loading connections".into(), self.load_clients.to_string()),
            ("mix".into(), mix.join(", ")),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        let mut c = vec![ChartSpec::new(
            CHART_TPMC,
            "tpcc: tpmC (New-Orders per minute) vs connections",
            "connections (log scale)",
            "tpmC",
        )
        .log_x()];
        for &n in &self.connections {
            c.push(ChartSpec::new(
                &Tpcc::tpm_chart(n),
                &format!("tpcc at {n} connections: New-Orders per minute, second by second"),
                "second of the measured run",
                "New-Orders per minute",
            ));
        }
        c
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "target (issue 40): consistency conditions pass on every engine; Strata ≥ 1.0× \
             InnoDB's tpmC at 8 and 32 connections with 10 warehouses on the 2-core machine, \
             ≥ 1.2× on 16 cores."
                .into(),
            "The TPC-C schema (nine tables, the spec's primary keys, customer index on (c_w_id, \
             c_d_id, c_last, c_first), orders index on (o_w_id, o_d_id, o_c_id, o_id); no foreign \
             keys; each server's default engine) and population (100k items; per warehouse 100k \
             stock rows and 10 districts; per district 3k customers with a history row each and \
             3k orders with 5–15 lines, the last 900 undelivered; NURand last names and ids), \
             loaded by parallel 1000-row INSERTs."
                .into(),
            "Terminals run the mix back to back with no keying or think time; each transaction \
             draws its home warehouse uniformly (terminals are not bound to a warehouse); \
             server-side prepared statements, one explicit transaction per business \
             transaction, SELECT … FOR UPDATE where a row read is then updated; customer by last \
             name 60 % of the time in Payment and Order-Status; 1 % of New-Orders roll back on \
             an unused item id (counted in tpmC and New-Order's figures, as completed \
             transactions); 1 % of order lines and 15 % of Payments go to a remote warehouse; \
             Delivery handles the 10 districts in one transaction, run by the terminal (not \
             queued)."
                .into(),
            format!(
                "Deadlocks (1213), lock wait timeouts (1205) and a Delivery that finds its new \
                 order taken roll the transaction back and run it again with the same inputs, up \
                 to {MAX_ATTEMPTS} attempts; a latency runs from the first attempt to the end of \
                 the last. Any other error ends the runs and fails the section (the check table shows it \
                 with the statement; the figures of earlier runs are kept). Only transactions that start after \
                 the warm-up and end within the measured seconds count."
            ),
            "The runs for each connection count follow each other on the same data (it grows \
             with every New-Order); consistency conditions 1–4 of clause 3.3.2 are checked after \
             the load and after every run."
                .into(),
            machine::CPU_PER_TXN_NOTE.into(),
            machine::CLIENT_CPU_NOTE.into(),
            "The CPU figures of a run cover its measured seconds only; per transaction they \
             divide by all transactions completed (every type)."
                .into(),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        fresh_database(&mut conn, DB)?;
        conn.query_drop(format!("USE {DB}"))?;
        for sql in schema::ddl() {
            conn.query_drop(&sql).with_context(|| format!("`{sql}`"))?;
        }
        let mut rng = StdRng::seed_from_u64(self.seed);
        let c_load = NuRandC::for_load(&mut rng);
        let mut out = Outcome::default();
        ctx.say(&format!(
            "tpcc: loading {} warehouses (~{} rows plus order lines) with {} connections",
            self.warehouses,
            load::expected_rows(self.warehouses),
            self.load_clients
        ));
        let spec = LoadSpec {
            warehouses: self.warehouses,
            c: c_load,
            seed: self.seed,
            now: chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string(),
        };
        let cpu0 = CpuMark::now(ctx.target.server_pid);
        let loaded = load::load(ctx, DB, &spec)?;
        let load_cpu = cpu0.split(None);
        let secs = loaded.took.as_secs_f64();
        ctx.say(&format!("tpcc: loaded {} rows in {secs:.1} s", loaded.rows));
        out.fig("load time", "s", secs, Better::Lower);
        out.fig("rows loaded", "", loaded.rows as f64, Better::Neither);
        out.fig(
            "load rate",
            "rows/s",
            loaded.rows as f64 / secs.max(1e-9),
            Better::Higher,
        );
        out.fig("load: server CPU", "s", load_cpu.server_s, Better::Lower);
        out.fig("load: client CPU", "s", load_cpu.client_s, Better::Neither);
        self.consistency(ctx, &mut out, &mut conn, "after the load");
        let mut tpmc = Vec::new();
        for &n in &self.connections {
            let spec = RunSpec {
                terminals: n,
                seconds: self.seconds,
                warmup: self.warmup,
                warehouses: self.warehouses,
                c: NuRandC::for_run(&c_load, &mut rng),
                seed: self.seed.wrapping_add(n as u64),
            };
            ctx.say(&format!(
                "tpcc: {n} connections, {} s warm-up + {} s",
                self.warmup, self.seconds
            ));
            let stats = match driver::run(ctx, DB, &spec) {
                Ok(s) => s,
                Err(e) => {
                    // Keep what was measured before; the failed run fails the section.
                    let msg = format!("{e:#}");
                    ctx.say(&format!("tpcc run at {n} connections FAILED: {msg}"));
                    out.check(format!("run at {n} connections"), false, msg);
                    let mut conn = ctx.target.connect(Some(DB))?;
                    self.consistency(
                        ctx,
                        &mut out,
                        &mut conn,
                        &format!("after the failed {n}-connection run"),
                    );
                    break;
                }
            };
            ctx.say(&format!(
                "tpcc {n} connections: {:.0} tpmC, {:.1} transactions/s",
                stats.tpmc(),
                stats.total() as f64 / stats.seconds.max(1e-9)
            ));
            self.run_figures(&mut out, n, &stats);
            tpmc.push((n as f64, stats.tpmc()));
            let mut conn = ctx.target.connect(Some(DB))?;
            out.check(
                format!("run at {n} connections"),
                true,
                format!("{} transactions", stats.total()),
            );
            self.consistency(ctx, &mut out, &mut conn, &format!("after {n} connections"));
        }
        out.line(CHART_TPMC, "", tpmc);
        if ctx.cleanup {
            conn.query_drop(format!("DROP DATABASE {DB}"))?;
        }
        Ok(out)
    }
}
