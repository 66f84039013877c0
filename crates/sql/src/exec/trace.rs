//! A record of how each table was actually read, for the tests that check execution ran the
//! plan EXPLAIN printed (`golden.rs`): one entry per table read — its name in the block,
//! EXPLAIN's `type` and `key` for the read as executed (a read that could not use its key
//! ranges shows as a full scan). Recording is on only in tests, and only while a test has
//! started it on its thread; in the server the calls compile to nothing.

use storage::catalog::TableDef;

use crate::plan::physical::TableRead;

/// One table read as executed: (table name or alias, EXPLAIN type, key).
pub type Entry = (String, &'static str, Option<String>);

#[cfg(test)]
thread_local! {
    static TRACE: std::cell::RefCell<Option<Vec<Entry>>> = const { std::cell::RefCell::new(None) };
}

/// Records that `name` (table `t`) was read through `read`; `planned` false when the key
/// ranges could not be built and the table was scanned whole.
#[inline]
pub fn read(name: &str, t: &TableDef, read: &TableRead, planned: bool) {
    #[cfg(test)]
    TRACE.with(|tr| {
        if let Some(v) = tr.borrow_mut().as_mut() {
            let (ty, key) = if planned {
                read.fingerprint(t)
            } else {
                ("ALL", None)
            };
            v.push((name.to_string(), ty, key));
        }
    });
    #[cfg(not(test))]
    let _ = (name, t, read, planned);
}

/// Starts recording on this thread (dropping what was recorded).
#[cfg(test)]
pub fn start() {
    TRACE.with(|tr| *tr.borrow_mut() = Some(Vec::new()));
}

/// Stops recording and returns the entries.
#[cfg(test)]
pub fn take() -> Vec<Entry> {
    TRACE.with(|tr| tr.borrow_mut().take().unwrap_or_default())
}
