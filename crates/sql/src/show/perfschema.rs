//! performance_schema's statement tables, in MySQL 8.4's column order: `threads`,
//! `events_statements_current` / `_history` / `_history_long`,
//! `events_statements_summary_by_digest` and `setup_consumers`. Rows come from
//! [`crate::runtime::perfschema`] and the process list (`show::show` gathers the
//! [`ThreadView`]s); with `performance_schema` off they are empty, as in MySQL.
//!
//! Columns Strata cannot measure are 0 (docs/compatibility.md lists them): the temporary table
//! and sort counters (instance-wide only), joins without an index, CPU time, memory.

use common::types::LobSize;
use common::{Collation, DataType, Value};
use storage::catalog::ColumnDef;

use crate::runtime::perfschema::{DigestStats, PerfSchema, StmtEvent, ThreadView};

/// The statement tables this module serves (lower case, as MySQL names them).
pub const TABLES: &[&str] = &[
    "events_statements_current",
    "events_statements_history",
    "events_statements_history_long",
    "events_statements_summary_by_digest",
    "setup_consumers",
    "threads",
];

/// True when `name` (any letter case) is one of [`TABLES`].
pub fn is_table(name: &str) -> bool {
    TABLES.iter().any(|t| t.eq_ignore_ascii_case(name))
}

fn col(name: &str, ty: DataType, nullable: bool) -> ColumnDef {
    ColumnDef::plain(name, ty, nullable)
}

fn ubig(name: &str) -> ColumnDef {
    col(name, int_type(8, true), false)
}

fn ubig_null(name: &str) -> ColumnDef {
    col(name, int_type(8, true), true)
}

fn int_type(bytes: u8, unsigned: bool) -> DataType {
    DataType::Int {
        bytes,
        unsigned,
        width: None,
        zerofill: false,
    }
}

fn varchar(name: &str, len: u32) -> ColumnDef {
    col(
        name,
        DataType::VarChar {
            len,
            collation: Collation::Utf8mb4GeneralCi,
        },
        true,
    )
}

fn longtext(name: &str) -> ColumnDef {
    col(
        name,
        DataType::Text {
            size: LobSize::Long,
            collation: Collation::Utf8mb4GeneralCi,
        },
        true,
    )
}

fn timestamp(name: &str) -> ColumnDef {
    col(name, DataType::Timestamp { fsp: 6 }, false)
}

fn enumeration(name: &str, values: &[&str], nullable: bool) -> ColumnDef {
    col(
        name,
        DataType::Enum {
            values: values.iter().map(|v| v.to_string()).collect(),
            collation: Collation::Utf8mb4GeneralCi,
        },
        nullable,
    )
}

/// The columns events_statements_current / _history / _history_long share.
fn event_columns() -> Vec<ColumnDef> {
    let mut c = vec![
        ubig("THREAD_ID"),
        ubig("EVENT_ID"),
        ubig_null("END_EVENT_ID"),
        varchar("EVENT_NAME", 128),
        varchar("SOURCE", 64),
        ubig_null("TIMER_START"),
        ubig_null("TIMER_END"),
        ubig_null("TIMER_WAIT"),
        ubig("LOCK_TIME"),
        longtext("SQL_TEXT"),
        varchar("DIGEST", 64),
        longtext("DIGEST_TEXT"),
        varchar("CURRENT_SCHEMA", 64),
        varchar("OBJECT_TYPE", 64),
        varchar("OBJECT_SCHEMA", 64),
        varchar("OBJECT_NAME", 64),
        ubig_null("OBJECT_INSTANCE_BEGIN"),
        col("MYSQL_ERRNO", int_type(4, false), true),
        varchar("RETURNED_SQLSTATE", 5),
        varchar("MESSAGE_TEXT", 128),
    ];
    for n in [
        "ERRORS",
        "WARNINGS",
        "ROWS_AFFECTED",
        "ROWS_SENT",
        "ROWS_EXAMINED",
        "CREATED_TMP_DISK_TABLES",
        "CREATED_TMP_TABLES",
        "SELECT_FULL_JOIN",
        "SELECT_FULL_RANGE_JOIN",
        "SELECT_RANGE",
        "SELECT_RANGE_CHECK",
        "SELECT_SCAN",
        "SORT_MERGE_PASSES",
        "SORT_RANGE",
        "SORT_ROWS",
        "SORT_SCAN",
        "NO_INDEX_USED",
        "NO_GOOD_INDEX_USED",
    ] {
        c.push(ubig(n));
    }
    c.extend([
        ubig_null("NESTING_EVENT_ID"),
        enumeration(
            "NESTING_EVENT_TYPE",
            &["TRANSACTION", "STATEMENT", "STAGE", "WAIT"],
            true,
        ),
        col("NESTING_EVENT_LEVEL", int_type(4, false), true),
        ubig_null("STATEMENT_ID"),
        ubig("CPU_TIME"),
        ubig("MAX_CONTROLLED_MEMORY"),
        ubig("MAX_TOTAL_MEMORY"),
        enumeration("EXECUTION_ENGINE", &["PRIMARY", "SECONDARY"], true),
    ]);
    c
}

/// The columns of table `name` (any letter case), if it is one of [`TABLES`].
pub fn columns(name: &str) -> Option<Vec<ColumnDef>> {
    Some(match name.to_ascii_lowercase().as_str() {
        "events_statements_current"
        | "events_statements_history"
        | "events_statements_history_long" => event_columns(),
        "events_statements_summary_by_digest" => {
            let mut c = vec![
                varchar("SCHEMA_NAME", 64),
                varchar("DIGEST", 64),
                longtext("DIGEST_TEXT"),
            ];
            for n in [
                "COUNT_STAR",
                "SUM_TIMER_WAIT",
                "MIN_TIMER_WAIT",
                "AVG_TIMER_WAIT",
                "MAX_TIMER_WAIT",
                "SUM_LOCK_TIME",
                "SUM_ERRORS",
                "SUM_WARNINGS",
                "SUM_ROWS_AFFECTED",
                "SUM_ROWS_SENT",
                "SUM_ROWS_EXAMINED",
                "SUM_CREATED_TMP_DISK_TABLES",
                "SUM_CREATED_TMP_TABLES",
                "SUM_SELECT_FULL_JOIN",
                "SUM_SELECT_FULL_RANGE_JOIN",
                "SUM_SELECT_RANGE",
                "SUM_SELECT_RANGE_CHECK",
                "SUM_SELECT_SCAN",
                "SUM_SORT_MERGE_PASSES",
                "SUM_SORT_RANGE",
                "SUM_SORT_ROWS",
                "SUM_SORT_SCAN",
                "SUM_NO_INDEX_USED",
                "SUM_NO_GOOD_INDEX_USED",
                "SUM_CPU_TIME",
                "MAX_CONTROLLED_MEMORY",
                "MAX_TOTAL_MEMORY",
                "COUNT_SECONDARY",
            ] {
                c.push(ubig(n));
            }
            c.extend([
                timestamp("FIRST_SEEN"),
                timestamp("LAST_SEEN"),
                ubig("QUANTILE_95"),
                ubig("QUANTILE_99"),
                ubig("QUANTILE_999"),
                longtext("QUERY_SAMPLE_TEXT"),
                timestamp("QUERY_SAMPLE_SEEN"),
                ubig("QUERY_SAMPLE_TIMER_WAIT"),
            ]);
            c
        }
        "threads" => vec![
            ubig("THREAD_ID"),
            col("NAME", varchar_type(128), false),
            col("TYPE", varchar_type(10), false),
            ubig_null("PROCESSLIST_ID"),
            varchar("PROCESSLIST_USER", 32),
            varchar("PROCESSLIST_HOST", 255),
            varchar("PROCESSLIST_DB", 64),
            varchar("PROCESSLIST_COMMAND", 16),
            col("PROCESSLIST_TIME", int_type(8, false), true),
            varchar("PROCESSLIST_STATE", 64),
            longtext("PROCESSLIST_INFO"),
            ubig_null("PARENT_THREAD_ID"),
            varchar("ROLE", 64),
            enumeration("INSTRUMENTED", &["YES", "NO"], false),
            enumeration("HISTORY", &["YES", "NO"], false),
            varchar("CONNECTION_TYPE", 16),
            ubig_null("THREAD_OS_ID"),
            varchar("RESOURCE_GROUP", 64),
            enumeration("EXECUTION_ENGINE", &["PRIMARY", "SECONDARY"], true),
            ubig("CONTROLLED_MEMORY"),
            ubig("MAX_CONTROLLED_MEMORY"),
            ubig("TOTAL_MEMORY"),
            ubig("MAX_TOTAL_MEMORY"),
            enumeration("TELEMETRY_ACTIVE", &["YES", "NO"], false),
        ],
        "setup_consumers" => vec![
            col("NAME", varchar_type(64), false),
            enumeration("ENABLED", &["YES", "NO"], false),
        ],
        _ => return None,
    })
}

fn varchar_type(len: u32) -> DataType {
    DataType::VarChar {
        len,
        collation: Collation::Utf8mb4GeneralCi,
    }
}

fn s(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

fn u(n: u64) -> Value {
    Value::UInt(n)
}

fn opt_s(v: Option<&str>) -> Value {
    v.map_or(Value::Null, s)
}

/// A wall-clock time as a TIMESTAMP(6) value in the session's time zone (`tz`: its offset
/// from UTC in seconds).
fn timestamp_value(t: std::time::SystemTime, tz: i32) -> Value {
    use chrono::{Datelike, Timelike};
    let micros = t
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    let Some(local) = chrono::DateTime::from_timestamp_micros(micros + i64::from(tz) * 1_000_000)
    else {
        return Value::Null;
    };
    let local = local.naive_utc();
    Value::DateTime(
        common::time::DateTime {
            year: local.year() as u16,
            month: local.month() as u8,
            day: local.day() as u8,
            hour: local.hour() as u8,
            minute: local.minute() as u8,
            second: local.second() as u8,
            micro: local.nanosecond() / 1000,
        },
        6,
    )
}

/// What the rows need besides the events.
pub struct Context<'a> {
    /// The instance's performance_schema.
    pub perf: &'a PerfSchema,
    /// The threads, in id order.
    pub threads: &'a [ThreadView],
    /// The session's time zone offset from UTC, seconds.
    pub tz: i32,
}

/// The rows of table `name` (any letter case; one of [`TABLES`]).
pub fn rows(name: &str, cx: &Context<'_>) -> Vec<Vec<Value>> {
    let perf = cx.perf;
    if !perf.enabled() {
        return Vec::new();
    }
    match name.to_ascii_lowercase().as_str() {
        "events_statements_current" => cx
            .threads
            .iter()
            .filter_map(|t| {
                if t.command != "Sleep" {
                    if let Some(info) = &t.info {
                        return Some(running_row(cx, t, info));
                    }
                }
                perf.current_of(&t.stmts.ps).map(|e| event_row(t.id, &e))
            })
            .collect(),
        "events_statements_history" => cx
            .threads
            .iter()
            .flat_map(|t| {
                perf.history_of(&t.stmts.ps)
                    .into_iter()
                    .map(|e| event_row(t.id, &e))
            })
            .collect(),
        // its consumer is off by default in MySQL, and here it cannot be turned on
        "events_statements_history_long" => Vec::new(),
        "events_statements_summary_by_digest" => perf
            .digests
            .rows()
            .into_iter()
            .map(|r| {
                let mut row = vec![
                    opt_s(r.schema.as_deref()),
                    r.digest.as_ref().map_or(Value::Null, |d| s(&*d.hex)),
                    r.digest.as_ref().map_or(Value::Null, |d| s(&*d.text)),
                ];
                digest_columns(&mut row, &r.stats, cx.tz);
                row
            })
            .collect(),
        "threads" => cx.threads.iter().map(thread_row).collect(),
        "setup_consumers" => [
            ("events_stages_current", "NO"),
            ("events_stages_history", "NO"),
            ("events_stages_history_long", "NO"),
            ("events_statements_cpu", "NO"),
            ("events_statements_current", "YES"),
            ("events_statements_history", "YES"),
            ("events_statements_history_long", "NO"),
            ("events_transactions_current", "NO"),
            ("events_transactions_history", "NO"),
            ("events_transactions_history_long", "NO"),
            ("events_waits_current", "NO"),
            ("events_waits_history", "NO"),
            ("events_waits_history_long", "NO"),
            ("global_instrumentation", "YES"),
            ("thread_instrumentation", "YES"),
            ("statements_digest", "YES"),
        ]
        .iter()
        .map(|(n, e)| vec![s(*n), s(*e)])
        .collect(),
        _ => Vec::new(),
    }
}

fn digest_columns(row: &mut Vec<Value>, d: &DigestStats, tz: i32) {
    let t = &d.sum;
    row.extend(
        [
            d.count,
            t.timer_wait,
            d.min(),
            d.avg_timer(),
            d.max_timer,
            t.lock_time,
            t.errors,
            t.warnings,
            t.rows_affected,
            t.rows_sent,
            t.rows_examined,
            0, // SUM_CREATED_TMP_DISK_TABLES
            0, // SUM_CREATED_TMP_TABLES
            0, // SUM_SELECT_FULL_JOIN
            0, // SUM_SELECT_FULL_RANGE_JOIN
            t.select_range,
            0, // SUM_SELECT_RANGE_CHECK
            t.select_scan,
            0, // SUM_SORT_MERGE_PASSES
            0, // SUM_SORT_RANGE
            0, // SUM_SORT_ROWS
            0, // SUM_SORT_SCAN
            t.no_index_used,
            0, // SUM_NO_GOOD_INDEX_USED
            0, // SUM_CPU_TIME
            0, // MAX_CONTROLLED_MEMORY
            0, // MAX_TOTAL_MEMORY
            0, // COUNT_SECONDARY
        ]
        .map(u),
    );
    row.extend([
        timestamp_value(d.first_seen, tz),
        timestamp_value(d.last_seen, tz),
        u(d.quantile(0.95)),
        u(d.quantile(0.99)),
        u(d.quantile(0.999)),
        s(d.sample_text.clone()),
        timestamp_value(d.sample_seen, tz),
        u(d.sample_timer),
    ]);
}

/// A finished statement's row.
fn event_row(thread: u64, e: &StmtEvent) -> Vec<Value> {
    let st = &e.stats;
    let mut row = vec![
        u(thread),
        u(e.event_id),
        u(e.event_id + 1),
        s(e.event_name),
        Value::Null,
        u(e.timer_start),
        u(e.timer_end()),
        u(st.timer_wait),
        u(st.lock_time),
        s(e.sql_text.clone()),
        e.digest.as_ref().map_or(Value::Null, |d| s(&*d.hex)),
        e.digest.as_ref().map_or(Value::Null, |d| s(&*d.text)),
        opt_s(e.schema.as_deref()),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Int(i64::from(e.errno)),
        if e.errno == 0 {
            Value::Null
        } else {
            s(e.sqlstate)
        },
        if e.errno == 0 {
            Value::Null
        } else {
            s(e.message.clone())
        },
    ];
    row.extend(
        [
            st.errors,
            st.warnings,
            st.rows_affected,
            st.rows_sent,
            st.rows_examined,
            0, // CREATED_TMP_DISK_TABLES
            0, // CREATED_TMP_TABLES
            0, // SELECT_FULL_JOIN
            0, // SELECT_FULL_RANGE_JOIN
            st.select_range,
            0, // SELECT_RANGE_CHECK
            st.select_scan,
            0, // SORT_MERGE_PASSES
            0, // SORT_RANGE
            0, // SORT_ROWS
            0, // SORT_SCAN
            st.no_index_used,
            0, // NO_GOOD_INDEX_USED
        ]
        .map(u),
    );
    row.extend(event_tail());
    row
}

/// NESTING_EVENT_ID … EXECUTION_ENGINE of a top-level statement.
fn event_tail() -> [Value; 8] {
    [
        Value::Null,
        Value::Null,
        Value::Int(0),
        Value::Null,
        u(0),
        u(0),
        u(0),
        s("PRIMARY"),
    ]
}

/// The event of a statement still running (TIMER_END is now, END_EVENT_ID NULL; its digest is
/// made when it ends).
fn running_row(cx: &Context<'_>, t: &ThreadView, info: &str) -> Vec<Value> {
    let start = cx.perf.timer(t.since);
    let now = cx.perf.timer(std::time::Instant::now());
    let mut row = vec![
        u(t.id),
        u(t.stmts.ps.next_event_id()),
        Value::Null,
        s(running_event_name(info)),
        Value::Null,
        u(start),
        u(now),
        u(now.saturating_sub(start)),
        u(0),
        s(info),
        Value::Null,
        Value::Null,
        opt_s(t.db.as_deref()),
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Null,
        Value::Int(0),
        Value::Null,
        Value::Null,
    ];
    row.extend(std::iter::repeat_n(u(0), 18));
    row.extend(event_tail());
    row
}

/// `statement/sql/<first word>` of a running statement's text (its kind is known only once
/// it is parsed and counted).
fn running_event_name(info: &str) -> String {
    let word: String = info
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_lowercase();
    let com = format!("Com_{word}");
    if !word.is_empty() && crate::runtime::status::COM_NAMES.contains(&com.as_str()) {
        format!("statement/sql/{word}")
    } else {
        "statement/com/Query".into()
    }
}

fn thread_row(t: &ThreadView) -> Vec<Value> {
    let sleeping = t.command == "Sleep";
    vec![
        u(t.id),
        s("thread/sql/one_connection"),
        s("FOREGROUND"),
        u(t.id),
        s(t.user.clone()),
        s(t.host.clone()),
        opt_s(t.db.as_deref()),
        s(t.command),
        Value::Int(t.since.elapsed().as_secs() as i64),
        if sleeping { Value::Null } else { s(t.state) },
        t.info.as_ref().map_or(Value::Null, |i| s(&**i)),
        Value::Null,
        Value::Null,
        s("YES"),
        s("YES"),
        s(if t.host == "localhost" {
            "Socket"
        } else {
            "TCP/IP"
        }),
        Value::Null,
        s("USR_default"),
        s("PRIMARY"),
        u(0),
        u(0),
        u(0),
        u(0),
        s("NO"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_matches_its_columns() {
        let perf = PerfSchema::default();
        let t = ThreadView {
            id: 7,
            user: "root".into(),
            host: "localhost".into(),
            db: Some("d".into()),
            command: "Query",
            since: std::time::Instant::now(),
            info: Some("SELECT 1".into()),
            state: "executing",
            query_id: 3,
            stmts: Default::default(),
        };
        t.stmts.ps.record(
            "statement/sql/select",
            perf.timer(std::time::Instant::now()),
            "SELECT 1",
            None,
            Some("d"),
            None,
            &Default::default(),
        );
        perf.digests.add(
            Some("d"),
            "SELECT ?",
            None,
            &Default::default(),
            "SELECT 1",
            std::time::SystemTime::now(),
        );
        let cx = Context {
            perf: &perf,
            threads: std::slice::from_ref(&t),
            tz: 0,
        };
        for name in TABLES {
            let cols = columns(name).unwrap();
            for r in rows(name, &cx) {
                assert_eq!(r.len(), cols.len(), "{name}");
            }
        }
        assert_eq!(rows("events_statements_current", &cx).len(), 1);
        assert_eq!(rows("EVENTS_STATEMENTS_HISTORY", &cx).len(), 1);
        assert_eq!(rows("events_statements_summary_by_digest", &cx).len(), 1);
        assert_eq!(
            columns("events_statements_summary_by_digest")
                .unwrap()
                .len(),
            39
        );
        assert_eq!(running_event_name("select 1"), "statement/sql/select");
        assert_eq!(running_event_name("(select 1)"), "statement/com/Query");
        let off = PerfSchema::new(false, 10, 1024);
        let cx = Context {
            perf: &off,
            threads: std::slice::from_ref(&t),
            tz: 0,
        };
        assert!(rows("threads", &cx).is_empty());
    }
}
