//! PIE, the Proportional Integral controller Enhanced (RFC 8033), as a clock-free state machine.
//!
//! * Enqueue (RFC 8033 §4.1): an arrival that does not fit is dropped (`overlimit`); otherwise,
//!   unless the burst allowance (§4.4) or the work-conserving safeguard (§4.1) lets it through, it
//!   is dropped with probability `drop_prob` (`pie_early`), or CE-marked instead when ECN is on,
//!   the packet is ECN-capable and `drop_prob` is below the ECN threshold (§5.1). With
//!   derandomization (§5.4) the drops are spaced by an accumulated probability.
//! * Dequeue: FIFO; the queueing delay is the sojourn of the departing packet, and 0 when it leaves
//!   the queue empty (the timestamp estimator of §4.3, as ns-3 and Linux ≥ 5.6 implement it), or
//!   backlog / departure rate with `estimator=dq_rate` (§4.3 and §5.2, with ns-3's averaging).
//! * Every `t_update` the drop probability is recomputed (§4.2): the PI step
//!   `alpha·(qdelay − target) + beta·(qdelay − qdelay_old)`, scaled by the auto-tuning table,
//!   capped at +2 % once `drop_prob ≥ 10 %` (§5.5), decayed by ×0.98 when the queue is idle, and
//!   clamped to [0, 1].
//! * `active_threshold` (ns-3 3.37's `ActiveThreshold`; not in RFC 8033, where PIE is always
//!   active; off by default, as in ns-3): arrivals meet the early-drop test only while PIE is
//!   active. It becomes active at an accepted arrival that finds the delay estimate at or above
//!   the threshold (starting afresh: probability 0, full burst allowance), and inactive at an
//!   accepted arrival that finds `drop_prob` 0 and both delays under 1 ms
//!   ([`PieCore::offer`]). The periodic update runs either way.
//!
//! # The periodic update without a timer
//! A discipline never schedules events (see [`crate::contract`]), so the update "timer" is lazy.
//! Updates are due at `k·t_update` for k = 0, 1, 2, …, as in ns-3, which arms its `CalculateP`
//! timer at time 0 when the discipline is built and re-arms it every `t_update`. The update at 0
//! runs in [`Pie::new`], before any call. At the start of every `enqueue`/`dequeue` call at `now`,
//! every update due strictly before `now` is run, oldest first.
//!
//! This is exactly what a timer would have done. An update reads only PIE's own variables
//! (`drop_prob`, `qdelay`, `qdelay_old`, the burst allowance and state, the departure-rate
//! estimate) and the backlog, and only calls change those; so an update due in a gap between two
//! calls sees the state the earlier call left, which is still the state held when the later call
//! runs it, and the updates in a gap see each other's results in order, as they would have.
//! An update due at exactly `now` runs after the calls at `now`: that is ns-3's order (the
//! driver's events were scheduled before the timer re-armed itself), and it is the order with which
//! every packet of the vectors agrees (running it before them, 15,187 of the 24,167 packets of
//! `overload` differ). When an update leaves the state unchanged (an idle queue with `drop_prob` 0
//! and nothing left to count down, or only ns-3's count of calm updates), the remaining due
//! updates are done in one step, so a long idle gap costs O(1). Otherwise (a stalled link with
//! packets queued) a gap costs one update per `t_update` of it, as a timer would. [`Pie::advance_to`] runs the due updates
//! without a call, for samplers; [`Pie::next_update`] tells when the next one is due.
//!
//! # Variants
//! `variant=ns3` (default) reproduces ns-3 3.37's `PieQueueDisc`, and with
//! `vectors/ns3-uniforms.txt` draws exactly when ns-3 draws; `variant=rfc` follows RFC 8033's
//! pseudocode (Appendix A/B) for the burst allowance. They differ only there and in the drop test
//! (`u ≤ p` / `u < p`); see [`PieVariant`]. Deviations from Linux `sch_pie`: no "+2 % when
//! qdelay > 250 ms" boost, ×0.98 decay (Linux: −1/64), the RFC auto-tuning table (old kernels had
//! three regimes), ECN marking when `drop_prob < ecn_threshold` (Linux: `≤ 10 %`), the allowance
//! counted down per update (Linux: by the time between dequeues).

use crate::contract::{Backlog, DropReason, MarkReason, QdiscCx, QueueDisc, Stage};
use crate::droptail::fits;
use crate::fifo::PacketFifo;
use crate::params::{ConfigError, ParamSpec, Params};
use crate::uniform::UniformSource;
use aqmlab_core::units::Size;
use aqmlab_core::{Ecn, Packet, SimDuration, SimTime};

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "drop_prob, the current and previous queueing delay, the burst allowance, the accumulated probability (derandomize) and the departure-rate estimate (estimator=dq_rate) (RFC 8033 §4-§5); with active_threshold, ns-3's active flag",
    per_flow: "none: one FIFO for all flows",
    per_packet: "a timestamp at enqueue and one random draw for an arrival that may be dropped (none during the burst allowance or below the safeguard); at dequeue the sojourn, or the departure-rate measurement (RFC 8033 §4.1, §4.3)",
    timers: "every t_update (15 ms) the PI update of drop_prob (RFC 8033 §4.2), run at the next call",
    spec: "RFC 8033 §4-§5; ns-3 PieQueueDisc",
};

/// PIE's parameters. `alpha` and `beta` are bounded so that the PI step stays finite for any
/// delay (u64 ns < 2e10 s).
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::size("limit", "1000p", "buffer limit in packets (1000p) or bytes (1.5MB); an arrival beyond it is dropped"),
    ParamSpec::duration("target", "15ms", "QDELAY_REF: the queueing delay PIE steers to (RFC 8033 §4.2)").gt(0.0),
    ParamSpec::duration("t_update", "15ms", "T_UPDATE: period of the drop-probability update (§4.2)").gt(0.0),
    ParamSpec::number("alpha", "0.125", "weight of (qdelay - target) (§4.2)").within(0.0, 1e9).unit("1/s")
    .adapted("at every update the PI step is divided by 2048, 512, 128, 32, 8 or 2 while drop_prob is below 1e-6, 1e-5, 1e-4, 1e-3, 1e-2 or 0.1, and taken whole above (RFC 8033 §4.2, auto-tuning of alpha and beta)"),
    ParamSpec::number("beta", "1.25", "weight of (qdelay - qdelay_old) (§4.2)").within(0.0, 1e9).unit("1/s")
    .adapted("scaled with alpha by drop_prob's magnitude at every update (RFC 8033 §4.2, auto-tuning of alpha and beta)"),
    ParamSpec::duration("burst_allowance", "150ms", "MAX_BURST: time without random drops at the start of a burst (§4.4)"),
    ParamSpec::boolean("ecn", "false", "CE-mark ECN-capable packets instead of dropping them while drop_prob < ecn_threshold (§5.1)"),
    ParamSpec::number("ecn_threshold", "0.1", "mark_ecnth: above it ECN-capable packets are dropped too (§5.1)").within(0.0, 1.0).unit("probability"),
    ParamSpec::boolean("derandomize", "false", "space drops by accumulated probability: none below 0.85, always at 8.5 (§5.4)"),
    ParamSpec::boolean("cap_drop_adjustment", "true", "raise drop_prob by at most 2 % per update once it is >= 10 % (§5.5)"),
    ParamSpec::bytes("mean_pkt_size", "1000B", "MEAN_PKTSIZE, byte-mode limits only: no early drop with <= 2 of these queued; drop_prob scales by size/mean").within(1.0, u32::MAX as f64),
    ParamSpec::choice("estimator", "timestamp", "timestamp|dq_rate", "queueing delay from the departing packet's sojourn, or backlog/departure rate (§4.3, §5.2)"),
    ParamSpec::bytes("dq_threshold", "16384B", "DQ_THRESHOLD: backlog (and bytes sent) per departure-rate sample (estimator=dq_rate)").gt(0.0),
    ParamSpec::duration("ce_threshold", "off", "with l4s: CE-mark an ECT(1)/CE packet whose sojourn exceeds this (ns-3 CeThreshold)").or("off|none"),
    ParamSpec::boolean("l4s", "false", "L4S mode (ns-3 UseL4s; needs ce_threshold): ECT(1)/CE arrivals skip the early-drop test; at dequeue they are marked above ce_threshold and leave the delay estimate alone"),
    ParamSpec::duration("active_threshold", "off", "ns-3 ActiveThreshold, not in RFC 8033: no early drop until an arrival finds the delay estimate at or above this; inactive again once drop_prob is 0 and both delay estimates are under 1 ms").or("off|none"),
    ParamSpec::choice("variant", "ns3", "ns3|rfc", "burst-allowance logic of ns-3 3.37 (default; agrees with the vectors) or of RFC 8033's pseudocode"),
];

/// How the burst allowance (RFC 8033 §4.4) is kept; nothing else differs between the variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieVariant {
    /// ns-3 3.37 `PieQueueDisc`: the allowance starts at 0 and is granted (`burst_allowance`) by
    /// the first arrival that reaches the early-drop test after a calm spell; while it lasts the
    /// update holds `drop_prob` at 0; it is granted again only after the queue has been calm
    /// (`drop_prob` 0, both delays below target/2, allowance used up) for more than 1.5 s of
    /// updates in a row (ns-3's NO_BURST / IN_BURST_PROTECTING / IN_BURST machine). Drop test
    /// `u <= p`.
    Ns3,
    /// RFC 8033 Appendix A: the allowance starts at `burst_allowance` and is reset to it at every
    /// arrival while `drop_prob` is 0 and both `qdelay` and `qdelay_old` are below target/2; the
    /// update keeps running during the allowance. Drop test `u < p`.
    Rfc,
}

/// How the queueing delay is estimated (RFC 8033 §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Estimator {
    /// The sojourn of the packet being dequeued; 0 when it leaves the queue empty.
    Timestamp,
    /// Backlog bytes / average departure rate, measured over `dq_threshold` bytes (§5.2; ns-3's
    /// 0.5/0.5 average of the samples). 0 until the first rate sample.
    DqRate,
}

/// Validated PIE configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PieConfig {
    /// Buffer limit.
    pub limit: Size,
    /// QDELAY_REF.
    pub target: SimDuration,
    /// T_UPDATE (> 0).
    pub t_update: SimDuration,
    /// alpha, per second (0 to 1e9).
    pub alpha: f64,
    /// beta, per second (0 to 1e9).
    pub beta: f64,
    /// MAX_BURST.
    pub burst_allowance: SimDuration,
    /// Mark instead of drop (§5.1).
    pub ecn: bool,
    /// Mark only while `drop_prob` is below this.
    pub ecn_threshold: f64,
    /// Derandomized drops (§5.4).
    pub derandomize: bool,
    /// At most +2 % per update once `drop_prob ≥ 10 %` (§5.5).
    pub cap_drop_adjustment: bool,
    /// MEAN_PKTSIZE in bytes (byte-mode limits).
    pub mean_pkt_size: u32,
    /// Queueing-delay estimator.
    pub estimator: Estimator,
    /// DQ_THRESHOLD in bytes.
    pub dq_threshold: u64,
    /// ns-3 or RFC burst-allowance logic.
    pub variant: PieVariant,
    /// L4S marking threshold on the sojourn (with `l4s`).
    pub ce_threshold: Option<SimDuration>,
    /// L4S mode (ns-3 3.37 `UseL4s`).
    pub l4s: bool,
    /// Not a parameter: a counterfactual switch for the ns-3 vector tests, `true` from
    /// [`PieConfig::from_params`]. With `l4s`, whether an ECT(1)/CE departure leaves the delay
    /// estimate alone, as ns-3 3.37 `PieQueueDisc::DoDequeue` does; `false` estimates the delay
    /// from it too (`vectors/README.md`, `l4s_shared`).
    #[doc(hidden)]
    pub l4s_skips_estimate: bool,
    /// ns-3 3.37 `ActiveThreshold` (`None`: off, ns-3's default `Time::Max`): see
    /// [`PieCore::offer`].
    pub active_threshold: Option<SimDuration>,
}

impl PieConfig {
    /// Reads and checks the parameters.
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        // L4S mode marks only above the CE threshold: without one, ECT(1) packets would pass
        // unmarked and undropped. ns-3 3.37's PIE and FQ-PIE refuse the combination too.
        if p.bool("l4s") && p.opt_duration("ce_threshold").is_none() {
            return Err(p.invalid(
                "ce_threshold",
                "l4s=true needs a ce_threshold (without one ECT(1) packets are never marked \
                 nor dropped): e.g. ce_threshold=1ms",
            ));
        }
        Ok(PieConfig {
            limit: p.size("limit"),
            target: p.duration("target"),
            t_update: p.duration("t_update"),
            alpha: p.f64("alpha"),
            beta: p.f64("beta"),
            burst_allowance: p.duration("burst_allowance"),
            ecn: p.bool("ecn"),
            ecn_threshold: p.f64("ecn_threshold"),
            derandomize: p.bool("derandomize"),
            cap_drop_adjustment: p.bool("cap_drop_adjustment"),
            mean_pkt_size: p.bytes("mean_pkt_size") as u32,
            estimator: [Estimator::Timestamp, Estimator::DqRate][p.choice("estimator")],
            dq_threshold: p.bytes("dq_threshold"),
            variant: [PieVariant::Ns3, PieVariant::Rfc][p.choice("variant")],
            ce_threshold: p.opt_duration("ce_threshold"),
            l4s: p.bool("l4s"),
            l4s_skips_estimate: true,
            active_threshold: p.opt_duration("active_threshold"),
        })
    }

    /// The configuration with every parameter at its default.
    pub fn defaults() -> Self {
        Self::from_params(&Params::new("pie", PARAMS, &[]).expect("no parameters given"))
            .expect("the defaults are valid")
    }
}

/// ns-3's burst state (variant `ns3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Burst {
    /// Calm: the next early-drop test grants the allowance.
    No,
    /// The allowance has been granted and not yet seen out by a calm update.
    Protecting,
    /// The allowance is used up and the queue is calm; counting calm updates.
    In,
}

/// ns-3's `BURST_RESET_TIMEOUT`, in seconds: how long the queue must stay calm before ns-3 grants
/// the burst allowance again.
const NS3_BURST_RESET_TIMEOUT_S: f64 = 1.5;

/// The variables the periodic update reads and writes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ctl {
    drop_prob: f64,
    /// Current queueing-delay estimate, ns.
    qdelay_ns: u64,
    /// The estimate at the previous update, ns.
    qdelay_old_ns: u64,
    /// Remaining burst allowance, ns.
    burst_allowance_ns: u64,
    burst: Burst,
    burst_reset: u32,
    /// Departure-rate estimator (estimator=dq_rate): average rate in bytes/s (0: none yet).
    avg_dq_rate: f64,
    in_measurement: bool,
    dq_start_ns: u64,
    /// Bytes sent in the current measurement; wraps like ns-3's `uint64_t m_dqCount`.
    dq_count: u64,
}

const DQCOUNT_INVALID: u64 = u64::MAX;

/// PIE's controller without its queue: the drop-probability update, the early-drop decision
/// and the delay estimate. The [`Pie`] discipline is a FIFO under it; [`crate::fq_pie`] runs one
/// per flow queue.
#[derive(Clone, Debug)]
pub struct PieCore {
    cfg: PieConfig,
    uniforms: UniformSource,
    ctl: Ctl,
    /// Accumulated probability (§5.4).
    accu_prob: f64,
    /// When the next periodic update is due, ns.
    next_update_ns: u64,
    /// ns-3's `m_active` (with `active_threshold`): whether arrivals meet the early-drop test.
    active: bool,
    // Constants in seconds, as the update uses them.
    target_s: f64,
    half_target_s: f64,
    burst_reset_limit: u32,
}

/// The PIE discipline.
#[derive(Debug)]
pub struct Pie {
    core: PieCore,
    q: PacketFifo,
}

#[inline]
fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

impl Pie {
    /// A PIE queue drawing its random numbers from `uniforms`.
    pub fn new(cfg: PieConfig, uniforms: UniformSource) -> Self {
        let cap = crate::fifo::capacity_for(cfg.limit);
        Pie {
            core: PieCore::new(cfg, uniforms),
            q: PacketFifo::with_capacity(cap),
        }
    }

    /// The controller.
    pub fn core(&self) -> &PieCore {
        &self.core
    }

    /// The random source.
    pub fn uniforms(&self) -> &UniformSource {
        &self.core.uniforms
    }

    /// The configuration.
    pub fn config(&self) -> &PieConfig {
        &self.core.cfg
    }

    /// The current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.core.drop_prob()
    }

    /// The current queueing-delay estimate.
    pub fn qdelay(&self) -> SimDuration {
        self.core.qdelay()
    }

    /// The remaining burst allowance.
    pub fn burst_allowance(&self) -> SimDuration {
        self.core.burst_allowance()
    }

    /// The accumulated probability of derandomization (§5.4).
    pub fn accu_prob(&self) -> f64 {
        self.core.accu_prob
    }

    /// When the next periodic update is due (a multiple of `t_update`); it runs at the first call
    /// after that instant.
    pub fn next_update(&self) -> SimTime {
        SimTime::from_nanos(self.core.next_update_ns)
    }

    /// Runs every periodic update due strictly before `now`, as a timer would have by then.
    /// `enqueue` and `dequeue` do this themselves; call it only to read the state at a time
    /// without a call (a trace sampler, a test).
    pub fn advance_to(&mut self, now: SimTime) {
        self.core.catch_up(now.as_nanos(), self.q.bytes());
    }

    #[cfg(test)]
    fn update(&mut self) {
        self.core.update(self.q.bytes());
    }
}

impl PieCore {
    /// A controller whose periodic updates are due at `start_ns + k·t_update`, k = 0, 1, …; the
    /// first runs at the first call after `start_ns` (ns-3 arms a child PIE's timer when its
    /// flow queue is created, and the update at that instant runs after the calls at it).
    pub fn starting_at(cfg: PieConfig, uniforms: UniformSource, start_ns: u64) -> Self {
        let mut c = Self::build(cfg, uniforms);
        c.next_update_ns = start_ns;
        c
    }

    /// Moves the periodic updates to `start_ns + k·t_update` (see [`PieCore::starting_at`]).
    pub fn schedule_updates_from(&mut self, start_ns: u64) {
        self.next_update_ns = start_ns;
    }

    /// A controller whose first update runs now, at time 0 (a standalone PIE built before any
    /// call, as ns-3 arms its timer at construction), and the next at `t_update`.
    pub fn new(cfg: PieConfig, uniforms: UniformSource) -> Self {
        let mut c = Self::build(cfg, uniforms);
        c.update(0);
        c.next_update_ns = c.cfg.t_update.as_nanos();
        c
    }

    fn build(cfg: PieConfig, uniforms: UniformSource) -> Self {
        let target_s = secs(cfg.target.as_nanos());
        let burst_allowance_ns = match cfg.variant {
            PieVariant::Ns3 => 0,
            PieVariant::Rfc => cfg.burst_allowance.as_nanos(),
        };
        let limit = NS3_BURST_RESET_TIMEOUT_S / secs(cfg.t_update.as_nanos());
        PieCore {
            uniforms,
            ctl: Ctl {
                drop_prob: 0.0,
                qdelay_ns: 0,
                qdelay_old_ns: 0,
                burst_allowance_ns,
                burst: Burst::No,
                burst_reset: 0,
                avg_dq_rate: 0.0,
                in_measurement: false,
                dq_start_ns: 0,
                dq_count: DQCOUNT_INVALID,
            },
            accu_prob: 0.0,
            next_update_ns: 0,
            active: false,
            target_s,
            half_target_s: 0.5 * target_s,
            burst_reset_limit: if limit >= u32::MAX as f64 {
                u32::MAX
            } else {
                limit as u32
            },
            cfg,
        }
    }

    /// The random source.
    pub fn uniforms(&self) -> &UniformSource {
        &self.uniforms
    }

    /// The configuration.
    pub fn config(&self) -> &PieConfig {
        &self.cfg
    }

    /// The current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.ctl.drop_prob
    }

    /// The current queueing-delay estimate.
    pub fn qdelay(&self) -> SimDuration {
        SimDuration::from_nanos(self.ctl.qdelay_ns)
    }

    /// The remaining burst allowance.
    pub fn burst_allowance(&self) -> SimDuration {
        SimDuration::from_nanos(self.ctl.burst_allowance_ns)
    }

    /// The accumulated probability of derandomization (§5.4).
    pub fn accu_prob(&self) -> f64 {
        self.accu_prob
    }

    /// When the next periodic update is due (a multiple of `t_update`); it runs at the first call
    /// after that instant.
    pub fn next_update(&self) -> SimTime {
        SimTime::from_nanos(self.next_update_ns)
    }

    /// Runs every periodic update due strictly before `now` (see the module documentation);
    /// `q_bytes` is the queue's backlog, which the `dq_rate` estimator reads.
    #[inline]
    pub fn catch_up(&mut self, now: u64, q_bytes: u64) {
        let t = self.cfg.t_update.as_nanos();
        while self.next_update_ns < now {
            let before = self.ctl;
            self.update(q_bytes);
            // Updates still due after this one.
            let more = (now - 1 - self.next_update_ns) / t;
            let mut skip = 0;
            if self.ctl == before {
                // A fixed point: the remaining due updates would change nothing either.
                skip = more;
            } else if self.ctl.burst == Burst::In
                && self.ctl.burst_reset == before.burst_reset.wrapping_add(1)
                && (Ctl {
                    burst_reset: before.burst_reset,
                    ..self.ctl
                }) == before
            {
                // Calm and idle in ns-3's IN_BURST: each further update only counts one more
                // calm update, until the count passes the limit. Count them in one step, up to
                // the update that changes the state.
                let to_limit = (self.burst_reset_limit
                    - self.ctl.burst_reset.min(self.burst_reset_limit))
                    as u64;
                skip = more.min(to_limit);
                self.ctl.burst_reset += skip as u32;
            }
            self.next_update_ns = self
                .next_update_ns
                .saturating_add(skip.saturating_add(1).saturating_mul(t));
        }
    }

    /// One drop-probability update (RFC 8033 §4.2; ns-3 `CalculateP`).
    fn update(&mut self, q_bytes: u64) {
        let cfg = &self.cfg;
        let c = &mut self.ctl;
        let mut missing_rate = false;
        if cfg.estimator == Estimator::DqRate {
            // §4.3: Little's law on the backlog and the measured departure rate.
            if c.avg_dq_rate > 0.0 {
                c.qdelay_ns = SimDuration::from_secs_f64(q_bytes as f64 / c.avg_dq_rate).as_nanos();
            } else {
                c.qdelay_ns = 0;
                missing_rate = true;
            }
        }
        let qdelay = secs(c.qdelay_ns);
        let qdelay_old = secs(c.qdelay_old_ns);

        let mut p = 0.0;
        if cfg.variant == PieVariant::Ns3 && c.burst_allowance_ns > 0 {
            // ns-3 holds the probability at 0 while the burst allowance lasts.
            c.drop_prob = 0.0;
        } else {
            // §4.2: the PI step, in probability per update.
            p = cfg.alpha * (qdelay - self.target_s) + cfg.beta * (qdelay - qdelay_old);
            // §4.2 auto-tuning: the smaller drop_prob, the smaller the step.
            let dp = c.drop_prob;
            if dp < 0.000001 {
                p /= 2048.0;
            } else if dp < 0.00001 {
                p /= 512.0;
            } else if dp < 0.0001 {
                p /= 128.0;
            } else if dp < 0.001 {
                p /= 32.0;
            } else if dp < 0.01 {
                p /= 8.0;
            } else if dp < 0.1 {
                p /= 2.0;
            }
            // §5.5 cap drop adjustment: at most +2 % per update once drop_prob >= 10 %.
            if cfg.cap_drop_adjustment && dp >= 0.1 && p > 0.02 {
                p = 0.02;
            }
        }
        p += c.drop_prob;
        // §4.2: decay exponentially while the queue stays idle.
        if qdelay == 0.0 && qdelay_old == 0.0 {
            p *= 0.98;
        }
        // §4.2: bound to [0, 1].
        c.drop_prob = p.clamp(0.0, 1.0);

        // §4.4: the allowance runs down by T_UPDATE per update.
        c.burst_allowance_ns = c.burst_allowance_ns.saturating_sub(cfg.t_update.as_nanos());

        let calm = qdelay < self.half_target_s && qdelay_old < self.half_target_s;
        if cfg.estimator == Estimator::DqRate && calm && c.drop_prob == 0.0 && !missing_rate {
            // The queue has calmed down: start the rate measurement afresh (ns-3, Linux).
            c.dq_count = DQCOUNT_INVALID;
            c.avg_dq_rate = 0.0;
        }
        if cfg.variant == PieVariant::Ns3 {
            if calm && c.drop_prob == 0.0 && c.burst_allowance_ns == 0 {
                match c.burst {
                    Burst::Protecting => {
                        c.burst = Burst::In;
                        c.burst_reset = 0;
                    }
                    Burst::In => {
                        c.burst_reset = c.burst_reset.saturating_add(1);
                        if c.burst_reset > self.burst_reset_limit {
                            c.burst_reset = 0;
                            c.burst = Burst::No;
                        }
                    }
                    Burst::No => {}
                }
            } else if c.burst == Burst::In {
                c.burst_reset = 0;
            }
        }
        c.qdelay_old_ns = c.qdelay_ns;
    }

    /// The early-drop decision for an arrival that fits (§4.1, §4.4, §5.4; ns-3 `DropEarly`).
    /// `backlog` is the queue before the arrival.
    #[inline]
    fn drop_early(&mut self, pkt: &Packet, backlog: Backlog) -> bool {
        let c = &mut self.ctl;
        if c.burst_allowance_ns > 0 {
            // §4.4: inside the burst allowance there are no random drops.
            return false;
        }
        if self.cfg.variant == PieVariant::Ns3 && c.burst == Burst::No {
            // ns-3 grants the allowance here, at the first test after a calm spell; this
            // arrival is still tested below.
            c.burst = Burst::Protecting;
            c.burst_allowance_ns = self.cfg.burst_allowance.as_nanos();
        }
        let mut p = c.drop_prob;
        let byte_mode = matches!(self.cfg.limit, Size::Bytes(_));
        if byte_mode {
            // §4.1 allows scaling by packet size ("for practical reasons"); ns-3 does it in
            // byte mode.
            p = p * pkt.size_bytes as f64 / self.cfg.mean_pkt_size as f64;
        }
        // §4.1 safeguard: PIE stays work-conserving while the delay is low, or while the queue
        // holds no more than a couple of packets.
        if secs(c.qdelay_old_ns) < self.half_target_s && c.drop_prob < 0.2 {
            return false;
        }
        let few = if byte_mode {
            backlog.bytes <= 2 * self.cfg.mean_pkt_size as u64
        } else {
            backlog.packets <= 2
        };
        if few {
            return false;
        }
        if self.cfg.derandomize {
            // §5.4: accumulate the probability since the last drop.
            if c.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += c.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                return true;
            }
        }
        let u = self.uniforms.next_f64();
        match self.cfg.variant {
            PieVariant::Ns3 => u <= p,
            PieVariant::Rfc => u < p,
        }
    }

    /// The departure-rate measurement (§5.2, ns-3's averaging) after `pkt` left at `now`.
    fn measure_departure(&mut self, now: u64, size: u32, left: u64) {
        let c = &mut self.ctl;
        let th = self.cfg.dq_threshold;
        if left >= th && !c.in_measurement {
            c.dq_start_ns = now;
            c.dq_count = 0;
            c.in_measurement = true;
        }
        if c.in_measurement {
            c.dq_count = c.dq_count.wrapping_add(size as u64);
            if c.dq_count >= th {
                let dt = secs(now - c.dq_start_ns);
                if dt > 0.0 {
                    let sample = c.dq_count as f64 / dt;
                    c.avg_dq_rate = if c.avg_dq_rate == 0.0 {
                        sample
                    } else {
                        0.5 * c.avg_dq_rate + 0.5 * sample
                    };
                }
                c.dq_count = 0;
                if left > th {
                    c.dq_start_ns = now;
                    c.in_measurement = true;
                } else {
                    c.in_measurement = false;
                }
            }
        }
    }
}

impl PieCore {
    /// Offers `pkt` at `now` to the queue `q` (RFC 8033 §4.1; ns-3 `PieQueueDisc::DoEnqueue`):
    /// refused when it does not `fit`, else early-dropped, marked or queued. Returns whether it
    /// was queued.
    pub fn offer(
        &mut self,
        now: SimTime,
        mut pkt: Packet,
        q: &mut PacketFifo,
        fit: bool,
        cx: &mut QdiscCx,
    ) -> bool {
        self.catch_up(now.as_nanos(), q.bytes());
        let backlog = q.backlog();
        if !fit {
            // Buffer full: a forced drop, which also restarts derandomization.
            self.accu_prob = 0.0;
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
            return false;
        }
        if self.cfg.variant == PieVariant::Rfc {
            // RFC 8033 §4.4 / Appendix A: once congestion has gone (drop_prob 0, both delay
            // estimates below target/2), a new burst gets the full allowance again.
            let c = &mut self.ctl;
            if c.drop_prob == 0.0
                && secs(c.qdelay_ns) < self.half_target_s
                && secs(c.qdelay_old_ns) < self.half_target_s
            {
                c.burst_allowance_ns = self.cfg.burst_allowance.as_nanos();
            }
        }
        // ns-3 3.37 `PieQueueDisc::DoEnqueue` with UseL4s: an ECT(1) or CE arrival is never
        // early-dropped (nor tested: no draw, no burst-state change).
        let l4s = self.cfg.l4s && matches!(pkt.ecn, Ecn::Ect1 | Ecn::Ce);
        // ns-3 3.37 `ActiveThreshold` (not in RFC 8033): while inactive, no arrival is tested
        // either.
        let gated = self.cfg.active_threshold.is_some() && !self.active;
        if !l4s && !gated && self.drop_early(&pkt, backlog) {
            // §5.1: below the ECN threshold an ECN-capable packet is marked instead.
            // A packet already CE passes unchanged (ns-3's and Linux's "set CE" succeed on it).
            if self.cfg.ecn && self.ctl.drop_prob < self.cfg.ecn_threshold && pkt.ecn != Ecn::NotEct
            {
                if pkt.ecn.is_ect() {
                    cx.mark(&mut pkt, MarkReason::PieEarly);
                }
            } else {
                self.accu_prob = 0.0;
                cx.drop(pkt, Stage::Enqueue, DropReason::PieEarly);
                return false;
            }
        }
        q.push_back(pkt);
        if let Some(th) = self.cfg.active_threshold {
            self.after_accepted_arrival(now.as_nanos(), th.as_nanos());
        }
        true
    }

    /// ns-3 3.37's `ActiveThreshold` rule, applied after every arrival that was queued (not
    /// after a forced or early drop), as `PieQueueDisc::DoEnqueue` applies it. It is ns-3's,
    /// not RFC 8033's (which has PIE always active). First, an inactive PIE whose delay estimate
    /// (`qdelay`, as the estimator left it) has reached the threshold becomes active and starts
    /// afresh: `qdelay_old` 0, `drop_prob` 0, a new departure-rate measurement starting now
    /// (`dq_rate`: in measurement, 0 bytes counted, rate 0), the full burst allowance,
    /// `accu_prob` 0 (the burst state is left as it is). Then, active or not, PIE becomes
    /// inactive (and leaves any rate measurement) when `drop_prob` is 0 and `qdelay_old` and
    /// `qdelay` are both under 1 ms: ns-3 compares their whole milliseconds
    /// (`Time::GetMilliSeconds() == 0`, truncated), so 0.999 ms counts as 0.
    fn after_accepted_arrival(&mut self, now: u64, threshold_ns: u64) {
        const MS: u64 = 1_000_000;
        let c = &mut self.ctl;
        if !self.active && c.qdelay_ns >= threshold_ns {
            self.active = true;
            c.qdelay_old_ns = 0;
            c.drop_prob = 0.0;
            c.in_measurement = true;
            c.dq_count = 0;
            c.avg_dq_rate = 0.0;
            c.burst_allowance_ns = self.cfg.burst_allowance.as_nanos();
            self.accu_prob = 0.0;
            c.dq_start_ns = now;
        }
        if c.drop_prob == 0.0 && c.qdelay_old_ns / MS == 0 && c.qdelay_ns / MS == 0 {
            self.active = false;
            c.in_measurement = false;
        }
    }

    /// Whether PIE is active (always, without `active_threshold`; ns-3's `m_active`).
    pub fn active(&self) -> bool {
        self.cfg.active_threshold.is_none() || self.active
    }

    /// Takes the head of `q` at `now` and updates the delay estimate (RFC 8033 §4.3).
    pub fn take(&mut self, now: SimTime, q: &mut PacketFifo, cx: &mut QdiscCx) -> Option<Packet> {
        let now = now.as_nanos();
        self.catch_up(now, q.bytes());
        let mut pkt = q.pop_front()?;
        if self.cfg.l4s && matches!(pkt.ecn, Ecn::Ect1 | Ecn::Ce) {
            // ns-3 3.37 `PieQueueDisc::DoDequeue` with UseL4s: an ECT(1)/CE packet is marked when
            // its sojourn exceeds CeThreshold and leaves at once, without touching the delay
            // estimate (a CE packet stays CE: nothing to report).
            let over = self
                .cfg
                .ce_threshold
                .is_some_and(|th| now.saturating_sub(pkt.enqueue_ns) > th.as_nanos());
            if over && pkt.ecn.is_ect() {
                cx.mark(&mut pkt, MarkReason::PieCeThreshold);
            }
            if self.cfg.l4s_skips_estimate {
                return Some(pkt);
            }
        }
        match self.cfg.estimator {
            Estimator::Timestamp => {
                // §4.3 with timestamps: the departing packet's sojourn; an empty queue has none.
                self.ctl.qdelay_ns = if q.bytes() == 0 {
                    0
                } else {
                    now.saturating_sub(pkt.enqueue_ns)
                };
            }
            Estimator::DqRate => self.measure_departure(now, pkt.size_bytes, q.bytes()),
        }
        Some(pkt)
    }

    /// Whether its random source (a list) ran out.
    pub fn uniforms_exhausted(&self) -> bool {
        self.uniforms.exhausted()
    }

    /// Visits the controller's state variables.
    pub fn visit(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        let c = &self.ctl;
        visit("drop_prob", c.drop_prob);
        visit("qdelay_s", secs(c.qdelay_ns));
        visit("qdelay_old_s", secs(c.qdelay_old_ns));
        visit("burst_allowance_s", secs(c.burst_allowance_ns));
        visit("accu_prob", self.accu_prob);
        visit(
            "burst_state",
            match c.burst {
                Burst::No => 0.0,
                Burst::Protecting => 1.0,
                Burst::In => 2.0,
            },
        );
        visit("avg_dq_rate_Bps", c.avg_dq_rate);
        if self.cfg.active_threshold.is_some() {
            visit("active", if self.active { 1.0 } else { 0.0 });
        }
    }
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, now: SimTime, pkt: Packet, cx: &mut QdiscCx) {
        let fit = fits(self.core.cfg.limit, self.q.backlog(), pkt.size_bytes);
        self.core.offer(now, pkt, &mut self.q, fit, cx);
    }

    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet> {
        self.core.take(now, &mut self.q, cx)
    }

    fn backlog(&self) -> Backlog {
        self.q.backlog()
    }

    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        self.core.visit(visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqmlab_core::FlowId;

    fn pie(items: &[&str]) -> Pie {
        let pairs = Params::split_pairs(items).unwrap();
        let cfg = PieConfig::from_params(&Params::new("pie", PARAMS, &pairs).unwrap()).unwrap();
        Pie::new(cfg, UniformSource::seeded(1))
    }

    /// Sets the variables an update reads.
    fn set(p: &mut Pie, drop_prob: f64, qdelay_ms: u64, qdelay_old_ms: u64) {
        p.core.ctl.drop_prob = drop_prob;
        p.core.ctl.qdelay_ns = qdelay_ms * 1_000_000;
        p.core.ctl.qdelay_old_ns = qdelay_old_ms * 1_000_000;
        p.core.ctl.burst_allowance_ns = 0;
    }

    /// L4S mode without a CE threshold would pass ECT(1) packets unmarked: refused, for PIE and
    /// FQ-PIE alike, naming the parameter; with a threshold, or without L4S, accepted.
    #[test]
    fn l4s_needs_a_ce_threshold() {
        for kind in ["pie", "fq_pie"] {
            let table = crate::registry::Kind::from_name(kind).unwrap().params();
            let build = |items: &[&str]| {
                let pairs = Params::split_pairs(items).unwrap();
                crate::AnyConfig::from_params(&Params::new(kind, table, &pairs)?).map(|_| ())
            };
            let e = build(&["l4s=true"]).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("{kind}: parameter ce_threshold = off:"))
                    && e.contains("l4s=true needs a ce_threshold"),
                "{e}"
            );
            assert!(build(&["l4s=true", "ce_threshold=1ms"]).is_ok());
            assert!(build(&["ce_threshold=1ms"]).is_ok());
            assert!(build(&[]).is_ok());
        }
    }

    #[test]
    fn idle_queue_decays_drop_prob_by_0_98_per_update() {
        // RFC 8033 §4.2: qdelay = qdelay_old = 0: p = 0.125·(0 − 0.015) = −0.001875, scaled by
        // the table, added, then ×0.98.
        let mut p = pie(&[]);
        set(&mut p, 0.5, 0, 0);
        p.update();
        assert_eq!(p.drop_prob(), (0.5 - 0.001875) * 0.98);
        assert!((p.drop_prob() - 0.4881625).abs() < 1e-15);
        p.update();
        assert_eq!(p.drop_prob(), (0.4881625 - 0.001875) * 0.98);
        set(&mut p, 0.05, 0, 0); // the /2 row
        p.update();
        assert!((p.drop_prob() - 0.04808125).abs() < 1e-15); // (0.05 − 0.0009375)·0.98
                                                             // With alpha = 0 the decay is exactly geometric.
        let mut p = pie(&["alpha=0"]);
        set(&mut p, 0.5, 0, 0);
        let mut expect = 0.5;
        for _ in 0..10 {
            p.update();
            expect *= 0.98;
            assert_eq!(p.drop_prob(), expect);
        }
        assert!((p.drop_prob() - 0.5 * aqmlab_core::math::pow(0.98, 10.0)).abs() < 1e-15);
        // No decay unless both delays are 0.
        let mut p = pie(&[]);
        set(&mut p, 0.5, 0, 1);
        p.update();
        assert!((p.drop_prob() - (0.5 - 0.001875 - 0.00125)).abs() < 1e-15);
        // Reaching 0: below 1e-6 the step −0.001875/2048 takes it below 0, clamped.
        set(&mut p, 5e-7, 0, 0);
        p.update();
        assert_eq!(p.drop_prob(), 0.0);
    }

    #[test]
    fn idle_decay_runs_through_calls() {
        let mut p = pie(&["alpha=0"]);
        set(&mut p, 0.5, 0, 0);
        let mut cx = QdiscCx::new();
        // Updates are due at 15, 30, …, 150 ms; the empty dequeue at 150 ms + 1 ns runs all ten.
        assert!(p
            .dequeue(SimTime::from_nanos(150_000_001), &mut cx)
            .is_none());
        let mut expect = 0.5;
        for _ in 0..10 {
            expect *= 0.98;
        }
        assert_eq!(p.drop_prob(), expect);
    }

    /// Enqueues one 1000-B packet at 1 ms (before the update due at 15 ms, so no update runs);
    /// returns whether it was queued.
    fn offer_one(p: &mut Pie, id: u64) -> bool {
        let before = p.backlog().packets;
        let mut cx = QdiscCx::new();
        p.enqueue(
            SimTime::from_millis(1),
            Packet::new(id, 1000, FlowId(0)),
            &mut cx,
        );
        p.backlog().packets == before + 1
    }

    /// ns-3 3.37 `PieQueueDisc::DoEnqueue`'s `ActiveThreshold` (not RFC 8033): while inactive no
    /// arrival meets the early-drop test (no draw), however high `drop_prob`; an accepted arrival
    /// that finds `qdelay >= threshold` activates PIE afresh.
    #[test]
    fn active_threshold_gates_the_drop_test_and_activates_at_the_threshold() {
        let pairs = Params::split_pairs(&["active_threshold=10ms"]).unwrap();
        let cfg = PieConfig::from_params(&Params::new("pie", PARAMS, &pairs).unwrap()).unwrap();
        let draws = UniformSource::List {
            draws: std::sync::Arc::from(vec![0.0; 100]),
            next: 0,
        };
        let mut p = Pie::new(cfg, draws);
        assert!(!p.core.active());
        set(&mut p, 1.0, 9, 9);
        p.core.ctl.burst = Burst::In; // no allowance to grant: active, every arrival would drop
        p.core.accu_prob = 0.5;
        for id in 0..10 {
            assert!(offer_one(&mut p, id), "inactive: no early drop");
        }
        assert_eq!(p.core.uniforms.used(), 0, "no draw while inactive");
        assert!(!p.core.active());
        // Exactly at the threshold (ns-3: `m_qDelay >= m_activeThreshold`).
        p.core.ctl.qdelay_ns = 10_000_000;
        assert!(offer_one(&mut p, 10), "tested before activating");
        assert!(p.core.active());
        let c = p.core.ctl;
        assert_eq!((c.drop_prob, c.qdelay_old_ns), (0.0, 0));
        assert_eq!(c.burst_allowance_ns, 150_000_000);
        assert_eq!(p.core.accu_prob, 0.0);
        assert_eq!(c.burst, Burst::In, "the burst state is left alone");
        // Now arrivals are tested again: with the allowance used up and drop_prob 1, they drop.
        set(&mut p, 1.0, 20, 20);
        assert!(!offer_one(&mut p, 11));
        // Without the parameter PIE is always active.
        let mut p = pie(&[]);
        assert!(p.core.active());
        set(&mut p, 1.0, 9, 9);
        p.core.ctl.burst = Burst::In;
        for id in 0..3 {
            assert!(offer_one(&mut p, id)); // the 2-packet safeguard
        }
        assert!(!offer_one(&mut p, 3));
    }

    /// ns-3 deactivates at an accepted arrival when `drop_prob` is 0 and `qdelay_old` and
    /// `qdelay` have 0 whole milliseconds (`Time::GetMilliSeconds() == 0`): 0.999999 ms counts.
    #[test]
    fn active_threshold_deactivates_under_one_whole_millisecond() {
        for (qdelay_ns, qdelay_old_ns, drop_prob, stays) in [
            (999_999, 999_999, 0.0, false),
            (1_000_000, 0, 0.0, true),
            (0, 1_000_000, 0.0, true),
            (0, 0, 1e-9, true),
        ] {
            let mut p = pie(&["active_threshold=10ms"]);
            p.core.ctl.qdelay_ns = 10_000_000;
            assert!(offer_one(&mut p, 0));
            assert!(p.core.active());
            p.core.ctl.qdelay_ns = qdelay_ns;
            p.core.ctl.qdelay_old_ns = qdelay_old_ns;
            p.core.ctl.drop_prob = drop_prob;
            assert!(offer_one(&mut p, 1)); // within the allowance: no drop
            assert_eq!(
                p.core.active(),
                stays,
                "{qdelay_ns} {qdelay_old_ns} {drop_prob}"
            );
        }
    }

    /// Below 1 ms the arrival that activates PIE also deactivates it (the reset leaves
    /// `drop_prob` and `qdelay_old` at 0 and `qdelay` is under 1 ms), its state reset.
    #[test]
    fn a_sub_millisecond_threshold_activates_and_deactivates_at_once() {
        let mut p = pie(&["active_threshold=500us"]);
        set(&mut p, 0.3, 0, 5);
        p.core.ctl.qdelay_ns = 700_000;
        assert!(offer_one(&mut p, 0));
        assert!(!p.core.active());
        assert_eq!(p.core.ctl.drop_prob, 0.0);
        assert_eq!(p.core.ctl.qdelay_old_ns, 0);
        assert_eq!(p.burst_allowance(), SimDuration::from_millis(150));
    }

    #[test]
    fn ns3_holds_drop_prob_at_0_during_the_allowance_and_rfc_does_not() {
        for (variant, held) in [("ns3", true), ("rfc", false)] {
            let mut p = pie(&[&format!("variant={variant}")]);
            set(&mut p, 0.01, 100, 50);
            p.core.ctl.burst_allowance_ns = 30_000_000;
            p.update();
            assert_eq!(p.burst_allowance(), SimDuration::from_millis(15));
            if held {
                assert_eq!(p.drop_prob(), 0.0);
            } else {
                // 0.125·0.085 + 1.25·0.05 = 0.073125, drop_prob in [0.01, 0.1) → /2.
                assert!((p.drop_prob() - (0.01 + 0.0365625)).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn departure_rate_estimator_measures_dq_threshold_bytes() {
        let mut p = pie(&["estimator=dq_rate"]);
        let mut cx = QdiscCx::new();
        for id in 0..100 {
            p.enqueue(SimTime::ZERO, Packet::new(id, 1000, FlowId(0)), &mut cx);
        }
        // The measurement starts at the first departure (1 ms) with 99,000 B still queued and
        // ends when 16,384 B have been counted: 17 packets, at 17 ms.
        for k in 1..=17 {
            p.dequeue(SimTime::from_millis(k), &mut cx).unwrap();
        }
        assert_eq!(p.core.ctl.avg_dq_rate, 17_000.0 / 0.016);
        assert_eq!(
            p.qdelay(),
            SimDuration::ZERO,
            "no rate at the update at 15 ms"
        );
        // The update at 30 ms: 83,000 B queued / 1,062,500 B/s = 78.117647… ms.
        p.advance_to(SimTime::from_millis(31));
        assert_eq!(p.qdelay(), SimDuration::from_nanos(78_117_647));
    }
}
