//! A stored routine as the later stages use it: its dictionary definition and its body
//! compiled once ([`crate::parse::compound::Program`]). A stored function call in a bound
//! expression holds one ([`crate::ir::expr::Builtin::stored`]); the interpreter
//! (`crate::program`) runs it.

use std::sync::Arc;

use storage::catalog::routine::RoutineDef;

use crate::parse::compound::Program;

/// A routine ready to run.
#[derive(Debug)]
pub struct Routine {
    /// The definition it was compiled from.
    pub def: RoutineDef,
    /// The compiled body.
    pub program: Arc<Program>,
    /// A function's RETURNS type (for the metadata of a call's result column).
    pub returns: Option<common::DataType>,
    /// The types of its variables (parameters first) and, last, of a function's RETURNS,
    /// resolved on the first call.
    pub types: std::sync::OnceLock<Vec<common::DataType>>,
}

impl Routine {
    /// `db.name` as MySQL's messages print it.
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.def.db, self.def.name)
    }
}

impl PartialEq for Routine {
    /// The same compiled routine (a definition compiles to one `Routine` per version).
    fn eq(&self, other: &Routine) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for Routine {}
