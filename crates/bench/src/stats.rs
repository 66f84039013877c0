//! Small statistics helpers: percentiles of latency samples and interval rates.

use std::time::{Duration, Instant};

/// The `p`-th percentile (0–100) of `samples` by the nearest-rank method; `NaN` when empty.
/// Sorts the slice in place.
pub fn percentile(samples: &mut [f64], p: f64) -> f64 {
    if samples.is_empty() {
        return f64::NAN;
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0) * samples.len() as f64).ceil() as usize;
    samples[rank.clamp(1, samples.len()) - 1]
}

/// The arithmetic mean; `NaN` when empty.
pub fn mean(samples: &[f64]) -> f64 {
    if samples.is_empty() {
        f64::NAN
    } else {
        samples.iter().sum::<f64>() / samples.len() as f64
    }
}

/// Turns a growing counter into (counter, rate) points, one each time the counter passes the
/// next multiple of `step` (and a last one at [`IntervalRates::finish`]).
#[derive(Debug)]
pub struct IntervalRates {
    step: u64,
    next: u64,
    last_count: u64,
    last_time: Instant,
    /// `(count at the end of the interval, units per second during the interval)`.
    pub points: Vec<(f64, f64)>,
}

impl IntervalRates {
    /// Starts counting at `start` with one point per `step` units (at least 1).
    pub fn new(step: u64, start: Instant) -> IntervalRates {
        let step = step.max(1);
        IntervalRates {
            step,
            next: step,
            last_count: 0,
            last_time: start,
            points: Vec::new(),
        }
    }

    /// Records the counter's value observed at `now`.
    pub fn observe(&mut self, count: u64, now: Instant) {
        if count >= self.next {
            self.push(count, now);
            self.next = (count / self.step + 1) * self.step;
        }
    }

    /// Closes the last partial interval.
    pub fn finish(&mut self, count: u64, now: Instant) {
        if count > self.last_count {
            self.push(count, now);
        }
    }

    fn push(&mut self, count: u64, now: Instant) {
        let dt = now
            .saturating_duration_since(self.last_time)
            .max(Duration::from_micros(1));
        let rate = (count - self.last_count) as f64 / dt.as_secs_f64();
        self.points.push((count as f64, rate));
        self.last_count = count;
        self.last_time = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_nearest_rank() {
        let mut v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentile(&mut v, 95.0), 95.0);
        assert_eq!(percentile(&mut v, 50.0), 50.0);
        assert_eq!(percentile(&mut v, 100.0), 100.0);
        assert_eq!(percentile(&mut v, 0.0), 1.0);
        let mut one = vec![3.5];
        assert_eq!(percentile(&mut one, 95.0), 3.5);
        assert!(percentile(&mut [], 95.0).is_nan());
    }

    #[test]
    fn mean_of_samples() {
        assert_eq!(mean(&[1.0, 2.0, 3.0]), 2.0);
        assert!(mean(&[]).is_nan());
    }

    #[test]
    fn interval_rates_one_point_per_step() {
        let t0 = Instant::now();
        let mut r = IntervalRates::new(100, t0);
        r.observe(50, t0 + Duration::from_millis(500));
        assert!(r.points.is_empty());
        r.observe(100, t0 + Duration::from_secs(1));
        // A jump over several steps gives one point, and the next boundary follows it.
        r.observe(350, t0 + Duration::from_secs(2));
        r.observe(399, t0 + Duration::from_secs(3));
        r.finish(420, t0 + Duration::from_secs(4));
        let p = &r.points;
        assert_eq!(p.len(), 3);
        assert_eq!(p[0], (100.0, 100.0));
        assert_eq!(p[1], (350.0, 250.0));
        assert_eq!(p[2], (420.0, 35.0));
        // finish() adds nothing when the last interval is closed already.
        r.finish(420, t0 + Duration::from_secs(5));
        assert_eq!(r.points.len(), 3);
    }
}
