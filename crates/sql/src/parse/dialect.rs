//! The SQL dialect handed to sqlparser: its MySQL dialect, with one shortcut.
//!
//! sqlparser parses every expression prefix by first trying it as a typed literal
//! (`DATE '2020-01-01'`). For a number, a string or a `?`, that attempt always fails, and it
//! formats an error message each time: measured at 2–4 % of the server's CPU for sysbench's
//! `oltp_insert`, whose statements are mostly literals. [`StrataDialect`] parses those
//! tokens as values straight away, which is what sqlparser does after the failed attempt.
//!
//! Everything else is MySQL's dialect: each method `MySqlDialect` overrides is forwarded,
//! and `dialect()` reports `MySqlDialect`, so the parser's `dialect_of!` checks still see
//! MySQL. A unit test parses the golden corpus with both dialects and compares the trees;
//! when sqlparser is upgraded, new overrides of `MySqlDialect` must be forwarded here.

use std::any::TypeId;

use sqlparser::ast::{Expr, Statement};
use sqlparser::dialect::{Dialect, MySqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::Token;

/// sqlparser's MySQL dialect, with literals parsed without the typed-literal attempt.
#[derive(Debug, Default)]
pub struct StrataDialect(MySqlDialect);

impl Dialect for StrataDialect {
    fn dialect(&self) -> TypeId {
        TypeId::of::<MySqlDialect>()
    }

    fn parse_prefix(&self, parser: &mut Parser) -> Option<Result<Expr, ParserError>> {
        match parser.peek_token_ref().token {
            Token::Number(..)
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::NationalStringLiteral(_)
            | Token::HexStringLiteral(_)
            | Token::Placeholder(_) => Some(parser.parse_value().map(Expr::Value)),
            Token::Word(ref w)
                if w.value.eq_ignore_ascii_case("WEIGHT_STRING")
                    && parser.peek_nth_token_ref(1).token == Token::LParen =>
            {
                parser.maybe_parse(weight_string_as).transpose()
            }
            Token::Word(ref w)
                if w.keyword == Keyword::CHAR
                    && parser.peek_nth_token_ref(1).token == Token::LParen =>
            {
                parser.maybe_parse(char_using).transpose()
            }
            Token::LParen if parser.peek_nth_token_ref(1).token == Token::LParen => {
                parser.maybe_parse(parenthesised_set_query).transpose()
            }
            _ => None,
        }
    }

    /// `a SOUNDS LIKE b` binds as LIKE does.
    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        sounds_like_ahead(parser).then(|| Ok(self.prec_value(sqlparser::dialect::Precedence::Like)))
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        self.0.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.0.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.0.is_delimited_identifier_start(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.0.identifier_quote_style(identifier)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        self.0.supports_string_literal_backslash_escape()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        self.0.supports_string_literal_concatenation()
    }
    fn ignores_wildcard_escapes(&self) -> bool {
        self.0.ignores_wildcard_escapes()
    }
    fn supports_numeric_prefix(&self) -> bool {
        self.0.supports_numeric_prefix()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        self.0.supports_bitwise_shift_operators()
    }
    fn supports_multiline_comment_hints(&self) -> bool {
        self.0.supports_multiline_comment_hints()
    }
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        if sounds_like_ahead(parser) {
            return Some(sounds_like(parser, expr, precedence));
        }
        self.0.parse_infix(parser, expr, precedence)
    }
    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        self.0.parse_statement(parser)
    }
    fn require_interval_qualifier(&self) -> bool {
        self.0.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        self.0.supports_limit_comma()
    }
    fn supports_create_table_select(&self) -> bool {
        self.0.supports_create_table_select()
    }
    fn supports_insert_set(&self) -> bool {
        self.0.supports_insert_set()
    }
    fn supports_user_host_grantee(&self) -> bool {
        self.0.supports_user_host_grantee()
    }
    /// FOR and LOCK are reserved words in MySQL, so `SELECT 1 FOR UPDATE` locks (sqlparser would
    /// read `FOR` as the column's alias and then fail on UPDATE).
    fn is_column_alias(&self, kw: &Keyword, parser: &mut Parser) -> bool {
        !matches!(kw, Keyword::FOR | Keyword::LOCK) && self.0.is_column_alias(kw, parser)
    }
    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        self.0.is_table_factor_alias(explicit, kw, parser)
    }
    fn supports_table_hints(&self) -> bool {
        self.0.supports_table_hints()
    }
    fn requires_single_line_comment_whitespace(&self) -> bool {
        self.0.requires_single_line_comment_whitespace()
    }
    fn supports_match_against(&self) -> bool {
        self.0.supports_match_against()
    }
    fn supports_select_modifiers(&self) -> bool {
        self.0.supports_select_modifiers()
    }
    fn supports_set_names(&self) -> bool {
        self.0.supports_set_names()
    }
    fn supports_comma_separated_set_assignments(&self) -> bool {
        self.0.supports_comma_separated_set_assignments()
    }
    fn supports_update_order_by(&self) -> bool {
        self.0.supports_update_order_by()
    }
    fn supports_data_type_signed_suffix(&self) -> bool {
        self.0.supports_data_type_signed_suffix()
    }
    fn supports_cross_join_constraint(&self) -> bool {
        self.0.supports_cross_join_constraint()
    }
    fn supports_double_ampersand_operator(&self) -> bool {
        self.0.supports_double_ampersand_operator()
    }
    fn supports_binary_kw_as_cast(&self) -> bool {
        self.0.supports_binary_kw_as_cast()
    }
    fn supports_comment_optimizer_hint(&self) -> bool {
        self.0.supports_comment_optimizer_hint()
    }
    fn supports_constraint_keyword_without_name(&self) -> bool {
        self.0.supports_constraint_keyword_without_name()
    }
    fn supports_key_column_option(&self) -> bool {
        self.0.supports_key_column_option()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        self.0.supports_group_by_with_modifier()
    }
    fn supports_left_associative_joins_without_parens(&self) -> bool {
        self.0.supports_left_associative_joins_without_parens()
    }
}

/// The function name [`weight_string_as`] gives `WEIGHT_STRING(expr AS CHAR(n))`: a quoted
/// name no SQL text can call (double quotes make a string in MySQL's dialect).
pub const WEIGHT_STRING_AS: &str = "\"WEIGHT_STRING AS\"";

/// `WEIGHT_STRING(expr AS {CHAR | BINARY}(n))`, which sqlparser lacks, as the function
/// [`WEIGHT_STRING_AS`] of `(expr, 'CHAR' | 'BINARY', n)`; fails (and the caller rewinds) on
/// any other form, which sqlparser then parses as an ordinary call.
fn weight_string_as(parser: &mut Parser) -> Result<Expr, ParserError> {
    use sqlparser::ast::{
        Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
        ObjectName, Value,
    };
    parser.next_token();
    parser.expect_token(&Token::LParen)?;
    let arg = parser.parse_expr()?;
    parser.expect_keyword_is(Keyword::AS)?;
    let kind = match parser.parse_one_of_keywords(&[Keyword::CHAR, Keyword::BINARY]) {
        Some(Keyword::CHAR) => "CHAR",
        Some(_) => "BINARY",
        None => return parser.expected("CHAR or BINARY", parser.peek_token()),
    };
    parser.expect_token(&Token::LParen)?;
    let n = parser.parse_literal_uint()?;
    parser.expect_token(&Token::RParen)?;
    parser.expect_token(&Token::RParen)?;
    let unnamed = |e: Expr| FunctionArg::Unnamed(FunctionArgExpr::Expr(e));
    Ok(Expr::Function(Function {
        name: ObjectName::from(vec![Ident::with_quote('"', "WEIGHT_STRING AS")]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: vec![
                unnamed(arg),
                unnamed(Expr::Value(Value::SingleQuotedString(kind.into()).into())),
                unnamed(Expr::Value(Value::Number(n.to_string(), false).into())),
            ],
            clauses: vec![],
        }),
        within_group: vec![],
        filter: None,
        null_treatment: None,
        over: None,
    }))
}

fn sounds_like_ahead(parser: &Parser) -> bool {
    let is = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    is(&parser.peek_token_ref().token, "SOUNDS") && is(&parser.peek_nth_token_ref(1).token, "LIKE")
}

/// `a SOUNDS LIKE b`, which sqlparser lacks, as MySQL defines it: `SOUNDEX(a) = SOUNDEX(b)`.
fn sounds_like(parser: &mut Parser, left: &Expr, precedence: u8) -> Result<Expr, ParserError> {
    parser.next_token();
    parser.next_token();
    let right = parser.parse_subexpr(precedence)?;
    Ok(Expr::BinaryOp {
        left: Box::new(call("SOUNDEX", vec![left.clone()])),
        op: sqlparser::ast::BinaryOperator::Eq,
        right: Box::new(call("SOUNDEX", vec![right])),
    })
}

/// `CHAR(n, … USING charset)`, which sqlparser lacks, as `CONVERT(CHAR(n, …) USING charset)`
/// (what it means); fails (and the caller rewinds) without USING.
fn char_using(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.next_token();
    parser.expect_token(&Token::LParen)?;
    let args = parser.parse_comma_separated(Parser::parse_expr)?;
    parser.expect_keyword_is(Keyword::USING)?;
    let charset = parser.parse_object_name(false)?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Convert {
        is_try: false,
        expr: Box::new(call("CHAR", args)),
        data_type: None,
        charset: Some(charset),
        target_before_value: false,
        styles: vec![],
    })
}

/// `((SELECT …) UNION (SELECT …))` as an operand: a parenthesised set operation of
/// parenthesised queries is a scalar subquery in MySQL, while sqlparser reads the inner
/// `(SELECT …)` as a complete operand and then fails on UNION. Fails (and the caller rewinds)
/// on anything that is not a whole query in parentheses.
fn parenthesised_set_query(parser: &mut Parser) -> Result<Expr, ParserError> {
    parser.expect_token(&Token::LParen)?;
    let q = parser.parse_query()?;
    parser.expect_token(&Token::RParen)?;
    Ok(Expr::Subquery(q))
}

/// The call `name(args)`.
fn call(name: &str, args: Vec<Expr>) -> Expr {
    use sqlparser::ast::{
        Function, FunctionArg, FunctionArgExpr, FunctionArgumentList, FunctionArguments, Ident,
        ObjectName,
    };
    Expr::Function(Function {
        name: ObjectName::from(vec![Ident::new(name)]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
                .collect(),
            clauses: vec![],
        }),
        within_group: vec![],
        filter: None,
        null_treatment: None,
        over: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both dialects' result for one statement: the tree, or the error.
    fn both(sql: &str) -> (String, String) {
        let p = |d: &dyn Dialect| match Parser::parse_sql(d, sql) {
            Ok(s) => format!("{s:?}"),
            Err(e) => format!("error: {e}"),
        };
        (p(&MySqlDialect {}), p(&StrataDialect::default()))
    }

    #[test]
    fn parses_weight_string_as() {
        let (mysql, strata) =
            both("SELECT WEIGHT_STRING(c AS CHAR(4)), WEIGHT_STRING('a' AS BINARY(2))");
        assert!(mysql.starts_with("error"));
        assert_eq!(strata.matches("WEIGHT_STRING AS").count(), 2, "{strata}");
        let (mysql, strata) = both("SELECT WEIGHT_STRING(c), WEIGHT_STRING(c AS DECIMAL(4))");
        assert_eq!(mysql, strata);
    }

    #[test]
    fn parses_like_mysql_dialect() {
        let mut corpus: Vec<String> = [
            "INSERT INTO t (id, k, c) VALUES (1, -5, 'a'), (2, 0x1F, N'b'), (3, 1.5e3, \"c\")",
            "SELECT DATE '2020-01-01', TIMESTAMP '2020-01-01 00:00:00', INTERVAL '7' DAY",
            "SELECT 'a' 'b', BINARY 'x', _utf8mb4'y', X'4142', b'101', 1 DIV 2, ? + 1",
            "SELECT * FROM t WHERE id BETWEEN ? AND ? ORDER BY c LIMIT 1, 2",
            "UPDATE t SET k = k + 1 WHERE id = ?",
            "SELECT 1 'alias', 'x' AS y, (1), (1, 2) IN ((1, 2))",
            "SELECT 'a' LIKE 'b', NOT 'a' LIKE 'b', 1 = '1', '1' + 2",
            "LOCK TABLES t READ",
            "SELECT 1 +",
            "SELECT c FROM t FOR UPDATE",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests");
        for dir in ["golden", "mysqltest/strata"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if matches!(p.extension().and_then(|x| x.to_str()), Some("sql" | "test")) {
                    let text = std::fs::read_to_string(&p).unwrap_or_default();
                    corpus.extend(text.split(';').map(|s| s.trim().to_string()));
                }
            }
        }
        assert!(corpus.len() > 100, "the golden corpus was not found");
        for sql in corpus.iter().filter(|s| !s.is_empty()) {
            let (mysql, strata) = both(sql);
            assert_eq!(mysql, strata, "the dialects disagree on: {sql}");
        }
    }
}
