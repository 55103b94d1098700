//! One direction of a link, as aqmlab's simulator (`aqmlab-sim`) and its live emulator
//! (`aqmlab-emu`) both run it: the rate model, the queue discipline of `aqmlab-qdisc`, the
//! propagation delay line, and what a direction measures.
//!
//! * [`link`] — one link direction ([`LinkDirection`]), driven by the simulator's event loop or
//!   by a clock of its caller's ([`ClockedLink`]), and its report types ([`LinkReport`],
//!   [`LinkBin`], [`PacketRecord`], [`DropRecord`]).
//! * [`rate`] — how fast a link sends over time (a constant rate, a step schedule, or a
//!   mahimahi delivery-opportunity trace) and exactly when a packet's last bit leaves when the
//!   rate changes mid-packet.
//! * [`pipe`] — a link's propagation pipe (the packets on their way to the far node).
//! * [`dist`] — random durations (a link's jitter, a flow's start).
//! * [`bins`] — the time bins of the per-bin series.
//! * [`sketch`] — the streaming quantile sketch behind every delay summary.
//! * [`moments`], [`sojourn`], [`area`] — exact moments of the sojourn times, a measurement
//!   window's sojourn times, the time-integrated queue.
#![warn(missing_docs)]

pub mod area;
pub mod bins;
pub mod dist;
pub mod link;
pub mod moments;
pub mod pipe;
pub mod rate;
pub mod sketch;
pub mod sojourn;

pub use area::{AreaRow, QueueArea};
pub use link::{
    ClockedLink, DropRecord, DropSink, LinkBin, LinkDirection, LinkMetrics, LinkParts, LinkReport,
    PacketRecord,
};
pub use moments::Moments;
pub use sojourn::SojournStats;
