//! The crate's error type: decoding failures (truncated, corrupt, bad checksum), caller mistakes
//! and I/O, with the conversion to [`common::Error`].

use common::codes;

/// Everything that can go wrong while encoding, decoding or storing binary logs.
///
/// Decoders return [`BinlogError::Truncated`] or [`BinlogError::Corrupt`] for malformed input and
/// never panic; encoders return [`BinlogError::InvalidValue`] when a value does not fit its column.
#[derive(Debug, thiserror::Error)]
pub enum BinlogError {
    /// The input ended before `what` was complete.
    #[error("binary log data truncated while reading {what}")]
    Truncated {
        /// What was being read.
        what: &'static str,
    },
    /// The input is malformed.
    #[error("corrupt binary log data in {what}: {detail}")]
    Corrupt {
        /// The structure being decoded.
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// An event's CRC32 does not match its contents.
    #[error("binary log checksum mismatch: event says {stored:#010x}, computed {computed:#010x}")]
    Checksum {
        /// The checksum stored in the event.
        stored: u32,
        /// The checksum computed over the event.
        computed: u32,
    },
    /// A valid construct this crate does not implement (e.g. tagged GTIDs).
    #[error("unsupported binary log feature: {0}")]
    Unsupported(String),
    /// A value, text or argument given by the caller cannot be encoded.
    #[error("invalid value for the binary log: {0}")]
    InvalidValue(String),
    /// A file operation failed.
    #[error("binary log I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// Shorthand for results carrying [`BinlogError`].
pub type Result<T, E = BinlogError> = std::result::Result<T, E>;

impl BinlogError {
    /// A [`BinlogError::Corrupt`] for `what` with a message.
    pub fn corrupt(what: &'static str, detail: impl Into<String>) -> Self {
        BinlogError::Corrupt {
            what,
            detail: detail.into(),
        }
    }

    /// A [`BinlogError::InvalidValue`] with a message.
    pub fn invalid(detail: impl Into<String>) -> Self {
        BinlogError::InvalidValue(detail.into())
    }
}

impl From<BinlogError> for common::Error {
    fn from(e: BinlogError) -> Self {
        let code = match &e {
            BinlogError::Io(_) => codes::ER_ERROR_ON_WRITE,
            _ => codes::ER_UNKNOWN_ERROR,
        };
        let msg = e.to_string();
        common::Error::new(code, msg).with_source(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_to_common_error() {
        let e: common::Error = BinlogError::Truncated { what: "event" }.into();
        assert_eq!(e.num(), 1105);
        assert!(e.msg.contains("truncated"));
        let io = std::io::Error::other("disk full");
        let e: common::Error = BinlogError::from(io).into();
        assert_eq!(e.num(), 1026);
    }
}
