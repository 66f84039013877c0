//! JSON text validation and MySQL's canonical JSON rendering.
//!
//! MySQL stores JSON in a binary form and prints it back normalised: object keys sorted by
//! length and then bytewise, duplicate keys resolved last-wins, `", "` and `": "` separators,
//! decimal numbers as doubles. Strata keeps JSON as that normalised text.

use common::codes::ErrorCode;
use serde_json::Value as J;

/// 3141 ER_INVALID_JSON_TEXT_IN_PARAM (not in `common::codes`).
pub const ER_INVALID_TYPE_FOR_JSON_CAST: ErrorCode = ErrorCode {
    num: 3141,
    sqlstate: "22032",
    name: "ER_INVALID_JSON_TEXT_IN_PARAM",
};

/// Renders a double as MySQL prints it inside JSON (`1.0`, `1.5`, `1e300`).
pub fn format_json_double(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 {
        format!("{f:.1}")
    } else {
        common::value::format_double(f)
    }
}

fn escape_into(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Quotes a string as a JSON string literal (`JSON_QUOTE`).
pub fn quote(s: &str) -> String {
    let mut o = String::new();
    escape_into(s, &mut o);
    o
}

fn write(v: &J, out: &mut String) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                out.push_str(&format_json_double(n.as_f64().unwrap_or(0.0)));
            }
        }
        J::String(s) => escape_into(s, out),
        J::Array(a) => {
            out.push('[');
            for (i, e) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(e, out);
            }
            out.push(']');
        }
        J::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort_by(|a, b| {
                a.len()
                    .cmp(&b.len())
                    .then_with(|| a.as_bytes().cmp(b.as_bytes()))
            });
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                escape_into(k, out);
                out.push_str(": ");
                if let Some(v) = m.get(*k) {
                    write(v, out);
                }
            }
            out.push('}');
        }
    }
}

/// Validates JSON text and returns its canonical MySQL rendering, or a parse error message.
pub fn normalize(text: &str) -> Result<String, String> {
    let v: J = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            "The document is empty.".to_string()
        } else {
            "Invalid value.".to_string()
        }
    })?;
    let mut out = String::new();
    write(&v, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_form() {
        assert_eq!(
            normalize(r#"{"bb":1,"a":2,"a":3}"#).unwrap(),
            r#"{"a": 3, "bb": 1}"#
        );
        assert_eq!(
            normalize("[1, 2.50,true,null,\"x\\ny\"]").unwrap(),
            r#"[1, 2.5, true, null, "x\ny"]"#
        );
        assert_eq!(normalize("1.0").unwrap(), "1.0");
        assert!(normalize("{").is_err());
        assert!(normalize("abc").is_err());
        assert_eq!(quote("a\"b"), r#""a\"b""#);
    }
}
