//! DDL on [`Storage`]: databases, tables, indexes. Each operation commits its own atomic,
//! synced batch (DDL commits implicitly in MySQL). DROP/TRUNCATE delete index ranges with
//! `DeleteRange` plus a "drop ongoing" marker, so their cost does not depend on the table size;
//! the background dropper compacts the ranges and clears the markers.
//!
//! Callers (the SQL layer) must keep DML off a table while its definition changes (metadata
//! locks); storage serialises DDL against DDL only.

use std::collections::HashSet;
use std::sync::Arc;

use common::{codes, Error, Result, Value};

use super::{keys, DatabaseDef, IndexDef, IndexKind, IndexStatistics, TableDef};
use crate::codec::key;
use crate::codec::row::{self, decode_row};
use crate::engine::{Cf, KvEngine, WriteBatch};
use crate::Storage;

const FIRST_INDEX_ID: u64 = 256;
const BUILD_BATCH: usize = 1000;

fn ser<T: serde::Serialize>(v: &T) -> Result<Vec<u8>> {
    serde_json::to_vec(v)
        .map_err(|e| Error::internal(format!("cannot serialise a definition: {e}")))
}

fn de<T: serde::de::DeserializeOwned>(b: &[u8]) -> Result<T> {
    serde_json::from_slice(b).map_err(|e| Error::internal(format!("corrupt dictionary entry: {e}")))
}

/// One pair of [`Storage::rename_tables`]: `((db, name), (new_db, new_name))`.
pub type RenamePair = ((String, String), (String, String));

/// 1412 `Table definition has changed, please retry transaction`.
fn table_def_changed() -> Error {
    Error::new(
        codes::ER_TABLE_DEF_CHANGED,
        "Table definition has changed, please retry transaction",
    )
}

/// `Duplicate entry 'v1-v2' for key 't.k'` for `row` in index `index_no` of `t`.
pub fn duplicate_error(t: &TableDef, index_no: usize, row: &[Value]) -> Error {
    let Some(idx) = t.indexes.get(index_no) else {
        return Error::internal("bad index number");
    };
    let vals: Vec<String> = idx
        .columns
        .iter()
        .map(|c| {
            let v = row.get(c.col).map(|v| v.to_string()).unwrap_or_default();
            match c.prefix_len {
                Some(n) => v.chars().take(n as usize).collect(),
                None => v,
            }
        })
        .collect();
    Error::dup_entry(&vals.join("-"), &format!("{}.{}", t.name, idx.name))
}

impl<E: KvEngine> Storage<E> {
    fn read_counter(&self, name: &str, first: u64) -> Result<u64> {
        Ok(match self.engine().get(Cf::Dict, &keys::counter(name))? {
            Some(b) => <[u8; 8]>::try_from(b.as_slice())
                .map(u64::from_be_bytes)
                .map_err(|_| Error::internal("corrupt counter"))?,
            None => first,
        })
    }

    /// Allocates `n` index ids, adding the counter update to `b`.
    fn alloc_index_ids(&self, n: usize, b: &mut WriteBatch) -> Result<Vec<u32>> {
        let next = self.read_counter("next_index_id", FIRST_INDEX_ID)?;
        let end = next + n as u64;
        if end > u32::MAX as u64 {
            return Err(Error::new(
                codes::ER_CANT_CREATE_TABLE,
                "Can't create table: index ids exhausted",
            ));
        }
        b.put(
            Cf::Dict,
            keys::counter("next_index_id"),
            end.to_be_bytes().to_vec(),
        );
        Ok((next..end).map(|i| i as u32).collect())
    }

    // ---- databases ----

    /// The definition of database `name`.
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn get_database(&self, name: &str) -> Result<Option<DatabaseDef>> {
        self.engine()
            .get(Cf::Dict, &keys::db(name))?
            .map(|b| de(&b))
            .transpose()
    }

    /// All databases, by name.
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn list_databases(&self) -> Result<Vec<DatabaseDef>> {
        let hi = key::prefix_successor(keys::DB_PREFIX);
        let mut it = self
            .engine()
            .iter(Cf::Dict, keys::DB_PREFIX, hi.as_deref(), false);
        let mut out = Vec::new();
        while it.valid() {
            out.push(de(it.value())?);
            it.next();
        }
        it.status()?;
        Ok(out)
    }

    /// `CREATE DATABASE`.
    ///
    /// # Errors
    /// 1007 if it exists.
    pub fn create_database(&self, def: DatabaseDef) -> Result<()> {
        let _g = self.ddl_lock();
        if self.get_database(&def.name)?.is_some() {
            return Err(Error::new(
                codes::ER_DB_CREATE_EXISTS,
                format!("Can't create database '{}'; database exists", def.name),
            ));
        }
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, keys::db(&def.name), ser(&def)?);
        self.engine().write(&b, true)
    }

    /// `ALTER DATABASE` (replaces the definition).
    ///
    /// # Errors
    /// 1049 if it does not exist.
    pub fn alter_database(&self, def: DatabaseDef) -> Result<()> {
        let _g = self.ddl_lock();
        if self.get_database(&def.name)?.is_none() {
            return Err(Error::bad_db(&def.name));
        }
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, keys::db(&def.name), ser(&def)?);
        self.engine().write(&b, true)
    }

    /// `DROP DATABASE`: drops every table in it; returns how many.
    ///
    /// # Errors
    /// 1008 if it does not exist.
    pub fn drop_database(&self, name: &str) -> Result<usize> {
        let _g = self.ddl_lock();
        if self.get_database(name)?.is_none() {
            return Err(Error::new(
                codes::ER_DB_DROP_EXISTS,
                format!("Can't drop database '{name}'; database doesn't exist"),
            ));
        }
        let tables = self.list_tables(name)?;
        let mut b = WriteBatch::new();
        let mut dropped_ids = Vec::new();
        let mut table_ids = Vec::new();
        for t in &tables {
            if let Some(def) = self.load_table(name, t)? {
                self.drop_ops(&def, &mut b, &mut dropped_ids);
                table_ids.push(def.id);
            }
        }
        for k in self.routine_keys(name)? {
            b.delete(Cf::Dict, k);
        }
        b.delete(Cf::Dict, keys::db(name));
        self.engine().write(&b, true)?;
        self.cache().invalidate_db(name);
        for id in table_ids {
            self.forget_runtime(id);
        }
        for id in dropped_ids {
            self.schedule_drop(id);
        }
        Ok(tables.len())
    }

    // ---- tables ----

    pub(crate) fn load_table(&self, db: &str, name: &str) -> Result<Option<TableDef>> {
        let def: Option<TableDef> = self
            .engine()
            .get(Cf::Dict, &keys::table(db, name))?
            .map(|b| de(&b))
            .transpose()?;
        if let Some(d) = &def {
            self.declare_classes(d)?;
        }
        Ok(def)
    }

    /// Tells the engine the storage class of each index of `def` (every leaf of a partitioned
    /// table), before its entries are read or written; see
    /// [`KvEngine::set_index_class`](crate::engine::KvEngine::set_index_class).
    fn declare_classes(&self, def: &TableDef) -> Result<()> {
        for no in 0..def.indexes.len() {
            let class = def.index_class(no);
            for id in def.index_ids_all_leaves(no) {
                if id != 0 {
                    self.engine().set_index_class(id, class)?;
                }
            }
        }
        Ok(())
    }

    /// The definition of `db.name`, through the bounded definition cache.
    ///
    /// # Errors
    /// An engine I/O error or a corrupt dictionary entry.
    pub fn get_table(&self, db: &str, name: &str) -> Result<Option<Arc<TableDef>>> {
        let (hit, generation) = self.cache().get(db, name);
        if hit.is_some() {
            return Ok(hit);
        }
        let Some(def) = self.load_table(db, name)? else {
            return Ok(None);
        };
        let def = Arc::new(def);
        self.cache().insert(def.clone(), generation);
        Ok(Some(def))
    }

    /// Names of the tables of `db` (scanned from the dictionary), sorted bytewise.
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn list_tables(&self, db: &str) -> Result<Vec<String>> {
        let lo = keys::table_prefix(db);
        let hi = key::prefix_successor(&lo);
        let mut it = self.engine().iter(Cf::Dict, &lo, hi.as_deref(), false);
        let mut out = Vec::new();
        while it.valid() {
            out.push(String::from_utf8_lossy(&it.key()[lo.len()..]).into_owned());
            it.next();
        }
        it.status()?;
        Ok(out)
    }

    /// Writes a changed definition (same db/name) and refreshes the cache.
    pub(crate) fn put_table_def(&self, def: &TableDef) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, keys::table(&def.db, &def.name), ser(def)?);
        self.engine().write(&b, true)?;
        self.cache().invalidate(&def.db, &def.name);
        Ok(())
    }

    fn check_def(def: &TableDef) -> Result<()> {
        for idx in &def.indexes {
            if idx.columns.iter().any(|c| c.col >= def.columns.len()) {
                return Err(Error::internal(format!(
                    "index {} refers to a missing column",
                    idx.name
                )));
            }
        }
        Ok(())
    }

    /// `CREATE TABLE`: assigns the table id and index ids, normalises the primary key (a table
    /// without one gets a hidden row-id key at `indexes[0]`, see [`TableDef::normalized`]) and
    /// persists the definition.
    ///
    /// # Errors
    /// 1049 unknown database, 1050 table exists.
    pub fn create_table(&self, def: TableDef) -> Result<Arc<TableDef>> {
        let _g = self.ddl_lock();
        if self.get_database(&def.db)?.is_none() {
            return Err(Error::bad_db(&def.db));
        }
        if self.load_table(&def.db, &def.name)?.is_some() {
            return Err(Error::table_exists(&def.name));
        }
        let mut def = def.normalized();
        Self::check_def(&def)?;
        let mut b = WriteBatch::new();
        let tid = self.read_counter("next_table_id", 1)?;
        b.put(
            Cf::Dict,
            keys::counter("next_table_id"),
            (tid + 1).to_be_bytes().to_vec(),
        );
        def.id = tid;
        self.assign_all_ids(&mut def, &mut b)?;
        def.version = def.version.max(1);
        def.options.auto_increment = def.options.auto_increment.max(1);
        def.stamp_create_time();
        b.put(Cf::Dict, keys::table(&def.db, &def.name), ser(&def)?);
        self.engine().write(&b, true)?;
        self.cache().invalidate(&def.db, &def.name);
        self.forget_runtime(tid);
        Ok(Arc::new(def))
    }

    /// Gives every index of `def` fresh ids (of every leaf, when partitioned).
    fn assign_all_ids(&self, def: &mut TableDef, b: &mut WriteBatch) -> Result<Vec<u32>> {
        let n = def.indexes.len();
        let mut all = Vec::new();
        if let Some(p) = def.partitioning.as_mut() {
            let p = Arc::make_mut(p);
            let leaves = p.leaf_count();
            let ids = self.alloc_index_ids(n * leaves, b)?;
            for (slot, chunk) in p.leaf_ids_mut().into_iter().zip(ids.chunks(n.max(1))) {
                *slot = chunk.to_vec();
            }
            all = ids;
            def.sync_top_ids();
        } else {
            let ids = self.alloc_index_ids(n, b)?;
            for (idx, id) in def.indexes.iter_mut().zip(&ids) {
                idx.id = *id;
            }
            all.extend(ids);
        }
        self.declare_classes(def)?;
        Ok(all)
    }

    fn drop_ops(&self, def: &TableDef, b: &mut WriteBatch, ids: &mut Vec<u32>) {
        b.delete(Cf::Dict, keys::table(&def.db, &def.name));
        b.delete(Cf::Dict, keys::index_stats(def.id));
        for id in def.all_index_ids() {
            Self::drop_index_range(id, b);
            ids.push(id);
        }
    }

    fn drop_index_range(id: u32, b: &mut WriteBatch) {
        let (lo, hi) = key::index_range(id);
        b.delete_range(Cf::Data, lo, hi);
        b.put(Cf::Dict, keys::drop_marker(id), Vec::new());
    }

    /// Stores the index statistics of `t` (ANALYZE TABLE), replacing earlier ones.
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn put_index_statistics(&self, t: &TableDef, st: &IndexStatistics) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, keys::index_stats(t.id), ser(st)?);
        self.engine().write(&b, true)
    }

    /// The stored index statistics of `t`, if any (of any definition version).
    ///
    /// # Errors
    /// An engine I/O error or a corrupt entry.
    pub fn index_statistics(&self, t: &TableDef) -> Result<Option<IndexStatistics>> {
        self.engine()
            .get(Cf::Dict, &keys::index_stats(t.id))?
            .map(|b| de(&b))
            .transpose()
    }

    /// `DROP TABLE`: one atomic batch (dictionary delete, range deletes, drop markers); space is
    /// reclaimed in the background.
    ///
    /// # Errors
    /// 1051 `Unknown table 'db.t'`.
    pub fn drop_table(&self, db: &str, name: &str) -> Result<()> {
        let _g = self.ddl_lock();
        let Some(def) = self.load_table(db, name)? else {
            return Err(Error::new(
                codes::ER_BAD_TABLE_ERROR,
                format!("Unknown table '{db}.{name}'"),
            ));
        };
        let mut b = WriteBatch::new();
        let mut ids = Vec::new();
        self.drop_ops(&def, &mut b, &mut ids);
        self.engine().write(&b, true)?;
        self.cache().invalidate(db, name);
        self.forget_runtime(def.id);
        for id in ids {
            self.schedule_drop(id);
        }
        Ok(())
    }

    /// `TRUNCATE TABLE`: new index ids for every index (atomic swap in the dictionary), range
    /// deletes of the old ones, auto-increment reset.
    ///
    /// # Errors
    /// 1146 if the table does not exist.
    pub fn truncate_table(&self, db: &str, name: &str) -> Result<Arc<TableDef>> {
        let _g = self.ddl_lock();
        let Some(mut def) = self.load_table(db, name)? else {
            return Err(Error::no_such_table(db, name));
        };
        let mut b = WriteBatch::new();
        let old = def.all_index_ids();
        for id in &old {
            Self::drop_index_range(*id, &mut b);
        }
        self.assign_all_ids(&mut def, &mut b)?;
        def.options.auto_increment = 1;
        def.stamp_create_time();
        b.put(Cf::Dict, keys::table(db, name), ser(&def)?);
        self.engine().write(&b, true)?;
        self.cache().invalidate(db, name);
        self.forget_runtime(def.id);
        for id in old {
            self.schedule_drop(id);
        }
        Ok(Arc::new(def))
    }

    /// `RENAME TABLE db.name TO new_db.new_name` (also across databases).
    ///
    /// # Errors
    /// 1146 missing source, 1049 unknown target database, 1050 target exists.
    pub fn rename_table(&self, db: &str, name: &str, new_db: &str, new_name: &str) -> Result<()> {
        let _g = self.ddl_lock();
        let Some(mut def) = self.load_table(db, name)? else {
            return Err(Error::no_such_table(db, name));
        };
        if self.get_database(new_db)?.is_none() {
            return Err(Error::bad_db(new_db));
        }
        if self.load_table(new_db, new_name)?.is_some() {
            return Err(Error::table_exists(new_name));
        }
        def.db = new_db.to_string();
        def.rename_generated_checks(name, new_name);
        def.name = new_name.to_string();
        let mut b = WriteBatch::new();
        b.delete(Cf::Dict, keys::table(db, name));
        b.put(Cf::Dict, keys::table(new_db, new_name), ser(&def)?);
        self.engine().write(&b, true)?;
        self.cache().invalidate(db, name);
        self.cache().invalidate(new_db, new_name);
        Ok(())
    }

    /// Replaces the definition of an existing table (same id/db/name) — e.g. instant ADD COLUMN
    /// at the end, column defaults, comments, options. Index ids must be unchanged (use
    /// [`Storage::add_index`]/[`Storage::drop_index`] for indexes); the version is incremented.
    ///
    /// # Errors
    /// 1146 if the table does not exist; internal error if ids differ.
    pub fn alter_table(&self, def: TableDef) -> Result<Arc<TableDef>> {
        let _g = self.ddl_lock();
        let Some(cur) = self.load_table(&def.db, &def.name)? else {
            return Err(Error::no_such_table(&def.db, &def.name));
        };
        let same_ids = cur.id == def.id
            && cur.indexes.len() == def.indexes.len()
            && cur
                .indexes
                .iter()
                .zip(&def.indexes)
                .all(|(a, b)| a.id == b.id);
        if !same_ids {
            return Err(Error::internal(
                "alter_table must keep the table and index ids",
            ));
        }
        Self::check_def(&def)?;
        let mut def = def;
        def.version = cur.version + 1;
        def.stamp_create_time();
        self.put_table_def(&def)?;
        Ok(Arc::new(def))
    }

    /// `ALTER TABLE` without a table rebuild, in one atomic dictionary batch: the table at
    /// `db.name` gets definition `def`, which may rename it (`def.db`/`def.name`), rename columns
    /// and indexes, change defaults, comments and options, append columns (rows stored without
    /// them decode with [`ColumnDef::instant_default`](super::ColumnDef::instant_default)),
    /// widen types in ways old rows still decode under (see [`row::reads_as`]), add indexes
    /// (`id` 0: built from the existing rows before the definition is published) and drop
    /// indexes (those of the current definition whose id `def` no longer lists: range-deleted in
    /// the same batch). The version is incremented.
    ///
    /// `base_version` is the version the caller derived `def` from: a concurrent definition
    /// change makes this fail with 1412 instead of losing it. A crash before the final batch
    /// leaves the old definition in force; the partial entries of indexes being built carry
    /// "drop ongoing" markers and are removed at the next start.
    ///
    /// # Errors
    /// 1146 missing table, 1412 definition changed, 1049/1050 for a rename target, 1062 when a new
    /// unique index finds duplicates; an internal error when `def` is not compatible with the
    /// stored rows (a changed primary key, a moved or re-typed column, a changed index).
    pub fn alter_table_online(
        &self,
        db: &str,
        name: &str,
        base_version: u32,
        def: TableDef,
    ) -> Result<Arc<TableDef>> {
        let _g = self.ddl_lock();
        let Some(cur) = self.load_table(db, name)? else {
            return Err(Error::no_such_table(db, name));
        };
        if cur.id != def.id || cur.version != base_version {
            return Err(table_def_changed());
        }
        let renamed = cur.db != def.db || cur.name != def.name;
        if renamed {
            if self.get_database(&def.db)?.is_none() {
                return Err(Error::bad_db(&def.db));
            }
            if self.load_table(&def.db, &def.name)?.is_some() {
                return Err(Error::table_exists(&def.name));
            }
        }
        Self::check_def(&def)?;
        Self::check_row_compatible(&cur, &def)?;
        if def.partitioning != cur.partitioning
            || (cur.partitioning.is_some() && def.indexes.len() != cur.indexes.len())
        {
            return Err(Error::internal(
                "in-place ALTER cannot change partitions or the indexes of a partitioned table",
            ));
        }
        let mut def = def;
        // New indexes: ids allocated and their markers persisted before any entry is written.
        let new_nos: Vec<usize> = (0..def.indexes.len())
            .filter(|&i| def.indexes[i].id == 0)
            .collect();
        let mut new_ids = Vec::new();
        if !new_nos.is_empty() {
            let mut b = WriteBatch::new();
            new_ids = self.alloc_index_ids(new_nos.len(), &mut b)?;
            for id in &new_ids {
                b.put(Cf::Dict, keys::drop_marker(*id), Vec::new());
            }
            self.engine().write(&b, true)?;
            for (&no, &id) in new_nos.iter().zip(&new_ids) {
                def.indexes[no].id = id;
            }
            self.declare_classes(&def)?;
        }
        for &no in &new_nos {
            if let Err(e) = self.build_index(&def, no) {
                let mut b = WriteBatch::new();
                for id in &new_ids {
                    let (lo, hi) = key::index_range(*id);
                    b.delete_range(Cf::Data, lo, hi);
                }
                self.engine().write(&b, true)?;
                for id in new_ids {
                    self.schedule_drop(id);
                }
                return Err(e);
            }
        }
        let kept: HashSet<u32> = def.indexes.iter().map(|i| i.id).collect();
        let dropped: Vec<u32> = cur
            .indexes
            .iter()
            .map(|i| i.id)
            .filter(|id| !kept.contains(id))
            .collect();
        def.version = cur.version + 1;
        def.stamp_create_time();
        let mut b = WriteBatch::new();
        if renamed {
            b.delete(Cf::Dict, keys::table(db, name));
        }
        b.put(Cf::Dict, keys::table(&def.db, &def.name), ser(&def)?);
        for id in &new_ids {
            b.delete(Cf::Dict, keys::drop_marker(*id));
        }
        for id in &dropped {
            Self::drop_index_range(*id, &mut b);
        }
        self.engine().write(&b, true)?;
        self.cache().invalidate(db, name);
        self.cache().invalidate(&def.db, &def.name);
        for id in dropped {
            self.schedule_drop(id);
        }
        Ok(Arc::new(def))
    }

    /// Checks that rows and index entries stored under `cur` stay valid under `new`.
    fn check_row_compatible(cur: &TableDef, new: &TableDef) -> Result<()> {
        let bad = |what: &str| {
            Err(Error::internal(format!(
                "in-place ALTER of {}.{}: {what}",
                cur.db, cur.name
            )))
        };
        if new.columns.len() < cur.columns.len() || new.hidden_pk != cur.hidden_pk {
            return bad("columns removed or primary key changed");
        }
        for (a, b) in cur.columns.iter().zip(&new.columns) {
            if !row::reads_as(&a.ty, &b.ty) {
                return bad(&format!("column {} changes its stored type", a.name));
            }
        }
        match (cur.indexes.first(), new.indexes.first()) {
            (Some(a), Some(b)) if a.id == b.id && a.columns == b.columns => {}
            _ => return bad("the primary key changes"),
        }
        for ix in &new.indexes {
            if ix.id == 0 {
                continue;
            }
            match cur.indexes.iter().find(|c| c.id == ix.id) {
                Some(c) if c.columns == ix.columns && c.kind == ix.kind => {
                    for ic in &c.columns {
                        if cur.columns[ic.col].ty != new.columns[ic.col].ty {
                            return bad(&format!(
                                "indexed column {} changes type",
                                new.columns[ic.col].name
                            ));
                        }
                    }
                }
                _ => return bad(&format!("index {} changes", ix.name)),
            }
        }
        Ok(())
    }

    /// The last step of a table-rebuilding `ALTER TABLE`, in one atomic batch: drops `db.name`
    /// (dictionary entry removed, its index ranges range-deleted with "drop ongoing" markers) and
    /// moves the rebuilt table `db.tmp` to `new_db.new_name` (usually `db.name` again). Its
    /// version becomes larger than the dropped table's.
    ///
    /// `expect_id` is the id of the table the rebuild copied: if `db.name` is another table now
    /// (a concurrent DDL replaced it) this fails with 1412 and changes nothing.
    ///
    /// # Errors
    /// 1146 missing table, 1412 table replaced, 1049/1050 for a rename target, internal error if
    /// `db.tmp` does not exist.
    pub fn replace_table(
        &self,
        db: &str,
        name: &str,
        expect_id: u64,
        tmp: &str,
        new_db: &str,
        new_name: &str,
    ) -> Result<Arc<TableDef>> {
        let _g = self.ddl_lock();
        let Some(cur) = self.load_table(db, name)? else {
            return Err(Error::no_such_table(db, name));
        };
        if cur.id != expect_id {
            return Err(table_def_changed());
        }
        let Some(mut def) = self.load_table(db, tmp)? else {
            return Err(Error::internal(format!(
                "rebuilt table {db}.{tmp} is missing"
            )));
        };
        if (new_db, new_name) != (db, name) {
            if self.get_database(new_db)?.is_none() {
                return Err(Error::bad_db(new_db));
            }
            if self.load_table(new_db, new_name)?.is_some() {
                return Err(Error::table_exists(new_name));
            }
        }
        let mut b = WriteBatch::new();
        let mut dropped = Vec::new();
        self.drop_ops(&cur, &mut b, &mut dropped);
        b.delete(Cf::Dict, keys::table(db, tmp));
        def.db = new_db.to_string();
        def.name = new_name.to_string();
        def.stamp_create_time();
        def.version = def.version.max(cur.version + 1);
        b.put(Cf::Dict, keys::table(new_db, new_name), ser(&def)?);
        self.engine().write(&b, true)?;
        self.cache().invalidate(db, name);
        self.cache().invalidate(db, tmp);
        self.cache().invalidate(new_db, new_name);
        self.forget_runtime(cur.id);
        for id in dropped {
            self.schedule_drop(id);
        }
        Ok(Arc::new(def))
    }

    /// `RENAME TABLE a TO b, c TO d, …`: every pair in order (later pairs see the earlier ones
    /// done, so `a TO tmp, b TO a, tmp TO b` swaps), all in one atomic batch: either every rename
    /// happens or none.
    ///
    /// # Errors
    /// 1146 missing source, 1049 unknown target database, 1050 target exists (checked against
    /// the state after the earlier pairs).
    pub fn rename_tables(&self, pairs: &[RenamePair]) -> Result<()> {
        let _g = self.ddl_lock();
        // (db, name) → the definition there after the renames so far (None: gone)
        let mut overlay: Vec<((String, String), Option<TableDef>)> = Vec::new();
        for ((db, from), (new_db, to)) in pairs {
            let src = (db.clone(), from.clone());
            let def = match overlay.iter().find(|(k, _)| *k == src) {
                Some((_, d)) => d.clone(),
                None => self.load_table(db, from)?,
            };
            let Some(mut def) = def else {
                return Err(Error::no_such_table(db, from));
            };
            if self.get_database(new_db)?.is_none() {
                return Err(Error::bad_db(new_db));
            }
            let dst = (new_db.clone(), to.clone());
            let taken = match overlay.iter().find(|(k, _)| *k == dst) {
                Some((_, d)) => d.is_some(),
                None => self.load_table(new_db, to)?.is_some(),
            };
            if taken {
                return Err(Error::table_exists(to));
            }
            def.db = new_db.clone();
            def.rename_generated_checks(from, to);
            def.name = to.clone();
            super::foreign::rename_generated_fks(&mut def, from, to);
            overlay.retain(|(k, _)| *k != src && *k != dst);
            overlay.push((src.clone(), None));
            overlay.push((dst.clone(), Some(def)));
            self.follow_rename(&src, &dst, &mut overlay)?;
        }
        let mut b = WriteBatch::new();
        for ((db, name), def) in &overlay {
            match def {
                Some(d) => b.put(Cf::Dict, keys::table(db, name), ser(d)?),
                None => b.delete(Cf::Dict, keys::table(db, name)),
            }
        }
        self.engine().write(&b, true)?;
        for ((db, name), _) in &overlay {
            self.cache().invalidate(db, name);
        }
        Ok(())
    }

    /// `ALTER TABLE … ADD [UNIQUE] INDEX`: builds the index from the existing rows (in batches),
    /// then publishes it in the dictionary. A duplicate for a unique index fails with 1062 naming
    /// the key, and the partial index is removed.
    ///
    /// # Errors
    /// 1146, 1061 duplicate key name, 1068 second primary key, 1062 duplicate entry; adding a
    /// PRIMARY KEY to a table without one is not supported here (rebuild the table).
    pub fn add_index(&self, db: &str, name: &str, index: IndexDef) -> Result<Arc<TableDef>> {
        let _g = self.ddl_lock();
        let Some(mut def) = self.load_table(db, name)? else {
            return Err(Error::no_such_table(db, name));
        };
        if def
            .indexes
            .iter()
            .any(|i| i.name.eq_ignore_ascii_case(&index.name))
        {
            return Err(Error::new(
                codes::ER_DUP_KEYNAME,
                format!("Duplicate key name '{}'", index.name),
            ));
        }
        if def.partitioning.is_some() {
            return Err(Error::not_supported(
                "adding an index to a partitioned table in place (rebuild the table)",
            ));
        }
        if index.kind == IndexKind::Primary {
            if def.hidden_pk {
                return Err(Error::not_supported(
                    "adding a PRIMARY KEY in place (rebuild the table)",
                ));
            }
            return Err(Error::new(
                codes::ER_MULTIPLE_PRI_KEY,
                "Multiple primary key defined",
            ));
        }
        let mut b = WriteBatch::new();
        let id = self.alloc_index_ids(1, &mut b)?[0];
        // Persist the id counter first so a crash mid-build never reuses the id.
        b.put(Cf::Dict, keys::drop_marker(id), Vec::new());
        self.engine().write(&b, true)?;
        let mut index = index;
        index.id = id;
        def.indexes.push(index);
        let no = def.indexes.len() - 1;
        self.declare_classes(&def)?;
        Self::check_def(&def)?;
        if let Err(e) = self.build_index(&def, no) {
            let mut b = WriteBatch::new();
            let (lo, hi) = key::index_range(id);
            b.delete_range(Cf::Data, lo, hi);
            self.engine().write(&b, true)?;
            self.schedule_drop(id);
            return Err(e);
        }
        def.version += 1;
        def.stamp_create_time();
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, keys::table(db, name), ser(&def)?);
        b.delete(Cf::Dict, keys::drop_marker(id));
        self.engine().write(&b, true)?;
        self.cache().invalidate(db, name);
        Ok(Arc::new(def))
    }

    fn build_index(&self, def: &TableDef, no: usize) -> Result<()> {
        let unique = def.indexes[no].kind == IndexKind::Unique;
        let pk = &def.indexes[0];
        let (lo, hi) = key::index_range(pk.id);
        let mut b = WriteBatch::new();
        let mut seen: HashSet<Vec<u8>> = HashSet::new();
        let mut cursor = lo;
        loop {
            let mut rows = Vec::with_capacity(BUILD_BATCH);
            {
                let mut it = self.engine().iter(Cf::Data, &cursor, Some(&hi), false);
                while it.valid() && rows.len() < BUILD_BATCH {
                    rows.push((it.key().to_vec(), it.value().to_vec()));
                    it.next();
                }
                it.status()?;
            }
            let done = rows.len() < BUILD_BATCH;
            if let Some((k, _)) = rows.last() {
                cursor = key::key_successor(k);
            }
            for (h, v) in rows {
                let row = decode_row(def, &v)?;
                if unique {
                    if let Some(uk) = key::unique_key(def, no, &row)? {
                        let taken = seen.contains(&uk) || {
                            let up = key::prefix_successor(&uk);
                            let it = self.engine().iter(Cf::Data, &uk, up.as_deref(), false);
                            let v = it.valid();
                            it.status()?;
                            v
                        };
                        if taken {
                            return Err(duplicate_error(def, no, &row));
                        }
                        seen.insert(uk);
                    }
                }
                b.put(
                    Cf::Data,
                    key::encode_index_key(def, no, &row, &h)?,
                    Vec::new(),
                );
            }
            if !b.is_empty() {
                self.engine().write(&b, false)?;
                b = WriteBatch::new();
                seen.clear();
            }
            if done {
                return Ok(());
            }
        }
    }

    /// `ALTER TABLE … DROP INDEX name`: removes it from the definition and range-deletes its
    /// entries.
    ///
    /// # Errors
    /// 1146, 1091 no such index; dropping the PRIMARY KEY is not supported here (rebuild).
    pub fn drop_index(&self, db: &str, name: &str, index_name: &str) -> Result<Arc<TableDef>> {
        let _g = self.ddl_lock();
        let Some(mut def) = self.load_table(db, name)? else {
            return Err(Error::no_such_table(db, name));
        };
        let Some(no) = def.index_no(index_name) else {
            return Err(Error::new(
                codes::ER_CANT_DROP_FIELD_OR_KEY,
                format!("Can't DROP '{index_name}'; check that column/key exists"),
            ));
        };
        if no == 0 || def.partitioning.is_some() {
            return Err(Error::not_supported(
                "dropping this index in place (rebuild the table)",
            ));
        }
        let idx = def.indexes.remove(no);
        def.version += 1;
        def.stamp_create_time();
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, keys::table(db, name), ser(&def)?);
        Self::drop_index_range(idx.id, &mut b);
        self.engine().write(&b, true)?;
        self.cache().invalidate(db, name);
        self.schedule_drop(idx.id);
        Ok(Arc::new(def))
    }

    // ---- partition DDL ----

    /// First phase of a partition change that writes new leaves (ADD/COALESCE PARTITION of
    /// HASH/KEY, REORGANIZE, PARTITION BY, REMOVE PARTITIONING): gives every leaf of `def`
    /// whose id list is empty (or, for an unpartitioned `def`, every index with id 0) fresh index
    /// ids, and persists "drop ongoing" markers for them in the same synced batch. Until
    /// [`Storage::publish_table_def`] runs, those ids hold nothing the dictionary refers to: a
    /// crash leaves only marked ranges, which the next start deletes (the markers are the DDL
    /// log of the statement). Returns the new ids.
    ///
    /// # Errors
    /// I/O errors; ids exhausted.
    pub fn prepare_new_ids(&self, def: &mut TableDef) -> Result<Vec<u32>> {
        let _g = self.ddl_lock();
        let n = def.indexes.len();
        let mut b = WriteBatch::new();
        let new_ids;
        if let Some(p) = def.partitioning.as_mut() {
            let p = Arc::make_mut(p);
            let slots: Vec<&mut Vec<u32>> = p
                .leaf_ids_mut()
                .into_iter()
                .filter(|ids| ids.is_empty())
                .collect();
            let ids = self.alloc_index_ids(n * slots.len(), &mut b)?;
            for (slot, chunk) in slots.into_iter().zip(ids.chunks(n.max(1))) {
                *slot = chunk.to_vec();
            }
            new_ids = ids;
            def.sync_top_ids();
        } else {
            let nos: Vec<usize> = (0..n).filter(|&i| def.indexes[i].id == 0).collect();
            let ids = self.alloc_index_ids(nos.len(), &mut b)?;
            for (&no, &id) in nos.iter().zip(&ids) {
                def.indexes[no].id = id;
            }
            new_ids = ids;
        }
        self.declare_classes(def)?;
        for id in &new_ids {
            b.put(Cf::Dict, keys::drop_marker(*id), Vec::new());
        }
        self.engine().write(&b, true)?;
        Ok(new_ids)
    }

    /// Abandons ids from [`Storage::prepare_new_ids`] after a failed copy: their ranges are
    /// deleted and reclaimed in the background.
    ///
    /// # Errors
    /// I/O errors.
    pub fn abandon_new_ids(&self, ids: &[u32]) -> Result<()> {
        let mut b = WriteBatch::new();
        for id in ids {
            let (lo, hi) = key::index_range(*id);
            b.delete_range(Cf::Data, lo, hi);
        }
        self.engine().write(&b, true)?;
        for id in ids {
            self.schedule_drop(*id);
        }
        Ok(())
    }

    /// Second phase: publishes `def` for the table `def.db.def.name` in one synced, atomic
    /// batch: the new definition (version incremented), the markers of `new_ids` removed (their
    /// data is now referenced), and every index id of the current definition that `def` no
    /// longer uses range-deleted (reclaimed in the background). Also used alone for partition
    /// changes that move no rows (DROP / ADD of RANGE and LIST partitions, TRUNCATE PARTITION
    /// with ids from [`Storage::prepare_new_ids`]).
    ///
    /// # Errors
    /// 1146 missing table; 1412 when the definition changed since `base_version`.
    pub fn publish_table_def(
        &self,
        base_version: u32,
        def: TableDef,
        new_ids: &[u32],
    ) -> Result<Arc<TableDef>> {
        let _g = self.ddl_lock();
        let Some(cur) = self.load_table(&def.db, &def.name)? else {
            return Err(Error::no_such_table(&def.db, &def.name));
        };
        if cur.id != def.id || cur.version != base_version {
            return Err(table_def_changed());
        }
        let mut def = def;
        def.leaf = None;
        def.sync_top_ids();
        Self::check_def(&def)?;
        let kept: HashSet<u32> = def.all_index_ids().into_iter().collect();
        let dropped: Vec<u32> = cur
            .all_index_ids()
            .into_iter()
            .filter(|id| !kept.contains(id))
            .collect();
        def.version = cur.version + 1;
        def.stamp_create_time();
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, keys::table(&def.db, &def.name), ser(&def)?);
        for id in new_ids {
            b.delete(Cf::Dict, keys::drop_marker(*id));
        }
        for id in &dropped {
            Self::drop_index_range(*id, &mut b);
        }
        self.engine().write(&b, true)?;
        self.cache().invalidate(&def.db, &def.name);
        for id in dropped {
            self.schedule_drop(id);
        }
        Ok(Arc::new(def))
    }

    /// `ALTER TABLE t EXCHANGE PARTITION p WITH TABLE u`: leaf `leaf` of `t` and the whole of
    /// `u` swap their index ids (and so their rows) in one synced batch; both definitions get a
    /// new version. The caller checks that the tables have the same structure and that `u`'s
    /// rows belong in the partition.
    ///
    /// # Errors
    /// 1146; 1412 when either definition changed since the given versions.
    pub fn exchange_leaf(
        &self,
        t: (&str, &str, u32),
        leaf: usize,
        u: (&str, &str, u32),
    ) -> Result<()> {
        let _g = self.ddl_lock();
        let Some(mut pt) = self.load_table(t.0, t.1)? else {
            return Err(Error::no_such_table(t.0, t.1));
        };
        let Some(mut ut) = self.load_table(u.0, u.1)? else {
            return Err(Error::no_such_table(u.0, u.1));
        };
        if pt.version != t.2 || ut.version != u.2 {
            return Err(table_def_changed());
        }
        let Some(p) = pt.partitioning.as_mut() else {
            return Err(Error::internal(
                "EXCHANGE PARTITION on an unpartitioned table",
            ));
        };
        let p = Arc::make_mut(p);
        let mut slots = p.leaf_ids_mut();
        let Some(slot) = slots.get_mut(leaf) else {
            return Err(Error::internal("EXCHANGE PARTITION: bad leaf"));
        };
        if slot.len() != ut.indexes.len() {
            return Err(Error::internal("EXCHANGE PARTITION: index lists differ"));
        }
        let leaf_ids = std::mem::take(*slot);
        **slot = ut.indexes.iter().map(|i| i.id).collect();
        for (idx, id) in ut.indexes.iter_mut().zip(leaf_ids) {
            idx.id = id;
        }
        pt.sync_top_ids();
        pt.version += 1;
        ut.version += 1;
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, keys::table(&pt.db, &pt.name), ser(&pt)?);
        b.put(Cf::Dict, keys::table(&ut.db, &ut.name), ser(&ut)?);
        self.engine().write(&b, true)?;
        self.cache().invalidate(&pt.db, &pt.name);
        self.cache().invalidate(&ut.db, &ut.name);
        self.forget_runtime(pt.id);
        self.forget_runtime(ut.id);
        Ok(())
    }
}
