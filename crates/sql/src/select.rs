//! SELECT blocks: binding one block (FROM sources and joins, WHERE, GROUP BY, HAVING, select
//! list, ORDER BY, LIMIT) into a [`Plan`], choosing access paths and join order, then
//! filter → join → group/aggregate → having → order → distinct → limit → project.

use std::cmp::Ordering;
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
use crate::expr::{self, AggCall, AggFunc, Binder, CmpOp, EvalCtx, Expr, Scope, ScopeCol};
use crate::query::{self, CteBody, Query};
use crate::session::{Output, Session};

/// A bound SELECT block.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The FROM sources in execution order (empty for SELECT without FROM).
    pub from: Vec<JoinTable>,
    /// STRAIGHT_JOIN: keep the written join order.
    pub straight: bool,
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
    /// GROUP BY ... WITH ROLLUP.
    pub rollup: bool,
    /// HAVING.
    pub having: Option<Expr>,
    /// Output expressions.
    pub items: Vec<Expr>,
    /// Output metadata.
    pub columns: Vec<ColumnMeta>,
    /// Output types.
    pub types: Vec<ExprType>,
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
}

/// Where a FROM item's rows come from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A base table (or a system table).
    Table(Arc<TableDef>),
    /// A derived table, view or CTE: a query materialised once per execution.
    Derived(Box<Query>),
    /// The previous iteration of a recursive CTE.
    Work(usize),
}

/// One FROM item of a block.
#[derive(Debug, Clone)]
pub struct JoinTable {
    /// Its rows.
    pub source: Source,
    /// Name or alias (for EXPLAIN).
    pub name: String,
    /// Offset of its first column in the joined row.
    pub offset: usize,
    /// Number of columns.
    pub width: usize,
    /// LEFT JOIN (null-extended when nothing matches).
    pub left: bool,
    /// ON / USING condition over the joined row (None for CROSS / comma joins).
    pub on: Option<Expr>,
}

impl Plan {
    /// The base table when the block reads exactly one (not outer-joined) table.
    pub fn single_table(&self) -> Option<&Arc<TableDef>> {
        match self.from.as_slice() {
            [JoinTable {
                source: Source::Table(t),
                left: false,
                ..
            }] => Some(t),
            _ => None,
        }
    }

    /// A copy with every expression rewritten by `f` (see [`Query::map_exprs`]).
    pub fn map_exprs(&self, depth: usize, f: &dyn Fn(&Expr, usize) -> Option<Expr>) -> Plan {
        let m = |e: &Expr| query::map_expr_deep(e, depth, f);
        let mo = |e: &Option<Expr>| e.as_ref().map(m);
        Plan {
            from: self
                .from
                .iter()
                .map(|jt| JoinTable {
                    source: match &jt.source {
                        // derived tables see the same enclosing blocks as this block
                        Source::Derived(q) => Source::Derived(Box::new(q.map_exprs(depth, f))),
                        other => other.clone(),
                    },
                    on: mo(&jt.on),
                    ..jt.clone()
                })
                .collect(),
            filter: mo(&self.filter),
            aggs: self
                .aggs
                .iter()
                .map(|a| AggCall {
                    arg: mo(&a.arg),
                    order: a.order.iter().map(|(e, d)| (m(e), *d)).collect(),
                    window: a.window.as_ref().map(|w| {
                        Box::new(expr::WindowDef {
                            partition: w.partition.iter().map(m).collect(),
                            order: w.order.iter().map(|(e, d)| (m(e), *d)).collect(),
                            frame: w.frame,
                            range_offsets: w.range_offsets.clone(),
                            extra: w.extra.iter().map(m).collect(),
                        })
                    }),
                    ..a.clone()
                })
                .collect(),
            group_by: self.group_by.iter().map(m).collect(),
            having: mo(&self.having),
            items: self.items.iter().map(m).collect(),
            order: self.order.iter().map(|(e, d)| (m(e), *d)).collect(),
            limit: mo(&self.limit),
            offset: mo(&self.offset),
            ..self.clone()
        }
    }

    /// For a block over one table of `width` columns: which of its columns the block reads
    /// (one flag per column), so a scan can leave the others undecoded. None (read all) when a
    /// subquery is left, as a correlated one may read any column of this block's row.
    ///
    /// The destructuring is exhaustive on purpose: a new expression-holding field must be
    /// added here, or the scan would hand it NULLs.
    fn used_columns(&self, width: usize) -> Option<Arc<[bool]>> {
        if self.has_subquery() {
            return None;
        }
        let Plan {
            from,
            straight: _,
            scope: _,
            filter,
            aggs,
            group_by,
            grouped: _,
            rollup: _,
            having,
            items,
            columns: _,
            types: _,
            order,
            distinct: _,
            limit,
            offset,
            lock: _,
            into_vars: _,
        } = self;
        let mut used = vec![false; width];
        let mut all = false;
        let mut mark = |e: &Expr| {
            e.walk(&mut |x| match x {
                Expr::Col(i) => match used.get_mut(*i) {
                    Some(u) => *u = true,
                    None => all = true,
                },
                // a subquery anywhere (its body may read this row through Expr::Outer)
                Expr::Outer(..)
                | Expr::Subquery(_)
                | Expr::Exists(_)
                | Expr::InSubquery(..)
                | Expr::Quantified(..)
                | Expr::RowSub(..) => all = true,
                _ => {}
            })
        };
        let exprs = from
            .iter()
            .filter_map(|j| j.on.as_ref())
            .chain(filter)
            .chain(group_by)
            .chain(having)
            .chain(items)
            .chain(order.iter().map(|(e, _)| e))
            .chain(limit)
            .chain(offset);
        exprs.for_each(&mut mark);
        for a in aggs {
            let AggCall {
                func: _,
                arg,
                distinct: _,
                separator: _,
                coll: _,
                window,
                order,
            } = a;
            arg.iter().for_each(&mut mark);
            order.iter().for_each(|(e, _)| mark(e));
            if let Some(w) = window {
                let expr::WindowDef {
                    partition,
                    order,
                    frame: _,
                    range_offsets,
                    extra,
                } = &**w;
                partition.iter().chain(extra).for_each(&mut mark);
                range_offsets.iter().flatten().for_each(|r| mark(&r.value));
                order.iter().for_each(|(e, _)| mark(e));
            }
        }
        (!all).then(|| used.into())
    }

    fn has_subquery(&self) -> bool {
        let any = |e: &Option<Expr>| e.as_ref().is_some_and(|e| e.has_subquery());
        any(&self.filter)
            || any(&self.having)
            || self.items.iter().any(|e| e.has_subquery())
            || self.group_by.iter().any(|e| e.has_subquery())
            || self.order.iter().any(|(e, _)| e.has_subquery())
            || self.aggs.iter().any(|a| any(&a.arg))
            || self.from.iter().any(|j| any(&j.on))
    }
}

/// Scope columns of a derived source.
fn derived_scope(alias: &str, q: &Query) -> Vec<ScopeCol> {
    derived_cols(alias, q.columns(), q.types())
}

/// Scope columns named by `columns` with static `types`, under table name `alias`.
fn derived_cols(alias: &str, columns: &[ColumnMeta], types: &[ExprType]) -> Vec<ScopeCol> {
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

fn check_unique_alias(scope: &Scope, tname: &str) -> Result<()> {
    if scope.cols.iter().any(|c| c.table == tname) {
        return Err(Error::new(
            codes::ER_NONUNIQ_TABLE,
            format!("Not unique table/alias: '{tname}'"),
        ));
    }
    Ok(())
}

/// Appends one FROM source and its columns.
fn push_source(
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
    });
    scope.cols.extend(cols);
}

/// Binds one FROM factor, appending its columns to `scope` and its sources to `out`.
fn bind_factor<E: KvEngine>(
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
            ..
        } => {
            let alias = alias.as_ref().map(|a| a.name.value.clone());
            // a CTE name (unqualified) shadows tables
            if name.0.len() == 1 {
                let n = name.0[0].to_string().trim_matches('`').to_string();
                if let Some(cte) = env.ctes.iter().rev().find(|c| c.name == n) {
                    let tname = alias.unwrap_or(n);
                    check_unique_alias(scope, &tname)?;
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
            if let Some(view_sql) = crate::view::definition(&t) {
                let q = crate::view::plan_view(s, &t, view_sql)?;
                let tname = alias.unwrap_or_else(|| t.name.clone());
                check_unique_alias(scope, &tname)?;
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
                Arc::new(crate::partition::select_partitions(&t, &names)?)
            };
            let ts = table_scope(&t, alias.as_deref());
            let tname = ts.cols.first().map(|c| c.table.clone()).unwrap_or_default();
            check_unique_alias(scope, &tname)?;
            push_source(scope, out, Source::Table(t), tname, ts.cols);
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
            let mut q = query::plan_query(s, subquery, sql, env)?;
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
fn using_condition(
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

fn bind_join_list<E: KvEngine>(
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
        let on = match constraint {
            ast::JoinConstraint::On(e) => Some(Binder::new(scope, s, "on clause").bind(e)?),
            ast::JoinConstraint::Using(cols) => {
                let names: Vec<String> = cols
                    .iter()
                    .map(|c| c.to_string().trim_matches('`').to_string())
                    .collect();
                using_condition(scope, left_end, left_end, &names)?
            }
            ast::JoinConstraint::Natural => {
                let names: Vec<String> = scope.cols[left_end..]
                    .iter()
                    .filter(|c| {
                        scope.cols[..left_end]
                            .iter()
                            .any(|l| l.name.eq_ignore_ascii_case(&c.name))
                    })
                    .map(|c| c.name.clone())
                    .collect();
                using_condition(scope, left_end, left_end, &names)?
            }
            ast::JoinConstraint::None => None,
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
fn bind_from<E: KvEngine>(
    s: &Session<E>,
    from: &[ast::TableWithJoins],
    sql: &str,
    env: &Scope,
) -> Result<(Vec<JoinTable>, Scope)> {
    let mut scope = Scope {
        cols: vec![],
        outer: env.outer.clone(),
        ctes: env.ctes.clone(),
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
    let (mut a, mut b) = (
        off(span.start.line, span.start.column)?,
        off(span.end.line, span.end.column)?,
    );
    if a >= b || b > sql.len() {
        return None;
    }
    // sqlparser's span can also start late: at the operand of a leading unary sign, inside
    // `CAST(` / `CEIL(` / … or after `BINARY`. Extend backwards over those.
    let word_before = |end: usize| -> (usize, &str) {
        let t = sql[..end].trim_end();
        let start = t
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
            .last()
            .map(|(i, _)| i)
            .unwrap_or(t.len());
        (start, &t[start..])
    };
    loop {
        let before = sql[..a].trim_end();
        let Some(prev) = before.chars().last() else {
            break;
        };
        if prev == '(' {
            let (ws, w) = word_before(before.len() - 1);
            if [
                "CAST",
                "CONVERT",
                "CEIL",
                "CEILING",
                "FLOOR",
                "EXTRACT",
                "POSITION",
                "SUBSTRING",
                "SUBSTR",
                "TRIM",
                "INTERVAL",
            ]
            .iter()
            .any(|k| k.eq_ignore_ascii_case(w))
            {
                a = ws;
                continue;
            }
            break;
        }
        if matches!(prev, '-' | '+' | '~' | '!') {
            let rest = before[..before.len() - 1].trim_end();
            let (_, w) = word_before(rest.len());
            let unary = rest.ends_with([',', '(', '='])
                || ["SELECT", "DISTINCT", "ALL"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(w));
            if unary {
                a = before.len() - 1;
                continue;
            }
            break;
        }
        let (ws, w) = word_before(before.len());
        if w.eq_ignore_ascii_case("BINARY") {
            a = ws;
            continue;
        }
        break;
    }
    // sqlparser's span of a function call can stop at its name or at its last argument:
    // extend until the parentheses opened inside the expression are closed (skipping quotes).
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut end = b;
    for (i, ch) in sql[a..].char_indices() {
        let pos = a + i;
        if pos >= b && depth <= 0 && quote.is_none() {
            // past the span: only continue into an argument list that starts right here
            if pos == b && ch == '(' {
                depth = 1;
                continue;
            }
            end = pos;
            break;
        }
        end = pos + ch.len_utf8();
        depth += paren_step(ch, &mut quote);
    }
    b = end.max(b);
    b = past_interval_unit(sql, a, b);
    // a row constructor's span leaves out its outer parentheses (`1,2) = (1,2`): take in the
    // parentheses around the text until it is balanced
    let (mut low, mut depth, mut quote) = (0i32, 0i32, None::<char>);
    for ch in sql[a..b].chars() {
        depth += paren_step(ch, &mut quote);
        low = low.min(depth);
    }
    for _ in 0..-low {
        let before = sql[..a].trim_end();
        if !before.ends_with('(') {
            break;
        }
        a = before.len() - 1;
        depth += 1;
    }
    // ... and close what is still open (a subquery's span can also stop short of its end)
    if depth > 0 {
        let mut quote = None::<char>;
        for (i, ch) in sql[b..].char_indices() {
            if ch == ';' && quote.is_none() {
                break;
            }
            let step = paren_step(ch, &mut quote);
            depth += step;
            if step < 0 && depth == 0 {
                b += i + 1;
                break;
            }
        }
    }
    Some(sql[a..b].to_string())
}

/// sqlparser's span of `INTERVAL n unit` ends before the unit: when the text `sql[a..b]` ends in
/// an INTERVAL without its unit and a unit follows, the end moved past it.
fn past_interval_unit(sql: &str, a: usize, b: usize) -> usize {
    const UNITS: &[&str] = &[
        "MICROSECOND",
        "SECOND",
        "MINUTE",
        "HOUR",
        "DAY",
        "WEEK",
        "MONTH",
        "QUARTER",
        "YEAR",
        "SECOND_MICROSECOND",
        "MINUTE_MICROSECOND",
        "MINUTE_SECOND",
        "HOUR_MICROSECOND",
        "HOUR_SECOND",
        "HOUR_MINUTE",
        "DAY_MICROSECOND",
        "DAY_SECOND",
        "DAY_MINUTE",
        "DAY_HOUR",
        "YEAR_MONTH",
    ];
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(|w| w.to_ascii_uppercase())
            .collect()
    };
    let text = words(&sql[a..b]);
    let Some(at) = text.iter().rposition(|w| w == "INTERVAL") else {
        return b;
    };
    if text[at + 1..].iter().any(|w| UNITS.contains(&w.as_str())) {
        return b;
    }
    let rest = &sql[b..];
    let skip = rest.len() - rest.trim_start().len();
    let word: String = rest[skip..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if UNITS.contains(&word.to_ascii_uppercase().as_str()) {
        b + skip + word.len()
    } else {
        b
    }
}

/// One character of SQL text for parenthesis counting: +1 for `(`, -1 for `)`, 0 otherwise;
/// characters inside '…', "…" and `…` quotes don't count (`quote` tracks the open one).
fn paren_step(ch: char, quote: &mut Option<char>) -> i32 {
    match *quote {
        Some(q) if ch == q => *quote = None,
        Some(_) => {}
        None => match ch {
            '\'' | '"' | '`' => *quote = Some(ch),
            '(' => return 1,
            ')' => return -1,
            _ => {}
        },
    }
    0
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

fn column_meta(scope: &Scope, i: usize, alias: &str) -> ColumnMeta {
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
    if let Some(t) = crate::show::system_table(s, &db, &tbl)? {
        // its rows are a snapshot of the moment: a plan holding them is not reusable
        s.note_plan_volatile();
        return Ok(t);
    }
    // the lock comes first, so the definition read below stays current until the lock goes
    s.mdl_lock(&db, &tbl, s.shared_mdl)?;
    s.note_plan_table(&db, &tbl);
    s.storage()
        .get_table(&db, &tbl)?
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
                // `t.*` or `db.t.*`
                let parts = match kind {
                    ast::SelectItemQualifiedWildcardKind::ObjectName(n) => crate::ddl::obj_parts(n),
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
                    if c.table == q && db.is_none_or(|d| c.db == d) {
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
                        let t = expr::expr_type(other, &scope, &aggs, ncols);
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
    let lock = match locks.first().map(|l| &l.lock_type) {
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
    if grouped && s.mode("ONLY_FULL_GROUP_BY") {
        check_full_group_by(&scope, &from, filter.as_ref(), &group_by, &items, &order)?;
    }
    let types = items
        .iter()
        .map(|e| expr::expr_type(e, &scope, &aggs, ncols))
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
        into_vars,
    })
}

/// Maps the arguments of each GROUPING() call to their GROUP BY positions (3602 for one that
/// isn't a GROUP BY expression; 1111 without WITH ROLLUP, as MySQL).
fn resolve_grouping(aggs: &mut [AggCall], group_by: &[Expr], rollup: bool) -> Result<()> {
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
        a.arg = Some(Expr::Func(expr::GROUPING_ARGS.into(), positions));
    }
    Ok(())
}

/// GROUPING()'s value in a row grouped by the first `nkeys` GROUP BY expressions: bit per
/// argument (first argument highest), set where that argument's expression is rolled up.
fn grouping_value(a: &AggCall, nkeys: usize) -> Value {
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
        into_vars: vec![],
    })
}

/// sql_mode ONLY_FULL_GROUP_BY: every column a grouped query outputs (or orders by) outside an
/// aggregate must be a GROUP BY expression or functionally dependent on the GROUP BY columns —
/// through a table's primary key or unique NOT NULL key, or a WHERE equality with a constant.
/// Errors 1055 (with GROUP BY) and 1140 (aggregates without GROUP BY), as MySQL 8.
fn check_full_group_by(
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
    for c in filter.map(expr::conjuncts).unwrap_or_default() {
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
        e.columns()
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
fn expand_named_windows(
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
    let bind_limit = |e: &ast::Expr| Binder::new(&Scope::default(), s, "limit").bind(e);
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
    Ok(query::plan(s, q, sql)?.columns().to_vec())
}

/// How [`fetch`] reads a table.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Row locking.
    pub lock: LockMode,
    /// The caller sorts by this one column (column, descending): a scan of an index that
    /// starts with it may stream in order and stop at `limit_hint`.
    pub order_hint: Option<(usize, bool)>,
    /// The caller needs at most this many matching rows (in `order_hint` order if set).
    pub limit_hint: Option<usize>,
    /// The columns the caller reads (see [`storage::RowIter::project`]); None = all.
    pub cols: Option<Arc<[bool]>>,
}

impl Scan {
    /// All columns, all rows, with `lock`.
    pub fn locking(lock: LockMode) -> Scan {
        Scan {
            lock,
            ..Scan::default()
        }
    }
}

/// Fetches the rows of `t` matching `filter` through the best access path.
pub fn fetch<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    filter: Option<&Expr>,
    ctx: &mut EvalCtx<'_>,
    scan: &Scan,
) -> Result<Vec<(Handle, Vec<Value>)>> {
    let Scan {
        lock,
        order_hint,
        limit_hint,
        ref cols,
    } = *scan;
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
    if crate::partition::is_partitioned(t) {
        return crate::partition::fetch(s, t, filter, ctx, scan);
    }
    let stats = s.inst.stats.get(s.storage(), t);
    let mut path = access::choose_with_stats(t, filter, stats.as_deref());
    let mut ranges = access::ranges(t, &path, ctx)?;
    if ranges.is_none() {
        path = access::AccessPath::full_scan();
        ranges = access::ranges(t, &path, ctx)?;
    }
    let ranges = ranges.unwrap_or_default();
    // the WHERE without the conjuncts every row of the ranges satisfies
    let residual;
    let filter = match filter {
        Some(f) if !path.covered.is_empty() => {
            let rest: Vec<&Expr> = expr::conjuncts(f)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !path.covered.contains(i))
                .map(|(_, c)| c)
                .collect();
            match rest.as_slice() {
                [] => None,
                [one] => Some(*one),
                _ => {
                    residual = and_all(&rest);
                    residual.as_ref()
                }
            }
        }
        f => f,
    };
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
    let mut mem = crate::limits::MemTracker::new();
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
        let iter = txn
            .scan(t, path.index, IndexRange { start, end }, reverse, lock)?
            .project(cols.clone());
        for r in iter {
            let (h, row) = r?;
            n += 1;
            if n.is_multiple_of(1024) && ctx.killed.load(AtOrd::Relaxed) {
                return Err(Error::interrupted());
            }
            if match filter {
                Some(f) => f.eval_bool(&row, ctx)?,
                None => true,
            } {
                mem.add_row(&row)?;
                out.push((h, row));
                if limit.is_some_and(|l| out.len() >= l) {
                    return Ok(out);
                }
            }
        }
    }
    Ok(out)
}

/// Running state of one aggregate.
#[derive(Clone)]
pub(crate) enum AggState {
    Count(u64),
    Sum {
        dec: Option<common::Decimal>,
        /// Integer arguments are summed here (exactly; folded into `dec` on overflow), which
        /// is far cheaper than a decimal addition per row.
        int: Option<i128>,
        dbl: Option<f64>,
        any_double: bool,
    },
    Avg {
        dec: common::Decimal,
        dbl: f64,
        any_double: bool,
        n: u64,
        scale: u32,
    },
    MinMax(Option<Value>),
    Bit(u64),
    /// GROUP_CONCAT parts with their ORDER BY keys (empty without ORDER BY).
    Concat(Vec<(Vec<Value>, String)>),
}

pub(crate) fn new_state(a: &AggCall) -> AggState {
    match a.func {
        AggFunc::Count => AggState::Count(0),
        AggFunc::Sum => AggState::Sum {
            dec: None,
            int: None,
            dbl: None,
            any_double: false,
        },
        AggFunc::Avg => AggState::Avg {
            dec: common::Decimal::zero(),
            dbl: 0.0,
            any_double: false,
            n: 0,
            scale: 0,
        },
        AggFunc::Min | AggFunc::Max => AggState::MinMax(None),
        AggFunc::BitAnd => AggState::Bit(u64::MAX),
        AggFunc::BitOr | AggFunc::BitXor => AggState::Bit(0),
        AggFunc::GroupConcat => AggState::Concat(Vec::new()),
        // window-only functions keep no aggregate state
        _ => AggState::Count(0),
    }
}

fn is_double(v: &Value) -> bool {
    matches!(
        v,
        Value::Double(_) | Value::Float(_) | Value::Str(_) | Value::Bytes(_)
    )
}

fn sum_out_of_range() -> Error {
    Error::new(codes::ER_DATA_OUT_OF_RANGE, "DECIMAL value is out of range")
}

/// Moves SUM's integer partial sum into its decimal sum.
fn fold_int_sum(dec: &mut Option<common::Decimal>, int: &mut Option<i128>) -> Result<()> {
    if let Some(i) = int.take() {
        let cur = dec.take().unwrap_or_default();
        *dec = Some(
            cur.checked_add(&common::Decimal::from(i))
                .ok_or_else(sum_out_of_range)?,
        );
    }
    Ok(())
}

pub(crate) fn update_state(
    st: &mut AggState,
    a: &AggCall,
    v: Value,
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    if v.is_null() && a.arg.is_some() {
        return Ok(());
    }
    match st {
        AggState::Count(n) => *n += 1,
        AggState::Sum {
            dec,
            int,
            dbl,
            any_double,
        } => {
            let small = match v {
                Value::Int(i) if !*any_double => Some(i128::from(i)),
                Value::UInt(u) if !*any_double => Some(i128::from(u)),
                _ => None,
            };
            if let Some(x) = small {
                match int.unwrap_or(0).checked_add(x) {
                    Some(t) => *int = Some(t),
                    None => {
                        fold_int_sum(dec, int)?;
                        *int = Some(x);
                    }
                }
            } else if is_double(&v) || *any_double {
                if !*any_double {
                    fold_int_sum(dec, int)?;
                }
                *any_double = true;
                let x = func::convert::to_f64(&v, ctx.warnings).unwrap_or(0.0);
                *dbl = Some(
                    dbl.unwrap_or_else(|| dec.as_ref().map(|d| d.to_f64()).unwrap_or(0.0)) + x,
                );
            } else {
                let x = func::convert::to_decimal(&v, ctx.warnings).unwrap_or_default();
                let cur = dec.take().unwrap_or_default();
                *dec = Some(cur.checked_add(&x).ok_or_else(sum_out_of_range)?);
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
                if let Some(s) = dec.checked_add(&x) {
                    *dec = s;
                }
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
        AggState::Concat(parts) => parts.push((
            Vec::new(),
            func::convert::to_string_value(&v).unwrap_or_default(),
        )),
    }
    Ok(())
}

pub(crate) fn finish_state(st: AggState, a: &AggCall) -> Value {
    match st {
        AggState::Count(n) => Value::Int(n as i64),
        AggState::Sum {
            mut dec,
            mut int,
            dbl,
            any_double,
        } => {
            if any_double {
                dbl.map(Value::Double).unwrap_or(Value::Null)
            } else {
                match fold_int_sum(&mut dec, &mut int) {
                    Ok(()) => dec.map(Value::Decimal).unwrap_or(Value::Null),
                    Err(_) => Value::Null,
                }
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
                // MySQL divides the exact sum by the count like `/` (word precision, shown
                // with the argument's scale + 4).
                let q = dec
                    .with_frac(scale)
                    .checked_div(&common::Decimal::from(n), 4)
                    .unwrap_or_default();
                Value::Decimal(q)
            }
        }
        AggState::MinMax(v) => v.unwrap_or(Value::Null),
        AggState::Bit(b) => Value::UInt(b),
        AggState::Concat(mut parts) => {
            if parts.is_empty() {
                Value::Null
            } else {
                if !a.order.is_empty() {
                    let desc: Vec<bool> = a.order.iter().map(|(_, d)| *d).collect();
                    parts.sort_by(|x, y| compare_sort_keys(&x.0, &y.0, &desc, a.coll));
                }
                let texts: Vec<String> = parts.into_iter().map(|(_, t)| t).collect();
                let mut s = texts.join(&a.separator);
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

/// Runs a SELECT statement.
pub fn execute<E: KvEngine>(
    s: &mut Session<E>,
    q: &ast::Query,
    params: &[Value],
    sql: &str,
) -> Result<Output> {
    let q_ast = q;
    let q = s.plan_select(q, sql)?;
    let into_vars = q.first_block().into_vars.clone();
    let mut columns = q.columns().to_vec();
    if let query::Query::Select(p) = &*q {
        param_item_types(&mut columns, &p.items, params);
    }
    let rows = s.with_ctx(params, false, |s, ctx| query::run(s, &q, ctx))?;
    s.found_rows = rows.len() as u64;
    if calc_found_rows(q_ast) {
        // SQL_CALC_FOUND_ROWS: FOUND_ROWS() is the number of rows without the LIMIT, counted
        // by running the statement again without it
        if let Some(all) = without_limit(&q) {
            let n = s
                .with_ctx(params, false, |s, ctx| query::run(s, &all, ctx))?
                .len();
            s.found_rows = n as u64;
        }
    }
    if !into_vars.is_empty() {
        if rows.len() > 1 {
            return Err(Error::new(
                codes::ER_TOO_MANY_ROWS,
                "Result consisted of more than one row",
            ));
        }
        if let Some(row) = rows.first() {
            for (name, v) in into_vars.iter().zip(row.iter()) {
                s.user_vars
                    .insert(name.trim_start_matches('@').to_ascii_lowercase(), v.clone());
            }
        }
        return Ok(Output::ok(rows.len() as u64));
    }
    Ok(Output::Rows { columns, rows })
}

/// True if the statement's first SELECT carries SQL_CALC_FOUND_ROWS (MySQL reads it there,
/// also for a UNION, where it counts the whole union).
fn calc_found_rows(q: &ast::Query) -> bool {
    let mut body = &*q.body;
    loop {
        match body {
            ast::SetExpr::Select(sel) => {
                return sel
                    .select_modifiers
                    .as_ref()
                    .is_some_and(|m| m.sql_calc_found_rows)
            }
            ast::SetExpr::SetOperation { left, .. } => body = left,
            ast::SetExpr::Query(inner) => body = &inner.body,
            _ => return false,
        }
    }
}

/// The query without its outermost LIMIT / OFFSET (None when it has none to drop).
fn without_limit(q: &Query) -> Option<Query> {
    match q {
        Query::Select(p) if p.limit.is_some() || p.offset.is_some() => {
            Some(Query::Select(Box::new(Plan {
                limit: None,
                offset: None,
                ..(**p).clone()
            })))
        }
        Query::SetOp(o) if o.limit.is_some() || o.offset.is_some() => {
            Some(Query::SetOp(Box::new(query::SetOp {
                limit: None,
                offset: None,
                ..(**o).clone()
            })))
        }
        _ => None,
    }
}

/// A select-list item that is a bare parameter (`SELECT ?`) has no type until it is bound: at
/// execution its column takes the type of the value bound to it, as in MySQL 8 (an integer
/// parameter gives a BIGINT column, bytes a binary string, …), so drivers decode the echoed
/// value as what they sent. A NULL keeps the prepared (string) metadata.
fn param_item_types(columns: &mut [ColumnMeta], items: &[Expr], params: &[Value]) {
    if params.is_empty() || columns.len() != items.len() {
        return;
    }
    for (c, e) in columns.iter_mut().zip(items) {
        if let Expr::Param(i) = e {
            if let Some(v) = params.get(*i).filter(|v| !v.is_null()) {
                let mut m = meta_for_type(&c.name, &func::types::type_of_value(v));
                m.flags |= c.flags & column_flags::NOT_NULL;
                *c = m;
            }
        }
    }
}

/// Evaluates LIMIT / OFFSET.
pub fn eval_limit(e: &Option<Expr>, ctx: &mut EvalCtx<'_>) -> Result<Option<u64>> {
    match e {
        None => Ok(None),
        Some(e) => {
            let v = e.eval(&[], ctx)?;
            Ok(Some(func::convert::to_u64(&v, ctx.warnings).unwrap_or(0)))
        }
    }
}

/// Executes a block, returning the projected rows.
pub fn run_plan<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    // Uncorrelated subqueries run once, here; correlated ones per row below.
    let resolved;
    let p = if p.has_subquery() {
        let mut err = None;
        let mut res = |e: &Expr| match query::resolve(s, e, None, ctx) {
            Ok(r) => r,
            Err(x) => {
                err.get_or_insert(x);
                e.clone()
            }
        };
        let mo = |e: &Option<Expr>, res: &mut dyn FnMut(&Expr) -> Expr| e.as_ref().map(res);
        resolved = Plan {
            filter: mo(&p.filter, &mut res),
            having: mo(&p.having, &mut res),
            items: p.items.iter().map(&mut res).collect(),
            group_by: p.group_by.iter().map(&mut res).collect(),
            order: p.order.iter().map(|(e, d)| (res(e), *d)).collect(),
            aggs: p
                .aggs
                .iter()
                .map(|a| AggCall {
                    arg: a.arg.as_ref().map(&mut res),
                    ..a.clone()
                })
                .collect(),
            from: p
                .from
                .iter()
                .map(|j| JoinTable {
                    on: j.on.as_ref().map(&mut res),
                    ..j.clone()
                })
                .collect(),
            ..p.clone()
        };
        if let Some(e) = err {
            return Err(e);
        }
        &resolved
    } else {
        p
    };
    // after the uncorrelated ones ran, only correlated subqueries are left: without them the
    // per-row evaluation can skip the subquery machinery
    let correlated_any = p.has_subquery();
    let limit = eval_limit(&p.limit, ctx)?;
    let offset = eval_limit(&p.offset, ctx)?.unwrap_or(0);
    // WHERE conjuncts with correlated subqueries are applied after the rows are read
    let (plain, correlated): (Vec<&Expr>, Vec<&Expr>) = p
        .filter
        .as_ref()
        .map(expr::conjuncts)
        .unwrap_or_default()
        .into_iter()
        .partition(|c| !c.has_subquery());
    let plain_filter = and_all(&plain);
    let source: Vec<Vec<Value>> = match (p.single_table(), p.from.is_empty()) {
        (_, true) => {
            let keep = match &plain_filter {
                Some(f) => f.eval_bool(&[], ctx)?,
                None => true,
            };
            if keep {
                vec![vec![]]
            } else {
                vec![]
            }
        }
        (Some(t), _) => {
            let simple = !p.grouped
                && !p.distinct
                && correlated.is_empty()
                && p.aggs.iter().all(|a| a.window.is_none());
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
            let scan = Scan {
                lock: p.lock,
                order_hint,
                limit_hint,
                cols: p.used_columns(t.columns.len()),
            };
            fetch(s, t, plain_filter.as_ref(), ctx, &scan)?
                .into_iter()
                .map(|(_, r)| r)
                .collect()
        }
        (None, false) => run_join(s, p, &plain, ctx)?,
    };
    let source = if correlated.is_empty() {
        source
    } else {
        let mut kept = Vec::with_capacity(source.len());
        for r in source {
            let mut ok = true;
            for c in &correlated {
                if !query::eval_bool(s, c, &r, ctx)? {
                    ok = false;
                    break;
                }
            }
            if ok {
                kept.push(r);
            }
        }
        kept
    };
    // grouping
    let mut rows: Vec<Vec<Value>> = if p.grouped {
        let n = p.group_by.len();
        if p.rollup && n > 0 {
            // one grouping per prefix of the GROUP BY list; the super-aggregate rows have the
            // rolled-up columns NULL and follow the rows they summarise
            let mut all: Vec<(Vec<Value>, usize, Vec<Value>)> = Vec::new();
            for k in (0..=n).rev() {
                for (key, mut row) in group_rows(s, p, &source, k, ctx)? {
                    for g in &p.group_by[k..] {
                        for c in g.columns() {
                            if c < row.len() {
                                row[c] = Value::Null;
                            }
                        }
                    }
                    all.push((key, k, row));
                }
            }
            let default = ctx.fnctx.collation;
            let colls: Vec<common::Collation> = p
                .group_by
                .iter()
                .map(|g| expr_collation(g, &p.scope, default))
                .collect();
            all.sort_by(|a, b| {
                for (i, &coll) in colls.iter().enumerate() {
                    match (i < a.1, i < b.1) {
                        (true, true) => {
                            let o = compare_sort_keys(&a.0[i..=i], &b.0[i..=i], &[false], coll);
                            if o != Ordering::Equal {
                                return o;
                            }
                        }
                        (true, false) => return Ordering::Less,
                        (false, true) => return Ordering::Greater,
                        (false, false) => return Ordering::Equal,
                    }
                }
                Ordering::Equal
            });
            all.into_iter().map(|(_, _, r)| r).collect()
        } else {
            let mut out: Vec<(Vec<Value>, Vec<Value>)> = group_rows(s, p, &source, n, ctx)?;
            if p.order.is_empty() && n > 0 {
                // MySQL 5.7 / MariaDB order groups by the GROUP BY expressions; keep that.
                let default = ctx.fnctx.collation;
                let colls: Vec<common::Collation> = p
                    .group_by
                    .iter()
                    .map(|g| expr_collation(g, &p.scope, default))
                    .collect();
                let desc = vec![false; n];
                out.sort_by(|a, b| compare_keys_with(&a.0, &b.0, &desc, &|i| colls[i]));
            }
            out.into_iter().map(|(_, r)| r).collect()
        }
    } else {
        source
    };
    if let Some(h) = &p.having {
        let mut kept = Vec::with_capacity(rows.len());
        for r in rows {
            if if correlated_any {
                query::eval_bool(s, h, &r, ctx)?
            } else {
                h.eval_bool(&r, ctx)?
            } {
                kept.push(r);
            }
        }
        rows = kept;
    }
    if p.aggs.iter().any(|a| a.window.is_some()) {
        crate::window::compute(s, p, &mut rows, ctx)?;
    }
    let coll_of = |e: &Expr| expr_collation(e, &p.scope, ctx.fnctx.collation);
    let item_colls: Vec<common::Collation> = p.items.iter().map(coll_of).collect();
    if !p.order.is_empty() {
        let colls: Vec<common::Collation> = p.order.iter().map(|(e, _)| coll_of(e)).collect();
        // without DISTINCT, only OFFSET + LIMIT rows can reach the output
        let top = match (p.distinct, limit) {
            (false, Some(l)) => Some((l + offset) as usize),
            _ => None,
        };
        sort_rows(s, &mut rows, &p.order, &colls, top, ctx)?;
    }
    // project
    let mut out = Vec::with_capacity(rows.len());
    let mut seen: foldhash::HashSet<_> = Default::default();
    let mut mem = crate::limits::MemTracker::new();
    let mut skipped = 0u64;
    let movable = movable_items(&p.items);
    for mut r in rows {
        if limit.is_some_and(|l| out.len() as u64 >= l) {
            break;
        }
        let mut o = Vec::with_capacity(p.items.len());
        for (e, m) in p.items.iter().zip(&movable) {
            o.push(match (m, e) {
                // the row is dropped after this: move its value rather than copy it
                (true, Expr::Col(i)) if !correlated_any && *i < r.len() => {
                    std::mem::replace(&mut r[*i], Value::Null)
                }
                _ if correlated_any => query::eval(s, e, &r, ctx)?,
                _ => e.eval(&r, ctx)?,
            });
        }
        if p.distinct {
            let mut k = Vec::new();
            for (v, c) in o.iter().zip(&item_colls) {
                func::compare::hash_key(v, *c, &mut k);
                k.push(0xFE);
            }
            mem.add_bytes(k.len() + 48)?;
            if !seen.insert(k) {
                continue;
            }
        }
        if skipped < offset {
            skipped += 1;
            continue;
        }
        mem.add_row(&o)?;
        out.push(o);
    }
    Ok(out)
}

/// Groups `source` by the first `nkeys` GROUP BY expressions: per group, its key values and
/// its row (the group's first source row followed by the aggregate results).
fn group_rows<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    source: &[Vec<Value>],
    nkeys: usize,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<(Vec<Value>, Vec<Value>)>> {
    type Group = (
        Vec<Value>,
        Vec<Value>,
        Vec<AggState>,
        Vec<foldhash::HashSet<Vec<u8>>>,
    );
    let mut groups: Vec<Group> = Vec::new();
    let mut mem = crate::limits::MemTracker::new();
    let mut index: foldhash::HashMap<Vec<u8>, usize> = Default::default();
    for row in source {
        let mut key = Vec::new();
        let mut keyvals = Vec::with_capacity(nkeys);
        for g in &p.group_by[..nkeys] {
            let v = query::eval(s, g, row, ctx)?;
            let coll = expr_collation(g, &p.scope, ctx.fnctx.collation);
            func::compare::hash_key(&v, coll, &mut key);
            key.push(0xFE);
            keyvals.push(v);
        }
        // Without GROUP BY every row joins the one group: no lookup of the empty key. (An
        // empty Vec's pointer is dangling; glibc's AVX-512 memcmp still issues a masked load
        // through it, and on this kind of CPU the suppressed fault costs a microcode assist:
        // measured at a fifth of the server's CPU for sysbench's SUM ranges.)
        let found = if nkeys == 0 && !groups.is_empty() {
            Some(&0)
        } else {
            index.get(&key)
        };
        let gi = match found {
            Some(i) => *i,
            None => {
                mem.add_bytes(key.len() + 64 + crate::limits::row_size(row) + p.aggs.len() * 64)?;
                groups.push((
                    keyvals,
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
            if a.window.is_some() || a.func == AggFunc::Grouping {
                continue;
            }
            let v = match &a.arg {
                Some(e) => query::eval(s, e, row, ctx)?,
                None => Value::Int(1),
            };
            if a.distinct && !v.is_null() {
                let mut k = Vec::new();
                func::compare::hash_key(&v, a.coll, &mut k);
                mem.add_bytes(k.len() + 48)?;
                if !g.3[ai].insert(k) {
                    continue;
                }
            }
            let keyed = !a.order.is_empty() && !v.is_null();
            update_state(&mut g.2[ai], a, v, ctx)?;
            if keyed {
                let mut keys = Vec::with_capacity(a.order.len());
                for (e, _) in &a.order {
                    keys.push(query::eval(s, e, row, ctx)?);
                }
                if let AggState::Concat(parts) = &mut g.2[ai] {
                    if let Some(last) = parts.last_mut() {
                        last.0 = keys;
                    }
                }
            }
        }
    }
    if groups.is_empty() && p.group_by.is_empty() {
        // aggregate over no rows: one row of NULL columns + initial aggregates
        let ncols = p.scope.cols.len();
        groups.push((
            vec![],
            vec![Value::Null; ncols],
            p.aggs.iter().map(new_state).collect(),
            vec![],
        ));
    }
    let mut out = Vec::with_capacity(groups.len());
    for (keyvals, mut first, states, _) in groups {
        for (st, a) in states.into_iter().zip(&p.aggs) {
            first.push(if a.window.is_some() {
                Value::Null
            } else if a.func == AggFunc::Grouping {
                grouping_value(a, nkeys)
            } else {
                finish_state(st, a)
            });
        }
        out.push((keyvals, first));
    }
    Ok(out)
}

/// For each output expression: true if it is a bare column that no other output expression
/// reads, so projection may move the value out of the source row.
fn movable_items(items: &[Expr]) -> Vec<bool> {
    let mut uses: rustc_hash::FxHashMap<usize, usize> = Default::default();
    for e in items {
        e.walk(&mut |x| {
            if let Expr::Col(i) = x {
                *uses.entry(*i).or_default() += 1;
            }
        });
    }
    items
        .iter()
        .map(|e| matches!(e, Expr::Col(i) if uses.get(i) == Some(&1)))
        .collect()
}

fn and_all(conds: &[&Expr]) -> Option<Expr> {
    conds
        .iter()
        .map(|c| (*c).clone())
        .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)))
}

/// Compares two ORDER BY key tuples: NULLs first, `desc` per key, strings under `coll`.
pub fn compare_sort_keys(
    a: &[Value],
    b: &[Value],
    desc: &[bool],
    coll: common::Collation,
) -> Ordering {
    compare_keys_with(a, b, desc, &|_| coll)
}

/// [`compare_sort_keys`] with a collation per key.
pub fn compare_keys_with(
    a: &[Value],
    b: &[Value],
    desc: &[bool],
    coll_of: &dyn Fn(usize) -> common::Collation,
) -> Ordering {
    for (i, d) in desc.iter().enumerate() {
        let coll = coll_of(i);
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

/// Which FROM item a column offset belongs to.
fn table_of_col(from: &[JoinTable], col: usize) -> usize {
    from.iter()
        .position(|j| col >= j.offset && col < j.offset + j.width)
        .unwrap_or(0)
}

/// The FROM items an expression reads.
fn tables_of(from: &[JoinTable], e: &Expr) -> Vec<usize> {
    let mut t: Vec<usize> = e.columns().iter().map(|&c| table_of_col(from, c)).collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// Greedy join order for inner joins: start from a table with a constant equality (ideally
/// on a key), then repeatedly add a table connected by an equality to the ones placed (a key
/// lookup when the column leads an index), so each step is filtered by what precedes it.
fn join_order(p: &Plan, conds: &[&Expr]) -> Vec<usize> {
    let n = p.from.len();
    if p.straight || p.from.iter().any(|j| j.left) {
        return (0..n).collect();
    }
    let leads_index = |t: usize, col: usize| match &p.from[t].source {
        Source::Table(def) => def.indexes.iter().any(|i| {
            i.columns
                .first()
                .is_some_and(|c| c.col + p.from[t].offset == col)
        }),
        _ => false,
    };
    // equality conditions: (table, column) = expression over other tables
    let mut eqs: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for c in conds {
        if let Expr::Cmp(CmpOp::Eq, a, b, _) = c {
            for (x, y) in [(a, b), (b, a)] {
                if let Expr::Col(col) = **x {
                    let t = table_of_col(&p.from, col);
                    let others = tables_of(&p.from, y);
                    if !others.contains(&t) {
                        eqs.push((t, col, others));
                    }
                }
            }
        }
    }
    let mut placed: Vec<usize> = Vec::with_capacity(n);
    let mut done = vec![false; n];
    while placed.len() < n {
        let mut best = (0u32, usize::MAX);
        for t in 0..n {
            if done[t] {
                continue;
            }
            let mut score = 0u32;
            for (et, col, others) in &eqs {
                if *et == t && others.iter().all(|o| done[*o]) {
                    let s = if leads_index(t, *col) { 4 } else { 3 };
                    score = score.max(s);
                }
            }
            if score == 0
                && conds.iter().any(|c| {
                    let ts = tables_of(&p.from, c);
                    ts.contains(&t) && ts.len() > 1 && ts.iter().all(|x| *x == t || done[*x])
                })
            {
                score = 1;
            }
            if score > best.0 || best.1 == usize::MAX {
                best = (score, t);
            }
        }
        done[best.1] = true;
        placed.push(best.1);
    }
    placed
}

/// How a join step reads its table.
enum StepRows {
    /// Index nested loop: one keyed read per outer row.
    Lookup,
    /// Materialised once; probed through a hash on equi-join keys (or scanned when none).
    Hashed {
        rows: Arc<Vec<Vec<Value>>>,
        /// (column inside the table, expression over earlier tables, collation)
        keys: Vec<(usize, Expr, common::Collation)>,
        table: foldhash::HashMap<Vec<u8>, Vec<usize>>,
    },
}

fn type_class(t: &ExprType) -> u8 {
    if t.is_numeric() {
        1
    } else if t.is_string() {
        2
    } else {
        0
    }
}

/// Hashable key of one probe/build value; None for NULL (never equal).
fn push_key(v: &Value, coll: common::Collation, out: &mut Vec<u8>) -> bool {
    if v.is_null() {
        return false;
    }
    func::compare::hash_key(v, coll, out);
    out.push(0xFE);
    true
}

/// Joins the FROM items: in a greedy order for inner joins, each table read either through
/// its keys with the outer row's values substituted (index nested loop), or materialised once
/// and probed by a hash on its equi-join columns (hash join); LEFT JOINs null-extend. The
/// plain WHERE conjuncts are pushed to the first step where all their tables are available.
fn run_join<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    where_conj: &[&Expr],
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let width = p.scope.cols.len();
    let mut all_inner: Vec<&Expr> = where_conj.to_vec();
    if !p.from.iter().any(|j| j.left) {
        for jt in &p.from {
            if let Some(on) = &jt.on {
                all_inner.extend(expr::conjuncts(on));
            }
        }
    }
    let order = join_order(p, &all_inner);
    let mut rows: Vec<Vec<Value>> = vec![vec![Value::Null; width]];
    let mut placed: Vec<bool> = vec![false; p.from.len()];
    let mut used = vec![false; all_inner.len()];
    for &j in &order {
        let jt = &p.from[j];
        let (lo, hi) = (jt.offset, jt.offset + jt.width);
        placed[j] = true;
        // conditions evaluated while reading j
        let mut conds: Vec<&Expr> = Vec::new();
        if jt.left {
            if let Some(on) = &jt.on {
                conds.extend(expr::conjuncts(on));
            }
        } else {
            let any_left = p.from.iter().any(|x| x.left);
            if any_left {
                if let Some(on) = &jt.on {
                    conds.extend(expr::conjuncts(on));
                }
            }
            for (ci, c) in all_inner.iter().enumerate() {
                if used[ci] {
                    continue;
                }
                let ts = tables_of(&p.from, c);
                if ts.iter().all(|t| placed[*t]) && (ts.contains(&j) || ts.is_empty()) {
                    used[ci] = true;
                    conds.push(c);
                }
            }
        }
        let local = |i: usize| i >= lo && i < hi;
        // choose the strategy once
        let mut strategy = StepRows::Lookup;
        let probe_filter = conds
            .iter()
            .map(|c| {
                c.map_cols(&|i| {
                    if local(i) {
                        Expr::Col(i - lo)
                    } else {
                        Expr::Lit(Value::Int(0))
                    }
                })
            })
            .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)));
        let keyed = match &jt.source {
            Source::Table(t) => {
                t.id != 0 && !access::choose(t, probe_filter.as_ref()).is_full_scan()
            }
            _ => false,
        };
        if !keyed || rows.len() == 1 {
            // materialise, filtered by the conditions on this table alone
            let local_conds: Vec<Expr> = conds
                .iter()
                .filter(|c| c.columns().iter().all(|&i| local(i)) && !c.columns().is_empty())
                .map(|c| c.map_cols(&|i| Expr::Col(i - lo)))
                .collect();
            let local_filter = local_conds
                .into_iter()
                .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)));
            let mat: Vec<Vec<Value>> = match &jt.source {
                Source::Table(t) if rows.len() != 1 || !keyed => {
                    fetch(s, t, local_filter.as_ref(), ctx, &Scan::locking(p.lock))?
                        .into_iter()
                        .map(|(_, r)| r)
                        .collect()
                }
                Source::Table(_) => Vec::new(), // single outer row: keyed read below
                other => {
                    let all = query::source_rows(s, other, ctx)?;
                    match &local_filter {
                        None => all.as_ref().clone(),
                        Some(f) => {
                            let mut v = Vec::new();
                            for r in all.iter() {
                                if f.eval_bool(r, ctx)? {
                                    v.push(r.clone());
                                }
                            }
                            v
                        }
                    }
                }
            };
            if !(keyed && rows.len() == 1) {
                let mut keys = Vec::new();
                for c in &conds {
                    if let Expr::Cmp(CmpOp::Eq, a, b, coll) = c {
                        for (x, y) in [(a, b), (b, a)] {
                            if let Expr::Col(col) = **x {
                                if !local(col) || y.columns().iter().any(|&i| local(i)) {
                                    continue;
                                }
                                let tx = expr::expr_type(x, &p.scope, &p.aggs, width);
                                let ty = expr::expr_type(y, &p.scope, &p.aggs, width);
                                let cls = type_class(&tx);
                                if cls != 0 && cls == type_class(&ty) {
                                    keys.push((col - lo, (**y).clone(), *coll));
                                    break;
                                }
                            }
                        }
                    }
                }
                let mut table: foldhash::HashMap<Vec<u8>, Vec<usize>> = Default::default();
                if !keys.is_empty() {
                    'rows: for (ri, r) in mat.iter().enumerate() {
                        let mut k = Vec::new();
                        for (c, _, coll) in &keys {
                            if !push_key(&r[*c], *coll, &mut k) {
                                continue 'rows;
                            }
                        }
                        table.entry(k).or_default().push(ri);
                    }
                }
                strategy = StepRows::Hashed {
                    rows: Arc::new(mat),
                    keys,
                    table,
                };
            }
        }
        let cond_all = |r: &[Value], ctx: &mut EvalCtx<'_>| -> Result<bool> {
            for c in &conds {
                if !c.eval_bool(r, ctx)? {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        let mut next = Vec::new();
        let mut mem = crate::limits::MemTracker::new();
        for (ri, row) in rows.into_iter().enumerate() {
            if ri % 256 == 0 && ctx.killed.load(AtOrd::Relaxed) {
                return Err(Error::interrupted());
            }
            let mut matched = false;
            match &strategy {
                StepRows::Lookup => {
                    let Source::Table(t) = &jt.source else {
                        return Err(Error::internal("keyed join step on a derived table"));
                    };
                    let specialised = conds
                        .iter()
                        .map(|c| {
                            c.map_cols(&|i| {
                                if local(i) {
                                    Expr::Col(i - lo)
                                } else {
                                    Expr::Lit(row[i].clone())
                                }
                            })
                        })
                        .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)));
                    for (_, m) in fetch(s, t, specialised.as_ref(), ctx, &Scan::locking(p.lock))? {
                        let mut r = row.clone();
                        r[lo..hi].clone_from_slice(&m);
                        mem.add_row(&r)?;
                        next.push(r);
                        matched = true;
                    }
                }
                StepRows::Hashed {
                    rows: mat,
                    keys,
                    table,
                } => {
                    let candidates: Box<dyn Iterator<Item = usize>> = if keys.is_empty() {
                        Box::new(0..mat.len())
                    } else {
                        let mut k = Vec::new();
                        let mut ok = true;
                        for (_, e, coll) in keys {
                            let v = e.eval(&row, ctx)?;
                            if !push_key(&v, *coll, &mut k) {
                                ok = false;
                                break;
                            }
                        }
                        match table.get(&k) {
                            Some(list) if ok => Box::new(list.clone().into_iter()),
                            _ => Box::new(std::iter::empty()),
                        }
                    };
                    for ci in candidates {
                        let mut r = row.clone();
                        r[lo..hi].clone_from_slice(&mat[ci]);
                        if cond_all(&r, ctx)? {
                            mem.add_row(&r)?;
                            next.push(r);
                            matched = true;
                        }
                    }
                }
            }
            if !matched && jt.left {
                next.push(row);
            }
        }
        rows = next;
    }
    // everything not consumed by a step (and, with outer joins, all of WHERE) applies here
    let rest: Vec<&Expr> = if p.from.iter().any(|j| j.left) {
        where_conj.to_vec()
    } else {
        all_inner
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(c, _)| *c)
            .collect()
    };
    if rest.is_empty() {
        return Ok(rows);
    }
    let mut out = Vec::with_capacity(rows.len());
    'outer: for r in rows {
        for c in &rest {
            if !c.eval_bool(&r, ctx)? {
                continue 'outer;
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// The collation an expression's strings compare under: a column's own collation, binary for
/// binary strings, else `default` (the connection's).
pub fn expr_collation(e: &Expr, scope: &Scope, default: common::Collation) -> common::Collation {
    match e {
        Expr::Collate(_, c) => *c,
        Expr::Col(i) => scope
            .cols
            .get(*i)
            .and_then(|c| c.ty.as_ref())
            .map(|t| t.collation())
            .unwrap_or(default),
        Expr::Lit(Value::Bytes(_)) | Expr::Cast(_, func::convert::CastTarget::Binary(_)) => {
            common::Collation::Binary
        }
        _ => default,
    }
}

/// Sorts rows by ORDER BY keys (evaluated once per row), strings under `colls[i]` (the
/// connection collation where missing). With `top` = Some(n) only the first n rows are needed:
/// they are selected first and only they are sorted (ORDER BY … LIMIT as a top-N).
pub fn sort_rows<E: KvEngine>(
    s: &mut Session<E>,
    rows: &mut Vec<Vec<Value>>,
    keys: &[(Expr, bool)],
    colls: &[common::Collation],
    top: Option<usize>,
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    let default = ctx.fnctx.collation;
    let coll_of = |i: usize| colls.get(i).copied().unwrap_or(default);
    // Strings under a weight-based collation are compared by their weights: compute each
    // row's weights once instead of twice per comparison (the sort's hot spot otherwise).
    let weighted = |c: common::Collation| {
        !matches!(
            c,
            common::Collation::Binary
                | common::Collation::Utf8mb4Bin
                | common::Collation::Latin1Bin
        )
    };
    // Per row: each key's value (None: the value is the row's column that the key names,
    // not copied), its collation weights when it is a weighted string, and the row.
    type Keyed = (Vec<Option<Value>>, Vec<Option<Vec<u8>>>, Vec<Value>);
    let mut keyed: Vec<Keyed> = Vec::with_capacity(rows.len());
    for r in rows.drain(..) {
        let mut k = Vec::with_capacity(keys.len());
        let mut w = Vec::with_capacity(keys.len());
        for (i, (e, _)) in keys.iter().enumerate() {
            let c = coll_of(i);
            // A plain string column under a weight-based collation: its weights are computed
            // from the row's value, which is not copied.
            if let (Expr::Col(j), true) = (e, weighted(c)) {
                if let Some(Value::Str(text)) = r.get(*j) {
                    w.push(Some(common::collation::weight(c, text)));
                    k.push(None);
                    continue;
                }
            }
            let v = query::eval(s, e, &r, ctx)?;
            w.push(match &v {
                Value::Str(text) if weighted(c) => Some(common::collation::weight(c, text)),
                _ => None,
            });
            k.push(Some(v));
        }
        keyed.push((k, w, r));
    }
    /// Key `i` of row `x`, borrowed from the row when it was not copied.
    fn key_value<'a>(x: &'a Keyed, keys: &[(Expr, bool)], i: usize) -> &'a Value {
        static NULL: Value = Value::Null;
        match (&x.0[i], &keys[i].0) {
            (Some(v), _) => v,
            (None, Expr::Col(j)) => x.2.get(*j).unwrap_or(&NULL),
            (None, _) => &NULL,
        }
    }
    let desc: Vec<bool> = keys.iter().map(|(_, d)| *d).collect();
    let cmp = |a: &Keyed, b: &Keyed| {
        for (i, &d) in desc.iter().enumerate() {
            let o = match (&a.1[i], &b.1[i]) {
                (Some(x), Some(y)) => x.cmp(y),
                _ => compare_keys_with(
                    std::slice::from_ref(key_value(a, keys, i)),
                    std::slice::from_ref(key_value(b, keys, i)),
                    &[false],
                    &|_| coll_of(i),
                ),
            };
            let o = if d { o.reverse() } else { o };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    };
    // Sort positions, not the rows with their keys (three vectors each): the sort moves
    // 4 bytes per step instead of 72.
    let mut order: Vec<u32> = (0..keyed.len() as u32).collect();
    let by = |a: &u32, b: &u32| cmp(&keyed[*a as usize], &keyed[*b as usize]);
    match top {
        Some(n) if n < order.len() => {
            if n == 0 {
                order.clear();
            } else {
                order.select_nth_unstable_by(n - 1, by);
                order.truncate(n);
            }
            order.sort_by(by);
        }
        _ => order.sort_by(by),
    }
    let mut slots: Vec<Option<Vec<Value>>> = keyed.into_iter().map(|(_, _, r)| Some(r)).collect();
    rows.extend(order.into_iter().filter_map(|i| slots[i as usize].take()));
    Ok(())
}

/// Bytes a key part takes in EXPLAIN's key_len (MySQL's accounting: the column's maximum
/// stored size, +2 for a variable length, +1 when nullable).
fn key_part_len(c: &storage::catalog::ColumnDef, prefix: Option<u32>) -> u32 {
    use common::DataType as T;
    let frac = |fsp: u8| (fsp as u32).div_ceil(2);
    let dec_bytes =
        |digits: u32| (digits / 9) * 4 + [0, 1, 1, 2, 2, 3, 3, 4, 4, 4][(digits % 9) as usize];
    let base = match &c.ty {
        T::Int { bytes, .. } => *bytes as u32,
        T::Decimal {
            precision, scale, ..
        } => dec_bytes((*precision - *scale) as u32) + dec_bytes(*scale as u32),
        T::Float { .. } => 4,
        T::Double { .. } => 8,
        T::Char { len, collation } => prefix.unwrap_or(*len) * collation.max_len(),
        T::VarChar { len, collation } => prefix.unwrap_or(*len) * collation.max_len() + 2,
        T::Text { collation, .. } => prefix.unwrap_or(0) * collation.max_len() + 2,
        T::Binary { len } => prefix.unwrap_or(*len),
        T::VarBinary { len } => prefix.unwrap_or(*len) + 2,
        T::Blob { .. } => prefix.unwrap_or(0) + 2,
        T::Date => 3,
        T::Time { fsp } => 3 + frac(*fsp),
        T::DateTime { fsp } => 5 + frac(*fsp),
        T::Timestamp { fsp } => 4 + frac(*fsp),
        T::Year => 1,
        T::Enum { values, .. } => {
            if values.len() > 255 {
                2
            } else {
                1
            }
        }
        T::Set { values, .. } => (values.len() as u32).div_ceil(8).max(1),
        T::Bit { len } => (*len as u32).div_ceil(8),
        T::Json => 0,
    };
    base + u32::from(c.nullable)
}

/// One EXPLAIN row.
#[allow(clippy::too_many_arguments)]
fn explain_row(
    id: i64,
    select_type: &str,
    table: Option<&str>,
    ty: Option<&str>,
    key: Option<&str>,
    rows: Option<u64>,
    extra: Option<&str>,
) -> Vec<Value> {
    let s = |x: Option<&str>| x.map(|v| Value::Str(v.to_string())).unwrap_or(Value::Null);
    vec![
        Value::Int(id),
        Value::Str(select_type.into()),
        s(table),
        Value::Null,
        s(ty),
        s(key),
        s(key),
        Value::Null,
        Value::Null,
        rows.map(|r| Value::Int(r as i64)).unwrap_or(Value::Null),
        if table.is_some() {
            Value::Str("100.00".into())
        } else {
            Value::Null
        },
        s(extra),
    ]
}

fn explain_query<E: KvEngine>(
    s: &Session<E>,
    q: &Query,
    select_type: &str,
    next_id: &mut i64,
    out: &mut Vec<Vec<Value>>,
) {
    match q {
        Query::Select(p) => explain_block(s, p, select_type, next_id, out),
        Query::SetOp(op) => {
            explain_query(
                s,
                &op.left,
                if select_type == "SIMPLE" {
                    "PRIMARY"
                } else {
                    select_type
                },
                next_id,
                out,
            );
            if let Some(r) = &op.right {
                explain_query(s, r, "UNION", next_id, out);
                out.push(explain_row(
                    0,
                    "UNION RESULT",
                    Some("<union>"),
                    Some("ALL"),
                    None,
                    None,
                    Some("Using temporary"),
                ));
            }
        }
        Query::Recursive(r) => {
            explain_query(s, &r.anchor, "DERIVED", next_id, out);
            explain_query(s, &r.step, "UNION", next_id, out);
        }
    }
}

fn explain_block<E: KvEngine>(
    s: &Session<E>,
    p: &Plan,
    select_type: &str,
    next_id: &mut i64,
    out: &mut Vec<Vec<Value>>,
) {
    let id = *next_id;
    *next_id += 1;
    let subqueries: Vec<Arc<query::SubQuery>> = {
        let mut v = Vec::new();
        let mut visit = |e: &Expr| {
            e.walk(&mut |x| match x {
                Expr::Subquery(q)
                | Expr::Exists(q)
                | Expr::RowSub(q, 0)
                | Expr::InSubquery(_, q, ..)
                | Expr::Quantified(_, _, q, ..) => v.push(q.clone()),
                _ => {}
            })
        };
        p.filter
            .iter()
            .chain(p.items.iter())
            .chain(p.having.iter())
            .for_each(&mut visit);
        v
    };
    let select_type = if select_type == "SIMPLE" && !subqueries.is_empty() {
        "PRIMARY"
    } else {
        select_type
    };
    if p.from.is_empty() {
        out.push(explain_row(
            id,
            select_type,
            None,
            None,
            None,
            None,
            Some("No tables used"),
        ));
    }
    let conds: Vec<&Expr> = p.filter.as_ref().map(expr::conjuncts).unwrap_or_default();
    let order = join_order(p, &conds);
    for &j in &order {
        let jt = &p.from[j];
        match &jt.source {
            Source::Table(t) => {
                let filter = if p.from.len() == 1 {
                    p.filter.as_ref()
                } else {
                    None
                };
                let st = s.inst.stats.get(s.storage(), t);
                let path = access::choose_with_stats(t, filter, st.as_deref());
                let idx = &t.indexes[path.index];
                let (ty, key) = if p.from.len() > 1 && j != order[0] {
                    if jt.on.is_some() || !conds.is_empty() {
                        ("eq_ref", None)
                    } else {
                        ("ALL", None)
                    }
                } else if path.is_full_scan() {
                    ("ALL", None)
                } else if path.unique_point && path.eq_prefixes.len() == 1 {
                    ("const", Some(idx.name.as_str()))
                } else if path.range.0.is_some()
                    || path.range.1.is_some()
                    || path.eq_prefixes.len() > 1
                {
                    ("range", Some(idx.name.as_str()))
                } else {
                    ("ref", Some(idx.name.as_str()))
                };
                let ty = if ty == "eq_ref" { "ALL" } else { ty };
                let (mut rows, _, _) = s.storage().table_stats(t).unwrap_or((0, 0, 0));
                if ty == "const" {
                    rows = 1;
                } else if let (Some(st), true) = (&st, key.is_some()) {
                    let eq = path.eq_prefixes.first().map(|p| p.len()).unwrap_or(0);
                    if let Some(rpk) = st.rows_per_key(path.index, eq) {
                        rows = (rpk * path.eq_prefixes.len() as f64).ceil() as u64;
                    }
                }
                // key_len / ref for the key parts used
                let (key_len, key_ref) = if key.is_some() {
                    let eq = path.eq_prefixes.first().map(|p| p.len()).unwrap_or(0);
                    let used = eq + usize::from(path.range.0.is_some() || path.range.1.is_some());
                    let len: u32 = idx
                        .columns
                        .iter()
                        .take(used)
                        .map(|ic| key_part_len(&t.columns[ic.col], ic.prefix_len))
                        .sum();
                    let r = (ty == "const" || ty == "ref").then(|| vec!["const"; eq].join(","));
                    (Some(len.to_string()), r)
                } else {
                    (None, None)
                };
                // Extra: covering index, filtering, sorting, grouping
                let mut extra: Vec<&str> = Vec::new();
                if p.from.len() == 1 {
                    let mut used_cols: Vec<usize> = Vec::new();
                    let mut collect = |e: &Expr| used_cols.extend(e.columns());
                    p.items.iter().for_each(&mut collect);
                    p.filter.iter().for_each(&mut collect);
                    p.group_by.iter().for_each(&mut collect);
                    p.order.iter().for_each(|(e, _)| collect(e));
                    p.aggs
                        .iter()
                        .filter_map(|a| a.arg.as_ref())
                        .for_each(&mut collect);
                    let in_index = |c: usize| {
                        idx.columns
                            .iter()
                            .any(|ic| ic.col == c && ic.prefix_len.is_none())
                            || (!t.hidden_pk
                                && t.indexes[0]
                                    .columns
                                    .iter()
                                    .any(|ic| ic.col == c && ic.prefix_len.is_none()))
                    };
                    if path.index != 0 && used_cols.iter().all(|c| in_index(*c)) {
                        extra.push("Using index");
                    }
                }
                // "Using where" only when conditions remain after the key lookup
                let key_conds = path.eq_prefixes.first().map(|x| x.len()).unwrap_or(0)
                    + usize::from(path.range.0.is_some())
                    + usize::from(path.range.1.is_some());
                let nconds = p
                    .filter
                    .as_ref()
                    .map(|f| expr::conjuncts(f).len())
                    .unwrap_or(0);
                if ty != "const" && nconds > key_conds.min(nconds) || (ty == "ALL" && nconds > 0) {
                    extra.push("Using where");
                }
                if !p.group_by.is_empty() {
                    extra.push("Using temporary");
                }
                let ordered_by_index = match p.order.as_slice() {
                    [(Expr::Col(c), _)] => idx
                        .columns
                        .get(path.eq_prefixes.first().map(|x| x.len()).unwrap_or(0))
                        .is_some_and(|ic| ic.col == *c),
                    _ => false,
                };
                if !p.order.is_empty() && !ordered_by_index {
                    extra.push("Using filesort");
                }
                let extra = extra.join("; ");
                let mut row = explain_row(
                    id,
                    select_type,
                    Some(&jt.name),
                    Some(ty),
                    key,
                    Some(rows.max(1)),
                    (!extra.is_empty()).then_some(extra.as_str()),
                );
                if let Some(k) = key {
                    row[5] = Value::Str(
                        t.indexes
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| !(t.hidden_pk && *i == 0))
                            .filter(|(_, ix)| {
                                ix.columns.first().is_some_and(|ic| {
                                    p.filter
                                        .as_ref()
                                        .is_some_and(|f| f.columns().contains(&ic.col))
                                })
                            })
                            .map(|(_, ix)| ix.name.clone())
                            .collect::<Vec<_>>()
                            .join(","),
                    );
                    if row[5] == Value::Str(String::new()) {
                        row[5] = Value::Str(k.to_string());
                    }
                }
                row[7] = key_len.map(Value::Str).unwrap_or(Value::Null);
                row[8] = key_ref.map(Value::Str).unwrap_or(Value::Null);
                row[3] = crate::partition::explain_partitions(s, t, filter)
                    .map(Value::Str)
                    .unwrap_or(Value::Null);
                out.push(row);
            }
            Source::Derived(q) => {
                let derived = format!("<derived{}>", *next_id);
                out.push(explain_row(
                    id,
                    select_type,
                    Some(&derived),
                    Some("ALL"),
                    None,
                    None,
                    None,
                ));
                explain_query(s, q, "DERIVED", next_id, out);
            }
            Source::Work(_) => {
                out.push(explain_row(
                    id,
                    select_type,
                    Some(&jt.name),
                    Some("ALL"),
                    None,
                    None,
                    Some("Recursive"),
                ));
            }
        }
    }
    for q in subqueries {
        let st = if q.correlated {
            "DEPENDENT SUBQUERY"
        } else {
            "SUBQUERY"
        };
        explain_query(s, &q.query, st, next_id, out);
    }
}

/// Lines of EXPLAIN FORMAT=TREE for a query (indented two spaces per level, MySQL style).
fn tree_query<E: KvEngine>(s: &Session<E>, q: &Query, depth: usize, out: &mut Vec<String>) {
    let pad = |d: usize| "    ".repeat(d);
    match q {
        Query::Select(p) => tree_block(s, p, depth, out),
        Query::SetOp(op) => {
            let what = match (op.kind, op.all) {
                (query::SetKind::Paren, _) => "Materialize",
                (query::SetKind::Union, true) => "Append",
                (query::SetKind::Union, false) => "Union materialize with deduplication",
                (query::SetKind::Except, _) => "Except materialize with deduplication",
                (query::SetKind::Intersect, _) => "Intersect materialize with deduplication",
            };
            let mut d = depth;
            if op.limit.is_some() {
                out.push(format!("{}-> Limit", pad(d)));
                d += 1;
            }
            if !op.order.is_empty() {
                out.push(format!("{}-> Sort", pad(d)));
                d += 1;
            }
            out.push(format!("{}-> {what}", pad(d)));
            tree_query(s, &op.left, d + 1, out);
            if let Some(r) = &op.right {
                tree_query(s, r, d + 1, out);
            }
        }
        Query::Recursive(r) => {
            out.push(format!("{}-> Materialize recursive CTE", pad(depth)));
            tree_query(s, &r.anchor, depth + 1, out);
            out.push(format!("{}-> Repeat until no new rows", pad(depth + 1)));
            tree_query(s, &r.step, depth + 2, out);
        }
    }
}

fn tree_block<E: KvEngine>(s: &Session<E>, p: &Plan, depth: usize, out: &mut Vec<String>) {
    let pad = |d: usize| "    ".repeat(d);
    let mut d = depth;
    let line =
        |d: usize, text: String, out: &mut Vec<String>| out.push(format!("{}-> {text}", pad(d)));
    if p.limit.is_some() {
        line(d, "Limit".into(), out);
        d += 1;
    }
    if p.distinct {
        line(d, "Remove duplicates".into(), out);
        d += 1;
    }
    if !p.order.is_empty() {
        line(d, "Sort".into(), out);
        d += 1;
    }
    if p.aggs.iter().any(|a| a.window.is_some()) {
        line(d, "Window aggregate".into(), out);
        d += 1;
    }
    if p.having.is_some() {
        line(d, "Filter (HAVING)".into(), out);
        d += 1;
    }
    if p.grouped {
        line(
            d,
            if p.group_by.is_empty() {
                "Aggregate".into()
            } else if p.rollup {
                "Group aggregate with rollup".into()
            } else {
                "Group aggregate (hash)".into()
            },
            out,
        );
        d += 1;
    }
    if p.from.is_empty() {
        line(d, "Rows fetched before execution".into(), out);
        return;
    }
    let conds: Vec<&Expr> = p.filter.as_ref().map(expr::conjuncts).unwrap_or_default();
    let order = join_order(p, &conds);
    if p.from.len() > 1 {
        let any_left = p.from.iter().any(|j| j.left);
        line(
            d,
            format!(
                "Nested loop {} join ({} tables, order: {})",
                if any_left { "left" } else { "inner" },
                p.from.len(),
                order
                    .iter()
                    .map(|&j| p.from[j].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            out,
        );
        d += 1;
    } else if p.filter.is_some() {
        line(d, "Filter (WHERE)".into(), out);
        d += 1;
    }
    for (step, &j) in order.iter().enumerate() {
        let jt = &p.from[j];
        match &jt.source {
            Source::Table(t) if step == 0 || p.from.len() == 1 => {
                let filter = if p.from.len() == 1 {
                    p.filter.as_ref()
                } else {
                    None
                };
                let path = access::choose(t, filter);
                let idx = &t.indexes[path.index];
                let text = if path.is_full_scan() {
                    format!("Table scan on {}", jt.name)
                } else if path.range.0.is_some()
                    || path.range.1.is_some()
                    || path.eq_prefixes.len() > 1
                {
                    format!("Index range scan on {} using {}", jt.name, idx.name)
                } else {
                    format!("Index lookup on {} using {}", jt.name, idx.name)
                };
                line(d, text, out);
            }
            Source::Table(_) => line(
                d,
                format!(
                    "Index lookup or hash probe on {} (chosen per step at run time)",
                    jt.name
                ),
                out,
            ),
            Source::Derived(q) => {
                line(d, format!("Table scan on {} (materialized)", jt.name), out);
                tree_query(s, q, d + 1, out);
            }
            Source::Work(_) => line(d, format!("Scan new records on {}", jt.name), out),
        }
    }
}

/// EXPLAIN [ANALYZE] [FORMAT=TRADITIONAL|TREE] for a query.
pub fn explain_statement<E: KvEngine>(
    s: &mut Session<E>,
    stmt: &ast::Statement,
    analyze: bool,
    format: Option<&ast::AnalyzeFormatKind>,
    sql: &str,
) -> Result<Output> {
    let fmt = format.map(|f| match f {
        ast::AnalyzeFormatKind::Keyword(k) | ast::AnalyzeFormatKind::Assignment(k) => *k,
    });
    if !analyze && matches!(fmt, None | Some(ast::AnalyzeFormat::TRADITIONAL)) {
        return explain(s, stmt, sql);
    }
    if !matches!(fmt, None | Some(ast::AnalyzeFormat::TREE)) {
        return Err(Error::not_supported("EXPLAIN FORMAT=JSON"));
    }
    let q = match stmt {
        ast::Statement::Query(q) => q,
        _ => return Err(Error::not_supported("EXPLAIN of this statement")),
    };
    let planned = query::plan(s, q, sql)?;
    let mut lines = Vec::new();
    tree_query(s, &planned, 0, &mut lines);
    if analyze {
        // run it: actual rows and time for the whole statement
        let start = std::time::Instant::now();
        let rows = s.with_ctx(&[], false, |s, ctx| query::run(s, &planned, ctx))?;
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        if let Some(first) = lines.first_mut() {
            first.push_str(&format!(
                "  (actual time={ms:.3} rows={} loops=1)",
                rows.len()
            ));
        }
    }
    Ok(Output::Rows {
        columns: vec![meta_for_type(
            "EXPLAIN",
            &ExprType::Str { max_chars: 65535 },
        )],
        rows: vec![vec![Value::Str(lines.join("\n") + "\n")]],
    })
}

/// EXPLAIN (MySQL's traditional tabular format).
pub fn explain<E: KvEngine>(
    s: &mut Session<E>,
    stmt: &ast::Statement,
    sql: &str,
) -> Result<Output> {
    let q = match stmt {
        ast::Statement::Query(q) => q,
        _ => return Err(Error::not_supported("EXPLAIN of this statement")),
    };
    let q = query::plan(s, q, sql)?;
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
    let mut rows = Vec::new();
    let mut next_id = 1;
    explain_query(s, &q, "SIMPLE", &mut next_id, &mut rows);
    for r in rows.iter_mut() {
        if r[0] == Value::Int(0) {
            r[0] = Value::Null;
        }
    }
    Ok(Output::Rows { columns, rows })
}

/// `NAME_CONST('name', value)` names its result column `name`.
fn name_const_name(e: &ast::Expr) -> Option<String> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    if !f.name.to_string().eq_ignore_ascii_case("NAME_CONST") {
        return None;
    }
    let ast::FunctionArguments::List(l) = &f.args else {
        return None;
    };
    match l.args.first() {
        Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v)))) => {
            match &v.value {
                ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                    Some(s.clone())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::session::test_support::{err, ok, rows, session};

    /// ORDER BY sorts positions and compares plain string columns by their collation weights:
    /// ties keep the scan's order, case compares equal under the default collation (a NO PAD
    /// one: 'a ' sorts after 'a'), NULL first, DESC, LIMIT (the partial sort), a second key and
    /// an expression key give what the build before this change gave.
    #[test]
    fn order_by_string_columns_ties_desc_and_limit() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE o (id INT PRIMARY KEY, c VARCHAR(10), n INT, b VARBINARY(10))",
        );
        ok(
            &mut s,
            "INSERT INTO o VALUES (1, 'b', 3, 'b'), (2, 'A', 1, 'A'), (3, 'a ', 2, 'a'), \
             (4, 'B', 2, 'B'), (5, NULL, 0, NULL), (6, 'a', 1, 'a')",
        );
        let got = |s: &mut crate::Session<storage::mem::MemEngine>, sql: &str| {
            rows(s, sql)
                .into_iter()
                .map(|r| r.join(","))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for (sql, want) in [
            ("SELECT id FROM o ORDER BY c", "5 2 6 3 1 4"),
            ("SELECT id FROM o ORDER BY c DESC", "1 4 3 2 6 5"),
            ("SELECT id FROM o ORDER BY c, n", "5 2 6 3 4 1"),
            ("SELECT id FROM o ORDER BY c DESC, n DESC LIMIT 3", "1 4 3"),
            ("SELECT id FROM o ORDER BY c LIMIT 2", "5 2"),
            ("SELECT id FROM o ORDER BY b", "5 2 4 3 6 1"),
            (
                "SELECT id FROM o ORDER BY CONCAT(c, 'x') LIMIT 4",
                "5 3 2 6",
            ),
            ("SELECT id FROM o ORDER BY c LIMIT 0", ""),
        ] {
            assert_eq!(got(&mut s, sql), want, "{sql}");
        }
    }

    /// Scans build only the columns a block reads; every clause that reads a column must
    /// still see its value.
    #[test]
    fn scans_decode_every_column_a_query_reads() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(20), pad VARCHAR(20), KEY(k))",
        );
        ok(&mut s, "CREATE TABLE u (x VARCHAR(20))");
        ok(&mut s, "INSERT INTO u VALUES ('c2'), ('c3')");
        for i in 1..=6 {
            ok(
                &mut s,
                &format!(
                    "INSERT INTO t VALUES ({i}, {}, 'c{i}', 'p{}')",
                    i % 2,
                    7 - i
                ),
            );
        }
        let cases: &[(&str, &str)] = &[
            ("SELECT c FROM t WHERE id BETWEEN 2 AND 4", "c2 c3 c4"),
            ("SELECT c, c FROM t WHERE id BETWEEN 2 AND 3", "c2,c2 c3,c3"),
            ("SELECT c FROM t WHERE id > 3 ORDER BY pad", "c6 c5 c4"),
            ("SELECT SUM(k) FROM t WHERE id BETWEEN 1 AND 6", "3"),
            (
                "SELECT k, MAX(pad) FROM t WHERE id > 0 GROUP BY k",
                "0,p5 1,p6",
            ),
            (
                "SELECT k FROM t WHERE id > 0 GROUP BY k HAVING MIN(c) = 'c1'",
                "1",
            ),
            (
                "SELECT id, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pad) FROM t \
                 WHERE id < 5 ORDER BY id",
                "1,2 2,2 3,1 4,1",
            ),
            (
                "SELECT GROUP_CONCAT(id ORDER BY pad) FROM t WHERE id BETWEEN 1 AND 3",
                "3,2,1",
            ),
            (
                "SELECT id FROM t WHERE id < 5 AND EXISTS (SELECT 1 FROM u WHERE u.x = t.c)",
                "2 3",
            ),
            ("SELECT id FROM t WHERE c IN (SELECT x FROM u)", "2 3"),
            (
                "SELECT DISTINCT k FROM t WHERE id BETWEEN 1 AND 6 ORDER BY k",
                "0 1",
            ),
            (
                "SELECT id FROM t WHERE k = 1 ORDER BY c DESC LIMIT 2",
                "5 3",
            ),
            ("SELECT * FROM t WHERE id = 6", "6,0,c6,p1"),
            ("SELECT t.* FROM t WHERE k = 0 AND id < 3", "2,0,c2,p5"),
            ("SELECT d.t.*, 1 FROM t WHERE id = 2", "2,0,c2,p5,1"),
            ("SELECT x.id, x.* FROM t AS x WHERE id = 3", "3,3,1,c3,p4"),
            (
                "SELECT u.*, t.id FROM t JOIN u ON u.x = t.c ORDER BY t.id",
                "c2,2 c3,3",
            ),
        ];
        for (sql, want) in cases {
            let got = rows(&mut s, sql)
                .into_iter()
                .map(|r| r.join(","))
                .collect::<Vec<_>>()
                .join(" ");
            assert_eq!(&got, want, "{sql}");
        }
        // FOUND_ROWS(): the rows of the last SELECT, or without its LIMIT after
        // SQL_CALC_FOUND_ROWS (also for a UNION, the modifier on its first SELECT)
        for (sql, found) in [
            ("SELECT id FROM t LIMIT 2", "2"),
            ("SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 2", "6"),
            (
                "SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE k = 1 LIMIT 1, 1",
                "3",
            ),
            ("SELECT SQL_CALC_FOUND_ROWS id FROM t WHERE id > 4", "2"),
            (
                "SELECT SQL_CALC_FOUND_ROWS id FROM t UNION SELECT 10 ORDER BY 1 LIMIT 3",
                "7",
            ),
            (
                "SELECT SQL_CALC_FOUND_ROWS k, COUNT(*) FROM t GROUP BY k LIMIT 1",
                "2",
            ),
        ] {
            rows(&mut s, sql);
            assert_eq!(rows(&mut s, "SELECT FOUND_ROWS()"), [[found]], "{sql}");
        }
        // column headers are the expression's text, INTERVAL units included
        let names = |s: &mut crate::Session<storage::mem::MemEngine>, sql: &str| match s
            .query(sql, false)
            .pop()
        {
            Some(Ok(crate::session::Output::Rows { columns, .. })) => {
                columns.into_iter().map(|c| c.name).collect::<Vec<_>>()
            }
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(
            names(
                &mut s,
                "SELECT NOW() > NOW() - INTERVAL 1 DAY, DATE_ADD('2020-01-01', INTERVAL 2 HOUR), \
                 '2020-01-01' + interval '1:30' minute_second x, INTERVAL(5, 1, 9)"
            ),
            [
                "NOW() > NOW() - INTERVAL 1 DAY",
                "DATE_ADD('2020-01-01', INTERVAL 2 HOUR)",
                "x",
                "INTERVAL(5, 1, 9)"
            ]
        );
        // a qualifier that names no table of the FROM clause
        for sql in [
            "SELECT z.* FROM t",
            "SELECT x.t.* FROM t",
            "SELECT t.* FROM t AS y",
        ] {
            assert_eq!(err(&mut s, sql), 1051, "{sql}");
        }
    }
}
