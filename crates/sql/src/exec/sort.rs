//! Sorting rows by ORDER BY keys with MySQL's collations and NULL ordering.

use std::cmp::Ordering;

use common::{Result, Value};
use storage::engine::KvEngine;

use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::ir::scope::Scope;
use crate::session::session::Session;

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

/// True for collations whose strings compare by their weights ([`common::collation::weight`]),
/// which a sort computes once per row rather than twice per comparison.
pub(crate) fn weighted(c: common::Collation) -> bool {
    !matches!(
        c,
        common::Collation::Binary | common::Collation::Utf8mb4Bin | common::Collation::Latin1Bin
    )
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
            let v = crate::exec::query::eval(s, e, &r, ctx)?;
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
    s.inst
        .status
        .sort_rows
        .fetch_add(keyed.len() as u64, std::sync::atomic::Ordering::Relaxed);
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
