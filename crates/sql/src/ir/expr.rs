//! Bound expressions ([`Expr`]) whose column references are row offsets, and their evaluation
//! with MySQL semantics ([`Expr::eval`]; the value rules themselves live in the `func` crate).

use std::cmp::Ordering;
use std::sync::atomic::{AtomicBool, Ordering as AtOrd};
use std::sync::Arc;

use common::{codes, Collation, Error, Result, Value, Warning};
use func::arith::{ArithCtx, ArithOp};
use func::convert::CastTarget;
use sqlparser::ast::BinaryOperator;

use crate::ir::query::SubQuery;

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `<>` / `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<=>`
    NullSafeEq,
}

impl CmpOp {
    fn test(self, o: Ordering) -> bool {
        match self {
            CmpOp::Eq | CmpOp::NullSafeEq => o == Ordering::Equal,
            CmpOp::Ne => o != Ordering::Equal,
            CmpOp::Lt => o == Ordering::Less,
            CmpOp::Le => o != Ordering::Greater,
            CmpOp::Gt => o == Ordering::Greater,
            CmpOp::Ge => o != Ordering::Less,
        }
    }

    /// The operator with its operands swapped (`a < b` ⇔ `b > a`).
    pub fn flip(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            o => o,
        }
    }
}

/// Aggregate functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggFunc {
    /// COUNT(expr) / COUNT(*)
    Count,
    /// SUM
    Sum,
    /// AVG
    Avg,
    /// MIN
    Min,
    /// MAX
    Max,
    /// BIT_AND / BIT_OR / BIT_XOR
    BitAnd,
    /// BIT_OR
    BitOr,
    /// BIT_XOR
    BitXor,
    /// GROUP_CONCAT
    GroupConcat,
    /// STD / STDDEV / STDDEV_POP: population standard deviation
    StdPop,
    /// STDDEV_SAMP: sample standard deviation
    StdSamp,
    /// VARIANCE / VAR_POP: population variance
    VarPop,
    /// VAR_SAMP: sample variance
    VarSamp,
    /// ROW_NUMBER() (window only)
    RowNumber,
    /// RANK()
    Rank,
    /// DENSE_RANK()
    DenseRank,
    /// PERCENT_RANK()
    PercentRank,
    /// CUME_DIST()
    CumeDist,
    /// NTILE(n)
    Ntile,
    /// LAG(expr [, offset [, default]])
    Lag,
    /// LEAD(expr [, offset [, default]])
    Lead,
    /// FIRST_VALUE(expr)
    FirstValue,
    /// LAST_VALUE(expr)
    LastValue,
    /// NTH_VALUE(expr, n)
    NthValue,
    /// GROUPING(expr, …) of a WITH ROLLUP query: a bit per argument, 1 where the row is a
    /// super-aggregate over that GROUP BY expression. Its `arg` is a [`GROUPING_ARGS`] call
    /// holding the arguments, turned into their GROUP BY positions once GROUP BY is bound.
    Grouping,
}

/// Function name packing the arguments of GROUPING() (see [`AggFunc::Grouping`]).
pub const GROUPING_ARGS: &str = "\u{0}GROUPING";

impl AggFunc {
    /// The aggregate function named `name` (upper case), if it is one.
    pub fn aggregate(name: &str) -> Option<AggFunc> {
        Some(match name {
            "COUNT" => AggFunc::Count,
            "SUM" => AggFunc::Sum,
            "AVG" => AggFunc::Avg,
            "MIN" => AggFunc::Min,
            "MAX" => AggFunc::Max,
            "BIT_AND" => AggFunc::BitAnd,
            "BIT_OR" => AggFunc::BitOr,
            "BIT_XOR" => AggFunc::BitXor,
            "GROUP_CONCAT" => AggFunc::GroupConcat,
            "STD" | "STDDEV" | "STDDEV_POP" => AggFunc::StdPop,
            "STDDEV_SAMP" => AggFunc::StdSamp,
            "VARIANCE" | "VAR_POP" => AggFunc::VarPop,
            "VAR_SAMP" => AggFunc::VarSamp,
            _ => return None,
        })
    }
}

/// Bounds of a window frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameBound {
    /// UNBOUNDED PRECEDING
    UnboundedPreceding,
    /// n PRECEDING
    Preceding(u64),
    /// CURRENT ROW
    CurrentRow,
    /// n FOLLOWING
    Following(u64),
    /// UNBOUNDED FOLLOWING
    UnboundedFollowing,
    /// `value PRECEDING` of a RANGE frame (the value is in [`WindowDef::range_offsets`])
    RangePreceding,
    /// `value FOLLOWING` of a RANGE frame
    RangeFollowing,
}

impl FrameBound {
    /// Position in the order of kinds of bound (a frame may not start at a later kind than
    /// it ends at).
    pub(crate) fn rank(self) -> u8 {
        match self {
            FrameBound::UnboundedPreceding => 0,
            FrameBound::Preceding(_) | FrameBound::RangePreceding => 1,
            FrameBound::CurrentRow => 2,
            FrameBound::Following(_) | FrameBound::RangeFollowing => 3,
            FrameBound::UnboundedFollowing => 4,
        }
    }
}

/// The offset of a RANGE frame bound: a number, or `INTERVAL value unit` for a temporal
/// ORDER BY key. Constant for the statement.
#[derive(Debug, Clone)]
pub struct RangeOffset {
    /// The value.
    pub value: Expr,
    /// The INTERVAL unit (temporal keys).
    pub unit: Option<func::arith::IntervalUnit>,
}

/// `OVER (PARTITION BY .. ORDER BY .. frame)` of a window function call.
#[derive(Debug, Clone)]
pub struct WindowDef {
    /// PARTITION BY.
    pub partition: Vec<Expr>,
    /// ORDER BY (expression, descending).
    pub order: Vec<(Expr, bool)>,
    /// Frame: (ROWS, start, end); None = the default frame.
    pub frame: Option<(bool, FrameBound, FrameBound)>,
    /// Offsets of the start and end bounds of a RANGE frame (`RangePreceding` /
    /// `RangeFollowing`).
    pub range_offsets: [Option<RangeOffset>; 2],
    /// Further arguments (LAG/LEAD offset and default, NTILE / NTH_VALUE n).
    pub extra: Vec<Expr>,
}

/// One aggregate call found in a query.
#[derive(Debug, Clone)]
pub struct AggCall {
    /// Which function.
    pub func: AggFunc,
    /// Argument (None for COUNT(*)).
    pub arg: Option<Expr>,
    /// DISTINCT.
    pub distinct: bool,
    /// GROUP_CONCAT separator.
    pub separator: String,
    /// Collation for MIN/MAX on strings.
    pub coll: Collation,
    /// Set for a window function call: computed per row over its window, not per group.
    pub window: Option<Box<WindowDef>>,
    /// GROUP_CONCAT(... ORDER BY ...): sort keys (expression, descending).
    pub order: Vec<(Expr, bool)>,
}

/// Class of values whose equality under `compare` is equality of `hash_key`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyClass {
    Number,
    Str,
}

pub(crate) fn key_class(v: &Value) -> Option<KeyClass> {
    match v {
        Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => Some(KeyClass::Number),
        Value::Str(_) => Some(KeyClass::Str),
        _ => None,
    }
}

/// Hash set over a long IN list of constants of one class (built on first use).
#[derive(Debug)]
pub(crate) struct InSet {
    class: KeyClass,
    coll: Collation,
    keys: std::collections::HashSet<Vec<u8>>,
    has_null: bool,
}

/// The items of an IN list. Long lists of constants of one kind (numbers, or strings) get a
/// hash set on first evaluation, so `x IN (100k values)` costs O(1) per row instead of O(n).
#[derive(Debug, Clone, Default)]
pub struct InItems {
    items: Vec<Expr>,
    set: std::sync::OnceLock<Option<Arc<InSet>>>,
}

/// IN lists at least this long are hashed.
pub(crate) const IN_SET_MIN: usize = 16;

impl From<Vec<Expr>> for InItems {
    fn from(items: Vec<Expr>) -> Self {
        InItems {
            items,
            set: std::sync::OnceLock::new(),
        }
    }
}

impl std::ops::Deref for InItems {
    type Target = Vec<Expr>;
    fn deref(&self) -> &Vec<Expr> {
        &self.items
    }
}

impl<'a> IntoIterator for &'a InItems {
    type Item = &'a Expr;
    type IntoIter = std::slice::Iter<'a, Expr>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl InItems {
    /// Membership of `v` (not NULL) via the hash set: `Some(Some(found))`, `Some(None)` for
    /// "not found but the list holds a NULL"; `None` when the set doesn't apply (short list,
    /// non-constant items, or `v` of another class than the items).
    fn lookup(&self, v: &Value, coll: Collation) -> Option<Option<bool>> {
        if self.items.len() < IN_SET_MIN {
            return None;
        }
        let set = self
            .set
            .get_or_init(|| {
                let mut class = None;
                let mut keys = std::collections::HashSet::with_capacity(self.items.len());
                let mut has_null = false;
                for e in &self.items {
                    let Expr::Lit(x) = e else { return None };
                    if x.is_null() {
                        has_null = true;
                        continue;
                    }
                    let c = key_class(x)?;
                    if *class.get_or_insert(c) != c {
                        return None;
                    }
                    let mut k = Vec::new();
                    func::compare::hash_key(x, coll, &mut k);
                    keys.insert(k);
                }
                Some(Arc::new(InSet {
                    class: class?,
                    coll,
                    keys,
                    has_null,
                }))
            })
            .as_ref()?;
        if key_class(v) != Some(set.class) || set.coll != coll {
            return None;
        }
        let mut k = Vec::new();
        func::compare::hash_key(v, coll, &mut k);
        Some(if set.keys.contains(&k) {
            Some(true)
        } else if set.has_null {
            None
        } else {
            Some(false)
        })
    }
}

/// A built-in function resolved when its call is bound: the name (upper case) and the
/// evaluator it belongs to, so evaluating a row dispatches on an enum instead of matching the
/// name against each family's list first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Builtin {
    name: String,
    how: How,
}

/// Where a [`Builtin`] is evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
enum How {
    /// BENCHMARK(n, expr): evaluates its argument expression n times.
    Benchmark,
    /// The value COUNT(DISTINCT a, b, …) counts: NULL when an argument is NULL, else one
    /// binary key of all of them, each compared under its collation.
    DistinctKey(Vec<Collation>),
    /// GET_LOCK and the other user-level lock functions (the session's locks).
    UserLock,
    /// A function of the `func` crate.
    Func(func::scalar::Family),
    /// A stored function: evaluated by the executor, per row, like a correlated subquery
    /// (`crate::exec::query::resolve`).
    Stored(Arc<crate::ir::routine::Routine>),
}

impl Builtin {
    /// The call of built-in `name` (upper case).
    pub fn new(name: impl Into<String>) -> Builtin {
        let name = name.into();
        let how = if name == "BENCHMARK" {
            How::Benchmark
        } else if crate::runtime::userlock::is_lock_function(&name) {
            How::UserLock
        } else {
            How::Func(func::scalar::family(&name))
        };
        Builtin { name, how }
    }

    /// The key of COUNT(DISTINCT …) over several arguments, which have collations `colls`
    /// (an internal call: no SQL name reaches it).
    pub fn distinct_key(colls: Vec<Collation>) -> Builtin {
        Builtin {
            name: "COUNT_DISTINCT_KEY".into(),
            how: How::DistinctKey(colls),
        }
    }

    /// A call of stored function `r` (its name is the qualified name).
    pub fn stored(r: Arc<crate::ir::routine::Routine>) -> Builtin {
        Builtin {
            name: r.qualified(),
            how: How::Stored(r),
        }
    }

    /// The stored function this calls, if it calls one.
    pub fn stored_routine(&self) -> Option<&Arc<crate::ir::routine::Routine>> {
        match &self.how {
            How::Stored(r) => Some(r),
            _ => None,
        }
    }

    /// The function's name (upper case).
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

impl std::ops::Deref for Builtin {
    type Target = str;
    fn deref(&self) -> &str {
        &self.name
    }
}

impl PartialEq<str> for Builtin {
    fn eq(&self, other: &str) -> bool {
        self.name == other
    }
}

impl PartialEq<&str> for Builtin {
    fn eq(&self, other: &&str) -> bool {
        self.name == *other
    }
}

impl From<&str> for Builtin {
    fn from(name: &str) -> Builtin {
        Builtin::new(name)
    }
}

impl From<String> for Builtin {
    fn from(name: String) -> Builtin {
        Builtin::new(name)
    }
}

impl std::fmt::Display for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// A bound expression.
#[derive(Debug, Clone)]
pub enum Expr {
    /// A constant.
    Lit(Value),
    /// A column of the input row.
    Col(usize),
    /// A statement parameter (0-based).
    Param(usize),
    /// Result of aggregate `i` (evaluated against the grouped row).
    Agg(usize),
    /// Arithmetic.
    Arith(ArithOp, Box<Expr>, Box<Expr>, String),
    /// Unary minus.
    Neg(Box<Expr>),
    /// Comparison with the collation to use for strings.
    Cmp(CmpOp, Box<Expr>, Box<Expr>, Collation),
    /// AND
    And(Box<Expr>, Box<Expr>),
    /// OR
    Or(Box<Expr>, Box<Expr>),
    /// XOR
    Xor(Box<Expr>, Box<Expr>),
    /// NOT
    Not(Box<Expr>),
    /// Bit operations: & | ^ << >> and ~ (as BitNot).
    Bit(BinaryOperator, Box<Expr>, Box<Expr>),
    /// `~x`
    BitNot(Box<Expr>),
    /// IS [NOT] NULL
    IsNull(Box<Expr>, bool),
    /// IS [NOT] TRUE/FALSE: (expr, want_true, negated)
    IsBool(Box<Expr>, bool, bool),
    /// [NOT] IN (list)
    InList(Box<Expr>, InItems, bool, Collation),
    /// [NOT] BETWEEN
    Between(Box<Expr>, Box<Expr>, Box<Expr>, bool, Collation),
    /// [NOT] LIKE pattern [ESCAPE c]
    Like(Box<Expr>, Box<Expr>, char, bool, Collation),
    /// CASE [operand] WHEN .. THEN .. ELSE .. END
    Case(
        Option<Box<Expr>>,
        Vec<(Expr, Expr)>,
        Option<Box<Expr>>,
        Collation,
    ),
    /// CAST / CONVERT
    Cast(Box<Expr>, CastTarget),
    /// A built-in scalar function, resolved when bound.
    Func(Builtin, Vec<Expr>),
    /// date ± INTERVAL n unit
    DateAdd(Box<Expr>, Box<Expr>, func::arith::IntervalUnit, bool),
    /// SLEEP(n): interruptible by KILL.
    Sleep(Box<Expr>),
    /// LAST_INSERT_ID(expr): sets the session value.
    SetLastInsertId(Box<Expr>),
    /// A column of an enclosing query block: (levels up, offset in that block's row). Replaced
    /// by a literal before a correlated subquery runs for one outer row.
    Outer(usize, usize),
    /// `expr COLLATE name`: the value unchanged, compared under an explicit collation.
    Collate(Box<Expr>, Collation),
    /// A scalar subquery `(SELECT ...)`.
    Subquery(Arc<SubQuery>),
    /// `EXISTS (SELECT ...)`.
    Exists(Arc<SubQuery>),
    /// `expr [NOT] IN (SELECT ...)`.
    InSubquery(Box<Expr>, Arc<SubQuery>, bool, Collation),
    /// `expr op ANY|SOME|ALL (SELECT ...)`: (op, expr, subquery, ALL, collation).
    Quantified(CmpOp, Box<Expr>, Arc<SubQuery>, bool, Collation),
    /// Column `i` of a row subquery `(SELECT a, b …)` compared with a row constructor: the
    /// subquery runs once (per outer row if correlated) for all its columns; no row gives
    /// NULLs, more than one row is error 1242.
    RowSub(Arc<SubQuery>, usize),
}

/// What evaluation needs from the statement and session.
pub struct EvalCtx<'a> {
    /// Parameters of a prepared statement.
    pub params: &'a [Value],
    /// Warnings collected for SHOW WARNINGS.
    pub warnings: &'a mut Vec<Warning>,
    /// Context for built-in functions (NOW(), current database...).
    pub fnctx: &'a mut func::scalar::FnCtx,
    /// Set by KILL QUERY.
    pub killed: &'a AtomicBool,
    /// div_precision_increment.
    pub div_precision: u8,
    /// ERROR_FOR_DIVISION_BY_ZERO + strict: division by zero in writes is an error.
    pub strict_div_zero: bool,
    /// Value set by LAST_INSERT_ID(expr), if any.
    pub set_last_insert_id: Option<u64>,
    /// sql_mode NO_ZERO_DATE (reject or warn on '0000-00-00' stored into a date column).
    pub no_zero_date: bool,
    /// sql_mode NO_ZERO_IN_DATE (reject or warn on a zero month or day).
    pub no_zero_in_date: bool,
    /// Strict-mode UPDATE/DELETE: a non-numeric string compared with a number is error 1292
    /// rather than a warning (as MySQL).
    pub strict_cmp: bool,
}

/// Compares with MySQL's warnings for string-to-number conversion; under
/// [`EvalCtx::strict_cmp`] such a warning is error 1292.
pub(crate) fn cmp_checked(
    a: &Value,
    b: &Value,
    coll: Collation,
    ctx: &mut EvalCtx<'_>,
) -> Result<Option<Ordering>> {
    let n = ctx.warnings.len();
    let r = func::compare::compare_warn(a, b, coll, ctx.warnings);
    if ctx.strict_cmp && ctx.warnings.len() > n {
        let w = ctx.warnings.remove(n);
        ctx.warnings.truncate(n);
        return Err(Error::new(codes::ER_TRUNCATED_WRONG_VALUE, w.msg));
    }
    Ok(r)
}

impl Expr {
    /// True if the expression doesn't depend on the row (constants, parameters).
    pub fn is_const(&self) -> bool {
        match self {
            Expr::Lit(_) | Expr::Param(_) => true,
            Expr::Col(_)
            | Expr::Agg(_)
            | Expr::Sleep(_)
            | Expr::SetLastInsertId(_)
            | Expr::Outer(..)
            | Expr::Subquery(_)
            | Expr::Exists(_)
            | Expr::InSubquery(..)
            | Expr::RowSub(..)
            | Expr::Quantified(..) => false,
            Expr::Func(name, _) if name.stored_routine().is_some() => false,
            Expr::Func(name, args) => {
                !matches!(
                    name.as_str(),
                    "RAND"
                        | "UUID"
                        | "UUID_SHORT"
                        | "SYSDATE"
                        | "RANDOM_BYTES"
                        | "BENCHMARK"
                        | "GET_LOCK"
                        | "RELEASE_LOCK"
                        | "RELEASE_ALL_LOCKS"
                        | "IS_FREE_LOCK"
                        | "IS_USED_LOCK"
                ) && args.iter().all(|a| a.is_const())
            }
            Expr::Arith(_, a, b, _)
            | Expr::Cmp(_, a, b, _)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Xor(a, b)
            | Expr::Bit(_, a, b) => a.is_const() && b.is_const(),
            Expr::Neg(a)
            | Expr::Not(a)
            | Expr::BitNot(a)
            | Expr::IsNull(a, _)
            | Expr::IsBool(a, _, _)
            | Expr::Cast(a, _)
            | Expr::Collate(a, _) => a.is_const(),
            Expr::InList(a, l, _, _) => a.is_const() && l.iter().all(|e| e.is_const()),
            Expr::Between(a, b, c, _, _) => a.is_const() && b.is_const() && c.is_const(),
            Expr::Like(a, b, _, _, _) => a.is_const() && b.is_const(),
            Expr::Case(o, w, e, _) => {
                o.as_ref().is_none_or(|o| o.is_const())
                    && w.iter().all(|(a, b)| a.is_const() && b.is_const())
                    && e.as_ref().is_none_or(|e| e.is_const())
            }
            Expr::DateAdd(a, b, _, _) => a.is_const() && b.is_const(),
        }
    }

    /// True if an aggregate appears anywhere inside.
    pub fn has_agg(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if matches!(e, Expr::Agg(_)) {
                found = true
            }
        });
        found
    }

    /// Visits every node.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Lit(_)
            | Expr::Col(_)
            | Expr::Param(_)
            | Expr::Agg(_)
            | Expr::Outer(..)
            | Expr::Subquery(_)
            | Expr::RowSub(..)
            | Expr::Exists(_) => {}
            Expr::InSubquery(a, ..) | Expr::Quantified(_, a, ..) => a.walk(f),
            Expr::Arith(_, a, b, _)
            | Expr::Cmp(_, a, b, _)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Xor(a, b)
            | Expr::Bit(_, a, b)
            | Expr::Like(a, b, _, _, _)
            | Expr::DateAdd(a, b, _, _) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Neg(a)
            | Expr::Not(a)
            | Expr::BitNot(a)
            | Expr::IsNull(a, _)
            | Expr::IsBool(a, _, _)
            | Expr::Cast(a, _)
            | Expr::Sleep(a)
            | Expr::SetLastInsertId(a)
            | Expr::Collate(a, _) => a.walk(f),
            Expr::InList(a, l, _, _) => {
                a.walk(f);
                l.iter().for_each(|e| e.walk(f));
            }
            Expr::Between(a, b, c, _, _) => {
                a.walk(f);
                b.walk(f);
                c.walk(f);
            }
            Expr::Case(o, w, e, _) => {
                if let Some(o) = o {
                    o.walk(f)
                }
                for (a, b) in w {
                    a.walk(f);
                    b.walk(f);
                }
                if let Some(e) = e {
                    e.walk(f)
                }
            }
            Expr::Func(_, args) => args.iter().for_each(|e| e.walk(f)),
        }
    }

    /// A copy where every node for which `f` returns `Some` is replaced (pre-order: the
    /// replacement is not visited again). Subquery bodies are not entered.
    pub fn rewrite(&self, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Expr {
        if let Some(e) = f(self) {
            return e;
        }
        fn b(e: &Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Box<Expr> {
            Box::new(e.rewrite(f))
        }
        fn v(l: &[Expr], f: &mut dyn FnMut(&Expr) -> Option<Expr>) -> Vec<Expr> {
            l.iter().map(|x| x.rewrite(f)).collect()
        }
        match self {
            Expr::Lit(_)
            | Expr::Col(_)
            | Expr::Param(_)
            | Expr::Agg(_)
            | Expr::Outer(..)
            | Expr::Subquery(_)
            | Expr::RowSub(..)
            | Expr::Exists(_) => self.clone(),
            Expr::Arith(op, x, y, t) => Expr::Arith(*op, b(x, f), b(y, f), t.clone()),
            Expr::Neg(x) => Expr::Neg(b(x, f)),
            Expr::Cmp(op, x, y, c) => Expr::Cmp(*op, b(x, f), b(y, f), *c),
            Expr::And(x, y) => Expr::And(b(x, f), b(y, f)),
            Expr::Or(x, y) => Expr::Or(b(x, f), b(y, f)),
            Expr::Xor(x, y) => Expr::Xor(b(x, f), b(y, f)),
            Expr::Not(x) => Expr::Not(b(x, f)),
            Expr::Bit(op, x, y) => Expr::Bit(op.clone(), b(x, f), b(y, f)),
            Expr::BitNot(x) => Expr::BitNot(b(x, f)),
            Expr::IsNull(x, n) => Expr::IsNull(b(x, f), *n),
            Expr::IsBool(x, w, n) => Expr::IsBool(b(x, f), *w, *n),
            Expr::InList(x, l, n, c) => Expr::InList(b(x, f), v(l, f).into(), *n, *c),
            Expr::Between(x, y, z, n, co) => Expr::Between(b(x, f), b(y, f), b(z, f), *n, *co),
            Expr::Like(x, y, e, n, c) => Expr::Like(b(x, f), b(y, f), *e, *n, *c),
            Expr::Case(o, w, e, c) => {
                let o = o.as_ref().map(|x| b(x, f));
                let w = w
                    .iter()
                    .map(|(x, y)| (x.rewrite(f), y.rewrite(f)))
                    .collect();
                let e = e.as_ref().map(|x| b(x, f));
                Expr::Case(o, w, e, *c)
            }
            Expr::Cast(x, t) => Expr::Cast(b(x, f), *t),
            Expr::Func(n, args) => Expr::Func(n.clone(), v(args, f)),
            Expr::DateAdd(x, y, u, n) => Expr::DateAdd(b(x, f), b(y, f), *u, *n),
            Expr::Sleep(x) => Expr::Sleep(b(x, f)),
            Expr::Collate(x, c) => Expr::Collate(b(x, f), *c),
            Expr::SetLastInsertId(x) => Expr::SetLastInsertId(b(x, f)),
            Expr::InSubquery(x, q, n, c) => Expr::InSubquery(b(x, f), q.clone(), *n, *c),
            Expr::Quantified(op, x, q, all, c) => {
                Expr::Quantified(*op, b(x, f), q.clone(), *all, *c)
            }
        }
    }

    /// A copy with every column reference `Col(i)` replaced by `f(i)` (aggregate references
    /// are kept). Used to specialise join conditions for one outer row.
    pub fn map_cols(&self, f: &dyn Fn(usize) -> Expr) -> Expr {
        self.rewrite(&mut |e| match e {
            Expr::Col(i) => Some(f(*i)),
            _ => None,
        })
    }

    /// True if a subquery appears anywhere inside (outside of other subqueries' bodies).
    pub fn has_subquery(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if matches!(
                e,
                Expr::Subquery(_)
                    | Expr::Exists(_)
                    | Expr::InSubquery(..)
                    | Expr::Quantified(..)
                    | Expr::RowSub(..)
            ) || matches!(e, Expr::Func(f, _) if f.stored_routine().is_some())
            {
                found = true
            }
        });
        found
    }

    /// True if a correlated subquery appears inside.
    pub fn has_correlated(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| match e {
            Expr::Subquery(q)
            | Expr::Exists(q)
            | Expr::RowSub(q, _)
            | Expr::InSubquery(_, q, ..)
            | Expr::Quantified(_, _, q, ..)
                if q.correlated =>
            {
                found = true
            }
            // a stored function runs per row, as a correlated subquery does
            Expr::Func(f, _) if f.stored_routine().is_some() => found = true,
            _ => {}
        });
        found
    }

    /// The column offsets this expression reads.
    pub fn columns(&self) -> Vec<usize> {
        let mut v = Vec::new();
        self.walk(&mut |e| {
            if let Expr::Col(i) = e {
                v.push(*i)
            }
        });
        v
    }

    /// Evaluates against `row`.
    pub fn eval(&self, row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<Value> {
        Ok(match self {
            Expr::Lit(v) => v.clone(),
            Expr::Col(i) | Expr::Agg(i) => row
                .get(*i)
                .cloned()
                .ok_or_else(|| Error::internal(format!("column {i} out of row")))?,
            Expr::Param(i) => ctx.params.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Arith(op, a, b, text) => {
                let a = a.eval(row, ctx)?;
                let b = b.eval(row, ctx)?;
                let actx = ArithCtx {
                    div_precision_increment: ctx.div_precision,
                    expr_text: text.clone(),
                };
                let v = func::arith::binary_op(*op, &a, &b, &actx, ctx.warnings)?;
                if v.is_null()
                    && ctx.strict_div_zero
                    && matches!(op, ArithOp::Div | ArithOp::IntDiv | ArithOp::Mod)
                    && !a.is_null()
                    && !b.is_null()
                {
                    return Err(Error::new(codes::ER_DIVISION_BY_ZERO, "Division by 0"));
                }
                v
            }
            Expr::Neg(a) => func::arith::negate(&a.eval(row, ctx)?, ctx.warnings)?,
            Expr::Cmp(op, a, b, coll) => {
                let a = a.eval(row, ctx)?;
                let b = b.eval(row, ctx)?;
                if *op == CmpOp::NullSafeEq {
                    return Ok(Value::Int(func::compare::eq_null_safe(&a, &b, *coll) as i64));
                }
                match cmp_checked(&a, &b, *coll, ctx)? {
                    None => Value::Null,
                    Some(o) => Value::Int(op.test(o) as i64),
                }
            }
            Expr::And(a, b) => {
                let x = truth(&a.eval(row, ctx)?, ctx);
                if x == Some(false) {
                    return Ok(Value::Int(0));
                }
                let y = truth(&b.eval(row, ctx)?, ctx);
                match (x, y) {
                    (_, Some(false)) => Value::Int(0),
                    (Some(true), Some(true)) => Value::Int(1),
                    _ => Value::Null,
                }
            }
            Expr::Or(a, b) => {
                let x = truth(&a.eval(row, ctx)?, ctx);
                if x == Some(true) {
                    return Ok(Value::Int(1));
                }
                let y = truth(&b.eval(row, ctx)?, ctx);
                match (x, y) {
                    (_, Some(true)) => Value::Int(1),
                    (Some(false), Some(false)) => Value::Int(0),
                    _ => Value::Null,
                }
            }
            Expr::Xor(a, b) => {
                let x = truth(&a.eval(row, ctx)?, ctx);
                let y = truth(&b.eval(row, ctx)?, ctx);
                match (x, y) {
                    (Some(x), Some(y)) => Value::Int((x ^ y) as i64),
                    _ => Value::Null,
                }
            }
            Expr::Not(a) => match truth(&a.eval(row, ctx)?, ctx) {
                Some(b) => Value::Int(!b as i64),
                None => Value::Null,
            },
            Expr::Bit(op, a, b) => {
                let a = a.eval(row, ctx)?;
                let b = b.eval(row, ctx)?;
                if a.is_null() || b.is_null() {
                    return Ok(Value::Null);
                }
                let x = func::convert::to_u64(&a, ctx.warnings).unwrap_or(0);
                let y = func::convert::to_u64(&b, ctx.warnings).unwrap_or(0);
                Value::UInt(match op {
                    BinaryOperator::BitwiseAnd => x & y,
                    BinaryOperator::BitwiseOr => x | y,
                    BinaryOperator::BitwiseXor => x ^ y,
                    BinaryOperator::PGBitwiseShiftLeft => {
                        if y >= 64 {
                            0
                        } else {
                            x << y
                        }
                    }
                    BinaryOperator::PGBitwiseShiftRight => {
                        if y >= 64 {
                            0
                        } else {
                            x >> y
                        }
                    }
                    _ => return Err(Error::internal("unexpected bit operator")),
                })
            }
            Expr::BitNot(a) => match a.eval(row, ctx)? {
                Value::Null => Value::Null,
                v => Value::UInt(!func::convert::to_u64(&v, ctx.warnings).unwrap_or(0)),
            },
            Expr::IsNull(a, neg) => Value::Int((a.eval(row, ctx)?.is_null() != *neg) as i64),
            Expr::IsBool(a, want, neg) => {
                let t = truth(&a.eval(row, ctx)?, ctx);
                Value::Int(((t == Some(*want)) != *neg) as i64)
            }
            Expr::InList(a, list, neg, coll) => {
                let v = a.eval(row, ctx)?;
                if v.is_null() {
                    return Ok(Value::Null);
                }
                if let Some(found) = list.lookup(&v, *coll) {
                    return Ok(match found {
                        Some(true) => Value::Int(!*neg as i64),
                        Some(false) => Value::Int(*neg as i64),
                        None => Value::Null,
                    });
                }
                let mut saw_null = false;
                for e in list.iter() {
                    let x = e.eval(row, ctx)?;
                    match cmp_checked(&v, &x, *coll, ctx)? {
                        Some(Ordering::Equal) => return Ok(Value::Int(!*neg as i64)),
                        None => saw_null = true,
                        _ => {}
                    }
                }
                if saw_null {
                    Value::Null
                } else {
                    Value::Int(*neg as i64)
                }
            }
            Expr::Between(a, lo, hi, neg, coll) => {
                let v = a.eval(row, ctx)?;
                let lo = lo.eval(row, ctx)?;
                let hi = hi.eval(row, ctx)?;
                let ge = cmp_checked(&v, &lo, *coll, ctx)?.map(|o| o != Ordering::Less);
                let le = cmp_checked(&v, &hi, *coll, ctx)?.map(|o| o != Ordering::Greater);
                let r = match (ge, le) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                };
                match r {
                    Some(b) => Value::Int((b != *neg) as i64),
                    None => Value::Null,
                }
            }
            Expr::Like(a, p, esc, neg, coll) => {
                let a = a.eval(row, ctx)?;
                let p = p.eval(row, ctx)?;
                if a.is_null() || p.is_null() {
                    return Ok(Value::Null);
                }
                let s = func::convert::to_string_value(&a).unwrap_or_default();
                let pat = func::convert::to_string_value(&p).unwrap_or_default();
                let coll = if matches!(a, Value::Bytes(_)) || matches!(p, Value::Bytes(_)) {
                    Collation::Binary
                } else {
                    *coll
                };
                Value::Int((func::scalar::like(&s, &pat, *esc, coll) != *neg) as i64)
            }
            Expr::Case(operand, whens, els, coll) => {
                let op = match operand {
                    Some(o) => Some(o.eval(row, ctx)?),
                    None => None,
                };
                for (w, t) in whens {
                    let wv = w.eval(row, ctx)?;
                    let hit = match &op {
                        Some(o) => func::compare::compare(o, &wv, *coll) == Some(Ordering::Equal),
                        None => truth(&wv, ctx) == Some(true),
                    };
                    if hit {
                        return t.eval(row, ctx);
                    }
                }
                match els {
                    Some(e) => e.eval(row, ctx)?,
                    None => Value::Null,
                }
            }
            Expr::Cast(a, target) => {
                let v = a.eval(row, ctx)?;
                func::convert::cast(&v, *target, ctx.warnings)?
            }
            Expr::Func(f, args) => {
                use func::scalar::Family;
                if f.how == How::Benchmark {
                    return benchmark(args, row, ctx);
                }
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(a.eval(row, ctx)?);
                }
                match &f.how {
                    How::DistinctKey(colls) => distinct_key(&vals, colls),
                    How::UserLock => {
                        let conn = ctx.fnctx.connection_id;
                        crate::runtime::userlock::call(f, &vals, conn, ctx.killed, ctx.warnings)?
                    }
                    How::Func(Family::Json) => {
                        let kinds = json_arg_kinds(args);
                        let (fnctx, w) = (&mut *ctx.fnctx, &mut *ctx.warnings);
                        func::scalar::call_in(Family::Json, f, &vals, &kinds, fnctx, w)?
                    }
                    How::Func(family) => {
                        func::scalar::call_in(*family, f, &vals, &[], ctx.fnctx, ctx.warnings)?
                    }
                    How::Benchmark => unreachable!("handled above"),
                    How::Stored(_) => {
                        return Err(Error::internal(
                            "stored function evaluated before it was resolved",
                        ))
                    }
                }
            }
            Expr::DateAdd(d, n, unit, neg) => {
                let d = d.eval(row, ctx)?;
                let n = n.eval(row, ctx)?;
                func::arith::date_add(&d, &n, *unit, *neg, ctx.warnings)?
            }
            Expr::Sleep(a) => {
                let secs = func::convert::to_f64(&a.eval(row, ctx)?, ctx.warnings).unwrap_or(0.0);
                let deadline =
                    std::time::Instant::now() + std::time::Duration::from_secs_f64(secs.max(0.0));
                let _wait =
                    (secs > 0.0).then(|| common::wait::guard(common::wait::WaitType::Sleep));
                loop {
                    if ctx.killed.load(AtOrd::Relaxed) {
                        return Ok(Value::Int(1));
                    }
                    let now = std::time::Instant::now();
                    if now >= deadline {
                        break;
                    }
                    std::thread::sleep((deadline - now).min(std::time::Duration::from_millis(10)));
                }
                Value::Int(0)
            }
            Expr::SetLastInsertId(a) => {
                let v = a.eval(row, ctx)?;
                let n = func::convert::to_u64(&v, ctx.warnings).unwrap_or(0);
                ctx.set_last_insert_id = Some(n);
                Value::UInt(n)
            }
            Expr::Collate(a, _) => a.eval(row, ctx)?,
            Expr::Outer(..)
            | Expr::Subquery(_)
            | Expr::Exists(_)
            | Expr::InSubquery(..)
            | Expr::RowSub(..)
            | Expr::Quantified(..) => {
                return Err(Error::internal(
                    "subquery or outer reference evaluated before it was resolved",
                ))
            }
        })
    }

    /// Evaluates as a condition: `Some(true)` only for a true value.
    pub fn eval_bool(&self, row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<bool> {
        let v = self.eval(row, ctx)?;
        Ok(truth(&v, ctx) == Some(true))
    }
}

/// SQL truth value of `v` (None for NULL).
pub fn truth(v: &Value, ctx: &mut EvalCtx<'_>) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        v => func::convert::to_bool(v, ctx.warnings),
    }
}

/// Splits a condition into its AND-ed conjuncts.
pub fn conjuncts(e: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    fn go<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
        if let Expr::And(a, b) = e {
            go(a, out);
            go(b, out);
        } else {
            out.push(e);
        }
    }
    go(e, &mut out);
    out
}

/// COUNT(DISTINCT a, b, …)'s key of one row: NULL when a value is NULL (the row is not
/// counted), else the values' collation keys, length-prefixed, one after the other.
fn distinct_key(vals: &[Value], colls: &[Collation]) -> Value {
    let mut key = Vec::new();
    for (v, c) in vals.iter().zip(colls) {
        if v.is_null() {
            return Value::Null;
        }
        func::compare::hash_key(v, *c, &mut key);
    }
    Value::Bytes(key)
}

/// The static kinds of a JSON function's arguments: the binder marks JSON-typed and boolean
/// ones.
fn json_arg_kinds(args: &[Expr]) -> Vec<func::jsonfn::ArgKind> {
    use func::jsonfn::{ArgKind, MARK_BOOL, MARK_JSON};
    let mut kinds = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let kind = match a {
            Expr::Func(n, _) if n == MARK_JSON => ArgKind::Json,
            Expr::Func(n, _) if n == MARK_BOOL => ArgKind::Bool,
            _ => continue,
        };
        kinds.resize(i, ArgKind::Plain);
        kinds.push(kind);
    }
    kinds
}

/// BENCHMARK(count, expr): evaluates `expr` `count` times and returns 0.
pub(crate) fn benchmark(args: &[Expr], row: &[Value], ctx: &mut EvalCtx<'_>) -> Result<Value> {
    let count = args[0].eval(row, ctx)?;
    let n = func::convert::to_i64(&count, ctx.warnings);
    let n = match (n, &count) {
        (_, Value::UInt(u)) => *u as i64,
        (Some(n), _) if n >= 0 => n,
        _ => {
            ctx.warnings.push(Warning::warn(
                func::datefn::ER_WRONG_VALUE_FOR_TYPE,
                format!(
                    "Incorrect count value: '{}' for function benchmark",
                    func::convert::to_string_value(&count).unwrap_or_else(|| "NULL".into())
                ),
            ));
            return Ok(Value::Null);
        }
    };
    for _ in 0..n {
        if ctx.killed.load(AtOrd::Relaxed) {
            // as MySQL: the statement ends with the kill (1317) or timeout (3024) error
            return Err(Error::interrupted());
        }
        args[1].eval(row, ctx)?;
    }
    Ok(Value::Int(0))
}
