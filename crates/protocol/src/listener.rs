//! Listening sockets: binds TCP (and optionally a unix socket), accepts connections in background
//! threads and runs each connection on its own OS thread.
//!
//! [`start`] binds everything before returning, so a caller can report "address in use" as one
//! clean error; accepting happens afterwards in background threads that do nothing but accept
//! and hand off. Connections beyond `max_connections` get ERR 1040 instead of the handshake.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::auth::{AuthCache, RsaKeys};
use crate::backend::Backend;
use crate::conn::{send_pre_handshake_error, Connection, Shared, Transport};

/// Where and how to listen.
#[derive(Debug, Clone)]
pub struct ListenerConfig {
    /// Address to bind TCP to (`0.0.0.0`, `127.0.0.1`, `::`, a host name).
    pub bind_address: String,
    /// TCP port (0 = any free port; see [`ServerHandle::local_addr`]).
    pub port: u16,
    /// Unix socket path, if any.
    pub socket: Option<PathBuf>,
    /// Connections allowed at once; further ones get ERR 1040.
    pub max_connections: usize,
    /// Version string of the handshake, e.g. `8.0.36-Strata`.
    pub server_version: String,
    /// Directory of `private_key.pem` / `public_key.pem` (created on first need).
    pub key_dir: PathBuf,
    /// max_allowed_packet used before a session exists (handshake, authentication).
    pub max_allowed_packet: usize,
}

/// A socket of a live connection, kept so it can be closed from outside.
enum Closer {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Closer {
    fn close(&self) {
        match self {
            Closer::Tcp(s) => s.close(),
            Closer::Unix(s) => s.close(),
        }
    }
}

/// The live connections of a listener: connection ids, counts, and a way to close one.
pub struct ConnectionRegistry {
    next_id: AtomicU32,
    conns: Mutex<HashMap<u32, Closer>>,
    /// Number of connection threads running (including refused ones being answered).
    active: Mutex<usize>,
    idle: Condvar,
}

impl ConnectionRegistry {
    fn new() -> Self {
        ConnectionRegistry {
            next_id: AtomicU32::new(1),
            conns: Mutex::new(HashMap::new()),
            active: Mutex::new(0),
            idle: Condvar::new(),
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

    /// Number of connections currently open.
    pub fn count(&self) -> usize {
        *self.active.lock()
    }

    /// Closes connection `conn_id`'s socket (its thread ends at its next read or write).
    /// Returns false if no such connection is open.
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

/// Decrements the active count and unregisters the connection when its thread ends (also on
/// panic).
struct ActiveGuard<B: Backend> {
    registry: Arc<ConnectionRegistry>,
    backend: Option<Arc<B>>,
    conn_id: u32,
}

impl<B: Backend> Drop for ActiveGuard<B> {
    fn drop(&mut self) {
        self.registry.conns.lock().remove(&self.conn_id);
        if let Some(b) = &self.backend {
            b.connection_closed(self.conn_id);
        }
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

    /// The live connections (count, closing one for KILL).
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

    /// Stops accepting, closes every connection, waits (up to 5 s) for the connection threads
    /// to finish and removes the unix socket file. Idempotent.
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
        if let Some(p) = &self.socket {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Binds the configured sockets and starts accepting connections for `backend`.
pub fn start<B: Backend>(cfg: ListenerConfig, backend: Arc<B>) -> io::Result<ServerHandle> {
    let tcp = TcpListener::bind((cfg.bind_address.as_str(), cfg.port))?;
    let local_addr = tcp.local_addr()?;
    let unix = match &cfg.socket {
        Some(path) => Some(bind_unix(path)?),
        None => None,
    };
    let shared = Arc::new(Shared {
        server_version: cfg.server_version.clone(),
        max_allowed_packet: cfg.max_allowed_packet,
        auth_cache: AuthCache::new(),
        rsa: RsaKeys::new(cfg.key_dir.clone()),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let registry = Arc::new(ConnectionRegistry::new());
    let max_conn = cfg.max_connections;
    let mut threads = Vec::new();
    {
        let (stop, registry, shared, backend) = (
            stop.clone(),
            registry.clone(),
            shared.clone(),
            backend.clone(),
        );
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
                            let host = peer_host(peer.ip());
                            let closer = s.try_clone().ok().map(Closer::Tcp);
                            spawn_conn(
                                &registry, &shared, &backend, max_conn, s, closer, host, false,
                            );
                        }
                        Err(e) => accept_error(e),
                    }
                })?,
        );
    }
    if let Some(ul) = unix {
        let (stop, registry, shared, backend) = (
            stop.clone(),
            registry.clone(),
            shared.clone(),
            backend.clone(),
        );
        threads.push(
            std::thread::Builder::new()
                .name("accept-unix".into())
                .spawn(move || loop {
                    let accepted = ul.accept();
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    match accepted {
                        Ok((s, _)) => {
                            let closer = s.try_clone().ok().map(Closer::Unix);
                            spawn_conn(
                                &registry,
                                &shared,
                                &backend,
                                max_conn,
                                s,
                                closer,
                                "localhost".into(),
                                true,
                            );
                        }
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
    })
}

fn accept_error(e: io::Error) {
    tracing::warn!("accept failed: {e}");
    // Out of file descriptors and the like: don't spin.
    std::thread::sleep(Duration::from_millis(20));
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
fn bind_unix(path: &Path) -> io::Result<UnixListener> {
    if path.exists() {
        if UnixStream::connect(path).is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("another server is already listening on {}", path.display()),
            ));
        }
        std::fs::remove_file(path)?;
    }
    let l = UnixListener::bind(path)?;
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777));
    }
    Ok(l)
}

#[allow(clippy::too_many_arguments)]
fn spawn_conn<B: Backend, S: Transport + 'static>(
    registry: &Arc<ConnectionRegistry>,
    shared: &Arc<Shared>,
    backend: &Arc<B>,
    max_connections: usize,
    stream: S,
    closer: Option<Closer>,
    host: String,
    secure: bool,
) {
    let conn_id = registry.next_id();
    let over_limit = {
        let mut n = registry.active.lock();
        let over = *n >= max_connections;
        *n += 1;
        over
    };
    if let Some(c) = closer {
        registry.conns.lock().insert(conn_id, c);
    }
    let guard = ActiveGuard {
        registry: registry.clone(),
        backend: (!over_limit).then(|| backend.clone()),
        conn_id,
    };
    let (shared, backend) = (shared.clone(), backend.clone());
    let spawned = std::thread::Builder::new()
        .name(format!("conn-{conn_id}"))
        // room for deeply nested statements (parser, binder and evaluator recurse)
        .stack_size(8 << 20)
        .spawn(move || {
            let _guard = guard;
            let mut stream = stream;
            if over_limit {
                let _ = stream.set_timeout(Some(Duration::from_secs(5)));
                let e =
                    common::Error::new(common::codes::ER_CON_COUNT_ERROR, "Too many connections");
                let _ = send_pre_handshake_error(&mut stream, &e);
                stream.close();
                return;
            }
            Connection::new(backend, shared, stream, conn_id, host, secure).run();
        });
    if let Err(e) = spawned {
        // The closure (and with it the guard) was dropped, which undid the registration.
        tracing::error!("cannot spawn a connection thread: {e}");
    }
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
        let l = bind_unix(&path).unwrap();
        let err = bind_unix(&path).err().map(|e| e.kind());
        assert_eq!(err, Some(io::ErrorKind::AddrInUse));
        drop(l);
        assert!(path.exists(), "stale file left behind");
        assert!(bind_unix(&path).is_ok());
    }
}
