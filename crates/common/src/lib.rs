//! Types shared by every Strata crate.
//!
//! `common` owns the vocabulary the layers speak: [`Value`] (a runtime SQL value),
//! [`DataType`] (a declared column type), the MySQL temporal types in [`time`],
//! [`ColumnMeta`] (what a result set column looks like to the client) and the MySQL error
//! model ([`Error`], [`ErrorCode`], the table in [`codes`]), and the thread-local wait-callback
//! API in [`wait`] that blocking code at every layer reports to (the thread pool listens).
//!
//! It must not depend on any other Strata crate, on the storage engine, or on the SQL parser.
#![warn(missing_docs)]

pub mod client;
pub mod codes;
pub mod collation;
pub mod decimal;
pub mod error;
pub mod time;
pub mod types;
pub mod value;
pub mod wait;

pub use codes::ErrorCode;
pub use decimal::Decimal;
pub use error::{Error, Level, Result, Warning};
pub use types::{Collation, ColumnMeta, DataType};
pub use value::Value;
