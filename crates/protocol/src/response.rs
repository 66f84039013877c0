//! Encoders for the server's response packets: OK, ERR, EOF, ColumnDefinition41 and text rows.
//! Each returns one packet payload; the connection frames and sends it.

use std::borrow::Cow;

use common::types::{column_flags, field_type};
use common::{ColumnMeta, Error, ErrorCode, Value};

use crate::packet::{put_lenenc_bytes, put_lenenc_int};

/// An OK packet. With `eof_header` the header byte is 0xFE instead of 0x00: the OK that replaces
/// the final EOF of a result set when CLIENT_DEPRECATE_EOF is on.
///
/// A non-empty info string is written length-encoded. The protocol documentation calls it
/// `string<EOF>` without CLIENT_SESSION_TRACK, but MySQL and MariaDB servers write it with a
/// length prefix and libmysqlclient / libmariadb parse it that way.
pub fn ok_packet(
    affected_rows: u64,
    last_insert_id: u64,
    status: u16,
    warnings: u16,
    info: &str,
    eof_header: bool,
) -> Vec<u8> {
    let mut p = Vec::with_capacity(16 + info.len());
    p.push(if eof_header { 0xFE } else { 0x00 });
    put_lenenc_int(&mut p, affected_rows);
    put_lenenc_int(&mut p, last_insert_id);
    p.extend_from_slice(&status.to_le_bytes());
    p.extend_from_slice(&warnings.to_le_bytes());
    if !info.is_empty() {
        put_lenenc_bytes(&mut p, info.as_bytes());
    }
    p
}

/// A classic EOF packet (CLIENT_PROTOCOL_41 layout).
pub fn eof_packet(warnings: u16, status: u16) -> Vec<u8> {
    let mut p = Vec::with_capacity(5);
    p.push(0xFE);
    p.extend_from_slice(&warnings.to_le_bytes());
    p.extend_from_slice(&status.to_le_bytes());
    p
}

/// An ERR packet with a SQLSTATE marker (4.1 protocol).
pub fn err_packet(code: ErrorCode, msg: &str) -> Vec<u8> {
    let mut p = Vec::with_capacity(9 + msg.len());
    p.push(0xFF);
    p.extend_from_slice(&code.num.to_le_bytes());
    p.push(b'#');
    let state = code.sqlstate.as_bytes();
    let mut st = [b'H', b'Y', b'0', b'0', b'0'];
    for (d, s) in st.iter_mut().zip(state) {
        *d = *s;
    }
    p.extend_from_slice(&st);
    p.extend_from_slice(msg.as_bytes());
    p
}

/// An ERR packet for a client that has not negotiated the 4.1 protocol yet (errors sent instead
/// of the handshake, such as 1040 Too many connections): no SQLSTATE marker.
pub fn err_packet_pre41(code: ErrorCode, msg: &str) -> Vec<u8> {
    let mut p = Vec::with_capacity(3 + msg.len());
    p.push(0xFF);
    p.extend_from_slice(&code.num.to_le_bytes());
    p.extend_from_slice(msg.as_bytes());
    p
}

/// An ERR packet for a [`common::Error`].
pub fn error_packet(e: &Error) -> Vec<u8> {
    err_packet(e.code, &e.msg)
}

/// A ColumnDefinition41 packet. With `default_null` a NULL default value is appended, as
/// COM_FIELD_LIST responses carry one.
pub fn column_definition(c: &ColumnMeta, default_null: bool) -> Vec<u8> {
    let mut p = Vec::with_capacity(48 + c.name.len() * 2 + c.table.len() * 2);
    put_lenenc_bytes(&mut p, b"def");
    put_lenenc_bytes(&mut p, c.schema.as_bytes());
    put_lenenc_bytes(&mut p, c.table.as_bytes());
    put_lenenc_bytes(&mut p, c.org_table.as_bytes());
    put_lenenc_bytes(&mut p, c.name.as_bytes());
    put_lenenc_bytes(&mut p, c.org_name.as_bytes());
    p.push(0x0C);
    p.extend_from_slice(&c.charset.to_le_bytes());
    p.extend_from_slice(&c.length.to_le_bytes());
    p.push(c.field_type);
    p.extend_from_slice(&c.flags.to_le_bytes());
    p.push(c.decimals);
    p.extend_from_slice(&[0, 0]);
    if default_null {
        p.push(0xFB);
    }
    p
}

/// The bytes of a BIT(n) value: big-endian, `ceil(n / 8)` bytes (at least one).
pub fn bit_bytes(v: u64, bits: u32) -> Vec<u8> {
    let n = (bits.clamp(1, 64) as usize).div_ceil(8);
    v.to_be_bytes()[8 - n..].to_vec()
}

/// The text-protocol bytes of one value in column `c` (`None` = NULL). BIT columns get their
/// raw big-endian bytes, as MySQL sends them; strings are borrowed as they are; everything else
/// uses [`Value::to_text`].
pub fn text_value<'v>(c: &ColumnMeta, v: &'v Value) -> Option<Cow<'v, [u8]>> {
    match v {
        Value::UInt(u) if c.field_type == field_type::BIT => {
            Some(Cow::Owned(bit_bytes(*u, c.length)))
        }
        Value::Int(i) if c.field_type == field_type::BIT => {
            Some(Cow::Owned(bit_bytes(*i as u64, c.length)))
        }
        Value::Str(s) => Some(Cow::Borrowed(s.as_bytes())),
        Value::Bytes(b) => Some(Cow::Borrowed(b)),
        other => other.to_text().map(Cow::Owned),
    }
}

/// Appends a text-protocol row to `p`. Missing values are sent as NULL and extra values are
/// dropped, so the row always matches the column count announced.
pub fn put_text_row(p: &mut Vec<u8>, columns: &[ColumnMeta], row: &[Value]) {
    for (i, c) in columns.iter().enumerate() {
        match row.get(i).and_then(|v| text_value(c, v)) {
            None => p.push(0xFB),
            Some(b) => put_lenenc_bytes(p, &b),
        }
    }
}

/// A column for parameter definitions of COM_STMT_PREPARE (what MySQL 8 sends: `?`, binary
/// VAR_STRING) for sessions that leave [`crate::backend::PreparedInfo::params`] entries default.
pub fn param_placeholder() -> ColumnMeta {
    ColumnMeta {
        name: "?".into(),
        charset: 63,
        field_type: field_type::VAR_STRING,
        flags: column_flags::BINARY,
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_row(columns: &[ColumnMeta], row: &[Value]) -> Vec<u8> {
        let mut p = Vec::new();
        put_text_row(&mut p, columns, row);
        p
    }
    use common::codes;

    #[test]
    fn ok_eof_err_layout() {
        assert_eq!(
            ok_packet(1, 300, 0x0002, 3, "hi", false),
            vec![0, 1, 0xFC, 0x2C, 0x01, 2, 0, 3, 0, 2, b'h', b'i']
        );
        assert_eq!(
            ok_packet(0, 0, 0x0008, 0, "", true),
            vec![0xFE, 0, 0, 8, 0, 0, 0]
        );
        assert_eq!(eof_packet(1, 0x0022), vec![0xFE, 1, 0, 0x22, 0]);
        let e = err_packet(codes::ER_NO_SUCH_TABLE, "x");
        assert_eq!(e, b"\xFF\x7a\x04#42S02x".to_vec());
        assert_eq!(
            err_packet_pre41(codes::ER_CON_COUNT_ERROR, "Too many connections")[..3],
            [0xFF, 0x10, 0x04]
        );
    }

    #[test]
    fn column_def_and_rows() {
        let c = ColumnMeta {
            name: "a".into(),
            field_type: field_type::LONGLONG,
            length: 21,
            charset: 63,
            ..Default::default()
        };
        let p = column_definition(&c, false);
        assert_eq!(&p[..4], b"\x03def");
        assert_eq!(p.len(), 4 + 1 + 1 + 1 + 2 + 1 + 13);
        assert_eq!(column_definition(&c, true).last(), Some(&0xFB));
        let row = text_row(&[c.clone(), c.clone(), c], &[Value::Int(-5), Value::Null]);
        assert_eq!(row, vec![2, b'-', b'5', 0xFB, 0xFB]);
        let bit = ColumnMeta {
            field_type: field_type::BIT,
            length: 10,
            ..Default::default()
        };
        assert_eq!(text_row(&[bit], &[Value::UInt(0x201)]), vec![2, 0x02, 0x01]);
    }
}
