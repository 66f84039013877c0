//! Stage 3, **catalog**: what the SQL layer knows of tables beyond the storage dictionary —
//! index statistics from ANALYZE TABLE ([`stats`]) and the partitioning model: routing, pruning
//! and the PARTITION BY clause ([`partition`]).
//!
//! May use: [`crate::runtime`], [`crate::parse`], [`crate::ir`]. `partition` still holds the
//! partition-maintenance statements (ALTER TABLE … PARTITION), which use later stages.

pub mod partition;
pub mod stats;
