//! aqmlab's packet-level simulator (work in progress: the link and event-queue foundations).
//!
//! * [`rate`]: how fast a link sends over time — a constant rate, a step schedule, or a
//!   mahimahi delivery-opportunity trace — and exactly when a packet's last bit leaves when the
//!   rate changes mid-packet.
//! * [`event`]: the event queue; ties come out in insertion order, so a run is deterministic.
#![warn(missing_docs)]

pub mod arena;
pub mod event;
#[doc(hidden)]
pub mod fuzzing;
pub mod rate;
pub mod scenario;
pub mod sketch;
pub mod summary;
pub mod topology;
pub mod world;
