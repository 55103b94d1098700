//! CoDel's control loop (RFC 8289 §5), written once over any queue so that CoDel, each FQ-CoDel
//! flow and LSTF-CoDel share it. `variant` selects the arithmetic and the small rule differences
//! between RFC 8289, Linux sch_codel and ns-3 3.37 (see `docs/models/codel.md`).

use super::linux_compat::{self, CODEL_SHIFT, REC_INV_SQRT_ONE};
use crate::contract::{DropReason, MarkReason, QdiscCx, Stage};
use aqmlab_core::{Ecn, Packet, SimDuration, SimTime};

/// Which system's CoDel arithmetic to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 8289 §5 as written: nanosecond time, exact `interval/sqrt(count)`, `now >= first_above_time`,
    /// "don't drop" when the bytes left are `<= mtu`.
    Rfc,
    /// Linux sch_codel: 1024-ns time units, Q0.16 1/sqrt(count) updated by one Newton step per count
    /// change, strictly-after comparisons, `backlog <= mtu`.
    Linux,
    /// ns-3 3.37 CoDelQueueDisc: Linux arithmetic, but sojourn = (now − enqueue) >> 10, "don't drop"
    /// when the bytes left are `< mtu` (MinBytes), the re-entry test is unsigned (it fails when
    /// `now < drop_next`), and an ECN mark in the dropping state schedules from `now`.
    Ns3,
}

impl Variant {
    /// Names accepted by the `variant` parameter.
    pub const NAMES: [&'static str; 3] = ["rfc", "linux", "ns3"];
    /// From an index into [`Variant::NAMES`].
    pub fn from_index(i: usize) -> Variant {
        [Variant::Rfc, Variant::Linux, Variant::Ns3][i]
    }
    /// Time in this variant's units ("ticks"): ns for `rfc`, 1024 ns otherwise.
    #[inline]
    fn ticks(self, ns: u64) -> u64 {
        match self {
            Variant::Rfc => ns,
            Variant::Linux | Variant::Ns3 => ns >> CODEL_SHIFT,
        }
    }
    /// The sojourn in ticks of a packet enqueued at `enqueue_ns`, at `now_ns` (`now` in ticks):
    /// Linux subtracts the truncated times, ns-3 truncates the difference.
    #[inline]
    fn sojourn(self, now_ns: u64, now: u64, enqueue_ns: u64) -> u64 {
        match self {
            Variant::Rfc => now_ns - enqueue_ns,
            Variant::Linux => now - (enqueue_ns >> CODEL_SHIFT),
            Variant::Ns3 => (now_ns - enqueue_ns) >> CODEL_SHIFT,
        }
    }
    /// Ticks back to nanoseconds (for tracing).
    #[inline]
    pub fn ticks_to_ns(self, t: u64) -> u64 {
        match self {
            Variant::Rfc => t,
            Variant::Linux | Variant::Ns3 => t << CODEL_SHIFT,
        }
    }
}

/// CoDel's parameters, converted to the variant's time units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    /// Arithmetic.
    pub variant: Variant,
    /// TARGET (RFC 8289 §5.3), in ticks.
    target: u64,
    /// INTERVAL (RFC 8289 §5.3), in ticks.
    interval: u64,
    /// INTERVAL in ns (for the exact control law).
    interval_ns: u64,
    /// maxpacket / MinBytes: never drop when this little would remain (RFC 8289 §5.4 note).
    pub mtu_bytes: u64,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Shallow-marking threshold in ticks (Linux `ce_threshold`), if any.
    ce_threshold: Option<u64>,
    /// L4S mode (ns-3 3.37 `UseL4s`): an ECT(1) or CE packet popped first by a dequeue is sent
    /// at once, CE-marked when its sojourn exceeds `ce_threshold`, and CoDel's state is left
    /// alone; the classic `ce_threshold` marking is off.
    pub l4s: bool,
    /// Not a parameter: a counterfactual switch for the ns-3 vector tests, `true` from
    /// [`CodelParams::new`]. With `l4s`, whether an L4S departure leaves CoDel's state alone, as
    /// ns-3 3.37 `CoDelQueueDisc::DoDequeue` does; `false` lets its sojourn move
    /// `first_above_time` and end the dropping state as a classic packet's would (it is still
    /// only marked at `ce_threshold`). `vectors/README.md`, `l4s_shared`.
    #[doc(hidden)]
    pub l4s_skips_state: bool,
    /// Not a parameter: a counterfactual switch for the ns-3 vector tests,
    /// [`L4sLoop::Classic`] from [`CodelParams::new`]. With `l4s`, what becomes of an ECT(1)/CE
    /// packet that a dequeue pops after CoDel dropped the one before it. `vectors/README.md`,
    /// `l4s_loop`.
    #[doc(hidden)]
    pub l4s_loop: L4sLoop,
}

/// In L4S mode, the treatment of an ECT(1)/CE packet popped after a drop in the same dequeue
/// (counterfactuals for the ns-3 vector tests; only `Classic` is ns-3's).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L4sLoop {
    /// ns-3 3.37 `CoDelQueueDisc::DoDequeue`: only the first pop is tested for L4S; this one is
    /// CoDel's like a classic packet (its sojourn moves the state, it is dropped or
    /// target-marked when another drop is due, never marked at the threshold).
    Classic,
    /// Sent as L4S: CE at `ce_threshold`, CoDel's state left as it is (the head's treatment).
    L4s,
    /// CoDel's state moves as in `Classic` (`first_above_time`, leaving the dropping state or
    /// scheduling the next drop), but the packet is then sent as L4S: never dropped or
    /// target-marked, CE at `ce_threshold`.
    L4sAfterState,
}

impl CodelParams {
    /// Converts durations to the variant's units.
    pub fn new(
        variant: Variant,
        target: SimDuration,
        interval: SimDuration,
        mtu_bytes: u64,
        ecn: bool,
        ce_threshold: Option<SimDuration>,
    ) -> Self {
        CodelParams {
            variant,
            target: variant.ticks(target.as_nanos()),
            interval: variant.ticks(interval.as_nanos()),
            interval_ns: interval.as_nanos(),
            mtu_bytes,
            ecn,
            ce_threshold: ce_threshold.map(|d| variant.ticks(d.as_nanos())),
            l4s: false,
            l4s_skips_state: true,
            l4s_loop: L4sLoop::Classic,
        }
    }
}

/// What the control loop needs from the queue it controls.
pub trait CodelQueue {
    /// Removes the next packet to consider. `dropping` tells whether CoDel is in its dropping
    /// state (LSTF-CoDel takes from the other end of its priority queue then; FIFOs ignore it).
    fn pop(&mut self, dropping: bool) -> Option<Packet>;
    /// Bytes still queued after the pop, for the "at least one MTU" test. Linux FQ-CoDel passes the
    /// whole qdisc's backlog here; a plain CoDel its own.
    fn bytes_for_mtu_test(&self) -> u64;
    /// CoDel has decided to signal congestion (drop, or mark if ECN-capable) while holding
    /// `examined`, the packet it just popped. Returns the packet that receives the signal; the
    /// default is `examined` itself (head drop, RFC 8289 §5.5). LSTF-CoDel as described by Ford
    /// (2020, §V: "LSTFCoDel will drop the packet with the highest slack time") returns its
    /// most-slack packet instead and puts `examined` back, so that the next pop returns it again.
    #[inline]
    fn signal_target(&mut self, examined: Packet) -> Packet {
        examined
    }
}

/// Whether CoDel signals congestion on `pkt` by marking rather than dropping it: with `ecn` on,
/// an ECN-capable packet (RFC 3168 §5). The linux and ns3 variants also take a packet that
/// arrived with CE already set, which is then sent unchanged: Linux's `INET_ECN_set_ce`
/// succeeds on CE, and ns-3 3.37's `Ipv4QueueDiscItem::Mark` accepts every codepoint but
/// Not-ECT. The rfc variant drops it.
#[inline]
fn markable(p: &CodelParams, pkt: &Packet) -> bool {
    p.ecn && (pkt.ecn.is_ect() || (pkt.ecn == Ecn::Ce && p.variant != Variant::Rfc))
}

/// Whether `pkt` is a packet L4S mode sends at once: ECT(1) or CE, with `l4s` on.
#[inline]
fn is_l4s(p: &CodelParams, pkt: Option<&Packet>) -> bool {
    p.l4s && pkt.is_some_and(|h| matches!(h.ecn, Ecn::Ect1 | Ecn::Ce))
}

/// L4S mode's only signal: CE on an ECT(1) packet whose sojourn exceeds `ce_threshold` (a CE
/// packet stays CE, no mark reported).
#[inline]
fn l4s_threshold_mark(p: &CodelParams, now_ns: u64, now: u64, pkt: &mut Packet, cx: &mut QdiscCx) {
    let sojourn = p.variant.sojourn(now_ns, now, pkt.enqueue_ns);
    if p.ce_threshold.is_some_and(|th| sojourn > th) && pkt.ecn.is_ect() {
        cx.mark(pkt, MarkReason::CodelCeThreshold);
    }
}

/// Marks a [`markable`] packet: sets CE on an ECT packet; a CE packet stays as it is and no mark
/// is reported (as RED does with CE arrivals).
#[inline]
fn mark(pkt: &mut Packet, cx: &mut QdiscCx) {
    if pkt.ecn.is_ect() {
        cx.mark(pkt, MarkReason::CodelTarget);
    }
}

/// Per-queue CoDel state (RFC 8289 §5.2), plus Linux's `rec_inv_sqrt` and `ldelay`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelState {
    /// Time (ticks) at which the sojourn will have been above target for an interval; 0 = unset.
    pub first_above_time: u64,
    /// Time (ticks) of the next scheduled drop.
    pub drop_next: u64,
    /// Drops since entering the dropping state (with the re-entry rule).
    pub count: u32,
    /// `count` at the last entry into the dropping state.
    pub lastcount: u32,
    /// In the dropping state.
    pub dropping: bool,
    /// 1/sqrt(count) in Q0.16 (linux and ns3 variants).
    pub rec_inv_sqrt: u16,
    /// Sojourn (ticks) of the last packet examined.
    pub ldelay: u64,
}

impl CodelState {
    /// Initial state.
    pub fn new() -> Self {
        CodelState {
            rec_inv_sqrt: REC_INV_SQRT_ONE,
            ..Default::default()
        }
    }

    /// Adds `n` to `count`, as Linux FQ-CoDel does after an overflow drop from this queue
    /// ("tell codel to increase its signal", `fq_codel_drop`). Like Linux, 1/sqrt(count) is not
    /// refreshed here; the next count change's Newton step catches up.
    pub fn bump_count(&mut self, n: u32) {
        self.count = self.count.saturating_add(n);
    }

    #[inline]
    fn control_law(&self, t: u64, p: &CodelParams) -> u64 {
        match p.variant {
            // RFC 8289 §5.5 control_law: t + INTERVAL / sqrt(count), exact.
            Variant::Rfc => {
                t + (p.interval_ns as f64 / (self.count.max(1) as f64).sqrt()).round() as u64
            }
            Variant::Linux | Variant::Ns3 => {
                linux_compat::control_law(t, p.interval, self.rec_inv_sqrt)
            }
        }
    }

    /// After `count` changed by one: Linux refines 1/sqrt(count) with one Newton step.
    #[inline]
    fn count_changed(&mut self, p: &CodelParams) {
        if p.variant != Variant::Rfc {
            self.rec_inv_sqrt = linux_compat::newton_step(self.rec_inv_sqrt, self.count);
        }
    }

    /// RFC 8289 §5.5 `dodequeue` / Linux `codel_should_drop` for a packet just popped (or none):
    /// updates `first_above_time` and says whether the packet may be dropped.
    #[inline]
    fn ok_to_drop<Q: CodelQueue>(
        &mut self,
        pkt: Option<&Packet>,
        now_ns: u64,
        now: u64,
        p: &CodelParams,
        q: &Q,
    ) -> bool {
        let Some(pkt) = pkt else {
            self.first_above_time = 0;
            return false;
        };
        let sojourn = p.variant.sojourn(now_ns, now, pkt.enqueue_ns);
        self.ldelay = sojourn;
        let left = q.bytes_for_mtu_test();
        let too_little_left = match p.variant {
            Variant::Rfc | Variant::Linux => left <= p.mtu_bytes,
            Variant::Ns3 => left < p.mtu_bytes,
        };
        if sojourn < p.target || too_little_left {
            // Went below (or too little data to be worth dropping): stay below for an interval.
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            // Just went above; if still above an interval from now, dropping is allowed.
            self.first_above_time = now + p.interval;
            false
        } else {
            match p.variant {
                Variant::Rfc => now >= self.first_above_time,
                Variant::Linux | Variant::Ns3 => now > self.first_above_time,
            }
        }
    }

    /// RFC 8289 §5.5 `dequeue`: pops from `q`, dropping (or marking) as the control law says, and
    /// returns the packet to send.
    pub fn dequeue<Q: CodelQueue>(
        &mut self,
        now_t: SimTime,
        p: &CodelParams,
        q: &mut Q,
        cx: &mut QdiscCx,
    ) -> Option<Packet> {
        let now_ns = now_t.as_nanos();
        let now = p.variant.ticks(now_ns);
        let mut pkt = q.pop(self.dropping);
        if pkt.is_none() && p.variant != Variant::Rfc {
            // Linux/ns-3: an empty queue leaves the dropping state at once (first_above_time kept).
            self.dropping = false;
            return None;
        }
        if is_l4s(p, pkt.as_ref()) {
            // L4S (ns-3 3.37 `CoDelQueueDisc::DoDequeue` with `UseL4s`; RFC 9331 §5.1 asks for
            // a shallow, immediate threshold for L4S packets): only the head this call pops
            // first is tested, and CoDel's state is not touched. A packet popped later in this
            // call, after a drop, is CoDel's as a classic packet would be (below).
            let head = pkt.as_mut().expect("is_l4s implies a packet");
            l4s_threshold_mark(p, now_ns, now, head, cx);
            if !p.l4s_skips_state {
                let ok = self.ok_to_drop(pkt.as_ref(), now_ns, now, p, q);
                self.dropping &= ok;
            }
            return pkt;
        }
        let mut ok = self.ok_to_drop(pkt.as_ref(), now_ns, now, p, q);
        let mut marked = false;

        if self.dropping {
            if !ok {
                // Sojourn fell below target: leave the dropping state.
                self.dropping = false;
            }
            // Several drops may be due in one dequeue when drop_next lies far in the past.
            while self.dropping && now >= self.drop_next {
                let Some(head) = pkt else { break };
                let mut head = q.signal_target(head);
                self.count += 1;
                self.count_changed(p);
                if markable(p, &head) {
                    // Linux: mark instead of drop, schedule the next signal, send this packet.
                    mark(&mut head, cx);
                    marked = true;
                    let base = if p.variant == Variant::Ns3 {
                        now
                    } else {
                        self.drop_next
                    };
                    self.drop_next = self.control_law(base, p);
                    pkt = Some(head);
                    break;
                }
                cx.drop(head, Stage::Dequeue, DropReason::CodelTarget);
                pkt = q.pop(true);
                // Counterfactuals only (ns-3 tests the first pop alone: L4sLoop::Classic).
                let l4s_next = p.l4s_loop != L4sLoop::Classic && is_l4s(p, pkt.as_ref());
                if l4s_next && p.l4s_loop == L4sLoop::L4s {
                    let next = pkt.as_mut().expect("is_l4s implies a packet");
                    l4s_threshold_mark(p, now_ns, now, next, cx);
                    return pkt;
                }
                ok = self.ok_to_drop(pkt.as_ref(), now_ns, now, p, q);
                if !ok {
                    self.dropping = false;
                } else {
                    // Schedule from drop_next, not now (RFC 8289 §5.5).
                    self.drop_next = self.control_law(self.drop_next, p);
                }
                if l4s_next {
                    let next = pkt.as_mut().expect("is_l4s implies a packet");
                    l4s_threshold_mark(p, now_ns, now, next, cx);
                    return pkt;
                }
            }
        } else if ok {
            // Above target for a whole interval: drop one packet and enter the dropping state.
            let mut head = q.signal_target(pkt.expect("ok_to_drop implies a packet"));
            if markable(p, &head) {
                mark(&mut head, cx);
                marked = true;
                pkt = Some(head);
            } else {
                cx.drop(head, Stage::Dequeue, DropReason::CodelTarget);
                // Not yet in the dropping state: RFC 8289 §5.5 (and the ns-2 code LSTF-CoDel was
                // built on) pops the replacement before setting `dropping`.
                pkt = q.pop(false);
                // Counterfactuals only (ns-3 tests the first pop alone: L4sLoop::Classic).
                let l4s_next = p.l4s_loop != L4sLoop::Classic && is_l4s(p, pkt.as_ref());
                if !l4s_next || p.l4s_loop == L4sLoop::L4sAfterState {
                    self.ok_to_drop(pkt.as_ref(), now_ns, now, p, q);
                }
                if l4s_next {
                    let next = pkt.as_mut().expect("is_l4s implies a packet");
                    l4s_threshold_mark(p, now_ns, now, next, cx);
                }
            }
            self.dropping = true;
            // Re-entry rule (RFC 8289 §5.5, "the Linux version"): if the last episode ended
            // recently, resume at the drop rate it reached.
            let delta = self.count as i64 - self.lastcount as i64;
            let recent = match p.variant {
                // Signed difference: true also when now < drop_next.
                Variant::Rfc | Variant::Linux => {
                    (now as i64 - self.drop_next as i64) < 16 * p.interval as i64
                }
                // ns-3 3.37 computes now - drop_next in uint32 and compares it as int64: a
                // negative difference becomes huge, so the test fails when now < drop_next.
                Variant::Ns3 => now >= self.drop_next && now - self.drop_next < 16 * p.interval,
            };
            if delta > 1 && recent {
                self.count = delta as u32;
                self.count_changed(p);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = REC_INV_SQRT_ONE;
            }
            self.lastcount = self.count;
            self.drop_next = self.control_law(now, p);
        }

        // Shallow marking (Linux ce_threshold): any sent packet whose sojourn exceeded the
        // threshold. Off in L4S mode (ns-3 3.37).
        if let (Some(th), Some(head), false) = (p.ce_threshold, pkt.as_mut(), p.l4s) {
            let sojourn = p.variant.sojourn(now_ns, now, head.enqueue_ns);
            // ns-3 marks on ce_threshold only when UseEcn is set; Linux regardless.
            let allowed = p.ecn || p.variant != Variant::Ns3;
            if allowed && !marked && sojourn > th && head.ecn.is_ect() {
                cx.mark(head, MarkReason::CodelCeThreshold);
            }
        }
        pkt
    }

    /// Visits `dropping`, `count`, `lastcount`, `drop_next_ns` and `first_above_time_ns`.
    pub fn visit(&self, variant: Variant, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("dropping", self.dropping as u8 as f64);
        visit("count", self.count as f64);
        visit("lastcount", self.lastcount as f64);
        visit("drop_next_ns", variant.ticks_to_ns(self.drop_next) as f64);
        visit(
            "first_above_time_ns",
            variant.ticks_to_ns(self.first_above_time) as f64,
        );
    }
}
