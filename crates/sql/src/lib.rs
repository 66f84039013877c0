//! Strata's SQL layer, a pipeline of stages, one folder each, whose dependencies point one
//! way (the order below; `layering`'s test fails when a module imports from a later stage,
//! apart from the edges it lists as still to remove):
//!
//! | stage | owns |
//! |---|---|
//! | [`runtime`] | system variables, metadata and user locks, statement limits, server facts |
//! | [`parse`] | SQL text → syntax trees (sqlparser + MySQL extensions), literal templates |
//! | [`ir`] | the bound representation: expressions, SELECT blocks, query expressions |
//! | [`catalog`] | index statistics, the partitioning model and pruning |
//! | [`bind`] | syntax trees → IR: names, types, scopes, subqueries |
//! | [`plan`] | access paths, join order, EXPLAIN |
//! | [`exec`] | running queries: fetch, join, aggregate, window, sort, set operations |
//! | [`dml`] | INSERT / REPLACE / UPDATE / DELETE / LOAD DATA |
//! | [`ddl`] | CREATE / ALTER / DROP / RENAME / TRUNCATE, views, CHECK TABLE |
//! | [`acl`] | accounts, grants, the privilege check |
//! | [`show`] | SHOW, DESCRIBE, INFORMATION_SCHEMA and the system schemas |
//! | [`session`] | instance and session state, transactions, plans of prepared statements |
//! | [`program`] | stored procedures and functions: DDL, CALL, the body interpreter |
//! | [`dispatch`] | commands from the client, statement routing under the transaction rules, SET |
//!
//! The value semantics (conversions, comparisons, arithmetic, built-in functions) live in the
//! `func` crate; storage (catalog, transactions, rows) in `storage`. This crate must not depend
//! on the protocol layer or on a concrete storage engine.
//!
//! Entry points: [`Instance`] (shared state) and [`Session`] (one per connection), whose
//! `query`/`prepare`/`execute` methods the server calls.

pub mod acl;
pub mod bind;
pub mod catalog;
pub mod ddl;
pub mod dispatch;
pub mod dml;
pub mod exec;
pub mod ir;
pub mod parse;
pub mod plan;
pub mod program;
pub mod runtime;
pub mod session;
pub mod show;

#[cfg(test)]
mod golden;
#[cfg(test)]
mod layering;

pub use session::session::{Instance, Output, Session};
