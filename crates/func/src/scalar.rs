//! Built-in scalar functions, called by upper-case name with evaluated arguments.
//!
//! NULL propagation follows MySQL: most functions return NULL when any argument is NULL; the
//! exceptions (CONCAT_WS, COALESCE, IFNULL, IF, NULLIF, ISNULL, ELT, FIELD, ...) are handled
//! individually. String functions work on characters for character strings and on bytes when
//! an argument is a binary string (`Value::Bytes`), whose results are binary too.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::OnceLock;

use common::codes::{self, ErrorCode};
use common::decimal::{Decimal, Rounding};
use common::time::DateTime;
use common::{Collation, Error, Result, Value, Warning};
use md5::Md5;
use rand::Rng;
use sha1::Sha1;
use sha2::{Digest, Sha224, Sha256, Sha384, Sha512};

use crate::arith::{self, ArithCtx, ArithOp};
use crate::compare;
use crate::convert;
use crate::datefn;
use crate::jsonfn;
use crate::pattern;

pub use crate::pattern::{like, like_bytes};

/// 3685 ER_REGEXP_ILLEGAL_ARGUMENT (not in `common::codes`).
pub const ER_REGEXP_ILLEGAL_ARGUMENT: ErrorCode = ErrorCode {
    num: 3685,
    sqlstate: "HY000",
    name: "ER_REGEXP_ILLEGAL_ARGUMENT",
};
/// 3020 ER_INVALID_ARGUMENT_FOR_LOGARITHM (not in `common::codes`).
pub const ER_INVALID_ARGUMENT_FOR_LOGARITHM: ErrorCode = ErrorCode {
    num: 3020,
    sqlstate: "2201E",
    name: "ER_INVALID_ARGUMENT_FOR_LOGARITHM",
};
/// 1301 ER_WARN_ALLOWED_PACKET_OVERFLOWED (not in `common::codes`).
pub const ER_WARN_ALLOWED_PACKET_OVERFLOWED: ErrorCode = ErrorCode {
    num: 1301,
    sqlstate: "HY000",
    name: "ER_WARN_ALLOWED_PACKET_OVERFLOWED",
};

/// MySQL's `my_rnd` generator behind `RAND()`, reproducing `RAND(N)` sequences exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MyRnd {
    seed1: u64,
    seed2: u64,
}

const RND_MAX: u64 = 0x3FFF_FFFF;

impl MyRnd {
    /// A generator from two raw seeds.
    pub fn new(seed1: u64, seed2: u64) -> Self {
        MyRnd {
            seed1: seed1 % RND_MAX,
            seed2: seed2 % RND_MAX,
        }
    }

    /// The generator `RAND(seed)` starts from.
    pub fn from_seed(seed: i64) -> Self {
        let s1 = (seed.wrapping_mul(0x10001).wrapping_add(55_555_555)) as u32;
        let s2 = (seed.wrapping_mul(0x1000_0001)) as u32;
        MyRnd::new(s1 as u64, s2 as u64)
    }

    /// The next value in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        self.seed1 = (self.seed1 * 3 + self.seed2) % RND_MAX;
        self.seed2 = (self.seed1 + self.seed2 + 33) % RND_MAX;
        self.seed1 as f64 / RND_MAX as f64
    }
}

/// Per-statement (and per-session) context of function evaluation.
#[derive(Debug, Clone)]
pub struct FnCtx {
    /// Statement start in the session time zone (NOW()).
    pub now: DateTime,
    /// Statement start as Unix microseconds (UTC).
    pub now_micros_utc: i64,
    /// The current database (DATABASE()), used in error messages.
    pub current_db: Option<String>,
    /// Connection collation: the collation of string results and string comparisons.
    pub collation: Collation,
    /// Session time zone offset from UTC in seconds.
    pub time_zone_offset_secs: i32,
    /// `@@div_precision_increment`.
    pub div_precision_increment: u8,
    /// `@@default_week_format` (WEEK() without a mode).
    pub default_week_format: u32,
    /// `@@max_allowed_packet`: string results longer than this are NULL with warning 1301.
    pub max_allowed_packet: u64,
    /// `@@server_id` (UUID_SHORT()).
    pub server_id: u32,
    /// Session generator for RAND() without a seed (seeded randomly on first use).
    pub rand: Option<MyRnd>,
    /// Generators of RAND(N), one per seed value, so successive rows continue the sequence.
    pub rand_seeded: HashMap<i64, MyRnd>,
    /// Compiled regular expressions by (pattern, flags).
    pub regex_cache: HashMap<(String, String), regex::Regex>,
    /// The session's connection id (CONNECTION_ID(), PS_CURRENT_THREAD_ID()).
    pub connection_id: u64,
}

impl Default for FnCtx {
    fn default() -> Self {
        FnCtx {
            now: DateTime::default(),
            now_micros_utc: 0,
            current_db: None,
            collation: Collation::default(),
            time_zone_offset_secs: 0,
            div_precision_increment: 4,
            default_week_format: 0,
            max_allowed_packet: 64 * 1024 * 1024,
            server_id: 1,
            rand: None,
            rand_seeded: HashMap::new(),
            regex_cache: HashMap::new(),
            connection_id: 0,
        }
    }
}

impl FnCtx {
    /// A context for a statement starting at Unix time `now_micros_utc` in a session whose time
    /// zone is `tz_offset_secs` east of UTC.
    pub fn at(now_micros_utc: i64, tz_offset_secs: i32) -> Self {
        let now =
            crate::temporal::unix_micros_to_dt(now_micros_utc + tz_offset_secs as i64 * 1_000_000)
                .unwrap_or_default();
        FnCtx {
            now,
            now_micros_utc,
            time_zone_offset_secs: tz_offset_secs,
            ..FnCtx::default()
        }
    }

    /// A context for "now" by the system clock.
    pub fn now_system(tz_offset_secs: i32) -> Self {
        FnCtx::at(chrono::Utc::now().timestamp_micros(), tz_offset_secs)
    }
}

/// Error 1582 for a wrong number of arguments.
pub fn arg_count_error(name: &str) -> Error {
    Error::new(
        codes::ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT,
        format!("Incorrect parameter count in the call to native function '{name}'"),
    )
}

/// The functions [`call`] evaluates itself (the rest are in [`arg_counts`]' table, the date and
/// time functions and the JSON functions).
const CALL_NAMES: &[&str] = &[
    "IF",
    "IFNULL",
    "NULLIF",
    "COALESCE",
    "ISNULL",
    "LIKE",
    "CONCAT_WS",
    "ELT",
    "FIELD",
    "GREATEST",
    "LEAST",
    "INTERVAL",
    "QUOTE",
    "CHAR",
    "RAND",
    "PI",
    "UUID",
    "UUID_SHORT",
    "DATABASE",
    "SCHEMA",
    "MAKE_SET",
    "ANY_VALUE",
    "NAME_CONST",
    "CHARSET",
    "COLLATION",
    "COERCIBILITY",
    "ICU_VERSION",
    "CURRENT_ROLE",
    "PS_CURRENT_THREAD_ID",
    "IS_IPV4",
    "IS_IPV6",
    "IS_IPV4_COMPAT",
    "IS_IPV4_MAPPED",
    "MASTER_POS_WAIT",
    "SOURCE_POS_WAIT",
    "WEIGHT_STRING",
];

/// True when `name` (upper case) is a built-in function [`call`] / [`call_in`] evaluate, so
/// the binder can reject an unknown one (1305) before any row is read, as MySQL does.
pub fn is_builtin(name: &str) -> bool {
    CALL_NAMES.contains(&name)
        || arg_counts(name).is_some()
        || datefn::NAMES.contains(&name)
        || jsonfn::takes_json(name)
        || name == jsonfn::MARK_JSON
        || name == jsonfn::MARK_BOOL
}

/// Error 1305 "FUNCTION db.name does not exist" (1046 without a current database).
pub fn unknown_function_error(name: &str, ctx: &FnCtx) -> Error {
    unknown_function(name, ctx)
}

fn unknown_function(name: &str, ctx: &FnCtx) -> Error {
    unknown_function_in(name, ctx.current_db.as_deref())
}

/// Error 1305 "FUNCTION db.name does not exist" for function `name` looked up in database `db`
/// (1046 "No database selected" without one).
pub fn unknown_function_in(name: &str, db: Option<&str>) -> Error {
    match db {
        Some(db) => Error::new(
            codes::ER_SP_DOES_NOT_EXIST,
            format!("FUNCTION {db}.{} does not exist", name.to_ascii_lowercase()),
        ),
        None => Error::no_db(),
    }
}

fn is_bin(args: &[Value]) -> bool {
    args.iter().any(|a| matches!(a, Value::Bytes(_)))
}

fn text(v: &Value) -> Cow<'_, str> {
    match v {
        Value::Str(s) => Cow::Borrowed(s.as_str()),
        Value::Bytes(b) => String::from_utf8_lossy(b),
        other => Cow::Owned(convert::to_string_value(other).unwrap_or_default()),
    }
}

fn bytes(v: &Value) -> Cow<'_, [u8]> {
    match v {
        Value::Str(s) => Cow::Borrowed(s.as_bytes()),
        Value::Bytes(b) => Cow::Borrowed(b.as_slice()),
        other => Cow::Owned(other.to_text().unwrap_or_default()),
    }
}

/// A string as units: characters (as code points) or bytes in binary mode.
fn units(v: &Value, bin: bool) -> Vec<u32> {
    if bin {
        bytes(v).iter().map(|b| *b as u32).collect()
    } else {
        text(v).chars().map(|c| c as u32).collect()
    }
}

fn from_units(u: &[u32], bin: bool) -> Value {
    if bin {
        Value::Bytes(u.iter().map(|x| *x as u8).collect())
    } else {
        Value::Str(u.iter().filter_map(|x| char::from_u32(*x)).collect())
    }
}

fn str_or_bytes(s: String, bin: bool) -> Value {
    if bin {
        Value::Bytes(s.into_bytes())
    } else {
        Value::Str(s)
    }
}

fn int_arg(v: &Value, w: &mut Vec<Warning>) -> i64 {
    convert::to_i64(v, w).unwrap_or(0)
}

fn too_big(name: &str, ctx: &FnCtx, w: &mut Vec<Warning>) -> Value {
    w.push(Warning::warn(
        ER_WARN_ALLOWED_PACKET_OVERFLOWED,
        format!(
            "Result of {}() was larger than max_allowed_packet ({}) - truncated",
            name.to_ascii_lowercase(),
            ctx.max_allowed_packet
        ),
    ));
    Value::Null
}

/// Collation-folded units for case-insensitive searching (LOCATE, INSTR).
fn folded(s: &str, coll: Collation) -> Vec<Vec<u8>> {
    s.chars()
        .map(|c| {
            let mut b = [0u8; 4];
            let cs = c.encode_utf8(&mut b);
            if coll.is_ci() && c != ' ' {
                common::collation::weight(coll, cs)
            } else {
                cs.as_bytes().to_vec()
            }
        })
        .collect()
}

fn find_units<T: PartialEq>(hay: &[T], needle: &[T], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return if from <= hay.len() { Some(from) } else { None };
    }
    if needle.len() > hay.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

/// Which evaluator a built-in function belongs to. The SQL layer decides it once, when a call
/// is bound ([`family`]), so a row's evaluation goes straight to it instead of searching the
/// date and JSON name lists first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Date and time functions.
    Date,
    /// JSON functions (their arguments' static kinds matter).
    Json,
    /// The SQL layer's type markers around JSON arguments: the value itself.
    Marker,
    /// Every other built-in.
    Scalar,
}

/// The evaluator of built-in function `name` (upper case).
pub fn family(name: &str) -> Family {
    if datefn::NAMES.contains(&name) {
        Family::Date
    } else if jsonfn::takes_json(name) {
        Family::Json
    } else if name == jsonfn::MARK_JSON || name == jsonfn::MARK_BOOL {
        Family::Marker
    } else {
        Family::Scalar
    }
}

/// Evaluates built-in function `name` of `family` on `args` whose static kinds the SQL layer
/// knows (JSON-typed or boolean arguments matter to the JSON functions).
pub fn call_in(
    family: Family,
    name: &str,
    args: &[Value],
    kinds: &[jsonfn::ArgKind],
    ctx: &mut FnCtx,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    match family {
        Family::Date => datefn::eval(name, args, ctx, w),
        Family::Json => jsonfn::call(name, args, kinds, ctx, w),
        Family::Marker => Ok(args.first().cloned().unwrap_or(Value::Null)),
        Family::Scalar => call_scalar(name, args, ctx, w),
    }
}

/// Evaluates built-in function `name` (upper case) on `args`.
pub fn call(name: &str, args: &[Value], ctx: &mut FnCtx, w: &mut Vec<Warning>) -> Result<Value> {
    call_in(family(name), name, args, &[], ctx, w)
}

/// Evaluates a built-in of [`Family::Scalar`].
fn call_scalar(name: &str, args: &[Value], ctx: &mut FnCtx, w: &mut Vec<Warning>) -> Result<Value> {
    let n = args.len();
    let need = |ok: bool| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(arg_count_error(name))
        }
    };
    let any_null = args.iter().any(Value::is_null);
    let coll = ctx.collation;
    let a = |i: usize| args.get(i).unwrap_or(&Value::Null);
    match name {
        // ---- control flow -------------------------------------------------------------
        "IF" => {
            need(n == 3)?;
            Ok(if convert::to_bool(a(0), w).unwrap_or(false) {
                a(1).clone()
            } else {
                a(2).clone()
            })
        }
        "IFNULL" => {
            need(n == 2)?;
            Ok(if a(0).is_null() {
                a(1).clone()
            } else {
                a(0).clone()
            })
        }
        "NULLIF" => {
            need(n == 2)?;
            Ok(
                if compare::compare(a(0), a(1), coll) == Some(Ordering::Equal) {
                    Value::Null
                } else {
                    a(0).clone()
                },
            )
        }
        "COALESCE" => {
            need(n >= 1)?;
            Ok(args
                .iter()
                .find(|v| !v.is_null())
                .cloned()
                .unwrap_or(Value::Null))
        }
        "ISNULL" => {
            need(n == 1)?;
            Ok(Value::Int(a(0).is_null() as i64))
        }
        "LIKE" => {
            need(n == 2 || n == 3)?;
            if any_null {
                return Ok(Value::Null);
            }
            let esc = if n == 3 {
                text(a(2)).chars().next().unwrap_or('\\')
            } else {
                '\\'
            };
            let r = if is_bin(args) {
                pattern::like_bytes(&bytes(a(0)), &bytes(a(1)), esc as u8)
            } else {
                pattern::like(&text(a(0)), &text(a(1)), esc, coll)
            };
            Ok(Value::Int(r as i64))
        }
        "CONCAT_WS" => {
            need(n >= 1)?;
            if a(0).is_null() {
                return Ok(Value::Null);
            }
            let bin = is_bin(args);
            let parts: Vec<Vec<u8>> = args[1..]
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| bytes(v).into_owned())
                .collect();
            let out = parts.join(bytes(a(0)).as_ref());
            Ok(if bin {
                Value::Bytes(out)
            } else {
                Value::Str(String::from_utf8_lossy(&out).into_owned())
            })
        }
        "ELT" => {
            need(n >= 2)?;
            let i = match convert::to_i64(a(0), w) {
                Some(i) => i,
                None => return Ok(Value::Null),
            };
            if i < 1 || i as usize >= n {
                return Ok(Value::Null);
            }
            Ok(match &args[i as usize] {
                Value::Null => Value::Null,
                Value::Bytes(b) => Value::Bytes(b.clone()),
                v => Value::Str(text(v).into_owned()),
            })
        }
        "FIELD" => {
            need(n >= 2)?;
            if a(0).is_null() {
                return Ok(Value::Int(0));
            }
            let all_str = args
                .iter()
                .all(|v| matches!(v, Value::Str(_) | Value::Bytes(_) | Value::Null));
            for (i, v) in args.iter().enumerate().skip(1) {
                if v.is_null() {
                    continue;
                }
                let eq = if all_str {
                    compare::compare(a(0), v, coll) == Some(Ordering::Equal)
                } else {
                    let x = convert::to_f64(a(0), &mut Vec::new());
                    let y = convert::to_f64(v, &mut Vec::new());
                    x == y
                };
                if eq {
                    return Ok(Value::Int(i as i64));
                }
            }
            Ok(Value::Int(0))
        }
        "GREATEST" | "LEAST" => {
            need(n >= 2)?;
            if any_null {
                return Ok(Value::Null);
            }
            greatest(args, name == "GREATEST", coll, w)
        }
        "INTERVAL" => {
            need(n >= 2)?;
            if a(0).is_null() {
                return Ok(Value::Int(-1));
            }
            let x = convert::to_f64(a(0), w).unwrap_or(0.0);
            let mut r = 0;
            for (i, v) in args.iter().enumerate().skip(1) {
                match convert::to_f64(v, w) {
                    Some(y) if x >= y => r = i as i64,
                    Some(_) => break,
                    None => {}
                }
            }
            Ok(Value::Int(r))
        }
        "QUOTE" => {
            need(n == 1)?;
            if a(0).is_null() {
                return Ok(Value::Str("NULL".into()));
            }
            let b = bytes(a(0));
            let mut out = Vec::with_capacity(b.len() + 2);
            out.push(b'\'');
            for &c in b.iter() {
                match c {
                    b'\\' => out.extend_from_slice(b"\\\\"),
                    b'\'' => out.extend_from_slice(b"\\'"),
                    0 => out.extend_from_slice(b"\\0"),
                    0x1a => out.extend_from_slice(b"\\Z"),
                    c => out.push(c),
                }
            }
            out.push(b'\'');
            Ok(if is_bin(args) {
                Value::Bytes(out)
            } else {
                Value::Str(String::from_utf8_lossy(&out).into_owned())
            })
        }
        "CHAR" => {
            need(n >= 1)?;
            let mut out = Vec::new();
            for v in args {
                let Some(x) = convert::to_u64(v, w) else {
                    continue;
                };
                let x = x as u32;
                let be = x.to_be_bytes();
                let first = be.iter().position(|b| *b != 0).unwrap_or(3);
                out.extend_from_slice(&be[first..]);
            }
            Ok(Value::Bytes(out))
        }
        "RAND" => {
            need(n <= 1)?;
            if n == 1 {
                let seed = convert::to_i64(a(0), w).unwrap_or(0);
                let g = ctx
                    .rand_seeded
                    .entry(seed)
                    .or_insert_with(|| MyRnd::from_seed(seed));
                return Ok(Value::Double(g.next_f64()));
            }
            let g = ctx.rand.get_or_insert_with(|| {
                let mut r = rand::thread_rng();
                MyRnd::new(r.gen::<u32>() as u64, r.gen::<u32>() as u64)
            });
            Ok(Value::Double(g.next_f64()))
        }
        "PI" => {
            need(n == 0)?;
            Ok(Value::Double(std::f64::consts::PI))
        }
        "UUID" => {
            need(n == 0)?;
            Ok(Value::Str(uuid_v1()))
        }
        "UUID_SHORT" => {
            need(n == 0)?;
            Ok(Value::UInt(uuid_short(ctx.server_id)))
        }
        "DATABASE" | "SCHEMA" => {
            need(n == 0)?;
            Ok(ctx.current_db.clone().map_or(Value::Null, Value::Str))
        }
        "MAKE_SET" => {
            need(n >= 2)?;
            let Some(bits) = convert::to_u64(a(0), w) else {
                return Ok(Value::Null);
            };
            let mut parts: Vec<Vec<u8>> = Vec::new();
            for (i, v) in args[1..].iter().enumerate().take(64) {
                if bits >> i & 1 == 1 && !v.is_null() {
                    parts.push(bytes(v).into_owned());
                }
            }
            let out = parts.join(&b","[..]);
            Ok(if is_bin(&args[1..]) {
                Value::Bytes(out)
            } else {
                Value::Str(String::from_utf8_lossy(&out).into_owned())
            })
        }
        "ANY_VALUE" => {
            need(n == 1)?;
            Ok(a(0).clone())
        }
        "NAME_CONST" => {
            need(n == 2)?;
            Ok(a(1).clone())
        }
        "CHARSET" | "COLLATION" => {
            need(n == 1)?;
            let c = match a(0) {
                Value::Str(_) => coll,
                _ => Collation::Binary,
            };
            Ok(Value::Str(if name == "CHARSET" {
                charset_of(c).into()
            } else {
                c.name().into()
            }))
        }
        "COERCIBILITY" => {
            need(n == 1)?;
            Ok(Value::Int(match a(0) {
                Value::Null => 6,
                Value::Str(_) | Value::Bytes(_) => 4,
                _ => 5,
            }))
        }
        "ICU_VERSION" => {
            need(n == 0)?;
            Ok(Value::Str(ICU_VERSION.into()))
        }
        "CURRENT_ROLE" => {
            need(n == 0)?;
            Ok(Value::Str("NONE".into()))
        }
        "PS_CURRENT_THREAD_ID" => {
            need(n == 0)?;
            Ok(Value::UInt(ctx.connection_id))
        }
        "IS_IPV4" | "IS_IPV6" | "IS_IPV4_COMPAT" | "IS_IPV4_MAPPED" => {
            need(n == 1)?;
            let r = match a(0) {
                Value::Str(_) | Value::Bytes(_) => match name {
                    "IS_IPV4" => parse_ipv4(&text(a(0))).is_some(),
                    "IS_IPV6" => text(a(0)).parse::<std::net::Ipv6Addr>().is_ok(),
                    _ => {
                        let b = bytes(a(0));
                        b.len() == 16
                            && if name == "IS_IPV4_COMPAT" {
                                b[..12].iter().all(|x| *x == 0)
                                    && u32::from_be_bytes([b[12], b[13], b[14], b[15]]) > 1
                            } else {
                                b[..10].iter().all(|x| *x == 0) && b[10] == 0xFF && b[11] == 0xFF
                            }
                    }
                },
                _ => false,
            };
            Ok(Value::Int(r as i64))
        }
        "WEIGHT_STRING" => Ok(crate::weight::weight_string(a(0), &weight_arg(args, coll))),
        "MASTER_POS_WAIT" | "SOURCE_POS_WAIT" => {
            // Strata has no replication: as on a MySQL server that is not a replica, NULL.
            need((2..=4).contains(&n))?;
            Ok(Value::Null)
        }
        _ => {
            if any_null {
                // Still validate the argument count of known functions.
                return match arg_counts(name) {
                    Some((lo, hi)) if n < lo || n > hi => Err(arg_count_error(name)),
                    Some(_) => Ok(Value::Null),
                    None => Err(unknown_function(name, ctx)),
                };
            }
            if let Some((lo, hi)) = arg_counts(name) {
                need(n >= lo && n <= hi)?;
            }
            call_strict(name, args, ctx, w)
        }
    }
}

/// WEIGHT_STRING's typing, which the binder appends to its argument as literals
/// (`[expr, collation name, integer width, 'CHAR' | 'BINARY' | '', n]`); a call without them
/// (a bare `WEIGHT_STRING(expr)` evaluated outside the binder) uses the connection collation.
fn weight_arg(args: &[Value], coll: Collation) -> crate::weight::WeightArg {
    use crate::weight::{WeightArg, WeightAs};
    let text = |i: usize| match args.get(i) {
        Some(Value::Str(s)) => s.as_str(),
        _ => "",
    };
    let num = |i: usize| match args.get(i) {
        Some(Value::Int(n)) => *n as usize,
        Some(Value::UInt(n)) => *n as usize,
        _ => 0,
    };
    WeightArg {
        collation: Collation::from_name(text(1)).unwrap_or(coll),
        int_bytes: match num(2) {
            n @ 1..=8 => n as u8,
            _ => 8,
        },
        as_: match text(3) {
            "CHAR" => Some(WeightAs::Char(num(4))),
            "BINARY" => Some(WeightAs::Binary(num(4))),
            _ => None,
        },
    }
}

/// Argument-count bounds (least, most) of the NULL-propagating functions handled by
/// `call_strict`; `None` for other names (unknown ones, and those that check their own count).
/// The binder checks a call's count against it before any row is read.
pub fn arg_counts(name: &str) -> Option<(usize, usize)> {
    const MANY: usize = usize::MAX;
    Some(match name {
        "CONCAT" => (1, MANY),
        "LENGTH"
        | "OCTET_LENGTH"
        | "CHAR_LENGTH"
        | "CHARACTER_LENGTH"
        | "BIT_LENGTH"
        | "UPPER"
        | "UCASE"
        | "LOWER"
        | "LCASE"
        | "REVERSE"
        | "LTRIM"
        | "RTRIM"
        | "SPACE"
        | "ASCII"
        | "ORD"
        | "HEX"
        | "UNHEX"
        | "ABS"
        | "CEIL"
        | "CEILING"
        | "FLOOR"
        | "SQRT"
        | "EXP"
        | "LN"
        | "LOG2"
        | "LOG10"
        | "SIGN"
        | "CRC32"
        | "MD5"
        | "SHA1"
        | "SHA"
        | "INET_ATON"
        | "INET_NTOA"
        | "BIT_COUNT"
        | "BIN"
        | "OCT"
        | "IS_UUID"
        | "SIN"
        | "COS"
        | "TAN"
        | "ASIN"
        | "ACOS"
        | "COT"
        | "DEGREES"
        | "RADIANS"
        | "INET6_ATON"
        | "INET6_NTOA"
        | "SOUNDEX"
        | "TO_BASE64"
        | "FROM_BASE64"
        | "COMPRESS"
        | "UNCOMPRESS"
        | "UNCOMPRESSED_LENGTH"
        | "RANDOM_BYTES"
        | "FORMAT_BYTES"
        | "FORMAT_PICO_TIME"
        | "VALIDATE_PASSWORD_STRENGTH"
        | "PS_THREAD_ID" => (1, 1),
        "EXPORT_SET" => (3, 5),
        "AES_ENCRYPT" | "AES_DECRYPT" => (2, 6),
        "GTID_SUBSET" | "GTID_SUBTRACT" => (2, 2),
        "TRIM" => (1, 3),
        "SUBSTRING" | "SUBSTR" | "MID" => (2, 3),
        "SUBSTRING_INDEX" | "REPLACE" | "LPAD" | "RPAD" => (3, 3),
        "LEFT" | "RIGHT" | "REPEAT" | "STRCMP" | "FIND_IN_SET" | "INSTR" | "POW" | "POWER"
        | "MOD" | "ATAN2" => (2, 2),
        "LOCATE" => (2, 3),
        "POSITION" => (2, 2),
        "FORMAT" => (2, 3),
        "INSERT" => (4, 4),
        "ROUND" | "TRUNCATE" => (1, 2),
        "LOG" | "ATAN" => (1, 2),
        "CONV" => (3, 3),
        "SHA2" => (2, 2),
        "UUID_TO_BIN" | "BIN_TO_UUID" => (1, 2),
        "REGEXP_LIKE" => (2, 3),
        "REGEXP_INSTR" => (2, 6),
        "REGEXP_SUBSTR" => (2, 5),
        "REGEXP_REPLACE" => (3, 6),
        _ => return None,
    })
}

fn greatest(args: &[Value], max: bool, coll: Collation, w: &mut Vec<Warning>) -> Result<Value> {
    let all_str = args
        .iter()
        .all(|v| matches!(v, Value::Str(_) | Value::Bytes(_)));
    let all_int = args
        .iter()
        .all(|v| matches!(v, Value::Int(_) | Value::UInt(_)));
    let all_exact = args
        .iter()
        .all(|v| matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_)));
    let all_temporal = args.iter().all(|v| {
        matches!(
            v,
            Value::Date(_) | Value::DateTime(..) | Value::Time(..) | Value::Str(_)
        )
    }) && args
        .iter()
        .any(|v| matches!(v, Value::Date(_) | Value::DateTime(..) | Value::Time(..)));
    let pick = |vals: &[Value], cmp: &dyn Fn(&Value, &Value) -> Ordering| -> usize {
        let mut best = 0;
        for i in 1..vals.len() {
            let o = cmp(&vals[i], &vals[best]);
            if (max && o == Ordering::Greater) || (!max && o == Ordering::Less) {
                best = i;
            }
        }
        best
    };
    if all_str || all_int || all_exact || all_temporal {
        let i = pick(args, &|x, y| {
            compare::compare(x, y, coll).unwrap_or(Ordering::Equal)
        });
        if all_exact && !all_int {
            // DECIMAL result with the largest scale of the arguments (GREATEST(1, 2.5, 3) = 3.0).
            let scale = args
                .iter()
                .map(|v| match v {
                    Value::Decimal(d) => d.scale(),
                    _ => 0,
                })
                .max()
                .unwrap_or(0);
            let mut d = convert::to_decimal(&args[i], w).unwrap_or_default();
            d.rescale(scale);
            return Ok(Value::Decimal(d));
        }
        if all_int
            && args.iter().any(|v| matches!(v, Value::UInt(_)))
            && args.iter().any(|v| matches!(v, Value::Int(_)))
        {
            // Mixed signedness: MySQL returns DECIMAL.
            return Ok(Value::Decimal(
                convert::to_decimal(&args[i], w).unwrap_or_default(),
            ));
        }
        return Ok(args[i].clone());
    }
    let nums: Vec<f64> = args
        .iter()
        .map(|v| convert::to_f64(v, w).unwrap_or(0.0))
        .collect();
    let mut best = nums[0];
    for x in &nums[1..] {
        if (max && *x > best) || (!max && *x < best) {
            best = *x;
        }
    }
    Ok(Value::Double(best))
}

fn round_f64(v: f64, d: i64, truncate: bool) -> f64 {
    let neg = d < 0;
    let ad = d.unsigned_abs().min(400) as i32;
    let tmp = 10f64.powi(ad);
    if neg && tmp.is_infinite() {
        return 0.0;
    }
    let (scaled, back): (f64, Box<dyn Fn(f64) -> f64>) = if neg {
        (v / tmp, Box::new(move |x| x * tmp))
    } else {
        (v * tmp, Box::new(move |x| x / tmp))
    };
    if !neg && scaled.is_infinite() {
        return v;
    }
    let r = if truncate {
        if v >= 0.0 {
            scaled.floor()
        } else {
            scaled.ceil()
        }
    } else {
        scaled.round_ties_even()
    };
    back(r)
}

fn round_decimal(d: Decimal, places: i64, truncate: bool) -> Decimal {
    let mode = if truncate {
        Rounding::Truncate
    } else {
        Rounding::HalfUp
    };
    let places = places.clamp(
        -(common::decimal::MAX_DIGITS as i64) - 1,
        MAX_DEC_SCALE as i64,
    );
    d.round_to(places, mode)
}

/// The largest scale ROUND/TRUNCATE give a DECIMAL result.
const MAX_DEC_SCALE: u32 = common::decimal::MAX_SCALE;

fn round_int(i: i128, places: i64, truncate: bool) -> i128 {
    if places >= 0 {
        return i;
    }
    let k = (-places).min(38) as u32;
    if k > 20 {
        return 0;
    }
    let f = 10i128.pow(k);
    let q = i / f;
    let r = i % f;
    let q = if !truncate && r.abs() * 2 >= f {
        q + i.signum()
    } else {
        q
    };
    q * f
}

fn hex_upper(b: &[u8]) -> String {
    hex::encode_upper(b)
}

fn conv(s: &str, from: i64, to: i64) -> Option<String> {
    let (fa, ta) = (from.unsigned_abs(), to.unsigned_abs());
    if !(2..=36).contains(&fa) || !(2..=36).contains(&ta) {
        return None;
    }
    let t = s.trim_start();
    let (neg, body) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let mut v: u64 = 0;
    let mut overflow = false;
    for c in body.chars() {
        let Some(d) = c.to_digit(36) else { break };
        if d as u64 >= fa {
            break;
        }
        match v.checked_mul(fa).and_then(|x| x.checked_add(d as u64)) {
            Some(x) => v = x,
            None => {
                overflow = true;
                break;
            }
        }
    }
    if overflow {
        v = u64::MAX;
    }
    let mut val: u64 = if neg {
        (v as i64).wrapping_neg() as u64
    } else {
        v
    };
    if from < 0 && !neg && v > i64::MAX as u64 && overflow {
        val = i64::MAX as u64;
    }
    let (out_neg, mut mag) = if to < 0 && (val as i64) < 0 {
        (true, (val as i64).unsigned_abs())
    } else {
        (false, val)
    };
    if mag == 0 {
        return Some("0".into());
    }
    let mut digits = Vec::new();
    while mag > 0 {
        let d = (mag % ta) as u32;
        digits.push(
            std::char::from_digit(d, 36)
                .unwrap_or('0')
                .to_ascii_uppercase(),
        );
        mag /= ta;
    }
    if out_neg {
        digits.push('-');
    }
    Some(digits.iter().rev().collect())
}

fn format_number(v: &Value, d: i64, w: &mut Vec<Warning>) -> String {
    let d = d.clamp(0, 30);
    let num = match v {
        Value::Double(_) | Value::Float(_) | Value::Str(_) | Value::Bytes(_) => {
            let f = convert::to_f64(v, w).unwrap_or(0.0);
            convert::f64_to_decimal(round_f64(f, d, false)).unwrap_or_default()
        }
        other => convert::to_decimal(other, w).unwrap_or_default(),
    };
    let r = round_decimal(num, d, false);
    let s = r.abs().to_string();
    let (ip, fp) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), f.to_string()),
        None => (s.clone(), String::new()),
    };
    let mut grouped = String::new();
    for (k, c) in ip.chars().enumerate() {
        if k > 0 && (ip.len() - k) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let mut out = String::new();
    if r.is_sign_negative() && !r.is_zero() {
        out.push('-');
    }
    out.push_str(&grouped);
    if d > 0 {
        out.push('.');
        let mut f = fp;
        while (f.len() as i64) < d {
            f.push('0');
        }
        out.push_str(&f);
    }
    out
}

/// MySQL's INET_ATON: digits and dots only, each group at most 255, no trailing dot; short
/// forms ('127.1') are padded as MySQL pads them, extra groups shift further left.
fn inet_aton(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() || b.last() == Some(&b'.') {
        return None;
    }
    let mut result: u64 = 0;
    let mut group: u64 = 0;
    let mut dots = 0;
    for &c in b {
        match c {
            b'0'..=b'9' => {
                group = group * 10 + (c - b'0') as u64;
                if group > 255 {
                    return None;
                }
            }
            b'.' => {
                dots += 1;
                result = (result << 8).wrapping_add(group);
                group = 0;
            }
            _ => return None,
        }
    }
    match dots {
        1 => result <<= 16,
        2 => result <<= 8,
        _ => {}
    }
    Some((result << 8).wrapping_add(group))
}

fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let t = if s.len() == 38 && s.starts_with('{') && s.ends_with('}') {
        &s[1..37]
    } else {
        s
    };
    let hexs: String = if t.len() == 36 {
        let b = t.as_bytes();
        if b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
            return None;
        }
        t.chars().filter(|c| *c != '-').collect()
    } else if t.len() == 32 {
        t.to_string()
    } else {
        return None;
    };
    let v = hex::decode(hexs).ok()?;
    v.try_into().ok()
}

fn format_uuid(b: &[u8]) -> String {
    let h = hex::encode(b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

struct UuidState {
    node: [u8; 6],
    clock_seq: u16,
    last: AtomicU64,
}

fn uuid_state() -> &'static UuidState {
    static S: OnceLock<UuidState> = OnceLock::new();
    S.get_or_init(|| {
        let mut r = rand::thread_rng();
        let mut node = [0u8; 6];
        r.fill(&mut node);
        node[0] |= 0x01; // multicast bit: a random, not hardware, node id (RFC 4122 §4.5)
        UuidState {
            node,
            clock_seq: r.gen::<u16>() & 0x3FFF,
            last: AtomicU64::new(0),
        }
    })
}

/// A version-1 UUID: 100 ns ticks since 1582-10-15, random clock sequence and node.
pub fn uuid_v1() -> String {
    let st = uuid_state();
    let unix_100ns = (chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0) / 100) as u64;
    let mut ts = unix_100ns + 0x01B2_1DD2_1381_4000;
    // Strictly increasing, so two calls in one tick still differ.
    loop {
        let prev = st.last.load(AtomicOrdering::SeqCst);
        let next = ts.max(prev + 1);
        if st
            .last
            .compare_exchange(prev, next, AtomicOrdering::SeqCst, AtomicOrdering::SeqCst)
            .is_ok()
        {
            ts = next;
            break;
        }
    }
    let time_low = (ts & 0xFFFF_FFFF) as u32;
    let time_mid = ((ts >> 32) & 0xFFFF) as u16;
    let time_hi = (((ts >> 48) & 0x0FFF) as u16) | 0x1000;
    let cs = st.clock_seq | 0x8000;
    let mut b = Vec::with_capacity(16);
    b.extend_from_slice(&time_low.to_be_bytes());
    b.extend_from_slice(&time_mid.to_be_bytes());
    b.extend_from_slice(&time_hi.to_be_bytes());
    b.extend_from_slice(&cs.to_be_bytes());
    b.extend_from_slice(&st.node);
    format_uuid(&b)
}

fn uuid_short(server_id: u32) -> u64 {
    static COUNTER: OnceLock<AtomicU64> = OnceLock::new();
    let c = COUNTER.get_or_init(|| {
        let start = chrono::Utc::now().timestamp().max(0) as u64;
        AtomicU64::new(((server_id as u64 & 255) << 56) | (start << 24))
    });
    c.fetch_add(1, AtomicOrdering::SeqCst)
}

fn regex_for(ctx: &mut FnCtx, pat: &str, mt: &str) -> Result<regex::Regex> {
    let key = (pat.to_string(), format!("{}{}", mt, ctx.collation.is_ci()));
    if let Some(r) = ctx.regex_cache.get(&key) {
        return Ok(r.clone());
    }
    let r = pattern::build_regex(pat, ctx.collation, mt).map_err(|_| {
        Error::new(
            ER_REGEXP_ILLEGAL_ARGUMENT,
            "Illegal argument to a regular expression.",
        )
    })?;
    if ctx.regex_cache.len() > 64 {
        ctx.regex_cache.clear();
    }
    ctx.regex_cache.insert(key, r.clone());
    Ok(r)
}

/// Byte offset of 1-based character position `pos` in `s` (None if beyond the end + 1).
fn char_offset(s: &str, pos: i64) -> Option<usize> {
    if pos < 1 {
        return None;
    }
    let p = (pos - 1) as usize;
    if p == 0 {
        return Some(0);
    }
    match s.char_indices().nth(p) {
        Some((i, _)) => Some(i),
        None if s.chars().count() == p => Some(s.len()),
        None => None,
    }
}

fn log_warning(w: &mut Vec<Warning>) -> Value {
    w.push(Warning::warn(
        ER_INVALID_ARGUMENT_FOR_LOGARITHM,
        "Invalid argument for logarithm",
    ));
    Value::Null
}

fn double_result(name: &str, args: &[Value], f: f64) -> Result<Value> {
    if f.is_finite() {
        Ok(Value::Double(f))
    } else {
        let a: Vec<String> = args.iter().map(|v| v.to_string()).collect();
        Err(Error::new(
            codes::ER_DATA_OUT_OF_RANGE,
            format!(
                "DOUBLE value is out of range in '{}({})'",
                name.to_ascii_lowercase(),
                a.join(",")
            ),
        ))
    }
}

/// Functions that return NULL when any argument is NULL; arguments are all non-NULL here.
fn call_strict(name: &str, args: &[Value], ctx: &mut FnCtx, w: &mut Vec<Warning>) -> Result<Value> {
    let n = args.len();
    let a = |i: usize| args.get(i).unwrap_or(&Value::Null);
    let coll = ctx.collation;
    let bin = is_bin(args);
    let f = |i: usize, w: &mut Vec<Warning>| convert::to_f64(a(i), w).unwrap_or(0.0);
    Ok(match name {
        // ---- strings ------------------------------------------------------------------
        "CONCAT" => {
            let mut out = Vec::new();
            for v in args {
                out.extend_from_slice(&bytes(v));
            }
            if bin {
                Value::Bytes(out)
            } else {
                Value::Str(String::from_utf8_lossy(&out).into_owned())
            }
        }
        "LENGTH" | "OCTET_LENGTH" => Value::Int(bytes(a(0)).len() as i64),
        "BIT_LENGTH" => Value::Int(bytes(a(0)).len() as i64 * 8),
        "CHAR_LENGTH" | "CHARACTER_LENGTH" => Value::Int(units(a(0), bin).len() as i64),
        "UPPER" | "UCASE" => match a(0) {
            Value::Bytes(b) => Value::Bytes(b.clone()),
            v => Value::Str(map_case(&text(v), true)),
        },
        "LOWER" | "LCASE" => match a(0) {
            Value::Bytes(b) => Value::Bytes(b.clone()),
            v => Value::Str(map_case(&text(v), false)),
        },
        "REVERSE" => {
            let mut u = units(a(0), bin);
            u.reverse();
            from_units(&u, bin)
        }
        "SUBSTRING" | "SUBSTR" | "MID" => {
            let u = units(a(0), bin);
            let pos = int_arg(a(1), w);
            let len = if n == 3 { int_arg(a(2), w) } else { i64::MAX };
            let l = u.len() as i64;
            if pos == 0 || len <= 0 || pos > l || -pos > l {
                return Ok(from_units(&[], bin));
            }
            let start = if pos > 0 { pos - 1 } else { l + pos };
            let end = start.saturating_add(len).min(l);
            from_units(&u[start as usize..end as usize], bin)
        }
        "LEFT" | "RIGHT" => {
            let u = units(a(0), bin);
            let k = int_arg(a(1), w).clamp(0, u.len() as i64) as usize;
            if name == "LEFT" {
                from_units(&u[..k], bin)
            } else {
                from_units(&u[u.len() - k..], bin)
            }
        }
        "SUBSTRING_INDEX" => {
            let s = bytes(a(0));
            let d = bytes(a(1));
            let count = int_arg(a(2), w);
            if d.is_empty() || count == 0 {
                return Ok(str_or_bytes(String::new(), bin));
            }
            let out: &[u8] = if count > 0 {
                let mut i = 0;
                let mut left = count;
                loop {
                    match find_units(&s, &d, i) {
                        Some(p) if left == 1 => break &s[..p],
                        Some(p) => {
                            left -= 1;
                            i = p + d.len();
                        }
                        None => break &s,
                    }
                }
            } else {
                // MySQL counts a negative `count` from the right, searching backwards, so
                // overlapping candidates resolve from the end: ('aaaaaaaaa1', 'aa', -1) is '1'
                let mut end = s.len();
                let mut left = count.unsigned_abs();
                loop {
                    match s[..end].windows(d.len()).rposition(|w| w == &d[..]) {
                        Some(p) if left == 1 => break &s[p + d.len()..],
                        Some(p) => {
                            left -= 1;
                            end = p;
                        }
                        None => break &s,
                    }
                }
            };
            if bin {
                Value::Bytes(out.to_vec())
            } else {
                Value::Str(String::from_utf8_lossy(out).into_owned())
            }
        }
        "LPAD" | "RPAD" => {
            let u = units(a(0), bin);
            let len = int_arg(a(1), w);
            let pad = units(a(2), bin);
            if len < 0 {
                return Ok(Value::Null);
            }
            if len as u64 > ctx.max_allowed_packet {
                return Ok(too_big(name, ctx, w));
            }
            let len = len as usize;
            if u.len() >= len {
                return Ok(from_units(&u[..len], bin));
            }
            if pad.is_empty() {
                return Ok(Value::Null);
            }
            let fill: Vec<u32> = pad.iter().cycle().take(len - u.len()).copied().collect();
            let out: Vec<u32> = if name == "LPAD" {
                [fill, u].concat()
            } else {
                [u, fill].concat()
            };
            from_units(&out, bin)
        }
        "REPEAT" => {
            let s = bytes(a(0));
            let k = int_arg(a(1), w);
            if k <= 0 || s.is_empty() {
                return Ok(str_or_bytes(String::new(), bin));
            }
            if (s.len() as u64).saturating_mul(k as u64) > ctx.max_allowed_packet {
                return Ok(too_big(name, ctx, w));
            }
            let out = s.repeat(k as usize);
            if bin {
                Value::Bytes(out)
            } else {
                Value::Str(String::from_utf8_lossy(&out).into_owned())
            }
        }
        "SPACE" => {
            let k = int_arg(a(0), w);
            if k <= 0 {
                Value::Str(String::new())
            } else if k as u64 > ctx.max_allowed_packet {
                too_big(name, ctx, w)
            } else {
                Value::Str(" ".repeat(k as usize))
            }
        }
        "LTRIM" | "RTRIM" => {
            let u = units(a(0), bin);
            let sp = b' ' as u32;
            let s = u.iter().position(|c| *c != sp).unwrap_or(u.len());
            let e = u.iter().rposition(|c| *c != sp).map_or(0, |p| p + 1);
            if name == "LTRIM" {
                from_units(&u[s..], bin)
            } else {
                from_units(&u[..e], bin)
            }
        }
        "TRIM" => {
            // TRIM(str) / TRIM(str, remstr) / TRIM(str, remstr, 'BOTH'|'LEADING'|'TRAILING').
            let u = units(a(0), bin);
            let rem = if n >= 2 {
                units(a(1), bin)
            } else {
                vec![b' ' as u32]
            };
            let mode = if n == 3 {
                text(a(2)).to_ascii_uppercase()
            } else {
                "BOTH".into()
            };
            let (lead, trail) = match mode.as_str() {
                "LEADING" => (true, false),
                "TRAILING" => (false, true),
                "BOTH" => (true, true),
                _ => {
                    return Err(Error::new(
                        codes::ER_WRONG_ARGUMENTS,
                        "Incorrect arguments to TRIM",
                    ))
                }
            };
            let mut s = 0;
            let mut e = u.len();
            if !rem.is_empty() {
                if lead {
                    while e - s >= rem.len() && u[s..s + rem.len()] == rem[..] {
                        s += rem.len();
                    }
                }
                if trail {
                    while e - s >= rem.len() && u[e - rem.len()..e] == rem[..] {
                        e -= rem.len();
                    }
                }
            }
            from_units(&u[s..e], bin)
        }
        "REPLACE" => {
            let from = bytes(a(1));
            if from.is_empty() {
                return Ok(match a(0) {
                    Value::Bytes(b) => Value::Bytes(b.clone()),
                    v if bin => Value::Bytes(bytes(v).into_owned()),
                    v => Value::Str(text(v).into_owned()),
                });
            }
            let s = bytes(a(0));
            let to = bytes(a(2));
            let mut out = Vec::with_capacity(s.len());
            let mut i = 0;
            while let Some(p) = find_units(&s, &from, i) {
                out.extend_from_slice(&s[i..p]);
                out.extend_from_slice(&to);
                i = p + from.len();
            }
            out.extend_from_slice(&s[i..]);
            if bin {
                Value::Bytes(out)
            } else {
                Value::Str(String::from_utf8_lossy(&out).into_owned())
            }
        }
        "INSERT" => {
            let u = units(a(0), bin);
            let pos = int_arg(a(1), w);
            let len = int_arg(a(2), w);
            let new = units(a(3), bin);
            let l = u.len() as i64;
            if pos < 1 || pos > l {
                return Ok(from_units(&u, bin));
            }
            let st = (pos - 1) as usize;
            let end = if len < 0 || len > l - (pos - 1) {
                u.len()
            } else {
                st + len as usize
            };
            let out: Vec<u32> = [&u[..st], &new[..], &u[end..]].concat();
            from_units(&out, bin)
        }
        "LOCATE" | "POSITION" | "INSTR" => {
            let (needle, hay) = if name == "INSTR" {
                (a(1), a(0))
            } else {
                (a(0), a(1))
            };
            let start = if n == 3 { int_arg(a(2), w) } else { 1 };
            if start < 1 {
                return Ok(Value::Int(0));
            }
            let r = if bin {
                let h = bytes(hay);
                find_units(&h, &bytes(needle), (start - 1) as usize)
            } else {
                let h = folded(&text(hay), coll);
                if start as usize - 1 > h.len() {
                    None
                } else {
                    find_units(&h, &folded(&text(needle), coll), (start - 1) as usize)
                }
            };
            Value::Int(r.map_or(0, |p| p as i64 + 1))
        }
        "ASCII" => Value::Int(bytes(a(0)).first().copied().unwrap_or(0) as i64),
        "ORD" => {
            if bin {
                Value::Int(bytes(a(0)).first().copied().unwrap_or(0) as i64)
            } else {
                let t = text(a(0));
                match t.chars().next() {
                    Some(c) => {
                        let mut b = [0u8; 4];
                        let e = c.encode_utf8(&mut b);
                        Value::Int(e.bytes().fold(0i64, |acc, x| acc * 256 + x as i64))
                    }
                    None => Value::Int(0),
                }
            }
        }
        "HEX" => Value::Str(match a(0) {
            Value::Str(_) | Value::Bytes(_) => hex_upper(&bytes(a(0))),
            v => format!("{:X}", convert::to_u64(v, w).unwrap_or(0)),
        }),
        "UNHEX" => {
            let t = text(a(0));
            let t = t.trim();
            let s = if t.len() % 2 == 1 {
                format!("0{t}")
            } else {
                t.to_string()
            };
            match hex::decode(s) {
                Ok(b) => Value::Bytes(b),
                Err(_) => Value::Null,
            }
        }
        "STRCMP" => {
            let o = compare::compare(a(0), a(1), if bin { Collation::Binary } else { coll })
                .unwrap_or(Ordering::Equal);
            Value::Int(match o {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => 1,
            })
        }
        "FIND_IN_SET" => {
            let needle = text(a(0));
            if needle.contains(',') {
                return Ok(Value::Int(0));
            }
            let list = text(a(1));
            if list.is_empty() {
                return Ok(Value::Int(0));
            }
            let pos = list
                .split(',')
                .position(|p| common::collation::eq(coll, p, &needle));
            Value::Int(pos.map_or(0, |p| p as i64 + 1))
        }
        "FORMAT" => {
            let d = int_arg(a(1), w);
            Value::Str(format_number(a(0), d, w))
        }
        "SOUNDEX" => Value::Str(soundex(&text(a(0)))),
        "EXPORT_SET" => {
            let bits = convert::to_u64(a(0), w).unwrap_or(0);
            let sep = if n >= 4 {
                bytes(a(3)).into_owned()
            } else {
                b",".to_vec()
            };
            let nbits = if n == 5 {
                let k = int_arg(a(4), w);
                if (0..=64).contains(&k) {
                    k as usize
                } else {
                    64
                }
            } else {
                64
            };
            let (on, off) = (bytes(a(1)), bytes(a(2)));
            let mut out = Vec::new();
            for i in 0..nbits {
                if i > 0 {
                    out.extend_from_slice(&sep);
                }
                out.extend_from_slice(if bits >> i & 1 == 1 { &on } else { &off });
            }
            if bin {
                Value::Bytes(out)
            } else {
                Value::Str(String::from_utf8_lossy(&out).into_owned())
            }
        }
        "TO_BASE64" => {
            let b64 = convert::base64(&bytes(a(0)));
            // MySQL breaks the output into lines of 76 characters.
            let lines: Vec<&str> = b64
                .as_bytes()
                .chunks(76)
                .map(|c| std::str::from_utf8(c).unwrap_or(""))
                .collect();
            Value::Str(lines.join("\n"))
        }
        "FROM_BASE64" => from_base64(&bytes(a(0))).map_or(Value::Null, Value::Bytes),
        "RANDOM_BYTES" => {
            let k = int_arg(a(0), w);
            if !(1..=1024).contains(&k) {
                return Err(Error::new(
                    codes::ER_DATA_OUT_OF_RANGE,
                    "length value is out of range in 'random_bytes'",
                ));
            }
            let mut buf = vec![0u8; k as usize];
            rand::thread_rng().fill(&mut buf[..]);
            Value::Bytes(buf)
        }
        "AES_ENCRYPT" => Value::Bytes(crate::crypt::aes_encrypt(&bytes(a(0)), &bytes(a(1)))),
        "AES_DECRYPT" => {
            crate::crypt::aes_decrypt(&bytes(a(0)), &bytes(a(1))).map_or(Value::Null, Value::Bytes)
        }
        "COMPRESS" => Value::Bytes(crate::crypt::compress(&bytes(a(0)))),
        "UNCOMPRESSED_LENGTH" => Value::Int(crate::crypt::uncompressed_length(&bytes(a(0)))),
        "UNCOMPRESS" => match crate::crypt::uncompress(&bytes(a(0)), ctx.max_allowed_packet) {
            Ok(b) => Value::Bytes(b),
            Err(crate::crypt::UncompressError::TooBig) => {
                w.push(Warning::warn(
                    ErrorCode {
                        num: 1256,
                        sqlstate: "HY000",
                        name: "ER_TOO_BIG_FOR_UNCOMPRESS",
                    },
                    format!(
                        "Uncompressed data size too large; the maximum size is {} (probably, length of uncompressed data was corrupted)",
                        ctx.max_allowed_packet
                    ),
                ));
                Value::Null
            }
            Err(crate::crypt::UncompressError::Corrupt) => {
                w.push(Warning::warn(
                    ErrorCode {
                        num: 1259,
                        sqlstate: "HY000",
                        name: "ER_ZLIB_Z_DATA_ERROR",
                    },
                    "ZLIB: Input data corrupted",
                ));
                Value::Null
            }
        },
        "VALIDATE_PASSWORD_STRENGTH" => {
            // Without the validate_password component (never installed in Strata) MySQL
            // returns 0.
            Value::Int(0)
        }
        "FORMAT_BYTES" => Value::Str(format_bytes(f(0, w))),
        "FORMAT_PICO_TIME" => Value::Str(format_pico_time(f(0, w))),
        "PS_THREAD_ID" => {
            let id = convert::to_u64(a(0), w).unwrap_or(0);
            if id == ctx.connection_id {
                Value::UInt(id)
            } else {
                Value::Null
            }
        }
        "GTID_SUBSET" | "GTID_SUBTRACT" => {
            let parse = |v: &Value| {
                let t = text(v);
                crate::gtid::GtidSet::parse(&t).ok_or_else(|| {
                    Error::new(
                        ErrorCode {
                            num: 1772,
                            sqlstate: "HY000",
                            name: "ER_MALFORMED_GTID_SET_SPECIFICATION",
                        },
                        format!("Malformed GTID set specification '{t}'."),
                    )
                })
            };
            let (x, y) = (parse(a(0))?, parse(a(1))?);
            if name == "GTID_SUBSET" {
                Value::Int(x.is_subset(&y) as i64)
            } else {
                Value::Str(x.subtract(&y).to_string())
            }
        }
        // ---- numbers ------------------------------------------------------------------
        "ABS" => match arith::to_num(a(0), w) {
            Some(arith::Num::Int(i)) => match i.checked_abs() {
                Some(v) => Value::Int(v),
                None => {
                    return Err(Error::new(
                        codes::ER_DATA_OUT_OF_RANGE,
                        format!("BIGINT value is out of range in 'abs({i})'"),
                    ))
                }
            },
            Some(arith::Num::UInt(u)) => Value::UInt(u),
            Some(arith::Num::Dec(d)) => Value::Decimal(d.abs()),
            Some(arith::Num::Dbl(x)) => Value::Double(x.abs()),
            None => Value::Null,
        },
        "CEIL" | "CEILING" | "FLOOR" => {
            let up = name != "FLOOR";
            match arith::to_num(a(0), w) {
                Some(arith::Num::Int(i)) => Value::Int(i),
                Some(arith::Num::UInt(u)) => Value::UInt(u),
                Some(arith::Num::Dec(d)) => {
                    let r = if up { d.ceil() } else { d.floor() };
                    match r.to_i64() {
                        Some(i) => Value::Int(i),
                        None => {
                            let mut r = r;
                            r.rescale(0);
                            Value::Decimal(r)
                        }
                    }
                }
                Some(arith::Num::Dbl(x)) => Value::Double(if up { x.ceil() } else { x.floor() }),
                None => Value::Null,
            }
        }
        "ROUND" | "TRUNCATE" => {
            let trunc = name == "TRUNCATE";
            if trunc && n != 2 {
                return Err(arg_count_error(name));
            }
            let d = if n == 2 { int_arg(a(1), w) } else { 0 };
            match arith::to_num(a(0), w) {
                Some(arith::Num::Int(i)) => Value::Int(
                    round_int(i as i128, d, trunc).clamp(i64::MIN as i128, i64::MAX as i128) as i64,
                ),
                Some(arith::Num::UInt(u)) => {
                    Value::UInt(round_int(u as i128, d, trunc).clamp(0, u64::MAX as i128) as u64)
                }
                Some(arith::Num::Dec(x)) => Value::Decimal(round_decimal(x, d, trunc)),
                Some(arith::Num::Dbl(x)) => Value::Double(round_f64(x, d, trunc)),
                None => Value::Null,
            }
        }
        "MOD" => {
            let actx = ArithCtx {
                div_precision_increment: ctx.div_precision_increment,
                expr_text: format!("({} % {})", a(0), a(1)),
            };
            arith::binary_op(ArithOp::Mod, a(0), a(1), &actx, w)?
        }
        "POW" | "POWER" => {
            let r = f(0, w).powf(f(1, w));
            return double_result("pow", args, r);
        }
        "SQRT" => {
            let x = f(0, w);
            if x < 0.0 {
                Value::Null
            } else {
                Value::Double(x.sqrt())
            }
        }
        "EXP" => return double_result("exp", args, f(0, w).exp()),
        "LN" | "LOG2" | "LOG10" => {
            let x = f(0, w);
            if x <= 0.0 {
                return Ok(log_warning(w));
            }
            Value::Double(match name {
                "LN" => x.ln(),
                "LOG2" => x.log2(),
                _ => x.log10(),
            })
        }
        "LOG" => {
            if n == 1 {
                let x = f(0, w);
                if x <= 0.0 {
                    return Ok(log_warning(w));
                }
                Value::Double(x.ln())
            } else {
                let (b, x) = (f(0, w), f(1, w));
                if x <= 0.0 || b <= 0.0 || b == 1.0 {
                    return Ok(log_warning(w));
                }
                Value::Double(x.ln() / b.ln())
            }
        }
        "SIGN" => {
            let s = match arith::to_num(a(0), w) {
                Some(arith::Num::Int(i)) => i.signum(),
                Some(arith::Num::UInt(u)) => (u > 0) as i64,
                Some(arith::Num::Dec(d)) => {
                    if d.is_zero() {
                        0
                    } else if d.is_sign_negative() {
                        -1
                    } else {
                        1
                    }
                }
                Some(arith::Num::Dbl(x)) => {
                    if x > 0.0 {
                        1
                    } else if x < 0.0 {
                        -1
                    } else {
                        0
                    }
                }
                None => return Ok(Value::Null),
            };
            Value::Int(s)
        }
        "SIN" => Value::Double(f(0, w).sin()),
        "COS" => Value::Double(f(0, w).cos()),
        "TAN" => Value::Double(f(0, w).tan()),
        "ASIN" | "ACOS" => {
            let x = f(0, w);
            if !(-1.0..=1.0).contains(&x) {
                Value::Null
            } else {
                Value::Double(if name == "ASIN" { x.asin() } else { x.acos() })
            }
        }
        "ATAN" => Value::Double(if n == 2 {
            f(0, w).atan2(f(1, w))
        } else {
            f(0, w).atan()
        }),
        "ATAN2" => Value::Double(f(0, w).atan2(f(1, w))),
        "COT" => {
            let t = f(0, w).tan();
            return double_result("cot", args, 1.0 / t);
        }
        "DEGREES" => Value::Double(f(0, w).to_degrees()),
        "RADIANS" => Value::Double(f(0, w).to_radians()),
        "CONV" => {
            if matches!(a(0), Value::Str(x) if x.is_empty())
                || matches!(a(0), Value::Bytes(x) if x.is_empty())
            {
                return Ok(Value::Null);
            }
            let from = int_arg(a(1), w);
            let to = int_arg(a(2), w);
            let s = match a(0) {
                Value::Str(_) | Value::Bytes(_) => text(a(0)).into_owned(),
                v => convert::to_i64(v, w).unwrap_or(0).to_string(),
            };
            conv(&s, from, to).map_or(Value::Null, Value::Str)
        }
        "BIN" | "OCT" => {
            let v = convert::to_u64(a(0), w).unwrap_or(0);
            Value::Str(if name == "BIN" {
                format!("{v:b}")
            } else {
                format!("{v:o}")
            })
        }
        "BIT_COUNT" => Value::Int(convert::to_u64(a(0), w).unwrap_or(0).count_ones() as i64),
        "CRC32" => Value::Int(crc32fast::hash(&bytes(a(0))) as i64),
        "MD5" => Value::Str(hex::encode(Md5::digest(bytes(a(0)).as_ref()))),
        "SHA1" | "SHA" => Value::Str(hex::encode(Sha1::digest(bytes(a(0)).as_ref()))),
        "SHA2" => {
            let b = bytes(a(0));
            match int_arg(a(1), w) {
                0 | 256 => Value::Str(hex::encode(Sha256::digest(b.as_ref()))),
                224 => Value::Str(hex::encode(Sha224::digest(b.as_ref()))),
                384 => Value::Str(hex::encode(Sha384::digest(b.as_ref()))),
                512 => Value::Str(hex::encode(Sha512::digest(b.as_ref()))),
                _ => Value::Null,
            }
        }
        "INET_ATON" => inet_aton(text(a(0)).trim()).map_or(Value::Null, Value::UInt),
        "INET_NTOA" => {
            let v = convert::to_i64(a(0), w).unwrap_or(-1);
            if !(0..=u32::MAX as i64).contains(&v) {
                Value::Null
            } else {
                let b = (v as u32).to_be_bytes();
                Value::Str(format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]))
            }
        }
        "INET6_ATON" => {
            let t = text(a(0));
            if let Some(v4) = parse_ipv4(&t) {
                Value::Bytes(v4.to_vec())
            } else if let Ok(v6) = t.parse::<std::net::Ipv6Addr>() {
                Value::Bytes(v6.octets().to_vec())
            } else {
                Value::Null
            }
        }
        "INET6_NTOA" => {
            let b = bytes(a(0));
            match b.len() {
                4 => Value::Str(std::net::Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string()),
                16 => {
                    let mut o = [0u8; 16];
                    o.copy_from_slice(&b);
                    Value::Str(std::net::Ipv6Addr::from(o).to_string())
                }
                _ => Value::Null,
            }
        }
        // ---- UUIDs --------------------------------------------------------------------
        "IS_UUID" => Value::Int(parse_uuid(&text(a(0))).is_some() as i64),
        "UUID_TO_BIN" => {
            let t = text(a(0));
            let Some(mut b) = parse_uuid(&t) else {
                return Err(Error::new(
                    datefn::ER_WRONG_VALUE_FOR_TYPE,
                    format!("Incorrect string value: '{t}' for function uuid_to_bin"),
                ));
            };
            if n == 2 && convert::to_bool(a(1), w).unwrap_or(false) {
                let mut s = [0u8; 16];
                s[0..2].copy_from_slice(&b[6..8]);
                s[2..4].copy_from_slice(&b[4..6]);
                s[4..8].copy_from_slice(&b[0..4]);
                s[8..].copy_from_slice(&b[8..]);
                b = s;
            }
            Value::Bytes(b.to_vec())
        }
        "BIN_TO_UUID" => {
            let b = bytes(a(0));
            if b.len() != 16 {
                return Err(Error::new(
                    datefn::ER_WRONG_VALUE_FOR_TYPE,
                    format!(
                        "Incorrect string value: '{}' for function bin_to_uuid",
                        String::from_utf8_lossy(&b)
                    ),
                ));
            }
            let mut u = [0u8; 16];
            u.copy_from_slice(&b);
            if n == 2 && convert::to_bool(a(1), w).unwrap_or(false) {
                let mut s = [0u8; 16];
                s[0..4].copy_from_slice(&u[4..8]);
                s[4..6].copy_from_slice(&u[2..4]);
                s[6..8].copy_from_slice(&u[0..2]);
                s[8..].copy_from_slice(&u[8..]);
                u = s;
            }
            Value::Str(format_uuid(&u))
        }
        // ---- regular expressions ------------------------------------------------------
        "REGEXP_LIKE" => {
            let mt = if n == 3 {
                text(a(2)).into_owned()
            } else {
                String::new()
            };
            let re = regex_for(ctx, &text(a(1)), &mt)?;
            Value::Int(re.is_match(&text(a(0))) as i64)
        }
        "REGEXP_INSTR" => {
            let s = text(a(0)).into_owned();
            let pos = if n >= 3 { int_arg(a(2), w) } else { 1 };
            let occ = if n >= 4 { int_arg(a(3), w).max(1) } else { 1 };
            let ret_end = n >= 5 && int_arg(a(4), w) != 0;
            let mt = if n >= 6 {
                text(a(5)).into_owned()
            } else {
                String::new()
            };
            let re = regex_for(ctx, &text(a(1)), &mt)?;
            let Some(off) = char_offset(&s, pos) else {
                return Err(regex_index_error());
            };
            let found = re
                .find_iter(&s[off..])
                .nth(occ as usize - 1)
                .map(|m| (m.start(), m.end()));
            match found {
                Some((ms, me)) => {
                    let byte = off + if ret_end { me } else { ms };
                    Value::Int(s[..byte].chars().count() as i64 + 1)
                }
                None => Value::Int(0),
            }
        }
        "REGEXP_SUBSTR" => {
            let s = text(a(0)).into_owned();
            let pos = if n >= 3 { int_arg(a(2), w) } else { 1 };
            let occ = if n >= 4 { int_arg(a(3), w).max(1) } else { 1 };
            let mt = if n >= 5 {
                text(a(4)).into_owned()
            } else {
                String::new()
            };
            let re = regex_for(ctx, &text(a(1)), &mt)?;
            let Some(off) = char_offset(&s, pos) else {
                return Err(regex_index_error());
            };
            let found = re
                .find_iter(&s[off..])
                .nth(occ as usize - 1)
                .map(|m| m.as_str().to_string());
            match found {
                Some(m) => Value::Str(m),
                None => Value::Null,
            }
        }
        "REGEXP_REPLACE" => {
            let s = text(a(0)).into_owned();
            let repl = text(a(2)).into_owned();
            let pos = if n >= 4 { int_arg(a(3), w) } else { 1 };
            let occ = if n >= 5 { int_arg(a(4), w).max(0) } else { 0 };
            let mt = if n >= 6 {
                text(a(5)).into_owned()
            } else {
                String::new()
            };
            let re = regex_for(ctx, &text(a(1)), &mt)?;
            let Some(off) = char_offset(&s, pos) else {
                return Err(regex_index_error());
            };
            let tail = &s[off..];
            let replaced = if occ == 0 {
                re.replace_all(tail, repl.as_str()).into_owned()
            } else {
                match re.captures_iter(tail).nth(occ as usize - 1) {
                    Some(c) => {
                        let m = c.get(0).map_or(0..0, |m| m.range());
                        let mut dst = String::new();
                        c.expand(&repl, &mut dst);
                        format!("{}{}{}", &tail[..m.start], dst, &tail[m.end..])
                    }
                    None => tail.to_string(),
                }
            };
            Value::Str(format!("{}{}", &s[..off], replaced))
        }
        _ => return Err(unknown_function(name, ctx)),
    })
}

/// ICU_VERSION(): the ICU release MySQL 8.0.36 bundles (Strata's regular expressions use the
/// Rust `regex` engine, not ICU).
const ICU_VERSION: &str = "73.1";

fn charset_of(c: Collation) -> &'static str {
    c.charset()
}

/// MySQL's base64 decoding: whitespace is skipped, '=' padding may only end the input.
fn from_base64(src: &[u8]) -> Option<Vec<u8>> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        })
    };
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut acc = 0u32;
    let mut k = 0;
    let mut pad = 0;
    for &c in src {
        if c.is_ascii_whitespace() {
            continue;
        }
        if c == b'=' {
            pad += 1;
            acc <<= 6;
            k += 1;
        } else {
            if pad > 0 {
                return None;
            }
            acc = acc << 6 | val(c)?;
            k += 1;
        }
        if k == 4 {
            let b = [(acc >> 16) as u8, (acc >> 8) as u8, acc as u8];
            if pad > 2 {
                return None;
            }
            out.extend_from_slice(&b[..3 - pad]);
            acc = 0;
            k = 0;
        }
    }
    if k != 0 {
        return None;
    }
    Some(out)
}

/// FORMAT_BYTES(n): "512 bytes", "1.00 KiB" ... up to PiB.
fn format_bytes(v: f64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if v.abs() < 1024.0 {
        return format!("{} bytes", v.trunc() as i64);
    }
    let mut x = v / 1024.0;
    let mut u = 0;
    while x.abs() >= 1024.0 && u < UNITS.len() - 1 {
        x /= 1024.0;
        u += 1;
    }
    format!("{x:.2} {}", UNITS[u])
}

/// FORMAT_PICO_TIME(t): picoseconds as "3.50 ns", "3.15 min" ... up to days.
fn format_pico_time(v: f64) -> String {
    const STEPS: [(f64, &str); 7] = [
        (1e3, "ns"),
        (1e6, "us"),
        (1e9, "ms"),
        (1e12, "s"),
        (60e12, "min"),
        (3600e12, "h"),
        (86400e12, "d"),
    ];
    if v.abs() < 1e3 {
        return format!("{} ps", v.trunc() as i64);
    }
    let mut pick = STEPS[0];
    for st in STEPS {
        if v.abs() >= st.0 {
            pick = st;
        }
    }
    format!("{:.2} {}", v / pick.0, pick.1)
}

fn regex_index_error() -> Error {
    Error::new(
        ErrorCode {
            num: 3686,
            sqlstate: "HY000",
            name: "ER_REGEXP_INDEX_OUTOFBOUNDS_ERROR",
        },
        "Index out of bounds in regular expression search.",
    )
}

/// MySQL's case mapping: one character to one character ('ß' stays 'ß' in UPPER), unlike
/// Unicode's full mapping that Rust's `to_uppercase` applies.
fn map_case(s: &str, upper: bool) -> String {
    s.chars()
        .map(|c| {
            let mut m: Vec<char> = if upper {
                c.to_uppercase().collect()
            } else {
                c.to_lowercase().collect()
            };
            if m.len() == 1 {
                m.pop().unwrap_or(c)
            } else {
                c
            }
        })
        .collect()
}

/// MySQL's `str_to_ipv4`: exactly four dot-separated groups of one to three digits, each at
/// most 255 (leading zeros allowed).
fn parse_ipv4(s: &str) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut n = 0;
    for part in s.split('.') {
        if n == 4 || part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        out[n] = u8::try_from(part.parse::<u32>().ok()?).ok()?;
        n += 1;
    }
    (n == 4).then_some(out)
}

fn soundex(s: &str) -> String {
    let code = |c: char| match c.to_ascii_uppercase() {
        'B' | 'F' | 'P' | 'V' => '1',
        'C' | 'G' | 'J' | 'K' | 'Q' | 'S' | 'X' | 'Z' => '2',
        'D' | 'T' => '3',
        'L' => '4',
        'M' | 'N' => '5',
        'R' => '6',
        _ => '0',
    };
    let letters: Vec<char> = s.chars().filter(|c| c.is_alphabetic()).collect();
    let Some(first) = letters.first() else {
        return String::new();
    };
    let mut out = String::new();
    out.push(first.to_ascii_uppercase());
    let mut last = code(*first);
    // MySQL's original Soundex: vowels (and H, W, Y) are dropped first, then repeated codes,
    // so a vowel between two equal codes does not separate them.
    for c in &letters[1..] {
        let d = code(*c);
        if d != '0' && d != last {
            out.push(d);
            last = d;
        }
    }
    while out.chars().count() < 4 {
        out.push('0');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }
    fn i(x: i64) -> Value {
        Value::Int(x)
    }
    fn d(x: &str) -> Value {
        Value::Decimal(x.parse().unwrap())
    }

    fn c(name: &str, args: &[Value]) -> Value {
        let mut ctx = FnCtx {
            current_db: Some("test".into()),
            ..FnCtx::default()
        };
        call(name, args, &mut ctx, &mut vec![]).unwrap()
    }
    fn cs(name: &str, args: &[Value]) -> String {
        c(name, args).to_string()
    }

    /// Every name in the top-level match arms of `call` and `call_strict` (read from this
    /// file's source) is reported built-in, and every built-in name is dispatched (no 1305
    /// for any argument count).
    #[test]
    fn is_builtin_matches_the_dispatch() {
        let src = include_str!("scalar.rs");
        let mut arms = Vec::new();
        let mut in_fn = false;
        for l in src.lines() {
            if l.starts_with("fn call_scalar(") || l.starts_with("fn call_strict(") {
                in_fn = true;
            } else if l.starts_with("fn ") || l.starts_with("pub fn ") || l.starts_with("const ") {
                in_fn = false;
            }
            let arm = l
                .strip_prefix("        ")
                .filter(|r| r.starts_with('"') || r.starts_with("| \""));
            if let (true, Some(r)) = (in_fn, arm) {
                for part in r.split('"').skip(1).step_by(2) {
                    if part
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    {
                        arms.push(part.to_string());
                    }
                }
            }
        }
        assert!(arms.len() > 100, "found only {} arms", arms.len());
        for a in &arms {
            assert!(is_builtin(a), "{a} is dispatched but not is_builtin");
        }
        assert!(!is_builtin("NOPE") && !is_builtin("STDDEV_POP"));
        let mut ctx = FnCtx {
            current_db: Some("test".into()),
            ..FnCtx::default()
        };
        for a in arms
            .iter()
            .map(String::as_str)
            .chain(CALL_NAMES.iter().copied())
        {
            for n in 0..4 {
                let args = vec![Value::Int(1); n];
                if let Err(e) = call(a, &args, &mut ctx, &mut vec![]) {
                    assert_ne!(e.num(), 1305, "{a}/{n}: {e}");
                }
            }
        }
    }

    #[test]
    fn errors() {
        let mut ctx = FnCtx {
            current_db: Some("test".into()),
            ..FnCtx::default()
        };
        let e = call("NOPE", &[], &mut ctx, &mut vec![]).unwrap_err();
        assert_eq!(e.num(), 1305);
        assert_eq!(e.msg, "FUNCTION test.nope does not exist");
        let e = call("LEFT", &[s("a")], &mut ctx, &mut vec![]).unwrap_err();
        assert_eq!(e.num(), 1582);
        assert_eq!(
            e.msg,
            "Incorrect parameter count in the call to native function 'LEFT'"
        );
        let e = call("LEFT", &[Value::Null], &mut ctx, &mut vec![]).unwrap_err();
        assert_eq!(e.num(), 1582);
        let e = call("NOPE", &[], &mut FnCtx::default(), &mut vec![]).unwrap_err();
        assert_eq!(e.num(), 1046);
    }

    #[test]
    fn string_functions() {
        assert_eq!(cs("CONCAT", &[s("My"), s("S"), s("QL")]), "MySQL");
        assert_eq!(c("CONCAT", &[s("My"), Value::Null, s("QL")]), Value::Null);
        assert_eq!(cs("CONCAT", &[i(14), d("3.0")]), "143.0");
        assert_eq!(
            cs(
                "CONCAT_WS",
                &[s(","), s("First name"), Value::Null, s("Last Name")]
            ),
            "First name,Last Name"
        );
        assert_eq!(c("CONCAT_WS", &[Value::Null, s("a")]), Value::Null);
        assert_eq!(c("LENGTH", &[s("text")]), i(4));
        assert_eq!(c("LENGTH", &[s("é")]), i(2));
        assert_eq!(c("CHAR_LENGTH", &[s("é")]), i(1));
        assert_eq!(c("BIT_LENGTH", &[s("text")]), i(32));
        assert_eq!(cs("UPPER", &[s("Hej")]), "HEJ");
        assert_eq!(cs("LOWER", &[s("QUADRATICALLY")]), "quadratically");
        assert_eq!(cs("SUBSTRING", &[s("Quadratically"), i(5)]), "ratically");
        assert_eq!(cs("SUBSTRING", &[s("foobarbar"), i(4)]), "barbar");
        assert_eq!(cs("SUBSTRING", &[s("Quadratically"), i(5), i(6)]), "ratica");
        assert_eq!(cs("SUBSTRING", &[s("Sakila"), i(-3)]), "ila");
        assert_eq!(cs("SUBSTRING", &[s("Sakila"), i(-5), i(3)]), "aki");
        assert_eq!(cs("SUBSTRING", &[s("Sakila"), i(0)]), "");
        assert_eq!(cs("MID", &[s("héllo"), i(2), i(2)]), "él");
        assert_eq!(
            cs("SUBSTRING_INDEX", &[s("www.mysql.com"), s("."), i(2)]),
            "www.mysql"
        );
        assert_eq!(
            cs("SUBSTRING_INDEX", &[s("www.mysql.com"), s("."), i(-2)]),
            "mysql.com"
        );
        assert_eq!(
            cs("SUBSTRING_INDEX", &[s("aaaaaaaaa1"), s("aa"), i(-1)]),
            "1"
        );
        assert_eq!(cs("SUBSTRING_INDEX", &[s("aaaaaaaaa1"), s("aa"), i(1)]), "");
        assert_eq!(cs("SUBSTRING_INDEX", &[s("a.b"), s("."), i(-3)]), "a.b");
        assert_eq!(
            cs("SUBSTRING_INDEX", &[s("www.mysql.com"), s("."), i(5)]),
            "www.mysql.com"
        );
        assert_eq!(cs("LEFT", &[s("foobarbar"), i(5)]), "fooba");
        assert_eq!(cs("RIGHT", &[s("foobarbar"), i(4)]), "rbar");
        assert_eq!(cs("LEFT", &[s("abc"), i(-1)]), "");
        assert_eq!(cs("LPAD", &[s("hi"), i(4), s("??")]), "??hi");
        assert_eq!(cs("LPAD", &[s("hi"), i(1), s("??")]), "h");
        assert_eq!(cs("RPAD", &[s("hi"), i(5), s("?")]), "hi???");
        assert_eq!(c("LPAD", &[s("hi"), i(-1), s("?")]), Value::Null);
        assert_eq!(c("LPAD", &[s("hi"), i(5), s("")]), Value::Null);
        assert_eq!(cs("TRIM", &[s("  bar   ")]), "bar");
        assert_eq!(
            cs("TRIM", &[s("xxxbarxxx"), s("x"), s("LEADING")]),
            "barxxx"
        );
        assert_eq!(cs("TRIM", &[s("xxxbarxxx"), s("x"), s("BOTH")]), "bar");
        assert_eq!(cs("TRIM", &[s("barxxyz"), s("xyz"), s("TRAILING")]), "barx");
        assert_eq!(cs("LTRIM", &[s("  barbar")]), "barbar");
        assert_eq!(cs("RTRIM", &[s("barbar   ")]), "barbar");
        assert_eq!(
            cs("REPLACE", &[s("www.mysql.com"), s("w"), s("Ww")]),
            "WwWwWw.mysql.com"
        );
        assert_eq!(cs("REPEAT", &[s("MySQL"), i(3)]), "MySQLMySQLMySQL");
        assert_eq!(cs("REPEAT", &[s("MySQL"), i(0)]), "");
        assert_eq!(cs("REVERSE", &[s("abcé")]), "écba");
        assert_eq!(c("LOCATE", &[s("bar"), s("foobarbar")]), i(4));
        assert_eq!(c("LOCATE", &[s("xbar"), s("foobar")]), i(0));
        assert_eq!(c("LOCATE", &[s("bar"), s("foobarbar"), i(5)]), i(7));
        assert_eq!(c("LOCATE", &[s("BAR"), s("foobarbar")]), i(4));
        assert_eq!(c("INSTR", &[s("foobarbar"), s("bar")]), i(4));
        assert_eq!(c("INSTR", &[s("xbar"), s("foobar")]), i(0));
        assert_eq!(c("POSITION", &[s("bar"), s("foobarbar")]), i(4));
        assert_eq!(cs("SPACE", &[i(3)]), "   ");
        assert_eq!(c("ASCII", &[s("2")]), i(50));
        assert_eq!(c("ASCII", &[s("dx")]), i(100));
        assert_eq!(c("ASCII", &[s("")]), i(0));
        assert_eq!(c("ORD", &[s("2")]), i(50));
        assert_eq!(c("ORD", &[s("é")]), i(0xC3A9));
        assert_eq!(cs("HEX", &[s("abc")]), "616263");
        assert_eq!(cs("HEX", &[i(255)]), "FF");
        assert_eq!(cs("HEX", &[i(-1)]), "FFFFFFFFFFFFFFFF");
        assert_eq!(
            c("UNHEX", &[s("4D7953514C")]),
            Value::Bytes(b"MySQL".to_vec())
        );
        assert_eq!(c("UNHEX", &[s("GG")]), Value::Null);
        assert_eq!(c("STRCMP", &[s("text"), s("text2")]), i(-1));
        assert_eq!(c("STRCMP", &[s("text2"), s("text")]), i(1));
        assert_eq!(c("STRCMP", &[s("text"), s("TEXT")]), i(0));
        assert_eq!(
            cs("INSERT", &[s("Quadratic"), i(3), i(4), s("What")]),
            "QuWhattic"
        );
        assert_eq!(
            cs("INSERT", &[s("Quadratic"), i(-1), i(4), s("What")]),
            "Quadratic"
        );
        assert_eq!(
            cs("INSERT", &[s("Quadratic"), i(3), i(100), s("What")]),
            "QuWhat"
        );
        assert_eq!(cs("ELT", &[i(1), s("Aa"), s("Bb"), s("Cc"), s("Dd")]), "Aa");
        assert_eq!(cs("ELT", &[i(4), s("Aa"), s("Bb"), s("Cc"), s("Dd")]), "Dd");
        assert_eq!(c("ELT", &[i(5), s("Aa")]), Value::Null);
        assert_eq!(
            c(
                "FIELD",
                &[s("Bb"), s("Aa"), s("Bb"), s("Cc"), s("Dd"), s("Ff")]
            ),
            i(2)
        );
        assert_eq!(c("FIELD", &[s("Gg"), s("Aa"), s("Bb")]), i(0));
        assert_eq!(c("FIELD", &[Value::Null, s("Aa")]), i(0));
        assert_eq!(c("FIND_IN_SET", &[s("b"), s("a,b,c,d")]), i(2));
        assert_eq!(c("FIND_IN_SET", &[s("B"), s("a,b,c,d")]), i(2));
        assert_eq!(c("FIND_IN_SET", &[s("z"), s("a,b,c,d")]), i(0));
        assert_eq!(cs("QUOTE", &[s("Don't!")]), "'Don\\'t!'");
        assert_eq!(cs("QUOTE", &[Value::Null]), "NULL");
        assert_eq!(
            c("CHAR", &[i(77), i(121), i(83), i(81), s("76")]),
            Value::Bytes(b"MySQL".to_vec())
        );
        assert_eq!(c("CHAR", &[i(256)]), Value::Bytes(vec![1, 0]));
        assert_eq!(cs("SOUNDEX", &[s("Hello")]), "H400");
        assert_eq!(cs("SOUNDEX", &[s("Tymczak")]), "T520");
        assert_eq!(cs("SOUNDEX", &[s("Ashcraft")]), "A2613");
        assert_eq!(cs("SOUNDEX", &[s("Quadratically")]), "Q36324");
        assert_eq!(cs("UPPER", &[s("straße")]), "STRAßE");
        assert_eq!(cs("LOWER", &[s("ÀÉ")]), "àé");
    }

    #[test]
    fn binary_strings() {
        let b = Value::Bytes("é".as_bytes().to_vec());
        assert_eq!(c("CHAR_LENGTH", std::slice::from_ref(&b)), i(2));
        assert_eq!(
            c("UPPER", &[Value::Bytes(b"ab".to_vec())]),
            Value::Bytes(b"ab".to_vec())
        );
        assert_eq!(
            c("CONCAT", &[s("a"), Value::Bytes(b"b".to_vec())]),
            Value::Bytes(b"ab".to_vec())
        );
        assert_eq!(c("LOCATE", &[Value::Bytes(b"B".to_vec()), s("abc")]), i(0));
    }

    #[test]
    fn format_and_conv() {
        assert_eq!(cs("FORMAT", &[d("12332.123456"), i(4)]), "12,332.1235");
        assert_eq!(cs("FORMAT", &[d("12332.1"), i(4)]), "12,332.1000");
        assert_eq!(cs("FORMAT", &[d("12332.2"), i(0)]), "12,332");
        assert_eq!(
            cs("FORMAT", &[Value::Double(-1234567.891), i(2)]),
            "-1,234,567.89"
        );
        assert_eq!(cs("FORMAT", &[i(100), i(2)]), "100.00");
        assert_eq!(cs("CONV", &[s("a"), i(16), i(2)]), "1010");
        assert_eq!(cs("CONV", &[s("6E"), i(18), i(8)]), "172");
        assert_eq!(cs("CONV", &[i(-17), i(10), i(-18)]), "-H");
        assert_eq!(cs("CONV", &[s("-1"), i(10), i(16)]), "FFFFFFFFFFFFFFFF");
        assert_eq!(cs("CONV", &[d("10"), i(10), i(10)]), "10");
        assert_eq!(c("CONV", &[s("10"), i(1), i(10)]), Value::Null);
        assert_eq!(c("CONV", &[s(""), i(10), i(10)]), Value::Null);
        assert_eq!(cs("BIN", &[i(12)]), "1100");
        assert_eq!(cs("OCT", &[i(12)]), "14");
        assert_eq!(c("BIT_COUNT", &[i(64)]), i(1));
        assert_eq!(c("BIT_COUNT", &[s("64")]), i(1));
    }

    #[test]
    fn math_functions() {
        assert_eq!(c("ABS", &[i(-32)]), i(32));
        assert_eq!(cs("ABS", &[d("-2.50")]), "2.50");
        let e = call("ABS", &[i(i64::MIN)], &mut FnCtx::default(), &mut vec![]).unwrap_err();
        assert_eq!(e.num(), 1690);
        assert_eq!(c("CEILING", &[d("1.23")]), i(2));
        assert_eq!(c("CEIL", &[d("-1.23")]), i(-1));
        assert_eq!(c("FLOOR", &[d("1.23")]), i(1));
        assert_eq!(c("FLOOR", &[d("-1.23")]), i(-2));
        assert_eq!(c("FLOOR", &[Value::Double(-1.5)]), Value::Double(-2.0));
        assert_eq!(cs("ROUND", &[d("-1.23")]), "-1");
        assert_eq!(cs("ROUND", &[d("-1.58")]), "-2");
        assert_eq!(cs("ROUND", &[d("1.58")]), "2");
        assert_eq!(cs("ROUND", &[d("1.298"), i(1)]), "1.3");
        assert_eq!(cs("ROUND", &[d("1.298"), i(0)]), "1");
        assert_eq!(cs("ROUND", &[d("23.298"), i(-1)]), "20");
        assert_eq!(cs("ROUND", &[d("150.000"), i(2)]), "150.00");
        assert_eq!(cs("ROUND", &[d("2.5")]), "3");
        assert_eq!(cs("ROUND", &[d("-2.5")]), "-3");
        assert_eq!(c("ROUND", &[Value::Double(2.5)]), Value::Double(2.0));
        assert_eq!(c("ROUND", &[Value::Double(-2.5)]), Value::Double(-2.0));
        assert_eq!(c("ROUND", &[Value::Double(3.5)]), Value::Double(4.0));
        assert_eq!(c("ROUND", &[i(1234), i(-2)]), i(1200));
        assert_eq!(c("ROUND", &[i(-1250), i(-2)]), i(-1300));
        assert_eq!(cs("TRUNCATE", &[d("1.223"), i(1)]), "1.2");
        assert_eq!(cs("TRUNCATE", &[d("1.999"), i(1)]), "1.9");
        assert_eq!(cs("TRUNCATE", &[d("1.999"), i(0)]), "1");
        assert_eq!(cs("TRUNCATE", &[d("-1.999"), i(1)]), "-1.9");
        assert_eq!(c("TRUNCATE", &[i(122), i(-2)]), i(100));
        assert_eq!(cs("TRUNCATE", &[d("10.28"), i(0)]), "10");
        assert_eq!(
            c("TRUNCATE", &[Value::Double(1.223), i(1)]),
            Value::Double(1.2)
        );
        assert_eq!(c("MOD", &[i(234), i(10)]), i(4));
        assert_eq!(c("MOD", &[i(29), i(9)]), i(2));
        assert_eq!(cs("MOD", &[d("34.5"), i(3)]), "1.5");
        assert_eq!(c("POW", &[i(2), i(2)]), Value::Double(4.0));
        assert_eq!(c("POW", &[i(2), i(-2)]), Value::Double(0.25));
        assert_eq!(c("SQRT", &[i(4)]), Value::Double(2.0));
        assert_eq!(c("SQRT", &[i(-16)]), Value::Null);
        let mut w = vec![];
        assert_eq!(
            call("LN", &[i(0)], &mut FnCtx::default(), &mut w).unwrap(),
            Value::Null
        );
        assert_eq!(w[0].code, 3020);
        assert_eq!(c("LOG", &[i(2), i(65536)]), Value::Double(16.0));
        assert_eq!(c("LOG", &[i(1), i(100)]), Value::Null);
        assert_eq!(c("LOG2", &[i(65536)]), Value::Double(16.0));
        assert_eq!(c("LOG10", &[i(100)]), Value::Double(2.0));
        assert_eq!(c("SIGN", &[i(-32)]), i(-1));
        assert_eq!(c("SIGN", &[i(0)]), i(0));
        assert_eq!(c("SIGN", &[d("234.0")]), i(1));
        assert_eq!(c("EXP", &[i(0)]), Value::Double(1.0));
        assert!(call("EXP", &[i(1000)], &mut FnCtx::default(), &mut vec![]).is_err());
        assert_eq!(
            c("DEGREES", &[Value::Double(std::f64::consts::PI)]),
            Value::Double(180.0)
        );
        assert_eq!(c("CRC32", &[s("MySQL")]), i(3259397556));
        assert_eq!(c("CRC32", &[s("mysql")]), i(2501908538));
    }

    #[test]
    fn greatest_least() {
        assert_eq!(c("GREATEST", &[i(2), i(0)]), i(2));
        assert_eq!(
            c(
                "GREATEST",
                &[
                    Value::Double(34.0),
                    Value::Double(3.0),
                    Value::Double(5.0),
                    Value::Double(767.0)
                ]
            ),
            Value::Double(767.0)
        );
        assert_eq!(cs("GREATEST", &[s("B"), s("A"), s("C")]), "C");
        assert_eq!(c("LEAST", &[i(2), i(0)]), i(0));
        assert_eq!(cs("LEAST", &[d("34.0"), i(3), i(5)]), "3.0");
        assert_eq!(cs("GREATEST", &[i(1), d("2.5"), i(3)]), "3.0");
        assert_eq!(c("LEAST", &[s("B"), Value::Null]), Value::Null);
        assert_eq!(c("LEAST", &[s("11"), i(2)]), Value::Double(2.0));
    }

    #[test]
    fn control_flow() {
        assert_eq!(c("IF", &[i(1), i(2), i(3)]), i(2));
        assert_eq!(cs("IF", &[i(1), s("yes"), s("no")]), "yes");
        assert_eq!(cs("IF", &[s("abc"), s("yes"), s("no")]), "no");
        assert_eq!(c("IF", &[Value::Null, i(2), i(3)]), i(3));
        assert_eq!(c("IFNULL", &[i(1), i(0)]), i(1));
        assert_eq!(c("IFNULL", &[Value::Null, i(10)]), i(10));
        assert_eq!(c("NULLIF", &[i(1), i(1)]), Value::Null);
        assert_eq!(c("NULLIF", &[i(1), i(2)]), i(1));
        assert_eq!(c("COALESCE", &[Value::Null, i(1)]), i(1));
        assert_eq!(c("COALESCE", &[Value::Null, Value::Null]), Value::Null);
        assert_eq!(c("ISNULL", &[Value::Null]), i(1));
        assert_eq!(c("ISNULL", &[i(0)]), i(0));
        assert_eq!(
            c(
                "INTERVAL",
                &[i(23), i(1), i(15), i(17), i(30), i(44), i(200)]
            ),
            i(3)
        );
        assert_eq!(c("INTERVAL", &[i(10), i(1), i(10), i(100), i(1000)]), i(2));
        assert_eq!(c("INTERVAL", &[i(22), i(23), i(30), i(44), i(200)]), i(0));
    }

    #[test]
    fn hashes_and_network() {
        assert_eq!(
            cs("MD5", &[s("testing")]),
            "ae2b1fca515949e5d54fb22b8ed95575"
        );
        assert_eq!(
            cs("SHA1", &[s("abc")]),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            cs("SHA2", &[s("abc"), i(224)]),
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
        );
        assert_eq!(
            cs("SHA2", &[s("abc"), i(256)]),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(c("SHA2", &[s("abc"), i(1)]), Value::Null);
        assert_eq!(c("INET_ATON", &[s("10.0.5.9")]), Value::UInt(167773449));
        assert_eq!(c("INET_ATON", &[s("127.1")]), Value::UInt(2130706433));
        assert_eq!(c("INET_ATON", &[s("1.2.3.256")]), Value::Null);
        assert_eq!(c("INET_ATON", &[s("1.2.3.4.5")]), Value::UInt(4328719365));
        assert_eq!(c("INET_ATON", &[s("1.2.3.")]), Value::Null);
        assert_eq!(c("IS_IPV4", &[s("01.2.3.4")]), i(1));
        assert_eq!(c("IS_IPV4", &[s("1.2.3")]), i(0));
        assert_eq!(cs("INET_NTOA", &[i(167773449)]), "10.0.5.9");
        assert_eq!(c("IS_IPV4", &[s("10.0.5.9")]), i(1));
        assert_eq!(
            cs(
                "INET6_NTOA",
                &[c("INET6_ATON", &[s("fdfe::5a55:caff:fefa:9089")])]
            ),
            "fdfe::5a55:caff:fefa:9089"
        );
    }

    #[test]
    fn uuids() {
        let u = cs("UUID", &[]);
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "1");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(u, cs("UUID", &[]));
        assert_eq!(c("IS_UUID", &[s(&u)]), i(1));
        let a = cs("UUID_SHORT", &[]).parse::<u64>().unwrap();
        let b = cs("UUID_SHORT", &[]).parse::<u64>().unwrap();
        assert!(b > a);
        let id = s("6ccd780c-baba-1026-9564-5b8c656024db");
        assert_eq!(
            cs("HEX", &[c("UUID_TO_BIN", std::slice::from_ref(&id))]),
            "6CCD780CBABA102695645B8C656024DB"
        );
        assert_eq!(
            cs("HEX", &[c("UUID_TO_BIN", &[id.clone(), i(1)])]),
            "1026BABA6CCD780C95645B8C656024DB"
        );
        assert_eq!(
            cs(
                "BIN_TO_UUID",
                &[c("UUID_TO_BIN", std::slice::from_ref(&id))]
            ),
            "6ccd780c-baba-1026-9564-5b8c656024db"
        );
        assert_eq!(
            cs(
                "BIN_TO_UUID",
                &[c("UUID_TO_BIN", &[id.clone(), i(1)]), i(1)]
            ),
            "6ccd780c-baba-1026-9564-5b8c656024db"
        );
        assert_eq!(
            cs("BIN_TO_UUID", &[c("UUID_TO_BIN", &[id, i(1)]), i(0)]),
            "1026baba-6ccd-780c-9564-5b8c656024db"
        );
        assert_eq!(
            c("IS_UUID", &[s("{12345678-1234-5678-1234-567812345678}")]),
            i(1)
        );
        assert_eq!(c("IS_UUID", &[s("12345678123456781234567812345678")]), i(1));
        assert_eq!(
            c("IS_UUID", &[s("12345678-1234-5678-1234-5678123456789")]),
            i(0)
        );
        assert!(call("UUID_TO_BIN", &[s("x")], &mut FnCtx::default(), &mut vec![]).is_err());
    }

    #[test]
    fn rand_matches_mysql_sequence() {
        let mut g = MyRnd::from_seed(3);
        assert!((g.next_f64() - 0.9057697559760601).abs() < 1e-15);
        let mut ctx = FnCtx::default();
        let x = call("RAND", &[], &mut ctx, &mut vec![]).unwrap();
        assert!(matches!(x, Value::Double(f) if (0.0..1.0).contains(&f)));
    }

    #[test]
    fn regexps() {
        assert_eq!(c("REGEXP_LIKE", &[s("CamelCase"), s("CAMELCASE")]), i(1));
        assert_eq!(
            c("REGEXP_LIKE", &[s("CamelCase"), s("CAMELCASE"), s("c")]),
            i(0)
        );
        assert_eq!(c("REGEXP_LIKE", &[s("Michael!"), s(".*")]), i(1));
        assert_eq!(c("REGEXP_LIKE", &[s("a"), s("^[a-d]")]), i(1));
        assert_eq!(c("REGEXP_INSTR", &[s("dog cat dog"), s("dog")]), i(1));
        assert_eq!(c("REGEXP_INSTR", &[s("dog cat dog"), s("dog"), i(2)]), i(9));
        assert_eq!(c("REGEXP_INSTR", &[s("aa aaa aaaa"), s("a{2}")]), i(1));
        assert_eq!(c("REGEXP_INSTR", &[s("aa aaa aaaa"), s("a{4}")]), i(8));
        assert_eq!(cs("REGEXP_REPLACE", &[s("a b c"), s("b"), s("X")]), "a X c");
        assert_eq!(
            cs(
                "REGEXP_REPLACE",
                &[s("abc def ghi"), s("[a-z]+"), s("X"), i(1), i(3)]
            ),
            "abc def X"
        );
        assert_eq!(cs("REGEXP_SUBSTR", &[s("abc def ghi"), s("[a-z]+")]), "abc");
        assert_eq!(
            cs(
                "REGEXP_SUBSTR",
                &[s("abc def ghi"), s("[a-z]+"), i(1), i(3)]
            ),
            "ghi"
        );
        assert_eq!(c("REGEXP_SUBSTR", &[s("abc"), s("x")]), Value::Null);
        let e = call(
            "REGEXP_LIKE",
            &[s("a"), s("(")],
            &mut FnCtx::default(),
            &mut vec![],
        )
        .unwrap_err();
        assert_eq!(e.num(), 3685);
        assert_eq!(c("LIKE", &[s("David!"), s("David_")]), i(1));
        assert_eq!(c("LIKE", &[s("David_"), s("David|_"), s("|")]), i(1));
    }

    #[test]
    fn sets_and_base64() {
        assert_eq!(
            cs("MAKE_SET", &[i(1 | 4), s("a"), s("b"), s("c"), Value::Null]),
            "a,c"
        );
        assert_eq!(c("MAKE_SET", &[Value::Null, s("a")]), Value::Null);
        assert_eq!(cs("MAKE_SET", &[i(0), s("a")]), "");
        assert_eq!(
            cs("EXPORT_SET", &[i(5), s("Y"), s("N"), s(","), i(4)]),
            "Y,N,Y,N"
        );
        assert_eq!(
            cs("EXPORT_SET", &[i(6), s("1"), s("0"), s(""), i(10)]),
            "0110000000"
        );
        assert_eq!(
            c("EXPORT_SET", &[i(6), s("1"), s("0"), Value::Null, i(10)]),
            Value::Null
        );
        assert_eq!(cs("TO_BASE64", &[s("abc")]), "YWJj");
        let long = cs("TO_BASE64", &[s(&"a".repeat(60))]);
        assert_eq!(long.lines().map(str::len).collect::<Vec<_>>(), vec![76, 4]);
        assert_eq!(
            c("FROM_BASE64", &[s("YW Jj")]),
            Value::Bytes(b"abc".to_vec())
        );
        assert_eq!(c("FROM_BASE64", &[s("YWI=")]), Value::Bytes(b"ab".to_vec()));
        assert_eq!(c("FROM_BASE64", &[s("YWJ")]), Value::Null);
        assert_eq!(c("FROM_BASE64", &[s("#")]), Value::Null);
    }

    #[test]
    fn crypto_and_compression() {
        assert_eq!(
            cs("HEX", &[c("AES_ENCRYPT", &[s("text"), s("key")])]),
            "15E36637363712FC2E699B9C95B75393"
        );
        assert_eq!(
            c(
                "AES_DECRYPT",
                &[c("AES_ENCRYPT", &[s("text"), s("key")]), s("key")]
            ),
            Value::Bytes(b"text".to_vec())
        );
        let z = c("COMPRESS", &[s("aaaaaaaaaa")]);
        assert_eq!(c("UNCOMPRESSED_LENGTH", std::slice::from_ref(&z)), i(10));
        assert_eq!(c("UNCOMPRESS", &[z]), Value::Bytes(b"aaaaaaaaaa".to_vec()));
        let mut w = vec![];
        let r = call("UNCOMPRESS", &[s("abcdefg")], &mut FnCtx::default(), &mut w).unwrap();
        assert_eq!(r, Value::Null);
        assert_eq!(w[0].code, 1256);
        assert!(matches!(c("RANDOM_BYTES", &[i(8)]), Value::Bytes(b) if b.len() == 8));
        let e = call("RANDOM_BYTES", &[i(0)], &mut FnCtx::default(), &mut vec![]).unwrap_err();
        assert_eq!(e.num(), 1690);
        assert_eq!(c("VALIDATE_PASSWORD_STRENGTH", &[s("x")]), i(0));
    }

    #[test]
    fn information_and_misc() {
        assert_eq!(cs("CHARSET", &[i(1)]), "binary");
        assert_eq!(cs("CHARSET", &[s("a")]), "utf8mb4");
        assert_eq!(cs("COLLATION", &[s("a")]), "utf8mb4_0900_ai_ci");
        assert_eq!(cs("COLLATION", &[Value::Null]), "binary");
        assert_eq!(c("COERCIBILITY", &[s("a")]), i(4));
        assert_eq!(c("COERCIBILITY", &[i(1)]), i(5));
        assert_eq!(c("COERCIBILITY", &[Value::Null]), i(6));
        assert_eq!(cs("FORMAT_BYTES", &[i(512)]), "512 bytes");
        assert_eq!(cs("FORMAT_BYTES", &[i(2048)]), "2.00 KiB");
        assert_eq!(
            cs("FORMAT_BYTES", &[Value::UInt(18446644073709551615)]),
            "16383.91 PiB"
        );
        assert_eq!(cs("FORMAT_PICO_TIME", &[i(3501)]), "3.50 ns");
        assert_eq!(cs("FORMAT_PICO_TIME", &[i(188732396662000)]), "3.15 min");
        assert_eq!(cs("FORMAT_PICO_TIME", &[i(12)]), "12 ps");
        assert_eq!(c("IS_IPV4", &[Value::Null]), i(0));
        assert_eq!(c("IS_IPV4", &[i(10)]), i(0));
        let v4c = c("INET6_ATON", &[s("::10.0.5.9")]);
        assert_eq!(c("IS_IPV4_COMPAT", &[v4c]), i(1));
        let v4m = c("INET6_ATON", &[s("::ffff:10.0.5.9")]);
        assert_eq!(c("IS_IPV4_MAPPED", std::slice::from_ref(&v4m)), i(1));
        assert_eq!(c("IS_IPV4_COMPAT", &[v4m]), i(0));
        assert_eq!(c("IS_IPV4_COMPAT", &[c("INET6_ATON", &[s("::1")])]), i(0));
        assert_eq!(c("ANY_VALUE", &[i(3)]), i(3));
        assert_eq!(c("NAME_CONST", &[s("x"), i(14)]), i(14));
        assert_eq!(cs("CURRENT_ROLE", &[]), "NONE");
        assert_eq!(c("MASTER_POS_WAIT", &[s("log.000001"), i(4)]), Value::Null);
        let u = "3E11FA47-71CA-11E1-9E33-C80AA9429562";
        assert_eq!(
            c(
                "GTID_SUBSET",
                &[s(&format!("{u}:23-25")), s(&format!("{u}:21-57"))]
            ),
            i(1)
        );
        assert_eq!(
            cs(
                "GTID_SUBTRACT",
                &[s(&format!("{u}:21-57")), s(&format!("{u}:20-25"))]
            ),
            "3e11fa47-71ca-11e1-9e33-c80aa9429562:26-57"
        );
        let e = call(
            "GTID_SUBSET",
            &[s("nope"), s("")],
            &mut FnCtx::default(),
            &mut vec![],
        )
        .unwrap_err();
        assert_eq!(e.num(), 1772);
    }
}
