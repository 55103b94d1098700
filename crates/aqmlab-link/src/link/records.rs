//! What a link direction measures: its totals ([`LinkMetrics`]), its per-bin series
//! ([`LinkBin`]), its optional per-packet log ([`PacketRecord`], [`DropRecord`]), and a report
//! of them ([`LinkReport`]).

use crate::sketch::QuantileSketch;
use aqmlab_qdisc::{DropReason, MarkReason};

/// One packet released by a link's discipline (the optional per-packet log).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketRecord {
    /// When it left the discipline (its transmission started), ns.
    pub t_ns: u64,
    /// Time it spent in the discipline, ns.
    pub sojourn_ns: u64,
    /// Size in bytes.
    pub size: u32,
    /// Flow index.
    pub flow: u32,
}

/// One packet a link direction's discipline dropped, or that was lost on its wire after it
/// was sent (the optional per-packet log's drops, beside its [`PacketRecord`]s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropRecord {
    /// When it was dropped (or sent, for a wire loss), ns.
    pub t_ns: u64,
    /// Time it had spent in the discipline, ns (0 when refused at enqueue).
    pub sojourn_ns: u64,
    /// Size in bytes.
    pub size: u32,
    /// Flow index.
    pub flow: u32,
    /// Why: the discipline's reason, or `None` for a loss on the wire.
    pub reason: Option<DropReason>,
}

/// Per-link-direction measurements.
#[derive(Clone, Debug, Default)]
pub struct LinkMetrics {
    /// Packets offered to the discipline (in a simulator's `Report`: the discipline's `received` count).
    pub enqueued_pkts: u64,
    /// Bytes offered to the discipline (in a simulator's `Report`, as `enqueued_pkts`).
    pub ingress_bytes: u64,
    /// Packets fully transmitted.
    pub delivered_pkts: u64,
    /// Bytes fully transmitted.
    pub delivered_bytes: u64,
    /// Packets dropped by the discipline (any reason).
    pub dropped_pkts: u64,
    /// Packets CE-marked by the discipline.
    pub marked_pkts: u64,
    /// Sojourn time through the discipline of every packet it released, in ns.
    pub sojourn_ns: QuantileSketch,
    /// The same sojourn times' count, sum and sum of squares (their exact variance).
    pub sojourn_moments: crate::moments::Moments,
    /// Largest backlog seen, in packets.
    pub max_backlog_pkts: u32,
    /// Bytes offered per time bin. (In a simulator's `Report`, the five per-bin series have the same
    /// length: up to the last bin with any activity or level noted; bins after it are zero.)
    pub ingress_bytes_per_bin: Vec<u64>,
    /// Bytes transmitted per time bin (counted when the last bit leaves).
    pub egress_bytes_per_bin: Vec<u64>,
    /// Largest backlog (packets) seen in each time bin.
    pub max_backlog_per_bin: Vec<u64>,
    /// Packets dropped per time bin.
    pub drops_per_bin: Vec<u64>,
    /// Packets the discipline released per time bin.
    pub released_per_bin: Vec<u64>,
    /// Sum of the sojourn times of the packets released in each time bin, ns.
    pub sojourn_sum_ns_per_bin: Vec<u64>,
    /// Largest backlog (bytes) seen in each time bin.
    pub max_backlog_bytes_per_bin: Vec<u64>,
    /// Drops per reason (indexed by `DropReason::index()`).
    pub drops_by_reason: [u64; DropReason::ALL.len()],
    /// Marks per reason (indexed by `MarkReason::index()`).
    pub marks_by_reason: [u64; MarkReason::ALL.len()],
    /// Packets lost on the wire after transmission (the link's random loss).
    pub lost_pkts: u64,
}

/// One time bin of a link direction's series (see [`LinkMetrics`] for each).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkBin {
    /// Bytes offered.
    pub ingress_bytes: u64,
    /// Bytes transmitted (counted when the last bit leaves).
    pub egress_bytes: u64,
    /// Largest backlog in packets.
    pub max_backlog_pkts: u64,
    /// Largest backlog in bytes.
    pub max_backlog_bytes: u64,
    /// Packets dropped.
    pub drops: u64,
    /// Packets the discipline released (to the wire).
    pub released_pkts: u64,
    /// Sum of their sojourn times through the discipline, ns.
    pub sojourn_sum_ns: u64,
    /// The backlog integrated over the bin, packet·ns (÷ the bin's length: the time-averaged
    /// queue).
    pub queue_pkt_ns: u128,
    /// The same in byte·ns.
    pub queue_byte_ns: u128,
    /// Bits the link could carry in the bin (its rate, schedule or trace integrated); filled in
    /// when the bin is handed out or reported.
    pub capacity_bits: u64,
}

impl crate::area::AreaRow for LinkBin {
    #[inline(always)]
    fn add_area(&mut self, pkt_ns: u128, byte_ns: u128) {
        self.queue_pkt_ns += pkt_ns;
        self.queue_byte_ns += byte_ns;
    }
}

/// One link direction in a simulator's `Report`.
#[derive(Clone, Debug)]
pub struct LinkReport {
    /// Name.
    pub name: String,
    /// Discipline kind.
    pub qdisc: &'static str,
    /// Packets queued now.
    pub backlog_pkts: u32,
    /// 1 if a packet is being transmitted now.
    pub in_flight: u32,
    /// Delivered bits over the bits the link could have carried so far.
    pub utilization: f64,
    /// The bits the link could have carried so far.
    pub capacity_bits: u128,
    /// Dequeue calls that found nothing (each time the link went idle).
    pub empty_dequeues: u64,
    /// Measurements.
    pub m: LinkMetrics,
}
