//! The row value format: `schema version (varint) ‖ column count (varint) ‖ null bitmap ‖
//! every non-NULL column in order`. All columns (primary key ones included) are stored, so a row
//! decodes from its value alone. A row written with fewer columns (before an instant
//! `ADD COLUMN`) decodes with the missing trailing columns set to their default.

use common::time::{DateTime, Time};
use common::Decimal;
use common::{DataType, Result, Value};

use super::{
    bad_value, corrupt, enum_index, enum_name, get_ivarint, get_uvarint, put_ivarint, put_uvarint,
    set_mask, set_name, to_bytes, to_datetime, to_decimal, to_f64, to_i64, to_text, to_u64,
};
use crate::catalog::{ColumnDef, TableDef};

/// Encodes `row` (one value per column of `t`, in order) as a row value.
///
/// # Errors
/// Wrong number of values, or a value that cannot be converted to its column's type.
pub fn encode_row(t: &TableDef, row: &[Value]) -> Result<Vec<u8>> {
    if row.len() != t.columns.len() {
        return Err(common::Error::internal(format!(
            "row has {} values, table {}.{} has {} columns",
            row.len(),
            t.db,
            t.name,
            t.columns.len()
        )));
    }
    let n = row.len();
    // room for every value, strings included: growing the buffer reallocated it per row
    let strings: usize = row
        .iter()
        .map(|v| match v {
            Value::Str(s) => s.len(),
            Value::Bytes(b) => b.len(),
            _ => 0,
        })
        .sum();
    let mut out = Vec::with_capacity(8 + n * 10 + strings);
    put_uvarint(&mut out, t.version as u64);
    put_uvarint(&mut out, n as u64);
    let bm_start = out.len();
    out.resize(bm_start + n.div_ceil(8), 0);
    for (i, (c, v)) in t.columns.iter().zip(row).enumerate() {
        if v.is_null() {
            out[bm_start + i / 8] |= 1 << (i % 8);
            continue;
        }
        encode_value(&mut out, &c.ty, v)?;
    }
    Ok(out)
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_uvarint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn encode_value(out: &mut Vec<u8>, ty: &DataType, v: &Value) -> Result<()> {
    match ty {
        DataType::Int {
            unsigned: false, ..
        } => put_ivarint(
            out,
            to_i64(v).ok_or_else(|| bad_value(v, "a signed integer"))?,
        ),
        DataType::Int { unsigned: true, .. } | DataType::Bit { .. } => put_uvarint(
            out,
            to_u64(v).ok_or_else(|| bad_value(v, "an unsigned integer"))?,
        ),
        DataType::Float { .. } => {
            let f = match v {
                Value::Float(f) => *f,
                other => to_f64(other).ok_or_else(|| bad_value(v, "a float"))? as f32,
            };
            out.extend_from_slice(&f.to_le_bytes());
        }
        DataType::Double { .. } => out.extend_from_slice(
            &to_f64(v)
                .ok_or_else(|| bad_value(v, "a double"))?
                .to_le_bytes(),
        ),
        DataType::Decimal { .. } => {
            let d = to_decimal(v).ok_or_else(|| bad_value(v, "a decimal"))?;
            // exact scale, display scale, mantissa length, mantissa (two's complement, LE)
            let (mant, scale, frac) = d.to_raw();
            out.push(scale);
            out.push(frac);
            put_uvarint(out, mant.len() as u64);
            out.extend_from_slice(&mant);
        }
        DataType::Date | DataType::DateTime { .. } | DataType::Timestamp { .. } => {
            let d = to_datetime(v).ok_or_else(|| bad_value(v, "a date/time"))?;
            put_uvarint(out, d.to_packed());
        }
        DataType::Time { .. } => match v {
            Value::Time(t, _) => put_ivarint(out, t.to_micros()),
            _ => return Err(bad_value(v, "a time")),
        },
        DataType::Year => put_uvarint(
            out,
            to_i64(v).ok_or_else(|| bad_value(v, "a year"))?.max(0) as u64,
        ),
        DataType::Enum { values, collation } => put_uvarint(
            out,
            enum_index(values, *collation, v).ok_or_else(|| bad_value(v, "an ENUM member"))?,
        ),
        DataType::Set { values, collation } => put_uvarint(
            out,
            set_mask(values, *collation, v).ok_or_else(|| bad_value(v, "a SET value"))?,
        ),
        DataType::Char { .. }
        | DataType::VarChar { .. }
        | DataType::Text { .. }
        | DataType::Json => put_bytes(out, to_text(v).as_bytes()),
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. } => {
            put_bytes(out, &to_bytes(v))
        }
    }
    Ok(())
}

/// True if every value stored under column type `old` decodes, unchanged and valid, under
/// `new`: the same type, an integer type differing only in display width or ZEROFILL, a longer
/// VARCHAR/VARBINARY or larger TEXT/BLOB of the same collation,
/// or an ENUM/SET whose members were only appended to (member numbers are kept).
pub fn reads_as(old: &DataType, new: &DataType) -> bool {
    match (old, new) {
        _ if old == new => true,
        (
            DataType::Int {
                bytes: a,
                unsigned: ua,
                ..
            },
            DataType::Int {
                bytes: b,
                unsigned: ub,
                ..
            },
        ) => a == b && ua == ub,
        (
            DataType::VarChar {
                len: a,
                collation: ca,
            },
            DataType::VarChar {
                len: b,
                collation: cb,
            },
        ) => b >= a && ca == cb,
        (DataType::VarBinary { len: a }, DataType::VarBinary { len: b }) => b >= a,
        (
            DataType::Text {
                size: a,
                collation: ca,
            },
            DataType::Text {
                size: b,
                collation: cb,
            },
        ) => lob_rank(*b) >= lob_rank(*a) && ca == cb,
        (DataType::Blob { size: a }, DataType::Blob { size: b }) => lob_rank(*b) >= lob_rank(*a),
        (
            DataType::Enum {
                values: a,
                collation: ca,
            },
            DataType::Enum {
                values: b,
                collation: cb,
            },
        )
        | (
            DataType::Set {
                values: a,
                collation: ca,
            },
            DataType::Set {
                values: b,
                collation: cb,
            },
        ) => ca == cb && b.len() >= a.len() && b[..a.len()] == a[..],
        _ => false,
    }
}

fn lob_rank(s: common::types::LobSize) -> u8 {
    use common::types::LobSize;
    match s {
        LobSize::Tiny => 0,
        LobSize::Normal => 1,
        LobSize::Medium => 2,
        LobSize::Long => 3,
    }
}

fn get_bytes<'a>(buf: &'a [u8], pos: &mut usize) -> Result<&'a [u8]> {
    let n = get_uvarint(buf, pos)? as usize;
    let end = pos
        .checked_add(n)
        .filter(|e| *e <= buf.len())
        .ok_or_else(|| corrupt("truncated row string"))?;
    let s = &buf[*pos..end];
    *pos = end;
    Ok(s)
}

fn get_fixed<const N: usize>(buf: &[u8], pos: &mut usize) -> Result<[u8; N]> {
    let s = buf
        .get(*pos..*pos + N)
        .ok_or_else(|| corrupt("truncated row value"))?;
    *pos += N;
    s.try_into().map_err(|_| corrupt("truncated row value"))
}

fn decode_value(buf: &[u8], pos: &mut usize, ty: &DataType) -> Result<Value> {
    Ok(match ty {
        DataType::Int {
            unsigned: false, ..
        } => Value::Int(get_ivarint(buf, pos)?),
        DataType::Int { unsigned: true, .. } | DataType::Bit { .. } => {
            Value::UInt(get_uvarint(buf, pos)?)
        }
        DataType::Float { .. } => Value::Float(f32::from_le_bytes(get_fixed::<4>(buf, pos)?)),
        DataType::Double { .. } => Value::Double(f64::from_le_bytes(get_fixed::<8>(buf, pos)?)),
        DataType::Decimal { .. } => {
            let [scale, frac] = get_fixed::<2>(buf, pos)?;
            let len = get_uvarint(buf, pos)? as usize;
            if len > 64 {
                return Err(corrupt("decimal mantissa too long"));
            }
            let mant = buf
                .get(*pos..*pos + len)
                .ok_or_else(|| corrupt("truncated row value"))?;
            *pos += len;
            Value::Decimal(Decimal::from_raw(mant, scale, frac))
        }
        DataType::Date => Value::Date(DateTime::from_packed(get_uvarint(buf, pos)?)),
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            Value::DateTime(DateTime::from_packed(get_uvarint(buf, pos)?), *fsp)
        }
        DataType::Time { fsp } => {
            // a stored TIME is within ±838:59:59 (the store clamps; a fraction past it is
            // tolerated); beyond that the bytes are corrupt (i64::MIN would not even re-encode)
            let v = get_ivarint(buf, pos)?;
            if v.unsigned_abs() > Time::MAX_MICROS as u64 + 999_999 {
                return Err(corrupt("time out of range"));
            }
            Value::Time(Time::from_micros(v), *fsp)
        }
        // written from a non-negative i64: anything larger is corrupt (it would not re-encode)
        DataType::Year => Value::Int(
            i64::try_from(get_uvarint(buf, pos)?).map_err(|_| corrupt("year out of range"))?,
        ),
        DataType::Enum { values, .. } => Value::Str(enum_name(values, get_uvarint(buf, pos)?)),
        DataType::Set { values, .. } => Value::Str(set_name(values, get_uvarint(buf, pos)?)),
        DataType::Char { .. }
        | DataType::VarChar { .. }
        | DataType::Text { .. }
        | DataType::Json => {
            let b = get_bytes(buf, pos)?;
            Value::Str(match std::str::from_utf8(b) {
                Ok(s) => s.to_string(),
                Err(_) => String::from_utf8_lossy(b).into_owned(),
            })
        }
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. } => {
            Value::Bytes(get_bytes(buf, pos)?.to_vec())
        }
    })
}

/// The header of a row value: the position of the first column value, the number of stored
/// columns and the null bitmap.
fn row_header(bytes: &[u8]) -> Result<(usize, usize, &[u8])> {
    let mut pos = 0;
    let _version = get_uvarint(bytes, &mut pos)?;
    let stored = get_uvarint(bytes, &mut pos)? as usize;
    let bm = bytes
        .get(pos..pos + stored.div_ceil(8))
        .ok_or_else(|| corrupt("truncated null bitmap"))?;
    Ok((pos + stored.div_ceil(8), stored, bm))
}

/// Steps over one non-NULL value of type `ty` without building it.
fn skip_value(buf: &[u8], pos: &mut usize, ty: &DataType) -> Result<()> {
    match ty {
        DataType::Char { .. }
        | DataType::VarChar { .. }
        | DataType::Text { .. }
        | DataType::Json
        | DataType::Binary { .. }
        | DataType::VarBinary { .. }
        | DataType::Blob { .. } => get_bytes(buf, pos).map(drop),
        DataType::Enum { .. } | DataType::Set { .. } => get_uvarint(buf, pos).map(drop),
        // numbers and temporals decode without allocating
        other => decode_value(buf, pos, other).map(drop),
    }
}

/// Decodes a row value. Columns the stored row lacks (added after it was written) are `None`.
///
/// # Errors
/// Corrupt bytes.
pub fn decode_row_opt(t: &TableDef, bytes: &[u8]) -> Result<Vec<Option<Value>>> {
    let (mut pos, stored, bm) = row_header(bytes)?;
    let mut out = Vec::with_capacity(t.columns.len());
    for (i, c) in t.columns.iter().enumerate() {
        if i >= stored {
            out.push(None);
            continue;
        }
        if bm[i / 8] & (1 << (i % 8)) != 0 {
            out.push(Some(Value::Null));
            continue;
        }
        out.push(Some(decode_value(bytes, &mut pos, &c.ty)?));
    }
    Ok(out)
}

/// Decodes a row value; columns the stored row lacks get [`missing_column_value`].
///
/// # Errors
/// Corrupt bytes.
pub fn decode_row(t: &TableDef, bytes: &[u8]) -> Result<Vec<Value>> {
    decode_row_cols(t, bytes, None)
}

/// Like [`decode_row`], but only the columns marked in `cols` (one flag per column of `t`;
/// `None` = all) are built; the others are `NULL`. Long strings a query does not read are
/// then neither copied nor allocated.
///
/// # Errors
/// Corrupt bytes.
pub fn decode_row_cols(t: &TableDef, bytes: &[u8], cols: Option<&[bool]>) -> Result<Vec<Value>> {
    let (mut pos, stored, bm) = row_header(bytes)?;
    let mut out = Vec::with_capacity(t.columns.len());
    for (i, c) in t.columns.iter().enumerate() {
        let want = cols.is_none_or(|m| m.get(i).copied().unwrap_or(true));
        if i >= stored {
            out.push(if want {
                missing_column_value(c)
            } else {
                Value::Null
            });
        } else if bm[i / 8] & (1 << (i % 8)) != 0 {
            out.push(Value::Null);
        } else if want {
            out.push(decode_value(bytes, &mut pos, &c.ty)?);
        } else {
            skip_value(bytes, &mut pos, &c.ty)?;
            out.push(Value::Null);
        }
    }
    Ok(out)
}

/// The value of column `c` in a row stored before the column was added: its
/// [`ColumnDef::instant_default`] when set, else [`literal_default`].
pub fn missing_column_value(c: &ColumnDef) -> Value {
    match c.instant_default.as_deref() {
        Some(lit) => literal_value(&c.ty, lit),
        None => literal_default(c),
    }
}

/// The value of a column's DEFAULT clause when it is a literal (`'abc'`, `0`, `-1.5`, `NULL`,
/// `b'101'`, `0x1F`); `NULL` for no clause and for non-literal defaults such as
/// `CURRENT_TIMESTAMP` or `(expr)`, which the SQL layer must evaluate itself.
pub fn literal_default(c: &ColumnDef) -> Value {
    match c.default.as_deref() {
        Some(d) => literal_value(&c.ty, d),
        None => Value::Null,
    }
}

/// The value of the literal `d` (DEFAULT-clause syntax, see [`literal_default`]) converted to
/// `ty`; `NULL` when it is not a literal or does not convert.
pub fn literal_value(ty: &DataType, d: &str) -> Value {
    let d = d.trim();
    let text: String;
    let raw: Value = if d.eq_ignore_ascii_case("null") {
        return Value::Null;
    } else if let Some(inner) = d.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        text = inner.replace("''", "'").replace("\\'", "'");
        Value::Str(text.clone())
    } else if let Some(bits) = d
        .strip_prefix("b'")
        .or_else(|| d.strip_prefix("B'"))
        .and_then(|s| s.strip_suffix('\''))
    {
        match u64::from_str_radix(bits, 2) {
            Ok(v) => Value::UInt(v),
            Err(_) => return Value::Null,
        }
    } else if let Some(hex) = d.strip_prefix("0x") {
        match u64::from_str_radix(hex, 16) {
            Ok(v) => Value::UInt(v),
            Err(_) => return Value::Null,
        }
    } else if d.parse::<f64>().is_ok() {
        Value::Str(d.to_string())
    } else {
        return Value::Null;
    };
    coerce_literal(ty, raw).unwrap_or(Value::Null)
}

fn parse_datetime(s: &str) -> Option<(DateTime, bool)> {
    let s = s.trim();
    let (date, time) = match s.split_once([' ', 'T']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let mut it = date.split('-');
    let year = it.next()?.parse().ok()?;
    let month = it.next()?.parse().ok()?;
    let day = it.next()?.parse().ok()?;
    let mut dt = DateTime::date(year, month, day);
    if let Some(t) = time {
        let (hms, frac) = t.split_once('.').unwrap_or((t, ""));
        let mut it = hms.split(':');
        dt.hour = it.next()?.parse().ok()?;
        dt.minute = it.next().unwrap_or("0").parse().ok()?;
        dt.second = it.next().unwrap_or("0").parse().ok()?;
        if !frac.is_empty() {
            let f: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
            dt.micro = f.parse().ok()?;
        }
    }
    Some((dt, time.is_some()))
}

fn coerce_literal(ty: &DataType, v: Value) -> Option<Value> {
    Some(match ty {
        DataType::Int {
            unsigned: false, ..
        }
        | DataType::Year => {
            Value::Int(to_i64(&v).or_else(|| to_f64(&v).map(|f| f.round() as i64))?)
        }
        DataType::Int { unsigned: true, .. } | DataType::Bit { .. } => Value::UInt(to_u64(&v)?),
        DataType::Float { .. } => Value::Float(to_f64(&v)? as f32),
        DataType::Double { .. } => Value::Double(to_f64(&v)?),
        DataType::Decimal { scale, .. } => {
            let mut d = to_decimal(&v)?;
            d.rescale(*scale as u32);
            Value::Decimal(d)
        }
        DataType::Date => Value::Date(parse_datetime(&to_text(&v))?.0.date_part()),
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            Value::DateTime(parse_datetime(&to_text(&v))?.0, *fsp)
        }
        DataType::Time { fsp } => {
            let s = to_text(&v);
            let (neg, s) = match s.strip_prefix('-') {
                Some(r) => (true, r.to_string()),
                None => (false, s.to_string()),
            };
            let (hms, frac) = s.split_once('.').unwrap_or((&s, ""));
            let mut it = hms.split(':');
            let h: i64 = it.next()?.parse().ok()?;
            let m: i64 = it.next().unwrap_or("0").parse().ok()?;
            let sec: i64 = it.next().unwrap_or("0").parse().ok()?;
            let f: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
            let micros = ((h * 60 + m) * 60 + sec) * 1_000_000 + f.parse::<i64>().ok()?;
            Value::Time(Time::from_micros(if neg { -micros } else { micros }), *fsp)
        }
        DataType::Binary { .. } | DataType::VarBinary { .. } | DataType::Blob { .. } => {
            Value::Bytes(to_bytes(&v).into_owned())
        }
        _ => Value::Str(to_text(&v).into_owned()),
    })
}

#[cfg(test)]
mod tests {
    use common::Collation;

    use super::*;
    use crate::catalog::tests::col;
    use crate::catalog::{TableDef, TableOptions};

    fn table(cols: Vec<ColumnDef>) -> TableDef {
        TableDef {
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            temporary: false,
            partitioning: None,
            leaf: None,
            part_select: None,
            id: 1,
            db: "d".into(),
            name: "t".into(),
            columns: cols,
            indexes: vec![],
            hidden_pk: true,
            version: 1,
            options: TableOptions::default(),
        }
    }

    #[test]
    fn roundtrip_all_types() {
        let cols = vec![
            col(
                "i",
                DataType::Int {
                    bytes: 4,
                    unsigned: false,
                    width: None,
                    zerofill: false,
                },
            ),
            col(
                "u",
                DataType::Int {
                    bytes: 8,
                    unsigned: true,
                    width: None,
                    zerofill: false,
                },
            ),
            col(
                "f",
                DataType::Float {
                    md: None,
                    unsigned: false,
                },
            ),
            col(
                "d",
                DataType::Double {
                    md: None,
                    unsigned: false,
                },
            ),
            col(
                "m",
                DataType::Decimal {
                    precision: 10,
                    scale: 2,
                    unsigned: false,
                },
            ),
            col(
                "s",
                DataType::VarChar {
                    len: 10,
                    collation: Collation::Utf8mb4_0900AiCi,
                },
            ),
            col(
                "b",
                DataType::Blob {
                    size: common::types::LobSize::Normal,
                },
            ),
            col("dt", DataType::Date),
            col("ts", DataType::DateTime { fsp: 3 }),
            col("tm", DataType::Time { fsp: 0 }),
            col("y", DataType::Year),
            col(
                "e",
                DataType::Enum {
                    values: vec!["x".into(), "y".into()],
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
            col(
                "st",
                DataType::Set {
                    values: vec!["x".into(), "y".into()],
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
            col("bit", DataType::Bit { len: 5 }),
            col(
                "n",
                DataType::Int {
                    bytes: 4,
                    unsigned: false,
                    width: None,
                    zerofill: false,
                },
            ),
        ];
        let t = table(cols);
        let row = vec![
            Value::Int(-5),
            Value::UInt(u64::MAX),
            Value::Float(1.5),
            Value::Double(-2.25),
            Value::Decimal("-123.45".parse().unwrap()),
            Value::Str("héllo".into()),
            Value::Bytes(vec![0, 1, 255]),
            Value::Date(DateTime::date(2024, 1, 2)),
            Value::DateTime(
                DateTime {
                    year: 2024,
                    month: 1,
                    day: 2,
                    hour: 3,
                    minute: 4,
                    second: 5,
                    micro: 6000,
                },
                3,
            ),
            Value::Time(Time::from_micros(-3_600_000_000), 0),
            Value::Int(2024),
            Value::Str("y".into()),
            Value::Str("x,y".into()),
            Value::UInt(17),
            Value::Null,
        ];
        let b = encode_row(&t, &row).unwrap();
        assert_eq!(decode_row(&t, &b).unwrap(), row);
        // projected decoding: each column alone, and every other column, skips the rest
        // correctly whatever their types
        for want in 0..row.len() {
            let mask: Vec<bool> = (0..row.len()).map(|i| i == want).collect();
            let got = decode_row_cols(&t, &b, Some(&mask)).unwrap();
            for (i, v) in got.iter().enumerate() {
                let expect = if i == want { &row[i] } else { &Value::Null };
                assert_eq!(v, expect, "column {i} with only {want} wanted");
            }
        }
        let odd: Vec<bool> = (0..row.len()).map(|i| i % 2 == 1).collect();
        let got = decode_row_cols(&t, &b, Some(&odd)).unwrap();
        for (i, v) in got.iter().enumerate() {
            assert_eq!(v, if odd[i] { &row[i] } else { &Value::Null });
        }
    }

    #[test]
    fn wide_decimals_roundtrip() {
        let t = table(vec![col(
            "d",
            DataType::Decimal {
                precision: 65,
                scale: 30,
                unsigned: false,
            },
        )]);
        for s in [
            format!("{}.{}", "9".repeat(35), "9".repeat(30)),
            format!("-{}.{}", "9".repeat(35), "9".repeat(30)),
            "-0.000000000000000000000000000001".to_string(),
            "0".to_string(),
            "12345678901234567890123456789012345.5".to_string(),
        ] {
            let row = vec![Value::Decimal(s.parse().unwrap())];
            let b = encode_row(&t, &row).unwrap();
            let back = decode_row(&t, &b).unwrap();
            assert_eq!(back, row);
            assert_eq!(back[0].to_string(), row[0].to_string());
        }
    }

    #[test]
    fn missing_columns_get_defaults() {
        let mut t = table(vec![col(
            "a",
            DataType::Int {
                bytes: 4,
                unsigned: false,
                width: None,
                zerofill: false,
            },
        )]);
        let b = encode_row(&t, &[Value::Int(1)]).unwrap();
        let mut c = col(
            "s",
            DataType::VarChar {
                len: 10,
                collation: Collation::Utf8mb4Bin,
            },
        );
        c.default = Some("'it''s'".into());
        let mut d = col(
            "n",
            DataType::Decimal {
                precision: 5,
                scale: 2,
                unsigned: false,
            },
        );
        d.default = Some("1.5".into());
        let mut ts = col("ts", DataType::Timestamp { fsp: 0 });
        ts.default = Some("CURRENT_TIMESTAMP".into());
        let dt = {
            let mut c = col("dt", DataType::DateTime { fsp: 0 });
            c.default = Some("'2020-01-02 03:04:05'".into());
            c
        };
        t.columns.extend([
            c,
            d,
            ts,
            dt,
            col(
                "z",
                DataType::Int {
                    bytes: 4,
                    unsigned: false,
                    width: None,
                    zerofill: false,
                },
            ),
        ]);
        t.version = 2;
        let row = decode_row(&t, &b).unwrap();
        assert_eq!(row[0], Value::Int(1));
        assert_eq!(row[1], Value::Str("it's".into()));
        assert_eq!(row[2], Value::Decimal("1.50".parse().unwrap()));
        assert_eq!(row[3], Value::Null);
        assert_eq!(
            row[4],
            Value::DateTime(
                DateTime {
                    year: 2020,
                    month: 1,
                    day: 2,
                    hour: 3,
                    minute: 4,
                    second: 5,
                    micro: 0
                },
                0
            )
        );
        assert_eq!(row[5], Value::Null);
        assert_eq!(decode_row_opt(&t, &b).unwrap()[1], None);
    }

    #[test]
    fn instant_default_is_frozen_and_reads_as() {
        let int = DataType::Int {
            bytes: 4,
            unsigned: false,
            width: None,
            zerofill: false,
        };
        let mut t = table(vec![col("a", int.clone())]);
        let b = encode_row(&t, &[Value::Int(1)]).unwrap();
        let mut c = col("n", int.clone());
        c.nullable = false;
        c.default = Some("9".into());
        c.instant_default = Some("0".into());
        t.columns.push(c);
        assert_eq!(
            decode_row(&t, &b).unwrap(),
            vec![Value::Int(1), Value::Int(0)]
        );
        let vc = |len| DataType::VarChar {
            len,
            collation: Collation::Utf8mb4Bin,
        };
        assert!(reads_as(&vc(10), &vc(20)));
        assert!(!reads_as(&vc(20), &vc(10)));
        assert!(!reads_as(&int, &vc(10)));
        let e = |v: &[&str]| DataType::Enum {
            values: v.iter().map(|s| s.to_string()).collect(),
            collation: Collation::Utf8mb4Bin,
        };
        assert!(reads_as(&e(&["a", "b"]), &e(&["a", "b", "c"])));
        assert!(!reads_as(&e(&["a", "b"]), &e(&["b", "a", "c"])));
    }

    #[test]
    fn corrupt_rows_error() {
        let t = table(vec![col(
            "s",
            DataType::VarChar {
                len: 10,
                collation: Collation::Utf8mb4Bin,
            },
        )]);
        let mut b = encode_row(&t, &[Value::Str("abcdef".into())]).unwrap();
        b.truncate(b.len() - 2);
        assert!(decode_row(&t, &b).is_err());
        assert!(decode_row(&t, &[]).is_err());
    }
}
