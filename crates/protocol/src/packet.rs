//! Packet framing and the wire-level encoding helpers of the MySQL protocol.
//!
//! Every packet is a 3-byte little-endian payload length, a 1-byte sequence id and the payload.
//! A payload of 16 MiB - 1 bytes (0xFFFFFF) or more is split into 0xFFFFFF-byte chunks; a chunk of
//! exactly 0xFFFFFF bytes is always followed by another (possibly empty) chunk. [`PacketIo`] joins
//! such chunks on read, splits them on write, tracks the sequence id and buffers writes so that a
//! response goes out in one `write` call when [`PacketIo::flush`] is called.
//!
//! [`Reader`] parses a payload (fixed-width integers, length-encoded integers and strings,
//! NUL-terminated strings) and never panics: running past the end yields [`Malformed`].
//! The `put_*` functions append the same encodings to a `Vec<u8>`.

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// Largest payload carried by a single physical packet.
pub const MAX_CHUNK: usize = 0xFF_FFFF;

/// At most this many bytes of an oversized packet are read and discarded before the error.
const MAX_DRAIN: usize = 64 << 20;

/// When the output buffer grows past this, it is flushed even in the middle of a response
/// (large result sets), bounding memory use.
const FLUSH_THRESHOLD: usize = 4 << 20;

/// A payload could not be parsed (truncated or inconsistent); answered with ERR 1835.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed;

/// Result of parsing a payload.
pub type PResult<T> = Result<T, Malformed>;

/// Why reading a packet failed.
#[derive(Debug)]
pub enum ReadError {
    /// The peer closed the connection cleanly (EOF before a packet header).
    Closed,
    /// The packet is larger than the allowed maximum; its payload was not read.
    TooLarge,
    /// An I/O error (including EOF in the middle of a packet, and read timeouts).
    Io(io::Error),
    /// A packet (or a continuation chunk) carried an unexpected sequence id.
    OutOfOrder,
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// Size of the read-ahead buffer (see [`PacketIo::set_read_ahead`]): room for the usual
/// command and then some, small enough not to weigh on thousands of connections; longer
/// payloads are read straight into their own buffer.
const READ_AHEAD: usize = 4 * 1024;

/// A read that ended because the stream's read timeout passed (`EAGAIN` on a socket).
fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// A packet-framed byte stream with sequence-id tracking, a write buffer and, once turned on,
/// a read-ahead buffer.
pub struct PacketIo<S> {
    stream: S,
    seq: u8,
    out: Vec<u8>,
    /// Read ahead from the stream, not yet consumed: `ahead[pos..end]`. Empty (no allocation)
    /// until [`PacketIo::set_read_ahead`].
    ahead: Vec<u8>,
    pos: usize,
    end: usize,
    /// Set when the stream's own read timeout is short (see [`PacketIo::fill_ahead`]): how long
    /// a read in the middle of a packet keeps retrying after timeouts before it fails.
    patience: Option<Duration>,
    /// Bytes read from / written to the stream since [`PacketIo::take_byte_counts`] (the
    /// `Bytes_received` / `Bytes_sent` status; TLS framing not included).
    received: u64,
    sent: u64,
}

impl<S: Read + Write> PacketIo<S> {
    /// Wraps a connected stream.
    pub fn new(stream: S) -> Self {
        PacketIo {
            stream,
            seq: 0,
            out: Vec::with_capacity(16 * 1024),
            ahead: Vec::new(),
            pos: 0,
            end: 0,
            patience: None,
            received: 0,
            sent: 0,
        }
    }

    /// The bytes received and sent since the last call (or since the stream was wrapped),
    /// counters reset.
    pub fn take_byte_counts(&mut self) -> (u64, u64) {
        (
            std::mem::take(&mut self.received),
            std::mem::take(&mut self.sent),
        )
    }

    /// Turns on reading ahead: each read of the stream asks for up to 4 KiB, so a command's
    /// header and payload (and a pipelined command after it) arrive with one `recv` instead of
    /// one for the header and one for the payload. Call it once the connection is
    /// authenticated, not before: until then a read must not consume bytes past its packet
    /// (the TLS handshake that follows an SSLRequest is read by the TLS layer).
    ///
    /// Hand-written rather than `std::io::BufReader`: the stream must stay reachable for TLS,
    /// timeouts and polling, and callers must see whether input is buffered
    /// ([`PacketIo::has_buffered_input`]).
    pub fn set_read_ahead(&mut self) {
        if self.ahead.is_empty() {
            self.ahead = vec![0; READ_AHEAD];
        }
    }

    /// True when bytes read ahead are waiting: the next packet may be here already, so the
    /// socket may never become readable for it.
    pub fn has_buffered_input(&self) -> bool {
        self.pos < self.end
    }

    /// Reads at most `buf.len()` bytes: what was read ahead, else from the stream (through the
    /// read-ahead buffer when it is on and `buf` is smaller than it).
    fn read_some(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.end {
            if self.ahead.is_empty() || buf.len() >= self.ahead.len() {
                let k = self.stream.read(buf)?;
                self.received += k as u64;
                return Ok(k);
            }
            let k = self.stream.read(&mut self.ahead)?;
            self.received += k as u64;
            (self.pos, self.end) = (0, k);
        }
        let n = buf.len().min(self.end - self.pos);
        buf[..n].copy_from_slice(&self.ahead[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }

    /// For a stream whose own read timeout is set short, for [`PacketIo::fill_ahead`]: reads
    /// that time out are retried until `patience` (the session's net_read_timeout) has passed.
    /// `None`: the stream's timeout is the real one.
    pub fn set_patience(&mut self, patience: Option<Duration>) {
        self.patience = patience;
    }

    /// Waits for input for up to the stream's own read timeout and reads it ahead, with one
    /// `recv` (a `poll` followed by a `recv` costs a second system call per command). True when
    /// input is buffered, or at end of stream (the next read reports either); false when the
    /// timeout passed first. Needs the read-ahead buffer ([`PacketIo::set_read_ahead`]).
    pub fn fill_ahead(&mut self) -> io::Result<bool> {
        if self.pos < self.end {
            return Ok(true);
        }
        if self.ahead.is_empty() {
            return Err(io::Error::other("read ahead is off"));
        }
        loop {
            match self.stream.read(&mut self.ahead) {
                Ok(k) => {
                    self.received += k as u64;
                    (self.pos, self.end) = (0, k);
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if is_timeout(&e) => return Ok(false),
                Err(e) => return Err(e),
            }
        }
    }

    /// Fills `buf`, stopping early only at end of stream; returns the bytes read.
    fn read_full(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        let mut waiting: Option<Instant> = None;
        while n < buf.len() {
            match self.read_some(&mut buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if is_timeout(&e) && self.patience.is_some() => {
                    let since = *waiting.get_or_insert_with(Instant::now);
                    if self.patience.is_some_and(|p| since.elapsed() >= p) {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }

    /// Fills `buf`; end of stream first is `UnexpectedEof`.
    fn read_exact(&mut self, buf: &mut [u8]) -> io::Result<()> {
        if self.read_full(buf)? < buf.len() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(())
    }

    /// The underlying stream.
    pub fn stream(&self) -> &S {
        &self.stream
    }

    /// The underlying stream, mutably (to switch it to TLS).
    pub fn stream_mut(&mut self) -> &mut S {
        &mut self.stream
    }

    /// The sequence id the next written packet will carry.
    pub fn seq(&self) -> u8 {
        self.seq
    }

    /// Sets the sequence id of the next written packet (0 to start a new exchange).
    pub fn set_seq(&mut self, seq: u8) {
        self.seq = seq;
    }

    /// Reads one logical packet (joining 16 MiB chunks). Payloads longer than `max` bytes are
    /// refused with [`ReadError::TooLarge`] without reading them. After a successful read the
    /// next written packet carries the received sequence id + 1.
    pub fn read_packet(&mut self, max: usize) -> Result<Vec<u8>, ReadError> {
        self.read_packet_inner(max, None)
    }

    /// [`PacketIo::read_packet`] for a packet that must carry sequence id `expect` (its
    /// continuation chunks `expect + 1`, …); a mismatch is [`ReadError::OutOfOrder`] (MySQL's
    /// "Got packets out of order").
    pub fn read_packet_seq(&mut self, max: usize, expect: u8) -> Result<Vec<u8>, ReadError> {
        self.read_packet_inner(max, Some(expect))
    }

    fn read_packet_inner(
        &mut self,
        max: usize,
        mut expect: Option<u8>,
    ) -> Result<Vec<u8>, ReadError> {
        let mut payload = Vec::new();
        let mut first = true;
        loop {
            let mut header = [0u8; 4];
            if first {
                // Distinguish a clean close (EOF before any byte) from a truncated packet.
                let n = self.read_full(&mut header)?;
                if n == 0 {
                    return Err(ReadError::Closed);
                }
                if n < 4 {
                    return Err(ReadError::Io(io::ErrorKind::UnexpectedEof.into()));
                }
            } else {
                self.read_exact(&mut header)?;
            }
            let len = header[0] as usize | (header[1] as usize) << 8 | (header[2] as usize) << 16;
            if let Some(e) = expect {
                if header[3] != e {
                    return Err(ReadError::OutOfOrder);
                }
                expect = Some(e.wrapping_add(1));
            } else if !first && header[3] != self.seq {
                // continuation chunks always follow each other
                return Err(ReadError::OutOfOrder);
            }
            first = false;
            self.seq = header[3].wrapping_add(1);
            if payload.len() + len > max {
                self.drain(len);
                return Err(ReadError::TooLarge);
            }
            let start = payload.len();
            payload.resize(start + len, 0);
            self.read_exact(&mut payload[start..])?;
            if len < MAX_CHUNK {
                return Ok(payload);
            }
        }
    }

    /// Reads and discards the rest of an oversized packet (`len` bytes of the current chunk and
    /// any continuation chunks), up to [`MAX_DRAIN`] bytes, so the client can finish sending and
    /// then read the error instead of seeing its connection reset.
    fn drain(&mut self, mut len: usize) {
        let mut budget = MAX_DRAIN;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let chunk_len = len;
            while len > 0 && budget > 0 {
                let n = len.min(buf.len()).min(budget);
                if self.read_exact(&mut buf[..n]).is_err() {
                    return;
                }
                len -= n;
                budget -= n;
            }
            if budget == 0 || chunk_len < MAX_CHUNK {
                return;
            }
            let mut header = [0u8; 4];
            if self.read_exact(&mut header).is_err() {
                return;
            }
            len = header[0] as usize | (header[1] as usize) << 8 | (header[2] as usize) << 16;
            self.seq = header[3].wrapping_add(1);
        }
    }

    /// Appends one logical packet to the output buffer, splitting it into chunks as needed.
    pub fn write_packet(&mut self, payload: &[u8]) -> io::Result<()> {
        let mut rest = payload;
        loop {
            let n = rest.len().min(MAX_CHUNK);
            self.out
                .extend_from_slice(&[n as u8, (n >> 8) as u8, (n >> 16) as u8, self.seq]);
            self.seq = self.seq.wrapping_add(1);
            self.out.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
            if n < MAX_CHUNK {
                break;
            }
        }
        if self.out.len() > FLUSH_THRESHOLD {
            self.flush()?;
        }
        Ok(())
    }

    /// Sends everything buffered.
    pub fn flush(&mut self) -> io::Result<()> {
        if !self.out.is_empty() {
            let r = self.stream.write_all(&self.out);
            if r.is_ok() {
                self.sent += self.out.len() as u64;
            }
            self.out.clear();
            r?;
        }
        self.stream.flush()
    }

    /// Drops anything buffered but not yet sent.
    pub fn discard_output(&mut self) {
        self.out.clear();
    }
}

/// Appends a length-encoded integer.
pub fn put_lenenc_int(out: &mut Vec<u8>, v: u64) {
    if v < 251 {
        out.push(v as u8);
    } else if v < 1 << 16 {
        out.push(0xFC);
        out.extend_from_slice(&(v as u16).to_le_bytes());
    } else if v < 1 << 24 {
        out.push(0xFD);
        out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
    } else {
        out.push(0xFE);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Appends a length-encoded string.
pub fn put_lenenc_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_lenenc_int(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// Appends a NUL-terminated string.
pub fn put_nul_str(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(b);
    out.push(0);
}

/// A cursor over a payload; every accessor fails with [`Malformed`] instead of panicking.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// Starts reading `buf` at offset 0.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes not yet consumed.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// True when everything was consumed.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> PResult<&'a [u8]> {
        if self.remaining() < n {
            return Err(Malformed);
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> PResult<()> {
        self.bytes(n).map(|_| ())
    }

    /// One byte.
    pub fn u8(&mut self) -> PResult<u8> {
        Ok(self.bytes(1)?[0])
    }

    /// Little-endian u16.
    pub fn u16(&mut self) -> PResult<u16> {
        let b = self.bytes(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// Little-endian 3-byte integer.
    pub fn u24(&mut self) -> PResult<u32> {
        let b = self.bytes(3)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], 0]))
    }

    /// Little-endian u32.
    pub fn u32(&mut self) -> PResult<u32> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Little-endian u64.
    pub fn u64(&mut self) -> PResult<u64> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A length-encoded integer (0xFB, NULL, and 0xFF are malformed here).
    pub fn lenenc_int(&mut self) -> PResult<u64> {
        match self.u8()? {
            v @ 0..=250 => Ok(v as u64),
            0xFC => Ok(self.u16()? as u64),
            0xFD => Ok(self.u24()? as u64),
            0xFE => self.u64(),
            _ => Err(Malformed),
        }
    }

    /// A length-encoded string.
    pub fn lenenc_bytes(&mut self) -> PResult<&'a [u8]> {
        let n = self.lenenc_int()?;
        let n = usize::try_from(n).map_err(|_| Malformed)?;
        self.bytes(n)
    }

    /// A NUL-terminated string (the NUL is consumed, not returned).
    pub fn nul_bytes(&mut self) -> PResult<&'a [u8]> {
        let rest = &self.buf[self.pos..];
        let i = rest.iter().position(|&b| b == 0).ok_or(Malformed)?;
        self.pos += i + 1;
        Ok(&rest[..i])
    }

    /// A NUL-terminated string, or everything left if there is no NUL (lenient parsing of
    /// trailing fields that some clients leave unterminated).
    pub fn nul_bytes_or_rest(&mut self) -> &'a [u8] {
        match self.nul_bytes() {
            Ok(b) => b,
            Err(_) => self.rest(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// An in-memory duplex: reads from `input`, writes into `output`.
    struct Duplex {
        input: Cursor<Vec<u8>>,
        output: Vec<u8>,
    }
    impl Read for Duplex {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.input.read(buf)
        }
    }
    impl Write for Duplex {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn io_with(input: Vec<u8>) -> PacketIo<Duplex> {
        PacketIo::new(Duplex {
            input: Cursor::new(input),
            output: Vec::new(),
        })
    }

    #[test]
    fn lenenc_ints_roundtrip() {
        for v in [
            0u64,
            1,
            250,
            251,
            252,
            0xFFFF,
            0x1_0000,
            0xFF_FFFF,
            0x100_0000,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_lenenc_int(&mut b, v);
            let expect_len = match v {
                0..=250 => 1,
                251..=0xFFFF => 3,
                0x1_0000..=0xFF_FFFF => 4,
                _ => 9,
            };
            assert_eq!(b.len(), expect_len, "{v}");
            let mut r = Reader::new(&b);
            assert_eq!(r.lenenc_int(), Ok(v));
            assert!(r.is_empty());
        }
        assert_eq!(Reader::new(&[0xFB]).lenenc_int(), Err(Malformed));
        assert_eq!(Reader::new(&[0xFF]).lenenc_int(), Err(Malformed));
        assert_eq!(Reader::new(&[0xFC, 1]).lenenc_int(), Err(Malformed));
    }

    #[test]
    fn reader_strings_and_truncation() {
        let mut b = Vec::new();
        put_nul_str(&mut b, b"root");
        put_lenenc_bytes(&mut b, b"abc");
        b.extend_from_slice(&7u32.to_le_bytes());
        let mut r = Reader::new(&b);
        assert_eq!(r.nul_bytes(), Ok(&b"root"[..]));
        assert_eq!(r.lenenc_bytes(), Ok(&b"abc"[..]));
        assert_eq!(r.u32(), Ok(7));
        assert_eq!(r.u8(), Err(Malformed));
        assert_eq!(Reader::new(b"abc").nul_bytes(), Err(Malformed));
        assert_eq!(Reader::new(&[5, b'a']).lenenc_bytes(), Err(Malformed));
        assert_eq!(Reader::new(b"abc").nul_bytes_or_rest(), b"abc");
    }

    #[test]
    fn small_packet_roundtrip_and_seq() {
        let mut io = io_with(vec![3, 0, 0, 7, b'a', b'b', b'c']);
        assert_eq!(io.read_packet(100).ok(), Some(b"abc".to_vec()));
        assert_eq!(io.seq(), 8);
        io.write_packet(b"xy").ok();
        assert!(io.stream.output.is_empty(), "buffered until flush");
        io.flush().ok();
        assert_eq!(io.stream.output, vec![2, 0, 0, 8, b'x', b'y']);
        assert!(matches!(io.read_packet(100), Err(ReadError::Closed)));
    }

    #[test]
    fn read_ahead_takes_pipelined_packets_in_one_read() {
        /// Counts reads; serves at most `step` bytes per read.
        struct Counting {
            input: Cursor<Vec<u8>>,
            step: usize,
            reads: usize,
        }
        impl Read for Counting {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.reads += 1;
                let n = buf.len().min(self.step);
                self.input.read(&mut buf[..n])
            }
        }
        impl Write for Counting {
            fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
                Ok(buf.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let big = vec![7u8; READ_AHEAD + 10];
        let mut input = vec![3, 0, 0, 0, b'a', b'b', b'c', 1, 0, 0, 0, b'd'];
        input.extend_from_slice(&[(big.len() & 0xFF) as u8, (big.len() >> 8) as u8, 0, 0]);
        input.extend_from_slice(&big);
        for step in [usize::MAX, 1, 5] {
            let mut io = PacketIo::new(Counting {
                input: Cursor::new(input.clone()),
                step,
                reads: 0,
            });
            // off: a read never takes bytes past its packet
            assert_eq!(io.read_packet(100).ok(), Some(b"abc".to_vec()));
            assert!(!io.has_buffered_input());
            io.set_read_ahead();
            assert_eq!(io.read_packet(100).ok(), Some(b"d".to_vec()));
            if step == usize::MAX {
                // one read brought the second packet and the start of the third
                assert_eq!(io.stream.reads, 3);
                assert!(io.has_buffered_input());
            }
            assert_eq!(io.read_packet(1 << 20).ok(), Some(big.clone()));
            assert!(!io.has_buffered_input());
            assert!(matches!(io.read_packet(100), Err(ReadError::Closed)));
        }
        // a packet cut short by the end of the stream is an error, not a clean close
        let mut io = io_with(vec![5, 0, 0, 0, b'a', b'b']);
        io.set_read_ahead();
        assert!(matches!(io.read_packet(100), Err(ReadError::Io(_))));
    }

    #[test]
    fn split_and_join_at_16mib() {
        for len in [MAX_CHUNK - 1, MAX_CHUNK, MAX_CHUNK + 1, 2 * MAX_CHUNK] {
            let payload: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut w = io_with(Vec::new());
            w.write_packet(&payload).ok();
            w.flush().ok();
            let wire = std::mem::take(&mut w.stream.output);
            let chunks = len / MAX_CHUNK + 1;
            assert_eq!(wire.len(), len + 4 * chunks, "len {len}");
            // The last header announces the remainder (0 when len is a multiple of the chunk size).
            let mut r = io_with(wire);
            let got = r.read_packet(usize::MAX).ok();
            assert_eq!(got.as_deref(), Some(&payload[..]), "len {len}");
            assert_eq!(r.seq(), chunks as u8);
        }
    }

    #[test]
    fn oversized_packet_refused_without_reading() {
        let mut io = io_with(vec![0xFF, 0xFF, 0x00, 0]);
        assert!(matches!(io.read_packet(1000), Err(ReadError::TooLarge)));
        // The oversized payload is drained; what follows it is still readable.
        let mut wire = vec![5, 0, 0, 0, 1, 2, 3, 4, 5, 1, 0, 0, 1, 9];
        let mut io = io_with(std::mem::take(&mut wire));
        assert!(matches!(io.read_packet(4), Err(ReadError::TooLarge)));
        assert_eq!(io.read_packet(4).ok(), Some(vec![9]));
        let mut io = io_with(vec![10, 0, 0, 0, 1, 2]);
        assert!(
            matches!(io.read_packet(1000), Err(ReadError::Io(_))),
            "truncated payload"
        );
        let mut io = io_with(vec![10, 0]);
        assert!(
            matches!(io.read_packet(1000), Err(ReadError::Io(_))),
            "truncated header"
        );
    }

    /// A socket pair whose reading end times out after `ms` milliseconds, read ahead.
    fn short_socket(
        ms: u64,
    ) -> (
        PacketIo<std::os::unix::net::UnixStream>,
        std::os::unix::net::UnixStream,
    ) {
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        a.set_read_timeout(Some(Duration::from_millis(ms))).unwrap();
        let mut io = PacketIo::new(a);
        io.set_read_ahead();
        (io, b)
    }

    #[test]
    fn fill_ahead_waits_one_timeout_and_keeps_what_came() {
        let (mut io, mut peer) = short_socket(20);
        assert!(
            !io.fill_ahead().unwrap(),
            "nothing sent: the timeout passes"
        );
        peer.write_all(&[1, 0, 0, 0, 0x0e]).unwrap();
        assert!(io.fill_ahead().unwrap());
        assert!(io.has_buffered_input());
        assert_eq!(io.read_packet_seq(100, 0).unwrap(), vec![0x0e]);
        drop(peer);
        assert!(
            io.fill_ahead().unwrap(),
            "end of stream: the next read reports it"
        );
        assert!(matches!(io.read_packet(100), Err(ReadError::Closed)));
    }

    #[test]
    fn with_patience_a_packet_may_pause_longer_than_the_socket_timeout() {
        let (mut io, mut peer) = short_socket(10);
        io.set_patience(Some(Duration::from_secs(30)));
        let writer = std::thread::spawn(move || {
            for part in [&[3u8, 0][..], &[0, 0, 0x03, b'h'], b"i"] {
                peer.write_all(part).unwrap();
                std::thread::sleep(Duration::from_millis(60));
            }
            peer
        });
        assert_eq!(io.read_packet(100).unwrap(), b"\x03hi");
        drop(writer.join().unwrap());
    }

    #[test]
    fn a_pause_longer_than_the_patience_fails_the_read() {
        let (mut io, mut peer) = short_socket(10);
        io.set_patience(Some(Duration::from_millis(30)));
        peer.write_all(&[3, 0]).unwrap();
        // the rest would come much later: the read gives up first
        match io.read_packet(100) {
            Err(ReadError::Io(e)) => assert!(is_timeout(&e), "{e}"),
            other => panic!("expected a timeout, got {other:?}"),
        }
        // without patience the first timeout already fails it
        let (mut io, mut peer2) = short_socket(10);
        peer2.write_all(&[3, 0]).unwrap();
        assert!(matches!(io.read_packet(100), Err(ReadError::Io(_))));
        drop((peer, peer2));
    }
}
