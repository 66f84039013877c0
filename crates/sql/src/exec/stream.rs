//! Streaming a SELECT block to the client: when nothing between the table scan and the client
//! has to see every row first, each row is filtered, projected and handed to the client's row
//! sink ([`common::client::RowSink`]) as the storage iterator yields it, so `SELECT * FROM t`
//! or a dump of a table of any size holds one row at a time, not the result.
//!
//! Streamed today: one base table (partitioned ones too, a partition at a time is still
//! collected by `catalog::partition::fetch`), WHERE, the select list, LIMIT / OFFSET. Not
//! streamed (the block's rows are collected by [`crate::exec::select::run_plan`]): joins,
//! GROUP BY and aggregates, DISTINCT, HAVING, window functions, ORDER BY, subqueries.

use common::client::RowSink;
use common::{ColumnMeta, Result, Value};
use storage::engine::KvEngine;

use crate::exec::fetch::{fetch_each, Scan};
use crate::exec::select::{eval_limit, movable_items};
use crate::ir::block::Plan;
use crate::ir::expr::{EvalCtx, Expr};
use crate::session::session::Session;

/// True when [`run`] can produce `p`'s rows in scan order, one at a time.
pub fn streamable(p: &Plan) -> bool {
    p.single_table().is_some()
        && !p.grouped
        && !p.distinct
        && p.having.is_none()
        && p.order.is_empty()
        && p.aggs.is_empty()
        && !p.has_subquery()
}

/// Sends `p`'s result to `sink` (the column definitions, then each row as the scan yields
/// it) and returns the number of rows sent. `p` must be [`streamable`].
pub fn run<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    columns: Vec<ColumnMeta>,
    status: u16,
    ctx: &mut EvalCtx<'_>,
    sink: &mut dyn RowSink,
) -> Result<u64> {
    let Some(t) = p.single_table().cloned() else {
        return Err(common::Error::internal(
            "streamed a block without one base table",
        ));
    };
    let limit = eval_limit(&p.limit, ctx)?;
    let offset = eval_limit(&p.offset, ctx)?.unwrap_or(0);
    sink.columns(columns, status)?;
    if limit == Some(0) {
        return Ok(0);
    }
    let scan = Scan {
        lock: p.lock,
        order_hint: None,
        limit_hint: limit.map(|l| l.saturating_add(offset) as usize),
        cols: p.used_columns(t.columns.len()),
    };
    let stats = s.inst.stats.get(s.storage(), &t);
    let read = crate::plan::physical::plan_table(&t, p.filter.as_ref(), None, stats.as_deref());
    let movable = movable_items(&p.items);
    let mut sent = 0u64;
    let mut skipped = 0u64;
    let mut out: Vec<Value> = Vec::with_capacity(p.items.len());
    let planned = fetch_each(
        s,
        &t,
        &read,
        p.filter.as_ref(),
        &[],
        ctx,
        &scan,
        &mut |ctx, _, mut row| {
            if skipped < offset {
                skipped += 1;
                return Ok(true);
            }
            out.clear();
            for (e, m) in p.items.iter().zip(&movable) {
                out.push(match (m, e) {
                    // the row is dropped after this: move its value rather than copy it
                    (true, Expr::Col(i)) if *i < row.len() => {
                        std::mem::replace(&mut row[*i], Value::Null)
                    }
                    _ => e.eval(&row, ctx)?,
                });
            }
            sink.row(&out)?;
            sent += 1;
            Ok(limit.is_none_or(|l| sent < l))
        },
    )?;
    crate::exec::trace::read(&p.from[0].name, &t, &read, planned);
    Ok(sent)
}

#[cfg(test)]
mod tests {
    use common::client::{Client, RowSink};
    use common::{ColumnMeta, Result, Value};

    use crate::session::session::test_support::{ok, rows, session};
    use crate::Output;

    /// A client that records what is streamed to it.
    #[derive(Default)]
    struct Recorder {
        columns: Vec<String>,
        rows: Vec<Vec<String>>,
    }

    impl RowSink for Recorder {
        fn columns(&mut self, columns: Vec<ColumnMeta>, _status: u16) -> Result<()> {
            self.columns = columns.iter().map(|c| c.name.clone()).collect();
            Ok(())
        }
        fn row(&mut self, row: &[Value]) -> Result<()> {
            self.rows.push(row.iter().map(|v| v.to_string()).collect());
            Ok(())
        }
    }

    impl Client for Recorder {
        fn open(&mut self, _: &str) -> Result<Box<dyn std::io::Read + '_>> {
            Err(common::client::local_files_disabled())
        }
        fn rows(&mut self) -> Option<&mut dyn RowSink> {
            Some(self)
        }
    }

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
        for (sql, streamed) in [
            ("SELECT * FROM t", true),
            ("SELECT a, b + 1, id FROM t WHERE b = 5", true),
            ("SELECT id FROM t WHERE id > 1 LIMIT 2", true),
            ("SELECT id FROM t LIMIT 2 OFFSET 3", true),
            ("SELECT id, b, b FROM t WHERE b > 1 LIMIT 1, 1", true),
            ("SELECT id FROM t LIMIT 0", true),
            ("SELECT id FROM t ORDER BY b", false),
            ("SELECT b, COUNT(*) FROM t GROUP BY b", false),
            ("SELECT DISTINCT b FROM t", false),
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
}
