//! Integration tests of [`storage_rocks::RocksEngine`]: the shared KV conformance suite, the
//! shared transaction/catalog suite, and restart behaviour (durability, drop markers).

use std::sync::Arc;
use std::time::Duration;

use common::Value;
use storage::catalog::keys;
use storage::engine::{Cf, KvEngine, WriteBatch};
use storage::testutil::{self, urow, users};
use storage::{InsertOutcome, LockMode, Storage, StorageOptions, TxnOptions};
use storage_rocks::{RocksEngine, RocksOptions};

fn small() -> RocksOptions {
    RocksOptions {
        block_cache_bytes: 8 << 20,
        write_buffer_size: 4 << 20,
        ..Default::default()
    }
}

/// [`small`] with the row and range caches on.
fn small_cached() -> RocksOptions {
    RocksOptions {
        row_cache_bytes: 4 << 20,
        ..small()
    }
}

#[test]
fn conformance() {
    let dir = tempfile::tempdir().unwrap();
    let e = RocksEngine::open(dir.path(), small()).unwrap();
    testutil::conformance(&e);
    drop(e);
}

#[test]
fn txn_suite() {
    testutil::txn_suite::<RocksEngine>(&|o| {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), small()).unwrap();
        (Storage::open(e, o).unwrap(), Box::new(dir))
    });
}

#[test]
fn conformance_with_caches() {
    let dir = tempfile::tempdir().unwrap();
    let e = RocksEngine::open(dir.path(), small_cached()).unwrap();
    testutil::conformance(&e);
    drop(e);
}

#[test]
fn txn_suite_with_caches() {
    testutil::txn_suite::<RocksEngine>(&|o| {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), small_cached()).unwrap();
        (Storage::open(e, o).unwrap(), Box::new(dir))
    });
}

/// Reopens the data directory within this process.
///
/// Known issue (to investigate): when `txn_suite` runs concurrently in this test binary, the
/// reopen right after closing can briefly find RocksDB's in-process lock on this directory still
/// held ("lock hold by current process") even though every handle was dropped; it never happens
/// with the test alone (0/30 runs). A production restart is a new process, so only this
/// same-process reopen retries, for at most 10 s.
fn reopen_engine(path: &std::path::Path) -> RocksEngine {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match RocksEngine::open(path, small()) {
            Ok(e) => return e,
            Err(e) if e.msg.contains("in use") && std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(50))
            }
            Err(e) => panic!("{e}"),
        }
    }
}

fn open(path: &std::path::Path) -> Arc<Storage<RocksEngine>> {
    Storage::open(reopen_engine(path), StorageOptions::default()).unwrap()
}

#[test]
fn restart_keeps_data_and_finishes_drops() {
    let dir = tempfile::tempdir().unwrap();
    let (t_old, t_keep) = {
        let st = open(dir.path());
        let t = users(&st, "d", "gone");
        let k = users(&st, "d", "kept");
        let mut tx = st.begin(TxnOptions::default());
        for i in 1..=300 {
            assert!(matches!(
                tx.insert(&t, &urow(i, None, Some(i))).unwrap(),
                InsertOutcome::Inserted(_)
            ));
            assert!(matches!(
                tx.insert(&k, &urow(i, Some(&format!("e{i}")), None))
                    .unwrap(),
                InsertOutcome::Inserted(_)
            ));
        }
        tx.commit(true).unwrap();
        st.engine().flush().unwrap();
        st.wait_background_idle(Duration::from_secs(30));
        (t, k)
    };
    // Simulate a crash between the DROP's commit and its background compaction: write the
    // same atomic batch DROP TABLE writes, without the background step.
    {
        let e = reopen_engine(dir.path());
        let mut b = WriteBatch::new();
        b.delete(Cf::Dict, keys::table("d", "gone"));
        for idx in &t_old.indexes {
            let (lo, hi) = storage::codec::key::index_range(idx.id);
            b.delete_range(Cf::Data, lo, hi);
            b.put(Cf::Dict, keys::drop_marker(idx.id), Vec::new());
        }
        e.write(&b, true).unwrap();
    }
    let st = open(dir.path());
    assert!(st.wait_background_idle(Duration::from_secs(30)));
    assert_eq!(
        st.pending_drop_markers().unwrap(),
        0,
        "markers processed after restart"
    );
    assert!(st.get_table("d", "gone").unwrap().is_none());
    for idx in &t_old.indexes {
        let (lo, hi) = storage::codec::key::index_range(idx.id);
        assert!(!st.engine().iter(Cf::Data, &lo, Some(&hi), false).valid());
    }
    // The other table survived, with its indexes, and counters resume after the data.
    let k = st.get_table("d", "kept").unwrap().unwrap();
    assert_eq!(*k, *t_keep);
    let mut tx = st.begin(TxnOptions::default());
    assert_eq!(tx.scan_all(&k).unwrap().count(), 300);
    let (_, row) = tx
        .get_by_pk(&k, &[Value::Int(7)], LockMode::None)
        .unwrap()
        .unwrap();
    assert_eq!(row, urow(7, Some("e7"), None));
    assert!(matches!(
        tx.insert(&k, &urow(1000, Some("E7"), None)).unwrap(),
        InsertOutcome::Duplicate { index_no: 1, .. }
    ));
    assert_eq!(st.autoinc_next(&k, 1).unwrap(), 301);
    // A new table gets fresh index ids (the counter is persistent).
    let n = users(&st, "d", "gone");
    assert!(n
        .indexes
        .iter()
        .all(|i| i.id > t_keep.indexes.iter().map(|x| x.id).max().unwrap_or(0)));
    assert_eq!(tx.scan_all(&n).unwrap().count(), 0);
    tx.rollback();
    // DROP TABLE through the API, then restart: gone for good.
    st.drop_table("d", "kept").unwrap();
    assert!(st.wait_background_idle(Duration::from_secs(30)));
    drop(st);
    let st = open(dir.path());
    assert!(st.get_table("d", "kept").unwrap().is_none());
    assert_eq!(st.list_tables("d").unwrap(), vec!["gone".to_string()]);
    let (rows, _, _) = st.table_stats(&n).unwrap();
    assert_eq!(rows, 0);
}

#[test]
fn stats_count_memtable_data() {
    let dir = tempfile::tempdir().unwrap();
    let st = open(dir.path());
    let t = users(&st, "d", "s");
    let mut tx = st.begin(TxnOptions::default());
    for i in 1..=2000 {
        tx.insert(&t, &urow(i, Some(&format!("user{i}@example.com")), Some(i)))
            .unwrap();
    }
    tx.commit(false).unwrap();
    let (rows, data, index) = st.table_stats(&t).unwrap();
    assert!(data > 0 && index > 0, "data {data} index {index}");
    assert!(rows >= 100, "rows {rows}");
    st.engine().flush().unwrap();
    let (rows, data, _) = st.table_stats(&t).unwrap();
    assert!(data > 0);
    assert!((500..=8000).contains(&rows), "rows {rows}");
}
