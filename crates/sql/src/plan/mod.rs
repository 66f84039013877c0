//! Stage 5, **plan**: how a bound query is run — the access path of each table
//! ([`access`]: primary-key points, IN lists, index ranges, full scans, from the WHERE
//! conjuncts and ANALYZE TABLE statistics), the join order ([`join_order`]) and EXPLAIN
//! ([`explain`]).
//!
//! May use: every stage before it. Today the executor still asks for the access path and
//! the join order while it reads rows; making the plan a value built before execution (and
//! the one EXPLAIN prints) is the open part of this stage.

pub mod access;
pub mod explain;
pub mod join_order;
