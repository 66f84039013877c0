//! **ddl**, statements that change definitions: CREATE / DROP of databases, tables and
//! indexes, TRUNCATE ([`table`]), ALTER TABLE and RENAME TABLE ([`alter`]), views ([`view`])
//! and CHECK TABLE ([`checktable`]); CHECK constraints' definitions ([`check`]); generated
//! columns' definitions ([`generated`]); the declared types of stored routines ([`routine`]).
//!
//! May use: every query stage and [`crate::dml`] (ALTER TABLE copies rows).

pub mod alter;
pub mod check;
pub mod checktable;
pub mod generated;
pub mod routine;
pub mod table;
pub mod view;
