//! Generated columns' definitions (`col type [GENERATED ALWAYS] AS (expr) [VIRTUAL|STORED]`):
//! the clause read from a column definition into the dictionary's [`GeneratedDef`], the
//! options it cannot be combined with (1221), MySQL's restrictions on the expression (unknown
//! column 1054, a later generated column 3107, an AUTO_INCREMENT column 3109, a subquery or
//! variable 3102, a non-deterministic function 3763, a virtual primary key 3106), and the
//! dependencies that stop DROP / RENAME of a column (3108). The values are computed on write
//! by `crate::dml::generated`.

use common::{codes, Error, Result};
use sqlparser::ast::{self, ColumnOption, Expr};
use storage::catalog::{ColumnDef, GeneratedDef, TableDef};

use crate::bind::expr::{BindEnv, Binder};
use crate::bind::select::table_scope;

/// The generated-column clause of one column option, if it is one.
///
/// # Errors
/// 1064 for an identity column (`GENERATED … AS IDENTITY`, not MySQL syntax).
pub fn declared(opt: &ColumnOption) -> Result<Option<GeneratedDef>> {
    let ColumnOption::Generated {
        generation_expr,
        generation_expr_mode,
        sequence_options,
        generated_as,
        ..
    } = opt
    else {
        return Ok(None);
    };
    let expr = match generation_expr {
        Some(e) if sequence_options.is_none() && *generated_as != ast::GeneratedAs::ByDefault => e,
        _ => {
            return Err(Error::parse(
                "You have an error in your SQL syntax; identity columns are not MySQL syntax: use AUTO_INCREMENT",
            ))
        }
    };
    Ok(Some(GeneratedDef {
        expr: crate::parse::stored_text(expr),
        stored: matches!(
            generation_expr_mode,
            Some(ast::GeneratedExpressionMode::Stored)
        ),
        hidden: false,
    }))
}

/// Options a generated column cannot have: DEFAULT, AUTO_INCREMENT, ON UPDATE (1221).
pub fn check_options(col: &ColumnDef) -> Result<()> {
    if col.generated.is_none() {
        return Ok(());
    }
    let what = if col.default.is_some() {
        "DEFAULT"
    } else if col.auto_increment {
        "AUTO_INCREMENT"
    } else if col.on_update.is_some() {
        "ON UPDATE"
    } else {
        return Ok(());
    };
    Err(Error::new(
        codes::ER_WRONG_USAGE,
        format!("Incorrect usage of {what} and generated column"),
    ))
}

/// MySQL's restrictions on the generated columns of `def` (columns final, primary key at
/// `indexes[0]`), each expression bound over the table's row.
///
/// # Errors
/// 1054, 3102, 3106, 3107, 3109, 3763, and the binder's errors (1305 unknown function, …).
pub fn validate(def: &TableDef, env: &dyn BindEnv) -> Result<()> {
    if def.columns.iter().all(|c| c.generated.is_none()) {
        return Ok(());
    }
    if !def.hidden_pk {
        for ic in &def.indexes[0].columns {
            if def.columns[ic.col]
                .generated
                .as_ref()
                .is_some_and(|g| !g.stored)
            {
                return Err(unsupported(
                    "Defining a virtual generated column as primary key",
                ));
            }
        }
    }
    let scope = table_scope(def, None);
    for (ci, c) in def.columns.iter().enumerate() {
        let Some(g) = &c.generated else { continue };
        let e = crate::parse::stored_expr(&g.expr, "generated column expression")?;
        let mut found: Option<Error> = None;
        let _ = ast::visit_expressions(&e, |x| {
            found = restriction(def, ci, x);
            if found.is_some() {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        });
        if let Some(err) = found {
            // a functional key part's hidden column: MySQL names the index (3758)
            if c.is_hidden() && matches!(err.code.num, 3102 | 3763) {
                return Err(Error::new(
                    codes::ER_FUNCTIONAL_INDEX_FUNCTION_IS_NOT_ALLOWED,
                    format!(
                        "Expression of functional index '{}' contains a disallowed function.",
                        crate::ddl::functional::index_of_hidden(&c.name)
                    ),
                ));
            }
            return Err(err);
        }
        Binder::new(&scope, env, "generated column function").bind(&e)?;
    }
    Ok(())
}

/// 3106 `'what' is not supported for generated columns.`
pub fn unsupported(what: &str) -> Error {
    Error::new(
        codes::ER_UNSUPPORTED_ACTION_ON_GENERATED_COLUMN,
        format!("'{what}' is not supported for generated columns."),
    )
}

/// The error one node of column `ci`'s expression makes, if any.
fn restriction(def: &TableDef, ci: usize, x: &Expr) -> Option<Error> {
    let name = &def.columns[ci].name;
    let disallowed = || {
        Error::new(
            codes::ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED,
            format!("Expression of generated column '{name}' contains a disallowed function."),
        )
    };
    match x {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
            let (first, col) = match x {
                Expr::Identifier(id) => (id, id.value.clone()),
                Expr::CompoundIdentifier(p) => (p.first()?, p.last()?.value.clone()),
                _ => return None,
            };
            if first.quote_style.is_none() && first.value.starts_with('@') {
                return Some(disallowed());
            }
            let Some(ri) = def.column_index(&col) else {
                return Some(Error::new(
                    codes::ER_BAD_FIELD_ERROR,
                    format!("Unknown column '{col}' in 'generated column function'"),
                ));
            };
            let r = &def.columns[ri];
            if r.generated.is_some() && ri >= ci {
                return Some(Error::new(
                    codes::ER_GENERATED_COLUMN_NON_PRIOR,
                    "Generated column can refer only to generated columns defined prior to it.",
                ));
            }
            r.auto_increment.then(|| {
                Error::new(
                    codes::ER_GENERATED_COLUMN_REF_AUTO_INC,
                    format!("Generated column '{name}' cannot refer to auto-increment column."),
                )
            })
        }
        Expr::Subquery(_) | Expr::InSubquery { .. } | Expr::Exists { .. } => Some(disallowed()),
        Expr::Function(f) => {
            if f.over.is_some() {
                return Some(disallowed());
            }
            crate::ddl::check::disallowed_call(f).map(|what| {
                Error::new(
                    codes::ER_GENERATED_COLUMN_NAMED_FUNCTION_IS_NOT_ALLOWED,
                    format!(
                        "Expression of generated column '{name}' contains a disallowed function: {what}."
                    ),
                )
            })
        }
        _ => None,
    }
}

/// The first generated column among `columns` whose expression uses column `col`: a DROP or
/// RENAME of `col` is 3108 while one does.
///
/// # Errors
/// A stored expression that no longer parses (internal error).
pub fn dependent(columns: &[ColumnDef], col: &str) -> Result<Option<String>> {
    for c in columns {
        let Some(g) = &c.generated else { continue };
        let e = crate::parse::stored_expr(&g.expr, "generated column expression")?;
        let mut uses = false;
        let _ = ast::visit_expressions(&e, |x| {
            let name = match x {
                Expr::Identifier(id) => Some(&id.value),
                Expr::CompoundIdentifier(p) => p.last().map(|i| &i.value),
                _ => None,
            };
            uses |= name.is_some_and(|n| n.eq_ignore_ascii_case(col));
            std::ops::ControlFlow::<()>::Continue(())
        });
        if uses {
            return Ok(Some(c.name.clone()));
        }
    }
    Ok(None)
}

/// ALTER TABLE's checks on the generated columns of the new definition `def`, made from
/// `old`: a column that was dropped or renamed may not be used by a generated column (3108),
/// then [`validate`].
///
/// # Errors
/// 3108 and [`validate`]'s errors.
pub fn check_alter(old: &TableDef, def: &TableDef, env: &dyn BindEnv) -> Result<()> {
    if def.columns.iter().all(|c| c.generated.is_none()) {
        return Ok(());
    }
    for c in &old.columns {
        let kept = def
            .columns
            .iter()
            .any(|n| n.name.eq_ignore_ascii_case(&c.name));
        if !kept && dependent(&def.columns, &c.name)?.is_some() {
            return Err(dependency_error(&c.name));
        }
    }
    validate(def, env)
}

/// Whether the rows must be rewritten for the generated columns of `def` (`src[j]`: the
/// column of `old` that new column `j` comes from): a generated column added or redefined,
/// or a column's type changed while the table has generated columns.
pub fn needs_copy(old: &TableDef, columns: &[ColumnDef], src: &[Option<usize>]) -> bool {
    if columns.iter().all(|c| c.generated.is_none()) {
        return false;
    }
    columns.iter().zip(src).any(|(c, s)| match s {
        None => c.generated.is_some(),
        Some(i) => old.columns[*i].generated != c.generated || old.columns[*i].ty != c.ty,
    })
}

/// 3108 `Column 'col' has a generated column dependency.`
pub fn dependency_error(col: &str) -> Error {
    Error::new(
        codes::ER_DEPENDENT_BY_GENERATED_COLUMN,
        format!("Column '{col}' has a generated column dependency."),
    )
}
