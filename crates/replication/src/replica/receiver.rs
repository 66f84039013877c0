//! The receiver (MySQL's IO thread): connects to the source, asks for every transaction not
//! yet executed or queued here (COM_BINLOG_DUMP_GTID), and queues each whole transaction for
//! the applier. A lost connection is retried every SOURCE_CONNECT_RETRY seconds, up to
//! SOURCE_RETRY_COUNT attempts (0: forever); the source refusing the dump (1236 …) stops it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use binlog::{decode_event, Event};

use super::client::{Client, ClientError, ConnectParams};
use super::config::SourceConfig;
use super::queue::QueuedTrx;
use super::status::{now_secs, IoRunning, ThreadError};
use super::{ReplicaSetup, Shared};

/// How often the source sends a heartbeat when it has nothing to send.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// A connection silent this long (several heartbeats) is taken as lost.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The receiver thread's state.
pub struct Receiver {
    /// The source.
    pub cfg: SourceConfig,
    /// The server's side.
    pub setup: ReplicaSetup,
    /// Shared with the applier and the statements.
    pub shared: Arc<Shared>,
    /// Set by STOP REPLICA.
    pub stop: Arc<AtomicBool>,
}

/// Why a connection ended.
enum End {
    /// Stopped by STOP REPLICA.
    Stopped,
    /// Lost: reconnect.
    Lost(ClientError),
    /// Refused by the source: the receiver stops.
    Fatal(ClientError),
}

impl Receiver {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    fn set_state(&self, io: IoRunning, text: &str) {
        let mut st = self.shared.state.lock();
        st.io = io;
        st.io_state = text.to_string();
    }

    /// Runs until stopped or given up.
    pub fn run(self) {
        let mut attempts: u64 = 0;
        let mut state = "Connecting to source";
        loop {
            if self.stopped() {
                break;
            }
            self.set_state(IoRunning::Connecting, state);
            attempts += 1;
            let end = match self.connect() {
                Ok(client) => {
                    attempts = 0;
                    self.stream(client)
                }
                Err(e) => {
                    let retry = self.cfg.retry_count;
                    let msg = format!(
                        "Error connecting to source '{}@{}:{}'. This was attempt {attempts}/{retry}, with a delay of {} seconds between attempts. Message: {}",
                        self.cfg.user, self.cfg.host, self.cfg.port, self.cfg.connect_retry, e.msg
                    );
                    self.shared.state.lock().io_error = ThreadError::now(u32::from(e.code), msg);
                    if retry != 0 && attempts >= retry {
                        break;
                    }
                    self.sleep_retry();
                    continue;
                }
            };
            match end {
                End::Stopped => break,
                End::Fatal(e) => {
                    let msg = format!(
                        "Got fatal error {} from source when reading data from binary log: '{}'",
                        e.code, e.msg
                    );
                    self.shared.state.lock().io_error = ThreadError::now(13114, msg);
                    break;
                }
                End::Lost(e) => {
                    tracing::warn!(error = %e.msg, "replica: connection to the source lost");
                    state = "Reconnecting after a failed source event read";
                    // reconnect at once the first time, then every SOURCE_CONNECT_RETRY
                }
            }
        }
        *self.shared.socket.lock() = None;
        self.set_state(IoRunning::No, "");
    }

    fn sleep_retry(&self) {
        let until =
            std::time::Instant::now() + Duration::from_secs(u64::from(self.cfg.connect_retry));
        while std::time::Instant::now() < until && !self.stopped() {
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Connects, learns the source's identity and clock, and starts the dump.
    fn connect(&self) -> Result<Client, ClientError> {
        let mut c = Client::connect(&ConnectParams {
            host: self.cfg.host.clone(),
            port: self.cfg.port,
            user: self.cfg.user.clone(),
            password: self.cfg.password.clone(),
            get_public_key: self.cfg.get_public_key,
            timeout: Duration::from_secs(30),
        })?;
        let rows = c.query("SELECT UNIX_TIMESTAMP(), @@server_id, @@server_uuid")?;
        let row = rows.first().cloned().unwrap_or_default();
        let num = |i: usize| {
            row.get(i)
                .cloned()
                .flatten()
                .and_then(|s| s.split('.').next().and_then(|n| n.parse::<i64>().ok()))
        };
        let source_uuid = row.get(2).cloned().flatten().unwrap_or_default();
        if source_uuid == self.setup.server_uuid.to_string() {
            return Err(ClientError {
                code: 13117,
                msg: "The replica I/O thread stops because source and replica have equal MySQL server UUIDs; these UUIDs must be different for replication to work.".into(),
            });
        }
        {
            let mut st = self.shared.state.lock();
            st.clock_diff = num(0).map_or(0, |t| t - now_secs() as i64);
            st.source_server_id = num(1).unwrap_or(0) as u32;
            st.source_uuid = source_uuid;
        }
        c.query(&format!(
            "SET @source_binlog_checksum = 'CRC32', @source_heartbeat_period = {}, @replica_uuid = '{}'",
            HEARTBEAT.as_nanos(),
            self.setup.server_uuid
        ))?;
        c.register(self.setup.server_id, self.setup.report_port)?;
        let mut from = (self.setup.gtid_executed)().unwrap_or_default();
        from.union_with(&self.shared.queue.gtids());
        c.dump_gtid(self.setup.server_id, &from)?;
        c.set_read_timeout(READ_TIMEOUT)?;
        *self.shared.socket.lock() = c.socket_handle();
        self.shared.state.lock().io_error = ThreadError::default();
        self.set_state(IoRunning::Yes, "Waiting for source to send event");
        Ok(c)
    }

    /// Reads events and queues transactions until the connection ends.
    fn stream(&self, mut c: Client) -> End {
        let mut cur: Option<QueuedTrx> = None;
        let mut began = false;
        loop {
            if self.stopped() {
                return End::Stopped;
            }
            let bytes = match c.read_event() {
                Ok(Some(b)) => b,
                Ok(None) => {
                    return End::Lost(ClientError {
                        code: 2013,
                        msg: "the source ended the binlog stream".into(),
                    })
                }
                Err(e) if self.stopped() => {
                    let _ = e;
                    return End::Stopped;
                }
                Err(e) if e.code < 2000 || e.code >= 3000 => return End::Fatal(e),
                Err(e) => return End::Lost(e),
            };
            let ev = match decode_event(&bytes, true) {
                Ok(ev) => ev,
                Err(e) => {
                    return End::Fatal(ClientError {
                        code: 13122,
                        msg: format!(
                            "Relay log write failure: could not queue event from source: {e}"
                        ),
                    })
                }
            };
            let h = ev.header;
            {
                let mut st = self.shared.state.lock();
                if let Event::Rotate(r) = &ev.event {
                    st.source_log_file = r.next_file.clone();
                    st.read_pos = r.position;
                } else if h.log_pos != 0 {
                    st.read_pos = u64::from(h.log_pos);
                }
            }
            let mut complete = false;
            match ev.event {
                Event::Gtid(g) => {
                    let secs = if g.immediate_commit_timestamp != 0 {
                        g.immediate_commit_timestamp / 1_000_000
                    } else {
                        u64::from(h.timestamp)
                    };
                    cur = Some(QueuedTrx {
                        uuid: g.uuid,
                        gno: g.gno,
                        original_micros: g.original_commit_timestamp,
                        commit_secs: secs,
                        events: Vec::new(),
                        end_file: String::new(),
                        end_pos: 0,
                        bytes: bytes.len() as u64,
                    });
                    began = false;
                    continue;
                }
                Event::AnonymousGtid(_) => {
                    return End::Fatal(ClientError {
                        code: 1782,
                        msg: "Cannot replicate anonymous transaction when AUTO_POSITION = 1".into(),
                    })
                }
                Event::Query(ref q) => {
                    let text = q.query_text();
                    if text.eq_ignore_ascii_case("BEGIN") {
                        began = true;
                    } else if text.eq_ignore_ascii_case("COMMIT") || !began {
                        complete = true;
                    }
                }
                Event::Xid(_) => complete = true,
                Event::TableMap(_) | Event::Rows(_) => {}
                _ => continue,
            }
            let Some(t) = cur.as_mut() else { continue };
            t.bytes += bytes.len() as u64;
            t.events.push(ev.event);
            if complete {
                let mut t = cur.take().expect("a transaction");
                t.end_file = self.shared.state.lock().source_log_file.clone();
                t.end_pos = u64::from(h.log_pos);
                let (uuid, gno) = (t.uuid, t.gno);
                if !self.shared.queue.push(t, &self.stop) {
                    return End::Stopped;
                }
                self.shared.state.lock().retrieved.add(uuid, gno);
            }
        }
    }
}
