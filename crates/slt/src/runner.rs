//! Running one script file against the server: a fresh database per file, one connection,
//! record by record.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::client::{ConnConfig, ExecError, QueryOutput, Session};
use crate::format::{describe_actual, format_value, matches_expected, sort_values};
use crate::parser::{self, ColType, Expected, Record, RecordKind, SortMode};

/// Settings shared by every file of a run.
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub conn: ConnConfig,
    /// Engine label for `skipif` / `onlyif` (normally `mysql`).
    pub engine: String,
}

/// How a record failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailKind {
    /// `statement ok` got an error (or timed out, or lost the connection).
    StatementFailed(ExecError),
    /// `statement error` succeeded.
    StatementSucceeded,
    /// A query got an error.
    QueryFailed(ExecError),
    /// The result has a different number of columns than the type string.
    ColumnCount { expected: usize, actual: usize },
    /// The values differ from the expected block.
    WrongResult {
        /// The expected block as written in the file (values joined by newlines, or the hash).
        expected: String,
        /// The actual values rendered the same way.
        actual: String,
        /// Number of expected values (`None` if unknown).
        expected_count: usize,
        actual_count: usize,
        /// The first few actual values, when `actual` is a hash.
        preview: Vec<String>,
    },
}

impl FailKind {
    /// The server/connection error behind the failure, if any.
    pub fn exec_error(&self) -> Option<&ExecError> {
        match self {
            FailKind::StatementFailed(e) | FailKind::QueryFailed(e) => Some(e),
            _ => None,
        }
    }
}

/// One failed record.
#[derive(Debug, Clone)]
pub struct Failure {
    /// 1-based line of the record's command line.
    pub line: usize,
    pub sql: String,
    pub kind: FailKind,
}

/// The outcome of one file.
#[derive(Debug, Clone, Default)]
pub struct FileResult {
    pub path: PathBuf,
    pub passed: usize,
    pub failed: usize,
    /// Records not run: excluded by `skipif`/`onlyif`, or after `halt`.
    pub skipped: usize,
    /// Records never reached because the file was aborted (counted in `failed` as well).
    pub aborted: usize,
    pub failures: Vec<Failure>,
    /// A harness-level problem: unreadable/unparsable file, cannot connect, server gone.
    pub error: Option<String>,
    /// Something worth telling that is not an error (e.g. a cut-off last record was ignored).
    pub note: Option<String>,
    pub elapsed: Duration,
}

impl FileResult {
    /// Records that ran (or should have run): passed + failed.
    pub fn run(&self) -> usize {
        self.passed + self.failed
    }
}

/// A database name for file number `index`: `slt_<index>_<file stem>`, limited to what MySQL
/// accepts unquoted (lower-case letters, digits, `_`; at most 64 characters).
pub fn database_name(index: usize, path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let clean: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let mut name = format!("slt_{index}_{clean}");
    name.truncate(64);
    name
}

/// Format, sort and compare a query result. Returns the failure, if any.
pub fn check_query(
    types: &[ColType],
    sort: SortMode,
    expected: Option<&Expected>,
    hash_threshold: usize,
    out: QueryOutput,
) -> Option<FailKind> {
    if out.ncols != types.len() {
        return Some(FailKind::ColumnCount {
            expected: types.len(),
            actual: out.ncols,
        });
    }
    let expected = expected?;
    let ncols = out.ncols.max(1);
    let mut values: Vec<String> = out
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            format_value(
                v.as_deref(),
                types.get(i % ncols).copied().unwrap_or(ColType::Text),
            )
        })
        .collect();
    sort_values(&mut values, ncols, sort);
    if matches_expected(expected, &values) {
        return None;
    }
    let (expected_text, expected_count) = match expected {
        Expected::Values(v) => (v.join("\n"), v.len()),
        Expected::Hash { count, hash } => (format!("{count} values hashing to {hash}"), *count),
    };
    let actual = describe_actual(expected, &values, hash_threshold);
    let hashed = actual.contains(" values hashing to ") && !values.is_empty();
    let preview = if hashed {
        values.iter().take(40).cloned().collect()
    } else {
        Vec::new()
    };
    Some(FailKind::WrongResult {
        expected: expected_text,
        actual,
        expected_count,
        actual_count: values.len(),
        preview,
    })
}

/// Run one script file in its own database. `index` makes the database name unique in a run.
pub fn run_file(path: &Path, index: usize, cfg: &RunConfig) -> FileResult {
    let start = Instant::now();
    let mut res = FileResult {
        path: path.to_path_buf(),
        ..FileResult::default()
    };
    run_file_inner(path, index, cfg, &mut res);
    res.elapsed = start.elapsed();
    res
}

fn run_file_inner(path: &Path, index: usize, cfg: &RunConfig, res: &mut FileResult) {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            res.error = Some(format!("cannot read: {e}"));
            return;
        }
    };
    let records = match parser::parse_script(&text) {
        Ok(script) => {
            if let Some(line) = script.truncated_at {
                res.note = Some(format!(
                    "file is cut off: incomplete record at line {line} ignored"
                ));
            }
            script.records
        }
        Err(e) => {
            res.error = Some(format!("parse error: {e}"));
            return;
        }
    };
    let mut session = match Session::connect(&cfg.conn) {
        Ok(s) => s,
        Err(e) => {
            res.error = Some(e);
            res.aborted = records.iter().filter(|r| r.is_test()).count();
            res.failed = res.aborted;
            return;
        }
    };
    let db = database_name(index, path);
    for sql in [
        format!("DROP DATABASE IF EXISTS {db}"),
        format!("CREATE DATABASE {db}"),
        format!("USE {db}"),
    ] {
        if let Err(e) = session.execute(&sql) {
            res.error = Some(format!("setting up database ({sql}): {e}"));
            res.aborted = records.iter().filter(|r| r.is_test()).count();
            res.failed = res.aborted;
            return;
        }
    }
    session.set_database(Some(db.clone()));

    let mut hash_threshold = 0usize;
    for (pos, rec) in records.iter().enumerate() {
        if !rec.applies_to(&cfg.engine) {
            if rec.is_test() {
                res.skipped += 1;
            }
            continue;
        }
        let failure = match &rec.kind {
            RecordKind::Halt => {
                res.skipped += records[pos + 1..].iter().filter(|r| r.is_test()).count();
                break;
            }
            RecordKind::HashThreshold(n) => {
                hash_threshold = *n;
                continue;
            }
            RecordKind::Statement { expect_error, sql } => {
                match (session.execute(sql), expect_error) {
                    (Ok(()), false) => None,
                    (Ok(()), true) => Some(FailKind::StatementSucceeded),
                    // Any server error satisfies `statement error`; a timeout or a lost
                    // connection does not.
                    (Err(ExecError::Server { .. }), true) => None,
                    (Err(e), _) => Some(FailKind::StatementFailed(e)),
                }
            }
            RecordKind::Query {
                types,
                sort,
                expected,
                sql,
                ..
            } => match session.query(sql) {
                Ok(out) => check_query(types, *sort, expected.as_ref(), hash_threshold, out),
                Err(e) => Some(FailKind::QueryFailed(e)),
            },
        };
        match failure {
            None => res.passed += 1,
            Some(kind) => {
                res.failed += 1;
                res.failures.push(Failure {
                    line: rec.line,
                    sql: record_sql(rec),
                    kind,
                });
            }
        }
        if session.is_broken() {
            if let Err(e) = session.reconnect() {
                let remaining = records[pos + 1..]
                    .iter()
                    .filter(|r| r.is_test() && r.applies_to(&cfg.engine))
                    .count();
                res.aborted = remaining;
                res.failed += remaining;
                res.error = Some(format!("server gone after line {}: {e}", rec.line));
                return;
            }
        }
    }
    // Best effort: a failure to drop leaves a stray database behind, nothing more.
    let _ = session.execute(&format!("DROP DATABASE IF EXISTS {db}"));
}

fn record_sql(rec: &Record) -> String {
    match &rec.kind {
        RecordKind::Statement { sql, .. } | RecordKind::Query { sql, .. } => sql.clone(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(ncols: usize, vals: &[Option<&str>]) -> QueryOutput {
        QueryOutput {
            ncols,
            values: vals
                .iter()
                .map(|v| v.map(|s| s.as_bytes().to_vec()))
                .collect(),
        }
    }

    #[test]
    fn db_names_are_safe() {
        assert_eq!(
            database_name(3, Path::new("/x/select1.test")),
            "slt_3_select1"
        );
        assert_eq!(
            database_name(0, Path::new("a/slt-good 0.test")),
            "slt_0_slt_good_0"
        );
        assert!(database_name(1, Path::new(&"x".repeat(200))).len() <= 64);
    }

    #[test]
    fn query_checks() {
        let types = [ColType::Integer, ColType::Text];
        let exp = Expected::Values(
            ["1", "a", "2", "NULL"]
                .iter()
                .map(|s| (*s).to_string())
                .collect(),
        );
        let o = out(2, &[Some("2"), None, Some("1.0"), Some("a")]);
        assert_eq!(
            check_query(&types, SortMode::RowSort, Some(&exp), 0, o.clone()),
            None
        );
        assert!(matches!(
            check_query(&types, SortMode::NoSort, Some(&exp), 0, o.clone()),
            Some(FailKind::WrongResult { .. })
        ));
        assert_eq!(
            check_query(&types[..1], SortMode::NoSort, Some(&exp), 0, o.clone()),
            Some(FailKind::ColumnCount {
                expected: 1,
                actual: 2
            })
        );
        // No expected block: any successful result passes.
        assert_eq!(check_query(&types, SortMode::NoSort, None, 0, o), None);
    }

    #[test]
    fn query_checks_by_hash() {
        let types = [ColType::Real];
        let vals = ["1.000", "2.500"]
            .iter()
            .map(|s| (*s).to_string())
            .collect::<Vec<_>>();
        let exp = Expected::Hash {
            count: 2,
            hash: crate::format::hash_values(&vals),
        };
        let o = out(1, &[Some("2.5"), Some("1")]);
        assert_eq!(
            check_query(&types, SortMode::ValueSort, Some(&exp), 8, o),
            None
        );
        let o = out(1, &[Some("2.5")]);
        match check_query(&types, SortMode::ValueSort, Some(&exp), 8, o) {
            Some(FailKind::WrongResult {
                actual_count,
                expected_count,
                preview,
                ..
            }) => {
                assert_eq!((actual_count, expected_count), (1, 2));
                assert_eq!(preview, vec!["2.500".to_string()]);
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
