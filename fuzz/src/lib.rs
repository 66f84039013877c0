//! Fuzz entry points shared by the cargo-fuzz targets (`fuzz_targets/`) and the stable
//! random-input tests (`tests/random.rs`). Each must never panic, hang or overflow the stack on
//! any input; errors are fine.

use std::collections::HashMap;
use std::io::{self, Read, Write};

use common::{Collation, DataType, Value};
use storage::catalog::{ColumnDef, IndexColumn, IndexDef, IndexKind, TableDef, TableOptions};

/// The SQL parser (tokenizer, versioned comments, depth checks, sqlparser, our MySQL forms).
pub fn sql_parser(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = sql::parse::parser::parse(&text);
    // the COM_QUERY decoding: non-UTF-8 string literals rewritten to hex literals, then parsed
    if protocol::backend::invalid_utf8_outside_strings(data).is_none() {
        for backslash in [true, false] {
            let t = protocol::backend::hex_non_utf8_literals(data, backslash);
            let _ = sql::parse::parser::parse(&t);
        }
    }
}

/// An in-memory duplex stream: reads from `input`, writes are discarded.
struct Pipe<'a> {
    input: &'a [u8],
}

impl Read for Pipe<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.input.read(buf)
    }
}

impl Write for Pipe<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The packet layer and the payload decoders: framing (sequence ids, chunking, size limit),
/// the handshake response, COM_CHANGE_USER and COM_STMT_EXECUTE.
pub fn packet_decoder(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    // framing: read packets until the input runs out
    let mut io = protocol::packet::PacketIo::new(Pipe { input: rest });
    for i in 0..64 {
        let r = if sel & 1 == 0 {
            io.read_packet(1 << 16)
        } else {
            io.read_packet_seq(1 << 16, i as u8)
        };
        if r.is_err() {
            break;
        }
    }
    let _ = protocol::handshake::is_ssl_request(rest);
    let _ = protocol::handshake::parse_handshake_response(rest);
    let _ = protocol::handshake::parse_change_user(rest, u32::from_le_bytes([sel, 0xff, 0x0f, 0]));
    // COM_STMT_EXECUTE with 0..7 parameters, with and without previously bound types
    let nparams = (sel >> 1) as usize % 8;
    let mut types = None;
    let long_data: HashMap<u16, Vec<u8>> = HashMap::new();
    for _ in 0..2 {
        let mut r = protocol::packet::Reader::new(rest);
        let _ = protocol::binary::decode_execute(&mut r, nparams, &mut types, &long_data);
    }
}

fn col(name: &str, ty: DataType, nullable: bool) -> ColumnDef {
    ColumnDef {
        name: name.into(),
        ty,
        nullable,
        default: None,
        auto_increment: false,
        on_update: None,
        comment: String::new(),
        instant_default: None,
        generated: None,
    }
}

/// A table with one column of (almost) every type, a primary key over (int, varchar) and
/// secondary indexes covering DESC parts and prefixes.
pub fn codec_table() -> TableDef {
    let utf = Collation::Utf8mb4GeneralCi;
    let columns = vec![
        col(
            "i",
            DataType::Int {
                bytes: 4,
                unsigned: false,
                width: None,
                zerofill: false,
            },
            false,
        ),
        col(
            "s",
            DataType::VarChar {
                len: 20,
                collation: utf,
            },
            false,
        ),
        col(
            "u",
            DataType::Int {
                bytes: 8,
                unsigned: true,
                width: None,
                zerofill: false,
            },
            true,
        ),
        col(
            "d",
            DataType::Decimal {
                precision: 12,
                scale: 3,
                unsigned: false,
            },
            true,
        ),
        col(
            "f",
            DataType::Float {
                md: None,
                unsigned: false,
            },
            true,
        ),
        col(
            "g",
            DataType::Double {
                md: None,
                unsigned: false,
            },
            true,
        ),
        col(
            "c",
            DataType::Char {
                len: 5,
                collation: Collation::Utf8mb4_0900AiCi,
            },
            true,
        ),
        col(
            "t",
            DataType::Text {
                size: common::types::LobSize::Long,
                collation: utf,
            },
            true,
        ),
        col("b", DataType::VarBinary { len: 30 }, true),
        col(
            "bl",
            DataType::Blob {
                size: common::types::LobSize::Normal,
            },
            true,
        ),
        col("dt", DataType::Date, true),
        col("tm", DataType::Time { fsp: 3 }, true),
        col("ts", DataType::DateTime { fsp: 6 }, true),
        col("y", DataType::Year, true),
        col(
            "e",
            DataType::Enum {
                values: vec!["a".into(), "b".into()],
                collation: utf,
            },
            true,
        ),
        col(
            "st",
            DataType::Set {
                values: vec!["x".into(), "y".into()],
                collation: utf,
            },
            true,
        ),
        col("bit", DataType::Bit { len: 10 }, true),
        col("j", DataType::Json, true),
    ];
    let ic = |col, desc, prefix_len| IndexColumn {
        col,
        prefix_len,
        desc,
    };
    let index = |id, name: &str, kind, columns| IndexDef {
        id,
        name: name.into(),
        kind,
        columns,
        comment: String::new(),
        options: Default::default(),
    };
    TableDef {
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        temporary: false,
        id: 7,
        db: "f".into(),
        name: "t".into(),
        columns,
        indexes: vec![
            index(
                100,
                "PRIMARY",
                IndexKind::Primary,
                vec![ic(0, false, None), ic(1, false, None)],
            ),
            index(
                101,
                "k1",
                IndexKind::Normal,
                vec![ic(3, true, None), ic(10, false, None), ic(12, false, None)],
            ),
            index(
                102,
                "k2",
                IndexKind::Unique,
                vec![ic(6, false, None), ic(7, true, Some(4)), ic(8, false, None)],
            ),
            index(
                103,
                "k3",
                IndexKind::Normal,
                vec![
                    ic(4, false, None),
                    ic(5, true, None),
                    ic(2, false, None),
                    ic(11, false, None),
                ],
            ),
        ],
        hidden_pk: false,
        version: 1,
        options: TableOptions::default(),
        partitioning: None,
        leaf: None,
        part_select: None,
    }
}

/// The storage codecs: row values and index keys decode garbage without panicking, and values
/// that decode re-encode (rows round-trip; keys re-encode to a key that decodes the same).
pub fn codecs(data: &[u8]) {
    use storage::codec::{key, row};
    let t = codec_table();
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    if let Ok(r) = row::decode_row(&t, rest) {
        if let Ok(enc) = row::encode_row(&t, &r) {
            let again = row::decode_row(&t, &enc).expect("a re-encoded row decodes");
            assert_eq!(format!("{again:?}"), format!("{r:?}"), "row round trip");
        }
    }
    let _ = row::decode_row_opt(&t, rest);
    let index_no = sel as usize % t.indexes.len();
    let _ = key::decode_index_key(&t, index_no, rest);
    let _ = key::handle_from_index_key(&t, index_no, rest);
    let mut pos = 0;
    let _ = storage::codec::get_uvarint(rest, &mut pos);
    let mut pos = 0;
    let _ = storage::codec::get_ivarint(rest, &mut pos);
    for c in &t.columns {
        let mut pos = 0;
        let _ = key::decode_column(rest, &mut pos, &c.ty, sel & 0x80 != 0);
        let mut pos = 0;
        let _ = key::skip_column(rest, &mut pos, &c.ty, sel & 0x80 != 0);
    }
    // values built from the input encode into keys that sort like the values
    if rest.len() >= 16 {
        let a = i64::from_le_bytes(rest[..8].try_into().unwrap_or_default());
        let b = i64::from_le_bytes(rest[8..16].try_into().unwrap_or_default());
        let s = String::from_utf8_lossy(&rest[16..])
            .chars()
            .take(20)
            .collect::<String>();
        let mk = |i: i64| {
            let mut r = vec![Value::Null; t.columns.len()];
            r[0] = Value::Int(i32::try_from(i).unwrap_or(i as i32) as i64);
            r[1] = Value::Str(s.clone());
            r
        };
        let (ra, rb) = (mk(a), mk(b));
        if let (Ok(ka), Ok(kb)) = (key::encode_pk(&t, &ra), key::encode_pk(&t, &rb)) {
            let (Value::Int(x), Value::Int(y)) = (&ra[0], &rb[0]) else {
                return;
            };
            assert_eq!(ka.cmp(&kb), x.cmp(y), "memcomparable order of INT keys");
            let back = key::decode_index_key(&t, 0, &ka).expect("an encoded key decodes");
            assert_eq!(back[0].as_ref(), Some(&ra[0]));
        }
    }
}
