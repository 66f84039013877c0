//! The replica side of replication, one channel (the default, `''`): [`Replica`] holds the
//! source configuration ([`config`]), runs the receiver thread ([`receiver`]: connects to the
//! source with [`client`], COM_BINLOG_DUMP_GTID from this server's `gtid_executed`, whole
//! transactions into a [`queue`]) and the applier thread ([`applier`]: each transaction as one
//! transaction here, row events as statements ([`sqltext`]) through an [`ApplyTarget`] the
//! server provides (a session of the SQL layer, which this crate cannot depend on), the
//! source's GTID logged with it atomically), and reports SHOW REPLICA STATUS ([`status`]).
//!
//! There is no relay log: received transactions wait in memory and a restart fetches again
//! from the source whatever was not applied.

pub mod applier;
pub mod client;
pub mod config;
pub mod queue;
pub mod receiver;
pub mod sqltext;
pub mod status;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use binlog::{GtidSet, Uuid};
use common::{codes, Error, Result};
use parking_lot::Mutex;

pub use config::{OptionValue, SourceConfig};
pub use sqltext::TableColumn;
pub use status::{Field, IoRunning, ReplicaState};

/// Where the applier runs its statements: a session of this server (installed by the
/// server, which owns the SQL layer).
pub trait ApplyTarget: Send {
    /// The next commit (or DDL statement) of the session is logged with GTID `uuid:gno`.
    fn assign_gtid(&mut self, uuid: Uuid, gno: u64, original_micros: u64);
    /// After a transaction: `applied` true logs the assigned GTID as an empty transaction if
    /// nothing used it; false takes it back.
    ///
    /// # Errors
    /// Engine errors logging the empty transaction.
    fn finish_gtid(&mut self, applied: bool) -> Result<()>;
    /// Runs one statement with `db` as the default database; the rows it matched.
    ///
    /// # Errors
    /// The statement's error.
    fn execute(&mut self, db: Option<&str>, sql: &str) -> Result<u64>;
    /// The columns of `db.table` here.
    ///
    /// # Errors
    /// 1146 when there is no such table.
    fn columns(&mut self, db: &str, table: &str) -> Result<Vec<TableColumn>>;
}

/// Creates the applier's session.
pub type TargetFactory = Arc<dyn Fn() -> Result<Box<dyn ApplyTarget>> + Send + Sync>;

/// What the server gives the replica.
#[derive(Clone)]
pub struct ReplicaSetup {
    /// The data directory (the configuration file).
    pub datadir: PathBuf,
    /// This server's `server_id` (sent to the source).
    pub server_id: u32,
    /// This server's `server_uuid` (`@replica_uuid`).
    pub server_uuid: Uuid,
    /// This server's port (COM_REGISTER_SLAVE's `report_port`).
    pub report_port: u16,
    /// This server's `gtid_executed`; `None` without a binary log.
    pub gtid_executed: Arc<dyn Fn() -> Option<GtidSet> + Send + Sync>,
    /// The applier's session.
    pub target: TargetFactory,
}

/// State both threads and the statements share.
pub struct Shared {
    /// What SHOW REPLICA STATUS reports.
    pub state: Mutex<ReplicaState>,
    /// Transactions received, not yet applied.
    pub queue: queue::Queue,
    /// A handle on the receiver's socket, shut down to stop it at once.
    pub socket: Mutex<Option<std::net::TcpStream>>,
}

struct Worker {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<()>,
}

impl Worker {
    fn running(&self) -> bool {
        !self.handle.is_finished()
    }
}

/// The replica (one per server).
pub struct Replica {
    setup: ReplicaSetup,
    config: Mutex<Option<SourceConfig>>,
    shared: Arc<Shared>,
    io: Mutex<Option<Worker>>,
    sql: Mutex<Option<Worker>>,
}

fn must_stop_io() -> Error {
    Error::new(
        codes::ER_REPLICA_CHANNEL_IO_THREAD_MUST_STOP,
        "This operation cannot be performed with a running replica io thread; run STOP REPLICA IO_THREAD FOR CHANNEL '' first.",
    )
}

fn not_configured() -> Error {
    Error::new(
        codes::ER_BAD_REPLICA,
        "The server is not configured as replica; fix in config file or with CHANGE REPLICATION SOURCE TO",
    )
}

impl Replica {
    /// The replica of a server, its configuration read from the data directory.
    ///
    /// # Errors
    /// A corrupt configuration file.
    pub fn open(setup: ReplicaSetup) -> Result<Arc<Replica>> {
        let cfg = SourceConfig::load(&setup.datadir)?;
        Ok(Arc::new(Replica {
            setup,
            config: Mutex::new(cfg),
            shared: Arc::new(Shared {
                state: Mutex::new(ReplicaState::default()),
                queue: queue::Queue::new(),
                socket: Mutex::new(None),
            }),
            io: Mutex::new(None),
            sql: Mutex::new(None),
        }))
    }

    /// Restarts the threads that were running when the server stopped.
    pub fn start_at_boot(&self) {
        let Some(cfg) = self.config.lock().clone() else {
            return;
        };
        if cfg.io_running || cfg.sql_running {
            if let Err(e) = self.start(cfg.io_running, cfg.sql_running) {
                tracing::error!(error = %e.msg, "replica: cannot restart the replication threads");
            }
        }
    }

    fn io_running(&self) -> bool {
        self.io.lock().as_ref().is_some_and(Worker::running)
    }

    fn sql_running(&self) -> bool {
        self.sql.lock().as_ref().is_some_and(Worker::running)
    }

    fn persist(&self, f: impl FnOnce(&mut SourceConfig)) -> Result<()> {
        let mut g = self.config.lock();
        if let Some(c) = g.as_mut() {
            f(c);
            c.save(&self.setup.datadir)?;
        }
        Ok(())
    }

    /// CHANGE REPLICATION SOURCE TO: applies `opts` (names in their `SOURCE_` spelling) and
    /// keeps the result in the data directory.
    ///
    /// # Errors
    /// 3021 while the receiver runs; an option's error (see [`SourceConfig::apply`]); I/O.
    pub fn change_source(&self, opts: &[(String, OptionValue)]) -> Result<()> {
        if self.io_running() {
            return Err(must_stop_io());
        }
        let mut g = self.config.lock();
        let mut c = g.clone().unwrap_or_default();
        let old_host = (c.host.clone(), c.port);
        for (name, v) in opts {
            c.apply(name, v)?;
        }
        if c.host.is_empty() {
            return Err(Error::new(
                codes::ER_WRONG_ARGUMENTS,
                "Incorrect arguments to SOURCE_HOST",
            ));
        }
        c.save(&self.setup.datadir)?;
        if old_host != (c.host.clone(), c.port) {
            self.shared.state.lock().retrieved = GtidSet::new();
        }
        *g = Some(c);
        Ok(())
    }

    /// START REPLICA [IO_THREAD] [SQL_THREAD] (both when neither is named): starts those not
    /// running; they are restarted with the server until STOP REPLICA.
    ///
    /// # Errors
    /// 1200 without a source; 1235 without SOURCE_AUTO_POSITION=1 or without a binary log.
    pub fn start(&self, io: bool, sql: bool) -> Result<()> {
        let cfg = self.config.lock().clone().ok_or_else(not_configured)?;
        if !cfg.auto_position {
            return Err(Error::new(
                codes::ER_NOT_SUPPORTED_YET,
                "This version of MySQL doesn't yet support 'replication by file and position (set SOURCE_AUTO_POSITION = 1)'",
            ));
        }
        if (self.setup.gtid_executed)().is_none() {
            return Err(Error::new(
                codes::ER_NOT_SUPPORTED_YET,
                "This version of MySQL doesn't yet support 'a replica without a binary log (--skip-log-bin)'",
            ));
        }
        if io && !self.io_running() {
            let stop = Arc::new(AtomicBool::new(false));
            let r = receiver::Receiver {
                cfg: cfg.clone(),
                setup: self.setup.clone(),
                shared: self.shared.clone(),
                stop: stop.clone(),
            };
            self.shared.state.lock().io = IoRunning::Connecting;
            let handle = std::thread::Builder::new()
                .name("replica-io".into())
                .spawn(move || r.run())
                .map_err(|e| Error::internal(format!("cannot start the receiver: {e}")))?;
            *self.io.lock() = Some(Worker { stop, handle });
        }
        if sql && !self.sql_running() {
            let stop = Arc::new(AtomicBool::new(false));
            let target = (self.setup.target)()?;
            let a = applier::Applier {
                shared: self.shared.clone(),
                executed: self.setup.gtid_executed.clone(),
                stop: stop.clone(),
                target,
            };
            {
                let mut st = self.shared.state.lock();
                st.sql = true;
                st.sql_error = Default::default();
            }
            let handle = std::thread::Builder::new()
                .name("replica-sql".into())
                .spawn(move || a.run())
                .map_err(|e| Error::internal(format!("cannot start the applier: {e}")))?;
            *self.sql.lock() = Some(Worker { stop, handle });
        }
        self.persist(|c| {
            c.io_running |= io;
            c.sql_running |= sql;
        })
    }

    /// STOP REPLICA [IO_THREAD] [SQL_THREAD]: stops those threads and waits for them (the
    /// applier finishes the transaction it is applying).
    ///
    /// # Errors
    /// I/O errors keeping the configuration.
    pub fn stop(&self, io: bool, sql: bool) -> Result<()> {
        if io {
            if let Some(w) = self.io.lock().take() {
                w.stop.store(true, Ordering::SeqCst);
                if let Some(s) = self.shared.socket.lock().take() {
                    let _ = s.shutdown(std::net::Shutdown::Both);
                }
                self.shared.queue.wake();
                let _ = w.handle.join();
            }
            let mut st = self.shared.state.lock();
            st.io = IoRunning::No;
            st.io_state.clear();
        }
        if sql {
            if let Some(w) = self.sql.lock().take() {
                w.stop.store(true, Ordering::SeqCst);
                self.shared.queue.wake();
                let _ = w.handle.join();
            }
            let mut st = self.shared.state.lock();
            st.sql = false;
            st.sql_state.clear();
        }
        self.persist(|c| {
            c.io_running &= !io;
            c.sql_running &= !sql;
        })
    }

    /// RESET REPLICA [ALL]: forgets what was received and the threads' errors; ALL also the
    /// source configuration.
    ///
    /// # Errors
    /// 1198 while a thread runs; I/O errors.
    pub fn reset(&self, all: bool) -> Result<()> {
        if self.io_running() || self.sql_running() {
            return Err(Error::new(
                codes::ER_REPLICA_MUST_STOP,
                "This operation cannot be performed with a running replica; run STOP REPLICA first",
            ));
        }
        self.shared.queue.clear();
        *self.shared.state.lock() = ReplicaState::default();
        if all {
            SourceConfig::remove(&self.setup.datadir)?;
            *self.config.lock() = None;
        }
        Ok(())
    }

    /// The source configuration (CHANGE REPLICATION SOURCE TO); `None` when there is none.
    pub fn config(&self) -> Option<SourceConfig> {
        self.config.lock().clone()
    }

    /// SHOW REPLICA STATUS's row; `None` when no source is configured.
    pub fn status(&self) -> Option<Vec<(&'static str, Field)>> {
        let cfg = self.config.lock().clone()?;
        let mut st = self.shared.state.lock().clone();
        if !self.io_running() {
            st.io = IoRunning::No;
            st.io_state.clear();
        }
        if !self.sql_running() {
            st.sql = false;
            st.sql_state.clear();
        }
        st.queued_bytes = self.shared.queue.bytes();
        let executed = (self.setup.gtid_executed)().unwrap_or_default();
        let file = SourceConfig::path(&self.setup.datadir);
        Some(status::status_fields(
            &cfg,
            &st,
            &executed,
            &file.display().to_string(),
            status::now_secs(),
        ))
    }
}
