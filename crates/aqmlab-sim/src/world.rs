//! The simulation: nodes, link directions driving their queue disciplines, flows, and the event
//! loop. A run is single-threaded and owns its world; events at equal times run in the order
//! they were scheduled, and every random stream is seeded from `(seed, component path)`, so the
//! same configuration and seed give bit-identical results.
//!
//! Each link direction is a [`LinkDirection`] (the same component the live emulator drives):
//! this loop gives it its arrivals, wakes it when a transmission with packets behind it ends
//! (`TxDone`) and when the head of its propagation pipe arrives (`PipeHead`), and counts its
//! drops against their flows.

use crate::arena::Arena;
use crate::bins::{row_of, Bins};
use crate::event::EventQueue;
use crate::link::{DropSink, LinkDirection, Offer, Sent};
use crate::topology::Routes;
use aqmlab_core::{Bitrate, Packet, SimDuration, SimTime};
use aqmlab_qdisc::{DropReason, MarkReason};
use aqmlab_tcp::Segment;

pub use crate::link::{DropRecord, LinkBin, LinkMetrics, LinkReport, PacketRecord};

mod apps;
mod build;
mod report;
mod tcp;
use apps::AppState;
pub use apps::{Arrivals, IdleDist, OnOff, SizeDist, TcpApp};
pub use build::{BuildError, FlowSpec, TcpSpec, UdpSpec};
use build::{Flow, FlowKind};
pub use report::{jain, FlowBin, FlowInfo, FlowMetrics, Report, SeriesChunk};
use tcp::Conn;
pub use tcp::{LEG_OPEN, LEG_REPLY};
/// What a packet carries, as far as the endpoints care.
#[derive(Clone, Copy, Debug)]
pub enum Payload {
    /// A UDP datagram with its sequence number.
    Udp {
        /// Sequence number within the flow.
        seq: u64,
    },
    /// A TCP segment of leg `leg` of connection `conn` (generation `gen`), towards that leg's
    /// receiver or its sender.
    Tcp {
        /// The segment.
        seg: Segment,
        /// Connection slot.
        conn: u32,
        /// Generation of the slot when the segment was sent (a reused slot has a new one).
        gen: u32,
        /// [`LEG_OPEN`] or [`LEG_REPLY`]: which sender/receiver pair of the connection.
        leg: u8,
        /// True for sender → receiver (data), false for ACKs.
        to_receiver: bool,
    },
}

/// A packet's handle, [`Packet::id`]: its payload's slot in the arena (low 32 bits) and its
/// destination node (high 32 bits). Everything a hop needs travels in the [`Packet`] itself,
/// through the discipline and the propagation pipe, so a hop never looks the packet up: with
/// thousands in flight, that lookup missed the cache at every hop. Only the endpoints read the
/// payload. The disciplines treat the id as opaque.
#[inline]
fn packet_id(slot: u32, dst: u32) -> u64 {
    (dst as u64) << 32 | slot as u64
}

/// The payload slot of the packet with id `id` (see [`packet_id`]).
#[inline]
fn payload_slot(id: u64) -> u32 {
    id as u32
}

/// The destination node of the packet with id `id` (see [`packet_id`]).
#[inline]
fn packet_dst(id: u64) -> u32 {
    (id >> 32) as u32
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    /// A link direction finished sending its packet.
    TxDone(u32),
    /// The packet at the head of link `l`'s propagation pipe reaches the far node.
    PipeHead(u32),
    /// A UDP source sends its next datagram.
    UdpSend(u32),
    /// A TCP flow's application starts.
    TcpStart(u32),
    /// A web flow's next request arrives.
    WebArrival(u32),
    /// A repeating or on/off TCP application's next step (a transfer, a write).
    AppNext(u32),
    /// A web server answers connection `conn` (generation `gen`) after its server delay.
    WebReply { conn: u32, gen: u32 },
    /// A web client sends its next request on persistent connection `conn` (HTTP/1.1).
    WebNext { conn: u32, gen: u32 },
    /// A TCP timer check for the sender (side 0) or receiver (side 1) of a leg, at the event's time.
    TcpTimer {
        conn: u32,
        gen: u32,
        leg: u8,
        side: u8,
    },
}

/// How many events [`Sim::run_until_unless`] runs between two questions to its `stop`: about
/// 10 ms of work on one core.
pub const STOP_CHECK_EVENTS: u32 = 1 << 16;

/// A link direction as the event loop drives it ([`LinkDirection`]), with where it leads.
struct Link {
    dir: LinkDirection,
    /// The node at its far end.
    to: u32,
    /// The event sequence number reserved for the current transmission's `TxDone`, so that a
    /// `TxDone` scheduled late (when a packet starts waiting) keeps the place among equal-time
    /// events it would have had if scheduled when the transmission started.
    tx_seq: u64,
}

/// Where the packets a link direction drops or loses go in a simulation: their payloads are
/// freed, and they are counted against their flows at link `link`.
struct FlowSide<'a> {
    flows: &'a mut [Flow],
    payloads: &'a mut Arena<Payload>,
    link: u32,
}

impl DropSink for FlowSide<'_> {
    #[inline]
    fn dropped(&mut self, pkt: Packet, reason: Option<DropReason>) {
        let slot = payload_slot(pkt.id);
        let data = is_data(self.payloads, slot);
        self.payloads.free(slot);
        let fm = &mut self.flows[pkt.flow.0 as usize].m;
        fm.receiver.lost_pkts += data as u64;
        fm.dropped_pkts += 1;
        let at = fm.at_links.at(self.link);
        match reason {
            Some(r) => {
                at.dropped_pkts += 1;
                at.drops_by_reason[r.index()] += 1;
            }
            None => at.lost_pkts += 1,
        }
    }

    #[inline]
    fn marked(&mut self, pkt: &Packet, reason: MarkReason) {
        let at = self.flows[pkt.flow.0 as usize].m.at_links.at(self.link);
        at.marked_pkts += 1;
        at.marks_by_reason[reason.index()] += 1;
    }
}

/// Whether the payload in `slot` is data towards a receiver (not an ACK).
#[inline]
fn is_data(payloads: &Arena<Payload>, slot: u32) -> bool {
    match payloads.get(slot) {
        Payload::Udp { .. } => true,
        Payload::Tcp { to_receiver, .. } => *to_receiver,
    }
}

/// A simulation ready to run.
pub struct Sim {
    now: SimTime,
    events: EventQueue<Ev>,
    /// What each packet alive carries, by the slot in its id ([`packet_id`]).
    payloads: Arena<Payload>,
    nodes: Vec<String>,
    links: Vec<Link>,
    routes: Routes,
    flows: Vec<Flow>,
    /// The time bin of `now`, kept up to date per event (a division per bin, not per packet).
    bins: Bins,
    conns: Arena<Conn>,
    next_gen: u32,
    segs: Vec<Segment>,
    /// A second reusable segment buffer (a web server's response and its request ACK).
    segs_reply: Vec<Segment>,
    /// A reusable plan of a PackMime HTTP/1.1 connection's exchanges.
    web_plan: Vec<crate::packmime::Exchange>,
    /// When the packet whose payload is in each arena slot was sent, ns (its one-way delay is
    /// measured from it): set by [`Sim::new_payload`].
    sent_ns: Vec<u64>,
    seed: u64,
    /// Sequence number of the event being processed (orders ties against reserved `TxDone`s).
    cur_seq: u64,
    /// Idle tail-drop links skip the discipline calls ([`Qdisc::pass_through`]); see
    /// [`Sim::set_idle_shortcut`].
    idle_shortcut: bool,
    /// [`Sim::take_series`] took the series to the end: the run cannot go on.
    series_ended: bool,
}

/// When packet `k` (from 0) of a source sending `size`-byte packets at `rate` since `epoch`
/// goes: `epoch + ceil(k·size·8·1e9 / rate)` ns. Computed from the epoch rather than by adding a
/// rounded interval per packet, so the source keeps its rate on average when the interval is
/// not a whole number of nanoseconds (20-byte packets at 1 Tb/s go 6 or 7 to a nanosecond).
fn udp_send_time(epoch: SimTime, k: u64, size: u32, rate: Bitrate) -> SimTime {
    let ns = (k as u128 * size as u128 * 8_000_000_000).div_ceil(rate.as_bps() as u128);
    epoch + SimDuration::from_nanos(ns.min(u64::MAX as u128) as u64)
}

impl Sim {
    /// Current simulated time.
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.events.processed()
    }
    /// TCP connections currently open.
    pub fn tcp_connections_open(&self) -> usize {
        self.conns.len()
    }
    /// Packets currently alive (queued, in transmission or propagating).
    pub fn packets_alive(&self) -> usize {
        self.payloads.len()
    }

    /// Runs every event before `until`, then sets the clock to `until`. Events at exactly
    /// `until` run in the next call, so a run of duration D covers [0, D) and its time series
    /// (bins of [k·bin, (k+1)·bin)) hold exactly what its totals count.
    pub fn run_until(&mut self, until: SimTime) {
        self.run_until_unless(until, &mut || false);
    }

    /// [`Sim::run_until`], asking `stop` every [`STOP_CHECK_EVENTS`] events whether to stop
    /// early (a front end's Ctrl-C: however slow a stretch of simulated time is, the run answers
    /// within that many events). Returns false when it stopped early, with the clock at the
    /// last event run; a later call to the same `until` goes on exactly where it stopped, so the
    /// results do not depend on whether or where it stopped.
    pub fn run_until_unless(&mut self, until: SimTime, stop: &mut dyn FnMut() -> bool) -> bool {
        assert!(
            !self.series_ended,
            "the time series were taken to the end (take_series): the run is over"
        );
        let mut budget = STOP_CHECK_EVENTS;
        while let Some((t, seq, ev)) = self.events.pop_before(until) {
            self.now = t;
            self.bins.set(t);
            self.cur_seq = seq;
            match ev {
                Ev::TxDone(l) => self.on_tx_done(l),
                Ev::PipeHead(l) => self.on_pipe_head(l),
                Ev::UdpSend(f) => self.on_udp_send(f),
                Ev::TcpStart(f) => self.on_tcp_start(f),
                Ev::WebArrival(f) => self.on_web_arrival(f),
                Ev::AppNext(f) => self.on_app_next(f),
                Ev::WebReply { conn, gen } => self.on_web_reply(conn, gen),
                Ev::WebNext { conn, gen } => self.on_web_next(conn, gen),
                Ev::TcpTimer {
                    conn,
                    gen,
                    leg,
                    side,
                } => self.on_tcp_timer(conn, gen, leg, side, t),
            }
            budget -= 1;
            if budget == 0 {
                budget = STOP_CHECK_EVENTS;
                if stop() {
                    return false;
                }
            }
        }
        self.now = self.now.max(until);
        self.bins.set(self.now);
        // Links whose transmission ended before `until` with nothing waiting owe the empty
        // dequeue they made then (an eager TxDone at busy_until < until would have run); make
        // it now, so every discipline's state and counters are exact at a report.
        for l in 0..self.links.len() {
            let link = &self.links[l].dir;
            if link.idle_poll_due() && link.busy_until() < until {
                self.owed_idle_dequeue(l as u32);
            }
        }
        true
    }

    #[inline]
    fn bin(&self) -> usize {
        debug_assert_eq!(self.bins.cur, self.bins.of(self.now));
        self.bins.cur
    }

    /// Puts `payload` in the arena, stamped with the time it is sent (now).
    #[inline]
    pub(super) fn new_payload(&mut self, payload: Payload) -> u32 {
        let slot = self.payloads.insert(payload);
        let i = slot as usize;
        if i >= self.sent_ns.len() {
            // Only when the arena grows: its slots are reused.
            self.sent_ns.resize(i + 1, 0);
        }
        self.sent_ns[i] = self.now.as_nanos();
        slot
    }

    fn on_pipe_head(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        let pipe = link.dir.pipe();
        let (at, p) = pipe.pop_front(); // a PipeHead event has a packet
        debug_assert_eq!(at, self.now);
        if let Some(next) = pipe.front_arrival() {
            self.events.push(next, Ev::PipeHead(l));
        }
        let node = link.to;
        if packet_dst(p.id) == node {
            self.deliver(p);
        } else {
            self.forward(node, p);
        }
    }

    /// Hands `p` at `node` to the link towards its destination.
    fn forward(&mut self, node: u32, p: Packet) {
        let size = p.size_bytes;
        let l = self
            .routes
            .next_link(node, packet_dst(p.id))
            .expect("routes were checked when the flow was added");
        let now = self.now;
        let link = &self.links[l as usize];
        // Has this link's transmission ended, in event order? At a tie with its end, the
        // `TxDone` that eager scheduling would have pushed (sequence `tx_seq`) comes first
        // exactly when the current event was scheduled after the transmission started.
        let busy_until = link.dir.busy_until();
        let tx_ended = now > busy_until || (now == busy_until && self.cur_seq > link.tx_seq);
        if link.dir.idle_poll_due() && tx_ended {
            self.owed_idle_dequeue(l);
        }
        let at = self.flows[p.flow.0 as usize].m.at_links.at(l);
        at.arrived_pkts += 1;
        at.arrived_bytes += size as u64;
        let link = &mut self.links[l as usize];
        let mut sink = FlowSide {
            flows: &mut self.flows,
            payloads: &mut self.payloads,
            link: l,
        };
        match link
            .dir
            .offer(now, &self.bins, p, self.idle_shortcut, &mut sink)
        {
            Offer::Passed(p) => self.transmit::<true>(l, p),
            // Busy: the scheduled TxDone will take it in turn.
            Offer::Queued => {}
            Offer::WakeAtTxEnd => {
                let (at, seq) = (link.dir.busy_until(), link.tx_seq);
                self.events.push_with_seq(at, seq, Ev::TxDone(l));
            }
            Offer::Idle => self.start_tx(l),
        }
    }

    /// Link `l` went idle at its transmission's end with nothing waiting: makes the empty
    /// dequeue it made then.
    #[inline(always)]
    fn owed_idle_dequeue(&mut self, l: u32) {
        let bin = self.bin();
        let mut sink = FlowSide {
            flows: &mut self.flows,
            payloads: &mut self.payloads,
            link: l,
        };
        self.links[l as usize]
            .dir
            .owed_idle_dequeue(self.now, bin, self.idle_shortcut, &mut sink);
    }

    /// Link `l` is free: take the next packet from its discipline, if any.
    fn start_tx(&mut self, l: u32) {
        let mut sink = FlowSide {
            flows: &mut self.flows,
            payloads: &mut self.payloads,
            link: l,
        };
        let out = self.links[l as usize]
            .dir
            .dequeue(self.now, &self.bins, &mut sink);
        if let Some(p) = out {
            self.transmit::<false>(l, p);
        }
    }

    /// Link `l` starts sending `p`, just dequeued ([`LinkDirection::transmit`]); the events it
    /// asks for are scheduled.
    #[inline]
    fn transmit<const PASSING: bool>(&mut self, l: u32, p: Packet) {
        let link = &mut self.links[l as usize];
        let mut sink = FlowSide {
            flows: &mut self.flows,
            payloads: &mut self.payloads,
            link: l,
        };
        let Sent { pipe_head, tx_done } = link
            .dir
            .transmit::<PASSING>(self.now, &self.bins, p, &mut sink);
        if let Some(at) = pipe_head {
            self.events.push(at, Ev::PipeHead(l));
        }
        // Reserved after the PipeHead push, as when this was one function: ties keep their order.
        link.tx_seq = self.events.reserve_seq();
        if let Some(end) = tx_done {
            self.events.push_with_seq(end, link.tx_seq, Ev::TxDone(l));
        }
    }

    fn on_tx_done(&mut self, l: u32) {
        self.links[l as usize].dir.tx_done();
        self.start_tx(l);
    }

    /// With `false`, every packet goes through its link's discipline calls, even across an idle
    /// tail-drop link ([`Qdisc::pass_through`] and [`Qdisc::dequeue_when_idle`] are not used).
    /// The results are identical either way: this is there to check that, and to measure what
    /// the shortcut saves.
    pub fn set_idle_shortcut(&mut self, on: bool) {
        self.idle_shortcut = on;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn hot_path_types_stay_small() {
        // A packet in flight is a `Packet` (in a queue or a pipe) and a payload in the arena,
        // and a timer an `Ev` in the heap: the leg of a TCP segment fits in padding that was
        // already there.
        assert_eq!(std::mem::size_of::<Packet>(), 32);
        assert_eq!(std::mem::size_of::<Payload>(), 96);
        assert_eq!(std::mem::size_of::<Ev>(), 12);
    }
}
