//! **dispatch**, the last stage: what the server calls. Commands from the client
//! ([`command`]: COM_QUERY, COM_STMT_PREPARE / EXECUTE / CLOSE), one statement under MySQL's
//! transaction rules routed to the stage that runs it ([`statement`]), SET ([`set`]), and
//! `read_only` / `super_read_only` and transaction access modes ([`read_only`]), LOCK TABLES
//! ([`lock_tables`]), the statements' entries in the slow and general query logs ([`querylog`]), their
//! performance_schema events and digests ([`perfschema`]) and the status counters each
//! statement moves ([`com`]).
//! These are methods of [`crate::session::session::Session`], whose state lives in `session/`.
//!
//! May use: every other stage.

pub mod com;
pub mod command;
pub mod lock_tables;
pub mod perfschema;
pub mod querylog;
pub mod read_only;
pub mod set;
pub mod statement;
