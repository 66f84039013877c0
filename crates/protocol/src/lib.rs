//! The MySQL client/server protocol for Strata (server side).
//!
//! * [`packet`]: framing (3-byte length + sequence id, 16 MiB splitting), length-encoded values,
//!   a buffered packet reader/writer.
//! * [`handshake`]: capability flags, Initial Handshake v10, HandshakeResponse41, AuthSwitch.
//! * [`auth`]: `mysql_native_password` and `caching_sha2_password` (fast auth cache, full auth
//!   in clear over unix sockets or RSA-OAEP over TCP), [`auth::hash_password`] for stored
//!   credentials.
//! * [`backend`]: the contract the server implements — [`Backend`] and [`Session`].
//! * [`response`] and [`binary`]: OK/ERR/EOF, column definitions, text and binary rows,
//!   COM_STMT_EXECUTE parameter decoding.
//! * [`conn`]: one connection — handshake, authentication, the command dispatcher; the
//!   replication commands (COM_REGISTER_SLAVE, COM_BINLOG_DUMP / _GTID, whose dump then runs
//!   on a thread of its own, see [`conn::Flow::Detach`]).
//! * [`cursor`]: server-side cursors — COM_STMT_EXECUTE with `CURSOR_TYPE_READ_ONLY`
//!   materialises the result into an unnamed temporary file of encoded binary rows, which
//!   COM_STMT_FETCH sends on in chunks (memory independent of the result's size).
//! * [`listener`]: TCP and unix-socket listeners (`back_log`), connection ids, `max_connections`
//!   plus one administrator connection, and the choice of [`ThreadHandling`].
//! * [`pool`]: the thread pool — thread groups with an epoll listener each, high/low priority
//!   queues, kick-ups, stall detection, wait callbacks (`common::wait`); its INFORMATION_SCHEMA
//!   snapshots.
//!
//! * [`tls`]: TLS after the client's SSLRequest (rustls), the server certificate (given or
//!   generated into the data directory), `Ssl_*` facts of a connection.
//!
//! Compression is not supported (and not advertised). `LOAD DATA LOCAL INFILE` is: [`conn::ClientFiles`] sends the LOCAL INFILE request and streams the client's file to the
//! SQL layer through `common::client::Client`.
//!
//! ```no_run
//! # fn demo<B: protocol::Backend>(backend: std::sync::Arc<B>) -> std::io::Result<()> {
//! let cfg = protocol::ListenerConfig {
//!     bind_address: "127.0.0.1".into(),
//!     port: 3306,
//!     max_connections: 151,
//!     key_dir: "/var/lib/strata".into(),
//!     thread_handling: protocol::ThreadHandling::PoolOfThreads,
//!     ..Default::default()
//! };
//! let server = protocol::start(cfg, backend)?;
//! server.wait();
//! # Ok(()) }
//! ```

pub mod auth;
pub mod backend;
pub mod binary;
pub mod conn;
pub mod cursor;
pub mod handshake;
pub mod listener;
pub mod packet;
pub mod pool;
pub mod response;
pub mod tls;

pub use auth::hash_password;
pub use backend::*;
pub use listener::{
    raise_fd_limit, start, ConnectionCounters, ConnectionRegistry, ListenerConfig, ServerHandle,
    ThreadHandling, DEFAULT_BACK_LOG,
};
pub use pool::{GroupSnapshot, GroupStats, PoolConfig, PoolSnapshot, ThreadSnapshot};
