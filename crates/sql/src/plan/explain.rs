//! EXPLAIN: the traditional tabular format and FORMAT=TREE for SELECT statements and DML.

use std::sync::Arc;

use common::{codes, ColumnMeta, Error, Result, Value};
use func::types::ExprType;
use sqlparser::ast::{self};
use storage::engine::KvEngine;

use crate::bind::select::meta_for_type;
use crate::ir::block::Plan;
use crate::ir::block::Source;
use crate::ir::expr::Expr;
use crate::ir::query::Query;
use crate::plan::join_order::join_order;
use crate::session::session::Output;
use crate::session::session::Session;

/// Bytes a key part takes in EXPLAIN's key_len (MySQL's accounting: the column's maximum
/// stored size, +2 for a variable length, +1 when nullable).
pub(crate) fn key_part_len(c: &storage::catalog::ColumnDef, prefix: Option<u32>) -> u32 {
    use common::DataType as T;
    let frac = |fsp: u8| (fsp as u32).div_ceil(2);
    let dec_bytes =
        |digits: u32| (digits / 9) * 4 + [0, 1, 1, 2, 2, 3, 3, 4, 4, 4][(digits % 9) as usize];
    let base = match &c.ty {
        T::Int { bytes, .. } => *bytes as u32,
        T::Decimal {
            precision, scale, ..
        } => dec_bytes((*precision - *scale) as u32) + dec_bytes(*scale as u32),
        T::Float { .. } => 4,
        T::Double { .. } => 8,
        T::Char { len, collation } => prefix.unwrap_or(*len) * collation.max_len(),
        T::VarChar { len, collation } => prefix.unwrap_or(*len) * collation.max_len() + 2,
        T::Text { collation, .. } => prefix.unwrap_or(0) * collation.max_len() + 2,
        T::Binary { len } => prefix.unwrap_or(*len),
        T::VarBinary { len } => prefix.unwrap_or(*len) + 2,
        T::Blob { .. } => prefix.unwrap_or(0) + 2,
        T::Date => 3,
        T::Time { fsp } => 3 + frac(*fsp),
        T::DateTime { fsp } => 5 + frac(*fsp),
        T::Timestamp { fsp } => 4 + frac(*fsp),
        T::Year => 1,
        T::Enum { values, .. } => {
            if values.len() > 255 {
                2
            } else {
                1
            }
        }
        T::Set { values, .. } => (values.len() as u32).div_ceil(8).max(1),
        T::Bit { len } => (*len as u32).div_ceil(8),
        T::Json => 0,
    };
    base + u32::from(c.nullable)
}

/// One EXPLAIN row.
#[allow(clippy::too_many_arguments)]
pub(crate) fn explain_row(
    id: i64,
    select_type: &str,
    table: Option<&str>,
    ty: Option<&str>,
    key: Option<&str>,
    rows: Option<u64>,
    extra: Option<&str>,
) -> Vec<Value> {
    let s = |x: Option<&str>| x.map(|v| Value::Str(v.to_string())).unwrap_or(Value::Null);
    vec![
        Value::Int(id),
        Value::Str(select_type.into()),
        s(table),
        Value::Null,
        s(ty),
        s(key),
        s(key),
        Value::Null,
        Value::Null,
        rows.map(|r| Value::Int(r as i64)).unwrap_or(Value::Null),
        if table.is_some() {
            Value::Str("100.00".into())
        } else {
            Value::Null
        },
        s(extra),
    ]
}

pub(crate) fn explain_query<E: KvEngine>(
    s: &Session<E>,
    q: &Query,
    select_type: &str,
    next_id: &mut i64,
    out: &mut Vec<Vec<Value>>,
) {
    match q {
        Query::Select(p) => explain_block(s, p, select_type, next_id, out),
        Query::SetOp(op) => {
            explain_query(
                s,
                &op.left,
                if select_type == "SIMPLE" {
                    "PRIMARY"
                } else {
                    select_type
                },
                next_id,
                out,
            );
            if let Some(r) = &op.right {
                explain_query(s, r, "UNION", next_id, out);
                out.push(explain_row(
                    0,
                    "UNION RESULT",
                    Some("<union>"),
                    Some("ALL"),
                    None,
                    None,
                    Some("Using temporary"),
                ));
            }
        }
        Query::Recursive(r) => {
            explain_query(s, &r.anchor, "DERIVED", next_id, out);
            explain_query(s, &r.step, "UNION", next_id, out);
        }
    }
}

pub(crate) fn explain_block<E: KvEngine>(
    s: &Session<E>,
    p: &Plan,
    select_type: &str,
    next_id: &mut i64,
    out: &mut Vec<Vec<Value>>,
) {
    let id = *next_id;
    *next_id += 1;
    let subqueries: Vec<Arc<crate::ir::query::SubQuery>> = {
        let mut v = Vec::new();
        let mut visit = |e: &Expr| {
            e.walk(&mut |x| match x {
                Expr::Subquery(q)
                | Expr::Exists(q)
                | Expr::RowSub(q, 0)
                | Expr::InSubquery(_, q, ..)
                | Expr::Quantified(_, _, q, ..) => v.push(q.clone()),
                _ => {}
            })
        };
        p.filter
            .iter()
            .chain(p.items.iter())
            .chain(p.having.iter())
            .for_each(&mut visit);
        v
    };
    let select_type = if select_type == "SIMPLE" && !subqueries.is_empty() {
        "PRIMARY"
    } else {
        select_type
    };
    if p.from.is_empty() {
        out.push(explain_row(
            id,
            select_type,
            None,
            None,
            None,
            None,
            Some("No tables used"),
        ));
    }
    let conds: Vec<&Expr> = p
        .filter
        .as_ref()
        .map(crate::ir::expr::conjuncts)
        .unwrap_or_default();
    let order = join_order(p, &conds);
    for &j in &order {
        let jt = &p.from[j];
        match &jt.source {
            Source::Table(t) => {
                let filter = if p.from.len() == 1 {
                    p.filter.as_ref()
                } else {
                    None
                };
                let st = s.inst.stats.get(s.storage(), t);
                let path = crate::plan::access::choose_with_stats(t, filter, st.as_deref());
                let idx = &t.indexes[path.index];
                let (ty, key) = if p.from.len() > 1 && j != order[0] {
                    if jt.on.is_some() || !conds.is_empty() {
                        ("eq_ref", None)
                    } else {
                        ("ALL", None)
                    }
                } else if path.is_full_scan() {
                    ("ALL", None)
                } else if path.unique_point && path.eq_prefixes.len() == 1 {
                    ("const", Some(idx.name.as_str()))
                } else if path.range.0.is_some()
                    || path.range.1.is_some()
                    || path.eq_prefixes.len() > 1
                {
                    ("range", Some(idx.name.as_str()))
                } else {
                    ("ref", Some(idx.name.as_str()))
                };
                let ty = if ty == "eq_ref" { "ALL" } else { ty };
                let (mut rows, _, _) = s.storage().table_stats(t).unwrap_or((0, 0, 0));
                if ty == "const" {
                    rows = 1;
                } else if let (Some(st), true) = (&st, key.is_some()) {
                    let eq = path.eq_prefixes.first().map(|p| p.len()).unwrap_or(0);
                    if let Some(rpk) = st.rows_per_key(path.index, eq) {
                        rows = (rpk * path.eq_prefixes.len() as f64).ceil() as u64;
                    }
                }
                // key_len / ref for the key parts used
                let (key_len, key_ref) = if key.is_some() {
                    let eq = path.eq_prefixes.first().map(|p| p.len()).unwrap_or(0);
                    let used = eq + usize::from(path.range.0.is_some() || path.range.1.is_some());
                    let len: u32 = idx
                        .columns
                        .iter()
                        .take(used)
                        .map(|ic| key_part_len(&t.columns[ic.col], ic.prefix_len))
                        .sum();
                    let r = (ty == "const" || ty == "ref").then(|| vec!["const"; eq].join(","));
                    (Some(len.to_string()), r)
                } else {
                    (None, None)
                };
                // Extra: covering index, filtering, sorting, grouping
                let mut extra: Vec<&str> = Vec::new();
                if p.from.len() == 1 {
                    let mut used_cols: Vec<usize> = Vec::new();
                    let mut collect = |e: &Expr| used_cols.extend(e.columns());
                    p.items.iter().for_each(&mut collect);
                    p.filter.iter().for_each(&mut collect);
                    p.group_by.iter().for_each(&mut collect);
                    p.order.iter().for_each(|(e, _)| collect(e));
                    p.aggs
                        .iter()
                        .filter_map(|a| a.arg.as_ref())
                        .for_each(&mut collect);
                    let in_index = |c: usize| {
                        idx.columns
                            .iter()
                            .any(|ic| ic.col == c && ic.prefix_len.is_none())
                            || (!t.hidden_pk
                                && t.indexes[0]
                                    .columns
                                    .iter()
                                    .any(|ic| ic.col == c && ic.prefix_len.is_none()))
                    };
                    if path.index != 0 && used_cols.iter().all(|c| in_index(*c)) {
                        extra.push("Using index");
                    }
                }
                // "Using where" only when conditions remain after the key lookup
                let key_conds = path.eq_prefixes.first().map(|x| x.len()).unwrap_or(0)
                    + usize::from(path.range.0.is_some())
                    + usize::from(path.range.1.is_some());
                let nconds = p
                    .filter
                    .as_ref()
                    .map(|f| crate::ir::expr::conjuncts(f).len())
                    .unwrap_or(0);
                if ty != "const" && nconds > key_conds.min(nconds) || (ty == "ALL" && nconds > 0) {
                    extra.push("Using where");
                }
                if !p.group_by.is_empty() {
                    extra.push("Using temporary");
                }
                let ordered_by_index = match p.order.as_slice() {
                    [(Expr::Col(c), _)] => idx
                        .columns
                        .get(path.eq_prefixes.first().map(|x| x.len()).unwrap_or(0))
                        .is_some_and(|ic| ic.col == *c),
                    _ => false,
                };
                if !p.order.is_empty() && !ordered_by_index {
                    extra.push("Using filesort");
                }
                let extra = extra.join("; ");
                let mut row = explain_row(
                    id,
                    select_type,
                    Some(&jt.name),
                    Some(ty),
                    key,
                    Some(rows.max(1)),
                    (!extra.is_empty()).then_some(extra.as_str()),
                );
                if let Some(k) = key {
                    row[5] = Value::Str(
                        t.indexes
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| !(t.hidden_pk && *i == 0))
                            .filter(|(_, ix)| {
                                ix.columns.first().is_some_and(|ic| {
                                    p.filter
                                        .as_ref()
                                        .is_some_and(|f| f.columns().contains(&ic.col))
                                })
                            })
                            .map(|(_, ix)| ix.name.clone())
                            .collect::<Vec<_>>()
                            .join(","),
                    );
                    if row[5] == Value::Str(String::new()) {
                        row[5] = Value::Str(k.to_string());
                    }
                }
                row[7] = key_len.map(Value::Str).unwrap_or(Value::Null);
                row[8] = key_ref.map(Value::Str).unwrap_or(Value::Null);
                row[3] = crate::catalog::partition::explain_partitions(s, t, filter)
                    .map(Value::Str)
                    .unwrap_or(Value::Null);
                out.push(row);
            }
            Source::Derived(q) => {
                let derived = format!("<derived{}>", *next_id);
                out.push(explain_row(
                    id,
                    select_type,
                    Some(&derived),
                    Some("ALL"),
                    None,
                    None,
                    None,
                ));
                explain_query(s, q, "DERIVED", next_id, out);
            }
            Source::Work(_) => {
                out.push(explain_row(
                    id,
                    select_type,
                    Some(&jt.name),
                    Some("ALL"),
                    None,
                    None,
                    Some("Recursive"),
                ));
            }
        }
    }
    for q in subqueries {
        let st = if q.correlated {
            "DEPENDENT SUBQUERY"
        } else {
            "SUBQUERY"
        };
        explain_query(s, &q.query, st, next_id, out);
    }
}

/// Lines of EXPLAIN FORMAT=TREE for a query (indented two spaces per level, MySQL style).
pub(crate) fn tree_query<E: KvEngine>(
    s: &Session<E>,
    q: &Query,
    depth: usize,
    out: &mut Vec<String>,
) {
    let pad = |d: usize| "    ".repeat(d);
    match q {
        Query::Select(p) => tree_block(s, p, depth, out),
        Query::SetOp(op) => {
            let what = match (op.kind, op.all) {
                (crate::ir::query::SetKind::Paren, _) => "Materialize",
                (crate::ir::query::SetKind::Union, true) => "Append",
                (crate::ir::query::SetKind::Union, false) => "Union materialize with deduplication",
                (crate::ir::query::SetKind::Except, _) => "Except materialize with deduplication",
                (crate::ir::query::SetKind::Intersect, _) => {
                    "Intersect materialize with deduplication"
                }
            };
            let mut d = depth;
            if op.limit.is_some() {
                out.push(format!("{}-> Limit", pad(d)));
                d += 1;
            }
            if !op.order.is_empty() {
                out.push(format!("{}-> Sort", pad(d)));
                d += 1;
            }
            out.push(format!("{}-> {what}", pad(d)));
            tree_query(s, &op.left, d + 1, out);
            if let Some(r) = &op.right {
                tree_query(s, r, d + 1, out);
            }
        }
        Query::Recursive(r) => {
            out.push(format!("{}-> Materialize recursive CTE", pad(depth)));
            tree_query(s, &r.anchor, depth + 1, out);
            out.push(format!("{}-> Repeat until no new rows", pad(depth + 1)));
            tree_query(s, &r.step, depth + 2, out);
        }
    }
}

pub(crate) fn tree_block<E: KvEngine>(
    s: &Session<E>,
    p: &Plan,
    depth: usize,
    out: &mut Vec<String>,
) {
    let pad = |d: usize| "    ".repeat(d);
    let mut d = depth;
    let line =
        |d: usize, text: String, out: &mut Vec<String>| out.push(format!("{}-> {text}", pad(d)));
    if p.limit.is_some() {
        line(d, "Limit".into(), out);
        d += 1;
    }
    if p.distinct {
        line(d, "Remove duplicates".into(), out);
        d += 1;
    }
    if !p.order.is_empty() {
        line(d, "Sort".into(), out);
        d += 1;
    }
    if p.aggs.iter().any(|a| a.window.is_some()) {
        line(d, "Window aggregate".into(), out);
        d += 1;
    }
    if p.having.is_some() {
        line(d, "Filter (HAVING)".into(), out);
        d += 1;
    }
    if p.grouped {
        line(
            d,
            if p.group_by.is_empty() {
                "Aggregate".into()
            } else if p.rollup {
                "Group aggregate with rollup".into()
            } else {
                "Group aggregate (hash)".into()
            },
            out,
        );
        d += 1;
    }
    if p.from.is_empty() {
        line(d, "Rows fetched before execution".into(), out);
        return;
    }
    let conds: Vec<&Expr> = p
        .filter
        .as_ref()
        .map(crate::ir::expr::conjuncts)
        .unwrap_or_default();
    let order = join_order(p, &conds);
    if p.from.len() > 1 {
        let any_left = p.from.iter().any(|j| j.left);
        line(
            d,
            format!(
                "Nested loop {} join ({} tables, order: {})",
                if any_left { "left" } else { "inner" },
                p.from.len(),
                order
                    .iter()
                    .map(|&j| p.from[j].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            out,
        );
        d += 1;
    } else if p.filter.is_some() {
        line(d, "Filter (WHERE)".into(), out);
        d += 1;
    }
    for (step, &j) in order.iter().enumerate() {
        let jt = &p.from[j];
        match &jt.source {
            Source::Table(t) if step == 0 || p.from.len() == 1 => {
                let filter = if p.from.len() == 1 {
                    p.filter.as_ref()
                } else {
                    None
                };
                // the choice the executor makes (exec::fetch): with ANALYZE TABLE statistics
                let st = s.inst.stats.get(s.storage(), t);
                let path = crate::plan::access::choose_with_stats(t, filter, st.as_deref());
                let idx = &t.indexes[path.index];
                let text = if path.is_full_scan() {
                    format!("Table scan on {}", jt.name)
                } else if path.range.0.is_some()
                    || path.range.1.is_some()
                    || path.eq_prefixes.len() > 1
                {
                    format!("Index range scan on {} using {}", jt.name, idx.name)
                } else {
                    format!("Index lookup on {} using {}", jt.name, idx.name)
                };
                line(d, text, out);
            }
            Source::Table(_) => line(
                d,
                format!(
                    "Index lookup or hash probe on {} (chosen per step at run time)",
                    jt.name
                ),
                out,
            ),
            Source::Derived(q) => {
                line(d, format!("Table scan on {} (materialized)", jt.name), out);
                tree_query(s, q, d + 1, out);
            }
            Source::Work(_) => line(d, format!("Scan new records on {}", jt.name), out),
        }
    }
}

/// EXPLAIN [ANALYZE] [FORMAT=TRADITIONAL|TREE] for a query.
pub fn explain_statement<E: KvEngine>(
    s: &mut Session<E>,
    stmt: &ast::Statement,
    analyze: bool,
    format: Option<&ast::AnalyzeFormatKind>,
    sql: &str,
) -> Result<Output> {
    let fmt = format.map(|f| match f {
        ast::AnalyzeFormatKind::Keyword(k) | ast::AnalyzeFormatKind::Assignment(k) => *k,
    });
    if !analyze && matches!(fmt, None | Some(ast::AnalyzeFormat::TRADITIONAL)) {
        return explain(s, stmt, sql);
    }
    if !analyze && matches!(fmt, Some(ast::AnalyzeFormat::JSON)) {
        return explain_json(s, stmt, sql);
    }
    match fmt {
        None | Some(ast::AnalyzeFormat::TREE) => {}
        Some(ast::AnalyzeFormat::JSON) => {
            return Err(Error::not_supported("EXPLAIN ANALYZE with JSON format"))
        }
        // TEXT, GRAPHVIZ: sqlparser's, not MySQL's
        Some(other) => {
            return Err(Error::new(
                codes::ER_UNKNOWN_EXPLAIN_FORMAT,
                format!("Unknown EXPLAIN format name: '{other}'"),
            ))
        }
    }
    let q = match stmt {
        ast::Statement::Query(q) => q,
        _ => return Err(Error::not_supported("EXPLAIN of this statement")),
    };
    let planned = crate::bind::query::plan(s, q, sql)?;
    let mut lines = Vec::new();
    tree_query(s, &planned, 0, &mut lines);
    if analyze {
        // run it: actual rows and time for the whole statement
        let start = std::time::Instant::now();
        let rows = s.with_ctx(&[], false, |s, ctx| {
            crate::exec::query::run(s, &planned, ctx)
        })?;
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        if let Some(first) = lines.first_mut() {
            first.push_str(&format!(
                "  (actual time={ms:.3} rows={} loops=1)",
                rows.len()
            ));
        }
    }
    Ok(Output::Rows {
        columns: vec![meta_for_type(
            "EXPLAIN",
            &ExprType::Str { max_chars: 65535 },
        )],
        rows: vec![vec![Value::Str(lines.join("\n") + "\n")]],
    })
}

/// EXPLAIN (MySQL's traditional tabular format).
pub fn explain<E: KvEngine>(
    s: &mut Session<E>,
    stmt: &ast::Statement,
    sql: &str,
) -> Result<Output> {
    let q = match stmt {
        ast::Statement::Query(q) => q,
        _ => return Err(Error::not_supported("EXPLAIN of this statement")),
    };
    let q = crate::bind::query::plan(s, q, sql)?;
    let names = [
        "id",
        "select_type",
        "table",
        "partitions",
        "type",
        "possible_keys",
        "key",
        "key_len",
        "ref",
        "rows",
        "filtered",
        "Extra",
    ];
    let columns: Vec<ColumnMeta> = names
        .iter()
        .map(|n| meta_for_type(n, &ExprType::Str { max_chars: 64 }))
        .collect();
    let mut rows = Vec::new();
    let mut next_id = 1;
    explain_query(s, &q, "SIMPLE", &mut next_id, &mut rows);
    for r in rows.iter_mut() {
        if r[0] == Value::Int(0) {
            r[0] = Value::Null;
        }
    }
    Ok(Output::Rows { columns, rows })
}

/// EXPLAIN FORMAT=JSON: the rows of the tabular format as MySQL's JSON document — one
/// `query_block` per SELECT id, its table (or a `nested_loop` of its tables in join order),
/// further blocks (subqueries, UNION members) under the first one's `query_specifications`
/// list. Strata has no cost model, so the `cost_info` objects MySQL prints are left out.
fn explain_json<E: KvEngine>(
    s: &mut Session<E>,
    stmt: &ast::Statement,
    sql: &str,
) -> Result<Output> {
    let Output::Rows { columns, rows } = explain(s, stmt, sql)? else {
        return Err(Error::internal("EXPLAIN returned no rows"));
    };
    let doc = json_document(&columns, &rows);
    let text = serde_json::to_string_pretty(&doc)
        .map_err(|e| Error::internal(format!("EXPLAIN JSON: {e}")))?;
    Ok(Output::Rows {
        columns: vec![meta_for_type(
            "EXPLAIN",
            &ExprType::Str { max_chars: 65535 },
        )],
        rows: vec![vec![Value::Str(text)]],
    })
}

/// The JSON document of EXPLAIN FORMAT=JSON from the tabular rows.
pub(crate) fn json_document(columns: &[ColumnMeta], rows: &[Vec<Value>]) -> serde_json::Value {
    use serde_json::{json, Map, Value as J};
    let col = |r: &[Value], name: &str| -> Option<String> {
        let i = columns.iter().position(|c| c.name == name)?;
        match &r[i] {
            Value::Null => None,
            v => v
                .to_text()
                .map(|b| String::from_utf8_lossy(&b).into_owned()),
        }
    };
    let list = |v: Option<String>| -> Option<J> {
        v.map(|s| J::Array(s.split(',').map(|x| J::String(x.to_string())).collect()))
    };
    // blocks in first-seen order of their select id (NULL: a UNION RESULT)
    let mut blocks: Vec<(Option<String>, Map<String, J>, Vec<J>)> = Vec::new();
    for r in rows {
        let id = col(r, "id");
        let pos = match blocks.iter().position(|b| b.0 == id) {
            Some(p) => p,
            None => {
                let mut m = Map::new();
                if let Some(n) = id.as_ref().and_then(|i| i.parse::<i64>().ok()) {
                    m.insert("select_id".into(), json!(n));
                }
                if let Some(st) = col(r, "select_type").filter(|t| t != "SIMPLE") {
                    m.insert("select_type".into(), json!(st));
                }
                blocks.push((id.clone(), m, Vec::new()));
                blocks.len() - 1
            }
        };
        let Some(table) = col(r, "table") else {
            if let Some(extra) = col(r, "Extra") {
                blocks[pos].1.insert("message".into(), json!(extra));
            }
            continue;
        };
        let mut t = Map::new();
        t.insert("table_name".into(), json!(table));
        if let Some(p) = list(col(r, "partitions")) {
            t.insert("partitions".into(), p);
        }
        if let Some(a) = col(r, "type") {
            t.insert("access_type".into(), json!(a));
        }
        if let Some(p) = list(col(r, "possible_keys")) {
            t.insert("possible_keys".into(), p);
        }
        if let Some(k) = col(r, "key") {
            t.insert("key".into(), json!(k));
        }
        if let Some(k) = col(r, "key_len") {
            t.insert("key_length".into(), json!(k));
        }
        if let Some(x) = list(col(r, "ref")) {
            t.insert("ref".into(), x);
        }
        if let Some(n) = col(r, "rows").and_then(|n| n.parse::<u64>().ok()) {
            t.insert("rows_examined_per_scan".into(), json!(n));
        }
        if let Some(f) = col(r, "filtered") {
            t.insert("filtered".into(), json!(f));
        }
        // Extra notes with a key of their own in MySQL's document; the others (such as
        // "Using where", whose `attached_condition` would need the condition's text) are
        // kept, joined, as the table's `message`
        let mut notes = Vec::new();
        let extra = col(r, "Extra");
        for part in extra.iter().flat_map(|e| e.split("; ")) {
            match part {
                "Using index" => {
                    t.insert("using_index".into(), json!(true));
                }
                "Using temporary" => {
                    t.insert("using_temporary_table".into(), json!(true));
                }
                "Using filesort" => {
                    t.insert("using_filesort".into(), json!(true));
                }
                other => notes.push(other),
            }
        }
        if !notes.is_empty() {
            t.insert("message".into(), json!(notes.join("; ")));
        }
        blocks[pos].2.push(json!({ "table": J::Object(t) }));
    }
    let mut out: Vec<J> = blocks
        .into_iter()
        .map(|(_, mut m, tables)| {
            match tables.len() {
                0 => {}
                1 => {
                    let t = tables.into_iter().next().expect("one table");
                    m.insert("table".into(), t["table"].clone());
                }
                _ => {
                    m.insert("nested_loop".into(), J::Array(tables));
                }
            }
            J::Object(m)
        })
        .collect();
    let mut first = if out.is_empty() {
        Map::new()
    } else {
        match out.remove(0) {
            J::Object(m) => m,
            _ => Map::new(),
        }
    };
    if !out.is_empty() {
        first.insert(
            "query_specifications".into(),
            J::Array(
                out.into_iter()
                    .map(|b| json!({ "query_block": b }))
                    .collect(),
            ),
        );
    }
    json!({ "query_block": J::Object(first) })
}

#[cfg(test)]
mod tests {
    use crate::session::session::test_support::{err, ok, rows, session};

    fn json(s: &mut crate::Session<storage::mem::MemEngine>, sql: &str) -> serde_json::Value {
        let r = rows(s, sql);
        assert_eq!(r.len(), 1, "{sql}");
        serde_json::from_str(&r[0][0]).unwrap_or_else(|e| panic!("{sql}: {e}: {}", r[0][0]))
    }

    /// FORMAT=JSON is MySQL's document built from the same rows as the tabular format:
    /// one table, a join (nested_loop in the tabular order), a subquery's second block.
    #[test]
    fn format_json_follows_the_tabular_rows() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE a (id INT PRIMARY KEY, v INT, KEY kv (v))",
        );
        ok(&mut s, "CREATE TABLE b (id INT PRIMARY KEY, a_id INT)");
        let d = json(&mut s, "EXPLAIN FORMAT=JSON SELECT * FROM a WHERE id = 3");
        let t = &d["query_block"]["table"];
        assert_eq!(d["query_block"]["select_id"], 1);
        assert_eq!(t["table_name"], "a");
        let tab = rows(&mut s, "EXPLAIN SELECT * FROM a WHERE id = 3");
        assert_eq!(t["access_type"], tab[0][4].as_str());
        assert_eq!(t["key"], tab[0][6].as_str());
        let d = json(
            &mut s,
            "EXPLAIN FORMAT=JSON SELECT * FROM a JOIN b ON b.a_id = a.id WHERE a.v = 1",
        );
        let tab = rows(
            &mut s,
            "EXPLAIN SELECT * FROM a JOIN b ON b.a_id = a.id WHERE a.v = 1",
        );
        let names: Vec<_> = d["query_block"]["nested_loop"]
            .as_array()
            .expect("nested_loop")
            .iter()
            .map(|t| t["table"]["table_name"].as_str().unwrap().to_string())
            .collect();
        let want: Vec<_> = tab.iter().map(|r| r[2].clone()).collect();
        assert_eq!(names, want);
        let d = json(
            &mut s,
            "EXPLAIN FORMAT=JSON SELECT id FROM a WHERE v > (SELECT COUNT(*) FROM b)",
        );
        let specs = d["query_block"]["query_specifications"]
            .as_array()
            .expect("specs");
        assert_eq!(specs[0]["query_block"]["select_id"], 2);
        // TRADITIONAL is the tabular format; EXPLAIN ANALYZE has no JSON form here
        assert_eq!(
            rows(
                &mut s,
                "EXPLAIN FORMAT=TRADITIONAL SELECT * FROM a WHERE id = 3"
            ),
            rows(&mut s, "EXPLAIN SELECT * FROM a WHERE id = 3")
        );
        assert_eq!(
            err(&mut s, "EXPLAIN ANALYZE FORMAT=JSON SELECT * FROM a"),
            1235
        );
        assert_eq!(
            err(&mut s, "EXPLAIN ANALYZE FORMAT=TRADITIONAL SELECT * FROM a"),
            1235
        );
        assert_eq!(err(&mut s, "EXPLAIN FORMAT=GRAPHVIZ SELECT * FROM a"), 1791);
        // an Extra note without a key of its own is kept as the table's message
        let d = json(&mut s, "EXPLAIN FORMAT=JSON SELECT * FROM b WHERE a_id = 1");
        let t = &d["query_block"]["table"];
        assert!(
            t["message"]
                .as_str()
                .is_some_and(|m| m.contains("Using where")),
            "{t}"
        );
    }

    /// FORMAT=TREE names the index the traditional format names (the executor's choice, made
    /// with ANALYZE TABLE statistics), also where the statistics overrule the first candidate.
    #[test]
    fn tree_and_traditional_name_the_same_index() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, KEY ka (a), KEY kb (b))",
        );
        let values: Vec<String> = (0..200).map(|i| format!("({i}, 1, {i})")).collect();
        ok(
            &mut s,
            &format!("INSERT INTO t VALUES {}", values.join(",")),
        );
        rows(&mut s, "ANALYZE TABLE t");
        let sql = "SELECT id FROM t WHERE a = 1 AND b = 7";
        let key = rows(&mut s, &format!("EXPLAIN {sql}"))[0][6].clone();
        assert_eq!(key, "kb", "statistics make kb the selective index");
        let tree = rows(&mut s, &format!("EXPLAIN FORMAT=TREE {sql}"))[0][0].clone();
        assert!(tree.contains(&format!("using {key}")), "{tree}");
    }
}
