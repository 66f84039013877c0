//! Partitioning (MySQL 8 semantics): the validation of a `PARTITION BY` clause (its syntax is
//! [`crate::parse::partition`]'s), row routing, partition pruning, ALTER TABLE's partition
//! operations, and the text SHOW CREATE TABLE / INFORMATION_SCHEMA print.
//!
//! # Model
//! The dictionary keeps a table's [`Partitioning`] (storage crate): the method, the expression
//! text or column list, and per partition (and subpartition) its evaluated values and its own
//! index ids. Every partition — or every subpartition of a subpartitioned table — is a *leaf*;
//! a leaf is read and written through [`TableDef::leaf_def`], the table definition with the
//! leaf's index ids, so the storage layer treats it like any table. This module decides which
//! leaf a row goes to ([`PartRt::route`]) and which leaves a WHERE clause can touch
//! ([`PartRt::prune`]).
//!
//! # Routing (as MySQL computes it)
//! * RANGE: the first partition whose `VALUES LESS THAN` bound is above the value; NULL sorts
//!   below everything (first partition). RANGE COLUMNS compares the column tuple.
//! * LIST: the partition listing the value (NULL only if listed); otherwise 1526.
//! * HASH: `|v mod n|` (NULL as 0); LINEAR HASH: MySQL's power-of-two folding.
//! * KEY: MySQL's `my_hash_sort_bin` hash over each column's storage bytes for integer and date
//!   columns (so rows land where MySQL puts them); strings hash their collation sort key
//!   instead of the exact MySQL weights (placement may differ from MySQL for strings).
//!
//! # Pruning
//! MySQL reuses its range optimizer; we analyse the WHERE clause directly: OR takes the union
//! of its branches' partitions, AND intersects them, and each AND group gathers per-column
//! equalities and ranges. From those: RANGE maps an interval on the column through a monotonic
//! function (identity, TO_DAYS, TO_SECONDS, YEAR, UNIX_TIMESTAMP) to a run of partitions;
//! RANGE COLUMNS turns an equality prefix plus a range on the next column into a tuple interval;
//! LIST, HASH and KEY evaluate equalities (and small integer ranges, enumerated up to
//! [`MAX_WALK`] values) to partitions; subpartitions are pruned the same way per partition.
//! The WHERE clause is still checked on every row read, so pruning only has to be a superset.

use std::collections::HashSet;
use std::sync::Arc;

use common::{codes, DataType, Error, Result, Value};
use parking_lot::Mutex;
use sqlparser::ast;
use sqlparser::parser::Parser;
use storage::catalog::{
    IndexKind, PartFunc, PartMethod, PartValue, PartValues, PartitionDef, Partitioning,
    SubpartitionDef, TableDef,
};
use storage::engine::KvEngine;
use storage::{Handle, InsertOutcome, UpdateOutcome};

use crate::bind::expr::Binder;
use crate::ir::expr::conjuncts;
use crate::ir::expr::CmpOp;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::parse::partition::FuncSpec;
use crate::parse::partition::PartDefSpec;
use crate::parse::partition::PartOp;
use crate::parse::partition::PartSpec;
use crate::parse::partition::ValuesSpec;
use crate::session::session::Session;

/// Most partitions (leaves included) a table may have, as in MySQL.
pub const MAX_PARTITIONS: usize = 8192;

/// Longest integer interval pruning enumerates value by value for HASH / LIST / KEY.
pub const MAX_WALK: i64 = 32;

// =============================================================================================
// Printing
// =============================================================================================

/// Prints a partition expression the way SHOW CREATE TABLE shows it: columns back-quoted,
/// function names lower-case.
pub fn print_expr(e: &ast::Expr) -> String {
    use ast::Expr as X;
    match e {
        X::Identifier(i) => format!("`{}`", i.value.replace('`', "``")),
        X::CompoundIdentifier(parts) => parts
            .last()
            .map(|i| format!("`{}`", i.value.replace('`', "``")))
            .unwrap_or_default(),
        X::Nested(inner) => format!("({})", print_expr(inner)),
        X::BinaryOp { left, op, right } => {
            let op = match op {
                ast::BinaryOperator::MyIntegerDivide => "DIV".to_string(),
                ast::BinaryOperator::Modulo => "%".to_string(),
                o => o.to_string(),
            };
            format!("{} {op} {}", print_expr(left), print_expr(right))
        }
        X::UnaryOp { op, expr } => format!("{op}{}", print_expr(expr)),
        X::Function(f) => {
            let name = f.name.to_string().to_ascii_lowercase();
            let args = match &f.args {
                ast::FunctionArguments::List(l) => l
                    .args
                    .iter()
                    .map(|a| match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => print_expr(x),
                        other => other.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(","),
                other => other.to_string(),
            };
            if name == crate::parse::parser::COMPOUND_INTERVAL.to_ascii_lowercase() {
                return args;
            }
            format!("{name}({args})")
        }
        X::Extract { field, expr, .. } => {
            format!("extract({field} from {})", print_expr(expr))
        }
        X::Floor { expr, .. } => format!("floor({})", print_expr(expr)),
        X::Ceil { expr, .. } => format!("ceiling({})", print_expr(expr)),
        other => other.to_string(),
    }
}

fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// A partition constant as SHOW CREATE TABLE prints it.
pub fn print_value(v: &PartValue) -> String {
    match v {
        PartValue::Null => "NULL".into(),
        PartValue::MaxValue => "MAXVALUE".into(),
        PartValue::Int(i) => i.to_string(),
        PartValue::UInt(u) => u.to_string(),
        PartValue::Str(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
    }
}

fn func_text(f: &PartFunc) -> String {
    let linear = if f.linear { "LINEAR " } else { "" };
    let cols = || {
        f.columns
            .iter()
            .map(|c| quote_ident(c))
            .collect::<Vec<_>>()
            .join(",")
    };
    match f.method {
        PartMethod::Hash => format!("{linear}HASH ({})", f.expr),
        PartMethod::Key => {
            let alg = f
                .algorithm
                .map(|a| format!("ALGORITHM = {a} "))
                .unwrap_or_default();
            format!("{linear}KEY {alg}({})", cols())
        }
        PartMethod::Range | PartMethod::List => {
            let m = if f.method == PartMethod::Range {
                "RANGE"
            } else {
                "LIST"
            };
            if f.columns_form {
                format!("{m}  COLUMNS({})", cols())
            } else {
                format!("{m} ({})", f.expr)
            }
        }
    }
}

/// The PARTITION_METHOD / SUBPARTITION_METHOD column text.
pub fn method_name(f: &PartFunc) -> String {
    let base = match f.method {
        PartMethod::Range => "RANGE",
        PartMethod::List => "LIST",
        PartMethod::Hash => "HASH",
        PartMethod::Key => "KEY",
    };
    match (f.linear, f.columns_form) {
        (true, _) => format!("LINEAR {base}"),
        (_, true) => format!("{base} COLUMNS"),
        _ => base.to_string(),
    }
}

/// The PARTITION_EXPRESSION column text.
pub fn expression_text(f: &PartFunc) -> String {
    if f.columns.is_empty() {
        f.expr.clone()
    } else {
        f.columns
            .iter()
            .map(|c| quote_ident(c))
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// PARTITION_DESCRIPTION: the bound of a RANGE partition, the list of a LIST partition.
pub fn description(p: &PartitionDef) -> Option<String> {
    match &p.values {
        PartValues::None => None,
        PartValues::LessThan(v) => Some(v.iter().map(print_value).collect::<Vec<_>>().join(",")),
        PartValues::In(list) => Some(
            list.iter()
                .map(|t| {
                    if t.len() == 1 {
                        print_value(&t[0])
                    } else {
                        format!(
                            "({})",
                            t.iter().map(print_value).collect::<Vec<_>>().join(",")
                        )
                    }
                })
                .collect::<Vec<_>>()
                .join(","),
        ),
    }
}

/// The partition clause of SHOW CREATE TABLE, wrapped in its versioned comment
/// (`/*!50100 … */`, `/*!50500 … */` for the COLUMNS forms), starting with a newline.
pub fn show_create_clause(t: &TableDef) -> String {
    let Some(p) = &t.partitioning else {
        return String::new();
    };
    let engine = if t.options.engine.is_empty() {
        "InnoDB".to_string()
    } else {
        t.options.engine.clone()
    };
    let version = if p.func.columns_form { 50500 } else { 50100 };
    let mut s = format!("\n/*!{version} PARTITION BY {}", func_text(&p.func));
    if let Some(sub) = &p.sub {
        s.push_str(&format!("\nSUBPARTITION BY {}", func_text(sub)));
        if p.sub_by_count {
            s.push_str(&format!("\nSUBPARTITIONS {}", p.subs_per_part()));
        }
    }
    if p.by_count {
        s.push_str(&format!("\nPARTITIONS {}", p.partitions.len()));
    } else {
        let parts: Vec<String> = p
            .partitions
            .iter()
            .map(|d| {
                let mut x = format!("PARTITION {}", quote_name(&d.name));
                match &d.values {
                    PartValues::None => {}
                    PartValues::LessThan(v) => {
                        if v.len() == 1 && v[0] == PartValue::MaxValue && !p.func.columns_form {
                            x.push_str(" VALUES LESS THAN MAXVALUE");
                        } else {
                            x.push_str(&format!(
                                " VALUES LESS THAN ({})",
                                v.iter().map(print_value).collect::<Vec<_>>().join(",")
                            ));
                        }
                    }
                    PartValues::In(_) => x.push_str(&format!(
                        " VALUES IN ({})",
                        description(d).unwrap_or_default()
                    )),
                }
                if !d.comment.is_empty() {
                    x.push_str(&format!(" COMMENT = '{}'", d.comment.replace('\'', "''")));
                }
                if d.subpartitions.is_empty() || p.sub_by_count {
                    x.push_str(&format!(" ENGINE = {engine}"));
                } else {
                    let subs: Vec<String> = d
                        .subpartitions
                        .iter()
                        .map(|sp| {
                            let c = if sp.comment.is_empty() {
                                String::new()
                            } else {
                                format!(" COMMENT = '{}'", sp.comment.replace('\'', "''"))
                            };
                            format!(
                                "  SUBPARTITION {}{c} ENGINE = {engine}",
                                quote_name(&sp.name)
                            )
                        })
                        .collect();
                    x.push_str(&format!("\n ({})", subs.join(",\n").trim_start()));
                }
                x
            })
            .collect();
        s.push_str(&format!("\n({})", parts.join(",\n ")));
    }
    s.push_str(" */");
    s
}

/// Partition names print bare when they are plain identifiers, back-quoted otherwise.
fn quote_name(n: &str) -> String {
    if !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        && !n.chars().all(|c| c.is_ascii_digit())
    {
        n.to_string()
    } else {
        quote_ident(n)
    }
}

// =============================================================================================
// Validation: PARTITION BY clause → dictionary form
// =============================================================================================

fn perr(code: common::codes::ErrorCode, msg: impl Into<String>) -> Error {
    Error::new(code, msg)
}

/// Functions MySQL accepts in partitioning expressions.
const ALLOWED_FUNCS: &[&str] = &[
    "ABS",
    "CEILING",
    "CEIL",
    "DATEDIFF",
    "DAY",
    "DAYOFMONTH",
    "DAYOFWEEK",
    "DAYOFYEAR",
    "EXTRACT",
    "FLOOR",
    "HOUR",
    "MICROSECOND",
    "MINUTE",
    "MOD",
    "MONTH",
    "QUARTER",
    "SECOND",
    "TIME_TO_SEC",
    "TO_DAYS",
    "TO_SECONDS",
    "UNIX_TIMESTAMP",
    "WEEKDAY",
    "YEAR",
    "YEARWEEK",
];

/// Checks that `e` only uses what MySQL allows in a partitioning function; collects the
/// columns it reads.
fn check_part_expr(e: &ast::Expr, cols: &mut Vec<String>) -> Result<()> {
    use ast::Expr as X;
    let bad = || {
        perr(
            codes::ER_PARTITION_FUNCTION_IS_NOT_ALLOWED,
            "This partition function is not allowed",
        )
    };
    match e {
        X::Identifier(i) => cols.push(i.value.clone()),
        X::CompoundIdentifier(p) => {
            if let Some(i) = p.last() {
                cols.push(i.value.clone())
            }
        }
        X::Value(_) => {}
        X::Nested(x) => check_part_expr(x, cols)?,
        X::UnaryOp { op, expr } => {
            if !matches!(op, ast::UnaryOperator::Minus | ast::UnaryOperator::Plus) {
                return Err(bad());
            }
            check_part_expr(expr, cols)?
        }
        X::BinaryOp { left, op, right } => {
            use ast::BinaryOperator as B;
            if !matches!(
                op,
                B::Plus | B::Minus | B::Multiply | B::MyIntegerDivide | B::Modulo
            ) {
                return Err(bad());
            }
            check_part_expr(left, cols)?;
            check_part_expr(right, cols)?;
        }
        X::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            if !ALLOWED_FUNCS.contains(&name.as_str()) {
                return Err(bad());
            }
            if let ast::FunctionArguments::List(l) = &f.args {
                for a in &l.args {
                    match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => {
                            check_part_expr(x, cols)?
                        }
                        _ => return Err(bad()),
                    }
                }
            }
        }
        X::Extract { field, expr, .. } => {
            if matches!(field, ast::DateTimeField::Week(_)) {
                return Err(bad());
            }
            check_part_expr(expr, cols)?
        }
        X::Floor { expr, .. } | X::Ceil { expr, .. } => check_part_expr(expr, cols)?,
        _ => return Err(bad()),
    }
    Ok(())
}

fn is_int_type(ty: &DataType) -> bool {
    matches!(ty, DataType::Int { .. } | DataType::Year)
}

/// Column types the COLUMNS forms accept: integers, strings, DATE, DATETIME (MySQL 8).
fn columns_type_ok(ty: &DataType) -> bool {
    matches!(
        ty,
        DataType::Int { .. }
            | DataType::Char { .. }
            | DataType::VarChar { .. }
            | DataType::Binary { .. }
            | DataType::VarBinary { .. }
            | DataType::Date
            | DataType::DateTime { .. }
    )
}

/// Checks a partitioning function against the table and returns its dictionary form.
fn check_func<E: KvEngine>(s: &Session<E>, def: &TableDef, f: &FuncSpec) -> Result<PartFunc> {
    let mut out = PartFunc {
        method: f.method,
        linear: f.linear,
        columns_form: f.columns_form,
        expr: String::new(),
        columns: Vec::new(),
        algorithm: f.algorithm,
    };
    if let Some(e) = &f.expr {
        let mut cols = Vec::new();
        check_part_expr(e, &mut cols)?;
        if cols.is_empty() {
            return Err(perr(
                codes::ER_WRONG_EXPR_IN_PARTITION_FUNC_ERROR,
                "Constant, random or timezone-dependent expressions in (sub)partitioning function are not allowed",
            ));
        }
        for c in &cols {
            let Some(ci) = def.column_index(c) else {
                return Err(Error::bad_field(c, "partition function"));
            };
            let ty = &def.columns[ci].ty;
            if matches!(
                ty,
                DataType::Blob { .. } | DataType::Text { .. } | DataType::Json
            ) {
                return Err(perr(
                    codes::ER_BLOB_FIELD_IN_PART_FUNC_ERROR,
                    "A BLOB field is not allowed in partition function",
                ));
            }
        }
        // a bare column must be an integer; any other expression must return one
        let scope = crate::bind::select::table_scope(def, None);
        let bound = Binder::new(&scope, s, "partition function").bind(e)?;
        if let (Expr::Col(ci), ast::Expr::Identifier(_) | ast::Expr::Nested(_)) = (&bound, e) {
            if !is_int_type(&def.columns[*ci].ty) {
                return Err(perr(
                    codes::ER_FIELD_TYPE_NOT_ALLOWED_AS_PARTITION_FIELD,
                    format!(
                        "Field '{}' is of a not allowed type for this type of partitioning",
                        def.columns[*ci].name
                    ),
                ));
            }
        }
        let ty = crate::bind::expr::expr_type(&bound, &scope, &[], usize::MAX);
        if !matches!(ty, func::types::ExprType::Int | func::types::ExprType::UInt) {
            return Err(perr(
                codes::ER_PARTITION_FUNC_NOT_ALLOWED_ERROR,
                "The PARTITION function returns the wrong type",
            ));
        }
        out.expr = print_expr(e);
        return Ok(out);
    }
    // KEY / COLUMNS: a column list
    let mut names = f.columns.clone();
    if names.is_empty() {
        if f.method != PartMethod::Key {
            return Err(perr(
                codes::ER_PARTITION_COLUMN_LIST_ERROR,
                "Inconsistency in usage of column lists for partitioning",
            ));
        }
        // KEY (): the primary key (or else the first unique key) columns
        let key = def
            .indexes
            .iter()
            .enumerate()
            .find(|(i, x)| x.kind == IndexKind::Primary && !(def.hidden_pk && *i == 0))
            .or_else(|| {
                def.indexes
                    .iter()
                    .enumerate()
                    .find(|(_, x)| x.kind == IndexKind::Unique)
            });
        match key {
            Some((_, k)) => {
                names = k
                    .columns
                    .iter()
                    .map(|c| def.columns[c.col].name.clone())
                    .collect()
            }
            None => {
                return Err(perr(
                    codes::ER_FIELD_NOT_FOUND_PART_ERROR,
                    "Field in list of fields for partition function not found in table",
                ))
            }
        }
    }
    if f.columns_form && names.len() > 16 {
        return Err(perr(
            codes::ER_TOO_MANY_PARTITION_FUNC_FIELDS_ERROR,
            "Too many fields in 'list of partition fields'",
        ));
    }
    let mut seen = HashSet::new();
    for n in &names {
        let Some(ci) = def.column_index(n) else {
            return Err(perr(
                codes::ER_FIELD_NOT_FOUND_PART_ERROR,
                "Field in list of fields for partition function not found in table",
            ));
        };
        if !seen.insert(ci) {
            return Err(perr(
                codes::ER_SAME_NAME_PARTITION_FIELD,
                format!("Duplicate partition field name '{n}'"),
            ));
        }
        let c = &def.columns[ci];
        if f.columns_form && !columns_type_ok(&c.ty) {
            return Err(perr(
                codes::ER_FIELD_TYPE_NOT_ALLOWED_AS_PARTITION_FIELD,
                format!(
                    "Field '{}' is of a not allowed type for this type of partitioning",
                    c.name
                ),
            ));
        }
        if matches!(
            c.ty,
            DataType::Blob { .. } | DataType::Text { .. } | DataType::Json
        ) {
            return Err(perr(
                codes::ER_BLOB_FIELD_IN_PART_FUNC_ERROR,
                "A BLOB field is not allowed in partition function",
            ));
        }
        out.columns.push(c.name.clone());
    }
    Ok(out)
}

/// The columns (positions) a partitioning function reads.
fn func_columns(def: &TableDef, f: &PartFunc) -> Vec<usize> {
    if f.columns.is_empty() {
        let mut names = Vec::new();
        if let Ok(e) = parse_expr_text(&f.expr) {
            let _ = check_part_expr(&e, &mut names);
        }
        let mut v: Vec<usize> = names.iter().filter_map(|n| def.column_index(n)).collect();
        v.sort_unstable();
        v.dedup();
        v
    } else {
        f.columns
            .iter()
            .filter_map(|n| def.column_index(n))
            .collect()
    }
}

fn parse_expr_text(text: &str) -> Result<ast::Expr> {
    let dialect = crate::parse::dialect::StrataDialect::default();
    let mut p = Parser::new(&dialect)
        .try_with_sql(text)
        .map_err(|e| Error::parse(e.to_string()))?;
    p.parse_expr().map_err(|e| Error::parse(e.to_string()))
}

/// Evaluates a constant of a VALUES clause.
fn eval_const<E: KvEngine>(s: &mut Session<E>, e: &ast::Expr) -> Result<Value> {
    let scope = crate::ir::scope::Scope::default();
    let bound = Binder::new(&scope, &*s, "partition function")
        .bind(e)
        .map_err(|_| {
            perr(
                codes::ER_NOT_CONSTANT_EXPRESSION,
                "Expression in RANGE/LIST VALUES must be constant",
            )
        })?;
    if !bound.is_const() {
        return Err(perr(
            codes::ER_NOT_CONSTANT_EXPRESSION,
            "Expression in RANGE/LIST VALUES must be constant",
        ));
    }
    s.with_ctx(&[], false, |_, ctx| bound.eval(&[], ctx))
}

/// An integer VALUES constant of the expression forms.
fn int_value<E: KvEngine>(s: &mut Session<E>, e: &ast::Expr, part: &str) -> Result<PartValue> {
    let v = eval_const(s, e)?;
    Ok(match v {
        Value::Null => PartValue::Null,
        Value::Int(i) => PartValue::Int(i),
        Value::UInt(u) if u <= i64::MAX as u64 => PartValue::Int(u as i64),
        Value::UInt(u) => PartValue::UInt(u),
        _ => {
            return Err(perr(
                codes::ER_VALUES_IS_NOT_INT_TYPE_ERROR,
                format!("VALUES value for partition '{part}' must have type INT"),
            ))
        }
    })
}

/// A COLUMNS constant, checked strictly against the column type (sql_mode is ignored).
fn column_value<E: KvEngine>(
    s: &mut Session<E>,
    e: &ast::Expr,
    ty: &DataType,
) -> Result<PartValue> {
    let wrong = || {
        perr(
            codes::ER_WRONG_TYPE_COLUMN_VALUE_ERROR,
            "Partition column values of incorrect type",
        )
    };
    let v = eval_const(s, e)?;
    if v.is_null() {
        return Ok(PartValue::Null);
    }
    let numeric_const = matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_) | Value::Float(_)
    );
    if ty.is_int() != numeric_const {
        return Err(wrong());
    }
    let mut w = Vec::new();
    let stored = func::store::store(v, ty, true, "", 1, &mut w).map_err(|_| wrong())?;
    if !w.is_empty() {
        return Err(wrong());
    }
    Ok(match stored {
        Value::Int(i) => PartValue::Int(i),
        Value::UInt(u) if u <= i64::MAX as u64 => PartValue::Int(u as i64),
        Value::UInt(u) => PartValue::UInt(u),
        Value::Bytes(b) => PartValue::Str(String::from_utf8_lossy(&b).into_owned()),
        other => PartValue::Str(other.to_string()),
    })
}

fn values_text(is_range: bool) -> (&'static str, &'static str) {
    if is_range {
        ("RANGE", "LESS THAN")
    } else {
        ("LIST", "IN")
    }
}

/// Builds and checks the dictionary form of a partition list for `def` under `func`.
/// `existing` are partitions that stay (for ADD PARTITION: name clashes, list duplicates).
fn build_parts<E: KvEngine>(
    s: &mut Session<E>,
    def: &TableDef,
    func: &PartFunc,
    specs: &[PartDefSpec],
) -> Result<Vec<PartitionDef>> {
    let col_types: Vec<DataType> = func
        .columns
        .iter()
        .filter_map(|n| def.column_index(n).map(|i| def.columns[i].ty.clone()))
        .collect();
    let mut out = Vec::new();
    for spec in specs {
        let values = match (func.method, &spec.values) {
            (PartMethod::Range, ValuesSpec::LessThan(v)) => {
                let mut vals = Vec::new();
                if func.columns_form {
                    if v.len() != col_types.len() {
                        return Err(perr(
                            codes::ER_PARTITION_COLUMN_LIST_ERROR,
                            "Inconsistency in usage of column lists for partitioning",
                        ));
                    }
                    for (x, ty) in v.iter().zip(&col_types) {
                        vals.push(match x {
                            None => PartValue::MaxValue,
                            Some(e) => match column_value(s, e, ty)? {
                                PartValue::Null => {
                                    return Err(perr(
                                        codes::ER_NULL_IN_VALUES_LESS_THAN,
                                        "Not allowed to use NULL value in VALUES LESS THAN",
                                    ))
                                }
                                pv => pv,
                            },
                        });
                    }
                } else {
                    if v.len() != 1 {
                        return Err(perr(
                            codes::ER_TOO_MANY_VALUES_ERROR,
                            "Cannot have more than one value for this type of RANGE partitioning",
                        ));
                    }
                    vals.push(match &v[0] {
                        None => PartValue::MaxValue,
                        Some(e) => match int_value(s, e, &spec.name)? {
                            PartValue::Null => {
                                return Err(perr(
                                    codes::ER_NULL_IN_VALUES_LESS_THAN,
                                    "Not allowed to use NULL value in VALUES LESS THAN",
                                ))
                            }
                            pv => pv,
                        },
                    });
                }
                PartValues::LessThan(vals)
            }
            (PartMethod::List, ValuesSpec::In(list)) => {
                let mut tuples = Vec::new();
                for (t, paren) in list {
                    if t.iter().any(|x| x.is_none()) {
                        return Err(perr(
                            codes::ER_MAXVALUE_IN_VALUES_IN,
                            "Cannot use MAXVALUE as value in VALUES IN",
                        ));
                    }
                    if func.columns_form {
                        if col_types.len() == 1 && *paren && t.len() == 1 {
                            // `IN ((1))` is just a parenthesised value for one column
                        } else if col_types.len() == 1 && *paren {
                            return Err(perr(
                                codes::ER_ROW_SINGLE_PARTITION_FIELD_ERROR,
                                "Row expressions in VALUES IN only allowed for multi-field column partitioning",
                            ));
                        }
                        if t.len() != col_types.len() || (col_types.len() > 1 && !*paren) {
                            return Err(perr(
                                codes::ER_PARTITION_COLUMN_LIST_ERROR,
                                "Inconsistency in usage of column lists for partitioning",
                            ));
                        }
                        let mut tv = Vec::new();
                        for (x, ty) in t.iter().zip(&col_types) {
                            tv.push(column_value(s, x.as_ref().expect("checked"), ty)?);
                        }
                        tuples.push(tv);
                    } else {
                        if t.len() != 1 {
                            return Err(perr(
                                codes::ER_ROW_SINGLE_PARTITION_FIELD_ERROR,
                                "Row expressions in VALUES IN only allowed for multi-field column partitioning",
                            ));
                        }
                        tuples.push(vec![int_value(
                            s,
                            t[0].as_ref().expect("checked"),
                            &spec.name,
                        )?]);
                    }
                }
                PartValues::In(tuples)
            }
            (PartMethod::Range | PartMethod::List, ValuesSpec::None) => {
                let (m, v) = values_text(func.method == PartMethod::Range);
                return Err(perr(
                    codes::ER_PARTITION_REQUIRES_VALUES_ERROR,
                    format!("Syntax error: {m} PARTITIONING requires definition of VALUES {v} for each partition"),
                ));
            }
            (_, ValuesSpec::LessThan(_)) => {
                return Err(perr(
                    codes::ER_PARTITION_WRONG_VALUES_ERROR,
                    "Only RANGE PARTITIONING can use VALUES LESS THAN in partition definition",
                ))
            }
            (_, ValuesSpec::In(_)) => {
                return Err(perr(
                    codes::ER_PARTITION_WRONG_VALUES_ERROR,
                    "Only LIST PARTITIONING can use VALUES IN in partition definition",
                ))
            }
            (_, ValuesSpec::None) => PartValues::None,
        };
        out.push(PartitionDef {
            name: spec.name.clone(),
            values,
            comment: spec.comment.clone().unwrap_or_default(),
            index_ids: Vec::new(),
            subpartitions: spec
                .subs
                .iter()
                .map(|(n, c)| SubpartitionDef {
                    name: n.clone(),
                    comment: c.clone().unwrap_or_default(),
                    index_ids: Vec::new(),
                })
                .collect(),
        });
    }
    Ok(out)
}

/// Whole-definition checks: names, RANGE order, LIST duplicates, subpartition counts, the
/// partition limit, and that every unique key covers the partitioning columns.
pub fn check_partitioning(def: &TableDef, p: &Partitioning) -> Result<()> {
    if p.partitions.is_empty() {
        return Err(perr(
            codes::ER_NO_PARTS_ERROR,
            "Number of partitions = 0 is not an allowed value",
        ));
    }
    let mut names = HashSet::new();
    for d in &p.partitions {
        for n in std::iter::once(&d.name).chain(d.subpartitions.iter().map(|x| &x.name)) {
            if n.is_empty() || n.ends_with(' ') {
                return Err(perr(
                    codes::ER_WRONG_PARTITION_NAME,
                    "Incorrect partition name",
                ));
            }
            if !names.insert(n.to_lowercase()) {
                return Err(perr(
                    codes::ER_SAME_NAME_PARTITION,
                    format!("Duplicate partition name {n}"),
                ));
            }
        }
    }
    let rt_types: Vec<DataType> = p
        .func
        .columns
        .iter()
        .filter_map(|n| def.column_index(n).map(|i| def.columns[i].ty.clone()))
        .collect();
    match p.func.method {
        PartMethod::Range => {
            let n = p.partitions.len();
            let mut prev: Option<Vec<Bound>> = None;
            for (i, d) in p.partitions.iter().enumerate() {
                let PartValues::LessThan(v) = &d.values else {
                    continue;
                };
                if !p.func.columns_form && v[0] == PartValue::MaxValue && i + 1 != n {
                    return Err(perr(
                        codes::ER_PARTITION_MAXVALUE_ERROR,
                        "MAXVALUE can only be used in last partition definition",
                    ));
                }
                let cur = bounds_of(v, &rt_types);
                if let Some(pv) = &prev {
                    if cmp_bounds(pv, &cur, &rt_types) != std::cmp::Ordering::Less {
                        return Err(perr(
                            codes::ER_RANGE_NOT_INCREASING_ERROR,
                            "VALUES LESS THAN value must be strictly increasing for each partition",
                        ));
                    }
                }
                prev = Some(cur);
            }
        }
        PartMethod::List => {
            let mut seen = HashSet::new();
            for d in &p.partitions {
                if let PartValues::In(list) = &d.values {
                    for t in list {
                        if !seen.insert(format!("{t:?}")) {
                            return Err(perr(
                                codes::ER_MULTIPLE_DEF_CONST_IN_LIST_PART_ERROR,
                                "Multiple definition of same constant in list partitioning",
                            ));
                        }
                    }
                }
            }
        }
        _ => {}
    }
    if p.sub.is_some() {
        if !matches!(p.func.method, PartMethod::Range | PartMethod::List) {
            return Err(perr(
                codes::ER_SUBPARTITION_ERROR,
                "It is only possible to mix RANGE/LIST partitioning with HASH/KEY partitioning for subpartitioning",
            ));
        }
        let counts: HashSet<usize> = p.partitions.iter().map(|d| d.subpartitions.len()).collect();
        if counts.contains(&0) {
            return Err(perr(
                codes::ER_PARTITION_SUBPART_MIX_ERROR,
                "Must define subpartitions on all partitions if on one partition",
            ));
        }
        if counts.len() > 1 {
            return Err(perr(
                codes::ER_PARTITION_WRONG_NO_SUBPART_ERROR,
                "Wrong number of subpartitions defined, mismatch with previous setting",
            ));
        }
    } else if p.partitions.iter().any(|d| !d.subpartitions.is_empty()) {
        return Err(perr(
            codes::ER_PARTITION_SUBPARTITION_ERROR,
            "Subpartitions can only be hash partitions and by key",
        ));
    }
    if p.leaf_count() > MAX_PARTITIONS {
        return Err(perr(
            codes::ER_TOO_MANY_PARTITIONS_ERROR,
            "Too many partitions (including subpartitions) were defined",
        ));
    }
    // every unique key must contain every column of the partitioning functions
    let mut used = func_columns(def, &p.func);
    if let Some(sub) = &p.sub {
        used.extend(func_columns(def, sub));
    }
    for (i, idx) in def.indexes.iter().enumerate() {
        if !idx.is_unique() || (def.hidden_pk && i == 0) {
            continue;
        }
        let covers = used.iter().all(|c| {
            idx.columns
                .iter()
                .any(|ic| ic.col == *c && ic.prefix_len.is_none())
        });
        if !covers {
            let what = if idx.kind == IndexKind::Primary {
                "PRIMARY KEY"
            } else {
                "UNIQUE INDEX"
            };
            return Err(perr(
                codes::ER_UNIQUE_KEY_NEED_ALL_FIELDS_IN_PF,
                format!("A {what} must include all columns in the table's partitioning function"),
            ));
        }
    }
    Ok(())
}

/// Subpartition names MySQL generates: `p0sp0`, `p0sp1`, ….
fn gen_subs(d: &mut PartitionDef, n: u64) {
    d.subpartitions = (0..n)
        .map(|i| SubpartitionDef {
            name: format!("{}sp{i}", d.name),
            comment: String::new(),
            index_ids: Vec::new(),
        })
        .collect();
}

/// Builds the dictionary form of a `PARTITION BY` clause for the table `def` (its columns and
/// indexes final). Index ids are assigned by the storage layer.
///
/// # Errors
/// MySQL's partitioning errors (1491–1520, 1563–1567, 1652–1660, 1054).
pub fn build<E: KvEngine>(
    s: &mut Session<E>,
    def: &TableDef,
    spec: &PartSpec,
) -> Result<Partitioning> {
    let func = check_func(s, def, &spec.func)?;
    let sub = match &spec.sub {
        Some(f) => {
            if !matches!(func.method, PartMethod::Range | PartMethod::List) {
                return Err(perr(
                    codes::ER_SUBPARTITION_ERROR,
                    "It is only possible to mix RANGE/LIST partitioning with HASH/KEY partitioning for subpartitioning",
                ));
            }
            Some(check_func(s, def, f)?)
        }
        None => None,
    };
    if spec.count == Some(0) {
        return Err(perr(
            codes::ER_NO_PARTS_ERROR,
            "Number of partitions = 0 is not an allowed value",
        ));
    }
    if spec.sub_count == Some(0) {
        return Err(perr(
            codes::ER_NO_PARTS_ERROR,
            "Number of subpartitions = 0 is not an allowed value",
        ));
    }
    let by_count = spec.parts.is_empty();
    let mut partitions = if by_count {
        if matches!(func.method, PartMethod::Range | PartMethod::List) {
            let m = if func.method == PartMethod::Range {
                "RANGE"
            } else {
                "LIST"
            };
            return Err(perr(
                codes::ER_PARTITIONS_MUST_BE_DEFINED_ERROR,
                format!("For {m} partitions each partition must be defined"),
            ));
        }
        let n = spec.count.unwrap_or(1);
        if n as usize > MAX_PARTITIONS {
            return Err(perr(
                codes::ER_TOO_MANY_PARTITIONS_ERROR,
                "Too many partitions (including subpartitions) were defined",
            ));
        }
        (0..n)
            .map(|i| PartitionDef {
                name: format!("p{i}"),
                values: PartValues::None,
                comment: String::new(),
                index_ids: Vec::new(),
                subpartitions: Vec::new(),
            })
            .collect()
    } else {
        if spec.count.is_some_and(|n| n as usize != spec.parts.len()) {
            return Err(perr(
                codes::ER_PARTITION_WRONG_NO_PART_ERROR,
                "Wrong number of partitions defined, mismatch with previous setting",
            ));
        }
        build_parts(s, def, &func, &spec.parts)?
    };
    let mut sub_by_count = false;
    if sub.is_some() {
        let explicit = partitions.iter().any(|d| !d.subpartitions.is_empty());
        if explicit {
            if let Some(n) = spec.sub_count {
                if partitions.iter().any(|d| d.subpartitions.len() as u64 != n) {
                    return Err(perr(
                        codes::ER_PARTITION_WRONG_NO_SUBPART_ERROR,
                        "Wrong number of subpartitions defined, mismatch with previous setting",
                    ));
                }
            }
        } else {
            sub_by_count = true;
            let n = spec.sub_count.unwrap_or(1);
            for d in partitions.iter_mut() {
                gen_subs(d, n);
            }
        }
    }
    let p = Partitioning {
        func,
        sub,
        by_count,
        sub_by_count,
        partitions,
    };
    check_partitioning(def, &p)?;
    Ok(p)
}

// =============================================================================================
// Runtime: bound functions, routing
// =============================================================================================

/// One side of a RANGE bound tuple.
#[derive(Debug, Clone)]
pub enum Bound {
    /// MAXVALUE.
    Max,
    /// A value (of the column type for the COLUMNS forms; an integer otherwise).
    Val(Value),
}

fn part_value_to_value(v: &PartValue, ty: Option<&DataType>) -> Value {
    match v {
        PartValue::Null | PartValue::MaxValue => Value::Null,
        PartValue::Int(i) => Value::Int(*i),
        PartValue::UInt(u) => Value::UInt(*u),
        PartValue::Str(s) => {
            let raw = Value::Str(s.clone());
            match ty {
                Some(ty) => {
                    let mut w = Vec::new();
                    func::store::store(raw.clone(), ty, false, "", 1, &mut w).unwrap_or(raw)
                }
                None => raw,
            }
        }
    }
}

fn bounds_of(v: &[PartValue], types: &[DataType]) -> Vec<Bound> {
    v.iter()
        .enumerate()
        .map(|(i, x)| match x {
            PartValue::MaxValue => Bound::Max,
            x => Bound::Val(part_value_to_value(x, types.get(i))),
        })
        .collect()
}

fn coll_of(types: &[DataType], i: usize) -> common::Collation {
    types.get(i).map(|t| t.collation()).unwrap_or_default()
}

/// NULL-first comparison of two values.
fn cmp_vals(a: &Value, b: &Value, coll: common::Collation) -> std::cmp::Ordering {
    use std::cmp::Ordering as O;
    match (a.is_null(), b.is_null()) {
        (true, true) => O::Equal,
        (true, false) => O::Less,
        (false, true) => O::Greater,
        _ => func::compare::compare(a, b, coll).unwrap_or(O::Equal),
    }
}

fn cmp_bounds(a: &[Bound], b: &[Bound], types: &[DataType]) -> std::cmp::Ordering {
    use std::cmp::Ordering as O;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = match (x, y) {
            (Bound::Max, Bound::Max) => O::Equal,
            (Bound::Max, _) => O::Greater,
            (_, Bound::Max) => O::Less,
            (Bound::Val(x), Bound::Val(y)) => cmp_vals(x, y, coll_of(types, i)),
        };
        if o != O::Equal {
            return o;
        }
    }
    O::Equal
}

/// Is the tuple `row` (all values) strictly below `bound`?
fn tuple_below(row: &[Value], bound: &[Bound], types: &[DataType]) -> bool {
    use std::cmp::Ordering as O;
    for (i, (v, b)) in row.iter().zip(bound).enumerate() {
        match b {
            Bound::Max => return true,
            Bound::Val(bv) => match cmp_vals(v, bv, coll_of(types, i)) {
                O::Less => return true,
                O::Greater => return false,
                O::Equal => {}
            },
        }
    }
    false
}

/// Monotonicity of a RANGE expression in its single column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mono {
    /// Not usable for interval pruning.
    None,
    /// The bare column.
    Identity,
    /// Non-decreasing (TO_DAYS, TO_SECONDS, YEAR, UNIX_TIMESTAMP of the column).
    Increasing,
}

/// A partitioning function ready to evaluate.
#[derive(Debug, Clone)]
struct FnRt {
    method: PartMethod,
    linear: bool,
    /// The bound expression (RANGE/LIST/HASH); `None` for KEY and COLUMNS.
    expr: Option<Expr>,
    /// Columns read (all of them for KEY/COLUMNS, in order).
    cols: Vec<usize>,
    mono: Mono,
    /// Number of parts it chooses among.
    n: usize,
}

/// A partitioned table, ready to route rows and prune: cached per table version.
pub struct PartRt {
    /// The full definition.
    pub def: Arc<TableDef>,
    /// The leaf views, by leaf number.
    pub leaves: Vec<Arc<TableDef>>,
    /// EXPLAIN names of the leaves (`p0`, `p0_sp0`).
    pub leaf_names: Vec<String>,
    main: FnRt,
    sub: Option<FnRt>,
    /// Subpartitions per partition (1 when none).
    nsubs: usize,
    /// RANGE: the bound tuple of each partition.
    ranges: Vec<Vec<Bound>>,
    /// LIST: the value tuples of each partition.
    lists: Vec<Vec<Vec<Value>>>,
    /// Column types of the COLUMNS / KEY columns.
    col_types: Vec<DataType>,
}

/// The cache of [`PartRt`]s, by table id (bounded: cleared when it grows large).
#[derive(Default)]
pub struct RtCache {
    map: Mutex<std::collections::HashMap<u64, Arc<PartRt>>>,
}

const RT_CACHE_MAX: usize = 4096;

fn fingerprint(t: &TableDef) -> (u32, Vec<u32>) {
    (t.version, t.indexes.iter().map(|i| i.id).collect())
}

impl RtCache {
    /// Drops every entry (after DDL).
    pub fn clear(&self) {
        self.map.lock().clear();
    }
}

fn bind_func<E: KvEngine>(s: &Session<E>, def: &TableDef, f: &PartFunc, n: usize) -> Result<FnRt> {
    let cols = func_columns(def, f);
    let (expr, mono) = if f.columns.is_empty() {
        let ast_e = parse_expr_text(&f.expr)?;
        let scope = crate::bind::select::table_scope(def, None);
        let e = Binder::new(&scope, s, "partition function").bind(&ast_e)?;
        let mono = match &e {
            Expr::Col(_) => Mono::Identity,
            Expr::Func(name, args)
                if args.len() == 1
                    && matches!(args[0], Expr::Col(_))
                    && matches!(
                        name.as_str(),
                        "TO_DAYS" | "TO_SECONDS" | "YEAR" | "UNIX_TIMESTAMP"
                    ) =>
            {
                Mono::Increasing
            }
            _ => Mono::None,
        };
        (Some(e), mono)
    } else {
        (None, Mono::None)
    };
    Ok(FnRt {
        method: f.method,
        linear: f.linear,
        expr,
        cols,
        mono,
        n,
    })
}

/// The runtime form of partitioned table `t` (from the instance cache).
///
/// # Errors
/// A partitioning expression that no longer binds (a dictionary inconsistency).
pub fn runtime<E: KvEngine>(s: &Session<E>, t: &TableDef) -> Result<Arc<PartRt>> {
    let Some(p) = &t.partitioning else {
        return Err(Error::internal("not a partitioned table"));
    };
    let cache = &s.inst.partitions;
    if let Some(rt) = cache.map.lock().get(&t.id) {
        let same_parts = match (&rt.def.partitioning, &t.partitioning) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        };
        if same_parts
            && fingerprint(&rt.def) == fingerprint(t)
            && rt.def.db == t.db
            && rt.def.name == t.name
        {
            return Ok(rt.clone());
        }
    }
    let mut full = t.clone();
    full.leaf = None;
    full.sync_top_ids();
    let full = Arc::new(full);
    let nsubs = p.subs_per_part();
    let main = bind_func(s, &full, &p.func, p.partitions.len())?;
    let sub = match &p.sub {
        Some(f) => Some(bind_func(s, &full, f, nsubs)?),
        None => None,
    };
    let col_types: Vec<DataType> = main
        .cols
        .iter()
        .map(|&c| full.columns[c].ty.clone())
        .collect();
    let types_for_values: Vec<DataType> = if p.func.columns_form {
        col_types.clone()
    } else {
        Vec::new()
    };
    let mut ranges = Vec::new();
    let mut lists = Vec::new();
    for d in &p.partitions {
        match &d.values {
            PartValues::LessThan(v) => ranges.push(bounds_of(v, &types_for_values)),
            PartValues::In(l) => lists.push(
                l.iter()
                    .map(|tup| {
                        tup.iter()
                            .enumerate()
                            .map(|(i, x)| part_value_to_value(x, types_for_values.get(i)))
                            .collect()
                    })
                    .collect(),
            ),
            PartValues::None => {}
        }
    }
    let leaves: Vec<Arc<TableDef>> = (0..p.leaf_count())
        .map(|i| Arc::new(full.leaf_def(i)))
        .collect();
    let leaf_names = p.leaves().iter().map(|l| p.leaf_name(l)).collect();
    let rt = Arc::new(PartRt {
        def: full,
        leaves,
        leaf_names,
        main,
        sub,
        nsubs,
        ranges,
        lists,
        col_types,
    });
    let mut m = cache.map.lock();
    if m.len() >= RT_CACHE_MAX {
        m.clear();
    }
    m.insert(t.id, rt.clone());
    Ok(rt)
}

/// MySQL's `my_hash_sort_bin` step over `bytes`.
fn hash_bytes(bytes: &[u8], nr1: &mut u64, nr2: &mut u64) {
    for &b in bytes {
        *nr1 ^= (((*nr1 & 63).wrapping_add(*nr2)).wrapping_mul(b as u64)).wrapping_add(*nr1 << 8);
        *nr2 = nr2.wrapping_add(3);
    }
}

/// KEY partitioning hash of one column value (MySQL's `Field::hash`).
fn hash_value(v: &Value, ty: &DataType, nr1: &mut u64, nr2: &mut u64) {
    if v.is_null() {
        *nr1 ^= (*nr1 << 1) | 1;
        return;
    }
    match (ty, v) {
        (DataType::Int { bytes, .. }, Value::Int(_) | Value::UInt(_)) => {
            let x: u64 = match v {
                Value::Int(i) => *i as u64,
                Value::UInt(u) => *u,
                _ => 0,
            };
            let le = x.to_le_bytes();
            hash_bytes(&le[..(*bytes as usize).min(8)], nr1, nr2);
        }
        (DataType::Date, Value::Date(d)) => {
            let (y, m, dd) = (d.year as u32, d.month as u32, d.day as u32);
            let packed = dd + m * 32 + y * 16 * 32;
            hash_bytes(&packed.to_le_bytes()[..3], nr1, nr2);
        }
        (DataType::Year, Value::Int(y)) => {
            let b = if *y == 0 { 0u8 } else { (*y - 1900) as u8 };
            hash_bytes(&[b], nr1, nr2);
        }
        (_, Value::Bytes(b)) => hash_bytes(b, nr1, nr2),
        (_, Value::Str(s)) => {
            // collation-aware: equal strings under the column's collation hash alike
            let mut k = Vec::new();
            func::compare::hash_key(
                &Value::Str(s.trim_end_matches(' ').to_string()),
                ty.collation(),
                &mut k,
            );
            hash_bytes(&k, nr1, nr2);
        }
        (_, other) => hash_bytes(other.to_string().as_bytes(), nr1, nr2),
    }
}

/// MySQL's LINEAR HASH folding of `h` into `n` parts.
fn linear_part(h: u64, n: usize) -> usize {
    let mut mask: u64 = 1;
    while (mask as usize) < n {
        mask <<= 1;
    }
    mask -= 1;
    let mut part = h & mask;
    if part as usize >= n {
        part = h & (((mask + 1) >> 1).wrapping_sub(1));
    }
    part as usize
}

fn int_of(v: &Value) -> Option<i128> {
    match v {
        Value::Int(i) => Some(*i as i128),
        Value::UInt(u) => Some(*u as i128),
        Value::Null => None,
        other => func::convert::to_i64(other, &mut Vec::new()).map(|i| i as i128),
    }
}

/// Error 1526 for a value no partition takes.
fn no_partition(v: &str) -> Error {
    perr(
        codes::ER_NO_SUCH_PARTITION,
        format!("Table has no partition for value {v}"),
    )
}

impl PartRt {
    /// Number of leaves.
    pub fn leaf_count(&self) -> usize {
        self.leaves.len()
    }

    /// The function value of `f` for `row` (expression forms).
    fn func_value(&self, f: &FnRt, row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<Value> {
        match &f.expr {
            Some(e) => e.eval(row, ctx),
            None => Ok(Value::Null),
        }
    }

    /// HASH / KEY part of `row` under `f`.
    fn hash_part(&self, f: &FnRt, row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<usize> {
        let h: u64 = match f.method {
            PartMethod::Key => {
                let (mut nr1, mut nr2) = (1u64, 4u64);
                for &c in &f.cols {
                    hash_value(&row[c], &self.def.columns[c].ty, &mut nr1, &mut nr2);
                }
                nr1 as u32 as u64
            }
            _ => {
                let v = self.func_value(f, row, ctx)?;
                let i = int_of(&v).unwrap_or(0);
                if f.linear {
                    i as i64 as u32 as u64
                } else {
                    return Ok((i % f.n as i128).unsigned_abs() as usize);
                }
            }
        };
        Ok(if f.linear {
            linear_part(h, f.n)
        } else {
            (h % f.n as u64) as usize
        })
    }

    /// The partition (not leaf) a function value / column tuple falls in; `None` if none.
    fn main_part_of(&self, key: &[Value]) -> Option<usize> {
        match self.main.method {
            PartMethod::Range => {
                if self
                    .def
                    .partitioning
                    .as_ref()
                    .is_some_and(|p| p.func.columns_form)
                {
                    self.ranges
                        .iter()
                        .position(|b| tuple_below(key, b, &self.col_types))
                } else {
                    let v = &key[0];
                    if v.is_null() {
                        return Some(0);
                    }
                    let x = int_of(v)?;
                    self.ranges.iter().position(|b| match &b[0] {
                        Bound::Max => true,
                        Bound::Val(bv) => int_of(bv).is_some_and(|bx| x < bx),
                    })
                }
            }
            PartMethod::List => {
                let columns = self
                    .def
                    .partitioning
                    .as_ref()
                    .is_some_and(|p| p.func.columns_form);
                self.lists.iter().position(|tuples| {
                    tuples.iter().any(|t| {
                        t.iter().zip(key).enumerate().all(|(i, (a, b))| {
                            if columns {
                                cmp_vals(a, b, coll_of(&self.col_types, i))
                                    == std::cmp::Ordering::Equal
                            } else {
                                match (a.is_null(), b.is_null()) {
                                    (true, true) => true,
                                    (false, false) => int_of(a) == int_of(b),
                                    _ => false,
                                }
                            }
                        })
                    })
                })
            }
            _ => None,
        }
    }

    /// The key RANGE / LIST route on: the function value, or the column tuple.
    fn main_key(&self, row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<Vec<Value>> {
        if self.main.expr.is_some() {
            Ok(vec![self.func_value(&self.main, row, ctx)?])
        } else {
            Ok(self.main.cols.iter().map(|&c| row[c].clone()).collect())
        }
    }

    /// The partition of `row`.
    fn partition_of(&self, row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<usize> {
        match self.main.method {
            PartMethod::Hash | PartMethod::Key => self.hash_part(&self.main, row, ctx),
            PartMethod::Range | PartMethod::List => {
                let key = self.main_key(row, ctx)?;
                self.main_part_of(&key).ok_or_else(|| {
                    if self.main.expr.is_some() {
                        no_partition(&key[0].to_string())
                    } else {
                        no_partition("from column_list")
                    }
                })
            }
        }
    }

    /// The leaf `row` belongs to.
    ///
    /// # Errors
    /// 1526 when no partition takes the value.
    pub fn route(&self, row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<usize> {
        let part = self.partition_of(row, ctx)?;
        let sub = match &self.sub {
            Some(f) => self.hash_part(f, row, ctx)?,
            None => 0,
        };
        Ok(part * self.nsubs + sub)
    }
}

// =============================================================================================
// Pruning
// =============================================================================================

/// What an AND group says about one column.
#[derive(Debug, Clone, Default)]
struct ColCons {
    /// Equal to one of these (already in the column type).
    eq: Option<Vec<Value>>,
    /// Lower bound (value, inclusive).
    lo: Option<(Value, bool)>,
    /// Upper bound (value, inclusive).
    hi: Option<(Value, bool)>,
    /// `IS NULL`.
    null: bool,
    /// Contradiction (e.g. `= NULL`): matches nothing.
    none: bool,
}

fn col_const(a: &Expr, b: &Expr) -> Option<(usize, Expr)> {
    match (a, b) {
        (Expr::Col(c), k) if k.is_const() => Some((*c, k.clone())),
        _ => None,
    }
}

impl PartRt {
    /// The leaves a WHERE clause can touch, in leaf order (all of them without a filter).
    ///
    /// # Errors
    /// Errors evaluating the clause's constants.
    pub fn prune(&self, filter: Option<&Expr>, ctx: &mut EvalCtx<'_>) -> Result<Vec<usize>> {
        let set = match filter {
            Some(f) => self.leaves_for(f, ctx)?,
            None => vec![true; self.leaf_count()],
        };
        Ok(set
            .iter()
            .enumerate()
            .filter(|(_, b)| **b)
            .map(|(i, _)| i)
            .collect())
    }

    fn leaves_for(&self, e: &Expr, ctx: &mut EvalCtx<'_>) -> Result<Vec<bool>> {
        if let Expr::Or(a, b) = e {
            let mut x = self.leaves_for(a, ctx)?;
            let y = self.leaves_for(b, ctx)?;
            for (p, q) in x.iter_mut().zip(y) {
                *p |= q;
            }
            return Ok(x);
        }
        let mut result = vec![true; self.leaf_count()];
        let ncols = self.def.columns.len();
        let mut cons: Vec<ColCons> = vec![ColCons::default(); ncols];
        for c in conjuncts(e) {
            match c {
                Expr::Or(..) => {
                    let y = self.leaves_for(c, ctx)?;
                    for (p, q) in result.iter_mut().zip(y) {
                        *p &= q;
                    }
                }
                _ => self.add_constraint(c, &mut cons, ctx)?,
            }
        }
        if cons.iter().any(|c| c.none) {
            return Ok(vec![false; self.leaf_count()]);
        }
        let parts = self.main_parts(&cons, ctx)?;
        let subs = match &self.sub {
            Some(f) => self.hash_parts(f, &cons, ctx)?,
            None => vec![true],
        };
        for (pi, pok) in parts.iter().enumerate() {
            for (si, sok) in subs.iter().enumerate() {
                let leaf = pi * self.nsubs + si;
                if leaf < result.len() {
                    result[leaf] &= *pok && *sok;
                }
            }
        }
        Ok(result)
    }

    /// Converts a constant to column `col`'s type exactly; `None` when it can't be (then the
    /// predicate doesn't constrain pruning).
    fn key_value(&self, col: usize, e: &Expr, ctx: &mut EvalCtx<'_>) -> Result<Option<Value>> {
        let v = e.eval(&[], ctx)?;
        if v.is_null() {
            return Ok(Some(Value::Null));
        }
        Ok(crate::plan::access::exact_key_value(
            &v,
            &self.def.columns[col].ty,
            ctx,
        ))
    }

    fn add_constraint(&self, c: &Expr, cons: &mut [ColCons], ctx: &mut EvalCtx<'_>) -> Result<()> {
        let coll = |col: usize| self.def.columns[col].ty.collation();
        match c {
            Expr::Cmp(op, a, b, _) => {
                let (col, k, op) = match (col_const(a, b), col_const(b, a)) {
                    (Some((c, k)), _) => (c, k, *op),
                    (None, Some((c, k))) => (c, k, op.flip()),
                    _ => return Ok(()),
                };
                if col >= cons.len() || matches!(op, CmpOp::Ne) {
                    return Ok(());
                }
                let Some(v) = self.key_value(col, &k, ctx)? else {
                    return Ok(());
                };
                if v.is_null() && !matches!(op, CmpOp::NullSafeEq) {
                    cons[col].none = true;
                    return Ok(());
                }
                let cc = &mut cons[col];
                match op {
                    CmpOp::Eq | CmpOp::NullSafeEq => {
                        if v.is_null() {
                            cc.null = true;
                        } else {
                            merge_eq(cc, vec![v], coll(col));
                        }
                    }
                    CmpOp::Lt | CmpOp::Le => {
                        let tighter = match &cc.hi {
                            Some((h, _)) => cmp_vals(&v, h, coll(col)).is_lt(),
                            None => true,
                        };
                        if tighter {
                            cc.hi = Some((v, matches!(op, CmpOp::Le)));
                        }
                    }
                    CmpOp::Gt | CmpOp::Ge => {
                        let tighter = match &cc.lo {
                            Some((l, _)) => cmp_vals(&v, l, coll(col)).is_gt(),
                            None => true,
                        };
                        if tighter {
                            cc.lo = Some((v, matches!(op, CmpOp::Ge)));
                        }
                    }
                    _ => {}
                }
            }
            Expr::InList(a, list, false, _) => {
                if let Expr::Col(col) = **a {
                    if col < cons.len() && list.iter().all(|e| e.is_const()) {
                        let mut vals = Vec::new();
                        for e in list {
                            match self.key_value(col, e, ctx)? {
                                Some(v) if !v.is_null() => vals.push(v),
                                Some(_) => {}
                                None => return Ok(()),
                            }
                        }
                        merge_eq(&mut cons[col], vals, coll(col));
                    }
                }
            }
            Expr::Between(a, lo, hi, false, _) => {
                if let Expr::Col(col) = **a {
                    if col < cons.len() && lo.is_const() && hi.is_const() {
                        let l = self.key_value(col, lo, ctx)?;
                        let h = self.key_value(col, hi, ctx)?;
                        if let (Some(l), Some(h)) = (l, h) {
                            if l.is_null() || h.is_null() {
                                cons[col].none = true;
                            } else {
                                cons[col].lo = Some((l, true));
                                cons[col].hi = Some((h, true));
                            }
                        }
                    }
                }
            }
            Expr::IsNull(a, false) => {
                if let Expr::Col(col) = **a {
                    if col < cons.len() {
                        cons[col].null = true;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Candidate values of column `col` when they are few: its equalities, NULL for IS NULL,
    /// or a short integer range enumerated.
    fn candidates(&self, col: usize, c: &ColCons) -> Option<Vec<Value>> {
        if c.null {
            return Some(vec![Value::Null]);
        }
        if let Some(eq) = &c.eq {
            return Some(eq.clone());
        }
        if !self.def.columns[col].ty.is_int() {
            return None;
        }
        let (Some((lo, li)), Some((hi, hinc))) = (&c.lo, &c.hi) else {
            return None;
        };
        let lo = int_of(lo)? + i128::from(!*li);
        let hi = int_of(hi)? - i128::from(!*hinc);
        if hi < lo {
            return Some(Vec::new());
        }
        if hi - lo >= MAX_WALK as i128 {
            return None;
        }
        Some(
            (lo..=hi)
                .map(|i| {
                    if i > i64::MAX as i128 {
                        Value::UInt(i as u64)
                    } else {
                        Value::Int(i as i64)
                    }
                })
                .collect(),
        )
    }

    /// Every combination of candidate values of `cols` (≤ 256), as rows; `None` if any
    /// column is unconstrained.
    fn candidate_rows(&self, cols: &[usize], cons: &[ColCons]) -> Option<Vec<Vec<Value>>> {
        let mut rows = vec![vec![Value::Null; self.def.columns.len()]];
        for &c in cols {
            let vals = self.candidates(c, &cons[c])?;
            if rows.len() * vals.len().max(1) > 256 {
                return None;
            }
            let mut next = Vec::with_capacity(rows.len() * vals.len());
            for r in &rows {
                for v in &vals {
                    let mut r2 = r.clone();
                    r2[c] = v.clone();
                    next.push(r2);
                }
            }
            rows = next;
        }
        Some(rows)
    }

    /// Partitions (not leaves) of the main function that the constraints allow.
    fn main_parts(&self, cons: &[ColCons], ctx: &mut EvalCtx<'_>) -> Result<Vec<bool>> {
        let n = self.main.n;
        let all = vec![true; n];
        match self.main.method {
            PartMethod::Hash | PartMethod::Key => self.hash_parts(&self.main, cons, ctx),
            PartMethod::List => {
                if let Some(rows) = self.candidate_rows(&self.main.cols, cons) {
                    let mut out = vec![false; n];
                    for r in rows {
                        let key = self.main_key(&r, ctx)?;
                        if let Some(p) = self.main_part_of(&key) {
                            out[p] = true;
                        }
                    }
                    return Ok(out);
                }
                // a bare column or COLUMNS: keep the partitions listing a value that satisfies
                // the constraints
                let direct = self.main.expr.is_none() || self.main.mono == Mono::Identity;
                if !direct {
                    return Ok(all);
                }
                Ok(self
                    .lists
                    .iter()
                    .map(|tuples| {
                        tuples.iter().any(|t| {
                            t.iter()
                                .zip(&self.main.cols)
                                .enumerate()
                                .all(|(i, (v, &c))| {
                                    value_allowed(
                                        v,
                                        &cons[c],
                                        coll_of(&self.col_types, i),
                                        &self.def.columns[c].ty,
                                    )
                                })
                        })
                    })
                    .collect())
            }
            PartMethod::Range => {
                if let Some(rows) = self.candidate_rows(&self.main.cols, cons) {
                    let mut out = vec![false; n];
                    for r in rows {
                        let key = self.main_key(&r, ctx)?;
                        if let Some(p) = self.main_part_of(&key) {
                            out[p] = true;
                        }
                    }
                    return Ok(out);
                }
                if self.main.expr.is_none() {
                    return Ok(self.range_columns_parts(cons));
                }
                // a monotonic function of one column: map the column interval
                if self.main.mono == Mono::None || self.main.cols.len() != 1 {
                    return Ok(all);
                }
                let c = &cons[self.main.cols[0]];
                if c.lo.is_none() && c.hi.is_none() {
                    return Ok(all);
                }
                let col = self.main.cols[0];
                let f = |v: &Value, ctx: &mut EvalCtx<'_>| -> Result<Value> {
                    let mut row = vec![Value::Null; self.def.columns.len()];
                    row[col] = v.clone();
                    self.func_value(&self.main, &row, ctx)
                };
                let first = match &c.lo {
                    Some((v, _)) => {
                        let fv = f(v, ctx)?;
                        if fv.is_null() {
                            0
                        } else {
                            match self.main_part_of(&[fv]) {
                                Some(p) => p,
                                None => return Ok(vec![false; n]),
                            }
                        }
                    }
                    None => 0,
                };
                let last = match &c.hi {
                    Some((v, _)) => {
                        let fv = f(v, ctx)?;
                        if fv.is_null() {
                            n - 1
                        } else {
                            self.main_part_of(&[fv]).unwrap_or(n - 1)
                        }
                    }
                    None => n - 1,
                };
                Ok((0..n).map(|i| i >= first && i <= last).collect())
            }
        }
    }

    /// RANGE COLUMNS: an equality prefix plus a range on the next column as a tuple interval.
    fn range_columns_parts(&self, cons: &[ColCons]) -> Vec<bool> {
        let n = self.ranges.len();
        let mut prefixes: Vec<Vec<Value>> = vec![vec![]];
        let mut next_range: Option<&ColCons> = None;
        for &c in &self.main.cols {
            let cc = &cons[c];
            let vals = if cc.null {
                Some(vec![Value::Null])
            } else {
                cc.eq.clone()
            };
            match vals {
                Some(vals) if prefixes.len() * vals.len().max(1) <= 256 => {
                    let mut nx = Vec::new();
                    for p in &prefixes {
                        for v in &vals {
                            let mut q = p.clone();
                            q.push(v.clone());
                            nx.push(q);
                        }
                    }
                    prefixes = nx;
                }
                _ => {
                    if cc.lo.is_some() || cc.hi.is_some() {
                        next_range = Some(cc);
                    }
                    break;
                }
            }
        }
        if prefixes.len() == 1 && prefixes[0].is_empty() && next_range.is_none() {
            return vec![true; n];
        }
        let mut out = vec![false; n];
        for pre in prefixes {
            let mut lo = pre.clone();
            let mut hi = pre.clone();
            let (mut lo_open, mut hi_open) = (true, true);
            if let Some(r) = next_range {
                if let Some((v, _)) = &r.lo {
                    lo.push(v.clone());
                    lo_open = lo.len() < self.main.cols.len();
                } else {
                    // a range bound excludes NULL, but NULL sorts first anyway
                }
                if let Some((v, _)) = &r.hi {
                    hi.push(v.clone());
                    hi_open = hi.len() < self.main.cols.len();
                }
            }
            let first = self.first_part_for(&lo, lo_open);
            let last = self.last_part_for(&hi, hi_open);
            if let Some(first) = first {
                let last = last.unwrap_or(n - 1);
                for (i, o) in out.iter_mut().enumerate() {
                    if i >= first && i <= last {
                        *o = true;
                    }
                }
            }
        }
        out
    }

    /// First partition that can hold a tuple starting with `prefix` (the rest at its minimum).
    fn first_part_for(&self, prefix: &[Value], open: bool) -> Option<usize> {
        use std::cmp::Ordering as O;
        self.ranges.iter().position(|b| {
            let o = cmp_prefix(prefix, b, &self.col_types);
            match o {
                O::Less => true,
                O::Equal => open && prefix.len() < b.len(),
                O::Greater => false,
            }
        })
    }

    /// Last partition that can hold a tuple starting with `prefix` (the rest at its maximum).
    fn last_part_for(&self, prefix: &[Value], open: bool) -> Option<usize> {
        use std::cmp::Ordering as O;
        self.ranges.iter().position(|b| {
            let o = cmp_prefix(prefix, b, &self.col_types);
            match o {
                O::Less => true,
                O::Equal => {
                    if open {
                        matches!(b.get(prefix.len()), Some(Bound::Max))
                    } else {
                        false
                    }
                }
                O::Greater => false,
            }
        })
    }

    /// HASH / KEY parts the constraints allow (equalities or short integer ranges).
    fn hash_parts(&self, f: &FnRt, cons: &[ColCons], ctx: &mut EvalCtx<'_>) -> Result<Vec<bool>> {
        let Some(rows) = self.candidate_rows(&f.cols, cons) else {
            return Ok(vec![true; f.n]);
        };
        let mut out = vec![false; f.n];
        for r in rows {
            out[self.hash_part(f, &r, ctx)?] = true;
        }
        Ok(out)
    }
}

fn cmp_prefix(prefix: &[Value], b: &[Bound], types: &[DataType]) -> std::cmp::Ordering {
    use std::cmp::Ordering as O;
    for (i, v) in prefix.iter().enumerate() {
        match b.get(i) {
            None => return O::Equal,
            Some(Bound::Max) => return O::Less,
            Some(Bound::Val(bv)) => match cmp_vals(v, bv, coll_of(types, i)) {
                O::Equal => {}
                o => return o,
            },
        }
    }
    O::Equal
}

fn merge_eq(c: &mut ColCons, vals: Vec<Value>, coll: common::Collation) {
    c.eq = Some(match c.eq.take() {
        None => vals,
        Some(cur) => cur
            .into_iter()
            .filter(|x| vals.iter().any(|y| cmp_vals(x, y, coll).is_eq()))
            .collect(),
    });
}

/// Does value `v` satisfy the constraints `c` (for LIST pruning)?
fn value_allowed(v: &Value, c: &ColCons, coll: common::Collation, ty: &DataType) -> bool {
    let mut w = Vec::new();
    let v = if v.is_null() {
        Value::Null
    } else {
        func::store::store(v.clone(), ty, false, "", 1, &mut w).unwrap_or_else(|_| v.clone())
    };
    if c.null {
        return v.is_null();
    }
    if v.is_null() {
        return c.eq.is_none() && c.lo.is_none() && c.hi.is_none();
    }
    if let Some(eq) = &c.eq {
        if !eq.iter().any(|x| cmp_vals(x, &v, coll).is_eq()) {
            return false;
        }
    }
    if let Some((lo, inc)) = &c.lo {
        let o = cmp_vals(&v, lo, coll);
        if o.is_lt() || (o.is_eq() && !inc) {
            return false;
        }
    }
    if let Some((hi, inc)) = &c.hi {
        let o = cmp_vals(&v, hi, coll);
        if o.is_gt() || (o.is_eq() && !inc) {
            return false;
        }
    }
    true
}

// =============================================================================================
// Reads and writes of partitioned tables
// =============================================================================================

/// True when `t` is a whole partitioned table (not a leaf view).
pub fn is_partitioned(t: &TableDef) -> bool {
    t.partitioning.is_some() && t.leaf.is_none()
}

fn check_selected(t: &TableDef, leaf: usize) -> Result<()> {
    if let Some(sel) = &t.part_select {
        if !sel.contains(&(leaf as u32)) {
            return Err(perr(
                codes::ER_ROW_DOES_NOT_MATCH_GIVEN_PARTITION_SET,
                "Found a row not matching the given partition set",
            ));
        }
    }
    Ok(())
}

/// The leaf view `row` is written to, for a partitioned `t` (`None`: write `t` itself).
///
/// # Errors
/// 1526 no partition for the value; 1748 outside the statement's partition selection.
pub fn leaf_for<E: KvEngine>(
    s: &Session<E>,
    t: &TableDef,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<Arc<TableDef>>> {
    if !is_partitioned(t) {
        return Ok(None);
    }
    let rt = runtime(s, t)?;
    let leaf = rt.route(row, ctx)?;
    check_selected(t, leaf)?;
    Ok(Some(rt.leaves[leaf].clone()))
}

/// INSERT of one row into `t`, routed to its partition.
///
/// # Errors
/// As [`leaf_for`] and [`storage::Txn::insert`].
pub fn insert<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<InsertOutcome> {
    match leaf_for(s, t, row, ctx)? {
        Some(leaf) => s.ensure_txn().insert(&leaf, row),
        None => s.ensure_txn().insert(t, row),
    }
}

/// UPDATE of one row of `t`; a row whose partition changes moves (delete + insert).
///
/// # Errors
/// As [`leaf_for`] and [`storage::Txn::update`].
pub fn update<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    h: &Handle,
    old: &[Value],
    new: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<UpdateOutcome> {
    if !is_partitioned(t) {
        return s.ensure_txn().update(t, h, old, new);
    }
    let rt = runtime(s, t)?;
    let from = rt.route(old, ctx)?;
    let to = rt.route(new, ctx)?;
    check_selected(t, to)?;
    if from == to {
        return s.ensure_txn().update(&rt.leaves[from], h, old, new);
    }
    let txn = s.ensure_txn();
    txn.delete(&rt.leaves[from], h, old)?;
    Ok(match txn.insert(&rt.leaves[to], new)? {
        InsertOutcome::Inserted(h) => UpdateOutcome::Updated(h),
        InsertOutcome::Duplicate {
            index_no,
            handle,
            row,
        } => UpdateOutcome::Duplicate {
            index_no,
            handle,
            row,
        },
    })
}

/// DELETE of one row of `t` (found through [`fetch`]).
///
/// # Errors
/// As [`storage::Txn::delete`].
pub fn delete<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    h: &Handle,
    old: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    match leaf_for(s, t, old, ctx)? {
        Some(leaf) => s.ensure_txn().delete(&leaf, h, old),
        None => s.ensure_txn().delete(t, h, old),
    }
}

/// The leaf views a statement may read of `t` after pruning with `filter` and applying its
/// partition selection; `[t]` for an unpartitioned table.
///
/// # Errors
/// Errors evaluating constants of `filter`.
pub fn read_leaves<E: KvEngine>(
    s: &Session<E>,
    t: &TableDef,
    filter: Option<&Expr>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Arc<TableDef>>> {
    if !is_partitioned(t) {
        return Ok(vec![Arc::new(t.clone())]);
    }
    let rt = runtime(s, t)?;
    let mut leaves = rt.prune(filter, ctx)?;
    if let Some(sel) = &t.part_select {
        leaves.retain(|l| sel.contains(&(*l as u32)));
    }
    Ok(leaves.into_iter().map(|l| rt.leaves[l].clone()).collect())
}

/// Every leaf view of `t` (or `t` itself when unpartitioned).
///
/// # Errors
/// A dictionary inconsistency.
pub fn all_leaves<E: KvEngine>(s: &Session<E>, t: &TableDef) -> Result<Vec<Arc<TableDef>>> {
    if !is_partitioned(t) {
        return Ok(vec![Arc::new(t.clone())]);
    }
    Ok(runtime(s, t)?.leaves.clone())
}

/// [`crate::exec::fetch::fetch_each`] over the pruned leaves of a partitioned table, one after
/// another, each read through `read` (the leaves have the table's indexes). `planned` turns
/// false when a leaf could not be read as planned.
///
/// # Errors
/// As [`crate::exec::fetch::fetch`].
#[allow(clippy::too_many_arguments)]
pub fn fetch<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    read: &crate::plan::physical::TableRead,
    filter: Option<&Expr>,
    outer: &[Value],
    ctx: &mut EvalCtx<'_>,
    scan: &crate::exec::fetch::Scan,
    planned: &mut bool,
) -> Result<Vec<(Handle, Vec<Value>)>> {
    let (order_hint, limit_hint) = (scan.order_hint, scan.limit_hint);
    // a join lookup prunes by the outer row's key values too
    let lookup_keys = if outer.is_empty() {
        None
    } else {
        lookup_prune_filter(t, read, filter, outer, ctx)?
    };
    let leaves = read_leaves(s, t, lookup_keys.as_ref().or(filter), ctx)?;
    let mut out = Vec::new();
    for leaf in leaves {
        // with an ORDER BY, every leaf delivers its own first rows and the caller sorts;
        // without one, the limit counts over all leaves
        let lim = match (order_hint, limit_hint) {
            (None, Some(l)) => Some(l.saturating_sub(out.len())),
            (_, l) => l,
        };
        let leaf_scan = crate::exec::fetch::Scan {
            limit_hint: lim,
            ..scan.clone()
        };
        let mut mem = crate::runtime::limits::MemTracker::new();
        let ok = crate::exec::fetch::fetch_each(
            s,
            &leaf,
            read,
            filter,
            outer,
            ctx,
            &leaf_scan,
            &mut |_, h, row| {
                mem.add_row(&row)?;
                out.push((h, row));
                Ok(true)
            },
        )?;
        *planned &= ok;
        if order_hint.is_none() && limit_hint.is_some_and(|l| out.len() >= l) {
            break;
        }
    }
    Ok(out)
}

/// `filter` and the lookup's key equalities with the outer row's values, for pruning.
fn lookup_prune_filter(
    t: &TableDef,
    read: &crate::plan::physical::TableRead,
    filter: Option<&Expr>,
    outer: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<Expr>> {
    let [prefix] = read.path.eq_prefixes.as_slice() else {
        return Ok(None);
    };
    let idx = &t.indexes[read.path.index];
    let mut conds: Vec<Expr> = filter.into_iter().cloned().collect();
    for (ic, e) in idx.columns.iter().zip(prefix) {
        let v = e.eval(outer, ctx)?;
        let coll = t.columns[ic.col].ty.collation();
        conds.push(Expr::Cmp(
            crate::ir::expr::CmpOp::Eq,
            Box::new(Expr::Col(ic.col)),
            Box::new(Expr::Lit(v)),
            coll,
        ));
    }
    Ok(crate::plan::physical::and_owned(conds))
}

/// Resolves `t PARTITION (names)` into the leaves it selects (a partition name selects all of
/// its subpartitions).
///
/// # Errors
/// 1747 on an unpartitioned table; 1735 unknown name.
pub fn select_partitions(t: &TableDef, names: &[String]) -> Result<TableDef> {
    let Some(p) = &t.partitioning else {
        return Err(perr(
            codes::ER_PARTITION_CLAUSE_ON_NONPARTITIONED,
            "PARTITION () clause on non partitioned table",
        ));
    };
    let mut leaves = Vec::new();
    for n in names {
        let mut found = false;
        for (pi, d) in p.partitions.iter().enumerate() {
            if d.name.eq_ignore_ascii_case(n) {
                leaves.extend(p.leaves_of(pi).map(|l| l as u32));
                found = true;
            }
            for (si, sp) in d.subpartitions.iter().enumerate() {
                if sp.name.eq_ignore_ascii_case(n) {
                    leaves.push(p.leaf_no(pi, si) as u32);
                    found = true;
                }
            }
        }
        if !found {
            return Err(perr(
                codes::ER_UNKNOWN_PARTITION,
                format!("Unknown partition '{n}' in table '{}'", t.name),
            ));
        }
    }
    leaves.sort_unstable();
    leaves.dedup();
    let mut d = t.clone();
    d.part_select = Some(Arc::new(leaves));
    Ok(d)
}

/// EXPLAIN's `partitions` column for a scan of `t` with `filter` (`None` when unpartitioned).
pub fn explain_partitions<E: KvEngine>(
    s: &Session<E>,
    t: &TableDef,
    filter: Option<&Expr>,
) -> Option<String> {
    if !is_partitioned(t) {
        return None;
    }
    let rt = runtime(s, t).ok()?;
    let killed = std::sync::atomic::AtomicBool::new(false);
    let mut warnings = Vec::new();
    let mut fnctx = func::scalar::FnCtx::default();
    let mut ctx = EvalCtx {
        params: &[],
        warnings: &mut warnings,
        fnctx: &mut fnctx,
        killed: &killed,
        div_precision: 4,
        strict_div_zero: false,
        set_last_insert_id: None,
        no_zero_date: false,
        no_zero_in_date: false,
        strict_cmp: false,
    };
    let mut leaves = rt
        .prune(filter, &mut ctx)
        .unwrap_or_else(|_| (0..rt.leaf_count()).collect());
    if let Some(sel) = &t.part_select {
        leaves.retain(|l| sel.contains(&(*l as u32)));
    }
    Some(
        leaves
            .iter()
            .map(|&l| rt.leaf_names[l].clone())
            .collect::<Vec<_>>()
            .join(","),
    )
}

/// INFORMATION_SCHEMA.PARTITIONS rows of table `t`: one per leaf, or one with the partition
/// columns NULL for an unpartitioned table.
///
/// # Errors
/// Engine errors reading sizes.
pub fn info_schema_rows<E: KvEngine>(s: &Session<E>, t: &TableDef) -> Result<Vec<Vec<Value>>> {
    let st = |x: &str| Value::Str(x.to_string());
    let opt = |x: Option<String>| x.map(Value::Str).unwrap_or(Value::Null);
    let sizes = |d: &TableDef| -> Result<Vec<Value>> {
        let (r, data, idx) = s.storage().table_stats(d)?;
        Ok(vec![
            Value::UInt(r),
            Value::UInt(data.checked_div(r).unwrap_or(0)),
            Value::UInt(data),
            Value::Null,
            Value::UInt(idx),
            Value::UInt(0),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
        ])
    };
    let head = |t: &TableDef| vec![st("def"), st(&t.db), st(&t.name)];
    let Some(p) = &t.partitioning else {
        let mut row = head(t);
        row.extend(std::iter::repeat_n(Value::Null, 9));
        row.extend(sizes(t)?);
        row.extend([st(""), Value::Null, Value::Null]);
        return Ok(vec![row]);
    };
    let mut out = Vec::new();
    for (li, leaf) in p.leaves().iter().enumerate() {
        let d = &p.partitions[leaf.part];
        let mut row = head(t);
        row.push(st(&d.name));
        row.push(opt(leaf.sub.map(|x| d.subpartitions[x].name.clone())));
        row.push(Value::UInt(leaf.part as u64 + 1));
        row.push(leaf.sub.map_or(Value::Null, |x| Value::UInt(x as u64 + 1)));
        row.push(st(&method_name(&p.func)));
        row.push(opt(p.sub.as_ref().map(method_name)));
        row.push(st(&expression_text(&p.func)));
        row.push(opt(p.sub.as_ref().map(expression_text)));
        row.push(opt(description(d)));
        row.extend(sizes(&t.leaf_def(li))?);
        let comment = match leaf.sub {
            Some(x) => d.subpartitions[x].comment.clone(),
            None => d.comment.clone(),
        };
        row.extend([st(&comment), st("default"), Value::Null]);
        out.push(row);
    }
    Ok(out)
}

/// Crash-injection point for tests: when the session variable `strata_crash_point` names
/// `point`, the server process aborts right here (as a power cut would stop it).
pub fn crash_point<E: KvEngine>(s: &Session<E>, point: &str) {
    if let Some(Value::Str(v)) = s.var("strata_crash_point") {
        if !v.is_empty() && v.eq_ignore_ascii_case(point) {
            tracing::warn!(point, "strata_crash_point reached: aborting the server");
            std::process::abort();
        }
    }
}

fn part_index(p: &Partitioning, name: &str) -> Option<usize> {
    p.partitions
        .iter()
        .position(|d| d.name.eq_ignore_ascii_case(name))
}

fn list_error(what: &str) -> Error {
    perr(
        codes::ER_DROP_PARTITION_NON_EXISTENT,
        format!("Error in list of partitions to {what}"),
    )
}

/// Copies every row of the `from` leaf views into the leaves of `new` whose ids are in
/// `new_ids`, routed by `new`'s functions; returns the row count.
fn copy_into<E: KvEngine>(
    s: &mut Session<E>,
    from: &[Arc<TableDef>],
    new: &TableDef,
    new_ids: &[u32],
) -> Result<u64> {
    let st = s.storage().clone();
    let rt = runtime(s, new)?;
    let fresh: HashSet<u32> = new_ids.iter().copied().collect();
    let mut reader = st.begin(storage::TxnOptions::default());
    let iters = from
        .iter()
        .map(|l| reader.scan_all(l))
        .collect::<Result<Vec<_>>>()?;
    s.with_ctx(&[], false, |_, ctx| {
        let mut w = st.begin(storage::TxnOptions::default());
        let (mut n, mut pending) = (0u64, 0usize);
        for r in iters.into_iter().flatten() {
            let (_, row) = r?;
            if ctx.killed.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::interrupted());
            }
            let leaf = rt.route(&row, ctx)?;
            let target = &rt.leaves[leaf];
            if !target.indexes.first().is_some_and(|i| fresh.contains(&i.id)) {
                // the new layout sends the row to a partition that is not being rebuilt: the
                // new definitions don't cover the old ones
                return Err(perr(
                    codes::ER_REORG_OUTSIDE_RANGE,
                    "Reorganize of range partitions cannot change total ranges except for last partition where it can extend the range",
                ));
            }
            match w.insert(target, &row)? {
                InsertOutcome::Inserted(_) => {}
                InsertOutcome::Duplicate { index_no, .. } => {
                    return Err(storage::catalog::ddl::duplicate_error(new, index_no, &row))
                }
            }
            n += 1;
            pending += 1;
            if pending >= crate::runtime::limits::COPY_BATCH {
                std::mem::replace(&mut w, st.begin(storage::TxnOptions::default())).commit(false)?;
                pending = 0;
            }
        }
        w.commit(false)?;
        Ok(n)
    })
}

/// Publishes `new` (after copying `from` into its fresh leaves when `from` is non-empty), with
/// the crash points of the partition DDL log.
fn apply<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    mut new: TableDef,
    from: &[Arc<TableDef>],
) -> Result<u64> {
    let st = s.storage().clone();
    let new_ids = st.prepare_new_ids(&mut new)?;
    crash_point(s, "partition_after_prepare");
    let copied = if from.is_empty() {
        Ok(0)
    } else {
        copy_into(s, from, &new, &new_ids)
    };
    let n = match copied {
        Ok(n) => n,
        Err(e) => {
            st.abandon_new_ids(&new_ids)?;
            return Err(e);
        }
    };
    crash_point(s, "partition_after_copy");
    // readers went on during the copy (no-write lock); publishing needs the table alone
    if let Err(e) = s.mdl_lock(&t.db, &t.name, crate::runtime::mdl::MdlMode::Exclusive) {
        st.abandon_new_ids(&new_ids)?;
        return Err(e);
    }
    if let Err(e) = st.publish_table_def(t.version, new, &new_ids) {
        st.abandon_new_ids(&new_ids)?;
        return Err(e);
    }
    s.inst.partitions.clear();
    crash_point(s, "partition_after_publish");
    Ok(n)
}

fn admin_rows(
    t: &TableDef,
    op: &str,
    msgs: Vec<(&str, String)>,
) -> crate::session::session::Output {
    let rows = msgs
        .into_iter()
        .map(|(ty, m)| {
            vec![
                Value::Str(format!("{}.{}", t.db, t.name)),
                Value::Str(op.to_string()),
                Value::Str(ty.to_string()),
                Value::Str(m),
            ]
        })
        .collect();
    crate::session::session::Output::Rows {
        columns: ["Table", "Op", "Msg_type", "Msg_text"]
            .iter()
            .map(|n| crate::bind::select::str_meta(n, 64))
            .collect(),
        rows,
    }
}

/// Runs a partition management operation on table `t`.
///
/// # Errors
/// MySQL's partition management errors (1505, 1507–1520, 1731–1737).
pub fn alter<E: KvEngine>(
    s: &mut Session<E>,
    t: &Arc<TableDef>,
    op: &PartOp,
) -> Result<crate::session::session::Output> {
    let Some(p) = t.partitioning.clone() else {
        return Err(perr(
            codes::ER_PARTITION_MGMT_ON_NONPARTITIONED,
            "Partition management on a not partitioned table is not possible",
        ));
    };
    let ok = |n: u64| crate::session::session::Output::Ok {
        affected: n,
        last_insert_id: 0,
        info: format!("Records: {n}  Duplicates: 0  Warnings: 0"),
    };
    let range_list = matches!(p.func.method, PartMethod::Range | PartMethod::List);
    let old_leaves = all_leaves(s, t)?;
    let mut np = (*p).clone();
    match op {
        PartOp::PartitionBy(_) | PartOp::Remove => Err(Error::internal("handled by ALTER")),
        PartOp::Add(defs) => {
            let mut added = build_parts(s, t, &p.func, defs)?;
            if p.sub.is_some() {
                let n = p.subs_per_part();
                for d in added.iter_mut() {
                    if d.subpartitions.is_empty() {
                        gen_subs(d, n as u64);
                    } else if d.subpartitions.len() != n {
                        return Err(perr(
                            codes::ER_ADD_PARTITION_SUBPART_ERROR,
                            "Trying to Add partition(s) with wrong number of subpartitions",
                        ));
                    }
                }
            }
            if range_list {
                np.partitions.extend(added);
                np.by_count = false;
                check_partitioning(t, &np)?;
                let mut new = (**t).clone();
                new.partitioning = Some(Arc::new(np));
                apply(s, t, new, &[])?;
                Ok(ok(0))
            } else {
                np.partitions.extend(added);
                np.by_count = false;
                rehash(s, t, np, &old_leaves)
            }
        }
        PartOp::AddCount(n) => {
            if range_list {
                return Err(perr(
                    codes::ER_PARTITIONS_MUST_BE_DEFINED_ERROR,
                    "For RANGE partitions each partition must be defined",
                ));
            }
            if *n == 0 {
                return Err(perr(
                    codes::ER_ADD_PARTITION_NO_NEW_PARTITION,
                    "At least one partition must be added",
                ));
            }
            let start = np.partitions.len();
            for i in start..start + *n as usize {
                np.partitions.push(PartitionDef {
                    name: format!("p{i}"),
                    values: PartValues::None,
                    comment: String::new(),
                    index_ids: Vec::new(),
                    subpartitions: Vec::new(),
                });
            }
            rehash(s, t, np, &old_leaves)
        }
        PartOp::Coalesce(n) => {
            if range_list {
                return Err(perr(
                    codes::ER_COALESCE_ONLY_ON_HASH_PARTITION,
                    "COALESCE PARTITION can only be used on HASH/KEY partitions",
                ));
            }
            let n = *n as usize;
            if n == 0 {
                return Err(perr(
                    codes::ER_COALESCE_PARTITION_NO_PARTITION,
                    "At least one partition must be coalesced",
                ));
            }
            if n >= np.partitions.len() {
                return Err(perr(
                    codes::ER_DROP_LAST_PARTITION,
                    "Cannot remove all partitions, use DROP TABLE instead",
                ));
            }
            let keep = np.partitions.len() - n;
            np.partitions.truncate(keep);
            rehash(s, t, np, &old_leaves)
        }
        PartOp::Drop(names) => {
            if !range_list {
                return Err(perr(
                    codes::ER_ONLY_ON_RANGE_LIST_PARTITION,
                    "DROP PARTITION can only be used on RANGE/LIST partitions",
                ));
            }
            let mut drop = HashSet::new();
            for n in names {
                match part_index(&p, n) {
                    Some(i) => {
                        drop.insert(i);
                    }
                    None => return Err(list_error("DROP")),
                }
            }
            if drop.len() == p.partitions.len() {
                return Err(perr(
                    codes::ER_DROP_LAST_PARTITION,
                    "Cannot remove all partitions, use DROP TABLE instead",
                ));
            }
            np.partitions = p
                .partitions
                .iter()
                .enumerate()
                .filter(|(i, _)| !drop.contains(i))
                .map(|(_, d)| d.clone())
                .collect();
            let mut new = (**t).clone();
            new.partitioning = Some(Arc::new(np));
            apply(s, t, new, &[])?;
            Ok(ok(0))
        }
        PartOp::Truncate(names) => {
            let targets: Vec<usize> = if names.is_empty() {
                (0..p.partitions.len()).collect()
            } else {
                let mut v = Vec::new();
                for n in names {
                    match part_index(&p, n) {
                        Some(i) => v.push(i),
                        None => return Err(list_error("TRUNCATE")),
                    }
                }
                v
            };
            for &i in &targets {
                let d = &mut np.partitions[i];
                d.index_ids.clear();
                for sp in d.subpartitions.iter_mut() {
                    sp.index_ids.clear();
                }
            }
            let mut new = (**t).clone();
            new.partitioning = Some(Arc::new(np));
            apply(s, t, new, &[])?;
            // the AUTO_INCREMENT counter restarts from what is left
            if let Some(cur) = s.storage().get_table(&t.db, &t.name)? {
                if cur.autoinc_column().is_some() {
                    s.storage().set_autoinc(&cur, 1)?;
                }
            }
            Ok(ok(0))
        }
        PartOp::Reorganize(names, defs) => {
            if names.is_empty() {
                if range_list || !p.by_count {
                    return Err(perr(
                        codes::ER_REORG_NO_PARAM_ERROR,
                        "REORGANIZE PARTITION without parameters can only be used on auto-partitioned tables using HASH PARTITIONs",
                    ));
                }
                return rehash(s, t, np, &old_leaves);
            }
            let mut idx = Vec::new();
            for n in names {
                match part_index(&p, n) {
                    Some(i) => idx.push(i),
                    None => return Err(list_error("REORGANIZE")),
                }
            }
            idx.sort_unstable();
            idx.dedup();
            if idx.windows(2).any(|w| w[1] != w[0] + 1) {
                return Err(perr(
                    codes::ER_CONSECUTIVE_REORG_PARTITIONS,
                    "When reorganizing a set of partitions they must be in consecutive order",
                ));
            }
            let mut added = build_parts(s, t, &p.func, defs)?;
            if p.sub.is_some() {
                let n = p.subs_per_part();
                for d in added.iter_mut() {
                    if d.subpartitions.is_empty() {
                        gen_subs(d, n as u64);
                    }
                }
            }
            if !range_list && added.len() != idx.len() {
                return Err(perr(
                    codes::ER_REORG_HASH_ONLY_ON_SAME_NO,
                    "REORGANIZE PARTITION can only be used to reorganize partitions not to change their numbers",
                ));
            }
            let (first, last) = (idx[0], *idx.last().unwrap_or(&idx[0]));
            if p.func.method == PartMethod::Range && last + 1 != p.partitions.len() {
                // the reorganized run must end where it ended before
                let old_end = &p.partitions[last].values;
                let new_end = added.last().map(|d| &d.values);
                if new_end != Some(old_end) {
                    return Err(perr(
                        codes::ER_REORG_OUTSIDE_RANGE,
                        "Reorganize of range partitions cannot change total ranges except for last partition where it can extend the range",
                    ));
                }
            }
            let mut parts: Vec<PartitionDef> = p.partitions[..first].to_vec();
            parts.extend(added);
            parts.extend(p.partitions[last + 1..].iter().cloned());
            np.partitions = parts;
            np.by_count = false;
            check_partitioning(t, &np)?;
            if !range_list {
                return rehash(s, t, np, &old_leaves);
            }
            let from: Vec<Arc<TableDef>> = idx
                .iter()
                .flat_map(|&i| p.leaves_of(i))
                .map(|l| old_leaves[l].clone())
                .collect();
            let mut new = (**t).clone();
            new.partitioning = Some(Arc::new(np));
            let n = apply(s, t, new, &from)?;
            Ok(ok(n))
        }
        PartOp::Exchange(part, other, validate) => exchange(s, t, &p, part, other, *validate),
        PartOp::Maintenance(kind, names) => {
            let mut leaves: Vec<usize> = Vec::new();
            if names.is_empty() {
                leaves = (0..p.leaf_count()).collect();
            } else {
                for n in names {
                    match part_index(&p, n) {
                        Some(i) => leaves.extend(p.leaves_of(i)),
                        None => {
                            return Ok(admin_rows(
                                t,
                                kind,
                                vec![(
                                    "error",
                                    "Error in list of partitions to ".to_string() + &t.name,
                                )],
                            ))
                        }
                    }
                }
            }
            match kind.as_str() {
                "analyze" => crate::catalog::stats::analyze(s, t)?,
                "check" | "repair" => {
                    let bad = misplaced_rows(s, t, &leaves)?;
                    if bad > 0 {
                        return Ok(admin_rows(
                            t,
                            kind,
                            vec![
                                ("error", format!("Found {bad} misplaced rows")),
                                ("error", "Partition p needs to be rebuilt".to_string()),
                            ],
                        ));
                    }
                }
                _ => {}
            }
            Ok(admin_rows(t, kind, vec![("status", "OK".to_string())]))
        }
    }
}

/// Rebuilds every leaf of `t` under the partition list `np` (HASH / KEY changes move rows).
fn rehash<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    mut np: Partitioning,
    old_leaves: &[Arc<TableDef>],
) -> Result<crate::session::session::Output> {
    for ids in np.leaf_ids_mut() {
        ids.clear();
    }
    check_partitioning(t, &np)?;
    let mut new = t.clone();
    new.partitioning = Some(Arc::new(np));
    let n = apply(s, t, new, old_leaves)?;
    Ok(crate::session::session::Output::Ok {
        affected: n,
        last_insert_id: 0,
        info: format!("Records: {n}  Duplicates: 0  Warnings: 0"),
    })
}

/// Rows of the given leaves that their partition function would place elsewhere.
pub(crate) fn misplaced_rows<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    leaves: &[usize],
) -> Result<u64> {
    let rt = runtime(s, t)?;
    let st = s.storage().clone();
    let mut reader = st.begin(storage::TxnOptions::default());
    let mut iters = Vec::new();
    for &l in leaves {
        iters.push((l, reader.scan_all(&rt.leaves[l])?));
    }
    s.with_ctx(&[], false, |_, ctx| {
        let mut bad = 0;
        for (l, it) in iters {
            for r in it {
                let (_, row) = r?;
                if rt.route(&row, ctx).ok() != Some(l) {
                    bad += 1;
                }
            }
        }
        Ok(bad)
    })
}

fn same_structure(a: &TableDef, b: &TableDef) -> bool {
    a.columns.len() == b.columns.len()
        && a.columns.iter().zip(&b.columns).all(|(x, y)| {
            x.name.eq_ignore_ascii_case(&y.name) && x.ty == y.ty && x.nullable == y.nullable
        })
        && a.indexes.len() == b.indexes.len()
        && a.hidden_pk == b.hidden_pk
        && a.indexes.iter().zip(&b.indexes).all(|(x, y)| {
            x.kind == y.kind && x.columns == y.columns && x.name.eq_ignore_ascii_case(&y.name)
        })
}

fn exchange<E: KvEngine>(
    s: &mut Session<E>,
    t: &Arc<TableDef>,
    p: &Partitioning,
    part: &str,
    other: &ast::ObjectName,
    validate: bool,
) -> Result<crate::session::session::Output> {
    let (odb, oname) = crate::parse::qualify_in(s.db.as_deref(), other)?;
    s.mdl_lock(&odb, &oname, crate::runtime::mdl::MdlMode::Exclusive)?;
    let u = s
        .storage()
        .get_table(&odb, &oname)?
        .ok_or_else(|| Error::no_such_table(&odb, &oname))?;
    if u.partitioning.is_some() {
        return Err(perr(
            codes::ER_PARTITION_EXCHANGE_PART_TABLE,
            format!("Table to exchange with partition is partitioned: '{oname}'"),
        ));
    }
    if u.options.view.is_some() {
        return Err(Error::new(
            codes::ER_WRONG_OBJECT,
            format!("'{odb}.{oname}' is not BASE TABLE"),
        ));
    }
    if !same_structure(t, &u) {
        return Err(perr(
            codes::ER_TABLES_DIFFERENT_METADATA,
            "Tables have different definitions",
        ));
    }
    // the leaf: a partition without subpartitions, or a subpartition
    let mut leaf = None;
    for (pi, d) in p.partitions.iter().enumerate() {
        if d.name.eq_ignore_ascii_case(part) {
            if !d.subpartitions.is_empty() {
                return Err(perr(
                    codes::ER_PARTITION_INSTEAD_OF_SUBPARTITION,
                    "Subpartitioned table, use subpartition instead of partition",
                ));
            }
            leaf = Some(p.leaf_no(pi, 0));
        }
        for (si, sp) in d.subpartitions.iter().enumerate() {
            if sp.name.eq_ignore_ascii_case(part) {
                leaf = Some(p.leaf_no(pi, si));
            }
        }
    }
    let Some(leaf) = leaf else {
        return Err(perr(
            codes::ER_UNKNOWN_PARTITION,
            format!("Unknown partition '{part}' in table '{}'", t.name),
        ));
    };
    if validate {
        let rt = runtime(s, t)?;
        let st = s.storage().clone();
        let mut reader = st.begin(storage::TxnOptions::default());
        let it = reader.scan_all(&u)?;
        let misplaced = s.with_ctx(&[], false, |_, ctx| {
            for r in it {
                let (_, row) = r?;
                if rt.route(&row, ctx).ok() != Some(leaf) {
                    return Ok(true);
                }
            }
            Ok(false)
        })?;
        if misplaced {
            return Err(perr(
                codes::ER_ROW_DOES_NOT_MATCH_PARTITION,
                "Found a row that does not match the partition",
            ));
        }
    }
    crash_point(s, "partition_after_prepare");
    s.mdl_lock(&t.db, &t.name, crate::runtime::mdl::MdlMode::Exclusive)?;
    s.storage()
        .exchange_leaf((&t.db, &t.name, t.version), leaf, (&odb, &oname, u.version))?;
    s.inst.partitions.clear();
    crash_point(s, "partition_after_publish");
    Ok(crate::session::session::Output::ok(0))
}

/// Checks that the partitioning functions of `def` still bind to its columns (after an ALTER
/// that renamed or dropped columns).
///
/// # Errors
/// 1054 for a column the functions name that no longer exists.
pub fn check_binds<E: KvEngine>(s: &Session<E>, def: &TableDef) -> Result<()> {
    if let Some(p) = &def.partitioning {
        bind_func(s, def, &p.func, p.partitions.len())?;
        if let Some(f) = &p.sub {
            bind_func(s, def, f, p.subs_per_part())?;
        }
        for f in std::iter::once(&p.func).chain(p.sub.as_ref()) {
            if f.columns.iter().any(|c| def.column_index(c).is_none()) {
                return Err(perr(
                    codes::ER_FIELD_NOT_FOUND_PART_ERROR,
                    "Field in list of fields for partition function not found in table",
                ));
            }
        }
    }
    Ok(())
}
