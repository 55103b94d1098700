//! One direction of a link: the rate model, then the queue discipline, then the propagation
//! delay line, with the per-packet measurements of a run. The simulator (`world.rs`) and the
//! live emulator (`crates/aqmlab-emu`, through [`ClockedLink`]) both drive this one component,
//! so an emulated link is the simulator's link, not a copy of it.
//!
//! A link direction transmits one packet at a time. When it is free it asks its discipline for
//! the next packet (an idle link asks once and then waits for an arrival), computes when the
//! last bit leaves from its [`LinkRate`], and the packet arrives at the far end one propagation
//! delay later. The discipline holds the whole queue: there is no hidden second buffer.
//!
//! The component owns no clock and schedules nothing: its driver calls it with the time and
//! bin of each step (`offer` a packet, `dequeue` and `transmit` the next one, make the
//! `owed_idle_dequeue`) and is told what to wake for. A transmission's end owes the link a dequeue: with packets waiting the driver must wake
//! then (`tx_done_pending`); with none, the empty dequeue an idle link makes is owed
//! (`idle_poll_due`) and is made when the next packet arrives or the run is measured, so an
//! uncongested link costs its driver no wake-up per packet. The discipline sees exactly the
//! calls it would see with a wake-up at every transmission end.
//!
//! Packets leave a link direction other than through its far end only when they are dropped
//! or lost on the wire; they are handed to the driver's [`DropSink`] (the simulator frees their
//! payloads and counts them against their flows; the emulator recycles their buffers).

use crate::area::QueueArea;
use crate::bins::{row_of, Bins};
use crate::dist::DurationDist;
use crate::pipe::Pipe;
use crate::rate::LinkRate;
use crate::sojourn::SojournStats;
use aqmlab_core::{Packet, SimDuration, SimTime, Xoshiro256pp};
use aqmlab_qdisc::{AnyQdisc, DropReason, MarkReason, Qdisc, QdiscEvent};

mod clocked;
mod records;
mod series;

pub use clocked::ClockedLink;
pub use records::{DropRecord, LinkBin, LinkMetrics, LinkReport, PacketRecord};

/// The longest extra delay one jitter draw adds (an exponential's tail is cut here).
pub(crate) const MAX_JITTER: SimDuration = SimDuration::from_secs(1000);

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

/// Where the packets a link direction drops or loses go, and who hears of its marks.
pub trait DropSink {
    /// `pkt` is gone: dropped by the discipline for `Some(reason)`, or lost on the wire (`None`).
    fn dropped(&mut self, pkt: Packet, reason: Option<DropReason>);
    /// The discipline CE-marked `pkt` for `reason`.
    fn marked(&mut self, _pkt: &Packet, _reason: MarkReason) {}
}

/// The emulator's sink: the packets' buffers, to reuse.
impl DropSink for Vec<Packet> {
    #[inline]
    fn dropped(&mut self, pkt: Packet, _reason: Option<DropReason>) {
        self.push(pkt);
    }
}

/// What became of a packet offered to a link direction ([`LinkDirection::offer`]).
#[derive(Debug)]
pub enum Offer {
    /// It crossed the empty queue of an idle tail-drop link: the driver transmits it now
    /// ([`LinkDirection::transmit`] with `PASSING`).
    Passed(Packet),
    /// Queued (or dropped) behind a transmission the driver already knows of.
    Queued,
    /// Queued behind a transmission that was to be followed by an idle poll: the driver must
    /// now wake at its end ([`LinkDirection::busy_until`]).
    WakeAtTxEnd,
    /// The link was idle: the driver dequeues and transmits now.
    Idle,
}

/// What a transmission asks of its driver ([`LinkDirection::transmit`]).
#[derive(Debug)]
pub struct Sent {
    /// The packet is the only one propagating: wake when it arrives, at this time.
    pub pipe_head: Option<SimTime>,
    /// Packets wait behind it: wake when it ends, at this time.
    pub tx_done: Option<SimTime>,
}

/// One link direction (see the module documentation).
pub struct LinkDirection {
    /// When the current (or last) transmission ends; or, while a shaping discipline holds its
    /// packets back, when it asked to be called again ([`LinkDirection::dequeue`]).
    busy_until: SimTime,
    /// The last transmission (its end, its size) while not yet counted as sent: it is added to
    /// the totals and to its time bin once it has ended, so the series never reach past `now`.
    sending: Option<(SimTime, u32)>,
    /// The last queue level noted: (bin, packets, bytes), carried into later bins without calls.
    level: (usize, u64, u64),
    /// The backlog integrated over time, per bin (the time-averaged queue).
    area: QueueArea,
    delay: SimDuration,
    /// The driver wakes at `busy_until` (a packet is waiting behind the one on the wire).
    tx_done_pending: bool,
    /// The last transmission started with nothing queued behind it, so the driver was not asked
    /// to wake at its end; the empty dequeue the link makes when it goes idle is still owed, at
    /// `busy_until` ([`LinkDirection::owed_idle_dequeue`]).
    idle_poll_due: bool,
    /// Packets propagating: `(arrival time, packet)` in sending order. Arrivals stay in this
    /// order (jitter never reorders), so only the head needs a wake-up.
    pipe: Pipe,
    /// Loss probability on the wire (its random stream is below).
    loss: f64,
    /// A random extra delay per packet, from the link's own stream (`link/NAME/jitter`), and
    /// the latest arrival time given so far: a packet arrives no earlier than the one sent
    /// before it, so jitter never reorders a link.
    jitter: Option<(DurationDist, Xoshiro256pp)>,
    last_arrival: SimTime,
    /// Per-packet log `(dequeue time, sojourn, size, flow)` when asked for (grows until taken).
    packet_log: Option<Vec<PacketRecord>>,
    /// The drops of the same log (kept when `packet_log` is).
    drop_log: Vec<DropRecord>,
    /// Sojourn times of the measurement windows open now, by window slot
    /// (the simulator's `Sim::begin_window`); empty without windows.
    windows: Vec<Option<SojournStats>>,
    rate: LinkRate,
    /// With a constant rate: the last packet size transmitted and its transmission time
    /// ([`LinkDirection::transmit`]; first a zero size).
    tx_memo: (u32, SimDuration),
    /// Totals and the sojourn sketch; its per-bin series stay empty while running (they are
    /// in `series`, and a report fills them in).
    m: LinkMetrics,
    /// The time series, one row per bin: a hop updates several of them at once, and a row
    /// keeps them in one cache line or two instead of one line in each of five vectors.
    series: Vec<LinkBin>,
    q: Qdisc<AnyQdisc>,
    loss_rng: Xoshiro256pp,
    name: String,
}

impl LinkDirection {
    /// A link direction from `parts`, idle and empty.
    pub fn new(parts: LinkParts) -> LinkDirection {
        let tx_memo = match &parts.rate {
            LinkRate::Constant(r) => (0, r.tx_time(0)),
            _ => (0, SimDuration::ZERO),
        };
        LinkDirection {
            busy_until: SimTime::ZERO,
            sending: None,
            level: (0, 0, 0),
            area: QueueArea::default(),
            delay: parts.delay,
            tx_done_pending: false,
            idle_poll_due: false,
            pipe: Pipe::with_capacity(256),
            loss: parts.loss,
            jitter: parts.jitter,
            last_arrival: SimTime::ZERO,
            packet_log: None,
            drop_log: Vec::new(),
            windows: Vec::new(),
            rate: parts.rate,
            tx_memo,
            m: LinkMetrics::default(),
            series: Vec::new(),
            q: parts.qdisc,
            loss_rng: parts.loss_rng,
            name: parts.name,
        }
    }

    /// Its parts back, as built (for a driver that takes the links of an unrun simulation).
    pub fn into_parts(self) -> LinkParts {
        LinkParts {
            name: self.name,
            rate: self.rate,
            delay: self.delay,
            qdisc: self.q,
            loss: self.loss,
            loss_rng: self.loss_rng,
            jitter: self.jitter,
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

    /// Keeps a per-packet log (released packets and drops) from now on.
    pub fn log_packets(&mut self) {
        self.packet_log.get_or_insert_with(Vec::new);
    }

    /// Records the discipline's state variables as they change
    /// ([`LinkDirection::take_state_changes`] hands them out).
    pub fn trace_state(&mut self) {
        self.q.trace_state();
    }

    /// The discipline reads the packets' TCP hints ([`AnyQdisc::reads_tcp_hint`]).
    pub fn reads_tcp_hint(&self) -> bool {
        self.q.inner().reads_tcp_hint()
    }

    /// The discipline's state is traced ([`LinkDirection::trace_state`]).
    pub fn traced(&self) -> bool {
        self.q.traces_state()
    }

    /// The discipline's state changes since the last take (empty when not traced).
    pub fn take_state_changes(&mut self) -> Vec<aqmlab_qdisc::StateChange> {
        self.q.take_state_changes()
    }

    /// Replaces the discipline before the run starts (the scenario builder rebuilds one whose
    /// defaults depend on the traffic). Panics once packets have been offered to it.
    pub fn replace_qdisc(&mut self, qdisc: AnyQdisc) {
        assert_eq!(
            self.q.stats().received.packets,
            0,
            "a discipline is replaced only before the run"
        );
        self.q = Qdisc::new(qdisc);
    }

    /// Gives each packet a random extra delay (see the simulator's `Sim::set_jitter`).
    pub fn set_jitter(&mut self, jitter: DurationDist, rng: Xoshiro256pp) {
        self.jitter = Some((jitter, rng));
    }

    /// When the current (or last) transmission ends.
    #[inline(always)]
    pub fn busy_until(&self) -> SimTime {
        self.busy_until
    }

    /// The empty dequeue of a transmission's end is owed ([`LinkDirection::owed_idle_dequeue`]).
    #[inline(always)]
    pub fn idle_poll_due(&self) -> bool {
        self.idle_poll_due
    }

    /// Packets are waiting behind the transmission: its driver wakes at its end.
    #[inline(always)]
    pub fn tx_done_pending(&self) -> bool {
        self.tx_done_pending
    }

    /// The propagation pipe (its driver pops arrivals from it).
    #[inline(always)]
    pub fn pipe(&mut self) -> &mut Pipe {
        &mut self.pipe
    }

    /// The transmission the driver woke for has ended: the link looks for the next packet
    /// ([`LinkDirection::dequeue`]).
    #[inline(always)]
    pub fn tx_done(&mut self) {
        self.tx_done_pending = false;
    }

    /// A packet of `p.size_bytes` arrives at `now` (in bin `bins.cur`) and is offered to the
    /// discipline; an owed idle dequeue must have been made first if the transmission has
    /// ended. With `shortcut`, a packet that finds an idle tail-drop link crosses its empty
    /// queue at once ([`Qdisc::pass_through`]) with the levels the two calls would have noted.
    #[inline]
    pub fn offer(
        &mut self,
        now: SimTime,
        bins: &Bins,
        mut p: Packet,
        shortcut: bool,
        sink: &mut impl DropSink,
    ) -> Offer {
        let bin = bins.cur;
        let size = p.size_bytes;
        let free = !self.tx_done_pending && !self.idle_poll_due;
        if free && shortcut && self.q.pass_through(now, &mut p) {
            // An idle tail-drop link (most hops of a dumbbell but the bottleneck): its row's
            // counts, the release `transmit::<true>` makes now included, in one visit.
            self.m.max_backlog_pkts = self.m.max_backlog_pkts.max(1);
            self.note_passing(bin, size as u64);
            return Offer::Passed(p);
        }
        // Offered packets and bytes are the discipline's `received` count (see `report`).
        self.row(bin).ingress_bytes += size as u64;
        self.q.enqueue(now, p);
        self.settle(now, bin, sink);
        self.note_area(now, bins);
        let backlog = self.q.backlog().packets;
        self.m.max_backlog_pkts = self.m.max_backlog_pkts.max(backlog);
        self.note_level(bin);
        if self.tx_done_pending {
            // Busy with packets waiting: the wake-up at the transmission's end takes this one.
            Offer::Queued
        } else if self.idle_poll_due {
            // Still transmitting: if a packet now waits, the link must look again when the
            // transmission ends.
            if backlog > 0 {
                self.tx_done_pending = true;
                self.idle_poll_due = false;
                Offer::WakeAtTxEnd
            } else {
                Offer::Queued
            }
        } else {
            // Idle (its last dequeue found nothing): send now.
            Offer::Idle
        }
    }

    /// The link went idle at `busy_until` with nothing waiting: makes the empty dequeue it made
    /// then (deferred so that an uncongested link costs no wake-up per packet). Drops it
    /// causes are counted at `now`, in bin `bin`.
    #[inline(always)]
    pub fn owed_idle_dequeue(
        &mut self,
        now: SimTime,
        bin: usize,
        shortcut: bool,
        sink: &mut impl DropSink,
    ) {
        self.idle_poll_due = false;
        let t = self.busy_until;
        let none = if shortcut {
            self.q.dequeue_when_idle(t)
        } else {
            self.q.dequeue(t)
        };
        assert!(
            none.is_none(),
            "link {}: the queue was empty when the link went idle",
            self.name
        );
        self.settle(now, bin, sink);
    }

    /// The link is free at `now`: the next packet from its discipline, if any (`None`: this
    /// empty dequeue is the one a link makes when it goes idle; or a shaper holds its packets
    /// back, and the link is [`LinkDirection::held`] until its next send time).
    #[inline(always)]
    pub fn dequeue(
        &mut self,
        now: SimTime,
        bins: &Bins,
        sink: &mut impl DropSink,
    ) -> Option<Packet> {
        let out = self.q.dequeue(now);
        self.settle(now, bins.cur, sink);
        self.note_area(now, bins);
        self.note_drain(bins.cur);
        if out.is_none() && self.q.backlog().packets > 0 {
            self.hold(now);
        }
        out
    }

    /// The discipline returned nothing with packets queued: it names the time before which it
    /// has nothing to send ([`Qdisc::next_send_time`]), and the link waits for that time as for
    /// a transmission's end (`busy_until`, `tx_done_pending`): the driver wakes then and
    /// dequeues again, and arrivals meanwhile only queue.
    #[cold]
    fn hold(&mut self, now: SimTime) {
        if let Some(t) = self.q.next_send_time() {
            self.busy_until = t.max(now);
            self.tx_done_pending = true;
        }
    }

    /// After a [`LinkDirection::dequeue`] that returned nothing: the time the driver must wake
    /// the link at (a shaper's next send time), if any.
    #[inline(always)]
    pub fn held(&self) -> Option<SimTime> {
        self.tx_done_pending.then_some(self.busy_until)
    }

    /// The link starts sending `p` at `now`, just dequeued (with any CE mark the discipline
    /// set): its sojourn is recorded, it enters the propagation pipe, and the driver is told
    /// what to wake for. A packet lost on the wire goes to `sink` once it has been sent.
    ///
    /// `PASSING`: `p` crossed the empty queue of an idle tail-drop link just now
    /// ([`Offer::Passed`]), so its sojourn is zero and nothing waits behind it; it must be
    /// transmitted at once, at the `now` and in the bin of that `offer` (which counted its
    /// release in the bin's row).
    ///
    /// `tag` is kept with `p` in the pipe ([`Pipe::front`]) for its driver.
    #[inline]
    pub fn transmit<const PASSING: bool>(
        &mut self,
        now: SimTime,
        bins: &Bins,
        p: Packet,
        tag: u64,
        sink: &mut impl DropSink,
    ) -> Sent {
        let sojourn = if PASSING {
            0
        } else {
            now.as_nanos() - p.enqueue_ns
        };
        if PASSING {
            // A zero sojourn: the sketch and moments updates that `add(0)` makes, without the
            // bucket search and the 128-bit sums (which it leaves unchanged).
            self.m.sojourn_ns.add_zero();
            self.m.sojourn_moments.add_zero();
        } else {
            self.m.sojourn_ns.add(sojourn);
            self.m.sojourn_moments.add(sojourn);
        }
        for w in self.windows.iter_mut().flatten() {
            w.add(sojourn);
        }
        if !PASSING {
            // A passing packet's release was counted by `offer` (`note_passing`).
            let row = self.row(bins.cur);
            row.released_pkts += 1;
            row.sojourn_sum_ns += sojourn;
        }
        if let Some(log) = &mut self.packet_log {
            log.push(PacketRecord {
                t_ns: now.as_nanos(),
                sojourn_ns: sojourn,
                size: p.size_bytes,
                flow: p.flow.0,
            });
        }
        let end = match &self.rate {
            // A constant rate: the last packet size's transmission time is kept, as most
            // packets of a link direction have the size of the one before (a division saved).
            LinkRate::Constant(r) => {
                if self.tx_memo.0 != p.size_bytes {
                    self.tx_memo = (p.size_bytes, r.tx_time(p.size_bytes as u64));
                }
                now + self.tx_memo.1
            }
            _ => self.rate.tx_end(now, p.size_bytes),
        };
        // The packet enters the propagation pipe now, arriving one delay after `end`.
        // Transmissions on a link are sequential, so arrivals stay in sending order. It counts
        // as sent once its last bit has left; the previous transmission has by now.
        self.count_sent(bins);
        self.sending = Some((end, p.size_bytes));
        let lost = self.loss > 0.0 && self.loss_rng.next_f64() < self.loss;
        let mut pipe_head = None;
        if lost {
            // Lost on the wire: it was sent (and occupied the link) but never arrives.
            self.m.lost_pkts += 1;
        } else {
            let mut at = end + self.delay;
            if let Some((dist, rng)) = &mut self.jitter {
                // The pipe stays in sending order: no arrival before the previous one.
                at = (at + dist.sample(rng, MAX_JITTER)).max(self.last_arrival);
                self.last_arrival = at;
            }
            self.pipe.push_back(at, tag, p);
            if self.pipe.len() == 1 {
                pipe_head = Some(at);
            }
        }
        self.busy_until = end;
        let mut tx_done = None;
        if !PASSING && self.q.backlog().packets > 0 {
            self.tx_done_pending = true;
            tx_done = Some(end);
        } else {
            self.idle_poll_due = true;
        }
        if lost {
            if self.packet_log.is_some() {
                self.drop_log.push(DropRecord {
                    t_ns: now.as_nanos(),
                    sojourn_ns: sojourn,
                    size: p.size_bytes,
                    flow: p.flow.0,
                    reason: None,
                });
            }
            sink.dropped(p, None);
        }
        Sent { pipe_head, tx_done }
    }

    /// Applies the drops and marks of the last discipline call, made at `now` in bin `bin`.
    #[inline(always)]
    fn settle(&mut self, now: SimTime, bin: usize, sink: &mut impl DropSink) {
        if !self.q.events().is_empty() {
            self.apply_qdisc_events(now, bin, sink);
        }
    }

    fn apply_qdisc_events(&mut self, now: SimTime, bin: usize, sink: &mut impl DropSink) {
        let now = now.as_nanos();
        for i in 0..self.q.events().len() {
            let e = self.q.events()[i];
            match e {
                QdiscEvent::Dropped { pkt, reason, .. } => {
                    if self.packet_log.is_some() {
                        self.drop_log.push(DropRecord {
                            t_ns: now,
                            sojourn_ns: now.saturating_sub(pkt.enqueue_ns),
                            size: pkt.size_bytes,
                            flow: pkt.flow.0,
                            reason: Some(reason),
                        });
                    }
                    self.m.dropped_pkts += 1;
                    self.m.drops_by_reason[reason.index()] += 1;
                    self.row(bin).drops += 1;
                    sink.dropped(pkt, Some(reason));
                }
                QdiscEvent::Marked { pkt, reason } => {
                    self.m.marked_pkts += 1;
                    self.m.marks_by_reason[reason.index()] += 1;
                    sink.marked(&pkt, reason);
                }
            }
        }
    }

    /// The series row of time bin `bin`, added (with the bins before it) if missing.
    #[inline]
    fn row(&mut self, bin: usize) -> &mut LinkBin {
        row_of(&mut self.series, bin)
    }

    /// Starts measuring the sojourn times of a new window; returns its slot.
    pub fn begin_window(&mut self) -> usize {
        self.windows.push(Some(SojournStats::default()));
        self.windows.len() - 1
    }

    /// Open windows so far (the next window's slot).
    pub fn windows_len(&self) -> usize {
        self.windows.len()
    }

    /// Stops the window of slot `k`: its sojourn times.
    pub fn end_window(&mut self, k: usize) -> SojournStats {
        self.windows[k].take().expect("an open window")
    }

    /// The per-packet log, if kept.
    pub fn packet_log(&self) -> Option<&[PacketRecord]> {
        self.packet_log.as_deref()
    }

    /// The drops of the per-packet log.
    pub fn drop_log(&self) -> &[DropRecord] {
        &self.drop_log
    }
}
