//! [`BinlogFiles`]: the binlog files of a directory (`binlog.000001`, … listed in
//! `binlog.index`): creation, appending, rotation, listing, purging and crash recovery, plus
//! [`BinlogReader`] to read a file's events.

mod index;
mod reader;
mod recover;

use std::fs::{self, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

pub use index::{read_index, write_index};
pub use reader::{read_event_bytes, read_file_header, BinlogReader, FileHeader, MAX_EVENT_SIZE};
pub use recover::{read_previous_gtids, scan_file, FileScan};

use crate::error::{BinlogError, Result};
use crate::event::header::{flags, stamp_positions, BINLOG_MAGIC};
use crate::event::{Event, EventMeta, FormatDescriptionEvent, RotateEvent};
use crate::gtid::GtidSet;
use crate::trx::Transaction;

/// Where and how binlog files are written.
#[derive(Clone, Debug)]
pub struct BinlogConfig {
    /// The directory holding the files and the index.
    pub dir: PathBuf,
    /// File name stem: files are `<basename>.000001`, the index `<basename>.index`.
    pub basename: String,
    /// Rotate once a file reaches this size (`max_binlog_size`, default 1 GiB).
    pub max_size: u64,
    /// This server's `server_id`, written in every event header.
    pub server_id: u32,
    /// The version string of FORMAT_DESCRIPTION events.
    pub server_version: String,
}

impl BinlogConfig {
    /// MySQL's defaults (`binlog`, 1 GiB, version `8.4.3-strata`) for `dir` and `server_id`.
    pub fn new(dir: impl Into<PathBuf>, server_id: u32) -> Self {
        BinlogConfig {
            dir: dir.into(),
            basename: "binlog".to_string(),
            max_size: 1 << 30,
            server_id,
            server_version: "8.4.3-strata".to_string(),
        }
    }
}

/// One row of SHOW BINARY LOGS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinlogFileInfo {
    /// `Log_name`.
    pub name: String,
    /// `File_size` in bytes.
    pub size: u64,
    /// `Encrypted` (always false).
    pub encrypted: bool,
}

/// What [`BinlogFiles::open`] repaired and found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Files cut back to their last complete transaction: (name, old size, new size).
    pub truncated: Vec<(String, u64, u64)>,
    /// Index entries dropped: files missing, or whose header was never completely written.
    pub removed: Vec<String>,
    /// Whether the newest file was not closed cleanly (the server crashed).
    pub crashed: bool,
    /// The GTIDs in the binlog files (PREVIOUS_GTIDS of the newest file plus its transactions).
    pub gtid_executed: GtidSet,
    /// XIDs of the complete transactions (and atomic DDL) in the newest file, for committing
    /// the engine's prepared transactions that reached the binlog.
    pub xids: Vec<u64>,
}

/// Where an appended transaction landed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppendPosition {
    /// The file it was written to.
    pub file: String,
    /// Its first byte.
    pub start: u64,
    /// The offset after it (the file size after the append, before any rotation).
    pub end: u64,
}

/// The binlog files of one directory; the newest file is open for appending.
///
/// Not thread-safe by itself (`&mut self` to write); the server serializes appends (group
/// commit) and calls [`BinlogFiles::sync`] once per group.
#[derive(Debug)]
pub struct BinlogFiles {
    config: BinlogConfig,
    names: Vec<String>,
    file: File,
    size: u64,
    gtid_executed: GtidSet,
    gtid_purged: GtidSet,
}

fn now_secs() -> u32 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as u32)
        .unwrap_or(0)
}

/// The number in `<basename>.NNNNNN`.
fn file_number(name: &str) -> Option<u64> {
    name.rsplit_once('.').and_then(|(_, n)| n.parse().ok())
}

/// Clears the in-use flag of a file's FORMAT_DESCRIPTION (its checksum does not cover it).
fn clear_in_use(path: &Path) -> Result<()> {
    let mut f = OpenOptions::new().write(true).open(path)?;
    f.seek(SeekFrom::Start(4 + 17))?;
    f.write_all(&[0])?;
    f.sync_data()?;
    Ok(())
}

impl BinlogFiles {
    /// Opens the binlog directory: recovers the newest file (truncating a torn tail back to the
    /// last complete transaction, dropping a file whose header is incomplete), computes the
    /// GTIDs present, and starts a new file as MySQL does at every start.
    ///
    /// # Errors
    /// I/O errors; [`BinlogError::Corrupt`] when an indexed file is not a binlog.
    pub fn open(config: BinlogConfig) -> Result<(Self, RecoveryReport)> {
        fs::create_dir_all(&config.dir)?;
        let index_path = config.dir.join(format!("{}.index", config.basename));
        let mut names = read_index(&index_path)?;
        let mut report = RecoveryReport::default();
        while let Some(last) = names.last().cloned() {
            let path = config.dir.join(&last);
            if !path.exists() {
                report.removed.push(names.pop().unwrap_or_default());
                continue;
            }
            let scan = scan_file(&path)?;
            if !scan.header_ok {
                fs::remove_file(&path)?;
                report.removed.push(names.pop().unwrap_or_default());
                report.crashed = true;
                continue;
            }
            let len = fs::metadata(&path)?.len();
            if scan.valid_end < len {
                let f = OpenOptions::new().write(true).open(&path)?;
                f.set_len(scan.valid_end)?;
                f.sync_all()?;
                report.truncated.push((last.clone(), len, scan.valid_end));
            }
            if scan.in_use {
                clear_in_use(&path)?;
            }
            report.crashed |= scan.in_use || scan.valid_end < len;
            report.xids = scan.xids;
            report.gtid_executed = scan.previous_gtids;
            report.gtid_executed.union_with(&scan.gtids);
            break;
        }
        let gtid_purged = match names.first() {
            Some(n) => read_previous_gtids(&config.dir.join(n))?,
            None => GtidSet::new(),
        };
        let next = names.last().and_then(|n| file_number(n)).unwrap_or(0) + 1;
        let name = format!("{}.{next:06}", config.basename);
        let (file, size) = create_file(&config, &name, &report.gtid_executed, now_secs())?;
        names.push(name);
        write_index(&index_path, &names)?;
        let files = BinlogFiles {
            config,
            names,
            file,
            size,
            gtid_executed: report.gtid_executed.clone(),
            gtid_purged,
        };
        Ok((files, report))
    }

    fn index_path(&self) -> PathBuf {
        self.config
            .dir
            .join(format!("{}.index", self.config.basename))
    }

    fn meta(&self) -> EventMeta {
        EventMeta {
            timestamp: now_secs(),
            server_id: self.config.server_id,
            ..EventMeta::default()
        }
    }

    /// Appends a sealed transaction at the end of the current file, stamping every event's
    /// `log_pos` (and CRC32), then rotates if the file reached `max_size`. Not durable until
    /// [`BinlogFiles::sync`].
    ///
    /// # Errors
    /// I/O errors. A failed write is cut off again so the file stays whole; an error from the
    /// rotation after a successful write leaves the transaction in the file.
    pub fn append(&mut self, mut trx: Transaction) -> Result<AppendPosition> {
        stamp_positions(&mut trx.bytes, self.size, true)?;
        let start = self.size;
        if let Err(e) = self.file.write_all(&trx.bytes) {
            let _ = self.file.set_len(start);
            let _ = self.file.seek(SeekFrom::Start(start));
            return Err(e.into());
        }
        self.size += trx.bytes.len() as u64;
        if let Some((uuid, gno)) = trx.gtid {
            self.gtid_executed.add(uuid, gno);
        }
        let pos = AppendPosition {
            file: self.current_file().to_string(),
            start,
            end: self.size,
        };
        if self.size >= self.config.max_size {
            self.rotate()?;
        }
        Ok(pos)
    }

    /// Makes everything appended so far durable (`fdatasync`).
    ///
    /// # Errors
    /// I/O errors.
    pub fn sync(&mut self) -> Result<()> {
        self.file.sync_data()?;
        Ok(())
    }

    fn write_event(&mut self, event: &Event) -> Result<()> {
        let mut bytes = event.encode(&self.meta())?;
        stamp_positions(&mut bytes, self.size, true)?;
        self.file.write_all(&bytes)?;
        self.size += bytes.len() as u64;
        Ok(())
    }

    /// Closes the current file with a ROTATE event and starts the next one (FLUSH BINARY LOGS,
    /// or `max_size` reached).
    ///
    /// # Errors
    /// I/O errors.
    pub fn rotate(&mut self) -> Result<()> {
        let next = file_number(self.current_file()).unwrap_or(0) + 1;
        let name = format!("{}.{next:06}", self.config.basename);
        self.write_event(&Event::Rotate(RotateEvent {
            position: 4,
            next_file: name.clone(),
        }))?;
        self.file.sync_data()?;
        clear_in_use(&self.config.dir.join(self.current_file()))?;
        let (file, size) = create_file(&self.config, &name, &self.gtid_executed, 0)?;
        self.names.push(name);
        write_index(&self.index_path(), &self.names)?;
        self.file = file;
        self.size = size;
        Ok(())
    }

    /// Shuts down cleanly: a STOP event, then the in-use flag cleared.
    ///
    /// # Errors
    /// I/O errors.
    pub fn close(mut self) -> Result<()> {
        self.write_event(&Event::Stop)?;
        self.file.sync_data()?;
        clear_in_use(&self.config.dir.join(self.current_file()))
    }

    /// The file being appended to.
    pub fn current_file(&self) -> &str {
        self.names.last().map(String::as_str).unwrap_or("")
    }

    /// The size of the current file: where the next transaction will start
    /// (SHOW BINARY LOG STATUS `Position`).
    pub fn position(&self) -> u64 {
        self.size
    }

    /// The file names in the index, oldest first.
    pub fn files(&self) -> &[String] {
        &self.names
    }

    /// The path of an indexed file.
    pub fn path_of(&self, name: &str) -> Option<PathBuf> {
        self.names
            .iter()
            .any(|n| n == name)
            .then(|| self.config.dir.join(name))
    }

    /// The GTIDs written to the binlog, including those of purged files.
    pub fn gtid_executed(&self) -> &GtidSet {
        &self.gtid_executed
    }

    /// The GTIDs of purged files (the PREVIOUS_GTIDS of the oldest file).
    pub fn gtid_purged(&self) -> &GtidSet {
        &self.gtid_purged
    }

    /// SHOW BINARY LOGS.
    ///
    /// # Errors
    /// I/O errors reading a file's size.
    pub fn list(&self) -> Result<Vec<BinlogFileInfo>> {
        let last = self.names.len().saturating_sub(1);
        self.names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let size = if i == last {
                    self.size
                } else {
                    fs::metadata(self.config.dir.join(name))?.len()
                };
                Ok(BinlogFileInfo {
                    name: name.clone(),
                    size,
                    encrypted: false,
                })
            })
            .collect()
    }

    /// PURGE BINARY LOGS TO `name`: deletes every file before `name` (never the current one).
    /// Returns the deleted names.
    ///
    /// # Errors
    /// [`BinlogError::InvalidValue`] when `name` is not in the index; I/O errors.
    pub fn purge_to(&mut self, name: &str) -> Result<Vec<String>> {
        let k = self.names.iter().position(|n| n == name).ok_or_else(|| {
            BinlogError::invalid(format!("target log '{name}' not found in index"))
        })?;
        let removed: Vec<String> = self.names.drain(..k).collect();
        if removed.is_empty() {
            return Ok(removed);
        }
        write_index(&self.index_path(), &self.names)?;
        for n in &removed {
            match fs::remove_file(self.config.dir.join(n)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                _ => {}
            }
        }
        index::sync_dir(&self.config.dir)?;
        if let Some(first) = self.names.first() {
            self.gtid_purged = read_previous_gtids(&self.config.dir.join(first))?;
        }
        Ok(removed)
    }

    /// PURGE BINARY LOGS BEFORE `time` (and `binlog_expire_logs_seconds`): deletes the oldest
    /// files last modified before `time`, stopping at the first newer one and never deleting the
    /// current file. Returns the deleted names.
    ///
    /// # Errors
    /// I/O errors.
    pub fn purge_before(&mut self, time: SystemTime) -> Result<Vec<String>> {
        let mut k = 0;
        while k + 1 < self.names.len() {
            let modified = fs::metadata(self.config.dir.join(&self.names[k]))?.modified()?;
            if modified >= time {
                break;
            }
            k += 1;
        }
        let target = self.names[k].clone();
        self.purge_to(&target)
    }

    /// RESET BINARY LOGS AND GTIDS: deletes every file and starts over at `<basename>.000001`
    /// with empty GTID sets.
    ///
    /// # Errors
    /// I/O errors.
    pub fn reset(&mut self) -> Result<()> {
        let name = format!("{}.{:06}", self.config.basename, 1);
        for n in &self.names {
            match fs::remove_file(self.config.dir.join(n)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                _ => {}
            }
        }
        self.gtid_executed = GtidSet::new();
        self.gtid_purged = GtidSet::new();
        let (file, size) = create_file(&self.config, &name, &self.gtid_executed, now_secs())?;
        self.names = vec![name];
        write_index(&self.index_path(), &self.names)?;
        self.file = file;
        self.size = size;
        Ok(())
    }
}

/// Creates `name` with the magic, a FORMAT_DESCRIPTION (in use) and PREVIOUS_GTIDS, synced;
/// returns the open file and its size.
fn create_file(
    config: &BinlogConfig,
    name: &str,
    previous: &GtidSet,
    created: u32,
) -> Result<(File, u64)> {
    let path = config.dir.join(name);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    let meta = EventMeta {
        timestamp: now_secs(),
        server_id: config.server_id,
        ..EventMeta::default()
    };
    let mut fde = FormatDescriptionEvent::new(&config.server_version);
    fde.created = created;
    let mut bytes = BINLOG_MAGIC.to_vec();
    let mut events = Event::FormatDescription(fde).encode(&EventMeta {
        flags: flags::BINLOG_IN_USE,
        ..meta
    })?;
    events.extend(Event::PreviousGtids(previous.clone()).encode(&meta)?);
    stamp_positions(&mut events, 4, true)?;
    bytes.extend_from_slice(&events);
    file.write_all(&bytes)?;
    file.sync_all()?;
    index::sync_dir(&config.dir)?;
    Ok((file, bytes.len() as u64))
}

#[cfg(test)]
mod tests;
