//! aqmlab's packet-level simulator: scenario files, topologies, links driving the queue
//! disciplines of `aqmlab-qdisc`, TCP and UDP traffic, and the measurements of a run.
//!
//! * [`scenario`] — a TOML scenario file, checked and turned into a [`world::Sim`].
//! * [`world`] — the simulation: nodes, link directions, flows and the event loop.
//! * [`event`] — the event queue; ties come out in insertion order, so a run is deterministic.
//! * [`link`], [`pipe`], [`rate`], [`dist`], [`sketch`] — re-exported from `aqmlab-link`: one
//!   link direction (rate model, discipline, delay line, measurements), the component the
//!   simulator's event loop drives and the live emulator runs through a clock of its own
//!   ([`link::ClockedLink`]).
//! * [`topology`] — link configuration and static shortest-path routes.
//! * [`arena`] — the slab the packets' payloads and the TCP connections live in.
//! * The per-flow metrics and a run's [`Report`](aqmlab_report::Report) live in
//!   `aqmlab-report`, which the live emulator shares.
//! * [`summary`] — `summary.json`.
//! * [`packmime`] — PackMime-HTTP's generators (web traffic with `model = "packmime"`).
//! * [`windows`] — measurement windows (`warmup`, `[[windows]]`), each with its own summary.
//! * [`resolved`] — the fully resolved scenario file of a run (`scenario.resolved.toml`).
#![warn(missing_docs)]

pub mod arena;
pub mod event;
#[doc(hidden)]
pub mod fuzzing;
pub mod packmime;
pub mod pyjson;
pub mod resolved;
pub mod scenario;
pub mod summary;
pub mod topology;
pub mod windows;
pub mod world;

pub use aqmlab_link::{dist, link, pipe, rate, sketch};
