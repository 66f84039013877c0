//! `CHECK TABLE`: verifies that a table's primary rows decode, that each row sits under the
//! handle its primary key encodes to, and that every secondary index holds exactly one entry per
//! row (the entry [`key::encode_index_key`] derives from the row) and nothing else.
//!
//! The comparison streams: the expected entries (derived from the primary rows) and the actual
//! entries (scanned from the index) are each folded into a count and an order-independent 128-bit
//! digest, so memory stays constant however large the table. Unique indexes are also checked
//! for two entries with the same non-NULL key. Everything reads one engine snapshot, i.e. the
//! committed state at the start of the check.

use std::hash::{Hash, Hasher};

use common::Result;

use crate::catalog::{IndexKind, TableDef};
use crate::codec::key;
use crate::codec::row::decode_row;
use crate::engine::{Cf, KvEngine, KvIter, KvSnapshot};
use crate::Storage;

/// Count and order-independent digest of a multiset of keys.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
struct Digest {
    count: u64,
    sum: u128,
}

impl Digest {
    fn add(&mut self, k: &[u8]) {
        let h = |salt: u64| {
            let mut s = std::hash::DefaultHasher::new();
            salt.hash(&mut s);
            k.hash(&mut s);
            s.finish()
        };
        self.count += 1;
        self.sum = self.sum.wrapping_add(((h(1) as u128) << 64) | h(2) as u128);
    }
}

/// What [`Storage::check_table`] found wrong (empty = the table is consistent).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// One message per problem, InnoDB-style ("Index 'k' contains 3 entries, should be 4.").
    pub problems: Vec<String>,
    /// Rows in the primary index.
    pub rows: u64,
}

fn scan(
    snap: &impl KvSnapshot,
    lo: &[u8],
    hi: &[u8],
    mut f: impl FnMut(&[u8], &[u8]),
) -> Result<()> {
    let mut it: Box<dyn KvIter + '_> = snap.iter(Cf::Data, lo, Some(hi), false);
    while it.valid() {
        f(it.key(), it.value());
        it.next();
    }
    it.status()
}

impl<E: KvEngine> Storage<E> {
    /// Checks the committed state of `t` (one leaf, for a partitioned table); see the module
    /// docs for what is verified.
    ///
    /// # Errors
    /// An engine I/O error (corruption found is reported in the [`CheckReport`], not as an error).
    pub fn check_table(&self, t: &TableDef) -> Result<CheckReport> {
        let snap = self.engine().snapshot();
        let mut rep = CheckReport::default();
        let Some(pk) = t.indexes.first() else {
            rep.problems.push("Table has no primary index".into());
            return Ok(rep);
        };
        let n_sec = t.indexes.len() - 1;
        let mut expected = vec![Digest::default(); n_sec];
        let mut bad_rows = 0u64;
        let mut misplaced = 0u64;
        let mut key_errors = 0u64;
        let (lo, hi) = key::index_range(pk.id);
        scan(&snap, &lo, &hi, |h, v| {
            rep.rows += 1;
            let row = match decode_row(t, v) {
                Ok(r) => r,
                Err(_) => {
                    bad_rows += 1;
                    return;
                }
            };
            if !t.hidden_pk && key::encode_pk(t, &row).ok().as_deref() != Some(h) {
                misplaced += 1;
            }
            for (i, d) in expected.iter_mut().enumerate() {
                match key::encode_index_key(t, i + 1, &row, h) {
                    Ok(k) => d.add(&k),
                    Err(_) => key_errors += 1,
                }
            }
        })?;
        if bad_rows > 0 {
            rep.problems.push(format!(
                "{bad_rows} rows of the primary index cannot be decoded"
            ));
        }
        if misplaced > 0 {
            rep.problems.push(format!(
                "{misplaced} rows are stored under a key that doesn't match their primary key"
            ));
        }
        if key_errors > 0 {
            rep.problems.push(format!(
                "{key_errors} secondary index keys cannot be built from their rows"
            ));
        }
        for (i, idx) in t.indexes.iter().enumerate().skip(1) {
            let mut actual = Digest::default();
            let mut dups = 0u64;
            let mut prev: Option<Vec<u8>> = None;
            let mut undecodable = 0u64;
            let (lo, hi) = key::index_range(idx.id);
            scan(&snap, &lo, &hi, |k, _| {
                actual.add(k);
                if idx.kind != IndexKind::Unique {
                    return;
                }
                // the uniqueness key is the entry without its handle suffix; NULLs never clash
                let Ok(h) = key::handle_from_index_key(t, i, k) else {
                    undecodable += 1;
                    return;
                };
                let ukey = &k[..k.len() - (h.len() - 4)];
                let has_null = key::decode_index_key(t, i, k)
                    .map(|vs| vs.iter().any(|v| v.as_ref().is_some_and(|v| v.is_null())))
                    .unwrap_or(false);
                if !has_null && prev.as_deref() == Some(ukey) {
                    dups += 1;
                }
                prev = Some(ukey.to_vec());
            })?;
            let exp = expected[i - 1];
            if actual.count != exp.count {
                rep.problems.push(format!(
                    "Index '{}' contains {} entries, should be {}.",
                    idx.name, actual.count, exp.count
                ));
            } else if actual.sum != exp.sum {
                rep.problems.push(format!(
                    "Index '{}' has entries that don't match the table's rows.",
                    idx.name
                ));
            }
            if dups > 0 {
                rep.problems.push(format!(
                    "Unique index '{}' has {dups} duplicate entries.",
                    idx.name
                ));
            }
            if undecodable > 0 {
                rep.problems.push(format!(
                    "Index '{}' has {undecodable} undecodable entries.",
                    idx.name
                ));
            }
        }
        Ok(rep)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use common::Value;

    use crate::engine::{KvEngine, WriteBatch};
    use crate::mem::MemEngine;
    use crate::testutil::{urow, users};
    use crate::{InsertOutcome, Storage, StorageOptions, TxnOptions};

    #[test]
    fn finds_missing_extra_and_wrong_index_entries() {
        let st: Arc<Storage<MemEngine>> =
            Storage::open(MemEngine::new(), StorageOptions::default()).unwrap();
        let t = users(&st, "d", "u");
        let mut tx = st.begin(TxnOptions::default());
        let mut handles = Vec::new();
        for i in 0..20 {
            let email = format!("e{i}");
            let row = urow(i, (i % 3 != 0).then_some(email.as_str()), Some(i % 4));
            match tx.insert(&t, &row).unwrap() {
                InsertOutcome::Inserted(h) => handles.push((h, row)),
                d => panic!("{d:?}"),
            }
        }
        tx.commit(false).unwrap();
        let rep = st.check_table(&t).unwrap();
        assert_eq!(rep.rows, 20);
        assert!(rep.problems.is_empty(), "{:?}", rep.problems);

        // drop one entry of KEY(age): count mismatch
        let (h, row) = &handles[5];
        let k = crate::codec::key::encode_index_key(&t, 2, row, h).unwrap();
        let mut b = WriteBatch::new();
        b.delete(crate::engine::Cf::Data, k.clone());
        st.engine().write(&b, false).unwrap();
        let rep = st.check_table(&t).unwrap();
        assert_eq!(
            rep.problems,
            vec!["Index 'age' contains 19 entries, should be 20.".to_string()]
        );

        // replace it with an entry for the wrong value: same count, wrong contents
        let mut wrong = row.clone();
        wrong[2] = Value::Int(99);
        let k2 = crate::codec::key::encode_index_key(&t, 2, &wrong, h).unwrap();
        let mut b = WriteBatch::new();
        b.put(crate::engine::Cf::Data, k2, Vec::new());
        st.engine().write(&b, false).unwrap();
        let rep = st.check_table(&t).unwrap();
        assert_eq!(rep.problems.len(), 1);
        assert!(
            rep.problems[0].contains("don't match"),
            "{:?}",
            rep.problems
        );

        // restore, then a duplicate entry in the unique index
        let mut b = WriteBatch::new();
        b.delete(
            crate::engine::Cf::Data,
            crate::codec::key::encode_index_key(&t, 2, &wrong, h).unwrap(),
        );
        b.put(crate::engine::Cf::Data, k, Vec::new());
        let (h1, r1) = &handles[1];
        let mut dup = r1.clone();
        dup[1] = Value::Str("e2".into());
        b.put(
            crate::engine::Cf::Data,
            crate::codec::key::encode_index_key(&t, 1, &dup, h1).unwrap(),
            Vec::new(),
        );
        st.engine().write(&b, false).unwrap();
        let rep = st.check_table(&t).unwrap();
        assert!(
            rep.problems.iter().any(|p| p.contains("duplicate")),
            "{:?}",
            rep.problems
        );
        assert!(
            rep.problems
                .iter()
                .any(|p| p.contains("'email' contains 21 entries, should be 20")),
            "{:?}",
            rep.problems
        );
    }
}
