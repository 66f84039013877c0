//! Joins of a block's FROM items, running a [`JoinPlan`]: a hash join reads its table once and
//! probes it by a hash on the equi-join keys; an index nested loop reads its table's key ranges
//! for each outer row; LEFT JOINs null-extend. Rows go down the steps depth first, each joined
//! row handed on as soon as it is complete ([`join_each`]). Nothing here chooses an
//! order, an index or a method: that is [`crate::plan::physical::plan_join`]'s.

use std::sync::atomic::Ordering as AtOrd;
use std::sync::Arc;

use common::{Error, Result, Value};
use storage::engine::KvEngine;

use crate::exec::fetch::{fetch, fetch_each, Scan};
use crate::ir::block::{Plan, Source};
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::plan::physical::{HashKey, JoinPlan, JoinStep, StepMethod};
use crate::session::session::Session;

/// Hashable key of one probe/build value; None for NULL (never equal).
pub(crate) fn push_key(v: &Value, coll: common::Collation, out: &mut Vec<u8>) -> bool {
    if v.is_null() {
        return false;
    }
    func::compare::hash_key(v, coll, out);
    out.push(0xFE);
    true
}

/// The build side of a hash join step: its rows and the hash of their keys.
struct Built {
    rows: Arc<Vec<Vec<Value>>>,
    table: Arc<foldhash::HashMap<Vec<u8>, Vec<usize>>>,
}

/// What [`join_each`] hands each joined row to; it returns whether to go on.
pub type JoinFn<'f> = dyn FnMut(&mut EvalCtx<'_>, Vec<Value>) -> Result<bool> + 'f;

/// Runs `plan` over `p`'s FROM items: the joined rows (block offsets).
pub(crate) fn run_join<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    plan: &JoinPlan,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    let mut mem = crate::runtime::limits::MemTracker::new();
    join_each(s, p, plan, ctx, &mut |_, r| {
        mem.add_row(&r)?;
        out.push(r);
        Ok(true)
    })?;
    Ok(out)
}

/// Runs `plan` over `p`'s FROM items, handing each joined row to `f` as it is made: the hash
/// steps' tables are read (once each) first, then every row of the first step goes down the
/// later steps depth first, so only the hash tables are held, not the join's result. The rows
/// come in the order a step-by-step join would give them.
pub(crate) fn join_each<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    plan: &JoinPlan,
    ctx: &mut EvalCtx<'_>,
    f: &mut JoinFn<'_>,
) -> Result<()> {
    let mut built = Vec::with_capacity(plan.steps.len());
    for step in &plan.steps {
        built.push(match &step.method {
            StepMethod::Hash { keys, .. } => Some(build(s, p, step, keys, ctx)?),
            StepMethod::Lookup { .. } => None,
        });
    }
    let mut j = Joiner {
        s,
        p,
        plan,
        built,
        planned: vec![true; plan.steps.len()],
        found: vec![(0, 0); plan.steps.len()],
        rows: 0,
        f,
    };
    j.descend(0, vec![Value::Null; p.scope.cols.len()], ctx)?;
    for ((step, planned), (rows, loops)) in plan.steps.iter().zip(&j.planned).zip(&j.found) {
        let jt = &p.from[step.item];
        if let (StepMethod::Lookup { read }, Source::Table(t)) = (&step.method, &jt.source) {
            crate::exec::trace::read(&jt.name, t, read, *planned, *rows, *loops);
        }
    }
    Ok(())
}

/// The state of a depth-first join.
struct Joiner<'a, 'f, E: KvEngine> {
    s: &'a mut Session<E>,
    p: &'a Plan,
    plan: &'a JoinPlan,
    built: Vec<Option<Built>>,
    /// Per step: every lookup used its key ranges.
    planned: Vec<bool>,
    /// Per lookup step: rows found and lookups made (EXPLAIN ANALYZE).
    found: Vec<(u64, u64)>,
    rows: u64,
    f: &'a mut JoinFn<'f>,
}

impl<E: KvEngine> Joiner<'_, '_, E> {
    /// Joins `row` (steps before `i` filled in) with step `i` and the ones after it; false
    /// once the consumer wants no more rows.
    fn descend(&mut self, i: usize, row: Vec<Value>, ctx: &mut EvalCtx<'_>) -> Result<bool> {
        self.rows += 1;
        if self.rows.is_multiple_of(256) && ctx.killed.load(AtOrd::Relaxed) {
            return Err(Error::interrupted());
        }
        let Some(step) = self.plan.steps.get(i) else {
            if !all_true(&self.plan.rest, &row, ctx)? {
                return Ok(true);
            }
            return (self.f)(ctx, row);
        };
        let jt = &self.p.from[step.item];
        let (lo, hi) = (jt.offset, jt.offset + jt.width);
        let mut matched = false;
        match &step.method {
            StepMethod::Hash { keys, .. } => {
                let Some(b) = &self.built[i] else {
                    return Err(Error::internal("hash step without its table"));
                };
                let (rows, table) = (b.rows.clone(), b.table.clone());
                let candidates: Vec<usize> = if keys.is_empty() {
                    (0..rows.len()).collect()
                } else {
                    match probe_key(keys, &row, ctx)? {
                        Some(k) => table.get(&k).cloned().unwrap_or_default(),
                        None => Vec::new(),
                    }
                };
                for ci in candidates {
                    let mut r = row.clone();
                    r[lo..hi].clone_from_slice(&rows[ci]);
                    if all_true(&step.conds, &r, ctx)? {
                        matched = true;
                        if !self.descend(i + 1, r, ctx)? {
                            return Ok(false);
                        }
                    }
                }
            }
            StepMethod::Lookup { read } => {
                let Source::Table(t) = &jt.source else {
                    return Err(Error::internal("keyed join step on a derived table"));
                };
                let mut found: Vec<Vec<Value>> = Vec::new();
                let planned = fetch_each(
                    self.s,
                    t,
                    read,
                    step.local.as_ref(),
                    &row,
                    ctx,
                    &Scan::locking(self.p.lock),
                    &mut |_, _, m| {
                        found.push(m);
                        Ok(true)
                    },
                )?;
                self.planned[i] &= planned;
                self.found[i].0 += found.len() as u64;
                self.found[i].1 += 1;
                for m in found {
                    let mut r = row.clone();
                    r[lo..hi].clone_from_slice(&m);
                    if all_true(&step.conds, &r, ctx)?
                        && (planned || all_true(&step.covered, &r, ctx)?)
                    {
                        matched = true;
                        if !self.descend(i + 1, r, ctx)? {
                            return Ok(false);
                        }
                    }
                }
            }
        }
        if !matched && jt.left {
            return self.descend(i + 1, row, ctx);
        }
        Ok(true)
    }
}

/// The hash key of an outer row for `keys`; None when a value is NULL (nothing matches).
fn probe_key(keys: &[HashKey], row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<Option<Vec<u8>>> {
    let mut k = Vec::new();
    for (_, e, coll) in keys {
        let v = e.eval(row, ctx)?;
        if !push_key(&v, *coll, &mut k) {
            return Ok(None);
        }
    }
    Ok(Some(k))
}

/// Reads a hash step's FROM item once, filtered by its local conditions, and hashes it.
fn build<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    step: &JoinStep,
    keys: &[HashKey],
    ctx: &mut EvalCtx<'_>,
) -> Result<Built> {
    let jt = &p.from[step.item];
    let rows: Vec<Vec<Value>> = match (&jt.source, step.read()) {
        (Source::Table(t), Some(read)) => {
            let scan = Scan::locking(p.lock);
            let (rows, planned) = fetch(s, t, read, step.local.as_ref(), ctx, &scan)?;
            crate::exec::trace::read(&jt.name, t, read, planned, rows.len() as u64, 1);
            rows.into_iter().map(|(_, r)| r).collect()
        }
        (Source::Table(_), None) => return Err(Error::internal("hash step without a read")),
        (other, _) => {
            let all = crate::exec::query::source_rows(s, other, ctx)?;
            match &step.local {
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
    let mut table: foldhash::HashMap<Vec<u8>, Vec<usize>> = Default::default();
    if !keys.is_empty() {
        'rows: for (ri, r) in rows.iter().enumerate() {
            let mut k = Vec::new();
            for (c, _, coll) in keys {
                if !push_key(&r[*c], *coll, &mut k) {
                    continue 'rows;
                }
            }
            table.entry(k).or_default().push(ri);
        }
    }
    Ok(Built {
        rows: Arc::new(rows),
        table: Arc::new(table),
    })
}

fn all_true(conds: &[Expr], r: &[Value], ctx: &mut EvalCtx<'_>) -> Result<bool> {
    for c in conds {
        if !c.eval_bool(r, ctx)? {
            return Ok(false);
        }
    }
    Ok(true)
}
