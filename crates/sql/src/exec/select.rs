//! Running a bound SELECT block: filter, join, group/aggregate, having, window, order, distinct,
//! limit and project.

use std::cmp::Ordering;

use common::types::column_flags;
use common::{codes, ColumnMeta, Error, Result, Value};
use sqlparser::ast::{self};
use storage::engine::KvEngine;

use crate::bind::select::meta_for_type;
use crate::exec::aggregate::group_rows;
use crate::exec::fetch::fetch;
use crate::exec::fetch::Scan;
use crate::exec::join::run_join;
use crate::exec::sort::compare_keys_with;
use crate::exec::sort::compare_sort_keys;
use crate::exec::sort::expr_collation;
use crate::exec::sort::sort_rows;
use crate::ir::block::JoinTable;
use crate::ir::block::Plan;
use crate::ir::block::Source;
use crate::ir::expr::AggCall;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::ir::query::Query;
use crate::plan::physical::BlockPlan;
use crate::session::session::Output;
use crate::session::session::Session;

/// Runs a SELECT statement, returning its whole result.
pub fn execute<E: KvEngine>(
    s: &mut Session<E>,
    q: &ast::Query,
    params: &[Value],
    sql: &str,
) -> Result<Output> {
    execute_to(s, q, params, sql, &mut common::client::NoClient)
}

/// Runs a SELECT statement for `client`: a result that can be produced row by row
/// ([`crate::exec::stream`]) is sent to the client's row sink as it is read, when the client
/// offers one; any other result is returned whole.
pub fn execute_to<E: KvEngine>(
    s: &mut Session<E>,
    q: &ast::Query,
    params: &[Value],
    sql: &str,
    client: &mut dyn common::client::Client,
) -> Result<Output> {
    let q_ast = q;
    let q = s.plan_select(q, sql)?;
    let into_vars = q.first_block().into_vars.clone();
    let mut columns = q.columns().to_vec();
    if let crate::ir::query::Query::Select(p) = &*q {
        param_item_types(&mut columns, &p.items, params);
    }
    let calc = calc_found_rows(q_ast);
    if into_vars.is_empty() && !calc {
        if let (crate::ir::query::Query::Select(p), Some(sink)) = (&*q, client.rows()) {
            if crate::exec::stream::streamable(p) {
                let status = s.status_flags();
                let n = s.with_ctx(params, false, |s, ctx| {
                    crate::exec::stream::run(s, p, columns, status, ctx, sink)
                })?;
                s.found_rows = n;
                return Ok(Output::RowsSent { rows: n });
            }
        }
    }
    let rows = s.with_ctx(params, false, |s, ctx| crate::exec::query::run(s, &q, ctx))?;
    s.found_rows = rows.len() as u64;
    if calc {
        // SQL_CALC_FOUND_ROWS: FOUND_ROWS() is the number of rows without the LIMIT, counted
        // by running the statement again without it
        if let Some(all) = without_limit(&q) {
            let n = s
                .with_ctx(params, false, |s, ctx| {
                    crate::exec::query::run(s, &all, ctx)
                })?
                .len();
            s.found_rows = n as u64;
        }
    }
    if !into_vars.is_empty() {
        if rows.len() > 1 {
            return Err(Error::new(
                codes::ER_TOO_MANY_ROWS,
                "Result consisted of more than one row",
            ));
        }
        if let Some(row) = rows.first() {
            for (name, v) in into_vars.iter().zip(row.iter()) {
                s.user_vars
                    .insert(name.trim_start_matches('@').to_ascii_lowercase(), v.clone());
            }
        }
        return Ok(Output::ok(rows.len() as u64));
    }
    Ok(Output::Rows { columns, rows })
}

/// True if the statement's first SELECT carries SQL_CALC_FOUND_ROWS (MySQL reads it there,
/// also for a UNION, where it counts the whole union).
pub(crate) fn calc_found_rows(q: &ast::Query) -> bool {
    let mut body = &*q.body;
    loop {
        match body {
            ast::SetExpr::Select(sel) => {
                return sel
                    .select_modifiers
                    .as_ref()
                    .is_some_and(|m| m.sql_calc_found_rows)
            }
            ast::SetExpr::SetOperation { left, .. } => body = left,
            ast::SetExpr::Query(inner) => body = &inner.body,
            _ => return false,
        }
    }
}

/// The query without its outermost LIMIT / OFFSET (None when it has none to drop).
pub(crate) fn without_limit(q: &Query) -> Option<Query> {
    match q {
        Query::Select(p) if p.limit.is_some() || p.offset.is_some() => {
            Some(Query::Select(Box::new(Plan {
                limit: None,
                offset: None,
                ..(**p).clone()
            })))
        }
        Query::SetOp(o) if o.limit.is_some() || o.offset.is_some() => {
            Some(Query::SetOp(Box::new(crate::ir::query::SetOp {
                limit: None,
                offset: None,
                ..(**o).clone()
            })))
        }
        _ => None,
    }
}

/// A select-list item that is a bare parameter (`SELECT ?`) has no type until it is bound: at
/// execution its column takes the type of the value bound to it, as in MySQL 8 (an integer
/// parameter gives a BIGINT column, bytes a binary string, …), so drivers decode the echoed
/// value as what they sent. A NULL keeps the prepared (string) metadata.
pub(crate) fn param_item_types(columns: &mut [ColumnMeta], items: &[Expr], params: &[Value]) {
    if params.is_empty() || columns.len() != items.len() {
        return;
    }
    for (c, e) in columns.iter_mut().zip(items) {
        if let Expr::Param(i) = e {
            if let Some(v) = params.get(*i).filter(|v| !v.is_null()) {
                let mut m = meta_for_type(&c.name, &func::types::type_of_value(v));
                m.flags |= c.flags & column_flags::NOT_NULL;
                *c = m;
            }
        }
    }
}

/// Evaluates LIMIT / OFFSET.
pub fn eval_limit(e: &Option<Expr>, ctx: &mut EvalCtx<'_>) -> Result<Option<u64>> {
    match e {
        None => Ok(None),
        Some(e) => {
            let v = e.eval(&[], ctx)?;
            Ok(Some(func::convert::to_u64(&v, ctx.warnings).unwrap_or(0)))
        }
    }
}

/// `p` with its uncorrelated subqueries run and replaced by their results (None when it has
/// none): what the executor plans and runs, and EXPLAIN plans.
pub fn resolve_uncorrelated<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<Plan>> {
    if !p.has_subquery() {
        return Ok(None);
    }
    {
        let mut err = None;
        let mut res = |e: &Expr| match crate::exec::query::resolve(s, e, None, ctx) {
            Ok(r) => r,
            Err(x) => {
                err.get_or_insert(x);
                e.clone()
            }
        };
        let mo = |e: &Option<Expr>, res: &mut dyn FnMut(&Expr) -> Expr| e.as_ref().map(res);
        let resolved = Plan {
            filter: mo(&p.filter, &mut res),
            having: mo(&p.having, &mut res),
            items: p.items.iter().map(&mut res).collect(),
            group_by: p.group_by.iter().map(&mut res).collect(),
            order: p.order.iter().map(|(e, d)| (res(e), *d)).collect(),
            aggs: p
                .aggs
                .iter()
                .map(|a| AggCall {
                    arg: a.arg.as_ref().map(&mut res),
                    ..a.clone()
                })
                .collect(),
            from: p
                .from
                .iter()
                .map(|j| JoinTable {
                    on: j.on.as_ref().map(&mut res),
                    ..j.clone()
                })
                .collect(),
            ..p.clone()
        };
        match err {
            Some(e) => Err(e),
            None => Ok(Some(resolved)),
        }
    }
}

/// Executes a block, returning the projected rows.
pub fn run_plan<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    // Uncorrelated subqueries run once, here; correlated ones per row below.
    let resolved = resolve_uncorrelated(s, p, ctx)?;
    let p = resolved.as_ref().unwrap_or(p);
    // after the uncorrelated ones ran, only correlated subqueries are left: without them the
    // per-row evaluation can skip the subquery machinery
    let correlated_any = p.has_subquery();
    let limit = eval_limit(&p.limit, ctx)?;
    let offset = eval_limit(&p.offset, ctx)?.unwrap_or(0);
    // WHERE conjuncts with correlated subqueries are applied after the rows are read
    let (plain, correlated): (Vec<&Expr>, Vec<&Expr>) = p
        .filter
        .as_ref()
        .map(crate::ir::expr::conjuncts)
        .unwrap_or_default()
        .into_iter()
        .partition(|c| !c.has_subquery());
    let plain_filter = and_all(&plain);
    let stats = |t: &storage::catalog::TableDef| s.inst.stats.get(s.storage(), t);
    let plan = crate::plan::physical::plan_block(p, plain_filter.as_ref(), &stats);
    let source: Vec<Vec<Value>> = match plan {
        BlockPlan::NoTables => {
            let keep = match &plain_filter {
                Some(f) => f.eval_bool(&[], ctx)?,
                None => true,
            };
            if keep {
                vec![vec![]]
            } else {
                vec![]
            }
        }
        BlockPlan::Table(read) => {
            let t = &p.from[0];
            let Source::Table(def) = &t.source else {
                return Err(Error::internal("single-table plan of a derived table"));
            };
            let order_hint = read.order_hint;
            let can_stream = correlated.is_empty()
                && (p.order.is_empty() || order_hint.is_some())
                && !p.grouped
                && !p.distinct
                && p.aggs.iter().all(|a| a.window.is_none());
            let limit_hint = if can_stream {
                limit.map(|l| (l + offset) as usize)
            } else {
                None
            };
            let scan = Scan {
                lock: p.lock_for(&t.name),
                wait: p.lock_wait,
                order_hint,
                limit_hint,
                cols: p.used_columns(def.columns.len()),
            };
            let (rows, planned) = fetch(s, def, &read, plain_filter.as_ref(), ctx, &scan)?;
            crate::exec::trace::read(&t.name, def, &read, planned, rows.len() as u64, 1);
            rows.into_iter().map(|(_, r)| r).collect()
        }
        BlockPlan::Join(plan) => run_join(s, p, &plan, ctx)?,
    };
    let source = if correlated.is_empty() {
        source
    } else {
        let mut kept = Vec::with_capacity(source.len());
        for r in source {
            let mut ok = true;
            for c in &correlated {
                if !crate::exec::query::eval_bool(s, c, &r, ctx)? {
                    ok = false;
                    break;
                }
            }
            if ok {
                kept.push(r);
            }
        }
        kept
    };
    // grouping
    let mut rows: Vec<Vec<Value>> = if p.grouped {
        let n = p.group_by.len();
        if p.rollup && n > 0 {
            // one grouping per prefix of the GROUP BY list; the super-aggregate rows have the
            // rolled-up columns NULL and follow the rows they summarise
            let mut all: Vec<(Vec<Value>, usize, Vec<Value>)> = Vec::new();
            for k in (0..=n).rev() {
                for (key, mut row) in group_rows(s, p, &source, k, ctx)? {
                    for g in &p.group_by[k..] {
                        for c in g.columns() {
                            if c < row.len() {
                                row[c] = Value::Null;
                            }
                        }
                    }
                    all.push((key, k, row));
                }
            }
            let default = ctx.fnctx.collation;
            let colls: Vec<common::Collation> = p
                .group_by
                .iter()
                .map(|g| expr_collation(g, &p.scope, default))
                .collect();
            all.sort_by(|a, b| {
                for (i, &coll) in colls.iter().enumerate() {
                    match (i < a.1, i < b.1) {
                        (true, true) => {
                            let o = compare_sort_keys(&a.0[i..=i], &b.0[i..=i], &[false], coll);
                            if o != Ordering::Equal {
                                return o;
                            }
                        }
                        (true, false) => return Ordering::Less,
                        (false, true) => return Ordering::Greater,
                        (false, false) => return Ordering::Equal,
                    }
                }
                Ordering::Equal
            });
            all.into_iter().map(|(_, _, r)| r).collect()
        } else {
            let mut out: Vec<(Vec<Value>, Vec<Value>)> = group_rows(s, p, &source, n, ctx)?;
            if p.order.is_empty() && n > 0 {
                // MySQL 5.7 / MariaDB order groups by the GROUP BY expressions; keep that.
                let default = ctx.fnctx.collation;
                let colls: Vec<common::Collation> = p
                    .group_by
                    .iter()
                    .map(|g| expr_collation(g, &p.scope, default))
                    .collect();
                let desc = vec![false; n];
                out.sort_by(|a, b| compare_keys_with(&a.0, &b.0, &desc, &|i| colls[i]));
            }
            out.into_iter().map(|(_, r)| r).collect()
        }
    } else {
        source
    };
    if let Some(h) = &p.having {
        let mut kept = Vec::with_capacity(rows.len());
        for r in rows {
            if if correlated_any {
                crate::exec::query::eval_bool(s, h, &r, ctx)?
            } else {
                h.eval_bool(&r, ctx)?
            } {
                kept.push(r);
            }
        }
        rows = kept;
    }
    if p.aggs.iter().any(|a| a.window.is_some()) {
        crate::exec::window::compute(s, p, &mut rows, ctx)?;
    }
    let coll_of = |e: &Expr| expr_collation(e, &p.scope, ctx.fnctx.collation);
    let item_colls: Vec<common::Collation> = p.items.iter().map(coll_of).collect();
    if !p.order.is_empty() {
        let colls: Vec<common::Collation> = p.order.iter().map(|(e, _)| coll_of(e)).collect();
        // without DISTINCT, only OFFSET + LIMIT rows can reach the output
        let top = match (p.distinct, limit) {
            (false, Some(l)) => Some((l + offset) as usize),
            _ => None,
        };
        sort_rows(s, &mut rows, &p.order, &colls, top, ctx)?;
    }
    // project
    let mut out = Vec::with_capacity(rows.len());
    let mut seen: foldhash::HashSet<_> = Default::default();
    let mut mem = crate::runtime::limits::MemTracker::new();
    let mut skipped = 0u64;
    let movable = movable_items(&p.items);
    for mut r in rows {
        if limit.is_some_and(|l| out.len() as u64 >= l) {
            break;
        }
        let mut o = Vec::with_capacity(p.items.len());
        for (e, m) in p.items.iter().zip(&movable) {
            o.push(match (m, e) {
                // the row is dropped after this: move its value rather than copy it
                (true, Expr::Col(i)) if !correlated_any && *i < r.len() => {
                    std::mem::replace(&mut r[*i], Value::Null)
                }
                _ if correlated_any => crate::exec::query::eval(s, e, &r, ctx)?,
                _ => e.eval(&r, ctx)?,
            });
        }
        if p.distinct {
            let mut k = Vec::new();
            for (v, c) in o.iter().zip(&item_colls) {
                func::compare::hash_key(v, *c, &mut k);
                k.push(0xFE);
            }
            mem.add_bytes(k.len() + 48)?;
            if !seen.insert(k) {
                continue;
            }
        }
        if skipped < offset {
            skipped += 1;
            continue;
        }
        mem.add_row(&o)?;
        out.push(o);
    }
    Ok(out)
}

/// For each output expression: true if it is a bare column that no other output expression
/// reads, so projection may move the value out of the source row.
pub(crate) fn movable_items(items: &[Expr]) -> Vec<bool> {
    let mut uses: rustc_hash::FxHashMap<usize, usize> = Default::default();
    for e in items {
        e.walk(&mut |x| {
            if let Expr::Col(i) = x {
                *uses.entry(*i).or_default() += 1;
            }
        });
    }
    items
        .iter()
        .map(|e| matches!(e, Expr::Col(i) if uses.get(i) == Some(&1)))
        .collect()
}

pub(crate) fn and_all(conds: &[&Expr]) -> Option<Expr> {
    conds
        .iter()
        .map(|c| (*c).clone())
        .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)))
}

#[cfg(test)]
mod tests {
    use crate::session::session::test_support::{err, ok, rows, session};

    /// ORDER BY sorts positions and compares plain string columns by their collation weights:
    /// ties keep the scan's order, case compares equal under the default collation (a NO PAD
    /// one: 'a ' sorts after 'a'), NULL first, DESC, LIMIT (the partial sort), a second key and
    /// an expression key give what the build before this change gave.
    #[test]
    fn order_by_string_columns_ties_desc_and_limit() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE o (id INT PRIMARY KEY, c VARCHAR(10), n INT, b VARBINARY(10))",
        );
        ok(
            &mut s,
            "INSERT INTO o VALUES (1, 'b', 3, 'b'), (2, 'A', 1, 'A'), (3, 'a ', 2, 'a'), \
             (4, 'B', 2, 'B'), (5, NULL, 0, NULL), (6, 'a', 1, 'a')",
        );
        let got = |s: &mut crate::Session<storage::mem::MemEngine>, sql: &str| {
            rows(s, sql)
                .into_iter()
                .map(|r| r.join(","))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (sql, want) in [
            ("SELECT id FROM o ORDER BY c", "5 2 6 3 1 4"),
            ("SELECT id FROM o ORDER BY c DESC", "1 4 3 2 6 5"),
            ("SELECT id FROM o ORDER BY c, n", "5 2 6 3 4 1"),
            ("SELECT id FROM o ORDER BY c DESC, n DESC LIMIT 3", "1 4 3"),
            ("SELECT id FROM o ORDER BY c LIMIT 2", "5 2"),
            ("SELECT id FROM o ORDER BY b", "5 2 4 3 6 1"),
            (
                "SELECT id FROM o ORDER BY CONCAT(c, 'x') LIMIT 4",
                "5 3 2 6",
            ),
            ("SELECT id FROM o ORDER BY c LIMIT 0", ""),
        ] {
            assert_eq!(got(&mut s, sql), want, "{sql}");
        }
    }

    /// Scans build only the columns a block reads; every clause that reads a column must
    /// still see its value.
    #[test]
    fn scans_decode_every_column_a_query_reads() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(20), pad VARCHAR(20), KEY(k))",
        );
        ok(&mut s, "CREATE TABLE u (x VARCHAR(20))");
        ok(&mut s, "INSERT INTO u VALUES ('c2'), ('c3')");
        for i in 1..=6 {
            ok(
                &mut s,
                &format!(
                    "INSERT INTO t VALUES ({i}, {}, 'c{i}', 'p{}')",
                    i % 2,
                    7 - i
                ),
            );
        }
        let cases: &[(&str, &str)] = &[
            ("SELECT c FROM t WHERE id BETWEEN 2 AND 4", "c2 c3 c4"),
            ("SELECT c, c FROM t WHERE id BETWEEN 2 AND 3", "c2,c2 c3,c3"),
            ("SELECT c FROM t WHERE id > 3 ORDER BY pad", "c6 c5 c4"),
            ("SELECT SUM(k) FROM t WHERE id BETWEEN 1 AND 6", "3"),
            (
                "SELECT k, MAX(pad) FROM t WHERE id > 0 GROUP BY k",
                "0,p5 1,p6",
            ),
            (
                "SELECT k FROM t WHERE id > 0 GROUP BY k HAVING MIN(c) = 'c1'",
                "1",
            ),
            (
                "SELECT id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pad) FROM t \
                 WHERE id < 5 ORDER BY id",
                "1,2 2,2 3,1 4,1",
            ),
            (
                "SELECT GROUP_CONCAT(id ORDER BY pad) FROM t WHERE id BETWEEN 1 AND 3",
                "3,2,1",
            ),
            (
                "SELECT id FROM t WHERE id < 5 AND EXISTS (SELECT 1 FROM u WHERE u.x = t.c)",
                "2 3",
            ),
            ("SELECT id FROM t WHERE c IN (SELECT x FROM u)", "2 3"),
            (
                "SELECT DISTINCT k FROM t WHERE id BETWEEN 1 AND 6 ORDER BY k",
                "0 1",
            ),
            (
                "SELECT id FROM t WHERE k = 1 ORDER BY c DESC LIMIT 2",
                "5 3",
            ),
            ("SELECT * FROM t WHERE id = 6", "6,0,c6,p1"),
            ("SELECT t.* FROM t WHERE k = 0 AND id < 3", "2,0,c2,p5"),
            ("SELECT d.t.*, 1 FROM t WHERE id = 2", "2,0,c2,p5,1"),
            ("SELECT x.id, x.* FROM t AS x WHERE id = 3", "3,3,1,c3,p4"),
            (
                "SELECT u.*, t.id FROM t JOIN u ON u.x = t.c ORDER BY t.id",
                "c2,2 c3,3",
            ),
        ];
        for (sql, want) in cases {
            let got = rows(&mut s, sql)
                .into_iter()
                .map(|r| r.join(","))
                .collect::<Vec<_>>()
                .join(" ");
            assert_eq!(&got, want, "{sql}");
        }
        // FOUND_ROWS(): the rows of the last SELECT, or without its LIMIT after
        // SQL_CALC_FOUND_ROWS (also for a UNION, the modifier on its first SELECT)
        for (sql, found) in [
            ("SELECT id FROM t LIMIT 2", "2"),
            ("SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 2", "6"),
            (
                "SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE k = 1 LIMIT 1, 1",
                "3",
            ),
            ("SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE id > 4", "2"),
            (
                "SELECT SQL_CALC_FOUND_ROWS id FROM t UNION SELECT 10 ORDER BY 1 LIMIT 3",
                "7",
            ),
            (
                "SELECT SQL_CALC_FOUND_ROWS k, COUNT(*) FROM t GROUP BY k LIMIT 1",
                "2",
            ),
        ] {
            rows(&mut s, sql);
            assert_eq!(rows(&mut s, "SELECT FOUND_ROWS()"), [[found]], "{sql}");
        }
        // column headers are the expression's text, INTERVAL units included
        let names = |s: &mut crate::Session<storage::mem::MemEngine>, sql: &str| match s
            .query(sql, false)
            .pop()
        {
            Some(Ok(crate::session::session::Output::Rows { columns, .. })) => {
                columns.into_iter().map(|c| c.name).collect::<Vec<_>>()
            }
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(
            names(
                &mut s,
                "SELECT NOW() > NOW() - INTERVAL 1 DAY, DATE_ADD('2020-01-01', INTERVAL 2 HOUR), \
                 '2020-01-01' + interval '1:30' minute_second x, INTERVAL(5, 1, 9)"
            ),
            [
                "NOW() > NOW() - INTERVAL 1 DAY",
                "DATE_ADD('2020-01-01', INTERVAL 2 HOUR)",
                "x",
                "INTERVAL(5, 1, 9)"
            ]
        );
        // a qualifier that names no table of the FROM clause
        for sql in [
            "SELECT z.* FROM t",
            "SELECT x.t.* FROM t",
            "SELECT t.* FROM t AS y",
        ] {
            assert_eq!(err(&mut s, sql), 1051, "{sql}");
        }
    }
}
