//! `CHECK TABLE t [, t ...] [FOR UPGRADE | QUICK | FAST | MEDIUM | EXTENDED | CHANGED]`: runs
//! [`storage::Storage::check_table`] (rows decode, primary and secondary indexes agree, unique
//! indexes hold no duplicates) on every table (every partition of a partitioned table, plus the
//! partition placement check of `ALTER TABLE … CHECK PARTITION`) and returns MySQL's four-column
//! result. The options are accepted and ignored: every check is the extended one. The
//! statement is parsed by [`crate::parse::maintenance`].
//!
//! `CHECKSUM TABLE t [, t ...] [QUICK | EXTENDED]` ([`checksum`]) reads each table's rows in a
//! consistent snapshot and reports the wrapping 32-bit sum of a CRC-32 per row, computed over
//! the row's values in a canonical form: the same rows give the same checksum on every Strata
//! server (what comparing a replica with its source needs), whatever their physical layout.
//! It is not InnoDB's number (which hashes InnoDB's record format). QUICK (a live checksum
//! MyISAM keeps) is NULL for every table, as for InnoDB; EXTENDED is the default.

use common::{Error, Result, Value};
use storage::engine::KvEngine;

use crate::parse::maintenance::TableName;
use crate::session::session::Output;
use crate::session::session::Session;

/// Runs CHECK TABLE.
///
/// # Errors
/// 1046 without a current database for an unqualified name; engine I/O errors.
pub fn execute<E: KvEngine>(s: &mut Session<E>, names: &[TableName]) -> Result<Output> {
    let mut rows = Vec::new();
    for (db, name) in names {
        let db = match db {
            Some(d) => d.clone(),
            None => s.db.clone().ok_or_else(Error::no_db)?,
        };
        let label = Value::Str(format!("{db}.{name}"));
        let mut push = |ty: &str, msg: String| {
            rows.push(vec![
                label.clone(),
                Value::Str("check".into()),
                Value::Str(ty.into()),
                Value::Str(msg),
            ]);
        };
        // (the session's TEMPORARY table of that name first)
        s.mdl_lock(
            &db,
            s.table_key(&db, name),
            crate::runtime::mdl::MdlMode::SharedRead,
        )?;
        let Some(t) = s.table_def(&db, name)? else {
            push("Error", format!("Table '{db}.{name}' doesn't exist"));
            push("status", "Operation failed".into());
            continue;
        };
        if t.options.view.is_some() {
            push("status", "OK".into());
            continue;
        }
        let leaves = crate::catalog::partition::all_leaves(s, &t)?;
        let mut problems = Vec::new();
        for (i, leaf) in leaves.iter().enumerate() {
            let rep = s.storage().check_table(leaf)?;
            let prefix = match &leaf.leaf {
                Some(_) if leaves.len() > 1 => format!("Partition #{i}: "),
                _ => String::new(),
            };
            problems.extend(rep.problems.into_iter().map(|p| format!("{prefix}{p}")));
        }
        if leaves.len() > 1 || t.partitioning.is_some() {
            let all: Vec<usize> = (0..leaves.len()).collect();
            let bad = crate::catalog::partition::misplaced_rows(s, &t, &all)?;
            if bad > 0 {
                problems.push(format!("Found {bad} misplaced rows"));
            }
        }
        if problems.is_empty() {
            push("status", "OK".into());
        } else {
            for p in problems {
                push("Warning", p);
            }
            push("error", "Corrupt".into());
        }
    }
    Ok(Output::Rows {
        columns: ["Table", "Op", "Msg_type", "Msg_text"]
            .iter()
            .map(|n| crate::bind::select::str_meta(n, 64))
            .collect(),
        rows,
    })
}

/// Runs CHECKSUM TABLE: one row (`Table`, `Checksum`) per table; NULL (and warning 1146) for a
/// table that does not exist, NULL for every table with QUICK.
///
/// # Errors
/// 1046 without a current database for an unqualified name; engine I/O errors.
pub fn checksum<E: KvEngine>(
    s: &mut Session<E>,
    names: &[TableName],
    quick: bool,
) -> Result<Output> {
    let mut rows = Vec::new();
    for (db, name) in names {
        let db = match db {
            Some(d) => d.clone(),
            None => s.db.clone().ok_or_else(Error::no_db)?,
        };
        let label = Value::Str(format!("{db}.{name}"));
        s.mdl_lock(
            &db,
            s.table_key(&db, name),
            crate::runtime::mdl::MdlMode::SharedRead,
        )?;
        let t = match s.table_def(&db, name)? {
            Some(t) if t.options.view.is_none() => t,
            _ => {
                s.warnings.push(common::Warning {
                    level: common::Level::Error,
                    code: common::codes::ER_NO_SUCH_TABLE.num,
                    msg: format!("Table '{db}.{name}' doesn't exist"),
                });
                rows.push(vec![label, Value::Null]);
                continue;
            }
        };
        if quick {
            rows.push(vec![label, Value::Null]);
            continue;
        }
        let mut sum: u32 = 0;
        for leaf in crate::catalog::partition::all_leaves(s, &t)? {
            for r in s.ensure_txn().scan_all(&leaf)? {
                let (_, row) = r?;
                sum = sum.wrapping_add(row_crc(&row));
            }
        }
        rows.push(vec![label, Value::UInt(u64::from(sum))]);
    }
    Ok(Output::Rows {
        columns: vec![
            crate::bind::select::str_meta("Table", 64),
            crate::bind::select::meta_for_type("Checksum", &func::types::ExprType::UInt),
        ],
        rows,
    })
}

/// CRC-32 of a row's values in a canonical form (a type tag, then the value's text).
fn row_crc(row: &[Value]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    for v in row {
        match v {
            Value::Null => h.update(&[0]),
            Value::Bytes(b) => {
                h.update(&[1]);
                h.update(b);
            }
            v => {
                h.update(&[2]);
                h.update(
                    func::convert::to_string_value(v)
                        .unwrap_or_default()
                        .as_bytes(),
                );
            }
        }
        h.update(&[0xFF]);
    }
    h.finalize()
}
