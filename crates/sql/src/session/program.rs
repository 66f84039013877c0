//! What sessions keep for stored programs: the instance's cache of compiled routines
//! ([`RoutineCache`], one compile per definition version), and per session the call stack,
//! the result sets a CALL has produced for the client, and the two entry points of the
//! later stages that earlier ones call ([`ProgramHooks`]: the executor evaluates a stored
//! function through `call_function`; the interpreter runs a body's statements through
//! `run_statement`). `crate::dispatch` installs the hooks before it runs a statement.

use std::collections::HashMap;
use std::sync::Arc;

use common::{Result, Value};
use parking_lot::Mutex;
use storage::catalog::routine::{RoutineDef, RoutineKind};
use storage::engine::KvEngine;

use crate::ir::routine::Routine;
use crate::parse::parser::{Parsed, SqlModeFlags};
use crate::session::session::{Output, Session};

/// The later stages' entry points (see the module docs).
pub struct ProgramHooks<E: KvEngine> {
    /// Calls a stored function with its argument values.
    pub call_function: fn(&mut Session<E>, &Arc<Routine>, Vec<Value>) -> Result<Value>,
    /// Runs one statement of a body with its parameter values.
    pub run_statement: fn(&mut Session<E>, &Parsed, &[Value]) -> Result<Output>,
}

impl<E: KvEngine> Clone for ProgramHooks<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E: KvEngine> Copy for ProgramHooks<E> {}

/// One routine being run.
#[derive(Debug, Clone)]
pub struct ActiveCall {
    /// Procedure or function.
    pub kind: RoutineKind,
    /// `db.name` (lower case), for the recursion checks.
    pub key: String,
}

/// A session's stored-program state.
pub struct ProgramState<E: KvEngine> {
    /// Installed by dispatch.
    pub hooks: Option<ProgramHooks<E>>,
    /// The routines running, outermost first.
    pub stack: Vec<ActiveCall>,
    /// Result sets the running CALL produced, in order (sent before its final OK).
    pub results: Vec<Output>,
}

impl<E: KvEngine> Default for ProgramState<E> {
    fn default() -> Self {
        ProgramState {
            hooks: None,
            stack: Vec::new(),
            results: Vec::new(),
        }
    }
}

impl<E: KvEngine> ProgramState<E> {
    /// True while a stored function runs (its statements share the calling statement's
    /// transaction, and may not return result sets).
    pub fn in_function(&self) -> bool {
        self.stack.iter().any(|c| c.kind == RoutineKind::Function)
    }
}

type Key = (String, RoutineKind, String);

/// Compiled routines by (db, kind, lower-case name), each valid for the definition it was
/// compiled from.
#[derive(Default)]
pub struct RoutineCache {
    map: Mutex<HashMap<Key, Arc<Routine>>>,
}

impl RoutineCache {
    /// The compiled form of `def`: cached, or compiled now.
    ///
    /// # Errors
    /// A body that no longer compiles (an internal error: it compiled when created).
    pub fn get(&self, def: RoutineDef) -> Result<Arc<Routine>> {
        let key = (def.db.clone(), def.kind, def.name.to_lowercase());
        if let Some(r) = self.map.lock().get(&key) {
            if r.def == def {
                return Ok(r.clone());
            }
        }
        let program = compile(&def)?;
        let returns = match &def.returns {
            Some(t) => Some(crate::ddl::routine::resolve_type(t, &def.name)?),
            None => None,
        };
        let r = Arc::new(Routine {
            def,
            program: Arc::new(program),
            returns,
            types: Default::default(),
        });
        self.map.lock().insert(key, r.clone());
        Ok(r)
    }

    /// Forgets the routines of `db` (DROP DATABASE) or one routine.
    pub fn forget(&self, db: &str, kind: Option<RoutineKind>, name: &str) {
        let lname = name.to_lowercase();
        self.map.lock().retain(|(d, k, n), _| {
            !(d == db && (kind.is_none() || (Some(*k) == kind && *n == lname)))
        });
    }
}

/// The sql_mode flags that change how a body written under `sql_mode` tokenizes.
pub fn mode_flags(sql_mode: &str) -> SqlModeFlags {
    let has = |f: &str| sql_mode.split(',').any(|m| m == f);
    SqlModeFlags {
        ansi_quotes: has("ANSI_QUOTES") || has("ANSI"),
        pipes_as_concat: has("PIPES_AS_CONCAT") || has("ANSI"),
    }
}

/// Compiles a stored definition.
///
/// # Errors
/// 1064 and the stored-program errors of [`crate::parse::compound::compile`].
pub fn compile(def: &RoutineDef) -> Result<crate::parse::compound::Program> {
    let params: Vec<(String, String)> = def
        .params
        .iter()
        .map(|p| (p.name.clone(), p.ty.clone()))
        .collect();
    crate::parse::compound::compile(
        &def.body,
        &params,
        def.kind == RoutineKind::Function,
        mode_flags(&def.sql_mode),
    )
}

impl<E: KvEngine> Session<E> {
    /// Routine `db`.`name` of `kind`, compiled, or `None` when it does not exist.
    ///
    /// # Errors
    /// A storage error.
    pub fn routine(&self, db: &str, kind: RoutineKind, name: &str) -> Result<Option<Arc<Routine>>> {
        match self.inst.storage.get_routine(db, kind, name)? {
            Some(def) => Ok(Some(self.inst.routines.get(def)?)),
            None => Ok(None),
        }
    }
}
