//! SQL text → sqlparser statements, with the MySQL-isms sqlparser lacks handled at the token
//! level: versioned comments `/*!NNNNN … */` (their content is parsed when NNNNN ≤ our version),
//! `LOCK IN SHARE MODE` (→ `FOR SHARE`), the `MOD` operator, `ZEROFILL`, and
//! `WITH CONSISTENT SNAPSHOT`. Placeholders `?` are numbered `?1`, `?2`, … in text order so the
//! binder can map them to COM_STMT_EXECUTE parameters.

use common::{Error, Result};
use sqlparser::ast::Statement;
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserOptions};
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Whitespace, Word};

/// Name of the marker call the tokenizer wraps around the value of an `INTERVAL value unit`
/// whose unit is a compound MySQL unit (see [`tokenize`]).
pub const COMPOUND_INTERVAL: &str = "INTERVAL@UNIT";

/// The MySQL version whose versioned comments we execute (8.4.7).
pub const MYSQL_VERSION_ID: u32 = 80407;

/// A statement: sqlparser's AST, or a SHOW statement kept as tokens for our own SHOW parser
/// (sqlparser drops the literals of many MySQL SHOW forms).
#[derive(Debug, Clone)]
// One `Stmt` is built per statement and kept by prepared statements; boxing sqlparser's
// `Statement` would only add an allocation, and every match on it would need a second level.
#[allow(clippy::large_enum_variant)]
pub enum Stmt {
    /// Parsed by sqlparser.
    Ast(Statement),
    /// `SHOW ...` as its non-whitespace tokens (the leading SHOW removed).
    Show(Vec<Token>),
    /// `PREPARE name FROM 'text' | @var`.
    Prepare {
        /// Statement name.
        name: String,
        /// The literal text, or the user variable holding it.
        source: PrepareSource,
    },
    /// `EXECUTE name [USING @a, @b, ...]`.
    Execute {
        /// Statement name.
        name: String,
        /// User variables supplying the parameters.
        using: Vec<String>,
    },
    /// `{DEALLOCATE | DROP} PREPARE name`.
    Deallocate(String),
    /// `DO expr [, expr ...]`: evaluated for their effects, no result set (held as the
    /// equivalent SELECT).
    Do(Box<Statement>),
    /// `ALTER TABLE …`, parsed by [`crate::parse::alter::parse`] (sqlparser lacks many MySQL forms).
    AlterTable(crate::parse::alter::AlterStmt),
    /// `CREATE TABLE … PARTITION BY …`: sqlparser's statement for the part before the
    /// partition clause, and the clause parsed by [`crate::parse::partition`].
    CreatePartitioned(Box<Statement>, Box<crate::parse::partition::PartSpec>),
    /// `CHECK TABLE t [, t ...] [options]` (see [`crate::ddl::checktable`]).
    Maintenance(crate::parse::maintenance::Maintenance),
    /// CREATE/ALTER/DROP/RENAME USER, SET PASSWORD, GRANT, REVOKE ([`crate::parse::acl`]).
    Acl(crate::parse::acl::AclStmt),
    /// A SET whose assignment list holds a `NAMES …` element next to other assignments
    /// (sqlparser takes `SET NAMES` only alone), e.g. sqlx's connect-time `SET sql_mode=…,
    /// time_zone='+00:00', NAMES utf8mb4 COLLATE utf8mb4_unicode_ci`: the parts in order, each
    /// an `ast::Statement::Set`.
    SetList(Vec<Statement>),
    /// `LOAD DATA [LOCAL] INFILE …` ([`crate::parse::load`]).
    LoadData(Box<crate::parse::load::LoadStmt>),
    /// FLUSH BINARY LOGS, PURGE BINARY LOGS, RESET BINARY LOGS AND GTIDS.
    Binlog(crate::parse::binlog::BinlogStmt),
    /// CREATE / ALTER / DROP PROCEDURE or FUNCTION, CALL ([`crate::parse::routine`]).
    Routine(crate::parse::routine::RoutineStmt),
    /// CHANGE REPLICATION SOURCE, START / STOP / RESET REPLICA ([`crate::parse::replica`]).
    Replica(crate::parse::replica::ReplicaStmt),
}

/// Where PREPARE takes its statement text from.
#[derive(Debug, Clone)]
pub enum PrepareSource {
    /// A string literal.
    Text(String),
    /// A user variable (`@name`, without the `@`).
    Var(String),
}

fn tok_word(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) => Some(w.value.clone()),
        _ => None,
    }
}

/// Parses the SQL-level prepared statement commands from non-whitespace tokens.
fn prepared_stmt(toks: &[Token]) -> Option<Result<Stmt>> {
    let up = |i: usize| {
        toks.get(i)
            .and_then(tok_word)
            .map(|w| w.to_ascii_uppercase())
    };
    let bad = || {
        Some(Err(Error::parse(
            toks.iter()
                .map(|t| t.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        )))
    };
    match up(0).as_deref() {
        Some("PREPARE") => {
            let name = toks.get(1).and_then(tok_word)?;
            if up(2).as_deref() != Some("FROM") {
                return bad();
            }
            let source = match toks.get(3) {
                Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => {
                    PrepareSource::Text(s.clone())
                }
                Some(Token::Word(w)) if w.value.starts_with('@') => {
                    PrepareSource::Var(w.value[1..].to_string())
                }
                _ => return bad(),
            };
            if toks.len() > 4 {
                return bad();
            }
            Some(Ok(Stmt::Prepare { name, source }))
        }
        Some("EXECUTE") => {
            let name = toks.get(1).and_then(tok_word)?;
            let mut using = Vec::new();
            if toks.len() > 2 {
                if up(2).as_deref() != Some("USING") {
                    return bad();
                }
                for t in &toks[3..] {
                    match t {
                        Token::Comma => {}
                        Token::Word(w) if w.value.starts_with('@') => {
                            using.push(w.value[1..].to_string())
                        }
                        _ => return bad(),
                    }
                }
            }
            Some(Ok(Stmt::Execute { name, using }))
        }
        Some("DEALLOCATE") | Some("DROP") if up(1).as_deref() == Some("PREPARE") => {
            match toks.get(2).and_then(tok_word) {
                Some(n) if toks.len() == 3 => Some(Ok(Stmt::Deallocate(n))),
                _ => bad(),
            }
        }
        _ => None,
    }
}

/// One parsed statement plus facts the session needs about its text.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// The statement.
    pub stmt: Stmt,
    /// The statement's SQL text (for column headers taken from the select list).
    pub sql: String,
    /// Number of `?` placeholders.
    pub params: usize,
    /// Whether the text contained ZEROFILL (recorded to emit a note; display padding is not applied).
    pub zerofill_columns: Vec<String>,
}

/// Tokenizes `sql` and applies the rewrites described in the module docs.
pub fn tokenize(sql: &str) -> Result<(Vec<TokenWithSpan>, usize, Vec<String>)> {
    tokenize_with(sql, SqlModeFlags::default())
}

/// The sql_mode flags that change how statements are tokenized.
#[derive(Debug, Clone, Copy, Default)]
pub struct SqlModeFlags {
    /// ANSI_QUOTES: `"x"` is an identifier.
    pub ansi_quotes: bool,
    /// PIPES_AS_CONCAT: `||` concatenates (otherwise it is a synonym of OR).
    pub pipes_as_concat: bool,
}

/// [`tokenize`] under the sql_mode flags that change tokens (ANSI_QUOTES, PIPES_AS_CONCAT).
pub fn tokenize_with(
    sql: &str,
    mode: SqlModeFlags,
) -> Result<(Vec<TokenWithSpan>, usize, Vec<String>)> {
    let dialect = crate::parse::dialect::StrataDialect::default();
    let text = strip_versioned(sql);
    let mut out: Vec<TokenWithSpan> = Tokenizer::new(&dialect, &text)
        .tokenize_with_location()
        .map_err(|e| Error::parse(short_near(sql, &e.to_string())))?
        .into_iter()
        .filter(|t| t.token != Token::EOF)
        .collect();
    // rewrites
    let mut res: Vec<TokenWithSpan> = Vec::with_capacity(out.len());
    let mut params = 0usize;
    let mut zerofill = Vec::new();
    let mut i = 0;
    // `UPDATE t1, t2 SET ...` (multi-table): the comma list becomes CROSS JOINs, which
    // sqlparser accepts; `Some(depth)` while between UPDATE and SET
    let mut update_tables: Option<i32> = None;
    while i < out.len() {
        let t = &out[i];
        if !mode.pipes_as_concat && t.token == Token::StringConcat {
            // MySQL's default: `a || b` is `a OR b` (sqlparser reads it as concatenation)
            res.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
            res.push(word("OR"));
            res.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
            i += 1;
            continue;
        }
        if mode.ansi_quotes {
            if let Token::DoubleQuotedString(v) = &t.token {
                res.push(TokenWithSpan::new(
                    Token::Word(Word {
                        value: v.clone(),
                        // treated exactly like a backquoted identifier from here on
                        quote_style: Some('`'),
                        keyword: sqlparser::keywords::Keyword::NoKeyword,
                    }),
                    t.span,
                ));
                i += 1;
                continue;
            }
        }
        if let Some(depth) = update_tables.as_mut() {
            match &t.token {
                Token::LParen => *depth += 1,
                Token::RParen => *depth -= 1,
                Token::SemiColon => update_tables = None,
                Token::Word(w)
                    if w.quote_style.is_none()
                        && *depth == 0
                        && w.value.eq_ignore_ascii_case("SET") =>
                {
                    update_tables = None
                }
                Token::Comma if *depth == 0 => {
                    res.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
                    res.push(word("CROSS"));
                    res.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
                    res.push(word("JOIN"));
                    i += 1;
                    continue;
                }
                _ => {}
            }
        } else if let Token::Word(w) = &t.token {
            if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("UPDATE") {
                let prev = res
                    .iter()
                    .rev()
                    .find(|t| !matches!(t.token, Token::Whitespace(_)));
                if prev.is_none() || matches!(prev.map(|t| &t.token), Some(Token::SemiColon)) {
                    update_tables = Some(0);
                }
            }
        }
        match &t.token {
            Token::Placeholder(p) if p == "?" => {
                params += 1;
                res.push(TokenWithSpan::wrap(Token::Placeholder(format!(
                    "?{params}"
                ))));
                i += 1;
                continue;
            }
            Token::Word(w) if w.quote_style.is_none() => {
                let up = w.value.to_ascii_uppercase();
                if up == "ZEROFILL" {
                    // remember the column name: the identifier before the type (best effort)
                    if let Some(name) = res
                        .iter()
                        .rev()
                        .filter_map(|t| match &t.token {
                            Token::Word(w) => Some(w.value.clone()),
                            _ => None,
                        })
                        .nth(2)
                    {
                        zerofill.push(name);
                    }
                    i += 1;
                    continue;
                }
                if up == "MOD" {
                    // `a MOD b` (binary operator) vs `MOD(a, b)` (function call)
                    let next = next_non_ws(&out, i + 1);
                    if !matches!(next.map(|t| &t.token), Some(Token::LParen)) {
                        res.push(TokenWithSpan::wrap(Token::Mod));
                        i += 1;
                        continue;
                    }
                }
                if up == "EXTRACT" {
                    // EXTRACT(YEAR_MONTH FROM d): sqlparser knows only the single-word units, so
                    // compound units become the call `EXTRACT`('YEAR_MONTH', d).
                    if let Some((unit, next)) = compound_extract_unit(&out, i + 1) {
                        res.push(TokenWithSpan::wrap(Token::Word(Word {
                            value: "EXTRACT".into(),
                            quote_style: Some('`'),
                            keyword: Keyword::NoKeyword,
                        })));
                        res.push(TokenWithSpan::wrap(Token::LParen));
                        res.push(TokenWithSpan::wrap(Token::SingleQuotedString(unit)));
                        res.push(TokenWithSpan::wrap(Token::Comma));
                        i = next;
                        continue;
                    }
                }
                if up.contains('_') && func::arith::IntervalUnit::from_name(&up).is_some() {
                    // INTERVAL '1:30' HOUR_MINUTE: sqlparser has no compound units, so the value
                    // becomes `INTERVAL@UNIT`('HOUR_MINUTE', value) under a plain DAY unit, which
                    // the binder unpacks.
                    if let Some(p) = interval_value_start(&res) {
                        let value: Vec<TokenWithSpan> = res.drain(p..).collect();
                        res.push(TokenWithSpan::wrap(Token::Word(Word {
                            value: COMPOUND_INTERVAL.into(),
                            quote_style: Some('`'),
                            keyword: Keyword::NoKeyword,
                        })));
                        res.push(TokenWithSpan::wrap(Token::LParen));
                        res.push(TokenWithSpan::wrap(Token::SingleQuotedString(up)));
                        res.push(TokenWithSpan::wrap(Token::Comma));
                        res.extend(value);
                        res.push(TokenWithSpan::wrap(Token::RParen));
                        res.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
                        res.push(word("DAY"));
                        i += 1;
                        continue;
                    }
                }
                if up == "INTERVAL" && is_interval_function(&out, i + 1) {
                    // INTERVAL(N, N1, ...) is a function, not an interval literal: pass it on
                    // as a quoted identifier so sqlparser reads a function call.
                    res.push(TokenWithSpan::wrap(Token::Word(Word {
                        value: "INTERVAL".into(),
                        quote_style: Some('`'),
                        keyword: Keyword::NoKeyword,
                    })));
                    i += 1;
                    continue;
                }
                if up == "FORMAT" {
                    // sqlparser reads no FORMAT=TRADITIONAL: it travels as sqlparser's GRAPHVIZ,
                    // which MySQL does not have (neither TEXT: both are 1791 here), so an
                    // explicit TRADITIONAL overrides explain_format. EXPLAIN ANALYZE has no
                    // tabular form: MySQL's 1235.
                    let prev = res
                        .iter()
                        .rev()
                        .find(|t| !matches!(t.token, Token::Whitespace(_)));
                    let prev_word = |k: &str| {
                        matches!(prev.map(|t| &t.token), Some(Token::Word(w))
                            if w.value.eq_ignore_ascii_case(k))
                    };
                    let after_explain =
                        ["EXPLAIN", "DESCRIBE", "DESC"].iter().any(|k| prev_word(k));
                    let after_analyze = prev_word("ANALYZE");
                    let mut j = next_non_ws_idx(&out, i + 1);
                    if let Some(k) = j.filter(|k| out[*k].token == Token::Eq) {
                        j = next_non_ws_idx(&out, k + 1);
                    }
                    let format_word = j.and_then(|k| match &out[k].token {
                        Token::Word(w) => Some((k, w.value.to_ascii_uppercase())),
                        _ => None,
                    });
                    if let Some((k, f)) = format_word.filter(|_| after_explain || after_analyze) {
                        match f.as_str() {
                            "TEXT" | "GRAPHVIZ" => {
                                return Err(Error::new(
                                    common::codes::ER_UNKNOWN_EXPLAIN_FORMAT,
                                    format!("Unknown EXPLAIN format name: '{f}'"),
                                ))
                            }
                            "TRADITIONAL" if after_analyze => {
                                return Err(Error::not_supported(
                                    "EXPLAIN ANALYZE with TRADITIONAL format",
                                ));
                            }
                            "TRADITIONAL" => {
                                res.extend(out[i..k].iter().cloned());
                                res.push(word("GRAPHVIZ"));
                                i = k + 1;
                                continue;
                            }
                            _ => {}
                        }
                    }
                }
                if up == "LOCK" && words_follow(&out, i + 1, &["IN", "SHARE", "MODE"]) {
                    res.push(word("FOR"));
                    res.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
                    res.push(word("SHARE"));
                    i = skip_words(&out, i + 1, 3);
                    continue;
                }
                if up == "WITH" && words_follow(&out, i + 1, &["CONSISTENT", "SNAPSHOT"]) {
                    let prev = res
                        .iter()
                        .rev()
                        .find(|t| !matches!(t.token, Token::Whitespace(_)));
                    // `START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT`: the comma goes too
                    let after_comma = matches!(prev.map(|t| &t.token), Some(Token::Comma))
                        && words_follow(&res, 0, &["START", "TRANSACTION"]);
                    if after_comma {
                        while let Some(t) = res.pop() {
                            if t.token == Token::Comma {
                                break;
                            }
                        }
                        i = skip_words(&out, i + 1, 2);
                        continue;
                    }
                    if matches!(prev.map(|t| &t.token), Some(Token::Word(w)) if w.value.eq_ignore_ascii_case("TRANSACTION"))
                    {
                        i = skip_words(&out, i + 1, 2);
                        // a following comma joins further characteristics
                        if let Some(j) = next_non_ws_idx(&out, i) {
                            if out[j].token == Token::Comma {
                                i = j + 1;
                            }
                        }
                        continue;
                    }
                }
            }
            _ => {}
        }
        // moved, not cloned: nothing reads a token behind `i` in `out` (look-behind reads
        // `res`), and cloning the strings of a bulk INSERT's literals cost an allocation each
        res.push(std::mem::replace(
            &mut out[i],
            TokenWithSpan::wrap(Token::EOF),
        ));
        i += 1;
    }
    crate::parse::mysql_forms::rewrite(&mut res);
    bind_binary_tightly(&mut res);
    Ok((res, params, zerofill))
}

/// MySQL's `BINARY x` binds tighter than any binary operator (`BINARY a = b` is
/// `(BINARY a) = b`), but sqlparser reads a whole expression after BINARY. In the expressions of
/// queries and DML, a BINARY cast of a simple operand (literal, column, function call,
/// parenthesised expression) becomes `CAST(operand AS BINARY)`. Not after AS / CHARACTER SET / COLLATE
/// / USING, where BINARY is a type or character set.
fn bind_binary_tightly(toks: &mut Vec<TokenWithSpan>) {
    let is_word = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let mut i = 0;
    let mut dml = false;
    let mut at_start = true;
    while i < toks.len() {
        let t = &toks[i].token;
        if matches!(t, Token::Whitespace(_)) {
            i += 1;
            continue;
        }
        if *t == Token::SemiColon {
            at_start = true;
            i += 1;
            continue;
        }
        if at_start {
            at_start = false;
            dml = matches!(t, Token::LParen)
                || [
                    "SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH", "DO", "SET",
                    "VALUES",
                ]
                .iter()
                .any(|w| is_word(t, w));
        }
        if !dml || !is_word(t, "BINARY") {
            i += 1;
            continue;
        }
        let prev = toks[..i]
            .iter()
            .rev()
            .find(|t| !matches!(t.token, Token::Whitespace(_)))
            .map(|t| &t.token);
        if prev.is_some_and(|p| {
            [
                "AS",
                "SET",
                "CHARSET",
                "CHARACTER",
                "COLLATE",
                "USING",
                "NAMES",
            ]
            .iter()
            .any(|w| is_word(p, w))
        }) {
            i += 1;
            continue;
        }
        // the operand: a literal, a (qualified) name with an optional argument list, or a
        // parenthesised expression
        let Some(j) = next_non_ws_idx(toks, i + 1) else {
            break;
        };
        let end = match &toks[j].token {
            Token::LParen => group_end(toks, j),
            Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::Number(..)
            | Token::HexStringLiteral(_)
            | Token::SingleQuotedByteStringLiteral(_)
            | Token::NationalStringLiteral(_) => Some(j),
            Token::Word(_)
                if ![
                    "CASE", "NOT", "INTERVAL", "EXISTS", "COLLATE", "AND", "OR", "FROM", "AS",
                ]
                .iter()
                .any(|w| is_word(&toks[j].token, w)) =>
            {
                let mut e = j;
                loop {
                    match next_non_ws_idx(toks, e + 1) {
                        Some(k) if toks[k].token == Token::Period => {
                            match next_non_ws_idx(toks, k + 1) {
                                Some(w) if matches!(toks[w].token, Token::Word(_)) => e = w,
                                _ => break,
                            }
                        }
                        Some(k) if toks[k].token == Token::LParen => {
                            match group_end(toks, k) {
                                Some(g) => e = g,
                                None => break,
                            }
                            break;
                        }
                        _ => break,
                    }
                }
                Some(e)
            }
            _ => None,
        };
        let Some(end) = end else {
            i += 1;
            continue;
        };
        // `CAST(operand AS BINARY)` (`BINARY (x)` alone would read as a call of a function BINARY)
        let space = || TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space));
        let tail = [
            space(),
            word("AS"),
            space(),
            word("BINARY"),
            TokenWithSpan::wrap(Token::RParen),
        ];
        let n = tail.len();
        toks.splice(end + 1..end + 1, tail);
        toks[i] = word("CAST");
        toks.insert(i + 1, TokenWithSpan::wrap(Token::LParen));
        i = end + 2 + n;
    }
}

/// If the tokens so far end with `INTERVAL <value>` (the value a literal, parameter, or a
/// balanced parenthesised/signed expression without a top-level comma), the index where the
/// value starts.
fn interval_value_start(res: &[TokenWithSpan]) -> Option<usize> {
    let mut depth = 0i32;
    let mut j = res.len();
    while j > 0 {
        j -= 1;
        match &res[j].token {
            Token::RParen => depth += 1,
            Token::LParen => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            Token::Comma | Token::SemiColon if depth == 0 => return None,
            Token::Word(w)
                if depth == 0 && w.quote_style.is_none() && w.keyword == Keyword::INTERVAL =>
            {
                let start = next_non_ws_idx(res, j + 1)?;
                return (start < res.len()).then_some(start);
            }
            Token::Word(w)
                if depth == 0
                    && w.quote_style.is_none()
                    && matches!(
                        w.keyword,
                        Keyword::SELECT | Keyword::FROM | Keyword::WHERE | Keyword::SET
                    ) =>
            {
                return None
            }
            _ => {}
        }
    }
    None
}

/// For `( UNIT FROM` at `i` with a compound MySQL unit (YEAR_MONTH, DAY_SECOND...): the unit
/// and the index after FROM.
fn compound_extract_unit(toks: &[TokenWithSpan], i: usize) -> Option<(String, usize)> {
    let lp = next_non_ws_idx(toks, i)?;
    if toks[lp].token != Token::LParen {
        return None;
    }
    let u = next_non_ws_idx(toks, lp + 1)?;
    let unit = match &toks[u].token {
        Token::Word(w) if w.quote_style.is_none() && w.value.contains('_') => {
            w.value.to_ascii_uppercase()
        }
        _ => return None,
    };
    func::arith::IntervalUnit::from_name(&unit)?;
    let from = next_non_ws_idx(toks, u + 1)?;
    match &toks[from].token {
        Token::Word(w) if w.keyword == Keyword::FROM => Some((unit, from + 1)),
        _ => None,
    }
}

/// True if the tokens from `i` are `( ... , ... )` with a comma at the top level: the MySQL
/// INTERVAL() function rather than `INTERVAL (expr) unit`.
fn is_interval_function(toks: &[TokenWithSpan], i: usize) -> bool {
    let Some(start) = next_non_ws_idx(toks, i) else {
        return false;
    };
    if toks[start].token != Token::LParen {
        return false;
    }
    let mut depth = 0usize;
    for t in &toks[start..] {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return false;
                }
            }
            Token::Comma if depth == 1 => return true,
            _ => {}
        }
    }
    false
}

/// Removes a `[DEFAULT] ENCRYPTION [=] 'N'` database option from `toks`; 'Y' is refused.
fn strip_encryption_option(toks: &mut Vec<TokenWithSpan>) -> Result<()> {
    let is_word = |t: &TokenWithSpan, w: &str| matches!(&t.token, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let Some(at) = toks.iter().position(|t| is_word(t, "ENCRYPTION")) else {
        return Ok(());
    };
    let mut start = at;
    if let Some(prev) = toks[..at]
        .iter()
        .rposition(|t| !matches!(t.token, Token::Whitespace(_)))
    {
        if is_word(&toks[prev], "DEFAULT") {
            start = prev;
        }
    }
    let mut end = at + 1;
    let mut j = next_non_ws_idx(toks, end);
    if let Some(k) = j {
        if toks[k].token == Token::Eq {
            end = k + 1;
            j = next_non_ws_idx(toks, end);
        }
    }
    match j.map(|k| (k, &toks[k].token)) {
        Some((k, Token::SingleQuotedString(v) | Token::DoubleQuotedString(v)))
            if v.eq_ignore_ascii_case("N") =>
        {
            end = k + 1
        }
        Some((_, Token::SingleQuotedString(_) | Token::DoubleQuotedString(_))) => {
            return Err(Error::not_supported("DEFAULT ENCRYPTION='Y'"))
        }
        _ => return Err(Error::parse("ENCRYPTION")),
    }
    toks.drain(start..end);
    Ok(())
}

/// `UPDATE [LOW_PRIORITY] [IGNORE] …`: sqlparser reads IGNORE only in SQLite's spelling
/// `UPDATE OR IGNORE` (which the executor then treats as MySQL's IGNORE); LOW_PRIORITY has no
/// effect on a row-locking engine (as with InnoDB) and is dropped.
fn update_modifiers(toks: &mut Vec<TokenWithSpan>) {
    if !words_follow(toks, 0, &["UPDATE"]) {
        return;
    }
    let i = skip_words(toks, 0, 1);
    if words_follow(toks, i, &["LOW_PRIORITY"]) {
        if let Some(j) = next_non_ws_idx(toks, i) {
            toks.remove(j);
        }
    }
    if words_follow(toks, i, &["IGNORE"]) {
        if let Some(j) = next_non_ws_idx(toks, i) {
            toks.insert(j, TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
            toks.insert(j, word("OR"));
        }
    }
}

/// Key of the option that carries `WITH [CASCADED | LOCAL] CHECK OPTION` of CREATE VIEW in
/// sqlparser's `CreateView::options` (sqlparser doesn't parse the clause; the name can't be
/// written in SQL, so it can't collide with a user's option).
pub const VIEW_CHECK_OPTION: &str = "\u{0}CHECK_OPTION";

/// Removes a trailing `WITH [CASCADED | LOCAL] CHECK OPTION` from `CREATE … VIEW … AS …` and
/// returns "CASCADED" (also for a bare WITH CHECK OPTION, as MySQL) or "LOCAL".
fn strip_view_check_option(toks: &mut Vec<TokenWithSpan>) -> Option<&'static str> {
    // only CREATE statements can be views: the others (every INSERT, SELECT…) leave at once
    let first = toks
        .iter()
        .find(|t| !matches!(t.token, Token::Whitespace(_)));
    if !matches!(first.map(|t| &t.token),
        Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("CREATE"))
    {
        return None;
    }
    let words: Vec<(usize, String)> = toks
        .iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)))
        .map(|(i, t)| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => (i, w.value.to_ascii_uppercase()),
            other => (i, format!("\u{0}{other}")),
        })
        .collect();
    if words.first().map(|w| w.1.as_str()) != Some("CREATE") {
        return None;
    }
    // VIEW before the first AS
    let as_pos = words.iter().position(|w| w.1 == "AS")?;
    if !words[..as_pos].iter().any(|w| w.1 == "VIEW") {
        return None;
    }
    let n = words.len();
    if n < 4 || words[n - 2].1 != "CHECK" || words[n - 1].1 != "OPTION" {
        return None;
    }
    let (with_at, kind) = match words[n - 3].1.as_str() {
        "CASCADED" | "LOCAL" if words[n - 4].1 == "WITH" => (
            words[n - 4].0,
            if words[n - 3].1 == "LOCAL" {
                "LOCAL"
            } else {
                "CASCADED"
            },
        ),
        "WITH" => (words[n - 3].0, "CASCADED"),
        _ => return None,
    };
    toks.truncate(with_at);
    Some(kind)
}

fn word(s: &str) -> TokenWithSpan {
    TokenWithSpan::wrap(Token::make_keyword(s))
}

/// The index of the `)` that closes the group opened at `open` (`None` at a `;` or the end).
pub(crate) fn group_end(toks: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            Token::SemiColon => return None,
            _ => {}
        }
    }
    None
}

/// The index of the first token at or after `i` that is not whitespace (or a comment).
pub(crate) fn next_non_ws_idx(toks: &[TokenWithSpan], mut i: usize) -> Option<usize> {
    while i < toks.len() {
        if !matches!(toks[i].token, Token::Whitespace(_)) {
            return Some(i);
        }
        i += 1;
    }
    None
}

fn next_non_ws(toks: &[TokenWithSpan], i: usize) -> Option<&TokenWithSpan> {
    next_non_ws_idx(toks, i).map(|j| &toks[j])
}

pub(crate) fn words_follow(toks: &[TokenWithSpan], mut i: usize, words: &[&str]) -> bool {
    for w in words {
        match next_non_ws_idx(toks, i) {
            Some(j) => match &toks[j].token {
                Token::Word(Word {
                    value,
                    quote_style: None,
                    ..
                }) if value.eq_ignore_ascii_case(w) => i = j + 1,
                _ => return false,
            },
            None => return false,
        }
    }
    true
}

fn skip_words(toks: &[TokenWithSpan], mut i: usize, n: usize) -> usize {
    for _ in 0..n {
        match next_non_ws_idx(toks, i) {
            Some(j) => i = j + 1,
            None => return toks.len(),
        }
    }
    i
}

/// Handles versioned comments: `/*!NNNNN body */` and `/*! body */` become `body` when NNNNN ≤
/// [`MYSQL_VERSION_ID`], and disappear otherwise. Markers are replaced by spaces of the same
/// length so token positions (used for column headers) stay aligned with the original text.
/// (sqlparser's own hint expansion ignores the version, so we do this before tokenizing.)
pub fn strip_versioned(sql: &str) -> std::borrow::Cow<'_, str> {
    if !sql.contains("/*!") {
        return std::borrow::Cow::Borrowed(sql);
    }
    let b = sql.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' && q != b'`' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = sql[i + 2..].find("*/").map(|p| i + 2 + p);
                let Some(end) = end else { break };
                if b.get(i + 2) == Some(&b'!') {
                    let digits = b[i + 3..end]
                        .iter()
                        .take_while(|c| c.is_ascii_digit())
                        .count();
                    let version: u32 = if digits >= 5 {
                        sql[i + 3..i + 8].parse().unwrap_or(0)
                    } else {
                        0
                    };
                    if version <= MYSQL_VERSION_ID {
                        let body_start = i + 3 + if digits >= 5 { 5 } else { 0 };
                        blank(&mut out, i, body_start);
                        blank(&mut out, end, end + 2);
                        // the body is scanned normally (it may hold strings); the blanked closing
                        // marker is skipped by the arm below
                        i = body_start;
                        continue;
                    }
                    blank(&mut out, i, end + 2);
                }
                i = end + 2;
            }
            b'*' if b.get(i + 1) == Some(&b'/') && out[i] == b' ' => i += 2,
            _ => i += 1,
        }
    }
    std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| sql.to_string()))
}

/// Parses `sql` into statements (several when the text holds several `;`-separated ones).
pub fn parse(sql: &str) -> Result<Vec<Parsed>> {
    parse_with(sql, SqlModeFlags::default())
}

/// [`parse`] under the given sql_mode flags.
pub fn parse_with(sql: &str, mode: SqlModeFlags) -> Result<Vec<Parsed>> {
    if let Some(p) =
        crate::parse::literal_rows::parse_text(sql, mode, |head| parse_tokenized(head, mode))
    {
        return Ok(vec![p]);
    }
    parse_tokenized(sql, mode)
}

/// [`parse_with`] through sqlparser's tokenizer (every statement but the bulk literal inserts
/// `literal_rows::parse_text` reads).
pub(crate) fn parse_tokenized(sql: &str, mode: SqlModeFlags) -> Result<Vec<Parsed>> {
    let (tokens, _params, zerofill) = tokenize_with(sql, mode)?;
    check_depth(&tokens)?;
    let mut stmts = Vec::new();
    for (idx, (toks, params)) in split_statements(tokens).into_iter().enumerate() {
        // The statement's text, for error messages and the few statements parsed from text.
        // Rendering every token costs as much as a tenth of a bulk INSERT's server time, so
        // the common path renders it only for an error, from a second tokenization.
        let text_of = || -> String {
            tokenize_with(sql, mode)
                .ok()
                .and_then(|(t, _, _)| split_statements(t).into_iter().nth(idx))
                .map(|(t, _)| render(&t))
                .unwrap_or_default()
        };
        let first = toks
            .iter()
            .find(|t| !matches!(t.token, Token::Whitespace(_)));
        let is_show =
            matches!(first.map(|t| &t.token), Some(Token::Word(w)) if w.keyword == Keyword::SHOW);
        // The statements recognised from their token list (SHOW, account management,
        // PREPARE, CHECK TABLE, LOAD DATA, ALTER/CREATE TABLE, EXPLAIN…) need all of it; plain
        // DML only its first words (copying the tokens of a bulk INSERT is not free).
        let dml = matches!(first.map(|t| &t.token), Some(Token::Word(w))
            if w.quote_style.is_none()
                && matches!(w.keyword, Keyword::INSERT | Keyword::REPLACE | Keyword::SELECT
                    | Keyword::UPDATE | Keyword::DELETE | Keyword::WITH));
        let plain: Vec<Token> = toks
            .iter()
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .take(if dml { 4 } else { usize::MAX })
            .map(|t| t.token.clone())
            .collect();
        let is_do = matches!(first.map(|t| &t.token), Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("DO"));
        let is_alter_table = matches!(
            (plain.first(), plain.get(1)),
            (Some(Token::Word(a)), Some(Token::Word(b)))
                if a.keyword == Keyword::ALTER && b.keyword == Keyword::TABLE
        );
        // EXPLAIN PARTITIONS / EXPLAIN EXTENDED (MySQL 5.x spellings): plain EXPLAIN, which
        // always shows the partitions column
        let mut toks = toks;
        let mut plain = plain;
        let is_explain = matches!(plain.first(), Some(Token::Word(w)) if w.quote_style.is_none()
            && matches!(w.value.to_ascii_uppercase().as_str(), "EXPLAIN" | "DESC" | "DESCRIBE"));
        if is_explain {
            if let Some(Token::Word(w)) = plain.get(1) {
                if w.quote_style.is_none()
                    && matches!(
                        w.value.to_ascii_uppercase().as_str(),
                        "PARTITIONS" | "EXTENDED"
                    )
                {
                    let target = w.value.clone();
                    if let Some(pos) = toks
                        .iter()
                        .position(|t| matches!(&t.token, Token::Word(x) if x.value == target))
                    {
                        toks.remove(pos);
                    }
                    plain.remove(1);
                }
            }
        }
        // CREATE DATABASE … [DEFAULT] ENCRYPTION [=] 'N' (MySQL 8.0.16+, in every
        // mysqldump / mariadb-dump of a MySQL 8 schema): unencrypted is all there is
        if words_follow(&toks, 0, &["CREATE", "DATABASE"])
            || words_follow(&toks, 0, &["CREATE", "SCHEMA"])
        {
            strip_encryption_option(&mut toks)?;
        }
        let is_create_table = {
            let mut w = plain.iter().filter_map(|t| match t {
                Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
                _ => None,
            });
            w.next().as_deref() == Some("CREATE")
                && match w.next().as_deref() {
                    Some("TABLE") => true,
                    Some("TEMPORARY") => w.next().as_deref() == Some("TABLE"),
                    _ => false,
                }
        };
        let text = if is_create_table || is_alter_table {
            render(&toks)
        } else {
            String::new()
        };
        let partitioned = if is_create_table {
            crate::parse::partition::split_create_table(&toks, &text)?
        } else {
            None
        };
        let stmt = if let Some((head, spec)) = partitioned {
            let head_text = render(&head);
            Stmt::CreatePartitioned(Box::new(parse_tokens(head, &head_text)?), Box::new(spec))
        } else if is_show {
            Stmt::Show(plain.into_iter().skip(1).collect())
        } else if let Some(r) = routine_stmt(&plain, &toks, sql) {
            Stmt::Routine(r?)
        } else if is_do {
            // DO e1, e2 == SELECT e1, e2 with the rows discarded
            let mut toks = toks;
            if let Some(t) = toks
                .iter_mut()
                .find(|t| !matches!(t.token, Token::Whitespace(_)))
            {
                t.token = Token::make_keyword("SELECT");
            }
            let text = render(&toks);
            Stmt::Do(Box::new(parse_tokens(toks, &text)?))
        } else if let Some(a) = crate::parse::acl::parse(&plain) {
            Stmt::Acl(a?)
        } else if let Some(p) = prepared_stmt(&plain) {
            p?
        } else if let Some(m) = crate::parse::maintenance::parse(&plain) {
            Stmt::Maintenance(m?)
        } else if let Some(b) = crate::parse::binlog::parse(&plain) {
            Stmt::Binlog(b?)
        } else if let Some(r) = crate::parse::replica::parse(&plain) {
            Stmt::Replica(r?)
        } else if let Some(l) = crate::parse::load::parse(&plain) {
            Stmt::LoadData(Box::new(l?))
        } else if is_alter_table {
            Stmt::AlterTable(crate::parse::alter::parse(toks, &text)?)
        } else if let Some(parts) = split_set_names(&toks) {
            Stmt::SetList(
                parts
                    .into_iter()
                    .map(|p| {
                        let t = render(&p);
                        parse_tokens(p, &t)
                    })
                    .collect::<Result<_>>()?,
            )
        } else {
            let mut toks = toks;
            update_modifiers(&mut toks);
            let check = strip_view_check_option(&mut toks);
            let rows = crate::parse::literal_rows::split(&mut toks);
            let mut stmt = parse_tokens_with(toks, &text_of)?;
            if let Some(rows) = rows {
                if !crate::parse::literal_rows::append(&mut stmt, rows) {
                    // not the one-row VALUES insert the tokens promised: parse the whole text
                    let (all, _, _) = tokenize_with(sql, mode)?;
                    let (mut toks, _) = split_statements(all)
                        .into_iter()
                        .nth(idx)
                        .ok_or_else(|| Error::parse(short_near(sql, "")))?;
                    update_modifiers(&mut toks);
                    stmt = parse_tokens_with(toks, &text_of)?;
                }
            }
            if let (Some(check), Statement::CreateView(cv)) = (check, &mut stmt) {
                cv.options = sqlparser::ast::CreateTableOptions::With(vec![
                    sqlparser::ast::SqlOption::KeyValue {
                        key: sqlparser::ast::Ident::new(VIEW_CHECK_OPTION),
                        value: sqlparser::ast::Expr::value(
                            sqlparser::ast::Value::SingleQuotedString(check.into()),
                        ),
                    },
                ]);
            }
            Stmt::Ast(stmt)
        };
        stmts.push(Parsed {
            stmt,
            sql: sql.to_string(),
            params,
            zerofill_columns: zerofill.clone(),
        });
    }
    if stmts.is_empty() {
        return Err(Error::new(common::codes::ER_EMPTY_QUERY, "Query was empty"));
    }
    Ok(stmts)
}

/// The routine statement (CREATE / ALTER / DROP PROCEDURE or FUNCTION, CALL) in `toks`, if
/// it is one; only statements starting with those words are looked at.
fn routine_stmt(
    plain: &[Token],
    toks: &[TokenWithSpan],
    sql: &str,
) -> Option<Result<crate::parse::routine::RoutineStmt>> {
    match plain.first() {
        Some(Token::Word(w))
            if w.quote_style.is_none()
                && matches!(
                    w.keyword,
                    Keyword::CREATE | Keyword::DROP | Keyword::ALTER | Keyword::CALL
                ) =>
        {
            crate::parse::routine::parse(toks, &strip_versioned(sql))
        }
        _ => None,
    }
}

/// Splits a token list on its semicolons into statements (whitespace-only ones dropped), each
/// with its placeholders renumbered `?1`, `?2`, … and their count; a stored program's body
/// stays whole ([`crate::parse::routine::join_compound`]).
fn split_statements(tokens: Vec<TokenWithSpan>) -> Vec<(Vec<TokenWithSpan>, usize)> {
    crate::parse::routine::join_compound(split_on_semicolons(tokens))
}

/// [`split_statements`] without the compound rule.
fn split_on_semicolons(tokens: Vec<TokenWithSpan>) -> Vec<(Vec<TokenWithSpan>, usize)> {
    let mut out = Vec::new();
    let mut cur: Vec<TokenWithSpan> = Vec::new();
    let mut flush = |mut cur: Vec<TokenWithSpan>| {
        if cur.iter().all(|t| matches!(t.token, Token::Whitespace(_))) {
            return;
        }
        let mut n = 0;
        for t in cur.iter_mut() {
            if let Token::Placeholder(_) = t.token {
                n += 1;
                t.token = Token::Placeholder(format!("?{n}"));
            }
        }
        out.push((cur, n));
    };
    if !tokens.iter().any(|t| t.token == Token::SemiColon) {
        // one statement: no copy (a bulk INSERT has thousands of tokens)
        flush(tokens);
        return out;
    }
    for t in tokens {
        if t.token == Token::SemiColon {
            flush(std::mem::take(&mut cur));
        } else {
            cur.push(t);
        }
    }
    flush(cur);
    out
}

/// The text of a token list.
fn render(toks: &[TokenWithSpan]) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    for t in toks {
        let _ = write!(text, "{}", t.token);
    }
    text
}

/// Deepest expression / subquery nesting the parser accepts.
pub const MAX_NESTING: usize = 256;

/// Deepest expression tree (parenthesis nesting plus the longest chain of operators at one
/// level, which sqlparser builds as a left-deep tree) the binder and executor accept: their
/// recursion over deeper trees would exhaust the thread stack.
pub const MAX_EXPR_DEPTH: usize = 2000;

/// MySQL's limit on nested subqueries (`MAX_SELECT_NESTING`).
pub const MAX_SELECT_NESTING: usize = 63;

fn stack_overrun(depth: usize) -> Error {
    Error::new(
        common::codes::ER_STACK_OVERRUN_NEED_MORE,
        format!("Thread stack overrun: expression nesting depth {depth} exceeds the limit of {MAX_EXPR_DEPTH}; simplify the statement"),
    )
}

/// Rejects statements whose expression trees would be too deep to bind and run, before
/// sqlparser builds them: 1473 for more than 63 nested subqueries (as MySQL), 1436 (MySQL's
/// "Thread stack overrun") for expressions deeper than [`MAX_EXPR_DEPTH`]. The depth is
/// estimated from the tokens: parenthesis nesting plus, per level, the operators since the
/// last comma or clause keyword.
pub fn check_depth(tokens: &[TokenWithSpan]) -> Result<()> {
    // per open parenthesis: (operator chain length at this level, is a subquery)
    let mut levels: Vec<(usize, bool)> = vec![(0, false)];
    let mut selects = 0usize;
    let mut after_lparen = false;
    for t in tokens {
        let tok = &t.token;
        if matches!(tok, Token::Whitespace(_)) {
            continue;
        }
        let was_after_lparen = std::mem::replace(&mut after_lparen, false);
        match tok {
            Token::LParen => {
                levels.push((0, false));
                after_lparen = true;
                if levels.len() > MAX_EXPR_DEPTH {
                    return Err(stack_overrun(levels.len()));
                }
            }
            Token::RParen if levels.len() > 1 => {
                if let Some((_, true)) = levels.pop() {
                    selects -= 1;
                }
            }
            Token::Comma => {
                if let Some(l) = levels.last_mut() {
                    l.0 = 0;
                }
            }
            Token::Word(w) if w.quote_style.is_none() => match w.keyword {
                Keyword::SELECT | Keyword::WITH if was_after_lparen => {
                    if let Some(l) = levels.last_mut() {
                        if !l.1 {
                            l.1 = true;
                            selects += 1;
                            if selects > MAX_SELECT_NESTING {
                                return Err(Error::new(
                                    common::codes::ER_TOO_HIGH_LEVEL_OF_NESTING_FOR_SELECT,
                                    "Too high level of nesting for select",
                                ));
                            }
                        }
                    }
                }
                Keyword::SELECT
                | Keyword::FROM
                | Keyword::WHERE
                | Keyword::HAVING
                | Keyword::ON
                | Keyword::WHEN
                | Keyword::THEN
                | Keyword::ELSE
                | Keyword::SET
                | Keyword::VALUES
                | Keyword::BY
                | Keyword::LIMIT => {
                    if let Some(l) = levels.last_mut() {
                        l.0 = 0;
                    }
                }
                Keyword::AND
                | Keyword::OR
                | Keyword::XOR
                | Keyword::NOT
                | Keyword::DIV
                | Keyword::MOD
                | Keyword::LIKE
                | Keyword::IS
                | Keyword::BETWEEN
                | Keyword::REGEXP
                | Keyword::RLIKE
                | Keyword::CASE
                | Keyword::INTERVAL => bump(&mut levels)?,
                _ => {}
            },
            Token::Plus
            | Token::Minus
            | Token::Mul
            | Token::Div
            | Token::Mod
            | Token::Eq
            | Token::DoubleEq
            | Token::Neq
            | Token::Lt
            | Token::Gt
            | Token::LtEq
            | Token::GtEq
            | Token::Spaceship
            | Token::StringConcat
            | Token::Ampersand
            | Token::Pipe
            | Token::Caret
            | Token::Tilde
            | Token::ExclamationMark
            | Token::ShiftLeft
            | Token::ShiftRight
            | Token::Arrow
            | Token::LongArrow
            | Token::Assignment => bump(&mut levels)?,
            _ => {}
        }
    }
    Ok(())
}

fn bump(levels: &mut [(usize, bool)]) -> Result<()> {
    let n = levels.len();
    if let Some(l) = levels.last_mut() {
        l.0 += 1;
        if n + l.0 > MAX_EXPR_DEPTH {
            return Err(stack_overrun(n + l.0));
        }
    }
    Ok(())
}

/// For `SET a = …, NAMES cs [COLLATE c], b = …` (a NAMES element among other assignments): the
/// token lists of the separate SET statements it amounts to (`SET a = …`, `SET NAMES …`,
/// `SET b = …`), in order. `None` for any other statement, including a lone `SET NAMES`.
fn split_set_names(toks: &[TokenWithSpan]) -> Option<Vec<Vec<TokenWithSpan>>> {
    let mut it = toks
        .iter()
        .skip_while(|t| matches!(t.token, Token::Whitespace(_)));
    match it.next().map(|t| &t.token) {
        Some(Token::Word(w)) if w.keyword == Keyword::SET && w.quote_style.is_none() => {}
        _ => return None,
    }
    // the assignment list, split at top-level commas
    let mut elems: Vec<Vec<TokenWithSpan>> = vec![Vec::new()];
    let mut depth = 0i32;
    for t in it {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                elems.push(Vec::new());
                continue;
            }
            _ => {}
        }
        elems.last_mut().expect("non-empty").push(t.clone());
    }
    let is_names = |e: &[TokenWithSpan]| {
        matches!(
            e.iter().find(|t| !matches!(t.token, Token::Whitespace(_))).map(|t| &t.token),
            Some(Token::Word(w)) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("NAMES")
        )
    };
    if elems.len() < 2 || !elems.iter().any(|e| is_names(e)) {
        return None;
    }
    let set = || {
        vec![
            TokenWithSpan::wrap(Token::make_keyword("SET")),
            TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)),
        ]
    };
    let mut out: Vec<Vec<TokenWithSpan>> = Vec::new();
    let mut run: Vec<TokenWithSpan> = Vec::new();
    for e in elems {
        if is_names(&e) {
            if !run.is_empty() {
                out.push(std::mem::take(&mut run));
            }
            let mut st = set();
            st.extend(e);
            out.push(st);
        } else {
            if run.is_empty() {
                run = set();
            } else {
                run.push(TokenWithSpan::wrap(Token::Comma));
            }
            run.extend(e);
        }
    }
    if !run.is_empty() {
        out.push(run);
    }
    Some(out)
}

fn parse_tokens(tokens: Vec<TokenWithSpan>, text: &str) -> Result<Statement> {
    parse_tokens_with(tokens, &|| text.to_string())
}

/// [`parse_tokens`], with the text (for error messages) made only when needed.
pub(crate) fn parse_tokens_with(
    tokens: Vec<TokenWithSpan>,
    text: &dyn Fn() -> String,
) -> Result<Statement> {
    let dialect = crate::parse::dialect::StrataDialect::default();
    // sqlparser's default nesting limit (50) rejects machine-generated WHERE clauses MySQL
    // accepts; deeper input still gets a clean syntax error instead of exhausting the stack
    let mut parser = Parser::new(&dialect)
        .with_recursion_limit(MAX_NESTING)
        .with_options(ParserOptions::new().with_trailing_commas(false))
        .with_tokens_with_locations(tokens);
    let stmt = parser.parse_statement().map_err(|e| match e {
        sqlparser::parser::ParserError::RecursionLimitExceeded => Error::new(
            common::codes::ER_STACK_OVERRUN_NEED_MORE,
            format!("Thread stack overrun: expression nesting deeper than {MAX_NESTING} levels; simplify the statement"),
        ),
        e => Error::parse(short_near(&text(), &e.to_string())),
    })?;
    // anything left over is a syntax error
    loop {
        match parser.peek_token().token {
            Token::EOF => break,
            Token::SemiColon => {
                parser.next_token();
            }
            _ => {
                let rest = parser.peek_token().to_string();
                return Err(Error::parse(near_text(&text(), &rest)));
            }
        }
    }
    not_in_mysql_grammar(&stmt, text)?;
    Ok(stmt)
}

/// Syntax sqlparser's MySQL dialect accepts but MySQL 8.4's grammar does not: a statement
/// using it is a syntax error there (1064), never run with the clause ignored.
fn not_in_mysql_grammar(stmt: &Statement, text: &dyn Fn() -> String) -> Result<()> {
    let returning = match stmt {
        Statement::Insert(i) => i.returning.is_some(),
        Statement::Update(u) => u.returning.is_some(),
        Statement::Delete(d) => d.returning.is_some(),
        _ => false,
    };
    if returning {
        let t = text();
        let at = t.to_ascii_uppercase().rfind("RETURNING").unwrap_or(0);
        return Err(Error::parse(t[at..].chars().take(80).collect::<String>()));
    }
    Ok(())
}

pub(crate) fn near_text(text: &str, tok: &str) -> String {
    match text.find(tok) {
        Some(p) => text[p..].chars().take(80).collect(),
        None => tok.to_string(),
    }
}

/// Builds the "near '…'" part from sqlparser's message ("Expected: X, found: Y at Line: 1, Column: N").
pub(crate) fn short_near(text: &str, msg: &str) -> String {
    if let Some(found) = msg.split("found: ").nth(1) {
        let tok = found.split(" at Line").next().unwrap_or(found);
        if tok == "EOF" {
            return String::new();
        }
        return near_text(text, tok);
    }
    text.chars().take(80).collect()
}

/// Parses an expression from tokens (used by SHOW ... WHERE).
pub fn parse_expr_tokens(tokens: Vec<Token>) -> Result<sqlparser::ast::Expr> {
    let dialect = crate::parse::dialect::StrataDialect::default();
    let text: String = tokens
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let mut p = Parser::new(&dialect).with_tokens(tokens);
    p.parse_expr()
        .map_err(|e| Error::parse(short_near(&text, &e.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_quotes_its_own_statement_of_several() {
        // the text is rebuilt only for the error, from the statement it belongs to
        let e = parse("SELECT 1; INSERT INTO t VALUES (?, 2) ORDER x").unwrap_err();
        assert_eq!(e.code.num, 1064);
        assert!(e.msg.contains("near 'ORDER x"), "{}", e.msg);
        let e = parse("SELECT 1 FROM t WHERE a = ? ?").unwrap_err();
        assert!(e.msg.contains("near '?2"), "{}", e.msg);
    }

    #[test]
    fn deep_nesting_parses_up_to_the_limit() {
        let deep = |n: usize| format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n));
        assert!(parse(&deep(150)).is_ok());
        let e = parse(&deep(400)).unwrap_err();
        assert_eq!(e.code.num, 1436);
        let e = parse(&deep(10_000)).unwrap_err();
        assert_eq!(e.code.num, 1436);
        let sum = |n: usize| format!("SELECT {}", vec!["1"; n].join(" + "));
        assert!(parse(&sum(1000)).is_ok());
        assert_eq!(parse(&sum(100_000)).unwrap_err().code.num, 1436);
        let subq = |n: usize| format!("SELECT {}1{}", "(SELECT ".repeat(n), ")".repeat(n));
        assert!(parse(&subq(63)).is_ok());
        assert_eq!(parse(&subq(64)).unwrap_err().code.num, 1473);
        assert_eq!(parse(&subq(1000)).unwrap_err().code.num, 1473);
        // long flat lists are not deep
        let inl = format!(
            "SELECT 1 IN ({})",
            (0..100_000)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(parse(&inl).is_ok());
        let vals = format!(
            "INSERT INTO t VALUES {}",
            (0..10_000)
                .map(|i| format!("({i}, -{i}, 'x')"))
                .collect::<Vec<_>>()
                .join(",")
        );
        assert!(parse(&vals).is_ok());
    }

    #[test]
    fn view_check_option_is_carried_in_the_options() {
        let check = |sql: &str| match &parse(sql).unwrap()[0].stmt {
            Stmt::Ast(Statement::CreateView(cv)) => cv.options.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(check("CREATE VIEW v AS SELECT 1 WITH CHECK OPTION").contains("CASCADED"));
        assert!(check(
            "CREATE OR REPLACE VIEW v AS SELECT a FROM t WHERE a > 0 WITH LOCAL CHECK OPTION"
        )
        .contains("LOCAL"));
        assert!(check("CREATE VIEW v AS SELECT 1 with cascaded check option").contains("CASCADED"));
        assert_eq!(
            check("CREATE VIEW v AS WITH c AS (SELECT 1) SELECT * FROM c"),
            ""
        );
        // only after CREATE … VIEW … AS
        assert!(parse("SELECT 1 WITH CHECK OPTION").is_err());
    }

    #[test]
    fn binary_binds_tighter_than_comparison() {
        let text = |sql: &str| match &parse(sql).unwrap()[0].stmt {
            Stmt::Ast(st) => st.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            text("SELECT BINARY 'a' = 'A'"),
            "SELECT CAST('a' AS BINARY) = 'A'"
        );
        assert_eq!(
            text("SELECT * FROM t WHERE BINARY t.c LIKE 'a%' AND BINARY f(x, (1)) > BINARY (y)"),
            "SELECT * FROM t WHERE CAST(t.c AS BINARY) LIKE 'a%' AND CAST(f(x, (1)) AS BINARY) > CAST((y) AS BINARY)"
        );
        // a type or character set, not the operator
        assert!(
            text("SELECT CAST(a AS BINARY), CONVERT(b USING binary)").contains("CAST(a AS BINARY)")
        );
        assert!(parse("CREATE TABLE t (a VARCHAR(5) CHARACTER SET binary, b BINARY(4))").is_ok());
    }

    #[test]
    fn update_ignore_and_low_priority() {
        for sql in [
            "UPDATE IGNORE t SET a = 1",
            "UPDATE LOW_PRIORITY IGNORE t SET a = 1",
        ] {
            match &parse(sql).unwrap()[0].stmt {
                Stmt::Ast(Statement::Update(u)) => {
                    assert_eq!(
                        u.or,
                        Some(sqlparser::ast::SqliteOnConflict::Ignore),
                        "{sql}"
                    );
                    assert_eq!(u.table.to_string(), "t");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn versioned_comments_keep_positions() {
        let s = "SELECT /*!50000 1 + */ 2 /*!99999 + 5 */, 'a /*!x*/'";
        let out = strip_versioned(s);
        assert_eq!(out.len(), s.len());
        assert_eq!(
            out.split_whitespace().collect::<Vec<_>>(),
            vec!["SELECT", "1", "+", "2", ",", "'a", "/*!x*/'"]
        );
    }

    #[test]
    fn versioned_comments_are_honoured() {
        let p =
            parse("CREATE TABLE t (a INT) /*!50100 ENGINE=InnoDB */ /*!99999 garbage */").unwrap();
        assert_eq!(p.len(), 1);
        assert!(matches!(&p[0].stmt, Stmt::Ast(s) if s.to_string().contains("ENGINE")));
    }

    #[test]
    fn interval_function_vs_interval_literal() {
        let p = parse(
            "SELECT INTERVAL(23, 1, 15), DATE_ADD(d, INTERVAL (1) DAY), INTERVAL (2) DAY + d",
        )
        .unwrap();
        let text = match &p[0].stmt {
            Stmt::Ast(s) => s.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(text.contains("`INTERVAL`(23, 1, 15)"), "{text}");
        assert!(text.contains("INTERVAL (1) DAY"), "{text}");
        let p = parse("SELECT EXTRACT(YEAR_MONTH FROM d), EXTRACT(DAY FROM d)").unwrap();
        let text = match &p[0].stmt {
            Stmt::Ast(s) => s.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(text.contains("`EXTRACT`('YEAR_MONTH', d)"), "{text}");
        assert!(text.contains("EXTRACT(DAY FROM d)"), "{text}");
        let p =
            parse("SELECT DATE_ADD(d, INTERVAL '1:30' HOUR_MINUTE), d - INTERVAL (1 + 1) DAY_HOUR")
                .unwrap();
        let text = match &p[0].stmt {
            Stmt::Ast(s) => s.to_string(),
            other => panic!("{other:?}"),
        };
        assert!(
            text.contains("INTERVAL `INTERVAL@UNIT`('HOUR_MINUTE', '1:30') DAY"),
            "{text}"
        );
        assert!(
            text.contains("INTERVAL `INTERVAL@UNIT`('DAY_HOUR', (1 + 1)) DAY"),
            "{text}"
        );
    }

    #[test]
    fn placeholders_numbered_per_statement() {
        let p = parse("SELECT ?, ?; SELECT ?").unwrap();
        assert_eq!(p[0].params, 2);
        assert_eq!(p[1].params, 1);
        assert!(matches!(&p[1].stmt, Stmt::Ast(s) if s.to_string().contains("?1")));
    }

    #[test]
    fn mysql_isms() {
        parse("SELECT * FROM t LOCK IN SHARE MODE").unwrap();
        parse("SELECT 7 MOD 2, MOD(7, 2)").unwrap();
        parse("CREATE TABLE t (a INT(5) UNSIGNED ZEROFILL)").unwrap();
        parse("START TRANSACTION WITH CONSISTENT SNAPSHOT").unwrap();
    }

    #[test]
    fn sql_prepared_statements() {
        let p =
            parse("PREPARE s FROM 'SELECT ? + ?'; EXECUTE s USING @a, @b; DEALLOCATE PREPARE s")
                .unwrap();
        assert!(
            matches!(&p[0].stmt, Stmt::Prepare { name, source: PrepareSource::Text(t) } if name == "s" && t == "SELECT ? + ?")
        );
        assert!(
            matches!(&p[1].stmt, Stmt::Execute { using, .. } if using == &["a".to_string(), "b".to_string()])
        );
        assert!(matches!(&p[2].stmt, Stmt::Deallocate(n) if n == "s"));
    }

    #[test]
    fn syntax_error_is_1064() {
        let e = parse("SELEC 1").unwrap_err();
        assert_eq!(e.num(), 1064);
        let e = parse("SELECT 1 FROM").unwrap_err();
        assert_eq!(e.num(), 1064);
    }
}
