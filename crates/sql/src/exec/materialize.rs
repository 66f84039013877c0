//! A derived table's or a CTE's rows, materialised once for the join that reads them: held in
//! memory up to the in-memory temporary table's size (`min(tmp_table_size,
//! max_heap_table_size)`, as MySQL's internal temporary tables), written to one unnamed
//! temporary file past it and read back in the order produced. A streamable query
//! ([`crate::exec::stream::streamable`]) hands its rows to a [`Materializer`] one at a time (it
//! is a [`RowSink`]), so a derived table of any size takes the budget's memory, not its own.
//!
//! Counts as MySQL does: `Created_tmp_tables` per materialisation, `Created_tmp_disk_tables`
//! and `Created_tmp_files` when it goes to disk. May use: `exec::spill`, `runtime::limits`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use common::client::RowSink;
use common::{ColumnMeta, Result, Value};

use crate::exec::spill::{decode_values, encode_values, SpillReader, SpillWriter};
use crate::runtime::limits::row_size;

/// Counters a materialisation bumps.
pub struct TmpCounters<'a> {
    /// Created_tmp_disk_tables.
    pub disk_tables: &'a AtomicU64,
    /// Created_tmp_files.
    pub tmp_files: &'a AtomicU64,
}

/// Rows being materialised.
pub struct Materializer<'a> {
    rows: Vec<Vec<Value>>,
    bytes: usize,
    budget: usize,
    dir: PathBuf,
    counters: TmpCounters<'a>,
    file: Option<SpillWriter>,
    on_disk: u64,
    rec: Vec<u8>,
}

impl<'a> Materializer<'a> {
    /// Rows held in memory up to `budget` bytes, then written to a file in `dir`.
    pub fn new(budget: usize, dir: PathBuf, counters: TmpCounters<'a>) -> Materializer<'a> {
        Materializer {
            rows: Vec::new(),
            bytes: 0,
            budget,
            dir,
            counters,
            file: None,
            on_disk: 0,
            rec: Vec::new(),
        }
    }

    /// Adds a row.
    ///
    /// # Errors
    /// 1026 when the file cannot be written.
    pub fn push(&mut self, row: Vec<Value>) -> Result<()> {
        if self.file.is_none() {
            self.bytes += row_size(&row);
            if self.bytes <= self.budget {
                self.rows.push(row);
                return Ok(());
            }
            self.file = Some(SpillWriter::create(&self.dir)?);
            self.counters.disk_tables.fetch_add(1, Relaxed);
            self.counters.tmp_files.fetch_add(1, Relaxed);
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        self.rec.clear();
        encode_values(&row, &mut self.rec);
        file.write(&self.rec)?;
        self.on_disk += 1;
        Ok(())
    }

    /// The rows, in the order pushed.
    ///
    /// # Errors
    /// 1026 on a write error.
    pub fn finish(self) -> Result<Materialized> {
        let len = self.rows.len() as u64 + self.on_disk;
        Ok(Materialized {
            mem: self.rows.into_iter(),
            file: self.file.map(SpillWriter::finish).transpose()?,
            len,
            rec: self.rec,
        })
    }
}

impl RowSink for Materializer<'_> {
    fn columns(&mut self, _columns: Vec<ColumnMeta>, _status: u16) -> Result<()> {
        Ok(())
    }

    fn row(&mut self, row: &[Value]) -> Result<()> {
        self.push(row.to_vec())
    }
}

/// Materialised rows, read once in order.
pub struct Materialized {
    mem: std::vec::IntoIter<Vec<Value>>,
    file: Option<SpillReader>,
    len: u64,
    rec: Vec<u8>,
}

impl Materialized {
    /// Rows already in memory (a query that could not stream, a recursive CTE's table).
    pub fn from_rows(rows: Vec<Vec<Value>>) -> Materialized {
        Materialized {
            len: rows.len() as u64,
            mem: rows.into_iter(),
            file: None,
            rec: Vec::new(),
        }
    }

    /// The number of rows.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The next row; None after the last.
    ///
    /// # Errors
    /// 1026 on a read error.
    pub fn next_row(&mut self) -> Result<Option<Vec<Value>>> {
        if let Some(r) = self.mem.next() {
            return Ok(Some(r));
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(None);
        };
        if !file.next(&mut self.rec)? {
            return Ok(None);
        }
        let mut pos = 0;
        decode_values(&self.rec, &mut pos).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_past_the_budget_go_to_a_file_and_come_back_in_order() {
        let (disk, files) = (AtomicU64::new(0), AtomicU64::new(0));
        let counters = TmpCounters {
            disk_tables: &disk,
            tmp_files: &files,
        };
        let mut m = Materializer::new(2_000, std::env::temp_dir(), counters);
        for i in 0..500 {
            m.row(&[Value::Int(i), Value::Str(format!("row {i}")), Value::Null])
                .expect("push");
        }
        let mut rows = m.finish().expect("finish");
        assert_eq!(rows.len(), 500);
        assert_eq!((disk.load(Relaxed), files.load(Relaxed)), (1, 1));
        for i in 0..500 {
            let r = rows.next_row().expect("read").expect("row");
            assert_eq!(r[0], Value::Int(i));
            assert_eq!(r[1], Value::Str(format!("row {i}")));
        }
        assert!(rows.next_row().expect("end").is_none());
    }

    /// A derived table larger than the in-memory temporary table is written to a file and
    /// read back: the same results as in memory, Created_tmp_disk_tables counted.
    #[test]
    fn a_derived_table_past_the_temporary_table_size_goes_to_disk() {
        use crate::session::session::test_support::{ok, rows, session};
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR(20))",
        );
        let values: Vec<String> = (0..3000)
            .map(|i| format!("({i}, {}, 'row {}')", (i * 7919) % 1000, i % 37))
            .collect();
        ok(
            &mut s,
            &format!("INSERT INTO t VALUES {}", values.join(",")),
        );
        let queries = [
            "SELECT COUNT(*), SUM(x.v), MAX(x.s) FROM (SELECT id, v, s FROM t WHERE id % 2 = 0) x",
            "SELECT x.id, t.v FROM (SELECT id FROM t ORDER BY v DESC, id LIMIT 2000) x \
             JOIN t ON t.id = x.id ORDER BY x.id DESC LIMIT 5",
            "WITH c AS (SELECT s, v FROM t WHERE v > 10) SELECT s, COUNT(*), SUM(v) FROM c \
             GROUP BY s ORDER BY s",
            "SELECT * FROM (SELECT id, s FROM t) x WHERE x.id BETWEEN 1500 AND 1504",
        ];
        let want: Vec<_> = queries.iter().map(|q| rows(&mut s, q)).collect();
        let disk = |s: &mut crate::Session<storage::mem::MemEngine>| -> u64 {
            rows(s, "SHOW GLOBAL STATUS LIKE 'Created_tmp_disk_tables'")[0][1]
                .parse()
                .expect("counter")
        };
        ok(&mut s, "SET tmp_table_size = 1024");
        for (q, want) in queries.iter().zip(want) {
            let before = disk(&mut s);
            assert_eq!(rows(&mut s, q), want, "{q}");
            assert!(disk(&mut s) > before, "{q} went to disk");
        }
    }
}
