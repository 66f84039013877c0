//! CPU sets for `--server-cpus` / `--client-cpus`: Linux CPU lists (`0-7`, `0,2,4`,
//! `0-15:2`) parsed, checked against the CPUs this process may run on, and applied with
//! `sched_setaffinity(2)` — to a child in a `pre_exec` hook (the servers, sysbench), or to every
//! thread of this process (its own client threads, and the children it starts afterwards, which
//! inherit the mask).

use std::fmt;
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::OnceLock;

use anyhow::{bail, Context, Result};

/// The largest CPU number a `cpu_set_t` holds, plus one.
const MAX_CPUS: usize = libc::CPU_SETSIZE as usize;

/// A non-empty set of CPU numbers, ascending and without duplicates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuSet {
    cpus: Vec<usize>,
}

fn number(s: &str, whole: &str) -> Result<usize> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        bail!("bad CPU list '{whole}': '{s}' is not a CPU number (expected e.g. 0-7 or 0,2,4)");
    }
    let n: usize = s
        .parse()
        .with_context(|| format!("bad CPU list '{whole}': '{s}' is too large"))?;
    if n >= MAX_CPUS {
        bail!("bad CPU list '{whole}': CPU {n} is beyond the {MAX_CPUS} CPUs Linux can address");
    }
    Ok(n)
}

impl CpuSet {
    /// Parses a Linux CPU list: comma-separated items, each `N`, `N-M` or `N-M:STRIDE` (every
    /// STRIDE-th CPU of the range). Only the syntax is checked; see [`CpuSet::parse_available`].
    ///
    /// # Errors
    /// On bad syntax, a descending range, a zero stride or an empty list.
    pub fn parse(s: &str) -> Result<CpuSet> {
        let mut cpus = Vec::new();
        for item in s.split(',') {
            let item = item.trim();
            if item.is_empty() {
                bail!("bad CPU list '{s}': empty item (expected e.g. 0-7 or 0,2,4)");
            }
            let (range, stride) = match item.split_once(':') {
                Some((r, st)) => (r, number(st, s)?),
                None => (item, 1),
            };
            if stride == 0 {
                bail!("bad CPU list '{s}': stride 0 in '{item}'");
            }
            let (lo, hi) = match range.split_once('-') {
                Some((a, b)) => (number(a, s)?, number(b, s)?),
                None if item.contains(':') => {
                    bail!("bad CPU list '{s}': a stride needs a range ('{item}')")
                }
                None => {
                    let n = number(range, s)?;
                    (n, n)
                }
            };
            if hi < lo {
                bail!("bad CPU list '{s}': descending range '{range}'");
            }
            cpus.extend((lo..=hi).step_by(stride));
        }
        cpus.sort_unstable();
        cpus.dedup();
        Ok(CpuSet { cpus })
    }

    /// Parses a CPU list and checks that this process may run on every CPU in it (the CPUs
    /// that exist, are online and are in this process's own affinity mask).
    ///
    /// # Errors
    /// On bad syntax, or when a CPU is not available.
    pub fn parse_available(s: &str) -> Result<CpuSet> {
        let set = CpuSet::parse(s)?;
        set.check_within(&allowed_cpus()?)?;
        Ok(set)
    }

    /// Checks that every CPU of the set is in `allowed`.
    ///
    /// # Errors
    /// Naming the CPUs that are not.
    pub fn check_within(&self, allowed: &[usize]) -> Result<()> {
        let missing: Vec<usize> = self
            .cpus
            .iter()
            .copied()
            .filter(|c| !allowed.contains(c))
            .collect();
        if !missing.is_empty() {
            bail!(
                "CPU list '{self}': CPU{} {} not available (this machine lets strata-bench run \
                 on CPUs {}, {} in all)",
                if missing.len() > 1 { "s" } else { "" },
                list_string(&missing),
                list_string(allowed),
                allowed.len()
            );
        }
        Ok(())
    }

    /// The CPU numbers, ascending.
    pub fn cpus(&self) -> &[usize] {
        &self.cpus
    }

    /// Number of CPUs.
    pub fn len(&self) -> usize {
        self.cpus.len()
    }

    /// Whether the set is empty (never, for a parsed set).
    pub fn is_empty(&self) -> bool {
        self.cpus.is_empty()
    }

    /// Whether the two sets share a CPU.
    pub fn overlaps(&self, other: &CpuSet) -> bool {
        self.cpus.iter().any(|c| other.cpus.contains(c))
    }

    fn mask(&self) -> libc::cpu_set_t {
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set, and CPU_SET is
        // given CPU numbers below CPU_SETSIZE (checked when parsing).
        unsafe {
            let mut m: libc::cpu_set_t = std::mem::zeroed();
            for &c in &self.cpus {
                libc::CPU_SET(c, &mut m);
            }
            m
        }
    }

    /// Makes `cmd`'s process run on these CPUs only: `sched_setaffinity` in the child between
    /// fork and exec (spawning fails when the kernel refuses the mask).
    pub fn pin_command(&self, cmd: &mut Command) {
        let mask = self.mask();
        // SAFETY: the hook only calls sched_setaffinity(2), a plain system call that is safe
        // between fork and exec, on a mask copied into the closure before the fork.
        unsafe {
            cmd.pre_exec(move || {
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mask) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }

    /// Makes every thread of this process run on these CPUs; threads and processes it starts
    /// afterwards inherit the mask.
    ///
    /// # Errors
    /// When the kernel refuses the mask for a thread.
    pub fn pin_this_process(&self) -> Result<()> {
        let mask = self.mask();
        let mut tids: Vec<libc::pid_t> = std::fs::read_dir("/proc/self/task")
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().to_str()?.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        if tids.is_empty() {
            tids.push(0); // the calling thread
        }
        for tid in tids {
            // SAFETY: sched_setaffinity reads the local mask only.
            let r = unsafe {
                libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mask)
            };
            // A thread may have exited since the directory was read (ESRCH): not an error.
            if r != 0 {
                let e = std::io::Error::last_os_error();
                if e.raw_os_error() != Some(libc::ESRCH) {
                    return Err(e).with_context(|| format!("pinning this process to CPUs {self}"));
                }
            }
        }
        Ok(())
    }

    /// A description for reports: `0-7 (8 CPUs)`.
    pub fn describe(&self) -> String {
        let n = self.len();
        format!("{self} ({n} CPU{})", if n == 1 { "" } else { "s" })
    }
}

impl fmt::Display for CpuSet {
    /// The compact list form: `0-3,8,10-11`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&list_string(&self.cpus))
    }
}

/// `[0, 1, 2, 5]` → `0-2,5` (the input ascending and without duplicates).
pub fn list_string(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The CPUs this process may run on (`sched_getaffinity`).
///
/// # Errors
/// When the kernel call fails.
pub fn allowed_cpus() -> Result<Vec<usize>> {
    // SAFETY: sched_getaffinity writes into the zeroed local mask; CPU_ISSET reads it for
    // numbers below CPU_SETSIZE.
    unsafe {
        let mut m: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut m) != 0 {
            return Err(std::io::Error::last_os_error()).context("sched_getaffinity");
        }
        Ok((0..MAX_CPUS).filter(|&c| libc::CPU_ISSET(c, &m)).collect())
    }
}

/// The client CPU set of this run, once set by [`set_client`]: sysbench processes are started
/// on it.
static CLIENT: OnceLock<CpuSet> = OnceLock::new();

/// Pins this process (the load generator's own threads and every process it starts later,
/// unless that process gets its own set) to `set`, and remembers it for
/// [`pin_client_command`].
///
/// # Errors
/// When the kernel refuses the mask.
pub fn set_client(set: &CpuSet) -> Result<()> {
    set.pin_this_process()?;
    let _ = CLIENT.set(set.clone());
    Ok(())
}

/// The client CPU set, when one was given.
pub fn client() -> Option<&'static CpuSet> {
    CLIENT.get()
}

/// Starts `cmd` (a load generator such as sysbench) on the client CPUs, when a set was given.
pub fn pin_client_command(cmd: &mut Command) {
    if let Some(set) = client() {
        set.pin_command(cmd);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse() {
        assert_eq!(CpuSet::parse("0-3").unwrap().cpus(), &[0, 1, 2, 3]);
        assert_eq!(CpuSet::parse("0,2,4").unwrap().cpus(), &[0, 2, 4]);
        assert_eq!(CpuSet::parse(" 5 , 1-2,2").unwrap().cpus(), &[1, 2, 5]);
        assert_eq!(CpuSet::parse("0-7:3").unwrap().cpus(), &[0, 3, 6]);
        assert_eq!(CpuSet::parse("9").unwrap().to_string(), "9");
        for bad in [
            "", "a", "1-", "-1", "3-1", "1,,2", "0-3:0", "4:2", "1.5", "99999",
        ] {
            assert!(CpuSet::parse(bad).is_err(), "{bad} should not parse");
        }
    }

    #[test]
    fn display_and_membership() {
        let s = CpuSet::parse("8,0-2,10-11").unwrap();
        assert_eq!(s.to_string(), "0-2,8,10-11");
        assert_eq!(s.describe(), "0-2,8,10-11 (6 CPUs)");
        assert_eq!(CpuSet::parse("3").unwrap().describe(), "3 (1 CPU)");
        assert!(s.overlaps(&CpuSet::parse("11-12").unwrap()));
        assert!(!s.overlaps(&CpuSet::parse("3-7").unwrap()));
        assert!(s.check_within(&[0, 1, 2, 8, 10, 11]).is_ok());
        let e = s.check_within(&[0, 1]).unwrap_err().to_string();
        assert!(e.contains("CPUs 2,8,10-11 not available"), "{e}");
        assert!(e.contains("CPUs 0-1, 2 in all"), "{e}");
        assert_eq!(list_string(&[]), "");
    }

    #[test]
    fn available_cpus_and_pinning_a_child() {
        let allowed = allowed_cpus().unwrap();
        assert!(!allowed.is_empty());
        let first = allowed[0];
        assert!(CpuSet::parse_available(&first.to_string()).is_ok());
        assert!(CpuSet::parse_available("1023").is_err() || allowed.contains(&1023));
        // A child started on the first allowed CPU sees exactly that CPU in its mask.
        let set = CpuSet::parse(&first.to_string()).unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "grep Cpus_allowed_list /proc/self/status"]);
        set.pin_command(&mut cmd);
        let out = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            text.split(':').nth(1).map(str::trim),
            Some(first.to_string().as_str()),
            "{text}"
        );
    }
}
