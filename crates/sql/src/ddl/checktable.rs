//! `CHECK TABLE t [, t ...] [FOR UPGRADE | QUICK | FAST | MEDIUM | EXTENDED | CHANGED]`: runs
//! [`storage::Storage::check_table`] (rows decode, primary and secondary indexes agree, unique
//! indexes hold no duplicates) on every table (every partition of a partitioned table, plus the
//! partition placement check of `ALTER TABLE … CHECK PARTITION`) and returns MySQL's four-column
//! result. The options are accepted and ignored: every check is the extended one.

use common::{Error, Result, Value};
use sqlparser::tokenizer::Token;
use storage::engine::KvEngine;

use crate::session::session::Output;
use crate::session::session::Session;

/// A table named by CHECK TABLE: (database, table); database `None` = the current one.
pub type CheckName = (Option<String>, String);

/// Parses the tokens of a CHECK TABLE statement (whitespace removed); `None` when the
/// statement is not CHECK TABLE.
pub fn parse(plain: &[Token]) -> Option<Result<Vec<CheckName>>> {
    let word = |i: usize| match plain.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    if word(0).as_deref() != Some("CHECK")
        || !matches!(word(1).as_deref(), Some("TABLE" | "TABLES"))
    {
        return None;
    }
    let bad = |i: usize| {
        Some(Err(Error::parse(
            plain[i.min(plain.len())..]
                .iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        )))
    };
    let ident = |i: usize| match plain.get(i) {
        Some(Token::Word(w)) => Some(w.value.clone()),
        _ => None,
    };
    let mut names = Vec::new();
    let mut i = 2;
    loop {
        let Some(first) = ident(i) else { return bad(i) };
        i += 1;
        if plain.get(i) == Some(&Token::Period) {
            let Some(second) = ident(i + 1) else {
                return bad(i + 1);
            };
            names.push((Some(first), second));
            i += 2;
        } else {
            names.push((None, first));
        }
        if plain.get(i) == Some(&Token::Comma) {
            i += 1;
            continue;
        }
        break;
    }
    while i < plain.len() {
        match word(i).as_deref() {
            Some("QUICK" | "FAST" | "MEDIUM" | "EXTENDED" | "CHANGED") => i += 1,
            Some("FOR") if word(i + 1).as_deref() == Some("UPGRADE") => i += 2,
            _ => return bad(i),
        }
    }
    Some(Ok(names))
}

/// Runs CHECK TABLE.
///
/// # Errors
/// 1046 without a current database for an unqualified name; engine I/O errors.
pub fn execute<E: KvEngine>(s: &mut Session<E>, names: &[CheckName]) -> Result<Output> {
    let mut rows = Vec::new();
    for (db, name) in names {
        let db = match db {
            Some(d) => d.clone(),
            None => s.db.clone().ok_or_else(Error::no_db)?,
        };
        let label = Value::Str(format!("{db}.{name}"));
        let mut push = |ty: &str, msg: String| {
            rows.push(vec![
                label.clone(),
                Value::Str("check".into()),
                Value::Str(ty.into()),
                Value::Str(msg),
            ]);
        };
        s.mdl_lock(&db, name, crate::runtime::mdl::MdlMode::SharedRead)?;
        let Some(t) = s.storage().get_table(&db, name)? else {
            push("Error", format!("Table '{db}.{name}' doesn't exist"));
            push("status", "Operation failed".into());
            continue;
        };
        if t.options.view.is_some() {
            push("status", "OK".into());
            continue;
        }
        let leaves = crate::catalog::partition::all_leaves(s, &t)?;
        let mut problems = Vec::new();
        for (i, leaf) in leaves.iter().enumerate() {
            let rep = s.storage().check_table(leaf)?;
            let prefix = match &leaf.leaf {
                Some(_) if leaves.len() > 1 => format!("Partition #{i}: "),
                _ => String::new(),
            };
            problems.extend(rep.problems.into_iter().map(|p| format!("{prefix}{p}")));
        }
        if leaves.len() > 1 || t.partitioning.is_some() {
            let all: Vec<usize> = (0..leaves.len()).collect();
            let bad = crate::catalog::partition::misplaced_rows(s, &t, &all)?;
            if bad > 0 {
                problems.push(format!("Found {bad} misplaced rows"));
            }
        }
        if problems.is_empty() {
            push("status", "OK".into());
        } else {
            for p in problems {
                push("Warning", p);
            }
            push("error", "Corrupt".into());
        }
    }
    Ok(Output::Rows {
        columns: ["Table", "Op", "Msg_type", "Msg_text"]
            .iter()
            .map(|n| crate::show::show::str_meta(n, 64))
            .collect(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(sql: &str) -> Vec<Token> {
        let (t, _, _) = crate::parse::parser::tokenize(sql).unwrap();
        t.into_iter()
            .map(|t| t.token)
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect()
    }

    #[test]
    fn parses_names_and_options() {
        let n = parse(&toks("CHECK TABLE a, d.b, `c` EXTENDED QUICK"))
            .unwrap()
            .unwrap();
        assert_eq!(
            n,
            vec![
                (None, "a".into()),
                (Some("d".into()), "b".into()),
                (None, "c".into())
            ]
        );
        assert!(parse(&toks("CHECK TABLES t FOR UPGRADE")).unwrap().is_ok());
        assert!(parse(&toks("CHECK TABLE")).unwrap().is_err());
        assert!(parse(&toks("CHECK TABLE t junk")).unwrap().is_err());
        assert!(parse(&toks("SELECT 1")).is_none());
    }
}
