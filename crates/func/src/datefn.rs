//! Date and time functions: NOW/CURDATE family, field extraction, WEEK modes, DATE_FORMAT,
//! STR_TO_DATE, day-number conversions, TIMESTAMPDIFF/TIMESTAMPADD and friends.

use common::codes::{self, ErrorCode};
use common::time::{DateTime, Time};
use common::Decimal;
use common::{Error, Result, Value, Warning};

use crate::arith::{self, IntervalUnit};
use crate::convert;
use crate::scalar::{arg_count_error, FnCtx};
use crate::temporal::{self, DAY_NAMES, MONTH_NAMES};

/// 1411 ER_WRONG_VALUE_FOR_TYPE (not in `common::codes`).
pub const ER_WRONG_VALUE_FOR_TYPE: ErrorCode = ErrorCode {
    num: 1411,
    sqlstate: "HY000",
    name: "ER_WRONG_VALUE_FOR_TYPE",
};

fn check_fsp(name: &str, args: &[Value], w: &mut Vec<Warning>) -> Result<u8> {
    match args.first() {
        None => Ok(0),
        Some(v) => {
            let n = convert::to_i64(v, w).unwrap_or(0);
            if !(0..=6).contains(&n) {
                return Err(Error::new(
                    codes::ER_TOO_BIG_PRECISION,
                    format!(
                        "Too-big precision {n} specified for '{}'. Maximum is 6.",
                        name.to_ascii_lowercase()
                    ),
                ));
            }
            Ok(n as u8)
        }
    }
}

fn trunc_micro(micro: u32, fsp: u8) -> u32 {
    let unit = 10u32.pow(6 - fsp.min(6) as u32);
    micro / unit * unit
}

fn dt_of(v: &Value, ctx: &FnCtx, w: &mut Vec<Warning>) -> Option<DateTime> {
    convert::to_datetime_on(v, Some(ctx.now), w)
}

fn valid_date(d: &DateTime) -> bool {
    temporal::is_valid_calendar_date(d)
}

fn daynr_of(d: &DateTime) -> i64 {
    temporal::daynr(d.year as u32, d.month as u32, d.day as u32)
}

fn int(v: i64) -> Value {
    Value::Int(v)
}

fn local_to_unix_micros(d: &DateTime, ctx: &FnCtx) -> i64 {
    temporal::dt_to_unix_micros(d) - ctx.time_zone_offset_secs as i64 * 1_000_000
}

fn unix_to_local(us: i64, ctx: &FnCtx) -> Option<DateTime> {
    temporal::unix_micros_to_dt(us + ctx.time_zone_offset_secs as i64 * 1_000_000)
}

/// Seconds in the range UNIX_TIMESTAMP/FROM_UNIXTIME accept (up to 3001-01-18 23:59:59 UTC).
const MAX_UNIX_SECS: i64 = 32_536_771_199;

fn fsp_of_value(v: &Value) -> u8 {
    match v {
        Value::DateTime(_, f) | Value::Time(_, f) => *f,
        Value::Decimal(d) => d.scale().min(6) as u8,
        Value::Double(_) | Value::Float(_) => 6,
        Value::Str(s) => temporal::parse_datetime(s)
            .map_or(0, |p| p.frac_digits)
            .max(temporal::parse_time(s).map_or(0, |p| p.frac_digits)),
        _ => 0,
    }
}

fn wrong_value(kind: &str, v: &str, func: &str) -> Warning {
    Warning::warn(
        ER_WRONG_VALUE_FOR_TYPE,
        format!("Incorrect {kind} value: '{v}' for function {func}"),
    )
}

/// Evaluates date/time function `name`, one of [`NAMES`].
pub(crate) fn eval(
    name: &str,
    args: &[Value],
    ctx: &mut FnCtx,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    let n = args.len();
    let count = |ok: bool| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(arg_count_error(name))
        }
    };
    {
        // Functions that are not NULL-propagating come first.
        match name {
            "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" => {
                count(n <= 1)?;
                let fsp = check_fsp(name, args, w)?;
                let now = DateTime {
                    micro: trunc_micro(ctx.now.micro, fsp),
                    ..ctx.now
                };
                return Ok(Value::DateTime(now, fsp));
            }
            "SYSDATE" => {
                count(n <= 1)?;
                let fsp = check_fsp(name, args, w)?;
                let us = chrono::Utc::now().timestamp_micros();
                let d = unix_to_local(us, ctx).unwrap_or(ctx.now);
                return Ok(Value::DateTime(
                    DateTime {
                        micro: trunc_micro(d.micro, fsp),
                        ..d
                    },
                    fsp,
                ));
            }
            "CURDATE" | "CURRENT_DATE" => {
                count(n == 0)?;
                return Ok(Value::Date(ctx.now.date_part()));
            }
            "CURTIME" | "CURRENT_TIME" => {
                count(n <= 1)?;
                let fsp = check_fsp(name, args, w)?;
                let t = Time {
                    neg: false,
                    hour: ctx.now.hour as u32,
                    minute: ctx.now.minute,
                    second: ctx.now.second,
                    micro: trunc_micro(ctx.now.micro, fsp),
                };
                return Ok(Value::Time(t, fsp));
            }
            "UTC_TIMESTAMP" | "UTC_DATE" | "UTC_TIME" => {
                count(n <= 1 && (name != "UTC_DATE" || n == 0))?;
                let fsp = check_fsp(name, args, w)?;
                let d = temporal::unix_micros_to_dt(ctx.now_micros_utc).unwrap_or_default();
                let d = DateTime {
                    micro: trunc_micro(d.micro, fsp),
                    ..d
                };
                return Ok(match name {
                    "UTC_DATE" => Value::Date(d.date_part()),
                    "UTC_TIME" => Value::Time(
                        Time {
                            neg: false,
                            hour: d.hour as u32,
                            minute: d.minute,
                            second: d.second,
                            micro: d.micro,
                        },
                        fsp,
                    ),
                    _ => Value::DateTime(d, fsp),
                });
            }
            "UNIX_TIMESTAMP" => {
                count(n <= 1)?;
                if n == 0 {
                    return Ok(int(ctx.now_micros_utc.div_euclid(1_000_000)));
                }
            }
            _ => {}
        }
        if args.iter().any(Value::is_null) && !matches!(name, "TIMESTAMPDIFF" | "TIMESTAMPADD") {
            // Still check the arity for the simple one-argument functions.
            return Ok(Value::Null);
        }
        let a0 = args.first().unwrap_or(&Value::Null);
        match name {
            "UNIX_TIMESTAMP" => {
                let Some(d) = dt_of(a0, ctx, w) else {
                    return Ok(int(0));
                };
                let fsp = fsp_of_value(a0);
                let us = local_to_unix_micros(&d, ctx);
                if !(0..=MAX_UNIX_SECS * 1_000_000 + 999_999).contains(&us)
                    || d.month == 0
                    || d.day == 0
                {
                    return Ok(int(0));
                }
                if fsp == 0 || matches!(a0, Value::Date(_)) {
                    Ok(int(us / 1_000_000))
                } else {
                    let mut r = Decimal::new(us, 6);
                    r.rescale(fsp as u32);
                    Ok(Value::Decimal(r))
                }
            }
            "FROM_UNIXTIME" => {
                count(n == 1 || n == 2)?;
                let d = convert::to_decimal(a0, w).unwrap_or_default();
                let fsp = match a0 {
                    Value::Int(_) | Value::UInt(_) => 0,
                    Value::Decimal(x) => x.scale().min(6) as u8,
                    Value::Str(_) | Value::Bytes(_) => 6,
                    _ => 6,
                };
                if d.is_sign_negative() && !d.is_zero() || d > Decimal::from(MAX_UNIX_SECS) {
                    return Ok(Value::Null);
                }
                let us = (d * Decimal::from(1_000_000)).trunc().to_i64().unwrap_or(0);
                let Some(local) = unix_to_local(us, ctx) else {
                    return Ok(Value::Null);
                };
                let local = temporal::round_dt(&local, fsp);
                if n == 2 {
                    let f = convert::to_string_value(&args[1]).unwrap_or_default();
                    return Ok(date_format(&local, &f, false).map_or(Value::Null, Value::Str));
                }
                Ok(Value::DateTime(local, fsp))
            }
            "DATE" => {
                count(n == 1)?;
                Ok(convert::to_date(a0, w).map_or(Value::Null, Value::Date))
            }
            "TIME" => {
                count(n == 1)?;
                let fsp = fsp_of_value(a0);
                Ok(convert::to_time(a0, w).map_or(Value::Null, |t| Value::Time(t, fsp)))
            }
            "TIMESTAMP" => {
                count(n == 1 || n == 2)?;
                let Some(d) = dt_of(a0, ctx, w) else {
                    return Ok(Value::Null);
                };
                let mut fsp = fsp_of_value(a0);
                if n == 2 {
                    let Some(t) = convert::to_time(&args[1], w) else {
                        return Ok(Value::Null);
                    };
                    fsp = fsp.max(fsp_of_value(&args[1]));
                    let us = temporal::dt_to_micros(&d) + t.to_micros();
                    return Ok(
                        temporal::micros_to_dt(us).map_or(Value::Null, |r| Value::DateTime(r, fsp))
                    );
                }
                Ok(Value::DateTime(d, fsp))
            }
            "YEAR" | "MONTH" | "DAY" | "DAYOFMONTH" | "QUARTER" => {
                count(n == 1)?;
                let Some(d) = dt_of(a0, ctx, w) else {
                    return Ok(Value::Null);
                };
                Ok(int(match name {
                    "YEAR" => d.year as i64,
                    "MONTH" => d.month as i64,
                    "QUARTER" => (d.month as i64 + 2) / 3,
                    _ => d.day as i64,
                }))
            }
            "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND" => {
                count(n == 1)?;
                let Some(t) = convert::to_time(a0, w) else {
                    return Ok(Value::Null);
                };
                Ok(int(match name {
                    "HOUR" => t.hour as i64,
                    "MINUTE" => t.minute as i64,
                    "SECOND" => t.second as i64,
                    _ => t.micro as i64,
                }))
            }
            "DAYOFWEEK" | "WEEKDAY" | "DAYOFYEAR" | "DAYNAME" | "MONTHNAME" | "TO_DAYS"
            | "TO_SECONDS" | "LAST_DAY" => {
                count(n == 1)?;
                let Some(d) = dt_of(a0, ctx, w) else {
                    return Ok(Value::Null);
                };
                if name == "MONTHNAME" {
                    return Ok(if d.month == 0 {
                        Value::Null
                    } else {
                        Value::Str(MONTH_NAMES[(d.month as usize).clamp(1, 12) - 1].into())
                    });
                }
                if name == "LAST_DAY" {
                    if d.month == 0 {
                        return Ok(Value::Null);
                    }
                    let dim = temporal::days_in_month(d.year as u32, d.month as u32) as u8;
                    return Ok(Value::Date(DateTime::date(d.year, d.month, dim)));
                }
                if !valid_date(&d) {
                    w.push(Warning::warn(
                        codes::ER_TRUNCATED_WRONG_VALUE,
                        format!(
                            "Incorrect datetime value: '{}'",
                            convert::to_string_value(a0).unwrap_or_default()
                        ),
                    ));
                    return Ok(Value::Null);
                }
                let dn = daynr_of(&d);
                Ok(match name {
                    "DAYOFWEEK" => int(temporal::weekday(dn, true) as i64 + 1),
                    "WEEKDAY" => int(temporal::weekday(dn, false) as i64),
                    "DAYOFYEAR" => int(dn - temporal::daynr(d.year as u32, 1, 1) + 1),
                    "DAYNAME" => {
                        Value::Str(DAY_NAMES[temporal::weekday(dn, false) as usize].into())
                    }
                    "TO_DAYS" => int(dn),
                    _ => int(dn * 86_400
                        + d.hour as i64 * 3600
                        + d.minute as i64 * 60
                        + d.second as i64),
                })
            }
            "WEEK" | "WEEKOFYEAR" | "YEARWEEK" => {
                count(if name == "WEEKOFYEAR" {
                    n == 1
                } else {
                    n == 1 || n == 2
                })?;
                let Some(d) = dt_of(a0, ctx, w) else {
                    return Ok(Value::Null);
                };
                if !valid_date(&d) {
                    return Ok(Value::Null);
                }
                let mode = if name == "WEEKOFYEAR" {
                    3
                } else if n == 2 {
                    convert::to_i64(&args[1], w).unwrap_or(0) as u32
                } else {
                    ctx.default_week_format
                };
                let (y, m, dd) = (d.year as u32, d.month as u32, d.day as u32);
                if name == "YEARWEEK" {
                    let (wk, yr) = temporal::calc_week(
                        y,
                        m,
                        dd,
                        temporal::week_mode(mode) | temporal::WEEK_YEAR,
                    );
                    return Ok(int(yr as i64 * 100 + wk as i64));
                }
                Ok(int(
                    temporal::calc_week(y, m, dd, temporal::week_mode(mode)).0 as i64,
                ))
            }
            "FROM_DAYS" => {
                count(n == 1)?;
                let dn = convert::to_i64(a0, w).unwrap_or(0);
                Ok(Value::Date(match temporal::from_daynr(dn) {
                    Some((y, m, d)) => DateTime::date(y as u16, m as u8, d as u8),
                    None => DateTime::default(),
                }))
            }
            "DATEDIFF" => {
                count(n == 2)?;
                let (Some(a), Some(b)) = (dt_of(a0, ctx, w), dt_of(&args[1], ctx, w)) else {
                    return Ok(Value::Null);
                };
                if !valid_date(&a) || !valid_date(&b) {
                    return Ok(Value::Null);
                }
                Ok(int(daynr_of(&a) - daynr_of(&b)))
            }
            "TIMEDIFF" => {
                count(n == 2)?;
                timediff(a0, &args[1], ctx, w)
            }
            "DATE_FORMAT" | "TIME_FORMAT" => {
                count(n == 2)?;
                let f = convert::to_string_value(&args[1]).unwrap_or_default();
                if name == "TIME_FORMAT" {
                    let Some(t) = convert::to_time(a0, w) else {
                        return Ok(Value::Null);
                    };
                    return Ok(time_format(&t, &f).map_or(Value::Null, Value::Str));
                }
                let Some(d) = dt_of(a0, ctx, w) else {
                    return Ok(Value::Null);
                };
                Ok(date_format(&d, &f, false).map_or(Value::Null, Value::Str))
            }
            "STR_TO_DATE" => {
                count(n == 2)?;
                let s = convert::to_string_value(a0).unwrap_or_default();
                let f = convert::to_string_value(&args[1]).unwrap_or_default();
                Ok(str_to_date(&s, &f, w))
            }
            "MAKEDATE" => {
                count(n == 2)?;
                let y = convert::to_i64(a0, w).unwrap_or(0);
                let doy = convert::to_i64(&args[1], w).unwrap_or(0);
                if doy <= 0 || !(0..=9999).contains(&y) {
                    return Ok(Value::Null);
                }
                let y = if y < 100 {
                    temporal::year_2digit(y as u32) as i64
                } else {
                    y
                };
                let dn = temporal::daynr(y as u32, 1, 1) + doy - 1;
                Ok(match temporal::from_daynr(dn) {
                    Some((yy, m, d)) if yy <= 9999 => {
                        Value::Date(DateTime::date(yy as u16, m as u8, d as u8))
                    }
                    _ => Value::Null,
                })
            }
            "MAKETIME" => {
                count(n == 3)?;
                let h = convert::to_i64(a0, w).unwrap_or(0);
                let m = convert::to_i64(&args[1], w).unwrap_or(0);
                let sd = convert::to_decimal(&args[2], w).unwrap_or_default();
                let fsp = fsp_of_value(&args[2]);
                if !(0..60).contains(&m)
                    || sd.is_sign_negative() && !sd.is_zero()
                    || sd >= Decimal::from(60)
                {
                    return Ok(Value::Null);
                }
                let su = (sd.clone() * Decimal::from(1_000_000))
                    .round_i64()
                    .unwrap_or(0);
                let total = (h.unsigned_abs().min(10_000) as i64 * 3600 + m * 60) * 1_000_000 + su;
                let (us, clamped) = temporal::clamp_time_micros(if h < 0 { -total } else { total });
                if clamped {
                    w.push(convert::truncated_warning(
                        "time",
                        &format!("{h}:{m:02}:{sd}"),
                    ));
                }
                Ok(Value::Time(Time::from_micros(us), fsp))
            }
            "SEC_TO_TIME" => {
                count(n == 1)?;
                let d = convert::to_decimal(a0, w).unwrap_or_default();
                let fsp = fsp_of_value(a0);
                let us = (d.clone() * Decimal::from(1_000_000))
                    .round_i64()
                    .unwrap_or(i64::MAX / 2);
                let (us, clamped) = temporal::clamp_time_micros(us);
                if clamped {
                    w.push(convert::truncated_warning("time", &d.to_string()));
                }
                let t = temporal::round_time(&Time::from_micros(us), fsp);
                Ok(Value::Time(t, fsp))
            }
            "TIME_TO_SEC" => {
                count(n == 1)?;
                let Some(t) = convert::to_time(a0, w) else {
                    return Ok(Value::Null);
                };
                let secs = t.hour as i64 * 3600 + t.minute as i64 * 60 + t.second as i64;
                Ok(int(if t.neg { -secs } else { secs }))
            }
            "TIMESTAMPDIFF" => {
                count(n == 3)?;
                if args.iter().any(Value::is_null) {
                    return Ok(Value::Null);
                }
                let unit = unit_arg(a0, name)?;
                let (Some(a), Some(b)) = (dt_of(&args[1], ctx, w), dt_of(&args[2], ctx, w)) else {
                    return Ok(Value::Null);
                };
                Ok(timestampdiff(unit, &a, &b).map_or(Value::Null, int))
            }
            "TIMESTAMPADD" => {
                count(n == 3)?;
                if args.iter().any(Value::is_null) {
                    return Ok(Value::Null);
                }
                let unit = unit_arg(a0, name)?;
                arith::date_add(&args[2], &args[1], unit, false, w)
            }
            "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" => {
                // DATE_ADD(d, value, 'UNIT') or ADDDATE(d, days).
                count(n == 2 || n == 3)?;
                let unit = if n == 3 {
                    unit_arg(&args[2], name)?
                } else {
                    IntervalUnit::Day
                };
                arith::date_add(
                    a0,
                    &args[1],
                    unit,
                    matches!(name, "DATE_SUB" | "SUBDATE"),
                    w,
                )
            }
            "ADDTIME" | "SUBTIME" => {
                count(n == 2)?;
                let Some(t2) = convert::to_time(&args[1], w) else {
                    return Ok(Value::Null);
                };
                let delta = if name == "SUBTIME" {
                    -t2.to_micros()
                } else {
                    t2.to_micros()
                };
                let fsp = fsp_of_value(a0).max(fsp_of_value(&args[1]));
                let is_dt = match a0 {
                    Value::DateTime(..) | Value::Date(_) => true,
                    // A string with a date part ('2024-01-01', '2024-01-01 10:00') is a DATETIME.
                    Value::Str(s) => temporal::parse_datetime(s)
                        .is_some_and(|p| p.has_time || s.trim().contains('-')),
                    _ => false,
                };
                if is_dt {
                    let Some(d) = dt_of(a0, ctx, w) else {
                        return Ok(Value::Null);
                    };
                    let us = temporal::dt_to_micros(&d) + delta;
                    return Ok(
                        temporal::micros_to_dt(us).map_or(Value::Null, |r| Value::DateTime(r, fsp))
                    );
                }
                let Some(t) = convert::to_time(a0, w) else {
                    return Ok(Value::Null);
                };
                let (us, clamped) = temporal::clamp_time_micros(t.to_micros() + delta);
                if clamped {
                    w.push(convert::truncated_warning(
                        "time",
                        &Time::from_micros(t.to_micros() + delta).fmt(fsp),
                    ));
                }
                Ok(Value::Time(Time::from_micros(us), fsp))
            }
            "PERIOD_ADD" | "PERIOD_DIFF" => {
                count(n == 2)?;
                let p = convert::to_i64(a0, w).unwrap_or(0);
                let q = convert::to_i64(&args[1], w).unwrap_or(0);
                let months = |p: i64| -> i64 {
                    if p == 0 {
                        return 0;
                    }
                    let mut y = p / 100;
                    if y < 100 {
                        y = temporal::year_2digit(y as u32) as i64;
                    }
                    y * 12 + p % 100 - 1
                };
                if name == "PERIOD_DIFF" {
                    return Ok(int(months(p) - months(q)));
                }
                if p == 0 {
                    return Ok(int(0));
                }
                let m = months(p) + q;
                Ok(int(m / 12 * 100 + m % 12 + 1))
            }
            "EXTRACT" => {
                count(n == 2)?;
                let unit = unit_arg(a0, name)?;
                extract(unit, &args[1], ctx, w)
            }
            "CONVERT_TZ" => {
                count(n == 3)?;
                let Some(d) = dt_of(a0, ctx, w) else {
                    return Ok(Value::Null);
                };
                let fsp = fsp_of_value(a0);
                let zone = |v: &Value| {
                    TimeZone::parse(&convert::to_string_value(v).unwrap_or_default(), ctx)
                };
                let (Some(from), Some(to)) = (zone(&args[1]), zone(&args[2])) else {
                    return Ok(Value::Null);
                };
                if d.month == 0 || d.day == 0 {
                    return Ok(Value::DateTime(d, fsp));
                }
                let secs = from.local_to_utc(&d);
                if !(1..=MAX_UNIX_SECS).contains(&secs) {
                    return Ok(Value::DateTime(d, fsp));
                }
                Ok(match to.utc_to_local(secs) {
                    Some(r) => Value::DateTime(
                        DateTime {
                            micro: d.micro,
                            ..r
                        },
                        fsp,
                    ),
                    None => Value::Null,
                })
            }
            "GET_FORMAT" => {
                count(n == 2)?;
                let kind = convert::to_string_value(a0)
                    .unwrap_or_default()
                    .to_ascii_uppercase();
                let loc = convert::to_string_value(&args[1])
                    .unwrap_or_default()
                    .to_ascii_uppercase();
                Ok(get_format(&kind, &loc).map_or(Value::Null, |f| Value::Str(f.into())))
            }
            _ => Err(Error::internal(format!(
                "date function {name} not dispatched"
            ))),
        }
    }
}

/// Names handled by [`eval`].
pub(crate) const NAMES: &[&str] = &[
    "NOW",
    "CURRENT_TIMESTAMP",
    "LOCALTIME",
    "LOCALTIMESTAMP",
    "SYSDATE",
    "CURDATE",
    "CURRENT_DATE",
    "CURTIME",
    "CURRENT_TIME",
    "UTC_TIMESTAMP",
    "UTC_DATE",
    "UTC_TIME",
    "UNIX_TIMESTAMP",
    "FROM_UNIXTIME",
    "DATE",
    "TIME",
    "TIMESTAMP",
    "YEAR",
    "MONTH",
    "DAY",
    "DAYOFMONTH",
    "QUARTER",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MICROSECOND",
    "DAYOFWEEK",
    "WEEKDAY",
    "DAYOFYEAR",
    "DAYNAME",
    "MONTHNAME",
    "TO_DAYS",
    "TO_SECONDS",
    "LAST_DAY",
    "WEEK",
    "WEEKOFYEAR",
    "YEARWEEK",
    "FROM_DAYS",
    "DATEDIFF",
    "TIMEDIFF",
    "DATE_FORMAT",
    "TIME_FORMAT",
    "STR_TO_DATE",
    "MAKEDATE",
    "MAKETIME",
    "SEC_TO_TIME",
    "TIME_TO_SEC",
    "TIMESTAMPDIFF",
    "TIMESTAMPADD",
    "DATE_ADD",
    "DATE_SUB",
    "ADDDATE",
    "SUBDATE",
    "ADDTIME",
    "SUBTIME",
    "PERIOD_ADD",
    "PERIOD_DIFF",
    "EXTRACT",
    "CONVERT_TZ",
    "GET_FORMAT",
];

/// GET_FORMAT(DATE|TIME|DATETIME|TIMESTAMP, 'EUR'|'USA'|'JIS'|'ISO'|'INTERNAL').
fn get_format(kind: &str, locale: &str) -> Option<&'static str> {
    let i = ["USA", "JIS", "ISO", "EUR", "INTERNAL"]
        .iter()
        .position(|l| *l == locale)?;
    let table: [&str; 5] = match kind {
        "DATE" => ["%m.%d.%Y", "%Y-%m-%d", "%Y-%m-%d", "%d.%m.%Y", "%Y%m%d"],
        "DATETIME" | "TIMESTAMP" => [
            "%Y-%m-%d %H.%i.%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y-%m-%d %H:%i:%s",
            "%Y-%m-%d %H.%i.%s",
            "%Y%m%d%H%i%s",
        ],
        "TIME" => ["%h:%i:%s %p", "%H:%i:%s", "%H:%i:%s", "%H.%i.%s", "%H%i%s"],
        _ => return None,
    };
    Some(table[i])
}

/// EXTRACT(unit FROM v) as MySQL's Item_extract computes it: date units read a date, the
/// others read a time (hours of a TIME are not split into days) and carry its sign.
fn extract(unit: IntervalUnit, v: &Value, ctx: &FnCtx, w: &mut Vec<Warning>) -> Result<Value> {
    use IntervalUnit as U;
    let date_unit = matches!(
        unit,
        U::Year | U::YearMonth | U::Quarter | U::Month | U::Week | U::Day
    );
    if date_unit {
        let Some(d) = dt_of(v, ctx, w) else {
            return Ok(Value::Null);
        };
        return Ok(int(match unit {
            U::Year => d.year as i64,
            U::YearMonth => d.year as i64 * 100 + d.month as i64,
            U::Quarter => (d.month as i64 + 2) / 3,
            U::Month => d.month as i64,
            U::Day => d.day as i64,
            _ => {
                if !valid_date(&d) {
                    return Ok(Value::Null);
                }
                temporal::calc_week(
                    d.year as u32,
                    d.month as u32,
                    d.day as u32,
                    temporal::week_mode(ctx.default_week_format),
                )
                .0 as i64
            }
        }));
    }
    // Time units: a DATETIME keeps its day of month; a TIME has day 0 and its full hours.
    let (day, hour, minute, second, micro, neg) = match v {
        Value::Date(d) | Value::DateTime(d, _) => (
            d.day as i64,
            d.hour as i64,
            d.minute as i64,
            d.second as i64,
            d.micro as i64,
            false,
        ),
        Value::Str(s) if temporal::parse_datetime(s).is_some_and(|p| p.has_time) => {
            let Some(d) = dt_of(v, ctx, w) else {
                return Ok(Value::Null);
            };
            (
                d.day as i64,
                d.hour as i64,
                d.minute as i64,
                d.second as i64,
                d.micro as i64,
                false,
            )
        }
        _ => {
            let Some(t) = convert::to_time(v, w) else {
                return Ok(Value::Null);
            };
            (
                0,
                t.hour as i64,
                t.minute as i64,
                t.second as i64,
                t.micro as i64,
                t.neg,
            )
        }
    };
    let r = match unit {
        U::DayHour => day * 100 + hour,
        U::DayMinute => day * 10_000 + hour * 100 + minute,
        U::DaySecond => day * 1_000_000 + hour * 10_000 + minute * 100 + second,
        U::Hour => hour,
        U::HourMinute => hour * 100 + minute,
        U::HourSecond => hour * 10_000 + minute * 100 + second,
        U::Minute => minute,
        U::MinuteSecond => minute * 100 + second,
        U::Second => second,
        U::Microsecond => micro,
        U::DayMicrosecond => {
            (day * 1_000_000 + hour * 10_000 + minute * 100 + second) * 1_000_000 + micro
        }
        U::HourMicrosecond => (hour * 10_000 + minute * 100 + second) * 1_000_000 + micro,
        U::MinuteMicrosecond => (minute * 100 + second) * 1_000_000 + micro,
        _ => second * 1_000_000 + micro,
    };
    Ok(int(if neg { -r } else { r }))
}

/// A time zone argument of CONVERT_TZ: a fixed offset ('+05:30', 'SYSTEM' = the server's UTC)
/// or a named IANA zone ('Europe/Paris'; MySQL reads these from its time zone tables).
enum TimeZone {
    Fixed(i64),
    Named(chrono_tz::Tz),
}

impl TimeZone {
    fn parse(s: &str, _ctx: &FnCtx) -> Option<TimeZone> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("SYSTEM") {
            return Some(TimeZone::Fixed(0));
        }
        if let Some(rest) = t.strip_prefix(['+', '-']) {
            let (h, m) = rest.split_once(':')?;
            if h.is_empty() || m.len() != 2 || h.len() > 2 {
                return None;
            }
            let h: i64 = h.parse().ok()?;
            let m: i64 = m.parse().ok()?;
            if m > 59 {
                return None;
            }
            let secs = if t.starts_with('-') {
                -(h * 3600 + m * 60)
            } else {
                h * 3600 + m * 60
            };
            // MySQL accepts offsets from -13:59 to +14:00.
            if !(-(13 * 3600 + 59 * 60)..=14 * 3600).contains(&secs) {
                return None;
            }
            return Some(TimeZone::Fixed(secs));
        }
        chrono_tz::Tz::from_str_insensitive(t)
            .ok()
            .map(TimeZone::Named)
    }

    /// Seconds since the epoch of local time `d` in this zone (times in a DST gap are read
    /// with the offset in force before the gap).
    fn local_to_utc(&self, d: &DateTime) -> i64 {
        let local = temporal::dt_to_unix_micros(&DateTime { micro: 0, ..*d }) / 1_000_000;
        match self {
            TimeZone::Fixed(off) => local - off,
            TimeZone::Named(tz) => {
                use chrono::{Offset, TimeZone as _};
                let Some(naive) = chrono::DateTime::from_timestamp(local, 0) else {
                    return local;
                };
                let naive = naive.naive_utc();
                match tz.offset_from_local_datetime(&naive) {
                    chrono::LocalResult::Single(o) | chrono::LocalResult::Ambiguous(o, _) => {
                        local - o.fix().local_minus_utc() as i64
                    }
                    chrono::LocalResult::None => {
                        let before = naive - chrono::Duration::hours(3);
                        let o = tz.offset_from_utc_datetime(&before).fix();
                        local - o.local_minus_utc() as i64
                    }
                }
            }
        }
    }

    fn utc_to_local(&self, secs: i64) -> Option<DateTime> {
        let off = match self {
            TimeZone::Fixed(off) => *off,
            TimeZone::Named(tz) => {
                use chrono::{Offset, TimeZone as _};
                let utc = chrono::DateTime::from_timestamp(secs, 0)?.naive_utc();
                tz.offset_from_utc_datetime(&utc).fix().local_minus_utc() as i64
            }
        };
        temporal::unix_micros_to_dt((secs + off) * 1_000_000)
    }
}

fn unit_arg(v: &Value, func: &str) -> Result<IntervalUnit> {
    let s = convert::to_string_value(v).unwrap_or_default();
    IntervalUnit::from_name(&s).ok_or_else(|| {
        Error::new(
            codes::ER_WRONG_PARAMETERS_TO_NATIVE_FCT,
            format!("Incorrect parameters in the call to native function '{func}'"),
        )
    })
}

fn timediff(a: &Value, b: &Value, ctx: &FnCtx, w: &mut Vec<Warning>) -> Result<Value> {
    let kind = |v: &Value| -> Option<bool> {
        // true = datetime, false = time
        match v {
            Value::Date(_) | Value::DateTime(..) => Some(true),
            Value::Time(..) => Some(false),
            Value::Str(s) => {
                Some(temporal::parse_datetime(s).is_some_and(|p| p.has_time || s.contains('-')))
            }
            _ => Some(false),
        }
    };
    let (ka, kb) = (kind(a), kind(b));
    if ka != kb {
        return Ok(Value::Null);
    }
    let fsp = fsp_of_value(a).max(fsp_of_value(b));
    let us = if ka == Some(true) {
        let (Some(x), Some(y)) = (dt_of(a, ctx, w), dt_of(b, ctx, w)) else {
            return Ok(Value::Null);
        };
        temporal::dt_to_micros(&x) - temporal::dt_to_micros(&y)
    } else {
        let (Some(x), Some(y)) = (convert::to_time(a, w), convert::to_time(b, w)) else {
            return Ok(Value::Null);
        };
        x.to_micros() - y.to_micros()
    };
    let (us2, clamped) = temporal::clamp_time_micros(us);
    if clamped {
        w.push(convert::truncated_warning(
            "time",
            &Time::from_micros(us).fmt(fsp),
        ));
    }
    Ok(Value::Time(Time::from_micros(us2), fsp))
}

/// `TIMESTAMPDIFF(unit, a, b)`: `b - a` in whole units (months count complete months).
pub fn timestampdiff(unit: IntervalUnit, a: &DateTime, b: &DateTime) -> Option<i64> {
    use IntervalUnit::*;
    let (ua, ub) = (temporal::dt_to_micros(a), temporal::dt_to_micros(b));
    let diff = ub - ua;
    let months = || -> i64 {
        let (beg, end, sign) = if ub >= ua { (a, b, 1) } else { (b, a, -1) };
        let mut m = (end.year as i64 - beg.year as i64) * 12 + end.month as i64 - beg.month as i64;
        let tb = ((beg.hour as i64 * 60 + beg.minute as i64) * 60 + beg.second as i64) * 1_000_000
            + beg.micro as i64;
        let te = ((end.hour as i64 * 60 + end.minute as i64) * 60 + end.second as i64) * 1_000_000
            + end.micro as i64;
        if end.day < beg.day || (end.day == beg.day && te < tb) {
            m -= 1;
        }
        m * sign
    };
    Some(match unit {
        Microsecond => diff,
        Second => diff / 1_000_000,
        Minute => diff / 60_000_000,
        Hour => diff / 3_600_000_000,
        Day => diff / 86_400_000_000,
        Week => diff / (7 * 86_400_000_000),
        Month => months(),
        Quarter => months() / 3,
        Year => months() / 12,
        _ => return None,
    })
}

fn suffix(d: u8) -> &'static str {
    match (d % 100, d % 10) {
        (11..=13, _) => "th",
        (_, 1) => "st",
        (_, 2) => "nd",
        (_, 3) => "rd",
        _ => "th",
    }
}

/// `DATE_FORMAT(d, fmt)`; `None` (SQL NULL) when a specifier needs a real calendar date and the
/// date has zero parts. `time_only` restricts to TIME_FORMAT's specifiers.
pub fn date_format(d: &DateTime, fmt: &str, time_only: bool) -> Option<String> {
    let mut out = String::new();
    let mut it = fmt.chars();
    let valid = valid_date(d);
    let dn = || daynr_of(d);
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(f) = it.next() else { break };
        if time_only
            && matches!(
                f,
                'a' | 'b'
                    | 'c'
                    | 'D'
                    | 'd'
                    | 'e'
                    | 'j'
                    | 'M'
                    | 'm'
                    | 'U'
                    | 'u'
                    | 'V'
                    | 'v'
                    | 'W'
                    | 'w'
                    | 'X'
                    | 'x'
                    | 'Y'
                    | 'y'
            )
        {
            return None;
        }
        let h12 = if d.hour.is_multiple_of(12) {
            12
        } else {
            d.hour % 12
        };
        match f {
            'a' => {
                if !valid {
                    return None;
                }
                out.push_str(&DAY_NAMES[temporal::weekday(dn(), false) as usize][..3]);
            }
            'b' => {
                if d.month == 0 {
                    return None;
                }
                out.push_str(&MONTH_NAMES[(d.month as usize).clamp(1, 12) - 1][..3]);
            }
            'c' => out.push_str(&d.month.to_string()),
            'D' => {
                out.push_str(&d.day.to_string());
                out.push_str(suffix(d.day));
            }
            'd' => out.push_str(&format!("{:02}", d.day)),
            'e' => out.push_str(&d.day.to_string()),
            'f' => out.push_str(&format!("{:06}", d.micro)),
            'H' => out.push_str(&format!("{:02}", d.hour)),
            'h' | 'I' => out.push_str(&format!("{h12:02}")),
            'i' => out.push_str(&format!("{:02}", d.minute)),
            'j' => {
                if !valid {
                    return None;
                }
                out.push_str(&format!(
                    "{:03}",
                    dn() - temporal::daynr(d.year as u32, 1, 1) + 1
                ));
            }
            'k' => out.push_str(&d.hour.to_string()),
            'l' => out.push_str(&h12.to_string()),
            'M' => {
                if d.month == 0 {
                    return None;
                }
                out.push_str(MONTH_NAMES[(d.month as usize).clamp(1, 12) - 1]);
            }
            'm' => out.push_str(&format!("{:02}", d.month)),
            'p' => out.push_str(if d.hour < 12 { "AM" } else { "PM" }),
            'r' => out.push_str(&format!(
                "{h12:02}:{:02}:{:02} {}",
                d.minute,
                d.second,
                if d.hour < 12 { "AM" } else { "PM" }
            )),
            'S' | 's' => out.push_str(&format!("{:02}", d.second)),
            'T' => out.push_str(&format!("{:02}:{:02}:{:02}", d.hour, d.minute, d.second)),
            'U' | 'u' | 'V' | 'v' | 'X' | 'x' => {
                if !valid {
                    return None;
                }
                let bits = match f {
                    'U' => temporal::WEEK_FIRST_WEEKDAY,
                    'u' => temporal::WEEK_MONDAY_FIRST,
                    'V' | 'X' => temporal::WEEK_YEAR | temporal::WEEK_FIRST_WEEKDAY,
                    _ => temporal::WEEK_YEAR | temporal::WEEK_MONDAY_FIRST,
                };
                let (wk, yr) =
                    temporal::calc_week(d.year as u32, d.month as u32, d.day as u32, bits);
                if matches!(f, 'X' | 'x') {
                    out.push_str(&format!("{yr:04}"));
                } else {
                    out.push_str(&format!("{wk:02}"));
                }
            }
            'W' => {
                if !valid {
                    return None;
                }
                out.push_str(DAY_NAMES[temporal::weekday(dn(), false) as usize]);
            }
            'w' => {
                if !valid {
                    return None;
                }
                out.push_str(&temporal::weekday(dn(), true).to_string());
            }
            'Y' => out.push_str(&format!("{:04}", d.year)),
            'y' => out.push_str(&format!("{:02}", d.year % 100)),
            other => out.push(other),
        }
    }
    Some(out)
}

/// `TIME_FORMAT(t, fmt)`: hours may exceed 23 for `%H`/`%k`; date specifiers give NULL.
pub fn time_format(t: &Time, fmt: &str) -> Option<String> {
    let h = t.hour;
    let d = DateTime {
        hour: (h % 24) as u8,
        minute: t.minute,
        second: t.second,
        micro: t.micro,
        ..Default::default()
    };
    // Handle %H/%k (unbounded hours) ourselves, the rest through date_format.
    let mut out = String::new();
    if t.neg {
        out.push('-');
    }
    let mut rest = String::new();
    let mut it = fmt.chars().peekable();
    while let Some(c) = it.next() {
        if c == '%' {
            match it.peek() {
                Some('H') => {
                    it.next();
                    rest.push_str(&format!("{h:02}").replace('%', "%%"));
                    continue;
                }
                Some('k') => {
                    it.next();
                    rest.push_str(&h.to_string());
                    continue;
                }
                Some('h') | Some('I') | Some('l') | Some('r') | Some('p') => {
                    let f = it.next().unwrap_or('h');
                    let d12 = DateTime {
                        hour: (h % 24) as u8,
                        ..d
                    };
                    rest.push_str(&date_format(&d12, &format!("%{f}"), true)?);
                    continue;
                }
                _ => {}
            }
        }
        rest.push(c);
        if c == '%' {
            if let Some(n) = it.next() {
                rest.push(n);
            }
        }
    }
    out.push_str(&date_format(&d, &rest, true)?);
    Some(out)
}

struct StrDate {
    year: Option<u32>,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    micro: u32,
    pm: Option<bool>,
    yday: Option<u32>,
    has_date: bool,
    has_time: bool,
    has_frac: bool,
    hour12: bool,
}

fn take_num(b: &[u8], pos: &mut usize, max_digits: usize) -> Option<u32> {
    let st = *pos;
    while *pos < b.len() && *pos - st < max_digits && b[*pos].is_ascii_digit() {
        *pos += 1;
    }
    if *pos == st {
        return None;
    }
    std::str::from_utf8(&b[st..*pos]).ok()?.parse().ok()
}

fn take_name(b: &[u8], pos: &mut usize, names: &[&str], abbrev: bool) -> Option<u32> {
    let rest = &b[*pos..];
    for (i, n) in names.iter().enumerate() {
        let n = if abbrev { &n[..3] } else { n };
        if rest.len() >= n.len() && rest[..n.len()].eq_ignore_ascii_case(n.as_bytes()) {
            *pos += n.len();
            return Some(i as u32 + 1);
        }
    }
    None
}

fn parse_with_format(s: &str, fmt: &str) -> Option<(StrDate, bool)> {
    let b = s.as_bytes();
    let mut pos = 0;
    let mut r = StrDate {
        year: None,
        month: 0,
        day: 0,
        hour: 0,
        minute: 0,
        second: 0,
        micro: 0,
        pm: None,
        yday: None,
        has_date: false,
        has_time: false,
        has_frac: false,
        hour12: false,
    };
    let mut fi = fmt.chars().peekable();
    let skip_ws = |pos: &mut usize| {
        while *pos < b.len() && b[*pos].is_ascii_whitespace() {
            *pos += 1;
        }
    };
    while let Some(c) = fi.next() {
        if c.is_whitespace() {
            skip_ws(&mut pos);
            continue;
        }
        if c != '%' {
            skip_ws(&mut pos);
            let mut buf = [0u8; 4];
            let cb = c.encode_utf8(&mut buf).as_bytes();
            if b.len() < pos + cb.len() || &b[pos..pos + cb.len()] != cb {
                return None;
            }
            pos += cb.len();
            continue;
        }
        let f = fi.next()?;
        if f != '%' {
            skip_ws(&mut pos);
        }
        match f {
            'Y' => {
                let st = pos;
                let y = take_num(b, &mut pos, 4)?;
                r.year = Some(if pos - st <= 2 {
                    temporal::year_2digit(y)
                } else {
                    y
                });
                r.has_date = true;
            }
            'y' => {
                r.year = Some(temporal::year_2digit(take_num(b, &mut pos, 2)?));
                r.has_date = true;
            }
            'm' | 'c' => {
                r.month = take_num(b, &mut pos, 2)?;
                r.has_date = true;
            }
            'M' => {
                r.month = take_name(b, &mut pos, &MONTH_NAMES, false)?;
                r.has_date = true;
            }
            'b' => {
                r.month = take_name(b, &mut pos, &MONTH_NAMES, true)?;
                r.has_date = true;
            }
            'd' | 'e' => {
                r.day = take_num(b, &mut pos, 2)?;
                r.has_date = true;
            }
            'D' => {
                r.day = take_num(b, &mut pos, 2)?;
                if pos + 2 <= b.len() {
                    pos += 2;
                }
                r.has_date = true;
            }
            'j' => {
                r.yday = Some(take_num(b, &mut pos, 3)?);
                r.has_date = true;
            }
            'H' | 'k' => {
                r.hour = take_num(b, &mut pos, 2)?;
                r.has_time = true;
            }
            'h' | 'I' | 'l' => {
                r.hour = take_num(b, &mut pos, 2)?;
                r.hour12 = true;
                r.has_time = true;
            }
            'i' => {
                r.minute = take_num(b, &mut pos, 2)?;
                r.has_time = true;
            }
            's' | 'S' => {
                r.second = take_num(b, &mut pos, 2)?;
                r.has_time = true;
            }
            'f' => {
                let st = pos;
                let v = take_num(b, &mut pos, 6)?;
                r.micro = v * 10u32.pow(6 - (pos - st) as u32);
                r.has_frac = true;
                r.has_time = true;
            }
            'p' => {
                let rest = &b[pos..];
                if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"AM") {
                    r.pm = Some(false);
                } else if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"PM") {
                    r.pm = Some(true);
                } else {
                    return None;
                }
                pos += 2;
            }
            'T' | 'r' => {
                r.hour = take_num(b, &mut pos, 2)?;
                if b.get(pos) != Some(&b':') {
                    return None;
                }
                pos += 1;
                r.minute = take_num(b, &mut pos, 2)?;
                if b.get(pos) != Some(&b':') {
                    return None;
                }
                pos += 1;
                r.second = take_num(b, &mut pos, 2)?;
                r.has_time = true;
                if f == 'r' {
                    r.hour12 = true;
                    skip_ws(&mut pos);
                    let rest = &b[pos..];
                    if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"PM") {
                        r.pm = Some(true);
                        pos += 2;
                    } else if rest.len() >= 2 && rest[..2].eq_ignore_ascii_case(b"AM") {
                        r.pm = Some(false);
                        pos += 2;
                    } else {
                        return None;
                    }
                }
            }
            'W' => {
                take_name(b, &mut pos, &DAY_NAMES, false)?;
            }
            'a' => {
                take_name(b, &mut pos, &DAY_NAMES, true)?;
            }
            'w' => {
                take_num(b, &mut pos, 1)?;
            }
            'U' | 'u' | 'V' | 'v' => {
                take_num(b, &mut pos, 2)?;
            }
            'X' | 'x' => {
                take_num(b, &mut pos, 4)?;
            }
            '%' => {
                if b.get(pos) != Some(&b'%') {
                    return None;
                }
                pos += 1;
            }
            other => {
                let mut buf = [0u8; 4];
                let cb = other.encode_utf8(&mut buf).as_bytes();
                if b.len() < pos + cb.len() || &b[pos..pos + cb.len()] != cb {
                    return None;
                }
                pos += cb.len();
            }
        }
    }
    let trailing = b[pos..].iter().any(|c| !c.is_ascii_whitespace());
    Some((r, trailing))
}

/// `STR_TO_DATE(s, fmt)`: DATE, TIME or DATETIME depending on which parts `fmt` has; NULL with
/// warning 1411 when `s` does not match or gives an invalid date.
pub fn str_to_date(s: &str, fmt: &str, w: &mut Vec<Warning>) -> Value {
    let fail = |w: &mut Vec<Warning>| {
        w.push(wrong_value("datetime", s, "str_to_date"));
        Value::Null
    };
    let Some((r, trailing)) = parse_with_format(s, fmt) else {
        return fail(w);
    };
    let mut hour = r.hour;
    if r.hour12 {
        if hour > 12 || hour == 0 {
            return fail(w);
        }
        hour %= 12;
        if r.pm == Some(true) {
            hour += 12;
        }
    } else if r.pm == Some(true) && hour < 12 {
        hour += 12;
    }
    let year = r.year.unwrap_or(0);
    let (mut month, mut day) = (r.month, r.day);
    if let Some(yd) = r.yday {
        match temporal::from_daynr(temporal::daynr(year, 1, 1) + yd as i64 - 1) {
            Some((_, m, d)) if yd >= 1 => {
                month = m;
                day = d;
            }
            _ => return fail(w),
        }
    }
    let dt = DateTime {
        year: year as u16,
        month: month as u8,
        day: day as u8,
        hour: hour.min(255) as u8,
        minute: r.minute.min(255) as u8,
        second: r.second.min(255) as u8,
        micro: r.micro,
    };
    if year > 9999 || !temporal::check_datetime(&dt) {
        return fail(w);
    }
    if trailing {
        w.push(convert::truncated_warning("datetime", s));
    }
    let fsp = if r.has_frac { 6 } else { 0 };
    if r.has_date && !r.has_time {
        Value::Date(dt)
    } else if r.has_time && !r.has_date {
        Value::Time(
            Time {
                neg: false,
                hour: dt.hour as u32,
                minute: dt.minute,
                second: dt.second,
                micro: dt.micro,
            },
            fsp,
        )
    } else {
        Value::DateTime(dt, fsp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::call as c;

    fn ctx() -> FnCtx {
        FnCtx {
            now: DateTime {
                year: 2024,
                month: 3,
                day: 15,
                hour: 13,
                minute: 14,
                second: 15,
                micro: 123_456,
            },
            now_micros_utc: 1_710_508_455_123_456,
            ..FnCtx::default()
        }
    }

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    fn call1(name: &str, args: &[Value]) -> String {
        let mut ctx = ctx();
        c(name, args, &mut ctx, &mut vec![]).unwrap().to_string()
    }

    #[test]
    fn now_family() {
        assert_eq!(call1("NOW", &[]), "2024-03-15 13:14:15");
        assert_eq!(call1("NOW", &[Value::Int(3)]), "2024-03-15 13:14:15.123");
        assert_eq!(call1("CURDATE", &[]), "2024-03-15");
        assert_eq!(call1("CURTIME", &[]), "13:14:15");
        assert_eq!(call1("UTC_TIMESTAMP", &[]), "2024-03-15 13:14:15");
        assert_eq!(call1("UNIX_TIMESTAMP", &[]), "1710508455");
        let e = c("NOW", &[Value::Int(7)], &mut ctx(), &mut vec![]).unwrap_err();
        assert_eq!(
            e.msg,
            "Too-big precision 7 specified for 'now'. Maximum is 6."
        );
    }

    #[test]
    fn unix_time() {
        assert_eq!(
            call1("UNIX_TIMESTAMP", &[s("2015-11-13 10:20:19")]),
            "1447410019"
        );
        assert_eq!(
            call1("UNIX_TIMESTAMP", &[s("2015-11-13 10:20:19.012")]),
            "1447410019.012"
        );
        assert_eq!(
            call1("FROM_UNIXTIME", &[Value::Int(1447430881)]),
            "2015-11-13 16:08:01"
        );
        assert_eq!(
            call1(
                "FROM_UNIXTIME",
                &[Value::Int(1447430881), s("%Y %D %M %h:%i:%s %x")]
            ),
            "2015 13th November 04:08:01 2015"
        );
        let mut c2 = FnCtx {
            time_zone_offset_secs: 3600,
            ..ctx()
        };
        assert_eq!(
            c("FROM_UNIXTIME", &[Value::Int(0)], &mut c2, &mut vec![])
                .unwrap()
                .to_string(),
            "1970-01-01 01:00:00"
        );
        assert_eq!(
            c(
                "UNIX_TIMESTAMP",
                &[s("1970-01-01 01:00:00")],
                &mut c2,
                &mut vec![]
            )
            .unwrap(),
            Value::Int(0)
        );
    }

    #[test]
    fn extraction() {
        assert_eq!(call1("YEAR", &[s("1987-01-01")]), "1987");
        assert_eq!(call1("MONTH", &[s("2008-02-03")]), "2");
        assert_eq!(call1("DAYOFMONTH", &[s("2007-02-03")]), "3");
        assert_eq!(call1("HOUR", &[s("10:05:03")]), "10");
        assert_eq!(call1("HOUR", &[s("272:59:59")]), "272");
        assert_eq!(call1("MINUTE", &[s("2008-02-03 10:05:03")]), "5");
        assert_eq!(call1("SECOND", &[s("10:05:03")]), "3");
        assert_eq!(call1("MICROSECOND", &[s("12:00:00.123456")]), "123456");
        assert_eq!(
            call1("MICROSECOND", &[s("2019-12-31 23:59:59.000010")]),
            "10"
        );
        assert_eq!(call1("DAYOFWEEK", &[s("2007-02-03")]), "7");
        assert_eq!(call1("WEEKDAY", &[s("2008-02-03 22:23:00")]), "6");
        assert_eq!(call1("WEEKDAY", &[s("2007-11-06")]), "1");
        assert_eq!(call1("DAYOFYEAR", &[s("2007-02-03")]), "34");
        assert_eq!(call1("QUARTER", &[s("2008-04-01")]), "2");
        assert_eq!(call1("MONTHNAME", &[s("2008-02-03")]), "February");
        assert_eq!(call1("DAYNAME", &[s("2007-02-03")]), "Saturday");
        assert_eq!(call1("DATE", &[s("2003-12-31 01:02:03")]), "2003-12-31");
        assert_eq!(call1("TIME", &[s("2003-12-31 01:02:03")]), "01:02:03");
        assert_eq!(
            call1("TIME", &[s("2003-12-31 01:02:03.000123")]),
            "01:02:03.000123"
        );
        assert_eq!(call1("LAST_DAY", &[s("2003-02-05")]), "2003-02-28");
        assert_eq!(call1("LAST_DAY", &[s("2004-02-05")]), "2004-02-29");
        assert_eq!(call1("LAST_DAY", &[s("2003-03-32")]), "NULL");
    }

    #[test]
    fn weeks() {
        assert_eq!(call1("WEEK", &[s("2008-02-20")]), "7");
        assert_eq!(call1("WEEK", &[s("2008-02-20"), Value::Int(0)]), "7");
        assert_eq!(call1("WEEK", &[s("2008-02-20"), Value::Int(1)]), "8");
        assert_eq!(call1("WEEK", &[s("2008-12-31"), Value::Int(1)]), "53");
        assert_eq!(call1("YEAR", &[s("2000-01-01")]), "2000");
        assert_eq!(call1("WEEK", &[s("2000-01-01")]), "0");
        assert_eq!(call1("WEEK", &[s("2000-01-01"), Value::Int(2)]), "52");
        assert_eq!(call1("YEARWEEK", &[s("1987-01-01")]), "198652");
        assert_eq!(call1("WEEKOFYEAR", &[s("2008-02-20")]), "8");
    }

    #[test]
    fn day_numbers() {
        assert_eq!(call1("TO_DAYS", &[Value::Int(950501)]), "728779");
        assert_eq!(call1("TO_DAYS", &[s("2007-10-07")]), "733321");
        assert_eq!(call1("FROM_DAYS", &[Value::Int(730669)]), "2000-07-03");
        assert_eq!(call1("TO_SECONDS", &[Value::Int(950501)]), "62966505600");
        assert_eq!(
            call1("TO_SECONDS", &[s("2009-11-29 13:43:32")]),
            "63426721412"
        );
        assert_eq!(
            call1("DATEDIFF", &[s("2007-12-31 23:59:59"), s("2007-12-30")]),
            "1"
        );
        assert_eq!(
            call1("DATEDIFF", &[s("2010-11-30 23:59:59"), s("2010-12-31")]),
            "-31"
        );
        assert_eq!(
            call1("MAKEDATE", &[Value::Int(2011), Value::Int(31)]),
            "2011-01-31"
        );
        assert_eq!(
            call1("MAKEDATE", &[Value::Int(2011), Value::Int(32)]),
            "2011-02-01"
        );
        assert_eq!(
            call1("MAKEDATE", &[Value::Int(2011), Value::Int(365)]),
            "2011-12-31"
        );
        assert_eq!(
            call1("MAKEDATE", &[Value::Int(2014), Value::Int(365)]),
            "2014-12-31"
        );
        assert_eq!(
            call1("MAKEDATE", &[Value::Int(2011), Value::Int(0)]),
            "NULL"
        );
    }

    #[test]
    fn times() {
        assert_eq!(
            call1(
                "TIMEDIFF",
                &[s("2000-01-01 00:00:00"), s("2000-01-01 00:00:00.000001")]
            ),
            "-00:00:00.000001"
        );
        assert_eq!(
            call1(
                "TIMEDIFF",
                &[
                    s("2008-12-31 23:59:59.000001"),
                    s("2008-12-30 01:01:01.000002")
                ]
            ),
            "46:58:57.999999"
        );
        assert_eq!(
            call1(
                "MAKETIME",
                &[Value::Int(12), Value::Int(15), Value::Int(30)]
            ),
            "12:15:30"
        );
        assert_eq!(call1("SEC_TO_TIME", &[Value::Int(2378)]), "00:39:38");
        assert_eq!(call1("TIME_TO_SEC", &[s("22:23:00")]), "80580");
        assert_eq!(call1("TIME_TO_SEC", &[s("00:39:38")]), "2378");
        assert_eq!(
            call1(
                "ADDTIME",
                &[s("2007-12-31 23:59:59.999999"), s("1 1:1:1.000002")]
            ),
            "2008-01-02 01:01:01.000001"
        );
        assert_eq!(
            call1("ADDTIME", &[s("01:00:00.999999"), s("02:00:00.999998")]),
            "03:00:01.999997"
        );
        assert_eq!(
            call1("SUBTIME", &[s("01:00:00.999999"), s("02:00:00.999998")]),
            "-00:59:59.999999"
        );
        assert_eq!(
            call1("PERIOD_ADD", &[Value::Int(200801), Value::Int(2)]),
            "200803"
        );
        assert_eq!(
            call1("PERIOD_DIFF", &[Value::Int(200802), Value::Int(200703)]),
            "11"
        );
    }

    #[test]
    fn formatting() {
        let d = s("2009-10-04 22:23:00");
        assert_eq!(
            call1("DATE_FORMAT", &[d.clone(), s("%W %M %Y")]),
            "Sunday October 2009"
        );
        assert_eq!(
            call1("DATE_FORMAT", &[s("2007-10-04 22:23:00"), s("%H:%i:%s")]),
            "22:23:00"
        );
        assert_eq!(
            call1(
                "DATE_FORMAT",
                &[s("1900-10-04 22:23:00"), s("%D %y %a %d %m %b %j")]
            ),
            "4th 00 Thu 04 10 Oct 277"
        );
        assert_eq!(
            call1(
                "DATE_FORMAT",
                &[s("1997-10-04 22:23:00"), s("%H %k %I %r %T %S %w")]
            ),
            "22 22 10 10:23:00 PM 22:23:00 00 6"
        );
        assert_eq!(
            call1("DATE_FORMAT", &[s("1999-01-01"), s("%X %V")]),
            "1998 52"
        );
        assert_eq!(call1("DATE_FORMAT", &[s("2006-06-00"), s("%d")]), "00");
        assert_eq!(
            call1(
                "DATE_FORMAT",
                &[s("2024-01-02 03:04:05.6"), s("%f %% %e %c %l %p")]
            ),
            "600000 % 2 1 3 AM"
        );
        assert_eq!(
            call1("TIME_FORMAT", &[s("100:00:00"), s("%H %k %h %I %l")]),
            "100 100 04 04 4"
        );
        assert_eq!(
            call1("DATE_FORMAT", &[s("2024-01-11"), s("%D %D")]),
            "11th 11th"
        );
    }

    #[test]
    fn parsing() {
        assert_eq!(
            call1("STR_TO_DATE", &[s("01,5,2013"), s("%d,%m,%Y")]),
            "2013-05-01"
        );
        assert_eq!(
            call1("STR_TO_DATE", &[s("May 1, 2013"), s("%M %d,%Y")]),
            "2013-05-01"
        );
        assert_eq!(
            call1("STR_TO_DATE", &[s("a09:30:17"), s("a%h:%i:%s")]),
            "09:30:17"
        );
        assert_eq!(
            call1("STR_TO_DATE", &[s("a09:30:17"), s("%h:%i:%s")]),
            "NULL"
        );
        assert_eq!(
            call1("STR_TO_DATE", &[s("09:30:17a"), s("%h:%i:%s")]),
            "09:30:17"
        );
        assert_eq!(
            call1("STR_TO_DATE", &[s("abc"), s("abc")]),
            "0000-00-00 00:00:00"
        );
        assert_eq!(call1("STR_TO_DATE", &[s("9"), s("%m")]), "0000-09-00");
        assert_eq!(call1("STR_TO_DATE", &[s("9"), s("%s")]), "00:00:09");
        assert_eq!(
            call1("STR_TO_DATE", &[s("00/00/0000"), s("%m/%d/%Y")]),
            "0000-00-00"
        );
        assert_eq!(
            call1("STR_TO_DATE", &[s("04/31/2004"), s("%m/%d/%Y")]),
            "NULL"
        );
        assert_eq!(
            call1(
                "STR_TO_DATE",
                &[s("2024-01-02 10:11:12.5"), s("%Y-%m-%d %H:%i:%s.%f")]
            ),
            "2024-01-02 10:11:12.500000"
        );
        assert_eq!(
            call1("STR_TO_DATE", &[s("10:11 PM"), s("%h:%i %p")]),
            "22:11:00"
        );
        let mut w = vec![];
        assert_eq!(
            c("STR_TO_DATE", &[s("x"), s("%Y")], &mut ctx(), &mut w).unwrap(),
            Value::Null
        );
        assert_eq!(w[0].code, 1411);
        assert_eq!(
            w[0].msg,
            "Incorrect datetime value: 'x' for function str_to_date"
        );
    }

    #[test]
    fn diffs_and_adds() {
        assert_eq!(
            call1(
                "TIMESTAMPDIFF",
                &[s("MONTH"), s("2003-02-01"), s("2003-05-01")]
            ),
            "3"
        );
        assert_eq!(
            call1(
                "TIMESTAMPDIFF",
                &[s("YEAR"), s("2002-05-01"), s("2001-01-01")]
            ),
            "-1"
        );
        assert_eq!(
            call1(
                "TIMESTAMPDIFF",
                &[s("MINUTE"), s("2003-02-01"), s("2003-05-01 12:05:55")]
            ),
            "128885"
        );
        assert_eq!(
            call1(
                "TIMESTAMPDIFF",
                &[s("MONTH"), s("2024-01-31"), s("2024-02-29")]
            ),
            "0"
        );
        assert_eq!(
            call1(
                "TIMESTAMPADD",
                &[s("MINUTE"), Value::Int(1), s("2003-01-02")]
            ),
            "2003-01-02 00:01:00"
        );
        assert_eq!(
            call1("TIMESTAMPADD", &[s("WEEK"), Value::Int(1), s("2003-01-02")]),
            "2003-01-09"
        );
        assert_eq!(
            call1("DATE_ADD", &[s("2008-01-02"), Value::Int(31)]),
            "2008-02-02"
        );
        assert_eq!(
            call1("DATE_SUB", &[s("2008-01-02"), Value::Int(31), s("DAY")]),
            "2007-12-02"
        );
        assert!(c(
            "TIMESTAMPDIFF",
            &[s("FOO"), s("2003-02-01"), s("2003-05-01")],
            &mut ctx(),
            &mut vec![]
        )
        .is_err());
    }

    #[test]
    fn extract_convert_tz_get_format() {
        let mut ctx = FnCtx::default();
        let mut c = |name: &str, args: &[Value]| -> Value {
            crate::scalar::call(name, args, &mut ctx, &mut vec![]).unwrap()
        };
        let s = |x: &str| Value::Str(x.into());
        assert_eq!(
            c("EXTRACT", &[s("DAY_MINUTE"), s("2019-07-02 01:02:03")]),
            Value::Int(20102)
        );
        assert_eq!(
            c("EXTRACT", &[s("YEAR"), s("2019-07-02")]),
            Value::Int(2019)
        );
        assert_eq!(
            c("EXTRACT", &[s("YEAR_MONTH"), s("2019-07-02 01:02:03")]),
            Value::Int(201907)
        );
        assert_eq!(c("EXTRACT", &[s("HOUR"), s("-10:00:00")]), Value::Int(-10));
        assert_eq!(c("EXTRACT", &[s("WEEK"), s("2019-07-02")]), Value::Int(26));
        assert_eq!(
            c("EXTRACT", &[s("MICROSECOND"), s("10:00:00.5")]),
            Value::Int(500000)
        );
        assert_eq!(
            c(
                "EXTRACT",
                &[s("SECOND_MICROSECOND"), s("2003-01-02 10:30:00.000123")]
            ),
            Value::Int(123)
        );
        assert_eq!(c("EXTRACT", &[s("DAY"), Value::Null]), Value::Null);
        assert_eq!(
            c(
                "CONVERT_TZ",
                &[s("2004-01-01 12:00:00"), s("+00:00"), s("+10:00")]
            )
            .to_string(),
            "2004-01-01 22:00:00"
        );
        assert_eq!(
            c(
                "CONVERT_TZ",
                &[s("2004-01-01 12:00:00"), s("GMT"), s("MET")]
            )
            .to_string(),
            "2004-01-01 13:00:00"
        );
        assert_eq!(
            c(
                "CONVERT_TZ",
                &[
                    s("2021-07-01 12:00:00"),
                    s("europe/paris"),
                    s("America/New_York")
                ]
            )
            .to_string(),
            "2021-07-01 06:00:00"
        );
        assert_eq!(
            c(
                "CONVERT_TZ",
                &[s("2004-01-01 12:00:00"), s("+00:00"), s("Mars/Base")]
            ),
            Value::Null
        );
        assert_eq!(
            c(
                "CONVERT_TZ",
                &[s("2004-01-01 12:00:00"), s("+00:00"), s("+15:00")]
            ),
            Value::Null
        );
        // Outside the TIMESTAMP range: unchanged.
        assert_eq!(
            c(
                "CONVERT_TZ",
                &[s("1960-01-01 12:00:00"), s("+00:00"), s("+10:00")]
            )
            .to_string(),
            "1960-01-01 12:00:00"
        );
        assert_eq!(
            c("GET_FORMAT", &[s("DATE"), s("USA")]).to_string(),
            "%m.%d.%Y"
        );
        assert_eq!(
            c("GET_FORMAT", &[s("DATETIME"), s("JIS")]).to_string(),
            "%Y-%m-%d %H:%i:%s"
        );
        assert_eq!(
            c("GET_FORMAT", &[s("TIME"), s("EUR")]).to_string(),
            "%H.%i.%s"
        );
        assert_eq!(c("GET_FORMAT", &[s("DATE"), s("XX")]), Value::Null);
        assert_eq!(
            c("ADDTIME", &[s("2024-01-01"), s("01:00:00")]).to_string(),
            "2024-01-01 01:00:00"
        );
        assert_eq!(
            c("ADDTIME", &[s("10:00:00"), s("02:30:00")]).to_string(),
            "12:30:00"
        );
    }
}
