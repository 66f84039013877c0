//! Data and key generators: the pareto distribution (sysbench's `--rand-type=pareto`), hot sets
//! of distinct row ids, and sysbench-style filler strings. All are deterministic given a seed.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A pareto-distributed integer in `lo..=hi`: with the default `h = 0.2`, 80 % of the draws
/// fall in the lowest 20 % of the range (the hot rows), like sysbench's `--rand-type=pareto`.
#[derive(Debug, Clone, Copy)]
pub struct Pareto {
    lo: u64,
    span: u64,
    power: f64,
}

impl Pareto {
    /// `h` is the fraction of the range that receives `1 - h` of the draws; it must lie in
    /// `(0, 0.5)` for a skewed distribution (0.5 would be uniform).
    ///
    /// # Panics
    /// When `hi < lo` or `h` is not in `(0, 1)`.
    pub fn new(lo: u64, hi: u64, h: f64) -> Pareto {
        assert!(hi >= lo, "empty range");
        assert!(h > 0.0 && h < 1.0, "h must be in (0, 1)");
        // P(u^p < h) = h^(1/p) must be 1 - h, so p = ln(h) / ln(1 - h).
        let power = h.ln() / (1.0 - h).ln();
        Pareto {
            lo,
            span: hi - lo + 1,
            power,
        }
    }

    /// One draw.
    pub fn sample<R: Rng>(&self, rng: &mut R) -> u64 {
        let u: f64 = rng.gen();
        let off = (self.span as f64 * u.powf(self.power)) as u64;
        self.lo + off.min(self.span - 1)
    }
}

/// `size` distinct row ids from `1..=rows`, chosen uniformly with the given seed (all rows when
/// `size >= rows`), in random order.
pub fn hot_set(seed: u64, size: usize, rows: u64) -> Vec<u64> {
    let rows_usize = usize::try_from(rows).unwrap_or(usize::MAX);
    let mut rng = StdRng::seed_from_u64(seed);
    if size >= rows_usize {
        let mut all: Vec<u64> = (1..=rows).collect();
        rand::seq::SliceRandom::shuffle(all.as_mut_slice(), &mut rng);
        return all;
    }
    rand::seq::index::sample(&mut rng, rows_usize, size)
        .into_iter()
        .map(|i| i as u64 + 1)
        .collect()
}

/// A sysbench-style filler string: `groups` groups of 11 random digits joined by `-`
/// (length `12 * groups - 1`): 10 groups make the 119-character `c`, 5 the 59-character `pad`.
pub fn digit_groups<R: Rng>(rng: &mut R, groups: usize) -> String {
    let mut s = String::with_capacity(groups * 12);
    for g in 0..groups {
        if g > 0 {
            s.push('-');
        }
        for _ in 0..11 {
            s.push(char::from(b'0' + rng.gen_range(0..10u8)));
        }
    }
    s
}

/// Random lowercase letters (payload columns).
pub fn letters<R: Rng>(rng: &mut R, len: usize) -> String {
    (0..len)
        .map(|_| char::from(b'a' + rng.gen_range(0..26u8)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn pareto_stays_in_range_and_is_skewed() {
        let p = Pareto::new(1, 1000, 0.2);
        let mut rng = StdRng::seed_from_u64(7);
        let mut low = 0;
        let n = 100_000;
        for _ in 0..n {
            let v = p.sample(&mut rng);
            assert!((1..=1000).contains(&v), "{v}");
            if v <= 200 {
                low += 1;
            }
        }
        let frac = low as f64 / n as f64;
        assert!((0.77..0.83).contains(&frac), "80/20 rule, got {frac}");
    }

    #[test]
    fn pareto_single_value_range() {
        let p = Pareto::new(5, 5, 0.2);
        let mut rng = StdRng::seed_from_u64(1);
        assert!((0..100).all(|_| p.sample(&mut rng) == 5));
    }

    #[test]
    fn hot_set_is_distinct_in_range_and_deterministic() {
        let a = hot_set(42, 500, 10_000);
        assert_eq!(a.len(), 500);
        assert!(a.iter().all(|&id| (1..=10_000).contains(&id)));
        assert_eq!(a.iter().collect::<HashSet<_>>().len(), 500);
        assert_eq!(a, hot_set(42, 500, 10_000));
        assert_ne!(a, hot_set(43, 500, 10_000));
    }

    #[test]
    fn hot_set_larger_than_table_is_the_whole_table() {
        let mut a = hot_set(1, 50, 20);
        a.sort_unstable();
        assert_eq!(a, (1..=20).collect::<Vec<_>>());
    }

    #[test]
    fn digit_groups_shape() {
        let mut rng = StdRng::seed_from_u64(3);
        let c = digit_groups(&mut rng, 10);
        assert_eq!(c.len(), 119);
        assert_eq!(c.matches('-').count(), 9);
        assert!(c
            .split('-')
            .all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit())));
        assert_eq!(letters(&mut rng, 8).len(), 8);
    }
}
