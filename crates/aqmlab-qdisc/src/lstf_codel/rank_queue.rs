//! The storage under LSTF-CoDel: a double-ended priority queue of packets ordered by
//! `(rank, arrival)`, with O(1) or O(log n) access to both ends and no allocation once it has held
//! its largest backlog.
//!
//! Ford (2020, §V) asks for "a true priority queue" in place of the ns-2 code's multimap shadowed by
//! a FIFO (O(n) removal). A binary heap is not enough: CoDel's dropping state takes packets from
//! the *other* end (reference note §3), so both ends are needed — the author used a
//! `std::multimap`, a balanced tree. Here:
//!
//! * packets with the same rank form a **class**, a doubly linked list in arrival order (the links
//!   are indices into one slab of slots, reused through a free list);
//! * the classes, whose ranks are distinct, sit in a **min-max heap** (Atkinson, Sack, Santoro &
//!   Strothotte, CACM 29(10), 1986) keyed by rank: smallest and largest rank in O(1), insertion and
//!   removal at either end in O(log c) for c classes;
//! * an open-addressing **index** (linear probing, Fibonacci hashing, backward-shift deletion)
//!   finds the class of a rank in O(1) expected, so that a rank that recurs after other ranks
//!   joins its existing class instead of starting a second one. It is never iterated, so it adds
//!   no nondeterminism.
//!
//! Every arrival between two dequeues gets the same rank (the router-wide slack only changes on a
//! dequeue), so the common push appends to the class of the previous push without touching the
//! heap or the index.
//!
//! Tie rules: within a class, the front is the oldest packet and the back the newest. So
//! `pop_min_front` is the multimap's `begin()` and `pop_max_back` its `prev(end())` (equal keys
//! keep insertion order in a `std::multimap`), and `pop_max_front` takes the oldest packet of the
//! highest rank.

use crate::contract::Backlog;
use aqmlab_core::Packet;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Slot {
    pkt: Packet,
    prev: u32,
    next: u32,
}

#[derive(Clone, Copy, Debug)]
struct Class {
    rank: u64,
    /// Oldest packet (also the free-list link of a free class).
    head: u32,
    /// Newest packet.
    tail: u32,
    /// Position in `index`.
    index_pos: u32,
}

/// Packets ordered by `(rank, arrival)`; see the module documentation.
#[derive(Clone, Debug)]
pub(crate) struct RankQueue {
    slots: Vec<Slot>,
    free_slot: u32,
    classes: Vec<Class>,
    free_class: u32,
    /// Min-max heap of `(rank, class id)`.
    heap: Vec<(u64, u32)>,
    /// rank → class id, open addressing; a class id of `NIL` marks an empty position. Its length
    /// is a power of two ≥ 4.
    index: Vec<(u64, u32)>,
    /// 64 − log2(index.len()).
    index_shift: u32,
    /// The class the last push went to (fast path), or `NIL` once that class is freed.
    last: u32,
    len: usize,
    bytes: u64,
}

impl RankQueue {
    /// An empty queue with room for `cap` packets (and as many classes) before it reallocates.
    pub(crate) fn with_capacity(cap: usize) -> Self {
        let cap = cap.max(1);
        let index_len = (2 * cap).next_power_of_two().max(4);
        RankQueue {
            slots: Vec::with_capacity(cap),
            free_slot: NIL,
            classes: Vec::with_capacity(cap),
            free_class: NIL,
            heap: Vec::with_capacity(cap),
            index: vec![(0, NIL); index_len],
            index_shift: 64 - index_len.trailing_zeros(),
            last: NIL,
            len: 0,
            bytes: 0,
        }
    }

    /// Packets queued.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Bytes queued.
    #[inline]
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Packets and bytes.
    #[inline]
    pub(crate) fn backlog(&self) -> Backlog {
        Backlog {
            packets: self.len as u32,
            bytes: self.bytes,
        }
    }

    /// The lowest rank queued.
    #[cfg(test)]
    pub(crate) fn min_rank(&self) -> Option<u64> {
        self.heap.first().map(|e| e.0)
    }

    /// The highest rank queued.
    #[inline]
    pub(crate) fn max_rank(&self) -> Option<u64> {
        max_index(&self.heap).map(|i| self.heap[i].0)
    }

    /// Appends `pkt` as the newest packet of rank `rank`.
    #[inline]
    pub(crate) fn push_back(&mut self, rank: u64, pkt: Packet) {
        let c = self.class_for(rank);
        let s = self.alloc_slot(pkt);
        let tail = self.classes[c as usize].tail;
        self.slots[s as usize].prev = tail;
        if tail == NIL {
            self.classes[c as usize].head = s;
        } else {
            self.slots[tail as usize].next = s;
        }
        self.classes[c as usize].tail = s;
        self.len += 1;
        self.bytes += pkt.size_bytes as u64;
    }

    /// Inserts `pkt` as the oldest packet of rank `rank` (puts back a packet just popped from the
    /// front of its class).
    pub(crate) fn push_front(&mut self, rank: u64, pkt: Packet) {
        let c = self.class_for(rank);
        let s = self.alloc_slot(pkt);
        let head = self.classes[c as usize].head;
        self.slots[s as usize].next = head;
        if head == NIL {
            self.classes[c as usize].tail = s;
        } else {
            self.slots[head as usize].prev = s;
        }
        self.classes[c as usize].head = s;
        self.len += 1;
        self.bytes += pkt.size_bytes as u64;
    }

    /// Removes the oldest packet of the lowest rank.
    #[inline]
    pub(crate) fn pop_min_front(&mut self) -> Option<(u64, Packet)> {
        let &(rank, c) = self.heap.first()?;
        Some((rank, self.take(c, 0, true)))
    }

    /// Removes the newest packet of the highest rank.
    #[inline]
    pub(crate) fn pop_max_back(&mut self) -> Option<(u64, Packet)> {
        let i = max_index(&self.heap)?;
        let (rank, c) = self.heap[i];
        Some((rank, self.take(c, i, false)))
    }

    /// Removes the oldest packet of the highest rank.
    #[inline]
    pub(crate) fn pop_max_front(&mut self) -> Option<(u64, Packet)> {
        let i = max_index(&self.heap)?;
        let (rank, c) = self.heap[i];
        Some((rank, self.take(c, i, true)))
    }

    /// Unlinks the front (or back) packet of class `c`, which sits at `heap[heap_pos]`; frees the
    /// class when it empties.
    #[inline]
    fn take(&mut self, c: u32, heap_pos: usize, front: bool) -> Packet {
        let cl = self.classes[c as usize];
        let s = if front { cl.head } else { cl.tail };
        let Slot { pkt, prev, next } = self.slots[s as usize];
        if front {
            self.classes[c as usize].head = next;
            if next == NIL {
                self.classes[c as usize].tail = NIL;
            } else {
                self.slots[next as usize].prev = NIL;
            }
        } else {
            self.classes[c as usize].tail = prev;
            if prev == NIL {
                self.classes[c as usize].head = NIL;
            } else {
                self.slots[prev as usize].next = NIL;
            }
        }
        self.slots[s as usize].next = self.free_slot;
        self.free_slot = s;
        self.len -= 1;
        self.bytes -= pkt.size_bytes as u64;
        if self.classes[c as usize].head == NIL {
            self.free_class(c, cl.rank, heap_pos);
        }
        pkt
    }

    fn alloc_slot(&mut self, pkt: Packet) -> u32 {
        let slot = Slot {
            pkt,
            prev: NIL,
            next: NIL,
        };
        if self.free_slot != NIL {
            let s = self.free_slot;
            self.free_slot = self.slots[s as usize].next;
            self.slots[s as usize] = slot;
            s
        } else {
            assert!(
                self.slots.len() < NIL as usize,
                "more than 2^32 - 1 packets queued"
            );
            self.slots.push(slot);
            (self.slots.len() - 1) as u32
        }
    }

    /// The class of `rank`, created (empty) if there is none.
    #[inline]
    fn class_for(&mut self, rank: u64) -> u32 {
        if self.last != NIL && self.classes[self.last as usize].rank == rank {
            return self.last;
        }
        let c = match self.index_find(rank) {
            Ok((_, c)) => c,
            Err(mut pos) => {
                // The heap holds every live class but the new one: keep the load ≤ 1/2.
                if 2 * (self.heap.len() + 1) > self.index.len() {
                    self.grow_index();
                    pos = self.index_find(rank).expect_err("a new rank");
                }
                let cl = Class {
                    rank,
                    head: NIL,
                    tail: NIL,
                    index_pos: pos as u32,
                };
                let c = if self.free_class != NIL {
                    let c = self.free_class;
                    self.free_class = self.classes[c as usize].head;
                    self.classes[c as usize] = cl;
                    c
                } else {
                    self.classes.push(cl);
                    (self.classes.len() - 1) as u32
                };
                self.index[pos] = (rank, c);
                mm_push(&mut self.heap, (rank, c));
                c
            }
        };
        self.last = c;
        c
    }

    fn free_class(&mut self, c: u32, rank: u64, heap_pos: usize) {
        let removed = mm_remove_end(&mut self.heap, heap_pos);
        debug_assert_eq!(
            removed,
            (rank, c),
            "an emptied class is at an end of the heap"
        );
        let pos = self.classes[c as usize].index_pos as usize;
        debug_assert_eq!(self.index[pos], (rank, c));
        self.index_remove(pos);
        self.classes[c as usize].head = self.free_class;
        self.free_class = c;
        if self.last == c {
            self.last = NIL;
        }
    }

    // ---- rank → class index -------------------------------------------------------------------

    #[inline]
    fn home(&self, rank: u64) -> usize {
        (rank.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.index_shift) as usize
    }

    /// `Ok((position, class))`, or `Err(the empty position where it would go)`.
    #[inline]
    fn index_find(&self, rank: u64) -> Result<(usize, u32), usize> {
        let mask = self.index.len() - 1;
        let mut i = self.home(rank);
        loop {
            let (r, c) = self.index[i];
            if c == NIL {
                return Err(i);
            }
            if r == rank {
                return Ok((i, c));
            }
            i = (i + 1) & mask;
        }
    }

    fn grow_index(&mut self) {
        let len = self.index.len() * 2;
        self.index.clear();
        self.index.resize(len, (0, NIL));
        self.index_shift = 64 - len.trailing_zeros();
        for k in 0..self.heap.len() {
            let (rank, c) = self.heap[k];
            let pos = self.index_find(rank).expect_err("distinct ranks");
            self.index[pos] = (rank, c);
            self.classes[c as usize].index_pos = pos as u32;
        }
    }

    /// Empties index position `pos`, shifting later members of its probe run back (Knuth 6.4
    /// Algorithm R) so that lookups never stop early.
    fn index_remove(&mut self, mut pos: usize) {
        let mask = self.index.len() - 1;
        let mut j = pos;
        loop {
            j = (j + 1) & mask;
            let (r, c) = self.index[j];
            if c == NIL {
                break;
            }
            let k = self.home(r);
            // Leave the entry at j if its home lies cyclically in (pos, j].
            let stays = if pos <= j {
                pos < k && k <= j
            } else {
                pos < k || k <= j
            };
            if !stays {
                self.index[pos] = (r, c);
                self.classes[c as usize].index_pos = pos as u32;
                pos = j;
            }
        }
        self.index[pos] = (0, NIL);
    }
}

impl Default for RankQueue {
    fn default() -> Self {
        RankQueue::with_capacity(1)
    }
}

// ---- min-max heap over (rank, class), ranks distinct ---------------------------------------------

/// Level 0 (the root) is a min level, level 1 a max level, and so on.
#[inline]
fn is_min_level(i: usize) -> bool {
    (i + 1).ilog2().is_multiple_of(2)
}

#[inline]
fn better(a: u64, b: u64, max: bool) -> bool {
    if max {
        a > b
    } else {
        a < b
    }
}

/// Index of the largest entry.
#[inline]
fn max_index(h: &[(u64, u32)]) -> Option<usize> {
    match h.len() {
        0 => None,
        1 => Some(0),
        2 => Some(1),
        _ => Some(if h[1].0 > h[2].0 { 1 } else { 2 }),
    }
}

fn mm_push(h: &mut Vec<(u64, u32)>, e: (u64, u32)) {
    h.push(e);
    let i = h.len() - 1;
    if i == 0 {
        return;
    }
    let p = (i - 1) / 2;
    if is_min_level(i) {
        if h[i].0 > h[p].0 {
            h.swap(i, p);
            bubble_up(h, p, true);
        } else {
            bubble_up(h, i, false);
        }
    } else if h[i].0 < h[p].0 {
        h.swap(i, p);
        bubble_up(h, p, false);
    } else {
        bubble_up(h, i, true);
    }
}

/// Moves `h[i]` up through its grandparents (levels of its own kind).
fn bubble_up(h: &mut [(u64, u32)], mut i: usize, max: bool) {
    while i >= 3 {
        let gp = ((i - 1) / 2 - 1) / 2;
        if better(h[i].0, h[gp].0, max) {
            h.swap(i, gp);
            i = gp;
        } else {
            break;
        }
    }
}

/// Removes `h[i]`, which must be the minimum (i = 0) or the maximum ([`max_index`]).
fn mm_remove_end(h: &mut Vec<(u64, u32)>, i: usize) -> (u64, u32) {
    let last = h.pop().expect("non-empty heap");
    if i == h.len() {
        return last;
    }
    let out = std::mem::replace(&mut h[i], last);
    trickle_down(h, i);
    out
}

/// Restores the heap below `i` after `h[i]` was replaced.
fn trickle_down(h: &mut [(u64, u32)], mut i: usize) {
    let max = !is_min_level(i);
    let n = h.len();
    loop {
        let c1 = 2 * i + 1;
        if c1 >= n {
            return;
        }
        // The best among children and grandchildren.
        let mut m = c1;
        for c in [c1, c1 + 1] {
            if c >= n {
                break;
            }
            if better(h[c].0, h[m].0, max) {
                m = c;
            }
            for g in [2 * c + 1, 2 * c + 2] {
                if g < n && better(h[g].0, h[m].0, max) {
                    m = g;
                }
            }
        }
        if !better(h[m].0, h[i].0, max) {
            return;
        }
        h.swap(m, i);
        if m <= c1 + 1 {
            return; // a child: its subtree has no level of our kind below it to fix
        }
        let p = (m - 1) / 2;
        if better(h[p].0, h[m].0, max) {
            h.swap(m, p);
        }
        i = m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aqmlab_core::FlowId;
    use proptest::prelude::*;

    fn pkt(id: u64) -> Packet {
        Packet::new(id, 100 + id as u32 % 7, FlowId(0))
    }

    #[test]
    fn ends_and_ties() {
        let mut q = RankQueue::with_capacity(2);
        for (id, rank) in [(0, 5), (1, 3), (2, 5), (3, 9), (4, 3), (5, 9)] {
            q.push_back(rank, pkt(id));
        }
        assert_eq!((q.min_rank(), q.max_rank()), (Some(3), Some(9)));
        assert_eq!(q.pop_min_front().unwrap().1.id, 1); // oldest of rank 3
        assert_eq!(q.pop_max_back().unwrap().1.id, 5); // newest of rank 9
        assert_eq!(q.pop_max_front().unwrap().1.id, 3); // oldest (only) left of rank 9
        assert_eq!(q.pop_max_front().unwrap().1.id, 0); // oldest of rank 5
        q.push_front(5, pkt(0));
        assert_eq!(q.pop_max_back().unwrap().1.id, 2);
        assert_eq!(q.pop_min_front().unwrap().1.id, 4);
        assert_eq!(q.pop_min_front().unwrap().1.id, 0);
        assert_eq!((q.len(), q.bytes()), (0, 0));
        assert!(q.pop_min_front().is_none() && q.pop_max_back().is_none());
    }

    #[derive(Clone, Debug)]
    enum Op {
        PushBack(u64),
        PushFront(u64),
        PopMinFront,
        PopMaxBack,
        PopMaxFront,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u64..12).prop_map(Op::PushBack),
            1 => (0u64..12).prop_map(Op::PushFront),
            2 => Just(Op::PopMinFront),
            1 => Just(Op::PopMaxBack),
            1 => Just(Op::PopMaxFront),
        ]
    }

    proptest! {
        /// Agrees with a sorted model keyed by (rank, position in class) after every operation;
        /// small ranks force ties, recurring ranks and growth of the index beyond its first size.
        #[test]
        fn agrees_with_a_sorted_model(ops in prop::collection::vec(op(), 1..600)) {
            let mut q = RankQueue::with_capacity(1);
            // (rank, order, id): order grows for push_back and shrinks for push_front.
            let mut model: Vec<(u64, i64, u64)> = Vec::new();
            let (mut back, mut front) = (0i64, 0i64);
            let mut next_id = 0u64;
            for o in ops {
                match o {
                    Op::PushBack(r) => {
                        back += 1;
                        model.push((r, back, next_id));
                        q.push_back(r, pkt(next_id));
                        next_id += 1;
                    }
                    Op::PushFront(r) => {
                        front -= 1;
                        model.push((r, front, next_id));
                        q.push_front(r, pkt(next_id));
                        next_id += 1;
                    }
                    Op::PopMinFront | Op::PopMaxBack | Op::PopMaxFront => {
                        model.sort();
                        let want = match o {
                            Op::PopMinFront => model.first().copied(),
                            Op::PopMaxBack => model.last().copied(),
                            _ => model.last().map(|&(r, _, _)| {
                                *model.iter().find(|e| e.0 == r).unwrap()
                            }),
                        };
                        if let Some(w) = want {
                            model.retain(|e| *e != w);
                        }
                        let got = match o {
                            Op::PopMinFront => q.pop_min_front(),
                            Op::PopMaxBack => q.pop_max_back(),
                            _ => q.pop_max_front(),
                        };
                        prop_assert_eq!(got.map(|(r, p)| (r, p.id)), want.map(|(r, _, id)| (r, id)));
                    }
                }
                prop_assert_eq!(q.len(), model.len());
                let bytes: u64 = model.iter().map(|e| pkt(e.2).size_bytes as u64).sum();
                prop_assert_eq!(q.bytes(), bytes);
                prop_assert_eq!(q.min_rank(), model.iter().map(|e| e.0).min());
                prop_assert_eq!(q.max_rank(), model.iter().map(|e| e.0).max());
            }
        }
    }
}
