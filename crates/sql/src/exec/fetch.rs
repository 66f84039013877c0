//! Reading one table through its planned read ([`crate::plan::physical::TableRead`]): key
//! ranges from the access path, row locking, and the rows it yields.

use std::sync::atomic::Ordering as AtOrd;
use std::sync::Arc;

use common::{Error, Result, Value};
use storage::catalog::TableDef;
use storage::engine::KvEngine;
use storage::txn::lock::WaitPolicy;
use storage::txn::{IndexRange, LockMode};
use storage::Handle;

use crate::exec::select::and_all;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::plan::physical::TableRead;
use crate::session::session::Session;

/// How [`fetch`] reads a table.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Row locking.
    pub lock: LockMode,
    /// What a locking read does about a busy row (NOWAIT / SKIP LOCKED).
    pub wait: WaitPolicy,
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

    /// All columns, all rows, read as block `p`'s locking clause says for its table `name`.
    pub fn for_block(p: &crate::ir::block::Plan, name: &str) -> Scan {
        Scan {
            lock: p.lock_for(name),
            wait: p.lock_wait,
            ..Scan::default()
        }
    }
}

/// Rows read from a table, with their handles.
pub type Fetched = Vec<(Handle, Vec<Value>)>;

/// Fetches the rows of `t` matching `filter` through the planned `read`, and whether the
/// read went as planned (see [`fetch_each`]).
pub fn fetch<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    read: &TableRead,
    filter: Option<&Expr>,
    ctx: &mut EvalCtx<'_>,
    scan: &Scan,
) -> Result<(Fetched, bool)> {
    let mut out = Vec::new();
    let mut mem = crate::runtime::limits::MemTracker::new();
    let planned = fetch_each(s, t, read, filter, &[], ctx, scan, &mut |_, h, row| {
        mem.add_row(&row)?;
        out.push((h, row));
        Ok(true)
    })?;
    Ok((out, planned))
}

/// Plans the read of `t` for `filter` ([`crate::plan::physical::plan_table`], with the
/// table's statistics) and fetches its rows: for the statements that read one table without
/// a SELECT block (UPDATE, DELETE).
pub fn fetch_planned<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    hints: &crate::ir::block::IndexHints,
    filter: Option<&Expr>,
    ctx: &mut EvalCtx<'_>,
    scan: &Scan,
) -> Result<Vec<(Handle, Vec<Value>)>> {
    let stats = s.inst.stats.get(s.storage(), t);
    let read = crate::plan::physical::plan_table(t, filter, None, stats.as_deref(), hints);
    Ok(fetch(s, t, &read, filter, ctx, scan)?.0)
}

/// What [`fetch_each`] hands each matching row to: `(ctx, handle, row)`; it returns whether to
/// go on (false stops the scan).
pub type RowFn<'f> = dyn FnMut(&mut EvalCtx<'_>, Handle, Vec<Value>) -> Result<bool> + 'f;

/// [`fetch`] without collecting: each matching row goes to `f` as the scan produces it (up to
/// `scan.limit_hint` rows), so the caller decides what to keep. `outer` is the outer row a
/// join lookup's key expressions read (empty otherwise). Returns whether the table was read
/// as planned: false when a key value could not be represented in the column type (e.g.
/// `int_col = 1.5`) and the table was scanned whole, `filter` deciding.
#[allow(clippy::too_many_arguments)]
pub fn fetch_each<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    read: &TableRead,
    filter: Option<&Expr>,
    outer: &[Value],
    ctx: &mut EvalCtx<'_>,
    scan: &Scan,
    f: &mut RowFn<'_>,
) -> Result<bool> {
    if scan.lock != LockMode::None && scan.wait != WaitPolicy::Wait {
        // the transaction's locking reads skip or fail on busy rows for this read only
        s.ensure_txn().set_wait_policy(scan.wait);
        let plain = Scan {
            wait: WaitPolicy::Wait,
            ..scan.clone()
        };
        let r = fetch_each(s, t, read, filter, outer, ctx, &plain, f);
        s.ensure_txn().set_wait_policy(WaitPolicy::Wait);
        return r;
    }
    let Scan {
        lock,
        order_hint,
        limit_hint,
        ref cols,
        wait: _,
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
        return Ok(true);
    }
    if crate::catalog::partition::is_partitioned(t) {
        let mut planned = true;
        for (h, r) in
            crate::catalog::partition::fetch(s, t, read, filter, outer, ctx, scan, &mut planned)?
        {
            if !f(ctx, h, r)? {
                break;
            }
        }
        return Ok(planned);
    }
    let mut path = &read.path;
    let full = crate::plan::access::AccessPath::full_scan();
    let mut ordered = read.ordered;
    let mut ranges = crate::plan::access::ranges(t, path, outer, ctx)?;
    let planned = ranges.is_some();
    if ranges.is_none() {
        path = &full;
        ordered = None;
        ranges = crate::plan::access::ranges(t, path, outer, ctx)?;
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
    // the planned order lets a LIMIT stop the scan; without a requested order it always may
    let (reverse, limit) = match (order_hint, ordered) {
        (Some(_), Some(rev)) => (rev, limit_hint),
        (Some(_), None) => (false, None),
        (None, _) => (false, limit_hint),
    };
    // Handler_read_*: a full primary-key scan reads "random next" rows; a key read starts with
    // a key lookup and goes on in index order (backwards for a reverse scan)
    let full = path.is_full_scan();
    let (mut starts, mut rows) = (0u64, 0u64);
    let txn = s.ensure_txn();
    let mut n = 0u64;
    let mut kept = 0usize;
    'ranges: for (start, end) in ranges {
        starts += 1;
        if path.unique_point && path.index == 0 {
            if let std::ops::Bound::Included(pk) = &start {
                if let Some((h, row)) = txn.get_by_pk(t, pk, lock)? {
                    let keep = match filter {
                        Some(e) => e.eval_bool(&row, ctx)?,
                        None => true,
                    };
                    if keep && !f(ctx, h, row)? {
                        break 'ranges;
                    }
                }
                continue;
            }
        }
        let iter = txn
            .scan(t, path.index, IndexRange { start, end }, reverse, lock)?
            .project(cols.clone());
        let mut first = true;
        for r in iter {
            let (h, row) = r?;
            if !std::mem::take(&mut first) {
                rows += 1;
            }
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
                    break 'ranges;
                }
            }
        }
    }
    use crate::session::session::HandlerReads;
    let h = &s.handler;
    let (first, after) = match (full, reverse, ordered.is_some()) {
        // MySQL's count of a table scan includes the read that finds the end
        (true, false, false) => {
            HandlerReads::bump(&h.rnd_next, n + starts);
            return Ok(planned);
        }
        // a full scan read for its order is an index scan: first (last) row, then in order
        (true, false, true) => (&h.first, &h.next),
        (true, true, _) => (&h.last, &h.prev),
        (false, false, _) => (&h.key, &h.next),
        (false, true, _) => (&h.key, &h.prev),
    };
    HandlerReads::bump(first, starts);
    HandlerReads::bump(after, rows);
    Ok(planned)
}
