//! The stage order of this crate, checked: a file may use its own stage and the stages before
//! it (see the table in the crate docs), never a later one. The edges that still point
//! backwards are listed in [`STILL_BACKWARDS`]; the test fails on any edge not listed there,
//! and on a listed edge that is gone (so the list only shrinks). Test modules
//! (`#[cfg(test)] mod tests` at a file's end) are not checked: they drive whole sessions.
//! The check reads paths only: a method of `Session` defined in `dispatch/` and called from an
//! earlier stage would not be seen (none is today; statement execution reaches dispatch only
//! from the server and from tests).

use std::collections::BTreeSet;
use std::path::Path;

/// The stages, first to last. A file's stage is its folder under `src/`.
const STAGES: [&str; 14] = [
    "runtime", "parse", "ir", "catalog", "bind", "plan", "exec", "dml", "ddl", "acl", "show",
    "session", "program", "dispatch",
];

/// `file -> later stage` edges that exist today and are to be removed. Most are the
/// `Session` that bind / plan / exec functions take instead of a narrow context trait, and
/// statement parsers that still live with their executors.
const STILL_BACKWARDS: &[&str] = &[
    "acl/accounts.rs -> session",
    "acl/check.rs -> session",
    "acl/stmt.rs -> session",
    "bind/query.rs -> session",
    "bind/select.rs -> ddl",
    "bind/select.rs -> session",
    "bind/select.rs -> show",
    "catalog/partition.rs -> bind",
    "catalog/partition.rs -> exec",
    "catalog/partition.rs -> plan",
    "catalog/partition.rs -> session",
    "catalog/stats.rs -> session",
    "ddl/alter.rs -> session",
    "ddl/checktable.rs -> session",
    "ddl/foreign_key.rs -> session",
    "ddl/table.rs -> session",
    "ddl/view.rs -> session",
    "dml/bulk_load.rs -> session",
    "dml/explain.rs -> session",
    "dml/foreign_key.rs -> session",
    "dml/load.rs -> session",
    "dml/multi.rs -> session",
    "dml/single.rs -> ddl",
    "dml/single.rs -> session",
    "exec/aggregate.rs -> session",
    "exec/fetch.rs -> session",
    "exec/fetch.rs -> show",
    "exec/join.rs -> session",
    "exec/query.rs -> session",
    "exec/select.rs -> session",
    "exec/sort.rs -> session",
    "exec/stream.rs -> session",
    "exec/window.rs -> session",
    "exec/window_stream.rs -> session",
    "plan/explain.rs -> exec",
    "plan/explain.rs -> session",
    "show/binlog.rs -> session",
    "show/replica.rs -> session",
    "show/show.rs -> session",
];

fn rank(stage: &str) -> Option<usize> {
    STAGES.iter().position(|s| *s == stage)
}

/// Code of a file without comments and without its trailing test module.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        let t = l.trim_start();
        if t.starts_with("#[cfg(test)]")
            && lines
                .peek()
                .is_some_and(|n| n.trim_start().starts_with("mod tests"))
        {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// Every `file -> stage` edge to a later stage in `src/`.
fn backward_edges(src: &Path) -> BTreeSet<String> {
    let mut edges = BTreeSet::new();
    for stage in STAGES {
        let own = rank(stage).expect("stage");
        let dir = src.join(stage);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        files.sort();
        for f in files {
            let code = code_of(&std::fs::read_to_string(&f).expect("read"));
            let name = format!("{stage}/{}", f.file_name().unwrap().to_string_lossy());
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let target: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if let Some(r) = rank(&target) {
                    if r > own {
                        edges.insert(format!("{name} -> {target}"));
                    }
                }
            }
        }
    }
    edges
}

#[test]
fn every_src_folder_is_a_stage() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for e in std::fs::read_dir(&src).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            assert!(
                rank(&name).is_some(),
                "src/{name}/ is not a stage of layering::STAGES"
            );
        }
    }
}

#[test]
fn dependencies_point_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = backward_edges(&src);
    let listed: BTreeSet<String> = STILL_BACKWARDS.iter().map(|s| s.to_string()).collect();
    let new: Vec<_> = found.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "imports from a later stage not listed in STILL_BACKWARDS: {new:#?}\n\
         listed edges that no longer exist (remove them from the list): {gone:#?}"
    );
}

#[test]
fn the_check_sees_a_backward_import() {
    let dir = tempfile::tempdir().unwrap();
    for s in STAGES {
        std::fs::create_dir(dir.path().join(s)).unwrap();
    }
    std::fs::write(
        dir.path().join("parse/x.rs"),
        "use crate::ir::expr::Expr;\n// crate::session\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("exec/y.rs"),
        "fn f() { crate::session::session::g() }\n#[cfg(test)]\nmod tests { use crate::show; }\n",
    )
    .unwrap();
    let edges: Vec<_> = backward_edges(dir.path()).into_iter().collect();
    assert_eq!(edges, ["exec/y.rs -> session", "parse/x.rs -> ir"]);
}
