//! COBALT, CoDel + BLUE Alternate (Palmei et al., "Design and Evaluation of COBALT Queue
//! Discipline", IEEE LANMAN 2019; Linux `sch_cake`'s `cobalt_should_drop`), as ns-3 3.37's
//! `CobaltQueueDisc` implements it, which the `overload` vector checks packet by packet.
//!
//! * CoDel part (RFC 8289's law in CAKE's simplified form): a packet whose sojourn exceeds
//!   `target` puts COBALT in its dropping state (scheduling the first signal an `interval` later);
//!   while dropping, each packet examined when `drop_next` is due is dropped (or CE-marked with
//!   `ecn`), `count` grows by one and the next signal is due `interval/sqrt(count)` after the
//!   previous one. Out of the dropping state, due signals are taken back: `count` falls by one per
//!   elapsed `interval/sqrt(count)` (CAKE's "hysteresis" instead of CoDel's re-entry rule). With
//!   `count` 0, `drop_next` is an activity timeout (`now + interval`).
//! * BLUE part: the drop probability `pdrop` rises by `increment` when an arrival finds the queue
//!   full or a packet's sojourn exceeds `blue_threshold`, falls by `decrement` when a dequeue
//!   finds the queue empty — each at most once per `target` — and while above 0 it drops each
//!   examined packet with that probability, ECN-capable or not (the drop is BLUE's to make:
//!   "lack of ECN is deliberate").
//! * Arithmetic (ns-3 3.37, as Linux CAKE): nanosecond time; 1/sqrt(count) in 32-bit fixed point,
//!   cached for count 0–15 (each entry 4 Newton steps from the previous one) and refined by one
//!   Newton step per count change above 15; the control law adds
//!   `(interval_ns · rec_inv_sqrt) >> 32`. BLUE's last-update time is kept in 32 bits (ns-3's
//!   `uint32_t m_lastUpdateTimeBlue`: the time is truncated to 32 bits of nanoseconds, so after
//!   4.29 s the "once per target" test compares with a wrapped value).
//! * L4S (ns-3 `UseL4s`): an ECT(1) or CE packet is never dropped by either part; it is CE-marked
//!   when its sojourn exceeds `ce_threshold`. Without L4S, `ce_threshold` marks any ECN-capable
//!   packet above it (with `ecn`).
//!
//! [`CobaltState`] is one queue's state; the [`Cobalt`] discipline is a FIFO under it, and
//! [`crate::fq_cobalt`] runs one per flow queue.

use crate::contract::{Backlog, DropReason, MarkReason, QdiscCx, QueueDisc, Stage};
use crate::droptail::fits;
use crate::fifo::PacketFifo;
use crate::fq::{FlowAqm, FlowView};
use crate::params::{ConfigError, ParamSpec, Params};
use crate::uniform::UniformSource;
use aqmlab_core::units::Size;
use aqmlab_core::{Ecn, Packet, SimTime};

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "CoDel's part: count, dropping, drop_next and 1/sqrt(count) (cached for count 0-15); BLUE's part: pdrop and the time of its last change (Palmei et al. 2019; ns-3 CobaltQueueDisc)",
    per_flow: "none: one FIFO for all flows",
    per_packet: "a timestamp at enqueue; at dequeue the sojourn compared with target and blue_threshold, the control law by a fixed-point Newton step, and one random draw while pdrop > 0",
    timers: "none: drop_next and BLUE's once-per-target rule are compared at dequeue",
    spec: "Palmei et al., 'Design and Evaluation of COBALT Queue Discipline', IEEE LANMAN 2019; Linux sch_cake cobalt_should_drop; ns-3 CobaltQueueDisc",
};

/// COBALT's parameters.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::size("limit", "1000p", "buffer limit, packets or bytes; an arrival beyond it is dropped and raises BLUE's probability"),
    ParamSpec::duration("target", "5ms", "CoDel's target sojourn; also BLUE's shortest time between probability changes").gt(0.0).lt(I64_NS),
    ParamSpec::duration("interval", "100ms", "CoDel's interval (ns-3 keeps it in 32 bits of ns)").gt(0.0).le(u32::MAX as f64),
    ParamSpec::boolean("ecn", "false", "CoDel's signal CE-marks ECN-capable packets instead of dropping them (BLUE always drops)"),
    ParamSpec::duration("ce_threshold", "off", "CE-mark packets whose sojourn exceeds this (ECN-capable ones with ecn; with l4s, ECT(1)/CE ones)").or("off|none"),
    ParamSpec::boolean("l4s", "false", "L4S mode (ns-3 UseL4s): ECT(1)/CE packets are only marked at ce_threshold, never dropped"),
    ParamSpec::number("pdrop", "0", "BLUE's initial drop probability").within(0.0, 1.0).unit("probability")
    .adapted("BLUE: + increment when an arrival finds the queue full or a sojourn exceeds blue_threshold, − decrement when a dequeue finds the queue empty, each at most once per target (Palmei et al. 2019; ns-3 CobaltQueueDisc)"),
    ParamSpec::number("increment", "0.00390625", "BLUE's probability step up (1/256), on overflow or a sojourn above blue_threshold").within(0.0, 1.0).unit("probability"),
    ParamSpec::number("decrement", "0.000244140625", "BLUE's probability step down (1/4096), on a dequeue that finds the queue empty").within(0.0, 1.0).unit("probability"),
    ParamSpec::duration("blue_threshold", "400ms", "a sojourn above this raises BLUE's probability").gt(0.0).lt(I64_NS),
];

/// Durations kept in `i64` nanoseconds (ns-3's `Time`) are below 2^63 ns.
const I64_NS: f64 = 9_223_372_036_854_775_808.0;

/// 1/sqrt(count) values cached for count 0..16 (ns-3 `REC_INV_SQRT_CACHE`).
const CACHE_LEN: usize = 16;

/// One Newton–Raphson step of x ← x·(3 − count·x²)/2 on a Q0.32 value (ns-3 3.37
/// `CobaltQueueDisc::NewtonStep`, Linux `cobalt_newton_step`), wrapping as the C code does.
const fn newton_step(rec_inv_sqrt: u32, count: u32) -> u32 {
    let invsqrt = rec_inv_sqrt as u64;
    let invsqrt2 = ((invsqrt * invsqrt) >> 32) as u32 as u64;
    let mut val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2);
    val >>= 2; // avoid overflow in the next multiply
    (val.wrapping_mul(invsqrt) >> (32 - 2 + 1)) as u32
}

/// The cache: entry 0 is 0xFFFFFFFF, each next entry 4 Newton steps from the previous one at
/// its own count (ns-3 `CacheInit`, Linux `cobalt_cache_init`).
const INV_SQRT_CACHE: [u32; CACHE_LEN] = {
    let mut cache = [0u32; CACHE_LEN];
    let mut rec = u32::MAX;
    cache[0] = rec;
    let mut count = 1;
    while count < CACHE_LEN {
        let mut k = 0;
        while k < 4 {
            rec = newton_step(rec, count as u32);
            k += 1;
        }
        cache[count] = rec;
        count += 1;
    }
    cache
};

/// Validated parameters of COBALT's control (everything but the limit), in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CobaltParams {
    /// Target sojourn, ns.
    pub target_ns: i64,
    /// Interval, ns (< 2^32).
    pub interval_ns: i64,
    /// Mark instead of CoDel-dropping ECN-capable packets.
    pub ecn: bool,
    /// Marking threshold, ns, if any.
    pub ce_threshold_ns: Option<i64>,
    /// L4S mode.
    pub l4s: bool,
    /// Not a parameter: a counterfactual switch for the ns-3 vector tests, `true` from
    /// [`CobaltParams::from_params`]. With `l4s`, whether an L4S departure leaves COBALT's state
    /// alone, as ns-3 3.37 `CobaltQueueDisc::CobaltShouldDrop` does; `false` lets its sojourn
    /// enter or leave CoDel's dropping state as a classic packet's would (it is still only
    /// marked at `ce_threshold`, and BLUE is not consulted). `vectors/README.md`, `l4s_shared`.
    #[doc(hidden)]
    pub l4s_skips_state: bool,
    /// BLUE's initial probability.
    pub pdrop: f64,
    /// BLUE's increment.
    pub increment: f64,
    /// BLUE's decrement.
    pub decrement: f64,
    /// Sojourn above which BLUE's probability rises, ns.
    pub blue_threshold_ns: i64,
    /// Linux CAKE's `mtu_time` (serialisation time of one MTU at the tin's rate), ns: a sojourn
    /// must also exceed four of them to count as over target (`cobalt_should_drop`). 0 (ns-3,
    /// and CAKE unshaped) leaves `target` alone.
    pub mtu_time_ns: i64,
}

impl CobaltParams {
    /// Reads COBALT's control parameters (shared by `cobalt` and `fq_cobalt`).
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        // The table bounds target, interval and blue_threshold below 2^63 ns.
        let ns = |name| p.duration(name).as_nanos() as i64;
        Ok(CobaltParams {
            target_ns: ns("target"),
            interval_ns: ns("interval"),
            ecn: p.bool("ecn"),
            ce_threshold_ns: p
                .opt_duration("ce_threshold")
                .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)),
            l4s: p.bool("l4s"),
            l4s_skips_state: true,
            pdrop: p.f64("pdrop"),
            increment: p.f64("increment"),
            decrement: p.f64("decrement"),
            blue_threshold_ns: ns("blue_threshold"),
            mtu_time_ns: 0,
        })
    }
}

/// One queue's COBALT state.
#[derive(Clone, Debug)]
pub struct CobaltState {
    /// CoDel's signal count.
    pub count: u32,
    /// When the next signal is due (or, with `count` 0, the activity timeout), ns.
    pub drop_next: i64,
    /// In CoDel's dropping state.
    pub dropping: bool,
    /// 1/sqrt(count), Q0.32.
    pub rec_inv_sqrt: u32,
    /// BLUE's drop probability.
    pub pdrop: f64,
    /// BLUE's last probability change, ns truncated to 32 bits (ns-3's `uint32_t`).
    last_blue: u32,
    uniforms: UniformSource,
}

impl CobaltState {
    /// The initial state (ns-3 `InitializeParams`), drawing BLUE's random numbers from `uniforms`.
    pub fn new(p: &CobaltParams, uniforms: UniformSource) -> Self {
        CobaltState {
            count: 0,
            drop_next: 0,
            dropping: false,
            rec_inv_sqrt: u32::MAX,
            pdrop: p.pdrop,
            last_blue: 0,
            uniforms,
        }
    }

    /// The random source.
    pub fn uniforms(&self) -> &UniformSource {
        &self.uniforms
    }

    /// 1/sqrt(count) after `count` changed: cached below 16, else one Newton step.
    #[inline]
    fn inv_sqrt(&mut self) {
        self.rec_inv_sqrt = match INV_SQRT_CACHE.get(self.count as usize) {
            Some(&r) => r,
            None => newton_step(self.rec_inv_sqrt, self.count),
        };
    }

    /// `t + interval/sqrt(count)` as a reciprocal multiply (ns-3 `ControlLaw`).
    #[inline]
    fn control_law(&self, t: i64, p: &CobaltParams) -> i64 {
        t + ((p.interval_ns as u32 as u64 * self.rec_inv_sqrt as u64) >> 32) as i64
    }

    /// BLUE may change its probability: more than `target` since its last change.
    #[inline]
    fn blue_due(&self, now: i64, p: &CobaltParams) -> bool {
        now - self.last_blue as i64 > p.target_ns
    }

    /// An arrival found the queue full (ns-3 `CobaltQueueFull`, Linux `cobalt_queue_full`).
    pub fn queue_full(&mut self, now: i64, p: &CobaltParams) {
        if self.blue_due(now, p) {
            self.pdrop = (self.pdrop + p.increment).min(1.0);
            self.last_blue = now as u32;
        }
        self.dropping = true;
        self.drop_next = now;
        if self.count == 0 {
            self.count = 1;
        }
    }

    /// A dequeue found the queue empty (ns-3 `CobaltQueueEmpty`, Linux `cobalt_queue_empty`).
    pub fn queue_empty(&mut self, now: i64, p: &CobaltParams) {
        if self.pdrop != 0.0 && self.blue_due(now, p) {
            self.pdrop = (self.pdrop - p.decrement).max(0.0);
            self.last_blue = now as u32;
        }
        self.dropping = false;
        if self.count != 0 && now - self.drop_next >= 0 {
            self.count -= 1;
            self.inv_sqrt();
            self.drop_next = self.control_law(self.drop_next, p);
        }
    }

    /// CoDel's dropping state after a sojourn over (or not over) target at `now`.
    fn follow_target(&mut self, over_target: bool, now: i64, p: &CobaltParams) {
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = self.control_law(now, p);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }
    }

    /// Decides the fate of `pkt`, just popped at `now` (ns-3 `CobaltShouldDrop`, Linux
    /// `cobalt_should_drop`): `Some(reason)` to drop it; otherwise it is sent, CE-marked if so
    /// decided (reported through `cx`).
    pub fn should_drop(
        &mut self,
        pkt: &mut Packet,
        now: i64,
        p: &CobaltParams,
        cx: &mut QdiscCx,
    ) -> Option<DropReason> {
        let sojourn = now - pkt.enqueue_ns as i64;
        let mut schedule = now - self.drop_next;
        let over_target = sojourn > p.target_ns && sojourn > 4 * p.mtu_time_ns;
        let mut next_due = self.count != 0 && schedule >= 0;
        let above = |th: Option<i64>| th.is_some_and(|th| sojourn > th);
        if p.l4s && matches!(pkt.ecn, Ecn::Ect1 | Ecn::Ce) {
            // L4S: mark at the shallow threshold, skip CoDel and BLUE.
            if above(p.ce_threshold_ns) && pkt.ecn.is_ect() {
                cx.mark(pkt, MarkReason::CodelCeThreshold);
            }
            if !p.l4s_skips_state {
                self.follow_target(over_target, now, p);
            }
            return None;
        }
        self.follow_target(over_target, now, p);
        let mut mark = None;
        let mut codel_drop = false;
        if next_due && self.dropping {
            // Time for CoDel's signal: a mark if the packet takes one, else a drop.
            if p.ecn && pkt.ecn != Ecn::NotEct {
                mark = Some(MarkReason::CodelTarget);
            } else {
                codel_drop = true;
            }
            self.count = self.count.saturating_add(1);
            self.inv_sqrt();
            self.drop_next = self.control_law(self.drop_next, p);
            schedule = now - self.drop_next;
        } else {
            // Not dropping: take back every signal that fell due meanwhile.
            while next_due {
                self.count -= 1;
                self.inv_sqrt();
                self.drop_next = self.control_law(self.drop_next, p);
                schedule = now - self.drop_next;
                next_due = self.count != 0 && schedule >= 0;
            }
        }
        if mark.is_none() && !p.l4s && p.ecn && above(p.ce_threshold_ns) && pkt.ecn != Ecn::NotEct {
            mark = Some(MarkReason::CodelCeThreshold);
        }
        // BLUE: a very long sojourn raises the probability.
        if sojourn > p.blue_threshold_ns && self.blue_due(now, p) {
            self.pdrop = (self.pdrop + p.increment).min(1.0);
            self.last_blue = now as u32;
        }
        let blue_drop = self.pdrop != 0.0 && self.uniforms.next_f64() < self.pdrop;
        let drop = codel_drop || blue_drop;
        // drop_next doubles as an activity timeout.
        if self.count == 0 {
            self.drop_next = now + p.interval_ns;
        } else if schedule > 0 && !drop {
            self.drop_next = now;
        }
        if drop {
            return Some(if codel_drop {
                DropReason::CodelTarget
            } else {
                DropReason::BlueEarly
            });
        }
        // A CE packet takes the mark unchanged (ns-3's Mark succeeds on it; nothing to report).
        if let (Some(reason), true) = (mark, pkt.ecn.is_ect()) {
            cx.mark(pkt, reason);
        }
        None
    }

    /// Offers `pkt`: refused (and BLUE told) when `full`, else queued in `q`.
    #[inline]
    fn offer(
        &mut self,
        now: SimTime,
        pkt: Packet,
        p: &CobaltParams,
        q: &mut PacketFifo,
        full: bool,
        cx: &mut QdiscCx,
    ) -> bool {
        if full {
            self.queue_full(now.as_nanos() as i64, p);
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
            return false;
        }
        q.push_back(pkt);
        true
    }

    /// Pops until a packet is to be sent (ns-3 `DoDequeue`).
    #[inline]
    fn take(
        &mut self,
        now: SimTime,
        p: &CobaltParams,
        q: &mut PacketFifo,
        cx: &mut QdiscCx,
    ) -> Option<Packet> {
        let now = now.as_nanos() as i64;
        loop {
            let Some(mut pkt) = q.pop_front() else {
                self.dropping = false;
                self.queue_empty(now, p);
                return None;
            };
            match self.should_drop(&mut pkt, now, p, cx) {
                Some(reason) => cx.drop(pkt, Stage::Dequeue, reason),
                None => return Some(pkt),
            }
        }
    }

    /// Visits `count`, `dropping`, `drop_next_ns` and `pdrop`.
    pub fn visit(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("count", self.count as f64);
        visit("dropping", self.dropping as u8 as f64);
        visit("drop_next_ns", self.drop_next as f64);
        visit("pdrop", self.pdrop);
    }
}

impl FlowAqm for CobaltState {
    type Params = CobaltParams;
    fn new(p: &CobaltParams, _bucket: u32, uniforms: UniformSource) -> Self {
        CobaltState::new(p, uniforms)
    }
    #[inline]
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: Packet,
        p: &CobaltParams,
        q: &mut PacketFifo,
        full: bool,
        cx: &mut QdiscCx,
    ) -> bool {
        self.offer(now, pkt, p, q, full, cx)
    }
    #[inline]
    fn dequeue(
        &mut self,
        now: SimTime,
        p: &CobaltParams,
        view: &mut FlowView<'_>,
        cx: &mut QdiscCx,
    ) -> Option<Packet> {
        self.take(now, p, view.q, cx)
    }
    fn uniforms_exhausted(&self) -> bool {
        self.uniforms.exhausted()
    }
}

/// Validated COBALT configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct CobaltConfig {
    /// Buffer limit.
    pub limit: Size,
    /// The control parameters.
    pub params: CobaltParams,
}

impl CobaltConfig {
    /// Reads and checks the parameters.
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        Ok(CobaltConfig {
            limit: p.size("limit"),
            params: CobaltParams::from_params(p)?,
        })
    }
}

/// The COBALT discipline: a FIFO under [`CobaltState`]'s control.
#[derive(Debug)]
pub struct Cobalt {
    limit: Size,
    params: CobaltParams,
    state: CobaltState,
    q: PacketFifo,
}

impl Cobalt {
    /// A COBALT queue drawing BLUE's random numbers from `uniforms`.
    pub fn new(cfg: CobaltConfig, uniforms: UniformSource) -> Self {
        Cobalt {
            q: PacketFifo::with_capacity(crate::fifo::capacity_for(cfg.limit)),
            state: CobaltState::new(&cfg.params, uniforms),
            limit: cfg.limit,
            params: cfg.params,
        }
    }
    /// The control state.
    pub fn state(&self) -> &CobaltState {
        &self.state
    }
    /// The random source.
    pub fn uniforms(&self) -> &UniformSource {
        self.state.uniforms()
    }
}

impl QueueDisc for Cobalt {
    fn enqueue(&mut self, now: SimTime, pkt: Packet, cx: &mut QdiscCx) {
        let full = !fits(self.limit, self.q.backlog(), pkt.size_bytes);
        self.state
            .offer(now, pkt, &self.params, &mut self.q, full, cx);
    }

    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet> {
        self.state.take(now, &self.params, &mut self.q, cx)
    }

    fn backlog(&self) -> Backlog {
        self.q.backlog()
    }

    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        self.state.visit(visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache's first entries approximate 1/sqrt(count) in Q0.32 (4 Newton steps each).
    #[test]
    fn inverse_square_root_cache_tracks_one_over_sqrt_count() {
        assert_eq!(INV_SQRT_CACHE[0], u32::MAX);
        for (count, &r) in INV_SQRT_CACHE.iter().enumerate().skip(1) {
            let x = r as f64 / 4_294_967_296.0;
            let exact = 1.0 / (count as f64).sqrt();
            assert!(
                (x - exact).abs() / exact < 1e-3,
                "count {count}: {x} vs {exact}"
            );
        }
    }

    /// BLUE: an overflow raises pdrop by the increment at most once per target.
    #[test]
    fn queue_full_raises_pdrop_once_per_target() {
        let p = CobaltConfig::from_params(&Params::new("cobalt", PARAMS, &[]).unwrap())
            .unwrap()
            .params;
        let mut s = CobaltState::new(&p, UniformSource::seeded(1));
        s.queue_full(10_000_000, &p);
        assert_eq!(s.pdrop, 1.0 / 256.0);
        s.queue_full(14_000_000, &p); // 4 ms later: not more than target
        assert_eq!(s.pdrop, 1.0 / 256.0);
        s.queue_full(15_000_001, &p);
        assert_eq!(s.pdrop, 2.0 / 256.0);
        assert!(s.dropping);
        assert_eq!((s.count, s.drop_next), (1, 15_000_001));
        // An empty dequeue more than target later lowers it by the decrement.
        s.queue_empty(20_000_002, &p);
        assert_eq!(s.pdrop, 2.0 / 256.0 - 1.0 / 4096.0);
        assert!(!s.dropping);
    }
}
