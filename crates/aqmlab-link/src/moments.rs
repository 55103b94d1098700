//! Count, sum and sum of squares of `u64` samples (a link direction's sojourn times, a flow's
//! one-way delays), for their exact mean and variance.

/// Count, sum and sum of squares of `u64` samples, in 128-bit integers: the variance comes
/// out exact to the last bit of its `f64` in any realistic run (see [`Moments::variance`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moments {
    n: u64,
    sum: u128,
    sum_sq: u128,
}

impl Moments {
    /// Adds one sample.
    #[inline(always)]
    pub fn add(&mut self, x: u64) {
        self.n += 1;
        self.sum += x as u128;
        self.sum_sq += x as u128 * x as u128;
    }

    /// Adds one sample of zero ([`Moments::add`]`(0)`: only the count changes).
    #[inline(always)]
    pub fn add_zero(&mut self) {
        self.n += 1;
    }

    /// Samples added.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The population variance Σ(x − mean)²/n; NaN without samples. Computed as
    /// (n·Σx² − (Σx)²)/n², exactly in integers when they fit 128 bits (n·Σx² < 3.4·10³⁸: e.g.
    /// 10⁹ samples of up to 10 s in ns), else in floating point.
    pub fn variance(&self) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let n = self.n as u128;
        match (n.checked_mul(self.sum_sq), self.sum.checked_mul(self.sum)) {
            (Some(a), Some(b)) => (a - b) as f64 / (self.n as f64 * self.n as f64),
            _ => {
                let mean = self.sum as f64 / self.n as f64;
                (self.sum_sq as f64 / self.n as f64 - mean * mean).max(0.0)
            }
        }
    }

    /// The population standard deviation, √[`Moments::variance`].
    pub fn std(&self) -> f64 {
        self.variance().sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_match_a_hand_computation() {
        let mut m = Moments::default();
        assert!(m.variance().is_nan());
        for x in [2, 4, 4, 4, 5, 5, 7, 9] {
            m.add(x);
        }
        // The textbook example: mean 5, population variance 4, standard deviation 2.
        assert_eq!(m.variance(), 4.0);
        assert_eq!(m.std(), 2.0);
        let mut z = m;
        z.add_zero();
        m.add(0);
        assert_eq!(z, m, "add_zero is add(0)");
        let mut one = Moments::default();
        one.add(u64::MAX);
        assert_eq!(one.variance(), 0.0);
    }
}
