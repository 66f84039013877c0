//! Golden SQL files run in-process by `cargo test` (SQLite's way): every `golden/*.test` file
//! beside `src/` is a script of statements, each ending with `;` at the end of a line (`--`
//! lines are comments), run in order in one fresh session on the in-memory engine. The
//! transcript — each statement, then its rows (a header of column names, one tab-separated
//! line per row, NULL as `NULL`), `ok N` (affected rows) or `error N (SQLSTATE): message` — must
//! equal the `.result` file beside it. `STRATA_BLESS=1 cargo test -p sql golden` rewrites the
//! `.result` files; review their diff before committing.

use std::path::{Path, PathBuf};

use crate::session::session::test_support::session;
use crate::Output;

/// The statements of a script: text up to a line ending with `;`, comments dropped.
fn statements(script: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in script.lines() {
        if line.trim_start().starts_with("--") || (cur.is_empty() && line.trim().is_empty()) {
            continue;
        }
        cur.push_str(line);
        cur.push('\n');
        if line.trim_end().ends_with(';') {
            let stmt = cur.trim().trim_end_matches(';').trim().to_string();
            out.push(stmt);
            cur.clear();
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The transcript of running `script` in a fresh session.
pub(crate) fn transcript(script: &str) -> String {
    let mut s = session();
    let mut out = String::new();
    for stmt in statements(script) {
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
    out
}

fn golden_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "test"))
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
        let got = transcript(&std::fs::read_to_string(&f).expect("read .test"));
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

#[test]
fn statements_split_at_line_end_semicolons() {
    let s = "-- c\nSELECT 1;\n\nSELECT 'a;b'\n  FROM t;\nSELECT 2";
    assert_eq!(
        statements(s),
        ["SELECT 1", "SELECT 'a;b'\n  FROM t", "SELECT 2"]
    );
}
