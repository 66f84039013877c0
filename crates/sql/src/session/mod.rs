//! **session**: the shared [`session::Instance`] and the per-connection [`session::Session`]
//! state (current database, variables, transaction and its commit / rollback, metadata locks,
//! warnings, prepared statements and their cached plans); stored programs' compiled-routine
//! cache and per-session call state ([`program`]). Statement dispatch is in
//! [`crate::dispatch`].
//!
//! May use: every stage before it.

pub mod program;
pub mod session;
