//! SET: user variables, system variables (session and global, with their checks and side effects)
//! and SET NAMES / CHARACTER SET.

use common::{codes, Collation, Error, Result, Value};
use sqlparser::ast::{self};
use storage::engine::KvEngine;

use crate::runtime::sysvars::Scope;

use crate::session::session::*;

impl<E: KvEngine> Session<E> {
    pub(crate) fn exec_set(&mut self, s: &ast::Set, params: &[Value]) -> Result<Output> {
        let _ = params;
        match s {
            ast::Set::SingleAssignment {
                scope,
                variable,
                values,
                ..
            } => {
                let global = matches!(scope, Some(ast::ContextModifier::Global));
                let name = variable.to_string();
                let mut assigns: Vec<(String, bool, ast::Expr)> = Vec::new();
                let mut vals = values.iter();
                if let Some(first) = vals.next() {
                    assigns.push((name, global, first.clone()));
                }
                // `SET a = 1, b = 2` arrives as extra `b = 2` expressions
                for v in vals {
                    match v {
                        ast::Expr::BinaryOp {
                            left,
                            op: ast::BinaryOperator::Eq | ast::BinaryOperator::Assignment,
                            right,
                        } => assigns.push((left.to_string(), false, (**right).clone())),
                        other => return Err(Error::parse(other.to_string())),
                    }
                }
                for (name, global, e) in assigns {
                    self.set_one(&name, global, &e)?;
                }
                Ok(Output::ok(0))
            }
            ast::Set::MultipleAssignments { assignments } => {
                for a in assignments {
                    let global = matches!(a.scope, Some(ast::ContextModifier::Global));
                    self.set_one(&a.name.to_string(), global, &a.value)?;
                }
                Ok(Output::ok(0))
            }
            ast::Set::SetNames {
                charset_name,
                collation_name,
            } => {
                let cs = charset_name.value.to_ascii_lowercase();
                if cs == "default" {
                    return Ok(Output::ok(0));
                }
                let coll = match collation_name {
                    Some(c) => Collation::from_name(c).ok_or_else(|| {
                        Error::new(
                            codes::ER_UNKNOWN_COLLATION,
                            format!("Unknown collation: '{c}'"),
                        )
                    })?,
                    None => Collation::default_for_charset(&cs).ok_or_else(|| {
                        Error::new(
                            codes::ER_UNKNOWN_CHARACTER_SET,
                            format!("Unknown character set: '{cs}'"),
                        )
                    })?,
                };
                let csv = Value::Str(if cs == "utf8" { "utf8mb3".into() } else { cs });
                for v in [
                    "character_set_client",
                    "character_set_connection",
                    "character_set_results",
                ] {
                    self.vars_mut().insert(
                        crate::runtime::sysvars::lookup(v)
                            .map(|d| d.name)
                            .unwrap_or("character_set_client"),
                        csv.clone(),
                    );
                }
                self.vars_mut().insert(
                    "collation_connection",
                    Value::Str(
                        collation_name
                            .clone()
                            .unwrap_or_else(|| coll.name().to_string()),
                    ),
                );
                Ok(Output::ok(0))
            }
            ast::Set::SetNamesDefault {} => Ok(Output::ok(0)),
            ast::Set::SetTransaction { modes, session, .. } => {
                if !*session && (self.explicit_txn || self.txn.is_some()) {
                    return Err(Error::new(
                        common::codes::ER_CANT_CHANGE_TX_CHARACTERISTICS,
                        "Transaction characteristics can't be changed while a transaction is in progress",
                    ));
                }
                match (crate::dispatch::read_only::access_mode(modes), *session) {
                    (Some(ro), true) => {
                        self.vars
                            .insert("transaction_read_only", Value::Int(ro as i64));
                    }
                    (Some(ro), false) => self.next_txn_read_only = Some(ro),
                    (None, _) => {}
                }
                for m in modes {
                    if let ast::TransactionMode::IsolationLevel(l) = m {
                        let name = match l {
                            ast::TransactionIsolationLevel::ReadCommitted => "READ-COMMITTED",
                            ast::TransactionIsolationLevel::ReadUncommitted => "READ-UNCOMMITTED",
                            ast::TransactionIsolationLevel::Serializable => "SERIALIZABLE",
                            _ => "REPEATABLE-READ",
                        };
                        // Without SESSION/GLOBAL it applies to the next transaction only; we apply it
                        // to the session (documented difference).
                        let _ = session;
                        self.vars
                            .insert("transaction_isolation", Value::Str(name.into()));
                        self.vars_mut()
                            .insert("tx_isolation", Value::Str(name.into()));
                    }
                }
                Ok(Output::ok(0))
            }
            other => Err(Error::not_supported(other.to_string())),
        }
    }

    pub(crate) fn set_one(&mut self, name: &str, global: bool, e: &ast::Expr) -> Result<()> {
        let mut name = name.trim().to_string();
        let mut global = global;
        if let Some(rest) = name.strip_prefix('@').filter(|r| !r.starts_with('@')) {
            let v = self.eval_const(e)?;
            self.user_vars.insert(rest.to_ascii_lowercase(), v);
            return Ok(());
        }
        if let Some(rest) = name.strip_prefix("@@") {
            name = rest.to_string();
        }
        let lower = name.to_ascii_lowercase();
        if let Some(r) = lower.strip_prefix("global.") {
            global = true;
            name = r.to_string();
        } else if let Some(r) = lower
            .strip_prefix("session.")
            .or_else(|| lower.strip_prefix("local."))
        {
            name = r.to_string();
        } else {
            name = lower;
        }
        let def =
            crate::runtime::sysvars::lookup(&name).ok_or_else(|| Error::unknown_sysvar(&name))?;
        if global {
            crate::acl::accounts::require_global(
                self,
                crate::acl::accounts::privs::SUPER,
                "SUPER or SYSTEM_VARIABLES_ADMIN",
            )?;
        }
        let value = match e {
            // a bare word names the value (`SET sql_mode = TRADITIONAL`); `@v` / `@@v` are
            // variables (`SET character_set_client = @saved_cs_client` in every dump)
            ast::Expr::Identifier(id) if id.quote_style.is_none() && !id.value.starts_with('@') => {
                let u = id.value.to_ascii_uppercase();
                match u.as_str() {
                    "ON" | "OFF" | "DEFAULT" => Value::Str(u),
                    _ => Value::Str(id.value.clone()),
                }
            }
            _ => self.eval_const(e)?,
        };
        if global && crate::runtime::querylog::is_log_var(def.name) {
            // files are opened (and a bad name refused) before the variable changes
            return self
                .inst
                .querylog
                .set_global(&self.inst.globals, def, &value);
        }
        if global && def.name == "binlog_row_metadata" {
            return self.set_binlog_row_metadata(def, value);
        }
        if global && matches!(def.name, "read_only" | "super_read_only") {
            return self.set_read_only(def.name, &value);
        }
        if value == Value::Str("DEFAULT".into()) {
            if global {
                let d = crate::runtime::sysvars::VARS
                    .iter()
                    .find(|v| v.name == def.name)
                    .map(|v| v.default)
                    .unwrap_or("");
                self.inst.globals.set(def.name, &Value::Str(d.into()))?;
            } else {
                self.vars_mut().remove(def.name);
            }
            return Ok(());
        }
        if global && def.name == "strata_force_flush_memtable_now" {
            // A trigger, like MyRocks' rocksdb_force_flush_memtable_now: ON writes every
            // memtable to SST files (their log is then obsolete); the variable stays OFF.
            if crate::runtime::sysvars::normalise(def, &value)? == Value::Int(1) {
                self.inst.storage.engine().flush()?;
            }
            return Ok(());
        }
        if global {
            return self.inst.globals.set(def.name, &value);
        }
        match def.scope {
            Scope::ReadOnly => return Err(crate::runtime::sysvars::read_only_error(def.name)),
            Scope::Global => return Err(crate::runtime::sysvars::global_only_error(def.name)),
            _ => {}
        }
        let v = crate::runtime::sysvars::normalise(def, &value)?;
        match def.name {
            "autocommit" if v == Value::Int(1) && !self.autocommit() => {
                // switching autocommit on commits the open transaction
                self.commit()?;
            }
            "transaction_isolation" | "tx_isolation" => {
                self.vars_mut().insert("transaction_isolation", v.clone());
                self.vars_mut().insert("tx_isolation", v);
                return Ok(());
            }
            "last_insert_id" | "insert_id" if def.name == "last_insert_id" => {
                self.last_insert_id = match v {
                    Value::Int(i) => i as u64,
                    Value::UInt(u) => u,
                    _ => 0,
                };
            }
            "character_set_results" => {}
            _ => {}
        }
        self.vars_mut().insert(def.name, v);
        Ok(())
    }

    /// SET GLOBAL binlog_row_metadata: the variable, and the binary log's TABLE_MAP events
    /// from the next transaction on (column names, ENUM/SET strings… with FULL).
    fn set_binlog_row_metadata(
        &mut self,
        def: &crate::runtime::sysvars::VarDef,
        value: Value,
    ) -> Result<()> {
        let value = if value == Value::Str("DEFAULT".into()) {
            Value::Str(def.default.into())
        } else {
            value
        };
        self.inst.globals.set(def.name, &value)?;
        let full = self.inst.globals.get(def.name) == Some(Value::Str("FULL".into()));
        if let Some(log) = self.inst.binlog.read().as_ref() {
            log.set_full_row_metadata(full);
        }
        Ok(())
    }
}
