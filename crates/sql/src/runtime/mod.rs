//! Stage 0, **runtime**: what every statement runs under, whatever its kind — system
//! variables ([`sysvars`]), metadata locks ([`mdl`]), user-level locks ([`userlock`]), the
//! per-statement memory and time limits ([`limits`]), the server facts the SQL layer shows
//! but does not own ([`info`]), the slow and general query logs' files ([`querylog`]), status
//! counters ([`status`]) and performance_schema's statement instrumentation ([`perfschema`],
//! with MySQL's statement digests in [`digest`]).
//!
//! May use: `common`, `func`, `storage`. Nothing else of this crate.

pub mod digest;
pub mod info;
pub mod limits;
pub mod mdl;
pub mod perfschema;
pub mod querylog;
pub mod schemas;
pub mod status;
pub mod sysvars;
pub mod userlock;
