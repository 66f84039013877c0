//! **ddl**, statements that change definitions: CREATE / DROP of databases, tables and
//! indexes, TRUNCATE ([`table`]), ALTER TABLE and RENAME TABLE ([`alter`]), views ([`view`])
//! and CHECK TABLE ([`checktable`]); CHECK constraints' definitions ([`check`]); generated
//! columns' definitions ([`generated`]) and the hidden ones of functional key parts
//! ([`functional`]); FOREIGN KEY rules of DDL ([`foreign_key`]); the declared types of stored routines ([`routine`]).
//!
//! May use: every query stage and [`crate::dml`] (ALTER TABLE copies rows).

pub mod alter;
pub mod check;
pub mod checktable;
pub mod foreign_key;
pub mod functional;
pub mod generated;
pub mod routine;
pub mod table;
pub mod view;
