//! **session**: the shared [`session::Instance`] and the per-connection [`session::Session`]
//! (current database, variables, transaction, warnings, prepared statements) and statement
//! dispatch with MySQL's transaction rules. The last stage: it may use every other one.

pub mod session;
