//! What the forwarder reads from an IP packet's header: its flow (the 5-tuple, hashed, for
//! FQ-CoDel) and its ECN codepoint, and how it writes a CE mark back.
//!
//! IPv4: RFC 791 §3.1 (the ECN field is the low two bits of the former TOS octet, RFC 3168 §5;
//! the header checksum is recomputed after a mark, RFC 1071). IPv6: RFC 8200 §3 (the ECN field
//! is the low two bits of the Traffic Class; there is no header checksum). TCP and UDP ports are
//! the first four octets of their headers (RFC 9293 §3.1, RFC 768).

use aqmlab_core::{Ecn, FlowId};

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
