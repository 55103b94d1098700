//! The queue-discipline contract (after ns-3's `QueueDisc` and smoltcp's clock-free state machines).
//!
//! A discipline is a plain state machine: the caller owns the clock and passes `now` into every
//! call; a discipline never schedules events or reads a clock, so the simulator and a live
//! emulator drive the same code. Every packet that enters has exactly one fate:
//! * returned by [`QueueDisc::dequeue`] (delivered; possibly with ECN set to CE — "marked"),
//! * reported through [`QdiscCx::drop`] with a [`Stage`] and a [`DropReason`], or
//! * still queued (counted by [`QueueDisc::backlog`]).
//!
//! Marks are reported through [`QdiscCx::mark`], which also sets the packet's ECN field to CE.

use aqmlab_core::units::Size;
use aqmlab_core::{Ecn, Packet, SimTime};

/// Packets and bytes held by a discipline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backlog {
    /// Packets queued.
    pub packets: u32,
    /// Bytes queued (sum of `size_bytes`).
    pub bytes: u64,
}

/// When a drop happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// During an enqueue call: the arriving packet was refused, or a queued packet was evicted to
    /// make room for it (head drop, FQ-CoDel's fattest-flow drop).
    Enqueue,
    /// During a dequeue call: the AQM discarded the head packet instead of sending it.
    Dequeue,
}

impl Stage {
    /// Stable name used in output columns.
    pub const fn as_str(self) -> &'static str {
        match self {
            Stage::Enqueue => "enqueue",
            Stage::Dequeue => "dequeue",
        }
    }
}

macro_rules! reason_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident => $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name { $($(#[$vm])* $v,)* }
        impl $name {
            /// Every reason, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$v,)*];
            /// Stable snake_case name used as the `reason` column value.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$v => $s,)* }
            }
            /// Index into per-reason counter arrays.
            pub const fn index(self) -> usize { self as usize }
        }
    };
}

reason_enum! {
    /// Why a packet was dropped.
    DropReason {
        /// The buffer limit (packets or bytes) was reached.
        Overlimit => "overlimit",
        /// RED's probabilistic early drop (avg between the thresholds).
        RedEarly => "red_early",
        /// RED's forced drop (avg above max_th, or 2·max_th in gentle mode).
        RedForced => "red_forced",
        /// CoDel's control law: sojourn above target for an interval.
        CodelTarget => "codel_target",
        /// PIE's random drop with probability drop_prob.
        PieEarly => "pie_early",
        /// FQ-CoDel: the total packet limit was reached; dropped from the fattest flow's head.
        FqOverlimitFattest => "fq_overlimit_fattest",
        /// FQ-CoDel: the memory limit was reached; dropped from the fattest flow's head.
        FqMemoryFattest => "fq_memory_fattest",
        /// COBALT's BLUE part: random drop with its probability pdrop.
        BlueEarly => "blue",
        /// DualPI2: a Classic-queue packet dropped with probability p_C = p'² (RFC 9332 §2.4).
        Dualpi2Classic => "dualpi2_classic",
        /// DualPI2 in overload (p' ≥ 1/k): ECN is disabled and a packet is dropped with p_C in
        /// either queue (RFC 9332 §4.2.1, Appendix A.2).
        Dualpi2Overload => "dualpi2_overload",
        /// CAKE's ACK filter: a queued pure ACK made redundant by a newer one of its flow.
        AckFilter => "ack_filter",
    }
}

reason_enum! {
    /// Why a packet was marked CE instead of dropped.
    MarkReason {
        /// RED early mark.
        RedEarly => "red_early",
        /// RED forced mark (`hard_drop = false`: avg above max_th, or 2·max_th when gentle).
        RedForced => "red_forced",
        /// CoDel's control law marked instead of dropping.
        CodelTarget => "codel_target",
        /// Sojourn above CoDel's ce_threshold (shallow marking).
        CodelCeThreshold => "codel_ce_threshold",
        /// PIE marked instead of dropping (drop_prob below the ECN threshold).
        PieEarly => "pie_early",
        /// DualPI2: an ECT(0) Classic-queue packet marked with p_C = p'² (RFC 9332 §2.4).
        Dualpi2Classic => "dualpi2_classic",
        /// DualPI2: an L-queue packet marked with the coupled probability p_CL = k·p' (§2.4).
        Dualpi2Coupled => "dualpi2_coupled",
        /// DualPI2: an L-queue packet marked by the L queue's native step (or ramp) AQM (§2.5).
        Dualpi2Step => "dualpi2_step",
        /// PIE's L4S mode: an ECT(1)/CE packet whose sojourn exceeds ce_threshold (ns-3
        /// `PieQueueDisc` `UseL4s`).
        PieCeThreshold => "pie_ce_threshold",
    }
}

/// Something that happened to a packet inside one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QdiscEvent {
    /// The packet left the discipline without being sent.
    Dropped {
        /// The dropped packet.
        pkt: Packet,
        /// During enqueue or dequeue.
        stage: Stage,
        /// Why.
        reason: DropReason,
    },
    /// The packet was CE-marked; it is (or will be) delivered.
    Marked {
        /// The packet as marked.
        pkt: Packet,
        /// Why.
        reason: MarkReason,
    },
}

/// The channel through which a discipline reports drops and marks. The buffer is reused across
/// calls, so after warm-up reporting allocates nothing.
#[derive(Debug, Default)]
pub struct QdiscCx {
    events: Vec<QdiscEvent>,
}

impl QdiscCx {
    /// An empty context.
    pub fn new() -> Self {
        Self {
            events: Vec::with_capacity(64),
        }
    }
    /// Reports that `pkt` was dropped.
    #[inline]
    pub fn drop(&mut self, pkt: Packet, stage: Stage, reason: DropReason) {
        self.events.push(QdiscEvent::Dropped { pkt, stage, reason });
    }
    /// Sets `pkt`'s ECN field to CE and reports the mark. The packet must be ECN-capable.
    #[inline]
    pub fn mark(&mut self, pkt: &mut Packet, reason: MarkReason) {
        debug_assert!(pkt.ecn.is_ect(), "only ECN-capable packets may be marked");
        pkt.ecn = Ecn::Ce;
        self.events.push(QdiscEvent::Marked { pkt: *pkt, reason });
    }
    /// What happened since the last [`QdiscCx::clear`].
    pub fn events(&self) -> &[QdiscEvent] {
        &self.events
    }
    /// Forgets the events (keeps the buffer).
    pub fn clear(&mut self) {
        self.events.clear();
    }
}

/// A queue discipline. Implementations cite the specification section they implement.
pub trait QueueDisc {
    /// Offers `pkt` (already stamped with `enqueue_ns = now`) to the discipline. The packet is
    /// either queued, or reported as dropped through `cx`; queued packets may be evicted through `cx`.
    fn enqueue(&mut self, now: SimTime, pkt: Packet, cx: &mut QdiscCx);

    /// The link is ready to send: returns the next packet, or `None` if there is nothing to send.
    /// The discipline may drop (or mark) packets through `cx` before returning one.
    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet>;

    /// Exact packets and bytes queued.
    fn backlog(&self) -> Backlog;

    /// Visits the internal state variables worth tracing (name, value), e.g. CoDel's `dropping`,
    /// `count`, `drop_next_ns`; RED's `avg`; PIE's `drop_prob`; LSTF-CoDel's `slack_s`.
    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64));

    /// `Some(limit)` when the discipline is a plain FIFO bounded by `limit` and keeps no other
    /// state: it never marks, a dequeue from the empty queue changes nothing, and a packet that
    /// arrives at the empty queue is accepted exactly when it fits `limit`, and is what the next
    /// dequeue returns. A link can then pass a packet across its idle queue without either call
    /// (see [`crate::Qdisc::pass_through`]). The default, `None`, suits every discipline with
    /// state of its own (an AQM's estimators must see every packet).
    fn stateless_fifo_limit(&self) -> Option<Size> {
        None
    }

    /// After a [`QueueDisc::dequeue`] that returned `None` with packets queued: the time before
    /// which the discipline has nothing to send (a shaper's next send time, Linux's qdisc
    /// watchdog), when the link should call again. The default, `None`, suits every
    /// work-conserving discipline: its empty dequeue means an empty queue.
    fn next_send_time(&self) -> Option<SimTime> {
        None
    }
}
