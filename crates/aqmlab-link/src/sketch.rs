//! A streaming quantile sketch with bounded relative error: log-linear buckets (the HDR
//! histogram layout). A value's bucket comes from its bit pattern alone — the position of its
//! top bit picks an octave, the next `SUB_BITS` bits a sub-bucket — so adding a sample is a few
//! integer operations (no logarithm on the per-packet path) and identical on every machine.
//! Memory is fixed by the value range: a counter for each bucket from the smallest value's to
//! the largest's (at most 7 424 counters, 4 329 for 1 ns … 1000 s; one for a flow that saw one
//! sample, where counting from bucket 0 took 2 000 for a 10-ms delay: issue 24), so a run's
//! memory does not grow with simulated time, and every quantile is within `REL_ERR` of the true
//! value of some sample at that rank.

/// Bits of sub-bucket resolution within each power of two.
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// Relative accuracy of every quantile: a bucket [L, L + w) with w ≤ L / 2^SUB_BITS is reported
/// by its midpoint, at most w / 2 ≤ L / 2^(SUB_BITS+1) from any value in it (0.39 %).
pub const REL_ERR: f64 = 0.005;

/// Counts of values (non-negative integers, e.g. nanoseconds) in log-linear buckets.
///
/// Empty, a sketch is one null pointer: its state is boxed on the first value (once, not per
/// value). A flow keeps several (delay, RTT, completion times) of which most stay empty, as
/// all but one do for a UDP flow; inline they cost 80 bytes each (issue 24).
#[derive(Clone, Debug, Default)]
pub struct QuantileSketch {
    s: Option<Box<Counts>>,
}

/// A sketch's state once it holds a value.
#[derive(Clone, Debug)]
struct Counts {
    /// `counts[i]` counts bucket `first + i`.
    counts: Vec<u64>,
    first: u32,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

/// Bucket index of `v`: values below `SUB` have a bucket each; above, octave `e` (top bit at
/// position `SUB_BITS + e`) holds `SUB` buckets of width `2^e`.
#[inline]
fn bucket(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let top = 63 - v.leading_zeros(); // ≥ SUB_BITS
    let shift = top - SUB_BITS;
    // (shift + 1) octaves of SUB buckets precede this one; (v >> shift) is in [SUB, 2·SUB).
    ((shift as u64 + 1) * SUB + ((v >> shift) - SUB)) as usize
}

/// The smallest value and the width of bucket `b`.
fn bucket_bounds(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < SUB {
        return (b, 1);
    }
    let shift = b / SUB - 1;
    let lo = (SUB + b % SUB) << shift;
    (lo, 1 << shift)
}

impl QuantileSketch {
    /// An empty sketch.
    pub fn new() -> Self {
        QuantileSketch { s: None }
    }
    /// The state, made on the first value.
    #[inline(always)]
    fn state(&mut self) -> &mut Counts {
        self.s.get_or_insert_with(|| Box::new(Counts::new()))
    }
    /// Adds one value.
    #[inline]
    pub fn add(&mut self, v: u64) {
        self.state().add(v)
    }
    /// Adds one value of zero: [`QuantileSketch::add`]`(0)` without the bucket search (a
    /// packet crossing an idle link's empty queue, most hops of a run).
    #[inline]
    pub fn add_zero(&mut self) {
        self.state().add_zero()
    }
    /// Values added.
    pub fn count(&self) -> u64 {
        self.s.as_ref().map_or(0, |s| s.n)
    }
    /// Exact mean (NaN when empty).
    pub fn mean(&self) -> f64 {
        self.s.as_ref().map_or(f64::NAN, |s| s.mean())
    }
    /// Exact minimum (NaN when empty).
    pub fn min(&self) -> f64 {
        self.s.as_ref().map_or(f64::NAN, |s| s.min())
    }
    /// Exact maximum (NaN when empty).
    pub fn max(&self) -> f64 {
        self.s.as_ref().map_or(f64::NAN, |s| s.max())
    }
    /// The buckets holding values, in ascending order: `(lowest value, highest value, count)`
    /// (both ends inclusive). [`QuantileSketch::quantile`] reports a bucket by its midpoint
    /// clamped to the exact min and max; a reader of these can pool sketches and do the same.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.s.iter().flat_map(|s| s.buckets())
    }
    /// The `q`-quantile (0 ≤ q ≤ 1) within [`REL_ERR`]; NaN when empty. Uses the lower rank
    /// `floor(q·(n−1))`, clamped to the exact min and max.
    pub fn quantile(&self, q: f64) -> f64 {
        self.s.as_ref().map_or(f64::NAN, |s| s.quantile(q))
    }
}

impl Counts {
    fn new() -> Self {
        Counts {
            counts: Vec::new(),
            first: 0,
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
    /// Adds one value.
    #[inline]
    fn add(&mut self, v: u64) {
        self.n += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        let i = self.slot(bucket(v));
        self.counts[i] += 1;
    }

    /// The index in `counts` of bucket `b`, the counters extended to it if need be (as the
    /// range of values seen grows: at most once per bucket, so not per sample).
    #[inline(always)]
    fn slot(&mut self, b: usize) -> usize {
        let first = self.first as usize;
        if b >= first && b - first < self.counts.len() {
            return b - first;
        }
        self.extend_to(b)
    }

    #[cold]
    #[inline(never)]
    fn extend_to(&mut self, b: usize) -> usize {
        let first = self.first as usize;
        if self.counts.is_empty() {
            self.first = b as u32;
            self.counts.push(0);
        } else if b < first {
            self.counts.splice(0..0, std::iter::repeat_n(0, first - b));
            self.first = b as u32;
        } else {
            self.counts.resize(b - first + 1, 0);
        }
        b - self.first as usize
    }

    /// Adds one value of zero: [`QuantileSketch::add`]`(0)` without the bucket search (a
    /// packet crossing an idle link's empty queue, most hops of a run).
    #[inline]
    fn add_zero(&mut self) {
        self.n += 1;
        self.min = 0;
        let i = self.slot(0);
        self.counts[i] += 1;
    }

    /// Exact mean (NaN when empty).
    fn mean(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.sum as f64 / self.n as f64
        }
    }
    /// Exact minimum (NaN when empty).
    fn min(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.min as f64
        }
    }
    /// The buckets holding values, in ascending order: `(lowest value, highest value, count)`
    /// (both ends inclusive). [`QuantileSketch::quantile`] reports a bucket by its midpoint
    /// clamped to the exact min and max; a reader of these can pool sketches and do the same.
    fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| {
                let (lo, width) = bucket_bounds(self.first as usize + i);
                (lo, lo + (width - 1), c)
            })
    }
    /// Exact maximum (NaN when empty).
    fn max(&self) -> f64 {
        if self.n == 0 {
            f64::NAN
        } else {
            self.max as f64
        }
    }
    /// The `q`-quantile (0 ≤ q ≤ 1) within [`REL_ERR`]; NaN when empty. Uses the lower rank
    /// `floor(q·(n−1))`, clamped to the exact min and max.
    fn quantile(&self, q: f64) -> f64 {
        if self.n == 0 {
            return f64::NAN;
        }
        let rank = (q.clamp(0.0, 1.0) * (self.n - 1) as f64).floor() as u64;
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen > rank {
                let (lo, width) = bucket_bounds(self.first as usize + i);
                let v = lo as f64 + (width - 1) as f64 / 2.0;
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

    /// The bound the layout guarantees (module docs): half a bucket width over its lower edge.
    const LAYOUT_ERR: f64 = 1.0 / (2 * SUB) as f64;
    const _: () = assert!(
        LAYOUT_ERR <= REL_ERR,
        "the layout must meet the documented bound"
    );

    /// A sketch's state (it holds a value).
    fn c(s: &QuantileSketch) -> &Counts {
        s.s.as_deref().expect("a sketch with values")
    }

    #[test]
    fn an_empty_sketch_is_a_pointer_and_allocates_on_its_first_value() {
        assert_eq!(
            std::mem::size_of::<QuantileSketch>(),
            std::mem::size_of::<usize>()
        );
        let mut s = QuantileSketch::new();
        assert!(s.s.is_none());
        assert_eq!(s.count(), 0);
        assert!(s.mean().is_nan() && s.quantile(0.5).is_nan());
        assert_eq!(s.buckets().count(), 0);
        s.add(5);
        assert_eq!(
            (s.count(), s.min(), s.max(), s.quantile(0.5)),
            (1, 5.0, 5.0, 5.0)
        );
    }

    proptest! {
        #[test]
        fn quantiles_within_relative_error(mut xs in prop::collection::vec(0u64..2_000_000_000_000, 1..2000), q in 0.0f64..=1.0) {
            let mut s = QuantileSketch::new();
            for &x in &xs { s.add(x); }
            xs.sort_unstable();
            let exact = xs[(q * (xs.len() - 1) as f64).floor() as usize] as f64;
            let got = s.quantile(q);
            prop_assert!((got - exact).abs() <= LAYOUT_ERR * exact + 1e-9, "q {} got {} exact {}", q, got, exact);
            prop_assert_eq!(s.max(), *xs.last().unwrap() as f64);
        }
    }

    #[test]
    fn buckets_hold_every_value_in_order() {
        let xs = [0u64, 7, 7, 129, 10_000_000, 10_000_001, 3_000_000_000];
        let mut s = QuantileSketch::new();
        for &x in &xs {
            s.add(x);
        }
        let b: Vec<_> = s.buckets().collect();
        assert_eq!(b.iter().map(|&(_, _, c)| c).sum::<u64>(), xs.len() as u64);
        assert!(b.windows(2).all(|w| w[0].1 < w[1].0), "ascending, disjoint");
        for &x in &xs {
            assert!(
                b.iter().any(|&(lo, hi, _)| lo <= x && x <= hi),
                "{x} in no bucket"
            );
        }
        assert_eq!((s.min(), s.max()), (0.0, 3e9));
        assert!(QuantileSketch::new().min().is_nan());
    }

    #[test]
    fn add_zero_is_add_of_zero() {
        // Mixed with other values, in either order: the same state as `add(0)`.
        for first in [None, Some(5u64), Some(1_000_000)] {
            let (mut a, mut b) = (QuantileSketch::new(), QuantileSketch::new());
            if let Some(v) = first {
                a.add(v);
                b.add(v);
            }
            a.add(0);
            b.add_zero();
            a.add(300);
            b.add(300);
            assert_eq!(
                (c(&a).n, c(&a).sum, c(&a).min, c(&a).max),
                (c(&b).n, c(&b).sum, c(&b).min, c(&b).max)
            );
            assert_eq!((c(&a).first, &c(&a).counts), (c(&b).first, &c(&b).counts));
        }
    }

    #[test]
    fn buckets_tile_every_u64() {
        // Every bucket, up to the one holding u64::MAX: each starts where the previous ended,
        // holds its first and last value, and is narrow enough for the error bound.
        let last = bucket(u64::MAX);
        assert_eq!(last, (64 - SUB_BITS as usize + 1) * SUB as usize - 1);
        let mut next = 0u64;
        for b in 0..=last {
            let (lo, w) = bucket_bounds(b);
            assert_eq!(lo, next, "bucket {b}");
            assert_eq!(bucket(lo), b);
            let hi = lo + (w - 1);
            assert_eq!(bucket(hi), b);
            assert!((w - 1) as f64 / 2.0 <= LAYOUT_ERR * lo as f64, "bucket {b}");
            if b == last {
                assert_eq!(hi, u64::MAX);
            } else {
                next = hi + 1;
            }
        }
    }

    #[test]
    fn counters_for_one_ns_to_1000_s() {
        // The module docs' figure: a sketch of sojourn times up to 1000 s has 4 329 counters.
        let mut s = QuantileSketch::new();
        for k in 0..=1_000_000u64 {
            s.add(k * 1_000_000);
        }
        assert_eq!(c(&s).counts.len(), 4329);
        assert_eq!(s.count(), 1_000_001);
    }

    #[test]
    fn counters_span_only_the_values_seen() {
        // One 10-ms sample: one counter (from bucket 0 it took 2 232). Then values below and
        // above it extend the span both ways, and the quantiles are those of a sketch that
        // saw the same values in another order.
        let mut s = QuantileSketch::new();
        s.add(10_000_000);
        assert_eq!(c(&s).counts.len(), 1);
        let mut t = QuantileSketch::new();
        for v in [3, 20_000_000, 10_000_000, 0, 5_000] {
            if v != 10_000_000 {
                s.add(v);
            }
            t.add(v);
        }
        s.add_zero();
        t.add(0);
        assert_eq!((c(&s).first, &c(&s).counts), (c(&t).first, &c(&t).counts));
        assert_eq!(
            (c(&s).first, c(&s).counts.len()),
            (0, bucket(20_000_000) + 1)
        );
        for q in [0.0, 0.2, 0.5, 0.8, 1.0] {
            assert_eq!(s.quantile(q).to_bits(), t.quantile(q).to_bits());
        }
    }
}
