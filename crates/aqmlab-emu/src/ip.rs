//! What the forwarder reads from an IP packet's header: its flow (the 5-tuple, hashed, for
//! FQ-CoDel) and its ECN codepoint, and how it writes a CE mark back.
//!
//! IPv4: RFC 791 §3.1 (the ECN field is the low two bits of the former TOS octet, RFC 3168 §5;
//! the header checksum is recomputed after a mark, RFC 1071). IPv6: RFC 8200 §3 (the ECN field
//! is the low two bits of the Traffic Class; there is no header checksum). TCP and UDP ports are
//! the first four octets of their headers (RFC 9293 §3.1, RFC 768). For CAKE's ACK filter a TCP
//! segment's acknowledgement number, flags, whether it carries data and whether it has SACK
//! blocks are read too ([`tcp_hint`]).

use aqmlab_core::{Ecn, FlowId, TcpHint};

/// The ECN codepoint of the packet (Not-ECT for anything that is not IPv4 or IPv6).
pub fn ecn(pkt: &[u8]) -> Ecn {
    let bits = match pkt.first().map(|b| b >> 4) {
        Some(4) if pkt.len() >= 20 => pkt[1] & 3,
        Some(6) if pkt.len() >= 40 => (pkt[1] >> 4) & 3,
        _ => 0,
    };
    match bits {
        0b10 => Ecn::Ect0,
        0b01 => Ecn::Ect1,
        0b11 => Ecn::Ce,
        _ => Ecn::NotEct,
    }
}

/// Sets the packet's ECN field to CE (RFC 3168 §5), fixing the IPv4 header checksum.
pub fn set_ce(pkt: &mut [u8]) {
    match pkt.first().map(|b| b >> 4) {
        Some(4) if pkt.len() >= 20 => {
            pkt[1] |= 3;
            let ihl = ((pkt[0] & 0x0f) as usize * 4).clamp(20, pkt.len());
            pkt[10] = 0;
            pkt[11] = 0;
            let mut sum: u32 = 0;
            for w in pkt[..ihl].chunks(2) {
                sum += u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0));
            }
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            let c = !(sum as u16);
            pkt[10..12].copy_from_slice(&c.to_be_bytes());
        }
        Some(6) if pkt.len() >= 40 => pkt[1] |= 0x30,
        _ => {}
    }
}

/// FNV-1a, 32 bits.
fn fnv(h: u32, bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

/// The packet's flow: a hash of protocol, addresses and (TCP, UDP) ports.
pub fn flow(pkt: &[u8]) -> FlowId {
    let h = 0x811c_9dc5;
    let (proto, addrs, l4) = match pkt.first().map(|b| b >> 4) {
        Some(4) if pkt.len() >= 20 => {
            let ihl = (pkt[0] & 0x0f) as usize * 4;
            (pkt[9], &pkt[12..20], ihl)
        }
        Some(6) if pkt.len() >= 40 => (pkt[6], &pkt[8..40], 40),
        _ => return FlowId(0),
    };
    let mut h = fnv(fnv(h, &[proto]), addrs);
    if matches!(proto, 6 | 17) && pkt.len() >= l4 + 4 {
        h = fnv(h, &pkt[l4..l4 + 4]);
    }
    FlowId(h)
}

/// The TCP facts an ACK filter reads (RFC 9293 §3.1): the acknowledgement number (octets 8-11),
/// the flags (octet 13: CWR, ECE, URG, ACK, PSH, RST, SYN, FIN from the top; AE, RFC 9768, is
/// the low bit of octet 12), data beyond the header (data offset, octet 12's top four bits, in
/// 32-bit words, against the IP packet's length) and a SACK option (kind 5, RFC 2018 §3) among
/// the options. Zero (no TCP) for anything else: not IPv4/IPv6, not TCP (an IPv6 extension
/// header counts as not TCP), a fragment after the first, or a header cut short.
pub fn tcp_hint(pkt: &[u8]) -> TcpHint {
    let none = TcpHint::default();
    let (proto, l4, end) = match pkt.first().map(|b| b >> 4) {
        Some(4) if pkt.len() >= 20 => {
            // A later fragment has no TCP header (fragment offset, RFC 791 §3.1).
            if u16::from_be_bytes([pkt[6], pkt[7]]) & 0x1fff != 0 {
                return none;
            }
            let total = u16::from_be_bytes([pkt[2], pkt[3]]) as usize;
            (pkt[9], (pkt[0] & 0x0f) as usize * 4, total)
        }
        Some(6) if pkt.len() >= 40 => {
            let payload = u16::from_be_bytes([pkt[4], pkt[5]]) as usize;
            (pkt[6], 40, 40 + payload)
        }
        _ => return none,
    };
    let end = end.min(pkt.len());
    if proto != 6 || l4 < 20 || end < l4 + 20 {
        return none;
    }
    let t = &pkt[l4..end];
    let hlen = (t[12] >> 4) as usize * 4;
    if hlen < 20 || hlen > t.len() {
        return none;
    }
    let f = t[13];
    let mut bits = 0;
    for (mask, bit) in [
        (0x10, TcpHint::ACK),
        (0x02, TcpHint::SYN),
        (0x40, TcpHint::ECE),
        (0x80, TcpHint::CWR),
    ] {
        if f & mask != 0 {
            bits |= bit;
        }
    }
    // FIN, RST, PSH, URG.
    if f & 0x2d != 0 {
        bits |= TcpHint::OTHER_FLAGS;
    }
    if t[12] & 1 != 0 {
        bits |= TcpHint::AE;
    }
    if t.len() > hlen {
        bits |= TcpHint::DATA;
    }
    // Options: kind 0 ends them, 1 is one octet of padding, the rest are kind, length, data.
    let mut k = 20;
    while k < hlen {
        match t[k] {
            0 => break,
            1 => k += 1,
            kind => {
                let Some(&len) = t.get(k + 1).filter(|&&l| l >= 2) else {
                    break;
                };
                if kind == 5 && len >= 10 {
                    bits |= TcpHint::SACK;
                }
                k += len as usize;
            }
        }
    }
    TcpHint {
        ack: u32::from_be_bytes([t[8], t[9], t[10], t[11]]),
        bits,
        conn: 0,
    }
}

/// The packet's transport (`tcp`, `udp`, `icmp` or `ip`) and its source and destination as
/// `address:port` (or the address alone without ports).
pub fn endpoints(pkt: &[u8]) -> (&'static str, String, String) {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    let (proto, src, dst, l4): (u8, IpAddr, IpAddr, usize) = match pkt.first().map(|b| b >> 4) {
        Some(4) if pkt.len() >= 20 => {
            let a = |i: usize| Ipv4Addr::new(pkt[i], pkt[i + 1], pkt[i + 2], pkt[i + 3]);
            (
                pkt[9],
                a(12).into(),
                a(16).into(),
                (pkt[0] & 0x0f) as usize * 4,
            )
        }
        Some(6) if pkt.len() >= 40 => {
            let a = |i: usize| {
                let mut b = [0u8; 16];
                b.copy_from_slice(&pkt[i..i + 16]);
                Ipv6Addr::from(b)
            };
            (pkt[6], a(8).into(), a(24).into(), 40)
        }
        _ => return ("ip", String::new(), String::new()),
    };
    let kind = match proto {
        6 => "tcp",
        17 => "udp",
        1 | 58 => "icmp",
        _ => "ip",
    };
    if matches!(proto, 6 | 17) && pkt.len() >= l4 + 4 {
        let port = |i: usize| u16::from_be_bytes([pkt[i], pkt[i + 1]]);
        let sa = |a: IpAddr, p: u16| std::net::SocketAddr::new(a, p).to_string();
        (kind, sa(src, port(l4)), sa(dst, port(l4 + 2)))
    } else {
        (kind, src.to_string(), dst.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4 TCP header from 198.18.0.1:40000 to 198.18.0.2:5001 with a valid checksum.
    fn v4(tos: u8) -> Vec<u8> {
        let mut p = vec![
            0x45, tos, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0, 198, 18, 0, 1, 198, 18, 0, 2,
        ];
        p.extend_from_slice(&[0x9c, 0x40, 0x13, 0x89]);
        p.resize(40, 0);
        p
    }

    fn checksum_ok(h: &[u8]) -> bool {
        let mut sum: u32 = h
            .chunks(2)
            .map(|w| u32::from(w[0]) << 8 | u32::from(w[1]))
            .sum();
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        sum == 0xffff
    }

    #[test]
    fn ecn_and_marking() {
        let mut p = v4(0b10);
        assert_eq!(ecn(&p), Ecn::Ect0);
        set_ce(&mut p);
        assert_eq!(ecn(&p), Ecn::Ce);
        assert!(checksum_ok(&p[..20]));
        let mut q = vec![0x60, 0x00, 0, 0];
        q.resize(40, 0);
        q[1] = 0x20; // traffic class 0b0000_0010: ECT(0)
        assert_eq!(ecn(&q), Ecn::Ect0);
        set_ce(&mut q);
        assert_eq!(ecn(&q), Ecn::Ce);
        assert_eq!(ecn(&[0x00]), Ecn::NotEct);
    }

    /// A TCP segment in IPv4 (`v6` false) or IPv6 from `v4`'s ports: acknowledgement number
    /// 0x01020304, `flags` in octet 13, `opts` as the options (a multiple of 4), `data` octets.
    fn tcp(v6: bool, flags: u8, ae: bool, opts: &[u8], data: usize) -> Vec<u8> {
        let mut t = vec![0x9c, 0x40, 0x13, 0x89, 0, 0, 0, 9, 1, 2, 3, 4];
        t.push((((20 + opts.len()) / 4) as u8) << 4 | ae as u8);
        t.push(flags);
        t.extend_from_slice(&[0xff, 0xff, 0, 0, 0, 0]);
        t.extend_from_slice(opts);
        t.resize(t.len() + data, 0xaa);
        let mut p = if v6 {
            let mut h = vec![0x60, 0, 0, 0];
            h.extend_from_slice(&(t.len() as u16).to_be_bytes());
            h.extend_from_slice(&[6, 64]);
            h.resize(40, 1);
            h
        } else {
            let mut h = v4(0);
            h.truncate(20);
            h[2..4].copy_from_slice(&((20 + t.len()) as u16).to_be_bytes());
            h
        };
        p.extend_from_slice(&t);
        p
    }

    #[test]
    fn tcp_hint_reads_ack_flags_data_and_sack() {
        // SACK-permitted (kind 4) is not a SACK block; NOP, NOP, SACK with one block is.
        let sack_ok = [4, 2, 1, 1];
        let sack = [1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2];
        for v6 in [false, true] {
            let h = tcp_hint(&tcp(v6, 0x10, false, &sack_ok, 0));
            assert_eq!((h.ack, h.bits), (0x0102_0304, TcpHint::ACK), "v6 {v6}");
            let h = tcp_hint(&tcp(v6, 0x10 | 0x40 | 0x80, true, &sack, 0));
            assert_eq!(
                h.bits,
                TcpHint::ACK | TcpHint::ECE | TcpHint::CWR | TcpHint::AE | TcpHint::SACK
            );
            let h = tcp_hint(&tcp(v6, 0x18, false, &[], 100));
            assert_eq!(h.bits, TcpHint::ACK | TcpHint::OTHER_FLAGS | TcpHint::DATA);
            assert_eq!(
                tcp_hint(&tcp(v6, 0x12, false, &[], 0)).bits,
                TcpHint::ACK | TcpHint::SYN
            );
            for f in [0x01, 0x04, 0x20] {
                assert_eq!(
                    tcp_hint(&tcp(v6, 0x10 | f, false, &[], 0)).bits,
                    TcpHint::ACK | TcpHint::OTHER_FLAGS
                );
            }
        }
        // Trailing link padding beyond the IP length is not data.
        let mut p = tcp(false, 0x10, false, &[], 0);
        p.extend_from_slice(&[0; 6]);
        assert_eq!(tcp_hint(&p).bits, TcpHint::ACK);
        // Not TCP, cut short, a later fragment, a bad data offset: no hint.
        let mut udp = tcp(false, 0x10, false, &[], 0);
        udp[9] = 17;
        let mut frag = tcp(false, 0x10, false, &[], 0);
        frag[7] = 1;
        let mut off = tcp(false, 0x10, false, &[], 0);
        off[32] = 0xf0;
        let short = &tcp(false, 0x10, false, &[], 0)[..30];
        for p in [&udp[..], &frag[..], &off[..], short, &[0x45][..]] {
            assert_eq!(tcp_hint(p), TcpHint::default());
        }
    }

    #[test]
    fn flows_differ_by_port() {
        let a = v4(0);
        let mut b = v4(0);
        b[21] ^= 1;
        assert_ne!(flow(&a), flow(&b));
        assert_eq!(flow(&a), flow(&v4(3)));
        assert_eq!(flow(&[1, 2]), FlowId(0));
    }
}
