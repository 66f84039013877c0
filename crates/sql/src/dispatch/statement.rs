//! One parsed statement: MySQL's transaction rules around it (autocommit, implicit commit before
//! DDL, statement rollback on error, whole-transaction rollback on deadlock) and its routing to
//! the stage that runs it.

use std::sync::atomic::Ordering;

use common::{codes, Error, Result, Value, Warning};
use sqlparser::ast::{self, Statement};
use storage::engine::KvEngine;

use crate::dispatch::com;
use crate::parse::parser::Parsed;
use crate::parse::parser::PrepareSource;
use crate::parse::parser::Stmt;

use crate::session::session::*;

fn savepoint_missing(name: &str) -> Error {
    Error::new(
        codes::ER_SP_DOES_NOT_EXIST,
        format!("SAVEPOINT {name} does not exist"),
    )
}

/// How a statement interacts with transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Reads tables inside the transaction.
    Read,
    /// Writes rows.
    Dml,
    /// DDL: implicit commit before.
    Ddl,
    /// Other statements that commit implicitly (LOCK TABLES...).
    ImplicitCommit,
    /// Everything else (SET, SHOW, transaction control).
    Other,
}

fn classify(s: &Statement) -> Class {
    match s {
        Statement::Query(_) => Class::Read,
        Statement::Insert(_) | Statement::Update(_) | Statement::Delete(_) => Class::Dml,
        // CREATE / DROP TEMPORARY TABLE do not commit: they run inside the transaction (the
        // rows of CREATE TEMPORARY TABLE … SELECT are part of it)
        Statement::CreateTable(ct) if ct.temporary => Class::Dml,
        Statement::Drop {
            temporary: true,
            object_type: ast::ObjectType::Table,
            ..
        } => Class::Dml,
        Statement::CreateDatabase { .. }
        | Statement::CreateSchema { .. }
        | Statement::CreateTable(_)
        | Statement::CreateView(_)
        | Statement::CreateIndex(_)
        | Statement::Drop { .. }
        | Statement::Truncate(_)
        | Statement::RenameTable(_)
        | Statement::AlterTable(_) => Class::Ddl,
        Statement::LockTables { .. } | Statement::UnlockTables => Class::ImplicitCommit,
        _ => Class::Other,
    }
}

impl<E: KvEngine> Session<E> {
    /// Runs one parsed statement with MySQL transaction rules (a KILL QUERY that came before
    /// does not apply to it).
    pub fn run(&mut self, p: &Parsed, params: &[Value]) -> Result<Output> {
        self.killed.store(false, Ordering::SeqCst);
        self.run_with_files(p, params, &mut common::client::NoClient)
    }

    /// [`Session::run`] with the client's files reachable for `LOAD DATA LOCAL INFILE`.
    pub fn run_with_files(
        &mut self,
        p: &Parsed,
        params: &[Value],
        files: &mut dyn common::client::Client,
    ) -> Result<Output> {
        if self.kill_conn.load(Ordering::SeqCst) {
            // KILL CONNECTION arrived while the command was queued: run nothing more.
            return Err(Error::interrupted());
        }
        // (the KILL QUERY flag was cleared when the command started: see `query_with_files`)
        if self.programs.hooks.is_none() {
            self.programs.hooks = Some(crate::session::program::ProgramHooks {
                call_function: crate::program::call::call_function::<E>,
                run_statement: Self::run_in_program,
            });
        }
        self.stmt_now = None;
        if self.globals.generation() != self.inst.globals.generation() {
            self.globals = self.inst.globals.snapshot();
        }
        let is_diag = matches!(&p.stmt, Stmt::Show(t) if crate::show::show::is_show_warnings(t));
        if !is_diag {
            self.prev_warnings = (
                self.warnings
                    .iter()
                    .filter(|w| w.level != common::Level::Error)
                    .count(),
                self.warnings
                    .iter()
                    .filter(|w| w.level == common::Level::Error)
                    .count(),
            );
            self.warnings.clear();
        }
        let class = match &p.stmt {
            Stmt::Ast(s) => classify(s),
            // EXECUTE runs a statement that may read or write tables
            Stmt::Execute { .. } => Class::Dml,
            Stmt::AlterTable(_) | Stmt::CreatePartitioned(..) => Class::Ddl,
            Stmt::Acl(_) | Stmt::Replica(_) => Class::ImplicitCommit,
            Stmt::LoadData(_) => Class::Dml,
            Stmt::Routine(crate::parse::routine::RoutineStmt::Call { .. }) => Class::Other,
            Stmt::Routine(_) => Class::Ddl,
            _ => Class::Other,
        };
        if class == Class::Ddl || class == Class::ImplicitCommit {
            self.commit()?;
        }
        let transactional = class == Class::Dml || class == Class::Read;
        self.shared_mdl = if class == Class::Dml {
            crate::runtime::mdl::MdlMode::SharedWrite
        } else {
            crate::runtime::mdl::MdlMode::SharedRead
        };
        if transactional {
            self.ensure_txn().stmt_begin();
        }
        // resource limits of this statement (see crate::limits)
        let hot = self.hot();
        let _limits = crate::runtime::limits::StatementLimits::new(hot.max_session_mem_used);
        let timeout_ms = match &p.stmt {
            Stmt::Ast(Statement::Query(_)) => {
                crate::runtime::limits::hint_max_execution_time(&p.sql)
                    .unwrap_or(hot.max_execution_time)
            }
            _ => 0,
        };
        let deadline = (timeout_ms > 0).then(|| {
            crate::runtime::limits::arm_timeout(
                std::time::Duration::from_millis(timeout_ms),
                self.killed.clone(),
            )
        });
        let r = match self.dispatch(p, params, files) {
            Err(e)
                if e.code.num == codes::ER_QUERY_INTERRUPTED.num
                    && deadline.as_ref().is_some_and(|d| d.fired()) =>
            {
                Err(crate::runtime::limits::timeout_error())
            }
            r => r,
        };
        if class == Class::Ddl && r.is_ok() {
            self.log_ddl(p);
        }
        if deadline.as_ref().is_some_and(|d| d.fired()) {
            // this statement's own timeout: it must not interrupt the next statement of the
            // command (the flag is otherwise cleared only when a command starts)
            self.killed.store(false, Ordering::SeqCst);
        }
        drop(deadline);
        if class == Class::Ddl && self.txn.is_some() {
            // a DDL statement commits at its end too (the rows CREATE TABLE … SELECT wrote)
            match &r {
                Ok(_) => {
                    if let Err(e) = self.commit() {
                        self.rollback();
                        return Err(e);
                    }
                }
                Err(_) => self.rollback(),
            }
        }
        if self.txn.is_none() {
            // outside a transaction, metadata locks last for the statement
            self.mdl_release();
        }
        if transactional {
            match &r {
                Ok(_) => {
                    if let Some(t) = self.txn.as_mut() {
                        t.stmt_commit();
                    }
                    if self.autocommit() && !self.explicit_txn {
                        if let Err(e) = self.commit() {
                            self.rollback();
                            return Err(e);
                        }
                    }
                }
                Err(e) => {
                    if e.num() == codes::ER_LOCK_DEADLOCK.num {
                        self.rollback();
                    } else {
                        if let Some(t) = self.txn.as_mut() {
                            t.stmt_rollback();
                        }
                        if self.autocommit() && !self.explicit_txn {
                            self.rollback();
                        }
                    }
                }
            }
        }
        if let Err(e) = &r {
            // every error, an interrupted statement's too, is in SHOW ERRORS / SHOW WARNINGS
            self.warnings.push(Warning {
                level: common::Level::Error,
                code: e.code.num,
                msg: e.msg.clone(),
            });
            self.row_count = -1;
        } else {
            self.row_count = match &r {
                Ok(Output::Ok { affected, .. }) if class == Class::Dml => *affected as i64,
                Ok(Output::Rows { .. } | Output::RowsSent { .. }) => -1,
                _ => 0,
            };
        }
        r
    }

    /// Writes a DDL statement that has run to the binary log (as the client sent it), unless
    /// it only touched a TEMPORARY table (not logged in row format, as MySQL) or the session
    /// turned logging off (`sql_log_bin = 0`). The statement has committed: a failure to log
    /// is reported in the error log, not to the client.
    fn log_ddl(&mut self, p: &Parsed) {
        let temporary = matches!(
            &p.stmt,
            Stmt::Ast(Statement::CreateTable(ct)) if ct.temporary
        ) || matches!(
            &p.stmt,
            Stmt::Ast(Statement::Drop {
                temporary: true,
                ..
            })
        );
        if temporary || self.var_int("sql_log_bin", 1) == 0 {
            return;
        }
        let log = self.inst.binlog.read().clone();
        if let Some(log) = log {
            if let Err(e) = log.log_ddl(self.conn_id, self.db.as_deref(), &p.sql) {
                tracing::error!(error = %e.msg, "binary log: DDL not logged");
            }
        }
    }

    /// Counts the statement (`Com_*`, and what [`com::after_statement`] derives) and runs
    /// it: the one place statements are counted, so that EXECUTE counts the statement it runs.
    fn dispatch(
        &mut self,
        p: &Parsed,
        params: &[Value],
        files: &mut dyn common::client::Client,
    ) -> Result<Output> {
        let kinds = com::kinds(p);
        for k in kinds {
            self.counters.com(*k);
        }
        let before = (kinds == [Com::Select]).then(|| com::reads_now(&self.handler));
        let r = self.dispatch_inner(p, params, files);
        com::after_statement(&self.counters, kinds, &r, &self.handler, before);
        r
    }

    fn dispatch_inner(
        &mut self,
        p: &Parsed,
        params: &[Value],
        files: &mut dyn common::client::Client,
    ) -> Result<Output> {
        crate::acl::check::check(self, p)?;
        self.deny_if_read_only(p)?;
        self.deny_in_read_only_txn(p)?;
        self.check_locked_tables(p)?;
        self.wait_global_read_lock(p)?;
        let stmt = match &p.stmt {
            Stmt::LoadData(l) => {
                return crate::dml::load::execute(self, l, files);
            }
            Stmt::Acl(a) => return crate::acl::stmt::execute(self, a),
            Stmt::Show(tokens) => return crate::show::show::show(self, tokens),
            Stmt::SetList(list) => {
                for st in list {
                    match st {
                        Statement::Set(set) => self.exec_set(set, params)?,
                        other => return Err(Error::parse(other.to_string())),
                    };
                }
                return Ok(Output::ok(0));
            }
            Stmt::Do(stmt) => {
                return match stmt.as_ref() {
                    Statement::Query(q) => {
                        crate::exec::select::execute(self, q, params, &p.sql)?;
                        Ok(Output::ok(0))
                    }
                    _ => Err(Error::parse("DO")),
                }
            }
            Stmt::Prepare { name, source } => {
                let sql = match source {
                    PrepareSource::Text(t) => t.clone(),
                    PrepareSource::Var(v) => match self.user_vars.get(&v.to_ascii_lowercase()) {
                        Some(Value::Null) | None => return Err(Error::parse("NULL")),
                        Some(val) => val.to_string(),
                    },
                };
                let (id, _, _) = self.prepare(&sql)?;
                if let Some(old) = self.sql_prepared.insert(name.to_ascii_lowercase(), id) {
                    self.prepared.remove(&old);
                }
                return Ok(Output::Ok {
                    affected: 0,
                    last_insert_id: 0,
                    info: "Statement prepared".into(),
                });
            }
            Stmt::Execute { name, using } => {
                let unknown = || {
                    Error::new(
                        codes::ER_UNKNOWN_STMT_HANDLER,
                        format!("Unknown prepared statement handler ({name}) given to EXECUTE"),
                    )
                };
                let id = *self
                    .sql_prepared
                    .get(&name.to_ascii_lowercase())
                    .ok_or_else(unknown)?;
                let p = self.prepared.get(&id).cloned().ok_or_else(unknown)?;
                if using.len() != p.parsed.params {
                    return Err(Error::new(
                        codes::ER_WRONG_ARGUMENTS,
                        "Incorrect arguments to EXECUTE",
                    ));
                }
                let vals: Vec<Value> = using
                    .iter()
                    .map(|u| {
                        self.user_vars
                            .get(&u.to_ascii_lowercase())
                            .cloned()
                            .unwrap_or(Value::Null)
                    })
                    .collect();
                self.executing = Some(id);
                let r = self.dispatch(&p.parsed, &vals, files);
                self.executing = None;
                return r;
            }
            Stmt::Deallocate(name) => {
                return match self.sql_prepared.remove(&name.to_ascii_lowercase()) {
                    Some(id) => {
                        self.prepared.remove(&id);
                        Ok(Output::ok(0))
                    }
                    None => Err(Error::new(codes::ER_UNKNOWN_STMT_HANDLER, format!("Unknown prepared statement handler ({name}) given to DEALLOCATE PREPARE"))),
                };
            }
            Stmt::AlterTable(a) => return crate::ddl::alter::execute(self, a),
            Stmt::Binlog(b) => return crate::show::binlog::execute(self, b),
            Stmt::Replica(r) => return crate::show::replica::execute(self, r),
            Stmt::Routine(r) => return self.routine_stmt(r, params),
            Stmt::Maintenance(m) => {
                return match m.op {
                    crate::parse::maintenance::MaintOp::Check => {
                        crate::ddl::checktable::execute(self, &m.tables)
                    }
                    crate::parse::maintenance::MaintOp::Checksum => {
                        crate::ddl::checktable::checksum(self, &m.tables, m.quick)
                    }
                    op => crate::show::show::admin_tables(self, op.name(), &m.tables),
                }
            }
            Stmt::CreatePartitioned(stmt, spec) => {
                return match stmt.as_ref() {
                    Statement::CreateTable(ct) => {
                        crate::ddl::table::create_table_with(self, ct, Some(spec))
                    }
                    _ => Err(Error::parse("PARTITION BY")),
                }
            }
            Stmt::Ast(s) => s,
        };
        match stmt {
            Statement::Query(q) => crate::exec::select::execute_to(self, q, params, &p.sql, files),
            Statement::Insert(ins) => crate::dml::single::insert(self, ins, params),
            Statement::Update(u) => crate::dml::single::update(self, u, params),
            Statement::Delete(d) => crate::dml::single::delete(self, d, params),
            Statement::StartTransaction { modes, .. } => {
                self.commit()?;
                self.unlock_tables();
                self.explicit_txn = true;
                self.txn_read_only = crate::dispatch::read_only::access_mode(modes)
                    .or(self.next_txn_read_only.take());
                self.ensure_txn();
                Ok(Output::ok(0))
            }
            Statement::Commit { .. } => {
                self.commit()?;
                Ok(Output::ok(0))
            }
            Statement::Rollback { savepoint, .. } => {
                match savepoint {
                    Some(sp) => {
                        let t = self
                            .txn
                            .as_mut()
                            .ok_or_else(|| savepoint_missing(&sp.value))?;
                        t.rollback_to_savepoint(&sp.value)?;
                    }
                    None => self.rollback(),
                }
                Ok(Output::ok(0))
            }
            Statement::Savepoint { name } => {
                let explicit = self.explicit_txn || !self.autocommit();
                if explicit {
                    self.ensure_txn().savepoint(&name.value);
                }
                Ok(Output::ok(0))
            }
            Statement::ReleaseSavepoint { name } => {
                let t = self
                    .txn
                    .as_mut()
                    .ok_or_else(|| savepoint_missing(&name.value))?;
                t.release_savepoint(&name.value)?;
                Ok(Output::ok(0))
            }
            Statement::Set(s) => self.exec_set(s, params),
            Statement::Use(u) => {
                let name = match u {
                    ast::Use::Object(n) | ast::Use::Database(n) | ast::Use::Schema(n) => {
                        n.to_string()
                    }
                    other => other.to_string(),
                };
                self.use_db(name.trim_matches('`'))?;
                Ok(Output::ok(0))
            }
            Statement::Kill { modifier, id } => {
                let query_only = matches!(modifier, Some(ast::KillType::Query));
                self.inst.kill(*id as u32, query_only)?;
                Ok(Output::ok(0))
            }
            Statement::CreateDatabase { .. }
            | Statement::CreateSchema { .. }
            | Statement::CreateTable(_)
            | Statement::CreateIndex(_)
            | Statement::Drop { .. }
            | Statement::Truncate(_)
            | Statement::RenameTable(_)
            | Statement::AlterTable(_) => crate::ddl::table::execute(self, stmt),
            Statement::CreateView(cv) => crate::ddl::view::create(self, cv),
            Statement::LockTables { tables } => {
                self.lock_tables(tables)?;
                Ok(Output::ok(0))
            }
            Statement::UnlockTables => {
                self.unlock_tables();
                self.release_global_read_lock();
                Ok(Output::ok(0))
            }
            Statement::Flush {
                object_type: ast::FlushType::Tables,
                read_lock: true,
                tables,
                ..
            } => {
                if tables.is_empty() {
                    self.take_global_read_lock()?;
                } else {
                    // FLUSH TABLES t, … WITH READ LOCK: LOCK TABLES t READ, …
                    let list: Vec<ast::LockTable> = tables
                        .iter()
                        .map(|n| ast::LockTable {
                            table: n
                                .0
                                .last()
                                .and_then(|p| p.as_ident())
                                .cloned()
                                .unwrap_or_else(|| ast::Ident::new(n.to_string())),
                            alias: None,
                            lock_type: ast::LockTableType::Read { local: false },
                        })
                        .collect();
                    self.lock_tables(&list)?;
                }
                Ok(Output::ok(0))
            }
            Statement::Flush {
                object_type: sqlparser::ast::FlushType::Status,
                ..
            } => {
                self.flush_status();
                Ok(Output::ok(0))
            }
            Statement::Flush { object_type, .. }
                if matches!(
                    object_type,
                    ast::FlushType::Logs | ast::FlushType::SlowLogs | ast::FlushType::GeneralLogs
                ) =>
            {
                // the query logs are closed and opened again by name (logrotate renames first)
                let slow = !matches!(object_type, ast::FlushType::GeneralLogs);
                let general = !matches!(object_type, ast::FlushType::SlowLogs);
                self.inst
                    .querylog
                    .reopen(&self.inst.globals, slow, general)?;
                Ok(Output::ok(0))
            }
            Statement::Flush { .. } => Ok(Output::ok(0)),
            Statement::Analyze { .. } | Statement::OptimizeTable { .. } => {
                crate::show::show::admin_table(self, stmt)
            }
            Statement::ExplainTable { table_name, .. } => {
                crate::show::show::describe_table(self, table_name, None)
            }
            Statement::Explain {
                statement,
                analyze,
                format,
                ..
            } if matches!(
                **statement,
                Statement::Update(_) | Statement::Delete(_) | Statement::Insert(_)
            ) =>
            {
                crate::dml::explain::explain(self, statement, *analyze, format.as_ref())
            }
            Statement::Explain {
                statement,
                analyze,
                format,
                ..
            } => crate::plan::explain::explain_statement(
                self,
                statement,
                *analyze,
                format.as_ref(),
                &p.sql,
            ),
            s => Err(Error::not_supported(
                s.to_string().chars().take(60).collect::<String>(),
            )),
        }
    }
}

impl<E: KvEngine> Session<E> {
    /// CREATE / ALTER / DROP PROCEDURE or FUNCTION, CALL.
    fn routine_stmt(
        &mut self,
        r: &crate::parse::routine::RoutineStmt,
        params: &[Value],
    ) -> Result<Output> {
        use crate::parse::routine::RoutineStmt as R;
        match r {
            R::Create(c) => crate::program::ddl::create(self, c),
            R::Alter {
                kind,
                db,
                name,
                chars,
            } => crate::program::ddl::alter(self, *kind, db, name, chars),
            R::Drop {
                kind,
                if_exists,
                db,
                name,
            } => crate::program::ddl::drop(self, *kind, *if_exists, db, name),
            R::Call { db, name, args } => {
                crate::program::call::call_statement(self, db, name, args, params)
            }
        }
    }

    /// Runs a statement of a routine's body (the program hook): inside a stored function
    /// called by a statement with a transaction, as part of that statement; otherwise as a
    /// statement of its own (a procedure's statements each autocommit, as in MySQL).
    fn run_in_program(&mut self, p: &Parsed, params: &[Value]) -> Result<Output> {
        if self.programs.in_function() && self.txn.is_some() {
            self.dispatch(p, params, &mut common::client::NoClient)
        } else {
            self.run_with_files(p, params, &mut common::client::NoClient)
        }
    }

    /// FLUSH STATUS: the session's counters start again (the global sums keep them, as
    /// MySQL adds the session's values to the global ones), `Max_used_connections` becomes the
    /// connections open now and `Uptime_since_flush_status` starts again.
    pub(crate) fn flush_status(&mut self) {
        self.inst.handler_closed.add(&self.handler);
        self.handler.reset();
        self.inst.counters_closed.absorb(&self.counters);
        self.counters.reset();
        let st = &self.inst.status;
        let open = st.threads_connected.load(Ordering::Relaxed);
        st.max_used_connections.store(open, Ordering::Relaxed);
        let now = self.inst.started.elapsed().as_millis() as u64;
        st.flushed_at_ms.store(now, Ordering::Relaxed);
    }
}
