//! Joins of a block's FROM items, running a [`JoinPlan`] step by step: a hash join reads its
//! table once and probes it by a hash on the equi-join keys; an index nested loop reads its
//! table's key ranges for each outer row; LEFT JOINs null-extend. Nothing here chooses an
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
    table: foldhash::HashMap<Vec<u8>, Vec<usize>>,
}

/// Runs `plan` over `p`'s FROM items: the joined rows (block offsets).
pub(crate) fn run_join<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    plan: &JoinPlan,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let width = p.scope.cols.len();
    let mut rows: Vec<Vec<Value>> = vec![vec![Value::Null; width]];
    for step in &plan.steps {
        rows = match &step.method {
            StepMethod::Hash { keys, .. } => {
                let built = build(s, p, step, keys, ctx)?;
                hash_step(p, step, keys, &built, rows, ctx)?
            }
            StepMethod::Lookup { .. } => lookup_step(s, p, step, rows, ctx)?,
        };
    }
    if plan.rest.is_empty() {
        return Ok(rows);
    }
    let mut out = Vec::with_capacity(rows.len());
    'outer: for r in rows {
        for c in &plan.rest {
            if !c.eval_bool(&r, ctx)? {
                continue 'outer;
            }
        }
        out.push(r);
    }
    Ok(out)
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
            crate::exec::trace::read(&jt.name, t, read, planned);
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
        table,
    })
}

/// Joins each outer row to the build rows whose keys equal its own (all of them without
/// keys), checking the step's conditions on the joined row.
fn hash_step(
    p: &Plan,
    step: &JoinStep,
    keys: &[HashKey],
    built: &Built,
    rows: Vec<Vec<Value>>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let jt = &p.from[step.item];
    let (lo, hi) = (jt.offset, jt.offset + jt.width);
    let mut next = Vec::new();
    let mut mem = crate::runtime::limits::MemTracker::new();
    for (ri, row) in rows.into_iter().enumerate() {
        if ri % 256 == 0 && ctx.killed.load(AtOrd::Relaxed) {
            return Err(Error::interrupted());
        }
        let mut matched = false;
        let candidates: Box<dyn Iterator<Item = usize>> = if keys.is_empty() {
            Box::new(0..built.rows.len())
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
            match built.table.get(&k) {
                Some(list) if ok => Box::new(list.clone().into_iter()),
                _ => Box::new(std::iter::empty()),
            }
        };
        for ci in candidates {
            let mut r = row.clone();
            r[lo..hi].clone_from_slice(&built.rows[ci]);
            if all_true(&step.conds, &r, ctx)? {
                mem.add_row(&r)?;
                next.push(r);
                matched = true;
            }
        }
        if !matched && jt.left {
            next.push(row);
        }
    }
    Ok(next)
}

/// Index nested loop: for each outer row, the step's table read through the key ranges the
/// row's values give, each match checked with the step's conditions on the joined row.
fn lookup_step<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    step: &JoinStep,
    rows: Vec<Vec<Value>>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let jt = &p.from[step.item];
    let (Source::Table(t), Some(read)) = (&jt.source, step.read()) else {
        return Err(Error::internal("keyed join step on a derived table"));
    };
    let (lo, hi) = (jt.offset, jt.offset + jt.width);
    let scan = Scan::locking(p.lock);
    let mut next = Vec::new();
    let mut mem = crate::runtime::limits::MemTracker::new();
    let mut all_planned = true;
    let mut found: Vec<Vec<Value>> = Vec::new();
    for (ri, row) in rows.into_iter().enumerate() {
        if ri % 256 == 0 && ctx.killed.load(AtOrd::Relaxed) {
            return Err(Error::interrupted());
        }
        found.clear();
        let planned = fetch_each(
            s,
            t,
            read,
            step.local.as_ref(),
            &row,
            ctx,
            &scan,
            &mut |_, _, m| {
                found.push(m);
                Ok(true)
            },
        )?;
        all_planned &= planned;
        let mut matched = false;
        for m in found.drain(..) {
            let mut r = row.clone();
            r[lo..hi].clone_from_slice(&m);
            if all_true(&step.conds, &r, ctx)? && (planned || all_true(&step.covered, &r, ctx)?) {
                mem.add_row(&r)?;
                next.push(r);
                matched = true;
            }
        }
        if !matched && jt.left {
            next.push(row);
        }
    }
    crate::exec::trace::read(&jt.name, t, read, all_planned);
    Ok(next)
}

fn all_true(conds: &[Expr], r: &[Value], ctx: &mut EvalCtx<'_>) -> Result<bool> {
    for c in conds {
        if !c.eval_bool(r, ctx)? {
            return Ok(false);
        }
    }
    Ok(true)
}
