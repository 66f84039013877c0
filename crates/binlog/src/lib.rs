//! MySQL 8.4's binary log format for Strata: event codecs, row images, GTIDs and binlog files.
//!
//! `binlog` owns the bytes: it encodes and decodes v4 binlog events exactly as MySQL 8.4 writes
//! them (CRC32 checksums, ROW format with full images, GTIDs), and manages a directory of
//! binlog files with their index. It knows nothing of the server, the SQL layer or storage: it
//! depends on no Strata crate but [`common`] (for the error conversion), and callers describe
//! tables and values with this crate's own neutral types.
//!
//! Key types:
//! - [`Event`] / [`decode_event`]: every event this crate writes or reads —
//!   [`FormatDescriptionEvent`], [`GtidEvent`], PREVIOUS_GTIDS ([`GtidSet`]), [`QueryEvent`]
//!   (with [`StatusVars`]), [`TableMapEvent`], [`RowsEvent`], XID, [`RotateEvent`], STOP,
//!   HEARTBEAT — with [`EventHeader`] / [`EventMeta`] framing in [`event::header`].
//! - [`ColumnDef`] / [`ColumnType`]: a column as TABLE_MAP describes it; [`RowValue`]: one value
//!   of a row image; [`row`]: the per-type row encodings (DECIMAL, TIME2/DATETIME2/TIMESTAMP2,
//!   strings, BIT, ENUM/SET, …); [`JsonValue`] with MySQL's binary JSON in [`json`].
//! - [`Uuid`], [`GtidSet`]: GTIDs in MySQL's text and binary forms.
//! - [`TransactionBuilder`] → [`PendingTransaction`] → [`Transaction`]: one transaction's
//!   events (GTID, then a DDL QUERY, or BEGIN + TABLE_MAPs + row events + XID).
//! - [`BinlogFiles`]: the `binlog.NNNNNN` files and `binlog.index` of a directory — create,
//!   append, rotate, list, purge, recover a torn tail, compute the GTIDs present;
//!   [`BinlogReader`] iterates a file's events from a position.
//!
//! Positions: encoders leave `log_pos` as the caller's [`EventMeta`] says (0 by default) and
//! [`BinlogFiles::append`] stamps each event with its end offset and recomputes its CRC32, so a
//! transaction can be built before its place in the file is known.
#![warn(missing_docs)]

pub mod bytes;
pub mod column;
pub mod error;
pub mod event;
pub mod files;
pub mod gtid;
pub mod json;
pub mod row;
pub mod trx;
pub mod value;

pub use column::{ColumnDef, ColumnType};
pub use error::{BinlogError, Result};
pub use event::{
    decode_event, DecodedEvent, Event, EventHeader, EventMeta, FormatDescriptionEvent, GtidEvent,
    QueryEvent, RotateEvent, RowChange, RowMetadata, RowsEvent, RowsKind, StatusVars,
    TableMapEvent,
};
pub use files::{BinlogConfig, BinlogFileInfo, BinlogFiles, BinlogReader, RecoveryReport};
pub use gtid::{GtidSet, Uuid};
pub use json::JsonValue;
pub use trx::{PendingTransaction, Transaction, TransactionBuilder};
pub use value::{Date, DateTime, RowValue, Time, Timestamp};
