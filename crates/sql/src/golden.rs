//! Golden SQL files run in-process by `cargo test` (SQLite's way): every `golden/*.test` file
//! beside `src/` is a script of statements, each ending with `;` at the end of a line (`--`
//! lines are comments), run in order in one fresh session on the in-memory engine. The
//! transcript — each statement, then its rows (a header of column names, one tab-separated
//! line per row, NULL as `NULL`), `ok N` (affected rows) or `error N (SQLSTATE): message` — must
//! equal the `.result` file beside it. `STRATA_BLESS=1 cargo test -p sql golden` rewrites the
//! `.result` files; review their diff before committing. `STRATA_GOLDEN=<part>` limits a run
//! (and a bless) to the files whose name contains `<part>`.
//!
//! Each tabular `EXPLAIN <query>` of a script is also checked against execution: the query
//! runs right after it with [`crate::exec::trace`] recording how each base table was read, and
//! the (table, type, key) triples must be the ones the EXPLAIN rows show.

use std::path::{Path, PathBuf};

use crate::session::session::test_support::session;
use crate::Output;

/// The statements of a script: text up to a line ending with `;`, comments dropped. A
/// `DELIMITER x` line makes `x` the terminator, as in the mysql client (routine bodies).
fn statements(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut delim = ";".to_string();
    for line in script.lines() {
        if line.trim_start().starts_with("--") || (cur.is_empty() && line.trim().is_empty()) {
            continue;
        }
        if let Some(d) = line
            .trim()
            .strip_prefix("DELIMITER ")
            .filter(|_| cur.is_empty())
        {
            delim = d.trim().to_string();
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
        if line.trim_end().ends_with(delim.as_str()) {
            let stmt = cur
                .trim()
                .trim_end_matches(delim.as_str())
                .trim()
                .to_string();
            out.push(stmt);
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// A table read: (table, EXPLAIN type, key).
type Read = (String, &'static str, Option<String>);

/// The table reads a tabular EXPLAIN's rows promise: (table, type, key) of each base table
/// (derived tables, UNION results and recursive CTE scans read no base table), sorted.
fn explained_reads(rows: &[Vec<common::Value>]) -> Vec<Read> {
    let text = |v: &common::Value| match v {
        common::Value::Null => None,
        v => Some(v.to_string()),
    };
    let mut out: Vec<Read> = rows
        .iter()
        .filter(|r| r.len() == 12)
        .filter_map(|r| {
            let table = text(&r[2])?;
            let ty = text(&r[4])?;
            if table.starts_with('<') || text(&r[11]).as_deref() == Some("Recursive") {
                return None;
            }
            let ty: &'static str = ["const", "eq_ref", "ref", "range", "index", "ALL"]
                .into_iter()
                .find(|t| *t == ty)?;
            Some((table, ty, text(&r[6])))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The transcript of running `script` in a fresh session, and for every tabular
/// `EXPLAIN <query>` of the script, the mismatches
/// between the reads it printed and the reads running `<query>` right after it made
/// ([`crate::exec::trace`]): execution must use exactly the EXPLAIN'd plan.
fn transcript_checked(script: &str) -> (String, Vec<String>) {
    let mut s = session();
    let mut out = String::new();
    let mut mismatches = Vec::new();
    for stmt in statements(script) {
        if let Some(query) = stmt.strip_prefix("EXPLAIN ") {
            let first = query.split_whitespace().next().unwrap_or("");
            if first.eq_ignore_ascii_case("SELECT") || first.eq_ignore_ascii_case("WITH") {
                let explained = s.query(&stmt, false).pop();
                // only the tabular format (explain_format may make it TREE or JSON)
                if let Some(Ok(Output::Rows { rows, columns })) = explained.filter(
                    |r| matches!(r, Ok(Output::Rows { columns, .. }) if columns.len() == 12),
                ) {
                    let _ = columns;
                    let want = explained_reads(&rows);
                    crate::exec::trace::start();
                    let ran = s.query(query, false).pop();
                    let mut got: Vec<Read> = crate::exec::trace::take()
                        .into_iter()
                        .map(|e| (e.name, e.ty, e.key))
                        .collect();
                    got.sort();
                    got.dedup();
                    if !matches!(ran, Some(Ok(_))) {
                        mismatches.push(format!("{query}: {ran:?}"));
                    } else if got != want {
                        mismatches.push(format!(
                            "{query}\n  EXPLAIN:  {want:?}\n  executed: {got:?}"
                        ));
                    }
                }
            }
        }
        out.push_str(&stmt);
        out.push_str(";\n");
        for r in s.query(&stmt, false) {
            match r {
                Ok(Output::Rows { columns, rows }) => {
                    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
                    out.push_str(&names.join("\t"));
                    out.push('\n');
                    for row in rows {
                        let vals: Vec<String> = row.iter().map(|v| v.to_string()).collect();
                        out.push_str(&vals.join("\t"));
                        out.push('\n');
                    }
                }
                Ok(Output::RowsSent { rows }) => out.push_str(&format!("sent {rows}\n")),
                Ok(Output::Ok { affected, .. }) => out.push_str(&format!("ok {affected}\n")),
                Err(e) => out.push_str(&format!(
                    "error {} ({}): {}\n",
                    e.num(),
                    e.code.sqlstate,
                    e.msg
                )),
            }
        }
        out.push('\n');
    }
    (out, mismatches)
}

/// The `.test` files, or with `STRATA_GOLDEN=<part>` only those whose name contains `<part>`
/// (so one file can be run or blessed without rewriting the others).
fn golden_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    let only = std::env::var("STRATA_GOLDEN").unwrap_or_default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "test"))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains(&only))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn golden_files_match_their_results() {
    let bless = std::env::var("STRATA_BLESS").is_ok_and(|v| v == "1");
    let files = golden_files();
    assert!(!files.is_empty(), "no golden/*.test files");
    let mut failed = Vec::new();
    for f in files {
        let (got, mismatches) =
            transcript_checked(&std::fs::read_to_string(&f).expect("read .test"));
        for m in mismatches {
            failed.push(format!(
                "{}: execution did not use the EXPLAIN'd plan: {m}",
                f.display()
            ));
        }
        let result = f.with_extension("result");
        if bless {
            std::fs::write(&result, &got).expect("write .result");
            continue;
        }
        let want = std::fs::read_to_string(&result).unwrap_or_default();
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            failed.push(format!(
                "{}: differs from {} at line {} (STRATA_BLESS=1 to rewrite)\n  got:  {:?}\n  want: {:?}",
                f.display(),
                result.display(),
                line + 1,
                got.lines().nth(line).unwrap_or(""),
                want.lines().nth(line).unwrap_or("")
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The check sees a plan execution did not follow: `a = 1.5` cannot be a key of an integer
/// index, so the read EXPLAIN shows as `ref` falls back to a full scan.
#[test]
fn a_read_that_left_its_plan_is_reported() {
    let script = "CREATE TABLE t (id INT PRIMARY KEY, a INT, KEY ka (a));\n\
                  INSERT INTO t VALUES (1, 1), (2, 2);\n\
                  EXPLAIN SELECT * FROM t WHERE a = 2;\n\
                  EXPLAIN SELECT * FROM t WHERE a = 1.5;\n";
    let (_, mismatches) = transcript_checked(script);
    assert_eq!(mismatches.len(), 1, "{mismatches:?}");
    assert!(mismatches[0].contains("a = 1.5"), "{mismatches:?}");
}

#[test]
fn statements_split_at_line_end_semicolons() {
    let s = "-- c\nSELECT 1;\n\nSELECT 'a;b'\n  FROM t;\nSELECT 2";
    assert_eq!(
        statements(s),
        ["SELECT 1", "SELECT 'a;b'\n  FROM t", "SELECT 2"]
    );
}
