//! The ACK filter (Høiland-Jørgensen, Täht, Morton, "Piece of CAKE", 2018, §4.3; Linux
//! `cake_ack_filter`, tc's `ack-filter` and `ack-filter-aggressive`). When a TCP ACK joins a
//! queue, an older pure ACK of the same flow still queued there carries no information the new
//! one lacks, and on an asymmetric link dropping it frees the reverse direction. The rules, for
//! each earlier packet of the queue from the head ("the check") against the one just enqueued
//! ("the trigger"):
//!
//! * the trigger has ACK set and SYN clear; the check is of the same flow and hosts;
//! * the check is a *pure* ACK: ACK set, no SYN/FIN/RST/URG/PSH, no data;
//! * its cumulative ACK is not after the trigger's (serial arithmetic);
//! * SACK: an ACK with SACK blocks is kept (Linux keeps it unless the trigger's blocks cover
//!   every one of its ranges; our packets carry whether there are blocks, not the blocks, so
//!   the filter is more conservative here); a check without blocks is dropped if the trigger
//!   has blocks, or has none and acknowledges strictly more;
//! * ECN feedback: the first eligible ACK is remembered with its ECE/CWR (and here AE, which
//!   with them is AccECN's ACE counter) bits; a later packet of the flow with other bits
//!   forgets it (dropping it would lose a change of signal).
//!
//! The conservative filter drops the first eligible ACK once a *second* one is found, so the
//! flow keeps at least one older ACK besides the trigger. `ack-filter-aggressive` also drops a
//! single eligible ACK when it sits just ahead of the trigger with the same ECN bits.
//! Timestamps: Linux keeps a check whose TSval/TSecr is after the trigger's; a flow's ACKs
//! join a queue in sending order, so that never holds here and is not carried.

use aqmlab_core::{Packet, TcpHint};

use crate::fifo::PacketFifo;

/// tc's ACK filter modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckFilter {
    /// `no-ack-filter` (Linux's default).
    Off,
    /// `ack-filter`: the conservative rules.
    On,
    /// `ack-filter-aggressive`.
    Aggressive,
}

/// A pure ACK an ACK filter may drop: ACK set, no other flag but the ECN feedback ones, no data
/// (`cake_tcph_may_drop` and the segment-length test). [`TcpHint::OWN_QUEUE`] is not a header
/// bit.
#[inline]
fn pure_ack(h: TcpHint) -> bool {
    h.bits & !(TcpHint::ECN_FEEDBACK | TcpHint::SACK | TcpHint::OWN_QUEUE) == TcpHint::ACK
}

/// `cake_tcph_sack_compare(check, trigger)` on what we carry: -1 keep, 0 same, 1 the trigger
/// SACKs more.
#[inline]
fn sack_compare(check: TcpHint, trigger: TcpHint) -> i32 {
    match (
        check.bits & TcpHint::SACK != 0,
        trigger.bits & TcpHint::SACK != 0,
    ) {
        (true, _) => -1,
        (false, true) => 1,
        (false, false) => 0,
    }
}

/// One connection: the flow, its hosts, and the connection within the flow (a web page's
/// parallel connections share a flow, not their sequence spaces).
fn same_flow(a: &Packet, b: &Packet) -> bool {
    a.flow == b.flow
        && a.src_host == b.src_host
        && a.dst_host == b.dst_host
        && a.tcp.conn == b.tcp.conn
}

/// The position in `q` of the ACK the filter drops now that `q`'s last packet has joined it,
/// if any.
pub fn redundant_ack(q: &PacketFifo, mode: AckFilter) -> Option<usize> {
    let n = q.len();
    if mode == AckFilter::Off || n < 2 {
        return None;
    }
    let trigger = *q.get(n - 1)?;
    let t = trigger.tcp;
    if t.bits & (TcpHint::ACK | TcpHint::SYN) != TcpHint::ACK {
        return None;
    }
    let mut elig: Option<(usize, u16)> = None;
    let mut found = 0;
    for k in 0..n - 1 {
        let p = q.get(k)?;
        let c = p.tcp;
        if c.bits == 0 || !same_flow(p, &trigger) {
            continue;
        }
        if elig.is_some_and(|(_, flags)| c.bits & TcpHint::ECN_FEEDBACK != flags) {
            elig = None;
            found -= 1;
        }
        if !pure_ack(c) || c.ack_after(t) {
            continue;
        }
        let sack = sack_compare(c, t);
        if sack < 0 || (c.ack == t.ack && sack == 0) {
            continue;
        }
        if elig.is_none() {
            elig = Some((k, c.bits & TcpHint::ECN_FEEDBACK));
        }
        found += 1;
        if found > 1 {
            return elig.map(|(k, _)| k);
        }
    }
    match elig {
        Some((k, flags))
            if mode == AckFilter::Aggressive
                && k == n - 2
                && flags == t.bits & TcpHint::ECN_FEEDBACK =>
        {
            Some(k)
        }
        _ => None,
    }
}
