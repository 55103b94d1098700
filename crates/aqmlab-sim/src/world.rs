//! The simulation: nodes, link directions driving their queue disciplines, flows, and the event
//! loop. A run is single-threaded and owns its world; events at equal times run in the order
//! they were scheduled, and every random stream is seeded from `(seed, component path)`, so the
//! same configuration and seed give bit-identical results.
//!
//! Each link direction is a [`LinkDirection`](crate::link::LinkDirection) (the same component
//! the live emulator drives): this loop gives it its arrivals, wakes it when a transmission with
//! packets behind it ends (`TxDone`) and when the head of its propagation pipe arrives
//! (`PipeHead`), and counts its drops against their flows.
//!
//! This file holds the [`Sim`] itself, what a packet carries ([`Payload`]) and its id, the
//! events and the loop that dispatches them. The handlers live beside it, one concern each, as
//! more `impl Sim` blocks:
//!
//! * `build` — putting a simulation together: flow specs, checks, links and flows added.
//! * `net` — packets across link directions, hop by hop, and their drops counted per flow.
//! * `tcp` — connections, segments, timers, and a packet's arrival at its endpoint.
//! * `apps` — the applications: when UDP sources send and TCP connections open and write.
//! * `flow_state` — a TCP flow's sender state sampled over time, when asked for.
//! * `owd` — each flow's measured one-way delay distribution after the warm-up, when asked for.
//! * `report` — what a run measures and hands out: reports (of `aqmlab-report`'s types),
//!   totals, series chunks.

use crate::arena::Arena;
use crate::event::EventQueue;
use crate::topology::Routes;
use aqmlab_core::SimTime;
use aqmlab_link::bins::Bins;
use aqmlab_tcp::Segment;

pub use crate::link::{DropRecord, LinkBin, LinkMetrics, LinkReport, PacketRecord};

mod apps;
mod build;
#[cfg(feature = "event-counts")]
mod counts;
mod flow_state;
mod net;
mod owd;
mod page;
mod report;
mod tcp;
mod video;
pub use apps::{
    max_lognormal_sigma, Arrivals, IdleDist, OnOff, SizeDist, TcpApp, MAX_LOGNORMAL_SIGMA,
};
pub use build::{BuildError, FlowSpec, TcpSpec, UdpSpec};
use build::{Flow, FlowKind};
#[cfg(feature = "event-counts")]
pub use counts::{EventCounts, EVENT_KINDS};
pub use flow_state::FlowStateRow;
use net::Link;
pub use page::page_objects;
pub use report::{jain, SeriesChunk, Totals};
use tcp::Conn;
pub use tcp::{LEG_OPEN, LEG_REPLY};
pub use video::VideoSpec;

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

/// A simulation ready to run.
pub struct Sim {
    now: SimTime,
    events: EventQueue<Ev>,
    /// What each packet alive carries, by the slot in its id ([`packet_id`]).
    payloads: Arena<Payload>,
    nodes: Vec<String>,
    /// The same names, as the flows' reports share them
    /// ([`FlowInfo`](aqmlab_report::FlowInfo)'s `src`, `dst`).
    node_names: Vec<std::sync::Arc<str>>,
    links: Vec<Link>,
    routes: Routes,
    flows: Vec<Flow>,
    /// The time bin of `now`, kept up to date per event (a division per bin, not per packet).
    bins: Bins,
    conns: Arena<Conn>,
    /// Web pages being fetched ([`TcpApp::Page`]).
    pages: Arena<page::PageRun>,
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
    /// Some link's discipline reads the packets' [`aqmlab_core::TcpHint`] (CAKE's ACK filter):
    /// only then are TCP segments' hints filled in (they stay zero otherwise, which no other
    /// discipline reads).
    tcp_hints: bool,
    /// [`Sim::take_series`] took the series to the end: the run cannot go on.
    series_ended: bool,
    /// Per flow, the one-way delays of its data packets after the warm-up, when asked for
    /// ([`Sim::measure_owd`]); a side table, so no flow carries it when off.
    owd: Option<Box<owd::OwdSketches>>,
    /// Events processed by kind and link direction ([`Sim::event_counts`]).
    #[cfg(feature = "event-counts")]
    counts: counts::EventCounts,
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
            #[cfg(feature = "event-counts")]
            self.counts.event(&ev);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqmlab_core::Packet;

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn hot_path_types_stay_small() {
        // A packet in flight is a `Packet` (in a queue or a pipe) and a payload in the arena,
        // and a timer an `Ev` in the heap. `Packet` was 32 bytes until CAKE's ACK filter gave
        // it the TCP header facts (`TcpHint`: ack, flags, connection), 8 bytes more that every
        // packet carries; the leg of a TCP segment fits in the payload's padding.
        assert_eq!(std::mem::size_of::<Packet>(), 40);
        assert_eq!(std::mem::size_of::<Payload>(), 96);
        assert_eq!(std::mem::size_of::<Ev>(), 12);
    }

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn flow_state_stays_small() {
        // Every flow keeps a `Flow`, idle or not (issue 24: 1 kB per idle flow). A TCP flow's
        // spec is boxed, so the kind is no larger than a UDP source's state; unboxed it made
        // `FlowKind` 448 bytes and `Flow` 1,328. An empty quantile sketch is a pointer (four
        // of 80 bytes made `Flow` 1,056), and the node names are shared. A report's per-bin
        // columns are one pointer in `FlowMetrics` (three empty vectors made `Flow` 736).
        assert_eq!(std::mem::size_of::<build::FlowKind>(), 184);
        assert_eq!(std::mem::size_of::<crate::sketch::QuantileSketch>(), 8);
        assert_eq!(std::mem::size_of::<aqmlab_report::FlowInfo>(), 112);
        assert_eq!(std::mem::size_of::<Flow>(), 672);
    }
}
