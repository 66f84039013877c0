//! CHECK constraints as MySQL 8.4 defines them: `[CONSTRAINT [name]] CHECK (expr) [[NOT]
//! ENFORCED]` as a column or table constraint of CREATE TABLE and ALTER TABLE. This module turns
//! the clauses into the dictionary's [`CheckDef`]s: generated names `<table>_chk_<n>` (numbered
//! in statement order, an ALTER continuing after the table's highest number), names unique in
//! the table and, for base tables, in the database (3822), at most 64 characters (1059), and
//! MySQL's restrictions on the condition: a column constraint names only its column (3813),
//! every column exists (3820; 1054 in ALTER TABLE) and is not AUTO_INCREMENT (3818), no
//! subquery (3815), no variable (3816), no non-deterministic or session-dependent function
//! (3814), a boolean condition (3812). It also knows which columns a constraint uses (ALTER
//! TABLE's DROP / RENAME COLUMN, 3959). Rows are checked by `crate::dml::check`.
//!
//! The condition is stored as sqlparser's rendering of its syntax tree (it parses back to the
//! same tree); MySQL's display form (`crate::parse::print`) is made when shown.

use common::{codes, Error, Result};
use sqlparser::ast::{self, ColumnOption, Expr, TableConstraint};
use storage::catalog::{CheckDef, TableDef};
use storage::engine::KvEngine;
use storage::Storage;

use crate::bind::expr::{BindEnv, Binder};
use crate::bind::select::table_scope;
use crate::parse::alter::AlterOp;

/// Longest constraint name.
const MAX_NAME: usize = 64;

/// One CHECK clause of a statement.
#[derive(Debug, Clone)]
pub struct CheckSpec {
    /// `CONSTRAINT name`, if given.
    pub name: Option<String>,
    /// The condition.
    pub expr: Expr,
    /// False for NOT ENFORCED.
    pub enforced: bool,
    /// For a column constraint: its column.
    pub column: Option<String>,
}

impl CheckSpec {
    /// The spec of a parsed CHECK constraint (`column`: of a column definition).
    pub fn of(c: &ast::CheckConstraint, name: Option<&ast::Ident>, column: Option<&str>) -> Self {
        CheckSpec {
            name: c.name.as_ref().or(name).map(|n| n.value.clone()),
            expr: (*c.expr).clone(),
            enforced: c.enforced.unwrap_or(true),
            column: column.map(str::to_string),
        }
    }
}

/// The CHECK clauses of a column definition's options.
pub fn column_specs<'a>(
    column: &str,
    options: impl IntoIterator<Item = &'a ColumnOption>,
) -> Vec<CheckSpec> {
    options
        .into_iter()
        .filter_map(|o| match o {
            ColumnOption::Check(c) => Some(CheckSpec::of(c, None, Some(column))),
            _ => None,
        })
        .collect()
}

/// The CHECK clauses of a CREATE TABLE in statement order (column and table constraints
/// interleaved as written: MySQL numbers generated names that way).
pub fn create_specs(ct: &ast::CreateTable) -> Vec<CheckSpec> {
    use sqlparser::ast::Spanned;
    let mut v: Vec<(sqlparser::tokenizer::Span, CheckSpec)> = Vec::new();
    for c in &ct.columns {
        for o in &c.options {
            if let ColumnOption::Check(cc) = &o.option {
                let spec = CheckSpec::of(cc, o.name.as_ref(), Some(&c.name.value));
                v.push((cc.expr.span(), spec));
            }
        }
    }
    for con in &ct.constraints {
        if let TableConstraint::Check(cc) = con {
            v.push((cc.expr.span(), CheckSpec::of(cc, None, None)));
        }
    }
    if v.iter()
        .all(|(sp, _)| *sp != sqlparser::tokenizer::Span::empty())
    {
        v.sort_by_key(|(sp, _)| (sp.start.line, sp.start.column));
    }
    v.into_iter().map(|(_, s)| s).collect()
}

/// The number `n` of a generated name `<table>_chk_<n>`.
fn generated_no(table: &str, name: &str) -> Option<u64> {
    let n = name.strip_prefix(table)?.strip_prefix("_chk_")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// The constraints of `def` (whose columns are final) after adding `specs`: existing ones stay,
/// new ones are named, validated and appended. `in_alter`: an unknown column is 1054 (ALTER
/// TABLE) instead of 3820.
///
/// # Errors
/// 1059, 3812–3816, 3818, 3820, 3822, 1054, and binding errors of the condition (1305, …).
pub fn build(
    def: &TableDef,
    specs: Vec<CheckSpec>,
    env: &dyn BindEnv,
    in_alter: bool,
) -> Result<Vec<CheckDef>> {
    let mut out = def.checks.clone();
    let mut n = out
        .iter()
        .filter_map(|c| generated_no(&def.name, &c.name))
        .max()
        .unwrap_or(0);
    for spec in specs {
        let name = match spec.name {
            Some(name) => name,
            None => {
                n += 1;
                format!("{}_chk_{n}", def.name)
            }
        };
        if name.chars().count() > MAX_NAME {
            return Err(Error::new(
                codes::ER_TOO_LONG_IDENT,
                format!("Identifier name '{name}' is too long"),
            ));
        }
        if out.iter().any(|c| c.name.eq_ignore_ascii_case(&name)) {
            return Err(dup_name(&name));
        }
        validate(
            def,
            &name,
            &spec.expr,
            spec.column.as_deref(),
            env,
            in_alter,
        )?;
        out.push(CheckDef {
            name,
            expr: crate::parse::stored_text(&spec.expr),
            enforced: spec.enforced,
        });
    }
    Ok(out)
}

fn dup_name(name: &str) -> Error {
    Error::new(
        codes::ER_CHECK_CONSTRAINT_DUP_NAME,
        format!("Duplicate check constraint name '{name}'."),
    )
}

/// MySQL's restrictions on the condition of constraint `name` of `def`.
fn validate(
    def: &TableDef,
    name: &str,
    e: &Expr,
    column: Option<&str>,
    env: &dyn BindEnv,
    in_alter: bool,
) -> Result<()> {
    let mut found: Option<Error> = None;
    let _ = ast::visit_expressions(e, |x| {
        if let Some(err) = restriction(def, name, x, column, in_alter) {
            found = Some(err);
            return std::ops::ControlFlow::Break(());
        }
        std::ops::ControlFlow::Continue(())
    });
    if let Some(err) = found {
        return Err(err);
    }
    if !is_boolean(e) {
        return Err(Error::new(
            codes::ER_NON_BOOLEAN_EXPR_FOR_CHECK_CONSTRAINT,
            format!("An expression of non-boolean type specified to a check constraint '{name}'."),
        ));
    }
    let scope = table_scope(def, None);
    Binder::new(&scope, env, "check constraint").bind(e)?;
    Ok(())
}

/// The error one node of a condition makes, if any.
fn restriction(
    def: &TableDef,
    name: &str,
    x: &Expr,
    column: Option<&str>,
    in_alter: bool,
) -> Option<Error> {
    let disallowed = |what: &str| {
        Error::new(
            codes::ER_CHECK_CONSTRAINT_NAMED_FUNCTION_IS_NOT_ALLOWED,
            format!(
                "An expression of a check constraint '{name}' contains disallowed function: {what}."
            ),
        )
    };
    match x {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => {
            let (first, col) = match x {
                Expr::Identifier(id) => (id, id.value.clone()),
                Expr::CompoundIdentifier(p) => (p.first()?, p.last().map(|i| i.value.clone())?),
                _ => return None,
            };
            if first.quote_style.is_none() && first.value.starts_with('@') {
                return Some(variables(name));
            }
            if column.is_some_and(|c| !c.eq_ignore_ascii_case(&col)) {
                return Some(Error::new(
                    codes::ER_COLUMN_CHECK_CONSTRAINT_REFERENCES_OTHER_COLUMN,
                    format!("Column check constraint '{name}' references other column."),
                ));
            }
            let Some(ci) = def.column_index(&col) else {
                return Some(if in_alter {
                    Error::new(
                        codes::ER_BAD_FIELD_ERROR,
                        format!("Unknown column '{col}' in 'check constraint {name} expression'"),
                    )
                } else {
                    Error::new(
                        codes::ER_CHECK_CONSTRAINT_REFERS_UNKNOWN_COLUMN,
                        format!("Check constraint '{name}' refers to non-existing column '{col}'."),
                    )
                });
            };
            def.columns[ci].auto_increment.then(|| {
                Error::new(
                    codes::ER_CHECK_CONSTRAINT_REFERS_AUTO_INCREMENT_COLUMN,
                    format!("Check constraint '{name}' cannot refer to an auto-increment column."),
                )
            })
        }
        Expr::Subquery(_) | Expr::InSubquery { .. } | Expr::Exists { .. } => Some(Error::new(
            codes::ER_CHECK_CONSTRAINT_FUNCTION_IS_NOT_ALLOWED,
            format!("An expression of a check constraint '{name}' contains disallowed function."),
        )),
        Expr::Function(f) => disallowed_call(f).map(disallowed),
        _ => None,
    }
}

fn variables(name: &str) -> Error {
    Error::new(
        codes::ER_CHECK_CONSTRAINT_VARIABLES,
        format!("An expression of a check constraint '{name}' cannot refer to a user or system variable."),
    )
}

/// The name MySQL reports for a call a CHECK constraint or generated column may not make.
pub(crate) fn disallowed_call(f: &ast::Function) -> Option<&'static str> {
    let fname = f
        .name
        .0
        .last()
        .map(|p| p.to_string().trim_matches('`').to_ascii_uppercase())
        .unwrap_or_default();
    let no_args = match &f.args {
        ast::FunctionArguments::List(l) => l.args.is_empty(),
        _ => true,
    };
    disallowed_function(&fname, no_args)
}

/// The name MySQL reports for a function a CHECK constraint may not call.
fn disallowed_function(upper: &str, no_args: bool) -> Option<&'static str> {
    Some(match upper {
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => "now",
        "SYSDATE" => "sysdate",
        "CURDATE" | "CURRENT_DATE" => "curdate",
        "CURTIME" | "CURRENT_TIME" => "curtime",
        "UNIX_TIMESTAMP" if no_args => "unix_timestamp",
        "UTC_DATE" => "utc_date",
        "UTC_TIME" => "utc_time",
        "UTC_TIMESTAMP" => "utc_timestamp",
        "CONNECTION_ID" => "connection_id",
        "CURRENT_USER" => "current_user",
        "USER" | "SESSION_USER" | "SYSTEM_USER" => "user",
        "VERSION" => "version()",
        "DATABASE" | "SCHEMA" => "database",
        "FOUND_ROWS" => "found_rows",
        "LAST_INSERT_ID" => "last_insert_id",
        "ROW_COUNT" => "row_count",
        "RAND" => "rand",
        "UUID" => "uuid",
        "UUID_SHORT" => "uuid_short",
        "SLEEP" => "sleep",
        "BENCHMARK" => "benchmark",
        "GET_LOCK" => "get_lock",
        "IS_FREE_LOCK" => "is_free_lock",
        "IS_USED_LOCK" => "is_used_lock",
        "RELEASE_LOCK" => "release_lock",
        "RELEASE_ALL_LOCKS" => "release_all_locks",
        "LOAD_FILE" => "load_file",
        _ => return None,
    })
}

/// Whether a condition is of boolean type as MySQL decides it (comparisons, logical
/// operators, IS, IN, BETWEEN, LIKE, REGEXP, TRUE / FALSE and the predicate functions).
fn is_boolean(e: &Expr) -> bool {
    use ast::BinaryOperator as B;
    match e {
        Expr::Nested(x) => is_boolean(x),
        Expr::BinaryOp { op, .. } => matches!(
            op,
            B::Eq
                | B::NotEq
                | B::Lt
                | B::LtEq
                | B::Gt
                | B::GtEq
                | B::Spaceship
                | B::And
                | B::Or
                | B::Xor
        ),
        Expr::UnaryOp {
            op: ast::UnaryOperator::Not | ast::UnaryOperator::BangNot,
            ..
        } => true,
        Expr::IsNull(_)
        | Expr::IsNotNull(_)
        | Expr::IsTrue(_)
        | Expr::IsNotTrue(_)
        | Expr::IsFalse(_)
        | Expr::IsNotFalse(_)
        | Expr::IsUnknown(_)
        | Expr::IsNotUnknown(_)
        | Expr::InList { .. }
        | Expr::Between { .. }
        | Expr::Like { .. }
        | Expr::ILike { .. }
        | Expr::RLike { .. } => true,
        Expr::Value(v) => matches!(v.value, ast::Value::Boolean(_)),
        Expr::Function(f) => {
            let n = f
                .name
                .0
                .last()
                .map(|p| p.to_string().trim_matches('`').to_ascii_lowercase())
                .unwrap_or_default();
            n.starts_with("st_")
                || n.starts_with("mbr")
                || matches!(
                    n.as_str(),
                    "regexp_like"
                        | "isnull"
                        | "json_contains"
                        | "json_contains_path"
                        | "json_valid"
                        | "json_overlaps"
                        | "member_of"
                )
        }
        _ => false,
    }
}

fn not_found(name: &str) -> Error {
    Error::new(
        codes::ER_CHECK_CONSTRAINT_NOT_FOUND,
        format!("Check constraint '{name}' is not found in the table."),
    )
}

/// Whether `op` drops the CHECK constraint `c` (DROP CHECK, or DROP CONSTRAINT of its name).
pub fn drops(op: &AlterOp, c: &CheckDef) -> bool {
    matches!(op, AlterOp::DropCheck(n) | AlterOp::DropConstraint(n) if c.name.eq_ignore_ascii_case(n))
}

/// ALTER TABLE's effect on the CHECK constraints of `old`, written into `def` (the new
/// definition: final columns, `def.name` the table's final name). In MySQL's order: DROP CHECK
/// / DROP CONSTRAINT (3821 for an unknown DROP CHECK), ALTER CHECK … [NOT] ENFORCED (3821),
/// the columns dropped or renamed (a constraint on dropped columns only goes with them; one
/// that also uses other columns, or uses a renamed one, is 3959), generated names following a
/// RENAME TO, then the new constraints (ADD CHECK, a new column's CHECK). True when the rows
/// must be checked: a new ENFORCED constraint, one becoming ENFORCED, or an enforced one whose
/// column changes type.
///
/// # Errors
/// 3821, 3959 and those of [`build`].
pub fn alter(
    old: &TableDef,
    def: &mut TableDef,
    ops: &[AlterOp],
    env: &dyn BindEnv,
) -> Result<bool> {
    let mut checks = old.checks.clone();
    for op in ops {
        if let AlterOp::DropCheck(n) = op {
            if !checks.iter().any(|c| drops(op, c)) {
                return Err(not_found(n));
            }
        }
        checks.retain(|c| !drops(op, c));
    }
    let mut validate = false;
    for op in ops {
        if let AlterOp::AlterCheck { name, enforced } = op {
            let c = checks
                .iter_mut()
                .find(|c| c.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| not_found(name))?;
            validate |= *enforced && !c.enforced;
            c.enforced = *enforced;
        }
    }
    let (dropped, renamed, changed) = column_changes(old, ops);
    let mut kept = Vec::with_capacity(checks.len());
    for c in checks {
        let cols = columns_of(&c);
        let uses = |list: &[String]| {
            cols.iter()
                .find(|x| list.iter().any(|d| d.eq_ignore_ascii_case(x)))
                .cloned()
        };
        if let Some(col) = uses(&renamed) {
            return Err(dependent(&c.name, &col));
        }
        if let Some(col) = uses(&dropped) {
            if cols
                .iter()
                .all(|x| dropped.iter().any(|d| d.eq_ignore_ascii_case(x)))
            {
                continue;
            }
            return Err(dependent(&c.name, &col));
        }
        validate |= c.enforced && uses(&changed).is_some();
        kept.push(c);
    }
    if def.name != old.name {
        kept = renamed_checks(&kept, &old.name, &def.name)?;
    }
    let mut specs = Vec::new();
    for op in ops {
        match op {
            AlterOp::AddCheck(c) => specs.push(CheckSpec::of(c, None, None)),
            AlterOp::AddColumn { spec, .. } => {
                specs.extend(column_specs(&spec.name, spec.options.iter()))
            }
            _ => {}
        }
    }
    validate |= specs.iter().any(|s| s.enforced);
    def.checks = kept;
    def.checks = build(def, specs, env, true)?;
    Ok(validate)
}

fn dependent(check: &str, column: &str) -> Error {
    Error::new(
        codes::ER_DEPENDENT_BY_CHECK_CONSTRAINT,
        format!(
            "Check constraint '{check}' uses column '{column}', hence column cannot be dropped or renamed."
        ),
    )
}

/// The original columns an ALTER TABLE drops, renames, and redefines (MODIFY / CHANGE).
fn column_changes(old: &TableDef, ops: &[AlterOp]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (mut dropped, mut renamed, mut changed) = (Vec::new(), Vec::new(), Vec::new());
    for op in ops {
        match op {
            AlterOp::DropColumn { name, .. } if old.column_index(name).is_some() => {
                dropped.push(name.clone())
            }
            AlterOp::RenameColumn { old: o, new } if !o.eq_ignore_ascii_case(new) => {
                renamed.push(o.clone())
            }
            AlterOp::ChangeColumn { old: o, spec, .. } => {
                if o.eq_ignore_ascii_case(&spec.name) {
                    changed.push(o.clone());
                } else {
                    renamed.push(o.clone());
                }
            }
            _ => {}
        }
    }
    (dropped, renamed, changed)
}

/// Parses a stored condition.
///
/// # Errors
/// An internal error if the text no longer parses (a corrupt definition).
pub fn parse_expr(text: &str) -> Result<Expr> {
    crate::parse::stored_expr(text, "CHECK condition")
}

/// The columns constraint `c` uses (names as written in it).
pub fn columns_of(c: &CheckDef) -> Vec<String> {
    let Ok(e) = parse_expr(&c.expr) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    let _ = ast::visit_expressions(&e, |x| {
        let col = match x {
            Expr::Identifier(id) => Some(id.value.clone()),
            Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.clone()),
            _ => None,
        };
        if let Some(col) = col {
            if !out.iter().any(|o| o.eq_ignore_ascii_case(&col)) {
                out.push(col);
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    out
}

/// The constraints of a table made by CREATE TABLE … LIKE: every one under a generated name
/// of the new table, numbered in the order of the source's names (as MySQL renames them).
///
/// # Errors
/// 1059 for a generated name past 64 characters.
pub fn renamed_for_like(checks: &[CheckDef], table: &str) -> Result<Vec<CheckDef>> {
    let mut sorted: Vec<&CheckDef> = checks.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut out = Vec::with_capacity(sorted.len());
    for (i, c) in sorted.into_iter().enumerate() {
        let name = format!("{table}_chk_{}", i + 1);
        if name.chars().count() > MAX_NAME {
            return Err(Error::new(
                codes::ER_TOO_LONG_IDENT,
                format!("Identifier name '{name}' is too long"),
            ));
        }
        out.push(CheckDef { name, ..c.clone() });
    }
    Ok(out)
}

/// MySQL's rule that CHECK constraint names are unique within a database: 3822 when another
/// base table of `db` (not `table` itself) has a constraint of one of these names.
///
/// # Errors
/// 3822; engine I/O errors.
pub fn check_unique_names<E: KvEngine>(
    st: &Storage<E>,
    db: &str,
    table: &str,
    checks: &[CheckDef],
) -> Result<()> {
    if checks.is_empty() {
        return Ok(());
    }
    for t in st.list_tables(db)? {
        if t == table || crate::ddl::alter::is_temp_table(&t) {
            continue;
        }
        let Some(other) = st.get_table(db, &t)? else {
            continue;
        };
        for c in checks {
            if other.check_no(&c.name).is_some() {
                return Err(dup_name(&c.name));
            }
        }
    }
    Ok(())
}

/// Generated names of `checks` renamed from table `old` to table `new` (RENAME TABLE, ALTER
/// TABLE … RENAME), checked against the 64-character limit.
///
/// # Errors
/// 1059.
pub fn renamed_checks(checks: &[CheckDef], old: &str, new: &str) -> Result<Vec<CheckDef>> {
    let mut out = Vec::with_capacity(checks.len());
    for c in checks {
        let name = match generated_no(old, &c.name) {
            Some(n) => format!("{new}_chk_{n}"),
            None => c.name.clone(),
        };
        if name.chars().count() > MAX_NAME {
            return Err(Error::new(
                codes::ER_TOO_LONG_IDENT,
                format!("Identifier name '{name}' is too long"),
            ));
        }
        out.push(CheckDef { name, ..c.clone() });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_numbers() {
        assert_eq!(generated_no("t1", "t1_chk_3"), Some(3));
        assert_eq!(generated_no("t1", "t1_chk_"), None);
        assert_eq!(generated_no("t1", "t1_chk_x"), None);
        assert_eq!(generated_no("t1", "t10_chk_1"), None);
        let c = |n: &str| CheckDef {
            name: n.into(),
            expr: "a > 0".into(),
            enforced: true,
        };
        let r = renamed_checks(&[c("t1_chk_2"), c("mine")], "t1", "t2").unwrap();
        assert_eq!(r[0].name, "t2_chk_2");
        assert_eq!(r[1].name, "mine");
        let l = renamed_for_like(&[c("min"), c("max"), c("t1_chk_1")], "t3").unwrap();
        let names: Vec<&str> = l.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["t3_chk_1", "t3_chk_2", "t3_chk_3"]);
        assert_eq!(l[0].expr, "a > 0");
        assert_eq!(
            columns_of(&CheckDef {
                name: "x".into(),
                expr: "a + t.b > a".into(),
                enforced: true,
            }),
            ["a", "b"]
        );
    }
}
