//! The seam through which a running statement reaches the client connection, without the SQL
//! layer depending on the protocol layer or the other way round:
//! - `LOAD DATA LOCAL INFILE` reads a file that lives on the client: the SQL layer asks for a
//!   file by name, the protocol layer sends the LOCAL INFILE request (0xFB) and streams the
//!   packets the client answers with ([`Client::open`]);
//! - a result set can be sent while it is produced ([`Client::rows`]): the executor hands each
//!   row to the protocol layer, which encodes it into the socket's buffer, so a statement that
//!   reads a whole table to the client holds one row at a time, not the result.

use std::io::Read;

use crate::{ColumnMeta, Result, Value};

/// What a statement can reach of the client connection it runs for.
pub trait Client {
    /// Asks the client for `name` and returns a reader of its contents; the reader ends where
    /// the client's transfer ends. Dropping the reader before its end discards the rest of the
    /// transfer, so the connection stays usable. Fails (MySQL error 3948) when the client did
    /// not enable local files.
    fn open(&mut self, name: &str) -> Result<Box<dyn Read + '_>>;

    /// Where the rows of this statement's result set may be sent as they are produced; `None`
    /// when the result must be returned whole (statements run internally, a statement of a
    /// multi-statement text).
    fn rows(&mut self) -> Option<&mut dyn RowSink> {
        None
    }
}

/// A result set sent while it is produced: [`RowSink::columns`] once, then
/// [`RowSink::row`] per row. The caller ends the result set (EOF or OK packet, or an error
/// packet when the statement fails after rows were sent) once the statement is over.
pub trait RowSink {
    /// Sends the column count and definitions (kept to encode the rows); `status` is the
    /// server status of the packet that may follow them (`SERVER_STATUS_*` flags).
    fn columns(&mut self, columns: Vec<ColumnMeta>, status: u16) -> Result<()>;
    /// Sends one row (one value per column, in column order). Fails with 1160/1161 when the
    /// connection cannot be written (the client went away or stopped reading).
    fn row(&mut self, row: &[Value]) -> Result<()>;
}

/// No client connection (statements run internally): every file request fails with 3948 and
/// results are returned whole.
pub struct NoClient;

impl Client for NoClient {
    fn open(&mut self, _name: &str) -> Result<Box<dyn Read + '_>> {
        Err(local_files_disabled())
    }
}

/// MySQL's error 3948 for a LOCAL load the client or server does not allow.
pub fn local_files_disabled() -> crate::Error {
    crate::Error::new(
        crate::codes::ER_CLIENT_LOCAL_FILES_DISABLED,
        "Loading local data is disabled; this must be enabled on both the client and server sides",
    )
}
