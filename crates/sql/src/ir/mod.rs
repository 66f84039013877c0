//! Stage 2, **ir**: the bound intermediate representation that binder, planner and executor
//! share — expressions ([`expr::Expr`], evaluated with MySQL semantics), SELECT blocks
//! ([`block::Plan`]) and query expressions above them ([`query::Query`], subqueries, CTEs);
//! stored routines compiled for running ([`routine::Routine`]).
//!
//! May use: [`crate::runtime`], [`crate::parse`]. Evaluating a subquery or a stored view
//! still calls into the executor (see the layering test's list); a stored function call is
//! evaluated by the executor through the session's program hooks.

pub mod block;
pub mod expr;
pub mod query;
pub mod routine;
pub mod scope;
