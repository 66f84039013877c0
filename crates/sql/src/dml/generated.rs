//! Generated columns computed on the rows a statement writes (INSERT, REPLACE, INSERT … ON
//! DUPLICATE KEY UPDATE, UPDATE, multi-table UPDATE, LOAD DATA, and ALTER TABLE's copy): the
//! table's generated columns are bound once per statement over its row and evaluated in
//! column order (an expression may use generated columns defined before it), each value
//! stored as the column's type with the usual conversion and NOT NULL rules. A value given
//! for a generated column other than DEFAULT is 3105 (a warning with IGNORE). The definitions
//! come from `crate::ddl::generated`.

use common::{codes, Error, Result, Value, Warning};
use storage::catalog::TableDef;

use crate::bind::expr::{BindEnv, Binder};
use crate::bind::select::table_scope;
use crate::ir::expr::{EvalCtx, Expr};

/// A table's generated columns, bound over its row.
#[derive(Debug, Default)]
pub struct RowGenerated {
    list: Vec<(usize, Expr)>,
}

impl RowGenerated {
    /// The generated columns of `t` (none: nothing bound).
    ///
    /// # Errors
    /// A stored expression that no longer parses or binds.
    pub fn bind(env: &dyn BindEnv, t: &TableDef) -> Result<Self> {
        let mut list = Vec::new();
        if t.columns.iter().any(|c| c.generated.is_some()) {
            let scope = table_scope(t, None);
            for (ci, c) in t.columns.iter().enumerate() {
                let Some(g) = &c.generated else { continue };
                let e = crate::parse::stored_expr(&g.expr, "generated column expression")?;
                list.push((
                    ci,
                    Binder::new(&scope, env, "generated column function").bind(&e)?,
                ));
            }
        }
        Ok(RowGenerated { list })
    }

    /// True when the table has no generated column.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Computes every generated column of `row` (the table's full row) from its other values.
    ///
    /// # Errors
    /// Evaluation errors; conversion errors in strict mode (1264, 1366, 1048, …).
    pub fn compute(
        &self,
        t: &TableDef,
        row: &mut [Value],
        strict: bool,
        row_no: u64,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<()> {
        for (ci, e) in &self.list {
            let v = e.eval(row, ctx)?;
            row[*ci] = crate::dml::single::convert_col(t, *ci, v, strict, row_no, false, ctx)?;
        }
        Ok(())
    }
}

/// A value other than DEFAULT given for column `ci` of `t`: 3105 for a generated column (with
/// `ignore` a warning, and the caller drops the value: returns false); true for other columns.
///
/// # Errors
/// 3105 without `ignore`.
pub fn may_assign(t: &TableDef, ci: usize, ignore: bool, ctx: &mut EvalCtx<'_>) -> Result<bool> {
    if t.columns[ci].generated.is_none() {
        return Ok(true);
    }
    let err = Error::new(
        codes::ER_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN,
        format!(
            "The value specified for generated column '{}' in table '{}' is not allowed.",
            t.columns[ci].name, t.name
        ),
    );
    if !ignore {
        return Err(err);
    }
    ctx.warnings.push(Warning::warn(
        codes::ER_NON_DEFAULT_VALUE_FOR_GENERATED_COLUMN,
        err.msg,
    ));
    Ok(false)
}
