//! Row events as SQL statements on the replica's tables: a WRITE_ROWS event becomes one
//! multi-row INSERT, each UPDATE_ROWS / DELETE_ROWS row an UPDATE / DELETE of the one row its
//! before image identifies (by the replica table's primary key, or by every comparable column
//! when it has none). Values are written as literals that read back as the same value:
//! integers and DECIMAL text unquoted, temporal values quoted (TIMESTAMP in UTC: the applier's
//! session runs with `time_zone = '+00:00'`), binary strings as `X'…'`.

use binlog::event::TableMapEvent;
use binlog::{ColumnType, RowChange, RowValue, RowsKind};
use common::{Error, Result};

/// A column of the replica's table, as the applier needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableColumn {
    /// Name.
    pub name: String,
    /// Part of the primary key.
    pub key: bool,
    /// A generated column (its value is computed here, never written).
    pub generated: bool,
}

/// The collation id of binary strings.
const BINARY: u16 = 63;

fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

fn quote_str(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('\'');
    for c in s.chars() {
        match c {
            '\'' => o.push_str("\\'"),
            '\\' => o.push_str("\\\\"),
            '\0' => o.push_str("\\0"),
            c => o.push(c),
        }
    }
    o.push('\'');
    o
}

fn hex(b: &[u8]) -> String {
    let mut o = String::with_capacity(b.len() * 2 + 3);
    o.push_str("X'");
    for x in b {
        o.push_str(&format!("{x:02X}"));
    }
    o.push('\'');
    o
}

/// (year, month, day) of a day count since 1970-01-01.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A value as an SQL literal.
pub fn literal(v: &RowValue, collation: u16) -> String {
    match v {
        RowValue::Null => "NULL".into(),
        RowValue::Int(n) => n.to_string(),
        RowValue::UInt(n) | RowValue::Bit(n) | RowValue::Set(n) => n.to_string(),
        RowValue::Float(f) => format!("{f:e}"),
        RowValue::Double(f) => format!("{f:e}"),
        RowValue::Decimal(s) => s.clone(),
        RowValue::Year(y) => y.to_string(),
        RowValue::Enum(i) => i.to_string(),
        RowValue::Date(d) => format!("'{d}'"),
        RowValue::Time(t) => format!("'{t}'"),
        RowValue::DateTime(d) => format!("'{d}'"),
        RowValue::Timestamp(t) => {
            if t.seconds == 0 && t.micros == 0 {
                return "'0000-00-00 00:00:00'".into();
            }
            let s = i64::from(t.seconds);
            let (y, m, d) = civil_from_days(s.div_euclid(86_400));
            let r = s.rem_euclid(86_400);
            let mut o = format!(
                "'{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
                r / 3600,
                r / 60 % 60,
                r % 60
            );
            if t.micros != 0 {
                o.push_str(&format!(".{:06}", t.micros));
            }
            o.push('\'');
            o
        }
        RowValue::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) if collation != BINARY => quote_str(s),
            _ => hex(b),
        },
        RowValue::Json(j) => quote_str(&j.to_string()),
    }
}

/// Whether a column can identify a row by `<=>` on its value read back from a row image
/// (floating-point and JSON values are not compared exactly).
fn comparable(t: ColumnType) -> bool {
    !matches!(t, ColumnType::Float | ColumnType::Double | ColumnType::Json)
}

/// What a row event does, as MySQL names it in errors (`Write_rows`, …).
pub fn event_name(kind: RowsKind) -> &'static str {
    match kind {
        RowsKind::Write => "Write_rows",
        RowsKind::Update => "Update_rows",
        RowsKind::Delete => "Delete_rows",
    }
}

/// One statement of a row event and whether it must change exactly one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowStatement {
    /// The SQL text.
    pub sql: String,
    /// An UPDATE or DELETE of one row: changing none means the row is missing (1032).
    pub one_row: bool,
}

/// The statements applying `rows` of a `kind` event on the table `tm` maps, whose columns on
/// this server are `cols`.
///
/// # Errors
/// 1105 when the replica's table has another number of columns than the source's.
pub fn row_statements(
    tm: &TableMapEvent,
    kind: RowsKind,
    rows: &[RowChange],
    cols: &[TableColumn],
) -> Result<Vec<RowStatement>> {
    if cols.len() != tm.columns.len() {
        return Err(Error::new(
            common::codes::ER_UNKNOWN_ERROR,
            format!(
                "Column count mismatch: table '{}.{}' has {} columns on the replica and {} on the source",
                tm.schema,
                tm.table,
                cols.len(),
                tm.columns.len()
            ),
        ));
    }
    let table = format!("{}.{}", quote_ident(&tm.schema), quote_ident(&tm.table));
    let written: Vec<usize> = (0..cols.len()).filter(|&i| !cols[i].generated).collect();
    let lit = |row: &[RowValue], i: usize| {
        row.get(i).map_or_else(
            || "NULL".to_string(),
            |v| literal(v, tm.columns[i].collation),
        )
    };
    let has_key = cols.iter().any(|c| c.key);
    let where_of = |row: &[RowValue]| -> String {
        let ids: Vec<usize> = (0..cols.len())
            .filter(|&i| {
                if has_key {
                    cols[i].key
                } else {
                    !cols[i].generated && comparable(tm.columns[i].column_type)
                }
            })
            .collect();
        ids.iter()
            .map(|&i| format!("{} <=> {}", quote_ident(&cols[i].name), lit(row, i)))
            .collect::<Vec<_>>()
            .join(" AND ")
    };
    let mut out = Vec::new();
    match kind {
        RowsKind::Write => {
            let names: Vec<String> = written
                .iter()
                .map(|&i| quote_ident(&cols[i].name))
                .collect();
            let values: Vec<String> = rows
                .iter()
                .filter_map(|r| r.after.as_ref())
                .map(|row| {
                    let v: Vec<String> = written.iter().map(|&i| lit(row, i)).collect();
                    format!("({})", v.join(","))
                })
                .collect();
            if !values.is_empty() {
                out.push(RowStatement {
                    sql: format!(
                        "INSERT INTO {table} ({}) VALUES {}",
                        names.join(","),
                        values.join(",")
                    ),
                    one_row: false,
                });
            }
        }
        RowsKind::Update => {
            for r in rows {
                let (Some(before), Some(after)) = (&r.before, &r.after) else {
                    continue;
                };
                let set: Vec<String> = written
                    .iter()
                    .map(|&i| format!("{} = {}", quote_ident(&cols[i].name), lit(after, i)))
                    .collect();
                out.push(RowStatement {
                    sql: format!(
                        "UPDATE {table} SET {} WHERE {} LIMIT 1",
                        set.join(", "),
                        where_of(before)
                    ),
                    one_row: true,
                });
            }
        }
        RowsKind::Delete => {
            for r in rows {
                let Some(before) = &r.before else { continue };
                out.push(RowStatement {
                    sql: format!("DELETE FROM {table} WHERE {} LIMIT 1", where_of(before)),
                    one_row: true,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use binlog::{ColumnDef, Date, DateTime, Timestamp};

    use super::*;

    fn col(name: &str, key: bool) -> TableColumn {
        TableColumn {
            name: name.into(),
            key,
            generated: false,
        }
    }

    #[test]
    fn literals_read_back_as_the_same_values() {
        assert_eq!(literal(&RowValue::Null, 0), "NULL");
        assert_eq!(literal(&RowValue::Int(-5), 0), "-5");
        assert_eq!(literal(&RowValue::Decimal("-12.340".into()), 0), "-12.340");
        assert_eq!(
            literal(&RowValue::Bytes(b"it's \\".to_vec()), 255),
            "'it\\'s \\\\'"
        );
        assert_eq!(literal(&RowValue::Bytes(vec![0, 0xff]), 63), "X'00FF'");
        assert_eq!(literal(&RowValue::Bytes(b"ab".to_vec()), 63), "X'6162'");
        let dt = DateTime {
            date: Date {
                year: 2024,
                month: 2,
                day: 29,
            },
            hour: 13,
            minute: 5,
            second: 9,
            micros: 120_000,
        };
        assert_eq!(
            literal(&RowValue::DateTime(dt), 0),
            "'2024-02-29 13:05:09.120000'"
        );
        let ts = Timestamp {
            seconds: 1_709_211_909,
            micros: 0,
        };
        assert_eq!(
            literal(&RowValue::Timestamp(ts), 0),
            "'2024-02-29 13:05:09'"
        );
        assert_eq!(literal(&RowValue::Double(0.1), 0), "1e-1");
    }

    #[test]
    fn rows_become_statements_keyed_by_the_primary_key() {
        let tm = TableMapEvent::new(
            1,
            "d",
            "t",
            vec![
                ColumnDef::int("id", 4).unwrap(),
                ColumnDef::varchar("v", 40, 255),
                ColumnDef::double("f"),
            ],
        );
        let row = |id: i64, v: &str| {
            vec![
                RowValue::Int(id),
                RowValue::Bytes(v.as_bytes().to_vec()),
                RowValue::Double(1.5),
            ]
        };
        let cols = [col("id", true), col("v", false), col("f", false)];
        let ins = row_statements(
            &tm,
            RowsKind::Write,
            &[
                RowChange {
                    before: None,
                    after: Some(row(1, "a")),
                },
                RowChange {
                    before: None,
                    after: Some(row(2, "b")),
                },
            ],
            &cols,
        )
        .unwrap();
        assert_eq!(
            ins[0].sql,
            "INSERT INTO `d`.`t` (`id`,`v`,`f`) VALUES (1,'a',1.5e0),(2,'b',1.5e0)"
        );
        let upd = row_statements(
            &tm,
            RowsKind::Update,
            &[RowChange {
                before: Some(row(1, "a")),
                after: Some(row(1, "z")),
            }],
            &cols,
        )
        .unwrap();
        assert_eq!(
            upd[0].sql,
            "UPDATE `d`.`t` SET `id` = 1, `v` = 'z', `f` = 1.5e0 WHERE `id` <=> 1 LIMIT 1"
        );
        assert!(upd[0].one_row);
        // without a key: every comparable column (not the DOUBLE)
        let nokey = [col("id", false), col("v", false), col("f", false)];
        let del = row_statements(
            &tm,
            RowsKind::Delete,
            &[RowChange {
                before: Some(row(2, "b")),
                after: None,
            }],
            &nokey,
        )
        .unwrap();
        assert_eq!(
            del[0].sql,
            "DELETE FROM `d`.`t` WHERE `id` <=> 2 AND `v` <=> 'b' LIMIT 1"
        );
        assert!(row_statements(&tm, RowsKind::Write, &[], &cols[..2]).is_err());
    }
}
