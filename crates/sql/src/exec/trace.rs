//! A record of how each table was actually read while recording is on (on this thread): one
//! entry per table read — its name in the block, EXPLAIN's `type` and `key` for the read as
//! executed (a read that could not use its key ranges shows as a full scan), the rows it
//! returned and how many times it ran (the outer rows of a join lookup). EXPLAIN ANALYZE prints
//! the counts next to the plan's nodes; the golden files' test checks that execution ran the
//! plan EXPLAIN printed. Off, a read costs one thread-local check.

use std::cell::RefCell;

use storage::catalog::TableDef;

use crate::plan::physical::TableRead;

/// One table read as executed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// Table name or alias in its block.
    pub name: String,
    /// EXPLAIN's `type` for the read as executed.
    pub ty: &'static str,
    /// EXPLAIN's `key`.
    pub key: Option<String>,
    /// Rows the read returned (all loops).
    pub rows: u64,
    /// Times it ran.
    pub loops: u64,
}

thread_local! {
    static TRACE: RefCell<Option<Vec<Entry>>> = const { RefCell::new(None) };
}

/// Records that `name` (table `t`) was read through `read` `loops` times, returning `rows`;
/// `planned` false when the key ranges could not be built and the table was scanned whole.
#[inline]
pub fn read(name: &str, t: &TableDef, read: &TableRead, planned: bool, rows: u64, loops: u64) {
    TRACE.with(|tr| {
        if let Some(v) = tr.borrow_mut().as_mut() {
            let (ty, key) = if planned {
                read.fingerprint(t)
            } else {
                ("ALL", None)
            };
            v.push(Entry {
                name: name.to_string(),
                ty,
                key,
                rows,
                loops,
            });
        }
    });
}

/// Starts recording on this thread (dropping what was recorded).
pub fn start() {
    TRACE.with(|tr| *tr.borrow_mut() = Some(Vec::new()));
}

/// Stops recording and returns the entries.
pub fn take() -> Vec<Entry> {
    TRACE.with(|tr| tr.borrow_mut().take().unwrap_or_default())
}
