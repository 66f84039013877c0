//! TPC-C's random inputs: the non-uniform NURand function and its C constants (clause 2.1.6),
//! customer last names from syllables (4.3.2.3), the random strings of the initial population
//! (4.3.2.2, 4.3.3.1), and the transaction mix (5.2.3).

use rand::Rng;

/// Items in the catalogue (and stock rows per warehouse).
pub const ITEMS: u32 = 100_000;
/// Districts per warehouse.
pub const DISTRICTS: u32 = 10;
/// Customers per district.
pub const CUSTOMERS: u32 = 3_000;
/// Orders per district in the initial population.
pub const ORDERS: u32 = 3_000;
/// The first order id of a district that is still undelivered (a new order) after the load:
/// the last 900 of the 3000 are.
pub const FIRST_NEW_ORDER: u32 = 2_101;

/// The syllables customer last names are made of.
pub const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// The last name of number `n` (0–999): the syllables of its three decimal digits, e.g.
/// 371 → PRICALLYOUGHT.
pub fn last_name(n: u32) -> String {
    let n = n % 1000;
    let mut s = String::with_capacity(15);
    for d in [n / 100, (n / 10) % 10, n % 10] {
        s.push_str(SYLLABLES[d as usize]);
    }
    s
}

/// NURand(A, x, y) given its two uniform draws `r1` (in 0..=A) and `r2` (in x..=y) and the
/// constant `c`: `(((r1 | r2) + c) mod (y - x + 1)) + x`.
pub fn nurand_of(r1: u32, r2: u32, c: u32, x: u32, y: u32) -> u32 {
    ((r1 | r2) + c) % (y - x + 1) + x
}

/// A NURand(A, x, y) draw with constant `c`.
pub fn nurand<R: Rng>(rng: &mut R, a: u32, x: u32, y: u32, c: u32) -> u32 {
    let r1 = rng.gen_range(0..=a);
    let r2 = rng.gen_range(x..=y);
    nurand_of(r1, r2, c, x, y)
}

/// The C constants of NURand for C_LAST (A = 255), C_ID (A = 1023) and OL_I_ID (A = 8191).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NuRandC {
    /// For customer last names.
    pub c_last: u32,
    /// For customer ids.
    pub c_id: u32,
    /// For item ids.
    pub ol_i_id: u32,
}

/// Whether `run` may be used as C_LAST in the measurement of a database loaded with `load`
/// (clause 2.1.6.1: their difference is in 65..=119 and is neither 96 nor 112).
pub fn valid_c_last_delta(load: u32, run: u32) -> bool {
    let d = load.abs_diff(run);
    (65..=119).contains(&d) && d != 96 && d != 112
}

impl NuRandC {
    /// Constants for loading a database.
    pub fn for_load<R: Rng>(rng: &mut R) -> NuRandC {
        NuRandC {
            c_last: rng.gen_range(0..=255),
            c_id: rng.gen_range(0..=1023),
            ol_i_id: rng.gen_range(0..=8191),
        }
    }

    /// Constants for the measurement of a database loaded with `load`: C_LAST at an allowed
    /// distance from the load's, C_ID and OL_I_ID drawn anew.
    pub fn for_run<R: Rng>(load: &NuRandC, rng: &mut R) -> NuRandC {
        let c_last = loop {
            let c = rng.gen_range(0..=255);
            if valid_c_last_delta(load.c_last, c) {
                break c;
            }
        };
        NuRandC {
            c_last,
            c_id: rng.gen_range(0..=1023),
            ol_i_id: rng.gen_range(0..=8191),
        }
    }

    /// A customer id: NURand(1023, 1, 3000).
    pub fn customer_id<R: Rng>(&self, rng: &mut R) -> u32 {
        nurand(rng, 1023, 1, CUSTOMERS, self.c_id)
    }

    /// A last-name number: NURand(255, 0, 999).
    pub fn last_name_number<R: Rng>(&self, rng: &mut R) -> u32 {
        nurand(rng, 255, 0, 999, self.c_last)
    }

    /// An item id: NURand(8191, 1, 100000).
    pub fn item_id<R: Rng>(&self, rng: &mut R) -> u32 {
        nurand(rng, 8191, 1, ITEMS, self.ol_i_id)
    }
}

const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// A random alphanumeric string of `lo..=hi` characters (the spec's "a-string").
pub fn astring<R: Rng>(rng: &mut R, lo: usize, hi: usize) -> String {
    let n = rng.gen_range(lo..=hi);
    (0..n)
        .map(|_| ALNUM[rng.gen_range(0..ALNUM.len())] as char)
        .collect()
}

/// A random string of `lo..=hi` decimal digits (the spec's "n-string").
pub fn nstring<R: Rng>(rng: &mut R, lo: usize, hi: usize) -> String {
    let n = rng.gen_range(lo..=hi);
    (0..n)
        .map(|_| char::from(b'0' + rng.gen_range(0..10u8)))
        .collect()
}

/// A zip code: 4 random digits followed by `11111`.
pub fn zip<R: Rng>(rng: &mut R) -> String {
    format!("{}11111", nstring(rng, 4, 4))
}

/// I_DATA / S_DATA: an a-string of 26–50 characters, of which 10 % hold `ORIGINAL` at a random
/// position.
pub fn data_with_original<R: Rng>(rng: &mut R) -> String {
    let mut s = astring(rng, 26, 50);
    if rng.gen_range(0..10) == 0 {
        let at = rng.gen_range(0..=s.len() - 8);
        s.replace_range(at..at + 8, "ORIGINAL");
    }
    s
}

/// A decimal amount with two places drawn uniformly from `lo_cents..=hi_cents`, as a number
/// of cents.
pub fn cents<R: Rng>(rng: &mut R, lo_cents: u32, hi_cents: u32) -> u32 {
    rng.gen_range(lo_cents..=hi_cents)
}

/// Formats a number of cents as a decimal literal: 12345 → `123.45`.
pub fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let c = cents.unsigned_abs();
    format!("{sign}{}.{:02}", c / 100, c % 100)
}

/// Parses a decimal literal with at most two places into cents: `123.45` → 12345,
/// `-10.00` → -1000, `7` → 700, `0.5` → 50. `None` for anything else.
pub fn parse_cents(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let ok = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let extra_places = frac.len() > 2 && frac[2..].bytes().any(|b| b != b'0');
    if int.is_empty() || !ok(int) || !ok(frac) || extra_places {
        return None;
    }
    let mut cents: i64 = int.parse::<i64>().ok()?.checked_mul(100)?;
    let f2: String = frac.chars().chain("00".chars()).take(2).collect();
    cents += f2.parse::<i64>().ok()?;
    Some(if neg { -cents } else { cents })
}

/// A fraction with four places drawn uniformly from `0..=max_ten_thousandths`, as a literal
/// (`0.1234`): tax rates and discounts.
pub fn rate<R: Rng>(rng: &mut R, max_ten_thousandths: u32) -> String {
    format!("0.{:04}", rng.gen_range(0..=max_ten_thousandths))
}

/// The five transaction types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxnType {
    /// New-Order (45 %).
    NewOrder,
    /// Payment (43 %).
    Payment,
    /// Order-Status (4 %).
    OrderStatus,
    /// Delivery (4 %).
    Delivery,
    /// Stock-Level (4 %).
    StockLevel,
}

impl TxnType {
    /// All types, in the order the reports list them.
    pub const ALL: [TxnType; 5] = [
        TxnType::NewOrder,
        TxnType::Payment,
        TxnType::OrderStatus,
        TxnType::Delivery,
        TxnType::StockLevel,
    ];

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            TxnType::NewOrder => "New-Order",
            TxnType::Payment => "Payment",
            TxnType::OrderStatus => "Order-Status",
            TxnType::Delivery => "Delivery",
            TxnType::StockLevel => "Stock-Level",
        }
    }

    /// The share of the mix in percent.
    pub fn percent(self) -> u32 {
        match self {
            TxnType::NewOrder => 45,
            TxnType::Payment => 43,
            TxnType::OrderStatus | TxnType::Delivery | TxnType::StockLevel => 4,
        }
    }

    /// The position in [`TxnType::ALL`].
    pub fn index(self) -> usize {
        TxnType::ALL
            .iter()
            .position(|t| *t == self)
            .unwrap_or_default()
    }

    /// The type for a uniform draw `r` in 0..100: the first type whose cumulative share
    /// exceeds `r`.
    pub fn for_draw(r: u32) -> TxnType {
        let mut acc = 0;
        for t in TxnType::ALL {
            acc += t.percent();
            if r < acc {
                return t;
            }
        }
        TxnType::StockLevel
    }

    /// A type drawn with the mix's weights.
    pub fn pick<R: Rng>(rng: &mut R) -> TxnType {
        TxnType::for_draw(rng.gen_range(0..100))
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn last_names_from_syllables() {
        assert_eq!(last_name(0), "BARBARBAR");
        assert_eq!(last_name(371), "PRICALLYOUGHT");
        assert_eq!(last_name(999), "EINGEINGEING");
        assert_eq!(last_name(50), "BARESEBAR");
        assert_eq!(last_name(40), "BARPRESBAR");
        assert_eq!(last_name(1371), last_name(371));
        let distinct: std::collections::HashSet<String> = (0..1000).map(last_name).collect();
        assert_eq!(distinct.len(), 1000);
        assert!((0..1000).all(|n| last_name(n).len() <= 16));
    }

    #[test]
    fn nurand_formula_and_range() {
        // ((r1 | r2) + c) mod (y - x + 1) + x
        assert_eq!(nurand_of(5, 10, 3, 1, 3000), 19); // ((5 | 10) + 3) mod 3000 + 1
        assert_eq!(
            nurand_of(1023, 2999, 7, 1, 3000),
            ((1023 | 2999) + 7) % 3000 + 1
        );
        assert_eq!(nurand_of(0, 999, 1, 0, 999), 0);
        assert_eq!(nurand_of(255, 1000, 0, 0, 999), (255 | 1000) % 1000);
        let mut rng = StdRng::seed_from_u64(7);
        let c = NuRandC::for_load(&mut rng);
        let mut counts = vec![0u32; 1000];
        for _ in 0..200_000 {
            let id = c.customer_id(&mut rng);
            assert!((1..=3000).contains(&id));
            let i = c.item_id(&mut rng);
            assert!((1..=100_000).contains(&i));
            let n = c.last_name_number(&mut rng);
            counts[n as usize] += 1;
        }
        // Non-uniform: the most drawn name far more often than the least drawn one.
        let max = *counts.iter().max().unwrap();
        let min = *counts.iter().min().unwrap();
        assert!(max > 4 * min.max(1), "max {max}, min {min}");
    }

    #[test]
    fn run_constant_keeps_its_distance() {
        assert!(valid_c_last_delta(100, 165));
        assert!(valid_c_last_delta(200, 81));
        assert!(!valid_c_last_delta(100, 164));
        assert!(!valid_c_last_delta(100, 196));
        assert!(!valid_c_last_delta(100, 212));
        assert!(!valid_c_last_delta(0, 120));
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..200 {
            let load = NuRandC::for_load(&mut rng);
            let run = NuRandC::for_run(&load, &mut rng);
            assert!(valid_c_last_delta(load.c_last, run.c_last));
            assert!(run.c_last <= 255 && run.c_id <= 1023 && run.ol_i_id <= 8191);
        }
    }

    #[test]
    fn strings_and_amounts() {
        let mut rng = StdRng::seed_from_u64(1);
        let mut originals = 0;
        for _ in 0..2000 {
            let a = astring(&mut rng, 8, 16);
            assert!((8..=16).contains(&a.len()) && a.bytes().all(|b| b.is_ascii_alphanumeric()));
            let n = nstring(&mut rng, 16, 16);
            assert!(n.len() == 16 && n.bytes().all(|b| b.is_ascii_digit()));
            let z = zip(&mut rng);
            assert!(z.len() == 9 && z.ends_with("11111"));
            let d = data_with_original(&mut rng);
            assert!((26..=50).contains(&d.len()));
            originals += usize::from(d.contains("ORIGINAL"));
        }
        assert!((120..=290).contains(&originals), "{originals} of 2000");
        assert_eq!(money(12345), "123.45");
        assert_eq!(money(-1000), "-10.00");
        assert_eq!(money(5), "0.05");
        assert_eq!(parse_cents("123.45"), Some(12345));
        assert_eq!(parse_cents("-10.00"), Some(-1000));
        assert_eq!(parse_cents("300000"), Some(30_000_000));
        assert_eq!(parse_cents("0.5"), Some(50));
        assert_eq!(parse_cents("1.2300"), Some(123));
        assert_eq!(parse_cents("1.234"), None);
        assert_eq!(parse_cents("abc"), None);
        assert_eq!(parse_cents(""), None);
        assert_eq!(parse_cents(&money(-123_456_789)), Some(-123_456_789));
        let r = rate(&mut rng, 2000);
        assert!(r.starts_with("0.") && r.len() == 6 && r.as_str() <= "0.2000");
        assert!((100..=500_000).contains(&cents(&mut rng, 100, 500_000)));
    }

    #[test]
    fn mix_follows_the_weights() {
        assert_eq!(TxnType::for_draw(0), TxnType::NewOrder);
        assert_eq!(TxnType::for_draw(44), TxnType::NewOrder);
        assert_eq!(TxnType::for_draw(45), TxnType::Payment);
        assert_eq!(TxnType::for_draw(87), TxnType::Payment);
        assert_eq!(TxnType::for_draw(88), TxnType::OrderStatus);
        assert_eq!(TxnType::for_draw(92), TxnType::Delivery);
        assert_eq!(TxnType::for_draw(96), TxnType::StockLevel);
        assert_eq!(TxnType::for_draw(99), TxnType::StockLevel);
        assert_eq!(TxnType::ALL.iter().map(|t| t.percent()).sum::<u32>(), 100);
        let mut rng = StdRng::seed_from_u64(11);
        let mut n = [0u32; 5];
        for _ in 0..100_000 {
            n[TxnType::pick(&mut rng).index()] += 1;
        }
        for t in TxnType::ALL {
            let share = f64::from(n[t.index()]) / 1000.0;
            assert!(
                (share - f64::from(t.percent())).abs() < 1.0,
                "{}: {share} %",
                t.name()
            );
        }
    }
}
