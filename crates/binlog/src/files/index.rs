//! The index file (`binlog.index`): one `./binlog.NNNNNN` line per file, oldest first, replaced
//! atomically (write a temporary file, fsync, rename, fsync the directory).

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::error::{BinlogError, Result};

/// Reads the file names listed in `path` (without the `./` prefix); a missing index is empty.
///
/// # Errors
/// I/O errors other than "not found"; [`BinlogError::Corrupt`] for a line naming a path outside
/// the directory.
pub fn read_index(path: &Path) -> Result<Vec<String>> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let name = line.strip_prefix("./").unwrap_or(line);
        if name.contains('/') || name == ".." || name == "." {
            return Err(BinlogError::corrupt(
                "binlog index",
                format!("entry '{line}' is not a file in the binlog directory"),
            ));
        }
        names.push(name.to_string());
    }
    Ok(names)
}

/// Replaces the index at `path` with `names`, crash-safely.
///
/// # Errors
/// I/O errors.
pub fn write_index(path: &Path, names: &[String]) -> Result<()> {
    let mut text = String::new();
    for n in names {
        text.push_str("./");
        text.push_str(n);
        text.push('\n');
    }
    let tmp = path.with_extension("index_crash_safe");
    {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Makes a directory's entries (created, renamed, removed files) durable.
///
/// # Errors
/// I/O errors.
pub fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_format() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("binlog.index");
        assert!(read_index(&p).unwrap().is_empty());
        let names = vec!["binlog.000001".to_string(), "binlog.000002".to_string()];
        write_index(&p, &names).unwrap();
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            "./binlog.000001\n./binlog.000002\n"
        );
        assert_eq!(read_index(&p).unwrap(), names);
        assert!(!dir.path().join("binlog.index_crash_safe").exists());
        fs::write(&p, "./binlog.000001\n\n../etc/passwd\n").unwrap();
        assert!(read_index(&p).is_err());
    }
}
