//! MySQL value semantics for Strata: pure functions of [`common::Value`]s.
//!
//! * [`convert`] — implicit conversions (`to_i64`, `to_f64`, `to_datetime`, ...) and `CAST`.
//! * [`store`] — normalising a value for a column type (range checks, truncation, strict mode).
//! * [`compare`] — comparison with MySQL's coercion rules, `<=>`, and hash keys for grouping.
//! * [`arith`] — `+ - * / DIV %`, unary minus and `date ± INTERVAL`.
//! * [`scalar`] — built-in scalar functions by name (`call`), plus `LIKE` matching.
//! * [`datefn`] — the date/time functions behind `call` (DATE_FORMAT, STR_TO_DATE, WEEK...).
//! * [`pattern`] — `LIKE` matching and regular expression construction.
//! * [`types`] — static result types of expressions for column metadata.
//! * [`crypt`] — AES_ENCRYPT/AES_DECRYPT and COMPRESS/UNCOMPRESS.
//! * [`gtid`] — GTID set arithmetic (GTID_SUBSET, GTID_SUBTRACT).
//! * [`temporal`] — calendar arithmetic and temporal literal parsing shared by the above.
//! * [`json`] — JSON text validation and MySQL's canonical JSON rendering.
//! * [`weight`] — WEIGHT_STRING: binary sort keys of values.
//! * [`jsonfn`] — the JSON functions (JSON_EXTRACT, JSON_SET, JSON_SEARCH...) and JSON paths.
//!
//! Nothing here touches storage, sessions or the parser: the SQL layer evaluates expressions and
//! calls these functions with already-evaluated arguments.

pub mod arith;
pub mod compare;
pub mod convert;
pub mod crypt;
pub mod datefn;
pub mod gtid;
pub mod json;
pub mod json_order;
pub mod jsonfn;
pub mod pattern;
pub mod scalar;
pub mod store;
pub mod temporal;
pub mod types;
pub mod weight;

pub use arith::{binary_op, date_add, negate, ArithCtx, ArithOp, IntervalUnit};
pub use compare::{compare, eq_null_safe, hash_key, sort_cmp};
pub use convert::{
    cast, to_bool, to_date, to_datetime, to_decimal, to_f64, to_i64, to_string_value, to_time,
    to_u64, CastTarget,
};
pub use scalar::{call, like, FnCtx};
pub use store::store;
pub use types::{arith_type, cast_type, return_type, type_of_column, type_of_value, ExprType};
