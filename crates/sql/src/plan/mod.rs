//! Stage 5, **plan**: how a bound query is run, decided before any row is read — the access
//! path of each table ([`access`]: primary-key points, IN lists, index ranges, full scans,
//! from the WHERE conjuncts and ANALYZE TABLE statistics), the join order ([`join_order`]),
//! the physical plan of a block that the executor runs ([`physical`]: each table's read,
//! each join step's method and conditions) and EXPLAIN, which prints that plan ([`explain`]).
//!
//! May use: every stage before it.

pub mod access;
pub mod explain;
pub mod join_order;
pub mod physical;
