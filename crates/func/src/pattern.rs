//! `LIKE` matching and the `REGEXP_*` functions.
//!
//! LIKE compares character by character under the collation (case- and, for
//! utf8mb4_0900_ai_ci, accent-insensitive) with no trailing-space padding, as MySQL does.
//! Regular expressions use the `regex` crate, whose syntax covers the ICU subset applications
//! use; matching is case-insensitive when the collation is, unless `match_type` says otherwise.

use common::collation;
use common::Collation;

/// One character reduced to what the collation compares.
fn fold(c: char, coll: Collation) -> Vec<u8> {
    if !coll.is_ci() || c == ' ' {
        let mut b = [0u8; 4];
        return c.encode_utf8(&mut b).as_bytes().to_vec();
    }
    let mut b = [0u8; 4];
    collation::weight(coll, c.encode_utf8(&mut b))
}

#[derive(Debug, Clone, PartialEq)]
enum Tok<T> {
    Many,
    One,
    Lit(T),
}

fn matches<T: PartialEq>(s: &[T], p: &[Tok<T>]) -> bool {
    let (mut si, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match p.get(pi) {
            Some(Tok::Many) => {
                star = Some((pi, si));
                pi += 1;
                continue;
            }
            Some(Tok::One) => {
                si += 1;
                pi += 1;
                continue;
            }
            Some(Tok::Lit(t)) if *t == s[si] => {
                si += 1;
                pi += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((sp, ss)) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|t| matches!(t, Tok::Many))
}

fn tokens<T: Clone + PartialEq>(units: Vec<(char, T)>, escape: char) -> Vec<Tok<T>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < units.len() {
        let (c, t) = &units[i];
        if *c == escape && i + 1 < units.len() {
            out.push(Tok::Lit(units[i + 1].1.clone()));
            i += 2;
            continue;
        }
        out.push(match c {
            '%' => Tok::Many,
            '_' => Tok::One,
            _ => Tok::Lit(t.clone()),
        });
        i += 1;
    }
    out
}

/// `s LIKE pattern ESCAPE escape` under `coll` (`%` any run, `_` one character).
pub fn like(s: &str, pattern: &str, escape: char, coll: Collation) -> bool {
    let su: Vec<Vec<u8>> = s.chars().map(|c| fold(c, coll)).collect();
    let pu: Vec<(char, Vec<u8>)> = pattern.chars().map(|c| (c, fold(c, coll))).collect();
    matches(&su, &tokens(pu, escape))
}

/// `LIKE` on binary strings: byte-wise, case-sensitive.
pub fn like_bytes(s: &[u8], pattern: &[u8], escape: u8) -> bool {
    let pu: Vec<(char, u8)> = pattern.iter().map(|b| (*b as char, *b)).collect();
    matches(s, &tokens(pu, escape as char))
}

/// Builds a regex for MySQL's `match_type` flags (`c` case-sensitive, `i` insensitive, `m`
/// multi-line, `n` dot matches newline, `u` Unix line endings).
pub fn build_regex(
    pattern: &str,
    coll: Collation,
    match_type: &str,
) -> Result<regex::Regex, String> {
    let mut ci = coll.is_ci();
    let mut multi = false;
    let mut dotnl = false;
    for c in match_type.chars() {
        match c {
            'c' => ci = false,
            'i' => ci = true,
            'm' => multi = true,
            'n' => dotnl = true,
            'u' => {}
            _ => return Err(format!("Incorrect arguments to regexp: match_type '{c}'")),
        }
    }
    regex::RegexBuilder::new(pattern)
        .case_insensitive(ci)
        .multi_line(multi)
        .dot_matches_new_line(dotnl)
        .size_limit(1 << 22)
        .build()
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const AI: Collation = Collation::Utf8mb4_0900AiCi;

    #[test]
    fn like_basics() {
        assert!(like("David!", "David_", '\\', AI));
        assert!(like("David!", "%D%v%", '\\', AI));
        assert!(like("abc", "ABC", '\\', AI));
        assert!(!like("abc", "ABC", '\\', Collation::Utf8mb4Bin));
        assert!(like("résumé", "resume", '\\', AI));
        assert!(like("David_", "David\\_", '\\', AI));
        assert!(!like("David!", "David\\_", '\\', AI));
        assert!(like("David_", "David|_", '|', AI));
        assert!(!like("abc ", "abc", '\\', Collation::Utf8mb4GeneralCi));
        assert!(like("", "%", '\\', AI));
        assert!(!like("", "_", '\\', AI));
        assert!(like("aXbXc", "a%b%c", '\\', AI));
        assert!(like("mississippi", "%iss%ppi", '\\', AI));
        assert!(!like("abc", "a%d", '\\', AI));
        assert!(like("a\\", "a\\", '\\', AI));
        assert!(like_bytes(b"abc", b"a_c", b'\\'));
        assert!(!like_bytes(b"abc", b"A_C", b'\\'));
    }

    #[test]
    fn regexes() {
        let r = build_regex("^ab+c$", AI, "").unwrap();
        assert!(r.is_match("ABBC"));
        let r = build_regex("^ab+c$", AI, "c").unwrap();
        assert!(!r.is_match("ABBC"));
        assert!(build_regex("(", AI, "").is_err());
    }
}
