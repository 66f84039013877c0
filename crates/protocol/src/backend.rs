//! The contract between the protocol layer and the server: [`Backend`] (accounts, sessions,
//! server-wide answers) and [`Session`] (one authenticated connection's command execution).
//!
//! The protocol crate owns the wire: it authenticates clients with the accounts the backend
//! returns, decodes commands, calls the session, and encodes the answers. The backend never sees
//! packets.

use std::time::Duration;

use common::{ColumnMeta, Value};

/// Who is connected: handed to [`Backend::open_session`] after authentication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientInfo {
    /// The connection id (also reported by `CONNECTION_ID()`).
    pub conn_id: u32,
    /// The user name the client sent.
    pub user: String,
    /// `"localhost"` for a unix socket, else the peer IP address.
    pub host: String,
    /// The default database requested at connect time.
    pub db: Option<String>,
    /// The negotiated capability flags (client flags ∩ server flags).
    pub capabilities: u32,
    /// The collation id the client asked for (e.g. 255 = utf8mb4_0900_ai_ci, 45, 33, 8).
    pub collation_id: u16,
    /// Connection attributes (`_client_name`, `_os`, `program_name`, ...).
    pub attrs: Vec<(String, String)>,
    /// What TLS negotiated, if the connection uses TLS (`Ssl_version`, `Ssl_cipher`).
    pub tls: Option<crate::tls::TlsSession>,
}

/// An authentication plugin an account uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuthPlugin {
    /// `mysql_native_password`
    Native,
    /// `caching_sha2_password`
    CachingSha2,
}

/// An account as the backend stores it (`mysql.user` row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// User part of the account name.
    pub user: String,
    /// Host pattern part of the account name (e.g. `%`, `localhost`).
    pub host: String,
    /// The account's authentication plugin.
    pub plugin: AuthPlugin,
    /// The stored credential, in the format of [`crate::auth::hash_password`] (empty = no password).
    pub auth_string: String,
    /// `ACCOUNT LOCK`: authentication is refused with error 3118.
    pub locked: bool,
    /// Accept any password (`--skip-grant-tables`); the plugin exchange still runs.
    pub skip_auth: bool,
    /// `REQUIRE SSL` / `REQUIRE X509`: what the transport must be for this account.
    pub require: SslRequirement,
}

/// An account's transport requirement (`mysql.user.ssl_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SslRequirement {
    /// `REQUIRE NONE` (`ssl_type = ''`).
    #[default]
    None,
    /// `REQUIRE SSL` (`ANY`): the connection must use TLS.
    Ssl,
    /// `REQUIRE X509`: TLS with a client certificate that chains to `ssl_ca`.
    X509,
}

/// The answer to a statement that returns no rows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OkInfo {
    /// Rows changed (or matched, with CLIENT_FOUND_ROWS).
    pub affected_rows: u64,
    /// `LAST_INSERT_ID()` after the statement.
    pub last_insert_id: u64,
    /// Number of warnings the statement raised.
    pub warnings: u16,
    /// The human-readable info string (e.g. `Records: 3  Duplicates: 0  Warnings: 0`).
    pub info: String,
}

/// Rows with their column metadata.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultSet {
    /// The columns.
    pub columns: Vec<ColumnMeta>,
    /// The rows; each has one value per column.
    pub rows: Vec<Vec<Value>>,
    /// Number of warnings the statement raised.
    pub warnings: u16,
}

/// What one statement produced.
#[derive(Debug, Clone, PartialEq)]
pub enum QueryResult {
    /// No result set.
    Ok(OkInfo),
    /// A result set.
    Rows(ResultSet),
    /// A result set whose column definitions and rows were sent while the statement ran
    /// (through [`common::client::Client::rows`]); only its end is left to send.
    RowsSent {
        /// Number of warnings the statement raised.
        warnings: u16,
    },
}

/// What a successful COM_STMT_PREPARE reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreparedInfo {
    /// The statement id (unique within the session, never 0).
    pub stmt_id: u32,
    /// One entry per `?` placeholder (MySQL sends type VAR_STRING / charset binary... any is fine).
    pub params: Vec<ColumnMeta>,
    /// The result columns if known at prepare time (empty for statements without a result set).
    pub columns: Vec<ColumnMeta>,
}

/// A session's socket timeouts (`wait_timeout`, `net_read_timeout`, `net_write_timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// How long the connection may stay idle between commands before the server closes it.
    pub wait: Duration,
    /// How long reading the rest of a command from the client may take.
    pub net_read: Duration,
    /// How long writing a response to the client may block.
    pub net_write: Duration,
}

impl Default for Timeouts {
    /// MySQL's defaults: 28800 s, 30 s, 60 s.
    fn default() -> Self {
        Timeouts {
            wait: Duration::from_secs(28800),
            net_read: Duration::from_secs(30),
            net_write: Duration::from_secs(60),
        }
    }
}

/// Server-wide settings the listener and the thread pool re-read while running (global system
/// variables that `SET GLOBAL` may change).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// `connect_timeout`: how long the handshake and authentication may take.
    pub connect_timeout: Duration,
    /// `thread_pool_stall_limit` (10 ms units, as a duration): a statement running this long
    /// no longer counts as active in its thread group.
    pub stall_limit: Duration,
    /// `thread_pool_prio_kickup_timer`: a low-priority statement queued this long moves to the
    /// high-priority queue.
    pub prio_kickup: Duration,
    /// `thread_pool_oversubscribe`: statements a group may run at once beyond the first.
    pub oversubscribe: usize,
    /// `thread_pool_max_unused_threads`: idle threads kept per group (0 = no limit).
    pub max_unused_threads: usize,
    /// `thread_pool_stall_nice`: the nice value (0–19) a worker runs a statement declared
    /// stalled with (0 = not lowered).
    pub stall_nice: i32,
    /// `require_secure_transport`: TCP connections without TLS are refused (3159).
    pub require_secure_transport: bool,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            connect_timeout: Duration::from_secs(10),
            stall_limit: Duration::from_millis(60),
            prio_kickup: Duration::from_millis(1000),
            oversubscribe: 3,
            max_unused_threads: 0,
            stall_nice: 10,
            require_secure_transport: false,
        }
    }
}

/// COM_REGISTER_SLAVE: what a replica reports about itself (SHOW REPLICAS).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaRegistration {
    /// The replica's `server_id`.
    pub server_id: u32,
    /// Its `report_host`.
    pub host: String,
    /// Its `report_user`.
    pub user: String,
    /// Its `report_password`.
    pub password: String,
    /// Its `report_port`.
    pub port: u16,
    /// The source's `server_id` as the replica knows it (0: unknown).
    pub source_id: u32,
}

/// COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID as the replica sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinlogDumpRequest {
    /// The replica's `server_id` (0: `mysqlbinlog`, which never waits).
    pub server_id: u32,
    /// BINLOG_DUMP_* flags (`0x1` NON_BLOCK, `0x4` THROUGH_GTID).
    pub flags: u16,
    /// The file to start in (empty: chosen by the source).
    pub file: String,
    /// The position in that file.
    pub pos: u64,
    /// COM_BINLOG_DUMP_GTID: the replica's GTID set in MySQL's binary encoding.
    pub gtid_set: Option<Vec<u8>>,
}

/// One step of a binary log dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DumpStep {
    /// An event (header, body, checksum): sent as an OK-prefixed packet.
    Event(Vec<u8>),
    /// Nothing within the wait: the connection checks its client and asks again.
    Idle,
    /// A non-blocking dump reached the end: an EOF packet ends it.
    End,
    /// The dump was stopped (a newer dump of the same replica): the connection closes.
    Stopped,
}

/// A running binary log dump, driven by the connection on a thread of its own.
pub trait BinlogStream: Send {
    /// The next step, waiting at most about `wait` when there is nothing to send.
    ///
    /// # Errors
    /// An error to send to the replica as ERR (1236 …); the dump ends.
    fn next(&mut self, wait: Duration) -> common::Result<DumpStep>;
    /// True if events are ready without waiting (the connection flushes the socket only when
    /// none are).
    fn has_pending(&self) -> bool;
}

/// The server behind the protocol: accounts, sessions and server-wide answers.
pub trait Backend: Send + Sync + 'static {
    /// The per-connection session type.
    type Session: Session;
    /// Account matching `user` connecting from `host` (the backend applies MySQL host matching).
    fn lookup_account(&self, user: &str, host: &str) -> Option<Account>;
    /// Opens a session for an authenticated client (may fail, e.g. 1049 Unknown database).
    fn open_session(&self, info: ClientInfo) -> common::Result<Self::Session>;
    /// Text for COM_STATISTICS.
    fn statistics(&self) -> String;
    /// Called when a connection ends (for counters / processlist).
    fn connection_closed(&self, conn_id: u32);
    /// True if `user` connecting from `host` may use the extra connection beyond
    /// `max_connections` (MySQL: SUPER or CONNECTION_ADMIN). Default: nobody.
    fn is_admin(&self, _user: &str, _host: &str) -> bool {
        false
    }
    /// Called when a connection ends before a session opened (Aborted_connects).
    fn connect_failed(&self) {}
    /// The current server-wide settings (re-read periodically and at each connect).
    fn tuning(&self) -> Tuning {
        Tuning::default()
    }
}

/// One authenticated connection's state and command execution.
pub trait Session: Send {
    /// Runs COM_QUERY text. `multi` = CLIENT_MULTI_STATEMENTS is on. Returns one entry per
    /// statement executed; the session stops after the first Err. The connection sends them as
    /// multiple result sets with SERVER_MORE_RESULTS_EXISTS.
    fn query(&mut self, sql: &str, multi: bool) -> Vec<common::Result<QueryResult>>;
    /// Prepares a statement (COM_STMT_PREPARE).
    fn prepare(&mut self, sql: &str) -> common::Result<PreparedInfo>;
    /// Executes with decoded parameter values (long data already merged by the connection).
    /// A cursor (COM_STMT_EXECUTE's `CURSOR_TYPE_READ_ONLY`) is the connection's business: the
    /// session executes as for any execution, the result going to a client whose row sink
    /// fills the cursor ([`crate::cursor::CursorWriter`]).
    fn execute(&mut self, stmt_id: u32, params: Vec<Value>) -> common::Result<QueryResult>;
    /// [`Session::execute`] with the client reachable: the result may be sent while it is
    /// produced, through `client.rows()` ([`QueryResult::RowsSent`]). Default: returned whole.
    fn execute_for(
        &mut self,
        stmt_id: u32,
        params: Vec<Value>,
        client: &mut dyn common::client::Client,
    ) -> common::Result<QueryResult> {
        let _ = client;
        self.execute(stmt_id, params)
    }
    /// Forgets a prepared statement (COM_STMT_CLOSE; also called for every open statement
    /// before COM_RESET_CONNECTION and COM_CHANGE_USER).
    fn close_statement(&mut self, stmt_id: u32);
    /// COM_INIT_DB (`USE db`).
    fn init_db(&mut self, db: &str) -> common::Result<()>;
    /// COM_FIELD_LIST: the columns of `table` whose names match the LIKE pattern `wildcard`
    /// (empty = all).
    fn field_list(&mut self, table: &str, wildcard: &str) -> common::Result<Vec<ColumnMeta>>;
    /// COM_RESET_CONNECTION
    fn reset(&mut self) -> common::Result<()>;
    /// SERVER_STATUS_* bits the session contributes (IN_TRANS, AUTOCOMMIT, NO_BACKSLASH_ESCAPES, ...).
    fn status_flags(&self) -> u16;
    /// Current session max_allowed_packet.
    fn max_allowed_packet(&self) -> usize;
    /// The bytes the connection received and sent since the last call (`Bytes_received` /
    /// `Bytes_sent`): called as each command starts, so a command's response counts by the
    /// next one. Default: ignored.
    fn count_bytes(&mut self, received: u64, sent: u64) {
        let _ = (received, sent);
    }
    /// The client sent COM_QUIT: the session ends normally (not an `Aborted_clients`).
    /// Default: ignored.
    fn quit(&mut self) {}
    /// COM_PROCESS_KILL
    fn kill(&mut self, conn_id: u32) -> common::Result<()>;
    /// True if the connection's statements always go to the thread pool's high-priority queue
    /// (`thread_pool_high_priority_connection`). Default: no.
    fn high_priority(&self) -> bool {
        false
    }
    /// The session's socket timeouts. Default: MySQL's defaults.
    fn timeouts(&self) -> Timeouts {
        Timeouts::default()
    }
    /// COM_REGISTER_SLAVE. Default: refused as an unknown command.
    fn register_replica(&mut self, r: ReplicaRegistration) -> common::Result<()> {
        let _ = r;
        Err(unknown_command())
    }
    /// COM_BINLOG_DUMP / COM_BINLOG_DUMP_GTID: checks the request and returns the dump,
    /// which the connection then runs on a thread of its own until the replica goes (the
    /// connection closes after it, as MySQL's does). Default: an unknown command.
    fn binlog_dump(&mut self, req: BinlogDumpRequest) -> common::Result<Box<dyn BinlogStream>> {
        let _ = req;
        Err(unknown_command())
    }
    /// Where the server's temporary files go (`tmpdir`): a cursor's result is materialised
    /// there, as MySQL puts its on-disk temporary tables there. Default: `None`, the system's
    /// temporary directory.
    fn tmpdir(&self) -> Option<std::path::PathBuf> {
        None
    }

    /// COM_QUERY with the raw bytes the client sent. The default decodes them as UTF-8 and
    /// calls [`Session::query`]. A string literal holding bytes that are not UTF-8 (drivers
    /// splice binary parameters in as `_binary'…'` with raw bytes: Connector/J client-side
    /// prepared statements, go-sql-driver's interpolateParams, PyMySQL) is first rewritten to
    /// the equivalent hex literal `X'…'`, so every byte arrives (see [`hex_non_utf8_literals`]);
    /// invalid sequences anywhere else (identifiers, keywords) are MySQL's error 1300 (see
    /// [`invalid_utf8_outside_strings`]).
    fn query_bytes(&mut self, sql: &[u8], multi: bool) -> Vec<common::Result<QueryResult>> {
        self.query_bytes_with_files(sql, multi, &mut common::client::NoClient)
    }

    /// [`Session::query`] with the client's files reachable for `LOAD DATA LOCAL INFILE`.
    /// Default: local files are refused (the plain [`Session::query`]).
    fn query_with_files(
        &mut self,
        sql: &str,
        multi: bool,
        files: &mut dyn common::client::Client,
    ) -> Vec<common::Result<QueryResult>> {
        let _ = files;
        self.query(sql, multi)
    }

    /// [`Session::query_bytes`] with the client's files reachable (see
    /// [`Session::query_with_files`]); the connection calls this for COM_QUERY.
    fn query_bytes_with_files(
        &mut self,
        sql: &[u8],
        multi: bool,
        files: &mut dyn common::client::Client,
    ) -> Vec<common::Result<QueryResult>> {
        match std::str::from_utf8(sql) {
            Ok(s) => self.query_with_files(s, multi, files),
            Err(_) => match invalid_utf8_outside_strings(sql) {
                Some(bad) => vec![Err(common::Error::new(
                    common::codes::ER_INVALID_CHARACTER_STRING,
                    format!("Invalid utf8mb4 character string: '{}'", hex_upper(&bad)),
                ))],
                None => {
                    let backslash = self.status_flags() & status::NO_BACKSLASH_ESCAPES == 0;
                    self.query_with_files(&hex_non_utf8_literals(sql, backslash), multi, files)
                }
            },
        }
    }
}

/// 1047 `Unknown command`.
fn unknown_command() -> common::Error {
    common::Error::new(common::codes::ER_UNKNOWN_COM_ERROR, "Unknown command")
}

fn hex_upper(b: &[u8]) -> String {
    b.iter().take(32).map(|x| format!("{x:02X}")).collect()
}

/// The first invalid UTF-8 sequence of `sql` that lies outside a quoted string literal
/// (`'…'`, `"…"`), e.g. in a backquoted identifier; `None` if every invalid byte is inside a
/// string literal (or there is none).
pub fn invalid_utf8_outside_strings(sql: &[u8]) -> Option<Vec<u8>> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for chunk in sql.utf8_chunks() {
        for c in chunk.valid().chars() {
            match quote {
                Some(q) => {
                    if escaped {
                        escaped = false;
                    } else if c == '\\' && q != '`' {
                        escaped = true;
                    } else if c == q {
                        quote = None;
                    }
                }
                None if matches!(c, '\'' | '"' | '`') => quote = Some(c),
                None => {}
            }
        }
        let bad = chunk.invalid();
        if !bad.is_empty() {
            escaped = false;
            if !matches!(quote, Some('\'' | '"')) {
                return Some(bad.to_vec());
            }
        }
    }
    None
}

/// `sql` as UTF-8 text, with each quoted string literal (`'…'`, `"…"`) whose bytes are not valid
/// UTF-8 replaced by the hex literal of the bytes it denotes (escapes decoded: `\0`, `\'`, `\\`,
/// …, a doubled quote; a backslash is a plain byte when `backslash_escapes` is off, i.e. under
/// NO_BACKSLASH_ESCAPES). A `_binary` introducer before such a literal is dropped: `X'…'` is
/// already a binary string. Literals that are valid UTF-8 are copied verbatim. Callers check
/// first that no invalid byte lies outside a literal ([`invalid_utf8_outside_strings`]); one
/// that does would become U+FFFD here.
pub fn hex_non_utf8_literals(sql: &[u8], backslash_escapes: bool) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(sql.len() * 2);
    let mut i = 0;
    while i < sql.len() {
        let c = sql[i];
        if c == b'`' {
            // a quoted identifier: copied as is up to its closing backquote
            let end = sql[i + 1..]
                .iter()
                .position(|&b| b == b'`')
                .map_or(sql.len(), |p| i + 2 + p);
            out.extend_from_slice(&sql[i..end]);
            i = end;
            continue;
        }
        if c != b'\'' && c != b'"' {
            out.push(c);
            i += 1;
            continue;
        }
        // a string literal: find its end, decoding the bytes it denotes
        let mut bytes = Vec::new();
        let mut j = i + 1;
        let mut closed = false;
        while j < sql.len() {
            let b = sql[j];
            if b == b'\\' && backslash_escapes && j + 1 < sql.len() {
                let e = sql[j + 1];
                match e {
                    b'0' => bytes.push(0),
                    b'b' => bytes.push(8),
                    b'n' => bytes.push(b'\n'),
                    b'r' => bytes.push(b'\r'),
                    b't' => bytes.push(b'\t'),
                    b'Z' => bytes.push(26),
                    // kept with their backslash (LIKE patterns), as MySQL does
                    b'%' | b'_' => bytes.extend_from_slice(&[b'\\', e]),
                    _ => bytes.push(e),
                }
                j += 2;
            } else if b == c {
                if sql.get(j + 1) == Some(&c) {
                    bytes.push(c);
                    j += 2;
                } else {
                    j += 1;
                    closed = true;
                    break;
                }
            } else {
                bytes.push(b);
                j += 1;
            }
        }
        let raw = &sql[i..j];
        if !closed || std::str::from_utf8(raw).is_ok() {
            out.extend_from_slice(raw);
        } else {
            let intro = b"_binary";
            let n = out.len();
            if n >= intro.len()
                && out[n - intro.len()..].eq_ignore_ascii_case(intro)
                && (n == intro.len() || !is_ident_byte(out[n - intro.len() - 1]))
            {
                out.truncate(n - intro.len());
            } else if out.last().is_some_and(|&b| is_ident_byte(b)) {
                // another introducer (`_latin1'…'`): keep it apart from the hex literal
                out.push(b' ');
            }
            out.extend_from_slice(b"X'");
            for b in &bytes {
                out.extend_from_slice(format!("{b:02X}").as_bytes());
            }
            out.push(b'\'');
        }
        i = j;
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

#[cfg(test)]
mod utf8_tests {
    use super::invalid_utf8_outside_strings as f;

    #[test]
    fn invalid_utf8_positions() {
        assert_eq!(f(b"SELECT 'a\xffb'"), None);
        assert_eq!(f(b"SELECT \"\\'\xff\""), None);
        assert_eq!(f(b"SELECT `\xff\xfe`"), Some(vec![0xFF]));
        assert_eq!(f(b"SELECT 'x', a\xc3"), Some(vec![0xC3]));
        assert_eq!(f(b"SELECT 'it\\'s' \xff"), Some(vec![0xFF]));
    }

    #[test]
    fn non_utf8_literals_become_hex() {
        use super::hex_non_utf8_literals as h;
        // valid UTF-8 literals and everything outside literals are untouched
        assert_eq!(
            h("SELECT 'é', `a'b`, \"x\"".as_bytes(), true),
            "SELECT 'é', `a'b`, \"x\""
        );
        // _binary with raw bytes and escapes, as go-sql-driver / Connector/J / PyMySQL send them
        assert_eq!(
            h(
                b"INSERT INTO t VALUES (1, _binary'\x00\xff\\0\\'\\\\\\\"\\n\\Z''', 'ok')",
                true
            ),
            "INSERT INTO t VALUES (1, X'00FF00275C220A1A27', 'ok')"
        );
        assert_eq!(h(b"SELECT _BINARY\"\xfe\"", true), "SELECT X'FE'");
        // a plain literal (LIKE escapes keep their backslash), another introducer kept apart
        assert_eq!(
            h(b"SELECT '\xff\\%', _latin1'\xe9'", true),
            "SELECT X'FF5C25', _latin1 X'E9'"
        );
        // NO_BACKSLASH_ESCAPES: a backslash is a plain byte
        assert_eq!(h(b"SELECT _binary'\xff\\'", false), "SELECT X'FF5C'");
        // an identifier ending in _binary is not an introducer
        assert_eq!(h(b"SELECT my_binary'\xff'", true), "SELECT my_binary X'FF'");
        // an unterminated literal is left for the parser to reject
        assert!(h(b"SELECT '\xff", true).starts_with("SELECT '"));
    }
}

/// SERVER_STATUS_* flags of OK/EOF packets.
pub mod status {
    /// A transaction is open.
    pub const IN_TRANS: u16 = 0x0001;
    /// Autocommit is on.
    pub const AUTOCOMMIT: u16 = 0x0002;
    /// More result sets follow this one.
    pub const MORE_RESULTS_EXISTS: u16 = 0x0008;
    /// The query used no good index.
    pub const NO_GOOD_INDEX_USED: u16 = 0x0010;
    /// The query used no index.
    pub const NO_INDEX_USED: u16 = 0x0020;
    /// A cursor is open (COM_STMT_EXECUTE with a cursor).
    pub const CURSOR_EXISTS: u16 = 0x0040;
    /// The last row of a cursor was sent.
    pub const LAST_ROW_SENT: u16 = 0x0080;
    /// The current database was dropped.
    pub const DB_DROPPED: u16 = 0x0100;
    /// sql_mode has NO_BACKSLASH_ESCAPES.
    pub const NO_BACKSLASH_ESCAPES: u16 = 0x0200;
    /// The prepared statement's metadata changed.
    pub const METADATA_CHANGED: u16 = 0x0400;
    /// The query was logged as slow.
    pub const QUERY_WAS_SLOW: u16 = 0x0800;
    /// The result set carries OUT parameters.
    pub const PS_OUT_PARAMS: u16 = 0x1000;
    /// A read-only transaction is open.
    pub const IN_TRANS_READONLY: u16 = 0x2000;
    /// Session state changed (SESSION_TRACK).
    pub const SESSION_STATE_CHANGED: u16 = 0x4000;
}
