//! Streaming a SELECT block to the client: when nothing between the table scan and the client
//! has to see every row first, each row is filtered, projected and handed to the client's row
//! sink ([`common::client::RowSink`]) as the storage iterator yields it, so `SELECT * FROM t`
//! or a dump of a table of any size holds one row at a time, not the result.
//!
//! Streamed today: one base table (partitioned ones too, a partition at a time is still
//! collected by `catalog::partition::fetch`) or a join (depth first; a hash join's table is
//! held up to `join_buffer_size` and partitioned to disk past it, `crate::exec::hash_spill`;
//! derived tables are materialised, `crate::exec::materialize`), WHERE, GROUP BY and aggregates
//! (spilling past the in-memory temporary table's size), DISTINCT, window functions
//! (`crate::exec::window_stream`), ORDER BY (in index order when the planned read gives it,
//! else through an external sort, [`crate::exec::sorter`]), the select list, LIMIT / OFFSET.
//! Not streamed (the block's rows are collected by [`crate::exec::select::run_plan`]): ROLLUP,
//! subqueries in the block's expressions, HAVING without GROUP BY, window functions over a
//! grouped block, LAG / LEAD with an offset that is not constant.

use common::client::RowSink;
use common::{ColumnMeta, Result, Value};
use storage::engine::KvEngine;

use crate::exec::fetch::{fetch_each, Scan};
use crate::exec::select::{eval_limit, movable_items};
use crate::exec::sort::expr_collation;
use crate::exec::sorter::{SortCounters, SortKey, Sorter};
use crate::ir::block::{Plan, Source};
use crate::ir::expr::{EvalCtx, Expr};
use crate::plan::physical::BlockPlan;
use crate::session::session::Session;

/// True when [`run`] can produce `p`'s rows one at a time: from one table or a join, in scan
/// order, or in ORDER BY order through the index read or an external sort.
pub fn streamable(p: &Plan) -> bool {
    !p.from.is_empty()
        && !p.rollup
        && !p.has_subquery()
        && (crate::exec::window_stream::handles(p)
            || (p.aggs.iter().all(|a| a.window.is_none())
                && (p.grouped || (p.having.is_none() && p.aggs.is_empty()))))
}

/// Sends `p`'s result to `sink` (the column definitions, then each row as it is produced) and
/// returns the number of rows sent. `p` must be [`streamable`]. Without ORDER BY, or when the
/// planned read delivers its order, rows go out as the scan or the join makes them; otherwise
/// they pass through a [`Sorter`] that spills past `sort_buffer_size`.
pub fn run<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    columns: Vec<ColumnMeta>,
    status: u16,
    ctx: &mut EvalCtx<'_>,
    sink: &mut dyn RowSink,
) -> Result<u64> {
    let limit = eval_limit(&p.limit, ctx)?;
    let offset = eval_limit(&p.offset, ctx)?.unwrap_or(0);
    sink.columns(columns, status)?;
    if limit == Some(0) {
        return Ok(0);
    }
    let stats = |t: &storage::catalog::TableDef| s.inst.stats.get(s.storage(), t);
    let plan = crate::plan::physical::plan_block(p, p.filter.as_ref(), &stats);
    // DISTINCT drops rows after the sort and the scan: they may not stop at LIMIT rows
    let top = limit
        .filter(|_| !p.distinct)
        .map(|l| l.saturating_add(offset) as usize);
    let distinct = p.distinct.then(|| Distinct {
        colls: p
            .items
            .iter()
            .map(|e| expr_collation(e, &p.scope, ctx.fnctx.collation))
            .collect(),
        seen: Default::default(),
        mem: crate::runtime::limits::MemTracker::new(),
    });
    let mut out = Projector {
        items: &p.items,
        movable: movable_items(&p.items),
        offset,
        limit,
        skipped: 0,
        sent: 0,
        row: Vec::with_capacity(p.items.len()),
        distinct,
    };
    if p.grouped {
        return run_grouped(s, p, &plan, top, ctx, &mut out, sink);
    }
    if p.aggs.iter().any(|a| a.window.is_some()) {
        crate::exec::window_stream::run(s, p, &plan, top, ctx, &mut out, sink)?;
        return Ok(out.sent);
    }
    let in_order = matches!(&plan, BlockPlan::Table(r) if r.ordered.is_some());
    if p.order.is_empty() || in_order {
        produce(s, p, &plan, top, ctx, &mut |ctx, row| {
            out.send(row, ctx, sink)
        })?;
        return Ok(out.sent);
    }
    // ORDER BY that the read does not deliver: sort, spilling past sort_buffer_size
    let inst = s.inst.clone();
    let (order, colls) = order_keys(p, &p.order, ctx);
    let mut sorter = sorter_for(s, &inst, &order, &colls, top, ctx.killed);
    produce(s, p, &plan, None, ctx, &mut |ctx, row| {
        let keys = sort_keys(&order, &colls, &row, ctx)?;
        sorter.push(keys, row)?;
        Ok(true)
    })?;
    let mut sorted = sorter.finish()?;
    while let Some(row) = sorted.next_row()? {
        if !out.send(row, ctx, sink)? {
            break;
        }
    }
    Ok(out.sent)
}

/// The sort keys `keys` (expression, descending) with each one's collation.
pub(crate) fn order_keys(
    p: &Plan,
    keys: &[(Expr, bool)],
    ctx: &EvalCtx<'_>,
) -> (Vec<(Expr, bool)>, Vec<common::Collation>) {
    let default = ctx.fnctx.collation;
    let colls = keys
        .iter()
        .map(|(e, _)| expr_collation(e, &p.scope, default))
        .collect();
    (keys.to_vec(), colls)
}

/// A [`Sorter`] for `order` under the session's `sort_buffer_size`, counting into `inst`.
pub(crate) fn sorter_for<'a, E: KvEngine>(
    s: &Session<E>,
    inst: &'a crate::session::session::Instance<E>,
    order: &[(Expr, bool)],
    colls: &[common::Collation],
    top: Option<usize>,
    killed: &'a std::sync::atomic::AtomicBool,
) -> Sorter<'a> {
    let budget = s.var_int("sort_buffer_size", 262_144).max(0) as usize;
    let desc = order.iter().map(|(_, d)| *d).collect();
    let at = (budget, tmp_dir(s), killed);
    sorter_in(inst, at, desc, colls.to_vec(), top)
}

/// A [`Sorter`] of `at` = (buffer bytes, directory, KILL flag) counting into `inst`'s status.
fn sorter_in<'a, E: KvEngine>(
    inst: &'a crate::session::session::Instance<E>,
    (budget, dir, killed): (usize, std::path::PathBuf, &'a std::sync::atomic::AtomicBool),
    desc: Vec<bool>,
    colls: Vec<common::Collation>,
    top: Option<usize>,
) -> Sorter<'a> {
    let counters = SortCounters {
        merge_passes: &inst.status.sort_merge_passes,
        tmp_files: &inst.status.created_tmp_files,
        rows: &inst.status.sort_rows,
    };
    Sorter::new(desc, colls, top, budget, dir, counters, killed)
}

/// A grouped block: source rows go into a hash aggregation as they are produced. Past the
/// in-memory temporary table's size (`min(tmp_table_size, max_heap_table_size)`, as MySQL's
/// internal temporary tables), rows of groups not yet held go to a sort on the group key
/// instead and are aggregated group by group afterwards (`Created_tmp_disk_tables`). The
/// groups then pass HAVING and an external sort (ORDER BY, else the GROUP BY keys, the order
/// MariaDB and MySQL 5.7 give) before LIMIT and the select list.
fn run_grouped<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    plan: &BlockPlan,
    top: Option<usize>,
    ctx: &mut EvalCtx<'_>,
    out: &mut Projector<'_>,
    sink: &mut dyn RowSink,
) -> Result<u64> {
    use std::sync::atomic::Ordering::Relaxed;
    let inst = s.inst.clone();
    inst.status.created_tmp_tables.fetch_add(1, Relaxed);
    let budget = tmp_table_budget(s);
    let nkeys = p.group_by.len();
    let group_order: Vec<(Expr, bool)> = p.group_by.iter().map(|g| (g.clone(), false)).collect();
    let (group_order, group_colls) = order_keys(p, &group_order, ctx);
    // DISTINCT values past the budget wait in a sort by (group, aggregate, value)
    let (sort_budget, dir, killed) = (
        s.var_int("sort_buffer_size", 262_144).max(0) as usize,
        tmp_dir(s),
        ctx.killed,
    );
    let distinct_sort = || {
        inst.status.created_tmp_disk_tables.fetch_add(1, Relaxed);
        let colls = vec![common::Collation::Binary; 3];
        sorter_in(
            &inst,
            (sort_budget, dir.clone(), killed),
            vec![false; 3],
            colls,
            None,
        )
    };
    let new_grouper =
        || crate::exec::aggregate::Grouper::new(p, nkeys).spill_distinct(budget, distinct_sort);
    let mut groups = new_grouper();
    // rows of groups the full in-memory table does not hold wait in a sort by group key
    let mut overflow = sorter_for(s, &inst, &group_order, &group_colls, None, ctx.killed);
    let mut spilled = false;
    let mut ev = |e: &Expr, r: &[Value], ctx: &mut EvalCtx<'_>| e.eval(r, ctx);
    {
        let (groups, overflow, spilled, ev) = (&mut groups, &mut overflow, &mut spilled, &mut ev);
        let (go, gc, inst) = (&group_order, &group_colls, &inst);
        produce(s, p, plan, None, ctx, &mut |ctx, row| {
            let (key, keyvals) = groups.key_of(ev, &row, ctx)?;
            if groups.holds(&key) || (!*spilled && groups.bytes < budget) {
                groups.push_keyed(ev, key, keyvals, &row, ctx)?;
                return Ok(true);
            }
            if !std::mem::replace(spilled, true) {
                inst.status.created_tmp_disk_tables.fetch_add(1, Relaxed);
            }
            let keys = sort_keys(go, gc, &row, ctx)?;
            overflow.push(keys, row)?;
            Ok(true)
        })?;
    }
    // every group, in memory first, then the spilled ones a group at a time
    let (order, colls) = if p.order.is_empty() {
        (group_order.clone(), group_colls.clone())
    } else {
        order_keys(p, &p.order, ctx)
    };
    let mut results = sorter_for(s, &inst, &order, &colls, top, ctx.killed);
    let mut emit = |ctx: &mut EvalCtx<'_>, row: Vec<Value>| -> Result<()> {
        if let Some(h) = &p.having {
            if !h.eval_bool(&row, ctx)? {
                return Ok(());
            }
        }
        let keys = sort_keys(&order, &colls, &row, ctx)?;
        results.push(keys, row)
    };
    for (_, row) in groups.finish(ctx)? {
        emit(ctx, row)?;
    }
    if spilled {
        let mut sorted = overflow.finish()?;
        let mut current: Option<(Vec<u8>, crate::exec::aggregate::Grouper<'_>)> = None;
        while let Some(row) = sorted.next_row()? {
            let (key, keyvals) = crate::exec::aggregate::group_key(p, nkeys, &mut ev, &row, ctx)?;
            if current.as_ref().is_some_and(|(k, _)| *k != key) {
                let (_, g) = current.take().expect("group");
                for (_, r) in g.finish(ctx)? {
                    emit(ctx, r)?;
                }
            }
            let (_, g) = current.get_or_insert_with(|| (key.clone(), new_grouper()));
            g.push_keyed(&mut ev, key, keyvals, &row, ctx)?;
        }
        if let Some((_, g)) = current {
            for (_, r) in g.finish(ctx)? {
                emit(ctx, r)?;
            }
        }
    }
    let mut sorted = results.finish()?;
    while let Some(row) = sorted.next_row()? {
        if !out.send(row, ctx, sink)? {
            break;
        }
    }
    Ok(out.sent)
}

/// Produces the block's source rows (before projection) into `f` through `plan`: one table's
/// scan (stopping after `top` rows when given) or the join, depth first.
pub(crate) fn produce<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    plan: &BlockPlan,
    top: Option<usize>,
    ctx: &mut EvalCtx<'_>,
    f: &mut crate::exec::join::JoinFn<'_>,
) -> Result<()> {
    match plan {
        BlockPlan::Table(read) => {
            let jt = &p.from[0];
            let Source::Table(t) = &jt.source else {
                return Err(common::Error::internal("table plan of a derived table"));
            };
            let scan = Scan {
                lock: p.lock_for(&jt.name),
                wait: p.lock_wait,
                order_hint: read.order_hint,
                // with an ORDER BY the read does not give, every row goes to the sort
                limit_hint: if p.order.is_empty() || read.ordered.is_some() {
                    top
                } else {
                    None
                },
                cols: p.used_columns(t.columns.len()),
            };
            let mut n = 0u64;
            let planned = fetch_each(
                s,
                t,
                read,
                p.filter.as_ref(),
                &[],
                ctx,
                &scan,
                &mut |ctx, _, row| {
                    n += 1;
                    f(ctx, row)
                },
            )?;
            crate::exec::trace::read(&jt.name, t, read, planned, n, 1);
            Ok(())
        }
        BlockPlan::Join(jp) => crate::exec::join::join_each(s, p, jp, ctx, f),
        BlockPlan::NoTables => Err(common::Error::internal("streamed a block without FROM")),
    }
}

/// The ORDER BY keys of `row`: collation weights for strings under a weight-based collation,
/// else the value.
pub(crate) fn sort_keys(
    order: &[(Expr, bool)],
    colls: &[common::Collation],
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<SortKey>> {
    let mut keys = Vec::with_capacity(order.len());
    for ((e, _), &c) in order.iter().zip(colls) {
        let v = match e {
            Expr::Col(i) if *i < row.len() => std::borrow::Cow::Borrowed(&row[*i]),
            _ => std::borrow::Cow::Owned(e.eval(row, ctx)?),
        };
        keys.push(match &*v {
            Value::Str(text) if crate::exec::sort::weighted(c) => {
                SortKey::Weight(common::collation::weight(c, text))
            }
            _ => SortKey::Val(v.into_owned()),
        });
    }
    Ok(keys)
}

/// The size of an in-memory internal temporary table: `min(tmp_table_size,
/// max_heap_table_size)`, as MySQL's, and no more than half of `max_session_mem_used` (the
/// limit of one intermediate result), so that a table that outgrows the limit goes to disk
/// instead of failing the statement with 1290.
pub fn tmp_table_budget<E: KvEngine>(s: &Session<E>) -> usize {
    let limit = i64::try_from(s.hot().max_session_mem_used / 2).unwrap_or(i64::MAX);
    s.var_int("tmp_table_size", 16 << 20)
        .min(s.var_int("max_heap_table_size", 16 << 20))
        .min(limit)
        .max(0) as usize
}

/// Where temporary files go: `tmpdir` (the data directory on a server), else the system's.
pub fn tmp_dir<E: KvEngine>(s: &Session<E>) -> std::path::PathBuf {
    match s.inst.globals.get("tmpdir") {
        Some(Value::Str(d)) if !d.is_empty() => d.into(),
        _ => std::env::temp_dir(),
    }
}

/// The rows DISTINCT has sent: the hash keys of their values under each item's collation.
struct Distinct {
    colls: Vec<common::Collation>,
    seen: foldhash::HashSet<Vec<u8>>,
    mem: crate::runtime::limits::MemTracker,
}

/// Applies the select list, DISTINCT, OFFSET and LIMIT to source rows and sends them.
pub(crate) struct Projector<'p> {
    items: &'p [Expr],
    movable: Vec<bool>,
    offset: u64,
    limit: Option<u64>,
    skipped: u64,
    sent: u64,
    row: Vec<Value>,
    distinct: Option<Distinct>,
}

impl Projector<'_> {
    /// Sends `src` projected (unless a duplicate under DISTINCT, or skipped by OFFSET); false
    /// once LIMIT rows are sent.
    pub(crate) fn send(
        &mut self,
        mut src: Vec<Value>,
        ctx: &mut EvalCtx<'_>,
        sink: &mut dyn RowSink,
    ) -> Result<bool> {
        if self.distinct.is_none() && self.skipped < self.offset {
            self.skipped += 1;
            return Ok(true);
        }
        self.row.clear();
        for (e, m) in self.items.iter().zip(&self.movable) {
            self.row.push(match (m, e) {
                // the row is dropped after this: move its value rather than copy it
                (true, Expr::Col(i)) if *i < src.len() => {
                    std::mem::replace(&mut src[*i], Value::Null)
                }
                _ => e.eval(&src, ctx)?,
            });
        }
        if let Some(d) = &mut self.distinct {
            let mut k = Vec::new();
            for (v, c) in self.row.iter().zip(&d.colls) {
                func::compare::hash_key(v, *c, &mut k);
                k.push(0xFE);
            }
            d.mem.add_bytes(k.len() + 48)?;
            if !d.seen.insert(k) {
                return Ok(true);
            }
            if self.skipped < self.offset {
                self.skipped += 1;
                return Ok(true);
            }
        }
        sink.row(&self.row)?;
        self.sent += 1;
        Ok(self.limit.is_none_or(|l| self.sent < l))
    }
}

#[cfg(test)]
mod tests {

    use crate::exec::test_client::Recorder;
    use crate::session::session::test_support::{ok, rows, session};
    use crate::Output;

    /// Streamed blocks send what the collected path returns (same rows, same order); the
    /// others come back whole, and so does every statement of a multi-statement text.
    #[test]
    fn streamed_rows_equal_collected_rows() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10), b INT, KEY kb (b))",
        );
        ok(
            &mut s,
            "INSERT INTO t VALUES (1,'x',5),(2,'y',NULL),(3,'z',7),(4,'w',5),(5,'v',1)",
        );
        ok(
            &mut s,
            "CREATE TABLE u (k INT PRIMARY KEY, tid INT, x INT, KEY (tid))",
        );
        ok(
            &mut s,
            "INSERT INTO u VALUES (1,1,1),(2,1,2),(3,3,5),(4,4,7),(5,9,5),(6,5,NULL)",
        );
        for (sql, streamed) in [
            ("SELECT * FROM t", true),
            ("SELECT a, b + 1, id FROM t WHERE b = 5", true),
            ("SELECT id FROM t WHERE id > 1 LIMIT 2", true),
            ("SELECT id FROM t LIMIT 2 OFFSET 3", true),
            ("SELECT id, b, b FROM t WHERE b > 1 LIMIT 1, 1", true),
            ("SELECT id FROM t LIMIT 0", true),
            ("SELECT id FROM t ORDER BY b", true),
            ("SELECT id, a FROM t ORDER BY a DESC, id LIMIT 3", true),
            (
                "SELECT id FROM t WHERE b > 1 ORDER BY b DESC LIMIT 1 OFFSET 1",
                true,
            ),
            ("SELECT id FROM t ORDER BY id DESC LIMIT 2", true),
            ("SELECT t.id, u.x FROM t JOIN u ON u.tid = t.id", true),
            (
                "SELECT t.id, u.x FROM t LEFT JOIN u ON u.tid = t.id AND u.x > 1",
                true,
            ),
            (
                "SELECT t.a, u.x FROM t JOIN u ON u.x = t.b ORDER BY u.x DESC, t.a",
                true,
            ),
            (
                "SELECT t.id, u.x FROM t, u WHERE u.tid = t.id AND t.b = 5 LIMIT 1",
                true,
            ),
            ("SELECT * FROM t, u LIMIT 7", true),
            (
                "SELECT u.tid, COUNT(*) FROM t JOIN u ON u.tid = t.id GROUP BY u.tid",
                true,
            ),
            ("SELECT b, COUNT(*), SUM(id) FROM t GROUP BY b", true),
            ("SELECT COUNT(*), MAX(a) FROM t", true),
            ("SELECT COUNT(*) FROM t WHERE id > 100", true),
            (
                "SELECT b, COUNT(*) AS n FROM t GROUP BY b HAVING n > 1 ORDER BY b DESC",
                true,
            ),
            (
                "SELECT b, GROUP_CONCAT(a ORDER BY a) FROM t GROUP BY b ORDER BY 2 LIMIT 2",
                true,
            ),
            ("SELECT b, COUNT(*) FROM t GROUP BY b WITH ROLLUP", false),
            ("SELECT DISTINCT b FROM t", true),
            (
                "SELECT DISTINCT b FROM t ORDER BY b DESC LIMIT 2 OFFSET 1",
                true,
            ),
            (
                "SELECT DISTINCT t.b, u.x FROM t JOIN u ON u.tid = t.id ORDER BY 2",
                true,
            ),
            ("SELECT DISTINCT COUNT(*) FROM t GROUP BY b", true),
            ("SELECT id FROM t WHERE b = (SELECT MAX(b) FROM t)", false),
        ] {
            let want = rows(&mut s, sql);
            let mut rec = Recorder::default();
            let mut out = s.query_with_files(sql, false, &mut rec);
            match out.pop().expect("one result") {
                Ok(Output::RowsSent { rows: n }) => {
                    assert!(streamed, "{sql} was streamed");
                    assert_eq!(rec.rows, want, "{sql}");
                    assert_eq!(n as usize, want.len(), "{sql}");
                    assert!(!rec.columns.is_empty(), "{sql}");
                }
                Ok(Output::Rows { .. }) => assert!(!streamed, "{sql} was not streamed"),
                other => panic!("{sql}: {other:?}"),
            }
        }
        let mut rec = Recorder::default();
        let out = s.query_with_files("SELECT 1; SELECT * FROM t", true, &mut rec);
        assert!(out.iter().all(|r| matches!(r, Ok(Output::Rows { .. }))));
        assert!(rec.rows.is_empty());
    }

    /// `sql` is streamed, and sends what the collected path (its rows read as a derived
    /// table) returns.
    fn streamed_equals_collected(s: &mut crate::Session<storage::mem::MemEngine>, sql: &str) {
        let want = rows(s, &format!("SELECT * FROM ({sql}) x"));
        let mut rec = Recorder::default();
        let mut out = s.query_with_files(sql, false, &mut rec);
        assert!(
            matches!(out.pop(), Some(Ok(Output::RowsSent { .. }))),
            "{sql}"
        );
        assert_eq!(rec.rows, want, "{sql}");
    }

    /// An ORDER BY over more than `sort_buffer_size` sorts through temporary files (merge
    /// passes counted) and sends what the in-memory sort of the collected path returns.
    #[test]
    fn a_sort_past_the_buffer_spills_and_merges() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE big (id INT PRIMARY KEY, v INT, s VARCHAR(20))",
        );
        for chunk in 0..10 {
            let values: Vec<String> = (0..500)
                .map(|i| {
                    let id = chunk * 500 + i;
                    format!("({id}, {}, 'k{}')", (id * 7919) % 613, (id * 31) % 97)
                })
                .collect();
            ok(
                &mut s,
                &format!("INSERT INTO big VALUES {}", values.join(",")),
            );
        }
        let status = |s: &mut crate::Session<storage::mem::MemEngine>, name: &str| -> u64 {
            rows(s, &format!("SHOW GLOBAL STATUS LIKE '{name}'"))[0][1]
                .parse()
                .expect("counter")
        };
        ok(&mut s, "SET sort_buffer_size = 32768");
        ok(&mut s, "SET tmp_table_size = 16384");
        // GROUP BY past the in-memory table: new groups wait in a sort by group key
        let disk = status(&mut s, "Created_tmp_disk_tables");
        for sql in [
            "SELECT v, COUNT(*), SUM(id), MIN(s), COUNT(DISTINCT s) FROM big GROUP BY v",
            "SELECT s, v, COUNT(*) AS n FROM big GROUP BY s, v HAVING n > 1 ORDER BY n DESC, s, v",
            "SELECT v % 7 AS m, AVG(id) FROM big GROUP BY m ORDER BY m LIMIT 3",
        ] {
            streamed_equals_collected(&mut s, sql);
        }
        assert!(status(&mut s, "Created_tmp_disk_tables") >= disk + 2);
        // DISTINCT sets past the in-memory table: values go to a sort by (group, aggregate,
        // value), which spills past sort_buffer_size too
        ok(&mut s, "SET tmp_table_size = 1024");
        let (disk, passes) = (
            status(&mut s, "Created_tmp_disk_tables"),
            status(&mut s, "Sort_merge_passes"),
        );
        for sql in [
            "SELECT COUNT(DISTINCT id), COUNT(DISTINCT s), SUM(DISTINCT v), AVG(DISTINCT v), \
             COUNT(*), GROUP_CONCAT(DISTINCT v % 5 ORDER BY v % 5) FROM big",
            "SELECT v % 5 AS m, COUNT(DISTINCT id), SUM(DISTINCT id), COUNT(DISTINCT s, v) \
             FROM big GROUP BY m ORDER BY m",
            "SELECT s, COUNT(DISTINCT v) AS n FROM big GROUP BY s ORDER BY n DESC, s LIMIT 4",
            "SELECT COUNT(DISTINCT id) FROM big WHERE id < 0",
        ] {
            streamed_equals_collected(&mut s, sql);
        }
        assert!(status(&mut s, "Created_tmp_disk_tables") >= disk + 3);
        assert!(status(&mut s, "Sort_merge_passes") > passes);
        ok(&mut s, "SET tmp_table_size = 16384");
        for sql in [
            "SELECT id, v FROM big ORDER BY v, id DESC",
            "SELECT s, id FROM big ORDER BY s DESC, id LIMIT 700",
            "SELECT id FROM big WHERE v < 300 ORDER BY v DESC, s, id LIMIT 10 OFFSET 5",
        ] {
            let passes = status(&mut s, "Sort_merge_passes");
            streamed_equals_collected(&mut s, sql);
            if !sql.contains("LIMIT 10") {
                assert!(
                    status(&mut s, "Sort_merge_passes") > passes,
                    "{sql} spilled"
                );
            }
        }
    }
}
