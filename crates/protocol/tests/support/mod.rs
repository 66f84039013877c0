//! Test support: a fake in-memory backend, a server starter, and a minimal MySQL client written
//! against the protocol documentation (to drive the binary protocol and odd packets).

#![allow(dead_code)]

use std::io;
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use common::types::{column_flags, field_type};
use common::{codes, ColumnMeta, Error, Value};
use protocol::auth::{caching_sha2_scramble, native_scramble};
use protocol::handshake::caps;
use protocol::packet::{put_lenenc_bytes, put_nul_str, PacketIo, Reader};
use protocol::{
    hash_password, Account, AuthPlugin, Backend, ClientInfo, ListenerConfig, OkInfo, PreparedInfo,
    QueryResult, ResultSet, ServerHandle, Session,
};

/// Accounts of the fake backend: (user, plugin, password, locked).
pub const ACCOUNTS: &[(&str, AuthPlugin, &str, bool)] = &[
    ("root", AuthPlugin::Native, "", false),
    ("native", AuthPlugin::Native, "npw", false),
    ("sha", AuthPlugin::CachingSha2, "spw", false),
    ("shanopw", AuthPlugin::CachingSha2, "", false),
    ("locked", AuthPlugin::Native, "lpw", true),
];

/// A backend answering a handful of statements.
pub struct FakeBackend {
    accounts: Vec<Account>,
    pub closed: Mutex<Vec<u32>>,
    pub opened: Mutex<Vec<ClientInfo>>,
}

impl FakeBackend {
    pub fn new() -> Arc<Self> {
        let accounts = ACCOUNTS
            .iter()
            .map(|(u, p, pw, locked)| Account {
                user: u.to_string(),
                host: "%".into(),
                plugin: *p,
                auth_string: hash_password(*p, pw),
                locked: *locked,
                skip_auth: false,
                require: Default::default(),
            })
            .collect();
        Arc::new(FakeBackend {
            accounts,
            closed: Mutex::new(Vec::new()),
            opened: Mutex::new(Vec::new()),
        })
    }
}

impl Backend for FakeBackend {
    type Session = FakeSession;
    fn lookup_account(&self, user: &str, _host: &str) -> Option<Account> {
        self.accounts.iter().find(|a| a.user == user).cloned()
    }
    fn open_session(&self, info: ClientInfo) -> common::Result<FakeSession> {
        if info.db.as_deref() == Some("nodb") {
            return Err(Error::bad_db("nodb"));
        }
        self.opened.lock().unwrap().push(info.clone());
        Ok(FakeSession {
            info,
            stmts: Vec::new(),
            next_stmt: 1,
            in_trans: false,
        })
    }
    fn statistics(&self) -> String {
        "Uptime: 1  Threads: 1  Questions: 0".into()
    }
    fn connection_closed(&self, conn_id: u32) {
        self.closed.lock().unwrap().push(conn_id);
    }
}

pub struct FakeSession {
    pub info: ClientInfo,
    stmts: Vec<(u32, String)>,
    next_stmt: u32,
    in_trans: bool,
}

pub fn col(name: &str, t: u8) -> ColumnMeta {
    let charset = if matches!(t, field_type::VAR_STRING | field_type::STRING) {
        255
    } else {
        63
    };
    ColumnMeta {
        name: name.into(),
        org_name: name.into(),
        field_type: t,
        length: 20,
        charset,
        ..Default::default()
    }
}

fn col_for(v: &Value, i: usize) -> ColumnMeta {
    let name = format!("p{i}");
    let mut c = match v {
        Value::Null => col(&name, field_type::NULL),
        Value::Int(_) => col(&name, field_type::LONGLONG),
        Value::UInt(_) => {
            let mut c = col(&name, field_type::LONGLONG);
            c.flags |= column_flags::UNSIGNED;
            c
        }
        Value::Float(_) => col(&name, field_type::FLOAT),
        Value::Double(_) => col(&name, field_type::DOUBLE),
        Value::Decimal(_) => col(&name, field_type::NEWDECIMAL),
        Value::Str(_) => col(&name, field_type::VAR_STRING),
        Value::Bytes(_) => col(&name, field_type::BLOB),
        Value::Date(_) => col(&name, field_type::DATE),
        Value::DateTime(..) => col(&name, field_type::DATETIME),
        Value::Time(..) => col(&name, field_type::TIME),
    };
    if matches!(v, Value::Bytes(_)) {
        c.charset = 63;
        c.flags |= column_flags::BINARY | column_flags::BLOB;
    }
    c
}

/// The rows 1..=n of one BIGINT column `i` (`SELECT seq ?` / `SELECT stream ?` of the fake
/// session).
pub fn seq_rows(n: i64) -> (Vec<ColumnMeta>, impl Iterator<Item = Vec<Value>>) {
    (
        vec![col("i", field_type::LONGLONG)],
        (1..=n).map(|i| vec![Value::Int(i)]),
    )
}

fn rows1(name: &str, t: u8, v: Value) -> QueryResult {
    QueryResult::Rows(ResultSet {
        columns: vec![col(name, t)],
        rows: vec![vec![v]],
        warnings: 0,
    })
}

impl FakeSession {
    fn one(&mut self, sql: &str) -> common::Result<QueryResult> {
        let s = sql.trim().trim_end_matches(';').trim();
        let lower = s.to_ascii_lowercase();
        if let Some(n) = lower
            .strip_prefix("select ")
            .and_then(|n| n.parse::<i64>().ok())
        {
            return Ok(rows1(&n.to_string(), field_type::LONGLONG, Value::Int(n)));
        }
        match lower.as_str() {
            "select bad" => Err(Error::bad_field("bad", "field list")),
            "select @@version_comment limit 1" => Ok(rows1(
                "@@version_comment",
                field_type::VAR_STRING,
                Value::Str("Strata test".into()),
            )),
            "select user()" => Ok(rows1(
                "user()",
                field_type::VAR_STRING,
                Value::Str(format!("{}@{}", self.info.user, self.info.host)),
            )),
            "select database()" => Ok(rows1(
                "database()",
                field_type::VAR_STRING,
                self.info.db.clone().map(Value::Str).unwrap_or(Value::Null),
            )),
            "select null, 'x', 1.5" => Ok(QueryResult::Rows(ResultSet {
                columns: vec![
                    col("NULL", field_type::NULL),
                    col("x", field_type::VAR_STRING),
                    col("1.5", field_type::NEWDECIMAL),
                ],
                rows: vec![vec![
                    Value::Null,
                    Value::Str("x".into()),
                    Value::Str("1.5".into()),
                ]],
                warnings: 0,
            })),
            "select empty" => Ok(QueryResult::Rows(ResultSet {
                columns: vec![col("e", field_type::LONGLONG)],
                rows: vec![],
                warnings: 1,
            })),
            "insert" => Ok(QueryResult::Ok(OkInfo {
                affected_rows: 3,
                last_insert_id: 42,
                warnings: 1,
                info: "Records: 3".into(),
            })),
            "begin" => {
                self.in_trans = true;
                Ok(QueryResult::Ok(OkInfo::default()))
            }
            "commit" => {
                self.in_trans = false;
                Ok(QueryResult::Ok(OkInfo::default()))
            }
            _ if lower.starts_with("set ") => Ok(QueryResult::Ok(OkInfo::default())),
            _ => Err(Error::parse(s)),
        }
    }
}

impl Session for FakeSession {
    fn query(&mut self, sql: &str, multi: bool) -> Vec<common::Result<QueryResult>> {
        let parts: Vec<&str> = if multi {
            sql.split(';').filter(|p| !p.trim().is_empty()).collect()
        } else {
            vec![sql]
        };
        let mut out = Vec::new();
        for p in parts {
            let r = self.one(p);
            let err = r.is_err();
            out.push(r);
            if err {
                break;
            }
        }
        out
    }
    fn prepare(&mut self, sql: &str) -> common::Result<PreparedInfo> {
        if sql.to_ascii_lowercase().contains("bad") {
            return Err(Error::bad_field("bad", "field list"));
        }
        let id = self.next_stmt;
        self.next_stmt += 1;
        self.stmts.push((id, sql.to_string()));
        let n = sql.matches('?').count();
        let columns = if sql.to_ascii_lowercase().starts_with("select") {
            (0..n.max(1))
                .map(|i| col(&format!("p{i}"), field_type::VAR_STRING))
                .collect()
        } else {
            Vec::new()
        };
        Ok(PreparedInfo {
            stmt_id: id,
            params: vec![ColumnMeta::default(); n],
            columns,
        })
    }
    fn execute(&mut self, stmt_id: u32, params: Vec<Value>) -> common::Result<QueryResult> {
        let Some((_, sql)) = self.stmts.iter().find(|(id, _)| *id == stmt_id) else {
            return Err(Error::new(codes::ER_UNKNOWN_STMT_HANDLER, "unknown"));
        };
        let lower = sql.to_ascii_lowercase();
        if !lower.starts_with("select") {
            return Ok(QueryResult::Ok(OkInfo {
                affected_rows: params.len() as u64,
                ..Default::default()
            }));
        }
        if lower.starts_with("select seq") || lower.starts_with("select stream") {
            let (columns, rows) = seq_rows(first_int(&params));
            return Ok(QueryResult::Rows(ResultSet {
                columns,
                rows: rows.collect(),
                warnings: 1,
            }));
        }
        // Echo the parameters back as one row.
        let columns = params
            .iter()
            .enumerate()
            .map(|(i, v)| col_for(v, i))
            .collect();
        Ok(QueryResult::Rows(ResultSet {
            columns,
            rows: vec![params],
            warnings: 0,
        }))
    }
    /// `SELECT stream ?` sends its rows 1..=? through the client's row sink when it has one;
    /// `SELECT stream fail ?` fails after sending them.
    fn execute_for(
        &mut self,
        stmt_id: u32,
        params: Vec<Value>,
        client: &mut dyn common::client::Client,
    ) -> common::Result<QueryResult> {
        let sql = self
            .stmts
            .iter()
            .find(|(id, _)| *id == stmt_id)
            .map(|(_, sql)| sql.to_ascii_lowercase())
            .unwrap_or_default();
        let Some(sink) = client.rows().filter(|_| sql.starts_with("select stream")) else {
            return self.execute(stmt_id, params);
        };
        let (columns, rows) = seq_rows(first_int(&params));
        sink.columns(columns, protocol::status::AUTOCOMMIT)?;
        for row in rows {
            sink.row(&row)?;
        }
        if sql.starts_with("select stream fail") {
            return Err(Error::new(codes::ER_UNKNOWN_ERROR, "failed after the rows"));
        }
        Ok(QueryResult::RowsSent { warnings: 2 })
    }
    fn close_statement(&mut self, stmt_id: u32) {
        self.stmts.retain(|(id, _)| *id != stmt_id);
    }
    fn init_db(&mut self, db: &str) -> common::Result<()> {
        if db == "nodb" {
            return Err(Error::bad_db(db));
        }
        self.info.db = Some(db.to_string());
        Ok(())
    }
    fn field_list(&mut self, table: &str, _wildcard: &str) -> common::Result<Vec<ColumnMeta>> {
        if table != "t" {
            return Err(Error::no_such_table("test", table));
        }
        Ok(vec![
            col("a", field_type::LONG),
            col("b", field_type::VAR_STRING),
        ])
    }
    fn reset(&mut self) -> common::Result<()> {
        self.in_trans = false;
        Ok(())
    }
    fn status_flags(&self) -> u16 {
        protocol::status::AUTOCOMMIT
            | if self.in_trans {
                protocol::status::IN_TRANS
            } else {
                0
            }
    }
    fn max_allowed_packet(&self) -> usize {
        1 << 20
    }
    fn kill(&mut self, conn_id: u32) -> common::Result<()> {
        if conn_id == 999 {
            return Err(Error::new(
                codes::ER_NO_SUCH_THREAD,
                "Unknown thread id: 999",
            ));
        }
        Ok(())
    }
}

/// The first parameter as an integer (0 if it is not one).
fn first_int(params: &[Value]) -> i64 {
    match params.first() {
        Some(Value::Int(n)) => *n,
        Some(Value::UInt(n)) => *n as i64,
        _ => 0,
    }
}

/// One key directory for every server of the test process (RSA key generation is slow in debug
/// builds, so it happens once).
pub fn key_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // Kept under the target directory and reused across runs.
        let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("protocol-test-keys");
        let _ = std::fs::create_dir_all(&d);
        if d.join("private_key.pem").exists() {
            protocol::auth::RsaKeys::new(&d).get().expect("RSA keys");
            return d;
        }
        // openssl is much faster than a debug build of the rsa crate; its PKCS#8 output also
        // exercises that loading path. Without openssl the server generates the pair itself.
        let _ = std::process::Command::new("openssl")
            .args(["genrsa", "-out"])
            .arg(d.join("private_key.pem"))
            .arg("2048")
            .output();
        protocol::auth::RsaKeys::new(&d).get().expect("RSA keys");
        d
    })
    .clone()
}

static SOCKETS: AtomicUsize = AtomicUsize::new(0);

pub struct TestServer {
    pub handle: ServerHandle,
    pub backend: Arc<FakeBackend>,
    pub socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl TestServer {
    /// A server on the thread pool (two groups), the default mode.
    pub fn start(max_connections: usize) -> TestServer {
        Self::start_with(max_connections, protocol::ThreadHandling::PoolOfThreads)
    }

    pub fn start_with(max_connections: usize, mode: protocol::ThreadHandling) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir
            .path()
            .join(format!("s{}.sock", SOCKETS.fetch_add(1, Ordering::Relaxed)));
        let backend = FakeBackend::new();
        let cfg = ListenerConfig {
            bind_address: "127.0.0.1".into(),
            port: 0,
            socket: Some(socket.clone()),
            max_connections,
            server_version: "8.4.7-Strata".into(),
            key_dir: key_dir(),
            max_allowed_packet: 1 << 20,
            thread_handling: mode,
            pool: protocol::PoolConfig {
                size: 2,
                max_threads: 1000,
            },
            ..Default::default()
        };
        let handle = protocol::start(cfg, backend.clone()).unwrap();
        TestServer {
            handle,
            backend,
            socket,
            _dir: dir,
        }
    }

    pub fn port(&self) -> u16 {
        self.handle.local_addr().port()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.handle.shutdown();
    }
}

/// A decoded server response.
#[derive(Debug, Clone, PartialEq)]
pub enum Resp {
    Ok {
        affected: u64,
        insert_id: u64,
        status: u16,
        warnings: u16,
        info: Vec<u8>,
    },
    Err {
        code: u16,
        state: String,
        msg: String,
    },
    /// A result set: columns (name, type), rows (raw per-column bytes, None = NULL), final status.
    Rows {
        cols: Vec<(String, u8)>,
        rows: Vec<Vec<Option<Vec<u8>>>>,
        status: u16,
        warnings: u16,
    },
}

/// A minimal MySQL client.
pub struct Client {
    pub io: PacketIo<TcpStream>,
    pub caps: u32,
    pub scramble: Vec<u8>,
    pub fast_auth: Option<bool>,
}

pub struct ConnectOpts<'a> {
    pub user: &'a str,
    pub password: &'a str,
    pub plugin: &'a str,
    pub db: Option<&'a str>,
    pub deprecate_eof: bool,
}

impl Default for ConnectOpts<'_> {
    fn default() -> Self {
        ConnectOpts {
            user: "root",
            password: "",
            plugin: "mysql_native_password",
            db: None,
            deprecate_eof: false,
        }
    }
}

pub fn parse_err(p: &[u8]) -> Resp {
    let mut r = Reader::new(&p[1..]);
    let code = r.u16().unwrap();
    let rest = r.rest();
    let (state, msg) = if rest.first() == Some(&b'#') && rest.len() >= 6 {
        (
            String::from_utf8_lossy(&rest[1..6]).into_owned(),
            String::from_utf8_lossy(&rest[6..]).into_owned(),
        )
    } else {
        (String::new(), String::from_utf8_lossy(rest).into_owned())
    };
    Resp::Err { code, state, msg }
}

pub fn parse_ok(p: &[u8]) -> Resp {
    let mut r = Reader::new(&p[1..]);
    let affected = r.lenenc_int().unwrap();
    let insert_id = r.lenenc_int().unwrap();
    let status = r.u16().unwrap();
    let warnings = r.u16().unwrap();
    let info = if r.is_empty() {
        Vec::new()
    } else {
        r.lenenc_bytes().unwrap().to_vec()
    };
    Resp::Ok {
        affected,
        insert_id,
        status,
        warnings,
        info,
    }
}

fn auth_response(plugin: &str, password: &str, nonce: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    match plugin {
        "caching_sha2_password" => caching_sha2_scramble(password.as_bytes(), nonce).to_vec(),
        _ => native_scramble(password.as_bytes(), nonce).to_vec(),
    }
}

impl Client {
    /// Connects and authenticates; returns the final OK or ERR as `Err`.
    pub fn connect(port: u16, o: &ConnectOpts) -> Result<Client, Resp> {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut io = PacketIo::new(s);
        let hs = io.read_packet(1 << 24).unwrap();
        if hs[0] == 0xFF {
            return Err(parse_err(&hs));
        }
        let mut r = Reader::new(&hs);
        assert_eq!(r.u8().unwrap(), 10);
        r.nul_bytes().unwrap();
        r.u32().unwrap();
        let mut nonce = r.bytes(8).unwrap().to_vec();
        r.u8().unwrap();
        let lo = r.u16().unwrap() as u32;
        r.u8().unwrap();
        r.u16().unwrap();
        let hi = r.u16().unwrap() as u32;
        let server_caps = lo | hi << 16;
        r.u8().unwrap();
        r.skip(10).unwrap();
        nonce.extend_from_slice(r.nul_bytes().unwrap());
        let server_plugin = String::from_utf8_lossy(r.nul_bytes().unwrap()).into_owned();
        assert_eq!(server_plugin, "caching_sha2_password");
        let mut caps_ = caps::PROTOCOL_41
            | caps::SECURE_CONNECTION
            | caps::PLUGIN_AUTH
            | caps::PLUGIN_AUTH_LENENC_CLIENT_DATA
            | caps::MULTI_STATEMENTS
            | caps::MULTI_RESULTS
            | caps::PS_MULTI_RESULTS
            | caps::CONNECT_ATTRS
            | caps::LONG_PASSWORD
            | caps::TRANSACTIONS;
        if o.db.is_some() {
            caps_ |= caps::CONNECT_WITH_DB;
        }
        if o.deprecate_eof {
            caps_ |= caps::DEPRECATE_EOF;
        }
        caps_ &= server_caps;
        let mut p = Vec::new();
        p.extend_from_slice(&caps_.to_le_bytes());
        p.extend_from_slice(&(1u32 << 24).to_le_bytes());
        p.push(45);
        p.extend_from_slice(&[0; 23]);
        put_nul_str(&mut p, o.user.as_bytes());
        put_lenenc_bytes(&mut p, &auth_response(o.plugin, o.password, &nonce));
        if let Some(db) = o.db {
            put_nul_str(&mut p, db.as_bytes());
        }
        put_nul_str(&mut p, o.plugin.as_bytes());
        let mut attrs = Vec::new();
        put_lenenc_bytes(&mut attrs, b"_client_name");
        put_lenenc_bytes(&mut attrs, b"strata-test");
        put_lenenc_bytes(&mut p, &attrs);
        io.write_packet(&p).unwrap();
        io.flush().unwrap();
        let mut c = Client {
            io,
            caps: caps_,
            scramble: nonce,
            fast_auth: None,
        };
        c.finish_auth(o.password)?;
        Ok(c)
    }

    /// Handles auth switch / caching_sha2 exchanges until OK or ERR.
    fn finish_auth(&mut self, password: &str) -> Result<(), Resp> {
        loop {
            let p = self.io.read_packet(1 << 24).unwrap();
            match p.first() {
                Some(0x00) => return Ok(()),
                Some(0xFF) => return Err(parse_err(&p)),
                Some(0xFE) => {
                    let mut r = Reader::new(&p[1..]);
                    let plugin = String::from_utf8_lossy(r.nul_bytes().unwrap()).into_owned();
                    let data = r.rest();
                    let nonce = data.strip_suffix(&[0]).unwrap_or(data).to_vec();
                    self.scramble = nonce.clone();
                    let resp = auth_response(&plugin, password, &nonce);
                    self.io.write_packet(&resp).unwrap();
                    self.io.flush().unwrap();
                }
                Some(0x01) if p == [0x01, 0x03] => self.fast_auth = Some(true),
                Some(0x01) if p == [0x01, 0x04] => {
                    self.fast_auth = Some(false);
                    self.io.write_packet(&[0x02]).unwrap();
                    self.io.flush().unwrap();
                }
                Some(0x01) => {
                    use rsa::pkcs8::DecodePublicKey;
                    let pem = String::from_utf8_lossy(&p[1..]).into_owned();
                    let key = rsa::RsaPublicKey::from_public_key_pem(&pem).unwrap();
                    let mut plain = password.as_bytes().to_vec();
                    plain.push(0);
                    for (i, b) in plain.iter_mut().enumerate() {
                        *b ^= self.scramble[i % 20];
                    }
                    let enc = key
                        .encrypt(
                            &mut rand::thread_rng(),
                            rsa::Oaep::new::<sha1::Sha1>(),
                            &plain,
                        )
                        .unwrap();
                    self.io.write_packet(&enc).unwrap();
                    self.io.flush().unwrap();
                }
                other => panic!("unexpected auth packet {other:?}: {p:?}"),
            }
        }
    }

    pub fn send(&mut self, cmd: u8, body: &[u8]) {
        let mut p = vec![cmd];
        p.extend_from_slice(body);
        self.io.set_seq(0);
        self.io.write_packet(&p).unwrap();
        self.io.flush().unwrap();
    }

    pub fn read(&mut self) -> io::Result<Vec<u8>> {
        self.io.read_packet(1 << 25).map_err(|e| match e {
            protocol::packet::ReadError::Io(e) => e,
            other => io::Error::other(format!("{other:?}")),
        })
    }

    fn deprecate_eof(&self) -> bool {
        self.caps & caps::DEPRECATE_EOF != 0
    }

    /// Reads one response (OK, ERR or a whole result set with text or binary rows).
    pub fn response(&mut self, binary: bool) -> Resp {
        let p = self.read().unwrap();
        match p[0] {
            0x00 => parse_ok(&p),
            0xFF => parse_err(&p),
            _ => {
                let cols = self.columns(&p);
                if !self.deprecate_eof() {
                    let eof = self.read().unwrap();
                    assert_eq!(eof[0], 0xFE);
                    assert_eq!(eof.len(), 5);
                }
                self.rows(cols, binary)
            }
        }
    }

    /// The column definitions announced by the column count packet `p`: (name, type).
    fn columns(&mut self, p: &[u8]) -> Vec<(String, u8)> {
        let n = Reader::new(p).lenenc_int().unwrap() as usize;
        let mut cols = Vec::new();
        for _ in 0..n {
            let c = self.read().unwrap();
            let mut r = Reader::new(&c);
            for _ in 0..4 {
                r.lenenc_bytes().unwrap();
            }
            let name = String::from_utf8_lossy(r.lenenc_bytes().unwrap()).into_owned();
            r.lenenc_bytes().unwrap();
            r.lenenc_int().unwrap();
            r.u16().unwrap();
            r.u32().unwrap();
            let t = r.u8().unwrap();
            cols.push((name, t));
        }
        cols
    }

    /// Rows up to the EOF (or the OK with a 0xFE header) that ends them, or an ERR.
    fn rows(&mut self, cols: Vec<(String, u8)>, binary: bool) -> Resp {
        let mut rows = Vec::new();
        loop {
            let row = self.read().unwrap();
            if row[0] == 0xFE && row.len() < 0xFF_FFFF {
                let (status, warnings) = self.end_of_rows(&row);
                return Resp::Rows {
                    cols,
                    rows,
                    status,
                    warnings,
                };
            }
            if row[0] == 0xFF {
                return parse_err(&row);
            }
            rows.push(if binary {
                decode_binary_row(&row, &cols)
            } else {
                decode_text_row(&row, cols.len())
            });
        }
    }

    /// (status, warnings) of the packet ending a result set: an OK with a 0xFE header under
    /// CLIENT_DEPRECATE_EOF, else a classic 5-byte EOF.
    fn end_of_rows(&self, p: &[u8]) -> (u16, u16) {
        assert_eq!(p[0], 0xFE);
        if self.deprecate_eof() {
            match parse_ok(p) {
                Resp::Ok {
                    status, warnings, ..
                } => (status, warnings),
                _ => unreachable!(),
            }
        } else {
            assert_eq!(p.len(), 5, "classic EOF");
            let mut r = Reader::new(&p[1..]);
            let w = r.u16().unwrap();
            (r.u16().unwrap(), w)
        }
    }

    /// The reply to COM_STMT_EXECUTE with a cursor: OK, ERR, or the column definitions and the
    /// one EOF (or 0xFE OK) after them, returned as a result set without rows.
    pub fn cursor_response(&mut self) -> Resp {
        let p = self.read().unwrap();
        match p[0] {
            0x00 => parse_ok(&p),
            0xFF => parse_err(&p),
            _ => {
                let cols = self.columns(&p);
                let end = self.read().unwrap();
                let (status, warnings) = self.end_of_rows(&end);
                Resp::Rows {
                    cols,
                    rows: Vec::new(),
                    status,
                    warnings,
                }
            }
        }
    }

    /// COM_STMT_FETCH of `n` rows of a cursor whose columns are `cols`: the binary rows and the
    /// status of the EOF after them, or the ERR.
    pub fn fetch(&mut self, id: u32, n: u32, cols: &[(String, u8)]) -> Resp {
        let mut b = id.to_le_bytes().to_vec();
        b.extend_from_slice(&n.to_le_bytes());
        self.send(0x1C, &b);
        self.rows(cols.to_vec(), true)
    }

    pub fn query(&mut self, sql: &str) -> Resp {
        self.send(0x03, sql.as_bytes());
        self.response(false)
    }

    /// COM_STMT_PREPARE: returns (stmt id, column count, param count) or the error.
    pub fn prepare(&mut self, sql: &str) -> Result<(u32, u16, u16), Resp> {
        self.send(0x16, sql.as_bytes());
        let p = self.read().unwrap();
        if p[0] == 0xFF {
            return Err(parse_err(&p));
        }
        let mut r = Reader::new(&p[1..]);
        let id = r.u32().unwrap();
        let ncols = r.u16().unwrap();
        let nparams = r.u16().unwrap();
        for block in [nparams, ncols] {
            if block > 0 {
                for _ in 0..block {
                    let c = self.read().unwrap();
                    assert_eq!(&c[..4], b"\x03def");
                }
                if !self.deprecate_eof() {
                    assert_eq!(self.read().unwrap()[0], 0xFE);
                }
            }
        }
        Ok((id, ncols, nparams))
    }

    /// COM_STMT_EXECUTE with typed params: (type, unsigned, encoded value or None for NULL).
    pub fn execute(&mut self, id: u32, params: &[(u8, bool, Option<Vec<u8>>)], bind: bool) -> Resp {
        self.send_execute(id, params, bind, 0);
        self.response(true)
    }

    /// Sends COM_STMT_EXECUTE with the `flags` byte (cursor type) and typed params.
    pub fn send_execute(
        &mut self,
        id: u32,
        params: &[(u8, bool, Option<Vec<u8>>)],
        bind: bool,
        flags: u8,
    ) {
        let mut b = id.to_le_bytes().to_vec();
        b.push(flags);
        b.extend_from_slice(&1u32.to_le_bytes());
        if !params.is_empty() {
            let mut bm = vec![0u8; params.len().div_ceil(8)];
            for (i, p) in params.iter().enumerate() {
                if p.2.is_none() {
                    bm[i / 8] |= 1 << (i % 8);
                }
            }
            b.extend_from_slice(&bm);
            b.push(bind as u8);
            if bind {
                for (t, u, _) in params {
                    b.push(*t);
                    b.push(if *u { 0x80 } else { 0 });
                }
            }
            for (_, _, v) in params {
                if let Some(v) = v {
                    b.extend_from_slice(v);
                }
            }
        }
        self.send(0x17, &b);
    }
}

fn decode_text_row(p: &[u8], n: usize) -> Vec<Option<Vec<u8>>> {
    let mut r = Reader::new(p);
    (0..n)
        .map(|_| {
            if r.clone().u8().unwrap() == 0xFB {
                r.u8().unwrap();
                None
            } else {
                Some(r.lenenc_bytes().unwrap().to_vec())
            }
        })
        .collect()
}

/// Binary row values returned as their raw encoded bytes (without length prefixes for strings).
fn decode_binary_row(p: &[u8], cols: &[(String, u8)]) -> Vec<Option<Vec<u8>>> {
    assert_eq!(p[0], 0x00);
    let mut r = Reader::new(&p[1..]);
    let bitmap = r.bytes((cols.len() + 9) / 8).unwrap().to_vec();
    cols.iter()
        .enumerate()
        .map(|(i, (_, t))| {
            let bit = i + 2;
            if bitmap[bit / 8] & (1 << (bit % 8)) != 0 {
                return None;
            }
            Some(match *t {
                field_type::TINY => r.bytes(1).unwrap().to_vec(),
                field_type::SHORT | field_type::YEAR => r.bytes(2).unwrap().to_vec(),
                field_type::LONG | field_type::INT24 | field_type::FLOAT => {
                    r.bytes(4).unwrap().to_vec()
                }
                field_type::LONGLONG | field_type::DOUBLE => r.bytes(8).unwrap().to_vec(),
                field_type::DATE
                | field_type::DATETIME
                | field_type::TIMESTAMP
                | field_type::TIME => {
                    let n = r.u8().unwrap() as usize;
                    let mut v = vec![n as u8];
                    v.extend_from_slice(r.bytes(n).unwrap());
                    v
                }
                field_type::NULL => Vec::new(),
                _ => r.lenenc_bytes().unwrap().to_vec(),
            })
        })
        .collect()
}
