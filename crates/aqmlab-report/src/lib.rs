//! What a run reports, as aqmlab's simulator (`aqmlab-sim`) and its live emulator
//! (`aqmlab-emu`) both hand it out: per flow what it is, its totals and its per-bin series, and
//! the whole run's [`Report`] (which holds each link direction's report from `aqmlab-link`).
//!
//! * [`flow`] — one flow's report: [`FlowInfo`], [`FlowMetrics`], [`FlowBin`],
//!   [`FlowBinColumns`].
//! * [`flow_links`] — what happened to a flow's packets at each link direction it crossed
//!   ([`FlowLinks`], [`FlowAtLink`]).
//! * [`receiver`] — what a flow's receiving end saw of its data packets ([`Receiver`]).
//! * [`report`] — a run's snapshot ([`Report`], [`OwdPair`]).
//!
//! Why a crate of its own: these types are what both drivers produce and what `aqmlab-sim`'s
//! summary reads, so they need one home that neither driver's engine owns. They are not the
//! simulator's (the emulator would then depend on the simulator's world, its event loop and
//! flows, to name a flow's byte counts), and they are not a link direction's (`aqmlab-link` is
//! one direction of one link; a flow crosses several and a report holds them all, so putting
//! flows there would give that crate two concepts). A link direction's own report types
//! ([`aqmlab_link::LinkReport`], [`aqmlab_link::LinkBin`]) stay in `aqmlab-link`; this crate
//! builds on them. Nothing here runs an engine: the types are filled in by their drivers and
//! updated in O(1), without allocating, on the per-packet path.
#![warn(missing_docs)]

pub mod flow;
pub mod flow_links;
pub mod receiver;
pub mod report;

pub use flow::{FlowBin, FlowBinColumns, FlowInfo, FlowMetrics};
pub use flow_links::{FlowAtLink, FlowLinks};
pub use receiver::Receiver;
pub use report::{OwdPair, Report};
