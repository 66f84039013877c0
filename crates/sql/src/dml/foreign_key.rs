//! FOREIGN KEY constraints enforced on the rows a statement writes, as InnoDB does.
//!
//! * Child side: a row inserted, or updated in its FOREIGN KEY columns, must find a parent row
//!   with equal values through an index of the parent that starts with the referenced columns
//!   (a prefix read that takes a shared lock on the parent row it finds, so the parent cannot be
//!   deleted by another transaction before this one ends); a NULL in any FOREIGN KEY column
//!   needs no parent. Else 1452.
//! * Parent side: a row deleted, or updated in referenced columns, is looked for in each child
//!   through the child's FOREIGN KEY index. RESTRICT / NO ACTION (and no clause): 1451 when a
//!   child row matches (checked before the write, under a shared lock on the child rows).
//!   CASCADE deletes the child rows or sets their columns to the new values, SET NULL sets them
//!   to NULL, each child row written through these same functions (exclusive locks), so a
//!   cascade cascades further, at most 15 levels deep (3008 beyond). As in InnoDB, a cascaded
//!   UPDATE of a table that the statement or an enclosing cascade already updates is 1451.
//!
//! Everything happens in the statement's transaction: a failing statement is rolled back as a
//! whole, cascades included. `foreign_key_checks=0` turns all of it off. The write paths call
//! [`check_inserted`] after an insert and [`update`] / [`delete`] instead of the partition
//! router's. Not done: CHECK constraints and generated columns of rows changed by a cascade are
//! not evaluated again (their FOREIGN KEY columns change only).

use std::sync::Arc;

use common::{codes, Error, Result, Value, Warning};
use storage::catalog::{ForeignKeyDef, IndexKind, TableDef};
use storage::engine::KvEngine;
use storage::txn::{IndexRange, LockMode, UpdateOutcome};
use storage::Handle;

use crate::ir::expr::EvalCtx;
use crate::session::session::Session;

/// InnoDB's limit on nested cascades (`FK_MAX_CASCADE_DEL`).
pub const MAX_CASCADE_DEPTH: usize = 15;

/// Where a write happens in a chain of cascades.
#[derive(Debug, Clone, Default)]
struct Chain {
    /// Nesting level: 0 for the statement's own rows.
    depth: usize,
    /// Ids of the tables the statement or an enclosing cascade updates.
    updated: Vec<u64>,
}

impl Chain {
    fn nested(&self, updates: Option<u64>) -> Result<Chain> {
        let depth = self.depth + 1;
        if depth > MAX_CASCADE_DEPTH {
            return Err(Error::new(
                codes::ER_FK_DEPTH_EXCEEDED,
                format!(
                    "Foreign key cascade delete/update exceeds max depth of {MAX_CASCADE_DEPTH}."
                ),
            ));
        }
        let mut updated = self.updated.clone();
        updated.extend(updates);
        Ok(Chain { depth, updated })
    }
}

/// What a referential action does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    /// RESTRICT, NO ACTION, or no clause: refuse while child rows match.
    Restrict,
    /// CASCADE: delete the child rows / give them the new values.
    Cascade,
    /// SET NULL: set the child's columns to NULL.
    SetNull,
}

fn action(rule: &str) -> Action {
    match rule.to_ascii_uppercase().as_str() {
        "CASCADE" => Action::Cascade,
        "SET NULL" => Action::SetNull,
        _ => Action::Restrict,
    }
}

/// True unless the session turned `foreign_key_checks` off.
pub fn checks_on<E: KvEngine>(s: &Session<E>) -> bool {
    s.var("foreign_key_checks") != Some(Value::Int(0))
}

fn q(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

fn q_list(names: &[String]) -> String {
    names.iter().map(|n| q(n)).collect::<Vec<_>>().join(", ")
}

/// The constraint as InnoDB prints it in 1451/1452/1701: `` `db`.`child`, CONSTRAINT `fk`
/// FOREIGN KEY (`a`) REFERENCES `parent` (`id`) ON DELETE CASCADE `` (RESTRICT not shown, the
/// parent qualified only when in another database).
pub fn describe(child_db: &str, child: &str, fk: &ForeignKeyDef) -> String {
    let parent = if fk.ref_db == child_db {
        q(&fk.ref_table)
    } else {
        format!("{}.{}", q(&fk.ref_db), q(&fk.ref_table))
    };
    let mut out = format!(
        "{}.{}, CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {parent} ({})",
        q(child_db),
        q(child),
        q(&fk.name),
        q_list(&fk.columns),
        q_list(&fk.ref_columns)
    );
    for (what, rule) in [("DELETE", &fk.on_delete), ("UPDATE", &fk.on_update)] {
        if !rule.is_empty() && !rule.eq_ignore_ascii_case("RESTRICT") {
            out.push_str(&format!(" ON {what} {}", rule.to_ascii_uppercase()));
        }
    }
    out
}

fn no_parent(child: &TableDef, fk: &ForeignKeyDef) -> Error {
    Error::new(
        codes::ER_NO_REFERENCED_ROW_2,
        format!(
            "Cannot add or update a child row: a foreign key constraint fails ({})",
            describe(&child.db, &child.name, fk)
        ),
    )
}

fn referenced(child: &TableDef, fk: &ForeignKeyDef) -> Error {
    Error::new(
        codes::ER_ROW_IS_REFERENCED_2,
        format!(
            "Cannot delete or update a parent row: a foreign key constraint fails ({})",
            describe(&child.db, &child.name, fk)
        ),
    )
}

/// `Ok(false)` with the error as a warning under IGNORE, else the error.
fn refuse(e: Error, ignore: bool, ctx: &mut EvalCtx<'_>) -> Result<bool> {
    if !ignore {
        return Err(e);
    }
    ctx.warnings.push(Warning::warn(e.code, e.msg));
    Ok(false)
}

/// Positions of `names` in `t`'s columns (`None` if one is missing).
fn positions(t: &TableDef, names: &[String]) -> Option<Vec<usize>> {
    names.iter().map(|n| t.column_index(n)).collect()
}

/// The first index of `t` whose leading key parts are exactly the columns `cols`, in order and
/// whole (no prefix length), as InnoDB picks the index of a constraint.
pub fn index_on(t: &TableDef, cols: &[usize]) -> Option<usize> {
    t.indexes.iter().enumerate().position(|(i, ix)| {
        !(i == 0 && t.hidden_pk)
            && ix.columns.len() >= cols.len()
            && ix
                .columns
                .iter()
                .zip(cols)
                .all(|(ic, &c)| ic.col == c && ic.prefix_len.is_none())
    })
}

/// True when `t`'s index `ino` is unique on exactly `n` columns: a key that a FOREIGN KEY may
/// reference under MySQL 8.4's `restrict_fk_on_non_standard_key`.
pub fn unique_on(t: &TableDef, ino: usize, n: usize) -> bool {
    let ix = &t.indexes[ino];
    ix.kind != IndexKind::Normal && ix.columns.len() == n
}

fn project(row: &[Value], cols: &[usize]) -> Vec<Value> {
    cols.iter().map(|&c| row[c].clone()).collect()
}

fn has_null(vals: &[Value]) -> bool {
    vals.iter().any(|v| matches!(v, Value::Null))
}

/// The rows of `t` whose index `ino` starts with `vals`, read under `lock` (every leaf of a
/// partitioned table); at most `limit` of them.
fn rows_by_prefix<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    ino: usize,
    vals: &[Value],
    lock: LockMode,
    limit: usize,
) -> Result<Vec<(Handle, Vec<Value>)>> {
    let mut out = Vec::new();
    for leaf in crate::catalog::partition::all_leaves(s, t)? {
        let it = s
            .ensure_txn()
            .scan(&leaf, ino, IndexRange::eq(vals.to_vec()), false, lock)?;
        for r in it {
            out.push(r?);
            if out.len() >= limit {
                return Ok(out);
            }
        }
    }
    Ok(out)
}

/// Is there a parent row for `vals`, the values of `fk`'s columns of a row of `child`?
/// `self_row` is the row being written to `child`, a parent itself when the constraint is
/// self-referencing.
fn parent_exists<E: KvEngine>(
    s: &mut Session<E>,
    child: &TableDef,
    fk: &ForeignKeyDef,
    vals: &[Value],
    self_row: &[Value],
) -> Result<bool> {
    let self_ref = fk.ref_db == child.db && fk.ref_table == child.name;
    let parent: Arc<TableDef> = if self_ref {
        Arc::new(child.clone())
    } else {
        match s.storage().get_table(&fk.ref_db, &fk.ref_table)? {
            Some(p) if p.options.view.is_none() => p,
            _ => return Ok(false),
        }
    };
    let Some(pcols) = positions(&parent, &fk.ref_columns) else {
        return Ok(false);
    };
    if self_ref && crate::dml::single::rows_equal(&project(self_row, &pcols), vals) {
        return Ok(true);
    }
    let Some(ino) = index_on(&parent, &pcols) else {
        // InnoDB: a constraint without a usable parent index finds no parent row
        return Ok(false);
    };
    Ok(!rows_by_prefix(s, &parent, ino, vals, LockMode::Shared, 1)?.is_empty())
}

/// Child-side check of a row about to be written to `t` (`old`: its values before an UPDATE,
/// whose unchanged FOREIGN KEY columns need no check). True to write it; false under IGNORE
/// (a 1452 warning added).
///
/// # Errors
/// 1452; lock and read errors.
fn child_row_ok<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    old: Option<&[Value]>,
    row: &[Value],
    ignore: bool,
    ctx: &mut EvalCtx<'_>,
) -> Result<bool> {
    for fk in &t.foreign_keys {
        let Some(cols) = positions(t, &fk.columns) else {
            continue;
        };
        let vals = project(row, &cols);
        if has_null(&vals) {
            continue;
        }
        if old.is_some_and(|o| crate::dml::single::rows_equal(&project(o, &cols), &vals)) {
            continue;
        }
        if !parent_exists(s, t, fk, &vals, row)? {
            return refuse(no_parent(t, fk), ignore, ctx);
        }
    }
    Ok(true)
}

/// After INSERT (and REPLACE, LOAD DATA) wrote `row` into `t` under handle `h`: its parents
/// must exist. Checked after the write as InnoDB does for a key that is not the primary key, so
/// a row that turns out a duplicate (REPLACE, ON DUPLICATE KEY UPDATE) is not checked, and a row
/// may reference itself. True to keep it; false under IGNORE: the row was removed again and a
/// 1452 warning added.
///
/// # Errors
/// 1452; lock, read and write errors.
pub fn check_inserted<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    h: &Handle,
    row: &[Value],
    ignore: bool,
    ctx: &mut EvalCtx<'_>,
) -> Result<bool> {
    if t.foreign_keys.is_empty() || !checks_on(s) {
        return Ok(true);
    }
    if child_row_ok(s, t, None, row, ignore, ctx)? {
        return Ok(true);
    }
    crate::catalog::partition::delete(s, t, h, row, ctx)?;
    Ok(false)
}

/// A constraint of `child` referencing `parent`, with the columns it joins on.
struct Link {
    child: Arc<TableDef>,
    fk: ForeignKeyDef,
    /// The child's FOREIGN KEY columns.
    cols: Vec<usize>,
    /// The parent's referenced columns.
    pcols: Vec<usize>,
    /// The child index starting with `cols`.
    index: usize,
}

/// Every constraint referencing `parent`.
fn links<E: KvEngine>(s: &Session<E>, parent: &TableDef) -> Result<Vec<Link>> {
    let mut out = Vec::new();
    for child in s.storage().referencing_tables(&parent.db, &parent.name)? {
        // a self-referencing table is its own (current) definition
        let child = if child.id == parent.id {
            Arc::new(parent.clone())
        } else {
            child
        };
        for fk in &child.foreign_keys {
            if !storage::catalog::foreign::references(fk, &parent.db, &parent.name) {
                continue;
            }
            let (Some(cols), Some(pcols)) = (
                positions(&child, &fk.columns),
                positions(parent, &fk.ref_columns),
            ) else {
                continue;
            };
            let index = index_on(&child, &cols).ok_or_else(|| {
                Error::internal(format!(
                    "foreign key '{}' of table '{}' has no index",
                    fk.name, child.name
                ))
            })?;
            out.push(Link {
                child: child.clone(),
                fk: fk.clone(),
                cols,
                pcols,
                index,
            });
        }
    }
    Ok(out)
}

/// The child rows of `l` matching the parent values `vals` (none when one is NULL), leaving out
/// the row `skip` of a self-referencing table (the row being changed).
fn children<E: KvEngine>(
    s: &mut Session<E>,
    l: &Link,
    vals: &[Value],
    skip: Option<&Handle>,
    lock: LockMode,
    limit: usize,
) -> Result<Vec<(Handle, Vec<Value>)>> {
    if has_null(vals) {
        return Ok(Vec::new());
    }
    let mut rows = rows_by_prefix(s, &l.child, l.index, vals, lock, limit.saturating_add(1))?;
    if let Some(h) = skip {
        rows.retain(|(rh, _)| rh != h);
    }
    rows.truncate(limit);
    Ok(rows)
}

/// RESTRICT / NO ACTION before the parent row `old` of `t` (handle `h`) is deleted
/// (`new: None`) or updated to `new`: true when no child row holds on to it.
fn restrict_ok<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    links: &[Link],
    h: &Handle,
    old: &[Value],
    new: Option<&[Value]>,
    ignore: bool,
    ctx: &mut EvalCtx<'_>,
) -> Result<bool> {
    for l in links {
        let rule = if new.is_some() {
            &l.fk.on_update
        } else {
            &l.fk.on_delete
        };
        if action(rule) != Action::Restrict {
            continue;
        }
        let vals = project(old, &l.pcols);
        if let Some(n) = new {
            if crate::dml::single::rows_equal(&project(n, &l.pcols), &vals) {
                continue;
            }
        }
        let self_ref = l.child.id == t.id;
        let mut held =
            !children(s, l, &vals, self_ref.then_some(h), LockMode::Shared, 1)?.is_empty();
        // the row itself, as it will be, may still reference the old values
        if self_ref && !held {
            if let Some(n) = new {
                held = crate::dml::single::rows_equal(&project(n, &l.cols), &vals);
            }
        }
        if held {
            return refuse(referenced(&l.child, &l.fk), ignore, ctx);
        }
    }
    Ok(true)
}

/// CASCADE and SET NULL after the parent row `old` was deleted (`new: None`) or updated to
/// `new`.
fn cascade<E: KvEngine>(
    s: &mut Session<E>,
    links: &[Link],
    old: &[Value],
    new: Option<&[Value]>,
    chain: &Chain,
    ctx: &mut EvalCtx<'_>,
) -> Result<()> {
    for l in links {
        let rule = if new.is_some() {
            &l.fk.on_update
        } else {
            &l.fk.on_delete
        };
        let act = action(rule);
        if act == Action::Restrict {
            continue;
        }
        let vals = project(old, &l.pcols);
        let set_to: Option<Vec<Value>> = match (act, new) {
            (Action::Cascade, None) => None,
            (Action::Cascade, Some(n)) => {
                let nv = project(n, &l.pcols);
                if crate::dml::single::rows_equal(&nv, &vals) {
                    continue;
                }
                Some(nv)
            }
            _ => {
                if new.is_some_and(|n| crate::dml::single::rows_equal(&project(n, &l.pcols), &vals))
                {
                    continue;
                }
                Some(vec![Value::Null; l.cols.len()])
            }
        };
        let rows = children(s, l, &vals, None, LockMode::Exclusive, usize::MAX)?;
        if rows.is_empty() {
            continue;
        }
        match set_to {
            None => {
                let inner = chain.nested(None)?;
                for (h, row) in rows {
                    delete_in(s, &l.child, &h, &row, false, &inner, ctx)?;
                }
            }
            Some(vals) => {
                if chain.updated.contains(&l.child.id) {
                    // InnoDB refuses to cascade an update into a table being updated
                    return Err(referenced(&l.child, &l.fk));
                }
                let inner = chain.nested(Some(l.child.id))?;
                for (h, row) in rows {
                    let mut changed = row.clone();
                    for (&c, v) in l.cols.iter().zip(&vals) {
                        changed[c] = v.clone();
                    }
                    if let Some(UpdateOutcome::Duplicate { index_no, .. }) =
                        update_in(s, &l.child, &h, &row, &changed, false, &inner, ctx)?
                    {
                        return Err(crate::dml::single::dup_error(&l.child, index_no, &changed));
                    }
                }
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn update_in<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    h: &Handle,
    old: &[Value],
    new: &[Value],
    ignore: bool,
    chain: &Chain,
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<UpdateOutcome>> {
    if !checks_on(s) {
        return crate::catalog::partition::update(s, t, h, old, new, ctx).map(Some);
    }
    if !child_row_ok(s, t, Some(old), new, ignore, ctx)? {
        return Ok(None);
    }
    let links = links(s, t)?;
    if !links.is_empty() && !restrict_ok(s, t, &links, h, old, Some(new), ignore, ctx)? {
        return Ok(None);
    }
    let out = crate::catalog::partition::update(s, t, h, old, new, ctx)?;
    if matches!(out, UpdateOutcome::Updated(_)) && !links.is_empty() {
        cascade(s, &links, old, Some(new), chain, ctx)?;
    }
    Ok(Some(out))
}

fn delete_in<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    h: &Handle,
    old: &[Value],
    ignore: bool,
    chain: &Chain,
    ctx: &mut EvalCtx<'_>,
) -> Result<bool> {
    let links = if checks_on(s) {
        links(s, t)?
    } else {
        Vec::new()
    };
    if !links.is_empty() && !restrict_ok(s, t, &links, h, old, None, ignore, ctx)? {
        return Ok(false);
    }
    crate::catalog::partition::delete(s, t, h, old, ctx)?;
    if !links.is_empty() {
        cascade(s, &links, old, None, chain, ctx)?;
    }
    Ok(true)
}

/// UPDATE of one row of `t` (as [`crate::catalog::partition::update`]) with its foreign keys:
/// the new values' parents must exist (1452), and children of the old values are refused (1451),
/// updated (CASCADE) or set to NULL (SET NULL). `None`: the row was skipped under IGNORE (a
/// warning added).
///
/// # Errors
/// 1451, 1452, 3008; write, lock and read errors.
#[allow(clippy::too_many_arguments)]
pub fn update<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    h: &Handle,
    old: &[Value],
    new: &[Value],
    ignore: bool,
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<UpdateOutcome>> {
    let chain = Chain {
        depth: 0,
        updated: vec![t.id],
    };
    update_in(s, t, h, old, new, ignore, &chain, ctx)
}

/// DELETE of one row of `t` (as [`crate::catalog::partition::delete`]) with its foreign keys:
/// child rows are refused (1451), deleted (CASCADE) or set to NULL (SET NULL). False: the row
/// was kept under IGNORE (a warning added).
///
/// # Errors
/// 1451, 3008; write, lock and read errors.
pub fn delete<E: KvEngine>(
    s: &mut Session<E>,
    t: &TableDef,
    h: &Handle,
    old: &[Value],
    ignore: bool,
    ctx: &mut EvalCtx<'_>,
) -> Result<bool> {
    delete_in(s, t, h, old, ignore, &Chain::default(), ctx)
}

/// The first constraint of another table that references `db.table`, with its table: what
/// DROP TABLE (3730) and TRUNCATE TABLE (1701) refuse on while `foreign_key_checks` is on.
///
/// # Errors
/// Dictionary read errors.
pub fn referenced_by_other<E: KvEngine>(
    s: &Session<E>,
    db: &str,
    table: &str,
) -> Result<Option<(Arc<TableDef>, ForeignKeyDef)>> {
    for child in s.storage().referencing_tables(db, table)? {
        if child.db == db && child.name == table {
            continue;
        }
        if let Some(fk) = child
            .foreign_keys
            .iter()
            .find(|f| storage::catalog::foreign::references(f, db, table))
        {
            return Ok(Some((child.clone(), fk.clone())));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fk(on_delete: &str, on_update: &str, ref_db: &str) -> ForeignKeyDef {
        ForeignKeyDef {
            name: "c_ibfk_1".into(),
            columns: vec!["a".into(), "b".into()],
            ref_db: ref_db.into(),
            ref_table: "p".into(),
            ref_columns: vec!["x".into(), "y".into()],
            on_delete: on_delete.into(),
            on_update: on_update.into(),
        }
    }

    #[test]
    fn describes_as_innodb() {
        assert_eq!(
            describe("d", "c", &fk("", "", "d")),
            "`d`.`c`, CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`, `b`) REFERENCES `p` (`x`, `y`)"
        );
        assert_eq!(
            describe("d", "c", &fk("CASCADE", "SET NULL", "e")),
            "`d`.`c`, CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`, `b`) REFERENCES `e`.`p` (`x`, `y`) \
             ON DELETE CASCADE ON UPDATE SET NULL"
        );
        // RESTRICT is the default and not shown; NO ACTION is
        assert_eq!(
            describe("d", "c", &fk("RESTRICT", "NO ACTION", "d")),
            "`d`.`c`, CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`, `b`) REFERENCES `p` (`x`, `y`) \
             ON UPDATE NO ACTION"
        );
    }

    #[test]
    fn actions() {
        assert_eq!(action(""), Action::Restrict);
        assert_eq!(action("NO ACTION"), Action::Restrict);
        assert_eq!(action("RESTRICT"), Action::Restrict);
        assert_eq!(action("CASCADE"), Action::Cascade);
        assert_eq!(action("SET NULL"), Action::SetNull);
    }

    #[test]
    fn cascade_depth_is_limited() {
        let mut c = Chain::default();
        for _ in 0..MAX_CASCADE_DEPTH {
            c = c.nested(None).unwrap();
        }
        let e = c.nested(Some(7)).unwrap_err();
        assert_eq!(e.code.num, 3008);
        assert_eq!(
            e.msg,
            "Foreign key cascade delete/update exceeds max depth of 15."
        );
        let c = Chain::default().nested(Some(7)).unwrap();
        assert_eq!((c.depth, c.updated), (1, vec![7]));
    }

    #[test]
    fn index_on_needs_whole_leading_columns() {
        use storage::catalog::{ColumnDef, IndexColumn, IndexDef, TableOptions};
        let ic = |col, prefix_len| IndexColumn {
            col,
            prefix_len,
            desc: false,
        };
        let ix = |kind, columns| IndexDef {
            id: 0,
            name: String::new(),
            kind,
            columns,
            comment: String::new(),
            options: Default::default(),
        };
        let int = common::DataType::Int {
            bytes: 4,
            unsigned: false,
            width: None,
            zerofill: false,
        };
        let t = TableDef {
            id: 1,
            db: "d".into(),
            name: "t".into(),
            columns: vec![
                ColumnDef::plain("a", int.clone(), true),
                ColumnDef::plain("b", int, true),
            ],
            indexes: vec![
                ix(IndexKind::Primary, vec![]),
                ix(IndexKind::Normal, vec![ic(1, Some(3))]),
                ix(IndexKind::Unique, vec![ic(1, None), ic(0, None)]),
            ],
            hidden_pk: true,
            version: 1,
            options: TableOptions::default(),
            partitioning: None,
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            temporary: false,
            leaf: None,
            part_select: None,
        };
        assert_eq!(index_on(&t, &[1]), Some(2));
        assert_eq!(index_on(&t, &[1, 0]), Some(2));
        assert_eq!(index_on(&t, &[0]), None);
        assert!(unique_on(&t, 2, 2));
        assert!(!unique_on(&t, 2, 1));
    }
}
