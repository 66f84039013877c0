//! Commands from the client: COM_QUERY (every statement of a text, the result of a lone one
//! streamed when it can be), COM_STMT_PREPARE / EXECUTE / CLOSE, and result metadata for PREPARE.

use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use common::{codes, ColumnMeta, Error, Result, Value};
use sqlparser::ast::Statement;
use storage::engine::KvEngine;

use crate::parse::parser::Parsed;
use crate::parse::parser::Stmt;

use crate::dispatch::querylog::{log_text, StmtKind};

use crate::session::session::*;

/// A client whose files stay reachable but whose results are returned whole.
struct WholeResults<'a>(&'a mut dyn common::client::Client);

impl common::client::Client for WholeResults<'_> {
    fn open(&mut self, name: &str) -> Result<Box<dyn std::io::Read + '_>> {
        self.0.open(name)
    }
}

impl<E: KvEngine> Session<E> {
    /// COM_QUERY: runs every statement in `sql`; stops at the first error.
    pub fn query(&mut self, sql: &str, multi: bool) -> Vec<Result<Output>> {
        self.query_with_files(sql, multi, &mut common::client::NoClient)
    }

    /// [`Session::query`] with the client's files reachable for `LOAD DATA LOCAL INFILE`.
    pub fn query_with_files(
        &mut self,
        sql: &str,
        multi: bool,
        files: &mut dyn common::client::Client,
    ) -> Vec<Result<Output>> {
        self.counters.add(Ctr::Questions, 1);
        self.counters.add(Ctr::Queries, 1);
        let mode = self.parse_mode();
        let parsed = self
            .stmt_cache
            .parse(sql, mode, |sql| crate::parse::parser::parse_with(sql, mode));
        if matches!(
            parsed,
            Ok(crate::parse::stmt_cache::Statements::Template(..))
        ) {
            self.inst
                .status
                .text_template_hits
                .fetch_add(1, Ordering::Relaxed);
        }
        let parsed = match parsed {
            Ok(p) => p,
            Err(e) => {
                // a text that does not parse is in the general log too
                self.general_log("Query", crate::runtime::querylog::trim_statement(sql));
                self.warnings.clear();
                return vec![Err(e)];
            }
        };
        if parsed.as_slice().len() > 1 && !multi {
            return vec![Err(Error::parse(
                sql.split(';').nth(1).unwrap_or("").trim(),
            ))];
        }
        let single = parsed.as_slice().len() == 1;
        let mut out = Vec::with_capacity(parsed.as_slice().len());
        // each statement of a multi-statement text has its own log entries, with its own text
        let logs = &self.inst.querylog;
        let texts = if !single && (logs.general_on() || logs.slow_on()) {
            crate::runtime::querylog::split_statements(sql)
        } else {
            Vec::new()
        };
        let whole = crate::runtime::querylog::trim_statement(sql);
        // A KILL QUERY from here on applies to this command: the flag is cleared before the
        // statement shows in the process list, not after (a KILL that saw it there was lost).
        self.killed.store(false, Ordering::SeqCst);
        self.set_process("Query", Some(process_info(sql)));
        self.inst
            .status
            .threads_running
            .fetch_add(1, Ordering::Relaxed);
        for (i, p) in parsed.as_slice().iter().enumerate() {
            if p.params > 0 {
                out.push(Err(Error::parse("?")));
                break;
            }
            let text = texts.get(i).copied().unwrap_or(whole);
            self.general_log("Query", &log_text(p, text));
            let clock = self.stmt_clock();
            // a result is streamed only when it is the text's one statement: the results of
            // a multi-statement text are sent in order once all of them ran
            self.programs.results.clear();
            let r = if single {
                self.run_with_files(p, &[], files)
            } else {
                self.run_with_files(p, &[], &mut WholeResults(&mut *files))
            };
            self.stmt_end(clock, &r, StmtKind::of(p), || log_text(p, text));
            let failed = r.is_err();
            // the result sets of a CALL come before its own OK (or error)
            out.extend(self.programs.results.drain(..).map(Ok));
            out.push(r);
            if failed {
                break;
            }
        }
        self.stmt_cache.give_back(parsed);
        self.inst
            .status
            .threads_running
            .fetch_sub(1, Ordering::Relaxed);
        self.set_process("Sleep", None);
        out
    }

    /// COM_STMT_PREPARE.
    pub fn prepare(&mut self, sql: &str) -> Result<(u32, usize, Vec<ColumnMeta>)> {
        self.counters.com(Com::StmtPrepare);
        self.counters.add(Ctr::Queries, 1);
        let clock = self.stmt_clock();
        let r = self.prepare_inner(sql);
        // a slow COM_STMT_PREPARE is an administrator command
        let ok = match &r {
            Ok(_) => Ok(Output::ok(0)),
            Err(e) => Err(Error::new(e.code, String::new())),
        };
        self.stmt_end(clock, &ok, StmtKind::command(), || Cow::Borrowed("Prepare"));
        r
    }

    fn prepare_inner(&mut self, sql: &str) -> Result<(u32, usize, Vec<ColumnMeta>)> {
        let mut parsed = crate::parse::parser::parse_with(sql, self.parse_mode())?;
        if parsed.len() != 1 {
            return Err(Error::parse(sql));
        }
        let p = parsed.remove(0);
        self.general_log(
            "Prepare",
            &log_text(&p, crate::runtime::querylog::trim_statement(sql)),
        );
        if matches!(p.stmt, Stmt::LoadData(_)) {
            return Err(Error::new(
                codes::ER_UNSUPPORTED_PS,
                "This command is not supported in the prepared statement protocol yet",
            ));
        }
        crate::acl::check::check(self, &p)?;
        let columns = self.describe(&p)?;
        let id = self.next_stmt_id;
        self.next_stmt_id += 1;
        let n = p.params;
        self.prepared.insert(
            id,
            Prepared {
                info: process_info(&p.sql),
                parsed: Arc::new(p),
                columns: columns.clone(),
            },
        );
        Ok((id, n, columns))
    }

    /// COM_STMT_EXECUTE.
    pub fn execute(&mut self, id: u32, params: &[Value]) -> Result<Output> {
        self.execute_for(id, params, &mut common::client::NoClient)
    }

    /// [`Session::execute`] for `client`: a result that can be produced row by row is sent to
    /// the client's row sink while it is read ([`Output::RowsSent`]).
    pub fn execute_for(
        &mut self,
        id: u32,
        params: &[Value],
        client: &mut dyn common::client::Client,
    ) -> Result<Output> {
        self.counters.com(Com::StmtExecute);
        self.counters.add(Ctr::Questions, 1);
        self.counters.add(Ctr::Queries, 1);
        let p = self.prepared.get(&id).cloned().ok_or_else(|| {
            Error::new(
                codes::ER_UNKNOWN_STMT_HANDLER,
                format!("Unknown prepared statement handler ({id}) given to mysqld_stmt_execute"),
            )
        })?;
        if params.len() < p.parsed.params {
            return Err(Error::new(
                codes::ER_WRONG_ARGUMENTS,
                "Incorrect arguments to mysqld_stmt_execute",
            ));
        }
        let logs = &self.inst.querylog;
        let text = (logs.general_on() || logs.slow_on()).then(|| {
            let backslash = !self.hot().no_backslash_escapes;
            let sql = crate::runtime::querylog::expand_params(&p.parsed.sql, params, backslash);
            log_text(&p.parsed, &sql).into_owned()
        });
        if let Some(t) = &text {
            self.general_log("Execute", t);
        }
        self.killed.store(false, Ordering::SeqCst);
        self.set_process("Execute", Some(p.info.clone()));
        self.inst
            .status
            .threads_running
            .fetch_add(1, Ordering::Relaxed);
        self.executing = Some(id);
        let clock = self.stmt_clock();
        self.programs.results.clear();
        let mut r = self.run_with_files(&p.parsed, params, client);
        if r.is_ok() && !self.programs.results.is_empty() {
            // one reply per COM_STMT_EXECUTE here: a CALL's result sets cannot go with it
            self.programs.results.clear();
            r = Err(Error::new(
                codes::ER_SP_BADSELECT,
                "PROCEDURE can't return a result set in the given context",
            ));
        }
        self.stmt_end(clock, &r, StmtKind::of(&p.parsed), || {
            Cow::Owned(text.unwrap_or_default())
        });
        self.executing = None;
        self.inst
            .status
            .threads_running
            .fetch_sub(1, Ordering::Relaxed);
        self.set_process("Sleep", None);
        r
    }

    /// COM_STMT_CLOSE.
    pub fn close_statement(&mut self, id: u32) {
        self.counters.com(Com::StmtClose);
        self.general_log("Close stmt", "");
        self.prepared.remove(&id);
        self.plans.remove(&id);
    }

    /// Counts the bytes the connection received from and sent to the client
    /// (`Bytes_received` / `Bytes_sent`); the protocol layer reports them between commands.
    pub fn count_bytes(&self, received: u64, sent: u64) {
        self.counters.add(Ctr::BytesReceived, received);
        self.counters.add(Ctr::BytesSent, sent);
    }

    /// Result metadata of a statement without running it.
    fn describe(&mut self, p: &Parsed) -> Result<Vec<ColumnMeta>> {
        match &p.stmt {
            Stmt::Ast(Statement::Query(q)) => crate::bind::select::describe(self, q, &p.sql),
            _ => Ok(vec![]),
        }
    }
}
