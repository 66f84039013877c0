//! The statements that define and run stored routines: `CREATE {PROCEDURE|FUNCTION}`,
//! `ALTER …` (characteristics), `DROP … [IF EXISTS]` and `CALL` ([`RoutineStmt`]); the
//! statement splitter's rule that keeps a compound body (`BEGIN … END` holding `;`) in one
//! statement ([`join_compound`]); and the token cursor shared with the body language
//! ([`crate::parse::compound`]), which slices the source text by token positions so that
//! bodies and expressions are kept exactly as written.

use common::{codes, Error, Result};
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Whitespace};
pub use storage::catalog::routine::RoutineKind;

/// IN / OUT / INOUT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamMode {
    /// Passed in (the only mode of a function's parameters).
    In,
    /// Returned to the caller's variable.
    Out,
    /// Both.
    InOut,
}

impl ParamMode {
    /// `IN`, `OUT`, `INOUT`.
    pub fn name(self) -> &'static str {
        match self {
            ParamMode::In => "IN",
            ParamMode::Out => "OUT",
            ParamMode::InOut => "INOUT",
        }
    }
}

/// One declared parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamDecl {
    /// Mode (IN unless written).
    pub mode: ParamMode,
    /// Name as written.
    pub name: String,
    /// Type as written.
    pub ty: String,
}

/// The characteristics of a routine (`COMMENT`, `DETERMINISTIC`, data access, `SQL SECURITY`);
/// `None` where not written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Characteristics {
    /// `[NOT] DETERMINISTIC`.
    pub deterministic: Option<bool>,
    /// `CONTAINS SQL`, `NO SQL`, `READS SQL DATA`, `MODIFIES SQL DATA`.
    pub data_access: Option<&'static str>,
    /// `SQL SECURITY DEFINER|INVOKER`.
    pub security: Option<&'static str>,
    /// `COMMENT 'text'`.
    pub comment: Option<String>,
}

/// `CREATE [DEFINER = user] {PROCEDURE|FUNCTION} [IF NOT EXISTS] [db.]name (params)
/// [RETURNS type] characteristics body`.
#[derive(Debug, Clone)]
pub struct CreateRoutine {
    /// Procedure or function.
    pub kind: RoutineKind,
    /// `DEFINER = 'u'@'h'`; `None` for CURRENT_USER or when absent.
    pub definer: Option<(String, String)>,
    /// `IF NOT EXISTS`.
    pub if_not_exists: bool,
    /// Database, if qualified.
    pub db: Option<String>,
    /// Name.
    pub name: String,
    /// Parameters.
    pub params: Vec<ParamDecl>,
    /// The parameter list as written.
    pub param_list: String,
    /// A function's return type as written.
    pub returns: Option<String>,
    /// Characteristics.
    pub chars: Characteristics,
    /// The body as written.
    pub body: String,
}

/// A routine statement.
#[derive(Debug, Clone)]
pub enum RoutineStmt {
    /// CREATE PROCEDURE / FUNCTION.
    Create(Box<CreateRoutine>),
    /// ALTER PROCEDURE / FUNCTION name characteristics.
    Alter {
        /// Procedure or function.
        kind: RoutineKind,
        /// Database, if qualified.
        db: Option<String>,
        /// Name.
        name: String,
        /// The characteristics to change.
        chars: Characteristics,
    },
    /// DROP PROCEDURE / FUNCTION.
    Drop {
        /// Procedure or function.
        kind: RoutineKind,
        /// `IF EXISTS`.
        if_exists: bool,
        /// Database, if qualified.
        db: Option<String>,
        /// Name.
        name: String,
    },
    /// `CALL [db.]name[(args)]`.
    Call {
        /// Database, if qualified.
        db: Option<String>,
        /// Name.
        name: String,
        /// Argument expressions.
        args: Vec<sqlparser::ast::Expr>,
    },
}

// ---- the token cursor ----

/// A cursor over non-whitespace tokens that can cut the source text between tokens.
pub(crate) struct Cur<'a> {
    /// Tokens (no whitespace).
    pub toks: Vec<TokenWithSpan>,
    /// Position.
    pub i: usize,
    text: &'a str,
    lines: Vec<usize>,
}

impl<'a> Cur<'a> {
    /// A cursor over `toks` (whitespace is dropped) of source `text`.
    pub fn new(toks: &[TokenWithSpan], text: &'a str) -> Cur<'a> {
        let mut lines = vec![0];
        lines.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Cur {
            toks: toks
                .iter()
                .filter(|t| !matches!(t.token, Token::Whitespace(_)))
                .cloned()
                .collect(),
            i: 0,
            text,
            lines,
        }
    }

    /// Tokenizes `text` and returns a cursor over it.
    pub fn of_text(text: &'a str) -> Result<Cur<'a>> {
        let (toks, _, _) = crate::parse::parser::tokenize(text)?;
        Ok(Cur::new(&toks, text))
    }

    fn offset(&self, l: Location) -> Option<usize> {
        if l.line == 0 {
            return None;
        }
        let start = *self.lines.get(l.line as usize - 1)?;
        let line = &self.text[start..];
        let col = l.column.saturating_sub(1) as usize;
        Some(start + line.char_indices().nth(col).map_or(line.len(), |(b, _)| b))
    }

    /// The source text of tokens `from..to` (exclusive), as written.
    pub fn slice(&self, from: usize, to: usize) -> String {
        let start = self.toks[from..to]
            .iter()
            .find_map(|t| self.offset(t.span.start));
        let end = self.toks[from..to]
            .iter()
            .rev()
            .find_map(|t| self.offset(t.span.end));
        match (start, end) {
            (Some(a), Some(b)) if a <= b => self.text[a..b].to_string(),
            _ => self.toks[from..to]
                .iter()
                .map(|t| t.token.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// The token at `i`, if any.
    pub fn at(&self, i: usize) -> Option<&Token> {
        self.toks.get(i).map(|t| &t.token)
    }

    /// The current token.
    pub fn peek(&self) -> Option<&Token> {
        self.at(self.i)
    }

    /// The unquoted word at `i`, upper case.
    pub fn kw_at(&self, i: usize) -> Option<String> {
        match self.at(i) {
            Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
            _ => None,
        }
    }

    /// True if the current token is the keyword `kw`.
    pub fn is(&self, kw: &str) -> bool {
        self.kw_at(self.i).as_deref() == Some(kw)
    }

    /// Consumes keyword `kw` if present.
    pub fn eat(&mut self, kw: &str) -> bool {
        let yes = self.is(kw);
        if yes {
            self.i += 1;
        }
        yes
    }

    /// Consumes the keywords `kws` if all are present in order.
    pub fn eat_seq(&mut self, kws: &[&str]) -> bool {
        let yes = kws
            .iter()
            .enumerate()
            .all(|(k, w)| self.kw_at(self.i + k).as_deref() == Some(*w));
        if yes {
            self.i += kws.len();
        }
        yes
    }

    /// Consumes token `t` if present.
    pub fn eat_tok(&mut self, t: &Token) -> bool {
        let yes = self.peek() == Some(t);
        if yes {
            self.i += 1;
        }
        yes
    }

    /// Requires keyword `kw`.
    pub fn expect(&mut self, kw: &str) -> Result<()> {
        if self.eat(kw) {
            Ok(())
        } else {
            Err(self.err())
        }
    }

    /// Requires token `t`.
    pub fn expect_tok(&mut self, t: &Token) -> Result<()> {
        if self.eat_tok(t) {
            Ok(())
        } else {
            Err(self.err())
        }
    }

    /// True at the end.
    pub fn done(&self) -> bool {
        self.i >= self.toks.len()
    }

    /// A 1064 error quoting the text from the current token on.
    pub fn err(&self) -> Error {
        if self.done() {
            return Error::parse("");
        }
        let rest = self.slice(self.i, self.toks.len());
        Error::parse(rest.chars().take(80).collect::<String>())
    }

    /// An identifier (quoted or not).
    pub fn ident(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::Word(w)) => {
                let v = w.value.clone();
                self.i += 1;
                Ok(v)
            }
            _ => Err(self.err()),
        }
    }

    /// `[db.]name`.
    pub fn qualified(&mut self) -> Result<(Option<String>, String)> {
        let first = self.ident()?;
        if self.eat_tok(&Token::Period) {
            Ok((Some(first), self.ident()?))
        } else {
            Ok((None, first))
        }
    }

    /// A string literal.
    pub fn string(&mut self) -> Result<String> {
        match self.peek() {
            Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => {
                let v = s.clone();
                self.i += 1;
                Ok(v)
            }
            _ => Err(self.err()),
        }
    }

    /// The index of the token closing the parenthesis at `open`.
    pub fn close_of(&self, open: usize) -> Option<usize> {
        let mut depth = 0;
        for (k, t) in self.toks.iter().enumerate().skip(open) {
            match t.token {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(k);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// A data type as written: a name, `(args)`, then UNSIGNED / ZEROFILL / BINARY /
    /// CHARACTER SET x / COLLATE x attributes.
    pub fn data_type(&mut self) -> Result<String> {
        let from = self.i;
        let base = self.kw_at(self.i).ok_or_else(|| self.err())?;
        self.i += 1;
        match base.as_str() {
            "DOUBLE" => {
                self.eat("PRECISION");
            }
            "NATIONAL" | "LONG" => {
                self.i += 1;
            }
            "CHAR" | "CHARACTER" | "NCHAR" => {
                self.eat("VARYING");
            }
            _ => {}
        }
        if self.peek() == Some(&Token::LParen) {
            self.i = self.close_of(self.i).ok_or_else(|| self.err())? + 1;
        }
        loop {
            if self.eat("UNSIGNED")
                || self.eat("SIGNED")
                || self.eat("ZEROFILL")
                || self.eat("BINARY")
                || self.eat("ASCII")
                || self.eat("UNICODE")
            {
                continue;
            }
            if self.eat_seq(&["CHARACTER", "SET"]) || self.eat("CHARSET") || self.eat("COLLATE") {
                self.ident().or_else(|_| self.string())?;
                continue;
            }
            break;
        }
        Ok(self.slice(from, self.i))
    }
}

// ---- statements ----

/// The routine statement in `toks` (the statement's tokens, whitespace included, of source
/// `text`), or `None` when it is not one.
pub fn parse(toks: &[TokenWithSpan], text: &str) -> Option<Result<RoutineStmt>> {
    let mut c = Cur::new(toks, text);
    match c.kw_at(0).as_deref() {
        Some("CREATE") => {
            let mut j = 1;
            if c.kw_at(1).as_deref() == Some("DEFINER") {
                j = definer_end(&c, 2)?;
            }
            match c.kw_at(j).as_deref() {
                Some("PROCEDURE") | Some("FUNCTION") => {}
                _ => return None,
            }
            // `CREATE FUNCTION f RETURNS STRING SONAME 'lib.so'` is a loadable function
            if (c.toks.iter()).any(|t| matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("SONAME")))
            {
                return None;
            }
            c.i = 1;
            Some(create(&mut c).map(|cr| RoutineStmt::Create(Box::new(cr))))
        }
        Some("DROP") | Some("ALTER") => {
            let kind = match c.kw_at(1).as_deref() {
                Some("PROCEDURE") => RoutineKind::Procedure,
                Some("FUNCTION") => RoutineKind::Function,
                _ => return None,
            };
            c.i = 2;
            Some(if c.kw_at(0).as_deref() == Some("DROP") {
                drop_stmt(&mut c, kind)
            } else {
                alter_stmt(&mut c, kind)
            })
        }
        Some("CALL") => {
            c.i = 1;
            Some(call(&mut c))
        }
        _ => None,
    }
}

/// The index after a `DEFINER = user` clause whose user starts at `i` (the `=` there).
fn definer_end(c: &Cur<'_>, i: usize) -> Option<usize> {
    let mut j = i;
    if c.at(j) != Some(&Token::Eq) {
        return None;
    }
    j += 1;
    if c.kw_at(j).as_deref() == Some("CURRENT_USER") {
        j += 1;
        if c.at(j) == Some(&Token::LParen) {
            j += 2;
        }
        return Some(j);
    }
    // user, then `@host` as one word, as `@` + name, or nothing
    j += 1;
    match c.at(j) {
        Some(Token::AtSign) => Some(j + 2),
        Some(Token::Word(w)) if w.value.starts_with('@') && w.quote_style.is_none() => Some(j + 1),
        Some(Token::SingleQuotedString(_)) | Some(Token::Word(_)) if matches!(c.at(j - 1), Some(Token::Word(w)) if w.value.ends_with('@')) => {
            Some(j + 1)
        }
        _ => Some(j),
    }
}

fn word_text(t: &Token) -> Option<String> {
    match t {
        Token::Word(w) => Some(w.value.clone()),
        Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Some(s.clone()),
        _ => None,
    }
}

/// `DEFINER = …` at the cursor (after DEFINER): the account, `None` for CURRENT_USER.
fn definer(c: &mut Cur<'_>) -> Result<Option<(String, String)>> {
    let end = definer_end(c, c.i).ok_or_else(|| c.err())?;
    c.i += 1;
    if c.is("CURRENT_USER") {
        c.i = end;
        return Ok(None);
    }
    let first = c.peek().and_then(word_text).ok_or_else(|| c.err())?;
    let (user, host) = match c.at(c.i + 1) {
        Some(Token::AtSign) => (
            first,
            c.at(c.i + 2).and_then(word_text).ok_or_else(|| c.err())?,
        ),
        Some(Token::Word(w)) if w.value.starts_with('@') && w.quote_style.is_none() => {
            (first, w.value[1..].trim_matches('`').to_string())
        }
        Some(t) if first.ends_with('@') && end == c.i + 2 => (
            first.trim_end_matches('@').to_string(),
            word_text(t).unwrap_or_default(),
        ),
        _ => match first.split_once('@') {
            Some((u, h)) => (u.to_string(), h.to_string()),
            None => (first, "%".to_string()),
        },
    };
    c.i = end;
    Ok(Some((user, host.to_ascii_lowercase())))
}

fn create(c: &mut Cur<'_>) -> Result<CreateRoutine> {
    let definer = if c.eat("DEFINER") { definer(c)? } else { None };
    let kind = if c.eat("PROCEDURE") {
        RoutineKind::Procedure
    } else {
        c.expect("FUNCTION")?;
        RoutineKind::Function
    };
    let if_not_exists = c.eat_seq(&["IF", "NOT", "EXISTS"]);
    let (db, name) = c.qualified()?;
    check_name(&name)?;
    let open = c.i;
    c.expect_tok(&Token::LParen)?;
    let close = c.close_of(open).ok_or_else(|| c.err())?;
    let param_list = if close > open + 1 {
        c.slice(open + 1, close)
    } else {
        String::new()
    };
    let mut params = Vec::new();
    while c.i < close {
        let mode = if kind == RoutineKind::Procedure {
            if c.eat("INOUT") {
                ParamMode::InOut
            } else if c.eat("OUT") {
                ParamMode::Out
            } else {
                c.eat("IN");
                ParamMode::In
            }
        } else {
            ParamMode::In
        };
        let pname = c.ident()?;
        if params
            .iter()
            .any(|p: &ParamDecl| p.name.eq_ignore_ascii_case(&pname))
        {
            return Err(Error::new(
                codes::ER_SP_DUP_PARAM,
                format!("Duplicate parameter: {pname}"),
            ));
        }
        let ty = c.data_type()?;
        params.push(ParamDecl {
            mode,
            name: pname,
            ty,
        });
        if c.i < close {
            c.expect_tok(&Token::Comma)?;
        }
    }
    c.i = close + 1;
    let returns = if kind == RoutineKind::Function {
        c.expect("RETURNS")?;
        Some(c.data_type()?)
    } else {
        None
    };
    let chars = characteristics(c)?;
    if c.done() {
        return Err(Error::parse(""));
    }
    let body = c.slice(c.i, c.toks.len());
    Ok(CreateRoutine {
        kind,
        definer,
        if_not_exists,
        db,
        name,
        params,
        param_list,
        returns,
        chars,
        body,
    })
}

/// 1458 for a name MySQL refuses (empty, trailing space, too long).
fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.ends_with(' ') || name.chars().count() > 64 {
        return Err(Error::new(
            codes::ER_SP_WRONG_NAME,
            format!("Incorrect routine name '{name}'"),
        ));
    }
    Ok(())
}

fn characteristics(c: &mut Cur<'_>) -> Result<Characteristics> {
    let mut ch = Characteristics::default();
    loop {
        if c.eat("COMMENT") {
            ch.comment = Some(c.string()?);
        } else if c.eat_seq(&["LANGUAGE", "SQL"]) {
        } else if c.eat_seq(&["NOT", "DETERMINISTIC"]) {
            ch.deterministic = Some(false);
        } else if c.eat("DETERMINISTIC") {
            ch.deterministic = Some(true);
        } else if c.eat_seq(&["CONTAINS", "SQL"]) {
            ch.data_access = Some("CONTAINS SQL");
        } else if c.eat_seq(&["NO", "SQL"]) {
            ch.data_access = Some("NO SQL");
        } else if c.eat_seq(&["READS", "SQL", "DATA"]) {
            ch.data_access = Some("READS SQL DATA");
        } else if c.eat_seq(&["MODIFIES", "SQL", "DATA"]) {
            ch.data_access = Some("MODIFIES SQL DATA");
        } else if c.eat_seq(&["SQL", "SECURITY"]) {
            ch.security = Some(if c.eat("DEFINER") {
                "DEFINER"
            } else {
                c.expect("INVOKER")?;
                "INVOKER"
            });
        } else {
            return Ok(ch);
        }
    }
}

fn drop_stmt(c: &mut Cur<'_>, kind: RoutineKind) -> Result<RoutineStmt> {
    let if_exists = c.eat_seq(&["IF", "EXISTS"]);
    let (db, name) = c.qualified()?;
    if !c.done() {
        return Err(c.err());
    }
    Ok(RoutineStmt::Drop {
        kind,
        if_exists,
        db,
        name,
    })
}

fn alter_stmt(c: &mut Cur<'_>, kind: RoutineKind) -> Result<RoutineStmt> {
    let (db, name) = c.qualified()?;
    let chars = characteristics(c)?;
    if !c.done() {
        return Err(c.err());
    }
    Ok(RoutineStmt::Alter {
        kind,
        db,
        name,
        chars,
    })
}

fn call(c: &mut Cur<'_>) -> Result<RoutineStmt> {
    let (db, name) = c.qualified()?;
    let mut args = Vec::new();
    if c.peek() == Some(&Token::LParen) {
        let close = c.close_of(c.i).ok_or_else(|| c.err())?;
        c.i += 1;
        for (from, to) in split_commas(c, c.i, close) {
            let toks: Vec<Token> = c.toks[from..to].iter().map(|t| t.token.clone()).collect();
            args.push(crate::parse::parser::parse_expr_tokens(toks)?);
        }
        c.i = close + 1;
    }
    if !c.done() {
        return Err(c.err());
    }
    Ok(RoutineStmt::Call { db, name, args })
}

/// The comma-separated parts of tokens `from..to` (commas inside parentheses kept), as
/// ranges; none for an empty range.
pub(crate) fn split_commas(c: &Cur<'_>, from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if from >= to {
        return out;
    }
    let mut depth = 0;
    let mut start = from;
    for k in from..to {
        match c.toks[k].token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Comma if depth == 0 => {
                out.push((start, k));
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push((start, to));
    out
}

// ---- statement splitting ----

/// True if the statement's tokens start a stored program whose body may hold `;`:
/// `CREATE [DEFINER = …] {PROCEDURE | FUNCTION | TRIGGER | EVENT}`.
fn is_program(toks: &[TokenWithSpan]) -> bool {
    let words: Vec<String> = toks
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .take(12)
        .map(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
            _ => String::new(),
        })
        .collect();
    words.first().map(String::as_str) == Some("CREATE")
        && words
            .iter()
            .any(|w| matches!(w.as_str(), "PROCEDURE" | "FUNCTION" | "TRIGGER" | "EVENT"))
}

/// How many compound blocks the tokens leave open: `BEGIN` and `CASE` open one, `END` and
/// `END CASE` close one; `END IF / LOOP / WHILE / REPEAT` close constructs that are not
/// counted (their openers are words that also name functions: `IF()`, `REPEAT()`).
fn open_blocks(toks: &[TokenWithSpan]) -> i32 {
    let words: Vec<String> = toks
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .map(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
            _ => String::new(),
        })
        .collect();
    let mut depth = 0;
    let mut k = 0;
    while k < words.len() {
        match words[k].as_str() {
            "BEGIN" => depth += 1,
            "CASE" => depth += 1,
            "END" => match words.get(k + 1).map(String::as_str) {
                Some("IF" | "LOOP" | "WHILE" | "REPEAT") => k += 1,
                Some("CASE") => {
                    depth -= 1;
                    k += 1;
                }
                _ => depth -= 1,
            },
            _ => {}
        }
        k += 1;
    }
    depth
}

/// Joins the pieces a `;` split apart inside a stored program's body: a piece that starts a
/// program and leaves blocks open takes the following pieces (with their `;`) until its
/// blocks close. Placeholder counts add up.
pub(crate) fn join_compound(
    pieces: Vec<(Vec<TokenWithSpan>, usize)>,
) -> Vec<(Vec<TokenWithSpan>, usize)> {
    if !pieces.iter().any(|(t, _)| is_program(t)) {
        return pieces;
    }
    let mut out: Vec<(Vec<TokenWithSpan>, usize)> = Vec::new();
    let mut open = 0;
    for (toks, n) in pieces {
        if open > 0 {
            let (last, count) = out.last_mut().expect("an open program");
            last.push(TokenWithSpan::wrap(Token::SemiColon));
            last.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
            open += open_blocks(&toks);
            last.extend(toks);
            *count += n;
            continue;
        }
        if is_program(&toks) {
            open = open_blocks(&toks).max(0);
        }
        out.push((toks, n));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmt(sql: &str) -> RoutineStmt {
        let (toks, _, _) = crate::parse::parser::tokenize(sql).unwrap();
        parse(&toks, sql).unwrap().unwrap()
    }

    #[test]
    fn the_articles_function_keeps_its_texts() {
        let sql = "CREATE DEFINER=`root`@`localhost` FUNCTION `ordered_uuid`(uuid BINARY(36))\nRETURNS binary(16) DETERMINISTIC\nRETURN UNHEX(CONCAT(SUBSTR(uuid, 15, 4),SUBSTR(uuid, 25)))";
        let RoutineStmt::Create(c) = stmt(sql) else {
            panic!()
        };
        assert_eq!(c.definer, Some(("root".into(), "localhost".into())));
        assert_eq!(c.name, "ordered_uuid");
        assert_eq!(c.param_list, "uuid BINARY(36)");
        assert_eq!(c.params[0].ty, "BINARY(36)");
        assert_eq!(c.returns.as_deref(), Some("binary(16)"));
        assert_eq!(c.chars.deterministic, Some(true));
        assert_eq!(
            c.body,
            "RETURN UNHEX(CONCAT(SUBSTR(uuid, 15, 4),SUBSTR(uuid, 25)))"
        );
    }

    #[test]
    fn procedures_parameters_and_characteristics() {
        let sql = "CREATE PROCEDURE IF NOT EXISTS d.p(IN a INT, OUT b VARCHAR(10) CHARSET latin1, INOUT c DECIMAL(5,2) UNSIGNED) COMMENT 'x' SQL SECURITY INVOKER READS SQL DATA BEGIN SELECT 1; END";
        let RoutineStmt::Create(c) = stmt(sql) else {
            panic!()
        };
        assert!(c.if_not_exists);
        assert_eq!(c.db.as_deref(), Some("d"));
        let modes: Vec<_> = c.params.iter().map(|p| p.mode).collect();
        assert_eq!(modes, [ParamMode::In, ParamMode::Out, ParamMode::InOut]);
        assert_eq!(c.params[1].ty, "VARCHAR(10) CHARSET latin1");
        assert_eq!(c.chars.security, Some("INVOKER"));
        assert_eq!(c.chars.data_access, Some("READS SQL DATA"));
        assert_eq!(c.body, "BEGIN SELECT 1; END");
        let e =
            crate::parse::parser::parse("CREATE PROCEDURE p(a INT, A INT) BEGIN END").unwrap_err();
        assert_eq!(e.code.num, 1330);
    }

    #[test]
    fn a_body_with_semicolons_stays_one_statement() {
        let sql = "CREATE PROCEDURE p() BEGIN DECLARE x INT DEFAULT 0; IF x THEN SET x = CASE WHEN 1 THEN 2 END; END IF; lbl: LOOP LEAVE lbl; END LOOP lbl; END; SELECT 1";
        let p = crate::parse::parser::parse(sql).unwrap();
        assert_eq!(p.len(), 2);
    }

    #[test]
    fn call_and_drop() {
        match stmt("CALL d.p(1, @x, 'a')") {
            RoutineStmt::Call { db, name, args } => {
                assert_eq!(
                    (db.as_deref(), name.as_str(), args.len()),
                    (Some("d"), "p", 3)
                );
            }
            _ => panic!(),
        }
        assert!(matches!(
            stmt("DROP FUNCTION IF EXISTS f"),
            RoutineStmt::Drop {
                if_exists: true,
                ..
            }
        ));
    }
}
