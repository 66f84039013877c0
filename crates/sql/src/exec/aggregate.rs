//! Aggregation: the per-group accumulators of aggregate functions and grouping of a block's rows
//! (GROUP BY, ROLLUP, implicit single group).

use std::cmp::Ordering;

use common::{codes, Error, Result, Value};
use storage::engine::KvEngine;

use crate::bind::select::grouping_value;
use crate::exec::sort::compare_sort_keys;
use crate::exec::sort::expr_collation;
use crate::exec::sorter::{SortKey, Sorter};
use crate::ir::block::Plan;
use crate::ir::expr::AggCall;
use crate::ir::expr::AggFunc;
use crate::ir::expr::EvalCtx;
use crate::session::session::Session;

/// Running state of one aggregate.
#[derive(Clone)]
pub(crate) enum AggState {
    Count(u64),
    Sum {
        dec: Option<common::Decimal>,
        /// Integer arguments are summed here (exactly; folded into `dec` on overflow), which
        /// is far cheaper than a decimal addition per row.
        int: Option<i128>,
        dbl: Option<f64>,
        any_double: bool,
    },
    Avg {
        dec: common::Decimal,
        dbl: f64,
        any_double: bool,
        n: u64,
        scale: u32,
    },
    MinMax(Option<Value>),
    Bit(u64),
    /// GROUP_CONCAT parts with their ORDER BY keys (empty without ORDER BY).
    Concat(Vec<(Vec<Value>, String)>),
    /// The variance family: count, mean and sum of squared deviations, updated by
    /// Welford's method (numerically stable in one pass, as MySQL's own `Item_sum_variance`).
    Moments {
        n: u64,
        mean: f64,
        m2: f64,
    },
}

pub(crate) fn new_state(a: &AggCall) -> AggState {
    match a.func {
        AggFunc::Count => AggState::Count(0),
        AggFunc::Sum => AggState::Sum {
            dec: None,
            int: None,
            dbl: None,
            any_double: false,
        },
        AggFunc::Avg => AggState::Avg {
            dec: common::Decimal::zero(),
            dbl: 0.0,
            any_double: false,
            n: 0,
            scale: 0,
        },
        AggFunc::Min | AggFunc::Max => AggState::MinMax(None),
        AggFunc::BitAnd => AggState::Bit(u64::MAX),
        AggFunc::BitOr | AggFunc::BitXor => AggState::Bit(0),
        AggFunc::GroupConcat => AggState::Concat(Vec::new()),
        AggFunc::StdPop | AggFunc::StdSamp | AggFunc::VarPop | AggFunc::VarSamp => {
            AggState::Moments {
                n: 0,
                mean: 0.0,
                m2: 0.0,
            }
        }
        // window-only functions keep no aggregate state
        _ => AggState::Count(0),
    }
}

pub(crate) fn is_double(v: &Value) -> bool {
    matches!(
        v,
        Value::Double(_) | Value::Float(_) | Value::Str(_) | Value::Bytes(_)
    )
}

pub(crate) fn sum_out_of_range() -> Error {
    Error::new(codes::ER_DATA_OUT_OF_RANGE, "DECIMAL value is out of range")
}

/// Moves SUM's integer partial sum into its decimal sum.
pub(crate) fn fold_int_sum(
    dec: &mut Option<common::Decimal>,
    int: &mut Option<i128>,
) -> Result<()> {
    if let Some(i) = int.take() {
        let cur = dec.take().unwrap_or_default();
        *dec = Some(
            cur.checked_add(&common::Decimal::from(i))
                .ok_or_else(sum_out_of_range)?,
        );
    }
    Ok(())
}

pub(crate) fn update_state(
    st: &mut AggState,
    a: &AggCall,
    v: Value,
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    if v.is_null() && a.arg.is_some() {
        return Ok(());
    }
    match st {
        AggState::Count(n) => *n += 1,
        AggState::Sum {
            dec,
            int,
            dbl,
            any_double,
        } => {
            let small = match v {
                Value::Int(i) if !*any_double => Some(i128::from(i)),
                Value::UInt(u) if !*any_double => Some(i128::from(u)),
                _ => None,
            };
            if let Some(x) = small {
                match int.unwrap_or(0).checked_add(x) {
                    Some(t) => *int = Some(t),
                    None => {
                        fold_int_sum(dec, int)?;
                        *int = Some(x);
                    }
                }
            } else if is_double(&v) || *any_double {
                if !*any_double {
                    fold_int_sum(dec, int)?;
                }
                *any_double = true;
                let x = func::convert::to_f64(&v, ctx.warnings).unwrap_or(0.0);
                *dbl = Some(
                    dbl.unwrap_or_else(|| dec.as_ref().map(|d| d.to_f64()).unwrap_or(0.0)) + x,
                );
            } else {
                let x = func::convert::to_decimal(&v, ctx.warnings).unwrap_or_default();
                let cur = dec.take().unwrap_or_default();
                *dec = Some(cur.checked_add(&x).ok_or_else(sum_out_of_range)?);
            }
        }
        AggState::Avg {
            dec,
            dbl,
            any_double,
            n,
            scale,
        } => {
            *n += 1;
            if is_double(&v) {
                *any_double = true;
            }
            *dbl += func::convert::to_f64(&v, ctx.warnings).unwrap_or(0.0);
            if !*any_double {
                let x = func::convert::to_decimal(&v, ctx.warnings).unwrap_or_default();
                *scale = (*scale).max(x.scale());
                if let Some(s) = dec.checked_add(&x) {
                    *dec = s;
                }
            }
        }
        AggState::MinMax(cur) => {
            let replace = match cur {
                None => true,
                Some(c) => {
                    let o = func::compare::compare(&v, c, a.coll).unwrap_or(Ordering::Equal);
                    if a.func == AggFunc::Min {
                        o == Ordering::Less
                    } else {
                        o == Ordering::Greater
                    }
                }
            };
            if replace {
                *cur = Some(v);
            }
        }
        AggState::Bit(b) => {
            let x = func::convert::to_u64(&v, ctx.warnings).unwrap_or(0);
            match a.func {
                AggFunc::BitAnd => *b &= x,
                AggFunc::BitOr => *b |= x,
                _ => *b ^= x,
            }
        }
        AggState::Concat(parts) => parts.push((
            Vec::new(),
            func::convert::to_string_value(&v).unwrap_or_default(),
        )),
        AggState::Moments { n, mean, m2 } => {
            let x = func::convert::to_f64(&v, ctx.warnings).unwrap_or(0.0);
            *n += 1;
            let d = x - *mean;
            *mean += d / *n as f64;
            *m2 += d * (x - *mean);
        }
    }
    Ok(())
}

pub(crate) fn finish_state(st: AggState, a: &AggCall) -> Value {
    match st {
        AggState::Count(n) => Value::Int(n as i64),
        AggState::Sum {
            mut dec,
            mut int,
            dbl,
            any_double,
        } => {
            if any_double {
                dbl.map(Value::Double).unwrap_or(Value::Null)
            } else {
                match fold_int_sum(&mut dec, &mut int) {
                    Ok(()) => dec.map(Value::Decimal).unwrap_or(Value::Null),
                    Err(_) => Value::Null,
                }
            }
        }
        AggState::Avg {
            dec,
            dbl,
            any_double,
            n,
            scale,
        } => {
            if n == 0 {
                Value::Null
            } else if any_double {
                Value::Double(dbl / n as f64)
            } else {
                // MySQL divides the exact sum by the count like `/` (word precision, shown
                // with the argument's scale + 4).
                let q = dec
                    .with_frac(scale)
                    .checked_div(&common::Decimal::from(n), 4)
                    .unwrap_or_default();
                Value::Decimal(q)
            }
        }
        AggState::MinMax(v) => v.unwrap_or(Value::Null),
        AggState::Bit(b) => Value::UInt(b),
        AggState::Moments { n, m2, .. } => {
            let sample = matches!(a.func, AggFunc::StdSamp | AggFunc::VarSamp);
            let den = if sample { n.saturating_sub(1) } else { n };
            if den == 0 {
                return Value::Null;
            }
            let var = (m2 / den as f64).max(0.0);
            if matches!(a.func, AggFunc::StdPop | AggFunc::StdSamp) {
                Value::Double(var.sqrt())
            } else {
                Value::Double(var)
            }
        }
        AggState::Concat(mut parts) => {
            if parts.is_empty() {
                Value::Null
            } else {
                if !a.order.is_empty() {
                    let desc: Vec<bool> = a.order.iter().map(|(_, d)| *d).collect();
                    parts.sort_by(|x, y| compare_sort_keys(&x.0, &y.0, &desc, a.coll));
                }
                let texts: Vec<String> = parts.into_iter().map(|(_, t)| t).collect();
                let mut s = texts.join(&a.separator);
                if s.len() > 1024 {
                    let mut end = 1024;
                    while !s.is_char_boundary(end) {
                        end -= 1;
                    }
                    s.truncate(end);
                }
                Value::Str(s)
            }
        }
    }
}

/// Groups `source` by the first `nkeys` GROUP BY expressions: per group, its key values and
/// its row (the group's first source row followed by the aggregate results).
pub(crate) fn group_rows<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    source: &[Vec<Value>],
    nkeys: usize,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<(Vec<Value>, Vec<Value>)>> {
    let mut g = Grouper::new(p, nkeys);
    let mut ev = |e: &crate::ir::expr::Expr, r: &[Value], ctx: &mut EvalCtx<'_>| {
        crate::exec::query::eval(s, e, r, ctx)
    };
    for row in source {
        g.push(&mut ev, row, ctx)?;
    }
    g.finish(ctx)
}

/// How [`Grouper`] evaluates an expression over a source row (with the session when the
/// block has correlated subqueries, plain [`crate::ir::expr::Expr::eval`] otherwise).
pub(crate) type EvalFn<'f> =
    dyn FnMut(&crate::ir::expr::Expr, &[Value], &mut EvalCtx<'_>) -> Result<Value> + 'f;

/// The hash key and values of `row`'s group under `p`'s first `nkeys` GROUP BY expressions.
pub(crate) fn group_key(
    p: &Plan,
    nkeys: usize,
    ev: &mut EvalFn<'_>,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<(Vec<u8>, Vec<Value>)> {
    let mut key = Vec::new();
    let mut keyvals = Vec::with_capacity(nkeys);
    for g in &p.group_by[..nkeys] {
        let v = ev(g, row, ctx)?;
        let coll = expr_collation(g, &p.scope, ctx.fnctx.collation);
        func::compare::hash_key(&v, coll, &mut key);
        key.push(0xFE);
        keyvals.push(v);
    }
    Ok((key, keyvals))
}

/// One group: key values, first source row, aggregate states, DISTINCT sets.
type Group = (
    Vec<Value>,
    Vec<Value>,
    Vec<AggState>,
    Vec<foldhash::HashSet<Vec<u8>>>,
);

/// Hash aggregation fed one source row at a time ([`Grouper::push`]), so a caller that
/// produces rows as it reads them holds the groups, not the rows.
pub(crate) struct Grouper<'p> {
    p: &'p Plan,
    nkeys: usize,
    groups: Vec<Group>,
    index: foldhash::HashMap<Vec<u8>, usize>,
    mem: crate::runtime::limits::MemTracker,
    /// Bytes the groups take (as counted for `max_session_mem_used`).
    pub bytes: usize,
    spill: Option<DistinctSpill<'p>>,
}

/// DISTINCT arguments past the in-memory table's size (MySQL's `Unique`): the value sets
/// already held stay as they are (no longer growing); a value not in its set goes to an
/// external sort on (group, aggregate, value) instead, and each distinct one reaches its
/// aggregate once when the groups finish. GROUP_CONCAT(DISTINCT) keeps its set in memory
/// (its ORDER BY keys are evaluated per row; `max_session_mem_used` guards it).
struct DistinctSpill<'p> {
    budget: usize,
    make: Box<dyn FnMut() -> Sorter<'p> + 'p>,
    sorter: Option<Sorter<'p>>,
}

impl<'p> Grouper<'p> {
    /// Grouping by the first `nkeys` GROUP BY expressions of `p`.
    pub(crate) fn new(p: &'p Plan, nkeys: usize) -> Grouper<'p> {
        Grouper {
            p,
            nkeys,
            groups: Vec::new(),
            index: Default::default(),
            mem: crate::runtime::limits::MemTracker::new(),
            bytes: 0,
            spill: None,
        }
    }

    /// Past `budget` bytes, DISTINCT values go to the sorters `make` gives (see
    /// [`DistinctSpill`]).
    pub(crate) fn spill_distinct(
        mut self,
        budget: usize,
        make: impl FnMut() -> Sorter<'p> + 'p,
    ) -> Grouper<'p> {
        self.spill = Some(DistinctSpill {
            budget,
            make: Box::new(make),
            sorter: None,
        });
        self
    }

    /// The hash key and values of `row`'s group.
    pub(crate) fn key_of(
        &self,
        ev: &mut EvalFn<'_>,
        row: &[Value],
        ctx: &mut EvalCtx<'_>,
    ) -> Result<(Vec<u8>, Vec<Value>)> {
        group_key(self.p, self.nkeys, ev, row, ctx)
    }

    /// True when `key` names a group already held.
    pub(crate) fn holds(&self, key: &[u8]) -> bool {
        (self.nkeys == 0 && !self.groups.is_empty()) || self.index.contains_key(key)
    }

    /// Adds one source row.
    pub(crate) fn push(
        &mut self,
        ev: &mut EvalFn<'_>,
        row: &[Value],
        ctx: &mut EvalCtx<'_>,
    ) -> Result<()> {
        let (key, keyvals) = self.key_of(ev, row, ctx)?;
        self.push_keyed(ev, key, keyvals, row, ctx)
    }

    /// Adds one source row whose group key [`Grouper::key_of`] gave.
    pub(crate) fn push_keyed(
        &mut self,
        ev: &mut EvalFn<'_>,
        key: Vec<u8>,
        keyvals: Vec<Value>,
        row: &[Value],
        ctx: &mut EvalCtx<'_>,
    ) -> Result<()> {
        let p = self.p;
        // Without GROUP BY every row joins the one group: no lookup of the empty key. (An
        // empty Vec's pointer is dangling; glibc's AVX-512 memcmp still issues a masked load
        // through it, and on this kind of CPU the suppressed fault costs a microcode assist:
        // measured at a fifth of the server's CPU for sysbench's SUM ranges.)
        let found = if self.nkeys == 0 && !self.groups.is_empty() {
            Some(&0)
        } else {
            self.index.get(&key)
        };
        let gi = match found {
            Some(i) => *i,
            None => {
                let n = key.len() + 64 + crate::runtime::limits::row_size(row) + p.aggs.len() * 64;
                self.mem.add_bytes(n)?;
                self.bytes += n;
                self.groups.push((
                    keyvals,
                    row.to_vec(),
                    p.aggs.iter().map(new_state).collect(),
                    vec![Default::default(); p.aggs.len()],
                ));
                self.index.insert(key, self.groups.len() - 1);
                self.groups.len() - 1
            }
        };
        let g = &mut self.groups[gi];
        for (ai, a) in p.aggs.iter().enumerate() {
            if a.window.is_some() || a.func == AggFunc::Grouping {
                continue;
            }
            let v = match &a.arg {
                Some(e) => ev(e, row, ctx)?,
                None => Value::Int(1),
            };
            if a.distinct && !v.is_null() {
                let mut k = Vec::new();
                func::compare::hash_key(&v, a.coll, &mut k);
                if g.3[ai].contains(&k) {
                    continue;
                }
                let spill = self.spill.as_mut().filter(|sp| {
                    a.func != AggFunc::GroupConcat
                        && (sp.sorter.is_some() || self.bytes + k.len() + 48 > sp.budget)
                });
                if let Some(sp) = spill {
                    let sorter = sp.sorter.get_or_insert_with(|| (sp.make)());
                    let at = |i: usize| SortKey::Val(Value::UInt(i as u64));
                    sorter.push(vec![at(gi), at(ai), SortKey::Weight(k)], vec![v])?;
                    continue;
                }
                self.mem.add_bytes(k.len() + 48)?;
                self.bytes += k.len() + 48;
                g.3[ai].insert(k);
            }
            let keyed = !a.order.is_empty() && !v.is_null();
            update_state(&mut g.2[ai], a, v, ctx)?;
            if keyed {
                let mut keys = Vec::with_capacity(a.order.len());
                for (e, _) in &a.order {
                    keys.push(ev(e, row, ctx)?);
                }
                if let AggState::Concat(parts) = &mut g.2[ai] {
                    if let Some(last) = parts.last_mut() {
                        last.0 = keys;
                    }
                }
            }
        }
        Ok(())
    }

    /// The groups: key values and row (first source row, then the aggregate results), in the
    /// order they were first seen. Without GROUP BY and without rows: the one row of an
    /// aggregate over nothing.
    ///
    /// # Errors
    /// A spilled DISTINCT's sort failing (1026, 1317), an aggregate's overflow.
    pub(crate) fn finish(self, ctx: &mut EvalCtx<'_>) -> Result<Vec<(Vec<Value>, Vec<Value>)>> {
        let p = self.p;
        let mut groups = self.groups;
        if let Some(sorter) = self.spill.and_then(|sp| sp.sorter) {
            feed_spilled_distinct(p, &mut groups, sorter, ctx)?;
        }
        if groups.is_empty() && p.group_by.is_empty() {
            // aggregate over no rows: one row of NULL columns + initial aggregates
            let ncols = p.scope.cols.len();
            groups.push((
                vec![],
                vec![Value::Null; ncols],
                p.aggs.iter().map(new_state).collect(),
                vec![],
            ));
        }
        let mut out = Vec::with_capacity(groups.len());
        for (keyvals, mut first, states, _) in groups {
            for (st, a) in states.into_iter().zip(&p.aggs) {
                first.push(if a.window.is_some() {
                    Value::Null
                } else if a.func == AggFunc::Grouping {
                    grouping_value(a, self.nkeys)
                } else {
                    finish_state(st, a)
                });
            }
            out.push((keyvals, first));
        }
        Ok(out)
    }
}

/// Feeds each distinct (group, aggregate, value) of a spilled DISTINCT's sort to its
/// aggregate once: equal records are adjacent.
fn feed_spilled_distinct(
    p: &Plan,
    groups: &mut [Group],
    sorter: Sorter<'_>,
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    let mut sorted = sorter.finish()?;
    let mut last: Option<Vec<SortKey>> = None;
    while let Some((keys, mut row)) = sorted.next_keyed()? {
        if last.as_ref().is_some_and(|l| same_keys(l, &keys)) {
            continue;
        }
        let (Some(SortKey::Val(Value::UInt(gi))), Some(SortKey::Val(Value::UInt(ai)))) =
            (keys.first(), keys.get(1))
        else {
            return Err(Error::internal("spilled DISTINCT record without its place"));
        };
        let (gi, ai) = (*gi as usize, *ai as usize);
        let v = row.pop().unwrap_or(Value::Null);
        update_state(&mut groups[gi].2[ai], &p.aggs[ai], v, ctx)?;
        last = Some(keys);
    }
    Ok(())
}

/// Equal (group, aggregate, value weight) records.
fn same_keys(a: &[SortKey], b: &[SortKey]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (SortKey::Weight(x), SortKey::Weight(y)) => x == y,
            (SortKey::Val(Value::UInt(x)), SortKey::Val(Value::UInt(y))) => x == y,
            _ => false,
        })
}
