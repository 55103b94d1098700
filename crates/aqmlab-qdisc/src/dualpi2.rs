//! DualPI2: the Dual-Queue Coupled AQM with a PI2 base AQM (RFC 9332), as a clock-free state
//! machine, with Linux `sch_dualpi2`'s defaults.
//!
//! * Classification (RFC 9332 §2.3, §2.5.1.1; Appendix A.1 enqueue): ECT(1) and CE go to the
//!   L queue, Not-ECT and ECT(0) to the C queue (`ecn_mask=any_ect` sends ECT(0) to L as well).
//!   An arrival that does not fit `limit` (both queues together) is dropped (`overlimit`).
//! * The base AQM (§2.4, Appendix A.1 `dualpi2_update`): every `tupdate` the PI controller moves
//!   p' by `alpha·(curq − target) + beta·(curq − prevq)`, where curq is the larger of the two
//!   queues' head sojourns, bounded to [0, 1] (Appendix A.2).
//! * Coupling (§2.4): the C queue drops (Not-ECT) or marks (ECT(0)) with p_C = (p')², the
//!   "squared" probability; the L queue marks with p_CL = k·p'.
//! * The L queue's native AQM (§2.5.1.2, Appendix A.1 `laqm`): a step at `step_thresh` (Linux;
//!   a time, or a packet count), or with `step_range > 0` the RFC's ramp from `step_thresh` to
//!   `step_thresh + step_range`; the L queue marks with max(p'_L, p_CL) (§2.5.1.3).
//! * The scheduler (§2.5.3.2, §4.2.2 "protecting the Classic queue"): Linux's weighted round
//!   robin with a byte credit; with both queues backlogged the C queue gets `classic_protection`
//!   percent of the bytes, the L queue the rest, and neither starves.
//! * Overload (§4.2.1, Appendix A.2): once p' reaches 1/k (p_CL ≥ 1, equivalently
//!   p_C ≥ p_Cmax = 1/k²), ECN is switched off: C packets that p_C selects are dropped even when
//!   ECN-capable, and L packets are dropped with p_C as well and marked otherwise
//!   (`drop_on_overload=false`, Linux's `overflow`, instead caps p' at 1/k and lets the queue
//!   fill to `limit`).
//!
//! # Variants
//! `variant=linux` (default) follows Linux `sch_dualpi2.c` (6.17): the probability is a u32
//! fraction of 2³²−1 updated in Linux's fixed point (alpha and beta in 1/256 Hz, scaled to
//! internal units of 64 ns), decisions are random draws `u32 ≤ prob` (p_C as two draws), taken
//! only when the whole qdisc holds at least 2·`mtu` bytes, the step is applied after the coupled
//! decision to packets that found at least `min_qlen_step` packets in the L queue on arrival,
//! and drops happen at dequeue (`drop_at=enqueue` decides the coupled drop/mark on arrival).
//! `variant=rfc` follows RFC 9332 Appendix A.2's pseudocode: p' in floating point, decisions by
//! the deterministic `recur()` accumulator per queue (no random draws), no 2-MTU floor, native
//! marking suppressed unless more than `min_qlen_step` packets remain in the L queue, and overload
//! detected by p_CL ≥ 1 in L and p_C ≥ p_Cmax in C. See `docs/models/dualpi2.md`.
//!
//! # The periodic update without a timer
//! As in [`crate::pie`]: updates are due at k·`tupdate` for k = 1, 2, … (Linux arms its hrtimer
//! `tupdate` after the qdisc is created, here at time 0); at the start of every call at `now`,
//! every update due strictly before `now` runs, oldest first, reading the head sojourns as they
//! were at its due time (the queues cannot change between calls). An update that changes nothing
//! while both queues are empty is a fixed point, so the rest of an idle gap costs nothing.

use crate::contract::{Backlog, DropReason, MarkReason, QdiscCx, QueueDisc, Stage};
use crate::droptail::fits;
use crate::fifo::PacketFifo;
use crate::params::{ConfigError, ParamSpec, Params, Value};
use crate::uniform::UniformSource;
use aqmlab_core::units::Size;
use aqmlab_core::{Ecn, Packet, SimDuration, SimTime};
use std::collections::VecDeque;

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "two FIFOs (L and C), the base probability p' and the previous queue delay, the scheduler's byte credit; with variant=rfc the two recur() accumulators (RFC 9332 §2.4-§2.5, A.1-A.2)",
    per_flow: "none: two queues for all flows, chosen by the ECN codepoint (RFC 9332 §2.3)",
    per_packet: "classification by ECN codepoint and a timestamp; at dequeue (drop_at=enqueue: at enqueue) the coupled decision, up to two random draws with variant=linux (p_C = p'² as two draws) or a recur() step with variant=rfc, the L queue's step threshold, and the credit scheduler (RFC 9332 A.1)",
    timers: "every tupdate (16 ms) the PI update of p' from the larger head sojourn (RFC 9332 §2.4, A.1 dualpi2_update), run at the next call",
    spec: "RFC 9332 §2, §4.2, Appendix A; Linux sch_dualpi2; iproute2 q_dualpi2.c",
};

/// DualPI2's parameters (names after `tc qdisc … dualpi2`).
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::size("limit", "10000p", "buffer of both queues together, packets (10000p) or bytes; an arrival beyond it is dropped"),
    ParamSpec::duration("target", "15ms", "PI2 target queueing delay (RFC 9332 A.1 target)")
    .derived("with max_rtt or typical_rtt given: typical_rtt (max_rtt/6 if only max_rtt), as tc does (iproute2 q_dualpi2.c; RFC 9332 A.1)"),
    ParamSpec::duration("tupdate", "16ms", "period of the PI2 probability update (A.1 Tupdate)").ge(1e3)
    .derived("with max_rtt or typical_rtt given: max(min(typical_rtt, max_rtt/3), 1 µs), as tc does (iproute2 q_dualpi2.c; RFC 9332 A.1)"),
    ParamSpec::number("alpha", "0.16015625", "integral gain (Linux: 41/256); variant=linux keeps whole 1/256 Hz, 1/256 to (2^31-1)/256").within(0.0, 1e9).unit("Hz")
    .derived("with max_rtt or typical_rtt given: 0.1·tupdate/max_rtt² (RFC 9332 A.1, 'PI2 constants derived from above PI2 parameters'; tc)"),
    ParamSpec::number("beta", "3.19921875", "proportional gain (Linux: 819/256); variant=linux keeps whole 1/256 Hz, 1/256 to (2^31-1)/256").within(0.0, 1e9).unit("Hz")
    .derived("with max_rtt or typical_rtt given: 0.3/max_rtt (RFC 9332 A.1; tc)"),
    ParamSpec::duration("max_rtt", "off", "derive target, tupdate, alpha and beta as tc does from max_rtt and typical_rtt (typical = max/6 if not given)").gt(0.0).or("off|none"),
    ParamSpec::duration("typical_rtt", "off", "with max_rtt (max = 6 x typical if not given): target = typical_rtt, tupdate = min(typical, max/3)").gt(0.0).or("off|none"),
    ParamSpec::duration_or_packets("step_thresh", "1ms", "L queue's native marking threshold: a sojourn (1ms) or an L-queue length in packets (5p)"),
    ParamSpec::duration("step_range", "0ms", "variant=rfc: mark with a ramp from step_thresh to step_thresh + step_range (RFC A.1 minTh, range); 0: a step"),
    ParamSpec::integer("min_qlen_step", "0", "native L marking only with this many other packets in the L queue (Linux min_qlen_step, RFC Th_len)").unit("packets"),
    ParamSpec::integer("coupling_factor", "2", "k: p_CL = k·p' (RFC 9332 §2.4)").within(1.0, 255.0),
    ParamSpec::boolean("drop_on_overload", "true", "once p' reaches 1/k drop L packets with p_C too (true), or cap p' at 1/k and let the queue fill (false: tc's overflow)"),
    ParamSpec::choice("drop_at", "dequeue", "dequeue|enqueue", "where the PI2 drop/mark is decided (tc drop_dequeue / drop_enqueue); the step is always at dequeue"),
    ParamSpec::choice("ecn_mask", "l4s_ect", "l4s_ect|any_ect", "which packets go to the L queue: ECT(1) and CE, or any ECT and CE"),
    ParamSpec::integer("classic_protection", "10", "share of the bytes the scheduler keeps for the C queue when both are backlogged").within(0.0, 100.0).unit("percent"),
    ParamSpec::bytes("mtu", "1514B", "Linux psched_mtu: the scheduler's initial credit and, variant=linux, no AQM action below 2 MTU queued").within(1.0, u32::MAX as f64),
    ParamSpec::choice("variant", "linux", "linux|rfc", "Linux sch_dualpi2 (fixed point, random draws) or RFC 9332 Appendix A.2's pseudocode (recur())"),
];

/// Which reference the discipline follows where they differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dualpi2Variant {
    /// Linux `sch_dualpi2.c`.
    Linux,
    /// RFC 9332 Appendix A.2.
    Rfc,
}

/// The L queue's native AQM threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepThresh {
    /// On the departing packet's sojourn, ns.
    Time(u64),
    /// On the L queue's length in packets after the departure.
    Packets(u64),
}

/// Validated DualPI2 configuration (after tc's RTT derivation).
#[derive(Clone, Debug, PartialEq)]
pub struct Dualpi2Config {
    /// Buffer of both queues.
    pub limit: Size,
    /// PI2 target.
    pub target: SimDuration,
    /// Update period.
    pub tupdate: SimDuration,
    /// Integral gain, Hz (as given or derived; variant=linux uses `floor(256·alpha)/256`).
    pub alpha: f64,
    /// Proportional gain, Hz.
    pub beta: f64,
    /// Native L AQM threshold.
    pub step_thresh: StepThresh,
    /// Ramp width (0: step).
    pub step_range: SimDuration,
    /// Minimum L-queue length for native marking.
    pub min_qlen_step: u64,
    /// Coupling factor k.
    pub k: u32,
    /// Drop on overload (else overflow).
    pub drop_on_overload: bool,
    /// Decide the PI2 drop/mark at enqueue.
    pub drop_early: bool,
    /// ECT(0) to the L queue too.
    pub any_ect: bool,
    /// C queue's weight, percent.
    pub wc: u32,
    /// MTU, bytes.
    pub mtu: u32,
    /// Which reference.
    pub variant: Dualpi2Variant,
}

/// tc's ratio of max_rtt to typical_rtt when only one is given.
const RTT_TYP_TO_MAX: u64 = 6;

/// Largest alpha/beta Linux accepts, in 1/256 Hz (netlink policy `ALPHA_BETA_MAX`).
const ALPHA_BETA_MAX_256: f64 = ((1u64 << 31) - 1) as f64;

/// tc's derivation of target, tupdate, alpha and beta from the RTTs (iproute2 `q_dualpi2.c`,
/// after RFC 9332 Appendix A.1's "PI2 constants derived from above PI2 parameters"): in whole
/// microseconds, target = typical_rtt, tupdate = max(min(typical_rtt, max_rtt/3), 1 µs),
/// alpha = 0.1·tupdate/max_rtt² and beta = 0.3/max_rtt (Hz), rounded to `f32` as tc does.
pub fn derive_from_rtts(
    typical_rtt: Option<SimDuration>,
    max_rtt: Option<SimDuration>,
) -> Result<(SimDuration, SimDuration, f64, f64), String> {
    let us = |d: SimDuration| d.as_nanos() / 1000;
    let (typ, max) = match (typical_rtt.map(us), max_rtt.map(us)) {
        (Some(t), Some(m)) => {
            if t > m {
                return Err(format!(
                    "typical_rtt ({t}us) must not exceed max_rtt ({m}us)"
                ));
            }
            (t, m)
        }
        (Some(t), None) => (t, t.saturating_mul(RTT_TYP_TO_MAX)),
        (None, Some(m)) => ((m / RTT_TYP_TO_MAX).max(1), m),
        (None, None) => unreachable!("called with at least one RTT"),
    };
    if typ == 0 || max == 0 {
        return Err("expected RTTs of at least 1us".into());
    }
    let tupdate = typ.min(max / 3).max(1);
    // tc's arithmetic: alpha in double rounded to float, beta in float.
    let (tu, mx) = (tupdate as f64, max as f64);
    let alpha = (tu / (mx * mx) * 1e6 * (0.1f32 as f64)) as f32 as f64;
    let beta = (0.3f32 / max as f32 * 1e6f32) as f64;
    Ok((
        SimDuration::from_nanos(typ * 1000),
        SimDuration::from_nanos(tupdate * 1000),
        alpha,
        beta,
    ))
}

impl Dualpi2Config {
    /// Reads and checks the parameters.
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        let variant = [Dualpi2Variant::Linux, Dualpi2Variant::Rfc][p.choice("variant")];
        let (typical_rtt, max_rtt) = (p.opt_duration("typical_rtt"), p.opt_duration("max_rtt"));
        let (target, tupdate, alpha, beta) = if typical_rtt.is_some() || max_rtt.is_some() {
            let rtt_name = if max_rtt.is_some() {
                "max_rtt"
            } else {
                "typical_rtt"
            };
            // A value equal to the default text is not a choice (a resolved scenario writes every
            // parameter out); any other conflicts with the derivation (tc ignores it with a
            // warning, here it is an error).
            let default = |n: &str| PARAMS.iter().find(|s| s.name == n).map(|s| s.default);
            if let Some(other) = ["target", "tupdate", "alpha", "beta"]
                .into_iter()
                .find(|n| p.is_given(n) && Some(p.raw_value(n)) != default(n))
            {
                return Err(p.invalid(
                    rtt_name,
                    format!("{rtt_name} derives {other}: give one or the other, not both"),
                ));
            }
            derive_from_rtts(typical_rtt, max_rtt).map_err(|m| p.invalid(rtt_name, m))?
        } else {
            (
                p.duration("target"),
                p.duration("tupdate"),
                p.f64("alpha"),
                p.f64("beta"),
            )
        };
        let derived = typical_rtt.is_some() || max_rtt.is_some();
        for (name, v) in [("alpha", alpha), ("beta", beta)] {
            let (ok, range) = match variant {
                // Linux takes whole 1/256 Hz from 1 to 2^31 - 1 (its netlink policy).
                Dualpi2Variant::Linux => (
                    (1.0..=ALPHA_BETA_MAX_256).contains(&(v * 256.0).floor()),
                    "[1/256, (2^31-1)/256] Hz: Linux keeps whole 1/256 Hz",
                ),
                Dualpi2Variant::Rfc => ((0.0..=1e9).contains(&v), "[0, 1e9] Hz"),
            };
            if !ok {
                let at = match (derived, max_rtt.is_some()) {
                    (false, _) => name,
                    (true, true) => "max_rtt",
                    (true, false) => "typical_rtt",
                };
                let msg = if derived {
                    format!("derives {name} = {v}, expected {range}")
                } else {
                    format!("expected {range}")
                };
                return Err(p.invalid(at, msg));
            }
        }
        let step_thresh = match p.value("step_thresh") {
            // The table's type gives packets only.
            Value::Size(Size::Packets(n) | Size::Bytes(n)) => StepThresh::Packets(n),
            _ => StepThresh::Time(p.duration("step_thresh").as_nanos()),
        };
        let step_range = p.duration("step_range");
        if step_range > SimDuration::ZERO {
            if variant != Dualpi2Variant::Rfc {
                return Err(p.invalid(
                    "step_range",
                    "a ramp needs variant=rfc (Linux's native L AQM is a step)",
                ));
            }
            if matches!(step_thresh, StepThresh::Packets(_)) {
                return Err(p.invalid(
                    "step_range",
                    "a ramp needs step_thresh as a time, not packets",
                ));
            }
        }
        let drop_on_overload = p.bool("drop_on_overload");
        let drop_early = p.choice("drop_at") == 1;
        if variant == Dualpi2Variant::Rfc {
            if !drop_on_overload {
                return Err(p.invalid(
                    "drop_on_overload",
                    "false (overflow) needs variant=linux: RFC 9332's pseudocode always drops on overload",
                ));
            }
            if drop_early {
                return Err(p.invalid(
                    "drop_at",
                    "enqueue needs variant=linux: RFC 9332's pseudocode decides at dequeue",
                ));
            }
        }
        Ok(Dualpi2Config {
            limit: p.size("limit"),
            target,
            tupdate,
            alpha,
            beta,
            step_thresh,
            step_range,
            min_qlen_step: p.u64("min_qlen_step"),
            k: p.u64("coupling_factor") as u32,
            drop_on_overload,
            drop_early,
            any_ect: p.choice("ecn_mask") == 1,
            wc: p.u64("classic_protection") as u32,
            mtu: p.bytes("mtu") as u32,
            variant,
        })
    }

    /// The configuration with every parameter at its default.
    pub fn defaults() -> Self {
        Self::from_params(&Params::new("dualpi2", PARAMS, &[]).expect("no parameters given"))
            .expect("the defaults are valid")
    }
}

/// Linux's probability unit: `MAX_PROB` (2³² − 1) is probability 1.
pub const MAX_PROB: u32 = u32::MAX;

/// Linux `dualpi2_scale_alpha_beta`: a gain in 1/256 Hz to internal units (probability
/// 1/`MAX_PROB` per 64 ns of delay).
pub const fn linux_scale_alpha_beta(param_256: u32) -> u32 {
    (((param_256 as u64 * MAX_PROB as u64) >> 2) / 1_000_000_000) as u32
}

/// Linux `dualpi2_unscale_alpha_beta`: internal units back to 1/256 Hz, as `tc` reads them
/// (and prints them divided by 256).
pub const fn linux_unscale_alpha_beta(internal: u32) -> u32 {
    (((internal as u64 * 1_000_000_000) << 2) / MAX_PROB as u64) as u32
}

/// The PI2 controller's state (what an update reads and writes).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pi {
    /// variant=linux: p' as a fraction of `MAX_PROB`.
    prob: u32,
    /// variant=rfc: p'.
    p: f64,
    /// The delay at the previous update (prevq, Linux last_qdelay), ns.
    last_qdelay_ns: u64,
}

/// The DualPI2 discipline.
#[derive(Debug)]
pub struct DualPi2 {
    cfg: Dualpi2Config,
    l: PacketFifo,
    c: PacketFifo,
    /// Per L-queue packet, in order: Linux's `apply_step` (the L queue held at least
    /// `min_qlen_step` packets when it arrived).
    l_apply_step: VecDeque<bool>,
    uniforms: UniformSource,
    pi: Pi,
    /// RFC `recur()` accumulators (variant=rfc).
    l_count: f64,
    c_count: f64,
    /// The scheduler's credit, bytes·percent: L is served while ≤ 0 (and C waits).
    credit: i64,
    credit_init: i64,
    next_update_ns: u64,
    /// Linux internal gains.
    alpha_fp: u32,
    beta_fp: u32,
    target_s: f64,
    p_cmax: f64,
}

/// What the AQM decided for one packet.
enum Verdict {
    Pass,
    Drop(DropReason),
}

#[inline]
fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// RFC 9332 Appendix A.1 `recur()`: true with the given likelihood, deterministically.
#[inline]
fn recur(count: &mut f64, likelihood: f64) -> bool {
    *count += likelihood;
    if *count > 1.0 {
        *count -= 1.0;
        true
    } else {
        false
    }
}

/// Marks `pkt` CE if it is ECN-capable; a CE packet passes unchanged (Linux's `INET_ECN_set_ce`
/// succeeds on it without a change).
#[inline]
fn mark(pkt: &mut Packet, reason: MarkReason, cx: &mut QdiscCx) {
    if pkt.ecn.is_ect() {
        cx.mark(pkt, reason);
    }
}

impl DualPi2 {
    /// A DualPI2 queue drawing its random numbers (variant=linux) from `uniforms`.
    pub fn new(cfg: Dualpi2Config, uniforms: UniformSource) -> Self {
        let cap = crate::fifo::capacity_for(cfg.limit);
        let to_256 = |x: f64| (x * 256.0).floor() as u32;
        let credit_init = cfg.mtu as i64 * (cfg.wc as i64 - (100 - cfg.wc as i64));
        let k = cfg.k as f64;
        DualPi2 {
            l: PacketFifo::with_capacity(cap),
            c: PacketFifo::with_capacity(cap),
            l_apply_step: VecDeque::with_capacity(cap),
            uniforms,
            pi: Pi {
                prob: 0,
                p: 0.0,
                last_qdelay_ns: 0,
            },
            l_count: 0.0,
            c_count: 0.0,
            credit: credit_init,
            credit_init,
            next_update_ns: cfg.tupdate.as_nanos(),
            alpha_fp: linux_scale_alpha_beta(to_256(cfg.alpha)),
            beta_fp: linux_scale_alpha_beta(to_256(cfg.beta)),
            target_s: secs(cfg.target.as_nanos()),
            // RFC 9332 A.1: p_Cmax = min(1/k², 1).
            p_cmax: (1.0 / (k * k)).min(1.0),
            cfg,
        }
    }

    /// The random source.
    pub fn uniforms(&self) -> &UniformSource {
        &self.uniforms
    }

    /// The configuration.
    pub fn config(&self) -> &Dualpi2Config {
        &self.cfg
    }

    /// The base probability p'.
    pub fn p_prime(&self) -> f64 {
        match self.cfg.variant {
            Dualpi2Variant::Linux => self.pi.prob as f64 / MAX_PROB as f64,
            Dualpi2Variant::Rfc => self.pi.p,
        }
    }

    /// variant=linux: p' in Linux's unit (`MAX_PROB` = 1).
    pub fn prob_u32(&self) -> u32 {
        self.pi.prob
    }

    /// The Classic probability p_C = (p')².
    pub fn p_c(&self) -> f64 {
        let p = self.p_prime();
        p * p
    }

    /// The coupled L probability p_CL = k·p' (may exceed 1 in overload).
    pub fn p_cl(&self) -> f64 {
        self.cfg.k as f64 * self.p_prime()
    }

    /// The L and C queues' backlogs.
    pub fn queues(&self) -> (Backlog, Backlog) {
        (self.l.backlog(), self.c.backlog())
    }

    /// The scheduler's credit (L is served while it is ≤ 0).
    pub fn credit(&self) -> i64 {
        self.credit
    }

    /// variant=linux: alpha and beta as `tc` prints them (the 1/256 Hz values after the kernel's
    /// round trip through its internal units).
    pub fn linux_gains_as_tc_prints(&self) -> (f64, f64) {
        (
            linux_unscale_alpha_beta(self.alpha_fp) as f64 / 256.0,
            linux_unscale_alpha_beta(self.beta_fp) as f64 / 256.0,
        )
    }

    /// When the next update is due; it runs at the first call after that instant.
    pub fn next_update(&self) -> SimTime {
        SimTime::from_nanos(self.next_update_ns)
    }

    /// Runs every update due strictly before `now` (for samplers and tests; calls do it).
    pub fn advance_to(&mut self, now: SimTime) {
        self.catch_up(now.as_nanos());
    }

    #[inline]
    fn catch_up(&mut self, now: u64) {
        let t = self.cfg.tupdate.as_nanos();
        while self.next_update_ns < now {
            let before = self.pi;
            self.update(self.next_update_ns);
            let more = (now - 1 - self.next_update_ns) / t;
            let skip = if self.pi == before && self.l.is_empty() && self.c.is_empty() {
                more
            } else {
                0
            };
            self.next_update_ns = self
                .next_update_ns
                .saturating_add(skip.saturating_add(1).saturating_mul(t));
        }
    }

    /// The larger of the two head sojourns at `at` (0 for an empty queue).
    fn curq(&self, at: u64) -> u64 {
        let head = |q: &PacketFifo| q.front().map_or(0, |p| at.saturating_sub(p.enqueue_ns));
        head(&self.l).max(head(&self.c))
    }

    /// One PI2 update, due at `at` (RFC 9332 Appendix A.1/A.2 `dualpi2_update`; Linux
    /// `calculate_probability`).
    fn update(&mut self, at: u64) {
        let curq = self.curq(at);
        let last = self.pi.last_qdelay_ns;
        match self.cfg.variant {
            Dualpi2Variant::Linux => {
                // Delay in ns times internal gains; 64 internal units per probability unit.
                // i128 and clamping where Linux's s64/u32 arithmetic would wrap.
                let target = self.cfg.target.as_nanos() as i128;
                let delta = (curq as i128 - target) * self.alpha_fp as i128
                    + (curq as i128 - last as i128) * self.beta_fp as i128;
                let step = delta.unsigned_abs() / 64;
                let prob = if delta > 0 {
                    (self.pi.prob as u128 + step).min(MAX_PROB as u128) as u32
                } else {
                    (self.pi.prob as u128).saturating_sub(step) as u32
                };
                self.pi.prob = if self.cfg.drop_on_overload {
                    prob
                } else {
                    // Overflow mode: keep k·p' ≤ 1 so the L queue keeps marking, never dropping.
                    prob.min(MAX_PROB / self.cfg.k)
                };
            }
            Dualpi2Variant::Rfc => {
                let p = self.pi.p
                    + self.cfg.alpha * (secs(curq) - self.target_s)
                    + self.cfg.beta * (secs(curq) - secs(last));
                self.pi.p = p.clamp(0.0, 1.0);
            }
        }
        self.pi.last_qdelay_ns = curq;
    }

    /// Linux `dualpi2_roll`: a uniform u32 at most `prob`.
    #[inline]
    fn roll(&mut self, prob: u32) -> bool {
        let u = self.uniforms.next_f64();
        let x = ((u * 4_294_967_296.0) as u64).min(MAX_PROB as u64) as u32;
        x <= prob
    }

    /// Linux `must_drop` with `dualpi2_classic_marking` / `dualpi2_scalable_marking`: the coupled
    /// decision for `pkt` (marks it through `cx`). `backlog_bytes` is the qdisc's backlog without
    /// `pkt`.
    fn linux_coupled(
        &mut self,
        pkt: &mut Packet,
        in_l: bool,
        backlog_bytes: u64,
        cx: &mut QdiscCx,
    ) -> Verdict {
        // No AQM action on a standing queue of less than 2 MTUs.
        if backlog_bytes < 2 * self.cfg.mtu as u64 {
            return Verdict::Pass;
        }
        let prob = self.pi.prob;
        let local_l_prob = prob as u64 * self.cfg.k as u64;
        let overload = local_l_prob > MAX_PROB as u64;
        if !in_l {
            // p_C = p'²: two independent draws.
            if self.roll(prob) && self.roll(prob) {
                if pkt.ecn == Ecn::NotEct {
                    return Verdict::Drop(DropReason::Dualpi2Classic);
                }
                if overload {
                    return Verdict::Drop(DropReason::Dualpi2Overload);
                }
                mark(pkt, MarkReason::Dualpi2Classic, cx);
            }
        } else if overload {
            if self.cfg.drop_on_overload && self.roll(prob) && self.roll(prob) {
                return Verdict::Drop(DropReason::Dualpi2Overload);
            }
            // k·p' > 1: every L packet that is not dropped is marked.
            mark(pkt, MarkReason::Dualpi2Coupled, cx);
        } else if self.roll(local_l_prob as u32) {
            mark(pkt, MarkReason::Dualpi2Coupled, cx);
        }
        Verdict::Pass
    }

    /// RFC 9332 A.1 `laqm()`: the native L probability for a sojourn (or L length) `q`.
    fn laqm(&self, q: u64) -> f64 {
        match self.cfg.step_thresh {
            StepThresh::Packets(th) => {
                if q >= th {
                    1.0
                } else {
                    0.0
                }
            }
            StepThresh::Time(min_th) => {
                let range = self.cfg.step_range.as_nanos();
                if q >= min_th.saturating_add(range) {
                    1.0
                } else if q > min_th {
                    (q - min_th) as f64 / range as f64
                } else {
                    0.0
                }
            }
        }
    }

    /// Picks the next packet (Linux `dequeue_packet`, a WRR on a byte credit protecting the C
    /// queue, RFC 9332 §4.2.2): L while the credit is ≤ 0 or C is empty. Returns the packet,
    /// whether it came from L, and the credit change to apply if it is sent.
    #[inline]
    fn schedule(&mut self) -> Option<(Packet, bool, i64)> {
        let c_len = self.c.len();
        if !self.l.is_empty() && (c_len == 0 || self.credit <= 0) {
            let pkt = self.l.pop_front()?;
            let change = if c_len > 0 {
                self.cfg.wc as i64 * pkt.size_bytes as i64
            } else {
                0
            };
            Some((pkt, true, change))
        } else if c_len > 0 {
            let pkt = self.c.pop_front()?;
            let change = if self.l.is_empty() {
                0
            } else {
                -((100 - self.cfg.wc) as i64) * pkt.size_bytes as i64
            };
            Some((pkt, false, change))
        } else {
            self.credit = self.credit_init;
            None
        }
    }

    fn in_l(&self, ecn: Ecn) -> bool {
        match ecn {
            Ecn::Ect1 | Ecn::Ce => true,
            Ecn::Ect0 => self.cfg.any_ect,
            Ecn::NotEct => false,
        }
    }

    /// Linux: the coupled decision (at dequeue unless drop_early) then the step.
    fn dequeue_linux(&mut self, now: u64, cx: &mut QdiscCx) -> Option<Packet> {
        loop {
            let (mut pkt, from_l, change) = self.schedule()?;
            let apply_step = from_l && self.l_apply_step.pop_front().unwrap_or(true);
            if !self.cfg.drop_early {
                let backlog = self.l.bytes() + self.c.bytes();
                if let Verdict::Drop(r) = self.linux_coupled(&mut pkt, from_l, backlog, cx) {
                    cx.drop(pkt, Stage::Dequeue, r);
                    continue;
                }
            }
            if apply_step {
                let q = match self.cfg.step_thresh {
                    StepThresh::Packets(_) => self.l.len() as u64,
                    StepThresh::Time(_) => now.saturating_sub(pkt.enqueue_ns),
                };
                let th = match self.cfg.step_thresh {
                    StepThresh::Packets(n) | StepThresh::Time(n) => n,
                };
                if q > th {
                    mark(&mut pkt, MarkReason::Dualpi2Step, cx);
                }
            }
            self.credit += change;
            return Some(pkt);
        }
    }

    /// RFC 9332 Appendix A.2 `dualpi2_dequeue`.
    fn dequeue_rfc(&mut self, now: u64, cx: &mut QdiscCx) -> Option<Packet> {
        loop {
            let (mut pkt, from_l, change) = self.schedule()?;
            let p = self.pi.p;
            let p_c = p * p;
            if from_l {
                let p_cl = self.cfg.k as f64 * p;
                // Native L AQM, suppressed unless more than Th_len packets remain queued.
                let p_native = if self.l.len() as u64 > self.cfg.min_qlen_step {
                    let q = match self.cfg.step_thresh {
                        StepThresh::Packets(_) => self.l.len() as u64,
                        StepThresh::Time(_) => now.saturating_sub(pkt.enqueue_ns),
                    };
                    self.laqm(q)
                } else {
                    0.0
                };
                if p_cl < 1.0 {
                    // Combining function: p_L = max(p'_L, p_CL).
                    if recur(&mut self.l_count, p_native.max(p_cl)) {
                        let reason = if p_native >= p_cl {
                            MarkReason::Dualpi2Step
                        } else {
                            MarkReason::Dualpi2Coupled
                        };
                        mark(&mut pkt, reason, cx);
                    }
                } else {
                    // Overload saturation: revert to Classic drop, mark the rest.
                    if recur(&mut self.l_count, p_c) {
                        cx.drop(pkt, Stage::Dequeue, DropReason::Dualpi2Overload);
                        continue;
                    }
                    if recur(&mut self.l_count, p_cl) {
                        mark(&mut pkt, MarkReason::Dualpi2Coupled, cx);
                    }
                }
            } else if recur(&mut self.c_count, p_c) {
                if pkt.ecn == Ecn::NotEct {
                    cx.drop(pkt, Stage::Dequeue, DropReason::Dualpi2Classic);
                    continue;
                }
                if p_c >= self.p_cmax {
                    // Overload disables ECN.
                    cx.drop(pkt, Stage::Dequeue, DropReason::Dualpi2Overload);
                    continue;
                }
                mark(&mut pkt, MarkReason::Dualpi2Classic, cx);
            }
            self.credit += change;
            return Some(pkt);
        }
    }
}

impl QueueDisc for DualPi2 {
    fn enqueue(&mut self, now: SimTime, mut pkt: Packet, cx: &mut QdiscCx) {
        self.catch_up(now.as_nanos());
        let (l, c) = (self.l.backlog(), self.c.backlog());
        let total = Backlog {
            packets: l.packets + c.packets,
            bytes: l.bytes + c.bytes,
        };
        if !fits(self.cfg.limit, total, pkt.size_bytes) {
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
            return;
        }
        let in_l = self.in_l(pkt.ecn);
        if self.cfg.drop_early {
            if let Verdict::Drop(r) = self.linux_coupled(&mut pkt, in_l, total.bytes, cx) {
                cx.drop(pkt, Stage::Enqueue, r);
                return;
            }
        }
        if in_l {
            if self.cfg.variant == Dualpi2Variant::Linux {
                self.l_apply_step
                    .push_back(self.l.len() as u64 >= self.cfg.min_qlen_step);
            }
            self.l.push_back(pkt);
        } else {
            self.c.push_back(pkt);
        }
    }

    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet> {
        let now = now.as_nanos();
        self.catch_up(now);
        match self.cfg.variant {
            Dualpi2Variant::Linux => self.dequeue_linux(now, cx),
            Dualpi2Variant::Rfc => self.dequeue_rfc(now, cx),
        }
    }

    fn backlog(&self) -> Backlog {
        let (l, c) = self.queues();
        Backlog {
            packets: l.packets + c.packets,
            bytes: l.bytes + c.bytes,
        }
    }

    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("p_prime", self.p_prime());
        visit("p_c", self.p_c());
        visit("p_cl", self.p_cl());
        visit("qdelay_s", secs(self.pi.last_qdelay_ns));
        visit("credit", self.credit as f64);
        visit("l_packets", self.l.len() as f64);
        visit("c_packets", self.c.len() as f64);
    }
}

#[cfg(test)]
mod tests;
