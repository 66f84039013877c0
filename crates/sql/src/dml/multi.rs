//! Multi-table UPDATE and DELETE: `UPDATE t1 JOIN t2 ON .. SET t1.a = t2.b WHERE ..`,
//! `DELETE t1, t2 FROM t1 JOIN t2 ..` and `DELETE FROM t1 USING t1 JOIN t2 ..`.
//!
//! The joined rows are produced by the SELECT machinery (joins, subqueries, locking reads);
//! each target row is then identified by its primary key, re-read under an exclusive lock and
//! changed once, however many joined rows it took part in (MySQL's semantics). Targets must
//! have a primary key: rows of tables without one have no identity outside the scan.

use std::collections::HashSet;
use std::sync::Arc;

use common::{codes, Error, Result, Value};
use sqlparser::ast;
use storage::catalog::TableDef;
use storage::engine::KvEngine;
use storage::txn::{LockMode, UpdateOutcome};

use crate::bind::expr::Binder;
use crate::ir::block::JoinTable;
use crate::ir::block::Plan;
use crate::ir::block::Source;
use crate::ir::expr::EvalCtx;
use crate::ir::expr::Expr;
use crate::session::session::Output;
use crate::session::session::Session;

/// A target table of the statement: its position in the FROM list and definition.
struct Target {
    from_index: usize,
    def: Arc<TableDef>,
}

fn target_by_name(p: &Plan, name: &str) -> Result<Target> {
    let (i, jt) = p
        .from
        .iter()
        .enumerate()
        .find(|(_, j)| j.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            Error::new(
                codes::ER_UNKNOWN_TABLE,
                format!("Unknown table '{name}' in MULTI DELETE"),
            )
        })?;
    target_of(i, jt)
}

fn target_of(i: usize, jt: &JoinTable) -> Result<Target> {
    match &jt.source {
        Source::Table(def) if def.id != 0 && def.options.view.is_none() => {
            if def.hidden_pk {
                return Err(Error::not_supported(format!(
                    "multi-table UPDATE/DELETE of table '{}' without a primary key",
                    def.name
                )));
            }
            Ok(Target {
                from_index: i,
                def: def.clone(),
            })
        }
        _ => Err(Error::new(
            codes::ER_NON_UPDATABLE_TABLE,
            format!(
                "The target table {} of the UPDATE is not updatable",
                jt.name
            ),
        )),
    }
}

/// A target's row read again under its lock: the definition (leaf) it lives in, its handle and
/// its current values.
type LeafRow = (Arc<TableDef>, storage::Handle, Vec<Value>);

/// Locks target `t`'s row of the joined `row` by primary key and reads its current version,
/// in the partition the row was read from; returns the definition (leaf view) it lives in.
fn lock_current<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    t: &Target,
    row: &[Value],
    pk: &[Value],
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<LeafRow>> {
    let off = p.from[t.from_index].offset;
    let read = &row[off..off + t.def.columns.len()];
    let def = match crate::catalog::partition::leaf_for(s, &t.def, read, ctx)? {
        Some(leaf) => leaf,
        None => t.def.clone(),
    };
    Ok(s.ensure_txn()
        .get_by_pk(&def, pk, LockMode::Exclusive)?
        .map(|(h, old)| (def, h, old)))
}

fn pk_of(t: &Target, p: &Plan, row: &[Value]) -> Option<Vec<Value>> {
    let off = p.from[t.from_index].offset;
    let pk = &t.def.indexes[0];
    let vals: Vec<Value> = pk
        .columns
        .iter()
        .map(|c| row[off + c.col].clone())
        .collect();
    if vals.iter().any(Value::is_null) {
        None
    } else {
        Some(vals)
    }
}

fn pk_key(vals: &[Value]) -> Vec<u8> {
    let mut k = Vec::new();
    for v in vals {
        func::compare::hash_key(v, common::Collation::Binary, &mut k);
        k.push(0xFE);
    }
    k
}

/// Runs the join of a multi-table statement, returning full-width joined rows.
fn joined_rows<E: KvEngine>(
    s: &mut Session<E>,
    p: &Plan,
    ctx: &mut EvalCtx<'_>,
) -> Result<Vec<Vec<Value>>> {
    crate::exec::select::run_plan(s, p, ctx)
}

/// Multi-table UPDATE.
pub fn update<E: KvEngine>(
    s: &mut Session<E>,
    u: &ast::Update,
    tables: &[ast::TableWithJoins],
    params: &[Value],
) -> Result<Output> {
    if !u.order_by.is_empty() || u.limit.is_some() {
        return Err(Error::new(
            codes::ER_WRONG_USAGE,
            "Incorrect usage of UPDATE and ORDER BY",
        ));
    }
    let p = crate::bind::select::join_plan(s, tables, u.selection.as_ref())?;
    // assignments: (target, column, value over the joined row)
    let mut targets: Vec<Target> = Vec::new();
    let mut assigns: Vec<(usize, usize, Expr)> = Vec::new();
    for a in &u.assignments {
        let parts: Vec<String> = match &a.target {
            ast::AssignmentTarget::ColumnName(n) => {
                n.0.iter()
                    .map(|p| p.to_string().trim_matches('`').to_string())
                    .collect()
            }
            _ => return Err(Error::not_supported("tuple assignment")),
        };
        let col = p.scope.resolve(&parts, "field list")?;
        let fi = p
            .from
            .iter()
            .position(|j| col >= j.offset && col < j.offset + j.width)
            .ok_or_else(|| Error::internal("assignment column outside the join"))?;
        let ti = match targets.iter().position(|t| t.from_index == fi) {
            Some(i) => i,
            None => {
                targets.push(target_of(fi, &p.from[fi])?);
                targets.len() - 1
            }
        };
        let e = Binder::new(&p.scope, &*s, "field list").bind(&a.value)?;
        assigns.push((ti, col - p.from[fi].offset, e));
    }
    let ignore = matches!(u.or, Some(ast::SqliteOnConflict::Ignore));
    let strict = s.strict() && !ignore;
    let checks = targets
        .iter()
        .map(|t| crate::dml::check::RowChecks::bind(&*s, &t.def))
        .collect::<Result<Vec<_>>>()?;
    let generated = targets
        .iter()
        .map(|t| crate::dml::generated::RowGenerated::bind(&*s, &t.def))
        .collect::<Result<Vec<_>>>()?;
    let (matched, changed) = s.with_ctx(params, false, |s, ctx| {
        let rows = joined_rows(s, &p, ctx)?;
        let mut matched = 0u64;
        let mut changed = 0u64;
        let mut done: Vec<HashSet<Vec<u8>>> = vec![HashSet::new(); targets.len()];
        for row in &rows {
            for (ti, t) in targets.iter().enumerate() {
                let Some(pk) = pk_of(t, &p, row) else {
                    continue;
                };
                if !done[ti].insert(pk_key(&pk)) {
                    continue;
                }
                let Some((_, h, old)) = lock_current(s, &p, t, row, &pk, ctx)? else {
                    continue;
                };
                matched += 1;
                let off = p.from[t.from_index].offset;
                let mut env = row.clone();
                env[off..off + old.len()].clone_from_slice(&old);
                let mut new = old.clone();
                for (ati, ci, e) in &assigns {
                    if *ati != ti || !crate::dml::generated::may_assign(&t.def, *ci, ignore, ctx)? {
                        continue;
                    }
                    let v = crate::exec::query::eval(s, e, &env, ctx)?;
                    let v = crate::dml::single::convert_col(
                        &t.def, *ci, v, strict, matched, true, ctx,
                    )?;
                    new[*ci] = v.clone();
                    env[off + *ci] = v;
                }
                generated[ti].compute(&t.def, &mut new, strict, matched, ctx)?;
                if crate::dml::single::rows_equal(&old, &new) {
                    continue;
                }
                if !checks[ti].passes(&new, ignore, ctx)? {
                    continue;
                }
                match crate::dml::foreign_key::update(s, &t.def, &h, &old, &new, ignore, ctx)? {
                    Some(UpdateOutcome::Updated(_)) => changed += 1,
                    Some(UpdateOutcome::Duplicate { index_no, .. }) => {
                        return Err(crate::dml::single::dup_error(&t.def, index_no, &new))
                    }
                    None => {}
                }
            }
        }
        Ok((matched, changed))
    })?;
    let info = format!(
        "Rows matched: {matched}  Changed: {changed}  Warnings: {}",
        s.warnings.len()
    );
    Ok(Output::Ok {
        affected: if s.client_found_rows {
            matched
        } else {
            changed
        },
        last_insert_id: 0,
        info,
    })
}

/// Multi-table DELETE: `targets` names the tables to delete from.
pub fn delete<E: KvEngine>(
    s: &mut Session<E>,
    targets: &[ast::ObjectName],
    tables: &[ast::TableWithJoins],
    selection: Option<&ast::Expr>,
    params: &[Value],
) -> Result<Output> {
    let p = crate::bind::select::join_plan(s, tables, selection)?;
    let mut ts = Vec::new();
    for n in targets {
        let name =
            n.0.last()
                .map(|x| x.to_string().trim_matches('`').to_string())
                .unwrap_or_default();
        let name = name.trim_end_matches(".*").to_string();
        ts.push(target_by_name(&p, &name)?);
    }
    let affected = s.with_ctx(params, false, |s, ctx| {
        let rows = joined_rows(s, &p, ctx)?;
        let mut n = 0u64;
        let mut done: Vec<HashSet<Vec<u8>>> = vec![HashSet::new(); ts.len()];
        for row in &rows {
            for (ti, t) in ts.iter().enumerate() {
                let Some(pk) = pk_of(t, &p, row) else {
                    continue;
                };
                if !done[ti].insert(pk_key(&pk)) {
                    continue;
                }
                if let Some((_, h, old)) = lock_current(s, &p, t, row, &pk, ctx)? {
                    // routed to the same leaf again, with the foreign keys' checks and cascades
                    crate::dml::foreign_key::delete(s, &t.def, &h, &old, false, ctx)?;
                    n += 1;
                }
            }
        }
        Ok(n)
    })?;
    Ok(Output::ok(affected))
}
