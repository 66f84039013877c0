//! Binding one SELECT block: FROM sources and joins, WHERE, GROUP BY / ROLLUP, HAVING, the select
//! list, named windows, ORDER BY and LIMIT, into a [`Plan`](crate::ir::block::Plan).

use std::sync::Arc;

use common::types::column_flags;
use common::{codes, ColumnMeta, Error, Result, Value};
use func::types::ExprType;
use sqlparser::ast::{self};
use storage::catalog::{IndexKind, TableDef};
use storage::engine::KvEngine;
use storage::txn::LockMode;

use crate::bind::expr::Binder;
use crate::bind::source_text::name_const_name;
use crate::bind::source_text::source_text;
use crate::ir::block::IndexHints;
use crate::ir::block::JoinTable;
use crate::ir::block::Plan;
use crate::ir::block::Source;
use crate::ir::expr::AggCall;
use crate::ir::expr::AggFunc;
use crate::ir::expr::CmpOp;
use crate::ir::expr::Expr;
use crate::ir::query::CteBody;
use crate::ir::query::Query;
use crate::ir::scope::Scope;
use crate::ir::scope::ScopeCol;
use crate::session::session::Session;

/// Scope columns of a derived source.
pub(crate) fn derived_scope(alias: &str, q: &Query) -> Vec<ScopeCol> {
    derived_cols(alias, q.columns(), q.types())
}

/// Scope columns named by `columns` with static `types`, under table name `alias`.
pub(crate) fn derived_cols(
    alias: &str,
    columns: &[ColumnMeta],
    types: &[ExprType],
) -> Vec<ScopeCol> {
    columns
        .iter()
        .zip(types)
        .map(|(c, t)| ScopeCol {
            db: String::new(),
            table: alias.to_string(),
            org_table: alias.to_string(),
            name: c.name.clone(),
            ty: None,
            nullable: true,
            flags: 0,
            ety: Some(*t),
        })
        .collect()
}

pub(crate) fn check_unique_alias(scope: &Scope, tname: &str) -> Result<()> {
    if scope.cols.iter().any(|c| c.table == tname) {
        return Err(Error::new(
            codes::ER_NONUNIQ_TABLE,
            format!("Not unique table/alias: '{tname}'"),
        ));
    }
    Ok(())
}

/// Appends one FROM source and its columns.
pub(crate) fn push_source(
    scope: &mut Scope,
    out: &mut Vec<JoinTable>,
    source: Source,
    name: String,
    cols: Vec<ScopeCol>,
) {
    out.push(JoinTable {
        source,
        name,
        offset: scope.cols.len(),
        width: cols.len(),
        left: false,
        on: None,
        hints: IndexHints::NONE,
    });
    scope.cols.extend(cols);
}

/// Binds one FROM factor, appending its columns to `scope` and its sources to `out`.
pub(crate) fn bind_factor<E: KvEngine>(
    s: &Session<E>,
    factor: &ast::TableFactor,
    sql: &str,
    env: &Scope,
    scope: &mut Scope,
    out: &mut Vec<JoinTable>,
) -> Result<()> {
    match factor {
        ast::TableFactor::Table {
            name,
            alias,
            partitions,
            index_hints,
            ..
        } => {
            let alias = alias.as_ref().map(|a| a.name.value.clone());
            // a CTE or a view has no indexes to name
            let no_index_hints =
                |tname: &str| match index_hints.iter().find_map(|h| h.index_names.first()) {
                    Some(n) => Err(Error::new(
                        codes::ER_KEY_DOES_NOT_EXITS,
                        format!("Key '{}' doesn't exist in table '{tname}'", n.value),
                    )),
                    None => Ok(()),
                };
            // a CTE name (unqualified) shadows tables
            if name.0.len() == 1 {
                let n = name.0[0].to_string().trim_matches('`').to_string();
                if let Some(cte) = env.ctes.iter().rev().find(|c| c.name == n) {
                    let tname = alias.unwrap_or(n);
                    check_unique_alias(scope, &tname)?;
                    no_index_hints(&tname)?;
                    let (source, cols) = match &cte.body {
                        CteBody::Query(q) => (
                            Source::Derived(Box::new(q.clone())),
                            derived_scope(&tname, q),
                        ),
                        CteBody::Work { id, columns, types } => {
                            (Source::Work(*id), derived_cols(&tname, columns, types))
                        }
                    };
                    push_source(scope, out, source, tname, cols);
                    return Ok(());
                }
            }
            let t = resolve_table(s, name)?;
            if let Some(view_sql) = crate::ddl::view::definition(&t) {
                let q = crate::ddl::view::plan_view(s, &t, view_sql)?;
                let tname = alias.unwrap_or_else(|| t.name.clone());
                check_unique_alias(scope, &tname)?;
                no_index_hints(&tname)?;
                let mut cols = derived_scope(&tname, &q);
                for c in cols.iter_mut() {
                    c.db = t.db.clone();
                    c.org_table = t.name.clone();
                }
                push_source(scope, out, Source::Derived(Box::new(q)), tname, cols);
                return Ok(());
            }
            let t = if partitions.is_empty() {
                t
            } else {
                let names: Vec<String> = partitions.iter().map(|p| p.value.clone()).collect();
                Arc::new(crate::catalog::partition::select_partitions(&t, &names)?)
            };
            let ts = table_scope(&t, alias.as_deref());
            let tname = ts.cols.first().map(|c| c.table.clone()).unwrap_or_default();
            check_unique_alias(scope, &tname)?;
            let hints = crate::bind::hints::bind_index_hints(&t, &tname, index_hints)?;
            push_source(scope, out, Source::Table(t), tname, ts.cols);
            out.last_mut().expect("pushed").hints = hints;
        }
        ast::TableFactor::Derived {
            subquery, alias, ..
        } => {
            let Some(alias) = alias else {
                return Err(Error::new(
                    codes::ER_DERIVED_MUST_HAVE_ALIAS,
                    "Every derived table must have its own alias",
                ));
            };
            let mut q = crate::bind::query::plan_query(s, subquery, sql, env)?;
            if !alias.columns.is_empty() {
                let names: Vec<String> =
                    alias.columns.iter().map(|c| c.name.value.clone()).collect();
                q.rename_columns(&names)?;
            }
            let tname = alias.name.value.clone();
            check_unique_alias(scope, &tname)?;
            let cols = derived_scope(&tname, &q);
            push_source(scope, out, Source::Derived(Box::new(q)), tname, cols);
        }
        ast::TableFactor::NestedJoin {
            table_with_joins, ..
        } => {
            // (a JOIN b ON ..) is flattened into the enclosing join list
            bind_join_list(s, table_with_joins, sql, env, scope, out)?;
        }
        other => {
            return Err(Error::not_supported(format!(
                "FROM item {}",
                other.to_string().chars().take(40).collect::<String>()
            )))
        }
    }
    Ok(())
}

/// `a = b AND ...` over the columns two sides have in common (USING / NATURAL).
pub(crate) fn using_condition(
    scope: &Scope,
    left_end: usize,
    right: usize,
    names: &[String],
) -> Result<Option<Expr>> {
    let mut cond: Option<Expr> = None;
    for name in names {
        let tname = scope.cols[right].table.clone();
        let r = scope.resolve(&[tname, name.clone()], "from clause")?;
        let l = scope.cols[..left_end]
            .iter()
            .position(|x| x.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::bad_field(name, "from clause"))?;
        let coll = scope.cols[r]
            .ty
            .as_ref()
            .map(|t| t.collation())
            .unwrap_or_default();
        let eq = Expr::Cmp(
            CmpOp::Eq,
            Box::new(Expr::Col(l)),
            Box::new(Expr::Col(r)),
            coll,
        );
        cond = Some(match cond {
            None => eq,
            Some(c) => Expr::And(Box::new(c), Box::new(eq)),
        });
    }
    Ok(cond)
}

/// Records the columns named by a USING / NATURAL join as coalesced: `*` shows the left copy
/// (first) and not the right one.
fn coalesce_using(scope: &mut Scope, left_end: usize, names: &[String]) {
    for name in names {
        let kept = scope.cols[..left_end]
            .iter()
            .position(|x| x.name.eq_ignore_ascii_case(name));
        let gone = scope.cols[left_end..]
            .iter()
            .position(|x| x.name.eq_ignore_ascii_case(name))
            .map(|p| p + left_end);
        if let (Some(kept), Some(gone)) = (kept, gone) {
            scope.coalesced.push((kept, gone));
        }
    }
}

pub(crate) fn bind_join_list<E: KvEngine>(
    s: &Session<E>,
    twj: &ast::TableWithJoins,
    sql: &str,
    env: &Scope,
    scope: &mut Scope,
    out: &mut Vec<JoinTable>,
) -> Result<()> {
    let first = out.len();
    bind_factor(s, &twj.relation, sql, env, scope, out)?;
    for j in &twj.joins {
        enum Kind {
            Inner,
            Left,
            Right,
        }
        let (kind, constraint) = match &j.join_operator {
            ast::JoinOperator::Join(c)
            | ast::JoinOperator::Inner(c)
            | ast::JoinOperator::CrossJoin(c)
            | ast::JoinOperator::StraightJoin(c) => (Kind::Inner, c),
            ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (Kind::Left, c),
            ast::JoinOperator::Right(c) | ast::JoinOperator::RightOuter(c) => (Kind::Right, c),
            other => {
                return Err(Error::not_supported(
                    format!("{other:?}")
                        .split('(')
                        .next()
                        .unwrap_or("join")
                        .to_string()
                        + " join",
                ))
            }
        };
        let left_end = scope.cols.len();
        let before = out.len();
        bind_factor(s, &j.relation, sql, env, scope, out)?;
        if out.len() != before + 1 && !matches!(kind, Kind::Inner) {
            return Err(Error::not_supported("outer join with a parenthesised join"));
        }
        let common: Option<Vec<String>> = match constraint {
            ast::JoinConstraint::Using(cols) => Some(
                cols.iter()
                    .map(|c| c.to_string().trim_matches('`').to_string())
                    .collect(),
            ),
            ast::JoinConstraint::Natural => Some(
                scope.cols[left_end..]
                    .iter()
                    .filter(|c| {
                        scope.cols[..left_end]
                            .iter()
                            .any(|l| l.name.eq_ignore_ascii_case(&c.name))
                    })
                    .map(|c| c.name.clone())
                    .collect(),
            ),
            _ => None,
        };
        let on = match (constraint, &common) {
            (ast::JoinConstraint::On(e), _) => Some(Binder::new(scope, s, "on clause").bind(e)?),
            (_, Some(names)) => {
                let cond = using_condition(scope, left_end, left_end, names)?;
                if !matches!(kind, Kind::Right) {
                    coalesce_using(scope, left_end, names);
                }
                cond
            }
            _ => None,
        };
        match kind {
            Kind::Inner => {
                if let Some(on) = on {
                    let last = out.len() - 1;
                    out[last].on = Some(match out[last].on.take() {
                        Some(prev) => Expr::And(Box::new(prev), Box::new(on)),
                        None => on,
                    });
                }
            }
            Kind::Left => {
                let last = out.len() - 1;
                out[last].left = true;
                out[last].on = on;
            }
            Kind::Right => {
                // a RIGHT JOIN b == b LEFT JOIN a: read b first, null-extend a
                if out.len() - first != 2 {
                    return Err(Error::not_supported(
                        "RIGHT JOIN whose left side is itself a join",
                    ));
                }
                let b = out.pop().expect("right table");
                let mut a = out.pop().expect("left table");
                a.left = true;
                a.on = on;
                out.push(b);
                out.push(a);
            }
        }
    }
    Ok(())
}

/// Binds the FROM clause of a block: its sources (in written order, RIGHT JOINs turned into
/// LEFT JOINs) and the scope of their columns.
pub(crate) fn bind_from<E: KvEngine>(
    s: &Session<E>,
    from: &[ast::TableWithJoins],
    sql: &str,
    env: &Scope,
) -> Result<(Vec<JoinTable>, Scope)> {
    let mut scope = Scope {
        cols: vec![],
        outer: env.outer.clone(),
        ctes: env.ctes.clone(),
        coalesced: vec![],
    };
    let mut out = Vec::new();
    for twj in from {
        // `FROM DUAL` (unquoted, alone): no table
        if let ast::TableFactor::Table {
            name, alias: None, ..
        } = &twj.relation
        {
            if from.len() == 1
                && twj.joins.is_empty()
                && name.0.len() == 1
                && name.0[0].as_ident().is_some_and(|i| {
                    i.quote_style.is_none() && i.value.eq_ignore_ascii_case("dual")
                })
            {
                continue;
            }
        }
        bind_join_list(s, twj, sql, env, &mut scope, &mut out)?;
    }
    Ok((out, scope))
}

/// A text column of a SHOW-like result. Columns start NOT NULL; SHOW's `result` clears the
/// flag on columns whose rows contain NULL (the `mariadb` client pads nullable columns to 4
/// wide).
pub(crate) fn str_meta(name: &str, len: u32) -> ColumnMeta {
    let mut m = meta_for_type(name, &ExprType::Str { max_chars: len });
    m.flags |= common::types::column_flags::NOT_NULL;
    m
}

/// Column metadata for a static expression type.
pub fn meta_for_type(name: &str, t: &ExprType) -> ColumnMeta {
    use common::types::field_type as ft;
    let (field_type, length, decimals, charset, mut flags) = match t {
        ExprType::Null => (ft::NULL, 0, 0, 63, 0),
        ExprType::Int => (ft::LONGLONG, 21, 0, 63, column_flags::NUM),
        ExprType::UInt => (
            ft::LONGLONG,
            21,
            0,
            63,
            column_flags::NUM | column_flags::UNSIGNED,
        ),
        ExprType::Double => (ft::DOUBLE, 23, 31, 63, column_flags::NUM),
        ExprType::Decimal { precision, scale } => (
            ft::NEWDECIMAL,
            *precision as u32 + 2,
            *scale,
            63,
            column_flags::NUM,
        ),
        ExprType::Str { max_chars } => (ft::VAR_STRING, max_chars.saturating_mul(4), 31, 255, 0),
        ExprType::Bytes { max_len } => (ft::VAR_STRING, *max_len, 31, 63, column_flags::BINARY),
        ExprType::Date => (ft::DATE, 10, 0, 63, column_flags::BINARY),
        ExprType::DateTime { fsp } => (
            ft::DATETIME,
            19 + if *fsp > 0 { *fsp as u32 + 1 } else { 0 },
            *fsp,
            63,
            column_flags::BINARY,
        ),
        ExprType::Time { fsp } => (
            ft::TIME,
            10 + if *fsp > 0 { *fsp as u32 + 1 } else { 0 },
            *fsp,
            63,
            column_flags::BINARY,
        ),
    };
    if matches!(t, ExprType::Int | ExprType::UInt) {
        flags |= column_flags::BINARY;
    }
    ColumnMeta {
        name: name.to_string(),
        charset,
        length,
        field_type,
        flags,
        decimals,
        ..Default::default()
    }
}

/// Builds the scope for a table (columns at offsets 0..n).
pub fn table_scope(t: &TableDef, alias: Option<&str>) -> Scope {
    let mut cols = Vec::with_capacity(t.columns.len());
    for (i, c) in t.columns.iter().enumerate() {
        let mut flags = 0;
        if !c.nullable {
            flags |= column_flags::NOT_NULL;
        }
        if c.auto_increment {
            flags |= column_flags::AUTO_INCREMENT;
        }
        for (ino, idx) in t.indexes.iter().enumerate() {
            if t.hidden_pk && ino == 0 {
                continue;
            }
            if idx.columns.first().is_some_and(|ic| ic.col == i) {
                flags |= match idx.kind {
                    IndexKind::Primary => column_flags::PRI_KEY,
                    IndexKind::Unique => column_flags::UNIQUE_KEY,
                    IndexKind::Normal => column_flags::MULTIPLE_KEY,
                };
            } else if idx.columns.iter().any(|ic| ic.col == i) && idx.kind == IndexKind::Primary {
                flags |= column_flags::PRI_KEY;
            }
        }
        cols.push(ScopeCol {
            db: t.db.clone(),
            table: alias.unwrap_or(&t.name).to_string(),
            org_table: t.name.clone(),
            name: c.name.clone(),
            ty: Some(c.ty.clone()),
            nullable: c.nullable,
            flags,
            ety: None,
        });
    }
    Scope {
        cols,
        ..Default::default()
    }
}

pub(crate) fn column_meta(scope: &Scope, i: usize, alias: &str) -> ColumnMeta {
    let c = &scope.cols[i];
    let mut m = match (&c.ty, &c.ety) {
        (Some(t), _) => ColumnMeta::for_type(&c.name, t),
        (None, Some(t)) => meta_for_type(&c.name, t),
        (None, None) => meta_for_type(&c.name, &ExprType::Str { max_chars: 255 }),
    };
    m.flags |= c.flags;
    m.schema = c.db.clone();
    m.table = c.table.clone();
    m.org_table = c.org_table.clone();
    m.org_name = c.name.clone();
    m.name = alias.to_string();
    m
}

/// Resolves a table reference to its definition.
pub fn resolve_table<E: KvEngine>(s: &Session<E>, name: &ast::ObjectName) -> Result<Arc<TableDef>> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|p| p.to_string().trim_matches('`').to_string())
        .collect();
    let (db, tbl) = match parts.as_slice() {
        [t] => (s.db.clone().ok_or_else(Error::no_db)?, t.clone()),
        [d, t] => (d.clone(), t.clone()),
        _ => return Err(Error::parse(name.to_string())),
    };
    if let Some(t) = crate::show::show::system_table(s, &db, &tbl)? {
        // its rows are a snapshot of the moment: a plan holding them is not reusable
        s.note_plan_volatile();
        return Ok(t);
    }
    // a TEMPORARY table of the session shadows a base table of the same name; the lock (on
    // its internal name) comes first, so the definition read below stays current until the
    // lock goes
    let key = s.table_key(&db, &tbl);
    s.mdl_lock(&db, key, s.shared_mdl)?;
    s.note_plan_table(&db, key);
    s.table_def(&db, &tbl)?
        .ok_or_else(|| Error::no_such_table(&db, &tbl))
}

/// Binds one SELECT block; `env` carries the enclosing scope (for correlated references)
/// and the visible CTEs.
#[allow(clippy::too_many_arguments)]
pub fn plan_block<E: KvEngine>(
    s: &Session<E>,
    sel: &ast::Select,
    order_by: Option<&ast::OrderBy>,
    limit_clause: &Option<ast::LimitClause>,
    locks: &[ast::LockClause],
    sql: &str,
    env: &Scope,
) -> Result<Plan> {
    let expanded;
    let (sel, order_by) = if sel.named_window.is_empty() {
        (sel, order_by)
    } else {
        expanded = expand_named_windows(sel, order_by)?;
        (&expanded.0, expanded.1.as_ref())
    };
    let (from, scope) = bind_from(s, &sel.from, sql, env)?;
    let ncols = scope.cols.len();
    let mut aggs: Vec<AggCall> = Vec::new();
    // WHERE
    let filter = match &sel.selection {
        Some(w) => Some(
            Binder {
                scope: &scope,
                env: s,
                aggs: None,
                clause: "where clause",
                agg_base: ncols,
                aliases: None,
            }
            .bind(w)?,
        ),
        None => None,
    };
    let filter = filter
        .map(|f| crate::bind::gcol_subst::substitute(s, &from, f))
        .transpose()?;
    // select list
    let mut items = Vec::new();
    let mut columns = Vec::new();
    let mut aliases: Vec<(String, Expr)> = Vec::new();
    for item in &sel.projection {
        match item {
            ast::SelectItem::Wildcard(_) => {
                if scope.cols.is_empty() {
                    return Err(Error::new(codes::ER_NO_TABLES_USED, "No tables used"));
                }
                for i in scope.star_columns(ncols) {
                    if is_hidden_col(&scope.cols[i]) {
                        continue;
                    }
                    items.push(Expr::Col(i));
                    columns.push(column_meta(&scope, i, &scope.cols[i].name));
                }
            }
            ast::SelectItem::QualifiedWildcard(kind, _) => {
                // `t.*` or `db.t.*`
                let parts = match kind {
                    ast::SelectItemQualifiedWildcardKind::ObjectName(n) => {
                        crate::parse::obj_parts(n)
                    }
                    ast::SelectItemQualifiedWildcardKind::Expr(e) => vec![e.to_string()],
                };
                let (db, q) = match parts.as_slice() {
                    [.., d, t] => (Some(d.as_str()), t.clone()),
                    [t] => (None, t.clone()),
                    [] => (None, String::new()),
                };
                let mut any = false;
                for i in 0..ncols {
                    let c = &scope.cols[i];
                    if c.table == q && db.is_none_or(|d| c.db == d) && !is_hidden_col(c) {
                        items.push(Expr::Col(i));
                        columns.push(column_meta(&scope, i, &scope.cols[i].name));
                        any = true;
                    }
                }
                if !any {
                    return Err(Error::new(
                        codes::ER_BAD_TABLE_ERROR,
                        format!("Unknown table '{q}'"),
                    ));
                }
            }
            ast::SelectItem::UnnamedExpr(e) | ast::SelectItem::ExprWithAlias { expr: e, .. } => {
                let bound = Binder {
                    scope: &scope,
                    env: s,
                    aggs: Some(&mut aggs),
                    clause: "field list",
                    agg_base: ncols,
                    aliases: None,
                }
                .bind(e)?;
                let name = match item {
                    ast::SelectItem::ExprWithAlias { alias, .. } => alias.value.clone(),
                    _ => match e {
                        ast::Expr::Identifier(id) => id.value.clone(),
                        // `@@global.x` is named as written, as MySQL names it
                        ast::Expr::CompoundIdentifier(ids)
                            if ids.first().is_some_and(|i| i.value.starts_with("@@")) =>
                        {
                            source_text(sql, e).unwrap_or_else(|| e.to_string())
                        }
                        ast::Expr::CompoundIdentifier(ids) => {
                            ids.last().map(|i| i.value.clone()).unwrap_or_default()
                        }
                        _ => name_const_name(e)
                            .or_else(|| source_text(sql, e))
                            .unwrap_or_else(|| e.to_string()),
                    },
                };
                let meta = match &bound {
                    Expr::Col(i) => column_meta(&scope, *i, &name),
                    other => {
                        let t = crate::bind::expr::expr_type(other, &scope, &aggs, ncols);
                        let mut m = meta_for_type(&name, &t);
                        let never_null = match other {
                            Expr::Lit(v) => !v.is_null(),
                            // COUNT and the ranking window functions never return NULL
                            Expr::Agg(i) => aggs.get(i - ncols).is_some_and(|a| {
                                matches!(
                                    a.func,
                                    AggFunc::Count
                                        | AggFunc::RowNumber
                                        | AggFunc::Rank
                                        | AggFunc::DenseRank
                                        | AggFunc::PercentRank
                                        | AggFunc::CumeDist
                                        | AggFunc::Ntile
                                )
                            }),
                            _ => false,
                        };
                        if never_null {
                            m.flags |= column_flags::NOT_NULL;
                        }
                        m
                    }
                };
                aliases.push((name, bound.clone()));
                items.push(bound);
                columns.push(meta);
            }
            _ => return Err(Error::not_supported(item.to_string())),
        }
    }
    // GROUP BY
    let mut group_by = Vec::new();
    let mut rollup = false;
    if let ast::GroupByExpr::Expressions(exprs, modifiers) = &sel.group_by {
        for m in modifiers {
            match m {
                ast::GroupByWithModifier::Rollup => rollup = true,
                other => return Err(Error::not_supported(format!("GROUP BY ... {other}"))),
            }
        }
        for g in exprs {
            group_by.push(bind_order_expr(
                s,
                &scope,
                &items,
                &aliases,
                g,
                ncols,
                &mut aggs,
                "group statement",
            )?);
        }
    } else {
        return Err(Error::not_supported("GROUP BY ALL"));
    }
    // HAVING: a select-list alias wins over a FROM column of the same name, unless GROUP BY
    // names that column
    let having_aliases: Vec<(String, Expr)> = match &sel.group_by {
        ast::GroupByExpr::Expressions(exprs, _) => aliases
            .iter()
            .filter(|(a, _)| {
                !exprs.iter().any(
                    |g| matches!(g, ast::Expr::Identifier(id) if id.value.eq_ignore_ascii_case(a)),
                )
            })
            .cloned()
            .collect(),
        _ => aliases.clone(),
    };
    let having = match &sel.having {
        Some(h) => Some(
            Binder {
                scope: &scope,
                env: s,
                aggs: Some(&mut aggs),
                clause: "having clause",
                agg_base: ncols,
                aliases: Some(&having_aliases),
            }
            .bind(h)?,
        ),
        None => None,
    };
    // ORDER BY
    let mut order = Vec::new();
    if let Some(ob) = order_by {
        if let ast::OrderByKind::Expressions(list) = &ob.kind {
            for o in list {
                let e = bind_order_expr(
                    s,
                    &scope,
                    &items,
                    &aliases,
                    &o.expr,
                    ncols,
                    &mut aggs,
                    "order clause",
                )?;
                order.push((e, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
            }
        }
    }
    resolve_grouping(&mut aggs, &group_by, rollup)?;
    let grouped = !group_by.is_empty() || aggs.iter().any(|a| a.window.is_none());
    let (limit, offset) = bind_limit_clause(s, limit_clause)?;
    let (lock, lock_of, lock_wait) = bind_locks(locks, &from)?;
    let mut into_vars = Vec::new();
    if let Some(into) = &sel.into {
        for t in &into.targets {
            into_vars.push(t.to_string());
        }
    }
    if grouped && s.mode("ONLY_FULL_GROUP_BY") {
        check_full_group_by(&scope, &from, filter.as_ref(), &group_by, &items, &order)?;
    }
    let types = items
        .iter()
        .map(|e| crate::bind::expr::expr_type(e, &scope, &aggs, ncols))
        .collect();
    let straight = sel
        .select_modifiers
        .as_ref()
        .is_some_and(|m| m.straight_join)
        || sel.from.iter().any(|t| {
            t.joins
                .iter()
                .any(|j| matches!(j.join_operator, ast::JoinOperator::StraightJoin(_)))
        });
    Ok(Plan {
        rollup,
        from,
        straight,
        scope,
        filter,
        aggs,
        group_by,
        grouped,
        having,
        items,
        columns,
        types,
        order,
        distinct: matches!(sel.distinct, Some(ast::Distinct::Distinct)),
        limit,
        offset,
        lock,
        lock_of,
        lock_wait,
        into_vars,
    })
}

/// Maps the arguments of each GROUPING() call to their GROUP BY positions (3602 for one that
/// isn't a GROUP BY expression; 1111 without WITH ROLLUP, as MySQL).
pub(crate) fn resolve_grouping(
    aggs: &mut [AggCall],
    group_by: &[Expr],
    rollup: bool,
) -> Result<()> {
    let keys: Vec<String> = group_by.iter().map(|g| format!("{g:?}")).collect();
    for a in aggs.iter_mut().filter(|a| a.func == AggFunc::Grouping) {
        if !rollup {
            return Err(Error::new(
                codes::ER_INVALID_GROUP_FUNC_USE,
                "Invalid use of group function",
            ));
        }
        let Some(Expr::Func(_, args)) = &a.arg else {
            continue;
        };
        let mut positions = Vec::with_capacity(args.len());
        for (j, e) in args.iter().enumerate() {
            let text = format!("{e:?}");
            let pos = keys.iter().position(|k| *k == text).ok_or_else(|| {
                Error::new(
                    codes::ER_FIELD_IN_GROUPING_NOT_GROUP_BY,
                    format!(
                        "Argument #{} of GROUPING function is not in GROUP BY",
                        j + 1
                    ),
                )
            })?;
            positions.push(Expr::Lit(Value::Int(pos as i64)));
        }
        a.arg = Some(Expr::Func(crate::ir::expr::GROUPING_ARGS.into(), positions));
    }
    Ok(())
}

/// GROUPING()'s value in a row grouped by the first `nkeys` GROUP BY expressions: bit per
/// argument (first argument highest), set where that argument's expression is rolled up.
pub(crate) fn grouping_value(a: &AggCall, nkeys: usize) -> Value {
    let Some(Expr::Func(_, positions)) = &a.arg else {
        return Value::Int(0);
    };
    let mut v = 0i64;
    for p in positions {
        let pos = match p {
            Expr::Lit(Value::Int(i)) => *i as usize,
            _ => 0,
        };
        v = (v << 1) | (pos >= nkeys) as i64;
    }
    Value::Int(v)
}

/// A block reading the join `tables` filtered by `selection`, producing full joined rows under
/// exclusive locks (the read side of multi-table UPDATE / DELETE).
pub(crate) fn join_plan<E: KvEngine>(
    s: &Session<E>,
    tables: &[ast::TableWithJoins],
    selection: Option<&ast::Expr>,
) -> Result<Plan> {
    let (from, scope) = bind_from(s, tables, "", &Scope::default())?;
    let filter = selection
        .map(|w| Binder::new(&scope, s, "where clause").bind(w))
        .transpose()?;
    let width = scope.cols.len();
    Ok(Plan {
        rollup: false,
        from,
        straight: false,
        scope,
        filter,
        aggs: vec![],
        group_by: vec![],
        grouped: false,
        having: None,
        items: (0..width).map(Expr::Col).collect(),
        columns: vec![],
        types: vec![],
        order: vec![],
        distinct: false,
        limit: None,
        offset: None,
        lock: LockMode::Exclusive,
        lock_of: vec![],
        lock_wait: Default::default(),
        into_vars: vec![],
    })
}

/// sql_mode ONLY_FULL_GROUP_BY: every column a grouped query outputs (or orders by) outside an
/// aggregate must be a GROUP BY expression or functionally dependent on the GROUP BY columns —
/// through a table's primary key or unique NOT NULL key, or a WHERE equality with a constant.
/// Errors 1055 (with GROUP BY) and 1140 (aggregates without GROUP BY), as MySQL 8.
pub(crate) fn check_full_group_by(
    scope: &Scope,
    from: &[JoinTable],
    filter: Option<&Expr>,
    group_by: &[Expr],
    items: &[Expr],
    order: &[(Expr, bool)],
) -> Result<()> {
    let key = |e: &Expr| format!("{e:?}");
    let group_keys: Vec<String> = group_by.iter().map(key).collect();
    let mut fixed: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for g in group_by {
        if let Expr::Col(c) = g {
            fixed.insert(*c);
        }
    }
    for c in filter.map(crate::ir::expr::conjuncts).unwrap_or_default() {
        if let Expr::Cmp(CmpOp::Eq, a, b, _) = c {
            match (&**a, &**b) {
                (Expr::Col(x), k) | (k, Expr::Col(x)) if k.is_const() => {
                    fixed.insert(*x);
                }
                _ => {}
            }
        }
    }
    // a table whose primary (or unique NOT NULL) key is fixed fixes all its columns
    loop {
        let before = fixed.len();
        for jt in from {
            if let Source::Table(t) = &jt.source {
                let key_fixed = t.indexes.iter().enumerate().any(|(ino, idx)| {
                    !(t.hidden_pk && ino == 0)
                        && matches!(idx.kind, IndexKind::Primary | IndexKind::Unique)
                        && idx
                            .columns
                            .iter()
                            .all(|ic| !t.columns[ic.col].nullable || idx.kind == IndexKind::Primary)
                        && idx.columns.iter().all(|ic| {
                            ic.prefix_len.is_none() && fixed.contains(&(jt.offset + ic.col))
                        })
                });
                if key_fixed {
                    fixed.extend(jt.offset..jt.offset + jt.width);
                }
            }
        }
        if fixed.len() == before {
            break;
        }
    }
    let offending = |e: &Expr| -> Option<usize> {
        if group_keys.contains(&key(e)) {
            return None;
        }
        // ANY_VALUE(x) exempts x (MySQL)
        e.rewrite(&mut |x| match x {
            Expr::Func(f, _) if f.as_str() == "ANY_VALUE" => Some(Expr::Lit(Value::Null)),
            _ => None,
        })
        .columns()
        .into_iter()
        .find(|c| *c < scope.cols.len() && !fixed.contains(c))
    };
    let name = |c: usize| {
        let sc = &scope.cols[c];
        if sc.db.is_empty() {
            format!("{}.{}", sc.table, sc.name)
        } else {
            format!("{}.{}.{}", sc.db, sc.table, sc.name)
        }
    };
    for (i, e) in items.iter().enumerate() {
        if let Some(c) = offending(e) {
            return Err(if group_by.is_empty() {
                Error::new(
                    codes::ER_MIX_OF_GROUP_FUNC_AND_FIELDS,
                    format!(
                        "In aggregated query without GROUP BY, expression #{} of SELECT list contains nonaggregated column '{}'; this is incompatible with sql_mode=only_full_group_by",
                        i + 1,
                        name(c)
                    ),
                )
            } else {
                Error::new(
                    codes::ER_WRONG_FIELD_WITH_GROUP,
                    format!(
                        "Expression #{} of SELECT list is not in GROUP BY clause and contains nonaggregated column '{}' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by",
                        i + 1,
                        name(c)
                    ),
                )
            });
        }
    }
    if !group_by.is_empty() {
        for (i, (e, _)) in order.iter().enumerate() {
            if items.iter().any(|it| key(it) == key(e)) {
                continue;
            }
            if let Some(c) = offending(e) {
                return Err(Error::new(
                    codes::ER_WRONG_FIELD_WITH_GROUP,
                    format!(
                        "Expression #{} of ORDER BY clause is not in GROUP BY clause and contains nonaggregated column '{}' which is not functionally dependent on columns in GROUP BY clause; this is incompatible with sql_mode=only_full_group_by",
                        i + 1,
                        name(c)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `WINDOW w AS (...)`: a copy of the block (and its ORDER BY) where `OVER w` and
/// `OVER (w ORDER BY ...)` are replaced by the window specifications they name.
pub(crate) fn expand_named_windows(
    sel: &ast::Select,
    order_by: Option<&ast::OrderBy>,
) -> Result<(ast::Select, Option<ast::OrderBy>)> {
    let defs: Vec<(String, ast::NamedWindowExpr)> = sel
        .named_window
        .iter()
        .map(|d| (d.0.value.to_ascii_lowercase(), d.1.clone()))
        .collect();
    let lookup = |name: &str| -> Result<ast::WindowSpec> {
        let mut n = name.to_ascii_lowercase();
        for _ in 0..=defs.len() {
            match defs.iter().find(|(d, _)| *d == n).map(|(_, e)| e) {
                Some(ast::NamedWindowExpr::WindowSpec(w)) => {
                    // a definition may itself build on another window
                    if let Some(base) = &w.window_name {
                        let mut b = lookup_base(&defs, &base.value)?;
                        if !w.order_by.is_empty() {
                            b.order_by = w.order_by.clone();
                        }
                        if w.window_frame.is_some() {
                            b.window_frame = w.window_frame.clone();
                        }
                        return Ok(b);
                    }
                    return Ok(w.clone());
                }
                Some(ast::NamedWindowExpr::NamedWindow(other)) => {
                    n = other.value.to_ascii_lowercase()
                }
                None => break,
            }
        }
        Err(Error::new(
            codes::ER_WINDOW_NO_SUCH_WINDOW,
            format!("Window name '{name}' is not defined."),
        ))
    };
    fn lookup_base(defs: &[(String, ast::NamedWindowExpr)], name: &str) -> Result<ast::WindowSpec> {
        match defs
            .iter()
            .find(|(d, _)| d.eq_ignore_ascii_case(name))
            .map(|(_, e)| e)
        {
            Some(ast::NamedWindowExpr::WindowSpec(w)) if w.window_name.is_none() => Ok(w.clone()),
            Some(ast::NamedWindowExpr::NamedWindow(o)) => lookup_base(defs, &o.value),
            _ => Err(Error::new(
                codes::ER_WINDOW_NO_SUCH_WINDOW,
                format!("Window name '{name}' is not defined."),
            )),
        }
    }
    let mut err = None;
    let mut fix = |e: &mut ast::Expr| {
        if let ast::Expr::Function(f) = e {
            let spec = match &f.over {
                Some(ast::WindowType::NamedWindow(n)) => Some(lookup(&n.value)),
                Some(ast::WindowType::WindowSpec(w)) => w.window_name.as_ref().map(|n| {
                    lookup(&n.value).map(|mut b| {
                        if !w.order_by.is_empty() {
                            b.order_by = w.order_by.clone();
                        }
                        if w.window_frame.is_some() {
                            b.window_frame = w.window_frame.clone();
                        }
                        b.window_name = None;
                        b
                    })
                }),
                None => None,
            };
            match spec {
                Some(Ok(w)) => f.over = Some(ast::WindowType::WindowSpec(w)),
                Some(Err(x)) => err = Some(x),
                None => {}
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    };
    let mut sel = sel.clone();
    sel.named_window.clear();
    let _ = ast::visit_expressions_mut(&mut sel, &mut fix);
    let mut order_by = order_by.cloned();
    if let Some(ob) = order_by.as_mut() {
        let _ = ast::visit_expressions_mut(ob, &mut fix);
    }
    match err {
        Some(e) => Err(e),
        None => Ok((sel, order_by)),
    }
}

/// Binds LIMIT / OFFSET (constants or parameters).
pub fn bind_limit_clause<E: KvEngine>(
    s: &Session<E>,
    clause: &Option<ast::LimitClause>,
) -> Result<(Option<Expr>, Option<Expr>)> {
    let bind_limit = |e: &ast::Expr| {
        limit_operand(e)?;
        Binder::new(&Scope::default(), s, "limit").bind(e)
    };
    Ok(match clause {
        None => (None, None),
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => (
            limit.as_ref().map(bind_limit).transpose()?,
            offset.as_ref().map(|o| bind_limit(&o.value)).transpose()?,
        ),
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            (Some(bind_limit(limit)?), Some(bind_limit(offset)?))
        }
    })
}

/// The locking clauses of a block: the strongest mode, the per-table modes of `OF` lists
/// (3568 for a name that is no table of the block, 3569 for one named twice) and the
/// NOWAIT / SKIP LOCKED policy.
#[allow(clippy::type_complexity)]
fn bind_locks(
    locks: &[ast::LockClause],
    from: &[crate::ir::block::JoinTable],
) -> Result<(
    LockMode,
    Vec<(String, LockMode)>,
    storage::txn::lock::WaitPolicy,
)> {
    use storage::txn::lock::WaitPolicy;
    let mut lock = LockMode::None;
    let mut of: Vec<(String, LockMode)> = Vec::new();
    let mut wait = WaitPolicy::Wait;
    for l in locks {
        let mode = match l.lock_type {
            ast::LockType::Update => LockMode::Exclusive,
            ast::LockType::Share => LockMode::Shared,
        };
        if mode == LockMode::Exclusive || lock == LockMode::None {
            lock = mode;
        }
        match l.nonblock {
            Some(ast::NonBlock::Nowait) => wait = WaitPolicy::NoWait,
            Some(ast::NonBlock::SkipLocked) => wait = WaitPolicy::SkipLocked,
            None => {}
        }
        if let Some(n) = &l.of {
            let name = crate::parse::obj_parts(n).pop().unwrap_or_default();
            if !from.iter().any(|t| t.name == name) {
                return Err(Error::new(
                    codes::ER_UNRESOLVED_TABLE_LOCK,
                    format!(
                        "Unresolved name '{name}' for {} clause",
                        if mode == LockMode::Exclusive {
                            "FOR UPDATE"
                        } else {
                            "FOR SHARE"
                        }
                    ),
                ));
            }
            if of.iter().any(|(t, _)| *t == name) {
                return Err(Error::new(
                    codes::ER_DUPLICATE_TABLE_LOCK,
                    format!("Table '{name}' appears in multiple locking clauses."),
                ));
            }
            of.push((name, mode));
        }
    }
    if !of.is_empty() && locks.iter().any(|l| l.of.is_none()) {
        // a clause without OF covers the tables no other clause names
        let rest = if locks
            .iter()
            .any(|l| l.of.is_none() && l.lock_type == ast::LockType::Update)
        {
            LockMode::Exclusive
        } else {
            LockMode::Shared
        };
        for t in from {
            if !of.iter().any(|(n, _)| *n == t.name) {
                of.push((t.name.clone(), rest));
            }
        }
    }
    Ok((lock, of, wait))
}

/// The hidden column of a functional key part, which `*` leaves out.
fn is_hidden_col(c: &ScopeCol) -> bool {
    c.name.starts_with(crate::ddl::functional::HIDDEN_PREFIX)
}

/// MySQL's grammar takes only an integer, a `?` or (in a stored program) a local variable
/// as a LIMIT or OFFSET operand: `LIMIT 1+1` or `LIMIT @n` is a syntax error (1064).
fn limit_operand(e: &ast::Expr) -> Result<()> {
    match e {
        ast::Expr::Value(v)
            if matches!(v.value, ast::Value::Number(..) | ast::Value::Placeholder(_)) =>
        {
            Ok(())
        }
        ast::Expr::Identifier(i) if !i.value.starts_with('@') => Ok(()),
        other => Err(Error::parse(other)),
    }
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn bind_order_expr<E: KvEngine>(
    s: &Session<E>,
    scope: &Scope,
    items: &[Expr],
    aliases: &[(String, Expr)],
    e: &ast::Expr,
    ncols: usize,
    aggs: &mut Vec<AggCall>,
    clause: &'static str,
) -> Result<Expr> {
    if let ast::Expr::Value(v) = e {
        if let ast::Value::Number(n, _) = &v.value {
            let pos: usize = n.parse().map_err(|_| Error::parse(n))?;
            if pos == 0 || pos > items.len() {
                return Err(Error::bad_field(n, clause));
            }
            return Ok(items[pos - 1].clone());
        }
    }
    let mut b = Binder {
        scope,
        env: s,
        aggs: Some(aggs),
        clause,
        agg_base: ncols,
        aliases: Some(aliases),
    };
    let bound = b.bind(e)?;
    // JSON values sort as JSON (numbers numerically, by type precedence), as MySQL's ORDER BY
    Ok(if clause == "order clause" && b.is_json_typed(&bound) {
        b.json_key(bound, e)
    } else {
        bound
    })
}

/// Result columns of a query (for COM_STMT_PREPARE).
pub fn describe<E: KvEngine>(
    s: &mut Session<E>,
    q: &ast::Query,
    sql: &str,
) -> Result<Vec<ColumnMeta>> {
    Ok(crate::bind::query::plan(s, q, sql)?.columns().to_vec())
}
