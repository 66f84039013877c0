//! Views: CREATE [OR REPLACE] VIEW, DROP VIEW, and expanding a view where a query names it.
//!
//! A view is a catalog entry ([`TableDef`] with `options.view` set) that never holds rows. Its
//! SELECT is stored with table names qualified by their database (as MySQL does), so it means
//! the same thing whatever the current database is when it is used. Columns are recorded from
//! the planned query so DESCRIBE / SHOW COLUMNS / INFORMATION_SCHEMA.COLUMNS describe it.

use crate::runtime::mdl::MdlMode;
use std::ops::ControlFlow;

use common::{codes, DataType, Error, Result};
use func::types::ExprType;
use sqlparser::ast::{self, Visit, Visitor};
use storage::catalog::{ColumnDef, TableDef, TableOptions, ViewDef};
use storage::engine::KvEngine;

use crate::ir::query::Query;
use crate::ir::scope::Scope;
use crate::session::session::Output;
use crate::session::session::Session;

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
    let r = crate::bind::query::plan_query(s, &q, &v.select, &Scope::default());
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
    let parsed = crate::parse::parser::parse(sql)?;
    match parsed.into_iter().next().map(|p| p.stmt) {
        Some(crate::parse::parser::Stmt::Ast(ast::Statement::Query(q))) => Ok(*q),
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

/// 1352 when a view's query (its table names qualified) names a TEMPORARY table of the
/// session, as MySQL refuses.
fn refuse_temporary<E: KvEngine>(s: &Session<E>, q: &ast::Query) -> Result<()> {
    if s.temp.is_empty() {
        return Ok(());
    }
    let mut found = None;
    let _ = ast::visit_relations(q, |n| {
        if let [d, t] = crate::parse::obj_parts(n).as_slice() {
            if s.temp.lookup(d, t).is_some() {
                found = Some(t.clone());
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    match found {
        Some(t) => Err(Error::new(
            codes::ER_VIEW_SELECT_TMPTABLE,
            format!("View's SELECT refers to a temporary table '{t}'"),
        )),
        None => Ok(()),
    }
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
                crate::ir::expr::Expr::Col(i) => {
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
    let (db, name) = crate::ddl::table::qualify(s, &cv.name)?;
    if s.storage().get_database(&db)?.is_none() {
        return Err(Error::new(
            codes::ER_BAD_DB_ERROR,
            format!("Unknown database '{db}'"),
        ));
    }
    let mut q = (*cv.query).clone();
    qualify_tables(&mut q, &db);
    refuse_temporary(s, &q)?;
    let select = q.to_string();
    let column_names: Vec<String> = cv.columns.iter().map(|c| c.name.value.clone()).collect();
    let planned = {
        let mut p = crate::bind::query::plan_query(s, &q, &select, &Scope::default())?;
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
            instant_default: None,
            generated: None,
        });
    }
    let params = cv.params.as_ref();
    let check_option = match &cv.options {
        ast::CreateTableOptions::None => String::new(),
        ast::CreateTableOptions::With(opts) => match opts.as_slice() {
            [ast::SqlOption::KeyValue { key, value }]
                if key.value == crate::parse::parser::VIEW_CHECK_OPTION =>
            {
                match value {
                    ast::Expr::Value(v) => match &v.value {
                        ast::Value::SingleQuotedString(k) => k.clone(),
                        _ => String::new(),
                    },
                    _ => String::new(),
                }
            }
            _ => return Err(Error::parse(cv.options.to_string())),
        },
        other => return Err(Error::parse(other.to_string())),
    };
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
        check_option,
    };
    s.mdl_lock(&db, &name, MdlMode::Exclusive)?;
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
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        temporary: false,
        partitioning: None,
        leaf: None,
        part_select: None,
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
    if !def
        .options
        .view
        .as_ref()
        .is_some_and(|v| v.check_option.is_empty())
    {
        // CHECK OPTION needs an updatable view (1368)
        let v = definition(&def).ok_or_else(|| Error::internal("view"))?;
        if mapping(s, &def, v, "UPDATE").is_err() {
            return Err(Error::new(
                codes::ER_VIEW_NONUPD_CHECK,
                format!("CHECK OPTION on non-updatable view '{db}.{name}'"),
            ));
        }
    }
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
    let qualified = crate::ddl::table::qualify_all(s, names)?;
    s.mdl_lock_all(&qualified, MdlMode::Exclusive)?;
    for (db, t) in qualified {
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
    crate::ddl::table::drop_found(s, targets, missing, if_exists)
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
    let check = if v.check_option.is_empty() {
        String::new()
    } else {
        format!(" WITH {} CHECK OPTION", v.check_option)
    };
    Some(format!(
        "CREATE ALGORITHM={} DEFINER={} SQL SECURITY {} VIEW `{}`{} AS {}{}",
        v.algorithm, v.definer, v.security, t.name, cols, v.select, check
    ))
}

// ---------------------------------------------------------------------------------------------
// Updatable views: INSERT / UPDATE / DELETE through a single-table view are rewritten into the
// same statement on the base table (MySQL's MERGE algorithm for updatable views).

/// How a simple view maps onto its base table.
struct Mapping {
    /// The base table as named in the view (qualified), and the alias its expressions use.
    base: ast::ObjectName,
    alias: Option<ast::TableAlias>,
    /// View column name → the select-list expression over the base table.
    cols: Vec<(String, ast::Expr)>,
    /// The view's WHERE.
    selection: Option<ast::Expr>,
}

/// 1471 (INSERT) / 1288 (UPDATE, DELETE): `t` can't be written through.
pub(crate) fn not_updatable(t: &TableDef, what: &str) -> Error {
    if what == "INSERT" {
        Error::new(
            codes::ER_NON_INSERTABLE_TABLE,
            format!(
                "The target table {} of the INSERT is not insertable-into",
                t.name
            ),
        )
    } else {
        Error::new(
            codes::ER_NON_UPDATABLE_TABLE,
            format!("The target table {} of the {what} is not updatable", t.name),
        )
    }
}

/// Checks that view `t` is updatable (one base table or view, no aggregation, DISTINCT, set
/// operation, LIMIT or subquery in the select list) and returns its column mapping.
fn mapping<E: KvEngine>(s: &Session<E>, t: &TableDef, v: &ViewDef, what: &str) -> Result<Mapping> {
    let q = parse_select(&v.select)?;
    let bad = || not_updatable(t, what);
    if q.with.is_some() || q.limit_clause.is_some() || q.order_by.is_some() {
        return Err(bad());
    }
    let ast::SetExpr::Select(sel) = q.body.as_ref() else {
        return Err(bad());
    };
    if sel.distinct.is_some()
        || sel.having.is_some()
        || !matches!(&sel.group_by, ast::GroupByExpr::Expressions(g, m) if g.is_empty() && m.is_empty())
        || sel.from.len() != 1
        || !sel.from[0].joins.is_empty()
    {
        return Err(bad());
    }
    let (base, alias) = match &sel.from[0].relation {
        ast::TableFactor::Table { name, alias, .. } => (name.clone(), alias.clone()),
        _ => return Err(bad()),
    };
    // the planned view gives the output column names (and rejects aggregates)
    let planned = plan_view(s, t, v)?;
    if let Query::Select(p) = &planned {
        if p.grouped || p.aggs.iter().any(|a| a.window.is_some()) {
            return Err(bad());
        }
    }
    let names: Vec<String> = planned.columns().iter().map(|c| c.name.clone()).collect();
    let mut exprs: Vec<ast::Expr> = Vec::new();
    for item in &sel.projection {
        match item {
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                if matches!(e, ast::Expr::Subquery(_)) {
                    return Err(bad());
                }
                exprs.push(e.clone())
            }
            ast::SelectItem::Wildcard(_) | ast::SelectItem::QualifiedWildcard(..) => {
                let (db, tname) = crate::ddl::table::qualify(s, &base)?;
                let bt = s
                    .storage()
                    .get_table(&db, &tname)?
                    .ok_or_else(|| invalid(t))?;
                for c in &bt.columns {
                    exprs.push(ast::Expr::Identifier(ast::Ident::with_quote('`', &c.name)));
                }
            }
            _ => return Err(bad()),
        }
    }
    if exprs.len() != names.len() {
        return Err(bad());
    }
    Ok(Mapping {
        base,
        alias,
        cols: names.into_iter().zip(exprs).collect(),
        selection: sel.selection.clone(),
    })
}

impl Mapping {
    fn expr_of(&self, name: &str) -> Option<&ast::Expr> {
        self.cols
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, e)| e)
    }

    /// The base column a view column is, or error 1348 when it is an expression.
    fn column_of(&self, name: &str) -> Result<ast::Ident> {
        match self.expr_of(name) {
            Some(ast::Expr::Identifier(id)) => Ok(id.clone()),
            Some(ast::Expr::CompoundIdentifier(ids)) => {
                Ok(ids.last().cloned().unwrap_or_else(|| ast::Ident::new(name)))
            }
            Some(_) => Err(Error::new(
                codes::ER_NONUPDATEABLE_COLUMN,
                format!("Column '{name}' is not updatable"),
            )),
            None => Err(Error::bad_field(name, "field list")),
        }
    }

    /// Replaces view-column references in `e` (bare, or qualified by `qualifier`) by the
    /// corresponding base expressions.
    fn map_expr(&self, e: &ast::Expr, qualifier: &str) -> ast::Expr {
        let mut e = e.clone();
        let _ = ast::visit_expressions_mut(&mut e, |x| {
            let name = match x {
                ast::Expr::Identifier(id) => Some(id.value.clone()),
                ast::Expr::CompoundIdentifier(ids)
                    if ids.len() == 2 && ids[0].value.eq_ignore_ascii_case(qualifier) =>
                {
                    Some(ids[1].value.clone())
                }
                _ => None,
            };
            if let Some(mapped) = name.as_deref().and_then(|n| self.expr_of(n)) {
                *x = ast::Expr::Nested(Box::new(mapped.clone()));
            }
            ControlFlow::<()>::Continue(())
        });
        e
    }

    fn map_order(&self, order: &[ast::OrderByExpr], qualifier: &str) -> Vec<ast::OrderByExpr> {
        order
            .iter()
            .map(|o| ast::OrderByExpr {
                expr: self.map_expr(&o.expr, qualifier),
                ..o.clone()
            })
            .collect()
    }

    fn and_selection(&self, extra: Option<ast::Expr>) -> Option<ast::Expr> {
        match (self.selection.clone(), extra) {
            (None, e) | (e, None) => e,
            (Some(a), Some(b)) => Some(ast::Expr::BinaryOp {
                left: Box::new(ast::Expr::Nested(Box::new(a))),
                op: ast::BinaryOperator::And,
                right: Box::new(ast::Expr::Nested(Box::new(b))),
            }),
        }
    }

    fn relation(&self) -> ast::TableFactor {
        ast::TableFactor::Table {
            name: self.base.clone(),
            alias: self.alias.clone(),
            args: None,
            with_hints: vec![],
            version: None,
            with_ordinality: false,
            partitions: vec![],
            json_path: None,
            sample: None,
            index_hints: vec![],
        }
    }
}

/// INFORMATION_SCHEMA.VIEWS.IS_UPDATABLE: whether UPDATE through view `t` is rewritten onto a
/// base table.
pub fn is_updatable<E: KvEngine>(s: &Session<E>, t: &TableDef) -> bool {
    definition(t).is_some_and(|v| mapping(s, t, v, "UPDATE").is_ok())
}

/// The view a DML statement targets, if any.
pub fn target_view<E: KvEngine>(
    s: &Session<E>,
    name: &ast::ObjectName,
) -> Result<Option<TableDef>> {
    let (db, t) = crate::ddl::table::qualify(s, name)?;
    if s.temp.lookup(&db, &t).is_some() {
        // the session's temporary table of that name shadows a view
        return Ok(None);
    }
    s.mdl_lock(&db, &t, s.shared_mdl)?;
    Ok(s.storage()
        .get_table(&db, &t)?
        .filter(|d| d.options.view.is_some())
        .map(|d| (*d).clone()))
}

/// The CHECK OPTION conditions a row written through a view must meet, expressed over the
/// columns of the table (or view) the statement has been rewritten onto so far. MySQL's rules:
/// a view WITH CHECK OPTION checks its own WHERE; CASCADED (the default) also those of every
/// view below it, LOCAL only those below that have a CHECK OPTION themselves. A failure names
/// the view the statement wrote through (1369).
#[derive(Debug, Clone)]
pub struct ViewCheck {
    /// `db.view` of the view named in the statement.
    pub name: String,
    /// Conditions (all must be true).
    pub conds: Vec<ast::Expr>,
    /// A CASCADED check option above: every WHERE below counts.
    cascaded: bool,
}

impl ViewCheck {
    /// The conditions as one expression over the base table, its column references unqualified.
    pub fn condition(&self) -> Option<ast::Expr> {
        let mut all = self.conds.iter().cloned().map(|mut e| {
            let _ = ast::visit_expressions_mut(&mut e, |x| {
                if let ast::Expr::CompoundIdentifier(ids) = x {
                    if let Some(last) = ids.last() {
                        *x = ast::Expr::Identifier(last.clone());
                    }
                }
                ControlFlow::<()>::Continue(())
            });
            ast::Expr::Nested(Box::new(e))
        });
        let first = all.next()?;
        Some(all.fold(first, |a, b| ast::Expr::BinaryOp {
            left: Box::new(a),
            op: ast::BinaryOperator::And,
            right: Box::new(b),
        }))
    }

    /// 1369 for this check.
    pub fn failed(&self) -> Error {
        Error::new(
            codes::ER_VIEW_CHECK_FAILED,
            format!("CHECK OPTION failed '{}'", self.name),
        )
    }
}

/// Carries the CHECK OPTION conditions one view level down (`check` is what the levels above
/// gathered, over `t`'s columns).
fn descend_check(
    t: &TableDef,
    v: &ViewDef,
    m: &Mapping,
    check: Option<ViewCheck>,
) -> Option<ViewCheck> {
    let mut c = check.unwrap_or_else(|| ViewCheck {
        name: format!("{}.{}", t.db, t.name),
        conds: vec![],
        cascaded: false,
    });
    c.conds = c.conds.iter().map(|e| m.map_expr(e, &t.name)).collect();
    c.cascaded |= v.check_option == "CASCADED";
    if !v.check_option.is_empty() || c.cascaded {
        if let Some(w) = &m.selection {
            c.conds.push(w.clone());
        }
    }
    Some(c)
}

/// INSERT into an updatable view: the same INSERT on the base table with the columns mapped,
/// and the CHECK OPTION conditions carried down.
pub fn rewrite_insert<E: KvEngine>(
    s: &Session<E>,
    t: &TableDef,
    ins: &ast::Insert,
    check: Option<ViewCheck>,
) -> Result<(ast::Insert, Option<ViewCheck>)> {
    let v = definition(t).ok_or_else(|| Error::internal("not a view"))?;
    let m = mapping(s, t, v, "INSERT")?;
    let check = descend_check(t, v, &m, check);
    let cols: Vec<ast::Ident> = if ins.columns.is_empty() {
        m.cols
            .iter()
            .map(|(n, _)| m.column_of(n))
            .collect::<Result<_>>()?
    } else {
        ins.columns
            .iter()
            .map(|c| {
                let name = c.0.last().map(|p| p.to_string()).unwrap_or_default();
                m.column_of(name.trim_matches('`'))
            })
            .collect::<Result<_>>()?
    };
    let mut out = ins.clone();
    out.table = ast::TableObject::TableName(m.base.clone());
    out.columns = cols
        .into_iter()
        .map(|i| ast::ObjectName::from(vec![i]))
        .collect();
    Ok((out, check))
}

/// UPDATE of an updatable view.
pub fn rewrite_update<E: KvEngine>(
    s: &Session<E>,
    t: &TableDef,
    u: &ast::Update,
    check: Option<ViewCheck>,
) -> Result<(ast::Update, Option<ViewCheck>)> {
    let v = definition(t).ok_or_else(|| Error::internal("not a view"))?;
    let m = mapping(s, t, v, "UPDATE")?;
    let check = descend_check(t, v, &m, check);
    let qualifier = match &u.table.relation {
        ast::TableFactor::Table { alias: Some(a), .. } => a.name.value.clone(),
        _ => t.name.clone(),
    };
    let mut out = u.clone();
    out.table.relation = m.relation();
    for a in out.assignments.iter_mut() {
        if let ast::AssignmentTarget::ColumnName(n) = &a.target {
            let name =
                n.0.last()
                    .map(|p| p.to_string().trim_matches('`').to_string())
                    .unwrap_or_default();
            let base_col = m.column_of(&name)?;
            a.target = ast::AssignmentTarget::ColumnName(ast::ObjectName::from(vec![base_col]));
        }
        a.value = m.map_expr(&a.value, &qualifier);
    }
    out.selection = m.and_selection(u.selection.as_ref().map(|e| m.map_expr(e, &qualifier)));
    out.order_by = m.map_order(&u.order_by, &qualifier);
    Ok((out, check))
}

/// DELETE from an updatable view.
pub fn rewrite_delete<E: KvEngine>(
    s: &Session<E>,
    t: &TableDef,
    d: &ast::Delete,
) -> Result<ast::Delete> {
    let v = definition(t).ok_or_else(|| Error::internal("not a view"))?;
    let m = mapping(s, t, v, "DELETE")?;
    let mut out = d.clone();
    let from = match &mut out.from {
        ast::FromTable::WithFromKeyword(f) | ast::FromTable::WithoutKeyword(f) => f,
    };
    let qualifier = match &from[0].relation {
        ast::TableFactor::Table { alias: Some(a), .. } => a.name.value.clone(),
        _ => t.name.clone(),
    };
    from[0].relation = m.relation();
    out.selection = m.and_selection(d.selection.as_ref().map(|e| m.map_expr(e, &qualifier)));
    out.order_by = m.map_order(&d.order_by, &qualifier);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::session::session::test_support::{err, ok, rows, session};

    #[test]
    fn check_option_rules() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE b (id INT PRIMARY KEY, n INT)");
        ok(
            &mut s,
            "CREATE VIEW lt10 AS SELECT id, n FROM b WHERE n < 10 WITH CHECK OPTION",
        );
        ok(
            &mut s,
            "CREATE VIEW plain AS SELECT id, n FROM b WHERE n < 10",
        );
        ok(
            &mut s,
            "CREATE VIEW loc AS SELECT id, n FROM plain WHERE n > 0 WITH LOCAL CHECK OPTION",
        );
        ok(
            &mut s,
            "CREATE VIEW cas AS SELECT id, n FROM plain WHERE n > 0 WITH CASCADED CHECK OPTION",
        );
        ok(
            &mut s,
            "CREATE VIEW over AS SELECT id, n FROM lt10 WHERE n > 5",
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT TABLE_NAME, CHECK_OPTION FROM information_schema.VIEWS ORDER BY 1"
            ),
            [
                ["cas", "CASCADED"],
                ["loc", "LOCAL"],
                ["lt10", "CASCADED"],
                ["over", "NONE"],
                ["plain", "NONE"]
            ]
            .iter()
            .map(|r| r.iter().map(|v| v.to_string()).collect::<Vec<_>>())
            .collect::<Vec<_>>()
        );
        ok(
            &mut s,
            "CREATE VIEW counts AS SELECT n, COUNT(*) AS c FROM b GROUP BY n",
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT TABLE_NAME, IS_UPDATABLE FROM information_schema.VIEWS \
                 WHERE TABLE_NAME IN ('counts', 'over') ORDER BY 1"
            ),
            vec![
                vec!["counts".to_string(), "NO".into()],
                vec!["over".into(), "YES".into()]
            ]
        );
        ok(&mut s, "DROP VIEW counts");
        ok(&mut s, "INSERT INTO lt10 VALUES (1, 5)");
        assert_eq!(err(&mut s, "INSERT INTO lt10 VALUES (2, 10)"), 1369);
        assert_eq!(err(&mut s, "UPDATE lt10 SET n = 10"), 1369);
        // LOCAL: its own WHERE only (plain has no check option)
        ok(&mut s, "INSERT INTO loc VALUES (3, 20)");
        assert_eq!(err(&mut s, "INSERT INTO loc VALUES (4, 0)"), 1369);
        // CASCADED: the WHERE of every view below as well
        assert_eq!(err(&mut s, "INSERT INTO cas VALUES (4, 20)"), 1369);
        // no check option, but the view below has one
        ok(&mut s, "INSERT INTO over VALUES (5, 1)");
        assert_eq!(err(&mut s, "INSERT INTO over VALUES (6, 11)"), 1369);
        // IGNORE: warning, row skipped
        ok(&mut s, "INSERT IGNORE INTO lt10 VALUES (7, 70), (8, 8)");
        assert_eq!(
            rows(&mut s, "SELECT GROUP_CONCAT(id ORDER BY id) FROM b"),
            vec![vec!["1,3,5,8".to_string()]]
        );
        assert_eq!(
            err(
                &mut s,
                "CREATE VIEW agg AS SELECT n FROM b GROUP BY n WITH CHECK OPTION"
            ),
            1368
        );
        let show = rows(&mut s, "SHOW CREATE VIEW loc");
        assert!(
            show[0][1].ends_with("WHERE n > 0 WITH LOCAL CHECK OPTION"),
            "{show:?}"
        );
    }
}
