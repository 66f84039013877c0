//! Views: CREATE [OR REPLACE] VIEW, DROP VIEW, and expanding a view where a query names it.
//!
//! A view is a catalog entry ([`TableDef`] with `options.view` set) that never holds rows. Its
//! SELECT is stored with table names qualified by their database (as MySQL does), so it means
//! the same thing whatever the current database is when it is used. Columns are recorded from
//! the planned query so DESCRIBE / SHOW COLUMNS / INFORMATION_SCHEMA.COLUMNS describe it.

use std::ops::ControlFlow;

use common::{codes, DataType, Error, Result};
use func::types::ExprType;
use sqlparser::ast::{self, Visit, Visitor};
use storage::catalog::{ColumnDef, TableDef, TableOptions, ViewDef};
use storage::engine::KvEngine;

use crate::expr::Scope;
use crate::query::{self, Query};
use crate::session::{Output, Session};

/// Nesting limit for views defined on views (guards against cycles).
const MAX_VIEW_DEPTH: usize = 32;

/// The view definition of `t`, if it is a view.
pub fn definition(t: &TableDef) -> Option<&ViewDef> {
    t.options.view.as_ref()
}

thread_local! {
    static DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Plans the query of view `t`.
pub fn plan_view<E: KvEngine>(s: &Session<E>, t: &TableDef, v: &ViewDef) -> Result<Query> {
    let depth = DEPTH.with(|d| d.get());
    if depth >= MAX_VIEW_DEPTH {
        return Err(invalid(t));
    }
    let q = parse_select(&v.select)?;
    DEPTH.with(|d| d.set(depth + 1));
    let r = query::plan_query(s, &q, &v.select, &Scope::default());
    DEPTH.with(|d| d.set(depth));
    let mut planned = r.map_err(|e| {
        if matches!(e.code.num, 1146 | 1054 | 1356) {
            invalid(t)
        } else {
            e
        }
    })?;
    if !v.column_names.is_empty() {
        planned.rename_columns(&v.column_names)?;
    }
    Ok(planned)
}

fn invalid(t: &TableDef) -> Error {
    Error::new(
        codes::ER_VIEW_INVALID,
        format!(
            "View '{}.{}' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them",
            t.db, t.name
        ),
    )
}

fn parse_select(sql: &str) -> Result<ast::Query> {
    let parsed = crate::parser::parse(sql)?;
    match parsed.into_iter().next().map(|p| p.stmt) {
        Some(crate::parser::Stmt::Ast(ast::Statement::Query(q))) => Ok(*q),
        _ => Err(Error::parse(sql)),
    }
}

/// Collects the names of CTEs declared anywhere in a query.
struct CteNames(Vec<String>);

impl Visitor for CteNames {
    type Break = ();
    fn pre_visit_query(&mut self, q: &ast::Query) -> ControlFlow<()> {
        if let Some(w) = &q.with {
            for c in &w.cte_tables {
                self.0.push(c.alias.name.value.clone());
            }
        }
        ControlFlow::Continue(())
    }
}

/// Qualifies unqualified table names with `db` (CTE names excepted).
fn qualify_tables(q: &mut ast::Query, db: &str) {
    let mut ctes = CteNames(Vec::new());
    let _ = q.visit(&mut ctes);
    let _ = ast::visit_relations_mut(q, |name| {
        if name.0.len() == 1 {
            let n = name.0[0].to_string();
            if !ctes.0.iter().any(|c| c == n.trim_matches('`')) {
                name.0.insert(
                    0,
                    ast::ObjectNamePart::Identifier(ast::Ident::with_quote('`', db)),
                );
            }
        }
        ControlFlow::<()>::Continue(())
    });
}

/// The column type recorded for a view column (or a CREATE TABLE ... AS SELECT column).
pub fn column_type(t: &ExprType) -> DataType {
    match *t {
        ExprType::Null => DataType::Binary { len: 0 },
        ExprType::Int => DataType::Int {
            bytes: 8,
            unsigned: false,
            width: None,
            zerofill: false,
        },
        ExprType::UInt => DataType::Int {
            bytes: 8,
            unsigned: true,
            width: None,
            zerofill: false,
        },
        ExprType::Double => DataType::Double {
            md: None,
            unsigned: false,
        },
        ExprType::Decimal { precision, scale } => DataType::Decimal {
            precision: precision.clamp(1, 65),
            scale,
            unsigned: false,
        },
        ExprType::Str { max_chars } if max_chars <= 16383 => DataType::VarChar {
            len: max_chars,
            collation: Default::default(),
        },
        ExprType::Str { .. } => DataType::Text {
            size: common::types::LobSize::Long,
            collation: Default::default(),
        },
        ExprType::Bytes { max_len } if max_len <= 65535 => DataType::VarBinary { len: max_len },
        ExprType::Bytes { .. } => DataType::Blob {
            size: common::types::LobSize::Long,
        },
        ExprType::Date => DataType::Date,
        ExprType::DateTime { fsp } => DataType::DateTime { fsp },
        ExprType::Time { fsp } => DataType::Time { fsp },
    }
}

/// Column types of a query's output for a new table or view: a select item that is a plain
/// column keeps that column's declared type; anything else gets a type from its static type.
pub fn output_column_types(q: &Query) -> Vec<DataType> {
    match q {
        Query::Select(p) => p
            .items
            .iter()
            .zip(&p.types)
            .map(|(e, t)| match e {
                crate::expr::Expr::Col(i) => {
                    match p.scope.cols.get(*i).and_then(|c| c.ty.clone()) {
                        Some(ty) => ty,
                        None => column_type(t),
                    }
                }
                _ => column_type(t),
            })
            .collect(),
        other => other.types().iter().map(column_type).collect(),
    }
}

/// CREATE [OR REPLACE] VIEW.
pub fn create<E: KvEngine>(s: &mut Session<E>, cv: &ast::CreateView) -> Result<Output> {
    let (db, name) = crate::ddl::qualify(s, &cv.name)?;
    if s.storage().get_database(&db)?.is_none() {
        return Err(Error::new(
            codes::ER_BAD_DB_ERROR,
            format!("Unknown database '{db}'"),
        ));
    }
    let mut q = (*cv.query).clone();
    qualify_tables(&mut q, &db);
    let select = q.to_string();
    let column_names: Vec<String> = cv.columns.iter().map(|c| c.name.value.clone()).collect();
    let planned = {
        let mut p = query::plan_query(s, &q, &select, &Scope::default())?;
        if !column_names.is_empty() {
            p.rename_columns(&column_names)?;
        }
        p
    };
    if !planned.first_block().into_vars.is_empty() {
        return Err(Error::new(
            codes::ER_VIEW_SELECT_VARIABLE,
            "View's SELECT contains a variable or parameter",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    let mut columns = Vec::new();
    for (c, ty) in planned.columns().iter().zip(output_column_types(&planned)) {
        if !seen.insert(c.name.to_ascii_lowercase()) {
            return Err(Error::new(
                codes::ER_DUP_FIELDNAME,
                format!("Duplicate column name '{}'", c.name),
            ));
        }
        columns.push(ColumnDef {
            name: c.name.clone(),
            ty,
            nullable: true,
            default: None,
            auto_increment: false,
            on_update: None,
            comment: String::new(),
        });
    }
    let params = cv.params.as_ref();
    let view = ViewDef {
        select,
        column_names,
        algorithm: params
            .and_then(|p| p.algorithm.as_ref())
            .map(|a| a.to_string())
            .unwrap_or_else(|| "UNDEFINED".into()),
        security: params
            .and_then(|p| p.security.as_ref())
            .map(|a| a.to_string())
            .unwrap_or_else(|| "DEFINER".into()),
        definer: format!("`{}`@`{}`", s.user, s.account_host),
        check_option: String::new(),
    };
    let existing = s.storage().get_table(&db, &name)?;
    match existing {
        Some(t) if t.options.view.is_none() => {
            return Err(Error::new(
                codes::ER_TABLE_EXISTS_ERROR,
                format!("Table '{name}' already exists"),
            ))
        }
        Some(_) if !cv.or_replace => {
            return Err(Error::new(
                codes::ER_TABLE_EXISTS_ERROR,
                format!("Table '{name}' already exists"),
            ))
        }
        Some(_) => {
            s.storage().drop_table(&db, &name)?;
        }
        None => {}
    }
    let def = TableDef {
        id: 0,
        db: db.clone(),
        name: name.clone(),
        columns,
        indexes: vec![],
        hidden_pk: true,
        version: 1,
        options: TableOptions {
            engine: String::new(),
            view: Some(view),
            ..TableOptions::default()
        },
    };
    s.storage().create_table(def)?;
    Ok(Output::ok(0))
}

/// DROP VIEW [IF EXISTS] v, ...
pub fn drop<E: KvEngine>(
    s: &mut Session<E>,
    names: &[ast::ObjectName],
    if_exists: bool,
) -> Result<Output> {
    let mut missing = Vec::new();
    let mut targets = Vec::new();
    for n in names {
        let (db, t) = crate::ddl::qualify(s, n)?;
        match s.storage().get_table(&db, &t)? {
            Some(def) if def.options.view.is_some() => targets.push((db, t)),
            Some(_) => {
                return Err(Error::new(
                    codes::ER_WRONG_OBJECT,
                    format!("'{db}.{t}' is not VIEW"),
                ))
            }
            None => missing.push(format!("{db}.{t}")),
        }
    }
    if !missing.is_empty() && !if_exists {
        return Err(Error::new(
            codes::ER_BAD_TABLE_ERROR,
            format!("Unknown table '{}'", missing.join(",")),
        ));
    }
    for (db, t) in targets {
        s.storage().drop_table(&db, &t)?;
    }
    for m in missing {
        s.warnings.push(common::Warning::note(
            codes::ER_BAD_TABLE_ERROR,
            format!("Unknown table '{m}'"),
        ));
    }
    Ok(Output::ok(0))
}

/// SHOW CREATE VIEW output row: (View, Create View, character_set_client, collation_connection).
pub fn show_create(t: &TableDef) -> Option<String> {
    let v = definition(t)?;
    let cols = if v.column_names.is_empty() {
        String::new()
    } else {
        format!(
            " ({})",
            v.column_names
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    Some(format!(
        "CREATE ALGORITHM={} DEFINER={} SQL SECURITY {} VIEW `{}`{} AS {}",
        v.algorithm, v.definer, v.security, t.name, cols, v.select
    ))
}
