//! Stored routines in the dictionary: one JSON entry per procedure or function
//! ([`RoutineDef`]) in [`Cf::Dict`](crate::engine::Cf::Dict) under
//! `R/<db>\0<P|F><lower-case name>` (routine names are case-insensitive, as in MySQL). Each
//! change is one synced batch, like the rest of DDL; `DROP DATABASE` removes the database's
//! routines in its own batch ([`routine_keys`]).
//!
//! Storage keeps the definition as the SQL layer gives it (texts and flags); the SQL layer
//! parses and runs it.

use common::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::codec::key;
use crate::engine::{Cf, KvEngine, WriteBatch};
use crate::Storage;

/// PROCEDURE or FUNCTION.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RoutineKind {
    /// `CREATE PROCEDURE`, run by CALL.
    Procedure,
    /// `CREATE FUNCTION`, called in expressions.
    Function,
}

impl RoutineKind {
    /// `PROCEDURE` / `FUNCTION`.
    pub fn name(self) -> &'static str {
        match self {
            RoutineKind::Procedure => "PROCEDURE",
            RoutineKind::Function => "FUNCTION",
        }
    }

    fn tag(self) -> u8 {
        match self {
            RoutineKind::Procedure => b'P',
            RoutineKind::Function => b'F',
        }
    }
}

/// One parameter of a routine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutineParam {
    /// `IN`, `OUT` or `INOUT` (always `IN` for a function's parameters).
    pub mode: String,
    /// Name as written.
    pub name: String,
    /// Declared type as written (`BINARY(36)`, `varchar(10) CHARSET latin1`).
    pub ty: String,
}

/// A stored procedure or function: the `mysql.routines` row of the data dictionary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutineDef {
    /// Database.
    pub db: String,
    /// Name as created.
    pub name: String,
    /// Procedure or function.
    pub kind: RoutineKind,
    /// Definer user name.
    pub definer_user: String,
    /// Definer host.
    pub definer_host: String,
    /// Parameters in order.
    pub params: Vec<RoutineParam>,
    /// The parameter list as written (between the parentheses), for SHOW CREATE.
    pub param_list: String,
    /// A function's RETURNS type as written.
    pub returns: Option<String>,
    /// The body as written.
    pub body: String,
    /// `DETERMINISTIC`.
    pub deterministic: bool,
    /// `CONTAINS SQL`, `NO SQL`, `READS SQL DATA` or `MODIFIES SQL DATA`.
    pub data_access: String,
    /// `DEFINER` or `INVOKER`.
    pub security: String,
    /// `COMMENT '…'`.
    pub comment: String,
    /// The sql_mode in force when it was created (it runs under it).
    pub sql_mode: String,
    /// Creation time, `YYYY-MM-DD hh:mm:ss`.
    pub created: String,
    /// Last change, `YYYY-MM-DD hh:mm:ss`.
    pub modified: String,
    /// character_set_client at creation.
    pub charset_client: String,
    /// collation_connection at creation.
    pub collation_connection: String,
    /// The database's collation at creation.
    pub db_collation: String,
}

const PREFIX: &[u8] = b"R/";

fn db_prefix(db: &str) -> Vec<u8> {
    let mut k = PREFIX.to_vec();
    k.extend_from_slice(db.as_bytes());
    k.push(0);
    k
}

fn routine_key(db: &str, kind: RoutineKind, name: &str) -> Vec<u8> {
    let mut k = db_prefix(db);
    k.push(kind.tag());
    k.extend_from_slice(name.to_lowercase().as_bytes());
    k
}

fn corrupt(e: serde_json::Error) -> Error {
    Error::internal(format!("corrupt routine entry: {e}"))
}

impl<E: KvEngine> Storage<E> {
    /// The routine `db`.`name` of `kind` (name matched case-insensitively).
    ///
    /// # Errors
    /// An engine I/O error or a corrupt entry.
    pub fn get_routine(
        &self,
        db: &str,
        kind: RoutineKind,
        name: &str,
    ) -> Result<Option<RoutineDef>> {
        match self.engine().get(Cf::Dict, &routine_key(db, kind, name))? {
            Some(v) => Ok(Some(serde_json::from_slice(&v).map_err(corrupt)?)),
            None => Ok(None),
        }
    }

    /// The routines of `db`, or of every database, ordered by (db, kind, name).
    ///
    /// # Errors
    /// An engine I/O error or a corrupt entry.
    pub fn list_routines(&self, db: Option<&str>) -> Result<Vec<RoutineDef>> {
        let lo = db.map_or_else(|| PREFIX.to_vec(), db_prefix);
        let hi = key::prefix_successor(&lo);
        let mut it = self.engine().iter(Cf::Dict, &lo, hi.as_deref(), false);
        let mut out = Vec::new();
        while it.valid() {
            out.push(serde_json::from_slice(it.value()).map_err(corrupt)?);
            it.next();
        }
        it.status()?;
        Ok(out)
    }

    /// Writes (creates or replaces) `def` in one synced batch. The SQL layer checks that the
    /// database exists and the name is free.
    ///
    /// # Errors
    /// An engine I/O error (nothing was written).
    pub fn put_routine(&self, def: &RoutineDef) -> Result<()> {
        let _g = self.ddl_lock();
        let v = serde_json::to_vec(def)
            .map_err(|e| Error::internal(format!("cannot serialise a routine: {e}")))?;
        let mut b = WriteBatch::new();
        b.put(Cf::Dict, routine_key(&def.db, def.kind, &def.name), v);
        self.engine().write(&b, true)
    }

    /// Removes a routine in one synced batch; false when there was none.
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn drop_routine(&self, db: &str, kind: RoutineKind, name: &str) -> Result<bool> {
        let _g = self.ddl_lock();
        let k = routine_key(db, kind, name);
        if self.engine().get(Cf::Dict, &k)?.is_none() {
            return Ok(false);
        }
        let mut b = WriteBatch::new();
        b.delete(Cf::Dict, k);
        self.engine().write(&b, true)?;
        Ok(true)
    }

    /// The dictionary keys of every routine of `db` (deleted with the database).
    ///
    /// # Errors
    /// An engine I/O error.
    pub(crate) fn routine_keys(&self, db: &str) -> Result<Vec<Vec<u8>>> {
        let lo = db_prefix(db);
        let hi = key::prefix_successor(&lo);
        let mut it = self.engine().iter(Cf::Dict, &lo, hi.as_deref(), false);
        let mut out = Vec::new();
        while it.valid() {
            out.push(it.key().to_vec());
            it.next();
        }
        it.status()?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::DatabaseDef;
    use crate::mem::MemEngine;
    use crate::StorageOptions;

    fn def(db: &str, name: &str, kind: RoutineKind) -> RoutineDef {
        RoutineDef {
            db: db.into(),
            name: name.into(),
            kind,
            definer_user: "root".into(),
            definer_host: "localhost".into(),
            params: vec![],
            param_list: String::new(),
            returns: None,
            body: "BEGIN END".into(),
            deterministic: false,
            data_access: "CONTAINS SQL".into(),
            security: "DEFINER".into(),
            comment: String::new(),
            sql_mode: String::new(),
            created: String::new(),
            modified: String::new(),
            charset_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_0900_ai_ci".into(),
            db_collation: "utf8mb4_0900_ai_ci".into(),
        }
    }

    #[test]
    fn routines_are_kept_per_kind_case_insensitively_and_go_with_their_database() {
        let st = Storage::open(MemEngine::new(), StorageOptions::default()).unwrap();
        st.create_database(DatabaseDef {
            name: "d".into(),
            collation: Default::default(),
        })
        .unwrap();
        st.put_routine(&def("d", "P1", RoutineKind::Procedure))
            .unwrap();
        st.put_routine(&def("d", "p1", RoutineKind::Function))
            .unwrap();
        st.put_routine(&def("e", "x", RoutineKind::Function))
            .unwrap();
        let p = st.get_routine("d", RoutineKind::Procedure, "p1").unwrap();
        assert_eq!(p.unwrap().name, "P1");
        assert_eq!(st.list_routines(Some("d")).unwrap().len(), 2);
        assert_eq!(st.list_routines(None).unwrap().len(), 3);
        assert!(st.drop_routine("d", RoutineKind::Function, "P1").unwrap());
        assert!(!st.drop_routine("d", RoutineKind::Function, "P1").unwrap());
        st.drop_database("d").unwrap();
        assert!(st.list_routines(Some("d")).unwrap().is_empty());
        assert_eq!(st.list_routines(None).unwrap().len(), 1);
    }
}
