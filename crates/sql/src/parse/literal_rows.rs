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

use crate::parse::parser::group_end;
use crate::parse::parser::next_non_ws_idx;
use crate::parse::parser::Parsed;
use crate::parse::parser::SqlModeFlags;
use crate::parse::parser::Stmt;

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
    let (open, end) = text_first_row(sql.as_bytes())?;
    let head = &sql[..end];
    let at_end = location_at(sql, end);
    // literal rows, else rows of the first row's shape (read before the head is parsed, so
    // that a statement neither path takes costs no parse)
    let literal = text_rows(&sql[end..], at_end, mode);
    let shaped = match literal {
        Some(_) => None,
        None => Some(shaped_rows(sql, open, end, mode)?),
    };
    let mut parsed = parse_head(head).ok()?;
    if parsed.len() != 1 {
        return None;
    }
    let mut p = parsed.pop()?;
    let Stmt::Ast(stmt) = &mut p.stmt else {
        return None;
    };
    let rows = match (literal, shaped) {
        (Some((toks, n, width)), _) => build(toks.into_iter(), n, width),
        (None, Some(shaped)) => shaped.build(first_row(stmt)?)?,
        (None, None) => return None,
    };
    if !append(stmt, rows) {
        return None;
    }
    p.sql = sql.to_string();
    Some(p)
}

/// sqlparser's location of byte `at` of `sql` (line and column from 1, columns in characters).
fn location_at(sql: &str, at: usize) -> Location {
    let head = &sql[..at];
    let line = 1 + head.bytes().filter(|&b| b == b'\n').count() as u64;
    let line_start = head.rfind('\n').map_or(0, |p| p + 1);
    Location::new(line, 1 + head[line_start..].chars().count() as u64)
}

/// The `VALUES` expressions of the one-row insert sqlparser made of the head.
fn first_row(stmt: &Statement) -> Option<&[Expr]> {
    let Statement::Insert(ins) = stmt else {
        return None;
    };
    match ins.source.as_deref().map(|q| q.body.as_ref()) {
        Some(SetExpr::Values(v)) if !v.explicit_row && v.rows.len() == 1 => Some(&v.rows[0]),
        _ => None,
    }
}

/// Rows after the first whose text is the first row's with other literals: bulk INSERTs whose
/// rows call functions (`(UUID_TO_BIN(UUID()), NOW(), 'x', 3)`), which [`text_rows`] does not
/// take. Each later row is the first row's expressions, as sqlparser parsed them, with the
/// row's own literals put in: a copy of a tree instead of a tokenization and a parse per row
/// (which were more than half of the server's CPU under the uuid benchmark's 1000-row INSERTs).
/// The rows are read by [`crate::stmt_cache`]'s scanner, which declines anything it might read
/// otherwise than sqlparser, and a row is taken only when its key (its text with literals
/// marked) is the first row's; the first row's literal nodes must be exactly the scanned ones
/// (values and spans) and it must hold no subquery. Spans of the later rows' nodes other than
/// their literals are the first row's (see `stmt_cache` on spans: an INSERT reads none).
struct ShapedRows {
    first: Vec<crate::parse::stmt_cache::Lit>,
    /// Per later row: its `(` and `)` locations and its literals.
    later: Vec<(Location, Location, Vec<crate::parse::stmt_cache::Lit>)>,
}

/// Reads the rows of a `VALUES` list whose first row is `sql[open..end]` (see [`ShapedRows`]).
fn shaped_rows(sql: &str, open: usize, end: usize, mode: SqlModeFlags) -> Option<ShapedRows> {
    use crate::parse::stmt_cache::advance;
    use crate::parse::stmt_cache::scan_group;
    let b = sql.as_bytes();
    let mut at = location_at(sql, open);
    let (key, first, e) = scan_group(sql, open, at, mode)?;
    if e != end {
        return None;
    }
    advance(&mut at, &b[open..end]);
    let mut later = Vec::new();
    let mut i = end;
    let skip_ws = |i: &mut usize, at: &mut Location| {
        let n = b[*i..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
            .count();
        advance(at, &b[*i..*i + n]);
        *i += n;
    };
    loop {
        skip_ws(&mut i, &mut at);
        match b.get(i) {
            None => break,
            Some(b',') => {}
            Some(b';') => {
                i += 1;
                skip_ws(&mut i, &mut at);
                if i == b.len() {
                    break;
                }
                return None;
            }
            Some(_) => return None,
        }
        i += 1;
        advance(&mut at, b",");
        skip_ws(&mut i, &mut at);
        let (k, lits, e) = scan_group(sql, i, at, mode)?;
        if k != key {
            return None;
        }
        let lo = at;
        advance(&mut at, &b[i..e - 1]);
        later.push((lo, at, lits));
        advance(&mut at, b")");
        i = e;
    }
    (later.len() >= MIN_ROWS).then_some(ShapedRows { first, later })
}

impl ShapedRows {
    /// The later rows, from the first row's expressions (`None` when they are not the shape
    /// the scan read).
    fn build(self, first: &[Expr]) -> Option<Rows> {
        if !crate::parse::stmt_cache::literals_match(first, &self.first) {
            return None;
        }
        let paren = |t: Token, at: Location| {
            TokenWithSpan::new(t, Span::new(at, Location::new(at.line, at.column + 1))).into()
        };
        Some(
            self.later
                .into_iter()
                .map(|(lo, hi, lits)| {
                    let mut content = first.to_vec();
                    crate::parse::stmt_cache::set_expr_literals(&mut content, lits);
                    Parens {
                        opening_token: paren(Token::LParen, lo),
                        content,
                        closing_token: paren(Token::RParen, hi),
                    }
                })
                .collect(),
        )
    }
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

/// The first row of an `INSERT`/`REPLACE … VALUES (…)` (as [`first_row_end`] finds it in
/// tokens): the byte of its `(` and the byte just after its `)`; `None` for other statements,
/// and for any comment or `;` on the way.
fn text_first_row(b: &[u8]) -> Option<(usize, usize)> {
    let mut i = b.iter().position(|c| !c.is_ascii_whitespace())?;
    let word_end = |i: usize| i + b[i..].iter().take_while(|&&c| is_ident_byte(c)).count();
    let first = &b[i..word_end(i)];
    if !(first.eq_ignore_ascii_case(b"INSERT") || first.eq_ignore_ascii_case(b"REPLACE")) {
        return None;
    }
    i += first.len();
    let mut depth = 0i32;
    let mut row = None;
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
                if let (Some(open), 0) = (row, depth) {
                    return Some((open, i));
                }
            }
            b'#' | b';' => return None,
            b'-' if b.get(i + 1) == Some(&b'-') => return None,
            b'/' if b.get(i + 1) == Some(&b'*') => return None,
            c if is_ident_byte(c) => {
                let e = word_end(i);
                let w = &b[i..e];
                if depth == 0 && row.is_none() {
                    if w.eq_ignore_ascii_case(b"VALUES") {
                        let open = e + b[e..]
                            .iter()
                            .take_while(|c| c.is_ascii_whitespace())
                            .count();
                        if b.get(open) != Some(&b'(') {
                            return None;
                        }
                        row = Some(open);
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
    use crate::parse::parser::parse_tokens_with;
    use crate::parse::parser::tokenize;

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
        parse_text(sql, mode, |h| {
            crate::parse::parser::parse_tokenized(h, mode)
        })
        .map(|p| {
            assert_eq!(p.sql, sql);
            match p.stmt {
                Stmt::Ast(s) => s,
                _ => panic!("{sql}"),
            }
        })
    }

    /// The statement through the text path, and parsed whole.
    fn text_and_whole(sql: &str, mode: SqlModeFlags) -> (Option<Statement>, Statement) {
        let (toks, _, _) = crate::parse::parser::tokenize_with(sql, mode).unwrap();
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

    /// Rows of one shape with other literals: the tree is sqlparser's but for the spans of the
    /// later rows' nodes other than literals; every literal has sqlparser's value and span.
    fn assert_shaped_like_whole(sql: &str, mode: SqlModeFlags) {
        use crate::parse::stmt_cache::literal_slots;
        use crate::parse::stmt_cache::without_spans;
        let (text, whole) = text_and_whole(sql, mode);
        let text = text.unwrap_or_else(|| panic!("text path declined {sql}"));
        assert_eq!(
            without_spans(&format!("{text:?}")),
            without_spans(&format!("{whole:?}")),
            "{sql}"
        );
        assert_eq!(literal_slots(&text), literal_slots(&whole), "{sql}");
    }

    #[test]
    fn shaped_rows_make_the_tree_sqlparser_makes() {
        let mode = SqlModeFlags::default();
        let mut sqls = vec![
            bulk(
                "INSERT INTO events (id, ts, n, p) VALUES (UNHEX(REPLACE(UUID(),'-','')),'2026-11-24 10:00:00',1,'abc')",
                ",(UNHEX(REPLACE(UUID(),'-','')),'2026-11-24 10:00:01',22,'de f')",
                30,
            ),
            bulk(
                "REPLACE INTO t VALUES (NOW(), -1, CONCAT('a', \"b\"), NULL, 1 + 2)",
                ",\n  (NOW(),  -100, CONCAT('ü€ snow\n☃', \"\"), NULL,\n30 + 4.5)",
                20,
            ) + ";\n",
        ];
        // generated: other literals of other lengths, lines and spacing in every row
        let mut next = crate::parse::stmt_cache::generator(0x2545_f491_4f6c_dd1d);
        for _ in 0..30 {
            let mut sql = "INSERT INTO t (a, b, c) VALUES ".to_string();
            for r in 0..(3 + next(40)) {
                if r > 0 {
                    sql.push_str([",", ", ", ",\n", " ,\t"][next(4) as usize]);
                }
                let s: String = (0..next(6))
                    .map(|_| ["x", "ü", " ", "\n", "-"][next(5) as usize])
                    .collect();
                sql.push_str(&format!(
                    "(LPAD('{s}', {}, 'x'), -{}.{}, IFNULL(NULL, \"{s}\"))",
                    next(20),
                    next(100_000),
                    next(100)
                ));
            }
            if sql.len() >= MIN_TEXT {
                sqls.push(sql);
            }
        }
        for sql in &sqls {
            assert_shaped_like_whole(sql, mode);
        }
    }

    #[test]
    fn rows_of_another_shape_leave_the_text_path() {
        let mode = SqlModeFlags::default();
        let head = "INSERT INTO t VALUES (NOW(), 'a', 1)";
        for row in [
            ", (NOW(), 'a', 1), (CURDATE(), 'b', 2)",
            ", (NOW(), 'a', 1), (NOW(), 'b')",
            ", (NOW(), 'a', 1), (NOW(), 'b' 'c', 2)",
            ", (NOW(), 'a', 1), (NOW(), 'it''s', 2)",
            ", (NOW(), 'a', 1), (NOW(), 'b', ?)",
            ", (NOW(), 'a', 1), (NOW(), (SELECT 1), 2)",
            ", (NOW(), 'a', 1), (NOW(), 'b', 2) ON DUPLICATE KEY UPDATE a = 1",
        ] {
            let sql = bulk(head, row, 20);
            assert!(text_path(&sql, mode).is_none(), "{sql}");
        }
        // a first row with a subquery
        let sql = bulk(
            "INSERT INTO t VALUES ((SELECT 1), 'a')",
            ", ((SELECT 1), 'b')",
            20,
        );
        assert!(text_path(&sql, mode).is_none(), "{sql}");
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
