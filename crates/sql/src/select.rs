//! SELECT: binding a single-table (or table-less) query block into a plan, choosing an access
//! path, then filter → group/aggregate → having → order → distinct → limit → project.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::Ordering as AtOrd;
use std::sync::Arc;

use common::types::column_flags;
use common::{codes, ColumnMeta, Error, Result, Value};
use func::types::ExprType;
use sqlparser::ast::{self, Spanned};
use storage::catalog::{IndexKind, TableDef};
use storage::engine::KvEngine;
use storage::txn::{IndexRange, LockMode};
use storage::Handle;

use crate::access;
use crate::expr::{self, AggCall, AggFunc, Binder, EvalCtx, Expr, Scope, ScopeCol};
use crate::session::{Output, Session};

/// A bound single-block SELECT.
pub struct Plan {
    /// The table read (None for SELECT without FROM).
    pub table: Option<Arc<TableDef>>,
    /// Columns visible to expressions.
    pub scope: Scope,
    /// WHERE.
    pub filter: Option<Expr>,
    /// Aggregate calls (results appended to the row at `scope.cols.len()`).
    pub aggs: Vec<AggCall>,
    /// GROUP BY expressions.
    pub group_by: Vec<Expr>,
    /// True if the query aggregates (GROUP BY or aggregate functions).
    pub grouped: bool,
    /// HAVING.
    pub having: Option<Expr>,
    /// Output expressions.
    pub items: Vec<Expr>,
    /// Output metadata.
    pub columns: Vec<ColumnMeta>,
    /// ORDER BY (expression, descending).
    pub order: Vec<(Expr, bool)>,
    /// DISTINCT.
    pub distinct: bool,
    /// LIMIT count expression.
    pub limit: Option<Expr>,
    /// OFFSET expression.
    pub offset: Option<Expr>,
    /// Row locking mode (FOR UPDATE / FOR SHARE).
    pub lock: LockMode,
    /// SELECT ... INTO @a, @b.
    pub into_vars: Vec<String>,
    /// For a join (two or more tables): the tables in join order with their row offsets.
    pub joins: Vec<JoinTable>,
}

/// One table of a join.
pub struct JoinTable {
    /// The table.
    pub def: Arc<TableDef>,
    /// Offset of its first column in the joined row.
    pub offset: usize,
    /// LEFT JOIN (null-extended when nothing matches).
    pub left: bool,
    /// ON / USING condition over the joined row (None for CROSS / comma joins).
    pub on: Option<Expr>,
}

/// Binds the FROM clause: one table (`Some`, scope) or a join (joins, scope).
#[allow(clippy::type_complexity)]
fn bind_from<E: KvEngine>(
    s: &Session<E>,
    from: &[ast::TableWithJoins],
) -> Result<(Option<Arc<TableDef>>, Vec<JoinTable>, Scope)> {
    let mut scope = Scope::default();
    let mut joins: Vec<JoinTable> = Vec::new();
    let add = |factor: &ast::TableFactor, scope: &mut Scope| -> Result<(Arc<TableDef>, usize)> {
        match factor {
            ast::TableFactor::Table { name, alias, .. } => {
                let t = resolve_table(s, name)?;
                let alias = alias.as_ref().map(|a| a.name.value.clone());
                let offset = scope.cols.len();
                let ts = table_scope(&t, alias.as_deref());
                let tname = ts.cols.first().map(|c| c.table.clone()).unwrap_or_default();
                if scope.cols.iter().any(|c| c.table == tname) {
                    return Err(Error::new(
                        codes::ER_NONUNIQ_TABLE,
                        format!("Not unique table/alias: '{tname}'"),
                    ));
                }
                scope.cols.extend(ts.cols);
                Ok((t, offset))
            }
            _ => Err(Error::not_supported("derived tables")),
        }
    };
    for twj in from {
        let (t, offset) = add(&twj.relation, &mut scope)?;
        joins.push(JoinTable {
            def: t,
            offset,
            left: false,
            on: None,
        });
        for j in &twj.joins {
            let (left, constraint) = match &j.join_operator {
                ast::JoinOperator::Join(c)
                | ast::JoinOperator::Inner(c)
                | ast::JoinOperator::CrossJoin(c) => (false, c),
                ast::JoinOperator::Left(c) | ast::JoinOperator::LeftOuter(c) => (true, c),
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
            let (t, offset) = add(&j.relation, &mut scope)?;
            let on = match constraint {
                ast::JoinConstraint::On(e) => Some(Binder::new(&scope, s, "on clause").bind(e)?),
                ast::JoinConstraint::Using(cols) => {
                    let tname = scope.cols[offset].table.clone();
                    let mut cond: Option<Expr> = None;
                    for c in cols {
                        let name = c.to_string().trim_matches('`').to_string();
                        let right = scope.resolve(&[tname.clone(), name.clone()], "from clause")?;
                        let left_i = scope.cols[..offset]
                            .iter()
                            .position(|x| x.name.eq_ignore_ascii_case(&name))
                            .ok_or_else(|| Error::bad_field(&name, "from clause"))?;
                        let coll = scope.cols[right]
                            .ty
                            .as_ref()
                            .map(|t| t.collation())
                            .unwrap_or_default();
                        let eq = Expr::Cmp(
                            crate::expr::CmpOp::Eq,
                            Box::new(Expr::Col(left_i)),
                            Box::new(Expr::Col(right)),
                            coll,
                        );
                        cond = Some(match cond {
                            None => eq,
                            Some(c) => Expr::And(Box::new(c), Box::new(eq)),
                        });
                    }
                    cond
                }
                ast::JoinConstraint::None => None,
                ast::JoinConstraint::Natural => return Err(Error::not_supported("NATURAL JOIN")),
            };
            joins.push(JoinTable {
                def: t,
                offset,
                left,
                on,
            });
        }
    }
    if joins.len() == 1 {
        let jt = joins.pop().expect("one table");
        return Ok((Some(jt.def), vec![], scope));
    }
    Ok((None, joins, scope))
}

/// Extracts the original text of an AST node from the statement SQL (for column headers).
pub fn source_text(sql: &str, node: &impl Spanned) -> Option<String> {
    let span = node.span();
    if span.start.line == 0 || span.end.line == 0 {
        return None;
    }
    let off = |line: u64, col: u64| -> Option<usize> {
        let mut idx = 0usize;
        for (i, l) in sql.split_inclusive('\n').enumerate() {
            if i as u64 + 1 == line {
                let b = l
                    .char_indices()
                    .nth(col.saturating_sub(1) as usize)
                    .map(|(b, _)| b)
                    .unwrap_or(l.len());
                return Some(idx + b);
            }
            idx += l.len();
        }
        None
    };
    let (a, mut b) = (
        off(span.start.line, span.start.column)?,
        off(span.end.line, span.end.column)?,
    );
    if a >= b || b > sql.len() {
        return None;
    }
    // sqlparser's span of a function call can stop at its name or at its last argument:
    // extend until the parentheses opened inside the expression are closed (skipping quotes).
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut end = b;
    for (i, ch) in sql[a..].char_indices() {
        let pos = a + i;
        if pos >= b && depth == 0 && quote.is_none() {
            // past the span: only continue into an argument list that starts right here
            if pos == b && ch == '(' {
                depth = 1;
                continue;
            }
            end = pos;
            break;
        }
        end = pos + ch.len_utf8();
        match quote {
            Some(q) if ch == q => quote = None,
            Some(_) => {}
            None => match ch {
                '\'' | '"' | '`' => quote = Some(ch),
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            },
        }
    }
    b = end.max(b);
    Some(sql[a..b].to_string())
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
        });
    }
    Scope { cols }
}

fn column_meta(scope: &Scope, i: usize, alias: &str) -> ColumnMeta {
    let c = &scope.cols[i];
    let mut m = match &c.ty {
        Some(t) => ColumnMeta::for_type(&c.name, t),
        None => meta_for_type(&c.name, &ExprType::Str { max_chars: 255 }),
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
    if let Some(t) = crate::show::system_table(s, &db, &tbl)? {
        return Ok(t);
    }
    s.storage()
        .get_table(&db, &tbl)?
        .ok_or_else(|| Error::no_such_table(&db, &tbl))
}

/// Binds a query into a plan.
pub fn plan<E: KvEngine>(s: &mut Session<E>, q: &ast::Query, sql: &str) -> Result<Plan> {
    if q.with.is_some() {
        return Err(Error::not_supported("WITH (common table expressions)"));
    }
    let sel = match q.body.as_ref() {
        ast::SetExpr::Select(sel) => sel,
        ast::SetExpr::Query(inner) => return plan(s, inner, sql),
        ast::SetExpr::SetOperation { .. } => return Err(Error::not_supported("UNION")),
        other => return Err(Error::not_supported(other.to_string())),
    };
    let (table, joins, scope) = bind_from(s, &sel.from)?;
    let ncols = scope.cols.len();
    let mut aggs: Vec<AggCall> = Vec::new();
    // WHERE
    let filter = match &sel.selection {
        Some(w) => Some(
            Binder {
                scope: &scope,
                env: &*s,
                aggs: None,
                clause: "where clause",
                agg_base: ncols,
                aliases: None,
            }
            .bind(w)?,
        ),
        None => None,
    };
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
                for i in 0..ncols {
                    items.push(Expr::Col(i));
                    columns.push(column_meta(&scope, i, &scope.cols[i].name));
                }
            }
            ast::SelectItem::QualifiedWildcard(kind, _) => {
                let q = kind.to_string();
                let q = q
                    .rsplit('.')
                    .next()
                    .unwrap_or(&q)
                    .trim_matches('`')
                    .to_string();
                let mut any = false;
                for i in 0..ncols {
                    if scope.cols[i].table == q {
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
                    env: &*s,
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
                        ast::Expr::CompoundIdentifier(ids) => {
                            ids.last().map(|i| i.value.clone()).unwrap_or_default()
                        }
                        _ => source_text(sql, e).unwrap_or_else(|| e.to_string()),
                    },
                };
                let meta = match &bound {
                    Expr::Col(i) => column_meta(&scope, *i, &name),
                    other => {
                        let t = expr::expr_type(other, &scope, &aggs, ncols);
                        let mut m = meta_for_type(&name, &t);
                        if matches!(other, Expr::Lit(v) if !v.is_null()) {
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
    if let ast::GroupByExpr::Expressions(exprs, _) = &sel.group_by {
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
    // HAVING
    let having = match &sel.having {
        Some(h) => Some(
            Binder {
                scope: &scope,
                env: &*s,
                aggs: Some(&mut aggs),
                clause: "having clause",
                agg_base: ncols,
                aliases: Some(&aliases),
            }
            .bind(h)?,
        ),
        None => None,
    };
    // ORDER BY
    let mut order = Vec::new();
    if let Some(ob) = &q.order_by {
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
    let grouped = !group_by.is_empty() || !aggs.is_empty();
    let bind_limit = |e: &ast::Expr| Binder::new(&Scope::default(), &*s, "limit").bind(e);
    let (limit, offset) = match &q.limit_clause {
        None => (None, None),
        Some(ast::LimitClause::LimitOffset { limit, offset, .. }) => (
            limit.as_ref().map(bind_limit).transpose()?,
            offset.as_ref().map(|o| bind_limit(&o.value)).transpose()?,
        ),
        Some(ast::LimitClause::OffsetCommaLimit { offset, limit }) => {
            (Some(bind_limit(limit)?), Some(bind_limit(offset)?))
        }
    };
    let lock = match q.locks.first().map(|l| &l.lock_type) {
        Some(ast::LockType::Update) => LockMode::Exclusive,
        Some(ast::LockType::Share) => LockMode::Shared,
        None => LockMode::None,
    };
    let mut into_vars = Vec::new();
    if let Some(into) = &sel.into {
        for t in &into.targets {
            into_vars.push(t.to_string());
        }
    }
    Ok(Plan {
        table,
        scope,
        filter,
        aggs,
        group_by,
        grouped,
        having,
        items,
        columns,
        order,
        distinct: matches!(sel.distinct, Some(ast::Distinct::Distinct)),
        limit,
        offset,
        lock,
        into_vars,
        joins,
    })
}

#[allow(clippy::too_many_arguments)]
fn bind_order_expr<E: KvEngine>(
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
    Binder {
        scope,
        env: s,
        aggs: Some(aggs),
        clause,
        agg_base: ncols,
        aliases: Some(aliases),
    }
    .bind(e)
}

/// Result columns of a query (for COM_STMT_PREPARE).
pub fn describe<E: KvEngine>(
    s: &mut Session<E>,
    q: &ast::Query,
    sql: &str,
) -> Result<Vec<ColumnMeta>> {
    Ok(plan(s, q, sql)?.columns)
}

/// Fetches the rows of `t` matching `filter` through the best access path.
#[allow(clippy::too_many_arguments)]
pub fn fetch<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    filter: Option<&Expr>,
    ctx: &mut EvalCtx<'_>,
    lock: LockMode,
    order_hint: Option<(usize, bool)>,
    limit_hint: Option<usize>,
) -> Result<Vec<(Handle, Vec<Value>)>> {
    if let Some(rows) = crate::show::system_rows(s, t)? {
        let mut out = Vec::new();
        for r in rows {
            if match filter {
                Some(f) => f.eval_bool(&r, ctx)?,
                None => true,
            } {
                out.push((Vec::new(), r));
            }
        }
        return Ok(out);
    }
    let mut path = access::choose(t, filter);
    let mut ranges = access::ranges(t, &path, ctx)?;
    if ranges.is_none() {
        path = access::AccessPath::full_scan();
        ranges = access::ranges(t, &path, ctx)?;
    }
    let ranges = ranges.unwrap_or_default();
    // ORDER BY on the first column of the chosen index (or a full pk scan) can stream in order.
    let mut reverse = false;
    let mut limit = None;
    if let Some((col, desc)) = order_hint {
        let idx = &t.indexes[path.index];
        if ranges.len() == 1
            && path.eq_prefixes[0].is_empty()
            && idx
                .columns
                .first()
                .is_some_and(|c| c.col == col && c.prefix_len.is_none())
        {
            reverse = desc;
            limit = limit_hint;
        }
    } else {
        limit = limit_hint;
    }
    let txn = s.ensure_txn();
    let mut out = Vec::new();
    let mut n = 0u64;
    for (start, end) in ranges {
        if path.unique_point && path.index == 0 {
            if let std::ops::Bound::Included(pk) = &start {
                if let Some((h, row)) = txn.get_by_pk(t, pk, lock)? {
                    if match filter {
                        Some(f) => f.eval_bool(&row, ctx)?,
                        None => true,
                    } {
                        out.push((h, row));
                    }
                }
                continue;
            }
        }
        let iter = txn.scan(t, path.index, IndexRange { start, end }, reverse, lock)?;
        for r in iter {
            let (h, row) = r?;
            n += 1;
            if n % 1024 == 0 && ctx.killed.load(AtOrd::Relaxed) {
                return Err(Error::interrupted());
            }
            if match filter {
                Some(f) => f.eval_bool(&row, ctx)?,
                None => true,
            } {
                out.push((h, row));
                if limit.is_some_and(|l| out.len() >= l) {
                    return Ok(out);
                }
            }
        }
    }
    Ok(out)
}

enum AggState {
    Count(u64),
    Sum {
        dec: Option<rust_decimal::Decimal>,
        dbl: Option<f64>,
        any_double: bool,
    },
    Avg {
        dec: rust_decimal::Decimal,
        dbl: f64,
        any_double: bool,
        n: u64,
        scale: u32,
    },
    MinMax(Option<Value>),
    Bit(u64),
    Concat(Vec<String>),
}

fn new_state(a: &AggCall) -> AggState {
    match a.func {
        AggFunc::Count => AggState::Count(0),
        AggFunc::Sum => AggState::Sum {
            dec: None,
            dbl: None,
            any_double: false,
        },
        AggFunc::Avg => AggState::Avg {
            dec: rust_decimal::Decimal::ZERO,
            dbl: 0.0,
            any_double: false,
            n: 0,
            scale: 0,
        },
        AggFunc::Min | AggFunc::Max => AggState::MinMax(None),
        AggFunc::BitAnd => AggState::Bit(u64::MAX),
        AggFunc::BitOr | AggFunc::BitXor => AggState::Bit(0),
        AggFunc::GroupConcat => AggState::Concat(Vec::new()),
    }
}

fn is_double(v: &Value) -> bool {
    matches!(
        v,
        Value::Double(_) | Value::Float(_) | Value::Str(_) | Value::Bytes(_)
    )
}

fn update_state(st: &mut AggState, a: &AggCall, v: Value, ctx: &mut EvalCtx<'_>) -> Result<()> {
    if v.is_null() && a.arg.is_some() {
        return Ok(());
    }
    match st {
        AggState::Count(n) => *n += 1,
        AggState::Sum {
            dec,
            dbl,
            any_double,
        } => {
            if is_double(&v) || *any_double {
                *any_double = true;
                let x = func::convert::to_f64(&v, ctx.warnings).unwrap_or(0.0);
                *dbl = Some(
                    dbl.unwrap_or_else(|| {
                        dec.map(|d| d.to_string().parse().unwrap_or(0.0))
                            .unwrap_or(0.0)
                    }) + x,
                );
            } else {
                let x = func::convert::to_decimal(&v, ctx.warnings).unwrap_or_default();
                let cur = dec.unwrap_or_default();
                *dec = Some(cur.checked_add(x).ok_or_else(|| {
                    Error::new(codes::ER_DATA_OUT_OF_RANGE, "DECIMAL value is out of range")
                })?);
            }
        }
        AggState::Avg {
            dec,
            dbl,
            any_double,
            n,
            scale,
        } => {
            *n += 1;
            if is_double(&v) {
                *any_double = true;
            }
            *dbl += func::convert::to_f64(&v, ctx.warnings).unwrap_or(0.0);
            if !*any_double {
                let x = func::convert::to_decimal(&v, ctx.warnings).unwrap_or_default();
                *scale = (*scale).max(x.scale());
                *dec = dec.checked_add(x).unwrap_or(*dec);
            }
        }
        AggState::MinMax(cur) => {
            let replace = match cur {
                None => true,
                Some(c) => {
                    let o = func::compare::compare(&v, c, a.coll).unwrap_or(Ordering::Equal);
                    if a.func == AggFunc::Min {
                        o == Ordering::Less
                    } else {
                        o == Ordering::Greater
                    }
                }
            };
            if replace {
                *cur = Some(v);
            }
        }
        AggState::Bit(b) => {
            let x = func::convert::to_u64(&v, ctx.warnings).unwrap_or(0);
            match a.func {
                AggFunc::BitAnd => *b &= x,
                AggFunc::BitOr => *b |= x,
                _ => *b ^= x,
            }
        }
        AggState::Concat(parts) => {
            parts.push(func::convert::to_string_value(&v).unwrap_or_default())
        }
    }
    Ok(())
}

fn finish_state(st: AggState, a: &AggCall) -> Value {
    match st {
        AggState::Count(n) => Value::Int(n as i64),
        AggState::Sum {
            dec,
            dbl,
            any_double,
        } => {
            if any_double {
                dbl.map(Value::Double).unwrap_or(Value::Null)
            } else {
                dec.map(Value::Decimal).unwrap_or(Value::Null)
            }
        }
        AggState::Avg {
            dec,
            dbl,
            any_double,
            n,
            scale,
        } => {
            if n == 0 {
                Value::Null
            } else if any_double {
                Value::Double(dbl / n as f64)
            } else {
                let q = dec / rust_decimal::Decimal::from(n);
                Value::Decimal(q.round_dp_with_strategy(
                    scale + 4,
                    rust_decimal::RoundingStrategy::MidpointAwayFromZero,
                ))
            }
        }
        AggState::MinMax(v) => v.unwrap_or(Value::Null),
        AggState::Bit(b) => Value::UInt(b),
        AggState::Concat(parts) => {
            if parts.is_empty() {
                Value::Null
            } else {
                let mut s = parts.join(&a.separator);
                if s.len() > 1024 {
                    let mut end = 1024;
                    while !s.is_char_boundary(end) {
                        end -= 1;
                    }
                    s.truncate(end);
                }
                Value::Str(s)
            }
        }
    }
}

/// Runs a SELECT.
pub fn execute<E: KvEngine>(
    s: &mut Session<E>,
    q: &ast::Query,
    params: &[Value],
    sql: &str,
) -> Result<Output> {
    let p = plan(s, q, sql)?;
    let mut fnctx = s.fn_ctx();
    let killed = s.killed.clone();
    let mut warnings = std::mem::take(&mut s.warnings);
    let div = s
        .var("div_precision_increment")
        .and_then(|v| {
            if let Value::Int(i) = v {
                Some(i as u8)
            } else {
                None
            }
        })
        .unwrap_or(4);
    let mut ctx = EvalCtx {
        params,
        warnings: &mut warnings,
        fnctx: &mut fnctx,
        killed: &killed,
        div_precision: div,
        strict_div_zero: false,
        set_last_insert_id: None,
    };
    let r = run_plan(s, &p, &mut ctx);
    let set_lid = ctx.set_last_insert_id;
    s.warnings = warnings;
    if let Some(id) = set_lid {
        s.last_insert_id = id;
    }
    let rows = r?;
    s.found_rows = rows.len() as u64;
    if !p.into_vars.is_empty() {
        if rows.len() > 1 {
            return Err(Error::new(
                codes::ER_TOO_MANY_ROWS,
                "Result consisted of more than one row",
            ));
        }
        if let Some(row) = rows.first() {
            for (name, v) in p.into_vars.iter().zip(row.iter()) {
                s.user_vars
                    .insert(name.trim_start_matches('@').to_ascii_lowercase(), v.clone());
            }
        }
        return Ok(Output::ok(rows.len() as u64));
    }
    Ok(Output::Rows {
        columns: p.columns,
        rows,
    })
}

fn eval_limit(e: &Option<Expr>, ctx: &mut EvalCtx<'_>) -> Result<Option<u64>> {
    match e {
        None => Ok(None),
        Some(e) => {
            let v = e.eval(&[], ctx)?;
            Ok(Some(func::convert::to_u64(&v, ctx.warnings).unwrap_or(0)))
        }
    }
}

/// Executes a plan, returning the projected rows.
pub fn run_plan<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let limit = eval_limit(&p.limit, ctx)?;
    let offset = eval_limit(&p.offset, ctx)?.unwrap_or(0);
    let source: Vec<Vec<Value>> = match &p.table {
        None if !p.joins.is_empty() => run_join(s, p, ctx)?,
        None => {
            let keep = match &p.filter {
                Some(f) => f.eval_bool(&[], ctx)?,
                None => true,
            };
            if keep {
                vec![vec![]]
            } else {
                vec![]
            }
        }
        Some(t) => {
            let simple = !p.grouped && !p.distinct;
            let order_hint = match p.order.as_slice() {
                [] => None,
                [(Expr::Col(c), desc)] => Some((*c, *desc)),
                _ => None,
            };
            let can_stream = simple && (p.order.is_empty() || order_hint.is_some());
            let limit_hint = if can_stream {
                limit.map(|l| (l + offset) as usize)
            } else {
                None
            };
            let order_hint = if simple { order_hint } else { None };
            fetch(s, t, p.filter.as_ref(), ctx, p.lock, order_hint, limit_hint)?
                .into_iter()
                .map(|(_, r)| r)
                .collect()
        }
    };
    // grouping
    let mut rows: Vec<Vec<Value>> = if p.grouped {
        let mut groups: Vec<(
            Vec<Value>,
            Vec<AggState>,
            Vec<std::collections::HashSet<Vec<u8>>>,
        )> = Vec::new();
        let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
        for row in source {
            let mut key = Vec::new();
            for g in &p.group_by {
                let v = g.eval(&row, ctx)?;
                func::compare::hash_key(&v, ctx.fnctx.collation, &mut key);
                key.push(0xFE);
            }
            let gi = match index.get(&key) {
                Some(i) => *i,
                None => {
                    groups.push((
                        row.clone(),
                        p.aggs.iter().map(new_state).collect(),
                        vec![Default::default(); p.aggs.len()],
                    ));
                    index.insert(key, groups.len() - 1);
                    groups.len() - 1
                }
            };
            let g = &mut groups[gi];
            for (ai, a) in p.aggs.iter().enumerate() {
                let v = match &a.arg {
                    Some(e) => e.eval(&row, ctx)?,
                    None => Value::Int(1),
                };
                if a.distinct && !v.is_null() {
                    let mut k = Vec::new();
                    func::compare::hash_key(&v, a.coll, &mut k);
                    if !g.2[ai].insert(k) {
                        continue;
                    }
                }
                update_state(&mut g.1[ai], a, v, ctx)?;
            }
        }
        if groups.is_empty() && p.group_by.is_empty() {
            // aggregate over no rows: one row of NULL columns + initial aggregates
            let ncols = p.scope.cols.len();
            groups.push((
                vec![Value::Null; ncols],
                p.aggs.iter().map(new_state).collect(),
                vec![],
            ));
        }
        let mut out = Vec::with_capacity(groups.len());
        for (mut first, states, _) in groups {
            for (st, a) in states.into_iter().zip(&p.aggs) {
                first.push(finish_state(st, a));
            }
            out.push(first);
        }
        if p.order.is_empty() && !p.group_by.is_empty() {
            // MySQL 5.7 / MariaDB order groups by the GROUP BY expressions; keep that.
            let keys: Vec<(Expr, bool)> = p.group_by.iter().map(|g| (g.clone(), false)).collect();
            sort_rows(&mut out, &keys, ctx)?;
        }
        out
    } else {
        source
    };
    if let Some(h) = &p.having {
        let mut kept = Vec::with_capacity(rows.len());
        for r in rows {
            if h.eval_bool(&r, ctx)? {
                kept.push(r);
            }
        }
        rows = kept;
    }
    if !p.order.is_empty() {
        sort_rows(&mut rows, &p.order, ctx)?;
    }
    // project
    let mut out = Vec::with_capacity(rows.len());
    let mut seen = std::collections::HashSet::new();
    let mut skipped = 0u64;
    for r in &rows {
        let mut o = Vec::with_capacity(p.items.len());
        for e in &p.items {
            o.push(e.eval(r, ctx)?);
        }
        if p.distinct {
            let mut k = Vec::new();
            for v in &o {
                func::compare::hash_key(v, ctx.fnctx.collation, &mut k);
                k.push(0xFE);
            }
            if !seen.insert(k) {
                continue;
            }
        }
        if skipped < offset {
            skipped += 1;
            continue;
        }
        if limit.is_some_and(|l| out.len() as u64 >= l) {
            break;
        }
        out.push(o);
    }
    Ok(out)
}

/// Compares two ORDER BY key tuples: NULLs first, `desc` per key, strings under `coll`.
pub fn compare_sort_keys(
    a: &[Value],
    b: &[Value],
    desc: &[bool],
    coll: common::Collation,
) -> Ordering {
    for (i, d) in desc.iter().enumerate() {
        let o = match (&a[i], &b[i]) {
            (Value::Null, Value::Null) => Ordering::Equal,
            (Value::Null, _) => Ordering::Less,
            (_, Value::Null) => Ordering::Greater,
            (x, y) => func::compare::compare(x, y, coll).unwrap_or(Ordering::Equal),
        };
        let o = if *d { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Which join table a column offset belongs to.
fn table_of_col(joins: &[JoinTable], col: usize) -> usize {
    joins.iter().rposition(|j| j.offset <= col).unwrap_or(0)
}

/// Nested-loop join: for each partial row, the next table is read through its best access path
/// with the outer columns substituted as constants (so equality on a key becomes a point or
/// range lookup), then LEFT JOINs null-extend when nothing matched. The full WHERE is applied
/// to the joined rows afterwards.
fn run_join<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let width = p.scope.cols.len();
    let where_conj: Vec<&Expr> = p
        .filter
        .as_ref()
        .map(crate::expr::conjuncts)
        .unwrap_or_default();
    let mut rows: Vec<Vec<Value>> = vec![vec![Value::Null; width]];
    for (j, jt) in p.joins.iter().enumerate() {
        let n = jt.def.columns.len();
        // conditions usable while reading table j: its ON, plus (for inner tables) WHERE
        // conjuncts that only read tables ≤ j
        let mut conds: Vec<&Expr> = jt
            .on
            .as_ref()
            .map(crate::expr::conjuncts)
            .unwrap_or_default();
        if !jt.left {
            for c in &where_conj {
                let cols = c.columns();
                if !cols.is_empty()
                    && cols.iter().all(|&x| table_of_col(&p.joins, x) <= j)
                    && cols.iter().any(|&x| table_of_col(&p.joins, x) == j)
                {
                    conds.push(c);
                }
            }
        }
        let mut next = Vec::new();
        for (ri, row) in rows.into_iter().enumerate() {
            if ri % 256 == 0 && ctx.killed.load(AtOrd::Relaxed) {
                return Err(Error::interrupted());
            }
            let specialised: Option<Expr> = conds
                .iter()
                .map(|c| {
                    c.map_cols(&|i| {
                        if i >= jt.offset && i < jt.offset + n {
                            Expr::Col(i - jt.offset)
                        } else {
                            Expr::Lit(row[i].clone())
                        }
                    })
                })
                .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)));
            let matches = fetch(s, &jt.def, specialised.as_ref(), ctx, p.lock, None, None)?;
            if matches.is_empty() {
                if jt.left {
                    next.push(row);
                }
                continue;
            }
            for (_, m) in matches {
                let mut r = row.clone();
                r[jt.offset..jt.offset + n].clone_from_slice(&m);
                next.push(r);
            }
        }
        rows = next;
    }
    match &p.filter {
        None => Ok(rows),
        Some(f) => {
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                if f.eval_bool(&r, ctx)? {
                    out.push(r);
                }
            }
            Ok(out)
        }
    }
}

fn sort_rows(
    rows: &mut Vec<Vec<Value>>,
    keys: &[(Expr, bool)],
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    let mut keyed: Vec<(Vec<Value>, Vec<Value>)> = Vec::with_capacity(rows.len());
    for r in rows.drain(..) {
        let mut k = Vec::with_capacity(keys.len());
        for (e, _) in keys {
            k.push(e.eval(&r, ctx)?);
        }
        keyed.push((k, r));
    }
    let coll = ctx.fnctx.collation;
    let desc: Vec<bool> = keys.iter().map(|(_, d)| *d).collect();
    keyed.sort_by(|(a, _), (b, _)| compare_sort_keys(a, b, &desc, coll));
    rows.extend(keyed.into_iter().map(|(_, r)| r));
    Ok(())
}

/// EXPLAIN for a single-table SELECT (MySQL's traditional tabular format).
pub fn explain<E: KvEngine>(
    s: &mut Session<E>,
    stmt: &ast::Statement,
    sql: &str,
) -> Result<Output> {
    let q = match stmt {
        ast::Statement::Query(q) => q,
        _ => return Err(Error::not_supported("EXPLAIN of this statement")),
    };
    let p = plan(s, q, sql)?;
    let names = [
        "id",
        "select_type",
        "table",
        "partitions",
        "type",
        "possible_keys",
        "key",
        "key_len",
        "ref",
        "rows",
        "filtered",
        "Extra",
    ];
    let columns: Vec<ColumnMeta> = names
        .iter()
        .map(|n| meta_for_type(n, &ExprType::Str { max_chars: 64 }))
        .collect();
    if !p.joins.is_empty() {
        let rows = p
            .joins
            .iter()
            .map(|jt| {
                vec![
                    Value::Int(1),
                    Value::Str("SIMPLE".into()),
                    Value::Str(jt.def.name.clone()),
                    Value::Null,
                    Value::Str(if jt.on.is_some() { "ref" } else { "ALL" }.into()),
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Null,
                    Value::Int(1),
                    Value::Str("100.00".into()),
                    Value::Str("Nested loop".into()),
                ]
            })
            .collect();
        return Ok(Output::Rows { columns, rows });
    }
    let row = match &p.table {
        None => vec![
            Value::Int(1),
            Value::Str("SIMPLE".into()),
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Null,
            Value::Str("No tables used".into()),
        ],
        Some(t) => {
            let path = access::choose(t, p.filter.as_ref());
            let idx = &t.indexes[path.index];
            let (ty, key) = if path.is_full_scan() {
                ("ALL", Value::Null)
            } else if path.unique_point && path.eq_prefixes.len() == 1 {
                ("const", Value::Str(idx.name.clone()))
            } else if path.range.0.is_some() || path.range.1.is_some() || path.eq_prefixes.len() > 1
            {
                ("range", Value::Str(idx.name.clone()))
            } else {
                ("ref", Value::Str(idx.name.clone()))
            };
            let (rows, _, _) = s.storage().table_stats(t).unwrap_or((0, 0, 0));
            vec![
                Value::Int(1),
                Value::Str("SIMPLE".into()),
                Value::Str(t.name.clone()),
                Value::Null,
                Value::Str(ty.into()),
                key.clone(),
                key,
                Value::Null,
                Value::Null,
                Value::Int(rows.max(1) as i64),
                Value::Str("100.00".into()),
                if p.filter.is_some() {
                    Value::Str("Using where".into())
                } else {
                    Value::Null
                },
            ]
        }
    };
    Ok(Output::Rows {
        columns,
        rows: vec![row],
    })
}
