//! Window functions: `f(...) OVER (PARTITION BY .. ORDER BY .. [ROWS|RANGE frame])`.
//!
//! A window call is bound like an aggregate (an [`AggCall`] with `window` set) so it occupies a
//! slot of the block's row after grouping; this pass fills those slots. Rows are sorted by
//! (partition, order) per call, and each partition is walked once: ranking functions from the
//! position and peer groups, LAG/LEAD by offset, aggregates and FIRST/LAST/NTH_VALUE over the
//! frame (incrementally when the frame starts at the partition's first row).

use std::cmp::Ordering;

use common::{Error, Result, Value};
use storage::engine::KvEngine;

use crate::expr::{AggCall, AggFunc, EvalCtx, FrameBound, WindowDef};
use crate::query;
use crate::select::{self, Plan};
use crate::session::Session;

/// Computes every window call of `p` for `rows` (the block's rows after grouping and HAVING),
/// writing results at `scope width + call index`.
pub fn compute<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    rows: &mut [Vec<Value>],
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    let base = p.scope.cols.len();
    let width = base + p.aggs.len();
    for r in rows.iter_mut() {
        if r.len() < width {
            r.resize(width, Value::Null);
        }
    }
    for (ai, a) in p.aggs.iter().enumerate() {
        let Some(w) = &a.window else { continue };
        let out = compute_one(s, a, w, rows, ctx)?;
        for (r, v) in rows.iter_mut().zip(out) {
            r[base + ai] = v;
        }
    }
    Ok(())
}

fn eval_all<E: KvEngine>(
    s: &mut Session<E>,
    exprs: &[crate::expr::Expr],
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Value>> {
    exprs.iter().map(|e| query::eval(s, e, row, ctx)).collect()
}

fn compute_one<E: KvEngine>(
    s: &mut Session<E>,
    a: &AggCall,
    w: &WindowDef,
    rows: &[Vec<Value>],
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Value>> {
    let n = rows.len();
    let coll = ctx.fnctx.collation;
    // per-row partition key, order key, argument value
    let order_exprs: Vec<crate::expr::Expr> = w.order.iter().map(|(e, _)| e.clone()).collect();
    let desc: Vec<bool> = w.order.iter().map(|(_, d)| *d).collect();
    let mut pkeys = Vec::with_capacity(n);
    let mut okeys = Vec::with_capacity(n);
    let mut args = Vec::with_capacity(n);
    for r in rows {
        let mut k = Vec::new();
        for v in eval_all(s, &w.partition, r, ctx)? {
            func::compare::hash_key(&v, coll, &mut k);
            k.push(0xFE);
        }
        pkeys.push(k);
        okeys.push(eval_all(s, &order_exprs, r, ctx)?);
        args.push(match &a.arg {
            Some(e) => query::eval(s, e, r, ctx)?,
            None => Value::Int(1),
        });
    }
    let mut idx: Vec<usize> = (0..n).collect();
    // stable: rows keep their relative order within equal keys
    idx.sort_by(|&x, &y| {
        pkeys[x]
            .cmp(&pkeys[y])
            .then_with(|| select::compare_sort_keys(&okeys[x], &okeys[y], &desc, coll))
    });
    let mut out = vec![Value::Null; n];
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && pkeys[idx[end]] == pkeys[idx[start]] {
            end += 1;
        }
        partition(
            s,
            a,
            w,
            rows,
            &idx[start..end],
            &okeys,
            &desc,
            &args,
            &mut out,
            ctx,
        )?;
        start = end;
    }
    Ok(out)
}

fn int_arg<E: KvEngine>(
    s: &mut Session<E>,
    e: Option<&crate::expr::Expr>,
    row: &[Value],
    default: i64,
    ctx: &mut EvalCtx<'_>,
) -> Result<i64> {
    match e {
        None => Ok(default),
        Some(e) => {
            let v = query::eval(s, e, row, ctx)?;
            Ok(func::convert::to_i64(&v, ctx.warnings).unwrap_or(default))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn partition<E: KvEngine>(
    s: &mut Session<E>,
    a: &AggCall,
    w: &WindowDef,
    rows: &[Vec<Value>],
    part: &[usize],
    okeys: &[Vec<Value>],
    desc: &[bool],
    args: &[Value],
    out: &mut [Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    let m = part.len();
    let coll = ctx.fnctx.collation;
    let peer = |x: usize, y: usize| {
        select::compare_sort_keys(&okeys[part[x]], &okeys[part[y]], desc, coll) == Ordering::Equal
    };
    // peer group boundaries: first[i] / last[i] position of row i's peer group
    let mut first = vec![0usize; m];
    let mut last = vec![0usize; m];
    let mut g = 0;
    while g < m {
        let mut e = g + 1;
        while e < m && peer(g, e) {
            e += 1;
        }
        for i in g..e {
            first[i] = g;
            last[i] = e - 1;
        }
        g = e;
    }
    match a.func {
        AggFunc::RowNumber => {
            for (pos, &r) in part.iter().enumerate() {
                out[r] = Value::Int(pos as i64 + 1);
            }
        }
        AggFunc::Rank => {
            for (pos, &r) in part.iter().enumerate() {
                out[r] = Value::Int(first[pos] as i64 + 1);
            }
        }
        AggFunc::DenseRank => {
            let mut rank = 0;
            for (pos, &r) in part.iter().enumerate() {
                if pos == 0 || first[pos] == pos {
                    rank += 1;
                }
                out[r] = Value::Int(rank);
            }
        }
        AggFunc::PercentRank => {
            for (pos, &r) in part.iter().enumerate() {
                out[r] = Value::Double(if m <= 1 {
                    0.0
                } else {
                    first[pos] as f64 / (m - 1) as f64
                });
            }
        }
        AggFunc::CumeDist => {
            for (pos, &r) in part.iter().enumerate() {
                out[r] = Value::Double((last[pos] + 1) as f64 / m as f64);
            }
        }
        AggFunc::Ntile => {
            let k = int_arg(s, w.extra.first(), &rows[part[0]], 1, ctx)?;
            if k <= 0 {
                return Err(Error::new(
                    common::codes::ER_WRONG_ARGUMENTS,
                    "Incorrect arguments to ntile",
                ));
            }
            let k = k as usize;
            let (q, rem) = (m / k, m % k);
            let mut pos = 0;
            for bucket in 0..k {
                let size = q + usize::from(bucket < rem);
                for _ in 0..size {
                    if pos < m {
                        out[part[pos]] = Value::Int(bucket as i64 + 1);
                        pos += 1;
                    }
                }
            }
        }
        AggFunc::Lag | AggFunc::Lead => {
            for (pos, &r) in part.iter().enumerate() {
                let off = int_arg(s, w.extra.first(), &rows[r], 1, ctx)?;
                let target = if a.func == AggFunc::Lag {
                    pos as i64 - off
                } else {
                    pos as i64 + off
                };
                out[r] = if target >= 0 && (target as usize) < m {
                    args[part[target as usize]].clone()
                } else {
                    match w.extra.get(1) {
                        Some(d) => query::eval(s, d, &rows[r], ctx)?,
                        None => Value::Null,
                    }
                };
            }
        }
        _ => {
            // frame-based: aggregates, FIRST_VALUE, LAST_VALUE, NTH_VALUE
            let (rows_unit, fs, fe) = match w.frame {
                Some(f) => f,
                None if w.order.is_empty() => (
                    false,
                    FrameBound::UnboundedPreceding,
                    FrameBound::UnboundedFollowing,
                ),
                None => (
                    false,
                    FrameBound::UnboundedPreceding,
                    FrameBound::CurrentRow,
                ),
            };
            let bound = |b: FrameBound, pos: usize, is_start: bool| -> i64 {
                match b {
                    FrameBound::UnboundedPreceding => 0,
                    FrameBound::UnboundedFollowing => m as i64 - 1,
                    FrameBound::CurrentRow if rows_unit => pos as i64,
                    FrameBound::CurrentRow => {
                        if is_start {
                            first[pos] as i64
                        } else {
                            last[pos] as i64
                        }
                    }
                    FrameBound::Preceding(k) => pos as i64 - k as i64,
                    FrameBound::Following(k) => pos as i64 + k as i64,
                }
            };
            let nth = match a.func {
                AggFunc::NthValue => int_arg(s, w.extra.first(), &rows[part[0]], 1, ctx)?,
                _ => 1,
            };
            // running state when the frame starts at the partition's first row
            let mut running: Option<(select::AggState, i64, std::collections::HashSet<Vec<u8>>)> =
                None;
            for (pos, &r) in part.iter().enumerate() {
                let lo = bound(fs, pos, true).max(0);
                let hi = bound(fe, pos, false).min(m as i64 - 1);
                let empty = lo > hi;
                out[r] = match a.func {
                    AggFunc::FirstValue => {
                        if empty {
                            Value::Null
                        } else {
                            args[part[lo as usize]].clone()
                        }
                    }
                    AggFunc::LastValue => {
                        if empty {
                            Value::Null
                        } else {
                            args[part[hi as usize]].clone()
                        }
                    }
                    AggFunc::NthValue => {
                        let t = lo + nth - 1;
                        if empty || nth < 1 || t > hi {
                            Value::Null
                        } else {
                            args[part[t as usize]].clone()
                        }
                    }
                    _ if fs == FrameBound::UnboundedPreceding && !empty => {
                        let (st, upto, seen) = running
                            .get_or_insert_with(|| (select::new_state(a), -1, Default::default()));
                        while *upto < hi {
                            *upto += 1;
                            feed(st, seen, a, args[part[*upto as usize]].clone(), ctx)?;
                        }
                        select::finish_state(st.clone(), a)
                    }
                    _ => {
                        let mut st = select::new_state(a);
                        let mut seen = Default::default();
                        if !empty {
                            for t in lo..=hi {
                                feed(&mut st, &mut seen, a, args[part[t as usize]].clone(), ctx)?;
                            }
                        }
                        select::finish_state(st, a)
                    }
                };
            }
        }
    }
    Ok(())
}

fn feed(
    st: &mut select::AggState,
    seen: &mut std::collections::HashSet<Vec<u8>>,
    a: &AggCall,
    v: Value,
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    if a.distinct && !v.is_null() {
        let mut k = Vec::new();
        func::compare::hash_key(&v, a.coll, &mut k);
        if !seen.insert(k) {
            return Ok(());
        }
    }
    select::update_state(st, a, v, ctx)
}
