//! ALTER TABLE (MySQL 8 semantics) and RENAME TABLE.
//!
//! # Statement model
//! [`crate::parse::alter::parse`] turns `ALTER TABLE t op, op, …` into an [`AlterStmt`] (the
//! syntax, with the MySQL forms sqlparser lacks, is described there).
//!
//! All operations of one statement apply together, as in MySQL: [`execute`] first derives the
//! complete new definition from the current one (DROP/MODIFY/CHANGE/RENAME COLUMN/ALTER COLUMN
//! name columns of the original table; `AFTER x` and new index columns name columns of the
//! result), checks it (1054, 1060, 1061, 1068, 1072, 1075, 1090, 1091, 1170, 1176), then
//! carries it out in one of two ways:
//!
//! * **Online** (no row is rewritten): [`Storage::alter_table_online`] publishes the new
//!   definition in one atomic dictionary batch after building any new index from the existing
//!   rows. This covers ADD COLUMN at the end (rows stored without the column decode with the
//!   value it had when added, frozen in [`ColumnDef::instant_default`]), RENAME COLUMN,
//!   SET/DROP DEFAULT, comments, table options, RENAME INDEX, RENAME TO, ADD/DROP of secondary
//!   indexes, dropping NOT NULL, and widening a non-indexed VARCHAR/TEXT/ENUM in a way stored
//!   values still decode under. `ALGORITHM=INSTANT` is honoured when nothing but metadata
//!   changes (ADD COLUMN at the end, RENAME COLUMN/INDEX/TABLE, SET/DROP DEFAULT, COMMENT);
//!   for anything else it fails with 1846, as MySQL does.
//! * **Rebuild** (copy): anything that changes the stored row layout (ADD COLUMN FIRST/AFTER,
//!   DROP COLUMN, a column type or NOT NULL change, a PRIMARY KEY change, CONVERT TO CHARACTER
//!   SET, FORCE, ALGORITHM=COPY, a new column whose value cannot be frozen as a literal such as
//!   a new AUTO_INCREMENT column). A new table is created under a hidden temporary name
//!   (`#sql-alter-…`, see [`is_temp_table`]) with the new definition and all its indexes;
//!   every row is read from a consistent snapshot of the original, converted to the new types
//!   (`func::store::store`: strict mode turns 1264/1265/1366/1138 into errors that abort the
//!   ALTER, otherwise they are warnings) and inserted in batches of [`COPY_BATCH`] rows (so a
//!   new UNIQUE/PRIMARY KEY finds duplicates: 1062); finally [`Storage::replace_table`]
//!   drops the original and moves the copy to its name in one atomic batch.
//!
//! # Crash safety
//! Every step that changes the dictionary is one synced, atomic engine batch:
//!
//! * Online path: a crash before the final batch leaves the old definition in force. The ids
//!   of indexes being built are recorded with "drop ongoing" markers before any entry is
//!   written, so their partial entries are deleted at the next start. After the batch the new
//!   definition is in force (dropped indexes are range-deleted in that batch; their space is
//!   reclaimed in the background, resumed after a restart).
//! * Rebuild: until the final `replace_table` batch the original table is untouched and in
//!   force; the copy is a separate table under a `#sql-alter-` name. A crash while copying
//!   leaves that table behind: it is hidden from SHOW TABLES and INFORMATION_SCHEMA and is
//!   dropped by [`drop_leftover_tables`] when the server starts ([`crate::Instance::new`]).
//!   The copy's row batches are written without sync; the final batch is synced, and RocksDB
//!   syncs its whole write-ahead log up to that batch, so once the ALTER has returned OK the
//!   copied rows are durable with it. After the final batch the new table is in force under
//!   the original name and the original's rows are range-deleted (reclaimed in the
//!   background).
//! * RENAME TABLE with several pairs is one batch ([`Storage::rename_tables`]): all or none.
//!
//! What is **not** guaranteed: Strata has no metadata locks yet. A transaction that writes the
//! table while a rebuild copies it commits into the original table, and those writes are lost
//! when the copy replaces it; likewise rows written while a new index is being built may lack
//! entries in it. So `LOCK=NONE` is refused (1846) for rebuilds and index builds; run them
//! when the table is not being written. Two ALTERs of the same table racing are detected (the
//! later one fails with 1412 and leaves the earlier one's result in place).

use crate::runtime::mdl::MdlMode;
use std::collections::HashMap;

use common::{codes, DataType, Error, Result, Value, Warning};
use sqlparser::ast;
use storage::catalog::{ColumnDef, IndexColumn, IndexDef, IndexKind, TableDef};
use storage::engine::KvEngine;
use storage::{InsertOutcome, Storage, TxnOptions};

use crate::ddl::table::qualify;
use crate::parse::alter::from_ast;
use crate::parse::alter::Algorithm;
use crate::parse::alter::AlterOp;
use crate::parse::alter::AlterStmt;
use crate::parse::alter::Lock;
use crate::parse::partition::PartOp;
use crate::session::session::Output;
use crate::session::session::Session;

/// Name prefix of the temporary table a rebuilding ALTER copies into.
pub const TEMP_PREFIX: &str = "#sql-alter-";

pub use crate::runtime::limits::COPY_BATCH;

/// True for the internal tables hidden from listings: the copies of rebuilding ALTERs and
/// the sessions' TEMPORARY tables ([`crate::catalog::temporary`]).
pub fn is_temp_table(name: &str) -> bool {
    name.starts_with(TEMP_PREFIX) || crate::catalog::temporary::is_temporary_name(name)
}

/// Drops the temporary tables a rebuilding ALTER left behind when the server stopped in the
/// middle of it (their originals are intact); returns how many. Called at startup.
///
/// # Errors
/// Engine I/O errors.
pub fn drop_leftover_tables<E: KvEngine>(st: &Storage<E>) -> Result<usize> {
    let mut n = 0;
    for d in st.list_databases()? {
        for t in st.list_tables(&d.name)? {
            if t.starts_with(TEMP_PREFIX) {
                st.drop_table(&d.name, &t)?;
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Runs a sqlparser-parsed `ALTER TABLE` (statements built without
/// [`crate::parse::alter::parse`]).
///
/// # Errors
/// See [`execute`].
pub fn execute_ast<E: KvEngine>(s: &mut Session<E>, at: &ast::AlterTable) -> Result<Output> {
    let mut ops = Vec::new();
    for op in &at.operations {
        from_ast(op.clone(), &mut ops)?;
    }
    execute(
        s,
        &AlterStmt {
            table: at.name.clone(),
            ops,
        },
    )
}

// ---------------------------------------------------------------------------------------------
// Planning: the new definition
// ---------------------------------------------------------------------------------------------

/// A column of the definition being built; `id` identifies it across moves (old columns keep
/// their position as id, new ones get ids past the old column count).
#[derive(Debug, Clone)]
struct Slot {
    id: usize,
    /// Position in the original table.
    src: Option<usize>,
    col: ColumnDef,
}

/// An index of the definition being built; key parts refer to slot ids.
#[derive(Debug, Clone)]
struct IxSlot {
    def: IndexDef,
}

/// A new index whose key parts are resolved against the final columns.
#[derive(Debug, Clone)]
enum NewKeyParts {
    Named(Vec<ast::OrderByExpr>),
    Slot(usize),
}

#[derive(Debug, Clone)]
struct NewIndex {
    name: Option<String>,
    kind: IndexKind,
    parts: NewKeyParts,
    comment: String,
}

/// The outcome of planning an ALTER TABLE.
#[derive(Debug)]
struct Plan {
    /// The new definition (kept indexes keep their ids, new ones have id 0; columns as final).
    def: TableDef,
    /// Per final column: its position in the original table.
    src: Vec<Option<usize>>,
    /// Why the table must be rebuilt (copied); `None`: online.
    rebuild: Option<String>,
    /// Why ALGORITHM=INSTANT is impossible; `None`: metadata only.
    not_instant: Option<String>,
    /// A column type (or AUTO_INCREMENT) change: ALGORITHM=INPLACE is impossible.
    type_change: bool,
    /// An index is built from the existing rows.
    builds_index: bool,
    /// AUTO_INCREMENT = n.
    autoinc: Option<u64>,
    algorithm: Algorithm,
    lock: Lock,
    /// Notes (DROP COLUMN IF EXISTS of a missing column).
    notes: Vec<Warning>,
}

fn unknown_column(col: &str, table: &str) -> Error {
    Error::new(
        codes::ER_BAD_FIELD_ERROR,
        format!("Unknown column '{col}' in '{table}'"),
    )
}

fn cant_drop(name: &str) -> Error {
    Error::new(
        codes::ER_CANT_DROP_FIELD_OR_KEY,
        format!("Can't DROP '{name}'; check that column/key exists"),
    )
}

fn multiple_pk() -> Error {
    Error::new(codes::ER_MULTIPLE_PRI_KEY, "Multiple primary key defined")
}

/// Finds the slot of original column `name` (not dropped).
fn find_orig(slots: &[Slot], old: &TableDef, name: &str) -> Option<usize> {
    slots.iter().position(|s| {
        s.src
            .is_some_and(|i| old.columns[i].name.eq_ignore_ascii_case(name))
    })
}

fn place(
    slots: &mut Vec<Slot>,
    slot: Slot,
    pos: &Option<ast::MySQLColumnPosition>,
    table: &str,
) -> Result<()> {
    match pos {
        None => slots.push(slot),
        Some(ast::MySQLColumnPosition::First) => slots.insert(0, slot),
        Some(ast::MySQLColumnPosition::After(id)) => {
            let at = slots
                .iter()
                .position(|s| s.col.name.eq_ignore_ascii_case(&id.value))
                .ok_or_else(|| unknown_column(&id.value, table))?;
            slots.insert(at + 1, slot);
        }
    }
    Ok(())
}

/// Derives the new definition of `old` from `ops`.
fn plan<E: KvEngine>(s: &mut Session<E>, old: &TableDef, ops: &[AlterOp]) -> Result<Plan> {
    let tname = old.name.as_str();
    let mut slots: Vec<Slot> = old
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| Slot {
            id: i,
            src: Some(i),
            col: c.clone(),
        })
        .collect();
    let mut next_slot = old.columns.len();
    let mut opts = old.options.clone();
    let mut foreign_keys = old.foreign_keys.clone();
    let mut table_coll = old.options.collation;
    // existing indexes (key parts = old positions = slot ids)
    let mut pk: Option<IxSlot> = None;
    let mut secondaries: Vec<IxSlot> = Vec::new();
    for (i, ix) in old.indexes.iter().enumerate() {
        if i == 0 && old.hidden_pk {
            continue;
        }
        let slot = IxSlot { def: ix.clone() };
        if i == 0 {
            pk = Some(slot);
        } else {
            secondaries.push(slot);
        }
    }
    let mut pk_dropped = false;
    let mut new_indexes: Vec<NewIndex> = Vec::new();
    let mut dropped_indexes = false;
    let mut option_change: Option<String> = None;
    let mut autoinc = None;
    let mut convert = None;
    let mut force = false;
    let mut algorithm = Algorithm::Default;
    let mut lock = Lock::Default;
    let mut notes = Vec::new();
    for op in ops {
        match op {
            AlterOp::AddColumn { spec, position } => {
                let cs = crate::ddl::table::column_spec(
                    &spec.name,
                    &spec.data_type,
                    spec.options.iter(),
                    table_coll,
                )?;
                let id = next_slot;
                next_slot += 1;
                column_keys(&cs, id, &mut new_indexes);
                place(
                    &mut slots,
                    Slot {
                        id,
                        src: None,
                        col: cs.col,
                    },
                    position,
                    tname,
                )?;
            }
            AlterOp::DropColumn { name, if_exists } => match find_orig(&slots, old, name) {
                Some(i) => {
                    slots.remove(i);
                }
                None if *if_exists => notes.push(Warning::note(
                    codes::ER_CANT_DROP_FIELD_OR_KEY,
                    format!("Can't DROP COLUMN `{name}`; check that it exists"),
                )),
                None => return Err(cant_drop(name)),
            },
            AlterOp::ChangeColumn {
                old: oname,
                spec,
                position,
            } => {
                let i =
                    find_orig(&slots, old, oname).ok_or_else(|| unknown_column(oname, tname))?;
                let cs = crate::ddl::table::column_spec(
                    &spec.name,
                    &spec.data_type,
                    spec.options.iter(),
                    table_coll,
                )?;
                let mut slot = slots.remove(i);
                column_keys(&cs, slot.id, &mut new_indexes);
                slot.col = cs.col;
                match position {
                    None => slots.insert(i, slot),
                    Some(_) => place(&mut slots, slot, position, tname)?,
                }
            }
            AlterOp::RenameColumn { old: oname, new } => {
                let i =
                    find_orig(&slots, old, oname).ok_or_else(|| unknown_column(oname, tname))?;
                crate::ddl::table::check_column_name(new)?;
                slots[i].col.name = new.clone();
            }
            AlterOp::SetDefault { column, value } => {
                let i =
                    find_orig(&slots, old, column).ok_or_else(|| unknown_column(column, tname))?;
                let col = &mut slots[i].col;
                match value {
                    Some(e) => {
                        let text = crate::ddl::table::default_text(e);
                        let mut probe = col.clone();
                        probe.default = Some(text.clone());
                        if col.ty.is_lob() && !text.starts_with('(') {
                            return Err(Error::new(
                                codes::ER_INVALID_DEFAULT,
                                format!(
                                    "BLOB, TEXT, GEOMETRY or JSON column '{}' can't have a default value",
                                    col.name
                                ),
                            ));
                        }
                        crate::ddl::table::validate_default(&probe, &text)?;
                        col.default = Some(text);
                    }
                    None => col.default = None,
                }
            }
            AlterOp::AddIndex(ix) => new_indexes.push(NewIndex {
                name: ix.name.clone(),
                kind: ix.kind,
                parts: NewKeyParts::Named(ix.columns.clone()),
                comment: ix.comment.clone(),
            }),
            AlterOp::AddForeignKey(fk) => {
                let cols: Vec<ColumnDef> = slots.iter().map(|sl| sl.col.clone()).collect();
                let def =
                    crate::ddl::table::foreign_key(s, &old.db, tname, &cols, fk, &foreign_keys)?;
                // the index a FOREIGN KEY needs, when no key starts with its columns
                let name_of = |id: usize| {
                    slots
                        .iter()
                        .find(|sl| sl.id == id)
                        .map(|sl| sl.col.name.clone())
                };
                let leads = |names: Vec<Option<String>>| {
                    names.len() >= def.columns.len()
                        && names
                            .iter()
                            .zip(&def.columns)
                            .all(|(a, b)| a.as_deref().is_some_and(|a| a.eq_ignore_ascii_case(b)))
                };
                let has_key = pk.iter().chain(secondaries.iter()).any(|ix| {
                    leads(
                        ix.def
                            .columns
                            .iter()
                            .map(|ic| {
                                if ic.prefix_len.is_none() {
                                    name_of(ic.col)
                                } else {
                                    None
                                }
                            })
                            .collect(),
                    )
                }) || new_indexes.iter().any(|ix| match &ix.parts {
                    NewKeyParts::Named(p) => leads(
                        p.iter()
                            .map(|o| match &o.expr {
                                ast::Expr::Identifier(i) => Some(i.value.clone()),
                                _ => None,
                            })
                            .collect(),
                    ),
                    NewKeyParts::Slot(id) => leads(vec![name_of(*id)]),
                });
                if !has_key {
                    new_indexes.push(NewIndex {
                        name: fk
                            .name
                            .as_ref()
                            .or(fk.index_name.as_ref())
                            .map(|n| n.value.clone()),
                        kind: IndexKind::Normal,
                        parts: NewKeyParts::Named(
                            fk.columns
                                .iter()
                                .map(|c| ast::OrderByExpr {
                                    expr: ast::Expr::Identifier(c.clone()),
                                    options: ast::OrderByOptions {
                                        sort: None,
                                        nulls_first: None,
                                    },
                                    with_fill: None,
                                })
                                .collect(),
                        ),
                        comment: String::new(),
                    });
                }
                foreign_keys.push(def);
            }
            AlterOp::DropForeignKey(name) => {
                match foreign_keys
                    .iter()
                    .position(|f| f.name.eq_ignore_ascii_case(name))
                {
                    Some(i) => {
                        foreign_keys.remove(i);
                    }
                    None => return Err(cant_drop(name)),
                }
            }
            AlterOp::DropIndex(name) | AlterOp::DropConstraint(name)
                if matches!(op, AlterOp::DropConstraint(_))
                    && foreign_keys
                        .iter()
                        .any(|f| f.name.eq_ignore_ascii_case(name)) =>
            {
                foreign_keys.retain(|f| !f.name.eq_ignore_ascii_case(name));
            }
            AlterOp::DropIndex(name) | AlterOp::DropConstraint(name) => {
                if name.eq_ignore_ascii_case("PRIMARY") {
                    if pk.take().is_none() {
                        return Err(cant_drop(name));
                    }
                    pk_dropped = true;
                    continue;
                }
                match secondaries
                    .iter()
                    .position(|ix| ix.def.name.eq_ignore_ascii_case(name) && ix.def.id != 0)
                {
                    Some(i) => {
                        secondaries.remove(i);
                        dropped_indexes = true;
                    }
                    None if matches!(op, AlterOp::DropConstraint(_)) => {}
                    None => return Err(cant_drop(name)),
                }
            }
            AlterOp::DropPrimaryKey => {
                if pk.take().is_none() {
                    return Err(cant_drop("PRIMARY"));
                }
                pk_dropped = true;
            }
            AlterOp::RenameIndex { old: oname, new } => {
                if new.eq_ignore_ascii_case("PRIMARY") || oname.eq_ignore_ascii_case("PRIMARY") {
                    return Err(Error::new(
                        codes::ER_WRONG_NAME_FOR_INDEX,
                        format!(
                            "Incorrect index name '{}'",
                            if new.eq_ignore_ascii_case("PRIMARY") {
                                new
                            } else {
                                oname
                            }
                        ),
                    ));
                }
                let ix = secondaries
                    .iter_mut()
                    .find(|ix| ix.def.name.eq_ignore_ascii_case(oname))
                    .ok_or_else(|| {
                        Error::new(
                            codes::ER_KEY_DOES_NOT_EXITS,
                            format!("Key '{oname}' doesn't exist in table '{tname}'"),
                        )
                    })?;
                ix.def.name = new.clone();
            }
            AlterOp::TableOption { key, value } => {
                match key.as_str() {
                    "ENGINE" => opts.engine = crate::ddl::table::canonical_engine(value),
                    "COMMENT" => {
                        opts.comment = value.clone();
                        continue;
                    }
                    "AUTO_INCREMENT" => {
                        let v: u64 = value.parse().map_err(|_| Error::parse(value))?;
                        autoinc = Some(v);
                    }
                    "CHARSET" => {
                        table_coll = charset_collation(s, old, value, None)?;
                        opts.collation = table_coll;
                    }
                    "COLLATE" => {
                        table_coll = crate::ddl::table::collation_of(None, Some(value))?
                            .ok_or_else(|| Error::parse(value))?;
                        opts.collation = table_coll;
                    }
                    "KEY_BLOCK_SIZE" | "COMPRESSION" => {
                        crate::parse::storage_options::set_table_option(
                            &mut opts, key, value, tname,
                        )?;
                    }
                    _ => {
                        opts.extra.retain(|(k, _)| k != key);
                        opts.extra.push((key.clone(), value.clone()));
                    }
                }
                option_change
                    .get_or_insert_with(|| format!("Changing {key} is not an instant operation"));
            }
            AlterOp::ConvertTo { charset, collation } => {
                let coll = charset_collation(s, old, charset, collation.as_deref())?;
                table_coll = coll;
                opts.collation = coll;
                convert = Some(coll);
            }
            AlterOp::Algorithm(a) => algorithm = *a,
            AlterOp::Lock(l) => lock = *l,
            AlterOp::Force => force = true,
            // CHECK constraints: `crate::ddl::check::alter`, once the columns are final
            AlterOp::AddCheck(_) | AlterOp::DropCheck(_) | AlterOp::AlterCheck { .. } => {}
            AlterOp::Rename(_) | AlterOp::Ignored | AlterOp::Partition(_) | AlterOp::Keys => {}
            AlterOp::Unsupported(what) => return Err(Error::not_supported(what)),
        }
    }
    if let Some(coll) = convert {
        for sl in slots.iter_mut() {
            sl.col.ty = with_collation(&sl.col.ty, coll);
        }
    }
    // ---- the final columns ----
    if slots.is_empty() {
        return Err(Error::new(
            codes::ER_CANT_REMOVE_ALL_FIELDS,
            "You can't delete all columns with ALTER TABLE; use DROP TABLE instead",
        ));
    }
    for (i, a) in slots.iter().enumerate() {
        if slots[..i]
            .iter()
            .any(|b| b.col.name.eq_ignore_ascii_case(&a.col.name))
        {
            return Err(Error::new(
                codes::ER_DUP_FIELDNAME,
                format!("Duplicate column name '{}'", a.col.name),
            ));
        }
    }
    // the hidden columns of dropped functional key parts go with them
    slots.retain(|sl| {
        !sl.col.is_hidden()
            || pk
                .iter()
                .chain(secondaries.iter())
                .any(|ix| ix.def.columns.iter().any(|c| c.col == sl.id))
    });
    let pos_of: HashMap<usize, usize> = slots.iter().enumerate().map(|(p, s)| (s.id, p)).collect();
    let mut columns: Vec<ColumnDef> = slots.iter().map(|s| s.col.clone()).collect();
    // ---- indexes: remap existing ones, drop removed key parts (and emptied indexes) ----
    let remap = |ix: &mut IxSlot, columns: &[ColumnDef]| -> bool {
        ix.def.columns.retain(|c| pos_of.contains_key(&c.col));
        for c in ix.def.columns.iter_mut() {
            c.col = pos_of[&c.col];
            if c.prefix_len.is_some()
                && !(columns[c.col].ty.is_text() || columns[c.col].ty.is_binary())
            {
                c.prefix_len = None;
            }
        }
        !ix.def.columns.is_empty()
    };
    let old_pk_cols: Option<Vec<IndexColumn>> = pk.as_ref().map(|p| p.def.columns.clone());
    if let Some(p) = pk.as_mut() {
        if !remap(p, &columns) {
            pk = None;
        }
    }
    secondaries.retain_mut(|ix| remap(ix, &columns));
    // ---- new indexes ----
    for ni in new_indexes {
        let parts = match &ni.parts {
            NewKeyParts::Slot(id) => vec![IndexColumn {
                col: pos_of[id],
                prefix_len: None,
                desc: false,
            }],
            NewKeyParts::Named(exprs) => {
                let mut v = Vec::new();
                for (k, e) in exprs.iter().enumerate() {
                    v.push(crate::ddl::functional::key_part(
                        &mut columns,
                        e,
                        ni.name.as_deref(),
                        k,
                        ni.kind == IndexKind::Primary,
                        &*s,
                    )?);
                }
                v
            }
        };
        let def = IndexDef {
            id: 0,
            name: ni.name.clone().unwrap_or_default(),
            kind: ni.kind,
            columns: parts,
            comment: ni.comment,
            options: Default::default(),
        };
        if ni.kind == IndexKind::Primary {
            if pk.is_some() {
                return Err(multiple_pk());
            }
            pk = Some(IxSlot { def });
        } else {
            secondaries.push(IxSlot { def });
        }
    }
    // names: PRIMARY for the primary key, generated ones after the first column
    if let Some(p) = pk.as_mut() {
        p.def.name = "PRIMARY".into();
        for c in &p.def.columns {
            columns[c.col].nullable = false;
        }
    }
    for i in 0..secondaries.len() {
        if secondaries[i].def.name.is_empty() {
            let base = crate::ddl::functional::index_base_name(
                &columns[secondaries[i].def.columns[0].col],
            )
            .to_string();
            let taken = |n: &str, ixs: &[IxSlot]| {
                n.eq_ignore_ascii_case("PRIMARY")
                    || ixs.iter().any(|x| x.def.name.eq_ignore_ascii_case(n))
            };
            let mut n = base.clone();
            let mut k = 2;
            while taken(&n, &secondaries) {
                n = format!("{base}_{k}");
                k += 1;
            }
            secondaries[i].def.name = n;
        }
    }
    for (i, a) in secondaries.iter().enumerate() {
        if a.def.name.eq_ignore_ascii_case("PRIMARY") {
            return Err(Error::new(
                codes::ER_WRONG_NAME_FOR_INDEX,
                format!("Incorrect index name '{}'", a.def.name),
            ));
        }
        if secondaries[..i]
            .iter()
            .any(|b| b.def.name.eq_ignore_ascii_case(&a.def.name))
        {
            return Err(Error::new(
                codes::ER_DUP_KEYNAME,
                format!("Duplicate key name '{}'", a.def.name),
            ));
        }
    }
    // MySQL warns about a new index with the same kind and key parts as an earlier one
    for (i, a) in secondaries.iter().enumerate() {
        if a.def.id == 0
            && secondaries[..i]
                .iter()
                .any(|b| b.def.kind == a.def.kind && b.def.columns == a.def.columns)
        {
            notes.push(Warning::warn(
                codes::ER_DUPLICATED_INDEX,
                format!(
                    "Duplicate index '{}' defined on the table '{}.{}'. This is deprecated and will be disallowed in a future release.",
                    a.def.name, old.db, old.name
                ),
            ));
        }
    }
    if let Some(p) = &pk {
        crate::ddl::table::check_index_cols(&columns, &p.def.columns)?;
    }
    for ix in &secondaries {
        crate::ddl::table::check_index_cols(&columns, &ix.def.columns)?;
    }
    // AUTO_INCREMENT: one column, first part of some key, NOT NULL
    let firsts: Vec<usize> = pk
        .iter()
        .chain(secondaries.iter())
        .map(|ix| ix.def.columns[0].col)
        .collect();
    let ai: Vec<usize> = (0..columns.len())
        .filter(|&i| columns[i].auto_increment)
        .collect();
    if ai.len() > 1 || ai.first().is_some_and(|c| !firsts.contains(c)) {
        return Err(Error::new(
            codes::ER_WRONG_AUTO_KEY,
            "Incorrect table definition; there can be only one auto column and it must be defined as a key",
        ));
    }
    for &a in &ai {
        columns[a].nullable = false;
    }
    if secondaries.len() + 1 > 64 {
        return Err(Error::new(
            codes::ER_TOO_MANY_KEYS,
            "Too many keys specified; max 64 keys allowed",
        ));
    }
    let mut secondaries: Vec<IndexDef> = secondaries.into_iter().map(|ix| ix.def).collect();
    crate::ddl::table::sort_keys(&mut secondaries, &columns);
    // FOREIGN KEY columns follow renames; a dropped one is refused (1828), as in MySQL
    for fk in foreign_keys.iter_mut() {
        let self_ref = fk.ref_db == old.db && fk.ref_table == old.name;
        let renamed = |n: &str| {
            let i = old
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(n))?;
            slots
                .iter()
                .find(|sl| sl.src == Some(i))
                .map(|sl| sl.col.name.clone())
        };
        for c in fk.columns.iter_mut() {
            match renamed(c) {
                Some(n) => *c = n,
                None if old.column_index(c).is_some() => {
                    return Err(Error::new(
                        codes::ER_FK_COLUMN_CANNOT_DROP,
                        format!(
                            "Cannot drop column '{c}': needed in a foreign key constraint '{}'",
                            fk.name
                        ),
                    ))
                }
                None => {}
            }
        }
        if self_ref {
            for c in fk.ref_columns.iter_mut() {
                if let Some(n) = renamed(c) {
                    *c = n;
                }
            }
        }
    }
    // ---- how it can be done ----
    let mut src: Vec<Option<usize>> = slots.iter().map(|s| s.src).collect();
    // the hidden columns of new functional key parts come from no old column
    src.resize(columns.len(), None);
    let mut rebuild: Option<String> = None;
    let mut not_instant: Option<String> = None;
    let mut type_change = false;
    let kept: Vec<usize> = src.iter().flatten().copied().collect();
    if kept.len() < old.columns.len() {
        rebuild.get_or_insert("Need to rebuild the table to drop a column".into());
    }
    let in_order = src
        .iter()
        .take(old.columns.len())
        .enumerate()
        .all(|(i, s)| *s == Some(i));
    if kept.len() == old.columns.len() && !in_order {
        rebuild.get_or_insert(
            "Need to rebuild the table to add or move a column other than at the end".into(),
        );
    }
    let indexed_old = |i: usize| {
        old.indexes
            .iter()
            .any(|ix| ix.columns.iter().any(|c| c.col == i))
    };
    let indexed_new = |j: usize| {
        pk.iter()
            .any(|ix| ix.def.columns.iter().any(|c| c.col == j))
            || secondaries
                .iter()
                .any(|ix| ix.columns.iter().any(|c| c.col == j))
    };
    for (j, s) in src.iter().enumerate() {
        let Some(i) = *s else { continue };
        let (a, b) = (&old.columns[i], &columns[j]);
        if a.ty != b.ty {
            if storage::codec::row::reads_as(&a.ty, &b.ty) && !indexed_old(i) && !indexed_new(j) {
                // appending ENUM/SET members is instant in MySQL; widening is in place
                let members_appended = matches!(
                    (&a.ty, &b.ty),
                    (DataType::Enum { .. }, DataType::Enum { .. })
                        | (DataType::Set { .. }, DataType::Set { .. })
                );
                if !members_appended {
                    not_instant
                        .get_or_insert("Need to rebuild the table to change column type".into());
                }
            } else {
                type_change = true;
                rebuild.get_or_insert("Need to rebuild the table to change column type".into());
            }
        }
        if a.nullable && !b.nullable {
            rebuild
                .get_or_insert("Need to rebuild the table to change a column to NOT NULL".into());
        } else if a.nullable != b.nullable {
            not_instant
                .get_or_insert("Need to rebuild the table to change column nullability".into());
        }
        if !a.auto_increment && b.auto_increment {
            type_change = true;
            rebuild.get_or_insert("Need to rebuild the table to add AUTO_INCREMENT".into());
        } else if a.auto_increment != b.auto_increment {
            not_instant.get_or_insert("Need to rebuild the table to change AUTO_INCREMENT".into());
        }
    }
    let new_pk_cols = pk.as_ref().map(|p| p.def.columns.clone());
    let pk_same = match (&old_pk_cols, &new_pk_cols) {
        (None, None) => !pk_dropped,
        (Some(old_pk), Some(b)) => {
            let a: Vec<IndexColumn> = old_pk
                .iter()
                .filter_map(|c| {
                    pos_of.get(&c.col).map(|&p| IndexColumn {
                        col: p,
                        ..c.clone()
                    })
                })
                .collect();
            a.len() == old_pk.len()
                && a == *b
                && !pk_dropped
                && pk.as_ref().is_some_and(|p| p.def.id != 0)
        }
        _ => false,
    };
    if !pk_same {
        rebuild.get_or_insert("Need to rebuild the table to change the PRIMARY KEY".into());
    }
    // existing secondary indexes whose key parts changed (a part was dropped) are rebuilt
    for ix in &secondaries {
        if ix.id != 0 {
            let Some(o) = old.indexes.iter().find(|o| o.id == ix.id) else {
                continue;
            };
            if o.columns.len() != ix.columns.len() {
                rebuild.get_or_insert("Need to rebuild the table to change an index".into());
            }
        }
    }
    let builds_index = secondaries.iter().any(|ix| ix.id == 0);
    if builds_index {
        not_instant.get_or_insert("Adding an index needs a build over the existing rows".into());
    }
    if dropped_indexes {
        not_instant.get_or_insert("Dropping an index is not an instant operation".into());
    }
    if let Some(r) = option_change {
        not_instant.get_or_insert(r);
    }
    if autoinc.is_some() {
        not_instant.get_or_insert("Changing AUTO_INCREMENT is not an instant operation".into());
    }
    if force {
        rebuild.get_or_insert("FORCE rebuilds the table".into());
    }
    // the rows move to the storage class of the new KEY_BLOCK_SIZE / COMPRESSION: a copy
    if crate::parse::storage_options::class_changed(&old.options, &opts) {
        rebuild.get_or_insert("Changing KEY_BLOCK_SIZE or COMPRESSION rewrites the rows".into());
    }
    if algorithm == Algorithm::Copy {
        rebuild.get_or_insert("ALGORITHM=COPY".into());
    }
    if crate::ddl::generated::needs_copy(old, &columns, &src) {
        rebuild.get_or_insert("Need to rebuild the table to compute a generated column".into());
    }
    // appended columns: freeze the value existing rows get, or rebuild
    if rebuild.is_none() {
        let appended: Vec<usize> = (0..columns.len()).filter(|&j| src[j].is_none()).collect();
        if !appended.is_empty() {
            let fills = fill_values(s, &columns, &src)?;
            for j in appended {
                match fills[j]
                    .as_ref()
                    .and_then(|v| frozen_literal(&columns[j], v))
                {
                    Some(lit) => columns[j].instant_default = Some(lit),
                    None => {
                        rebuild.get_or_insert(
                            "Need to rebuild the table to fill the new column".into(),
                        );
                    }
                }
            }
        }
    }
    let mut indexes = Vec::new();
    match pk {
        Some(p) => indexes.push(p.def),
        None => {
            if old.hidden_pk && pk_same {
                indexes.push(old.indexes[0].clone());
            }
        }
    }
    indexes.extend(secondaries);
    let hidden_pk = indexes.first().is_none_or(|i| i.kind != IndexKind::Primary);
    let def = TableDef {
        foreign_keys,
        checks: old.checks.clone(),
        temporary: old.temporary,
        partitioning: old.partitioning.clone(),
        leaf: None,
        part_select: None,
        id: old.id,
        db: old.db.clone(),
        name: old.name.clone(),
        columns,
        indexes,
        hidden_pk: if rebuild.is_some() {
            hidden_pk
        } else {
            old.hidden_pk
        },
        version: old.version,
        options: opts,
    };
    crate::ddl::generated::check_alter(old, &def, &*s)?;
    Ok(Plan {
        def,
        src,
        rebuild,
        not_instant,
        type_change,
        builds_index,
        autoinc,
        algorithm,
        lock,
        notes,
    })
}

/// Column-level PRIMARY KEY / UNIQUE of an ADD/MODIFY/CHANGE become new indexes.
fn column_keys(cs: &crate::ddl::table::ColumnSpec, slot: usize, out: &mut Vec<NewIndex>) {
    if cs.primary_key {
        out.push(NewIndex {
            name: Some("PRIMARY".into()),
            kind: IndexKind::Primary,
            parts: NewKeyParts::Slot(slot),
            comment: String::new(),
        });
    }
    if cs.unique {
        out.push(NewIndex {
            name: None,
            kind: IndexKind::Unique,
            parts: NewKeyParts::Slot(slot),
            comment: String::new(),
        });
    }
}

/// The collation for `CHARSET cs [COLLATE co]` (`DEFAULT` = the database's).
fn charset_collation<E: KvEngine>(
    s: &Session<E>,
    t: &TableDef,
    charset: &str,
    collation: Option<&str>,
) -> Result<common::Collation> {
    if charset.eq_ignore_ascii_case("DEFAULT") && collation.is_none() {
        return Ok(s
            .storage()
            .get_database(&t.db)?
            .map(|d| d.collation)
            .unwrap_or_default());
    }
    let cs = (!charset.eq_ignore_ascii_case("DEFAULT")).then_some(charset);
    crate::ddl::table::collation_of(cs, collation)?.ok_or_else(|| Error::parse(charset))
}

/// `ty` with its collation replaced (CONVERT TO CHARACTER SET); non-text types unchanged.
fn with_collation(ty: &common::DataType, coll: common::Collation) -> common::DataType {
    use common::DataType as D;
    match ty.clone() {
        D::Char { len, .. } => D::Char {
            len,
            collation: coll,
        },
        D::VarChar { len, .. } => D::VarChar {
            len,
            collation: coll,
        },
        D::Text { size, .. } => D::Text {
            size,
            collation: coll,
        },
        D::Enum { values, .. } => D::Enum {
            values,
            collation: coll,
        },
        D::Set { values, .. } => D::Set {
            values,
            collation: coll,
        },
        other => other,
    }
}

/// The value each new column (`src[j]` is `None`) gets in existing rows: its default evaluated
/// once (so `CURRENT_TIMESTAMP` is the ALTER's time), NULL, or the implicit default of a NOT
/// NULL column without one. `None` for AUTO_INCREMENT columns (numbered per row) and for the
/// columns that are not new.
fn fill_values<E: KvEngine>(
    s: &mut Session<E>,
    columns: &[ColumnDef],
    src: &[Option<usize>],
) -> Result<Vec<Option<Value>>> {
    let mut defaults = Vec::with_capacity(columns.len());
    for (c, from) in columns.iter().zip(src) {
        defaults.push(match from {
            None if !c.auto_increment => Some(crate::dml::single::default_expr(s, c)?),
            _ => None,
        });
    }
    s.with_ctx(&[], false, |_, ctx| {
        let mut out = Vec::with_capacity(columns.len());
        for (c, d) in columns.iter().zip(&defaults) {
            let Some(d) = d else {
                out.push(None);
                continue;
            };
            let v = match d {
                Some(e) => e.eval(&[], ctx)?,
                None => Value::Null,
            };
            let v = if v.is_null() && !c.nullable {
                crate::dml::single::implicit_default(&c.ty)
            } else {
                v
            };
            let mut w = Vec::new();
            out.push(Some(func::store::store(
                v, &c.ty, false, &c.name, 1, &mut w,
            )?));
        }
        Ok(out)
    })
}

/// `v` as a DEFAULT-clause literal that the row codec decodes back to exactly `v` for `c`, or
/// `None` if there is none (the column then needs a rebuild).
fn frozen_literal(c: &ColumnDef, v: &Value) -> Option<String> {
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let lit = match v {
        Value::Null => "NULL".to_string(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Decimal(d) => d.to_string(),
        Value::Float(f) => format!("{f}"),
        Value::Double(f) => format!("{f}"),
        Value::Str(s) => quote(s),
        Value::Bytes(b) => quote(std::str::from_utf8(b).ok()?),
        Value::Date(_) | Value::DateTime(..) | Value::Time(..) => quote(&v.to_string()),
    };
    (storage::codec::row::literal_value(&c.ty, &lit) == *v).then_some(lit)
}

// ---------------------------------------------------------------------------------------------
// Execution
// ---------------------------------------------------------------------------------------------

fn not_supported_reason(what: &str, reason: &str, try_: &str) -> Error {
    Error::new(
        codes::ER_ALTER_OPERATION_NOT_SUPPORTED_REASON,
        format!("{what} is not supported. Reason: {reason}. Try {try_}."),
    )
}

/// Runs an ALTER TABLE (see the module docs).
///
/// # Errors
/// MySQL's: 1146, 1347, 1054, 1060, 1061, 1062, 1068, 1072, 1075, 1090, 1091, 1138, 1170, 1176,
/// 1264, 1265, 1366, 1050 (RENAME target), 1846 (ALGORITHM/LOCK not possible), 1412 (a
/// concurrent DDL changed the table).
pub fn execute<E: KvEngine>(s: &mut Session<E>, a: &AlterStmt) -> Result<Output> {
    let (db, tname) = qualify(s, &a.table)?;
    // a TEMPORARY table of the session first: it is stored as `stored` (its internal name);
    // planning sees it under its own name
    let temp = s.temp.lookup(&db, &tname).map(str::to_string);
    let stored = temp.clone().unwrap_or_else(|| tname.clone());
    // readers may go on while rows are copied; the new definition is published under an
    // exclusive lock (see `crate::mdl`)
    s.mdl_lock(&db, &stored, MdlMode::NoWrite)?;
    let stored_def = s
        .storage()
        .get_table(&db, &stored)?
        .ok_or_else(|| Error::no_such_table(&db, &tname))?;
    let t = match &temp {
        Some(_) => std::sync::Arc::new(crate::catalog::temporary::visible_def(&stored_def, &tname)),
        None => stored_def.clone(),
    };
    if t.options.view.is_some() {
        return Err(Error::new(
            codes::ER_WRONG_OBJECT,
            format!("'{db}.{tname}' is not BASE TABLE"),
        ));
    }
    if !a.ops.is_empty() && a.ops.iter().all(|op| matches!(op, AlterOp::Keys)) {
        s.warnings.push(Warning::note(
            codes::ER_ILLEGAL_HA,
            format!("Table storage engine for '{tname}' doesn't have this option"),
        ));
        return Ok(Output::ok(0));
    }
    // RENAME TO target
    let mut target = (db.clone(), tname.clone());
    for op in &a.ops {
        if let AlterOp::Rename(n) = op {
            target = qualify(s, n)?;
        }
    }
    let renamed = target != (db.clone(), tname.clone());
    if renamed {
        crate::ddl::table::check_ident(&target.1, "table")?;
        if !s.db_exists(&target.0)? {
            return Err(Error::bad_db(&target.0));
        }
        if temp.is_some() {
            // a temporary table is renamed among the session's temporary tables
            if s.temp.lookup(&target.0, &target.1).is_some() {
                return Err(Error::table_exists(&target.1));
            }
        } else {
            s.mdl_lock(&target.0, &target.1, MdlMode::Exclusive)?;
            if s.storage().get_table(&target.0, &target.1)?.is_some() {
                return Err(Error::table_exists(&target.1));
            }
        }
    }
    // where the table is stored afterwards (a temporary table keeps its internal name)
    let stored_target = match &temp {
        Some(internal) => (target.0.clone(), internal.clone()),
        None => target.clone(),
    };
    // partition management runs alone; PARTITION BY / REMOVE PARTITIONING apply after the
    // other operations, through a rebuild
    let mut part_clause = None;
    for op in &a.ops {
        if let AlterOp::Partition(po) = op {
            match po.as_ref() {
                PartOp::PartitionBy(_) | PartOp::Remove => part_clause = Some(po.as_ref().clone()),
                other => {
                    if a.ops.len() > 1 {
                        return Err(Error::parse("PARTITION"));
                    }
                    // the no-write lock taken above; publishing upgrades it
                    return crate::catalog::partition::alter(s, &stored_def, other);
                }
            }
        }
    }
    let mut p = plan(s, &t, &a.ops)?;
    // FOREIGN KEY: the index each constraint needs kept (1553), the added ones checked
    crate::ddl::foreign_key::check_indexes(&t, &p.def)?;
    let added_fks: Vec<String> = p
        .def
        .foreign_keys
        .iter()
        .filter(|f| !t.foreign_keys.iter().any(|o| o.name == f.name))
        .map(|f| f.name.clone())
        .collect();
    crate::ddl::foreign_key::validate(s, &p.def, Some(&added_fks))?;
    let fk_renames = crate::ddl::foreign_key::column_renames(&t, &p.def, &p.src);
    p.def.name = target.1.clone();
    if crate::ddl::check::alter(&t, &mut p.def, &a.ops, &*s)? {
        checks_need_copy(&mut p)?;
    }
    p.def.name = t.name.clone();
    if temp.is_none() {
        let own = if target.0 == db { tname.as_str() } else { "" };
        crate::ddl::check::check_unique_names(s.storage(), &target.0, own, &p.def.checks)?;
    }
    if temp.is_some() && part_clause.is_some() {
        return Err(Error::new(
            codes::ER_PARTITION_NO_TEMPORARY,
            "Cannot create temporary table with partitions",
        ));
    }
    match part_clause {
        Some(PartOp::PartitionBy(spec)) => {
            let norm = p.def.clone().normalized();
            let built = crate::catalog::partition::build(s, &norm, &spec)?;
            p.def.partitioning = Some(std::sync::Arc::new(built));
            p.rebuild.get_or_insert_with(|| "PARTITION BY".into());
        }
        Some(_) => {
            if t.partitioning.is_none() {
                return Err(Error::new(
                    codes::ER_PARTITION_MGMT_ON_NONPARTITIONED,
                    "Partition management on a not partitioned table is not possible",
                ));
            }
            p.def.partitioning = None;
            p.rebuild
                .get_or_insert_with(|| "REMOVE PARTITIONING".into());
        }
        None => {
            if let Some(pp) = p.def.partitioning.clone() {
                crate::catalog::partition::check_partitioning(&p.def.clone().normalized(), &pp)?;
                crate::catalog::partition::check_binds(s, &p.def)?;
                let same_indexes = p.def.indexes.len() == t.indexes.len()
                    && p.def
                        .indexes
                        .iter()
                        .zip(&t.indexes)
                        .all(|(a, b)| a.id == b.id);
                if p.builds_index || !same_indexes {
                    p.rebuild
                        .get_or_insert_with(|| "index change of a partitioned table".into());
                }
            }
        }
    }
    s.inst.partitions.clear();
    s.warnings.extend(p.notes.iter().cloned());
    match p.algorithm {
        Algorithm::Instant => {
            if let Some(r) = p.rebuild.as_ref().or(p.not_instant.as_ref()) {
                return Err(not_supported_reason(
                    "ALGORITHM=INSTANT",
                    r,
                    "ALGORITHM=COPY/INPLACE",
                ));
            }
        }
        Algorithm::Inplace if p.type_change => {
            return Err(not_supported_reason(
                "ALGORITHM=INPLACE",
                "Cannot change column type INPLACE",
                "ALGORITHM=COPY",
            ))
        }
        _ => {}
    }
    if p.lock == Lock::None {
        if p.rebuild.is_some() {
            return Err(not_supported_reason(
                "LOCK=NONE",
                "COPY algorithm requires a lock",
                "LOCK=SHARED",
            ));
        }
        if p.builds_index {
            return Err(not_supported_reason(
                "LOCK=NONE",
                "Strata builds indexes without a log of concurrent changes",
                "LOCK=SHARED",
            ));
        }
    }
    let out = if p.rebuild.is_some() {
        rebuild(s, &stored_def, p, &stored_target, &target.1)?
    } else {
        let mut def = p.def;
        def.db = stored_target.0.clone();
        def.name = stored_target.1.clone();
        s.mdl_lock(&db, &stored, MdlMode::Exclusive)?;
        let new = s
            .storage()
            .alter_table_online(&db, &stored, stored_def.version, def)?;
        if let Some(v) = p.autoinc {
            s.storage().set_autoinc(&new, v)?;
        }
        alter_ok(0, s.warnings.len())
    };
    if temp.is_none() {
        // other tables' constraints referencing this one follow its new names
        crate::ddl::foreign_key::follow_alter(s, &db, &tname, &fk_renames, &target)?;
    }
    if let (Some(internal), true) = (temp, renamed) {
        s.temp.remove(&db, &tname);
        s.temp.insert(&target.0, &target.1, internal);
    }
    Ok(out)
}

/// A CHECK constraint to validate against the existing rows makes the ALTER a copy, as in
/// MySQL (ALGORITHM=INPLACE / INSTANT: 1845).
fn checks_need_copy(p: &mut Plan) -> Result<()> {
    for (alg, name) in [
        (Algorithm::Inplace, "ALGORITHM=INPLACE"),
        (Algorithm::Instant, "ALGORITHM=INSTANT"),
    ] {
        if p.algorithm == alg {
            return Err(Error::new(
                codes::ER_ALTER_OPERATION_NOT_SUPPORTED,
                format!("{name} is not supported for this operation. Try ALGORITHM=COPY."),
            ));
        }
    }
    p.rebuild
        .get_or_insert_with(|| "a CHECK constraint is checked against the rows".into());
    Ok(())
}

/// The OK of ALTER TABLE, with MySQL's info line.
fn alter_ok(records: u64, warnings: usize) -> Output {
    Output::Ok {
        affected: records,
        last_insert_id: 0,
        info: format!("Records: {records}  Duplicates: 0  Warnings: {warnings}"),
    }
}

/// The rebuild path: copy into a temporary table, then swap it in (see the module docs).
/// `old` and `target` are storage names; `shown` is the table's name in messages.
fn rebuild<E: KvEngine>(
    s: &mut Session<E>,
    old: &TableDef,
    p: Plan,
    target: &(String, String),
    shown: &str,
) -> Result<Output> {
    let st = s.storage().clone();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp_name = format!("{TEMP_PREFIX}{}-{nanos:x}", old.id);
    let mut def = p.def.clone();
    def.id = 0;
    def.name = tmp_name.clone();
    def.version = 1;
    for c in def.columns.iter_mut() {
        c.instant_default = None;
    }
    // the hidden row-id key is created anew by create_table
    def.indexes
        .retain(|i| !(i.kind == IndexKind::Primary && i.columns.is_empty()));
    for ix in def.indexes.iter_mut() {
        ix.id = 0;
    }
    def.hidden_pk = false;
    def.options.auto_increment = match p.autoinc {
        Some(v) => v,
        None if old.autoinc_column().is_some() && def.autoinc_column().is_some() => {
            st.autoinc_peek(old)?
        }
        None => old.options.auto_increment,
    };
    let tmp = st.create_table(def)?;
    let copied = copy_rows(s, old, &tmp, &p, shown);
    let n = match copied {
        Ok(n) => n,
        Err(e) => {
            let _ = st.drop_table(&old.db, &tmp_name);
            return Err(e);
        }
    };
    crate::catalog::partition::crash_point(s, "partition_after_copy");
    if let Err(e) = s.mdl_lock(&old.db, &old.name, MdlMode::Exclusive) {
        let _ = st.drop_table(&old.db, &tmp_name);
        return Err(e);
    }
    if let Err(e) = st.replace_table(&old.db, &old.name, old.id, &tmp_name, &target.0, &target.1) {
        let _ = st.drop_table(&old.db, &tmp_name);
        return Err(e);
    }
    s.inst.partitions.clear();
    crate::catalog::partition::crash_point(s, "partition_after_publish");
    Ok(alter_ok(n, s.warnings.len()))
}

/// Copies every row of `old` into `tmp`, converted per `p.src`; returns the row count.
fn copy_rows<E: KvEngine>(
    s: &mut Session<E>,
    old: &TableDef,
    tmp: &TableDef,
    p: &Plan,
    display_name: &str,
) -> Result<u64> {
    let st = s.storage().clone();
    let strict = s.strict();
    let no_auto_on_zero = s.mode("NO_AUTO_VALUE_ON_ZERO");
    let fills = fill_values(s, &tmp.columns, &p.src)?;
    let mut reader = st.begin(TxnOptions::default());
    let rows = crate::catalog::partition::all_leaves(s, old)?
        .iter()
        .map(|l| reader.scan_all(l))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten();
    let ai = tmp.autoinc_column();
    let mut shown = tmp.clone();
    shown.name = display_name.to_string();
    // every copied row meets the new definition's enforced CHECK constraints (3819)
    let checks = crate::dml::check::RowChecks::bind(&*s, &shown)?;
    // generated columns are computed for the new definition (a new or changed expression, or
    // a changed type of a column it uses)
    let generated = crate::dml::generated::RowGenerated::bind(&*s, &shown)?;
    s.with_ctx(&[], false, |s, ctx| {
        let mut w = st.begin(TxnOptions::default());
        let mut pending = 0usize;
        let mut n = 0u64;
        for r in rows {
            let (_, row) = r?;
            n += 1;
            if ctx.killed.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(Error::interrupted());
            }
            let mut new = Vec::with_capacity(tmp.columns.len());
            for (j, c) in tmp.columns.iter().enumerate() {
                let v = match p.src[j] {
                    Some(i) => {
                        let v = row[i].clone();
                        if v.is_null() {
                            if c.nullable || c.auto_increment {
                                Value::Null
                            } else if strict {
                                return Err(Error::new(
                                    codes::ER_INVALID_USE_OF_NULL,
                                    "Invalid use of NULL value",
                                ));
                            } else {
                                ctx.warnings.push(Warning::warn(
                                    codes::WARN_DATA_TRUNCATED,
                                    format!("Data truncated for column '{}' at row {n}", c.name),
                                ));
                                let mut w2 = Vec::new();
                                func::store::store(
                                    crate::dml::single::implicit_default(&c.ty),
                                    &c.ty,
                                    false,
                                    &c.name,
                                    n,
                                    &mut w2,
                                )?
                            }
                        } else if old.columns[i].ty == c.ty {
                            v
                        } else {
                            func::store::store(v, &c.ty, strict, &c.name, n, ctx.warnings).map_err(
                                |e| {
                                    if e.code == codes::ER_DATA_TOO_LONG {
                                        Error::new(
                                            codes::WARN_DATA_TRUNCATED,
                                            format!(
                                                "Data truncated for column '{}' at row {n}",
                                                c.name
                                            ),
                                        )
                                    } else {
                                        e
                                    }
                                },
                            )?
                        }
                    }
                    None => fills[j].clone().unwrap_or(Value::Null),
                };
                new.push(v);
            }
            if let Some(a) = ai {
                let zero = matches!(new[a], Value::Int(0) | Value::UInt(0)) && !no_auto_on_zero;
                if new[a].is_null() || zero {
                    let id = st.autoinc_next(tmp, 1)?;
                    new[a] = func::store::store(
                        Value::UInt(id),
                        &tmp.columns[a].ty,
                        true,
                        &tmp.columns[a].name,
                        n,
                        ctx.warnings,
                    )?;
                } else if let Some(v) = func::convert::to_u64(&new[a], ctx.warnings) {
                    st.autoinc_observe(tmp, v)?;
                }
            }
            generated.compute(&shown, &mut new, strict, n, ctx)?;
            checks.passes(&new, false, ctx)?;
            let leaf = crate::catalog::partition::leaf_for(s, tmp, &new, ctx)?;
            match w.insert(leaf.as_deref().unwrap_or(tmp), &new)? {
                InsertOutcome::Inserted(_) => {}
                InsertOutcome::Duplicate { index_no, .. } => {
                    return Err(storage::catalog::ddl::duplicate_error(
                        &shown, index_no, &new,
                    ))
                }
            }
            pending += 1;
            if pending >= COPY_BATCH {
                std::mem::replace(&mut w, st.begin(TxnOptions::default())).commit(false)?;
                pending = 0;
            }
        }
        w.commit(false)?;
        Ok(n)
    })
}

/// `RENAME TABLE a TO b [, c TO d …]`: atomic, pairs applied in order.
///
/// # Errors
/// 1146 missing source, 1050 target exists, 1049 unknown database, 1103/1059 bad names.
pub fn rename_tables<E: KvEngine>(s: &mut Session<E>, list: &[ast::RenameTable]) -> Result<Output> {
    let mut pairs = Vec::with_capacity(list.len());
    let mut names = Vec::with_capacity(list.len() * 2);
    for r in list {
        let from = qualify(s, &r.old_name)?;
        let to = qualify(s, &r.new_name)?;
        crate::ddl::table::check_ident(&to.1, "table")?;
        names.push(from.clone());
        names.push(to.clone());
        pairs.push((from, to));
    }
    s.mdl_lock_all(&names, MdlMode::Exclusive)?;
    s.storage().rename_tables(&pairs)?;
    Ok(Output::ok(0))
}

#[cfg(test)]
mod tests {
    use storage::mem::MemEngine;
    use storage::StorageOptions;

    use super::*;
    use crate::runtime::sysvars::GlobalVars;
    use crate::session::session::test_support::rows;
    use crate::Instance;

    fn session() -> Session<MemEngine> {
        let storage = Storage::open(MemEngine::new(), StorageOptions::default()).unwrap();
        session_on(storage)
    }

    fn session_on(storage: std::sync::Arc<Storage<MemEngine>>) -> Session<MemEngine> {
        let inst = Instance::new(storage, GlobalVars::new(&[]).unwrap());
        let mut s = Session::new(inst, 1, "root", "localhost", None).unwrap();
        if s.storage().get_database("d").unwrap().is_none() {
            ok(&mut s, "CREATE DATABASE d");
        }
        ok(&mut s, "USE d");
        s
    }

    /// Runs a statement that must succeed; returns its info line.
    fn ok(s: &mut Session<MemEngine>, sql: &str) -> String {
        match s.query(sql, true).pop().unwrap() {
            Ok(Output::Ok { info, .. }) => info,
            other => panic!("{sql}: expected OK, got {other:?}"),
        }
    }

    fn err(s: &mut Session<MemEngine>, sql: &str) -> Error {
        match s.query(sql, false).pop().unwrap() {
            Err(e) => e,
            other => panic!("{sql}: expected an error, got {other:?}"),
        }
    }

    fn code(s: &mut Session<MemEngine>, sql: &str) -> u16 {
        err(s, sql).num()
    }

    fn create(s: &mut Session<MemEngine>, s_: &str) -> String {
        rows(s, &format!("SHOW CREATE TABLE {s_}"))[0][1].clone()
    }

    fn table(s: &Session<MemEngine>, name: &str) -> std::sync::Arc<TableDef> {
        s.storage().get_table("d", name).unwrap().unwrap()
    }

    fn flat(r: Vec<Vec<String>>) -> String {
        r.into_iter()
            .map(|r| r.join(","))
            .collect::<Vec<_>>()
            .join(";")
    }

    fn setup(s: &mut Session<MemEngine>) {
        ok(
            s,
            "CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), KEY ka (a), KEY kab (a, b))",
        );
        ok(
            s,
            "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, NULL, 'zzzzzz')",
        );
    }

    #[test]
    fn add_column_at_end_is_instant_with_frozen_value() {
        let mut s = session();
        setup(&mut s);
        let before = table(&s, "t");
        let info = ok(
            &mut s,
            "ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 7, ALGORITHM=INSTANT",
        );
        assert_eq!(info, "Records: 0  Duplicates: 0  Warnings: 0");
        let after = table(&s, "t");
        assert_eq!(after.id, before.id, "no rebuild");
        assert_eq!(after.version, before.version + 1);
        assert_eq!(after.columns[3].instant_default.as_deref(), Some("7"));
        // a later SET DEFAULT does not change the rows stored before the column existed
        ok(
            &mut s,
            "ALTER TABLE t ALTER COLUMN c SET DEFAULT 9, ALGORITHM=INSTANT",
        );
        ok(&mut s, "INSERT INTO t (id) VALUES (4)");
        assert_eq!(
            flat(rows(&mut s, "SELECT id, c FROM t ORDER BY id")),
            "1,7;2,7;3,7;4,9"
        );
        // NOT NULL without a default: the implicit default; nullable: NULL; several at once
        ok(
            &mut s,
            "ALTER TABLE t ADD n INT NOT NULL, ADD v VARCHAR(5) NOT NULL, ADD z INT, ADD e ENUM('p','q') NOT NULL",
        );
        assert_eq!(
            flat(rows(&mut s, "SELECT n, v, z, e FROM t WHERE id = 1")),
            "0,,NULL,p"
        );
        // CURRENT_TIMESTAMP is evaluated once, for every existing row
        ok(&mut s, "SET timestamp = 1700000000");
        ok(
            &mut s,
            "ALTER TABLE t ADD ts DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, ALGORITHM=INSTANT",
        );
        assert_eq!(table(&s, "t").id, before.id);
        assert_eq!(
            flat(rows(&mut s, "SELECT DISTINCT ts FROM t")),
            "2023-11-14 22:13:20"
        );
        // the new column can be indexed at once, with its frozen value
        ok(
            &mut s,
            "ALTER TABLE t ADD w INT DEFAULT 5, ADD INDEX kw (w)",
        );
        assert_eq!(
            flat(rows(&mut s, "SELECT COUNT(*) FROM t WHERE w = 5")),
            "4"
        );
    }

    #[test]
    fn add_column_first_after_rebuilds() {
        let mut s = session();
        setup(&mut s);
        let before = table(&s, "t");
        let e = err(&mut s, "ALTER TABLE t ADD c INT FIRST, ALGORITHM=INSTANT");
        assert_eq!(e.num(), 1846);
        assert_eq!(e.msg, "ALGORITHM=INSTANT is not supported. Reason: Need to rebuild the table to add or move a column other than at the end. Try ALGORITHM=COPY/INPLACE.");
        let info = ok(
            &mut s,
            "ALTER TABLE t ADD c INT DEFAULT 1 FIRST, ADD d CHAR(2) DEFAULT 'dd' AFTER a",
        );
        assert_eq!(info, "Records: 3  Duplicates: 0  Warnings: 0");
        let after = table(&s, "t");
        assert_ne!(after.id, before.id);
        assert!(after.version > before.version);
        let names: Vec<&str> = after.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["c", "id", "a", "d", "b"]);
        assert_eq!(
            flat(rows(&mut s, "SELECT * FROM t ORDER BY id")),
            "1,1,10,dd,x;1,2,20,dd,y;1,3,NULL,dd,zzzzzz"
        );
        // indexes were rebuilt with remapped columns
        assert_eq!(
            flat(rows(&mut s, "SELECT id FROM t WHERE a = 20 AND b = 'y'")),
            "2"
        );
        assert!(create(&mut s, "t").contains("KEY `kab` (`a`,`b`)"));
        // no temporary table left behind
        assert_eq!(s.storage().list_tables("d").unwrap(), vec!["t".to_string()]);
        // unknown AFTER column
        let e = err(&mut s, "ALTER TABLE t ADD q INT AFTER nope");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1054, "Unknown column 'nope' in 't'")
        );
    }

    #[test]
    fn drop_column_and_its_indexes() {
        let mut s = session();
        setup(&mut s);
        ok(&mut s, "ALTER TABLE t DROP COLUMN a");
        let t = table(&s, "t");
        assert_eq!(t.columns.len(), 2);
        // `ka` lost its only column and is gone; `kab` keeps `b`
        let names: Vec<&str> = t.visible_indexes().map(|(_, i)| i.name.as_str()).collect();
        assert_eq!(names, ["PRIMARY", "kab"]);
        assert_eq!(t.indexes[1].columns[0].col, 1);
        assert_eq!(flat(rows(&mut s, "SELECT * FROM t WHERE b = 'y'")), "2,y");
        let e = err(&mut s, "ALTER TABLE t DROP COLUMN a");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1091, "Can't DROP 'a'; check that column/key exists")
        );
        ok(&mut s, "ALTER TABLE t DROP COLUMN IF EXISTS a");
        assert_eq!(s.warnings.len(), 1);
        let e = err(&mut s, "ALTER TABLE t DROP id, DROP b");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (
                1090,
                "You can't delete all columns with ALTER TABLE; use DROP TABLE instead"
            )
        );
        // a column added in the same statement is not an original column
        assert_eq!(code(&mut s, "ALTER TABLE t ADD q INT, DROP q"), 1091);
        // dropping the primary key column drops the primary key
        ok(&mut s, "ALTER TABLE t DROP id");
        let t = table(&s, "t");
        assert!(t.hidden_pk);
        assert_eq!(
            flat(rows(&mut s, "SELECT * FROM t ORDER BY b")),
            "x;y;zzzzzz"
        );
        ok(&mut s, "INSERT INTO t VALUES ('w')");
        assert_eq!(flat(rows(&mut s, "SELECT COUNT(*) FROM t")), "4");
    }

    #[test]
    fn modify_and_change_convert_rows() {
        let mut s = session();
        setup(&mut s);
        // strict mode: errors abort and leave the table as it was
        let before = table(&s, "t");
        let e = err(&mut s, "ALTER TABLE t MODIFY b INT");
        assert_eq!(e.num(), 1366, "{}", e.msg);
        assert!(e.msg.contains("for column 'b' at row 1"), "{}", e.msg);
        let e = err(&mut s, "ALTER TABLE t MODIFY b VARCHAR(3)");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1265, "Data truncated for column 'b' at row 3")
        );
        let e = err(&mut s, "ALTER TABLE t MODIFY a DECIMAL(2,1)");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1264, "Out of range value for column 'a' at row 1")
        );
        let e = err(&mut s, "ALTER TABLE t MODIFY a INT NOT NULL");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1138, "Invalid use of NULL value")
        );
        assert_eq!(table(&s, "t").as_ref(), before.as_ref());
        assert_eq!(s.storage().list_tables("d").unwrap(), vec!["t".to_string()]);
        let e = err(&mut s, "ALTER TABLE t MODIFY a BIGINT, ALGORITHM=INPLACE");
        assert_eq!(e.msg, "ALGORITHM=INPLACE is not supported. Reason: Cannot change column type INPLACE. Try ALGORITHM=COPY.");
        assert_eq!(
            code(&mut s, "ALTER TABLE t MODIFY a BIGINT, LOCK=NONE"),
            1846
        );
        // conversions that fit
        let info = ok(
            &mut s,
            "ALTER TABLE t MODIFY a VARCHAR(20) DEFAULT '' COMMENT 'was int'",
        );
        assert_eq!(info, "Records: 3  Duplicates: 0  Warnings: 0");
        // non-strict: warnings instead of errors
        ok(&mut s, "SET sql_mode = ''");
        ok(&mut s, "UPDATE t SET a = 'abc' WHERE id = 3");
        let info = ok(&mut s, "ALTER TABLE t CHANGE a num INT, MODIFY b CHAR(2)");
        assert_eq!(info, "Records: 3  Duplicates: 0  Warnings: 2");
        assert_eq!(
            flat(rows(&mut s, "SHOW WARNINGS")),
            "Warning,1366,Incorrect integer value: 'abc' for column 'num' at row 3;Warning,1265,Data truncated for column 'b' at row 3"
        );
        assert_eq!(
            flat(rows(&mut s, "SELECT * FROM t ORDER BY id")),
            "1,10,x;2,20,y;3,0,zz"
        );
        ok(&mut s, "UPDATE t SET num = NULL WHERE id = 2");
        let info = ok(&mut s, "ALTER TABLE t MODIFY num INT NOT NULL");
        assert_eq!(info, "Records: 3  Duplicates: 0  Warnings: 1");
        assert_eq!(
            flat(rows(&mut s, "SHOW WARNINGS")),
            "Warning,1265,Data truncated for column 'num' at row 2"
        );
        ok(&mut s, "SET sql_mode = DEFAULT");
        // CHANGE can swap names; RENAME COLUMN
        ok(
            &mut s,
            "ALTER TABLE t CHANGE num b2 INT, CHANGE b num CHAR(2)",
        );
        ok(
            &mut s,
            "ALTER TABLE t RENAME COLUMN b2 TO b, ALGORITHM=INSTANT",
        );
        assert!(create(&mut s, "t").contains("`b` int"));
        let e = err(&mut s, "ALTER TABLE t CHANGE nope x INT");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1054, "Unknown column 'nope' in 't'")
        );
        assert_eq!(code(&mut s, "ALTER TABLE t RENAME COLUMN nope TO x"), 1054);
        let e = err(&mut s, "ALTER TABLE t RENAME COLUMN b TO num");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1060, "Duplicate column name 'num'")
        );
        assert_eq!(code(&mut s, "ALTER TABLE t ADD id INT"), 1060);
        // widening a VARCHAR that is not indexed needs no copy
        ok(&mut s, "CREATE TABLE w (v VARCHAR(5))");
        ok(&mut s, "INSERT INTO w VALUES ('abc')");
        let id = table(&s, "w").id;
        assert_eq!(
            code(
                &mut s,
                "ALTER TABLE w MODIFY v VARCHAR(50), ALGORITHM=INSTANT"
            ),
            1846
        );
        assert_eq!(
            ok(
                &mut s,
                "ALTER TABLE w MODIFY v VARCHAR(50), ALGORITHM=INPLACE"
            ),
            "Records: 0  Duplicates: 0  Warnings: 0"
        );
        assert_eq!(table(&s, "w").id, id);
        assert_eq!(flat(rows(&mut s, "SELECT v FROM w")), "abc");
        // appending ENUM members is instant; reordering them rebuilds
        ok(&mut s, "CREATE TABLE en (e ENUM('a','b'))");
        ok(&mut s, "INSERT INTO en VALUES ('b')");
        let id = table(&s, "en").id;
        ok(
            &mut s,
            "ALTER TABLE en MODIFY e ENUM('a','b','c'), ALGORITHM=INSTANT",
        );
        assert_eq!(table(&s, "en").id, id);
        ok(&mut s, "INSERT INTO en VALUES ('c')");
        ok(&mut s, "ALTER TABLE en MODIFY e ENUM('c','b','a')");
        assert_ne!(table(&s, "en").id, id);
        assert_eq!(flat(rows(&mut s, "SELECT e FROM en")), "b;c");
    }

    #[test]
    fn defaults_instant() {
        let mut s = session();
        setup(&mut s);
        let id = table(&s, "t").id;
        ok(
            &mut s,
            "ALTER TABLE t ALTER COLUMN a SET DEFAULT 42, ALGORITHM=INSTANT",
        );
        ok(&mut s, "INSERT INTO t (id) VALUES (9)");
        assert_eq!(flat(rows(&mut s, "SELECT a FROM t WHERE id = 9")), "42");
        ok(&mut s, "ALTER TABLE t ALTER a DROP DEFAULT");
        assert!(create(&mut s, "t").contains("`a` int DEFAULT NULL"));
        assert_eq!(table(&s, "t").id, id);
        assert_eq!(code(&mut s, "ALTER TABLE t ALTER nope SET DEFAULT 1"), 1054);
        assert_eq!(
            code(&mut s, "ALTER TABLE t ALTER a SET DEFAULT 'abc'"),
            1067
        );
        assert_eq!(
            code(&mut s, "ALTER TABLE t MODIFY a INT NOT NULL DEFAULT 0"),
            1138
        );
        ok(&mut s, "UPDATE t SET a = 0 WHERE a IS NULL");
        ok(
            &mut s,
            "ALTER TABLE t MODIFY a INT NOT NULL DEFAULT 0 COMMENT 'x'",
        );
        assert_eq!(code(&mut s, "ALTER TABLE t ALTER a SET DEFAULT NULL"), 1067);
    }

    #[test]
    fn index_operations() {
        let mut s = session();
        setup(&mut s);
        let id = table(&s, "t").id;
        let e = err(&mut s, "ALTER TABLE t ADD INDEX (a), ALGORITHM=INSTANT");
        assert_eq!(e.num(), 1846);
        ok(
            &mut s,
            "ALTER TABLE t ADD INDEX (b), ADD UNIQUE KEY ub (b(3))",
        );
        let t = table(&s, "t");
        assert_eq!(t.id, id, "indexes are built in place");
        let names: Vec<&str> = t.visible_indexes().map(|(_, i)| i.name.as_str()).collect();
        assert_eq!(names, ["PRIMARY", "ub", "ka", "kab", "b"]);
        let e = err(&mut s, "ALTER TABLE t ADD UNIQUE (a), ADD INDEX ka (b)");
        assert_eq!((e.num(), e.msg.as_str()), (1061, "Duplicate key name 'ka'"));
        ok(&mut s, "INSERT INTO t VALUES (4, 10, 'q')");
        let e = err(&mut s, "ALTER TABLE t ADD UNIQUE KEY ua (a), DROP INDEX b");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1062, "Duplicate entry '10' for key 't.ua'")
        );
        assert_eq!(table(&s, "t").as_ref(), t.as_ref(), "all or nothing");
        let e = err(&mut s, "ALTER TABLE t DROP INDEX nope");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1091, "Can't DROP 'nope'; check that column/key exists")
        );
        ok(&mut s, "ALTER TABLE t DROP INDEX b, DROP KEY ub");
        ok(
            &mut s,
            "ALTER TABLE t RENAME INDEX ka TO ka2, ALGORITHM=INSTANT",
        );
        assert!(create(&mut s, "t").contains("KEY `ka2` (`a`)"));
        let info = ok(&mut s, "ALTER TABLE t ADD INDEX dup (a)");
        assert_eq!(info, "Records: 0  Duplicates: 0  Warnings: 1");
        assert_eq!(
            flat(rows(&mut s, "SHOW WARNINGS")),
            "Warning,1831,Duplicate index 'dup' defined on the table 'd.t'. This is deprecated and will be disallowed in a future release."
        );
        ok(&mut s, "ALTER TABLE t DROP INDEX dup");
        let e = err(&mut s, "ALTER TABLE t RENAME KEY nope TO x");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1176, "Key 'nope' doesn't exist in table 't'")
        );
        assert_eq!(code(&mut s, "ALTER TABLE t RENAME KEY ka2 TO kab"), 1061);
        assert_eq!(code(&mut s, "ALTER TABLE t ADD INDEX (nope)"), 1072);
        let e = err(&mut s, "ALTER TABLE t ADD PRIMARY KEY (a)");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1068, "Multiple primary key defined")
        );
        // primary key changes rebuild the table; duplicates are found
        let e = err(
            &mut s,
            "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (a)",
        );
        assert_eq!(e.num(), 1138, "{}", e.msg); // a has a NULL
        ok(&mut s, "UPDATE t SET a = 30 WHERE id = 3");
        let e = err(
            &mut s,
            "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (a)",
        );
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1062, "Duplicate entry '10' for key 't.PRIMARY'")
        );
        ok(
            &mut s,
            "ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (a, id)",
        );
        let t = table(&s, "t");
        assert!(!t.hidden_pk);
        assert_eq!(t.indexes[0].columns.len(), 2);
        assert!(
            !t.columns[1].nullable,
            "primary key columns become NOT NULL"
        );
        ok(&mut s, "ALTER TABLE t DROP PRIMARY KEY");
        assert!(table(&s, "t").hidden_pk);
        assert_eq!(code(&mut s, "ALTER TABLE t DROP PRIMARY KEY"), 1091);
        ok(&mut s, "ALTER TABLE t ADD PRIMARY KEY (id)");
        assert_eq!(
            flat(rows(&mut s, "SELECT id FROM t ORDER BY id")),
            "1;2;3;4"
        );
        // CREATE INDEX / DROP INDEX go through ALTER
        ok(&mut s, "CREATE UNIQUE INDEX uid ON t (id, a)");
        ok(&mut s, "DROP INDEX uid ON t");
        assert_eq!(code(&mut s, "DROP INDEX uid ON t"), 1091);
        assert_eq!(code(&mut s, "ALTER TABLE t ADD INDEX (b), LOCK=NONE"), 1846);
        // BLOB/TEXT keys need a prefix
        assert_eq!(
            code(&mut s, "ALTER TABLE t ADD tx TEXT, ADD INDEX (tx)"),
            1170
        );
    }

    #[test]
    fn auto_increment_column_and_option() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE a (v VARCHAR(5))");
        ok(&mut s, "INSERT INTO a VALUES ('x'), ('y')");
        let e = err(&mut s, "ALTER TABLE a ADD id INT AUTO_INCREMENT");
        assert_eq!(e.num(), 1075);
        ok(
            &mut s,
            "ALTER TABLE a ADD id INT AUTO_INCREMENT PRIMARY KEY FIRST",
        );
        assert_eq!(flat(rows(&mut s, "SELECT * FROM a ORDER BY id")), "1,x;2,y");
        ok(&mut s, "ALTER TABLE a AUTO_INCREMENT = 100");
        ok(&mut s, "INSERT INTO a (v) VALUES ('z')");
        assert_eq!(flat(rows(&mut s, "SELECT MAX(id) FROM a")), "100");
        // the counter survives a rebuild
        ok(&mut s, "ALTER TABLE a MODIFY v VARCHAR(8) NOT NULL FIRST");
        ok(&mut s, "INSERT INTO a (v) VALUES ('w')");
        assert_eq!(flat(rows(&mut s, "SELECT MAX(id) FROM a")), "101");
        assert!(create(&mut s, "a").contains("AUTO_INCREMENT=102"));
    }

    #[test]
    fn table_options_and_charset() {
        let mut s = session();
        setup(&mut s);
        let id = table(&s, "t").id;
        ok(&mut s, "ALTER TABLE t COMMENT = 'hello', ALGORITHM=INSTANT");
        assert!(create(&mut s, "t").ends_with("COMMENT='hello'"));
        assert_eq!(
            code(&mut s, "ALTER TABLE t ENGINE=MyISAM, ALGORITHM=INSTANT"),
            1846
        );
        ok(&mut s, "ALTER TABLE t ENGINE=MyISAM ROW_FORMAT=DYNAMIC");
        assert!(create(&mut s, "t").contains(") ENGINE=MyISAM DEFAULT CHARSET"));
        ok(&mut s, "ALTER TABLE t DEFAULT CHARSET = latin1");
        ok(&mut s, "ALTER TABLE t ADD l VARCHAR(3)");
        let c = create(&mut s, "t");
        assert!(c.contains("DEFAULT CHARSET=latin1"), "{c}");
        assert!(c.contains("`b` varchar(10) CHARACTER SET utf8mb4"), "{c}");
        assert!(c.contains("`l` varchar(3) DEFAULT NULL"), "{c}");
        assert_eq!(table(&s, "t").id, id);
        ok(
            &mut s,
            "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
        );
        let t = table(&s, "t");
        assert_ne!(t.id, id);
        assert!(t
            .columns
            .iter()
            .filter(|c| c.ty.is_text())
            .all(|c| c.ty.collation() == common::Collation::Utf8mb4Bin));
        assert_eq!(code(&mut s, "ALTER TABLE t DEFAULT CHARSET = nope"), 1115);
        assert_eq!(code(&mut s, "ALTER TABLE t COLLATE = nope"), 1273);
        ok(&mut s, "ALTER TABLE t FORCE");
        assert_ne!(table(&s, "t").id, t.id);
        assert_eq!(flat(rows(&mut s, "SELECT COUNT(*) FROM t")), "3");
    }

    #[test]
    fn renames() {
        let mut s = session();
        setup(&mut s);
        ok(&mut s, "CREATE TABLE u (x INT)");
        assert_eq!(code(&mut s, "ALTER TABLE nope ADD c INT"), 1146);
        let e = err(&mut s, "ALTER TABLE t RENAME TO u");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1050, "Table 'u' already exists")
        );
        ok(&mut s, "ALTER TABLE t RENAME TO t2, ALGORITHM=INSTANT");
        ok(&mut s, "ALTER TABLE t2 RENAME t3");
        // a rename together with a rebuild
        ok(&mut s, "ALTER TABLE t3 RENAME AS t4, ADD c INT FIRST");
        assert_eq!(flat(rows(&mut s, "SELECT COUNT(*) FROM t4")), "3");
        assert_eq!(flat(rows(&mut s, "SHOW TABLES")), "t4;u");
        // RENAME TABLE: several pairs, a swap, all or nothing
        ok(&mut s, "RENAME TABLE t4 TO tmp, u TO t4, tmp TO u");
        assert_eq!(flat(rows(&mut s, "SELECT COUNT(*) FROM u")), "3");
        let e = err(&mut s, "RENAME TABLE u TO v, nope TO w");
        assert_eq!(
            (e.num(), e.msg.as_str()),
            (1146, "Table 'd.nope' doesn't exist")
        );
        assert_eq!(flat(rows(&mut s, "SHOW TABLES")), "t4;u");
        assert_eq!(code(&mut s, "RENAME TABLE u TO v, t4 TO v"), 1050);
        assert_eq!(flat(rows(&mut s, "SHOW TABLES")), "t4;u");
        ok(&mut s, "CREATE DATABASE d2");
        ok(&mut s, "RENAME TABLE u TO d2.u");
        assert_eq!(flat(rows(&mut s, "SELECT COUNT(*) FROM d2.u")), "3");
    }

    #[test]
    fn several_operations_apply_together() {
        let mut s = session();
        setup(&mut s);
        let before = table(&s, "t");
        // the last operation fails: nothing changes
        assert_eq!(
            code(
                &mut s,
                "ALTER TABLE t ADD c INT, DROP b, MODIFY a BIGINT, ADD INDEX (nope)"
            ),
            1072
        );
        assert_eq!(table(&s, "t").as_ref(), before.as_ref());
        ok(&mut s, "UPDATE t SET a = 0 WHERE a IS NULL");
        ok(
            &mut s,
            "ALTER TABLE t ADD c INT DEFAULT 3, DROP b, MODIFY a BIGINT NOT NULL DEFAULT 0 AFTER c, ADD INDEX kc (c), COMMENT 'x'",
        );
        let c = create(&mut s, "t");
        assert_eq!(
            c,
            "CREATE TABLE `t` (\n  `id` int NOT NULL,\n  `c` int DEFAULT '3',\n  `a` bigint NOT NULL DEFAULT '0',\n  PRIMARY KEY (`id`),\n  KEY `ka` (`a`),\n  KEY `kab` (`a`),\n  KEY `kc` (`c`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci COMMENT='x'"
        );
        assert_eq!(
            flat(rows(&mut s, "SELECT * FROM t ORDER BY id")),
            "1,3,10;2,3,20;3,3,0"
        );
    }

    #[test]
    fn leftover_temporary_tables_are_hidden_and_dropped() {
        let mut s = session();
        setup(&mut s);
        let mut def = (*table(&s, "t")).clone();
        def.id = 0;
        def.name = format!("{TEMP_PREFIX}1-abc");
        for ix in def.indexes.iter_mut() {
            ix.id = 0;
        }
        s.storage().create_table(def).unwrap();
        assert_eq!(flat(rows(&mut s, "SHOW TABLES")), "t");
        assert_eq!(
            flat(rows(
                &mut s,
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'd'"
            )),
            "1"
        );
        assert_eq!(s.storage().list_tables("d").unwrap().len(), 2);
        // a restart (a new instance over the same storage) drops it
        let st = s.storage().clone();
        drop(s);
        let mut s = session_on(st);
        assert_eq!(s.storage().list_tables("d").unwrap(), vec!["t".to_string()]);
        assert_eq!(flat(rows(&mut s, "SELECT COUNT(*) FROM t")), "3");
    }

    #[test]
    fn views_are_not_altered() {
        let mut s = session();
        setup(&mut s);
        ok(&mut s, "CREATE VIEW v AS SELECT id FROM t");
        let e = err(&mut s, "ALTER TABLE v ADD c INT");
        assert_eq!((e.num(), e.msg.as_str()), (1347, "'d.v' is not BASE TABLE"));
    }
}
