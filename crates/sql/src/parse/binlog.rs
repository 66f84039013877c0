//! The binary log's administration statements: `FLUSH BINARY LOGS`,
//! `PURGE {BINARY | MASTER} LOGS {TO 'file' | BEFORE 'datetime'}` and
//! `RESET BINARY LOGS AND GTIDS` (and its 8.0 name `RESET MASTER`). The SHOW statements of the
//! binary log are read with the other SHOW statements.

use common::{Error, Result};
use sqlparser::tokenizer::Token;

/// A parsed binary-log statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BinlogStmt {
    /// FLUSH [NO_WRITE_TO_BINLOG | LOCAL] BINARY LOGS.
    Flush,
    /// PURGE BINARY LOGS TO 'file'.
    PurgeTo(String),
    /// PURGE BINARY LOGS BEFORE 'datetime' (the text of the date-time).
    PurgeBefore(String),
    /// RESET BINARY LOGS AND GTIDS / RESET MASTER.
    Reset,
}

/// Parses the tokens of a statement (whitespace removed); `None` when it is not one of these.
pub fn parse(plain: &[Token]) -> Option<Result<BinlogStmt>> {
    let word = |i: usize| match plain.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let words: Vec<Option<String>> = (0..plain.len()).map(word).collect();
    let is = |i: usize, w: &str| words.get(i).and_then(|x| x.as_deref()) == Some(w);
    let end = |i: usize, stmt: BinlogStmt| {
        if i == plain.len() {
            Some(Ok(stmt))
        } else {
            Some(Err(Error::parse(plain[i].to_string())))
        }
    };
    if is(0, "FLUSH") {
        let i = if is(1, "NO_WRITE_TO_BINLOG") || is(1, "LOCAL") {
            2
        } else {
            1
        };
        return (is(i, "BINARY") && is(i + 1, "LOGS"))
            .then(|| end(i + 2, BinlogStmt::Flush).expect("some"));
    }
    if is(0, "PURGE") {
        if !(is(1, "BINARY") || is(1, "MASTER")) || !is(2, "LOGS") {
            return Some(Err(Error::parse(
                plain.get(1).map(|t| t.to_string()).unwrap_or_default(),
            )));
        }
        let text = match plain.get(4) {
            Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => s.clone(),
            other => {
                return Some(Err(Error::parse(
                    other.map(|t| t.to_string()).unwrap_or_default(),
                )))
            }
        };
        return match words.get(3).and_then(|w| w.as_deref()) {
            Some("TO") => end(5, BinlogStmt::PurgeTo(text)),
            Some("BEFORE") => end(5, BinlogStmt::PurgeBefore(text)),
            _ => Some(Err(Error::parse(plain[3.min(plain.len() - 1)].to_string()))),
        };
    }
    if is(0, "RESET") {
        if is(1, "MASTER") {
            return end(2, BinlogStmt::Reset);
        }
        if is(1, "BINARY") && is(2, "LOGS") && is(3, "AND") && is(4, "GTIDS") {
            return end(5, BinlogStmt::Reset);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(sql: &str) -> Option<Result<BinlogStmt>> {
        let (t, _, _) = crate::parse::parser::tokenize(sql).unwrap();
        let plain: Vec<Token> = t
            .into_iter()
            .map(|t| t.token)
            .filter(|t| !matches!(t, Token::Whitespace(_)))
            .collect();
        parse(&plain)
    }

    #[test]
    fn reads_the_statements_and_leaves_others() {
        assert_eq!(p("FLUSH BINARY LOGS").unwrap().unwrap(), BinlogStmt::Flush);
        assert_eq!(
            p("flush local binary logs").unwrap().unwrap(),
            BinlogStmt::Flush
        );
        assert!(p("FLUSH TABLES").is_none());
        assert_eq!(
            p("PURGE BINARY LOGS TO 'binlog.000003'").unwrap().unwrap(),
            BinlogStmt::PurgeTo("binlog.000003".into())
        );
        assert_eq!(
            p("PURGE MASTER LOGS BEFORE '2026-01-01 00:00:00'")
                .unwrap()
                .unwrap(),
            BinlogStmt::PurgeBefore("2026-01-01 00:00:00".into())
        );
        assert!(p("PURGE BINARY LOGS TO").unwrap().is_err());
        assert!(p("PURGE LOGS TO 'x'").unwrap().is_err());
        assert_eq!(p("RESET MASTER").unwrap().unwrap(), BinlogStmt::Reset);
        assert_eq!(
            p("RESET BINARY LOGS AND GTIDS").unwrap().unwrap(),
            BinlogStmt::Reset
        );
        assert!(p("RESET MASTER now").unwrap().is_err());
        assert!(p("RESET QUERY CACHE").is_none());
    }
}
