//! LSTF-CoDel (Ford 2020, "LSTFCoDel: CoDel with LSTF-Style Priority Queuing", arXiv:2007.01375):
//! CoDel's control loop over a priority queue whose priorities come from a router-wide "slack".
//!
//! * **Slack** (paper Eq. 2; reference note `shared/reference/lstf_codel.md` §2): one scalar per
//!   queue, an EWMA of queueing delay like TCP's EstimatedRTT. After every dequeue that returns a
//!   packet, `slack ← (1 − α)·slack + α·sojourn`, in seconds, starting at 0; `α` is the
//!   "forgetfulness" (`alpha`). The sojourn is that of the returned packet, `(now − enqueue_ns)/1e9`.
//! * **Priority** (Eq. 3): an arrival gets `P = 1/(1 + slack)` from the slack at that moment, and
//!   keeps it ("once a priority value is assigned to a packet it does not change", §V). The
//!   author's code returns `P = 0` when `slack == 0` (a leftover of an earlier `1/slack`).
//! * **Service and drops** depend on `order` (reference note §3):
//!   - `as_described` — the paper's words (§V): "a packet is selected from the queue with the
//!     least slack value", i.e. the highest `P`; when CoDel drops, "LSTFCoDel will drop the packet
//!     with the highest slack time", i.e. the lowest `P`. CoDel still decides *when* from the
//!     sojourn of the packet it is about to send; [`CodelQueue::signal_target`] redirects the
//!     signal (drop, or ECN mark) to the most-slack packet and puts the examined one back. Equal
//!     `P` are served oldest first at both ends, so with a constant slack the queue is exactly a
//!     CoDel FIFO. `P = 1/(1+slack)` is used as printed (no special case at 0: `1 + slack` is
//!     there precisely so that 0 is well defined).
//!   - `as_coded` — the author's ns-2 code: a `std::multimap` keyed by `P` (0 when slack is 0),
//!     ascending; out of the dropping state it takes `begin()` (the **lowest** `P`: the packet that
//!     arrived under the **highest** slack, or under slack 0), in the dropping state `prev(end())`
//!     (the highest `P`, the newest among equals), and CoDel drops whatever it popped. The first
//!     drop of an episode and its replacement are popped before CoDel sets `dropping` (RFC 8289
//!     §5.5 order), so they come from `begin()`; later drops, and packets sent in the dropping
//!     state, come from `prev(end())`.
//!
//!   The paper's §III, §IV-A and §V ("heavily congested packets \[are\] serviced first", "dequeuing
//!   from the beginning of the queue") mostly describe the coded behaviour, and its numbers come
//!   from the code; `as_described` is the literal LSTF reading of §V ("least slack value").
//! * **Keys**: packets are ordered by the bits of `P` computed in `f64` exactly as the author's
//!   code computes it. For the non-negative finite doubles that `P` can be, the IEEE-754 bit
//!   pattern read as an integer orders exactly like the value, and `1.0 + s` and `1.0 / x` are
//!   correctly rounded, so the keys are identical on every platform and are the author's multimap
//!   keys, ties included. `P` is a (weakly) decreasing function of the slack, so ordering by `P`
//!   is ordering by slack-at-arrival; two slacks tie only if they round to the same `P` (they
//!   differ by less than ~1e-16·(1+slack)², far below a nanosecond), and ties go by arrival.
//!   Keying by slack in integer nanoseconds would be an equally exact monotone transform but
//!   would merge slacks less than 1 ns apart (e.g. the geometric decay of the slack towards 0 in
//!   an idle period), which the author's keys keep apart.
//! * **Limit**: tail drop when full ([`DropReason::Overlimit`]); CoDel's drops are
//!   [`DropReason::CodelTarget`], made by the shared loop [`CodelState::dequeue`].
//!
//! The storage is a double-ended priority queue (private module `rank_queue`) in O(log n), replacing the
//! paper's O(n) shadow FIFO (§V "Future implementations should use a true priority queue").
//!
//! Units pitfall (reference note §4): the author's scripts set `target_ 5` and `interval_ 100` in
//! ns-2 seconds, so the published runs never entered CoDel's dropping state (all losses were
//! 32-packet tail drops). `target` and `interval` accept any durations (`target=5s,interval=100s`)
//! so that both the published and the intended (5 ms / 100 ms) settings can be run. See
//! `docs/models/lstf_codel.md`.

mod rank_queue;

use crate::codel::{self, CodelParams, CodelQueue, CodelState};
use crate::contract::{Backlog, DropReason, QdiscCx, QueueDisc, Stage};
use crate::droptail::fits;
use crate::params::{ConfigError, ParamSpec, Params};
use aqmlab_core::units::Size;
use aqmlab_core::{Packet, SimTime};
use rank_queue::RankQueue;

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "CoDel's, plus the slack: an EWMA of sojourns updated at each dequeue (Ford 2020 Eq. 2)",
    per_flow: "none: one priority queue for all flows",
    per_packet: "CoDel's, plus the priority 1/(1+slack) at arrival (Eq. 3) and an insertion into and a removal from a double-ended priority queue, O(log n) per packet where CoDel is O(1) (§V)",
    timers: "none: CoDel's drop_next is compared at dequeue",
    spec: "Ford 2020, 'LSTFCoDel' (arXiv:2007.01375) Eq. 2-3, §V; RFC 8289 §5",
};

/// LSTF-CoDel's parameters: `limit`, `alpha`, `order`, and CoDel's `target`, `interval`, `mtu`,
/// `ecn`, `ce_threshold`, `variant` (the same entries as [`codel::PARAMS`], read by
/// [`codel::codel_params_from`]).
pub const PARAMS: &[ParamSpec] = &[
    codel::PARAMS[0], // limit
    ParamSpec::number(
        "alpha",
        "0.5",
        "forgetfulness: slack <- (1-alpha)*slack + alpha*sojourn after each dequeue",
    )
    .gt(0.0)
    .le(1.0),
    ParamSpec::choice(
        "order",
        "as_described",
        "as_described|as_coded",
        "as_described: serve least slack, drop most slack (paper); as_coded: the author's ns-2 ends",
    ),
    codel::PARAMS[1], // target
    codel::PARAMS[2], // interval
    codel::PARAMS[3], // mtu
    codel::PARAMS[4], // ecn
    codel::PARAMS[5], // ce_threshold
    codel::PARAMS[6], // variant
];

/// Which ends of the priority queue are served and dropped (reference note §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The paper's text: serve the least-slack packet (highest `P`); CoDel's drops hit the
    /// most-slack packet (lowest `P`), oldest first among equals.
    AsDescribed,
    /// The author's ns-2 code: lowest `P` (`P = 0` for slack 0) first out of the dropping state,
    /// highest `P` (newest among equals) in it; CoDel drops the packet it popped.
    AsCoded,
}

impl Order {
    /// Names accepted by the `order` parameter.
    pub const NAMES: [&'static str; 2] = ["as_described", "as_coded"];

    /// From an index into [`Order::NAMES`].
    pub fn from_index(i: usize) -> Order {
        [Order::AsDescribed, Order::AsCoded][i]
    }

    /// The name in [`Order::NAMES`].
    pub const fn name(self) -> &'static str {
        match self {
            Order::AsDescribed => "as_described",
            Order::AsCoded => "as_coded",
        }
    }

    /// The priority `P` (paper Eq. 3) of a packet arriving when the router slack is `slack_s`
    /// seconds: `1/(1 + slack)`; with [`Order::AsCoded`], 0 when the slack is exactly 0 (the
    /// author's code).
    #[inline]
    pub fn priority(self, slack_s: f64) -> f64 {
        match self {
            Order::AsCoded if slack_s == 0.0 => 0.0,
            _ => 1.0 / (1.0 + slack_s),
        }
    }

    /// The storage key: the serve end (out of CoDel's dropping state) is the lowest key. For
    /// `P ≥ 0` finite, `P.to_bits()` orders exactly like `P`.
    #[inline]
    fn rank(self, slack_s: f64) -> u64 {
        let bits = self.priority(slack_s).to_bits();
        match self {
            // Serve the highest P first.
            Order::AsDescribed => !bits,
            // Serve the lowest P first (multimap begin()).
            Order::AsCoded => bits,
        }
    }
}

/// Validated LSTF-CoDel configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct LstfCodelConfig {
    /// Buffer limit (tail drop beyond it).
    pub limit: Size,
    /// Forgetfulness α in (0, 1].
    pub alpha: f64,
    /// Service and drop ends.
    pub order: Order,
    /// CoDel's control-law parameters.
    pub params: CodelParams,
}

impl LstfCodelConfig {
    /// Reads and checks the parameters.
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        Ok(LstfCodelConfig {
            limit: p.size("limit"),
            alpha: p.f64("alpha"),
            order: Order::from_index(p.choice("order")),
            params: codel::codel_params_from(p)?,
        })
    }
}

/// The priority queue as CoDel's control loop sees it.
#[derive(Clone, Debug)]
struct SlackQueue {
    pq: RankQueue,
    order: Order,
    /// Key of the packet most recently popped from the serve end (for `signal_target`).
    examined_rank: u64,
}

impl CodelQueue for SlackQueue {
    #[inline]
    fn pop(&mut self, dropping: bool) -> Option<Packet> {
        let (rank, pkt) = match self.order {
            Order::AsCoded if dropping => self.pq.pop_max_back()?,
            _ => self.pq.pop_min_front()?,
        };
        self.examined_rank = rank;
        Some(pkt)
    }

    #[inline]
    fn bytes_for_mtu_test(&self) -> u64 {
        self.pq.bytes()
    }

    /// `as_described`: the most-slack packet (the oldest among equals) receives CoDel's signal;
    /// the examined packet goes back to the front of the queue. When every queued packet has the
    /// examined packet's key, that is the examined packet itself, as in CoDel.
    fn signal_target(&mut self, examined: Packet) -> Packet {
        if self.order != Order::AsDescribed {
            return examined;
        }
        match self.pq.max_rank() {
            Some(r) if r > self.examined_rank => {
                let (_, victim) = self.pq.pop_max_front().expect("a max rank means a packet");
                self.pq.push_front(self.examined_rank, examined);
                victim
            }
            _ => examined,
        }
    }
}

/// The LSTF-CoDel discipline.
#[derive(Clone, Debug)]
pub struct LstfCodel {
    limit: Size,
    alpha: f64,
    params: CodelParams,
    state: CodelState,
    q: SlackQueue,
    slack_s: f64,
}

impl LstfCodel {
    /// An LSTF-CoDel queue (slack 0, CoDel idle).
    pub fn new(cfg: LstfCodelConfig) -> Self {
        let cap = crate::fifo::capacity_for(cfg.limit);
        LstfCodel {
            limit: cfg.limit,
            alpha: cfg.alpha,
            params: cfg.params,
            state: CodelState::new(),
            q: SlackQueue {
                pq: RankQueue::with_capacity(cap),
                order: cfg.order,
                examined_rank: 0,
            },
            slack_s: 0.0,
        }
    }

    /// The router-wide slack estimate, in seconds (paper Eq. 2).
    pub fn slack_s(&self) -> f64 {
        self.slack_s
    }

    /// The priority an arrival would get now (paper Eq. 3).
    pub fn priority_now(&self) -> f64 {
        self.q.order.priority(self.slack_s)
    }

    /// The service/drop order.
    pub fn order(&self) -> Order {
        self.q.order
    }

    /// CoDel's control-loop state.
    pub fn state(&self) -> &CodelState {
        &self.state
    }
}

impl QueueDisc for LstfCodel {
    fn enqueue(&mut self, _now: SimTime, pkt: Packet, cx: &mut QdiscCx) {
        // Author's enque(): tail drop when full, else key by the current slack (reference §3).
        if fits(self.limit, self.q.pq.backlog(), pkt.size_bytes) {
            let rank = self.q.order.rank(self.slack_s);
            self.q.pq.push_back(rank, pkt);
        } else {
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
        }
    }

    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet> {
        let out = self.state.dequeue(now, &self.params, &mut self.q, cx);
        if let Some(p) = &out {
            // Eq. 2, once per dequeue that returns a packet, with that packet's sojourn.
            let sojourn_s = (now.as_nanos() - p.enqueue_ns) as f64 / 1e9;
            self.slack_s = (1.0 - self.alpha) * self.slack_s + self.alpha * sojourn_s;
        }
        out
    }

    fn backlog(&self) -> Backlog {
        self.q.pq.backlog()
    }

    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("slack_s", self.slack_s);
        self.state.visit(self.params.variant, visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_parameters_are_codels() {
        for name in [
            "limit",
            "target",
            "interval",
            "mtu",
            "ecn",
            "ce_threshold",
            "variant",
        ] {
            let ours = PARAMS.iter().find(|s| s.name == name).unwrap();
            let theirs = codel::PARAMS.iter().find(|s| s.name == name).unwrap();
            assert_eq!(
                (ours.default, ours.ty, ours.help),
                (theirs.default, theirs.ty, theirs.help),
                "{name}"
            );
        }
        // Every CoDel parameter but `l4s` (ns-3 has no L4S mode for LSTF), plus two of its own.
        assert_eq!(PARAMS.len(), codel::PARAMS.len() - 1 + 2);
    }

    #[test]
    fn keys_order_like_priorities() {
        let slacks = [0.0, 1e-12, 1e-9, 0.001, 0.0125, 0.5, 3.0, 1e6];
        for w in slacks.windows(2) {
            let (a, b) = (w[0], w[1]); // a < b: a is less slack
            assert!(Order::AsDescribed.rank(a) < Order::AsDescribed.rank(b));
            assert!(Order::AsDescribed.priority(a) > Order::AsDescribed.priority(b));
            if a > 0.0 {
                // Larger slack = smaller P = earlier in the author's multimap.
                assert!(Order::AsCoded.rank(b) < Order::AsCoded.rank(a));
            }
        }
        // The author's P = 0 at slack 0 sorts before every positive slack.
        assert_eq!(Order::AsCoded.priority(0.0), 0.0);
        assert!(Order::AsCoded.rank(0.0) < Order::AsCoded.rank(1e6));
        assert_eq!(Order::AsDescribed.priority(0.0), 1.0);
    }
}
