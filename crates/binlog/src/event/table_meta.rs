//! TABLE_MAP optional metadata (type–length–value fields after the null bitmap): signedness,
//! character sets and geometry types always, and with `binlog_row_metadata=FULL` column names,
//! ENUM/SET strings and charsets, the primary key and column visibility.

use super::table_map::{RowMetadata, TableMapEvent};
use crate::bytes::{put_packed, Reader};
use crate::column::{ColumnDef, ColumnType};
use crate::error::{BinlogError, Result};

const SIGNEDNESS: u8 = 1;
const DEFAULT_CHARSET: u8 = 2;
const COLUMN_CHARSET: u8 = 3;
const COLUMN_NAME: u8 = 4;
const SET_STR_VALUE: u8 = 5;
const ENUM_STR_VALUE: u8 = 6;
const GEOMETRY_TYPE: u8 = 7;
const SIMPLE_PRIMARY_KEY: u8 = 8;
const PRIMARY_KEY_WITH_PREFIX: u8 = 9;
const ENUM_AND_SET_DEFAULT_CHARSET: u8 = 10;
const ENUM_AND_SET_COLUMN_CHARSET: u8 = 11;
const COLUMN_VISIBILITY: u8 = 12;

fn put_tlv(out: &mut Vec<u8>, t: u8, value: &[u8]) {
    out.push(t);
    put_packed(out, value.len() as u64);
    out.extend_from_slice(value);
}

/// Writes the collations of the columns selected by `pick`, choosing the default-plus-
/// exceptions layout or the one-per-column layout by MySQL's size estimate (one byte per index
/// and per collation).
fn put_charsets(
    out: &mut Vec<u8>,
    cols: &[ColumnDef],
    pick: fn(&ColumnDef) -> bool,
    types: (u8, u8),
) {
    let colls: Vec<u16> = cols
        .iter()
        .filter(|c| pick(c))
        .map(|c| c.collation)
        .collect();
    if colls.is_empty() {
        return;
    }
    let mut counts = std::collections::BTreeMap::new();
    for &c in &colls {
        *counts.entry(c).or_insert(0usize) += 1;
    }
    // The first most-used collation in id order, as MySQL's std::map scan finds it.
    let (mut default, mut most) = (0u16, 0usize);
    for (&c, &n) in &counts {
        if n > most {
            (default, most) = (c, n);
        }
    }
    let mut v = Vec::new();
    if colls.len() < 1 + (colls.len() - most) * 2 {
        for &c in &colls {
            put_packed(&mut v, u64::from(c));
        }
        put_tlv(out, types.1, &v);
    } else {
        put_packed(&mut v, u64::from(default));
        for (i, &c) in colls.iter().enumerate() {
            if c != default {
                put_packed(&mut v, i as u64);
                put_packed(&mut v, u64::from(c));
            }
        }
        put_tlv(out, types.0, &v);
    }
}

fn put_str_values(out: &mut Vec<u8>, cols: &[ColumnDef], real: ColumnType, t: u8) {
    let mut v = Vec::new();
    let mut any = false;
    for c in cols.iter().filter(|c| c.real_type() == real) {
        any = true;
        put_packed(&mut v, c.elements.len() as u64);
        for e in &c.elements {
            put_packed(&mut v, e.len() as u64);
            v.extend_from_slice(e);
        }
    }
    if any {
        put_tlv(out, t, &v);
    }
}

/// Booleans packed most significant bit first (SIGNEDNESS, COLUMN_VISIBILITY).
fn msb_bits(bits: &[bool]) -> Vec<u8> {
    let mut v = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        if b {
            v[i / 8] |= 0x80 >> (i % 8);
        }
    }
    v
}

fn put_packed_list(out: &mut Vec<u8>, t: u8, values: impl IntoIterator<Item = u64>) {
    let mut v = Vec::new();
    let mut any = false;
    for x in values {
        any = true;
        put_packed(&mut v, x);
    }
    if any {
        put_tlv(out, t, &v);
    }
}

/// Appends the optional metadata of `ev` in the order MySQL 8.4 writes it
/// (`Table_map_log_event::init_metadata_fields`): signedness, charsets and geometry types
/// always; the rest with `binlog_row_metadata=FULL`.
pub(super) fn encode_optional(ev: &TableMapEvent, out: &mut Vec<u8>) {
    let cols = &ev.columns;
    let numeric: Vec<bool> = cols
        .iter()
        .filter(|c| c.is_numeric())
        .map(|c| c.unsigned)
        .collect();
    if !numeric.is_empty() {
        put_tlv(out, SIGNEDNESS, &msb_bits(&numeric));
    }
    let charsets = (DEFAULT_CHARSET, COLUMN_CHARSET);
    put_charsets(out, cols, ColumnDef::is_character, charsets);
    let geometry = cols
        .iter()
        .filter(|c| c.column_type == ColumnType::Geometry);
    put_packed_list(
        out,
        GEOMETRY_TYPE,
        geometry.map(|c| u64::from(c.geometry_type)),
    );
    if ev.metadata != RowMetadata::Full {
        return;
    }
    let mut names = Vec::new();
    for c in cols {
        put_packed(&mut names, c.name.len() as u64);
        names.extend_from_slice(c.name.as_bytes());
    }
    put_tlv(out, COLUMN_NAME, &names);
    let charsets = (ENUM_AND_SET_DEFAULT_CHARSET, ENUM_AND_SET_COLUMN_CHARSET);
    put_charsets(out, cols, ColumnDef::is_enum_or_set, charsets);
    put_str_values(out, cols, ColumnType::Set, SET_STR_VALUE);
    put_str_values(out, cols, ColumnType::Enum, ENUM_STR_VALUE);
    if ev.primary_key.iter().all(|&(_, prefix)| prefix == 0) {
        let key = ev.primary_key.iter().map(|&(i, _)| i as u64);
        put_packed_list(out, SIMPLE_PRIMARY_KEY, key);
    } else {
        let key = ev
            .primary_key
            .iter()
            .flat_map(|&(i, p)| [i as u64, p as u64]);
        put_packed_list(out, PRIMARY_KEY_WITH_PREFIX, key);
    }
    let visible: Vec<bool> = cols.iter().map(|c| !c.invisible).collect();
    put_tlv(out, COLUMN_VISIBILITY, &msb_bits(&visible));
}

const W: &str = "TABLE_MAP optional metadata";

/// Indexes of the columns selected by `pick`.
fn indexes(cols: &[ColumnDef], pick: impl Fn(&ColumnDef) -> bool) -> Vec<usize> {
    (0..cols.len()).filter(|&i| pick(&cols[i])).collect()
}

fn nth(idx: &[usize], i: u64) -> Result<usize> {
    usize::try_from(i)
        .ok()
        .and_then(|i| idx.get(i).copied())
        .ok_or_else(|| BinlogError::corrupt(W, format!("column index {i} out of range")))
}

fn packed_u16(r: &mut Reader<'_>) -> Result<u16> {
    u16::try_from(r.packed(W)?).map_err(|_| BinlogError::corrupt(W, "collation id too large"))
}

fn read_charsets(
    cols: &mut [ColumnDef],
    idx: &[usize],
    v: &[u8],
    with_default: bool,
) -> Result<()> {
    let mut r = Reader::new(v);
    if with_default {
        let default = packed_u16(&mut r)?;
        for &i in idx {
            cols[i].collation = default;
        }
        while !r.is_empty() {
            let i = nth(idx, r.packed(W)?)?;
            cols[i].collation = packed_u16(&mut r)?;
        }
    } else {
        let mut k = 0u64;
        while !r.is_empty() {
            let i = nth(idx, k)?;
            cols[i].collation = packed_u16(&mut r)?;
            k += 1;
        }
    }
    Ok(())
}

fn read_str_values(cols: &mut [ColumnDef], idx: &[usize], v: &[u8]) -> Result<()> {
    let mut r = Reader::new(v);
    let mut k = 0u64;
    while !r.is_empty() {
        let i = nth(idx, k)?;
        let n = r.packed_len(W)?;
        let mut elements = Vec::with_capacity(n);
        for _ in 0..n {
            let len = r.packed_len(W)?;
            elements.push(r.bytes(len, W)?.to_vec());
        }
        cols[i].elements = elements;
        k += 1;
    }
    Ok(())
}

/// Applies the optional metadata in `bytes` to the columns of `ev`; unknown fields are skipped.
pub(super) fn decode_optional(ev: &mut TableMapEvent, bytes: &[u8]) -> Result<()> {
    let mut r = Reader::new(bytes);
    let all: Vec<usize> = (0..ev.columns.len()).collect();
    while !r.is_empty() {
        let t = r.u8(W)?;
        let len = r.packed_len(W)?;
        let v = r.bytes(len, W)?;
        let cols = &mut ev.columns;
        match t {
            SIGNEDNESS => {
                for (k, i) in indexes(cols, ColumnDef::is_numeric).into_iter().enumerate() {
                    let byte = v.get(k / 8).ok_or(BinlogError::Truncated { what: W })?;
                    cols[i].unsigned = byte & (0x80 >> (k % 8)) != 0;
                }
            }
            DEFAULT_CHARSET | COLUMN_CHARSET => {
                let idx = indexes(cols, ColumnDef::is_character);
                read_charsets(cols, &idx, v, t == DEFAULT_CHARSET)?;
            }
            ENUM_AND_SET_DEFAULT_CHARSET | ENUM_AND_SET_COLUMN_CHARSET => {
                let idx = indexes(cols, ColumnDef::is_enum_or_set);
                read_charsets(cols, &idx, v, t == ENUM_AND_SET_DEFAULT_CHARSET)?;
            }
            COLUMN_NAME => {
                let mut r = Reader::new(v);
                let mut k = 0u64;
                while !r.is_empty() {
                    let i = nth(&all, k)?;
                    let n = r.packed_len(W)?;
                    cols[i].name = String::from_utf8_lossy(r.bytes(n, W)?).into_owned();
                    k += 1;
                }
                ev.metadata = RowMetadata::Full;
            }
            SET_STR_VALUE | ENUM_STR_VALUE => {
                let real = if t == SET_STR_VALUE {
                    ColumnType::Set
                } else {
                    ColumnType::Enum
                };
                let idx = indexes(cols, |c| c.real_type() == real);
                read_str_values(cols, &idx, v)?;
            }
            GEOMETRY_TYPE => {
                let idx = indexes(cols, |c| c.column_type == ColumnType::Geometry);
                let mut r = Reader::new(v);
                let mut k = 0u64;
                while !r.is_empty() {
                    let i = nth(&idx, k)?;
                    cols[i].geometry_type = r.packed(W)? as u32;
                    k += 1;
                }
            }
            SIMPLE_PRIMARY_KEY | PRIMARY_KEY_WITH_PREFIX => {
                let mut r = Reader::new(v);
                let mut pk = Vec::new();
                while !r.is_empty() {
                    let i = nth(&all, r.packed(W)?)?;
                    let prefix = if t == SIMPLE_PRIMARY_KEY {
                        0
                    } else {
                        r.packed(W)? as usize
                    };
                    pk.push((i, prefix));
                }
                ev.primary_key = pk;
            }
            COLUMN_VISIBILITY => {
                for (i, c) in cols.iter_mut().enumerate() {
                    let byte = v.get(i / 8).ok_or(BinlogError::Truncated { what: W })?;
                    c.invisible = byte & (0x80 >> (i % 8)) == 0;
                }
            }
            _ => {}
        }
    }
    Ok(())
}
