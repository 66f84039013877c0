//! Parser for the classic (SQLite) sqllogictest file format.
//!
//! A script is a sequence of records separated by one or more blank lines. Lines starting with
//! `#` outside a record's SQL/result body are comments. A record is:
//!
//! ```text
//! skipif <engine>            -- zero or more conditions
//! onlyif <engine>
//! statement ok|error
//! <sql, one or more lines>
//!
//! query <types> [nosort|rowsort|valuesort] [label]
//! <sql, one or more lines>
//! ----
//! <one expected value per line>   or   <N> values hashing to <md5>
//!
//! hash-threshold <N>
//! halt
//! ```
//!
//! On a header line (`statement`, `query`, `skipif`, ...) a token starting with `#` begins a
//! trailing comment (e.g. `onlyif mysql # CAST syntax`).

use std::fmt;

/// A `skipif` / `onlyif` condition attached to a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    /// Skip the record when running against this engine label.
    SkipIf(String),
    /// Run the record only when running against this engine label.
    OnlyIf(String),
}

impl Condition {
    /// Whether this condition lets the record run on the engine named `engine`.
    pub fn allows(&self, engine: &str) -> bool {
        match self {
            Condition::SkipIf(e) => !e.eq_ignore_ascii_case(engine),
            Condition::OnlyIf(e) => e.eq_ignore_ascii_case(engine),
        }
    }
}

/// How the result values of a query are ordered before comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortMode {
    /// Keep the order the server returned.
    NoSort,
    /// Sort whole rows (column by column, strcmp order).
    RowSort,
    /// Sort every value individually.
    ValueSort,
}

/// The expected result block of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    /// One formatted value per line.
    Values(Vec<String>),
    /// `N values hashing to <md5>`.
    Hash { count: usize, hash: String },
}

/// The column type letters of a `query` record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColType {
    /// `I`: integer.
    Integer,
    /// `R`: floating point, printed with three decimals.
    Real,
    /// `T`: text.
    Text,
}

/// What a record asks the runner to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordKind {
    /// `statement ok` / `statement error`.
    Statement { expect_error: bool, sql: String },
    /// `query <types> <sort> [label]`.
    Query {
        types: Vec<ColType>,
        sort: SortMode,
        label: Option<String>,
        sql: String,
        /// `None` when the record has no `----` line (results are not checked).
        expected: Option<Expected>,
    },
    /// `hash-threshold N`.
    HashThreshold(usize),
    /// `halt`: stop processing the file.
    Halt,
}

/// One record of a script, with the 1-based line number of its command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub line: usize,
    pub conditions: Vec<Condition>,
    pub kind: RecordKind,
}

impl Record {
    /// Whether this record should run for the engine label `engine`.
    pub fn applies_to(&self, engine: &str) -> bool {
        self.conditions.iter().all(|c| c.allows(engine))
    }

    /// Whether the record is a test (statement or query) rather than a control record.
    pub fn is_test(&self) -> bool {
        matches!(
            self.kind,
            RecordKind::Statement { .. } | RecordKind::Query { .. }
        )
    }
}

/// A syntax error in a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Header tokens: whitespace-separated, stopping at the first token that starts with `#`.
fn header_tokens(line: &str) -> Vec<&str> {
    line.split_whitespace()
        .take_while(|t| !t.starts_with('#'))
        .collect()
}

fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// Parse `N values hashing to <32 hex digits>`.
fn parse_hash_line(line: &str) -> Option<Expected> {
    let toks: Vec<&str> = line.split_whitespace().collect();
    if toks.len() != 5 || toks[1] != "values" || toks[2] != "hashing" || toks[3] != "to" {
        return None;
    }
    let count = toks[0].parse::<usize>().ok()?;
    let hash = toks[4];
    if hash.len() != 32 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(Expected::Hash {
        count,
        hash: hash.to_ascii_lowercase(),
    })
}

fn parse_types(s: &str, line: usize) -> Result<Vec<ColType>, ParseError> {
    s.chars()
        .map(|c| match c {
            'I' | 'i' => Ok(ColType::Integer),
            'R' | 'r' => Ok(ColType::Real),
            'T' | 't' => Ok(ColType::Text),
            other => Err(err(line, format!("unknown column type {other:?} in {s:?}"))),
        })
        .collect()
}

/// A parsed script file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    pub records: Vec<Record>,
    /// Line of a final record that was dropped because the file is cut off in the middle of
    /// it (no trailing newline, and the record is incomplete).
    pub truncated_at: Option<usize>,
}

/// Parse a script file, tolerating a file that was cut off in its last record: when the text
/// does not end with a newline and the last record is incomplete (a query without `----`, or a
/// syntax error in a record running to the end of the file), that record is dropped and its
/// line reported in [`Script::truncated_at`].
pub fn parse_script(text: &str) -> Result<Script, ParseError> {
    let unterminated = !text.is_empty() && !text.ends_with('\n');
    match parse(text) {
        Ok(mut records) => {
            let mut truncated_at = None;
            if unterminated {
                if let Some(last) = records.last() {
                    if matches!(last.kind, RecordKind::Query { expected: None, .. }) {
                        truncated_at = Some(last.line);
                        records.pop();
                    }
                }
            }
            Ok(Script {
                records,
                truncated_at,
            })
        }
        Err(e) if unterminated && e.line > 0 => {
            let lines: Vec<&str> = text.lines().collect();
            let reaches_eof = lines
                .get(e.line - 1..)
                .is_some_and(|rest| rest.iter().all(|l| !l.trim().is_empty()));
            if !reaches_eof {
                return Err(e);
            }
            let head = lines[..e.line - 1].join("\n");
            let records = parse(&head)?;
            Ok(Script {
                records,
                truncated_at: Some(e.line),
            })
        }
        Err(e) => Err(e),
    }
}

/// Parse a whole script into records.
pub fn parse(text: &str) -> Result<Vec<Record>, ParseError> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let is_blank = |l: &str| l.trim().is_empty();
    let mut records = Vec::new();
    let mut i = 0;
    let mut conditions: Vec<Condition> = Vec::new();

    while i < lines.len() {
        let line = lines[i];
        let lineno = i + 1;
        if is_blank(line) {
            // A blank line ends a record; dangling conditions do not carry over.
            conditions.clear();
            i += 1;
            continue;
        }
        if line.trim_start().starts_with('#') {
            i += 1;
            continue;
        }
        let toks = header_tokens(line);
        let Some(&cmd) = toks.first() else {
            i += 1;
            continue;
        };
        match cmd {
            "skipif" | "onlyif" => {
                let engine = toks
                    .get(1)
                    .ok_or_else(|| err(lineno, format!("{cmd} needs an engine name")))?;
                conditions.push(if cmd == "skipif" {
                    Condition::SkipIf((*engine).to_string())
                } else {
                    Condition::OnlyIf((*engine).to_string())
                });
                i += 1;
            }
            "halt" => {
                records.push(Record {
                    line: lineno,
                    conditions: std::mem::take(&mut conditions),
                    kind: RecordKind::Halt,
                });
                i += 1;
            }
            "hash-threshold" => {
                let n = toks
                    .get(1)
                    .and_then(|t| t.parse::<usize>().ok())
                    .ok_or_else(|| err(lineno, "hash-threshold needs a non-negative integer"))?;
                records.push(Record {
                    line: lineno,
                    conditions: std::mem::take(&mut conditions),
                    kind: RecordKind::HashThreshold(n),
                });
                i += 1;
            }
            "statement" => {
                let expect_error = match toks.get(1).copied() {
                    Some("ok") => false,
                    Some("error") => true,
                    other => {
                        return Err(err(lineno, format!("unknown statement mode {other:?}")));
                    }
                };
                i += 1;
                let start = i;
                while i < lines.len() && !is_blank(lines[i]) {
                    i += 1;
                }
                if start == i {
                    return Err(err(lineno, "statement without SQL"));
                }
                records.push(Record {
                    line: lineno,
                    conditions: std::mem::take(&mut conditions),
                    kind: RecordKind::Statement {
                        expect_error,
                        sql: lines[start..i].join("\n"),
                    },
                });
            }
            "query" => {
                let types_tok = toks
                    .get(1)
                    .ok_or_else(|| err(lineno, "query needs a type string"))?;
                let types = parse_types(types_tok, lineno)?;
                let sort = match toks.get(2).copied() {
                    None | Some("nosort") => SortMode::NoSort,
                    Some("rowsort") => SortMode::RowSort,
                    Some("valuesort") => SortMode::ValueSort,
                    Some(other) => {
                        return Err(err(lineno, format!("unknown sort mode {other:?}")));
                    }
                };
                let label = toks.get(3).map(|s| (*s).to_string());
                i += 1;
                let start = i;
                while i < lines.len() && !is_blank(lines[i]) && lines[i].trim_end() != "----" {
                    i += 1;
                }
                if start == i {
                    return Err(err(lineno, "query without SQL"));
                }
                let sql = lines[start..i].join("\n");
                let mut expected = None;
                if i < lines.len() && lines[i].trim_end() == "----" {
                    i += 1;
                    let rstart = i;
                    while i < lines.len() && !is_blank(lines[i]) {
                        i += 1;
                    }
                    let body = &lines[rstart..i];
                    let hashed = if body.len() == 1 {
                        parse_hash_line(body[0])
                    } else {
                        None
                    };
                    expected = Some(hashed.unwrap_or_else(|| {
                        Expected::Values(body.iter().map(|l| l.trim_end().to_string()).collect())
                    }));
                }
                records.push(Record {
                    line: lineno,
                    conditions: std::mem::take(&mut conditions),
                    kind: RecordKind::Query {
                        types,
                        sort,
                        label,
                        sql,
                        expected,
                    },
                });
            }
            other => return Err(err(lineno, format!("unknown record type {other:?}"))),
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "\
# leading comment
hash-threshold 8

statement ok
CREATE TABLE t1(a INTEGER, b INTEGER)

skipif mysql # not compatible
statement error
SELECT * FROM nowhere

onlyif mysql # CAST syntax: SIGNED type:
query II rowsort label-1
SELECT a,
       b FROM t1
----
1
2
3
4

query T nosort
SELECT 'table tn7 row 51'
----
table tn7 row 51

query I valuesort
SELECT a FROM t1
----
30 values hashing to 3C13DEE48D9356AE19AF2515E05E6B54

query R
SELECT 1.5

onlyif mssql
halt
";

    #[test]
    fn parses_all_record_kinds() {
        let recs = parse(SCRIPT).expect("parse");
        assert_eq!(recs.len(), 8);
        assert_eq!(recs[0].kind, RecordKind::HashThreshold(8));
        assert_eq!(recs[0].line, 2);
        assert_eq!(
            recs[1].kind,
            RecordKind::Statement {
                expect_error: false,
                sql: "CREATE TABLE t1(a INTEGER, b INTEGER)".into()
            }
        );
        assert_eq!(recs[2].conditions, vec![Condition::SkipIf("mysql".into())]);
        assert!(matches!(
            recs[2].kind,
            RecordKind::Statement {
                expect_error: true,
                ..
            }
        ));
        match &recs[3].kind {
            RecordKind::Query {
                types,
                sort,
                label,
                sql,
                expected,
            } => {
                assert_eq!(types, &vec![ColType::Integer, ColType::Integer]);
                assert_eq!(*sort, SortMode::RowSort);
                assert_eq!(label.as_deref(), Some("label-1"));
                assert_eq!(sql, "SELECT a,\n       b FROM t1");
                assert_eq!(
                    expected,
                    &Some(Expected::Values(vec![
                        "1".into(),
                        "2".into(),
                        "3".into(),
                        "4".into()
                    ]))
                );
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(recs[3].conditions, vec![Condition::OnlyIf("mysql".into())]);
        assert_eq!(recs[3].line, 12);
        match &recs[4].kind {
            RecordKind::Query {
                expected: Some(Expected::Values(v)),
                sort,
                ..
            } => {
                assert_eq!(v, &vec!["table tn7 row 51".to_string()]);
                assert_eq!(*sort, SortMode::NoSort);
            }
            other => panic!("unexpected {other:?}"),
        }
        match &recs[5].kind {
            RecordKind::Query {
                expected: Some(Expected::Hash { count, hash }),
                sort,
                ..
            } => {
                assert_eq!(*count, 30);
                assert_eq!(hash, "3c13dee48d9356ae19af2515e05e6b54");
                assert_eq!(*sort, SortMode::ValueSort);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(
            recs[6].kind,
            RecordKind::Query { expected: None, .. }
        ));
        // the trailing `onlyif mssql / halt` pair
        assert_eq!(recs[7].kind, RecordKind::Halt);
        assert_eq!(recs[7].conditions, vec![Condition::OnlyIf("mssql".into())]);
        assert_eq!(recs.iter().filter(|r| r.is_test()).count(), 6);
    }

    #[test]
    fn halt_keeps_its_conditions() {
        let recs = parse("onlyif mssql\nhalt\n\nstatement ok\nSELECT 1\n").expect("parse");
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].kind, RecordKind::Halt);
        assert!(!recs[0].applies_to("mysql"));
        assert!(recs[1].applies_to("mysql"));
    }

    #[test]
    fn conditions_select_engine() {
        let r = |c: Vec<Condition>| Record {
            line: 1,
            conditions: c,
            kind: RecordKind::Halt,
        };
        assert!(r(vec![]).applies_to("mysql"));
        assert!(!r(vec![Condition::SkipIf("mysql".into())]).applies_to("mysql"));
        assert!(r(vec![Condition::SkipIf("sqlite".into())]).applies_to("mysql"));
        assert!(r(vec![Condition::OnlyIf("mysql".into())]).applies_to("mysql"));
        assert!(!r(vec![Condition::OnlyIf("mssql".into())]).applies_to("mysql"));
        assert!(!r(vec![
            Condition::OnlyIf("mysql".into()),
            Condition::SkipIf("mysql".into())
        ])
        .applies_to("mysql"));
    }

    #[test]
    fn reports_errors_with_line_numbers() {
        let e = parse("statement ok\nSELECT 1\n\nfrobnicate\n").expect_err("should fail");
        assert_eq!(e.line, 4);
        let e = parse("query X\nSELECT 1\n").expect_err("bad type");
        assert_eq!(e.line, 1);
        let e = parse("query I sideways\nSELECT 1\n").expect_err("bad sort");
        assert!(e.message.contains("sort"));
        let e = parse("statement ok\n\n").expect_err("no sql");
        assert_eq!(e.line, 1);
        assert!(parse("hash-threshold x\n").is_err());
    }

    #[test]
    fn hash_line_needs_exact_shape() {
        assert!(parse_hash_line("3 values hashing to 0123456789abcdef0123456789abcdef").is_some());
        assert!(parse_hash_line("3 values hashing to 0123").is_none());
        assert!(
            parse_hash_line("three values hashing to 0123456789abcdef0123456789abcdef").is_none()
        );
        // A single expected value that merely looks similar stays a value.
        let recs = parse("query T\nSELECT 'x'\n----\nvalues hashing\n").expect("parse");
        assert!(matches!(
            &recs[0].kind,
            RecordKind::Query { expected: Some(Expected::Values(v)), .. } if v.len() == 1
        ));
    }

    #[test]
    fn truncated_last_record_is_dropped() {
        let full = "statement ok\nSELECT 1\n\nquery I nosort\nSELECT 1\n----\n1\n";
        let s = parse_script(full).expect("parse");
        assert_eq!((s.records.len(), s.truncated_at), (2, None));
        // Cut inside the last query's SQL.
        let s = parse_script("statement ok\nSELECT 1\n\nquery I nosort\nSELECT (1").expect("parse");
        assert_eq!((s.records.len(), s.truncated_at), (1, Some(4)));
        // Cut inside the header line.
        let s = parse_script("statement ok\nSELECT 1\n\nquery I rowsort label-").expect("parse");
        assert_eq!((s.records.len(), s.truncated_at), (1, Some(4)));
        // A complete but unterminated last record is kept.
        let s = parse_script("query I nosort\nSELECT 1\n----\n1").expect("parse");
        assert_eq!((s.records.len(), s.truncated_at), (1, None));
        // Errors elsewhere are still errors.
        assert!(parse_script("bogus\n\nstatement ok\nSELECT 1").is_err());
        assert!(parse_script("statement ok\nSELECT 1\n\nquery I nosort\n").is_err());
    }

    #[test]
    fn crlf_and_dangling_conditions() {
        let recs = parse("skipif mysql\r\n\r\nstatement ok\r\nSELECT 1\r\n").expect("parse");
        assert_eq!(recs.len(), 1);
        assert!(recs[0].conditions.is_empty());
        assert!(matches!(&recs[0].kind, RecordKind::Statement { sql, .. } if sql == "SELECT 1"));
    }
}
