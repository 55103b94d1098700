//! FQ-COBALT: [`crate::fq`]'s flow-queue scheduler (RFC 8290 §4) with a COBALT
//! ([`crate::cobalt`]) on each flow queue, as ns-3 3.37's `FqCobaltQueueDisc` builds it (one
//! `CobaltQueueDisc` child per flow, `MaxSize` = the parent's limit, its own random stream).
//! Linux has no such discipline (its COBALT lives inside `sch_cake`, with a different
//! scheduler), so the scheduler's `auto` rules are ns-3's. Checked packet by packet against
//! ns-3 on `vectors/sparse.schedule.csv`.

use crate::cobalt::{self, CobaltParams, CobaltState};
use crate::fq::{self, spec_from, FlowQueues, FqConfig};
use crate::params::{ConfigError, ParamSpec, Params};

/// FQ-COBALT's parameters: the scheduler's, then COBALT's ([`cobalt::PARAMS`]) with `ecn` on by
/// default (ns-3's `FqCobaltQueueDisc::UseEcn` default, as FQ-CoDel's).
pub const PARAMS: &[ParamSpec] = &[
    fq::LIMIT,
    fq::FLOWS,
    fq::QUANTUM,
    fq::MEMORY_LIMIT,
    fq::DROP_BATCH,
    spec_from(cobalt::PARAMS, "target"),
    spec_from(cobalt::PARAMS, "interval"),
    ParamSpec {
        default: "true",
        ..spec_from(cobalt::PARAMS, "ecn")
    },
    spec_from(cobalt::PARAMS, "ce_threshold"),
    spec_from(cobalt::PARAMS, "l4s"),
    spec_from(cobalt::PARAMS, "pdrop"),
    spec_from(cobalt::PARAMS, "increment"),
    spec_from(cobalt::PARAMS, "decrement"),
    spec_from(cobalt::PARAMS, "blue_threshold"),
    fq::EMPTY_NEW_FLOW,
    fq::FATTEST_TIE,
    fq::FLOW_LIMIT,
    fq::HASH,
    fq::SET_WAYS,
];

/// FQ-COBALT's validated configuration.
pub type FqCobaltConfig = FqConfig<CobaltParams>;

/// The FQ-COBALT discipline.
pub type FqCobalt = FlowQueues<CobaltState>;

impl FqConfig<CobaltParams> {
    /// Reads and checks FQ-COBALT's parameters (`auto` rules: ns-3's).
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        FqConfig::scheduler_from_params(p, true, CobaltParams::from_params(p)?)
    }
}
