//! The sojourn times of one measurement window.

use crate::moments::Moments;
use crate::sketch::QuantileSketch;

/// Sojourn times of one measurement window (the simulator's `windows`): a sketch of their own and
/// their moments.
#[derive(Clone, Debug, Default)]
pub struct SojournStats {
    /// Quantile sketch, ns.
    pub sketch: QuantileSketch,
    /// Exact moments, ns.
    pub moments: Moments,
}

impl SojournStats {
    /// Adds one sojourn time, ns.
    #[inline]
    pub fn add(&mut self, ns: u64) {
        self.sketch.add(ns);
        self.moments.add(ns);
    }
}
