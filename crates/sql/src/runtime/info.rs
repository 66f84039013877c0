//! Server-level facts the SQL layer shows but does not own — the thread pool's
//! INFORMATION_SCHEMA tables and connection-handling status variables. The server installs a
//! [`ServerInfo`] in [`crate::Instance::server_info`]; `SHOW STATUS` and INFORMATION_SCHEMA read it.

use common::Value;

/// A column type of a [`ServerInfo`] table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfoType {
    /// BIGINT (values `Value::Int` / `Value::UInt`).
    BigInt,
    /// VARCHAR(n) (values `Value::Str`, or NULL).
    VarChar(u32),
}

/// One extra INFORMATION_SCHEMA table.
#[derive(Debug, Clone, Copy)]
pub struct InfoTable {
    /// Upper-case table name.
    pub name: &'static str,
    /// Columns in order.
    pub columns: &'static [(&'static str, InfoType)],
}

/// Provides extra INFORMATION_SCHEMA tables and status variables. Called from any session
/// thread; implementations take a consistent snapshot per call.
pub trait ServerInfo: Send + Sync {
    /// The extra tables (INFORMATION_SCHEMA).
    fn tables(&self) -> &'static [InfoTable];
    /// The rows of table `name` (one of [`ServerInfo::tables`]); each row has one value per
    /// column.
    fn rows(&self, name: &str) -> Vec<Vec<Value>>;
    /// Extra status variables, (name, value); a name the SQL layer also reports replaces its
    /// value.
    fn status(&self) -> Vec<(String, String)>;
    /// The rows of `SHOW ENGINE <engine> STATUS` (upper-case `engine`) for an engine the server
    /// owns (`ROCKSDB`: RocksDB's own statistics text), as (Type, Name, Status); None when it
    /// has none.
    fn engine_status(&self, _engine: &str) -> Option<Vec<(String, String, String)>> {
        None
    }
}
