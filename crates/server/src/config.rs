//! Server configuration: command-line options (MySQL's option names where one exists) merged
//! with a my.cnf-style `--defaults-file` (`[strata]` and `[mysqld]` sections).

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

/// The `strata` command line.
#[derive(Debug, Parser)]
#[command(
    name = "strata",
    version,
    about = "Strata: a MySQL-compatible database server on an LSM storage engine"
)]
pub struct Cli {
    /// What to do (default: serve).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Server options (also accepted without the `serve` subcommand).
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start the server (the default).
    Serve(ServeArgs),
}

/// Options of `strata serve`.
#[derive(Debug, Args, Clone, Default)]
pub struct ServeArgs {
    /// Read options from this my.cnf-style file ([strata] and [mysqld] sections).
    #[arg(long = "defaults-file", value_name = "FILE")]
    pub defaults_file: Option<PathBuf>,
    /// TCP port to listen on [default: 3306].
    #[arg(long, short = 'P')]
    pub port: Option<u16>,
    /// Address to bind [default: 127.0.0.1].
    #[arg(long = "bind-address")]
    pub bind_address: Option<String>,
    /// Data directory [default: ./strata-data].
    #[arg(long, short = 'D')]
    pub datadir: Option<PathBuf>,
    /// Unix socket path (none by default).
    #[arg(long, short = 'S')]
    pub socket: Option<PathBuf>,
    /// Maximum simultaneous client connections [default: 151].
    #[arg(long = "max-connections")]
    pub max_connections: Option<usize>,
    /// Block cache size in bytes (accepts K/M/G suffixes) [default: 256M].
    #[arg(long = "block-cache-size", alias = "rocksdb-block-cache-size")]
    pub block_cache_size: Option<String>,
    /// Row cache size in bytes (K/M/G suffixes; 0 = off) [default: 64M]: hot rows kept
    /// whole, apart from the block cache.
    #[arg(long = "row-cache-size")]
    pub row_cache_size: Option<String>,
    /// Size of one memtable in bytes (K/M/G suffixes) [default: 8M]; full ones are flushed
    /// together, 64 MiB at a time, into one sorted file.
    #[arg(long = "write-buffer-size", alias = "rocksdb-write-buffer-size")]
    pub write_buffer_size: Option<String>,
    /// Durability: 1 = sync the log at each commit (default), 0/2 = no fsync per commit.
    #[arg(long = "innodb-flush-log-at-trx-commit")]
    pub flush_log_at_trx_commit: Option<u8>,
    /// max_allowed_packet in bytes (K/M/G suffixes) [default: 64M].
    #[arg(long = "max-allowed-packet")]
    pub max_allowed_packet: Option<String>,
    /// Connection handling: pool-of-threads (default) or one-thread-per-connection.
    #[arg(long = "thread-handling", value_name = "MODE")]
    pub thread_handling: Option<String>,
    /// Number of thread groups of the thread pool [default: number of CPUs].
    #[arg(long = "thread-pool-size")]
    pub thread_pool_size: Option<usize>,
    /// Listen queue length for incoming connections [default: 4096].
    #[arg(long = "back-log")]
    pub back_log: Option<u32>,
    /// Recovery mode: local connections only, any user and password accepted, no privilege
    /// checks.
    #[arg(long = "skip-grant-tables")]
    pub skip_grant_tables: bool,
    /// Server certificate (PEM) for TLS [default: server-cert.pem in the data directory,
    /// generated at first start together with ca.pem and a client certificate].
    #[arg(long = "ssl-cert", value_name = "FILE")]
    pub ssl_cert: Option<PathBuf>,
    /// Private key (PEM) of --ssl-cert.
    #[arg(long = "ssl-key", value_name = "FILE")]
    pub ssl_key: Option<PathBuf>,
    /// CA certificate(s) (PEM) that client certificates must chain to (REQUIRE X509).
    #[arg(long = "ssl-ca", value_name = "FILE")]
    pub ssl_ca: Option<PathBuf>,
    /// Disable TLS (clients are not offered it).
    #[arg(long = "skip-ssl")]
    pub skip_ssl: bool,
    /// Refuse TCP connections that do not use TLS (unix-socket connections are allowed).
    #[arg(long = "require-secure-transport")]
    pub require_secure_transport: bool,
    /// Turn the slow query log on: --slow-query-log or --slow-query-log=ON|OFF (MySQL's
    /// `slow_query_log`).
    #[arg(long = "slow-query-log", value_name = "ON|OFF", num_args = 0..=1,
          require_equals = true, default_missing_value = "ON")]
    pub slow_query_log: Option<String>,
    /// The slow query log's file [default: <datadir>/<hostname>-slow.log; a relative name is
    /// inside the data directory].
    #[arg(long = "slow-query-log-file", value_name = "FILE")]
    pub slow_query_log_file: Option<String>,
    /// Statements running longer than this many seconds are slow [default: 10].
    #[arg(long = "long-query-time", value_name = "SECONDS")]
    pub long_query_time: Option<String>,
    /// Also log statements that read a table without an index to the slow log.
    #[arg(long = "log-queries-not-using-indexes", value_name = "ON|OFF", num_args = 0..=1,
          require_equals = true, default_missing_value = "ON")]
    pub log_queries_not_using_indexes: Option<String>,
    /// Log slow statements only when they examined at least this many rows [default: 0].
    #[arg(long = "min-examined-row-limit", value_name = "ROWS")]
    pub min_examined_row_limit: Option<String>,
    /// Turn the general query log on: --general-log or --general-log=ON|OFF.
    #[arg(long = "general-log", value_name = "ON|OFF", num_args = 0..=1,
          require_equals = true, default_missing_value = "ON")]
    pub general_log: Option<String>,
    /// The general query log's file [default: <datadir>/<hostname>.log].
    #[arg(long = "general-log-file", value_name = "FILE")]
    pub general_log_file: Option<String>,
    /// Where the query logs go: FILE (default) or NONE (TABLE is not supported).
    #[arg(long = "log-output", value_name = "FILE|NONE")]
    pub log_output: Option<String>,
    /// performance_schema's statement instrumentation: --performance-schema=OFF turns it off
    /// (ON by default, as in MySQL; read-only once the server runs).
    #[arg(long = "performance-schema", value_name = "ON|OFF", num_args = 0..=1,
          require_equals = true, default_missing_value = "ON")]
    pub performance_schema: Option<String>,
    /// Statement digests performance_schema keeps [default: 10000].
    #[arg(long = "performance-schema-digests-size", value_name = "N")]
    pub performance_schema_digests_size: Option<String>,
    /// Bytes of tokens a statement digest is made of [default: 1024].
    #[arg(long = "max-digest-length", value_name = "BYTES")]
    pub max_digest_length: Option<String>,
    /// Bytes of tokens performance_schema keeps of a digest [default: 1024].
    #[arg(long = "performance-schema-max-digest-length", value_name = "BYTES")]
    pub performance_schema_max_digest_length: Option<String>,
    /// The binary log (on by default, as in MySQL 8.4): --log-bin[=BASENAME] names its files
    /// (default `binlog`, in the data directory).
    #[arg(long = "log-bin", value_name = "BASENAME", num_args = 0..=1,
          require_equals = true, default_missing_value = "binlog")]
    pub log_bin: Option<String>,
    /// No binary log (`--disable-log-bin` is the same).
    #[arg(long = "skip-log-bin", alias = "disable-log-bin")]
    pub skip_log_bin: bool,
    /// server_id [default: 1].
    #[arg(long = "server-id", value_name = "N")]
    pub server_id: Option<String>,
    /// GTIDs for logged transactions: ON (Strata's default) or OFF (anonymous transactions).
    #[arg(long = "gtid-mode", value_name = "ON|OFF")]
    pub gtid_mode: Option<String>,
    /// Set any other system variable: --set NAME=VALUE (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// TCP port.
    pub port: u16,
    /// Bind address.
    pub bind_address: String,
    /// Data directory.
    pub datadir: PathBuf,
    /// Unix socket.
    pub socket: Option<PathBuf>,
    /// max_connections.
    pub max_connections: usize,
    /// Block cache bytes.
    pub block_cache_bytes: usize,
    /// Row cache bytes (0 = off).
    pub row_cache_bytes: usize,
    /// Memtable bytes.
    pub write_buffer_bytes: usize,
    /// max_allowed_packet.
    pub max_allowed_packet: usize,
    /// thread_handling.
    pub thread_handling: protocol::ThreadHandling,
    /// thread_pool_size (thread groups).
    pub thread_pool_size: usize,
    /// back_log (listen queue length).
    pub back_log: u32,
    /// System variable overrides (name, value).
    pub sysvars: Vec<(String, String)>,
    /// `--skip-grant-tables`.
    pub skip_grant_tables: bool,
    /// The binary log's file name stem, `None` with `--skip-log-bin`.
    pub log_bin: Option<String>,
    /// TLS enabled (not `--skip-ssl` / `ssl=OFF`).
    pub ssl: bool,
    /// Certificate files for TLS.
    pub tls: protocol::tls::TlsOptions,
}

/// `log-bin=VALUE`: OFF / 0 turn the binary log off, ON / 1 / empty keep the default name,
/// anything else is the file name stem (a path keeps only its last part, as the files live in
/// the data directory).
fn parse_log_bin(v: &str) -> Option<String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "off" | "0" => None,
        "" | "on" | "1" => Some("binlog".into()),
        _ => Some(
            Path::new(v.trim())
                .file_name()
                .map_or_else(|| "binlog".into(), |n| n.to_string_lossy().into_owned()),
        ),
    }
}

/// Parses sizes like `256M`, `1G`, `65536`.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let (num, mult) = match s.chars().last().map(|c| c.to_ascii_uppercase()) {
        Some('K') => (&s[..s.len() - 1], 1usize << 10),
        Some('M') => (&s[..s.len() - 1], 1 << 20),
        Some('G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.trim()
        .parse::<usize>()
        .map(|n| n * mult)
        .map_err(|_| format!("invalid size '{s}'"))
}

/// Reads `[strata]` and `[mysqld]` sections of a my.cnf-style file as (key, value) pairs with
/// `-` normalised to `_`.
pub fn read_defaults_file(path: &Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read defaults file {}: {e}", path.display()))?;
    let mut out = Vec::new();
    let mut in_section = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if line.starts_with('[') {
            let name = line
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_ascii_lowercase();
            in_section = name == "strata" || name == "mysqld" || name == "server";
            continue;
        }
        if !in_section {
            continue;
        }
        let (k, v) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, "1"),
        };
        let v = v.trim_matches('"').trim_matches('\'');
        out.push((k.replace('-', "_").to_ascii_lowercase(), v.to_string()));
    }
    Ok(out)
}

impl Config {
    /// Builds the configuration: defaults, then the defaults file, then the command line.
    pub fn from_args(a: &ServeArgs) -> Result<Config, String> {
        let mut c = Config {
            port: 3306,
            bind_address: "127.0.0.1".into(),
            datadir: PathBuf::from("./strata-data"),
            socket: None,
            max_connections: 151,
            block_cache_bytes: 256 << 20,
            row_cache_bytes: 64 << 20,
            write_buffer_bytes: storage_rocks::RocksOptions::DEFAULT_WRITE_BUFFER_SIZE,
            max_allowed_packet: 64 << 20,
            thread_handling: protocol::ThreadHandling::PoolOfThreads,
            thread_pool_size: protocol::PoolConfig::default().size,
            back_log: protocol::DEFAULT_BACK_LOG,
            sysvars: Vec::new(),
            skip_grant_tables: a.skip_grant_tables,
            log_bin: Some("binlog".into()),
            ssl: true,
            tls: Default::default(),
        };
        if let Some(f) = &a.defaults_file {
            for (k, v) in read_defaults_file(f)? {
                match k.as_str() {
                    "port" => {
                        c.port = v
                            .parse()
                            .map_err(|_| format!("invalid port '{v}' in {}", f.display()))?
                    }
                    "bind_address" => c.bind_address = v,
                    "datadir" => c.datadir = PathBuf::from(v),
                    "socket" => c.socket = Some(PathBuf::from(v)),
                    "max_connections" => {
                        c.max_connections = v
                            .parse()
                            .map_err(|_| format!("invalid max_connections '{v}'"))?
                    }
                    "block_cache_size" | "rocksdb_block_cache_size" | "innodb_buffer_pool_size" => {
                        c.block_cache_bytes = parse_size(&v)?
                    }
                    "max_allowed_packet" => c.max_allowed_packet = parse_size(&v)?,
                    "row_cache_size" | "strata_row_cache_size" => {
                        c.row_cache_bytes = parse_size(&v)?
                    }
                    "skip_grant_tables" => {
                        c.skip_grant_tables = !matches!(v.as_str(), "0" | "OFF" | "off")
                    }
                    _ => c.sysvars.push((k, v)),
                }
            }
        }
        if let Some(p) = a.port {
            c.port = p;
        }
        if let Some(b) = &a.bind_address {
            c.bind_address = b.clone();
        }
        if let Some(d) = &a.datadir {
            c.datadir = d.clone();
        }
        if let Some(s) = &a.socket {
            c.socket = Some(s.clone());
        }
        if let Some(m) = a.max_connections {
            c.max_connections = m;
        }
        if let Some(b) = &a.block_cache_size {
            c.block_cache_bytes = parse_size(b)?;
        }
        if let Some(r) = &a.row_cache_size {
            c.row_cache_bytes = parse_size(r)?;
        }
        if let Some(m) = &a.max_allowed_packet {
            c.max_allowed_packet = parse_size(m)?;
        }
        if let Some(f) = a.flush_log_at_trx_commit {
            c.sysvars
                .push(("innodb_flush_log_at_trx_commit".into(), f.to_string()));
        }
        for kv in &a.set {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| format!("--set expects NAME=VALUE, got '{kv}'"))?;
            c.sysvars
                .push((k.trim().replace('-', "_"), v.trim().to_string()));
        }
        // Connection-handling settings the listener needs, from the defaults file or --set
        // (the dedicated options below take precedence).
        let mut rest = Vec::new();
        for (k, v) in std::mem::take(&mut c.sysvars) {
            match k.to_ascii_lowercase().as_str() {
                "thread_handling" => c.thread_handling = parse_thread_handling(&v)?,
                "thread_pool_size" => c.thread_pool_size = parse_count("thread_pool_size", &v)?,
                "back_log" => c.back_log = parse_count("back_log", &v)? as u32,
                "write_buffer_size" | "rocksdb_write_buffer_size" => {
                    c.write_buffer_bytes = parse_write_buffer_size(&v)?
                }
                "ssl_cert" => c.tls.cert = Some(PathBuf::from(v)),
                "ssl_key" => c.tls.key = Some(PathBuf::from(v)),
                "ssl_ca" => c.tls.ca = Some(PathBuf::from(v)),
                "ssl" => c.ssl = !matches!(v.to_ascii_lowercase().as_str(), "0" | "off"),
                "skip_ssl" => c.ssl = matches!(v.to_ascii_lowercase().as_str(), "0" | "off"),
                "log_bin" => c.log_bin = parse_log_bin(&v),
                "skip_log_bin" | "disable_log_bin" => c.log_bin = None,
                _ => rest.push((k, v)),
            }
        }
        c.sysvars = rest;
        if let Some(t) = &a.thread_handling {
            c.thread_handling = parse_thread_handling(t)?;
        }
        if let Some(n) = a.thread_pool_size {
            c.thread_pool_size = n;
        }
        if let Some(b) = a.back_log {
            c.back_log = b;
        }
        if let Some(w) = &a.write_buffer_size {
            c.write_buffer_bytes = parse_write_buffer_size(w)?;
        }
        if a.skip_ssl {
            c.ssl = false;
        }
        if let Some(b) = &a.log_bin {
            c.log_bin = parse_log_bin(b);
        }
        if a.skip_log_bin {
            c.log_bin = None;
        }
        for (name, v) in [("server_id", &a.server_id), ("gtid_mode", &a.gtid_mode)] {
            if let Some(v) = v {
                c.sysvars.push((name.into(), v.clone()));
            }
        }
        for (dst, src) in [
            (&mut c.tls.cert, &a.ssl_cert),
            (&mut c.tls.key, &a.ssl_key),
            (&mut c.tls.ca, &a.ssl_ca),
        ] {
            if src.is_some() {
                dst.clone_from(src);
            }
        }
        if a.require_secure_transport {
            c.sysvars
                .push(("require_secure_transport".into(), "ON".into()));
        }
        // the query logs' options (checked with the other variables when the server starts)
        for (name, v) in [
            ("slow_query_log", &a.slow_query_log),
            ("slow_query_log_file", &a.slow_query_log_file),
            ("long_query_time", &a.long_query_time),
            (
                "log_queries_not_using_indexes",
                &a.log_queries_not_using_indexes,
            ),
            ("min_examined_row_limit", &a.min_examined_row_limit),
            ("general_log", &a.general_log),
            ("general_log_file", &a.general_log_file),
            ("log_output", &a.log_output),
            ("performance_schema", &a.performance_schema),
            (
                "performance_schema_digests_size",
                &a.performance_schema_digests_size,
            ),
            ("max_digest_length", &a.max_digest_length),
            (
                "performance_schema_max_digest_length",
                &a.performance_schema_max_digest_length,
            ),
        ] {
            if let Some(v) = v {
                c.sysvars.push((name.into(), v.clone()));
            }
        }
        if c.thread_pool_size == 0 || c.thread_pool_size > 1024 {
            return Err(format!(
                "invalid thread_pool_size {} (1 to 1024)",
                c.thread_pool_size
            ));
        }
        Ok(c)
    }
}

/// A memtable size: at least 1 MiB (RocksDB's arena would otherwise flush after every few
/// writes), at most 4 GiB.
fn parse_write_buffer_size(v: &str) -> Result<usize, String> {
    let n = parse_size(v)?;
    if !(1 << 20..=4 << 30).contains(&n) {
        return Err(format!("invalid write_buffer_size '{v}' (1M to 4G)"));
    }
    Ok(n)
}

fn parse_thread_handling(v: &str) -> Result<protocol::ThreadHandling, String> {
    protocol::ThreadHandling::parse(v).ok_or_else(|| {
        format!("invalid thread_handling '{v}' (pool-of-threads or one-thread-per-connection)")
    })
}

fn parse_count(name: &str, v: &str) -> Result<usize, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("invalid {name} '{v}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_log_options() {
        use clap::Parser;
        let cli = Cli::try_parse_from([
            "strata",
            "--slow-query-log",
            "--long-query-time",
            "0.5",
            "--slow-query-log-file=/tmp/s.log",
            "--general-log=OFF",
            "--log-output",
            "FILE",
        ])
        .unwrap();
        let c = Config::from_args(&cli.serve).unwrap();
        let get = |k: &str| {
            c.sysvars
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("slow_query_log"), Some("ON"));
        assert_eq!(get("long_query_time"), Some("0.5"));
        assert_eq!(get("slow_query_log_file"), Some("/tmp/s.log"));
        assert_eq!(get("general_log"), Some("OFF"));
        assert_eq!(get("log_output"), Some("FILE"));
        assert_eq!(get("general_log_file"), None);
        // a bare flag does not swallow the subcommand after it
        let cli = Cli::try_parse_from(["strata", "--general-log", "serve"]).unwrap();
        assert!(cli.command.is_some());
        assert_eq!(cli.serve.general_log.as_deref(), Some("ON"));
    }

    #[test]
    fn performance_schema_options() {
        use clap::Parser;
        let cli = Cli::try_parse_from([
            "strata",
            "--performance-schema=OFF",
            "--performance-schema-digests-size",
            "200",
            "--max-digest-length=2048",
        ])
        .unwrap();
        let c = Config::from_args(&cli.serve).unwrap();
        let get = |k: &str| {
            c.sysvars
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("performance_schema"), Some("OFF"));
        assert_eq!(get("performance_schema_digests_size"), Some("200"));
        assert_eq!(get("max_digest_length"), Some("2048"));
        assert_eq!(get("performance_schema_max_digest_length"), None);
        let cli = Cli::try_parse_from(["strata", "--performance-schema"]).unwrap();
        assert_eq!(cli.serve.performance_schema.as_deref(), Some("ON"));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256M").unwrap(), 256 << 20);
        assert_eq!(parse_size("1024").unwrap(), 1024);
        assert!(parse_size("x").is_err());
    }

    #[test]
    fn defaults_file_sections() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("my.cnf");
        std::fs::write(&p, "[client]\nport=1\n[mysqld]\nport = 3307\nmax-connections=10\n[strata]\nwait_timeout=5\n").unwrap();
        let args = ServeArgs {
            defaults_file: Some(p),
            ..Default::default()
        };
        let c = Config::from_args(&args).unwrap();
        assert_eq!(c.port, 3307);
        assert_eq!(c.max_connections, 10);
        assert_eq!(
            c.sysvars,
            vec![("wait_timeout".to_string(), "5".to_string())]
        );
        assert_eq!(c.thread_handling, protocol::ThreadHandling::PoolOfThreads);
    }

    #[test]
    fn thread_handling_options() {
        let args = ServeArgs {
            set: vec!["thread_pool_size=3".into(), "back-log=100".into()],
            thread_handling: Some("one-thread-per-connection".into()),
            ..Default::default()
        };
        let c = Config::from_args(&args).unwrap();
        assert_eq!(
            c.thread_handling,
            protocol::ThreadHandling::OneThreadPerConnection
        );
        assert_eq!((c.thread_pool_size, c.back_log), (3, 100));
        assert!(c.sysvars.is_empty());
        let bad = ServeArgs {
            thread_handling: Some("fibers".into()),
            ..Default::default()
        };
        assert!(Config::from_args(&bad).is_err());
    }

    #[test]
    fn write_buffer_size_from_file_set_and_option() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("my.cnf");
        std::fs::write(&p, "[mysqld]\nrocksdb-write-buffer-size=16M\n").unwrap();
        let mut args = ServeArgs {
            defaults_file: Some(p),
            ..Default::default()
        };
        let c = Config::from_args(&args).unwrap();
        assert_eq!(c.write_buffer_bytes, 16 << 20);
        assert!(c.sysvars.is_empty());
        args.set = vec!["write_buffer_size=8M".into()];
        assert_eq!(
            Config::from_args(&args).unwrap().write_buffer_bytes,
            8 << 20
        );
        args.write_buffer_size = Some("32M".into());
        assert_eq!(
            Config::from_args(&args).unwrap().write_buffer_bytes,
            32 << 20
        );
        args.write_buffer_size = Some("4K".into());
        assert!(Config::from_args(&args).is_err());
        let default = Config::from_args(&ServeArgs::default()).unwrap();
        assert_eq!(default.write_buffer_bytes, 8 << 20);
    }
}
