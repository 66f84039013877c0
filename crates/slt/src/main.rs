//! `strata-slt`: run sqllogictest scripts against a MySQL-compatible server over the wire.
//!
//! ```text
//! strata-slt [--host 127.0.0.1] [--port 3306] [--user root] [--password ''] [-j N]
//!            [--timeout S] [--fail-log FILE] [--markdown FILE] [--min-pass-rate PCT]
//!            [--max-failures-shown N] PATHS...
//! ```
//!
//! PATHS are script files or directories (searched recursively for `*.test` and `*.slt`).
//! Each file runs on its own connection in its own fresh database; `-j N` runs N files at
//! once. One line is printed per finished file, then the total, the most common failure
//! causes and the first few failures. `--fail-log` writes every failed record with its SQL and
//! expected vs. actual result (or error); `--markdown` writes a per-directory pass-rate table.
//!
//! Exit status: 1 when the total pass rate is below `--min-pass-rate`, or on a harness error
//! (unreadable or unparsable file, cannot connect, server gone); 0 otherwise.
//! See the `slt` library crate for the formatting and comparison rules.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Parser;

use slt::client::ConnConfig;
use slt::report::{self, Named, Totals};
use slt::runner::{self, FileResult, RunConfig};

#[derive(Parser, Debug)]
#[command(
    name = "strata-slt",
    version,
    about = "Run sqllogictest files against a MySQL-compatible server"
)]
struct Cli {
    /// Server host.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Server port.
    #[arg(long, default_value_t = 3306)]
    port: u16,
    /// User name.
    #[arg(long, default_value = "root")]
    user: String,
    /// Password.
    #[arg(long, default_value = "")]
    password: String,
    /// Number of files to run in parallel.
    #[arg(short = 'j', long = "jobs", default_value_t = 1)]
    jobs: usize,
    /// Per-statement timeout in seconds.
    #[arg(long, default_value_t = 30.0)]
    timeout: f64,
    /// Write every failed record (SQL, expected vs. actual or error) to this file.
    #[arg(long)]
    fail_log: Option<PathBuf>,
    /// Write a per-directory markdown table to this file.
    #[arg(long)]
    markdown: Option<PathBuf>,
    /// Exit with status 1 when the total pass rate (percent) is below this.
    #[arg(long)]
    min_pass_rate: Option<f64>,
    /// How many failed records to list on standard output at the end.
    #[arg(long, default_value_t = 10)]
    max_failures_shown: usize,
    /// Engine label for `skipif`/`onlyif` conditions.
    #[arg(long, default_value = "mysql")]
    engine: String,
    /// Script files or directories.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// A script to run and the name it is reported under.
struct Script {
    path: PathBuf,
    name: String,
    size: u64,
}

fn collect_dir(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_dir(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "test" || e == "slt") {
            out.push(path);
        }
    }
    Ok(())
}

/// The deepest directory containing every path in `bases`.
fn common_ancestor(bases: &[PathBuf]) -> PathBuf {
    let mut common: Option<PathBuf> = None;
    for b in bases {
        common = Some(match common {
            None => b.clone(),
            Some(c) => c
                .components()
                .zip(b.components())
                .take_while(|(x, y)| x == y)
                .map(|(x, _)| x.as_os_str())
                .collect(),
        });
    }
    common.unwrap_or_default()
}

/// Expand PATHS into script files. Each is named relative to the deepest directory holding all
/// the PATHS, so that names (and the markdown's directories) stay short but unambiguous.
fn collect_scripts(paths: &[PathBuf]) -> Result<Vec<Script>, String> {
    let mut found = Vec::new();
    let mut bases = Vec::new();
    for root in paths {
        let root = std::fs::canonicalize(root).map_err(|e| format!("{}: {e}", root.display()))?;
        if root.is_dir() {
            let mut in_dir = Vec::new();
            collect_dir(&root, &mut in_dir).map_err(|e| format!("{}: {e}", root.display()))?;
            in_dir.sort();
            found.extend(in_dir);
            bases.push(root);
        } else {
            bases.push(root.parent().map(Path::to_path_buf).unwrap_or_default());
            found.push(root);
        }
    }
    let base = common_ancestor(&bases);
    let mut scripts = Vec::new();
    for path in found {
        if scripts.iter().any(|s: &Script| s.path == path) {
            continue; // named twice on the command line
        }
        let name = path
            .strip_prefix(&base)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        scripts.push(Script { path, name, size });
    }
    Ok(scripts)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let scripts = match collect_scripts(&cli.paths) {
        Ok(s) if !s.is_empty() => s,
        Ok(_) => {
            eprintln!("strata-slt: no *.test or *.slt files found");
            return ExitCode::from(1);
        }
        Err(e) => {
            eprintln!("strata-slt: {e}");
            return ExitCode::from(1);
        }
    };
    if !(cli.timeout > 0.0 && cli.timeout.is_finite()) {
        eprintln!("strata-slt: --timeout must be a positive number of seconds");
        return ExitCode::from(1);
    }
    let cfg = RunConfig {
        conn: ConnConfig {
            host: cli.host.clone(),
            port: cli.port,
            user: cli.user.clone(),
            password: cli.password.clone(),
            timeout: Duration::from_secs_f64(cli.timeout),
        },
        engine: cli.engine.clone(),
    };

    // Biggest files first, so that parallel workers finish at about the same time.
    let mut order: Vec<usize> = (0..scripts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(scripts[i].size));

    let mut fail_log = match cli
        .fail_log
        .as_deref()
        .map(report::FailLog::create)
        .transpose()
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("strata-slt: cannot create the fail log: {e}");
            return ExitCode::from(1);
        }
    };
    let mut failed_io = false;

    let started = Instant::now();
    let jobs = cli.jobs.clamp(1, scripts.len());
    let next = AtomicUsize::new(0);
    let mut results: Vec<Option<FileResult>> = (0..scripts.len()).map(|_| None).collect();
    let (tx, rx) = mpsc::channel::<(usize, FileResult)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, order, scripts, cfg) = (&next, &order, &scripts, &cfg);
            scope.spawn(move || loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = order.get(k) else { break };
                let res = runner::run_file(&scripts[i].path, i, cfg);
                if tx.send((i, res)).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let width = scripts.len().to_string().len();
        for (done, (i, res)) in rx.iter().enumerate() {
            println!(
                "[{:>width$}/{}] {}",
                done + 1,
                scripts.len(),
                report::file_line(&scripts[i].name, &res)
            );
            if let Some(log) = fail_log.as_mut() {
                if let Err(e) = log.add_file(&scripts[i].name, &res) {
                    eprintln!("strata-slt: writing the fail log: {e}");
                    failed_io = true;
                    fail_log = None;
                }
            }
            results[i] = Some(res);
        }
    });
    let elapsed = started.elapsed();

    // Every worker reports every file it takes, so no slot stays empty; pairing each result
    // with its script (rather than zipping two lists) keeps names right regardless.
    let (done_scripts, results): (Vec<&Script>, Vec<FileResult>) = scripts
        .iter()
        .zip(results)
        .filter_map(|(s, r)| r.map(|r| (s, r)))
        .unzip();
    let named: Vec<Named<'_>> = done_scripts
        .iter()
        .zip(&results)
        .map(|(s, r)| Named {
            name: &s.name,
            result: r,
        })
        .collect();
    let mut total = Totals::default();
    for r in &results {
        total.add(r);
    }
    println!(
        "TOTAL: {} files, {} passed, {} failed, {} skipped, {} total, {:.2}% passed, {:.1}s{}",
        total.files,
        total.passed,
        total.failed,
        total.skipped,
        total.run() + total.skipped,
        total.pct(),
        elapsed.as_secs_f64(),
        if total.errors > 0 {
            format!(", {} file(s) with harness errors", total.errors)
        } else {
            String::new()
        }
    );

    let causes = report::group_causes(results.iter().flat_map(|r| r.failures.iter()));
    if !causes.is_empty() {
        println!("Most common failure causes:");
        for (cause, n) in causes.iter().take(15) {
            println!("  {n:>7}  {cause}");
        }
    }
    if cli.max_failures_shown > 0 && results.iter().any(|r| !r.failures.is_empty()) {
        println!("First failures:");
        let firsts = named
            .iter()
            .flat_map(|nf| nf.result.failures.iter().map(move |f| (nf.name, f)))
            .take(cli.max_failures_shown);
        for (name, f) in firsts {
            let sql: String = f.sql.split_whitespace().collect::<Vec<_>>().join(" ");
            let sql = if sql.chars().count() > 100 {
                sql.chars().take(100).collect::<String>() + "…"
            } else {
                sql
            };
            println!(
                "  {name}:{}: {}  [{sql}]",
                f.line,
                report::cause_key(&f.kind)
            );
        }
    }

    if let Some(log) = fail_log {
        if let Err(e) = log.finish(&causes) {
            eprintln!("strata-slt: writing the fail log: {e}");
            failed_io = true;
        }
    }
    if let Some(path) = &cli.markdown {
        if let Err(e) = std::fs::write(path, report::markdown_table(&named)) {
            eprintln!("strata-slt: cannot write {}: {e}", path.display());
            failed_io = true;
        }
    }

    let below = cli.min_pass_rate.is_some_and(|min| total.pct() < min);
    if below {
        println!(
            "pass rate {:.2}% is below the required {:.2}%",
            total.pct(),
            cli.min_pass_rate.unwrap_or_default()
        );
    }
    if below || total.errors > 0 || failed_io {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
