//! The fast path of LOAD DATA ([`crate::dml::load`]) into an empty table: the rows are not
//! written through the transaction (whose write buffer holds every row of the statement until
//! it commits) but sorted in bounded memory and handed to the engine's
//! [`storage::engine::BulkWriter`] index by index (RocksDB: one SST file per index, ingested
//! together in one atomic step at the end; a crash before it leaves the table empty, after it
//! the table full).
//!
//! * Sorting: the primary index's entries (handle, encoded row) go to a [`RunSorter`], which
//!   keeps up to its budget in one buffer and writes sorted runs to unnamed temporary files
//!   ([`crate::exec::spill`]) beyond it; the runs are merged at the end. Equal keys come out
//!   in file order, which gives IGNORE (the first row wins, later ones are skipped with warning
//!   1062) and REPLACE (the last row wins; each replaced row counts as deleted) their MySQL
//!   meaning; without either, a duplicate fails the statement with 1062 and nothing is
//!   loaded. Secondary index entries are made from the rows that survive the merge and are
//!   sorted the same way, one sorter per index; a unique index's equal values (non-NULL) are a
//!   1062 error (its entries carry their row through the sort, for the error's message).
//! * When ([`BulkLoad::start`]): the statement is its own transaction (autocommit, no
//!   transaction open with writes), is not binary-logged (the binary log off or
//!   `sql_log_bin = 0`: the rows bypass the transaction's change list), the table is a
//!   plain base table (not TEMPORARY, not partitioned, no FOREIGN KEY of its own), its indexes
//!   are empty, no other connection may write it (a NoWrite metadata lock, taken without
//!   waiting: a table with an open writer loads the normal way), the engine can commit its
//!   indexes atomically, and IGNORE / REPLACE are used only on tables whose only unique index
//!   is the primary key. Otherwise LOAD DATA inserts row by row as before.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;

use common::{codes, Error, Result, Value, Warning};
use storage::catalog::{IndexKind, TableDef};
use storage::codec::key;
use storage::codec::row::{decode_row, encode_row};
use storage::engine::{Cf, KvEngine};

use crate::dml::single::dup_error;
use crate::exec::spill::{SpillReader, SpillWriter};
use crate::ir::expr::EvalCtx;
use crate::parse::load::OnDup;
use crate::runtime::mdl::{MdlMode, MdlWait};
use crate::session::session::Session;

/// Bytes of keys and values a load keeps in memory before it writes a sorted run (shared by
/// the secondary indexes' sorters while they fill).
pub const SORT_BUDGET: usize = 32 << 20;

/// The least budget of one secondary index's sorter.
const MIN_BUDGET: usize = 4 << 20;

/// Rows between two checks of KILL QUERY while merging.
const KILL_CHECK: u64 = 4096;

/// What a finished bulk load did, for LOAD DATA's message.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Rows written (REPLACE: including the replaced ones, as the row-by-row path counts).
    pub inserted: u64,
    /// Rows replaced by a later row with the same key (REPLACE).
    pub deleted: u64,
    /// Rows left out as duplicates (IGNORE).
    pub skipped: u64,
}

/// A LOAD DATA statement on the fast path.
pub struct BulkLoad {
    pk: RunSorter,
    on_dup: OnDup,
    dir: PathBuf,
}

/// True when the statement may take the fast path, before any lock or read.
fn eligible<E: KvEngine>(s: &Session<E>, t: &TableDef, on_dup: OnDup) -> bool {
    if t.temporary
        || t.options.view.is_some()
        || crate::catalog::partition::is_partitioned(t)
        || !t.foreign_keys.is_empty()
        || t.indexes.is_empty()
        || crate::runtime::schemas::is_system_db(&t.db)
    {
        return false;
    }
    if !s.autocommit() || s.explicit_txn || s.txn.as_ref().is_some_and(|x| x.has_writes()) {
        return false;
    }
    if s.inst.binlog.read().is_some() && s.var_int("sql_log_bin", 1) != 0 {
        return false;
    }
    let unique_secondary = t
        .indexes
        .iter()
        .skip(1)
        .any(|i| i.kind != IndexKind::Normal);
    on_dup == OnDup::Error || !unique_secondary
}

impl BulkLoad {
    /// The fast path for loading into `t`, or `None` when LOAD DATA must insert row by row
    /// (see the module docs). Takes a NoWrite metadata lock on the table (held to the end of
    /// the statement) when it returns a loader.
    ///
    /// # Errors
    /// An engine I/O error.
    pub fn start<E: KvEngine>(
        s: &mut Session<E>,
        t: &TableDef,
        on_dup: OnDup,
    ) -> Result<Option<BulkLoad>> {
        if !eligible(s, t, on_dup) {
            return Ok(None);
        }
        let ids: Vec<u32> = t.indexes.iter().map(|i| i.id).collect();
        let engine = s.inst.storage.engine();
        if engine.bulk_writer(&ids)?.is_none() || !all_empty(engine, &ids)? {
            return Ok(None);
        }
        // no other writer until the statement ends; a busy table loads the normal way
        let mdl_key = crate::runtime::mdl::key(&t.db, &t.name);
        let locked = s.inst.mdl.acquire(
            s.conn_id,
            &mdl_key,
            MdlMode::NoWrite,
            &MdlWait {
                timeout: std::time::Duration::ZERO,
                killed: &s.killed,
            },
        );
        if locked.is_err() {
            return Ok(None);
        }
        s.mdl_held.set(true);
        // again under the lock: a writer may have committed rows before it
        if !all_empty(engine, &ids)? {
            s.inst
                .mdl
                .downgrade(s.conn_id, &mdl_key, MdlMode::SharedWrite);
            return Ok(None);
        }
        let dir = crate::exec::stream::tmp_dir(s);
        Ok(Some(BulkLoad {
            pk: RunSorter::new(SORT_BUDGET, dir.clone()),
            on_dup,
            dir,
        }))
    }

    /// Adds one row (complete, converted and checked, as for an insert).
    ///
    /// # Errors
    /// A value that cannot be stored; 1026 when a sorted run cannot be written.
    pub fn add<E: KvEngine>(&mut self, s: &Session<E>, t: &TableDef, row: &[Value]) -> Result<()> {
        let value = encode_row(t, row)?;
        let h = if t.hidden_pk {
            key::hidden_handle(t, s.inst.storage.next_row_id(t)?)
        } else {
            key::encode_pk(t, row)?
        };
        self.pk.push(&h, &value, 0)
    }

    /// Sorts, checks and writes every index, then makes the rows visible at once.
    ///
    /// # Errors
    /// 1062 for a duplicate key (without IGNORE / REPLACE), 1317 when killed, 1026 for a
    /// temporary file, engine I/O errors. Nothing is loaded then.
    pub fn finish<E: KvEngine>(
        self,
        s: &Session<E>,
        t: &TableDef,
        ctx: &mut EvalCtx<'_>,
    ) -> Result<Counts> {
        let ids: Vec<u32> = t.indexes.iter().map(|i| i.id).collect();
        let mut w = s
            .inst
            .storage
            .engine()
            .bulk_writer(&ids)?
            .ok_or_else(|| Error::internal("the bulk load cannot be committed"))?;
        let nsec = t.indexes.len() - 1;
        let per = (SORT_BUDGET / nsec.max(1)).max(MIN_BUDGET);
        let mut secs: Vec<RunSorter> = (0..nsec)
            .map(|_| RunSorter::new(per, self.dir.clone()))
            .collect();
        let mut counts = Counts::default();
        let mut pk = self.pk.into_merge()?;
        let mut pending = pk.pop()?;
        let on_dup = self.on_dup;
        let mut n = 0u64;
        let mut next_row = || -> Result<Option<(Vec<u8>, Vec<u8>)>> {
            let Some((h, mut v, _)) = pending.take() else {
                return Ok(None);
            };
            n += 1;
            if n.is_multiple_of(KILL_CHECK) && ctx.killed.load(Ordering::Relaxed) {
                return Err(Error::interrupted());
            }
            loop {
                match pk.pop()? {
                    Some((h2, v2, _)) if h2 == h => match on_dup {
                        OnDup::Error => return Err(dup_error(t, 0, &decode_row(t, &v2)?)),
                        OnDup::Ignore => {
                            counts.skipped += 1;
                            let e = dup_error(t, 0, &decode_row(t, &v2)?);
                            ctx.warnings.push(Warning::warn(codes::ER_DUP_ENTRY, e.msg));
                        }
                        OnDup::Replace => {
                            v = v2;
                            counts.deleted += 1;
                            counts.inserted += 1;
                        }
                    },
                    other => {
                        pending = other;
                        break;
                    }
                }
            }
            counts.inserted += 1;
            if nsec > 0 {
                let row = decode_row(t, &v)?;
                for (j, sorter) in secs.iter_mut().enumerate() {
                    let k = key::encode_index_key(t, j + 1, &row, &h)?;
                    let plen = key::unique_key(t, j + 1, &row)?.map_or(0, |u| u.len());
                    // a unique entry carries its row, for the message of a duplicate
                    let carry: &[u8] = if plen > 0 { &v } else { &[] };
                    sorter.push(&k, carry, plen)?;
                }
            }
            Ok(Some((h, v)))
        };
        w.add_index(ids[0], &mut next_row)?;
        for (j, sorter) in secs.into_iter().enumerate() {
            let i = j + 1;
            let mut m = sorter.into_merge()?;
            let mut prev: Vec<u8> = Vec::new();
            let mut next_entry = || -> Result<Option<(Vec<u8>, Vec<u8>)>> {
                let Some((k, v, plen)) = m.pop()? else {
                    return Ok(None);
                };
                if plen > 0 && prev.len() == plen && prev[..] == k[..plen] {
                    return Err(dup_error(t, i, &decode_row(t, &v)?));
                }
                prev.clear();
                prev.extend_from_slice(&k[..plen]);
                // index entries have empty values
                Ok(Some((k, Vec::new())))
            };
            w.add_index(ids[i], &mut next_entry)?;
            if ctx.killed.load(Ordering::Relaxed) {
                return Err(Error::interrupted());
            }
        }
        w.commit()?;
        // the storage's cached marks (primary-key high mark, row id) predate the rows
        s.inst.storage.rows_written_outside(t);
        Ok(counts)
    }
}

/// True when no index of `ids` has an entry.
fn all_empty<E: KvEngine>(engine: &E, ids: &[u32]) -> Result<bool> {
    for &id in ids {
        let (lo, hi) = key::index_range(id);
        let it = engine.iter(Cf::Data, &lo, Some(&hi), false);
        let empty = !it.valid();
        it.status()?;
        if !empty {
            return Ok(false);
        }
    }
    Ok(true)
}

/// One buffered entry of a [`RunSorter`]: offsets into its buffer.
#[derive(Clone, Copy)]
struct Entry {
    off: usize,
    klen: u32,
    vlen: u32,
    /// Length of the key's uniqueness prefix (0: none).
    plen: u32,
}

/// An external sort of `(key, value, prefix length)` entries by key that keeps equal keys in
/// the order they were pushed: entries are buffered up to `budget` bytes, then sorted (stably)
/// and written as a run; the merge prefers the earlier run on equal keys.
pub struct RunSorter {
    buf: Vec<u8>,
    entries: Vec<Entry>,
    budget: usize,
    runs: Vec<SpillReader>,
    dir: PathBuf,
}

impl RunSorter {
    /// A sorter that writes its runs into `dir` once `budget` bytes are buffered.
    pub fn new(budget: usize, dir: PathBuf) -> Self {
        RunSorter {
            buf: Vec::new(),
            entries: Vec::new(),
            budget,
            runs: Vec::new(),
            dir,
        }
    }

    /// Adds an entry.
    ///
    /// # Errors
    /// 1026 when a run cannot be written.
    pub fn push(&mut self, key: &[u8], value: &[u8], plen: usize) -> Result<()> {
        if !self.entries.is_empty() && self.buf.len() + key.len() + value.len() > self.budget {
            self.spill()?;
        }
        let too_long = || Error::internal("bulk load entry over 4 GiB");
        self.entries.push(Entry {
            off: self.buf.len(),
            klen: u32::try_from(key.len()).map_err(|_| too_long())?,
            vlen: u32::try_from(value.len()).map_err(|_| too_long())?,
            plen: u32::try_from(plen).map_err(|_| too_long())?,
        });
        self.buf.extend_from_slice(key);
        self.buf.extend_from_slice(value);
        Ok(())
    }

    fn key<'a>(buf: &'a [u8], e: &Entry) -> &'a [u8] {
        &buf[e.off..e.off + e.klen as usize]
    }

    fn value<'a>(buf: &'a [u8], e: &Entry) -> &'a [u8] {
        let start = e.off + e.klen as usize;
        &buf[start..start + e.vlen as usize]
    }

    fn sort(&mut self) {
        let buf = &self.buf;
        // stable: equal keys keep their order
        self.entries
            .sort_by(|a, b| Self::key(buf, a).cmp(Self::key(buf, b)));
    }

    fn spill(&mut self) -> Result<()> {
        self.sort();
        let mut w = SpillWriter::create(&self.dir)?;
        let mut rec = Vec::new();
        for e in &self.entries {
            rec.clear();
            rec.extend_from_slice(&e.klen.to_le_bytes());
            rec.extend_from_slice(&e.plen.to_le_bytes());
            rec.extend_from_slice(Self::key(&self.buf, e));
            rec.extend_from_slice(Self::value(&self.buf, e));
            w.write(&rec)?;
        }
        self.runs.push(w.finish()?);
        self.buf.clear();
        self.entries.clear();
        Ok(())
    }

    /// The entries in key order (equal keys in push order).
    ///
    /// # Errors
    /// 1026 when a run cannot be read.
    pub fn into_merge(mut self) -> Result<Merge> {
        if !self.runs.is_empty() && !self.entries.is_empty() {
            // the buffer becomes a run too, so its memory is free for the next sorters
            self.spill()?;
            self.buf = Vec::new();
            self.entries = Vec::new();
        }
        self.sort();
        let mut m = Merge {
            runs: self.runs,
            mem: (self.buf, self.entries, 0),
            heap: BinaryHeap::new(),
        };
        for src in 0..=m.runs.len() {
            m.refill(src)?;
        }
        Ok(m)
    }
}

/// An entry out of a [`Merge`]: key, value, length of the key's uniqueness prefix.
pub type SortedEntry = (Vec<u8>, Vec<u8>, usize);

/// The head of one source of a [`Merge`]: ordered by key, then by source (earlier first).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Head {
    key: Vec<u8>,
    src: usize,
    value: Vec<u8>,
    plen: usize,
}

/// The merged runs of a [`RunSorter`]; the buffered entries are the last source.
pub struct Merge {
    runs: Vec<SpillReader>,
    mem: (Vec<u8>, Vec<Entry>, usize),
    heap: BinaryHeap<Reverse<Head>>,
}

impl Merge {
    /// Puts the next entry of source `src` (a run, or the buffer when `src` is past the runs)
    /// on the heap.
    fn refill(&mut self, src: usize) -> Result<()> {
        let head = if let Some(run) = self.runs.get_mut(src) {
            let mut rec = Vec::new();
            if !run.next(&mut rec)? {
                return Ok(());
            }
            let bad = || Error::internal("corrupt bulk load run");
            let klen = u32::from_le_bytes(
                rec.get(..4)
                    .ok_or_else(bad)?
                    .try_into()
                    .map_err(|_| bad())?,
            ) as usize;
            let plen = u32::from_le_bytes(
                rec.get(4..8)
                    .ok_or_else(bad)?
                    .try_into()
                    .map_err(|_| bad())?,
            ) as usize;
            let key = rec.get(8..8 + klen).ok_or_else(bad)?.to_vec();
            rec.drain(..8 + klen);
            Head {
                key,
                src,
                value: rec,
                plen,
            }
        } else {
            let (buf, entries, pos) = &mut self.mem;
            let Some(e) = entries.get(*pos) else {
                return Ok(());
            };
            *pos += 1;
            Head {
                key: RunSorter::key(buf, e).to_vec(),
                src,
                value: RunSorter::value(buf, e).to_vec(),
                plen: e.plen as usize,
            }
        };
        self.heap.push(Reverse(head));
        Ok(())
    }

    /// The next entry, `None` at the end.
    ///
    /// # Errors
    /// 1026 when a run cannot be read.
    pub fn pop(&mut self) -> Result<Option<SortedEntry>> {
        let Some(Reverse(h)) = self.heap.pop() else {
            return Ok(None);
        };
        self.refill(h.src)?;
        Ok(Some((h.key, h.value, h.plen)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(mut m: Merge) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        while let Some((k, v, _)) = m.pop().unwrap() {
            out.push((k, v));
        }
        out
    }

    #[test]
    fn sorts_in_memory_and_keeps_push_order_of_equal_keys() {
        let mut s = RunSorter::new(1 << 20, std::env::temp_dir());
        for (k, v) in [("b", "1"), ("a", "2"), ("b", "3"), ("c", "4"), ("a", "5")] {
            s.push(k.as_bytes(), v.as_bytes(), 0).unwrap();
        }
        let got = drain(s.into_merge().unwrap());
        let want: Vec<(Vec<u8>, Vec<u8>)> =
            [("a", "2"), ("a", "5"), ("b", "1"), ("b", "3"), ("c", "4")]
                .iter()
                .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
                .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn merges_spilled_runs_stably() {
        // a budget of a few entries forces many runs
        let mut s = RunSorter::new(40, std::env::temp_dir());
        let mut want = Vec::new();
        for i in 0..500u32 {
            let k = format!("k{:03}", (i * 7919) % 97).into_bytes();
            let v = i.to_be_bytes().to_vec();
            s.push(&k, &v, 2).unwrap();
            want.push((k, v));
        }
        assert!(s.runs.len() > 10);
        // stable sort of the input is the expected order
        want.sort_by(|a, b| a.0.cmp(&b.0));
        let mut m = s.into_merge().unwrap();
        let mut got = Vec::new();
        while let Some((k, v, plen)) = m.pop().unwrap() {
            assert_eq!(plen, 2);
            got.push((k, v));
        }
        assert_eq!(got, want);
    }

    #[test]
    fn empty_sorter_yields_nothing() {
        let s = RunSorter::new(16, std::env::temp_dir());
        assert!(drain(s.into_merge().unwrap()).is_empty());
    }
}
