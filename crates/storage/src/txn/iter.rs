//! [`RowIter`]: a lazy index scan merging the engine (snapshot or latest) with the
//! transaction's own writes, resolving secondary entries to rows and, for locking reads, locking
//! each row as it goes.
//!
//! The iterator owns everything it needs (an `Arc` of the storage and snapshot, an O(1) copy of
//! the write buffer), so it does not borrow the transaction: the caller may update rows while
//! scanning; the scan sees the write buffer as of its start. Engine entries are fetched in
//! growing batches (16 → 512): a consistent scan keeps one snapshot iterator across batches, a
//! locking scan opens a fresh one positioned after the last key for each batch (it reads the
//! latest committed state). A consistent primary-key scan without own writes to merge decodes
//! rows straight from the iterator, building only the columns the caller asked for.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

use common::{Result, Value};

use super::{lock_into, HeldLocks, LockMode, Txn, WaitCtx, WriteMap};
use crate::catalog::TableDef;
use crate::codec::key::{self, Handle};
use crate::codec::row::{decode_row, decode_row_cols};
use crate::engine::{Cf, KvEngine, KvIter, KvSnapshot, SharedIter};
use crate::Storage;

/// A range over an index, as bounds on PREFIXES of the index's columns, in index key order
/// (for a DESC key part, the larger value comes first).
///
/// `start: Included(p)` = entries whose prefix is ≥ `p`; `Excluded(p)` = > `p`;
/// `end: Included(p)` = entries whose prefix is ≤ `p`; `Excluded(p)` = < `p`. An empty prefix
/// matches everything. For prefix-indexed string columns (`KEY(c(10))`) only the first N
/// characters are compared, so the caller must re-check the condition on the returned rows.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexRange {
    /// Lower bound.
    pub start: Bound<Vec<Value>>,
    /// Upper bound.
    pub end: Bound<Vec<Value>>,
}

impl IndexRange {
    /// The whole index.
    pub fn all() -> Self {
        IndexRange {
            start: Bound::Unbounded,
            end: Bound::Unbounded,
        }
    }

    /// Entries whose prefix equals `prefix`.
    pub fn eq(prefix: Vec<Value>) -> Self {
        IndexRange {
            start: Bound::Included(prefix.clone()),
            end: Bound::Included(prefix),
        }
    }

    /// The engine key range `[lower, upper)` of this range in index `index_no` of `t`.
    ///
    /// # Errors
    /// A bound value that cannot be converted to its column's type.
    pub fn to_key_range(&self, t: &TableDef, index_no: usize) -> Result<(Vec<u8>, Vec<u8>)> {
        let idx = t
            .indexes
            .get(index_no)
            .ok_or_else(|| common::Error::internal("bad index number"))?;
        let (base_lo, base_hi) = key::index_range(idx.id);
        let lower = match &self.start {
            Bound::Unbounded => base_lo,
            Bound::Included(p) => key::encode_index_prefix(t, idx, p)?,
            Bound::Excluded(p) => key::prefix_successor(&key::encode_index_prefix(t, idx, p)?)
                .unwrap_or_else(|| base_hi.clone()),
        };
        let upper = match &self.end {
            Bound::Unbounded => base_hi,
            Bound::Included(p) => key::prefix_successor(&key::encode_index_prefix(t, idx, p)?)
                .unwrap_or_else(|| base_hi.clone()),
            Bound::Excluded(p) => key::encode_index_prefix(t, idx, p)?,
        };
        Ok((lower, upper))
    }
}

/// Where a scan reads committed data from.
enum Source<E: KvEngine> {
    Snapshot(Arc<E::Snapshot>),
    Latest,
}

/// A lazy scan yielding `(handle, row)`; see the module docs.
pub struct RowIter<E: KvEngine> {
    st: Arc<Storage<E>>,
    src: Source<E>,
    own: WriteMap,
    t: Arc<TableDef>,
    index_no: usize,
    /// Next engine fetch covers `[lo, hi)`.
    lo: Vec<u8>,
    hi: Vec<u8>,
    reverse: bool,
    lock: LockMode,
    txn: u64,
    wait: WaitCtx,
    held: HeldLocks,
    batch: usize,
    engine_done: bool,
    /// The snapshot scan's iterator, kept positioned between batches (None before the first
    /// batch and for scans of the latest state, which open a new iterator per batch).
    snap_it: Option<SharedIter>,
    out: VecDeque<(Handle, Vec<Value>)>,
    failed: bool,
    /// Columns the caller reads (see [`RowIter::project`]); None = all.
    cols: Option<Arc<[bool]>>,
}

const FIRST_BATCH: usize = 16;
const MAX_BATCH: usize = 512;

impl<E: KvEngine> RowIter<E> {
    pub(crate) fn new(
        txn: &mut Txn<E>,
        t: &TableDef,
        index_no: usize,
        range: &IndexRange,
        reverse: bool,
        lock: LockMode,
    ) -> Result<Self> {
        let (lo, hi) = range.to_key_range(t, index_no)?;
        let src = if lock == LockMode::None {
            Source::Snapshot(txn.snap())
        } else {
            Source::Latest
        };
        Ok(RowIter {
            st: txn.st.clone(),
            src,
            own: txn.writes.data.clone(),
            t: Arc::new(t.clone()),
            index_no,
            engine_done: lo >= hi,
            snap_it: None,
            lo,
            hi,
            reverse,
            lock,
            txn: txn.id(),
            wait: txn.wait.clone(),
            held: txn.held.clone(),
            batch: FIRST_BATCH,
            out: VecDeque::new(),
            failed: false,
            cols: None,
        })
    }

    /// Builds only the columns marked in `cols` (one flag per table column) of the rows of a
    /// consistent (non-locking) scan; the others read as NULL. Locking scans ignore it: they
    /// re-check index entries against the whole row.
    #[must_use]
    pub fn project(mut self, cols: Option<Arc<[bool]>>) -> Self {
        if self.lock == LockMode::None {
            self.cols = cols;
        }
        self
    }

    /// Decodes a row value under the projection.
    fn decode(&self, v: &[u8]) -> Result<Vec<Value>> {
        decode_row_cols(&self.t, v, self.cols.as_deref())
    }

    /// The common consistent primary-key scan with no own writes to merge: rows are decoded
    /// straight from the engine iterator's value, without copying it first.
    fn fill_direct(&mut self) -> Result<()> {
        let n = self.batch;
        self.batch = (self.batch * 2).min(MAX_BATCH);
        let Source::Snapshot(s) = &self.src else {
            return Err(common::Error::internal("direct fill without snapshot"));
        };
        let it = self.snap_it.get_or_insert_with(|| {
            SharedIter::new(s.clone(), Cf::Data, &self.lo, Some(&self.hi), self.reverse)
        });
        let mut got = 0;
        while it.valid() && got < n {
            let row = decode_row_cols(&self.t, it.value(), self.cols.as_deref())?;
            self.out.push_back((it.key().to_vec(), row));
            got += 1;
            it.next();
        }
        it.status()?;
        if got < n {
            self.engine_done = true;
        }
        Ok(())
    }

    fn fetch_engine(&mut self, n: usize) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut v = Vec::with_capacity(n.min(64));
        let mut take = |it: &mut dyn KvIter| -> Result<()> {
            while it.valid() && v.len() < n {
                v.push((it.key().to_vec(), it.value().to_vec()));
                it.next();
            }
            it.status()
        };
        match &self.src {
            // A snapshot does not change: one iterator serves every batch, so only the first
            // batch seeks (a seek costs a search of the memtable and of every file level).
            Source::Snapshot(s) => {
                let it = self.snap_it.get_or_insert_with(|| {
                    SharedIter::new(s.clone(), Cf::Data, &self.lo, Some(&self.hi), self.reverse)
                });
                take(it)?;
            }
            // Locking reads see the latest committed state as of each batch.
            Source::Latest => {
                let mut it =
                    self.st
                        .engine()
                        .iter(Cf::Data, &self.lo, Some(&self.hi), self.reverse);
                take(it.as_mut())?;
            }
        }
        Ok(v)
    }

    /// Own writes in `[lo, hi]`/`[lo, hi)` in scan direction.
    fn own_range(&self, lo: Bound<Vec<u8>>, hi: Bound<Vec<u8>>) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
        if self.own.is_empty() {
            return Vec::new();
        }
        let r = self.own.range((lo, hi));
        if self.reverse {
            r.rev().map(|(k, v)| (k.clone(), v.clone())).collect()
        } else {
            r.map(|(k, v)| (k.clone(), v.clone())).collect()
        }
    }

    /// Next batch of merged `(key, value)` entries; empty when the range is exhausted.
    fn next_entries(&mut self) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        while !self.engine_done {
            let n = self.batch;
            self.batch = (self.batch * 2).min(MAX_BATCH);
            let eng = self.fetch_engine(n)?;
            let exhausted = eng.len() < n;
            let own = match (exhausted, eng.last()) {
                (false, Some((last, _))) => {
                    if self.reverse {
                        self.own_range(
                            Bound::Included(last.clone()),
                            Bound::Excluded(self.hi.clone()),
                        )
                    } else {
                        self.own_range(
                            Bound::Included(self.lo.clone()),
                            Bound::Included(last.clone()),
                        )
                    }
                }
                _ => self.own_range(
                    Bound::Included(self.lo.clone()),
                    Bound::Excluded(self.hi.clone()),
                ),
            };
            if exhausted {
                self.engine_done = true;
            } else if let Some((last, _)) = eng.last() {
                if self.reverse {
                    self.hi = last.clone();
                } else {
                    self.lo = key::key_successor(last);
                }
            }
            let merged = merge(eng, own, self.reverse);
            if !merged.is_empty() {
                return Ok(merged);
            }
        }
        Ok(Vec::new())
    }

    /// Locks the row `h` for this locking scan; false when SKIP LOCKED leaves it out.
    fn lock_row(&self, h: &[u8]) -> Result<bool> {
        match lock_into(
            &self.st,
            self.txn,
            &self.held,
            &self.wait,
            h,
            self.lock == LockMode::Exclusive,
        ) {
            Ok(()) => Ok(true),
            Err(e) if super::lock::is_skipped(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn read_latest(&self, h: &[u8]) -> Result<Option<Vec<u8>>> {
        if let Some(v) = self.own.get(h) {
            return Ok(v.clone());
        }
        self.st.engine().get(Cf::Data, h)
    }

    fn fill(&mut self) -> Result<()> {
        let direct =
            self.index_no == 0 && self.own.is_empty() && matches!(self.src, Source::Snapshot(_));
        while self.out.is_empty() {
            if direct {
                if self.engine_done {
                    return Ok(());
                }
                self.fill_direct()?;
                continue;
            }
            let entries = self.next_entries()?;
            if entries.is_empty() {
                return Ok(());
            }
            let t = self.t.clone();
            if self.index_no == 0 {
                for (k, v) in entries {
                    if self.lock == LockMode::None {
                        let row = self.decode(&v)?;
                        self.out.push_back((k, row));
                        continue;
                    }
                    if !self.lock_row(&k)? {
                        continue;
                    }
                    if let Some(v) = self.read_latest(&k)? {
                        let row = decode_row(&t, &v)?;
                        self.out.push_back((k, row));
                    }
                }
                continue;
            }
            // Secondary index: resolve entries to rows.
            let mut handles = Vec::with_capacity(entries.len());
            for (k, _) in &entries {
                handles.push(key::handle_from_index_key(&t, self.index_no, k)?);
            }
            if self.lock == LockMode::None {
                let Source::Snapshot(snap) = &self.src else {
                    return Err(common::Error::internal("consistent scan without snapshot"));
                };
                let mut rows: Vec<Option<Vec<u8>>> = vec![None; handles.len()];
                let mut missing_idx = Vec::new();
                let mut missing = Vec::new();
                for (i, h) in handles.iter().enumerate() {
                    match self.own.get(h) {
                        Some(v) => rows[i] = v.clone(),
                        None => {
                            missing_idx.push(i);
                            missing.push(h.clone());
                        }
                    }
                }
                if !missing.is_empty() {
                    for (i, v) in missing_idx
                        .into_iter()
                        .zip(snap.multi_get(Cf::Data, &missing)?)
                    {
                        rows[i] = v;
                    }
                }
                for (h, r) in handles.into_iter().zip(rows) {
                    if let Some(v) = r {
                        let row = self.decode(&v)?;
                        self.out.push_back((h, row));
                    }
                }
            } else {
                for ((k, _), h) in entries.into_iter().zip(handles) {
                    if !self.lock_row(&h)? {
                        continue;
                    }
                    let Some(v) = self.read_latest(&h)? else {
                        continue;
                    };
                    let row = decode_row(&t, &v)?;
                    // The row may have changed since the entry was read: keep it only if it
                    // still has this index entry.
                    if key::encode_index_key(&t, self.index_no, &row, &h)? == k {
                        self.out.push_back((h, row));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Merges engine entries with own writes (both in scan direction); own writes win, own deletes
/// hide entries.
fn merge(
    eng: Vec<(Vec<u8>, Vec<u8>)>,
    own: Vec<(Vec<u8>, Option<Vec<u8>>)>,
    reverse: bool,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    if own.is_empty() {
        return eng;
    }
    let mut out = Vec::with_capacity(eng.len() + own.len());
    let mut e = eng.into_iter().peekable();
    let mut o = own.into_iter().peekable();
    loop {
        let ord = match (e.peek(), o.peek()) {
            (None, None) => break,
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (Some((ek, _)), Some((ok, _))) => {
                let c = ek.cmp(ok);
                if reverse {
                    c.reverse()
                } else {
                    c
                }
            }
        };
        match ord {
            std::cmp::Ordering::Less => {
                if let Some(x) = e.next() {
                    out.push(x);
                }
            }
            std::cmp::Ordering::Greater => {
                if let Some((k, Some(v))) = o.next() {
                    out.push((k, v));
                }
            }
            std::cmp::Ordering::Equal => {
                e.next();
                if let Some((k, Some(v))) = o.next() {
                    out.push((k, v));
                }
            }
        }
    }
    out
}

impl<E: KvEngine> Iterator for RowIter<E> {
    type Item = Result<(Handle, Vec<Value>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        if self.out.is_empty() {
            if let Err(e) = self.fill() {
                self.failed = true;
                return Some(Err(e));
            }
        }
        self.out.pop_front().map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_prefers_own_writes() {
        let eng = vec![
            (b"a".to_vec(), b"1".to_vec()),
            (b"c".to_vec(), b"3".to_vec()),
            (b"e".to_vec(), b"5".to_vec()),
        ];
        let own = vec![
            (b"b".to_vec(), Some(b"2".to_vec())),
            (b"c".to_vec(), None),
            (b"e".to_vec(), Some(b"E".to_vec())),
        ];
        let m = merge(eng, own, false);
        let keys: Vec<_> = m.iter().map(|(k, v)| (k[0], v[0])).collect();
        assert_eq!(keys, vec![(b'a', b'1'), (b'b', b'2'), (b'e', b'E')]);
        let eng = vec![
            (b"c".to_vec(), b"3".to_vec()),
            (b"a".to_vec(), b"1".to_vec()),
        ];
        let own = vec![(b"d".to_vec(), Some(b"4".to_vec())), (b"a".to_vec(), None)];
        let m = merge(eng, own, true);
        assert_eq!(
            m.iter().map(|(k, _)| k[0]).collect::<Vec<_>>(),
            vec![b'd', b'c']
        );
    }
}
