//! Private server instances for `compare`: MariaDB with InnoDB, MariaDB with MyRocks, and
//! Strata, each started on a spare port in a fresh temporary data directory with the same
//! cache budget and sync-on-commit durability, and stopped (and deleted) afterwards — also on
//! Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use mysql::prelude::Queryable;

use crate::client::Target;
use crate::cpuset::CpuSet;

/// A server kind `compare` can start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// MariaDB with InnoDB.
    InnoDb,
    /// MariaDB with the MyRocks plugin as the default engine.
    MyRocks,
    /// Strata.
    Strata,
}

/// How a server handles connections (`thread_handling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// `pool-of-threads` (Strata's default).
    Pool,
    /// `one-thread-per-connection` (MariaDB's default).
    PerThread,
}

/// A server `compare` can start: a kind and, optionally, an explicit `thread_handling`
/// (otherwise the server's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Engine {
    /// Which server.
    pub kind: Kind,
    /// `thread_handling`, when set explicitly.
    pub handling: Option<Handling>,
}

impl Engine {
    /// MariaDB/InnoDB with its default thread handling.
    pub const INNODB: Engine = Engine {
        kind: Kind::InnoDb,
        handling: None,
    };

    /// Parses `innodb`, `myrocks` or `strata` (any case), optionally followed by `:pool`
    /// (`thread_handling=pool-of-threads`) or `:thread` (`one-thread-per-connection`).
    pub fn parse(s: &str) -> Result<Engine> {
        let lower = s.to_ascii_lowercase();
        let (name, handling) = match lower.split_once(':') {
            None => (lower.as_str(), None),
            Some((n, "pool")) => (n, Some(Handling::Pool)),
            Some((n, "thread")) => (n, Some(Handling::PerThread)),
            Some((_, h)) => bail!(
                "unknown thread handling '{h}' in '{s}' (pool = pool-of-threads, thread = \
                 one-thread-per-connection)"
            ),
        };
        let kind = match name {
            "innodb" => Kind::InnoDb,
            "myrocks" | "rocksdb" => Kind::MyRocks,
            "strata" => Kind::Strata,
            other => bail!("unknown engine '{other}' (innodb, myrocks, strata)"),
        };
        Ok(Engine { kind, handling })
    }

    /// Whether it is a MariaDB server.
    pub fn is_mariadb(self) -> bool {
        self.kind != Kind::Strata
    }

    /// The report label.
    pub fn label(self) -> &'static str {
        match (self.kind, self.handling) {
            (Kind::InnoDb, None) => "InnoDB",
            (Kind::InnoDb, Some(Handling::Pool)) => "InnoDB pool",
            (Kind::InnoDb, Some(Handling::PerThread)) => "InnoDB thread/conn",
            (Kind::MyRocks, None) => "MyRocks",
            (Kind::MyRocks, Some(Handling::Pool)) => "MyRocks pool",
            (Kind::MyRocks, Some(Handling::PerThread)) => "MyRocks thread/conn",
            (Kind::Strata, None) => "Strata",
            (Kind::Strata, Some(Handling::Pool)) => "Strata pool",
            (Kind::Strata, Some(Handling::PerThread)) => "Strata thread/conn",
        }
    }

    /// A file-name-safe form of the label.
    fn dir_name(self) -> String {
        self.label().to_ascii_lowercase().replace([' ', '/'], "-")
    }
}

/// The `thread_handling` value of a handling.
fn handling_value(h: Handling) -> &'static str {
    match h {
        Handling::Pool => "pool-of-threads",
        Handling::PerThread => "one-thread-per-connection",
    }
}

/// Raises this process's soft RLIMIT_NOFILE to its hard limit (the servers and sysbench it
/// starts inherit it): thousands of connections need thousands of descriptors on both ends.
/// Returns the new soft limit.
pub fn raise_nofile() -> libc::rlim_t {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit write/read the local struct only.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return 0;
        }
        if r.rlim_cur < r.rlim_max {
            let want = libc::rlimit {
                rlim_cur: r.rlim_max,
                rlim_max: r.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &want) == 0 {
                r.rlim_cur = r.rlim_max;
            }
        }
    }
    r.rlim_cur
}

/// Client connections every started server admits (the connections workload runs 4096 sysbench
/// threads plus a few of its own).
pub const MAX_CONNECTIONS: u32 = 5000;

/// Processes and directories to clean up on Ctrl-C: (pid or 0, directory).
static RUNNING: Mutex<Vec<(u32, PathBuf)>> = Mutex::new(Vec::new());

/// Set (before the registry is emptied) when a signal asked us to stop: no new instance may
/// be registered afterwards.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

fn registry() -> std::sync::MutexGuard<'static, Vec<(u32, PathBuf)>> {
    RUNNING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Kills every registered server and removes the registered directories.
pub fn cleanup_all() {
    let items: Vec<(u32, PathBuf)> = registry().drain(..).collect();
    for (pid, _) in &items {
        if *pid != 0 {
            // SAFETY: kill(2) with a pid this process started; no memory is involved.
            unsafe {
                libc::kill(*pid as libc::pid_t, libc::SIGKILL);
            }
        }
    }
    if !items.is_empty() {
        std::thread::sleep(Duration::from_millis(300));
    }
    for (_, dir) in items {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Installs a Ctrl-C (and SIGTERM) handler that stops the instances and exits.
pub fn install_signal_handler() {
    let _ = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, Ordering::SeqCst);
        eprintln!("strata-bench: interrupted; stopping the servers");
        cleanup_all();
        std::process::exit(130);
    });
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn user_name() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| {
            if is_root() {
                "root".into()
            } else {
                "nobody".into()
            }
        })
}

/// Finds an executable in `PATH` or the sbin directories (mariadbd lives in /usr/sbin).
pub fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").unwrap_or_default();
    let found = path
        .split(':')
        .chain(["/usr/sbin", "/usr/local/sbin", "/sbin"])
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file());
    found
}

fn mariadb_plugin_dir() -> PathBuf {
    let guess = PathBuf::from("/usr/lib/mysql/plugin");
    let Some(bin) = find_program("mariadbd") else {
        return guess;
    };
    let Ok(out) = Command::new(bin).args(["--help", "--verbose"]).output() else {
        return guess;
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("plugin-dir"))
        .map(|v| PathBuf::from(v.trim()))
        .unwrap_or(guess)
}

/// Installs the Debian packages the engines and workloads need when they are missing
/// (`apt-get install -y mariadb-server mariadb-plugin-rocksdb sysbench`, with sudo when not
/// root).
pub fn ensure_packages(engines: &[Engine], want_sysbench: bool) -> Result<()> {
    let mut missing = Vec::new();
    let mariadb = engines.iter().any(|e| e.is_mariadb());
    if mariadb
        && (find_program("mariadbd").is_none() || find_program("mariadb-install-db").is_none())
    {
        missing.push("mariadb-server");
    }
    let myrocks = engines.iter().any(|e| e.kind == Kind::MyRocks);
    if myrocks && !mariadb_plugin_dir().join("ha_rocksdb.so").is_file() {
        missing.push("mariadb-plugin-rocksdb");
    }
    if want_sysbench && find_program("sysbench").is_none() {
        missing.push("sysbench");
    }
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("strata-bench: installing {}", missing.join(" "));
    let sudo: &[&str] = if is_root() { &[] } else { &["sudo"] };
    let run = |args: &[&str]| -> Result<()> {
        let mut all: Vec<&str> = sudo.to_vec();
        all.extend_from_slice(args);
        let status = Command::new(all[0])
            .args(&all[1..])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .with_context(|| format!("running {}", all.join(" ")))?;
        if !status.success() {
            bail!("{} failed ({status})", all.join(" "));
        }
        Ok(())
    };
    run(&["apt-get", "update", "-qq"])?;
    let mut install = vec!["apt-get", "install", "-y", "-qq"];
    install.extend(&missing);
    run(&install)?;
    if myrocks && !mariadb_plugin_dir().join("ha_rocksdb.so").is_file() {
        bail!("ha_rocksdb.so is still missing after installing mariadb-plugin-rocksdb");
    }
    Ok(())
}

/// Shared settings and the working directory of one `compare` run.
pub struct Setup {
    /// Cache budget in bytes.
    pub cache_bytes: u64,
    /// The `strata` binary.
    pub strata_bin: PathBuf,
    /// Keep data directories after stopping (for inspection).
    pub keep: bool,
    /// Pin every instance to these CPUs (`--server-cpus`).
    pub server_cpus: Option<CpuSet>,
    work: PathBuf,
    template: Option<PathBuf>,
    next_port: AtomicU16,
    counter: AtomicU16,
}

/// The `strata` binary to use by default: `$CARGO_TARGET_DIR/release/strata`, falling back to
/// `~/.cache/strata-target/release/strata`.
pub fn default_strata_bin() -> PathBuf {
    if let Ok(t) = std::env::var("CARGO_TARGET_DIR") {
        let p = Path::new(&t).join("release/strata");
        if p.is_file() {
            return p;
        }
    }
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    Path::new(&home).join(".cache/strata-target/release/strata")
}

impl Setup {
    /// Creates the working directory (`/tmp/bench-…`) and, when a MariaDB engine is used, a
    /// template data directory with `mariadb-install-db` that every MariaDB instance copies.
    pub fn new(
        engines: &[Engine],
        cache_bytes: u64,
        strata_bin: PathBuf,
        base_port: Option<u16>,
        keep: bool,
    ) -> Result<Setup> {
        let work = tempfile::Builder::new()
            .prefix("bench-")
            .tempdir_in(std::env::temp_dir())?
            .keep();
        registry().push((0, work.clone()));
        let mut s = Setup {
            cache_bytes,
            strata_bin,
            keep,
            server_cpus: None,
            work,
            template: None,
            next_port: AtomicU16::new(base_port.unwrap_or(0)),
            counter: AtomicU16::new(0),
        };
        if engines.iter().any(|e| e.kind == Kind::Strata) && !s.strata_bin.is_file() {
            bail!(
                "strata binary not found at {} (build it with `./x run` or pass --strata-bin)",
                s.strata_bin.display()
            );
        }
        if engines.iter().any(|e| e.is_mariadb()) {
            let t = s.work.join("template");
            let log = s.work.join("install-db.log");
            let logf = std::fs::File::create(&log)?;
            let prog = find_program("mariadb-install-db")
                .ok_or_else(|| anyhow!("mariadb-install-db not found"))?;
            let status = Command::new(prog)
                .arg("--no-defaults")
                .arg(format!("--datadir={}", t.display()))
                .arg("--auth-root-authentication-method=normal")
                .arg("--skip-test-db")
                .arg(format!("--user={}", user_name()))
                .stdout(logf.try_clone()?)
                .stderr(logf)
                .status()?;
            if !status.success() {
                bail!(
                    "mariadb-install-db failed: {}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
            }
            s.template = Some(t);
        }
        Ok(s)
    }

    fn port(&self) -> Result<u16> {
        let base = self.next_port.load(Ordering::SeqCst);
        if base == 0 {
            let l = std::net::TcpListener::bind("127.0.0.1:0")?;
            return Ok(l.local_addr()?.port());
        }
        for p in base..base.saturating_add(100) {
            if std::net::TcpListener::bind(("127.0.0.1", p)).is_ok() {
                self.next_port.store(p + 1, Ordering::SeqCst);
                return Ok(p);
            }
        }
        bail!("no free port in {base}..{}", base.saturating_add(100))
    }

    /// Removes the working directory (unless `keep`).
    pub fn finish(&self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.work);
        }
        registry().retain(|(_, d)| *d != self.work);
    }
}

/// A running server instance.
pub struct Instance {
    /// Which server.
    pub engine: Engine,
    /// TCP port on 127.0.0.1.
    pub port: u16,
    /// `SELECT VERSION()`.
    pub version: String,
    /// The options it was started with (for the report).
    pub config: String,
    child: Child,
    dir: PathBuf,
    datadir: PathBuf,
    log: PathBuf,
    keep: bool,
}

fn tail_of(path: &Path, n: usize) -> String {
    let s = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

impl Instance {
    /// Starts a fresh instance and waits until it accepts connections.
    pub fn start(engine: Engine, setup: &Setup) -> Result<Instance> {
        let port = setup.port()?;
        let n = setup.counter.fetch_add(1, Ordering::SeqCst);
        let dir = setup.work.join(format!("{}-{n}", engine.dir_name()));
        std::fs::create_dir_all(&dir)?;
        let datadir = dir.join("data");
        let log = dir.join("server.log");
        let cache = setup.cache_bytes;
        let (program, args, config): (PathBuf, Vec<String>, String) = match engine.kind {
            Kind::Strata => {
                let mut a: Vec<String> = vec![
                    "serve".into(),
                    "--port".into(),
                    port.to_string(),
                    "--datadir".into(),
                    datadir.display().to_string(),
                    // the budget is shared: a quarter for the row cache, the rest blocks
                    "--block-cache-size".into(),
                    (cache - cache / 4).to_string(),
                    "--row-cache-size".into(),
                    (cache / 4).to_string(),
                    "--innodb-flush-log-at-trx-commit".into(),
                    "1".into(),
                    "--max-connections".into(),
                    MAX_CONNECTIONS.to_string(),
                    // as the MariaDB instances (10.11 has log_bin OFF by default): no binary log
                    "--skip-log-bin".into(),
                ];
                if let Some(h) = engine.handling {
                    a.push("--thread-handling".into());
                    a.push(handling_value(h).into());
                }
                let shown: Vec<&str> = a[5..].iter().map(String::as_str).collect();
                let config = format!("strata serve {}", shown.join(" "));
                (setup.strata_bin.clone(), a, config)
            }
            Kind::InnoDb | Kind::MyRocks => {
                let template = setup
                    .template
                    .as_ref()
                    .ok_or_else(|| anyhow!("no MariaDB template data directory"))?;
                let st = Command::new("cp")
                    .arg("-a")
                    .arg(template)
                    .arg(&datadir)
                    .status()?;
                if !st.success() {
                    bail!("copying the MariaDB template data directory failed");
                }
                let mut a = vec![
                    "--no-defaults".to_string(),
                    format!("--datadir={}", datadir.display()),
                    format!("--port={port}"),
                    "--bind-address=127.0.0.1".into(),
                    format!("--socket={}", dir.join("mysqld.sock").display()),
                    format!("--pid-file={}", dir.join("mysqld.pid").display()),
                    format!("--log-error={}", log.display()),
                    format!("--max-connections={MAX_CONNECTIONS}"),
                    // Room for MAX_CONNECTIONS sockets (capped by the inherited hard limit),
                    // a listen queue as long as Strata's, and sysbench's prepared
                    // statements at thousands of threads (~10 per oltp_read_write thread).
                    "--open-files-limit=16384".into(),
                    "--back-log=4096".into(),
                    "--max-prepared-stmt-count=1048576".into(),
                    "--innodb-flush-log-at-trx-commit=1".into(),
                ];
                if let Some(h) = engine.handling {
                    a.push(format!("--thread-handling={}", handling_value(h)));
                }
                if is_root() {
                    a.push("--user=root".into());
                }
                if engine.kind == Kind::InnoDb {
                    a.push(format!("--innodb-buffer-pool-size={cache}"));
                } else {
                    a.extend([
                        "--plugin-load-add=ha_rocksdb.so".to_string(),
                        "--default-storage-engine=ROCKSDB".into(),
                        format!("--rocksdb-block-cache-size={cache}"),
                        "--rocksdb-flush-log-at-trx-commit=1".into(),
                        "--innodb-buffer-pool-size=16777216".into(),
                    ]);
                }
                let bin = find_program("mariadbd").ok_or_else(|| anyhow!("mariadbd not found"))?;
                let private = [
                    "--datadir",
                    "--socket",
                    "--pid-file",
                    "--log-error",
                    "--port",
                ];
                let shown: Vec<&str> = a
                    .iter()
                    .map(String::as_str)
                    .filter(|x| !private.iter().any(|p| x.starts_with(p)))
                    .collect();
                let config = format!("mariadbd {}", shown.join(" "));
                (bin, a, config)
            }
        };
        let logf = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)?;
        if INTERRUPTED.load(Ordering::SeqCst) {
            bail!("interrupted");
        }
        let mut cmd = Command::new(&program);
        cmd.args(&args)
            .stdin(Stdio::null())
            .stdout(logf.try_clone()?)
            .stderr(logf);
        let mut config = config;
        if let Some(cpus) = &setup.server_cpus {
            cpus.pin_command(&mut cmd);
            config.push_str(&format!(" (pinned to CPUs {cpus})"));
        }
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", program.display()))?;
        {
            // Checked under the registry lock: the signal handler sets the flag before it
            // empties the registry, so a child is either registered and killed by the handler,
            // or killed here.
            let mut reg = registry();
            if INTERRUPTED.load(Ordering::SeqCst) {
                drop(reg);
                let _ = child.kill();
                let _ = child.wait();
                bail!("interrupted");
            }
            reg.push((child.id(), dir.clone()));
        }
        let mut inst = Instance {
            engine,
            port,
            version: String::new(),
            config,
            child,
            dir,
            datadir,
            log,
            keep: setup.keep,
        };
        inst.wait_ready()?;
        if engine.kind == Kind::MyRocks {
            let mut c = inst.target().connect(None)?;
            let e: Option<String> = c.query_first(
                "SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'ROCKSDB'",
            )?;
            if e.as_deref() != Some("DEFAULT") {
                bail!("MyRocks is not the default engine (ROCKSDB support: {e:?})");
            }
        }
        Ok(inst)
    }

    fn wait_ready(&mut self) -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(st) = self.child.try_wait()? {
                bail!(
                    "{} exited during startup ({st}):\n{}",
                    self.engine.label(),
                    tail_of(&self.log, 20)
                );
            }
            if let Ok(mut c) = self.target().connect(None) {
                let v: Option<String> = c.query_first("SELECT VERSION()")?;
                self.version = v.unwrap_or_default();
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!(
                    "{} did not accept connections within 120 s:\n{}",
                    self.engine.label(),
                    tail_of(&self.log, 20)
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// How to reach it (with its pid and data directory, for RSS and size on disk).
    pub fn target(&self) -> Target {
        Target {
            host: "127.0.0.1".into(),
            port: self.port,
            user: "root".into(),
            password: String::new(),
            server_pid: Some(self.child.id()),
            datadir: Some(self.datadir.clone()),
        }
    }

    /// Stops the server (SIGTERM, then SIGKILL after 60 s) and removes its directory.
    pub fn stop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            // SAFETY: kill(2) on our own child's pid.
            unsafe {
                libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(60);
            while self.child.try_wait().ok().flatten().is_none() {
                if Instant::now() > deadline {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        let pid = self.child.id();
        registry().retain(|(p, _)| *p != pid);
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_names() {
        assert_eq!(Engine::parse("InnoDB").unwrap(), Engine::INNODB);
        assert_eq!(Engine::parse("myrocks").unwrap().label(), "MyRocks");
        assert!(Engine::parse("aria").is_err());
        let e = Engine::parse("innodb:pool").unwrap();
        assert_eq!((e.kind, e.handling), (Kind::InnoDb, Some(Handling::Pool)));
        assert_eq!(e.label(), "InnoDB pool");
        assert_eq!(e.dir_name(), "innodb-pool");
        assert_eq!(
            Engine::parse("strata:thread").unwrap().label(),
            "Strata thread/conn"
        );
        assert!(Engine::parse("strata:fibers").is_err());
        assert!(raise_nofile() > 0);
    }

    #[test]
    fn finds_programs() {
        assert!(find_program("sh").is_some());
        assert!(find_program("no-such-program-xyz").is_none());
    }
}
