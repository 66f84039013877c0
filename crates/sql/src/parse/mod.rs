//! Stage 1, **parse**: SQL text → syntax trees. sqlparser with MySQL's extensions
//! ([`parser`], [`dialect`] rewrites), table maintenance statements ([`maintenance`]), LOAD DATA ([`load`]), the literal templates of repeated statement texts
//! ([`stmt_cache`]) and the fast path for bulk INSERT rows of one shape ([`literal_rows`]).
//!
//! May use: [`crate::runtime`]. Still using later stages (listed by the layering test in
//! `crate::layering`): the parser calls the statement parsers that live with their executors
//! (ALTER, partitioning, account statements); moving those syntax
//! trees here is open work.

pub mod dialect;
pub mod literal_rows;
pub mod load;
pub mod maintenance;
pub mod parser;
pub mod stmt_cache;
