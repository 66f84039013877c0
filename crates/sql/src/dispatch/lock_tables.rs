//! `LOCK TABLES t [[AS] a] READ [LOCAL] | [LOW_PRIORITY] WRITE, …` and `UNLOCK TABLES`, as
//! MySQL 8.4 enforces them:
//! - the locks are metadata locks held until UNLOCK TABLES (or the next LOCK TABLES, START
//!   TRANSACTION, or the end of the connection), across the session's transactions: READ lets
//!   other sessions read the table but not write it, WRITE keeps them out altogether (they wait
//!   up to `lock_wait_timeout`, then 1205);
//! - while it holds them the session may use only the tables it locked: another table is 1100
//!   `Table 't' was not locked with LOCK TABLES`, a change to a READ-locked one 1099 `Table 't'
//!   was locked with a READ lock and can't be updated`. TEMPORARY tables and the system
//!   schemas are exempt, as in MySQL.
//!
//! `FLUSH TABLES WITH READ LOCK` takes the instance's global read lock (one connection at a
//! time; a second one waits): until its UNLOCK TABLES (or disconnect) every other session's
//! statement that would change data or definitions waits for it (`lock_wait_timeout`, then
//! 1205), and the holder's own is 1223. Reads go on. Transactions already committing finish
//! first only in the sense that the lock is taken between statements: a transaction another
//! session has open keeps its uncommitted changes, and its COMMIT is not held back.
//!
//! An alias is taken as another name for its table (MySQL also requires a query to use the
//! alias it locked under); READ LOCAL is READ (InnoDB has no concurrent inserts either).

use std::sync::atomic::Ordering as AtOrd;

use common::{codes, Error, Result};
use sqlparser::ast::{LockTable, LockTableType};
use storage::engine::KvEngine;

use crate::acl::check::Need;
use crate::parse::acl::privs;
use crate::parse::parser::Parsed;
use crate::runtime::mdl::MdlMode;
use crate::session::session::{LockedTable, Session};

/// Privileges whose use writes a table's rows or definition.
const WRITES: u64 = privs::INSERT
    | privs::UPDATE
    | privs::DELETE
    | privs::DROP
    | privs::ALTER
    | privs::INDEX
    | privs::CREATE;

impl<E: KvEngine> Session<E> {
    /// LOCK TABLES: releases the session's table locks, then takes the new ones (all or none).
    ///
    /// # Errors
    /// 1046 / 1146 for a bad name; 1205 (or 1317) while another session's lock is in the way.
    pub(crate) fn lock_tables(&mut self, tables: &[LockTable]) -> Result<()> {
        self.unlock_tables();
        let mut locked = Vec::with_capacity(tables.len());
        for t in tables {
            let name = t.table.value.clone();
            let db = self.db.clone().ok_or_else(Error::no_db)?;
            if self.table_def(&db, &name)?.is_none() {
                return Err(Error::no_such_table(&db, &name));
            }
            locked.push(LockedTable {
                db,
                table: name,
                alias: t.alias.as_ref().map(|a| a.value.clone()),
                write: matches!(t.lock_type, LockTableType::Write { .. }),
            });
        }
        // in one order, so two LOCK TABLES cannot deadlock on each other
        let mut order: Vec<&LockedTable> = locked.iter().collect();
        order.sort_by_key(|l| crate::runtime::mdl::key(&l.db, &l.table));
        for l in order {
            let mode = if l.write {
                MdlMode::Exclusive
            } else {
                MdlMode::NoWrite
            };
            let key = self.table_key(&l.db, &l.table).to_string();
            if let Err(e) = self.mdl_lock(&l.db, &key, mode) {
                self.mdl_release();
                return Err(e);
            }
        }
        self.locked_tables = Some(locked);
        Ok(())
    }

    /// UNLOCK TABLES (also START TRANSACTION and a new LOCK TABLES): the table locks go.
    pub(crate) fn unlock_tables(&mut self) {
        if self.locked_tables.take().is_some() {
            self.mdl_release();
        }
    }

    /// Under LOCK TABLES, fails a statement that uses a table the session did not lock (1100)
    /// or changes one it locked for READ (1099).
    ///
    /// # Errors
    /// 1100, 1099.
    pub(crate) fn check_locked_tables(&self, p: &Parsed) -> Result<()> {
        let Some(locked) = &self.locked_tables else {
            return Ok(());
        };
        if matches!(
            &p.stmt,
            crate::parse::parser::Stmt::Ast(
                sqlparser::ast::Statement::LockTables { .. }
                    | sqlparser::ast::Statement::UnlockTables
            )
        ) {
            return Ok(());
        }
        for n in crate::acl::check::needs(self, &p.stmt)? {
            let (db, table, privs) = match n {
                Need::Table {
                    db, table, privs, ..
                } => (db, table, privs),
                Need::TableAny { db, table, .. } => (db, table, 0),
                _ => continue,
            };
            if crate::runtime::schemas::is_system_db(&db) || self.temp.lookup(&db, &table).is_some()
            {
                continue;
            }
            let found = locked.iter().find(|l| {
                l.db == db && (l.table == table || l.alias.as_deref().is_some_and(|a| a == table))
            });
            match found {
                None => {
                    return Err(Error::new(
                        codes::ER_TABLE_NOT_LOCKED,
                        format!("Table '{table}' was not locked with LOCK TABLES"),
                    ))
                }
                Some(l) if !l.write && privs & WRITES != 0 => {
                    return Err(Error::new(
                        codes::ER_TABLE_NOT_LOCKED_FOR_WRITE,
                        format!("Table '{table}' was locked with a READ lock and can't be updated"),
                    ))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// FLUSH TABLES WITH READ LOCK: waits until no other connection holds the global read
    /// lock, then holds it. Implicitly releases LOCK TABLES, as MySQL.
    ///
    /// # Errors
    /// 1205 after `lock_wait_timeout`, 1317 when killed.
    pub(crate) fn take_global_read_lock(&mut self) -> Result<()> {
        self.unlock_tables();
        let me = self.conn_id;
        let g = &self.inst.global_read_lock;
        // taken in one step, so two FLUSH TABLES WITH READ LOCK cannot both get it
        self.wait_until(
            || match g.compare_exchange(0, me, AtOrd::AcqRel, AtOrd::Acquire) {
                Ok(_) => true,
                Err(holder) => holder == me,
            },
        )
    }

    /// Gives up the global read lock if this connection holds it.
    pub(crate) fn release_global_read_lock(&self) {
        let _ = self.inst.global_read_lock.compare_exchange(
            self.conn_id,
            0,
            AtOrd::AcqRel,
            AtOrd::Relaxed,
        );
    }

    /// Holds statement `p` back while another connection has the global read lock and `p`
    /// would write (1223 for the holder itself). One atomic load when nobody holds it (every
    /// statement passes here).
    ///
    /// # Errors
    /// 1223, 1205, 1317.
    pub(crate) fn wait_global_read_lock(&self, p: &Parsed) -> Result<()> {
        let holder = self.inst.global_read_lock.load(AtOrd::Acquire);
        if holder == 0 || !self.writes_persistent_data(p)? {
            return Ok(());
        }
        if holder == self.conn_id {
            return Err(Error::new(
                codes::ER_CANT_UPDATE_WITH_READLOCK,
                "Can't execute the query because you have a conflicting read lock",
            ));
        }
        let g = &self.inst.global_read_lock;
        self.wait_until(|| g.load(AtOrd::Acquire) == 0)
    }

    /// Waits (polling, as the lock is rare) until `ok` holds, up to `lock_wait_timeout`.
    fn wait_until(&self, ok: impl Fn() -> bool) -> Result<()> {
        let timeout = std::time::Duration::from_secs(self.hot().lock_wait_timeout);
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if ok() {
                return Ok(());
            }
            if self.killed.load(AtOrd::Relaxed) {
                return Err(Error::interrupted());
            }
            if std::time::Instant::now() >= deadline {
                return Err(Error::lock_wait_timeout());
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}
