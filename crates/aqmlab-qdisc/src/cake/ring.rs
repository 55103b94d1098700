//! The old list (`b->old_flows` in `sch_cake.c`) as a ring of queue indices.
//!
//! A queue leaves the old list only at its head: the dequeue serves the head queue and moves
//! it (`list_move_tail` to the old or decaying list, or `list_del_init` when it rests), and
//! nothing else takes a queue off the old list. So the list is a FIFO of at most [`QUEUES`]
//! distinct queues, and a fixed ring of that many slots holds it. Moving the head to the tail,
//! the step of DRR's refill loop that triple isolation repeats ~65 times per packet, is then a
//! copy of one slot, and the next head is the next slot: no chain of links to follow.

use super::scheduler::NIL;
use super::QUEUES;

/// The old list: `len` queue indices from slot `head` on, wrapping.
#[derive(Debug)]
pub(super) struct Ring {
    slots: Box<[u32; QUEUES]>,
    head: usize,
    len: usize,
}

impl Default for Ring {
    fn default() -> Self {
        Ring {
            slots: Box::new([NIL; QUEUES]),
            head: 0,
            len: 0,
        }
    }
}

impl Ring {
    /// The head queue, or [`NIL`] when the list is empty.
    #[inline]
    pub(super) fn front(&self) -> u32 {
        if self.len == 0 {
            NIL
        } else {
            self.slots[self.head]
        }
    }

    /// `list_add_tail`. A queue is on one list at most once, so the ring never overflows.
    #[inline]
    pub(super) fn push_back(&mut self, i: u32) {
        debug_assert!(self.len < QUEUES, "a queue on the old list twice");
        self.slots[(self.head + self.len) % QUEUES] = i;
        self.len += 1;
    }

    /// Takes the head queue off the list (`list_del_init` of the head).
    #[inline]
    pub(super) fn pop_front(&mut self) -> u32 {
        debug_assert!(self.len > 0, "pop from an empty old list");
        let i = self.slots[self.head];
        self.head = (self.head + 1) % QUEUES;
        self.len -= 1;
        i
    }

    /// `list_move_tail` of the head queue (the list must not be empty): one step of
    /// [`Ring::rotate_while`].
    #[inline]
    pub(super) fn move_head_to_tail(&mut self) {
        debug_assert!(self.len > 0, "rotate an empty old list");
        let h = self.head;
        self.slots[(h + self.len) % QUEUES] = self.slots[h];
        self.head = (h + 1) % QUEUES;
    }

    /// `list_move_tail` of the head queue while `step(head)` says so, then stops (the list must
    /// not be empty). (With all `QUEUES` slots in use, the tail slot is the head slot itself:
    /// the copy changes nothing, the head moves on.)
    #[inline]
    pub(super) fn rotate_while(&mut self, mut step: impl FnMut(u32) -> bool) {
        debug_assert!(self.len > 0, "rotate an empty old list");
        let (mut h, len) = (self.head, self.len);
        loop {
            let head = self.slots[h];
            if !step(head) {
                break;
            }
            self.slots[(h + len) % QUEUES] = head;
            h = (h + 1) % QUEUES;
        }
        self.head = h;
    }

    /// The queues in list order, head first.
    pub(super) fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len).map(move |k| self.slots[(self.head + k) % QUEUES])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_is_a_fifo_that_rotates_like_list_move_tail() {
        let mut r = Ring::default();
        assert_eq!(r.front(), NIL);
        for i in [5, 7, 9] {
            r.push_back(i);
        }
        let mut seen = vec![];
        r.rotate_while(|head| {
            seen.push(head);
            head != 9
        });
        // 5 and 7 move; 9, the head then, stops it.
        assert_eq!(seen, [5, 7, 9]);
        assert_eq!(r.iter().collect::<Vec<_>>(), [9, 5, 7]);
        assert_eq!(r.pop_front(), 9);
        r.push_back(1);
        assert_eq!(r.iter().collect::<Vec<_>>(), [5, 7, 1]);
        // Five moves, past a full lap: each queue moves again in turn.
        let mut n = 0;
        r.rotate_while(|_| {
            n += 1;
            n <= 5
        });
        assert_eq!(r.iter().collect::<Vec<_>>(), [1, 5, 7]);
        // Full: every queue of a tin on the list, rotation is the head moving on.
        let mut full = Ring::default();
        for i in 0..QUEUES as u32 {
            full.push_back(i);
        }
        let mut n = 0;
        full.rotate_while(|_| {
            n += 1;
            n <= 2
        });
        assert_eq!(full.front(), 2);
        assert_eq!(full.iter().last(), Some(1));
        assert_eq!(full.iter().count(), QUEUES);
    }
}
