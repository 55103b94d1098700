//! The packet descriptor a queue discipline holds.
//!
//! A queue discipline needs only a packet's size, flow, ECN codepoint and enqueue time; the payload
//! (TCP state, application data) lives elsewhere, in the caller's arena, addressed by `id`. Keeping
//! the descriptor small and `Copy` means queues move 40 bytes per packet and never allocate. A TCP
//! segment's few header facts a queue may read (CAKE's ACK filter) travel in [`TcpHint`].

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

/// The TCP header facts of a packet that a queue discipline may read: CAKE's ACK filter
/// (Høiland-Jørgensen et al., "Piece of CAKE", 2018, §4.3; Linux `cake_ack_filter`) compares
/// queued pure ACKs of a flow with a newer one. `bits == 0`: not TCP (or not told).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpHint {
    /// The cumulative acknowledgement number, low 32 bits (compared in serial arithmetic, as
    /// TCP's 32-bit sequence space is; RFC 9293 §3.4).
    pub ack: u32,
    /// [`TcpHint::ACK`] and the other flag bits below.
    pub bits: u16,
    /// Which connection of the packet's flow it belongs to: a flow such as a web page has
    /// several connections open at once, whose ACK numbers are unrelated, and an ACK filter compares
    /// only ACKs of one connection. The simulator numbers a connection by its slot (low 16
    /// bits), or, with [`TcpHint::OWN_QUEUE`], by its classification number (see there).
    /// Fits in the struct's padding.
    pub conn: u16,
}

impl TcpHint {
    /// The ACK flag is set.
    pub const ACK: u16 = 1 << 0;
    /// The SYN flag is set.
    pub const SYN: u16 = 1 << 1;
    /// FIN, RST, URG or PSH is set (a header an ACK filter must not drop).
    pub const OTHER_FLAGS: u16 = 1 << 2;
    /// The segment carries data.
    pub const DATA: u16 = 1 << 3;
    /// The segment carries SACK blocks (RFC 2018).
    pub const SACK: u16 = 1 << 4;
    /// ECE.
    pub const ECE: u16 = 1 << 5;
    /// CWR.
    pub const CWR: u16 = 1 << 6;
    /// AE (AccECN, RFC 9768): with ECE and CWR it carries the ACE counter.
    pub const AE: u16 = 1 << 7;
    /// The ECN feedback bits: an ACK filter keeps an ACK whose bits differ from the next one's.
    pub const ECN_FEEDBACK: u16 = Self::ECE | Self::CWR | Self::AE;
    /// Not a header bit: the packet's connection was opened while another of its flow was open
    /// (a web page's parallel connections, RFC 7928 §7.2; a web flow's overlapping exchanges),
    /// which a flow-queue classifier tells apart as Linux's 5-tuple hash does (their source
    /// ports differ), so `conn` is the connection's classification number: the
    /// key a flow-queue discipline classifies the packet by instead of its flow id
    /// ([`Packet::class_key`]). The caller numbers these connections apart from its flow ids
    /// (the simulator: flows `0..F`, the connection in slot `s` is `F + s`, wrapping at 2^16).
    /// Set on every packet of such a flow, with or without the header facts above.
    pub const OWN_QUEUE: u16 = 1 << 8;

    /// True when `self` acknowledges beyond `other` (`after(self, other)` in serial arithmetic).
    #[inline]
    pub const fn ack_after(self, other: TcpHint) -> bool {
        (self.ack.wrapping_sub(other.ack) as i32) > 0
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
    /// TCP header facts (CAKE's ACK filter reads them); default: not TCP.
    pub tcp: TcpHint,
}

impl Packet {
    /// The key a flow-queue discipline classifies the packet by (RFC 8290 §4.1; CAKE's flow
    /// hash): its flow id, or, for a connection its flow opened while another was open
    /// ([`TcpHint::OWN_QUEUE`]), the connection's classification number, so that each open
    /// connection gets a queue of its own as in Linux. Host isolation (CAKE) still goes by
    /// `src_host` and `dst_host`, so the connections count as one host's traffic.
    #[inline]
    pub const fn class_key(&self) -> u32 {
        if self.tcp.bits & TcpHint::OWN_QUEUE != 0 {
            self.tcp.conn as u32
        } else {
            self.flow.0
        }
    }

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
            tcp: TcpHint {
                ack: 0,
                bits: 0,
                conn: 0,
            },
        }
    }
}
