//! The privilege check: one place where every statement is checked before it runs. [`needs`]
//! lists what a parsed statement requires — (db, table, columns, privileges), database or
//! global privileges, thread ownership — and [`check`] tests the list against the session's
//! privileges, failing with MySQL's error for the first unmet need (1142 table, 1143 column,
//! 1044 database, 1227 global privilege, 1095 KILL, 1045 global GRANT without GRANT OPTION).
//!
//! Column needs are derived from the column names a statement mentions (qualified names by
//! their last part): a name counts against every table of the statement that has such a
//! column. This errs on the strict side for joins of tables sharing column names.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use common::{codes, Error, Result};
use sqlparser::ast::{self, Statement, Visit, Visitor};
use sqlparser::tokenizer::Token;
use storage::engine::KvEngine;

use crate::acl::accounts::first_priv_name;
use crate::acl::accounts::is_public_db;
use crate::acl::accounts::table_denied;
use crate::acl::accounts::Privs;
use crate::acl::stmt::resolve_user;
use crate::parse::acl::privs;
use crate::parse::acl::AclStmt;
use crate::parse::acl::PrivLevel;
use crate::parse::acl::UserSpec;
use crate::parse::parser::Parsed;
use crate::parse::parser::Stmt;
use crate::session::session::Session;

/// Which columns of a table a need covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cols {
    /// No particular column (`COUNT(*)`, DROP, ...): a column privilege on any column will do
    /// for column-capable privileges.
    Any,
    /// These names (those that are columns of the table count).
    Names(BTreeSet<String>),
    /// Every column (`SELECT *`, INSERT without a column list).
    All,
}

/// One requirement of a statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// Privileges on a table (or on the named columns).
    Table {
        /// Database.
        db: String,
        /// Table.
        table: String,
        /// Privilege bits.
        privs: u64,
        /// Columns.
        cols: Cols,
    },
    /// Some privilege on the table or its columns (SHOW CREATE TABLE, DESCRIBE); `label` names
    /// the command in the 1142 message.
    TableAny {
        /// Database.
        db: String,
        /// Table.
        table: String,
        /// Command name for the error.
        label: &'static str,
    },
    /// Database-level privileges (CREATE/DROP DATABASE).
    Db {
        /// Database.
        db: String,
        /// Privilege bits.
        privs: u64,
    },
    /// Some privilege in the database (SHOW TABLES FROM db).
    DbAny(String),
    /// A global privilege (one of `privs`), named `what` in the 1227 message.
    Global {
        /// Any one of these bits suffices.
        privs: u64,
        /// Names for the message.
        what: &'static str,
    },
    /// KILL of a thread: own threads, else SUPER.
    Kill(u32),
    /// GRANT/REVOKE: the grantor needs GRANT OPTION plus the privileges at the level.
    Grant {
        /// The (resolved) level.
        level: PrivLevel,
        /// Privileges granted at the level (including column privileges).
        privs: u64,
    },
}

/// Checks `p` for the session; Ok when allowed.
///
/// # Errors
/// The MySQL access error of the first unmet requirement.
pub fn check<E: KvEngine>(sess: &Session<E>, p: &Parsed) -> Result<()> {
    if sess.is_superuser() {
        return Ok(());
    }
    let pv = sess.privs();
    if pv.is_all() {
        return Ok(());
    }
    for n in needs(sess, &p.stmt)? {
        check_need(sess, &pv, &n)?;
    }
    Ok(())
}

/// KILL / COM_PROCESS_KILL of thread `id`: 1095 unless the session owns it or has SUPER.
///
/// # Errors
/// 1095 `You are not owner of thread N`.
pub fn check_kill<E: KvEngine>(sess: &Session<E>, id: u32) -> Result<()> {
    let pv = sess.privs();
    check_need(sess, &pv, &Need::Kill(id))
}

fn col_denied<E: KvEngine>(sess: &Session<E>, what: &str, col: &str, table: &str) -> Error {
    Error::new(
        codes::ER_COLUMNACCESS_DENIED_ERROR,
        format!(
            "{what} command denied to user {} for column '{col}' in table '{table}'",
            sess.user_at()
        ),
    )
}

fn check_need<E: KvEngine>(sess: &Session<E>, pv: &Privs, n: &Need) -> Result<()> {
    if pv.is_all() {
        return Ok(());
    }
    match n {
        Need::Table {
            db,
            table,
            privs: want,
            cols,
        } => {
            if is_public_db(db) {
                return if want & !privs::SELECT == 0 {
                    Ok(())
                } else {
                    Err(crate::acl::accounts::db_denied(sess, db))
                };
            }
            let have = pv.table(db, table);
            let missing = want & !have;
            if missing == 0 {
                return Ok(());
            }
            for bit in (0..64).map(|i| 1u64 << i).filter(|b| missing & b != 0) {
                let name = first_priv_name(bit);
                if bit & privs::ALL_COLUMN == 0 || pv.any_column(db, table) & bit == 0 {
                    return Err(table_denied(sess, name, table));
                }
                let def = sess.storage().get_table(db, table)?;
                let names: Vec<String> = match (cols, &def) {
                    (Cols::Any, _) | (_, None) => continue,
                    (Cols::All, Some(d)) => d.columns.iter().map(|c| c.name.clone()).collect(),
                    (Cols::Names(ns), Some(d)) => d
                        .columns
                        .iter()
                        .filter(|c| ns.contains(&c.name.to_ascii_lowercase()))
                        .map(|c| c.name.clone())
                        .collect(),
                };
                for c in names {
                    if pv.column(db, table, &c) & bit == 0 {
                        return Err(col_denied(sess, name, &c, table));
                    }
                }
            }
            Ok(())
        }
        Need::TableAny { db, table, label } => {
            if pv.sees_table(db, table) {
                Ok(())
            } else {
                Err(table_denied(sess, label, table))
            }
        }
        Need::Db { db, privs: want } => {
            if pv.db(db) & want == *want {
                Ok(())
            } else {
                Err(crate::acl::accounts::db_denied(sess, db))
            }
        }
        Need::DbAny(db) => {
            if pv.sees_db(db) {
                Ok(())
            } else {
                Err(crate::acl::accounts::db_denied(sess, db))
            }
        }
        Need::Global { privs: want, what } => {
            if pv.global() & want != 0 {
                Ok(())
            } else {
                Err(crate::acl::accounts::need_privilege(what))
            }
        }
        Need::Kill(id) => {
            let owner = sess.inst.processes.lock().get(id).map(|p| p.user.clone());
            match owner {
                Some(u) if u != sess.user && pv.global() & privs::SUPER == 0 => Err(Error::new(
                    codes::ER_KILL_DENIED_ERROR,
                    format!("You are not owner of thread {id}"),
                )),
                _ => Ok(()),
            }
        }
        Need::Grant { level, privs: want } => {
            let want = want | privs::GRANT;
            match level {
                PrivLevel::Global => {
                    if pv.global() & want == want {
                        return Ok(());
                    }
                    let using = sess
                        .inst
                        .acl
                        .get(&sess.user, &sess.account_host)
                        .is_some_and(|a| !a.auth_string.is_empty());
                    Err(Error::new(
                        codes::ER_ACCESS_DENIED_ERROR,
                        format!(
                            "Access denied for user {} (using password: {})",
                            sess.user_at(),
                            if using { "YES" } else { "NO" }
                        ),
                    ))
                }
                PrivLevel::Db(Some(db)) => {
                    if pv.db(db) & want == want {
                        Ok(())
                    } else {
                        Err(crate::acl::accounts::db_denied(sess, db))
                    }
                }
                PrivLevel::Table(Some(db), t) => {
                    let have = pv.table(db, t);
                    if have & want == want {
                        Ok(())
                    } else {
                        Err(table_denied(sess, "GRANT", t))
                    }
                }
                _ => Ok(()),
            }
        }
    }
}

/// Collects the tables, CTE names and column names a statement part mentions.
#[derive(Default)]
struct Refs {
    tables: Vec<ast::ObjectName>,
    ctes: BTreeSet<String>,
    idents: BTreeSet<String>,
    wildcard: bool,
}

impl Visitor for Refs {
    type Break = ();
    fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
        if let Some(w) = &q.with {
            for c in &w.cte_tables {
                self.ctes.insert(c.alias.name.value.to_ascii_lowercase());
            }
        }
        ControlFlow::Continue(())
    }
    fn pre_visit_select(&mut self, s: &ast::Select) -> ControlFlow<()> {
        if s.projection.iter().any(|i| {
            matches!(
                i,
                ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..)
            )
        }) {
            self.wildcard = true;
        }
        ControlFlow::Continue(())
    }
    fn pre_visit_table_factor(&mut self, t: &ast::TableFactor) -> ControlFlow<()> {
        if let ast::TableFactor::Table { name, .. } = t {
            self.tables.push(name.clone());
        }
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, e: &ast::Expr) -> ControlFlow<()> {
        match e {
            ast::Expr::Identifier(i) => {
                self.idents.insert(i.value.to_ascii_lowercase());
            }
            ast::Expr::CompoundIdentifier(parts) => {
                if let Some(l) = parts.last() {
                    self.idents.insert(l.value.to_ascii_lowercase());
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

fn refs<V: Visit>(v: &V) -> Refs {
    let mut r = Refs::default();
    let _ = v.visit(&mut r);
    r
}

fn parts(n: &ast::ObjectName) -> Vec<String> {
    n.0.iter()
        .map(|p| match p.as_ident() {
            Some(i) => i.value.clone(),
            None => p.to_string(),
        })
        .collect()
}

/// (db, table) of a name; `None` without a current database (the statement fails with 1046
/// when it runs).
fn qual<E: KvEngine>(sess: &Session<E>, n: &ast::ObjectName) -> Option<(String, String)> {
    match parts(n).as_slice() {
        [t] => sess.db.clone().map(|d| (d, t.clone())),
        [d, t] => Some((d.clone(), t.clone())),
        _ => None,
    }
}

fn table_need<E: KvEngine>(
    sess: &Session<E>,
    n: &ast::ObjectName,
    privs: u64,
    cols: Cols,
) -> Option<Need> {
    // once a session has created a temporary table, MySQL checks no privilege on it
    qual(sess, n)
        .filter(|(db, table)| sess.temp.lookup(db, table).is_none())
        .map(|(db, table)| Need::Table {
            db,
            table,
            privs,
            cols,
        })
}

/// SELECT needs for every table `r` reads (CTE names excluded).
fn read_needs<E: KvEngine>(sess: &Session<E>, r: &Refs, out: &mut Vec<Need>) {
    let cols = if r.wildcard {
        Cols::All
    } else if r.idents.is_empty() {
        Cols::Any
    } else {
        Cols::Names(r.idents.clone())
    };
    for t in &r.tables {
        let p = parts(t);
        if p.len() == 1
            && (r.ctes.contains(&p[0].to_ascii_lowercase()) || p[0].eq_ignore_ascii_case("dual"))
        {
            continue;
        }
        out.extend(table_need(sess, t, privs::SELECT, cols.clone()));
    }
}

fn names_of(r: &Refs) -> Cols {
    if r.idents.is_empty() {
        Cols::Any
    } else {
        Cols::Names(r.idents.clone())
    }
}

/// What statement `s` requires.
///
/// # Errors
/// A statement that cannot be analysed (e.g. GRANT at a bad level) fails as it would when run.
pub fn needs<E: KvEngine>(sess: &Session<E>, s: &Stmt) -> Result<Vec<Need>> {
    let mut out = Vec::new();
    match s {
        Stmt::Ast(st) => ast_needs(sess, st, &mut out)?,
        Stmt::Do(st) => read_needs(sess, &refs(st.as_ref()), &mut out),
        Stmt::SetList(list) => {
            for st in list {
                ast_needs(sess, st, &mut out)?;
            }
        }
        Stmt::Show(toks) => show_needs(sess, toks, &mut out),
        Stmt::AlterTable(a) => {
            out.extend(table_need(
                sess,
                &a.table,
                privs::ALTER | privs::CREATE | privs::INSERT,
                Cols::Any,
            ));
            for op in &a.ops {
                if let crate::parse::alter::AlterOp::Rename(new) = op {
                    out.extend(table_need(sess, &a.table, privs::DROP, Cols::Any));
                    out.extend(table_need(
                        sess,
                        new,
                        privs::CREATE | privs::INSERT,
                        Cols::Any,
                    ));
                }
            }
        }
        Stmt::CreatePartitioned(st, _) => ast_needs(sess, st, &mut out)?,
        Stmt::Acl(a) => acl_needs(sess, a, &mut out)?,
        // CHECK TABLE reads the table: SELECT on it; ANALYZE and OPTIMIZE also SELECT and
        // INSERT, as MySQL asks
        Stmt::Maintenance(m) => {
            let privs = match m.op {
                crate::parse::maintenance::MaintOp::Check
                | crate::parse::maintenance::MaintOp::Checksum => privs::SELECT,
                _ => privs::SELECT | privs::INSERT,
            };
            for (db, table) in &m.tables {
                if let Some(db) = db.clone().or_else(|| sess.db.clone()) {
                    out.push(Need::Table {
                        db,
                        table: table.clone(),
                        privs,
                        cols: Cols::Any,
                    });
                }
            }
        }
        Stmt::Prepare { .. } | Stmt::Execute { .. } | Stmt::Deallocate(_) => {}
        // FLUSH BINARY LOGS needs RELOAD; PURGE and RESET change the log: SUPER (MySQL 8.4:
        // BINLOG_ADMIN / RELOAD, dynamic privileges Strata does not have)
        Stmt::Binlog(b) => out.push(match b {
            crate::parse::binlog::BinlogStmt::Flush => Need::Global {
                privs: privs::RELOAD,
                what: "RELOAD",
            },
            _ => Need::Global {
                privs: privs::SUPER,
                what: "SUPER or BINLOG_ADMIN",
            },
        }),
        // the replica's statements: SUPER (MySQL 8.4: REPLICATION_SLAVE_ADMIN, a dynamic
        // privilege Strata does not have)
        Stmt::Replica(_) => out.push(Need::Global {
            privs: privs::SUPER,
            what: "SUPER or REPLICATION_SLAVE_ADMIN",
        }),
        // LOAD DATA: INSERT on the table (and DELETE for REPLACE); a server-side file also
        // needs the global FILE privilege
        Stmt::LoadData(l) => {
            if !l.local {
                out.push(Need::Global {
                    privs: privs::FILE,
                    what: "FILE",
                });
            }
            let mut p = privs::INSERT;
            if l.on_dup == Some(crate::parse::load::OnDup::Replace) {
                p |= privs::DELETE;
            }
            out.extend(table_need(sess, &l.table, p, Cols::Any));
        }
        // stored routines: CREATE ROUTINE / ALTER ROUTINE / EXECUTE at the database level
        Stmt::Routine(r) => {
            use crate::parse::routine::RoutineStmt as R;
            let (db, want) = match r {
                R::Create(c) => (&c.db, privs::CREATE_ROUTINE),
                R::Alter { db, .. } | R::Drop { db, .. } => (db, privs::ALTER_ROUTINE),
                R::Call { db, .. } => (db, privs::EXECUTE),
            };
            if let Some(db) = db.clone().or_else(|| sess.db.clone()) {
                out.push(Need::Db { db, privs: want });
            }
        }
    }
    Ok(out)
}

fn ast_needs<E: KvEngine>(sess: &Session<E>, st: &Statement, out: &mut Vec<Need>) -> Result<()> {
    match st {
        Statement::Query(q) => read_needs(sess, &refs(q.as_ref()), out),
        Statement::Insert(ins) => {
            let mut want = privs::INSERT;
            if ins.replace_into {
                want |= privs::DELETE;
            }
            if matches!(ins.on, Some(ast::OnInsert::DuplicateKeyUpdate(_))) {
                want |= privs::UPDATE;
            }
            let cols = if !ins.columns.is_empty() {
                Cols::Names(
                    ins.columns
                        .iter()
                        .filter_map(|c| parts(c).pop())
                        .map(|c| c.to_ascii_lowercase())
                        .collect(),
                )
            } else if !ins.assignments.is_empty() {
                Cols::Names(
                    ins.assignments
                        .iter()
                        .filter_map(|a| match &a.target {
                            ast::AssignmentTarget::ColumnName(n) => parts(n).pop(),
                            _ => None,
                        })
                        .map(|c| c.to_ascii_lowercase())
                        .collect(),
                )
            } else {
                Cols::All
            };
            if let ast::TableObject::TableName(n) = &ins.table {
                out.extend(table_need(sess, n, want, cols));
            }
            if let Some(src) = &ins.source {
                read_needs(sess, &refs(src.as_ref()), out);
            }
        }
        Statement::Update(u) => {
            let targets: BTreeSet<String> = u
                .assignments
                .iter()
                .filter_map(|a| match &a.target {
                    ast::AssignmentTarget::ColumnName(n) => parts(n).pop(),
                    _ => None,
                })
                .map(|c| c.to_ascii_lowercase())
                .collect();
            let mut reads = Refs::default();
            for a in &u.assignments {
                let _ = a.value.visit(&mut reads);
            }
            if let Some(w) = &u.selection {
                let _ = w.visit(&mut reads);
            }
            let _ = u.table.visit(&mut reads);
            if let Some(f) = &u.from {
                let _ = f.visit(&mut reads);
            }
            if let ast::TableFactor::Table { name, .. } = &u.table.relation {
                out.extend(table_need(
                    sess,
                    name,
                    privs::UPDATE,
                    Cols::Names(targets.clone()),
                ));
            }
            let read_cols: BTreeSet<String> = reads.idents.clone();
            if !read_cols.is_empty() || reads.tables.len() > 1 {
                for t in &reads.tables {
                    out.extend(table_need(
                        sess,
                        t,
                        privs::SELECT,
                        Cols::Names(read_cols.clone()),
                    ));
                }
            }
        }
        Statement::Delete(d) => {
            let from = match &d.from {
                ast::FromTable::WithFromKeyword(v) | ast::FromTable::WithoutKeyword(v) => v,
            };
            let mut r = Refs::default();
            for t in from {
                let _ = t.visit(&mut r);
            }
            if let Some(u) = &d.using {
                for t in u {
                    let _ = t.visit(&mut r);
                }
            }
            if let Some(w) = &d.selection {
                let _ = w.visit(&mut r);
            }
            // targets: the listed tables (aliases resolved), else the first FROM table
            let mut targets: Vec<ast::ObjectName> = Vec::new();
            for n in &d.tables {
                let name = parts(n).pop().unwrap_or_default();
                let real = from.iter().flat_map(table_factors).find_map(|(tn, alias)| {
                    alias
                        .filter(|a| a.eq_ignore_ascii_case(&name))
                        .map(|_| tn.clone())
                });
                targets.push(real.unwrap_or_else(|| n.clone()));
            }
            if targets.is_empty() {
                if let Some((tn, _)) = from.iter().flat_map(table_factors).next() {
                    targets.push(tn);
                }
            }
            for t in &targets {
                out.extend(table_need(sess, t, privs::DELETE, Cols::Any));
            }
            if !r.idents.is_empty() || r.tables.len() > targets.len() {
                let cols = names_of(&r);
                for t in &r.tables {
                    out.extend(table_need(sess, t, privs::SELECT, cols.clone()));
                }
            }
        }
        Statement::CreateTable(ct) => {
            if ct.temporary {
                if let Some((db, _)) = qual(sess, &ct.name) {
                    out.push(Need::Db {
                        db,
                        privs: privs::CREATE_TMP,
                    });
                }
            } else {
                out.extend(table_need(sess, &ct.name, privs::CREATE, Cols::Any));
            }
            if let Some(q) = &ct.query {
                read_needs(sess, &refs(q.as_ref()), out);
                if !ct.temporary {
                    out.extend(table_need(sess, &ct.name, privs::INSERT, Cols::Any));
                }
            }
            if let Some(
                ast::CreateTableLikeKind::Plain(l) | ast::CreateTableLikeKind::Parenthesized(l),
            ) = &ct.like
            {
                out.extend(table_need(sess, &l.name, privs::SELECT, Cols::Any));
            }
        }
        Statement::CreateDatabase { db_name, .. } => out.push(Need::Db {
            db: parts(db_name).join("."),
            privs: privs::CREATE,
        }),
        Statement::CreateSchema {
            schema_name: ast::SchemaName::Simple(n) | ast::SchemaName::NamedAuthorization(n, _),
            ..
        } => out.push(Need::Db {
            db: parts(n).join("."),
            privs: privs::CREATE,
        }),
        Statement::Drop {
            object_type,
            names,
            table,
            ..
        } => match object_type {
            ast::ObjectType::Table | ast::ObjectType::View => {
                for n in names {
                    out.extend(table_need(sess, n, privs::DROP, Cols::Any));
                }
            }
            ast::ObjectType::Schema | ast::ObjectType::Database => {
                for n in names {
                    out.push(Need::Db {
                        db: parts(n).join("."),
                        privs: privs::DROP,
                    });
                }
            }
            ast::ObjectType::Index => {
                if let Some(t) = table {
                    out.extend(table_need(sess, t, privs::INDEX, Cols::Any));
                }
            }
            _ => {}
        },
        Statement::Truncate(t) => {
            for n in &t.table_names {
                out.extend(table_need(sess, &n.name, privs::DROP, Cols::Any));
            }
        }
        Statement::RenameTable(list) => {
            for r in list {
                out.extend(table_need(
                    sess,
                    &r.old_name,
                    privs::ALTER | privs::DROP,
                    Cols::Any,
                ));
                out.extend(table_need(
                    sess,
                    &r.new_name,
                    privs::CREATE | privs::INSERT,
                    Cols::Any,
                ));
            }
        }
        Statement::AlterTable(a) => {
            out.extend(table_need(sess, &a.name, privs::ALTER, Cols::Any));
        }
        Statement::CreateIndex(ci) => {
            out.extend(table_need(sess, &ci.table_name, privs::INDEX, Cols::Any));
        }
        Statement::CreateView(cv) => {
            let mut want = privs::CREATE_VIEW;
            if cv.or_replace || cv.or_alter {
                want |= privs::DROP;
            }
            out.extend(table_need(sess, &cv.name, want, Cols::Any));
            read_needs(sess, &refs(cv.query.as_ref()), out);
        }
        Statement::Kill { id, .. } => out.push(Need::Kill(*id as u32)),
        Statement::Flush { .. } => out.push(Need::Global {
            privs: privs::RELOAD,
            what: "RELOAD",
        }),
        Statement::LockTables { tables } => {
            for t in tables {
                let n = ast::ObjectName::from(vec![t.table.clone()]);
                if let Some((db, _)) = qual(sess, &n) {
                    out.push(Need::Db {
                        db,
                        privs: privs::LOCK_TABLES,
                    });
                }
                out.extend(table_need(sess, &n, privs::SELECT, Cols::Any));
            }
        }
        Statement::Analyze(a) => {
            if let Some(n) = &a.table_name {
                out.extend(table_need(
                    sess,
                    n,
                    privs::SELECT | privs::INSERT,
                    Cols::Any,
                ));
            }
        }
        Statement::OptimizeTable { name, .. } => {
            out.extend(table_need(
                sess,
                name,
                privs::SELECT | privs::INSERT,
                Cols::Any,
            ));
        }
        Statement::ExplainTable { table_name, .. } => {
            if let Some((db, table)) = qual(sess, table_name) {
                out.push(Need::TableAny {
                    db,
                    table,
                    label: "SELECT",
                });
            }
        }
        Statement::Explain { statement, .. } => ast_needs(sess, statement, out)?,
        _ => {}
    }
    Ok(())
}

/// The (table name, alias) pairs of a FROM item.
fn table_factors(t: &ast::TableWithJoins) -> Vec<(ast::ObjectName, Option<String>)> {
    let mut v = Vec::new();
    let mut add = |f: &ast::TableFactor| {
        if let ast::TableFactor::Table { name, alias, .. } = f {
            v.push((name.clone(), alias.as_ref().map(|a| a.name.value.clone())));
        }
    };
    add(&t.relation);
    for j in &t.joins {
        add(&j.relation);
    }
    v
}

fn show_needs<E: KvEngine>(sess: &Session<E>, toks: &[Token], out: &mut Vec<Need>) {
    let word = |i: usize| match toks.get(i) {
        Some(Token::Word(w)) => Some(w.value.clone()),
        _ => None,
    };
    let up = |i: usize| word(i).map(|w| w.to_ascii_uppercase());
    let mut i = 0;
    while matches!(
        up(i).as_deref(),
        Some("FULL" | "EXTENDED" | "GLOBAL" | "SESSION")
    ) {
        i += 1;
    }
    // `name [. name]` at i: (db, table, next index)
    let qualified = |i: usize| -> Option<(Option<String>, String, usize)> {
        let a = word(i)?;
        if toks.get(i + 1) == Some(&Token::Period) {
            let b = word(i + 2)?;
            Some((Some(a), b, i + 3))
        } else {
            Some((None, a, i + 1))
        }
    };
    match up(i).as_deref() {
        Some("CREATE") => match up(i + 1).as_deref() {
            Some("TABLE" | "VIEW") => {
                if let Some((db, t, _)) = qualified(i + 2) {
                    if let Some(db) = db.or_else(|| sess.db.clone()) {
                        out.push(Need::TableAny {
                            db,
                            table: t,
                            label: "SHOW",
                        });
                    }
                }
            }
            Some("DATABASE" | "SCHEMA") => {
                let mut j = i + 2;
                if up(j).as_deref() == Some("IF") {
                    j += 3;
                }
                if let Some(db) = word(j) {
                    out.push(Need::DbAny(db));
                }
            }
            _ => {}
        },
        Some("COLUMNS" | "FIELDS" | "INDEX" | "INDEXES" | "KEYS") => {
            if matches!(up(i + 1).as_deref(), Some("FROM" | "IN")) {
                if let Some((db, t, next)) = qualified(i + 2) {
                    let db = if matches!(up(next).as_deref(), Some("FROM" | "IN")) {
                        word(next + 1)
                    } else {
                        db
                    };
                    if let Some(db) = db.or_else(|| sess.db.clone()) {
                        out.push(Need::TableAny {
                            db,
                            table: t,
                            label: "SELECT",
                        });
                    }
                }
            }
        }
        Some("TABLES") | Some("TABLE") => {
            let j = if up(i).as_deref() == Some("TABLE") {
                i + 2
            } else {
                i + 1
            };
            if matches!(up(j).as_deref(), Some("FROM" | "IN")) {
                if let Some(db) = word(j + 1) {
                    out.push(Need::DbAny(db));
                }
            }
        }
        Some("GRANTS") if up(i + 1).as_deref() == Some("FOR") => {
            // another account's grants need SELECT on the mysql schema
            let mut t: Vec<Token> = vec![Token::make_keyword("DROP"), Token::make_keyword("USER")];
            t.extend_from_slice(&toks[i + 2..]);
            if let Some(Ok(AclStmt::DropUser { users, .. })) = crate::parse::acl::parse(&t) {
                if let Some(u) = users.first() {
                    let (user, host) = resolve_user(sess, u);
                    if !(user == sess.user && host == sess.account_host) {
                        out.push(Need::Db {
                            db: "mysql".into(),
                            privs: privs::SELECT,
                        });
                    }
                }
            }
        }
        _ => {}
    }
}

fn acl_needs<E: KvEngine>(sess: &Session<E>, a: &AclStmt, out: &mut Vec<Need>) -> Result<()> {
    let create_user = Need::Global {
        privs: privs::CREATE_USER,
        what: "CREATE USER",
    };
    let is_self = |u: &UserSpec| {
        let (user, host) = resolve_user(sess, u);
        user == sess.user && host == sess.account_host
    };
    match a {
        AclStmt::CreateUser { .. }
        | AclStmt::DropUser { .. }
        | AclStmt::RenameUser(_)
        | AclStmt::RevokeAll(_) => out.push(create_user),
        AclStmt::AlterUser { users, lock, .. } => {
            if lock.is_some() || !users.iter().all(|(u, _)| is_self(u)) {
                out.push(create_user);
            }
        }
        AclStmt::SetPassword { user, .. } => {
            if user.as_ref().is_some_and(|u| !is_self(u)) {
                out.push(create_user);
            }
        }
        AclStmt::Grant {
            privs: items,
            level,
            grant_option,
            ..
        } => {
            let level = crate::acl::stmt::resolve_level(sess, level)?;
            let (mut bits, cols) = crate::acl::stmt::level_bits(items, &level)?;
            for (_, b) in cols {
                bits |= b;
            }
            if *grant_option {
                bits |= privs::GRANT;
            }
            out.push(Need::Grant { level, privs: bits });
        }
        AclStmt::Revoke {
            privs: items,
            level,
            ..
        } => {
            let level = crate::acl::stmt::resolve_level(sess, level)?;
            let (mut bits, cols) = crate::acl::stmt::level_bits(items, &level)?;
            for (_, b) in cols {
                bits |= b;
            }
            out.push(Need::Grant { level, privs: bits });
        }
    }
    Ok(())
}
