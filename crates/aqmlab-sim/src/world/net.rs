//! The network side of the event loop: packets across link directions. A packet is handed to
//! the link towards its destination (`forward`), goes through that [`LinkDirection`]'s
//! discipline, transmission and propagation pipe, and at the far node is forwarded again or
//! delivered. What a link drops or loses is freed and counted against its flow here
//! (`FlowSide`). Every packet crosses this code at every hop: it is the hottest of a run.

use super::{packet_dst, payload_slot, Ev, Flow, Payload, Sim};
use crate::arena::Arena;
use crate::link::{DropSink, LinkDirection, Offer, Sent};
use aqmlab_core::Packet;
use aqmlab_qdisc::{DropReason, MarkReason};

/// A link direction as the event loop drives it ([`LinkDirection`]), with where it leads.
pub(super) struct Link {
    pub(super) dir: LinkDirection,
    /// The node at its far end.
    pub(super) to: u32,
    /// The event sequence number reserved for the current transmission's `TxDone`, so that a
    /// `TxDone` scheduled late (when a packet starts waiting) keeps the place among equal-time
    /// events it would have had if scheduled when the transmission started.
    pub(super) tx_seq: u64,
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

impl Sim {
    pub(super) fn on_pipe_head(&mut self, l: u32) {
        let link = &mut self.links[l as usize];
        let pipe = link.dir.pipe();
        let (at, p) = pipe.pop_front(); // a PipeHead event has a packet
        debug_assert_eq!(at, self.now);
        // The next head's tag is the sequence number reserved when its transmission started.
        if let Some((next, seq)) = pipe.front() {
            self.events.push_with_seq(next, seq, Ev::PipeHead(l));
        }
        let node = link.to;
        if packet_dst(p.id) == node {
            self.deliver(p);
        } else {
            self.forward(node, p);
        }
    }

    /// Hands `p` at `node` to the link towards its destination.
    pub(super) fn forward(&mut self, node: u32, p: Packet) {
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
                #[cfg(feature = "event-counts")]
                self.counts.woke_at_tx_end(l);
            }
            Offer::Idle => self.start_tx(l),
        }
    }

    /// Link `l` went idle at its transmission's end with nothing waiting: makes the empty
    /// dequeue it made then.
    #[inline(always)]
    pub(super) fn owed_idle_dequeue(&mut self, l: u32) {
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
        let link = &mut self.links[l as usize];
        let out = link.dir.dequeue(self.now, &self.bins, &mut sink);
        if let Some(p) = out {
            self.transmit::<false>(l, p);
        } else if let Some(at) = link.dir.held() {
            // A shaper holds its packets back until `at` (CAKE's bandwidth).
            link.tx_seq = self.events.reserve_seq();
            self.events.push_with_seq(at, link.tx_seq, Ev::TxDone(l));
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
        // The arrival's place among equal-time events is taken now, and kept as the packet's
        // tag in the pipe, so that its `PipeHead`, scheduled only once it is the pipe's head,
        // keeps the place it would have had if scheduled now, as ns-2.35's `LinkDelay::recv`
        // schedules a packet's arrival (link/delay.cc). A packet lost on the wire leaves its
        // number unused: only the order of the numbers matters, and the link pushes no event.
        let seq = self.events.reserve_seq();
        let Sent { pipe_head, tx_done } = link
            .dir
            .transmit::<PASSING>(self.now, &self.bins, p, seq, &mut sink);
        if let Some(at) = pipe_head {
            self.events.push_with_seq(at, seq, Ev::PipeHead(l));
        }
        // Reserved after the PipeHead push, as when this was one function: ties keep their order.
        link.tx_seq = self.events.reserve_seq();
        if let Some(end) = tx_done {
            self.events.push_with_seq(end, link.tx_seq, Ev::TxDone(l));
        }
    }

    pub(super) fn on_tx_done(&mut self, l: u32) {
        self.links[l as usize].dir.tx_done();
        self.start_tx(l);
    }

    /// With `false`, every packet goes through its link's discipline calls, even across an idle
    /// tail-drop link ([`aqmlab_qdisc::Qdisc::pass_through`] and [`aqmlab_qdisc::Qdisc::dequeue_when_idle`] are not used).
    /// The results are identical either way: this is there to check that, and to measure what
    /// the shortcut saves.
    pub fn set_idle_shortcut(&mut self, on: bool) {
        self.idle_shortcut = on;
    }
}
