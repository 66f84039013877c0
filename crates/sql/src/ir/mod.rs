//! Stage 2, **ir**: the bound intermediate representation that binder, planner and executor
//! share — expressions ([`expr::Expr`], evaluated with MySQL semantics), SELECT blocks
//! ([`block::Plan`]) and query expressions above them ([`query::Query`], subqueries, CTEs).
//!
//! May use: [`crate::runtime`], [`crate::parse`]. Evaluating a subquery or a stored view
//! still calls into the executor (see the layering test's list).

pub mod block;
pub mod expr;
pub mod query;
pub mod scope;
