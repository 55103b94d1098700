//! The event queue: a priority queue keyed by `(time, seq)`, where `seq` is a global insertion
//! counter, so events at the same instant come out in the order they were scheduled (FIFO).
//! That rule, written down and tested, is what makes a run deterministic.
//!
//! Events go into one of two lanes, each a 4-ary heap keyed by one `u128`,
//! `time << 64 | seq` (one comparison orders two events; a node's four children share a cache
//! line or two, so a pop does half the levels of a binary heap). A pop takes the smaller of the
//! two lanes' first keys. The lanes share the sequence counter, so the pops come out in exactly
//! the order one queue would give (the keys are unique): the split is a speed choice only.
//!
//! Why two lanes: the packet events (a propagation head per busy link, a transmission end per
//! queueing link) are most of the pops, and there are at most two per link direction. Timers
//! (TCP retransmission and delayed-ACK timers, application arrivals) are a few percent of the
//! pops, but there is one per open connection, and with thousands of web connections open the
//! single heap grew to thousands of entries (`scenarios/web-overload.toml`), and every packet event
//! paid for its depth.
//!
//! Why a popped event stays in its heap until the next push or pop: nearly every packet event
//! schedules one more in the same lane (a propagation head schedules the pipe's next head, a
//! transmission end the next one). The first push into that lane then overwrites the root and
//! sifts it down: one sift instead of a sift-down to remove the root and a sift-up to insert.
//! Which element gets overwritten does not change the order of later pops: the heap holds the
//! same set of keys either way.

use aqmlab_core::SimTime;

const ARITY: usize = 4;

#[inline]
fn key(time: SimTime, seq: u64) -> u128 {
    (time.as_nanos() as u128) << 64 | seq as u128
}

#[inline]
fn key_time(k: u128) -> SimTime {
    SimTime::from_nanos((k >> 64) as u64)
}

/// Which heap an event goes to (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Packet events: few, and most of the pops.
    Packets = 0,
    /// Timers and application arrivals: possibly many, rarely popped.
    Timers = 1,
}

/// A 4-ary min-heap on `u128` keys: entry `i`'s children are `ARITY·i + 1 ..= ARITY·i + ARITY`;
/// each key is ≤ its children's.
///
/// The slots after the last entry hold `u128::MAX` keys, at least `ARITY` of them: every entry
/// with a child then has all `ARITY` child slots, and a sift-down picks the least of four
/// without checking which exist (a vacant slot never wins: no event has that key, as its
/// sequence number would be `u64::MAX`).
struct Heap<E> {
    slots: Vec<(u128, E)>,
    /// Entries: `slots[..len]`.
    len: usize,
}

/// The key of a vacant slot.
const VACANT: u128 = u128::MAX;

impl<E: Copy> Heap<E> {
    fn new(cap: usize) -> Self {
        Heap {
            slots: Vec::with_capacity(cap + ARITY),
            len: 0,
        }
    }
    /// Sift-up with a hole: parents move down until `k`'s place is found.
    #[inline]
    fn insert(&mut self, k: u128, event: E) {
        // Keep ARITY vacant slots after the last entry (the new event's copy fills them).
        while self.slots.len() < self.len + 1 + ARITY {
            self.slots.push((VACANT, event));
        }
        let mut i = self.len;
        self.len += 1;
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.slots[parent].0 <= k {
                break;
            }
            self.slots[i] = self.slots[parent];
            i = parent;
        }
        self.slots[i] = (k, event);
    }
    /// The smallest key, or `VACANT` when empty.
    #[inline]
    fn first_key(&self) -> u128 {
        if self.len == 0 {
            VACANT
        } else {
            self.slots[0].0
        }
    }
    /// Removes the root (the heap is not empty).
    #[inline]
    fn pop(&mut self) {
        self.len -= 1;
        let last = self.slots[self.len];
        self.slots[self.len].0 = VACANT;
        if self.len > 0 {
            self.replace_root(last.0, last.1);
        }
    }
    /// Puts `(k, event)` in place of the root (the heap is not empty) and sifts it down.
    #[inline]
    fn replace_root(&mut self, k: u128, event: E) {
        let n = self.len;
        // Sift-down with a hole from the root.
        let mut i = 0;
        loop {
            let first = ARITY * i + 1;
            if first >= n {
                break;
            }
            let c: &[(u128, E); ARITY] = self.slots[first..first + ARITY]
                .try_into()
                .expect("vacant slots follow the entries");
            // The least of the four as a small tournament (two independent comparisons first).
            let (a, ka) = if c[1].0 < c[0].0 {
                (1, c[1].0)
            } else {
                (0, c[0].0)
            };
            let (b, kb) = if c[3].0 < c[2].0 {
                (3, c[3].0)
            } else {
                (2, c[2].0)
            };
            let (m, km) = if kb < ka { (b, kb) } else { (a, ka) };
            if k <= km {
                break;
            }
            self.slots[i] = c[m];
            i = first + m;
        }
        self.slots[i] = (k, event);
    }
}

/// Pending events of type `E`.
pub struct EventQueue<E> {
    lanes: [Heap<E>; 2],
    /// The lane whose root was popped but is still in place, to be overwritten by the lane's
    /// next push or removed before the next pop (see the module notes).
    stale_root: Option<Lane>,
    /// The timer lane's first key, kept up to date by every change to that lane (rare), so that
    /// a pop reads one heap rather than two.
    timers_first: u128,
    next_seq: u64,
    popped: u64,
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue with room for `cap` events in each lane.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            lanes: [Heap::new(cap), Heap::new(cap)],
            stale_root: None,
            timers_first: VACANT,
            next_seq: 0,
            popped: 0,
        }
    }
    /// Schedules packet event `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        self.push_in(Lane::Packets, time, event);
    }
    /// Schedules `event` at `time` in `lane`.
    #[inline]
    pub fn push_in(&mut self, lane: Lane, time: SimTime, event: E) {
        let seq = self.reserve_seq();
        self.insert(lane, key(time, seq), event);
    }
    #[inline(always)]
    fn insert(&mut self, lane: Lane, k: u128, event: E) {
        if self.stale_root == Some(lane) {
            self.stale_root = None;
            self.lanes[lane as usize].replace_root(k, event);
        } else {
            self.lanes[lane as usize].insert(k, event);
        }
        if lane == Lane::Timers {
            self.timers_first = self.lanes[Lane::Timers as usize].first_key();
        }
    }
    /// Removes the root popped last, if no push has overwritten it.
    #[inline]
    fn drop_stale_root(&mut self) {
        if let Some(lane) = self.stale_root.take() {
            self.lanes[lane as usize].pop();
            if lane == Lane::Timers {
                self.timers_first = self.lanes[Lane::Timers as usize].first_key();
            }
        }
    }
    /// Takes the next sequence number without scheduling anything yet: an event that may or may
    /// not be needed later keeps its place in the FIFO order among equal times, as if it had been
    /// pushed now (see [`EventQueue::push_with_seq`]).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }
    /// Schedules packet event `event` at `time` with a sequence number from
    /// [`EventQueue::reserve_seq`].
    #[inline]
    pub fn push_with_seq(&mut self, time: SimTime, seq: u64, event: E) {
        debug_assert!(seq < self.next_seq, "seq must come from reserve_seq");
        self.insert(Lane::Packets, key(time, seq), event);
    }
    /// Removes the earliest event if it is before `until`, with its time and sequence number
    /// (FIFO among equal times).
    #[inline]
    pub fn pop_before(&mut self, until: SimTime) -> Option<(SimTime, u64, E)> {
        self.pop_below(key(until, 0))
    }
    /// Removes the earliest event (FIFO among equal times), with its sequence number.
    #[inline]
    pub fn pop_with_seq(&mut self) -> Option<(SimTime, u64, E)> {
        // No event has this key (its sequence number would be u64::MAX): all are below it.
        self.pop_below(u128::MAX)
    }
    /// Removes the earliest event if its key is below `limit`.
    #[inline]
    fn pop_below(&mut self, limit: u128) -> Option<(SimTime, u64, E)> {
        self.drop_stale_root();
        let (a, b) = (self.lanes[0].first_key(), self.timers_first);
        // An empty lane's first key is u128::MAX, never below the limit.
        if a.min(b) >= limit {
            return None;
        }
        let lane = if b < a { Lane::Timers } else { Lane::Packets };
        let (k, e) = self.lanes[lane as usize].slots[0];
        self.stale_root = Some(lane);
        self.popped += 1;
        Some((key_time(k), k as u64, e))
    }
    /// Removes the earliest event (FIFO among equal times).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.pop_with_seq().map(|(t, _, e)| (t, e))
    }
    /// Events pending.
    pub fn len(&self) -> usize {
        self.lanes[0].len + self.lanes[1].len - usize::from(self.stale_root.is_some())
    }
    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_fifo_among_ties() {
        let mut q = EventQueue::with_capacity(8);
        q.push(SimTime::from_nanos(5), "b1");
        q.push(SimTime::from_nanos(1), "a");
        q.push(SimTime::from_nanos(5), "b2");
        q.push(SimTime::from_nanos(3), "c");
        q.push(SimTime::from_nanos(5), "b3");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, ["a", "c", "b1", "b2", "b3"]);
        assert_eq!(q.processed(), 5);
    }

    /// One step of the property test: push at `now + dt` (any size, saturating to the end of
    /// time) in either lane, take a sequence number for later, push with a taken number, or pop.
    #[derive(Clone, Debug)]
    enum Op {
        Push(u64),
        PushTimer(u64),
        Reserve,
        PushReserved(usize, u64),
        Pop,
        PopBefore(u64),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            (0u64..50).prop_map(Op::Push),
            any::<u64>().prop_map(Op::Push),
            Just(Op::Push(u64::MAX)),
            (0u64..50).prop_map(Op::PushTimer),
            any::<u64>().prop_map(Op::PushTimer),
            Just(Op::Reserve),
            (any::<usize>(), 0u64..50).prop_map(|(i, dt)| Op::PushReserved(i, dt)),
            Just(Op::Pop),
            Just(Op::Pop),
            (0u64..50).prop_map(Op::PopBefore),
        ]
    }

    proptest::proptest! {
        /// Against a sorted reference: whatever the times (up to the end of time), the lanes,
        /// and however sequence numbers were taken, events come out in (time, seq) order, and a
        /// pop before a time takes exactly the events before it. Pushes and pops interleave, so
        /// a popped root is overwritten by the next push as often as it is removed.
        #[test]
        fn pops_in_time_then_insertion_order(ops in proptest::collection::vec(op(), 1..400)) {
            let mut q = EventQueue::with_capacity(4);
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let mut reserved: Vec<u64> = Vec::new();
            let mut now = 0u64;
            for o in ops {
                match o {
                    Op::Push(dt) => {
                        let t = now.saturating_add(dt);
                        let seq = q.next_seq;
                        q.push(SimTime::from_nanos(t), seq);
                        reference.push((t, seq));
                    }
                    Op::PushTimer(dt) => {
                        let t = now.saturating_add(dt);
                        let seq = q.next_seq;
                        q.push_in(Lane::Timers, SimTime::from_nanos(t), seq);
                        reference.push((t, seq));
                    }
                    Op::Reserve => reserved.push(q.reserve_seq()),
                    Op::PushReserved(i, dt) if !reserved.is_empty() => {
                        let seq = reserved.swap_remove(i % reserved.len());
                        let t = now.saturating_add(dt);
                        q.push_with_seq(SimTime::from_nanos(t), seq, seq);
                        reference.push((t, seq));
                    }
                    Op::PushReserved(..) => {}
                    Op::Pop | Op::PopBefore(_) => {
                        reference.sort_unstable();
                        let until = match o {
                            Op::PopBefore(dt) => now.saturating_add(dt),
                            _ => u64::MAX,
                        };
                        let due = reference.first().is_some_and(|&(t, _)| {
                            t < until || matches!(o, Op::Pop)
                        });
                        let want = due.then(|| reference.remove(0));
                        let got = match o {
                            Op::PopBefore(_) => q.pop_before(SimTime::from_nanos(until)),
                            _ => q.pop_with_seq(),
                        };
                        let got = got.map(|(t, s, e)| {
                            assert_eq!(s, e, "the event is the one pushed with this seq");
                            (t.as_nanos(), s)
                        });
                        proptest::prop_assert_eq!(got, want);
                        if let Some((t, _)) = got {
                            now = t;
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
        }
    }
}
