//! Round trips of every event through `Event::encode` and `decode_event`, layout checks, and
//! truncated / corrupt input fed to every decoder.

use super::*;
use crate::column::{ColumnDef, UTF8MB4_0900_AI_CI as UTF8};
use crate::gtid::Uuid;
use crate::value::RowValue;

fn meta() -> EventMeta {
    EventMeta {
        timestamp: 1_700_000_000,
        server_id: 7,
        log_pos: 1234,
        flags: 0,
    }
}

fn table() -> TableMapEvent {
    let mut t = TableMapEvent::new(
        108,
        "db",
        "t",
        vec![
            ColumnDef::int("id", 4).unwrap().not_null(),
            ColumnDef::varchar("name", 80, UTF8),
            ColumnDef::decimal("price", 10, 2).unsigned(),
        ],
    );
    t.primary_key = vec![(0, 0)];
    t
}

fn rows(kind: RowsKind) -> RowsEvent {
    let t = table();
    let mut r = RowsEvent::new(kind, 108, 3);
    r.flags = STMT_END_F;
    let a = [
        RowValue::Int(1),
        RowValue::Bytes(b"x".to_vec()),
        RowValue::Decimal("1.50".into()),
    ];
    let b = [
        RowValue::Int(2),
        RowValue::Null,
        RowValue::Decimal("0.00".into()),
    ];
    match kind {
        RowsKind::Write => r.push_row(&t.columns, None, Some(&a)).unwrap(),
        RowsKind::Update => r.push_row(&t.columns, Some(&a), Some(&b)).unwrap(),
        RowsKind::Delete => r.push_row(&t.columns, Some(&b), None).unwrap(),
    }
    r
}

fn all_events() -> Vec<Event> {
    let uuid = Uuid::parse("3e11fa47-71ca-11e1-9e33-c80aa9429562").unwrap();
    let mut set = GtidSet::new();
    set.add_interval(uuid, 1, 10);
    let gtid = GtidEvent {
        uuid,
        gno: 11,
        sequence_number: 1,
        immediate_commit_timestamp: 5,
        original_commit_timestamp: 5,
        transaction_length: 400,
        immediate_server_version: 80403,
        original_server_version: 80403,
        ..GtidEvent::default()
    };
    vec![
        Event::FormatDescription(FormatDescriptionEvent::new("8.4.3-strata")),
        Event::PreviousGtids(set),
        Event::PreviousGtids(GtidSet::new()),
        Event::Gtid(gtid.clone()),
        Event::AnonymousGtid(GtidEvent { gno: 0, ..gtid }),
        Event::Query(QueryEvent::begin(3, StatusVars::mysql_defaults())),
        Event::Query(QueryEvent::ddl(
            3,
            "db",
            "CREATE TABLE t (id INT PRIMARY KEY)",
            StatusVars {
                ddl_xid: Some(9),
                ..StatusVars::mysql_defaults()
            },
        )),
        Event::TableMap(table()),
        Event::TableMap(TableMapEvent {
            metadata: RowMetadata::Full,
            ..table()
        }),
        Event::Rows(rows(RowsKind::Write)),
        Event::Rows(rows(RowsKind::Update)),
        Event::Rows(rows(RowsKind::Delete)),
        Event::Xid(123_456),
        Event::Rotate(RotateEvent {
            position: 4,
            next_file: "binlog.000002".into(),
        }),
        Event::Stop,
        Event::Heartbeat("binlog.000001".into()),
        Event::Other {
            type_code: 29,
            body: vec![1, 2, 3],
        },
    ]
}

/// What decoding an encoded event gives back: MINIMAL table maps lose names and the key.
fn expected(e: &Event) -> Event {
    match e {
        Event::TableMap(t) if t.metadata == RowMetadata::Minimal => {
            let mut t = t.clone();
            for c in &mut t.columns {
                c.name.clear();
            }
            t.primary_key.clear();
            Event::TableMap(t)
        }
        e => e.clone(),
    }
}

#[test]
fn every_event_round_trips() {
    for e in all_events() {
        let bytes = e.encode(&meta()).unwrap();
        let d = decode_event(&bytes, true).unwrap();
        assert_eq!(d.event, expected(&e), "{}", e.type_name());
        assert_eq!(d.header.type_code, e.type_code());
        assert_eq!(d.header.event_size as usize, bytes.len());
        assert_eq!((d.header.server_id, d.header.log_pos), (7, 1234));
    }
}

#[test]
fn format_description_event_layout() {
    let bytes = Event::FormatDescription(FormatDescriptionEvent::new("8.4.3-strata"))
        .encode(&EventMeta {
            log_pos: 127,
            flags: header::flags::BINLOG_IN_USE,
            ..meta()
        })
        .unwrap();
    // MySQL 8.4: 19 header + 99 post-header + 1 checksum algorithm + 4 CRC = 123 bytes, so the
    // file's second event starts at 4 + 123 = 127.
    assert_eq!(bytes.len(), 123);
    assert_eq!(bytes[4], types::FORMAT_DESCRIPTION);
    assert_eq!(&bytes[9..13], &123u32.to_le_bytes());
    assert_eq!(&bytes[13..17], &127u32.to_le_bytes());
    assert_eq!(&bytes[17..19], &[1, 0]);
    assert_eq!(bytes[118], CHECKSUM_CRC32);
    // An empty PREVIOUS_GTIDS is 19 + 8 + 4 = 31 bytes (ends at 158 in a new file).
    let prev = Event::PreviousGtids(GtidSet::new())
        .encode(&meta())
        .unwrap();
    assert_eq!(prev.len(), 31);
}

#[test]
fn rows_event_layout() {
    let r = rows(RowsKind::Write);
    let mut b = Vec::new();
    r.encode_body(&mut b).unwrap();
    assert_eq!(&b[..6], &[108, 0, 0, 0, 0, 0]);
    assert_eq!(&b[6..8], &[1, 0], "STMT_END_F");
    assert_eq!(&b[8..10], &[2, 0], "extra data length counts itself");
    assert_eq!(b[10], 3, "column count");
    assert_eq!(b[11], 0b111, "columns-present bitmap");
    assert_eq!(b[12], 0, "null bitmap of the row");
    assert_eq!(b.len(), r.body_len());
    let back = RowsEvent::decode_body(RowsKind::Write, &b).unwrap();
    let rows = back.rows(&table().columns).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].after.as_ref().unwrap()[2],
        RowValue::Decimal("1.50".into())
    );
    assert!(rows[0].before.is_none());
    let u = rows_of(RowsKind::Update);
    assert_eq!(u[0].after.as_ref().unwrap()[1], RowValue::Null);
}

fn rows_of(kind: RowsKind) -> Vec<RowChange> {
    rows(kind).rows(&table().columns).unwrap()
}

#[test]
fn info_strings_match_show_binlog_events() {
    let infos: Vec<String> = all_events().iter().map(|e| e.info()).collect();
    assert_eq!(infos[0], "Server ver: 8.4.3-strata, Binlog ver: 4");
    assert_eq!(infos[1], "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10");
    assert_eq!(
        infos[3],
        "SET @@SESSION.GTID_NEXT= '3e11fa47-71ca-11e1-9e33-c80aa9429562:11'"
    );
    assert_eq!(infos[5], "BEGIN");
    assert_eq!(
        infos[6],
        "use `db`; CREATE TABLE t (id INT PRIMARY KEY) /* xid=9 */"
    );
    assert_eq!(infos[7], "table_id: 108 (db.t)");
    assert_eq!(infos[9], "table_id: 108 flags: STMT_END_F");
    assert_eq!(infos[12], "COMMIT /* xid=123456 */");
    assert_eq!(infos[13], "binlog.000002;pos=4");
}

#[test]
fn decoders_reject_truncated_events() {
    for e in all_events() {
        let bytes = e.encode(&meta()).unwrap();
        for n in 0..bytes.len() {
            assert!(
                decode_event(&bytes[..n], true).is_err(),
                "{} prefix {n}",
                e.type_name()
            );
        }
        // Bodies cut short, with a matching header and valid CRC: errors or shorter values,
        // never a panic.
        let body = &bytes[HEADER_LEN..bytes.len() - CHECKSUM_LEN];
        for n in 0..body.len() {
            let short = header::frame_event(e.type_code(), &meta(), &body[..n], true);
            let _ = decode_event(&short, true);
        }
    }
}

#[test]
fn decoders_survive_corrupt_bodies() {
    for e in all_events() {
        let bytes = e.encode(&meta()).unwrap();
        let body = bytes[HEADER_LEN..bytes.len() - CHECKSUM_LEN].to_vec();
        for i in 0..body.len() {
            for x in [0x01, 0x80, 0xff] {
                let mut b = body.clone();
                b[i] ^= x;
                let ev = header::frame_event(e.type_code(), &meta(), &b, true);
                if let Ok(DecodedEvent {
                    event: Event::Rows(r),
                    ..
                }) = decode_event(&ev, true)
                {
                    let _ = r.rows(&table().columns);
                }
            }
        }
        let mut bad = bytes.clone();
        bad[HEADER_LEN] ^= 0x55;
        assert!(matches!(
            decode_event(&bad, true),
            Err(BinlogError::Checksum { .. })
        ));
    }
}

#[test]
fn table_map_metadata_full_and_minimal() {
    let cols = vec![
        ColumnDef::int("a", 1).unwrap().unsigned().not_null(),
        ColumnDef::varchar("v", 40, UTF8),
        ColumnDef::varchar("l", 40, 8),
        ColumnDef::blob("b", 2, crate::column::BINARY_COLLATION),
        ColumnDef::enumeration("e", vec![b"x".to_vec(), b"y".to_vec()], UTF8),
        ColumnDef::set("s", vec![b"p".to_vec(), b"q".to_vec(), b"r".to_vec()], UTF8),
        ColumnDef::double("d").unsigned(),
        ColumnDef::json("j"),
        ColumnDef::geometry("g"),
        ColumnDef::decimal("n", 5, 2),
        ColumnDef::year("y"),
        ColumnDef::int("u", 2).unwrap().unsigned(),
    ];
    let mut full = TableMapEvent::new(1, "db", "t", cols);
    full.columns[1].invisible = true;
    full.columns[8].geometry_type = 1; // POINT
    full.metadata = RowMetadata::Full;
    full.primary_key = vec![(0, 0), (1, 10)];
    let mut b = Vec::new();
    full.encode_body(&mut b).unwrap();
    assert_eq!(TableMapEvent::decode_body(&b).unwrap(), full);
    // MINIMAL: signedness and charsets survive, names, strings and key do not.
    let minimal = TableMapEvent {
        metadata: RowMetadata::Minimal,
        ..full.clone()
    };
    b.clear();
    minimal.encode_body(&mut b).unwrap();
    let back = TableMapEvent::decode_body(&b).unwrap();
    assert!(back.columns[0].unsigned && back.columns[6].unsigned && !back.columns[9].unsigned);
    assert_eq!(back.columns[2].collation, 8);
    assert_eq!(back.columns[3].collation, 63);
    assert!(back
        .columns
        .iter()
        .all(|c| c.name.is_empty() && c.elements.is_empty()));
    assert!(
        !back.columns[10].unsigned && back.columns[11].unsigned,
        "YEAR has a bit too"
    );
    assert_eq!(
        back.columns[8].geometry_type, 1,
        "GEOMETRY_TYPE is always written"
    );
    assert!(!back.columns[1].invisible, "visibility only with FULL");
    assert_eq!(back.columns[4].collation, 0, "ENUM charset only with FULL");
}

#[test]
fn table_map_layout() {
    let t = TableMapEvent::new(
        0x0102,
        "db",
        "tb",
        vec![
            ColumnDef::int("a", 4).unwrap().not_null(),
            ColumnDef::varchar("v", 300, UTF8),
        ],
    );
    let mut b = Vec::new();
    t.encode_body(&mut b).unwrap();
    let mut want = vec![2, 1, 0, 0, 0, 0, 1, 0]; // table id, TM_BIT_LEN_EXACT_F
    want.extend_from_slice(&[2, b'd', b'b', 0, 2, b't', b'b', 0]);
    want.extend_from_slice(&[2, 3, 15]); // 2 columns: LONG, VARCHAR
    want.extend_from_slice(&[2, 0x2c, 0x01]); // metadata: VARCHAR max 300
    want.push(0b10); // nullable bitmap
    want.extend_from_slice(&[1, 1, 0x00]); // SIGNEDNESS: one numeric column, signed
    want.extend_from_slice(&[2, 3, 0xfc, 0xff, 0x00]); // DEFAULT_CHARSET 255 (packed: 3 bytes)
    assert_eq!(b, want);
}

#[test]
fn charset_layout_choice() {
    // Two character columns with different collations: one per column is smaller.
    let cols = vec![
        ColumnDef::varchar("a", 10, 8),
        ColumnDef::varchar("b", 10, 33),
    ];
    let mut b = Vec::new();
    TableMapEvent::new(1, "d", "t", cols)
        .encode_body(&mut b)
        .unwrap();
    assert_eq!(&b[b.len() - 4..], &[3, 2, 8, 33]);
    // Three with one exception: default plus (index, collation).
    let cols = vec![
        ColumnDef::varchar("a", 10, 8),
        ColumnDef::varchar("b", 10, 33),
        ColumnDef::varchar("c", 10, 8),
    ];
    b.clear();
    TableMapEvent::new(1, "d", "t", cols)
        .encode_body(&mut b)
        .unwrap();
    assert_eq!(&b[b.len() - 5..], &[2, 3, 8, 1, 33]);
}
