//! The packet descriptor a queue discipline holds.
//!
//! A queue discipline needs only a packet's size, flow, ECN codepoint and enqueue time; the payload
//! (TCP state, application data) lives elsewhere, in the caller's arena, addressed by `id`. Keeping
//! the descriptor small and `Copy` means queues move 32 bytes per packet and never allocate.

/// A flow identifier: a 5-tuple hash or an explicit id given by the caller.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// The ECN field of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ecn {
    /// Not ECN-capable transport (00): congestion is signalled by dropping.
    #[default]
    NotEct,
    /// ECN-capable transport, ECT(0) (10).
    Ect0,
    /// ECN-capable transport, ECT(1) (01).
    Ect1,
    /// Congestion experienced (11).
    Ce,
}

impl Ecn {
    /// True when a router may mark the packet CE instead of dropping it.
    pub const fn is_ect(self) -> bool {
        matches!(self, Ecn::Ect0 | Ecn::Ect1)
    }
}

/// A packet as seen by a queue discipline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The caller's handle for the packet (the simulator packs a payload slot and a destination
    /// node in it; replay, a packet number); opaque to queues.
    pub id: u64,
    /// Size on the wire in bytes, IP headers included.
    pub size_bytes: u32,
    /// The flow the packet belongs to.
    pub flow: FlowId,
    /// ECN codepoint; a marking discipline sets it to [`Ecn::Ce`].
    pub ecn: Ecn,
    /// When the packet entered the queue discipline (stamped at enqueue), in ns.
    pub enqueue_ns: u64,
    /// Differentiated Services codepoint (RFC 2474, 6 bits; 0 = best effort), set per flow. Only
    /// CAKE's diffserv tins read it.
    pub dscp: u8,
    /// Source host number (0 = unknown): CAKE's host isolation counts flows per host.
    pub src_host: u16,
    /// Destination host number (0 = unknown).
    pub dst_host: u16,
}

impl Packet {
    /// A non-ECN-capable packet of `size_bytes` in flow `flow`.
    pub const fn new(id: u64, size_bytes: u32, flow: FlowId) -> Self {
        Packet {
            id,
            size_bytes,
            flow,
            ecn: Ecn::NotEct,
            enqueue_ns: 0,
            dscp: 0,
            src_host: 0,
            dst_host: 0,
        }
    }
}
