//! Static result types of expressions, for result-set column metadata and for planning
//! (e.g. whether `a + b` is DECIMAL or DOUBLE before any row is seen).

use common::{DataType, Value};

use crate::arith::ArithOp;
use crate::convert::CastTarget;

/// The static type of an expression's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExprType {
    /// Only NULL (the literal NULL).
    Null,
    /// BIGINT.
    Int,
    /// BIGINT UNSIGNED.
    UInt,
    /// DOUBLE.
    Double,
    /// DECIMAL(precision, scale).
    Decimal {
        /// Total digits.
        precision: u8,
        /// Fractional digits.
        scale: u8,
    },
    /// A character string of at most `max_chars` characters.
    Str {
        /// Maximum length in characters.
        max_chars: u32,
    },
    /// A binary string of at most `max_len` bytes.
    Bytes {
        /// Maximum length in bytes.
        max_len: u32,
    },
    /// DATE.
    Date,
    /// DATETIME(fsp).
    DateTime {
        /// Fractional seconds precision.
        fsp: u8,
    },
    /// TIME(fsp).
    Time {
        /// Fractional seconds precision.
        fsp: u8,
    },
}

const MAX_PREC: u32 = 65;
const MAX_SCALE: u32 = 30;
const LONG: u32 = 16_777_216;

impl ExprType {
    /// True for Int/UInt/Double/Decimal.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            ExprType::Int | ExprType::UInt | ExprType::Double | ExprType::Decimal { .. }
        )
    }

    /// True for Str/Bytes.
    pub fn is_string(self) -> bool {
        matches!(self, ExprType::Str { .. } | ExprType::Bytes { .. })
    }

    /// True for Date/DateTime/Time.
    pub fn is_temporal(self) -> bool {
        matches!(
            self,
            ExprType::Date | ExprType::DateTime { .. } | ExprType::Time { .. }
        )
    }

    /// Maximum display length in characters (used for column lengths in metadata).
    pub fn display_len(self) -> u32 {
        match self {
            ExprType::Null => 0,
            ExprType::Int => 21,
            ExprType::UInt => 20,
            ExprType::Double => 22,
            ExprType::Decimal { precision, scale } => precision as u32 + 1 + (scale > 0) as u32,
            ExprType::Str { max_chars } => max_chars,
            ExprType::Bytes { max_len } => max_len,
            ExprType::Date => 10,
            ExprType::DateTime { fsp } => 19 + if fsp > 0 { fsp as u32 + 1 } else { 0 },
            ExprType::Time { fsp } => 10 + if fsp > 0 { fsp as u32 + 1 } else { 0 },
        }
    }

    /// Fractional digits (`decimals` in column metadata; 31 = not fixed for DOUBLE/strings).
    pub fn decimals(self) -> u8 {
        match self {
            ExprType::Decimal { scale, .. } => scale,
            ExprType::DateTime { fsp } | ExprType::Time { fsp } => fsp,
            ExprType::Double => 31,
            ExprType::Str { .. } | ExprType::Bytes { .. } => 31,
            _ => 0,
        }
    }

    /// Integer digits and scale when seen as a DECIMAL operand.
    fn dec_parts(self) -> (u32, u32) {
        match self {
            ExprType::Decimal { precision, scale } => (
                (precision as u32).saturating_sub(scale as u32),
                scale as u32,
            ),
            ExprType::Int | ExprType::UInt => (20, 0),
            ExprType::Date => (8, 0),
            ExprType::DateTime { fsp } => (14, fsp as u32),
            ExprType::Time { fsp } => (7, fsp as u32),
            _ => (20, 0),
        }
    }

    fn str_len(self) -> u32 {
        match self {
            ExprType::Str { max_chars } => max_chars,
            ExprType::Bytes { max_len } => max_len,
            other => other.display_len(),
        }
    }
}

fn dec(int_digits: u32, scale: u32) -> ExprType {
    let scale = scale.min(MAX_SCALE);
    let precision = (int_digits + scale).clamp(1, MAX_PREC);
    ExprType::Decimal {
        precision: precision as u8,
        scale: scale as u8,
    }
}

/// The static type of a runtime value.
pub fn type_of_value(v: &Value) -> ExprType {
    match v {
        Value::Null => ExprType::Null,
        Value::Int(_) => ExprType::Int,
        Value::UInt(_) => ExprType::UInt,
        Value::Float(_) | Value::Double(_) => ExprType::Double,
        Value::Decimal(d) => {
            let s = d.scale();
            let digits = d.abs().trunc().to_string().trim_start_matches('0').len() as u32;
            dec(digits.max(1), s)
        }
        Value::Str(s) => ExprType::Str {
            max_chars: s.chars().count() as u32,
        },
        Value::Bytes(b) => ExprType::Bytes {
            max_len: b.len() as u32,
        },
        Value::Date(_) => ExprType::Date,
        Value::DateTime(_, f) => ExprType::DateTime { fsp: *f },
        Value::Time(_, f) => ExprType::Time { fsp: *f },
    }
}

/// The result type of `a op b` (with the default div_precision_increment of 4).
pub fn arith_type(op: ArithOp, a: &ExprType, b: &ExprType) -> ExprType {
    use ExprType::*;
    let (a, b) = (*a, *b);
    if a == Null || b == Null {
        return Null;
    }
    let is_real = |t: ExprType| matches!(t, Double | Str { .. } | Bytes { .. });
    if is_real(a) || is_real(b) {
        return if op == ArithOp::IntDiv { Int } else { Double };
    }
    let intlike = |t: ExprType| {
        matches!(t, Int | UInt | Date) || matches!(t, DateTime { fsp: 0 } | Time { fsp: 0 })
    };
    let unsigned = a == UInt || b == UInt;
    if op == ArithOp::IntDiv {
        return if unsigned { UInt } else { Int };
    }
    if intlike(a) && intlike(b) && op != ArithOp::Div {
        return if op == ArithOp::Mod {
            if a == UInt {
                UInt
            } else {
                Int
            }
        } else if unsigned {
            UInt
        } else {
            Int
        };
    }
    let (i1, s1) = a.dec_parts();
    let (i2, s2) = b.dec_parts();
    match op {
        ArithOp::Add | ArithOp::Sub => dec(i1.max(i2) + 1, s1.max(s2)),
        ArithOp::Mul => dec(i1 + i2, s1 + s2),
        ArithOp::Div => dec(i1 + s2, s1 + 4),
        ArithOp::Mod => dec(i1.max(i2), s1.max(s2)),
        ArithOp::IntDiv => Int,
    }
}

/// Merges two alternative types (`merge_types` for two).
pub fn merge(a: &ExprType, b: &ExprType) -> ExprType {
    merge_types(&[*a, *b])
}

/// The type of a column of declared type `ty` as an expression operand.
pub fn type_of_column(ty: &DataType) -> ExprType {
    match ty {
        DataType::Int { unsigned, .. } => {
            if *unsigned {
                ExprType::UInt
            } else {
                ExprType::Int
            }
        }
        DataType::Decimal {
            precision, scale, ..
        } => ExprType::Decimal {
            precision: *precision,
            scale: *scale,
        },
        DataType::Float { .. } | DataType::Double { .. } => ExprType::Double,
        DataType::Char { len, .. } | DataType::VarChar { len, .. } => {
            ExprType::Str { max_chars: *len }
        }
        DataType::Text { size, .. } => ExprType::Str {
            max_chars: size.max_bytes().min(u32::MAX as u64) as u32,
        },
        DataType::Binary { len } | DataType::VarBinary { len } => ExprType::Bytes { max_len: *len },
        DataType::Blob { size } => ExprType::Bytes {
            max_len: size.max_bytes().min(u32::MAX as u64) as u32,
        },
        DataType::Date => ExprType::Date,
        DataType::DateTime { fsp } | DataType::Timestamp { fsp } => {
            ExprType::DateTime { fsp: *fsp }
        }
        DataType::Time { fsp } => ExprType::Time { fsp: *fsp },
        DataType::Year => ExprType::UInt,
        DataType::Enum { values, .. } => ExprType::Str {
            max_chars: values
                .iter()
                .map(|v| v.chars().count() as u32)
                .max()
                .unwrap_or(0),
        },
        DataType::Set { values, .. } => ExprType::Str {
            max_chars: values
                .iter()
                .map(|v| v.chars().count() as u32 + 1)
                .sum::<u32>()
                .saturating_sub(1),
        },
        DataType::Bit { .. } => ExprType::UInt,
        DataType::Json => ExprType::Str {
            max_chars: u32::MAX,
        },
    }
}

/// The result type of `CAST(x AS target)`.
pub fn cast_type(target: &CastTarget) -> ExprType {
    match *target {
        CastTarget::Signed => ExprType::Int,
        CastTarget::Unsigned => ExprType::UInt,
        CastTarget::Decimal(p, s) => ExprType::Decimal {
            precision: p,
            scale: s,
        },
        CastTarget::Double | CastTarget::Float => ExprType::Double,
        CastTarget::Char(n) => ExprType::Str {
            max_chars: n.unwrap_or(LONG),
        },
        CastTarget::Binary(n) => ExprType::Bytes {
            max_len: n.unwrap_or(LONG),
        },
        CastTarget::Date => ExprType::Date,
        CastTarget::DateTime(fsp) => ExprType::DateTime { fsp },
        CastTarget::Time(fsp) => ExprType::Time { fsp },
        CastTarget::Year => ExprType::UInt,
        CastTarget::Json => ExprType::Str {
            max_chars: u32::MAX,
        },
    }
}

/// Merges the types of alternatives (CASE, IF, COALESCE, GREATEST...).
pub fn merge_types(ts: &[ExprType]) -> ExprType {
    use ExprType::*;
    let non_null: Vec<ExprType> = ts.iter().copied().filter(|t| *t != Null).collect();
    let Some(first) = non_null.first().copied() else {
        return Null;
    };
    if non_null.iter().all(|t| *t == first) {
        return first;
    }
    if non_null.iter().all(|t| t.is_temporal()) {
        if non_null.iter().all(|t| matches!(t, Time { .. })) {
            let fsp = non_null.iter().map(|t| t.decimals()).max().unwrap_or(0);
            return Time { fsp };
        }
        let fsp = non_null
            .iter()
            .map(|t| if matches!(t, Date) { 0 } else { t.decimals() })
            .max()
            .unwrap_or(0);
        return if non_null.iter().all(|t| matches!(t, Date)) {
            Date
        } else {
            DateTime { fsp }
        };
    }
    if non_null.iter().all(|t| t.is_numeric()) {
        if non_null.contains(&Double) {
            return Double;
        }
        if non_null.iter().any(|t| matches!(t, Decimal { .. })) {
            let (mut i, mut s) = (0, 0);
            for t in &non_null {
                let (a, b) = t.dec_parts();
                i = i.max(a);
                s = s.max(b);
            }
            return dec(i, s);
        }
        if non_null.iter().all(|t| *t == UInt) {
            return UInt;
        }
        return if non_null.contains(&UInt) {
            dec(20, 0)
        } else {
            Int
        };
    }
    let len = non_null.iter().map(|t| t.str_len()).max().unwrap_or(0);
    if non_null.iter().any(|t| matches!(t, Bytes { .. })) {
        Bytes { max_len: len }
    } else {
        Str { max_chars: len }
    }
}

fn str_t(n: u32) -> ExprType {
    ExprType::Str {
        max_chars: n.min(LONG),
    }
}

fn arg(args: &[ExprType], i: usize) -> ExprType {
    args.get(i).copied().unwrap_or(ExprType::Null)
}

fn any_bytes(args: &[ExprType]) -> bool {
    args.iter().any(|t| matches!(t, ExprType::Bytes { .. }))
}

fn string_like(args: &[ExprType], len: u32) -> ExprType {
    if any_bytes(args) {
        ExprType::Bytes {
            max_len: len.min(LONG),
        }
    } else {
        str_t(len)
    }
}

fn fsp_arg(args: &[ExprType]) -> u8 {
    // Fractional precision of a temporal argument (strings may carry up to 6).
    match arg(args, 0) {
        ExprType::DateTime { fsp } | ExprType::Time { fsp } => fsp,
        ExprType::Str { .. } | ExprType::Bytes { .. } | ExprType::Double => 6,
        ExprType::Decimal { scale, .. } => scale.min(6),
        _ => 0,
    }
}

/// The result type of scalar function `name` (upper case) given its argument types.
///
/// Functions whose result type depends on argument *values* (e.g. NOW(fsp), ROUND(x, d) with a
/// literal d) get the widest plausible type; the SQL layer can refine using literal values.
pub fn return_type(name: &str, args: &[ExprType]) -> ExprType {
    use ExprType::*;
    let a0 = arg(args, 0);
    match name {
        "CONCAT" | "CONCAT_WS" => {
            let total: u32 = args
                .iter()
                .map(|t| t.str_len())
                .fold(0u32, |a, b| a.saturating_add(b));
            string_like(args, total)
        }
        "LENGTH" | "OCTET_LENGTH" | "CHAR_LENGTH" | "CHARACTER_LENGTH" | "BIT_LENGTH" | "ASCII"
        | "ORD" | "LOCATE" | "POSITION" | "INSTR" | "FIELD" | "FIND_IN_SET" | "STRCMP"
        | "CRC32" | "BIT_COUNT" | "INET_ATON" | "UUID_SHORT" | "TO_DAYS" | "TO_SECONDS"
        | "DATEDIFF" | "TIMESTAMPDIFF" | "YEAR" | "MONTH" | "DAY" | "DAYOFMONTH" | "HOUR"
        | "MINUTE" | "SECOND" | "MICROSECOND" | "DAYOFWEEK" | "DAYOFYEAR" | "WEEKDAY" | "WEEK"
        | "WEEKOFYEAR" | "YEARWEEK" | "QUARTER" | "PERIOD_ADD" | "PERIOD_DIFF" | "SIGN"
        | "ISNULL" | "IS_UUID" | "REGEXP_LIKE" | "REGEXP_INSTR" | "INTERVAL" | "TIME_TO_SEC"
        | "LAST_INSERT_ID" | "CONNECTION_ID" | "ROW_COUNT" | "FOUND_ROWS" => {
            if matches!(name, "UUID_SHORT") {
                UInt
            } else {
                Int
            }
        }
        "UPPER" | "UCASE" | "LOWER" | "LCASE" | "REVERSE" | "LTRIM" | "RTRIM" | "TRIM"
        | "SUBSTRING" | "SUBSTR" | "MID" | "SUBSTRING_INDEX" | "LEFT" | "RIGHT" => {
            string_like(&args[..args.len().min(1)], a0.str_len())
        }
        "LPAD" | "RPAD" | "REPEAT" | "INSERT" | "REPLACE" | "REGEXP_REPLACE" => {
            string_like(&args[..args.len().min(1)], LONG)
        }
        "SPACE" => str_t(LONG),
        "REGEXP_SUBSTR" => string_like(&args[..args.len().min(1)], a0.str_len()),
        "ELT" => merge_types(&args[1.min(args.len())..]).max_str(),
        "HEX" => str_t(a0.str_len().saturating_mul(2).max(16)),
        "WEIGHT_STRING" => Bytes {
            max_len: a0.str_len().saturating_mul(4).max(8),
        },
        "UNHEX" | "UUID_TO_BIN" | "RANDOM_BYTES" => Bytes {
            max_len: if name == "UUID_TO_BIN" {
                16
            } else if name == "RANDOM_BYTES" {
                1024
            } else {
                a0.str_len() / 2 + 1
            },
        },
        "QUOTE" => string_like(args, a0.str_len().saturating_mul(2).saturating_add(2)),
        "FORMAT" => str_t(a0.display_len() + a0.display_len() / 3 + 32),
        "CHAR" => Bytes {
            max_len: args.len() as u32 * 4,
        },
        "BIN" | "OCT" | "CONV" => str_t(64),
        "MD5" => str_t(32),
        "SHA1" | "SHA" => str_t(40),
        "SHA2" => str_t(128),
        "UUID" | "BIN_TO_UUID" => str_t(36),
        "INET_NTOA" => str_t(15),
        "MONTHNAME" | "DAYNAME" => str_t(9),
        "DATE_FORMAT" | "TIME_FORMAT" => str_t(64),
        "CHARSET" | "COLLATION" | "DATABASE" | "SCHEMA" | "USER" | "CURRENT_USER"
        | "SESSION_USER" | "SYSTEM_USER" | "VERSION" => str_t(64),
        "ABS" => match a0 {
            Str { .. } | Bytes { .. } => Double,
            t if t.is_temporal() => Int,
            t => t,
        },
        "CEIL" | "CEILING" | "FLOOR" => match a0 {
            Int | UInt | Null => a0,
            Decimal { precision, scale } => {
                let ip = (precision as u32).saturating_sub(scale as u32) + 1;
                if ip <= 18 {
                    Int
                } else {
                    dec(ip, 0)
                }
            }
            _ => Double,
        },
        "ROUND" | "TRUNCATE" => match a0 {
            Int | UInt | Null => a0,
            Decimal { precision, scale } => {
                // Without the literal `d` assume the argument's own scale.
                let ip = (precision as u32).saturating_sub(scale as u32) + 1;
                if args.len() < 2 {
                    dec(ip, 0)
                } else {
                    dec(ip, scale as u32)
                }
            }
            _ => Double,
        },
        "MOD" => arith_type(ArithOp::Mod, &a0, &arg(args, 1)),
        "POW" | "POWER" | "SQRT" | "EXP" | "LN" | "LOG" | "LOG2" | "LOG10" | "PI" | "RAND"
        | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN" | "ATAN2" | "COT" | "DEGREES"
        | "RADIANS" => Double,
        "GREATEST" | "LEAST" | "COALESCE" | "IFNULL" => merge_types(args),
        "IF" => merge_types(&args[1.min(args.len())..]),
        "NULLIF" => a0,
        "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE"
        | "UTC_TIMESTAMP" => DateTime { fsp: 0 },
        "CURDATE" | "CURRENT_DATE" | "UTC_DATE" | "DATE" | "LAST_DAY" | "FROM_DAYS"
        | "MAKEDATE" => Date,
        "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => Time { fsp: 0 },
        "UNIX_TIMESTAMP" => {
            if args.is_empty() {
                Int
            } else {
                let f = fsp_arg(args);
                if f == 0 || matches!(a0, Date) {
                    Int
                } else {
                    dec(11, f as u32)
                }
            }
        }
        "FROM_UNIXTIME" => {
            if args.len() >= 2 {
                str_t(64)
            } else {
                let f = match a0 {
                    Int | UInt => 0,
                    Decimal { scale, .. } => scale.min(6),
                    _ => 6,
                };
                DateTime { fsp: f }
            }
        }
        "TIME" => Time { fsp: fsp_arg(args) },
        "TIMEDIFF" | "SEC_TO_TIME" => Time {
            fsp: fsp_arg(args).max(if args.len() > 1 {
                fsp_arg(&args[1..])
            } else {
                0
            }),
        },
        "MAKETIME" => Time {
            fsp: match arg(args, 2) {
                Decimal { scale, .. } => scale.min(6),
                Double => 6,
                _ => 0,
            },
        },
        "TIMESTAMP" => DateTime { fsp: fsp_arg(args) },
        "STR_TO_DATE" => DateTime { fsp: 6 },
        "TIMESTAMPADD" | "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" => {
            // As MySQL: a DATETIME stays DATETIME, a DATE becomes DATETIME for time units,
            // and a string argument gives a string.
            let d = if name == "TIMESTAMPADD" {
                arg(args, 2)
            } else {
                a0
            };
            match d {
                DateTime { fsp } => DateTime { fsp },
                Date => DateTime { fsp: 0 },
                Null => Null,
                _ => str_t(29),
            }
        }
        "ADDTIME" | "SUBTIME" => match a0 {
            Time { fsp } => Time { fsp },
            DateTime { fsp } => DateTime { fsp },
            _ => str_t(29),
        },
        "CONVERT_TZ" => DateTime { fsp: fsp_arg(args) },
        "JSON_QUOTE" | "JSON_UNQUOTE" | "JSON_PRETTY" | "JSON_SEARCH" => str_t(LONG),
        n if crate::jsonfn::returns_json(n) => str_t(LONG),
        crate::json_order::JSON_KEY => Bytes { max_len: LONG },
        "JSON_TYPE" => str_t(16),
        "JSON_VALUE" => str_t(512),
        "EXTRACT"
        | "JSON_CONTAINS"
        | "JSON_CONTAINS_PATH"
        | "JSON_LENGTH"
        | "JSON_DEPTH"
        | "JSON_VALID"
        | "JSON_OVERLAPS"
        | "JSON_STORAGE_SIZE"
        | "JSON_STORAGE_FREE"
        | "MEMBER OF"
        | "COERCIBILITY"
        | "UNCOMPRESSED_LENGTH"
        | "VALIDATE_PASSWORD_STRENGTH"
        | "GTID_SUBSET"
        | "IS_IPV4"
        | "IS_IPV6"
        | "IS_IPV4_COMPAT"
        | "IS_IPV4_MAPPED"
        | "GET_LOCK"
        | "RELEASE_LOCK"
        | "RELEASE_ALL_LOCKS"
        | "IS_FREE_LOCK"
        | "BENCHMARK"
        | "MASTER_POS_WAIT"
        | "SOURCE_POS_WAIT"
        | crate::jsonfn::MARK_BOOL => Int,
        "IS_USED_LOCK" | "PS_CURRENT_THREAD_ID" | "PS_THREAD_ID" => UInt,
        "MAKE_SET" => string_like(&args[1.min(args.len())..], LONG),
        "EXPORT_SET" => string_like(args, LONG),
        "TO_BASE64" | "GTID_SUBTRACT" => str_t(LONG),
        "FROM_BASE64" | "AES_ENCRYPT" | "AES_DECRYPT" | "COMPRESS" | "UNCOMPRESS" => {
            Bytes { max_len: LONG }
        }
        "ICU_VERSION" | "CURRENT_ROLE" => str_t(64),
        "FORMAT_BYTES" | "FORMAT_PICO_TIME" => str_t(11),
        "GET_FORMAT" => str_t(17),
        "ANY_VALUE" => a0,
        "NAME_CONST" => arg(args, 1),
        _ => Null,
    }
}

impl ExprType {
    fn max_str(self) -> ExprType {
        match self {
            ExprType::Bytes { .. } | ExprType::Str { .. } => self,
            ExprType::Null => ExprType::Null,
            other => str_t(other.display_len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use common::Decimal as D;

    #[test]
    fn function_types() {
        let s = ExprType::Str { max_chars: 10 };
        assert_eq!(
            return_type("CONCAT", &[s, s]),
            ExprType::Str { max_chars: 20 }
        );
        assert_eq!(return_type("ABS", &[ExprType::Int]), ExprType::Int);
        assert_eq!(return_type("NOW", &[]), ExprType::DateTime { fsp: 0 });
        assert_eq!(
            return_type(
                "ROUND",
                &[
                    ExprType::Decimal {
                        precision: 10,
                        scale: 2
                    },
                    ExprType::Int
                ]
            ),
            ExprType::Decimal {
                precision: 11,
                scale: 2
            }
        );
        assert_eq!(return_type("ROUND", &[ExprType::Double]), ExprType::Double);
        assert_eq!(return_type("LENGTH", &[s]), ExprType::Int);
        assert_eq!(return_type("MD5", &[s]), ExprType::Str { max_chars: 32 });
        assert_eq!(
            return_type("IFNULL", &[ExprType::Int, ExprType::Double]),
            ExprType::Double
        );
        assert_eq!(
            return_type("COALESCE", &[ExprType::Null, ExprType::Date]),
            ExprType::Date
        );
        assert_eq!(return_type("CURDATE", &[]), ExprType::Date);
        assert_eq!(
            return_type("JSON_OBJECT", &[s, s]),
            ExprType::Str {
                max_chars: 16_777_216
            }
        );
        assert_eq!(return_type("JSON_LENGTH", &[s]), ExprType::Int);
        assert_eq!(return_type("EXTRACT", &[s, s]), ExprType::Int);
        assert_eq!(return_type("IS_USED_LOCK", &[s]), ExprType::UInt);
        assert_eq!(
            return_type("AES_ENCRYPT", &[s, s]),
            ExprType::Bytes {
                max_len: 16_777_216
            }
        );
        assert_eq!(
            return_type("ANY_VALUE", &[ExprType::Double]),
            ExprType::Double
        );
    }

    #[test]
    fn arithmetic_types() {
        assert_eq!(
            arith_type(ArithOp::Add, &ExprType::Int, &ExprType::Int),
            ExprType::Int
        );
        assert_eq!(
            arith_type(ArithOp::Add, &ExprType::UInt, &ExprType::Int),
            ExprType::UInt
        );
        assert_eq!(
            arith_type(ArithOp::Div, &ExprType::Int, &ExprType::Int),
            ExprType::Decimal {
                precision: 24,
                scale: 4
            }
        );
        assert_eq!(
            arith_type(ArithOp::Add, &ExprType::Int, &ExprType::Double),
            ExprType::Double
        );
        assert_eq!(
            arith_type(
                ArithOp::Mul,
                &ExprType::Int,
                &ExprType::Str { max_chars: 1 }
            ),
            ExprType::Double
        );
        assert_eq!(
            arith_type(
                ArithOp::Mul,
                &ExprType::Decimal {
                    precision: 5,
                    scale: 2
                },
                &ExprType::Decimal {
                    precision: 4,
                    scale: 1
                }
            ),
            ExprType::Decimal {
                precision: 9,
                scale: 3
            }
        );
        assert_eq!(
            arith_type(
                ArithOp::IntDiv,
                &ExprType::Decimal {
                    precision: 5,
                    scale: 2
                },
                &ExprType::Int
            ),
            ExprType::Int
        );
    }

    #[test]
    fn value_types() {
        assert_eq!(
            type_of_value(&Value::Decimal(D::new(12345, 2))),
            ExprType::Decimal {
                precision: 5,
                scale: 2
            }
        );
        assert_eq!(
            type_of_value(&Value::Str("héllo".into())),
            ExprType::Str { max_chars: 5 }
        );
        assert_eq!(type_of_value(&Value::Null), ExprType::Null);
    }
}
