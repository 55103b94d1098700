//! Queue disciplines behind one contract, independent of any event loop.
//!
//! * [`contract`]: the [`QueueDisc`] trait — `enqueue(now, pkt)`, `dequeue(now)`, `backlog()` —
//!   and how drops and marks are reported ([`QdiscCx`], [`DropReason`], [`MarkReason`]).
//! * [`stats`]: [`Qdisc`], the wrapper that stamps enqueue times, keeps counters and checks
//!   conservation (received = delivered + dropped + backlog) after every call.
//! * One module per discipline, each citing the specification it implements: [`droptail`],
//!   [`red`] (Floyd & Jacobson 1993, gentle, Adaptive RED), [`codel`] (RFC 8289, with Linux and
//!   ns-3 arithmetic), [`lstf_codel`] (Ford 2020), [`fq_codel`] (RFC 8290), [`pie`] (RFC 8033), [`fq_pie`],
//!   [`cobalt`], [`fq_cobalt`], [`cake`] (Høiland-Jørgensen et al. 2018) and [`dualpi2`] (RFC 9332); [`fq`] is the flow-queue scheduler the FQ ones share.
//! * [`registry`]: [`AnyQdisc`] (enum dispatch, no `dyn` on the hot path) built by name from
//!   `NAME=VALUE` parameters, and the parameter tables that `aqmlab replay --list` prints.
//! * [`state_trace`]: a discipline's state variables recorded as they change.
//! * [`replay`]: drive one discipline from an arrival/service schedule (`aqmlab replay`).
//!
//! Time is integer nanoseconds ([`aqmlab_core::SimTime`]); a discipline never reads a clock, never
//! schedules an event and draws randomness only from the [`UniformSource`] it was built with.
//!
//! ```
//! use aqmlab_qdisc::{registry, Qdisc, UniformSource};
//! use aqmlab_core::{FlowId, Packet, SimTime};
//! let params = vec![("limit".to_string(), "2p".to_string())];
//! let mut q = Qdisc::new(registry::build("droptail", &params, UniformSource::seeded(1)).unwrap());
//! for id in 0..3 {
//!     q.enqueue(SimTime::ZERO, Packet::new(id, 1500, FlowId(0)));
//! }
//! assert_eq!(q.stats().dropped().packets, 1);
//! assert_eq!(q.dequeue(SimTime::from_millis(1)).unwrap().id, 0);
//! ```
#![warn(missing_docs)]

pub mod cake;
pub mod cobalt;
pub mod codel;
pub mod contract;
pub mod droptail;
pub mod dualpi2;
pub mod facts;
pub mod fifo;
pub mod fq;
pub mod fq_cobalt;
pub mod fq_codel;
pub mod fq_pie;
#[doc(hidden)]
pub mod fuzzing;
pub mod lstf_codel;
pub mod params;
pub mod pie;
pub mod red;
pub mod registry;
pub mod replay;
pub mod state_trace;
pub mod stats;
pub mod uniform;

pub use contract::{Backlog, DropReason, MarkReason, QdiscCx, QdiscEvent, QueueDisc, Stage};
pub use facts::Facts;
pub use params::{
    tables_parsed, texts_parsed, Bound, ConfigError, Given, ParamSpec, Params, Tuning, Type, Value,
    Written,
};
pub use registry::{AnyConfig, AnyQdisc, Kind};
pub use state_trace::{StateChange, StateTrace};
pub use stats::{Qdisc, QdiscStats};
pub use uniform::UniformSource;
