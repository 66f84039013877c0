//! Window functions over inputs larger than memory: this module owns the streamed path of a
//! non-grouped block with window calls and no subqueries (`run`). (A grouped block with
//! window calls keeps the collected path, [`crate::exec::window::compute`]: its input is the
//! groups, already aggregated.)
//!
//! The block's rows pass once per window (PARTITION BY and ORDER BY; calls over the same one
//! share a pass) through an external sort ([`Sorter`], spilling past `sort_buffer_size`) on
//! (partition key, ORDER BY values, arrival number). Each call of the pass walks the partitions
//! in that order with a `Walk`, which writes the call's value into its slot (`scope width +
//! call index`), and hands the rows to the pass's next call, then to the next pass's sort, and
//! at last to the block's ORDER BY sort, projection, DISTINCT, OFFSET and LIMIT
//! (`Projector`). Every row carries its arrival number (after the call slots), so ties in
//! every sort break as the collected path breaks them, and the results are the same. Without
//! ORDER BY the rows go out in the last pass's order (MySQL promises none either).
//!
//! A partition is held in memory while its rows take less than the in-memory temporary
//! table's size (`min(tmp_table_size, max_heap_table_size)`, as MySQL's frame buffer). Past
//! it, the partition goes to two unnamed temporary files ([`crate::exec::spill`]): its rows,
//! read back in step with the output, and the ORDER BY values and argument of each row, read
//! ahead for frame ends, LEAD and peer groups; the walk holds only the rows between the frame's
//! start and the furthest row it has read (see `Walk` for the frame it cannot bound). Each
//! file counts in `Created_tmp_files`, each spilled partition in `Created_tmp_disk_tables`,
//! the statement in `Created_tmp_tables`.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};

use common::client::RowSink;
use common::{Collation, Error, Result, Value};
use storage::engine::KvEngine;

use crate::exec::sorter::{SortKey, Sorted, Sorter};
use crate::exec::spill::{decode_value, decode_values, encode_value, encode_values};
use crate::exec::spill::{SpillReader, SpillWriter};
use crate::exec::stream::{order_keys, produce, sort_keys, sorter_for, tmp_dir, Projector};
use crate::exec::window::{arg_of, entry_of, reads_others, Entry, PartitionView, Slice, Walk};
use crate::ir::block::Plan;
use crate::ir::expr::{AggCall, AggFunc, EvalCtx, Expr, WindowDef};
use crate::plan::physical::BlockPlan;
use crate::runtime::limits::{row_size, MemTracker};
use crate::session::session::{Instance, Session};

/// True when [`run`] computes `p`'s window calls: a block without GROUP BY, aggregates or
/// HAVING whose calls are all window calls, with LAG/LEAD offsets that are constants (a
/// look-behind of a known number of rows) and no subquery in a window definition.
pub(crate) fn handles(p: &Plan) -> bool {
    !p.grouped
        && p.having.is_none()
        && !p.aggs.is_empty()
        && p.aggs.iter().all(|a| {
            a.window.as_ref().is_some_and(|w| {
                let offset = matches!(a.func, AggFunc::Lag | AggFunc::Lead)
                    .then(|| w.extra.first())
                    .flatten();
                offset.is_none_or(|e| e.is_const())
                    && !w
                        .partition
                        .iter()
                        .chain(w.order.iter().map(|(e, _)| e))
                        .chain(&w.extra)
                        .any(|e| e.has_subquery())
            })
        })
}

/// One window call of the block: its slot in the row, the call and its window.
type Call<'p> = (usize, &'p AggCall, &'p WindowDef);

/// Where a pass sends each row it has computed; false stops the statement (LIMIT reached).
type Emit<'e> = dyn FnMut(&mut EvalCtx<'_>, Vec<Value>) -> Result<bool> + 'e;

/// Sends the result of `p` (see [`handles`]) through `out`, its rows produced by `plan` and
/// passed through one sort and walk per window call, then the block's ORDER BY (`top`: the
/// rows LIMIT and OFFSET can send, when DISTINCT does not drop any).
///
/// # Errors
/// 1026 on a temporary-file error, 1317 when the query is killed, and the errors of the
/// window functions and of evaluation.
pub(crate) fn run<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    plan: &BlockPlan,
    top: Option<usize>,
    ctx: &mut EvalCtx<'_>,
    out: &mut Projector<'_>,
    sink: &mut dyn RowSink,
) -> Result<()> {
    let inst = s.inst.clone();
    // the window pass's temporary table
    inst.status.created_tmp_tables.fetch_add(1, Relaxed);
    let base = p.scope.cols.len();
    // each row's arrival number follows the call slots
    let seq = base + p.aggs.len();
    // calls over the same PARTITION BY and ORDER BY share a pass (one sort)
    let mut passes: Vec<(String, Vec<Call<'_>>)> = Vec::new();
    for (i, a) in p.aggs.iter().enumerate() {
        let Some(w) = a.window.as_deref() else {
            continue;
        };
        let window = format!("{:?}", (&w.partition, &w.order));
        match passes.iter_mut().find(|(name, _)| *name == window) {
            Some((_, calls)) => calls.push((base + i, a, w)),
            None => passes.push((window, vec![(base + i, a, w)])),
        }
    }
    let passes: Vec<Vec<Call<'_>>> = passes.into_iter().map(|(_, calls)| calls).collect();
    let Some(&first) = passes.first().and_then(|calls| calls.first()) else {
        return Err(Error::internal("a window pass without window calls"));
    };
    let spill = Spill {
        budget: crate::exec::stream::tmp_table_budget(s),
        dir: tmp_dir(s),
        tmp_files: &inst.status.created_tmp_files,
        disk_tables: &inst.status.created_tmp_disk_tables,
        killed: ctx.killed,
    };
    let mut sorter = call_sorter(s, &inst, first, seq, ctx);
    {
        let (sorter, mut n) = (&mut sorter, 0i64);
        produce(s, p, plan, None, ctx, &mut |ctx, mut row| {
            row.resize(seq, Value::Null);
            row.push(Value::Int(n));
            n += 1;
            let keys = call_keys(first, seq, &row, ctx)?;
            sorter.push(keys, row)?;
            Ok(true)
        })?;
    }
    // the block's ORDER BY, ties in arrival order
    let order = (!p.order.is_empty()).then(|| {
        let (mut order, mut colls) = order_keys(p, &p.order, ctx);
        order.push((Expr::Col(seq), false));
        colls.push(Collation::Binary);
        (order, colls)
    });
    for (k, calls) in passes.iter().enumerate() {
        let sorted = sorter.finish()?;
        let next_call = passes.get(k + 1).and_then(|c| c.first()).copied();
        let mut next = match (next_call, &order) {
            (Some(c), _) => Some(call_sorter(s, &inst, c, seq, ctx)),
            (None, Some((o, colls))) => Some(sorter_for(s, &inst, o, colls, top, ctx.killed)),
            (None, None) => None,
        };
        let mut emit = |ctx: &mut EvalCtx<'_>, row: Vec<Value>| -> Result<bool> {
            let Some(next) = &mut next else {
                return out.send(row, ctx, sink);
            };
            let keys = match (next_call, &order) {
                (Some(c), _) => call_keys(c, seq, &row, ctx)?,
                (None, Some((o, colls))) => sort_keys(o, colls, &row, ctx)?,
                (None, None) => return Err(Error::internal("a window pass without a next sort")),
            };
            next.push(keys, row)?;
            Ok(true)
        };
        if !walk_pass(&spill, calls, sorted, &mut emit, ctx)? {
            return Ok(());
        }
        match next {
            Some(n) => sorter = n,
            None => return Ok(()),
        }
    }
    let mut sorted = sorter.finish()?;
    while let Some(row) = sorted.next_row()? {
        if !out.send(row, ctx, sink)? {
            break;
        }
    }
    Ok(())
}

/// Evaluation without a session (the streamed block has no subqueries).
fn plain(e: &Expr, row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<Value> {
    e.eval(row, ctx)
}

/// The sort of `call`'s pass: partition key (its hash key bytes, as the collected path
/// orders and groups partitions), the window's ORDER BY values, then the arrival number.
fn call_sorter<'a, E: KvEngine>(
    s: &Session<E>,
    inst: &'a Instance<E>,
    call: Call<'_>,
    seq: usize,
    ctx: &EvalCtx<'a>,
) -> Sorter<'a> {
    let w = call.2;
    let mut order = Vec::with_capacity(w.order.len() + 2);
    order.push((Expr::Lit(Value::Null), false));
    order.extend(w.order.iter().cloned());
    order.push((Expr::Col(seq), false));
    let mut colls = vec![ctx.fnctx.collation; order.len()];
    colls[0] = Collation::Binary;
    sorter_for(s, inst, &order, &colls, None, ctx.killed)
}

/// The keys of `row` in the sort of `call`'s pass (see [`call_sorter`]).
fn call_keys(
    call: Call<'_>,
    seq: usize,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<SortKey>> {
    let (key, entry) = entry_of(call.1, call.2, &mut plain, row, ctx)?;
    let mut keys = Vec::with_capacity(entry.okey.len() + 2);
    keys.push(SortKey::Weight(key));
    keys.extend(entry.okey.into_iter().map(SortKey::Val));
    keys.push(SortKey::Val(row.get(seq).cloned().unwrap_or(Value::Null)));
    Ok(keys)
}

/// The partition key and entry of `row` from its keys in the sort of `call`'s pass (see
/// [`call_keys`]): only the argument is evaluated again.
fn entry_from_keys(
    call: Call<'_>,
    keys: Vec<SortKey>,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<(Vec<u8>, Entry)> {
    let bad = || Error::internal("a window pass's sort keys do not match its window");
    let mut keys = keys.into_iter();
    let Some(SortKey::Weight(key)) = keys.next() else {
        return Err(bad());
    };
    let okey = keys
        .take(call.2.order.len())
        .map(|k| match k {
            SortKey::Val(v) => Ok(v),
            SortKey::Weight(_) => Err(bad()),
        })
        .collect::<Result<Vec<_>>>()?;
    let arg = arg_of(call.1, &mut plain, row, ctx)?;
    Ok((key, Entry { okey, arg }))
}

/// Where partitions larger than the in-memory table go, and what they count.
struct Spill<'a> {
    /// Bytes a partition may hold in memory.
    budget: usize,
    dir: PathBuf,
    tmp_files: &'a AtomicU64,
    disk_tables: &'a AtomicU64,
    killed: &'a AtomicBool,
}

impl Spill<'_> {
    /// Fails with 1317 once the query is killed (checked every 1024 rows).
    fn check(&self, n: usize) -> Result<()> {
        if n % 1024 == 1023 && self.killed.load(Relaxed) {
            return Err(Error::interrupted());
        }
        Ok(())
    }
}

/// Walks the partitions of one pass (`sorted`: the rows in the order of the calls' window),
/// sending each row with the values of `calls` to `emit`; false when `emit` stopped.
fn walk_pass(
    sp: &Spill<'_>,
    calls: &[Call<'_>],
    mut sorted: Sorted<'_>,
    emit: &mut Emit<'_>,
    ctx: &mut EvalCtx<'_>,
) -> Result<bool> {
    let Some(&first) = calls.first() else {
        return Err(Error::internal("a window pass without window calls"));
    };
    let mut stages: Vec<Stage<'_>> = calls.iter().map(|&c| Stage::new(c)).collect();
    let mut n = 0;
    while let Some((keys, row)) = sorted.next_keyed()? {
        sp.check(n)?;
        n += 1;
        let keyed = entry_from_keys(first, keys, &row, ctx)?;
        if !push_row(sp, &mut stages, Some(keyed), row, ctx, emit)? {
            return Ok(false);
        }
    }
    finish_stages(sp, &mut stages, ctx, emit)
}

/// One call of a pass: the partition being read. Rows reach it in partition order, from the
/// pass's sort or from the call before it over the same window.
struct Stage<'p> {
    call: Call<'p>,
    part: Partition,
    key: Option<Vec<u8>>,
}

impl<'p> Stage<'p> {
    fn new(call: Call<'p>) -> Stage<'p> {
        let part = Partition {
            reads_others: reads_others(call.1.func),
            ..Partition::default()
        };
        Stage {
            call,
            part,
            key: None,
        }
    }
}

/// Hands `row` to the first of `stages` (`keyed`: its partition key and entry there, when
/// known), whose finished partitions go on through the others, then to `last`; false when
/// `last` stopped.
fn push_row(
    sp: &Spill<'_>,
    stages: &mut [Stage<'_>],
    keyed: Option<(Vec<u8>, Entry)>,
    row: Vec<Value>,
    ctx: &mut EvalCtx<'_>,
    last: &mut Emit<'_>,
) -> Result<bool> {
    let Some((head, tail)) = stages.split_first_mut() else {
        return last(ctx, row);
    };
    let (key, entry) = match keyed {
        Some(k) => k,
        None => entry_of(head.call.1, head.call.2, &mut plain, &row, ctx)?,
    };
    if head.key.as_ref() != Some(&key) {
        let mut next = |ctx: &mut EvalCtx<'_>, r| push_row(sp, tail, None, r, ctx, last);
        if !head.part.flush(sp, head.call, &mut next, ctx)? {
            return Ok(false);
        }
        head.key = Some(key);
    }
    head.part.push(sp, row, entry)?;
    Ok(true)
}

/// Computes the stages' last partitions, each through the stages after it, to `last`.
fn finish_stages(
    sp: &Spill<'_>,
    stages: &mut [Stage<'_>],
    ctx: &mut EvalCtx<'_>,
    last: &mut Emit<'_>,
) -> Result<bool> {
    let Some((head, tail)) = stages.split_first_mut() else {
        return Ok(true);
    };
    let mut next = |ctx: &mut EvalCtx<'_>, r| push_row(sp, tail, None, r, ctx, last);
    if !head.part.flush(sp, head.call, &mut next, ctx)? {
        return Ok(false);
    }
    finish_stages(sp, tail, ctx, last)
}

/// The rows of the partition being read: in memory up to the budget, else on disk.
#[derive(Default)]
struct Partition {
    /// The call reads rows other than the current one (see [`reads_others`]).
    reads_others: bool,
    rows: Vec<Vec<Value>>,
    entries: Vec<Entry>,
    bytes: usize,
    disk: Option<OnDisk>,
}

/// A partition past the budget, being written: its rows (with their entries) to one file, the
/// entries alone to another when the call reads rows other than the current one.
struct OnDisk {
    rows: SpillWriter,
    entries: Option<SpillWriter>,
    m: usize,
    first: Option<Entry>,
    last: Option<Entry>,
    rec: Vec<u8>,
}

impl Partition {
    /// Adds the next row of the partition.
    fn push(&mut self, sp: &Spill<'_>, row: Vec<Value>, entry: Entry) -> Result<()> {
        if self.disk.is_none() {
            let size = row_size(&row) + entry_size(&entry);
            if self.bytes + size <= sp.budget {
                self.bytes += size;
                self.rows.push(row);
                self.entries.push(entry);
                return Ok(());
            }
            self.move_to_disk(sp)?;
        }
        let disk = self
            .disk
            .as_mut()
            .ok_or_else(|| Error::internal("partition on disk"))?;
        disk.write(row, entry)
    }

    /// Moves the partition to temporary files.
    fn move_to_disk(&mut self, sp: &Spill<'_>) -> Result<()> {
        sp.disk_tables.fetch_add(1, Relaxed);
        sp.tmp_files.fetch_add(1, Relaxed);
        let rows = SpillWriter::create(&sp.dir)?;
        // the call's function decides whether the walk reads other rows
        let entries = if self.reads_others {
            sp.tmp_files.fetch_add(1, Relaxed);
            Some(SpillWriter::create(&sp.dir)?)
        } else {
            None
        };
        let mut disk = OnDisk {
            rows,
            entries,
            m: 0,
            first: None,
            last: None,
            rec: Vec::new(),
        };
        for (row, entry) in self.rows.drain(..).zip(self.entries.drain(..)) {
            disk.write(row, entry)?;
        }
        self.bytes = 0;
        self.disk = Some(disk);
        Ok(())
    }

    /// Computes `call` for the partition's rows and sends them on; false when `emit` stopped.
    fn flush(
        &mut self,
        sp: &Spill<'_>,
        call: Call<'_>,
        emit: &mut Emit<'_>,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<bool> {
        let (slot, a, w) = call;
        if let Some(disk) = self.disk.take() {
            return Ok(walk_on_disk(sp, call, disk, emit, ctx)?.0);
        }
        let m = self.rows.len();
        if m == 0 {
            return Ok(true);
        }
        let entries = std::mem::take(&mut self.entries);
        let mut view = Slice::new(&entries, None);
        let mut walk = Walk::new(a, w, m, ctx)?;
        for (pos, mut row) in std::mem::take(&mut self.rows).into_iter().enumerate() {
            row[slot] = walk.row(pos, &entries[pos], &row, &mut view, &mut plain, ctx)?;
            if !emit(ctx, row)? {
                return Ok(false);
            }
        }
        self.bytes = 0;
        Ok(true)
    }
}

/// Computes `call` for a partition on disk and sends its rows on: true unless `emit` stopped,
/// with the view the walk read ahead in.
fn walk_on_disk(
    sp: &Spill<'_>,
    (slot, a, w): Call<'_>,
    disk: OnDisk,
    emit: &mut Emit<'_>,
    ctx: &mut EvalCtx<'_>,
) -> Result<(bool, OnDiskView)> {
    let (m, mut rows, mut view) = disk.finish()?;
    let mut walk = Walk::new(a, w, m, ctx)?;
    let mut rec = Vec::new();
    for pos in 0..m {
        sp.check(pos)?;
        if !rows.next(&mut rec)? {
            return Err(Error::internal("a spilled window partition ended early"));
        }
        let mut at = 0;
        let mut row = decode_values(&rec, &mut at)?;
        let entry = decode_entry(&rec, &mut at)?;
        row[slot] = walk.row(pos, &entry, &row, &mut view, &mut plain, ctx)?;
        if !emit(ctx, row)? {
            return Ok((false, view));
        }
    }
    Ok((true, view))
}

impl OnDisk {
    /// Writes the next row and its entry.
    fn write(&mut self, row: Vec<Value>, entry: Entry) -> Result<()> {
        self.rec.clear();
        encode_values(&row, &mut self.rec);
        encode_entry(&entry, &mut self.rec);
        self.rows.write(&self.rec)?;
        if let Some(entries) = &mut self.entries {
            self.rec.clear();
            encode_entry(&entry, &mut self.rec);
            entries.write(&self.rec)?;
        }
        self.m += 1;
        if self.first.is_none() {
            self.first = Some(entry.clone());
        }
        self.last = Some(entry);
        Ok(())
    }

    /// The row count, the rows to read back in order and the view the walk reads ahead in.
    fn finish(self) -> Result<(usize, SpillReader, OnDiskView)> {
        let (Some(first), Some(last)) = (self.first, self.last) else {
            return Err(Error::internal("an empty window partition on disk"));
        };
        let input = match self.entries {
            Some(w) => Some(w.finish()?),
            None => None,
        };
        let view = OnDiskView {
            input,
            buf: VecDeque::new(),
            base: 0,
            floor: 0,
            first,
            last,
            rec: Vec::new(),
            held: 0,
            most: 0,
            mem: MemTracker::new(),
            #[cfg(test)]
            peak: 0,
        };
        Ok((self.m, self.rows.finish()?, view))
    }
}

/// A partition's entries read from their file as the walk asks for them: `buf` holds those
/// from `base` (not before the walk's last release) to the furthest read. What it holds at
/// most counts against `max_session_mem_used` (the guard for the frame [`Walk`] cannot bound).
struct OnDiskView {
    input: Option<SpillReader>,
    buf: VecDeque<Entry>,
    base: usize,
    floor: usize,
    first: Entry,
    last: Entry,
    rec: Vec<u8>,
    /// Bytes `buf` holds, the most it has held, and that most measured against the limit.
    held: usize,
    most: usize,
    mem: MemTracker,
    /// The most entries held at once.
    #[cfg(test)]
    peak: usize,
}

impl PartitionView for OnDiskView {
    fn at(&mut self, i: usize) -> Result<&Entry> {
        if i < self.base || i < self.floor {
            return Err(Error::internal(format!(
                "a window frame read row {i} of its partition after releasing it"
            )));
        }
        let input = self
            .input
            .as_mut()
            .ok_or_else(|| Error::internal("a window call read rows it does not keep"))?;
        while self.base + self.buf.len() <= i {
            if !input.next(&mut self.rec)? {
                return Err(Error::internal("a spilled window partition ended early"));
            }
            if self.buf.is_empty() && self.base < self.floor {
                // released before it was read
                self.base += 1;
                continue;
            }
            let entry = decode_entry(&self.rec, &mut 0)?;
            self.held += entry_size(&entry);
            if self.held > self.most {
                self.mem.add_bytes(self.held - self.most)?;
                self.most = self.held;
            }
            self.buf.push_back(entry);
            #[cfg(test)]
            {
                self.peak = self.peak.max(self.buf.len());
            }
        }
        Ok(&self.buf[i - self.base])
    }

    fn first(&self) -> &Entry {
        &self.first
    }

    fn last(&self) -> &Entry {
        &self.last
    }

    fn release(&mut self, floor: usize) {
        self.floor = self.floor.max(floor);
        while self.base < self.floor {
            let Some(entry) = self.buf.pop_front() else {
                break;
            };
            self.held -= entry_size(&entry);
            self.base += 1;
        }
    }
}

/// Bytes an entry takes in memory (as `max_session_mem_used` counts rows).
fn entry_size(e: &Entry) -> usize {
    row_size(&e.okey) + row_size(std::slice::from_ref(&e.arg))
}

fn encode_entry(e: &Entry, out: &mut Vec<u8>) {
    encode_values(&e.okey, out);
    encode_value(&e.arg, out);
}

fn decode_entry(buf: &[u8], at: &mut usize) -> Result<Entry> {
    let okey = decode_values(buf, at)?;
    let arg = decode_value(buf, at)?;
    Ok(Entry { okey, arg })
}

#[cfg(test)]
mod tests {
    use common::Value;
    use storage::mem::MemEngine;

    use super::*;
    use crate::exec::test_client::Recorder;
    use crate::ir::expr::FrameBound;
    use crate::session::session::test_support::{ok, rows, session};
    use crate::Output;

    fn status(s: &mut Session<MemEngine>, name: &str) -> u64 {
        rows(s, &format!("SHOW GLOBAL STATUS LIKE '{name}'"))[0][1]
            .parse()
            .expect("counter")
    }

    /// `sql` is streamed and sends what the collected path returns: the same rows in the same
    /// order under a top-level ORDER BY, else the same rows.
    fn streamed_equals_collected(s: &mut Session<MemEngine>, sql: &str) {
        let mut want = rows(s, sql);
        let mut got = Recorder::default();
        let out = s.query_with_files(sql, false, &mut got).pop();
        assert!(
            matches!(out, Some(Ok(Output::RowsSent { .. }))),
            "{sql}: {out:?}"
        );
        let mut got = got.rows;
        if sql.rfind("ORDER BY") < sql.rfind(')') {
            want.sort();
            got.sort();
        }
        assert_eq!(got.len(), want.len(), "{sql}");
        let diff = got.iter().zip(&want).position(|(a, b)| a != b);
        assert!(
            diff.is_none(),
            "{sql}: row {diff:?} streamed {:?}, collected {:?}",
            got[diff.unwrap_or(0)],
            want[diff.unwrap_or(0)]
        );
    }

    /// A table of 3,000 rows: `p` makes 500 partitions of 6 rows, `g` four large ones (one of
    /// NULLs); `v` has ties and NULLs, `d` dates, `s` strings, `x` doubles.
    fn table(s: &mut Session<MemEngine>) {
        ok(
            s,
            "CREATE TABLE t (id INT PRIMARY KEY, p INT, g INT, v INT, d DATE, s VARCHAR(10), \
             x DOUBLE)",
        );
        for chunk in 0..6 {
            let values: Vec<String> = (0..500)
                .map(|i| {
                    let id = chunk * 500 + i;
                    let g = if id % 7 == 0 {
                        "NULL".into()
                    } else {
                        (id % 3).to_string()
                    };
                    let v = if id % 11 == 0 {
                        "NULL".into()
                    } else {
                        ((id * 7919) % 101).to_string()
                    };
                    format!(
                        "({id}, {}, {g}, {v}, '2024-01-01' + INTERVAL {} DAY, 's{}', {})",
                        id % 500,
                        (id * 13) % 400,
                        id % 37,
                        (id as f64 * 1.5) % 97.0
                    )
                })
                .collect();
            ok(s, &format!("INSERT INTO t VALUES {}", values.join(",")));
        }
        ok(s, "CREATE TABLE u (k INT PRIMARY KEY)");
        ok(s, "INSERT INTO u VALUES (0), (1), (2)");
    }

    const QUERIES: &[&str] = &[
        // ranking, over four large partitions and over 500 small ones
        "SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v), RANK() OVER (PARTITION BY g \
         ORDER BY v), DENSE_RANK() OVER (PARTITION BY g ORDER BY v), PERCENT_RANK() OVER \
         (PARTITION BY g ORDER BY v), CUME_DIST() OVER (PARTITION BY g ORDER BY v), NTILE(7) OVER \
         (PARTITION BY g ORDER BY v) FROM t ORDER BY id",
        "SELECT id, RANK() OVER (PARTITION BY p ORDER BY v DESC), CUME_DIST() OVER (PARTITION BY \
         p ORDER BY v DESC), NTILE(4) OVER (PARTITION BY p ORDER BY s) FROM t ORDER BY id",
        "SELECT id, ROW_NUMBER() OVER (), CUME_DIST() OVER (ORDER BY s), NTILE(4000) OVER (ORDER \
         BY v) FROM t ORDER BY id",
        // LAG / LEAD: defaults, a default read from the row
        "SELECT id, LAG(v) OVER (PARTITION BY g ORDER BY v, id), LAG(s, 3, 'none') OVER \
         (PARTITION BY g ORDER BY v, id), LEAD(v, 2) OVER (PARTITION BY g ORDER BY v, id), \
         LEAD(x, 5, -1) OVER (PARTITION BY p ORDER BY id), LAG(v, 2, id) OVER (ORDER BY d, id), \
         LEAD(id, 0) OVER (ORDER BY s) FROM t ORDER BY id",
        // FIRST / LAST / NTH_VALUE over the default frame and ROWS frames
        "SELECT id, FIRST_VALUE(s) OVER (PARTITION BY g ORDER BY v), LAST_VALUE(s) OVER \
         (PARTITION BY g ORDER BY v), NTH_VALUE(s, 3) OVER (PARTITION BY g ORDER BY v) FROM t \
         ORDER BY id",
        "SELECT id, FIRST_VALUE(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 5 PRECEDING AND \
         2 FOLLOWING), LAST_VALUE(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 5 PRECEDING \
         AND 2 FOLLOWING), NTH_VALUE(v, 2) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 5 \
         PRECEDING AND 2 FOLLOWING), NTH_VALUE(v, 4) OVER (PARTITION BY g ORDER BY id ROWS \
         UNBOUNDED PRECEDING) FROM t ORDER BY id",
        "SELECT id, FIRST_VALUE(d) OVER (PARTITION BY g ORDER BY v ROWS BETWEEN UNBOUNDED \
         PRECEDING AND UNBOUNDED FOLLOWING), LAST_VALUE(d) OVER (PARTITION BY g ORDER BY v ROWS \
         BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), FIRST_VALUE(id) OVER (PARTITION BY \
         g ORDER BY v, id ROWS BETWEEN 3 FOLLOWING AND UNBOUNDED FOLLOWING), NTH_VALUE(id, 2) \
         OVER (PARTITION BY g ORDER BY v, id ROWS BETWEEN 3 FOLLOWING AND UNBOUNDED FOLLOWING), \
         LAST_VALUE(id) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN 2 PRECEDING AND 2 \
         PRECEDING) FROM t ORDER BY id",
        // aggregates: the default frame (running, peers included), ROWS frames
        "SELECT id, SUM(v) OVER (PARTITION BY g ORDER BY v), COUNT(*) OVER (PARTITION BY g ORDER \
         BY v), AVG(x) OVER (PARTITION BY g ORDER BY v), MIN(s) OVER (PARTITION BY g ORDER BY v), \
         MAX(d) OVER (PARTITION BY g ORDER BY v) FROM t ORDER BY id",
        "SELECT id, SUM(x) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 3 PRECEDING AND 4 \
         FOLLOWING), MIN(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 10 PRECEDING AND 1 \
         PRECEDING), MAX(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 6 \
         FOLLOWING), COUNT(v) OVER (PARTITION BY g ORDER BY id ROWS UNBOUNDED PRECEDING), AVG(v) \
         OVER (PARTITION BY p ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t ORDER \
         BY id",
        // RANGE frames with value offsets, ascending and descending, NULL keys
        "SELECT id, SUM(v) OVER (PARTITION BY g ORDER BY v RANGE BETWEEN 5 PRECEDING AND 2 \
         FOLLOWING), COUNT(*) OVER (PARTITION BY g ORDER BY v DESC RANGE BETWEEN 3 PRECEDING AND \
         1 FOLLOWING), COUNT(*) OVER (ORDER BY v RANGE BETWEEN 1 FOLLOWING AND 3 FOLLOWING), \
         COUNT(*) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING), MAX(x) \
         OVER (ORDER BY v DESC RANGE BETWEEN CURRENT ROW AND 4 FOLLOWING) FROM t ORDER BY id",
        "SELECT id, COUNT(*) OVER (PARTITION BY g ORDER BY d RANGE BETWEEN INTERVAL 3 DAY \
         PRECEDING AND CURRENT ROW), SUM(v) OVER (ORDER BY d RANGE BETWEEN INTERVAL 1 WEEK \
         PRECEDING AND INTERVAL 2 DAY FOLLOWING) FROM t ORDER BY id",
        // frames to UNBOUNDED FOLLOWING
        "SELECT id, SUM(v) OVER (PARTITION BY g), COUNT(*) OVER (), MAX(s) OVER (PARTITION BY g \
         ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING), COUNT(v) OVER \
         (PARTITION BY p ORDER BY v ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), SUM(v) \
         OVER (PARTITION BY g ORDER BY v RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM \
         t ORDER BY id",
        // two windows, no ORDER BY (the rows in the last pass's order)
        "SELECT id, v, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v), SUM(id) OVER (PARTITION BY \
         p ORDER BY s ROWS 2 PRECEDING) FROM t",
        // ORDER BY with LIMIT and OFFSET, DISTINCT, WHERE, a join as the source
        "SELECT id, RANK() OVER (ORDER BY v) AS r FROM t ORDER BY r DESC, id LIMIT 10 OFFSET 3",
        "SELECT DISTINCT g, COUNT(*) OVER (PARTITION BY g) FROM t ORDER BY g",
        "SELECT id, SUM(v) OVER (PARTITION BY g ORDER BY id) FROM t WHERE v > 50 ORDER BY v, id \
         LIMIT 7",
        "SELECT t.id, u.k, ROW_NUMBER() OVER (PARTITION BY u.k ORDER BY t.v, t.id) FROM t JOIN u \
         ON u.k = t.p % 5 ORDER BY t.id, u.k",
    ];

    /// Every function and frame streamed over partitions that spill (and, with a larger
    /// in-memory table, over small partitions held in memory) gives the collected path's
    /// results; spilled partitions count as temporary files and disk tables.
    #[test]
    fn streamed_windows_equal_collected_windows() {
        let mut s = session();
        table(&mut s);
        ok(
            &mut s,
            "SET sort_buffer_size = 32768, tmp_table_size = 1024, max_heap_table_size = 1024",
        );
        let (disk, files, tables) = (
            status(&mut s, "Created_tmp_disk_tables"),
            status(&mut s, "Created_tmp_files"),
            status(&mut s, "Created_tmp_tables"),
        );
        for sql in QUERIES {
            streamed_equals_collected(&mut s, sql);
        }
        assert!(status(&mut s, "Created_tmp_disk_tables") > disk + 500);
        assert!(status(&mut s, "Created_tmp_files") > files + 1000);
        assert!(status(&mut s, "Created_tmp_tables") >= tables + QUERIES.len() as u64);
        // partitions of 6 rows in memory, the large ones on disk
        ok(
            &mut s,
            "SET tmp_table_size = 65536, max_heap_table_size = 65536",
        );
        let disk = status(&mut s, "Created_tmp_disk_tables");
        for sql in QUERIES {
            streamed_equals_collected(&mut s, sql);
        }
        assert!(status(&mut s, "Created_tmp_disk_tables") > disk);
    }

    /// Under a `max_session_mem_used` the collected rows pass, the streamed pass runs in its
    /// buffers; a LIMIT without ORDER BY stops it; the frame it cannot bound (an aggregate over
    /// the rest of a large partition on disk) meets the limit.
    #[test]
    fn streamed_windows_run_under_the_memory_limit() {
        let mut s = session();
        table(&mut s);
        ok(
            &mut s,
            "SET sort_buffer_size = 32768, tmp_table_size = 1024, max_heap_table_size = 1024, \
             max_session_mem_used = 65536",
        );
        let sql = "SELECT id, s, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v), \
                   SUM(x) OVER (PARTITION BY g ORDER BY v ROWS 3 PRECEDING) FROM t ORDER BY id";
        assert_eq!(
            crate::session::session::test_support::err(&mut s, sql),
            1290
        );
        let streamed = |s: &mut Session<MemEngine>, sql: &str| {
            let mut got = Recorder::default();
            let out = s.query_with_files(sql, false, &mut got).pop();
            out.map(|o| o.map(|_| got.rows))
        };
        let got = streamed(&mut s, sql).expect("a result").expect("rows");
        assert_eq!(got.len(), 3000);
        assert_eq!(got[5][..2], ["5", "s5"]);
        let got = streamed(
            &mut s,
            "SELECT id, RANK() OVER (PARTITION BY p ORDER BY v), \
             COUNT(*) OVER (PARTITION BY p ORDER BY v) FROM t LIMIT 5",
        );
        assert_eq!(got.expect("a result").expect("rows").len(), 5);
        let err = streamed(
            &mut s,
            "SELECT id, SUM(v) OVER (PARTITION BY g ORDER BY v \
             ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t",
        )
        .expect("a result")
        .expect_err("past the limit");
        assert_eq!(err.num(), 1290);
    }

    /// Blocks the streamed window pass does not take are returned whole.
    #[test]
    fn other_window_blocks_are_collected() {
        let mut s = session();
        table(&mut s);
        for sql in [
            "SELECT id, LAG(v, id % 3) OVER (ORDER BY id) FROM t",
            "SELECT g, SUM(v), RANK() OVER (ORDER BY SUM(v)) FROM t GROUP BY g",
            "SELECT id, ROW_NUMBER() OVER (PARTITION BY (SELECT MAX(k) FROM u)) FROM t",
        ] {
            let mut got = Recorder::default();
            let out = s.query_with_files(sql, false, &mut got).pop();
            assert!(
                matches!(out, Some(Ok(Output::Rows { .. }))),
                "{sql}: {out:?}"
            );
        }
    }

    /// On a partition on disk, the walk holds the rows of the frame (or of the LAG/LEAD
    /// offset), not those of the partition, and computes what it computes in memory.
    #[test]
    fn a_partition_on_disk_holds_its_frame() {
        use FrameBound::*;
        let m = 5000usize;
        let mut s = session();
        let killed = AtomicBool::new(false);
        let (tmp_files, disk_tables) = (AtomicU64::new(0), AtomicU64::new(0));
        let sp = Spill {
            budget: 0,
            dir: std::env::temp_dir(),
            tmp_files: &tmp_files,
            disk_tables: &disk_tables,
            killed: &killed,
        };
        let lit = |i: i64| Expr::Lit(Value::Int(i));
        let rows = |a, b| Some((true, a, b));
        let range = |a, b| Some((false, a, b));
        // (function, its n, frame, one peer group (else groups of 50), most rows held); RANGE
        // value offsets are 1
        type Frame = Option<(bool, FrameBound, FrameBound)>;
        let cases: [(AggFunc, Option<i64>, Frame, bool, usize); 17] = [
            (AggFunc::RowNumber, None, None, false, 0),
            (AggFunc::CumeDist, None, None, false, 2),
            (AggFunc::CumeDist, None, None, true, 2),
            (AggFunc::Lag, Some(5), None, false, 6),
            (AggFunc::Lead, Some(5), None, false, 7),
            (
                AggFunc::Sum,
                None,
                rows(Preceding(5), Following(5)),
                false,
                12,
            ),
            (
                AggFunc::Max,
                None,
                rows(Following(3), Following(9)),
                false,
                12,
            ),
            (AggFunc::Sum, None, None, false, 52),
            (AggFunc::Sum, None, None, true, 2),
            (AggFunc::Min, None, range(CurrentRow, CurrentRow), false, 52),
            (
                AggFunc::Avg,
                None,
                range(RangePreceding, RangeFollowing),
                false,
                152,
            ),
            (
                AggFunc::Count,
                None,
                rows(UnboundedPreceding, UnboundedFollowing),
                true,
                2,
            ),
            (AggFunc::FirstValue, None, None, true, 2),
            (
                AggFunc::LastValue,
                None,
                rows(UnboundedPreceding, UnboundedFollowing),
                false,
                2,
            ),
            (
                AggFunc::LastValue,
                None,
                rows(Preceding(4), CurrentRow),
                false,
                6,
            ),
            (
                AggFunc::NthValue,
                Some(3),
                rows(UnboundedPreceding, CurrentRow),
                false,
                4,
            ),
            (
                AggFunc::NthValue,
                Some(3),
                rows(CurrentRow, UnboundedFollowing),
                false,
                4,
            ),
        ];
        for (func, n, frame, one_group, most) in cases {
            let offset = frame.is_some_and(|f| f.1 == RangePreceding).then(|| {
                crate::ir::expr::RangeOffset {
                    value: lit(1),
                    unit: None,
                }
            });
            let a = AggCall {
                func,
                arg: Some(Expr::Col(0)),
                distinct: false,
                separator: ",".into(),
                coll: Collation::Binary,
                window: Some(Box::new(WindowDef {
                    partition: vec![],
                    order: vec![(Expr::Col(1), false)],
                    frame,
                    range_offsets: [offset.clone(), offset],
                    extra: n.map(lit).into_iter().collect(),
                })),
                order: vec![],
            };
            let w = a.window.as_deref().expect("window");
            let call = (2, &a, w);
            let row = |i: usize| {
                let k = if one_group { 0 } else { i / 50 };
                vec![
                    Value::Int((i * 7919 % 1000) as i64),
                    Value::Int(k as i64),
                    Value::Null,
                ]
            };
            let label = format!("{func:?} {frame:?} one group: {one_group}");
            s.with_ctx(&[], false, |_, ctx| {
                let mut part = Partition {
                    reads_others: reads_others(func),
                    ..Partition::default()
                };
                let mut entries = Vec::new();
                for i in 0..m {
                    let (_, e) = entry_of(&a, w, &mut plain, &row(i), ctx)?;
                    entries.push(e.clone());
                    part.push(&sp, row(i), e)?;
                }
                let mut on_disk = Vec::new();
                let disk = part.disk.take().expect("on disk");
                let (_, view) = walk_on_disk(
                    &sp,
                    call,
                    disk,
                    &mut |_, r| {
                        on_disk.push(r[2].clone());
                        Ok(true)
                    },
                    ctx,
                )?;
                assert!(view.peak <= most, "{label}: held {} rows", view.peak);
                let mut walk = Walk::new(&a, w, m, ctx)?;
                let mut view = Slice::new(&entries, None);
                for (pos, e) in entries.iter().enumerate() {
                    let v = walk.row(pos, e, &row(pos), &mut view, &mut plain, ctx)?;
                    assert_eq!(on_disk[pos], v, "{label}: row {pos}");
                }
                Ok(())
            })
            .expect("walk");
        }
        assert!(disk_tables.into_inner() >= 16);
    }
}
