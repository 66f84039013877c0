//! TABLE_MAP_EVENT: maps a table id to a table's schema, name and column layout for the row
//! events that follow; the optional metadata lives in [`super::table_meta`].

use super::table_meta::{decode_optional, encode_optional};
use crate::bytes::{bit, pack_bits, put_packed, put_uint_le, Reader};
use crate::column::{ColumnDef, ColumnType};
use crate::error::{BinlogError, Result};

/// How much optional metadata a TABLE_MAP carries (`binlog_row_metadata`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RowMetadata {
    /// Signedness and character sets (MySQL's default).
    #[default]
    Minimal,
    /// Also column names, ENUM/SET strings and the primary key.
    Full,
}

/// `TM_BIT_LEN_EXACT_F`, the flag MySQL sets on every TABLE_MAP.
pub const TM_BIT_LEN_EXACT_F: u16 = 1;

/// TABLE_MAP_EVENT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableMapEvent {
    /// The table id (6 bytes on disk) the row events refer to.
    pub table_id: u64,
    /// Flags ([`TM_BIT_LEN_EXACT_F`]).
    pub flags: u16,
    /// Database name.
    pub schema: String,
    /// Table name.
    pub table: String,
    /// The columns, in table order.
    pub columns: Vec<ColumnDef>,
    /// Primary key columns as (column index, prefix length; 0 = whole column).
    pub primary_key: Vec<(usize, usize)>,
    /// Which optional metadata to write (on decode: `Full` when column names were present).
    pub metadata: RowMetadata,
}

impl TableMapEvent {
    /// A table map for `schema.table` with `columns`, MINIMAL metadata, no primary key.
    pub fn new(table_id: u64, schema: &str, table: &str, columns: Vec<ColumnDef>) -> Self {
        TableMapEvent {
            table_id,
            flags: TM_BIT_LEN_EXACT_F,
            schema: schema.to_string(),
            table: table.to_string(),
            columns,
            primary_key: Vec::new(),
            metadata: RowMetadata::Minimal,
        }
    }

    /// Appends the body.
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] for names over 255 bytes or a table id over 48 bits.
    pub fn encode_body(&self, out: &mut Vec<u8>) -> Result<()> {
        if self.table_id >> 48 != 0 {
            return Err(BinlogError::invalid(format!(
                "table id {} over 48 bits",
                self.table_id
            )));
        }
        put_uint_le(out, self.table_id, 6);
        put_uint_le(out, u64::from(self.flags), 2);
        for name in [&self.schema, &self.table] {
            if name.len() > 255 {
                return Err(BinlogError::invalid(format!("name '{name}' too long")));
            }
            out.push(name.len() as u8);
            out.extend_from_slice(name.as_bytes());
            out.push(0);
        }
        put_packed(out, self.columns.len() as u64);
        out.extend(self.columns.iter().map(|c| c.column_type.code()));
        let mut meta = Vec::new();
        for c in &self.columns {
            c.encode_meta(&mut meta);
        }
        put_packed(out, meta.len() as u64);
        out.extend_from_slice(&meta);
        out.extend_from_slice(&pack_bits(self.columns.iter().map(|c| c.nullable)));
        encode_optional(self, out);
        Ok(())
    }

    /// Parses the body.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed input.
    pub fn decode_body(body: &[u8]) -> Result<Self> {
        const W: &str = "TABLE_MAP event";
        let mut r = Reader::new(body);
        let table_id = r.uint_le(6, W)?;
        let flags = r.u16(W)?;
        let mut names = Vec::new();
        for _ in 0..2 {
            let n = usize::from(r.u8(W)?);
            let s = r.bytes(n, W)?;
            names.push(
                String::from_utf8(s.to_vec())
                    .map_err(|_| BinlogError::corrupt(W, "name is not UTF-8"))?,
            );
            if r.u8(W)? != 0 {
                return Err(BinlogError::corrupt(W, "name not NUL-terminated"));
            }
        }
        let n = r.packed_len(W)?;
        let types = r.bytes(n, W)?;
        let meta_len = r.packed_len(W)?;
        let mut meta = Reader::new(r.bytes(meta_len, W)?);
        let mut columns = Vec::with_capacity(n);
        for &t in types {
            let ct = ColumnType::from_code(t)
                .ok_or_else(|| BinlogError::corrupt(W, format!("column type {t}")))?;
            let m = ColumnDef::decode_meta(ct, &mut meta)?;
            columns.push(ColumnDef::new("", ct, m));
        }
        if !meta.is_empty() {
            return Err(BinlogError::corrupt(
                W,
                "metadata block longer than its columns",
            ));
        }
        let nulls = r.bytes(n.div_ceil(8), W)?;
        for (i, c) in columns.iter_mut().enumerate() {
            c.nullable = bit(nulls, i);
        }
        let table = names.pop().unwrap_or_default();
        let schema = names.pop().unwrap_or_default();
        let mut ev = TableMapEvent {
            table_id,
            flags,
            schema,
            table,
            columns,
            primary_key: Vec::new(),
            metadata: RowMetadata::Minimal,
        };
        decode_optional(&mut ev, r.rest())?;
        Ok(ev)
    }
}
