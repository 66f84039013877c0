//! The collations beyond the six built into [`Collation`]'s own variants: MySQL 8.4's
//! language-specific UCA 9.0.0 collations (`utf8mb4_<lang>_0900_ai_ci` / `_as_cs`), the legacy
//! UCA 4.0.0 names (`utf8mb4_swedish_ci`, `utf8mb4_unicode_ci`, …) and the latin1 collations,
//! each with the name, id, sort length and pad attribute SHOW COLLATION gives in MySQL 8.4.
//! A name that is not listed here is unknown (error 1273): languages whose rules are not
//! implemented are left out rather than approximated.
//!
//! [`Collation`]: crate::types::Collation

use super::latin1::{self, Latin1};
use super::tailor::{self, Tailoring};
use super::uca::{Strength, Uca};

/// How a listed collation compares.
#[derive(Debug)]
pub enum Kind {
    /// UCA-style multi-level weights with a language tailoring.
    Uca(Uca),
    /// A single-byte latin1 sort order.
    Latin1(Latin1),
}

/// One listed collation.
#[derive(Debug)]
pub struct Info {
    /// MySQL collation id.
    pub id: u16,
    /// MySQL name.
    pub name: &'static str,
    /// Character set.
    pub charset: &'static str,
    /// PAD SPACE (true) or NO PAD.
    pub pad_space: bool,
    /// Case-insensitive (`_ci`).
    pub ci: bool,
    /// SHOW COLLATION's Sortlen.
    pub sortlen: u32,
    /// The comparison rules.
    pub kind: Kind,
}

const fn uca9(id: u16, name: &'static str, t: &'static Tailoring, s: Strength) -> Info {
    Info {
        id,
        name,
        charset: "utf8mb4",
        pad_space: false,
        ci: !matches!(s, Strength::Tertiary),
        sortlen: 0,
        kind: Kind::Uca(Uca {
            tailoring: t,
            strength: s,
            legacy: false,
        }),
    }
}

/// A legacy UCA 4.0.0 / 5.2.0 `_ci` collation: PAD SPACE, primary strength only.
const fn uca4(id: u16, name: &'static str, t: &'static Tailoring) -> Info {
    Info {
        id,
        name,
        charset: "utf8mb4",
        pad_space: true,
        ci: true,
        sortlen: 8,
        kind: Kind::Uca(Uca {
            tailoring: t,
            strength: Strength::Primary,
            legacy: true,
        }),
    }
}

const fn lat1(id: u16, name: &'static str, ci: bool, sortlen: u32, l: Latin1) -> Info {
    Info {
        id,
        name,
        charset: "latin1",
        pad_space: true,
        ci,
        sortlen,
        kind: Kind::Latin1(l),
    }
}

use Strength::{Primary as AI, Secondary as AS_CI, Tertiary as AS_CS};

/// Every listed collation, in id order.
pub static LIST: &[Info] = &[
    lat1(5, "latin1_german1_ci", true, 1, Latin1::German1),
    lat1(15, "latin1_danish_ci", true, 1, Latin1::Danish),
    lat1(31, "latin1_german2_ci", true, 2, Latin1::German2),
    lat1(48, "latin1_general_ci", true, 1, Latin1::GeneralCi),
    lat1(49, "latin1_general_cs", false, 1, Latin1::GeneralCs),
    lat1(94, "latin1_spanish_ci", true, 1, Latin1::Spanish),
    uca4(224, "utf8mb4_unicode_ci", &tailor::ROOT),
    uca4(225, "utf8mb4_icelandic_ci", &tailor::IS_LEGACY),
    uca4(228, "utf8mb4_slovenian_ci", &tailor::SL),
    uca4(229, "utf8mb4_polish_ci", &tailor::PL),
    uca4(230, "utf8mb4_estonian_ci", &tailor::ET),
    uca4(231, "utf8mb4_spanish_ci", &tailor::ES),
    uca4(232, "utf8mb4_swedish_ci", &tailor::SV_LEGACY),
    uca4(233, "utf8mb4_turkish_ci", &tailor::TR),
    uca4(234, "utf8mb4_czech_ci", &tailor::CS),
    uca4(235, "utf8mb4_danish_ci", &tailor::DA_LEGACY),
    uca4(237, "utf8mb4_slovak_ci", &tailor::SK),
    uca4(238, "utf8mb4_spanish2_ci", &tailor::ES_TRAD),
    uca4(241, "utf8mb4_esperanto_ci", &tailor::EO),
    uca4(244, "utf8mb4_german2_ci", &tailor::DE_PB),
    uca4(245, "utf8mb4_croatian_ci", &tailor::HR),
    uca4(246, "utf8mb4_unicode_520_ci", &tailor::ROOT),
    uca9(256, "utf8mb4_de_pb_0900_ai_ci", &tailor::DE_PB, AI),
    uca9(257, "utf8mb4_is_0900_ai_ci", &tailor::IS, AI),
    uca9(259, "utf8mb4_ro_0900_ai_ci", &tailor::RO, AI),
    uca9(260, "utf8mb4_sl_0900_ai_ci", &tailor::SL, AI),
    uca9(261, "utf8mb4_pl_0900_ai_ci", &tailor::PL, AI),
    uca9(262, "utf8mb4_et_0900_ai_ci", &tailor::ET, AI),
    uca9(263, "utf8mb4_es_0900_ai_ci", &tailor::ES, AI),
    uca9(264, "utf8mb4_sv_0900_ai_ci", &tailor::SV, AI),
    uca9(265, "utf8mb4_tr_0900_ai_ci", &tailor::TR, AI),
    uca9(266, "utf8mb4_cs_0900_ai_ci", &tailor::CS, AI),
    uca9(267, "utf8mb4_da_0900_ai_ci", &tailor::DA, AI),
    uca9(269, "utf8mb4_sk_0900_ai_ci", &tailor::SK, AI),
    uca9(270, "utf8mb4_es_trad_0900_ai_ci", &tailor::ES_TRAD, AI),
    uca9(273, "utf8mb4_eo_0900_ai_ci", &tailor::EO, AI),
    uca9(275, "utf8mb4_hr_0900_ai_ci", &tailor::HR, AI),
    uca9(277, "utf8mb4_vi_0900_ai_ci", &tailor::VI, AI),
    uca9(278, "utf8mb4_0900_as_cs", &tailor::ROOT, AS_CS),
    uca9(279, "utf8mb4_de_pb_0900_as_cs", &tailor::DE_PB, AS_CS),
    uca9(280, "utf8mb4_is_0900_as_cs", &tailor::IS, AS_CS),
    uca9(282, "utf8mb4_ro_0900_as_cs", &tailor::RO, AS_CS),
    uca9(283, "utf8mb4_sl_0900_as_cs", &tailor::SL, AS_CS),
    uca9(284, "utf8mb4_pl_0900_as_cs", &tailor::PL, AS_CS),
    uca9(285, "utf8mb4_et_0900_as_cs", &tailor::ET, AS_CS),
    uca9(286, "utf8mb4_es_0900_as_cs", &tailor::ES, AS_CS),
    uca9(287, "utf8mb4_sv_0900_as_cs", &tailor::SV, AS_CS),
    uca9(288, "utf8mb4_tr_0900_as_cs", &tailor::TR, AS_CS),
    uca9(289, "utf8mb4_cs_0900_as_cs", &tailor::CS, AS_CS),
    uca9(290, "utf8mb4_da_0900_as_cs", &tailor::DA, AS_CS),
    uca9(292, "utf8mb4_sk_0900_as_cs", &tailor::SK, AS_CS),
    uca9(293, "utf8mb4_es_trad_0900_as_cs", &tailor::ES_TRAD, AS_CS),
    uca9(296, "utf8mb4_eo_0900_as_cs", &tailor::EO, AS_CS),
    uca9(298, "utf8mb4_hr_0900_as_cs", &tailor::HR, AS_CS),
    uca9(300, "utf8mb4_vi_0900_as_cs", &tailor::VI, AS_CS),
    uca9(305, "utf8mb4_0900_as_ci", &tailor::ROOT, AS_CI),
    uca9(310, "utf8mb4_nb_0900_ai_ci", &tailor::NB, AI),
    uca9(311, "utf8mb4_nb_0900_as_cs", &tailor::NB, AS_CS),
    uca9(312, "utf8mb4_nn_0900_ai_ci", &tailor::NB, AI),
    uca9(313, "utf8mb4_nn_0900_as_cs", &tailor::NB, AS_CS),
];

/// Stands in for an id no longer listed (a catalog written by a newer build): compares as
/// utf8mb4_0900_as_cs so that nothing distinct is merged.
static UNLISTED: Info = uca9(278, "utf8mb4_0900_as_cs", &tailor::ROOT, AS_CS);

/// The listed collation with MySQL id `id`.
pub fn by_id(id: u16) -> &'static Info {
    match LIST.binary_search_by_key(&id, |i| i.id) {
        Ok(n) => &LIST[n],
        Err(_) => &UNLISTED,
    }
}

/// The listed collation named `name` (lower case).
pub fn by_name(name: &str) -> Option<&'static Info> {
    LIST.iter().find(|i| i.name == name)
}

/// The weights of `s` under a listed collation (trailing spaces already removed for PAD SPACE).
pub(super) fn weight(id: u16, s: &str) -> Vec<u8> {
    match &by_id(id).kind {
        Kind::Uca(u) => u.weight(s),
        Kind::Latin1(l) => latin1::weight(*l, s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_sorted_unique_and_named_as_mysql() {
        for w in LIST.windows(2) {
            assert!(w[0].id < w[1].id, "{} before {}", w[0].name, w[1].name);
        }
        for i in LIST {
            assert!(i.name.starts_with(i.charset), "{}", i.name);
            assert_eq!(i.ci, i.name.ends_with("_ci"), "{}", i.name);
            assert_eq!(i.pad_space, !i.name.contains("_0900_"), "{}", i.name);
            assert_eq!(by_name(i.name).map(|j| j.id), Some(i.id));
        }
        assert_eq!(by_name("utf8mb4_esperanto_ci").map(|i| i.id), Some(241));
        assert_eq!(by_name("utf8mb4_swedish_ci").map(|i| i.id), Some(232));
        assert_eq!(by_name("latin1_general_cs").map(|i| i.id), Some(49));
        assert!(
            by_name("utf8mb4_hu_0900_ai_ci").is_none(),
            "Hungarian is not implemented"
        );
    }
}
