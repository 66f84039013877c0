//! Table maintenance statements, which name a list of tables (sqlparser reads one at most):
//! `CHECK TABLE t [, t ...] [FOR UPGRADE | QUICK | FAST | MEDIUM | EXTENDED | CHANGED]`,
//! `ANALYZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, t ...]` and
//! `OPTIMIZE [NO_WRITE_TO_BINLOG | LOCAL] TABLE t [, t ...]` (`TABLES` too) and
//! `CHECKSUM TABLE t [, t ...] [QUICK | EXTENDED]`. `mariadb-check`
//! sends one statement for all the tables of a database.

use common::{Error, Result};
use sqlparser::tokenizer::Token;

/// A table named by a maintenance statement: (database, table); database `None` = the current
/// one.
pub type TableName = (Option<String>, String);

/// Which maintenance statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaintOp {
    /// CHECK TABLE.
    Check,
    /// ANALYZE TABLE.
    Analyze,
    /// OPTIMIZE TABLE.
    Optimize,
    /// CHECKSUM TABLE.
    Checksum,
}

impl MaintOp {
    /// The `Op` column of the statement's result (`check`, `analyze`, `optimize`).
    pub fn name(self) -> &'static str {
        match self {
            MaintOp::Check => "check",
            MaintOp::Analyze => "analyze",
            MaintOp::Optimize => "optimize",
            MaintOp::Checksum => "checksum",
        }
    }
}

/// A parsed maintenance statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Maintenance {
    /// The statement.
    pub op: MaintOp,
    /// The tables, in statement order.
    pub tables: Vec<TableName>,
    /// CHECKSUM TABLE … QUICK.
    pub quick: bool,
}

/// Parses the tokens of a statement (whitespace removed); `None` when it is not one of the
/// maintenance statements this module reads (ANALYZE TABLE … UPDATE / DROP HISTOGRAM is left
/// to the general parser).
pub fn parse(plain: &[Token]) -> Option<Result<Maintenance>> {
    let word = |i: usize| match plain.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let op = match word(0).as_deref() {
        Some("CHECK") => MaintOp::Check,
        Some("ANALYZE") => MaintOp::Analyze,
        Some("OPTIMIZE") => MaintOp::Optimize,
        Some("CHECKSUM") => MaintOp::Checksum,
        _ => return None,
    };
    let mut i = 1;
    if matches!(op, MaintOp::Analyze | MaintOp::Optimize)
        && matches!(word(i).as_deref(), Some("NO_WRITE_TO_BINLOG" | "LOCAL"))
    {
        i += 1;
    }
    if !matches!(word(i).as_deref(), Some("TABLE" | "TABLES")) {
        return None;
    }
    i += 1;
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
    let mut tables = Vec::new();
    loop {
        let Some(first) = ident(i) else { return bad(i) };
        i += 1;
        if plain.get(i) == Some(&Token::Period) {
            let Some(second) = ident(i + 1) else {
                return bad(i + 1);
            };
            tables.push((Some(first), second));
            i += 2;
        } else {
            tables.push((None, first));
        }
        if plain.get(i) == Some(&Token::Comma) {
            i += 1;
            continue;
        }
        break;
    }
    let quick = op == MaintOp::Checksum && word(i).as_deref() == Some("QUICK");
    while i < plain.len() {
        match (op, word(i).as_deref()) {
            (MaintOp::Check, Some("QUICK" | "FAST" | "MEDIUM" | "EXTENDED" | "CHANGED")) => i += 1,
            (MaintOp::Check, Some("FOR")) if word(i + 1).as_deref() == Some("UPGRADE") => i += 2,
            (MaintOp::Checksum, Some("QUICK" | "EXTENDED")) if i + 1 == plain.len() => i += 1,
            // histogram statements: the general parser's (and its error)
            (MaintOp::Analyze, Some("UPDATE" | "DROP")) => return None,
            _ => return bad(i),
        }
    }
    Some(Ok(Maintenance { op, tables, quick }))
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
        let m = parse(&toks("CHECK TABLE a, d.b, `c` EXTENDED QUICK"))
            .unwrap()
            .unwrap();
        assert_eq!(m.op, MaintOp::Check);
        assert_eq!(
            m.tables,
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
        let m = parse(&toks("ANALYZE NO_WRITE_TO_BINLOG TABLE `d`.`a`, b"))
            .unwrap()
            .unwrap();
        assert_eq!(m.op, MaintOp::Analyze);
        assert_eq!(
            m.tables,
            vec![(Some("d".into()), "a".into()), (None, "b".into())]
        );
        let m = parse(&toks("OPTIMIZE LOCAL TABLES a, b")).unwrap().unwrap();
        assert_eq!((m.op, m.tables.len()), (MaintOp::Optimize, 2));
        assert!(parse(&toks("ANALYZE TABLE t UPDATE HISTOGRAM ON c")).is_none());
        assert!(parse(&toks("ANALYZE TABLE t EXTENDED")).unwrap().is_err());
        assert!(parse(&toks("OPTIMIZE t")).is_none());
        let m = parse(&toks("CHECKSUM TABLE a, d.b EXTENDED"))
            .unwrap()
            .unwrap();
        assert_eq!((m.op, m.tables.len()), (MaintOp::Checksum, 2));
        assert!(parse(&toks("CHECKSUM TABLE a QUICK EXTENDED"))
            .unwrap()
            .is_err());
    }
}
