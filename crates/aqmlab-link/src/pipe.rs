//! A link's propagation pipe: the packets on their way to the far node, each with its arrival
//! time and a number its driver may keep with it (its tag), in sending order.
//!
//! A ring buffer whose capacity is a power of two, indexed by two wrapping counters: a push, a
//! pop and a look at the head are a mask and an index each. Every packet crosses one pipe per
//! hop; what made this faster than a `VecDeque` is that a pop hands the head back without an
//! `Option` ([`Pipe::pop_front`]). The ring only grows (doubling), so the steady state
//! allocates nothing.
//!
//! The tag lives in the packet's slot, so keeping it costs a store at the push and a load
//! with the head's arrival. The simulator keeps there the event sequence number taken when
//! the packet's transmission started: kept in a `VecDeque` beside the pipe, those numbers cost
//! 99 M instructions on the bulk benchmark (2,370.9 M -> 2,470.0 M, callgrind on the
//! `run_scenario` example), in the slot 2 M (2,373.0 M).

use aqmlab_core::{FlowId, Packet, SimTime};

/// A FIFO of `(arrival time, packet)`, each with a tag ([`Pipe::push_back`]).
#[derive(Clone, Debug)]
pub struct Pipe {
    /// The ring; its length is a power of two.
    ring: Vec<Slot>,
    /// Total pushes and pops so far (wrapping): the head is at `popped & mask`, and
    /// `pushed - popped` packets are in the pipe.
    pushed: u32,
    popped: u32,
}

/// A packet in the pipe: its arrival time, its tag and itself.
#[derive(Clone, Copy, Debug)]
struct Slot {
    at: SimTime,
    tag: u64,
    p: Packet,
}

/// What fills a slot no packet occupies.
const VACANT: Slot = Slot {
    at: SimTime::ZERO,
    tag: 0,
    p: Packet::new(0, 0, FlowId(0)),
};

impl Pipe {
    /// An empty pipe with room for `cap` packets (rounded up to a power of two) before it grows.
    pub fn with_capacity(cap: usize) -> Pipe {
        Pipe {
            ring: vec![VACANT; cap.max(1).next_power_of_two()],
            pushed: 0,
            popped: 0,
        }
    }

    /// Packets in the pipe.
    #[inline]
    pub fn len(&self) -> usize {
        self.pushed.wrapping_sub(self.popped) as usize
    }

    /// True when no packet is in the pipe.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pushed == self.popped
    }

    #[inline]
    fn slot(&self, counter: u32) -> usize {
        counter as usize & (self.ring.len() - 1)
    }

    /// Appends `p`, arriving at `at`, with `tag`.
    #[inline]
    pub fn push_back(&mut self, at: SimTime, tag: u64, p: Packet) {
        if self.len() == self.ring.len() {
            self.grow();
        }
        let i = self.slot(self.pushed);
        self.ring[i] = Slot { at, tag, p };
        self.pushed = self.pushed.wrapping_add(1);
    }

    /// Removes the head, the packet that arrives first. Panics if the pipe is empty.
    ///
    /// Not an `Option`: moving a packet through one cost about 20 instructions per hop against
    /// this ring (the option's niche is in the packet's ECN field, and the copy went field by
    /// field; README, "Where the time goes").
    #[inline]
    pub fn pop_front(&mut self) -> (SimTime, Packet) {
        assert!(!self.is_empty(), "pop from an empty pipe");
        let head = self.ring[self.slot(self.popped)];
        self.popped = self.popped.wrapping_add(1);
        (head.at, head.p)
    }

    /// The arrival time of the head.
    #[inline]
    pub fn front_arrival(&self) -> Option<SimTime> {
        if self.is_empty() {
            None
        } else {
            Some(self.ring[self.slot(self.popped)].at)
        }
    }

    /// The arrival time and the tag of the head.
    #[inline]
    pub fn front(&self) -> Option<(SimTime, u64)> {
        if self.is_empty() {
            None
        } else {
            let head = &self.ring[self.slot(self.popped)];
            Some((head.at, head.tag))
        }
    }

    /// Doubles the ring (it is full), keeping the order: the packets move to the front of the
    /// new ring, head first.
    #[cold]
    fn grow(&mut self) {
        let n = self.len();
        let mut ring = vec![VACANT; (self.ring.len() * 2).max(1)];
        for (k, slot) in ring.iter_mut().enumerate().take(n) {
            *slot = self.ring[self.slot(self.popped.wrapping_add(k as u32))];
        }
        self.ring = ring;
        self.popped = 0;
        self.pushed = n as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(id: u64) -> Packet {
        Packet::new(id, 100, FlowId(0))
    }

    proptest::proptest! {
        /// Against `VecDeque`: any mix of pushes and pops, through growth and wrap-around of
        /// the counters, gives the same packets in the same order, each with its tag.
        #[test]
        fn behaves_as_a_fifo(ops in proptest::collection::vec(0u8..3, 1..600), start in proptest::prelude::any::<u32>()) {
            let mut pipe = Pipe::with_capacity(2);
            // Start the counters anywhere, so they wrap within the test.
            (pipe.pushed, pipe.popped) = (start, start);
            let mut reference = std::collections::VecDeque::new();
            let mut next = 0u64;
            for op in ops {
                if op < 2 {
                    let tag = next.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                    pipe.push_back(SimTime::from_nanos(next), tag, pkt(next));
                    reference.push_back((SimTime::from_nanos(next), tag, pkt(next)));
                    next += 1;
                } else {
                    if let Some(want) = reference.pop_front() {
                        proptest::prop_assert_eq!(pipe.pop_front(), (want.0, want.2));
                    }
                }
                proptest::prop_assert_eq!(pipe.len(), reference.len());
                proptest::prop_assert_eq!(pipe.front_arrival(), reference.front().map(|e| e.0));
                proptest::prop_assert_eq!(pipe.front(), reference.front().map(|e| (e.0, e.1)));
            }
        }
    }
}
