//! WRITE_ROWS / UPDATE_ROWS / DELETE_ROWS events, version 2: table id, flags, extra data,
//! column bitmaps and the packed row images.

use crate::bytes::{bitmap_len, pack_bits, put_packed, put_uint_le, Reader};
use crate::column::ColumnDef;
use crate::error::{BinlogError, Result};
use crate::row::{decode_row_image, encode_row_image};
use crate::value::RowValue;

/// Rows-event flag: the last event of a statement.
pub const STMT_END_F: u16 = 1;
/// Rows-event flag: `foreign_key_checks=0`.
pub const NO_FOREIGN_KEY_CHECKS_F: u16 = 2;
/// Rows-event flag: `unique_checks=0`.
pub const RELAXED_UNIQUE_CHECKS_F: u16 = 4;
/// Rows-event flag: every column is in the image.
pub const COMPLETE_ROWS_F: u16 = 8;

/// Which row event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowsKind {
    /// WRITE_ROWS_EVENT (INSERT): after images.
    Write,
    /// UPDATE_ROWS_EVENT: before and after images.
    Update,
    /// DELETE_ROWS_EVENT: before images.
    Delete,
}

impl RowsKind {
    /// The v2 event type code (30, 31, 32).
    pub fn type_code(self) -> u8 {
        match self {
            RowsKind::Write => 30,
            RowsKind::Update => 31,
            RowsKind::Delete => 32,
        }
    }

    fn has_before(self) -> bool {
        self != RowsKind::Write
    }

    fn has_after(self) -> bool {
        self != RowsKind::Delete
    }
}

/// One changed row: the before image (UPDATE, DELETE) and after image (WRITE, UPDATE), each
/// holding the values of the columns present in the event's bitmaps.
#[derive(Clone, Debug, PartialEq)]
pub struct RowChange {
    /// The row before the change.
    pub before: Option<Vec<RowValue>>,
    /// The row after the change.
    pub after: Option<Vec<RowValue>>,
}

/// A rows event, with its row images kept encoded; [`RowsEvent::push_row`] appends a row and
/// [`RowsEvent::rows`] decodes them against the table's columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowsEvent {
    /// Write, update or delete.
    pub kind: RowsKind,
    /// The table id of the preceding TABLE_MAP.
    pub table_id: u64,
    /// [`STMT_END_F`] and friends.
    pub flags: u16,
    /// Extra row info after the 2-byte extra-data length (usually empty).
    pub extra_data: Vec<u8>,
    /// The table's column count.
    pub column_count: usize,
    /// Columns in the before image (UPDATE, DELETE), LSB-first.
    pub columns_before: Vec<u8>,
    /// Columns in the after image (WRITE, UPDATE), LSB-first.
    pub columns_after: Vec<u8>,
    /// The encoded row images.
    pub rows_data: Vec<u8>,
}

/// MySQL's limit on the columns of a table.
const MAX_COLUMNS: usize = 4096;

impl RowsEvent {
    /// An empty event over all `column_count` columns (`binlog_row_image=FULL`).
    pub fn new(kind: RowsKind, table_id: u64, column_count: usize) -> Self {
        let all = pack_bits((0..column_count).map(|_| true));
        RowsEvent {
            kind,
            table_id,
            flags: 0,
            extra_data: Vec::new(),
            column_count,
            columns_before: if kind.has_before() {
                all.clone()
            } else {
                Vec::new()
            },
            columns_after: if kind.has_after() { all } else { Vec::new() },
            rows_data: Vec::new(),
        }
    }

    /// Appends one row. `before` is required for UPDATE and DELETE, `after` for WRITE and
    /// UPDATE, each with one value per column present in the matching bitmap.
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] for a missing or extra image or a value that does not fit.
    pub fn push_row(
        &mut self,
        columns: &[ColumnDef],
        before: Option<&[RowValue]>,
        after: Option<&[RowValue]>,
    ) -> Result<()> {
        if columns.len() != self.column_count
            || before.is_some() != self.kind.has_before()
            || after.is_some() != self.kind.has_after()
        {
            return Err(BinlogError::invalid(format!(
                "row images do not match a {:?} event of {} columns",
                self.kind, self.column_count
            )));
        }
        let start = self.rows_data.len();
        let put = |bitmap: &[u8], values: Option<&[RowValue]>, out: &mut Vec<u8>| match values {
            Some(v) => encode_row_image(columns, bitmap, v, out),
            None => Ok(()),
        };
        let r = put(&self.columns_before, before, &mut self.rows_data)
            .and_then(|_| put(&self.columns_after, after, &mut self.rows_data));
        if r.is_err() {
            self.rows_data.truncate(start);
        }
        r
    }

    /// Decodes the row images against the table's columns.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed rows, or when
    /// `columns` does not have the event's column count.
    pub fn rows(&self, columns: &[ColumnDef]) -> Result<Vec<RowChange>> {
        if columns.len() != self.column_count {
            return Err(BinlogError::corrupt(
                "rows event",
                format!(
                    "{} columns, table map has {}",
                    self.column_count,
                    columns.len()
                ),
            ));
        }
        let mut r = Reader::new(&self.rows_data);
        let mut out = Vec::new();
        while !r.is_empty() {
            let at = r.position();
            let before = if self.kind.has_before() {
                Some(decode_row_image(columns, &self.columns_before, &mut r)?)
            } else {
                None
            };
            let after = if self.kind.has_after() {
                Some(decode_row_image(columns, &self.columns_after, &mut r)?)
            } else {
                None
            };
            if r.position() == at {
                return Err(BinlogError::corrupt(
                    "rows event",
                    "row images without columns",
                ));
            }
            out.push(RowChange { before, after });
        }
        Ok(out)
    }

    /// The body length [`RowsEvent::encode_body`] writes.
    pub fn body_len(&self) -> usize {
        let mut v = Vec::new();
        put_packed(&mut v, self.column_count as u64);
        10 + self.extra_data.len()
            + v.len()
            + self.columns_before.len()
            + self.columns_after.len()
            + self.rows_data.len()
    }

    /// Appends the body.
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] for a table id over 48 bits or extra data over 65533 bytes.
    pub fn encode_body(&self, out: &mut Vec<u8>) -> Result<()> {
        if self.table_id >> 48 != 0 || self.extra_data.len() > usize::from(u16::MAX) - 2 {
            return Err(BinlogError::invalid(
                "rows event table id or extra data too large",
            ));
        }
        put_uint_le(out, self.table_id, 6);
        put_uint_le(out, u64::from(self.flags), 2);
        put_uint_le(out, 2 + self.extra_data.len() as u64, 2);
        out.extend_from_slice(&self.extra_data);
        put_packed(out, self.column_count as u64);
        out.extend_from_slice(&self.columns_before);
        out.extend_from_slice(&self.columns_after);
        out.extend_from_slice(&self.rows_data);
        Ok(())
    }

    /// Parses the body of a rows event of `kind`.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed input.
    pub fn decode_body(kind: RowsKind, body: &[u8]) -> Result<Self> {
        const W: &str = "rows event";
        let mut r = Reader::new(body);
        let table_id = r.uint_le(6, W)?;
        let flags = r.u16(W)?;
        let extra_len = usize::from(r.u16(W)?);
        if extra_len < 2 {
            return Err(BinlogError::corrupt(
                W,
                format!("extra data length {extra_len}"),
            ));
        }
        let extra_data = r.bytes(extra_len - 2, W)?.to_vec();
        // a count, not a length: a row of many NULLs can be shorter than its column count
        let column_count = usize::try_from(r.packed(W)?)
            .ok()
            .filter(|&c| c <= MAX_COLUMNS)
            .ok_or_else(|| BinlogError::corrupt(W, "column count"))?;
        let n = bitmap_len(column_count);
        let columns_before = if kind.has_before() {
            r.bytes(n, W)?.to_vec()
        } else {
            Vec::new()
        };
        let columns_after = if kind.has_after() {
            r.bytes(n, W)?.to_vec()
        } else {
            Vec::new()
        };
        Ok(RowsEvent {
            kind,
            table_id,
            flags,
            extra_data,
            column_count,
            columns_before,
            columns_after,
            rows_data: r.rest().to_vec(),
        })
    }
}
