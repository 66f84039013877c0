//! The seam through which `LOAD DATA LOCAL INFILE` reads a file that lives on the client: the
//! SQL layer asks for a file by name, the protocol layer sends the LOCAL INFILE request (0xFB)
//! and streams the packets the client answers with. Neither layer depends on the other.

use std::io::Read;

use crate::Result;

/// Fetches client-side files for `LOAD DATA LOCAL INFILE`.
pub trait LocalFiles {
    /// Asks the client for `name` and returns a reader of its contents; the reader ends where
    /// the client's transfer ends. Dropping the reader before its end discards the rest of the
    /// transfer, so the connection stays usable. Fails (MySQL error 3948) when the client did
    /// not enable local files.
    fn open(&mut self, name: &str) -> Result<Box<dyn Read + '_>>;
}

/// No client connection (statements run internally): every request fails with 3948.
pub struct NoLocalFiles;

impl LocalFiles for NoLocalFiles {
    fn open(&mut self, _name: &str) -> Result<Box<dyn Read + '_>> {
        Err(local_files_disabled())
    }
}

/// MySQL's error 3948 for a LOCAL load the client or server does not allow.
pub fn local_files_disabled() -> crate::Error {
    crate::Error::new(
        crate::codes::ER_CLIENT_LOCAL_FILES_DISABLED,
        "Loading local data is disabled; this must be enabled on both the client and server sides",
    )
}
