//! Which `Com_*` counters a statement moves (MySQL's statement kinds), and the other
//! per-statement counters derived where a statement is dispatched: rows written
//! (`Handler_write` / `_update` / `_delete`) and how a SELECT read (`Select_scan` /
//! `Select_range`).

use common::Result;
use sqlparser::ast::{self, Statement};
use sqlparser::tokenizer::Token;

use crate::parse::acl::AclStmt;
use crate::parse::binlog::BinlogStmt;
use crate::parse::maintenance::MaintOp;
use crate::parse::parser::{Parsed, Stmt};
use crate::runtime::status::{Com, Counters, Ctr};
use crate::session::session::{HandlerReads, Output};

/// The `Com_*` counters a statement moves: usually one, two for the SQL forms of the prepared
/// statement commands (MySQL counts `EXECUTE` as `Com_execute_sql` and `Com_stmt_execute`).
pub(crate) fn kinds(p: &Parsed) -> &'static [Com] {
    match &p.stmt {
        Stmt::Ast(s) => one(ast_kind(s)),
        Stmt::Show(toks) => one(show_kind(toks)),
        Stmt::Prepare { .. } => &[Com::PrepareSql],
        Stmt::Execute { .. } => &[Com::ExecuteSql, Com::StmtExecute],
        Stmt::Deallocate(_) => &[Com::DeallocSql, Com::StmtClose],
        Stmt::Do(_) => &[Com::Do],
        Stmt::AlterTable(_) => &[Com::AlterTable],
        Stmt::CreatePartitioned(..) => &[Com::CreateTable],
        Stmt::Maintenance(m) => one(match m.op {
            MaintOp::Check => Com::Check,
            MaintOp::Analyze => Com::Analyze,
            MaintOp::Optimize => Com::Optimize,
            MaintOp::Checksum => Com::Checksum,
        }),
        Stmt::Acl(a) => one(acl_kind(a)),
        Stmt::SetList(_) => &[Com::SetOption],
        Stmt::LoadData(_) => &[Com::Load],
        Stmt::Binlog(b) => one(match b {
            BinlogStmt::Flush => Com::Flush,
            BinlogStmt::PurgeTo(_) => Com::Purge,
            BinlogStmt::PurgeBefore(_) => Com::PurgeBeforeDate,
            BinlogStmt::Reset => Com::Reset,
        }),
        Stmt::Routine(r) => one(routine_kind(r)),
        Stmt::Replica(r) => one(match r {
            crate::parse::replica::ReplicaStmt::ChangeSource(_) => Com::ChangeReplicationSource,
            crate::parse::replica::ReplicaStmt::Start { .. } => Com::ReplicaStart,
            crate::parse::replica::ReplicaStmt::Stop { .. } => Com::ReplicaStop,
            crate::parse::replica::ReplicaStmt::Reset { .. } => Com::Reset,
        }),
    }
}

fn routine_kind(r: &crate::parse::routine::RoutineStmt) -> Com {
    use crate::parse::routine::{RoutineKind as K, RoutineStmt as R};
    match r {
        R::Create(c) if c.kind == K::Procedure => Com::CreateProcedure,
        R::Create(_) => Com::CreateFunction,
        R::Alter {
            kind: K::Procedure, ..
        } => Com::AlterProcedure,
        R::Alter { .. } => Com::AlterFunction,
        R::Drop {
            kind: K::Procedure, ..
        } => Com::DropProcedure,
        R::Drop { .. } => Com::DropFunction,
        R::Call { .. } => Com::CallProcedure,
    }
}

/// A one-element slice of `c`.
fn one(c: Com) -> &'static [Com] {
    std::slice::from_ref(&Com::ALL[c as usize])
}

fn ast_kind(s: &Statement) -> Com {
    match s {
        Statement::Query(_) => Com::Select,
        Statement::Insert(i) => insert_kind(i),
        Statement::Update(u) if u.from.is_some() || !u.table.joins.is_empty() => Com::UpdateMulti,
        Statement::Update(_) => Com::Update,
        Statement::Delete(d) if is_multi_delete(d) => Com::DeleteMulti,
        Statement::Delete(_) => Com::Delete,
        Statement::StartTransaction { .. } => Com::Begin,
        Statement::Commit { .. } => Com::Commit,
        Statement::Rollback {
            savepoint: Some(_), ..
        } => Com::RollbackToSavepoint,
        Statement::Rollback { .. } => Com::Rollback,
        Statement::Savepoint { .. } => Com::Savepoint,
        Statement::ReleaseSavepoint { .. } => Com::ReleaseSavepoint,
        Statement::Set(_) => Com::SetOption,
        Statement::Use(_) => Com::ChangeDb,
        Statement::Kill { .. } => Com::Kill,
        Statement::CreateDatabase { .. } | Statement::CreateSchema { .. } => Com::CreateDb,
        Statement::CreateTable(_) => Com::CreateTable,
        Statement::CreateIndex(_) => Com::CreateIndex,
        Statement::CreateView(_) => Com::CreateView,
        Statement::Drop { object_type, .. } => drop_kind(object_type),
        Statement::Truncate(_) => Com::Truncate,
        Statement::RenameTable(_) => Com::RenameTable,
        Statement::AlterTable(_) => Com::AlterTable,
        Statement::LockTables { .. } => Com::LockTables,
        Statement::UnlockTables => Com::UnlockTables,
        Statement::Flush { .. } => Com::Flush,
        Statement::Analyze { .. } => Com::Analyze,
        Statement::OptimizeTable { .. } => Com::Optimize,
        // DESCRIBE t is SHOW COLUMNS; EXPLAIN counts as the statement it explains
        Statement::ExplainTable { .. } => Com::ShowFields,
        Statement::Explain { statement, .. } => match ast_kind(statement) {
            k @ (Com::Select
            | Com::Insert
            | Com::InsertSelect
            | Com::Replace
            | Com::ReplaceSelect
            | Com::Update
            | Com::UpdateMulti
            | Com::Delete
            | Com::DeleteMulti) => k,
            _ => Com::ExplainOther,
        },
        _ => Com::AdminCommands,
    }
}

fn insert_kind(i: &ast::Insert) -> Com {
    let from_select = i
        .source
        .as_ref()
        .is_some_and(|q| !matches!(*q.body, ast::SetExpr::Values(_)));
    match (i.replace_into, from_select) {
        (false, false) => Com::Insert,
        (false, true) => Com::InsertSelect,
        (true, false) => Com::Replace,
        (true, true) => Com::ReplaceSelect,
    }
}

fn is_multi_delete(d: &ast::Delete) -> bool {
    let from = match &d.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    !d.tables.is_empty()
        || d.using.is_some()
        || from.len() > 1
        || from.iter().any(|t| !t.joins.is_empty())
}

fn drop_kind(t: &ast::ObjectType) -> Com {
    match t {
        ast::ObjectType::Table => Com::DropTable,
        ast::ObjectType::View => Com::DropView,
        ast::ObjectType::Index => Com::DropIndex,
        ast::ObjectType::Schema | ast::ObjectType::Database => Com::DropDb,
        ast::ObjectType::User => Com::DropUser,
        ast::ObjectType::Role => Com::DropRole,
        _ => Com::AdminCommands,
    }
}

fn acl_kind(a: &AclStmt) -> Com {
    match a {
        AclStmt::CreateUser { .. } => Com::CreateUser,
        AclStmt::AlterUser { .. } => Com::AlterUser,
        AclStmt::DropUser { .. } => Com::DropUser,
        AclStmt::RenameUser(_) => Com::RenameUser,
        AclStmt::SetPassword { .. } => Com::SetPassword,
        AclStmt::Grant { .. } => Com::Grant,
        AclStmt::Revoke { .. } => Com::Revoke,
        AclStmt::RevokeAll(_) => Com::RevokeAll,
    }
}

/// The upper-case words of a SHOW statement, modifiers (`GLOBAL`, `FULL`, …) dropped.
fn show_words(toks: &[Token]) -> Vec<String> {
    const MODIFIERS: [&str; 5] = ["GLOBAL", "SESSION", "LOCAL", "FULL", "EXTENDED"];
    toks.iter()
        .take(4)
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.value.to_ascii_uppercase()),
            _ => None,
        })
        .filter(|w| !MODIFIERS.contains(&w.as_str()))
        .collect()
}

/// The `Com_show_*` counter of a SHOW statement (its tokens after SHOW).
fn show_kind(toks: &[Token]) -> Com {
    let w = show_words(toks);
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["STATUS", ..] => Com::ShowStatus,
        ["VARIABLES", ..] => Com::ShowVariables,
        ["TABLES", ..] => Com::ShowTables,
        ["TABLE", "STATUS", ..] => Com::ShowTableStatus,
        ["DATABASES" | "SCHEMAS", ..] => Com::ShowDatabases,
        ["PROCESSLIST", ..] => Com::ShowProcesslist,
        ["COLUMNS" | "FIELDS", ..] => Com::ShowFields,
        ["INDEX" | "INDEXES" | "KEYS", ..] => Com::ShowKeys,
        ["WARNINGS", ..] | ["COUNT", "WARNINGS", ..] => Com::ShowWarnings,
        ["ERRORS", ..] | ["COUNT", "ERRORS", ..] => Com::ShowErrors,
        ["CREATE", "DATABASE" | "SCHEMA", ..] => Com::ShowCreateDb,
        ["CREATE", "USER", ..] => Com::ShowCreateUser,
        ["CREATE", "TRIGGER", ..] => Com::ShowCreateTrigger,
        ["CREATE", "PROCEDURE", ..] => Com::ShowCreateProc,
        ["CREATE", "FUNCTION", ..] => Com::ShowCreateFunc,
        ["CREATE", "EVENT", ..] => Com::ShowCreateEvent,
        ["CREATE", ..] => Com::ShowCreateTable,
        ["ENGINE", _, "MUTEX", ..] => Com::ShowEngineMutex,
        ["ENGINE", _, "LOGS", ..] => Com::ShowEngineLogs,
        ["ENGINE", ..] => Com::ShowEngineStatus,
        ["ENGINES", ..] | ["STORAGE", "ENGINES", ..] => Com::ShowStorageEngines,
        ["GRANTS", ..] => Com::ShowGrants,
        ["PLUGINS", ..] => Com::ShowPlugins,
        ["PRIVILEGES", ..] => Com::ShowPrivileges,
        ["CHARSET", ..] | ["CHARACTER", "SET", ..] => Com::ShowCharsets,
        ["COLLATION", ..] => Com::ShowCollations,
        ["OPEN", "TABLES", ..] => Com::ShowOpenTables,
        ["TRIGGERS", ..] => Com::ShowTriggers,
        ["EVENTS", ..] => Com::ShowEvents,
        ["PROCEDURE", "CODE", ..] => Com::ShowProcedureCode,
        ["PROCEDURE", ..] => Com::ShowProcedureStatus,
        ["FUNCTION", "CODE", ..] => Com::ShowFunctionCode,
        ["FUNCTION", ..] => Com::ShowFunctionStatus,
        ["BINARY", "LOG", "STATUS", ..] | ["MASTER", "STATUS", ..] => Com::ShowBinaryLogStatus,
        ["BINARY" | "MASTER", "LOGS", ..] => Com::ShowBinlogs,
        ["BINLOG", ..] => Com::ShowBinlogEvents,
        ["RELAYLOG", ..] => Com::ShowRelaylogEvents,
        ["REPLICA" | "SLAVE", "STATUS", ..] => Com::ShowReplicaStatus,
        ["REPLICAS", ..] | ["SLAVE", "HOSTS", ..] => Com::ShowReplicas,
        ["PROFILES", ..] => Com::ShowProfiles,
        ["PROFILE", ..] => Com::ShowProfile,
        _ => Com::AdminCommands,
    }
}

/// The Handler_read_* counters now, for [`after_statement`].
pub(crate) fn reads_now(h: &HandlerReads) -> [u64; 6] {
    h.values().map(|(_, v)| v)
}

/// Counts what a dispatched statement of `kinds` did: rows it wrote, and for a SELECT whether
/// the storage layer scanned a table or index whole (`Select_scan`) or read a range of it
/// (`Select_range`), from the Handler_read_* counters it moved (`before`, see
/// [`reads_now`]).
pub(crate) fn after_statement(
    c: &Counters,
    kinds: &[Com],
    r: &Result<Output>,
    handler: &HandlerReads,
    before: Option<[u64; 6]>,
) {
    let Some(&kind) = kinds.first() else {
        return;
    };
    if let Ok(Output::Ok { affected, .. }) = r {
        let ctr = match kind {
            Com::Insert | Com::InsertSelect | Com::Replace | Com::ReplaceSelect | Com::Load => {
                Some(Ctr::HandlerWrite)
            }
            Com::Update | Com::UpdateMulti => Some(Ctr::HandlerUpdate),
            Com::Delete | Com::DeleteMulti => Some(Ctr::HandlerDelete),
            _ => None,
        };
        if let Some(ctr) = ctr {
            c.add(ctr, *affected);
        }
    }
    if let Some(before) = before {
        // [first, key, last, next, prev, rnd_next]
        let d: Vec<u64> = reads_now(handler)
            .iter()
            .zip(before)
            .map(|(n, b)| n.saturating_sub(b))
            .collect();
        if d[0] + d[2] + d[5] > 0 {
            c.add(Ctr::SelectScan, 1);
        } else if d[3] + d[4] > 0 {
            c.add(Ctr::SelectRange, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(sql: &str) -> Vec<Com> {
        let p = crate::parse::parser::parse(sql).unwrap().remove(0);
        kinds(&p).to_vec()
    }

    #[test]
    fn statement_kinds() {
        assert_eq!(kind_of("SELECT 1"), [Com::Select]);
        assert_eq!(kind_of("INSERT INTO t VALUES (1)"), [Com::Insert]);
        assert_eq!(
            kind_of("INSERT INTO t SELECT * FROM u"),
            [Com::InsertSelect]
        );
        assert_eq!(kind_of("REPLACE INTO t VALUES (1)"), [Com::Replace]);
        assert_eq!(kind_of("UPDATE t SET a = 1"), [Com::Update]);
        assert_eq!(kind_of("DELETE FROM t"), [Com::Delete]);
        assert_eq!(kind_of("SET @a = 1"), [Com::SetOption]);
        assert_eq!(kind_of("BEGIN"), [Com::Begin]);
        assert_eq!(kind_of("SHOW GLOBAL STATUS"), [Com::ShowStatus]);
        assert_eq!(kind_of("SHOW FULL TABLES"), [Com::ShowTables]);
        assert_eq!(kind_of("SHOW TABLE STATUS"), [Com::ShowTableStatus]);
        assert_eq!(
            kind_of("SHOW ENGINE INNODB STATUS"),
            [Com::ShowEngineStatus]
        );
        assert_eq!(kind_of("CREATE TABLE t (a INT)"), [Com::CreateTable]);
        assert_eq!(kind_of("DROP TABLE t"), [Com::DropTable]);
        assert_eq!(kind_of("USE db"), [Com::ChangeDb]);
        assert_eq!(
            kind_of("EXECUTE s USING @a"),
            [Com::ExecuteSql, Com::StmtExecute]
        );
    }
}
