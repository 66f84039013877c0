//! CHECK constraints enforced on the rows a statement writes (INSERT, REPLACE, INSERT … ON
//! DUPLICATE KEY UPDATE, UPDATE, multi-table UPDATE, LOAD DATA, and ALTER TABLE's copy): the
//! table's ENFORCED constraints are bound once per statement over its row; a row for which one
//! is FALSE is error 3819 `Check constraint 'name' is violated.`, or with IGNORE a 3819 warning
//! and the row is skipped. A NULL result passes, as in MySQL. The definitions come from
//! `crate::ddl::check`.

use common::{codes, Error, Result, Value, Warning};
use storage::catalog::TableDef;

use crate::bind::expr::{BindEnv, Binder};
use crate::bind::select::table_scope;
use crate::ir::expr::{EvalCtx, Expr};

/// A table's enforced CHECK constraints, bound over its row.
#[derive(Debug, Default)]
pub struct RowChecks {
    list: Vec<(String, Expr)>,
}

impl RowChecks {
    /// The enforced constraints of `t` (none: nothing to check, nothing bound).
    ///
    /// # Errors
    /// A stored condition that no longer parses or binds (internal error or the binder's).
    pub fn bind(env: &dyn BindEnv, t: &TableDef) -> Result<Self> {
        let mut list = Vec::new();
        if t.checks.iter().any(|c| c.enforced) {
            let scope = table_scope(t, None);
            for c in t.checks.iter().filter(|c| c.enforced) {
                let e = crate::parse::stored_expr(&c.expr, "CHECK condition")?;
                list.push((
                    c.name.clone(),
                    Binder::new(&scope, env, "check constraint").bind(&e)?,
                ));
            }
        }
        Ok(RowChecks { list })
    }

    /// True when there is nothing to check.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Checks `row` (the table's full row): true to write it; false (only with `ignore`) to
    /// skip it, a warning 3819 added.
    ///
    /// # Errors
    /// 3819 without `ignore`; evaluation errors.
    pub fn passes(&self, row: &[Value], ignore: bool, ctx: &mut EvalCtx<'_>) -> Result<bool> {
        for (name, e) in &self.list {
            let v = e.eval(row, ctx)?;
            if crate::ir::expr::truth(&v, ctx) != Some(false) {
                continue;
            }
            let err = Error::new(
                codes::ER_CHECK_CONSTRAINT_VIOLATED,
                format!("Check constraint '{name}' is violated."),
            );
            if !ignore {
                return Err(err);
            }
            ctx.warnings
                .push(Warning::warn(codes::ER_CHECK_CONSTRAINT_VIOLATED, err.msg));
            return Ok(false);
        }
        Ok(true)
    }
}
