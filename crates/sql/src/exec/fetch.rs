//! Reading one table: the access path chosen for it ([`crate::plan::access`]), row locking, and
//! the rows it yields.

use std::sync::atomic::Ordering as AtOrd;
use std::sync::Arc;

use common::{Error, Result, Value};
use storage::catalog::TableDef;
use storage::engine::KvEngine;
use storage::txn::{IndexRange, LockMode};
use storage::Handle;

use crate::exec::select::and_all;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::session::session::Session;

/// How [`fetch`] reads a table.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Row locking.
    pub lock: LockMode,
    /// The caller sorts by this one column (column, descending): a scan of an index that
    /// starts with it may stream in order and stop at `limit_hint`.
    pub order_hint: Option<(usize, bool)>,
    /// The caller needs at most this many matching rows (in `order_hint` order if set).
    pub limit_hint: Option<usize>,
    /// The columns the caller reads (see [`storage::RowIter::project`]); None = all.
    pub cols: Option<Arc<[bool]>>,
}

impl Scan {
    /// All columns, all rows, with `lock`.
    pub fn locking(lock: LockMode) -> Scan {
        Scan {
            lock,
            ..Scan::default()
        }
    }
}

/// Fetches the rows of `t` matching `filter` through the best access path.
pub fn fetch<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    filter: Option<&Expr>,
    ctx: &mut EvalCtx<'_>,
    scan: &Scan,
) -> Result<Vec<(Handle, Vec<Value>)>> {
    let mut out = Vec::new();
    let mut mem = crate::runtime::limits::MemTracker::new();
    fetch_each(s, t, filter, ctx, scan, &mut |_, h, row| {
        mem.add_row(&row)?;
        out.push((h, row));
        Ok(true)
    })?;
    Ok(out)
}

/// What [`fetch_each`] hands each matching row to: `(ctx, handle, row)`; it returns whether to
/// go on (false stops the scan).
pub type RowFn<'f> = dyn FnMut(&mut EvalCtx<'_>, Handle, Vec<Value>) -> Result<bool> + 'f;

/// [`fetch`] without collecting: each matching row goes to `f` as the scan produces it (up to
/// `scan.limit_hint` rows), so the caller decides what to keep.
pub fn fetch_each<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    filter: Option<&Expr>,
    ctx: &mut EvalCtx<'_>,
    scan: &Scan,
    f: &mut RowFn<'_>,
) -> Result<()> {
    let Scan {
        lock,
        order_hint,
        limit_hint,
        ref cols,
    } = *scan;
    if let Some(rows) = crate::show::show::system_rows(s, t)? {
        for r in rows {
            let keep = match filter {
                Some(e) => e.eval_bool(&r, ctx)?,
                None => true,
            };
            if keep && !f(ctx, Vec::new(), r)? {
                break;
            }
        }
        return Ok(());
    }
    if crate::catalog::partition::is_partitioned(t) {
        for (h, r) in crate::catalog::partition::fetch(s, t, filter, ctx, scan)? {
            if !f(ctx, h, r)? {
                break;
            }
        }
        return Ok(());
    }
    let stats = s.inst.stats.get(s.storage(), t);
    let mut path = crate::plan::access::choose_with_stats(t, filter, stats.as_deref());
    let mut ranges = crate::plan::access::ranges(t, &path, ctx)?;
    if ranges.is_none() {
        path = crate::plan::access::AccessPath::full_scan();
        ranges = crate::plan::access::ranges(t, &path, ctx)?;
    }
    let ranges = ranges.unwrap_or_default();
    // the WHERE without the conjuncts every row of the ranges satisfies
    let residual;
    let filter = match filter {
        Some(f) if !path.covered.is_empty() => {
            let rest: Vec<&Expr> = crate::ir::expr::conjuncts(f)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !path.covered.contains(i))
                .map(|(_, c)| c)
                .collect();
            match rest.as_slice() {
                [] => None,
                [one] => Some(*one),
                _ => {
                    residual = and_all(&rest);
                    residual.as_ref()
                }
            }
        }
        f => f,
    };
    // ORDER BY on the first column of the chosen index (or a full pk scan) can stream in order.
    let mut reverse = false;
    let mut limit = None;
    if let Some((col, desc)) = order_hint {
        let idx = &t.indexes[path.index];
        if ranges.len() == 1
            && path.eq_prefixes[0].is_empty()
            && idx
                .columns
                .first()
                .is_some_and(|c| c.col == col && c.prefix_len.is_none())
        {
            reverse = desc;
            limit = limit_hint;
        }
    } else {
        limit = limit_hint;
    }
    let txn = s.ensure_txn();
    let mut n = 0u64;
    let mut kept = 0usize;
    for (start, end) in ranges {
        if path.unique_point && path.index == 0 {
            if let std::ops::Bound::Included(pk) = &start {
                if let Some((h, row)) = txn.get_by_pk(t, pk, lock)? {
                    let keep = match filter {
                        Some(e) => e.eval_bool(&row, ctx)?,
                        None => true,
                    };
                    if keep && !f(ctx, h, row)? {
                        return Ok(());
                    }
                }
                continue;
            }
        }
        let iter = txn
            .scan(t, path.index, IndexRange { start, end }, reverse, lock)?
            .project(cols.clone());
        for r in iter {
            let (h, row) = r?;
            n += 1;
            if n.is_multiple_of(1024) && ctx.killed.load(AtOrd::Relaxed) {
                return Err(Error::interrupted());
            }
            let keep = match filter {
                Some(e) => e.eval_bool(&row, ctx)?,
                None => true,
            };
            if keep {
                kept += 1;
                if !f(ctx, h, row)? || limit.is_some_and(|l| kept >= l) {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}
