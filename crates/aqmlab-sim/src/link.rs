//! One direction of a link, driven by a clock its caller owns: the rate model, then the queue
//! discipline, then the propagation delay line, with the per-packet measurements of a run.
//!
//! This is the component the live emulator (`crates/aqmlab-emu`) drives in virtual time: the
//! caller stamps each arrival with its time, calls [`LinkDirection::advance`] to run the
//! transmitter up to a time, and takes the packets whose propagation has ended with
//! [`LinkDirection::pop_arrived`]. Transmissions start at the virtual end of the previous one
//! (never at the time the caller happened to wake up), so a late caller shifts deliveries but
//! never changes the rate or the trace's delivery opportunities.
//!
//! It follows the simulator's link semantics (`world.rs`): one packet on the wire at a time;
//! when a transmission ends the link asks its discipline for the next packet, and an idle link
//! asks once and then waits for an arrival; a packet arriving at an idle link is enqueued and
//! dequeued at once. The measurements are the simulator's [`LinkMetrics`], [`LinkBin`] series
//! and [`PacketRecord`] log, so a [`LinkReport`] built here goes into `summary.json` unchanged.

use crate::dist::DurationDist;
use crate::metrics::QueueArea;
use crate::pipe::Pipe;
use crate::rate::LinkRate;
use crate::world::{LinkBin, LinkMetrics, LinkReport, PacketRecord};
use aqmlab_core::{Packet, SimDuration, SimTime, Xoshiro256pp};
use aqmlab_qdisc::{AnyQdisc, Qdisc, QdiscEvent};

/// What a link direction is made of (as a scenario file gives it).
#[derive(Debug)]
pub struct LinkParts {
    /// Name (`NAME` or `NAME.rev`).
    pub name: String,
    /// Rate over time.
    pub rate: LinkRate,
    /// Propagation delay.
    pub delay: SimDuration,
    /// The discipline, with its counters.
    pub qdisc: Qdisc<AnyQdisc>,
    /// Random loss probability on the wire, and its random stream.
    pub loss: f64,
    /// The random stream of the losses.
    pub loss_rng: Xoshiro256pp,
    /// A random extra delay per packet and its random stream (the scenario's `jitter`).
    pub jitter: Option<(DurationDist, Xoshiro256pp)>,
}

/// One link direction run by a caller's clock (see the module documentation).
pub struct LinkDirection {
    name: String,
    rate: LinkRate,
    delay: SimDuration,
    q: Qdisc<AnyQdisc>,
    loss: f64,
    loss_rng: Xoshiro256pp,
    jitter: Option<(DurationDist, Xoshiro256pp)>,
    /// The latest arrival time given to a packet (jitter never reorders a link).
    last_arrival: SimTime,
    /// A transmission ends at `busy_until` and the dequeue that follows it is still owed.
    on_wire: bool,
    busy_until: SimTime,
    /// The transmission in progress, `(end, size)`, not yet counted as sent.
    sending: Option<(SimTime, u32)>,
    pipe: Pipe,
    m: LinkMetrics,
    series: Vec<LinkBin>,
    bin_ns: u64,
    /// The last queue level noted: (bin, packets, bytes), carried into later bins.
    level: (usize, u64, u64),
    /// The backlog integrated over time (the time-averaged queue per bin).
    area: QueueArea,
    log: Option<Vec<PacketRecord>>,
}

impl LinkDirection {
    /// A link direction from `parts`, with time series in bins of `bin` (> 0).
    pub fn new(parts: LinkParts, bin: SimDuration) -> LinkDirection {
        LinkDirection {
            name: parts.name,
            rate: parts.rate,
            delay: parts.delay,
            q: parts.qdisc,
            loss: parts.loss,
            loss_rng: parts.loss_rng,
            jitter: parts.jitter,
            last_arrival: SimTime::ZERO,
            on_wire: false,
            busy_until: SimTime::ZERO,
            sending: None,
            pipe: Pipe::with_capacity(4096),
            m: LinkMetrics::default(),
            series: Vec::with_capacity(4096),
            bin_ns: bin.as_nanos().max(1),
            level: (0, 0, 0),
            area: QueueArea::default(),
            log: None,
        }
    }

    /// Name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Renames the direction (reports use the name).
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }

    /// Keeps a per-packet log from now on ([`LinkDirection::take_log`] hands it out).
    pub fn log_packets(&mut self) {
        self.log.get_or_insert_with(|| Vec::with_capacity(4096));
    }

    /// The per-packet records since the last take, into `out` (cleared first; no allocation once
    /// both vectors have grown).
    pub fn take_log(&mut self, out: &mut Vec<PacketRecord>) {
        out.clear();
        if let Some(l) = &mut self.log {
            out.append(l);
        }
    }

    fn bin(&self, t: SimTime) -> usize {
        (t.as_nanos() / self.bin_ns) as usize
    }

    fn row(&mut self, bin: usize) -> &mut LinkBin {
        if self.series.len() <= bin {
            self.series.resize(bin + 1, LinkBin::default());
        }
        &mut self.series[bin]
    }

    /// Notes the queue level after a call at `t`: each bin keeps the largest level seen in it,
    /// and bins without calls the level that held through them.
    fn note_level(&mut self, t: SimTime) {
        let bin = self.bin(t);
        let b = self.q.backlog();
        let (pkts, bytes) = (b.packets as u64, b.bytes);
        self.m.max_backlog_pkts = self.m.max_backlog_pkts.max(b.packets);
        let (last, lp, lb) = self.level;
        self.row(bin);
        if bin > last {
            for r in &mut self.series[last + 1..bin] {
                r.max_backlog_pkts = r.max_backlog_pkts.max(lp);
                r.max_backlog_bytes = r.max_backlog_bytes.max(lb);
            }
        }
        let r = &mut self.series[bin];
        r.max_backlog_pkts = r.max_backlog_pkts.max(pkts);
        r.max_backlog_bytes = r.max_backlog_bytes.max(bytes);
        self.level = (bin.max(last), pkts, bytes);
        let start = bin as u64 * self.bin_ns;
        self.area.advance(
            t.as_nanos(),
            pkts,
            bytes,
            self.bin_ns,
            0,
            (bin, start, start + self.bin_ns),
            &mut self.series,
        );
    }

    /// Counts the drops and marks of the discipline's last call at `t`; dropped packets go to
    /// `freed` (their buffers are the caller's).
    fn account(&mut self, t: SimTime, freed: &mut Vec<Packet>) {
        let bin = self.bin(t);
        let mut drops = 0;
        for e in self.q.events() {
            match *e {
                QdiscEvent::Dropped { pkt, reason, .. } => {
                    self.m.drops_by_reason[reason.index()] += 1;
                    self.m.dropped_pkts += 1;
                    drops += 1;
                    freed.push(pkt);
                }
                QdiscEvent::Marked { reason, .. } => {
                    self.m.marks_by_reason[reason.index()] += 1;
                    self.m.marked_pkts += 1;
                }
            }
        }
        if drops > 0 {
            self.row(bin).drops += drops;
        }
    }

    /// Counts the transmission in progress as sent if it has ended by `now`.
    fn count_sent(&mut self, now: SimTime) {
        if let Some((end, size)) = self.sending {
            if end <= now {
                self.sending = None;
                self.m.delivered_pkts += 1;
                self.m.delivered_bytes += size as u64;
                let bin = self.bin(end);
                self.row(bin).egress_bytes += size as u64;
            }
        }
    }

    /// Puts `p`, released by the discipline at `t`, on the wire.
    fn transmit(&mut self, t: SimTime, p: Packet, freed: &mut Vec<Packet>) {
        let sojourn = t.as_nanos().saturating_sub(p.enqueue_ns);
        self.m.sojourn_ns.add(sojourn);
        self.m.sojourn_moments.add(sojourn);
        let bin = self.bin(t);
        let r = self.row(bin);
        r.released_pkts += 1;
        r.sojourn_sum_ns += sojourn;
        if let Some(l) = &mut self.log {
            l.push(PacketRecord {
                t_ns: t.as_nanos(),
                sojourn_ns: sojourn,
                size: p.size_bytes,
                flow: p.flow.0,
            });
        }
        let end = self.rate.tx_end(t, p.size_bytes);
        self.busy_until = end;
        self.on_wire = true;
        self.sending = Some((end, p.size_bytes));
        if self.loss > 0.0 && self.loss_rng.next_f64() < self.loss {
            self.m.lost_pkts += 1;
            freed.push(p);
        } else {
            let mut at = end + self.delay;
            if let Some((dist, rng)) = &mut self.jitter {
                // As the simulator: no arrival before the previous one.
                at = (at + dist.sample(rng, crate::world::MAX_JITTER)).max(self.last_arrival);
                self.last_arrival = at;
            }
            self.pipe.push_back(at, p);
        }
    }

    /// Runs the transmitter up to `now`: every transmission that ends by `now` is followed, at
    /// its end, by the dequeue of the next packet. Dropped packets go to `freed`.
    pub fn advance(&mut self, now: SimTime, freed: &mut Vec<Packet>) {
        while self.on_wire && self.busy_until <= now {
            let t = self.busy_until;
            self.on_wire = false;
            self.count_sent(t);
            let out = self.q.dequeue(t);
            self.account(t, freed);
            self.note_level(t);
            if let Some(p) = out {
                self.transmit(t, p, freed);
            }
        }
    }

    /// A packet arrives at `now` (not before an earlier call's time): the transmitter runs up
    /// to `now`, the packet is offered to the discipline, and an idle link starts sending.
    /// Packets the discipline drops go to `freed`.
    pub fn arrive(&mut self, now: SimTime, p: Packet, freed: &mut Vec<Packet>) {
        self.advance(now, freed);
        let bin = self.bin(now);
        self.row(bin).ingress_bytes += p.size_bytes as u64;
        self.q.enqueue(now, p);
        self.account(now, freed);
        self.note_level(now);
        if !self.on_wire {
            self.count_sent(now);
            let out = self.q.dequeue(now);
            self.account(now, freed);
            self.note_level(now);
            if let Some(p) = out {
                self.transmit(now, p, freed);
            }
        }
    }

    /// When the next thing happens: a transmission ends or a packet reaches the far end.
    pub fn next_event(&self) -> Option<SimTime> {
        let tx = self.on_wire.then_some(self.busy_until);
        match (tx, self.pipe.front_arrival()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next packet whose propagation has ended by `now`, with the time it was due.
    #[inline]
    pub fn pop_arrived(&mut self, now: SimTime) -> Option<(SimTime, Packet)> {
        match self.pipe.front_arrival() {
            Some(t) if t <= now => Some(self.pipe.pop_front()),
            _ => None,
        }
    }

    /// The measurements so far, as the simulator reports a link direction at `now`.
    pub fn report(&self, now: SimTime) -> LinkReport {
        self.report_with_rows(now).0
    }

    /// [`LinkDirection::report`], with the per-bin rows (a [`crate::world::Report`]'s
    /// `link_rows`: the time-averaged queue and the capacity of each bin too).
    pub fn report_with_rows(&self, now: SimTime) -> (LinkReport, Vec<LinkBin>) {
        let mut m = self.m.clone();
        let mut rows = self.series.clone();
        let offered = self.q.stats().received;
        (m.enqueued_pkts, m.ingress_bytes) = (offered.packets, offered.bytes);
        let mut in_flight = 0;
        if let Some((end, size)) = self.sending {
            if end < now {
                m.delivered_pkts += 1;
                m.delivered_bytes += size as u64;
                let bin = self.bin(end);
                if rows.len() <= bin {
                    rows.resize(bin + 1, LinkBin::default());
                }
                rows[bin].egress_bytes += size as u64;
            } else {
                in_flight = 1;
            }
        }
        let n = (now.as_nanos().div_ceil(self.bin_ns) as usize).max(rows.len());
        rows.resize(n, LinkBin::default());
        let (lb, pkts, bytes) = self.level;
        for r in rows.iter_mut().skip(lb + 1) {
            r.max_backlog_pkts = r.max_backlog_pkts.max(pkts);
            r.max_backlog_bytes = r.max_backlog_bytes.max(bytes);
        }
        let mut area = self.area;
        let cur = (usize::MAX, 0, 0); // no bin known: the rows are found by division
        area.advance(
            now.as_nanos(),
            area.pkts,
            area.bytes,
            self.bin_ns,
            0,
            cur,
            &mut rows,
        );
        rows.truncate(n);
        for (k, r) in rows.iter_mut().enumerate() {
            let start = k as u64 * self.bin_ns;
            let end = (start + self.bin_ns).min(now.as_nanos());
            let bits = self
                .rate
                .capacity_bits(SimTime::from_nanos(start), SimTime::from_nanos(end));
            r.capacity_bits = bits.min(u64::MAX as u128) as u64;
        }
        m.ingress_bytes_per_bin = rows.iter().map(|r| r.ingress_bytes).collect();
        m.egress_bytes_per_bin = rows.iter().map(|r| r.egress_bytes).collect();
        m.max_backlog_per_bin = rows.iter().map(|r| r.max_backlog_pkts).collect();
        m.max_backlog_bytes_per_bin = rows.iter().map(|r| r.max_backlog_bytes).collect();
        m.drops_per_bin = rows.iter().map(|r| r.drops).collect();
        m.released_per_bin = rows.iter().map(|r| r.released_pkts).collect();
        m.sojourn_sum_ns_per_bin = rows.iter().map(|r| r.sojourn_sum_ns).collect();
        let cap = self.rate.capacity_bits(SimTime::ZERO, now);
        let report = LinkReport {
            name: self.name.clone(),
            qdisc: self.q.inner().kind().name(),
            backlog_pkts: self.q.backlog().packets,
            in_flight,
            empty_dequeues: self.q.stats().empty_dequeues,
            capacity_bits: cap,
            utilization: if cap == 0 {
                0.0
            } else {
                m.delivered_bytes as f64 * 8.0 / cap as f64
            },
            m,
        };
        (report, rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqmlab_core::{Bitrate, FlowId};
    use aqmlab_qdisc::{registry, UniformSource};

    fn link(kind: &str, limit: &str) -> LinkDirection {
        let q = registry::build(
            kind,
            &[("limit".into(), limit.into())],
            UniformSource::seeded(1),
        )
        .unwrap();
        LinkDirection::new(
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
        assert!((r.utilization - 6000.0 * 8.0 / 12e6).abs() < 1e-12);
        assert_eq!(l.next_event(), None);
    }
}
