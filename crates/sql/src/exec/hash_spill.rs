//! The build side of a hash join and, past `join_buffer_size`, its partitions on disk (a grace
//! hash join): [`HashBuild`] holds a step's rows in a [`HashTable`] while they fit; then the
//! held rows and every later one go by a hash of their join key into build chunk files, and the
//! outer rows that reach the step go the same way into probe chunk files ([`Partitions`]).
//! [`crate::exec::join`] then joins chunk by chunk: a build chunk is loaded into a hash table
//! and its probe chunk read against it. A build chunk that is still larger than the budget (a
//! skewed key, or more rows than the chunk count expected) is loaded a budget's worth at a time
//! and its probe chunk read once per piece, the rows carrying whether they matched so far (so a
//! LEFT JOIN null-extends only those that matched no piece): memory stays within the budget plus
//! one row, whatever the keys.
//!
//! Not partitioned: a step without an equi-join key (a cross join) needs every build row for
//! every outer row, so its table stays in memory (bounded by `max_session_mem_used`). The first
//! step of a join is keyless too, but it is read exactly once, in order: past its budget (the
//! join gives it the in-memory temporary table's size: it is the probe input, not a hash
//! table) its rows are
//! spooled to one file and read back as the join descends ([`Built::Spooled`]).
//!
//! The files are [`crate::exec::spill`]'s unnamed temporary files: they vanish when dropped, on
//! an error, on KILL and when the process dies. Each one counts in `Created_tmp_files`, each
//! partitioned step in `Created_tmp_disk_tables`.

use std::hash::BuildHasher;
use std::path::PathBuf;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use common::{Collation, Error, Result, Value};

use crate::exec::spill::{decode_value, encode_value, SpillReader, SpillWriter};
use crate::runtime::limits::{row_size, MemTracker};

/// The most chunk pairs a step is split into (MySQL's `kMaxChunks`): each open chunk file holds
/// a 64 KiB buffer, so a partitioned step holds at most 2 × 128 of them.
pub const MAX_CHUNKS: usize = 128;

/// Bytes a held row costs beyond its values and key: its slot in the row list and the hash
/// table's entry.
const ENTRY_OVERHEAD: usize = 48;

/// The hash that sends a key to its chunk: fixed, so that build and probe rows of one key meet,
/// and independent of the (randomly seeded) hash of the in-memory tables.
const PARTITION_HASH: foldhash::quality::FixedState =
    foldhash::quality::FixedState::with_seed(0x9E37_79B9_7F4A_7C15);

/// Appends the hashable key of one probe/build value to `out`; false for NULL (never equal).
pub(crate) fn push_key(v: &Value, coll: Collation, out: &mut Vec<u8>) -> bool {
    if v.is_null() {
        return false;
    }
    func::compare::hash_key(v, coll, out);
    out.push(0xFE);
    true
}

/// The key of a build row: its columns `keys` (column, collation); None when one is NULL.
fn build_key(keys: &[(usize, Collation)], row: &[Value]) -> Option<Vec<u8>> {
    let mut k = Vec::new();
    for (c, coll) in keys {
        if !push_key(&row[*c], *coll, &mut k) {
            return None;
        }
    }
    Some(k)
}

/// Where a join's temporary files go and what they count into.
pub struct SpillEnv<'a> {
    /// The directory of the unnamed files (`tmpdir`).
    pub dir: PathBuf,
    /// Created_tmp_files.
    pub tmp_files: &'a AtomicU64,
    /// Created_tmp_disk_tables.
    pub disk_tables: &'a AtomicU64,
    /// KILL QUERY.
    pub killed: &'a AtomicBool,
}

impl SpillEnv<'_> {
    /// A new temporary file, counted.
    fn create(&self) -> Result<SpillWriter> {
        let w = SpillWriter::create(&self.dir)?;
        self.tmp_files.fetch_add(1, Relaxed);
        Ok(w)
    }

    /// 1317 when the query was killed; checked every 1024th `n`.
    fn check_killed(&self, n: u64) -> Result<()> {
        if n.is_multiple_of(1024) && self.killed.load(Relaxed) {
            return Err(Error::interrupted());
        }
        Ok(())
    }
}

/// Build rows in memory and, per join key, the rows that have it (none for a keyless step).
#[derive(Default)]
pub struct HashTable {
    rows: Vec<Vec<Value>>,
    map: foldhash::HashMap<Vec<u8>, Vec<usize>>,
}

impl HashTable {
    /// Every row held.
    pub fn rows(&self) -> &[Vec<Value>] {
        &self.rows
    }

    /// The rows (indexes into [`HashTable::rows`]) whose key is `key`.
    pub fn matches(&self, key: &[u8]) -> &[usize] {
        self.map.get(key).map_or(&[], Vec::as_slice)
    }

    fn insert(&mut self, key: Option<Vec<u8>>, row: Vec<Value>) {
        if let Some(k) = key {
            self.map.entry(k).or_default().push(self.rows.len());
        }
        self.rows.push(row);
    }
}

/// A row of a chunk file with its join key. `matched` (probe rows only): it found a partner in
/// an earlier piece of its build chunk.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ChunkRow {
    /// Matched in an earlier piece.
    pub matched: bool,
    /// The join key ([`push_key`] bytes).
    pub key: Vec<u8>,
    /// The row: a build row, or the whole outer row so far.
    pub row: Vec<Value>,
}

/// A record: the matched flag, the key, the value count, the values.
fn encode_row(matched: bool, key: &[u8], row: &[Value], out: &mut Vec<u8>) {
    out.clear();
    out.push(u8::from(matched));
    out.extend_from_slice(&(key.len() as u32).to_le_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(&(row.len() as u32).to_le_bytes());
    for v in row {
        encode_value(v, out);
    }
}

fn decode_row(buf: &[u8], into: &mut ChunkRow) -> Result<()> {
    let corrupt = || Error::internal("temporary file: malformed join chunk record");
    let u32_at = |pos: usize| -> Result<usize> {
        let b = buf.get(pos..pos + 4).ok_or_else(corrupt)?;
        Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
    };
    into.matched = *buf.first().ok_or_else(corrupt)? != 0;
    let klen = u32_at(1)?;
    into.key.clear();
    into.key
        .extend_from_slice(buf.get(5..5 + klen).ok_or_else(corrupt)?);
    let mut pos = 5 + klen;
    let n = u32_at(pos)?;
    pos += 4;
    into.row.clear();
    into.row.reserve(n);
    for _ in 0..n {
        into.row.push(decode_value(buf, &mut pos)?);
    }
    Ok(())
}

/// Chunk pairs for a build that holds `held_bytes` after reading `seen_rows` rows, within
/// `budget`, when `expected_rows` rows are expected in all: enough that each build chunk is
/// expected to fit in 90 % of the budget, at least 2, at most [`MAX_CHUNKS`]. An estimate at or
/// below the rows already read is stale: twice those are assumed.
fn chunk_count(held_bytes: usize, seen_rows: u64, expected_rows: u64, budget: usize) -> usize {
    let seen_rows = seen_rows.max(1);
    let avg = (held_bytes as f64 / seen_rows as f64).max(1.0);
    let total = if expected_rows > seen_rows {
        expected_rows
    } else {
        seen_rows.saturating_mul(2)
    };
    let per_chunk = (budget as f64 * 0.9).max(1.0);
    let n = (total as f64 * avg / per_chunk).ceil();
    (n.min(MAX_CHUNKS as f64) as usize).max(2)
}

/// One chunk file being written, and its rows.
#[derive(Default)]
struct ChunkFile {
    file: Option<SpillWriter>,
    rows: u64,
}

impl ChunkFile {
    /// Appends the record in `rec`, creating the file on first use.
    fn write(&mut self, rec: &[u8], env: &SpillEnv<'_>) -> Result<()> {
        let w = match &mut self.file {
            Some(w) => w,
            None => self.file.insert(env.create()?),
        };
        w.write(rec)?;
        self.rows += 1;
        Ok(())
    }

    /// The rows written, read back from the start.
    fn finish(self) -> Result<ChunkReader> {
        Ok(ChunkReader {
            file: self.file.map(SpillWriter::finish).transpose()?,
            left: self.rows,
            buf: Vec::new(),
        })
    }
}

/// A chunk file being read.
struct ChunkReader {
    file: Option<SpillReader>,
    left: u64,
    buf: Vec<u8>,
}

impl ChunkReader {
    /// The next row into `into`; false at the end.
    fn next(&mut self, into: &mut ChunkRow) -> Result<bool> {
        if self.left == 0 {
            return Ok(false);
        }
        let Some(f) = &mut self.file else {
            return Err(Error::internal("join chunk without its file"));
        };
        if !f.next(&mut self.buf)? {
            return Err(Error::internal("join chunk shorter than written"));
        }
        self.left -= 1;
        decode_row(&self.buf, into)?;
        Ok(true)
    }
}

/// A spilled hash step's chunk files: build chunks (written while the step's table was read)
/// and probe chunks (written as outer rows reach the step).
pub struct Partitions {
    build: Vec<ChunkFile>,
    probe: Vec<ChunkFile>,
    rec: Vec<u8>,
}

impl Partitions {
    fn new(n: usize) -> Partitions {
        Partitions {
            build: (0..n).map(|_| ChunkFile::default()).collect(),
            probe: (0..n).map(|_| ChunkFile::default()).collect(),
            rec: Vec::new(),
        }
    }

    /// The chunk of `key`.
    fn chunk_of(&self, key: &[u8]) -> usize {
        (PARTITION_HASH.hash_one(key) % self.build.len() as u64) as usize
    }

    /// The number of chunk pairs.
    pub fn chunks(&self) -> usize {
        self.build.len()
    }

    fn write_build(&mut self, key: &[u8], row: &[Value], env: &SpillEnv<'_>) -> Result<()> {
        let c = self.chunk_of(key);
        encode_row(false, key, row, &mut self.rec);
        self.build[c].write(&self.rec, env)
    }

    /// Writes an outer row that reached the step, with its (non-NULL) key, to its probe chunk.
    ///
    /// # Errors
    /// 1026 when the file cannot be written.
    pub fn write_probe(&mut self, key: &[u8], row: &[Value], env: &SpillEnv<'_>) -> Result<()> {
        let c = self.chunk_of(key);
        encode_row(false, key, row, &mut self.rec);
        self.probe[c].write(&self.rec, env)
    }

    /// Takes chunk pair `c` to join (its files leave `self`, and are gone when the pair is
    /// dropped); None when no outer row went to it (its build rows cannot take part).
    ///
    /// # Errors
    /// 1026 when a file cannot be written or rewound.
    pub fn take_chunk(&mut self, c: usize) -> Result<Option<(BuildChunk, ProbeChunk)>> {
        let build = std::mem::take(&mut self.build[c]);
        let probe = std::mem::take(&mut self.probe[c]);
        if probe.rows == 0 {
            return Ok(None);
        }
        Ok(Some((
            BuildChunk {
                rows: build.finish()?,
            },
            ProbeChunk {
                rows: probe.finish()?,
            },
        )))
    }
}

/// The build rows of one chunk, loaded a budget's worth at a time.
pub struct BuildChunk {
    rows: ChunkReader,
}

impl BuildChunk {
    /// The next piece: rows until their size passes `budget` (at least one while any is left)
    /// in a hash table on their keys. Empty once every row was loaded. A chunk larger than the
    /// budget (a skewed key, or a low estimate of the build's rows) comes in several pieces,
    /// each probed by the whole probe chunk, rather than being split again.
    ///
    /// # Errors
    /// 1026 on a read error; 1317 when the query is killed.
    pub fn next_piece(&mut self, budget: usize, env: &SpillEnv<'_>) -> Result<HashTable> {
        let mut t = HashTable::default();
        let mut bytes = 0usize;
        let mut r = ChunkRow::default();
        while bytes < budget || t.rows.is_empty() {
            if !self.rows.next(&mut r)? {
                break;
            }
            env.check_killed(t.rows.len() as u64 + 1)?;
            bytes += row_size(&r.row) + r.key.len() + ENTRY_OVERHEAD;
            let row = std::mem::take(&mut r.row);
            t.insert(Some(std::mem::take(&mut r.key)), row);
        }
        Ok(t)
    }

    /// True once every row was loaded.
    pub fn done(&self) -> bool {
        self.rows.left == 0
    }
}

/// The outer rows of one chunk, read once per piece of its build chunk.
pub struct ProbeChunk {
    rows: ChunkReader,
}

impl ProbeChunk {
    /// The next row into `into`; false at the end.
    ///
    /// # Errors
    /// 1026 on a read error.
    pub fn next(&mut self, into: &mut ChunkRow) -> Result<bool> {
        self.rows.next(into)
    }

    /// A new file for the rows of the next pass (when the build chunk has pieces left).
    ///
    /// # Errors
    /// 1026 when the file cannot be created.
    pub fn next_pass(env: &SpillEnv<'_>) -> Result<ProbeCopy> {
        Ok(ProbeCopy {
            file: ChunkFile {
                file: Some(env.create()?),
                rows: 0,
            },
            rec: Vec::new(),
        })
    }
}

/// The probe rows of the next pass over a chunk, with their matched flags, being written.
pub struct ProbeCopy {
    file: ChunkFile,
    rec: Vec<u8>,
}

impl ProbeCopy {
    /// Appends `r`.
    ///
    /// # Errors
    /// 1026 on a write error.
    pub fn write(&mut self, r: &ChunkRow, env: &SpillEnv<'_>) -> Result<()> {
        encode_row(r.matched, &r.key, &r.row, &mut self.rec);
        self.file.write(&self.rec, env)
    }

    /// The rows written, to read in the next pass.
    ///
    /// # Errors
    /// 1026 on a write error.
    pub fn finish(self) -> Result<ProbeChunk> {
        Ok(ProbeChunk {
            rows: self.file.finish()?,
        })
    }
}

/// A first step's rows spooled to one file, read back once in the order read.
pub struct Spool {
    rows: ChunkReader,
    row: ChunkRow,
}

impl Spool {
    /// The next row; None at the end.
    ///
    /// # Errors
    /// 1026 on a read error.
    pub fn next_row(&mut self) -> Result<Option<Vec<Value>>> {
        Ok(if self.rows.next(&mut self.row)? {
            Some(std::mem::take(&mut self.row.row))
        } else {
            None
        })
    }
}

/// A hash step's rows, read.
pub enum Built {
    /// Held in memory.
    Memory(Arc<HashTable>),
    /// The first step's rows in one file (they did not fit).
    Spooled(Spool),
    /// Split by key into chunk files (they did not fit); joined chunk by chunk.
    Partitioned(Partitions),
}

/// Where rows past the budget go.
enum Overflow {
    /// Nowhere yet: all rows are held.
    None,
    /// The first step's spool file.
    Spool(ChunkFile),
    /// Chunk files.
    Partitions(Partitions),
}

/// A hash step's build rows as they are read: held in a [`HashTable`] while their size stays
/// within the budget, then spooled (the first step) or partitioned (a keyed step).
pub struct HashBuild {
    keys: Vec<(usize, Collation)>,
    budget: usize,
    first: bool,
    table: HashTable,
    bytes: usize,
    seen: u64,
    mem: MemTracker,
    overflow: Overflow,
    rec: Vec<u8>,
}

impl HashBuild {
    /// A build on the key columns `keys` (column, collation; empty for a keyless step) within
    /// `budget` bytes. `first`: the join's first step, read once in order.
    pub fn new(keys: Vec<(usize, Collation)>, budget: usize, first: bool) -> HashBuild {
        HashBuild {
            keys,
            budget,
            first,
            table: HashTable::default(),
            bytes: 0,
            seen: 0,
            mem: MemTracker::new(),
            overflow: Overflow::None,
            rec: Vec::new(),
        }
    }

    /// Adds a row. A row with a NULL key is dropped (it never matches, and a build row is never
    /// null-extended). `expected_rows` estimates the build's rows, asked for once when the
    /// rows first pass the budget, to choose the number of chunks.
    ///
    /// # Errors
    /// 1026 when a file cannot be written; 1317 when killed; 1290 when a table that is kept in
    /// memory (a cross join's) passes `max_session_mem_used`.
    pub fn push(
        &mut self,
        row: Vec<Value>,
        env: &SpillEnv<'_>,
        expected_rows: &dyn Fn() -> u64,
    ) -> Result<()> {
        self.seen += 1;
        let key = if self.keys.is_empty() {
            None
        } else {
            match build_key(&self.keys, &row) {
                Some(k) => Some(k),
                None => return Ok(()),
            }
        };
        match &mut self.overflow {
            Overflow::Spool(f) => {
                encode_row(false, &[], &row, &mut self.rec);
                return f.write(&self.rec, env);
            }
            Overflow::Partitions(p) => {
                return p.write_build(key.as_deref().unwrap_or_default(), &row, env);
            }
            Overflow::None => {}
        }
        let size = row_size(&row) + key.as_ref().map_or(0, Vec::len) + ENTRY_OVERHEAD;
        // a cross join's table cannot be split (every outer row needs all of it): it is held
        // whole, under the memory limit of intermediate results
        let spillable = self.first || !self.keys.is_empty();
        if !spillable {
            self.mem.add_bytes(size)?;
        }
        self.bytes += size;
        self.table.insert(key, row);
        if spillable && self.bytes > self.budget {
            self.spill(env, expected_rows())?;
        }
        Ok(())
    }

    /// Writes the held rows out and sends later ones after them.
    fn spill(&mut self, env: &SpillEnv<'_>, expected_rows: u64) -> Result<()> {
        let mut table = std::mem::take(&mut self.table);
        if self.first {
            let mut f = ChunkFile::default();
            for (n, row) in table.rows.iter().enumerate() {
                env.check_killed(n as u64 + 1)?;
                encode_row(false, &[], row, &mut self.rec);
                f.write(&self.rec, env)?;
            }
            self.overflow = Overflow::Spool(f);
        } else {
            let n = chunk_count(self.bytes, self.seen, expected_rows, self.budget);
            let mut p = Partitions::new(n);
            let mut written = 0u64;
            for (key, rows) in &table.map {
                for &ri in rows {
                    written += 1;
                    env.check_killed(written)?;
                    p.write_build(key, &std::mem::take(&mut table.rows[ri]), env)?;
                }
            }
            env.disk_tables.fetch_add(1, Relaxed);
            self.overflow = Overflow::Partitions(p);
        }
        self.bytes = 0;
        Ok(())
    }

    /// The rows read: in memory, spooled or partitioned.
    ///
    /// # Errors
    /// 1026 when a file cannot be rewound.
    pub fn finish(self) -> Result<Built> {
        Ok(match self.overflow {
            Overflow::None => Built::Memory(Arc::new(self.table)),
            Overflow::Spool(f) => Built::Spooled(Spool {
                rows: f.finish()?,
                row: ChunkRow::default(),
            }),
            Overflow::Partitions(p) => Built::Partitioned(p),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(
        files: &'a AtomicU64,
        tables: &'a AtomicU64,
        killed: &'a AtomicBool,
    ) -> SpillEnv<'a> {
        SpillEnv {
            dir: std::env::temp_dir(),
            tmp_files: files,
            disk_tables: tables,
            killed,
        }
    }

    #[test]
    fn chunk_counts_follow_the_estimate_within_bounds() {
        // 1000 rows of 100 bytes over a 10 000-byte budget: 100 000 / 9 000 → 12
        assert_eq!(chunk_count(10_100, 101, 1000, 10_000), 12);
        // a stale estimate: twice the rows seen
        assert_eq!(chunk_count(10_100, 101, 50, 10_000), 3);
        assert_eq!(chunk_count(200, 2, 1_000_000, 128), MAX_CHUNKS);
        assert_eq!(chunk_count(10_001, 1, 0, 10_000), 3);
        assert_eq!(chunk_count(10, 1, 1, 1 << 30), 2);
    }

    #[test]
    fn chunk_rows_round_trip() {
        let rows = [
            ChunkRow {
                matched: true,
                key: vec![1, 2, 0xFE],
                row: vec![Value::Int(-3), Value::Null, Value::Str("é".into())],
            },
            ChunkRow::default(),
        ];
        let mut buf = Vec::new();
        for r in &rows {
            encode_row(r.matched, &r.key, &r.row, &mut buf);
            let mut back = ChunkRow {
                matched: false,
                key: vec![9],
                row: vec![Value::Int(1)],
            };
            decode_row(&buf, &mut back).expect("decode");
            assert_eq!(&back, r);
        }
        assert!(decode_row(&buf[..3], &mut ChunkRow::default()).is_err());
    }

    /// Past the budget the rows are partitioned by key: every build row lands in the chunk its
    /// probe key is sent to, NULL keys are dropped, and a chunk comes back in pieces that each
    /// stay near the budget.
    #[test]
    fn partitioned_rows_meet_their_probes_in_bounded_pieces() {
        let (files, tables, killed) =
            (AtomicU64::new(0), AtomicU64::new(0), AtomicBool::new(false));
        let env = env(&files, &tables, &killed);
        let keys = vec![(0, Collation::Binary)];
        let budget = 2_000;
        let mut b = HashBuild::new(keys.clone(), budget, false);
        for i in 0..3_000i64 {
            let k = if i % 10 == 0 {
                Value::Null
            } else {
                Value::Int(i % 300)
            };
            b.push(vec![k, Value::Int(i)], &env, &|| 3_000)
                .expect("push");
        }
        let Built::Partitioned(mut p) = b.finish().expect("finish") else {
            panic!("not partitioned")
        };
        assert_eq!(tables.load(Relaxed), 1);
        let n = p.chunks();
        assert!((2..=MAX_CHUNKS).contains(&n), "{n} chunks");
        for k in 0..300i64 {
            let key = build_key(&keys, &[Value::Int(k)]).expect("key");
            p.write_probe(&key, &[Value::Int(k)], &env).expect("probe");
        }
        let mut found = 0;
        for c in 0..n {
            let Some((mut build, mut probe)) = p.take_chunk(c).expect("chunk") else {
                continue;
            };
            let mut pieces = Vec::new();
            while !build.done() {
                let t = build.next_piece(budget, &env).expect("piece");
                let bytes: usize = t.rows().iter().map(|r| row_size(r) + ENTRY_OVERHEAD).sum();
                assert!(bytes < budget + 200, "{bytes} bytes in a piece");
                pieces.push(t);
            }
            let mut r = ChunkRow::default();
            while probe.next(&mut r).expect("probe row") {
                for t in &pieces {
                    for &ri in t.matches(&r.key) {
                        assert_eq!(t.rows()[ri][0], r.row[0]);
                        found += 1;
                    }
                }
            }
        }
        assert_eq!(found, 2_700);
        assert!(files.load(Relaxed) > n as u64);
    }

    /// The first step's rows past the budget are spooled and come back in order.
    #[test]
    fn a_first_step_spools_in_order() {
        let (files, tables, killed) =
            (AtomicU64::new(0), AtomicU64::new(0), AtomicBool::new(false));
        let env = env(&files, &tables, &killed);
        let mut b = HashBuild::new(Vec::new(), 1_000, true);
        for i in 0..500i64 {
            b.push(vec![Value::Int(i)], &env, &|| 0).expect("push");
        }
        let Built::Spooled(mut s) = b.finish().expect("finish") else {
            panic!("not spooled")
        };
        let mut got = Vec::new();
        while let Some(r) = s.next_row().expect("row") {
            got.push(r[0].clone());
        }
        assert_eq!(got, (0..500).map(Value::Int).collect::<Vec<_>>());
        assert_eq!((files.load(Relaxed), tables.load(Relaxed)), (1, 0));
        // a cross join's table stays in memory
        let mut b = HashBuild::new(Vec::new(), 1_000, false);
        for i in 0..500i64 {
            b.push(vec![Value::Int(i)], &env, &|| 0).expect("push");
        }
        assert!(matches!(b.finish().expect("finish"), Built::Memory(t) if t.rows().len() == 500));
    }
}
