//! **dml**, statements that change rows, built on the query stages: single-table INSERT /
//! REPLACE / UPDATE / DELETE ([`single`]), multi-table UPDATE and DELETE ([`multi`]) and
//! LOAD DATA ([`load`]).
//!
//! May use: every query stage (runtime … exec).

pub mod load;
pub mod multi;
pub mod single;
