//! Rows on disk for operators that outgrow their memory budget (the runs of an external sort):
//! a compact codec for [`Value`]s and files written once, then read back in order.
//!
//! The files are unnamed (`O_TMPFILE` where the file system has it, else created and unlinked
//! at once, see [`tempfile::tempfile_in`]) in the server's `tmpdir` (the data directory by
//! default): they vanish when closed — at the end of the statement, on an error, on KILL — and
//! when the process dies, so nothing is left to clean up after a crash.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use common::{Error, Result, Value};

const BUF: usize = 64 << 10;

fn io_err(e: std::io::Error) -> Error {
    Error::new(
        common::codes::ER_ERROR_ON_WRITE,
        format!("Error writing file '(temporary)' (Errcode: {e})"),
    )
}

/// Appends `v` to `out`: a tag byte, then the value's bytes.
pub fn encode_value(v: &Value, out: &mut Vec<u8>) {
    let bytes = |out: &mut Vec<u8>, tag: u8, b: &[u8]| {
        out.push(tag);
        out.extend_from_slice(&(b.len() as u32).to_le_bytes());
        out.extend_from_slice(b);
    };
    match v {
        Value::Null => out.push(0),
        Value::Int(i) => {
            out.push(1);
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::UInt(u) => {
            out.push(2);
            out.extend_from_slice(&u.to_le_bytes());
        }
        Value::Float(f) => {
            out.push(3);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Value::Double(d) => {
            out.push(4);
            out.extend_from_slice(&d.to_bits().to_le_bytes());
        }
        Value::Decimal(d) => {
            let (mant, scale, frac) = d.to_raw();
            bytes(out, 5, &mant);
            out.extend_from_slice(&[scale, frac]);
        }
        Value::Str(s) => bytes(out, 6, s.as_bytes()),
        Value::Bytes(b) => bytes(out, 7, b),
        Value::Date(d) => {
            out.push(8);
            out.extend_from_slice(&d.to_packed().to_le_bytes());
        }
        Value::DateTime(d, fsp) => {
            out.push(9);
            out.extend_from_slice(&d.to_packed().to_le_bytes());
            out.push(*fsp);
        }
        Value::Time(t, fsp) => {
            out.push(10);
            out.extend_from_slice(&t.to_micros().to_le_bytes());
            out.push(*fsp);
        }
    }
}

/// Reads one value written by [`encode_value`] from `buf` at `*pos`.
pub fn decode_value(buf: &[u8], pos: &mut usize) -> Result<Value> {
    let corrupt = || Error::internal("temporary file: malformed row");
    let take = |pos: &mut usize, n: usize| -> Result<&[u8]> {
        let s = buf.get(*pos..*pos + n).ok_or_else(corrupt)?;
        *pos += n;
        Ok(s)
    };
    let u64_at = |pos: &mut usize| -> Result<u64> {
        Ok(u64::from_le_bytes(
            take(pos, 8)?.try_into().expect("8 bytes"),
        ))
    };
    let tag = take(pos, 1)?[0];
    let var = |pos: &mut usize| -> Result<&[u8]> {
        let n = u32::from_le_bytes(take(pos, 4)?.try_into().expect("4 bytes")) as usize;
        take(pos, n)
    };
    Ok(match tag {
        0 => Value::Null,
        1 => Value::Int(u64_at(pos)? as i64),
        2 => Value::UInt(u64_at(pos)?),
        3 => Value::Float(f32::from_bits(u32::from_le_bytes(
            take(pos, 4)?.try_into().expect("4 bytes"),
        ))),
        4 => Value::Double(f64::from_bits(u64_at(pos)?)),
        5 => {
            let mant = var(pos)?.to_vec();
            let sf = take(pos, 2)?;
            Value::Decimal(common::Decimal::from_raw(&mant, sf[0], sf[1]))
        }
        6 => Value::Str(String::from_utf8(var(pos)?.to_vec()).map_err(|_| corrupt())?),
        7 => Value::Bytes(var(pos)?.to_vec()),
        8 => Value::Date(common::time::DateTime::from_packed(u64_at(pos)?)),
        9 => {
            let d = common::time::DateTime::from_packed(u64_at(pos)?);
            Value::DateTime(d, take(pos, 1)?[0])
        }
        10 => {
            let t = common::time::Time::from_micros(u64_at(pos)? as i64);
            Value::Time(t, take(pos, 1)?[0])
        }
        _ => return Err(corrupt()),
    })
}

/// Appends a row (a value count, then each value) to `out`.
pub fn encode_values(vals: &[Value], out: &mut Vec<u8>) {
    out.extend_from_slice(&(vals.len() as u32).to_le_bytes());
    for v in vals {
        encode_value(v, out);
    }
}

/// Reads a row written by [`encode_values`] from `buf` at `*pos`.
///
/// # Errors
/// A malformed record (an internal error).
pub fn decode_values(buf: &[u8], pos: &mut usize) -> Result<Vec<Value>> {
    let n = buf
        .get(*pos..*pos + 4)
        .ok_or_else(|| Error::internal("temporary file: truncated row"))?;
    let n = u32::from_le_bytes(n.try_into().expect("4 bytes")) as usize;
    *pos += 4;
    let mut vals = Vec::with_capacity(n);
    for _ in 0..n {
        vals.push(decode_value(buf, pos)?);
    }
    Ok(vals)
}

/// A temporary file of length-prefixed records, being written.
pub struct SpillWriter {
    out: BufWriter<File>,
    records: u64,
}

impl SpillWriter {
    /// A new unnamed file in `dir`.
    ///
    /// # Errors
    /// 1026 when the file cannot be created.
    pub fn create(dir: &Path) -> Result<SpillWriter> {
        let f = tempfile::tempfile_in(dir).map_err(io_err)?;
        Ok(SpillWriter {
            out: BufWriter::with_capacity(BUF, f),
            records: 0,
        })
    }

    /// Appends one record.
    ///
    /// # Errors
    /// 1026 on a write error (a full disk).
    pub fn write(&mut self, record: &[u8]) -> Result<()> {
        self.out
            .write_all(&(record.len() as u32).to_le_bytes())
            .and_then(|_| self.out.write_all(record))
            .map_err(io_err)?;
        self.records += 1;
        Ok(())
    }

    /// Finishes writing; the records read back from the start.
    ///
    /// # Errors
    /// 1026 on a write error.
    pub fn finish(self) -> Result<SpillReader> {
        let mut f = self.out.into_inner().map_err(|e| io_err(e.into_error()))?;
        f.seek(SeekFrom::Start(0)).map_err(io_err)?;
        Ok(SpillReader {
            input: BufReader::with_capacity(BUF, f),
            left: self.records,
        })
    }
}

/// A temporary file's records, read in the order written.
pub struct SpillReader {
    input: BufReader<File>,
    left: u64,
}

impl SpillReader {
    /// The next record into `buf` (cleared first); false at the end.
    ///
    /// # Errors
    /// 1026 on a read error.
    pub fn next(&mut self, buf: &mut Vec<u8>) -> Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        let mut len = [0u8; 4];
        self.input.read_exact(&mut len).map_err(io_err)?;
        buf.clear();
        buf.resize(u32::from_le_bytes(len) as usize, 0);
        self.input.read_exact(buf).map_err(io_err)?;
        self.left -= 1;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_records_round_trip() {
        let vals = vec![
            Value::Null,
            Value::Int(-5),
            Value::UInt(u64::MAX),
            Value::Float(1.5),
            Value::Double(-2.25),
            Value::Decimal(common::Decimal::new(-12345, 3)),
            Value::Str("héllo".into()),
            Value::Bytes(vec![0, 255, 7]),
            Value::Date(common::time::DateTime::date(2024, 2, 29)),
            Value::DateTime(common::time::DateTime::from_packed(123_456_789_000), 6),
            Value::Time(common::time::Time::from_micros(-3_600_000_001), 6),
        ];
        let mut w = SpillWriter::create(&std::env::temp_dir()).expect("create");
        for v in &vals {
            let mut rec = Vec::new();
            encode_value(v, &mut rec);
            w.write(&rec).expect("write");
        }
        let mut r = w.finish().expect("finish");
        let mut buf = Vec::new();
        for want in &vals {
            assert!(r.next(&mut buf).expect("read"));
            let mut pos = 0;
            assert_eq!(&decode_value(&buf, &mut pos).expect("decode"), want);
            assert_eq!(pos, buf.len());
        }
        assert!(!r.next(&mut buf).expect("end"));
    }
}
