//! The replica's connection to its source: a minimal MySQL client (handshake with
//! `mysql_native_password` or `caching_sha2_password`, text queries, COM_REGISTER_SLAVE,
//! COM_BINLOG_DUMP_GTID and the event stream).
//!
//! Written here rather than taken from the `mysql` crate: the receiver needs each event's raw
//! bytes (decoded with the `binlog` crate, which the applier shares with the source side),
//! while `mysql`'s binlog stream hands out its own parsed events; and the handful of packets
//! needed is less code than adapting them, with no new dependencies (`sha1`, `sha2`, `rsa`
//! are the workspace's). This crate must not depend on `protocol` (which depends on it).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use binlog::GtidSet;
use sha1::Sha1;
use sha2::{Digest, Sha256};

/// A client-side error: the MySQL error number (the server's, or a client error such as
/// 2003 / 2013) and its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientError {
    /// MySQL error number.
    pub code: u16,
    /// Message.
    pub msg: String,
}

impl ClientError {
    fn new(code: u16, msg: impl Into<String>) -> Self {
        ClientError {
            code,
            msg: msg.into(),
        }
    }

    fn lost(e: &std::io::Error) -> Self {
        ClientError::new(2013, format!("Lost connection to MySQL server: {e}"))
    }
}

/// Result of client operations.
pub type ClientResult<T> = std::result::Result<T, ClientError>;

const CLIENT_LONG_PASSWORD: u32 = 1;
const CLIENT_LONG_FLAG: u32 = 4;
const CLIENT_PROTOCOL_41: u32 = 0x200;
const CLIENT_TRANSACTIONS: u32 = 0x2000;
const CLIENT_SECURE_CONNECTION: u32 = 0x8000;
const CLIENT_PLUGIN_AUTH: u32 = 0x80000;

const COM_QUERY: u8 = 0x03;
const COM_REGISTER_SLAVE: u8 = 0x15;
const COM_BINLOG_DUMP_GTID: u8 = 0x1e;
const BINLOG_THROUGH_GTID: u16 = 0x4;

/// Where and as whom to connect.
#[derive(Debug, Clone)]
pub struct ConnectParams {
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// User.
    pub user: String,
    /// Password (clear text).
    pub password: String,
    /// `GET_SOURCE_PUBLIC_KEY=1`: ask the source for its RSA key when `caching_sha2_password`
    /// needs the password itself over this unencrypted connection.
    pub get_public_key: bool,
    /// Connect and read timeout.
    pub timeout: Duration,
}

/// An authenticated connection.
pub struct Client {
    stream: TcpStream,
    seq: u8,
}

fn xor(a: &[u8], b: &[u8]) -> Vec<u8> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// `mysql_native_password`'s answer to `nonce`.
fn native_scramble(password: &str, nonce: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let h1 = Sha1::digest(password.as_bytes());
    let h2 = Sha1::digest(h1);
    let mut h = Sha1::new();
    h.update(nonce);
    h.update(h2);
    xor(&h1, &h.finalize())
}

/// `caching_sha2_password`'s fast-path answer to `nonce`.
fn sha2_scramble(password: &str, nonce: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let h1 = Sha256::digest(password.as_bytes());
    let h2 = Sha256::digest(h1);
    let mut h = Sha256::new();
    h.update(h2);
    h.update(nonce);
    xor(&h1, &h.finalize())
}

fn scramble_for(plugin: &str, password: &str, nonce: &[u8]) -> ClientResult<Vec<u8>> {
    match plugin {
        "mysql_native_password" => Ok(native_scramble(password, nonce)),
        "caching_sha2_password" => Ok(sha2_scramble(password, nonce)),
        other => Err(ClientError::new(
            2059,
            format!("Authentication plugin '{other}' cannot be loaded"),
        )),
    }
}

fn nul_str(b: &[u8]) -> (&[u8], &[u8]) {
    match b.iter().position(|&c| c == 0) {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &[]),
    }
}

/// Parses an ERR packet.
fn err_packet(p: &[u8]) -> ClientError {
    if p.len() < 3 {
        return ClientError::new(2027, "Malformed packet");
    }
    let code = u16::from_le_bytes([p[1], p[2]]);
    let msg = if p.get(3) == Some(&b'#') && p.len() >= 9 {
        &p[9..]
    } else {
        &p[3..]
    };
    ClientError::new(code, String::from_utf8_lossy(msg).into_owned())
}

fn lenenc(p: &[u8], i: &mut usize) -> Option<Option<u64>> {
    let b = *p.get(*i)?;
    *i += 1;
    let n = |len: usize, i: &mut usize| -> Option<u64> {
        let mut v = [0u8; 8];
        v[..len].copy_from_slice(p.get(*i..*i + len)?);
        *i += len;
        Some(u64::from_le_bytes(v))
    };
    Some(match b {
        0xfb => None,
        0xfc => Some(n(2, i)?),
        0xfd => Some(n(3, i)?),
        0xfe => Some(n(8, i)?),
        b => Some(u64::from(b)),
    })
}

impl Client {
    /// Connects and authenticates.
    ///
    /// # Errors
    /// 2003 when the source cannot be reached, the source's ERR (1045 …) when it refuses the
    /// account, 2061 when the password must travel unencrypted and `get_public_key` is off.
    pub fn connect(p: &ConnectParams) -> ClientResult<Client> {
        let cant = |e: &dyn std::fmt::Display| {
            ClientError::new(
                2003,
                format!(
                    "Can't connect to MySQL server on '{}:{}' ({e})",
                    p.host, p.port
                ),
            )
        };
        let addrs: Vec<_> = (p.host.as_str(), p.port)
            .to_socket_addrs()
            .map_err(|e| {
                ClientError::new(
                    2005,
                    format!("Unknown MySQL server host '{}' ({e})", p.host),
                )
            })?
            .collect();
        let mut last = None;
        let mut stream = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, p.timeout) {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last = Some(e),
            }
        }
        let stream = match (stream, last) {
            (Some(s), _) => s,
            (None, Some(e)) => return Err(cant(&e)),
            (None, None) => return Err(cant(&"no address")),
        };
        let _ = stream.set_nodelay(true);
        stream
            .set_read_timeout(Some(p.timeout))
            .map_err(|e| cant(&e))?;
        let mut c = Client { stream, seq: 0 };
        c.handshake(p)?;
        Ok(c)
    }

    /// A second handle on the socket, to shut the connection down from another thread.
    pub fn socket_handle(&self) -> Option<TcpStream> {
        self.stream.try_clone().ok()
    }

    /// Sets how long a read waits (the event stream: the heartbeat period's margin).
    ///
    /// # Errors
    /// A socket error.
    pub fn set_read_timeout(&self, t: Duration) -> ClientResult<()> {
        self.stream
            .set_read_timeout(Some(t))
            .map_err(|e| ClientError::lost(&e))
    }

    fn handshake(&mut self, p: &ConnectParams) -> ClientResult<()> {
        let hs = self.read_packet()?;
        if hs.first() == Some(&0xff) {
            return Err(err_packet(&hs));
        }
        let bad = || ClientError::new(2027, "Malformed handshake packet");
        if hs.first() != Some(&10) {
            return Err(bad());
        }
        let (_version, rest) = nul_str(&hs[1..]);
        // connection id (4), nonce part 1 (8), filler (1), capabilities (2), charset (1),
        // status (2), capabilities (2), nonce length (1), reserved (10), nonce part 2
        if rest.len() < 31 {
            return Err(bad());
        }
        let mut nonce = rest[4..12].to_vec();
        let caps = u32::from(u16::from_le_bytes([rest[13], rest[14]]))
            | (u32::from(u16::from_le_bytes([rest[18], rest[19]])) << 16);
        let nlen = usize::from(rest[20]);
        let part2_len = nlen.saturating_sub(8).max(13);
        let part2 = rest.get(31..31 + part2_len).ok_or_else(bad)?;
        nonce.extend_from_slice(nul_str(part2).0);
        let plugin = if caps & CLIENT_PLUGIN_AUTH != 0 {
            String::from_utf8_lossy(nul_str(&rest[31 + part2_len..]).0).into_owned()
        } else {
            "mysql_native_password".into()
        };
        let plugin = if plugin.is_empty() {
            "mysql_native_password".to_string()
        } else {
            plugin
        };
        let auth = scramble_for(&plugin, &p.password, &nonce)?;
        let flags = CLIENT_LONG_PASSWORD
            | CLIENT_LONG_FLAG
            | CLIENT_PROTOCOL_41
            | CLIENT_TRANSACTIONS
            | CLIENT_SECURE_CONNECTION
            | CLIENT_PLUGIN_AUTH;
        let mut out = Vec::new();
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&(16u32 << 20).to_le_bytes());
        out.push(255); // utf8mb4_0900_ai_ci
        out.extend_from_slice(&[0; 23]);
        out.extend_from_slice(p.user.as_bytes());
        out.push(0);
        out.push(auth.len() as u8);
        out.extend_from_slice(&auth);
        out.extend_from_slice(plugin.as_bytes());
        out.push(0);
        self.write_packet(&out)?;
        self.auth_loop(p, plugin, nonce)
    }

    fn auth_loop(
        &mut self,
        p: &ConnectParams,
        mut plugin: String,
        mut nonce: Vec<u8>,
    ) -> ClientResult<()> {
        loop {
            let r = self.read_packet()?;
            match r.first() {
                Some(0x00) => return Ok(()),
                Some(0xff) => return Err(err_packet(&r)),
                Some(0xfe) => {
                    // auth switch: plugin name, then the new nonce
                    let (name, data) = nul_str(&r[1..]);
                    plugin = String::from_utf8_lossy(name).into_owned();
                    nonce = nul_str(data).0.to_vec();
                    let auth = scramble_for(&plugin, &p.password, &nonce)?;
                    self.write_packet(&auth)?;
                }
                Some(0x01) if plugin == "caching_sha2_password" => match r.get(1) {
                    Some(3) => {} // fast authentication succeeded: OK follows
                    Some(4) => self.full_auth(p, &nonce)?,
                    _ => return Err(ClientError::new(2027, "Malformed packet")),
                },
                _ => return Err(ClientError::new(2027, "Malformed packet")),
            }
        }
    }

    /// `caching_sha2_password`'s full authentication over an unencrypted connection: the
    /// password XOR the nonce, RSA-OAEP encrypted with the source's public key.
    fn full_auth(&mut self, p: &ConnectParams, nonce: &[u8]) -> ClientResult<()> {
        use rsa::pkcs8::DecodePublicKey;
        if !p.get_public_key {
            return Err(ClientError::new(
                2061,
                "Authentication plugin 'caching_sha2_password' reported error: Authentication requires secure connection.",
            ));
        }
        self.write_packet(&[0x02])?;
        let r = self.read_packet()?;
        if r.first() != Some(&0x01) {
            return Err(if r.first() == Some(&0xff) {
                err_packet(&r)
            } else {
                ClientError::new(2027, "Malformed packet")
            });
        }
        let pem = String::from_utf8_lossy(&r[1..]).into_owned();
        let key = rsa::RsaPublicKey::from_public_key_pem(pem.trim())
            .map_err(|e| ClientError::new(2061, format!("bad public key from the source: {e}")))?;
        let mut pw = p.password.as_bytes().to_vec();
        pw.push(0);
        let data: Vec<u8> = pw
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ nonce[i % nonce.len().max(1)])
            .collect();
        let enc = key
            .encrypt(&mut rand::thread_rng(), rsa::Oaep::new::<Sha1>(), &data)
            .map_err(|e| ClientError::new(2061, format!("RSA encryption failed: {e}")))?;
        self.write_packet(&enc)
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> ClientResult<()> {
        self.stream
            .read_exact(buf)
            .map_err(|e| ClientError::lost(&e))
    }

    /// Reads one packet (joining 16 MiB continuations).
    ///
    /// # Errors
    /// 2013 when the connection breaks or a read times out.
    pub fn read_packet(&mut self) -> ClientResult<Vec<u8>> {
        let mut out = Vec::new();
        loop {
            let mut h = [0u8; 4];
            self.read_exact(&mut h)?;
            let len = u32::from_le_bytes([h[0], h[1], h[2], 0]) as usize;
            self.seq = h[3].wrapping_add(1);
            let start = out.len();
            out.resize(start + len, 0);
            self.read_exact(&mut out[start..])?;
            if len < 0xff_ffff {
                return Ok(out);
            }
        }
    }

    fn write_packet(&mut self, payload: &[u8]) -> ClientResult<()> {
        let mut buf = Vec::with_capacity(payload.len() + 8);
        let mut chunks = payload.chunks(0xff_ffff).peekable();
        let mut last_full = payload.is_empty();
        while let Some(c) = chunks.next() {
            buf.extend_from_slice(&(c.len() as u32).to_le_bytes()[..3]);
            buf.push(self.seq);
            self.seq = self.seq.wrapping_add(1);
            buf.extend_from_slice(c);
            last_full = chunks.peek().is_none() && c.len() == 0xff_ffff;
        }
        if last_full {
            buf.extend_from_slice(&[0, 0, 0, self.seq]);
            self.seq = self.seq.wrapping_add(1);
        }
        self.stream
            .write_all(&buf)
            .map_err(|e| ClientError::lost(&e))
    }

    fn command(&mut self, payload: &[u8]) -> ClientResult<()> {
        self.seq = 0;
        self.write_packet(payload)
    }

    /// Runs a text query; the rows of its result (none for a statement without one).
    ///
    /// # Errors
    /// The server's ERR, or a broken connection.
    pub fn query(&mut self, sql: &str) -> ClientResult<Vec<Vec<Option<String>>>> {
        let mut p = vec![COM_QUERY];
        p.extend_from_slice(sql.as_bytes());
        self.command(&p)?;
        let first = self.read_packet()?;
        match first.first() {
            Some(0x00) => return Ok(Vec::new()),
            Some(0xff) => return Err(err_packet(&first)),
            _ => {}
        }
        let mut i = 0;
        let ncols = lenenc(&first, &mut i).flatten().unwrap_or(0);
        for _ in 0..ncols {
            self.read_packet()?;
        }
        // the EOF after the column definitions (no CLIENT_DEPRECATE_EOF)
        self.read_packet()?;
        let mut rows = Vec::new();
        loop {
            let p = self.read_packet()?;
            match p.first() {
                Some(0xfe) if p.len() < 9 => break,
                Some(0xff) => return Err(err_packet(&p)),
                _ => {}
            }
            let mut i = 0;
            let mut row = Vec::new();
            for _ in 0..ncols {
                match lenenc(&p, &mut i) {
                    Some(Some(n)) => {
                        let end = i + n as usize;
                        row.push(Some(
                            String::from_utf8_lossy(p.get(i..end).unwrap_or_default()).into_owned(),
                        ));
                        i = end;
                    }
                    _ => row.push(None),
                }
            }
            rows.push(row);
        }
        Ok(rows)
    }

    /// COM_REGISTER_SLAVE: shows this replica in the source's SHOW REPLICAS.
    ///
    /// # Errors
    /// The server's ERR, or a broken connection.
    pub fn register(&mut self, server_id: u32, report_port: u16) -> ClientResult<()> {
        let mut p = vec![COM_REGISTER_SLAVE];
        p.extend_from_slice(&server_id.to_le_bytes());
        p.extend_from_slice(&[0, 0, 0]); // host, user, password: empty
        p.extend_from_slice(&report_port.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes()); // replication rank
        p.extend_from_slice(&0u32.to_le_bytes()); // source id
        self.command(&p)?;
        let r = self.read_packet()?;
        if r.first() == Some(&0xff) {
            return Err(err_packet(&r));
        }
        Ok(())
    }

    /// COM_BINLOG_DUMP_GTID from the transactions not in `executed`.
    ///
    /// # Errors
    /// A broken connection (the source's refusal arrives with the first event read).
    pub fn dump_gtid(&mut self, server_id: u32, executed: &GtidSet) -> ClientResult<()> {
        let mut set = Vec::new();
        executed.encode(&mut set);
        let mut p = vec![COM_BINLOG_DUMP_GTID];
        p.extend_from_slice(&BINLOG_THROUGH_GTID.to_le_bytes());
        p.extend_from_slice(&server_id.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes()); // no file name
        p.extend_from_slice(&4u64.to_le_bytes());
        p.extend_from_slice(&(set.len() as u32).to_le_bytes());
        p.extend_from_slice(&set);
        self.command(&p)
    }

    /// The next event of the dump (its bytes without the OK marker); `None` at the end of
    /// the stream (EOF: a non-blocking dump, or the source shutting down).
    ///
    /// # Errors
    /// The source's ERR (e.g. 1236 when it purged transactions the replica needs), a broken
    /// connection or a read timeout.
    pub fn read_event(&mut self) -> ClientResult<Option<Vec<u8>>> {
        let mut p = self.read_packet()?;
        match p.first() {
            Some(0x00) => {
                p.remove(0);
                Ok(Some(p))
            }
            Some(0xfe) if p.len() < 9 => Ok(None),
            Some(0xff) => Err(err_packet(&p)),
            _ => Err(ClientError::new(2027, "Malformed packet")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrambles_match_mysql_definitions() {
        let nonce = [7u8; 20];
        assert!(native_scramble("", &nonce).is_empty());
        let n = native_scramble("secret", &nonce);
        // the server's check: SHA1(n XOR SHA1(nonce ‖ SHA1(SHA1(pw)))) == SHA1(SHA1(pw))
        let stage2 = Sha1::digest(Sha1::digest(b"secret"));
        let mut h = Sha1::new();
        h.update(nonce);
        h.update(stage2);
        let stage1 = xor(&n, &h.finalize());
        assert_eq!(Sha1::digest(&stage1).as_slice(), stage2.as_slice());
        assert_eq!(sha2_scramble("secret", &nonce).len(), 32);
    }

    #[test]
    fn reads_lenenc_and_err_packets() {
        let p = [0xfc, 0x01, 0x02, 0xfb, 5];
        let mut i = 0;
        assert_eq!(lenenc(&p, &mut i), Some(Some(0x0201)));
        assert_eq!(lenenc(&p, &mut i), Some(None));
        assert_eq!(lenenc(&p, &mut i), Some(Some(5)));
        let mut e = vec![0xff, 0x15, 0x04, b'#'];
        e.extend_from_slice(b"28000Access denied");
        assert_eq!(
            err_packet(&e),
            ClientError::new(1045, "Access denied".to_string())
        );
    }
}
