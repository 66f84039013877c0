//! Conditions: how an error or warning matches a handler's condition value (and which of
//! several matching handlers MySQL picks), and the errors SIGNAL / RESIGNAL raise, whose
//! SQLSTATE, number and text the program chooses.

use std::collections::HashSet;
use std::sync::OnceLock;

use common::{codes, Error, ErrorCode, Value, Warning};
use parking_lot::Mutex;

use crate::parse::compound::CondValue;

/// How well `cond` matches a condition of `num` / `sqlstate`: 3 for its error number, 2 for
/// its SQLSTATE, 1 for its class (SQLWARNING, NOT FOUND, SQLEXCEPTION), `None` for no match.
pub fn matches(cond: &CondValue, num: u16, sqlstate: &str) -> Option<u8> {
    let class = sqlstate.get(..2).unwrap_or("HY");
    match cond {
        CondValue::ErrNo(n) if *n == num => Some(3),
        CondValue::SqlState(s) if s == sqlstate => Some(2),
        CondValue::Warning if class == "01" => Some(1),
        CondValue::NotFound if class == "02" => Some(1),
        CondValue::Exception if !matches!(class, "00" | "01" | "02") => Some(1),
        _ => None,
    }
}

/// A `&'static` copy of a SQLSTATE a program chose (kept once per distinct value, so the
/// set stays as small as the SQLSTATEs programs use).
fn intern(s: &str) -> &'static str {
    static SET: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut set = SET.get_or_init(Default::default).lock();
    if let Some(k) = set.get(s) {
        return k;
    }
    let k: &'static str = Box::leak(s.to_string().into_boxed_str());
    set.insert(k);
    k
}

/// The error a warning is, for matching handlers (the SQLSTATE of its number, or 01000).
pub fn warning_error(w: &Warning) -> Error {
    let code = codes::ALL
        .iter()
        .find(|c| c.num == w.code)
        .copied()
        .unwrap_or(ErrorCode {
            num: w.code,
            sqlstate: "01000",
            name: "WARNING",
        });
    Error::new(code, w.msg.clone())
}

/// The error `SIGNAL SQLSTATE 'sqlstate' SET MYSQL_ERRNO = errno, MESSAGE_TEXT = text`
/// raises; the defaults are MySQL's (1642 / 1643 / 1644 by class, with their texts).
pub fn signal_error(sqlstate: &str, errno: Option<u16>, text: Option<String>) -> Error {
    let (num, msg) = match sqlstate.get(..2) {
        Some("01") => (1642, "Unhandled user-defined warning condition"),
        Some("02") => (1643, "Unhandled user-defined not found condition"),
        _ => (1644, "Unhandled user-defined exception condition"),
    };
    let code = ErrorCode {
        num: errno.unwrap_or(num),
        sqlstate: intern(sqlstate),
        name: "ER_SIGNAL_EXCEPTION",
    };
    Error::new(code, text.unwrap_or_else(|| msg.to_string()))
}

/// `error` with the SET items of RESIGNAL applied.
pub fn resignal_error(
    error: &Error,
    sqlstate: Option<&str>,
    errno: Option<u16>,
    text: Option<String>,
) -> Error {
    let code = ErrorCode {
        num: errno.unwrap_or(error.code.num),
        sqlstate: sqlstate.map_or(error.code.sqlstate, intern),
        name: error.code.name,
    };
    Error::new(code, text.unwrap_or_else(|| error.msg.clone()))
}

/// True for a warning-class (01) condition, which SIGNAL raises as a warning.
pub fn is_warning(sqlstate: &str) -> bool {
    sqlstate.starts_with("01")
}

/// MYSQL_ERRNO's value: 1 to 65535 (1231 otherwise, as MySQL).
pub fn errno_value(v: &Value) -> Result<u16, Error> {
    let n = match v {
        Value::Int(i) => *i,
        Value::UInt(u) => i64::try_from(*u).unwrap_or(-1),
        Value::Str(s) => s.trim().parse().unwrap_or(-1),
        _ => -1,
    };
    u16::try_from(n).ok().filter(|n| *n > 0).ok_or_else(|| {
        Error::new(
            codes::ER_WRONG_VALUE_FOR_VAR,
            format!("Variable 'MYSQL_ERRNO' can't be set to the value of '{v}'"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_priorities() {
        assert_eq!(matches(&CondValue::ErrNo(1062), 1062, "23000"), Some(3));
        assert_eq!(
            matches(&CondValue::SqlState("23000".into()), 1062, "23000"),
            Some(2)
        );
        assert_eq!(matches(&CondValue::Exception, 1062, "23000"), Some(1));
        assert_eq!(matches(&CondValue::Exception, 1329, "02000"), None);
        assert_eq!(matches(&CondValue::NotFound, 1329, "02000"), Some(1));
        assert_eq!(matches(&CondValue::Warning, 1265, "01000"), Some(1));
        let e = signal_error("45001", None, None);
        assert_eq!((e.code.num, e.code.sqlstate), (1644, "45001"));
        let e = signal_error("01234", Some(9999), Some("w".into()));
        assert_eq!((e.code.num, e.msg.as_str()), (9999, "w"));
    }
}
