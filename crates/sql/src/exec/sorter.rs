//! An external sort: rows with their ORDER BY keys are sorted in memory up to the session's
//! `sort_buffer_size`; past it each sorted batch goes to a temporary file (a run,
//! [`crate::exec::spill`]) and the runs are merged, at most [`FAN_IN`] at a time, so a sort of
//! any size holds one batch plus one record per run. As in MySQL, `Sort_merge_passes` counts the
//! merge passes, `Created_tmp_files` the files and `Sort_rows` the rows sorted. With a LIMIT
//! (`top`), only the first rows are kept: the buffer is cut to them whenever it fills, so an
//! ORDER BY … LIMIT n never writes a file when n rows fit the buffer.

use std::cmp::Ordering;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;

use common::{Collation, Error, Result, Value};

use crate::exec::spill::{decode_value, encode_value, SpillReader, SpillWriter};

/// Runs merged at once (MySQL's MERGEBUFF2).
pub const FAN_IN: usize = 15;

/// One ORDER BY key of a row: the collation weights of a string under a weight-based
/// collation (compared bytewise), or the value.
#[derive(Debug, Clone)]
pub enum SortKey {
    /// Collation weights.
    Weight(Vec<u8>),
    /// The value itself.
    Val(Value),
}

/// A row with its keys.
pub type Keyed = (Vec<SortKey>, Vec<Value>);

/// The counters a sort adds to (the instance's status).
pub struct SortCounters<'a> {
    /// Sort_merge_passes
    pub merge_passes: &'a std::sync::atomic::AtomicU64,
    /// Created_tmp_files
    pub tmp_files: &'a std::sync::atomic::AtomicU64,
    /// Sort_rows
    pub rows: &'a std::sync::atomic::AtomicU64,
}

/// Sorts rows pushed one at a time; [`Sorter::finish`] gives them back in order.
pub struct Sorter<'a> {
    desc: Vec<bool>,
    colls: Vec<Collation>,
    top: Option<usize>,
    budget: usize,
    dir: PathBuf,
    buf: Vec<Keyed>,
    buf_bytes: usize,
    runs: Vec<SpillReader>,
    counters: SortCounters<'a>,
    killed: &'a std::sync::atomic::AtomicBool,
}

/// Bytes one key takes in the buffer.
fn key_size(k: &SortKey) -> usize {
    match k {
        SortKey::Weight(w) => w.len() + 32,
        SortKey::Val(v) => crate::runtime::limits::row_size(std::slice::from_ref(v)),
    }
}

impl<'a> Sorter<'a> {
    /// A sorter for keys with directions `desc` and collations `colls`, sorting up to `budget`
    /// bytes in memory and writing runs to `dir`; `top` keeps only the first rows.
    pub fn new(
        desc: Vec<bool>,
        colls: Vec<Collation>,
        top: Option<usize>,
        budget: usize,
        dir: PathBuf,
        counters: SortCounters<'a>,
        killed: &'a std::sync::atomic::AtomicBool,
    ) -> Sorter<'a> {
        Sorter {
            desc,
            colls,
            top,
            budget: budget.max(32 << 10),
            dir,
            buf: Vec::new(),
            buf_bytes: 0,
            runs: Vec::new(),
            counters,
            killed,
        }
    }

    fn cmp(&self, a: &[SortKey], b: &[SortKey]) -> Ordering {
        compare(a, b, &self.desc, &self.colls)
    }

    /// Adds a row with its keys.
    ///
    /// # Errors
    /// 1026 when a run cannot be written.
    pub fn push(&mut self, keys: Vec<SortKey>, row: Vec<Value>) -> Result<()> {
        self.buf_bytes +=
            keys.iter().map(key_size).sum::<usize>() + crate::runtime::limits::row_size(&row);
        self.buf.push((keys, row));
        self.counters.rows.fetch_add(1, Relaxed);
        if self.buf_bytes > self.budget {
            match self.top {
                Some(n) if n < self.buf.len() / 2 => self.cut_to_top(n),
                _ => self.spill()?,
            }
        }
        Ok(())
    }

    /// Sorts the buffer (stable: equal keys keep their arrival order).
    fn sort_buf(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.sort_by(|a, b| self.cmp(&a.0, &b.0));
        self.buf = buf;
    }

    /// Keeps the first `n` rows of the buffer.
    fn cut_to_top(&mut self, n: usize) {
        self.sort_buf();
        self.buf.truncate(n);
        self.buf_bytes = self
            .buf
            .iter()
            .map(|(k, r)| {
                k.iter().map(key_size).sum::<usize>() + crate::runtime::limits::row_size(r)
            })
            .sum();
    }

    /// Writes the sorted buffer as a run.
    fn spill(&mut self) -> Result<()> {
        self.sort_buf();
        let mut w = SpillWriter::create(&self.dir)?;
        self.counters.tmp_files.fetch_add(1, Relaxed);
        let mut rec = Vec::new();
        for (i, (k, r)) in self.buf.drain(..).enumerate() {
            if i % 1024 == 0 && self.killed.load(Relaxed) {
                return Err(Error::interrupted());
            }
            rec.clear();
            encode_record(&k, &r, &mut rec);
            w.write(&rec)?;
        }
        self.buf_bytes = 0;
        self.runs.push(w.finish()?);
        Ok(())
    }

    /// Merges `group` into one new run.
    fn merge_to_run(&self, group: Vec<SpillReader>) -> Result<SpillReader> {
        if group.len() == 1 {
            return Ok(group.into_iter().next().expect("one run"));
        }
        let mut merge = Merge::new(group, self.desc.clone(), self.colls.clone())?;
        let mut w = SpillWriter::create(&self.dir)?;
        self.counters.tmp_files.fetch_add(1, Relaxed);
        let mut rec = Vec::new();
        let mut n = 0u64;
        while let Some((k, r)) = merge.next_keyed()? {
            n += 1;
            if n.is_multiple_of(1024) && self.killed.load(Relaxed) {
                return Err(Error::interrupted());
            }
            rec.clear();
            encode_record(&k, &r, &mut rec);
            w.write(&rec)?;
        }
        w.finish()
    }

    /// True once a run has been written to disk.
    pub fn spilled(&self) -> bool {
        !self.runs.is_empty()
    }

    /// The rows in order.
    ///
    /// # Errors
    /// 1026 on a temporary-file error; 1317 when the query is killed.
    pub fn finish(mut self) -> Result<Sorted<'a>> {
        if self.runs.is_empty() {
            self.sort_buf();
            if let Some(n) = self.top {
                self.buf.truncate(n);
            }
            return Ok(Sorted::Memory(self.buf.into_iter()));
        }
        if !self.buf.is_empty() {
            self.spill()?;
        }
        // merge passes until one final merge of at most FAN_IN runs is left; each pass merges
        // consecutive groups, so runs stay in arrival order and equal keys keep theirs
        while self.runs.len() > FAN_IN {
            let mut next = Vec::with_capacity(self.runs.len().div_ceil(FAN_IN));
            let mut runs = std::mem::take(&mut self.runs).into_iter().peekable();
            while runs.peek().is_some() {
                let group: Vec<SpillReader> = runs.by_ref().take(FAN_IN).collect();
                next.push(self.merge_to_run(group)?);
            }
            self.runs = next;
            self.counters.merge_passes.fetch_add(1, Relaxed);
        }
        self.counters.merge_passes.fetch_add(1, Relaxed);
        let merge = Merge::new(std::mem::take(&mut self.runs), self.desc, self.colls)?;
        Ok(Sorted::Merged {
            merge,
            left: self.top,
            killed: self.killed,
            n: 0,
        })
    }
}

/// Compares two rows' keys: NULLs first, weights bytewise, values under their collation,
/// `desc` per key.
fn compare(a: &[SortKey], b: &[SortKey], desc: &[bool], colls: &[Collation]) -> Ordering {
    for (i, d) in desc.iter().enumerate() {
        let o = match (&a[i], &b[i]) {
            (SortKey::Weight(x), SortKey::Weight(y)) => x.cmp(y),
            (SortKey::Val(x), SortKey::Val(y)) => crate::exec::sort::compare_keys_with(
                std::slice::from_ref(x),
                std::slice::from_ref(y),
                &[false],
                &|_| colls[i],
            ),
            // a weight is a non-NULL string; a value here is NULL or another type
            (SortKey::Val(Value::Null), _) => Ordering::Less,
            (_, SortKey::Val(Value::Null)) => Ordering::Greater,
            (SortKey::Weight(_), _) => Ordering::Greater,
            (_, SortKey::Weight(_)) => Ordering::Less,
        };
        let o = if *d { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// A record: key count, each key (0 = weight, 1 = value), then the row's values.
fn encode_record(keys: &[SortKey], row: &[Value], out: &mut Vec<u8>) {
    out.extend_from_slice(&(keys.len() as u16).to_le_bytes());
    for k in keys {
        match k {
            SortKey::Weight(w) => {
                out.push(0);
                out.extend_from_slice(&(w.len() as u32).to_le_bytes());
                out.extend_from_slice(w);
            }
            SortKey::Val(v) => {
                out.push(1);
                encode_value(v, out);
            }
        }
    }
    out.extend_from_slice(&(row.len() as u32).to_le_bytes());
    for v in row {
        encode_value(v, out);
    }
}

fn decode_record(buf: &[u8]) -> Result<Keyed> {
    let corrupt = || Error::internal("temporary file: malformed sort record");
    let mut pos = 0usize;
    let take = |pos: &mut usize, n: usize| -> Result<Vec<u8>> {
        let s = buf.get(*pos..*pos + n).ok_or_else(corrupt)?.to_vec();
        *pos += n;
        Ok(s)
    };
    let nk = u16::from_le_bytes(take(&mut pos, 2)?.try_into().expect("2")) as usize;
    let mut keys = Vec::with_capacity(nk);
    for _ in 0..nk {
        let tag = take(&mut pos, 1)?[0];
        if tag == 0 {
            let n = u32::from_le_bytes(take(&mut pos, 4)?.try_into().expect("4")) as usize;
            keys.push(SortKey::Weight(take(&mut pos, n)?));
        } else {
            keys.push(SortKey::Val(decode_value(buf, &mut pos)?));
        }
    }
    let nv = u32::from_le_bytes(take(&mut pos, 4)?.try_into().expect("4")) as usize;
    let mut row = Vec::with_capacity(nv);
    for _ in 0..nv {
        row.push(decode_value(buf, &mut pos)?);
    }
    Ok((keys, row))
}

/// A merge of sorted runs: the least head next, the earliest run first among equals (so the
/// sort stays stable).
pub struct Merge {
    runs: Vec<SpillReader>,
    heads: Vec<Option<Keyed>>,
    desc: Vec<bool>,
    colls: Vec<Collation>,
    rec: Vec<u8>,
}

impl Merge {
    fn new(mut runs: Vec<SpillReader>, desc: Vec<bool>, colls: Vec<Collation>) -> Result<Merge> {
        let mut rec = Vec::new();
        let mut heads = Vec::with_capacity(runs.len());
        for r in runs.iter_mut() {
            heads.push(if r.next(&mut rec)? {
                Some(decode_record(&rec)?)
            } else {
                None
            });
        }
        Ok(Merge {
            runs,
            heads,
            desc,
            colls,
            rec,
        })
    }

    fn next_keyed(&mut self) -> Result<Option<Keyed>> {
        let mut best: Option<usize> = None;
        for (i, h) in self.heads.iter().enumerate() {
            let Some(h) = h else { continue };
            best = match best {
                Some(b) => {
                    let cur = self.heads[b].as_ref().expect("head");
                    if compare(&h.0, &cur.0, &self.desc, &self.colls) == Ordering::Less {
                        Some(i)
                    } else {
                        Some(b)
                    }
                }
                None => Some(i),
            };
        }
        let Some(b) = best else { return Ok(None) };
        let next = if self.runs[b].next(&mut self.rec)? {
            Some(decode_record(&self.rec)?)
        } else {
            None
        };
        Ok(std::mem::replace(&mut self.heads[b], next))
    }
}

/// Sorted rows, from memory or merged from runs.
pub enum Sorted<'a> {
    /// Sorted in memory.
    Memory(std::vec::IntoIter<Keyed>),
    /// Merged from runs on disk.
    Merged {
        /// The final merge.
        merge: Merge,
        /// Rows still wanted (LIMIT).
        left: Option<usize>,
        /// KILL QUERY.
        killed: &'a std::sync::atomic::AtomicBool,
        /// Rows produced.
        n: u64,
    },
}

impl Sorted<'_> {
    /// The next row.
    ///
    /// # Errors
    /// 1026 on a temporary-file error; 1317 when the query is killed.
    pub fn next_row(&mut self) -> Result<Option<Vec<Value>>> {
        Ok(self.next_keyed()?.map(|(_, r)| r))
    }

    /// The next row with its sort keys.
    ///
    /// # Errors
    /// As [`Sorted::next_row`].
    pub fn next_keyed(&mut self) -> Result<Option<Keyed>> {
        match self {
            Sorted::Memory(it) => Ok(it.next()),
            Sorted::Merged {
                merge,
                left,
                killed,
                n,
            } => {
                if *left == Some(0) {
                    return Ok(None);
                }
                *n += 1;
                if n.is_multiple_of(1024) && killed.load(Relaxed) {
                    return Err(Error::interrupted());
                }
                if let Some(l) = left {
                    *l -= 1;
                }
                merge.next_keyed()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicU64};

    fn run(rows: &[(i64, &str)], top: Option<usize>, budget: usize) -> (Vec<i64>, u64, u64) {
        let (passes, files, sorted) = (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
        let killed = AtomicBool::new(false);
        let counters = SortCounters {
            merge_passes: &passes,
            tmp_files: &files,
            rows: &sorted,
        };
        let mut s = Sorter::new(
            vec![false, true],
            vec![Collation::Binary, Collation::Binary],
            top,
            budget,
            std::env::temp_dir(),
            counters,
            &killed,
        );
        for (i, (a, b)) in rows.iter().enumerate() {
            let keys = vec![
                SortKey::Val(Value::Int(*a)),
                SortKey::Val(Value::Str((*b).into())),
            ];
            s.push(keys, vec![Value::Int(i as i64)]).expect("push");
        }
        let mut out = s.finish().expect("finish");
        let mut ids = Vec::new();
        while let Some(r) = out.next_row().expect("row") {
            let Value::Int(i) = r[0] else { panic!() };
            ids.push(i);
        }
        (ids, passes.load(Relaxed), files.load(Relaxed))
    }

    /// The same order in memory, with one merge and with several merge passes; equal keys
    /// keep their arrival order; a LIMIT keeps the first rows.
    #[test]
    fn spilled_sorts_equal_the_in_memory_sort() {
        let rows: Vec<(i64, String)> = (0..20_000)
            .map(|i| ((i * 7919) % 1000, format!("s{}", (i * 31) % 7)))
            .collect();
        let rows: Vec<(i64, &str)> = rows.iter().map(|(a, b)| (*a, b.as_str())).collect();
        let (mem, p0, f0) = run(&rows, None, 1 << 30);
        assert_eq!((p0, f0), (0, 0));
        let mut want: Vec<usize> = (0..rows.len()).collect();
        want.sort_by(|x, y| rows[*x].0.cmp(&rows[*y].0).then(rows[*y].1.cmp(rows[*x].1)));
        let want: Vec<i64> = want.iter().map(|i| *i as i64).collect();
        let diff = mem.iter().zip(&want).position(|(a, b)| a != b);
        assert!(
            diff.is_none(),
            "first difference at {diff:?}: {:?} / {:?}",
            &mem[diff.unwrap_or(0)..][..5],
            &want[diff.unwrap_or(0)..][..5]
        );
        let (one, p1, f1) = run(&rows, None, 2 << 20);
        assert_eq!(one, mem);
        assert_eq!(p1, 1);
        assert!(f1 > 1 && f1 <= FAN_IN as u64, "{f1} runs");
        let (many, p2, f2) = run(&rows, None, 32 << 10);
        assert_eq!(many, mem);
        assert!(p2 > 1, "{p2} passes");
        assert!(f2 > FAN_IN as u64);
        let (top, _, f3) = run(&rows, Some(10), 32 << 10);
        assert_eq!(top, mem[..10]);
        assert_eq!(f3, 0);
    }
}
