//! Listening sockets: binds TCP (and optionally a unix socket) with the configured `back_log`,
//! accepts connections in background threads and hands each to the thread pool
//! ([`ThreadHandling::PoolOfThreads`], the default) or to its own OS thread.
//!
//! [`start`] binds everything before returning, so a caller can report "address in use" as one
//! clean error; accepting happens afterwards in background threads that do nothing but accept,
//! admit and hand off (no handshake, no waiting). `max_connections` connections are admitted,
//! plus one more that only an administrator may use; beyond that a connection gets ERR 1040 at
//! once instead of the handshake.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::auth::{AuthCache, RsaKeys};
use crate::backend::Backend;
use crate::conn::{send_pre_handshake_error, Connection, Shared, Transport};
use crate::pool::{Pool, PoolConfig, PoolSnapshot};
use crate::tls;

/// How connections are mapped to threads (`thread_handling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThreadHandling {
    /// `pool-of-threads`: thread groups, statements queued by priority, idle connections
    /// watched by one poller per group (see [`crate::pool`]).
    #[default]
    PoolOfThreads,
    /// `one-thread-per-connection`: every connection gets its own OS thread.
    OneThreadPerConnection,
}

impl ThreadHandling {
    /// The system variable value.
    pub fn name(self) -> &'static str {
        match self {
            ThreadHandling::PoolOfThreads => "pool-of-threads",
            ThreadHandling::OneThreadPerConnection => "one-thread-per-connection",
        }
    }

    /// Parses a `thread_handling` value (`-` or `_`, any case).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "pool-of-threads" => Some(ThreadHandling::PoolOfThreads),
            "one-thread-per-connection" => Some(ThreadHandling::OneThreadPerConnection),
            _ => None,
        }
    }
}

/// Where and how to listen.
#[derive(Debug, Clone)]
pub struct ListenerConfig {
    /// Address to bind TCP to (`0.0.0.0`, `127.0.0.1`, `::`, a host name).
    pub bind_address: String,
    /// TCP port (0 = any free port; see [`ServerHandle::local_addr`]).
    pub port: u16,
    /// Unix socket path, if any.
    pub socket: Option<PathBuf>,
    /// Connections allowed at once; one more is admitted for an administrator
    /// ([`Backend::is_admin`]); further ones get ERR 1040.
    pub max_connections: usize,
    /// Version string of the handshake, e.g. `8.4.7-Strata`.
    pub server_version: String,
    /// Directory of `private_key.pem` / `public_key.pem` (created on first need).
    pub key_dir: PathBuf,
    /// max_allowed_packet used before a session exists (handshake, authentication).
    pub max_allowed_packet: usize,
    /// `back_log`: the listen queue length (the kernel caps it at `net.core.somaxconn`).
    pub back_log: u32,
    /// One thread per connection or the thread pool.
    pub thread_handling: ThreadHandling,
    /// Thread pool sizing (used with [`ThreadHandling::PoolOfThreads`]).
    pub pool: PoolConfig,
    /// TLS configuration; `None` = TLS disabled (`CLIENT_SSL` not advertised).
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

impl Default for ListenerConfig {
    fn default() -> Self {
        ListenerConfig {
            bind_address: "127.0.0.1".into(),
            port: 0,
            socket: None,
            max_connections: 151,
            server_version: "8.4.7-Strata".into(),
            key_dir: std::env::temp_dir(),
            max_allowed_packet: 64 << 20,
            back_log: DEFAULT_BACK_LOG,
            thread_handling: ThreadHandling::default(),
            pool: PoolConfig::default(),
            tls: None,
        }
    }
}

/// The default listen backlog: sized for connection storms (reference §3.1: ≥ 2 s of connects at
/// the peak rate; more is pointless because clients retry their SYN after 3 s).
pub const DEFAULT_BACK_LOG: u32 = 4096;

/// A client socket: TCP or unix, possibly switched to TLS after the client's SSLRequest.
#[derive(Debug)]
pub enum Socket {
    /// A TCP connection.
    Tcp(TcpStream),
    /// A unix-socket connection.
    Unix(UnixStream),
    /// TLS over one of the above (the file descriptor stays the same, so the thread pool's
    /// registration with its poller stays valid).
    Tls(Box<tls::TlsStream<Socket>>),
    /// Only inside [`Transport::start_tls`], while the plain socket is moved into the TLS
    /// stream; never observable outside it.
    Detached,
}

fn detached() -> io::Error {
    io::Error::new(io::ErrorKind::NotConnected, "socket detached")
}

impl Socket {
    fn try_clone(&self) -> io::Result<Socket> {
        Ok(match self {
            Socket::Tcp(s) => Socket::Tcp(s.try_clone()?),
            Socket::Unix(s) => Socket::Unix(s.try_clone()?),
            Socket::Tls(t) => t.sock.try_clone()?,
            Socket::Detached => return Err(detached()),
        })
    }

    /// Switches non-blocking mode on or off.
    pub(crate) fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        match self {
            Socket::Tcp(s) => s.set_nonblocking(on),
            Socket::Unix(s) => s.set_nonblocking(on),
            Socket::Tls(t) => t.sock.set_nonblocking(on),
            Socket::Detached => Err(detached()),
        }
    }
}

impl Read for Socket {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Socket::Tcp(s) => s.read(buf),
            Socket::Unix(s) => s.read(buf),
            Socket::Tls(t) => t.read(buf),
            Socket::Detached => Err(detached()),
        }
    }
}

impl Write for Socket {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Socket::Tcp(s) => s.write(buf),
            Socket::Unix(s) => s.write(buf),
            Socket::Tls(t) => t.write(buf),
            Socket::Detached => Err(detached()),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Socket::Tcp(s) => s.flush(),
            Socket::Unix(s) => s.flush(),
            Socket::Tls(t) => t.flush(),
            Socket::Detached => Err(detached()),
        }
    }
}

impl Transport for Socket {
    fn set_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Socket::Tcp(s) => s.set_read_timeout(t),
            Socket::Unix(s) => s.set_read_timeout(t),
            Socket::Tls(s) => s.sock.set_timeout(t),
            Socket::Detached => Err(detached()),
        }
    }
    fn set_write_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Socket::Tcp(s) => s.set_write_timeout(t),
            Socket::Unix(s) => s.set_write_timeout(t),
            Socket::Tls(s) => s.sock.set_write_timeout(t),
            Socket::Detached => Err(detached()),
        }
    }
    fn wait_readable(&self, timeout: Option<Duration>) -> io::Result<bool> {
        match self {
            Socket::Tls(s) => s.sock.wait_readable(timeout),
            Socket::Detached => Err(detached()),
            _ => crate::conn::poll_readable(self, timeout),
        }
    }
    fn close(&self) {
        match self {
            Socket::Tcp(s) => Transport::close(s),
            Socket::Unix(s) => Transport::close(s),
            Socket::Tls(s) => s.sock.close(),
            Socket::Detached => {}
        }
    }
    fn start_tls(&mut self, config: &Arc<rustls::ServerConfig>) -> io::Result<()> {
        let plain = std::mem::replace(self, Socket::Detached);
        match tls::accept(config, plain) {
            Ok(s) => {
                *self = Socket::Tls(Box::new(s));
                Ok(())
            }
            Err((plain, e)) => {
                *self = plain;
                Err(e)
            }
        }
    }
    fn tls_session(&self) -> Option<tls::TlsSession> {
        match self {
            Socket::Tls(s) => Some(tls::session(s)),
            _ => None,
        }
    }
    fn has_buffered_input(&mut self) -> bool {
        match self {
            Socket::Tls(s) => tls::has_buffered_input(s),
            _ => false,
        }
    }
    fn retryable_timeouts(&self) -> bool {
        matches!(self, Socket::Tcp(_) | Socket::Unix(_))
    }
}

impl AsFd for Socket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Socket::Tcp(s) => s.as_fd(),
            Socket::Unix(s) => s.as_fd(),
            Socket::Tls(s) => s.sock.as_fd(),
            // `start_tls` puts the socket back before it returns, on success or failure
            Socket::Detached => unreachable!("a socket is detached only inside start_tls"),
        }
    }
}

impl AsRawFd for Socket {
    fn as_raw_fd(&self) -> RawFd {
        self.as_fd().as_raw_fd()
    }
}

type PoolView = Weak<dyn Fn() -> PoolSnapshot + Send + Sync>;

/// Stops the thread pool at shutdown.
type StopFn = Box<dyn Fn() + Send + Sync>;

/// The live connections of a listener: connection ids, counts, a way to close one, and the
/// connection-handling counters (threads created, refusals, the thread pool's state).
pub struct ConnectionRegistry {
    next_id: AtomicU32,
    conns: Mutex<HashMap<u32, Socket>>,
    /// Number of admitted connections (handshaking or with a session).
    active: Mutex<usize>,
    idle: Condvar,
    threads_created: AtomicU64,
    refused: Arc<AtomicU64>,
    max_used: AtomicU64,
    pool_view: OnceLock<PoolView>,
    tls_counters: Arc<tls::TlsCounters>,
}

/// What the registry counts (status variables).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConnectionCounters {
    /// Connections open now (admitted, including those still authenticating).
    pub open: u64,
    /// Threads created to handle connections (pool workers or per-connection threads).
    pub threads_created: u64,
    /// Connections refused because of max_connections (Connection_errors_max_connections).
    pub refused_max_connections: u64,
    /// The most connections open at once.
    pub max_used: u64,
    /// TLS handshakes begun (`Ssl_accepts`).
    pub ssl_accepts: u64,
    /// TLS handshakes completed (`Ssl_finished_accepts`).
    pub ssl_finished_accepts: u64,
}

/// How a new connection is admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Admission {
    Normal,
    /// The one extra connection over max_connections: administrators only.
    AdminOnly,
    Refused,
}

impl ConnectionRegistry {
    fn new() -> Self {
        ConnectionRegistry {
            next_id: AtomicU32::new(1),
            conns: Mutex::new(HashMap::new()),
            active: Mutex::new(0),
            idle: Condvar::new(),
            threads_created: AtomicU64::new(0),
            refused: Arc::new(AtomicU64::new(0)),
            max_used: AtomicU64::new(0),
            pool_view: OnceLock::new(),
            tls_counters: Arc::default(),
        }
    }

    fn next_id(&self) -> u32 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        if id == 0 {
            // Wrapped around: 0 is never a valid id.
            return self.next_id.fetch_add(1, Ordering::Relaxed);
        }
        id
    }

    fn admit(&self, max_connections: usize) -> Admission {
        let mut n = self.active.lock();
        if *n > max_connections {
            self.refused.fetch_add(1, Ordering::Relaxed);
            return Admission::Refused;
        }
        *n += 1;
        self.max_used.fetch_max(*n as u64, Ordering::Relaxed);
        if *n > max_connections {
            Admission::AdminOnly
        } else {
            Admission::Normal
        }
    }

    pub(crate) fn thread_created(&self) {
        self.threads_created.fetch_add(1, Ordering::Relaxed);
    }

    /// Number of connections currently open.
    pub fn count(&self) -> usize {
        *self.active.lock()
    }

    /// The connection-handling counters.
    pub fn counters(&self) -> ConnectionCounters {
        ConnectionCounters {
            open: self.count() as u64,
            threads_created: self.threads_created.load(Ordering::Relaxed),
            refused_max_connections: self.refused.load(Ordering::Relaxed),
            max_used: self.max_used.load(Ordering::Relaxed),
            ssl_accepts: self.tls_counters.accepts.load(Ordering::Relaxed),
            ssl_finished_accepts: self.tls_counters.finished_accepts.load(Ordering::Relaxed),
        }
    }

    /// The thread pool's current state (None with one thread per connection).
    pub fn pool_snapshot(&self) -> Option<PoolSnapshot> {
        let view = self.pool_view.get()?.upgrade()?;
        Some(view())
    }

    /// Closes connection `conn_id`'s socket (its thread ends at its next read or write; a pooled
    /// idle connection is woken by the EOF). Returns false if no such connection is open.
    pub fn kill(&self, conn_id: u32) -> bool {
        match self.conns.lock().get(&conn_id) {
            Some(c) => {
                c.close();
                true
            }
            None => false,
        }
    }

    fn close_all(&self) {
        for c in self.conns.lock().values() {
            c.close();
        }
    }

    /// Waits until no connection is open, at most `timeout`. Returns true if none is.
    fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut n = self.active.lock();
        while *n > 0 {
            if self.idle.wait_until(&mut n, deadline).timed_out() {
                return *n == 0;
            }
        }
        true
    }
}

/// Decrements the open count, unregisters the connection and tells the backend when a
/// connection ends (also on panic).
pub(crate) struct ActiveGuard<B: Backend> {
    registry: Arc<ConnectionRegistry>,
    backend: Arc<B>,
    conn_id: u32,
}

impl<B: Backend> Drop for ActiveGuard<B> {
    fn drop(&mut self) {
        self.registry.conns.lock().remove(&self.conn_id);
        self.backend.connection_closed(self.conn_id);
        let mut n = self.registry.active.lock();
        *n = n.saturating_sub(1);
        if *n == 0 {
            self.registry.idle.notify_all();
        }
    }
}

/// A running server: its address, and the means to stop it.
pub struct ServerHandle {
    local_addr: SocketAddr,
    socket: Option<PathBuf>,
    stop: Arc<AtomicBool>,
    registry: Arc<ConnectionRegistry>,
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    stop_pool: Option<StopFn>,
}

impl ServerHandle {
    /// The bound TCP address (the real port when `port` was 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The unix socket path, if one is bound.
    pub fn socket_path(&self) -> Option<&Path> {
        self.socket.as_deref()
    }

    /// The live connections (count, closing one for KILL, counters, the pool's state).
    pub fn registry(&self) -> Arc<ConnectionRegistry> {
        self.registry.clone()
    }

    /// The caching_sha2_password fast-auth cache (to clear on FLUSH PRIVILEGES / DROP USER).
    pub fn auth_cache(&self) -> &AuthCache {
        &self.shared.auth_cache
    }

    /// Blocks until the accept loops end (after [`ServerHandle::shutdown`]).
    pub fn wait(&self) {
        let threads: Vec<_> = std::mem::take(&mut *self.threads.lock());
        for t in threads {
            let _ = t.join();
        }
    }

    /// Stops accepting, closes every connection, waits (up to 5 s) for the connections to
    /// finish, stops the thread pool and removes the unix socket file. Idempotent.
    pub fn shutdown(&self) {
        if self.stop.swap(true, Ordering::SeqCst) {
            self.wait();
            return;
        }
        // Wake the accept loops with a connection of our own.
        let wake_ip = match self.local_addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
            ip => ip,
        };
        let _ = TcpStream::connect_timeout(
            &SocketAddr::new(wake_ip, self.local_addr.port()),
            Duration::from_secs(1),
        );
        if let Some(p) = &self.socket {
            let _ = UnixStream::connect(p);
        }
        self.wait();
        self.registry.close_all();
        if !self.registry.wait_idle(Duration::from_secs(5)) {
            tracing::warn!(
                "{} connections still running at shutdown",
                self.registry.count()
            );
        }
        if let Some(stop) = &self.stop_pool {
            stop();
        }
        if let Some(p) = &self.socket {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Where accepted connections go.
enum Handler<B: Backend> {
    Threads,
    Pool(Arc<Pool<B>>),
}

/// Everything the accept loops need: admission, connection ids, hand-off. Never blocks on
/// anything but a short mutex.
struct Acceptor<B: Backend> {
    registry: Arc<ConnectionRegistry>,
    shared: Arc<Shared>,
    backend: Arc<B>,
    max_connections: usize,
    handler: Handler<B>,
}

impl<B: Backend> Acceptor<B> {
    fn accept(&self, sock: Socket, host: String, secure: bool) {
        let admission = self.registry.admit(self.max_connections);
        if admission == Admission::Refused {
            // Answer without waiting: a short packet into an empty socket buffer.
            let mut sock = sock;
            let _ = sock.set_nonblocking(true);
            let e = common::Error::new(common::codes::ER_CON_COUNT_ERROR, "Too many connections");
            let _ = send_pre_handshake_error(&mut sock, &e);
            sock.close();
            return;
        }
        let conn_id = self.registry.next_id();
        if let Ok(c) = sock.try_clone() {
            self.registry.conns.lock().insert(conn_id, c);
        }
        let guard = ActiveGuard {
            registry: self.registry.clone(),
            backend: self.backend.clone(),
            conn_id,
        };
        let mut conn = Connection::new(
            self.backend.clone(),
            self.shared.clone(),
            sock,
            conn_id,
            host,
            secure,
        );
        if admission == Admission::AdminOnly {
            conn.set_admin_only(self.registry.refused.clone());
        }
        match &self.handler {
            Handler::Pool(pool) => pool.add(conn, guard),
            Handler::Threads => {
                let spawned = std::thread::Builder::new()
                    .name(format!("conn-{conn_id}"))
                    // room for deeply nested statements (parser, binder and evaluator recurse)
                    .stack_size(8 << 20)
                    .spawn(move || {
                        let _guard = guard;
                        conn.run();
                    });
                match spawned {
                    Ok(_) => self.registry.thread_created(),
                    // The closure (and with it the guard) was dropped, which undid the
                    // registration.
                    Err(e) => tracing::error!("cannot spawn a connection thread: {e}"),
                }
            }
        }
    }
}

/// Binds a TCP listener with `back_log` as the listen queue length.
fn bind_tcp(addr: &str, port: u16, back_log: u32) -> io::Result<TcpListener> {
    use socket2::{Domain, Protocol, Socket as RawSocket, Type};
    use std::net::ToSocketAddrs;
    let mut last = None;
    for sa in (addr, port).to_socket_addrs()? {
        let bind = || -> io::Result<TcpListener> {
            let s = RawSocket::new(Domain::for_address(sa), Type::STREAM, Some(Protocol::TCP))?;
            s.set_reuse_address(true)?;
            if sa.is_ipv6() {
                let _ = s.set_only_v6(false);
            }
            s.bind(&sa.into())?;
            s.listen(back_log.clamp(1, i32::MAX as u32) as i32)?;
            Ok(s.into())
        };
        match bind() {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no address to bind")))
}

/// Binds the configured sockets and starts accepting connections for `backend`.
pub fn start<B: Backend>(cfg: ListenerConfig, backend: Arc<B>) -> io::Result<ServerHandle> {
    let tcp = bind_tcp(&cfg.bind_address, cfg.port, cfg.back_log)?;
    let local_addr = tcp.local_addr()?;
    let unix = match &cfg.socket {
        Some(path) => Some(bind_unix(path, cfg.back_log)?),
        None => None,
    };
    let registry = Arc::new(ConnectionRegistry::new());
    let shared = Arc::new(Shared {
        server_version: cfg.server_version.clone(),
        max_allowed_packet: cfg.max_allowed_packet,
        auth_cache: AuthCache::new(),
        rsa: RsaKeys::new(cfg.key_dir.clone()),
        tls: cfg.tls.clone(),
        tls_counters: registry.tls_counters.clone(),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let (handler, stop_pool): (Handler<B>, Option<StopFn>) = match cfg.thread_handling {
        ThreadHandling::OneThreadPerConnection => (Handler::Threads, None),
        ThreadHandling::PoolOfThreads => {
            let pool = Pool::start(cfg.pool.clone(), backend.clone(), registry.clone())?;
            let view: Arc<dyn Fn() -> PoolSnapshot + Send + Sync> = {
                let pool = Arc::downgrade(&pool);
                Arc::new(move || pool.upgrade().map(|p| p.snapshot()).unwrap_or_default())
            };
            let _ = registry.pool_view.set(Arc::downgrade(&view));
            let stopper = pool.clone();
            // `view` lives as long as the handle's stop closure (the registry holds it weakly).
            let stop_pool: StopFn = Box::new(move || {
                let _keep = &view;
                stopper.stop();
            });
            (Handler::Pool(pool), Some(stop_pool))
        }
    };
    let acceptor = Arc::new(Acceptor {
        registry: registry.clone(),
        shared: shared.clone(),
        backend,
        max_connections: cfg.max_connections,
        handler,
    });
    let mut threads = Vec::new();
    {
        let (stop, acceptor) = (stop.clone(), acceptor.clone());
        threads.push(
            std::thread::Builder::new()
                .name("accept-tcp".into())
                .spawn(move || loop {
                    let accepted = tcp.accept();
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    match accepted {
                        Ok((s, peer)) => {
                            let _ = s.set_nodelay(true);
                            acceptor.accept(Socket::Tcp(s), peer_host(peer.ip()), false);
                        }
                        Err(e) => accept_error(e),
                    }
                })?,
        );
    }
    if let Some(ul) = unix {
        let (stop, acceptor) = (stop.clone(), acceptor.clone());
        threads.push(
            std::thread::Builder::new()
                .name("accept-unix".into())
                .spawn(move || loop {
                    let accepted = ul.accept();
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    match accepted {
                        Ok((s, _)) => acceptor.accept(Socket::Unix(s), "localhost".into(), true),
                        Err(e) => accept_error(e),
                    }
                })?,
        );
    }
    Ok(ServerHandle {
        local_addr,
        socket: cfg.socket.clone(),
        stop,
        registry,
        shared,
        threads: Mutex::new(threads),
        stop_pool,
    })
}

fn accept_error(e: io::Error) {
    tracing::warn!("accept failed: {e}");
    // Out of file descriptors and the like: don't spin.
    std::thread::sleep(Duration::from_millis(20));
}

/// Raises the soft limit on open files (RLIMIT_NOFILE) to the hard limit, so thousands of
/// connections (each a socket, plus its registry duplicate) fit. Returns the new soft limit.
pub fn raise_fd_limit() -> io::Result<u64> {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut lim = getrlimit(Resource::Nofile);
    if lim.current != lim.maximum {
        lim.current = lim.maximum;
        setrlimit(Resource::Nofile, lim)?;
    }
    Ok(getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX))
}

/// The host name a TCP client connects from: its IP (IPv4-mapped IPv6 shown as IPv4).
fn peer_host(ip: IpAddr) -> String {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.to_string(),
        },
        IpAddr::V4(v4) => v4.to_string(),
    }
}

/// Binds a unix socket, replacing a stale socket file but refusing one a live server answers on.
fn bind_unix(path: &Path, back_log: u32) -> io::Result<UnixListener> {
    use socket2::{Domain, SockAddr, Socket as RawSocket, Type};
    if path.exists() {
        if UnixStream::connect(path).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("another server is already listening on {}", path.display()),
            ));
        }
        std::fs::remove_file(path)?;
    }
    let s = RawSocket::new(Domain::UNIX, Type::STREAM, None)?;
    s.bind(&SockAddr::unix(path)?)?;
    s.listen(back_log.clamp(1, i32::MAX as u32) as i32)?;
    let l: UnixListener = s.into();
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777));
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_hosts() {
        assert_eq!(peer_host("127.0.0.1".parse().unwrap()), "127.0.0.1");
        assert_eq!(peer_host("::ffff:10.1.2.3".parse().unwrap()), "10.1.2.3");
        assert_eq!(peer_host("::1".parse().unwrap()), "::1");
    }

    #[test]
    fn registry_ids_and_idle() {
        let r = ConnectionRegistry::new();
        assert_eq!(r.next_id(), 1);
        assert_eq!(r.next_id(), 2);
        assert!(r.wait_idle(Duration::from_millis(1)));
        assert!(!r.kill(1));
    }

    #[test]
    fn stale_unix_socket_replaced_live_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.sock");
        let l = bind_unix(&path, 16).unwrap();
        let err = bind_unix(&path, 16).err().map(|e| e.kind());
        assert_eq!(err, Some(io::ErrorKind::AddrInUse));
        drop(l);
        assert!(path.exists(), "stale file left behind");
        assert!(bind_unix(&path, 16).is_ok());
    }
}
