//! Multi-row `INSERT` / `REPLACE … VALUES` whose rows hold only plain literals: the rows after
//! the first are built straight from their tokens instead of through sqlparser's expression
//! parser.
//!
//! **Why by hand.** sqlparser parses every value of every row as a full expression: it clones
//! each token out of its buffer, goes through the Pratt parser's prefix and infix steps and
//! moves the (large) `Expr` through several returns. Under iibench's 100-row INSERTs that was
//! ~6 % of the server's CPU (perf), for rows that are only numbers, strings and NULLs — the
//! shape of bulk loads and of `mysqldump` output.
//!
//! **What it builds is what sqlparser builds.** The statement up to the end of its first row is
//! parsed by sqlparser as before (table, columns, modifiers, the first row's expressions);
//! [`split`] takes the rest only when it is `, ( literal, … )` repeated to the end of the
//! statement, where a literal is a number (optionally after `-`), a single- or double-quoted
//! string, or `NULL`. Anything else (an expression, a placeholder, two adjacent strings that
//! MySQL concatenates, `ON DUPLICATE KEY UPDATE`, `ROW(…)`) leaves the tokens alone. Each
//! literal becomes the `Expr` sqlparser makes of it, with the same spans; the unit tests compare
//! the two trees (`Debug`, spans included) over fixed and generated statements.

use sqlparser::ast::{Expr, Parens, SetExpr, Statement, UnaryOperator, Value};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use crate::parser::{group_end, next_non_ws_idx};

/// Rows after the first worth taking this way (fewer cost sqlparser next to nothing).
const MIN_ROWS: usize = 2;

/// Rows of literals, as sqlparser's `Values` holds them.
pub type Rows = Vec<Parens<Vec<Expr>>>;

fn is_null(t: &Token) -> bool {
    matches!(t, Token::Word(w) if w.quote_style.is_none() && w.keyword == Keyword::NULL)
}

fn is_literal(t: &Token) -> bool {
    is_null(t)
        || matches!(
            t,
            Token::Number(..) | Token::SingleQuotedString(_) | Token::DoubleQuotedString(_)
        )
}

/// Where the statement's first row ends (the index of its `)`), if it is an `INSERT` or
/// `REPLACE` with `VALUES` at the top level and no `SELECT` before it.
fn first_row_end(toks: &[TokenWithSpan]) -> Option<usize> {
    let first = next_non_ws_idx(toks, 0)?;
    if !matches!(&toks[first].token, Token::Word(w)
        if w.quote_style.is_none() && matches!(w.keyword, Keyword::INSERT | Keyword::REPLACE))
    {
        return None;
    }
    let mut depth = 0i32;
    let mut i = first + 1;
    let values = loop {
        match &toks.get(i)?.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Word(w) if w.quote_style.is_none() && depth == 0 => match w.keyword {
                Keyword::VALUES => break i,
                Keyword::SELECT | Keyword::TABLE | Keyword::WITH | Keyword::SET => return None,
                _ => {}
            },
            _ => {}
        }
        i += 1;
    };
    let open = next_non_ws_idx(toks, values + 1)?;
    if toks[open].token != Token::LParen {
        return None;
    }
    group_end(toks, open)
}

/// When the tokens from `i` on are at least [`MIN_ROWS`] of `, ( literal, … )`, then nothing:
/// the number of rows and of values in the first of them (the buffers' sizes).
fn only_literal_rows(toks: &[TokenWithSpan], mut i: usize) -> Option<(usize, usize)> {
    let (mut rows, mut width) = (0, 0);
    loop {
        let Some(comma) = next_non_ws_idx(toks, i) else {
            return (rows >= MIN_ROWS).then_some((rows, width));
        };
        if toks[comma].token != Token::Comma {
            return None;
        }
        match next_non_ws_idx(toks, comma + 1) {
            Some(open) if toks[open].token == Token::LParen => i = open + 1,
            _ => return None,
        }
        let mut values = 0;
        loop {
            let mut v = next_non_ws_idx(toks, i)?;
            if toks[v].token == Token::Minus {
                match next_non_ws_idx(toks, v + 1) {
                    Some(n) if matches!(toks[n].token, Token::Number(..)) => v = n,
                    _ => return None,
                }
            } else if !is_literal(&toks[v].token) {
                return None;
            }
            values += 1;
            match next_non_ws_idx(toks, v + 1).map(|s| (s, &toks[s].token)) {
                Some((s, Token::Comma)) => i = s + 1,
                Some((s, Token::RParen)) => {
                    i = s + 1;
                    break;
                }
                _ => return None,
            }
        }
        if rows == 0 {
            width = values;
        }
        rows += 1;
    }
}

/// The `Expr` sqlparser makes of a literal token (see [`is_literal`]).
fn literal(t: TokenWithSpan) -> Expr {
    let span = t.span;
    let v = match t.token {
        Token::Number(n, long) => Value::Number(n, long),
        Token::SingleQuotedString(s) => Value::SingleQuotedString(s),
        Token::DoubleQuotedString(s) => Value::DoubleQuotedString(s),
        _ => Value::Null,
    };
    Expr::Value(v.with_span(span))
}

/// Builds the rows of tokens [`only_literal_rows`] accepted (`n` rows, the first `width` wide).
fn build(tail: impl Iterator<Item = TokenWithSpan>, n: usize, width: usize) -> Rows {
    let mut rows = Rows::with_capacity(n);
    let mut open = None;
    let mut row = Vec::with_capacity(width);
    let mut negate = false;
    for t in tail {
        match t.token {
            Token::Whitespace(_) | Token::Comma => {}
            Token::LParen => open = Some(t),
            Token::RParen => rows.push(Parens {
                opening_token: open.take().expect("validated: ( before )").into(),
                content: std::mem::replace(&mut row, Vec::with_capacity(width)),
                closing_token: t.into(),
            }),
            Token::Minus => negate = true,
            _ => {
                let e = literal(t);
                row.push(if std::mem::take(&mut negate) {
                    Expr::UnaryOp {
                        op: UnaryOperator::Minus,
                        expr: Box::new(e),
                    }
                } else {
                    e
                });
            }
        }
    }
    rows
}

/// Takes the rows after the first off an `INSERT`/`REPLACE … VALUES` whose later rows hold only
/// literals (see the module docs); `toks` keeps the statement up to the end of its first row,
/// for sqlparser. `None` (tokens untouched) for any other statement.
pub fn split(toks: &mut Vec<TokenWithSpan>) -> Option<Rows> {
    let end = first_row_end(toks)?;
    let (n, width) = only_literal_rows(toks, end + 1)?;
    Some(build(toks.drain(end + 1..), n, width))
}

/// Appends `rows` to the `VALUES` of the statement sqlparser made of [`split`]'s head; false
/// (statement untouched) when it is not a one-row `VALUES` insert.
pub fn append(stmt: &mut Statement, rows: Rows) -> bool {
    let Statement::Insert(ins) = stmt else {
        return false;
    };
    let Some(SetExpr::Values(v)) = ins.source.as_mut().map(|q| q.body.as_mut()) else {
        return false;
    };
    if v.explicit_row || v.rows.len() != 1 {
        return false;
    }
    v.rows.extend(rows);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::{parse_tokens_with, tokenize};

    /// The statement parsed whole by sqlparser, and through [`split`] when it applies.
    fn both(sql: &str) -> (Statement, Option<Statement>) {
        let (toks, _, _) = tokenize(sql).unwrap();
        let whole = parse_tokens_with(toks.clone(), &String::new).unwrap();
        let mut head = toks;
        let fast = split(&mut head).map(|rows| {
            let mut s = parse_tokens_with(head, &String::new).unwrap();
            assert!(append(&mut s, rows), "{sql}");
            s
        });
        (whole, fast)
    }

    fn same_tree(sql: &str) {
        let (whole, fast) = both(sql);
        let fast = fast.unwrap_or_else(|| panic!("not taken: {sql}"));
        assert_eq!(format!("{fast:?}"), format!("{whole:?}"), "{sql}");
        assert_eq!(fast.to_string(), whole.to_string());
    }

    #[test]
    fn literal_rows_make_the_tree_sqlparser_makes() {
        for sql in [
            "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)",
            "insert into d.t (a, b) values (-1, \"x\"),(- 2.5e3,'it''s'), (0.5, 'a\\'b'),(null, '')",
            "REPLACE t VALUES (1), (2), (3)",
            "INSERT IGNORE INTO `t` (`a`) VALUES (1 + 1), (2), (-3)",
            "INSERT INTO t VALUES (now(), 1), (1, 2), (3, 4) ",
            "INSERT INTO t VALUES (1),\n (2) /* c */, -- x\n (3)",
            "INSERT INTO t PARTITION (p0) VALUES (1, 'x'), (2, 'y'), (3, 'z')",
            "INSERT INTO t VALUES ((1), 2), (3, 4), (5, 6)",
        ] {
            same_tree(sql);
        }
    }

    #[test]
    fn anything_but_literal_rows_is_left_to_sqlparser() {
        for sql in [
            "INSERT INTO t VALUES (1), (2)",
            "INSERT INTO t VALUES (1), (2), (3) ON DUPLICATE KEY UPDATE a = 1",
            "INSERT INTO t VALUES (1), (2), (1 + 2)",
            "INSERT INTO t VALUES (1), (2), ('a' 'b')",
            "INSERT INTO t VALUES (1), (2), (?)",
            "INSERT INTO t VALUES (1), (2), (x'41')",
            "INSERT INTO t VALUES (1), (2), (DEFAULT)",
            "INSERT INTO t VALUES (1), (2), ()",
            "INSERT INTO t VALUES (1), (2), (--1)",
            "INSERT INTO t VALUES ROW(1), ROW(2), ROW(3)",
            "INSERT INTO t SELECT * FROM (VALUES (1), (2), (3)) AS v",
            "INSERT INTO t SET a = 1",
            "SELECT 1",
            "UPDATE t SET a = 1",
        ] {
            let (toks, _, _) = tokenize(sql).unwrap();
            let mut head = toks.clone();
            assert!(split(&mut head).is_none(), "{sql}");
            assert_eq!(head.len(), toks.len(), "{sql}");
        }
    }

    /// Generated statements: every value drawn from a list of literal spellings (with
    /// whitespace and comments between tokens), parsed both ways.
    #[test]
    fn generated_literal_rows_make_the_same_tree() {
        let atoms = [
            "0",
            "-1",
            "- 7",
            "42",
            "3.25",
            "-0.5",
            "1e10",
            "1.5E-3",
            ".5",
            "18446744073709551615",
            "'x'",
            "''",
            "'it''s'",
            "'a\\nb'",
            "'\\\\'",
            "\"dq\"",
            "'ü€'",
            "NULL",
            "null",
        ];
        let gaps = ["", " ", "\n", " /* c */ ", "\t"];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..300 {
            let cols = 1 + next(5);
            let rows = 3 + next(20);
            let mut sql = String::from("INSERT INTO t VALUES ");
            for r in 0..rows {
                if r > 0 {
                    sql.push(',');
                    sql.push_str(gaps[next(gaps.len())]);
                }
                sql.push('(');
                for c in 0..cols {
                    if c > 0 {
                        sql.push(',');
                    }
                    sql.push_str(gaps[next(gaps.len())]);
                    sql.push_str(atoms[next(atoms.len())]);
                }
                sql.push(')');
            }
            same_tree(&sql);
        }
    }
}
