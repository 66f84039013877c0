//! Query expressions above a single SELECT block: set operations (UNION / EXCEPT / INTERSECT),
//! common table expressions (incl. RECURSIVE) and subqueries, as bound trees ([`Query`],
//! [`SubQuery`], [`Cte`]).

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use common::{codes, ColumnMeta, Error, Result, Value};
use func::types::ExprType;

use crate::ir::block::Plan;
use crate::ir::expr::Expr;

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

pub(crate) static NEXT_WORK_ID: AtomicUsize = AtomicUsize::new(1);

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

pub(crate) type SubMemo =
    std::cell::RefCell<std::collections::HashMap<*const SubQuery, Arc<SubQuery>>>;

pub(crate) fn map_expr_memo(
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
pub(crate) fn bind_outer_row(q: &Query, row: &[Value]) -> Query {
    q.map_exprs(1, &|e, d| match e {
        Expr::Outer(level, i) if *level == d => {
            Some(Expr::Lit(row.get(*i).cloned().unwrap_or(Value::Null)))
        }
        _ => None,
    })
}

// ---------------------------------------------------------------------------------------------
// Planning
