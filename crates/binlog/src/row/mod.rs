//! Row images: how each column type's value is laid out in WRITE/UPDATE/DELETE_ROWS events
//! ([`encode_value`], [`decode_value`]) and a whole image with its null bitmap
//! ([`encode_row_image`], [`decode_row_image`]).

mod decimal;
mod scalar;
mod temporal;

pub use decimal::{decimal_size, decode_decimal, encode_decimal};
use scalar::{decode_scalar, encode_scalar};
pub use temporal::*;

use crate::bytes::{bit, bitmap_len, pack_bits, Reader};
use crate::column::{ColumnDef, ColumnType};
use crate::error::{BinlogError, Result};
use crate::value::RowValue;

/// Appends `value` as a row event stores a non-NULL value of `col`.
///
/// # Errors
/// [`BinlogError::InvalidValue`] when the value's variant does not suit the column type or the
/// value is out of the column's range (too long, too many digits, …).
pub fn encode_value(col: &ColumnDef, value: &RowValue, out: &mut Vec<u8>) -> Result<()> {
    use ColumnType as T;
    let fsp = col.meta as u8;
    let mismatch = || {
        BinlogError::invalid(format!(
            "{value:?} is not a value for column '{}' of type {:?}",
            col.name,
            col.real_type()
        ))
    };
    match (col.column_type, value) {
        (_, RowValue::Null) => Err(BinlogError::invalid("NULL is written in the null bitmap")),
        (T::NewDecimal, RowValue::Decimal(text)) => {
            let (p, s) = col.decimal_info();
            encode_decimal(text, p, s, out)
        }
        (T::Date | T::NewDate, RowValue::Date(d)) => encode_date(d, out),
        (T::Year, RowValue::Year(y)) => encode_year(*y, out),
        (T::DateTime2, RowValue::DateTime(dt)) => encode_datetime2(dt, fsp, out),
        (T::Time2, RowValue::Time(t)) => encode_time2(t, fsp, out),
        (T::Timestamp2, RowValue::Timestamp(ts)) => encode_timestamp2(ts, fsp, out),
        (T::DateTime, RowValue::DateTime(dt)) => encode_datetime_old(dt, out),
        (T::Time, RowValue::Time(t)) => encode_time_old(t, out),
        (T::Timestamp, RowValue::Timestamp(ts)) => {
            out.extend_from_slice(&ts.seconds.to_le_bytes());
            Ok(())
        }
        (T::Json, RowValue::Json(j)) => {
            let bytes = crate::json::encode_json(j)?;
            scalar::put_length_prefixed(out, &bytes, usize::from(col.meta))
        }
        _ => {
            encode_scalar(col, value, out).and_then(|ok| if ok { Ok(()) } else { Err(mismatch()) })
        }
    }
}

/// Reads one non-NULL value of `col`.
///
/// # Errors
/// [`BinlogError::Truncated`] or [`BinlogError::Corrupt`] for malformed input;
/// [`BinlogError::Unsupported`] for column types this crate does not decode (old DECIMAL,
/// typed arrays).
pub fn decode_value(col: &ColumnDef, r: &mut Reader<'_>) -> Result<RowValue> {
    use ColumnType as T;
    let fsp = col.meta as u8;
    Ok(match col.column_type {
        T::NewDecimal => {
            let (p, s) = col.decimal_info();
            RowValue::Decimal(decode_decimal(r, p, s)?)
        }
        T::Date | T::NewDate => RowValue::Date(decode_date(r)?),
        T::Year => RowValue::Year(decode_year(r)?),
        T::DateTime2 => RowValue::DateTime(decode_datetime2(r, fsp)?),
        T::Time2 => RowValue::Time(decode_time2(r, fsp)?),
        T::Timestamp2 => RowValue::Timestamp(decode_timestamp2(r, fsp)?),
        T::DateTime => RowValue::DateTime(decode_datetime_old(r)?),
        T::Time => RowValue::Time(decode_time_old(r)?),
        T::Timestamp => RowValue::Timestamp(crate::value::Timestamp {
            seconds: r.u32("TIMESTAMP value")?,
            micros: 0,
        }),
        T::Json => {
            let bytes = scalar::read_length_prefixed(r, usize::from(col.meta), "JSON value")?;
            RowValue::Json(crate::json::decode_json(bytes)?)
        }
        _ => decode_scalar(col, r)?,
    })
}

/// Appends one row image: the null bitmap over the present columns, then each non-NULL value.
///
/// `present` is the columns bitmap of the event (LSB-first, one bit per table column); `values`
/// holds one value per present column, in column order.
///
/// # Errors
/// [`BinlogError::InvalidValue`] when `values` does not match `present` or a value does not fit
/// its column.
pub fn encode_row_image(
    columns: &[ColumnDef],
    present: &[u8],
    values: &[RowValue],
    out: &mut Vec<u8>,
) -> Result<()> {
    let cols: Vec<&ColumnDef> = (0..columns.len())
        .filter(|&i| bit(present, i))
        .map(|i| &columns[i])
        .collect();
    if cols.len() != values.len() {
        return Err(BinlogError::invalid(format!(
            "row image has {} values for {} columns",
            values.len(),
            cols.len()
        )));
    }
    out.extend_from_slice(&pack_bits(values.iter().map(|v| *v == RowValue::Null)));
    for (col, v) in cols.into_iter().zip(values) {
        if *v == RowValue::Null {
            if !col.nullable {
                return Err(BinlogError::invalid(format!(
                    "column '{}' is NOT NULL",
                    col.name
                )));
            }
            continue;
        }
        encode_value(col, v, out)?;
    }
    Ok(())
}

/// Reads one row image written by [`encode_row_image`]: one value per present column.
///
/// # Errors
/// [`BinlogError::Truncated`] or [`BinlogError::Corrupt`] for malformed input.
pub fn decode_row_image(
    columns: &[ColumnDef],
    present: &[u8],
    r: &mut Reader<'_>,
) -> Result<Vec<RowValue>> {
    let cols: Vec<&ColumnDef> = (0..columns.len())
        .filter(|&i| bit(present, i))
        .map(|i| &columns[i])
        .collect();
    let nulls = r.bytes(bitmap_len(cols.len()), "row null bitmap")?;
    let mut values = Vec::with_capacity(cols.len());
    for (i, col) in cols.into_iter().enumerate() {
        values.push(if bit(nulls, i) {
            RowValue::Null
        } else {
            decode_value(col, r)?
        });
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::{BINARY_COLLATION, UTF8MB4_0900_AI_CI as UTF8};
    use crate::json::JsonValue;
    use crate::value::{Date, DateTime, Time, Timestamp};

    /// Every column type with edge values, as (column, values).
    pub(crate) fn all_types() -> Vec<(ColumnDef, Vec<RowValue>)> {
        use RowValue as V;
        let int = |b| ColumnDef::int("i", b).unwrap();
        let dt = |y, mo, d, h, mi, s, us| {
            V::DateTime(DateTime {
                date: Date {
                    year: y,
                    month: mo,
                    day: d,
                },
                hour: h,
                minute: mi,
                second: s,
                micros: us,
            })
        };
        vec![
            (int(1), vec![V::Int(-128), V::Int(127), V::Int(0)]),
            (int(1).unsigned(), vec![V::UInt(255), V::UInt(0)]),
            (int(2), vec![V::Int(-32768), V::Int(32767)]),
            (int(2).unsigned(), vec![V::UInt(65535)]),
            (
                int(3),
                vec![V::Int(-8_388_608), V::Int(8_388_607), V::Int(-1)],
            ),
            (int(3).unsigned(), vec![V::UInt(16_777_215)]),
            (
                int(4),
                vec![V::Int(i64::from(i32::MIN)), V::Int(i64::from(i32::MAX))],
            ),
            (int(4).unsigned(), vec![V::UInt(u64::from(u32::MAX))]),
            (int(8), vec![V::Int(i64::MIN), V::Int(i64::MAX)]),
            (int(8).unsigned(), vec![V::UInt(u64::MAX), V::UInt(0)]),
            (
                ColumnDef::float("f"),
                vec![V::Float(-1.5), V::Float(f32::MAX), V::Float(0.0)],
            ),
            (
                ColumnDef::double("d"),
                vec![V::Double(-2.5e300), V::Double(f64::MIN_POSITIVE)],
            ),
            (
                ColumnDef::decimal("n", 10, 3),
                vec![
                    V::Decimal("-12.340".into()),
                    V::Decimal("0.000".into()),
                    V::Decimal("9999999.999".into()),
                ],
            ),
            (
                ColumnDef::decimal("n", 65, 30),
                vec![V::Decimal("-1.000000000000000000000000000001".into())],
            ),
            (
                ColumnDef::year("y"),
                vec![V::Year(0), V::Year(1901), V::Year(2155)],
            ),
            (
                ColumnDef::date("d"),
                vec![
                    V::Date(Date::default()),
                    V::Date(Date {
                        year: 2024,
                        month: 2,
                        day: 29,
                    }),
                ],
            ),
            (
                ColumnDef::time("t", 0),
                vec![V::Time(Time {
                    negative: true,
                    hours: 838,
                    minutes: 59,
                    seconds: 59,
                    micros: 0,
                })],
            ),
            (
                ColumnDef::time("t", 6),
                vec![V::Time(Time {
                    negative: true,
                    hours: 0,
                    minutes: 0,
                    seconds: 1,
                    micros: 1,
                })],
            ),
            (
                ColumnDef::time("t", 3),
                vec![V::Time(Time {
                    negative: false,
                    hours: 12,
                    minutes: 34,
                    seconds: 56,
                    micros: 789_000,
                })],
            ),
            (
                ColumnDef::datetime("dt", 0),
                vec![dt(0, 0, 0, 0, 0, 0, 0), dt(9999, 12, 31, 23, 59, 59, 0)],
            ),
            (
                ColumnDef::datetime("dt", 6),
                vec![dt(2024, 1, 2, 3, 4, 5, 123_456)],
            ),
            (
                ColumnDef::datetime("dt", 1),
                vec![dt(2024, 1, 2, 3, 4, 5, 900_000)],
            ),
            (
                ColumnDef::timestamp("ts", 0),
                vec![
                    V::Timestamp(Timestamp::default()),
                    V::Timestamp(Timestamp {
                        seconds: u32::MAX,
                        micros: 0,
                    }),
                ],
            ),
            (
                ColumnDef::timestamp("ts", 4),
                vec![V::Timestamp(Timestamp {
                    seconds: 1,
                    micros: 999_900,
                })],
            ),
            (
                ColumnDef::varchar("v", 40, UTF8),
                vec![
                    V::Bytes(vec![]),
                    V::Bytes("héllo".into()),
                    V::Bytes(vec![b'x'; 40]),
                ],
            ),
            (
                ColumnDef::varchar("v", 1000, UTF8),
                vec![V::Bytes(vec![b'y'; 1000]), V::Bytes(vec![])],
            ),
            (
                ColumnDef::varchar("vb", 300, BINARY_COLLATION),
                vec![V::Bytes(vec![0, 255, 1])],
            ),
            (
                ColumnDef::char("c", 40, UTF8),
                vec![V::Bytes(b"abc".to_vec()), V::Bytes(vec![])],
            ),
            (
                ColumnDef::char("c", 1020, UTF8),
                vec![V::Bytes(vec![b'z'; 1020])],
            ),
            (
                ColumnDef::blob("b", 1, BINARY_COLLATION),
                vec![V::Bytes(vec![7; 255]), V::Bytes(vec![])],
            ),
            (
                ColumnDef::blob("b", 2, UTF8),
                vec![V::Bytes(vec![b't'; 65535])],
            ),
            (
                ColumnDef::blob("b", 3, BINARY_COLLATION),
                vec![V::Bytes(vec![1; 70_000])],
            ),
            (
                ColumnDef::blob("b", 4, BINARY_COLLATION),
                vec![V::Bytes((0..200_000u32).map(|i| i as u8).collect())],
            ),
            (
                ColumnDef::geometry("g"),
                vec![V::Bytes(vec![0, 0, 0, 0, 1, 1, 0, 0, 0])],
            ),
            (ColumnDef::bit("b", 1), vec![V::Bit(1), V::Bit(0)]),
            (ColumnDef::bit("b", 10), vec![V::Bit(0x3ff)]),
            (ColumnDef::bit("b", 64), vec![V::Bit(u64::MAX)]),
            (
                ColumnDef::enumeration("e", vec![b"a".to_vec(), b"b".to_vec()], UTF8),
                vec![V::Enum(2), V::Enum(0)],
            ),
            (
                ColumnDef::enumeration(
                    "e",
                    (0..300).map(|i: u32| i.to_string().into_bytes()).collect(),
                    UTF8,
                ),
                vec![V::Enum(300)],
            ),
            (
                ColumnDef::set("s", (0..3).map(|i: u8| vec![b'a' + i]).collect(), UTF8),
                vec![V::Set(0b101), V::Set(0)],
            ),
            (
                ColumnDef::set("s", (0..64).map(|i: u8| vec![i]).collect(), UTF8),
                vec![V::Set(u64::MAX)],
            ),
            (
                ColumnDef::json("j"),
                vec![
                    V::Json(JsonValue::Null),
                    V::Json(JsonValue::object([(
                        "a",
                        JsonValue::Array(vec![
                            JsonValue::Int(1),
                            JsonValue::object([("b", JsonValue::String("c".into()))]),
                        ]),
                    )])),
                ],
            ),
        ]
    }

    #[test]
    fn every_type_round_trips() {
        for (col, values) in all_types() {
            for v in values {
                let mut out = Vec::new();
                encode_value(&col, &v, &mut out).unwrap_or_else(|e| panic!("{col:?} {v:?}: {e}"));
                let mut r = Reader::new(&out);
                assert_eq!(decode_value(&col, &mut r).unwrap(), v, "{col:?}");
                assert!(r.is_empty(), "{col:?} left {} bytes", r.remaining());
            }
        }
    }

    #[test]
    fn byte_layouts() {
        let enc = |col: &ColumnDef, v: RowValue| {
            let mut out = Vec::new();
            encode_value(col, &v, &mut out).unwrap();
            out
        };
        assert_eq!(
            enc(&ColumnDef::int("i", 3).unwrap(), RowValue::Int(-2)),
            [0xfe, 0xff, 0xff]
        );
        assert_eq!(
            enc(
                &ColumnDef::varchar("v", 300, 255),
                RowValue::Bytes(b"ab".to_vec())
            ),
            [2, 0, b'a', b'b']
        );
        assert_eq!(
            enc(
                &ColumnDef::varchar("v", 255, 255),
                RowValue::Bytes(b"ab".to_vec())
            ),
            [2, b'a', b'b']
        );
        assert_eq!(
            enc(&ColumnDef::bit("b", 10), RowValue::Bit(0x201)),
            [0x02, 0x01]
        );
        assert_eq!(
            enc(&ColumnDef::blob("b", 3, 63), RowValue::Bytes(vec![9])),
            [1, 0, 0, 9]
        );
        assert_eq!(
            enc(&ColumnDef::double("d"), RowValue::Double(1.0)),
            1.0f64.to_le_bytes()
        );
    }

    #[test]
    fn encode_rejects_bad_values() {
        let bad = [
            (ColumnDef::int("i", 1).unwrap(), RowValue::Int(128)),
            (
                ColumnDef::int("i", 1).unwrap().unsigned(),
                RowValue::Int(-1),
            ),
            (ColumnDef::int("i", 2).unwrap(), RowValue::UInt(40_000)),
            (ColumnDef::int("i", 4).unwrap(), RowValue::Bytes(vec![])),
            (
                ColumnDef::varchar("v", 3, 255),
                RowValue::Bytes(b"abcd".to_vec()),
            ),
            (
                ColumnDef::char("c", 2, 255),
                RowValue::Bytes(b"abc".to_vec()),
            ),
            (ColumnDef::blob("b", 1, 63), RowValue::Bytes(vec![0; 256])),
            (ColumnDef::bit("b", 3), RowValue::Bit(8)),
            (
                ColumnDef::enumeration("e", vec![], 255),
                RowValue::Enum(256),
            ),
            (
                ColumnDef::decimal("n", 3, 1),
                RowValue::Decimal("100".into()),
            ),
            (ColumnDef::date("d"), RowValue::Int(1)),
            (ColumnDef::date("d"), RowValue::Null),
        ];
        for (col, v) in bad {
            assert!(
                encode_value(&col, &v, &mut Vec::new()).is_err(),
                "{col:?} {v:?}"
            );
        }
    }

    #[test]
    fn row_images_with_nulls_and_partial_bitmaps() {
        let cols = vec![
            ColumnDef::int("a", 4).unwrap().not_null(),
            ColumnDef::varchar("b", 10, 255),
            ColumnDef::date("c"),
        ];
        let all = pack_bits([true, true, true]);
        let values = vec![
            RowValue::Int(7),
            RowValue::Null,
            RowValue::Date(Date {
                year: 2000,
                month: 1,
                day: 1,
            }),
        ];
        let mut out = Vec::new();
        encode_row_image(&cols, &all, &values, &mut out).unwrap();
        assert_eq!(out[0], 0b010);
        assert_eq!(
            decode_row_image(&cols, &all, &mut Reader::new(&out)).unwrap(),
            values
        );
        // Only columns a and c present.
        let some = pack_bits([true, false, true]);
        let vals = vec![RowValue::Int(1), RowValue::Null];
        out.clear();
        encode_row_image(&cols, &some, &vals, &mut out).unwrap();
        assert_eq!(
            decode_row_image(&cols, &some, &mut Reader::new(&out)).unwrap(),
            vals
        );
        // Errors: wrong count, NULL in NOT NULL.
        assert!(encode_row_image(&cols, &all, &vals, &mut Vec::new()).is_err());
        let null_a = vec![RowValue::Null, RowValue::Null, RowValue::Null];
        assert!(encode_row_image(&cols, &all, &null_a, &mut Vec::new()).is_err());
    }

    #[test]
    fn decoders_never_panic_on_truncated_input() {
        for (col, values) in all_types() {
            for v in values {
                let mut out = Vec::new();
                encode_value(&col, &v, &mut out).unwrap();
                for n in [0, out.len() / 2, out.len().saturating_sub(1)] {
                    if n < out.len() {
                        assert!(
                            decode_value(&col, &mut Reader::new(&out[..n])).is_err(),
                            "{col:?} {n}"
                        );
                    }
                }
            }
        }
        let corrupt_meta = [
            ColumnDef::new("x", ColumnType::NewDecimal, 0),
            ColumnDef::new("x", ColumnType::DateTime2, 9),
            ColumnDef::new("x", ColumnType::Blob, 7),
            ColumnDef::new("x", ColumnType::Bit, 0),
            ColumnDef::new("x", ColumnType::String, 247 << 8 | 5),
            ColumnDef::new("x", ColumnType::TypedArray, 0),
        ];
        for col in corrupt_meta {
            assert!(
                decode_value(&col, &mut Reader::new(&[0xff; 64])).is_err(),
                "{col:?}"
            );
        }
    }
}
