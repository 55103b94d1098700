//! CoDel, Controlled Delay (RFC 8289): a FIFO whose head is dropped when the minimum sojourn has
//! stayed above `target` for an `interval`, at a rate that rises as `interval/sqrt(count)`.
//!
//! The control loop lives in [`control`] and is shared with FQ-CoDel and LSTF-CoDel. `variant`
//! picks the arithmetic: `rfc` (exact square root, nanosecond time, RFC 8289 §5), `linux`
//! (sch_codel's 1024-ns units and Newton-step reciprocal square root) or `ns3` (ns-3 3.37). See
//! `docs/models/codel.md` for the differences and why they matter.

pub mod control;
pub mod linux_compat;

use crate::contract::{Backlog, DropReason, QdiscCx, QueueDisc, Stage};
use crate::droptail::fits;
use crate::fifo::PacketFifo;
use crate::params::{ConfigError, ParamSpec, Params};
use aqmlab_core::units::Size;
use aqmlab_core::{Packet, SimDuration, SimTime};
pub use control::{CodelParams, CodelQueue, CodelState, L4sLoop, Variant};

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "dropping, count, lastcount, drop_next, first_above_time and the last sojourn; with variant=linux or ns3, 1/sqrt(count) in Q0.16 (RFC 8289 §5.2)",
    per_flow: "none: one FIFO for all flows",
    per_packet: "a timestamp at enqueue; at dequeue the sojourn compared with target and, while dropping, the control law interval/sqrt(count) (an exact square root with rfc, a Newton step with linux and ns3); no random draw (RFC 8289 §4-§5)",
    timers: "none: drop_next is compared at dequeue (RFC 8289 §5.5)",
    spec: "RFC 8289 §4-§5; Linux sch_codel; ns-3 CoDelQueueDisc",
};

/// CoDel's parameters.
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::size("limit", "1000p", "buffer limit (tail drop beyond it), packets or bytes"),
    ParamSpec::duration("target", "5ms", "acceptable standing queue delay (RFC 8289 TARGET)").gt(0.0),
    ParamSpec::duration("interval", "100ms", "window for the minimum sojourn, ~ worst RTT (RFC 8289 INTERVAL)").gt(0.0),
    ParamSpec::bytes(
        "mtu",
        "auto",
        "never drop when at most this many bytes remain; auto = in a scenario, the largest packet on the link (+14 B with linux); else 1500 (rfc, ns3) or 1514 (linux)",
    )
    .gt(0.0)
    .or("auto")
    .derived("auto: in a scenario, the largest packet on the link (+14 B with variant=linux, Linux psched_mtu); else 1500 (rfc, ns3) or 1514 (linux) (RFC 8289 §5.4)"),
    ParamSpec::boolean("ecn", "false", "CE-mark ECN-capable packets instead of dropping them"),
    ParamSpec::duration(
        "ce_threshold",
        "off",
        "CE-mark any packet whose sojourn exceeds this (Linux ce_threshold); off by default",
    )
    .or("off|none"),
    ParamSpec::choice("variant", "rfc", "rfc|linux|ns3", "arithmetic: RFC 8289 exact, Linux sch_codel, or ns-3 3.37"),
    ParamSpec::boolean(
        "l4s",
        "false",
        "L4S mode (ns-3 UseL4s): an ECT(1) or CE head is sent at once, CE-marked if its sojourn exceeds ce_threshold, without CoDel's control law; classic ce_threshold marking off",
    ),
];

/// Validated CoDel configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct CodelConfig {
    /// Buffer limit.
    pub limit: Size,
    /// Control-law parameters.
    pub params: CodelParams,
}

/// Reads the CoDel parameters common to CoDel, FQ-CoDel and LSTF-CoDel (`target`, `interval`,
/// `mtu`, `ecn`, `ce_threshold`, `variant`, and `l4s` where the table has it) and checks them.
/// CoDel's configuration is these and its `limit` ([`crate::AnyConfig::from_params`] puts them
/// together: a typed value given with `--set` is handed from the checked table to
/// [`CodelParams`] here, in one step).
pub fn codel_params_from(p: &Params) -> Result<CodelParams, ConfigError> {
    let variant = Variant::from_index(p.choice("variant"));
    let (target, interval) = (p.duration("target"), p.duration("interval"));
    if target >= interval {
        return Err(p.invalid("target", format!("expected target < interval ({interval})")));
    }
    if variant != Variant::Rfc && (target.as_nanos() >> 10 == 0) {
        return Err(p.invalid(
            "target",
            "expected at least 1024ns with the linux and ns3 variants (their time unit)",
        ));
    }
    let mtu = p.opt_bytes("mtu").unwrap_or(if variant == Variant::Linux {
        1514
    } else {
        1500
    });
    let ce_threshold = p.opt_duration("ce_threshold");
    let mut params = CodelParams::new(variant, target, interval, mtu, p.bool("ecn"), ce_threshold);
    if p.has_param("l4s") {
        params.l4s = p.bool("l4s");
    }
    Ok(params)
}

impl CodelConfig {
    /// RFC 8289 defaults with the given limit and variant.
    pub fn with_defaults(limit: Size, variant: Variant) -> Self {
        CodelConfig {
            limit,
            params: CodelParams::new(
                variant,
                SimDuration::from_millis(5),
                SimDuration::from_millis(100),
                if variant == Variant::Linux {
                    1514
                } else {
                    1500
                },
                false,
                None,
            ),
        }
    }
}

impl CodelQueue for PacketFifo {
    #[inline]
    fn pop(&mut self, _dropping: bool) -> Option<Packet> {
        self.pop_front()
    }
    #[inline]
    fn bytes_for_mtu_test(&self) -> u64 {
        self.bytes()
    }
}

/// The CoDel discipline: a FIFO under [`CodelState`]'s control.
#[derive(Clone, Debug)]
pub struct Codel {
    limit: Size,
    params: CodelParams,
    state: CodelState,
    q: PacketFifo,
}

impl Codel {
    /// A CoDel queue.
    pub fn new(cfg: CodelConfig) -> Self {
        let cap = crate::fifo::capacity_for(cfg.limit);
        Codel {
            limit: cfg.limit,
            params: cfg.params,
            state: CodelState::new(),
            q: PacketFifo::with_capacity(cap),
        }
    }
    /// The control-loop state.
    pub fn state(&self) -> &CodelState {
        &self.state
    }
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, _now: SimTime, pkt: Packet, cx: &mut QdiscCx) {
        // RFC 8289 §5.4: CoDel itself never drops on arrival; only the buffer limit does.
        if fits(self.limit, self.q.backlog(), pkt.size_bytes) {
            self.q.push_back(pkt);
        } else {
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
        }
    }

    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet> {
        self.state.dequeue(now, &self.params, &mut self.q, cx)
    }

    fn backlog(&self) -> Backlog {
        self.q.backlog()
    }

    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        self.state.visit(self.params.variant, visit);
    }
}
