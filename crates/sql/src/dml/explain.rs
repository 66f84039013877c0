//! EXPLAIN of single-table UPDATE and DELETE, and of INSERT / REPLACE … VALUES: the read that
//! [`crate::plan::physical::plan_table`] chooses for the WHERE — the one the statement's own
//! execution runs (`single::fetch_where`) — in MySQL's shapes (select_type UPDATE / DELETE /
//! INSERT / REPLACE, an index read as `range` as MySQL's single-table changes use only its
//! range optimizer; FORMAT=TREE and FORMAT=JSON as for SELECT). EXPLAIN ANALYZE of a change
//! and EXPLAIN of multi-table changes or INSERT … SELECT are not built (1235).

use common::{Error, Result, Value};
use sqlparser::ast;
use storage::catalog::TableDef;
use storage::engine::KvEngine;

use crate::ir::block::IndexHints;
use crate::ir::expr::Expr;
use crate::plan::explain::{explain_row, requested_format, tabular_columns};
use crate::plan::physical::{AccessKind, TableRead};
use crate::session::session::{Output, Session};

/// What a change statement reads: its verb, table, index hints and WHERE.
type Target = (
    &'static str,
    std::sync::Arc<TableDef>,
    IndexHints,
    Option<Expr>,
);

/// EXPLAIN [FORMAT=…] of a change statement; `analyze` is EXPLAIN ANALYZE.
pub fn explain<E: KvEngine>(
    s: &mut Session<E>,
    stmt: &ast::Statement,
    analyze: bool,
    format: Option<&ast::AnalyzeFormatKind>,
) -> Result<Output> {
    if analyze {
        return Err(Error::not_supported(
            "EXPLAIN ANALYZE of UPDATE, DELETE or INSERT",
        ));
    }
    let (what, t, hints, filter) = target(s, stmt)?;
    let row = match &filter {
        Some(f) => read_row(s, what, &t, &hints, Some(f)),
        None if what == "INSERT" || what == "REPLACE" => {
            let mut row = explain_row(1, what, Some(&t.name), Some("ALL"), None, None, None);
            row[10] = Value::Null;
            row
        }
        None => read_row(s, what, &t, &hints, None),
    };
    match requested_format(s, format) {
        None => Ok(Output::Rows {
            columns: tabular_columns(),
            rows: vec![row],
        }),
        Some(ast::AnalyzeFormat::JSON) => {
            let doc = crate::plan::explain::json_document(&tabular_columns(), &[row]);
            let text = serde_json::to_string_pretty(&doc)
                .map_err(|e| Error::internal(format!("EXPLAIN JSON: {e}")))?;
            Ok(crate::plan::explain::text_output(text))
        }
        Some(ast::AnalyzeFormat::TREE) => {
            let verb = match what {
                "UPDATE" => "Update",
                "DELETE" => "Delete from",
                _ => "Insert into",
            };
            let mut text = format!("-> {verb} {}\n", t.name);
            if what == "UPDATE" || what == "DELETE" {
                let stats = s.inst.stats.get(s.storage(), &t);
                let read = crate::plan::physical::plan_table(
                    &t,
                    filter.as_ref(),
                    None,
                    stats.as_deref(),
                    &hints,
                );
                let name = &t.name;
                let node = match read.kind {
                    AccessKind::All => format!("Table scan on {name}"),
                    _ => format!(
                        "Index range scan on {name} using {}",
                        t.indexes[read.path.index].name
                    ),
                };
                if filter.is_some() {
                    text.push_str("    -> Filter (WHERE)\n        -> ");
                } else {
                    text.push_str("    -> ");
                }
                text.push_str(&node);
                text.push('\n');
            }
            Ok(crate::plan::explain::text_output(text))
        }
        Some(other) => Err(Error::new(
            common::codes::ER_UNKNOWN_EXPLAIN_FORMAT,
            format!("Unknown EXPLAIN format name: '{other}'"),
        )),
    }
}

/// The statement's kind, table and bound WHERE.
fn target<E: KvEngine>(s: &mut Session<E>, stmt: &ast::Statement) -> Result<Target> {
    let multi = || Error::not_supported("EXPLAIN of a multi-table UPDATE or DELETE");
    match stmt {
        ast::Statement::Update(u) => {
            if !u.table.joins.is_empty() || u.from.is_some() {
                return Err(multi());
            }
            if crate::dml::single::is_view_target(s, &u.table)? {
                return Err(Error::not_supported("EXPLAIN of an UPDATE of a view"));
            }
            let p = crate::dml::single::bind_update(s, u)?;
            Ok(("UPDATE", p.t, p.hints, p.filter))
        }
        ast::Statement::Delete(d) => {
            let from = match &d.from {
                ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
            };
            if d.using.is_some()
                || !d.tables.is_empty()
                || from.len() != 1
                || !from[0].joins.is_empty()
            {
                return Err(multi());
            }
            if crate::dml::single::is_view_target(s, &from[0])? {
                return Err(Error::not_supported("EXPLAIN of a DELETE from a view"));
            }
            let p = crate::dml::single::bind_delete(s, d, &from[0])?;
            Ok(("DELETE", p.t, IndexHints::NONE, p.filter))
        }
        ast::Statement::Insert(ins) => {
            if ins
                .source
                .as_ref()
                .is_some_and(|q| !matches!(*q.body, ast::SetExpr::Values(_)))
            {
                return Err(Error::not_supported("EXPLAIN of INSERT ... SELECT"));
            }
            let name = match &ins.table {
                ast::TableObject::TableName(n) => n.clone(),
                _ => return Err(Error::not_supported("EXPLAIN of this INSERT")),
            };
            let t = crate::bind::select::resolve_table(s, &name)?;
            Ok((
                if ins.replace_into {
                    "REPLACE"
                } else {
                    "INSERT"
                },
                t,
                IndexHints::NONE,
                None,
            ))
        }
        _ => Err(Error::not_supported("EXPLAIN of this statement")),
    }
}

/// The tabular row of reading `t` for `filter` as the statement will.
fn read_row<E: KvEngine>(
    s: &Session<E>,
    what: &str,
    t: &TableDef,
    hints: &IndexHints,
    filter: Option<&Expr>,
) -> Vec<Value> {
    let stats = s.inst.stats.get(s.storage(), t);
    let read: TableRead =
        crate::plan::physical::plan_table(t, filter, None, stats.as_deref(), hints);
    // MySQL reads the rows a single-table UPDATE or DELETE changes through its range
    // optimizer alone: an index read shows as `range` (no const / ref), as here
    let ty = match read.kind {
        AccessKind::All => "ALL",
        _ => "range",
    };
    let key = read.explain_key(t);
    let rows = crate::plan::explain::estimated_rows(s, t, &read, stats.as_deref());
    let extra = filter.is_some().then_some("Using where");
    let mut row = explain_row(
        1,
        what,
        Some(&t.name),
        Some(ty),
        key,
        Some(rows.max(1)),
        extra,
    );
    if let Some(k) = key {
        row[5] = Value::Str(k.to_string());
        row[7] = Value::Str(crate::plan::explain::key_len(t, &read).to_string());
    }
    row[3] = crate::catalog::partition::explain_partitions(s, t, filter)
        .map(Value::Str)
        .unwrap_or(Value::Null);
    row
}
