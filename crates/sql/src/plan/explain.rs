//! EXPLAIN: the traditional tabular format and FORMAT=TREE for SELECT statements and DML.

use std::borrow::Cow;
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
use crate::plan::physical::{AccessKind, BlockPlan, JoinPlan, JoinStep, StepMethod, TableRead};
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

/// EXPLAIN's `rows` for `read`: one per unique point, the statistics' rows per key prefix
/// times the prefixes when ANALYZE TABLE measured them, else the table's row count.
pub(crate) fn estimated_rows<E: KvEngine>(
    s: &Session<E>,
    t: &storage::catalog::TableDef,
    read: &TableRead,
    stats: Option<&crate::catalog::stats::TableStatistics>,
) -> u64 {
    let path = &read.path;
    if path.unique_point {
        return path.eq_prefixes.len() as u64;
    }
    let eq = path.eq_prefixes.first().map_or(0, Vec::len);
    match stats
        .filter(|_| read.explain_key(t).is_some())
        .and_then(|st| st.rows_per_key(path.index, eq))
    {
        Some(rpk) => (rpk * path.eq_prefixes.len() as f64).ceil() as u64,
        None => s.storage().table_stats(t).map_or(0, |(rows, _, _)| rows),
    }
}

/// EXPLAIN's key_len of `read`: the bytes of the key parts it uses.
pub(crate) fn key_len(t: &storage::catalog::TableDef, read: &TableRead) -> u32 {
    // a whole-index read shows the length of the whole key, as MySQL's "index" type
    let parts = if read.kind == AccessKind::Index {
        usize::MAX
    } else {
        read.key_parts()
    };
    t.indexes[read.path.index]
        .columns
        .iter()
        .take(parts)
        .map(|ic| key_part_len(&t.columns[ic.col], ic.prefix_len))
        .sum()
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
    s: &mut Session<E>,
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
    s: &mut Session<E>,
    p: &Plan,
    select_type: &str,
    next_id: &mut i64,
    out: &mut Vec<Vec<Value>>,
) {
    let id = *next_id;
    *next_id += 1;
    let subqueries = block_subqueries(p);
    let select_type = if select_type == "SIMPLE" && !subqueries.is_empty() {
        "PRIMARY"
    } else {
        select_type
    };
    let (rp, plan) = block_plan(s, p);
    match &plan {
        BlockPlan::NoTables => out.push(explain_row(
            id,
            select_type,
            None,
            None,
            None,
            None,
            Some("No tables used"),
        )),
        BlockPlan::Table(read) => {
            if let Source::Table(t) = &rp.from[0].source {
                let row = table_row(s, &rp, id, select_type, 0, t, read, None);
                out.push(row);
            }
        }
        BlockPlan::Join(jp) => {
            for (n, step) in jp.steps.iter().enumerate() {
                let jt = &rp.from[step.item];
                match (&jt.source, step.read()) {
                    (Source::Table(t), Some(read)) => {
                        let row =
                            table_row(s, &rp, id, select_type, step.item, t, read, Some((n, step)));
                        out.push(row);
                    }
                    (Source::Derived(q), _) => {
                        let derived = format!("<derived{}>", *next_id);
                        let extra = (n > 0).then_some(join_buffer(step));
                        out.push(explain_row(
                            id,
                            select_type,
                            Some(&derived),
                            Some("ALL"),
                            None,
                            None,
                            extra.as_deref(),
                        ));
                        explain_query(s, q, "DERIVED", next_id, out);
                    }
                    _ => out.push(explain_row(
                        id,
                        select_type,
                        Some(&jt.name),
                        Some("ALL"),
                        None,
                        None,
                        Some("Recursive"),
                    )),
                }
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

/// The subqueries of a block's WHERE, select list and HAVING.
fn block_subqueries(p: &Plan) -> Vec<Arc<crate::ir::query::SubQuery>> {
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
}

/// The plan the executor runs for block `p` ([`crate::plan::physical::plan_block`]), with
/// the block's uncorrelated subqueries run first as execution does (when one fails, its
/// conjunct is left out of planning, as a correlated one is).
fn block_plan<'p, E: KvEngine>(s: &mut Session<E>, p: &'p Plan) -> (Cow<'p, Plan>, BlockPlan) {
    let resolved = s
        .with_ctx(&[], false, |s, ctx| {
            crate::exec::select::resolve_uncorrelated(s, p, ctx)
        })
        .ok()
        .flatten();
    let rp = resolved.map_or(Cow::Borrowed(p), Cow::Owned);
    let plain: Vec<&Expr> = rp
        .filter
        .as_ref()
        .map(crate::ir::expr::conjuncts)
        .unwrap_or_default()
        .into_iter()
        .filter(|c| !c.has_subquery())
        .collect();
    let plain_filter = crate::exec::select::and_all(&plain);
    let stats = |t: &storage::catalog::TableDef| s.inst.stats.get(s.storage(), t);
    let plan = crate::plan::physical::plan_block(&rp, plain_filter.as_ref(), &stats);
    (rp, plan)
}

/// Extra of a join step that reads its table once into a hash table.
fn join_buffer(step: &JoinStep) -> String {
    let mut extra = Vec::new();
    if !step.conds.is_empty() || step.local.is_some() {
        extra.push("Using where");
    }
    extra.push("Using join buffer (hash join)");
    extra.join("; ")
}

/// The text of a key value in EXPLAIN's `ref` column: `const`, an outer column as
/// `db.table.column`, or `func`.
fn ref_text(e: &Expr, p: &Plan) -> String {
    let col_name = |c: &crate::ir::scope::ScopeCol| {
        if c.db.is_empty() {
            format!("{}.{}", c.table, c.name)
        } else {
            format!("{}.{}.{}", c.db, c.table, c.name)
        }
    };
    match e {
        _ if e.is_const() => "const".into(),
        Expr::Col(i) => p.scope.cols.get(*i).map_or("func".into(), col_name),
        Expr::Outer(1, i) => p
            .scope
            .outer
            .as_ref()
            .and_then(|o| o.cols.get(*i))
            .map_or("func".into(), col_name),
        _ => "func".into(),
    }
}

/// The tabular EXPLAIN row of base table `t` (FROM item `item` of `p`) read through `read`;
/// `step` is its join step (number, step) when the block joins.
#[allow(clippy::too_many_arguments)]
fn table_row<E: KvEngine>(
    s: &Session<E>,
    p: &Plan,
    id: i64,
    select_type: &str,
    item: usize,
    t: &storage::catalog::TableDef,
    read: &TableRead,
    step: Option<(usize, &JoinStep)>,
) -> Vec<Value> {
    let jt = &p.from[item];
    let path = &read.path;
    let ty = read.kind.explain_type();
    let key = read.explain_key(t);
    let lookup = matches!(
        step,
        Some((
            _,
            JoinStep {
                method: StepMethod::Lookup { .. },
                ..
            }
        ))
    );
    let st = s.inst.stats.get(s.storage(), t);
    let mut rows = estimated_rows(s, t, read, st.as_deref());
    if read.kind == AccessKind::Index {
        // an index read in order stops after the LIMIT's rows
        let lit = |e: &Option<Expr>| match e {
            Some(Expr::Lit(Value::Int(n))) => u64::try_from(*n).ok(),
            Some(Expr::Lit(Value::UInt(n))) => Some(*n),
            _ => None,
        };
        if let Some(n) = lit(&p.limit) {
            rows = rows.min(n.saturating_add(lit(&p.offset).unwrap_or(0)));
        }
    }
    let eq = path.eq_prefixes.first().map_or(0, Vec::len);
    // key_len / ref for the key parts used
    let (key_len, key_ref) = if key.is_some() {
        let len = key_len(t, read);
        let r = matches!(
            read.kind,
            AccessKind::Const | AccessKind::Ref | AccessKind::EqRef
        )
        .then(|| {
            path.eq_prefixes[0]
                .iter()
                .map(|e| ref_text(e, p))
                .collect::<Vec<_>>()
                .join(",")
        });
        (Some(len.to_string()), r)
    } else {
        (None, None)
    };
    let mut extra: Vec<String> = Vec::new();
    let (filter, conds_left) = match step {
        None => {
            if covering(p, t, path.index) {
                extra.push("Using index".into());
            }
            // "Using where" only when conditions remain after the key lookup
            let key_conds =
                eq + usize::from(path.range.0.is_some()) + usize::from(path.range.1.is_some());
            let nconds = p
                .filter
                .as_ref()
                .map_or(0, |f| crate::ir::expr::conjuncts(f).len());
            let left = (read.kind != AccessKind::Const && nconds > key_conds.min(nconds))
                || (matches!(read.kind, AccessKind::All | AccessKind::Index) && nconds > 0);
            (p.filter.as_ref(), left)
        }
        Some((_, st)) => {
            // the step's own conditions the key ranges do not decide, or any on the joined row
            let local = st
                .local
                .as_ref()
                .map_or(0, |l| crate::ir::expr::conjuncts(l).len());
            let decided = path.covered.iter().filter(|&&i| i < local).count();
            (st.local.as_ref(), !st.conds.is_empty() || local > decided)
        }
    };
    if conds_left {
        extra.push("Using where".into());
    }
    if let Some((n, st)) = step {
        if read.kind == AccessKind::RangeChecked {
            extra.push(format!(
                "Range checked for each record (index map: {:#x})",
                1u64 << path.index.min(63)
            ));
        } else if n > 0 && !lookup {
            extra = vec![join_buffer(st)];
        }
    }
    if read.ordered == Some(true) && key.is_some() {
        extra.push("Backward index scan".into());
    }
    let first = step.is_none_or(|(n, _)| n == 0);
    if first && !p.group_by.is_empty() {
        extra.push("Using temporary".into());
    }
    if first && !p.order.is_empty() && (step.is_some() || read.ordered.is_none()) {
        extra.push("Using filesort".into());
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
    let named = key.filter(|_| read.kind != AccessKind::Index);
    row[5] = possible_keys(p, jt, t, named).map_or(Value::Null, Value::Str);
    row[7] = key_len.map(Value::Str).unwrap_or(Value::Null);
    row[8] = key_ref.map(Value::Str).unwrap_or(Value::Null);
    let part_filter = if lookup { None } else { filter };
    row[3] = crate::catalog::partition::explain_partitions(s, t, part_filter)
        .map(Value::Str)
        .unwrap_or(Value::Null);
    row
}

/// EXPLAIN's possible_keys: the indexes whose first column the block's conditions mention,
/// of those the index hints let find rows.
fn possible_keys(
    p: &Plan,
    jt: &crate::ir::block::JoinTable,
    t: &storage::catalog::TableDef,
    key: Option<&str>,
) -> Option<String> {
    let offset = jt.offset;
    let mut mentioned: Vec<usize> = Vec::new();
    p.filter.iter().for_each(|f| mentioned.extend(f.columns()));
    p.from
        .iter()
        .filter_map(|j| j.on.as_ref())
        .for_each(|on| mentioned.extend(on.columns()));
    let names: Vec<&str> = t
        .indexes
        .iter()
        .enumerate()
        .filter(|(i, _)| !(t.hidden_pk && *i == 0) && jt.hints.may_read(*i))
        .filter(|(_, ix)| {
            ix.columns
                .first()
                .is_some_and(|ic| mentioned.contains(&(ic.col + offset)))
        })
        .map(|(_, ix)| ix.name.as_str())
        .collect();
    match (names.is_empty(), key) {
        (false, _) => Some(names.join(",")),
        (true, Some(k)) => Some(k.to_string()),
        (true, None) => None,
    }
}

/// True when every column block `p` reads of `t` is in index `ino` (or the primary key it
/// carries): a secondary-index read that needs no row lookup.
fn covering(p: &Plan, t: &storage::catalog::TableDef, ino: usize) -> bool {
    if ino == 0 {
        return false;
    }
    let idx = &t.indexes[ino];
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
    used_cols.iter().all(|c| in_index(*c))
}

/// Lines of EXPLAIN FORMAT=TREE for a query (indented two spaces per level, MySQL style).
pub(crate) fn tree_query<E: KvEngine>(
    s: &mut Session<E>,
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
    s: &mut Session<E>,
    p: &Plan,
    depth: usize,
    out: &mut Vec<String>,
) {
    let mut d = depth;
    let line = |d: usize, text: String, out: &mut Vec<String>| {
        out.push(format!("{}-> {text}", "    ".repeat(d)))
    };
    if p.limit.is_some() {
        line(d, "Limit".into(), out);
        d += 1;
    }
    if p.distinct {
        line(d, "Remove duplicates".into(), out);
        d += 1;
    }
    let (rp, plan) = block_plan(s, p);
    let ordered = matches!(&plan, BlockPlan::Table(r) if r.ordered.is_some());
    if !p.order.is_empty() && !ordered {
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
    match &plan {
        BlockPlan::NoTables => line(d, "Rows fetched before execution".into(), out),
        BlockPlan::Table(read) => {
            if p.filter.is_some() {
                line(d, "Filter (WHERE)".into(), out);
                d += 1;
            }
            if let Source::Table(t) = &rp.from[0].source {
                line(d, read_text(&rp, &rp.from[0].name, t, read), out);
            }
        }
        BlockPlan::Join(jp) => {
            if !jp.rest.is_empty() {
                line(d, "Filter (WHERE)".into(), out);
                d += 1;
            }
            tree_steps(s, &rp, jp, jp.steps.len(), d, out);
        }
    }
}

/// The tree of the first `n` steps of a join: each step joins the tree of the steps before it
/// (its first child) with its own table (second child).
fn tree_steps<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    jp: &JoinPlan,
    n: usize,
    d: usize,
    out: &mut Vec<String>,
) {
    let pad = |d: usize| "    ".repeat(d);
    let step = &jp.steps[n - 1];
    if n == 1 {
        return tree_item(s, p, step, d, out);
    }
    let side = if jp.outer && p.from[step.item].left {
        ("Left", "left")
    } else {
        ("Inner", "inner")
    };
    match &step.method {
        StepMethod::Lookup { .. } => {
            out.push(format!("{}-> Nested loop {} join", pad(d), side.1));
            tree_steps(s, p, jp, n - 1, d + 1, out);
            tree_item(s, p, step, d + 1, out);
        }
        StepMethod::Hash { keys, .. } => {
            let jt = &p.from[step.item];
            let cond = if keys.is_empty() {
                "no condition".to_string()
            } else {
                keys.iter()
                    .map(|(c, e, _)| {
                        let col = p
                            .scope
                            .cols
                            .get(jt.offset + c)
                            .map_or("?", |x| x.name.as_str());
                        format!("{}.{} = {}", jt.name, col, ref_text(e, p))
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push(format!("{}-> {} hash join ({cond})", pad(d), side.0));
            tree_steps(s, p, jp, n - 1, d + 1, out);
            out.push(format!("{}-> Hash", pad(d + 1)));
            tree_item(s, p, step, d + 2, out);
        }
    }
}

/// One join step's own table in the tree.
fn tree_item<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    step: &JoinStep,
    d: usize,
    out: &mut Vec<String>,
) {
    let pad = |d: usize| "    ".repeat(d);
    let jt = &p.from[step.item];
    let d = if step.local.is_some() && !matches!(step.method, StepMethod::Lookup { .. }) {
        out.push(format!("{}-> Filter", pad(d)));
        d + 1
    } else {
        d
    };
    match (&jt.source, step.read()) {
        (Source::Table(t), Some(read)) => {
            out.push(format!("{}-> {}", pad(d), read_text(p, &jt.name, t, read)))
        }
        (Source::Derived(q), _) => {
            out.push(format!(
                "{}-> Table scan on {} (materialized)",
                pad(d),
                jt.name
            ));
            tree_query(s, q, d + 1, out);
        }
        _ => out.push(format!("{}-> Scan new records on {}", pad(d), jt.name)),
    }
}

/// FORMAT=TREE's line for reading table `t` (named `name` in the block) through `read`.
fn read_text(p: &Plan, name: &str, t: &storage::catalog::TableDef, read: &TableRead) -> String {
    let idx = &t.indexes[read.path.index];
    let keys = || {
        let Some(pre) = read.path.eq_prefixes.first() else {
            return String::new();
        };
        let parts: Vec<String> = idx
            .columns
            .iter()
            .zip(pre)
            .map(|(ic, e)| {
                let v = match e {
                    Expr::Lit(Value::Str(v)) => format!("'{}'", v.replace('\'', "''")),
                    Expr::Lit(v) => v.to_string(),
                    _ => ref_text(e, p),
                };
                format!("{} = {v}", t.columns[ic.col].name)
            })
            .collect();
        format!(" ({})", parts.join(", "))
    };
    let reverse = if read.ordered == Some(true) {
        " (reverse)"
    } else {
        ""
    };
    match read.kind {
        AccessKind::Index => format!("Index scan on {name} using {}{reverse}", idx.name),
        AccessKind::All => format!("Table scan on {name}"),
        AccessKind::Const | AccessKind::EqRef => format!(
            "Single-row index lookup on {name} using {}{}",
            idx.name,
            keys()
        ),
        AccessKind::Ref => format!(
            "Index lookup on {name} using {}{}{reverse}",
            idx.name,
            keys()
        ),
        AccessKind::Range => format!("Index range scan on {name} using {}{reverse}", idx.name),
        AccessKind::RangeChecked => format!(
            "Index range scan on {name} using {} (re-planned for each outer row)",
            idx.name
        ),
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
    // without FORMAT, the session's explain_format decides (EXPLAIN ANALYZE: TREE for
    // TRADITIONAL, as in MySQL 8.4); None is the tabular format
    let fmt = requested_format(s, format);
    if !analyze && fmt.is_none() {
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
        // run it: actual rows and time for the whole statement, rows and loops per table read
        let start = std::time::Instant::now();
        crate::exec::trace::start();
        let rows = s.with_ctx(&[], false, |s, ctx| {
            crate::exec::query::run(s, &planned, ctx)
        });
        let reads = crate::exec::trace::take();
        let rows = rows?;
        annotate_reads(&mut lines, reads);
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

/// EXPLAIN ANALYZE: each table node of the tree gets the rows its reads returned and how many
/// times it ran, in the order the executor recorded them (`(never executed)` when it did not
/// run); MySQL also prints per-node times, which Strata does not measure.
fn annotate_reads(lines: &mut [String], mut reads: Vec<crate::exec::trace::Entry>) {
    for line in lines.iter_mut() {
        let Some(name) = node_table(line) else {
            continue;
        };
        match reads.iter().position(|r| r.name == name) {
            Some(i) if reads[i].loops > 0 => {
                let r = reads.remove(i);
                line.push_str(&format!("  (actual rows={} loops={})", r.rows, r.loops));
            }
            Some(i) => {
                reads.remove(i);
                line.push_str("  (never executed)");
            }
            None => line.push_str("  (never executed)"),
        }
    }
}

/// The table a FORMAT=TREE line reads (`Table scan on t`, `Index lookup on t using k …`).
fn node_table(line: &str) -> Option<String> {
    let text = line.trim_start().strip_prefix("-> ")?;
    let reads = [
        "Table scan on ",
        "Index lookup on ",
        "Single-row index lookup on ",
        "Index range scan on ",
        "Index scan on ",
    ];
    let rest = reads.iter().find_map(|p| text.strip_prefix(p))?;
    if rest.ends_with("(materialized)") {
        return None;
    }
    Some(rest.split(' ').next().unwrap_or(rest).to_string())
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
    let columns = tabular_columns();
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

/// The columns of the tabular EXPLAIN.
pub(crate) fn tabular_columns() -> Vec<ColumnMeta> {
    [
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
    ]
    .iter()
    .map(|n| meta_for_type(n, &ExprType::Str { max_chars: 64 }))
    .collect()
}

/// One text cell named EXPLAIN (FORMAT=TREE and FORMAT=JSON).
pub(crate) fn text_output(text: String) -> Output {
    Output::Rows {
        columns: vec![meta_for_type(
            "EXPLAIN",
            &ExprType::Str { max_chars: 65535 },
        )],
        rows: vec![vec![Value::Str(text)]],
    }
}

/// The format an EXPLAIN asks for: its FORMAT= (TRADITIONAL travels as sqlparser's GRAPHVIZ,
/// see `parse::parser`), else the session's `explain_format`; `None` is the tabular format.
pub(crate) fn requested_format<E: KvEngine>(
    s: &Session<E>,
    format: Option<&ast::AnalyzeFormatKind>,
) -> Option<ast::AnalyzeFormat> {
    format
        .map(|f| match f {
            ast::AnalyzeFormatKind::Keyword(k) | ast::AnalyzeFormatKind::Assignment(k) => *k,
        })
        .or_else(|| match s.var("explain_format") {
            Some(Value::Str(v)) if v == "JSON" => Some(ast::AnalyzeFormat::JSON),
            Some(Value::Str(v)) if v == "TREE" => Some(ast::AnalyzeFormat::TREE),
            _ => None,
        })
        .and_then(|f| match f {
            ast::AnalyzeFormat::GRAPHVIZ | ast::AnalyzeFormat::TRADITIONAL => None,
            f => Some(f),
        })
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
    /// EXPLAIN ANALYZE runs the query and puts each table read's rows and loops on its node.
    #[test]
    fn analyze_counts_rows_and_loops_per_table() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE c (id INT PRIMARY KEY, city VARCHAR(10), KEY (city))",
        );
        ok(
            &mut s,
            "CREATE TABLE o (id INT PRIMARY KEY, cid INT, KEY kc (cid))",
        );
        ok(
            &mut s,
            "INSERT INTO c VALUES (1,'a'),(2,'b'),(3,'a'),(4,'c')",
        );
        ok(&mut s, "INSERT INTO o VALUES (1,1),(2,1),(3,3),(4,4),(5,9)");
        let text = rows(
            &mut s,
            "EXPLAIN ANALYZE SELECT c.id, o.id FROM c JOIN o ON o.cid = c.id WHERE c.city = 'a'",
        )[0][0]
            .clone();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("(actual time="), "{text}");
        let node = |name: &str| {
            lines
                .iter()
                .find(|l| {
                    l.contains(&format!(" on {name} ")) || l.ends_with(&format!(" on {name}"))
                })
                .copied()
                .unwrap_or_else(|| panic!("{name}: {text}"))
        };
        // c through its city index: 2 rows once; o looked up once per c row: 3 rows in 2 loops
        assert!(node("c").ends_with("(actual rows=2 loops=1)"), "{text}");
        assert!(node("o").ends_with("(actual rows=3 loops=2)"), "{text}");
        // a read that never ran
        let text = rows(
            &mut s,
            "EXPLAIN ANALYZE SELECT c.id FROM c JOIN o ON o.cid = c.id WHERE c.city = 'zz'",
        )[0][0]
            .clone();
        assert!(text.contains("(never executed)"), "{text}");
        assert!(!text.contains("loops=0"), "{text}");
    }

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
