//! Row changes a transaction made, for a commit log (the binary log): each insert, update and
//! delete with its table and its before / after images, in the order they happened, and the
//! [`CommitLog`] a [`crate::Storage`] may have installed to record them atomically with the
//! data.
//!
//! The list lives in the transaction's write set, so statement rollback and savepoints undo
//! its entries exactly as they undo the writes. It is kept only while the transaction logs
//! ([`crate::txn::Txn::set_logging`]); otherwise a change costs one branch.

use std::sync::Arc;

use common::{Result, Value};
use imbl::Vector;

use crate::catalog::TableDef;

/// One row change.
#[derive(Debug, Clone)]
pub struct RowChange {
    /// The table (for a partitioned table, one of its leaves: same database, name and
    /// columns as the table).
    pub table: Arc<TableDef>,
    /// The row before (UPDATE, DELETE).
    pub before: Option<Arc<[Value]>>,
    /// The row after (INSERT, UPDATE).
    pub after: Option<Arc<[Value]>>,
}

/// The changes of a transaction, in order (structurally shared: O(1) copies).
pub(crate) type ChangeList = Vector<RowChange>;

/// Extra key-value pairs a [`CommitLog`] writes into the dictionary column family in the same
/// atomic batch as a transaction's data.
pub type LogRecords = Vec<(Vec<u8>, Vec<u8>)>;

/// Writes a transaction's batch (its own writes plus the given records); called by the log
/// under its ordering lock.
pub type WriteWith<'a> = dyn FnMut(LogRecords) -> Result<()> + 'a;

/// A log of committed transactions kept atomically with the data (the binary log).
///
/// Contract: [`CommitLog::commit`] must call `write` exactly once on success, with the records
/// that make the transaction's log entry durable together with its data; the order in which
/// transactions reach `write` is their commit order. If `write` fails, the transaction did not
/// commit and the log must not keep its entry.
pub trait CommitLog: Send + Sync {
    /// Logs a transaction with `changes` (non-empty). `thread_id` is the connection that ran it,
    /// `db` its current database.
    ///
    /// # Errors
    /// A failure to encode the entry or to write (the transaction is then rolled back).
    fn commit(
        &self,
        thread_id: u32,
        db: Option<&str>,
        changes: &[RowChange],
        write: &mut WriteWith<'_>,
    ) -> Result<()>;
}
