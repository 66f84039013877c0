//! The statement boundary's side of the query logs: each command's general-log line
//! (`Connect`, `Query`, `Prepare`, `Execute`, `Close stmt`, `Init DB`, `Quit`) and, when a
//! statement ends, MySQL's slow-log decision (`log_slow_applicable`): `Slow_queries` counts it
//! and the slow log writes it when it ran longer than `long_query_time` (or read a table
//! without an index under `log_queries_not_using_indexes`) and examined at least
//! `min_examined_row_limit` rows. The files are [`crate::runtime::querylog`]'s.
//!
//! With both logs off a statement costs two clock reads, the relaxed loads of the log flags
//! and a comparison (`Slow_queries` counts slow statements with the log off too, as in MySQL).
//! The same clock feeds performance_schema's statement events (`dispatch::perfschema`) when
//! `performance_schema` is on: nothing is measured twice.

use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use common::{codes, Result};
use sqlparser::ast::{ObjectType, Statement};
use storage::engine::KvEngine;

use crate::parse::parser::{Parsed, Stmt};
use crate::runtime::querylog::{self, SlowEntry};
use crate::session::session::*;

/// What the slow log and performance_schema need to know of a statement besides its result.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StmtKind<'a> {
    /// An administrative statement (ALTER TABLE, CREATE / DROP INDEX, ANALYZE, CHECK,
    /// OPTIMIZE, REPAIR TABLE): logged only with `log_slow_admin_statements`.
    admin: bool,
    /// SHOW / DESCRIBE: never logged for not using an index.
    status: bool,
    /// A protocol command, not a statement (COM_STMT_PREPARE): logged as
    /// `# administrator command: <name>`, with `log_slow_admin_statements` only.
    command: bool,
    /// The statement (its event name is derived from it only when performance_schema is on).
    parsed: Option<&'a Parsed>,
}

impl<'a> StmtKind<'a> {
    /// The kind of a parsed statement.
    pub(crate) fn of(p: &'a Parsed) -> StmtKind<'a> {
        let (admin, status) = match &p.stmt {
            Stmt::AlterTable(_) | Stmt::Maintenance(_) => (true, false),
            Stmt::Show(_) => (false, true),
            Stmt::Ast(s) => match s {
                Statement::AlterTable(_)
                | Statement::CreateIndex(_)
                | Statement::Analyze { .. }
                | Statement::OptimizeTable { .. } => (true, false),
                Statement::Drop { object_type, .. } => (*object_type == ObjectType::Index, false),
                Statement::ExplainTable { .. } => (false, true),
                _ => (false, false),
            },
            _ => (false, false),
        };
        StmtKind {
            admin,
            status,
            command: false,
            parsed: Some(p),
        }
    }

    /// A protocol command (COM_STMT_PREPARE).
    pub(crate) fn command() -> StmtKind<'a> {
        StmtKind {
            admin: true,
            status: false,
            command: true,
            parsed: None,
        }
    }

    /// The statement, if this is one.
    pub(crate) fn parsed(&self) -> Option<&'a Parsed> {
        self.parsed
    }
}

/// Taken when a statement starts ([`Session::stmt_clock`]), read when it ends.
pub(crate) struct StmtClock {
    pub(crate) start: Instant,
    /// The session's Handler_read_* counters at the start, when rows examined or index use
    /// can matter (a log on, `min_examined_row_limit` set, or performance_schema on).
    pub(crate) reads: Option<[u64; 6]>,
    /// The thread's lock-wait total at the start (slow log or performance_schema on).
    pub(crate) lock_us: u64,
    /// `Select_scan`, `Select_range` at the start (performance_schema on).
    pub(crate) selects: [u64; 2],
    /// The prepared statement being executed (COM_STMT_EXECUTE), if any.
    pub(crate) prepared: Option<u32>,
}

fn reads(h: &HandlerReads) -> [u64; 6] {
    h.values().map(|(_, v)| v)
}

impl<E: KvEngine> Session<E> {
    /// Writes a general-log line for this connection, unless the log is off or the session
    /// set `sql_log_off`.
    pub(crate) fn general_log(&self, command: &str, arg: &str) {
        if self.inst.querylog.general_on() && !self.hot().sql_log_off && !self.log_quiet {
            self.inst.querylog.general(self.conn_id, command, arg);
        }
    }

    /// The general log's `Connect` line (`root@localhost on db using TCP/IP`): the server
    /// calls it once the session is open. `tls`: the connection uses TLS.
    pub fn log_connect(&self, tls: bool) {
        if !self.inst.querylog.general_on() {
            return;
        }
        let (host, ip) = querylog::host_and_ip(&self.host);
        let transport = if tls {
            "SSL/TLS"
        } else if self.host == "localhost" {
            "Socket"
        } else {
            "TCP/IP"
        };
        let host_or_ip = if host.is_empty() { ip } else { host };
        self.general_log(
            "Connect",
            &format!(
                "{}@{host_or_ip} on {} using {transport}",
                self.user,
                self.db.as_deref().unwrap_or("")
            ),
        );
    }

    /// The general log's `Quit` line: the server calls it when the connection ends.
    pub fn log_quit(&self) {
        self.general_log("Quit", "");
    }

    /// COM_INIT_DB: logged as `Init DB`, then [`Session::use_db`].
    pub fn init_db(&mut self, db: &str) -> Result<()> {
        self.general_log("Init DB", db);
        self.counters.com(Com::ChangeDb);
        self.use_db(db)
    }

    /// COM_FIELD_LIST: runs `sql` (the server's query for the columns of `table`) without
    /// entries of its own in the query logs; the general log gets MySQL's `Field List` line.
    pub fn field_list_query(&mut self, table: &str, sql: &str) -> Vec<Result<Output>> {
        self.general_log("Field List", &format!("{table} "));
        self.log_quiet = true;
        let r = self.query(sql, false);
        self.log_quiet = false;
        r
    }

    /// Starts timing a statement.
    pub(crate) fn stmt_clock(&self) -> StmtClock {
        self.enter_lock_owner();
        let logs = &self.inst.querylog;
        let slow_on = logs.slow_on();
        let perf = self.inst.globals.perf().enabled();
        let track =
            perf || slow_on || logs.not_using_indexes() || self.hot().min_examined_row_limit > 0;
        StmtClock {
            start: Instant::now(),
            reads: track.then(|| reads(&self.handler)),
            lock_us: if slow_on || perf {
                common::wait::lock_wait_micros()
            } else {
                0
            },
            selects: if perf {
                [
                    self.counters.get(Ctr::SelectScan),
                    self.counters.get(Ctr::SelectRange),
                ]
            } else {
                [0; 2]
            },
            prepared: self.executing,
        }
    }

    /// Ends a statement started with [`Session::stmt_clock`]: records it in performance_schema
    /// (when on), counts it in `Slow_queries` and writes it to the slow log when MySQL would.
    /// `text` makes the statement's text, only when it is needed.
    pub(crate) fn stmt_end<'t>(
        &self,
        clock: StmtClock,
        r: &Result<Output>,
        kind: StmtKind<'_>,
        text: impl FnOnce() -> Cow<'t, str>,
    ) {
        let elapsed = clock.start.elapsed();
        self.note_transaction(elapsed);
        let mut text = Some(text);
        let mut made = None;
        if self.inst.globals.perf().enabled() && !kind.command && !self.log_quiet {
            made = self.ps_statement_end(&clock, elapsed, r, kind, &mut text);
        }
        let logs = &self.inst.querylog;
        let hot = self.hot();
        let slow = elapsed.as_micros() > u128::from(hot.long_query_us);
        if (!slow && !logs.not_using_indexes()) || self.log_quiet {
            return;
        }
        if matches!(r, Err(e) if e.code.num == codes::ER_PARSE_ERROR.num)
            || self.kill_conn.load(Ordering::Relaxed)
        {
            return;
        }
        // rows examined: the rows the storage read for the statement (Handler_read_*)
        let (examined, no_index) = match clock.reads {
            Some(before) => {
                let now = reads(&self.handler);
                let d: Vec<u64> = now
                    .iter()
                    .zip(before)
                    .map(|(n, b)| n.saturating_sub(b))
                    .collect();
                // [first, key, last, next, prev, rnd_next]: a full scan, in index order or not
                (d.iter().sum::<u64>(), d[0] + d[2] + d[5] > 0)
            }
            None => (0, false),
        };
        let warn_no_index = no_index && logs.not_using_indexes() && !kind.status;
        if !(slow || warn_no_index) || examined < hot.min_examined_row_limit {
            return;
        }
        self.counters.add(Ctr::SlowQueries, 1);
        if !logs.slow_on() || (kind.admin && !logs.slow_admin()) {
            return;
        }
        let (rows_sent, insert_id) = match r {
            Ok(Output::Rows { rows, .. }) => (rows.len() as u64, None),
            Ok(Output::RowsSent { rows }) => (*rows, None),
            Ok(Output::Ok { last_insert_id, .. }) => (0, Some(*last_insert_id).filter(|i| *i > 0)),
            Err(_) => (0, None),
        };
        let lock_us = common::wait::lock_wait_micros().saturating_sub(clock.lock_us);
        let (host, ip) = querylog::host_and_ip(&self.host);
        let text = match (made, text) {
            (Some(t), _) => t,
            (None, Some(f)) => f(),
            (None, None) => Cow::Borrowed(""),
        };
        logs.slow(&SlowEntry {
            id: self.conn_id,
            user: &self.user,
            host,
            ip,
            query_time: elapsed,
            lock_time: Duration::from_micros(lock_us),
            rows_sent,
            rows_examined: examined,
            db: self.db.as_deref(),
            start: SystemTime::now()
                .checked_sub(elapsed)
                .unwrap_or(SystemTime::UNIX_EPOCH),
            insert_id,
            admin_command: kind.command,
            text: &text,
        });
    }
}

/// A statement's text for the logs: account statements with their passwords hidden.
pub(crate) fn log_text<'a>(p: &Parsed, text: &'a str) -> Cow<'a, str> {
    if matches!(p.stmt, Stmt::Acl(_)) {
        querylog::redact_secrets(text)
    } else {
        Cow::Borrowed(text)
    }
}
