//! Query expressions above a single SELECT block: set operations (UNION / EXCEPT / INTERSECT),
//! common table expressions (incl. RECURSIVE), subqueries in expressions (scalar, EXISTS, IN)
//! and their correlation with the enclosing block.
//!
//! Uncorrelated subqueries run once per statement execution and are replaced by their result
//! (a literal or a literal IN-list); correlated ones run once per outer row after the outer
//! references (`Expr::Outer`) have been replaced by that row's values.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering as AtOrd};
use std::sync::Arc;

use common::{codes, ColumnMeta, Error, Result, Value};
use func::types::ExprType;
use sqlparser::ast;
use storage::engine::KvEngine;

use crate::expr::{Binder, EvalCtx, Expr, Scope, ScopeCol};
use crate::select::{self, meta_for_type, Plan, Source};
use crate::session::Session;

/// A bound query: one SELECT block, or a tree of them.
#[derive(Debug, Clone)]
pub enum Query {
    /// A single SELECT block.
    Select(Box<Plan>),
    /// A set operation, or a parenthesised query with its own ORDER BY / LIMIT.
    SetOp(Box<SetOp>),
    /// WITH RECURSIVE: anchor rows, then the recursive step until it adds nothing.
    Recursive(Box<RecursiveCte>),
}

/// Kinds of set operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetKind {
    /// UNION
    Union,
    /// EXCEPT
    Except,
    /// INTERSECT
    Intersect,
    /// `(query) ORDER BY .. LIMIT ..`: one input, no set operation.
    Paren,
}

/// `left <op> right [ORDER BY ..] [LIMIT ..]`.
#[derive(Debug, Clone)]
pub struct SetOp {
    /// Which operation.
    pub kind: SetKind,
    /// ALL (keep duplicates).
    pub all: bool,
    /// Left input.
    pub left: Query,
    /// Right input (None for `Paren`).
    pub right: Option<Query>,
    /// ORDER BY over the output columns.
    pub order: Vec<(Expr, bool)>,
    /// LIMIT.
    pub limit: Option<Expr>,
    /// OFFSET.
    pub offset: Option<Expr>,
    /// Output metadata.
    pub columns: Vec<ColumnMeta>,
    /// Output types.
    pub types: Vec<ExprType>,
}

/// A recursive common table expression.
#[derive(Debug, Clone)]
pub struct RecursiveCte {
    /// Working-table id the step reads.
    pub id: usize,
    /// The non-recursive part.
    pub anchor: Query,
    /// The recursive part (reads the previous iteration through `Source::Work(id)`).
    pub step: Query,
    /// UNION DISTINCT between iterations.
    pub distinct: bool,
    /// Output metadata.
    pub columns: Vec<ColumnMeta>,
    /// Output types.
    pub types: Vec<ExprType>,
}

/// A named common table expression visible to FROM clauses.
#[derive(Debug, Clone)]
pub struct Cte {
    /// Name.
    pub name: String,
    /// Definition.
    pub body: CteBody,
}

/// What a CTE name stands for.
#[derive(Debug, Clone)]
pub enum CteBody {
    /// A query (planned once, run where referenced).
    Query(Query),
    /// Inside its own recursive step: the previous iteration's rows.
    Work {
        /// Working-table id.
        id: usize,
        /// Columns.
        columns: Vec<ColumnMeta>,
        /// Types.
        types: Vec<ExprType>,
    },
}

/// A subquery used inside an expression.
#[derive(Debug)]
pub struct SubQuery {
    /// The query.
    pub query: Query,
    /// True if it references columns of an enclosing block.
    pub correlated: bool,
    /// Type of its first column (for a scalar subquery's metadata).
    pub first_type: ExprType,
}

impl SubQuery {
    /// Error 1241 unless the subquery returns exactly `n` columns.
    pub fn require_columns(&self, n: usize) -> Result<()> {
        if self.query.columns().len() != n {
            return Err(Error::new(
                codes::ER_OPERAND_COLUMNS,
                format!("Operand should contain {n} column(s)"),
            ));
        }
        Ok(())
    }
}

static NEXT_WORK_ID: AtomicUsize = AtomicUsize::new(1);

impl Query {
    /// Output column metadata.
    pub fn columns(&self) -> &[ColumnMeta] {
        match self {
            Query::Select(p) => &p.columns,
            Query::SetOp(s) => &s.columns,
            Query::Recursive(r) => &r.columns,
        }
    }

    /// Output column types.
    pub fn types(&self) -> &[ExprType] {
        match self {
            Query::Select(p) => &p.types,
            Query::SetOp(s) => &s.types,
            Query::Recursive(r) => &r.types,
        }
    }

    /// The first SELECT block (where INTO and locking live).
    pub fn first_block(&self) -> &Plan {
        match self {
            Query::Select(p) => p,
            Query::SetOp(s) => s.left.first_block(),
            Query::Recursive(r) => r.anchor.first_block(),
        }
    }

    /// Renames the output columns (derived-table / CTE column lists).
    pub fn rename_columns(&mut self, names: &[String]) -> Result<()> {
        let cols = match self {
            Query::Select(p) => &mut p.columns,
            Query::SetOp(s) => &mut s.columns,
            Query::Recursive(r) => &mut r.columns,
        };
        if names.len() != cols.len() {
            return Err(Error::new(
                codes::ER_VIEW_WRONG_LIST,
                "In definition of view, derived table or common table expression, SELECT list and column names list have different column counts",
            ));
        }
        for (c, n) in cols.iter_mut().zip(names) {
            c.name = n.clone();
        }
        Ok(())
    }

    /// A copy with the expressions of this query (and of every nested query) rewritten by `f`,
    /// which receives the nesting depth relative to this query (0 = this query's own blocks).
    pub fn map_exprs(&self, depth: usize, f: &dyn Fn(&Expr, usize) -> Option<Expr>) -> Query {
        match self {
            Query::Select(p) => Query::Select(Box::new(p.map_exprs(depth, f))),
            Query::SetOp(s) => Query::SetOp(Box::new(SetOp {
                left: s.left.map_exprs(depth, f),
                right: s.right.as_ref().map(|r| r.map_exprs(depth, f)),
                ..(**s).clone()
            })),
            Query::Recursive(r) => Query::Recursive(Box::new(RecursiveCte {
                anchor: r.anchor.map_exprs(depth, f),
                step: r.step.map_exprs(depth, f),
                ..(**r).clone()
            })),
        }
    }

    /// True if anything inside refers to a block `depth` or more levels above this query.
    pub fn references_outer(&self, depth: usize) -> bool {
        let found = std::cell::Cell::new(false);
        self.map_exprs(depth, &|e, d| {
            e.walk(&mut |x| {
                if let Expr::Outer(level, _) = x {
                    if *level >= d {
                        found.set(true)
                    }
                }
            });
            None
        });
        found.get()
    }
}

/// Rewrites `e` at nesting `depth` with `f`, descending into subqueries at `depth + 1`.
pub fn map_expr_deep(e: &Expr, depth: usize, f: &dyn Fn(&Expr, usize) -> Option<Expr>) -> Expr {
    // the columns of one row subquery (`Expr::RowSub`) keep sharing one rewritten subquery
    let memo = std::cell::RefCell::new(std::collections::HashMap::new());
    map_expr_memo(e, depth, f, &memo)
}

type SubMemo = std::cell::RefCell<std::collections::HashMap<*const SubQuery, Arc<SubQuery>>>;

fn map_expr_memo(
    e: &Expr,
    depth: usize,
    f: &dyn Fn(&Expr, usize) -> Option<Expr>,
    memo: &SubMemo,
) -> Expr {
    if let Some(r) = f(e, depth) {
        return r;
    }
    e.rewrite(&mut |x| {
        if let Some(r) = f(x, depth) {
            return Some(r);
        }
        let sub = |q: &Arc<SubQuery>| {
            if let Some(done) = memo.borrow().get(&Arc::as_ptr(q)) {
                return done.clone();
            }
            let new = Arc::new(SubQuery {
                query: q.query.map_exprs(depth + 1, f),
                correlated: q.correlated,
                first_type: q.first_type,
            });
            memo.borrow_mut().insert(Arc::as_ptr(q), new.clone());
            new
        };
        match x {
            Expr::Subquery(q) => Some(Expr::Subquery(sub(q))),
            Expr::RowSub(q, i) => Some(Expr::RowSub(sub(q), *i)),
            Expr::Exists(q) => Some(Expr::Exists(sub(q))),
            Expr::InSubquery(a, q, n, c) => Some(Expr::InSubquery(
                Box::new(map_expr_memo(a, depth, f, memo)),
                sub(q),
                *n,
                *c,
            )),
            Expr::Quantified(op, a, q, all, c) => Some(Expr::Quantified(
                *op,
                Box::new(map_expr_memo(a, depth, f, memo)),
                sub(q),
                *all,
                *c,
            )),
            _ => None,
        }
    })
}

/// Replaces the references to the block `depth` levels up with the values of `row`.
fn bind_outer_row(q: &Query, row: &[Value]) -> Query {
    q.map_exprs(1, &|e, d| match e {
        Expr::Outer(level, i) if *level == d => {
            Some(Expr::Lit(row.get(*i).cloned().unwrap_or(Value::Null)))
        }
        _ => None,
    })
}

// ---------------------------------------------------------------------------------------------
// Planning

/// Plans a top-level query.
pub fn plan<E: KvEngine>(s: &Session<E>, q: &ast::Query, sql: &str) -> Result<Query> {
    plan_query(s, q, sql, &Scope::default())
}

/// Plans a query whose FROM clauses see the CTEs of `env` and whose correlated references
/// resolve in `env.outer`.
pub fn plan_query<E: KvEngine>(
    s: &Session<E>,
    q: &ast::Query,
    sql: &str,
    env: &Scope,
) -> Result<Query> {
    let mut env = Scope {
        cols: vec![],
        outer: env.outer.clone(),
        ctes: env.ctes.clone(),
    };
    if let Some(with) = &q.with {
        for cte in &with.cte_tables {
            let name = cte.alias.name.value.clone();
            let names: Vec<String> = cte
                .alias
                .columns
                .iter()
                .map(|c| c.name.value.clone())
                .collect();
            let mut body = if with.recursive {
                plan_recursive(s, &name, &cte.query, sql, &env, &names)?
            } else {
                plan_query(s, &cte.query, sql, &env)?
            };
            if !names.is_empty() {
                body.rename_columns(&names)?;
            }
            env.ctes.push(Arc::new(Cte {
                name,
                body: CteBody::Query(body),
            }));
        }
    }
    plan_body(
        s,
        &q.body,
        q.order_by.as_ref(),
        &q.limit_clause,
        &q.locks,
        sql,
        &env,
    )
}

fn plan_recursive<E: KvEngine>(
    s: &Session<E>,
    name: &str,
    q: &ast::Query,
    sql: &str,
    env: &Scope,
    names: &[String],
) -> Result<Query> {
    let (left, right, all) = match q.body.as_ref() {
        ast::SetExpr::SetOperation {
            op: ast::SetOperator::Union,
            set_quantifier,
            left,
            right,
        } if mentions_table(right, name) => (
            left,
            right,
            matches!(set_quantifier, ast::SetQuantifier::All),
        ),
        // not actually recursive
        _ => return plan_query(s, q, sql, env),
    };
    let mut anchor = plan_body(s, left, None, &None, &[], sql, env)?;
    if !names.is_empty() {
        anchor.rename_columns(names)?;
    }
    let id = NEXT_WORK_ID.fetch_add(1, AtOrd::Relaxed);
    let mut step_env = env.clone();
    step_env.ctes.push(Arc::new(Cte {
        name: name.to_string(),
        body: CteBody::Work {
            id,
            columns: anchor.columns().to_vec(),
            types: anchor.types().to_vec(),
        },
    }));
    let step = plan_body(s, right, None, &None, &[], sql, &step_env)?;
    if step.columns().len() != anchor.columns().len() {
        return Err(wrong_column_count());
    }
    Ok(Query::Recursive(Box::new(RecursiveCte {
        id,
        columns: anchor.columns().to_vec(),
        types: anchor.types().to_vec(),
        anchor,
        step,
        distinct: !all,
    })))
}

fn mentions_table(e: &ast::SetExpr, name: &str) -> bool {
    // A textual check is enough to decide whether the CTE refers to itself.
    let text = e.to_string().to_ascii_lowercase();
    let n = name.to_ascii_lowercase();
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .any(|w| w == n)
}

fn wrong_column_count() -> Error {
    Error::new(
        codes::ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
        "The used SELECT statements have a different number of columns",
    )
}

#[allow(clippy::too_many_arguments)]
fn plan_body<E: KvEngine>(
    s: &Session<E>,
    body: &ast::SetExpr,
    order_by: Option<&ast::OrderBy>,
    limit: &Option<ast::LimitClause>,
    locks: &[ast::LockClause],
    sql: &str,
    env: &Scope,
) -> Result<Query> {
    match body {
        ast::SetExpr::Select(sel) => Ok(Query::Select(Box::new(select::plan_block(
            s, sel, order_by, limit, locks, sql, env,
        )?))),
        ast::SetExpr::Query(inner) => {
            let q = plan_query(s, inner, sql, env)?;
            if order_by.is_none() && limit.is_none() {
                return Ok(q);
            }
            finish_setop(s, SetKind::Paren, true, q, None, order_by, limit, env)
        }
        ast::SetExpr::SetOperation {
            op,
            set_quantifier,
            left,
            right,
        } => {
            let kind = match op {
                ast::SetOperator::Union => SetKind::Union,
                ast::SetOperator::Except | ast::SetOperator::Minus => SetKind::Except,
                ast::SetOperator::Intersect => SetKind::Intersect,
            };
            let all = matches!(set_quantifier, ast::SetQuantifier::All);
            let l = plan_body(s, left, None, &None, &[], sql, env)?;
            let r = plan_body(s, right, None, &None, &[], sql, env)?;
            if l.columns().len() != r.columns().len() {
                return Err(wrong_column_count());
            }
            finish_setop(s, kind, all, l, Some(r), order_by, limit, env)
        }
        other => Err(Error::not_supported(format!(
            "query body {}",
            other.to_string().split_whitespace().next().unwrap_or("")
        ))),
    }
}

/// Binds ORDER BY / LIMIT over the output columns of a set operation.
#[allow(clippy::too_many_arguments)]
fn finish_setop<E: KvEngine>(
    s: &Session<E>,
    kind: SetKind,
    all: bool,
    left: Query,
    right: Option<Query>,
    order_by: Option<&ast::OrderBy>,
    limit: &Option<ast::LimitClause>,
    env: &Scope,
) -> Result<Query> {
    let mut columns = left.columns().to_vec();
    let mut types = left.types().to_vec();
    if let Some(r) = &right {
        for (i, (t, rt)) in types.iter_mut().zip(r.types()).enumerate() {
            if t != rt {
                *t = func::types::merge(t, rt);
                let name = columns[i].name.clone();
                columns[i] = meta_for_type(&name, t);
            }
        }
        for (c, rc) in columns.iter_mut().zip(r.columns()) {
            // nullable if either side is
            if rc.flags & common::types::column_flags::NOT_NULL == 0 {
                c.flags &= !common::types::column_flags::NOT_NULL;
            }
        }
        for c in columns.iter_mut() {
            // the result of a set operation belongs to no table
            c.table.clear();
            c.org_table.clear();
            c.org_name.clear();
            c.schema.clear();
        }
    }
    let out_scope = Scope {
        cols: columns
            .iter()
            .zip(&types)
            .map(|(c, t)| ScopeCol {
                db: String::new(),
                table: String::new(),
                org_table: String::new(),
                name: c.name.clone(),
                ty: None,
                nullable: true,
                flags: 0,
                ety: Some(*t),
            })
            .collect(),
        outer: env.outer.clone(),
        ctes: env.ctes.clone(),
    };
    let mut order = Vec::new();
    if let Some(ob) = order_by {
        if let ast::OrderByKind::Expressions(list) = &ob.kind {
            for o in list {
                let e = match &o.expr {
                    ast::Expr::Value(v) if matches!(v.value, ast::Value::Number(..)) => {
                        let n = v.value.to_string();
                        let pos: usize = n.parse().map_err(|_| Error::parse(&n))?;
                        if pos == 0 || pos > columns.len() {
                            return Err(Error::bad_field(&n, "order clause"));
                        }
                        Expr::Col(pos - 1)
                    }
                    e => Binder::new(&out_scope, s, "order clause").bind(e)?,
                };
                order.push((e, matches!(o.options.sort, Some(ast::OrderBySort::Desc))));
            }
        }
    }
    let (limit, offset) = select::bind_limit_clause(s, limit)?;
    Ok(Query::SetOp(Box::new(SetOp {
        kind,
        all,
        left,
        right,
        order,
        limit,
        offset,
        columns,
        types,
    })))
}

/// Plans a subquery appearing in an expression bound in `outer`.
pub fn plan_subquery<E: KvEngine>(
    s: &Session<E>,
    q: &ast::Query,
    outer: &Scope,
) -> Result<Arc<SubQuery>> {
    let env = Scope {
        cols: vec![],
        outer: Some(Arc::new(outer.clone())),
        ctes: outer.ctes.clone(),
    };
    let query = plan_query(s, q, "", &env)?;
    let correlated = query.references_outer(1);
    let first_type = query.types().first().cloned().unwrap_or(ExprType::Null);
    Ok(Arc::new(SubQuery {
        query,
        correlated,
        first_type,
    }))
}

// ---------------------------------------------------------------------------------------------
// Execution

/// Runs a query, returning its rows.
pub fn run<E: KvEngine>(
    s: &mut Session<E>,
    q: &Query,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    match q {
        Query::Select(p) => select::run_plan(s, p, ctx),
        Query::SetOp(op) => run_setop(s, op, ctx),
        Query::Recursive(r) => run_recursive(s, r, ctx),
    }
}

fn row_key(row: &[Value], coll: common::Collation) -> Vec<u8> {
    let mut k = Vec::new();
    for v in row {
        func::compare::hash_key(v, coll, &mut k);
        k.push(0xFE);
    }
    k
}

fn run_setop<E: KvEngine>(
    s: &mut Session<E>,
    op: &SetOp,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let coll = ctx.fnctx.collation;
    let left = run(s, &op.left, ctx)?;
    let mut rows = match &op.right {
        None => left,
        Some(r) => {
            let right = run(s, r, ctx)?;
            match op.kind {
                SetKind::Union | SetKind::Paren => {
                    let mut out = left;
                    out.extend(right);
                    let mut mem = crate::limits::MemTracker::new();
                    for r in &out {
                        mem.add_row(r)?;
                    }
                    if !op.all {
                        let mut seen = HashSet::new();
                        out.retain(|r| seen.insert(row_key(r, coll)));
                    }
                    out
                }
                SetKind::Except | SetKind::Intersect => {
                    let mut rset = std::collections::HashMap::new();
                    for r in &right {
                        *rset.entry(row_key(r, coll)).or_insert(0usize) += 1;
                    }
                    let mut seen = HashSet::new();
                    let mut out = Vec::new();
                    let mut mem = crate::limits::MemTracker::new();
                    for r in left {
                        let k = row_key(&r, coll);
                        let n = rset.get_mut(&k);
                        let keep = match (op.kind, n) {
                            (SetKind::Except, None) => true,
                            (SetKind::Except, Some(c)) => {
                                if op.all && *c == 0 {
                                    true
                                } else {
                                    if op.all {
                                        *c -= 1;
                                    }
                                    false
                                }
                            }
                            (_, Some(c)) if *c > 0 => {
                                if op.all {
                                    *c -= 1;
                                }
                                true
                            }
                            _ => false,
                        };
                        if keep && (op.all || seen.insert(k)) {
                            mem.add_row(&r)?;
                            out.push(r);
                        }
                    }
                    out
                }
            }
        }
    };
    if !op.order.is_empty() {
        select::sort_rows(s, &mut rows, &op.order, &[], None, ctx)?;
    }
    let limit = select::eval_limit(&op.limit, ctx)?;
    let offset = select::eval_limit(&op.offset, ctx)?.unwrap_or(0) as usize;
    if offset > 0 || limit.is_some() {
        let end = limit
            .map(|l| offset.saturating_add(l as usize))
            .unwrap_or(usize::MAX);
        rows = rows
            .into_iter()
            .skip(offset)
            .take(end.saturating_sub(offset))
            .collect();
    }
    Ok(rows)
}

fn run_recursive<E: KvEngine>(
    s: &mut Session<E>,
    r: &RecursiveCte,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    let coll = ctx.fnctx.collation;
    let max_depth = s
        .var("cte_max_recursion_depth")
        .and_then(|v| match v {
            Value::Int(i) => Some(i as u64),
            Value::UInt(u) => Some(u),
            _ => None,
        })
        .unwrap_or(1000);
    let mut seen = HashSet::new();
    let mut out = run(s, &r.anchor, ctx)?;
    if r.distinct {
        out.retain(|row| seen.insert(row_key(row, coll)));
    }
    let mut work = out.clone();
    let mut depth = 0u64;
    while !work.is_empty() {
        depth += 1;
        if depth > max_depth {
            s.work_tables.remove(&r.id);
            return Err(Error::new(
                codes::ER_CTE_MAX_RECURSION_DEPTH,
                format!(
                    "Recursive query aborted after {} iterations. Try increasing @@cte_max_recursion_depth to a larger value.",
                    depth
                ),
            ));
        }
        s.work_tables
            .insert(r.id, Arc::new(std::mem::take(&mut work)));
        let res = run(s, &r.step, ctx);
        let mut next = match res {
            Ok(n) => n,
            Err(e) => {
                s.work_tables.remove(&r.id);
                return Err(e);
            }
        };
        if r.distinct {
            next.retain(|row| seen.insert(row_key(row, coll)));
        }
        out.extend(next.iter().cloned());
        work = next;
    }
    s.work_tables.remove(&r.id);
    Ok(out)
}

/// Runs a subquery (its outer references already bound) and folds its result into an
/// expression node.
fn fold_subquery<E: KvEngine>(
    s: &mut Session<E>,
    e: &Expr,
    q: &Query,
    lhs: Option<Expr>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Expr> {
    let rows = run(s, q, ctx)?;
    Ok(match e {
        Expr::Subquery(_) => {
            if rows.len() > 1 {
                return Err(Error::new(
                    codes::ER_SUBQUERY_NO_1_ROW,
                    "Subquery returns more than 1 row",
                ));
            }
            Expr::Lit(
                rows.into_iter()
                    .next()
                    .and_then(|r| r.into_iter().next())
                    .unwrap_or(Value::Null),
            )
        }
        Expr::Exists(_) => Expr::Lit(Value::Int(!rows.is_empty() as i64)),
        Expr::InSubquery(_, _, neg, coll) if matches!(&lhs, Some(Expr::Func(n, _)) if n == crate::expr::ROW_MARKER) =>
        {
            // (a, b) IN rows == OR over rows of (a = x AND b = y), three-valued
            let Some(Expr::Func(_, items)) = lhs else {
                return Err(Error::internal("row constructor"));
            };
            let alts: Vec<Expr> = rows
                .into_iter()
                .filter_map(|r| {
                    let eqs: Vec<Expr> = items
                        .iter()
                        .zip(r)
                        .map(|(a, v)| {
                            Expr::Cmp(
                                crate::expr::CmpOp::Eq,
                                Box::new(a.clone()),
                                Box::new(Expr::Lit(v)),
                                *coll,
                            )
                        })
                        .collect();
                    balanced(eqs, true)
                })
                .collect();
            let any = balanced(alts, false).unwrap_or(Expr::Lit(Value::Int(0)));
            if *neg {
                Expr::Not(Box::new(any))
            } else {
                any
            }
        }
        Expr::InSubquery(_, _, neg, coll) => {
            let list = rows
                .into_iter()
                .map(|r| Expr::Lit(r.into_iter().next().unwrap_or(Value::Null)))
                .collect::<Vec<_>>();
            if list.is_empty() {
                // x IN (empty set) is false even for NULL x
                Expr::Lit(Value::Int(*neg as i64))
            } else {
                Expr::InList(
                    Box::new(lhs.unwrap_or(Expr::Lit(Value::Null))),
                    list.into(),
                    *neg,
                    *coll,
                )
            }
        }
        Expr::Quantified(op, _, _, all, coll) => {
            // x op ANY (v1..vn) == (x op v1) OR … ; ALL == AND …, with SQL's three-valued
            // logic giving MySQL's NULL results; empty set: ANY false, ALL true. A balanced
            // tree keeps evaluation depth logarithmic.
            let lhs = lhs.unwrap_or(Expr::Lit(Value::Null));
            let cmps: Vec<Expr> = rows
                .into_iter()
                .map(|r| {
                    Expr::Cmp(
                        *op,
                        Box::new(lhs.clone()),
                        Box::new(Expr::Lit(r.into_iter().next().unwrap_or(Value::Null))),
                        *coll,
                    )
                })
                .collect();
            balanced(cmps, *all).unwrap_or(Expr::Lit(Value::Int(*all as i64)))
        }
        _ => return Err(Error::internal("fold_subquery on a non-subquery")),
    })
}

/// Combines conditions with AND (`all`) or OR as a balanced tree.
fn balanced(mut v: Vec<Expr>, all: bool) -> Option<Expr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        n => {
            let right = v.split_off(n / 2);
            let (a, b) = (balanced(v, all)?, balanced(right, all)?);
            Some(if all {
                Expr::And(Box::new(a), Box::new(b))
            } else {
                Expr::Or(Box::new(a), Box::new(b))
            })
        }
    }
}

/// Replaces subqueries in `e` by their results: uncorrelated ones always, correlated ones only
/// when `row` (the enclosing block's current row) is given.
pub fn resolve<E: KvEngine>(
    s: &mut Session<E>,
    e: &Expr,
    row: Option<&[Value]>,
    ctx: &mut EvalCtx<'_>,
) -> Result<Expr> {
    if !e.has_subquery() {
        return Ok(e.clone());
    }
    let mut err = None;
    // row subqueries: the single row, per subquery (all its columns are in this expression)
    let mut rows: std::collections::HashMap<*const SubQuery, Vec<Value>> = Default::default();
    let out = e.rewrite(&mut |x| {
        if err.is_some() {
            return None;
        }
        if let Expr::RowSub(q, i) = x {
            if q.correlated && row.is_none() {
                return None;
            }
            let one = match rows.entry(Arc::as_ptr(q)) {
                std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                std::collections::hash_map::Entry::Vacant(slot) => {
                    let res = if q.correlated {
                        run(s, &bind_outer_row(&q.query, row.unwrap_or(&[])), ctx)
                    } else {
                        run(s, &q.query, ctx)
                    };
                    match res {
                        Ok(r) if r.len() > 1 => {
                            err = Some(Error::new(
                                codes::ER_SUBQUERY_NO_1_ROW,
                                "Subquery returns more than 1 row",
                            ));
                            return None;
                        }
                        Ok(r) => slot.insert(r.into_iter().next().unwrap_or_default()),
                        Err(e) => {
                            err = Some(e);
                            return None;
                        }
                    }
                }
            };
            return Some(Expr::Lit(one.get(*i).cloned().unwrap_or(Value::Null)));
        }
        let (q, lhs) = match x {
            Expr::Subquery(q) | Expr::Exists(q) => (q, None),
            Expr::InSubquery(a, q, ..) | Expr::Quantified(_, a, q, ..) => (q, Some(a)),
            _ => return None,
        };
        if q.correlated && row.is_none() {
            // keep the node, but still resolve what the left-hand side contains
            if let Some(a) = lhs {
                let a2 = match resolve(s, a, row, ctx) {
                    Ok(a2) => Box::new(a2),
                    Err(e) => {
                        err = Some(e);
                        return None;
                    }
                };
                return match x {
                    Expr::InSubquery(_, q2, n, c) => Some(Expr::InSubquery(a2, q2.clone(), *n, *c)),
                    Expr::Quantified(op, _, q2, all, c) => {
                        Some(Expr::Quantified(*op, a2, q2.clone(), *all, *c))
                    }
                    _ => None,
                };
            }
            return None;
        }
        let lhs = match lhs.map(|a| resolve(s, a, row, ctx)).transpose() {
            Ok(l) => l,
            Err(e) => {
                err = Some(e);
                return None;
            }
        };
        let r = if q.correlated {
            let bound = bind_outer_row(&q.query, row.unwrap_or(&[]));
            fold_subquery(s, x, &bound, lhs, ctx)
        } else {
            fold_subquery(s, x, &q.query, lhs, ctx)
        };
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                err = Some(e);
                None
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// Evaluates `e` for `row`, running correlated subqueries for that row first.
pub fn eval<E: KvEngine>(
    s: &mut Session<E>,
    e: &Expr,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Value> {
    if e.has_subquery() {
        resolve(s, e, Some(row), ctx)?.eval(row, ctx)
    } else {
        e.eval(row, ctx)
    }
}

/// `eval` as a condition.
pub fn eval_bool<E: KvEngine>(
    s: &mut Session<E>,
    e: &Expr,
    row: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<bool> {
    let v = eval(s, e, row, ctx)?;
    Ok(crate::expr::truth(&v, ctx) == Some(true))
}

/// Materialises a FROM source that isn't a base table.
pub fn source_rows<E: KvEngine>(
    s: &mut Session<E>,
    src: &Source,
    ctx: &mut EvalCtx<'_>,
) -> Result<Arc<Vec<Vec<Value>>>> {
    match src {
        Source::Derived(q) => Ok(Arc::new(run(s, q, ctx)?)),
        Source::Work(id) => s
            .work_tables
            .get(id)
            .cloned()
            .ok_or_else(|| Error::internal("recursive CTE working table missing")),
        Source::Table(_) => Err(Error::internal("source_rows on a base table")),
    }
}

#[cfg(test)]
mod tests {
    use crate::session::test_support::{err, ok, rows, session};

    fn one(v: &[&str]) -> Vec<Vec<String>> {
        vec![v.iter().map(|s| s.to_string()).collect()]
    }

    #[test]
    fn row_constructors_compare_element_by_element() {
        let mut s = session();
        assert_eq!(
            rows(
                &mut s,
                "SELECT (1, 2) = (1, 2), (1, NULL) = (2, NULL), (1, NULL) <> (1, 2), \
                 (1, 2) < (1, 3), (NULL, 1) < (2, 1), (2, NULL) > (1, 5), (1, NULL) <=> (1, NULL), \
                 ROW(1, 2) >= ROW(1, 2), ((1, 2), 3) = ((1, 2), 3)"
            ),
            one(&["1", "0", "NULL", "1", "NULL", "1", "1", "1", "1"])
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT (1, 2) IN ((0, 0), (1, 2)), (1, 2) IN ((1, 3), (NULL, 2))"
            ),
            one(&["1", "NULL"])
        );
        // arity mismatches: the left operand's width
        assert_eq!(err(&mut s, "SELECT (1, 2) = (1, 2, 3)"), 1241);
        assert_eq!(err(&mut s, "SELECT 1 = (1, 2)"), 1241);
        assert_eq!(err(&mut s, "SELECT (1, 2)"), 1241);
        assert_eq!(err(&mut s, "SELECT ROW(1, 2) IS NULL"), 1241);
    }

    #[test]
    fn row_subqueries() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE q (k INT PRIMARY KEY, x INT, y INT)");
        ok(&mut s, "INSERT INTO q VALUES (1, 1, 2), (2, 2, 1)");
        assert_eq!(
            rows(
                &mut s,
                "SELECT (1, 2) = (SELECT x, y FROM q WHERE k = 1), \
                 (SELECT x, y FROM q WHERE k = 2) > (1, 9), \
                 (1, 2) = (SELECT x, y FROM q WHERE k = 3), \
                 (SELECT x, y FROM q WHERE k = 1) = (SELECT x, y FROM q WHERE k = 1)"
            ),
            one(&["1", "1", "NULL", "1"])
        );
        // correlated: per outer row
        assert_eq!(
            rows(
                &mut s,
                "SELECT k, (x, y) = (SELECT y, x FROM q AS o WHERE o.k = 3 - q.k) FROM q ORDER BY k"
            ),
            vec![vec!["1", "1"], vec!["2", "1"]]
                .into_iter()
                .map(|r| r.into_iter().map(String::from).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT (2, 1) = ANY (SELECT x, y FROM q), (2, 1) <> ALL (SELECT x, y FROM q)"
            ),
            one(&["1", "0"])
        );
        assert_eq!(err(&mut s, "SELECT (1, 2) = (SELECT x, y FROM q)"), 1242);
        assert_eq!(
            err(&mut s, "SELECT (1, 2) = (SELECT x FROM q WHERE k = 1)"),
            1241
        );
        assert_eq!(
            err(&mut s, "SELECT (1, 2) < ANY (SELECT x, y FROM q)"),
            1241
        );
    }

    #[test]
    fn grouping_marks_super_aggregate_rows() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE g (a INT, b INT, n INT)");
        ok(
            &mut s,
            "INSERT INTO g VALUES (1, 1, 1), (1, 2, 2), (2, 1, 4)",
        );
        let r = rows(
            &mut s,
            "SELECT a, b, SUM(n), GROUPING(a), GROUPING(b), GROUPING(a, b), GROUPING(b, a) \
             FROM g GROUP BY a, b WITH ROLLUP",
        );
        let marks: Vec<Vec<&str>> = r
            .iter()
            .map(|x| x[3..].iter().map(|v| v.as_str()).collect())
            .collect();
        assert_eq!(
            marks,
            vec![
                vec!["0", "0", "0", "0"],
                vec!["0", "0", "0", "0"],
                vec!["0", "1", "1", "2"],
                vec!["0", "0", "0", "0"],
                vec!["0", "1", "1", "2"],
                vec!["1", "1", "3", "3"],
            ]
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT a, SUM(n) FROM g GROUP BY a WITH ROLLUP HAVING GROUPING(a) = 1"
            ),
            one(&["NULL", "7"])
        );
        assert_eq!(err(&mut s, "SELECT GROUPING(a) FROM g GROUP BY a"), 1111);
        assert_eq!(
            err(
                &mut s,
                "SELECT a FROM g WHERE GROUPING(a) = 0 GROUP BY a WITH ROLLUP"
            ),
            1111
        );
        assert_eq!(
            err(&mut s, "SELECT GROUPING(n) FROM g GROUP BY a WITH ROLLUP"),
            3602
        );
    }
}
