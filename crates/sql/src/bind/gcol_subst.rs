//! MySQL's substitution of generated-column expressions: in a WHERE clause, an expression
//! equal to the expression of an **indexed** generated column of a table read by the block
//! (the hidden column of a functional key part included) is replaced by a reference to that
//! column, so `WHERE LOWER(name) = 'x'` can use `INDEX ((LOWER(name)))` and
//! `WHERE doc->>'$.name' = 'x'` the index on `name VARCHAR(40) AS (doc->>'$.name')`.
//!
//! As in MySQL, only where the column's type is exactly the expression's own (so the stored
//! value is the expression's value, not a conversion of it) — otherwise the comparison could
//! change its result. The column holds the expression's value for every row (both kinds of
//! generated columns are computed on write), so the substitution never changes a result.

use common::Result;
use storage::catalog::TableDef;

use crate::bind::expr::{expr_type, BindEnv, Binder};
use crate::bind::select::table_scope;
use crate::ir::block::{JoinTable, Source};
use crate::ir::expr::Expr;

/// `filter` with the expressions of the indexed generated columns of `from`'s tables replaced
/// by column references.
pub(crate) fn substitute(env: &dyn BindEnv, from: &[JoinTable], filter: Expr) -> Result<Expr> {
    let mut targets: Vec<(String, usize)> = Vec::new();
    for jt in from {
        let Source::Table(t) = &jt.source else {
            continue;
        };
        for (e, ci) in indexed_generated(env, t)? {
            let shifted = e.map_cols(&|i| Expr::Col(i + jt.offset));
            targets.push((format!("{shifted:?}"), jt.offset + ci));
        }
    }
    if targets.is_empty() {
        return Ok(filter);
    }
    // (structural equality of bound expressions: their debug forms; only tables with indexed
    // generated columns pay for it)
    Ok(filter.rewrite(&mut |x| {
        if matches!(x, Expr::Col(_) | Expr::Lit(_) | Expr::Param(_)) {
            return None;
        }
        let key = format!("{x:?}");
        targets
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, col)| Expr::Col(*col))
    }))
}

/// The bound expressions (over `t`'s own row) of `t`'s generated columns that an index
/// starts with or contains, and whose declared type is the expression's own.
fn indexed_generated(env: &dyn BindEnv, t: &TableDef) -> Result<Vec<(Expr, usize)>> {
    let mut out = Vec::new();
    let indexed = |ci: usize| {
        t.indexes.iter().any(|ix| {
            ix.columns
                .iter()
                .any(|ic| ic.col == ci && ic.prefix_len.is_none())
        })
    };
    let mut scope = None;
    for (ci, c) in t.columns.iter().enumerate() {
        let Some(g) = &c.generated else { continue };
        if !indexed(ci) {
            continue;
        }
        let scope = scope.get_or_insert_with(|| table_scope(t, None));
        let ast = crate::parse::stored_expr(&g.expr, "generated column expression")?;
        let e = Binder::new(scope, env, "generated column function").bind(&ast)?;
        if expr_type(&e, scope, &[], 0) == func::types::type_of_column(&c.ty) {
            out.push((e, ci));
        }
    }
    Ok(out)
}
