//! RED: Random Early Detection (S. Floyd, V. Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993 — "FJ93" below), with the "gentle" variant
//! (S. Floyd, "Recommendation on using the gentle_ variant of RED", 2000), Adaptive RED
//! (S. Floyd, R. Gummadi, S. Shenker, "Adaptive RED: An Algorithm for Increasing the Robustness
//! of RED's Active Queue Management", 2001 — "ARED" below) and ECN marking (RFC 3168 §7).
//!
//! The per-packet arithmetic follows ns-2.35's `queue/red.cc` as ported to ns-3's
//! `RedQueueDisc`, operation for operation, so that with ns-3's uniform draws (`--uniforms`) every
//! decision agrees with ns-3 3.37 (see `vectors/README.md`). Defaults are ns-2.35's
//! (`tcl/lib/ns-default.tcl`, `Queue/RED`) except where [`PARAMS`] and `docs/models/red.md` say
//! otherwise.
//!
//! On every arrival (FJ93 §4, Fig. 2):
//! 1. the average queue `avg` is updated (FJ93 §6): `avg ← (1−w_q)^(m+1)·avg + w_q·q`, where `q`
//!    is the queue seen by the arrival (packets, or bytes in byte mode) and `m` is the number of
//!    mean-sized packets the link could have sent while the queue was idle (0 if it was not);
//! 2. with Adaptive RED, `max_p` is adapted at most once per `interval` (ARED §4);
//! 3. if `avg ≥ min_th` (and more than one packet or byte is queued, as in ns-2/ns-3): at
//!    `avg ≥ max_th` (`2·max_th` when gentle) the arrival is dropped ("forced"); otherwise it is
//!    dropped — or CE-marked with `ecn` — with probability `p_a` derived from `p_b` and `count`
//!    (FJ93 §7), except that the first arrival after `avg` crosses `min_th` only restarts `count`.
//!
//! Random draws come only from the [`UniformSource`] and are taken exactly when ns-3 takes them:
//! one per arrival that reaches the probabilistic test, whatever the probability.

use crate::contract::{Backlog, DropReason, MarkReason, QdiscCx, QueueDisc, Stage};
use crate::droptail::fits;
use crate::fifo::PacketFifo;
use crate::params::{ConfigError, ParamSpec, Params};
use crate::uniform::UniformSource;
use aqmlab_core::math;
use aqmlab_core::units::Size;
use aqmlab_core::{Bitrate, Ecn, Packet, SimDuration, SimTime};

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "the average queue avg (an EWMA), the count since the last drop (packets and bytes), whether avg was above min_th, the idle start time, p_b and p_a; with adaptive=true the current max_p and the time of its last change (FJ93 Fig. 2; ns-2 edv_)",
    per_flow: "none: one FIFO for all flows",
    per_packet: "at each arrival the EWMA update, a power (1−w_q)^(m+1) after an idle period (FJ93 §6), and one random draw when avg lies between the thresholds (FJ93 §7); the dequeue only notes when the queue goes idle",
    timers: "none: Adaptive RED's max_p update is checked at arrivals, at most once per interval (ARED §4)",
    spec: "Floyd & Jacobson 1993 (FJ93) §4-§7; gentle RED (Floyd 2000); Adaptive RED (Floyd, Gummadi & Shenker 2001, ARED) §4-§5; ns-2.35 queue/red.cc",
};

/// RED's parameters. Defaults are ns-2.35's (`Queue/RED` in `tcl/lib/ns-default.tcl`), except
/// `limit` (ns-2's `Queue limit_` is 50 packets), `mode` (ns-2.35 defaults to bytes) and the
/// link values `bandwidth`/`delay` that ns-2 reads from the link (a scenario fills both from its
/// link at set-up, ns-2.35 red.cc `initialize_params`); see `docs/models/red.md`.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::size("limit", "1000p", "buffer limit in packets (1000p) or bytes (1.5MB); arrivals beyond it are dropped (overlimit). ns-2's limit_ default is 50p"),
    ParamSpec::choice("mode", "packet", "packet|byte", "unit of avg, min_th and max_th: packets, or bytes (byte mode also scales the drop probability by size/mean_pkt_size and counts bytes; ns-2 bytes_+queue_in_bytes_, ns-2.35 default byte)"),
    ParamSpec::number("min_th", "auto", "minimum threshold, or auto (ns-2.35 thresh_ 0): max(5, target_delay*C/2) packets, C = bandwidth/(8*mean_pkt_size) pkt/s (x mean_pkt_size in byte mode)").gt(0.0).unit("packets, or bytes in byte mode").or("auto")
    .derived("auto: max(5, target_delay·C/2) packets, C = bandwidth/(8·mean_pkt_size) packets/s (× mean_pkt_size in byte mode), from the link rate (ARED §5; ns-2.35 red.cc initialize_params)"),
    ParamSpec::number("max_th", "auto", "maximum threshold, or auto (ns-2.35 maxthresh_ 0): 3*min_th; must be >= min_th").gt(0.0).unit("packets, or bytes in byte mode").or("auto")
    .derived("auto: 3·min_th (ARED §5; ns-2.35 red.cc)"),
    ParamSpec::number("w_q", "auto", "EWMA weight of the average queue, or auto (ns-2's special values 0, -1, -2): ns-2.35 q_weight_ -1, 1-exp(-1/(10*RTT*C)) with RTT = max(0.1s, 3*(delay+1/C)); with adaptive=true, ARED's 1-exp(-1/C)").gt(0.0).le(1.0).or("auto")
    .derived("auto: 1−exp(−1/(10·RTT·C)) with RTT = max(0.1 s, 3·(delay + 1/C)), from the link's rate and propagation delay; with adaptive=true 1−exp(−1/C) (ARED §5; ns-2.35 red.cc initialize_params)"),
    ParamSpec::number("max_p", "0.1", "drop probability at avg = max_th (ns-2 1/linterm_, linterm_ 10; FJ93 used 0.02); the initial value with adaptive=true").gt(0.0).le(1.0).unit("probability")
    .adapted("with adaptive=true, every interval: max_p += min(0.01, max_p/4) while avg is above the target band [min_th + 0.4·(max_th−min_th), max_th − 0.4·(max_th−min_th)] and max_p < top, max_p ×= 0.9 while below it and max_p > bottom (ARED §4; ns-2 updateMaxP)"),
    ParamSpec::boolean("gentle", "true", "gentle RED: the probability rises from max_p to 1 between max_th and 2*max_th, forced drops only above 2*max_th (ns-2.35 gentle_ true)"),
    ParamSpec::choice("gentle_slope", "current", "current|initial", "gentle RED with adaptive=true: the gentle segment rises from the current (adapted) max_p to 1 (current), or keeps the slope set from the initial max_p at reset, as ns-2.35 does (initial: red.cc reset v_c, v_d; avg just above max_th then gets about the initial max_p)"),
    ParamSpec::boolean("wait", "true", "ns-2/ns-3 drop spacing: no early drop until count*p_b >= 1, gaps between 1/p_b and 2/p_b (ns-2 wait_ true); false gives FJ93's p_b/(1-count*p_b)"),
    ParamSpec::boolean("adaptive", "false", "Adaptive RED (Floyd, Gummadi, Shenker 2001): every interval, max_p += min(0.01, max_p/4) above the target band, max_p *= 0.9 below it (ns-2 adaptive_)"),
    ParamSpec::boolean("ecn", "false", "CE-mark ECN-capable packets instead of dropping them early (ns-2 setbit_, ns-3 UseEcn); forced drops follow hard_drop, overlimit drops always drop"),
    ParamSpec::boolean("hard_drop", "true", "forced drops (avg above max_th, 2*max_th when gentle) drop ECN-capable packets too (ns-3 UseHardDrop, ns-2); false with ecn=true CE-marks them instead, a step marker with min_th = max_th and w_q = 1 (DCTCP)"),
    ParamSpec::bytes("mean_pkt_size", "500B", "mean packet size for the idle-time correction, byte-mode scaling and automatic values (ns-2 mean_pktsize_ 500)").within(1.0, u32::MAX as f64),
    ParamSpec::rate("bandwidth", "10Mbps", "link rate for the idle-time correction and automatic values (ns-2 reads it from the link): set it to the real link rate").gt(0.0)
    .derived("in a scenario, when not given: the link's rate (a schedule's first positive rate, a trace's mean rate), as ns-2 reads it from its link (ns-2.35 red.cc; aqmlab-sim scenario/links.rs)"),
    ParamSpec::duration("delay", "20ms", "link propagation delay, used only by the automatic w_q: in a scenario, set at set-up from the link's delay as ns-2 reads it (ns-2.35 red.cc initialize_params); aqmlab replay, with no link, uses ns-3's LinkDelay default 20ms")
    .derived("in a scenario, when not given: the link direction's delay (without its jitter), as ns-2 reads it from its link before computing w_q (ns-2.35 red.cc link command and initialize_params; aqmlab-sim scenario/links.rs)"),
    ParamSpec::duration("target_delay", "5ms", "target queueing delay for the automatic min_th (ns-2 targetdelay_ 0.005)").gt(0.0),
    ParamSpec::duration("interval", "500ms", "Adaptive RED: least time between max_p updates (ns-2 interval_ 0.5)").gt(0.0),
    ParamSpec::number("top", "0.5", "Adaptive RED: max_p is raised only while below top (ns-2 top_ 0.5)").gt(0.0).le(1.0).unit("probability"),
    ParamSpec::number("bottom", "auto", "Adaptive RED: max_p is lowered only while above bottom (<= top), or auto (ns-2 bottom_ 0): min(0.01, 80000bit/bandwidth)").within(0.0, 1.0).unit("probability").or("auto")
    .derived("auto: min(0.01, 80000 bit / bandwidth), from the link rate (ns-2.35 bottom_ 0)"),
    ParamSpec::boolean("ns1_compat", "false", "keep count across forced and overlimit drops (ns-2 ns1_compat_). NOT ns-3's Ns1Compat, whose sense is the opposite: true here behaves like ns-3's default Ns1Compat=false"),
];

/// What `avg`, `min_th` and `max_th` are measured in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedMode {
    /// Packets; every packet is equally likely to be dropped.
    Packets,
    /// Bytes; the drop probability is scaled by `size / mean_pkt_size` (FJ93 §4).
    Bytes,
}

/// Which `max_p` the gentle segment (`max_th ≤ avg < 2·max_th`) is drawn from; differs only
/// with `adaptive` and `gentle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GentleSlope {
    /// From the current, adapted `max_p`: the segment runs from `(max_th, max_p)` to
    /// `(2·max_th, 1)` (gentle RED, Floyd 2000, with ARED's `max_p`).
    Current,
    /// From the `max_p` at reset, kept while `max_p` adapts: ns-2.35 `red.cc` computes
    /// `v_c = (1 − cur_max_p)/th_max` and `v_d = 2·cur_max_p − 1` only in `REDQueue::reset`
    /// (`cur_max_p = 1/max_p_inv`), `updateMaxP` changes `cur_max_p` alone, and
    /// `calculate_p_new` gives `p = v_c·avg + v_d` for `avg ≥ th_max` whatever `cur_max_p` is.
    Initial,
}

/// Validated RED configuration, with every automatic value resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct RedConfig {
    /// Buffer limit.
    pub limit: Size,
    /// Unit of the average queue and the thresholds.
    pub mode: RedMode,
    /// Minimum threshold (packets or bytes).
    pub min_th: f64,
    /// Maximum threshold (packets or bytes), `>= min_th`.
    pub max_th: f64,
    /// EWMA weight, in (0, 1].
    pub w_q: f64,
    /// Drop probability at `max_th` (the initial value with Adaptive RED).
    pub max_p: f64,
    /// Gentle RED.
    pub gentle: bool,
    /// Where the gentle segment's slope comes from when `max_p` adapts.
    pub gentle_slope: GentleSlope,
    /// ns-2's `wait_` drop spacing.
    pub wait: bool,
    /// Adaptive RED's `max_p` adaptation.
    pub adaptive: bool,
    /// Mark ECN-capable packets instead of dropping them early.
    pub ecn: bool,
    /// Forced drops drop ECN-capable packets too (ns-3 `UseHardDrop`); `false` with `ecn`
    /// marks them.
    pub hard_drop: bool,
    /// Mean packet size in bytes (> 0).
    pub mean_pkt_size: u32,
    /// Link rate (> 0).
    pub bandwidth: Bitrate,
    /// Adaptive RED update interval.
    pub interval: SimDuration,
    /// Adaptive RED: upper bound for raising `max_p`.
    pub top: f64,
    /// Adaptive RED: lower bound for lowering `max_p`.
    pub bottom: f64,
    /// Keep `count` across forced and overlimit drops.
    pub ns1_compat: bool,
}

/// A duration in seconds, correctly rounded.
fn secs(d: SimDuration) -> f64 {
    d.as_nanos() as f64 / 1e9
}

impl RedConfig {
    /// Reads and checks the parameters and resolves the automatic values (ns-2.35
    /// `REDQueue::initialize_params`; ARED §5 "setting the parameters").
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        let limit = p.size("limit");
        let mode = [RedMode::Packets, RedMode::Bytes][p.choice("mode")];
        let mean_pkt_size = p.bytes("mean_pkt_size") as u32;
        let bandwidth = p.bitrate("bandwidth");
        let delay = p.duration("delay");
        let target_delay = p.duration("target_delay");
        let interval = p.duration("interval");
        let adaptive = p.bool("adaptive");
        // ns-2's "packet time constant": mean-sized packets the link sends per second.
        let ptc = bandwidth.as_bps() as f64 / (8.0 * mean_pkt_size as f64);

        // ns-2.35 initialize_params(): thresh_ 0 → max(5, targetdelay·ptc/2) packets, converted
        // to bytes with mean_pktsize_ when the queue is in bytes; maxthresh_ 0 → 3·thresh_.
        let min_th = p.opt_f64("min_th").unwrap_or_else(|| {
            let target_queue = secs(target_delay) * ptc;
            let pkts = if 5.0 < target_queue / 2.0 {
                target_queue / 2.0
            } else {
                5.0
            };
            match mode {
                RedMode::Packets => pkts,
                RedMode::Bytes => pkts * mean_pkt_size as f64,
            }
        });
        let max_th = p.opt_f64("max_th").unwrap_or(3.0 * min_th);
        if min_th > max_th {
            return Err(p.invalid(
                "min_th",
                format!("expected min_th <= max_th, got min_th {min_th} > max_th {max_th}"),
            ));
        }

        let w_q = p.opt_f64("w_q").unwrap_or_else(|| {
            if adaptive {
                // ARED §5: a time constant of one second, w_q = 1 − exp(−1/C)
                // (ns-2 q_weight_ 0, ns-3 ARED).
                1.0 - math::exp(-1.0 / ptc)
            } else {
                // ns-2.35 q_weight_ -1: RTT = max(0.1 s, 3·(delay + 1/C)), time constant 10 RTTs.
                let rtt = (3.0 * (secs(delay) + 1.0 / ptc)).max(0.1);
                1.0 - math::exp(-1.0 / (10.0 * rtt * ptc))
            }
        });
        let max_p = p.f64("max_p");
        let top = p.f64("top");
        // ns-2.35: at most 1/W, W the window of a 100 ms-RTT flow of 1000-byte packets.
        let bottom = p
            .opt_f64("bottom")
            .unwrap_or((80_000.0 / bandwidth.as_bps() as f64).min(0.01));
        if bottom > top {
            return Err(p.invalid(
                "bottom",
                format!("expected bottom <= top, got bottom {bottom} > top {top}"),
            ));
        }

        Ok(RedConfig {
            limit,
            mode,
            min_th,
            max_th,
            w_q,
            max_p,
            gentle: p.bool("gentle"),
            gentle_slope: [GentleSlope::Current, GentleSlope::Initial][p.choice("gentle_slope")],
            wait: p.bool("wait"),
            adaptive,
            ecn: p.bool("ecn"),
            hard_drop: p.bool("hard_drop"),
            mean_pkt_size,
            bandwidth,
            interval,
            top,
            bottom,
            ns1_compat: p.bool("ns1_compat"),
        })
    }
}

/// ECT or already CE: a packet RED may mark instead of dropping.
#[inline]
fn ecn_capable(pkt: &Packet) -> bool {
    pkt.ecn.is_ect() || pkt.ecn == Ecn::Ce
}

/// The outcome of RED's test for one arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Accept,
    Early,
    Forced,
}

/// The RED discipline.
#[derive(Debug)]
pub struct Red {
    cfg: RedConfig,
    uniforms: UniformSource,
    q: PacketFifo,
    // Constants derived from the configuration (ns-2 `edv_.v_a` … `v_d`).
    one_minus_w: f64,
    v_a: f64,
    v_b: f64,
    v_c: f64,
    v_d: f64,
    // State (FJ93 Fig. 2; ns-2 `edv_`).
    avg: f64,
    count: u64,
    count_bytes: u64,
    old: bool,
    idle: bool,
    idle_since_ns: u64,
    cur_max_p: f64,
    last_set_ns: u64,
    p_b: f64,
    p_a: f64,
}

impl Red {
    /// A RED queue drawing its random numbers from `uniforms`.
    pub fn new(cfg: RedConfig, uniforms: UniformSource) -> Self {
        let cap = crate::fifo::capacity_for(cfg.limit);
        // As ns-2: equal thresholds would divide by zero; the linear region is then empty.
        let mut th_diff = cfg.max_th - cfg.min_th;
        if th_diff == 0.0 {
            th_diff = 1.0;
        }
        let mut red = Red {
            one_minus_w: 1.0 - cfg.w_q,
            v_a: 1.0 / th_diff,
            v_b: -cfg.min_th / th_diff,
            v_c: 0.0,
            v_d: 0.0,
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            // The queue starts idle since time 0 (ns-2/ns-3 reset()).
            idle: true,
            idle_since_ns: 0,
            cur_max_p: cfg.max_p,
            last_set_ns: 0,
            p_b: 0.0,
            p_a: 0.0,
            q: PacketFifo::with_capacity(cap),
            uniforms,
            cfg,
        };
        red.set_gentle_slope();
        red
    }

    /// The random source.
    pub fn uniforms(&self) -> &UniformSource {
        &self.uniforms
    }

    /// The configuration in force (automatic values resolved).
    pub fn config(&self) -> &RedConfig {
        &self.cfg
    }

    /// The average queue (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    /// The current `max_p` (changes only with Adaptive RED).
    pub fn max_p(&self) -> f64 {
        self.cur_max_p
    }

    /// Gentle RED (Floyd 2000): `p_b = max_p + (1 − max_p)·(avg − max_th)/max_th` for
    /// `max_th ≤ avg < 2·max_th`, written as `v_c·avg + v_d` as in ns-2.
    fn set_gentle_slope(&mut self) {
        if self.cfg.gentle && self.cfg.max_th > 0.0 {
            self.v_c = (1.0 - self.cur_max_p) / self.cfg.max_th;
            self.v_d = 2.0 * self.cur_max_p - 1.0;
        }
    }

    /// The queue as RED measures it: packets, or bytes in byte mode.
    #[inline]
    fn qlen(&self) -> f64 {
        match self.cfg.mode {
            RedMode::Packets => self.q.len() as f64,
            RedMode::Bytes => self.q.bytes() as f64,
        }
    }

    /// FJ93 §4/§11: while the queue was idle, the link could have sent
    /// `m = idle_time · bandwidth / (8 · mean_pkt_size)` mean-sized packets; the average decays as
    /// if `m` packets had arrived to an empty queue. ns-2/ns-3 truncate `m` to an integer; we
    /// compute it exactly in integers (ns-3 goes through floating-point seconds, which can differ
    /// only when `m` is within rounding error of an integer).
    #[inline]
    fn idle_arrivals(&self, now: SimTime) -> u64 {
        let idle_ns = now.as_nanos().saturating_sub(self.idle_since_ns) as u128;
        let den = 8 * 1_000_000_000u128 * self.cfg.mean_pkt_size.max(1) as u128;
        let m = idle_ns * self.cfg.bandwidth.as_bps() as u128 / den;
        m.min(u64::MAX as u128) as u64
    }

    /// ARED §4 (as ns-2 `updateMaxP`): keep `avg` in the band
    /// `[min_th + 0.4·(max_th − min_th), max_th − 0.4·(max_th − min_th)]` by additive increase
    /// (`α = min(0.01, max_p/4)`, while `max_p < top`) and multiplicative decrease (`β = 0.9`,
    /// while `max_p > bottom`) of `max_p`.
    fn update_max_p(&mut self, new_avg: f64, now_ns: u64) {
        let part = 0.4 * (self.cfg.max_th - self.cfg.min_th);
        if new_avg < self.cfg.min_th + part && self.cur_max_p > self.cfg.bottom {
            self.cur_max_p *= 0.9;
            self.last_set_ns = now_ns;
        } else if new_avg > self.cfg.max_th - part && self.cfg.top > self.cur_max_p {
            let mut alpha = 0.01;
            if alpha > 0.25 * self.cur_max_p {
                alpha = 0.25 * self.cur_max_p;
            }
            self.cur_max_p += alpha;
            self.last_set_ns = now_ns;
        } else {
            return;
        }
        // ARED's gentle segment starts at the current max_p, so it is recomputed; ns-2.35 (and
        // ns-3) keep the slope of the initial max_p (red.cc reset), gentle_slope = initial.
        if self.cfg.gentle_slope == GentleSlope::Current {
            self.set_gentle_slope();
        }
    }

    /// `p_b` (FJ93 §4; gentle: Floyd 2000), capped at 1.
    #[inline]
    fn p_b(&self) -> f64 {
        let avg = self.avg;
        let mut p = if avg >= self.cfg.max_th {
            if self.cfg.gentle {
                self.v_c * avg + self.v_d
            } else {
                1.0
            }
        } else {
            (self.v_a * avg + self.v_b) * self.cur_max_p
        };
        if p > 1.0 {
            p = 1.0;
        }
        p
    }

    /// `p_a` from `p_b` and `count` (FJ93 §7, ns-2 `modify_p`). In byte mode `count` is in
    /// mean-sized packets (`count_bytes / mean_pkt_size`, integer division as in ns-2) and the
    /// result is scaled by `size / mean_pkt_size` (FJ93 §4's byte mode, applied after the
    /// spacing correction as ns-2 and ns-3 do).
    #[inline]
    fn p_a(&self, p_b: f64, size: u32) -> f64 {
        let bytes = self.cfg.mode == RedMode::Bytes;
        let count = if bytes {
            (self.count_bytes / self.cfg.mean_pkt_size.max(1) as u64) as f64
        } else {
            self.count as f64
        };
        let cp = count * p_b;
        let mut p = if self.cfg.wait {
            // ns-2 wait_: no drop until count·p_b ≥ 1, then p_b/(2 − count·p_b), certain at 2.
            if cp < 1.0 {
                0.0
            } else if cp < 2.0 {
                p_b / (2.0 - cp)
            } else {
                1.0
            }
        } else if cp < 1.0 {
            // FJ93 §7: p_a = p_b/(1 − count·p_b): gaps uniform on 1..1/p_b.
            p_b / (1.0 - cp)
        } else {
            1.0
        };
        if bytes && p < 1.0 {
            p = p * size as f64 / self.cfg.mean_pkt_size.max(1) as f64;
        }
        if p > 1.0 {
            p = 1.0;
        }
        p
    }

    /// The probabilistic test (ns-2 `drop_early`): always takes one draw.
    #[inline]
    fn drop_early(&mut self, size: u32) -> bool {
        self.p_b = self.p_b();
        self.p_a = self.p_a(self.p_b, size);
        let u = self.uniforms.next_f64();
        // `p_a > 0`: a draw of exactly 0 must not drop at probability 0 (ns-3's generator never
        // returns 0, so this changes no ns-3 decision).
        if u <= self.p_a && self.p_a > 0.0 {
            self.count = 0;
            self.count_bytes = 0;
            true
        } else {
            false
        }
    }

    /// After a forced or overlimit drop, ns-2 restarts `count` (FJ93 Fig. 2: `count ← 0`) unless
    /// `ns1_compat_`.
    #[inline]
    fn forced_reset(&mut self) {
        if !self.cfg.ns1_compat {
            self.count = 0;
            self.count_bytes = 0;
        }
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, now: SimTime, mut pkt: Packet, cx: &mut QdiscCx) {
        let now_ns = now.as_nanos();
        let q = self.qlen();

        // FJ93 §6 / ns-2 estimator(): avg ← avg·(1−w_q)^(m+1) + w_q·q, with m = 0 unless the
        // queue was idle. pow only when m > 0 (pow(x, 1) = x exactly, so skipping it is
        // bit-identical to ns-3's pow(1 − w_q, m + 1)).
        let m = if self.idle {
            self.idle = false;
            self.idle_arrivals(now)
        } else {
            0
        };
        let mut avg = if m == 0 {
            self.avg * self.one_minus_w
        } else {
            self.avg * math::pow(self.one_minus_w, m as f64 + 1.0)
        };
        avg += self.cfg.w_q * q;
        // ARED §4: adapt max_p at most once per interval, checked on arrivals (as ns-2/ns-3).
        if self.cfg.adaptive {
            let due = self
                .last_set_ns
                .saturating_add(self.cfg.interval.as_nanos());
            if now_ns > due {
                self.update_max_p(avg, now_ns);
            }
        }
        self.avg = avg;

        // count: arrivals since the last drop (FJ93 §7); count_bytes for byte mode.
        self.count += 1;
        self.count_bytes += pkt.size_bytes as u64;

        let mut verdict = Verdict::Accept;
        if avg >= self.cfg.min_th && q > 1.0 {
            let forced_at = if self.cfg.gentle {
                2.0 * self.cfg.max_th
            } else {
                self.cfg.max_th
            };
            if avg >= forced_at {
                verdict = Verdict::Forced;
            } else if !self.old {
                // avg has just crossed min_th (or the queue was nearly empty): restart count,
                // do not drop (ns-2 `edv_.old`).
                self.count = 1;
                self.count_bytes = pkt.size_bytes as u64;
                self.old = true;
            } else if self.drop_early(pkt.size_bytes) {
                verdict = Verdict::Early;
            }
        } else {
            self.p_b = 0.0;
            self.p_a = 0.0;
            self.old = false;
        }

        match verdict {
            // Forced drops drop even ECN-capable packets unless hard_drop is off (ns-3 3.37
            // RedQueueDisc: `UseHardDrop` true by default; ns-2 always). With it off, an
            // ECN-capable arrival is marked and queued like an early mark (RFC 3168 §7 leaves
            // the choice to the router), and count is kept, as ns-3 does.
            Verdict::Forced if self.cfg.hard_drop || !self.cfg.ecn || !ecn_capable(&pkt) => {
                cx.drop(pkt, Stage::Enqueue, DropReason::RedForced);
                self.forced_reset();
                return;
            }
            Verdict::Early if !(self.cfg.ecn && ecn_capable(&pkt)) => {
                cx.drop(pkt, Stage::Enqueue, DropReason::RedEarly);
                return;
            }
            _ => {}
        }
        if !fits(self.cfg.limit, self.q.backlog(), pkt.size_bytes) {
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
            self.forced_reset();
            return;
        }
        // RFC 3168 §5/§7: an early "drop" of an ECN-capable packet becomes a CE mark; a packet
        // already CE carries the signal and is queued unchanged (as ns-3 and Linux do).
        if pkt.ecn.is_ect() {
            match verdict {
                Verdict::Early => cx.mark(&mut pkt, MarkReason::RedEarly),
                Verdict::Forced => cx.mark(&mut pkt, MarkReason::RedForced),
                Verdict::Accept => {}
            }
        }
        self.q.push_back(pkt);
    }

    fn dequeue(&mut self, now: SimTime, _cx: &mut QdiscCx) -> Option<Packet> {
        match self.q.pop_front() {
            Some(p) => {
                self.idle = false;
                Some(p)
            }
            None => {
                // The idle period starts when the link first finds the queue empty (ns-2
                // deque(), FJ93 Fig. 2 "q_time ← time"); further polls of the idle queue do not
                // move its start.
                if !self.idle {
                    self.idle = true;
                    self.idle_since_ns = now.as_nanos();
                }
                None
            }
        }
    }

    fn backlog(&self) -> Backlog {
        self.q.backlog()
    }

    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("avg", self.avg);
        visit("count", self.count as f64);
        visit("p_b", self.p_b);
        visit("p_a", self.p_a);
        visit("max_p", self.cur_max_p);
        visit("idle", if self.idle { 1.0 } else { 0.0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::QdiscEvent;

    fn cfg(items: &[&str]) -> Result<RedConfig, ConfigError> {
        let p = Params::new("red", PARAMS, &Params::split_pairs(items)?)?;
        RedConfig::from_params(&p)
    }

    #[test]
    fn defaults_resolve_ns2_automatic_values() {
        let c = cfg(&[]).unwrap();
        // C = 10 Mb/s / (8·500 B) = 2500 pkt/s; target queue 5 ms · 2500 = 12.5 → min_th 6.25.
        assert_eq!(c.min_th, 6.25);
        assert_eq!(c.max_th, 18.75);
        // RTT = max(0.1, 3·(0.02 + 1/2500)) = 0.1 → w_q = 1 − exp(−1/(10·0.1·2500)).
        assert_eq!(c.w_q, 1.0 - math::exp(-1.0f64 / 2500.0));
        assert!((c.w_q - 3.9992e-4).abs() < 1e-8);
        assert_eq!(c.max_p, 0.1);
        assert!(c.gentle && c.wait && !c.adaptive && !c.ecn && !c.ns1_compat && c.hard_drop);
        assert_eq!(c.mode, RedMode::Packets);
        assert_eq!(c.bottom, 0.008); // 80000 / 10^7
    }

    #[test]
    fn adaptive_and_byte_mode_automatic_values() {
        let c = cfg(&["adaptive=true", "mode=byte", "bandwidth=100Mbps"]).unwrap();
        // C = 25000 pkt/s: min_th = 62.5 packets = 31250 bytes.
        assert_eq!(c.min_th, 31_250.0);
        assert_eq!(c.max_th, 93_750.0);
        assert_eq!(c.w_q, 1.0 - math::exp(-1.0f64 / 25_000.0));
        let c = cfg(&["min_th=7"]).unwrap();
        assert_eq!((c.min_th, c.max_th), (7.0, 21.0));
    }

    #[test]
    fn bad_values_name_the_parameter_and_what_is_expected() {
        let e = |items: &[&str]| cfg(items).unwrap_err().to_string();
        assert_eq!(
            e(&["min_th=20", "max_th=10"]),
            "red: parameter min_th = 20: expected min_th <= max_th, got min_th 20 > max_th 10"
        );
        assert_eq!(
            e(&["max_p=0"]),
            "red: parameter max_p = 0: expected a number in (0, 1] (probability)"
        );
        assert!(e(&["max_p=1.5"])
            .starts_with("red: parameter max_p = 1.5: expected a number in (0, 1]"));
        assert!(e(&["w_q=0"])
            .starts_with("red: parameter w_q = 0: expected a number in (0, 1], or auto"));
        assert!(e(&["w_q=-1"])
            .starts_with("red: parameter w_q = -1: expected a number in (0, 1], or auto"));
        assert!(e(&["w_q=1.01"]).starts_with("red: parameter w_q = 1.01:"));
        assert_eq!(
            e(&["bandwidth=0Mbps"]),
            "red: parameter bandwidth = 0Mbps: expected a rate > 0"
        );
        assert_eq!(
            e(&["min_th=0"]),
            "red: parameter min_th = 0: expected a number > 0 (packets, or bytes in byte mode), or auto"
        );
        assert_eq!(
            e(&["mode=byte", "max_th=-3"]),
            "red: parameter max_th = -3: expected a number > 0 (packets, or bytes in byte mode), or auto"
        );
        assert!(e(&["mean_pkt_size=0"]).starts_with("red: parameter mean_pkt_size = 0:"));
        assert!(e(&["mode=bytes"])
            .starts_with("red: parameter mode = bytes: expected one of packet, byte"));
        assert!(e(&["min_th=five"]).starts_with("red: parameter min_th = five: expected a number"));
        assert!(e(&["limit=0p"]).starts_with("red: parameter limit = 0p:"));
        assert!(e(&["interval=0s"])
            .starts_with("red: parameter interval = 0s: expected a duration > 0"));
        assert!(e(&["top=0"]).starts_with("red: parameter top = 0: expected a number in (0, 1]"));
        assert!(
            e(&["bottom=0.6"]).starts_with("red: parameter bottom = 0.6: expected bottom <= top")
        );
        assert!(e(&["gentle=maybe"])
            .starts_with("red: parameter gentle = maybe: expected true or false"));
    }

    #[test]
    fn equal_thresholds_do_not_divide_by_zero() {
        let c = cfg(&["min_th=5", "max_th=5", "w_q=1", "gentle=false"]).unwrap();
        let mut r = Red::new(c, UniformSource::seeded(1));
        let mut cx = QdiscCx::new();
        for i in 0..20 {
            r.enqueue(
                SimTime::ZERO,
                Packet::new(i, 100, aqmlab_core::FlowId(0)),
                &mut cx,
            );
        }
        // Queue grows to 5, then every arrival sees avg = 5 ≥ max_th: forced.
        assert_eq!(r.backlog().packets, 5);
        assert!(r.avg().is_finite());
    }

    /// 20 arrivals at once through a step marker at 5 packets (min_th = max_th = 5, w_q = 1,
    /// not gentle): (queued, forced drops, forced marks).
    fn step(items: &[&str], ecn: Ecn) -> (u32, usize, usize) {
        let mut all = vec!["min_th=5", "max_th=5", "w_q=1", "gentle=false"];
        all.extend_from_slice(items);
        let mut r = Red::new(cfg(&all).unwrap(), UniformSource::seeded(1));
        let mut cx = QdiscCx::new();
        for i in 0..20 {
            let mut p = Packet::new(i, 100, aqmlab_core::FlowId(0));
            p.ecn = ecn;
            r.enqueue(SimTime::ZERO, p, &mut cx);
        }
        let ev = cx.events();
        let drops = ev
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    QdiscEvent::Dropped {
                        reason: DropReason::RedForced,
                        ..
                    }
                )
            })
            .count();
        let marks = ev
            .iter()
            .filter(|e| {
                matches!(e, QdiscEvent::Marked { pkt, reason: MarkReason::RedForced } if pkt.ecn == Ecn::Ce)
            })
            .count();
        (r.backlog().packets, drops, marks)
    }

    #[test]
    fn hard_drop_false_marks_ecn_capable_packets_above_max_th() {
        // Arrival i sees a queue of i packets: i = 5..19 are forced (avg = i >= max_th = 5).
        assert_eq!(
            step(&["ecn=true", "hard_drop=false"], Ecn::Ect0),
            (20, 0, 15)
        );
        // ns-3's default UseHardDrop (and ns-2): forced arrivals are dropped, ECT or not.
        assert_eq!(step(&["ecn=true"], Ecn::Ect0), (5, 15, 0));
        // Not ECN-capable, or ECN off: dropped whatever hard_drop says.
        assert_eq!(
            step(&["ecn=true", "hard_drop=false"], Ecn::NotEct),
            (5, 15, 0)
        );
        assert_eq!(step(&["hard_drop=false"], Ecn::Ect0), (5, 15, 0));
    }

    /// Adaptive RED driven from max_p 0.1 to its cap 0.5 (thresholds 5 and 15 packets), then
    /// p_b at avg = 1.5·max_th = 22.5: the gentle segment from the current max_p gives
    /// 0.5 + 0.5·0.5 = 0.75; ns-2.35's slope from the initial max_p (red.cc reset: v_c = 0.9/15,
    /// v_d = −0.8) gives 0.06·22.5 − 0.8 = 0.55, and 0.1 just above max_th.
    fn gentle_p_b_after_adapting(slope: &str) -> (f64, f64, f64) {
        let items = ["min_th=5", "max_th=15", "adaptive=true", slope];
        let mut r = Red::new(cfg(&items).unwrap(), UniformSource::seeded(1));
        assert_eq!(r.max_p(), 0.1);
        let mut steps = 0;
        while r.max_p() < r.cfg.top {
            steps += 1;
            r.update_max_p(20.0, steps * 1_000_000_000);
        }
        r.avg = 22.5;
        let mid = r.p_b();
        r.avg = 15.0;
        (r.max_p(), mid, r.p_b())
    }

    #[test]
    fn gentle_slope_current_or_initial_max_p() {
        assert_eq!(cfg(&[]).unwrap().gentle_slope, GentleSlope::Current);
        let (mp, cur_mid, cur_edge) = gentle_p_b_after_adapting("gentle_slope=current");
        let (mp2, ini_mid, ini_edge) = gentle_p_b_after_adapting("gentle_slope=initial");
        assert_eq!(mp, mp2);
        assert!((mp - 0.5).abs() < 1e-12, "max_p {mp}");
        // current: (1 − max_p)/15·avg + 2·max_p − 1.
        assert!((cur_mid - 0.75).abs() < 1e-12, "{cur_mid}");
        assert!((cur_edge - 0.5).abs() < 1e-12, "{cur_edge}");
        // initial (ns-2.35): (1 − 0.1)/15·avg + 2·0.1 − 1, whatever max_p is now.
        assert!((ini_mid - 0.55).abs() < 1e-12, "{ini_mid}");
        assert!((ini_edge - 0.1).abs() < 1e-12, "{ini_edge}");
        // Without adaptation the two are the same.
        let fixed = |slope: &str| {
            let mut r = Red::new(
                cfg(&["min_th=5", "max_th=15", slope]).unwrap(),
                UniformSource::seeded(1),
            );
            r.avg = 22.5;
            r.p_b()
        };
        assert_eq!(fixed("gentle_slope=current"), fixed("gentle_slope=initial"));
        assert!(cfg(&["gentle_slope=adapted"])
            .unwrap_err()
            .to_string()
            .starts_with("red: parameter gentle_slope = adapted: expected"));
    }
}
