//! Window functions: `f(...) OVER (PARTITION BY .. ORDER BY .. [ROWS|RANGE frame])`.
//!
//! A window call is bound like an aggregate (an [`AggCall`] with `window` set) so it occupies a
//! slot of the block's row after grouping; this pass fills those slots. Rows are sorted by
//! (partition, order) per call, and each partition is walked once, a row at a time, by a
//! `Walk`: ranking functions from the position and peer groups, LAG/LEAD by offset,
//! aggregates and FIRST/LAST/NTH_VALUE over the frame (incrementally when the frame starts at
//! the partition's first row). The walk reads the partition's other rows through a
//! `PartitionView` and says which it will not read again, so a partition need not be in
//! memory: [`compute`] (the collected path) views a slice, the streamed path
//! ([`crate::exec::window_stream`]) a partition read back from a temporary file.

use std::cmp::Ordering;

use common::{Collation, Error, Result, Value};
use storage::engine::KvEngine;

use crate::exec::aggregate::{finish_state, new_state, update_state, AggState, EvalFn};
use crate::exec::sort::compare_sort_keys;
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

/// What a walk reads of a row of the partition besides the current one: its ORDER BY values
/// and the call's argument.
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// The window's ORDER BY values.
    pub(crate) okey: Vec<Value>,
    /// The function's argument (1 for COUNT(*) and the functions without one).
    pub(crate) arg: Value,
}

/// The partition key of `row` under window `w` (the PARTITION BY values' hash keys: equal
/// keys, one partition) and its [`Entry`] for call `a`.
pub(crate) fn entry_of(
    a: &AggCall,
    w: &WindowDef,
    ev: &mut EvalFn<'_>,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<(Vec<u8>, Entry)> {
    let coll = ctx.fnctx.collation;
    let mut key = Vec::new();
    for e in &w.partition {
        func::compare::hash_key(&ev(e, row, ctx)?, coll, &mut key);
        key.push(0xFE);
    }
    let mut okey = Vec::with_capacity(w.order.len());
    for (e, _) in &w.order {
        okey.push(ev(e, row, ctx)?);
    }
    let arg = arg_of(a, ev, row, ctx)?;
    Ok((key, Entry { okey, arg }))
}

/// The argument of call `a` for `row` (1 for COUNT(*) and the functions without one).
pub(crate) fn arg_of(
    a: &AggCall,
    ev: &mut EvalFn<'_>,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Value> {
    match &a.arg {
        Some(e) => ev(e, row, ctx),
        None => Ok(Value::Int(1)),
    }
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
    let mut ev =
        |e: &Expr, r: &[Value], ctx: &mut EvalCtx<'_>| crate::exec::query::eval(s, e, r, ctx);
    // per-row partition key and entry
    let mut pkeys = Vec::with_capacity(n);
    let mut entries = Vec::with_capacity(n);
    for r in rows {
        let (k, e) = entry_of(a, w, &mut ev, r, ctx)?;
        pkeys.push(k);
        entries.push(e);
    }
    let desc: Vec<bool> = w.order.iter().map(|(_, d)| *d).collect();
    let mut idx: Vec<usize> = (0..n).collect();
    // stable: rows keep their relative order within equal keys
    idx.sort_by(|&x, &y| {
        pkeys[x]
            .cmp(&pkeys[y])
            .then_with(|| compare_sort_keys(&entries[x].okey, &entries[y].okey, &desc, coll))
    });
    let mut out = vec![Value::Null; n];
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && pkeys[idx[end]] == pkeys[idx[start]] {
            end += 1;
        }
        let part = &idx[start..end];
        let mut view = Slice::new(&entries, Some(part));
        let mut walk = Walk::new(a, w, part.len(), ctx)?;
        for (pos, &r) in part.iter().enumerate() {
            out[r] = walk.row(pos, &entries[r], &rows[r], &mut view, &mut ev, ctx)?;
        }
        start = end;
    }
    Ok(out)
}

/// The rows of one partition, by position, as a [`Walk`] reads them. A walk reads positions in
/// an order that only moves forward once it [`release`](PartitionView::release)s them, so a
/// view may hold only the rows between the lowest position still wanted and the highest read.
pub(crate) trait PartitionView {
    /// The entry at position `i`, which is not before the last release.
    ///
    /// # Errors
    /// A temporary-file error (1026), or an internal error for a position already released.
    fn at(&mut self, i: usize) -> Result<&Entry>;
    /// The partition's first entry (kept whatever is released).
    fn first(&self) -> &Entry;
    /// The partition's last entry (kept whatever is released).
    fn last(&self) -> &Entry;
    /// Positions before `floor` will not be read again.
    fn release(&mut self, floor: usize);
}

/// A partition held in memory: `entries` at the positions `part` lists (all of them, in
/// order, without it).
pub(crate) struct Slice<'a> {
    entries: &'a [Entry],
    part: Option<&'a [usize]>,
}

impl<'a> Slice<'a> {
    /// The view of `entries` (in partition order when `part` is None).
    pub(crate) fn new(entries: &'a [Entry], part: Option<&'a [usize]>) -> Slice<'a> {
        Slice { entries, part }
    }

    fn get(&self, i: usize) -> &'a Entry {
        match self.part {
            Some(p) => &self.entries[p[i]],
            None => &self.entries[i],
        }
    }
}

impl PartitionView for Slice<'_> {
    fn at(&mut self, i: usize) -> Result<&Entry> {
        Ok(self.get(i))
    }
    fn first(&self) -> &Entry {
        self.get(0)
    }
    fn last(&self) -> &Entry {
        self.get(self.part.map_or(self.entries.len(), |p| p.len()) - 1)
    }
    fn release(&mut self, _floor: usize) {}
}

/// Where a frame bound lies for the current row, found by a pointer that only moves forward.
enum Reach<'k> {
    /// Up to a position.
    Pos(i64),
    /// Up to the last row whose ORDER BY values are not after these.
    Key(&'k [Value]),
}

/// One window call's walk over one partition of `m` rows, a row at a time in partition order
/// ([`Walk::row`]). Peer groups, frame ends and RANGE frame starts are found by pointers that
/// move forward through the view (frame bounds only move forward as the current row does), so
/// the rows the walk holds are those of the frame, not of the partition, with one exception: an
/// aggregate over a frame that starts after the partition's first row and ends at UNBOUNDED
/// FOLLOWING reads the whole rest of the partition for every row (it is not kept incrementally:
/// MIN/MAX and the floating-point sums could not be unwound), so the view holds it.
pub(crate) struct Walk<'w> {
    a: &'w AggCall,
    w: &'w WindowDef,
    m: usize,
    desc: Vec<bool>,
    coll: Collation,
    /// ROWS (else RANGE), start and end, the default frame filled in.
    frame: (bool, FrameBound, FrameBound),
    /// The start and end offsets of a RANGE frame with value offsets, evaluated.
    offs: [Option<(Value, Option<func::arith::IntervalUnit>)>; 2],
    /// First position of the current row's peer group, its ORDER BY values, and the dense
    /// rank of the group.
    group: usize,
    group_key: Vec<Value>,
    dense: i64,
    /// No position before this is in a RANGE frame's start.
    lo_ptr: usize,
    /// Positions before this are at or before the frame's end (or the peer group's).
    end: usize,
    /// The running aggregate when the frame starts at the partition's first row: fed the
    /// rows before `end`.
    running: Option<(AggState, std::collections::HashSet<Vec<u8>>)>,
    /// NTILE's bucket count or NTH_VALUE's n (evaluated on the first row).
    n: i64,
    /// NTH_VALUE's value once read, when the frame starts at the partition's first row.
    pinned: Option<Value>,
}

/// True when a walk of a call of `f` reads rows of the partition other than the current one
/// (the ranking functions and NTILE need only positions and peer groups).
pub(crate) fn reads_others(f: AggFunc) -> bool {
    !matches!(
        f,
        AggFunc::RowNumber
            | AggFunc::Rank
            | AggFunc::DenseRank
            | AggFunc::PercentRank
            | AggFunc::Ntile
    )
}

/// True for the functions computed over a frame (aggregates, FIRST/LAST/NTH_VALUE).
fn is_framed(f: AggFunc) -> bool {
    reads_others(f) && !matches!(f, AggFunc::CumeDist | AggFunc::Lag | AggFunc::Lead)
}

impl<'w> Walk<'w> {
    /// A walk of call `a` (window `w`) over a partition of `m` rows (at least one).
    ///
    /// # Errors
    /// 3586 for a RANGE offset that is negative or NULL.
    pub(crate) fn new(
        a: &'w AggCall,
        w: &'w WindowDef,
        m: usize,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<Walk<'w>> {
        let frame = match w.frame {
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
        let offs = if is_framed(a.func) {
            range_offsets(w, ctx)?
        } else {
            [None, None]
        };
        let running = (is_framed(a.func)
            && !matches!(
                a.func,
                AggFunc::FirstValue | AggFunc::LastValue | AggFunc::NthValue
            )
            && frame.1 == FrameBound::UnboundedPreceding)
            .then(|| (new_state(a), Default::default()));
        Ok(Walk {
            a,
            w,
            m,
            desc: w.order.iter().map(|(_, d)| *d).collect(),
            coll: ctx.fnctx.collation,
            frame,
            offs,
            group: 0,
            group_key: Vec::new(),
            dense: 0,
            lo_ptr: 0,
            end: 0,
            running,
            n: 1,
            pinned: None,
        })
    }

    /// The value of the call for the row at `pos` (`cur` its entry, `row` its values), the
    /// rows being passed in order from position 0. The other rows are read through `view`,
    /// which is told afterwards which positions are no longer wanted.
    ///
    /// # Errors
    /// 1210 for NTILE's bucket count below 1; evaluation and temporary-file errors.
    pub(crate) fn row(
        &mut self,
        pos: usize,
        cur: &Entry,
        row: &[Value],
        view: &mut dyn PartitionView,
        ev: &mut EvalFn<'_>,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<Value> {
        let m = self.m;
        if pos == 0
            || compare_sort_keys(&cur.okey, &self.group_key, &self.desc, self.coll)
                != Ordering::Equal
        {
            self.group = pos;
            self.group_key.clone_from(&cur.okey);
            self.dense += 1;
        }
        let v = match self.a.func {
            AggFunc::RowNumber => Value::Int(pos as i64 + 1),
            AggFunc::Rank => Value::Int(self.group as i64 + 1),
            AggFunc::DenseRank => Value::Int(self.dense),
            AggFunc::PercentRank => Value::Double(if m <= 1 {
                0.0
            } else {
                self.group as f64 / (m - 1) as f64
            }),
            AggFunc::CumeDist => {
                // the end of the peer group: the rows not after this one
                self.reach(Reach::Key(&cur.okey), 0, view, ctx)?;
                Value::Double(self.end as f64 / m as f64)
            }
            AggFunc::Ntile => {
                if pos == 0 {
                    self.n = int_arg(ev, self.w.extra.first(), row, 1, ctx)?;
                    if self.n <= 0 {
                        return Err(Error::new(
                            common::codes::ER_WRONG_ARGUMENTS,
                            "Incorrect arguments to ntile",
                        ));
                    }
                }
                // the first m % k buckets hold one row more than the others
                let k = self.n as usize;
                let (q, rem) = (m / k, m % k);
                let big = rem * (q + 1);
                let bucket = if pos < big {
                    pos / (q + 1)
                } else {
                    rem + (pos - big) / q
                };
                Value::Int(bucket as i64 + 1)
            }
            AggFunc::Lag | AggFunc::Lead => {
                let off = int_arg(ev, self.w.extra.first(), row, 1, ctx)?;
                let target = if self.a.func == AggFunc::Lag {
                    pos as i64 - off
                } else {
                    pos as i64 + off
                };
                let v = if target >= 0 && (target as usize) < m {
                    view.at(target as usize)?.arg.clone()
                } else {
                    match self.w.extra.get(1) {
                        Some(d) => ev(d, row, ctx)?,
                        None => Value::Null,
                    }
                };
                // the next row's target is one further (the streamed path takes constant
                // offsets only; the collected path's view keeps every row)
                view.release((target + 1).clamp(0, m as i64) as usize);
                return Ok(v);
            }
            _ => return self.framed(pos, cur, row, view, ev, ctx),
        };
        let floor = if self.a.func == AggFunc::CumeDist {
            self.end
        } else {
            m
        };
        view.release(floor);
        Ok(v)
    }

    /// An aggregate or FIRST/LAST/NTH_VALUE over the current row's frame.
    fn framed(
        &mut self,
        pos: usize,
        cur: &Entry,
        row: &[Value],
        view: &mut dyn PartitionView,
        ev: &mut EvalFn<'_>,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<Value> {
        let (rows_unit, fs, fe) = self.frame;
        let (a, m, p) = (self.a, self.m as i64, pos as i64);
        if pos == 0 && a.func == AggFunc::NthValue {
            self.n = int_arg(ev, self.w.extra.first(), row, 1, ctx)?;
        }
        let ranged = self.offs.iter().any(|o| o.is_some());
        // the frame start, and the lowest start a later row can have
        let (lo, lo_floor) = match fs {
            FrameBound::UnboundedPreceding => (0, 0),
            FrameBound::CurrentRow if rows_unit => (p, p),
            FrameBound::CurrentRow => (self.group as i64, self.group as i64),
            FrameBound::Preceding(k) => (p.saturating_sub(rows(k)), p.saturating_sub(rows(k))),
            FrameBound::Following(k) => (p.saturating_add(rows(k)), p.saturating_add(rows(k))),
            FrameBound::RangePreceding | FrameBound::RangeFollowing if ranged => {
                let lo = match self.range_target(0, fs, cur, ctx)? {
                    None => i64::MAX / 2,
                    Some(t) => {
                        while self.lo_ptr < self.m
                            && compare_sort_keys(
                                &view.at(self.lo_ptr)?.okey,
                                &t,
                                &self.desc,
                                self.coll,
                            ) == Ordering::Less
                        {
                            self.lo_ptr += 1;
                        }
                        self.lo_ptr as i64
                    }
                };
                (lo, self.lo_ptr as i64)
            }
            FrameBound::RangePreceding | FrameBound::RangeFollowing => (p, p),
            FrameBound::UnboundedFollowing => (m - 1, m - 1),
        };
        let lo = lo.max(0);
        let lo_floor = lo_floor.clamp(0, m) as usize;
        // the frame end: the end pointer moves past it (feeding the running aggregate)
        let overflow = match fe {
            FrameBound::CurrentRow if !rows_unit => {
                self.reach(Reach::Key(&cur.okey), lo_floor, view, ctx)?;
                false
            }
            FrameBound::RangePreceding | FrameBound::RangeFollowing if ranged => {
                match self.range_target(1, fe, cur, ctx)? {
                    None => true,
                    Some(t) => {
                        self.reach(Reach::Key(&t), lo_floor, view, ctx)?;
                        false
                    }
                }
            }
            _ => {
                let hi = match fe {
                    FrameBound::UnboundedPreceding => 0,
                    FrameBound::UnboundedFollowing => m - 1,
                    FrameBound::Preceding(k) => p.saturating_sub(rows(k)),
                    FrameBound::Following(k) => p.saturating_add(rows(k)),
                    _ => p,
                };
                self.reach(Reach::Pos(hi), lo_floor, view, ctx)?;
                false
            }
        };
        // the bound value overflowed: nothing lies before it
        let hi = if overflow { -1 } else { self.end as i64 - 1 };
        let v = if lo > hi {
            empty_value(a)
        } else {
            match a.func {
                AggFunc::FirstValue if fs == FrameBound::UnboundedPreceding => {
                    view.first().arg.clone()
                }
                AggFunc::FirstValue => view.at(lo as usize)?.arg.clone(),
                AggFunc::LastValue if fe == FrameBound::UnboundedFollowing => {
                    view.last().arg.clone()
                }
                AggFunc::LastValue => view.at(hi as usize)?.arg.clone(),
                AggFunc::NthValue => self.nth(lo, hi, view)?,
                _ => match &self.running {
                    Some((st, _)) => finish_state(st.clone(), a),
                    None => {
                        let mut st = new_state(a);
                        let mut seen = Default::default();
                        for t in lo..=hi {
                            let v = view.at(t as usize)?.arg.clone();
                            feed(&mut st, &mut seen, a, v, ctx)?;
                        }
                        finish_state(st, a)
                    }
                },
            }
        };
        view.release(self.floor(lo_floor, hi));
        Ok(v)
    }

    /// NTH_VALUE over the frame `lo..=hi` (not empty): read once and kept when the frame
    /// starts at the partition's first row.
    fn nth(&mut self, lo: i64, hi: i64, view: &mut dyn PartitionView) -> Result<Value> {
        if self.n < 1 || lo.saturating_add(self.n - 1) > hi {
            return Ok(Value::Null);
        }
        let t = (lo + self.n - 1) as usize;
        if self.frame.1 != FrameBound::UnboundedPreceding {
            return Ok(view.at(t)?.arg.clone());
        }
        if self.pinned.is_none() {
            self.pinned = Some(view.at(t)?.arg.clone());
        }
        Ok(self.pinned.clone().unwrap_or(Value::Null))
    }

    /// The lowest position a later row of a framed call can read, with `lo_floor` the lowest
    /// frame start and `hi` the current frame end.
    fn floor(&self, lo_floor: usize, hi: i64) -> usize {
        let (_, fs, fe) = self.frame;
        let ranged = self.offs.iter().any(|o| o.is_some());
        let keyed_end = !self.frame.0
            && (fe == FrameBound::CurrentRow
                || ranged && matches!(fe, FrameBound::RangePreceding | FrameBound::RangeFollowing));
        // the pointers read on from where they are
        let mut f = if keyed_end { self.end } else { self.m };
        if ranged && matches!(fs, FrameBound::RangePreceding | FrameBound::RangeFollowing) {
            f = f.min(self.lo_ptr);
        }
        let from_start = fs == FrameBound::UnboundedPreceding;
        let need = match self.a.func {
            AggFunc::FirstValue | AggFunc::NthValue if !from_start => lo_floor,
            AggFunc::FirstValue => self.m,
            AggFunc::NthValue if self.pinned.is_none() => {
                (self.n - 1).clamp(0, self.m as i64) as usize
            }
            AggFunc::NthValue => self.m,
            AggFunc::LastValue if fe == FrameBound::UnboundedFollowing => self.m,
            AggFunc::LastValue => hi.clamp(0, self.m as i64) as usize,
            _ if self.running.is_some() => self.end,
            _ => lo_floor,
        };
        f.min(need)
    }

    /// Moves the end pointer past the rows up to `to` (never back), feeding each to the running
    /// aggregate and releasing what is behind (`lo_floor`: the lowest frame start still read).
    fn reach(
        &mut self,
        to: Reach<'_>,
        lo_floor: usize,
        view: &mut dyn PartitionView,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<()> {
        if let (Reach::Pos(hi), None) = (&to, &self.running) {
            // nothing to read on the way
            self.end = self.end.max((hi + 1).clamp(0, self.m as i64) as usize);
            return Ok(());
        }
        while self.end < self.m {
            let e = view.at(self.end)?;
            let inside = match &to {
                Reach::Pos(hi) => (self.end as i64) <= *hi,
                Reach::Key(k) => {
                    compare_sort_keys(&e.okey, k, &self.desc, self.coll) != Ordering::Greater
                }
            };
            if !inside {
                break;
            }
            if let Some((st, seen)) = &mut self.running {
                let v = e.arg.clone();
                feed(st, seen, self.a, v, ctx)?;
            }
            self.end += 1;
            let floor = if is_framed(self.a.func) {
                self.floor(lo_floor, self.end as i64 - 1)
            } else {
                self.end
            };
            view.release(floor);
        }
        Ok(())
    }

    /// The ORDER BY values a RANGE bound with a value offset reaches for the current row (bound
    /// `i`: 0 start, 1 end): the key `offset` away, or the row's own (its NULL peers) when the
    /// key is NULL. None when the value overflowed (nothing lies beyond it).
    fn range_target(
        &self,
        i: usize,
        b: FrameBound,
        cur: &Entry,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<Option<Vec<Value>>> {
        let v = cur.okey.first().cloned().unwrap_or(Value::Null);
        let (Some((off, unit)), false) = (&self.offs[i], v.is_null()) else {
            return Ok(Some(cur.okey.clone()));
        };
        // toward smaller keys: PRECEDING ascending, FOLLOWING descending
        let desc = self.desc.first().copied().unwrap_or(false);
        let sub = (b == FrameBound::RangePreceding) != desc;
        let e = match unit {
            Some(u) => Expr::DateAdd(
                Box::new(Expr::Lit(v)),
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
                Box::new(Expr::Lit(v)),
                Box::new(Expr::Lit(off.clone())),
                String::new(),
            ),
        };
        let t = e.eval(&[], ctx)?;
        Ok((!t.is_null()).then(|| vec![t]))
    }
}

/// A ROWS offset as a position difference.
fn rows(k: u64) -> i64 {
    i64::try_from(k).unwrap_or(i64::MAX)
}

/// The value of a framed call over an empty frame.
fn empty_value(a: &AggCall) -> Value {
    match a.func {
        AggFunc::FirstValue | AggFunc::LastValue | AggFunc::NthValue => Value::Null,
        _ => finish_state(new_state(a), a),
    }
}

/// The offsets of a RANGE frame with value offsets (one numeric or temporal ORDER BY key):
/// constant, not NULL, not negative. None for other frames and bounds.
#[allow(clippy::type_complexity)]
fn range_offsets(
    w: &WindowDef,
    ctx: &mut EvalCtx<'_>,
) -> Result<[Option<(Value, Option<func::arith::IntervalUnit>)>; 2]> {
    let mut offs = [None, None];
    if !matches!(w.frame, Some((false, _, _))) {
        return Ok(offs);
    }
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
    Ok(offs)
}

fn int_arg(
    ev: &mut EvalFn<'_>,
    e: Option<&Expr>,
    row: &[Value],
    default: i64,
    ctx: &mut EvalCtx<'_>,
) -> Result<i64> {
    match e {
        None => Ok(default),
        Some(e) => {
            let v = ev(e, row, ctx)?;
            Ok(func::convert::to_i64(&v, ctx.warnings).unwrap_or(default))
        }
    }
}

fn feed(
    st: &mut AggState,
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
    update_state(st, a, v, ctx)
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
