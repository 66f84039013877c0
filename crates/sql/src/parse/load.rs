//! `LOAD DATA [LOCAL] INFILE` syntax (sqlparser only knows Hive's LOAD DATA): the statement's
//! tree ([`LoadStmt`]: file, target table and partitions, duplicate handling, character set,
//! FIELDS / LINES format, IGNORE n LINES, the column / `@var` list and SET assignments) read
//! from its tokens. It is run by [`crate::dml::load`].

use common::{codes, Error, Result};
use sqlparser::ast;
use sqlparser::tokenizer::Token;

/// What to do with a row whose key already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDup {
    /// Fail (the default for a server-side file).
    Error,
    /// Skip the row with a 1062 warning (IGNORE; the default for LOCAL).
    Ignore,
    /// Delete the old row (REPLACE).
    Replace,
}

/// Where a field of the input goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A column of the table (its name).
    Column(String),
    /// A user variable (`@name`, stored without the `@`).
    Var(String),
}

/// The FIELDS / LINES options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    /// FIELDS TERMINATED BY (default tab).
    pub field_term: Vec<u8>,
    /// FIELDS [OPTIONALLY] ENCLOSED BY (default none).
    pub enclosed: Option<u8>,
    /// FIELDS ESCAPED BY (default backslash; empty = none).
    pub escaped: Option<u8>,
    /// LINES STARTING BY (default empty).
    pub line_start: Vec<u8>,
    /// LINES TERMINATED BY (default newline).
    pub line_term: Vec<u8>,
}

impl Default for Format {
    fn default() -> Self {
        Format {
            field_term: b"\t".to_vec(),
            enclosed: None,
            escaped: Some(b'\\'),
            line_start: Vec::new(),
            line_term: b"\n".to_vec(),
        }
    }
}

/// A parsed LOAD DATA statement.
#[derive(Debug, Clone)]
pub struct LoadStmt {
    /// LOCAL: the file is on the client.
    pub local: bool,
    /// The file name as written.
    pub file: String,
    /// REPLACE / IGNORE / neither.
    pub on_dup: Option<OnDup>,
    /// Target table (optionally qualified).
    pub table: ast::ObjectName,
    /// PARTITION (p, …).
    pub partitions: Vec<String>,
    /// CHARACTER SET of the file.
    pub charset: Option<String>,
    /// Field and line format.
    pub format: Format,
    /// IGNORE n LINES.
    pub ignore_lines: u64,
    /// The column / variable list (empty = every column in table order).
    pub targets: Vec<Target>,
    /// SET col = expr, ….
    pub set: Vec<(String, ast::Expr)>,
}

fn tok_text(t: &Token) -> String {
    t.to_string()
}

/// Parses LOAD DATA from non-whitespace tokens; `None` when the statement is not LOAD DATA.
pub fn parse(plain: &[Token]) -> Option<Result<LoadStmt>> {
    let kw = |i: usize| match plain.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    if kw(0).as_deref() != Some("LOAD") {
        return None;
    }
    if kw(1).as_deref() == Some("XML") {
        return Some(Err(Error::not_supported("LOAD XML")));
    }
    if kw(1).as_deref() != Some("DATA") {
        return None;
    }
    Some(parse_load(plain))
}

fn parse_load(p: &[Token]) -> Result<LoadStmt> {
    let mut i = 2;
    let kw = |i: usize| match p.get(i) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.value.to_ascii_uppercase()),
        _ => None,
    };
    let bad = |i: usize| {
        Error::parse(
            p[i.min(p.len())..]
                .iter()
                .take(8)
                .map(tok_text)
                .collect::<Vec<_>>()
                .join(" "),
        )
    };
    let string = |i: usize| match p.get(i) {
        Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => Some(s.clone()),
        _ => None,
    };
    while matches!(kw(i).as_deref(), Some("LOW_PRIORITY" | "CONCURRENT")) {
        i += 1;
    }
    let local = kw(i).as_deref() == Some("LOCAL");
    if local {
        i += 1;
    }
    if kw(i).as_deref() != Some("INFILE") {
        return Err(bad(i));
    }
    i += 1;
    let file = string(i).ok_or_else(|| bad(i))?;
    i += 1;
    let on_dup = match kw(i).as_deref() {
        Some("REPLACE") => Some(OnDup::Replace),
        Some("IGNORE") => Some(OnDup::Ignore),
        _ => None,
    };
    if on_dup.is_some() {
        i += 1;
    }
    if kw(i).as_deref() != Some("INTO") || kw(i + 1).as_deref() != Some("TABLE") {
        return Err(bad(i));
    }
    i += 2;
    let mut parts = Vec::new();
    loop {
        match p.get(i) {
            Some(Token::Word(w)) => parts.push(ast::Ident {
                value: w.value.clone(),
                quote_style: w.quote_style,
                span: sqlparser::tokenizer::Span::empty(),
            }),
            _ => return Err(bad(i)),
        }
        i += 1;
        if p.get(i) == Some(&Token::Period) {
            i += 1;
            continue;
        }
        break;
    }
    let table = ast::ObjectName::from(parts);
    let mut st = LoadStmt {
        local,
        file,
        on_dup,
        table,
        partitions: Vec::new(),
        charset: None,
        format: Format::default(),
        ignore_lines: 0,
        targets: Vec::new(),
        set: Vec::new(),
    };
    if kw(i).as_deref() == Some("PARTITION") {
        i += 1;
        if p.get(i) != Some(&Token::LParen) {
            return Err(bad(i));
        }
        i += 1;
        loop {
            match p.get(i) {
                Some(Token::Word(w)) => st.partitions.push(w.value.clone()),
                _ => return Err(bad(i)),
            }
            i += 1;
            match p.get(i) {
                Some(Token::Comma) => i += 1,
                Some(Token::RParen) => {
                    i += 1;
                    break;
                }
                _ => return Err(bad(i)),
            }
        }
    }
    if kw(i).as_deref() == Some("CHARACTER") && kw(i + 1).as_deref() == Some("SET")
        || kw(i).as_deref() == Some("CHARSET")
    {
        i += if kw(i).as_deref() == Some("CHARSET") {
            1
        } else {
            2
        };
        st.charset = match p.get(i) {
            Some(Token::Word(w)) => Some(w.value.to_ascii_lowercase()),
            Some(Token::SingleQuotedString(s)) | Some(Token::DoubleQuotedString(s)) => {
                Some(s.to_ascii_lowercase())
            }
            _ => return Err(bad(i)),
        };
        i += 1;
    }
    // one character (or none) for ENCLOSED BY / ESCAPED BY: MySQL error 1083 otherwise
    let one_char = |s: &str| -> Result<Option<u8>> {
        match s.as_bytes() {
            [] => Ok(None),
            [c] => Ok(Some(*c)),
            _ => Err(Error::new(
                codes::ER_WRONG_FIELD_TERMINATORS,
                "Field separator argument is not what is expected; check the manual",
            )),
        }
    };
    if matches!(kw(i).as_deref(), Some("FIELDS" | "COLUMNS")) {
        i += 1;
        let mut any = false;
        loop {
            match kw(i).as_deref() {
                Some("TERMINATED") if kw(i + 1).as_deref() == Some("BY") => {
                    st.format.field_term = string(i + 2).ok_or_else(|| bad(i + 2))?.into_bytes();
                    i += 3;
                }
                Some("OPTIONALLY") if kw(i + 1).as_deref() == Some("ENCLOSED") => {
                    i += 1;
                    continue;
                }
                Some("ENCLOSED") if kw(i + 1).as_deref() == Some("BY") => {
                    st.format.enclosed = one_char(&string(i + 2).ok_or_else(|| bad(i + 2))?)?;
                    i += 3;
                }
                Some("ESCAPED") if kw(i + 1).as_deref() == Some("BY") => {
                    st.format.escaped = one_char(&string(i + 2).ok_or_else(|| bad(i + 2))?)?;
                    i += 3;
                }
                _ => break,
            }
            any = true;
        }
        if !any {
            return Err(bad(i));
        }
    }
    if kw(i).as_deref() == Some("LINES") {
        i += 1;
        let mut any = false;
        loop {
            match kw(i).as_deref() {
                Some("STARTING") if kw(i + 1).as_deref() == Some("BY") => {
                    st.format.line_start = string(i + 2).ok_or_else(|| bad(i + 2))?.into_bytes();
                    i += 3;
                }
                Some("TERMINATED") if kw(i + 1).as_deref() == Some("BY") => {
                    st.format.line_term = string(i + 2).ok_or_else(|| bad(i + 2))?.into_bytes();
                    i += 3;
                }
                _ => break,
            }
            any = true;
        }
        if !any {
            return Err(bad(i));
        }
    }
    if kw(i).as_deref() == Some("IGNORE") {
        let n = match p.get(i + 1) {
            Some(Token::Number(n, _)) => n.parse::<u64>().map_err(|_| bad(i + 1))?,
            _ => return Err(bad(i + 1)),
        };
        if !matches!(kw(i + 2).as_deref(), Some("LINES" | "ROWS")) {
            return Err(bad(i + 2));
        }
        st.ignore_lines = n;
        i += 3;
    }
    if p.get(i) == Some(&Token::LParen) {
        i += 1;
        if p.get(i) == Some(&Token::RParen) {
            i += 1;
        } else {
            loop {
                match p.get(i) {
                    Some(Token::Word(w)) if w.quote_style.is_none() && w.value.starts_with('@') => {
                        st.targets
                            .push(Target::Var(w.value[1..].to_ascii_lowercase()))
                    }
                    Some(Token::Word(w)) => {
                        // `t.col` / `db.t.col`: the last part names the column
                        let mut name = w.value.clone();
                        while p.get(i + 1) == Some(&Token::Period) {
                            match p.get(i + 2) {
                                Some(Token::Word(n)) => name = n.value.clone(),
                                _ => return Err(bad(i + 2)),
                            }
                            i += 2;
                        }
                        st.targets.push(Target::Column(name))
                    }
                    _ => return Err(bad(i)),
                }
                i += 1;
                match p.get(i) {
                    Some(Token::Comma) => i += 1,
                    Some(Token::RParen) => {
                        i += 1;
                        break;
                    }
                    _ => return Err(bad(i)),
                }
            }
        }
    }
    if kw(i).as_deref() == Some("SET") {
        i += 1;
        loop {
            // col [qualified] = expr, up to the next top-level comma
            let mut name = match p.get(i) {
                Some(Token::Word(w)) => w.value.clone(),
                _ => return Err(bad(i)),
            };
            while p.get(i + 1) == Some(&Token::Period) {
                match p.get(i + 2) {
                    Some(Token::Word(n)) => name = n.value.clone(),
                    _ => return Err(bad(i + 2)),
                }
                i += 2;
            }
            i += 1;
            if p.get(i) != Some(&Token::Eq) {
                return Err(bad(i));
            }
            i += 1;
            let start = i;
            let mut depth = 0i32;
            while let Some(t) = p.get(i) {
                match t {
                    Token::LParen => depth += 1,
                    Token::RParen => depth -= 1,
                    Token::Comma if depth == 0 => break,
                    _ => {}
                }
                i += 1;
            }
            if start == i {
                return Err(bad(i));
            }
            let e = crate::parse::parser::parse_expr_tokens(p[start..i].to_vec())?;
            st.set.push((name, e));
            if p.get(i) == Some(&Token::Comma) {
                i += 1;
                continue;
            }
            break;
        }
    }
    if i < p.len() {
        return Err(bad(i));
    }
    Ok(st)
}

/// One field of a record: its bytes, or `None` for NULL (`\N`, or the unquoted word NULL
/// when fields are enclosed).
pub type Field = Option<Vec<u8>>;
