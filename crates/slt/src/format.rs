//! Result formatting, sorting, hashing and comparison, following the original sqllogictest
//! program with its ODBC (MySQL) engine.
//!
//! Every value arrives as the text the server sent (MySQL text protocol) or NULL, and is
//! rendered according to the record's column type letter:
//!
//! * NULL → `NULL`; an empty string → `(empty)` (whatever the column type);
//! * `I` → the integer of the text's numeric prefix, like C `strtoll` (so `12.9` → `12`,
//!   `-3.7` → `-3`, `abc` → `0`), saturating at the `i64` range;
//! * `R` → the text parsed like C `strtod` (numeric prefix, `0` if none), printed as `%.3f`;
//! * `T` → the text with every byte outside printable ASCII (0x20..=0x7E) replaced by `@`.
//!
//! Sorting compares the formatted strings byte-wise (`strcmp` order). The hash is the
//! lowercase hex MD5 of every formatted value followed by `\n`.

use md5::{Digest, Md5};

use crate::parser::{ColType, Expected, SortMode};

/// Render one raw value (`None` = SQL NULL) for a column of type `ty`.
pub fn format_value(raw: Option<&[u8]>, ty: ColType) -> String {
    let Some(bytes) = raw else {
        return "NULL".to_string();
    };
    if bytes.is_empty() {
        return "(empty)".to_string();
    }
    match ty {
        ColType::Integer => parse_int_prefix(bytes).to_string(),
        ColType::Real => format!("{:.3}", parse_float_prefix(bytes)),
        ColType::Text => bytes
            .iter()
            .map(|&b| {
                if (0x20..=0x7e).contains(&b) {
                    b as char
                } else {
                    '@'
                }
            })
            .collect(),
    }
}

/// C `strtoll(s, NULL, 10)`: optional leading whitespace, an optional sign, then decimal
/// digits; anything else ends the number. Saturates at `i64::MIN` / `i64::MAX`.
pub fn parse_int_prefix(s: &[u8]) -> i64 {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    let mut negative = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        negative = s[i] == b'-';
        i += 1;
    }
    let mut acc: i64 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        let d = i64::from(s[i] - b'0');
        acc = if negative {
            acc.checked_mul(10)
                .and_then(|v| v.checked_sub(d))
                .unwrap_or(i64::MIN)
        } else {
            acc.checked_mul(10)
                .and_then(|v| v.checked_add(d))
                .unwrap_or(i64::MAX)
        };
        i += 1;
    }
    acc
}

/// C `strtod(s, NULL)` for decimal input: optional whitespace, sign, digits with an optional
/// fraction, an optional exponent. Returns 0.0 when there is no numeric prefix. Also accepts
/// `inf`/`infinity`/`nan` (case-insensitive), as strtod does.
pub fn parse_float_prefix(s: &[u8]) -> f64 {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    let start = i;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        i += 1;
    }
    let rest = &s[i..];
    let lower: Vec<u8> = rest.iter().take(8).map(u8::to_ascii_lowercase).collect();
    if lower.starts_with(b"inf") || lower.starts_with(b"nan") {
        let v = if lower.starts_with(b"nan") {
            f64::NAN
        } else {
            f64::INFINITY
        };
        return if s[start] == b'-' { -v } else { v };
    }
    let digits_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut ndigits = i - digits_start;
    if i < s.len() && s[i] == b'.' {
        i += 1;
        let f = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        ndigits += i - f;
    }
    if ndigits == 0 {
        return 0.0;
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        let mut j = i + 1;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            j += 1;
        }
        let e = j;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        if j > e {
            i = j;
        }
    }
    std::str::from_utf8(&s[start..i])
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .unwrap_or(0.0)
}

fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// Sort formatted values in place according to `mode`; `ncols` is the row width.
pub fn sort_values(values: &mut Vec<String>, ncols: usize, mode: SortMode) {
    match mode {
        SortMode::NoSort => {}
        SortMode::ValueSort => values.sort_unstable(),
        SortMode::RowSort => {
            if ncols <= 1 {
                values.sort_unstable();
                return;
            }
            let mut rows: Vec<Vec<String>> = Vec::with_capacity(values.len() / ncols + 1);
            let mut it = std::mem::take(values).into_iter();
            loop {
                let row: Vec<String> = it.by_ref().take(ncols).collect();
                if row.is_empty() {
                    break;
                }
                rows.push(row);
            }
            // Vec<String> ordering is lexicographic over columns, each compared byte-wise.
            rows.sort_unstable();
            *values = rows.into_iter().flatten().collect();
        }
    }
}

/// Lowercase hex MD5 over every value followed by a newline.
pub fn hash_values(values: &[String]) -> String {
    let mut h = Md5::new();
    for v in values {
        h.update(v.as_bytes());
        h.update(b"\n");
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether the (already sorted) actual values satisfy the expected block.
pub fn matches_expected(expected: &Expected, actual: &[String]) -> bool {
    match expected {
        Expected::Hash { count, hash } => *count == actual.len() && *hash == hash_values(actual),
        Expected::Values(v) => v.as_slice() == actual,
    }
}

/// Describe the actual values the way the expected block would be written: as a hash line when
/// the expected block is a hash or there are more values than `hash_threshold` (when > 0).
pub fn describe_actual(expected: &Expected, actual: &[String], hash_threshold: usize) -> String {
    let hashed = matches!(expected, Expected::Hash { .. })
        || (hash_threshold > 0 && actual.len() > hash_threshold);
    if hashed {
        format!("{} values hashing to {}", actual.len(), hash_values(actual))
    } else {
        actual.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str, ty: ColType) -> String {
        format_value(Some(s.as_bytes()), ty)
    }

    #[test]
    fn null_and_empty() {
        assert_eq!(format_value(None, ColType::Integer), "NULL");
        assert_eq!(format_value(None, ColType::Text), "NULL");
        assert_eq!(f("", ColType::Text), "(empty)");
        assert_eq!(f("", ColType::Integer), "(empty)");
        assert_eq!(f("", ColType::Real), "(empty)");
    }

    #[test]
    fn integers_truncate_like_strtol() {
        assert_eq!(f("42", ColType::Integer), "42");
        assert_eq!(f("-17", ColType::Integer), "-17");
        assert_eq!(f("12.9", ColType::Integer), "12");
        assert_eq!(f("-3.7000", ColType::Integer), "-3");
        assert_eq!(f("-0.5", ColType::Integer), "0");
        assert_eq!(f("abc", ColType::Integer), "0");
        assert_eq!(f("  +7x", ColType::Integer), "7");
        assert_eq!(f("1e5", ColType::Integer), "1");
        assert_eq!(
            f("99999999999999999999999", ColType::Integer),
            i64::MAX.to_string()
        );
        assert_eq!(
            f("-99999999999999999999999", ColType::Integer),
            i64::MIN.to_string()
        );
        assert_eq!(
            f("18446744073709551615", ColType::Integer),
            i64::MAX.to_string()
        );
    }

    #[test]
    fn reals_print_three_decimals() {
        assert_eq!(f("1.5", ColType::Real), "1.500");
        assert_eq!(f("3.5000", ColType::Real), "3.500");
        assert_eq!(f("-7", ColType::Real), "-7.000");
        assert_eq!(f("0.0625", ColType::Real), "0.062"); // round-half-even on exact ties, like printf
        assert_eq!(f("2.0005", ColType::Real), "2.001"); // 2.0005 is slightly above the tie
        assert_eq!(
            f("1e30", ColType::Real),
            "1000000000000000019884624838656.000"
        );
        assert_eq!(f("-1.5e-2", ColType::Real), "-0.015");
        assert_eq!(f("-0.0001", ColType::Real), "-0.000");
        assert_eq!(f("abc", ColType::Real), "0.000");
        assert_eq!(f("12abc", ColType::Real), "12.000");
        assert_eq!(f("5e", ColType::Real), "5.000");
        assert_eq!(f(".5", ColType::Real), "0.500");
        assert_eq!(f("-", ColType::Real), "0.000");
    }

    #[test]
    fn text_replaces_unprintables() {
        assert_eq!(f("hello world", ColType::Text), "hello world");
        assert_eq!(f("a\tb\nc", ColType::Text), "a@b@c");
        assert_eq!(f("\u{e9}", ColType::Text), "@@"); // two UTF-8 bytes
        assert_eq!(f("~ ", ColType::Text), "~ ");
        assert_eq!(
            format_value(Some(&[0x7f, 0x00, b'x']), ColType::Text),
            "@@x"
        );
        // Numbers in a T column are kept verbatim.
        assert_eq!(f("3.5000", ColType::Text), "3.5000");
    }

    fn strs(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn sorting() {
        let mut v = strs(&["b", "2", "a", "10", "a", "1"]);
        sort_values(&mut v, 2, SortMode::NoSort);
        assert_eq!(v, strs(&["b", "2", "a", "10", "a", "1"]));
        sort_values(&mut v, 2, SortMode::RowSort);
        assert_eq!(v, strs(&["a", "1", "a", "10", "b", "2"]));
        let mut v = strs(&["b", "2", "a", "10", "a", "1"]);
        sort_values(&mut v, 2, SortMode::ValueSort);
        assert_eq!(v, strs(&["1", "10", "2", "a", "a", "b"]));
        // strcmp order: '-' < digits < 'N' (NULL) < lower case
        let mut v = strs(&["NULL", "9", "-1", "(empty)", "abc"]);
        sort_values(&mut v, 1, SortMode::RowSort);
        assert_eq!(v, strs(&["(empty)", "-1", "9", "NULL", "abc"]));
        // rows compare by first column, then the next
        let mut v = strs(&["1", "z", "1", "a", "0", "q"]);
        sort_values(&mut v, 2, SortMode::RowSort);
        assert_eq!(v, strs(&["0", "q", "1", "a", "1", "z"]));
    }

    #[test]
    fn hashing() {
        // md5("") and md5("1\n2\n") computed independently (md5sum).
        assert_eq!(hash_values(&[]), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            hash_values(&strs(&["1", "2"])),
            "6ddb4095eb719e2a9f0a3f95677d24e0"
        );
        assert_eq!(
            hash_values(&strs(&["NULL", "(empty)", "-1.500"])),
            "77316f996a8e5e39333bea212b603af3"
        );
    }

    #[test]
    fn comparing() {
        let actual = strs(&["1", "2", "3"]);
        assert!(matches_expected(
            &Expected::Values(strs(&["1", "2", "3"])),
            &actual
        ));
        assert!(!matches_expected(
            &Expected::Values(strs(&["1", "2"])),
            &actual
        ));
        let hash = hash_values(&actual);
        assert!(matches_expected(
            &Expected::Hash {
                count: 3,
                hash: hash.clone()
            },
            &actual
        ));
        assert!(!matches_expected(
            &Expected::Hash {
                count: 4,
                hash: hash.clone()
            },
            &actual
        ));
        let exp = Expected::Hash { count: 3, hash };
        assert!(describe_actual(&exp, &actual, 0).starts_with("3 values hashing to "));
        let exp = Expected::Values(vec![]);
        assert_eq!(describe_actual(&exp, &actual, 0), "1\n2\n3");
        assert!(describe_actual(&exp, &actual, 2).starts_with("3 values hashing to "));
    }
}
