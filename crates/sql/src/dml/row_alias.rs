//! The row alias of `INSERT … VALUES (…) AS new [(m, n, …)] ON DUPLICATE KEY UPDATE …`
//! (MySQL 8.0.19+, the replacement for the deprecated `VALUES(col)`): `new.col` and, with
//! column aliases, a bare `m` name the row that was to be inserted. They are rewritten to
//! `VALUES(col)` before binding, so the upsert binds and runs as it always has.

use std::ops::ControlFlow;

use common::{codes, Error, Result};
use sqlparser::ast::{self, visit_expressions_mut};
use storage::catalog::TableDef;

/// `e` with every reference to the row alias `a` replaced by `VALUES(col)`; `targets` are the
/// INSERT's target columns (the column aliases name them in order).
pub(crate) fn rewrite(
    e: &ast::Expr,
    a: &ast::InsertAliases,
    t: &TableDef,
    targets: &[usize],
) -> Result<ast::Expr> {
    let row = a
        .row_alias
        .0
        .last()
        .map(|p| p.to_string().trim_matches('`').to_string())
        .unwrap_or_default();
    let cols = a.col_aliases.as_deref().unwrap_or(&[]);
    if !cols.is_empty() && cols.len() != targets.len() {
        return Err(Error::new(
            codes::ER_WRONG_VALUE_COUNT_ON_ROW,
            "Column count doesn't match value count at row 1",
        ));
    }
    // the inserted row's column that `name` (after the alias) refers to
    let column = |name: &str| -> Option<String> {
        if cols.is_empty() {
            return Some(name.to_string());
        }
        let k = cols
            .iter()
            .position(|c| c.value.eq_ignore_ascii_case(name))?;
        Some(t.columns[targets[k]].name.clone())
    };
    let mut e = e.clone();
    let mut err = None;
    let _ = visit_expressions_mut(&mut e, |x: &mut ast::Expr| {
        let target = match &*x {
            ast::Expr::CompoundIdentifier(p) if p.len() == 2 && p[0].value == row => {
                match column(&p[1].value) {
                    Some(c) => Some(c),
                    None => {
                        err = Some(Error::bad_field(
                            &format!("{row}.{}", p[1].value),
                            "field list",
                        ));
                        return ControlFlow::Break(());
                    }
                }
            }
            ast::Expr::Identifier(i) if !cols.is_empty() => match column(&i.value) {
                Some(_)
                    if t.columns
                        .iter()
                        .any(|c| c.name.eq_ignore_ascii_case(&i.value)) =>
                {
                    err = Some(Error::new(
                        codes::ER_NON_UNIQ_ERROR,
                        format!("Column '{}' in field list is ambiguous", i.value),
                    ));
                    return ControlFlow::Break(());
                }
                other => other,
            },
            _ => None,
        };
        if let Some(c) = target {
            *x = values_call(&c);
        }
        ControlFlow::Continue(())
    });
    match err {
        Some(e) => Err(e),
        None => Ok(e),
    }
}

/// `VALUES(col)`.
fn values_call(col: &str) -> ast::Expr {
    use ast::{
        Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
        ObjectName,
    };
    ast::Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new("VALUES")]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(
                ast::Expr::Identifier(Ident::new(col)),
            ))],
            clauses: vec![],
        }),
        within_group: vec![],
        filter: None,
        null_treatment: None,
        over: None,
    })
}
