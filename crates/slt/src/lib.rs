//! `slt`: an over-the-wire [sqllogictest] runner for MySQL-compatible servers.
//!
//! It reads scripts in the classic SQLite sqllogictest format (`statement ok|error`,
//! `query <types> <sort> [label]`, `hash-threshold`, `halt`, `skipif`/`onlyif` conditions),
//! runs them against a server over the MySQL protocol (text protocol, one connection and one
//! fresh database per file), and checks the results exactly as the original `sqllogictest`
//! program does with its ODBC engine: values are rendered by column type (`I`, `R`, `T`),
//! sorted per the record's sort mode, and compared as lists or as MD5 hashes.
//!
//! Modules:
//! * [`parser`] — the file format;
//! * [`format`] — value rendering, sorting, hashing and comparison;
//! * [`client`] — the MySQL session with its `KILL QUERY` watchdog and reconnects;
//! * [`runner`] — running one file and collecting failures;
//! * [`report`] — progress lines, totals, the fail log and the markdown summary.
//!
//! The `strata-slt` binary (src/main.rs) is the command-line front end.
//!
//! [sqllogictest]: https://www.sqlite.org/sqllogictest/

pub mod client;
pub mod format;
pub mod parser;
pub mod report;
pub mod runner;
