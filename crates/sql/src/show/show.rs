//! SHOW statements, DESCRIBE, table maintenance statements and the INFORMATION_SCHEMA /
//! `mysql` / `performance_schema` virtual tables (built on demand from the catalog, so queries
//! against them go through the normal SELECT executor).

use std::sync::Arc;

use common::types::LobSize;
use common::{Collation, ColumnMeta, DataType, Error, Result, Value};
use func::types::ExprType;
use sqlparser::ast;
use sqlparser::tokenizer::Token;
use storage::catalog::{ColumnDef, IndexColumn, IndexDef, IndexKind, TableDef, TableOptions};
use storage::engine::KvEngine;

use crate::bind::expr::Binder;
use crate::bind::select::meta_for_type;
use crate::ir::scope::Scope;
use crate::ir::scope::ScopeCol;
use crate::runtime::schemas::{is_system_db, SYSTEM_DBS};
use crate::session::session::Output;
use crate::session::session::Session;

fn word(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) => Some(w.value.to_ascii_uppercase()),
        _ => None,
    }
}

fn ident(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) => Some(w.value.clone()),
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Some(s.clone()),
        _ => None,
    }
}

/// True for SHOW WARNINGS / ERRORS / COUNT(*) WARNINGS (which must not clear the diagnostics).
pub fn is_show_warnings(tokens: &[Token]) -> bool {
    matches!(
        tokens.first().and_then(word).as_deref(),
        Some("WARNINGS") | Some("ERRORS") | Some("COUNT")
    )
}

/// A cursor over SHOW tokens.
struct Toks<'a> {
    t: &'a [Token],
    i: usize,
}

impl<'a> Toks<'a> {
    fn peek_word(&self) -> Option<String> {
        self.t.get(self.i).and_then(word)
    }
    fn eat(&mut self, w: &str) -> bool {
        if self.peek_word().as_deref() == Some(w) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn next(&mut self) -> Option<&'a Token> {
        let t = self.t.get(self.i);
        self.i += 1;
        t
    }
    fn name(&mut self) -> Result<String> {
        self.next()
            .and_then(ident)
            .ok_or_else(|| Error::parse("SHOW"))
    }
    /// `[db.]name`
    fn qualified(&mut self) -> Result<(Option<String>, String)> {
        let a = self.name()?;
        if self.t.get(self.i) == Some(&Token::Period) {
            self.i += 1;
            let b = self.name()?;
            return Ok((Some(a), b));
        }
        Ok((None, a))
    }
    /// `{FROM | IN} [db.]t [{FROM | IN} db]`, resolved to the table.
    fn parse_from_table<E: KvEngine>(&mut self, sess: &Session<E>) -> Result<Arc<TableDef>> {
        if !(self.eat("FROM") || self.eat("IN")) {
            return Err(Error::parse("SHOW: expected FROM"));
        }
        let (mut db, name) = self.qualified()?;
        if self.eat("FROM") || self.eat("IN") {
            db = Some(self.name()?);
        }
        table_of(sess, db, &name)
    }

    fn rest(&self) -> Vec<Token> {
        self.t[self.i.min(self.t.len())..].to_vec()
    }
    fn done(&self) -> bool {
        self.i >= self.t.len()
    }
}

/// LIKE / WHERE filter of a SHOW statement.
enum Filter {
    None,
    Like(String),
    Where(Box<ast::Expr>),
}

fn parse_filter(t: &mut Toks<'_>) -> Result<Filter> {
    if t.eat("LIKE") {
        return match t.next() {
            Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => {
                Ok(Filter::Like(s.clone()))
            }
            _ => Err(Error::parse("LIKE")),
        };
    }
    if t.eat("WHERE") {
        let e = crate::parse::parser::parse_expr_tokens(t.rest())?;
        t.i = t.t.len();
        return Ok(Filter::Where(Box::new(e)));
    }
    if !t.done() {
        return Err(Error::parse(
            t.rest()
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        ));
    }
    Ok(Filter::None)
}

pub(crate) use crate::bind::select::str_meta;

fn int_meta(name: &str) -> ColumnMeta {
    let mut m = meta_for_type(name, &ExprType::Int);
    m.flags |= common::types::column_flags::NOT_NULL;
    m
}

/// Clears NOT_NULL on columns that hold a NULL.
fn fix_nullability(columns: &mut [ColumnMeta], rows: &[Vec<Value>]) {
    for (i, c) in columns.iter_mut().enumerate() {
        if rows.iter().any(|r| r.get(i).is_some_and(|v| v.is_null())) {
            c.flags &= !common::types::column_flags::NOT_NULL;
        }
    }
}

fn s(v: impl Into<String>) -> Value {
    Value::Str(v.into())
}

/// Builds a result set, applying a LIKE (on the first column) or WHERE filter.
fn result<E: KvEngine>(
    sess: &mut Session<E>,
    columns: Vec<ColumnMeta>,
    rows: Vec<Vec<Value>>,
    filter: Filter,
) -> Result<Output> {
    let mut columns = columns;
    fix_nullability(&mut columns, &rows);
    let rows = match filter {
        Filter::None => rows,
        Filter::Like(p) => rows
            .into_iter()
            .filter(|r| {
                func::scalar::like(&r[0].to_string(), &p, '\\', Collation::Utf8mb4GeneralCi)
            })
            .collect(),
        Filter::Where(e) => {
            let scope = Scope {
                cols: columns
                    .iter()
                    .map(|c| ScopeCol {
                        db: String::new(),
                        table: String::new(),
                        org_table: String::new(),
                        name: c.name.clone(),
                        ty: None,
                        nullable: true,
                        flags: 0,
                        ety: None,
                    })
                    .collect(),
                ..Default::default()
            };
            let bound = Binder::new(&scope, &*sess, "where clause").bind(&e)?;
            sess.with_ctx(&[], false, |_, ctx| {
                let mut out = Vec::new();
                for r in rows {
                    if bound.eval_bool(&r, ctx)? {
                        out.push(r);
                    }
                }
                Ok(out)
            })?
        }
    };
    Ok(Output::Rows { columns, rows })
}

fn resolve_db<E: KvEngine>(sess: &Session<E>, db: Option<String>) -> Result<String> {
    let db = match db {
        Some(d) => d,
        None => sess.db.clone().ok_or_else(Error::no_db)?,
    };
    if !sess.db_exists(&db)? {
        return Err(Error::bad_db(&db));
    }
    Ok(db)
}

fn table_of<E: KvEngine>(
    sess: &Session<E>,
    db: Option<String>,
    name: &str,
) -> Result<Arc<TableDef>> {
    let db = match db {
        Some(d) => d,
        None => sess.db.clone().ok_or_else(Error::no_db)?,
    };
    if let Some(t) = system_table(sess, &db, name)? {
        return Ok(t);
    }
    // (the session's TEMPORARY table of that name first)
    sess.table_def(&db, name)?
        .ok_or_else(|| Error::no_such_table(&db, name))
}

/// Runs a SHOW statement given its tokens (after SHOW).
pub fn show<E: KvEngine>(sess: &mut Session<E>, tokens: &[Token]) -> Result<Output> {
    let mut out = show_inner(sess, tokens)?;
    if let Output::Rows { columns, rows } = &mut out {
        fix_nullability(columns, rows);
    }
    Ok(out)
}

fn show_inner<E: KvEngine>(sess: &mut Session<E>, tokens: &[Token]) -> Result<Output> {
    let mut t = Toks { t: tokens, i: 0 };
    let global = t.eat("GLOBAL");
    if !global {
        let _ = t.eat("SESSION") || t.eat("LOCAL");
    }
    let full = t.eat("FULL");
    let extended = t.eat("EXTENDED");
    let _ = extended;
    let Some(kw) = t.peek_word() else {
        return Err(Error::parse("SHOW"));
    };
    t.i += 1;
    match kw.as_str() {
        "DATABASES" | "SCHEMAS" => {
            let filter = parse_filter(&mut t)?;
            let mut names: Vec<String> = SYSTEM_DBS.iter().map(|s| s.to_string()).collect();
            names.extend(sess.storage().list_databases()?.into_iter().map(|d| d.name));
            let pv = sess.privs();
            names.retain(|n| pv.sees_db(n));
            names.sort();
            result(
                sess,
                vec![str_meta("Database", 64)],
                names.into_iter().map(|n| vec![s(n)]).collect(),
                filter,
            )
        }
        "TABLES" => {
            let db = if t.eat("FROM") || t.eat("IN") {
                Some(t.name()?)
            } else {
                None
            };
            let db = resolve_db(sess, db)?;
            let filter = parse_filter(&mut t)?;
            let mut names = if is_system_db(&db) {
                system_table_names(sess, &db)
            } else {
                sess.storage().list_tables(&db)?
            };
            names.retain(|n| !crate::ddl::alter::is_temp_table(n));
            let pv = sess.privs();
            names.retain(|n| pv.sees_table(&db, n));
            names.sort();
            let mut cols = vec![str_meta(&format!("Tables_in_{db}"), 64)];
            if full {
                cols.push(str_meta("Table_type", 64));
            }
            let mut rows = Vec::with_capacity(names.len());
            for n in names {
                if full {
                    let kind = if is_system_db(&db) {
                        "SYSTEM VIEW"
                    } else if sess
                        .storage()
                        .get_table(&db, &n)?
                        .is_some_and(|t| t.options.view.is_some())
                    {
                        "VIEW"
                    } else {
                        "BASE TABLE"
                    };
                    rows.push(vec![s(n), s(kind)]);
                } else {
                    rows.push(vec![s(n)]);
                }
            }
            result(sess, cols, rows, filter)
        }
        "CREATE" => {
            if t.eat("TABLE") || t.eat("VIEW") {
                let (db, name) = t.qualified()?;
                let tb = table_of(sess, db, &name)?;
                let next_ai = if tb.id != 0 && tb.columns.iter().any(|c| c.auto_increment) {
                    Some(sess.storage().autoinc_peek(&tb)?)
                } else {
                    None
                };
                if let Some(ddl) = crate::ddl::view::show_create(&tb) {
                    return Ok(Output::Rows {
                        columns: vec![
                            str_meta("View", 64),
                            str_meta("Create View", 1024),
                            str_meta("character_set_client", 32),
                            str_meta("collation_connection", 32),
                        ],
                        rows: vec![vec![s(name), s(ddl), s("utf8mb4"), s("utf8mb4_0900_ai_ci")]],
                    });
                }
                let ddl = show_create_table(&tb, next_ai);
                Ok(Output::Rows {
                    columns: vec![str_meta("Table", 64), str_meta("Create Table", 1024)],
                    rows: vec![vec![s(name), s(ddl)]],
                })
            } else if t.eat("PROCEDURE") || t.eat("FUNCTION") {
                let kind = match t.t.get(t.i - 1).and_then(word).as_deref() {
                    Some("PROCEDURE") => storage::catalog::routine::RoutineKind::Procedure,
                    _ => storage::catalog::routine::RoutineKind::Function,
                };
                let (db, name) = t.qualified()?;
                let db = match db {
                    Some(d) => d,
                    None => sess.db.clone().ok_or_else(Error::no_db)?,
                };
                let def = sess
                    .storage()
                    .get_routine(&db, kind, &name)?
                    .filter(|_| sess.privs().sees_db(&db))
                    .ok_or_else(|| {
                        Error::new(
                            common::codes::ER_SP_DOES_NOT_EXIST,
                            format!("{} {name} does not exist", kind.name()),
                        )
                    })?;
                let (columns, rows) = crate::show::routines::show_create(&def);
                Ok(Output::Rows { columns, rows })
            } else if t.eat("DATABASE") || t.eat("SCHEMA") {
                let ine = t.eat("IF") && t.eat("NOT") && t.eat("EXISTS");
                let name = t.name()?;
                if !sess.db_exists(&name)? {
                    return Err(Error::bad_db(&name));
                }
                let coll = sess
                    .storage()
                    .get_database(&name)?
                    .map(|d| d.collation)
                    .unwrap_or_default();
                let text = format!(
                    "CREATE DATABASE {}`{}` /*!40100 DEFAULT CHARACTER SET {} COLLATE {} */ /*!80016 DEFAULT ENCRYPTION='N' */",
                    if ine { "/*!32312 IF NOT EXISTS*/ " } else { "" },
                    name,
                    coll.charset(),
                    coll.name()
                );
                Ok(Output::Rows {
                    columns: vec![str_meta("Database", 64), str_meta("Create Database", 1024)],
                    rows: vec![vec![s(name), s(text)]],
                })
            } else {
                Err(Error::not_supported(format!(
                    "SHOW CREATE {}",
                    t.peek_word().unwrap_or_default()
                )))
            }
        }
        "VARIABLES" => {
            let filter = parse_filter(&mut t)?;
            let rows = variable_rows(sess, global);
            result(
                sess,
                vec![str_meta("Variable_name", 64), str_meta("Value", 1024)],
                rows,
                filter,
            )
        }
        "STATUS" => {
            let filter = parse_filter(&mut t)?;
            let rows = status_rows(sess, global);
            result(
                sess,
                vec![str_meta("Variable_name", 64), str_meta("Value", 1024)],
                rows,
                filter,
            )
        }
        "WARNINGS" | "ERRORS" => {
            let errors_only = kw == "ERRORS";
            let (mut off, mut lim) = (0usize, usize::MAX);
            if t.eat("LIMIT") {
                let a: usize = t
                    .next()
                    .map(|x| x.to_string())
                    .and_then(|x| x.parse().ok())
                    .unwrap_or(0);
                if t.t.get(t.i) == Some(&Token::Comma) {
                    t.i += 1;
                    off = a;
                    lim = t
                        .next()
                        .map(|x| x.to_string())
                        .and_then(|x| x.parse().ok())
                        .unwrap_or(0);
                } else {
                    lim = a;
                }
            }
            let rows = sess
                .warnings
                .iter()
                .filter(|w| !errors_only || w.level == common::Level::Error)
                .skip(off)
                .take(lim)
                .map(|w| {
                    vec![
                        s(w.level.as_str()),
                        Value::Int(w.code as i64),
                        s(w.msg.clone()),
                    ]
                })
                .collect();
            Ok(Output::Rows {
                columns: vec![
                    str_meta("Level", 7),
                    meta_for_type("Code", &ExprType::UInt),
                    str_meta("Message", 512),
                ],
                rows,
            })
        }
        "COUNT" => {
            // COUNT(*) WARNINGS|ERRORS
            while let Some(tok) = t.next() {
                if let Some(w) = word(tok) {
                    let errors = w == "ERRORS";
                    if w == "WARNINGS" || errors {
                        let n = sess
                            .warnings
                            .iter()
                            .filter(|x| !errors || x.level == common::Level::Error)
                            .count();
                        let name = if errors {
                            "@@session.error_count"
                        } else {
                            "@@session.warning_count"
                        };
                        return Ok(Output::Rows {
                            columns: vec![int_meta(name)],
                            rows: vec![vec![Value::Int(n as i64)]],
                        });
                    }
                }
            }
            Err(Error::parse("SHOW COUNT"))
        }
        "COLUMNS" | "FIELDS" => {
            let tb = t.parse_from_table(sess)?;
            let filter = parse_filter(&mut t)?;
            describe_rows(sess, &tb, full, filter)
        }
        "INDEX" | "INDEXES" | "KEYS" => {
            let tb = t.parse_from_table(sess)?;
            let filter = parse_filter(&mut t)?;
            let (cols, rows) = index_rows(sess, &tb);
            result(sess, cols, rows, filter)
        }
        "STORAGE" | "ENGINES" => {
            if kw == "STORAGE" {
                t.eat("ENGINES");
            }
            let cols = [
                "Engine",
                "Support",
                "Comment",
                "Transactions",
                "XA",
                "Savepoints",
            ]
            .iter()
            .map(|n| str_meta(n, 80))
            .collect();
            let rows = vec![
                vec![
                    s("InnoDB"),
                    s("DEFAULT"),
                    s("Strata LSM storage (RocksDB); InnoDB tables are stored here"),
                    s("YES"),
                    s("NO"),
                    s("YES"),
                ],
                vec![
                    s("ROCKSDB"),
                    s("YES"),
                    s("Strata LSM storage (RocksDB)"),
                    s("YES"),
                    s("NO"),
                    s("YES"),
                ],
            ];
            Ok(Output::Rows {
                columns: cols,
                rows,
            })
        }
        "COLLATION" => {
            let filter = parse_filter(&mut t)?;
            let cols = vec![
                str_meta("Collation", 64),
                str_meta("Charset", 64),
                int_meta("Id"),
                str_meta("Default", 3),
                str_meta("Compiled", 3),
                int_meta("Sortlen"),
                str_meta("Pad_attribute", 9),
            ];
            result(sess, cols, collation_rows(), filter)
        }
        "CHARACTER" | "CHARSET" => {
            if kw == "CHARACTER" {
                t.eat("SET");
            }
            let filter = parse_filter(&mut t)?;
            let cols = vec![
                str_meta("Charset", 64),
                str_meta("Description", 64),
                str_meta("Default collation", 64),
                int_meta("Maxlen"),
            ];
            let rows = vec![
                vec![
                    s("binary"),
                    s("Binary pseudo charset"),
                    s("binary"),
                    Value::Int(1),
                ],
                vec![
                    s("latin1"),
                    s("cp1252 West European"),
                    s("latin1_swedish_ci"),
                    Value::Int(1),
                ],
                vec![
                    s("utf8mb3"),
                    s("UTF-8 Unicode"),
                    s("utf8mb3_general_ci"),
                    Value::Int(3),
                ],
                vec![
                    s("utf8mb4"),
                    s("UTF-8 Unicode"),
                    s("utf8mb4_0900_ai_ci"),
                    Value::Int(4),
                ],
            ];
            result(sess, cols, rows, filter)
        }
        "TABLE" => {
            if !t.eat("STATUS") {
                return Err(Error::parse("SHOW TABLE"));
            }
            let db = if t.eat("FROM") || t.eat("IN") {
                Some(t.name()?)
            } else {
                None
            };
            let db = resolve_db(sess, db)?;
            let filter = parse_filter(&mut t)?;
            let (cols, rows) = table_status_rows(sess, &db)?;
            result(sess, cols, rows, filter)
        }
        "PROCESSLIST" => {
            let (cols, rows) = processlist_rows(sess, full);
            Ok(Output::Rows {
                columns: cols,
                rows,
            })
        }
        "ENGINE" => {
            let engine = t.name()?.to_ascii_uppercase();
            let what = t.peek_word().unwrap_or_default();
            engine_rows(sess, &engine, &what)
        }
        // SHOW INNODB STATUS (a client that dropped the /*!40100 ENGINE*/ comment)
        "INNODB" => {
            let what = t.peek_word().unwrap_or_default();
            engine_rows(sess, "INNODB", &what)
        }
        "GRANTS" => {
            let (u, h, lines) = crate::acl::accounts::show_grants(sess, &t.rest())?;
            Ok(Output::Rows {
                columns: vec![str_meta(&format!("Grants for {u}@{h}"), 1024)],
                rows: lines.into_iter().map(|l| vec![s(l)]).collect(),
            })
        }
        "PLUGINS" => {
            let cols = ["Name", "Status", "Type", "Library", "License"]
                .iter()
                .map(|n| str_meta(n, 64))
                .collect();
            let rows = vec![
                vec![
                    s("mysql_native_password"),
                    s("ACTIVE"),
                    s("AUTHENTICATION"),
                    Value::Null,
                    s("GPL"),
                ],
                vec![
                    s("caching_sha2_password"),
                    s("ACTIVE"),
                    s("AUTHENTICATION"),
                    Value::Null,
                    s("GPL"),
                ],
                vec![
                    s("InnoDB"),
                    s("ACTIVE"),
                    s("STORAGE ENGINE"),
                    Value::Null,
                    s("GPL"),
                ],
            ];
            Ok(Output::Rows {
                columns: cols,
                rows,
            })
        }
        "MASTER" | "BINARY" | "BINLOG" => crate::show::binlog::show(sess, &kw, &tokens[t.i..]),
        "REPLICAS" => crate::show::binlog::replicas(sess, false, &tokens[t.i..]),
        "SLAVE" if t.eat("HOSTS") => crate::show::binlog::replicas(sess, true, &tokens[t.i..]),
        "SLAVE" | "REPLICA" => crate::show::replica::status(sess, kw == "SLAVE", &tokens[t.i..]),
        "OPEN" => {
            // SHOW OPEN TABLES [FROM db] [LIKE | WHERE]: the tables whose definitions are
            // loaded; nothing is ever name-locked or pinned between statements here
            if !t.eat("TABLES") {
                return Err(Error::parse("SHOW OPEN"));
            }
            let db = if t.eat("FROM") || t.eat("IN") {
                Some(t.name()?)
            } else {
                None
            };
            let filter = parse_filter(&mut t)?;
            let dbs: Vec<String> = match db {
                Some(d) => vec![d],
                None => sess
                    .storage()
                    .list_databases()?
                    .into_iter()
                    .map(|d| d.name)
                    .collect(),
            };
            let mut rows = Vec::new();
            for d in dbs {
                let mut names = sess.storage().list_tables(&d)?;
                names.sort();
                for n in names {
                    rows.push(vec![s(d.clone()), s(n), Value::Int(0), Value::Int(0)]);
                }
            }
            let cols = vec![
                str_meta("Database", 64),
                str_meta("Table", 64),
                int_meta("In_use"),
                int_meta("Name_locked"),
            ];
            result(sess, cols, rows, filter)
        }
        // No stored programs exist (not supported yet): MySQL's column shapes, no rows.
        "TRIGGERS" => Ok(Output::Rows {
            columns: [
                "Trigger",
                "Event",
                "Table",
                "Statement",
                "Timing",
                "Created",
                "sql_mode",
                "Definer",
                "character_set_client",
                "collation_connection",
                "Database Collation",
            ]
            .iter()
            .map(|n| str_meta(n, 64))
            .collect(),
            rows: vec![],
        }),
        "PROCEDURE" | "FUNCTION" if t.eat("STATUS") => {
            let kind = if kw == "PROCEDURE" {
                storage::catalog::routine::RoutineKind::Procedure
            } else {
                storage::catalog::routine::RoutineKind::Function
            };
            let defs: Vec<_> = routines_seen(sess)?
                .into_iter()
                .filter(|r| r.kind == kind)
                .collect();
            let mut rows = crate::show::routines::status_rows(&defs);
            // LIKE matches the routine's name (the second column)
            let filter = match parse_filter(&mut t)? {
                Filter::Like(p) => {
                    rows.retain(|r| {
                        func::scalar::like(&r[1].to_string(), &p, '\\', Collation::Utf8mb4GeneralCi)
                    });
                    Filter::None
                }
                f => f,
            };
            result(sess, crate::show::routines::status_columns(), rows, filter)
        }
        "EVENTS" => Ok(Output::Rows {
            columns: [
                "Db",
                "Name",
                "Type",
                "Definer",
                "Modified",
                "Created",
                "Security_type",
                "Comment",
                "character_set_client",
                "collation_connection",
                "Database Collation",
            ]
            .iter()
            .map(|n| str_meta(n, 64))
            .collect(),
            rows: vec![],
        }),
        other => Err(Error::parse(format!("SHOW {other}"))),
    }
}

/// The stored routines of the databases the session may see.
fn routines_seen<E: KvEngine>(
    sess: &Session<E>,
) -> Result<Vec<storage::catalog::routine::RoutineDef>> {
    let pv = sess.privs();
    let mut v = sess.storage().list_routines(None)?;
    v.retain(|r| pv.sees_db(&r.db));
    Ok(v)
}

/// DESCRIBE / SHOW COLUMNS output.
pub fn describe_table<E: KvEngine>(
    sess: &mut Session<E>,
    name: &ast::ObjectName,
    _col: Option<&str>,
) -> Result<Output> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|p| p.to_string().trim_matches('`').to_string())
        .collect();
    let (db, tname) = match parts.as_slice() {
        [t] => (None, t.clone()),
        [d, t] => (Some(d.clone()), t.clone()),
        _ => return Err(Error::parse(name.to_string())),
    };
    let tb = table_of(sess, db, &tname)?;
    if let Some(v) = &tb.options.view {
        // a view whose tables or columns are gone is 1356, as MySQL reports it
        crate::ddl::view::plan_view(sess, &tb, v)?;
    }
    describe_rows(sess, &tb, false, Filter::None)
}

fn key_flag(t: &TableDef, ci: usize) -> &'static str {
    for (ino, ix) in t.indexes.iter().enumerate() {
        if t.hidden_pk && ino == 0 {
            continue;
        }
        if ix.columns.first().is_some_and(|c| c.col == ci) {
            return match ix.kind {
                IndexKind::Primary => "PRI",
                IndexKind::Unique if ix.columns.len() == 1 && !t.columns[ci].nullable => "PRI",
                IndexKind::Unique if ix.columns.len() == 1 => "UNI",
                _ => "MUL",
            };
        }
    }
    ""
}

/// The column type as DESCRIBE prints it (with charset-free type text).
pub fn type_text(ty: &DataType) -> String {
    match ty {
        DataType::Int {
            bytes: 1,
            width: Some(1),
            unsigned: false,
            zerofill: false,
        } => "tinyint(1)".into(),
        DataType::Int {
            bytes,
            unsigned,
            zerofill,
            width,
        } => {
            let mut d = ty.clone();
            if !*zerofill {
                d = DataType::Int {
                    bytes: *bytes,
                    unsigned: *unsigned,
                    width: None,
                    zerofill: false,
                };
            } else if width.is_none() {
                let w = match bytes {
                    1 => 3,
                    2 => 5,
                    3 => 8,
                    4 => 10,
                    _ => 20,
                };
                d = DataType::Int {
                    bytes: *bytes,
                    unsigned: *unsigned,
                    width: Some(w),
                    zerofill: true,
                };
            }
            d.sql_name()
        }
        other => other.sql_name(),
    }
}

fn default_display(c: &ColumnDef) -> Value {
    match &c.default {
        None => Value::Null,
        Some(d) if d.eq_ignore_ascii_case("NULL") => Value::Null,
        Some(d) => {
            if let Some(inner) = d.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
                s(inner.replace("''", "'"))
            } else {
                s(d.clone())
            }
        }
    }
}

/// A generated column's expression as MySQL prints it (SHOW CREATE TABLE's `AS (…)`,
/// INFORMATION_SCHEMA.COLUMNS.GENERATION_EXPRESSION); empty for other columns.
pub fn generation_expression(c: &ColumnDef) -> String {
    match &c.generated {
        Some(g) => match crate::parse::stored_expr(&g.expr, "generated column expression") {
            Ok(e) => crate::parse::print::expr(&e),
            Err(_) => g.expr.clone(),
        },
        None => String::new(),
    }
}

/// Whether a column is listed (not the hidden column of a functional key part).
pub fn listed(c: &ColumnDef) -> bool {
    !c.is_hidden()
}

fn extra(c: &ColumnDef) -> String {
    if let Some(g) = &c.generated {
        return if g.stored {
            "STORED GENERATED"
        } else {
            "VIRTUAL GENERATED"
        }
        .into();
    }
    let mut parts = Vec::new();
    if c.auto_increment {
        parts.push("auto_increment".to_string());
    }
    if let Some(d) = &c.default {
        if d.to_ascii_uppercase().starts_with("CURRENT_TIMESTAMP") {
            parts.push("DEFAULT_GENERATED".into());
        }
    }
    if let Some(u) = &c.on_update {
        parts.push(format!("on update {}", u.to_ascii_uppercase()));
    }
    parts.join(" ")
}

fn describe_rows<E: KvEngine>(
    sess: &mut Session<E>,
    t: &TableDef,
    full: bool,
    filter: Filter,
) -> Result<Output> {
    let mut cols = vec![str_meta("Field", 64), str_meta("Type", 64)];
    if full {
        cols.push(str_meta("Collation", 64));
    }
    cols.extend([
        str_meta("Null", 3),
        str_meta("Key", 3),
        str_meta("Default", 64),
        str_meta("Extra", 64),
    ]);
    if full {
        cols.extend([str_meta("Privileges", 80), str_meta("Comment", 1024)]);
    }
    let mut rows = Vec::new();
    for (i, c) in t.columns.iter().enumerate().filter(|(_, c)| listed(c)) {
        let mut r = vec![s(c.name.clone()), s(type_text(&c.ty))];
        if full {
            r.push(
                if c.ty.is_text() || matches!(c.ty, DataType::Enum { .. } | DataType::Set { .. }) {
                    s(c.ty.collation().name())
                } else {
                    Value::Null
                },
            );
        }
        r.extend([
            s(if c.nullable { "YES" } else { "NO" }),
            s(key_flag(t, i)),
            default_display(c),
            s(extra(c)),
        ]);
        if full {
            r.extend([s("select,insert,update,references"), s(c.comment.clone())]);
        }
        rows.push(r);
    }
    result(sess, cols, rows, filter)
}

fn index_rows<E: KvEngine>(sess: &Session<E>, t: &TableDef) -> (Vec<ColumnMeta>, Vec<Vec<Value>>) {
    let names = [
        "Table",
        "Non_unique",
        "Key_name",
        "Seq_in_index",
        "Column_name",
        "Collation",
        "Cardinality",
        "Sub_part",
        "Packed",
        "Null",
        "Index_type",
        "Comment",
        "Index_comment",
        "Visible",
        "Expression",
    ];
    let cols = names
        .iter()
        .map(|n| {
            if matches!(
                *n,
                "Non_unique" | "Seq_in_index" | "Cardinality" | "Sub_part"
            ) {
                int_meta(n)
            } else {
                str_meta(n, 64)
            }
        })
        .collect();
    let (approx, _, _) = sess.storage().table_stats(t).unwrap_or((0, 0, 0));
    let st = sess.inst.stats.get(sess.storage(), t);
    let mut rows = Vec::new();
    for (ino, ix) in t.indexes.iter().enumerate() {
        if t.hidden_pk && ino == 0 {
            continue;
        }
        for (seq, ic) in ix.columns.iter().enumerate() {
            let c = &t.columns[ic.col];
            // a functional key part shows its expression instead of its hidden column
            let (column, expression) = if listed(c) {
                (s(c.name.clone()), Value::Null)
            } else {
                (Value::Null, s(generation_expression(c)))
            };
            rows.push(vec![
                s(t.name.clone()),
                Value::Int((ix.kind == IndexKind::Normal) as i64),
                s(ix.name.clone()),
                Value::Int(seq as i64 + 1),
                column,
                s(if ic.desc { "D" } else { "A" }),
                Value::Int(
                    st.as_ref()
                        .and_then(|st| st.cardinality.get(ino).and_then(|c| c.get(seq)).copied())
                        .unwrap_or(approx) as i64,
                ),
                ic.prefix_len
                    .map(|p| Value::Int(p as i64))
                    .unwrap_or(Value::Null),
                Value::Null,
                s(if c.nullable { "YES" } else { "" }),
                s("BTREE"),
                s(""),
                s(""),
                s("YES"),
                expression,
            ]);
        }
    }
    (cols, rows)
}

fn collation_rows() -> Vec<Vec<Value>> {
    let listed = common::collation::registry::LIST.iter();
    [
        Collation::Utf8mb4_0900AiCi,
        Collation::Utf8mb4GeneralCi,
        Collation::Utf8mb4Bin,
        Collation::Latin1SwedishCi,
        Collation::Latin1Bin,
        Collation::Binary,
    ]
    .into_iter()
    .chain(listed.map(|i| Collation::Other(i.id)))
    .map(|c| {
        let default = matches!(
            c,
            Collation::Utf8mb4_0900AiCi | Collation::Latin1SwedishCi | Collation::Binary
        );
        vec![
            s(c.name()),
            s(c.charset()),
            Value::Int(c.id() as i64),
            s(if default { "Yes" } else { "" }),
            s("Yes"),
            Value::Int(c.sortlen() as i64),
            s(if c.pad_space() { "PAD SPACE" } else { "NO PAD" }),
        ]
    })
    .collect()
}

/// (name, value) rows of SHOW VARIABLES / *_VARIABLES: global values, or the session's view.
fn variable_rows<E: KvEngine>(sess: &Session<E>, global: bool) -> Vec<Vec<Value>> {
    sess.inst
        .globals
        .all()
        .into_iter()
        .map(|(name, v)| {
            let v = match sess.live_global(name) {
                Some(live) => live,
                None if global => v,
                None => sess.var(name).unwrap_or(v),
            };
            let bool_kind = crate::runtime::sysvars::lookup(name)
                .is_some_and(|d| d.kind == crate::runtime::sysvars::Kind::Bool);
            let text = match v {
                Value::Null => String::new(),
                // MySQL shows boolean variables as ON / OFF (`@@x` is still 1 / 0)
                Value::Int(i) if bool_kind => (if i != 0 { "ON" } else { "OFF" }).to_string(),
                v => v.to_string(),
            };
            vec![s(name), s(text)]
        })
        .collect()
}

fn status_rows<E: KvEngine>(sess: &Session<E>, global: bool) -> Vec<Vec<Value>> {
    let all = sess.inst.global_counters();
    let all_reads = global_handler_reads(sess);
    let mut v: Vec<(&str, String)> = Vec::new();
    // session-scoped counters: the session's own, or every session's for GLOBAL
    let (counters, reads) = if global {
        (&all, all_reads)
    } else {
        (&*sess.counters, sess.handler.values())
    };
    v.extend(counters.values().map(|(k, n)| (k, n.to_string())));
    v.extend(reads.iter().map(|(k, n)| (*k, n.to_string())));
    v.extend(instance_status(sess));
    v.extend(innodb_rows(&all, &all_reads));
    let zero = crate::runtime::status::ALWAYS_ZERO;
    v.extend(zero.iter().map(|k| (*k, "0".to_string())));
    v.extend([
        ("Ssl_cipher", sess.ssl.1.clone()),
        ("Ssl_version", sess.ssl.0.clone()),
    ]);
    let extra = server_info(sess).map(|i| i.status()).unwrap_or_default();
    v.retain(|(k, _)| !extra.iter().any(|(e, _)| e == k));
    v.extend(extra.iter().map(|(k, val)| (k.as_str(), val.clone())));
    v.sort_by(|a, b| a.0.cmp(b.0));
    v.into_iter().map(|(k, val)| vec![s(k), s(val)]).collect()
}

/// Handler_read_* of every session, live and ended.
fn global_handler_reads<E: KvEngine>(sess: &Session<E>) -> [(&'static str, u64); 6] {
    let all = crate::session::session::HandlerReads::default();
    all.add(&sess.inst.handler_closed);
    for p in sess.inst.processes.lock().values() {
        all.add(&p.handler);
    }
    all.values()
}

/// The global-only counters the instance keeps (the server may replace the thread counts).
fn instance_status<E: KvEngine>(sess: &Session<E>) -> Vec<(&'static str, String)> {
    use std::sync::atomic::Ordering::Relaxed;
    let st = &sess.inst.status;
    let running = st.threads_running.load(Relaxed).max(1);
    let counts: [(&str, u64); 17] = [
        ("Aborted_clients", st.aborted_clients.load(Relaxed)),
        ("Aborted_connects", st.aborted_connects.load(Relaxed)),
        ("Connections", st.connections.load(Relaxed)),
        (
            "Created_tmp_disk_tables",
            st.created_tmp_disk_tables.load(Relaxed),
        ),
        ("Created_tmp_files", st.created_tmp_files.load(Relaxed)),
        ("Created_tmp_tables", st.created_tmp_tables.load(Relaxed)),
        (
            "Max_used_connections",
            st.max_used_connections.load(Relaxed),
        ),
        ("Sort_merge_passes", st.sort_merge_passes.load(Relaxed)),
        ("Sort_rows", st.sort_rows.load(Relaxed)),
        ("Strata_plan_cache_hits", st.plan_cache_hits.load(Relaxed)),
        (
            "Strata_plan_cache_misses",
            st.plan_cache_misses.load(Relaxed),
        ),
        (
            "Strata_text_template_hits",
            st.text_template_hits.load(Relaxed),
        ),
        ("Threads_connected", st.threads_connected.load(Relaxed)),
        ("Threads_running", running),
        ("Uptime", sess.inst.uptime_secs()),
        (
            "Uptime_since_flush_status",
            sess.inst.uptime_since_flush_secs(),
        ),
        // without a server (embedded, tests) no connection thread was ever made
        ("Threads_created", 0),
    ];
    let mut out: Vec<(&str, String)> = counts.iter().map(|(k, n)| (*k, n.to_string())).collect();
    out.push(("Threads_cached", "0".into()));
    out
}

/// `Innodb_rows_*` (global only): Strata's row counters — rows the storage layer returned
/// (every Handler_read_*) and rows INSERT / UPDATE / DELETE statements changed.
fn innodb_rows(
    all: &crate::session::session::Counters,
    reads: &[(&'static str, u64); 6],
) -> [(&'static str, String); 4] {
    use crate::session::session::Ctr;
    let read: u64 = reads.iter().map(|(_, n)| n).sum();
    [
        ("Innodb_rows_read", read.to_string()),
        (
            "Innodb_rows_inserted",
            all.get(Ctr::HandlerWrite).to_string(),
        ),
        (
            "Innodb_rows_updated",
            all.get(Ctr::HandlerUpdate).to_string(),
        ),
        (
            "Innodb_rows_deleted",
            all.get(Ctr::HandlerDelete).to_string(),
        ),
    ]
}

fn server_info<E: KvEngine>(
    sess: &Session<E>,
) -> Option<Arc<dyn crate::runtime::info::ServerInfo>> {
    sess.inst.server_info.read().clone()
}

/// Columns of a table the server provides (the thread pool's TP_* tables).
fn server_info_columns<E: KvEngine>(sess: &Session<E>, table: &str) -> Option<Vec<ColumnDef>> {
    let info = server_info(sess)?;
    let t = info.tables().iter().find(|t| t.name == table)?;
    Some(
        t.columns
            .iter()
            .map(|(name, ty)| match ty {
                crate::runtime::info::InfoType::BigInt => bi(name),
                crate::runtime::info::InfoType::VarChar(n) => vc(name, *n),
            })
            .collect(),
    )
}

fn processlist_rows<E: KvEngine>(
    sess: &Session<E>,
    full: bool,
) -> (Vec<ColumnMeta>, Vec<Vec<Value>>) {
    let cols = vec![
        int_meta("Id"),
        str_meta("User", 32),
        str_meta("Host", 64),
        str_meta("db", 64),
        str_meta("Command", 16),
        int_meta("Time"),
        str_meta("State", 64),
        str_meta("Info", 1024),
    ];
    let all_threads = sess.privs().global() & crate::parse::acl::privs::PROCESS != 0;
    let procs = sess.inst.processes.lock();
    let mut ids: Vec<_> = procs
        .iter()
        .filter(|(_, p)| all_threads || p.user == sess.user)
        .map(|(id, _)| *id)
        .collect();
    ids.sort();
    let rows = ids
        .into_iter()
        .map(|id| {
            let p = &procs[&id];
            let now = p.now.lock().clone();
            let info = now.info.as_ref().map(|i| {
                if full {
                    i.to_string()
                } else {
                    i.chars().take(100).collect()
                }
            });
            let waiting = p.wait_state.load(std::sync::atomic::Ordering::Relaxed);
            let state = match common::wait::WaitType::from_u8(waiting) {
                _ if now.command == "Sleep" => "",
                Some(w) => w.state(),
                None => "executing",
            };
            vec![
                Value::Int(id as i64),
                s(p.user.clone()),
                s(p.host.clone()),
                now.db.map(s).unwrap_or(Value::Null),
                s(now.command),
                Value::Int(now.since.elapsed().as_secs() as i64),
                s(state),
                info.map(s).unwrap_or(Value::Null),
            ]
        })
        .collect();
    (cols, rows)
}

/// The sessions the performance_schema tables and SHOW ENGINE INNODB STATUS show (all of them
/// with the PROCESS privilege, else the user's own), in id order.
fn thread_views<E: KvEngine>(sess: &Session<E>) -> Vec<crate::runtime::perfschema::ThreadView> {
    let all_threads = sess.privs().global() & crate::parse::acl::privs::PROCESS != 0;
    let procs = sess.inst.processes.lock();
    let mut v: Vec<_> = procs
        .iter()
        .filter(|(_, p)| all_threads || p.user == sess.user)
        .map(|(id, p)| {
            let now = p.now.lock().clone();
            let waiting = p.wait_state.load(std::sync::atomic::Ordering::Relaxed);
            let state = match common::wait::WaitType::from_u8(waiting) {
                _ if now.command == "Sleep" => "",
                Some(w) => w.state(),
                None => "executing",
            };
            crate::runtime::perfschema::ThreadView {
                id: u64::from(*id),
                user: p.user.clone(),
                host: p.host.clone(),
                db: now.db,
                command: now.command,
                since: now.since,
                info: now.info,
                state,
                query_id: p.counters.get(crate::session::session::Ctr::Questions),
                stmts: p.counters.clone(),
            }
        })
        .collect();
    v.sort_by_key(|t| t.id);
    v
}

/// SHOW ENGINE `engine` {STATUS | MUTEX}: InnoDB's monitor (`show::engine_status`), RocksDB's
/// statistics from the server, no mutex rows.
fn engine_rows<E: KvEngine>(sess: &mut Session<E>, engine: &str, what: &str) -> Result<Output> {
    let columns = vec![
        str_meta("Type", 10),
        str_meta("Name", 10),
        str_meta("Status", 4096),
    ];
    if what == "MUTEX" {
        return Ok(Output::Rows {
            columns,
            rows: vec![],
        });
    }
    let info = server_info(sess);
    let rows = match engine {
        "INNODB" | "INNOBASE" => {
            let threads = thread_views(sess);
            let all = sess.inst.global_counters();
            let read: u64 = global_handler_reads(sess).iter().map(|(_, n)| n).sum();
            use crate::session::session::Ctr;
            let server_status = info.as_ref().map(|i| i.status()).unwrap_or_default();
            let cx = crate::show::engine_status::MonitorInput {
                threads: &threads,
                perf: sess.inst.globals.perf(),
                server_status: &server_status,
                rows: [
                    all.get(Ctr::HandlerWrite),
                    all.get(Ctr::HandlerUpdate),
                    all.get(Ctr::HandlerDelete),
                    read,
                ],
                uptime: sess.inst.uptime_secs(),
            };
            let text = crate::show::engine_status::innodb_status(sess.storage(), &cx)?;
            vec![vec![s("InnoDB"), s(""), s(text)]]
        }
        "ROCKSDB" => match info.as_ref().and_then(|i| i.engine_status("ROCKSDB")) {
            Some(r) => r
                .into_iter()
                .map(|(a, b, c)| vec![s(a), s(b), s(c)])
                .collect(),
            None => vec![vec![
                s("STATISTICS"),
                s("rocksdb"),
                s(format!("row locks: {:?}\n", sess.storage().locks().stats())),
            ]],
        },
        other => {
            // ER_UNKNOWN_STORAGE_ENGINE (not in common's table yet)
            const UNKNOWN_ENGINE: common::codes::ErrorCode = common::codes::ErrorCode {
                num: 1286,
                sqlstate: "42000",
                name: "ER_UNKNOWN_STORAGE_ENGINE",
            };
            return Err(Error::new(
                UNKNOWN_ENGINE,
                format!("Unknown storage engine '{other}'"),
            ));
        }
    };
    Ok(Output::Rows { columns, rows })
}

fn table_status_rows<E: KvEngine>(
    sess: &Session<E>,
    db: &str,
) -> Result<(Vec<ColumnMeta>, Vec<Vec<Value>>)> {
    let names = [
        "Name",
        "Engine",
        "Version",
        "Row_format",
        "Rows",
        "Avg_row_length",
        "Data_length",
        "Max_data_length",
        "Index_length",
        "Data_free",
        "Auto_increment",
        "Create_time",
        "Update_time",
        "Check_time",
        "Collation",
        "Checksum",
        "Create_options",
        "Comment",
    ];
    let ints = [
        "Version",
        "Rows",
        "Avg_row_length",
        "Data_length",
        "Max_data_length",
        "Index_length",
        "Data_free",
        "Auto_increment",
        "Checksum",
    ];
    let cols = names
        .iter()
        .map(|n| {
            if ints.contains(n) {
                int_meta(n)
            } else {
                str_meta(n, 64)
            }
        })
        .collect();
    let mut rows = Vec::new();
    let mut tables = if is_system_db(db) {
        vec![]
    } else {
        sess.storage().list_tables(db)?
    };
    let pv = sess.privs();
    tables.retain(|n| !crate::ddl::alter::is_temp_table(n) && pv.sees_table(db, n));
    tables.sort();
    for name in tables {
        let Some(t) = sess.storage().get_table(db, &name)? else {
            continue;
        };
        let (r, d, i) = sess.storage().table_stats(&t)?;
        let ai = if t.columns.iter().any(|c| c.auto_increment) {
            Value::Int(sess.storage().autoinc_peek(&t)? as i64)
        } else {
            Value::Null
        };
        rows.push(vec![
            s(name),
            s(t.options.engine.clone()),
            Value::Int(10),
            s("Dynamic"),
            Value::Int(r as i64),
            Value::Int(d.checked_div(r).unwrap_or(0) as i64),
            Value::Int(d as i64),
            Value::Int(0),
            Value::Int(i as i64),
            Value::Int(0),
            ai,
            Value::Null,
            Value::Null,
            Value::Null,
            s(t.options.collation.name()),
            Value::Null,
            s(crate::parse::storage_options::create_options(
                &t.options, false,
            )),
            s(t.options.comment.clone()),
        ]);
    }
    Ok((cols, rows))
}

fn quote_ident(n: &str) -> String {
    format!("`{}`", n.replace('`', "``"))
}

/// A string in quotes as MySQL's SHOW CREATE TABLE prints comments and defaults
/// (`append_unescaped`): `'` doubled; backslash, NUL, newline, carriage return and Ctrl-Z as
/// backslash escapes, so the text parses back to the same string.
fn quote_str(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push('\'');
    for ch in v.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("''"),
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// SHOW CREATE TABLE text in MySQL 8's format.
pub fn show_create_table(t: &TableDef, next_autoinc: Option<u64>) -> String {
    let mut lines = Vec::new();
    for c in t.columns.iter().filter(|c| listed(c)) {
        let mut l = format!("  {} {}", quote_ident(&c.name), type_text(&c.ty));
        let coll = c.ty.collation();
        if (c.ty.is_text() || matches!(c.ty, DataType::Enum { .. } | DataType::Set { .. }))
            && coll != t.options.collation
        {
            if coll.charset() != t.options.collation.charset() {
                l.push_str(&format!(" CHARACTER SET {}", coll.charset()));
            }
            l.push_str(&format!(" COLLATE {}", coll.name()));
        }
        if let Some(g) = &c.generated {
            l.push_str(&format!(
                " GENERATED ALWAYS AS ({}) {}",
                generation_expression(c),
                if g.stored { "STORED" } else { "VIRTUAL" }
            ));
            if !c.nullable {
                l.push_str(" NOT NULL");
            }
            if !c.comment.is_empty() {
                l.push_str(&format!(" COMMENT {}", quote_str(&c.comment)));
            }
            lines.push(l);
            continue;
        }
        if !c.nullable {
            l.push_str(" NOT NULL");
        } else if matches!(c.ty, DataType::Timestamp { .. }) {
            l.push_str(" NULL");
        }
        match &c.default {
            Some(d) if d.eq_ignore_ascii_case("NULL") => {
                if c.nullable {
                    l.push_str(" DEFAULT NULL");
                }
            }
            Some(d) => {
                let up = d.to_ascii_uppercase();
                if up.starts_with("CURRENT_TIMESTAMP") || up.starts_with("NOW(") {
                    l.push_str(&format!(
                        " DEFAULT {}",
                        up.replace("NOW()", "CURRENT_TIMESTAMP")
                    ));
                } else if let Some(inner) = d.strip_prefix('\'').and_then(|x| x.strip_suffix('\''))
                {
                    l.push_str(&format!(
                        " DEFAULT {}",
                        quote_str(&inner.replace("''", "'"))
                    ));
                } else if d.starts_with('(') {
                    l.push_str(&format!(" DEFAULT {d}"));
                } else {
                    l.push_str(&format!(" DEFAULT {}", quote_str(d)));
                }
            }
            None => {
                if c.nullable && !c.auto_increment && !c.ty.is_lob() {
                    l.push_str(" DEFAULT NULL");
                }
            }
        }
        if let Some(u) = &c.on_update {
            l.push_str(&format!(" ON UPDATE {}", u.to_ascii_uppercase()));
        }
        if c.auto_increment {
            l.push_str(" AUTO_INCREMENT");
        }
        if !c.comment.is_empty() {
            l.push_str(&format!(" COMMENT {}", quote_str(&c.comment)));
        }
        lines.push(l);
    }
    let keycols = |ix: &IndexDef| {
        ix.columns
            .iter()
            .map(|ic| {
                let c = &t.columns[ic.col];
                let mut k = if listed(c) {
                    quote_ident(&c.name)
                } else {
                    format!("({})", generation_expression(c))
                };
                if let Some(p) = ic.prefix_len {
                    k.push_str(&format!("({p})"));
                }
                if ic.desc {
                    k.push_str(" DESC");
                }
                k
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    for (ino, ix) in t.indexes.iter().enumerate() {
        if ino == 0 {
            if !t.hidden_pk {
                lines.push(format!("  PRIMARY KEY ({})", keycols(ix)));
            }
            continue;
        }
        let kind = if ix.kind == IndexKind::Unique {
            "UNIQUE KEY"
        } else {
            "KEY"
        };
        lines.push(format!(
            "  {kind} {} ({})",
            quote_ident(&ix.name),
            keycols(ix)
        ));
    }
    // FOREIGN KEY constraints, by name as MySQL lists them; RESTRICT (the default) is not shown
    let mut fks: Vec<_> = t.foreign_keys.iter().collect();
    fks.sort_by(|a, b| a.name.cmp(&b.name));
    let idents = |v: &[String]| {
        v.iter()
            .map(|c| quote_ident(c))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for fk in fks {
        let parent = if fk.ref_db == t.db {
            quote_ident(&fk.ref_table)
        } else {
            format!("{}.{}", quote_ident(&fk.ref_db), quote_ident(&fk.ref_table))
        };
        let mut l = format!(
            "  CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {parent} ({})",
            quote_ident(&fk.name),
            idents(&fk.columns),
            idents(&fk.ref_columns)
        );
        for (what, rule) in [("DELETE", &fk.on_delete), ("UPDATE", &fk.on_update)] {
            if !rule.is_empty() && rule != "RESTRICT" {
                l.push_str(&format!(" ON {what} {rule}"));
            }
        }
        lines.push(l);
    }
    lines.extend(crate::show::constraints::create_lines(t));
    let mut out = format!(
        "CREATE {}TABLE {} (\n{}\n) ENGINE={}",
        if t.temporary { "TEMPORARY " } else { "" },
        quote_ident(&t.name),
        lines.join(",\n"),
        t.options.engine
    );
    let ai = next_autoinc.unwrap_or(t.options.auto_increment);
    if ai > 1 {
        out.push_str(&format!(" AUTO_INCREMENT={ai}"));
    }
    out.push_str(&format!(
        " DEFAULT CHARSET={} COLLATE={}",
        t.options.collation.charset(),
        t.options.collation.name()
    ));
    out.push_str(&crate::parse::storage_options::show_create(&t.options));
    if !t.options.comment.is_empty() {
        out.push_str(&format!(" COMMENT={}", quote_str(&t.options.comment)));
    }
    out.push_str(&crate::catalog::partition::show_create_clause(t));
    out
}

/// ANALYZE / OPTIMIZE TABLE: the four-column status result.
pub fn admin_table<E: KvEngine>(sess: &mut Session<E>, stmt: &ast::Statement) -> Result<Output> {
    let (op, names): (&str, Vec<ast::ObjectName>) = match stmt {
        ast::Statement::Analyze(a) => ("analyze", a.table_name.iter().cloned().collect()),
        ast::Statement::OptimizeTable { name, .. } => ("optimize", vec![name.clone()]),
        _ => return Err(Error::internal("admin_table")),
    };
    let mut tables = Vec::new();
    for n in names {
        let (db, t) = crate::ddl::table::qualify(sess, &n)?;
        tables.push((Some(db), t));
    }
    admin_tables(sess, op, &tables)
}

/// ANALYZE / OPTIMIZE TABLE (`op`) of `tables`: one result row per table, in order.
pub fn admin_tables<E: KvEngine>(
    sess: &mut Session<E>,
    op: &str,
    tables: &[crate::parse::maintenance::TableName],
) -> Result<Output> {
    let mut rows = Vec::new();
    for (db, t) in tables {
        let db = match db {
            Some(d) => d.clone(),
            None => sess.db.clone().ok_or_else(Error::no_db)?,
        };
        let t = t.clone();
        let status = match sess.storage().get_table(&db, &t)? {
            Some(tb) => {
                if op == "analyze" && tb.id != 0 && tb.options.view.is_none() {
                    crate::catalog::stats::analyze(sess, &tb)?;
                }
                vec![s(format!("{db}.{t}")), s(op), s("status"), s("OK")]
            }
            None => vec![
                s(format!("{db}.{t}")),
                s(op),
                s("Error"),
                s(format!("Table '{db}.{t}' doesn't exist")),
            ],
        };
        rows.push(status);
    }
    let cols = ["Table", "Op", "Msg_type", "Msg_text"]
        .iter()
        .map(|n| str_meta(n, 64))
        .collect();
    Ok(Output::Rows {
        columns: cols,
        rows,
    })
}

// ---------------------------------------------------------------------------------------------
// INFORMATION_SCHEMA and friends

fn vc(name: &str, len: u32) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty: DataType::VarChar {
            len,
            collation: Collation::Utf8mb4GeneralCi,
        },
        nullable: true,
        default: None,
        auto_increment: false,
        on_update: None,
        comment: String::new(),
        instant_default: None,
        generated: None,
    }
}

fn bi(name: &str) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty: DataType::Int {
            bytes: 8,
            unsigned: true,
            width: None,
            zerofill: false,
        },
        nullable: true,
        default: None,
        auto_increment: false,
        on_update: None,
        comment: String::new(),
        instant_default: None,
        generated: None,
    }
}

fn lt(name: &str) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty: DataType::Text {
            size: LobSize::Long,
            collation: Collation::Utf8mb4GeneralCi,
        },
        nullable: true,
        default: None,
        auto_increment: false,
        on_update: None,
        comment: String::new(),
        instant_default: None,
        generated: None,
    }
}

fn dt(name: &str) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty: DataType::DateTime { fsp: 0 },
        nullable: true,
        default: None,
        auto_increment: false,
        on_update: None,
        comment: String::new(),
        instant_default: None,
        generated: None,
    }
}

fn is_columns(table: &str) -> Option<Vec<ColumnDef>> {
    Some(match table {
        "SCHEMATA" => vec![
            vc("CATALOG_NAME", 64),
            vc("SCHEMA_NAME", 64),
            vc("DEFAULT_CHARACTER_SET_NAME", 64),
            vc("DEFAULT_COLLATION_NAME", 64),
            vc("SQL_PATH", 512),
            vc("DEFAULT_ENCRYPTION", 3),
        ],
        "TABLES" => vec![
            vc("TABLE_CATALOG", 64),
            vc("TABLE_SCHEMA", 64),
            vc("TABLE_NAME", 64),
            vc("TABLE_TYPE", 64),
            vc("ENGINE", 64),
            bi("VERSION"),
            vc("ROW_FORMAT", 10),
            bi("TABLE_ROWS"),
            bi("AVG_ROW_LENGTH"),
            bi("DATA_LENGTH"),
            bi("MAX_DATA_LENGTH"),
            bi("INDEX_LENGTH"),
            bi("DATA_FREE"),
            bi("AUTO_INCREMENT"),
            dt("CREATE_TIME"),
            dt("UPDATE_TIME"),
            dt("CHECK_TIME"),
            vc("TABLE_COLLATION", 64),
            bi("CHECKSUM"),
            vc("CREATE_OPTIONS", 256),
            vc("TABLE_COMMENT", 2048),
        ],
        "COLUMNS" => vec![
            vc("TABLE_CATALOG", 64),
            vc("TABLE_SCHEMA", 64),
            vc("TABLE_NAME", 64),
            vc("COLUMN_NAME", 64),
            bi("ORDINAL_POSITION"),
            lt("COLUMN_DEFAULT"),
            vc("IS_NULLABLE", 3),
            vc("DATA_TYPE", 64),
            bi("CHARACTER_MAXIMUM_LENGTH"),
            bi("CHARACTER_OCTET_LENGTH"),
            bi("NUMERIC_PRECISION"),
            bi("NUMERIC_SCALE"),
            bi("DATETIME_PRECISION"),
            vc("CHARACTER_SET_NAME", 64),
            vc("COLLATION_NAME", 64),
            lt("COLUMN_TYPE"),
            vc("COLUMN_KEY", 3),
            vc("EXTRA", 256),
            vc("PRIVILEGES", 154),
            lt("COLUMN_COMMENT"),
            lt("GENERATION_EXPRESSION"),
            bi("SRS_ID"),
        ],
        "STATISTICS" => vec![
            vc("TABLE_CATALOG", 64),
            vc("TABLE_SCHEMA", 64),
            vc("TABLE_NAME", 64),
            bi("NON_UNIQUE"),
            vc("INDEX_SCHEMA", 64),
            vc("INDEX_NAME", 64),
            bi("SEQ_IN_INDEX"),
            vc("COLUMN_NAME", 64),
            vc("COLLATION", 1),
            bi("CARDINALITY"),
            bi("SUB_PART"),
            vc("PACKED", 10),
            vc("NULLABLE", 3),
            vc("INDEX_TYPE", 16),
            vc("COMMENT", 16),
            vc("INDEX_COMMENT", 1024),
            vc("IS_VISIBLE", 3),
            lt("EXPRESSION"),
        ],
        "PROCESSLIST" => vec![
            bi("ID"),
            vc("USER", 32),
            vc("HOST", 261),
            vc("DB", 64),
            vc("COMMAND", 16),
            bi("TIME"),
            vc("STATE", 64),
            lt("INFO"),
        ],
        "ENGINES" => vec![
            vc("ENGINE", 64),
            vc("SUPPORT", 8),
            vc("COMMENT", 80),
            vc("TRANSACTIONS", 3),
            vc("XA", 3),
            vc("SAVEPOINTS", 3),
        ],
        "COLLATIONS" => vec![
            vc("COLLATION_NAME", 64),
            vc("CHARACTER_SET_NAME", 64),
            bi("ID"),
            vc("IS_DEFAULT", 3),
            vc("IS_COMPILED", 3),
            bi("SORTLEN"),
            vc("PAD_ATTRIBUTE", 9),
        ],
        "COLLATION_CHARACTER_SET_APPLICABILITY" => {
            vec![vc("COLLATION_NAME", 64), vc("CHARACTER_SET_NAME", 64)]
        }
        "CHARACTER_SETS" => vec![
            vc("CHARACTER_SET_NAME", 64),
            vc("DEFAULT_COLLATE_NAME", 64),
            vc("DESCRIPTION", 2048),
            bi("MAXLEN"),
        ],
        "KEY_COLUMN_USAGE" => vec![
            vc("CONSTRAINT_CATALOG", 64),
            vc("CONSTRAINT_SCHEMA", 64),
            vc("CONSTRAINT_NAME", 64),
            vc("TABLE_CATALOG", 64),
            vc("TABLE_SCHEMA", 64),
            vc("TABLE_NAME", 64),
            vc("COLUMN_NAME", 64),
            bi("ORDINAL_POSITION"),
            bi("POSITION_IN_UNIQUE_CONSTRAINT"),
            vc("REFERENCED_TABLE_SCHEMA", 64),
            vc("REFERENCED_TABLE_NAME", 64),
            vc("REFERENCED_COLUMN_NAME", 64),
        ],
        "TABLE_CONSTRAINTS" => vec![
            vc("CONSTRAINT_CATALOG", 64),
            vc("CONSTRAINT_SCHEMA", 64),
            vc("CONSTRAINT_NAME", 64),
            vc("TABLE_SCHEMA", 64),
            vc("TABLE_NAME", 64),
            vc("CONSTRAINT_TYPE", 11),
            vc("ENFORCED", 3),
        ],
        "REFERENTIAL_CONSTRAINTS" => vec![
            vc("CONSTRAINT_CATALOG", 64),
            vc("CONSTRAINT_SCHEMA", 64),
            vc("CONSTRAINT_NAME", 64),
            vc("UNIQUE_CONSTRAINT_CATALOG", 64),
            vc("UNIQUE_CONSTRAINT_SCHEMA", 64),
            vc("UNIQUE_CONSTRAINT_NAME", 64),
            vc("MATCH_OPTION", 64),
            vc("UPDATE_RULE", 64),
            vc("DELETE_RULE", 64),
            vc("TABLE_NAME", 64),
            vc("REFERENCED_TABLE_NAME", 64),
        ],
        "PARTITIONS" => vec![
            vc("TABLE_CATALOG", 64),
            vc("TABLE_SCHEMA", 64),
            vc("TABLE_NAME", 64),
            vc("PARTITION_NAME", 64),
            vc("SUBPARTITION_NAME", 64),
            bi("PARTITION_ORDINAL_POSITION"),
            bi("SUBPARTITION_ORDINAL_POSITION"),
            vc("PARTITION_METHOD", 13),
            vc("SUBPARTITION_METHOD", 13),
            lt("PARTITION_EXPRESSION"),
            lt("SUBPARTITION_EXPRESSION"),
            lt("PARTITION_DESCRIPTION"),
            bi("TABLE_ROWS"),
            bi("AVG_ROW_LENGTH"),
            bi("DATA_LENGTH"),
            bi("MAX_DATA_LENGTH"),
            bi("INDEX_LENGTH"),
            bi("DATA_FREE"),
            dt("CREATE_TIME"),
            dt("UPDATE_TIME"),
            dt("CHECK_TIME"),
            bi("CHECKSUM"),
            vc("PARTITION_COMMENT", 2048),
            vc("NODEGROUP", 256),
            vc("TABLESPACE_NAME", 268),
        ],
        "VIEWS" => vec![
            vc("TABLE_CATALOG", 64),
            vc("TABLE_SCHEMA", 64),
            vc("TABLE_NAME", 64),
            lt("VIEW_DEFINITION"),
            vc("CHECK_OPTION", 8),
            vc("IS_UPDATABLE", 3),
            vc("DEFINER", 288),
            vc("SECURITY_TYPE", 7),
            vc("CHARACTER_SET_CLIENT", 64),
            vc("COLLATION_CONNECTION", 64),
        ],
        // InnoDB page compression: none in Strata, so no rows; monitoring tools (mysqld_exporter's
        // default collectors) query them
        "INNODB_CMP" | "INNODB_CMP_RESET" => vec![
            bi("page_size"),
            bi("compress_ops"),
            bi("compress_ops_ok"),
            bi("compress_time"),
            bi("uncompress_ops"),
            bi("uncompress_time"),
        ],
        "INNODB_CMPMEM" | "INNODB_CMPMEM_RESET" => vec![
            bi("page_size"),
            bi("buffer_pool_instance"),
            bi("pages_used"),
            bi("pages_free"),
            bi("relocation_ops"),
            bi("relocation_time"),
        ],
        // tablespace data files: none to show (RocksDB keeps no per-table files); dump tools
        // query it
        "FILES" => vec![
            bi("FILE_ID"),
            vc("FILE_NAME", 4000),
            vc("FILE_TYPE", 256),
            vc("TABLESPACE_NAME", 268),
            vc("TABLE_CATALOG", 64),
            vc("TABLE_SCHEMA", 64),
            vc("TABLE_NAME", 64),
            vc("LOGFILE_GROUP_NAME", 256),
            bi("LOGFILE_GROUP_NUMBER"),
            vc("ENGINE", 64),
            bi("TOTAL_EXTENTS"),
            bi("EXTENT_SIZE"),
            bi("INITIAL_SIZE"),
            bi("MAXIMUM_SIZE"),
            bi("AUTOEXTEND_SIZE"),
            vc("STATUS", 256),
            vc("EXTRA", 256),
        ],
        "TRIGGERS" => vec![
            vc("TRIGGER_CATALOG", 64),
            vc("TRIGGER_SCHEMA", 64),
            vc("TRIGGER_NAME", 64),
            vc("EVENT_MANIPULATION", 6),
            vc("EVENT_OBJECT_SCHEMA", 64),
            vc("EVENT_OBJECT_TABLE", 64),
        ],
        "SESSION_VARIABLES" | "GLOBAL_VARIABLES" | "SESSION_STATUS" | "GLOBAL_STATUS" => {
            vec![vc("VARIABLE_NAME", 64), vc("VARIABLE_VALUE", 1024)]
        }
        "PLUGINS" => vec![
            vc("PLUGIN_NAME", 64),
            vc("PLUGIN_VERSION", 20),
            vc("PLUGIN_STATUS", 10),
            vc("PLUGIN_TYPE", 80),
        ],
        _ => return None,
    })
}

const IS_TABLES: &[&str] = &[
    "CHARACTER_SETS",
    "CHECK_CONSTRAINTS",
    "COLLATION_CHARACTER_SET_APPLICABILITY",
    "COLLATIONS",
    "COLUMNS",
    "ENGINES",
    "FILES",
    "GLOBAL_STATUS",
    "GLOBAL_VARIABLES",
    "INNODB_CMP",
    "INNODB_CMPMEM",
    "INNODB_CMPMEM_RESET",
    "INNODB_CMP_RESET",
    "INNODB_TABLES",
    "INNODB_TABLESPACES",
    "INNODB_TEMP_TABLE_INFO",
    "KEY_COLUMN_USAGE",
    "PARAMETERS",
    "PARTITIONS",
    "PLUGINS",
    "PROCESSLIST",
    "REFERENTIAL_CONSTRAINTS",
    "ROUTINES",
    "SCHEMATA",
    "SESSION_STATUS",
    "SESSION_VARIABLES",
    "STATISTICS",
    "TABLES",
    "TABLE_CONSTRAINTS",
    "TRIGGERS",
    "VIEWS",
];

fn system_table_names<E: KvEngine>(sess: &Session<E>, db: &str) -> Vec<String> {
    if db.eq_ignore_ascii_case("information_schema") {
        let extra = server_info(sess).map(|i| i.tables()).unwrap_or_default();
        let mut v: Vec<String> = IS_TABLES.iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|t| t.name.to_string()));
        v.sort();
        v
    } else if db.eq_ignore_ascii_case("mysql") {
        let mut v: Vec<String> = crate::acl::accounts::MYSQL_TABLES
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(["func", "innodb_index_stats", "innodb_table_stats"].map(String::from));
        v.sort();
        v
    } else if db.eq_ignore_ascii_case("performance_schema") {
        let mut v: Vec<String> = vec![
            "global_variables".into(),
            "session_variables".into(),
            "global_status".into(),
            "session_status".into(),
            "user_defined_functions".into(),
            crate::show::replica_config::TABLE.into(),
        ];
        v.extend(
            crate::show::perfschema::TABLES
                .iter()
                .map(|t| t.to_string()),
        );
        v.sort();
        v
    } else {
        vec![]
    }
}

/// The definition of a virtual system table, if `db.name` is one.
pub fn system_table<E: KvEngine>(
    sess: &Session<E>,
    db: &str,
    name: &str,
) -> Result<Option<Arc<TableDef>>> {
    if !is_system_db(db) {
        return Ok(None);
    }
    if db.eq_ignore_ascii_case("mysql") {
        let lower = name.to_ascii_lowercase();
        let columns = crate::show::udf::columns(true, &lower)
            .or_else(|| crate::show::innodb_stats::columns(&lower))
            .or_else(|| crate::acl::accounts::mysql_columns(&lower))
            .ok_or_else(|| Error::no_such_table(db, name))?;
        return Ok(Some(system_view("mysql", lower, columns)));
    }
    let upper = name.to_ascii_uppercase();
    let known = (db.eq_ignore_ascii_case("information_schema")
        && IS_TABLES.contains(&upper.as_str()))
        || (db.eq_ignore_ascii_case("performance_schema")
            && matches!(
                upper.as_str(),
                "GLOBAL_VARIABLES" | "SESSION_VARIABLES" | "GLOBAL_STATUS" | "SESSION_STATUS"
            ));
    let provided = if db.eq_ignore_ascii_case("information_schema") {
        server_info_columns(sess, &upper)
    } else if db.eq_ignore_ascii_case("performance_schema") {
        crate::show::perfschema::columns(name)
            .or_else(|| crate::show::udf::columns(false, name))
            .or_else(|| crate::show::replica_config::columns(name))
    } else {
        None
    };
    if !known && provided.is_none() {
        return Err(Error::no_such_table(db, name));
    }
    let columns = is_columns(&upper)
        .or_else(|| crate::show::constraints::is_columns(&upper))
        .or_else(|| crate::show::innodb::is_columns(&upper))
        .or_else(|| crate::show::routines::is_columns(&upper))
        .or(provided)
        .ok_or_else(|| Error::no_such_table(db, name))?;
    Ok(Some(system_view(&db.to_ascii_lowercase(), upper, columns)))
}

/// INFORMATION_SCHEMA.TABLES.CREATE_TIME: the definition's time in the session's time zone
/// (NULL for a table stored before Strata kept it).
fn create_time(secs: u64, tz: i32) -> Value {
    let local = (secs as i64 + i64::from(tz)) * 1_000_000;
    match func::temporal::unix_micros_to_dt(local) {
        Some(d) if secs > 0 => Value::DateTime(d, 0),
        _ => Value::Null,
    }
}

fn opt_int(v: Option<u64>) -> Value {
    v.map(Value::UInt).unwrap_or(Value::Null)
}

/// Rows of a virtual system table (None if `t` is a real table).
pub fn system_rows<E: KvEngine>(
    sess: &mut Session<E>,
    t: &TableDef,
) -> Result<Option<Vec<Vec<Value>>>> {
    if t.id != 0 || !is_system_db(&t.db) {
        return Ok(None);
    }
    if crate::show::udf::columns(t.db == "mysql", &t.name).is_some()
        && matches!(t.db.as_str(), "mysql" | "performance_schema")
    {
        return Ok(Some(crate::show::udf::rows()));
    }
    if t.db == "performance_schema" && crate::show::replica_config::columns(&t.name).is_some() {
        let cfg = sess.inst.replica.read().as_ref().and_then(|r| r.config());
        return Ok(Some(crate::show::replica_config::rows(cfg)));
    }
    if t.db == "mysql" && !crate::show::innodb_stats::is_table(&t.name) {
        return Ok(Some(crate::acl::accounts::mysql_rows(
            &sess.inst.acl,
            &t.name,
        )));
    }
    if t.db == "performance_schema" && crate::show::perfschema::is_table(&t.name) {
        let threads = thread_views(sess);
        let cx = crate::show::perfschema::Context {
            perf: sess.inst.globals.perf(),
            threads: &threads,
            tz: sess.tz_offset_secs(),
        };
        return Ok(Some(crate::show::perfschema::rows(&t.name, &cx)));
    }
    let def = || s("def");
    let mut rows = Vec::new();
    let pv = sess.privs();
    let user_dbs: Vec<String> = sess
        .storage()
        .list_databases()?
        .into_iter()
        .map(|d| d.name)
        .filter(|d| pv.sees_db(d))
        .collect();
    let all_tables = |sess: &Session<E>| -> Result<Vec<Arc<TableDef>>> {
        let mut v = Vec::new();
        for d in &user_dbs {
            for n in sess.storage().list_tables(d)? {
                if crate::ddl::alter::is_temp_table(&n) || !pv.sees_table(d, &n) {
                    continue;
                }
                if let Some(t) = sess.storage().get_table(d, &n)? {
                    v.push(t);
                }
            }
        }
        Ok(v)
    };
    match t.name.as_str() {
        "SCHEMATA" => {
            for d in SYSTEM_DBS
                .iter()
                .map(|s| s.to_string())
                .filter(|d| pv.sees_db(d))
                .chain(user_dbs.iter().cloned())
            {
                let coll = sess
                    .storage()
                    .get_database(&d)?
                    .map(|d| d.collation)
                    .unwrap_or_default();
                rows.push(vec![
                    def(),
                    s(d),
                    s(coll.charset()),
                    s(coll.name()),
                    Value::Null,
                    s("NO"),
                ]);
            }
        }
        "PARTITIONS" => {
            for tb in all_tables(sess)? {
                if tb.options.view.is_none() {
                    rows.extend(crate::catalog::partition::info_schema_rows(sess, &tb)?);
                }
            }
        }
        "VIEWS" => {
            for tb in all_tables(sess)? {
                if let Some(v) = &tb.options.view {
                    rows.push(vec![
                        def(),
                        s(tb.db.clone()),
                        s(tb.name.clone()),
                        s(v.select.clone()),
                        s(if v.check_option.is_empty() {
                            "NONE"
                        } else {
                            &v.check_option
                        }),
                        s(if crate::ddl::view::is_updatable(sess, &tb) {
                            "YES"
                        } else {
                            "NO"
                        }),
                        s(v.definer.replace('`', "")),
                        s(v.security.clone()),
                        s("utf8mb4"),
                        s("utf8mb4_0900_ai_ci"),
                    ]);
                }
            }
        }
        "TABLES" => {
            for d in ["information_schema", "performance_schema"] {
                for n in system_table_names(sess, d) {
                    rows.push(vec![
                        def(),
                        s(d),
                        s(n),
                        s("SYSTEM VIEW"),
                        Value::Null,
                        Value::UInt(10),
                        Value::Null,
                        Value::UInt(0),
                        Value::UInt(0),
                        Value::UInt(0),
                        Value::UInt(0),
                        Value::UInt(0),
                        Value::UInt(0),
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        Value::Null,
                        s("utf8mb4_0900_ai_ci"),
                        Value::Null,
                        s(""),
                        s(""),
                    ]);
                }
            }
            for tb in all_tables(sess)? {
                if tb.options.view.is_some() {
                    let mut row = vec![def(), s(tb.db.clone()), s(tb.name.clone()), s("VIEW")];
                    row.extend(std::iter::repeat_n(Value::Null, 16));
                    row.push(s("VIEW"));
                    rows.push(row);
                    continue;
                }
                let (r, d, i) = sess.storage().table_stats(&tb)?;
                let ai = if tb.columns.iter().any(|c| c.auto_increment) {
                    opt_int(sess.storage().autoinc_peek(&tb).ok())
                } else {
                    Value::Null
                };
                rows.push(vec![
                    def(),
                    s(tb.db.clone()),
                    s(tb.name.clone()),
                    s("BASE TABLE"),
                    s(tb.options.engine.clone()),
                    Value::UInt(10),
                    s("Dynamic"),
                    Value::UInt(r),
                    Value::UInt(d.checked_div(r).unwrap_or(0)),
                    Value::UInt(d),
                    Value::UInt(0),
                    Value::UInt(i),
                    Value::UInt(0),
                    ai,
                    create_time(tb.options.create_time, sess.tz_offset_secs()),
                    Value::Null,
                    Value::Null,
                    s(tb.options.collation.name()),
                    Value::Null,
                    s(crate::parse::storage_options::create_options(
                        &tb.options,
                        tb.partitioning.is_some(),
                    )),
                    s(tb.options.comment.clone()),
                ]);
            }
        }
        "COLUMNS" => {
            for tb in all_tables(sess)? {
                for (i, c) in tb.columns.iter().enumerate().filter(|(_, c)| listed(c)) {
                    let base = c.ty.sql_name();
                    let data_type: String = base
                        .chars()
                        .take_while(|ch| ch.is_ascii_alphabetic())
                        .collect();
                    let (cl, ol) = match &c.ty {
                        DataType::Char { len, collation }
                        | DataType::VarChar { len, collation } => (
                            Some(*len as u64),
                            Some(*len as u64 * collation.max_len() as u64),
                        ),
                        DataType::Binary { len } | DataType::VarBinary { len } => {
                            (Some(*len as u64), Some(*len as u64))
                        }
                        DataType::Text { size, .. } => {
                            (Some(size.max_bytes()), Some(size.max_bytes()))
                        }
                        DataType::Blob { size } => (Some(size.max_bytes()), Some(size.max_bytes())),
                        _ => (None, None),
                    };
                    let (np, ns) = match &c.ty {
                        DataType::Int {
                            bytes, unsigned, ..
                        } => (
                            Some(match (bytes, unsigned) {
                                (1, _) => 3,
                                (2, _) => 5,
                                (3, _) => 7,
                                (4, _) => 10,
                                (_, false) => 19,
                                _ => 20,
                            }),
                            Some(0),
                        ),
                        DataType::Decimal {
                            precision, scale, ..
                        } => (Some(*precision as u64), Some(*scale as u64)),
                        DataType::Float { .. } => (Some(12), None),
                        DataType::Double { .. } => (Some(22), None),
                        _ => (None, None),
                    };
                    let dp = match &c.ty {
                        DataType::DateTime { fsp }
                        | DataType::Timestamp { fsp }
                        | DataType::Time { fsp } => Some(*fsp as u64),
                        _ => None,
                    };
                    let is_str = c.ty.is_text()
                        || matches!(c.ty, DataType::Enum { .. } | DataType::Set { .. });
                    rows.push(vec![
                        def(),
                        s(tb.db.clone()),
                        s(tb.name.clone()),
                        s(c.name.clone()),
                        Value::UInt(i as u64 + 1),
                        default_display(c),
                        s(if c.nullable { "YES" } else { "NO" }),
                        s(data_type),
                        opt_int(cl),
                        opt_int(ol),
                        opt_int(np),
                        opt_int(ns),
                        opt_int(dp),
                        if is_str {
                            s(c.ty.collation().charset())
                        } else {
                            Value::Null
                        },
                        if is_str {
                            s(c.ty.collation().name())
                        } else {
                            Value::Null
                        },
                        s(type_text(&c.ty)),
                        s(key_flag(&tb, i)),
                        s(extra(c)),
                        s("select,insert,update,references"),
                        s(c.comment.clone()),
                        s(generation_expression(c)),
                        Value::Null,
                    ]);
                }
            }
        }
        "STATISTICS" => {
            for tb in all_tables(sess)? {
                let (_, r) = index_rows(sess, &tb);
                for x in r {
                    rows.push(vec![
                        def(),
                        s(tb.db.clone()),
                        x[0].clone(),
                        x[1].clone(),
                        s(tb.db.clone()),
                        x[2].clone(),
                        x[3].clone(),
                        x[4].clone(),
                        x[5].clone(),
                        x[6].clone(),
                        x[7].clone(),
                        Value::Null,
                        x[9].clone(),
                        x[10].clone(),
                        s(""),
                        s(""),
                        s("YES"),
                        x[14].clone(),
                    ]);
                }
            }
        }
        "REFERENTIAL_CONSTRAINTS" => {
            for tb in all_tables(sess)? {
                for fk in &tb.foreign_keys {
                    // the parent's unique key over the referenced columns, as MySQL reports it
                    let parent = sess.storage().get_table(&fk.ref_db, &fk.ref_table)?;
                    let unique = parent.as_ref().and_then(|p| {
                        p.visible_indexes()
                            .find(|(_, ix)| {
                                ix.kind != IndexKind::Normal
                                    && ix.columns.len() == fk.ref_columns.len()
                                    && ix.columns.iter().zip(&fk.ref_columns).all(|(ic, c)| {
                                        p.columns[ic.col].name.eq_ignore_ascii_case(c)
                                    })
                            })
                            .map(|(_, ix)| ix.name.clone())
                    });
                    let rule = |r: &str| s(if r.is_empty() { "NO ACTION" } else { r }.to_string());
                    rows.push(vec![
                        def(),
                        s(tb.db.clone()),
                        s(fk.name.clone()),
                        def(),
                        s(fk.ref_db.clone()),
                        unique.map_or(Value::Null, s),
                        s("NONE"),
                        rule(&fk.on_update),
                        rule(&fk.on_delete),
                        s(tb.name.clone()),
                        s(fk.ref_table.clone()),
                    ]);
                }
            }
        }
        "CHECK_CONSTRAINTS" => {
            rows = crate::show::constraints::check_constraint_rows(&all_tables(sess)?);
        }
        "ROUTINES" | "PARAMETERS" => {
            rows = crate::show::routines::rows(&routines_seen(sess)?, &t.name);
        }
        "INNODB_TEMP_TABLE_INFO" => {
            rows = crate::show::constraints::temp_table_info_rows(sess.storage())?;
        }
        "innodb_table_stats" | "innodb_index_stats" => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let tables = all_tables(sess)?;
            rows = crate::show::innodb_stats::rows(
                sess.storage(),
                &t.name,
                &tables,
                create_time(now, sess.tz_offset_secs()),
            )?;
        }
        "INNODB_TABLES" | "INNODB_TABLESPACES" => {
            let version = match sess.inst.globals.get("version") {
                Some(Value::Str(v)) => v,
                _ => String::new(),
            };
            let tables = all_tables(sess)?;
            rows = crate::show::innodb::rows(&t.name, &tables, &version, |tb| {
                sess.storage().table_stats(tb).map(|(_, d, i)| (d, i))
            })?;
        }
        "KEY_COLUMN_USAGE" | "TABLE_CONSTRAINTS" => {
            for tb in all_tables(sess)? {
                if t.name == "TABLE_CONSTRAINTS" {
                    rows.extend(crate::show::constraints::table_constraint_rows(&tb));
                }
                for fk in &tb.foreign_keys {
                    if t.name == "TABLE_CONSTRAINTS" {
                        rows.push(vec![
                            def(),
                            s(tb.db.clone()),
                            s(fk.name.clone()),
                            s(tb.db.clone()),
                            s(tb.name.clone()),
                            s("FOREIGN KEY"),
                            s("YES"),
                        ]);
                        continue;
                    }
                    for (k, (c, rc)) in fk.columns.iter().zip(&fk.ref_columns).enumerate() {
                        rows.push(vec![
                            def(),
                            s(tb.db.clone()),
                            s(fk.name.clone()),
                            def(),
                            s(tb.db.clone()),
                            s(tb.name.clone()),
                            s(c.clone()),
                            Value::UInt(k as u64 + 1),
                            Value::UInt(k as u64 + 1),
                            s(fk.ref_db.clone()),
                            s(fk.ref_table.clone()),
                            s(rc.clone()),
                        ]);
                    }
                }
                for (ino, ix) in tb.indexes.iter().enumerate() {
                    if (tb.hidden_pk && ino == 0) || ix.kind == IndexKind::Normal {
                        continue;
                    }
                    if t.name == "TABLE_CONSTRAINTS" {
                        rows.push(vec![
                            def(),
                            s(tb.db.clone()),
                            s(ix.name.clone()),
                            s(tb.db.clone()),
                            s(tb.name.clone()),
                            s(if ino == 0 { "PRIMARY KEY" } else { "UNIQUE" }),
                            s("YES"),
                        ]);
                    } else {
                        for (k, ic) in ix.columns.iter().enumerate() {
                            if tb.columns[ic.col].is_hidden() {
                                continue; // a functional key part names no column (MySQL)
                            }
                            rows.push(vec![
                                def(),
                                s(tb.db.clone()),
                                s(ix.name.clone()),
                                def(),
                                s(tb.db.clone()),
                                s(tb.name.clone()),
                                s(tb.columns[ic.col].name.clone()),
                                Value::UInt(k as u64 + 1),
                                Value::Null,
                                Value::Null,
                                Value::Null,
                                Value::Null,
                            ]);
                        }
                    }
                }
            }
        }
        "PROCESSLIST" => {
            let (_, r) = processlist_rows(sess, true);
            rows = r;
        }
        "ENGINES" => {
            rows.push(vec![
                s("InnoDB"),
                s("DEFAULT"),
                s("Strata LSM storage (RocksDB)"),
                s("YES"),
                s("NO"),
                s("YES"),
            ]);
            rows.push(vec![
                s("ROCKSDB"),
                s("YES"),
                s("Strata LSM storage (RocksDB)"),
                s("YES"),
                s("NO"),
                s("YES"),
            ]);
        }
        "COLLATION_CHARACTER_SET_APPLICABILITY" => {
            for r in collation_rows() {
                rows.push(vec![r[0].clone(), r[1].clone()]);
            }
        }
        "COLLATIONS" => {
            for r in collation_rows() {
                rows.push(vec![
                    r[0].clone(),
                    r[1].clone(),
                    r[2].clone(),
                    r[3].clone(),
                    r[4].clone(),
                    r[5].clone(),
                    r[6].clone(),
                ]);
            }
        }
        "CHARACTER_SETS" => {
            rows.push(vec![
                s("binary"),
                s("binary"),
                s("Binary pseudo charset"),
                Value::UInt(1),
            ]);
            rows.push(vec![
                s("latin1"),
                s("latin1_swedish_ci"),
                s("cp1252 West European"),
                Value::UInt(1),
            ]);
            rows.push(vec![
                s("utf8mb3"),
                s("utf8mb3_general_ci"),
                s("UTF-8 Unicode"),
                Value::UInt(3),
            ]);
            rows.push(vec![
                s("utf8mb4"),
                s("utf8mb4_0900_ai_ci"),
                s("UTF-8 Unicode"),
                Value::UInt(4),
            ]);
        }
        "SESSION_VARIABLES" | "GLOBAL_VARIABLES" => {
            let global = t.name.starts_with("GLOBAL");
            rows = variable_rows(sess, global);
        }
        "SESSION_STATUS" | "GLOBAL_STATUS" => {
            rows = status_rows(sess, t.name.starts_with("GLOBAL"))
        }
        other => {
            if let Some(info) = server_info(sess) {
                if info.tables().iter().any(|t| t.name == other) {
                    rows = info.rows(other);
                }
            }
        }
    }
    Ok(Some(rows))
}

/// The definition of a read-only system table (INFORMATION_SCHEMA, performance_schema, the
/// `mysql` grant tables): rows are generated, never stored.
fn system_view(db: &str, name: String, columns: Vec<ColumnDef>) -> Arc<TableDef> {
    Arc::new(TableDef {
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        temporary: false,
        partitioning: None,
        leaf: None,
        part_select: None,
        id: 0,
        db: db.into(),
        name,
        columns,
        indexes: vec![IndexDef {
            id: 0,
            name: "PRIMARY".into(),
            kind: IndexKind::Primary,
            columns: Vec::<IndexColumn>::new(),
            comment: String::new(),
            options: Default::default(),
        }],
        hidden_pk: true,
        version: 1,
        options: TableOptions {
            engine: "SYSTEM VIEW".into(),
            ..Default::default()
        },
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod status_tests {
    use storage::mem::MemEngine;

    use crate::session::session::test_support::{ok, rows, session};
    use crate::Session;

    fn status(s: &mut Session<MemEngine>, scope: &str, name: &str) -> u64 {
        let r = rows(s, &format!("SHOW {scope} STATUS LIKE '{name}'"));
        assert_eq!(r.len(), 1, "{scope} {name}: {r:?}");
        r[0][1].parse().unwrap()
    }

    #[test]
    fn every_com_variable_is_listed() {
        let mut s = session();
        let names: Vec<String> = rows(&mut s, "SHOW GLOBAL STATUS LIKE 'Com\\_%'")
            .into_iter()
            .map(|r| r[0].clone())
            .collect();
        let want: Vec<String> = crate::runtime::status::COM_NAMES
            .iter()
            .map(|n| n.to_string())
            .collect();
        let mut sorted = want.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert!(names.contains(&"Com_show_status".to_string()));
        assert!(names.len() > 150, "{}", names.len());
    }

    #[test]
    fn statement_counters_move() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
        let sel = status(&mut s, "SESSION", "Com_select");
        let ins = status(&mut s, "GLOBAL", "Com_insert");
        rows(&mut s, "SELECT 1");
        ok(&mut s, "INSERT INTO t VALUES (1, 1), (2, 2)");
        ok(&mut s, "INSERT INTO t SELECT id + 10, v FROM t");
        ok(&mut s, "UPDATE t SET v = 3 WHERE id = 1");
        ok(&mut s, "SET @a = 1");
        assert_eq!(status(&mut s, "SESSION", "Com_select"), sel + 1);
        assert_eq!(status(&mut s, "GLOBAL", "Com_insert"), ins + 1);
        assert_eq!(status(&mut s, "SESSION", "Com_insert_select"), 1);
        assert_eq!(status(&mut s, "SESSION", "Com_update"), 1);
        assert_eq!(status(&mut s, "SESSION", "Com_set_option"), 1);
        assert_eq!(status(&mut s, "SESSION", "Com_create_table"), 1);
        // SHOW STATUS counts itself: 8 above, and this one
        assert_eq!(status(&mut s, "SESSION", "Com_show_status"), 9);
        assert_eq!(status(&mut s, "GLOBAL", "Handler_write"), 4);
        assert_eq!(status(&mut s, "GLOBAL", "Innodb_rows_inserted"), 4);
        assert_eq!(status(&mut s, "GLOBAL", "Innodb_rows_updated"), 1);
        let scans = status(&mut s, "SESSION", "Select_scan");
        rows(&mut s, "SELECT * FROM t");
        assert_eq!(status(&mut s, "SESSION", "Select_scan"), scans + 1);
        assert!(status(&mut s, "GLOBAL", "Innodb_rows_read") >= 4);
    }

    #[test]
    fn prepared_statements_count_both_kinds() {
        let mut s = session();
        let (id, _, _) = s.prepare("SELECT ?").unwrap();
        s.execute(id, &[common::Value::Int(1)]).unwrap();
        s.close_statement(id);
        ok(&mut s, "PREPARE p FROM 'SELECT 1'");
        rows(&mut s, "EXECUTE p");
        assert_eq!(status(&mut s, "SESSION", "Com_stmt_prepare"), 2);
        assert_eq!(status(&mut s, "SESSION", "Com_stmt_execute"), 2);
        assert_eq!(status(&mut s, "SESSION", "Com_stmt_close"), 1);
        assert_eq!(status(&mut s, "SESSION", "Com_prepare_sql"), 1);
        assert_eq!(status(&mut s, "SESSION", "Com_execute_sql"), 1);
        assert_eq!(status(&mut s, "SESSION", "Com_select"), 2);
    }

    #[test]
    fn bytes_counted_and_flush_status_resets_the_session() {
        let mut s = session();
        s.count_bytes(100, 2000);
        assert_eq!(status(&mut s, "SESSION", "Bytes_received"), 100);
        assert_eq!(status(&mut s, "SESSION", "Bytes_sent"), 2000);
        rows(&mut s, "SELECT 1");
        let questions = status(&mut s, "SESSION", "Questions");
        assert!(questions >= 3, "{questions}");
        ok(&mut s, "FLUSH STATUS");
        assert_eq!(status(&mut s, "SESSION", "Com_select"), 0);
        assert_eq!(status(&mut s, "SESSION", "Bytes_sent"), 0);
        // the questions since: the two SHOW STATUS above and this one
        assert_eq!(status(&mut s, "SESSION", "Questions"), 3);
        // the global values keep what the session counted
        assert_eq!(status(&mut s, "GLOBAL", "Bytes_sent"), 2000);
        assert!(status(&mut s, "GLOBAL", "Com_select") >= 1);
        assert!(status(&mut s, "GLOBAL", "Uptime_since_flush_status") <= 1);
        // a session that ended keeps its counts in the global values
        let inst = s.inst.clone();
        let other = Session::new(inst, 2, "root", "localhost", None).unwrap();
        other.count_bytes(5, 0);
        drop(other);
        assert_eq!(status(&mut s, "GLOBAL", "Bytes_received"), 105);
    }

    #[test]
    fn unmeasured_variables_are_zero() {
        let mut s = session();
        for name in [
            "Key_reads",
            "Select_full_join",
            "Table_open_cache_overflows",
        ] {
            assert_eq!(status(&mut s, "GLOBAL", name), 0);
        }
    }
}
