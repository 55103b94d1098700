//! What a flow's receiving end sees of its data packets ([`Receiver`]): one-way delay, RFC 3550
//! interarrival jitter, losses. Updated in O(1) without allocating on the per-packet path.

use aqmlab_link::sketch::QuantileSketch;
use aqmlab_link::Moments;

/// What a flow's receiving end sees of its data packets (UDP datagrams; TCP segments from a
/// leg's sender to its receiver, web requests and responses both), from their sending times.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    /// Data packets sent.
    pub sent_pkts: u64,
    /// Data packets that reached their receiver.
    pub received_pkts: u64,
    /// Data packets dropped by a discipline or lost on a wire.
    pub lost_pkts: u64,
    /// One-way delay of each received data packet (sending to arrival), ns.
    pub delay_ns: QuantileSketch,
    /// The same delays' moments (exact mean and variance).
    pub delay_moments: Moments,
    /// RFC 3550 §6.4.1 interarrival jitter, ns: J += (|D| − J)/16 over consecutive arrivals,
    /// D the difference of their one-way delays.
    pub jitter_ns: f64,
    /// The previous arrival's one-way delay, ns.
    last_delay: Option<u64>,
}

impl Receiver {
    /// A data packet sent at `sent_ns` arrives at `now_ns`.
    #[inline]
    pub fn arrive(&mut self, sent_ns: u64, now_ns: u64) {
        let d = now_ns - sent_ns;
        self.received_pkts += 1;
        self.delay_ns.add(d);
        self.delay_moments.add(d);
        if let Some(prev) = self.last_delay {
            let diff = d.abs_diff(prev) as f64;
            self.jitter_ns += (diff - self.jitter_ns) / 16.0;
        }
        self.last_delay = Some(d);
    }

    /// Lost packets over sent ones; NaN before any was sent. Packets still in flight at the
    /// end count as neither.
    pub fn loss_rate(&self) -> f64 {
        if self.sent_pkts == 0 {
            f64::NAN
        } else {
            self.lost_pkts as f64 / self.sent_pkts as f64
        }
    }
}
