//! aqmlab's packet-level simulator: scenario files, topologies, links driving the queue
//! disciplines of `aqmlab-qdisc`, TCP and UDP traffic, and the measurements of a run.
//!
//! * [`scenario`] — a TOML scenario file, checked and turned into a [`world::Sim`].
//! * [`world`] — the simulation: nodes, link directions, flows and the event loop.
//! * [`event`] — the event queue; ties come out in insertion order, so a run is deterministic.
//! * [`link`] — one link direction (rate model, discipline, delay line, measurements): the
//!   component the simulator's event loop drives, and the live emulator through a clock of its
//!   own ([`link::ClockedLink`]).
//! * [`pipe`] — a link's propagation pipe (the packets on their way to the far node).
//! * [`rate`] — how fast a link sends over time (a constant rate, a step schedule, or a
//!   mahimahi delivery-opportunity trace) and exactly when a packet's last bit leaves when the
//!   rate changes mid-packet.
//! * [`topology`] — link configuration and static shortest-path routes.
//! * [`dist`] — random durations (a flow's start, a link's jitter).
//! * [`arena`] — the slab the packets' payloads and the TCP connections live in.
//! * [`sketch`] — the streaming quantile sketch behind every delay summary.
//! * [`metrics`] — measurements beside the engine: sojourn moments, per-flow counts at each
//!   link direction, the time-integrated queue.
//! * [`summary`] — `summary.json`.
//! * [`packmime`] — PackMime-HTTP's generators (web traffic with `model = "packmime"`).
//! * [`windows`] — measurement windows (`warmup`, `[[windows]]`), each with its own summary.
//! * [`resolved`] — the fully resolved scenario file of a run (`scenario.resolved.toml`).
#![warn(missing_docs)]

pub mod arena;
mod bins;
pub mod dist;
pub mod event;
#[doc(hidden)]
pub mod fuzzing;
pub mod link;
pub mod metrics;
pub mod packmime;
pub mod pipe;
pub mod rate;
pub mod resolved;
pub mod scenario;
pub mod sketch;
pub mod summary;
pub mod topology;
pub mod windows;
pub mod world;
