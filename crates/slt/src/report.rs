//! Reporting: per-file lines, totals, grouped failure causes, the fail log and the markdown
//! per-directory table.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use crate::client::ExecError;
use crate::runner::{FailKind, Failure, FileResult};

/// A file result together with the name it is shown under (relative to the path given on the
/// command line).
pub struct Named<'a> {
    pub name: &'a str,
    pub result: &'a FileResult,
}

/// `passed / run` as a percentage; 100 when nothing ran.
pub fn pass_pct(passed: usize, run: usize) -> f64 {
    if run == 0 {
        100.0
    } else {
        passed as f64 * 100.0 / run as f64
    }
}

/// One progress line for a finished file.
pub fn file_line(name: &str, r: &FileResult) -> String {
    let mut s = format!(
        "{name}: {} passed, {} failed, {} skipped, {} total, {:.2}%, {:.1}s",
        r.passed,
        r.failed,
        r.skipped,
        r.passed + r.failed + r.skipped,
        pass_pct(r.passed, r.run()),
        r.elapsed.as_secs_f64()
    );
    if let Some(n) = &r.note {
        let _ = write!(s, "  (note: {n})");
    }
    if let Some(e) = &r.error {
        let _ = write!(s, "  ERROR: {e}");
    }
    s
}

/// Sum of several file results.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub files: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub errors: usize,
}

impl Totals {
    pub fn add(&mut self, r: &FileResult) {
        self.files += 1;
        self.passed += r.passed;
        self.failed += r.failed;
        self.skipped += r.skipped;
        self.errors += usize::from(r.error.is_some());
    }

    pub fn run(&self) -> usize {
        self.passed + self.failed
    }

    pub fn pct(&self) -> f64 {
        pass_pct(self.passed, self.run())
    }
}

/// Replace every number (a run of digits, with any decimal point) by `N`.
fn normalize_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == '.')
            {
                chars.next();
            }
            out.push('N');
        } else {
            out.push(c);
        }
    }
    out
}

/// Collapse the variable parts of an error message so that messages of the same kind group
/// together: numbers become `N` (also inside names: `col7` → `colN`), and a quoted part of
/// more than three words keeps only its first three (`'CREATE VIEW viewN …'`). A quote
/// character inside a word (`doesn't`) does not start a quoted part.
pub fn normalize_message(msg: &str) -> String {
    const MAX_WORDS: usize = 3;
    let chars: Vec<char> = msg.chars().collect();
    let mut out = String::with_capacity(msg.len());
    let mut plain = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let opens = matches!(c, '\'' | '`' | '"')
            && (i == 0 || !chars[i - 1].is_alphanumeric())
            && chars[i + 1..].contains(&c);
        if !opens {
            plain.push(c);
            i += 1;
            continue;
        }
        out.push_str(&normalize_numbers(&plain));
        plain.clear();
        let close = chars[i + 1..]
            .iter()
            .position(|&d| d == c)
            .map_or(chars.len(), |p| i + 1 + p);
        let inner: String = chars[i + 1..close].iter().collect();
        let words: Vec<&str> = inner.split_whitespace().collect();
        let mut shown = words
            .iter()
            .take(MAX_WORDS)
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        if words.len() > MAX_WORDS {
            shown.push_str(" …");
        }
        out.push(c);
        out.push_str(&normalize_numbers(&shown));
        out.push(c);
        i = close + 1;
    }
    out.push_str(&normalize_numbers(&plain));
    let mut out: String = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > 160 {
        out = out.chars().take(160).collect::<String>() + "…";
    }
    out
}

/// A short description of why a record failed, used to group failures.
pub fn cause_key(kind: &FailKind) -> String {
    let exec = |e: &ExecError| match e {
        ExecError::Server { code, message } => {
            format!("error {code}: {}", normalize_message(message))
        }
        ExecError::Timeout => "timeout".to_string(),
        ExecError::Connection(_) => "connection lost".to_string(),
    };
    match kind {
        FailKind::StatementFailed(e) => format!("statement: {}", exec(e)),
        FailKind::QueryFailed(e) => format!("query: {}", exec(e)),
        FailKind::StatementSucceeded => "statement succeeded, error expected".to_string(),
        FailKind::ColumnCount { .. } => "query: wrong number of columns".to_string(),
        FailKind::WrongResult {
            expected_count,
            actual_count,
            ..
        } => {
            if expected_count == actual_count {
                "query: wrong values (same number of values)".to_string()
            } else {
                "query: wrong values (different number of values)".to_string()
            }
        }
    }
}

/// Failure causes with their counts, most frequent first.
pub fn group_causes<'a>(failures: impl IntoIterator<Item = &'a Failure>) -> Vec<(String, usize)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for f in failures {
        *counts.entry(cause_key(&f.kind)).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// Full description of one failure for the fail log.
pub fn describe_failure(name: &str, f: &Failure) -> String {
    let mut s = format!("=== {name}:{}  [{}]\n", f.line, cause_key(&f.kind));
    s.push_str("SQL:\n");
    s.push_str(&indent(&f.sql));
    match &f.kind {
        FailKind::StatementFailed(e) | FailKind::QueryFailed(e) => {
            let _ = writeln!(s, "ERROR: {e}");
        }
        FailKind::StatementSucceeded => s.push_str("statement succeeded, an error was expected\n"),
        FailKind::ColumnCount { expected, actual } => {
            let _ = writeln!(s, "expected {expected} column(s), got {actual}");
        }
        FailKind::WrongResult {
            expected,
            actual,
            preview,
            ..
        } => {
            const MAX_LINES: usize = 60;
            let clip = |t: &str| {
                let lines: Vec<&str> = t.lines().collect();
                let mut o = indent(
                    &lines
                        .iter()
                        .take(MAX_LINES)
                        .copied()
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
                if lines.len() > MAX_LINES {
                    let _ = writeln!(o, "    … ({} more)", lines.len() - MAX_LINES);
                }
                o
            };
            s.push_str("expected:\n");
            s.push_str(&clip(expected));
            s.push_str("actual:\n");
            s.push_str(&clip(actual));
            if !preview.is_empty() {
                s.push_str("actual values (first ones):\n");
                s.push_str(&indent(&preview.join("\n")));
            }
        }
    }
    s.push('\n');
    s
}

/// The fail log: every failed record (and harness error), written file by file as results
/// come in, so that an interrupted run still leaves its failures behind; [`FailLog::finish`]
/// appends the grouped causes.
pub struct FailLog {
    out: std::io::BufWriter<std::fs::File>,
}

impl FailLog {
    pub fn create(path: &Path) -> std::io::Result<FailLog> {
        Ok(FailLog {
            out: std::io::BufWriter::new(std::fs::File::create(path)?),
        })
    }

    /// Append the failures of one file.
    pub fn add_file(&mut self, name: &str, result: &FileResult) -> std::io::Result<()> {
        use std::io::Write as _;
        if let Some(e) = &result.error {
            writeln!(self.out, "=== {name}: HARNESS ERROR: {e}\n")?;
        }
        for f in &result.failures {
            self.out.write_all(describe_failure(name, f).as_bytes())?;
        }
        self.out.flush()
    }

    /// Append the failure causes with their counts, and close the log.
    pub fn finish(mut self, causes: &[(String, usize)]) -> std::io::Result<()> {
        use std::io::Write as _;
        writeln!(self.out, "=== failure causes (count, cause)")?;
        for (cause, n) in causes {
            writeln!(self.out, "{n:>8}  {cause}")?;
        }
        self.out.flush()
    }
}

/// The directory part of a display name (`.` for top-level files).
pub fn directory_of(name: &str) -> String {
    match Path::new(name)
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
    {
        Some(p) if !p.is_empty() => p,
        _ => ".".to_string(),
    }
}

/// Markdown table: one row per directory, then the total.
pub fn markdown_table(files: &[Named<'_>]) -> String {
    let mut dirs: BTreeMap<String, Totals> = BTreeMap::new();
    let mut total = Totals::default();
    for nf in files {
        dirs.entry(directory_of(nf.name))
            .or_default()
            .add(nf.result);
        total.add(nf.result);
    }
    let mut s = String::from(
        "| directory | files | records run | passed | pass % |\n|---|---:|---:|---:|---:|\n",
    );
    for (dir, t) in &dirs {
        let _ = writeln!(
            s,
            "| {dir} | {} | {} | {} | {:.2} |",
            t.files,
            t.run(),
            t.passed,
            t.pct()
        );
    }
    let _ = writeln!(
        s,
        "| **total** | {} | {} | {} | {:.2} |",
        total.files,
        total.run(),
        total.passed,
        total.pct()
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn result(passed: usize, failed: usize) -> FileResult {
        FileResult {
            path: PathBuf::from("x"),
            passed,
            failed,
            ..FileResult::default()
        }
    }

    #[test]
    fn normalizes_messages() {
        assert_eq!(
            normalize_message("Unknown column 'col7' in 'field list'"),
            "Unknown column 'colN' in 'field list'"
        );
        assert_eq!(
            normalize_message("near `x`  at   line 12"),
            "near `x` at line N"
        );
        assert_eq!(
            normalize_message("value 3.25 out of range"),
            "value N out of range"
        );
        assert_eq!(
            normalize_message("This version of Strata doesn't yet support 'subqueries'"),
            "This version of Strata doesn't yet support 'subqueries'"
        );
        assert_eq!(
            normalize_message("doesn't support 'CREATE VIEW view1 AS SELECT x FROM t1'"),
            "doesn't support 'CREATE VIEW viewN …'"
        );
        assert_eq!(normalize_message("unbalanced 'quote"), "unbalanced 'quote");
    }

    #[test]
    fn groups_causes() {
        let mk = |kind| Failure {
            line: 1,
            sql: String::new(),
            kind,
        };
        let server = |m: &str| ExecError::Server {
            code: 1054,
            message: m.to_string(),
        };
        let fs = vec![
            mk(FailKind::QueryFailed(server(
                "Unknown column 'col1' in 'where clause'",
            ))),
            mk(FailKind::QueryFailed(server(
                "Unknown column 'col2' in 'where clause'",
            ))),
            mk(FailKind::StatementSucceeded),
        ];
        let g = group_causes(&fs);
        assert_eq!(
            g[0],
            (
                "query: error 1054: Unknown column 'colN' in 'where clause'".to_string(),
                2
            )
        );
        assert_eq!(g[1].1, 1);
    }

    #[test]
    fn markdown_groups_by_directory() {
        let a = result(9, 1);
        let b = result(5, 5);
        let c = result(10, 0);
        let files = vec![
            Named {
                name: "select1.test",
                result: &a,
            },
            Named {
                name: "evidence/in1.test",
                result: &b,
            },
            Named {
                name: "evidence/in2.test",
                result: &c,
            },
        ];
        let md = markdown_table(&files);
        assert!(md.contains("| . | 1 | 10 | 9 | 90.00 |"), "{md}");
        assert!(md.contains("| evidence | 2 | 20 | 15 | 75.00 |"), "{md}");
        assert!(md.contains("| **total** | 3 | 30 | 24 | 80.00 |"), "{md}");
    }

    #[test]
    fn percentages() {
        assert_eq!(pass_pct(0, 0), 100.0);
        assert_eq!(pass_pct(1, 4), 25.0);
        let mut t = Totals::default();
        t.add(&result(3, 1));
        assert_eq!((t.files, t.run(), t.pct()), (1, 4, 75.0));
    }
}
