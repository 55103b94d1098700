//! DropTail: a FIFO with a packet or byte limit (Linux `pfifo`/`bfifo`, ns-3 `FifoQueueDisc`), and
//! its head-drop variant (Linux `pfifo_head_drop`): when full, the oldest packet makes room for
//! the arrival instead of the arrival being refused.

use crate::contract::{Backlog, DropReason, QdiscCx, QueueDisc, Stage};
use crate::fifo::PacketFifo;
use crate::params::{ConfigError, ParamSpec, Params};
use aqmlab_core::units::Size;
use aqmlab_core::{Packet, SimTime};

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "the FIFO's packet and byte counts",
    per_flow: "none: one FIFO for all flows",
    per_packet: "one comparison with the limit at enqueue (with head_drop, the head dropped instead of the arrival); no timestamp read, no random draw",
    timers: "none",
    spec: "Linux pfifo, bfifo and pfifo_head_drop; ns-3 FifoQueueDisc",
};

/// DropTail's parameters.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::size(
        "limit",
        "1000p",
        "buffer limit in packets (1000p) or bytes (1.5MB)",
    ),
    ParamSpec::boolean(
        "head_drop",
        "false",
        "when full, drop the oldest packet instead of the arrival",
    ),
];

/// Validated DropTail configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct DropTailConfig {
    /// Buffer limit.
    pub limit: Size,
    /// Drop from the head when full.
    pub head_drop: bool,
}

impl DropTailConfig {
    /// Reads and checks the parameters.
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        Ok(DropTailConfig {
            limit: p.size("limit"),
            head_drop: p.bool("head_drop"),
        })
    }
}

/// Whether `extra` more bytes in one more packet fit within `limit` on top of `backlog`.
#[inline]
pub(crate) fn fits(limit: Size, backlog: Backlog, extra_bytes: u32) -> bool {
    match limit {
        Size::Packets(n) => (backlog.packets as u64) < n,
        Size::Bytes(n) => backlog.bytes + extra_bytes as u64 <= n,
    }
}

/// The DropTail discipline.
#[derive(Clone, Debug)]
pub struct DropTail {
    cfg: DropTailConfig,
    q: PacketFifo,
}

impl DropTail {
    /// A DropTail queue.
    pub fn new(cfg: DropTailConfig) -> Self {
        let cap = crate::fifo::capacity_for(cfg.limit);
        DropTail {
            cfg,
            q: PacketFifo::with_capacity(cap),
        }
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, _now: SimTime, pkt: Packet, cx: &mut QdiscCx) {
        if self.cfg.head_drop {
            // Evict the oldest packets until the arrival fits; an arrival larger than a byte
            // limit on its own can never fit and is refused instead.
            if let Size::Bytes(n) = self.cfg.limit {
                if pkt.size_bytes as u64 > n {
                    cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
                    return;
                }
            }
            while !fits(self.cfg.limit, self.q.backlog(), pkt.size_bytes) {
                let old = self
                    .q
                    .pop_front()
                    .expect("a queue that does not fit is non-empty");
                cx.drop(old, Stage::Enqueue, DropReason::Overlimit);
            }
            self.q.push_back(pkt);
        } else if fits(self.cfg.limit, self.q.backlog(), pkt.size_bytes) {
            self.q.push_back(pkt);
        } else {
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
        }
    }

    fn dequeue(&mut self, _now: SimTime, _cx: &mut QdiscCx) -> Option<Packet> {
        self.q.pop_front()
    }

    fn backlog(&self) -> Backlog {
        self.q.backlog()
    }

    fn visit_state(&self, _visit: &mut dyn FnMut(&'static str, f64)) {}

    /// Tail or head drop alike: into an empty queue, a packet goes in exactly when it fits
    /// (head drop has nothing older to push out), and nothing else is kept.
    fn stateless_fifo_limit(&self) -> Option<Size> {
        Some(self.cfg.limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Qdisc;
    use aqmlab_core::FlowId;

    fn q(limit: Size, head_drop: bool) -> Qdisc<DropTail> {
        Qdisc::new(DropTail::new(DropTailConfig { limit, head_drop }))
    }

    #[test]
    fn tail_drop_refuses_arrivals_beyond_packet_limit() {
        let mut d = q(Size::Packets(3), false);
        for i in 0..5 {
            d.enqueue(SimTime::ZERO, Packet::new(i, 100, FlowId(0)));
        }
        assert_eq!(d.backlog().packets, 3);
        assert_eq!(
            d.stats()
                .drops(Stage::Enqueue, DropReason::Overlimit)
                .packets,
            2
        );
        let ids: Vec<u64> = std::iter::from_fn(|| d.dequeue(SimTime::ZERO))
            .map(|p| p.id)
            .collect();
        assert_eq!(ids, [0, 1, 2]);
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut d = q(Size::Bytes(2500), false);
        d.enqueue(SimTime::ZERO, Packet::new(0, 1500, FlowId(0)));
        d.enqueue(SimTime::ZERO, Packet::new(1, 1500, FlowId(0))); // 3000 > 2500: refused
        d.enqueue(SimTime::ZERO, Packet::new(2, 1000, FlowId(0))); // 2500 fits exactly
        assert_eq!(d.backlog().bytes, 2500);
        assert_eq!(d.stats().dropped().packets, 1);
    }

    #[test]
    fn head_drop_evicts_oldest() {
        let mut d = q(Size::Packets(2), true);
        for i in 0..4 {
            d.enqueue(SimTime::ZERO, Packet::new(i, 100, FlowId(0)));
        }
        let ids: Vec<u64> = std::iter::from_fn(|| d.dequeue(SimTime::ZERO))
            .map(|p| p.id)
            .collect();
        assert_eq!(ids, [2, 3]);
        assert_eq!(d.stats().dropped().packets, 2);
    }
}
