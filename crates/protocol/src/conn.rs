//! One client connection: the connection phase (handshake, authentication) and the command
//! phase (one command packet in → its responses out).
//!
//! [`Connection::handle_command`] handles exactly one command packet and buffers its responses;
//! [`Connection::run`] is the blocking loop (read a packet, handle it, flush) used with one OS
//! thread per connection. The thread pool ([`crate::pool`]) drives the same steps itself:
//! [`Connection::send_greeting`], [`Connection::finish_handshake`] once the client answered,
//! then [`Connection::read_command`] + [`Connection::handle_command`] each time the socket is
//! readable.

use rustc_hash::FxHashMap as HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use common::codes;
use common::{ColumnMeta, Error, ErrorCode, Value};

use crate::auth::{self, AuthCache, RsaKeys};
use crate::backend::{
    status, AuthPlugin, Backend, ClientInfo, OkInfo, QueryResult, ResultSet, Session,
    SslRequirement, Timeouts,
};
use crate::binary::{decode_execute, put_binary_row, ParamType};
use crate::cursor::{Cursor, CursorWriter};
use crate::handshake::{self, caps, HandshakeResponse};
use crate::packet::{Malformed, PacketIo, ReadError, Reader};
use crate::response::{
    column_definition, eof_packet, err_packet, error_packet, ok_packet, param_placeholder,
    put_text_row,
};

/// Command bytes (`COM_*`).
pub mod com {
    /// COM_SLEEP (server-internal; refused).
    pub const SLEEP: u8 = 0x00;
    /// COM_QUIT
    pub const QUIT: u8 = 0x01;
    /// COM_INIT_DB
    pub const INIT_DB: u8 = 0x02;
    /// COM_QUERY
    pub const QUERY: u8 = 0x03;
    /// COM_FIELD_LIST
    pub const FIELD_LIST: u8 = 0x04;
    /// COM_STATISTICS
    pub const STATISTICS: u8 = 0x09;
    /// COM_PROCESS_KILL
    pub const PROCESS_KILL: u8 = 0x0C;
    /// COM_PING
    pub const PING: u8 = 0x0E;
    /// COM_CHANGE_USER
    pub const CHANGE_USER: u8 = 0x11;
    /// COM_BINLOG_DUMP
    pub const BINLOG_DUMP: u8 = 0x12;
    /// COM_REGISTER_SLAVE
    pub const REGISTER_SLAVE: u8 = 0x15;
    /// COM_STMT_PREPARE
    pub const STMT_PREPARE: u8 = 0x16;
    /// COM_STMT_EXECUTE
    pub const STMT_EXECUTE: u8 = 0x17;
    /// COM_STMT_SEND_LONG_DATA
    pub const STMT_SEND_LONG_DATA: u8 = 0x18;
    /// COM_STMT_CLOSE
    pub const STMT_CLOSE: u8 = 0x19;
    /// COM_STMT_RESET
    pub const STMT_RESET: u8 = 0x1A;
    /// COM_SET_OPTION
    pub const SET_OPTION: u8 = 0x1B;
    /// COM_STMT_FETCH
    pub const STMT_FETCH: u8 = 0x1C;
    /// COM_BINLOG_DUMP_GTID
    pub const BINLOG_DUMP_GTID: u8 = 0x1E;
    /// COM_RESET_CONNECTION
    pub const RESET_CONNECTION: u8 = 0x1F;
}

mod dump;

/// The COM_STMT_EXECUTE flag asking for a read-only cursor. MySQL opens a cursor only for this
/// bit (`sql_prepare.cc` `mysqld_stmt_execute`: `execute_flags & CURSOR_TYPE_READ_ONLY`);
/// CURSOR_TYPE_FOR_UPDATE (2) and CURSOR_TYPE_SCROLLABLE (4) alone send the result directly.
const CURSOR_TYPE_READ_ONLY: u8 = 1;

/// 1421: COM_STMT_FETCH without a cursor (not in `common::codes`).
const ER_STMT_HAS_NO_OPEN_CURSOR: ErrorCode = ErrorCode {
    num: 1421,
    sqlstate: "HY000",
    name: "ER_STMT_HAS_NO_OPEN_CURSOR",
};

/// A byte stream a connection runs on: TCP, unix socket, or (in tests) anything else.
pub trait Transport: Read + Write + Send {
    /// Sets (or clears) the read timeout.
    fn set_timeout(&self, t: Option<Duration>) -> io::Result<()>;
    /// Sets (or clears) the write timeout.
    fn set_write_timeout(&self, _t: Option<Duration>) -> io::Result<()> {
        Ok(())
    }
    /// Waits until the stream is readable (data, EOF or an error pending) or `timeout` passes;
    /// returns false on timeout. The default says "readable" at once.
    fn wait_readable(&self, _timeout: Option<Duration>) -> io::Result<bool> {
        Ok(true)
    }
    /// Closes both directions (wakes a blocked reader).
    fn close(&self);
    /// Switches the stream to TLS (the server side of the handshake, blocking). Streams that
    /// cannot (the default) refuse.
    fn start_tls(&mut self, _config: &Arc<rustls::ServerConfig>) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "TLS is not available on this transport",
        ))
    }
    /// What the TLS session negotiated, if the stream is TLS.
    fn tls_session(&self) -> Option<crate::tls::TlsSession> {
        None
    }
    /// True if input is already buffered above the socket (decrypted TLS records), so waiting
    /// for the socket to become readable would miss it.
    fn has_buffered_input(&mut self) -> bool {
        false
    }
    /// True if a read that times out (`set_timeout`) leaves the stream usable, so a reader may
    /// retry it: plain sockets. (TLS keeps waiting with [`Transport::wait_readable`].)
    fn retryable_timeouts(&self) -> bool {
        false
    }
}

/// `poll(2)` for readability of one descriptor.
pub(crate) fn poll_readable(fd: &impl AsFd, timeout: Option<Duration>) -> io::Result<bool> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let ts = match timeout {
        Some(d) => Some(Timespec::try_from(d).map_err(|_| io::ErrorKind::InvalidInput)?),
        None => None,
    };
    loop {
        let mut fds = [PollFd::new(fd, PollFlags::IN)];
        match poll(&mut fds, ts.as_ref()) {
            Ok(n) => return Ok(n > 0),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

impl Transport for TcpStream {
    fn set_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        self.set_read_timeout(t)
    }
    fn retryable_timeouts(&self) -> bool {
        true
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        TcpStream::set_write_timeout(self, t)
    }
    fn wait_readable(&self, timeout: Option<Duration>) -> io::Result<bool> {
        poll_readable(self, timeout)
    }
    fn close(&self) {
        let _ = self.shutdown(Shutdown::Both);
    }
}

impl Transport for UnixStream {
    fn set_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        self.set_read_timeout(t)
    }
    fn retryable_timeouts(&self) -> bool {
        true
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        UnixStream::set_write_timeout(self, t)
    }
    fn wait_readable(&self, timeout: Option<Duration>) -> io::Result<bool> {
        poll_readable(self, timeout)
    }
    fn close(&self) {
        let _ = self.shutdown(Shutdown::Both);
    }
}

/// The client's side of `LOAD DATA LOCAL INFILE` for one COM_QUERY: sends the LOCAL INFILE
/// request (0xFB + file name) and reads the file back as the packets the client streams, up to
/// the empty packet that ends the transfer.
pub struct ClientFiles<'a, S> {
    /// The client set CLIENT_LOCAL_FILES.
    pub enabled: bool,
    /// Largest packet accepted from the client.
    pub max_packet: usize,
    /// The connection's packet stream.
    pub io: &'a mut PacketIo<S>,
    /// A result set may be sent while it is produced ([`common::client::RowSink`]).
    pub stream_rows: bool,
    /// Rows are encoded in the binary protocol (COM_STMT_EXECUTE), else as text.
    pub binary: bool,
    /// The client set CLIENT_DEPRECATE_EOF (no EOF packet after the column definitions).
    pub deprecate_eof: bool,
    /// The columns of the result set being sent, once [`common::client::RowSink::columns`] ran.
    pub columns: Vec<ColumnMeta>,
    /// The row being encoded (reused).
    pub buf: Vec<u8>,
}

impl<'a, S> ClientFiles<'a, S> {
    /// The client of one command: local files when the client allows them (`local`), result
    /// rows streamed in the text or the binary (`binary`) protocol.
    pub fn new(
        io: &'a mut PacketIo<S>,
        local: bool,
        max_packet: usize,
        deprecate_eof: bool,
        binary: bool,
    ) -> Self {
        ClientFiles {
            enabled: local,
            max_packet,
            io,
            stream_rows: true,
            binary,
            deprecate_eof,
            columns: Vec::new(),
            buf: Vec::new(),
        }
    }
}

impl<S: Read + Write> common::client::RowSink for ClientFiles<'_, S> {
    fn columns(&mut self, columns: Vec<ColumnMeta>, status: u16) -> common::Result<()> {
        let mut count = Vec::with_capacity(9);
        crate::packet::put_lenenc_int(&mut count, columns.len() as u64);
        let mut sent = self.io.write_packet(&count);
        for c in &columns {
            sent = sent.and_then(|_| self.io.write_packet(&column_definition(c, false)));
        }
        if !self.deprecate_eof {
            sent = sent.and_then(|_| self.io.write_packet(&eof_packet(0, status)));
        }
        self.columns = columns;
        sent.map_err(write_error)
    }

    fn row(&mut self, row: &[Value]) -> common::Result<()> {
        self.buf.clear();
        if self.binary {
            put_binary_row(&mut self.buf, &self.columns, row);
        } else {
            put_text_row(&mut self.buf, &self.columns, row);
        }
        self.io.write_packet(&self.buf).map_err(write_error)
    }
}

/// MySQL's 1160 for a result that could not be written to the client.
fn write_error(e: io::Error) -> common::Error {
    common::Error::new(
        codes::ER_NET_ERROR_ON_WRITE,
        format!("Got an error writing communication packets: {e}"),
    )
}

impl<S: Read + Write> common::client::Client for ClientFiles<'_, S> {
    fn rows(&mut self) -> Option<&mut dyn common::client::RowSink> {
        if self.stream_rows {
            Some(self)
        } else {
            None
        }
    }

    fn open(&mut self, name: &str) -> common::Result<Box<dyn Read + '_>> {
        if !self.enabled {
            return Err(common::client::local_files_disabled());
        }
        let mut req = Vec::with_capacity(name.len() + 1);
        req.push(0xFB);
        req.extend_from_slice(name.as_bytes());
        let sent = self.io.write_packet(&req).and_then(|_| self.io.flush());
        sent.map_err(|e| {
            common::Error::new(
                codes::ER_NET_ERROR_ON_WRITE,
                format!("Got an error writing communication packets: {e}"),
            )
        })?;
        Ok(Box::new(InfileReader {
            io: &mut *self.io,
            max_packet: self.max_packet,
            buf: Vec::new(),
            pos: 0,
            done: false,
        }))
    }
}

/// The file a client streams after a LOCAL INFILE request: one packet at a time.
struct InfileReader<'a, S: Read + Write> {
    io: &'a mut PacketIo<S>,
    max_packet: usize,
    buf: Vec<u8>,
    pos: usize,
    done: bool,
}

impl<S: Read + Write> Read for InfileReader<'_, S> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos >= self.buf.len() {
            if self.done {
                return Ok(0);
            }
            match self.io.read_packet(self.max_packet) {
                Ok(p) if p.is_empty() => self.done = true,
                Ok(p) => {
                    self.buf = p;
                    self.pos = 0;
                }
                Err(e) => {
                    // the transfer is broken: nothing more can be read from it
                    self.done = true;
                    return Err(match e {
                        ReadError::Io(e) => e,
                        ReadError::TooLarge => {
                            io::Error::other("Got a packet bigger than 'max_allowed_packet' bytes")
                        }
                        ReadError::Closed => io::ErrorKind::UnexpectedEof.into(),
                        ReadError::OutOfOrder => io::Error::other("Got packets out of order"),
                    });
                }
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl<S: Read + Write> Drop for InfileReader<'_, S> {
    /// A load that stopped early (an error) still reads the client's transfer to its end, so
    /// the reply that follows is read by the client as the reply.
    fn drop(&mut self) {
        while !self.done {
            match self.io.read_packet(self.max_packet) {
                Ok(p) if p.is_empty() => self.done = true,
                Ok(_) | Err(ReadError::TooLarge) => {}
                Err(_) => self.done = true,
            }
        }
    }
}

/// State shared by all connections of a listener.
pub struct Shared {
    /// Version string sent in the handshake.
    pub server_version: String,
    /// max_allowed_packet before a session exists.
    pub max_allowed_packet: usize,
    /// The caching_sha2 fast-auth cache.
    pub auth_cache: AuthCache,
    /// The RSA key pair for password exchange over TCP.
    pub rsa: RsaKeys,
    /// TLS, when enabled: the rustls configuration (`CLIENT_SSL` is advertised only then).
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// TLS handshakes begun / completed (`Ssl_accepts`, `Ssl_finished_accepts`).
    pub tls_counters: Arc<crate::tls::TlsCounters>,
}

/// What to do after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading commands.
    Continue,
    /// Close the connection (after flushing what was written).
    Close,
    /// The command started a job that runs until the client goes (a binlog dump): flush,
    /// call [`Connection::run_detached`] on a thread that may block that long, then close.
    Detach,
}

/// A prepared statement as the connection tracks it.
struct Stmt {
    num_params: usize,
    types: Option<Vec<ParamType>>,
    long_data: std::collections::HashMap<u16, Vec<u8>>,
    long_data_too_big: bool,
    /// The open cursor of the last COM_STMT_EXECUTE, until fetched to its end or closed.
    cursor: Option<Cursor>,
}

/// Outcome of authentication.
enum AuthOutcome {
    Ok,
    /// An error was sent; close the connection.
    Denied,
}

/// One client connection.
pub struct Connection<B: Backend, S: Transport> {
    backend: Arc<B>,
    shared: Arc<Shared>,
    io: PacketIo<S>,
    conn_id: u32,
    /// "localhost" for a unix socket, else the peer IP.
    host: String,
    /// True for a unix socket or TLS: passwords may be sent in clear.
    secure: bool,
    /// What TLS negotiated, once the connection switched to it.
    tls: Option<crate::tls::TlsSession>,
    caps: u32,
    scramble: [u8; 20],
    session: Option<B::Session>,
    stmts: HashMap<u32, Stmt>,
    multi_statements: bool,
    /// Admitted over max_connections: only an administrator may log in; a refusal counts here
    /// (Connection_errors_max_connections).
    admin_only: Option<Arc<std::sync::atomic::AtomicU64>>,
    /// The socket timeouts last applied (re-applied when the session's variables change).
    applied: Option<Timeouts>,
    /// The socket's read timeout is the short wait of [`Connection::await_command`] rather
    /// than net_read_timeout (which the packet reader then enforces itself).
    short_reads: bool,
    /// A binlog dump a command started, run by [`Connection::run_detached`].
    dump: Option<Box<dyn crate::backend::BinlogStream>>,
}

impl<B: Backend, S: Transport> Connection<B, S> {
    /// A connection over `stream` from `host` (`secure` for unix sockets).
    pub fn new(
        backend: Arc<B>,
        shared: Arc<Shared>,
        stream: S,
        conn_id: u32,
        host: String,
        secure: bool,
    ) -> Self {
        Connection {
            backend,
            shared,
            io: PacketIo::new(stream),
            conn_id,
            host,
            secure,
            tls: None,
            caps: 0,
            scramble: auth::new_scramble(),
            session: None,
            stmts: HashMap::default(),
            multi_statements: false,
            admin_only: None,
            applied: None,
            short_reads: false,
            dump: None,
        }
    }

    /// Admits this connection over `max_connections`: authentication succeeds only for an
    /// account the backend calls an administrator ([`Backend::is_admin`]); others get 1040 and
    /// `refusals` is incremented.
    pub fn set_admin_only(&mut self, refusals: Arc<std::sync::atomic::AtomicU64>) {
        self.admin_only = Some(refusals);
    }

    /// True once authentication succeeded and a session is open.
    pub fn has_session(&self) -> bool {
        self.session.is_some()
    }

    /// The statement scheduling priority of the connection's next command: high inside a
    /// transaction or when the session asks for it (`thread_pool_high_priority_connection`).
    pub fn high_priority(&self) -> bool {
        match &self.session {
            Some(s) => self.in_transaction() || s.high_priority(),
            None => false,
        }
    }

    /// Whether the session is inside an explicit transaction (the IN_TRANS status flag).
    pub fn in_transaction(&self) -> bool {
        self.session
            .as_ref()
            .is_some_and(|s| s.status_flags() & status::IN_TRANS != 0)
    }

    /// The session's idle timeout (`wait_timeout`, or `interactive_timeout` for interactive
    /// clients as the session set it up).
    pub fn idle_timeout(&self) -> Duration {
        match &self.session {
            Some(s) => s.timeouts().wait,
            None => Timeouts::default().wait,
        }
    }

    /// Applies the session's net_read_timeout / net_write_timeout to the socket if they changed.
    pub fn apply_timeouts(&mut self) -> Timeouts {
        let t = match &self.session {
            Some(s) => s.timeouts(),
            None => Timeouts::default(),
        };
        if self.applied != Some(t) {
            let net_read = t.net_read.max(Duration::from_secs(1));
            if self.short_reads {
                self.io.set_patience(Some(net_read));
            } else {
                let _ = self.io.stream().set_timeout(Some(net_read));
            }
            let st = self.io.stream();
            let _ = st.set_write_timeout(Some(t.net_write.max(Duration::from_secs(1))));
            self.applied = Some(t);
        }
        t
    }

    /// Waits up to `wait` for the client's next command; true when it (or end of stream)
    /// arrived. On a plain socket the command is read ahead with one `recv` bounded by the
    /// socket's read timeout, which stays at `wait` from the first call on (every caller passes
    /// the same wait), net_read_timeout being enforced by the packet reader's retries instead:
    /// a `poll` and then a `recv` cost a second system call per command (measured: 3–4 % of
    /// the CPU of sysbench and the server together). TLS streams wait with `poll`.
    pub fn await_command(&mut self, wait: Duration) -> bool {
        if self.has_buffered_input() {
            return true;
        }
        if !self.io.stream().retryable_timeouts() {
            return matches!(self.io.stream().wait_readable(Some(wait)), Ok(true));
        }
        if !self.short_reads {
            if self.io.stream().set_timeout(Some(wait)).is_err() {
                return false;
            }
            self.short_reads = true;
            let t = self.applied.unwrap_or_default();
            self.io
                .set_patience(Some(t.net_read.max(Duration::from_secs(1))));
        }
        matches!(self.io.fill_ahead(), Ok(true))
    }

    /// Sends ER_CLIENT_INTERACTION_TIMEOUT (4031) before the server closes an idle connection.
    pub fn send_idle_timeout(&mut self) {
        self.io.set_seq(0);
        let _ = self.io.write_packet(&err_packet(
            codes::ER_CLIENT_INTERACTION_TIMEOUT,
            "The client was disconnected by the server because of inactivity. See wait_timeout and interactive_timeout for configuring this behavior.",
        ));
        let _ = self.io.flush();
    }

    /// The connection id.
    pub fn conn_id(&self) -> u32 {
        self.conn_id
    }

    /// The transport.
    pub fn stream(&self) -> &S {
        self.io.stream()
    }

    /// Handshake, then commands until the client quits, stays idle longer than its
    /// `wait_timeout`, or the connection fails.
    pub fn run(mut self) {
        match self.handshake() {
            Ok(true) => {}
            Ok(false) => {
                self.backend.connect_failed();
                return;
            }
            Err(e) => {
                tracing::debug!(conn = self.conn_id, "handshake failed: {e}");
                self.backend.connect_failed();
                return;
            }
        }
        loop {
            let t = self.apply_timeouts();
            let ready = if self.has_buffered_input() {
                Ok(true)
            } else {
                self.io.stream().wait_readable(Some(t.wait))
            };
            match ready {
                Ok(true) => {}
                Ok(false) => {
                    self.send_idle_timeout();
                    break;
                }
                Err(_) => break,
            }
            let Some(payload) = self.read_command() else {
                break;
            };
            let flow = self.handle_command(&payload);
            let flushed = self.flush();
            match (flow, flushed) {
                (Ok(Flow::Continue), Ok(())) => {}
                (Ok(Flow::Close), _) => break,
                (Ok(Flow::Detach), Ok(())) => {
                    self.run_detached();
                    break;
                }
                (Err(e), _) | (_, Err(e)) => {
                    tracing::debug!(conn = self.conn_id, "connection error: {e}");
                    break;
                }
            }
        }
        self.io.stream().close();
    }

    /// True if a command is already buffered above the socket (read ahead, or decrypted TLS
    /// records), so the socket may not become readable for it.
    pub fn has_buffered_input(&mut self) -> bool {
        self.io.has_buffered_input() || self.io.stream_mut().has_buffered_input()
    }

    /// Sends everything buffered (call after [`Connection::handle_command`]).
    pub fn flush(&mut self) -> io::Result<()> {
        self.io.flush()
    }

    /// Reads the next command packet; `None` when the connection should end (errors for an
    /// oversized packet are sent here).
    pub fn read_command(&mut self) -> Option<Vec<u8>> {
        let max = self.max_packet();
        // every command starts a new exchange at sequence id 0
        match self.io.read_packet_seq(max, 0) {
            Ok(p) => Some(p),
            Err(ReadError::Closed) => None,
            Err(ReadError::TooLarge) => {
                let _ = self.send_packet_too_large();
                None
            }
            Err(ReadError::OutOfOrder) => {
                // MySQL answers "Got packets out of order" and closes the connection
                self.io.set_seq(0);
                let _ = self.io.write_packet(&err_packet(
                    codes::ER_NET_PACKETS_OUT_OF_ORDER,
                    "Got packets out of order",
                ));
                let _ = self.io.flush();
                None
            }
            Err(ReadError::Io(e)) => {
                tracing::debug!(conn = self.conn_id, "read error: {e}");
                None
            }
        }
    }

    fn max_packet(&self) -> usize {
        match &self.session {
            Some(s) => s.max_allowed_packet().max(1024),
            None => self.shared.max_allowed_packet.max(1024),
        }
    }

    fn send_packet_too_large(&mut self) -> io::Result<()> {
        self.io.write_packet(&err_packet(
            codes::ER_NET_PACKET_TOO_LARGE,
            "Got a packet bigger than 'max_allowed_packet' bytes",
        ))?;
        self.io.flush()
    }

    fn status(&self) -> u16 {
        match &self.session {
            Some(s) => s.status_flags(),
            None => status::AUTOCOMMIT,
        }
    }

    fn deprecate_eof(&self) -> bool {
        self.caps & caps::DEPRECATE_EOF != 0
    }

    // ---------------------------------------------------------------- connection phase

    /// Sends the handshake, authenticates the client and opens its session. `Ok(false)` means
    /// the client was refused (the error was sent).
    pub fn handshake(&mut self) -> io::Result<bool> {
        self.send_greeting()?;
        self.finish_handshake()
    }

    /// Sends the Initial Handshake packet (the first step of [`Connection::handshake`]); the
    /// socket's timeouts become `connect_timeout` until the session opens. Returns that
    /// `connect_timeout` (how long the client may take to answer).
    pub fn send_greeting(&mut self) -> io::Result<Duration> {
        let connect_timeout = self
            .backend
            .tuning()
            .connect_timeout
            .max(Duration::from_secs(1));
        let _ = self.io.stream().set_timeout(Some(connect_timeout));
        let _ = self.io.stream().set_write_timeout(Some(connect_timeout));
        let hs = handshake::initial_handshake(
            &self.shared.server_version,
            self.conn_id,
            &self.scramble,
            status::AUTOCOMMIT,
            auth::CACHING_SHA2_PLUGIN,
            self.server_caps(),
        );
        self.io.set_seq(0);
        self.io.write_packet(&hs)?;
        self.io.flush()?;
        Ok(connect_timeout)
    }

    /// Reads the client's HandshakeResponse (after [`Connection::send_greeting`]), authenticates
    /// it and opens the session. `Ok(false)` means the client was refused (the error was sent).
    pub fn finish_handshake(&mut self) -> io::Result<bool> {
        let payload = match self
            .io
            .read_packet(self.shared.max_allowed_packet.max(4096))
        {
            Ok(p) => p,
            Err(ReadError::TooLarge) => {
                self.send_packet_too_large()?;
                return Ok(false);
            }
            Err(ReadError::Closed) | Err(ReadError::OutOfOrder) => return Ok(false),
            Err(ReadError::Io(e)) => return Err(e),
        };
        let payload = if handshake::is_ssl_request(&payload) {
            match self.switch_to_tls()? {
                Some(p) => p,
                None => return Ok(false),
            }
        } else {
            payload
        };
        let resp = match handshake::parse_handshake_response(&payload) {
            Ok(r) if r.capabilities & caps::PROTOCOL_41 != 0 => r,
            _ => {
                self.send_error(codes::ER_HANDSHAKE_ERROR, "Bad handshake")?;
                return Ok(false);
            }
        };
        self.caps = resp.capabilities & self.server_caps();
        if !self.secure && self.backend.tuning().require_secure_transport {
            self.send_error(
                codes::ER_SECURE_TRANSPORT_REQUIRED,
                "Connections using insecure transport are prohibited while --require_secure_transport=ON.",
            )?;
            return Ok(false);
        }
        let ok = match self.authenticate(&resp, false)? {
            AuthOutcome::Ok
                if self.admin_only.is_some() && !self.backend.is_admin(&resp.user, &self.host) =>
            {
                if let Some(n) = &self.admin_only {
                    n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                self.send_error(codes::ER_CON_COUNT_ERROR, "Too many connections")?;
                false
            }
            AuthOutcome::Ok => self.open_session(&resp)?,
            AuthOutcome::Denied => false,
        };
        if ok {
            self.applied = None;
            self.apply_timeouts();
            self.io.set_read_ahead();
        }
        Ok(ok)
    }

    /// The capability flags this connection advertises: [`caps::SERVER`], plus `CLIENT_SSL`
    /// when TLS is configured and the connection is not TLS already.
    fn server_caps(&self) -> u32 {
        if self.shared.tls.is_some() {
            caps::SERVER | caps::SSL
        } else {
            caps::SERVER
        }
    }

    /// After an SSLRequest: runs the TLS handshake and reads the real HandshakeResponse over
    /// TLS. `Ok(None)` means the connection is to be closed (the reason is logged or sent).
    fn switch_to_tls(&mut self) -> io::Result<Option<Vec<u8>>> {
        let Some(config) = self.shared.tls.clone() else {
            self.send_error(
                codes::ER_HANDSHAKE_ERROR,
                "SSL connections are not enabled on this server",
            )?;
            return Ok(None);
        };
        if self.tls.is_some() {
            self.send_error(codes::ER_HANDSHAKE_ERROR, "Bad handshake")?;
            return Ok(None);
        }
        let counters = &self.shared.tls_counters;
        counters
            .accepts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        {
            let _net = common::wait::guard(common::wait::WaitType::Net);
            if let Err(e) = self.io.stream_mut().start_tls(&config) {
                tracing::debug!(conn = self.conn_id, "TLS handshake failed: {e}");
                return Ok(None);
            }
        }
        counters
            .finished_accepts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.tls = self.io.stream().tls_session();
        self.secure = true;
        match self
            .io
            .read_packet(self.shared.max_allowed_packet.max(4096))
        {
            Ok(p) if !handshake::is_ssl_request(&p) => Ok(Some(p)),
            Ok(_) => {
                self.send_error(codes::ER_HANDSHAKE_ERROR, "Bad handshake")?;
                Ok(None)
            }
            Err(ReadError::Io(e)) => Err(e),
            Err(_) => Ok(None),
        }
    }

    /// Opens the session after authentication and sends the final OK (or the error).
    fn open_session(&mut self, resp: &HandshakeResponse) -> io::Result<bool> {
        let info = ClientInfo {
            conn_id: self.conn_id,
            user: resp.user.clone(),
            host: self.host.clone(),
            db: resp.db.clone(),
            capabilities: self.caps,
            collation_id: resp.collation_id,
            attrs: resp.attrs.clone(),
            tls: self.tls.clone(),
        };
        match self.backend.open_session(info) {
            Ok(s) => {
                self.session = Some(s);
                self.multi_statements = self.caps & caps::MULTI_STATEMENTS != 0;
                let st = self.status();
                self.io.write_packet(&ok_packet(0, 0, st, 0, "", false))?;
                self.io.flush()?;
                Ok(true)
            }
            Err(e) => {
                self.io.write_packet(&error_packet(&e))?;
                self.io.flush()?;
                Ok(false)
            }
        }
    }

    fn send_error(&mut self, code: ErrorCode, msg: &str) -> io::Result<()> {
        self.io.write_packet(&err_packet(code, msg))?;
        self.io.flush()
    }

    fn deny(&mut self, user: &str, used_password: bool) -> io::Result<AuthOutcome> {
        let msg = format!(
            "Access denied for user '{}'@'{}' (using password: {})",
            user,
            self.host,
            if used_password { "YES" } else { "NO" }
        );
        self.send_error(codes::ER_ACCESS_DENIED_ERROR, &msg)?;
        Ok(AuthOutcome::Denied)
    }

    /// Reads one packet during authentication (the client's next auth message): a wait for the
    /// client, reported to the thread pool.
    fn read_auth_packet(&mut self) -> io::Result<Option<Vec<u8>>> {
        let _net = common::wait::guard(common::wait::WaitType::Net);
        match self
            .io
            .read_packet(self.shared.max_allowed_packet.max(4096))
        {
            Ok(p) => Ok(Some(p)),
            Err(ReadError::Io(e)) => Err(e),
            Err(_) => Ok(None),
        }
    }

    /// Authenticates `resp` against the backend's account. With `force_switch` (COM_CHANGE_USER)
    /// an AuthSwitchRequest with a fresh nonce is always sent, so the client's proof does not
    /// depend on the nonce of the original handshake.
    fn authenticate(
        &mut self,
        resp: &HandshakeResponse,
        force_switch: bool,
    ) -> io::Result<AuthOutcome> {
        let user = resp.user.clone();
        let mut response = resp.auth_response.clone();
        let used_password = !response.is_empty();
        let Some(account) = self.backend.lookup_account(&user, &self.host) else {
            return self.deny(&user, used_password);
        };
        let plugin = account.plugin;
        let plugin_auth = self.caps & caps::PLUGIN_AUTH != 0;
        let client_plugin = if resp.plugin.is_empty() {
            auth::NATIVE_PLUGIN
        } else {
            resp.plugin.as_str()
        };
        if plugin_auth && (force_switch || client_plugin != plugin.name()) {
            if force_switch {
                self.scramble = auth::new_scramble();
            }
            let sw = handshake::auth_switch_request(plugin.name(), &self.scramble);
            self.io.write_packet(&sw)?;
            self.io.flush()?;
            response = match self.read_auth_packet()? {
                Some(p) => p,
                None => return Ok(AuthOutcome::Denied),
            };
        } else if !plugin_auth && plugin != AuthPlugin::Native {
            // Pre-plugin clients can only do the native exchange.
            return self.deny(&user, used_password);
        }
        // Some clients send an empty password as a single NUL.
        if response == [0] {
            response.clear();
        }
        let verified = match plugin {
            _ if account.skip_auth => {
                if plugin == AuthPlugin::CachingSha2 && !response.is_empty() {
                    // the client waits for a fast-auth result before the OK
                    self.io.write_packet(&[0x01, 0x03])?;
                }
                true
            }
            AuthPlugin::Native => {
                auth::native_verify(&account.auth_string, &self.scramble, &response)
            }
            AuthPlugin::CachingSha2 => {
                if account.auth_string.is_empty() || response.is_empty() {
                    account.auth_string.is_empty() && response.is_empty()
                } else {
                    self.caching_sha2_exchange(
                        &account.user,
                        &account.host,
                        &account.auth_string,
                        &response,
                    )?
                }
            }
        };
        if !verified {
            return self.deny(&user, used_password || !response.is_empty());
        }
        if account.locked {
            let msg = format!(
                "Access denied for user '{}'@'{}'. Account is locked.",
                user, self.host
            );
            self.send_error(codes::ER_ACCOUNT_HAS_BEEN_LOCKED, &msg)?;
            return Ok(AuthOutcome::Denied);
        }
        // REQUIRE SSL / X509: MySQL refuses with the plain access-denied error
        let transport_ok = match account.require {
            SslRequirement::None => true,
            SslRequirement::Ssl => self.tls.is_some(),
            SslRequirement::X509 => self.tls.as_ref().is_some_and(|t| t.client_cert_verified),
        };
        if !transport_ok && !account.skip_auth {
            return self.deny(&user, true);
        }
        Ok(AuthOutcome::Ok)
    }

    /// The caching_sha2_password exchange after the client's 32-byte scramble: fast auth from the
    /// cache, else full authentication (cleartext over a secure transport, RSA otherwise).
    fn caching_sha2_exchange(
        &mut self,
        user: &str,
        host: &str,
        auth_string: &str,
        scramble: &[u8],
    ) -> io::Result<bool> {
        if let Some(stage2) = self.shared.auth_cache.get(user, host, auth_string) {
            if auth::caching_sha2_fast_verify(&stage2, &self.scramble, scramble) {
                self.io.write_packet(&[0x01, 0x03])?;
                return Ok(true);
            }
        }
        self.io.write_packet(&[0x01, 0x04])?;
        self.io.flush()?;
        let Some(mut pkt) = self.read_auth_packet()? else {
            return Ok(false);
        };
        let password = if pkt == [0x02] {
            let keys = match self.shared.rsa.get() {
                Ok(k) => k,
                Err(e) => {
                    tracing::error!("cannot load or create the RSA key pair: {e}");
                    return Ok(false);
                }
            };
            let mut p = Vec::with_capacity(keys.public_pem.len() + 1);
            p.push(0x01);
            p.extend_from_slice(keys.public_pem.as_bytes());
            self.io.write_packet(&p)?;
            self.io.flush()?;
            let Some(enc) = self.read_auth_packet()? else {
                return Ok(false);
            };
            match self.shared.rsa.decrypt_password(&enc, &self.scramble) {
                Some(pw) => pw,
                None => return Ok(false),
            }
        } else if self.secure {
            if pkt.last() == Some(&0) {
                pkt.pop();
            }
            pkt
        } else if pkt.len() >= 64 {
            // Encrypted with a public key the client already had.
            match self.shared.rsa.decrypt_password(&pkt, &self.scramble) {
                Some(pw) => pw,
                None => return Ok(false),
            }
        } else {
            // A cleartext password over an insecure transport is refused.
            return Ok(false);
        };
        if auth::verify_cleartext(AuthPlugin::CachingSha2, auth_string, &password) {
            self.shared
                .auth_cache
                .insert(user, host, auth_string, &password);
            Ok(true)
        } else {
            Ok(false)
        }
    }

    // ---------------------------------------------------------------- command phase

    /// Handles one command packet, buffering its responses (the caller flushes). Never panics
    /// on client input: malformed packets get ERR 1835 and [`Flow::Close`].
    pub fn handle_command(&mut self, payload: &[u8]) -> io::Result<Flow> {
        match self.dispatch(payload) {
            Ok(flow) => Ok(flow),
            Err(CmdError::Io(e)) => Err(e),
            Err(CmdError::Malformed) => {
                self.io.write_packet(&err_packet(
                    codes::ER_MALFORMED_PACKET,
                    "Malformed communication packet",
                ))?;
                Ok(Flow::Close)
            }
        }
    }

    fn dispatch(&mut self, payload: &[u8]) -> Result<Flow, CmdError> {
        let Some((&cmd, body)) = payload.split_first() else {
            return Err(CmdError::Malformed);
        };
        let (received, sent) = self.io.take_byte_counts();
        if let Some(s) = self.session.as_mut() {
            s.count_bytes(received, sent);
        }
        if self.session.is_none() {
            // Only reachable if a thread pool drives the connection before authentication.
            self.write_err(codes::ER_UNKNOWN_COM_ERROR, "Unknown command")?;
            return Ok(Flow::Close);
        }
        match cmd {
            com::QUIT => {
                self.session_mut()?.quit();
                return Ok(Flow::Close);
            }
            com::PING => self.write_ok_simple()?,
            com::QUERY => self.com_query(body)?,
            com::INIT_DB => {
                let db = String::from_utf8_lossy(body).into_owned();
                let r = self.session_mut()?.init_db(&db);
                self.reply_unit(r)?;
            }
            com::FIELD_LIST => self.com_field_list(body)?,
            com::STATISTICS => {
                let s = self.backend.statistics();
                self.io.write_packet(s.as_bytes())?;
            }
            com::PROCESS_KILL => {
                let id = Reader::new(body).u32()?;
                let r = self.session_mut()?.kill(id);
                self.reply_unit(r)?;
            }
            com::CHANGE_USER => return self.com_change_user(body),
            com::REGISTER_SLAVE => self.com_register_slave(body)?,
            com::BINLOG_DUMP => return self.com_binlog_dump(body, false),
            com::BINLOG_DUMP_GTID => return self.com_binlog_dump(body, true),
            com::RESET_CONNECTION => {
                self.close_all_statements();
                let r = self.session_mut()?.reset();
                self.reply_unit(r)?;
            }
            com::SET_OPTION => {
                let opt = Reader::new(body).u16()?;
                match opt {
                    0 => self.multi_statements = true,
                    1 => self.multi_statements = false,
                    _ => {
                        self.write_err(codes::ER_UNKNOWN_COM_ERROR, "Unknown command")?;
                        return Ok(Flow::Continue);
                    }
                }
                self.write_eof(0, self.status())?;
            }
            com::STMT_PREPARE => self.com_stmt_prepare(body)?,
            com::STMT_EXECUTE => self.com_stmt_execute(body)?,
            com::STMT_SEND_LONG_DATA => {
                let mut r = Reader::new(body);
                let id = r.u32()?;
                let param = r.u16()?;
                let data = r.rest();
                let max = self.max_packet();
                if let Some(st) = self.stmts.get_mut(&id) {
                    if (param as usize) < st.num_params {
                        let buf = st.long_data.entry(param).or_default();
                        if buf.len() + data.len() > max {
                            st.long_data_too_big = true;
                        } else {
                            buf.extend_from_slice(data);
                        }
                    }
                }
                // No reply, ever.
            }
            com::STMT_CLOSE => {
                let id = Reader::new(body).u32()?;
                if self.stmts.remove(&id).is_some() {
                    self.session_mut()?.close_statement(id);
                }
                // No reply.
            }
            com::STMT_RESET => {
                let id = Reader::new(body).u32()?;
                match self.stmts.get_mut(&id) {
                    Some(st) => {
                        st.long_data.clear();
                        st.long_data_too_big = false;
                        st.cursor = None;
                        self.write_ok_simple()?;
                    }
                    None => self.unknown_stmt(id)?,
                }
            }
            com::STMT_FETCH => self.com_stmt_fetch(body)?,
            _ => self.write_err(codes::ER_UNKNOWN_COM_ERROR, "Unknown command")?,
        }
        Ok(Flow::Continue)
    }

    fn session_mut(&mut self) -> io::Result<&mut B::Session> {
        // dispatch() checked that a session exists before calling any command handler.
        self.session
            .as_mut()
            .ok_or_else(|| io::Error::other("no session"))
    }

    fn write_err(&mut self, code: ErrorCode, msg: &str) -> io::Result<()> {
        self.io.write_packet(&err_packet(code, msg))
    }

    fn write_ok_simple(&mut self) -> io::Result<()> {
        let st = self.status();
        self.io.write_packet(&ok_packet(0, 0, st, 0, "", false))
    }

    fn reply_unit(&mut self, r: common::Result<()>) -> io::Result<()> {
        match r {
            Ok(()) => self.write_ok_simple(),
            Err(e) => self.io.write_packet(&error_packet(&e)),
        }
    }

    /// An EOF packet, or the OK with a 0xFE header that replaces it under CLIENT_DEPRECATE_EOF.
    fn write_eof(&mut self, warnings: u16, st: u16) -> io::Result<()> {
        if self.deprecate_eof() {
            self.io
                .write_packet(&ok_packet(0, 0, st, warnings, "", true))
        } else {
            self.io.write_packet(&eof_packet(warnings, st))
        }
    }

    /// A block of column definitions (the caller adds the EOF that may follow).
    fn write_columns(&mut self, cols: &[ColumnMeta], default_null: bool) -> io::Result<()> {
        for c in cols {
            self.io.write_packet(&column_definition(c, default_null))?;
        }
        Ok(())
    }

    /// 1243 for a statement id the connection does not know. MySQL 8.4 finds the statement of
    /// COM_STMT_EXECUTE / RESET / FETCH in `mysql_stmt_precheck` and names that function.
    fn unknown_stmt(&mut self, id: u32) -> io::Result<()> {
        self.write_err(
            codes::ER_UNKNOWN_STMT_HANDLER,
            &format!("Unknown prepared statement handler ({id}) given to mysql_stmt_precheck"),
        )
    }

    fn write_ok_info(&mut self, ok: &OkInfo, st: u16) -> io::Result<()> {
        self.io.write_packet(&ok_packet(
            ok.affected_rows,
            ok.last_insert_id,
            st,
            ok.warnings,
            &ok.info,
            false,
        ))
    }

    /// A complete result set (text or binary rows); `more` sets SERVER_MORE_RESULTS_EXISTS.
    fn write_result_set(&mut self, rs: &ResultSet, binary: bool, st: u16) -> io::Result<()> {
        let mut count = Vec::with_capacity(9);
        crate::packet::put_lenenc_int(&mut count, rs.columns.len() as u64);
        self.io.write_packet(&count)?;
        self.write_columns(&rs.columns, false)?;
        if !self.deprecate_eof() {
            self.io.write_packet(&eof_packet(0, st))?;
        }
        // One buffer for every row: each is encoded into it, then copied into the packet
        // buffer (a per-row vector and a copy of every string value cost ~2 % of a range read).
        let mut p = Vec::new();
        for row in &rs.rows {
            p.clear();
            if binary {
                put_binary_row(&mut p, &rs.columns, row);
            } else {
                put_text_row(&mut p, &rs.columns, row);
            }
            self.io.write_packet(&p)?;
        }
        self.write_eof(rs.warnings, st)
    }

    fn write_query_result(&mut self, r: &QueryResult, binary: bool, st: u16) -> io::Result<()> {
        match r {
            QueryResult::Ok(ok) => self.write_ok_info(ok, st),
            // A result set without columns cannot be encoded as one; answer OK.
            QueryResult::Rows(rs) if rs.columns.is_empty() => self.write_ok_info(
                &OkInfo {
                    warnings: rs.warnings,
                    ..Default::default()
                },
                st,
            ),
            QueryResult::Rows(rs) => self.write_result_set(rs, binary, st),
            // the columns and rows went out while the statement ran; only the end is left
            QueryResult::RowsSent { warnings } => self.write_eof(*warnings, st),
        }
    }

    fn com_query(&mut self, sql: &[u8]) -> io::Result<()> {
        let multi = self.multi_statements;
        let (local, max_packet, deprecate_eof) = (
            self.caps & caps::LOCAL_FILES != 0,
            self.max_packet(),
            self.deprecate_eof(),
        );
        let mut files = ClientFiles::new(&mut self.io, local, max_packet, deprecate_eof, false);
        let session = self
            .session
            .as_mut()
            .ok_or_else(|| io::Error::other("no session"))?;
        let results = session.query_bytes_with_files(sql, multi, &mut files);
        if results.is_empty() {
            return self.write_err(codes::ER_EMPTY_QUERY, "Query was empty");
        }
        let st = self.status();
        let n = results.len();
        for (i, r) in results.iter().enumerate() {
            let more = if i + 1 < n {
                status::MORE_RESULTS_EXISTS
            } else {
                0
            };
            match r {
                Ok(qr) => self.write_query_result(qr, false, st | more)?,
                Err(e) => {
                    self.io.write_packet(&error_packet(e))?;
                    break;
                }
            }
        }
        Ok(())
    }

    fn com_field_list(&mut self, body: &[u8]) -> Result<(), CmdError> {
        let mut r = Reader::new(body);
        let table = String::from_utf8_lossy(r.nul_bytes_or_rest()).into_owned();
        let wildcard = String::from_utf8_lossy(r.rest()).into_owned();
        match self.session_mut()?.field_list(&table, &wildcard) {
            Ok(cols) => {
                self.write_columns(&cols, true)?;
                let st = self.status();
                self.write_eof(0, st)?;
            }
            Err(e) => self.io.write_packet(&error_packet(&e))?,
        }
        Ok(())
    }

    fn close_all_statements(&mut self) {
        let ids: Vec<u32> = self.stmts.keys().copied().collect();
        self.stmts.clear();
        if let Some(s) = self.session.as_mut() {
            for id in ids {
                s.close_statement(id);
            }
        }
    }

    fn com_change_user(&mut self, body: &[u8]) -> Result<Flow, CmdError> {
        let resp = handshake::parse_change_user(body, self.caps)?;
        match self.authenticate(&resp, true)? {
            AuthOutcome::Denied => return Ok(Flow::Close),
            AuthOutcome::Ok => {}
        }
        self.close_all_statements();
        self.session = None;
        let mut resp = resp;
        if resp.collation_id == 0 {
            resp.collation_id = handshake::DEFAULT_COLLATION_ID as u16;
        }
        if self.open_session(&resp)? {
            Ok(Flow::Continue)
        } else {
            Ok(Flow::Close)
        }
    }

    fn com_stmt_prepare(&mut self, body: &[u8]) -> io::Result<()> {
        let sql = String::from_utf8_lossy(body).into_owned();
        let info = match self.session_mut()?.prepare(&sql) {
            Ok(i) => i,
            Err(e) => return self.io.write_packet(&error_packet(&e)),
        };
        let mut p = Vec::with_capacity(12);
        p.push(0x00);
        p.extend_from_slice(&info.stmt_id.to_le_bytes());
        p.extend_from_slice(&(info.columns.len().min(u16::MAX as usize) as u16).to_le_bytes());
        p.extend_from_slice(&(info.params.len().min(u16::MAX as usize) as u16).to_le_bytes());
        p.push(0);
        p.extend_from_slice(&0u16.to_le_bytes());
        self.io.write_packet(&p)?;
        let st = self.status();
        if !info.params.is_empty() {
            let params: Vec<ColumnMeta> = info
                .params
                .iter()
                .map(|c| {
                    if *c == ColumnMeta::default() {
                        param_placeholder()
                    } else {
                        c.clone()
                    }
                })
                .collect();
            self.write_columns(&params, false)?;
            if !self.deprecate_eof() {
                self.io.write_packet(&eof_packet(0, st))?;
            }
        }
        if !info.columns.is_empty() {
            self.write_columns(&info.columns, false)?;
            if !self.deprecate_eof() {
                self.io.write_packet(&eof_packet(0, st))?;
            }
        }
        self.stmts.insert(
            info.stmt_id,
            Stmt {
                num_params: info.params.len(),
                types: None,
                long_data: std::collections::HashMap::new(),
                long_data_too_big: false,
                cursor: None,
            },
        );
        Ok(())
    }

    fn com_stmt_execute(&mut self, body: &[u8]) -> Result<(), CmdError> {
        let mut r = Reader::new(body);
        let id = r.u32()?;
        let Some(st) = self.stmts.get_mut(&id) else {
            self.unknown_stmt(id)?;
            return Ok(());
        };
        // a new execution closes the statement's cursor, whatever it asks for
        st.cursor = None;
        let decoded = decode_execute(&mut r, st.num_params, &mut st.types, &st.long_data);
        st.long_data.clear();
        let too_big = std::mem::take(&mut st.long_data_too_big);
        let req = decoded?;
        if too_big {
            self.write_err(
                codes::ER_NET_PACKET_TOO_LARGE,
                "Parameter of prepared statement which is set through mysql_send_long_data() is longer than 'max_allowed_packet' bytes",
            )?;
            return Ok(());
        }
        if req.flags & CURSOR_TYPE_READ_ONLY != 0 {
            return Ok(self.execute_to_cursor(id, req.params)?);
        }
        let (max_packet, deprecate_eof) = (self.max_packet(), self.deprecate_eof());
        let mut client = ClientFiles::new(&mut self.io, false, max_packet, deprecate_eof, true);
        let session = self
            .session
            .as_mut()
            .ok_or_else(|| io::Error::other("no session"))?;
        let result = session.execute_for(id, req.params, &mut client);
        let st = self.status();
        match result {
            Ok(qr) => self.write_query_result(&qr, true, st)?,
            Err(e) => self.io.write_packet(&error_packet(&e))?,
        }
        Ok(())
    }
}

impl<B: Backend, S: Transport> Connection<B, S> {
    /// COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY: the result is materialised into a
    /// [`CursorWriter`] (rows the session streams go there as they are produced, a result it
    /// returns whole is written there too) and only the column count and definitions are sent,
    /// ended by one EOF (an OK with a 0xFE header under CLIENT_DEPRECATE_EOF) that carries
    /// SERVER_STATUS_CURSOR_EXISTS. That is MySQL's reply: `Materialized_cursor` sends the
    /// metadata without an EOF of its own, then `open` sets CURSOR_EXISTS and calls `send_eof`.
    /// An empty result opens a cursor too. A statement without a result set answers as usual;
    /// one that fails answers its error and leaves no cursor.
    fn execute_to_cursor(&mut self, id: u32, params: Vec<Value>) -> io::Result<()> {
        let session = self
            .session
            .as_mut()
            .ok_or_else(|| io::Error::other("no session"))?;
        let mut writer = match CursorWriter::new(session.tmpdir().as_deref()) {
            Ok(w) => w,
            Err(e) => return self.io.write_packet(&error_packet(&e)),
        };
        let result = session.execute_for(id, params, &mut writer);
        let st = self.status();
        let warnings = match result {
            Err(e) => return self.io.write_packet(&error_packet(&e)),
            Ok(QueryResult::Rows(rs)) if !rs.columns.is_empty() => {
                writer.set_columns(rs.columns);
                for row in rs.rows {
                    if let Err(e) = common::client::RowSink::row(&mut writer, &row) {
                        return self.io.write_packet(&error_packet(&e));
                    }
                }
                rs.warnings
            }
            Ok(QueryResult::RowsSent { warnings }) if !writer.columns().is_empty() => warnings,
            // no columns: no result set to open a cursor on (answered OK)
            Ok(QueryResult::RowsSent { warnings }) => {
                let empty = ResultSet {
                    warnings,
                    ..Default::default()
                };
                return self.write_query_result(&QueryResult::Rows(empty), true, st);
            }
            Ok(other) => return self.write_query_result(&other, true, st),
        };
        let (columns, cursor) = match writer.finish() {
            Ok(c) => c,
            Err(e) => return self.io.write_packet(&error_packet(&e)),
        };
        let mut count = Vec::with_capacity(9);
        crate::packet::put_lenenc_int(&mut count, columns.len() as u64);
        self.io.write_packet(&count)?;
        self.write_columns(&columns, false)?;
        self.write_eof(warnings, st | status::CURSOR_EXISTS)?;
        if let Some(stmt) = self.stmts.get_mut(&id) {
            stmt.cursor = Some(cursor);
        }
        Ok(())
    }

    /// COM_STMT_FETCH (statement id, number of rows): the next rows of the statement's cursor,
    /// then an EOF (an OK with a 0xFE header under CLIENT_DEPRECATE_EOF). As in MySQL
    /// (`Materialized_cursor::fetch`), that EOF says SERVER_STATUS_CURSOR_EXISTS when as many
    /// rows as asked were sent, and SERVER_STATUS_LAST_ROW_SENT, the cursor being closed, when
    /// the rows ran out first: a fetch that takes exactly the last rows is followed by one that
    /// sends no row. Without an open cursor: 1421.
    fn com_stmt_fetch(&mut self, body: &[u8]) -> Result<(), CmdError> {
        let mut r = Reader::new(body);
        let id = r.u32()?;
        let num_rows = r.u32()?;
        let st = self.status();
        let Some(stmt) = self.stmts.get_mut(&id) else {
            self.unknown_stmt(id)?;
            return Ok(());
        };
        let Some(cursor) = stmt.cursor.as_mut() else {
            self.write_err(
                ER_STMT_HAS_NO_OPEN_CURSOR,
                &format!("The statement ({id}) has no open cursor."),
            )?;
            return Ok(());
        };
        let mut sent = 0;
        while sent < num_rows {
            match cursor.next_row() {
                Ok(Some(row)) => self.io.write_packet(row)?,
                Ok(None) => break,
                Err(e) => {
                    stmt.cursor = None;
                    self.io.write_packet(&error_packet(&e))?;
                    return Ok(());
                }
            }
            sent += 1;
        }
        if sent < num_rows {
            stmt.cursor = None;
            self.write_eof(0, st | status::LAST_ROW_SENT)?;
        } else {
            self.write_eof(0, st | status::CURSOR_EXISTS)?;
        }
        Ok(())
    }
}

/// Errors inside a command handler.
enum CmdError {
    Io(io::Error),
    Malformed,
}

impl From<io::Error> for CmdError {
    fn from(e: io::Error) -> Self {
        CmdError::Io(e)
    }
}

impl From<Malformed> for CmdError {
    fn from(_: Malformed) -> Self {
        CmdError::Malformed
    }
}

/// Sends `e` as an ERR packet with sequence id 0 and no SQLSTATE marker: errors sent in place of
/// the handshake (1040 Too many connections), before the client negotiated anything.
pub fn send_pre_handshake_error<S: Write>(stream: &mut S, e: &Error) -> io::Result<()> {
    let payload = crate::response::err_packet_pre41(e.code, &e.msg);
    let n = payload.len();
    let mut p = vec![n as u8, (n >> 8) as u8, (n >> 16) as u8, 0];
    p.extend_from_slice(&payload);
    stream.write_all(&p)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::{Account, PreparedInfo};
    use crate::packet::put_lenenc_bytes;
    use common::Value;

    struct B;
    struct S;

    impl Backend for B {
        type Session = S;
        fn lookup_account(&self, user: &str, _host: &str) -> Option<Account> {
            (user == "root").then(|| Account {
                user: "root".into(),
                host: "%".into(),
                plugin: AuthPlugin::Native,
                auth_string: String::new(),
                locked: false,
                skip_auth: false,
                require: SslRequirement::None,
            })
        }
        fn open_session(&self, _info: ClientInfo) -> common::Result<S> {
            Ok(S)
        }
        fn statistics(&self) -> String {
            "stats".into()
        }
        fn connection_closed(&self, _conn_id: u32) {}
    }

    impl Session for S {
        fn query(&mut self, _sql: &str, _multi: bool) -> Vec<common::Result<QueryResult>> {
            vec![Ok(QueryResult::Ok(OkInfo::default()))]
        }
        fn prepare(&mut self, _sql: &str) -> common::Result<PreparedInfo> {
            Ok(PreparedInfo {
                stmt_id: 1,
                params: vec![ColumnMeta::default(); 2],
                columns: vec![],
            })
        }
        fn execute(&mut self, _id: u32, params: Vec<Value>) -> common::Result<QueryResult> {
            Ok(QueryResult::Ok(OkInfo {
                affected_rows: params.len() as u64,
                ..Default::default()
            }))
        }
        fn close_statement(&mut self, _id: u32) {}
        fn init_db(&mut self, _db: &str) -> common::Result<()> {
            Ok(())
        }
        fn field_list(&mut self, _t: &str, _w: &str) -> common::Result<Vec<ColumnMeta>> {
            Ok(vec![])
        }
        fn reset(&mut self) -> common::Result<()> {
            Ok(())
        }
        fn status_flags(&self) -> u16 {
            status::AUTOCOMMIT
        }
        fn max_allowed_packet(&self) -> usize {
            1 << 16
        }
        fn kill(&mut self, _id: u32) -> common::Result<()> {
            Ok(())
        }
    }

    /// Starts a connection on a socket pair and logs in as root; returns the client side.
    fn connect() -> (PacketIo<UnixStream>, std::thread::JoinHandle<()>) {
        let (a, b) = UnixStream::pair().unwrap();
        a.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let shared = Arc::new(Shared {
            server_version: "8.4.7-Strata".into(),
            max_allowed_packet: 1 << 16,
            auth_cache: AuthCache::new(),
            rsa: RsaKeys::new(std::env::temp_dir().join("strata-unused-keys")),
            tls: None,
            tls_counters: Default::default(),
        });
        let t = std::thread::spawn(move || {
            Connection::new(Arc::new(B), shared, b, 1, "localhost".into(), true).run()
        });
        let mut io = PacketIo::new(a);
        let hs = io.read_packet(1 << 16).unwrap();
        assert_eq!(hs[0], 10);
        let mut p =
            (caps::SERVER & !caps::CONNECT_WITH_DB & !caps::CONNECT_ATTRS & !caps::DEPRECATE_EOF)
                .to_le_bytes()
                .to_vec();
        p.extend_from_slice(&[0, 0, 0, 1, 255]);
        p.extend_from_slice(&[0; 23]);
        p.extend_from_slice(b"root\0");
        put_lenenc_bytes(&mut p, b"");
        p.extend_from_slice(b"mysql_native_password\0");
        io.write_packet(&p).unwrap();
        io.flush().unwrap();
        assert_eq!(io.read_packet(1 << 16).unwrap()[0], 0x00);
        (io, t)
    }

    fn command(io: &mut PacketIo<UnixStream>, p: &[u8]) -> Option<Vec<u8>> {
        io.set_seq(0);
        io.write_packet(p).ok()?;
        io.flush().ok()?;
        io.read_packet(1 << 20).ok()
    }

    fn execute_packet() -> Vec<u8> {
        let mut p = vec![com::STMT_EXECUTE, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0b10, 1];
        p.extend_from_slice(&[0x03, 0, 0x06, 0]);
        p.extend_from_slice(&5i32.to_le_bytes());
        p
    }

    #[test]
    fn execute_ok_and_every_truncation_is_malformed() {
        let (mut io, _t) = connect();
        let prep = command(&mut io, &[com::STMT_PREPARE, b'x']).unwrap();
        assert_eq!(prep[0], 0);
        // Two parameter definitions and their EOF follow.
        for _ in 0..3 {
            io.read_packet(1 << 16).unwrap();
        }
        let ok = command(&mut io, &execute_packet()).unwrap();
        assert_eq!(&ok[..2], &[0x00, 2]);
        let full = execute_packet();
        for n in 1..full.len() {
            let (mut io, t) = connect();
            command(&mut io, &[com::STMT_PREPARE, b'x']).unwrap();
            for _ in 0..3 {
                io.read_packet(1 << 16).unwrap();
            }
            let e = command(&mut io, &full[..n]).unwrap();
            assert_eq!(&e[..3], &[0xFF, 0x2B, 0x07], "prefix {n}: 1835");
            assert!(io.read_packet(1 << 16).is_err(), "closed after prefix {n}");
            t.join().unwrap();
        }
    }

    #[test]
    fn garbage_commands_never_panic() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..40 {
            let (mut io, t) = connect();
            for _ in 0..5 {
                let len = rng.gen_range(0..24);
                let mut p: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                if let Some(first) = p.first_mut() {
                    // Mostly real commands, with random bodies.
                    const CMDS: [u8; 14] = [
                        2, 3, 4, 0x0C, 0x11, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1F, 0x63,
                    ];
                    *first = CMDS[rng.gen_range(0..CMDS.len())];
                }
                io.set_seq(0);
                if io.write_packet(&p).and_then(|_| io.flush()).is_err() {
                    break;
                }
                // Commands without a reply (STMT_CLOSE, SEND_LONG_DATA) or a closed connection are
                // fine; a short timeout keeps this moving.
                io.stream()
                    .set_read_timeout(Some(Duration::from_millis(50)))
                    .unwrap();
                let _ = io.read_packet(1 << 20);
            }
            drop(io);
            assert!(t.join().is_ok(), "the connection thread panicked");
        }
    }
}
