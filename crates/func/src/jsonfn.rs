//! MySQL's JSON functions (JSON_EXTRACT, JSON_SET, JSON_CONTAINS, JSON_SEARCH, ...).
//!
//! Strata keeps JSON values as their canonical text (see [`crate::json`]); these functions
//! parse that text into a [`Json`] tree, evaluate MySQL's path language on it and render the
//! result back as canonical text. Whether an argument *is* JSON (a JSON column, the result of
//! another JSON function, `CAST(.. AS JSON)`) or a plain SQL string that becomes a JSON string
//! is a property of the argument's type, which the SQL layer passes as [`ArgKind`]s.

use std::cmp::Ordering;

use common::codes::ErrorCode;
use common::Decimal;
use common::{Error, Result, Value, Warning};

use crate::convert;
use crate::json::format_json_double;
use crate::scalar::{arg_count_error, FnCtx};

/// How the SQL layer typed a function argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// An ordinary SQL value: strings become JSON strings.
    Plain,
    /// A JSON-typed expression: its text is a JSON document.
    Json,
    /// A boolean expression (comparison, `TRUE`): 1/0 become `true`/`false`.
    Bool,
}

/// Internal function name the SQL layer wraps around JSON-typed arguments of JSON functions.
pub const MARK_JSON: &str = "JSON@TYPED";
/// Internal function name the SQL layer wraps around boolean arguments of JSON functions.
pub const MARK_BOOL: &str = "JSON@BOOL";
/// Internal function name of `value MEMBER OF(json_array)`.
pub const MEMBER_OF: &str = "MEMBER OF";

const fn code(num: u16, sqlstate: &'static str, name: &'static str) -> ErrorCode {
    ErrorCode {
        num,
        sqlstate,
        name,
    }
}

/// 3141 ER_INVALID_JSON_TEXT_IN_PARAM.
pub const ER_INVALID_JSON_TEXT_IN_PARAM: ErrorCode =
    code(3141, "22032", "ER_INVALID_JSON_TEXT_IN_PARAM");
/// 3143 ER_INVALID_JSON_PATH.
pub const ER_INVALID_JSON_PATH: ErrorCode = code(3143, "42000", "ER_INVALID_JSON_PATH");
/// 3144 ER_INVALID_JSON_CHARSET.
pub const ER_INVALID_JSON_CHARSET: ErrorCode = code(3144, "22032", "ER_INVALID_JSON_CHARSET");
/// 3146 ER_INVALID_TYPE_FOR_JSON.
pub const ER_INVALID_TYPE_FOR_JSON: ErrorCode = code(3146, "22032", "ER_INVALID_TYPE_FOR_JSON");
/// 3149 ER_INVALID_JSON_PATH_WILDCARD.
pub const ER_INVALID_JSON_PATH_WILDCARD: ErrorCode =
    code(3149, "42000", "ER_INVALID_JSON_PATH_WILDCARD");
/// 3153 ER_JSON_VACUOUS_PATH.
pub const ER_JSON_VACUOUS_PATH: ErrorCode = code(3153, "42000", "ER_JSON_VACUOUS_PATH");
/// 3154 ER_JSON_BAD_ONE_OR_ALL_ARG.
pub const ER_JSON_BAD_ONE_OR_ALL_ARG: ErrorCode = code(3154, "42000", "ER_JSON_BAD_ONE_OR_ALL_ARG");
/// 3157 ER_JSON_DOCUMENT_TOO_DEEP.
pub const ER_JSON_DOCUMENT_TOO_DEEP: ErrorCode = code(3157, "22032", "ER_JSON_DOCUMENT_TOO_DEEP");
/// 3158 ER_JSON_DOCUMENT_NULL_KEY.
pub const ER_JSON_DOCUMENT_NULL_KEY: ErrorCode = code(3158, "22032", "ER_JSON_DOCUMENT_NULL_KEY");
/// 3165 ER_INVALID_JSON_PATH_ARRAY_CELL.
pub const ER_INVALID_JSON_PATH_ARRAY_CELL: ErrorCode =
    code(3165, "42000", "ER_INVALID_JSON_PATH_ARRAY_CELL");
/// 1287 ER_WARN_DEPRECATED_SYNTAX.
const ER_WARN_DEPRECATED_SYNTAX: ErrorCode = code(1287, "HY000", "ER_WARN_DEPRECATED_SYNTAX");

const MAX_DEPTH: usize = 100;

/// A JSON value as MySQL's binary JSON distinguishes them.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An integer above `i64::MAX`.
    UInt(u64),
    /// A double.
    Double(f64),
    /// An exact decimal (from a SQL DECIMAL value).
    Decimal(Decimal),
    /// A string.
    Str(String),
    /// A DATE (from SQL), rendered `YYYY-MM-DD`.
    Date(String),
    /// A TIME (from SQL), rendered with six fractional digits.
    Time(String),
    /// A DATETIME/TIMESTAMP (from SQL), rendered with six fractional digits.
    DateTime(String),
    /// A binary string (opaque), rendered `base64:type15:...`.
    Opaque(Vec<u8>),
    /// An array.
    Array(Vec<Json>),
    /// An object whose members are kept in MySQL's key order (length, then bytes).
    Object(Vec<(String, Json)>),
}

fn key_order(a: &str, b: &str) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

impl Json {
    fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(m) => m
                .binary_search_by(|(k, _)| key_order(k, key))
                .ok()
                .map(|i| &m[i].1),
            _ => None,
        }
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(m) => match m.binary_search_by(|(k, _)| key_order(k, key)) {
                Ok(i) => Some(&mut m[i].1),
                Err(_) => None,
            },
            _ => None,
        }
    }

    /// Sets member `key` of an object (replacing an existing one).
    fn put(m: &mut Vec<(String, Json)>, key: String, v: Json) {
        match m.binary_search_by(|(k, _)| key_order(k, &key)) {
            Ok(i) => m[i].1 = v,
            Err(i) => m.insert(i, (key, v)),
        }
    }

    fn is_scalar(&self) -> bool {
        !matches!(self, Json::Array(_) | Json::Object(_))
    }

    /// MySQL's JSON_TYPE name.
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "NULL",
            Json::Bool(_) => "BOOLEAN",
            Json::Int(_) => "INTEGER",
            Json::UInt(_) => "UNSIGNED INTEGER",
            Json::Double(_) => "DOUBLE",
            Json::Decimal(_) => "DECIMAL",
            Json::Str(_) => "STRING",
            Json::Date(_) => "DATE",
            Json::Time(_) => "TIME",
            Json::DateTime(_) => "DATETIME",
            Json::Opaque(_) => "BLOB",
            Json::Array(_) => "ARRAY",
            Json::Object(_) => "OBJECT",
        }
    }

    fn depth(&self) -> i64 {
        match self {
            Json::Array(a) if !a.is_empty() => 1 + a.iter().map(Json::depth).max().unwrap_or(0),
            Json::Object(m) if !m.is_empty() => {
                1 + m.iter().map(|(_, v)| v.depth()).max().unwrap_or(0)
            }
            _ => 1,
        }
    }

    fn len(&self) -> usize {
        match self {
            Json::Array(a) => a.len(),
            Json::Object(m) => m.len(),
            _ => 1,
        }
    }

    /// Canonical text (`, ` and `: ` separators).
    pub fn render(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => out.push_str(&i.to_string()),
            Json::UInt(u) => out.push_str(&u.to_string()),
            Json::Double(f) => out.push_str(&format_json_double(*f)),
            Json::Decimal(d) => out.push_str(&d.to_string()),
            Json::Str(s) | Json::Date(s) | Json::Time(s) | Json::DateTime(s) => {
                out.push_str(&crate::json::quote(s))
            }
            Json::Opaque(b) => {
                out.push_str(&crate::json::quote(&format!(
                    "base64:type15:{}",
                    convert::base64(b)
                )));
            }
            Json::Array(a) => {
                out.push('[');
                for (i, e) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    e.write(out);
                }
                out.push(']');
            }
            Json::Object(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(&crate::json::quote(k));
                    out.push_str(": ");
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    fn pretty(&self, indent: usize, out: &mut String) {
        let pad = |n: usize, out: &mut String| out.extend(std::iter::repeat_n(' ', n));
        match self {
            Json::Array(a) if !a.is_empty() => {
                out.push_str("[\n");
                for (i, e) in a.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    pad(indent + 2, out);
                    e.pretty(indent + 2, out);
                }
                out.push('\n');
                pad(indent, out);
                out.push(']');
            }
            Json::Object(m) if !m.is_empty() => {
                out.push_str("{\n");
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    pad(indent + 2, out);
                    out.push_str(&crate::json::quote(k));
                    out.push_str(": ");
                    v.pretty(indent + 2, out);
                }
                out.push('\n');
                pad(indent, out);
                out.push('}');
            }
            other => other.write(out),
        }
    }

    /// The value as SQL text without quotes (JSON_UNQUOTE / `->>`).
    fn unquoted(&self) -> String {
        match self {
            Json::Str(s) | Json::Date(s) | Json::Time(s) | Json::DateTime(s) => s.clone(),
            other => other.render(),
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Int(i) => Some(*i as f64),
            Json::UInt(u) => Some(*u as f64),
            Json::Double(f) => Some(*f),
            Json::Decimal(d) => Some(d.to_f64()),
            _ => None,
        }
    }

    fn as_decimal(&self) -> Option<Decimal> {
        match self {
            Json::Int(i) => Some(Decimal::from(*i)),
            Json::UInt(u) => Some(Decimal::from(*u)),
            Json::Decimal(d) => Some(d.clone()),
            _ => None,
        }
    }

    /// Equality as JSON comparison defines it (numbers compare by value across types).
    fn json_eq(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Array(a), Json::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.json_eq(y))
            }
            (Json::Object(a), Json::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((k1, v1), (k2, v2))| k1 == k2 && v1.json_eq(v2))
            }
            (x, y) if x.as_f64().is_some() && y.as_f64().is_some() => {
                match (x.as_decimal(), y.as_decimal()) {
                    (Some(a), Some(b)) => a == b,
                    _ => x.as_f64() == y.as_f64(),
                }
            }
            (x, y) => x == y,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing JSON text

struct Parser<'a> {
    b: &'a [u8],
    pos: usize,
}

type ParseError = (&'static str, usize);

/// Parses JSON text; errors carry MySQL's message and the byte position.
pub fn parse(text: &str) -> std::result::Result<Json, ParseError> {
    let mut p = Parser {
        b: text.as_bytes(),
        pos: 0,
    };
    p.ws();
    if p.pos >= p.b.len() {
        return Err(("The document is empty.", p.pos));
    }
    let v = p.value(1)?;
    p.ws();
    if p.pos < p.b.len() {
        return Err((
            "The document root must not be followed by other values.",
            p.pos,
        ));
    }
    Ok(v)
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.pos < self.b.len() && matches!(self.b[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn value(&mut self, depth: usize) -> std::result::Result<Json, ParseError> {
        if depth > MAX_DEPTH {
            return Err((
                "The JSON document exceeds the maximum depth of 100.",
                self.pos,
            ));
        }
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut m: Vec<(String, Json)> = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Json::Object(m));
                }
                loop {
                    self.ws();
                    if self.peek() != Some(b'"') {
                        return Err(("Missing a name for object member.", self.pos));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.peek() != Some(b':') {
                        return Err(("Missing a colon after a name of object member.", self.pos));
                    }
                    self.pos += 1;
                    self.ws();
                    let v = self.value(depth + 1)?;
                    Json::put(&mut m, k, v);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Json::Object(m));
                        }
                        _ => {
                            return Err((
                                "Missing a comma or '}' after an object member.",
                                self.pos,
                            ))
                        }
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut a = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Json::Array(a));
                }
                loop {
                    self.ws();
                    a.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Json::Array(a));
                        }
                        _ => {
                            return Err((
                                "Missing a comma or ']' after an array element.",
                                self.pos,
                            ))
                        }
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(("Invalid value.", self.pos)),
        }
    }

    fn literal(&mut self, word: &str, v: Json) -> std::result::Result<Json, ParseError> {
        if self.b[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(("Invalid value.", self.pos))
        }
    }

    fn number(&mut self) -> std::result::Result<Json, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let digits = |p: &mut Self| {
            let s = p.pos;
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.pos += 1;
            }
            p.pos - s
        };
        if self.peek() == Some(b'0') {
            self.pos += 1;
        } else if digits(self) == 0 {
            return Err(("Invalid value.", start));
        }
        let mut real = false;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            real = true;
            if digits(self) == 0 {
                return Err(("Miss fraction part in number.", self.pos));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            real = true;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(("Miss exponent in number.", self.pos));
            }
        }
        let t = std::str::from_utf8(&self.b[start..self.pos]).unwrap_or("0");
        if !real {
            if let Ok(i) = t.parse::<i64>() {
                return Ok(Json::Int(i));
            }
            if let Ok(u) = t.parse::<u64>() {
                return Ok(Json::UInt(u));
            }
        }
        match t.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Json::Double(f)),
            _ => Err(("Number too big to be stored in double.", start)),
        }
    }

    fn hex4(&mut self) -> std::result::Result<u32, ParseError> {
        let h = self
            .b
            .get(self.pos..self.pos + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or(("Incorrect hex digit after \\u escape in string.", self.pos))?;
        self.pos += 4;
        Ok(h)
    }

    fn string(&mut self) -> std::result::Result<String, ParseError> {
        self.pos += 1; // opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(("Missing a closing quotation mark in string.", self.pos));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(("Invalid escape character in string.", self.pos));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'/' => out.push(b'/'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp) {
                                if self.b[self.pos..].starts_with(b"\\u") {
                                    self.pos += 2;
                                    let lo = self.hex4()?;
                                    if !(0xDC00..0xE000).contains(&lo) {
                                        return Err((
                                            "The surrogate pair in string is invalid.",
                                            self.pos,
                                        ));
                                    }
                                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                } else {
                                    return Err((
                                        "The surrogate pair in string is invalid.",
                                        self.pos,
                                    ));
                                }
                            }
                            let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(("Invalid escape character in string.", self.pos - 1)),
                    }
                }
                c if c < 0x20 => {
                    return Err(("Invalid encoding in string.", self.pos - 1));
                }
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| ("Invalid encoding in string.", self.pos))
    }
}

// ---------------------------------------------------------------------------------------------
// Paths

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq)]
enum Leg {
    Member(String),
    AnyMember,
    /// `[i]`, `[last - k]`.
    Index(Idx),
    /// `[m to n]`.
    Range(Idx, Idx),
    AnyIndex,
    Ellipsis,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Idx {
    From(u64),
    Last(u64),
}

impl Idx {
    fn resolve(self, len: usize) -> Option<usize> {
        match self {
            Idx::From(i) => Some(i as usize),
            Idx::Last(k) => (len as u64).checked_sub(1 + k).map(|x| x as usize),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Path {
    legs: Vec<Leg>,
}

impl Path {
    fn has_wildcard(&self) -> bool {
        self.legs.iter().any(|l| {
            matches!(
                l,
                Leg::AnyMember | Leg::AnyIndex | Leg::Ellipsis | Leg::Range(..)
            )
        })
    }
}

fn path_error(pos: usize) -> Error {
    Error::new(
        ER_INVALID_JSON_PATH,
        format!("Invalid JSON path expression. The error is around character position {pos}."),
    )
}

fn parse_path(s: &str) -> Result<Path> {
    let b = s.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    ws(&mut i);
    if b.get(i) != Some(&b'$') {
        return Err(path_error(i));
    }
    i += 1;
    let mut legs = Vec::new();
    loop {
        ws(&mut i);
        let Some(&c) = b.get(i) else { break };
        match c {
            b'.' => {
                i += 1;
                ws(&mut i);
                match b.get(i) {
                    Some(b'*') => {
                        i += 1;
                        legs.push(Leg::AnyMember);
                    }
                    Some(b'"') => {
                        // A double-quoted key: a JSON string literal.
                        let start = i;
                        let mut j = i + 1;
                        while j < b.len() && b[j] != b'"' {
                            if b[j] == b'\\' {
                                j += 1;
                            }
                            j += 1;
                        }
                        if j >= b.len() {
                            return Err(path_error(j));
                        }
                        let lit = &s[start..=j];
                        match parse(lit) {
                            Ok(Json::Str(k)) => legs.push(Leg::Member(k)),
                            _ => return Err(path_error(j)),
                        }
                        i = j + 1;
                    }
                    _ => {
                        let start = i;
                        while i < b.len() {
                            let ch = s[i..].chars().next().unwrap_or(' ');
                            if ch.is_alphanumeric() || ch == '_' || ch == '$' || (ch as u32) > 127 {
                                i += ch.len_utf8();
                            } else {
                                break;
                            }
                        }
                        if i == start || b[start].is_ascii_digit() {
                            return Err(path_error(i));
                        }
                        legs.push(Leg::Member(s[start..i].to_string()));
                    }
                }
            }
            b'[' => {
                i += 1;
                ws(&mut i);
                if b.get(i) == Some(&b'*') {
                    i += 1;
                    ws(&mut i);
                    if b.get(i) != Some(&b']') {
                        return Err(path_error(i));
                    }
                    i += 1;
                    legs.push(Leg::AnyIndex);
                    continue;
                }
                let first = parse_idx(s, &mut i)?;
                ws(&mut i);
                let leg = if s[i..].starts_with("to") {
                    i += 2;
                    ws(&mut i);
                    let second = parse_idx(s, &mut i)?;
                    if let (Idx::From(a), Idx::From(z)) = (first, second) {
                        if z < a {
                            return Err(path_error(i));
                        }
                    }
                    Leg::Range(first, second)
                } else {
                    Leg::Index(first)
                };
                ws(&mut i);
                if b.get(i) != Some(&b']') {
                    return Err(path_error(i));
                }
                i += 1;
                legs.push(leg);
            }
            b'*' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                legs.push(Leg::Ellipsis);
            }
            _ => return Err(path_error(i)),
        }
    }
    if legs.last() == Some(&Leg::Ellipsis) {
        return Err(path_error(s.len()));
    }
    Ok(Path { legs })
}

fn parse_idx(s: &str, i: &mut usize) -> Result<Idx> {
    let b = s.as_bytes();
    let num = |i: &mut usize| -> Option<u64> {
        let st = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        s[st..*i].parse().ok()
    };
    if s[*i..].starts_with("last") {
        *i += 4;
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
        if b.get(*i) == Some(&b'-') {
            *i += 1;
            while *i < b.len() && b[*i].is_ascii_whitespace() {
                *i += 1;
            }
            return num(i).map(Idx::Last).ok_or_else(|| path_error(*i));
        }
        return Ok(Idx::Last(0));
    }
    num(i).map(Idx::From).ok_or_else(|| path_error(*i))
}

/// Finds every value `legs` selects in `v` (document order, duplicates removed for `**`).
fn seek<'a>(v: &'a Json, legs: &[Leg], out: &mut Vec<&'a Json>) {
    let Some((leg, rest)) = legs.split_first() else {
        if !out.iter().any(|x| std::ptr::eq(*x, v)) {
            out.push(v);
        }
        return;
    };
    match leg {
        Leg::Member(k) => {
            if let Some(c) = v.get(k) {
                seek(c, rest, out);
            }
        }
        Leg::AnyMember => {
            if let Json::Object(m) = v {
                for (_, c) in m {
                    seek(c, rest, out);
                }
            }
        }
        Leg::Index(ix) => match v {
            Json::Array(a) => {
                if let Some(c) = ix.resolve(a.len()).and_then(|i| a.get(i)) {
                    seek(c, rest, out);
                }
            }
            // A scalar or object behaves as a one-element array.
            other => {
                if ix.resolve(1) == Some(0) {
                    seek(other, rest, out);
                }
            }
        },
        Leg::Range(lo, hi) => {
            let (items, len): (Vec<&Json>, usize) = match v {
                Json::Array(a) => (a.iter().collect(), a.len()),
                other => (vec![other], 1),
            };
            if let (Some(l), Some(h)) = (lo.resolve(len), hi.resolve(len)) {
                for c in items.iter().take(h.saturating_add(1)).skip(l) {
                    seek(c, rest, out);
                }
            }
        }
        Leg::AnyIndex => {
            if let Json::Array(a) = v {
                for c in a {
                    seek(c, rest, out);
                }
            }
        }
        Leg::Ellipsis => {
            seek(v, rest, out);
            match v {
                Json::Array(a) => a.iter().for_each(|c| seek(c, legs, out)),
                Json::Object(m) => m.iter().for_each(|(_, c)| seek(c, legs, out)),
                _ => {}
            }
        }
    }
}

fn find<'a>(v: &'a Json, p: &Path) -> Vec<&'a Json> {
    let mut out = Vec::new();
    seek(v, &p.legs, &mut out);
    out
}

/// The single value at a wildcard-free path, mutably.
fn locate_mut<'a>(v: &'a mut Json, legs: &[Leg]) -> Option<&'a mut Json> {
    let Some((leg, rest)) = legs.split_first() else {
        return Some(v);
    };
    match leg {
        Leg::Member(k) => locate_mut(v.get_mut(k)?, rest),
        Leg::Index(ix) => {
            if let Json::Array(a) = v {
                let i = ix.resolve(a.len())?;
                locate_mut(a.get_mut(i)?, rest)
            } else if ix.resolve(1) == Some(0) {
                locate_mut(v, rest)
            } else {
                None
            }
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Converting SQL arguments

fn fname(name: &str) -> String {
    name.to_ascii_lowercase()
}

fn invalid_text(argno: usize, func: &str, msg: &str, pos: usize) -> Error {
    Error::new(
        ER_INVALID_JSON_TEXT_IN_PARAM,
        format!(
            "Invalid JSON text in argument {argno} to function {}: \"{msg}\" at position {pos}.",
            fname(func)
        ),
    )
}

/// Argument `i` (0-based) as a JSON document: JSON-typed values and strings are parsed.
fn doc_arg(args: &[Value], kinds: &[ArgKind], i: usize, func: &str) -> Result<Option<Json>> {
    let v = args.get(i).unwrap_or(&Value::Null);
    let kind = kinds.get(i).copied().unwrap_or(ArgKind::Plain);
    match v {
        Value::Null => Ok(None),
        Value::Str(s) => parse(s).map(Some).map_err(|(m, p)| {
            if m.starts_with("The JSON document exceeds") {
                Error::new(ER_JSON_DOCUMENT_TOO_DEEP, m)
            } else {
                invalid_text(i + 1, func, m, p)
            }
        }),
        Value::Bytes(_) if kind == ArgKind::Json => {
            let s = String::from_utf8_lossy(match v {
                Value::Bytes(b) => b,
                _ => &[][..],
            })
            .into_owned();
            parse(&s)
                .map(Some)
                .map_err(|(m, p)| invalid_text(i + 1, func, m, p))
        }
        Value::Bytes(_) => Err(Error::new(
            ER_INVALID_JSON_CHARSET,
            "Cannot create a JSON value from a string with CHARACTER SET 'binary'.",
        )),
        _ => Err(Error::new(
            ER_INVALID_TYPE_FOR_JSON,
            format!(
                "Invalid data type for JSON data in argument {} to function {}; a JSON string or JSON type is required.",
                i + 1,
                fname(func)
            ),
        )),
    }
}

/// Argument `i` as a JSON value (`JSON_OBJECT`/`JSON_SET` values): strings become JSON strings
/// unless the argument is JSON-typed.
fn value_arg(args: &[Value], kinds: &[ArgKind], i: usize, func: &str) -> Result<Json> {
    let v = args.get(i).unwrap_or(&Value::Null);
    let kind = kinds.get(i).copied().unwrap_or(ArgKind::Plain);
    if kind == ArgKind::Json {
        return Ok(doc_arg(args, kinds, i, func)?.unwrap_or(Json::Null));
    }
    Ok(sql_to_json(v, kind == ArgKind::Bool))
}

/// Converts a SQL value to JSON as MySQL does for function arguments.
pub fn sql_to_json(v: &Value, boolean: bool) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Int(i) if boolean => Json::Bool(*i != 0),
        Value::UInt(u) if boolean => Json::Bool(*u != 0),
        Value::Int(i) => Json::Int(*i),
        Value::UInt(u) if *u <= i64::MAX as u64 => Json::Int(*u as i64),
        Value::UInt(u) => Json::UInt(*u),
        Value::Float(f) => Json::Double(*f as f64),
        Value::Double(f) => Json::Double(*f),
        Value::Decimal(d) => Json::Decimal(d.clone()),
        Value::Str(s) => Json::Str(s.clone()),
        Value::Bytes(b) => Json::Opaque(b.clone()),
        Value::Date(d) => Json::Date(d.fmt_date()),
        Value::DateTime(d, _) => Json::DateTime(d.fmt_datetime(6)),
        Value::Time(t, _) => Json::Time(t.fmt(6)),
    }
}

fn path_arg(args: &[Value], i: usize) -> Result<Option<Path>> {
    match args.get(i).unwrap_or(&Value::Null) {
        Value::Null => Ok(None),
        v => parse_path(&convert::to_string_value(v).unwrap_or_default()).map(Some),
    }
}

fn no_wildcards(p: &Path) -> Result<()> {
    if p.has_wildcard() {
        Err(Error::new(
            ER_INVALID_JSON_PATH_WILDCARD,
            "In this situation, path expressions may not contain the * and ** tokens or an array range.",
        ))
    } else {
        Ok(())
    }
}

fn out(j: &Json) -> Value {
    Value::Str(j.render())
}

/// Renders a path to a value the way JSON_SEARCH reports it.
fn path_string(steps: &[Step]) -> String {
    let mut s = String::from("$");
    for st in steps {
        match st {
            Step::Key(k) => {
                let plain = !k.is_empty()
                    && !k.as_bytes()[0].is_ascii_digit()
                    && k.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$');
                s.push('.');
                if plain {
                    s.push_str(k);
                } else {
                    s.push_str(&crate::json::quote(k));
                }
            }
            Step::Idx(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

#[derive(Clone)]
enum Step {
    Key(String),
    Idx(usize),
}

/// Every value in document order with its concrete path (for JSON_SEARCH).
fn walk<'a>(v: &'a Json, path: &mut Vec<Step>, f: &mut dyn FnMut(&'a Json, &[Step])) {
    f(v, path);
    match v {
        Json::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                path.push(Step::Idx(i));
                walk(c, path, f);
                path.pop();
            }
        }
        Json::Object(m) => {
            for (k, c) in m {
                path.push(Step::Key(k.clone()));
                walk(c, path, f);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Concrete paths a (possibly wildcard) path selects, for JSON_SEARCH's path filters.
fn concrete_paths(v: &Json, p: &Path) -> Vec<String> {
    let targets = find(v, p);
    let mut outp = Vec::new();
    walk(v, &mut Vec::new(), &mut |x, steps| {
        if targets.iter().any(|t| std::ptr::eq(*t, x)) {
            outp.push(path_string(steps));
        }
    });
    outp
}

// ---------------------------------------------------------------------------------------------
// Containment and merging

/// JSON_CONTAINS as MySQL's `contains_wr`: an array target contains a candidate when every
/// scalar of the (auto-wrapped) candidate is one of the target's own scalars and every nested
/// candidate array/object is contained in one of the target's arrays/objects.
fn contains(target: &Json, cand: &Json) -> bool {
    match target {
        Json::Object(_) => match cand {
            Json::Object(c) => c
                .iter()
                .all(|(k, cv)| target.get(k).is_some_and(|tv| contains(tv, cv))),
            _ => false,
        },
        Json::Array(t) => {
            let cands: Vec<&Json> = match cand {
                Json::Array(c) => c.iter().collect(),
                other => vec![other],
            };
            cands.iter().all(|ce| {
                if ce.is_scalar() {
                    t.iter().any(|te| te.is_scalar() && te.json_eq(ce))
                } else {
                    t.iter().any(|te| !te.is_scalar() && contains(te, ce))
                }
            })
        }
        t => t.json_eq(cand),
    }
}

fn overlaps(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Array(x), Json::Array(y)) => x.iter().any(|e| y.iter().any(|f| e.json_eq(f))),
        (Json::Array(x), s) | (s, Json::Array(x)) => x.iter().any(|e| e.json_eq(s)),
        (Json::Object(x), Json::Object(_)) => x
            .iter()
            .any(|(k, v)| b.get(k).is_some_and(|w| w.json_eq(v))),
        (x, y) => x.json_eq(y),
    }
}

fn merge_preserve(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Object(mut x), Json::Object(y)) => {
            for (k, v) in y {
                match x.binary_search_by(|(kk, _)| key_order(kk, &k)) {
                    Ok(i) => {
                        let old = std::mem::replace(&mut x[i].1, Json::Null);
                        x[i].1 = merge_preserve(old, v);
                    }
                    Err(i) => x.insert(i, (k, v)),
                }
            }
            Json::Object(x)
        }
        (a, b) => {
            let mut x = match a {
                Json::Array(x) => x,
                other => vec![other],
            };
            match b {
                Json::Array(y) => x.extend(y),
                other => x.push(other),
            }
            Json::Array(x)
        }
    }
}

fn merge_patch(target: Json, patch: Json) -> Json {
    let Json::Object(p) = patch else {
        return patch;
    };
    let mut t = match target {
        Json::Object(t) => t,
        _ => Vec::new(),
    };
    for (k, v) in p {
        let pos = t.binary_search_by(|(kk, _)| key_order(kk, &k));
        if v == Json::Null {
            if let Ok(i) = pos {
                t.remove(i);
            }
            continue;
        }
        match pos {
            Ok(i) => {
                let old = std::mem::replace(&mut t[i].1, Json::Null);
                t[i].1 = merge_patch(old, v);
            }
            Err(i) => t.insert(i, (k, merge_patch(Json::Null, v))),
        }
    }
    Json::Object(t)
}

// ---------------------------------------------------------------------------------------------
// Modification

#[derive(Clone, Copy, PartialEq, Eq)]
enum Modify {
    Set,
    Insert,
    Replace,
}

fn modify(doc: &mut Json, p: &Path, val: Json, how: Modify) {
    if p.legs.is_empty() {
        if how != Modify::Insert {
            *doc = val;
        }
        return;
    }
    if let Some(slot) = locate_mut(doc, &p.legs) {
        if how != Modify::Insert {
            *slot = val;
        }
        return;
    }
    if how == Modify::Replace {
        return;
    }
    let (last, parent_legs) = match p.legs.split_last() {
        Some(x) => x,
        None => return,
    };
    let Some(parent) = locate_mut(doc, parent_legs) else {
        return;
    };
    match (last, parent) {
        (Leg::Member(k), Json::Object(m)) => Json::put(m, k.clone(), val),
        (Leg::Index(_), Json::Array(a)) => a.push(val),
        (Leg::Index(_), other) => {
            // Auto-wrap: a non-array parent becomes [parent, val].
            let old = std::mem::replace(other, Json::Null);
            *other = Json::Array(vec![old, val]);
        }
        _ => {}
    }
}

fn remove(doc: &mut Json, p: &Path) {
    let Some((last, parent_legs)) = p.legs.split_last() else {
        return;
    };
    let Some(parent) = locate_mut(doc, parent_legs) else {
        return;
    };
    match (last, parent) {
        (Leg::Member(k), Json::Object(m)) => {
            if let Ok(i) = m.binary_search_by(|(kk, _)| key_order(kk, k)) {
                m.remove(i);
            }
        }
        (Leg::Index(ix), Json::Array(a)) => {
            if let Some(i) = ix.resolve(a.len()) {
                if i < a.len() {
                    a.remove(i);
                }
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Binary storage size (JSON_STORAGE_SIZE)

fn varlen_size(n: usize) -> usize {
    let mut k = 1;
    let mut v = n >> 7;
    while v > 0 {
        k += 1;
        v >>= 7;
    }
    k
}

/// Size in bytes of a value in MySQL's binary JSON format, without its type byte.
fn binary_size(v: &Json, large: bool) -> usize {
    match v {
        Json::Null | Json::Bool(_) => 1,
        Json::Int(i) => {
            if i16::try_from(*i).is_ok() {
                2
            } else if i32::try_from(*i).is_ok() {
                4
            } else {
                8
            }
        }
        Json::UInt(_) => 8,
        Json::Double(_) => 8,
        Json::Str(s) => varlen_size(s.len()) + s.len(),
        Json::Decimal(d) => {
            // opaque: field type, length, precision + scale + packed decimal digits
            let scale = d.scale() as usize;
            let digits = (d.int_digits() as usize + scale).max(scale + 1);
            let intg = digits - scale;
            let packed = |n: usize| n / 9 * 4 + [0, 1, 1, 2, 2, 3, 3, 4, 4][n % 9];
            let len = 2 + packed(intg) + packed(scale);
            1 + varlen_size(len) + len
        }
        Json::Date(_) | Json::Time(_) | Json::DateTime(_) => 1 + 1 + 8,
        Json::Opaque(b) => 1 + varlen_size(b.len()) + b.len(),
        Json::Array(a) => container_size(a.iter().map(|x| (None, x)).collect(), large),
        Json::Object(m) => container_size(m.iter().map(|(k, x)| (Some(k), x)).collect(), large),
    }
}

fn inlined(v: &Json, large: bool) -> bool {
    match v {
        Json::Null | Json::Bool(_) => true,
        Json::Int(i) => i16::try_from(*i).is_ok() || (large && i32::try_from(*i).is_ok()),
        _ => false,
    }
}

fn container_size(items: Vec<(Option<&String>, &Json)>, large: bool) -> usize {
    let w = if large { 4 } else { 2 };
    let mut size = 2 * w;
    for (k, v) in &items {
        if let Some(k) = k {
            size += w + 2 + k.len();
        }
        size += 1 + w;
        if !inlined(v, large) {
            size += binary_size(v, large);
        }
    }
    if !large && size > u16::MAX as usize {
        return container_size(items, true);
    }
    size
}

// ---------------------------------------------------------------------------------------------
// Entry points

/// Names handled by [`call`].
pub const NAMES: &[&str] = &[
    crate::json_order::JSON_KEY,
    "JSON_ARRAY",
    "JSON_OBJECT",
    "JSON_QUOTE",
    "JSON_UNQUOTE",
    "JSON_EXTRACT",
    "JSON_VALUE",
    "JSON_CONTAINS",
    "JSON_CONTAINS_PATH",
    "JSON_KEYS",
    "JSON_LENGTH",
    "JSON_DEPTH",
    "JSON_TYPE",
    "JSON_VALID",
    "JSON_SET",
    "JSON_INSERT",
    "JSON_REPLACE",
    "JSON_REMOVE",
    "JSON_ARRAY_APPEND",
    "JSON_ARRAY_INSERT",
    "JSON_MERGE",
    "JSON_MERGE_PRESERVE",
    "JSON_MERGE_PATCH",
    "JSON_SEARCH",
    "JSON_PRETTY",
    "JSON_OVERLAPS",
    "JSON_STORAGE_SIZE",
    "JSON_STORAGE_FREE",
    MEMBER_OF,
];

/// True if `name`'s result is a JSON value (so the SQL layer marks it as JSON-typed when it is
/// an argument of another JSON function).
pub fn returns_json(name: &str) -> bool {
    matches!(
        name,
        "JSON_ARRAY"
            | "JSON_OBJECT"
            | "JSON_EXTRACT"
            | "JSON_KEYS"
            | "JSON_SET"
            | "JSON_INSERT"
            | "JSON_REPLACE"
            | "JSON_REMOVE"
            | "JSON_ARRAY_APPEND"
            | "JSON_ARRAY_INSERT"
            | "JSON_MERGE"
            | "JSON_MERGE_PRESERVE"
            | "JSON_MERGE_PATCH"
            | "JSON_ARRAYAGG"
            | "JSON_OBJECTAGG"
            | MARK_JSON
    )
}

/// True if `name` is a JSON function whose arguments' JSON-ness matters.
pub fn takes_json(name: &str) -> bool {
    NAMES.contains(&name)
}

/// Evaluates JSON function `name` with argument kinds from the SQL layer (missing kinds are
/// [`ArgKind::Plain`]).
pub fn call(
    name: &str,
    args: &[Value],
    kinds: &[ArgKind],
    ctx: &mut FnCtx,
    w: &mut Vec<Warning>,
) -> Result<Value> {
    let n = args.len();
    let need = |ok: bool| -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(arg_count_error(name))
        }
    };
    let a = |i: usize| args.get(i).unwrap_or(&Value::Null);
    match name {
        crate::json_order::JSON_KEY => {
            need(n == 1)?;
            let j = match a(0) {
                Value::Null => None,
                _ => Some(value_arg(args, kinds, 0, name)?),
            };
            Ok(crate::json_order::key_value(j.as_ref()))
        }
        "JSON_ARRAY" => {
            let mut v = Vec::with_capacity(n);
            for i in 0..n {
                v.push(value_arg(args, kinds, i, name)?);
            }
            Ok(out(&Json::Array(v)))
        }
        "JSON_OBJECT" => {
            need(n & 1 == 0)?;
            let mut m = Vec::new();
            for i in (0..n).step_by(2) {
                if a(i).is_null() {
                    return Err(Error::new(
                        ER_JSON_DOCUMENT_NULL_KEY,
                        "JSON documents may not contain NULL member names.",
                    ));
                }
                let k = convert::to_string_value(a(i)).unwrap_or_default();
                let v = value_arg(args, kinds, i + 1, name)?;
                Json::put(&mut m, k, v);
            }
            Ok(out(&Json::Object(m)))
        }
        "JSON_QUOTE" => {
            need(n == 1)?;
            Ok(match a(0) {
                Value::Null => Value::Null,
                Value::Str(s) => Value::Str(crate::json::quote(s)),
                v @ Value::Bytes(_) if kinds.first() == Some(&ArgKind::Json) => {
                    Value::Str(crate::json::quote(&convert::to_string_value(v).unwrap_or_default()))
                }
                _ => {
                    return Err(Error::new(
                        ER_INVALID_TYPE_FOR_JSON,
                        "Invalid data type for JSON data in argument 1 to function json_quote; a JSON string or JSON type is required.",
                    ))
                }
            })
        }
        "JSON_UNQUOTE" => {
            need(n == 1)?;
            if a(0).is_null() {
                return Ok(Value::Null);
            }
            if kinds.first() == Some(&ArgKind::Json) {
                return Ok(match doc_arg(args, kinds, 0, name)? {
                    Some(j) => Value::Str(j.unquoted()),
                    None => Value::Null,
                });
            }
            let s = convert::to_string_value(a(0)).unwrap_or_default();
            if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
                return match parse(&s) {
                    Ok(Json::Str(u)) => Ok(Value::Str(u)),
                    Ok(_) => Ok(Value::Str(s)),
                    Err((m, p)) => Err(invalid_text(1, name, m, p)),
                };
            }
            Ok(Value::Str(s))
        }
        "JSON_EXTRACT" => {
            need(n >= 2)?;
            let Some(doc) = doc_arg(args, kinds, 0, name)? else {
                return Ok(Value::Null);
            };
            let mut paths = Vec::new();
            for i in 1..n {
                match path_arg(args, i)? {
                    Some(p) => paths.push(p),
                    None => return Ok(Value::Null),
                }
            }
            let wrap = paths.len() > 1 || paths.iter().any(Path::has_wildcard);
            let mut hits = Vec::new();
            for p in &paths {
                hits.extend(find(&doc, p));
            }
            Ok(if hits.is_empty() {
                Value::Null
            } else if !wrap {
                out(hits[0])
            } else {
                out(&Json::Array(hits.into_iter().cloned().collect()))
            })
        }
        "JSON_VALUE" => {
            need(n == 2)?;
            let Some(doc) = doc_arg(args, kinds, 0, name)? else {
                return Ok(Value::Null);
            };
            let Some(p) = path_arg(args, 1)? else {
                return Ok(Value::Null);
            };
            no_wildcards(&p)?;
            Ok(match find(&doc, &p).first() {
                Some(Json::Null) | None => Value::Null,
                Some(j) if j.is_scalar() => Value::Str(j.unquoted()),
                Some(_) => Value::Null,
            })
        }
        "JSON_CONTAINS" => {
            need(n == 2 || n == 3)?;
            let target = doc_arg(args, kinds, 0, name)?;
            let cand = doc_arg(args, kinds, 1, name)?;
            let (Some(target), Some(cand)) = (target, cand) else {
                return Ok(Value::Null);
            };
            let t = if n == 3 {
                let Some(p) = path_arg(args, 2)? else {
                    return Ok(Value::Null);
                };
                no_wildcards(&p)?;
                match find(&target, &p).first() {
                    Some(t) => (*t).clone(),
                    None => return Ok(Value::Null),
                }
            } else {
                target
            };
            Ok(Value::Int(contains(&t, &cand) as i64))
        }
        "JSON_CONTAINS_PATH" => {
            need(n >= 3)?;
            let doc = doc_arg(args, kinds, 0, name)?;
            if a(1).is_null() {
                return Ok(Value::Null);
            }
            let mode = convert::to_string_value(a(1))
                .unwrap_or_default()
                .to_ascii_lowercase();
            if mode != "one" && mode != "all" {
                return Err(one_or_all_error(name));
            }
            let mut paths = Vec::new();
            for i in 2..n {
                match path_arg(args, i)? {
                    Some(p) => paths.push(p),
                    None => return Ok(Value::Null),
                }
            }
            let Some(doc) = doc else {
                return Ok(Value::Null);
            };
            let mut found = paths.iter().map(|p| !find(&doc, p).is_empty());
            Ok(Value::Int(if mode == "one" {
                found.any(|x| x)
            } else {
                found.all(|x| x)
            } as i64))
        }
        "JSON_KEYS" => {
            need(n == 1 || n == 2)?;
            let Some(doc) = doc_arg(args, kinds, 0, name)? else {
                return Ok(Value::Null);
            };
            let target = if n == 2 {
                let Some(p) = path_arg(args, 1)? else {
                    return Ok(Value::Null);
                };
                no_wildcards(&p)?;
                match find(&doc, &p).first() {
                    Some(t) => (*t).clone(),
                    None => return Ok(Value::Null),
                }
            } else {
                doc
            };
            Ok(match target {
                Json::Object(m) => out(&Json::Array(
                    m.into_iter().map(|(k, _)| Json::Str(k)).collect(),
                )),
                _ => Value::Null,
            })
        }
        "JSON_LENGTH" => {
            need(n == 1 || n == 2)?;
            let Some(doc) = doc_arg(args, kinds, 0, name)? else {
                return Ok(Value::Null);
            };
            if n == 2 {
                let Some(p) = path_arg(args, 1)? else {
                    return Ok(Value::Null);
                };
                no_wildcards(&p)?;
                return Ok(match find(&doc, &p).first() {
                    Some(t) => Value::Int(t.len() as i64),
                    None => Value::Null,
                });
            }
            Ok(Value::Int(doc.len() as i64))
        }
        "JSON_DEPTH" | "JSON_TYPE" | "JSON_PRETTY" | "JSON_STORAGE_SIZE" | "JSON_STORAGE_FREE" => {
            need(n == 1)?;
            let Some(doc) = doc_arg(args, kinds, 0, name)? else {
                return Ok(Value::Null);
            };
            Ok(match name {
                "JSON_DEPTH" => Value::Int(doc.depth()),
                "JSON_TYPE" => Value::Str(doc.type_name().into()),
                "JSON_STORAGE_SIZE" => Value::Int(1 + binary_size(&doc, false) as i64),
                "JSON_STORAGE_FREE" => Value::Int(0),
                _ => {
                    let mut s = String::new();
                    doc.pretty(0, &mut s);
                    Value::Str(s)
                }
            })
        }
        "JSON_VALID" => {
            need(n == 1)?;
            Ok(match a(0) {
                Value::Null => Value::Null,
                Value::Str(s) => Value::Int(parse(s).is_ok() as i64),
                Value::Bytes(b) if kinds.first() == Some(&ArgKind::Json) => {
                    Value::Int(parse(&String::from_utf8_lossy(b)).is_ok() as i64)
                }
                _ => Value::Int(0),
            })
        }
        "JSON_SET" | "JSON_INSERT" | "JSON_REPLACE" | "JSON_ARRAY_APPEND" | "JSON_ARRAY_INSERT" => {
            need(n >= 3 && n % 2 == 1)?;
            let doc = doc_arg(args, kinds, 0, name)?;
            let mut pv = Vec::new();
            for i in (1..n).step_by(2) {
                let p = path_arg(args, i)?;
                if let Some(p) = &p {
                    no_wildcards(p)?;
                }
                pv.push((p, value_arg(args, kinds, i + 1, name)?));
            }
            let Some(mut doc) = doc else {
                return Ok(Value::Null);
            };
            for (p, v) in pv {
                let Some(p) = p else {
                    return Ok(Value::Null);
                };
                match name {
                    "JSON_SET" => modify(&mut doc, &p, v, Modify::Set),
                    "JSON_INSERT" => modify(&mut doc, &p, v, Modify::Insert),
                    "JSON_REPLACE" => modify(&mut doc, &p, v, Modify::Replace),
                    "JSON_ARRAY_APPEND" => {
                        if let Some(slot) = locate_mut(&mut doc, &p.legs) {
                            match slot {
                                Json::Array(a) => a.push(v),
                                other => {
                                    let old = std::mem::replace(other, Json::Null);
                                    *other = Json::Array(vec![old, v]);
                                }
                            }
                        }
                    }
                    _ => {
                        // JSON_ARRAY_INSERT
                        let Some((Leg::Index(ix), parent)) = p.legs.split_last() else {
                            return Err(Error::new(
                                ER_INVALID_JSON_PATH_ARRAY_CELL,
                                "A path expression is not a path to a cell in an array.",
                            ));
                        };
                        if let Some(Json::Array(a)) = locate_mut(&mut doc, parent) {
                            let i = ix.resolve(a.len()).unwrap_or(0).min(a.len());
                            a.insert(i, v);
                        }
                    }
                }
            }
            Ok(out(&doc))
        }
        "JSON_REMOVE" => {
            need(n >= 2)?;
            let doc = doc_arg(args, kinds, 0, name)?;
            let mut paths = Vec::new();
            for i in 1..n {
                let p = path_arg(args, i)?;
                if let Some(p) = &p {
                    no_wildcards(p)?;
                    if p.legs.is_empty() {
                        return Err(Error::new(
                            ER_JSON_VACUOUS_PATH,
                            "The path expression '$' is not allowed in this context.",
                        ));
                    }
                }
                paths.push(p);
            }
            let Some(mut doc) = doc else {
                return Ok(Value::Null);
            };
            for p in paths {
                let Some(p) = p else {
                    return Ok(Value::Null);
                };
                remove(&mut doc, &p);
            }
            Ok(out(&doc))
        }
        "JSON_MERGE" | "JSON_MERGE_PRESERVE" => {
            need(n >= 2)?;
            if name == "JSON_MERGE" {
                w.push(Warning::warn(
                    ER_WARN_DEPRECATED_SYNTAX,
                    "'JSON_MERGE' is deprecated and will be removed in a future release. Please use JSON_MERGE_PRESERVE/JSON_MERGE_PATCH instead",
                ));
            }
            let mut acc: Option<Json> = None;
            let mut null = false;
            for i in 0..n {
                match doc_arg(args, kinds, i, name)? {
                    None => null = true,
                    Some(d) => {
                        acc = Some(match acc {
                            None => d,
                            Some(x) => merge_preserve(x, d),
                        })
                    }
                }
            }
            Ok(match acc {
                Some(j) if !null => out(&j),
                _ => Value::Null,
            })
        }
        "JSON_MERGE_PATCH" => {
            need(n >= 2)?;
            let mut acc = doc_arg(args, kinds, 0, name)?;
            for i in 1..n {
                acc = match (acc, doc_arg(args, kinds, i, name)?) {
                    (_, None) => None,
                    (_, Some(p)) if !matches!(p, Json::Object(_)) => Some(p),
                    (None, Some(_)) => None,
                    (Some(t), Some(p)) => Some(merge_patch(t, p)),
                };
            }
            Ok(acc.map_or(Value::Null, |j| out(&j)))
        }
        "JSON_SEARCH" => {
            need(n >= 3)?;
            let doc = doc_arg(args, kinds, 0, name)?;
            if a(1).is_null() {
                return Ok(Value::Null);
            }
            let mode = convert::to_string_value(a(1))
                .unwrap_or_default()
                .to_ascii_lowercase();
            if mode != "one" && mode != "all" {
                return Err(one_or_all_error(name));
            }
            if a(2).is_null() {
                return Ok(Value::Null);
            }
            let pat = convert::to_string_value(a(2)).unwrap_or_default();
            let esc = match a(3) {
                Value::Null => '\\',
                v => {
                    let e = convert::to_string_value(v).unwrap_or_default();
                    let mut cs = e.chars();
                    match (cs.next(), cs.next()) {
                        (None, _) => '\\',
                        (Some(c), None) => c,
                        _ => {
                            return Err(Error::new(
                                common::codes::ER_WRONG_ARGUMENTS,
                                "Incorrect arguments to ESCAPE",
                            ))
                        }
                    }
                }
            };
            let mut filters = Vec::new();
            for i in 4..n {
                match path_arg(args, i)? {
                    Some(p) => filters.push(p),
                    None => return Ok(Value::Null),
                }
            }
            let Some(doc) = doc else {
                return Ok(Value::Null);
            };
            let allowed: Option<Vec<String>> = if filters.is_empty() {
                None
            } else {
                Some(
                    filters
                        .iter()
                        .flat_map(|p| concrete_paths(&doc, p))
                        .collect(),
                )
            };
            let coll = ctx.collation;
            let mut hits: Vec<String> = Vec::new();
            walk(&doc, &mut Vec::new(), &mut |v, steps| {
                if let Json::Str(s) = v {
                    if crate::pattern::like(s, &pat, esc, coll) {
                        let ps = path_string(steps);
                        let ok = match &allowed {
                            None => true,
                            Some(al) => al.iter().any(|a| {
                                ps.strip_prefix(a.as_str())
                                    .is_some_and(|r| r.is_empty() || r.starts_with(['.', '[']))
                            }),
                        };
                        if ok && !hits.contains(&ps) {
                            hits.push(ps);
                        }
                    }
                }
            });
            Ok(match (hits.len(), mode.as_str()) {
                (0, _) => Value::Null,
                (_, "one") | (1, _) => out(&Json::Str(hits.swap_remove(0))),
                _ => out(&Json::Array(hits.into_iter().map(Json::Str).collect())),
            })
        }
        "JSON_OVERLAPS" => {
            need(n == 2)?;
            let x = doc_arg(args, kinds, 0, name)?;
            let y = doc_arg(args, kinds, 1, name)?;
            Ok(match (x, y) {
                (Some(x), Some(y)) => Value::Int(overlaps(&x, &y) as i64),
                _ => Value::Null,
            })
        }
        MEMBER_OF => {
            need(n == 2)?;
            let Some(arr) = doc_arg(args, kinds, 1, "member of")? else {
                return Ok(Value::Null);
            };
            if a(0).is_null() {
                return Ok(Value::Null);
            }
            let v = value_arg(args, kinds, 0, "member of")?;
            Ok(Value::Int(match arr {
                Json::Array(items) => items.iter().any(|e| e.json_eq(&v)),
                other => other.json_eq(&v),
            } as i64))
        }
        _ => Err(crate::scalar::unknown_function_error(name, ctx)),
    }
}

fn one_or_all_error(name: &str) -> Error {
    Error::new(
        ER_JSON_BAD_ONE_OR_ALL_ARG,
        format!(
            "The oneOrAll argument to {} may take these values: 'one' or 'all'.",
            fname(name)
        ),
    )
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
    fn cj(name: &str, args: &[Value], kinds: &[ArgKind]) -> Result<Value> {
        call(name, args, kinds, &mut FnCtx::default(), &mut vec![])
    }
    fn c(name: &str, args: &[Value]) -> String {
        cj(name, args, &[]).unwrap().to_string()
    }
    fn null(name: &str, args: &[Value]) -> bool {
        cj(name, args, &[]).unwrap().is_null()
    }

    #[test]
    fn parse_and_render() {
        assert_eq!(
            parse(r#"{"bb":1,"a":2,"a":3, "c": [1.50, -2e2, 18446744073709551615]}"#)
                .unwrap()
                .render(),
            r#"{"a": 3, "c": [1.5, -200.0, 18446744073709551615], "bb": 1}"#
        );
        assert_eq!(parse("").unwrap_err(), ("The document is empty.", 0));
        assert_eq!(parse("[1,]").unwrap_err(), ("Invalid value.", 3));
        assert_eq!(
            parse("{\"a\" 1}").unwrap_err(),
            ("Missing a colon after a name of object member.", 5)
        );
        assert_eq!(
            parse(r#""\u00e9\ud83d\ude00""#).unwrap(),
            Json::Str("é😀".into())
        );
        let deep = "[".repeat(101) + &"]".repeat(101);
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn construct() {
        assert_eq!(
            c(
                "JSON_ARRAY",
                &[
                    i(1),
                    s("abc"),
                    Value::Null,
                    Value::Decimal(Decimal::new(150, 2))
                ]
            ),
            r#"[1, "abc", null, 1.50]"#
        );
        assert_eq!(
            c("JSON_OBJECT", &[s("id"), i(87), s("name"), s("carrot")]),
            r#"{"id": 87, "name": "carrot"}"#
        );
        assert_eq!(
            cj(
                "JSON_OBJECT",
                &[s("a"), s("[1, 2]"), s("b"), i(1)],
                &[ArgKind::Plain, ArgKind::Json, ArgKind::Plain, ArgKind::Bool]
            )
            .unwrap()
            .to_string(),
            r#"{"a": [1, 2], "b": true}"#
        );
        assert_eq!(cj("JSON_OBJECT", &[s("a")], &[]).unwrap_err().num(), 1582);
        assert_eq!(
            cj("JSON_OBJECT", &[Value::Null, i(1)], &[])
                .unwrap_err()
                .num(),
            3158
        );
        assert_eq!(c("JSON_ARRAY", &[]), "[]");
    }

    #[test]
    fn extract_and_paths() {
        let d = s(r#"{"a": [10, 20, {"b": 30}], "c d": "x", "e": {"b": 40}}"#);
        assert_eq!(c("JSON_EXTRACT", &[d.clone(), s("$.a[1]")]), "20");
        assert_eq!(
            c("JSON_EXTRACT", &[d.clone(), s("$.a[last]")]),
            r#"{"b": 30}"#
        );
        assert_eq!(c("JSON_EXTRACT", &[d.clone(), s("$.\"c d\"")]), r#""x""#);
        assert_eq!(
            c("JSON_EXTRACT", &[d.clone(), s("$.a[0]"), s("$.a[1]")]),
            "[10, 20]"
        );
        assert_eq!(c("JSON_EXTRACT", &[d.clone(), s("$**.b")]), "[30, 40]");
        assert_eq!(
            c("JSON_EXTRACT", &[d.clone(), s("$.a[0 to 1]")]),
            "[10, 20]"
        );
        assert_eq!(c("JSON_EXTRACT", &[d.clone(), s("$.e[0].b")]), "40");
        assert!(null("JSON_EXTRACT", &[d.clone(), s("$.zz")]));
        assert!(null("JSON_EXTRACT", &[d.clone(), Value::Null]));
        let e = cj("JSON_EXTRACT", &[d.clone(), s("$.")], &[]).unwrap_err();
        assert_eq!(e.num(), 3143);
        let e = cj("JSON_EXTRACT", &[s("{"), s("$")], &[]).unwrap_err();
        assert_eq!(e.num(), 3141);
        assert_eq!(
            e.msg,
            "Invalid JSON text in argument 1 to function json_extract: \"Missing a name for object member.\" at position 1."
        );
        assert_eq!(
            cj("JSON_EXTRACT", &[i(1), s("$")], &[]).unwrap_err().num(),
            3146
        );
        assert_eq!(c("JSON_UNQUOTE", &[s(r#""a\tb""#)]), "a\tb");
        assert_eq!(c("JSON_UNQUOTE", &[s("abc")]), "abc");
        assert_eq!(c("JSON_VALUE", &[d.clone(), s("$.e.b")]), "40");
        assert_eq!(c("JSON_VALUE", &[d, s("$.\"c d\"")]), "x");
    }

    #[test]
    fn inspect() {
        let d = s(r#"{"a": 1, "b": [1, 2, {"c": 3}]}"#);
        assert_eq!(c("JSON_KEYS", std::slice::from_ref(&d)), r#"["a", "b"]"#);
        assert!(null("JSON_KEYS", &[d.clone(), s("$.a")]));
        assert_eq!(c("JSON_LENGTH", std::slice::from_ref(&d)), "2");
        assert_eq!(c("JSON_LENGTH", &[d.clone(), s("$.b")]), "3");
        assert_eq!(c("JSON_DEPTH", std::slice::from_ref(&d)), "4");
        assert_eq!(c("JSON_DEPTH", &[s("[]")]), "1");
        assert_eq!(c("JSON_TYPE", std::slice::from_ref(&d)), "OBJECT");
        assert_eq!(c("JSON_TYPE", &[s("1.5")]), "DOUBLE");
        assert_eq!(
            c("JSON_TYPE", &[s("18446744073709551615")]),
            "UNSIGNED INTEGER"
        );
        assert_eq!(c("JSON_VALID", &[s("{\"a\":1}")]), "1");
        assert_eq!(c("JSON_VALID", &[s("hello")]), "0");
        assert_eq!(c("JSON_CONTAINS", &[d.clone(), s("1"), s("$.a")]), "1");
        assert_eq!(c("JSON_CONTAINS", &[d.clone(), s(r#"{"a": 1}"#)]), "1");
        assert_eq!(c("JSON_CONTAINS", &[d.clone(), s("[2, 1]"), s("$.b")]), "1");
        assert_eq!(c("JSON_CONTAINS", &[d.clone(), s("2"), s("$.a")]), "0");
        // Candidate scalars must be top-level scalars of an array target (MariaDB differs).
        assert_eq!(c("JSON_CONTAINS", &[s("[1, [2, 3]]"), s("2")]), "0");
        assert_eq!(c("JSON_CONTAINS", &[s("[1, [2, 3]]"), s("[[2]]")]), "1");
        assert_eq!(
            c(
                "JSON_CONTAINS",
                &[s(r#"[{"a": 1, "b": 2}]"#), s(r#"{"a": 1}"#)]
            ),
            "1"
        );
        assert!(null("JSON_CONTAINS", &[d.clone(), s("2"), s("$.zz")]));
        assert_eq!(
            c(
                "JSON_CONTAINS_PATH",
                &[d.clone(), s("one"), s("$.a"), s("$.e")]
            ),
            "1"
        );
        assert_eq!(
            c(
                "JSON_CONTAINS_PATH",
                &[d.clone(), s("all"), s("$.a"), s("$.e")]
            ),
            "0"
        );
        assert_eq!(
            cj("JSON_CONTAINS_PATH", &[d.clone(), s("x"), s("$")], &[])
                .unwrap_err()
                .num(),
            3154
        );
        assert_eq!(c("JSON_OVERLAPS", &[s("[1,3,5]"), s("[2,5,7]")]), "1");
        assert_eq!(c("JSON_OVERLAPS", &[s("[1,3,5]"), s("[2,6,7]")]), "0");
        assert_eq!(c(MEMBER_OF, &[i(17), s("[23, \"abc\", 17, \"ab\"]")]), "1");
        assert_eq!(
            c(MEMBER_OF, &[s("ab"), s("[23, \"abc\", 17, \"ab\"]")]),
            "1"
        );
        assert_eq!(
            c(
                "JSON_STORAGE_SIZE",
                &[s(r#"[100, "sakila", [1, 3, 5], 425.05]"#)]
            ),
            "45"
        );
        assert_eq!(
            c(
                "JSON_STORAGE_SIZE",
                &[s(r#"{"a": 1000, "b": "wxyz", "c": "[1, 3, 5, 7]"}"#)]
            ),
            "47"
        );
        assert_eq!(
            c("JSON_PRETTY", &[s(r#"{"a":[1,{}],"b":[]}"#)]),
            "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": []\n}"
        );
    }

    #[test]
    fn modify_docs() {
        let d = s(r#"{ "a": 1, "b": [2, 3]}"#);
        assert_eq!(
            c(
                "JSON_SET",
                &[d.clone(), s("$.a"), i(10), s("$.c"), s("[true, false]")]
            ),
            r#"{"a": 10, "b": [2, 3], "c": "[true, false]"}"#
        );
        assert_eq!(
            c(
                "JSON_INSERT",
                &[d.clone(), s("$.a"), i(10), s("$.c"), s("x")]
            ),
            r#"{"a": 1, "b": [2, 3], "c": "x"}"#
        );
        assert_eq!(
            c(
                "JSON_REPLACE",
                &[d.clone(), s("$.a"), i(10), s("$.c"), s("x")]
            ),
            r#"{"a": 10, "b": [2, 3]}"#
        );
        assert_eq!(
            c("JSON_SET", &[d.clone(), s("$.a[1]"), i(5)]),
            r#"{"a": [1, 5], "b": [2, 3]}"#
        );
        assert_eq!(
            c("JSON_SET", &[d.clone(), s("$.b[5]"), i(5)]),
            r#"{"a": 1, "b": [2, 3, 5]}"#
        );
        assert_eq!(
            c("JSON_REMOVE", &[d.clone(), s("$.b[0]")]),
            r#"{"a": 1, "b": [3]}"#
        );
        assert_eq!(
            cj("JSON_REMOVE", &[d.clone(), s("$")], &[])
                .unwrap_err()
                .num(),
            3153
        );
        assert_eq!(
            cj("JSON_SET", &[d.clone(), s("$.*"), i(1)], &[])
                .unwrap_err()
                .num(),
            3149
        );
        let arr = s(r#"["a", ["b", "c"], "d"]"#);
        assert_eq!(
            c("JSON_ARRAY_APPEND", &[arr.clone(), s("$[1]"), i(1)]),
            r#"["a", ["b", "c", 1], "d"]"#
        );
        assert_eq!(
            c("JSON_ARRAY_APPEND", &[arr.clone(), s("$[0]"), i(2)]),
            r#"[["a", 2], ["b", "c"], "d"]"#
        );
        assert_eq!(
            c("JSON_ARRAY_INSERT", &[arr.clone(), s("$[1]"), s("x")]),
            r#"["a", "x", ["b", "c"], "d"]"#
        );
        assert_eq!(
            c("JSON_ARRAY_INSERT", &[arr.clone(), s("$[100]"), s("x")]),
            r#"["a", ["b", "c"], "d", "x"]"#
        );
        assert_eq!(
            cj("JSON_ARRAY_INSERT", &[arr, s("$.a"), i(1)], &[])
                .unwrap_err()
                .num(),
            3165
        );
        assert_eq!(
            c(
                "JSON_MERGE_PRESERVE",
                &[s("[1, 2]"), s("true"), s(r#"{"id": 47}"#)]
            ),
            r#"[1, 2, true, {"id": 47}]"#
        );
        assert_eq!(
            c(
                "JSON_MERGE_PRESERVE",
                &[s(r#"{"a": 1, "b": 2}"#), s(r#"{"a": 3, "c": 4}"#)]
            ),
            r#"{"a": [1, 3], "b": 2, "c": 4}"#
        );
        assert_eq!(
            c(
                "JSON_MERGE_PATCH",
                &[s(r#"{"a": 1, "b": 2}"#), s(r#"{"a": 3, "c": 4}"#)]
            ),
            r#"{"a": 3, "b": 2, "c": 4}"#
        );
        assert_eq!(
            c(
                "JSON_MERGE_PATCH",
                &[s(r#"{"a":1,"b":2}"#), s(r#"{"b":null}"#)]
            ),
            r#"{"a": 1}"#
        );
        assert_eq!(
            c("JSON_MERGE_PATCH", &[s("[1, 2]"), s("[true, false]")]),
            "[true, false]"
        );
        assert!(null("JSON_MERGE_PATCH", &[s("{}"), Value::Null]));
        assert_eq!(c("JSON_MERGE_PATCH", &[Value::Null, s("[1]")]), "[1]");
    }

    #[test]
    fn search() {
        let d = s(r#"["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]"#);
        assert_eq!(
            c("JSON_SEARCH", &[d.clone(), s("one"), s("abc")]),
            r#""$[0]""#
        );
        assert_eq!(
            c("JSON_SEARCH", &[d.clone(), s("all"), s("abc")]),
            r#"["$[0]", "$[2].x"]"#
        );
        assert!(null("JSON_SEARCH", &[d.clone(), s("all"), s("ghi")]));
        assert_eq!(
            c("JSON_SEARCH", &[d.clone(), s("all"), s("10")]),
            r#""$[1][0].k""#
        );
        assert_eq!(
            c(
                "JSON_SEARCH",
                &[d.clone(), s("all"), s("%b%"), Value::Null, s("$[3]")]
            ),
            r#""$[3].y""#
        );
        assert_eq!(
            c(
                "JSON_SEARCH",
                &[d, s("all"), s("%b%"), Value::Null, s("$[*]")]
            ),
            r#"["$[0]", "$[2].x", "$[3].y"]"#
        );
        let many = s(r#"["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "b"]"#);
        assert_eq!(
            c(
                "JSON_SEARCH",
                &[many, s("all"), s("b"), Value::Null, s("$[1]")]
            ),
            r#""$[1]""#
        );
    }
}
