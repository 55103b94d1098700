//! FQ-PIE: [`crate::fq`]'s flow-queue scheduler (RFC 8290 §4) with RFC 8033's PIE
//! ([`crate::pie`]'s controller, [`PieCore`]) on each flow queue, as ns-3 3.37's `FqPieQueueDisc`
//! builds it: one `PieQueueDisc` child per flow queue, created with the queue (its `MaxSize` the
//! parent's limit), with its own drop-probability timer — first update at the queue's creation
//! time, then every `t_update`, whether or not the flow has packets — and its own random stream.
//! Checked packet by packet against ns-3 on `vectors/sparse.schedule.csv`.
//!
//! Linux's `sch_fq_pie` (5.6+) shares the idea but differs: over its limit it drops the
//! *arrival* instead of a batch from the fattest flow, its PIE runs its update for every flow
//! from one timer, and its early-drop test and burst allowance follow Linux `pie.h`; those are
//! not modelled (see `docs/models/fq_pie.md`). The scheduler's `auto` rules are ns-3's.

use crate::contract::QdiscCx;
use crate::fifo::PacketFifo;
use crate::fq::{self, FlowAqm, FlowParams, FlowQueues, FlowView, FqConfig};
use crate::params::{ConfigError, ParamSpec, Params};
use crate::pie::{self, PieConfig, PieCore};
use crate::uniform::UniformSource;
use aqmlab_core::{Packet, SimTime};

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "the new and old lists (linked through the flow queues), the total packets and bytes (RFC 8290 §4)",
    per_flow: "per flow queue (1024 by default): a packet ring, the DRR deficit, list links and a PIE state with its own random stream, created with the queue (ns-3 FqPieQueueDisc)",
    per_packet: "the flow's bucket, DRR deficit accounting and PIE's work on the flow (a random draw per arrival that may be dropped, the sojourn at dequeue); on overflow a scan for the fattest queue (RFC 8290 §4.1-§4.2, RFC 8033 §4.1)",
    timers: "per flow queue, a PIE update every t_update from the queue's creation, whether or not it holds packets (ns-3), run when the flow is next touched",
    spec: "RFC 8290 §4 (scheduler); RFC 8033 §4-§5 (PIE per flow); ns-3 FqPieQueueDisc",
};

/// FQ-PIE's parameters: the scheduler's, then PIE's ([`pie::PARAMS`]; its `limit` is the
/// scheduler's, which is also each flow's limit with `flow_limit`).
pub const PARAMS: &[ParamSpec] =
    &fq::ns3_table::<{ PIE_PARAMS.len() + fq::NS3_SCHEDULER_PARAMS }>(PIE_PARAMS);
const PIE_PARAMS: &[ParamSpec] = pie::PARAMS.split_at(1).1; // all but `limit`

/// FQ-PIE's validated configuration; every flow's PIE has the [`PieConfig`] (in packets).
pub type FqPieConfig = FqConfig<PieConfig>;

/// The FQ-PIE discipline.
pub type FqPie = FlowQueues<PieCore>;

impl FlowParams for PieConfig {
    fn from_params(p: &Params) -> Result<Self, ConfigError> {
        PieConfig::from_params(p)
    }
}

impl FlowAqm for PieCore {
    type Params = PieConfig;
    fn new(cfg: &PieConfig, _bucket: u32, uniforms: UniformSource) -> Self {
        // No update before the queue exists: `created` starts the timer.
        PieCore::starting_at(cfg.clone(), uniforms, u64::MAX)
    }
    fn created(&mut self, now: SimTime, _cfg: &PieConfig) {
        self.schedule_updates_from(now.as_nanos());
    }
    #[inline]
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: Packet,
        _cfg: &PieConfig,
        q: &mut PacketFifo,
        full: bool,
        cx: &mut QdiscCx,
    ) -> bool {
        self.offer(now, pkt, q, !full, cx)
    }
    #[inline]
    fn dequeue(
        &mut self,
        now: SimTime,
        _cfg: &PieConfig,
        view: &mut FlowView<'_>,
        cx: &mut QdiscCx,
    ) -> Option<Packet> {
        self.take(now, view.q, cx)
    }
    fn before_overflow(&mut self, now: SimTime, _cfg: &PieConfig, q: &PacketFifo) {
        self.catch_up(now.as_nanos(), q.bytes());
    }
    fn uniforms_exhausted(&self) -> bool {
        PieCore::uniforms_exhausted(self)
    }
}
