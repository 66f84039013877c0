//! Facts about this machine and its processes, read from `/proc`: CPUs, memory, load, a
//! process's resident set size, and the disk usage of a directory tree.

use std::path::Path;

/// The value of a `Key: value kB` line of a `/proc` status-style text, in bytes.
pub fn parse_kb_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let rest = l.strip_prefix(key)?.strip_prefix(':')?;
        let mut it = rest.split_whitespace();
        let n: u64 = it.next()?.parse().ok()?;
        match it.next() {
            Some("kB") | Some("KB") => Some(n * 1024),
            None => Some(n),
            Some(_) => None,
        }
    })
}

/// Resident set size of a process (`VmRSS` in `/proc/<pid>/status`), in bytes.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_kb_field(&s, "VmRSS")
}

/// The apparent size of every file under `path` (like `du -s --apparent-size`; space that
/// RocksDB preallocates for its log with `fallocate` is not counted until written); 0 when
/// unreadable.
pub fn dir_size(path: &Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .map(|entries| entries.flatten().map(|e| dir_size(&e.path())).sum())
        .unwrap_or(0)
}

/// Number of CPUs online on the machine (not only those this process is pinned to by
/// `--client-cpus`).
pub fn cpus() -> usize {
    // SAFETY: sysconf only reads a configuration value.
    let online = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if online > 0 {
        return online as usize;
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// Total memory in bytes (`MemTotal` of `/proc/meminfo`).
pub fn mem_total() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_kb_field(&s, "MemTotal")
}

/// The first `model name` of `/proc/cpuinfo`.
pub fn cpu_model() -> Option<String> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    s.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// The 1/5/15-minute load averages as printed in `/proc/loadavg`.
pub fn load_average() -> Option<String> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

/// Kernel release.
pub fn kernel() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .ok()
        .map(|s| s.trim().to_string())
}

/// One line describing the machine: CPUs, model, memory, kernel.
pub fn describe() -> String {
    let mut parts = vec![format!("{} CPUs", cpus())];
    if let Some(m) = cpu_model() {
        parts.push(m);
    }
    if let Some(b) = mem_total() {
        parts.push(format!("{:.1} GiB RAM", b as f64 / (1u64 << 30) as f64));
    }
    if let Some(k) = kernel() {
        parts.push(format!("Linux {k}"));
    }
    parts.join(", ")
}

/// Clock ticks per second of the `/proc` CPU times.
fn clock_ticks() -> f64 {
    // SAFETY: sysconf only reads a configuration value.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// CPU seconds (user + system, all threads) a process has used so far
/// (`/proc/<pid>/stat` fields 14 and 15).
pub fn process_cpu_seconds(pid: u32) -> Option<f64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may contain spaces: count fields after its closing ')'.
    let rest = &s[s.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let (utime, stime): (f64, f64) = (f.get(11)?.parse().ok()?, f.get(12)?.parse().ok()?);
    Some((utime + stime) / clock_ticks())
}

/// Busy CPU seconds of the whole machine so far, summed over CPUs: every `cpu` time of
/// `/proc/stat` except idle and iowait.
pub fn machine_busy_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/stat").ok()?;
    let line = s.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest times are inside user/nice)
    let busy: f64 = v
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, x)| x)
        .sum();
    Some(busy / clock_ticks())
}

/// What the two figures of [`CpuMark::per_txn`] mean, for a workload's notes.
pub const CPU_PER_TXN_NOTE: &str = "\"server CPU per txn\" is the server process's user + system \
     CPU time (all threads) during the run divided by the transactions counted; \"other CPU per \
     txn\" is the rest of the machine's busy CPU time in the same interval (mostly the load \
     generator and the kernel's work for it, and anything else running) divided by the same \
     count. Where the load generator shares the server's CPUs and they are saturated, tps is \
     bounded by the two together; the server CPU is the figure that compares the engines' \
     efficiency, and moves less with other load on the machine than tps.";

/// CPU seconds (user + system) of this process (all its threads: the in-process load
/// generators) plus those of its children that have ended and been waited for (sysbench runs),
/// from `getrusage(RUSAGE_SELF)` and `getrusage(RUSAGE_CHILDREN)`. The difference between two
/// readings around a sysbench run or an in-process load is the load generator's CPU time.
pub fn client_cpu_seconds() -> Option<f64> {
    let usage = |who: libc::c_int| -> Option<f64> {
        // SAFETY: getrusage writes into the zeroed local struct only.
        let mut r: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: as above.
        if unsafe { libc::getrusage(who, &mut r) } != 0 {
            return None;
        }
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        Some(tv(r.ru_utime) + tv(r.ru_stime))
    };
    Some(usage(libc::RUSAGE_SELF)? + usage(libc::RUSAGE_CHILDREN)?)
}

/// What the client CPU figures mean, for a workload's notes.
pub const CLIENT_CPU_NOTE: &str = "\"client CPU\" is the load generator's user + system CPU time \
     during the run: strata-bench's own threads plus the sysbench processes it started and \
     waited for (getrusage RUSAGE_SELF + RUSAGE_CHILDREN); \"other CPU per txn\" includes it. \
     \"server CPU\" is read from /proc/PID/stat of the server process.";

/// CPU seconds spent during one measured interval, split between the server, the load
/// generator and the whole machine, with the transactions counted in it (NaN when unknown).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuSplit {
    /// The server process (all threads).
    pub server_s: f64,
    /// The load generator: this process and its waited-for children.
    pub client_s: f64,
    /// The whole machine's busy time.
    pub machine_s: f64,
    /// Transactions counted.
    pub txns: f64,
}

impl Default for CpuSplit {
    fn default() -> CpuSplit {
        CpuSplit {
            server_s: f64::NAN,
            client_s: f64::NAN,
            machine_s: f64::NAN,
            txns: f64::NAN,
        }
    }
}

impl CpuSplit {
    /// An empty total to [`CpuSplit::add`] intervals to.
    pub fn zero() -> CpuSplit {
        CpuSplit {
            server_s: 0.0,
            client_s: 0.0,
            machine_s: 0.0,
            txns: 0.0,
        }
    }

    /// Adds another interval (NaN stays NaN: an unknown part makes the total unknown).
    pub fn add(&mut self, o: &CpuSplit) {
        self.server_s += o.server_s;
        self.client_s += o.client_s;
        self.machine_s += o.machine_s;
        self.txns += o.txns;
    }

    /// (server, client, other) CPU µs per transaction; "other" is the machine's busy time
    /// minus the server's (it includes the client's, as the figure always has). NaN when the
    /// transaction count is unknown or zero.
    pub fn per_txn_us(&self) -> (f64, f64, f64) {
        if self.txns.is_nan() || self.txns <= 0.0 {
            return (f64::NAN, f64::NAN, f64::NAN);
        }
        let us = |s: f64| s * 1e6 / self.txns;
        let other = if self.server_s.is_nan() {
            self.machine_s
        } else {
            (self.machine_s - self.server_s).max(0.0)
        };
        (us(self.server_s), us(self.client_s), us(other))
    }
}

/// CPU times at the start of a load run, to split each transaction's CPU cost between the
/// server and everything else on the machine (mostly the load generator, which shares the
/// CPUs on the machine the benchmarks run on).
#[derive(Debug, Clone, Copy)]
pub struct CpuMark {
    pid: Option<u32>,
    server: Option<f64>,
    busy: Option<f64>,
    client: Option<f64>,
}

impl CpuMark {
    /// The CPU times now, for server process `pid` (when known) and the whole machine.
    pub fn now(pid: Option<u32>) -> CpuMark {
        CpuMark {
            pid,
            server: pid.and_then(process_cpu_seconds),
            busy: machine_busy_seconds(),
            client: client_cpu_seconds(),
        }
    }

    /// The CPU seconds spent since the mark, with `txns` transactions counted in them.
    pub fn split(&self, txns: Option<f64>) -> CpuSplit {
        let delta = |a: Option<f64>, b: Option<f64>| a.zip(b).map_or(f64::NAN, |(a, b)| b - a);
        CpuSplit {
            server_s: delta(self.server, self.pid.and_then(process_cpu_seconds)),
            client_s: delta(self.client, client_cpu_seconds()),
            machine_s: delta(self.busy, machine_busy_seconds()),
            txns: txns.unwrap_or(f64::NAN),
        }
    }

    /// (server µs, other µs) per transaction since the mark, for `txns` transactions; NaN
    /// when unknown.
    pub fn per_txn(&self, txns: Option<f64>) -> (f64, f64) {
        self.per_txn_from(
            txns,
            self.pid.and_then(process_cpu_seconds),
            machine_busy_seconds(),
        )
    }

    fn per_txn_from(
        &self,
        txns: Option<f64>,
        server: Option<f64>,
        busy: Option<f64>,
    ) -> (f64, f64) {
        let Some(n) = txns.filter(|n| *n > 0.0) else {
            return (f64::NAN, f64::NAN);
        };
        let server = self.server.zip(server).map(|(a, b)| b - a);
        let busy = self.busy.zip(busy).map(|(a, b)| b - a);
        let us = |s: f64| s * 1e6 / n;
        match (server, busy) {
            (Some(s), Some(b)) => (us(s), us((b - s).max(0.0))),
            (Some(s), None) => (us(s), f64::NAN),
            (None, Some(b)) => (f64::NAN, us(b)),
            (None, None) => (f64::NAN, f64::NAN),
        }
    }
}

/// Bytes as MiB.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_times_of_this_process_and_machine() {
        let pid = std::process::id();
        let a = process_cpu_seconds(pid).expect("own /proc stat");
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let b = process_cpu_seconds(pid).expect("own /proc stat");
        assert!(b >= a && a >= 0.0);
        assert!(machine_busy_seconds().expect("/proc/stat") > 0.0);
        assert!(process_cpu_seconds(u32::MAX).is_none());
    }

    #[test]
    fn cpu_per_transaction_splits_server_and_rest() {
        let mark = CpuMark {
            pid: Some(1),
            server: Some(10.0),
            busy: Some(100.0),
            client: None,
        };
        // 2 s of server CPU and 3 s of machine CPU over 1000 transactions
        let (s, o) = mark.per_txn_from(Some(1000.0), Some(12.0), Some(103.0));
        assert!((s - 2000.0).abs() < 1e-6 && (o - 1000.0).abs() < 1e-6);
        // the server's share cannot make the rest negative
        let (_, o) = mark.per_txn_from(Some(1000.0), Some(15.0), Some(103.0));
        assert_eq!(o, 0.0);
        assert!(mark
            .per_txn_from(Some(1000.0), None, Some(103.0))
            .0
            .is_nan());
        assert!(mark.per_txn_from(None, Some(12.0), Some(103.0)).0.is_nan());
        assert!(mark
            .per_txn_from(Some(0.0), Some(12.0), Some(103.0))
            .1
            .is_nan());
    }

    #[test]
    fn client_cpu_counts_this_process_and_waited_children() {
        let a = client_cpu_seconds().expect("getrusage");
        let mark = CpuMark::now(Some(std::process::id()));
        let mut x = 0u64;
        for i in 0..50_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let st = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(st.success());
        let b = client_cpu_seconds().expect("getrusage");
        assert!(b > a, "{a} -> {b}");
        let split = mark.split(Some(1000.0));
        assert!(split.client_s > 0.0 && split.server_s >= 0.0 && split.machine_s >= 0.0);
        assert_eq!(split.txns, 1000.0);
    }

    #[test]
    fn cpu_split_per_transaction_and_totals() {
        let s = CpuSplit {
            server_s: 2.0,
            client_s: 0.5,
            machine_s: 3.0,
            txns: 1000.0,
        };
        let (sv, cl, ot) = s.per_txn_us();
        assert!((sv - 2000.0).abs() < 1e-9 && (cl - 500.0).abs() < 1e-9);
        assert!((ot - 1000.0).abs() < 1e-9);
        let mut t = CpuSplit::zero();
        t.add(&s);
        t.add(&s);
        assert_eq!((t.server_s, t.client_s, t.txns), (4.0, 1.0, 2000.0));
        assert!(CpuSplit::default().per_txn_us().0.is_nan());
        let mut unknown = CpuSplit::zero();
        unknown.add(&CpuSplit::default());
        assert!(unknown.server_s.is_nan());
    }

    #[test]
    fn kb_fields() {
        let status = "Name:\tmariadbd\nVmPeak:\t  123 kB\nVmRSS:\t   2048 kB\nThreads: 7\n";
        assert_eq!(parse_kb_field(status, "VmRSS"), Some(2048 * 1024));
        assert_eq!(parse_kb_field(status, "Threads"), Some(7));
        assert_eq!(parse_kb_field(status, "VmSwap"), None);
        assert_eq!(
            parse_kb_field("MemTotal:       24681234 kB\n", "MemTotal"),
            Some(24681234 * 1024)
        );
    }

    #[test]
    fn own_process_and_dir_size() {
        assert!(rss_bytes(std::process::id()).unwrap() > 0);
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/f"), vec![1u8; 100_000]).unwrap();
        assert!(dir_size(dir.path()) >= 100_000);
        assert_eq!(dir_size(&dir.path().join("missing")), 0);
        assert!(describe().contains("CPUs"));
    }
}
