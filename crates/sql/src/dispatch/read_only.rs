//! `read_only` and `super_read_only`, as MySQL 8.4 enforces them: while `read_only` is ON a
//! statement that would change tables, databases or accounts fails with 1290 unless the
//! account has SUPER; `super_read_only` (which implies `read_only`) refuses it to SUPER accounts
//! too. TEMPORARY tables stay writable. Setting either variable ON needs a session without an
//! active transaction (1192); `super_read_only = ON` also sets `read_only`, and
//! `read_only = OFF` also clears `super_read_only`.

use common::{codes, Error, Result, Value};
use sqlparser::ast::{ObjectType, Statement};
use storage::engine::KvEngine;

use crate::acl::check::Need;
use crate::parse::acl::privs;
use crate::parse::parser::{Parsed, Stmt};
use crate::session::session::Session;

/// Privileges whose use changes stored data or definitions.
const WRITES: u64 = privs::INSERT
    | privs::UPDATE
    | privs::DELETE
    | privs::CREATE
    | privs::DROP
    | privs::ALTER
    | privs::INDEX
    | privs::CREATE_VIEW
    | privs::CREATE_ROUTINE
    | privs::ALTER_ROUTINE
    | privs::TRIGGER
    | privs::EVENT;

fn on(v: Option<Value>) -> bool {
    matches!(v, Some(Value::Int(n)) if n != 0) || matches!(v, Some(Value::UInt(n)) if n != 0)
}

/// The access mode `READ ONLY` (true) / `READ WRITE` (false) among transaction modes.
pub(crate) fn access_mode(modes: &[sqlparser::ast::TransactionMode]) -> Option<bool> {
    use sqlparser::ast::{TransactionAccessMode, TransactionMode};
    modes.iter().rev().find_map(|m| match m {
        TransactionMode::AccessMode(TransactionAccessMode::ReadOnly) => Some(true),
        TransactionMode::AccessMode(TransactionAccessMode::ReadWrite) => Some(false),
        TransactionMode::IsolationLevel(_) => None,
    })
}

impl<E: KvEngine> Session<E> {
    /// Fails with 1792 when statement `p` would change non-TEMPORARY data inside a READ ONLY
    /// transaction: `START TRANSACTION READ ONLY`, `SET TRANSACTION READ ONLY` for the next
    /// transaction, or `transaction_read_only = ON` for the session (also in autocommit).
    ///
    /// # Errors
    /// 1792 `Cannot execute statement in a READ ONLY transaction.`
    pub(crate) fn deny_in_read_only_txn(&mut self, p: &Parsed) -> Result<()> {
        let is_set = matches!(&p.stmt, Stmt::SetList(_) | Stmt::Ast(Statement::Set(_)));
        let chosen = if self.explicit_txn {
            self.txn_read_only
        } else if matches!(&p.stmt, Stmt::Ast(Statement::StartTransaction { .. })) || is_set {
            // START TRANSACTION takes the next-transaction mode itself; SET starts none
            None
        } else {
            self.next_txn_read_only.take()
        };
        if matches!(&p.stmt, Stmt::Ast(Statement::Query(_))) {
            return Ok(()); // a query changes nothing (and this is the hot path)
        }
        let read_only = chosen.unwrap_or_else(|| on(self.var("transaction_read_only")));
        if !read_only || !self.writes_persistent_data(p)? {
            return Ok(());
        }
        Err(Error::new(
            codes::ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION,
            "Cannot execute statement in a READ ONLY transaction.",
        ))
    }

    /// Fails with 1290 when `read_only` / `super_read_only` forbid statement `p` to this
    /// session's account.
    ///
    /// # Errors
    /// 1290 `The MySQL server is running with the --read-only option so it cannot execute this
    /// statement` (`--super-read-only` for an account with SUPER).
    pub(crate) fn deny_if_read_only(&self, p: &Parsed) -> Result<()> {
        // the session's snapshot of the globals, refreshed when a SET GLOBAL changed them
        let var = |name: &str| {
            crate::runtime::sysvars::lookup(name).and_then(|d| self.globals.get(d).cloned())
        };
        if !on(var("read_only")) || self.replication_applier {
            return Ok(());
        }
        let is_super = self.is_superuser() || self.privs().global() & privs::SUPER != 0;
        if is_super && !on(var("super_read_only")) {
            return Ok(());
        }
        if !self.writes_persistent_data(p)? {
            return Ok(());
        }
        let option = if is_super {
            "--super-read-only"
        } else {
            "--read-only"
        };
        Err(Error::new(
            codes::ER_OPTION_PREVENTS_STATEMENT,
            format!(
                "The MySQL server is running with the {option} option so it cannot execute this statement"
            ),
        ))
    }

    /// Whether `p` changes something other than this session's TEMPORARY tables.
    pub(crate) fn writes_persistent_data(&self, p: &Parsed) -> Result<bool> {
        match &p.stmt {
            Stmt::Acl(_) => return Ok(true),
            Stmt::Ast(Statement::CreateTable(ct)) if ct.temporary => return Ok(false),
            Stmt::Ast(Statement::Drop {
                temporary: true,
                object_type: ObjectType::Table,
                ..
            }) => return Ok(false),
            // EXECUTE is checked on the statement it runs; table maintenance (ANALYZE, …)
            // changes statistics only
            Stmt::Execute { .. } | Stmt::Maintenance(_) => return Ok(false),
            _ => {}
        }
        Ok(crate::acl::check::needs(self, &p.stmt)?
            .iter()
            .any(|n| match n {
                Need::Table {
                    db, table, privs, ..
                } => privs & WRITES != 0 && self.temp.lookup(db, table).is_none(),
                Need::Db { privs, .. } => privs & WRITES != 0,
                Need::Global { privs, .. } => privs & privs::CREATE_USER != 0,
                _ => false,
            }))
    }

    /// `SET GLOBAL read_only` / `super_read_only` with MySQL's coupling of the two.
    ///
    /// # Errors
    /// 1192 when switching one ON inside a transaction; 1231 for a bad value.
    pub(crate) fn set_read_only(&mut self, name: &'static str, value: &Value) -> Result<()> {
        let def =
            crate::runtime::sysvars::lookup(name).ok_or_else(|| Error::unknown_sysvar(name))?;
        let v = if *value == Value::Str("DEFAULT".into()) {
            Value::Int(0)
        } else {
            crate::runtime::sysvars::normalise(def, value)?
        };
        let enable = on(Some(v.clone()));
        if enable && (self.explicit_txn || self.txn.is_some()) {
            return Err(Error::new(
                codes::ER_LOCK_OR_ACTIVE_TRANSACTION,
                "Can't execute the given command because you have active locked tables or an active transaction",
            ));
        }
        let g = &self.inst.globals;
        match (name, enable) {
            ("super_read_only", true) => g.set("read_only", &Value::Int(1))?,
            ("read_only", false) => g.set("super_read_only", &Value::Int(0))?,
            _ => {}
        }
        g.set(name, &v)
    }
}
