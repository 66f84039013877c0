//! `CHECK TABLE t [, t ...] [FOR UPGRADE | QUICK | FAST | MEDIUM | EXTENDED | CHANGED]`: runs
//! [`storage::Storage::check_table`] (rows decode, primary and secondary indexes agree, unique
//! indexes hold no duplicates) on every table (every partition of a partitioned table, plus the
//! partition placement check of `ALTER TABLE … CHECK PARTITION`) and returns MySQL's four-column
//! result. The options are accepted and ignored: every check is the extended one. The
//! statement is parsed by [`crate::parse::maintenance`].

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
