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

use crate::ir::block::Plan;
use crate::ir::expr::AggCall;
use crate::ir::expr::AggFunc;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::ir::expr::FrameBound;
use crate::ir::expr::WindowDef;
use crate::session::session::Session;

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
    exprs: &[crate::ir::expr::Expr],
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Value>> {
    exprs
        .iter()
        .map(|e| crate::exec::query::eval(s, e, row, ctx))
        .collect()
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
    let order_exprs: Vec<crate::ir::expr::Expr> = w.order.iter().map(|(e, _)| e.clone()).collect();
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
            Some(e) => crate::exec::query::eval(s, e, r, ctx)?,
            None => Value::Int(1),
        });
    }
    let mut idx: Vec<usize> = (0..n).collect();
    // stable: rows keep their relative order within equal keys
    idx.sort_by(|&x, &y| {
        pkeys[x]
            .cmp(&pkeys[y])
            .then_with(|| crate::exec::sort::compare_sort_keys(&okeys[x], &okeys[y], &desc, coll))
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
    e: Option<&crate::ir::expr::Expr>,
    row: &[Value],
    default: i64,
    ctx: &mut EvalCtx<'_>,
) -> Result<i64> {
    match e {
        None => Ok(default),
        Some(e) => {
            let v = crate::exec::query::eval(s, e, row, ctx)?;
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
        crate::exec::sort::compare_sort_keys(&okeys[part[x]], &okeys[part[y]], desc, coll)
            == Ordering::Equal
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
                        Some(d) => crate::exec::query::eval(s, d, &rows[r], ctx)?,
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
            let range = RangeFrame::new(w, part, okeys, ctx)?;
            let bound = |b: FrameBound, pos: usize, is_start: bool| -> i64 {
                match b {
                    FrameBound::RangePreceding | FrameBound::RangeFollowing => match &range {
                        Some(r) => r.bound(pos, is_start, &first, &last),
                        None => pos as i64,
                    },
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
            let mut running: Option<(
                crate::exec::aggregate::AggState,
                i64,
                std::collections::HashSet<Vec<u8>>,
            )> = None;
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
                        let (st, upto, seen) = running.get_or_insert_with(|| {
                            (crate::exec::aggregate::new_state(a), -1, Default::default())
                        });
                        while *upto < hi {
                            *upto += 1;
                            feed(st, seen, a, args[part[*upto as usize]].clone(), ctx)?;
                        }
                        crate::exec::aggregate::finish_state(st.clone(), a)
                    }
                    _ => {
                        let mut st = crate::exec::aggregate::new_state(a);
                        let mut seen = Default::default();
                        if !empty {
                            for t in lo..=hi {
                                feed(&mut st, &mut seen, a, args[part[t as usize]].clone(), ctx)?;
                            }
                        }
                        crate::exec::aggregate::finish_state(st, a)
                    }
                };
            }
        }
    }
    Ok(())
}

/// Frame positions of a RANGE frame with value offsets (one numeric or temporal ORDER BY key):
/// per bound, the key value `offset` away from the current row's, found by binary search in
/// the partition's non-NULL keys (which are sorted). A row whose key is NULL has its NULL peers
/// as the bounds, and NULL keys are outside every other row's value range (MySQL).
struct RangeFrame {
    /// Bound values per current row position: [start, end] (None: the key is NULL).
    targets: Vec<[Option<Value>; 2]>,
    /// Sorted non-NULL keys of the partition and the position of the first.
    keys: Vec<Value>,
    nn_lo: usize,
    desc: bool,
    coll: common::Collation,
}

impl RangeFrame {
    fn new(
        w: &WindowDef,
        part: &[usize],
        okeys: &[Vec<Value>],
        ctx: &mut EvalCtx<'_>,
    ) -> Result<Option<RangeFrame>> {
        if w.range_offsets.iter().all(|o| o.is_none()) {
            return Ok(None);
        }
        let Some((rows_unit, fs, fe)) = w.frame else {
            return Ok(None);
        };
        if rows_unit {
            return Ok(None);
        }
        let desc = w.order.first().is_some_and(|(_, d)| *d);
        let key = |p: usize| okeys[part[p]].first().cloned().unwrap_or(Value::Null);
        // offsets: constant, not NULL, not negative
        let mut offs: [Option<(Value, Option<func::arith::IntervalUnit>)>; 2] = [None, None];
        for (i, o) in w.range_offsets.iter().enumerate() {
            let Some(o) = o else { continue };
            let v = o.value.eval(&[], ctx)?;
            let negative = match &v {
                Value::Null => true,
                v => func::convert::to_f64(v, &mut Vec::new()).is_some_and(|f| f < 0.0),
            };
            if negative {
                return Err(Error::new(
                    common::codes::ER_WINDOW_FRAME_ILLEGAL,
                    "Window '<unnamed window>': frame start or end is negative, NULL or of non-integral type",
                ));
            }
            offs[i] = Some((v, o.unit));
        }
        let mut keys = Vec::new();
        let mut nn_lo = None;
        for p in 0..part.len() {
            let k = key(p);
            if !k.is_null() {
                nn_lo.get_or_insert(p);
                keys.push(k);
            }
        }
        let mut targets = Vec::with_capacity(part.len());
        for p in 0..part.len() {
            let v = key(p);
            let mut t: [Option<Value>; 2] = [None, None];
            for (i, b) in [fs, fe].into_iter().enumerate() {
                let (Some((off, unit)), false) = (&offs[i], v.is_null()) else {
                    continue;
                };
                // toward smaller keys: PRECEDING ascending, FOLLOWING descending
                let sub = (b == FrameBound::RangePreceding) != desc;
                let e = match unit {
                    Some(u) => Expr::DateAdd(
                        Box::new(Expr::Lit(v.clone())),
                        Box::new(Expr::Lit(off.clone())),
                        *u,
                        sub,
                    ),
                    None => Expr::Arith(
                        if sub {
                            func::arith::ArithOp::Sub
                        } else {
                            func::arith::ArithOp::Add
                        },
                        Box::new(Expr::Lit(v.clone())),
                        Box::new(Expr::Lit(off.clone())),
                        String::new(),
                    ),
                };
                t[i] = Some(e.eval(&[], ctx)?);
            }
            targets.push(t);
        }
        Ok(Some(RangeFrame {
            targets,
            keys,
            nn_lo: nn_lo.unwrap_or(0),
            desc,
            coll: ctx.fnctx.collation,
        }))
    }

    /// The frame position of bound `b` for the row at `pos`: the first row at or past the
    /// bound value for a start, the last one before or at it for an end.
    fn bound(&self, pos: usize, is_start: bool, first: &[usize], last: &[usize]) -> i64 {
        let Some(t) = &self.targets[pos][usize::from(!is_start)] else {
            // NULL key: its peers (all NULL keys)
            return if is_start {
                first[pos] as i64
            } else {
                last[pos] as i64
            };
        };
        if t.is_null() {
            // the bound value overflowed: nothing lies beyond it
            return if is_start { i64::MAX / 2 } else { -1 };
        }
        let cmp = |k: &Value| {
            let o = crate::exec::sort::compare_sort_keys(
                std::slice::from_ref(k),
                std::slice::from_ref(t),
                &[false],
                self.coll,
            );
            if self.desc {
                o.reverse()
            } else {
                o
            }
        };
        // keys are ascending under `cmp`: count those before the bound (start) or not after it
        let n = if is_start {
            self.keys.partition_point(|k| cmp(k) == Ordering::Less)
        } else {
            self.keys.partition_point(|k| cmp(k) != Ordering::Greater)
        };
        if is_start {
            (self.nn_lo + n) as i64
        } else {
            (self.nn_lo + n) as i64 - 1
        }
    }
}

fn feed(
    st: &mut crate::exec::aggregate::AggState,
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
    crate::exec::aggregate::update_state(st, a, v, ctx)
}

#[cfg(test)]
mod tests {
    use crate::session::session::test_support::{err, ok, rows, session};

    fn col(r: Vec<Vec<String>>, i: usize) -> Vec<String> {
        r.into_iter().map(|x| x[i].clone()).collect()
    }

    #[test]
    fn range_frames_with_value_offsets() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE w (id INT PRIMARY KEY, v INT, d DATE)");
        ok(
            &mut s,
            "INSERT INTO w VALUES (1, 1, '2024-01-01'), (2, 2, '2024-01-02'), (3, 2, '2024-01-05'), \
             (4, 5, '2024-01-06'), (5, NULL, NULL), (6, 8, '2024-02-01')",
        );
        // v-1 .. v: NULL keys are their own peers and outside every other range
        let r = rows(
            &mut s,
            "SELECT id, COUNT(*) OVER (ORDER BY v RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM w ORDER BY id",
        );
        assert_eq!(col(r, 1), ["1", "3", "3", "1", "1", "1"]);
        // descending: PRECEDING means larger keys
        let r = rows(
            &mut s,
            "SELECT id, COUNT(*) OVER (ORDER BY v DESC RANGE BETWEEN 3 PRECEDING AND 1 FOLLOWING) FROM w ORDER BY id",
        );
        assert_eq!(col(r, 1), ["3", "4", "4", "2", "1", "1"]);
        let r = rows(
            &mut s,
            "SELECT id, COUNT(*) OVER (ORDER BY v RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING), \
             COUNT(*) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING) FROM w ORDER BY id",
        );
        assert_eq!(col(r.clone(), 1), ["2", "1", "1", "1", "1", "0"]);
        assert_eq!(col(r, 2), ["1", "1", "1", "4", "1", "5"]);
        // INTERVAL offsets over dates
        let r = rows(
            &mut s,
            "SELECT id, COUNT(*) OVER (ORDER BY d RANGE BETWEEN INTERVAL 3 DAY PRECEDING AND CURRENT ROW) FROM w ORDER BY id",
        );
        assert_eq!(col(r, 1), ["1", "2", "2", "2", "1", "1"]);
    }

    #[test]
    fn frame_errors() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE w (v INT, c VARCHAR(3), d DATE)");
        let e = |s: &mut _, frame: &str| err(s, &format!("SELECT SUM(v) OVER ({frame}) FROM w"));
        assert_eq!(e(&mut s, "ORDER BY v, c RANGE 1 PRECEDING"), 3587);
        assert_eq!(e(&mut s, "RANGE 1 PRECEDING"), 3587);
        assert_eq!(e(&mut s, "ORDER BY c RANGE 1 PRECEDING"), 3587);
        assert_eq!(e(&mut s, "ORDER BY d RANGE 1 PRECEDING"), 3588);
        assert_eq!(e(&mut s, "ORDER BY v RANGE INTERVAL 1 DAY PRECEDING"), 3589);
        assert_eq!(e(&mut s, "ORDER BY v RANGE v PRECEDING"), 3590);
        assert_eq!(e(&mut s, "ORDER BY v ROWS INTERVAL 1 DAY PRECEDING"), 3596);
        assert_eq!(e(&mut s, "ORDER BY v ROWS 1.5 PRECEDING"), 3586);
        assert_eq!(
            e(
                &mut s,
                "ORDER BY v RANGE BETWEEN CURRENT ROW AND 1 PRECEDING"
            ),
            3586
        );
        assert_eq!(
            e(
                &mut s,
                "ORDER BY v ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW"
            ),
            3586
        );
        assert_eq!(e(&mut s, "ORDER BY v GROUPS 1 PRECEDING"), 1235);
        ok(&mut s, "INSERT INTO w VALUES (1, 'a', '2024-01-01')");
        assert_eq!(e(&mut s, "ORDER BY v RANGE NULL PRECEDING"), 3586);
    }
}
