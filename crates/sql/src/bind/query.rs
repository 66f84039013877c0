//! Binding query expressions: set operations, CTEs (incl. RECURSIVE) and subqueries in
//! expressions, with their correlation to the enclosing block.

use std::sync::atomic::Ordering as AtOrd;
use std::sync::Arc;

use common::{codes, Error, Result};
use func::types::ExprType;
use sqlparser::ast;
use storage::engine::KvEngine;

use crate::bind::expr::Binder;
use crate::bind::select::meta_for_type;
use crate::ir::expr::Expr;
use crate::ir::query::Cte;
use crate::ir::query::CteBody;
use crate::ir::query::Query;
use crate::ir::query::RecursiveCte;
use crate::ir::query::SetKind;
use crate::ir::query::SetOp;
use crate::ir::query::SubQuery;
use crate::ir::query::NEXT_WORK_ID;
use crate::ir::scope::Scope;
use crate::ir::scope::ScopeCol;
use crate::session::session::Session;

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
        coalesced: vec![],
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

pub(crate) fn plan_recursive<E: KvEngine>(
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

pub(crate) fn mentions_table(e: &ast::SetExpr, name: &str) -> bool {
    // A textual check is enough to decide whether the CTE refers to itself.
    let text = e.to_string().to_ascii_lowercase();
    let n = name.to_ascii_lowercase();
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .any(|w| w == n)
}

pub(crate) fn wrong_column_count() -> Error {
    Error::new(
        codes::ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
        "The used SELECT statements have a different number of columns",
    )
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn plan_body<E: KvEngine>(
    s: &Session<E>,
    body: &ast::SetExpr,
    order_by: Option<&ast::OrderBy>,
    limit: &Option<ast::LimitClause>,
    locks: &[ast::LockClause],
    sql: &str,
    env: &Scope,
) -> Result<Query> {
    match body {
        ast::SetExpr::Select(sel) => Ok(Query::Select(Box::new(crate::bind::select::plan_block(
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
pub(crate) fn finish_setop<E: KvEngine>(
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
        coalesced: vec![],
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
    let (limit, offset) = crate::bind::select::bind_limit_clause(s, limit)?;
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
        coalesced: vec![],
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
