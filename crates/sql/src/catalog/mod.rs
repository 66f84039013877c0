//! Stage 3, **catalog**: what the SQL layer knows of tables beyond the storage dictionary —
//! index statistics from ANALYZE TABLE ([`stats`]), the partitioning model: routing, pruning
//! and the validation of a PARTITION BY clause ([`partition`]; the clause's syntax is
//! [`crate::parse::partition`]'s), and each session's TEMPORARY tables ([`temporary`]).
//!
//! May use: [`crate::runtime`], [`crate::parse`], [`crate::ir`]. `partition` still holds the
//! partition-maintenance statements (ALTER TABLE … PARTITION), which use later stages.

pub mod partition;
pub mod stats;
pub mod temporary;
