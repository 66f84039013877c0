//! MySQL spellings sqlparser's MySQL dialect does not read, rewritten on the token stream into
//! equivalent ones it does (each rewrite keeps MySQL's meaning exactly):
//! - `TRIM(LEADING FROM s)` (also TRAILING / BOTH) without a remove string: MySQL removes
//!   spaces, so the space is written out — `TRIM(LEADING ' ' FROM s)`;
//! - `NATIONAL CHAR(n)` / `NATIONAL VARCHAR(n)` / `NATIONAL CHARACTER …`: the character set
//!   they imply is a UTF-8 one, which is what Strata stores every string column in;
//! - `FOR UPDATE OF a, b [NOWAIT | SKIP LOCKED]` (also FOR SHARE): sqlparser takes one table
//!   per clause, so the list becomes one clause per table, `FOR UPDATE OF a FOR UPDATE OF b`;
//! - `SET {SESSION | LOCAL | GLOBAL} TRANSACTION modes` (sqlparser drops the scope, leaving
//!   what would be the next transaction's characteristics): the variables they set,
//!   `SET SESSION transaction_isolation = 'READ-COMMITTED', SESSION transaction_read_only = 1`;
//! - a quoted user variable name, ``@`a b` `` / `@'a b'` / `@"a b"` (mysqlclient's `callproc`
//!   sends `SET @`_p_0`=…`): the variable `@a b`, one token as `@name` is;
//! - `SET CHARACTER SET x` / `SET CHARSET x`: MySQL's shorthand for setting
//!   `character_set_client` and `character_set_results` to x and `character_set_connection`
//!   to the database's character set.

use sqlparser::tokenizer::{Token, TokenWithSpan, Whitespace};

use crate::parse::parser::{next_non_ws_idx, words_follow};

/// Applies every rewrite of this module to `toks`.
pub(crate) fn rewrite(toks: &mut Vec<TokenWithSpan>) {
    if let Some(v) = set_character_set(toks).or_else(|| scoped_set_transaction(toks)) {
        *toks = v;
        return;
    }
    let mut i = 0;
    while i < toks.len() {
        if is_word(&toks[i].token, "FOR") {
            lock_of_list(toks, i);
        }
        if toks[i].token == Token::AtSign {
            quoted_user_variable(toks, i);
        }
        if is_word(&toks[i].token, "TRIM") {
            trim_without_remstr(toks, i);
        } else if is_word(&toks[i].token, "NATIONAL")
            && ["CHAR", "VARCHAR", "CHARACTER"]
                .iter()
                .any(|w| words_follow(toks, i + 1, &[w]))
        {
            // the word and the space after it
            let end = if matches!(
                toks.get(i + 1).map(|t| &t.token),
                Some(Token::Whitespace(_))
            ) {
                i + 2
            } else {
                i + 1
            };
            toks.drain(i..end);
            continue;
        }
        i += 1;
    }
}

fn is_word(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

fn space() -> TokenWithSpan {
    TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space))
}

/// `@` at `i` directly followed by a quoted name, where an operand starts (not the `@` of
/// `'user'@'host'`): one word `@name`.
fn quoted_user_variable(toks: &mut Vec<TokenWithSpan>, i: usize) {
    let name = match toks.get(i + 1).map(|t| &t.token) {
        Some(Token::SingleQuotedString(s) | Token::DoubleQuotedString(s)) => s.clone(),
        Some(Token::Word(w)) if w.quote_style == Some('`') => w.value.clone(),
        _ => return,
    };
    let after_account = i > 0
        && matches!(
            toks[i - 1].token,
            Token::SingleQuotedString(_) | Token::DoubleQuotedString(_) | Token::Word(_)
        );
    if after_account {
        return;
    }
    let span = toks[i].span;
    toks.splice(
        i..i + 2,
        [TokenWithSpan::new(
            Token::Word(sqlparser::tokenizer::Word {
                value: format!("@{name}"),
                quote_style: None,
                keyword: sqlparser::keywords::Keyword::NoKeyword,
            }),
            span,
        )],
    );
}

/// `TRIM ( LEADING|TRAILING|BOTH FROM` at `i`: inserts `' '` before FROM.
fn trim_without_remstr(toks: &mut Vec<TokenWithSpan>, i: usize) {
    let Some(open) = next_non_ws_idx(toks, i + 1).filter(|&k| toks[k].token == Token::LParen)
    else {
        return;
    };
    let Some(spec) = next_non_ws_idx(toks, open + 1) else {
        return;
    };
    if !["LEADING", "TRAILING", "BOTH"]
        .iter()
        .any(|w| is_word(&toks[spec].token, w))
    {
        return;
    }
    if let Some(from) = next_non_ws_idx(toks, spec + 1).filter(|&k| is_word(&toks[k].token, "FROM"))
    {
        toks.insert(from, space());
        toks.insert(
            from,
            TokenWithSpan::wrap(Token::SingleQuotedString(" ".into())),
        );
    }
}

/// `FOR UPDATE|SHARE OF a, b, … [NOWAIT | SKIP LOCKED]` at `i`: one clause per table.
fn lock_of_list(toks: &mut Vec<TokenWithSpan>, i: usize) {
    let Some(kind) = next_non_ws_idx(toks, i + 1)
        .filter(|&k| is_word(&toks[k].token, "UPDATE") || is_word(&toks[k].token, "SHARE"))
    else {
        return;
    };
    let Some(of) = next_non_ws_idx(toks, kind + 1).filter(|&k| is_word(&toks[k].token, "OF"))
    else {
        return;
    };
    // the names (each possibly `db`.`t`), up to the first token that is neither a name part
    // nor a comma
    let mut names: Vec<Vec<TokenWithSpan>> = vec![Vec::new()];
    let mut end = of + 1;
    while let Some(k) = next_non_ws_idx(toks, end) {
        match &toks[k].token {
            Token::Comma => names.push(Vec::new()),
            Token::Period => names.last_mut().expect("non-empty").push(toks[k].clone()),
            Token::Word(w)
                if names.last().is_some_and(|n| {
                    n.is_empty() || n.last().is_some_and(|t| t.token == Token::Period)
                }) && (w.quote_style.is_some()
                    || !["NOWAIT", "SKIP", "FOR", "LOCK"]
                        .iter()
                        .any(|x| w.value.eq_ignore_ascii_case(x))) =>
            {
                names.last_mut().expect("non-empty").push(toks[k].clone())
            }
            _ => break,
        }
        end = k + 1;
    }
    if names.len() < 2 || names.iter().any(|n| n.is_empty()) {
        return;
    }
    // NOWAIT / SKIP LOCKED after the list applies to every clause
    let mut tail: Vec<TokenWithSpan> = Vec::new();
    if let Some(k) = next_non_ws_idx(toks, end) {
        if is_word(&toks[k].token, "NOWAIT") {
            tail = vec![space(), toks[k].clone()];
            end = k + 1;
        } else if is_word(&toks[k].token, "SKIP") && words_follow(toks, k + 1, &["LOCKED"]) {
            let l = next_non_ws_idx(toks, k + 1).expect("LOCKED follows");
            tail = vec![space(), toks[k].clone(), space(), toks[l].clone()];
            end = l + 1;
        }
    }
    let mut out = Vec::new();
    for (n, name) in names.into_iter().enumerate() {
        if n > 0 {
            out.push(space());
        }
        out.extend([
            toks[i].clone(),
            space(),
            toks[kind].clone(),
            space(),
            toks[of].clone(),
            space(),
        ]);
        out.extend(name);
        out.extend(tail.iter().cloned());
    }
    toks.splice(i..end, out);
}

/// `SET SESSION | LOCAL | GLOBAL TRANSACTION …` (the whole statement) as assignments of
/// `transaction_isolation` / `transaction_read_only` in that scope; None for anything else (an
/// unknown mode is left to sqlparser, which reports it).
fn scoped_set_transaction(toks: &[TokenWithSpan]) -> Option<Vec<TokenWithSpan>> {
    let words: Vec<String> = toks
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_) | Token::SemiColon))
        .map(|t| match &t.token {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_uppercase(),
            Token::Comma => ",".into(),
            other => other.to_string(),
        })
        .collect();
    let [set, scope, txn, rest @ ..] = words.as_slice() else {
        return None;
    };
    let scope = match scope.as_str() {
        "SESSION" | "LOCAL" => "SESSION",
        "GLOBAL" => "GLOBAL",
        _ => return None,
    };
    if set != "SET" || txn != "TRANSACTION" {
        return None;
    }
    let mut sets = Vec::new();
    for mode in rest.split(|w| w == ",") {
        let mode: Vec<&str> = mode.iter().map(String::as_str).collect();
        let (var, value) = match mode.as_slice() {
            ["ISOLATION", "LEVEL", "READ", "UNCOMMITTED"] => {
                ("transaction_isolation", "'READ-UNCOMMITTED'")
            }
            ["ISOLATION", "LEVEL", "READ", "COMMITTED"] => {
                ("transaction_isolation", "'READ-COMMITTED'")
            }
            ["ISOLATION", "LEVEL", "REPEATABLE", "READ"] => {
                ("transaction_isolation", "'REPEATABLE-READ'")
            }
            ["ISOLATION", "LEVEL", "SERIALIZABLE"] => ("transaction_isolation", "'SERIALIZABLE'"),
            ["READ", "ONLY"] => ("transaction_read_only", "1"),
            ["READ", "WRITE"] => ("transaction_read_only", "0"),
            _ => return None,
        };
        sets.push(format!("{scope} {var} = {value}"));
    }
    if sets.is_empty() {
        return None;
    }
    let text = format!("SET {}", sets.join(", "));
    let dialect = crate::parse::dialect::StrataDialect::default();
    sqlparser::tokenizer::Tokenizer::new(&dialect, &text)
        .tokenize_with_location()
        .ok()
}

/// `SET CHARACTER SET x` / `SET CHARSET x` (the whole statement) as the three assignments it
/// stands for; `x` may be a name, a string or DEFAULT.
fn set_character_set(toks: &[TokenWithSpan]) -> Option<Vec<TokenWithSpan>> {
    let start = next_non_ws_idx(toks, 0)?;
    if !is_word(&toks[start].token, "SET") {
        return None;
    }
    let kw = next_non_ws_idx(toks, start + 1)?;
    let value_from = if is_word(&toks[kw].token, "CHARSET") {
        kw + 1
    } else if is_word(&toks[kw].token, "CHARACTER") && words_follow(toks, kw + 1, &["SET"]) {
        next_non_ws_idx(toks, kw + 1)? + 1
    } else {
        return None;
    };
    let value: String = toks[value_from..]
        .iter()
        .take_while(|t| t.token != Token::SemiColon)
        .map(|t| t.token.to_string())
        .collect();
    let text = format!(
        "SET character_set_client = {v}, character_set_results = {v}, \
         character_set_connection = @@character_set_database",
        v = value.trim()
    );
    let dialect = crate::parse::dialect::StrataDialect::default();
    sqlparser::tokenizer::Tokenizer::new(&dialect, &text)
        .tokenize_with_location()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(sql: &str) -> String {
        let dialect = crate::parse::dialect::StrataDialect::default();
        let mut toks = sqlparser::tokenizer::Tokenizer::new(&dialect, sql)
            .tokenize_with_location()
            .expect("tokenizes");
        rewrite(&mut toks);
        toks.iter().map(|t| t.token.to_string()).collect()
    }

    #[test]
    fn trim_gets_its_space() {
        assert_eq!(
            rewritten("SELECT TRIM(LEADING FROM '  x')"),
            "SELECT TRIM(LEADING ' ' FROM '  x')"
        );
        // a remove string is left alone
        assert_eq!(
            rewritten("SELECT TRIM(BOTH 'a' FROM 'axa')"),
            "SELECT TRIM(BOTH 'a' FROM 'axa')"
        );
    }

    #[test]
    fn lock_of_lists_become_one_clause_per_table() {
        assert_eq!(
            rewritten("SELECT * FROM a, b FOR UPDATE OF a, b NOWAIT"),
            "SELECT * FROM a, b FOR UPDATE OF a NOWAIT FOR UPDATE OF b NOWAIT"
        );
        assert_eq!(
            rewritten("SELECT 1 FROM a, b FOR SHARE OF a, `b` SKIP LOCKED FOR UPDATE OF c"),
            "SELECT 1 FROM a, b FOR SHARE OF a SKIP LOCKED FOR SHARE OF `b` SKIP LOCKED FOR UPDATE OF c"
        );
        assert_eq!(
            rewritten("SELECT * FROM a FOR UPDATE OF a"),
            "SELECT * FROM a FOR UPDATE OF a"
        );
    }

    #[test]
    fn quoted_user_variables_are_one_word() {
        assert_eq!(rewritten("SET @`_p_0`=1"), "SET @_p_0=1");
        assert_eq!(rewritten("SELECT @'a', (@\"b\")"), "SELECT @a, (@b)");
        // the account form stays
        assert_eq!(
            rewritten("GRANT SELECT ON *.* TO 'u'@'h'"),
            "GRANT SELECT ON *.* TO 'u'@'h'"
        );
    }

    #[test]
    fn national_types_lose_the_prefix() {
        assert_eq!(
            rewritten("CREATE TABLE t (c NATIONAL CHAR(3), d NATIONAL VARCHAR(5))"),
            "CREATE TABLE t (c CHAR(3), d VARCHAR(5))"
        );
    }

    #[test]
    fn set_character_set_is_three_assignments() {
        assert_eq!(
            rewritten("SET CHARACTER SET utf8mb4"),
            "SET character_set_client = utf8mb4, character_set_results = utf8mb4, character_set_connection = @@character_set_database"
        );
        assert_eq!(
            rewritten("SET CHARSET DEFAULT"),
            "SET character_set_client = DEFAULT, character_set_results = DEFAULT, character_set_connection = @@character_set_database"
        );
        assert_eq!(rewritten("SET NAMES utf8mb4"), "SET NAMES utf8mb4");
    }

    #[test]
    fn scoped_set_transaction_sets_the_variables() {
        assert_eq!(
            rewritten("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
            "SET SESSION transaction_isolation = 'READ-COMMITTED'"
        );
        assert_eq!(
            rewritten("SET GLOBAL TRANSACTION READ ONLY, ISOLATION LEVEL SERIALIZABLE"),
            "SET GLOBAL transaction_read_only = 1, GLOBAL transaction_isolation = 'SERIALIZABLE'"
        );
        // the next transaction's: left to sqlparser's SET TRANSACTION
        assert_eq!(
            rewritten("SET TRANSACTION READ ONLY"),
            "SET TRANSACTION READ ONLY"
        );
    }
}
