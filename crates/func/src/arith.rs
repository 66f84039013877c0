//! Arithmetic operators with MySQL's result types and overflow rules, unary minus, and
//! `date ± INTERVAL`.
//!
//! Result types (manual, "Arithmetic Operators"): integer op integer is BIGINT (UNSIGNED if
//! either operand is unsigned; overflow is error 1690); `/` of exact operands is DECIMAL with
//! the dividend's scale plus `div_precision_increment`; DECIMAL add/sub keep the larger scale and
//! multiplication adds scales; a DOUBLE or string operand makes the result DOUBLE. Division or
//! modulo by zero yields NULL with warning 1365.

use common::codes;
use common::time::{DateTime, Time};
use common::Decimal;
use common::{Error, Result, Value, Warning};

use crate::convert;
use crate::temporal;

/// A binary arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `DIV`
    IntDiv,
    /// `%` / `MOD`
    Mod,
}

impl ArithOp {
    /// The operator as MySQL prints it in expression text.
    pub fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::IntDiv => "DIV",
            ArithOp::Mod => "%",
        }
    }
}

/// Evaluation context for arithmetic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArithCtx {
    /// `@@div_precision_increment` (default 4).
    pub div_precision_increment: u8,
    /// The expression as MySQL prints it in 1690 errors, e.g. `(a + b)`.
    pub expr_text: String,
}

impl Default for ArithCtx {
    fn default() -> Self {
        ArithCtx {
            div_precision_increment: 4,
            expr_text: String::new(),
        }
    }
}

/// An operand after MySQL's numeric coercion.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Num {
    Int(i64),
    UInt(u64),
    Dec(Decimal),
    Dbl(f64),
}

/// Coerces a value to a numeric operand; `None` for NULL.
pub(crate) fn to_num(v: &Value, w: &mut Vec<Warning>) -> Option<Num> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => Num::Int(*i),
        Value::UInt(u) => Num::UInt(*u),
        Value::Decimal(d) => Num::Dec(d.clone()),
        Value::Float(f) => Num::Dbl(*f as f64),
        Value::Double(f) => Num::Dbl(*f),
        Value::Str(_) | Value::Bytes(_) => Num::Dbl(convert::to_f64(v, w)?),
        Value::Date(_) => Num::Int(convert::to_i64(v, w)?),
        Value::DateTime(_, fsp) | Value::Time(_, fsp) => {
            if *fsp == 0 {
                Num::Int(convert::to_i64(v, w)?)
            } else {
                Num::Dec(convert::temporal_decimal(v)?)
            }
        }
    })
}

fn out_of_range(kind: &str, ctx: &ArithCtx) -> Error {
    Error::new(
        codes::ER_DATA_OUT_OF_RANGE,
        format!("{kind} value is out of range in '{}'", ctx.expr_text),
    )
}

/// Warning 1365 `Division by 0`.
pub fn div_by_zero_warning() -> Warning {
    Warning::warn(codes::ER_DIVISION_BY_ZERO, "Division by 0")
}

fn num_to_dec(n: Num) -> Decimal {
    match n {
        Num::Int(i) => Decimal::from(i),
        Num::UInt(u) => Decimal::from(u),
        Num::Dec(d) => d,
        Num::Dbl(f) => convert::f64_to_decimal(f).unwrap_or_default(),
    }
}

fn num_to_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::UInt(u) => u as f64,
        Num::Dec(d) => d.to_f64(),
        Num::Dbl(f) => f,
    }
}

fn int_result(v: i128, unsigned: bool, ctx: &ArithCtx) -> Result<Value> {
    if unsigned {
        u64::try_from(v)
            .map(Value::UInt)
            .map_err(|_| out_of_range("BIGINT UNSIGNED", ctx))
    } else {
        i64::try_from(v)
            .map(Value::Int)
            .map_err(|_| out_of_range("BIGINT", ctx))
    }
}

/// Evaluates `a op b`.
pub fn binary_op(
    op: ArithOp,
    a: &Value,
    b: &Value,
    ctx: &ArithCtx,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    let (Some(x), Some(y)) = (to_num(a, w), to_num(b, w)) else {
        return Ok(Value::Null);
    };
    num_op(op, x, y, ctx, w)
}

pub(crate) fn num_op(
    op: ArithOp,
    x: Num,
    y: Num,
    ctx: &ArithCtx,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    use Num::*;
    if matches!(x, Dbl(_)) || matches!(y, Dbl(_)) {
        let (p, q) = (num_to_f64(x), num_to_f64(y));
        let r = match op {
            ArithOp::Add => p + q,
            ArithOp::Sub => p - q,
            ArithOp::Mul => p * q,
            ArithOp::Div => {
                if q == 0.0 {
                    w.push(div_by_zero_warning());
                    return Ok(Value::Null);
                }
                p / q
            }
            ArithOp::IntDiv => {
                if q == 0.0 {
                    w.push(div_by_zero_warning());
                    return Ok(Value::Null);
                }
                let t = (p / q).trunc();
                if !t.is_finite() || t.abs() >= 9.223_372_036_854_776e18 {
                    return Err(out_of_range("BIGINT", ctx));
                }
                return Ok(Value::Int(t as i64));
            }
            ArithOp::Mod => {
                if q == 0.0 {
                    w.push(div_by_zero_warning());
                    return Ok(Value::Null);
                }
                p % q
            }
        };
        if !r.is_finite() {
            return Err(out_of_range("DOUBLE", ctx));
        }
        return Ok(Value::Double(r));
    }
    if matches!(x, Dec(_)) || matches!(y, Dec(_)) || op == ArithOp::Div {
        let unsigned = matches!(x, UInt(_)) || matches!(y, UInt(_));
        let (p, q) = (num_to_dec(x), num_to_dec(y));
        let overflow = || out_of_range("DECIMAL", ctx);
        if matches!(op, ArithOp::Div | ArithOp::IntDiv | ArithOp::Mod) && q.is_zero() {
            w.push(div_by_zero_warning());
            return Ok(Value::Null);
        }
        return Ok(match op {
            ArithOp::Add => Value::Decimal(p.checked_add(&q).ok_or_else(overflow)?),
            ArithOp::Sub => Value::Decimal(p.checked_sub(&q).ok_or_else(overflow)?),
            ArithOp::Mul => Value::Decimal(p.checked_mul(&q).ok_or_else(overflow)?),
            ArithOp::Div => Value::Decimal(
                p.checked_div(&q, ctx.div_precision_increment as u32)
                    .ok_or_else(overflow)?,
            ),
            ArithOp::IntDiv => {
                let r = p.int_div(&q).ok_or_else(overflow)?;
                let i = r.to_i128().ok_or_else(|| out_of_range("BIGINT", ctx))?;
                return int_result(i, unsigned, ctx);
            }
            ArithOp::Mod => Value::Decimal(p.checked_rem(&q).ok_or_else(overflow)?),
        });
    }
    let as_i = |n: Num| match n {
        Int(i) => i as i128,
        UInt(u) => u as i128,
        _ => 0,
    };
    let unsigned = matches!(x, UInt(_)) || matches!(y, UInt(_));
    let x_unsigned = matches!(x, UInt(_));
    let (p, q) = (as_i(x), as_i(y));
    match op {
        ArithOp::Add => int_result(p + q, unsigned, ctx),
        ArithOp::Sub => int_result(p - q, unsigned, ctx),
        ArithOp::Mul => match p.checked_mul(q) {
            Some(r) => int_result(r, unsigned, ctx),
            None => Err(out_of_range(
                if unsigned {
                    "BIGINT UNSIGNED"
                } else {
                    "BIGINT"
                },
                ctx,
            )),
        },
        ArithOp::IntDiv => {
            if q == 0 {
                w.push(div_by_zero_warning());
                return Ok(Value::Null);
            }
            int_result(p / q, unsigned, ctx)
        }
        ArithOp::Mod => {
            if q == 0 {
                w.push(div_by_zero_warning());
                return Ok(Value::Null);
            }
            int_result(p % q, x_unsigned, ctx)
        }
        ArithOp::Div => Ok(Value::Null), // handled as DECIMAL above
    }
}

/// Unary minus. `-(-9223372036854775808)` is error 1690
/// `BIGINT value is out of range in '-(-9223372036854775808)'`.
pub fn negate(v: &Value, w: &mut Vec<Warning>) -> Result<Value> {
    let ctx = &ArithCtx {
        div_precision_increment: 4,
        expr_text: format!("-({v})"),
    };
    Ok(match to_num(v, w) {
        None => Value::Null,
        Some(Num::Int(i)) => {
            Value::Int(i.checked_neg().ok_or_else(|| out_of_range("BIGINT", ctx))?)
        }
        Some(Num::UInt(u)) => {
            if u <= i64::MAX as u64 {
                Value::Int(-(u as i64))
            } else if u == 1u64 << 63 {
                Value::Int(i64::MIN)
            } else {
                return Err(out_of_range("BIGINT", ctx));
            }
        }
        Some(Num::Dec(d)) => Value::Decimal(-d),
        Some(Num::Dbl(f)) => Value::Double(-f),
    })
}

/// A temporal interval unit (`INTERVAL expr unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum IntervalUnit {
    Microsecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Quarter,
    Year,
    SecondMicrosecond,
    MinuteMicrosecond,
    MinuteSecond,
    HourMicrosecond,
    HourSecond,
    HourMinute,
    DayMicrosecond,
    DaySecond,
    DayMinute,
    DayHour,
    YearMonth,
}

impl IntervalUnit {
    /// Looks a unit up by its SQL name (case-insensitive; `SQL_TSI_` prefixes accepted).
    pub fn from_name(name: &str) -> Option<IntervalUnit> {
        use IntervalUnit::*;
        let n = name.trim().to_ascii_uppercase();
        let n = n.strip_prefix("SQL_TSI_").unwrap_or(&n);
        Some(match n {
            "MICROSECOND" | "FRAC_SECOND" => Microsecond,
            "SECOND" => Second,
            "MINUTE" => Minute,
            "HOUR" => Hour,
            "DAY" => Day,
            "WEEK" => Week,
            "MONTH" => Month,
            "QUARTER" => Quarter,
            "YEAR" => Year,
            "SECOND_MICROSECOND" => SecondMicrosecond,
            "MINUTE_MICROSECOND" => MinuteMicrosecond,
            "MINUTE_SECOND" => MinuteSecond,
            "HOUR_MICROSECOND" => HourMicrosecond,
            "HOUR_SECOND" => HourSecond,
            "HOUR_MINUTE" => HourMinute,
            "DAY_MICROSECOND" => DayMicrosecond,
            "DAY_SECOND" => DaySecond,
            "DAY_MINUTE" => DayMinute,
            "DAY_HOUR" => DayHour,
            "YEAR_MONTH" => YearMonth,
            _ => return None,
        })
    }

    /// The unit's SQL name.
    pub fn name(self) -> &'static str {
        use IntervalUnit::*;
        match self {
            Microsecond => "MICROSECOND",
            Second => "SECOND",
            Minute => "MINUTE",
            Hour => "HOUR",
            Day => "DAY",
            Week => "WEEK",
            Month => "MONTH",
            Quarter => "QUARTER",
            Year => "YEAR",
            SecondMicrosecond => "SECOND_MICROSECOND",
            MinuteMicrosecond => "MINUTE_MICROSECOND",
            MinuteSecond => "MINUTE_SECOND",
            HourMicrosecond => "HOUR_MICROSECOND",
            HourSecond => "HOUR_SECOND",
            HourMinute => "HOUR_MINUTE",
            DayMicrosecond => "DAY_MICROSECOND",
            DaySecond => "DAY_SECOND",
            DayMinute => "DAY_MINUTE",
            DayHour => "DAY_HOUR",
            YearMonth => "YEAR_MONTH",
        }
    }

    /// True when the unit counts calendar months (MONTH, QUARTER, YEAR, YEAR_MONTH).
    pub fn is_month_based(self) -> bool {
        matches!(
            self,
            IntervalUnit::Month
                | IntervalUnit::Quarter
                | IntervalUnit::Year
                | IntervalUnit::YearMonth
        )
    }

    /// True when the unit has a time-of-day part (so DATE + INTERVAL gives DATETIME).
    pub fn has_time(self) -> bool {
        !matches!(
            self,
            IntervalUnit::Day
                | IntervalUnit::Week
                | IntervalUnit::Month
                | IntervalUnit::Quarter
                | IntervalUnit::Year
                | IntervalUnit::YearMonth
        )
    }

    /// True when the unit has a microsecond part.
    pub fn has_micros(self) -> bool {
        matches!(
            self,
            IntervalUnit::Microsecond
                | IntervalUnit::SecondMicrosecond
                | IntervalUnit::MinuteMicrosecond
                | IntervalUnit::HourMicrosecond
                | IntervalUnit::DayMicrosecond
        )
    }
}

/// A parsed interval: months plus microseconds, with a sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interval {
    /// Calendar months (YEAR/QUARTER/MONTH/YEAR_MONTH).
    pub months: i64,
    /// Everything else, in microseconds.
    pub micros: i128,
}

fn interval_groups(s: &str) -> Option<(bool, Vec<(u64, usize)>)> {
    let t = s.trim_start();
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let b = t.as_bytes();
    let mut groups = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let st = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let v: u64 = t[st..i].parse().ok()?;
            groups.push((v, i - st));
        } else {
            i += 1;
        }
    }
    Some((neg, groups))
}

/// Parses an interval value for `unit` (numbers for simple units, strings like `'1 2:03:04'`
/// for compound units, missing leading parts allowed). `None` if it cannot be parsed.
pub fn parse_interval(v: &Value, unit: IntervalUnit, w: &mut Vec<Warning>) -> Option<Interval> {
    use IntervalUnit::*;
    const S: i128 = 1_000_000;
    let simple = |mult: i128, w: &mut Vec<Warning>| -> Option<Interval> {
        let n: i128 = match v {
            Value::Str(_) | Value::Bytes(_) => {
                let s = convert::to_string_value(v)?;
                let (neg, g) = interval_groups(&s)?;
                let n = g.first().map_or(0, |x| x.0) as i128;
                if neg {
                    -n
                } else {
                    n
                }
            }
            other => convert::to_i64(other, w)? as i128,
        };
        Some(Interval {
            months: 0,
            micros: n * mult,
        })
    };
    match unit {
        Microsecond => simple(1, w),
        Second => match v {
            Value::Decimal(_) | Value::Double(_) | Value::Float(_) => {
                let d = convert::to_decimal(v, w)?;
                let us = (d * Decimal::from(1_000_000)).round_dp(0).to_i128()?;
                Some(Interval {
                    months: 0,
                    micros: us,
                })
            }
            _ => simple(S, w),
        },
        Minute => simple(60 * S, w),
        Hour => simple(3600 * S, w),
        Day => simple(86_400 * S, w),
        Week => simple(7 * 86_400 * S, w),
        Month | Quarter | Year => {
            let i = simple(1, w)?;
            let m = match unit {
                Quarter => 3,
                Year => 12,
                _ => 1,
            };
            Some(Interval {
                months: i64::try_from(i.micros).ok()?.checked_mul(m)?,
                micros: 0,
            })
        }
        _ => {
            let s = convert::to_string_value(v)?;
            let (neg, groups) = interval_groups(&s)?;
            // Unit multipliers of each field, most significant first.
            let (mults, micro_last): (&[i128], bool) = match unit {
                SecondMicrosecond => (&[S, 1], true),
                MinuteMicrosecond => (&[60 * S, S, 1], true),
                MinuteSecond => (&[60 * S, S], false),
                HourMicrosecond => (&[3600 * S, 60 * S, S, 1], true),
                HourSecond => (&[3600 * S, 60 * S, S], false),
                HourMinute => (&[3600 * S, 60 * S], false),
                DayMicrosecond => (&[86_400 * S, 3600 * S, 60 * S, S, 1], true),
                DaySecond => (&[86_400 * S, 3600 * S, 60 * S, S], false),
                DayMinute => (&[86_400 * S, 3600 * S, 60 * S], false),
                DayHour => (&[86_400 * S, 3600 * S], false),
                YearMonth => (&[12, 1], false),
                _ => return None,
            };
            if groups.len() > mults.len() {
                return None;
            }
            let off = mults.len() - groups.len();
            let mut total: i128 = 0;
            for (k, (g, len)) in groups.iter().enumerate() {
                let idx = off + k;
                let mut val = *g as i128;
                if micro_last && idx == mults.len() - 1 && *len < 6 {
                    val *= 10i128.pow(6 - *len as u32);
                }
                total = total.checked_add(val.checked_mul(mults[idx])?)?;
            }
            if neg {
                total = -total;
            }
            if unit == YearMonth {
                Some(Interval {
                    months: i64::try_from(total).ok()?,
                    micros: 0,
                })
            } else {
                Some(Interval {
                    months: 0,
                    micros: total,
                })
            }
        }
    }
}

fn overflow_warning() -> Warning {
    Warning::warn(
        codes::ER_DATETIME_FUNCTION_OVERFLOW,
        "Datetime function: datetime field overflow",
    )
}

/// Adds an interval to a datetime (months clamp the day to the month's end).
pub fn add_interval_dt(dt: &DateTime, iv: Interval) -> Option<DateTime> {
    let mut d = *dt;
    if iv.months != 0 {
        let total = d.year as i64 * 12 + d.month as i64 - 1 + iv.months;
        if !(0..=9999 * 12 + 11).contains(&total) {
            return None;
        }
        d.year = (total / 12) as u16;
        d.month = (total % 12 + 1) as u8;
        let dim = temporal::days_in_month(d.year as u32, d.month as u32) as u8;
        if d.day > dim {
            d.day = dim;
        }
    }
    if iv.micros != 0 {
        let us = temporal::dt_to_micros(&d) as i128 + iv.micros;
        d = temporal::micros_to_dt(i64::try_from(us).ok()?)?;
    }
    if d.year == 0 && iv.months == 0 && iv.micros != 0 {
        return None;
    }
    Some(d)
}

/// `DATE_ADD(dt, INTERVAL interval unit)` (or `DATE_SUB` with `negate`).
///
/// DATE stays DATE for day-or-larger units and becomes DATETIME otherwise; DATETIME stays
/// DATETIME (fsp 6 when microseconds are involved); TIME stays TIME; strings and numbers are
/// parsed as datetimes. Invalid input or a result outside 0001..9999 gives NULL with a warning.
pub fn date_add(
    dt: &Value,
    interval: &Value,
    unit: IntervalUnit,
    negate: bool,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    if dt.is_null() || interval.is_null() {
        return Ok(Value::Null);
    }
    let Some(mut iv) = parse_interval(interval, unit, w) else {
        return Ok(Value::Null);
    };
    if negate {
        iv.months = -iv.months;
        iv.micros = -iv.micros;
    }
    let frac_fsp = if iv.micros % 1_000_000 != 0 { 6 } else { 0 };
    // TIME input stays TIME.
    if let Value::Time(t, fsp) = dt {
        if iv.months != 0 {
            w.push(overflow_warning());
            return Ok(Value::Null);
        }
        let us = t.to_micros() as i128 + iv.micros;
        let fsp = (*fsp).max(frac_fsp);
        if us.abs() > common::time::Time::MAX_MICROS as i128 + 999_999 {
            w.push(overflow_warning());
            return Ok(Value::Null);
        }
        return Ok(Value::Time(Time::from_micros(us as i64), fsp));
    }
    let (base, kind_date, in_fsp) = match dt {
        Value::Date(d) => (*d, true, 0),
        Value::DateTime(d, f) => (*d, false, *f),
        Value::Str(_) | Value::Bytes(_) => {
            let s = convert::to_string_value(dt).unwrap_or_default();
            match temporal::parse_datetime(&s) {
                Some(p) => {
                    if p.truncated {
                        w.push(convert::truncated_warning("datetime", &s));
                    }
                    (p.dt, !p.has_time, if p.dt.micro != 0 { 6 } else { 0 })
                }
                None => {
                    w.push(Warning::warn(
                        codes::ER_TRUNCATED_WRONG_VALUE,
                        format!("Incorrect datetime value: '{s}'"),
                    ));
                    return Ok(Value::Null);
                }
            }
        }
        other => match convert::to_datetime(other, w) {
            Some(d) => (
                d,
                d.hour == 0 && d.minute == 0 && d.second == 0 && d.micro == 0,
                0,
            ),
            None => return Ok(Value::Null),
        },
    };
    if base.month == 0 || base.day == 0 {
        w.push(Warning::warn(
            codes::ER_TRUNCATED_WRONG_VALUE,
            format!(
                "Incorrect datetime value: '{}'",
                if kind_date {
                    base.fmt_date()
                } else {
                    base.fmt_datetime(0)
                }
            ),
        ));
        return Ok(Value::Null);
    }
    let Some(r) = add_interval_dt(&base, iv) else {
        w.push(overflow_warning());
        return Ok(Value::Null);
    };
    if kind_date && !unit.has_time() {
        return Ok(Value::Date(r));
    }
    let mut fsp = in_fsp.max(frac_fsp);
    if unit.has_micros()
        || matches!(interval, Value::Decimal(_) | Value::Double(_)) && unit == IntervalUnit::Second
    {
        fsp = 6;
    }
    if matches!(dt, Value::Str(_) | Value::Bytes(_)) {
        fsp = if r.micro != 0 { 6 } else { 0 };
    }
    Ok(Value::DateTime(r, fsp))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(t: &str) -> ArithCtx {
        ArithCtx {
            div_precision_increment: 4,
            expr_text: t.into(),
        }
    }

    fn op(o: ArithOp, a: Value, b: Value) -> Result<Value> {
        binary_op(o, &a, &b, &ctx("(a op b)"), &mut vec![])
    }

    fn dec(s: &str) -> Value {
        Value::Decimal(s.parse().unwrap())
    }

    #[test]
    fn integer_ops() {
        assert_eq!(
            op(ArithOp::Add, Value::Int(1), Value::Int(2)).unwrap(),
            Value::Int(3)
        );
        assert_eq!(
            op(ArithOp::IntDiv, Value::Int(7), Value::Int(2)).unwrap(),
            Value::Int(3)
        );
        assert_eq!(
            op(ArithOp::IntDiv, Value::Int(-7), Value::Int(2)).unwrap(),
            Value::Int(-3)
        );
        assert_eq!(
            op(ArithOp::Mod, Value::Int(-7), Value::Int(3)).unwrap(),
            Value::Int(-1)
        );
        assert_eq!(
            op(ArithOp::Mod, Value::Int(7), Value::Int(-3)).unwrap(),
            Value::Int(1)
        );
        let e = binary_op(
            ArithOp::Add,
            &Value::Int(i64::MAX),
            &Value::Int(1),
            &ctx("(9223372036854775807 + 1)"),
            &mut vec![],
        )
        .unwrap_err();
        assert_eq!(e.num(), 1690);
        assert_eq!(
            e.msg,
            "BIGINT value is out of range in '(9223372036854775807 + 1)'"
        );
        let e = binary_op(
            ArithOp::Sub,
            &Value::UInt(1),
            &Value::Int(2),
            &ctx("(cast(1 as unsigned) - 2)"),
            &mut vec![],
        )
        .unwrap_err();
        assert_eq!(
            e.msg,
            "BIGINT UNSIGNED value is out of range in '(cast(1 as unsigned) - 2)'"
        );
        assert_eq!(
            op(ArithOp::Add, Value::UInt(u64::MAX - 1), Value::Int(1)).unwrap(),
            Value::UInt(u64::MAX)
        );
        assert_eq!(
            op(ArithOp::Mul, Value::Int(-3), Value::Int(4)).unwrap(),
            Value::Int(-12)
        );
    }

    #[test]
    fn division() {
        assert_eq!(
            op(ArithOp::Div, Value::Int(1), Value::Int(3))
                .unwrap()
                .to_string(),
            "0.3333"
        );
        assert_eq!(
            op(ArithOp::Div, Value::Int(2), Value::Int(3))
                .unwrap()
                .to_string(),
            "0.6667"
        );
        assert_eq!(
            op(ArithOp::Div, Value::Int(4), Value::Int(2))
                .unwrap()
                .to_string(),
            "2.0000"
        );
        assert_eq!(
            op(ArithOp::Div, dec("1.0"), Value::Int(3))
                .unwrap()
                .to_string(),
            "0.33333"
        );
        let mut w = vec![];
        assert_eq!(
            binary_op(
                ArithOp::Div,
                &Value::Int(1),
                &Value::Int(0),
                &ctx("x"),
                &mut w
            )
            .unwrap(),
            Value::Null
        );
        assert_eq!(w[0].code, 1365);
        assert_eq!(w[0].msg, "Division by 0");
        assert_eq!(
            op(ArithOp::Mod, Value::Int(1), Value::Int(0)).unwrap(),
            Value::Null
        );
        assert_eq!(
            op(ArithOp::Div, Value::Double(1.0), Value::Int(4)).unwrap(),
            Value::Double(0.25)
        );
        assert_eq!(
            op(ArithOp::IntDiv, dec("7.5"), Value::Int(2)).unwrap(),
            Value::Int(3)
        );
    }

    #[test]
    fn decimal_scales() {
        assert_eq!(
            op(ArithOp::Add, dec("1.5"), dec("2.25"))
                .unwrap()
                .to_string(),
            "3.75"
        );
        assert_eq!(
            op(ArithOp::Add, dec("1.50"), Value::Int(1))
                .unwrap()
                .to_string(),
            "2.50"
        );
        assert_eq!(
            op(ArithOp::Mul, dec("1.5"), dec("2.00"))
                .unwrap()
                .to_string(),
            "3.000"
        );
        assert_eq!(
            op(ArithOp::Sub, dec("0.3"), dec("0.1"))
                .unwrap()
                .to_string(),
            "0.2"
        );
        assert_eq!(
            op(ArithOp::Mod, dec("5.5"), Value::Int(2))
                .unwrap()
                .to_string(),
            "1.5"
        );
    }

    #[test]
    fn strings_become_doubles() {
        let mut w = vec![];
        let r = binary_op(
            ArithOp::Add,
            &Value::Str("1.5".into()),
            &Value::Int(1),
            &ctx(""),
            &mut w,
        )
        .unwrap();
        assert_eq!(r, Value::Double(2.5));
        let r = binary_op(
            ArithOp::Add,
            &Value::Str("12abc".into()),
            &Value::Int(1),
            &ctx(""),
            &mut w,
        )
        .unwrap();
        assert_eq!(r, Value::Double(13.0));
        assert_eq!(w.len(), 1);
        assert_eq!(
            op(ArithOp::Add, Value::Null, Value::Int(1)).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn negation() {
        let e = negate(&Value::Int(i64::MIN), &mut vec![]).unwrap_err();
        assert_eq!(e.num(), 1690);
        assert_eq!(
            e.msg,
            "BIGINT value is out of range in '-(-9223372036854775808)'"
        );
        assert_eq!(
            negate(&Value::UInt(5), &mut vec![]).unwrap(),
            Value::Int(-5)
        );
        assert_eq!(
            negate(&dec("1.50"), &mut vec![]).unwrap().to_string(),
            "-1.50"
        );
    }

    fn da(d: Value, i: Value, u: IntervalUnit, neg: bool) -> String {
        date_add(&d, &i, u, neg, &mut vec![]).unwrap().to_string()
    }

    #[test]
    fn date_arithmetic() {
        let s = |x: &str| Value::Str(x.into());
        let d = Value::Date(DateTime::date(2018, 5, 1));
        assert_eq!(
            da(d.clone(), Value::Int(1), IntervalUnit::Day, false),
            "2018-05-02"
        );
        assert_eq!(
            da(
                s("2017-12-31 23:59:59"),
                Value::Int(1),
                IntervalUnit::Second,
                false
            ),
            "2018-01-01 00:00:00"
        );
        assert_eq!(
            da(
                s("2017-12-31 23:59:59"),
                s("1:1"),
                IntervalUnit::MinuteSecond,
                false
            ),
            "2018-01-01 00:01:00"
        );
        assert_eq!(
            da(
                s("2018-01-01 00:00:00"),
                s("1 1:1:1"),
                IntervalUnit::DaySecond,
                true
            ),
            "2017-12-30 22:58:59"
        );
        assert_eq!(
            da(
                s("1900-01-01 00:00:00"),
                s("-1 10"),
                IntervalUnit::DayHour,
                false
            ),
            "1899-12-30 14:00:00"
        );
        assert_eq!(
            da(
                s("1992-12-31 23:59:59.000002"),
                s("1.999999"),
                IntervalUnit::SecondMicrosecond,
                false
            ),
            "1993-01-01 00:00:01.000001"
        );
        assert_eq!(
            da(s("2024-01-31"), Value::Int(1), IntervalUnit::Month, false),
            "2024-02-29"
        );
        assert_eq!(
            da(d.clone(), Value::Int(1), IntervalUnit::Hour, false),
            "2018-05-01 01:00:00"
        );
        assert_eq!(
            da(s("2024-01-01"), s("1-2"), IntervalUnit::YearMonth, false),
            "2025-03-01"
        );
        assert_eq!(
            da(d, Value::Int(-1), IntervalUnit::Week, false),
            "2018-04-24"
        );
        let mut w = vec![];
        assert_eq!(
            date_add(
                &s("9999-12-31"),
                &Value::Int(1),
                IntervalUnit::Day,
                false,
                &mut w
            )
            .unwrap(),
            Value::Null
        );
        assert_eq!(w[0].code, 1441);
        assert_eq!(
            date_add(
                &s("0000-00-00"),
                &Value::Int(1),
                IntervalUnit::Day,
                false,
                &mut w
            )
            .unwrap(),
            Value::Null
        );
        assert_eq!(
            IntervalUnit::from_name("day_second"),
            Some(IntervalUnit::DaySecond)
        );
    }
}
