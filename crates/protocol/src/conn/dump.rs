//! The replication commands of a connection: COM_REGISTER_SLAVE, and COM_BINLOG_DUMP /
//! COM_BINLOG_DUMP_GTID, whose dump then runs on a thread of its own
//! ([`Connection::run_detached`]) until the replica goes; the connection closes after it.

use std::io;
use std::time::Duration;

use common::codes;

use super::{CmdError, Connection, Flow, Transport};
use crate::backend::{Backend, BinlogDumpRequest, DumpStep, ReplicaRegistration, Session};
use crate::packet::{Malformed, Reader};
use crate::response::{eof_packet, error_packet, ok_packet};

/// BINLOG_THROUGH_GTID: COM_BINLOG_DUMP_GTID carries a GTID set.
const BINLOG_THROUGH_GTID: u16 = 0x4;

/// How long a dump waits for news before it looks at the client's socket again.
const DUMP_POLL: Duration = Duration::from_secs(1);

/// A string with a one-byte length.
fn short_str(r: &mut Reader<'_>) -> Result<String, Malformed> {
    let n = r.u8()? as usize;
    Ok(String::from_utf8_lossy(r.bytes(n)?).into_owned())
}

/// COM_REGISTER_SLAVE's body: server id, host, user, password, port, rank, source id.
fn parse_register(body: &[u8]) -> Result<ReplicaRegistration, Malformed> {
    let mut r = Reader::new(body);
    let server_id = r.u32()?;
    let host = short_str(&mut r)?;
    let user = short_str(&mut r)?;
    let password = short_str(&mut r)?;
    let port = r.u16()?;
    let _rank = r.u32()?;
    let source_id = r.u32()?;
    Ok(ReplicaRegistration {
        server_id,
        host,
        user,
        password,
        port,
        source_id,
    })
}

/// COM_BINLOG_DUMP's body: position (4 bytes), flags, server id, file name to the end.
fn parse_dump(body: &[u8]) -> Result<BinlogDumpRequest, Malformed> {
    let mut r = Reader::new(body);
    let pos = u64::from(r.u32()?);
    let flags = r.u16()?;
    let server_id = r.u32()?;
    let file = String::from_utf8_lossy(r.rest()).into_owned();
    Ok(BinlogDumpRequest {
        server_id,
        flags,
        file,
        pos,
        gtid_set: None,
    })
}

/// COM_BINLOG_DUMP_GTID's body: flags, server id, file name (4-byte length), position
/// (8 bytes), then with BINLOG_THROUGH_GTID the GTID set (4-byte length, binary form).
fn parse_dump_gtid(body: &[u8]) -> Result<BinlogDumpRequest, Malformed> {
    let mut r = Reader::new(body);
    let flags = r.u16()?;
    let server_id = r.u32()?;
    let name_len = r.u32()? as usize;
    let name = r.bytes(name_len)?;
    // the name may be sent zero-filled rather than empty
    let file = String::from_utf8_lossy(name)
        .trim_end_matches('\0')
        .to_string();
    let pos = r.u64()?;
    let gtid_set = if flags & BINLOG_THROUGH_GTID != 0 {
        let n = r.u32()? as usize;
        Some(r.bytes(n)?.to_vec())
    } else {
        Some(Vec::new())
    };
    Ok(BinlogDumpRequest {
        server_id,
        flags,
        file,
        pos,
        gtid_set,
    })
}

impl<B: Backend, S: Transport> Connection<B, S> {
    /// COM_REGISTER_SLAVE: OK, or the session's error (1227 without REPLICATION SLAVE).
    pub(super) fn com_register_slave(&mut self, body: &[u8]) -> Result<(), CmdError> {
        let Ok(reg) = parse_register(body) else {
            self.write_err(
                codes::ER_UNKNOWN_ERROR,
                "Wrong parameters to function register_slave",
            )?;
            return Ok(());
        };
        let r = self.session_mut()?.register_replica(reg);
        self.reply_unit(r)?;
        Ok(())
    }

    /// COM_BINLOG_DUMP (`gtid` false) / COM_BINLOG_DUMP_GTID: on success the dump is kept and
    /// [`Flow::Detach`] asks the caller to run it on a thread of its own; on an error the ERR
    /// is sent and the connection closes, as MySQL ends a connection after a dump.
    pub(super) fn com_binlog_dump(&mut self, body: &[u8], gtid: bool) -> Result<Flow, CmdError> {
        let req = if gtid {
            parse_dump_gtid(body)?
        } else {
            parse_dump(body)?
        };
        match self.session_mut()?.binlog_dump(req) {
            Ok(stream) => {
                self.dump = Some(stream);
                Ok(Flow::Detach)
            }
            Err(e) => {
                self.io.write_packet(&error_packet(&e))?;
                Ok(Flow::Close)
            }
        }
    }

    /// Runs the dump a command left ([`Flow::Detach`]) until it ends, fails, or the client
    /// goes (a closed socket, or any byte from it); the caller then closes the connection.
    /// Blocks the calling thread for as long as the replica stays connected.
    pub fn run_detached(&mut self) {
        let Some(mut stream) = self.dump.take() else {
            return;
        };
        let r = self.pump(stream.as_mut());
        if let Err(e) = r.and_then(|()| self.io.flush()) {
            tracing::debug!(conn = self.conn_id, "binlog dump ended: {e}");
        }
    }

    fn pump(&mut self, stream: &mut dyn crate::backend::BinlogStream) -> io::Result<()> {
        let mut packet = Vec::new();
        loop {
            let step = match stream.next(DUMP_POLL) {
                Ok(s) => s,
                Err(e) => return self.io.write_packet(&error_packet(&e)),
            };
            match step {
                DumpStep::Event(ev) => {
                    packet.clear();
                    packet.push(0);
                    packet.extend_from_slice(&ev);
                    self.io.write_packet(&packet)?;
                    if !stream.has_pending() {
                        self.io.flush()?;
                    }
                }
                DumpStep::Idle => {
                    self.io.flush()?;
                    // a replica sends nothing while it reads the stream: readable means gone
                    if self.has_buffered_input()
                        || self
                            .io
                            .stream()
                            .wait_readable(Some(Duration::ZERO))
                            .unwrap_or(true)
                    {
                        return Ok(());
                    }
                }
                DumpStep::End => {
                    let st = self.status();
                    return if self.deprecate_eof() {
                        self.io.write_packet(&ok_packet(0, 0, st, 0, "", true))
                    } else {
                        self.io.write_packet(&eof_packet(0, st))
                    };
                }
                DumpStep::Stopped => return Ok(()),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_decode_as_clients_send_them() {
        // python-mysql-replication's COM_REGISTER_SLAVE
        let mut b = 7u32.to_le_bytes().to_vec();
        for s in ["host", "u", ""] {
            b.push(s.len() as u8);
            b.extend_from_slice(s.as_bytes());
        }
        b.extend_from_slice(&3307u16.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&0u32.to_le_bytes());
        let r = parse_register(&b).unwrap();
        assert_eq!((r.server_id, r.host.as_str(), r.port), (7, "host", 3307));
        assert!(parse_register(&b[..b.len() - 1]).is_err());
        // COM_BINLOG_DUMP
        let mut d = 120u32.to_le_bytes().to_vec();
        d.extend_from_slice(&1u16.to_le_bytes());
        d.extend_from_slice(&9u32.to_le_bytes());
        d.extend_from_slice(b"binlog.000002");
        let r = parse_dump(&d).unwrap();
        assert_eq!((r.pos, r.flags, r.server_id), (120, 1, 9));
        assert_eq!((r.file.as_str(), r.gtid_set), ("binlog.000002", None));
        // COM_BINLOG_DUMP_GTID with a zero-filled name and a set
        let mut g = 4u16.to_le_bytes().to_vec();
        g.extend_from_slice(&9u32.to_le_bytes());
        g.extend_from_slice(&3u32.to_le_bytes());
        g.extend_from_slice(&[0, 0, 0]);
        g.extend_from_slice(&4u64.to_le_bytes());
        g.extend_from_slice(&8u32.to_le_bytes());
        g.extend_from_slice(&0u64.to_le_bytes());
        let r = parse_dump_gtid(&g).unwrap();
        assert_eq!((r.file.as_str(), r.pos), ("", 4));
        assert_eq!(r.gtid_set, Some(vec![0; 8]));
        assert!(parse_dump_gtid(&g[..g.len() - 2]).is_err());
    }
}
