//! Primitives shared by every aqmlab crate.
//!
//! * [`time`]: simulated time as integer nanoseconds ([`SimTime`], [`SimDuration`]). No `f64`
//!   time exists inside the engine; conversion to seconds happens only at output.
//! * [`rate`]: link rates in bits per second ([`Bitrate`]) and serialisation times.
//! * [`packet`]: the packet descriptor a queue discipline holds ([`Packet`]): small and `Copy`,
//!   so a queue never allocates per packet and the simulator keeps payload state in its own arena.
//! * [`rng`]: the one pinned pseudo-random generator (xoshiro256++) and per-component streams
//!   derived from `(master_seed, path)`, so adding a component never shifts another's randomness.
//! * [`units`]: parsing of values as users write them (`5ms`, `10Mbps`, `1000p`, `1.5MB`) with
//!   errors that say what was expected.
//!
//! ```
//! use aqmlab_core::{units, SimTime, SimDuration};
//! let target = units::parse_duration("5ms").unwrap();
//! let t = SimTime::ZERO + target;
//! assert_eq!(t.as_nanos(), 5_000_000);
//! assert_eq!(t - SimTime::ZERO, SimDuration::from_millis(5));
//! ```
#![warn(missing_docs)]

pub mod input;
pub mod math;
pub mod packet;
pub mod rate;
pub mod rng;
pub mod time;
pub mod units;

pub use packet::{Ecn, FlowId, Packet, TcpHint};
pub use rate::Bitrate;
pub use rng::{stream_seed, Xoshiro256pp};
pub use time::{SimDuration, SimTime};
