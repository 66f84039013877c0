//! QUERY_EVENT: a statement (DDL, or the `BEGIN` of a row transaction) with the session state
//! a replica needs, carried in status variables.

use crate::bytes::{put_uint_le, Reader};
use crate::error::{BinlogError, Result};

/// MySQL 8.4's default `sql_mode` as the bitmask QUERY events carry (ONLY_FULL_GROUP_BY,
/// STRICT_TRANS_TABLES, NO_ZERO_IN_DATE, NO_ZERO_DATE, ERROR_FOR_DIVISION_BY_ZERO,
/// NO_ENGINE_SUBSTITUTION).
pub const DEFAULT_SQL_MODE: u64 = 0x45A0_0020;

/// `flags2` bit: `autocommit=0`.
pub const OPTION_NOT_AUTOCOMMIT: u32 = 0x0008_0000;
/// `flags2` bit: `foreign_key_checks=0`.
pub const OPTION_NO_FOREIGN_KEY_CHECKS: u32 = 0x0400_0000;
/// `flags2` bit: `unique_checks=0`.
pub const OPTION_RELAXED_UNIQUE_CHECKS: u32 = 0x0800_0000;
/// `flags2` bit: `sql_auto_is_null=1`.
pub const OPTION_AUTO_IS_NULL: u32 = 0x0000_4000;

const Q_FLAGS2: u8 = 0;
const Q_SQL_MODE: u8 = 1;
const Q_CATALOG: u8 = 2;
const Q_AUTO_INCREMENT: u8 = 3;
const Q_CHARSET: u8 = 4;
const Q_TIME_ZONE: u8 = 5;
const Q_CATALOG_NZ: u8 = 6;
const Q_LC_TIME_NAMES: u8 = 7;
const Q_CHARSET_DATABASE: u8 = 8;
const Q_TABLE_MAP_FOR_UPDATE: u8 = 9;
const Q_MASTER_DATA_WRITTEN: u8 = 10;
const Q_INVOKER: u8 = 11;
const Q_UPDATED_DB_NAMES: u8 = 12;
const Q_MICROSECONDS: u8 = 13;
const Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP: u8 = 16;
const Q_DDL_LOGGED_WITH_XID: u8 = 17;
const Q_DEFAULT_COLLATION_FOR_UTF8MB4: u8 = 18;
const Q_SQL_REQUIRE_PRIMARY_KEY: u8 = 19;
const Q_DEFAULT_TABLE_ENCRYPTION: u8 = 20;
/// `Q_UPDATED_DB_NAMES` count meaning "too many (or unknown) databases, none listed".
const OVER_MAX_DBS: u8 = 254;
const MAX_DBS: usize = 16;

/// The status variables of a QUERY event; `None` fields are not written.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StatusVars {
    /// Session option bits (`OPTION_*`).
    pub flags2: Option<u32>,
    /// `sql_mode` bitmask.
    pub sql_mode: Option<u64>,
    /// The catalog, always `std`.
    pub catalog: Option<String>,
    /// `auto_increment_increment`, `auto_increment_offset` (written when not 1, 1).
    pub auto_increment: Option<(u16, u16)>,
    /// `character_set_client`, `collation_connection`, `collation_server` collation ids.
    pub charset: Option<(u16, u16, u16)>,
    /// `time_zone` when the statement used it.
    pub time_zone: Option<String>,
    /// `lc_time_names` number when not `en_US` (0).
    pub lc_time_names: Option<u16>,
    /// `collation_database` id when it differs from the default database's.
    pub charset_database: Option<u16>,
    /// Bitmap of tables updated by a multi-table update.
    pub table_map_for_update: Option<u64>,
    /// Event length on the source (relay logs).
    pub master_data_written: Option<u32>,
    /// DEFINER user and host for routines and views.
    pub invoker: Option<(String, String)>,
    /// Databases the statement changes; an empty list is written as "over the maximum"
    /// (MySQL's 254: more than 16 or unknown), and more than 16 names are written that way too.
    pub updated_db_names: Option<Vec<String>>,
    /// Microseconds of the statement start when it used them.
    pub microseconds: Option<u32>,
    /// `explicit_defaults_for_timestamp`.
    pub explicit_defaults_for_timestamp: Option<bool>,
    /// The XID of an atomic DDL statement (MySQL 8.0+ logs DDL with its XID).
    pub ddl_xid: Option<u64>,
    /// `default_collation_for_utf8mb4` id (255).
    pub default_collation_for_utf8mb4: Option<u16>,
    /// `sql_require_primary_key`, written for CREATE/ALTER TABLE.
    pub sql_require_primary_key: Option<bool>,
    /// `default_table_encryption`, written for CREATE/ALTER DATABASE/TABLESPACE and CREATE TABLE.
    pub default_table_encryption: Option<bool>,
    /// Undecoded status variables from the first code this crate does not know (MySQL stops
    /// parsing there too); written back verbatim.
    pub unparsed: Vec<u8>,
}

impl StatusVars {
    /// What a MySQL 8.4 session with default settings writes for every statement: flags2 0,
    /// the default sql_mode, catalog `std`, utf8mb4_0900_ai_ci everywhere.
    pub fn mysql_defaults() -> Self {
        StatusVars {
            flags2: Some(0),
            sql_mode: Some(DEFAULT_SQL_MODE),
            catalog: Some("std".into()),
            charset: Some((255, 255, 255)),
            default_collation_for_utf8mb4: Some(255),
            ..StatusVars::default()
        }
    }

    fn put_str(out: &mut Vec<u8>, code: u8, s: &str) {
        let b = &s.as_bytes()[..s.len().min(255)];
        out.extend_from_slice(&[code, b.len() as u8]);
        out.extend_from_slice(b);
    }

    /// Appends the status variables in MySQL's order.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let code_u = |out: &mut Vec<u8>, code: u8, v: u64, n: usize| {
            out.push(code);
            put_uint_le(out, v, n);
        };
        if let Some(v) = self.flags2 {
            code_u(out, Q_FLAGS2, u64::from(v), 4);
        }
        if let Some(v) = self.sql_mode {
            code_u(out, Q_SQL_MODE, v, 8);
        }
        if let Some(c) = &self.catalog {
            Self::put_str(out, Q_CATALOG_NZ, c);
        }
        if let Some((inc, off)) = self.auto_increment {
            code_u(
                out,
                Q_AUTO_INCREMENT,
                u64::from(inc) | u64::from(off) << 16,
                4,
            );
        }
        if let Some((a, b, c)) = self.charset {
            code_u(
                out,
                Q_CHARSET,
                u64::from(a) | u64::from(b) << 16 | u64::from(c) << 32,
                6,
            );
        }
        if let Some(tz) = &self.time_zone {
            Self::put_str(out, Q_TIME_ZONE, tz);
        }
        if let Some(v) = self.lc_time_names {
            code_u(out, Q_LC_TIME_NAMES, u64::from(v), 2);
        }
        if let Some(v) = self.charset_database {
            code_u(out, Q_CHARSET_DATABASE, u64::from(v), 2);
        }
        if let Some(v) = self.table_map_for_update {
            code_u(out, Q_TABLE_MAP_FOR_UPDATE, v, 8);
        }
        if let Some(v) = self.master_data_written {
            code_u(out, Q_MASTER_DATA_WRITTEN, u64::from(v), 4);
        }
        if let Some((user, host)) = &self.invoker {
            Self::put_str(out, Q_INVOKER, user);
            let h = &host.as_bytes()[..host.len().min(255)];
            out.push(h.len() as u8);
            out.extend_from_slice(h);
        }
        if let Some(dbs) = &self.updated_db_names {
            out.push(Q_UPDATED_DB_NAMES);
            if dbs.is_empty() || dbs.len() > MAX_DBS {
                out.push(OVER_MAX_DBS);
            } else {
                out.push(dbs.len() as u8);
                for db in dbs {
                    out.extend_from_slice(db.as_bytes());
                    out.push(0);
                }
            }
        }
        if let Some(v) = self.microseconds {
            code_u(out, Q_MICROSECONDS, u64::from(v), 3);
        }
        let flag = |out: &mut Vec<u8>, code: u8, v: Option<bool>| {
            if let Some(v) = v {
                out.extend_from_slice(&[code, u8::from(v)]);
            }
        };
        flag(
            out,
            Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP,
            self.explicit_defaults_for_timestamp,
        );
        if let Some(v) = self.ddl_xid {
            code_u(out, Q_DDL_LOGGED_WITH_XID, v, 8);
        }
        if let Some(v) = self.default_collation_for_utf8mb4 {
            code_u(out, Q_DEFAULT_COLLATION_FOR_UTF8MB4, u64::from(v), 2);
        }
        flag(out, Q_SQL_REQUIRE_PRIMARY_KEY, self.sql_require_primary_key);
        flag(
            out,
            Q_DEFAULT_TABLE_ENCRYPTION,
            self.default_table_encryption,
        );
        out.extend_from_slice(&self.unparsed);
    }

    /// Parses a status-variable block.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed input.
    pub fn decode(block: &[u8]) -> Result<Self> {
        const W: &str = "QUERY status variables";
        let mut r = Reader::new(block);
        let mut s = StatusVars::default();
        let text = |r: &mut Reader<'_>| -> Result<String> {
            let n = usize::from(r.u8(W)?);
            Ok(String::from_utf8_lossy(r.bytes(n, W)?).into_owned())
        };
        while !r.is_empty() {
            let at = r.position();
            match r.u8(W)? {
                Q_FLAGS2 => s.flags2 = Some(r.u32(W)?),
                Q_SQL_MODE => s.sql_mode = Some(r.u64(W)?),
                Q_CATALOG_NZ => s.catalog = Some(text(&mut r)?),
                Q_CATALOG => {
                    s.catalog = Some(text(&mut r)?);
                    r.skip(1, W)?;
                }
                Q_AUTO_INCREMENT => s.auto_increment = Some((r.u16(W)?, r.u16(W)?)),
                Q_CHARSET => s.charset = Some((r.u16(W)?, r.u16(W)?, r.u16(W)?)),
                Q_TIME_ZONE => s.time_zone = Some(text(&mut r)?),
                Q_LC_TIME_NAMES => s.lc_time_names = Some(r.u16(W)?),
                Q_CHARSET_DATABASE => s.charset_database = Some(r.u16(W)?),
                Q_TABLE_MAP_FOR_UPDATE => s.table_map_for_update = Some(r.u64(W)?),
                Q_MASTER_DATA_WRITTEN => s.master_data_written = Some(r.u32(W)?),
                Q_INVOKER => s.invoker = Some((text(&mut r)?, text(&mut r)?)),
                Q_UPDATED_DB_NAMES => s.updated_db_names = Some(decode_db_names(&mut r)?),
                Q_MICROSECONDS => s.microseconds = Some(r.uint_le(3, W)? as u32),
                Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP => {
                    s.explicit_defaults_for_timestamp = Some(r.u8(W)? != 0)
                }
                Q_DDL_LOGGED_WITH_XID => s.ddl_xid = Some(r.u64(W)?),
                Q_DEFAULT_COLLATION_FOR_UTF8MB4 => {
                    s.default_collation_for_utf8mb4 = Some(r.u16(W)?)
                }
                Q_SQL_REQUIRE_PRIMARY_KEY => s.sql_require_primary_key = Some(r.u8(W)? != 0),
                Q_DEFAULT_TABLE_ENCRYPTION => s.default_table_encryption = Some(r.u8(W)? != 0),
                _ => {
                    s.unparsed = block[at..].to_vec();
                    break;
                }
            }
        }
        Ok(s)
    }
}

fn decode_db_names(r: &mut Reader<'_>) -> Result<Vec<String>> {
    const W: &str = "QUERY updated db names";
    let n = r.u8(W)?;
    if n == OVER_MAX_DBS {
        return Ok(Vec::new());
    }
    if usize::from(n) > MAX_DBS {
        return Err(BinlogError::corrupt(W, format!("{n} databases")));
    }
    let mut names = Vec::with_capacity(usize::from(n));
    for _ in 0..n {
        let rest = r.clone().rest();
        let len = rest
            .iter()
            .position(|&c| c == 0)
            .ok_or(BinlogError::Truncated { what: W })?;
        names.push(String::from_utf8_lossy(r.bytes(len, W)?).into_owned());
        r.skip(1, W)?;
    }
    Ok(names)
}

/// QUERY_EVENT.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct QueryEvent {
    /// The session's connection id.
    pub thread_id: u32,
    /// Seconds the statement took.
    pub exec_time: u32,
    /// The error code the statement ended with (0).
    pub error_code: u16,
    /// Session state.
    pub status: StatusVars,
    /// The default database (`USE db`), empty for none.
    pub schema: String,
    /// The statement text, in the client character set.
    pub query: Vec<u8>,
}

impl QueryEvent {
    /// Appends the body: post-header, status variables, schema + NUL, query.
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] for a schema name over 255 bytes or status variables over
    /// 65535 bytes.
    pub fn encode_body(&self, out: &mut Vec<u8>) -> Result<()> {
        let mut status = Vec::new();
        self.status.encode(&mut status);
        if self.schema.len() > 255 || status.len() > usize::from(u16::MAX) {
            return Err(BinlogError::invalid(
                "QUERY schema name or status variables too long",
            ));
        }
        put_uint_le(out, u64::from(self.thread_id), 4);
        put_uint_le(out, u64::from(self.exec_time), 4);
        out.push(self.schema.len() as u8);
        put_uint_le(out, u64::from(self.error_code), 2);
        put_uint_le(out, status.len() as u64, 2);
        out.extend_from_slice(&status);
        out.extend_from_slice(self.schema.as_bytes());
        out.push(0);
        out.extend_from_slice(&self.query);
        Ok(())
    }

    /// Parses the body.
    ///
    /// # Errors
    /// [`BinlogError::Truncated`] / [`BinlogError::Corrupt`] for malformed input.
    pub fn decode_body(body: &[u8]) -> Result<Self> {
        const W: &str = "QUERY event";
        let mut r = Reader::new(body);
        let thread_id = r.u32(W)?;
        let exec_time = r.u32(W)?;
        let db_len = usize::from(r.u8(W)?);
        let error_code = r.u16(W)?;
        let status_len = usize::from(r.u16(W)?);
        let status = StatusVars::decode(r.bytes(status_len, W)?)?;
        let schema = String::from_utf8_lossy(r.bytes(db_len, W)?).into_owned();
        if r.u8(W)? != 0 {
            return Err(BinlogError::corrupt(W, "schema name not NUL-terminated"));
        }
        Ok(QueryEvent {
            thread_id,
            exec_time,
            error_code,
            status,
            schema,
            query: r.rest().to_vec(),
        })
    }

    /// The statement text, lossily as UTF-8.
    pub fn query_text(&self) -> String {
        String::from_utf8_lossy(&self.query).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ddl() -> QueryEvent {
        QueryEvent {
            thread_id: 8,
            exec_time: 0,
            error_code: 0,
            status: StatusVars {
                updated_db_names: Some(vec!["db".into()]),
                ddl_xid: Some(17),
                sql_require_primary_key: Some(false),
                default_table_encryption: Some(false),
                ..StatusVars::mysql_defaults()
            },
            schema: "db".into(),
            query: b"CREATE TABLE t (a INT PRIMARY KEY)".to_vec(),
        }
    }

    #[test]
    fn begin_layout() {
        let q = QueryEvent {
            thread_id: 5,
            status: StatusVars::mysql_defaults(),
            query: b"BEGIN".to_vec(),
            ..QueryEvent::default()
        };
        let mut b = Vec::new();
        q.encode_body(&mut b).unwrap();
        // flags2 (5) + sql_mode (9) + catalog (5) + charset (7) + utf8mb4 collation (3) = 29.
        assert_eq!(&b[11..13], &[29, 0]);
        assert_eq!(&b[13..18], &[Q_FLAGS2, 0, 0, 0, 0]);
        assert_eq!(&b[18..27], &[Q_SQL_MODE, 0x20, 0, 0xA0, 0x45, 0, 0, 0, 0]);
        assert_eq!(&b[27..32], &[Q_CATALOG_NZ, 3, b's', b't', b'd']);
        assert_eq!(&b[32..39], &[Q_CHARSET, 255, 0, 255, 0, 255, 0]);
        assert_eq!(&b[39..42], &[Q_DEFAULT_COLLATION_FOR_UTF8MB4, 255, 0]);
        assert_eq!(&b[42..], b"\0BEGIN");
        assert_eq!(QueryEvent::decode_body(&b).unwrap(), q);
    }

    #[test]
    fn ddl_round_trip_with_all_vars() {
        let mut q = ddl();
        q.status.auto_increment = Some((2, 3));
        q.status.time_zone = Some("SYSTEM".into());
        q.status.lc_time_names = Some(7);
        q.status.charset_database = Some(8);
        q.status.table_map_for_update = Some(3);
        q.status.master_data_written = Some(99);
        q.status.invoker = Some(("root".into(), "localhost".into()));
        q.status.microseconds = Some(123_456);
        q.status.explicit_defaults_for_timestamp = Some(true);
        let mut b = Vec::new();
        q.encode_body(&mut b).unwrap();
        assert_eq!(QueryEvent::decode_body(&b).unwrap(), q);
        let mut over = ddl();
        over.status.updated_db_names = Some(vec![]);
        b.clear();
        over.encode_body(&mut b).unwrap();
        assert_eq!(QueryEvent::decode_body(&b).unwrap(), over);
    }

    #[test]
    fn unknown_status_code_stops_parsing() {
        let mut q = ddl();
        q.status.unparsed = vec![128, 1, 2, 3];
        let mut b = Vec::new();
        q.encode_body(&mut b).unwrap();
        assert_eq!(QueryEvent::decode_body(&b).unwrap(), q);
    }

    #[test]
    fn decode_rejects_truncated_and_corrupt() {
        let mut b = Vec::new();
        ddl().encode_body(&mut b).unwrap();
        let status_end = 13 + usize::from(b[11]);
        for n in 0..status_end + 3 {
            assert!(QueryEvent::decode_body(&b[..n]).is_err(), "{n}");
        }
        let mut bad = b.clone();
        bad[8] = 200; // schema length past the end
        assert!(QueryEvent::decode_body(&bad).is_err());
        let mut bad = b.clone();
        bad[11] = 0xff; // status length past the end
        assert!(QueryEvent::decode_body(&bad).is_err());
        for i in 13..status_end {
            let mut bad = b.clone();
            bad[i] ^= 0xff;
            let _ = QueryEvent::decode_body(&bad);
        }
    }
}
