//! Select-list column names from the statement text: the source text of an item (MySQL names an
//! unaliased column by the text as written).

use sqlparser::ast::{self, Spanned};

/// Extracts the original text of an AST node from the statement SQL (for column headers).
pub fn source_text(sql: &str, node: &impl Spanned) -> Option<String> {
    let span = node.span();
    if span.start.line == 0 || span.end.line == 0 {
        return None;
    }
    let off = |line: u64, col: u64| -> Option<usize> {
        let mut idx = 0usize;
        for (i, l) in sql.split_inclusive('\n').enumerate() {
            if i as u64 + 1 == line {
                let b = l
                    .char_indices()
                    .nth(col.saturating_sub(1) as usize)
                    .map(|(b, _)| b)
                    .unwrap_or(l.len());
                return Some(idx + b);
            }
            idx += l.len();
        }
        None
    };
    let (mut a, mut b) = (
        off(span.start.line, span.start.column)?,
        off(span.end.line, span.end.column)?,
    );
    if a >= b || b > sql.len() {
        return None;
    }
    // sqlparser's span can also start late: at the operand of a leading unary sign, inside
    // `CAST(` / `CEIL(` / … or after `BINARY`. Extend backwards over those.
    let word_before = |end: usize| -> (usize, &str) {
        let t = sql[..end].trim_end();
        let start = t
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
            .last()
            .map(|(i, _)| i)
            .unwrap_or(t.len());
        (start, &t[start..])
    };
    loop {
        let before = sql[..a].trim_end();
        let Some(prev) = before.chars().last() else {
            break;
        };
        if prev == '(' {
            let (ws, w) = word_before(before.len() - 1);
            if [
                "CAST",
                "CONVERT",
                "CEIL",
                "CEILING",
                "FLOOR",
                "EXTRACT",
                "POSITION",
                "SUBSTRING",
                "SUBSTR",
                "TRIM",
                "INTERVAL",
                "CHAR",
            ]
            .iter()
            .any(|k| k.eq_ignore_ascii_case(w))
            {
                a = ws;
                continue;
            }
            break;
        }
        if matches!(prev, '-' | '+' | '~' | '!') {
            let rest = before[..before.len() - 1].trim_end();
            let (_, w) = word_before(rest.len());
            let unary = rest.ends_with([',', '(', '='])
                || ["SELECT", "DISTINCT", "ALL"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(w));
            if unary {
                a = before.len() - 1;
                continue;
            }
            break;
        }
        let (ws, w) = word_before(before.len());
        if w.eq_ignore_ascii_case("BINARY") {
            a = ws;
            continue;
        }
        // TRIM(LEADING [remstr] FROM s): the span starts at remstr or at s
        if ["LEADING", "TRAILING", "BOTH"]
            .iter()
            .any(|k| k.eq_ignore_ascii_case(w))
        {
            a = ws;
            continue;
        }
        if w.eq_ignore_ascii_case("FROM") {
            let (ws2, w2) = word_before(ws);
            if ["LEADING", "TRAILING", "BOTH"]
                .iter()
                .any(|k| k.eq_ignore_ascii_case(w2))
            {
                a = ws2;
                continue;
            }
            break;
        }
        // a leading NOT, and the type word of a typed literal (DATE '…'), where an operand starts
        if ["NOT", "DATE", "TIME", "TIMESTAMP"]
            .iter()
            .any(|k| k.eq_ignore_ascii_case(w))
        {
            let rest = sql[..ws].trim_end();
            let (_, w2) = word_before(rest.len());
            let operand_start = rest.ends_with([',', '(', '='])
                || ["SELECT", "DISTINCT", "ALL", "NOT"]
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(w2));
            if operand_start {
                a = ws;
                continue;
            }
        }
        break;
    }
    // sqlparser's span of a function call can stop at its name or at its last argument:
    // extend until the parentheses opened inside the expression are closed (skipping quotes).
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut end = b;
    for (i, ch) in sql[a..].char_indices() {
        let pos = a + i;
        if pos >= b && depth <= 0 && quote.is_none() {
            // past the span: only continue into an argument list that starts right here
            if pos == b && ch == '(' {
                depth = 1;
                continue;
            }
            end = pos;
            break;
        }
        end = pos + ch.len_utf8();
        depth += paren_step(ch, &mut quote);
    }
    b = end.max(b);
    b = past_interval_unit(sql, a, b);
    // a row constructor's span leaves out its outer parentheses (`1,2) = (1,2`): take in the
    // parentheses around the text until it is balanced
    let (mut low, mut depth, mut quote) = (0i32, 0i32, None::<char>);
    for ch in sql[a..b].chars() {
        depth += paren_step(ch, &mut quote);
        low = low.min(depth);
    }
    for _ in 0..-low {
        let before = sql[..a].trim_end();
        if !before.ends_with('(') {
            break;
        }
        a = before.len() - 1;
        depth += 1;
    }
    // ... and close what is still open (a subquery's span can also stop short of its end)
    if depth > 0 {
        let mut quote = None::<char>;
        for (i, ch) in sql[b..].char_indices() {
            if ch == ';' && quote.is_none() {
                break;
            }
            let step = paren_step(ch, &mut quote);
            depth += step;
            if step < 0 && depth == 0 {
                b += i + 1;
                break;
            }
        }
    }
    Some(sql[a..b].to_string())
}

/// sqlparser's span of `INTERVAL n unit` ends before the unit: when the text `sql[a..b]` ends in
/// an INTERVAL without its unit and a unit follows, the end moved past it.
pub(crate) fn past_interval_unit(sql: &str, a: usize, b: usize) -> usize {
    const UNITS: &[&str] = &[
        "MICROSECOND",
        "SECOND",
        "MINUTE",
        "HOUR",
        "DAY",
        "WEEK",
        "MONTH",
        "QUARTER",
        "YEAR",
        "SECOND_MICROSECOND",
        "MINUTE_MICROSECOND",
        "MINUTE_SECOND",
        "HOUR_MICROSECOND",
        "HOUR_SECOND",
        "HOUR_MINUTE",
        "DAY_MICROSECOND",
        "DAY_SECOND",
        "DAY_MINUTE",
        "DAY_HOUR",
        "YEAR_MONTH",
    ];
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(|w| w.to_ascii_uppercase())
            .collect()
    };
    let text = words(&sql[a..b]);
    let Some(at) = text.iter().rposition(|w| w == "INTERVAL") else {
        return b;
    };
    if text[at + 1..].iter().any(|w| UNITS.contains(&w.as_str())) {
        return b;
    }
    let rest = &sql[b..];
    let skip = rest.len() - rest.trim_start().len();
    let word: String = rest[skip..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if UNITS.contains(&word.to_ascii_uppercase().as_str()) {
        b + skip + word.len()
    } else {
        b
    }
}

/// One character of SQL text for parenthesis counting: +1 for `(`, -1 for `)`, 0 otherwise;
/// characters inside '…', "…" and `…` quotes don't count (`quote` tracks the open one).
pub(crate) fn paren_step(ch: char, quote: &mut Option<char>) -> i32 {
    match *quote {
        Some(q) if ch == q => *quote = None,
        Some(_) => {}
        None => match ch {
            '\'' | '"' | '`' => *quote = Some(ch),
            '(' => return 1,
            ')' => return -1,
            _ => {}
        },
    }
    0
}

/// `NAME_CONST('name', value)` names its result column `name`.
pub(crate) fn name_const_name(e: &ast::Expr) -> Option<String> {
    let ast::Expr::Function(f) = e else {
        return None;
    };
    if !f.name.to_string().eq_ignore_ascii_case("NAME_CONST") {
        return None;
    }
    let ast::FunctionArguments::List(l) = &f.args else {
        return None;
    };
    match l.args.first() {
        Some(ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Value(v)))) => {
            match &v.value {
                ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                    Some(s.clone())
                }
                _ => None,
            }
        }
        _ => None,
    }
}
