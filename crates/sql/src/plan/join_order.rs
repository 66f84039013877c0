//! Join order: which table of a block's FROM list is joined at each step.

use crate::ir::block::JoinTable;
use crate::ir::block::Plan;
use crate::ir::block::Source;
use crate::ir::expr::CmpOp;
use crate::ir::expr::Expr;

/// Which FROM item a column offset belongs to.
pub(crate) fn table_of_col(from: &[JoinTable], col: usize) -> usize {
    from.iter()
        .position(|j| col >= j.offset && col < j.offset + j.width)
        .unwrap_or(0)
}

/// The FROM items an expression reads.
pub(crate) fn tables_of(from: &[JoinTable], e: &Expr) -> Vec<usize> {
    let mut t: Vec<usize> = e.columns().iter().map(|&c| table_of_col(from, c)).collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// Greedy join order for inner joins: start from a table with a constant equality (ideally
/// on a key), then repeatedly add a table connected by an equality to the ones placed (a key
/// lookup when the column leads an index), so each step is filtered by what precedes it.
pub(crate) fn join_order(p: &Plan, conds: &[&Expr]) -> Vec<usize> {
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
