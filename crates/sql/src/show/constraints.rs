//! How CHECK constraints and TEMPORARY tables show: the constraint lines of SHOW CREATE TABLE
//! (`CONSTRAINT `t_chk_1` CHECK ((`a` > 0))`, `/*!80016 NOT ENFORCED */`),
//! INFORMATION_SCHEMA.CHECK_CONSTRAINTS and the CHECK rows of TABLE_CONSTRAINTS (base tables
//! only, as MySQL: a temporary table's constraints are not in its data dictionary), and
//! INFORMATION_SCHEMA.INNODB_TEMP_TABLE_INFO (every session's temporary tables, by internal
//! name). The clause is printed by [`crate::parse::print`].

use std::sync::Arc;

use common::types::LobSize;
use common::{Collation, DataType, Result, Value};
use storage::catalog::{CheckDef, ColumnDef, TableDef};
use storage::engine::KvEngine;
use storage::Storage;

/// The CHECK_CLAUSE of a constraint: its condition as MySQL prints it.
pub fn check_clause(c: &CheckDef) -> String {
    match crate::parse::stored_expr(&c.expr, "CHECK condition") {
        Ok(e) => crate::parse::print::expr(&e),
        Err(_) => c.expr.clone(),
    }
}

/// The constraints of `t` in MySQL's order: by name for a base table, as created for a
/// temporary one.
fn ordered(t: &TableDef) -> Vec<&CheckDef> {
    let mut v: Vec<&CheckDef> = t.checks.iter().collect();
    if !t.temporary {
        v.sort_by(|a, b| a.name.cmp(&b.name));
    }
    v
}

/// The lines SHOW CREATE TABLE prints for the CHECK constraints of `t` (after its keys and
/// foreign keys).
pub fn create_lines(t: &TableDef) -> Vec<String> {
    ordered(t)
        .into_iter()
        .map(|c| {
            let mut l = format!(
                "  CONSTRAINT {} CHECK ({})",
                crate::parse::print::quote_ident(&c.name),
                check_clause(c)
            );
            if !c.enforced {
                l.push_str(" /*!80016 NOT ENFORCED */");
            }
            l
        })
        .collect()
}

fn column(name: &str, ty: DataType) -> ColumnDef {
    ColumnDef::plain(name, ty, true)
}

fn varchar(name: &str) -> ColumnDef {
    column(
        name,
        DataType::VarChar {
            len: 64,
            collation: Collation::Utf8mb4GeneralCi,
        },
    )
}

fn uint(name: &str, bytes: u8) -> ColumnDef {
    column(
        name,
        DataType::Int {
            bytes,
            unsigned: true,
            width: None,
            zerofill: false,
        },
    )
}

/// The columns of the INFORMATION_SCHEMA tables this module fills.
pub fn is_columns(table: &str) -> Option<Vec<ColumnDef>> {
    Some(match table {
        "CHECK_CONSTRAINTS" => vec![
            varchar("CONSTRAINT_CATALOG"),
            varchar("CONSTRAINT_SCHEMA"),
            varchar("CONSTRAINT_NAME"),
            column(
                "CHECK_CLAUSE",
                DataType::Text {
                    size: LobSize::Long,
                    collation: Collation::Utf8mb4GeneralCi,
                },
            ),
        ],
        "INNODB_TEMP_TABLE_INFO" => vec![
            uint("TABLE_ID", 8),
            varchar("NAME"),
            uint("N_COLS", 4),
            uint("SPACE", 4),
        ],
        _ => return None,
    })
}

fn s(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

/// INFORMATION_SCHEMA.CHECK_CONSTRAINTS over `tables` (the base tables the session sees).
pub fn check_constraint_rows(tables: &[Arc<TableDef>]) -> Vec<Vec<Value>> {
    let mut rows = Vec::new();
    for t in tables.iter().filter(|t| !t.temporary) {
        for c in ordered(t) {
            rows.push(vec![
                s("def"),
                s(t.db.clone()),
                s(c.name.clone()),
                s(check_clause(c)),
            ]);
        }
    }
    rows
}

/// The CHECK rows of INFORMATION_SCHEMA.TABLE_CONSTRAINTS for table `t`.
pub fn table_constraint_rows(t: &TableDef) -> Vec<Vec<Value>> {
    if t.temporary {
        return Vec::new();
    }
    ordered(t)
        .into_iter()
        .map(|c| {
            vec![
                s("def"),
                s(t.db.clone()),
                s(c.name.clone()),
                s(t.db.clone()),
                s(t.name.clone()),
                s("CHECK"),
                s(if c.enforced { "YES" } else { "NO" }),
            ]
        })
        .collect()
}

/// INFORMATION_SCHEMA.INNODB_TEMP_TABLE_INFO: every session's temporary tables (internal
/// names; N_COLS counts InnoDB's three hidden columns, as MySQL's does).
///
/// # Errors
/// Engine I/O errors.
pub fn temp_table_info_rows<E: KvEngine>(st: &Storage<E>) -> Result<Vec<Vec<Value>>> {
    let mut rows = Vec::new();
    for d in st.list_databases()? {
        for n in st.list_tables(&d.name)? {
            if !crate::catalog::temporary::is_temporary_name(&n) {
                continue;
            }
            if let Some(t) = st.get_table(&d.name, &n)? {
                rows.push(vec![
                    Value::UInt(t.id),
                    s(n),
                    Value::UInt(t.columns.len() as u64 + 3),
                    Value::UInt(0),
                ]);
            }
        }
    }
    Ok(rows)
}
