//! Test helpers shared by this crate and engine crates (feature `testutil`): the [`KvEngine`]
//! conformance suite ([`conformance`]) and the transaction/catalog suite ([`txn_suite`]), both
//! generic over the engine so MemEngine and RocksEngine run the same checks.
#![allow(clippy::unwrap_used, missing_docs)]

use std::any::Any;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Collation, DataType, Value};

use crate::catalog::{
    ColumnDef, DatabaseDef, IndexColumn, IndexDef, IndexKind, TableDef, TableOptions,
};
use crate::engine::{Cf, KvEngine, KvIter, KvSnapshot, WriteBatch};
use crate::txn::lock::WaitCtx;
use crate::{
    IndexRange, InsertOutcome, Isolation, LockMode, Storage, StorageOptions, TxnOptions,
    UpdateOutcome,
};

fn collect(mut it: Box<dyn KvIter + '_>) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut v = Vec::new();
    while it.valid() {
        v.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().unwrap();
    v
}

fn keys(v: &[(Vec<u8>, Vec<u8>)]) -> Vec<Vec<u8>> {
    v.iter().map(|(k, _)| k.clone()).collect()
}

fn put(e: &impl KvEngine, cf: Cf, k: &[u8], v: &[u8]) {
    let mut b = WriteBatch::new();
    b.put(cf, k.to_vec(), v.to_vec());
    e.write(&b, false).unwrap();
}

/// The KV engine conformance suite; `e` must be empty.
pub fn conformance<E: KvEngine>(e: &E) {
    // get / put / delete / multi_get, column families are separate.
    assert_eq!(e.get(Cf::Data, b"a").unwrap(), None);
    put(e, Cf::Data, b"a", b"1");
    put(e, Cf::Dict, b"a", b"dict");
    assert_eq!(e.get(Cf::Data, b"a").unwrap(), Some(b"1".to_vec()));
    assert_eq!(e.get(Cf::Dict, b"a").unwrap(), Some(b"dict".to_vec()));
    let mut b = WriteBatch::new();
    b.put(Cf::Data, b"b".to_vec(), b"2".to_vec());
    b.put(Cf::Data, b"c".to_vec(), b"3".to_vec());
    b.put(Cf::Data, b"x".to_vec(), b"0".to_vec());
    b.delete(Cf::Data, b"x".to_vec());
    b.put(Cf::Data, b"ab".to_vec(), b"12".to_vec());
    b.put(Cf::Data, vec![0xFF, 0xFF], b"max".to_vec());
    assert_eq!(b.len(), 6);
    e.write(&b, true).unwrap();
    assert_eq!(
        e.get(Cf::Data, b"x").unwrap(),
        None,
        "later ops in a batch win"
    );
    assert_eq!(
        e.multi_get(Cf::Data, &[b"c".to_vec(), b"nope".to_vec(), b"a".to_vec()])
            .unwrap(),
        vec![Some(b"3".to_vec()), None, Some(b"1".to_vec())]
    );
    // Iteration order and bounds.
    let all = collect(e.iter(Cf::Data, b"", None, false));
    assert_eq!(
        keys(&all),
        vec![
            b"a".to_vec(),
            b"ab".to_vec(),
            b"b".to_vec(),
            b"c".to_vec(),
            vec![0xFF, 0xFF]
        ]
    );
    assert_eq!(all[1].1, b"12".to_vec());
    let rev = collect(e.iter(Cf::Data, b"", None, true));
    assert_eq!(
        keys(&rev),
        vec![
            vec![0xFF, 0xFF],
            b"c".to_vec(),
            b"b".to_vec(),
            b"ab".to_vec(),
            b"a".to_vec()
        ]
    );
    let mid = collect(e.iter(Cf::Data, b"ab", Some(b"c"), false));
    assert_eq!(keys(&mid), vec![b"ab".to_vec(), b"b".to_vec()]);
    let mid_rev = collect(e.iter(Cf::Data, b"ab", Some(b"c"), true));
    assert_eq!(keys(&mid_rev), vec![b"b".to_vec(), b"ab".to_vec()]);
    assert!(collect(e.iter(Cf::Data, b"c", Some(b"c"), false)).is_empty());
    assert!(collect(e.iter(Cf::Data, b"d", Some(b"c"), true)).is_empty());
    assert_eq!(
        keys(&collect(e.iter(Cf::Dict, b"", None, false))),
        vec![b"a".to_vec()]
    );
    // Snapshot isolation.
    let s = e.snapshot();
    put(e, Cf::Data, b"a", b"changed");
    put(e, Cf::Data, b"new", b"n");
    let mut b = WriteBatch::new();
    b.delete(Cf::Data, b"b".to_vec());
    e.write(&b, false).unwrap();
    assert_eq!(s.get(Cf::Data, b"a").unwrap(), Some(b"1".to_vec()));
    assert_eq!(s.get(Cf::Data, b"new").unwrap(), None);
    assert_eq!(s.get(Cf::Data, b"b").unwrap(), Some(b"2".to_vec()));
    assert_eq!(
        s.multi_get(Cf::Data, &[b"a".to_vec(), b"new".to_vec()])
            .unwrap(),
        vec![Some(b"1".to_vec()), None]
    );
    assert_eq!(
        keys(&collect(s.iter(Cf::Data, b"a", Some(b"z"), false))),
        vec![b"a".to_vec(), b"ab".to_vec(), b"b".to_vec(), b"c".to_vec()]
    );
    assert_eq!(
        keys(&collect(s.iter(Cf::Data, b"a", Some(b"z"), true))).len(),
        4
    );
    assert_eq!(e.get(Cf::Data, b"a").unwrap(), Some(b"changed".to_vec()));
    // Delete range [ab, c): removes ab (b already gone), keeps a and c.
    let s2 = e.snapshot();
    let mut b = WriteBatch::new();
    b.delete_range(Cf::Data, b"ab".to_vec(), b"c".to_vec());
    e.write(&b, true).unwrap();
    assert_eq!(
        keys(&collect(e.iter(Cf::Data, b"", Some(b"d"), false))),
        vec![b"a".to_vec(), b"c".to_vec()]
    );
    assert_eq!(
        s2.get(Cf::Data, b"ab").unwrap(),
        Some(b"12".to_vec()),
        "snapshots keep range-deleted keys"
    );
    drop(s2);
    drop(s);
    // Many keys: iterators cross internal batch boundaries.
    let mut b = WriteBatch::new();
    for i in 0..1000u32 {
        let mut k = b"m".to_vec();
        k.extend_from_slice(&i.to_be_bytes());
        b.put(Cf::Data, k, i.to_le_bytes().to_vec());
    }
    e.write(&b, false).unwrap();
    let ms = collect(e.iter(Cf::Data, b"m", Some(b"n"), false));
    assert_eq!(ms.len(), 1000);
    assert!(ms.windows(2).all(|w| w[0].0 < w[1].0));
    let msr = collect(e.iter(Cf::Data, b"m", Some(b"n"), true));
    assert_eq!(msr.len(), 1000);
    assert!(msr.windows(2).all(|w| w[0].0 > w[1].0));
    e.compact_range(Cf::Data, None, None).unwrap();
    e.flush().unwrap();
    assert!(e.approximate_size(Cf::Data, b"m", b"n") > 0);
    assert_eq!(e.get(Cf::Data, b"c").unwrap(), Some(b"3".to_vec()));
}

// ---- table fixtures ----

/// `INT` (signed, 4 bytes).
pub fn int_ty() -> DataType {
    DataType::Int {
        bytes: 4,
        unsigned: false,
        width: None,
        zerofill: false,
    }
}

/// A column.
pub fn column(name: &str, ty: DataType, nullable: bool) -> ColumnDef {
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

/// An index over columns `cols`.
pub fn index(name: &str, kind: IndexKind, cols: &[usize]) -> IndexDef {
    IndexDef {
        id: 0,
        name: name.into(),
        kind,
        columns: cols
            .iter()
            .map(|c| IndexColumn {
                col: *c,
                prefix_len: None,
                desc: false,
            })
            .collect(),
        comment: String::new(),
        options: Default::default(),
    }
}

/// Creates database `db` if missing.
pub fn ensure_db<E: KvEngine>(st: &Storage<E>, db: &str) {
    if st.get_database(db).unwrap().is_none() {
        st.create_database(DatabaseDef {
            name: db.into(),
            collation: Collation::default(),
        })
        .unwrap();
    }
}

/// `users(id INT PRIMARY KEY AUTO_INCREMENT, email VARCHAR(50) UNIQUE (ci), age INT, KEY(age))`.
pub fn users<E: KvEngine>(st: &Storage<E>, db: &str, name: &str) -> Arc<TableDef> {
    ensure_db(st, db);
    let mut id = column("id", int_ty(), false);
    id.auto_increment = true;
    st.create_table(TableDef {
        foreign_keys: Vec::new(),
        checks: Vec::new(),
        temporary: false,
        partitioning: None,
        leaf: None,
        part_select: None,
        id: 0,
        db: db.into(),
        name: name.into(),
        columns: vec![
            id,
            column(
                "email",
                DataType::VarChar {
                    len: 50,
                    collation: Collation::Utf8mb4_0900AiCi,
                },
                true,
            ),
            column("age", int_ty(), true),
        ],
        indexes: vec![
            index("PRIMARY", IndexKind::Primary, &[0]),
            index("email", IndexKind::Unique, &[1]),
            index("age", IndexKind::Normal, &[2]),
        ],
        hidden_pk: false,
        version: 0,
        options: TableOptions::default(),
    })
    .unwrap()
}

/// A users row.
pub fn urow(id: i64, email: Option<&str>, age: Option<i64>) -> Vec<Value> {
    vec![
        Value::Int(id),
        email.map_or(Value::Null, |e| Value::Str(e.into())),
        age.map_or(Value::Null, Value::Int),
    ]
}

fn opts(timeout_ms: u64) -> TxnOptions {
    TxnOptions {
        isolation: Isolation::RepeatableRead,
        wait: WaitCtx {
            timeout: Duration::from_millis(timeout_ms),
            ..Default::default()
        },
    }
}

fn ids<E: KvEngine>(it: crate::RowIter<E>) -> Vec<i64> {
    it.map(|r| match r.unwrap().1[0] {
        Value::Int(i) => i,
        ref v => panic!("unexpected {v:?}"),
    })
    .collect()
}

fn insert_ok<E: KvEngine>(tx: &mut crate::Txn<E>, t: &TableDef, row: Vec<Value>) -> Vec<u8> {
    match tx.insert(t, &row).unwrap() {
        InsertOutcome::Inserted(h) => h,
        d => panic!("unexpected {d:?}"),
    }
}

/// A storage factory: returns a fresh storage plus a guard (e.g. a temp dir) to drop after it.
pub type Factory<'a, E> = &'a dyn Fn(StorageOptions) -> (Arc<Storage<E>>, Box<dyn Any>);

/// Runs every transaction/catalog test on fresh storages from `make`.
pub fn txn_suite<E: KvEngine>(make: Factory<'_, E>) {
    type Test<E> = (&'static str, fn(&Arc<Storage<E>>));
    let tests: Vec<Test<E>> = vec![
        ("read_your_writes", read_your_writes::<E>),
        ("isolation_levels", isolation_levels::<E>),
        (
            "statement_rollback_and_savepoints",
            statement_rollback_and_savepoints::<E>,
        ),
        ("duplicates", duplicates::<E>),
        ("pk_high_water_mark", pk_high_water_mark::<E>),
        ("update_and_indexes", update_and_indexes::<E>),
        ("scan_ranges", scan_ranges::<E>),
        ("blocking_and_timeout", blocking_and_timeout::<E>),
        ("deadlock", deadlock::<E>),
        ("kill_interrupts_wait", kill_interrupts_wait::<E>),
        ("drop_and_truncate", drop_and_truncate::<E>),
        ("index_statistics", index_statistics::<E>),
        ("add_and_drop_index", add_and_drop_index::<E>),
        ("autoinc_and_hidden_pk", autoinc_and_hidden_pk::<E>),
        ("ddl_errors_and_rename", ddl_errors_and_rename::<E>),
        ("online_alter_and_replace", online_alter_and_replace::<E>),
        ("locking_reads", locking_reads::<E>),
    ];
    for (name, f) in tests {
        let (st, guard) = make(StorageOptions::default());
        eprintln!("txn_suite: {name}");
        f(&st);
        assert!(
            st.wait_background_idle(Duration::from_secs(30)),
            "{name}: background drops idle"
        );
        drop(st);
        drop(guard);
    }
    let (st, guard) = make(StorageOptions {
        table_definition_cache: 100,
    });
    lru_bound(&st);
    drop(st);
    drop(guard);
}

pub fn read_your_writes<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    for i in [5, 1, 3] {
        insert_ok(&mut tx, &t, urow(i, Some(&format!("e{i}")), Some(i * 10)));
    }
    tx.commit(true).unwrap();
    let mut tx = st.begin(opts(1000));
    insert_ok(&mut tx, &t, urow(2, Some("e2"), Some(20)));
    insert_ok(&mut tx, &t, urow(9, None, None));
    let (h, old) = tx
        .get_by_pk(&t, &[Value::Int(3)], LockMode::None)
        .unwrap()
        .unwrap();
    tx.delete(&t, &h, &old).unwrap();
    let (h, old) = tx
        .get_by_pk(&t, &[Value::Int(5)], LockMode::None)
        .unwrap()
        .unwrap();
    assert!(matches!(
        tx.update(&t, &h, &old, &urow(5, Some("e5"), Some(1)))
            .unwrap(),
        UpdateOutcome::Updated(_)
    ));
    assert_eq!(ids(tx.scan_all(&t).unwrap()), vec![1, 2, 5, 9]);
    assert_eq!(
        ids(tx
            .scan(&t, 0, IndexRange::all(), true, LockMode::None)
            .unwrap()),
        vec![9, 5, 2, 1]
    );
    // Secondary index on age: NULL first, then 1 (id 5), 10 (id 1), 20 (id 2).
    assert_eq!(
        ids(tx
            .scan(&t, 2, IndexRange::all(), false, LockMode::None)
            .unwrap()),
        vec![9, 5, 1, 2]
    );
    assert_eq!(
        ids(tx
            .scan(&t, 2, IndexRange::all(), true, LockMode::None)
            .unwrap()),
        vec![2, 1, 5, 9]
    );
    assert!(tx
        .get_by_pk(&t, &[Value::Int(3)], LockMode::None)
        .unwrap()
        .is_none());
    let got = tx
        .multi_get_by_pk(
            &t,
            &[
                vec![Value::Int(2)],
                vec![Value::Int(3)],
                vec![Value::Int(1)],
            ],
            LockMode::None,
        )
        .unwrap();
    assert!(got[0].is_some() && got[1].is_none() && got[2].is_some());
    // Another transaction does not see uncommitted writes.
    let mut other = st.begin(opts(1000));
    assert_eq!(ids(other.scan_all(&t).unwrap()), vec![1, 3, 5]);
    tx.commit(false).unwrap();
    other.rollback();
    let mut tx = st.begin(opts(1000));
    assert_eq!(ids(tx.scan_all(&t).unwrap()), vec![1, 2, 5, 9]);
    assert_eq!(
        tx.get_by_pk(&t, &[Value::Int(5)], LockMode::None)
            .unwrap()
            .unwrap()
            .1,
        urow(5, Some("e5"), Some(1))
    );
    // A scan opened before a write keeps its view (no Halloween problem).
    let it = tx.scan_all(&t).unwrap();
    insert_ok(&mut tx, &t, urow(100, None, None));
    assert_eq!(ids(it), vec![1, 2, 5, 9]);
    // Many own writes crossing iterator batch boundaries.
    for i in 200..1200 {
        insert_ok(&mut tx, &t, urow(i, None, Some(i)));
    }
    assert_eq!(tx.scan_all(&t).unwrap().count(), 1005);
    tx.commit(false).unwrap();
    assert!(st.locks().is_empty());
}

pub fn isolation_levels<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut w = st.begin(opts(1000));
    insert_ok(&mut w, &t, urow(1, None, Some(1)));
    w.commit(false).unwrap();
    let mut rr = st.begin(opts(1000));
    let mut rc = st.begin(TxnOptions {
        isolation: Isolation::ReadCommitted,
        ..opts(1000)
    });
    rr.stmt_begin();
    rc.stmt_begin();
    assert_eq!(ids(rr.scan_all(&t).unwrap()), vec![1]);
    assert_eq!(ids(rc.scan_all(&t).unwrap()), vec![1]);
    let mut w = st.begin(opts(1000));
    insert_ok(&mut w, &t, urow(2, None, Some(2)));
    w.commit(false).unwrap();
    rr.stmt_commit();
    rc.stmt_commit();
    rr.stmt_begin();
    rc.stmt_begin();
    assert_eq!(
        ids(rr.scan_all(&t).unwrap()),
        vec![1],
        "REPEATABLE READ keeps its snapshot"
    );
    assert_eq!(
        ids(rc.scan_all(&t).unwrap()),
        vec![1, 2],
        "READ COMMITTED refreshes per statement"
    );
    // A locking read in RR sees the latest committed row.
    assert!(rr
        .get_by_pk(&t, &[Value::Int(2)], LockMode::None)
        .unwrap()
        .is_none());
    assert!(rr
        .get_by_pk(&t, &[Value::Int(2)], LockMode::Shared)
        .unwrap()
        .is_some());
    rr.rollback();
    rc.rollback();
}

pub fn statement_rollback_and_savepoints<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    tx.stmt_begin();
    insert_ok(&mut tx, &t, urow(1, Some("a"), None));
    tx.stmt_commit();
    tx.stmt_begin();
    insert_ok(&mut tx, &t, urow(2, Some("b"), None));
    tx.stmt_rollback();
    assert_eq!(ids(tx.scan_all(&t).unwrap()), vec![1]);
    // The unique value of the rolled back row is free again.
    tx.stmt_begin();
    insert_ok(&mut tx, &t, urow(3, Some("b"), None));
    tx.stmt_commit();
    tx.savepoint("s1");
    insert_ok(&mut tx, &t, urow(4, None, None));
    tx.savepoint("s2");
    insert_ok(&mut tx, &t, urow(5, None, None));
    tx.rollback_to_savepoint("S2").unwrap();
    assert_eq!(ids(tx.scan_all(&t).unwrap()), vec![1, 3, 4]);
    tx.rollback_to_savepoint("s1").unwrap();
    assert_eq!(ids(tx.scan_all(&t).unwrap()), vec![1, 3]);
    let e = tx.rollback_to_savepoint("s2").unwrap_err();
    assert_eq!(e.num(), 1305);
    assert_eq!(e.msg, "SAVEPOINT s2 does not exist");
    tx.release_savepoint("s1").unwrap();
    assert_eq!(tx.release_savepoint("s1").unwrap_err().num(), 1305);
    tx.commit(true).unwrap();
    let mut r = st.begin(opts(1000));
    assert_eq!(ids(r.scan_all(&t).unwrap()), vec![1, 3]);
    // Read-only commit writes nothing and succeeds.
    r.commit(true).unwrap();
}

pub fn duplicates<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    insert_ok(&mut tx, &t, urow(1, Some("Alice"), None));
    insert_ok(&mut tx, &t, urow(2, None, None));
    insert_ok(&mut tx, &t, urow(3, None, None));
    // Duplicate pk within the same transaction.
    match tx.insert(&t, &urow(1, Some("x"), None)).unwrap() {
        InsertOutcome::Duplicate { index_no, row, .. } => {
            assert_eq!(index_no, 0);
            assert_eq!(row, urow(1, Some("Alice"), None));
        }
        o => panic!("{o:?}"),
    }
    tx.commit(false).unwrap();
    let mut tx = st.begin(opts(1000));
    match tx.insert(&t, &urow(1, None, None)).unwrap() {
        InsertOutcome::Duplicate { index_no: 0, .. } => {}
        o => panic!("{o:?}"),
    }
    // Unique under a case-insensitive collation.
    match tx.insert(&t, &urow(4, Some("ALICE"), None)).unwrap() {
        InsertOutcome::Duplicate {
            index_no,
            handle,
            row,
        } => {
            assert_eq!(index_no, 1);
            assert_eq!(row[0], Value::Int(1));
            assert_eq!(
                tx.get_by_handle(&t, &handle, LockMode::None)
                    .unwrap()
                    .unwrap(),
                row
            );
            let e =
                crate::catalog::ddl::duplicate_error(&t, index_no, &urow(4, Some("ALICE"), None));
            assert_eq!(e.num(), 1062);
            assert_eq!(e.msg, "Duplicate entry 'ALICE' for key 'u.email'");
        }
        o => panic!("{o:?}"),
    }
    // Multiple NULLs are fine in a unique index.
    insert_ok(&mut tx, &t, urow(5, None, None));
    // After deleting the holder, the value is free (own writes).
    let (h, old) = tx
        .get_by_pk(&t, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    tx.delete(&t, &h, &old).unwrap();
    insert_ok(&mut tx, &t, urow(6, Some("alice"), None));
    insert_ok(&mut tx, &t, urow(1, Some("bob"), None));
    tx.commit(false).unwrap();
    let mut r = st.begin(opts(1000));
    assert_eq!(ids(r.scan_all(&t).unwrap()), vec![1, 2, 3, 5, 6]);
    assert_eq!(
        ids(r
            .scan(
                &t,
                1,
                IndexRange::eq(vec![Value::Str("ALICE".into())]),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![6]
    );
}

/// Inserts above the primary key's high-water mark skip the duplicate read; everything else
/// still finds its duplicate: keys below it, a key an update moved a row to, a key an open
/// transaction is writing, and keys already in the data when the mark is read afresh.
pub fn pk_high_water_mark<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let dup = |tx: &mut crate::Txn<E>, id: i64| match tx.insert(&t, &urow(id, None, None)) {
        Ok(InsertOutcome::Duplicate {
            index_no: 0, row, ..
        }) => row,
        o => panic!("{id}: {o:?}"),
    };
    let mut tx = st.begin(opts(1000));
    for id in [1, 2, 3] {
        insert_ok(&mut tx, &t, urow(id, None, Some(id)));
    }
    tx.commit(false).unwrap();
    let handle = |id: i64| crate::codec::key::encode_pk(&t, &urow(id, None, None)).unwrap();
    assert!(st.pk_claim_above(&t, &handle(5)).unwrap());
    assert!(!st.pk_claim_above(&t, &handle(5)).unwrap());
    assert!(!st.pk_claim_above(&t, &handle(4)).unwrap());
    let mut tx = st.begin(opts(1000));
    assert_eq!(dup(&mut tx, 2), urow(2, None, Some(2)));
    // a rolled-back insert above the mark leaves the key free
    insert_ok(&mut tx, &t, urow(10, None, None));
    tx.rollback();
    let mut tx = st.begin(opts(1000));
    insert_ok(&mut tx, &t, urow(10, None, None));
    // an update that moves a row above the mark raises it
    let (h, old) = tx
        .get_by_pk(&t, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    tx.update(&t, &h, &old, &urow(20, None, Some(1))).unwrap();
    tx.commit(false).unwrap();
    let mut tx = st.begin(opts(1000));
    assert_eq!(dup(&mut tx, 20), urow(20, None, Some(1)));
    tx.rollback();
    // a second writer of a key above the mark waits for the first, then sees its row
    let mut a = st.begin(opts(5000));
    insert_ok(&mut a, &t, urow(30, None, Some(30)));
    let (st2, t2) = (st.clone(), t.clone());
    let b = std::thread::spawn(move || {
        let mut b = st2.begin(opts(5000));
        let out = b.insert(&t2, &urow(30, None, None)).unwrap();
        matches!(out, InsertOutcome::Duplicate { index_no: 0, .. })
    });
    std::thread::sleep(Duration::from_millis(50));
    a.commit(false).unwrap();
    assert!(b.join().unwrap());
    // read afresh from the data (as after a restart or DDL): the greatest key is 30
    st.forget_runtime(t.id);
    let mut tx = st.begin(opts(1000));
    assert_eq!(dup(&mut tx, 30), urow(30, None, Some(30)));
    assert_eq!(dup(&mut tx, 3), urow(3, None, Some(3)));
    insert_ok(&mut tx, &t, urow(31, None, None));
    tx.commit(false).unwrap();
    let mut r = st.begin(opts(1000));
    assert_eq!(ids(r.scan_all(&t).unwrap()), vec![2, 3, 10, 20, 30, 31]);
}

pub fn update_and_indexes<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    insert_ok(&mut tx, &t, urow(1, Some("a"), Some(10)));
    insert_ok(&mut tx, &t, urow(2, Some("b"), Some(20)));
    tx.commit(false).unwrap();
    let mut tx = st.begin(opts(1000));
    let (h, old) = tx
        .get_by_pk(&t, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    // Unique collision on update.
    match tx
        .update(&t, &h, &old, &urow(1, Some("B"), Some(10)))
        .unwrap()
    {
        UpdateOutcome::Duplicate {
            index_no: 1, row, ..
        } => assert_eq!(row[0], Value::Int(2)),
        o => panic!("{o:?}"),
    }
    // Pk collision on update.
    match tx
        .update(&t, &h, &old, &urow(2, Some("a"), Some(10)))
        .unwrap()
    {
        UpdateOutcome::Duplicate { index_no: 0, .. } => {}
        o => panic!("{o:?}"),
    }
    // Same unique value, changed case: not a duplicate of itself.
    let UpdateOutcome::Updated(h) = tx
        .update(&t, &h, &old, &urow(1, Some("A"), Some(15)))
        .unwrap()
    else {
        panic!()
    };
    // Move the row to a new pk.
    let old = urow(1, Some("A"), Some(15));
    let UpdateOutcome::Updated(h2) = tx
        .update(&t, &h, &old, &urow(7, Some("A"), Some(15)))
        .unwrap()
    else {
        panic!()
    };
    assert_ne!(h, h2);
    tx.commit(false).unwrap();
    let mut r = st.begin(opts(1000));
    assert_eq!(ids(r.scan_all(&t).unwrap()), vec![2, 7]);
    assert_eq!(
        ids(r
            .scan(
                &t,
                2,
                IndexRange::eq(vec![Value::Int(15)]),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![7]
    );
    assert!(ids(r
        .scan(
            &t,
            2,
            IndexRange::eq(vec![Value::Int(10)]),
            false,
            LockMode::None
        )
        .unwrap())
    .is_empty());
    assert_eq!(
        ids(r
            .scan(
                &t,
                1,
                IndexRange::eq(vec![Value::Str("a".into())]),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![7]
    );
    // Index entries count equals row count (no stale entries left behind).
    assert_eq!(
        r.scan(&t, 1, IndexRange::all(), false, LockMode::None)
            .unwrap()
            .count(),
        2
    );
    assert_eq!(
        r.scan(&t, 2, IndexRange::all(), false, LockMode::None)
            .unwrap()
            .count(),
        2
    );
}

pub fn scan_ranges<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    for i in 1..=20 {
        insert_ok(&mut tx, &t, urow(i, None, Some(i % 5)));
    }
    tx.commit(false).unwrap();
    let mut r = st.begin(opts(1000));
    let rng = |s: Bound<i64>, e: Bound<i64>| IndexRange {
        start: s.map(|v| vec![Value::Int(v)]),
        end: e.map(|v| vec![Value::Int(v)]),
    };
    assert_eq!(
        ids(r
            .scan(
                &t,
                0,
                rng(Bound::Included(5), Bound::Excluded(8)),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![5, 6, 7]
    );
    assert_eq!(
        ids(r
            .scan(
                &t,
                0,
                rng(Bound::Excluded(5), Bound::Included(8)),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![6, 7, 8]
    );
    assert_eq!(
        ids(r
            .scan(
                &t,
                0,
                rng(Bound::Excluded(5), Bound::Included(8)),
                true,
                LockMode::None
            )
            .unwrap()),
        vec![8, 7, 6]
    );
    assert_eq!(
        ids(r
            .scan(
                &t,
                0,
                rng(Bound::Included(18), Bound::Unbounded),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![18, 19, 20]
    );
    assert_eq!(
        ids(r
            .scan(
                &t,
                0,
                rng(Bound::Unbounded, Bound::Excluded(3)),
                true,
                LockMode::None
            )
            .unwrap()),
        vec![2, 1]
    );
    assert!(ids(r
        .scan(
            &t,
            0,
            rng(Bound::Included(8), Bound::Excluded(5)),
            false,
            LockMode::None
        )
        .unwrap())
    .is_empty());
    // Secondary: age in [1, 2] → ids with i%5 in {1,2}, in (age, id) order.
    assert_eq!(
        ids(r
            .scan(
                &t,
                2,
                rng(Bound::Included(1), Bound::Included(2)),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![1, 6, 11, 16, 2, 7, 12, 17]
    );
    assert_eq!(
        ids(r
            .scan(
                &t,
                2,
                rng(Bound::Excluded(3), Bound::Unbounded),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![4, 9, 14, 19]
    );
    // Bounds of another type are coerced (numeric string) or rejected.
    assert_eq!(
        ids(r
            .scan(
                &t,
                0,
                IndexRange::eq(vec![Value::Str("7".into())]),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![7]
    );
    assert!(r
        .scan(
            &t,
            0,
            IndexRange::eq(vec![Value::Str("x".into())]),
            false,
            LockMode::None
        )
        .is_err());
    // The rows of a scan are full rows.
    let first = r
        .scan(
            &t,
            2,
            IndexRange::eq(vec![Value::Int(0)]),
            false,
            LockMode::None,
        )
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(first.1, urow(5, None, Some(0)));
    let (rows, data, _index) = st.table_stats(&t).unwrap();
    assert!(rows > 0 && data > 0, "stats: rows {rows} data {data}");
}

pub fn blocking_and_timeout<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut a = st.begin(opts(5000));
    insert_ok(&mut a, &t, urow(1, None, Some(1)));
    a.commit(false).unwrap();
    let mut a = st.begin(opts(5000));
    let (h, old) = a
        .get_by_pk(&t, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap()
        .unwrap();
    a.update(&t, &h, &old, &urow(1, None, Some(2))).unwrap();
    // Short timeout → 1205.
    let mut c = st.begin(opts(50));
    let t0 = Instant::now();
    assert_eq!(
        c.get_by_pk(&t, &[Value::Int(1)], LockMode::Exclusive)
            .unwrap_err()
            .num(),
        1205
    );
    assert!(t0.elapsed() >= Duration::from_millis(45));
    // Consistent reads do not block.
    assert_eq!(
        c.get_by_pk(&t, &[Value::Int(1)], LockMode::None)
            .unwrap()
            .unwrap()
            .1,
        urow(1, None, Some(1))
    );
    c.rollback();
    // A second writer blocks until the first commits, then sees its row.
    let st2 = st.clone();
    let t2 = t.clone();
    let h2 = std::thread::spawn(move || {
        let mut b = st2.begin(opts(5000));
        let t0 = Instant::now();
        let (h, old) = b
            .get_by_pk(&t2, &[Value::Int(1)], LockMode::Exclusive)
            .unwrap()
            .unwrap();
        let waited = t0.elapsed();
        assert_eq!(old, urow(1, None, Some(2)));
        b.update(&t2, &h, &old, &urow(1, None, Some(3))).unwrap();
        b.commit(false).unwrap();
        waited
    });
    std::thread::sleep(Duration::from_millis(100));
    a.commit(false).unwrap();
    let waited = h2.join().unwrap();
    assert!(waited >= Duration::from_millis(80), "waited {waited:?}");
    let mut r = st.begin(opts(1000));
    assert_eq!(
        r.get_by_pk(&t, &[Value::Int(1)], LockMode::None)
            .unwrap()
            .unwrap()
            .1,
        urow(1, None, Some(3))
    );
    // Concurrent inserts of the same unique value: the second waits, then sees the duplicate.
    let mut a = st.begin(opts(5000));
    insert_ok(&mut a, &t, urow(10, Some("u"), None));
    let st2 = st.clone();
    let t2 = t.clone();
    let h2 = std::thread::spawn(move || {
        let mut b = st2.begin(opts(5000));
        let out = b.insert(&t2, &urow(11, Some("U"), None)).unwrap();
        matches!(out, InsertOutcome::Duplicate { index_no: 1, .. })
    });
    std::thread::sleep(Duration::from_millis(50));
    a.commit(false).unwrap();
    assert!(h2.join().unwrap());
}

pub fn deadlock<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut w = st.begin(opts(1000));
    insert_ok(&mut w, &t, urow(1, None, None));
    insert_ok(&mut w, &t, urow(2, None, None));
    w.commit(false).unwrap();
    let mut a = st.begin(opts(10_000));
    let mut b = st.begin(opts(10_000));
    a.get_by_pk(&t, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap();
    b.get_by_pk(&t, &[Value::Int(2)], LockMode::Exclusive)
        .unwrap();
    let st2 = st.clone();
    let t2 = t.clone();
    let h = std::thread::spawn(move || {
        let r = a
            .get_by_pk(&t2, &[Value::Int(2)], LockMode::Exclusive)
            .map(|_| ());
        let _ = st2;
        (a, r)
    });
    std::thread::sleep(Duration::from_millis(100));
    let t0 = Instant::now();
    let e = b
        .get_by_pk(&t, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap_err();
    assert_eq!(e.num(), 1213);
    assert!(t0.elapsed() < Duration::from_secs(2));
    b.rollback();
    let (a, r) = h.join().unwrap();
    r.unwrap();
    a.commit(false).unwrap();
    assert!(st.locks().is_empty());
}

pub fn kill_interrupts_wait<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut w = st.begin(opts(1000));
    insert_ok(&mut w, &t, urow(1, None, None));
    w.commit(false).unwrap();
    let mut a = st.begin(opts(1000));
    a.get_by_pk(&t, &[Value::Int(1)], LockMode::Exclusive)
        .unwrap();
    let killed = Arc::new(AtomicBool::new(false));
    let wait = WaitCtx {
        timeout: Duration::from_secs(60),
        killed: killed.clone(),
        observer: None,
        policy: crate::txn::lock::WaitPolicy::Wait,
    };
    let st2 = st.clone();
    let t2 = t.clone();
    let h = std::thread::spawn(move || {
        let mut b = st2.begin(TxnOptions {
            isolation: Isolation::RepeatableRead,
            wait,
        });
        b.get_by_pk(&t2, &[Value::Int(1)], LockMode::Shared)
            .map(|_| ())
    });
    std::thread::sleep(Duration::from_millis(50));
    let t0 = Instant::now();
    killed.store(true, Ordering::SeqCst);
    assert_eq!(h.join().unwrap().unwrap_err().num(), 1317);
    assert!(t0.elapsed() < Duration::from_millis(500));
    a.rollback();
}

pub fn drop_and_truncate<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    for i in 1..=50 {
        insert_ok(&mut tx, &t, urow(i, Some(&format!("e{i}")), Some(i)));
    }
    tx.commit(false).unwrap();
    // TRUNCATE: empty, auto-increment reset, indexes usable.
    assert_eq!(st.autoinc_next(&t, 1).unwrap(), 51);
    let t2 = st.truncate_table("d", "u").unwrap();
    assert_ne!(t2.indexes[0].id, t.indexes[0].id);
    let t2 = st.get_table("d", "u").unwrap().unwrap();
    let mut tx = st.begin(opts(1000));
    assert_eq!(tx.scan_all(&t2).unwrap().count(), 0);
    assert_eq!(
        tx.scan(&t2, 1, IndexRange::all(), false, LockMode::None)
            .unwrap()
            .count(),
        0
    );
    assert_eq!(st.autoinc_next(&t2, 1).unwrap(), 1);
    insert_ok(&mut tx, &t2, urow(1, Some("e1"), Some(1)));
    tx.commit(false).unwrap();
    // DROP: gone; a new table with the same name is empty.
    st.drop_table("d", "u").unwrap();
    assert!(st.get_table("d", "u").unwrap().is_none());
    assert!(st.list_tables("d").unwrap().is_empty());
    let t3 = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    assert_eq!(tx.scan_all(&t3).unwrap().count(), 0);
    // Old ranges are empty at the engine level too.
    for idx in t.indexes.iter().chain(&t2.indexes) {
        let (lo, hi) = crate::codec::key::index_range(idx.id);
        let it = st.engine().iter(Cf::Data, &lo, Some(&hi), false);
        assert!(!it.valid(), "index {} range not empty", idx.id);
    }
    assert!(st.wait_background_idle(Duration::from_secs(30)));
    assert_eq!(st.pending_drop_markers().unwrap(), 0);
    // DROP DATABASE drops its tables.
    users(st, "d", "v");
    assert_eq!(st.drop_database("d").unwrap(), 2);
    assert!(st.get_table("d", "v").unwrap().is_none());
    assert!(st.get_database("d").unwrap().is_none());
}

pub fn index_statistics<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    assert_eq!(st.index_statistics(&t).unwrap(), None);
    let stats = crate::catalog::IndexStatistics {
        version: t.version,
        rows: 7,
        cardinality: vec![vec![7], vec![3]],
    };
    st.put_index_statistics(&t, &stats).unwrap();
    assert_eq!(st.index_statistics(&t).unwrap(), Some(stats.clone()));
    let newer = crate::catalog::IndexStatistics { rows: 9, ..stats };
    st.put_index_statistics(&t, &newer).unwrap();
    assert_eq!(st.index_statistics(&t).unwrap(), Some(newer));
    // DROP TABLE removes them with the definition
    st.drop_table("d", "u").unwrap();
    assert_eq!(st.index_statistics(&t).unwrap(), None);
}

pub fn add_and_drop_index<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    for i in 1..=2500 {
        insert_ok(&mut tx, &t, urow(i, None, Some(i % 7)));
    }
    tx.commit(false).unwrap();
    // A unique index over a column with duplicates fails with 1062 and leaves nothing behind.
    let e = st
        .add_index("d", "u", index("uage", IndexKind::Unique, &[2]))
        .unwrap_err();
    assert_eq!(e.num(), 1062);
    assert!(e.msg.contains("for key 'u.uage'"), "{}", e.msg);
    let cur = st.get_table("d", "u").unwrap().unwrap();
    assert_eq!(cur.indexes.len(), 3);
    // A normal index over existing data.
    let t2 = st
        .add_index("d", "u", index("age_id", IndexKind::Normal, &[2, 0]))
        .unwrap();
    assert_eq!(t2.indexes.len(), 4);
    assert_eq!(
        st.add_index("d", "u", index("AGE_ID", IndexKind::Normal, &[2]))
            .unwrap_err()
            .num(),
        1061
    );
    let mut r = st.begin(opts(1000));
    let got = ids(r
        .scan(
            &t2,
            3,
            IndexRange::eq(vec![Value::Int(3)]),
            false,
            LockMode::None,
        )
        .unwrap());
    assert_eq!(got.len(), 357);
    assert!(got.windows(2).all(|w| w[0] < w[1]));
    // A unique index that holds.
    let t3 = st
        .add_index("d", "u", index("uid", IndexKind::Unique, &[0, 2]))
        .unwrap();
    let mut r = st.begin(opts(1000));
    assert_eq!(
        r.scan(&t3, 4, IndexRange::all(), false, LockMode::None)
            .unwrap()
            .count(),
        2500
    );
    // New writes maintain the new index.
    let mut tx = st.begin(opts(1000));
    insert_ok(&mut tx, &t3, urow(9999, None, Some(3)));
    tx.commit(false).unwrap();
    let mut r = st.begin(opts(1000));
    assert_eq!(
        r.scan(
            &t3,
            3,
            IndexRange::eq(vec![Value::Int(3)]),
            false,
            LockMode::None
        )
        .unwrap()
        .count(),
        358
    );
    let t4 = st.drop_index("d", "u", "age_id").unwrap();
    assert_eq!(t4.indexes.len(), 4);
    assert_eq!(st.drop_index("d", "u", "age_id").unwrap_err().num(), 1091);
    assert!(st.wait_background_idle(Duration::from_secs(30)));
    let (lo, hi) = crate::codec::key::index_range(t2.indexes[3].id);
    assert!(!st.engine().iter(Cf::Data, &lo, Some(&hi), false).valid());
}

pub fn autoinc_and_hidden_pk<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    assert_eq!(st.autoinc_next(&t, 1).unwrap(), 1);
    assert_eq!(st.autoinc_next(&t, 3).unwrap(), 2);
    assert_eq!(st.autoinc_next(&t, 1).unwrap(), 5);
    st.autoinc_observe(&t, 100).unwrap();
    assert_eq!(st.autoinc_next(&t, 1).unwrap(), 101);
    st.autoinc_observe(&t, 50).unwrap();
    assert_eq!(st.autoinc_next(&t, 1).unwrap(), 102);
    // Lazy initialisation from existing data (a fresh counter after TRUNCATE + inserts).
    let t = st.truncate_table("d", "u").unwrap();
    let mut tx = st.begin(opts(1000));
    insert_ok(&mut tx, &t, urow(41, None, None));
    tx.commit(false).unwrap();
    assert_eq!(st.autoinc_next(&t, 1).unwrap(), 42);
    st.set_autoinc(&t, 1000).unwrap();
    let t = st.get_table("d", "u").unwrap().unwrap();
    assert_eq!(t.options.auto_increment, 1000);
    assert_eq!(st.autoinc_next(&t, 1).unwrap(), 1000);
    // Hidden primary key.
    let h = st
        .create_table(TableDef {
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            temporary: false,
            partitioning: None,
            part_select: None,
            leaf: None,
            id: 0,
            db: "d".into(),
            name: "nopk".into(),
            columns: vec![
                column("a", int_ty(), true),
                column("b", DataType::VarBinary { len: 10 }, true),
            ],
            indexes: vec![index("ua", IndexKind::Unique, &[0])],
            hidden_pk: false,
            version: 0,
            options: TableOptions::default(),
        })
        .unwrap();
    assert!(h.hidden_pk);
    assert_eq!(h.index_no("ua"), Some(1));
    let mut tx = st.begin(opts(1000));
    let row = |a: i64| vec![Value::Int(a), Value::Bytes(vec![a as u8])];
    let h1 = insert_ok(&mut tx, &h, row(3));
    let h2 = insert_ok(&mut tx, &h, row(1));
    assert!(h1 < h2, "row ids increase");
    assert!(matches!(
        tx.insert(&h, &row(3)).unwrap(),
        InsertOutcome::Duplicate { index_no: 1, .. }
    ));
    insert_ok(&mut tx, &h, vec![Value::Null, Value::Null]);
    insert_ok(&mut tx, &h, vec![Value::Null, Value::Null]);
    tx.commit(false).unwrap();
    let mut r = st.begin(opts(1000));
    let rows: Vec<_> = r.scan_all(&h).unwrap().map(|x| x.unwrap().1).collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0], row(3));
    assert_eq!(
        r.get_by_pk(&h, &[Value::UInt(2)], LockMode::None)
            .unwrap()
            .unwrap()
            .1,
        row(1)
    );
    assert_eq!(
        ids(r
            .scan(
                &h,
                1,
                IndexRange::eq(vec![Value::Int(1)]),
                false,
                LockMode::None
            )
            .unwrap()),
        vec![1]
    );
}

pub fn ddl_errors_and_rename<E: KvEngine>(st: &Arc<Storage<E>>) {
    let db = |n: &str| DatabaseDef {
        name: n.into(),
        collation: Collation::default(),
    };
    st.create_database(db("a")).unwrap();
    let e = st.create_database(db("a")).unwrap_err();
    assert_eq!(
        (e.num(), e.msg.as_str()),
        (1007, "Can't create database 'a'; database exists")
    );
    let e = st.drop_database("zz").unwrap_err();
    assert_eq!(
        (e.num(), e.msg.as_str()),
        (1008, "Can't drop database 'zz'; database doesn't exist")
    );
    assert_eq!(st.list_databases().unwrap().len(), 1);
    let t = users(st, "a", "t");
    let mut def = (*t).clone();
    def.db = "nodb".into();
    assert_eq!(st.create_table(def).unwrap_err().num(), 1049);
    let e = st.create_table((*t).clone()).unwrap_err();
    assert_eq!(
        (e.num(), e.msg.as_str()),
        (1050, "Table 't' already exists")
    );
    let e = st.drop_table("a", "nope").unwrap_err();
    assert_eq!((e.num(), e.msg.as_str()), (1051, "Unknown table 'a.nope'"));
    assert_eq!(st.truncate_table("a", "nope").unwrap_err().num(), 1146);
    // Case-sensitive names.
    assert!(st.get_table("a", "T").unwrap().is_none());
    // Rename within and across databases keeps the data.
    let mut tx = st.begin(opts(1000));
    insert_ok(&mut tx, &t, urow(1, None, None));
    tx.commit(false).unwrap();
    st.rename_table("a", "t", "a", "t2").unwrap();
    assert!(st.get_table("a", "t").unwrap().is_none());
    st.create_database(db("b")).unwrap();
    assert_eq!(
        st.rename_table("a", "t2", "nodb", "x").unwrap_err().num(),
        1049
    );
    st.rename_table("a", "t2", "b", "t3").unwrap();
    let t3 = st.get_table("b", "t3").unwrap().unwrap();
    assert_eq!(st.list_tables("b").unwrap(), vec!["t3".to_string()]);
    assert!(st.list_tables("a").unwrap().is_empty());
    let mut r = st.begin(opts(1000));
    assert_eq!(ids(r.scan_all(&t3).unwrap()), vec![1]);
    users(st, "b", "t4");
    assert_eq!(
        st.rename_table("b", "t3", "b", "t4").unwrap_err().num(),
        1050
    );
    // alter_table: instant ADD COLUMN with a literal default.
    let mut def = (*t3).clone();
    let mut c = column("extra", int_ty(), false);
    c.default = Some("7".into());
    def.columns.push(c);
    let t5 = st.alter_table(def).unwrap();
    assert_eq!(t5.version, t3.version + 1);
    let mut r = st.begin(opts(1000));
    let row = r
        .get_by_pk(&t5, &[Value::Int(1)], LockMode::None)
        .unwrap()
        .unwrap()
        .1;
    assert_eq!(
        row,
        vec![Value::Int(1), Value::Null, Value::Null, Value::Int(7)]
    );
}

/// `alter_table_online` (instant column with a frozen default, index add/drop/rename, rename,
/// optimistic version check), `replace_table` and atomic multi-pair `rename_tables`.
pub fn online_alter_and_replace<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut tx = st.begin(opts(1000));
    for i in 1..=30 {
        insert_ok(&mut tx, &t, urow(i, None, Some(i % 3)));
    }
    tx.commit(false).unwrap();
    // Instant column: old rows decode with the frozen value, not the (later changed) default.
    let mut def = (*t).clone();
    let mut c = column("flag", int_ty(), false);
    c.default = Some("5".into());
    c.instant_default = Some("5".into());
    def.columns.push(c);
    // rename index `age` → `age2`, drop unique `email`, add unique (id, flag)
    def.indexes[2].name = "age2".into();
    def.indexes.remove(1);
    def.indexes.push(index("idf", IndexKind::Unique, &[0, 3]));
    let dropped_id = t.indexes[1].id;
    let t2 = st.alter_table_online("d", "u", t.version, def).unwrap();
    assert_eq!(t2.version, t.version + 1);
    assert_eq!(t2.indexes.len(), 3);
    assert!(t2.indexes[2].id != 0);
    // stale base version
    let e = st
        .alter_table_online("d", "u", t.version, (*t2).clone())
        .unwrap_err();
    assert_eq!(e.num(), 1412);
    let mut def = (*t2).clone();
    def.columns[3].default = Some("9".into());
    let t3 = st.alter_table_online("d", "u", t2.version, def).unwrap();
    let mut r = st.begin(opts(1000));
    let rows: Vec<Vec<Value>> = r.scan_all(&t3).unwrap().map(|r| r.unwrap().1).collect();
    assert_eq!(rows.len(), 30);
    assert!(rows.iter().all(|r| r[3] == Value::Int(5)));
    // the new unique index was built over the existing rows
    let mut r = st.begin(opts(1000));
    assert_eq!(
        r.scan(&t3, 2, IndexRange::all(), false, LockMode::None)
            .unwrap()
            .count(),
        30
    );
    assert!(st.wait_background_idle(Duration::from_secs(30)));
    let (lo, hi) = crate::codec::key::index_range(dropped_id);
    assert!(!st.engine().iter(Cf::Data, &lo, Some(&hi), false).valid());
    // A unique index over duplicates fails and leaves the definition as it was.
    let mut def = (*t3).clone();
    def.indexes.push(index("uflag", IndexKind::Unique, &[3]));
    let e = st
        .alter_table_online("d", "u", t3.version, def)
        .unwrap_err();
    assert_eq!(e.num(), 1062);
    assert_eq!(
        st.get_table("d", "u").unwrap().unwrap().as_ref(),
        t3.as_ref()
    );
    // A re-typed column is refused.
    let mut def = (*t3).clone();
    def.columns[2].ty = DataType::Date;
    assert!(st.alter_table_online("d", "u", t3.version, def).is_err());
    // Rename in the same batch.
    let mut def = (*t3).clone();
    def.name = "u2".into();
    let t4 = st.alter_table_online("d", "u", t3.version, def).unwrap();
    assert!(st.get_table("d", "u").unwrap().is_none());
    assert_eq!(st.get_table("d", "u2").unwrap().unwrap().id, t4.id);
    // replace_table: a rebuilt copy takes the place (and name) of the original.
    let mut copy = (*t4).clone();
    copy.id = 0;
    copy.name = "#tmp".into();
    copy.columns.truncate(3);
    copy.indexes.truncate(2);
    for ix in copy.indexes.iter_mut() {
        ix.id = 0;
    }
    let tmp = st.create_table(copy).unwrap();
    let mut tx = st.begin(opts(1000));
    insert_ok(&mut tx, &tmp, urow(7, None, Some(1)));
    tx.commit(false).unwrap();
    assert_eq!(
        st.replace_table("d", "u2", tmp.id, "#tmp", "d", "u2")
            .unwrap_err()
            .num(),
        1412
    );
    let t5 = st
        .replace_table("d", "u2", t4.id, "#tmp", "d", "u2")
        .unwrap();
    assert_eq!(t5.id, tmp.id);
    assert!(t5.version > t4.version);
    assert_eq!(st.list_tables("d").unwrap(), vec!["u2".to_string()]);
    let mut r = st.begin(opts(1000));
    assert_eq!(ids(r.scan_all(&t5).unwrap()), vec![7]);
    // rename_tables: a swap through a temporary name, and all-or-nothing on error.
    users(st, "d", "v");
    let p = |a: &str, b: &str| {
        (
            ("d".to_string(), a.to_string()),
            ("d".to_string(), b.to_string()),
        )
    };
    st.rename_tables(&[p("u2", "tmp"), p("v", "u2"), p("tmp", "v")])
        .unwrap();
    assert_eq!(st.get_table("d", "v").unwrap().unwrap().id, t5.id);
    assert!(st.get_table("d", "tmp").unwrap().is_none());
    let e = st
        .rename_tables(&[p("v", "w"), p("nope", "x")])
        .unwrap_err();
    assert_eq!(e.num(), 1146);
    assert!(st.get_table("d", "w").unwrap().is_none());
    assert!(st.get_table("d", "v").unwrap().is_some());
    let e = st.rename_tables(&[p("v", "w"), p("u2", "w")]).unwrap_err();
    assert_eq!(e.num(), 1050);
    assert!(st.get_table("d", "v").unwrap().is_some());
}

pub fn locking_reads<E: KvEngine>(st: &Arc<Storage<E>>) {
    let t = users(st, "d", "u");
    let mut w = st.begin(opts(1000));
    for i in 1..=5 {
        insert_ok(&mut w, &t, urow(i, None, Some(i)));
    }
    w.commit(false).unwrap();
    // Locking scan over a secondary index locks the rows it returns.
    let mut a = st.begin(opts(1000));
    let got = ids(a
        .scan(
            &t,
            2,
            IndexRange::eq(vec![Value::Int(3)]),
            false,
            LockMode::Exclusive,
        )
        .unwrap());
    assert_eq!(got, vec![3]);
    let mut b = st.begin(opts(50));
    assert_eq!(
        b.get_by_pk(&t, &[Value::Int(3)], LockMode::Shared)
            .unwrap_err()
            .num(),
        1205
    );
    assert!(b
        .get_by_pk(&t, &[Value::Int(2)], LockMode::Exclusive)
        .unwrap()
        .is_some());
    b.rollback();
    // Shared locks are compatible; a locking full scan sees the latest data.
    let mut c = st.begin(opts(1000));
    let mut d = st.begin(opts(1000));
    c.stmt_begin();
    assert_eq!(ids(c.scan_all(&t).unwrap()).len(), 5);
    let mut w = st.begin(opts(1000));
    insert_ok(&mut w, &t, urow(6, None, None));
    w.commit(false).unwrap();
    a.rollback();
    assert_eq!(
        ids(c
            .scan(&t, 0, IndexRange::all(), false, LockMode::Shared)
            .unwrap()),
        vec![1, 2, 3, 4, 5, 6]
    );
    assert_eq!(
        ids(c.scan_all(&t).unwrap()).len(),
        5,
        "consistent reads keep the snapshot"
    );
    assert_eq!(
        d.scan(
            &t,
            0,
            IndexRange::eq(vec![Value::Int(6)]),
            false,
            LockMode::Shared
        )
        .unwrap()
        .count(),
        1
    );
    let mut e = st.begin(opts(50));
    assert_eq!(
        e.get_by_pk(&t, &[Value::Int(6)], LockMode::Exclusive)
            .unwrap_err()
            .num(),
        1205
    );
    e.rollback();
    c.rollback();
    d.rollback();
    assert!(st.locks().is_empty());
}

pub fn lru_bound<E: KvEngine>(st: &Arc<Storage<E>>) {
    ensure_db(st, "many");
    let n = 5000;
    for i in 0..n {
        st.create_table(TableDef {
            foreign_keys: Vec::new(),
            checks: Vec::new(),
            temporary: false,
            part_select: None,
            partitioning: None,
            leaf: None,
            id: 0,
            db: "many".into(),
            name: format!("t{i}"),
            columns: vec![column("a", int_ty(), false)],
            indexes: vec![index("PRIMARY", IndexKind::Primary, &[0])],
            hidden_pk: false,
            version: 0,
            options: TableOptions::default(),
        })
        .unwrap();
        let _ = st.get_table("many", &format!("t{i}")).unwrap().unwrap();
        assert!(st.table_cache_len() <= 100);
    }
    for i in (0..n).step_by(7) {
        let t = st.get_table("many", &format!("t{i}")).unwrap().unwrap();
        assert_eq!(t.name, format!("t{i}"));
        assert!(st.table_cache_len() <= 100);
    }
    assert_eq!(st.list_tables("many").unwrap().len(), n);
}
