//! Functional key parts, `INDEX idx ((expr))` (MySQL 8.0.13+): as in MySQL, each becomes a
//! hidden VIRTUAL generated column holding `expr` (typed after the expression), and the index
//! is an ordinary index on it. The column is not listed by `SELECT *`, SHOW COLUMNS or
//! INFORMATION_SCHEMA.COLUMNS; SHOW CREATE TABLE and SHOW INDEX print the expression in its
//! place; dropping the index drops it. MySQL's restrictions: not in a PRIMARY KEY (3756), not
//! a bare column (3762), not a BLOB/TEXT (3754) or JSON (3753) value; the generated-column
//! rules on the expression itself (3758 for a disallowed function).

use common::{codes, DataType, Error, Result};
use sqlparser::ast;
use storage::catalog::{ColumnDef, GeneratedDef, IndexColumn};

use crate::bind::expr::{BindEnv, Binder};
use crate::ir::scope::{Scope, ScopeCol};

/// What the hidden columns' names start with (no SQL name can: `!` needs quoting).
pub const HIDDEN_PREFIX: &str = "!hidden!";

/// The name MySQL gives an unnamed index whose first part is functional.
pub const DEFAULT_INDEX_NAME: &str = "functional_index";

/// The base of the name an unnamed index gets from its first column `c`.
pub fn index_base_name(c: &ColumnDef) -> &str {
    if c.is_hidden() {
        DEFAULT_INDEX_NAME
    } else {
        &c.name
    }
}

/// One key part of an index definition: a column (`col`, `col(10)`, `col DESC`, see
/// [`crate::ddl::table::index_column`]) or a functional part `(expr)`, whose hidden column is
/// appended to `columns`. `index` names the index (for the column name and messages), `part`
/// is the part's position in it; `primary`: a PRIMARY KEY's part.
///
/// # Errors
/// 3756, 3762, 3753, 3754 (see the module), and the binder's errors on the expression.
pub fn key_part(
    columns: &mut Vec<ColumnDef>,
    c: &ast::OrderByExpr,
    index: Option<&str>,
    part: usize,
    primary: bool,
    env: &dyn BindEnv,
) -> Result<IndexColumn> {
    let ast::Expr::Nested(inner) = &c.expr else {
        return crate::ddl::table::index_column(columns, c);
    };
    if primary {
        return Err(Error::new(
            codes::ER_FUNCTIONAL_INDEX_PRIMARY_KEY,
            "The primary key cannot be a functional index",
        ));
    }
    if matches!(
        inner.as_ref(),
        ast::Expr::Identifier(_) | ast::Expr::CompoundIdentifier(_)
    ) {
        return Err(Error::new(
            codes::ER_FUNCTIONAL_INDEX_ON_FIELD,
            "Functional index on a column is not supported. Consider using a regular index instead.",
        ));
    }
    let index = index.unwrap_or(DEFAULT_INDEX_NAME);
    let (ty, json) = expr_column_type(columns, inner, env)?;
    if json {
        return Err(Error::new(
            codes::ER_FUNCTIONAL_INDEX_ON_JSON_OR_GEOMETRY_FUNCTION,
            "Cannot create a functional index on a function that returns a JSON or GEOMETRY value.",
        ));
    }
    if ty.is_lob() {
        return Err(Error::new(
            codes::ER_FUNCTIONAL_INDEX_ON_LOB,
            "Cannot create a functional index on an expression that returns a BLOB or TEXT. Please consider using CAST.",
        ));
    }
    let mut name = format!("{HIDDEN_PREFIX}{index}!{part}!0");
    let mut k = 1;
    while columns.iter().any(|x| x.name.eq_ignore_ascii_case(&name)) {
        name = format!("{HIDDEN_PREFIX}{index}!{part}!{k}");
        k += 1;
    }
    let mut col = ColumnDef::plain(&name, ty, true);
    col.generated = Some(GeneratedDef {
        expr: crate::parse::stored_text(inner),
        stored: false,
        hidden: true,
    });
    columns.push(col);
    Ok(IndexColumn {
        col: columns.len() - 1,
        prefix_len: None,
        desc: matches!(c.options.sort, Some(ast::OrderBySort::Desc)),
    })
}

/// The column type a value of `e` (over a row of `columns`) is stored in, and whether `e` is
/// a JSON value.
fn expr_column_type(
    columns: &[ColumnDef],
    e: &ast::Expr,
    env: &dyn BindEnv,
) -> Result<(DataType, bool)> {
    let scope = Scope {
        cols: columns
            .iter()
            .map(|c| ScopeCol {
                db: String::new(),
                table: String::new(),
                org_table: String::new(),
                name: c.name.clone(),
                ty: Some(c.ty.clone()),
                nullable: c.nullable,
                flags: 0,
                ety: None,
            })
            .collect(),
        ..Scope::default()
    };
    let bound = Binder::new(&scope, env, "functional index").bind(e)?;
    let json = match &bound {
        crate::ir::expr::Expr::Func(n, _) => func::jsonfn::returns_json(n),
        crate::ir::expr::Expr::Cast(_, func::convert::CastTarget::Json) => true,
        crate::ir::expr::Expr::Col(i) => columns[*i].ty == DataType::Json,
        _ => false,
    };
    let t = crate::bind::expr::expr_type(&bound, &scope, &[], 0);
    Ok((crate::ddl::view::column_type(&t), json))
}

/// The index of hidden column `name` (`!hidden!<index>!…`), for messages.
pub fn index_of_hidden(name: &str) -> &str {
    name.strip_prefix(HIDDEN_PREFIX)
        .and_then(|r| r.split('!').next())
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_names_give_back_their_index() {
        assert_eq!(index_of_hidden("!hidden!idx!0!0"), "idx");
        assert_eq!(index_of_hidden("plain"), "plain");
    }
}
