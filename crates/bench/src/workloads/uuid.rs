//! uuid (reference notes §2.15, §10 row 10): the same events table keyed by a random UUID
//! (`UNHEX(REPLACE(UUID(),'-',''))`), a time-ordered UUID (`UUID_TO_BIN(UUID(),1)`), or a
//! BIGINT AUTO_INCREMENT with a secondary index on a random UUID; the time per 25k-row batch
//! against the rows loaded, and the size on disk.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{bail, Result};
use mysql::prelude::Queryable;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Ctx, Params, Unit};
use crate::chart::ChartSpec;
use crate::client::fresh_database;
use crate::gen;
use crate::report::{Better, Outcome};

const DB: &str = "bench_uuid";

/// The primary-key scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// BINARY(16) from a random-order UUID.
    Random,
    /// BINARY(16) from UUID_TO_BIN(UUID(), 1): time-high first, so keys ascend.
    Ordered,
    /// BIGINT AUTO_INCREMENT primary key plus a random UUID in a secondary index.
    Int,
}

impl KeyKind {
    fn parse(s: &str) -> Result<KeyKind> {
        Ok(match s {
            "random" => KeyKind::Random,
            "ordered" => KeyKind::Ordered,
            "int" => KeyKind::Int,
            other => bail!("unknown uuid key kind '{other}' (random, ordered, int)"),
        })
    }

    fn name(self) -> &'static str {
        match self {
            KeyKind::Random => "random",
            KeyKind::Ordered => "ordered",
            KeyKind::Int => "int",
        }
    }
}

/// The expression giving a time-ordered BINARY(16) UUID.
pub const UUID_TO_BIN: &str = "UUID_TO_BIN(UUID(),1)";

/// MariaDB (10.11) has no UUID_TO_BIN: the same byte order built with string functions from one
/// UUID() per row (kept in a user variable): time-high, time-mid, time-low, clock, node.
pub const UUID_TO_BIN_EMULATED: &str = "UNHEX(CONCAT(SUBSTR(@u:=UUID(),15,4),SUBSTR(@u,10,4),\
     SUBSTR(@u,1,8),SUBSTR(@u,20,4),SUBSTR(@u,25,12)))";

/// A random-order BINARY(16) UUID.
pub const UUID_RANDOM: &str = "UNHEX(REPLACE(UUID(),'-',''))";

/// One key kind.
#[derive(Debug, Clone)]
pub struct Uuid {
    /// Key scheme.
    pub kind: KeyKind,
    /// Rows to insert.
    pub rows: u64,
    /// Rows per timed batch (one transaction).
    pub batch: u64,
    /// Rows per INSERT statement.
    pub per_insert: u64,
    /// Seed.
    pub seed: u64,
}

/// The key kinds requested by the parameters.
pub fn units(p: &Params) -> Result<Vec<Box<dyn Unit>>> {
    if p.uuid_batch == 0 || p.uuid_rows_per_insert == 0 {
        bail!("--uuid-batch and --uuid-rows-per-insert must be at least 1");
    }
    p.uuid_keys
        .iter()
        .map(|k| {
            Ok(Box::new(Uuid {
                kind: KeyKind::parse(k)?,
                rows: p.uuid_rows,
                batch: p.uuid_batch,
                per_insert: p.uuid_rows_per_insert,
                seed: p.seed,
            }) as Box<dyn Unit>)
        })
        .collect()
}

/// The `CREATE TABLE` for a key kind.
pub fn ddl(kind: KeyKind) -> String {
    let cols = "ts DATETIME NOT NULL, user_id INT NOT NULL, kind INT NOT NULL, \
                payload VARCHAR(100) NOT NULL";
    match kind {
        KeyKind::Random | KeyKind::Ordered => {
            format!("CREATE TABLE events (id BINARY(16) NOT NULL, {cols}, PRIMARY KEY (id))")
        }
        KeyKind::Int => format!(
            "CREATE TABLE events (id BIGINT NOT NULL AUTO_INCREMENT, uuid BINARY(16) NOT NULL, \
             {cols}, PRIMARY KEY (id), KEY uuid (uuid))"
        ),
    }
}

/// Builds one INSERT of `n` rows with the given key expression.
pub fn insert_sql<R: Rng>(kind: KeyKind, key_expr: &str, n: u64, rng: &mut R, now: &str) -> String {
    let mut sql = String::with_capacity(n as usize * 110);
    sql.push_str(match kind {
        KeyKind::Int => "INSERT INTO events (uuid, ts, user_id, kind, payload) VALUES ",
        _ => "INSERT INTO events (id, ts, user_id, kind, payload) VALUES ",
    });
    for j in 0..n {
        if j > 0 {
            sql.push(',');
        }
        let len = rng.gen_range(20..80);
        let _ = write!(
            sql,
            "({key_expr},'{now}',{},{},'{}')",
            rng.gen_range(0..1_000_000),
            rng.gen_range(0..20),
            gen::letters(rng, len)
        );
    }
    sql
}

impl Uuid {
    fn chart_id(&self) -> String {
        format!("uuid-{}", self.kind.name())
    }

    fn describe(&self) -> &'static str {
        match self.kind {
            KeyKind::Random => "random UUID() primary key, BINARY(16)",
            KeyKind::Ordered => "UUID_TO_BIN(UUID(),1) primary key (time-ordered), BINARY(16)",
            KeyKind::Int => "BIGINT AUTO_INCREMENT primary key + random UUID secondary index",
        }
    }
}

impl Unit for Uuid {
    fn workload(&self) -> &'static str {
        "uuid"
    }

    fn title(&self) -> String {
        format!("uuid: {}", self.describe())
    }

    fn params(&self) -> Vec<(String, String)> {
        vec![
            ("rows".into(), self.rows.to_string()),
            (
                "rows per batch (one transaction)".into(),
                self.batch.to_string(),
            ),
            ("rows per INSERT".into(), self.per_insert.to_string()),
            ("clients".into(), "1".into()),
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![ChartSpec::new(
            &self.chart_id(),
            &format!(
                "uuid ({}): seconds per {}-row batch",
                self.kind.name(),
                self.batch
            ),
            "rows loaded",
            "seconds per batch",
        )]
    }

    fn run(&self, ctx: &Ctx) -> Result<Outcome> {
        let mut conn = ctx.target.connect(None)?;
        fresh_database(&mut conn, DB)?;
        conn.query_drop(format!("USE {DB}"))?;
        conn.query_drop(ddl(self.kind))?;
        let mut out = Outcome::default();
        let key_expr = match self.kind {
            KeyKind::Random | KeyKind::Int => UUID_RANDOM,
            KeyKind::Ordered => {
                let native: Result<Option<Vec<u8>>, _> =
                    conn.query_first(format!("SELECT {UUID_TO_BIN}"));
                if native.is_ok() {
                    UUID_TO_BIN
                } else {
                    out.notes.push(
                        "this server has no UUID_TO_BIN (MariaDB 10.11): the ordered key is \
                         emulated as UNHEX(CONCAT(SUBSTR(@u:=UUID(),15,4), SUBSTR(@u,10,4), \
                         SUBSTR(@u,1,8), SUBSTR(@u,20,4), SUBSTR(@u,25,12))), the same byte order"
                            .into(),
                    );
                    UUID_TO_BIN_EMULATED
                }
            }
        };
        let before = ctx.disk_now();
        let mut rng = StdRng::seed_from_u64(self.seed);
        let pb = ctx.bar(self.rows, &format!("uuid {}", self.kind.name()));
        let mut points = Vec::new();
        let mut loaded = 0u64;
        let start = Instant::now();
        while loaded < self.rows {
            let n = self.batch.min(self.rows - loaded);
            let t = Instant::now();
            conn.query_drop("BEGIN")?;
            let mut in_batch = 0;
            while in_batch < n {
                let m = self.per_insert.min(n - in_batch);
                let now = chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string();
                conn.query_drop(insert_sql(self.kind, key_expr, m, &mut rng, &now))?;
                in_batch += m;
            }
            conn.query_drop("COMMIT")?;
            loaded += n;
            points.push((loaded as f64, t.elapsed().as_secs_f64()));
            pb.set_position(loaded);
        }
        let secs = start.elapsed().as_secs_f64();
        pb.finish_and_clear();
        ctx.say(&format!(
            "uuid {}: {loaded} rows in {secs:.1} s",
            self.kind.name()
        ));
        let count: Option<u64> = conn.query_first("SELECT COUNT(*) FROM events")?;
        if count != Some(loaded) {
            bail!("events has {count:?} rows, expected {loaded} (duplicate UUIDs?)");
        }
        out.fig("rows loaded", "rows", loaded as f64, Better::Neither);
        out.fig("batches", "", points.len() as f64, Better::Neither);
        out.fig(
            "insert rate",
            "rows/s",
            loaded as f64 / secs,
            Better::Higher,
        );
        if let (Some(first), Some(last)) = (points.first(), points.last()) {
            out.fig("first batch", "s", first.1, Better::Lower);
            out.fig("last batch", "s", last.1, Better::Lower);
            out.fig("last / first batch", "×", last.1 / first.1, Better::Lower);
            let max = points.iter().map(|p| p.1).fold(0.0, f64::max);
            out.fig("slowest batch", "s", max, Better::Lower);
        }
        ctx.size_figures(&mut out, &mut conn, DB, before, loaded)?;
        out.line(&self.chart_id(), "", points);
        if ctx.cleanup {
            conn.query_drop(format!("DROP DATABASE {DB}"))?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_and_inserts() {
        assert!(ddl(KeyKind::Random).contains("id BINARY(16) NOT NULL"));
        assert!(ddl(KeyKind::Int).contains("KEY uuid (uuid)"));
        let mut rng = StdRng::seed_from_u64(1);
        let s = insert_sql(
            KeyKind::Int,
            UUID_RANDOM,
            3,
            &mut rng,
            "2024-01-01 00:00:00",
        );
        assert!(s.starts_with("INSERT INTO events (uuid, ts,"));
        assert_eq!(s.matches(UUID_RANDOM).count(), 3);
        assert!(KeyKind::parse("bogus").is_err());
    }

    #[test]
    fn emulation_reorders_like_uuid_to_bin() {
        // UUID_TO_BIN(u, 1) puts time-high (chars 15..18), then time-mid (10..13), then
        // time-low (1..8), then clock (20..23) and node (25..36): check the SUBSTR positions.
        let u = "6ccd780c-baba-1026-9564-5b8c656024db";
        let sub = |from: usize, len: usize| &u[from - 1..from - 1 + len];
        let swapped = [sub(15, 4), sub(10, 4), sub(1, 8), sub(20, 4), sub(25, 12)].concat();
        assert_eq!(swapped, "1026baba6ccd780c95645b8c656024db");
        for part in [
            "SUBSTR(@u:=UUID(),15,4)",
            "SUBSTR(@u,10,4)",
            "SUBSTR(@u,1,8)",
        ] {
            assert!(UUID_TO_BIN_EMULATED.contains(part));
        }
    }
}
