//! TEMPORARY tables: private to the session that created them, as MySQL's.
//!
//! # Representation
//! A temporary table is an ordinary table of the storage dictionary (so its rows, indexes,
//! transactions, rollback and the whole executor work unchanged) stored under an internal name
//! in the database the user named: `#sql-tmp-<connection id>-<n>` ([`PREFIX`]), with
//! [`TableDef::temporary`] set. Only the session that created it knows the mapping from its name
//! to the internal one ([`TempTables`], kept in the session), so no other session can name it;
//! the internal names are hidden from SHOW TABLES and INFORMATION_SCHEMA.TABLES like the copies
//! of a rebuilding ALTER TABLE (`crate::ddl::alter::is_temp_table`).
//!
//! Name resolution looks here first: while a session has a temporary table `db.t`, every
//! statement of that session naming `db.t` (SELECT, INSERT, UPDATE, DELETE, ALTER, DROP,
//! TRUNCATE, SHOW CREATE TABLE, DESCRIBE, CREATE TABLE … LIKE) reaches the temporary table,
//! shadowing a base table of the same name; the definition a statement sees carries the user's
//! name ([`TempTables::visible`]), so column metadata and error messages never show the
//! internal one. Two sessions may each have a temporary `db.t`: their internal names differ.
//!
//! # Lifetime
//! The session drops its temporary tables when it ends (disconnect, KILL, COM_CHANGE_USER) and
//! at COM_RESET_CONNECTION ([`TempTables::drop_all`]). A table left behind by a crash has its
//! definition in the dictionary under a [`PREFIX`] name: the server drops every such table when
//! it starts ([`drop_leftover_tables`]), so nothing of it survives a restart.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use common::Result;
use storage::catalog::TableDef;
use storage::engine::KvEngine;
use storage::Storage;

/// Name prefix of the internal names of temporary tables.
pub const PREFIX: &str = "#sql-tmp-";

/// True for the internal name of a temporary table.
pub fn is_temporary_name(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// One temporary table of a session.
#[derive(Debug, Clone)]
struct Entry {
    /// The internal (storage) name.
    internal: String,
    /// The user-visible definition with the stored one it was built from (see
    /// [`TempTables::visible`]).
    visible: RefCell<Option<(Arc<TableDef>, Arc<TableDef>)>>,
}

/// A session's temporary tables: `(database, name)` → internal storage name.
#[derive(Debug, Default)]
pub struct TempTables {
    by_name: HashMap<(String, String), Entry>,
    /// Numbers the internal names of this session.
    seq: u64,
}

impl TempTables {
    /// True when the session has no temporary table.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The internal name of the session's temporary table `db.name`, if it has one.
    pub fn lookup(&self, db: &str, name: &str) -> Option<&str> {
        if self.by_name.is_empty() {
            return None;
        }
        self.by_name
            .get(&(db.to_string(), name.to_string()))
            .map(|e| e.internal.as_str())
    }

    /// A fresh internal name for a new temporary table of connection `conn_id`.
    pub fn next_internal(&mut self, conn_id: u32) -> String {
        self.seq += 1;
        format!("{PREFIX}{conn_id}-{}", self.seq)
    }

    /// Records `db.name` as the temporary table stored as `internal`.
    pub fn insert(&mut self, db: &str, name: &str, internal: String) {
        self.by_name.insert(
            (db.to_string(), name.to_string()),
            Entry {
                internal,
                visible: RefCell::new(None),
            },
        );
    }

    /// Forgets `db.name`; its internal name.
    pub fn remove(&mut self, db: &str, name: &str) -> Option<String> {
        self.by_name
            .remove(&(db.to_string(), name.to_string()))
            .map(|e| e.internal)
    }

    /// The session's temporary tables as `(database, name, internal name)`.
    pub fn list(&self) -> Vec<(String, String, String)> {
        let mut v: Vec<_> = self
            .by_name
            .iter()
            .map(|((d, n), e)| (d.clone(), n.clone(), e.internal.clone()))
            .collect();
        v.sort();
        v
    }

    /// The definition of `db.name` as its statements see it: the stored definition `stored`
    /// (named internally) under the user's name. Kept until the stored definition changes.
    pub fn visible(&self, db: &str, name: &str, stored: Arc<TableDef>) -> Arc<TableDef> {
        let Some(e) = self.by_name.get(&(db.to_string(), name.to_string())) else {
            return stored;
        };
        let mut cached = e.visible.borrow_mut();
        if let Some((src, vis)) = cached.as_ref() {
            if Arc::ptr_eq(src, &stored) {
                return vis.clone();
            }
        }
        let vis = Arc::new(visible_def(&stored, name));
        *cached = Some((stored, vis.clone()));
        vis
    }

    /// Drops every temporary table of the session (its end, COM_RESET_CONNECTION); errors are
    /// logged, not returned: a table that cannot be dropped now is dropped at the next start.
    pub fn drop_all<E: KvEngine>(&mut self, st: &Storage<E>) {
        for ((db, name), e) in self.by_name.drain() {
            if let Err(err) = st.drop_table(&db, &e.internal) {
                tracing::warn!(db, table = name, error = %err.msg, "cannot drop a temporary table");
            }
        }
    }
}

/// `stored` (a temporary table's definition under its internal name) under the name `name`.
pub fn visible_def(stored: &TableDef, name: &str) -> TableDef {
    let mut def = stored.clone();
    def.name = name.to_string();
    def.temporary = true;
    def
}

/// Drops the temporary tables a server that stopped without closing its sessions left in the
/// dictionary; returns how many. Called at startup.
///
/// # Errors
/// Engine I/O errors.
pub fn drop_leftover_tables<E: KvEngine>(st: &Storage<E>) -> Result<usize> {
    let mut n = 0;
    for d in st.list_databases()? {
        for t in st.list_tables(&d.name)? {
            if is_temporary_name(&t) {
                st.drop_table(&d.name, &t)?;
                n += 1;
            }
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use storage::mem::MemEngine;
    use storage::StorageOptions;

    use super::*;
    use crate::runtime::sysvars::GlobalVars;
    use crate::session::session::test_support::{err, ok, rows};
    use crate::session::session::Session;
    use crate::Instance;

    /// Two sessions (connection ids 1 and 2) of one instance, database `d` selected.
    fn two() -> (Session<MemEngine>, Session<MemEngine>) {
        let storage = Storage::open(MemEngine::new(), StorageOptions::default()).unwrap();
        let inst = Instance::new(storage, GlobalVars::new(&[]).unwrap());
        let mut a = Session::new(inst.clone(), 1, "root", "localhost", None).unwrap();
        ok(&mut a, "CREATE DATABASE d");
        ok(&mut a, "USE d");
        let b = Session::new(inst, 2, "root", "localhost", Some("d")).unwrap();
        (a, b)
    }

    fn flat(r: Vec<Vec<String>>) -> String {
        r.into_iter()
            .map(|r| r.join(","))
            .collect::<Vec<_>>()
            .join(";")
    }

    #[test]
    fn private_to_the_session_and_shadowing() {
        let (mut a, mut b) = two();
        ok(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
        ok(&mut a, "INSERT INTO t VALUES (1, 'base')");
        ok(
            &mut a,
            "CREATE TEMPORARY TABLE t (id INT PRIMARY KEY, w INT)",
        );
        ok(&mut a, "INSERT INTO t VALUES (7, 70)");
        // a sees its temporary table, b the base table
        assert_eq!(flat(rows(&mut a, "SELECT * FROM t")), "7,70");
        assert_eq!(flat(rows(&mut b, "SELECT * FROM t")), "1,base");
        // b may have its own temporary t
        ok(&mut b, "CREATE TEMPORARY TABLE t (x INT)");
        ok(&mut b, "INSERT INTO t VALUES (9)");
        assert_eq!(flat(rows(&mut b, "SELECT * FROM t")), "9");
        assert_eq!(flat(rows(&mut a, "SELECT * FROM t")), "7,70");
        // invisible in listings
        assert_eq!(flat(rows(&mut a, "SHOW TABLES")), "t");
        assert_eq!(
            flat(rows(
                &mut a,
                "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd'"
            )),
            "t,BASE TABLE"
        );
        assert_eq!(
            rows(
                &mut a,
                "SELECT * FROM information_schema.INNODB_TEMP_TABLE_INFO"
            )
            .len(),
            2
        );
        // UPDATE / DELETE / SHOW CREATE TABLE reach the temporary table
        ok(&mut a, "UPDATE t SET w = w + 1");
        ok(&mut a, "DELETE FROM t WHERE id = 8");
        assert_eq!(flat(rows(&mut a, "SELECT w FROM t")), "71");
        let create = rows(&mut a, "SHOW CREATE TABLE t")[0][1].clone();
        assert!(
            create.starts_with("CREATE TEMPORARY TABLE `t` ("),
            "{create}"
        );
        // DROP TEMPORARY TABLE drops only temporary tables
        ok(&mut a, "DROP TEMPORARY TABLE t");
        assert_eq!(err(&mut a, "DROP TEMPORARY TABLE t"), 1051);
        assert_eq!(flat(rows(&mut a, "SELECT * FROM t")), "1,base");
        // DROP TABLE drops the temporary table first
        ok(&mut b, "DROP TABLE t");
        assert_eq!(flat(rows(&mut b, "SELECT * FROM t")), "1,base");
    }

    #[test]
    fn gone_with_the_session_and_at_reset() {
        let (mut a, mut b) = two();
        ok(&mut a, "CREATE TEMPORARY TABLE tt (a INT)");
        ok(&mut a, "INSERT INTO tt VALUES (1)");
        assert_eq!(err(&mut b, "SELECT * FROM tt"), 1146);
        let st = a.storage().clone();
        assert_eq!(st.list_tables("d").unwrap().len(), 1);
        a.reset().unwrap();
        assert_eq!(err(&mut a, "SELECT * FROM tt"), 1146);
        assert!(st.list_tables("d").unwrap().is_empty());
        ok(&mut b, "CREATE TEMPORARY TABLE tt (a INT)");
        drop(b);
        assert!(st.list_tables("d").unwrap().is_empty());
        // a leftover (a crash) is dropped at the next start
        ok(&mut a, "CREATE TEMPORARY TABLE tt (a INT)");
        std::mem::forget(a);
        assert_eq!(drop_leftover_tables(&st).unwrap(), 1);
        assert!(st.list_tables("d").unwrap().is_empty());
    }

    #[test]
    fn transactions_like_innodb_temporary_tables() {
        let (mut a, _b) = two();
        ok(&mut a, "CREATE TABLE base (a INT)");
        ok(&mut a, "START TRANSACTION");
        ok(&mut a, "INSERT INTO base VALUES (1)");
        // neither CREATE nor DROP TEMPORARY TABLE commits the transaction
        ok(&mut a, "CREATE TEMPORARY TABLE tt (a INT)");
        ok(&mut a, "INSERT INTO tt VALUES (1), (2)");
        ok(&mut a, "CREATE TEMPORARY TABLE t2 AS SELECT a FROM tt");
        ok(&mut a, "ROLLBACK");
        assert_eq!(flat(rows(&mut a, "SELECT COUNT(*) FROM base")), "0");
        assert_eq!(flat(rows(&mut a, "SELECT COUNT(*) FROM tt")), "0");
        assert_eq!(flat(rows(&mut a, "SELECT COUNT(*) FROM t2")), "0");
        ok(&mut a, "INSERT INTO tt VALUES (5)");
        ok(&mut a, "START TRANSACTION");
        ok(&mut a, "INSERT INTO base VALUES (2)");
        ok(&mut a, "DROP TEMPORARY TABLE t2");
        ok(&mut a, "COMMIT");
        assert_eq!(flat(rows(&mut a, "SELECT COUNT(*) FROM base")), "1");
        // LIKE, SELECT, ALTER and RENAME on a temporary table
        ok(&mut a, "CREATE TEMPORARY TABLE t3 LIKE tt");
        ok(
            &mut a,
            "CREATE TEMPORARY TABLE t4 SELECT a * 2 AS b FROM tt",
        );
        assert_eq!(flat(rows(&mut a, "SELECT b FROM t4")), "10");
        ok(
            &mut a,
            "ALTER TABLE t4 ADD COLUMN c INT DEFAULT 3, RENAME TO t5",
        );
        assert_eq!(flat(rows(&mut a, "SELECT * FROM t5")), "10,3");
        assert_eq!(err(&mut a, "SELECT * FROM t4"), 1146);
        ok(&mut a, "ALTER TABLE t5 MODIFY b BIGINT NOT NULL");
        assert_eq!(flat(rows(&mut a, "SELECT * FROM t5")), "10,3");
        ok(&mut a, "TRUNCATE TABLE t5");
        assert_eq!(flat(rows(&mut a, "SELECT COUNT(*) FROM t5")), "0");
        assert_eq!(flat(rows(&mut a, "SHOW TABLES")), "base");
    }

    #[test]
    fn create_select_rows_are_committed() {
        let (mut a, mut b) = two();
        ok(&mut a, "CREATE TABLE src (a INT)");
        ok(&mut a, "INSERT INTO src VALUES (1), (2)");
        ok(&mut a, "CREATE TABLE copy AS SELECT a FROM src");
        assert_eq!(flat(rows(&mut b, "SELECT COUNT(*) FROM copy")), "2");
    }

    #[test]
    fn names_are_private_and_numbered() {
        let mut a = TempTables::default();
        let mut b = TempTables::default();
        let ia = a.next_internal(7);
        let ib = b.next_internal(8);
        assert_ne!(ia, ib);
        assert!(is_temporary_name(&ia) && is_temporary_name(&ib));
        assert!(!is_temporary_name("t"));
        a.insert("d", "t", ia.clone());
        b.insert("d", "t", ib.clone());
        assert_eq!(a.lookup("d", "t"), Some(ia.as_str()));
        assert_eq!(b.lookup("d", "t"), Some(ib.as_str()));
        // names are case-sensitive, as table names are on Linux
        assert_eq!(a.lookup("d", "T"), None);
        assert_eq!(a.next_internal(7), format!("{PREFIX}7-2"));
        assert_eq!(a.remove("d", "t"), Some(ia));
        assert!(a.is_empty());
    }
}
