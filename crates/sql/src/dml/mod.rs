//! **dml**, statements that change rows, built on the query stages: single-table INSERT /
//! REPLACE / UPDATE / DELETE ([`single`]), multi-table UPDATE and DELETE ([`multi`]),
//! LOAD DATA ([`load`]; into empty tables [`bulk_load`]), EXPLAIN of single-table changes
//! ([`explain`]) and the CHECK
//! constraints every written row must meet ([`check`]); generated columns computed on write
//! ([`generated`]); FOREIGN KEY checks and cascades ([`foreign_key`]); the row alias of INSERT … AS new ON DUPLICATE KEY UPDATE ([`row_alias`]).
//!
//! May use: every query stage (runtime … exec).

pub mod bulk_load;
pub mod check;
pub mod explain;
pub mod foreign_key;
pub mod generated;
pub mod load;
pub mod multi;
pub mod row_alias;
pub mod single;
