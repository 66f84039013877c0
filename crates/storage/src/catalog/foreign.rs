//! The reverse side of FOREIGN KEY constraints: which tables reference a table. The constraints
//! are kept on the child ([`TableDef::foreign_keys`]); [`ReferencedBy`] maps each referenced
//! `(db, table)` to its children, rebuilt from the dictionary after any DDL (the definition
//! cache's epoch moves) and cached in the [`DefCache`](super::cache::DefCache).

use std::collections::HashMap;
use std::sync::Arc;

use common::Result;
use parking_lot::Mutex;

use super::{ForeignKeyDef, TableDef};
use crate::engine::KvEngine;
use crate::Storage;

/// Names of internal tables (ALTER TABLE copies, session TEMPORARY tables) that never take part
/// in foreign keys: they start with this.
const INTERNAL_PREFIX: &str = "#sql";

/// Referenced `(db, table)` → the `(db, table)` of every table with a FOREIGN KEY to it
/// (each child once, sorted).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReferencedBy {
    map: HashMap<(String, String), Vec<(String, String)>>,
}

impl ReferencedBy {
    /// The map over the definitions `defs`; internal and TEMPORARY tables are left out.
    pub fn build<'a>(defs: impl IntoIterator<Item = &'a TableDef>) -> Self {
        let mut map: HashMap<(String, String), Vec<(String, String)>> = HashMap::new();
        for t in defs {
            if t.temporary || t.name.starts_with(INTERNAL_PREFIX) {
                continue;
            }
            for fk in &t.foreign_keys {
                let kids = map
                    .entry((fk.ref_db.clone(), fk.ref_table.clone()))
                    .or_default();
                let me = (t.db.clone(), t.name.clone());
                if !kids.contains(&me) {
                    kids.push(me);
                }
            }
        }
        for kids in map.values_mut() {
            kids.sort();
        }
        ReferencedBy { map }
    }

    /// The tables referencing `db.table` (none: an empty slice).
    pub fn children(&self, db: &str, table: &str) -> &[(String, String)] {
        self.map
            .get(&(db.to_string(), table.to_string()))
            .map_or(&[], |v| v.as_slice())
    }

    /// True when no table has a foreign key.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The cached [`ReferencedBy`] with the definition-cache epoch it was built at.
#[derive(Default)]
pub struct ReferencedByCache {
    slot: Mutex<Option<(u64, Arc<ReferencedBy>)>>,
}

impl ReferencedByCache {
    fn get(&self, epoch: u64) -> Option<Arc<ReferencedBy>> {
        match &*self.slot.lock() {
            Some((e, m)) if *e == epoch => Some(m.clone()),
            _ => None,
        }
    }

    fn put(&self, epoch: u64, m: Arc<ReferencedBy>) {
        *self.slot.lock() = Some((epoch, m));
    }
}

/// True when `fk` references `db.table`.
pub fn references(fk: &ForeignKeyDef, db: &str, table: &str) -> bool {
    fk.ref_db == db && fk.ref_table == table
}

impl<E: KvEngine> Storage<E> {
    /// Which tables reference which (see [`ReferencedBy`]): cached until the next DDL. The
    /// epoch is read before the dictionary, so a DDL racing with the build makes the next call
    /// build again.
    ///
    /// # Errors
    /// An engine I/O error or a corrupt dictionary entry.
    pub fn referenced_by(&self) -> Result<Arc<ReferencedBy>> {
        let epoch = self.cache().epoch();
        if let Some(m) = self.cache().referenced_by.get(epoch) {
            return Ok(m);
        }
        let mut defs = Vec::new();
        for db in self.list_databases()? {
            for name in self.list_tables(&db.name)? {
                if name.starts_with(INTERNAL_PREFIX) {
                    continue;
                }
                if let Some(t) = self.get_table(&db.name, &name)? {
                    if !t.foreign_keys.is_empty() {
                        defs.push(t);
                    }
                }
            }
        }
        let m = Arc::new(ReferencedBy::build(defs.iter().map(|t| &**t)));
        self.cache().referenced_by.put(epoch, m.clone());
        Ok(m)
    }

    /// The definitions of the tables with a FOREIGN KEY referencing `db.table` (the table
    /// itself included when it references itself).
    ///
    /// # Errors
    /// As [`Storage::referenced_by`].
    pub fn referencing_tables(&self, db: &str, table: &str) -> Result<Vec<Arc<TableDef>>> {
        let m = self.referenced_by()?;
        let mut out = Vec::new();
        for (cdb, ct) in m.children(db, table) {
            if let Some(t) = self.get_table(cdb, ct)? {
                if t.foreign_keys.iter().any(|f| references(f, db, table)) {
                    out.push(t);
                }
            }
        }
        Ok(out)
    }
}

/// A table renamed `from` → `to`: its constraints with MySQL's generated names
/// (`<from>_ibfk_<n>`) are renamed `<to>_ibfk_<n>`, as MySQL does.
pub fn rename_generated_fks(def: &mut TableDef, from: &str, to: &str) {
    let prefix = format!("{from}_ibfk_");
    for fk in def.foreign_keys.iter_mut() {
        if let Some(n) = fk.name.strip_prefix(&prefix) {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                fk.name = format!("{to}_ibfk_{n}");
            }
        }
    }
}

/// Points the constraints that reference `from` at `to` in `def`; true if one changed.
fn repoint(def: &mut TableDef, from: &(String, String), to: &(String, String)) -> bool {
    let mut changed = false;
    for fk in def.foreign_keys.iter_mut() {
        if references(fk, &from.0, &from.1) {
            fk.ref_db = to.0.clone();
            fk.ref_table = to.1.clone();
            changed = true;
        }
    }
    changed
}

/// Tables by `(db, name)` → their definition after the renames so far (`None`: gone).
pub(crate) type Overlay = Vec<((String, String), Option<TableDef>)>;

impl<E: KvEngine> Storage<E> {
    /// One step of RENAME TABLE (`from` → `to`, already applied to `overlay`): the
    /// constraints referencing `from`, in tables of `overlay` and in the dictionary, now
    /// reference `to`; the tables changed join `overlay` to be written in the same batch.
    ///
    /// # Errors
    /// Dictionary read errors.
    pub(crate) fn follow_rename(
        &self,
        from: &(String, String),
        to: &(String, String),
        overlay: &mut Overlay,
    ) -> Result<()> {
        for (_, def) in overlay.iter_mut() {
            if let Some(d) = def {
                repoint(d, from, to);
            }
        }
        let m = self.referenced_by()?;
        for (cdb, ct) in m.children(&from.0, &from.1) {
            let key = (cdb.clone(), ct.clone());
            if overlay.iter().any(|(k, _)| *k == key) {
                continue;
            }
            if let Some(t) = self.load_table(cdb, ct)? {
                let mut d = t;
                if repoint(&mut d, from, to) {
                    overlay.push((key, Some(d)));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::TableOptions;

    fn def(db: &str, name: &str, refs: &[(&str, &str)]) -> TableDef {
        TableDef {
            foreign_keys: refs
                .iter()
                .enumerate()
                .map(|(i, (d, t))| ForeignKeyDef {
                    name: format!("{name}_ibfk_{}", i + 1),
                    columns: vec!["a".into()],
                    ref_db: d.to_string(),
                    ref_table: t.to_string(),
                    ref_columns: vec!["id".into()],
                    on_delete: String::new(),
                    on_update: String::new(),
                })
                .collect(),
            checks: Vec::new(),
            temporary: false,
            partitioning: None,
            leaf: None,
            part_select: None,
            id: 1,
            db: db.into(),
            name: name.into(),
            columns: vec![],
            indexes: vec![],
            hidden_pk: true,
            version: 1,
            options: TableOptions::default(),
        }
    }

    #[test]
    fn children_by_parent() {
        let defs = [
            def("d", "c1", &[("d", "p"), ("d", "p")]),
            def("d", "c2", &[("d", "p"), ("e", "q")]),
            def("d", "tree", &[("d", "tree")]),
            def("d", "plain", &[]),
        ];
        let m = ReferencedBy::build(defs.iter());
        // a child with two constraints to the same parent is listed once
        assert_eq!(
            m.children("d", "p"),
            &[("d".into(), "c1".into()), ("d".into(), "c2".into())]
        );
        assert_eq!(m.children("e", "q"), &[("d".into(), "c2".into())]);
        assert_eq!(m.children("d", "tree"), &[("d".into(), "tree".into())]);
        // names are case-sensitive, as table names are
        assert!(m.children("d", "P").is_empty());
        assert!(m.children("d", "plain").is_empty());
        assert!(!m.is_empty());
    }

    #[test]
    fn internal_and_temporary_tables_are_left_out() {
        let mut tmp = def("d", "t", &[("d", "p")]);
        tmp.temporary = true;
        let copy = def("d", "#sql-alter-1", &[("d", "p")]);
        let m = ReferencedBy::build([&tmp, &copy]);
        assert!(m.is_empty());
        assert!(m.children("d", "p").is_empty());
    }

    #[test]
    fn renames_follow() {
        let mut c = def("d", "c", &[("d", "p"), ("d", "q")]);
        assert!(repoint(
            &mut c,
            &("d".into(), "p".into()),
            &("e".into(), "p2".into())
        ));
        assert_eq!(
            (
                c.foreign_keys[0].ref_db.as_str(),
                c.foreign_keys[0].ref_table.as_str()
            ),
            ("e", "p2")
        );
        assert_eq!(c.foreign_keys[1].ref_table, "q");
        assert!(!repoint(
            &mut c,
            &("d".into(), "p".into()),
            &("e".into(), "p3".into())
        ));
        // generated names follow the table's new name; given names stay
        c.foreign_keys[1].name = "my_fk".into();
        rename_generated_fks(&mut c, "c", "c2");
        assert_eq!(c.foreign_keys[0].name, "c2_ibfk_1");
        assert_eq!(c.foreign_keys[1].name, "my_fk");
    }

    #[test]
    fn cache_is_per_epoch() {
        let c = ReferencedByCache::default();
        assert!(c.get(0).is_none());
        let m = Arc::new(ReferencedBy::build([&def("d", "c", &[("d", "p")])]));
        c.put(3, m.clone());
        assert_eq!(c.get(3), Some(m));
        assert!(c.get(4).is_none());
    }
}
