//! Binlog events: the [`Event`] enum over every event this crate writes or reads, with
//! [`Event::encode`] (header + body + CRC32) and [`decode_event`] (checksum verified).

mod control;
mod fde;
mod gtid;
pub mod header;
mod query;
mod rows;
mod table_map;
mod table_meta;

pub use control::RotateEvent;
pub use fde::{
    version_number, FormatDescriptionEvent, CHECKSUM_CRC32, CHECKSUM_OFF, MYSQL_84_POST_HEADER_LENS,
};
pub use gtid::{GtidEvent, FLAG_MAY_HAVE_SBR};
pub use header::{EventHeader, EventMeta, BINLOG_MAGIC, CHECKSUM_LEN, HEADER_LEN};
pub use query::{
    QueryEvent, StatusVars, DEFAULT_SQL_MODE, OPTION_AUTO_IS_NULL, OPTION_NOT_AUTOCOMMIT,
    OPTION_NO_FOREIGN_KEY_CHECKS, OPTION_RELAXED_UNIQUE_CHECKS,
};
pub use rows::{
    RowChange, RowsEvent, RowsKind, COMPLETE_ROWS_F, NO_FOREIGN_KEY_CHECKS_F,
    RELAXED_UNIQUE_CHECKS_F, STMT_END_F,
};
pub use table_map::{RowMetadata, TableMapEvent, TM_BIT_LEN_EXACT_F};

use crate::error::{BinlogError, Result};
use crate::gtid::GtidSet;

/// Event type codes.
pub mod types {
    /// QUERY_EVENT.
    pub const QUERY: u8 = 2;
    /// STOP_EVENT.
    pub const STOP: u8 = 3;
    /// ROTATE_EVENT.
    pub const ROTATE: u8 = 4;
    /// FORMAT_DESCRIPTION_EVENT.
    pub const FORMAT_DESCRIPTION: u8 = 15;
    /// XID_EVENT.
    pub const XID: u8 = 16;
    /// TABLE_MAP_EVENT.
    pub const TABLE_MAP: u8 = 19;
    /// HEARTBEAT_LOG_EVENT.
    pub const HEARTBEAT: u8 = 27;
    /// WRITE_ROWS_EVENT (v2).
    pub const WRITE_ROWS: u8 = 30;
    /// UPDATE_ROWS_EVENT (v2).
    pub const UPDATE_ROWS: u8 = 31;
    /// DELETE_ROWS_EVENT (v2).
    pub const DELETE_ROWS: u8 = 32;
    /// GTID_LOG_EVENT.
    pub const GTID: u8 = 33;
    /// ANONYMOUS_GTID_LOG_EVENT.
    pub const ANONYMOUS_GTID: u8 = 34;
    /// PREVIOUS_GTIDS_LOG_EVENT.
    pub const PREVIOUS_GTIDS: u8 = 35;
}

/// A decoded binlog event body.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// FORMAT_DESCRIPTION_EVENT.
    FormatDescription(FormatDescriptionEvent),
    /// PREVIOUS_GTIDS_LOG_EVENT: the GTIDs of all earlier files.
    PreviousGtids(GtidSet),
    /// GTID_LOG_EVENT.
    Gtid(GtidEvent),
    /// ANONYMOUS_GTID_LOG_EVENT.
    AnonymousGtid(GtidEvent),
    /// QUERY_EVENT.
    Query(QueryEvent),
    /// TABLE_MAP_EVENT.
    TableMap(TableMapEvent),
    /// WRITE/UPDATE/DELETE_ROWS_EVENT v2.
    Rows(RowsEvent),
    /// XID_EVENT: the commit of a transaction, with its XID.
    Xid(u64),
    /// ROTATE_EVENT.
    Rotate(RotateEvent),
    /// STOP_EVENT.
    Stop,
    /// HEARTBEAT_LOG_EVENT: the current file name.
    Heartbeat(String),
    /// Any other event, undecoded.
    Other {
        /// The type code.
        type_code: u8,
        /// The body bytes.
        body: Vec<u8>,
    },
}

/// An event with its common header.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedEvent {
    /// The common header.
    pub header: EventHeader,
    /// The body.
    pub event: Event,
}

impl Event {
    /// The event type code.
    pub fn type_code(&self) -> u8 {
        match self {
            Event::FormatDescription(_) => types::FORMAT_DESCRIPTION,
            Event::PreviousGtids(_) => types::PREVIOUS_GTIDS,
            Event::Gtid(_) => types::GTID,
            Event::AnonymousGtid(_) => types::ANONYMOUS_GTID,
            Event::Query(_) => types::QUERY,
            Event::TableMap(_) => types::TABLE_MAP,
            Event::Rows(r) => r.kind.type_code(),
            Event::Xid(_) => types::XID,
            Event::Rotate(_) => types::ROTATE,
            Event::Stop => types::STOP,
            Event::Heartbeat(_) => types::HEARTBEAT,
            Event::Other { type_code, .. } => *type_code,
        }
    }

    /// Appends the body (between header and checksum).
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] when a field cannot be encoded (names too long, …).
    pub fn encode_body(&self, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Event::FormatDescription(f) => f.encode_body(out),
            Event::PreviousGtids(s) => s.encode(out),
            Event::Gtid(g) | Event::AnonymousGtid(g) => g.encode_body(out),
            Event::Query(q) => q.encode_body(out)?,
            Event::TableMap(t) => t.encode_body(out)?,
            Event::Rows(r) => r.encode_body(out)?,
            Event::Xid(x) => control::encode_xid(*x, out),
            Event::Rotate(r) => r.encode_body(out),
            Event::Stop => {}
            Event::Heartbeat(name) => out.extend_from_slice(name.as_bytes()),
            Event::Other { body, .. } => out.extend_from_slice(body),
        }
        Ok(())
    }

    /// The complete event with a CRC32 footer (this crate always writes `binlog_checksum=CRC32`).
    ///
    /// # Errors
    /// As [`Event::encode_body`].
    pub fn encode(&self, meta: &EventMeta) -> Result<Vec<u8>> {
        let mut body = Vec::new();
        self.encode_body(&mut body)?;
        Ok(header::frame_event(self.type_code(), meta, &body, true))
    }

    /// The name SHOW BINLOG EVENTS prints in `Event_type`.
    pub fn type_name(&self) -> &'static str {
        type_name(self.type_code())
    }

    /// The `Info` column of SHOW BINLOG EVENTS, as MySQL formats it.
    pub fn info(&self) -> String {
        match self {
            Event::FormatDescription(f) => {
                format!(
                    "Server ver: {}, Binlog ver: {}",
                    f.server_version, f.binlog_version
                )
            }
            Event::PreviousGtids(s) => s.to_string(),
            Event::Gtid(g) => format!("SET @@SESSION.GTID_NEXT= '{}:{}'", g.uuid, g.gno),
            Event::AnonymousGtid(_) => "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'".to_string(),
            Event::Query(q) => {
                let mut s = String::new();
                if !q.schema.is_empty() {
                    s.push_str(&format!("use `{}`; ", q.schema));
                }
                s.push_str(&q.query_text());
                if let Some(x) = q.status.ddl_xid {
                    s.push_str(&format!(" /* xid={x} */"));
                }
                s
            }
            Event::TableMap(t) => format!("table_id: {} ({}.{})", t.table_id, t.schema, t.table),
            Event::Rows(r) => {
                let mut s = format!("table_id: {}", r.table_id);
                if r.flags & STMT_END_F != 0 {
                    s.push_str(" flags: STMT_END_F");
                }
                s
            }
            Event::Xid(x) => format!("COMMIT /* xid={x} */"),
            Event::Rotate(r) => format!("{};pos={}", r.next_file, r.position),
            Event::Stop | Event::Other { .. } => String::new(),
            Event::Heartbeat(name) => name.clone(),
        }
    }
}

/// The SHOW BINLOG EVENTS name of an event type code.
pub fn type_name(code: u8) -> &'static str {
    match code {
        types::QUERY => "Query",
        types::STOP => "Stop",
        types::ROTATE => "Rotate",
        types::FORMAT_DESCRIPTION => "Format_desc",
        types::XID => "Xid",
        types::TABLE_MAP => "Table_map",
        types::HEARTBEAT => "Heartbeat",
        types::WRITE_ROWS => "Write_rows",
        types::UPDATE_ROWS => "Update_rows",
        types::DELETE_ROWS => "Delete_rows",
        types::GTID => "Gtid",
        types::ANONYMOUS_GTID => "Anonymous_Gtid",
        types::PREVIOUS_GTIDS => "Previous_gtids",
        _ => "Unknown",
    }
}

/// Decodes one complete event (`bytes` is exactly the event). `checksum` says whether events
/// carry a CRC32 footer (from the file's FORMAT_DESCRIPTION); a FORMAT_DESCRIPTION itself is
/// checked according to its own checksum byte.
///
/// # Errors
/// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed input,
/// [`BinlogError::Checksum`] for a CRC mismatch.
pub fn decode_event(bytes: &[u8], checksum: bool) -> Result<DecodedEvent> {
    let header = EventHeader::decode(bytes)?;
    if header.event_size as usize != bytes.len() {
        return Err(BinlogError::corrupt(
            "event",
            format!(
                "header says {} bytes, got {}",
                header.event_size,
                bytes.len()
            ),
        ));
    }
    let checksum = if header.type_code == types::FORMAT_DESCRIPTION {
        // The algorithm byte sits just before the 4-byte CRC (or at the end without one).
        let n = bytes.len();
        n > HEADER_LEN + CHECKSUM_LEN && bytes[n - CHECKSUM_LEN - 1] == CHECKSUM_CRC32
    } else {
        checksum
    };
    let body_end = bytes.len() - if checksum { CHECKSUM_LEN } else { 0 };
    if body_end < HEADER_LEN {
        return Err(BinlogError::Truncated { what: "event" });
    }
    if checksum {
        header::verify_checksum(bytes)?;
    }
    let body = &bytes[HEADER_LEN..body_end];
    let event = decode_body(header.type_code, body)?;
    Ok(DecodedEvent { header, event })
}

fn decode_body(type_code: u8, body: &[u8]) -> Result<Event> {
    Ok(match type_code {
        types::FORMAT_DESCRIPTION => {
            Event::FormatDescription(FormatDescriptionEvent::decode_body(body)?)
        }
        types::PREVIOUS_GTIDS => {
            let mut r = crate::bytes::Reader::new(body);
            Event::PreviousGtids(GtidSet::decode(&mut r)?)
        }
        types::GTID => Event::Gtid(GtidEvent::decode_body(body, false)?),
        types::ANONYMOUS_GTID => Event::AnonymousGtid(GtidEvent::decode_body(body, true)?),
        types::QUERY => Event::Query(QueryEvent::decode_body(body)?),
        types::TABLE_MAP => Event::TableMap(TableMapEvent::decode_body(body)?),
        types::WRITE_ROWS => Event::Rows(RowsEvent::decode_body(RowsKind::Write, body)?),
        types::UPDATE_ROWS => Event::Rows(RowsEvent::decode_body(RowsKind::Update, body)?),
        types::DELETE_ROWS => Event::Rows(RowsEvent::decode_body(RowsKind::Delete, body)?),
        types::XID => Event::Xid(control::decode_xid(body)?),
        types::ROTATE => Event::Rotate(RotateEvent::decode_body(body)?),
        types::STOP => Event::Stop,
        types::HEARTBEAT => Event::Heartbeat(control::decode_heartbeat(body)?),
        t => Event::Other {
            type_code: t,
            body: body.to_vec(),
        },
    })
}

#[cfg(test)]
mod tests;
