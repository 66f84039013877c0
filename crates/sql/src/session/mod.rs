//! **session**: the shared [`session::Instance`] and the per-connection [`session::Session`]
//! state (current database, variables, transaction and its commit / rollback, metadata locks,
//! warnings, prepared statements and their cached plans). Statement dispatch is in
//! [`crate::dispatch`].
//!
//! May use: every stage before it.

pub mod session;
