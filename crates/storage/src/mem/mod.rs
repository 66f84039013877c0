//! [`MemEngine`]: an in-memory [`KvEngine`] for tests and the `mem` server mode.
//!
//! Multi-version `BTreeMap`s: every write gets a sequence number, snapshots read the newest
//! version at or below their sequence, and versions no live snapshot can see are pruned on write.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use common::Result;
use parking_lot::{Mutex, RwLock};

use crate::engine::{Cf, KvEngine, KvIter, KvSnapshot, WriteBatch, WriteOp};

/// Versions of one key, oldest first: `(sequence, value or tombstone)`.
type Versions = Vec<(u64, Option<Vec<u8>>)>;

#[derive(Default)]
struct Data {
    cfs: [BTreeMap<Vec<u8>, Versions>; 2],
}

struct Inner {
    data: RwLock<Data>,
    seq: AtomicU64,
    /// Live snapshot sequences → reference count.
    live: Mutex<BTreeMap<u64, usize>>,
}

/// An in-memory, multi-versioned ordered KV engine. Cheap to clone (shared state).
#[derive(Clone)]
pub struct MemEngine {
    inner: Arc<Inner>,
}

impl Default for MemEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl MemEngine {
    /// An empty engine.
    pub fn new() -> Self {
        MemEngine {
            inner: Arc::new(Inner {
                data: RwLock::new(Data::default()),
                seq: AtomicU64::new(0),
                live: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    fn snap(&self) -> MemSnapshot {
        let _g = self.inner.data.read();
        let seq = self.inner.seq.load(Ordering::SeqCst);
        *self.inner.live.lock().entry(seq).or_insert(0) += 1;
        MemSnapshot {
            inner: self.inner.clone(),
            seq,
        }
    }
}

fn visible(versions: &Versions, seq: u64) -> Option<&Vec<u8>> {
    versions
        .iter()
        .rev()
        .find(|(s, _)| *s <= seq)
        .and_then(|(_, v)| v.as_ref())
}

/// Drops versions no reader can see: a version survives if it is the newest, or the newest
/// one at or below some live snapshot sequence.
fn prune(versions: &mut Versions, live: &BTreeMap<u64, usize>) {
    if versions.len() <= 1 {
        return;
    }
    let n = versions.len();
    let mut i = 0;
    let keep: Vec<bool> = (0..n)
        .map(|j| {
            j + 1 == n
                || live
                    .range(versions[j].0..versions[j + 1].0)
                    .next()
                    .is_some()
        })
        .collect();
    versions.retain(|_| {
        let k = keep[i];
        i += 1;
        k
    });
}

impl Inner {
    fn get_at(&self, cf: Cf, key: &[u8], seq: u64) -> Option<Vec<u8>> {
        let d = self.data.read();
        d.cfs[cf.index()]
            .get(key)
            .and_then(|v| visible(v, seq).cloned())
    }

    #[allow(clippy::too_many_arguments)]
    /// Up to `n` visible entries strictly after `after` (or from the range start) in direction.
    fn fetch(
        &self,
        cf: Cf,
        seq: u64,
        lower: &[u8],
        upper: Option<&[u8]>,
        after: Option<&[u8]>,
        reverse: bool,
        n: usize,
    ) -> Vec<(Vec<u8>, Vec<u8>)> {
        let d = self.data.read();
        let map = &d.cfs[cf.index()];
        let mut out = Vec::new();
        if !reverse {
            let lo = match after {
                Some(a) => Bound::Excluded(a),
                None => Bound::Included(lower),
            };
            let hi = match upper {
                Some(u) => Bound::Excluded(u),
                None => Bound::Unbounded,
            };
            if !range_ok(lo, hi) {
                return out;
            }
            for (k, vs) in map.range::<[u8], _>((lo, hi)) {
                if let Some(v) = visible(vs, seq) {
                    out.push((k.clone(), v.clone()));
                    if out.len() >= n {
                        break;
                    }
                }
            }
        } else {
            let hi = match (after, upper) {
                (Some(a), _) => Bound::Excluded(a),
                (None, Some(u)) => Bound::Excluded(u),
                (None, None) => Bound::Unbounded,
            };
            let lo = Bound::Included(lower);
            if !range_ok(lo, hi) {
                return out;
            }
            for (k, vs) in map.range::<[u8], _>((lo, hi)).rev() {
                if let Some(v) = visible(vs, seq) {
                    out.push((k.clone(), v.clone()));
                    if out.len() >= n {
                        break;
                    }
                }
            }
        }
        out
    }
}

/// BTreeMap::range panics on inverted or empty-excluded ranges; filter them out.
fn range_ok(lo: Bound<&[u8]>, hi: Bound<&[u8]>) -> bool {
    match (lo, hi) {
        (Bound::Included(l), Bound::Excluded(h)) => l < h,
        (Bound::Excluded(l), Bound::Excluded(h)) => l < h,
        (Bound::Included(l), Bound::Included(h)) => l <= h,
        (Bound::Excluded(l), Bound::Included(h)) => l < h,
        _ => true,
    }
}

/// A snapshot of a [`MemEngine`].
pub struct MemSnapshot {
    inner: Arc<Inner>,
    seq: u64,
}

impl Drop for MemSnapshot {
    fn drop(&mut self) {
        let mut live = self.inner.live.lock();
        if let Some(c) = live.get_mut(&self.seq) {
            *c -= 1;
            if *c == 0 {
                live.remove(&self.seq);
            }
        }
    }
}

impl KvSnapshot for MemSnapshot {
    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.inner.get_at(cf, key, self.seq))
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        Ok(keys
            .iter()
            .map(|k| self.inner.get_at(cf, k, self.seq))
            .collect())
    }

    fn iter(
        &self,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Box<dyn KvIter + '_> {
        Box::new(MemIter::new(
            MemSnapshot {
                inner: self.inner.clone(),
                seq: self.seq,
            }
            .registered(),
            cf,
            lower,
            upper,
            reverse,
        ))
    }
}

impl MemSnapshot {
    /// Registers this (cloned) snapshot's sequence as live.
    fn registered(self) -> Self {
        *self.inner.live.lock().entry(self.seq).or_insert(0) += 1;
        self
    }
}

/// Iterator over a [`MemSnapshot`]: fetches entries in small batches under the read lock.
struct MemIter {
    snap: MemSnapshot,
    cf: Cf,
    lower: Vec<u8>,
    upper: Option<Vec<u8>>,
    reverse: bool,
    buf: VecDeque<(Vec<u8>, Vec<u8>)>,
    last: Option<Vec<u8>>,
    exhausted: bool,
}

const MEM_BATCH: usize = 64;

impl MemIter {
    fn new(snap: MemSnapshot, cf: Cf, lower: &[u8], upper: Option<&[u8]>, reverse: bool) -> Self {
        let mut it = MemIter {
            snap,
            cf,
            lower: lower.to_vec(),
            upper: upper.map(|u| u.to_vec()),
            reverse,
            buf: VecDeque::new(),
            last: None,
            exhausted: false,
        };
        it.refill();
        it
    }

    fn refill(&mut self) {
        if self.exhausted {
            return;
        }
        let got = self.snap.inner.fetch(
            self.cf,
            self.snap.seq,
            &self.lower,
            self.upper.as_deref(),
            self.last.as_deref(),
            self.reverse,
            MEM_BATCH,
        );
        if got.len() < MEM_BATCH {
            self.exhausted = true;
        }
        if let Some((k, _)) = got.last() {
            self.last = Some(k.clone());
        }
        self.buf.extend(got);
    }
}

impl KvIter for MemIter {
    fn valid(&self) -> bool {
        !self.buf.is_empty()
    }
    fn key(&self) -> &[u8] {
        self.buf.front().map(|(k, _)| k.as_slice()).unwrap_or(&[])
    }
    fn value(&self) -> &[u8] {
        self.buf.front().map(|(_, v)| v.as_slice()).unwrap_or(&[])
    }
    fn next(&mut self) {
        self.buf.pop_front();
        if self.buf.is_empty() {
            self.refill();
        }
    }
    fn status(&self) -> Result<()> {
        Ok(())
    }
}

impl KvEngine for MemEngine {
    type Snapshot = MemSnapshot;

    fn get(&self, cf: Cf, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.inner.get_at(cf, key, u64::MAX))
    }

    fn multi_get(&self, cf: Cf, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        Ok(keys
            .iter()
            .map(|k| self.inner.get_at(cf, k, u64::MAX))
            .collect())
    }

    fn snapshot(&self) -> MemSnapshot {
        self.snap()
    }

    fn iter(
        &self,
        cf: Cf,
        lower: &[u8],
        upper: Option<&[u8]>,
        reverse: bool,
    ) -> Box<dyn KvIter + '_> {
        Box::new(MemIter::new(self.snap(), cf, lower, upper, reverse))
    }

    fn write(&self, batch: &WriteBatch, _sync: bool) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut d = self.inner.data.write();
        let seq = self.inner.seq.load(Ordering::SeqCst) + 1;

        let mut touched: Vec<(Cf, Vec<u8>)> = Vec::new();
        for op in batch.ops() {
            match op {
                WriteOp::Put { cf, key, value } => {
                    push_version(&mut d.cfs[cf.index()], key, seq, Some(value.clone()));
                    touched.push((*cf, key.clone()));
                }
                WriteOp::Delete { cf, key } => {
                    push_version(&mut d.cfs[cf.index()], key, seq, None);
                    touched.push((*cf, key.clone()));
                }
                WriteOp::DeleteRange { cf, start, end } => {
                    if start >= end {
                        continue;
                    }
                    let map = &mut d.cfs[cf.index()];
                    let keys: Vec<Vec<u8>> = map
                        .range::<[u8], _>((
                            Bound::Included(start.as_slice()),
                            Bound::Excluded(end.as_slice()),
                        ))
                        .filter(|(_, vs)| vs.last().is_some_and(|(_, v)| v.is_some()))
                        .map(|(k, _)| k.clone())
                        .collect();
                    for k in keys {
                        push_version(map, &k, seq, None);
                        touched.push((*cf, k));
                    }
                }
            }
        }
        let live = self.inner.live.lock();
        for (cf, k) in touched {
            let map = &mut d.cfs[cf.index()];
            let remove = match map.get_mut(&k) {
                Some(vs) => {
                    prune(vs, &live);
                    // A lone tombstone no snapshot can tell from absence.
                    vs.len() == 1 && vs[0].1.is_none() && live.range(..vs[0].0).next().is_none()
                }
                None => false,
            };
            if remove {
                map.remove(&k);
            }
        }
        drop(live);
        self.inner.seq.store(seq, Ordering::SeqCst);
        Ok(())
    }

    fn compact_range(&self, _cf: Cf, _start: Option<&[u8]>, _end: Option<&[u8]>) -> Result<()> {
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        Ok(())
    }

    fn approximate_size(&self, cf: Cf, start: &[u8], end: &[u8]) -> u64 {
        if start >= end {
            return 0;
        }
        let d = self.inner.data.read();
        d.cfs[cf.index()]
            .range::<[u8], _>((Bound::Included(start), Bound::Excluded(end)))
            .filter_map(|(k, vs)| visible(vs, u64::MAX).map(|v| (k.len() + v.len()) as u64))
            .sum()
    }
}

fn push_version(map: &mut BTreeMap<Vec<u8>, Versions>, key: &[u8], seq: u64, v: Option<Vec<u8>>) {
    let vs = map.entry(key.to_vec()).or_default();
    match vs.last_mut() {
        // Several writes of one key in one batch: the last wins.
        Some((s, old)) if *s == seq => *old = v,
        _ => vs.push((seq, v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conformance() {
        crate::testutil::conformance(&MemEngine::new());
    }

    #[test]
    fn pruning_keeps_snapshot_versions() {
        let e = MemEngine::new();
        let mut b = WriteBatch::new();
        b.put(Cf::Data, b"a".to_vec(), b"1".to_vec());
        e.write(&b, false).unwrap();
        let s = e.snapshot();
        for i in 0..10u8 {
            let mut b = WriteBatch::new();
            b.put(Cf::Data, b"a".to_vec(), vec![i]);
            e.write(&b, false).unwrap();
        }
        assert_eq!(s.get(Cf::Data, b"a").unwrap(), Some(b"1".to_vec()));
        {
            let d = e.inner.data.read();
            assert!(d.cfs[0].get(b"a".as_slice()).unwrap().len() <= 2);
        }
        drop(s);
        let mut b = WriteBatch::new();
        b.delete(Cf::Data, b"a".to_vec());
        e.write(&b, false).unwrap();
        assert!(e.inner.data.read().cfs[0].is_empty());
    }
}
