//! sysbench (reference notes §6.2): runs the installed sysbench's OLTP tests at several thread
//! counts and collects tps, qps and p95 latency.

use anyhow::Result;
use mysql::prelude::Queryable;

use super::{Ctx, Params, Unit};
use crate::chart::ChartSpec;
use crate::client::fresh_database;
use crate::machine::{CpuMark, CpuSplit, CLIENT_CPU_NOTE, CPU_PER_TXN_NOTE};
use crate::report::{Better, Outcome};
use crate::sysbench::{connection_args, parse_output, sysbench};

const DB: &str = "sbtest";

/// The sysbench workload.
#[derive(Debug, Clone)]
pub struct Sysbench {
    /// Test names (`oltp_point_select`, …).
    pub tests: Vec<String>,
    /// Thread counts.
    pub threads: Vec<usize>,
    /// Seconds per run.
    pub time: u64,
    /// Tables.
    pub tables: u64,
    /// Rows per table.
    pub table_size: u64,
}

impl Sysbench {
    /// From the parameters.
    pub fn new(p: &Params) -> Sysbench {
        Sysbench {
            tests: p.sysbench_tests.clone(),
            threads: p.sysbench_threads.clone(),
            time: p.sysbench_time.max(1),
            tables: p.sysbench_tables.max(1),
            table_size: p.sysbench_table_size.max(1),
        }
    }

    fn table_args(&self) -> Vec<String> {
        vec![
            format!("--tables={}", self.tables),
            format!("--table-size={}", self.table_size),
        ]
    }
}

impl Unit for Sysbench {
    fn workload(&self) -> &'static str {
        "sysbench"
    }

    fn title(&self) -> String {
        "sysbench OLTP".into()
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
        self.tests
            .iter()
            .map(|t| {
                ChartSpec::new(
                    &format!("sysbench-{t}"),
                    &format!("sysbench {t}: tps vs threads"),
                    "threads (log scale)",
                    "transactions per second",
                )
                .log_x()
            })
            .collect()
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "sysbench's defaults otherwise (server-side prepared statements; row ids from its \
             'special' distribution, which sends 75 % of them to 1 % of the rows; deadlocks and \
             lock wait timeouts ignored and counted); the tests run in the order \
             listed on the same tables, so oltp_insert grows them for the tests after it."
                .into(),
            CPU_PER_TXN_NOTE.into(),
            CLIENT_CPU_NOTE.into(),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        fresh_database(&mut conn, DB)?;
        let mut base = connection_args(ctx.target, DB);
        base.extend(self.table_args());
        ctx.say(&format!(
            "sysbench: prepare {} × {} rows",
            self.tables, self.table_size
        ));
        let mut prep = base.clone();
        prep.push(format!("--threads={}", self.tables.min(4)));
        sysbench("oltp_read_write", &prep, "prepare")?;
        let mut out = Outcome::default();
        let mut total = CpuSplit::zero();
        let pb = ctx.bar(
            (self.tests.len() * self.threads.len()) as u64,
            "sysbench runs",
        );
        for test in &self.tests {
            let mut points = Vec::new();
            for &t in &self.threads {
                let mut args = base.clone();
                args.push(format!("--threads={t}"));
                args.push(format!("--time={}", self.time));
                args.push("--report-interval=0".into());
                let cpu0 = CpuMark::now(ctx.target.server_pid);
                let r = parse_output(&sysbench(test, &args, "run")?)?;
                let cpu = cpu0.split(Some(r.tps * self.time as f64));
                total.add(&cpu);
                pb.inc(1);
                pb.suspend(|| {
                    ctx.say(&format!(
                        "sysbench {test} {t} threads: {:.0} tps, p95 {:.2} ms",
                        r.tps, r.p95_ms
                    ))
                });
                out.fig(
                    format!("{test}, {t} thr: tps"),
                    "1/s",
                    r.tps,
                    Better::Higher,
                );
                out.fig(
                    format!("{test}, {t} thr: qps"),
                    "1/s",
                    r.qps,
                    Better::Higher,
                );
                out.fig(
                    format!("{test}, {t} thr: p95"),
                    "ms",
                    r.p95_ms,
                    Better::Lower,
                );
                out.cpu_per_txn_split(&format!("{test}, {t} thr"), &cpu);
                if r.errors_per_s > 0.0 {
                    out.notes.push(format!(
                        "{test} at {t} threads: {:.2} ignored errors/s",
                        r.errors_per_s
                    ));
                }
                points.push((t as f64, r.tps));
            }
            out.line(&format!("sysbench-{test}"), "", points);
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
