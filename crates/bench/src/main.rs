//! `strata-bench`: benchmark MySQL-protocol servers and write markdown + PNG reports.
//!
//! ```text
//! strata-bench run <workload>... [--host H] [--port P] [--user U] [--password X]
//!                  [--server-pid PID] [--datadir DIR] [--label NAME] [workload options]
//! strata-bench compare <workload>... [--engines innodb,myrocks,strata] [--strata-bin PATH]
//!                  [--cache-mb 256] [--base-port P] [--server-cpus LIST] [--client-cpus LIST]
//!                  [workload options]
//! ```
//!
//! Workloads: iibench, uuid, cache, droptable, manytables, mvcc, sysbench, connections, tpcc,
//! all.
//! Reports go to `--out` (default `docs/benchmarks/`): `<date>-<workloads>.md`, its charts in
//! `<date>-<workloads>/`, and a line in the directory's `README.md` index.
//! Exit status 1 when a workload failed on some server (the report is written anyway).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};
use mysql::prelude::Queryable;

use bench::client::Target;
use bench::cpuset::{self, CpuSet};
use bench::machine;
use bench::report::{self, Column, Outcome, Report, Section};
use bench::servers::{self, Engine, Instance, Kind, Setup};
use bench::workloads::{self, Ctx, Params, Unit};

#[derive(Parser, Debug)]
#[command(
    name = "strata-bench",
    version,
    about = "Benchmark MySQL-protocol servers (Strata, MariaDB InnoDB/MyRocks) and write markdown + PNG reports"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run workloads against one running server.
    Run(RunArgs),
    /// Start MariaDB/InnoDB, MariaDB/MyRocks and Strata privately and run the workloads on each.
    Compare(CompareArgs),
}

#[derive(Args, Debug)]
struct Output {
    /// Output directory for the report, its charts and the README index.
    #[arg(long, default_value = "docs/benchmarks")]
    out: PathBuf,
    /// A remark printed at the top of the report (e.g. "smoke run on a busy machine").
    #[arg(long)]
    note: Option<String>,
}

#[derive(Args, Debug)]
struct RunArgs {
    /// Workloads: iibench, uuid, cache, droptable, manytables, mvcc, sysbench, connections,
    /// tpcc, all.
    #[arg(required = true)]
    workloads: Vec<String>,
    /// Run the load generators (strata-bench's own client threads and the sysbench processes
    /// it starts) on these CPUs only (Linux CPU list: 0-7, 0,2,4, 8-15:2).
    #[arg(long, value_name = "LIST", value_parser = CpuSet::parse_available)]
    client_cpus: Option<CpuSet>,
    /// Server host.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Server port.
    #[arg(long, default_value_t = 3306)]
    port: u16,
    /// User.
    #[arg(long, default_value = "root")]
    user: String,
    /// Password.
    #[arg(long, default_value = "")]
    password: String,
    /// The server's process id (this machine only): enables RSS figures.
    #[arg(long)]
    server_pid: Option<u32>,
    /// The server's data directory (this machine only): enables size-on-disk figures
    /// (otherwise information_schema sizes are used).
    #[arg(long)]
    datadir: Option<PathBuf>,
    /// Column label [default: Strata/MariaDB/MySQL from the server version].
    #[arg(long)]
    label: Option<String>,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    params: Params,
}

#[derive(Args, Debug)]
struct CompareArgs {
    /// Workloads: iibench, uuid, cache, droptable, manytables, mvcc, sysbench, connections,
    /// tpcc, all.
    #[arg(required = true)]
    workloads: Vec<String>,
    /// Pin every server instance to these CPUs (Linux CPU list: 0-7, 0,2,4, 8-15:2), with
    /// sched_setaffinity before it starts [default: no pinning].
    #[arg(long, value_name = "LIST", value_parser = CpuSet::parse_available)]
    server_cpus: Option<CpuSet>,
    /// Run the load generators (strata-bench's own client threads and the sysbench processes
    /// it starts) on these CPUs only [default: no pinning].
    #[arg(long, value_name = "LIST", value_parser = CpuSet::parse_available)]
    client_cpus: Option<CpuSet>,
    /// Servers to start, in column order (the first InnoDB is the ratio baseline): innodb,
    /// myrocks, strata, each optionally with `:pool` (thread_handling=pool-of-threads) or
    /// `:thread` (one-thread-per-connection) [default: innodb,myrocks,strata; for the
    /// connections workload alone: strata:pool,strata:thread,innodb:pool,innodb:thread].
    #[arg(long, value_delimiter = ',')]
    engines: Vec<String>,
    /// The strata binary [default: $CARGO_TARGET_DIR/release/strata, else
    /// ~/.cache/strata-target/release/strata].
    #[arg(long)]
    strata_bin: Option<PathBuf>,
    /// First port to try for the instances [default: ports chosen by the OS].
    #[arg(long)]
    base_port: Option<u16>,
    /// Do not install missing Debian packages.
    #[arg(long)]
    no_install: bool,
    /// Keep the instances' data directories (under /tmp/bench-*).
    #[arg(long)]
    keep_datadirs: bool,
    /// Run every section this many times, the engines in turn and in reverse order every
    /// other round, and report each figure's median. On a shared machine whose speed drifts,
    /// one round puts the drift between two engines' sections into their ratio.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=9))]
    rounds: u32,
    #[command(flatten)]
    output: Output,
    #[command(flatten)]
    params: Params,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    servers::raise_nofile();
    let r = match cli.cmd {
        Cmd::Run(a) => run(a),
        Cmd::Compare(a) => compare(a),
    };
    match r {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("strata-bench: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn names(units: &[Box<dyn Unit>]) -> Vec<&'static str> {
    let mut n: Vec<&'static str> = Vec::new();
    for u in units {
        if !n.contains(&u.workload()) {
            n.push(u.workload());
        }
    }
    n
}

fn setup_rows(p: &Params, extra: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut rows = vec![
        (
            "date".to_string(),
            chrono::Local::now().format("%Y-%m-%d %H:%M %Z").to_string(),
        ),
        ("machine".into(), machine::describe()),
        (
            "load average at start".into(),
            machine::load_average().unwrap_or_default(),
        ),
        ("cache budget".into(), format!("{} MiB", p.cache_mb)),
    ];
    rows.extend(extra);
    rows.push((
        "command".into(),
        format!(
            "`{}`",
            std::env::args()
                .map(|a| shell_quote(&a))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    ));
    rows.push((
        "tool".into(),
        format!("strata-bench {}", env!("CARGO_PKG_VERSION")),
    ));
    rows
}

/// The setup rows stating the CPU sets (nothing when neither is given).
fn cpu_rows(server: Option<&CpuSet>, client: Option<&CpuSet>) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    if let Some(s) = server {
        rows.push((
            "server CPUs".to_string(),
            format!(
                "{}: every server instance is pinned to them (sched_setaffinity before exec)",
                s.describe()
            ),
        ));
    }
    if let Some(c) = client {
        rows.push((
            "client CPUs".to_string(),
            format!(
                "{}: strata-bench's own client threads and the sysbench processes it starts run \
                 on them (sched_setaffinity)",
                c.describe()
            ),
        ));
    }
    match (server, client) {
        (Some(s), Some(c)) if s.overlaps(c) => rows.push((
            "CPU split".into(),
            "**the server and client CPU sets overlap**".into(),
        )),
        (Some(_), None) => rows.push((
            "CPU split".into(),
            "the load generator is not pinned (it may run on the server CPUs too)".into(),
        )),
        (None, Some(_)) => rows.push((
            "CPU split".into(),
            "the servers are not pinned (they may run on the client CPUs too)".into(),
        )),
        _ => {}
    }
    rows
}

/// Quotes a command-line argument for display when it holds anything but plain characters.
fn shell_quote(a: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c);
    if !a.is_empty() && a.chars().all(plain) {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

fn label_for(version: &str) -> &'static str {
    if version.contains("Strata") {
        "Strata"
    } else if version.contains("MariaDB") {
        "MariaDB"
    } else {
        "MySQL"
    }
}

fn run(a: RunArgs) -> Result<bool> {
    let units = workloads::units(&a.workloads, &a.params)?;
    if let Some(c) = &a.client_cpus {
        cpuset::set_client(c)?;
    }
    let target = Target {
        host: a.host.clone(),
        port: a.port,
        user: a.user.clone(),
        password: a.password.clone(),
        server_pid: a.server_pid,
        datadir: a.datadir.clone(),
    };
    let version: String = target
        .connect(None)?
        .query_first("SELECT VERSION()")?
        .unwrap_or_default();
    let label = a
        .label
        .clone()
        .unwrap_or_else(|| label_for(&version).to_string());
    let mut sections = Vec::new();
    let mut ok = true;
    for u in &units {
        eprintln!("== {} on {label}", u.title());
        let ctx = Ctx {
            target: &target,
            params: &a.params,
            label: &label,
            cleanup: true,
        };
        let r = u.run(&ctx).map_err(|e| format!("{e:#}"));
        if let Err(e) = &r {
            eprintln!("[{label}] {} failed: {e}", u.title());
        }
        report_failed_checks(u.title(), &label, &r);
        let section = Section {
            title: u.title(),
            params: u.params(),
            charts: u.charts(),
            results: vec![r],
            notes: u.notes(),
        };
        ok &= !section.failed();
        sections.push(section);
    }
    let wl = names(&units).join(", ");
    let report = Report {
        title: format!("strata-bench run: {wl} on {label}"),
        note: a.output.note.clone(),
        setup: setup_rows(&a.params, cpu_rows(None, a.client_cpus.as_ref())),
        columns: vec![Column {
            label: label.clone(),
            version,
            config: format!("{}:{}", a.host, a.port),
        }],
        baseline: None,
        sections,
    };
    let date = chrono::Local::now().format("%Y-%m-%d");
    let stem = report::unique_stem(
        &a.output.out,
        &format!("{date}-run-{}", names(&units).join("-")),
    );
    let summary = format!("run on {label}: {wl}, cache {} MiB", a.params.cache_mb);
    let path = report::write_report(&report, &a.output.out, &stem, &summary)?;
    println!("{}", path.display());
    Ok(ok)
}

/// Prints every failed check of a result (they make the section fail).
fn report_failed_checks(title: String, label: &str, r: &Result<Outcome, String>) {
    if let Ok(o) = r {
        for c in o.failed_checks() {
            eprintln!("[{label}] {title}: CHECK FAILED: {}: {}", c.name, c.detail);
        }
    }
}

/// One note per engine with its per-round ratio to the baseline for every rate figure (unit
/// ending in "/s"), so the report shows how much the rounds disagree.
fn round_ratios(
    engines: &[Engine],
    rounds: &[Result<Vec<Outcome>, String>],
    baseline: Option<usize>,
) -> Vec<String> {
    let Some(b) = baseline else { return vec![] };
    let Ok(base) = &rounds[b] else { return vec![] };
    let mut notes = Vec::new();
    for (i, r) in rounds.iter().enumerate() {
        let (true, Ok(rs)) = (i != b, r) else {
            continue;
        };
        let Some(first) = rs.first() else { continue };
        let parts: Vec<String> = first
            .figures
            .iter()
            .filter(|f| f.unit.ends_with("/s"))
            .map(|f| {
                let ratios: Vec<String> = rs
                    .iter()
                    .zip(base)
                    .map(|(o, bo)| match (o.value(&f.name), bo.value(&f.name)) {
                        (Some(v), Some(bv)) if bv != 0.0 => format!("{:.2}", v / bv),
                        _ => "–".into(),
                    })
                    .collect();
                format!("{} {}", f.name, ratios.join(" / "))
            })
            .collect();
        if !parts.is_empty() {
            notes.push(format!(
                "{} / {} per round: {}",
                engines[i].label(),
                engines[b].label(),
                parts.join("; ")
            ));
        }
    }
    notes
}

fn compare(a: CompareArgs) -> Result<bool> {
    let units = workloads::units(&a.workloads, &a.params)?;
    let default_engines: &[&str] = if units.iter().all(|u| u.workload() == "connections") {
        &[
            "strata:pool",
            "strata:thread",
            "innodb:pool",
            "innodb:thread",
        ]
    } else {
        &["innodb", "myrocks", "strata"]
    };
    let engine_names: Vec<String> = if a.engines.is_empty() {
        default_engines.iter().map(|s| s.to_string()).collect()
    } else {
        a.engines.clone()
    };
    let engines: Vec<Engine> = engine_names
        .iter()
        .map(|e| Engine::parse(e))
        .collect::<Result<_>>()?;
    if engines.is_empty() {
        anyhow::bail!("no engines given");
    }
    if engines.iter().any(|e| e.kind == Kind::InnoDb) && a.params.cache_mb < 6 {
        anyhow::bail!("--cache-mb must be at least 6: InnoDB refuses a smaller buffer pool");
    }
    if let Some(c) = &a.client_cpus {
        // Before any other thread exists: every thread and child inherits the mask (the
        // servers get their own in `Instance::start`).
        cpuset::set_client(c)?;
    }
    if let (Some(s), Some(c)) = (&a.server_cpus, &a.client_cpus) {
        if s.overlaps(c) {
            eprintln!("strata-bench: warning: --server-cpus {s} and --client-cpus {c} overlap");
        }
    }
    servers::install_signal_handler();
    if !a.no_install {
        let sysbench = units
            .iter()
            .any(|u| matches!(u.workload(), "sysbench" | "connections"));
        servers::ensure_packages(&engines, sysbench)?;
    }
    let strata_bin = a
        .strata_bin
        .clone()
        .unwrap_or_else(servers::default_strata_bin);
    let mut setup = Setup::new(
        &engines,
        a.params.cache_bytes(),
        strata_bin.clone(),
        a.base_port,
        a.keep_datadirs,
    )?;
    setup.server_cpus = a.server_cpus.clone();
    let mut columns: Vec<Column> = engines
        .iter()
        .map(|e| Column {
            label: e.label().to_string(),
            version: String::new(),
            config: String::new(),
        })
        .collect();
    let mut sections: Vec<Section> = Vec::new();
    let mut ok = true;
    for u in &units {
        // rounds[i]: engine i's outcome in each round (an error ends its rounds)
        let mut rounds: Vec<Result<Vec<Outcome>, String>> = vec![Ok(Vec::new()); engines.len()];
        for round in 0..a.rounds {
            let mut order: Vec<usize> = (0..engines.len()).collect();
            if round % 2 == 1 {
                order.reverse();
            }
            for i in order {
                let e = &engines[i];
                let Ok(done) = &mut rounds[i] else { continue };
                if a.rounds > 1 {
                    eprintln!(
                        "== {} on {} (round {} of {})",
                        u.title(),
                        e.label(),
                        round + 1,
                        a.rounds
                    );
                } else {
                    eprintln!("== {} on {}", u.title(), e.label());
                }
                let r = match Instance::start(*e, &setup) {
                    Err(err) => Err(format!("could not start the server: {err:#}")),
                    Ok(mut inst) => {
                        if columns[i].version.is_empty() {
                            columns[i].version = inst.version.clone();
                            columns[i].config = inst.config.clone();
                        }
                        let target = inst.target();
                        let ctx = Ctx {
                            target: &target,
                            params: &a.params,
                            label: e.label(),
                            cleanup: false,
                        };
                        let r = u.run(&ctx).map_err(|err| format!("{err:#}"));
                        inst.stop();
                        r
                    }
                };
                report_failed_checks(u.title(), e.label(), &r);
                match r {
                    Ok(o) => done.push(o),
                    Err(err) => {
                        eprintln!("[{}] {} failed: {err}", e.label(), u.title());
                        ok = false;
                        rounds[i] = Err(err);
                    }
                }
            }
        }
        let mut notes = u.notes();
        if a.rounds > 1 {
            notes.push(format!(
                "every figure is the median of {} rounds; each round started a fresh instance of \
                 each server, in column order in odd rounds and in reverse order in even ones",
                a.rounds
            ));
            let baseline = engines.iter().position(|e| e.kind == Kind::InnoDb);
            notes.extend(round_ratios(&engines, &rounds, baseline));
        }
        let results: Vec<Result<Outcome, String>> = rounds
            .into_iter()
            .map(|r| r.map(|o| Outcome::median_of(&o)))
            .collect();
        let section = Section {
            title: u.title(),
            params: u.params(),
            charts: u.charts(),
            results,
            notes,
        };
        ok &= !section.failed();
        sections.push(section);
    }
    setup.finish();
    let labels: Vec<&str> = engines.iter().map(|e| e.label()).collect();
    let wl = names(&units).join(", ");
    let mut extra = vec![
        (
            "memory budget".to_string(),
            format!(
                "{} MiB each: InnoDB innodb_buffer_pool_size = MyRocks rocksdb_block_cache_size \
                 = Strata --block-cache-size + --row-cache-size (3/4 blocks, 1/4 rows; the \
                 MyRocks instance keeps a 16 MiB InnoDB buffer pool for system tables)",
                a.params.cache_mb
            ),
        ),
        (
            "durability".into(),
            "sync on commit: innodb_flush_log_at_trx_commit = 1, rocksdb_flush_log_at_trx_commit \
             = 1, Strata --innodb-flush-log-at-trx-commit 1; binary log off"
                .into(),
        ),
        (
            "procedure".into(),
            if a.rounds > 1 {
                format!(
                    "each section runs {} rounds; in each round, on a fresh instance of each \
                     server (new data directory under /tmp), one server at a time, in column \
                     order in odd rounds and reverse order in even ones; the instance is stopped \
                     afterwards; figures are medians over the rounds",
                    a.rounds
                )
            } else {
                "each section runs on a fresh instance of each server (new data directory under \
                 /tmp), one server at a time; the instance is stopped afterwards"
                    .into()
            },
        ),
        ("strata binary".into(), strata_bin.display().to_string()),
    ];
    extra.extend(cpu_rows(a.server_cpus.as_ref(), a.client_cpus.as_ref()));
    let baseline = engines.iter().position(|e| e.kind == Kind::InnoDb);
    let report = Report {
        title: format!("strata-bench compare: {wl}"),
        note: a.output.note.clone(),
        setup: setup_rows(&a.params, extra),
        columns,
        baseline,
        sections,
    };
    let date = chrono::Local::now().format("%Y-%m-%d");
    let stem = report::unique_stem(
        &a.output.out,
        &format!("{date}-{}", names(&units).join("-")),
    );
    let mut summary = format!(
        "compare {}: {wl}, cache {} MiB",
        labels.join(" / "),
        a.params.cache_mb
    );
    if let Some(c) = &a.server_cpus {
        summary.push_str(&format!(", server on CPUs {c}"));
    }
    if let Some(c) = &a.client_cpus {
        summary.push_str(&format!(", clients on CPUs {c}"));
    }
    if let Some(n) = &a.output.note {
        summary.push_str(&format!(" ({n})"));
    }
    let path = report::write_report(&report, &a.output.out, &stem, &summary)?;
    println!("{}", path.display());
    Ok(ok)
}
