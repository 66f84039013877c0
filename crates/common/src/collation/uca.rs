//! Multi-level sort keys for the UCA-style collations of the registry: a language tailoring
//! (see `tailor`) applied over Strata's base order, compared to the strength the collation's
//! name says (`_ai_ci` primary, `_as_ci` primary+secondary, `_as_cs` all three levels).
//!
//! The base (untailored) primary order is the one `utf8mb4_0900_ai_ci` uses in Strata: a
//! letter's canonical base character, lowercased, in code-point order (so Latin letters
//! order as in UCA; ordering across scripts and of punctuation follows code points, as for
//! Strata's utf8mb4_0900_ai_ci). Accents (combining marks) are secondary weights and case
//! the tertiary weight. Sort key layout: 4-byte primaries, a zero separator, 2-byte
//! secondaries, a zero separator, 1-byte tertiaries — memcmp order is the collation order.

use unicode_normalization::char::{compose, decompose_canonical, is_combining_mark};
use unicode_normalization::UnicodeNormalization;

use super::tailor::{Elem, Tailoring};

/// How many levels a collation compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strength {
    /// Base letters only (`_ai_ci`).
    Primary,
    /// Base letters and accents (`_as_ci`).
    Secondary,
    /// Base letters, accents and case (`_as_cs`).
    Tertiary,
}

/// A UCA-style collation: tailoring plus strength.
#[derive(Debug)]
pub struct Uca {
    /// The language's rules.
    pub tailoring: &'static Tailoring,
    /// Levels compared.
    pub strength: Strength,
    /// UCA 4.0.0 / 5.2.0 (the legacy `utf8mb4_<language>_ci` names): letters with a stroke
    /// (ø, đ, ł, ħ, ŧ) are letters of their own after the base letter, where UCA 9.0.0 makes
    /// them the base letter with a secondary difference.
    pub legacy: bool,
}

/// Secondary weight of a letter with no accent.
const SEC_BASE: u16 = 0x20;
/// Secondary weight of the stroke in ø, đ, ł (UCA 9.0.0).
const SEC_STROKE: u16 = 0x2F;
/// Tertiary weights.
const TER_LOWER: u8 = 0x02;
const TER_UPPER: u8 = 0x08;
/// Tertiary weight of compatibility expansions such as ß → ss, æ → ae.
const TER_VARIANT: u8 = 0x04;

/// The base primary of a (lower-case) character; tailorings place letters at small offsets
/// from it (−8..=7).
pub(super) fn primary(c: char) -> u32 {
    (u32::from(c) << 4) | 8
}

#[derive(Default)]
struct Keys {
    p: Vec<u32>,
    s: Vec<u16>,
    t: Vec<u8>,
}

impl Uca {
    /// The sort key of `s`.
    pub fn weight(&self, s: &str) -> Vec<u8> {
        let units = self.fold(s);
        let mut k = Keys::default();
        let mut i = 0;
        while i < units.len() {
            if let Some((n, e)) = self.tailoring.longest(&units[i..]) {
                self.emit(&mut k, e, case_of(&units[i..i + n]), n > 1);
                i += n;
                continue;
            }
            self.default_elem(&mut k, units[i]);
            i += 1;
        }
        self.encode(k)
    }

    /// NFC text as (lower-case char, was upper case) units, with the language's case pairs
    /// (Turkish I/ı, İ/i) taking precedence over Unicode's.
    fn fold(&self, s: &str) -> Vec<(char, bool)> {
        let mut out = Vec::with_capacity(s.len());
        let mut push = |c: char| {
            if let Some(&(_, l)) = self.tailoring.case_pairs.iter().find(|(u, _)| *u == c) {
                out.push((l, true));
                return;
            }
            let mut lower = c.to_lowercase();
            match (lower.next(), lower.next()) {
                (Some(l), None) => out.push((l, l != c)),
                (first, second) => {
                    for l in first.into_iter().chain(second).chain(lower) {
                        out.push((l, true));
                    }
                }
            }
        };
        if s.is_ascii() {
            s.chars().for_each(&mut push);
        } else {
            s.nfc().for_each(&mut push);
        }
        out
    }

    /// Appends the weights of element `e`; `contraction`: it stands for several letters
    /// (Danish aa = å differ only there).
    fn emit(&self, k: &mut Keys, e: &Elem, upper: bool, contraction: bool) {
        let ter = if upper { TER_UPPER } else { TER_LOWER };
        let ter = if self.tailoring.upper_first {
            TER_UPPER + TER_LOWER - ter
        } else {
            ter
        } + u8::from(contraction);
        match *e {
            Elem::At(anchor, off, sec) => {
                k.p.push(primary(anchor).wrapping_add_signed(i32::from(off)));
                k.s.push(SEC_BASE + u16::from(sec));
                k.t.push(ter);
            }
            Elem::As(letters, sec) => {
                for (j, c) in letters.chars().enumerate() {
                    k.p.push(primary(c));
                    // the variant shows on the last letter, so "ae" < "ä" < "af"
                    let last = j + 1 == letters.chars().count();
                    k.s.push(SEC_BASE + if last { u16::from(sec) } else { 0 });
                    k.t.push(if sec == 0 { TER_VARIANT.max(ter) } else { ter });
                }
            }
        }
    }

    /// An untailored character: its canonical base letter (or a tailored letter composed from
    /// the base and its first accent, e.g. Vietnamese ấ = â + acute), accents as secondaries.
    fn default_elem(&self, k: &mut Keys, (c, upper): (char, bool)) {
        if let Some(e) = self.special(c) {
            return self.emit(k, &e, upper, false);
        }
        let mut parts = Vec::with_capacity(3);
        decompose_canonical(c, |d| parts.push(d));
        let mut marks = &parts[..];
        if let Some((&base, rest)) = parts.split_first() {
            if !is_combining_mark(base) {
                let composed = rest.first().and_then(|&m| compose(base, m));
                match composed.and_then(|cc| self.tailoring.single(cc)) {
                    Some(e) => {
                        self.emit(k, e, upper, false);
                        marks = &rest[1..];
                    }
                    None => {
                        match self.tailoring.single(base) {
                            Some(e) => self.emit(k, e, upper, false),
                            None => self.emit(k, &Elem::At(base, 0, 0), upper, false),
                        }
                        marks = rest;
                    }
                }
            }
        }
        for &m in marks {
            k.s.push(self.tailoring.mark_weight(m));
        }
    }

    /// Letters that do not decompose but that UCA still relates to a base letter.
    fn special(&self, c: char) -> Option<Elem> {
        Some(match c {
            'ß' => Elem::As("ss", 0),
            'æ' => Elem::As("ae", 0),
            'œ' => Elem::As("oe", 0),
            'ø' | 'đ' | 'ł' | 'ħ' | 'ŧ' => {
                let base = match c {
                    'ø' => 'o',
                    'đ' => 'd',
                    'ł' => 'l',
                    'ħ' => 'h',
                    _ => 't',
                };
                if self.legacy {
                    Elem::At(base, 7, 0)
                } else {
                    Elem::At(base, 0, (SEC_STROKE - SEC_BASE) as u8)
                }
            }
            _ => return None,
        })
    }

    fn encode(&self, k: Keys) -> Vec<u8> {
        let mut out = Vec::with_capacity(k.p.len() * 4 + k.s.len() * 2 + k.t.len() + 6);
        for p in &k.p {
            out.extend_from_slice(&p.to_be_bytes());
        }
        if self.strength == Strength::Primary {
            return out;
        }
        out.extend_from_slice(&[0, 0, 0, 0]);
        for s in &k.s {
            out.extend_from_slice(&s.to_be_bytes());
        }
        if self.strength == Strength::Secondary {
            return out;
        }
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&k.t);
        out
    }
}

fn case_of(units: &[(char, bool)]) -> bool {
    units.first().is_some_and(|u| u.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collation::tailor::ROOT;

    #[test]
    fn levels_separate_cleanly() {
        let u = |strength| Uca {
            tailoring: &ROOT,
            strength,
            legacy: false,
        };
        let (p, s, t) = (
            u(Strength::Primary),
            u(Strength::Secondary),
            u(Strength::Tertiary),
        );
        assert_eq!(p.weight("Ab"), p.weight("áb"));
        assert_ne!(s.weight("Ab"), s.weight("áb"));
        assert_eq!(s.weight("Ab"), s.weight("ab"));
        assert_ne!(t.weight("Ab"), t.weight("ab"));
        // a shorter primary sequence sorts first whatever the later levels hold
        assert!(t.weight("á") < t.weight("ab"));
        assert!(t.weight("") < t.weight("\u{0}"));
    }
}
