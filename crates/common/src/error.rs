//! The one error type every layer returns to its caller: a MySQL error code plus message.

use std::fmt;

use crate::codes::{self, ErrorCode};

/// A MySQL error: code, SQLSTATE (via the code) and the message text the client sees.
///
/// `Display` prints it as the `mariadb` client does: `ERROR 1146 (42S02): Table 'db.t' doesn't exist`.
#[derive(Debug)]
pub struct Error {
    /// The MySQL code (number, SQLSTATE, name).
    pub code: ErrorCode,
    /// The message, already formatted as MySQL formats it.
    pub msg: String,
    /// The underlying cause, if any (an I/O or engine error).
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

/// Shorthand for results carrying [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code.num, self.code.sqlstate, self.msg
        )
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl Error {
    /// An error with `code` and the message `msg`.
    pub fn new(code: ErrorCode, msg: impl Into<String>) -> Self {
        Error {
            code,
            msg: msg.into(),
            source: None,
        }
    }

    /// Attaches the underlying cause.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// The MySQL error number.
    pub fn num(&self) -> u16 {
        self.code.num
    }

    /// A bug in Strata: the message says so, so users report it.
    pub fn internal(msg: impl fmt::Display) -> Self {
        Error::new(
            codes::ER_INTERNAL,
            format!("Internal error: {msg} (this is a bug in Strata)"),
        )
    }

    /// An error from the storage engine's I/O path.
    pub fn storage(msg: impl fmt::Display) -> Self {
        Error::new(
            codes::ER_UNKNOWN_ERROR,
            format!("Storage engine error: {msg}"),
        )
    }

    /// 1064: a syntax error near `near`.
    pub fn parse(near: impl fmt::Display) -> Self {
        Error::new(
            codes::ER_PARSE_ERROR,
            format!(
                "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '{near}' at line 1"
            ),
        )
    }

    /// 1146: table `db.t` doesn't exist.
    pub fn no_such_table(db: &str, table: &str) -> Self {
        Error::new(
            codes::ER_NO_SUCH_TABLE,
            format!("Table '{db}.{table}' doesn't exist"),
        )
    }

    /// 1049: unknown database.
    pub fn bad_db(db: &str) -> Self {
        Error::new(codes::ER_BAD_DB_ERROR, format!("Unknown database '{db}'"))
    }

    /// 1046: no database selected.
    pub fn no_db() -> Self {
        Error::new(codes::ER_NO_DB_ERROR, "No database selected")
    }

    /// 1050: table already exists.
    pub fn table_exists(table: &str) -> Self {
        Error::new(
            codes::ER_TABLE_EXISTS_ERROR,
            format!("Table '{table}' already exists"),
        )
    }

    /// 1054: unknown column in a clause (`field list`, `where clause`, ...).
    pub fn bad_field(col: &str, clause: &str) -> Self {
        Error::new(
            codes::ER_BAD_FIELD_ERROR,
            format!("Unknown column '{col}' in '{clause}'"),
        )
    }

    /// 1062: duplicate entry `value` for key `key` (`table.key` in MySQL 8).
    pub fn dup_entry(value: &str, key: &str) -> Self {
        Error::new(
            codes::ER_DUP_ENTRY,
            format!("Duplicate entry '{value}' for key '{key}'"),
        )
    }

    /// 1048: column cannot be null.
    pub fn bad_null(col: &str) -> Self {
        Error::new(
            codes::ER_BAD_NULL_ERROR,
            format!("Column '{col}' cannot be null"),
        )
    }

    /// 1235: a feature Strata does not support yet.
    pub fn not_supported(what: impl fmt::Display) -> Self {
        Error::new(
            codes::ER_NOT_SUPPORTED_YET,
            format!("This version of Strata doesn't yet support '{what}'"),
        )
    }

    /// 1205: lock wait timeout.
    pub fn lock_wait_timeout() -> Self {
        Error::new(
            codes::ER_LOCK_WAIT_TIMEOUT,
            "Lock wait timeout exceeded; try restarting transaction",
        )
    }

    /// 1213: deadlock.
    pub fn deadlock() -> Self {
        Error::new(
            codes::ER_LOCK_DEADLOCK,
            "Deadlock found when trying to get lock; try restarting transaction",
        )
    }

    /// 1317: the statement was interrupted (KILL QUERY).
    pub fn interrupted() -> Self {
        Error::new(
            codes::ER_QUERY_INTERRUPTED,
            "Query execution was interrupted",
        )
    }

    /// 1193: unknown system variable.
    pub fn unknown_sysvar(name: &str) -> Self {
        Error::new(
            codes::ER_UNKNOWN_SYSTEM_VARIABLE,
            format!("Unknown system variable '{name}'"),
        )
    }

    /// 1231: a variable can't be set to `value`.
    pub fn wrong_value_for_var(name: &str, value: &str) -> Self {
        Error::new(
            codes::ER_WRONG_VALUE_FOR_VAR,
            format!("Variable '{name}' can't be set to the value of '{value}'"),
        )
    }
}

/// Returns early with an [`Error`] built from a code and a format string.
///
/// `bail!(ER_NO_SUCH_TABLE, "Table '{}.{}' doesn't exist", db, t)`
#[macro_export]
macro_rules! bail {
    ($code:ident, $($arg:tt)*) => {
        return Err($crate::Error::new($crate::codes::$code, format!($($arg)*)))
    };
}

/// Builds an [`Error`] from a code and a format string.
#[macro_export]
macro_rules! err {
    ($code:ident, $($arg:tt)*) => {
        $crate::Error::new($crate::codes::$code, format!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_matches_mysql_client() {
        let e = Error::no_such_table("test", "t1");
        assert_eq!(
            e.to_string(),
            "ERROR 1146 (42S02): Table 'test.t1' doesn't exist"
        );
        assert_eq!(e.num(), 1146);
    }

    #[test]
    fn codes_are_unique_by_number() {
        let mut nums: Vec<_> = codes::ALL.iter().map(|c| c.num).collect();
        nums.sort();
        let n = nums.len();
        nums.dedup();
        assert_eq!(
            n,
            nums.len(),
            "two codes share a number; by_num would be ambiguous"
        );
    }

    #[test]
    fn codes_are_unique_by_name() {
        let mut names: Vec<_> = codes::ALL.iter().map(|c| c.name).collect();
        names.sort();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len());
    }
}

/// Severity of a diagnostic kept for `SHOW WARNINGS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `Note`
    Note,
    /// `Warning`
    Warning,
    /// `Error`
    Error,
}

impl Level {
    /// The name `SHOW WARNINGS` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "Note",
            Level::Warning => "Warning",
            Level::Error => "Error",
        }
    }
}

/// One diagnostic row of `SHOW WARNINGS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Severity.
    pub level: Level,
    /// MySQL error number.
    pub code: u16,
    /// Message text.
    pub msg: String,
}

impl Warning {
    /// A `Warning`-level diagnostic with `code`.
    pub fn warn(code: ErrorCode, msg: impl Into<String>) -> Self {
        Warning {
            level: Level::Warning,
            code: code.num,
            msg: msg.into(),
        }
    }

    /// A `Note`-level diagnostic with `code`.
    pub fn note(code: ErrorCode, msg: impl Into<String>) -> Self {
        Warning {
            level: Level::Note,
            code: code.num,
            msg: msg.into(),
        }
    }
}
