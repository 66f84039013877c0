//! The physical plan of a SELECT block, decided before any row is read: how each base table is
//! read ([`TableRead`]: access path and MySQL's access type), the join order, each join
//! step's method (index nested loop or hash join, [`StepMethod`]) and which conditions are
//! checked where. The executor ([`crate::exec::fetch`], [`crate::exec::join`],
//! [`crate::exec::select`], [`crate::exec::stream`]) runs this plan and nothing else, and
//! EXPLAIN ([`crate::plan::explain`]) prints it, so the two cannot disagree.
//!
//! Built per execution (as MySQL re-optimises a prepared statement each time): the
//! statistics of ANALYZE TABLE may have changed since the statement was prepared.

use std::sync::Arc;

use common::Collation;
use storage::catalog::TableDef;

use crate::catalog::stats::TableStatistics;
use crate::ir::block::{IndexHints, Plan, Source};
use crate::ir::expr::{conjuncts, CmpOp, Expr};
use crate::plan::access::{self, AccessPath};
use crate::plan::join_order::{join_order, tables_of};

/// The ANALYZE TABLE statistics of a table, as the caller's catalog has them.
pub type StatsFn<'a> = dyn Fn(&TableDef) -> Option<Arc<TableStatistics>> + 'a;

/// How a table is read, in MySQL's terms (EXPLAIN's `type` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessKind {
    /// At most one row, by a constant unique key.
    Const,
    /// Join lookup by a full unique key: at most one row per outer row.
    EqRef,
    /// Lookup by an index prefix (constants or outer columns).
    Ref,
    /// Ranges (or several points) of an index.
    Range,
    /// A whole index read in its order (for an ORDER BY), primary or secondary.
    Index,
    /// Join lookup through a range whose ends come from the outer row ("Range checked for
    /// each record"): EXPLAIN's type is ALL.
    RangeChecked,
    /// The whole table in primary-key order.
    All,
}

impl AccessKind {
    /// EXPLAIN's `type`.
    pub fn explain_type(self) -> &'static str {
        match self {
            AccessKind::Const => "const",
            AccessKind::EqRef => "eq_ref",
            AccessKind::Ref => "ref",
            AccessKind::Range => "range",
            AccessKind::Index => "index",
            AccessKind::RangeChecked | AccessKind::All => "ALL",
        }
    }
}

/// How one base table is read.
#[derive(Debug, Clone)]
pub struct TableRead {
    /// Index and key ranges.
    pub path: AccessPath,
    /// What EXPLAIN calls it.
    pub kind: AccessKind,
    /// `Some(reverse)` when reading the path (backwards if `reverse`) yields the rows in the
    /// block's one-column ORDER BY, so a LIMIT may stop the scan early.
    pub ordered: Option<bool>,
    /// The one-column ORDER BY the read was planned for ([`order_hint`]).
    pub order_hint: Option<(usize, bool)>,
}

impl TableRead {
    /// The read of `path`; `lookup` when its keys come from an outer row.
    fn new(path: AccessPath, lookup: bool) -> TableRead {
        let several = path.eq_prefixes.len() > 1;
        let range = path.range.0.is_some() || path.range.1.is_some();
        let kind = if path.is_full_scan() {
            AccessKind::All
        } else if lookup && (several || range) {
            AccessKind::RangeChecked
        } else if several || range {
            AccessKind::Range
        } else if path.unique_point {
            if lookup {
                AccessKind::EqRef
            } else {
                AccessKind::Const
            }
        } else {
            AccessKind::Ref
        };
        TableRead {
            path,
            kind,
            ordered: None,
            order_hint: None,
        }
    }

    /// A full scan of the primary key.
    pub fn full_scan() -> TableRead {
        TableRead::new(AccessPath::full_scan(), false)
    }

    /// The number of key parts the read uses (equality prefix plus the range column).
    pub fn key_parts(&self) -> usize {
        let eq = self.path.eq_prefixes.first().map_or(0, Vec::len);
        eq + usize::from(self.path.range.0.is_some() || self.path.range.1.is_some())
    }

    /// EXPLAIN's `key`: the index read, None for a full scan (and for a range re-planned
    /// per outer row, as MySQL shows it).
    pub fn explain_key<'t>(&self, t: &'t TableDef) -> Option<&'t str> {
        (!matches!(self.kind, AccessKind::All | AccessKind::RangeChecked))
            .then(|| t.indexes[self.path.index].name.as_str())
    }

    /// The fingerprint of the read as EXPLAIN shows it: `type` and `key`.
    pub fn fingerprint(&self, t: &TableDef) -> (&'static str, Option<String>) {
        (
            self.kind.explain_type(),
            self.explain_key(t).map(str::to_string),
        )
    }
}

/// The ORDER BY a table read is planned for: one column of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderWanted {
    /// The column (offset in the table's row).
    pub col: usize,
    /// ORDER BY … DESC.
    pub desc: bool,
    /// The block has a LIMIT: reading an index in order can stop early.
    pub limited: bool,
}

/// Plans the read of `t` for `filter` (over its own columns) with the indexes `hints` allow,
/// for the block's one-column ORDER BY `order`.
///
/// The read is in the ORDER BY's order (no sort) when the chosen key range is ordered by the
/// column after its equality prefix, or, when no index finds the rows, by reading a whole
/// index whose first column is the ORDER BY's: the primary key always (a table scan in key
/// order), a secondary index when the rows are then read without a condition and a LIMIT can
/// stop the scan early, or when FORCE INDEX names it (a table scan is the last resort then).
pub fn plan_table(
    t: &TableDef,
    filter: Option<&Expr>,
    order: Option<OrderWanted>,
    stats: Option<&TableStatistics>,
    hints: &IndexHints,
) -> TableRead {
    let path = access::choose_with_stats(t, filter, stats, hints.rows);
    let mut read = TableRead::new(path, false);
    read.order_hint = order.map(|o| (o.col, o.desc));
    let Some(o) = order else {
        return read;
    };
    // the column after the equality prefix of index `ino`, if it is the ORDER BY's
    let in_order = |ino: usize, eq: usize| {
        let ic = t.indexes[ino].columns.get(eq)?;
        (ic.col == o.col && ic.prefix_len.is_none() && hints.may_order(ino))
            .then_some(o.desc != ic.desc)
    };
    if read.path.eq_prefixes.len() == 1 {
        read.ordered = in_order(read.path.index, read.path.eq_prefixes[0].len());
    }
    if read.ordered.is_none() && read.path.is_full_scan() {
        let secondary_pays = hints.force || (o.limited && filter.is_none());
        let found = (1..t.indexes.len())
            .filter(|&i| secondary_pays && hints.may_read(i))
            .find_map(|i| in_order(i, 0).map(|rev| (i, rev)));
        if let Some((ino, rev)) = found {
            read.path.index = ino;
            read.ordered = Some(rev);
        }
    }
    if read.ordered.is_some() && read.path.is_full_scan() {
        read.kind = AccessKind::Index;
    }
    read
}

/// Hash join key: (column inside the build table, expression over earlier tables, collation).
pub type HashKey = (usize, Expr, Collation);

/// How a join step reads its FROM item.
#[derive(Debug, Clone)]
pub enum StepMethod {
    /// Read once (a base table through `read`, a derived table materialised), kept in memory
    /// and probed by a hash on `keys` for each outer row (every row when `keys` is empty: the
    /// first step, or a join without an equality).
    Hash {
        /// The read of a base table (None for a derived table or CTE).
        read: Option<TableRead>,
        /// Equi-join keys.
        keys: Vec<HashKey>,
    },
    /// Index nested loop: for each outer row, the table's key ranges over that row's values.
    Lookup {
        /// Key expressions over the outer row.
        read: TableRead,
    },
}

/// One step of a join: a FROM item added to the rows of the steps before it.
#[derive(Debug, Clone)]
pub struct JoinStep {
    /// The FROM item (index into `Plan::from`).
    pub item: usize,
    /// How its rows are read.
    pub method: StepMethod,
    /// Conditions on this item alone (over its own columns), checked as its rows are read.
    pub local: Option<Expr>,
    /// Conditions checked on the joined row (row offsets of the block).
    pub conds: Vec<Expr>,
    /// Lookup only: joined-row conditions the key ranges decide exactly, checked only when a
    /// value could not be made a key and the table was scanned instead.
    pub covered: Vec<Expr>,
}

impl JoinStep {
    /// The base-table read of this step, if any.
    pub fn read(&self) -> Option<&TableRead> {
        match &self.method {
            StepMethod::Hash { read, .. } => read.as_ref(),
            StepMethod::Lookup { read } => Some(read),
        }
    }
}

/// The plan of a block with several FROM items.
#[derive(Debug, Clone)]
pub struct JoinPlan {
    /// The steps in join order.
    pub steps: Vec<JoinStep>,
    /// Conditions checked after the last step (all of WHERE when a LEFT JOIN is present).
    pub rest: Vec<Expr>,
    /// A LEFT JOIN is present (FROM order kept, WHERE applied after the joins).
    pub outer: bool,
}

/// Plans the join of `p`'s FROM items under the WHERE conjuncts `where_conj` (those without
/// correlated subqueries): the greedy order of [`join_order`], then per step the conditions
/// whose tables are all placed, an index nested loop when an index serves the lookup and a
/// hash join otherwise.
pub fn plan_join(p: &Plan, where_conj: &[&Expr], stats: &StatsFn<'_>) -> JoinPlan {
    let outer = p.from.iter().any(|j| j.left);
    let mut all_inner: Vec<&Expr> = where_conj.to_vec();
    if !outer {
        for jt in &p.from {
            if let Some(on) = &jt.on {
                all_inner.extend(conjuncts(on));
            }
        }
    }
    let order = join_order(p, &all_inner);
    let mut placed = vec![false; p.from.len()];
    let mut used = vec![false; all_inner.len()];
    let mut steps = Vec::with_capacity(order.len());
    for (n, &j) in order.iter().enumerate() {
        placed[j] = true;
        let jt = &p.from[j];
        let mut conds: Vec<&Expr> = Vec::new();
        if outer {
            if let Some(on) = &jt.on {
                conds.extend(conjuncts(on));
            }
        } else {
            for (ci, c) in all_inner.iter().enumerate() {
                let ts = tables_of(&p.from, c);
                if !used[ci] && ts.iter().all(|t| placed[*t]) && (ts.contains(&j) || ts.is_empty())
                {
                    used[ci] = true;
                    conds.push(c);
                }
            }
        }
        steps.push(plan_step(p, j, n == 0, &conds, stats));
    }
    let rest = if outer {
        where_conj.iter().map(|c| (*c).clone()).collect()
    } else {
        all_inner
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(c, _)| (*c).clone())
            .collect()
    };
    JoinPlan { steps, rest, outer }
}

/// One join step: FROM item `j` with the conditions `conds` (block offsets).
fn plan_step(p: &Plan, j: usize, first: bool, conds: &[&Expr], stats: &StatsFn<'_>) -> JoinStep {
    let jt = &p.from[j];
    let (lo, hi) = (jt.offset, jt.offset + jt.width);
    let is_local = |c: &Expr| {
        let cols = c.columns();
        !cols.is_empty() && cols.iter().all(|&i| i >= lo && i < hi)
    };
    let (local, cross): (Vec<&Expr>, Vec<&Expr>) = conds.iter().partition(|c| is_local(c));
    let local: Vec<Expr> = local
        .iter()
        .map(|c| c.map_cols(&|i| Expr::Col(i - lo)))
        .collect();
    let local_filter = and_owned(local.clone());
    if let (Source::Table(t), false) = (&jt.source, first) {
        if t.id != 0 && !cross.is_empty() {
            // the probe: local conditions first (so the path's covered numbers below
            // `local.len()` are the local filter's conjuncts), then the cross ones with the
            // outer row's columns after the table's own
            let n = t.columns.len();
            let probe: Vec<Expr> = local
                .iter()
                .cloned()
                .chain(cross.iter().map(|c| {
                    c.map_cols(&|i| {
                        if i >= lo && i < hi {
                            Expr::Col(i - lo)
                        } else {
                            Expr::Col(n + i)
                        }
                    })
                }))
                .collect();
            let st = stats(t);
            let path = access::choose_lookup(
                t,
                &and_owned(probe).expect("probe"),
                st.as_deref(),
                jt.hints.rows,
            );
            if !path.is_full_scan() {
                let (mut checked, mut covered) = (Vec::new(), Vec::new());
                for (ci, c) in cross.iter().enumerate() {
                    if path.covered.contains(&(local.len() + ci)) {
                        covered.push((*c).clone());
                    } else {
                        checked.push((*c).clone());
                    }
                }
                return JoinStep {
                    item: j,
                    method: StepMethod::Lookup {
                        read: TableRead::new(path, true),
                    },
                    local: local_filter,
                    conds: checked,
                    covered,
                };
            }
        }
    }
    let read = match &jt.source {
        Source::Table(t) => {
            let st = stats(t);
            Some(plan_table(
                t,
                local_filter.as_ref(),
                None,
                st.as_deref(),
                &jt.hints,
            ))
        }
        _ => None,
    };
    let keys = if first {
        Vec::new()
    } else {
        hash_keys(p, lo, hi, &cross)
    };
    JoinStep {
        item: j,
        method: StepMethod::Hash { read, keys },
        local: local_filter,
        conds: cross.iter().map(|c| (*c).clone()).collect(),
        covered: Vec::new(),
    }
}

/// The equalities `col = expr` among `conds` with `col` in the step's table (`lo..hi`) and
/// `expr` over earlier tables, of comparable types (numbers with numbers, strings with
/// strings: a hash of the value stands for equality only then).
fn hash_keys(p: &Plan, lo: usize, hi: usize, conds: &[&Expr]) -> Vec<HashKey> {
    let width = p.scope.cols.len();
    let local = |i: usize| i >= lo && i < hi;
    let mut keys = Vec::new();
    for c in conds {
        if let Expr::Cmp(CmpOp::Eq, a, b, coll) = c {
            for (x, y) in [(a, b), (b, a)] {
                if let Expr::Col(col) = **x {
                    if !local(col) || y.columns().iter().any(|&i| local(i)) {
                        continue;
                    }
                    let tx = crate::bind::expr::expr_type(x, &p.scope, &p.aggs, width);
                    let ty = crate::bind::expr::expr_type(y, &p.scope, &p.aggs, width);
                    let cls = type_class(&tx);
                    if cls != 0 && cls == type_class(&ty) {
                        keys.push((col - lo, (**y).clone(), *coll));
                        break;
                    }
                }
            }
        }
    }
    keys
}

fn type_class(t: &func::types::ExprType) -> u8 {
    if t.is_numeric() {
        1
    } else if t.is_string() {
        2
    } else {
        0
    }
}

/// The conjunction of `conds` (None when empty).
pub fn and_owned(conds: Vec<Expr>) -> Option<Expr> {
    conds
        .into_iter()
        .reduce(|a, b| Expr::And(Box::new(a), Box::new(b)))
}

/// The plan of one SELECT block.
#[derive(Debug, Clone)]
pub enum BlockPlan {
    /// No FROM.
    NoTables,
    /// One base table.
    Table(TableRead),
    /// Several FROM items, or one that is not a base table.
    Join(JoinPlan),
}

/// Plans block `p` whose WHERE conjuncts without subqueries make `plain_filter`: one base
/// table's read, or the join. The block's subqueries must have been resolved where they are
/// uncorrelated, as the executor does before planning.
pub fn plan_block(p: &Plan, plain_filter: Option<&Expr>, stats: &StatsFn<'_>) -> BlockPlan {
    if p.from.is_empty() {
        return BlockPlan::NoTables;
    }
    match p.single_table() {
        Some(t) => {
            let st = stats(t);
            let hints = &p.from[0].hints;
            let order = order_hint(p).map(|(col, desc)| OrderWanted {
                col,
                desc,
                limited: p.limit.is_some(),
            });
            BlockPlan::Table(plan_table(t, plain_filter, order, st.as_deref(), hints))
        }
        None => {
            let plain = plain_filter.map(conjuncts).unwrap_or_default();
            BlockPlan::Join(plan_join(p, &plain, stats))
        }
    }
}

/// The one-column ORDER BY a single-table block may read in index order (column,
/// descending): only when nothing between the scan and the sort reorders or needs all rows.
pub fn order_hint(p: &Plan) -> Option<(usize, bool)> {
    let simple = !p.grouped
        && !p.distinct
        && !p.filter.as_ref().is_some_and(Expr::has_subquery)
        && p.aggs.iter().all(|a| a.window.is_none());
    match p.order.as_slice() {
        [(Expr::Col(c), desc)] if simple => Some((*c, *desc)),
        _ => None,
    }
}
