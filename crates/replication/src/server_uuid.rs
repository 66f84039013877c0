//! `server_uuid`: generated at the first start and kept in `auto.cnf` in the data directory,
//! in MySQL's format (`[auto]` then `server-uuid=…`), so GTIDs keep their source across
//! restarts.

use std::path::Path;

use binlog::Uuid;
use common::{Error, Result};

/// The file MySQL keeps the UUID in.
pub const FILE: &str = "auto.cnf";

/// The data directory's server UUID, created (and written) if there is none yet.
///
/// # Errors
/// I/O errors, or an `auto.cnf` whose `server-uuid` does not parse.
pub fn load_or_create(datadir: &Path) -> Result<Uuid> {
    let path = datadir.join(FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let line = text
                .lines()
                .find_map(|l| l.trim().strip_prefix("server-uuid="))
                .ok_or_else(|| Error::storage(format!("{}: no server-uuid", path.display())))?;
            Uuid::parse(line.trim()).map_err(|e| Error::storage(format!("{}: {e}", path.display())))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let u = uuid::Uuid::new_v4();
            let text = format!("[auto]\nserver-uuid={}\n", u.hyphenated());
            let tmp = datadir.join(format!("{FILE}.tmp"));
            std::fs::write(&tmp, text)
                .and_then(|_| std::fs::rename(&tmp, &path))
                .map_err(|e| Error::storage(format!("{}: {e}", path.display())))?;
            Ok(Uuid(*u.as_bytes()))
        }
        Err(e) => Err(Error::storage(format!("{}: {e}", path.display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_uuid_is_created_once_and_kept() {
        let d = tempfile::tempdir().unwrap();
        let a = load_or_create(d.path()).unwrap();
        let b = load_or_create(d.path()).unwrap();
        assert_eq!(a, b);
        let text = std::fs::read_to_string(d.path().join(FILE)).unwrap();
        assert!(text.starts_with("[auto]\nserver-uuid="), "{text}");
        std::fs::write(d.path().join(FILE), "[auto]\nserver-uuid=nope\n").unwrap();
        assert!(load_or_create(d.path()).is_err());
    }
}
