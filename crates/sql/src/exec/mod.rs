//! Stage 6, **exec**: running a bound, planned query — reading a table ([`fetch`]), joins
//! ([`join`]; past `join_buffer_size` a hash join's table is partitioned to disk, [`hash_spill`]), aggregation ([`aggregate`]), window functions ([`window`]), sorting ([`sort`]; an external sort that spills to temporary files, [`sorter`] and [`spill`]),
//! a SELECT block end to end ([`select`]), a block streamed row by row to the client ([`stream`]), a record of the reads made, for EXPLAIN ANALYZE and the plan check ([`trace`])
//! and query expressions above blocks ([`query`]).
//!
//! May use: every stage before it.

pub mod aggregate;
pub mod fetch;
pub mod hash_spill;
pub mod join;
pub mod materialize;
pub mod query;
pub mod select;
pub mod sort;
pub mod sorter;
pub mod spill;
pub mod stream;
#[cfg(test)]
pub(crate) mod test_client;
pub mod trace;
pub mod window;
pub mod window_stream;
