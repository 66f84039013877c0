//! Running query expressions: set operations, recursive CTEs, and subqueries in expressions
//! (uncorrelated ones once per execution and replaced by their result; correlated ones per outer
//! row).

use std::collections::HashSet;
use std::sync::Arc;

use common::{codes, Error, Result, Value};
use storage::engine::KvEngine;

use crate::exec::materialize::{Materialized, Materializer, TmpCounters};
use crate::ir::block::Source;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::ir::query::bind_outer_row;
use crate::ir::query::Query;
use crate::ir::query::RecursiveCte;
use crate::ir::query::SetKind;
use crate::ir::query::SetOp;
use crate::ir::query::SubQuery;
use crate::session::session::Session;

/// Runs a query, returning its rows.
pub fn run<E: KvEngine>(
    s: &mut Session<E>,
    q: &Query,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    match q {
        Query::Select(p) => crate::exec::select::run_plan(s, p, ctx),
        Query::SetOp(op) => run_setop(s, op, ctx),
        Query::Recursive(r) => run_recursive(s, r, ctx),
    }
}

pub(crate) fn row_key(row: &[Value], coll: common::Collation) -> Vec<u8> {
    let mut k = Vec::new();
    for v in row {
        func::compare::hash_key(v, coll, &mut k);
        k.push(0xFE);
    }
    k
}

pub(crate) fn run_setop<E: KvEngine>(
    s: &mut Session<E>,
    op: &SetOp,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let coll = ctx.fnctx.collation;
    let left = run(s, &op.left, ctx)?;
    let mut rows = match &op.right {
        None => left,
        Some(r) => {
            let right = run(s, r, ctx)?;
            match op.kind {
                SetKind::Union | SetKind::Paren => {
                    let mut out = left;
                    out.extend(right);
                    let mut mem = crate::runtime::limits::MemTracker::new();
                    for r in &out {
                        mem.add_row(r)?;
                    }
                    if !op.all {
                        let mut seen = HashSet::new();
                        out.retain(|r| seen.insert(row_key(r, coll)));
                    }
                    out
                }
                SetKind::Except | SetKind::Intersect => {
                    let mut rset = std::collections::HashMap::new();
                    for r in &right {
                        *rset.entry(row_key(r, coll)).or_insert(0usize) += 1;
                    }
                    let mut seen = HashSet::new();
                    let mut out = Vec::new();
                    let mut mem = crate::runtime::limits::MemTracker::new();
                    for r in left {
                        let k = row_key(&r, coll);
                        let n = rset.get_mut(&k);
                        let keep = match (op.kind, n) {
                            (SetKind::Except, None) => true,
                            (SetKind::Except, Some(c)) => {
                                if op.all && *c == 0 {
                                    true
                                } else {
                                    if op.all {
                                        *c -= 1;
                                    }
                                    false
                                }
                            }
                            (_, Some(c)) if *c > 0 => {
                                if op.all {
                                    *c -= 1;
                                }
                                true
                            }
                            _ => false,
                        };
                        if keep && (op.all || seen.insert(k)) {
                            mem.add_row(&r)?;
                            out.push(r);
                        }
                    }
                    out
                }
            }
        }
    };
    if !op.order.is_empty() {
        crate::exec::sort::sort_rows(s, &mut rows, &op.order, &[], None, ctx)?;
    }
    let limit = crate::exec::select::eval_limit(&op.limit, ctx)?;
    let offset = crate::exec::select::eval_limit(&op.offset, ctx)?.unwrap_or(0) as usize;
    if offset > 0 || limit.is_some() {
        let end = limit
            .map(|l| offset.saturating_add(l as usize))
            .unwrap_or(usize::MAX);
        rows = rows
            .into_iter()
            .skip(offset)
            .take(end.saturating_sub(offset))
            .collect();
    }
    Ok(rows)
}

pub(crate) fn run_recursive<E: KvEngine>(
    s: &mut Session<E>,
    r: &RecursiveCte,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let coll = ctx.fnctx.collation;
    let max_depth = s
        .var("cte_max_recursion_depth")
        .and_then(|v| match v {
            Value::Int(i) => Some(i as u64),
            Value::UInt(u) => Some(u),
            _ => None,
        })
        .unwrap_or(1000);
    let mut seen = HashSet::new();
    let mut out = run(s, &r.anchor, ctx)?;
    if r.distinct {
        out.retain(|row| seen.insert(row_key(row, coll)));
    }
    let mut work = out.clone();
    let mut depth = 0u64;
    while !work.is_empty() {
        depth += 1;
        if depth > max_depth {
            s.work_tables.remove(&r.id);
            return Err(Error::new(
                codes::ER_CTE_MAX_RECURSION_DEPTH,
                format!(
                    "Recursive query aborted after {} iterations. Try increasing @@cte_max_recursion_depth to a larger value.",
                    depth
                ),
            ));
        }
        s.work_tables
            .insert(r.id, Arc::new(std::mem::take(&mut work)));
        let res = run(s, &r.step, ctx);
        let mut next = match res {
            Ok(n) => n,
            Err(e) => {
                s.work_tables.remove(&r.id);
                return Err(e);
            }
        };
        if r.distinct {
            next.retain(|row| seen.insert(row_key(row, coll)));
        }
        out.extend(next.iter().cloned());
        work = next;
    }
    s.work_tables.remove(&r.id);
    Ok(out)
}

/// Runs a subquery (its outer references already bound) and folds its result into an
/// expression node.
pub(crate) fn fold_subquery<E: KvEngine>(
    s: &mut Session<E>,
    e: &Expr,
    q: &Query,
    lhs: Option<Expr>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Expr> {
    let rows = run(s, q, ctx)?;
    Ok(match e {
        Expr::Subquery(_) => {
            if rows.len() > 1 {
                return Err(Error::new(
                    codes::ER_SUBQUERY_NO_1_ROW,
                    "Subquery returns more than 1 row",
                ));
            }
            Expr::Lit(
                rows.into_iter()
                    .next()
                    .and_then(|r| r.into_iter().next())
                    .unwrap_or(Value::Null),
            )
        }
        Expr::Exists(_) => Expr::Lit(Value::Int(!rows.is_empty() as i64)),
        Expr::InSubquery(_, _, neg, coll) if matches!(&lhs, Some(Expr::Func(n, _)) if n == crate::bind::expr::ROW_MARKER) =>
        {
            // (a, b) IN rows == OR over rows of (a = x AND b = y), three-valued
            let Some(Expr::Func(_, items)) = lhs else {
                return Err(Error::internal("row constructor"));
            };
            let alts: Vec<Expr> = rows
                .into_iter()
                .filter_map(|r| {
                    let eqs: Vec<Expr> = items
                        .iter()
                        .zip(r)
                        .map(|(a, v)| {
                            Expr::Cmp(
                                crate::ir::expr::CmpOp::Eq,
                                Box::new(a.clone()),
                                Box::new(Expr::Lit(v)),
                                *coll,
                            )
                        })
                        .collect();
                    balanced(eqs, true)
                })
                .collect();
            let any = balanced(alts, false).unwrap_or(Expr::Lit(Value::Int(0)));
            if *neg {
                Expr::Not(Box::new(any))
            } else {
                any
            }
        }
        Expr::InSubquery(_, _, neg, coll) => {
            let list = rows
                .into_iter()
                .map(|r| Expr::Lit(r.into_iter().next().unwrap_or(Value::Null)))
                .collect::<Vec<_>>();
            if list.is_empty() {
                // x IN (empty set) is false even for NULL x
                Expr::Lit(Value::Int(*neg as i64))
            } else {
                Expr::InList(
                    Box::new(lhs.unwrap_or(Expr::Lit(Value::Null))),
                    list.into(),
                    *neg,
                    *coll,
                )
            }
        }
        Expr::Quantified(op, _, _, all, coll) => {
            // x op ANY (v1..vn) == (x op v1) OR … ; ALL == AND …, with SQL's three-valued
            // logic giving MySQL's NULL results; empty set: ANY false, ALL true. A balanced
            // tree keeps evaluation depth logarithmic.
            let lhs = lhs.unwrap_or(Expr::Lit(Value::Null));
            let cmps: Vec<Expr> = rows
                .into_iter()
                .map(|r| {
                    Expr::Cmp(
                        *op,
                        Box::new(lhs.clone()),
                        Box::new(Expr::Lit(r.into_iter().next().unwrap_or(Value::Null))),
                        *coll,
                    )
                })
                .collect();
            balanced(cmps, *all).unwrap_or(Expr::Lit(Value::Int(*all as i64)))
        }
        _ => return Err(Error::internal("fold_subquery on a non-subquery")),
    })
}

/// Combines conditions with AND (`all`) or OR as a balanced tree.
pub(crate) fn balanced(mut v: Vec<Expr>, all: bool) -> Option<Expr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        n => {
            let right = v.split_off(n / 2);
            let (a, b) = (balanced(v, all)?, balanced(right, all)?);
            Some(if all {
                Expr::And(Box::new(a), Box::new(b))
            } else {
                Expr::Or(Box::new(a), Box::new(b))
            })
        }
    }
}

/// Replaces subqueries in `e` by their results: uncorrelated ones always, correlated ones only
/// when `row` (the enclosing block's current row) is given.
pub fn resolve<E: KvEngine>(
    s: &mut Session<E>,
    e: &Expr,
    row: Option<&[Value]>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Expr> {
    if !e.has_subquery() {
        return Ok(e.clone());
    }
    let mut err = None;
    // row subqueries: the single row, per subquery (all its columns are in this expression)
    let mut rows: std::collections::HashMap<*const SubQuery, Vec<Value>> = Default::default();
    let out = e.rewrite(&mut |x| {
        if err.is_some() {
            return None;
        }
        if let Expr::Func(f, args) = x {
            if let (Some(r), Some(row)) = (f.stored_routine(), row) {
                return match call_stored(s, r, args, row, ctx) {
                    Ok(v) => Some(Expr::Lit(v)),
                    Err(e) => {
                        err = Some(e);
                        None
                    }
                };
            }
        }
        if let Expr::RowSub(q, i) = x {
            if q.correlated && row.is_none() {
                return None;
            }
            let one = match rows.entry(Arc::as_ptr(q)) {
                std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::hash_map::Entry::Vacant(slot) => {
                    let res = if q.correlated {
                        run(s, &bind_outer_row(&q.query, row.unwrap_or(&[])), ctx)
                    } else {
                        run(s, &q.query, ctx)
                    };
                    match res {
                        Ok(r) if r.len() > 1 => {
                            err = Some(Error::new(
                                codes::ER_SUBQUERY_NO_1_ROW,
                                "Subquery returns more than 1 row",
                            ));
                            return None;
                        }
                        Ok(r) => slot.insert(r.into_iter().next().unwrap_or_default()),
                        Err(e) => {
                            err = Some(e);
                            return None;
                        }
                    }
                }
            };
            return Some(Expr::Lit(one.get(*i).cloned().unwrap_or(Value::Null)));
        }
        let (q, lhs) = match x {
            Expr::Subquery(q) | Expr::Exists(q) => (q, None),
            Expr::InSubquery(a, q, ..) | Expr::Quantified(_, a, q, ..) => (q, Some(a)),
            _ => return None,
        };
        if q.correlated && row.is_none() {
            // keep the node, but still resolve what the left-hand side contains
            if let Some(a) = lhs {
                let a2 = match resolve(s, a, row, ctx) {
                    Ok(a2) => Box::new(a2),
                    Err(e) => {
                        err = Some(e);
                        return None;
                    }
                };
                return match x {
                    Expr::InSubquery(_, q2, n, c) => Some(Expr::InSubquery(a2, q2.clone(), *n, *c)),
                    Expr::Quantified(op, _, q2, all, c) => {
                        Some(Expr::Quantified(*op, a2, q2.clone(), *all, *c))
                    }
                    _ => None,
                };
            }
            return None;
        }
        let lhs = match lhs.map(|a| resolve(s, a, row, ctx)).transpose() {
            Ok(l) => l,
            Err(e) => {
                err = Some(e);
                return None;
            }
        };
        let r = if q.correlated {
            let bound = bind_outer_row(&q.query, row.unwrap_or(&[]));
            fold_subquery(s, x, &bound, lhs, ctx)
        } else {
            fold_subquery(s, x, &q.query, lhs, ctx)
        };
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                err = Some(e);
                None
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Calls stored function `r` on `args` evaluated for `row`, through the session's program
/// hooks; the warnings its statements raise join the calling statement's.
fn call_stored<E: KvEngine>(
    s: &mut Session<E>,
    r: &Arc<crate::ir::routine::Routine>,
    args: &[Expr],
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Value> {
    let mut vals = Vec::with_capacity(args.len());
    for a in args {
        vals.push(eval(s, a, row, ctx)?);
    }
    let hooks = s
        .programs
        .hooks
        .ok_or_else(|| Error::internal("stored programs are not wired to this session"))?;
    let v = (hooks.call_function)(s, r, vals);
    ctx.warnings.append(&mut s.warnings);
    v
}

/// Evaluates `e` for `row`, running correlated subqueries for that row first.
pub fn eval<E: KvEngine>(
    s: &mut Session<E>,
    e: &Expr,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Value> {
    if e.has_subquery() {
        resolve(s, e, Some(row), ctx)?.eval(row, ctx)
    } else {
        e.eval(row, ctx)
    }
}

/// `eval` as a condition.
pub fn eval_bool<E: KvEngine>(
    s: &mut Session<E>,
    e: &Expr,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<bool> {
    let v = eval(s, e, row, ctx)?;
    Ok(crate::ir::expr::truth(&v, ctx) == Some(true))
}

/// Materialises a FROM source that isn't a base table: a derived table or CTE whose query
/// streams goes row by row into a [`Materializer`] (memory up to the in-memory temporary
/// table's size, a file past it); another query is collected.
pub fn materialize<E: KvEngine>(
    s: &mut Session<E>,
    src: &Source,
    ctx: &mut EvalCtx<'_>,
) -> Result<Materialized> {
    match src {
        Source::Derived(q) => {
            let Query::Select(p) = q.as_ref() else {
                return Ok(Materialized::from_rows(run(s, q, ctx)?));
            };
            if !crate::exec::stream::streamable(p) {
                return Ok(Materialized::from_rows(run(s, q, ctx)?));
            }
            let inst = s.inst.clone();
            inst.status
                .created_tmp_tables
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let counters = TmpCounters {
                disk_tables: &inst.status.created_tmp_disk_tables,
                tmp_files: &inst.status.created_tmp_files,
            };
            let budget = crate::exec::stream::tmp_table_budget(s);
            let mut m = Materializer::new(budget, crate::exec::stream::tmp_dir(s), counters);
            crate::exec::stream::run(s, p, Vec::new(), 0, ctx, &mut m)?;
            m.finish()
        }
        Source::Work(id) => s
            .work_tables
            .get(id)
            .map(|rows| Materialized::from_rows(rows.as_ref().clone()))
            .ok_or_else(|| Error::internal("recursive CTE working table missing")),
        Source::Table(_) => Err(Error::internal("materialize on a base table")),
    }
}

#[cfg(test)]
mod tests {
    use crate::session::session::test_support::{err, ok, rows, session};

    fn one(v: &[&str]) -> Vec<Vec<String>> {
        vec![v.iter().map(|s| s.to_string()).collect()]
    }

    #[test]
    fn row_constructors_compare_element_by_element() {
        let mut s = session();
        assert_eq!(
            rows(
                &mut s,
                "SELECT (1, 2) = (1, 2), (1, NULL) = (2, NULL), (1, NULL) <> (1, 2), \
                 (1, 2) < (1, 3), (NULL, 1) < (2, 1), (2, NULL) > (1, 5), (1, NULL) <=> (1, NULL), \
                 ROW(1, 2) >= ROW(1, 2), ((1, 2), 3) = ((1, 2), 3)"
            ),
            one(&["1", "0", "NULL", "1", "NULL", "1", "1", "1", "1"])
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT (1, 2) IN ((0, 0), (1, 2)), (1, 2) IN ((1, 3), (NULL, 2))"
            ),
            one(&["1", "NULL"])
        );
        // arity mismatches: the left operand's width
        assert_eq!(err(&mut s, "SELECT (1, 2) = (1, 2, 3)"), 1241);
        assert_eq!(err(&mut s, "SELECT 1 = (1, 2)"), 1241);
        assert_eq!(err(&mut s, "SELECT (1, 2)"), 1241);
        assert_eq!(err(&mut s, "SELECT ROW(1, 2) IS NULL"), 1241);
    }

    #[test]
    fn row_subqueries() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE q (k INT PRIMARY KEY, x INT, y INT)");
        ok(&mut s, "INSERT INTO q VALUES (1, 1, 2), (2, 2, 1)");
        assert_eq!(
            rows(
                &mut s,
                "SELECT (1, 2) = (SELECT x, y FROM q WHERE k = 1), \
                 (SELECT x, y FROM q WHERE k = 2) > (1, 9), \
                 (1, 2) = (SELECT x, y FROM q WHERE k = 3), \
                 (SELECT x, y FROM q WHERE k = 1) = (SELECT x, y FROM q WHERE k = 1)"
            ),
            one(&["1", "1", "NULL", "1"])
        );
        // correlated: per outer row
        assert_eq!(
            rows(
                &mut s,
                "SELECT k, (x, y) = (SELECT y, x FROM q AS o WHERE o.k = 3 - q.k) FROM q ORDER BY k"
            ),
            vec![vec!["1", "1"], vec!["2", "1"]]
                .into_iter()
                .map(|r| r.into_iter().map(String::from).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT (2, 1) = ANY (SELECT x, y FROM q), (2, 1) <> ALL (SELECT x, y FROM q)"
            ),
            one(&["1", "0"])
        );
        assert_eq!(err(&mut s, "SELECT (1, 2) = (SELECT x, y FROM q)"), 1242);
        assert_eq!(
            err(&mut s, "SELECT (1, 2) = (SELECT x FROM q WHERE k = 1)"),
            1241
        );
        assert_eq!(
            err(&mut s, "SELECT (1, 2) < ANY (SELECT x, y FROM q)"),
            1241
        );
    }

    #[test]
    fn grouping_marks_super_aggregate_rows() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE g (a INT, b INT, n INT)");
        ok(
            &mut s,
            "INSERT INTO g VALUES (1, 1, 1), (1, 2, 2), (2, 1, 4)",
        );
        let r = rows(
            &mut s,
            "SELECT a, b, SUM(n), GROUPING(a), GROUPING(b), GROUPING(a, b), GROUPING(b, a) \
             FROM g GROUP BY a, b WITH ROLLUP",
        );
        let marks: Vec<Vec<&str>> = r
            .iter()
            .map(|x| x[3..].iter().map(|v| v.as_str()).collect())
            .collect();
        assert_eq!(
            marks,
            vec![
                vec!["0", "0", "0", "0"],
                vec!["0", "0", "0", "0"],
                vec!["0", "1", "1", "2"],
                vec!["0", "0", "0", "0"],
                vec!["0", "1", "1", "2"],
                vec!["1", "1", "3", "3"],
            ]
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT a, SUM(n) FROM g GROUP BY a WITH ROLLUP HAVING GROUPING(a) = 1"
            ),
            one(&["NULL", "7"])
        );
        assert_eq!(err(&mut s, "SELECT GROUPING(a) FROM g GROUP BY a"), 1111);
        assert_eq!(
            err(
                &mut s,
                "SELECT a FROM g WHERE GROUPING(a) = 0 GROUP BY a WITH ROLLUP"
            ),
            1111
        );
        assert_eq!(
            err(&mut s, "SELECT GROUPING(n) FROM g GROUP BY a WITH ROLLUP"),
            3602
        );
    }
}
