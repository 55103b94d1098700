//! Measurements kept beside the engine ([`crate::world`]), each updated in O(1) without
//! allocating on the per-packet path:
//!
//! * [`FlowLinks`]: per flow, what happened to its packets at each link direction it crossed
//!   (arrivals, drops and marks by reason, wire losses), so drops can be attributed to flows;
//! * [`Receiver`]: what a flow's receiver sees of its data packets: one-way delay, RFC 3550
//!   interarrival jitter, losses;
//!
//! The link direction's own measurements ([`Moments`], [`QueueArea`], [`SojournStats`]) live in
//! `aqmlab-link` and are re-exported here.

use crate::sketch::QuantileSketch;
pub use aqmlab_link::{AreaRow, Moments, QueueArea, SojournStats};
use aqmlab_qdisc::{DropReason, MarkReason};

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
    /// `(link direction, counts)`, in one allocation (two cost a flow 56 bytes more: issue 24).
    at: Vec<(u32, FlowAtLink)>,
}

impl FlowLinks {
    /// The counts at link direction `link` (added on the first packet there: once per link
    /// direction on the flow's path, not per packet).
    #[inline(always)]
    pub fn at(&mut self, link: u32) -> &mut FlowAtLink {
        match self.at.iter().position(|&(l, _)| l == link) {
            Some(i) => &mut self.at[i].1,
            None => self.add(link),
        }
    }

    #[cold]
    #[inline(never)]
    fn add(&mut self, link: u32) -> &mut FlowAtLink {
        // Exactly as many as reached: a `push` would make room for four `FlowAtLink`s (0.8 kB)
        // on the first, most of it unused by a flow that sends a packet or two (issue 24).
        self.at.reserve_exact(1);
        self.at.push((link, FlowAtLink::default()));
        &mut self.at.last_mut().expect("just pushed").1
    }

    /// `(link direction index, counts)` in the order the flow's packets first reached them.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &FlowAtLink)> {
        self.at.iter().map(|(l, c)| (*l, c))
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
