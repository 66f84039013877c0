//! The partitioning clause's syntax: `PARTITION BY …` of CREATE TABLE ([`PartSpec`], found by
//! [`split_create_table`]) and ALTER TABLE's partition operations ([`PartOp`], parsed by
//! [`parse_alter_op`]), as written. Validating them against a table and building the
//! dictionary's partitioning is `crate::catalog::partition`'s.
//!
//! May use: [`crate::runtime`] and the rest of this stage.

use common::{Error, Result};
use sqlparser::ast;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;
use storage::catalog::PartMethod;

/// A partitioning function as written.
#[derive(Debug, Clone)]
pub struct FuncSpec {
    /// Method.
    pub method: PartMethod,
    /// LINEAR.
    pub linear: bool,
    /// COLUMNS form.
    pub columns_form: bool,
    /// The expression (RANGE / LIST / HASH).
    pub expr: Option<ast::Expr>,
    /// Columns (KEY / COLUMNS).
    pub columns: Vec<String>,
    /// ALGORITHM = n of KEY.
    pub algorithm: Option<u8>,
}

/// A value of `VALUES LESS THAN` / `VALUES IN` as written (`None` = MAXVALUE).
pub type ValueSpec = Option<ast::Expr>;

/// The VALUES clause as written.
#[derive(Debug, Clone)]
pub enum ValuesSpec {
    /// None.
    None,
    /// `LESS THAN (…)` or `LESS THAN MAXVALUE` (one `None`).
    LessThan(Vec<ValueSpec>),
    /// `IN (…)`: each entry a tuple (a single value is a 1-tuple); `paren` says whether the
    /// entry was written as a parenthesised row.
    In(Vec<(Vec<ValueSpec>, bool)>),
}

/// One `PARTITION name …` definition as written.
#[derive(Debug, Clone)]
pub struct PartDefSpec {
    /// Name.
    pub name: String,
    /// VALUES.
    pub values: ValuesSpec,
    /// COMMENT.
    pub comment: Option<String>,
    /// `(SUBPARTITION name [COMMENT '…'], …)`.
    pub subs: Vec<(String, Option<String>)>,
}

/// A `PARTITION BY …` clause as written.
#[derive(Debug, Clone)]
pub struct PartSpec {
    /// PARTITION BY.
    pub func: FuncSpec,
    /// PARTITIONS n.
    pub count: Option<u64>,
    /// SUBPARTITION BY.
    pub sub: Option<FuncSpec>,
    /// SUBPARTITIONS n.
    pub sub_count: Option<u64>,
    /// The partition definitions, if given.
    pub parts: Vec<PartDefSpec>,
}

fn peek_word(p: &Parser<'_>) -> String {
    match p.peek_token().token {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
        _ => String::new(),
    }
}

fn eat_word(p: &mut Parser<'_>, w: &str) -> bool {
    if peek_word(p) == w {
        p.next_token();
        true
    } else {
        false
    }
}

fn expect_word(p: &mut Parser<'_>, w: &str) -> std::result::Result<(), ParserError> {
    if eat_word(p, w) {
        Ok(())
    } else {
        let t = p.peek_token();
        p.expected(w, t)
    }
}

fn parse_count(p: &mut Parser<'_>) -> std::result::Result<u64, ParserError> {
    let t = p.next_token();
    match &t.token {
        Token::Number(n, _) => n
            .parse()
            .map_err(|_| ParserError::ParserError(format!("bad number {n}"))),
        _ => p.expected("a number", t),
    }
}

fn parse_ident_list(p: &mut Parser<'_>) -> std::result::Result<Vec<String>, ParserError> {
    p.expect_token(&Token::LParen)?;
    let mut out = Vec::new();
    if p.consume_token(&Token::RParen) {
        return Ok(out);
    }
    loop {
        out.push(p.parse_identifier()?.value);
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    p.expect_token(&Token::RParen)?;
    Ok(out)
}

/// `[LINEAR] HASH (expr) | [LINEAR] KEY [ALGORITHM = n] (cols) | RANGE … | LIST …`.
fn parse_func(p: &mut Parser<'_>, sub: bool) -> std::result::Result<FuncSpec, ParserError> {
    let linear = eat_word(p, "LINEAR");
    let w = peek_word(p);
    let method = match w.as_str() {
        "HASH" => PartMethod::Hash,
        "KEY" => PartMethod::Key,
        "RANGE" if !linear && !sub => PartMethod::Range,
        "LIST" if !linear && !sub => PartMethod::List,
        _ => {
            let t = p.peek_token();
            return p.expected("HASH, KEY, RANGE or LIST", t);
        }
    };
    p.next_token();
    let mut f = FuncSpec {
        method,
        linear,
        columns_form: false,
        expr: None,
        columns: Vec::new(),
        algorithm: None,
    };
    match method {
        PartMethod::Key => {
            if eat_word(p, "ALGORITHM") {
                let _ = p.consume_token(&Token::Eq);
                let n = parse_count(p)?;
                if !(1..=2).contains(&n) {
                    return Err(ParserError::ParserError(format!("ALGORITHM = {n}")));
                }
                f.algorithm = Some(n as u8);
            }
            f.columns = parse_ident_list(p)?;
        }
        PartMethod::Range | PartMethod::List
            if eat_word(p, "COLUMNS") || {
                // the 2008 draft spelling COLUMN_LIST(a, b)
                eat_word(p, "COLUMN_LIST")
            } =>
        {
            f.columns_form = true;
            f.columns = parse_ident_list(p)?;
        }
        _ => {
            p.expect_token(&Token::LParen)?;
            f.expr = Some(p.parse_expr()?);
            p.expect_token(&Token::RParen)?;
        }
    }
    Ok(f)
}

/// True if `e` is the bare word MAXVALUE.
fn is_maxvalue(e: &ast::Expr) -> bool {
    matches!(e, ast::Expr::Identifier(i) if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("MAXVALUE"))
}

fn value_spec(e: ast::Expr) -> ValueSpec {
    if is_maxvalue(&e) {
        None
    } else {
        Some(e)
    }
}

/// Partition / subpartition options: `[STORAGE] ENGINE [=] x`, `COMMENT [=] 'x'`, and the
/// ignored DATA/INDEX DIRECTORY, MAX_ROWS, MIN_ROWS, TABLESPACE, NODEGROUP.
fn parse_part_options(p: &mut Parser<'_>) -> std::result::Result<Option<String>, ParserError> {
    let mut comment = None;
    loop {
        let w = peek_word(p);
        match w.as_str() {
            "STORAGE" | "ENGINE" => {
                eat_word(p, "STORAGE");
                expect_word(p, "ENGINE")?;
                let _ = p.consume_token(&Token::Eq);
                p.next_token();
            }
            "COMMENT" => {
                p.next_token();
                let _ = p.consume_token(&Token::Eq);
                comment = Some(p.parse_literal_string()?);
            }
            "DATA" | "INDEX" => {
                p.next_token();
                expect_word(p, "DIRECTORY")?;
                let _ = p.consume_token(&Token::Eq);
                p.parse_literal_string()?;
            }
            "MAX_ROWS" | "MIN_ROWS" | "TABLESPACE" | "NODEGROUP" => {
                p.next_token();
                let _ = p.consume_token(&Token::Eq);
                p.next_token();
            }
            _ => return Ok(comment),
        }
    }
}

/// `(PARTITION name [VALUES …] [options] [(SUBPARTITION …, …)], …)`.
pub fn parse_part_defs(p: &mut Parser<'_>) -> std::result::Result<Vec<PartDefSpec>, ParserError> {
    p.expect_token(&Token::LParen)?;
    let mut out = Vec::new();
    loop {
        expect_word(p, "PARTITION")?;
        let name = p.parse_identifier()?.value;
        let mut values = ValuesSpec::None;
        if eat_word(p, "VALUES") {
            if eat_word(p, "LESS") {
                expect_word(p, "THAN")?;
                if eat_word(p, "MAXVALUE") {
                    values = ValuesSpec::LessThan(vec![None]);
                } else {
                    p.expect_token(&Token::LParen)?;
                    let mut v = Vec::new();
                    loop {
                        v.push(value_spec(p.parse_expr()?));
                        if !p.consume_token(&Token::Comma) {
                            break;
                        }
                    }
                    p.expect_token(&Token::RParen)?;
                    values = ValuesSpec::LessThan(v);
                }
            } else {
                expect_word(p, "IN")?;
                p.expect_token(&Token::LParen)?;
                let mut v = Vec::new();
                loop {
                    let e = p.parse_expr()?;
                    v.push(match e {
                        ast::Expr::Tuple(items) => {
                            (items.into_iter().map(value_spec).collect(), true)
                        }
                        ast::Expr::Nested(inner) => (vec![value_spec(*inner)], true),
                        e => (vec![value_spec(e)], false),
                    });
                    if !p.consume_token(&Token::Comma) {
                        break;
                    }
                }
                p.expect_token(&Token::RParen)?;
                values = ValuesSpec::In(v);
            }
        }
        let comment = parse_part_options(p)?;
        let mut subs = Vec::new();
        if p.peek_token().token == Token::LParen {
            p.next_token();
            loop {
                expect_word(p, "SUBPARTITION")?;
                let n = p.parse_identifier()?.value;
                let c = parse_part_options(p)?;
                subs.push((n, c));
                if !p.consume_token(&Token::Comma) {
                    break;
                }
            }
            p.expect_token(&Token::RParen)?;
        }
        out.push(PartDefSpec {
            name,
            values,
            comment,
            subs,
        });
        if !p.consume_token(&Token::Comma) {
            break;
        }
    }
    p.expect_token(&Token::RParen)?;
    Ok(out)
}

/// Parses what follows `PARTITION BY` up to the end of the clause.
pub fn parse_partition_by(p: &mut Parser<'_>) -> std::result::Result<PartSpec, ParserError> {
    let func = parse_func(p, false)?;
    let count = if eat_word(p, "PARTITIONS") {
        Some(parse_count(p)?)
    } else {
        None
    };
    let mut sub = None;
    let mut sub_count = None;
    if eat_word(p, "SUBPARTITION") {
        expect_word(p, "BY")?;
        sub = Some(parse_func(p, true)?);
        if eat_word(p, "SUBPARTITIONS") {
            sub_count = Some(parse_count(p)?);
        }
    }
    let parts = if p.peek_token().token == Token::LParen {
        parse_part_defs(p)?
    } else {
        Vec::new()
    };
    Ok(PartSpec {
        func,
        count,
        sub,
        sub_count,
        parts,
    })
}

/// Splits `CREATE TABLE … PARTITION BY …` at the top-level `PARTITION BY` that follows the
/// column list: returns the tokens before it and the parsed clause. `None` when there is none.
///
/// # Errors
/// 1064 for a malformed clause.
pub fn split_create_table(
    tokens: &[sqlparser::tokenizer::TokenWithSpan],
    text: &str,
) -> Result<Option<(Vec<sqlparser::tokenizer::TokenWithSpan>, PartSpec)>> {
    let mut depth = 0i32;
    let mut seen_paren = false;
    let sig: Vec<usize> = (0..tokens.len())
        .filter(|&i| !matches!(tokens[i].token, Token::Whitespace(_)))
        .collect();
    for (k, &i) in sig.iter().enumerate() {
        match &tokens[i].token {
            Token::LParen => {
                depth += 1;
                seen_paren = true;
            }
            Token::RParen => depth -= 1,
            Token::Word(w)
                if depth == 0
                    && seen_paren
                    && w.quote_style.is_none()
                    && w.value.eq_ignore_ascii_case("PARTITION") =>
            {
                let is_by = sig.get(k + 1).is_some_and(|&j| {
                    matches!(&tokens[j].token, Token::Word(b) if b.quote_style.is_none() && b.value.eq_ignore_ascii_case("BY"))
                });
                if !is_by {
                    continue;
                }
                let head = tokens[..i].to_vec();
                let rest: Vec<_> = tokens[sig[k + 1] + 1..].to_vec();
                let dialect = crate::parse::dialect::StrataDialect::default();
                let mut p = Parser::new(&dialect).with_tokens_with_locations(rest);
                let perr = |e: ParserError| {
                    Error::parse(crate::parse::parser::short_near(text, &e.to_string()))
                };
                let spec = parse_partition_by(&mut p).map_err(perr)?;
                match p.peek_token().token {
                    Token::EOF | Token::SemiColon => {}
                    t => {
                        return Err(Error::parse(crate::parse::parser::near_text(
                            text,
                            &t.to_string(),
                        )))
                    }
                }
                return Ok(Some((head, spec)));
            }
            _ => {}
        }
    }
    Ok(None)
}

/// A partition operation of ALTER TABLE.
#[derive(Debug, Clone)]
pub enum PartOp {
    /// `PARTITION BY …` (repartition; with other operations, after them).
    PartitionBy(Box<PartSpec>),
    /// `REMOVE PARTITIONING`.
    Remove,
    /// `ADD PARTITION (defs)`.
    Add(Vec<PartDefSpec>),
    /// `ADD PARTITION PARTITIONS n` (HASH / KEY).
    AddCount(u64),
    /// `DROP PARTITION names`.
    Drop(Vec<String>),
    /// `TRUNCATE PARTITION names | ALL` (empty = ALL).
    Truncate(Vec<String>),
    /// `COALESCE PARTITION n`.
    Coalesce(u64),
    /// `REORGANIZE PARTITION names INTO (defs)`; both empty: rebuild an auto-partitioned table.
    Reorganize(Vec<String>, Vec<PartDefSpec>),
    /// `EXCHANGE PARTITION p WITH TABLE t [WITH | WITHOUT VALIDATION]`.
    Exchange(String, ast::ObjectName, bool),
    /// `ANALYZE | CHECK | OPTIMIZE | REBUILD | REPAIR PARTITION names | ALL` (empty = ALL).
    Maintenance(String, Vec<String>),
}

fn name_list(p: &mut Parser<'_>) -> std::result::Result<Vec<String>, ParserError> {
    if eat_word(p, "ALL") {
        return Ok(Vec::new());
    }
    let mut v = vec![p.parse_identifier()?.value];
    while p.consume_token(&Token::Comma) {
        v.push(p.parse_identifier()?.value);
    }
    Ok(v)
}

/// Parses a partition operation at the parser's position, if one starts there.
pub fn parse_alter_op(p: &mut Parser<'_>) -> std::result::Result<Option<PartOp>, ParserError> {
    let [t0, t1] = p.peek_tokens::<2>();
    let up = |t: &Token| match t {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
        _ => String::new(),
    };
    let (w0, w1) = (up(&t0), up(&t1));
    let known = matches!(
        (w0.as_str(), w1.as_str()),
        ("PARTITION", "BY") | ("REMOVE", "PARTITIONING")
    ) || (w1 == "PARTITION"
        && matches!(
            w0.as_str(),
            "ADD"
                | "DROP"
                | "TRUNCATE"
                | "COALESCE"
                | "REORGANIZE"
                | "EXCHANGE"
                | "ANALYZE"
                | "CHECK"
                | "OPTIMIZE"
                | "REBUILD"
                | "REPAIR"
                | "DISCARD"
                | "IMPORT"
        ));
    if !known {
        return Ok(None);
    }
    p.next_token();
    p.next_token();
    let op = match (w0.as_str(), w1.as_str()) {
        ("PARTITION", "BY") => PartOp::PartitionBy(Box::new(parse_partition_by(p)?)),
        ("REMOVE", "PARTITIONING") => PartOp::Remove,
        ("ADD", "PARTITION") => {
            if eat_word(p, "PARTITIONS") {
                PartOp::AddCount(parse_count(p)?)
            } else {
                // parse_part_defs expects the opening parenthesis
                PartOp::Add(parse_part_defs(p)?)
            }
        }
        ("DROP", "PARTITION") => PartOp::Drop(name_list(p)?),
        ("TRUNCATE", "PARTITION") => PartOp::Truncate(name_list(p)?),
        ("COALESCE", "PARTITION") => PartOp::Coalesce(parse_count(p)?),
        ("REORGANIZE", "PARTITION") => {
            if matches!(p.peek_token().token, Token::EOF | Token::SemiColon) {
                PartOp::Reorganize(Vec::new(), Vec::new())
            } else {
                let names = name_list(p)?;
                expect_word(p, "INTO")?;
                PartOp::Reorganize(names, parse_part_defs(p)?)
            }
        }
        ("EXCHANGE", "PARTITION") => {
            let part = p.parse_identifier()?.value;
            expect_word(p, "WITH")?;
            expect_word(p, "TABLE")?;
            let t = p.parse_object_name(false)?;
            let mut validate = true;
            if eat_word(p, "WITHOUT") {
                expect_word(p, "VALIDATION")?;
                validate = false;
            } else if peek_word(p) == "WITH" {
                p.next_token();
                expect_word(p, "VALIDATION")?;
            }
            PartOp::Exchange(part, t, validate)
        }
        ("ANALYZE" | "CHECK" | "OPTIMIZE" | "REBUILD" | "REPAIR", "PARTITION") => {
            PartOp::Maintenance(w0.to_ascii_lowercase(), name_list(p)?)
        }
        ("DISCARD" | "IMPORT", "PARTITION") => {
            return Err(ParserError::ParserError(format!(
                "{w0} PARTITION is not supported"
            )))
        }
        _ => return Ok(None),
    };
    Ok(Some(op))
}
