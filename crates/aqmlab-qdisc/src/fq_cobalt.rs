//! FQ-COBALT: [`crate::fq`]'s flow-queue scheduler (RFC 8290 §4) with a COBALT
//! ([`crate::cobalt`]) on each flow queue, as ns-3 3.37's `FqCobaltQueueDisc` builds it (one
//! `CobaltQueueDisc` child per flow, `MaxSize` = the parent's limit, its own random stream).
//! Linux has no such discipline (its COBALT lives inside `sch_cake`, with a different
//! scheduler), so the scheduler's `auto` rules are ns-3's. Checked packet by packet against
//! ns-3 on `vectors/sparse.schedule.csv`.

use crate::cobalt::{self, CobaltParams, CobaltState};
use crate::fq::{self, spec_from, FlowParams, FlowQueues, FqConfig};
use crate::params::{ConfigError, ParamSpec, Params};

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "the new and old lists (linked through the flow queues), the total packets and bytes (RFC 8290 §4)",
    per_flow: "per flow queue (1024 by default): a packet ring, the DRR deficit, list links and a COBALT state with its own random stream (ns-3 FqCobaltQueueDisc)",
    per_packet: "the flow's bucket, DRR deficit accounting and COBALT's work on the flow (a timestamp, the sojourn at dequeue, a random draw while its pdrop > 0); on overflow a scan for the fattest queue (RFC 8290 §4.1-§4.2)",
    timers: "none",
    spec: "RFC 8290 §4 (scheduler); Palmei et al. 2019 (COBALT per flow); ns-3 FqCobaltQueueDisc",
};

/// FQ-COBALT's parameters: the scheduler's, then COBALT's ([`cobalt::PARAMS`]) with `ecn` on by
/// default (ns-3's `FqCobaltQueueDisc::UseEcn` default, as FQ-CoDel's).
pub const PARAMS: &[ParamSpec] =
    &fq::ns3_table::<{ COBALT_PARAMS.len() + fq::NS3_SCHEDULER_PARAMS }>(COBALT_PARAMS);
const COBALT_PARAMS: &[ParamSpec] = &[
    spec_from(cobalt::PARAMS, "target"),
    spec_from(cobalt::PARAMS, "interval"),
    spec_from(cobalt::PARAMS, "ecn").with_default("true"),
    spec_from(cobalt::PARAMS, "ce_threshold"),
    spec_from(cobalt::PARAMS, "l4s"),
    spec_from(cobalt::PARAMS, "pdrop"),
    spec_from(cobalt::PARAMS, "increment"),
    spec_from(cobalt::PARAMS, "decrement"),
    spec_from(cobalt::PARAMS, "blue_threshold"),
];

/// FQ-COBALT's validated configuration.
pub type FqCobaltConfig = FqConfig<CobaltParams>;

/// The FQ-COBALT discipline.
pub type FqCobalt = FlowQueues<CobaltState>;

impl FlowParams for CobaltParams {
    fn from_params(p: &Params) -> Result<Self, ConfigError> {
        CobaltParams::from_params(p)
    }
}
