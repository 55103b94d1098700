//! The TCP segment as it travels inside a simulated packet.
//!
//! A [`Segment`] is `Copy` and holds no heap data: the engine can keep it inside its packet arena
//! and the state machines push it into a reused `Vec` without allocating. Sequence numbers are
//! 64-bit and never wrap (a simulated flow never sends 2^64 bytes), so comparisons are plain `<`.
//!
//! Numbering: the SYN occupies sequence number 0 (RFC 9293 §3.4 with ISN = 0) and the first data
//! byte is number 1, also when the handshake is disabled.

use aqmlab_core::SimTime;

/// SYN flag (RFC 9293 §3.1).
pub const SYN: u8 = 0x02;
/// ACK flag: [`Segment::ack`] is valid.
pub const ACK: u8 = 0x10;
/// FIN flag. Defined for completeness; the state machines never send it (flows end when all
/// application bytes are acknowledged).
pub const FIN: u8 = 0x01;
/// ECN-Echo (RFC 3168 §6.1): on a SYN, "I support ECN"; on an ACK, "I received a CE mark".
pub const ECE: u8 = 0x40;
/// Congestion Window Reduced (RFC 3168 §6.1): the sender has reduced its window.
pub const CWR: u8 = 0x80;

/// Bytes of IPv4 + TCP header (20 + 20, no options) added to the payload on the wire.
///
/// SACK and timestamp options are not counted, as in ns-2's fixed 40-byte header.
pub const HEADER_BYTES: u32 = 40;

/// What travels in one packet between a [`crate::TcpSender`] and a [`crate::TcpReceiver`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Sequence number of the first payload byte (or of the SYN).
    pub seq: u64,
    /// Payload bytes.
    pub len: u32,
    /// Cumulative acknowledgement: the next sequence number expected. Valid when `flags` has [`ACK`].
    pub ack: u64,
    /// Bitwise OR of [`SYN`], [`ACK`], [`FIN`], [`ECE`], [`CWR`].
    pub flags: u8,
    /// SACK blocks `[start, end)`, the most recently changed first (RFC 2018 §4). Only the first
    /// [`Segment::n_sack`] entries are meaningful.
    pub sack: [(u64, u64); 3],
    /// Number of valid entries in [`Segment::sack`].
    pub n_sack: u8,
    /// The sender marked this data packet ECN-capable (ECT(0)), RFC 3168 §6.1.2.
    pub ect: bool,
    /// Set by the engine on delivery if the network marked the packet Congestion Experienced.
    pub ce: bool,
    /// Advertised receive window in bytes (`u32::MAX` means unlimited).
    pub rwnd: u32,
    /// The timestamps option (RFC 7323), in the 4 bytes of padding the struct had (0: none).
    /// On data, the sender's `TSval`: [`ts_clock`] when it was sent. On an ACK, what a sender
    /// computes from the ACK's `TSval` and `TSecr`: the receiver's clock when it sent the ACK
    /// less the `TSval` it echoes (`TS.Recent`, §4.3), in microseconds, at least 1. The
    /// simulation has one clock, so subtracting at the receiver gives the same number. Only
    /// senders whose controller needs it stamp their data ([`crate::TcpConfig::timestamps`]);
    /// a receiver answers in kind.
    pub ts: u32,
}

/// The timestamps option's clock (RFC 7323 §5.4): microseconds, modulo 2^32, never 0 (the
/// value that means "no option"; 0 µs reads as 1 µs, once every 71.6 minutes).
pub fn ts_clock(now: SimTime) -> u32 {
    ((now.as_nanos() / 1000) as u32).max(1)
}

impl Segment {
    /// Size of the packet on the wire: payload plus [`HEADER_BYTES`].
    pub const fn wire_bytes(&self) -> u32 {
        self.len + HEADER_BYTES
    }

    /// True if every bit of `flag` is set.
    pub const fn has(&self, flag: u8) -> bool {
        self.flags & flag == flag
    }

    /// The valid SACK blocks.
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..usize::from(self.n_sack.min(3))]
    }

    /// One past the last sequence number this segment occupies (a SYN occupies one number).
    pub const fn end_seq(&self) -> u64 {
        self.seq + self.len as u64 + if self.flags & SYN != 0 { 1 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes_and_flags() {
        let s = Segment {
            seq: 1,
            len: 1460,
            flags: ACK | CWR,
            n_sack: 2,
            sack: [(10, 20), (30, 40), (0, 0)],
            ..Segment::default()
        };
        assert_eq!(s.wire_bytes(), 1500);
        assert!(s.has(ACK) && s.has(CWR) && !s.has(SYN));
        assert_eq!(s.sack_blocks(), &[(10, 20), (30, 40)]);
        assert_eq!(s.end_seq(), 1461);
        let syn = Segment {
            flags: SYN,
            ..Segment::default()
        };
        assert_eq!(syn.end_seq(), 1);
        assert_eq!(syn.wire_bytes(), 40);
    }
}
