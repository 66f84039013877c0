//! The replica's statements over the server's [`replication::replica::Replica`]: CHANGE
//! REPLICATION SOURCE TO, START / STOP / RESET REPLICA, and SHOW REPLICA STATUS (SHOW SLAVE
//! STATUS with the pre-8.0.22 column names). Without a replica installed (an embedded
//! instance) the control statements fail with 1200 and SHOW returns no row.

use common::{codes, ColumnMeta, Error, Result, Value};
use func::types::ExprType;
use sqlparser::tokenizer::Token;
use storage::engine::KvEngine;

use crate::bind::select::{meta_for_type, str_meta};
use crate::parse::replica::ReplicaStmt;
use crate::session::session::{Output, Session};
use replication::replica::status::legacy_name;
use replication::replica::Field;

/// CHANGE REPLICATION SOURCE TO, START / STOP / RESET REPLICA (privileges were checked with
/// the statement's needs: SUPER).
///
/// # Errors
/// The replica's errors (1200, 1198, 3021, 1235 …).
pub fn execute<E: KvEngine>(sess: &mut Session<E>, stmt: &ReplicaStmt) -> Result<Output> {
    let Some(r) = sess.inst.replica.read().clone() else {
        return Err(Error::new(
            codes::ER_BAD_REPLICA,
            "The server is not configured as replica; fix in config file or with CHANGE REPLICATION SOURCE TO",
        ));
    };
    match stmt {
        ReplicaStmt::ChangeSource(opts) => r.change_source(opts)?,
        ReplicaStmt::Start { io, sql } => r.start(*io, *sql)?,
        ReplicaStmt::Stop { io, sql } => r.stop(*io, *sql)?,
        ReplicaStmt::Reset { all } => r.reset(*all)?,
    }
    Ok(Output::ok(0))
}

/// SHOW REPLICA STATUS [FOR CHANNEL ''] (`legacy`: SHOW SLAVE STATUS); `rest` are the tokens
/// after REPLICA / SLAVE.
///
/// # Errors
/// 1227 without REPLICATION CLIENT or SUPER; 1064 for other syntax; 3074 for another channel.
pub fn status<E: KvEngine>(sess: &Session<E>, legacy: bool, rest: &[Token]) -> Result<Output> {
    let words: Vec<&Token> = rest
        .iter()
        .filter(|t| !matches!(t, Token::Whitespace(_)))
        .collect();
    let word = |i: usize| match words.get(i) {
        Some(Token::Word(w)) => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    if word(0).as_deref() != Some("STATUS") {
        return Err(Error::parse(
            words.first().map(|t| t.to_string()).unwrap_or_default(),
        ));
    }
    match words.len() {
        1 => {}
        4 if word(1).as_deref() == Some("FOR") && word(2).as_deref() == Some("CHANNEL") => {
            let name = match words[3] {
                Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => s.clone(),
                Token::Word(w) => w.value.clone(),
                t => return Err(Error::parse(t.to_string())),
            };
            if !name.is_empty() {
                return Err(Error::new(
                    codes::ER_REPLICA_CHANNEL_DOES_NOT_EXIST,
                    format!("Replication channel '{name}' does not exist."),
                ));
            }
        }
        _ => return Err(Error::parse(words[1].to_string())),
    }
    crate::acl::accounts::require_global(
        sess,
        crate::acl::accounts::privs::SUPER | crate::acl::accounts::privs::REPL_CLIENT,
        "SUPER, REPLICATION CLIENT",
    )?;
    let fields = sess.inst.replica.read().as_ref().and_then(|r| r.status());
    let template = replication::replica::status::status_fields(
        &Default::default(),
        &Default::default(),
        &Default::default(),
        "",
        0,
    );
    let name = |n: &str| {
        if legacy {
            legacy_name(n)
        } else {
            n.to_string()
        }
    };
    let columns: Vec<ColumnMeta> = template
        .iter()
        .map(|(n, f)| match f {
            Field::Int(_) | Field::Null => meta_for_type(&name(n), &ExprType::Int),
            Field::Text(_) => str_meta(&name(n), 1024),
        })
        .collect();
    let rows = fields
        .map(|f| {
            vec![f
                .into_iter()
                .map(|(_, v)| match v {
                    Field::Text(s) => Value::Str(s),
                    Field::Int(n) => Value::UInt(n),
                    Field::Null => Value::Null,
                })
                .collect()]
        })
        .unwrap_or_default();
    Ok(Output::Rows { columns, rows })
}
