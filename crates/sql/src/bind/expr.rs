//! The expression binder: sqlparser expressions → [`Expr`](crate::ir::expr::Expr) within a
//! [`Scope`], literals, CAST targets, and static result types ([`expr_type`]).

use std::sync::Arc;

use common::{codes, Collation, DataType, Error, Result, Value};
use func::arith::ArithOp;
use func::convert::CastTarget;
use func::types::ExprType;
use sqlparser::ast::{self, BinaryOperator, UnaryOperator};

use crate::ir::expr::AggCall;
use crate::ir::expr::AggFunc;
use crate::ir::expr::Builtin;
use crate::ir::expr::CmpOp;
use crate::ir::expr::Expr;
use crate::ir::expr::FrameBound;
use crate::ir::expr::RangeOffset;
use crate::ir::expr::WindowDef;
use crate::ir::expr::GROUPING_ARGS;
use crate::ir::query::SubQuery;
use crate::ir::scope::{Scope, ScopeCol, VALUES_QUALIFIER};

// ---------------------------------------------------------------------------------------------
// Binding

/// Function name marking a row constructor on the left of `IN (SELECT …)`.
pub const ROW_MARKER: &str = "\u{0}ROW";

/// One side of a comparison: a scalar, or a row of operands (rows nest).
#[derive(Debug, Clone)]
pub(crate) enum Operand {
    Scalar(Expr),
    Row(Vec<Operand>),
}

impl Operand {
    fn width(&self) -> usize {
        match self {
            Operand::Scalar(_) => 1,
            Operand::Row(v) => v.len(),
        }
    }
}

/// Error 1241 (21000) "Operand should contain N column(s)".
pub fn operand_columns(n: usize) -> Error {
    Error::new(
        codes::ER_OPERAND_COLUMNS,
        format!("Operand should contain {n} column(s)"),
    )
}

/// The items of a row constructor: `(a, b, …)` or `ROW(a, b, …)` (at least two items for the
/// parenthesised form, as a single parenthesised expression is not a row).
pub(crate) fn row_items(e: &ast::Expr) -> Option<Vec<&ast::Expr>> {
    match e {
        ast::Expr::Tuple(items) if items.len() > 1 => Some(items.iter().collect()),
        ast::Expr::Nested(inner) => row_items(inner),
        ast::Expr::Function(f)
            if f.over.is_none()
                && f.name.0.len() == 1
                && f.name.to_string().eq_ignore_ascii_case("row") =>
        {
            let ast::FunctionArguments::List(l) = &f.args else {
                return None;
            };
            l.args
                .iter()
                .map(|a| match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(x)) => Some(x),
                    _ => None,
                })
                .collect()
        }
        _ => None,
    }
}

/// The integer value of a hexadecimal (`x'41'`, `0x41`) or bit (`b'101'`) literal, for numeric
/// context (the last 8 bytes when longer, as MySQL's BIGINT UNSIGNED conversion).
pub(crate) fn hex_number(e: &ast::Expr) -> Option<Value> {
    let ast::Expr::Value(v) = e else {
        return match e {
            ast::Expr::Nested(inner) => hex_number(inner),
            _ => None,
        };
    };
    let bytes = match &v.value {
        ast::Value::HexStringLiteral(_)
        | ast::Value::SingleQuotedByteStringLiteral(_)
        | ast::Value::DoubleQuotedByteStringLiteral(_) => match literal(&v.value).ok()? {
            Value::Bytes(b) => b,
            _ => return None,
        },
        _ => return None,
    };
    let tail = &bytes[bytes.len().saturating_sub(8)..];
    Some(Value::UInt(
        tail.iter().fold(0u64, |n, b| (n << 8) | u64::from(*b)),
    ))
}

/// The comparison operator a binary operator stands for.
pub(crate) fn cmp_op(op: &BinaryOperator) -> Option<CmpOp> {
    Some(match op {
        BinaryOperator::Eq => CmpOp::Eq,
        BinaryOperator::NotEq => CmpOp::Ne,
        BinaryOperator::Lt => CmpOp::Lt,
        BinaryOperator::LtEq => CmpOp::Le,
        BinaryOperator::Gt => CmpOp::Gt,
        BinaryOperator::GtEq => CmpOp::Ge,
        BinaryOperator::Spaceship => CmpOp::NullSafeEq,
        _ => return None,
    })
}

/// Session facts the binder folds into constants (they can't change within a statement).
pub trait BindEnv {
    /// `@@name` / `@@session.name` / `@@global.name`.
    fn sysvar(&self, name: &str, global: bool) -> Result<Value>;
    /// `@name`.
    fn user_var(&self, name: &str) -> Value;
    /// DATABASE().
    fn database(&self) -> Option<String>;
    /// USER(): the user and the client's host.
    fn user(&self) -> String;
    /// CURRENT_USER(): the matched account.
    fn current_user(&self) -> String;
    /// CONNECTION_ID().
    fn connection_id(&self) -> u64;
    /// LAST_INSERT_ID().
    fn last_insert_id(&self) -> u64;
    /// FOUND_ROWS().
    fn found_rows(&self) -> u64;
    /// ROW_COUNT().
    fn row_count(&self) -> i64;
    /// The connection collation (for literals).
    fn collation(&self) -> Collation;
    /// Plans a subquery whose correlated references resolve in `outer`.
    fn subquery(&self, q: &ast::Query, outer: &Scope) -> Result<Arc<SubQuery>>;
    /// Stored function `db`.`name`, compiled, if it exists.
    fn stored_function(
        &self,
        db: &str,
        name: &str,
    ) -> Result<Option<Arc<crate::ir::routine::Routine>>>;
}

/// Binds sqlparser expressions within a scope.
pub struct Binder<'a> {
    /// Visible columns.
    pub scope: &'a Scope,
    /// Session facts.
    pub env: &'a dyn BindEnv,
    /// Where aggregates are collected (None: aggregates are not allowed here).
    pub aggs: Option<&'a mut Vec<AggCall>>,
    /// Name of the clause for error messages ("field list", "where clause"...).
    pub clause: &'static str,
    /// Offset added to aggregate indices (the grouped row = source row ++ aggregates).
    pub agg_base: usize,
    /// Select-list aliases usable here (ORDER BY/HAVING): name → bound expression.
    pub aliases: Option<&'a [(String, Expr)]>,
}

pub(crate) fn ident_parts(idents: &[ast::Ident]) -> Vec<String> {
    idents.iter().map(|i| i.value.clone()).collect()
}

/// Parses a MySQL numeric literal as Int/UInt/Decimal/Double.
pub fn number_literal(s: &str) -> Result<Value> {
    if s.contains(['e', 'E']) {
        return s
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| Error::parse(s));
    }
    if s.contains('.') {
        return match s.parse::<common::Decimal>() {
            Ok(d) => Ok(Value::Decimal(d)),
            Err(_) => s
                .parse::<f64>()
                .map(Value::Double)
                .map_err(|_| Error::parse(s)),
        };
    }
    if let Ok(i) = s.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    if let Ok(u) = s.parse::<u64>() {
        return Ok(Value::UInt(u));
    }
    match s.parse::<common::Decimal>() {
        Ok(d) => Ok(Value::Decimal(d)),
        Err(_) => s
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| Error::parse(s)),
    }
}

pub(crate) fn hex_bytes(s: &str) -> Result<Vec<u8>> {
    let s = if s.len() % 2 == 1 {
        format!("0{s}")
    } else {
        s.to_string()
    };
    hex::decode(&s).map_err(|_| Error::parse(format!("x'{s}'")))
}

/// Converts a sqlparser literal to a Value.
pub fn literal(v: &ast::Value) -> Result<Value> {
    use ast::Value as V;
    Ok(match v {
        V::Number(n, _) => number_literal(n)?,
        V::SingleQuotedString(s)
        | V::DoubleQuotedString(s)
        | V::NationalStringLiteral(s)
        | V::EscapedStringLiteral(s) => Value::Str(s.clone()),
        V::HexStringLiteral(h) => Value::Bytes(hex_bytes(h)?),
        V::SingleQuotedByteStringLiteral(b) | V::DoubleQuotedByteStringLiteral(b) => {
            // b'0101'
            let mut n: u64 = 0;
            for c in b.chars() {
                n = n.checked_mul(2).ok_or_else(|| Error::parse(b))? + (c == '1') as u64;
            }
            let bytes = n.to_be_bytes();
            let len = b.len().div_ceil(8).max(1);
            Value::Bytes(bytes[8 - len..].to_vec())
        }
        V::Boolean(b) => Value::Int(*b as i64),
        V::Null => Value::Null,
        other => return Err(Error::not_supported(format!("literal {other}"))),
    })
}

impl<'a> Binder<'a> {
    /// A binder for `clause` over `scope` with no aggregates or aliases allowed.
    pub fn new(scope: &'a Scope, env: &'a dyn BindEnv, clause: &'static str) -> Self {
        Binder {
            scope,
            env,
            aggs: None,
            clause,
            agg_base: 0,
            aliases: None,
        }
    }

    /// A binder over the same scope for the arguments of an aggregate (aggregates may not nest,
    /// so none are collected there) in `clause`.
    fn nested(&self, clause: &'static str) -> Binder<'a> {
        Binder {
            scope: self.scope,
            env: self.env,
            aggs: None,
            clause,
            agg_base: self.agg_base,
            aliases: None,
        }
    }
}

impl Binder<'_> {
    fn sub(&mut self) -> Binder<'_> {
        Binder {
            scope: self.scope,
            env: self.env,
            aggs: self.aggs.as_deref_mut(),
            clause: self.clause,
            agg_base: self.agg_base,
            aliases: self.aliases,
        }
    }

    /// Binds one expression.
    pub fn bind(&mut self, e: &ast::Expr) -> Result<Expr> {
        use ast::Expr as E;
        Ok(match e {
            E::Identifier(id) => self.bind_ident(std::slice::from_ref(id))?,
            E::CompoundIdentifier(ids) => self.bind_ident(ids)?,
            E::Value(v) => match &v.value {
                ast::Value::Placeholder(p) => {
                    let n: usize = p
                        .trim_start_matches('?')
                        .parse()
                        .map_err(|_| Error::parse(p))?;
                    Expr::Param(n.saturating_sub(1))
                }
                other => Expr::Lit(literal(other)?),
            },
            E::Prefixed { prefix, value } => {
                let inner = self.bind(value)?;
                let cs = prefix.value.trim_start_matches('_').to_ascii_lowercase();
                match (cs.as_str(), inner) {
                    ("binary", Expr::Lit(Value::Str(s))) => Expr::Lit(Value::Bytes(s.into_bytes())),
                    ("binary", e) => Expr::Cast(Box::new(e), CastTarget::Binary(None)),
                    (_, Expr::Lit(Value::Bytes(b))) => {
                        Expr::Lit(Value::Str(String::from_utf8_lossy(&b).into_owned()))
                    }
                    (_, e) => e,
                }
            }
            E::TypedString(ts) => {
                let s = match &ts.value.value {
                    ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                        s.clone()
                    }
                    other => other.to_string(),
                };
                let target = match &ts.data_type {
                    ast::DataType::Date => CastTarget::Date,
                    ast::DataType::Time(..) => CastTarget::Time(6),
                    ast::DataType::Timestamp(..) | ast::DataType::Datetime(..) => {
                        CastTarget::DateTime(6)
                    }
                    _ => return Ok(Expr::Lit(Value::Str(s))),
                };
                typed_literal_check(&target, &s)?;
                Expr::Cast(Box::new(Expr::Lit(Value::Str(s))), target)
            }
            E::Nested(inner) => self.bind(inner)?,
            E::UnaryOp { op, expr } => {
                let a = match (op, hex_number(expr)) {
                    // `-0x10`: numeric context
                    (UnaryOperator::Minus, Some(v)) => Expr::Lit(v),
                    _ => self.bind(expr)?,
                };
                match op {
                    UnaryOperator::Minus => match a {
                        Expr::Lit(Value::Int(i)) if i != i64::MIN => Expr::Lit(Value::Int(-i)),
                        Expr::Lit(Value::UInt(u)) if u == 1u64 << 63 => {
                            Expr::Lit(Value::Int(i64::MIN))
                        }
                        Expr::Lit(Value::Decimal(d)) => Expr::Lit(Value::Decimal(-d)),
                        Expr::Lit(Value::Double(d)) => Expr::Lit(Value::Double(-d)),
                        a => Expr::Neg(Box::new(a)),
                    },
                    UnaryOperator::Plus => a,
                    UnaryOperator::Not | UnaryOperator::BangNot => Expr::Not(Box::new(a)),
                    UnaryOperator::BitwiseNot => Expr::BitNot(Box::new(a)),
                    other => return Err(Error::not_supported(format!("operator {other}"))),
                }
            }
            E::BinaryOp { left, op, right } => self.bind_binop(left, op, right, e)?,
            E::IsNull(a) => Expr::IsNull(Box::new(self.bind(a)?), false),
            E::IsNotNull(a) => Expr::IsNull(Box::new(self.bind(a)?), true),
            E::IsTrue(a) => Expr::IsBool(Box::new(self.bind(a)?), true, false),
            E::IsNotTrue(a) => Expr::IsBool(Box::new(self.bind(a)?), true, true),
            E::IsFalse(a) => Expr::IsBool(Box::new(self.bind(a)?), false, false),
            E::IsNotFalse(a) => Expr::IsBool(Box::new(self.bind(a)?), false, true),
            E::IsUnknown(a) => Expr::IsNull(Box::new(self.bind(a)?), false),
            E::IsNotUnknown(a) => Expr::IsNull(Box::new(self.bind(a)?), true),
            E::IsNotDistinctFrom(a, b) => {
                let (a, b) = (self.bind(a)?, self.bind(b)?);
                let c = self.cmp_collation(&a, &b);
                Expr::Cmp(CmpOp::NullSafeEq, Box::new(a), Box::new(b), c)
            }
            E::IsDistinctFrom(a, b) => {
                let (a, b) = (self.bind(a)?, self.bind(b)?);
                let c = self.cmp_collation(&a, &b);
                Expr::Not(Box::new(Expr::Cmp(
                    CmpOp::NullSafeEq,
                    Box::new(a),
                    Box::new(b),
                    c,
                )))
            }
            E::InList {
                expr,
                list,
                negated,
            } if row_items(expr).is_some() || list.iter().any(|x| row_items(x).is_some()) => {
                // (a, b) IN ((1, 2), (3, 4)): OR over row equalities (three-valued)
                let a = self.bind_operand(expr)?;
                let mut alts = Vec::with_capacity(list.len());
                for x in list {
                    let r = self.bind_operand(x)?;
                    alts.push(self.compare_operands(CmpOp::Eq, a.clone(), r)?);
                }
                let any = alts
                    .into_iter()
                    .reduce(|x, y| Expr::Or(Box::new(x), Box::new(y)))
                    .unwrap_or(Expr::Lit(Value::Int(0)));
                if *negated {
                    Expr::Not(Box::new(any))
                } else {
                    any
                }
            }
            E::InList {
                expr,
                list,
                negated,
            } => {
                let a = self.bind(expr)?;
                let mut l = Vec::with_capacity(list.len());
                for x in list {
                    l.push(self.bind(x)?);
                }
                let c = l
                    .first()
                    .map(|x| self.cmp_collation(&a, x))
                    .unwrap_or(self.env.collation());
                Expr::InList(Box::new(a), l.into(), *negated, c)
            }
            E::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let a = self.bind(expr)?;
                let lo = self.bind(low)?;
                let hi = self.bind(high)?;
                let c = self.cmp_collation(&a, &lo);
                Expr::Between(Box::new(a), Box::new(lo), Box::new(hi), *negated, c)
            }
            E::Like {
                negated,
                expr,
                pattern,
                escape_char,
                any: false,
            } => {
                let a = self.bind(expr)?;
                let p = self.bind(pattern)?;
                let esc = match escape_char.as_deref() {
                    Some(ast::Expr::Value(v)) => match &v.value {
                        ast::Value::SingleQuotedString(s) | ast::Value::DoubleQuotedString(s) => {
                            s.chars().next().unwrap_or('\\')
                        }
                        _ => '\\',
                    },
                    _ => '\\',
                };
                let c = self.cmp_collation(&a, &p);
                Expr::Like(Box::new(a), Box::new(p), esc, *negated, c)
            }
            E::RLike {
                negated,
                expr,
                pattern,
                ..
            } => {
                let f = Expr::Func(
                    "REGEXP_LIKE".into(),
                    vec![self.bind(expr)?, self.bind(pattern)?],
                );
                if *negated {
                    Expr::Not(Box::new(f))
                } else {
                    f
                }
            }
            E::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let op = match operand {
                    Some(o) => Some(Box::new(self.bind(o)?)),
                    None => None,
                };
                let mut whens = Vec::new();
                for cw in conditions {
                    whens.push((self.bind(&cw.condition)?, self.bind(&cw.result)?));
                }
                let els = match else_result {
                    Some(e) => Some(Box::new(self.bind(e)?)),
                    None => None,
                };
                let c = match (&op, whens.first()) {
                    (Some(o), Some((w, _))) => self.cmp_collation(o, w),
                    _ => self.env.collation(),
                };
                self.decimal_result(Expr::Case(op, whens, els, c))
            }
            E::Cast {
                expr, data_type, ..
            } => {
                let a = self.bind(expr)?;
                check_decimal_cast(data_type, expr)?;
                Expr::Cast(Box::new(a), cast_target(data_type)?)
            }
            E::Convert {
                expr,
                data_type,
                charset,
                target_before_value: _,
                ..
            } => {
                let a = self.bind(expr)?;
                match (data_type, charset) {
                    (Some(dt), _) => {
                        check_decimal_cast(dt, expr)?;
                        Expr::Cast(Box::new(a), cast_target(dt)?)
                    }
                    (None, Some(cs)) => {
                        if cs.to_string().eq_ignore_ascii_case("binary") {
                            Expr::Cast(Box::new(a), CastTarget::Binary(None))
                        } else {
                            Expr::Cast(Box::new(a), CastTarget::Char(None))
                        }
                    }
                    (None, None) => a,
                }
            }
            E::Extract { field, expr, .. } => {
                let unit = field.to_string().to_ascii_uppercase();
                Expr::Func(
                    "EXTRACT".into(),
                    vec![Expr::Lit(Value::Str(unit)), self.bind(expr)?],
                )
            }
            E::Ceil { expr, .. } => Expr::Func("CEIL".into(), vec![self.bind(expr)?]),
            E::Floor { expr, .. } => Expr::Func("FLOOR".into(), vec![self.bind(expr)?]),
            E::Position { expr, r#in } => {
                Expr::Func("LOCATE".into(), vec![self.bind(expr)?, self.bind(r#in)?])
            }
            E::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.bind(expr)?];
                args.push(match substring_from {
                    Some(f) => self.bind(f)?,
                    None => Expr::Lit(Value::Int(1)),
                });
                if let Some(f) = substring_for {
                    args.push(self.bind(f)?);
                }
                Expr::Func("SUBSTRING".into(), args)
            }
            E::Trim {
                expr,
                trim_where,
                trim_what,
                trim_characters,
            } => {
                let s = self.bind(expr)?;
                let what = match (trim_what, trim_characters) {
                    (Some(w), _) => self.bind(w)?,
                    (None, Some(cs)) if !cs.is_empty() => self.bind(&cs[0])?,
                    _ => Expr::Lit(Value::Str(" ".into())),
                };
                let mode = match trim_where {
                    Some(ast::TrimWhereField::Leading) => "LEADING",
                    Some(ast::TrimWhereField::Trailing) => "TRAILING",
                    _ => "BOTH",
                };
                Expr::Func(
                    "TRIM".into(),
                    vec![s, what, Expr::Lit(Value::Str(mode.into()))],
                )
            }
            E::Collate { expr, collation } => {
                let name = collation.to_string().trim_matches('`').to_ascii_lowercase();
                let c = Collation::from_name(&name).ok_or_else(|| {
                    Error::new(
                        codes::ER_UNKNOWN_COLLATION,
                        format!("Unknown collation: '{name}'"),
                    )
                })?;
                Expr::Collate(Box::new(self.bind(expr)?), c)
            }
            E::Function(f) if row_items(e).is_some() => return Err(operand_columns(1)),
            E::Function(f) => self.bind_function(f)?,
            E::MemberOf(m) => {
                let v = self.bind(&m.value)?;
                let arr = self.bind(&m.array)?;
                Expr::Func(
                    func::jsonfn::MEMBER_OF.into(),
                    vec![self.json_arg(v, &m.value), self.json_arg(arr, &m.array)],
                )
            }
            E::Interval(_) => return Err(Error::parse("INTERVAL")),
            E::Tuple(items) if items.len() == 1 => self.bind(&items[0])?,
            E::Tuple(_) => return Err(operand_columns(1)),
            E::Subquery(q) => {
                let sq = self.env.subquery(q, self.scope)?;
                sq.require_columns(1)?;
                Expr::Subquery(sq)
            }
            E::Exists { subquery, negated } => {
                let e = Expr::Exists(self.env.subquery(subquery, self.scope)?);
                if *negated {
                    Expr::Not(Box::new(e))
                } else {
                    e
                }
            }
            E::AnyOp {
                left,
                compare_op,
                right,
                ..
            }
            | E::AllOp {
                left,
                compare_op,
                right,
            } => {
                let all = matches!(e, E::AllOp { .. });
                let ast::Expr::Subquery(q) = right.as_ref() else {
                    return Err(Error::not_supported("ANY / ALL over a non-subquery"));
                };
                // `<=>` has no ANY / ALL form.
                let op = cmp_op(compare_op)
                    .filter(|o| *o != CmpOp::NullSafeEq)
                    .ok_or_else(|| Error::parse(format!("{compare_op} ANY")))?;
                if row_items(left).is_some() {
                    // a row: `= ANY` is IN and `<> ALL` is NOT IN; other operators take scalars
                    return match (op, all) {
                        (CmpOp::Eq, false) => self.bind_in_subquery(left, q, false),
                        (CmpOp::Ne, true) => self.bind_in_subquery(left, q, true),
                        _ => Err(operand_columns(1)),
                    };
                }
                let a = self.bind(left)?;
                let sq = self.env.subquery(q, self.scope)?;
                sq.require_columns(1)?;
                let c = self.cmp_collation(&a, &a);
                Expr::Quantified(op, Box::new(a), sq, all, c)
            }
            E::InSubquery {
                expr,
                subquery,
                negated,
            } => self.bind_in_subquery(expr, subquery, *negated)?,
            other => return Err(Error::not_supported(format!("expression {other}"))),
        })
    }

    fn bind_ident(&mut self, ids: &[ast::Ident]) -> Result<Expr> {
        let first = &ids[0].value;
        if ids[0].quote_style.is_none() && first.starts_with("@@") {
            let mut name = first.trim_start_matches("@@").to_string();
            let mut global = false;
            if ids.len() == 2 {
                let scope = name.to_ascii_lowercase();
                global = scope == "global";
                name = ids[1].value.clone();
            }
            return Ok(Expr::Lit(self.env.sysvar(&name, global)?));
        }
        if ids[0].quote_style.is_none() && first.starts_with('@') {
            let mut name = first.trim_start_matches('@').to_string();
            if ids.len() > 1 {
                name = ident_parts(ids)
                    .join(".")
                    .trim_start_matches('@')
                    .to_string();
            }
            return Ok(Expr::Lit(self.env.user_var(&name)));
        }
        let parts = ident_parts(ids);
        if parts.len() == 1 {
            if let Some(aliases) = self.aliases {
                // ORDER BY / HAVING may name a select-list alias. ORDER BY prefers a real
                // column unless the name only exists as an alias; HAVING prefers the alias, as
                // MySQL does (its caller leaves out aliases that a GROUP BY column of the same
                // name shadows). Connector/J's getTables relies on it: `CASE … END AS
                // TABLE_TYPE … HAVING TABLE_TYPE IN ('TABLE', …)` over INFORMATION_SCHEMA.TABLES.
                if self.clause == "having clause"
                    || self.scope.resolve(&parts, self.clause).is_err()
                {
                    if let Some((_, e)) = aliases
                        .iter()
                        .find(|(a, _)| a.eq_ignore_ascii_case(&parts[0]))
                    {
                        return Ok(e.clone());
                    }
                }
            }
            // bare keywords that sqlparser gives as identifiers
            match parts[0].to_ascii_uppercase().as_str() {
                "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "CURRENT_DATE"
                | "CURRENT_TIME" | "UTC_TIMESTAMP" | "UTC_DATE" | "UTC_TIME"
                    if ids[0].quote_style.is_none()
                        && self.scope.resolve(&parts, self.clause).is_err() =>
                {
                    return Ok(Expr::Func(parts[0].to_ascii_uppercase().into(), vec![]));
                }
                _ => {}
            }
        }
        match self.scope.resolve(&parts, self.clause) {
            Ok(i) => Ok(Expr::Col(i)),
            Err(e) if e.code.num == codes::ER_BAD_FIELD_ERROR.num => {
                // a correlated reference to an enclosing query block
                let mut depth = 1;
                let mut outer = self.scope.outer.as_deref();
                while let Some(o) = outer {
                    match o.resolve(&parts, self.clause) {
                        Ok(i) => return Ok(Expr::Outer(depth, i)),
                        Err(e2) if e2.code.num == codes::ER_BAD_FIELD_ERROR.num => {}
                        Err(e2) => return Err(e2),
                    }
                    depth += 1;
                    outer = o.outer.as_deref();
                }
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    fn cmp_collation(&self, a: &Expr, b: &Expr) -> Collation {
        // an explicit COLLATE wins (coercibility 0), then binary strings, then columns
        for e in [a, b] {
            if let Expr::Collate(_, c) = e {
                return *c;
            }
        }
        let col_coll = |e: &Expr| match e {
            Expr::Col(i) => self
                .scope
                .cols
                .get(*i)
                .and_then(|c| c.ty.as_ref())
                .map(|t| t.collation()),
            Expr::Lit(Value::Bytes(_)) => Some(Collation::Binary),
            _ => None,
        };
        match (col_coll(a), col_coll(b)) {
            (Some(Collation::Binary), _) | (_, Some(Collation::Binary)) => Collation::Binary,
            (Some(c), _) | (None, Some(c)) => c,
            _ => self.env.collation(),
        }
    }

    fn bind_binop(
        &mut self,
        left: &ast::Expr,
        op: &BinaryOperator,
        right: &ast::Expr,
        whole: &ast::Expr,
    ) -> Result<Expr> {
        use BinaryOperator as B;
        // date ± INTERVAL
        if matches!(op, B::Plus | B::Minus) {
            if let ast::Expr::Interval(iv) = right {
                return self.bind_interval(left, iv, *op == B::Minus);
            }
            if let (ast::Expr::Interval(iv), B::Plus) = (left, op) {
                return self.bind_interval(right, iv, false);
            }
        }
        if matches!(op, B::Assignment) {
            return Err(Error::not_supported("assignment := inside expressions"));
        }
        if let Some(cop) = cmp_op(op) {
            if row_items(left).is_some()
                || row_items(right).is_some()
                || matches!(left, ast::Expr::Subquery(_))
                || matches!(right, ast::Expr::Subquery(_))
            {
                let l = self.bind_operand(left)?;
                let r = self.bind_operand(right)?;
                return self.compare_operands(cop, l, r);
            }
        }
        let numeric = matches!(
            op,
            B::Plus | B::Minus | B::Multiply | B::Divide | B::MyIntegerDivide | B::Modulo
        );
        let (mut a, mut b) = if numeric {
            (self.bind_numeric(left)?, self.bind_numeric(right)?)
        } else {
            (self.bind(left)?, self.bind(right)?)
        };
        if cmp_op(op).is_some() {
            // ENUM / SET compared with a number: by index / bit mask (MySQL)
            let is_num = |e: &Expr| {
                matches!(
                    e,
                    Expr::Lit(
                        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_)
                    )
                )
            };
            // … and so is a hexadecimal / bit literal
            if is_num(&b) {
                a = match hex_number(left) {
                    Some(v) => Expr::Lit(v),
                    None => self.enum_number(a),
                };
            } else if is_num(&a) {
                b = match hex_number(right) {
                    Some(v) => Expr::Lit(v),
                    None => self.enum_number(b),
                };
            }
        }
        if cmp_op(op).is_some() && (self.is_json_typed(&a) || self.is_json_typed(&b)) {
            // one JSON operand: both compare as JSON values (MySQL), through their sort keys
            a = self.json_key(a, left);
            b = self.json_key(b, right);
        }
        let text = format!("({whole})");
        let arith = |o| Expr::Arith(o, Box::new(a.clone()), Box::new(b.clone()), text.clone());
        let cmp = |s: &Self, o| {
            let c = s.cmp_collation(&a, &b);
            Expr::Cmp(o, Box::new(a.clone()), Box::new(b.clone()), c)
        };
        Ok(match op {
            B::Plus => arith(ArithOp::Add),
            B::Minus => arith(ArithOp::Sub),
            B::Multiply => arith(ArithOp::Mul),
            B::Divide => arith(ArithOp::Div),
            B::MyIntegerDivide | B::DuckIntegerDivide => arith(ArithOp::IntDiv),
            B::Modulo => arith(ArithOp::Mod),
            B::Eq => cmp(self, CmpOp::Eq),
            B::NotEq => cmp(self, CmpOp::Ne),
            B::Lt => cmp(self, CmpOp::Lt),
            B::LtEq => cmp(self, CmpOp::Le),
            B::Gt => cmp(self, CmpOp::Gt),
            B::GtEq => cmp(self, CmpOp::Ge),
            B::Spaceship => cmp(self, CmpOp::NullSafeEq),
            B::And => Expr::And(Box::new(a), Box::new(b)),
            B::Or => Expr::Or(Box::new(a), Box::new(b)),
            B::Xor => Expr::Xor(Box::new(a), Box::new(b)),
            B::BitwiseAnd
            | B::BitwiseOr
            | B::BitwiseXor
            | B::PGBitwiseShiftLeft
            | B::PGBitwiseShiftRight => Expr::Bit(op.clone(), Box::new(a), Box::new(b)),
            B::StringConcat => Expr::Func("CONCAT".into(), vec![a, b]),
            B::Regexp => Expr::Func("REGEXP_LIKE".into(), vec![a, b]),
            // col->'$.path' and col->>'$.path'
            B::Arrow | B::LongArrow => {
                let ext = Expr::Func("JSON_EXTRACT".into(), vec![self.json_arg(a, left), b]);
                if *op == B::Arrow {
                    ext
                } else {
                    Expr::Func(
                        "JSON_UNQUOTE".into(),
                        vec![Expr::Func(func::jsonfn::MARK_JSON.into(), vec![ext])],
                    )
                }
            }
            other => return Err(Error::not_supported(format!("operator {other}"))),
        })
    }

    /// `expr [NOT] IN (SELECT …)`. A row constructor `(a, b) IN (SELECT x, y …)` keeps its
    /// items in a ROW marker the subquery folding expands.
    fn bind_in_subquery(
        &mut self,
        expr: &ast::Expr,
        subquery: &ast::Query,
        negated: bool,
    ) -> Result<Expr> {
        let (a, width) = match row_items(expr) {
            Some(items) => {
                let mut bound = Vec::with_capacity(items.len());
                for it in &items {
                    bound.push(self.bind(it)?);
                }
                (Expr::Func(ROW_MARKER.into(), bound), items.len())
            }
            None => (self.bind(expr)?, 1),
        };
        let sq = self.env.subquery(subquery, self.scope)?;
        sq.require_columns(width)?;
        let c = self.cmp_collation(&a, &a);
        Ok(Expr::InSubquery(Box::new(a), sq, negated, c))
    }

    /// An operand of arithmetic (MySQL's numeric context): a hexadecimal or bit literal is the
    /// unsigned integer of its bytes (`0x10 + 1` = 17, `b'101' + 0` = 5; elsewhere it stays a
    /// binary string), an ENUM column its index and a SET column its bit mask.
    fn bind_numeric(&mut self, e: &ast::Expr) -> Result<Expr> {
        if let Some(v) = hex_number(e) {
            return Ok(Expr::Lit(v));
        }
        let b = self.bind(e)?;
        Ok(self.enum_number(b))
    }

    /// An ENUM / SET column as its number (NULL stays NULL); anything else unchanged.
    fn enum_number(&self, e: Expr) -> Expr {
        let Expr::Col(i) = &e else { return e };
        let coll = self.env.collation();
        let number = match self.scope.cols.get(*i).and_then(|c| c.ty.as_ref()) {
            Some(DataType::Enum { values, .. }) => {
                let mut args = vec![e.clone()];
                args.extend(values.iter().map(|v| Expr::Lit(Value::Str(v.clone()))));
                Expr::Func("FIELD".into(), args)
            }
            Some(DataType::Set { values, .. }) => values
                .iter()
                .enumerate()
                .map(|(bit, v)| {
                    let member = Expr::Cmp(
                        CmpOp::Gt,
                        Box::new(Expr::Func(
                            "FIND_IN_SET".into(),
                            vec![Expr::Lit(Value::Str(v.clone())), e.clone()],
                        )),
                        Box::new(Expr::Lit(Value::Int(0))),
                        coll,
                    );
                    Expr::Bit(
                        BinaryOperator::PGBitwiseShiftLeft,
                        Box::new(member),
                        Box::new(Expr::Lit(Value::Int(bit as i64))),
                    )
                })
                .reduce(|x, y| Expr::Bit(BinaryOperator::BitwiseOr, Box::new(x), Box::new(y)))
                .unwrap_or(Expr::Lit(Value::UInt(0))),
            _ => return e,
        };
        Expr::Case(
            None,
            vec![(Expr::IsNull(Box::new(e), false), Expr::Lit(Value::Null))],
            Some(Box::new(number)),
            coll,
        )
    }

    /// Binds one side of a comparison, which may be a row: a row constructor `(a, b)` /
    /// `ROW(a, b)` or a subquery returning several columns.
    fn bind_operand(&mut self, e: &ast::Expr) -> Result<Operand> {
        if let Some(items) = row_items(e) {
            let mut v = Vec::with_capacity(items.len());
            for it in items {
                v.push(self.bind_operand(it)?);
            }
            return Ok(Operand::Row(v));
        }
        match e {
            ast::Expr::Nested(inner) => self.bind_operand(inner),
            ast::Expr::Subquery(q) => {
                let sq = self.env.subquery(q, self.scope)?;
                let n = sq.query.columns().len();
                Ok(if n == 1 {
                    Operand::Scalar(Expr::Subquery(sq))
                } else {
                    Operand::Row(
                        (0..n)
                            .map(|i| Operand::Scalar(Expr::RowSub(sq.clone(), i)))
                            .collect(),
                    )
                })
            }
            other => Ok(Operand::Scalar(self.bind(other)?)),
        }
    }

    /// `l op r` where either side may be a row. Rows compare element by element as MySQL
    /// does: `=` / `<=>` are the AND of the element comparisons, `<>` their OR, and `<` `<=`
    /// `>` `>=` lexicographic (the first unequal pair decides, a NULL pair before it gives
    /// NULL). Different widths: error 1241 naming the left operand's width.
    fn compare_operands(&mut self, op: CmpOp, l: Operand, r: Operand) -> Result<Expr> {
        let (l, r) = match (l, r) {
            (Operand::Scalar(a), Operand::Scalar(b)) => {
                let c = self.cmp_collation(&a, &b);
                return Ok(Expr::Cmp(op, Box::new(a), Box::new(b), c));
            }
            (Operand::Row(l), Operand::Row(r)) if l.len() == r.len() => (l, r),
            (l, _) => return Err(operand_columns(l.width())),
        };
        let and = |x: Expr, y: Expr| Expr::And(Box::new(x), Box::new(y));
        let or = |x: Expr, y: Expr| Expr::Or(Box::new(x), Box::new(y));
        let n = l.len();
        let mut pairs = l.into_iter().zip(r).collect::<Vec<_>>();
        match op {
            CmpOp::Eq | CmpOp::NullSafeEq | CmpOp::Ne => {
                let mut acc: Option<Expr> = None;
                for (a, b) in pairs {
                    let e = self.compare_operands(op, a, b)?;
                    acc = Some(match acc {
                        None => e,
                        Some(x) if op == CmpOp::Ne => or(x, e),
                        Some(x) => and(x, e),
                    });
                }
                acc.ok_or_else(|| Error::internal("empty row"))
            }
            CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge => {
                let strict = match op {
                    CmpOp::Le => CmpOp::Lt,
                    CmpOp::Ge => CmpOp::Gt,
                    o => o,
                };
                let (a, b) = pairs.pop().ok_or_else(|| Error::internal("empty row"))?;
                let mut acc = self.compare_operands(op, a, b)?;
                for _ in 1..n {
                    let (a, b) = pairs.pop().ok_or_else(|| Error::internal("row width"))?;
                    let lt = self.compare_operands(strict, a.clone(), b.clone())?;
                    let eq = self.compare_operands(CmpOp::Eq, a, b)?;
                    acc = or(lt, and(eq, acc));
                }
                Ok(acc)
            }
        }
    }

    fn bind_interval(
        &mut self,
        date: &ast::Expr,
        iv: &ast::Interval,
        negate: bool,
    ) -> Result<Expr> {
        let d = self.bind(date)?;
        let (n, unit) = self.interval_parts(iv)?;
        Ok(Expr::DateAdd(Box::new(d), Box::new(n), unit, negate))
    }

    /// The bound value and unit of `INTERVAL value unit`. Compound MySQL units (HOUR_MINUTE,
    /// DAY_SECOND...) arrive from the tokenizer as `INTERVAL `INTERVAL@UNIT`('UNIT', value) DAY`.
    fn interval_parts(&mut self, iv: &ast::Interval) -> Result<(Expr, func::arith::IntervalUnit)> {
        if let ast::Expr::Function(f) = iv.value.as_ref() {
            if f.name.to_string().trim_matches('`') == crate::parse::parser::COMPOUND_INTERVAL {
                if let ast::FunctionArguments::List(l) = &f.args {
                    if let [ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(
                        ast::Expr::Value(u),
                    )), ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(v))] =
                        l.args.as_slice()
                    {
                        if let ast::Value::SingleQuotedString(unit) = &u.value {
                            let unit = func::arith::IntervalUnit::from_name(unit)
                                .ok_or_else(|| Error::parse(format!("INTERVAL ... {unit}")))?;
                            return Ok((self.bind(v)?, unit));
                        }
                    }
                }
            }
        }
        Ok((self.bind(&iv.value)?, interval_unit(iv)?))
    }

    /// Collation an aggregate compares its argument under (MIN/MAX, DISTINCT).
    /// WEIGHT_STRING(expr [AS CHAR(n) | AS BINARY(n)]): the argument's collation and integer
    /// width, known only here, are appended as literals for [`func::weight`].
    fn weight_string(&self, mut bound: Vec<Expr>, as_: Option<(String, Value)>) -> Result<Expr> {
        if bound.len() != 1 {
            return Err(func::scalar::arg_count_error("WEIGHT_STRING"));
        }
        let arg = bound.pop();
        let coll = self.arg_collation(&arg);
        let int_bytes = match &arg {
            Some(Expr::Col(i)) => match self.scope.cols[*i].ty {
                Some(DataType::Int { bytes, .. }) => i64::from(bytes),
                _ => 8,
            },
            _ => 8,
        };
        let (kind, len) = as_.unwrap_or((String::new(), Value::Int(0)));
        let mut args = vec![arg.unwrap_or(Expr::Lit(Value::Null))];
        args.push(Expr::Lit(Value::Str(coll.name().into())));
        args.push(Expr::Lit(Value::Int(int_bytes)));
        args.push(Expr::Lit(Value::Str(kind)));
        args.push(Expr::Lit(len));
        Ok(Expr::Func("WEIGHT_STRING".into(), args))
    }

    fn arg_collation(&self, arg: &Option<Expr>) -> Collation {
        match arg {
            Some(Expr::Col(i)) => self.scope.cols[*i]
                .ty
                .as_ref()
                .map(|t| t.collation())
                .unwrap_or(self.env.collation()),
            _ => self.env.collation(),
        }
    }

    fn bind_window(
        &mut self,
        name: &str,
        args: &[ast::FunctionArg],
        distinct: bool,
        over: &ast::WindowType,
    ) -> Result<Expr> {
        // every aggregate but GROUP_CONCAT can run over a window
        let func = match (AggFunc::aggregate(name), name) {
            (Some(f), _) if f != AggFunc::GroupConcat => f,
            (_, "ROW_NUMBER") => AggFunc::RowNumber,
            (_, "RANK") => AggFunc::Rank,
            (_, "DENSE_RANK") => AggFunc::DenseRank,
            (_, "PERCENT_RANK") => AggFunc::PercentRank,
            (_, "CUME_DIST") => AggFunc::CumeDist,
            (_, "NTILE") => AggFunc::Ntile,
            (_, "LAG") => AggFunc::Lag,
            (_, "LEAD") => AggFunc::Lead,
            (_, "FIRST_VALUE") => AggFunc::FirstValue,
            (_, "LAST_VALUE") => AggFunc::LastValue,
            (_, "NTH_VALUE") => AggFunc::NthValue,
            (_, other) => {
                return Err(Error::new(
                    codes::ER_PARSE_ERROR,
                    format!(
                        "You have an error in your SQL syntax; {other} is not a window function"
                    ),
                ))
            }
        };
        if self.aggs.is_none() {
            return Err(Error::new(
                codes::ER_WINDOW_INVALID_WINDOW_FUNC_USE,
                format!(
                    "You cannot use the window function '{}' in this context.'",
                    name.to_ascii_lowercase()
                ),
            ));
        }
        let spec = match over {
            ast::WindowType::WindowSpec(w) => w,
            ast::WindowType::NamedWindow(n) => {
                return Err(Error::not_supported(format!("named window {n}")))
            }
        };
        let mut bound = Vec::new();
        let mut star = false;
        for a in args {
            match a {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                    bound.push(self.sub().bind(e)?)
                }
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) => star = true,
                _ => return Err(Error::not_supported("this window function argument")),
            }
        }
        let mut partition = Vec::new();
        for e in &spec.partition_by {
            partition.push(self.sub().bind(e)?);
        }
        let mut order = Vec::new();
        for o in &spec.order_by {
            order.push((
                self.sub().bind(&o.expr)?,
                matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
            ));
        }
        let (frame, range_offsets) = match &spec.window_frame {
            None => (None, [None, None]),
            Some(f) => {
                let (frame, offsets) = self.bind_frame(f, &order)?;
                (Some(frame), offsets)
            }
        };
        let (arg, extra) = if star || bound.is_empty() {
            (None, Vec::new())
        } else {
            let mut it = bound.into_iter();
            let first = it.next();
            match func {
                AggFunc::Ntile => (None, first.into_iter().collect()),
                _ => (first, it.collect()),
            }
        };
        let coll = self.arg_collation(&arg);
        let aggs = self.aggs.as_mut().ok_or_else(|| Error::internal("aggs"))?;
        aggs.push(AggCall {
            func,
            arg,
            distinct,
            separator: ",".into(),
            coll,
            window: Some(Box::new(WindowDef {
                partition,
                order,
                frame,
                range_offsets,
                extra,
            })),
            order: vec![],
        });
        Ok(Expr::Agg(self.agg_base + aggs.len() - 1))
    }

    /// A window frame, checked as MySQL 8 does: INTERVAL only in RANGE frames (3596); a RANGE
    /// offset needs one numeric or temporal ORDER BY key (3587), an INTERVAL for a temporal
    /// key (3588) and a number for a numeric one (3589), constant (3590); ROWS offsets are
    /// non-negative integers and a frame can't start after it ends (3586). GROUPS frames are
    /// not in MySQL 8.0 (1235).
    #[allow(clippy::type_complexity)]
    fn bind_frame(
        &mut self,
        f: &ast::WindowFrame,
        order: &[(Expr, bool)],
    ) -> Result<((bool, FrameBound, FrameBound), [Option<RangeOffset>; 2])> {
        const W: &str = "<unnamed window>";
        let win_err = |code: common::ErrorCode, msg: &str| Error::new(code, msg.replace("%s", W));
        let illegal = || {
            win_err(
                codes::ER_WINDOW_FRAME_ILLEGAL,
                "Window '%s': frame start or end is negative, NULL or of non-integral type",
            )
        };
        let rows = match f.units {
            ast::WindowFrameUnits::Rows => true,
            ast::WindowFrameUnits::Range => false,
            ast::WindowFrameUnits::Groups => return Err(Error::not_supported("GROUPS")),
        };
        let mut bounds = [FrameBound::CurrentRow; 2];
        let mut offsets: [Option<RangeOffset>; 2] = [None, None];
        for (i, b) in [Some(&f.start_bound), f.end_bound.as_ref()]
            .into_iter()
            .enumerate()
        {
            let (e, preceding) = match b {
                None | Some(ast::WindowFrameBound::CurrentRow) => continue,
                Some(ast::WindowFrameBound::Preceding(e)) => (e, true),
                Some(ast::WindowFrameBound::Following(e)) => (e, false),
            };
            let Some(e) = e else {
                bounds[i] = if preceding {
                    FrameBound::UnboundedPreceding
                } else {
                    FrameBound::UnboundedFollowing
                };
                continue;
            };
            let (value, unit) = match e.as_ref() {
                ast::Expr::Interval(iv) => {
                    let (v, u) = self.interval_parts(iv)?;
                    (v, Some(u))
                }
                other => (self.sub().bind(other)?, None),
            };
            if rows {
                if unit.is_some() {
                    return Err(win_err(
                        codes::ER_WINDOW_ROWS_INTERVAL_USE,
                        "Window '%s': INTERVAL can only be used with RANGE frames.",
                    ));
                }
                let k = match value {
                    Expr::Lit(Value::Int(k)) if k >= 0 => k as u64,
                    Expr::Lit(Value::UInt(k)) => k,
                    Expr::Lit(_) => return Err(illegal()),
                    _ => return Err(Error::not_supported("this ROWS frame offset")),
                };
                bounds[i] = if preceding {
                    FrameBound::Preceding(k)
                } else {
                    FrameBound::Following(k)
                };
                continue;
            }
            let key_type = match order {
                [(k, _)] => Some(expr_type(
                    k,
                    self.scope,
                    self.aggs.as_deref().map(|a| a.as_slice()).unwrap_or(&[]),
                    self.agg_base,
                )),
                _ => None,
            };
            match key_type {
                Some(t) if t.is_numeric() => {
                    if unit.is_some() {
                        return Err(win_err(
                            codes::ER_WINDOW_RANGE_FRAME_NUMERIC_TYPE,
                            "Window '%s' with RANGE frame has ORDER BY expression of numeric type, INTERVAL bound value not allowed.",
                        ));
                    }
                }
                Some(t) if t.is_temporal() => {
                    if unit.is_none() {
                        return Err(win_err(
                            codes::ER_WINDOW_RANGE_FRAME_TEMPORAL_TYPE,
                            "Window '%s' with RANGE frame has ORDER BY expression of datetime type. Only INTERVAL bound value allowed.",
                        ));
                    }
                }
                _ => {
                    return Err(win_err(
                        codes::ER_WINDOW_RANGE_FRAME_ORDER_TYPE,
                        "Window '%s' with RANGE N PRECEDING/FOLLOWING frame requires exactly one ORDER BY expression, of numeric or temporal type",
                    ))
                }
            }
            if !value.is_const() {
                return Err(win_err(
                    codes::ER_WINDOW_RANGE_BOUND_NOT_CONSTANT,
                    "Window '%s' has a non-constant frame bound.",
                ));
            }
            if matches!(&value, Expr::Lit(v) if v.is_null()) {
                return Err(illegal());
            }
            bounds[i] = if preceding {
                FrameBound::RangePreceding
            } else {
                FrameBound::RangeFollowing
            };
            offsets[i] = Some(RangeOffset { value, unit });
        }
        let [start, end] = bounds;
        if start.rank() > end.rank()
            || start == FrameBound::UnboundedFollowing
            || end == FrameBound::UnboundedPreceding
        {
            return Err(illegal());
        }
        Ok(((rows, start, end), offsets))
    }

    /// GROUPING(expr, …): only where aggregates are (select list, HAVING, ORDER BY) — MySQL's
    /// 1111 elsewhere; the planner maps the arguments to GROUP BY positions.
    fn bind_grouping(&mut self, args: &[ast::FunctionArg]) -> Result<Expr> {
        if self.aggs.is_none() {
            return Err(Error::new(
                codes::ER_INVALID_GROUP_FUNC_USE,
                "Invalid use of group function",
            ));
        }
        let mut bound = Vec::with_capacity(args.len());
        {
            let mut inner = self.nested(self.clause);
            for a in args {
                match a {
                    ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                        bound.push(inner.bind(e)?)
                    }
                    _ => return Err(Error::parse("GROUPING")),
                }
            }
        }
        if bound.is_empty() {
            return Err(Error::parse("GROUPING()"));
        }
        let aggs = self.aggs.as_mut().ok_or_else(|| Error::internal("aggs"))?;
        aggs.push(AggCall {
            func: AggFunc::Grouping,
            arg: Some(Expr::Func(GROUPING_ARGS.into(), bound)),
            distinct: false,
            separator: String::new(),
            coll: self.env.collation(),
            window: None,
            order: vec![],
        });
        Ok(Expr::Agg(self.agg_base + aggs.len() - 1))
    }

    fn bind_function(&mut self, f: &ast::Function) -> Result<Expr> {
        let name = f.name.to_string().to_ascii_uppercase();
        let name = name.trim_matches('`').to_string();
        let (args, distinct, clauses) = match &f.args {
            ast::FunctionArguments::None => (vec![], false, vec![]),
            ast::FunctionArguments::List(l) => (
                l.args.clone(),
                matches!(
                    l.duplicate_treatment,
                    Some(ast::DuplicateTreatment::Distinct)
                ),
                l.clauses.clone(),
            ),
            ast::FunctionArguments::Subquery(_) => return Err(Error::not_supported("subqueries")),
        };
        if let Some(over) = &f.over {
            return self.bind_window(&name, &args, distinct, over);
        }
        if name == "GROUPING" && f.over.is_none() {
            return self.bind_grouping(&args);
        }
        let agg = AggFunc::aggregate(&name);
        if let Some(func) = agg {
            if self.aggs.is_none() {
                return Err(Error::new(
                    codes::ER_INVALID_GROUP_FUNC_USE,
                    "Invalid use of group function",
                ));
            }
            let mut arg_exprs = Vec::new();
            let mut star = false;
            {
                // aggregates may not nest: bind args without aggregate collection
                let mut inner = self.nested(self.clause);
                for a in &args {
                    match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                            arg_exprs.push(inner.bind(e)?)
                        }
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Wildcard) => star = true,
                        _ => return Err(Error::not_supported("this aggregate argument")),
                    }
                }
            }
            let mut separator = ",".to_string();
            let mut order = Vec::new();
            for c in &clauses {
                match c {
                    ast::FunctionArgumentClause::Separator(v) => {
                        if let ast::Value::SingleQuotedString(s) = &v.value {
                            separator = s.clone();
                        }
                    }
                    ast::FunctionArgumentClause::OrderBy(list) if func == AggFunc::GroupConcat => {
                        let mut inner = self.nested("order clause");
                        for o in list {
                            order.push((
                                inner.bind(&o.expr)?,
                                matches!(o.options.sort, Some(ast::OrderBySort::Desc)),
                            ));
                        }
                    }
                    _ => {}
                }
            }
            let arg = match (func, star, arg_exprs.len()) {
                (AggFunc::Count, true, _) => None,
                (AggFunc::GroupConcat, _, n) if n > 1 => {
                    Some(Expr::Func("CONCAT".into(), arg_exprs))
                }
                (AggFunc::Count, false, n) if n > 1 && distinct => {
                    let colls = arg_exprs
                        .iter()
                        .map(|e| self.arg_collation(&Some(e.clone())))
                        .collect();
                    Some(Expr::Func(Builtin::distinct_key(colls), arg_exprs))
                }
                (_, false, 1) => arg_exprs.pop(),
                _ => {
                    return Err(Error::parse(format!("{name}(")));
                }
            };
            let coll = self.arg_collation(&arg);
            let aggs = self.aggs.as_mut().ok_or_else(|| Error::internal("aggs"))?;
            aggs.push(AggCall {
                func,
                arg,
                distinct,
                separator,
                coll,
                window: None,
                order,
            });
            return Ok(Expr::Agg(self.agg_base + aggs.len() - 1));
        }
        if name == "VALUES" && args.len() == 1 {
            // VALUES(col) or VALUES(t.col): the inserted row's column
            let col = match &args[0] {
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Identifier(
                    id,
                ))) => Some(id),
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(
                    ast::Expr::CompoundIdentifier(p),
                )) => p.last(),
                _ => None,
            };
            if let Some(id) = col {
                let parts = vec![VALUES_QUALIFIER.to_string(), id.value.clone()];
                if let Ok(i) = self.scope.resolve(&parts, self.clause) {
                    return Ok(Expr::Col(i));
                }
                return Ok(Expr::Lit(Value::Null));
            }
        }
        if name == "GET_FORMAT" && args.len() == 2 {
            // GET_FORMAT(DATE, 'USA'): the type keyword arrives as an identifier.
            if let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Identifier(
                id,
            ))) = &args[0]
            {
                let kind = id.value.to_ascii_uppercase();
                if matches!(kind.as_str(), "DATE" | "TIME" | "DATETIME" | "TIMESTAMP") {
                    let locale = match &args[1] {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => self.bind(e)?,
                        _ => return Err(Error::not_supported("argument form in GET_FORMAT()")),
                    };
                    return Ok(Expr::Func(
                        name.into(),
                        vec![Expr::Lit(Value::Str(kind)), locale],
                    ));
                }
            }
        }
        let date_add = matches!(
            name.as_str(),
            "DATE_ADD" | "ADDDATE" | "DATE_SUB" | "SUBDATE"
        );
        let unit_first = matches!(name.as_str(), "TIMESTAMPDIFF" | "TIMESTAMPADD");
        let mut bound = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            match a {
                // DATE_ADD(d, INTERVAL n unit): the interval is bound below.
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Interval(_)))
                    if date_add && i == 1 =>
                {
                    bound.push(Expr::Lit(Value::Null))
                }
                // TIMESTAMPDIFF(MONTH, a, b): the unit keyword arrives as an identifier.
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Identifier(
                    id,
                ))) if unit_first
                    && i == 0
                    && id.quote_style.is_none()
                    && func::arith::IntervalUnit::from_name(&id.value).is_some() =>
                {
                    bound.push(Expr::Lit(Value::Str(id.value.to_ascii_uppercase())))
                }
                ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(e)) => {
                    bound.push(self.sub().bind(e)?)
                }
                _ => return Err(Error::not_supported(format!("argument form in {name}()"))),
            }
        }
        Ok(match name.as_str() {
            "DATABASE" | "SCHEMA" => {
                Expr::Lit(self.env.database().map(Value::Str).unwrap_or(Value::Null))
            }
            "USER" | "SESSION_USER" | "SYSTEM_USER" => Expr::Lit(Value::Str(self.env.user())),
            "CURRENT_USER" => Expr::Lit(Value::Str(self.env.current_user())),
            "CONNECTION_ID" => Expr::Lit(Value::UInt(self.env.connection_id())),
            "VERSION" => Expr::Lit(Value::Str(crate::runtime::sysvars::SERVER_VERSION.into())),
            "FOUND_ROWS" => Expr::Lit(Value::UInt(self.env.found_rows())),
            "ROW_COUNT" => Expr::Lit(Value::Int(self.env.row_count())),
            "LAST_INSERT_ID" if bound.is_empty() => {
                Expr::Lit(Value::UInt(self.env.last_insert_id()))
            }
            "LAST_INSERT_ID" => Expr::SetLastInsertId(Box::new(bound.remove(0))),
            "SLEEP" if bound.len() == 1 => Expr::Sleep(Box::new(bound.remove(0))),
            "DATE_ADD" | "ADDDATE" | "DATE_SUB" | "SUBDATE" if bound.len() == 2 => {
                // DATE_ADD(d, INTERVAL n unit): the interval arrives as an ast::Expr::Interval
                let neg = name.ends_with("SUB") || name == "SUBDATE";
                if let ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ast::Expr::Interval(
                    iv,
                ))) = &args[1]
                {
                    let (n, unit) = self.interval_parts(iv)?;
                    Expr::DateAdd(Box::new(bound.remove(0)), Box::new(n), unit, neg)
                } else {
                    Expr::DateAdd(
                        Box::new(bound.remove(0)),
                        Box::new(bound.remove(0)),
                        func::arith::IntervalUnit::Day,
                        neg,
                    )
                }
            }
            "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE"
            | "CURDATE" | "CURRENT_DATE" | "CURTIME" | "CURRENT_TIME" | "UTC_TIMESTAMP" => {
                Expr::Func(name.into(), bound)
            }
            // `x COLLATE c`: that collation and its character set
            "CHARSET" | "COLLATION"
                if bound.len() == 1 && matches!(bound[0], Expr::Collate(..)) =>
            {
                match &bound[0] {
                    Expr::Collate(_, c) => Expr::Lit(Value::Str(
                        if name == "COLLATION" {
                            c.name()
                        } else {
                            c.charset()
                        }
                        .into(),
                    )),
                    _ => Expr::Func(name.into(), bound),
                }
            }
            "CHARSET" | "COLLATION" | "COERCIBILITY"
                if bound.len() == 1 && matches!(bound[0], Expr::Col(_)) =>
            {
                // A column argument: its declared character set and collation, coercibility
                // 2 (implicit) for strings and 5 for other types.
                let ty = match &bound[0] {
                    Expr::Col(i) => self.scope.cols.get(*i).and_then(|c| c.ty.clone()),
                    _ => None,
                };
                match ty {
                    Some(t) => {
                        let coll = match t {
                            DataType::Json => Collation::Utf8mb4Bin,
                            ref t => t.collation(),
                        };
                        let stringy = matches!(
                            t,
                            DataType::Char { .. }
                                | DataType::VarChar { .. }
                                | DataType::Text { .. }
                                | DataType::Enum { .. }
                                | DataType::Set { .. }
                                | DataType::Binary { .. }
                                | DataType::VarBinary { .. }
                                | DataType::Blob { .. }
                                | DataType::Json
                        );
                        Expr::Lit(match name.as_str() {
                            "COERCIBILITY" => Value::Int(if stringy { 2 } else { 5 }),
                            "COLLATION" => Value::Str(coll.name().into()),
                            _ => Value::Str(coll.charset().into()),
                        })
                    }
                    None => Expr::Func(name.into(), bound),
                }
            }
            "WEIGHT_STRING" => self.weight_string(bound, None)?,
            n if n == crate::parse::dialect::WEIGHT_STRING_AS => {
                let (kind, len) = match bound.get(1..3) {
                    Some([Expr::Lit(Value::Str(k)), Expr::Lit(n)]) => (k.clone(), n.clone()),
                    _ => return Err(Error::internal("WEIGHT_STRING … AS without its type")),
                };
                self.weight_string(bound.into_iter().take(1).collect(), Some((kind, len)))?
            }
            "NAME_CONST" => {
                // Both arguments must be constants (a literal, possibly negated).
                let is_lit = |e: &Expr| matches!(e, Expr::Lit(_) | Expr::Neg(_) if e.is_const());
                if bound.len() != 2 || !bound.iter().all(is_lit) {
                    return Err(Error::new(
                        codes::ER_WRONG_ARGUMENTS,
                        "Incorrect arguments to NAME_CONST",
                    ));
                }
                Expr::Func(name.into(), bound)
            }
            "GET_LOCK" | "RELEASE_LOCK" | "RELEASE_ALL_LOCKS" | "IS_FREE_LOCK" | "IS_USED_LOCK"
            | "BENCHMARK" => {
                let want = match name.as_str() {
                    "GET_LOCK" | "BENCHMARK" => 2,
                    "RELEASE_ALL_LOCKS" => 0,
                    _ => 1,
                };
                if bound.len() != want {
                    return Err(func::scalar::arg_count_error(&name));
                }
                Expr::Func(name.into(), bound)
            }
            _ if func::jsonfn::takes_json(&name) => {
                let mut marked = Vec::with_capacity(bound.len());
                for (e, a) in bound.into_iter().zip(&args) {
                    marked.push(match a {
                        ast::FunctionArg::Unnamed(ast::FunctionArgExpr::Expr(ae)) => {
                            self.json_arg(e, ae)
                        }
                        _ => e,
                    });
                }
                Expr::Func(name.into(), marked)
            }
            _ => self.builtin_call(f, name, bound)?,
        })
    }

    /// A call of a built-in function the executor evaluates by name: resolved here, so an
    /// unknown function (1305) or a wrong argument count (1582) fails the statement before
    /// any row is read, as in MySQL, not when (or if) a row reaches the call.
    fn builtin_call(&self, f: &ast::Function, name: String, bound: Vec<Expr>) -> Result<Expr> {
        if !func::scalar::is_builtin(&name) {
            // a stored function: `f(...)` of the current database, `db.f(...)` of `db`
            let parts: Vec<String> = f.name.0.iter().map(|p| p.to_string()).collect();
            let bare = parts.last().map_or(name.as_str(), |p| p.trim_matches('`'));
            let db = match parts.len() {
                1 => self.env.database(),
                _ => Some(parts[parts.len() - 2].trim_matches('`').to_string()),
            };
            if let Some(db) = &db {
                if let Some(r) = self.env.stored_function(db, bare)? {
                    let want = r.def.params.len();
                    if bound.len() != want {
                        return Err(Error::new(
                            codes::ER_SP_WRONG_NO_OF_ARGS,
                            format!(
                                "Incorrect number of arguments for FUNCTION {}; expected {want}, got {}",
                                r.qualified(),
                                bound.len()
                            ),
                        ));
                    }
                    return Ok(Expr::Func(Builtin::stored(r), bound));
                }
            }
            return Err(func::scalar::unknown_function_in(bare, db.as_deref()));
        }
        if let Some((lo, hi)) = func::scalar::arg_counts(&name) {
            if bound.len() < lo || bound.len() > hi {
                return Err(func::scalar::arg_count_error(&name));
            }
        }
        let control_flow = matches!(name.as_str(), "IF" | "IFNULL" | "COALESCE");
        let e = Expr::Func(name.into(), bound);
        Ok(if control_flow {
            self.decimal_result(e)
        } else {
            e
        })
    }

    /// IF / IFNULL / COALESCE / CASE whose result type is DECIMAL give their value as that
    /// DECIMAL, as MySQL does: `IF(1 > 2, 1.50, 2)` is `2.00` and `COALESCE(SUM(price), 0)` over
    /// no rows `0.00` (the chosen branch is cast to the merged precision and scale, which holds
    /// every branch, so nothing is rounded away).
    fn decimal_result(&self, e: Expr) -> Expr {
        let aggs: &[AggCall] = self.aggs.as_deref().map_or(&[], |v| v.as_slice());
        match expr_type(&e, self.scope, aggs, self.agg_base) {
            ExprType::Decimal { precision, scale } => {
                Expr::Cast(Box::new(e), CastTarget::Decimal(precision, scale))
            }
            _ => e,
        }
    }
}

impl Binder<'_> {
    /// Whether `e` is JSON-typed: a JSON column, a JSON function's result, `CAST(.. AS JSON)`.
    pub(crate) fn is_json_typed(&self, e: &Expr) -> bool {
        match e {
            Expr::Col(i) => matches!(
                self.scope.cols.get(*i).and_then(|c| c.ty.as_ref()),
                Some(DataType::Json)
            ),
            Expr::Func(n, _) => func::jsonfn::returns_json(n),
            Expr::Cast(_, CastTarget::Json) => true,
            _ => false,
        }
    }

    /// `e` as the operand of a JSON comparison: its sort key ([`func::json_order`]), from its
    /// JSON value (a plain SQL value converted as a JSON function argument is).
    pub(crate) fn json_key(&self, e: Expr, ast_e: &ast::Expr) -> Expr {
        Expr::Func(
            func::json_order::JSON_KEY.into(),
            vec![self.json_arg(e, ast_e)],
        )
    }

    /// Wraps an argument of a JSON function in a marker when it is JSON-typed (a JSON column,
    /// a JSON function, CAST(.. AS JSON)) or boolean (a comparison, TRUE/FALSE), so the JSON
    /// function embeds it as JSON or as true/false rather than as a string or number.
    fn json_arg(&self, e: Expr, ast_e: &ast::Expr) -> Expr {
        use func::jsonfn::{MARK_BOOL, MARK_JSON};
        let is_json = self.is_json_typed(&e);
        let is_bool = matches!(
            e,
            Expr::Cmp(..)
                | Expr::And(..)
                | Expr::Or(..)
                | Expr::Xor(..)
                | Expr::Not(_)
                | Expr::IsNull(..)
                | Expr::IsBool(..)
                | Expr::InList(..)
                | Expr::Between(..)
                | Expr::Like(..)
                | Expr::Exists(_)
                | Expr::InSubquery(..)
                | Expr::Quantified(..)
        ) || matches!(ast_e, ast::Expr::Value(v) if matches!(v.value, ast::Value::Boolean(_)));
        if is_json && !matches!(&e, Expr::Func(n, _) if n == MARK_JSON) {
            Expr::Func(MARK_JSON.into(), vec![e])
        } else if is_bool {
            Expr::Func(MARK_BOOL.into(), vec![e])
        } else {
            e
        }
    }
}

pub(crate) fn interval_unit(iv: &ast::Interval) -> Result<func::arith::IntervalUnit> {
    use func::arith::IntervalUnit as U;
    let lead = iv
        .leading_field
        .as_ref()
        .map(|f| f.to_string().to_ascii_uppercase())
        .unwrap_or_else(|| "SECOND".into());
    let last = iv
        .last_field
        .as_ref()
        .map(|f| f.to_string().to_ascii_uppercase());
    let name = match last {
        Some(l) => format!("{lead}_{l}"),
        None => lead,
    };
    U::from_name(&name).ok_or_else(|| Error::parse(format!("INTERVAL ... {name}")))
}

/// Maps a CAST target type.
/// MySQL's checks of a `CAST(x AS DECIMAL(M,D))` target: 1426 for M > 65, 1425 for D > 30,
/// 1427 for M < D.
pub(crate) fn check_decimal_cast(dt: &ast::DataType, expr: &ast::Expr) -> Result<()> {
    use ast::DataType as D;
    let (D::Decimal(info) | D::Numeric(info) | D::Dec(info)) = dt else {
        return Ok(());
    };
    let (p, s) = match info {
        ast::ExactNumberInfo::None => return Ok(()),
        ast::ExactNumberInfo::Precision(p) => (*p, 0),
        ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p, *s as u64),
    };
    let name = expr.to_string();
    if p > common::decimal::MAX_PRECISION as u64 {
        return Err(Error::new(
            codes::ER_TOO_BIG_PRECISION,
            format!("Too-big precision {p} specified for '{name}'. Maximum is 65."),
        ));
    }
    if s > common::decimal::MAX_SCALE as u64 {
        return Err(Error::new(
            codes::ER_TOO_BIG_SCALE,
            format!("Too big scale {s} specified for column '{name}'. Maximum is 30."),
        ));
    }
    if p < s {
        return Err(Error::new(
            codes::ER_M_BIGGER_THAN_D,
            "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '').",
        ));
    }
    Ok(())
}

pub fn cast_target(dt: &ast::DataType) -> Result<CastTarget> {
    use ast::DataType as D;
    let s = dt.to_string().to_ascii_uppercase();
    Ok(match dt {
        D::Signed | D::SignedInteger => CastTarget::Signed,
        D::Unsigned | D::UnsignedInteger => CastTarget::Unsigned,
        D::Int(_) | D::Integer(_) | D::BigInt(_) => CastTarget::Signed,
        D::Decimal(info) | D::Numeric(info) | D::Dec(info) => {
            let (p, s) = match info {
                ast::ExactNumberInfo::None => (10, 0),
                ast::ExactNumberInfo::Precision(p) => (*p as u8, 0),
                ast::ExactNumberInfo::PrecisionAndScale(p, s) => (*p as u8, *s as u8),
            };
            CastTarget::Decimal(p, s)
        }
        D::Double(_) | D::DoublePrecision | D::Real => CastTarget::Double,
        D::Float(_) => CastTarget::Float,
        D::Char(len) | D::Character(len) | D::Varchar(len) => CastTarget::Char(char_len(len)),
        D::Binary(len) => CastTarget::Binary(len.map(|l| l as u32)),
        D::Date => CastTarget::Date,
        D::Datetime(p) => CastTarget::DateTime(p.unwrap_or(0) as u8),
        D::Timestamp(p, _) => CastTarget::DateTime(p.unwrap_or(0) as u8),
        D::Time(p, _) => CastTarget::Time(p.unwrap_or(0) as u8),
        D::JSON => CastTarget::Json,
        _ if s.starts_with("YEAR") => CastTarget::Year,
        _ => return Err(Error::parse(format!("CAST AS {s}"))),
    })
}

pub(crate) fn char_len(len: &Option<ast::CharacterLength>) -> Option<u32> {
    match len {
        Some(ast::CharacterLength::IntegerLength { length, .. }) => Some(*length as u32),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Static typing for result metadata

/// Static type of an expression, for column metadata.
pub fn expr_type(e: &Expr, scope: &Scope, aggs: &[AggCall], agg_base: usize) -> ExprType {
    match e {
        Expr::Lit(v) => func::types::type_of_value(v),
        Expr::Col(i) => match scope.cols.get(*i) {
            Some(ScopeCol { ty: Some(t), .. }) => func::types::type_of_column(t),
            Some(ScopeCol { ety: Some(t), .. }) => *t,
            _ => ExprType::Str { max_chars: 255 },
        },
        Expr::Outer(depth, i) => {
            let mut sc = Some(scope);
            for _ in 0..*depth {
                sc = sc.and_then(|s| s.outer.as_deref());
            }
            match sc {
                Some(s) => expr_type(&Expr::Col(*i), s, &[], usize::MAX),
                None => ExprType::Str { max_chars: 255 },
            }
        }
        Expr::Subquery(q) => q.first_type,
        Expr::RowSub(q, i) => q.query.types().get(*i).cloned().unwrap_or(ExprType::Null),
        Expr::Exists(_) | Expr::InSubquery(..) | Expr::Quantified(..) => ExprType::Int,
        Expr::Param(_) => ExprType::Str { max_chars: 255 },
        Expr::Agg(i) => {
            let Some(a) = aggs.get(i - agg_base) else {
                return ExprType::Null;
            };
            let at = a
                .arg
                .as_ref()
                .map(|x| expr_type(x, scope, aggs, agg_base))
                .unwrap_or(ExprType::Int);
            match a.func {
                AggFunc::Count => ExprType::Int,
                AggFunc::Sum => match at {
                    ExprType::Int | ExprType::UInt => ExprType::Decimal {
                        precision: 33,
                        scale: 0,
                    },
                    ExprType::Decimal { precision, scale } => ExprType::Decimal {
                        precision: (precision + 22).min(65),
                        scale,
                    },
                    _ => ExprType::Double,
                },
                AggFunc::Avg => match at {
                    ExprType::Int | ExprType::UInt => ExprType::Decimal {
                        precision: 14,
                        scale: 4,
                    },
                    ExprType::Decimal { precision, scale } => ExprType::Decimal {
                        precision: (precision + 4).min(65),
                        scale: (scale + 4).min(30),
                    },
                    _ => ExprType::Double,
                },
                AggFunc::Min | AggFunc::Max => at,
                AggFunc::BitAnd | AggFunc::BitOr | AggFunc::BitXor => ExprType::UInt,
                AggFunc::GroupConcat => ExprType::Str { max_chars: 1024 },
                AggFunc::StdPop | AggFunc::StdSamp | AggFunc::VarPop | AggFunc::VarSamp => {
                    ExprType::Double
                }
                AggFunc::RowNumber | AggFunc::Rank | AggFunc::DenseRank | AggFunc::Ntile => {
                    ExprType::Int
                }
                AggFunc::PercentRank | AggFunc::CumeDist => ExprType::Double,
                AggFunc::Lag
                | AggFunc::Lead
                | AggFunc::FirstValue
                | AggFunc::LastValue
                | AggFunc::NthValue => at,
                AggFunc::Grouping => ExprType::Int,
            }
        }
        Expr::Arith(op, a, b, _) => func::types::arith_type(
            *op,
            &expr_type(a, scope, aggs, agg_base),
            &expr_type(b, scope, aggs, agg_base),
        ),
        Expr::Neg(a) => expr_type(a, scope, aggs, agg_base),
        Expr::Cmp(..)
        | Expr::And(..)
        | Expr::Or(..)
        | Expr::Xor(..)
        | Expr::Not(_)
        | Expr::IsNull(..)
        | Expr::IsBool(..)
        | Expr::InList(..)
        | Expr::Between(..)
        | Expr::Like(..) => ExprType::Int,
        Expr::Bit(..) | Expr::BitNot(_) => ExprType::UInt,
        Expr::Case(_, whens, els, _) => {
            let mut t = ExprType::Null;
            for (_, r) in whens {
                t = func::types::merge(&t, &expr_type(r, scope, aggs, agg_base));
            }
            if let Some(e) = els {
                t = func::types::merge(&t, &expr_type(e, scope, aggs, agg_base));
            }
            t
        }
        Expr::Cast(_, target) => func::types::cast_type(target),
        Expr::Func(name, _) if name.stored_routine().is_some() => name
            .stored_routine()
            .and_then(|r| r.returns.as_ref())
            .map_or(
                ExprType::Str { max_chars: 255 },
                func::types::type_of_column,
            ),
        Expr::Func(name, args) => {
            let ts: Vec<ExprType> = args
                .iter()
                .map(|a| expr_type(a, scope, aggs, agg_base))
                .collect();
            func::types::return_type(name, &ts)
        }
        Expr::DateAdd(d, _, unit, _) => match expr_type(d, scope, aggs, agg_base) {
            ExprType::Date if !unit.has_time() => ExprType::Date,
            ExprType::DateTime { fsp } => ExprType::DateTime { fsp },
            ExprType::Date => ExprType::DateTime { fsp: 0 },
            _ => ExprType::Str { max_chars: 29 },
        },
        Expr::Sleep(_) => ExprType::Int,
        Expr::Collate(a, _) => expr_type(a, scope, aggs, agg_base),
        Expr::SetLastInsertId(_) => ExprType::UInt,
    }
}

#[cfg(test)]
mod tests {
    use crate::session::session::test_support::{err, ok, rows, session};

    /// An unknown function or a wrong argument count fails at bind time, also when no row
    /// reaches the call; the functions the binder or the executor handle by name still bind.
    #[test]
    fn functions_resolve_before_rows_are_read() {
        let mut s = session();
        ok(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, x INT)");
        ok(&mut s, "INSERT INTO t VALUES (1, 10)");
        assert_eq!(
            err(
                &mut s,
                "SELECT COALESCE(STDDEV_POPX(x), 35) FROM t WHERE id > 100"
            ),
            1305
        );
        assert_eq!(err(&mut s, "SELECT LEFT(x) FROM t WHERE id > 100"), 1582);
        assert_eq!(
            err(&mut s, "SELECT x FROM t WHERE id > 100 AND nope(x)"),
            1305
        );
        assert!(rows(
            &mut s,
            "SELECT COALESCE(LENGTH(x), 35) FROM t WHERE id > 100"
        )
        .is_empty());
        for f in [
            "GET_LOCK('l', 0)",
            "RELEASE_LOCK('l')",
            "BENCHMARK(1, 1)",
            "SLEEP(0)",
            "NOW()",
            "JSON_ARRAY(1)",
            "DATE_FORMAT('2020-01-01', '%Y')",
            "DATABASE()",
            "IF(1, 2, 3)",
        ] {
            assert_eq!(rows(&mut s, &format!("SELECT {f} FROM t")).len(), 1, "{f}");
        }
    }
}

/// `DATE'…'`, `TIME'…'` and `TIMESTAMP'…'` must hold a valid value of their type: MySQL
/// refuses the statement (1525) rather than reading the literal as NULL.
fn typed_literal_check(target: &CastTarget, s: &str) -> Result<()> {
    let mut w = Vec::new();
    let v = Value::Str(s.to_string());
    let (ok, what) = match target {
        CastTarget::Date => (func::convert::to_date(&v, &mut w).is_some(), "DATE"),
        CastTarget::Time(_) => (func::convert::to_time(&v, &mut w).is_some(), "TIME"),
        _ => (
            func::convert::to_datetime(&v, &mut w).is_some(),
            "TIMESTAMP",
        ),
    };
    if ok && w.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        codes::ER_WRONG_VALUE,
        format!("Incorrect {what} value: '{s}'"),
    ))
}
