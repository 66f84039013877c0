//! Access-path selection: from a WHERE clause's conjuncts, pick the index and key ranges to
//! read (primary-key point gets, IN lists as several points, equality prefixes plus one range
//! on the next column), falling back to a full primary-key scan. The WHERE is re-checked on
//! every fetched row, so a chosen path only needs to be a superset; only the conjuncts the key
//! range is known to decide exactly (integer columns, see [`AccessPath::covered`]) are left
//! out of that check.

use std::ops::Bound;

use common::{Result, Value};
use storage::catalog::{IndexKind, TableDef};

use crate::ir::expr::conjuncts;
use crate::ir::expr::CmpOp;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;

/// A constraint on one table column found in the WHERE clause, with the number of the
/// conjunct each part came from (the last one wins).
#[derive(Debug, Clone, Default)]
struct ColPred {
    eq: Option<(Vec<Expr>, usize)>,
    lo: Option<(Expr, bool, usize)>,
    hi: Option<(Expr, bool, usize)>,
}

impl ColPred {
    /// The conjuncts the range on this column (its `lo` and `hi`) fully stands for: each one
    /// whose every bound is in use. `two_sided` lists the conjuncts that set both bounds
    /// (BETWEEN): `a BETWEEN 1 AND 9 AND a < 5` uses the BETWEEN's low bound only, so the
    /// BETWEEN is still checked.
    fn range_sources(&self, two_sided: &[usize]) -> Vec<usize> {
        let lo = self.lo.as_ref().map(|l| l.2);
        let hi = self.hi.as_ref().map(|h| h.2);
        if lo.is_some() && lo == hi {
            return lo.into_iter().collect();
        }
        lo.into_iter()
            .chain(hi)
            .filter(|n| !two_sided.contains(n))
            .collect()
    }
}

/// True if the index range on a column of type `ty` selects exactly the rows a comparison of
/// it with a constant accepts: integers, where [`exact_key_value`] admits only constants that
/// convert without loss. (String keys compare under the column's collation, which the
/// comparison may not use.)
fn range_is_exact(ty: &common::DataType) -> bool {
    matches!(ty, common::DataType::Int { .. })
}

/// One end of a range on an index column: the bounding expression and whether it is inclusive.
pub type RangeEnd = (Expr, bool);

/// The chosen way to read a table.
#[derive(Debug, Clone)]
pub struct AccessPath {
    /// Index number in `TableDef::indexes` (0 = primary).
    pub index: usize,
    /// Equality prefix alternatives (cartesian product of IN lists), each a list of constant exprs.
    pub eq_prefixes: Vec<Vec<Expr>>,
    /// Optional range on the column after the prefix: (low, inclusive), (high, inclusive).
    pub range: (Option<RangeEnd>, Option<RangeEnd>),
    /// True if every prefix is a full unique key (at most one row per prefix).
    pub unique_point: bool,
    /// Numbers (in [`conjuncts`] order) of the WHERE conjuncts every row of the path's key
    /// ranges satisfies, so they need not be evaluated again; valid only when [`ranges`]
    /// returns ranges for the path (it refuses inexact constants).
    pub covered: Vec<usize>,
}

impl AccessPath {
    /// A full scan of the primary key.
    pub fn full_scan() -> Self {
        AccessPath {
            index: 0,
            eq_prefixes: vec![vec![]],
            range: (None, None),
            unique_point: false,
            covered: Vec::new(),
        }
    }

    /// True for a full scan.
    pub fn is_full_scan(&self) -> bool {
        self.eq_prefixes.iter().all(|p| p.is_empty())
            && self.range.0.is_none()
            && self.range.1.is_none()
    }
}

/// `col <op> k` where `col` is a column of the table (offset below `ncols`) and `k` is a key
/// value: a constant, or (for a join lookup) an expression over the outer row only, whose
/// columns sit at offsets `ncols + i` (see [`choose_lookup`]).
fn col_key(a: &Expr, b: &Expr, ncols: usize) -> Option<(usize, Expr)> {
    match (a, b) {
        (Expr::Col(c), k) if *c < ncols && is_key_value(k, ncols) => Some((*c, k.clone())),
        _ => None,
    }
}

/// True if `k` is fixed while one table is read: constant, or reading only outer columns
/// (offsets `>= ncols`, or an enclosing block's columns, which a correlated subquery has
/// replaced by literals before it runs) through deterministic functions.
fn is_key_value(k: &Expr, ncols: usize) -> bool {
    if k.is_const() {
        return true;
    }
    if k.has_subquery() || k.columns().iter().any(|&c| c < ncols) {
        return false;
    }
    k.rewrite(&mut |x| match x {
        Expr::Col(_) | Expr::Outer(..) => Some(Expr::Lit(Value::Null)),
        _ => None,
    })
    .is_const()
}

/// Picks the best access path for `filter` on table `t` (whose columns are at row offsets
/// `0..t.columns.len()`).
pub fn choose(t: &TableDef, filter: Option<&Expr>) -> AccessPath {
    choose_with_stats(t, filter, None, u64::MAX)
}

/// [`choose`] among the indexes in `allowed` (bit `i` = index `i`, see
/// [`crate::ir::block::IndexHints`]), preferring the index with the fewest estimated rows when
/// ANALYZE TABLE statistics are available.
pub fn choose_with_stats(
    t: &TableDef,
    filter: Option<&Expr>,
    stats: Option<&crate::catalog::stats::TableStatistics>,
    allowed: u64,
) -> AccessPath {
    match filter {
        Some(f) => choose_keys(t, f, stats, t.columns.len(), allowed),
        None => AccessPath::full_scan(),
    }
}

/// The access path of an index nested-loop join step: `probe` holds the step's conditions
/// with the table's own columns at `0..t.columns.len()` and the outer row's column `i` at
/// `t.columns.len() + i`. The chosen path's key expressions read the outer row (its column
/// `i` at offset `i`), so [`ranges`] evaluates them against each outer row; a full scan
/// means no index (of those in `allowed`) serves the lookup.
pub fn choose_lookup(
    t: &TableDef,
    probe: &Expr,
    stats: Option<&crate::catalog::stats::TableStatistics>,
    allowed: u64,
) -> AccessPath {
    let n = t.columns.len();
    let mut path = choose_keys(t, probe, stats, n, allowed);
    let to_outer = |e: &Expr| e.map_cols(&|i| Expr::Col(i - n));
    for pre in &mut path.eq_prefixes {
        for e in pre.iter_mut() {
            *e = to_outer(e);
        }
    }
    for end in [&mut path.range.0, &mut path.range.1].into_iter().flatten() {
        end.0 = to_outer(&end.0);
    }
    path
}

fn choose_keys(
    t: &TableDef,
    filter: &Expr,
    stats: Option<&crate::catalog::stats::TableStatistics>,
    ncols: usize,
    allowed: u64,
) -> AccessPath {
    let key = |a: &Expr, b: &Expr| col_key(a, b, ncols);
    let is_key = |e: &Expr| is_key_value(e, ncols);
    let mut preds: Vec<ColPred> = vec![ColPred::default(); t.columns.len()];
    // BETWEENs set both bounds; a BETWEEN stands for its conjunct only if both are in use
    let mut two_sided = Vec::new();
    for (n, c) in conjuncts(filter).into_iter().enumerate() {
        match c {
            Expr::Cmp(op, a, b, _) => {
                let (col, k, op) = match (key(a, b), key(b, a)) {
                    (Some((c, k)), _) => (c, k, *op),
                    (None, Some((c, k))) => (c, k, op.flip()),
                    _ => continue,
                };
                if col >= preds.len() {
                    continue;
                }
                let p = &mut preds[col];
                match op {
                    CmpOp::Eq => p.eq = Some((vec![k], n)),
                    CmpOp::Lt => p.hi = Some((k, false, n)),
                    CmpOp::Le => p.hi = Some((k, true, n)),
                    CmpOp::Gt => p.lo = Some((k, false, n)),
                    CmpOp::Ge => p.lo = Some((k, true, n)),
                    _ => {}
                }
            }
            Expr::InList(a, list, false, _) => {
                if let Expr::Col(col) = **a {
                    if col < preds.len() && list.iter().all(is_key) && preds[col].eq.is_none() {
                        preds[col].eq = Some((list.to_vec(), n));
                    }
                }
            }
            Expr::Between(a, lo, hi, false, _) => {
                if let Expr::Col(col) = **a {
                    if col < preds.len() && is_key(lo) && is_key(hi) {
                        preds[col].lo = Some(((**lo).clone(), true, n));
                        preds[col].hi = Some(((**hi).clone(), true, n));
                        two_sided.push(n);
                    }
                }
            }
            _ => {}
        }
    }
    let mut best: Option<(i64, AccessPath)> = None;
    for (ino, idx) in t.indexes.iter().enumerate() {
        if ino >= 64 || allowed & (1 << ino) == 0 {
            continue;
        }
        let mut prefixes: Vec<Vec<Expr>> = vec![vec![]];
        let mut eq_cols = 0;
        let mut range = (None, None);
        let mut covered = Vec::new();
        for ic in &idx.columns {
            let p = &preds[ic.col];
            if ic.prefix_len.is_some() {
                break;
            }
            let exact = range_is_exact(&t.columns[ic.col].ty);
            if let Some((eq, src)) = &p.eq {
                if prefixes.len() * eq.len() > 4096 {
                    break;
                }
                if exact {
                    covered.push(*src);
                }
                let mut next = Vec::with_capacity(prefixes.len() * eq.len());
                for pre in &prefixes {
                    for v in eq {
                        let mut n = pre.clone();
                        n.push(v.clone());
                        next.push(n);
                    }
                }
                prefixes = next;
                eq_cols += 1;
                continue;
            }
            if p.lo.is_some() || p.hi.is_some() {
                let side = |b: &Option<(Expr, bool, usize)>| {
                    b.as_ref().map(|(e, incl, _)| (e.clone(), *incl))
                };
                range = (side(&p.lo), side(&p.hi));
                if exact {
                    covered.extend(p.range_sources(&two_sided));
                }
            }
            break;
        }
        let full = eq_cols == idx.columns.len() && !idx.columns.is_empty();
        let unique = full
            && matches!(idx.kind, IndexKind::Primary | IndexKind::Unique)
            && !(t.hidden_pk && ino == 0);
        let has_range = range.0.is_some() || range.1.is_some();
        if eq_cols == 0 && !has_range {
            continue;
        }
        let mut score = eq_cols as i64 * 10 + if has_range { 5 } else { 0 };
        if unique {
            score += 1000;
        }
        if ino == 0 {
            score += 2;
        }
        if let Some(st) = stats {
            // with statistics, the estimated number of rows read decides between non-unique
            // equality paths (fewer is better); unique points stay on top
            if !unique && eq_cols > 0 {
                if let Some(rpk) = st.rows_per_key(ino, eq_cols) {
                    let est = rpk * prefixes.len() as f64;
                    score = 500 - (est.log2().max(0.0) * 10.0) as i64 + eq_cols as i64;
                }
            }
        }
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((
                score,
                AccessPath {
                    index: ino,
                    eq_prefixes: prefixes,
                    range,
                    unique_point: unique,
                    covered,
                },
            ));
        }
    }
    best.map(|(_, p)| p).unwrap_or_else(AccessPath::full_scan)
}

/// A concrete key range (values already converted to the column types).
pub type KeyRange = (Bound<Vec<Value>>, Bound<Vec<Value>>);

/// Evaluates the path's key expressions (constants, or for a join lookup expressions over the
/// outer row `outer`) into key ranges for the storage layer. Returns `None` when a value can't
/// be represented exactly in the column type (e.g. `int_col = 1.5`); the caller then scans
/// fully and lets the WHERE decide.
pub fn ranges(
    t: &TableDef,
    path: &AccessPath,
    outer: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<Vec<KeyRange>>> {
    let idx = &t.indexes[path.index];
    let mut out = Vec::with_capacity(path.eq_prefixes.len());
    // `IN (1, 1, 2)` must not read key 1 twice: remember the prefixes already used
    let mut seen = std::collections::HashSet::new();
    let mut keyed: Vec<(Vec<Value>, KeyRange)> = Vec::new();
    for pre in &path.eq_prefixes {
        let mut vals = Vec::with_capacity(pre.len() + 1);
        for (i, e) in pre.iter().enumerate() {
            let col = &t.columns[idx.columns[i].col];
            let v = e.eval(outer, ctx)?;
            if v.is_null() {
                // `col = NULL` matches nothing
                vals.clear();
                break;
            }
            match exact_key_value(&v, &col.ty, ctx) {
                Some(k) => vals.push(k),
                None => return Ok(None),
            }
        }
        if vals.len() != pre.len() {
            continue;
        }
        if path.eq_prefixes.len() > 1 {
            let mut k = Vec::new();
            for (i, v) in vals.iter().enumerate() {
                let coll = t.columns[idx.columns[i].col].ty.collation();
                func::compare::hash_key(v, coll, &mut k);
                k.push(0xFE);
            }
            if !seen.insert(k) {
                continue;
            }
        }
        let next = idx.columns.get(pre.len());
        let mut start = Bound::Included(vals.clone());
        let mut end = Bound::Included(vals.clone());
        if let Some(ic) = next {
            let col = &t.columns[ic.col];
            // a DESC column stores keys in reverse: the scan starts at the high bound, and
            // NULLs (first in ascending order) come last
            let (first_side, last_side) = if ic.desc {
                (&path.range.1, &path.range.0)
            } else {
                (&path.range.0, &path.range.1)
            };
            let after_nulls = || {
                let mut b = vals.clone();
                b.push(Value::Null);
                Bound::Excluded(b)
            };
            match range_bound(first_side, &vals, &col.ty, outer, ctx)? {
                RangeBound::Bound(b) => start = b,
                RangeBound::Empty => continue,
                RangeBound::Inexact => return Ok(None),
                // skip the NULLs sorting first: start after the NULL prefix
                RangeBound::None if !ic.desc && last_side.is_some() => start = after_nulls(),
                RangeBound::None => {}
            }
            match range_bound(last_side, &vals, &col.ty, outer, ctx)? {
                RangeBound::Bound(b) => end = b,
                RangeBound::Empty => continue,
                RangeBound::Inexact => return Ok(None),
                // DESC: stop before the NULLs sorting last
                RangeBound::None if ic.desc && first_side.is_some() => end = after_nulls(),
                RangeBound::None => {}
            }
        }
        keyed.push((vals, (unbound_empty(start), unbound_empty(end))));
    }
    // read the ranges in key order, as an index scan would
    if keyed.len() > 1 {
        keyed.sort_by(|a, b| {
            for (i, (x, y)) in a.0.iter().zip(&b.0).enumerate() {
                let coll = t.columns[idx.columns[i].col].ty.collation();
                match func::compare::compare(x, y, coll) {
                    Some(std::cmp::Ordering::Equal) | None => {}
                    Some(o) => return o,
                }
            }
            std::cmp::Ordering::Equal
        });
    }
    out.extend(keyed.into_iter().map(|(_, r)| r));
    Ok(Some(out))
}

/// Converts `v` to the column type only if the conversion is lossless for comparison purposes.
pub(crate) fn exact_key_value(
    v: &Value,
    ty: &common::DataType,
    ctx: &mut EvalCtx<'_>,
) -> Option<Value> {
    let mut w = Vec::new();
    let k = func::store::store(v.clone(), ty, false, "", 1, &mut w).ok()?;
    if !w.is_empty() {
        return None;
    }
    let coll = ty.collation();
    match func::compare::compare(&k, v, coll) {
        Some(std::cmp::Ordering::Equal) => {
            let _ = ctx;
            Some(k)
        }
        _ => None,
    }
}

enum RangeBound {
    /// No bound on this side.
    None,
    /// The bound, as a key prefix.
    Bound(Bound<Vec<Value>>),
    /// Compared with NULL: matches nothing.
    Empty,
    /// Not exactly representable in the column type.
    Inexact,
}

/// One side of the range on the column after the equality prefix `vals`.
fn range_bound(
    side: &Option<(Expr, bool)>,
    vals: &[Value],
    ty: &common::DataType,
    outer: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<RangeBound> {
    let Some((e, incl)) = side else {
        return Ok(RangeBound::None);
    };
    let v = e.eval(outer, ctx)?;
    if v.is_null() {
        return Ok(RangeBound::Empty);
    }
    Ok(match exact_key_value(&v, ty, ctx) {
        Some(k) => {
            let mut b = vals.to_vec();
            b.push(k);
            RangeBound::Bound(if *incl {
                Bound::Included(b)
            } else {
                Bound::Excluded(b)
            })
        }
        None => RangeBound::Inexact,
    })
}

fn unbound_empty(b: Bound<Vec<Value>>) -> Bound<Vec<Value>> {
    match b {
        Bound::Included(v) | Bound::Excluded(v) if v.is_empty() => Bound::Unbounded,
        b => b,
    }
}

#[cfg(test)]
mod tests {
    use crate::session::session::test_support::{ok, rows, session};

    /// The first column of each row of `sql`, joined with commas.
    fn firsts(s: &mut crate::Session<storage::mem::MemEngine>, sql: &str) -> String {
        rows(s, sql)
            .into_iter()
            .map(|r| r[0].clone())
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Conjuncts the key range stands for are not re-checked; all others still are. Each
    /// query's answer is what a full check of the WHERE gives.
    #[test]
    fn only_conjuncts_the_range_decides_are_dropped() {
        let mut s = session();
        ok(
            &mut s,
            "CREATE TABLE t (a INT PRIMARY KEY, b INT, s VARCHAR(10), KEY(b, a), KEY(s))",
        );
        for a in 1..=9 {
            ok(
                &mut s,
                &format!(
                    "INSERT INTO t VALUES ({a}, {}, '{}')",
                    a % 3,
                    if a % 2 == 0 { "abc" } else { "ABC" }
                ),
            );
        }
        let cases = [
            ("a BETWEEN 2 AND 9 AND a < 5", "2,3,4"),
            ("a < 5 AND a BETWEEN 2 AND 9", "2,3,4"),
            ("a BETWEEN 2 AND 9 AND a > 6", "7,8,9"),
            ("a > 5 AND a > 3", "6,7,8,9"),
            ("a > 3 AND a > 5", "6,7,8,9"),
            ("a >= 3 AND a <= 3", "3"),
            ("a = 3 AND a = 4", ""),
            ("a IN (1, 2, 3) AND a = 2", "2"),
            ("a = 2 AND a IN (1, 3)", ""),
            ("a = '3'", "3"),
            ("a = 2.5", ""),
            ("a BETWEEN 2.5 AND 4", "3,4"),
            ("a BETWEEN 2 AND NULL", ""),
            ("b = 1 AND a BETWEEN 2 AND 8 AND a <> 4", "7"),
            ("b = 1 AND a BETWEEN 2 AND 8", "4,7"),
            ("b IN (0, 1) AND a < 5 AND s = 'abc'", "1,3,4"),
            (
                "b IN (0, 1) AND a < 5 AND s = 'abc' COLLATE utf8mb4_bin",
                "4",
            ),
            ("s = 'abc' COLLATE utf8mb4_bin AND a > 1", "2,4,6,8"),
            (
                "a BETWEEN 3 AND 6 AND (b = 0 OR s = 'ABC' COLLATE utf8mb4_bin)",
                "3,5,6",
            ),
        ];
        for (w, want) in cases {
            let got = firsts(&mut s, &format!("SELECT a FROM t WHERE {w} ORDER BY a"));
            assert_eq!(got, want, "WHERE {w}");
        }
        // the same through UPDATE (a locking read of the same ranges)
        ok(
            &mut s,
            "UPDATE t SET b = 100 WHERE a BETWEEN 2 AND 9 AND a < 4",
        );
        assert_eq!(
            firsts(&mut s, "SELECT a FROM t WHERE b = 100 ORDER BY a"),
            "2,3"
        );
    }
}
