//! The dump against a log over the in-memory engine: what is sent, in which order, and when.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use binlog::event::types;
use binlog::{decode_event, Event, GtidSet, Uuid};
use storage::mem::MemEngine;
use storage::{Storage, StorageOptions};

use super::*;
use crate::service::{Binlog, BinlogOptions};

const UUID: &str = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

fn log(dir: &std::path::Path) -> (Arc<Storage<MemEngine>>, Arc<Binlog<MemEngine>>) {
    let st = Storage::open(MemEngine::new(), StorageOptions::default()).unwrap();
    let opts = BinlogOptions {
        dir: dir.to_path_buf(),
        basename: "binlog".into(),
        server_id: 1,
        server_uuid: Uuid::parse(UUID).unwrap(),
        max_size: 1 << 30,
        gtid_mode: true,
        server_version: "8.4.7-strata".into(),
        sync_every: 1,
    };
    let log = Binlog::open(&st, opts).unwrap();
    (st, log)
}

fn request(file: &str, pos: u64) -> DumpRequest {
    DumpRequest {
        file: file.into(),
        pos,
        exclude: None,
        non_block: true,
        heartbeat: None,
        checksum_aware: true,
        stop: Arc::new(AtomicBool::new(false)),
    }
}

/// Every event until the end, decoded.
fn drain(d: &mut BinlogDump<MemEngine>) -> Vec<binlog::DecodedEvent> {
    let mut out = Vec::new();
    loop {
        match d.next(Duration::from_millis(10)).unwrap() {
            DumpStep::Event(b) => out.push(decode_event(&b, true).unwrap()),
            DumpStep::End => return out,
            other => panic!("unexpected {other:?}"),
        }
    }
}

fn kinds(evs: &[binlog::DecodedEvent]) -> Vec<u8> {
    evs.iter().map(|e| e.header.type_code).collect()
}

fn queries(evs: &[binlog::DecodedEvent]) -> Vec<String> {
    evs.iter()
        .filter_map(|e| match &e.event {
            Event::Query(q) => Some(q.query_text().to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn from_the_start_then_across_a_rotation() {
    let dir = tempfile::tempdir().unwrap();
    let (_st, log) = log(dir.path());
    log.log_ddl(1, Some("db"), "CREATE TABLE a (x INT)")
        .unwrap();
    log.rotate().unwrap();
    log.log_ddl(1, Some("db"), "CREATE TABLE b (x INT)")
        .unwrap();
    let mut d = BinlogDump::start(log.clone(), request("", 4)).unwrap();
    let evs = drain(&mut d);
    use types::*;
    assert_eq!(
        kinds(&evs),
        [
            ROTATE,
            FORMAT_DESCRIPTION,
            PREVIOUS_GTIDS,
            GTID,
            QUERY,
            ROTATE, // binlog.000001
            ROTATE,
            FORMAT_DESCRIPTION,
            PREVIOUS_GTIDS,
            GTID,
            QUERY // binlog.000002
        ]
    );
    // the artificial rotate: timestamp 0, log_pos 0, ARTIFICIAL, naming the file
    let fake = &evs[0];
    assert_eq!((fake.header.timestamp, fake.header.log_pos), (0, 0));
    assert_eq!(fake.header.flags, flags::ARTIFICIAL);
    match &fake.event {
        Event::Rotate(r) => assert_eq!((r.next_file.as_str(), r.position), ("binlog.000001", 4)),
        e => panic!("{e:?}"),
    }
    // the file's format description goes out with the in-use flag cleared, log_pos kept
    assert_eq!(evs[1].header.flags & flags::BINLOG_IN_USE, 0);
    assert_ne!(evs[1].header.log_pos, 0);
    assert_eq!(
        queries(&evs),
        ["CREATE TABLE a (x INT)", "CREATE TABLE b (x INT)"]
    );
    match &evs[6].event {
        Event::Rotate(r) => assert_eq!(r.next_file, "binlog.000002"),
        e => panic!("{e:?}"),
    }
    assert_eq!(d.position().0, "binlog.000002");
}

#[test]
fn from_a_position_zeroes_the_format_description_position() {
    let dir = tempfile::tempdir().unwrap();
    let (_st, log) = log(dir.path());
    log.log_ddl(1, None, "CREATE DATABASE d1").unwrap();
    let (file, pos) = log.status();
    log.log_ddl(1, None, "CREATE DATABASE d2").unwrap();
    let mut d = BinlogDump::start(log.clone(), request(&file, pos)).unwrap();
    let evs = drain(&mut d);
    assert_eq!(
        kinds(&evs),
        [
            types::ROTATE,
            types::FORMAT_DESCRIPTION,
            types::GTID,
            types::QUERY
        ]
    );
    assert_eq!(evs[1].header.log_pos, 0);
    match &evs[1].event {
        Event::FormatDescription(f) => assert_eq!(f.created, 0),
        e => panic!("{e:?}"),
    }
    assert_eq!(queries(&evs), ["CREATE DATABASE d2"]);
}

#[test]
fn gtid_dump_skips_what_the_replica_has_and_reports_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let (_st, log) = log(dir.path());
    for i in 1..=3 {
        log.log_ddl(1, None, &format!("CREATE DATABASE g{i}"))
            .unwrap();
    }
    let mut req = request("", 4);
    req.exclude = Some(GtidSet::parse(&format!("{UUID}:1-2")).unwrap());
    let mut d = BinlogDump::start(log.clone(), req).unwrap();
    let evs = drain(&mut d);
    assert_eq!(queries(&evs), ["CREATE DATABASE g3"]);
    // a heartbeat carries the position after the skipped transactions, before GTID 3
    let hb = evs
        .iter()
        .position(|e| e.header.type_code == types::HEARTBEAT)
        .expect("heartbeat");
    match &evs[hb + 1].event {
        Event::Gtid(g) => assert_eq!(g.gno, 3),
        e => panic!("{e:?}"),
    }
    assert!(evs[hb].header.log_pos > 4);
}

#[test]
fn start_errors_are_1236_with_mysql_texts() {
    let dir = tempfile::tempdir().unwrap();
    let (_st, log) = log(dir.path());
    log.log_ddl(1, None, "CREATE DATABASE e1").unwrap();
    let err = |r: DumpRequest| match BinlogDump::start(log.clone(), r) {
        Err(e) => {
            assert_eq!(e.code.num, 1236);
            e.msg
        }
        Ok(_) => panic!("accepted"),
    };
    assert!(err(request("binlog.999999", 4)).contains("Could not find first log file name"));
    assert!(err(request("binlog.000001", 3)).contains("position < 4"));
    assert!(err(request("binlog.000001", 1 << 20)).contains("position > file size"));
    let mut unaware = request("", 4);
    unaware.checksum_aware = false;
    assert!(err(unaware).contains("can not handle replication events with the checksum"));
    let mut more = request("", 4);
    more.exclude = Some(GtidSet::parse(&format!("{UUID}:1-5")).unwrap());
    assert!(err(more).contains("Replica has more GTIDs than the source has"));
    // purged: the first file's transactions are gone
    log.rotate().unwrap();
    log.purge_to("binlog.000002").unwrap();
    let mut purged = request("", 4);
    purged.exclude = Some(GtidSet::new());
    let msg = err(purged);
    assert!(msg.contains("source purged required binary logs"), "{msg}");
    assert!(
        msg.contains(&format!("missing transactions are '{UUID}:1'")),
        "{msg}"
    );
}

#[test]
fn a_blocking_dump_waits_for_a_commit_and_sends_heartbeats() {
    let dir = tempfile::tempdir().unwrap();
    let (_st, log) = log(dir.path());
    let mut req = request("", 4);
    req.non_block = false;
    req.heartbeat = Some(Duration::from_millis(100));
    let mut d = BinlogDump::start(log.clone(), req).unwrap();
    // rotate, format description, previous gtids
    for _ in 0..3 {
        assert!(matches!(
            d.next(Duration::from_secs(1)).unwrap(),
            DumpStep::Event(_)
        ));
    }
    // nothing new: a heartbeat after the period, naming the file and the position
    let t = std::time::Instant::now();
    let hb = match d.next(Duration::from_secs(5)).unwrap() {
        DumpStep::Event(b) => decode_event(&b, true).unwrap(),
        other => panic!("{other:?}"),
    };
    assert!(t.elapsed() >= Duration::from_millis(90));
    assert_eq!(hb.event, Event::Heartbeat("binlog.000001".into()));
    assert_eq!(u64::from(hb.header.log_pos), log.status().1);
    // a commit from another thread wakes the waiting dump at once
    let l2 = log.clone();
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        l2.log_ddl(1, None, "CREATE DATABASE w").unwrap();
    });
    let t = std::time::Instant::now();
    let ev = match d.next(Duration::from_secs(5)).unwrap() {
        DumpStep::Event(b) => decode_event(&b, true).unwrap(),
        other => panic!("{other:?}"),
    };
    assert_eq!(ev.header.type_code, types::GTID);
    assert!(t.elapsed() < Duration::from_millis(95), "{:?}", t.elapsed());
    writer.join().unwrap();
    // without heartbeats an idle dump returns after the wait
    let mut quiet = request("", 4);
    quiet.non_block = false;
    let stop = quiet.stop.clone();
    let mut q = BinlogDump::start(log.clone(), quiet).unwrap();
    while let DumpStep::Event(_) = q.next(Duration::from_millis(20)).unwrap() {}
    assert_eq!(q.next(Duration::from_millis(20)).unwrap(), DumpStep::Idle);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(
        q.next(Duration::from_millis(20)).unwrap(),
        DumpStep::Stopped
    );
}
