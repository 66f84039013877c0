//! The bridge between the protocol layer and the SQL layer: `protocol::Backend` /
//! `protocol::Session` implemented over `sql::Instance` / `sql::Session`.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use common::{ColumnMeta, Result, Value};
use protocol::{Account, ClientInfo, OkInfo, PreparedInfo, QueryResult, ResultSet};
use sql::{Instance, Output};
use storage::engine::KvEngine;

use crate::accounts::Accounts;

/// CLIENT_FOUND_ROWS capability bit.
const CLIENT_FOUND_ROWS: u32 = 2;

/// The server's backend: shared SQL instance plus the account store.
pub struct Backend<E: KvEngine> {
    /// The SQL instance.
    pub inst: Arc<Instance<E>>,
    /// Accounts.
    pub accounts: Accounts,
}

/// One connection's SQL session.
pub struct Session<E: KvEngine> {
    inner: sql::Session<E>,
}

fn to_result(out: Output, warnings: u16) -> QueryResult {
    match out {
        Output::Ok {
            affected,
            last_insert_id,
            info,
        } => QueryResult::Ok(OkInfo {
            affected_rows: affected,
            last_insert_id,
            warnings,
            info,
        }),
        Output::Rows { columns, rows } => QueryResult::Rows(ResultSet {
            columns,
            rows,
            warnings,
        }),
    }
}

impl<E: KvEngine> protocol::Backend for Backend<E> {
    type Session = Session<E>;

    fn lookup_account(&self, user: &str, host: &str) -> Option<Account> {
        self.accounts.lookup(user, host)
    }

    fn open_session(&self, info: ClientInfo) -> Result<Session<E>> {
        let st = &self.inst.status;
        st.connections.fetch_add(1, Ordering::Relaxed);
        let mut inner = sql::Session::new(
            self.inst.clone(),
            info.conn_id,
            &info.user,
            &info.host,
            info.db.as_deref(),
        )?;
        inner.client_found_rows = info.capabilities & CLIENT_FOUND_ROWS != 0;
        if let Some(a) = self.accounts.lookup(&info.user, &info.host) {
            inner.account_host = a.host;
        }
        let n = st.threads_connected.fetch_add(1, Ordering::Relaxed) + 1;
        st.max_used_connections.fetch_max(n, Ordering::Relaxed);
        Ok(Session { inner })
    }

    fn statistics(&self) -> String {
        let st = &self.inst.status;
        let up = self.inst.started.elapsed().as_secs();
        let q = st.questions.load(Ordering::Relaxed);
        format!(
            "Uptime: {up}  Threads: {}  Questions: {q}  Slow queries: {}  Opens: 0  Flush tables: 1  Open tables: 0  Queries per second avg: {:.3}",
            st.threads_connected.load(Ordering::Relaxed),
            st.slow_queries.load(Ordering::Relaxed),
            q as f64 / up.max(1) as f64
        )
    }

    fn connection_closed(&self, _conn_id: u32) {
        let st = &self.inst.status;
        let _ = st
            .threads_connected
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                Some(v.saturating_sub(1))
            });
    }
}

impl<E: KvEngine> protocol::Session for Session<E> {
    fn query(&mut self, sql: &str, multi: bool) -> Vec<Result<QueryResult>> {
        let outs = self.inner.query(sql, multi);
        outs.into_iter()
            .map(|r| r.map(|o| to_result(o, self.inner.warning_count())))
            .collect()
    }

    fn prepare(&mut self, sql: &str) -> Result<PreparedInfo> {
        let (stmt_id, nparams, columns) = self.inner.prepare(sql)?;
        let params = (0..nparams)
            .map(|_| ColumnMeta {
                name: "?".into(),
                field_type: common::types::field_type::VAR_STRING,
                charset: 63,
                ..Default::default()
            })
            .collect();
        Ok(PreparedInfo {
            stmt_id,
            params,
            columns,
        })
    }

    fn execute(&mut self, stmt_id: u32, params: Vec<Value>) -> Result<QueryResult> {
        let out = self.inner.execute(stmt_id, &params)?;
        Ok(to_result(out, self.inner.warning_count()))
    }

    fn close_statement(&mut self, stmt_id: u32) {
        self.inner.close_statement(stmt_id)
    }

    fn init_db(&mut self, db: &str) -> Result<()> {
        self.inner.use_db(db)
    }

    fn field_list(&mut self, table: &str, wildcard: &str) -> Result<Vec<ColumnMeta>> {
        let sql = format!("SELECT * FROM `{}` LIMIT 0", table.replace('`', "``"));
        let _ = wildcard;
        match self.inner.query(&sql, false).pop() {
            Some(Ok(Output::Rows { columns, .. })) => Ok(columns),
            Some(Err(e)) => Err(e),
            _ => Ok(vec![]),
        }
    }

    fn reset(&mut self) -> Result<()> {
        self.inner.reset()
    }

    fn status_flags(&self) -> u16 {
        self.inner.status_flags()
    }

    fn max_allowed_packet(&self) -> usize {
        self.inner.max_allowed_packet()
    }

    fn kill(&mut self, conn_id: u32) -> Result<()> {
        self.inner.inst.kill(conn_id, false)
    }
}
