//! Server-side cursors (COM_STMT_EXECUTE with `CURSOR_TYPE_READ_ONLY`, then COM_STMT_FETCH):
//! the statement's result is materialised at EXECUTE into an unnamed temporary file of encoded
//! binary-protocol rows, which each COM_STMT_FETCH reads on from where the last one stopped.
//!
//! MySQL materialises a cursor the same way (into an internal temporary table,
//! `sql/sql_cursor.cc` `Materialized_cursor`), so the rows a client has not fetched yet hold no
//! memory and no storage snapshot. Here the rows are encoded once, as they are produced: the
//! memory used is a row and two I/O buffers, whatever the size of the result.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use common::client::{Client, RowSink};
use common::{codes, ColumnMeta, Error, ErrorCode, Value};

use crate::binary::put_binary_row;
use crate::packet::put_lenenc_int;

/// Bytes buffered between the cursor file and the rows (each way).
const FILE_BUFFER: usize = 64 << 10;

/// 1024: a cursor's temporary file could not be read back (not in `common::codes`).
const ER_ERROR_ON_READ: ErrorCode = ErrorCode {
    num: 1024,
    sqlstate: "HY000",
    name: "ER_ERROR_ON_READ",
};

/// Where a statement executed for a cursor sends its result: a [`Client`] whose row sink
/// encodes each row as a binary-protocol row packet payload and appends it, length-prefixed
/// (a length-encoded integer), to an unnamed temporary file. `LOAD DATA LOCAL` is refused, as
/// for any COM_STMT_EXECUTE.
pub struct CursorWriter {
    file: BufWriter<File>,
    columns: Vec<ColumnMeta>,
    /// The row being encoded (reused).
    buf: Vec<u8>,
    rows: u64,
}

impl CursorWriter {
    /// A writer on a new unnamed temporary file in `dir` (else the system's temporary
    /// directory): `O_TMPFILE` where the file system has it, else created and unlinked at once
    /// (`tempfile::tempfile_in`), so it is gone once closed, also when the server dies.
    ///
    /// # Errors
    /// 1026 when the file cannot be created.
    pub fn new(dir: Option<&Path>) -> common::Result<Self> {
        let file = match dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        };
        let file = file.map_err(write_error)?;
        Ok(CursorWriter {
            file: BufWriter::with_capacity(FILE_BUFFER, file),
            columns: Vec::new(),
            buf: Vec::new(),
            rows: 0,
        })
    }

    /// The columns of the result (set by [`RowSink::columns`] or [`CursorWriter::set_columns`]).
    pub fn columns(&self) -> &[ColumnMeta] {
        &self.columns
    }

    /// Sets the columns of a result the session returned whole, before its rows are written.
    pub fn set_columns(&mut self, columns: Vec<ColumnMeta>) {
        self.columns = columns;
    }

    /// Ends the writing: returns the result's columns and the file, rewound, as a cursor
    /// positioned on the first row.
    ///
    /// # Errors
    /// 1026 when the buffered rows cannot be written out.
    pub fn finish(self) -> common::Result<(Vec<ColumnMeta>, Cursor)> {
        let mut file = self
            .file
            .into_inner()
            .map_err(|e| write_error(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(write_error)?;
        let cursor = Cursor {
            file: BufReader::with_capacity(FILE_BUFFER, file),
            remaining: self.rows,
            buf: Vec::new(),
        };
        Ok((self.columns, cursor))
    }
}

impl RowSink for CursorWriter {
    fn columns(&mut self, columns: Vec<ColumnMeta>, _status: u16) -> common::Result<()> {
        self.columns = columns;
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> common::Result<()> {
        self.buf.clear();
        put_binary_row(&mut self.buf, &self.columns, row);
        let mut len = Vec::with_capacity(9);
        put_lenenc_int(&mut len, self.buf.len() as u64);
        self.file.write_all(&len).map_err(write_error)?;
        self.file.write_all(&self.buf).map_err(write_error)?;
        self.rows += 1;
        Ok(())
    }
}

impl Client for CursorWriter {
    fn open(&mut self, _name: &str) -> common::Result<Box<dyn Read + '_>> {
        Err(common::client::local_files_disabled())
    }

    fn rows(&mut self) -> Option<&mut dyn RowSink> {
        Some(self)
    }
}

/// An open cursor: the rows of a materialised result not fetched yet.
pub struct Cursor {
    file: BufReader<File>,
    remaining: u64,
    /// The row last read (reused).
    buf: Vec<u8>,
}

impl Cursor {
    /// Rows not fetched yet.
    pub fn remaining(&self) -> u64 {
        self.remaining
    }

    /// The next row packet payload, `None` after the last.
    ///
    /// # Errors
    /// 1024 when the file cannot be read (the cursor is then unusable).
    pub fn next_row(&mut self) -> common::Result<Option<&[u8]>> {
        if self.remaining == 0 {
            return Ok(None);
        }
        let len = read_lenenc(&mut self.file).map_err(read_error)?;
        let len =
            usize::try_from(len).map_err(|_| read_error(io::ErrorKind::InvalidData.into()))?;
        self.buf.resize(len, 0);
        self.file.read_exact(&mut self.buf).map_err(read_error)?;
        self.remaining -= 1;
        Ok(Some(&self.buf))
    }
}

/// A length-encoded integer as [`put_lenenc_int`] writes it.
fn read_lenenc(r: &mut impl BufRead) -> io::Result<u64> {
    let mut first = [0u8; 1];
    r.read_exact(&mut first)?;
    let n = match first[0] {
        b @ 0..=250 => return Ok(b as u64),
        0xFC => 2,
        0xFD => 3,
        0xFE => 8,
        _ => return Err(io::ErrorKind::InvalidData.into()),
    };
    let mut v = [0u8; 8];
    r.read_exact(&mut v[..n])?;
    Ok(u64::from_le_bytes(v))
}

fn write_error(e: io::Error) -> Error {
    Error::new(
        codes::ER_ERROR_ON_WRITE,
        format!("Error writing file '(cursor temporary file)' (Errcode: {e})"),
    )
}

fn read_error(e: io::Error) -> Error {
    Error::new(
        ER_ERROR_ON_READ,
        format!("Error reading file '(cursor temporary file)' (Errcode: {e})"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use common::types::field_type;

    fn col(t: u8) -> ColumnMeta {
        ColumnMeta {
            name: "c".into(),
            field_type: t,
            ..Default::default()
        }
    }

    #[test]
    fn rows_read_back_in_order_with_every_length_prefix_size() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = CursorWriter::new(Some(dir.path())).unwrap();
        RowSink::columns(&mut w, vec![col(field_type::BLOB)], 0).unwrap();
        // payloads of 1-, 3-, 4- and 9-byte length prefixes
        let sizes = [0usize, 10, 300, 70_000, 1 << 24];
        for n in sizes {
            w.row(&[Value::Bytes(vec![b'x'; n])]).unwrap();
        }
        w.row(&[Value::Null]).unwrap();
        let (_, mut c) = w.finish().unwrap();
        assert_eq!(c.remaining(), sizes.len() as u64 + 1);
        for n in sizes {
            let mut expect = Vec::new();
            put_binary_row(
                &mut expect,
                &[col(field_type::BLOB)],
                &[Value::Bytes(vec![b'x'; n])],
            );
            assert_eq!(c.next_row().unwrap(), Some(&expect[..]), "row of {n} bytes");
        }
        assert_eq!(
            c.next_row().unwrap(),
            Some(&[0x00, 0x04][..]),
            "NULL bitmap"
        );
        assert_eq!(c.remaining(), 0);
        assert_eq!(c.next_row().unwrap(), None);
    }

    #[test]
    fn an_empty_result_is_a_cursor_without_rows() {
        let mut w = CursorWriter::new(None).unwrap();
        w.set_columns(vec![col(field_type::LONGLONG)]);
        assert_eq!(w.columns().len(), 1);
        let (columns, mut c) = w.finish().unwrap();
        assert_eq!(columns.len(), 1);
        assert_eq!(c.next_row().unwrap(), None);
    }

    #[test]
    fn local_files_are_refused() {
        let mut w = CursorWriter::new(None).unwrap();
        let e = w.open("x").err().unwrap();
        assert_eq!(e.code.num, 3948);
        assert!(w.rows().is_some());
    }
}
