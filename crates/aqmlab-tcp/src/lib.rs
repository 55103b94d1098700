//! TCP for the aqmlab simulator: one sender and one receiver state machine with pluggable
//! congestion control.
//!
//! # Layering
//! * [`segment`]: [`Segment`], the `Copy` header that travels inside a simulated packet (sequence
//!   numbers, flags, SACK blocks, ECN bits, window). The engine owns packets; TCP owns segments.
//! * [`config`]: [`TcpConfig`] (MSS, initial window, RTO bounds, delayed ACKs, SACK, ECN,
//!   handshake, window cap) and [`CcConfig`] / [`CcKind`], validated once by
//!   [`TcpConfig::validate`].
//! * [`rtt`]: RFC 6298 SRTT/RTTVAR/RTO arithmetic in integer nanoseconds.
//! * [`cc`]: the [`CongestionControl`] hooks and [`AnyCc`], enum dispatch over Reno/NewReno
//!   (RFC 5681), CUBIC (RFC 9438), Vegas (Brakmo & Peterson, as ns-2), DCTCP (RFC 8257) and
//!   TCP Prague.
//! * [`accecn`]: Accurate ECN (RFC 9768) negotiation and the sender's ACE decoding.
//! * [`sender`] / [`receiver`]: [`TcpSender`] (handshake, RFC 6675 SACK recovery or RFC 6582
//!   NewReno, RFC 6298 timer, RFC 3168 ECN) and [`TcpReceiver`] (cumulative + SACK ACKs, delayed
//!   ACKs, ECN echo).
//! * Both directions of a request/response connection: the reply is a second pair,
//!   [`TcpSender::established`] and [`TcpReceiver::established`], started without a handshake
//!   from the [`Handshake`] the accepting end saw ([`TcpReceiver::handshake`]).
//!
//! # Contracts
//! * **The caller owns the clock.** Every input takes `now: SimTime`; nothing reads a clock or
//!   schedules an event. Each side reports its next deadline with `next_timer()`; the engine calls
//!   `on_timer(now)` when `now >= next_timer()`. Calls at other times are harmless no-ops, so the
//!   engine may keep stale timer events instead of cancelling them.
//! * **No allocation per packet.** Output segments are pushed into an `out: &mut Vec<Segment>` the
//!   engine clears and reuses; the sender's scoreboard and the receiver's out-of-order list are
//!   amortised containers that stop growing once they reach the largest window.
//! * **Deterministic.** No randomness and no hash maps; the same inputs give the same outputs.
//!
//! ```
//! use aqmlab_core::{SimDuration, SimTime};
//! use aqmlab_tcp::{TcpConfig, TcpReceiver, TcpSender};
//!
//! let cfg = TcpConfig { delayed_ack: false, ..TcpConfig::default() };
//! let mut tx = TcpSender::new(&cfg, Some(1000));
//! let mut rx = TcpReceiver::new(&cfg);
//! let (mut a, mut b) = (Vec::new(), Vec::new());
//! let d = SimDuration::from_millis(10);
//! tx.connect(SimTime::ZERO, &mut a);                    // SYN
//! rx.on_segment(SimTime::ZERO + d, &a[0], &mut b);      // SYN-ACK
//! a.clear();
//! tx.on_segment(SimTime::ZERO + d + d, &b[0], &mut a);  // handshake ACK + 1000 data bytes
//! b.clear();
//! let t3 = SimTime::ZERO + d + d + d;
//! rx.on_segment(t3, &a[0], &mut b);                     // ACK 1001
//! assert_eq!(rx.delivered_bytes(), 1000);
//! tx.on_segment(t3 + d, &b[0], &mut a);
//! assert!(tx.is_complete());
//! assert_eq!(tx.stats().completed_at, Some(SimTime::from_millis(40)));
//! ```
#![warn(missing_docs)]

pub mod accecn;
pub mod cc;
pub mod config;
pub mod receiver;
pub mod rtt;
pub mod segment;
pub mod sender;

pub use cc::{AckEvent, AnyCc, Congestion, CongestionControl, EcnFeedback};
pub use config::{
    CcConfig, CcKind, ConfigError, CubicParams, DctcpParams, LedbatParams, PragueParams,
    RtoSsthresh, TcpConfig, VegasParams,
};
pub use receiver::TcpReceiver;
pub use rtt::RttEstimator;
pub use segment::Segment;
pub use sender::{Handshake, Recovery, SenderStats, TcpSender};
