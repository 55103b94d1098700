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
use crate::event::{EventQueue, Lane};
use crate::link::{DropSink, LinkDirection, Offer, Sent};
use crate::topology::Routes;
use aqmlab_core::{Bitrate, Ecn, FlowId, Packet, SimDuration, SimTime};
use aqmlab_qdisc::{DropReason, MarkReason};
use aqmlab_tcp::{Segment, TcpReceiver, TcpSender};

pub use crate::link::{DropRecord, LinkBin, LinkMetrics, LinkReport, PacketRecord};

mod apps;
mod build;
mod report;
use apps::AppState;
pub use apps::{Arrivals, IdleDist, OnOff, SizeDist, TcpApp};
pub use build::{BuildError, FlowSpec, TcpSpec, UdpSpec};
use build::{Flow, FlowKind};
pub use report::{jain, FlowBin, FlowInfo, FlowMetrics, Report, SeriesChunk};

/// The leg of a connection that opens it: SYN, then a bulk or finite transfer, or a web request.
pub const LEG_OPEN: u8 = 0;
/// The leg a web server answers on, in the other direction, once the request has arrived.
pub const LEG_REPLY: u8 = 1;

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

/// One direction of a connection: a sender at node `from` and its receiver at node `to`.
struct Leg {
    sender: TcpSender,
    receiver: TcpReceiver,
    from: u32,
    to: u32,
    /// Time of the earliest pending timer event of each side (sender, receiver), if any.
    timer_pending: [Option<SimTime>; 2],
    /// Receiver bytes already counted in the flow's metrics.
    delivered: u64,
    /// Sender retransmissions, timeouts and fast recoveries already counted in the flow's
    /// metrics.
    retransmits: u64,
    timeouts: u64,
    fast_recoveries: u64,
}

impl Leg {
    fn new(sender: TcpSender, receiver: TcpReceiver, from: u32, to: u32) -> Leg {
        Leg {
            sender,
            receiver,
            from,
            to,
            timer_pending: [None, None],
            delivered: 0,
            retransmits: 0,
            timeouts: 0,
            fast_recoveries: 0,
        }
    }
}

struct Conn {
    gen: u32,
    flow: u32,
    start: SimTime,
    /// `legs[LEG_OPEN]` always exists; `legs[LEG_REPLY]` once a web server answers.
    legs: [Option<Leg>; 2],
    /// Web: `(request bytes, response bytes)`. The exchange is done when the response is.
    web: Option<(u64, u64)>,
    /// Kept open when its transfer completes (the application writes into it again); freed
    /// only if it never opens.
    persistent: bool,
    /// A transfer is being measured, from `start`, until every byte written is acknowledged.
    measured: bool,
    /// Web: how long the server waits, once it has the whole request, before it answers.
    reply_delay: SimDuration,
    /// Web: the whole request has arrived and the server's answer is scheduled.
    reply_scheduled: bool,
    /// Web, a persistent HTTP/1.1 connection: its exchanges (the first is `web`).
    web_more: Option<Box<apps::WebMore>>,
}

impl Conn {
    /// The leg whose delivered bytes are the flow's goodput and whose completion ends the
    /// transfer: the response for web, else the only leg.
    fn main_leg(&self) -> u8 {
        if self.web.is_some() {
            LEG_REPLY
        } else {
            LEG_OPEN
        }
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

    /// Opens a connection of flow `f` now. Without a `response`, the flow's source connects and
    /// sends `bytes` (`None`: unlimited). With one (web), the flow's destination (the client)
    /// connects and sends a request of `bytes`, which the source answers with `response` bytes.
    /// A `persistent` connection stays open when its bytes are acknowledged, for the
    /// application to write more ([`TcpSender::write`]); opened with `Some(0)` bytes it measures
    /// no transfer. Returns the connection's slot and generation.
    fn open_conn(
        &mut self,
        f: u32,
        bytes: Option<u64>,
        response: Option<u64>,
        persistent: bool,
    ) -> (u32, u32) {
        let FlowKind::Tcp { spec, .. } = &self.flows[f as usize].kind else {
            unreachable!()
        };
        let (mut cfg, src, dst) = (spec.cfg, spec.src, spec.dst);
        match spec.syn_retries {
            Some(n) => cfg.syn_retries = n,
            // By default only a web client gives up on an unanswered SYN (its exchange is
            // counted as failed and the next request opens a new connection). A bulk or finite
            // flow has nothing else to do: it keeps retrying, as an application that reconnects
            // would, so an outage longer than the SYN timeouts does not silence it for the run.
            None if response.is_none() => cfg.syn_retries = u32::MAX,
            None => {}
        }
        let (from, to) = if response.is_some() {
            (dst, src)
        } else {
            (src, dst)
        };
        let web = response.map(|r| (bytes.expect("a web request has a size"), r));
        let measured = bytes.is_some_and(|b| b > 0 || !persistent);
        self.next_gen = self.next_gen.wrapping_add(1);
        let gen = self.next_gen;
        let leg = Leg::new(
            TcpSender::new(&cfg, bytes),
            TcpReceiver::new(&cfg),
            from,
            to,
        );
        let conn = self.conns.insert(Conn {
            gen,
            flow: f,
            start: self.now,
            legs: [Some(leg), None],
            web,
            persistent,
            measured,
            reply_delay: SimDuration::ZERO,
            reply_scheduled: false,
            web_more: None,
        });
        self.flows[f as usize].m.transfers_started += measured as u64;
        let now = self.now;
        let mut out = std::mem::take(&mut self.segs);
        self.leg_mut(conn, LEG_OPEN).sender.connect(now, &mut out);
        self.emit(conn, LEG_OPEN, true, &mut out);
        self.segs = out;
        // Not just `arm_timers`: a transfer complete at connect (no bytes to send) must be
        // recorded and freed here, or nothing would ever free it.
        self.after_sender_activity(conn, None);
        (conn, gen)
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

    fn leg_mut(&mut self, conn: u32, leg: u8) -> &mut Leg {
        self.conns.get_mut(conn).legs[leg as usize]
            .as_mut()
            .expect("the leg exists")
    }

    /// The web server has the whole request of `conn`: it answers on the reply leg, which
    /// starts established from what the handshake negotiated and measured. `acks` holds the
    /// request ACKs the last request segment produced; they are sent after the response's first
    /// window, standing in for the ACK a real server piggybacks on its response.
    fn start_reply(&mut self, conn: u32, acks: &mut Vec<Segment>) {
        let now = self.now;
        let c = self.conns.get_mut(conn);
        let FlowKind::Tcp { spec, .. } = &self.flows[c.flow as usize].kind else {
            unreachable!()
        };
        let (_, bytes) = c.web.expect("only web connections reply");
        let open = c.legs[LEG_OPEN as usize].as_mut().expect("the leg exists");
        // The server's view of the handshake (ECN, its SYN-ACK RTT sample) starts its sender;
        // the client's view (ECN as its SYN-ACK said) starts its receiver.
        let sender = TcpSender::established(&spec.cfg, Some(bytes), open.receiver.handshake());
        let receiver = TcpReceiver::established(&spec.cfg, open.sender.ecn_negotiated());
        // The response carries the ACK a delayed-ACK timer would hold.
        open.receiver.ack_now(acks);
        let (server, client) = (open.to, open.from);
        c.legs[LEG_REPLY as usize] = Some(Leg::new(sender, receiver, server, client));
        let mut data = std::mem::take(&mut self.segs_reply);
        self.leg_mut(conn, LEG_REPLY).sender.connect(now, &mut data);
        self.emit(conn, LEG_REPLY, true, &mut data);
        self.segs_reply = data;
        self.emit(conn, LEG_OPEN, false, acks);
    }

    /// The server of web connection `conn` answers, its server delay over (if the connection
    /// is still there: it may have failed meanwhile).
    fn on_web_reply(&mut self, conn: u32, gen: u32) {
        let Some(c) = self
            .conns
            .try_get_mut(conn)
            .filter(|c| c.gen == gen && c.reply_scheduled)
        else {
            return;
        };
        c.reply_scheduled = false;
        if let Some(w) = c.web_more.as_deref_mut() {
            let k = w.answered;
            w.answered += 1;
            if c.legs[LEG_REPLY as usize].is_some() {
                // A later response of a persistent connection: written into the reply leg.
                let bytes = w.ex[k].response;
                self.write_leg(conn, LEG_REPLY, bytes, true);
                return;
            }
        }
        let mut acks = std::mem::take(&mut self.segs);
        self.start_reply(conn, &mut acks);
        self.segs = acks;
        self.after_sender_activity(conn, None);
    }

    /// Sends the segments in `out` from one end of a leg of `conn` and clears `out`.
    fn emit(&mut self, conn: u32, leg: u8, from_sender: bool, out: &mut Vec<Segment>) {
        let c = self.conns.get(conn);
        let l = c.legs[leg as usize].as_ref().expect("the leg exists");
        let (from, to, flow, gen) = if from_sender {
            (l.from, l.to, c.flow, c.gen)
        } else {
            (l.to, l.from, c.flow, c.gen)
        };
        // By reference, cleared after: a segment is copied once, into its payload slot.
        for seg in out.iter() {
            let size = seg.wire_bytes();
            let m = &mut self.flows[flow as usize].m;
            m.sent_pkts += 1;
            m.sent_bytes += size as u64;
            let ecn = if seg.ect { Ecn::Ect0 } else { Ecn::NotEct };
            if from_sender {
                m.receiver.sent_pkts += 1;
            }
            let slot = self.new_payload(Payload::Tcp {
                seg: *seg,
                conn,
                gen,
                leg,
                to_receiver: from_sender,
            });
            let mut p = Packet::new(packet_id(slot, to), size, FlowId(flow));
            p.ecn = ecn;
            self.forward(from, p);
        }
        out.clear();
    }

    /// Makes sure an event is pending no later than each side's requested wake-up time: of
    /// every side of `conn`, or only of the one that acted (`Some((leg, side))`; a side that
    /// did not act wants what it wanted at its last check, which is pending already).
    ///
    /// Re-arming is lazy: if an event is already pending at or before the requested time, nothing
    /// is pushed, and that event re-checks when it fires. A retransmission timer moves later on
    /// every ACK; this way it costs one event per timeout period instead of one per ACK.
    fn arm_timers(&mut self, conn: u32, acted: Option<(u8, u8)>) {
        let now = self.now;
        let c = self.conns.get_mut(conn);
        let gen = c.gen;
        for (leg, l) in c.legs.iter_mut().enumerate() {
            let Some(l) = l else { continue };
            for side in 0..2u8 {
                if acted.is_some_and(|a| a != (leg as u8, side)) {
                    continue;
                }
                let want = if side == 0 {
                    l.sender.next_timer()
                } else {
                    l.receiver.next_timer()
                };
                let Some(w) = want else { continue };
                let at = w.max(now);
                let pending = &mut l.timer_pending[side as usize];
                if pending.is_none_or(|p| at < p) {
                    *pending = Some(at);
                    self.events.push_in(
                        Lane::Timers,
                        at,
                        Ev::TcpTimer {
                            conn,
                            gen,
                            leg: leg as u8,
                            side,
                        },
                    );
                }
            }
        }
    }

    fn on_tcp_timer(&mut self, conn: u32, gen: u32, leg: u8, side: u8, at: SimTime) {
        // Stale: the connection is gone, or an earlier event for this side has superseded this one.
        let Some(c) = self.conns.try_get_mut(conn) else {
            return;
        };
        if c.gen != gen {
            return;
        }
        let Some(l) = c.legs[leg as usize].as_mut() else {
            return;
        };
        if l.timer_pending[side as usize] != Some(at) {
            return;
        }
        l.timer_pending[side as usize] = None;
        let want = if side == 0 {
            l.sender.next_timer()
        } else {
            l.receiver.next_timer()
        };
        if want.is_some_and(|w| w <= self.now) {
            let mut out = std::mem::take(&mut self.segs);
            if side == 0 {
                l.sender.on_timer(self.now, &mut out);
            } else {
                l.receiver.on_timer(self.now, &mut out);
            }
            self.emit(conn, leg, side == 0, &mut out);
            self.segs = out;
        }
        self.after_sender_activity(conn, Some((leg, side)));
    }

    /// Bookkeeping after either end acted (`acted`: which side, if only one did; see
    /// [`Sim::arm_timers`]): retransmit counts, completion, timers.
    fn after_sender_activity(&mut self, conn: u32, acted: Option<(u8, u8)>) {
        let now = self.now;
        let c = self.conns.get_mut(conn);
        let m = &mut self.flows[c.flow as usize].m;
        for l in c.legs.iter_mut().flatten() {
            let st = l.sender.stats();
            m.retransmits += st.retransmits - l.retransmits;
            m.timeouts += st.timeouts - l.timeouts;
            m.fast_recoveries += st.fast_recoveries - l.fast_recoveries;
            (l.retransmits, l.timeouts, l.fast_recoveries) =
                (st.retransmits, st.timeouts, st.fast_recoveries);
        }
        let flow = c.flow;
        let main = c.legs[c.main_leg() as usize].as_ref();
        if let Some(w) = c.web_more.as_deref_mut() {
            // A persistent connection: each response is done when all its bytes are
            // acknowledged; the connection, when the last one is.
            let acked = main.map_or(0, |l| l.sender.stats().bytes_acked);
            while w.completed < w.answered && acked >= w.rsp_end[w.completed] {
                m.transfers_completed += 1;
                m.fct_ns.add((now - w.started[w.completed]).as_nanos());
                w.completed += 1;
            }
            if w.completed == w.ex.len() {
                self.conns.free(conn);
                return;
            }
        } else if main.is_some_and(|l| l.sender.is_complete()) {
            if !c.persistent {
                // A finished transfer: record its completion time and free the connection.
                // Packets of it still in the network are discarded on arrival (their generation
                // is stale).
                m.transfers_completed += 1;
                m.fct_ns.add((now - c.start).as_nanos());
                self.conns.free(conn);
                self.on_transfer_end(flow);
                return;
            }
            if c.measured {
                // Every byte written so far is acknowledged: the transfer is done, and the
                // connection stays open for the application's next write.
                c.measured = false;
                m.transfers_completed += 1;
                m.fct_ns.add((now - c.start).as_nanos());
                self.arm_timers(conn, acted);
                self.on_transfer_end(flow);
                return;
            }
        }
        if c.legs[LEG_OPEN as usize]
            .as_ref()
            .is_some_and(|l| l.sender.is_aborted())
        {
            // A connection that never opened (by default only web connections give up, see
            // `open_conn`): free it; its stale packets are discarded on arrival.
            m.transfers_failed += 1;
            self.conns.free(conn);
            self.on_transfer_end(flow);
            return;
        }
        self.arm_timers(conn, acted);
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

    fn deliver(&mut self, p: Packet) {
        let slot = payload_slot(p.id);
        let bin = self.bin();
        let flow = p.flow.0;
        let fl = &mut self.flows[flow as usize];
        fl.m.delivered_pkts += 1;
        if let Payload::Udp { .. }
        | Payload::Tcp {
            to_receiver: true, ..
        } = self.payloads.get(slot)
        {
            fl.m.receiver
                .arrive(self.sent_ns[slot as usize], self.now.as_nanos());
        }
        // The payload is read in place and freed once the endpoint has seen it, before anything
        // is sent (so the slot is reused warm): a TCP segment is about 100 bytes, and copying it
        // out of the arena was a visible share of the run time.
        let (conn, gen, leg, to_receiver) = match *self.payloads.get(slot) {
            Payload::Udp { .. } => {
                // UDP goodput is what arrives; TCP's is the in-order bytes the receiver hands up.
                fl.m.delivered_bytes += p.size_bytes as u64;
                row_of(&mut fl.series, bin).delivered_bytes += p.size_bytes as u64;
                self.payloads.free(slot);
                return;
            }
            Payload::Tcp {
                conn,
                gen,
                leg,
                to_receiver,
                ..
            } => (conn, gen, leg, to_receiver),
        };
        let live = self
            .conns
            .try_get_mut(conn)
            .filter(|c| c.gen == gen && c.legs[leg as usize].is_some());
        let Some(c) = live else {
            // The connection is gone (a stale packet of a finished or failed exchange).
            self.payloads.free(slot);
            return;
        };
        let main = c.main_leg();
        // Web: the request size, while the server has not answered yet.
        let awaiting = c
            .web
            .filter(|_| c.legs[LEG_REPLY as usize].is_none() && !c.reply_scheduled);
        let (reply_delay, gen, persistent_web) = (c.reply_delay, c.gen, c.web_more.is_some());
        let l = c.legs[leg as usize].as_mut().expect("checked above");
        let Payload::Tcp { seg, .. } = self.payloads.get_mut(slot) else {
            unreachable!("a TCP payload")
        };
        // The network's congestion mark reaches the endpoint (RFC 3168 §6.1.3).
        seg.ce = p.ecn == Ecn::Ce;
        let mut out = std::mem::take(&mut self.segs);
        if to_receiver {
            l.receiver.on_segment(self.now, seg, &mut out);
            self.payloads.free(slot);
            let total = l.receiver.delivered_bytes();
            let new_bytes = total - l.delivered;
            l.delivered = total;
            if leg == main {
                // Goodput: the transfer's bytes (web: the response, not the request).
                let fl = &mut self.flows[flow as usize];
                fl.m.delivered_bytes += new_bytes;
                row_of(&mut fl.series, bin).delivered_bytes += new_bytes;
            }
            if persistent_web {
                self.persistent_web_delivered(conn, leg, total, &mut out);
                self.segs = out;
                return;
            }
            let request_done = leg == LEG_OPEN && awaiting.is_some_and(|(req, _)| total >= req);
            if request_done && reply_delay > SimDuration::ZERO {
                // The server thinks before it answers: the request's ACKs go now, the response
                // after the delay.
                self.conns.get_mut(conn).reply_scheduled = true;
                self.events.push_in(
                    Lane::Timers,
                    self.now + reply_delay,
                    Ev::WebReply { conn, gen },
                );
                self.emit(conn, leg, false, &mut out);
                self.segs = out;
                self.arm_timers(conn, Some((leg, 1)));
            } else if request_done {
                self.start_reply(conn, &mut out);
                self.segs = out;
                self.after_sender_activity(conn, None);
            } else {
                self.emit(conn, leg, false, &mut out);
                self.segs = out;
                self.arm_timers(conn, Some((leg, 1)));
            }
        } else {
            l.sender.on_segment(self.now, seg, &mut out);
            self.payloads.free(slot);
            let st = l.sender.stats();
            let fl = &mut self.flows[flow as usize];
            let row = row_of(&mut fl.series, bin);
            row.acks += 1;
            row.cwnd_sum_bytes += st.cwnd_bytes;
            if st.ssthresh_bytes != u64::MAX {
                row.ssthresh_sum_bytes += st.ssthresh_bytes;
                row.ssthresh_samples += 1;
            }
            if let Some(srtt) = st.srtt {
                row.srtt_sum_ns += srtt.as_nanos();
                row.srtt_samples += 1;
                fl.m.srtt_ns.add(srtt.as_nanos());
            }
            self.emit(conn, leg, true, &mut out);
            self.segs = out;
            self.after_sender_activity(conn, Some((leg, 0)));
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
