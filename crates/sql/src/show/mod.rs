//! **show**: SHOW statements, DESCRIBE, and the INFORMATION_SCHEMA / `mysql` /
//! `performance_schema` virtual tables, built on demand from the catalog so queries against
//! them run through the normal SELECT stages ([`show`]).
//!
//! May use: every stage before it (runtime … acl).

pub mod show;
