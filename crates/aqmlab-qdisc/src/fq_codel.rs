//! FQ-CoDel, Flow Queue CoDel (RFC 8290): packets are sorted into `flows` queues by flow, the
//! queues are served by deficit round robin with a byte `quantum`, newly active queues are served
//! before old ones (the sparse-flow optimisation), and each queue is controlled by its own CoDel.
//! The scheduler is [`crate::fq`]'s, shared with FQ-PIE and FQ-COBALT; this module supplies the
//! per-flow CoDel ([`CodelFlow`]) and FQ-CoDel's parameter table. In summary:
//!
//! * Classification (RFC 8290 §4.1): the packet's [`aqmlab_core::FlowId`] is the caller's flow identifier.
//!   `hash=flow_id` (default) uses bucket = id mod `flows`, so flows numbered `0..flows` get one
//!   queue each; `hash=perturbed` hashes the id with a salt drawn once from the discipline's
//!   random source, so unrelated flows collide as they do in Linux (whose flow hash is salted
//!   with a random seed).
//! * Enqueue (RFC 8290 §4.1, Linux `fq_codel_enqueue`): the packet joins its queue; a queue that
//!   was on neither list joins the tail of the new list with a deficit of one quantum. If the
//!   total packets then exceed `limit`, or the queued bytes exceed `memory_limit`, packets are
//!   dropped from the *head* of the queue with the most bytes (the arrival counts, so it may be
//!   the one dropped): up to `drop_batch` packets, stopping once half of that queue's bytes are
//!   gone (Linux's batch; `drop_batch=1` is the single drop RFC 8290 describes), and (with
//!   `overflow_count=bump`) the queue's CoDel `count` grows by the number dropped (Linux: "tell
//!   codel to increase its signal").
//!   One batch per arrival: afterwards the packet limit holds again, but the bytes may still
//!   exceed `memory_limit` (as in Linux); each further arrival then drops another batch.
//! * Dequeue (RFC 8290 §4.2, Linux `fq_codel_dequeue`): take the head of the new list, else of
//!   the old list. A queue whose deficit is used up gets another quantum and moves to the tail of
//!   the old list. Otherwise its CoDel ([`CodelState::dequeue`], the same control loop as the
//!   [`crate::codel`] discipline) returns a packet, whose size is charged to the deficit. If the
//!   queue had nothing left, it leaves its list, except that an emptied *new* queue moves to the
//!   tail of the old list (with `empty_new_flow=remove_if_no_old`, Linux's rule, only while old
//!   queues exist), so that a flow cannot starve the old queues by re-entering the new list again
//!   and again (RFC 8290 §4.2).
//!
//! Each queue has its own [`CodelState`]; all share one [`CodelParams`] read by
//! [`codel::codel_params_from`], so `target`, `interval`, `mtu`, `ecn`, `ce_threshold` and
//! `variant` mean what they mean for CoDel, except that `ecn` defaults to `true`
//! (RFC 8290 §5.2.6, Linux). CoDel's "at least one MTU left" test compares `mtu` with the whole
//! discipline's byte backlog (`mtu_scope=total`, Linux, which passes `sch->qstats.backlog`) or
//! with the queue's own bytes (`mtu_scope=flow`, ns-3, whose per-flow child CoDel counts its own
//! bytes).
//!
//! Linux and ns-3 3.37 differ on five rules besides CoDel's arithmetic; each has a switch whose
//! default, `auto`, follows `variant` (ns-3's rule with `variant=ns3`, Linux's otherwise), so
//! `variant=ns3` is the ns-3 preset, checked packet by packet against ns-3 3.37's
//! `FqCoDelQueueDisc` (`tests/vectors.rs`): `empty_new_flow` (an emptied new queue always goes
//! to the old list, RFC 8290 §4.2 and ns-3, or leaves the lists when the old list is empty,
//! Linux), `overflow_count` (the overflow batch adds to CoDel's count, Linux, or not, ns-3),
//! `fattest_tie` (lowest bucket, Linux, or the queue created first, ns-3), `flow_limit` (ns-3's
//! child CoDel refuses an arrival to a queue holding `limit` packets) and `mtu_scope`.
//!
//! Deviations (see `docs/models/fq_codel.md`):
//! * `memory_limit` counts the bytes of queued packets (`size_bytes`); Linux counts each skb's
//!   `truesize` (buffer overhead included, several times the length of a small packet), so
//!   Linux reaches its 32 MiB earlier, especially with small packets. ns-3 has no memory limit.

use crate::codel::{self, CodelParams, CodelQueue, CodelState, Variant};
use crate::contract::{DropReason, QdiscCx, Stage};
use crate::fifo::PacketFifo;
use crate::fq::{self, spec_from, FlowAqm, FlowParams};
pub use crate::fq::{
    EmptyNewFlow, FattestTie, FlowHash, FlowList, FlowQueues, FlowView, FqConfig, OverflowCount,
};
use crate::params::{ConfigError, ParamSpec, Params};
use crate::uniform::UniformSource;
use aqmlab_core::{Packet, SimTime};

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "the new and old lists (linked through the flow queues), the total packets and bytes (RFC 8290 §4)",
    per_flow: "per flow queue (flows of them, 1024 by default, allocated at construction): a packet ring, the DRR deficit, list links and a CoDel state (RFC 8290 §4)",
    per_packet: "the flow's bucket (id mod flows, a salted hash or a set-associative lookup), DRR deficit accounting and CoDel's work on the flow's queue (a timestamp, the sojourn at dequeue); on overflow a scan of the active queues for the fattest (RFC 8290 §4.1-§4.2)",
    timers: "none",
    spec: "RFC 8290 §4-§5; RFC 8289 §5; Linux sch_fq_codel; ns-3 FqCoDelQueueDisc",
};

/// FQ-CoDel's parameters. `target`, `interval`, `mtu`, `ce_threshold`, `l4s` and `variant` are
/// CoDel's (same spec as [`codel::PARAMS`]); `ecn` too, but on by default (RFC 8290 §5.2.6,
/// Linux); the scheduler's are [`crate::fq`]'s.
pub const PARAMS: &[ParamSpec] = &[
    fq::LIMIT,
    fq::FLOWS,
    fq::QUANTUM,
    fq::MEMORY_LIMIT,
    spec_from(codel::PARAMS, "target"),
    spec_from(codel::PARAMS, "interval"),
    spec_from(codel::PARAMS, "mtu"),
    spec_from(codel::PARAMS, "ecn").with_default("true"),
    spec_from(codel::PARAMS, "ce_threshold"),
    spec_from(codel::PARAMS, "variant"),
    spec_from(codel::PARAMS, "l4s"),
    fq::DROP_BATCH,
    ParamSpec::choice(
        "mtu_scope",
        "auto",
        "auto|total|flow",
        "bytes CoDel compares with mtu: the whole qdisc's (Linux) or the flow's own (ns-3); auto = flow with variant=ns3, else total",
    )
    .derived("auto: from variant: flow with variant=ns3 (ns-3's child CoDel), else total (Linux)"),
    fq::EMPTY_NEW_FLOW,
    fq::OVERFLOW_COUNT,
    fq::FATTEST_TIE,
    fq::FLOW_LIMIT,
    fq::HASH,
    fq::SET_WAYS,
    fq::CONNS,
];

/// Whose bytes CoDel's "at least one MTU left" test looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MtuScope {
    /// The whole discipline's byte backlog (Linux `sch_fq_codel`).
    Total,
    /// The flow queue's own bytes (ns-3 `FqCoDelQueueDisc`, whose flows are child CoDel queues).
    Flow,
}

/// What every flow's CoDel shares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelFlowParams {
    /// The CoDel parameters.
    pub codel: CodelParams,
    /// Scope of CoDel's MTU test.
    pub mtu_scope: MtuScope,
}

/// FQ-CoDel's validated configuration: the scheduler's and CoDel's.
pub type FqCodelConfig = FqConfig<CodelFlowParams>;

/// The FQ-CoDel discipline.
pub type FqCodel = FlowQueues<CodelFlow>;

impl FlowParams for CodelFlowParams {
    fn from_params(p: &Params) -> Result<Self, ConfigError> {
        let codel = codel::codel_params_from(p)?;
        // `auto`: variant=ns3 selects ns-3 3.37's rule on each point, rfc and linux Linux's
        // (docs/models/fq_codel.md, "Linux's rules and ns-3's").
        let ns3 = codel.variant == Variant::Ns3;
        let mtu_scope = match p.choice("mtu_scope") {
            0 if ns3 => MtuScope::Flow,
            0 | 1 => MtuScope::Total,
            _ => MtuScope::Flow,
        };
        Ok(CodelFlowParams { codel, mtu_scope })
    }
    fn follows_ns3(&self) -> bool {
        self.codel.variant == Variant::Ns3
    }
}

/// One flow's CoDel state ([`CodelState`], the control loop of the [`crate::codel`] discipline).
pub type CodelFlow = CodelState;

/// The view of one flow queue that the shared CoDel loop pops from: the MTU test sees the bytes
/// `scope` says.
struct ScopedQueue<'v, 'a> {
    view: &'v mut FlowView<'a>,
    scope: MtuScope,
}

impl CodelQueue for ScopedQueue<'_, '_> {
    #[inline]
    fn pop(&mut self, _dropping: bool) -> Option<Packet> {
        self.view.q.pop_front()
    }
    #[inline]
    fn bytes_for_mtu_test(&self) -> u64 {
        match self.scope {
            MtuScope::Total => self.view.others_bytes + self.view.q.bytes(),
            MtuScope::Flow => self.view.q.bytes(),
        }
    }
}

impl FlowAqm for CodelState {
    type Params = CodelFlowParams;
    fn new(_: &CodelFlowParams, _bucket: u32, _uniforms: UniformSource) -> Self {
        CodelState::new()
    }
    #[inline]
    fn enqueue(
        &mut self,
        _now: SimTime,
        pkt: Packet,
        _params: &CodelFlowParams,
        q: &mut PacketFifo,
        full: bool,
        cx: &mut QdiscCx,
    ) -> bool {
        // RFC 8289 §5.4: CoDel never drops on arrival; only ns-3's per-flow limit does.
        if full {
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
            return false;
        }
        q.push_back(pkt);
        true
    }
    #[inline]
    fn dequeue(
        &mut self,
        now: SimTime,
        params: &CodelFlowParams,
        view: &mut FlowView<'_>,
        cx: &mut QdiscCx,
    ) -> Option<Packet> {
        let mut q = ScopedQueue {
            view,
            scope: params.mtu_scope,
        };
        CodelState::dequeue(self, now, &params.codel, &mut q, cx)
    }
    fn overflow_dropped(&mut self, n: u32) {
        // Linux `fq_codel_drop`: "tell codel to increase its signal".
        self.bump_count(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_codel_parameters_have_codel_specs() {
        for name in [
            "target",
            "interval",
            "mtu",
            "ce_threshold",
            "l4s",
            "variant",
            "ecn",
        ] {
            let ours = PARAMS.iter().find(|s| s.name == name).unwrap();
            let theirs = codel::PARAMS.iter().find(|s| s.name == name).unwrap();
            assert_eq!((ours.ty, ours.help), (theirs.ty, theirs.help), "{name}");
            if name == "ecn" {
                assert_eq!(ours.default, "true");
            } else {
                assert_eq!(ours.default, theirs.default, "{name}");
            }
        }
    }
}
