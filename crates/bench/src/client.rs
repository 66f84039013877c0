//! The server under test and client connections to it, plus helpers to run many clients at
//! once (one OS thread and one connection each).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder};

use crate::machine;

/// A MySQL-protocol server to drive.
#[derive(Debug, Clone)]
pub struct Target {
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// User.
    pub user: String,
    /// Password.
    pub password: String,
    /// The server's process id when it runs on this machine (for RSS).
    pub server_pid: Option<u32>,
    /// The server's data directory when it is on this machine (for the size on disk).
    pub datadir: Option<PathBuf>,
}

impl Target {
    fn opts(&self, db: Option<&str>) -> Opts {
        OptsBuilder::new()
            .ip_or_hostname(Some(self.host.clone()))
            .tcp_port(self.port)
            .user(Some(self.user.clone()))
            .pass(Some(self.password.clone()))
            .db_name(db.map(str::to_string))
            .prefer_socket(false)
            .tcp_nodelay(true)
            .max_allowed_packet(Some(64 << 20))
            // The driver closes a prepared statement on the server when it falls out of this
            // cache; tpcc keeps about 40 prepared on each connection.
            .stmt_cache_size(Some(128))
            .tcp_connect_timeout(Some(Duration::from_secs(10)))
            .into()
    }

    /// Opens a connection, optionally with a default database.
    pub fn connect(&self, db: Option<&str>) -> Result<Conn> {
        Conn::new(self.opts(db))
            .with_context(|| format!("cannot connect to {}:{}", self.host, self.port))
    }

    /// Opens a connection with a deadline on every step: the TCP connect, and each read and
    /// write of the handshake (so a server that accepts but never answers times out too).
    pub fn connect_within(&self, timeout: Duration) -> std::result::Result<Conn, mysql::Error> {
        let opts: Opts = OptsBuilder::from_opts(self.opts(None))
            .tcp_connect_timeout(Some(timeout))
            .read_timeout(Some(timeout))
            .write_timeout(Some(timeout))
            .into();
        Conn::new(opts)
    }

    /// The server's resident set size, when its pid is known.
    pub fn rss_bytes(&self) -> Option<u64> {
        self.server_pid.and_then(machine::rss_bytes)
    }

    /// The data directory's size on disk, when it is known.
    pub fn disk_bytes(&self) -> Option<u64> {
        self.datadir.as_deref().map(machine::dir_size)
    }
}

/// Drops and recreates a database.
pub fn fresh_database(conn: &mut Conn, db: &str) -> Result<()> {
    conn.query_drop(format!("DROP DATABASE IF EXISTS `{db}`"))?;
    conn.query_drop(format!("CREATE DATABASE `{db}`"))?;
    Ok(())
}

/// Asks a RocksDB-based server to write its memtables to SST files, so that the rows only
/// held in memory and in the write-ahead log reach their compressed, at-rest form (MyRocks'
/// `rocksdb_force_flush_memtable_now`, Strata's `strata_force_flush_memtable_now`). Returns
/// the variable that worked, `None` for a server with neither (InnoDB).
pub fn flush_memtables(conn: &mut Conn) -> Option<&'static str> {
    [
        "strata_force_flush_memtable_now",
        "rocksdb_force_flush_memtable_now",
    ]
    .into_iter()
    .find(|var| conn.query_drop(format!("SET GLOBAL {var} = ON")).is_ok())
}

/// The `SHOW GLOBAL STATUS` value of `name` as a number; `None` when the server has no such
/// variable (or its value is not a number).
pub fn global_status(conn: &mut Conn, name: &str) -> Result<Option<u64>> {
    let row: Option<(String, String)> =
        conn.query_first(format!("SHOW GLOBAL STATUS LIKE '{name}'"))?;
    Ok(row.and_then(|(_, v)| v.parse().ok()))
}

/// `DATA_LENGTH + INDEX_LENGTH` of the tables of a database per INFORMATION_SCHEMA (what the
/// server reports; used when the data directory is not on this machine).
pub fn schema_size(conn: &mut Conn, db: &str) -> Result<Option<u64>> {
    let v: Option<Option<String>> = conn.query_first(format!(
        "SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES \
         WHERE TABLE_SCHEMA = '{db}'"
    ))?;
    Ok(v.flatten()
        .and_then(|s| s.parse::<f64>().ok())
        .map(|f| f as u64))
}

/// Runs `f(client_index, connection)` on `n` threads, each with its own connection to `db`.
/// When one client fails, `stop` is raised so the others can finish early; the first error is
/// returned, otherwise every client's result in client order.
pub fn run_clients<T, F>(
    target: &Target,
    db: Option<&str>,
    n: usize,
    stop: &AtomicBool,
    f: F,
) -> Result<Vec<T>>
where
    T: Send,
    F: Fn(usize, &mut Conn) -> Result<T> + Sync,
{
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        conns.push(target.connect(db)?);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = conns
            .into_iter()
            .enumerate()
            .map(|(i, mut c)| {
                let f = &f;
                s.spawn(move || {
                    let r = f(i, &mut c);
                    if r.is_err() {
                        stop.store(true, Ordering::SeqCst);
                    }
                    r
                })
            })
            .collect();
        let mut out = Vec::with_capacity(n);
        let mut first_err = None;
        for h in handles {
            match h.join() {
                Ok(Ok(v)) => out.push(v),
                Ok(Err(e)) => {
                    first_err.get_or_insert(e);
                }
                Err(_) => {
                    first_err.get_or_insert(anyhow!("a client thread panicked"));
                }
            }
        }
        match first_err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_without_local_facts() {
        let t = Target {
            host: "127.0.0.1".into(),
            port: 1,
            user: "root".into(),
            password: String::new(),
            server_pid: None,
            datadir: None,
        };
        assert_eq!(t.rss_bytes(), None);
        assert_eq!(t.disk_bytes(), None);
        // Nothing listens on port 1: the error names the address.
        let e = t.connect(None).unwrap_err();
        assert!(format!("{e:#}").contains("127.0.0.1:1"), "{e:#}");
    }
}
