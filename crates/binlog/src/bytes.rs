//! Bounds-checked little-endian reading and writing helpers shared by every codec.
//!
//! [`Reader`] never panics: every read checks the remaining length and returns
//! [`BinlogError::Truncated`] naming what was being read.

use crate::error::{BinlogError, Result};

/// A cursor over a byte slice with checked reads.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Bytes left to read.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The current offset from the start of the buffer.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(BinlogError::Truncated { what });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<()> {
        self.bytes(n, what).map(|_| ())
    }

    /// One byte.
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.bytes(1, what)?[0])
    }

    /// A little-endian unsigned integer of `n` (1..=8) bytes.
    pub fn uint_le(&mut self, n: usize, what: &'static str) -> Result<u64> {
        Ok(uint_le(self.bytes(n, what)?))
    }

    /// A big-endian unsigned integer of `n` (1..=8) bytes.
    pub fn uint_be(&mut self, n: usize, what: &'static str) -> Result<u64> {
        Ok(uint_be(self.bytes(n, what)?))
    }

    /// A 2-byte little-endian integer.
    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(self.uint_le(2, what)? as u16)
    }

    /// A 4-byte little-endian integer.
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(self.uint_le(4, what)? as u32)
    }

    /// An 8-byte little-endian integer.
    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        self.uint_le(8, what)
    }

    /// A MySQL packed ("length-encoded") integer; the NULL marker 251 is corrupt here.
    pub fn packed(&mut self, what: &'static str) -> Result<u64> {
        match self.u8(what)? {
            b @ 0..=250 => Ok(u64::from(b)),
            252 => self.uint_le(2, what),
            253 => self.uint_le(3, what),
            254 => self.uint_le(8, what),
            b => Err(BinlogError::corrupt(
                what,
                format!("bad packed integer prefix {b}"),
            )),
        }
    }

    /// A packed integer used as a length or count, checked against the bytes left.
    pub fn packed_len(&mut self, what: &'static str) -> Result<usize> {
        let n = self.packed(what)?;
        if n > self.remaining() as u64 {
            return Err(BinlogError::Truncated { what });
        }
        Ok(n as usize)
    }
}

/// Decodes a little-endian unsigned integer of up to 8 bytes.
pub fn uint_le(b: &[u8]) -> u64 {
    b.iter()
        .rev()
        .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

/// Decodes a big-endian unsigned integer of up to 8 bytes.
pub fn uint_be(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

/// Appends the low `n` bytes of `v`, little-endian.
pub fn put_uint_le(out: &mut Vec<u8>, v: u64, n: usize) {
    out.extend_from_slice(&v.to_le_bytes()[..n]);
}

/// Appends the low `n` bytes of `v`, big-endian.
pub fn put_uint_be(out: &mut Vec<u8>, v: u64, n: usize) {
    out.extend_from_slice(&v.to_be_bytes()[8 - n..]);
}

/// Appends a MySQL packed integer.
pub fn put_packed(out: &mut Vec<u8>, v: u64) {
    match v {
        0..=250 => out.push(v as u8),
        251..=0xffff => {
            out.push(252);
            put_uint_le(out, v, 2);
        }
        0x1_0000..=0xff_ffff => {
            out.push(253);
            put_uint_le(out, v, 3);
        }
        _ => {
            out.push(254);
            put_uint_le(out, v, 8);
        }
    }
}

/// The number of bytes [`put_packed`] writes for `v`.
pub fn packed_size(v: u64) -> usize {
    match v {
        0..=250 => 1,
        251..=0xffff => 3,
        0x1_0000..=0xff_ffff => 4,
        _ => 9,
    }
}

/// Bytes in a bitmap of `bits` bits.
pub fn bitmap_len(bits: usize) -> usize {
    bits.div_ceil(8)
}

/// Reads bit `i` of an LSB-first bitmap (MySQL's column and null bitmaps).
pub fn bit(bitmap: &[u8], i: usize) -> bool {
    bitmap.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0)
}

/// Packs booleans into an LSB-first bitmap.
pub fn pack_bits(bits: impl IntoIterator<Item = bool>) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, b) in bits.into_iter().enumerate() {
        if i % 8 == 0 {
            out.push(0);
        }
        if b {
            let last = out.len() - 1;
            out[last] |= 1 << (i % 8);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_round_trip() {
        for v in [
            0,
            250,
            251,
            0xffff,
            0x1_0000,
            0xff_ffff,
            0x100_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_packed(&mut out, v);
            assert_eq!(out.len(), packed_size(v));
            let mut r = Reader::new(&out);
            assert_eq!(r.packed("v").unwrap(), v);
            assert!(r.is_empty());
        }
    }

    #[test]
    fn truncated_reads_error() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert!(r.u32("x").is_err());
        assert_eq!(r.u16("x").unwrap(), 0x0201);
        assert!(r.u16("x").is_err());
        assert!(Reader::new(&[252, 1]).packed("x").is_err());
        assert!(Reader::new(&[251]).packed("x").is_err());
        assert!(Reader::new(&[5, 1]).packed_len("x").is_err());
    }

    #[test]
    fn bitmaps() {
        let b = pack_bits([true, false, false, false, false, false, false, false, true]);
        assert_eq!(b, vec![0x01, 0x01]);
        assert!(bit(&b, 0) && !bit(&b, 1) && bit(&b, 8) && !bit(&b, 100));
        assert_eq!(bitmap_len(0), 0);
        assert_eq!(bitmap_len(9), 2);
    }

    #[test]
    fn endianness() {
        let mut out = Vec::new();
        put_uint_be(&mut out, 0x01_0203_0405, 5);
        put_uint_le(&mut out, 0x0102, 2);
        assert_eq!(out, [1, 2, 3, 4, 5, 2, 1]);
        assert_eq!(uint_be(&out[..5]), 0x01_0203_0405);
    }
}
