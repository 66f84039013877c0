//! Bulk loads into empty indexes ([`storage::engine::KvEngine::bulk_writer`]) as SST files.
//!
//! Each index's sorted entries are written by RocksDB's `SstFileWriter` into a file of its own,
//! with the options (block size, codec) of the storage class the index lives in, under
//! `<database>/bulk-load/<n>/`; the commit ingests every file with one
//! `IngestExternalFile` call, which RocksDB records in its MANIFEST as one version edit: a crash
//! before it leaves nothing of the load visible, after it everything. One call covers one
//! column family, so the indexes of a load must share a storage class (else
//! [`SstBulkWriter::new`] declines and the caller writes through transactions).
//!
//! The files are linked into the database (`move_files`); the directory goes when the writer
//! does, and what a crash left behind is removed when the database opens ([`clean_up`]).
//! Ingested keys bypass the memtable, so Strata's range cache is told as for a range delete
//! over each index (its cached "no rows here" intervals would otherwise stay); the row cache
//! holds only present rows, and the indexes were empty.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use common::{Error, Result};
use rocksdb::{IngestExternalFileOptions, SstFileWriter};
use storage::codec::key::index_range;
use storage::engine::{BulkWriter, SortedEntries};

use crate::classes::Cfh;
use crate::{engine_err, RocksEngine};

/// The directory (inside the database's) of the files being written.
pub(crate) const BULK_DIR: &str = "bulk-load";

/// Removes the files of loads that never committed (a crash during a load).
pub(crate) fn clean_up(db_path: &Path) {
    let dir = db_path.join(BULK_DIR);
    if dir.exists() {
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            tracing::warn!("cannot remove {}: {e}", dir.display());
        }
    }
}

/// A bulk load's SST files, ingested at commit.
pub(crate) struct SstBulkWriter<'a> {
    engine: &'a RocksEngine,
    cf: Cfh<'a>,
    dir: PathBuf,
    files: Vec<PathBuf>,
    /// The key range of each index with a file.
    ranges: Vec<(Vec<u8>, Vec<u8>)>,
}

fn io_err(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::storage(format!("cannot {what} '{}': {e}", path.display())).with_source(e)
}

impl<'a> SstBulkWriter<'a> {
    /// A writer for `index_ids`; `None` when they are not all in one column family.
    ///
    /// # Errors
    /// The directory of the files cannot be created.
    pub(crate) fn new(engine: &'a RocksEngine, index_ids: &[u32]) -> Result<Option<Self>> {
        let fams: Vec<Cfh<'a>> = index_ids
            .iter()
            .map(|&id| engine.db.index_family(id).0)
            .collect();
        if fams.windows(2).any(|w| w[0] != w[1]) {
            return Ok(None);
        }
        let Some(&cf) = fams.first() else {
            return Ok(None);
        };
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = engine
            .db
            .path()
            .join(BULK_DIR)
            .join(NEXT.fetch_add(1, Ordering::Relaxed).to_string());
        std::fs::create_dir_all(&dir).map_err(|e| io_err("create directory", &dir, e))?;
        Ok(Some(SstBulkWriter {
            engine,
            cf,
            dir,
            files: Vec::new(),
            ranges: Vec::new(),
        }))
    }
}

impl BulkWriter for SstBulkWriter<'_> {
    fn add_index(&mut self, index_id: u32, next: &mut SortedEntries<'_>) -> Result<()> {
        let (_, opts) = self.engine.db.index_family(index_id);
        let path = self.dir.join(format!("{index_id}.sst"));
        let mut w = SstFileWriter::create(&opts);
        w.open(&path).map_err(|e| engine_err("bulk load", e))?;
        let mut n = 0u64;
        while let Some((k, v)) = next()? {
            w.put(&k, &v).map_err(|e| engine_err("bulk load", e))?;
            n += 1;
        }
        if n == 0 {
            // RocksDB cannot finish a file without entries; the index stays empty
            drop(w);
            let _ = std::fs::remove_file(&path);
            return Ok(());
        }
        w.finish().map_err(|e| engine_err("bulk load", e))?;
        self.files.push(path);
        self.ranges.push(index_range(index_id));
        Ok(())
    }

    fn commit(self: Box<Self>) -> Result<()> {
        if self.files.is_empty() {
            return Ok(());
        }
        let mut o = IngestExternalFileOptions::default();
        o.set_move_files(true);
        let ranges: Vec<(&[u8], &[u8])> = self
            .ranges
            .iter()
            .map(|(a, b)| (a.as_slice(), b.as_slice()))
            .collect();
        let db = &self.engine.db;
        if let Some(rc) = &self.engine.ranges {
            rc.begin_write(std::iter::empty::<&[u8]>(), &ranges);
        }
        let lo = db.latest_sequence_number();
        let r = db.ingest_external_file_cf_opts(&self.cf, &o, self.files.clone());
        let now = db.latest_sequence_number();
        if let Some(rc) = &self.engine.ranges {
            rc.end_write(
                std::iter::empty::<(&[u8], Option<&[u8]>)>(),
                &ranges,
                lo,
                now,
                r.is_ok(),
            );
        }
        r.map_err(|e| engine_err("bulk load ingest", e))
    }
}

impl Drop for SstBulkWriter<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage::engine::{Cf, Codec, KvEngine, StorageClass};

    use crate::RocksOptions;

    fn entries(id: u32, n: u32) -> Vec<(Vec<u8>, Vec<u8>)> {
        (0..n)
            .map(|i| {
                let mut k = id.to_be_bytes().to_vec();
                k.extend_from_slice(&i.to_be_bytes());
                (k, format!("v{i}").into_bytes())
            })
            .collect()
    }

    fn add(w: &mut dyn BulkWriter, id: u32, n: u32) {
        let mut it = entries(id, n).into_iter();
        w.add_index(id, &mut || Ok(it.next())).unwrap();
    }

    fn count(e: &RocksEngine, id: u32) -> usize {
        let (lo, hi) = index_range(id);
        let mut it = e.iter(Cf::Data, &lo, Some(&hi), false);
        let mut n = 0;
        while it.valid() {
            n += 1;
            it.next();
        }
        n
    }

    #[test]
    fn ingests_all_indexes_at_commit_and_nothing_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        let mut w = e.bulk_writer(&[7, 8, 9]).unwrap().unwrap();
        add(&mut *w, 7, 1000);
        add(&mut *w, 8, 0);
        add(&mut *w, 9, 10);
        assert_eq!(count(&e, 7), 0, "nothing visible before the commit");
        w.commit().unwrap();
        assert_eq!((count(&e, 7), count(&e, 8), count(&e, 9)), (1000, 0, 10));
        let mut k = 7u32.to_be_bytes().to_vec();
        k.extend_from_slice(&5u32.to_be_bytes());
        assert_eq!(e.get(Cf::Data, &k).unwrap(), Some(b"v5".to_vec()));
        // an abandoned load leaves nothing, not even its files
        let mut w = e.bulk_writer(&[10]).unwrap().unwrap();
        add(&mut *w, 10, 100);
        drop(w);
        assert_eq!(count(&e, 10), 0);
        let left = std::fs::read_dir(dir.path().join(BULK_DIR))
            .unwrap()
            .count();
        assert_eq!(left, 0);
    }

    #[test]
    fn declines_indexes_of_different_classes_and_cleans_up_at_open() {
        let dir = tempfile::tempdir().unwrap();
        {
            let e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
            let zstd = StorageClass {
                block_kb: 4,
                codec: Codec::Zstd,
            };
            e.set_index_class(21, zstd).unwrap();
            e.set_index_class(22, zstd).unwrap();
            assert!(e.bulk_writer(&[20, 21]).unwrap().is_none());
            // one class (not the default): written into that class's family
            let mut w = e.bulk_writer(&[21, 22]).unwrap().unwrap();
            add(&mut *w, 21, 50);
            w.commit().unwrap();
            assert_eq!(count(&e, 21), 50);
            // the files of a load a crash interrupted
            std::fs::create_dir_all(dir.path().join(BULK_DIR).join("99")).unwrap();
            std::fs::write(dir.path().join(BULK_DIR).join("99").join("1.sst"), b"x").unwrap();
        }
        let _e = RocksEngine::open(dir.path(), RocksOptions::default()).unwrap();
        assert!(!dir.path().join(BULK_DIR).exists());
    }
}
