//! The event queue: a binary heap keyed by `(time, seq)`, where `seq` is a global insertion
//! counter, so events at the same instant come out in the order they were scheduled (FIFO).
//! That rule, written down and tested, is what makes a run deterministic.

use aqmlab_core::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// Pending events of type `E`.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    popped: u64,
}

impl<E> EventQueue<E> {
    /// An empty queue with room for `cap` events.
    pub fn with_capacity(cap: usize) -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(cap),
            next_seq: 0,
            popped: 0,
        }
    }
    /// Schedules `event` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, event: E) {
        self.heap.push(Entry {
            time,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
    }
    /// Takes the next sequence number without scheduling anything yet: an event that may or may
    /// not be needed later keeps its place in the FIFO order among equal times, as if it had been
    /// pushed now (see [`EventQueue::push_with_seq`]).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }
    /// Schedules `event` at `time` with a sequence number from [`EventQueue::reserve_seq`].
    #[inline]
    pub fn push_with_seq(&mut self, time: SimTime, seq: u64, event: E) {
        debug_assert!(seq < self.next_seq, "seq must come from reserve_seq");
        self.heap.push(Entry { time, seq, event });
    }
    /// Removes the earliest event (FIFO among equal times), with its sequence number.
    #[inline]
    pub fn pop_with_seq(&mut self) -> Option<(SimTime, u64, E)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.seq, e.event))
    }
    /// Removes the earliest event (FIFO among equal times).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        Some((e.time, e.event))
    }
    /// Time of the earliest event.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }
    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
}
