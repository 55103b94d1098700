//! A streaming quantile sketch with bounded relative error (the DDSketch idea: logarithmic
//! buckets). Memory is fixed (about 2 800 counters for 1 ns … 1000 s at 0.5 % error), so a run's
//! memory does not grow with simulated time, and every quantile is within `REL_ERR` of the true
//! value of some sample at that rank.

use aqmlab_core::math;

/// Relative accuracy of every quantile.
pub const REL_ERR: f64 = 0.005;

/// Counts of values (non-negative integers, e.g. nanoseconds) in logarithmic buckets.
#[derive(Clone, Debug)]
pub struct QuantileSketch {
    gamma_ln: f64,
    counts: Vec<u64>,
    zeros: u64,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for QuantileSketch {
    fn default() -> Self {
        Self::new()
    }
}

impl QuantileSketch {
    /// An empty sketch.
    pub fn new() -> Self {
        let gamma = (1.0 + REL_ERR) / (1.0 - REL_ERR);
        QuantileSketch {
            gamma_ln: math::ln(gamma),
            counts: Vec::new(),
            zeros: 0,
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
    #[inline]
    fn bucket(&self, v: u64) -> usize {
        (math::ln(v as f64) / self.gamma_ln).ceil() as usize
    }
    /// Adds one value.
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.n += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        if v == 0 {
            self.zeros += 1;
            return;
        }
        let b = self.bucket(v);
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
    }
    /// Values added.
    pub fn count(&self) -> u64 {
        self.n
    }
    /// Exact mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// Exact maximum (NaN when empty).
    pub fn max(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.max as f64
        }
    }
    /// The `q`-quantile (0 ≤ q ≤ 1) within [`REL_ERR`]; NaN when empty. Uses the lower rank
    /// `floor(q·(n−1))`, clamped to the exact min and max.
    pub fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let rank = (q.clamp(0.0, 1.0) * (self.n - 1) as f64).floor() as u64;
        if rank < self.zeros {
            return 0.0;
        }
        let mut seen = self.zeros;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen > rank {
                // The bucket (γ^(b−1), γ^b]: its midpoint in relative terms is 2γ^b/(γ+1).
                let gamma = math::exp(self.gamma_ln);
                let v = 2.0 * math::exp(b as f64 * self.gamma_ln) / (gamma + 1.0);
                return v.clamp(self.min as f64, self.max as f64);
            }
        }
        self.max as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn quantiles_within_relative_error(mut xs in prop::collection::vec(0u64..2_000_000_000_000, 1..2000), q in 0.0f64..=1.0) {
            let mut s = QuantileSketch::new();
            for &x in &xs { s.add(x); }
            xs.sort_unstable();
            let exact = xs[(q * (xs.len() - 1) as f64).floor() as usize] as f64;
            let got = s.quantile(q);
            prop_assert!((got - exact).abs() <= REL_ERR * exact + 1e-9, "q {} got {} exact {}", q, got, exact);
            prop_assert_eq!(s.max(), *xs.last().unwrap() as f64);
        }
    }

    #[test]
    fn memory_is_bounded() {
        let mut s = QuantileSketch::new();
        for k in 0..1_000_000u64 {
            s.add(k * 1_000_000);
        }
        assert!(s.counts.len() < 3000);
        assert_eq!(s.count(), 1_000_000);
    }
}
