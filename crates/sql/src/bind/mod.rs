//! Stage 4, **bind**: syntax trees → the bound IR. Names are resolved to tables and column
//! offsets, expressions typed ([`expr`]), SELECT blocks bound with their joins, grouping,
//! windows, ordering and limits ([`select`]), set operations, CTEs and subqueries bound with
//! their correlation ([`query`]), select-list column names taken from the text
//! ([`source_text`]); indexed generated columns' expressions in WHERE replaced by the columns
//! ([`gcol_subst`]).
//!
//! May use: [`crate::runtime`], [`crate::parse`], [`crate::ir`], [`crate::catalog`]. Session
//! facts come through [`expr::BindEnv`]; the block binder still takes the session itself.

pub mod expr;
pub mod gcol_subst;
pub mod hints;
pub mod query;
pub mod select;
pub mod source_text;
