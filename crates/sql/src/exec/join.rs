//! Joins of a block's FROM items, running a [`JoinPlan`]: a hash join reads its table once and
//! probes it by a hash on the equi-join keys; an index nested loop reads its table's key ranges
//! for each outer row; LEFT JOINs null-extend. Rows go down the steps depth first, each joined
//! row handed on as soon as it is complete ([`join_each`]). Nothing here chooses an
//! order, an index or a method: that is [`crate::plan::physical::plan_join`]'s.
//!
//! A hash step's table is bounded by `join_buffer_size` (at least [`MIN_JOIN_BUFFER`]): past it
//! the step is partitioned, a grace hash join ([`crate::exec::hash_spill`]): the outer rows that
//! reach it are written to its probe chunks instead of joined, and once the first step's rows are
//! exhausted the partitioned steps are joined chunk by chunk, in step order, so that a later
//! partitioned step receives the rows of an earlier one's chunks before its own are joined. A spilled join's rows come in
//! another order than an in-memory one's (SQL gives none without ORDER BY). A keyless step (a
//! cross join) is not partitioned: its table stays in memory. The first step's rows (the probe
//! input) are held up to the in-memory temporary table's size and spooled to one file past it.

use std::sync::atomic::Ordering as AtOrd;

use common::{Error, Result, Value};
use storage::engine::KvEngine;

use crate::exec::fetch::{fetch_each, Scan};
use crate::exec::hash_spill::{
    push_key, BuildChunk, Built, ChunkRow, HashBuild, ProbeChunk, SpillEnv,
};
use crate::ir::block::{Plan, Source};
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::plan::physical::{HashKey, JoinPlan, JoinStep, StepMethod};
use crate::session::session::Session;

/// `join_buffer_size` when the variable cannot be read (MySQL's default).
const DEFAULT_JOIN_BUFFER: u64 = 262_144;

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

/// The smallest table a hash step holds before it is partitioned, whatever `join_buffer_size`
/// says (as the sorter's floor under `sort_buffer_size`): each open chunk file holds a 64 KiB
/// buffer anyway, and a smaller table would mean a pass over a probe chunk per handful of build
/// rows.
const MIN_JOIN_BUFFER: u64 = 32 << 10;

/// The bytes a hash step's table may hold, and the first step's rows: `join_buffer_size` (at
/// least [`MIN_JOIN_BUFFER`]) and the memory limit of one intermediate result
/// (`max_session_mem_used`), no more than the limit, so that a table that outgrows the limit
/// goes to disk rather than failing the statement.
fn join_budgets<E: KvEngine>(s: &Session<E>) -> (usize, usize) {
    let n = match s.var("join_buffer_size") {
        Some(Value::Int(i)) => i.max(0) as u64,
        Some(Value::UInt(u)) => u,
        _ => DEFAULT_JOIN_BUFFER,
    };
    let limit = s.hot().max_session_mem_used.max(8192);
    let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    (size(n.max(MIN_JOIN_BUFFER).min(limit)), size(limit))
}

/// Runs `plan` over `p`'s FROM items, handing each joined row to `f` as it is made: the hash
/// steps' tables are read (once each) first, then every row of the first step goes down the
/// later steps depth first, so only the hash tables are held, not the join's result. The rows
/// come in the order a step-by-step join would give them, unless a hash step's table passed
/// `join_buffer_size` and was partitioned: then the rows that reach it are joined after the
/// first step's rows are exhausted, a chunk at a time.
pub(crate) fn join_each<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    plan: &JoinPlan,
    ctx: &mut EvalCtx<'_>,
    f: &mut JoinFn<'_>,
) -> Result<()> {
    let inst = s.inst.clone();
    let env = SpillEnv {
        dir: crate::exec::stream::tmp_dir(s),
        tmp_files: &inst.status.created_tmp_files,
        disk_tables: &inst.status.created_tmp_disk_tables,
        killed: ctx.killed,
    };
    let (budget, mem_limit) = join_budgets(s);
    let mut built = Vec::with_capacity(plan.steps.len());
    for (i, step) in plan.steps.iter().enumerate() {
        built.push(match &step.method {
            // the first step is the probe input, not a hash table: it is held up to the
            // in-memory temporary table's size (as a materialised table), spooled past it
            StepMethod::Hash { keys, .. } if i == 0 => {
                let first = crate::exec::stream::tmp_table_budget(s).min(mem_limit);
                Some(build(s, p, step, keys, true, first, &env, ctx)?)
            }
            StepMethod::Hash { keys, .. } => {
                Some(build(s, p, step, keys, false, budget, &env, ctx)?)
            }
            StepMethod::Lookup { .. } => None,
        });
    }
    let mut j = Joiner {
        s,
        p,
        plan,
        built,
        env,
        budget,
        planned: vec![true; plan.steps.len()],
        found: vec![(0, 0); plan.steps.len()],
        rows: 0,
        f,
    };
    if j.descend(0, vec![Value::Null; p.scope.cols.len()], ctx)? {
        j.join_partitioned(ctx)?;
    }
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
    /// Per hash step: its table (taken once a spooled or partitioned one is joined).
    built: Vec<Option<Built>>,
    env: SpillEnv<'a>,
    /// The bytes of a partitioned step's build chunk held at once ([`join_budgets`]).
    budget: usize,
    /// Per step: every lookup used its key ranges.
    planned: Vec<bool>,
    /// Per lookup step: rows found and lookups made (EXPLAIN ANALYZE).
    found: Vec<(u64, u64)>,
    rows: u64,
    f: &'a mut JoinFn<'f>,
}

impl<E: KvEngine> Joiner<'_, '_, E> {
    /// Joins `row` (steps before `i` filled in) with step `i` and the ones after it; false
    /// once the consumer wants no more rows. A row reaching a partitioned step waits in the
    /// step's probe chunk ([`Joiner::join_partitioned`] joins it).
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
        let matched = match &step.method {
            StepMethod::Hash { keys, .. } => match &mut self.built[i] {
                Some(Built::Memory(t)) => {
                    let t = t.clone();
                    let joined = if keys.is_empty() {
                        self.join_rows(i, &row, t.rows(), 0..t.rows().len(), ctx)?
                    } else {
                        let cands = match probe_key(keys, &row, ctx)? {
                            Some(k) => t.matches(&k),
                            None => &[],
                        };
                        self.join_rows(i, &row, t.rows(), cands.iter().copied(), ctx)?
                    };
                    match joined {
                        Some(m) => m,
                        None => return Ok(false),
                    }
                }
                Some(Built::Partitioned(_)) => match probe_key(keys, &row, ctx)? {
                    Some(k) => {
                        let Some(Built::Partitioned(parts)) = &mut self.built[i] else {
                            return Err(Error::internal("partitioned step without its chunks"));
                        };
                        parts.write_probe(&k, &row, &self.env)?;
                        return Ok(true);
                    }
                    // a NULL key matches nothing: null-extended at once
                    None => false,
                },
                Some(Built::Spooled(_)) => {
                    let Some(Built::Spooled(mut spool)) = self.built[i].take() else {
                        return Err(Error::internal("spooled step without its file"));
                    };
                    let (mut matched, mut n) = (false, 0u64);
                    while let Some(r) = spool.next_row()? {
                        n += 1;
                        if n.is_multiple_of(1024) && ctx.killed.load(AtOrd::Relaxed) {
                            return Err(Error::interrupted());
                        }
                        match self.join_rows(i, &row, std::slice::from_ref(&r), 0..1, ctx)? {
                            Some(m) => matched |= m,
                            None => return Ok(false),
                        }
                    }
                    matched
                }
                None => return Err(Error::internal("hash step without its table")),
            },
            StepMethod::Lookup { read } => {
                let Source::Table(t) = &jt.source else {
                    return Err(Error::internal("keyed join step on a derived table"));
                };
                let (lo, hi) = (jt.offset, jt.offset + jt.width);
                let mut found: Vec<Vec<Value>> = Vec::new();
                let planned = fetch_each(
                    self.s,
                    t,
                    read,
                    step.local.as_ref(),
                    &row,
                    ctx,
                    &Scan::for_block(self.p, &jt.name),
                    &mut |_, _, m| {
                        found.push(m);
                        Ok(true)
                    },
                )?;
                self.planned[i] &= planned;
                self.found[i].0 += found.len() as u64;
                self.found[i].1 += 1;
                let mut matched = false;
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
                matched
            }
        };
        if !matched && jt.left {
            return self.descend(i + 1, row, ctx);
        }
        Ok(true)
    }

    /// Joins `row` with the build rows `cands` (indexes into `build`) of hash step `i`: each
    /// joined row that passes the step's conditions goes down. None once the consumer wants no
    /// more rows, else whether any matched.
    fn join_rows(
        &mut self,
        i: usize,
        row: &[Value],
        build: &[Vec<Value>],
        cands: impl Iterator<Item = usize>,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<Option<bool>> {
        let plan = self.plan;
        let step = &plan.steps[i];
        let jt = &self.p.from[step.item];
        let (lo, hi) = (jt.offset, jt.offset + jt.width);
        let mut matched = false;
        for ci in cands {
            let mut r = row.to_vec();
            r[lo..hi].clone_from_slice(&build[ci]);
            if all_true(&step.conds, &r, ctx)? {
                matched = true;
                if !self.descend(i + 1, r, ctx)? {
                    return Ok(None);
                }
            }
        }
        Ok(Some(matched))
    }

    /// Joins the rows waiting in the partitioned steps' probe chunks, step by step in join
    /// order (a step's chunks send rows on to the later steps, partitioned ones among them);
    /// false once the consumer wants no more rows.
    fn join_partitioned(&mut self, ctx: &mut EvalCtx<'_>) -> Result<bool> {
        for i in 0..self.built.len() {
            if !matches!(self.built[i], Some(Built::Partitioned(_))) {
                continue;
            }
            let Some(Built::Partitioned(mut parts)) = self.built[i].take() else {
                return Err(Error::internal("partitioned step without its chunks"));
            };
            for c in 0..parts.chunks() {
                if let Some((build, probe)) = parts.take_chunk(c)? {
                    if !self.join_chunk(i, build, probe, ctx)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    /// Joins one chunk of partitioned step `i`: each piece of the build chunk (one, unless the
    /// chunk is larger than the budget) in a hash table, probed by every row of the probe
    /// chunk as an in-memory step would; before the last piece the probe rows are copied, with
    /// whether they matched, for the next pass, and after it the rows of a LEFT JOIN that
    /// matched no piece are null-extended. False once the consumer wants no more rows.
    fn join_chunk(
        &mut self,
        i: usize,
        mut build: BuildChunk,
        mut probe: ProbeChunk,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<bool> {
        let left = self.p.from[self.plan.steps[i].item].left;
        loop {
            let table = build.next_piece(self.budget, &self.env)?;
            let last = build.done();
            if last && !left && table.rows().is_empty() {
                return Ok(true);
            }
            let mut next = if last {
                None
            } else {
                Some(ProbeChunk::next_pass(&self.env)?)
            };
            let mut r = ChunkRow::default();
            let mut n = 0u64;
            while probe.next(&mut r)? {
                n += 1;
                if n.is_multiple_of(1024) && ctx.killed.load(AtOrd::Relaxed) {
                    return Err(Error::interrupted());
                }
                let cands = table.matches(&r.key).iter().copied();
                match self.join_rows(i, &r.row, table.rows(), cands, ctx)? {
                    Some(m) => r.matched |= m,
                    None => return Ok(false),
                }
                let go_on = match &mut next {
                    Some(w) => {
                        w.write(&r, &self.env)?;
                        true
                    }
                    None if !r.matched && left => {
                        self.descend(i + 1, std::mem::take(&mut r.row), ctx)?
                    }
                    None => true,
                };
                if !go_on {
                    return Ok(false);
                }
            }
            match next {
                Some(w) => probe = w.finish()?,
                None => return Ok(true),
            }
        }
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

/// Reads a hash step's FROM item once, filtered by its local conditions, into a hash table on
/// its keys, partitioned past `budget` bytes (spooled for the `first` step).
#[allow(clippy::too_many_arguments)]
fn build<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    step: &JoinStep,
    keys: &[HashKey],
    first: bool,
    budget: usize,
    env: &SpillEnv<'_>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Built> {
    let jt = &p.from[step.item];
    let key_cols = keys.iter().map(|(c, _, coll)| (*c, *coll)).collect();
    let mut b = HashBuild::new(key_cols, budget, first);
    match (&jt.source, step.read()) {
        (Source::Table(t), Some(read)) => {
            // the table's rows, asked for only if the rows pass the budget (to size the chunks)
            let inst = s.inst.clone();
            let expected = || match inst.stats.get(&inst.storage, t) {
                Some(st) => st.rows,
                None => inst.storage.table_stats(t).map_or(0, |(rows, _, _)| rows),
            };
            let scan = Scan::for_block(p, &jt.name);
            let mut n = 0u64;
            let planned = fetch_each(
                s,
                t,
                read,
                step.local.as_ref(),
                &[],
                ctx,
                &scan,
                &mut |_, _, r| {
                    n += 1;
                    b.push(r, env, &expected)?;
                    Ok(true)
                },
            )?;
            crate::exec::trace::read(&jt.name, t, read, planned, n, 1);
        }
        (Source::Table(_), None) => return Err(Error::internal("hash step without a read")),
        (other, _) => {
            let mut all = crate::exec::query::materialize(s, other, ctx)?;
            let len = all.len();
            let expected = || len;
            while let Some(r) = all.next_row()? {
                if let Some(f) = &step.local {
                    if !f.eval_bool(&r, ctx)? {
                        continue;
                    }
                }
                b.push(r, env, &expected)?;
            }
        }
    }
    b.finish()
}

fn all_true(conds: &[Expr], r: &[Value], ctx: &mut EvalCtx<'_>) -> Result<bool> {
    for c in conds {
        if !c.eval_bool(r, ctx)? {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {

    use crate::exec::test_client::Recorder;
    use crate::session::session::test_support::{ok, rows, session};
    use crate::Output;

    type S = crate::Session<storage::mem::MemEngine>;

    /// The rows `sql` streams to a client (the path that stops a join at LIMIT).
    fn streamed(s: &mut S, sql: &str) -> Vec<Vec<String>> {
        let mut rec = Recorder::default();
        let mut out = s.query_with_files(sql, false, &mut rec);
        match out.pop() {
            Some(Ok(Output::RowsSent { .. })) => rec.rows,
            other => panic!("{sql}: {other:?}"),
        }
    }

    fn sorted(mut r: Vec<Vec<String>>) -> Vec<Vec<String>> {
        r.sort();
        r
    }

    fn status(s: &mut S, name: &str) -> u64 {
        rows(s, &format!("SHOW GLOBAL STATUS LIKE '{name}'"))[0][1]
            .parse()
            .expect("counter")
    }

    /// Three tables without indexes on their join columns (so every join is a hash join), with
    /// duplicate and NULL keys on every side.
    fn tables(s: &mut S) {
        ok(
            s,
            "CREATE TABLE a (id INT PRIMARY KEY, k INT, v VARCHAR(20))",
        );
        ok(s, "CREATE TABLE b (id INT PRIMARY KEY, k INT, w INT)");
        ok(
            s,
            "CREATE TABLE c (id INT PRIMARY KEY, k2 INT, z VARCHAR(10))",
        );
        let insert = |s: &mut S, t: &str, n: i64, row: &dyn Fn(i64) -> String| {
            for chunk in (0..n).collect::<Vec<_>>().chunks(500) {
                let values: Vec<String> = chunk.iter().map(|i| row(*i)).collect();
                ok(s, &format!("INSERT INTO {t} VALUES {}", values.join(",")));
            }
        };
        insert(s, "a", 3000, &|i| {
            let k = if i % 17 == 0 {
                "NULL".into()
            } else {
                (i % 400).to_string()
            };
            format!("({i}, {k}, 'v{}')", i % 13)
        });
        insert(s, "b", 2000, &|i| {
            let k = if i % 11 == 0 {
                "NULL".into()
            } else {
                ((i * 7) % 500).to_string()
            };
            format!("({i}, {k}, {})", i % 50)
        });
        insert(s, "c", 300, &|i| {
            let k2 = if i % 9 == 0 {
                "NULL".into()
            } else {
                (i % 60).to_string()
            };
            // upper case: equal to a.v's values under the default (case-insensitive) collation
            format!("({i}, {k2}, 'V{}')", i % 17)
        });
        // skewed: most rows have key 5, more than the smallest buffer holds
        ok(s, "CREATE TABLE sk (id INT PRIMARY KEY, k INT, t INT)");
        insert(s, "sk", 1500, &|i| {
            let k = match i {
                _ if i % 13 == 0 => "NULL".into(),
                _ if i % 5 != 0 => "5".into(),
                _ => (i % 50).to_string(),
            };
            format!("({i}, {k}, {})", i % 3)
        });
    }

    const QUERIES: &[&str] = &[
        "SELECT a.id, b.id FROM a JOIN b ON a.k = b.k",
        "SELECT a.id, b.id, b.w FROM a LEFT JOIN b ON a.k = b.k AND b.w > a.id % 40",
        "SELECT a.id, b.id, c.id FROM a JOIN b ON a.k = b.k JOIN c ON c.k2 = b.w \
         WHERE a.id < 700",
        "SELECT a.id, b.id, c.id FROM a LEFT JOIN b ON a.k = b.k AND b.w < 25 \
         LEFT JOIN c ON c.k2 = b.w AND c.z <> 'V3' WHERE a.id < 900",
        "SELECT a.id, c.id FROM a JOIN c ON c.z = a.v AND c.id % 7 <> a.id % 5",
        // most keys of a have no partner in c: chunks without build rows null-extend
        "SELECT a.id, c.id, c.z FROM a LEFT JOIN c ON c.k2 = a.k WHERE a.id < 1200",
        "SELECT a.id, d.id FROM a JOIN (SELECT id, k FROM b WHERE w < 30 LIMIT 100000) d \
         ON d.k = a.k",
        // a chunk far larger than the buffer: joined in several passes
        "SELECT a.id, sk.id FROM a LEFT JOIN sk ON sk.k = a.k AND sk.t = a.id % 3 \
         AND sk.id % 7 <> a.id % 7 WHERE a.id < 1000",
    ];

    /// Hash joins whose tables pass `join_buffer_size` go through chunk files and give the
    /// rows the in-memory join gives: inner and LEFT joins, NULL and duplicate keys, two
    /// partitioned steps chained, conditions beside the equality, string keys under a
    /// case-insensitive collation, a derived table, a skewed key.
    #[test]
    fn partitioned_hash_joins_equal_in_memory_ones() {
        let mut s = session();
        tables(&mut s);
        for sql in QUERIES {
            let tree = rows(&mut s, &format!("EXPLAIN FORMAT=TREE {sql}"))[0][0].clone();
            let want_hash = if sql.contains("JOIN c") && sql.contains("JOIN b") {
                2
            } else {
                1
            };
            assert_eq!(
                tree.matches("hash join").count(),
                want_hash,
                "{sql}\n{tree}"
            );
        }
        // the largest buffer: every table in memory
        ok(&mut s, "SET join_buffer_size = 18446744073709551615");
        let files = status(&mut s, "Created_tmp_files");
        let want: Vec<_> = QUERIES
            .iter()
            .map(|sql| sorted(rows(&mut s, sql)))
            .collect();
        assert_eq!(status(&mut s, "Created_tmp_files"), files);
        assert!(want.iter().all(|w| w.len() > 300), "joins of some size");
        // the smallest buffer (32 KiB in effect): every join partitioned
        ok(&mut s, "SET join_buffer_size = 128");
        for (sql, want) in QUERIES.iter().zip(&want) {
            let (files, disk) = (
                status(&mut s, "Created_tmp_files"),
                status(&mut s, "Created_tmp_disk_tables"),
            );
            assert_eq!(&sorted(rows(&mut s, sql)), want, "{sql}");
            assert!(status(&mut s, "Created_tmp_files") > files + 2, "{sql}");
            let chained = u64::from(sql.contains("JOIN c") && sql.contains("JOIN b"));
            assert_eq!(
                status(&mut s, "Created_tmp_disk_tables"),
                disk + 1 + chained,
                "{sql}"
            );
            assert_eq!(&sorted(streamed(&mut s, sql)), want, "{sql} streamed");
        }
        // the default: the larger tables partitioned
        ok(&mut s, "SET join_buffer_size = DEFAULT");
        for (sql, want) in QUERIES.iter().zip(&want) {
            assert_eq!(&sorted(rows(&mut s, sql)), want, "{sql}");
        }
    }

    /// A LIMIT stops a partitioned join early; its rows are rows of the whole join.
    #[test]
    fn a_limit_stops_a_partitioned_join() {
        let mut s = session();
        tables(&mut s);
        let sql = "SELECT a.id, b.id FROM a JOIN b ON a.k = b.k";
        let all = sorted(rows(&mut s, sql));
        ok(&mut s, "SET join_buffer_size = 128");
        for limit in [1, 25, 1000] {
            let got = streamed(&mut s, &format!("{sql} LIMIT {limit}"));
            assert_eq!(got.len(), limit, "LIMIT {limit}");
            assert!(got.iter().all(|r| all.binary_search(r).is_ok()));
        }
        let got = streamed(
            &mut s,
            "SELECT a.id, b.id FROM a LEFT JOIN b ON a.k = b.k LIMIT 10",
        );
        assert_eq!(got.len(), 10);
    }

    /// A build side larger than `max_session_mem_used` goes to disk instead of failing with
    /// 1290, whatever `join_buffer_size` says.
    #[test]
    fn a_table_over_the_memory_limit_spills() {
        let mut s = session();
        tables(&mut s);
        let sql = "SELECT COUNT(*), SUM(a.id), SUM(b.id) FROM a JOIN b ON a.k = b.k";
        let want = streamed(&mut s, sql);
        ok(&mut s, "SET join_buffer_size = 1073741824");
        ok(&mut s, "SET max_session_mem_used = 65536");
        let files = status(&mut s, "Created_tmp_files");
        assert_eq!(streamed(&mut s, sql), want);
        assert!(status(&mut s, "Created_tmp_files") > files);
    }

    /// `join_buffer_size`: MySQL's default, bounds and block size, session and global.
    #[test]
    fn join_buffer_size_is_a_bounded_variable() {
        let mut s = session();
        let get = |s: &mut S, v: &str| rows(s, &format!("SELECT @@{v}"))[0][0].clone();
        assert_eq!(get(&mut s, "join_buffer_size"), "262144");
        for (set, want) in [
            ("1", "128"),
            ("-5", "128"),
            ("1000", "896"),
            ("1048576", "1048576"),
            ("18446744073709551615", "18446744073709547520"),
        ] {
            ok(&mut s, &format!("SET join_buffer_size = {set}"));
            assert_eq!(get(&mut s, "join_buffer_size"), want, "{set}");
            assert_eq!(get(&mut s, "session.join_buffer_size"), want, "{set}");
        }
        assert_eq!(get(&mut s, "global.join_buffer_size"), "262144");
        ok(&mut s, "SET GLOBAL join_buffer_size = 200");
        assert_eq!(get(&mut s, "global.join_buffer_size"), "128");
        ok(&mut s, "SET SESSION join_buffer_size = DEFAULT");
        assert_eq!(get(&mut s, "join_buffer_size"), "128");
        ok(&mut s, "SET GLOBAL join_buffer_size = DEFAULT");
        assert_eq!(get(&mut s, "global.join_buffer_size"), "262144");
        let shown = rows(&mut s, "SHOW VARIABLES LIKE 'join_buffer_size'");
        assert_eq!(
            shown,
            vec![vec!["join_buffer_size".to_string(), "262144".into()]]
        );
    }
}
