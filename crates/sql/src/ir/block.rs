//! A bound SELECT block ([`Plan`]): its sources, scope, conditions, grouping, select list,
//! ordering and limit, as the binder leaves it.

use std::sync::Arc;

use common::ColumnMeta;
use func::types::ExprType;
use storage::catalog::TableDef;
use storage::txn::LockMode;

use crate::ir::expr::AggCall;
use crate::ir::expr::Expr;
use crate::ir::query::Query;
use crate::ir::scope::Scope;

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
    /// Row locking mode (FOR UPDATE / FOR SHARE): the strongest of the block's clauses.
    pub lock: LockMode,
    /// `FOR UPDATE OF a FOR SHARE OF b`: the tables (names or aliases) the clauses name, each
    /// with its mode; empty when the clause names none (then `lock` is every table's).
    pub lock_of: Vec<(String, LockMode)>,
    /// NOWAIT / SKIP LOCKED of the locking clause.
    pub lock_wait: storage::txn::lock::WaitPolicy,
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
    /// USE / FORCE / IGNORE INDEX of a base table.
    pub hints: IndexHints,
}

/// A base table's index hints (`USE | FORCE | IGNORE INDEX [FOR JOIN | ORDER BY | GROUP BY]`)
/// resolved to sets of index numbers (bit `i` = `TableDef::indexes[i]`; a table has at most
/// 64 indexes): which indexes may find rows, and which may give the ORDER BY order. Without
/// hints every index may be used for both. `FOR GROUP BY` hints are checked (their names
/// must exist) and need no set: Strata groups by hashing or sorting, never in index order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexHints {
    /// Indexes allowed for finding rows (`FOR JOIN`, or no FOR clause).
    pub rows: u64,
    /// Indexes whose order may stand for the ORDER BY (`FOR ORDER BY`, or no FOR clause).
    pub order: u64,
    /// FORCE INDEX: a table scan is used only when no allowed index can find the rows.
    pub force: bool,
}

impl Default for IndexHints {
    fn default() -> Self {
        IndexHints::NONE
    }
}

impl IndexHints {
    /// No hints: every index allowed.
    pub const NONE: IndexHints = IndexHints {
        rows: u64::MAX,
        order: u64::MAX,
        force: false,
    };

    /// True if index `ino` may be used to find rows.
    pub fn may_read(&self, ino: usize) -> bool {
        ino < 64 && self.rows & (1 << ino) != 0
    }

    /// True if index `ino`'s order may stand for the ORDER BY.
    pub fn may_order(&self, ino: usize) -> bool {
        ino < 64 && self.order & (1 << ino) != 0
    }
}

impl Plan {
    /// How the block's locking clause reads the table named (or aliased) `name`.
    pub fn lock_for(&self, name: &str) -> LockMode {
        if self.lock_of.is_empty() {
            return self.lock;
        }
        self.lock_of
            .iter()
            .find(|(t, _)| t == name)
            .map_or(LockMode::None, |(_, m)| *m)
    }

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
        let m = |e: &Expr| crate::ir::query::map_expr_deep(e, depth, f);
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
                        Box::new(crate::ir::expr::WindowDef {
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
    pub(crate) fn used_columns(&self, width: usize) -> Option<Arc<[bool]>> {
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
            lock_of: _,
            lock_wait: _,
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
                let crate::ir::expr::WindowDef {
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

    pub(crate) fn has_subquery(&self) -> bool {
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
