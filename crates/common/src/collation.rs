//! Collation behaviour: comparing strings and producing sort keys (weights) that order as the
//! collation orders, for index keys, GROUP BY, DISTINCT and unique checks.
//!
//! The accent-insensitive `utf8mb4_0900_ai_ci` is implemented as canonical decomposition with
//! combining marks dropped, then simple lowercase folding — the same equivalence classes as UCA
//! for Latin, Greek and Cyrillic text, though not UCA's full ordering between scripts (documented
//! in docs/compatibility.md). Written here rather than taken from a crate because no maintained
//! crate implements MySQL's PAD SPACE / NO PAD rules and collation set.
//!
//! The language-specific and latin1 collations ([`Collation::Other`]) live in the submodules:
//! `registry` (names, ids, attributes), `uca` (multi-level sort keys), `tailor` (per-language
//! rules) and `latin1` (single-byte sort orders).

use std::cmp::Ordering;

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

use crate::types::Collation;

mod latin1;
pub mod registry;
mod tailor;
mod uca;

/// Compares two strings under `coll`.
pub fn compare(coll: Collation, a: &str, b: &str) -> Ordering {
    match coll {
        Collation::Binary => a.as_bytes().cmp(b.as_bytes()),
        Collation::Utf8mb4Bin | Collation::Latin1Bin => {
            trim_pad(a).as_bytes().cmp(trim_pad(b).as_bytes())
        }
        _ => weight(coll, a).cmp(&weight(coll, b)),
    }
}

/// True if `a` and `b` are equal under `coll`.
pub fn eq(coll: Collation, a: &str, b: &str) -> bool {
    compare(coll, a, b) == Ordering::Equal
}

fn trim_pad(s: &str) -> &str {
    s.trim_end_matches(' ')
}

/// The sort key of `s` under `coll`: byte strings that compare (memcmp) as the collation
/// compares the strings. Equal weights mean equal strings under the collation.
pub fn weight(coll: Collation, s: &str) -> Vec<u8> {
    let s = if coll.pad_space() { trim_pad(s) } else { s };
    match coll {
        Collation::Binary | Collation::Utf8mb4Bin | Collation::Latin1Bin => s.as_bytes().to_vec(),
        Collation::Other(id) => registry::weight(id, s),
        // ASCII text (the common case) folds byte by byte: the loops below encode each char
        // back into UTF-8, which showed up at 2.7 % of server CPU in sysbench read_write
        // (ORDER BY / DISTINCT over a 120-character column).
        _ if s.is_ascii() => s.bytes().map(|b| b.to_ascii_lowercase()).collect(),
        Collation::Utf8mb4GeneralCi | Collation::Latin1SwedishCi => {
            // general_ci: case folding per character, accents significant except the
            // common Latin-1 folds general_ci makes (e.g. 'é' = 'e' in latin1_swedish_ci is
            // not true; we keep accents significant, as general_ci does for most letters).
            let mut out = String::with_capacity(s.len());
            for c in s.chars() {
                out.extend(fold_case(c));
            }
            out.into_bytes()
        }
        Collation::Utf8mb4_0900AiCi => {
            let mut out = String::with_capacity(s.len());
            for c in s.chars() {
                if c.is_ascii() {
                    out.push(c.to_ascii_lowercase());
                    continue;
                }
                let mut base = String::new();
                decompose_canonical(c, |d| {
                    if !is_combining_mark(d) {
                        base.push(d)
                    }
                });
                for d in base.chars() {
                    // ß sorts as "ss" in UCA.
                    if d == 'ß' {
                        out.push_str("ss");
                    } else {
                        out.extend(fold_case(d));
                    }
                }
            }
            out.into_bytes()
        }
    }
}

fn fold_case(c: char) -> impl Iterator<Item = char> {
    c.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ai_ci_equivalences() {
        let c = Collation::Utf8mb4_0900AiCi;
        assert!(eq(c, "Résumé", "resume"));
        assert!(eq(c, "ABC", "abc"));
        assert!(!eq(c, "abc ", "abc"), "0900 collations are NO PAD");
        assert_eq!(compare(c, "a", "B"), Ordering::Less);
    }

    #[test]
    fn ascii_text_folds_like_the_general_path() {
        for c in [Collation::Utf8mb4_0900AiCi, Collation::Utf8mb4GeneralCi] {
            assert_eq!(weight(c, "Hello-World 42"), b"hello-world 42".to_vec());
            assert!(eq(c, "ZEBRA", "zebra"));
            assert_eq!(compare(c, "apple", "Banana"), Ordering::Less);
        }
        // one non-ASCII char sends the whole string down the per-char path
        assert_eq!(
            weight(Collation::Utf8mb4_0900AiCi, "CAFÉ"),
            b"cafe".to_vec()
        );
        assert_eq!(
            weight(Collation::Utf8mb4GeneralCi, "CAFÉ"),
            "café".as_bytes().to_vec()
        );
    }

    #[test]
    fn pad_space_and_binary() {
        assert!(eq(Collation::Utf8mb4GeneralCi, "abc  ", "ABC"));
        assert!(eq(Collation::Utf8mb4Bin, "abc  ", "abc"));
        assert!(!eq(Collation::Utf8mb4Bin, "abc", "ABC"));
        assert!(!eq(Collation::Binary, "abc ", "abc"));
    }
}
