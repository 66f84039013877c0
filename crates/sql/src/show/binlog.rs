//! The binary log's statements: SHOW BINARY LOGS (SHOW MASTER LOGS), SHOW BINARY LOG STATUS
//! (SHOW MASTER STATUS), SHOW BINLOG EVENTS, and FLUSH BINARY LOGS / PURGE BINARY LOGS /
//! RESET BINARY LOGS AND GTIDS, over the server's [`replication::Binlog`]. Without a binary
//! log (`--skip-log-bin`) the SHOW statements return no rows and the others are 1381, as
//! MySQL's. SHOW REPLICAS (SHOW SLAVE HOSTS): the replicas registered with the instance's
//! [`replication::Replicas`].

use common::{codes, ColumnMeta, Error, Result, Value};
use func::types::ExprType;
use sqlparser::tokenizer::Token;
use storage::engine::KvEngine;

use crate::bind::select::{meta_for_type, str_meta};
use crate::parse::binlog::BinlogStmt;
use crate::session::session::{Output, Session};

fn int_meta(name: &str) -> ColumnMeta {
    let mut m = meta_for_type(name, &ExprType::Int);
    m.flags |= common::types::column_flags::NOT_NULL;
    m
}

fn no_binlog() -> Error {
    Error::new(
        codes::ER_NO_BINARY_LOGGING,
        "You are not using binary logging",
    )
}

fn log_of<E: KvEngine>(sess: &Session<E>) -> Option<std::sync::Arc<replication::Binlog<E>>> {
    sess.inst.binlog.read().clone()
}

/// FLUSH / PURGE / RESET.
///
/// # Errors
/// 1381 without a binary log, 1373 for PURGE TO a file not in the index, 1064 for a bad
/// PURGE … BEFORE date, I/O errors.
pub fn execute<E: KvEngine>(sess: &mut Session<E>, stmt: &BinlogStmt) -> Result<Output> {
    let Some(log) = log_of(sess) else {
        // MySQL: FLUSH BINARY LOGS without a log does nothing, PURGE / RESET are 1381
        return match stmt {
            BinlogStmt::Flush => Ok(Output::ok(0)),
            _ => Err(no_binlog()),
        };
    };
    match stmt {
        BinlogStmt::Flush => log.rotate()?,
        BinlogStmt::PurgeTo(name) => log.purge_to(name)?,
        BinlogStmt::PurgeBefore(text) => {
            let dt = func::temporal::parse_datetime(text)
                .map(|p| p.dt)
                .ok_or_else(|| Error::parse(format!("'{text}'")))?;
            let secs = sess_local_to_epoch(sess, &dt);
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs.max(0) as u64);
            log.purge_before(t)?
        }
        BinlogStmt::Reset => log.reset()?,
    }
    Ok(Output::ok(0))
}

/// A date-time of the session's time zone as seconds since the epoch.
fn sess_local_to_epoch<E: KvEngine>(sess: &Session<E>, d: &common::time::DateTime) -> i64 {
    let days = replication::convert::days_from_civil(
        i64::from(d.year),
        i64::from(d.month),
        i64::from(d.day),
    );
    days * 86_400 + i64::from(d.hour) * 3600 + i64::from(d.minute) * 60 + i64::from(d.second)
        - i64::from(sess.tz_offset_secs())
}

/// The words and strings of a SHOW statement's tokens after its keyword.
fn words(tokens: &[Token]) -> Vec<String> {
    tokens
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .map(|t| match t {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
            Token::Word(w) => w.value.clone(),
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

/// SHOW {BINARY | MASTER} …, SHOW BINLOG EVENTS: `kw` is the word after SHOW, `rest` the
/// tokens after it.
///
/// # Errors
/// 1064 for another SHOW form, 1220 for SHOW BINLOG EVENTS IN an unknown file, I/O errors.
pub fn show<E: KvEngine>(sess: &Session<E>, kw: &str, rest: &[Token]) -> Result<Output> {
    let w = words(rest);
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    let log = log_of(sess);
    match (kw, w.as_slice()) {
        ("BINARY" | "MASTER", ["LOGS"]) => {
            let rows = match &log {
                None => return Err(no_binlog()),
                Some(l) => l
                    .list()?
                    .into_iter()
                    .map(|f| {
                        vec![
                            Value::Str(f.name),
                            Value::UInt(f.size),
                            Value::Str(if f.encrypted { "Yes" } else { "No" }.into()),
                        ]
                    })
                    .collect(),
            };
            Ok(Output::Rows {
                columns: vec![
                    str_meta("Log_name", 255),
                    int_meta("File_size"),
                    str_meta("Encrypted", 3),
                ],
                rows,
            })
        }
        ("BINARY", ["LOG", "STATUS"]) | ("MASTER", ["STATUS"]) => {
            let rows = match &log {
                None => vec![],
                Some(l) => {
                    let (file, pos) = l.status();
                    vec![vec![
                        Value::Str(file),
                        Value::UInt(pos),
                        Value::Str(String::new()),
                        Value::Str(String::new()),
                        Value::Str(l.gtid_executed().to_string()),
                    ]]
                }
            };
            Ok(Output::Rows {
                columns: vec![
                    str_meta("File", 255),
                    int_meta("Position"),
                    str_meta("Binlog_Do_DB", 255),
                    str_meta("Binlog_Ignore_DB", 255),
                    str_meta("Executed_Gtid_Set", 4096),
                ],
                rows,
            })
        }
        ("BINLOG", ["EVENTS", more @ ..]) => events(log.as_deref(), more),
        _ => Err(Error::parse(format!("{kw} {}", w.join(" ")))),
    }
}

/// SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] count].
fn events<E: KvEngine>(log: Option<&replication::Binlog<E>>, w: &[&str]) -> Result<Output> {
    let columns = vec![
        str_meta("Log_name", 255),
        int_meta("Pos"),
        str_meta("Event_type", 64),
        int_meta("Server_id"),
        int_meta("End_log_pos"),
        str_meta("Info", 4096),
    ];
    let Some(log) = log else {
        return Ok(Output::Rows {
            columns,
            rows: vec![],
        });
    };
    let mut i = 0;
    let mut file = log.file_names().first().cloned().unwrap_or_default();
    let (mut from, mut offset, mut count) = (4u64, 0usize, usize::MAX);
    let num = |s: Option<&&str>| -> Result<u64> {
        s.and_then(|x| x.parse().ok())
            .ok_or_else(|| Error::parse(s.copied().unwrap_or("end of statement")))
    };
    if w.get(i) == Some(&"IN") {
        file = w.get(i + 1).ok_or_else(|| Error::parse("IN"))?.to_string();
        i += 2;
    }
    if w.get(i) == Some(&"FROM") {
        from = num(w.get(i + 1))?;
        i += 2;
    }
    if w.get(i) == Some(&"LIMIT") {
        let a = num(w.get(i + 1))? as usize;
        if w.get(i + 2) == Some(&",") {
            offset = a;
            count = num(w.get(i + 3))? as usize;
            i += 4;
        } else {
            count = a;
            i += 2;
        }
    }
    if let Some(extra) = w.get(i) {
        return Err(Error::parse(*extra));
    }
    let path = log.path_of(&file).ok_or_else(|| {
        Error::new(
            codes::ER_ERROR_WHEN_EXECUTING_COMMAND,
            "Error when executing command SHOW BINLOG EVENTS: Could not find target log",
        )
    })?;
    let reader = binlog::BinlogReader::open(&path, from)
        .map_err(|e| Error::storage(format!("binary log: {e}")))?;
    let mut rows = Vec::new();
    for ev in reader.skip(offset).take(count) {
        let (pos, ev) = ev.map_err(|e| Error::storage(format!("binary log: {e}")))?;
        rows.push(vec![
            Value::Str(file.clone()),
            Value::UInt(pos),
            Value::Str(ev.event.type_name().to_string()),
            Value::UInt(u64::from(ev.header.server_id)),
            Value::UInt(u64::from(ev.header.log_pos)),
            Value::Str(ev.event.info()),
        ]);
    }
    Ok(Output::Rows { columns, rows })
}

/// SHOW REPLICAS (`old_names`: SHOW SLAVE HOSTS, with 8.0's column names): the replicas
/// registered with COM_REGISTER_SLAVE whose connections are open. `rest` is what follows the
/// statement's words (nothing is allowed).
///
/// # Errors
/// 1227 without REPLICATION SLAVE, 1064 for trailing words.
pub fn replicas<E: KvEngine>(sess: &Session<E>, old_names: bool, rest: &[Token]) -> Result<Output> {
    if let Some(extra) = words(rest).first() {
        return Err(Error::parse(extra));
    }
    crate::acl::accounts::require_global(
        sess,
        crate::acl::accounts::privs::REPL_SLAVE,
        "REPLICATION SLAVE",
    )?;
    let names = if old_names {
        ["Server_id", "Host", "Port", "Master_id", "Slave_UUID"]
    } else {
        ["Server_Id", "Host", "Port", "Source_Id", "Replica_UUID"]
    };
    let rows = sess
        .inst
        .replicas
        .list()
        .into_iter()
        .map(|r| {
            vec![
                Value::UInt(u64::from(r.server_id)),
                Value::Str(r.host),
                Value::UInt(u64::from(r.port)),
                Value::UInt(u64::from(r.source_id)),
                Value::Str(r.uuid),
            ]
        })
        .collect();
    Ok(Output::Rows {
        columns: vec![
            int_meta(names[0]),
            str_meta(names[1], 255),
            int_meta(names[2]),
            int_meta(names[3]),
            str_meta(names[4], 36),
        ],
        rows,
    })
}
