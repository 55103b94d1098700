//! TCP connections: their legs (a sender and its receiver, one per direction of data), opening
//! them, sending their segments, their timers, and the bookkeeping after either end acts
//! (retransmission counts, transfer completion, connections that never open). Also a packet's
//! arrival at its destination (`deliver`): the TCP endpoints' work, but for the few counts of a
//! UDP datagram. When connections open and what is written into them is the applications'
//! (`apps`).

use super::{apps, packet_dst, packet_id, payload_slot, Ev, FlowKind, Payload, Sim};
use crate::event::Lane;
use aqmlab_core::{Ecn, FlowId, Packet, SimDuration, SimTime, TcpHint};
use aqmlab_link::bins::row_of;
use aqmlab_tcp::{Segment, TcpReceiver, TcpSender};

/// The leg of a connection that opens it: SYN, then a bulk or finite transfer, or a web request.
pub const LEG_OPEN: u8 = 0;

/// The leg a web server answers on, in the other direction, once the request has arrived.
pub const LEG_REPLY: u8 = 1;

/// One direction of a connection: a sender at node `from` and its receiver at node `to`.
pub(super) struct Leg {
    pub(super) sender: TcpSender,
    pub(super) receiver: TcpReceiver,
    pub(super) from: u32,
    pub(super) to: u32,
    /// Time of the earliest pending timer event of each side (sender, receiver), if any.
    pub(super) timer_pending: [Option<SimTime>; 2],
    /// Receiver bytes already counted in the flow's metrics.
    pub(super) delivered: u64,
    /// Sender retransmissions, timeouts and fast recoveries already counted in the flow's
    /// metrics.
    pub(super) retransmits: u64,
    pub(super) timeouts: u64,
    pub(super) fast_recoveries: u64,
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

pub(super) struct Conn {
    pub(super) gen: u32,
    pub(super) flow: u32,
    pub(super) start: SimTime,
    /// `legs[LEG_OPEN]` always exists; `legs[LEG_REPLY]` once a web server answers.
    pub(super) legs: [Option<Leg>; 2],
    /// Web: `(request bytes, response bytes)`. The exchange is done when the response is.
    pub(super) web: Option<(u64, u64)>,
    /// Kept open when its transfer completes (the application writes into it again); freed
    /// only if it never opens.
    pub(super) persistent: bool,
    /// A transfer is being measured, from `start`, until every byte written is acknowledged.
    pub(super) measured: bool,
    /// Web: how long the server waits, once it has the whole request, before it answers.
    pub(super) reply_delay: SimDuration,
    /// Web: the whole request has arrived and the server's answer is scheduled.
    pub(super) reply_scheduled: bool,
    /// Web, a persistent HTTP/1.1 connection: its exchanges (the first is `web`).
    pub(super) web_more: Option<Box<apps::WebMore>>,
    /// Opened while another connection of its flow was open (a web page's parallel
    /// connections, RFC 7928 §7.2; a web flow's overlapping requests): its packets carry
    /// [`TcpHint::OWN_QUEUE`] and its classification number, so a flow-queue discipline gives
    /// it a queue of its own, as Linux's 5-tuple hash does (the connections' source ports
    /// differ). A connection opened while it is its flow's only one keeps the flow id as its
    /// key, which no other open connection of the flow has: so each open connection has a key
    /// of its own, and a flow that never has two open at once (every bulk, finite, repeated,
    /// on/off or video flow, and a web flow whose exchanges do not overlap) is classified
    /// exactly as before connections were told apart.
    pub(super) own_queue: bool,
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

impl Sim {
    /// Opens a connection of flow `f` now. Without a `response`, the flow's source connects and
    /// sends `bytes` (`None`: unlimited). With one (web), the flow's destination (the client)
    /// connects and sends a request of `bytes`, which the source answers with `response` bytes.
    /// A `persistent` connection stays open when its bytes are acknowledged, for the
    /// application to write more ([`TcpSender::write`]); opened with `Some(0)` bytes it measures
    /// no transfer. Returns the connection's slot and generation.
    pub(super) fn open_conn(
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
        let own_queue = self.flows[f as usize].open_conns > 0;
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
            own_queue,
        });
        let fl = &mut self.flows[f as usize];
        fl.open_conns += 1;
        fl.m.transfers_started += measured as u64;
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

    /// Frees connection `conn` (its flow has one connection fewer open); packets of it still in
    /// the network are discarded on arrival (their generation is stale).
    fn free_conn(&mut self, conn: u32) {
        let f = self.conns.get(conn).flow;
        self.flows[f as usize].open_conns -= 1;
        self.conns.free(conn);
    }

    pub(super) fn leg_mut(&mut self, conn: u32, leg: u8) -> &mut Leg {
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
    pub(super) fn on_web_reply(&mut self, conn: u32, gen: u32) {
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
    pub(super) fn emit(&mut self, conn: u32, leg: u8, from_sender: bool, out: &mut Vec<Segment>) {
        let c = self.conns.get(conn);
        let l = c.legs[leg as usize].as_ref().expect("the leg exists");
        let (from, to, flow, gen) = if from_sender {
            (l.from, l.to, c.flow, c.gen)
        } else {
            (l.to, l.from, c.flow, c.gen)
        };
        // A connection keyed apart is numbered after the flows (flow ids 0..F), so that a
        // flow-queue discipline's `hash=flow_id` gives it a bucket no flow has while
        // F + slot < flows.
        let own_queue = c
            .own_queue
            .then(|| (self.flows.len() as u32).wrapping_add(conn) as u16);
        // By reference, cleared after: a segment is copied once, into its payload slot.
        for seg in out.iter() {
            let size = seg.wire_bytes();
            let m = &mut self.flows[flow as usize].m;
            m.sent_pkts += 1;
            m.sent_bytes += size as u64;
            let ecn = match (seg.ect, seg.ect1) {
                (true, false) => Ecn::Ect0,
                (true, true) => Ecn::Ect1, // TCP Prague (RFC 9331 §4.1)
                _ => Ecn::NotEct,
            };
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
            // Hosts are node numbers (CAKE's host isolation); DSCP is the flow's.
            (p.src_host, p.dst_host) = (from as u16, to as u16);
            p.dscp = self.flows[flow as usize].dscp;
            if self.tcp_hints {
                p.tcp = tcp_hint(seg, conn);
            }
            if let Some(key) = own_queue {
                p.tcp.bits |= TcpHint::OWN_QUEUE;
                p.tcp.conn = key;
            }
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
    pub(super) fn arm_timers(&mut self, conn: u32, acted: Option<(u8, u8)>) {
        match acted {
            // The common case (a segment sent or received): that side only, no search.
            Some((leg, side)) => self.arm_timer(conn, leg, side),
            None => {
                for leg in [LEG_OPEN, LEG_REPLY] {
                    for side in 0..2u8 {
                        self.arm_timer(conn, leg, side);
                    }
                }
            }
        }
    }

    /// [`Sim::arm_timers`] for side `side` of leg `leg` of `conn` (nothing if the leg does not
    /// exist or the side wants no wake-up).
    #[inline(always)]
    fn arm_timer(&mut self, conn: u32, leg: u8, side: u8) {
        let now = self.now;
        let c = self.conns.get_mut(conn);
        let gen = c.gen;
        let Some(l) = c.legs[leg as usize].as_mut() else {
            return;
        };
        let want = if side == 0 {
            l.sender.next_timer()
        } else {
            l.receiver.next_timer()
        };
        let Some(w) = want else { return };
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
                    leg,
                    side,
                },
            );
        }
    }

    pub(super) fn on_tcp_timer(&mut self, conn: u32, gen: u32, leg: u8, side: u8, at: SimTime) {
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
    pub(super) fn after_sender_activity(&mut self, conn: u32, acted: Option<(u8, u8)>) {
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
                let kind = w.kind;
                self.free_conn(conn);
                if let apps::WebKind::Page(page) = kind {
                    self.page_conn_done(page, false);
                }
                return;
            }
        } else if main.is_some_and(|l| l.sender.is_complete()) {
            if !c.persistent {
                // A finished transfer: record its completion time and free the connection.
                // Packets of it still in the network are discarded on arrival (their generation
                // is stale).
                m.transfers_completed += 1;
                m.fct_ns.add((now - c.start).as_nanos());
                self.free_conn(conn);
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
            let kind = c.web_more.as_ref().map(|w| w.kind);
            self.free_conn(conn);
            if let Some(apps::WebKind::Page(page)) = kind {
                self.page_conn_done(page, true);
            }
            self.on_transfer_end(flow);
            return;
        }
        self.arm_timers(conn, acted);
    }

    pub(super) fn deliver(&mut self, p: Packet) {
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
            let (sent, now) = (self.sent_ns[slot as usize], self.now.as_nanos());
            fl.m.receiver.arrive(sent, now);
            if let Some(o) = self.owd.as_deref_mut() {
                // Toward the flow's destination (its data; a web flow's responses), or back
                // toward its source (a web client's requests).
                let back = packet_dst(p.id) != fl.dst();
                o.arrive(flow as usize, back, sent, now);
            }
        }
        // The payload is read in place and freed once the endpoint has seen it, before anything
        // is sent (so the slot is reused warm): a TCP segment is about 100 bytes, and copying it
        // out of the arena was a visible share of the run time.
        let (conn, gen, leg, to_receiver) = match *self.payloads.get(slot) {
            Payload::Udp { .. } => {
                // UDP goodput is what arrives; TCP's is the in-order bytes the receiver hands up.
                fl.m.delivered_bytes += p.size_bytes as u64;
                if fl.keeps_series {
                    row_of(&mut fl.series, bin).delivered_bytes += p.size_bytes as u64;
                }
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
                if fl.keeps_series {
                    row_of(&mut fl.series, bin).delivered_bytes += new_bytes;
                }
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
            if let Some(tr) = fl.state_trace.as_deref_mut() {
                if leg == main {
                    tr.on_ack(self.now, &l.sender);
                }
            }
            if fl.keeps_series {
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
                }
            }
            if let Some(srtt) = st.srtt {
                fl.m.srtt_ns.add(srtt.as_nanos());
            }
            self.emit(conn, leg, true, &mut out);
            self.segs = out;
            self.after_sender_activity(conn, Some((leg, 0)));
        }
    }
}

/// The header facts of `seg` a queue may read ([`TcpHint`]; CAKE's ACK filter). Timestamps are
/// not carried: a flow's segments enter a queue in sending order, so a queued ACK's TSval and
/// TSecr never exceed a later one's, which is all Linux's filter asks of them.
fn tcp_hint(seg: &Segment, conn: u32) -> TcpHint {
    use aqmlab_tcp::segment::{ACK, AE, CWR, ECE, FIN, SYN};
    let mut bits = 0;
    for (flag, bit) in [
        (ACK, TcpHint::ACK),
        (SYN, TcpHint::SYN),
        (FIN, TcpHint::OTHER_FLAGS),
        (ECE, TcpHint::ECE),
        (CWR, TcpHint::CWR),
        (AE, TcpHint::AE),
    ] {
        if seg.flags & flag != 0 {
            bits |= bit;
        }
    }
    if seg.len > 0 {
        bits |= TcpHint::DATA;
    }
    if !seg.sack_blocks().is_empty() {
        bits |= TcpHint::SACK;
    }
    TcpHint {
        ack: seg.ack as u32,
        bits,
        conn: conn as u16,
    }
}
