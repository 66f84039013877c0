//! The MySQL connection used to run one script, with a per-statement watchdog.
//!
//! Statements go through the text protocol (`COM_QUERY`), so every value comes back as the
//! server's text rendering (or NULL). A [`Session`] owns one connection plus a watchdog thread:
//! when a statement runs longer than the timeout, the watchdog opens (lazily, once) a second
//! connection and sends `KILL QUERY <id>`; the statement then reports [`ExecError::Timeout`].
//! As a fallback for servers that ignore `KILL QUERY`, socket reads time out a little later,
//! which breaks the connection; the caller then [`Session::reconnect`]s.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use mysql::{Conn, Opts, OptsBuilder, Value};

/// How to reach the server.
#[derive(Debug, Clone)]
pub struct ConnConfig {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    /// Per-statement timeout enforced by the watchdog.
    pub timeout: Duration,
}

/// Extra time past the statement timeout after which a socket read gives up (the fallback
/// when `KILL QUERY` has no effect).
const READ_TIMEOUT_GRACE: Duration = Duration::from_secs(15);

impl ConnConfig {
    fn opts(&self, db: Option<&str>) -> Opts {
        let io_timeout = self.timeout + READ_TIMEOUT_GRACE;
        OptsBuilder::new()
            .ip_or_hostname(Some(self.host.clone()))
            .tcp_port(self.port)
            .user(Some(self.user.clone()))
            .pass(Some(self.password.clone()))
            .db_name(db.map(str::to_string))
            .prefer_socket(false)
            .tcp_nodelay(true)
            // Known up front, so the driver skips its `SELECT @@max_allowed_packet`.
            .max_allowed_packet(Some(64 << 20))
            .stmt_cache_size(0)
            .tcp_connect_timeout(Some(Duration::from_secs(10)))
            .read_timeout(Some(io_timeout))
            .write_timeout(Some(io_timeout))
            .into()
    }

    /// Open a connection (optionally with a default database).
    pub fn connect(&self, db: Option<&str>) -> Result<Conn, String> {
        Conn::new(self.opts(db))
            .map_err(|e| format!("cannot connect to {}:{}: {e}", self.host, self.port))
    }
}

/// Why a statement did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// The server answered with an error.
    Server { code: u16, message: String },
    /// The statement exceeded the timeout (it was killed, or the socket read timed out).
    Timeout,
    /// The connection broke (I/O or protocol error); the session must reconnect.
    Connection(String),
}

impl std::fmt::Display for ExecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExecError::Server { code, message } => write!(f, "error {code}: {message}"),
            ExecError::Timeout => write!(f, "timeout"),
            ExecError::Connection(m) => write!(f, "connection lost: {m}"),
        }
    }
}

/// The first result set of a query: its width and its values row by row, flattened.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct QueryOutput {
    pub ncols: usize,
    pub values: Vec<Option<Vec<u8>>>,
}

/// State shared between a session and its watchdog thread.
#[derive(Default)]
struct WatchState {
    /// The statement in flight: (server connection id, start time, already killed).
    running: Option<(u32, Instant, bool)>,
    shutdown: bool,
}

struct Watchdog {
    shared: Arc<(Mutex<WatchState>, Condvar)>,
    handle: Option<JoinHandle<()>>,
}

fn lock(m: &Mutex<WatchState>) -> MutexGuard<'_, WatchState> {
    // A poisoned lock only means the other thread panicked; the state is still usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Watchdog {
    fn start(cfg: ConnConfig) -> Watchdog {
        let shared = Arc::new((Mutex::new(WatchState::default()), Condvar::new()));
        let thread_shared = Arc::clone(&shared);
        let handle = std::thread::Builder::new()
            .name("slt-watchdog".into())
            .spawn(move || watchdog_loop(&cfg, &thread_shared))
            .ok();
        Watchdog { shared, handle }
    }

    fn begin(&self, conn_id: u32) {
        lock(&self.shared.0).running = Some((conn_id, Instant::now(), false));
    }

    /// Clear the in-flight statement; returns whether the watchdog killed it.
    fn end(&self) -> bool {
        lock(&self.shared.0)
            .running
            .take()
            .is_some_and(|(_, _, killed)| killed)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        lock(&self.shared.0).shutdown = true;
        self.shared.1.notify_all();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn watchdog_loop(cfg: &ConnConfig, shared: &(Mutex<WatchState>, Condvar)) {
    let poll = (cfg.timeout / 10).clamp(Duration::from_millis(10), Duration::from_millis(500));
    let mut killer: Option<Conn> = None;
    let mut guard = lock(&shared.0);
    loop {
        if guard.shutdown {
            return;
        }
        if let Some((conn_id, started, killed)) = guard.running.as_mut() {
            if !*killed && started.elapsed() >= cfg.timeout {
                // The lock is held while killing, so the session cannot move on to its next
                // statement in the meantime and have that one killed instead.
                *killed = true;
                let sql = format!("KILL QUERY {conn_id}");
                for _attempt in 0..2 {
                    if killer.is_none() {
                        killer = cfg.connect(None).ok();
                    }
                    match killer.as_mut().map(|k| k.query_drop(&sql)) {
                        Some(Ok(())) => break,
                        // A server error (e.g. KILL unsupported) will not improve on retry.
                        Some(Err(mysql::Error::MySqlError(_))) | None => break,
                        Some(Err(_)) => killer = None,
                    }
                }
            }
        }
        guard = match shared.1.wait_timeout(guard, poll) {
            Ok((g, _)) => g,
            Err(p) => p.into_inner().0,
        };
    }
}

/// One connection with a default database, a watchdog and reconnect support.
pub struct Session {
    cfg: ConnConfig,
    conn: Option<Conn>,
    db: Option<String>,
    watchdog: Watchdog,
}

fn classify(e: mysql::Error) -> ExecError {
    match e {
        mysql::Error::MySqlError(m) => ExecError::Server {
            code: m.code,
            message: m.message,
        },
        mysql::Error::IoError(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            ExecError::Timeout
        }
        other => ExecError::Connection(other.to_string()),
    }
}

fn value_bytes(v: Value) -> Option<Vec<u8>> {
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(b),
        // Only the binary protocol produces these; kept for completeness.
        Value::Int(i) => Some(i.to_string().into_bytes()),
        Value::UInt(u) => Some(u.to_string().into_bytes()),
        Value::Float(f) => Some(f.to_string().into_bytes()),
        Value::Double(d) => Some(d.to_string().into_bytes()),
        other => Some(other.as_sql(true).trim_matches('\'').as_bytes().to_vec()),
    }
}

impl Session {
    /// Connect (without a default database).
    pub fn connect(cfg: &ConnConfig) -> Result<Session, String> {
        let conn = cfg.connect(None)?;
        Ok(Session {
            cfg: cfg.clone(),
            conn: Some(conn),
            db: None,
            watchdog: Watchdog::start(cfg.clone()),
        })
    }

    /// Whether the connection broke and [`Session::reconnect`] is needed.
    pub fn is_broken(&self) -> bool {
        self.conn.is_none()
    }

    /// Remember `db` as the database to select after a reconnect.
    pub fn set_database(&mut self, db: Option<String>) {
        self.db = db;
    }

    /// Re-open the connection (a few attempts), selecting the current database.
    pub fn reconnect(&mut self) -> Result<(), String> {
        self.conn = None;
        let mut last = String::new();
        for attempt in 0..4u32 {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(250 * u64::from(attempt)));
            }
            match self.cfg.connect(self.db.as_deref()) {
                Ok(c) => {
                    self.conn = Some(c);
                    return Ok(());
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Run a statement under the watchdog, giving the closure the live connection.
    fn guarded<T>(
        &mut self,
        f: impl FnOnce(&mut Conn) -> Result<T, mysql::Error>,
    ) -> Result<T, ExecError> {
        let Some(conn) = self.conn.as_mut() else {
            return Err(ExecError::Connection("not connected".into()));
        };
        self.watchdog.begin(conn.connection_id());
        let result = f(conn);
        let killed = self.watchdog.end();
        let err = match result {
            // A killed statement may still "succeed" with a partial result (e.g. SLEEP()
            // returning early): it timed out all the same.
            Ok(_) if killed => return Err(ExecError::Timeout),
            Ok(v) => return Ok(v),
            Err(e) => classify(e),
        };
        // Server errors that end the session: shutdown in progress, connection killed or
        // aborted (and the client-side "gone away"/"lost connection" codes, if relayed).
        let fatal_server_error = matches!(
            err,
            ExecError::Server {
                code: 1053 | 1152 | 1927 | 2006 | 2013,
                ..
            }
        );
        if fatal_server_error || matches!(err, ExecError::Connection(_) | ExecError::Timeout) {
            // An I/O failure or socket timeout leaves the protocol stream in an unknown
            // state: drop the connection; the caller reconnects.
            self.conn = None;
        }
        Err(if killed { ExecError::Timeout } else { err })
    }

    /// Execute a statement, discarding any result rows.
    pub fn execute(&mut self, sql: &str) -> Result<(), ExecError> {
        self.guarded(|c| {
            let mut result = c.query_iter(sql)?;
            while let Some(set) = result.iter() {
                for row in set {
                    row?;
                }
            }
            Ok(())
        })
    }

    /// Run a query and return its first result set (further result sets are drained).
    pub fn query(&mut self, sql: &str) -> Result<QueryOutput, ExecError> {
        self.guarded(|c| {
            let mut result = c.query_iter(sql)?;
            let mut out: Option<QueryOutput> = None;
            while let Some(set) = result.iter() {
                let ncols = set.columns().as_ref().len();
                let keep = out.is_none() && ncols > 0;
                let mut values = Vec::new();
                for row in set {
                    let row = row?;
                    if keep {
                        values.extend(row.unwrap().into_iter().map(value_bytes));
                    }
                }
                if keep {
                    out = Some(QueryOutput { ncols, values });
                }
            }
            Ok(out.unwrap_or_default())
        })
    }
}
