//! The bridge between the protocol layer and the SQL layer: `protocol::Backend` /
//! `protocol::Session` implemented over `sql::Instance` / `sql::Session`.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use common::{ColumnMeta, Result, Value};
use protocol::{
    Account, AuthPlugin, ClientInfo, OkInfo, PreparedInfo, QueryResult, ResultSet, SslRequirement,
    Timeouts, Tuning,
};
use sql::{Instance, Output};
use storage::engine::KvEngine;

/// CLIENT_FOUND_ROWS capability bit.
const CLIENT_FOUND_ROWS: u32 = 2;

/// CLIENT_INTERACTIVE capability bit (wait_timeout = interactive_timeout).
const CLIENT_INTERACTIVE: u32 = 1 << 10;

/// An integer system variable (global or session value) as a count.
fn int_of(v: Option<Value>, default: u64) -> u64 {
    match v {
        Some(Value::Int(i)) => i.max(0) as u64,
        Some(Value::UInt(u)) => u,
        _ => default,
    }
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n.clamp(1, 31_536_000))
}

/// The server's backend: the shared SQL instance (which holds the accounts, `sql::acl`).
pub struct Backend<E: KvEngine> {
    /// The SQL instance.
    pub inst: Arc<Instance<E>>,
}

impl<E: KvEngine> Backend<E> {
    /// The account `user` logs in as from `host`. Under `--skip-grant-tables` local clients
    /// get an account accepting any password and remote clients none.
    fn account(&self, user: &str, host: &str) -> Option<Account> {
        let acl = &self.inst.acl;
        if acl.skip_grant_tables() {
            return sql::acl::accounts::is_local(host).then(|| Account {
                user: user.to_string(),
                host: host.to_string(),
                plugin: AuthPlugin::Native,
                auth_string: String::new(),
                locked: false,
                skip_auth: true,
                require: SslRequirement::None,
            });
        }
        let a = acl.match_login(user, host)?;
        Some(Account {
            plugin: AuthPlugin::from_name(&a.plugin).unwrap_or(AuthPlugin::CachingSha2),
            user: a.user,
            host: a.host,
            auth_string: a.auth_string,
            locked: a.locked,
            skip_auth: false,
            require: match a.ssl_type.as_str() {
                "ANY" => SslRequirement::Ssl,
                "X509" => SslRequirement::X509,
                _ => SslRequirement::None,
            },
        })
    }
}

/// One connection's SQL session.
pub struct Session<E: KvEngine> {
    inner: sql::Session<E>,
    /// The client sent COM_QUIT (otherwise the end counts in `Aborted_clients`).
    quit: bool,
}

impl<E: KvEngine> Drop for Session<E> {
    fn drop(&mut self) {
        self.inner
            .inst
            .replicas
            .connection_ended(self.inner.conn_id);
        self.inner.log_quit();
        if !self.quit {
            let st = &self.inner.inst.status;
            st.aborted_clients.fetch_add(1, Ordering::Relaxed);
        }
        let _ = self.inner.inst.status.threads_connected.fetch_update(
            Ordering::Relaxed,
            Ordering::Relaxed,
            |v| Some(v.saturating_sub(1)),
        );
    }
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
        Output::RowsSent { .. } => QueryResult::RowsSent { warnings },
    }
}

impl<E: KvEngine> protocol::Backend for Backend<E> {
    type Session = Session<E>;

    fn lookup_account(&self, user: &str, host: &str) -> Option<Account> {
        self.account(user, host)
    }

    fn open_session(&self, info: ClientInfo) -> Result<Session<E>> {
        let st = &self.inst.status;
        st.connections.fetch_add(1, Ordering::Relaxed);
        let mut inner = sql::Session::new(
            self.inst.clone(),
            info.conn_id,
            &info.user,
            &info.host,
            None,
        )?;
        inner.client_found_rows = info.capabilities & CLIENT_FOUND_ROWS != 0;
        if let Some(t) = &info.tls {
            inner.ssl = (t.version.clone(), t.cipher.clone());
        }
        if let Some(a) = self.account(&info.user, &info.host) {
            inner.account_host = a.host;
        }
        // the database is checked against the account's privileges, so only now
        if let Some(db) = info.db.as_deref() {
            inner.use_db(db)?;
        }
        if info.capabilities & CLIENT_INTERACTIVE != 0 {
            if let Some(v) = self.inst.globals.get("interactive_timeout") {
                inner.set_session_value("wait_timeout", v)?;
            }
        }
        inner.log_connect(info.tls.is_some());
        let n = st.threads_connected.fetch_add(1, Ordering::Relaxed) + 1;
        st.max_used_connections.fetch_max(n, Ordering::Relaxed);
        Ok(Session { inner, quit: false })
    }

    fn statistics(&self) -> String {
        let st = &self.inst.status;
        let up = self.inst.started.elapsed().as_secs();
        let counters = self.inst.global_counters();
        let q = counters.get(sql::session::session::Ctr::Questions);
        format!(
            "Uptime: {up}  Threads: {}  Questions: {q}  Slow queries: {}  Opens: 0  Flush tables: 1  Open tables: 0  Queries per second avg: {:.3}",
            st.threads_connected.load(Ordering::Relaxed),
            counters.get(sql::session::session::Ctr::SlowQueries),
            q as f64 / up.max(1) as f64
        )
    }

    fn connection_closed(&self, _conn_id: u32) {
        // Threads_connected counts sessions: decremented when a Session drops.
    }

    /// Accounts with SUPER may use the extra connection beyond max_connections (MySQL: SUPER
    /// or CONNECTION_ADMIN).
    fn is_admin(&self, user: &str, host: &str) -> bool {
        let acl = &self.inst.acl;
        acl.skip_grant_tables()
            || acl
                .match_login(user, host)
                .is_some_and(|a| a.global & sql::acl::accounts::privs::SUPER != 0)
    }

    fn connect_failed(&self) {
        self.inst
            .status
            .aborted_connects
            .fetch_add(1, Ordering::Relaxed);
    }

    fn tuning(&self) -> Tuning {
        let g = &self.inst.globals;
        let d = Tuning::default();
        Tuning {
            connect_timeout: secs(int_of(g.get("connect_timeout"), 10)),
            stall_limit: Duration::from_millis(
                int_of(g.get("thread_pool_stall_limit"), 6).clamp(1, 1 << 32) * 10,
            ),
            prio_kickup: Duration::from_millis(int_of(
                g.get("thread_pool_prio_kickup_timer"),
                d.prio_kickup.as_millis() as u64,
            )),
            oversubscribe: int_of(g.get("thread_pool_oversubscribe"), 3).min(1000) as usize,
            max_unused_threads: int_of(g.get("thread_pool_max_unused_threads"), 0) as usize,
            stall_nice: int_of(g.get("thread_pool_stall_nice"), 10).clamp(0, 19) as i32,
            require_secure_transport: int_of(g.get("require_secure_transport"), 0) != 0,
        }
    }
}

impl<E: KvEngine> protocol::Session for Session<E> {
    fn query(&mut self, sql: &str, multi: bool) -> Vec<Result<QueryResult>> {
        let outs = self.inner.query(sql, multi);
        outs.into_iter()
            .map(|r| r.map(|o| to_result(o, self.inner.warning_count())))
            .collect()
    }

    fn query_with_files(
        &mut self,
        sql: &str,
        multi: bool,
        files: &mut dyn common::client::Client,
    ) -> Vec<Result<QueryResult>> {
        let outs = self.inner.query_with_files(sql, multi, files);
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

    fn execute_for(
        &mut self,
        stmt_id: u32,
        params: Vec<Value>,
        client: &mut dyn common::client::Client,
    ) -> Result<QueryResult> {
        let out = self.inner.execute_for(stmt_id, &params, client)?;
        Ok(to_result(out, self.inner.warning_count()))
    }

    fn close_statement(&mut self, stmt_id: u32) {
        self.inner.close_statement(stmt_id)
    }

    fn count_bytes(&mut self, received: u64, sent: u64) {
        self.inner.count_bytes(received, sent);
    }

    fn quit(&mut self) {
        self.quit = true;
    }

    fn init_db(&mut self, db: &str) -> Result<()> {
        self.inner.init_db(db)
    }

    fn field_list(&mut self, table: &str, wildcard: &str) -> Result<Vec<ColumnMeta>> {
        let sql = format!("SELECT * FROM `{}` LIMIT 0", table.replace('`', "``"));
        let _ = wildcard;
        match self.inner.field_list_query(table, &sql).pop() {
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

    fn tmpdir(&self) -> Option<std::path::PathBuf> {
        Some(sql::exec::stream::tmp_dir(&self.inner))
    }

    fn max_allowed_packet(&self) -> usize {
        self.inner.max_allowed_packet()
    }

    fn kill(&mut self, conn_id: u32) -> Result<()> {
        sql::acl::check::check_kill(&self.inner, conn_id)?;
        self.inner.inst.kill(conn_id, false)
    }

    fn high_priority(&self) -> bool {
        self.inner.high_priority()
    }

    fn register_replica(&mut self, r: protocol::ReplicaRegistration) -> Result<()> {
        crate::source::register(&self.inner, r)
    }

    fn binlog_dump(
        &mut self,
        req: protocol::BinlogDumpRequest,
    ) -> Result<Box<dyn protocol::BinlogStream>> {
        crate::source::dump(&self.inner, req)
    }

    fn timeouts(&self) -> Timeouts {
        let d = Timeouts::default();
        let [wait, read, write] = self.inner.net_timeouts();
        Timeouts {
            wait: secs(wait.unwrap_or(d.wait.as_secs())),
            net_read: secs(read.unwrap_or(d.net_read.as_secs())),
            net_write: secs(write.unwrap_or(d.net_write.as_secs())),
        }
    }
}
