//! The workloads. Each is split into *units* ([`Unit`]): one variant that runs on one server
//! (in `compare`, each unit gets a fresh server instance) and becomes one report section.

pub mod cache;
pub mod connections;
pub mod droptable;
pub mod iibench;
pub mod manytables;
pub mod mvcc;
pub mod sysbench;
pub mod tpcc;
pub mod uuid;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use clap::{ArgAction, Args};
use indicatif::{ProgressBar, ProgressStyle};
use mysql::prelude::Queryable;
use mysql::Conn;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::chart::ChartSpec;
use crate::client::{self, Target};
use crate::gen;
use crate::machine::mib;
use crate::report::{Better, Outcome};

/// All workload names, in the order `all` runs them.
pub const ALL: [&str; 9] = [
    "iibench",
    "uuid",
    "cache",
    "droptable",
    "manytables",
    "mvcc",
    "sysbench",
    "connections",
    "tpcc",
];

/// Bytes per row of sysbench's `sbtest` table in InnoDB (reference notes §10, row 3), used to
/// turn a size in bytes into a row count.
pub const SBTEST_ROW_BYTES: u64 = 224;

/// Bytes per row of iiBench's `purchases_index` in InnoDB (181 GB for 1 B rows, reference
/// notes §10, row 2), used to size iibench at 10× the cache.
pub const PURCHASES_ROW_BYTES: u64 = 181;

/// Workload parameters (shared by `run` and `compare`).
#[derive(Args, Debug, Clone)]
pub struct Params {
    /// Cache budget in MiB. `compare` gives every server this much (InnoDB buffer pool =
    /// rocksdb_block_cache_size = Strata block + row cache); data sizes default to multiples
    /// of it. In `run` mode, say what the server has.
    #[arg(long, default_value_t = 256)]
    pub cache_mb: u64,
    /// Seed of the random generators.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Client connections used to bulk-load sbtest-like tables (cache, droptable, mvcc).
    #[arg(long, default_value_t = 4)]
    pub load_clients: usize,

    /// iibench: rows to insert per variant [default: enough for 10× the cache at 181 bytes per
    /// row, the reference's InnoDB figure].
    #[arg(long)]
    pub rows: Option<u64>,
    /// iibench: concurrent inserting clients.
    #[arg(long, default_value_t = 5)]
    pub iibench_clients: usize,
    /// iibench: rows per INSERT statement (one variant per value).
    #[arg(long, value_delimiter = ',', default_values_t = [1u64, 100])]
    pub iibench_batch: Vec<u64>,
    /// iibench: table variants: `index` (3 secondary indexes) and/or `noindex`.
    #[arg(long, value_delimiter = ',', default_values_t = ["index".to_string(), "noindex".to_string()])]
    pub iibench_variants: Vec<String>,
    /// iibench: number of intervals the insert rate is reported over.
    #[arg(long, default_value_t = 50)]
    pub iibench_intervals: u64,

    /// uuid: rows to insert per key kind.
    #[arg(long, default_value_t = 1_000_000)]
    pub uuid_rows: u64,
    /// uuid: rows per timed batch (one transaction).
    #[arg(long, default_value_t = 25_000)]
    pub uuid_batch: u64,
    /// uuid: rows per INSERT statement inside a batch.
    #[arg(long, default_value_t = 1000)]
    pub uuid_rows_per_insert: u64,
    /// uuid: key kinds: `random` (UNHEX(REPLACE(UUID(),'-',''))), `ordered`
    /// (UUID_TO_BIN(UUID(),1)), `int` (BIGINT AUTO_INCREMENT + UUID secondary index).
    #[arg(long, value_delimiter = ',', default_values_t = ["random".to_string(), "ordered".to_string(), "int".to_string()])]
    pub uuid_keys: Vec<String>,

    /// cache: rows in the sbtest-like table [default: 50× the cache at 224 bytes per row].
    #[arg(long)]
    pub cache_rows: Option<u64>,
    /// cache: hot-set sizes (distinct rows looked up repeatedly).
    #[arg(long, value_delimiter = ',', default_values_t = [100u64, 400, 1600, 6400, 25600, 102400])]
    pub hot_sets: Vec<u64>,
    /// cache: timed point lookups per hot set.
    #[arg(long, default_value_t = 20_000)]
    pub lookups: u64,
    /// cache: clients doing the lookups.
    #[arg(long, default_value_t = 1)]
    pub cache_clients: usize,

    /// droptable: small tables to create and drop.
    #[arg(long, default_value_t = 1000)]
    pub drop_tables: u64,
    /// droptable: rows inserted into each small table.
    #[arg(long, default_value_t = 10)]
    pub drop_rows_per_table: u64,
    /// droptable: rows of the table loaded first to fill the cache [default: 1.5× the cache
    /// at 224 bytes per row].
    #[arg(long)]
    pub drop_fill_rows: Option<u64>,
    /// droptable: rows of the partition dropped by ALTER TABLE … DROP PARTITION (0 = skip).
    #[arg(long, default_value_t = 1_000_000)]
    pub drop_partition_rows: u64,

    /// manytables: tables to create.
    #[arg(long, default_value_t = 100_000)]
    pub tables: u64,
    /// manytables: tables per database.
    #[arg(long, default_value_t = 1000)]
    pub tables_per_db: u64,
    /// manytables: clients creating tables.
    #[arg(long, default_value_t = 1)]
    pub manytables_clients: usize,

    /// mvcc: rows in the table.
    #[arg(long, default_value_t = 100_000)]
    pub mvcc_rows: u64,
    /// mvcc: clients doing pareto-distributed single-row updates.
    #[arg(long, default_value_t = 16)]
    pub mvcc_clients: usize,
    /// mvcc: seconds per phase (without, then with the scan).
    #[arg(long, default_value_t = 15)]
    pub mvcc_seconds: u64,
    /// mvcc: run all scans in one transaction started WITH CONSISTENT SNAPSHOT (a long
    /// report holding its read view); `false` runs each scan on its own.
    #[arg(long, default_value_t = true, action = ArgAction::Set)]
    pub mvcc_snapshot: bool,

    /// sysbench: tests to run.
    #[arg(long, value_delimiter = ',', default_values_t = ["oltp_point_select".to_string(), "oltp_read_only".to_string(), "oltp_read_write".to_string(), "oltp_insert".to_string(), "oltp_update_index".to_string()])]
    pub sysbench_tests: Vec<String>,
    /// sysbench: thread counts.
    #[arg(long, value_delimiter = ',', default_values_t = [1usize, 8, 64])]
    pub sysbench_threads: Vec<usize>,
    /// sysbench: seconds per run.
    #[arg(long, default_value_t = 10)]
    pub sysbench_time: u64,
    /// sysbench: number of tables.
    #[arg(long, default_value_t = 4)]
    pub sysbench_tables: u64,
    /// sysbench: rows per table.
    #[arg(long, default_value_t = 100_000)]
    pub sysbench_table_size: u64,

    /// connections: sysbench tests run at every thread count.
    #[arg(long, value_delimiter = ',', default_values_t = ["oltp_point_select".to_string(), "oltp_read_write".to_string()])]
    pub conn_tests: Vec<String>,
    /// connections: sysbench thread counts (= concurrently active client connections).
    #[arg(long, value_delimiter = ',', default_values_t = [16usize, 64, 256, 1024, 2048, 4096])]
    pub conn_threads: Vec<usize>,
    /// connections: seconds per sysbench run.
    #[arg(long, default_value_t = 10)]
    pub conn_time: u64,
    /// connections: sysbench tables.
    #[arg(long, default_value_t = 4)]
    pub conn_tables: u64,
    /// connections: rows per sysbench table.
    #[arg(long, default_value_t = 10_000)]
    pub conn_table_size: u64,
    /// connections: target rate of the connect/disconnect storm (connects per second).
    #[arg(long, default_value_t = 1000)]
    pub storm_rate: u64,
    /// connections: seconds the storm lasts.
    #[arg(long, default_value_t = 10)]
    pub storm_seconds: u64,
    /// connections: client threads opening the storm's connections (each connect is scheduled
    /// at its slot of the target rate; enough threads keep slow connects from lowering it).
    #[arg(long, default_value_t = 256)]
    pub storm_clients: usize,
    /// connections: a storm connect that takes longer than this (ms) counts as a timeout.
    #[arg(long, default_value_t = 10_000)]
    pub storm_timeout_ms: u64,

    /// tpcc: warehouses (100k stock rows, 30k customers and 30k orders each, plus the
    /// 100k-row item table). Loaded with --load-clients connections.
    #[arg(long, default_value_t = 10)]
    pub tpcc_warehouses: u32,
    /// tpcc: connection (terminal) counts, one measured run each, in this order, on the
    /// same data.
    #[arg(long, value_delimiter = ',', default_values_t = [8usize, 32])]
    pub tpcc_connections: Vec<usize>,
    /// tpcc: measured seconds per run.
    #[arg(long, default_value_t = 60)]
    pub tpcc_seconds: u64,
    /// tpcc: warm-up seconds before each run's measured seconds (not counted).
    #[arg(long, default_value_t = 5)]
    pub tpcc_warmup: u64,
}

impl Params {
    /// The cache budget in bytes.
    pub fn cache_bytes(&self) -> u64 {
        self.cache_mb << 20
    }
}

/// What a unit needs while it runs.
pub struct Ctx<'a> {
    /// The server.
    pub target: &'a Target,
    /// The parameters.
    pub params: &'a Params,
    /// The server's label (progress messages).
    pub label: &'a str,
    /// Drop what the workload created when it is done (`run` mode; `compare` throws the
    /// whole instance away instead).
    pub cleanup: bool,
}

impl Ctx<'_> {
    /// Prints a progress line.
    pub fn say(&self, msg: &str) {
        eprintln!("[{}] {msg}", self.label);
    }

    /// A progress bar of `len` steps labelled with the server and `what`.
    pub fn bar(&self, len: u64, what: &str) -> ProgressBar {
        let pb = ProgressBar::new(len);
        if let Ok(style) = ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} ({per_sec}, eta {eta})",
        ) {
            pb.set_style(style);
        }
        pb.set_message(format!("[{}] {what}", self.label));
        pb
    }

    /// The data directory's size now, when it is on this machine.
    pub fn disk_now(&self) -> Option<u64> {
        self.target.disk_bytes()
    }

    /// Polls the data directory's size once a second until it is the same twice in a row
    /// (flushes and the compactions they trigger have finished), for at most a minute.
    fn settled_disk(&self) -> u64 {
        let start = Instant::now();
        let mut last = self.disk_now().unwrap_or(0);
        let mut same = 0;
        while same < 2 && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_secs(1));
            let now = self.disk_now().unwrap_or(0);
            same = if now == last { same + 1 } else { 0 };
            last = now;
        }
        last
    }

    /// Adds the "size on disk" figures for database `db` loaded with `rows` rows.
    ///
    /// With the data directory known: InnoDB's file-per-table `.ibd` files of `db` when there
    /// are any (so that ibdata1 or undo growth does not count), otherwise the growth of the
    /// whole data directory since `before` (the RocksDB engines keep every table in shared SST
    /// files plus the write-ahead log), at rest: after the server wrote its memtables to SST
    /// files and the directory stopped changing. The growth right after the load is reported
    /// too. Without the data directory: the server's INFORMATION_SCHEMA sizes.
    pub fn size_figures(
        &self,
        out: &mut Outcome,
        conn: &mut Conn,
        db: &str,
        before: Option<u64>,
        rows: u64,
    ) -> Result<f64> {
        let dir = self.target.datadir.as_ref();
        let growth_since = |now: Option<u64>| match (before, now) {
            (Some(b), Some(a)) => Some(a.saturating_sub(b) as f64),
            _ => None,
        };
        let mut growth = growth_since(self.disk_now());
        let ibd = dir.map(|d| ibd_bytes(&d.join(db))).filter(|&b| b > 0);
        let bytes = if let Some(ibd) = ibd {
            out.notes.push(format!(
                "size on disk = the .ibd files of {db} (file per table); the data directory \
                 growth also counts ibdata1, undo and log files"
            ));
            ibd as f64
        } else if let Some(loaded) = growth {
            match client::flush_memtables(conn) {
                Some(var) => {
                    growth = growth_since(Some(self.settled_disk()));
                    // no per-run numbers in the note: rounds with the same note merge
                    out.notes.push(format!(
                        "size on disk = growth of the data directory during the load (all \
                         files) at rest: after `SET GLOBAL {var} = ON` wrote the memtables to \
                         SST files and the directory's size held still; `size right after the \
                         load` counts recent rows in memtables and the write-ahead log"
                    ));
                    out.fig(
                        "size right after the load",
                        "MiB",
                        loaded / (1u64 << 20) as f64,
                        Better::Lower,
                    );
                }
                None => out.notes.push(
                    "size on disk = growth of the data directory during the load (all files: \
                     SST files and the write-ahead log), measured right after the load"
                        .into(),
                ),
            }
            growth.unwrap_or(loaded)
        } else {
            out.notes.push(
                "size = DATA_LENGTH + INDEX_LENGTH from information_schema.TABLES (the \
                 data directory is not known: pass --datadir)"
                    .into(),
            );
            client::schema_size(conn, db)?.map_or(f64::NAN, |b| b as f64)
        };
        out.fig(
            "size on disk",
            "MiB",
            bytes / (1u64 << 20) as f64,
            Better::Lower,
        );
        if rows > 0 {
            out.fig("bytes per row", "B", bytes / rows as f64, Better::Lower);
        }
        out.fig(
            "data / cache",
            "×",
            bytes / self.params.cache_bytes() as f64,
            Better::Neither,
        );
        if let Some(g) = growth {
            out.fig(
                "data directory growth",
                "MiB",
                g / (1u64 << 20) as f64,
                Better::Lower,
            );
        }
        Ok(bytes)
    }
}

/// Total size of the `*.ibd` files directly in `dir` (InnoDB's file-per-table tablespaces of
/// one database); 0 when there are none.
pub fn ibd_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "ibd"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// One workload variant on one server.
pub trait Unit: Send + Sync {
    /// The workload's name (`iibench`, `uuid`, …).
    fn workload(&self) -> &'static str;
    /// Section heading.
    fn title(&self) -> String;
    /// Parameters for the report.
    fn params(&self) -> Vec<(String, String)>;
    /// Charts this unit's series are drawn in.
    fn charts(&self) -> Vec<ChartSpec>;
    /// Remarks that hold for every server.
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// Runs on the server.
    fn run(&self, ctx: &Ctx) -> Result<Outcome>;
}

/// The units of the named workloads (`all` expands to every workload).
///
/// # Errors
/// On an unknown workload name or an invalid parameter.
pub fn units(names: &[String], p: &Params) -> Result<Vec<Box<dyn Unit>>> {
    let mut expanded: Vec<&str> = Vec::new();
    for n in names {
        for n in n.split(',').filter(|s| !s.is_empty()) {
            if n == "all" {
                expanded.extend(ALL);
            } else if let Some(w) = ALL.iter().find(|w| **w == n) {
                expanded.push(w);
            } else {
                bail!("unknown workload '{n}' (known: {}, all)", ALL.join(", "));
            }
        }
    }
    if expanded.is_empty() {
        bail!("no workload given (known: {}, all)", ALL.join(", "));
    }
    let mut out: Vec<Box<dyn Unit>> = Vec::new();
    for w in expanded {
        match w {
            "iibench" => out.extend(iibench::units(p)?),
            "uuid" => out.extend(uuid::units(p)?),
            "cache" => out.push(Box::new(cache::Cache::new(p))),
            "droptable" => out.push(Box::new(droptable::DropTable::new(p))),
            "manytables" => out.push(Box::new(manytables::ManyTables::new(p))),
            "mvcc" => out.push(Box::new(mvcc::Mvcc::new(p))),
            "sysbench" => out.push(Box::new(sysbench::Sysbench::new(p))),
            "connections" => out.extend(connections::units(p)?),
            "tpcc" => out.extend(tpcc::units(p)?),
            _ => unreachable!("names are checked above"),
        }
    }
    Ok(out)
}

/// `CREATE TABLE` text of the sbtest-like table (sysbench's layout, covering index `k_1`).
pub fn sbtest_ddl(table: &str) -> String {
    format!(
        "CREATE TABLE {table} (id INT NOT NULL, k INT NOT NULL DEFAULT 0, \
         c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', \
         PRIMARY KEY (id), KEY k_1 (k))"
    )
}

/// Creates `db.table` as an sbtest-like table and loads ids `1..=rows` with
/// `params.load_clients` clients in 1000-row INSERTs. Returns the load time.
pub fn load_sbtest(ctx: &Ctx, db: &str, table: &str, rows: u64) -> Result<Duration> {
    load_sbtest_with(ctx, db, table, rows, "")
}

/// [`load_sbtest`] with `suffix` appended to the CREATE TABLE (a partition clause, say).
pub fn load_sbtest_with(
    ctx: &Ctx,
    db: &str,
    table: &str,
    rows: u64,
    suffix: &str,
) -> Result<Duration> {
    let mut conn = ctx.target.connect(Some(db))?;
    conn.query_drop(format!("{}{suffix}", sbtest_ddl(table)))?;
    const CHUNK: u64 = 1000;
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let pb = ctx.bar(rows, &format!("load {table}"));
    let start = Instant::now();
    let seed = ctx.params.seed;
    client::run_clients(
        ctx.target,
        Some(db),
        ctx.params.load_clients.max(1),
        &stop,
        |i, c| {
            let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(7919) + i as u64);
            let mut sql = String::with_capacity(CHUNK as usize * 220);
            loop {
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let first = next.fetch_add(CHUNK, Ordering::SeqCst);
                if first >= rows {
                    return Ok(());
                }
                let n = CHUNK.min(rows - first);
                sql.clear();
                sql.push_str("INSERT INTO ");
                sql.push_str(table);
                sql.push_str(" (id, k, c, pad) VALUES ");
                for j in 0..n {
                    if j > 0 {
                        sql.push(',');
                    }
                    let id = first + j + 1;
                    let k = rng.gen_range(1..=rows.max(1));
                    let cv = gen::digit_groups(&mut rng, 10);
                    let pad = gen::digit_groups(&mut rng, 5);
                    sql.push_str(&format!("({id},{k},'{cv}','{pad}')"));
                }
                c.query_drop(&sql)?;
                let d = done.fetch_add(n, Ordering::Relaxed) + n;
                pb.set_position(d);
            }
        },
    )?;
    pb.finish_and_clear();
    let took = start.elapsed();
    ctx.say(&format!(
        "loaded {rows} rows into {db}.{table} in {:.1} s",
        took.as_secs_f64()
    ));
    Ok(took)
}

/// Reads every row of `db.table` (to pull it into the cache); returns the time taken.
pub fn scan_table(conn: &mut Conn, table: &str) -> Result<Duration> {
    let t = Instant::now();
    let _: Option<(Option<String>, Option<String>)> = conn.query_first(format!(
        "SELECT COUNT(*), SUM(LENGTH(c) + LENGTH(pad) + k) FROM {table}"
    ))?;
    Ok(t.elapsed())
}

/// Formats a byte count as MiB for parameters.
pub fn mib_str(bytes: u64) -> String {
    format!("{:.0} MiB", mib(bytes))
}

/// Whether a MySQL error is a deadlock (1213) or a lock wait timeout (1205), which
/// concurrent workloads retry or count instead of failing.
pub fn is_lock_error(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(me) if me.code == 1213 || me.code == 1205)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct P {
        #[command(flatten)]
        p: Params,
    }

    #[test]
    fn defaults_and_unit_expansion() {
        let p = P::parse_from(["x"]).p;
        assert_eq!(p.cache_bytes(), 256 << 20);
        assert_eq!(p.iibench_batch, vec![1, 100]);
        assert_eq!(p.sysbench_threads, vec![1, 8, 64]);
        let u = units(&["iibench".into()], &p).unwrap();
        assert_eq!(u.len(), 4, "2 table variants × 2 batch sizes");
        let u = units(&["uuid,droptable".into()], &p).unwrap();
        assert_eq!(u.len(), 4);
        assert_eq!(units(&["all".into()], &p).unwrap().len(), 4 + 3 + 5 + 2 + 1);
        assert_eq!(p.tpcc_connections, vec![8, 32]);
        assert_eq!((p.tpcc_warehouses, p.tpcc_seconds), (10, 60));
        assert!(units(&["nope".into()], &p).is_err());
        assert!(units(&[], &p).is_err());
    }

    #[test]
    fn list_parameters() {
        let p = P::parse_from([
            "x",
            "--iibench-batch",
            "10",
            "--iibench-variants",
            "index",
            "--hot-sets",
            "10,20",
            "--mvcc-snapshot",
            "false",
        ])
        .p;
        assert_eq!(p.iibench_batch, vec![10]);
        assert_eq!(p.hot_sets, vec![10, 20]);
        assert!(!p.mvcc_snapshot);
        assert_eq!(units(&["iibench".into()], &p).unwrap().len(), 1);
        let p = P::parse_from(["x", "--tpcc-connections", "4,16", "--tpcc-warehouses", "2"]).p;
        assert_eq!(p.tpcc_connections, vec![4, 16]);
        assert_eq!(units(&["tpcc".into()], &p).unwrap().len(), 1);
        let p = P::parse_from(["x", "--tpcc-warehouses", "0"]).p;
        assert!(units(&["tpcc".into()], &p).is_err());
        let p = P::parse_from(["x", "--tpcc-connections", "0"]).p;
        assert!(units(&["tpcc".into()], &p).is_err());
    }

    #[test]
    fn ibd_files_only() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(ibd_bytes(dir.path()), 0);
        std::fs::write(dir.path().join("t.ibd"), vec![0u8; 1000]).unwrap();
        std::fs::write(dir.path().join("t.frm"), vec![0u8; 500]).unwrap();
        assert_eq!(ibd_bytes(dir.path()), 1000);
        assert_eq!(ibd_bytes(&dir.path().join("missing")), 0);
    }

    #[test]
    fn sbtest_table_text() {
        let d = sbtest_ddl("sbtest1");
        assert!(d.starts_with("CREATE TABLE sbtest1 (id INT NOT NULL"));
        assert!(d.ends_with("PRIMARY KEY (id), KEY k_1 (k))"));
    }
}
