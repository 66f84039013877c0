//! Joins of a block's tables: nested loops with index lookups and hash joins, step by step in the
//! planned order.

use std::sync::atomic::Ordering as AtOrd;
use std::sync::Arc;

use common::{Error, Result, Value};
use func::types::ExprType;
use storage::engine::KvEngine;

use crate::exec::fetch::fetch;
use crate::exec::fetch::Scan;
use crate::ir::block::Plan;
use crate::ir::block::Source;
use crate::ir::expr::CmpOp;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::plan::join_order::join_order;
use crate::plan::join_order::tables_of;
use crate::session::session::Session;

/// How a join step reads its table.
pub(crate) enum StepRows {
    /// Index nested loop: one keyed read per outer row.
    Lookup,
    /// Materialised once; probed through a hash on equi-join keys (or scanned when none).
    Hashed {
        rows: Arc<Vec<Vec<Value>>>,
        /// (column inside the table, expression over earlier tables, collation)
        keys: Vec<(usize, Expr, common::Collation)>,
        table: foldhash::HashMap<Vec<u8>, Vec<usize>>,
    },
}

pub(crate) fn type_class(t: &ExprType) -> u8 {
    if t.is_numeric() {
        1
    } else if t.is_string() {
        2
    } else {
        0
    }
}

/// Hashable key of one probe/build value; None for NULL (never equal).
pub(crate) fn push_key(v: &Value, coll: common::Collation, out: &mut Vec<u8>) -> bool {
    if v.is_null() {
        return false;
    }
    func::compare::hash_key(v, coll, out);
    out.push(0xFE);
    true
}

/// Joins the FROM items: in a greedy order for inner joins, each table read either through
/// its keys with the outer row's values substituted (index nested loop), or materialised once
/// and probed by a hash on its equi-join columns (hash join); LEFT JOINs null-extend. The
/// plain WHERE conjuncts are pushed to the first step where all their tables are available.
pub(crate) fn run_join<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    where_conj: &[&Expr],
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let width = p.scope.cols.len();
    let mut all_inner: Vec<&Expr> = where_conj.to_vec();
    if !p.from.iter().any(|j| j.left) {
        for jt in &p.from {
            if let Some(on) = &jt.on {
                all_inner.extend(crate::ir::expr::conjuncts(on));
            }
        }
    }
    let order = join_order(p, &all_inner);
    let mut rows: Vec<Vec<Value>> = vec![vec![Value::Null; width]];
    let mut placed: Vec<bool> = vec![false; p.from.len()];
    let mut used = vec![false; all_inner.len()];
    for &j in &order {
        let jt = &p.from[j];
        let (lo, hi) = (jt.offset, jt.offset + jt.width);
        placed[j] = true;
        // conditions evaluated while reading j
        let mut conds: Vec<&Expr> = Vec::new();
        if jt.left {
            if let Some(on) = &jt.on {
                conds.extend(crate::ir::expr::conjuncts(on));
            }
        } else {
            let any_left = p.from.iter().any(|x| x.left);
            if any_left {
                if let Some(on) = &jt.on {
                    conds.extend(crate::ir::expr::conjuncts(on));
                }
            }
            for (ci, c) in all_inner.iter().enumerate() {
                if used[ci] {
                    continue;
                }
                let ts = tables_of(&p.from, c);
                if ts.iter().all(|t| placed[*t]) && (ts.contains(&j) || ts.is_empty()) {
                    used[ci] = true;
                    conds.push(c);
                }
            }
        }
        let local = |i: usize| i >= lo && i < hi;
        // choose the strategy once
        let mut strategy = StepRows::Lookup;
        let probe_filter = conds
            .iter()
            .map(|c| {
                c.map_cols(&|i| {
                    if local(i) {
                        Expr::Col(i - lo)
                    } else {
                        Expr::Lit(Value::Int(0))
                    }
                })
            })
            .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)));
        let keyed = match &jt.source {
            Source::Table(t) => {
                t.id != 0 && !crate::plan::access::choose(t, probe_filter.as_ref()).is_full_scan()
            }
            _ => false,
        };
        if !keyed || rows.len() == 1 {
            // materialise, filtered by the conditions on this table alone
            let local_conds: Vec<Expr> = conds
                .iter()
                .filter(|c| c.columns().iter().all(|&i| local(i)) && !c.columns().is_empty())
                .map(|c| c.map_cols(&|i| Expr::Col(i - lo)))
                .collect();
            let local_filter = local_conds
                .into_iter()
                .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)));
            let mat: Vec<Vec<Value>> = match &jt.source {
                Source::Table(t) if rows.len() != 1 || !keyed => {
                    fetch(s, t, local_filter.as_ref(), ctx, &Scan::locking(p.lock))?
                        .into_iter()
                        .map(|(_, r)| r)
                        .collect()
                }
                Source::Table(_) => Vec::new(), // single outer row: keyed read below
                other => {
                    let all = crate::exec::query::source_rows(s, other, ctx)?;
                    match &local_filter {
                        None => all.as_ref().clone(),
                        Some(f) => {
                            let mut v = Vec::new();
                            for r in all.iter() {
                                if f.eval_bool(r, ctx)? {
                                    v.push(r.clone());
                                }
                            }
                            v
                        }
                    }
                }
            };
            if !(keyed && rows.len() == 1) {
                let mut keys = Vec::new();
                for c in &conds {
                    if let Expr::Cmp(CmpOp::Eq, a, b, coll) = c {
                        for (x, y) in [(a, b), (b, a)] {
                            if let Expr::Col(col) = **x {
                                if !local(col) || y.columns().iter().any(|&i| local(i)) {
                                    continue;
                                }
                                let tx = crate::bind::expr::expr_type(x, &p.scope, &p.aggs, width);
                                let ty = crate::bind::expr::expr_type(y, &p.scope, &p.aggs, width);
                                let cls = type_class(&tx);
                                if cls != 0 && cls == type_class(&ty) {
                                    keys.push((col - lo, (**y).clone(), *coll));
                                    break;
                                }
                            }
                        }
                    }
                }
                let mut table: foldhash::HashMap<Vec<u8>, Vec<usize>> = Default::default();
                if !keys.is_empty() {
                    'rows: for (ri, r) in mat.iter().enumerate() {
                        let mut k = Vec::new();
                        for (c, _, coll) in &keys {
                            if !push_key(&r[*c], *coll, &mut k) {
                                continue 'rows;
                            }
                        }
                        table.entry(k).or_default().push(ri);
                    }
                }
                strategy = StepRows::Hashed {
                    rows: Arc::new(mat),
                    keys,
                    table,
                };
            }
        }
        let cond_all = |r: &[Value], ctx: &mut EvalCtx<'_>| -> Result<bool> {
            for c in &conds {
                if !c.eval_bool(r, ctx)? {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        let mut next = Vec::new();
        let mut mem = crate::runtime::limits::MemTracker::new();
        for (ri, row) in rows.into_iter().enumerate() {
            if ri % 256 == 0 && ctx.killed.load(AtOrd::Relaxed) {
                return Err(Error::interrupted());
            }
            let mut matched = false;
            match &strategy {
                StepRows::Lookup => {
                    let Source::Table(t) = &jt.source else {
                        return Err(Error::internal("keyed join step on a derived table"));
                    };
                    let specialised = conds
                        .iter()
                        .map(|c| {
                            c.map_cols(&|i| {
                                if local(i) {
                                    Expr::Col(i - lo)
                                } else {
                                    Expr::Lit(row[i].clone())
                                }
                            })
                        })
                        .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)));
                    for (_, m) in fetch(s, t, specialised.as_ref(), ctx, &Scan::locking(p.lock))? {
                        let mut r = row.clone();
                        r[lo..hi].clone_from_slice(&m);
                        mem.add_row(&r)?;
                        next.push(r);
                        matched = true;
                    }
                }
                StepRows::Hashed {
                    rows: mat,
                    keys,
                    table,
                } => {
                    let candidates: Box<dyn Iterator<Item = usize>> = if keys.is_empty() {
                        Box::new(0..mat.len())
                    } else {
                        let mut k = Vec::new();
                        let mut ok = true;
                        for (_, e, coll) in keys {
                            let v = e.eval(&row, ctx)?;
                            if !push_key(&v, *coll, &mut k) {
                                ok = false;
                                break;
                            }
                        }
                        match table.get(&k) {
                            Some(list) if ok => Box::new(list.clone().into_iter()),
                            _ => Box::new(std::iter::empty()),
                        }
                    };
                    for ci in candidates {
                        let mut r = row.clone();
                        r[lo..hi].clone_from_slice(&mat[ci]);
                        if cond_all(&r, ctx)? {
                            mem.add_row(&r)?;
                            next.push(r);
                            matched = true;
                        }
                    }
                }
            }
            if !matched && jt.left {
                next.push(row);
            }
        }
        rows = next;
    }
    // everything not consumed by a step (and, with outer joins, all of WHERE) applies here
    let rest: Vec<&Expr> = if p.from.iter().any(|j| j.left) {
        where_conj.to_vec()
    } else {
        all_inner
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(c, _)| *c)
            .collect()
    };
    if rest.is_empty() {
        return Ok(rows);
    }
    let mut out = Vec::with_capacity(rows.len());
    'outer: for r in rows {
        for c in &rest {
            if !c.eval_bool(&r, ctx)? {
                continue 'outer;
            }
        }
        out.push(r);
    }
    Ok(out)
}
