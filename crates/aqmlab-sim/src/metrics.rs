//! Measurements kept beside the engine ([`crate::world`]), each updated in O(1) without
//! allocating on the per-packet path:
//!
//! * [`Moments`]: count, sum and sum of squares of the sojourn times, for their exact variance;
//! * [`FlowLinks`]: per flow, what happened to its packets at each link direction it crossed
//!   (arrivals, drops and marks by reason, wire losses), so drops can be attributed to flows;
//! * [`Receiver`]: what a flow's receiver sees of its data packets: one-way delay, RFC 3550
//!   interarrival jitter, losses;
//! * [`QueueArea`]: the integral of a link direction's backlog over time, per time bin (the
//!   time-averaged queue, which Little's law ties to the sojourn times).

use crate::sketch::QuantileSketch;
use aqmlab_qdisc::{DropReason, MarkReason};

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

/// What happened to one flow's packets at one link direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowAtLink {
    /// Packets offered to the direction's discipline.
    pub arrived_pkts: u64,
    /// Their bytes.
    pub arrived_bytes: u64,
    /// Packets the discipline dropped.
    pub dropped_pkts: u64,
    /// Those drops by reason (indexed by `DropReason::index()`).
    pub drops_by_reason: [u64; DropReason::ALL.len()],
    /// Packets the discipline CE-marked.
    pub marked_pkts: u64,
    /// Those marks by reason (indexed by `MarkReason::index()`).
    pub marks_by_reason: [u64; MarkReason::ALL.len()],
    /// Packets lost on the wire after transmission.
    pub lost_pkts: u64,
}

/// Per flow: a [`FlowAtLink`] for each link direction its packets have reached, in the order
/// they first did. A flow crosses a handful of directions (its path, both ways), so a linear
/// search finds one faster than a map would.
#[derive(Clone, Debug, Default)]
pub struct FlowLinks {
    links: Vec<u32>,
    counts: Vec<FlowAtLink>,
}

impl FlowLinks {
    /// The counts at link direction `link` (added on the first packet there: once per link
    /// direction on the flow's path, not per packet).
    #[inline(always)]
    pub fn at(&mut self, link: u32) -> &mut FlowAtLink {
        match self.links.iter().position(|&l| l == link) {
            Some(i) => &mut self.counts[i],
            None => self.add(link),
        }
    }

    #[cold]
    #[inline(never)]
    fn add(&mut self, link: u32) -> &mut FlowAtLink {
        self.links.push(link);
        self.counts.push(FlowAtLink::default());
        self.counts.last_mut().expect("just pushed")
    }

    /// `(link direction index, counts)` in the order the flow's packets first reached them.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &FlowAtLink)> {
        self.links.iter().copied().zip(&self.counts)
    }
}

/// A link direction's backlog integrated over time: the level since the last change, and when
/// that was. [`QueueArea::advance`] adds `level × time` to the time bins it spans.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueArea {
    /// When the level last changed (or was last accounted), ns.
    pub last_ns: u64,
    /// Packets queued since then.
    pub pkts: u64,
    /// Bytes queued since then.
    pub bytes: u64,
}

/// One bin's share of a [`QueueArea`]: packet·ns and byte·ns.
pub trait AreaRow {
    /// Adds `pkt_ns` packet-nanoseconds and `byte_ns` byte-nanoseconds.
    fn add_area(&mut self, pkt_ns: u128, byte_ns: u128);
}

impl QueueArea {
    /// Accounts the level held from `last_ns` to `to_ns` into the rows of the bins it spans,
    /// then sets the level to `pkts`, `bytes`. `series[k]` is the row of absolute bin
    /// `base + k` (bins of `bin_ns`; rows are added as needed); `cur` is a bin `(relative index,
    /// start ns, end ns)` the caller knows, to spare a division when the span lies within it
    /// (the common case: one multiplication and two additions per discipline call).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn advance<R: AreaRow + Default + Clone>(
        &mut self,
        to_ns: u64,
        pkts: u64,
        bytes: u64,
        bin_ns: u64,
        base: usize,
        cur: (usize, u64, u64),
        series: &mut Vec<R>,
    ) {
        let t = self.last_ns;
        if self.pkts != 0 && t < to_ns {
            if t >= cur.1 && to_ns <= cur.2 && cur.0 < series.len() {
                let dt = (to_ns - t) as u128;
                series[cur.0].add_area(self.pkts as u128 * dt, self.bytes as u128 * dt);
            } else {
                self.spread(to_ns, bin_ns, base, cur, series);
            }
        }
        *self = QueueArea {
            last_ns: to_ns.max(t),
            pkts,
            bytes,
        };
    }

    /// [`QueueArea::advance`]'s accounting over several bins, or into a row not yet added.
    #[cold]
    #[inline(never)]
    fn spread<R: AreaRow + Default + Clone>(
        &self,
        to_ns: u64,
        bin_ns: u64,
        base: usize,
        cur: (usize, u64, u64),
        series: &mut Vec<R>,
    ) {
        let (p, b) = (self.pkts as u128, self.bytes as u128);
        let mut t = self.last_ns;
        while t < to_ns {
            let (rel, end) = if t >= cur.1 && t < cur.2 {
                (cur.0, cur.2)
            } else {
                let abs = t / bin_ns;
                (
                    (abs as usize).wrapping_sub(base),
                    (abs + 1).saturating_mul(bin_ns),
                )
            };
            let until = end.min(to_ns);
            let dt = (until - t) as u128;
            // A bin before `base` was handed out already: the caller accounts every level up
            // to a take before making it, so none is ever missed here.
            if rel < usize::MAX / 2 {
                if series.len() <= rel {
                    series.resize(rel + 1, R::default());
                }
                series[rel].add_area(p * dt, b * dt);
            }
            t = until;
        }
    }
}

/// What a flow's receiving end sees of its data packets (UDP datagrams; TCP segments from a
/// leg's sender to its receiver, web requests and responses both), from their sending times.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    /// Data packets sent.
    pub sent_pkts: u64,
    /// Data packets that reached their receiver.
    pub received_pkts: u64,
    /// Data packets dropped by a discipline or lost on a wire.
    pub lost_pkts: u64,
    /// One-way delay of each received data packet (sending to arrival), ns.
    pub delay_ns: QuantileSketch,
    /// The same delays' moments (exact mean and variance).
    pub delay_moments: Moments,
    /// RFC 3550 §6.4.1 interarrival jitter, ns: J += (|D| − J)/16 over consecutive arrivals,
    /// D the difference of their one-way delays.
    pub jitter_ns: f64,
    /// The previous arrival's one-way delay, ns.
    last_delay: Option<u64>,
}

impl Receiver {
    /// A data packet sent at `sent_ns` arrives at `now_ns`.
    #[inline]
    pub fn arrive(&mut self, sent_ns: u64, now_ns: u64) {
        let d = now_ns - sent_ns;
        self.received_pkts += 1;
        self.delay_ns.add(d);
        self.delay_moments.add(d);
        if let Some(prev) = self.last_delay {
            let diff = d.abs_diff(prev) as f64;
            self.jitter_ns += (diff - self.jitter_ns) / 16.0;
        }
        self.last_delay = Some(d);
    }

    /// Lost packets over sent ones; NaN before any was sent. Packets still in flight at the
    /// end count as neither.
    pub fn loss_rate(&self) -> f64 {
        if self.sent_pkts == 0 {
            f64::NAN
        } else {
            self.lost_pkts as f64 / self.sent_pkts as f64
        }
    }
}

/// Sojourn times of one measurement window ([`crate::windows`]): a sketch of their own and
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
        let mut one = Moments::default();
        one.add(u64::MAX);
        assert_eq!(one.variance(), 0.0);
    }

    #[derive(Clone, Copy, Default)]
    struct Row(u128, u128);
    impl AreaRow for Row {
        fn add_area(&mut self, p: u128, b: u128) {
            self.0 += p;
            self.1 += b;
        }
    }

    #[test]
    fn area_is_split_across_bins() {
        let mut rows: Vec<Row> = Vec::new();
        let mut a = QueueArea::default();
        let cur = (0, 0, 10);
        a.advance(5, 2, 3000, 10, 0, cur, &mut rows); // empty until 5, then 2 packets
        a.advance(25, 1, 1500, 10, 0, cur, &mut rows); // 2 packets over [5, 25)
        a.advance(32, 0, 0, 10, 0, cur, &mut rows); // 1 packet over [25, 32)
        assert_eq!(rows[0].0, 2 * 5);
        assert_eq!(rows[1].0, 2 * 10);
        assert_eq!(rows[2].0, 2 * 5 + 5);
        assert_eq!(rows[3].0, 2);
        assert_eq!(rows[1].1, 3000 * 10);
        let total: u128 = rows.iter().map(|r| r.0).sum();
        assert_eq!(total, 2 * 20 + 7);
    }
}
