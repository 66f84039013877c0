//! Language tailorings of the UCA-style collations, after the Unicode CLDR collation rules
//! MySQL 8.4's `utf8mb4_<lang>_0900_*` collations implement (and, where the legacy UCA 4.0.0
//! `utf8mb4_<language>_ci` rules differ, their own tables).
//!
//! Each rule maps a lower-case letter or contraction to an [`Elem`]: `At(anchor, offset, sec)`
//! is a primary `offset` steps from the anchor letter (CLDR `&z < å` is `At('z', 1, 0)`,
//! `&[before 1]t < š` is `At('t', -1, 0)`) with secondary variant `sec` (CLDR `<<`); `As(s,
//! sec)` is an expansion sorting as the letters `s` with a secondary (`sec` > 0) or tertiary
//! (`sec` = 0) difference. Case (`<<<`) needs no rule: upper case is the tertiary difference.

/// A tailored collation element.
#[derive(Debug, Clone, Copy)]
pub enum Elem {
    /// Primary of the anchor letter plus an offset (−8..=7), secondary variant.
    At(char, i8, u8),
    /// Sorts as these letters, secondary variant (0: tertiary variant only).
    As(&'static str, u8),
}

/// One language's rules.
#[derive(Debug)]
pub struct Tailoring {
    /// Lower-case letters and contractions with their elements.
    pub rules: &'static [(&'static str, Elem)],
    /// Upper → lower case pairs replacing Unicode's (Turkish dotted and dotless i).
    pub case_pairs: &'static [(char, char)],
    /// Upper case sorts before lower case (CLDR `[caseFirst upper]`).
    pub upper_first: bool,
    /// Secondary weights of combining marks replacing their code points (Vietnamese tones).
    pub marks: &'static [(char, u16)],
}

impl Tailoring {
    /// The longest rule matching at the start of `units` (lower-case chars), with its length.
    pub(super) fn longest(&self, units: &[(char, bool)]) -> Option<(usize, &Elem)> {
        let mut best: Option<(usize, &Elem)> = None;
        for (src, e) in self.rules {
            let n = src.chars().count();
            let hit = n <= units.len() && src.chars().zip(units).all(|(a, (b, _))| a == *b);
            if hit && best.is_none_or(|(m, _)| n > m) {
                best = Some((n, e));
            }
        }
        best
    }

    /// The rule for the single letter `c`.
    pub(super) fn single(&self, c: char) -> Option<&Elem> {
        self.rules.iter().find_map(|(src, e)| {
            let mut it = src.chars();
            (it.next() == Some(c) && it.next().is_none()).then_some(e)
        })
    }

    /// The secondary weight of combining mark `m`.
    pub(super) fn mark_weight(&self, m: char) -> u16 {
        match self.marks.iter().find(|(c, _)| *c == m) {
            Some(&(_, w)) => w,
            None => u16::try_from(u32::from(m)).unwrap_or(u16::MAX),
        }
    }
}

const fn t(rules: &'static [(&'static str, Elem)]) -> Tailoring {
    Tailoring {
        rules,
        case_pairs: &[],
        upper_first: false,
        marks: &[],
    }
}

use Elem::{As, At};

/// No tailoring (utf8mb4_0900_as_cs, utf8mb4_unicode_ci, …).
pub static ROOT: Tailoring = t(&[]);

/// Esperanto: ĉ ĝ ĥ ĵ ŝ ŭ are letters after c g h j s u.
pub static EO: Tailoring = t(&[
    ("ĉ", At('c', 1, 0)),
    ("ĝ", At('g', 1, 0)),
    ("ĥ", At('h', 1, 0)),
    ("ĵ", At('j', 1, 0)),
    ("ŝ", At('s', 1, 0)),
    ("ŭ", At('u', 1, 0)),
]);

/// Swedish (CLDR): å ä ö after z; æ ę as ä, ø ő œ ô as ö, ü ű as y, đ ð as d, þ as th.
pub static SV: Tailoring = t(&[
    ("đ", At('d', 0, 1)),
    ("ð", At('d', 0, 2)),
    ("þ", As("th", 0)),
    ("ü", At('y', 0, 1)),
    ("ű", At('y', 0, 2)),
    ("å", At('z', 1, 0)),
    ("ä", At('z', 2, 0)),
    ("æ", At('z', 2, 1)),
    ("ę", At('z', 2, 2)),
    ("ö", At('z', 3, 0)),
    ("ø", At('z', 3, 1)),
    ("ő", At('z', 3, 2)),
    ("œ", At('z', 3, 3)),
    ("ô", At('z', 3, 4)),
]);

/// Swedish, MySQL's UCA 4.0.0 rules (utf8mb4_swedish_ci): ü as y; å, ä (æ), ö (ø) after z.
pub static SV_LEGACY: Tailoring = t(&[
    ("ü", At('y', 0, 1)),
    ("å", At('z', 1, 0)),
    ("ä", At('z', 2, 0)),
    ("æ", At('z', 2, 1)),
    ("ö", At('z', 3, 0)),
    ("ø", At('z', 3, 1)),
]);

const DA_RULES: &[(&str, Elem)] = &[
    ("đ", At('d', 0, 1)),
    ("ð", At('d', 0, 2)),
    ("þ", As("th", 0)),
    ("ü", At('y', 0, 1)),
    ("ű", At('y', 0, 2)),
    ("æ", At('z', 1, 0)),
    ("ä", At('z', 1, 1)),
    ("ø", At('z', 2, 0)),
    ("ö", At('z', 2, 1)),
    ("ő", At('z', 2, 2)),
    ("œ", At('z', 2, 3)),
    ("å", At('z', 3, 0)),
    ("aa", At('z', 3, 0)),
];

/// Danish (CLDR): æ (ä), ø (ö ő œ), å (aa) after z; upper case first.
pub static DA: Tailoring = Tailoring {
    rules: DA_RULES,
    case_pairs: &[],
    upper_first: true,
    marks: &[],
};

/// Norwegian Bokmål and Nynorsk (CLDR): the Danish letters, lower case first.
pub static NB: Tailoring = t(DA_RULES);

/// Danish, MySQL's UCA 4.0.0 rules (utf8mb4_danish_ci).
pub static DA_LEGACY: Tailoring = t(&[
    ("ü", At('y', 0, 1)),
    ("ű", At('y', 0, 2)),
    ("æ", At('z', 1, 0)),
    ("ä", At('z', 1, 1)),
    ("ø", At('z', 2, 0)),
    ("ö", At('z', 2, 1)),
    ("ő", At('z', 2, 2)),
    ("å", At('z', 3, 0)),
    ("aa", At('z', 3, 0)),
]);

/// German phone book: ä = ae, ö = oe, ü = ue (secondary difference).
pub static DE_PB: Tailoring = t(&[("ä", As("ae", 1)), ("ö", As("oe", 1)), ("ü", As("ue", 1))]);

/// Spanish: ñ after n.
pub static ES: Tailoring = t(&[("ñ", At('n', 1, 0))]);

/// Traditional Spanish: ñ after n, ch after c, ll after l.
pub static ES_TRAD: Tailoring = t(&[
    ("ñ", At('n', 1, 0)),
    ("ch", At('c', 1, 0)),
    ("ll", At('l', 1, 0)),
]);

/// Polish: ą ć ę ł ń ó ś after their base letters, ź ż after z.
pub static PL: Tailoring = t(&[
    ("ą", At('a', 1, 0)),
    ("ć", At('c', 1, 0)),
    ("ę", At('e', 1, 0)),
    ("ł", At('l', 1, 0)),
    ("ń", At('n', 1, 0)),
    ("ó", At('o', 1, 0)),
    ("ś", At('s', 1, 0)),
    ("ź", At('z', 1, 0)),
    ("ż", At('z', 2, 0)),
]);

/// Czech: č ř š ž after c r s z, ch after h.
pub static CS: Tailoring = t(&[
    ("č", At('c', 1, 0)),
    ("ch", At('h', 1, 0)),
    ("ř", At('r', 1, 0)),
    ("š", At('s', 1, 0)),
    ("ž", At('z', 1, 0)),
]);

/// Slovak: ä ô after a o, and the Czech letters.
pub static SK: Tailoring = t(&[
    ("ä", At('a', 1, 0)),
    ("č", At('c', 1, 0)),
    ("ch", At('h', 1, 0)),
    ("ô", At('o', 1, 0)),
    ("ř", At('r', 1, 0)),
    ("š", At('s', 1, 0)),
    ("ž", At('z', 1, 0)),
]);

/// Slovenian: č š ž after c s z.
pub static SL: Tailoring = t(&[
    ("č", At('c', 1, 0)),
    ("š", At('s', 1, 0)),
    ("ž", At('z', 1, 0)),
]);

/// Croatian: č ć, dž đ, lj, nj, š, ž as letters.
pub static HR: Tailoring = t(&[
    ("č", At('c', 1, 0)),
    ("ć", At('c', 2, 0)),
    ("dž", At('d', 1, 0)),
    ("ǆ", At('d', 1, 0)),
    ("đ", At('d', 2, 0)),
    ("lj", At('l', 1, 0)),
    ("ǉ", At('l', 1, 0)),
    ("nj", At('n', 1, 0)),
    ("ǌ", At('n', 1, 0)),
    ("š", At('s', 1, 0)),
    ("ž", At('z', 1, 0)),
]);

/// Estonian: š z ž between s and t; õ ä ö ü between w and x.
pub static ET: Tailoring = t(&[
    ("š", At('t', -3, 0)),
    ("z", At('t', -2, 0)),
    ("ž", At('t', -1, 0)),
    ("õ", At('x', -4, 0)),
    ("ä", At('x', -3, 0)),
    ("ö", At('x', -2, 0)),
    ("ü", At('x', -1, 0)),
]);

/// Turkish: ç ğ ö ş ü after c g o s u; dotless ı before i; I/ı and İ/i are case pairs.
pub static TR: Tailoring = Tailoring {
    rules: &[
        ("ç", At('c', 1, 0)),
        ("ğ", At('g', 1, 0)),
        ("ı", At('i', -1, 0)),
        ("ö", At('o', 1, 0)),
        ("ş", At('s', 1, 0)),
        ("ü", At('u', 1, 0)),
    ],
    case_pairs: &[('I', 'ı'), ('İ', 'i')],
    upper_first: false,
    marks: &[],
};

/// Romanian: ă â î ş (ș) ţ (ț) as letters.
pub static RO: Tailoring = t(&[
    ("ă", At('a', 1, 0)),
    ("â", At('a', 2, 0)),
    ("î", At('i', 1, 0)),
    ("ş", At('s', 1, 0)),
    ("ș", At('s', 1, 1)),
    ("ţ", At('t', 1, 0)),
    ("ț", At('t', 1, 1)),
]);

/// Icelandic (CLDR): á é í ó ú ý after a e i o u y, ð after d (đ as d), þ æ (ä) ö (ø) å
/// after z.
pub static IS: Tailoring = t(&[
    ("á", At('b', -1, 0)),
    ("đ", At('d', 0, 1)),
    ("ð", At('d', 1, 0)),
    ("é", At('f', -1, 0)),
    ("í", At('j', -1, 0)),
    ("ó", At('p', -1, 0)),
    ("ú", At('v', -1, 0)),
    ("ý", At('z', -1, 0)),
    ("þ", At('z', 1, 0)),
    ("æ", At('z', 2, 0)),
    ("ä", At('z', 2, 1)),
    ("ö", At('z', 3, 0)),
    ("ø", At('z', 3, 1)),
    ("å", At('z', 4, 0)),
]);

/// Icelandic, MySQL's UCA 4.0.0 rules (utf8mb4_icelandic_ci): đ ð are letters after d.
pub static IS_LEGACY: Tailoring = t(&[
    ("á", At('a', 1, 0)),
    ("đ", At('d', 1, 0)),
    ("ð", At('d', 2, 0)),
    ("é", At('e', 1, 0)),
    ("í", At('i', 1, 0)),
    ("ó", At('o', 1, 0)),
    ("ú", At('u', 1, 0)),
    ("ý", At('y', 1, 0)),
    ("þ", At('z', 1, 0)),
    ("æ", At('z', 2, 0)),
    ("ä", At('z', 2, 1)),
    ("ö", At('z', 3, 0)),
    ("ø", At('z', 3, 1)),
    ("å", At('z', 4, 0)),
]);

/// Vietnamese: ă â đ ê ô ơ ư as letters; tones ordered grave, hook, tilde, acute, dot below.
pub static VI: Tailoring = Tailoring {
    rules: &[
        ("ă", At('a', 1, 0)),
        ("â", At('a', 2, 0)),
        ("đ", At('d', 1, 0)),
        ("ê", At('e', 1, 0)),
        ("ô", At('o', 1, 0)),
        ("ơ", At('o', 2, 0)),
        ("ư", At('u', 1, 0)),
    ],
    case_pairs: &[],
    upper_first: false,
    marks: &[
        ('\u{300}', 0x300),
        ('\u{309}', 0x301),
        ('\u{303}', 0x303),
        ('\u{301}', 0x309),
        ('\u{323}', 0x323),
    ],
};

#[cfg(test)]
mod tests {
    use std::cmp::Ordering;

    use crate::collation::{compare, eq};
    use crate::types::Collation;

    fn c(name: &str) -> Collation {
        Collation::from_name(name).unwrap_or_else(|| panic!("{name} is listed"))
    }

    /// `words` sorted under `name` (stable, so equal words keep their order).
    fn sorted(name: &str, words: &[&str]) -> Vec<String> {
        let coll = c(name);
        let mut v: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        v.sort_by(|a, b| compare(coll, a, b));
        v
    }

    #[test]
    fn swedish() {
        let want = ["a", "o", "y", "z", "å", "ä", "ö"];
        for n in [
            "utf8mb4_swedish_ci",
            "utf8mb4_sv_0900_ai_ci",
            "utf8mb4_sv_0900_as_cs",
        ] {
            assert_eq!(sorted(n, &["ö", "ä", "å", "z", "y", "o", "a"]), want, "{n}");
            assert!(!eq(c(n), "å", "a") && !eq(c(n), "ö", "o"), "{n}");
        }
        assert!(
            eq(c("utf8mb4_swedish_ci"), "Åsa ", "åsa"),
            "PAD SPACE, case-insensitive"
        );
        assert!(eq(c("utf8mb4_sv_0900_ai_ci"), "æ", "ä"));
        assert!(eq(c("utf8mb4_sv_0900_ai_ci"), "ü", "y"));
        assert!(!eq(c("utf8mb4_sv_0900_as_cs"), "æ", "ä"));
        assert!(!eq(c("utf8mb4_sv_0900_as_cs"), "Å", "å"));
        assert!(!eq(c("utf8mb4_sv_0900_ai_ci"), "a ", "a"), "NO PAD");
        // decomposed input compares as precomposed
        assert!(eq(c("utf8mb4_sv_0900_as_cs"), "a\u{30A}", "å"));
    }

    #[test]
    fn esperanto() {
        let want = [
            "c", "cz", "ĉ", "d", "g", "ĝ", "h", "ĥ", "s", "ŝ", "u", "ŭ", "v",
        ];
        let words = [
            "ŭ", "v", "ĉ", "cz", "c", "d", "ĝ", "g", "ĥ", "h", "ŝ", "s", "u",
        ];
        for n in [
            "utf8mb4_esperanto_ci",
            "utf8mb4_eo_0900_ai_ci",
            "utf8mb4_eo_0900_as_cs",
        ] {
            assert_eq!(sorted(n, &words), want, "{n}");
        }
        assert!(eq(c("utf8mb4_esperanto_ci"), "ĈIO", "ĉio"));
        assert!(!eq(c("utf8mb4_esperanto_ci"), "ĉio", "cio"));
    }

    #[test]
    fn danish_norwegian() {
        for n in [
            "utf8mb4_da_0900_ai_ci",
            "utf8mb4_danish_ci",
            "utf8mb4_nb_0900_ai_ci",
        ] {
            assert_eq!(
                sorted(n, &["å", "ø", "æ", "z", "a"]),
                ["a", "z", "æ", "ø", "å"]
            );
            assert!(eq(c(n), "Aarhus", "Århus"), "{n}: aa = å");
            assert!(eq(c(n), "ä", "æ") && eq(c(n), "ö", "ø"), "{n}");
        }
        assert!(!eq(c("utf8mb4_da_0900_as_cs"), "aa", "å"));
        assert_eq!(
            sorted("utf8mb4_da_0900_as_cs", &["a", "A"]),
            ["A", "a"],
            "upper first"
        );
        assert_eq!(sorted("utf8mb4_nb_0900_as_cs", &["A", "a"]), ["a", "A"]);
    }

    #[test]
    fn german_phonebook() {
        for n in ["utf8mb4_de_pb_0900_ai_ci", "utf8mb4_german2_ci"] {
            assert!(eq(c(n), "Müller", "mueller"), "{n}");
            assert!(eq(c(n), "ß", "ss"), "{n}");
            assert!(!eq(c(n), "Müller", "muller"), "{n}");
        }
        let cs = c("utf8mb4_de_pb_0900_as_cs");
        assert_eq!(compare(cs, "ae", "ä"), Ordering::Less);
        assert_eq!(compare(cs, "ä", "af"), Ordering::Less);
        assert!(eq(c("utf8mb4_0900_as_ci"), "ä", "Ä"));
        assert!(!eq(c("utf8mb4_0900_as_ci"), "ä", "a"));
    }

    #[test]
    fn spanish() {
        for n in ["utf8mb4_es_0900_ai_ci", "utf8mb4_spanish_ci"] {
            assert_eq!(sorted(n, &["o", "ñ", "nz", "n"]), ["n", "nz", "ñ", "o"]);
            assert_eq!(sorted(n, &["d", "ch", "cz"]), ["ch", "cz", "d"]);
        }
        for n in ["utf8mb4_es_trad_0900_ai_ci", "utf8mb4_spanish2_ci"] {
            assert_eq!(
                sorted(n, &["d", "ch", "cz", "lz", "ll", "m"]),
                ["cz", "ch", "d", "lz", "ll", "m"]
            );
            assert!(eq(c(n), "CHICO", "chico"));
        }
    }

    #[test]
    fn central_european() {
        assert_eq!(
            sorted("utf8mb4_pl_0900_ai_ci", &["ż", "ź", "z", "łz", "lz", "ł"]),
            ["lz", "ł", "łz", "z", "ź", "ż"]
        );
        for n in [
            "utf8mb4_cs_0900_ai_ci",
            "utf8mb4_czech_ci",
            "utf8mb4_sk_0900_ai_ci",
        ] {
            assert_eq!(
                sorted(n, &["i", "ch", "h", "č", "d"]),
                ["č", "d", "h", "ch", "i"],
                "{n}"
            );
        }
        assert_eq!(sorted("utf8mb4_sk_0900_ai_ci", &["b", "ä"]), ["ä", "b"]);
        assert_eq!(
            sorted("utf8mb4_hr_0900_ai_ci", &["e", "đ", "dž", "dz"]),
            ["dz", "dž", "đ", "e"]
        );
        assert_eq!(
            sorted("utf8mb4_hr_0900_ai_ci", &["m", "lj", "lz"]),
            ["lz", "lj", "m"]
        );
        assert_eq!(
            sorted("utf8mb4_sl_0900_ai_ci", &["d", "č", "c"]),
            ["c", "č", "d"]
        );
        assert_eq!(
            sorted("utf8mb4_ro_0900_ai_ci", &["b", "â", "ă", "a"]),
            ["a", "ă", "â", "b"]
        );
        assert!(eq(c("utf8mb4_ro_0900_ai_ci"), "ş", "ș"));
    }

    #[test]
    fn estonian_turkish_icelandic_vietnamese() {
        let et = sorted(
            "utf8mb4_et_0900_ai_ci",
            &["x", "ü", "õ", "w", "t", "ž", "z", "š", "s"],
        );
        assert_eq!(et, ["s", "š", "z", "ž", "t", "w", "õ", "ü", "x"]);
        let tr = c("utf8mb4_tr_0900_ai_ci");
        assert!(eq(tr, "I", "ı") && eq(tr, "İ", "i") && !eq(tr, "I", "i"));
        assert_eq!(
            sorted("utf8mb4_tr_0900_ai_ci", &["j", "i", "ı", "h"]),
            ["h", "ı", "i", "j"]
        );
        assert_eq!(
            sorted("utf8mb4_turkish_ci", &["d", "ç", "c"]),
            ["c", "ç", "d"]
        );
        let is = sorted(
            "utf8mb4_is_0900_ai_ci",
            &["å", "ö", "æ", "þ", "z", "b", "á", "az"],
        );
        assert_eq!(is, ["az", "á", "b", "z", "þ", "æ", "ö", "å"]);
        assert_eq!(
            sorted("utf8mb4_icelandic_ci", &["e", "ð", "d"]),
            ["d", "ð", "e"]
        );
        let vi = sorted("utf8mb4_vi_0900_ai_ci", &["b", "ấ", "ă", "az", "a"]);
        assert_eq!(vi, ["a", "az", "ă", "ấ", "b"]);
        let vi = sorted("utf8mb4_vi_0900_as_cs", &["á", "ả", "à", "ã", "ạ"]);
        assert_eq!(vi, ["à", "ả", "ã", "á", "ạ"]);
    }

    #[test]
    fn untailored() {
        for n in ["utf8mb4_unicode_ci", "utf8mb4_unicode_520_ci"] {
            assert!(eq(c(n), "Résumé  ", "resume"), "{n}: PAD SPACE, ai_ci");
            assert_eq!(sorted(n, &["z", "å", "b"]), ["å", "b", "z"]);
        }
        let cs = c("utf8mb4_0900_as_cs");
        assert_eq!(
            sorted("utf8mb4_0900_as_cs", &["b", "B", "á", "a", "A"]),
            ["a", "A", "á", "b", "B"]
        );
        assert!(!eq(cs, "ß", "ss"), "tertiary difference");
        assert!(eq(c("utf8mb4_0900_as_ci"), "Straße", "STRASSE"));
        assert!(
            eq(c("utf8mb4_de_pb_0900_ai_ci"), "ø", "o"),
            "UCA 9: ø is o with a stroke"
        );
        assert!(
            !eq(c("utf8mb4_unicode_ci"), "ø", "o"),
            "UCA 4: ø is its own letter"
        );
    }
}
