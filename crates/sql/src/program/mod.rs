//! **program**: stored programs at run time, between the session and dispatch stages:
//! CREATE / ALTER / DROP of procedures and functions into the dictionary with MySQL's checks
//! ([`ddl`]); CALL, a stored function's call from an expression, their arguments, OUT
//! parameters, recursion limits and definer rights ([`call`]); the interpreter of compiled
//! bodies (`crate::parse::compound::Program`): blocks, variables, control flow, cursors and
//! handlers ([`interp`]); SIGNAL / RESIGNAL and how an error or warning matches a handler's
//! condition ([`signal`]).
//!
//! The statements of a body are parsed once (in `crate::parse::compound`) and run through the
//! normal stages by `crate::dispatch`, reached through the session's program hooks
//! (`crate::session::program::ProgramHooks`), which dispatch installs; the executor reaches
//! [`call::call_function`] the same way.
//!
//! May use: every stage before it (runtime … session).

pub mod call;
pub mod ddl;
pub mod interp;
pub mod signal;
