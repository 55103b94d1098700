//! A [`LinkDirection`] driven by a clock its caller owns: what the live emulator
//! (`crates/aqmlab-emu`) runs in virtual time.
//!
//! The caller stamps each arrival with its time ([`ClockedLink::arrive`]), runs the transmitter
//! up to a time ([`ClockedLink::advance`]), and takes the packets whose propagation has ended
//! ([`ClockedLink::pop_arrived`]). Transmissions start at the virtual end of the previous one
//! (never at the time the caller happened to wake up), so a late caller shifts deliveries but
//! never changes the rate or the trace's delivery opportunities.
//!
//! The calls the discipline sees are the simulator's, in the same order: this is the
//! simulator's event loop for one link with the arrivals as its only other events, where a
//! transmission ending at the time of an arrival ends first.

use super::{
    DropRecord, DropSink, LinkBin, LinkDirection, LinkParts, LinkReport, Offer, PacketRecord,
};
use crate::bins::Bins;
use aqmlab_core::{Packet, SimDuration, SimTime};

/// One link direction run by a caller's clock (see the module documentation).
pub struct ClockedLink {
    link: LinkDirection,
    bins: Bins,
}

impl ClockedLink {
    /// A link direction from `parts`, with time series in bins of `bin` (> 0).
    pub fn new(parts: LinkParts, bin: SimDuration) -> ClockedLink {
        ClockedLink {
            link: LinkDirection::new(parts),
            bins: Bins::new(bin.as_nanos().max(1)),
        }
    }

    /// Name.
    pub fn name(&self) -> &str {
        self.link.name()
    }

    /// Renames the direction (reports use the name).
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.link.set_name(name);
    }

    /// Keeps a per-packet log from now on ([`ClockedLink::take_log`] hands it out).
    pub fn log_packets(&mut self) {
        self.link.log_packets();
    }

    /// The per-packet records since the last take, into `packets`, and the log's drops, into
    /// `drops` (both cleared first).
    pub fn take_log(&mut self, packets: &mut Vec<PacketRecord>, drops: &mut Vec<DropRecord>) {
        let (mut p, mut d) = self.link.take_logs();
        packets.clear();
        packets.append(&mut p);
        drops.clear();
        drops.append(&mut d);
        // Give the log its buffers back, so a steady run allocates nothing.
        if let Some(l) = &mut self.link.packet_log {
            std::mem::swap(l, &mut p);
        }
        std::mem::swap(&mut self.link.drop_log, &mut d);
    }

    /// Runs the transmitter up to `now`: every transmission that ends by `now` is followed, at
    /// its end, by the dequeue of the next packet. Dropped packets go to `freed`.
    pub fn advance(&mut self, now: SimTime, freed: &mut impl DropSink) {
        loop {
            let t = self.link.busy_until();
            if t > now {
                return;
            }
            if self.link.tx_done_pending() {
                self.bins.set(t);
                self.link.tx_done();
                self.start_tx(t, freed);
            } else if self.link.idle_poll_due() {
                self.bins.set(t);
                self.link.owed_idle_dequeue(t, self.bins.cur, true, freed);
                return;
            } else {
                return;
            }
        }
    }

    /// The link is free at `t`: the next packet goes on the wire, if there is one.
    fn start_tx(&mut self, t: SimTime, freed: &mut impl DropSink) {
        if let Some(p) = self.link.dequeue(t, &self.bins, freed) {
            self.link.transmit::<false>(t, &self.bins, p, 0, freed);
        }
    }

    /// A packet arrives at `now` (not before an earlier call's time): the transmitter runs up
    /// to `now`, the packet is offered to the discipline, and an idle link starts sending.
    /// Packets the discipline drops go to `freed`.
    pub fn arrive(&mut self, now: SimTime, p: Packet, freed: &mut impl DropSink) {
        self.advance(now, freed);
        self.bins.set(now);
        match self.link.offer(now, &self.bins, p, true, freed) {
            Offer::Passed(p) => {
                self.link.transmit::<true>(now, &self.bins, p, 0, freed);
            }
            Offer::Queued | Offer::WakeAtTxEnd => {}
            Offer::Idle => self.start_tx(now, freed),
        }
    }

    /// When the next thing happens: a transmission with packets behind it ends, or a packet
    /// reaches the far end. (An idle poll owed is made by the next call; it changes nothing
    /// the caller sees.)
    pub fn next_event(&self) -> Option<SimTime> {
        let tx = self
            .link
            .tx_done_pending()
            .then_some(self.link.busy_until());
        let head = self.link.pipe.front_arrival();
        match (tx, head) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next packet whose propagation has ended by `now`, with the time it was due.
    #[inline]
    pub fn pop_arrived(&mut self, now: SimTime) -> Option<(SimTime, Packet)> {
        let pipe = self.link.pipe();
        match pipe.front_arrival() {
            Some(t) if t <= now => Some(pipe.pop_front()),
            _ => None,
        }
    }

    /// The measurements so far, as the simulator reports a link direction at `now`, with the
    /// per-bin rows (a simulator's `Report`'s `link_rows`). Call [`ClockedLink::advance`]
    /// to `now` first, so the discipline has made every call it owes.
    pub fn report_with_rows(&self, now: SimTime) -> (LinkReport, Vec<LinkBin>) {
        let mut bins = self.bins;
        bins.set(now);
        self.link.report(now, &bins)
    }

    /// [`ClockedLink::report_with_rows`] without the rows.
    pub fn report(&self, now: SimTime) -> LinkReport {
        self.report_with_rows(now).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::LinkRate;
    use aqmlab_core::{Bitrate, FlowId, Xoshiro256pp};
    use aqmlab_qdisc::{registry, Qdisc, UniformSource};

    fn link(kind: &str, limit: &str) -> ClockedLink {
        let q = registry::build(
            kind,
            &[("limit".into(), limit.into())],
            UniformSource::seeded(1),
        )
        .unwrap();
        ClockedLink::new(
            LinkParts {
                name: "l".into(),
                rate: LinkRate::Constant(Bitrate::from_mbps(12)),
                delay: SimDuration::from_millis(10),
                qdisc: Qdisc::new(q),
                loss: 0.0,
                loss_rng: Xoshiro256pp::seed_from_u64(1),
                jitter: None,
            },
            SimDuration::from_millis(100),
        )
    }

    #[test]
    fn a_burst_leaves_at_the_link_rate_after_the_delay() {
        let mut l = link("droptail", "3p");
        let mut freed = Vec::new();
        for id in 0..5 {
            l.arrive(SimTime::ZERO, Packet::new(id, 1500, FlowId(0)), &mut freed);
        }
        // One on the wire, three queued, one dropped.
        assert_eq!(freed.iter().map(|p| p.id).collect::<Vec<_>>(), vec![4]);
        // A caller that wakes late (at 1 s) still sees one packet per ms (1500 B at 12 Mb/s),
        // each 10 ms after its last bit left.
        l.advance(SimTime::from_secs(1), &mut freed);
        let mut got = Vec::new();
        while let Some((t, p)) = l.pop_arrived(SimTime::from_secs(1)) {
            got.push((t.as_nanos(), p.id));
        }
        assert_eq!(
            got,
            vec![
                (11_000_000, 0),
                (12_000_000, 1),
                (13_000_000, 2),
                (14_000_000, 3)
            ]
        );
        let r = l.report(SimTime::from_secs(1));
        assert_eq!((r.m.delivered_pkts, r.m.dropped_pkts), (4, 1));
        assert_eq!(r.m.sojourn_ns.max(), 3_000_000.0);
        assert_eq!(r.m.egress_bytes_per_bin.iter().sum::<u64>(), 6000);
        assert_eq!(r.m.max_backlog_per_bin.len(), 10);
        // The idle poll the last transmission owed was made by the advance to 1 s.
        assert_eq!(r.empty_dequeues, 1);
        assert!((r.utilization - 6000.0 * 8.0 / 12e6).abs() < 1e-12);
        assert_eq!(l.next_event(), None);
    }
}
