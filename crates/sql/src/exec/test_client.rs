//! For tests: a client that records the column names and rows a statement streams to it.

use common::client::{Client, RowSink};
use common::{ColumnMeta, Result, Value};

/// Records what is streamed to it (values as text).
#[derive(Default)]
pub(crate) struct Recorder {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl RowSink for Recorder {
    fn columns(&mut self, columns: Vec<ColumnMeta>, _status: u16) -> Result<()> {
        self.columns = columns.iter().map(|c| c.name.clone()).collect();
        Ok(())
    }
    fn row(&mut self, row: &[Value]) -> Result<()> {
        self.rows.push(row.iter().map(|v| v.to_string()).collect());
        Ok(())
    }
}

impl Client for Recorder {
    fn open(&mut self, _: &str) -> Result<Box<dyn std::io::Read + '_>> {
        Err(common::client::local_files_disabled())
    }
    fn rows(&mut self) -> Option<&mut dyn RowSink> {
        Some(self)
    }
}
