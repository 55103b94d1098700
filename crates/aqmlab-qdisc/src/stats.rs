//! Counters kept for every discipline, and the wrapper that keeps them (the ns-3 NVI idea:
//! the public call stamps the packet, forwards, counts and checks conservation).

use crate::contract::{Backlog, DropReason, MarkReason, QdiscCx, QdiscEvent, QueueDisc, Stage};
use aqmlab_core::units::Size;
use aqmlab_core::{Packet, SimTime};

/// A packet and byte counter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Packets.
    pub packets: u64,
    /// Bytes.
    pub bytes: u64,
}

impl Count {
    fn add(&mut self, size_bytes: u32) {
        self.packets += 1;
        self.bytes += size_bytes as u64;
    }
}

const N_DROP: usize = DropReason::ALL.len();
const N_MARK: usize = MarkReason::ALL.len();

/// Totals over a discipline's life. Conservation: `received = delivered + dropped + backlog`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QdiscStats {
    /// Packets offered to `enqueue`.
    pub received: Count,
    /// Packets returned by `dequeue` (marked ones included).
    pub delivered: Count,
    /// Drops during enqueue calls, per reason.
    pub dropped_enqueue: [Count; N_DROP],
    /// Drops during dequeue calls, per reason.
    pub dropped_dequeue: [Count; N_DROP],
    /// Marks per reason.
    pub marks: [Count; N_MARK],
    /// Dequeue calls that returned nothing.
    pub empty_dequeues: u64,
}

impl QdiscStats {
    /// All drops, both stages.
    pub fn dropped(&self) -> Count {
        let mut c = Count::default();
        for x in self
            .dropped_enqueue
            .iter()
            .chain(self.dropped_dequeue.iter())
        {
            c.packets += x.packets;
            c.bytes += x.bytes;
        }
        c
    }
    /// Drops with `reason` at `stage`.
    pub fn drops(&self, stage: Stage, reason: DropReason) -> Count {
        match stage {
            Stage::Enqueue => self.dropped_enqueue[reason.index()],
            Stage::Dequeue => self.dropped_dequeue[reason.index()],
        }
    }
    /// All marks made by this discipline.
    pub fn marked(&self) -> Count {
        let mut c = Count::default();
        for x in &self.marks {
            c.packets += x.packets;
            c.bytes += x.bytes;
        }
        c
    }
    /// Marks with `reason`.
    pub fn marks(&self, reason: MarkReason) -> Count {
        self.marks[reason.index()]
    }
}

/// A discipline with its counters and its event buffer. This is what simulators and the replay
/// driver hold. After each call, [`Qdisc::events`] lists the drops and marks of that call.
#[derive(Debug)]
pub struct Qdisc<Q> {
    /// Received minus delivered minus dropped: by conservation, the discipline's backlog. Kept
    /// here so reading the backlog (after every call, on the simulator's hot path) needs no
    /// call into the discipline; debug builds check it against the discipline's own count.
    queued: Backlog,
    /// The discipline's [`QueueDisc::stateless_fifo_limit`], fixed by its type and configuration.
    fifo_limit: Option<Size>,
    cx: QdiscCx,
    stats: QdiscStats,
    /// The state variables' changes, when asked for ([`Qdisc::trace_state`]); boxed so an
    /// untraced discipline (the usual case) carries one word for it.
    trace: Option<Box<crate::state_trace::StateTrace>>,
    inner: Q,
}

impl<Q: QueueDisc> Qdisc<Q> {
    /// Wraps `inner`.
    pub fn new(inner: Q) -> Self {
        // A discipline handed over with packets in it keeps them in the count (they count as
        // received, so conservation still holds).
        let queued = inner.backlog();
        let stats = QdiscStats {
            received: Count {
                packets: queued.packets as u64,
                bytes: queued.bytes,
            },
            ..QdiscStats::default()
        };
        Qdisc {
            queued,
            fifo_limit: inner.stateless_fifo_limit(),
            cx: QdiscCx::new(),
            stats,
            trace: None,
            inner,
        }
    }

    /// Stamps `pkt` with `now` and offers it to the discipline.
    pub fn enqueue(&mut self, now: SimTime, mut pkt: Packet) {
        self.cx.clear();
        pkt.enqueue_ns = now.as_nanos();
        self.stats.received.add(pkt.size_bytes);
        self.queued.packets += 1;
        self.queued.bytes += pkt.size_bytes as u64;
        self.inner.enqueue(now, pkt, &mut self.cx);
        self.account();
        self.note_state(now);
    }

    /// Asks the discipline for the next packet to send.
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        self.cx.clear();
        let out = self.inner.dequeue(now, &mut self.cx);
        match &out {
            Some(p) => {
                debug_assert!(p.enqueue_ns <= now.as_nanos(), "negative sojourn");
                self.stats.delivered.add(p.size_bytes);
                self.queued.packets -= 1;
                self.queued.bytes -= p.size_bytes as u64;
            }
            None => self.stats.empty_dequeues += 1,
        }
        self.account();
        self.note_state(now);
        out
    }

    /// Records the state variables that the last call changed, when tracing.
    #[inline(always)]
    fn note_state(&mut self, now: SimTime) {
        if let Some(t) = &mut self.trace {
            t.note(now.as_nanos(), &self.inner);
        }
    }

    /// Starts recording the discipline's state variables as they change, from now on (a
    /// stateless FIFO has none). The shortcuts [`Qdisc::pass_through`] and
    /// [`Qdisc::dequeue_when_idle`] skip calls only into stateless FIFOs, so nothing is missed.
    pub fn trace_state(&mut self) {
        if self.trace.is_none() {
            self.trace = Some(Box::new(crate::state_trace::StateTrace::new(&self.inner)));
        }
    }

    /// The discipline's state is being recorded ([`Qdisc::trace_state`]).
    pub fn traces_state(&self) -> bool {
        self.trace.is_some()
    }

    /// The state changes recorded and not yet taken (empty when not tracing).
    pub fn state_changes(&self) -> &[crate::state_trace::StateChange] {
        self.trace.as_deref().map_or(&[], |t| t.changes())
    }

    /// Hands out the state changes recorded so far and forgets them.
    pub fn take_state_changes(&mut self) -> Vec<crate::state_trace::StateChange> {
        self.trace
            .as_deref_mut()
            .map(|t| t.take())
            .unwrap_or_default()
    }

    /// A packet crossing an idle link: the link would enqueue it and dequeue it at once. When
    /// the discipline is empty and a stateless FIFO ([`QueueDisc::stateless_fifo_limit`]) that
    /// accepts it, neither call can have any other effect, so this counts the packet as received
    /// and delivered, stamps it, and returns true without making them. Otherwise it returns
    /// false and changes nothing: the caller makes both calls.
    #[inline]
    pub fn pass_through(&mut self, now: SimTime, pkt: &mut Packet) -> bool {
        if self.queued.packets != 0 {
            return false;
        }
        let Some(limit) = self.fifo_limit else {
            return false;
        };
        if !crate::droptail::fits(limit, Backlog::default(), pkt.size_bytes) {
            return false;
        }
        self.cx.clear();
        pkt.enqueue_ns = now.as_nanos();
        self.stats.received.add(pkt.size_bytes);
        self.stats.delivered.add(pkt.size_bytes);
        true
    }

    /// The dequeue a link makes when it goes idle, which finds the queue empty. A stateless
    /// FIFO only counts it; any other discipline gets the call (its state may depend on it).
    #[inline]
    pub fn dequeue_when_idle(&mut self, now: SimTime) -> Option<Packet> {
        if self.queued.packets == 0 && self.fifo_limit.is_some() {
            self.cx.clear();
            self.stats.empty_dequeues += 1;
            return None;
        }
        self.dequeue(now)
    }

    fn account(&mut self) {
        for e in self.cx.events() {
            match *e {
                QdiscEvent::Dropped { pkt, stage, reason } => {
                    self.queued.packets -= 1;
                    self.queued.bytes -= pkt.size_bytes as u64;
                    match stage {
                        Stage::Enqueue => {
                            self.stats.dropped_enqueue[reason.index()].add(pkt.size_bytes)
                        }
                        Stage::Dequeue => {
                            self.stats.dropped_dequeue[reason.index()].add(pkt.size_bytes)
                        }
                    }
                }
                QdiscEvent::Marked { pkt, reason } => {
                    self.stats.marks[reason.index()].add(pkt.size_bytes)
                }
            }
        }
        debug_assert!(
            self.conserved() && self.queued == self.inner.backlog(),
            "conservation violated: {:?} vs {:?}",
            self.stats,
            self.backlog()
        );
    }

    /// True when `received = delivered + dropped + backlog` in packets and bytes.
    pub fn conserved(&self) -> bool {
        let b = self.inner.backlog();
        let d = self.stats.dropped();
        self.stats.received.packets == self.stats.delivered.packets + d.packets + b.packets as u64
            && self.stats.received.bytes == self.stats.delivered.bytes + d.bytes + b.bytes
    }

    /// Drops and marks of the last call.
    pub fn events(&self) -> &[QdiscEvent] {
        self.cx.events()
    }
    /// Totals so far.
    pub fn stats(&self) -> &QdiscStats {
        &self.stats
    }
    /// Exact backlog.
    #[inline]
    pub fn backlog(&self) -> Backlog {
        self.queued
    }
    /// After a dequeue that returned `None` with packets queued: when to call again
    /// ([`QueueDisc::next_send_time`]).
    #[inline]
    pub fn next_send_time(&self) -> Option<SimTime> {
        self.inner.next_send_time()
    }
    /// The wrapped discipline (for its state).
    pub fn inner(&self) -> &Q {
        &self.inner
    }
}
