//! **show**: SHOW statements, DESCRIBE, and the INFORMATION_SCHEMA / `mysql` /
//! `performance_schema` virtual tables, built on demand from the catalog so queries against
//! them run through the normal SELECT stages ([`show`]); performance_schema's statement
//! tables ([`perfschema`]) and SHOW ENGINE … STATUS ([`engine_status`]); the binary log's
//! SHOW, FLUSH, PURGE and RESET statements ([`binlog`]); how CHECK
//! constraints and TEMPORARY tables show ([`constraints`]).
//!
//! May use: every stage before it (runtime … acl).

pub mod binlog;
pub mod constraints;
pub mod engine_status;
pub mod perfschema;
pub mod show;
