//! Strata's SQL layer: parsing (sqlparser plus MySQL extensions), binding, access-path
//! selection, execution of DDL/DML/queries, sessions with MySQL transaction semantics, system
//! variables, SHOW statements and INFORMATION_SCHEMA.
//!
//! The value semantics (conversions, comparisons, arithmetic, built-in functions) live in the
//! `func` crate; storage (catalog, transactions, rows) in `storage`. This crate must not depend
//! on the protocol layer or on a concrete storage engine.
//!
//! Entry points: [`session::Instance`] (shared state) and [`session::Session`] (one per
//! connection), whose `query`/`prepare`/`execute` methods the server calls.

pub mod access;
pub mod acl;
pub mod acl_check;
pub mod acl_stmt;
pub mod alter;
pub mod checktable;
pub mod ddl;
pub mod dialect;
pub mod dml;
pub mod expr;
pub mod info;
pub mod limits;
pub mod literal_rows;
pub mod load;
pub mod mdl;
pub mod multi;
pub mod parser;
pub mod partition;
pub mod query;
pub mod select;
pub mod session;
pub mod show;
pub mod stats;
pub mod stmt_cache;
pub mod sysvars;
pub mod userlock;
pub mod view;
pub mod window;

pub use session::{Instance, Output, Session};
