//! **dml**, statements that change rows, built on the query stages: single-table INSERT /
//! REPLACE / UPDATE / DELETE ([`single`]), multi-table UPDATE and DELETE ([`multi`]),
//! LOAD DATA ([`load`]) and EXPLAIN of single-table changes ([`explain`]).
//!
//! May use: every query stage (runtime … exec).

pub mod explain;
pub mod load;
pub mod multi;
pub mod single;
