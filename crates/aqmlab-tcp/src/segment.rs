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
/// Accurate ECN flag (RFC 9768 §3.1.1: the former NS bit, offset 7 of the flags). On a SYN,
/// with [`CWR`] and [`ECE`], "I support AccECN"; once AccECN is negotiated, `AE`, `CWR` and
/// `ECE` together are the 3-bit ACE counter (§3.2.2; see [`Segment::ace`]). The model keeps
/// the flags in one byte and sends no URG, so `AE` takes URG's bit (0x20); only the bits'
/// meaning matters here, not their place in a real header.
pub const AE: u8 = 0x20;

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
    /// Bitwise OR of [`SYN`], [`ACK`], [`FIN`], [`ECE`], [`CWR`], [`AE`].
    pub flags: u8,
    /// SACK blocks `[start, end)`, the most recently changed first (RFC 2018 §4); the valid
    /// ones first, the rest `(0, 0)` (no real block is empty: [`Segment::sack_blocks`]).
    pub sack: [(u64, u64); 3],
    /// The sender marked this data packet ECN-capable (ECT(0)), RFC 3168 §6.1.2.
    pub ect: bool,
    /// With [`Segment::ect`]: the codepoint is ECT(1) rather than ECT(0) (the L4S identifier,
    /// RFC 9331 §4.1; TCP Prague sets it).
    pub ect1: bool,
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

    /// The ACE field (RFC 9768 §3.2.2, Figure 3): `AE` is its most significant bit, `CWR` the
    /// middle one, `ECE` the least significant one.
    pub const fn ace(&self) -> u8 {
        ((self.flags & AE != 0) as u8) << 2
            | ((self.flags & CWR != 0) as u8) << 1
            | (self.flags & ECE != 0) as u8
    }

    /// Writes the three least significant bits of `value` into the ACE field.
    pub fn set_ace(&mut self, value: u64) {
        self.flags &= !(AE | CWR | ECE);
        if value & 4 != 0 {
            self.flags |= AE;
        }
        if value & 2 != 0 {
            self.flags |= CWR;
        }
        if value & 1 != 0 {
            self.flags |= ECE;
        }
    }

    /// The valid SACK blocks: those before the first empty one.
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        let n = self.sack.iter().take_while(|&&(s, e)| e > s).count();
        &self.sack[..n]
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

    #[test]
    fn ace_field_bit_order() {
        // RFC 9768 Figure 3: ACE's least significant bit is ECE (offset 9), its most AE (7).
        let mut s = Segment::default();
        for v in 0..16u64 {
            s.set_ace(v);
            assert_eq!(u64::from(s.ace()), v % 8);
        }
        s.set_ace(1);
        assert_eq!(s.flags, ECE);
        s.set_ace(4);
        assert_eq!(s.flags, AE);
        s.flags |= ACK;
        s.set_ace(2);
        assert_eq!(s.flags, ACK | CWR, "set_ace leaves the other flags");
    }
}
