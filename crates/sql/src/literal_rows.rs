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
use sqlparser::tokenizer::{Location, Span, Token, TokenWithSpan, Word};

use crate::parser::{group_end, next_non_ws_idx, Parsed, SqlModeFlags, Stmt};

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

// ---- the text path: the later rows read from the text, without sqlparser's tokenizer ----

/// Statements shorter than this take the token path (a few rows cost sqlparser little).
const MIN_TEXT: usize = 256;

/// Parses a bulk `INSERT` / `REPLACE … VALUES` whose rows after the first hold only plain
/// literals, reading those rows straight from the text: sqlparser's tokenizer walks every
/// character through a peekable iterator with line and column bookkeeping and makes a token of
/// every space and comma, which was ~4 % of iibench's server CPU after [`split`].
///
/// `parse_head` parses the statement up to the end of its first row, as [`split`]'s caller
/// does. The grammar read here is [`split`]'s, narrowed to spellings whose value is the text
/// itself: numbers `digits[.digits][e[±]digits]` (optionally after `-`), quoted strings
/// without a backslash or doubled quote, `NULL`, separated by spaces, tabs and newlines. Any
/// other text (a comment, an escape, a `;` before the end) returns `None`, and the caller
/// takes the token path, as it does when the head is not a one-row `VALUES` insert. The spans
/// are sqlparser's (line and column in characters); the unit tests compare the trees.
pub(crate) fn parse_text(
    sql: &str,
    mode: SqlModeFlags,
    parse_head: impl FnOnce(&str) -> common::Result<Vec<Parsed>>,
) -> Option<Parsed> {
    if sql.len() < MIN_TEXT || sql.contains("/*") {
        return None;
    }
    let end = text_first_row_end(sql.as_bytes())?;
    let head = &sql[..end];
    let line = 1 + head.bytes().filter(|&b| b == b'\n').count() as u64;
    let line_start = head.rfind('\n').map_or(0, |p| p + 1);
    let column = 1 + head[line_start..].chars().count() as u64;
    let (toks, n, width) = text_rows(&sql[end..], Location::new(line, column), mode)?;
    let mut parsed = parse_head(head).ok()?;
    if parsed.len() != 1 {
        return None;
    }
    let mut p = parsed.pop()?;
    let Stmt::Ast(stmt) = &mut p.stmt else {
        return None;
    };
    if !append(stmt, build(toks.into_iter(), n, width)) {
        return None;
    }
    p.sql = sql.to_string();
    Some(p)
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The end of the quoted text opened by `b[i]` (a quote or backquote): backslash escapes
/// (not in backquotes) and doubled quotes, as MySQL reads them.
fn skip_quoted(b: &[u8], i: usize) -> Option<usize> {
    let q = b[i];
    let mut j = i + 1;
    loop {
        let c = *b.get(j)?;
        if c == b'\\' && q != b'`' {
            j += 2;
        } else if c == q {
            if b.get(j + 1) == Some(&q) {
                j += 2;
            } else {
                return Some(j + 1);
            }
        } else {
            j += 1;
        }
    }
}

/// The byte just after the first row of an `INSERT`/`REPLACE … VALUES (…)` (as
/// [`first_row_end`] finds it in tokens); `None` for other statements, and for any comment
/// or `;` on the way.
fn text_first_row_end(b: &[u8]) -> Option<usize> {
    let mut i = b.iter().position(|c| !c.is_ascii_whitespace())?;
    let word_end = |i: usize| i + b[i..].iter().take_while(|&&c| is_ident_byte(c)).count();
    let first = &b[i..word_end(i)];
    if !(first.eq_ignore_ascii_case(b"INSERT") || first.eq_ignore_ascii_case(b"REPLACE")) {
        return None;
    }
    i += first.len();
    let mut depth = 0i32;
    let mut row = false;
    loop {
        let c = *b.get(i)?;
        match c {
            b'\'' | b'"' | b'`' => i = skip_quoted(b, i)?,
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth -= 1;
                i += 1;
                if row && depth == 0 {
                    return Some(i);
                }
            }
            b'#' | b';' => return None,
            b'-' if b.get(i + 1) == Some(&b'-') => return None,
            b'/' if b.get(i + 1) == Some(&b'*') => return None,
            c if is_ident_byte(c) => {
                let e = word_end(i);
                let w = &b[i..e];
                if depth == 0 && !row {
                    if w.eq_ignore_ascii_case(b"VALUES") {
                        let open = e + b[e..]
                            .iter()
                            .take_while(|c| c.is_ascii_whitespace())
                            .count();
                        if b.get(open) != Some(&b'(') {
                            return None;
                        }
                        row = true;
                    } else if [&b"SELECT"[..], b"TABLE", b"WITH", b"SET"]
                        .iter()
                        .any(|k| w.eq_ignore_ascii_case(k))
                    {
                        return None;
                    }
                }
                i = e;
            }
            _ => i += 1,
        }
    }
}

/// Reads `, ( literal, … )` rows (at least [`MIN_ROWS`]) from `tail`, which starts at `at`,
/// as the tokens [`build`] takes; also the number of rows and the first one's width.
fn text_rows(
    tail: &str,
    at: Location,
    mode: SqlModeFlags,
) -> Option<(Vec<TokenWithSpan>, usize, usize)> {
    struct Cursor<'a> {
        b: &'a [u8],
        i: usize,
        line: u64,
        col: u64,
    }
    impl Cursor<'_> {
        fn loc(&self) -> Location {
            Location::new(self.line, self.col)
        }
        /// Skips spaces, tabs and line breaks; the next byte.
        fn skip_ws(&mut self) -> Option<u8> {
            loop {
                let c = *self.b.get(self.i)?;
                match c {
                    b'\n' => {
                        self.line += 1;
                        self.col = 1;
                    }
                    b' ' | b'\t' | b'\r' => self.col += 1,
                    _ => return Some(c),
                }
                self.i += 1;
            }
        }
        /// Advances over `n` ASCII bytes.
        fn ascii(&mut self, n: usize) {
            self.i += n;
            self.col += n as u64;
        }
        fn digits(&mut self) -> usize {
            let n = self.b[self.i..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            self.ascii(n);
            n
        }
        /// A one-byte token.
        fn punct(&mut self, t: Token) -> TokenWithSpan {
            let start = self.loc();
            self.ascii(1);
            TokenWithSpan::new(t, Span::new(start, self.loc()))
        }
    }
    let ends_value = |c: Option<&u8>| matches!(c, Some(b' ' | b'\t' | b'\r' | b'\n' | b',' | b')'));
    let mut c = Cursor {
        b: tail.as_bytes(),
        i: 0,
        line: at.line,
        col: at.column,
    };
    let mut toks = Vec::with_capacity(tail.len() / 4);
    let (mut rows, mut width) = (0, 0);
    loop {
        match c.skip_ws() {
            None => break,
            Some(b';') => {
                c.ascii(1);
                match c.skip_ws() {
                    None => break,
                    Some(_) => return None,
                }
            }
            Some(b',') => c.ascii(1),
            Some(_) => return None,
        }
        if c.skip_ws()? != b'(' {
            return None;
        }
        toks.push(c.punct(Token::LParen));
        let mut values = 0;
        loop {
            let mut first = c.skip_ws()?;
            if first == b'-' {
                c.ascii(1);
                toks.push(TokenWithSpan::wrap(Token::Minus));
                first = c.skip_ws()?;
                if !first.is_ascii_digit() {
                    return None;
                }
            }
            let start = c.loc();
            let from = c.i;
            let token = match first {
                b'0'..=b'9' => {
                    c.digits();
                    if c.b.get(c.i) == Some(&b'.') {
                        c.ascii(1);
                        if c.digits() == 0 {
                            return None;
                        }
                    }
                    if matches!(c.b.get(c.i), Some(b'e' | b'E')) {
                        c.ascii(1);
                        if matches!(c.b.get(c.i), Some(b'+' | b'-')) {
                            c.ascii(1);
                        }
                        if c.digits() == 0 {
                            return None;
                        }
                    }
                    Token::Number(tail[from..c.i].to_string(), false)
                }
                b'\'' | b'"' => {
                    if first == b'"' && mode.ansi_quotes {
                        return None;
                    }
                    let len = c.b[c.i + 1..]
                        .iter()
                        .position(|&x| x == first || x == b'\\')?;
                    let close = c.i + 1 + len;
                    if c.b[close] == b'\\' || c.b.get(close + 1) == Some(&first) {
                        return None;
                    }
                    let text = &tail[c.i + 1..close];
                    c.ascii(1);
                    match text.rfind('\n') {
                        None => c.col += text.chars().count() as u64,
                        Some(nl) => {
                            c.line += text.bytes().filter(|&x| x == b'\n').count() as u64;
                            c.col = 1 + text[nl + 1..].chars().count() as u64;
                        }
                    }
                    c.i = close;
                    c.ascii(1);
                    if first == b'\'' {
                        Token::SingleQuotedString(text.to_string())
                    } else {
                        Token::DoubleQuotedString(text.to_string())
                    }
                }
                b'n' | b'N'
                    if c.b
                        .get(c.i..c.i + 4)
                        .is_some_and(|w| w.eq_ignore_ascii_case(b"NULL")) =>
                {
                    c.ascii(4);
                    Token::Word(Word {
                        value: tail[from..c.i].to_string(),
                        quote_style: None,
                        keyword: Keyword::NULL,
                    })
                }
                _ => return None,
            };
            if !ends_value(c.b.get(c.i)) {
                return None;
            }
            toks.push(TokenWithSpan::new(token, Span::new(start, c.loc())));
            values += 1;
            match c.skip_ws()? {
                b',' => c.ascii(1),
                b')' => {
                    toks.push(c.punct(Token::RParen));
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
    (rows >= MIN_ROWS).then_some((toks, rows, width))
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

    /// The statement through the text path (None when it declines).
    fn text_path(sql: &str, mode: SqlModeFlags) -> Option<Statement> {
        parse_text(sql, mode, |h| crate::parser::parse_tokenized(h, mode)).map(|p| {
            assert_eq!(p.sql, sql);
            match p.stmt {
                Stmt::Ast(s) => s,
                _ => panic!("{sql}"),
            }
        })
    }

    /// The statement through the text path, and parsed whole.
    fn text_and_whole(sql: &str, mode: SqlModeFlags) -> (Option<Statement>, Statement) {
        let (toks, _, _) = crate::parser::tokenize_with(sql, mode).unwrap();
        let whole = parse_tokens_with(toks, &String::new).unwrap();
        (text_path(sql, mode), whole)
    }

    /// `rows` copies of `row` after `head`'s first row, enough for the text path's minimum.
    fn bulk(head: &str, row: &str, rows: usize) -> String {
        let mut sql = head.to_string();
        for _ in 0..rows {
            sql.push_str(row);
        }
        sql
    }

    #[test]
    fn text_path_makes_the_tree_sqlparser_makes() {
        let mode = SqlModeFlags::default();
        for sql in [
            bulk("INSERT INTO t VALUES (1, 'a')", ", (2, 'b')", 40),
            bulk(
                "insert into d.t (a, b, c)\n  values (-1, \"x\", NULL)",
                ",\n(- 2.5e3,'ü€ snow\n☃', null), (0.5, '', -7E+2)\t",
                20,
            ),
            bulk("REPLACE t VALUES (1 + 1)", ",(2),(3)", 60) + ";  \n",
            bulk(
                "INSERT INTO `t``x` (`a(`) VALUES ('(', \"'\")",
                ", ('b', 'c')",
                30,
            ),
            bulk(
                "INSERT INTO t VALUES ('it''s a\\'b', ?)",
                ", (1, 18446744073709551615)",
                30,
            ),
        ] {
            let (fast, whole) = text_and_whole(&sql, mode);
            let fast = fast.unwrap_or_else(|| panic!("not taken: {sql}"));
            assert_eq!(format!("{fast:?}"), format!("{whole:?}"), "{sql}");
        }
    }

    #[test]
    fn text_path_leaves_the_rest_to_the_tokens() {
        let mode = SqlModeFlags::default();
        let ansi = SqlModeFlags {
            ansi_quotes: true,
            ..Default::default()
        };
        for (sql, mode) in [
            ("INSERT INTO t VALUES (1), (2), (3)".to_string(), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (2) /* c */", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (2) -- c\n", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (2) # c\n", 40), mode),
            (bulk("INSERT INTO t VALUES ('a')", ", ('it''s')", 40), mode),
            (bulk("INSERT INTO t VALUES ('a')", ", ('a\\nb')", 40), mode),
            (bulk("INSERT INTO t VALUES ('a')", ", (\"b\")", 40), ansi),
            (bulk("INSERT INTO t VALUES (1)", ", (1.)", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (.5)", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (1e)", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (0x1F)", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (1a)", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (--1)", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (nullx)", 40), mode),
            (bulk("INSERT INTO t VALUES (1)", ", (1 + 1)", 40), mode),
            (bulk("INSERT INTO t VALUES ('a')", ", ('a' 'b')", 40), mode),
            (
                bulk("INSERT INTO t VALUES (1)", ", (2)", 40) + "; SELECT 1",
                mode,
            ),
            (
                bulk("INSERT INTO t VALUES (1)", ", (2)", 40) + " ON DUPLICATE KEY UPDATE a = 1",
                mode,
            ),
            (
                bulk("SELECT 1; INSERT INTO t VALUES (1)", ", (2)", 40),
                mode,
            ),
            (
                bulk("INSERT INTO t SELECT * FROM (VALUES (1)", ", (2)", 40) + ") v",
                mode,
            ),
            (bulk("INSERT INTO t SET a = (1)", ", (2)", 40), mode),
            (bulk("UPDATE t SET a = (1)", ", (2)", 40), mode),
        ] {
            assert!(text_path(&sql, mode).is_none(), "{sql}");
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
        let taken = generated(&atoms, &gaps, 0x9e37_79b9_7f4a_7c15);
        // the spellings the text path reads, with line breaks inside strings
        let atoms = [
            "0", "-1", "- 7", "42", "3.25", "-0.5", "1e10", "1.5E-3", "'x'", "''", "'a\nb'",
            "\"dq\"", "'ü€'", "NULL", "null", "-12.5e+3",
        ];
        let gaps = ["", " ", "\n", "\r\n", "\t"];
        let taken = taken + generated(&atoms, &gaps, 0x2545_f491_4f6c_dd1d);
        assert!(taken > 100, "the text path took {taken} of 600");
    }

    /// 300 statements of rows of `atoms` with `gaps` between tokens: each parsed whole, through
    /// [`split`] and through the text path when it takes it; how often it did.
    fn generated(atoms: &[&str], gaps: &[&str], seed: u64) -> usize {
        let mut seed = seed;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut text = 0;
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
            let (fast, whole) = text_and_whole(&sql, SqlModeFlags::default());
            if let Some(fast) = fast {
                assert_eq!(format!("{fast:?}"), format!("{whole:?}"), "{sql}");
                text += 1;
            }
        }
        text
    }
}
