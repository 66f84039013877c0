//! The latin1 collations other than latin1_swedish_ci / latin1_bin: single-byte sort orders
//! over the latin1 (cp1252) repertoire, as MySQL 8.4 defines them. Strata stores latin1 text
//! as UTF-8; a character outside latin1 weighs as `?`, the byte MySQL would have stored.

use std::sync::OnceLock;

/// Which latin1 sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latin1 {
    /// latin1_general_ci: each accented letter its own letter after the base, case folded.
    GeneralCi,
    /// latin1_general_cs: as general_ci, upper case before lower case.
    GeneralCs,
    /// latin1_spanish_ci: accents folded, ñ its own letter after n.
    Spanish,
    /// latin1_german1_ci (DIN-1): ä = a, ö = o, ü = u, ß = s.
    German1,
    /// latin1_german2_ci (DIN-2, phone book): ä = ae, ö = oe, ü = ue, ß = ss.
    German2,
    /// latin1_danish_ci: æ ä, ø ö, å sort as `[`, `\`, `]` (after z).
    Danish,
}

/// cp1252's characters at bytes 0x80..=0x9F (MySQL's latin1); the unassigned five map to
/// their own code points.
const CP1252_HIGH: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž', '\u{8F}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}', 'ž', 'Ÿ',
];

/// The latin1 byte of `c` (`?` if latin1 has none).
fn byte_of(c: char) -> u8 {
    let u = u32::from(c);
    if u < 0x80 || (0xA0..=0xFF).contains(&u) {
        return u as u8;
    }
    match CP1252_HIGH.iter().position(|&h| h == c) {
        Some(i) => 0x80 + i as u8,
        None => b'?',
    }
}

/// The letter groups of latin1_general_ci in order (letters in one group are equal); the
/// general_cs order is the same with every character its own group.
const GENERAL: &[&str] = &[
    "Aa", "Àà", "Áá", "Ââ", "Ãã", "Ää", "Åå", "Ææ", "Bb", "Cc", "Çç", "Dd", "Ðð", "Ee", "Èè", "Éé",
    "Êê", "Ëë", "Ff", "Gg", "Hh", "Ii", "Ìì", "Íí", "Îî", "Ïï", "Jj", "Kk", "Ll", "Mm", "Nn", "Ññ",
    "Oo", "Òò", "Óó", "Ôô", "Õõ", "Öö", "Øø", "Pp", "Qq", "Rr", "Ss", "ß", "Tt", "Uu", "Ùù", "Úú",
    "Ûû", "Üü", "Vv", "Ww", "Xx", "Yy", "Ýý", "ÿ", "Zz", "Þþ",
];

/// latin1_spanish_ci's letter groups.
const SPANISH: &[&str] = &[
    "AaÀÁÂÃÄÅÆàáâãäåæ",
    "Bb",
    "CcÇç",
    "DdÐð",
    "EeÈÉÊËèéêë",
    "Ff",
    "Gg",
    "Hh",
    "IiÌÍÎÏìíîï",
    "Jj",
    "Kk",
    "Ll",
    "Mm",
    "Nn",
    "Ññ",
    "OoÒÓÔÕÖØòóôõöø",
    "Pp",
    "Qq",
    "Rr",
    "Ss",
    "ß",
    "Tt",
    "UuÙÚÛÜùúûü",
    "Vv",
    "Ww",
    "Xx",
    "YyÝýÿ",
    "Zz",
    "Þþ",
];

/// Weights from ordered letter groups: control characters, digits and punctuation up to `@`
/// first, then the letters, then ``[\]^_`{|}~``, `×`, `÷`, DEL and the bytes 0x80..=0xBF.
fn grouped(groups: &[&str], split: bool) -> [u8; 256] {
    let mut w = [0u8; 256];
    // exactly 256 weights in all: the last one leaves `next` at 256
    let mut next = 0u16;
    let mut put = |chars: &str, w: &mut [u8; 256]| {
        for c in chars.chars() {
            w[byte_of(c) as usize] = next as u8;
        }
        next += 1;
    };
    for b in 0..=0x40u8 {
        put(&char::from(b).to_string(), &mut w);
    }
    for g in groups {
        if split {
            for c in g.chars() {
                put(&c.to_string(), &mut w);
            }
        } else {
            put(g, &mut w);
        }
    }
    for c in "[\\]^_`{|}~×÷\u{7F}".chars() {
        put(&c.to_string(), &mut w);
    }
    for b in 0x80..=0xBFu8 {
        put(&char::from(b).to_string(), &mut w);
    }
    debug_assert!(next <= 256);
    w
}

/// Weights of the "fold to upper case, then equate" orders: `equal` lists characters that
/// weigh as the given byte.
fn folded(equal: &[(&str, u8)]) -> [u8; 256] {
    let mut w = [0u8; 256];
    for (b, slot) in w.iter_mut().enumerate() {
        let b = b as u8;
        *slot = match b {
            b'a'..=b'z' => b - 0x20,
            0xE0..=0xFE if b != 0xF7 => b - 0x20,
            _ => b,
        };
    }
    for (chars, to) in equal {
        for c in chars.chars() {
            w[byte_of(c) as usize] = *to;
        }
    }
    w
}

const GERMAN1: &[(&str, u8)] = &[
    ("ÀÁÂÃÄÅÆàáâãäåæ", b'A'),
    ("Çç", b'C'),
    ("ÈÉÊËèéêë", b'E'),
    ("ÌÍÎÏìíîï", b'I'),
    ("Ññ", b'N'),
    ("ÒÓÔÕÖØòóôõöø", b'O'),
    ("ß", b'S'),
    ("ÙÚÛÜùúûü", b'U'),
    ("Ýý", b'Y'),
];

const DANISH: &[(&str, u8)] = &[
    ("ÀÁÂÃàáâã", b'A'),
    ("ÄÆäæ", b'['),
    ("Åå", b']'),
    ("Çç", b'C'),
    ("Ðð", b'D'),
    ("ÈÉÊËèéêë", b'E'),
    ("ÌÍÎÏìíîï", b'I'),
    ("Ññ", b'N'),
    ("ÒÓÔÕòóôõ", b'O'),
    ("ÖØöø", b'\\'),
    ("ÙÚÛùúû", b'U'),
    ("ÜÝüý", b'Y'),
];

fn table(l: Latin1) -> &'static [u8; 256] {
    static T: [OnceLock<[u8; 256]>; 5] = [const { OnceLock::new() }; 5];
    let (slot, build): (usize, fn() -> [u8; 256]) = match l {
        Latin1::GeneralCi => (0, || grouped(GENERAL, false)),
        Latin1::GeneralCs => (1, || grouped(GENERAL, true)),
        Latin1::Spanish => (2, || grouped(SPANISH, false)),
        Latin1::German1 | Latin1::German2 => (3, || folded(GERMAN1)),
        Latin1::Danish => (4, || folded(DANISH)),
    };
    T[slot].get_or_init(build)
}

/// The sort key of `s` (trailing spaces already removed): one byte per latin1 character.
pub(super) fn weight(l: Latin1, s: &str) -> Vec<u8> {
    let t = table(l);
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        if l == Latin1::German2 {
            let exp = match c {
                'Ä' | 'ä' | 'Æ' | 'æ' => Some("AE"),
                'Ö' | 'ö' => Some("OE"),
                'Ü' | 'ü' => Some("UE"),
                'ß' => Some("SS"),
                _ => None,
            };
            if let Some(e) = exp {
                out.extend(e.bytes());
                continue;
            }
        }
        out.push(t[byte_of(c) as usize]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(l: Latin1, words: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        v.sort_by(|a, b| weight(l, a).cmp(&weight(l, b)).then(a.cmp(b)));
        v
    }

    #[test]
    fn general_cs_and_ci() {
        let cs = Latin1::GeneralCs;
        assert_ne!(weight(cs, "abc"), weight(cs, "ABC"));
        assert_eq!(
            sorted(cs, &["b", "a", "B", "A", "à"]),
            ["A", "a", "à", "B", "b"]
        );
        let ci = Latin1::GeneralCi;
        assert_eq!(weight(ci, "abc"), weight(ci, "ABC"));
        assert_ne!(
            weight(ci, "à"),
            weight(ci, "a"),
            "accents count in general_ci"
        );
        assert!(weight(ci, "ä") < weight(ci, "b"));
        assert!(weight(ci, "@") < weight(ci, "a") && weight(ci, "z") < weight(ci, "["));
    }

    #[test]
    fn language_orders() {
        assert_eq!(
            weight(Latin1::German1, "Müller"),
            weight(Latin1::German1, "muller")
        );
        assert_eq!(
            weight(Latin1::German2, "Müller"),
            weight(Latin1::German2, "mueller")
        );
        assert_eq!(
            weight(Latin1::German2, "Straße"),
            weight(Latin1::German2, "STRASSE")
        );
        assert_ne!(
            weight(Latin1::German2, "Müller"),
            weight(Latin1::German2, "muller")
        );
        assert_eq!(
            sorted(Latin1::Danish, &["å", "ø", "æ", "z", "a"]),
            ["a", "z", "æ", "ø", "å"]
        );
        assert_eq!(sorted(Latin1::Spanish, &["o", "ñ", "n"]), ["n", "ñ", "o"]);
        assert_eq!(weight(Latin1::Spanish, "é"), weight(Latin1::Spanish, "E"));
        assert_eq!(byte_of('€'), 0x80);
        assert_eq!(byte_of('ł'), b'?');
    }
}
