//! Accurate ECN feedback (AccECN, RFC 9768): the negotiation on the SYN and SYN-ACK, and the
//! Data Sender's decoding of the 3-bit ACE counter. The Data Receiver's side (counting CE
//! marks into `r.cep` and writing it into every ACK) is in `receiver.rs`.
//!
//! * Negotiation (§3.1.1, §3.1.2 Table 2). A client that wants AccECN sends a SYN with
//!   `(AE, CWR, ECE) = (1, 1, 1)`. An AccECN server answers with one of the four combinations
//!   of Table 2's top block, which feed back the SYN's IP-ECN field (`(0, 1, 0)` for a Not-ECT
//!   SYN, the only kind this model sends). A classic RFC 3168 server answers `(0, 0, 1)` and
//!   the connection falls back to classic ECN; a server without ECN answers `(0, 0, 0)`; a
//!   broken one that reflects the SYN's flags, `(1, 1, 1)`, means no ECN. An AccECN server
//!   that receives a classic ECN-setup SYN `(0, 1, 1)` answers `(0, 0, 1)` (classic ECN); any
//!   other non-zero combination on a SYN is negotiated as AccECN (§3.1.3), and the reserved
//!   SYN-ACK `(1, 0, 1)` is taken as AccECN by the client (§3.1.3).
//! * Counters (§3.2.1): `r.cep` and `s.cep` both start at 5.
//! * Decoding (§3.2.2.2): on an ACK that is not superseded (it acknowledges new data,
//!   cumulatively or by SACK), `d.cep = (ACE − s.cep) mod 8`, the smallest increment consistent
//!   with the field.
//! * Safety (§3.2.2.5.2, Appendix A.2.1): when the ACK newly delivers `n ≥ 8` packets, the
//!   counter may have cycled; the sender takes the safest case, as many marks as possible:
//!   `dSafer.cep = n − ((n − d.cep) mod 8)`. If `d.cep > n` the ACE value is believed (the
//!   count of packets is then the one that is wrong, §3.2.2.5.2 last paragraph).
//!
//! The AccECN TCP Option (§3.2.3) is not modelled: it is optional, and without it the sender
//! uses the conservative safety rule above.

use crate::segment::{AE, CWR, ECE};

/// Initial value of `r.cep` and `s.cep` (RFC 9768 §3.2.1).
pub const INITIAL_CEP: u64 = 5;

/// The three ECN flags of a SYN or SYN-ACK, `(AE, CWR, ECE)` as a 3-bit number.
const fn triple(flags: u8) -> u8 {
    ((flags & AE != 0) as u8) << 2 | ((flags & CWR != 0) as u8) << 1 | (flags & ECE != 0) as u8
}

/// The feedback mode a connection ends up in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EcnMode {
    /// No ECN: packets are Not-ECT, congestion is signalled by loss only.
    #[default]
    Off,
    /// Classic ECN (RFC 3168): ECE latched until CWR, at most one signal per RTT.
    Classic,
    /// Accurate ECN (RFC 9768): the ACE field counts CE-marked packets.
    Accurate,
}

/// The ECN flags of the client's SYN: `(1, 1, 1)` to request AccECN, `(0, 1, 1)` for classic
/// ECN (RFC 3168 §6.1.1), none otherwise.
pub const fn syn_flags(ecn: bool, accecn: bool) -> u8 {
    match (ecn, accecn) {
        (true, true) => AE | CWR | ECE,
        (true, false) => CWR | ECE,
        _ => 0,
    }
}

/// The server's answer to a SYN carrying `syn_flags`: the mode both its half connections
/// enter and the ECN flags of its SYN-ACK. `ecn` and `accecn` are what the server supports;
/// `syn_ce` is true if the SYN arrived CE-marked.
pub const fn server_response(
    ecn: bool,
    accecn: bool,
    syn_flags: u8,
    syn_ce: bool,
) -> (EcnMode, u8) {
    match triple(syn_flags) {
        0b000 => (EcnMode::Off, 0),
        0b011 if ecn => (EcnMode::Classic, ECE),
        0b011 => (EcnMode::Off, 0),
        // (1,1,1), or any other combination (§3.1.3): AccECN if supported.
        _ if ecn && accecn => {
            // Table 2 top block: Not-ECT → (0,1,0), CE → (1,1,0). This model's SYNs are
            // Not-ECT, so only these two can arrive.
            let fb = if syn_ce { AE | CWR } else { CWR };
            (EcnMode::Accurate, fb)
        }
        // A classic server sees ECE and CWR in an AccECN SYN and answers as RFC 3168 says.
        0b111 if ecn => (EcnMode::Classic, ECE),
        _ => (EcnMode::Off, 0),
    }
}

/// The client's mode once the SYN-ACK with `synack_flags` arrives, having sent a SYN for
/// `ecn` / `accecn` (Table 2, second block, and §3.1.3).
pub const fn client_mode(ecn: bool, accecn: bool, synack_flags: u8) -> EcnMode {
    if !ecn {
        return EcnMode::Off;
    }
    let t = triple(synack_flags);
    if !accecn {
        // RFC 3168 §6.1.1: ECE without CWR (AE is a reserved bit to a classic client).
        return if t & 0b011 == 0b001 {
            EcnMode::Classic
        } else {
            EcnMode::Off
        };
    }
    match t {
        // (0,1,0) Not-ECT, (0,1,1) ECT(1), (1,0,0) ECT(0), (1,1,0) CE on the SYN, and the
        // reserved (1,0,1) taken as AccECN (§3.1.3).
        0b010..=0b110 => EcnMode::Accurate,
        0b001 => EcnMode::Classic,
        _ => EcnMode::Off, // (0,0,0) no ECN; (1,1,1) a broken server reflecting the SYN
    }
}

/// The Data Sender's copy of the receiver's CE packet counter, `s.cep`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AceDecoder {
    s_cep: u64,
}

impl Default for AceDecoder {
    fn default() -> Self {
        AceDecoder { s_cep: INITIAL_CEP }
    }
}

impl AceDecoder {
    /// `s.cep`: CE-marked packets the receiver has reported, plus [`INITIAL_CEP`].
    pub fn s_cep(&self) -> u64 {
        self.s_cep
    }

    /// CE marks reported since the connection started.
    pub fn marks(&self) -> u64 {
        self.s_cep - INITIAL_CEP
    }

    /// An ACK with field `ace` that newly delivers `newly_acked_pkts` packets (cumulatively
    /// or by SACK; 0 means the ACK is superseded or a pure duplicate and its feedback is
    /// ignored, Appendix A.1). Returns the increment applied to `s.cep`: the minimum
    /// `d.cep = (ACE − s.cep) mod 8`, or, if the ACK covers enough packets for the counter to
    /// have cycled, the safer `n − ((n − d.cep) mod 8)` (Appendix A.2.1).
    pub fn on_ack(&mut self, ace: u8, newly_acked_pkts: u64) -> u64 {
        if newly_acked_pkts == 0 {
            return 0;
        }
        let d = (u64::from(ace) + 8 - (self.s_cep % 8)) % 8;
        let n = newly_acked_pkts;
        let delta = if n >= d { n - ((n - d) % 8) } else { d };
        self.s_cep += delta;
        delta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_2_negotiation() {
        // AccECN client, AccECN server: (1,1,1) → (0,1,0), both in AccECN.
        let syn = syn_flags(true, true);
        assert_eq!(syn, AE | CWR | ECE);
        let (m, sa) = server_response(true, true, syn, false);
        assert_eq!((m, sa), (EcnMode::Accurate, CWR));
        assert_eq!(client_mode(true, true, sa), EcnMode::Accurate);
        // A CE-marked SYN is fed back as (1,1,0).
        assert_eq!(server_response(true, true, syn, true).1, AE | CWR);
        assert_eq!(client_mode(true, true, AE | CWR), EcnMode::Accurate);
        // ECT(1) and ECT(0) encodings, and the reserved (1,0,1), are AccECN to the client.
        assert_eq!(client_mode(true, true, CWR | ECE), EcnMode::Accurate);
        assert_eq!(client_mode(true, true, AE), EcnMode::Accurate);
        assert_eq!(client_mode(true, true, AE | ECE), EcnMode::Accurate);
        // AccECN client, classic server: (0,0,1) → classic ECN.
        let (m, sa) = server_response(true, false, syn, false);
        assert_eq!((m, sa), (EcnMode::Classic, ECE));
        assert_eq!(client_mode(true, true, sa), EcnMode::Classic);
        // AccECN client, server without ECN: (0,0,0) → no ECN.
        let (m, sa) = server_response(false, false, syn, false);
        assert_eq!((m, sa), (EcnMode::Off, 0));
        assert_eq!(client_mode(true, true, sa), EcnMode::Off);
        // Broken server reflecting (1,1,1): no ECN.
        assert_eq!(client_mode(true, true, AE | CWR | ECE), EcnMode::Off);
        // Classic client, AccECN server: (0,1,1) → (0,0,1), classic on both sides.
        let syn = syn_flags(true, false);
        let (m, sa) = server_response(true, true, syn, false);
        assert_eq!((m, sa), (EcnMode::Classic, ECE));
        assert_eq!(client_mode(true, false, sa), EcnMode::Classic);
        // Client without ECN, AccECN server.
        assert_eq!(
            server_response(true, true, syn_flags(false, true), false),
            (EcnMode::Off, 0)
        );
        // Forward compatibility (§3.1.3): an unknown SYN combination is negotiated as AccECN.
        assert_eq!(server_response(true, true, AE, false).0, EcnMode::Accurate);
    }

    #[test]
    fn ace_deltas_wrap_at_eight() {
        let mut d = AceDecoder::default();
        assert_eq!(d.s_cep(), 5);
        // ACE 5 (no marks yet): d = 0.
        assert_eq!(d.on_ack(5, 2), 0);
        // 2 marks: r.cep 7 → ACE 7.
        assert_eq!(d.on_ack(7, 2), 2);
        // 1 mark more: r.cep 8 → ACE 0 (wrapped): d = (0 − 7) mod 8 = 1.
        assert_eq!(d.on_ack(0, 2), 1);
        assert_eq!((d.s_cep(), d.marks()), (8, 3));
        // 7 marks in one ACK covering 7 packets: r.cep 15 → ACE 7: d = 7.
        assert_eq!(d.on_ack(7, 7), 7);
        assert_eq!(d.marks(), 10);
        // A superseded ACK (delivers nothing) is ignored even if its ACE differs.
        assert_eq!(d.on_ack(3, 0), 0);
        assert_eq!(d.s_cep(), 15);
    }

    #[test]
    fn safety_when_many_acks_are_lost() {
        // Appendix A.2.1's examples: 9 packets delivered, d.cep = 2 → still 2 (9 − 7 mod 8).
        let mut a = AceDecoder::default();
        assert_eq!(a.on_ack(7, 9), 2);
        // 10 packets delivered, d.cep = 2 → 10 (every one may have been marked).
        let mut b = AceDecoder::default();
        assert_eq!(b.on_ack(7, 10), 10);
        assert_eq!(b.s_cep(), 15);
        // 20 packets, 12 really marked (r.cep 17 → ACE 1): d.cep = (1 − 5) mod 8 = 4, and the
        // safe guess is 20 − ((20 − 4) mod 8) = 20: the counter may have cycled twice.
        let mut c = AceDecoder::default();
        assert_eq!(c.on_ack(1, 20), 20);
        // 17 packets, d.cep = 4: 17 − (13 mod 8) = 12.
        let mut e = AceDecoder::default();
        assert_eq!(e.on_ack(1, 17), 12);
        // Fewer packets than d.cep (7 packets, d = 7 is fine; 3 packets with d = 6): believe ACE.
        let mut f = AceDecoder::default();
        assert_eq!(f.on_ack(3, 3), 6);
        // Without the safety rule, the 10-packet case would have counted only 2 marks: the
        // rule is what raises it (counterfactual of the second case).
        let minimal = (7u64 + 8 - 5) % 8;
        assert_eq!(minimal, 2);
    }
}
