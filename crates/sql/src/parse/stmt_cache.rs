//! Text statements that come back with other literals: `INSERT`, `REPLACE`, `UPDATE` and
//! `DELETE` sent as text (COM_QUERY) are parsed once per shape and per session; later texts of
//! the same shape run that tree with their own literals put in.
//!
//! **Why.** Most applications and drivers send their writes as text (PyMySQL, PHP, sysbench's
//! oltp_insert), each time with new values: the shape repeats, the text does not. Parsing was
//! 17 % of the server's CPU under sysbench oltp_insert (perf: sqlparser's tokenizer, keyword
//! lookups, the copies of quoted strings), more than the insert itself.
//!
//! **How.** [`scan`] reads the text once, byte by byte, into a *key* (the text with each number
//! and quoted string replaced by a marker of its kind, whitespace runs as one space) and its
//! literals (each as the `Value` sqlparser makes of it, with its span). It declines anything it
//! is not sure to read as sqlparser does: comments, escapes and doubled quotes in strings,
//! introducers (`_utf8'…'`, `x'…'`), exponents, adjacent strings, `?`. The first time a key is
//! seen its text is parsed as before; the second time, the parse is checked against the scan
//! (one statement, no subquery, and its `Expr::Value` nodes, in the visitor's order, are exactly
//! the scanned literals with the same values and spans) and kept as the key's template with its
//! literals blanked. A text whose key has a template is not parsed: the template's
//! `Expr::Value` nodes are set, in the same order, to the text's literals, and the template is
//! lent to run and given back (neither cloned nor dropped per text). When every literal is a
//! value of an INSERT's rows, they are set by walking the rows rather than by sqlparser's visitor.
//!
//! Texts of one key differ only in the contents of literal tokens, and the tokenizer and parser
//! never look inside a literal to decide the tree's shape, so the tree of one is the tree of
//! the other with other literals; the unit tests compare them over fixed and generated texts.
//! The spans of the nodes other than the literals stay those of the first text: only SELECT's
//! column headers read spans (`select::source_text`), and statements with a subquery are not
//! kept. Templates hold only syntax (no table or column), so no DDL makes them stale; the key
//! holds the sql_mode flags that change the tokens.

use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Query, SetExpr, Statement, Value, ValueWithSpan, Visit, Visitor};
use sqlparser::tokenizer::{Location, Span};

use crate::parse::parser::Parsed;
use crate::parse::parser::SqlModeFlags;
use crate::parse::parser::Stmt;

/// Longer texts are parsed every time (their keys and trees would crowd the cache).
const MAX_TEXT: usize = 16 * 1024;
/// Keys a session remembers.
const MAX_KEYS: usize = 64;
/// Key bytes a session keeps (a template's tree grows with its key; not measured).
const MAX_KEY_BYTES: usize = 256 * 1024;

/// Marks a literal in a key; the byte never appears in a scanned text outside its strings.
const MARK: char = '\u{1}';

/// A literal of the text: the value sqlparser makes of it and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Lit {
    /// `Number` or a single- / double-quoted string.
    pub value: Value,
    /// The token's span (sqlparser's lines and columns, from 1, in characters).
    pub span: Span,
}

/// A text read by [`scan`].
#[derive(Debug)]
pub struct Scan {
    /// The text's shape: literals replaced by a marker of their kind.
    pub key: String,
    /// The literals, in text order.
    pub lits: Vec<Lit>,
}

/// Steps `loc` over `bytes` of text, as sqlparser counts: lines and columns from 1, columns in
/// characters.
pub(crate) fn advance(loc: &mut Location, bytes: &[u8]) {
    for &b in bytes {
        if b == b'\n' {
            loc.line += 1;
            loc.column = 1;
        } else if b & 0xC0 != 0x80 {
            loc.column += 1;
        }
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'@' || b >= 0x80
}

/// The statements worth a template: writes without a result set (see the module docs).
fn first_word_qualifies(sql: &str) -> bool {
    let t = sql.trim_start();
    let end = t
        .bytes()
        .position(|b| !b.is_ascii_alphabetic())
        .unwrap_or(t.len());
    let w = &t[..end];
    ["INSERT", "REPLACE", "UPDATE", "DELETE"]
        .iter()
        .any(|k| w.eq_ignore_ascii_case(k))
}

/// Reads `sql` into its key and literals, or `None` when it is not a statement this cache
/// takes or holds anything the scan does not read exactly as sqlparser does.
pub fn scan(sql: &str, mode: SqlModeFlags) -> Option<Scan> {
    if sql.len() > MAX_TEXT || !first_word_qualifies(sql) {
        return None;
    }
    let mut key = String::with_capacity(sql.len() + 2);
    key.push(char::from(
        b'0' + mode.ansi_quotes as u8 + 2 * mode.pipes_as_concat as u8,
    ));
    let mut lits = Vec::new();
    scan_into(
        sql,
        0,
        Location::new(1, 1),
        mode,
        false,
        &mut key,
        &mut lits,
    )?;
    Some(Scan { key, lits })
}

/// One parenthesized group of `sql` starting at byte `from` (its `(`, at `at`) read as
/// [`scan`] reads a statement: its key and literals, and the byte after its `)`.
pub(crate) fn scan_group(
    sql: &str,
    from: usize,
    at: Location,
    mode: SqlModeFlags,
) -> Option<(String, Vec<Lit>, usize)> {
    if sql.as_bytes().get(from) != Some(&b'(') {
        return None;
    }
    let (mut key, mut lits) = (String::new(), Vec::new());
    let end = scan_into(sql, from, at, mode, true, &mut key, &mut lits)?;
    Some((key, lits, end))
}

/// [`scan`]'s reader: from byte `from` (at `at`) to the end of `sql`, or with `group` to the
/// `)` closing the `(` at `from`; the byte where it stopped.
fn scan_into(
    sql: &str,
    from: usize,
    at: Location,
    mode: SqlModeFlags,
    group: bool,
    key: &mut String,
    lits: &mut Vec<Lit>,
) -> Option<usize> {
    let b = sql.as_bytes();
    let mut pos = at;
    // the previous token was a string (MySQL concatenates adjacent strings)
    let mut after_string = false;
    let mut depth = 0usize;
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {
                while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0c) {
                    i += 1;
                }
                key.push(' ');
                advance(&mut pos, &b[start..i]);
                continue;
            }
            b'\'' | b'"' if c == b'\'' || !mode.ansi_quotes => {
                // an introducer, x'…', b'…', N'…' or a word glued to the string
                if after_string || (i > 0 && is_word_byte(b[i - 1])) {
                    return None;
                }
                i += 1;
                let body = i;
                loop {
                    match b.get(i)? {
                        b'\\' => return None,
                        &q if q == c => break,
                        _ => i += 1,
                    }
                }
                if b.get(i + 1) == Some(&c) {
                    return None; // a doubled quote
                }
                let text = sql[body..i].to_string();
                i += 1;
                let from = pos;
                advance(&mut pos, &b[start..i]);
                lits.push(Lit {
                    value: if c == b'\'' {
                        Value::SingleQuotedString(text)
                    } else {
                        Value::DoubleQuotedString(text)
                    },
                    span: Span::new(from, pos),
                });
                key.push(MARK);
                key.push(c as char);
                after_string = true;
                continue;
            }
            b'`' | b'"' => {
                // a quoted identifier, copied as it is (a doubled quote stays inside it)
                i += 1;
                loop {
                    if *b.get(i)? == c {
                        if b.get(i + 1) == Some(&c) {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
                key.push_str(&sql[start..i]);
            }
            b'0'..=b'9' => {
                if i > 0 && b[i - 1] == b'.' {
                    return None;
                }
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                if b.get(i) == Some(&b'.') {
                    if !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                        return None;
                    }
                    i += 1;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                // an exponent, 0x…, 0b…, a name starting with digits, `1.2.3`
                if b.get(i).is_some_and(|&n| is_word_byte(n) || n == b'.') {
                    return None;
                }
                let from = pos;
                advance(&mut pos, &b[start..i]);
                lits.push(Lit {
                    value: Value::Number(sql[start..i].to_string(), false),
                    span: Span::new(from, pos),
                });
                key.push(MARK);
                key.push('n');
                after_string = false;
                continue;
            }
            _ if is_word_byte(c) => {
                while i < b.len() && is_word_byte(b[i]) {
                    i += 1;
                }
                key.push_str(&sql[start..i]);
            }
            b'#' | b'?' | b'\\' => return None,
            b'-' if b.get(i + 1) == Some(&b'-') => return None,
            b'/' if b.get(i + 1) == Some(&b'*') => return None,
            b'.' if b.get(i + 1).is_some_and(u8::is_ascii_digit) => return None,
            _ if c < 0x20 || c == 0x7f => return None,
            _ => {
                i += 1;
                key.push(c as char);
                match c {
                    b'(' => depth += 1,
                    b')' => {
                        depth = depth.checked_sub(1)?;
                        if group && depth == 0 {
                            return Some(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        advance(&mut pos, &b[start..i]);
        after_string = false;
    }
    (!group).then_some(i)
}

/// Whether a value is one [`scan`] takes out of the text (NULL, TRUE and FALSE are words: they
/// stay in the key).
fn is_slot(v: &Value) -> bool {
    matches!(
        v,
        Value::Number(..) | Value::SingleQuotedString(_) | Value::DoubleQuotedString(_)
    )
}

/// The value of an expression that is a literal slot.
fn slot(e: &Expr) -> Option<&ValueWithSpan> {
    match e {
        Expr::Value(v) if is_slot(&v.value) => Some(v),
        _ => None,
    }
}

/// Whether a statement's literal `Expr::Value` nodes, in the visitor's order, are `lits` (values and
/// spans), and how many queries it holds.
struct Match<'a> {
    lits: &'a [Lit],
    matched: usize,
    queries: usize,
}

impl Visitor for Match<'_> {
    type Break = ();
    fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.queries += 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, e: &Expr) -> ControlFlow<()> {
        if let Some(v) = slot(e) {
            match self.lits.get(self.matched) {
                Some(l) if v.value == l.value && v.span == l.span => self.matched += 1,
                _ => return ControlFlow::Break(()),
            }
        }
        ControlFlow::Continue(())
    }
}

/// Whether `exprs` hold no query and their literal `Expr::Value` nodes, in the visitor's order,
/// are exactly `lits` (values and spans).
pub(crate) fn literals_match(exprs: &[Expr], lits: &[Lit]) -> bool {
    let mut m = Match {
        lits,
        matched: 0,
        queries: 0,
    };
    exprs.iter().all(|e| e.visit(&mut m).is_continue()) && m.matched == lits.len() && m.queries == 0
}

/// Sets the literal `Expr::Value` nodes of `exprs`, in the visitor's order, to `lits`.
pub(crate) fn set_expr_literals(exprs: &mut [Expr], lits: Vec<Lit>) {
    let mut lits = lits.into_iter();
    for e in exprs {
        let _ = sqlparser::ast::visit_expressions_mut(e, |e| {
            if let Expr::Value(v) = e {
                if is_slot(&v.value) {
                    if let Some(l) = lits.next() {
                        v.value = l.value;
                        v.span = l.span;
                    }
                }
            }
            ControlFlow::<()>::Continue(())
        });
    }
}

/// A parsed statement of one shape: its literals are blanked when it is made, then hold the
/// literals of the last text that used it until the next one sets its own.
struct Template {
    parsed: Parsed,
    /// Every literal is a value of an INSERT's rows (alone or negated): they are set by
    /// [`row_slots`] rather than by sqlparser's visitor (a quarter of the cost).
    rows_only: bool,
}

/// `parsed` (the parse of `sql`, whose scan is `scan`) as a template, when it is one
/// statement this cache takes and its literals are exactly the scanned ones.
fn template(parsed: &[Parsed], sql: &str, scan: &Scan) -> Option<Template> {
    let [p] = parsed else { return None };
    if p.params != 0 || p.sql != sql || !p.zerofill_columns.is_empty() {
        return None;
    }
    let Stmt::Ast(stmt) = &p.stmt else {
        return None;
    };
    // the INSERT's own source is a query; any other is a subquery or derived table
    let own_queries = match stmt {
        Statement::Insert(ins) => match ins.source.as_deref() {
            Some(q) if matches!(*q.body, SetExpr::Values(_)) => 1,
            Some(_) => return None,
            None => 0, // INSERT … SET
        },
        Statement::Update(_) | Statement::Delete(_) => 0,
        _ => return None,
    };
    let mut m = Match {
        lits: &scan.lits,
        matched: 0,
        queries: 0,
    };
    if stmt.visit(&mut m).is_break() || m.matched != scan.lits.len() || m.queries != own_queries {
        return None;
    }
    let mut parsed = p.clone();
    parsed.sql = String::new();
    // the rows' walk must meet the same literals in the same order as the visitor's
    let rows_only = match &mut parsed.stmt {
        Stmt::Ast(stmt) => row_slots(stmt).is_some_and(|slots| {
            slots.len() == scan.lits.len()
                && slots.iter().zip(&scan.lits).all(|(v, l)| v.span == l.span)
        }),
        _ => false,
    };
    let mut t = Template { parsed, rows_only };
    t.set_literals(scan.lits.iter().map(|l| Lit {
        value: match &l.value {
            Value::Number(..) => Value::Number(String::new(), false),
            Value::DoubleQuotedString(_) => Value::DoubleQuotedString(String::new()),
            _ => Value::SingleQuotedString(String::new()),
        },
        span: Span::empty(),
    }));
    Some(t)
}

/// The literal values of an INSERT's rows, in order, when every expression of every row is a
/// value or a signed value (`None` for any other statement or expression).
fn row_slots(stmt: &mut Statement) -> Option<Vec<&mut ValueWithSpan>> {
    let Statement::Insert(ins) = stmt else {
        return None;
    };
    let SetExpr::Values(values) = ins.source.as_deref_mut()?.body.as_mut() else {
        return None;
    };
    let mut out = Vec::with_capacity(values.rows.len() * values.rows.first()?.len());
    for e in values.rows.iter_mut().flat_map(|r| r.iter_mut()) {
        let v = match e {
            Expr::UnaryOp { expr, .. } => match expr.as_mut() {
                Expr::Value(v) => v,
                _ => return None,
            },
            Expr::Value(v) => v,
            _ => return None,
        };
        if is_slot(&v.value) {
            out.push(v);
        }
    }
    Some(out)
}

impl Template {
    /// Sets the statement's literal `Expr::Value` nodes, in the visitor's order, to `lits`.
    fn set_literals(&mut self, lits: impl IntoIterator<Item = Lit>) {
        let Stmt::Ast(stmt) = &mut self.parsed.stmt else {
            return;
        };
        let mut lits = lits.into_iter();
        let mut set = |v: &mut ValueWithSpan| {
            if let Some(l) = lits.next() {
                v.value = l.value;
                v.span = l.span;
            }
        };
        if self.rows_only {
            if let Some(slots) = row_slots(stmt) {
                slots.into_iter().for_each(set);
                return;
            }
        }
        let _ = sqlparser::ast::visit_expressions_mut(stmt, |e| {
            if let Expr::Value(v) = e {
                if is_slot(&v.value) {
                    set(v);
                }
            }
            ControlFlow::<()>::Continue(())
        });
    }
}

enum Entry {
    /// Seen once: parsed as usual (a text that never comes back costs no template).
    Seen,
    /// Not a statement this cache takes (checked once).
    No,
    Template(Box<Template>),
    /// The template is out, running (see [`Statements`]).
    Taken,
}

/// The statements of a text: parsed, or a template (lent to run, then given back with
/// [`StmtCache::give_back`], so that it is neither cloned nor dropped per text).
pub enum Statements {
    /// Parsed from the text.
    Parsed(Vec<Parsed>),
    /// The text's shape's template holding the text's literals.
    #[allow(private_interfaces)]
    Template(Box<str>, Box<Template>),
}

impl Statements {
    /// The statements, in text order.
    pub fn as_slice(&self) -> &[Parsed] {
        match self {
            Statements::Parsed(v) => v,
            Statements::Template(_, t) => std::slice::from_ref(&t.parsed),
        }
    }
}

/// One session's templates, keyed by [`Scan::key`].
#[derive(Default)]
pub struct StmtCache {
    map: rustc_hash::FxHashMap<Box<str>, (Entry, u64)>,
    key_bytes: usize,
    tick: u64,
}

impl StmtCache {
    /// The statements of `sql`: from a template when its shape has one, else from `parse`
    /// (the parser under the session's sql_mode flags `mode`).
    pub fn parse(
        &mut self,
        sql: &str,
        mode: SqlModeFlags,
        parse: impl FnOnce(&str) -> common::Result<Vec<Parsed>>,
    ) -> common::Result<Statements> {
        let Some(scan) = scan(sql, mode) else {
            return parse(sql).map(Statements::Parsed);
        };
        self.tick += 1;
        let tick = self.tick;
        let seen = match self.map.get_mut(scan.key.as_str()) {
            Some((e @ Entry::Template(_), used)) => {
                *used = tick;
                let Entry::Template(mut t) = std::mem::replace(e, Entry::Taken) else {
                    unreachable!("matched above")
                };
                t.parsed.sql.clear();
                t.parsed.sql.push_str(sql);
                t.set_literals(scan.lits);
                return Ok(Statements::Template(scan.key.into_boxed_str(), t));
            }
            Some((Entry::Seen, used)) => {
                *used = tick;
                true
            }
            Some((_, used)) => {
                *used = tick;
                return parse(sql).map(Statements::Parsed);
            }
            None => false,
        };
        let parsed = parse(sql)?;
        let entry = if seen {
            match template(&parsed, sql, &scan) {
                Some(t) => Entry::Template(Box::new(t)),
                None => Entry::No,
            }
        } else {
            Entry::Seen
        };
        self.insert(scan.key, entry, tick);
        Ok(Statements::Parsed(parsed))
    }

    /// Takes back a template lent by [`StmtCache::parse`] (nothing to do for parsed ones).
    pub fn give_back(&mut self, s: Statements) {
        if let Statements::Template(key, t) = s {
            if let Some((e @ Entry::Taken, _)) = self.map.get_mut(&key) {
                *e = Entry::Template(t);
            }
        }
    }

    fn insert(&mut self, key: String, entry: Entry, tick: u64) {
        if let Some(e) = self.map.get_mut(key.as_str()) {
            *e = (entry, tick);
            return;
        }
        while !self.map.is_empty()
            && (self.map.len() >= MAX_KEYS || self.key_bytes + key.len() > MAX_KEY_BYTES)
        {
            let oldest = self
                .map
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest {
                self.key_bytes -= k.len();
                self.map.remove(&k);
            }
        }
        self.key_bytes += key.len();
        self.map.insert(key.into_boxed_str(), (entry, tick));
    }

    /// Keys remembered (for tests).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no key is remembered.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// A tree's `Debug` text with every span blanked (tests compare trees whose nodes other than
/// the literals keep the spans of another text).
#[cfg(test)]
pub(crate) fn without_spans(d: &str) -> String {
    let mut out = String::with_capacity(d.len());
    let mut rest = d;
    while let Some(at) = rest.find("Span(Location(") {
        out.push_str(&rest[..at]);
        let end = rest[at..].find("))").expect("a span's end") + at + 2;
        out.push_str("Span");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A small deterministic generator for tests (no clock, no global state): `next(n)` is in
/// `0..n`.
#[cfg(test)]
pub(crate) fn generator(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}

/// The literal values of a statement with their spans, in the visitor's order.
#[cfg(test)]
pub(crate) fn literal_slots(stmt: &Statement) -> Vec<(Value, Span)> {
    let mut out = Vec::new();
    let _ = sqlparser::ast::visit_expressions(stmt, |e| {
        if let Some(v) = slot(e) {
            out.push((v.value.clone(), v.span));
        }
        ControlFlow::<()>::Continue(())
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parser::parse_with;

    fn scan0(sql: &str) -> Option<Scan> {
        scan(sql, SqlModeFlags::default())
    }

    /// `Debug` of the statement with every span blanked (the spans of the nodes other than
    /// the literals are the first text's in a template's copy, see the module docs).
    fn shape(p: &Parsed) -> String {
        without_spans(&format!("{:?}", p.stmt))
    }

    /// `b` through the template made of `a` (which must be one).
    fn through_template(a: &str, b: &str, mode: SqlModeFlags) -> Parsed {
        let sa = scan(a, mode).unwrap_or_else(|| panic!("scan declined {a}"));
        let sb = scan(b, mode).unwrap_or_else(|| panic!("scan declined {b}"));
        assert_eq!(sa.key, sb.key, "{a} / {b}");
        let pa = parse_with(a, mode).unwrap();
        let mut t = template(&pa, a, &sa).unwrap_or_else(|| panic!("no template from {a}"));
        t.set_literals(sb.lits);
        t.parsed.sql = b.to_string();
        t.parsed
    }

    /// The template's copy is the parse: same tree, same literal values and spans.
    fn assert_same(a: &str, b: &str, mode: SqlModeFlags) {
        let via = through_template(a, b, mode);
        let parsed = parse_with(b, mode).unwrap();
        assert_eq!(parsed.len(), 1, "{b}");
        assert_eq!(shape(&via), shape(&parsed[0]), "{a} / {b}");
        assert_eq!(via.sql, parsed[0].sql);
        // every literal carries the span the parser gives it
        let sb = scan(b, mode).unwrap();
        assert!(template(&parsed, b, &sb).is_some(), "{b}");
        let Stmt::Ast(s) = &via.stmt else { panic!() };
        let mut m = Match {
            lits: &sb.lits,
            matched: 0,
            queries: 0,
        };
        assert!(
            s.visit(&mut m).is_continue() && m.matched == sb.lits.len(),
            "{b}"
        );
    }

    #[test]
    fn keys_ignore_literals_and_whitespace_runs() {
        let a = scan0("INSERT INTO t (a, b) VALUES (1, 'x')").unwrap();
        let b = scan0("INSERT INTO t (a, b)\n VALUES (22.5,\t'yy ''')").map(|s| s.key);
        assert_eq!(b, None, "a doubled quote is declined");
        let b = scan0("INSERT INTO t (a, b)\n VALUES (22.5,\t'y\ny')").unwrap();
        assert_eq!(a.key, b.key);
        assert_eq!(b.lits.len(), 2);
        assert_eq!(b.lits[0].value, Value::Number("22.5".into(), false));
        assert_eq!(b.lits[1].value, Value::SingleQuotedString("y\ny".into()));
        assert_eq!(
            b.lits[1].span,
            Span::new(Location::new(2, 16), Location::new(3, 3))
        );
        // a string and a number, a string and an identifier, differ
        let c = scan0("INSERT INTO t (a, b) VALUES ('1', 'x')").unwrap();
        assert_ne!(a.key, c.key);
        let d = scan0("INSERT INTO t (a, b) VALUES (1, `x`)").unwrap();
        assert_ne!(a.key, d.key);
        // sql_mode flags that change tokens are part of the key
        let ansi = SqlModeFlags {
            ansi_quotes: true,
            ..Default::default()
        };
        assert_ne!(
            scan0("UPDATE t SET a = 1").unwrap().key,
            scan("UPDATE t SET a = 1", ansi).unwrap().key
        );
        // under ANSI_QUOTES "x" is a name: part of the key
        let q = scan("UPDATE t SET \"a\" = 1", ansi).unwrap();
        assert_eq!(q.lits.len(), 1);
        assert!(q.key.contains("\"a\""));
    }

    #[test]
    fn scan_declines_what_it_might_read_differently() {
        for sql in [
            "SELECT 1",
            "SET @a = 1",
            "CREATE TABLE t (a INT)",
            "INSERT INTO t VALUES ('a\\'b')",
            "INSERT INTO t VALUES ('it''s')",
            "INSERT INTO t VALUES (\"say \"\"hi\"\"\")",
            "INSERT INTO t VALUES (_utf8mb4'x')",
            "INSERT INTO t VALUES (x'41')",
            "INSERT INTO t VALUES (X'41')",
            "INSERT INTO t VALUES (b'1')",
            "INSERT INTO t VALUES (N'x')",
            "INSERT INTO t VALUES (0x41)",
            "INSERT INTO t VALUES (1e3)",
            "INSERT INTO t VALUES (1.)",
            "INSERT INTO t VALUES (.5)",
            "INSERT INTO t VALUES ('a' 'b')",
            "INSERT INTO t VALUES ('a'\n'b')",
            "INSERT INTO t VALUES (?)",
            "INSERT INTO t VALUES (1) -- note",
            "INSERT INTO t VALUES (1) # note",
            "INSERT /*+ hint */ INTO t VALUES (1)",
            "INSERT /*!40000 IGNORE */ INTO t VALUES (1)",
            "UPDATE t SET a = 'unterminated",
            "DELETE FROM t WHERE a = 1\u{0}",
        ] {
            assert!(scan0(sql).is_none(), "{sql}");
        }
        // too long
        let long = format!("INSERT INTO t VALUES ('{}')", "x".repeat(MAX_TEXT));
        assert!(scan0(&long).is_none());
    }

    #[test]
    fn template_copies_are_the_parse() {
        let mode = SqlModeFlags::default();
        for (a, b) in [
            (
                "INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 4992, '8367-...', '7251-...')",
                "INSERT INTO sbtest1 (id, k, c, pad) VALUES (12345, 1, '', 'a longer string ü€')",
            ),
            (
                "insert into d.t values (-1, \"x\", NULL, 2.5)",
                "insert into d.t values (-100, \"ü\nnew line\", NULL, 0.000)",
            ),
            (
                "REPLACE INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')",
                "REPLACE INTO t VALUES (10, 'aa'),\n(20, 'bb'), (30, ''), (40, 'dddd')",
            ),
            (
                "INSERT INTO events (id, ts, kind) VALUES (UNHEX(REPLACE(UUID(),'-','')), NOW(), 1)",
                "INSERT INTO events (id, ts, kind) VALUES (UNHEX(REPLACE(UUID(),'+','x')), NOW(), 77)",
            ),
            (
                "INSERT INTO t (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE b = b + 1",
                "INSERT INTO t (a, b) VALUES (3, 4) ON DUPLICATE KEY UPDATE b = b + 500",
            ),
            (
                "INSERT IGNORE INTO `t``q` (`a`) VALUES (1)",
                "INSERT IGNORE INTO `t``q` (`a`) VALUES (99999999999999999999999)",
            ),
            (
                "UPDATE sbtest1 SET k=k+1 WHERE id=5",
                "UPDATE sbtest1 SET k=k+1 WHERE id=500000",
            ),
            (
                "UPDATE t SET c = 'x', d = d * 2 WHERE a BETWEEN 1 AND 10 AND b IN (1, 2, 3) ORDER BY a LIMIT 5",
                "UPDATE t SET c = 'yy', d = d * 3 WHERE a BETWEEN 100 AND 1000 AND b IN (4, 5, 66) ORDER BY a LIMIT 50",
            ),
            (
                "UPDATE t1, t2 SET t1.a = 1 WHERE t1.id = t2.id AND t2.b = 'q'",
                "UPDATE t1, t2 SET t1.a = 22 WHERE t1.id = t2.id AND t2.b = 'qq'",
            ),
            (
                "DELETE FROM sbtest1 WHERE id=7",
                "DELETE FROM sbtest1 WHERE id=70000",
            ),
            (
                "DELETE FROM t WHERE d < DATE_SUB(NOW(), INTERVAL 3 DAY) AND s LIKE 'a%' LIMIT 10",
                "DELETE FROM t WHERE d < DATE_SUB(NOW(), INTERVAL 30 DAY) AND s LIKE 'b_%' LIMIT 1000",
            ),
            (
                "INSERT INTO t VALUES (1, 'a');",
                "INSERT INTO t VALUES (2, 'bb');",
            ),
        ] {
            assert_same(a, b, mode);
        }
        let ansi = SqlModeFlags {
            ansi_quotes: true,
            pipes_as_concat: true,
        };
        assert_same(
            "UPDATE \"t\" SET \"a\" = 'x' || 'y' WHERE b = 1",
            "UPDATE \"t\" SET \"a\" = 'xx' || 'yy' WHERE b = 22",
            ansi,
        );
    }

    #[test]
    fn generated_copies_are_the_parse() {
        let mut next = generator(0x9e37_79b9_7f4a_7c15);
        let shapes = [
            "INSERT INTO t (a, b, c) VALUES (%, $, &)",
            "INSERT INTO t VALUES (%, $), (-%, $), (%, NULL)",
            "REPLACE t SET a = %, b = $",
            "UPDATE t SET b = $, c = c + % WHERE a = %",
            "UPDATE t SET b = CONCAT(b, $) WHERE a IN (%, %, -%) AND c <> &",
            "DELETE FROM t WHERE a = % OR b = $",
            "INSERT INTO t (a) VALUES (%) ON DUPLICATE KEY UPDATE a = a + %, b = $",
        ];
        let pieces = ["", "a", "ü", "€ snow ☃", "\n", "x y", "%_", "-", "0", "\t"];
        for round in 0..400 {
            let shape = shapes[round % shapes.len()];
            let mut texts = Vec::new();
            for _ in 0..2 {
                let mut t = String::new();
                for ch in shape.chars() {
                    match ch {
                        '%' => {
                            t.push_str(&next(1_000_000).to_string());
                            if next(3) == 0 {
                                t.push_str(&format!(".{}", next(1000)));
                            }
                        }
                        '$' | '&' => {
                            let q = if ch == '$' { '\'' } else { '"' };
                            t.push(q);
                            for _ in 0..next(5) {
                                t.push_str(pieces[next(pieces.len() as u64) as usize]);
                            }
                            t.push(q);
                        }
                        ' ' => t.push_str([" ", "  ", "\n", " \t"][next(4) as usize]),
                        c => t.push(c),
                    }
                }
                texts.push(t);
            }
            assert_same(&texts[0], &texts[1], SqlModeFlags::default());
        }
    }

    #[test]
    fn literal_rows_are_set_without_the_visitor() {
        let mode = SqlModeFlags::default();
        for (sql, rows_only) in [
            (
                "INSERT INTO t VALUES (1, 'a', NULL), (-2, \"b\", 3.5)",
                true,
            ),
            ("INSERT INTO t VALUES (1, NOW())", false),
            (
                "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2",
                false,
            ),
            ("UPDATE t SET a = 1", false),
        ] {
            let s = scan(sql, mode).unwrap();
            let t = template(&parse_with(sql, mode).unwrap(), sql, &s).unwrap();
            assert_eq!(t.rows_only, rows_only, "{sql}");
        }
    }

    #[test]
    fn no_template_for_subqueries_or_results() {
        let mode = SqlModeFlags::default();
        for sql in [
            "INSERT INTO t SELECT 1, 'a'",
            "INSERT INTO t VALUES ((SELECT 1))",
            "UPDATE t SET a = 1 WHERE b IN (SELECT 2)",
            "DELETE FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.a = 3)",
            "INSERT INTO t VALUES (DATE '2020-01-01')",
            "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)",
            "UPDATE t SET a = a + INTERVAL '1:30' HOUR_MINUTE",
        ] {
            let s = scan(sql, mode).unwrap_or_else(|| panic!("{sql}"));
            let p = parse_with(sql, mode).unwrap();
            assert!(template(&p, sql, &s).is_none(), "{sql}");
        }
    }

    #[test]
    fn the_second_sighting_keeps_a_template_and_the_third_uses_it() {
        let mode = SqlModeFlags::default();
        let mut c = StmtCache::default();
        let (parses, hits) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        // each text's statement, as the session runs it (a template is lent and given back)
        let run = |c: &mut StmtCache, sql: &str| {
            let s = c
                .parse(sql, mode, |s| {
                    parses.set(parses.get() + 1);
                    parse_with(s, mode)
                })
                .unwrap();
            if matches!(s, Statements::Template(..)) {
                hits.set(hits.get() + 1);
            }
            let p = s.as_slice().to_vec();
            c.give_back(s);
            p
        };
        run(&mut c, "INSERT INTO t VALUES (1, 'a')");
        run(&mut c, "INSERT INTO t VALUES (2, 'b')");
        let p = run(&mut c, "INSERT INTO t VALUES (3, 'ccc')");
        let q = run(&mut c, "INSERT INTO t VALUES (4, 'dddd')");
        assert_eq!(hits.get(), 2);
        assert_eq!(parses.get(), 2);
        assert_eq!(
            shape(&q[0]),
            shape(&parse_with("INSERT INTO t VALUES (4, 'dddd')", mode).unwrap()[0])
        );
        assert_eq!(p[0].sql, "INSERT INTO t VALUES (3, 'ccc')");
        // a template not given back (a run that did not end) costs only a parse
        let lent = c
            .parse("INSERT INTO t VALUES (5, 'e')", mode, |s| {
                parse_with(s, mode)
            })
            .unwrap();
        assert!(matches!(lent, Statements::Template(..)));
        let inner = run(&mut c, "INSERT INTO t VALUES (6, 'f')");
        assert_eq!(parses.get(), 3);
        assert_eq!(inner[0].sql, "INSERT INTO t VALUES (6, 'f')");
        assert_eq!(lent.as_slice()[0].sql, "INSERT INTO t VALUES (5, 'e')");
        c.give_back(lent);
        run(&mut c, "INSERT INTO t VALUES (7, 'g')");
        // the lent one was a template too
        assert_eq!((hits.get() + 1, parses.get()), (4, 3));
        // a statement that is not one is parsed every time
        run(&mut c, "INSERT INTO t SELECT 1");
        run(&mut c, "INSERT INTO t SELECT 2");
        run(&mut c, "INSERT INTO t SELECT 3");
        assert_eq!(parses.get(), 6);
        // a parse error is the parser's, and nothing is kept
        let e = c.parse("INSERT INTO t VALUES (1,", mode, |s| parse_with(s, mode));
        assert!(e.is_err());
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn the_cache_stays_bounded() {
        let mode = SqlModeFlags::default();
        let mut c = StmtCache::default();
        for i in 0..(MAX_KEYS * 3) {
            let sql = format!("INSERT INTO t{i} VALUES (1)");
            for _ in 0..2 {
                c.parse(&sql, mode, |s| parse_with(s, mode)).unwrap();
            }
        }
        assert_eq!(c.len(), MAX_KEYS);
        // wide statements: ~12 KiB keys, forty of them overflow the byte bound
        let rows = "(1), ".repeat(2000);
        for i in 0..40 {
            let sql = format!("INSERT INTO w{i} (a) VALUES {rows}(2)");
            assert!(scan(&sql, mode).is_some());
            c.parse(&sql, mode, |s| parse_with(s, mode)).unwrap();
            assert!(c.key_bytes <= MAX_KEY_BYTES);
        }
        assert!(c.len() < MAX_KEYS && c.len() >= MAX_KEY_BYTES / (12 * 1024 + 16) - 1);
        assert_eq!(c.key_bytes, c.map.keys().map(|k| k.len()).sum::<usize>());
    }
}
