//! **show**: SHOW statements, DESCRIBE, and the INFORMATION_SCHEMA / `mysql` /
//! `performance_schema` virtual tables, built on demand from the catalog so queries against
//! them run through the normal SELECT stages ([`show`]); performance_schema's statement
//! tables ([`perfschema`]) and SHOW ENGINE … STATUS ([`engine_status`]); the binary log's
//! SHOW, FLUSH, PURGE and RESET statements ([`binlog`]); the replica's CHANGE REPLICATION
//! SOURCE, START / STOP / RESET REPLICA and SHOW REPLICA STATUS ([`replica`]); how CHECK
//! constraints and TEMPORARY tables show ([`constraints`]); INFORMATION_SCHEMA.INNODB_TABLES and
//! INNODB_TABLESPACES ([`innodb`]); `mysql.innodb_table_stats` / `innodb_index_stats`
//! ([`innodb_stats`]); the empty lists of loadable functions, `mysql.func` and
//! `performance_schema.user_defined_functions` ([`udf`]); the empty
//! `performance_schema.replication_connection_configuration` ([`replica_config`]); stored routines' SHOW statements
//! and INFORMATION_SCHEMA.ROUTINES / PARAMETERS ([`routines`]).
//!
//! May use: every stage before it (runtime … acl).

pub mod binlog;
pub mod constraints;
pub mod engine_status;
pub mod innodb;
pub mod innodb_stats;
pub mod perfschema;
pub mod replica;
pub mod replica_config;
pub mod routines;
pub mod show;
pub mod udf;
