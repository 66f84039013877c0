//! Binlog file set tests: creation, appending, index contents, rotation, purge, reset,
//! recovery of torn tails, and reading back.

use std::time::{Duration, SystemTime};

use super::*;
use crate::column::ColumnDef;
use crate::event::{GtidEvent, QueryEvent, StatusVars, TableMapEvent};
use crate::gtid::Uuid;
use crate::trx::TransactionBuilder;
use crate::value::RowValue;

const UUID: &str = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

fn uuid() -> Uuid {
    Uuid::parse(UUID).unwrap()
}

fn trx(gno: u64, payload: usize) -> Transaction {
    let meta = EventMeta {
        timestamp: 1_700_000_000,
        server_id: 1,
        ..EventMeta::default()
    };
    let table = TableMapEvent::new(
        70,
        "db",
        "t",
        vec![
            ColumnDef::int("id", 8).unwrap(),
            ColumnDef::blob("b", 4, 63),
        ],
    );
    let mut b =
        TransactionBuilder::new(meta, QueryEvent::begin(1, StatusVars::mysql_defaults())).unwrap();
    b.table_map(&table).unwrap();
    b.write_row(
        70,
        &[
            RowValue::Int(gno as i64),
            RowValue::Bytes(vec![b'x'; payload]),
        ],
    )
    .unwrap();
    b.commit(1000 + gno)
        .unwrap()
        .seal(GtidEvent {
            uuid: uuid(),
            gno,
            sequence_number: gno as i64,
            ..GtidEvent::default()
        })
        .unwrap()
}

fn ddl(gno: u64) -> Transaction {
    let meta = EventMeta {
        timestamp: 1_700_000_000,
        server_id: 1,
        ..EventMeta::default()
    };
    let status = StatusVars {
        ddl_xid: Some(2000 + gno),
        ..StatusVars::mysql_defaults()
    };
    TransactionBuilder::ddl(
        meta,
        QueryEvent::ddl(1, "db", "CREATE TABLE t2 (a INT)", status),
    )
    .unwrap()
    .seal(GtidEvent {
        uuid: uuid(),
        gno,
        ..GtidEvent::default()
    })
    .unwrap()
}

fn config(dir: &Path) -> BinlogConfig {
    BinlogConfig::new(dir, 1)
}

fn read_all(path: &Path) -> Vec<(u64, crate::event::DecodedEvent)> {
    BinlogReader::open(path, 4)
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

#[test]
fn new_directory_gets_first_file_and_index() {
    let dir = tempfile::tempdir().unwrap();
    let (files, report) = BinlogFiles::open(config(dir.path())).unwrap();
    assert_eq!(report, RecoveryReport::default());
    assert_eq!(files.current_file(), "binlog.000001");
    assert_eq!(files.position(), 4 + 123 + 31);
    assert_eq!(
        fs::read_to_string(dir.path().join("binlog.index")).unwrap(),
        "./binlog.000001\n"
    );
    let evs = read_all(&dir.path().join("binlog.000001"));
    assert_eq!(evs.len(), 2);
    assert_eq!((evs[0].0, evs[0].1.header.log_pos), (4, 127));
    assert_eq!(
        evs[0].1.header.flags & flags::BINLOG_IN_USE,
        flags::BINLOG_IN_USE
    );
    assert_eq!((evs[1].0, evs[1].1.header.log_pos), (127, 158));
    assert!(matches!(&evs[1].1.event, Event::PreviousGtids(s) if s.is_empty()));
}

#[test]
fn append_stamps_positions_and_tracks_gtids() {
    let dir = tempfile::tempdir().unwrap();
    let (mut files, _) = BinlogFiles::open(config(dir.path())).unwrap();
    let p1 = files.append(trx(1, 10)).unwrap();
    let p2 = files.append(ddl(2)).unwrap();
    files.sync().unwrap();
    assert_eq!(p1.start, 158);
    assert_eq!(p2.start, p1.end);
    assert_eq!(files.position(), p2.end);
    assert_eq!(
        files.gtid_executed().format_with(","),
        format!("{UUID}:1-2")
    );
    let evs = read_all(&dir.path().join("binlog.000001"));
    let mut expect_start = 4;
    for (pos, ev) in &evs {
        assert_eq!(*pos, expect_start);
        expect_start = u64::from(ev.header.log_pos);
        assert_eq!(
            ev.header.log_pos as u64,
            pos + u64::from(ev.header.event_size)
        );
    }
    assert_eq!(expect_start, p2.end);
    // Start from a position in the middle.
    let tail: Vec<_> = BinlogReader::open(&dir.path().join("binlog.000001"), p2.start)
        .unwrap()
        .map(|r| r.unwrap().1.event.type_name())
        .collect();
    assert_eq!(tail, ["Gtid", "Query"]);
}

#[test]
fn rotation_index_list_and_previous_gtids() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = config(dir.path());
    cfg.max_size = 2000;
    let (mut files, _) = BinlogFiles::open(cfg).unwrap();
    for g in 1..=10 {
        files.append(trx(g, 300)).unwrap();
    }
    assert!(files.files().len() >= 3, "{:?}", files.files());
    let index = fs::read_to_string(dir.path().join("binlog.index")).unwrap();
    let want: String = files.files().iter().map(|n| format!("./{n}\n")).collect();
    assert_eq!(index, want);
    let list = files.list().unwrap();
    for info in &list {
        assert_eq!(
            info.size,
            fs::metadata(dir.path().join(&info.name)).unwrap().len()
        );
    }
    // The first file ends with a ROTATE to the second and is no longer in use.
    let evs = read_all(&dir.path().join("binlog.000001"));
    assert_eq!(evs[0].1.header.flags & flags::BINLOG_IN_USE, 0);
    match &evs.last().unwrap().1.event {
        Event::Rotate(r) => assert_eq!((r.next_file.as_str(), r.position), ("binlog.000002", 4)),
        e => panic!("{e:?}"),
    }
    // Each file's PREVIOUS_GTIDS holds everything before it.
    let second = read_previous_gtids(&dir.path().join("binlog.000002")).unwrap();
    let first_gtids = scan_file(&dir.path().join("binlog.000001")).unwrap().gtids;
    assert_eq!(second, first_gtids);
    files.rotate().unwrap();
    let prev = read_previous_gtids(&dir.path().join(files.current_file())).unwrap();
    assert_eq!(prev.format_with(","), format!("{UUID}:1-10"));
}

#[test]
fn clean_close_and_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let (mut files, _) = BinlogFiles::open(config(dir.path())).unwrap();
    files.append(trx(1, 5)).unwrap();
    files.close().unwrap();
    let scan = scan_file(&dir.path().join("binlog.000001")).unwrap();
    assert!(!scan.in_use && scan.closed);
    let (files, report) = BinlogFiles::open(config(dir.path())).unwrap();
    assert!(!report.crashed && report.truncated.is_empty());
    assert_eq!(report.gtid_executed.format_with(","), format!("{UUID}:1"));
    assert_eq!(report.xids, vec![1001]);
    assert_eq!(files.current_file(), "binlog.000002");
    assert_eq!(files.gtid_executed(), &report.gtid_executed);
}

#[test]
fn recovery_truncates_torn_transactions() {
    let dir = tempfile::tempdir().unwrap();
    let (mut files, _) = BinlogFiles::open(config(dir.path())).unwrap();
    files.append(trx(1, 5)).unwrap();
    let good_end = files.append(ddl(2)).unwrap().end;
    // A transaction missing its XID event, then one cut mid-event: a crash while writing.
    let mut t3 = trx(3, 5);
    stamp_positions(&mut t3.bytes, good_end, true).unwrap();
    let without_xid = t3.bytes.len() - 31;
    let mut t4 = trx(4, 500);
    stamp_positions(&mut t4.bytes, good_end + without_xid as u64, true).unwrap();
    let path = dir.path().join("binlog.000001");
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(&t3.bytes[..without_xid]).unwrap();
    f.write_all(&t4.bytes[..t4.bytes.len() / 2]).unwrap();
    drop(f);
    drop(files); // no close: the in-use flag stays set
    let torn_len = fs::metadata(&path).unwrap().len();
    let (files, report) = BinlogFiles::open(config(dir.path())).unwrap();
    assert!(report.crashed);
    assert_eq!(
        report.truncated,
        vec![("binlog.000001".to_string(), torn_len, good_end)]
    );
    assert_eq!(fs::metadata(&path).unwrap().len(), good_end);
    assert_eq!(report.gtid_executed.format_with(","), format!("{UUID}:1-2"));
    assert_eq!(report.xids, vec![1001, 2002]);
    assert!(!scan_file(&path).unwrap().in_use);
    let prev = read_previous_gtids(&dir.path().join(files.current_file())).unwrap();
    assert_eq!(prev, report.gtid_executed);
}

#[test]
fn recovery_stops_at_a_corrupt_event() {
    let dir = tempfile::tempdir().unwrap();
    let (mut files, _) = BinlogFiles::open(config(dir.path())).unwrap();
    let first = files.append(trx(1, 5)).unwrap();
    files.append(trx(2, 5)).unwrap();
    drop(files);
    let path = dir.path().join("binlog.000001");
    let mut bytes = fs::read(&path).unwrap();
    bytes[first.end as usize + 30] ^= 0xff; // inside the second GTID event
    fs::write(&path, &bytes).unwrap();
    let (_, report) = BinlogFiles::open(config(dir.path())).unwrap();
    assert_eq!(report.truncated[0].2, first.end);
    assert_eq!(report.gtid_executed.format_with(","), format!("{UUID}:1"));
}

#[test]
fn recovery_drops_a_file_with_a_torn_header() {
    let dir = tempfile::tempdir().unwrap();
    let (mut files, _) = BinlogFiles::open(config(dir.path())).unwrap();
    files.append(trx(1, 5)).unwrap();
    files.rotate().unwrap();
    drop(files);
    let second = dir.path().join("binlog.000002");
    let bytes = fs::read(&second).unwrap();
    fs::write(&second, &bytes[..60]).unwrap();
    let (files, report) = BinlogFiles::open(config(dir.path())).unwrap();
    assert_eq!(report.removed, vec!["binlog.000002".to_string()]);
    assert_eq!(report.gtid_executed.format_with(","), format!("{UUID}:1"));
    assert_eq!(files.files(), ["binlog.000001", "binlog.000002"]);
    // Recreated: magic, FORMAT_DESCRIPTION, PREVIOUS_GTIDS with one interval (19 + 48 + 4).
    assert_eq!(fs::metadata(&second).unwrap().len(), 4 + 123 + 71);
}

#[test]
fn a_non_binlog_file_is_an_error_not_truncated() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("binlog.index"), "./binlog.000001\n").unwrap();
    fs::write(dir.path().join("binlog.000001"), b"hello world").unwrap();
    assert!(BinlogFiles::open(config(dir.path())).is_err());
    assert_eq!(
        fs::read(dir.path().join("binlog.000001")).unwrap(),
        b"hello world"
    );
}

#[test]
fn purge_and_reset() {
    let dir = tempfile::tempdir().unwrap();
    let (mut files, _) = BinlogFiles::open(config(dir.path())).unwrap();
    for g in 1..=4 {
        files.append(trx(g, 5)).unwrap();
        files.rotate().unwrap();
    }
    assert_eq!(files.files().len(), 5);
    assert!(files.purge_to("binlog.000009").is_err());
    assert_eq!(
        files.purge_to("binlog.000003").unwrap(),
        ["binlog.000001", "binlog.000002"]
    );
    assert!(!dir.path().join("binlog.000001").exists());
    assert_eq!(
        fs::read_to_string(dir.path().join("binlog.index")).unwrap(),
        "./binlog.000003\n./binlog.000004\n./binlog.000005\n"
    );
    assert_eq!(files.gtid_purged().format_with(","), format!("{UUID}:1-2"));
    // Nothing is older than an hour ago; everything but the current file is older than later.
    assert!(files
        .purge_before(SystemTime::now() - Duration::from_secs(3600))
        .unwrap()
        .is_empty());
    let gone = files
        .purge_before(SystemTime::now() + Duration::from_secs(3600))
        .unwrap();
    assert_eq!(gone, ["binlog.000003", "binlog.000004"]);
    assert_eq!(files.files(), ["binlog.000005"]);
    assert_eq!(files.gtid_purged().format_with(","), format!("{UUID}:1-4"));
    assert_eq!(
        files.gtid_executed().format_with(","),
        format!("{UUID}:1-4")
    );
    files.reset().unwrap();
    assert_eq!(files.files(), ["binlog.000001"]);
    assert!(files.gtid_executed().is_empty() && files.gtid_purged().is_empty());
    assert!(!dir.path().join("binlog.000005").exists());
}

#[test]
fn reader_verifies_checksums_and_waits_on_a_partial_tail() {
    let dir = tempfile::tempdir().unwrap();
    let (mut files, _) = BinlogFiles::open(config(dir.path())).unwrap();
    let p = files.append(trx(1, 5)).unwrap();
    let path = dir.path().join("binlog.000001");
    let mut t2 = trx(2, 5);
    stamp_positions(&mut t2.bytes, p.end, true).unwrap();
    let mut f = OpenOptions::new().append(true).open(&path).unwrap();
    f.write_all(&t2.bytes[..10]).unwrap();
    let mut r = BinlogReader::open(&path, p.start).unwrap();
    let mut n = 0;
    loop {
        match r.next_event() {
            Ok(Some(_)) => n += 1,
            Err(BinlogError::Truncated { .. }) => break,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(r.position(), p.end);
    f.write_all(&t2.bytes[10..]).unwrap();
    let rest: Vec<_> = std::iter::from_fn(|| r.next_event().unwrap()).collect();
    assert_eq!(n, 5);
    assert_eq!(rest.len(), 5);
    // A flipped byte is caught by the checksum.
    let mut bytes = fs::read(&path).unwrap();
    bytes[p.start as usize + 40] ^= 1;
    fs::write(&path, &bytes).unwrap();
    let mut r = BinlogReader::open(&path, p.start).unwrap();
    assert!(matches!(r.next_event(), Err(BinlogError::Checksum { .. })));
}

#[test]
fn statement_format_transactions_end_at_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (mut files, _) = BinlogFiles::open(config(dir.path())).unwrap();
    let meta = EventMeta {
        timestamp: 1,
        server_id: 1,
        ..EventMeta::default()
    };
    let q = |sql: &str| {
        Event::Query(QueryEvent::ddl(1, "db", sql, StatusVars::mysql_defaults()))
            .encode(&meta)
            .unwrap()
    };
    let gtid = Event::Gtid(GtidEvent {
        uuid: uuid(),
        gno: 2,
        ..GtidEvent::default()
    });
    let mut bytes = gtid.encode(&meta).unwrap();
    bytes.extend(q("BEGIN"));
    bytes.extend(q("INSERT INTO t VALUES (1)"));
    let before_commit = bytes.len();
    bytes.extend(q("COMMIT"));
    let start = files.append(trx(1, 1)).unwrap().end;
    drop(files);
    let path = dir.path().join("binlog.000001");
    // Without its COMMIT the statement transaction is torn; with it, it is complete.
    let mut partial = bytes[..before_commit].to_vec();
    stamp_positions(&mut partial, start, true).unwrap();
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&partial)
        .unwrap();
    let torn = scan_file(&path).unwrap();
    assert_eq!(torn.valid_end, start);
    assert!(!torn.gtids.contains(&uuid(), 2));
    let f = OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(start).unwrap();
    stamp_positions(&mut bytes, start, true).unwrap();
    OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&bytes)
        .unwrap();
    let scan = scan_file(&path).unwrap();
    assert_eq!(scan.valid_end, start + bytes.len() as u64);
    assert!(scan.gtids.contains(&uuid(), 2));
}
