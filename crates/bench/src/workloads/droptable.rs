//! droptable (reference notes §2.12, §10 rows 4–6): fill the cache with a big table, then
//! create and drop many small tables; drops/s and the total time, then the time to drop the
//! big table itself.

use std::time::Instant;

use anyhow::Result;
use mysql::prelude::Queryable;

use super::{
    load_sbtest, load_sbtest_with, mib_str, scan_table, Ctx, Params, Unit, SBTEST_ROW_BYTES,
};
use crate::chart::ChartSpec;
use crate::client::fresh_database;
use crate::report::{Better, Outcome};
use crate::stats::percentile;

const DB_FILL: &str = "bench_drop_fill";
const DB: &str = "bench_drop";
const CHART: &str = "droptable-cumulative";

/// The droptable workload.
#[derive(Debug, Clone)]
pub struct DropTable {
    /// Small tables to create and drop.
    pub tables: u64,
    /// Rows per small table.
    pub rows_per_table: u64,
    /// Rows of the cache-filling table.
    pub fill_rows: u64,
    /// Cache budget (for the parameters).
    pub cache_bytes: u64,
    /// Rows of the partition dropped with ALTER TABLE … DROP PARTITION (0 = skip).
    pub partition_rows: u64,
}

impl DropTable {
    /// From the parameters.
    pub fn new(p: &Params) -> DropTable {
        DropTable {
            tables: p.drop_tables.max(1),
            rows_per_table: p.drop_rows_per_table,
            fill_rows: p
                .drop_fill_rows
                .unwrap_or_else(|| (3 * p.cache_bytes() / 2).div_ceil(SBTEST_ROW_BYTES)),
            cache_bytes: p.cache_bytes(),
            partition_rows: p.drop_partition_rows,
        }
    }
}

/// The reference's small table (`ts_$i` in database `test2`).
pub fn small_table_ddl(i: u64) -> String {
    format!(
        "CREATE TABLE ts_{i} (begin_time INT(11) NOT NULL, end_time INT(11) NOT NULL, \
         PRIMARY KEY (begin_time))"
    )
}

impl Unit for DropTable {
    fn workload(&self) -> &'static str {
        "droptable"
    }

    fn title(&self) -> String {
        format!(
            "droptable: drop {} small tables with a full cache",
            self.tables
        )
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("small tables".into(), self.tables.to_string()),
            (
                "rows per small table".into(),
                self.rows_per_table.to_string(),
            ),
            (
                "cache-filling table rows".into(),
                self.fill_rows.to_string(),
            ),
            (
                "≈ its size (224 B/row)".into(),
                mib_str(self.fill_rows * SBTEST_ROW_BYTES),
            ),
            ("cache".into(), mib_str(self.cache_bytes)),
            (
                "rows of the dropped partition".into(),
                self.partition_rows.to_string(),
            ),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![ChartSpec::new(
            CHART,
            "droptable: cumulative seconds vs tables dropped",
            "tables dropped",
            "seconds since the first DROP",
        )]
    }

    fn notes(&self) -> Vec<String> {
        vec![
            "The cache is filled by loading an sbtest-like table of 1.5× the cache and reading it \
             fully twice; then the small tables are created (one row batch each) and dropped one \
             by one from one connection; finally the big table itself is dropped. Then an \
             sbtest-like table partitioned BY RANGE (id) into p0 (all loaded rows) and p1 \
             (empty) is loaded and p0 is dropped with ALTER TABLE … DROP PARTITION (issue 5: \
             under a second for 1M rows)."
                .into(),
        ]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        fresh_database(&mut conn, DB_FILL)?;
        load_sbtest(ctx, DB_FILL, "sbtest1", self.fill_rows)?;
        conn.query_drop(format!("USE {DB_FILL}"))?;
        let mut out = Outcome::default();
        scan_table(&mut conn, "sbtest1")?;
        let scan = scan_table(&mut conn, "sbtest1")?;
        out.fig(
            "second full scan of the filled table",
            "s",
            scan.as_secs_f64(),
            Better::Lower,
        );

        fresh_database(&mut conn, DB)?;
        conn.query_drop(format!("USE {DB}"))?;
        let pb = ctx.bar(self.tables, "droptable: create");
        let t = Instant::now();
        for i in 0..self.tables {
            conn.query_drop(small_table_ddl(i))?;
            if self.rows_per_table > 0 {
                let vals: Vec<String> = (0..self.rows_per_table)
                    .map(|r| format!("({r},{})", r + 60))
                    .collect();
                conn.query_drop(format!("INSERT INTO ts_{i} VALUES {}", vals.join(",")))?;
            }
            pb.inc(1);
        }
        let create = t.elapsed().as_secs_f64();
        pb.finish_and_clear();
        out.fig(
            "creates/s (with rows)",
            "1/s",
            self.tables as f64 / create,
            Better::Higher,
        );

        let pb = ctx.bar(self.tables, "droptable: drop");
        let mut lat = Vec::with_capacity(self.tables as usize);
        let mut points = Vec::new();
        let step = (self.tables / 50).max(1);
        let t = Instant::now();
        for i in 0..self.tables {
            let d = Instant::now();
            conn.query_drop(format!("DROP TABLE ts_{i}"))?;
            lat.push(d.elapsed().as_secs_f64() * 1000.0);
            if (i + 1) % step == 0 || i + 1 == self.tables {
                points.push(((i + 1) as f64, t.elapsed().as_secs_f64()));
            }
            pb.inc(1);
        }
        let total = t.elapsed().as_secs_f64();
        pb.finish_and_clear();
        ctx.say(&format!("droptable: {} drops in {total:.2} s", self.tables));
        out.fig(
            format!("total time for {} drops", self.tables),
            "s",
            total,
            Better::Lower,
        );
        out.fig("drops/s", "1/s", self.tables as f64 / total, Better::Higher);
        out.fig(
            "p95 drop latency",
            "ms",
            percentile(&mut lat, 95.0),
            Better::Lower,
        );
        out.fig(
            "max drop latency",
            "ms",
            percentile(&mut lat, 100.0),
            Better::Lower,
        );
        out.line(CHART, "", points);

        let t = Instant::now();
        conn.query_drop(format!("DROP TABLE {DB_FILL}.sbtest1"))?;
        out.fig(
            format!("DROP of the filled table ({} rows)", self.fill_rows),
            "s",
            t.elapsed().as_secs_f64(),
            Better::Lower,
        );
        if self.partition_rows > 0 {
            let n = self.partition_rows;
            load_sbtest_with(
                ctx,
                DB,
                "parted",
                n,
                &format!(
                    " PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN ({}), \
                     PARTITION p1 VALUES LESS THAN MAXVALUE)",
                    n + 1
                ),
            )?;
            let t = Instant::now();
            conn.query_drop("ALTER TABLE parted DROP PARTITION p0")?;
            out.fig(
                format!("DROP PARTITION of a partition holding {n} rows"),
                "s",
                t.elapsed().as_secs_f64(),
                Better::Lower,
            );
            let left: Option<u64> = conn.query_first("SELECT COUNT(*) FROM parted")?;
            anyhow::ensure!(left == Some(0), "rows left after DROP PARTITION: {left:?}");
        }
        if ctx.cleanup {
            conn.query_drop(format!("DROP DATABASE {DB}"))?;
            conn.query_drop(format!("DROP DATABASE {DB_FILL}"))?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_table() {
        assert_eq!(
            small_table_ddl(7),
            "CREATE TABLE ts_7 (begin_time INT(11) NOT NULL, end_time INT(11) NOT NULL, \
             PRIMARY KEY (begin_time))"
        );
    }
}
