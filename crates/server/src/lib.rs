//! The Strata server: configuration, data-directory initialisation, accounts, and the glue
//! that connects the MySQL protocol layer (`protocol`) to the SQL layer (`sql`) over the
//! RocksDB storage engine (`storage-rocks`). The `strata` binary is `src/main.rs`.
//!
//! Layering: protocol → server (this crate) → sql → storage → storage-rocks; nothing below
//! depends on this crate.

pub mod backend;
pub mod config;
pub mod poolinfo;
pub mod replica;
pub mod source;

use std::path::Path;
use std::sync::Arc;

use storage::{Storage, StorageOptions};
use storage_rocks::{RocksEngine, RocksOptions};

pub use config::{Cli, Command, Config, ServeArgs};

/// A running server.
pub struct Running {
    /// The listener handle (TCP and optional unix socket).
    pub handle: protocol::ServerHandle,
    /// The SQL instance.
    pub inst: Arc<sql::Instance<RocksEngine>>,
}

/// Opens the data directory (creating it on first start) and starts listening.
///
/// Errors are one human-readable line (the caller prints it and exits non-zero).
pub fn start(cfg: &Config) -> Result<Running, String> {
    // Thousands of connections need thousands of descriptors.
    if let Err(e) = protocol::raise_fd_limit() {
        tracing::warn!("cannot raise the open files limit: {e}");
    }
    let first = !cfg.datadir.join("rocksdb").exists();
    std::fs::create_dir_all(&cfg.datadir).map_err(|e| {
        format!(
            "cannot create data directory {}: {e}",
            cfg.datadir.display()
        )
    })?;
    let engine = RocksEngine::open(
        &cfg.datadir.join("rocksdb"),
        RocksOptions {
            block_cache_bytes: cfg.block_cache_bytes,
            row_cache_bytes: cfg.row_cache_bytes,
            write_buffer_size: cfg.write_buffer_bytes,
            ..Default::default()
        },
    )
    .map_err(|e| {
        format!(
            "cannot open data directory {}: {}",
            cfg.datadir.display(),
            e.msg
        )
    })?;
    let table_cache = cfg
        .sysvars
        .iter()
        .find(|(k, _)| k == "table_definition_cache")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(2000);
    let row_cache = engine.row_cache();
    let range_cache = engine.range_cache();
    let engine_stats = engine.stats();
    let storage = Storage::open(
        engine,
        StorageOptions {
            table_definition_cache: table_cache,
        },
    )
    .map_err(|e| format!("cannot open storage: {}", e.msg))?;
    let fresh_accounts = !storage
        .accounts_initialised()
        .map_err(|e| format!("cannot open the account store: {}", e.msg))?;
    if first || fresh_accounts {
        eprintln!(
            "[Warning] strata: initialised data directory {} with user 'root'@'localhost' and an EMPTY password; set one before exposing this server",
            cfg.datadir.display()
        );
    }
    let mut overrides = cfg.sysvars.clone();
    overrides.push(("max_connections".into(), cfg.max_connections.to_string()));
    overrides.push((
        "max_allowed_packet".into(),
        cfg.max_allowed_packet.to_string(),
    ));
    overrides.push((
        "thread_handling".into(),
        cfg.thread_handling.name().to_string(),
    ));
    overrides.push(("thread_pool_size".into(), cfg.thread_pool_size.to_string()));
    overrides.push(("back_log".into(), cfg.back_log.to_string()));
    let globals = sql::runtime::sysvars::GlobalVars::new(&overrides)
        .map_err(|e| format!("invalid configuration: {}", e.msg))?;
    globals.set_internal("datadir", common::Value::Str(abs(&cfg.datadir)));
    // temporary files (the runs of a sort that outgrows sort_buffer_size) are unnamed files in
    // the data directory: they vanish when closed or when the process dies
    globals.set_internal("tmpdir", common::Value::Str(abs(&cfg.datadir)));
    // secure_file_priv: where LOAD DATA INFILE may read server files. Default: the `files`
    // directory inside the data directory (created here); `--set secure_file_priv=NULL`
    // forbids server files, an empty value allows any path (MySQL's meanings).
    match cfg
        .sysvars
        .iter()
        .rev()
        .find(|(k, _)| k == "secure_file_priv")
    {
        Some((_, v)) if v.eq_ignore_ascii_case("NULL") => {
            globals.set_internal("secure_file_priv", common::Value::Null)
        }
        Some((_, v)) if v.is_empty() => {}
        Some((_, v)) => {
            let dir = Path::new(v);
            if !dir.is_dir() {
                return Err(format!(
                    "secure_file_priv directory {} does not exist",
                    dir.display()
                ));
            }
            globals.set_internal("secure_file_priv", common::Value::Str(abs(dir)));
        }
        None => {
            let dir = cfg.datadir.join("files");
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            globals.set_internal("secure_file_priv", common::Value::Str(abs(&dir)));
        }
    }
    globals.set_internal("port", common::Value::Int(cfg.port as i64));
    globals.set_internal(
        "rocksdb_block_cache_size",
        common::Value::Int(cfg.block_cache_bytes as i64),
    );
    globals.set_internal(
        "innodb_buffer_pool_size",
        common::Value::Int(cfg.block_cache_bytes as i64),
    );
    globals.set_internal(
        "rocksdb_write_buffer_size",
        common::Value::Int(cfg.write_buffer_bytes as i64),
    );
    globals.set_internal(
        "strata_row_cache_size",
        common::Value::Int(cfg.row_cache_bytes as i64),
    );
    if let Some(s) = &cfg.socket {
        globals.set_internal("socket", common::Value::Str(s.display().to_string()));
    }
    let hostname = hostname();
    globals.set_internal("hostname", common::Value::Str(hostname.clone()));
    let max_threads = match globals.get("thread_pool_max_threads") {
        Some(common::Value::Int(n)) => n.max(1) as usize,
        _ => protocol::PoolConfig::default().max_threads,
    };
    let tls = if cfg.ssl {
        let t = protocol::tls::TlsSetup::load(&cfg.tls, &cfg.datadir)
            .map_err(|e| format!("cannot set up TLS: {e}"))?;
        let path = |p: &Path| {
            let p = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            common::Value::Str(p.display().to_string())
        };
        globals.set_internal("ssl_cert", path(&t.cert_path));
        globals.set_internal("ssl_key", path(&t.key_path));
        if let Some(ca) = &t.ca_path {
            globals.set_internal("ssl_ca", path(ca));
        }
        globals.set_internal("tls_version", common::Value::Str("TLSv1.2,TLSv1.3".into()));
        Some(Arc::new(t))
    } else {
        None
    };
    let inst = sql::Instance::new(storage, globals);
    open_binlog(&inst, cfg)?;
    {
        let datadir = std::fs::canonicalize(&cfg.datadir).unwrap_or_else(|_| cfg.datadir.clone());
        let uuid = replication::server_uuid::load_or_create(&datadir)
            .map_err(|e| format!("cannot read the server UUID: {}", e.msg))?;
        replica::install(&inst, &datadir, uuid, cfg.port)?;
    }
    // the slow and general query logs: default names in the data directory, opened if on
    let log_setup = sql::runtime::querylog::LogSetup {
        datadir: std::fs::canonicalize(&cfg.datadir).unwrap_or_else(|_| cfg.datadir.clone()),
        hostname,
        program: sql::runtime::querylog::header_program(
            &std::env::current_exe().unwrap_or_else(|_| "strata".into()),
        ),
        version: sql::runtime::sysvars::SERVER_VERSION.to_string(),
        comment: inst
            .globals
            .get("version_comment")
            .map(|v| v.to_string())
            .unwrap_or_default(),
        port: cfg.port,
        socket: cfg
            .socket
            .as_ref()
            .map(|s| s.display().to_string())
            .unwrap_or_default(),
    };
    for w in inst.querylog.start(log_setup, &inst.globals) {
        eprintln!("[Warning] strata: {w}");
    }
    inst.acl.set_hasher(Box::new(|plugin, password| {
        let p =
            protocol::AuthPlugin::from_name(plugin).unwrap_or(protocol::AuthPlugin::CachingSha2);
        protocol::hash_password(p, password)
    }));
    if cfg.skip_grant_tables {
        inst.acl.set_skip_grant_tables(true);
        eprintln!(
            "[Warning] strata: --skip-grant-tables: ANY local client (unix socket or loopback) may connect as ANY user WITHOUT a password and do ANYTHING; remote connections are refused. Use only for recovery."
        );
    }
    let backend = Arc::new(backend::Backend { inst: inst.clone() });
    let lcfg = protocol::ListenerConfig {
        bind_address: cfg.bind_address.clone(),
        port: cfg.port,
        socket: cfg.socket.clone(),
        max_connections: cfg.max_connections,
        server_version: sql::runtime::sysvars::SERVER_VERSION.to_string(),
        key_dir: cfg.datadir.clone(),
        max_allowed_packet: cfg.max_allowed_packet,
        back_log: cfg.back_log,
        thread_handling: cfg.thread_handling,
        pool: protocol::PoolConfig {
            size: cfg.thread_pool_size,
            max_threads,
        },
        tls: tls.as_ref().map(|t| t.config.clone()),
    };
    let handle = protocol::start(lcfg, backend).map_err(|e| match cfg.socket.as_ref() {
        _ if e.kind() == std::io::ErrorKind::AddrInUse => format!(
            "can't listen on {}:{}: address already in use (is another server running?)",
            cfg.bind_address, cfg.port
        ),
        _ => format!("can't listen on {}:{}: {e}", cfg.bind_address, cfg.port),
    })?;
    let registry = handle.registry();
    *inst.server_info.write() = Some(Arc::new(poolinfo::PoolInfo {
        registry: registry.clone(),
        tls,
        row_cache,
        range_cache,
        engine_stats,
    }));
    *inst.disconnect.write() = Some(Box::new(move |id| {
        registry.kill(id);
    }));
    replica::start_at_boot(&inst);
    Ok(Running { handle, inst })
}

/// Sets `server_uuid` (kept in `auto.cnf`) and, unless `--skip-log-bin`, opens the binary log
/// (appending what a crash left out of its files) and installs it as the storage's commit log.
fn open_binlog(inst: &sql::Instance<RocksEngine>, cfg: &Config) -> Result<(), String> {
    let datadir = std::fs::canonicalize(&cfg.datadir).unwrap_or_else(|_| cfg.datadir.clone());
    let uuid = replication::server_uuid::load_or_create(&datadir)
        .map_err(|e| format!("cannot read the server UUID: {}", e.msg))?;
    let g = &inst.globals;
    g.set_internal("server_uuid", common::Value::Str(uuid.to_string()));
    let Some(basename) = &cfg.log_bin else {
        return Ok(());
    };
    let int = |name: &str| match g.get(name) {
        Some(common::Value::Int(n)) => n.max(0) as u64,
        _ => 0,
    };
    let gtid_mode = match g
        .get("gtid_mode")
        .map(|v| v.to_string().to_ascii_uppercase())
    {
        Some(m) if m == "ON" => true,
        Some(m) if m == "OFF" => false,
        other => {
            return Err(format!(
                "invalid gtid_mode '{}': ON or OFF",
                other.unwrap_or_default()
            ))
        }
    };
    let opts = replication::BinlogOptions {
        dir: datadir.clone(),
        basename: basename.clone(),
        server_id: u32::try_from(int("server_id")).map_err(|_| "server_id out of range")?,
        server_uuid: uuid,
        max_size: int("max_binlog_size").clamp(4096, 1 << 30),
        gtid_mode,
        server_version: "8.4.7-strata".into(),
        // the file's fsync only bounds how many records wait in the dictionary
        sync_every: 1000,
    };
    let log = replication::Binlog::open(&inst.storage, opts)
        .map_err(|e| format!("cannot open the binary log: {}", e.msg))?;
    log.set_full_row_metadata(
        g.get("binlog_row_metadata") == Some(common::Value::Str("FULL".into())),
    );
    *inst.binlog.write() = Some(log);
    let base = datadir.join(basename).display().to_string();
    g.set_internal("log_bin", common::Value::Int(1));
    g.set_internal("log_bin_index", common::Value::Str(format!("{base}.index")));
    g.set_internal("log_bin_basename", common::Value::Str(base));
    Ok(())
}

/// The machine's host name (`@@hostname`; the query logs' default file names), `localhost`
/// if it cannot be read.
fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

fn abs(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
        + "/"
}
