//! End-to-end check of the sqlx MySQL driver against a running Strata server.
//!
//! Usage: `STRATA_HOST=127.0.0.1 STRATA_PORT=3306 cargo run --release` (or `-- HOST PORT`).
//! sqlx prepares every `sqlx::query` (COM_STMT_PREPARE, binary protocol) and checks each column's
//! type metadata before decoding (its type-inference path), so wrong column types or flags fail
//! here. `raw_sql` covers the text protocol. Exits non-zero naming the first mismatch.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use rust_decimal::Decimal;
use sqlx::mysql::types::{MySqlTime, MySqlTimeSign};
use sqlx::mysql::{MySqlConnectOptions, MySqlConnection, MySqlDatabaseError, MySqlSslMode};
use sqlx::{Connection, Executor, Row};
use std::str::FromStr;

type Res<T> = Result<T, String>;

macro_rules! ensure {
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            return Err(format!($($arg)+));
        }
    };
}

fn ctx<T, E: std::fmt::Display>(r: Result<T, E>, what: &str) -> Res<T> {
    r.map_err(|e| format!("{what}: {e}"))
}

const VC: &str = "héllo wörld ✓ 😀 日本語";
fn tx_text() -> String {
    "quote ' dq \" bs \\ pct % 😀€ tab\t nl\n".repeat(20)
}
fn blob() -> Vec<u8> {
    let mut b: Vec<u8> = (0..=255u8).collect();
    b.extend_from_slice(&[0x00, 0xFF, 0x27, 0x5C, 0x22, 0x00]);
    b
}
const VARBIN: &[u8] = &[0x00, 0xFF, 0x27, 0x5C, 0x00];

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02X}")).collect()
}

const DDL: &str = "CREATE TABLE t (
  id INT PRIMARY KEY,
  i INT, bi BIGINT, ubi BIGINT UNSIGNED, ti TINYINT,
  d DECIMAL(20,6), f FLOAT, db DOUBLE,
  dt DATE, dtm DATETIME(6), tm TIME, ts TIMESTAMP(6) NULL,
  vc VARCHAR(100), tx TEXT, bl BLOB, vb VARBINARY(64), b BOOL
) DEFAULT CHARSET=utf8mb4";

// what the server holds, as text through SQL functions (independent of sqlx's decoding)
const SERVER_VIEW: &str = "SELECT CAST(id AS CHAR), CAST(i AS CHAR), CAST(bi AS CHAR), CAST(ubi AS CHAR),
  CAST(ti AS CHAR), CAST(d AS CHAR), CAST(f AS CHAR), CAST(db AS CHAR), CAST(dt AS CHAR), CAST(dtm AS CHAR),
  CAST(tm AS CHAR), CAST(ts AS CHAR), HEX(vc), HEX(tx), HEX(bl), HEX(vb), CAST(b AS CHAR) FROM t ORDER BY id";

fn expected_view() -> Vec<Vec<Option<String>>> {
    let s = |v: &[&str]| {
        v.iter()
            .map(|x| {
                if *x == "NULL" {
                    None
                } else {
                    Some(x.to_string())
                }
            })
            .collect()
    };
    let (vc, tx, bl, vb) = (
        hex(VC.as_bytes()),
        hex(tx_text().as_bytes()),
        hex(&blob()),
        hex(VARBIN),
    );
    vec![
        s(&[
            "1",
            "-2147483648",
            "-9223372036854775808",
            "18446744073709551615",
            "-128",
            "-99999999999999.999999",
            "1.5",
            "-1234.5678",
            "2024-02-29",
            "2024-02-29 23:59:58.123456",
            "13:45:30",
            "2001-02-03 04:05:06.789012",
            &vc,
            &tx,
            &bl,
            &vb,
            "1",
        ]),
        s(&[
            "2",
            "2147483647",
            "9223372036854775807",
            "0",
            "127",
            "0.000001",
            "-0.25",
            "0.1",
            "1000-01-01",
            "9999-12-31 23:59:59.999999",
            "-838:59:59",
            "2038-01-19 03:14:07.500000",
            "",
            "",
            "",
            "",
            "0",
        ]),
        s(&[
            "3", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
            "NULL", "NULL", "NULL", "NULL", "NULL", "NULL",
        ]),
    ]
}

#[derive(sqlx::FromRow, Debug)]
struct TypesRow {
    id: i32,
    i: Option<i32>,
    bi: Option<i64>,
    ubi: Option<u64>,
    ti: Option<i8>,
    d: Option<Decimal>,
    f: Option<f32>,
    db: Option<f64>,
    dt: Option<NaiveDate>,
    dtm: Option<NaiveDateTime>,
    tm: Option<MySqlTime>,
    ts: Option<DateTime<Utc>>,
    vc: Option<String>,
    tx: Option<String>,
    bl: Option<Vec<u8>>,
    vb: Option<Vec<u8>>,
    b: Option<bool>,
}

fn ndt(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, us: u32) -> NaiveDateTime {
    NaiveDate::from_ymd_opt(y, mo, d)
        .unwrap()
        .and_hms_micro_opt(h, mi, s, us)
        .unwrap()
}

fn db_error(e: &sqlx::Error) -> Option<(u16, String)> {
    match e {
        sqlx::Error::Database(d) => {
            let m = d.try_downcast_ref::<MySqlDatabaseError>()?;
            Some((m.number(), m.code().unwrap_or("").to_string()))
        }
        _ => None,
    }
}

async fn run(host: &str, port: u16) -> Res<()> {
    let opts = MySqlConnectOptions::new()
        .host(host)
        .port(port)
        .username("root")
        .ssl_mode(MySqlSslMode::Disabled)
        .charset("utf8mb4");
    let mut c = ctx(MySqlConnection::connect_with(&opts).await, "connect")?;
    ctx(c.ping().await, "ping")?;
    // text protocol (COM_QUERY) for the setup
    ctx(
        sqlx::raw_sql("DROP DATABASE IF EXISTS sqlx_drv; CREATE DATABASE sqlx_drv")
            .execute(&mut c)
            .await,
        "create database",
    )?;
    ctx(c.execute("USE sqlx_drv").await, "use")?;
    ctx(
        sqlx::query(DDL).execute(&mut c).await,
        "create table (prepared)",
    )?;

    let ins = "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    let r = ctx(
        sqlx::query(ins)
            .bind(1i32)
            .bind(i32::MIN)
            .bind(i64::MIN)
            .bind(u64::MAX)
            .bind(-128i8)
            .bind(Decimal::from_str("-99999999999999.999999").unwrap())
            .bind(1.5f32)
            .bind(-1234.5678f64)
            .bind(NaiveDate::from_ymd_opt(2024, 2, 29).unwrap())
            .bind(ndt(2024, 2, 29, 23, 59, 58, 123456))
            .bind(NaiveTime::from_hms_opt(13, 45, 30).unwrap())
            .bind(ndt(2001, 2, 3, 4, 5, 6, 789012).and_utc())
            .bind(VC)
            .bind(tx_text())
            .bind(blob())
            .bind(VARBIN)
            .bind(true)
            .execute(&mut c)
            .await,
        "insert row 1",
    )?;
    ensure!(
        r.rows_affected() == 1,
        "insert row 1 affected {}",
        r.rows_affected()
    );
    ctx(
        sqlx::query(ins)
            .bind(2i32)
            .bind(i32::MAX)
            .bind(i64::MAX)
            .bind(0u64)
            .bind(127i8)
            .bind(Decimal::from_str("0.000001").unwrap())
            .bind(-0.25f32)
            .bind(0.1f64)
            .bind(NaiveDate::from_ymd_opt(1000, 1, 1).unwrap())
            .bind(ndt(9999, 12, 31, 23, 59, 59, 999999))
            .bind(MySqlTime::new(MySqlTimeSign::Negative, 838, 59, 59, 0).unwrap())
            .bind(ndt(2038, 1, 19, 3, 14, 7, 500000).and_utc())
            .bind("")
            .bind(String::new())
            .bind(Vec::<u8>::new())
            .bind(&[] as &[u8])
            .bind(false)
            .execute(&mut c)
            .await,
        "insert row 2",
    )?;
    let mut q = sqlx::query(ins).bind(3i32);
    for _ in 0..16 {
        q = q.bind(None::<i32>);
    }
    ctx(q.execute(&mut c).await, "insert row 3 (NULLs)")?;

    // stored values through SQL functions, both protocols
    let want = expected_view();
    let rows = ctx(
        sqlx::query(SERVER_VIEW).fetch_all(&mut c).await,
        "server view (prepared)",
    )?;
    let text_rows = ctx(
        sqlx::raw_sql(SERVER_VIEW).fetch_all(&mut c).await,
        "server view (text)",
    )?;
    for (proto, rows) in [("binary", rows), ("text", text_rows)] {
        ensure!(rows.len() == 3, "{proto} server view: {} rows", rows.len());
        for (n, row) in rows.iter().enumerate() {
            for col in 0..17 {
                let got: Option<String> = ctx(
                    row.try_get(col),
                    &format!("{proto} server view decode r{n} c{col}"),
                )?;
                ensure!(
                    got == want[n][col],
                    "{proto} stored row {} column {col}: got {got:?}, want {:?}",
                    n + 1,
                    want[n][col]
                );
            }
        }
    }

    // typed read-back: sqlx checks each column's declared type against the Rust type
    let sel = "SELECT id, i, bi, ubi, ti, d, f, db, dt, dtm, tm, ts, vc, tx, bl, vb, b FROM t WHERE id > ? ORDER BY id";
    let typed: Vec<TypesRow> = ctx(
        sqlx::query_as(sel).bind(0i32).fetch_all(&mut c).await,
        "query_as (binary)",
    )?;
    ensure!(typed.len() == 3, "typed rows: {}", typed.len());
    let r1 = &typed[0];
    ensure!(
        r1.id == 1
            && r1.i == Some(i32::MIN)
            && r1.bi == Some(i64::MIN)
            && r1.ubi == Some(u64::MAX)
            && r1.ti == Some(-128),
        "row 1 integers: {r1:?}"
    );
    ensure!(
        r1.d == Some(Decimal::from_str("-99999999999999.999999").unwrap())
            && r1.f == Some(1.5)
            && r1.db == Some(-1234.5678),
        "row 1 numerics: {:?} {:?} {:?}",
        r1.d,
        r1.f,
        r1.db
    );
    ensure!(
        r1.dt == NaiveDate::from_ymd_opt(2024, 2, 29)
            && r1.dtm == Some(ndt(2024, 2, 29, 23, 59, 58, 123456))
            && r1.ts == Some(ndt(2001, 2, 3, 4, 5, 6, 789012).and_utc())
            && r1.tm.map(|t| t.to_string()) == Some("13:45:30".into()),
        "row 1 temporals: {:?} {:?} {:?} {:?}",
        r1.dt,
        r1.dtm,
        r1.tm,
        r1.ts
    );
    ensure!(
        r1.vc.as_deref() == Some(VC)
            && r1.tx.as_deref() == Some(tx_text().as_str())
            && r1.bl.as_deref() == Some(blob().as_slice())
            && r1.vb.as_deref() == Some(VARBIN)
            && r1.b == Some(true),
        "row 1 strings/bytes/bool: {:?} {:?} {:?} {:?}",
        r1.vc,
        r1.bl.as_deref().map(hex),
        r1.vb.as_deref().map(hex),
        r1.b
    );
    let r2 = &typed[1];
    ensure!(
        r2.i == Some(i32::MAX)
            && r2.bi == Some(i64::MAX)
            && r2.ubi == Some(0)
            && r2.ti == Some(127)
            && r2.d == Some(Decimal::from_str("0.000001").unwrap())
            && r2.f == Some(-0.25)
            && r2.db == Some(0.1),
        "row 2 numbers: {r2:?}"
    );
    ensure!(
        r2.dt == NaiveDate::from_ymd_opt(1000, 1, 1)
            && r2.dtm == Some(ndt(9999, 12, 31, 23, 59, 59, 999999))
            && r2.ts == Some(ndt(2038, 1, 19, 3, 14, 7, 500000).and_utc())
            && r2.tm.map(|t| t.to_string()) == Some("-838:59:59".into()),
        "row 2 temporals: {:?} {:?} {:?} {:?}",
        r2.dt,
        r2.dtm,
        r2.tm,
        r2.ts
    );
    ensure!(
        r2.vc.as_deref() == Some("")
            && r2.tx.as_deref() == Some("")
            && r2.bl.as_deref() == Some(&[][..])
            && r2.vb.as_deref() == Some(&[][..])
            && r2.b == Some(false),
        "row 2 empty values: {r2:?}"
    );
    let r3 = &typed[2];
    ensure!(
        r3.i.is_none()
            && r3.bi.is_none()
            && r3.ubi.is_none()
            && r3.ti.is_none()
            && r3.d.is_none()
            && r3.f.is_none()
            && r3.db.is_none()
            && r3.dt.is_none()
            && r3.dtm.is_none()
            && r3.tm.is_none()
            && r3.ts.is_none()
            && r3.vc.is_none()
            && r3.tx.is_none()
            && r3.bl.is_none()
            && r3.vb.is_none()
            && r3.b.is_none(),
        "row 3 should be all NULL: {r3:?}"
    );

    // typed read-back over the text protocol (raw_sql: COM_QUERY)
    let text = ctx(
        sqlx::raw_sql(&sel.replace('?', "0"))
            .fetch_all(&mut c)
            .await,
        "text typed select",
    )?;
    ensure!(text.len() == 3, "text typed rows: {}", text.len());
    let ubi: Option<u64> = ctx(text[0].try_get("ubi"), "text ubi")?;
    let d: Option<Decimal> = ctx(text[0].try_get("d"), "text d")?;
    let dtm: Option<NaiveDateTime> = ctx(text[0].try_get("dtm"), "text dtm")?;
    let ts: Option<DateTime<Utc>> = ctx(text[0].try_get("ts"), "text ts")?;
    let bl: Option<Vec<u8>> = ctx(text[0].try_get("bl"), "text bl")?;
    let vc: Option<String> = ctx(text[0].try_get("vc"), "text vc")?;
    let b: Option<bool> = ctx(text[0].try_get("b"), "text b")?;
    ensure!(
        ubi == Some(u64::MAX)
            && d == Some(Decimal::from_str("-99999999999999.999999").unwrap())
            && dtm == Some(ndt(2024, 2, 29, 23, 59, 58, 123456))
            && ts == Some(ndt(2001, 2, 3, 4, 5, 6, 789012).and_utc())
            && bl == Some(blob())
            && vc.as_deref() == Some(VC)
            && b == Some(true),
        "text protocol row 1: {ubi:?} {d:?} {dtm:?} {ts:?} {vc:?} {b:?}"
    );

    // parameters echoed back by SELECT ? (the server infers each parameter's type)
    let echo = ctx(
        sqlx::query("SELECT ? AS a, ? AS b, ? AS c, ? AS d, ? AS e")
            .bind(-42i64)
            .bind("😀 ünï")
            .bind(vec![0u8, 255, 0])
            .bind(None::<String>)
            .bind(2.5f64)
            .fetch_one(&mut c)
            .await,
        "SELECT ?",
    )?;
    let (a, bb, cc, dd, ee): (i64, String, Vec<u8>, Option<String>, f64) = (
        ctx(echo.try_get("a"), "echo a")?,
        ctx(echo.try_get("b"), "echo b")?,
        ctx(echo.try_get("c"), "echo c")?,
        ctx(echo.try_get("d"), "echo d")?,
        ctx(echo.try_get("e"), "echo e")?,
    );
    ensure!(
        a == -42 && bb == "😀 ünï" && cc == [0, 255, 0] && dd.is_none() && ee == 2.5,
        "SELECT ? echoed {a} {bb:?} {cc:?} {dd:?} {ee}"
    );

    // lookups by parameter of each type
    let (id,): (i32,) = ctx(
        sqlx::query_as(
            "SELECT id FROM t WHERE vc = ? AND bl = ? AND ubi = ? AND dtm = ? AND d = ? AND b = ?",
        )
        .bind(VC)
        .bind(blob())
        .bind(u64::MAX)
        .bind(ndt(2024, 2, 29, 23, 59, 58, 123456))
        .bind(Decimal::from_str("-99999999999999.999999").unwrap())
        .bind(true)
        .fetch_one(&mut c)
        .await,
        "lookup by params",
    )?;
    ensure!(id == 1, "lookup by params found {id}");

    let r = ctx(
        sqlx::query("UPDATE t SET vc = ?, bi = bi - ? WHERE id = ?")
            .bind("ünï 😀")
            .bind(1i64)
            .bind(2i32)
            .execute(&mut c)
            .await,
        "update",
    )?;
    ensure!(
        r.rows_affected() == 1,
        "update affected {}",
        r.rows_affected()
    );
    let (vc, bi): (String, i64) = ctx(
        sqlx::query_as("SELECT vc, bi FROM t WHERE id = ?")
            .bind(2i32)
            .fetch_one(&mut c)
            .await,
        "read update",
    )?;
    ensure!(
        vc == "ünï 😀" && bi == i64::MAX - 1,
        "after update: {vc:?} {bi}"
    );

    // transactions
    ctx(
        sqlx::query("CREATE TABLE acct (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(20))")
            .execute(&mut c)
            .await,
        "create acct",
    )?;
    let mut tx = ctx(c.begin().await, "begin")?;
    ctx(
        sqlx::query("INSERT INTO acct (v) VALUES (?)")
            .bind("rolled back")
            .execute(&mut *tx)
            .await,
        "insert in tx",
    )?;
    ctx(tx.rollback().await, "rollback")?;
    let (n,): (i64,) = ctx(
        sqlx::query_as("SELECT COUNT(*) FROM acct")
            .fetch_one(&mut c)
            .await,
        "count",
    )?;
    ensure!(n == 0, "{n} rows after rollback");
    let mut tx = ctx(c.begin().await, "begin 2")?;
    let r = ctx(
        sqlx::query("INSERT INTO acct (v) VALUES (?), (?)")
            .bind("a")
            .bind("b")
            .execute(&mut *tx)
            .await,
        "insert in tx 2",
    )?;
    ensure!(
        r.last_insert_id() >= 1 && r.rows_affected() == 2,
        "insert result {r:?}"
    );
    ctx(tx.commit().await, "commit")?;
    let (n,): (i64,) = ctx(
        sqlx::query_as("SELECT COUNT(*) FROM acct")
            .fetch_one(&mut c)
            .await,
        "count 2",
    )?;
    ensure!(n == 2, "{n} rows after commit");

    // error codes
    let e = sqlx::query("INSERT INTO t (id) VALUES (?)")
        .bind(1i32)
        .execute(&mut c)
        .await
        .err();
    let got = e.as_ref().and_then(db_error);
    ensure!(
        got == Some((1062, "23000".into())),
        "duplicate key: want 1062/23000, got {e:?}"
    );
    let e = sqlx::query("SELECT * FROM no_such_table WHERE id = ?")
        .bind(1i32)
        .fetch_all(&mut c)
        .await
        .err();
    let got = e.as_ref().and_then(db_error);
    ensure!(
        got == Some((1146, "42S02".into())),
        "missing table: want 1146/42S02, got {e:?}"
    );
    let (n,): (i64,) = ctx(
        sqlx::query_as("SELECT COUNT(*) FROM t WHERE id <> ?")
            .bind(0i32)
            .fetch_one(&mut c)
            .await,
        "after errors",
    )?;
    ensure!(n == 3, "{n} rows after errors");

    ctx(c.execute("DROP DATABASE sqlx_drv").await, "drop database")?;
    ctx(c.close().await, "close")?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (host, port) = if args.len() > 2 {
        (args[1].clone(), args[2].clone())
    } else {
        (
            std::env::var("STRATA_HOST").unwrap_or_else(|_| "127.0.0.1".into()),
            std::env::var("STRATA_PORT").unwrap_or_else(|_| "3306".into()),
        )
    };
    let port: u16 = port.parse().expect("port");
    match run(&host, port).await {
        Ok(()) => println!("sqlx checks passed"),
        Err(e) => {
            eprintln!("sqlx driver check FAILED: {e}");
            std::process::exit(1);
        }
    }
}
