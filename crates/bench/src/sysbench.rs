//! Running the installed `sysbench` (1.0) and parsing its final report.

use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::client::Target;

/// The figures of one `sysbench … run`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SysbenchResult {
    /// Transactions per second.
    pub tps: f64,
    /// Queries per second.
    pub qps: f64,
    /// The latency percentile sysbench printed (95th by default), in ms.
    pub p95_ms: f64,
    /// Average latency in ms.
    pub avg_ms: f64,
    /// Errors sysbench ignored (deadlocks, lock wait timeouts) per second.
    pub errors_per_s: f64,
}

/// The number inside `(… per sec.)` on a line starting with `key:`.
fn per_sec(line: &str) -> Option<f64> {
    let open = line.find('(')?;
    let rest = &line[open + 1..];
    let end = rest.find("per sec")?;
    rest[..end].trim().parse().ok()
}

/// The number after `key:` on a line.
fn after_colon(line: &str) -> Option<f64> {
    line.split_once(':')?
        .1
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Parses the summary that `sysbench <oltp test> run` prints at the end.
///
/// # Errors
/// When the transactions or the latency percentile are missing (the run failed).
pub fn parse_output(out: &str) -> Result<SysbenchResult> {
    let mut tps = None;
    let mut qps = None;
    let mut p95 = None;
    let mut avg = None;
    let mut errors = 0.0;
    for line in out.lines().map(str::trim) {
        if line.starts_with("transactions:") {
            tps = per_sec(line);
        } else if line.starts_with("queries:") {
            qps = per_sec(line);
        } else if line.starts_with("ignored errors:") {
            errors = per_sec(line).unwrap_or(0.0);
        } else if line.contains("th percentile:") {
            p95 = after_colon(line);
        } else if line.starts_with("avg:") {
            avg = after_colon(line);
        }
    }
    let (Some(tps), Some(p95)) = (tps, p95) else {
        bail!("no transactions/percentile in sysbench output");
    };
    Ok(SysbenchResult {
        tps,
        qps: qps.unwrap_or(f64::NAN),
        p95_ms: p95,
        avg_ms: avg.unwrap_or(f64::NAN),
        errors_per_s: errors,
    })
}

/// The connection options shared by every sysbench call.
pub fn connection_args(t: &Target, db: &str) -> Vec<String> {
    vec![
        "--db-driver=mysql".into(),
        format!("--mysql-host={}", t.host),
        format!("--mysql-port={}", t.port),
        format!("--mysql-user={}", t.user),
        format!("--mysql-password={}", t.password),
        format!("--mysql-db={db}"),
    ]
}

/// Runs `sysbench <test> <args…> <command>`; returns its standard output.
pub fn sysbench(test: &str, args: &[String], command: &str) -> Result<String> {
    let mut cmd = Command::new("sysbench");
    cmd.arg(test).args(args).arg(command);
    crate::cpuset::pin_client_command(&mut cmd);
    let out = cmd
        .output()
        .context("cannot run sysbench (is it installed? apt-get install sysbench)")?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        bail!(
            "sysbench {test} {command} failed ({}): {}{}",
            out.status,
            tail(&stdout, 1500),
            tail(&String::from_utf8_lossy(&out.stderr), 1500)
        );
    }
    Ok(stdout)
}

/// Runs `sysbench <test> <args…> run` where the args include `--forced-shutdown`: returns its
/// standard output and whether sysbench forced the shutdown (it then exits with status 2 after
/// printing the summary of what completed).
pub fn sysbench_run_forced(test: &str, args: &[String]) -> Result<(String, bool)> {
    let mut cmd = Command::new("sysbench");
    cmd.arg(test).args(args).arg("run");
    crate::cpuset::pin_client_command(&mut cmd);
    let out = cmd
        .output()
        .context("cannot run sysbench (is it installed? apt-get install sysbench)")?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let forced = out.status.code() == Some(2)
        && (stdout.contains("forcing shutdown") || stderr.contains("forcing shutdown"));
    if !out.status.success() && !forced {
        bail!(
            "sysbench {test} run failed ({}): {}{}",
            out.status,
            tail(&stdout, 1500),
            tail(&stderr, 1500)
        );
    }
    Ok((stdout, forced))
}

fn tail(s: &str, n: usize) -> &str {
    let start = s.len().saturating_sub(n);
    let mut i = start;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

#[cfg(test)]
mod tests {
    use super::*;

    // The shape of sysbench 1.0.20's report (numbers made up).
    const SAMPLE: &str = "\
sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: 8
Initializing random number generator from current time

Initializing worker threads...

Threads started!

SQL statistics:
    queries performed:
        read:                            140126
        write:                           40036
        other:                           20018
        total:                           200180
    transactions:                        10009  (1000.42 per sec.)
    queries:                             200180 (20008.40 per sec.)
    ignored errors:                      3      (0.30 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          10.0036s
    total number of events:              10009

Latency (ms):
         min:                                    2.10
         avg:                                    7.99
         max:                                   81.33
         95th percentile:                       14.46
         sum:                                79992.17

Threads fairness:
    events (avg/stddev):           1251.1250/10.31
    execution time (avg/stddev):   9.9990/0.00
";

    #[test]
    fn parses_the_summary() {
        let r = parse_output(SAMPLE).unwrap();
        assert_eq!(r.tps, 1000.42);
        assert_eq!(r.qps, 20008.40);
        assert_eq!(r.p95_ms, 14.46);
        assert_eq!(r.avg_ms, 7.99);
        assert_eq!(r.errors_per_s, 0.30);
    }

    #[test]
    fn parses_other_percentiles_and_rejects_failures() {
        let out = SAMPLE.replace("95th percentile", "99th percentile");
        assert_eq!(parse_output(&out).unwrap().p95_ms, 14.46);
        assert!(parse_output("FATAL: error 2013: Lost connection").is_err());
        let no_lat = SAMPLE.replace("95th percentile:                       14.46", "");
        assert!(parse_output(&no_lat).is_err());
    }

    #[test]
    fn helpers() {
        assert_eq!(per_sec("transactions: 5 (2.50 per sec.)"), Some(2.5));
        assert_eq!(per_sec("transactions: 5"), None);
        assert_eq!(after_colon("max:   81.33"), Some(81.33));
        assert_eq!(tail("héllo", 4), "llo");
    }
}
