//! Syntax trees printed back as MySQL 8.4 prints an expression it keeps in its data dictionary
//! (a CHECK constraint's clause in SHOW CREATE TABLE and INFORMATION_SCHEMA.CHECK_CONSTRAINTS):
//! every operation in its own parentheses, `and` / `or` chains flattened, operator words and
//! function names in lower case, columns in backquotes, strings with the connection's
//! character-set introducer (`_utf8mb4'a'`), lists without spaces (`in (1,2)`).
//!
//! May use: nothing but sqlparser.

use sqlparser::ast::{self, BinaryOperator as B, Expr, UnaryOperator};

/// `e` as MySQL prints it.
pub fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e);
    out
}

/// `name` in backquotes (a backquote doubled).
pub fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A string literal as MySQL prints it: `_utf8mb4'…'` with `\` escapes.
pub fn string_literal(s: &str) -> String {
    let mut out = String::from("_utf8mb4'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

fn binary_op(op: &B) -> Option<&'static str> {
    Some(match op {
        B::Plus => "+",
        B::Minus => "-",
        B::Multiply => "*",
        B::Divide => "/",
        B::Modulo => "%",
        B::MyIntegerDivide => "div",
        B::Eq => "=",
        B::NotEq => "<>",
        B::Lt => "<",
        B::LtEq => "<=",
        B::Gt => ">",
        B::GtEq => ">=",
        B::Spaceship => "<=>",
        B::And => "and",
        B::Or | B::StringConcat => "or",
        B::Xor => "xor",
        B::BitwiseAnd => "&",
        B::BitwiseOr => "|",
        B::BitwiseXor => "^",
        B::PGBitwiseShiftLeft => "<<",
        B::PGBitwiseShiftRight => ">>",
        _ => return None,
    })
}

fn list(out: &mut String, items: &[Expr]) {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_expr(out, e);
    }
}

/// The operands of a chain of one associative logical operator (`a and b and c`).
fn chain<'e>(e: &'e Expr, op: &B, into: &mut Vec<&'e Expr>) {
    match e {
        Expr::BinaryOp { left, op: o, right } if o == op => {
            chain(left, op, into);
            chain(right, op, into);
        }
        Expr::Nested(inner) if matches!(inner.as_ref(), Expr::BinaryOp { op: o, .. } if o == op) => {
            chain(inner, op, into)
        }
        other => into.push(other),
    }
}

fn call(out: &mut String, name: &str, args: &[&Expr]) {
    out.push_str(name);
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_expr(out, a);
    }
    out.push(')');
}

fn negate(out: &mut String, negated: bool, f: impl FnOnce(&mut String)) {
    if negated {
        out.push_str("(not(");
        f(out);
        out.push_str("))");
    } else {
        f(out);
    }
}

fn value(out: &mut String, v: &ast::Value) {
    use ast::Value as V;
    match v {
        V::Number(n, _) => out.push_str(&n.to_string()),
        V::SingleQuotedString(s) | V::DoubleQuotedString(s) | V::NationalStringLiteral(s) => {
            out.push_str(&string_literal(s))
        }
        V::HexStringLiteral(h) => {
            out.push_str("0x");
            out.push_str(&h.to_ascii_lowercase());
        }
        V::SingleQuotedByteStringLiteral(bits) if bits.bytes().all(|b| b == b'0' || b == b'1') => {
            // b'1111100' → 0x7c
            let n = u128::from_str_radix(bits, 2).unwrap_or(0);
            out.push_str(&format!("0x{n:02x}"));
        }
        V::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Null => out.push_str("NULL"),
        other => out.push_str(&other.to_string()),
    }
}

fn function(out: &mut String, f: &ast::Function) {
    let name = f
        .name
        .0
        .last()
        .map(|p| p.to_string().trim_matches('`').to_ascii_lowercase())
        .unwrap_or_default();
    let name = match name.as_str() {
        "current_timestamp" | "localtime" | "localtimestamp" => "now".to_string(),
        "current_date" => "curdate".to_string(),
        "current_time" => "curtime".to_string(),
        "ucase" => "upper".to_string(),
        "lcase" => "lower".to_string(),
        "substr" => "substring".to_string(),
        _ => name,
    };
    let args: Vec<&Expr> = match &f.args {
        ast::FunctionArguments::List(l) => l
            .args
            .iter()
            .filter_map(|a| match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e))
                | ast::FunctionArg::Named {
                    arg: ast::FunctionArgExpr::Expr(e),
                    ..
                }
                | ast::FunctionArg::ExprNamed {
                    arg: ast::FunctionArgExpr::Expr(e),
                    ..
                } => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    call(out, &name, &args);
}

fn write_expr(out: &mut String, e: &Expr) {
    match e {
        Expr::Identifier(id) => out.push_str(&quote_ident(&id.value)),
        // a column's table qualifier is dropped, as MySQL keeps constraint columns unqualified
        Expr::CompoundIdentifier(parts) => {
            out.push_str(&quote_ident(
                &parts.last().map(|p| p.value.clone()).unwrap_or_default(),
            ));
        }
        Expr::Value(v) => value(out, &v.value),
        Expr::Nested(inner) => write_expr(out, inner),
        Expr::BinaryOp { left, op, right } => match (op, binary_op(op)) {
            (B::Arrow, _) => call(out, "json_extract", &[left, right]),
            (B::LongArrow, _) => {
                out.push_str("json_unquote(");
                call(out, "json_extract", &[left, right]);
                out.push(')');
            }
            (B::And | B::Or | B::Xor, Some(word)) => {
                let mut items = Vec::new();
                chain(e, op, &mut items);
                out.push('(');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(&format!(" {word} "));
                    }
                    write_expr(out, item);
                }
                out.push(')');
            }
            (_, Some(sym)) => {
                out.push('(');
                write_expr(out, left);
                out.push_str(&format!(" {sym} "));
                write_expr(out, right);
                out.push(')');
            }
            (_, None) => out.push_str(&e.to_string()),
        },
        Expr::UnaryOp { op, expr: inner } => match op {
            UnaryOperator::Not | UnaryOperator::BangNot => match negation(inner) {
                // MySQL's parser negates a predicate that has an opposite
                Some(n) => write_expr(out, &n),
                None => {
                    out.push_str("(not(");
                    write_expr(out, inner);
                    out.push_str("))");
                }
            },
            UnaryOperator::Minus => {
                out.push_str("-(");
                write_expr(out, inner);
                out.push(')');
            }
            UnaryOperator::Plus => write_expr(out, inner),
            UnaryOperator::BitwiseNot => {
                out.push_str("~(");
                write_expr(out, inner);
                out.push(')');
            }
            _ => out.push_str(&e.to_string()),
        },
        Expr::IsNull(x) => postfix(out, x, "is null"),
        Expr::IsNotNull(x) => postfix(out, x, "is not null"),
        Expr::IsTrue(x) => postfix(out, x, "is true"),
        Expr::IsNotTrue(x) => postfix(out, x, "is not true"),
        Expr::IsFalse(x) => postfix(out, x, "is false"),
        Expr::IsNotFalse(x) => postfix(out, x, "is not false"),
        Expr::IsUnknown(x) => postfix(out, x, "is unknown"),
        Expr::IsNotUnknown(x) => postfix(out, x, "is not unknown"),
        Expr::InList {
            expr: x,
            list: items,
            negated,
        } => {
            out.push('(');
            write_expr(out, x);
            out.push_str(if *negated { " not in (" } else { " in (" });
            list(out, items);
            out.push_str("))");
        }
        Expr::Between {
            expr: x,
            negated,
            low,
            high,
        } => {
            out.push('(');
            write_expr(out, x);
            out.push_str(if *negated {
                " not between "
            } else {
                " between "
            });
            write_expr(out, low);
            out.push_str(" and ");
            write_expr(out, high);
            out.push(')');
        }
        Expr::Like {
            negated,
            expr: x,
            pattern,
            escape_char,
            ..
        } => negate(out, *negated, |out| {
            out.push('(');
            write_expr(out, x);
            out.push_str(" like ");
            write_expr(out, pattern);
            if let Some(esc) = escape_char {
                out.push_str(" escape ");
                write_expr(out, esc);
            }
            out.push(')');
        }),
        Expr::RLike {
            negated,
            expr: x,
            pattern,
            ..
        } => negate(out, *negated, |out| call(out, "regexp_like", &[x, pattern])),
        Expr::Function(f) => function(out, f),
        Expr::Cast {
            expr: x, data_type, ..
        } => {
            out.push_str("cast(");
            write_expr(out, x);
            out.push_str(" as ");
            out.push_str(&cast_type(data_type));
            out.push(')');
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            out.push_str("(case ");
            if let Some(op) = operand {
                write_expr(out, op);
                out.push(' ');
            }
            for (i, w) in conditions.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str("when ");
                write_expr(out, &w.condition);
                out.push_str(" then ");
                write_expr(out, &w.result);
            }
            if let Some(x) = else_result {
                out.push_str(" else ");
                write_expr(out, x);
            }
            out.push_str(" end)");
        }
        Expr::Tuple(items) => {
            out.push('(');
            list(out, items);
            out.push(')');
        }
        Expr::Prefixed { prefix, value: v } => {
            // `_latin1'x'`: the introducer as written
            match v.as_ref() {
                Expr::Value(ast::ValueWithSpan {
                    value: ast::Value::SingleQuotedString(s),
                    ..
                }) => out.push_str(&string_literal(s).replacen("_utf8mb4", &prefix.value, 1)),
                _ => out.push_str(&e.to_string()),
            }
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The opposite of a predicate, as MySQL's parser turns `NOT p` into it (`NOT a = 1` is
/// `a <> 1`, `NOT a IN (…)` is `a NOT IN (…)`); `None` when it has none.
fn negation(e: &Expr) -> Option<Expr> {
    let b = |x: &Expr| Box::new(x.clone());
    Some(match e {
        Expr::Nested(x) => return negation(x),
        Expr::BinaryOp { left, op, right } => Expr::BinaryOp {
            left: left.clone(),
            op: match op {
                B::Eq => B::NotEq,
                B::NotEq => B::Eq,
                B::Lt => B::GtEq,
                B::LtEq => B::Gt,
                B::Gt => B::LtEq,
                B::GtEq => B::Lt,
                _ => return None,
            },
            right: right.clone(),
        },
        Expr::InList {
            expr,
            list,
            negated,
        } => Expr::InList {
            expr: expr.clone(),
            list: list.clone(),
            negated: !negated,
        },
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => Expr::Between {
            expr: expr.clone(),
            negated: !negated,
            low: low.clone(),
            high: high.clone(),
        },
        Expr::IsNull(x) => Expr::IsNotNull(b(x)),
        Expr::IsNotNull(x) => Expr::IsNull(b(x)),
        Expr::IsTrue(x) => Expr::IsNotTrue(b(x)),
        Expr::IsNotTrue(x) => Expr::IsTrue(b(x)),
        Expr::IsFalse(x) => Expr::IsNotFalse(b(x)),
        Expr::IsNotFalse(x) => Expr::IsFalse(b(x)),
        Expr::IsUnknown(x) => Expr::IsNotUnknown(b(x)),
        Expr::IsNotUnknown(x) => Expr::IsUnknown(b(x)),
        _ => return None,
    })
}

fn postfix(out: &mut String, x: &Expr, what: &str) {
    out.push('(');
    write_expr(out, x);
    out.push(' ');
    out.push_str(what);
    out.push(')');
}

/// The target type of CAST as MySQL prints it.
fn cast_type(t: &ast::DataType) -> String {
    let text = t.to_string().to_ascii_lowercase();
    match text.as_str() {
        "signed integer" | "signed int" => "signed".into(),
        "unsigned integer" | "unsigned int" => "unsigned".into(),
        _ if text.starts_with("char") || text.starts_with("varchar") => {
            let n = text
                .split_once('(')
                .map(|(_, r)| r.trim_end_matches(')').to_string());
            match n {
                Some(n) => format!("char({n} charset utf8mb4)"),
                None => "char charset utf8mb4".into(),
            }
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(sql: &str) -> String {
        let dialect = crate::parse::dialect::StrataDialect::default();
        let e = sqlparser::parser::Parser::new(&dialect)
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_expr())
            .unwrap();
        expr(&e)
    }

    #[test]
    fn prints_as_mysql_does() {
        assert_eq!(p("a > 0"), "(`a` > 0)");
        assert_eq!(p("(f1 + f2) > 10"), "((`f1` + `f2`) > 10)");
        assert_eq!(p("f1 + SQRT(f2) > 6174"), "((`f1` + sqrt(`f2`)) > 6174)");
        assert_eq!(p("c1 = 'a'"), "(`c1` = _utf8mb4'a')");
        assert_eq!(p("f1 IN (10, 20, 30)"), "(`f1` in (10,20,30))");
        assert_eq!(p("f1 BETWEEN 10 AND 30"), "(`f1` between 10 and 30)");
        assert_eq!(p("f1 IS NOT NULL"), "(`f1` is not null)");
        assert_eq!(p("a != b"), "(`a` <> `b`)");
        assert_eq!(
            p("(CASE WHEN c1 > 10 THEN c2 = 20 END) = 1"),
            "((case when (`c1` > 10) then (`c2` = 20) end) = 1)"
        );
        assert_eq!(
            p("a > 0 AND b > 0 AND c > 0"),
            "((`a` > 0) and (`b` > 0) and (`c` > 0))"
        );
        assert_eq!(
            p("(a = 'x' AND b IS NULL) OR (a = 'y')"),
            "(((`a` = _utf8mb4'x') and (`b` is null)) or (`a` = _utf8mb4'y'))"
        );
        assert_eq!(p("t.a < 1"), "(`a` < 1)");
        assert_eq!(p("c1 < B'1111100'"), "(`c1` < 0x7c)");
        assert_eq!(p("NOT (a > 1)"), "(`a` <= 1)");
        assert_eq!(p("NOT a IN (1, 2)"), "(`a` not in (1,2))");
        assert_eq!(
            p("NOT (a > 1 AND b > 1)"),
            "(not(((`a` > 1) and (`b` > 1))))"
        );
        assert_eq!(p("a > -1"), "(`a` > -(1))");
        assert_eq!(p("a LIKE 'x%'"), "(`a` like _utf8mb4'x%')");
        assert_eq!(p("s = 'it''s\\n'"), "(`s` = _utf8mb4'it\\'s\\n')");
        assert_eq!(p("CHAR_LENGTH(name) > 2"), "(char_length(`name`) > 2)");
    }
}
