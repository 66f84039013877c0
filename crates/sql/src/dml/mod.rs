//! **dml**, statements that change rows, built on the query stages: single-table INSERT /
//! REPLACE / UPDATE / DELETE ([`single`]), multi-table UPDATE and DELETE ([`multi`]),
//! LOAD DATA ([`load`]), EXPLAIN of single-table changes ([`explain`]) and the CHECK
//! constraints every written row must meet ([`check`]); generated columns computed on write
//! ([`generated`]).
//!
//! May use: every query stage (runtime … exec).

pub mod check;
pub mod explain;
pub mod generated;
pub mod load;
pub mod multi;
pub mod single;
