//! The flow scheduler (paper §3.1, §3.4; `cake_enqueue`, `cake_dequeue`, `cake_drop`): DRR++
//! over each tin's queues with the new, old and decaying lists, COBALT per queue, and overflow
//! from the longest queue.

use super::ack_filter::redundant_ack;
use super::hash::{scaled_quantum, FlowMode};
use super::tins::Tin;
use super::{Cake, QUEUES};
use crate::cobalt::CobaltState;
use crate::contract::{Backlog, DropReason, QdiscCx, QueueDisc, Stage};
use crate::fifo::PacketFifo;
use crate::uniform::UniformSource;
use aqmlab_core::{Packet, SimTime};

/// Which DRR++ set a queue is in (`CAKE_SET_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowSet {
    /// Idle, on no list.
    None,
    /// Newly active (new list, or just refilled on the old list while still counted sparse).
    Sparse,
    /// Empty, counted sparse, but in the bulk rotation (old list).
    SparseWait,
    /// Backlogged on the old list.
    Bulk,
    /// Empty, its COBALT state still decaying.
    Decaying,
}

pub(super) const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ListId {
    New = 0,
    Decaying = 1,
    /// A [`Ring`], not a linked list.
    Old = 2,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct DList {
    pub(super) head: u32,
    pub(super) tail: u32,
}

/// A queue: its packets, AQM, list links and host slots. Its DRR state is in [`Hot`].
#[derive(Debug)]
pub(super) struct Flow {
    pub(super) q: PacketFifo,
    pub(super) aqm: CobaltState,
    pub(super) prev: u32,
    pub(super) next: u32,
    pub(super) on: Option<ListId>,
    pub(super) srchost: u16,
    pub(super) dsthost: u16,
}

/// A queue's DRR++ state: what the refill walk (`walk_old`) reads and writes, in an array of
/// its own per tin, 32 bytes a queue (a [`Flow`] is 128): under triple isolation between two
/// hosts a packet's walk refills every bulk queue of the tin, ~65 of them, and touches no other
/// field of theirs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hot {
    pub(super) deficit: i64,
    /// The queue's scaled quantum, `flow_quantum · ⌊65535 / host_load⌋` (before Linux's
    /// `>> 16`), valid while `refill_gen` is the tin's `hosts_gen`.
    pub(super) refill: u64,
    pub(super) refill_gen: u64,
    pub(super) set: FlowSet,
}

impl Hot {
    /// A queue on no list, its scaled quantum not computed yet.
    pub(super) const IDLE: Hot = Hot {
        deficit: 0,
        refill: 0,
        refill_gen: u64::MAX,
        set: FlowSet::None,
    };
}

impl Tin {
    pub(super) fn unlink(&mut self, i: u32) {
        let Some(l) = self.flows[i as usize].on else {
            return;
        };
        if l == ListId::Old {
            // Only the head queue ever leaves the old list (ring.rs).
            debug_assert_eq!(self.old.front(), i, "unlink from inside the old list");
            self.old.pop_front();
            self.flows[i as usize].on = None;
            return;
        }
        let (prev, next) = (self.flows[i as usize].prev, self.flows[i as usize].next);
        if prev == NIL {
            self.lists[l as usize].head = next;
        } else {
            self.flows[prev as usize].next = next;
        }
        if next == NIL {
            self.lists[l as usize].tail = prev;
        } else {
            self.flows[next as usize].prev = prev;
        }
        let f = &mut self.flows[i as usize];
        f.on = None;
        f.prev = NIL;
        f.next = NIL;
    }

    /// `list_move_tail` (and `list_add_tail` for a queue on no list).
    pub(super) fn move_tail(&mut self, i: u32, l: ListId) {
        self.unlink(i);
        if l == ListId::Old {
            self.old.push_back(i);
            self.flows[i as usize].on = Some(l);
            return;
        }
        let tail = self.lists[l as usize].tail;
        {
            let f = &mut self.flows[i as usize];
            f.on = Some(l);
            f.prev = tail;
            f.next = NIL;
        }
        if tail == NIL {
            self.lists[l as usize].head = i;
        } else {
            self.flows[tail as usize].next = i;
        }
        self.lists[l as usize].tail = i;
    }
}

impl Tin {
    /// The refills of the old list's head in `cake_dequeue` (its head has no deficit left and is
    /// not sparse): Linux's `if (flow->deficit <= 0) { flow->deficit += (b->flow_quantum *
    /// quantum_div[host_load] + (prandom_u32() >> 16)) >> 16; list_move_tail(...,
    /// &b->old_flows); goto retry; }`, one queue per pass, until the head has deficit left or is
    /// sparse (that case is left to the caller's next pass, as in Linux). Triple isolation
    /// between two hosts takes ~65 refills per packet. `dither` gives Linux's
    /// `prandom_u32() >> 16`, one per refill, in order. Host loads do not change here, and
    /// between walks only when a bulk count does: each queue's scaled quantum is cached
    /// (`scaled_quantum`).
    ///
    /// Not inlined, and with a generator's state copied into locals: the loop then keeps the
    /// state in registers (inlined into the dequeue, part of it stayed on the stack, loaded and
    /// stored on every draw).
    #[inline(never)]
    fn refill_old(&mut self, mode: FlowMode, uniforms: &mut UniformSource) {
        match uniforms {
            UniformSource::Rng(g) => {
                let mut local = g.clone();
                // What `next_top16` gives for a generator.
                self.walk_old(mode, || local.next_u64() >> 48);
                *g = local;
            }
            list => self.walk_old(mode, || list.next_top16()),
        }
    }

    #[inline(always)]
    fn walk_old(&mut self, mode: FlowMode, mut dither: impl FnMut() -> u64) {
        let Tin {
            old,
            flows,
            hot,
            hosts,
            hosts_gen,
            flow_quantum,
            ..
        } = self;
        // The ring holds queue indices only (< QUEUES): `% QUEUES` changes none of them, and
        // lets the compiler drop the bounds check.
        old.rotate_while(|head| {
            let k = head as usize % QUEUES;
            let h = &mut hot[k];
            if h.deficit > 0 || h.set == FlowSet::Sparse {
                return false;
            }
            let refill = scaled_quantum(h, &flows[k], hosts, *hosts_gen, *flow_quantum, mode);
            h.deficit += ((refill + dither()) >> 16) as i64;
            true
        });
    }
}

impl Cake {
    /// `cake_drop`: the head of the longest queue (bytes, all tins; ties to the lowest tin,
    /// then the new list before the old, in list order) is dropped, and its COBALT told.
    pub(super) fn drop_fattest(&mut self, now: i64, cx: &mut QdiscCx) {
        let mut best: Option<(usize, u32, u64)> = None;
        for (t, tin) in self.tins.iter().enumerate() {
            let mut new = tin.head(ListId::New);
            let new_list = std::iter::from_fn(|| {
                let i = new;
                new = tin.flows.get(i as usize)?.next;
                Some(i)
            });
            for i in new_list.chain(tin.old.iter()) {
                let f = &tin.flows[i as usize];
                let b = f.q.bytes();
                if !f.q.is_empty() && best.is_none_or(|(_, _, bb)| b > bb) {
                    best = Some((t, i, b));
                }
            }
        }
        let Some((t, i, _)) = best else {
            return;
        };
        let tin = &mut self.tins[t];
        let cobalt = tin.cobalt;
        let f = &mut tin.flows[i as usize];
        let Some(p) = f.q.pop_front() else {
            return;
        };
        f.aqm.queue_full(now, &cobalt);
        let size = p.size_bytes as u64;
        tin.backlog.packets -= 1;
        tin.backlog.bytes -= size;
        self.backlog.packets -= 1;
        self.backlog.bytes -= size;
        cx.drop(p, Stage::Enqueue, DropReason::FqMemoryFattest);
    }
}

impl QueueDisc for Cake {
    fn enqueue(&mut self, now: SimTime, pkt: Packet, cx: &mut QdiscCx) {
        let now_ns = now.as_nanos() as i64;
        let t = self.tin_of(&pkt);
        let i = self.classify(t, &pkt);
        let mode = self.cfg.flow_mode;
        // Ensure the shaper state is not stale.
        if self.tins[t].backlog.packets == 0 {
            let tin = &mut self.tins[t];
            if tin.time_next < now_ns {
                tin.time_next = now_ns;
            }
            if self.backlog.packets == 0 && self.time_next < now_ns {
                self.failsafe_next = now_ns;
                self.time_next = now_ns;
            }
        }
        if t != self.cur_tin {
            // Another tin may become active: `choose_tin` looks at them all again.
            self.others_idle = false;
        }
        let size = pkt.size_bytes as u64;
        let tin = &mut self.tins[t];
        tin.flows[i].q.push_back(pkt);
        tin.backlog.packets += 1;
        tin.backlog.bytes += size;
        self.backlog.packets += 1;
        self.backlog.bytes += size;
        if let Some(k) = redundant_ack(&tin.flows[i].q, self.cfg.ack_filter) {
            let a = tin.flows[i].q.remove(k).expect("a queued ACK");
            let size = a.size_bytes as u64;
            tin.backlog.packets -= 1;
            tin.backlog.bytes -= size;
            self.backlog.packets -= 1;
            self.backlog.bytes -= size;
            cx.drop(a, Stage::Enqueue, DropReason::AckFilter);
        }
        // The flowchain.
        match tin.hot[i].set {
            FlowSet::None | FlowSet::Decaying => {
                if tin.hot[i].set == FlowSet::Decaying {
                    tin.decaying -= 1;
                }
                tin.move_tail(i as u32, ListId::New);
                tin.hot[i].set = FlowSet::Sparse;
                tin.sparse += 1;
                tin.hot[i].deficit = (tin.scaled_quantum(i, mode) >> 16) as i64;
            }
            FlowSet::SparseWait => {
                tin.hot[i].set = FlowSet::Bulk;
                tin.sparse -= 1;
                tin.bulk += 1;
                tin.bulk_hosts(i, mode, true);
            }
            FlowSet::Sparse | FlowSet::Bulk => {}
        }
        while self.backlog.bytes > self.cfg.memlimit {
            self.drop_fattest(now_ns, cx);
        }
    }

    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet> {
        let now_ns = now.as_nanos() as i64;
        let mode = self.cfg.flow_mode;
        let mut first_flow = true;
        self.wake = None;
        'begin: loop {
            if self.backlog.packets == 0 {
                return None;
            }
            // The global hard shaper.
            if self.rate.ns != 0 && self.time_next > now_ns && self.failsafe_next > now_ns {
                let next = self.time_next.min(self.failsafe_next);
                self.wake = Some(SimTime::from_nanos(next as u64));
                return None;
            }
            let t = self.choose_tin(now_ns)?;
            let tin = &mut self.tins[t];
            loop {
                // Service this tin: one decaying queue first, then new, old, decaying.
                let l = if first_flow && tin.head(ListId::Decaying) != NIL {
                    ListId::Decaying
                } else if tin.head(ListId::New) != NIL {
                    ListId::New
                } else if tin.head(ListId::Old) != NIL {
                    ListId::Old
                } else if tin.head(ListId::Decaying) != NIL {
                    ListId::Decaying
                } else {
                    debug_assert!(false, "an active tin with no queue on its lists");
                    return None;
                };
                let i = tin.head(l) as usize;
                first_flow = false;
                if tin.hot[i].deficit <= 0 && l == ListId::Old && tin.hot[i].set != FlowSet::Sparse
                {
                    // Linux refills the head queue and moves it to the tail, one queue per pass
                    // of this loop, until a head has deficit left (or is sparse and changes
                    // set). The first refill here, inline: with full quanta (flow_mode=flows,
                    // or hosts with one bulk flow each) it is the only one, and the walk's call
                    // would cost more than the refill. Further ones, ~64 per packet under triple
                    // isolation between two hosts, are the walk's (`refill_old`), called when
                    // the next head needs one too; same refills, draws and order either way.
                    let refill = tin.scaled_quantum(i, mode);
                    let dither = self.uniforms.next_top16();
                    tin.hot[i].deficit += ((refill + dither) >> 16) as i64;
                    tin.old.move_head_to_tail();
                    let j = tin.old.front() as usize % QUEUES;
                    if tin.hot[j].deficit <= 0 && tin.hot[j].set != FlowSet::Sparse {
                        tin.refill_old(mode, &mut self.uniforms);
                    }
                    continue;
                }
                if tin.hot[i].deficit <= 0 {
                    // DRR++: a sparse queue that used its deficit becomes bulk.
                    if tin.hot[i].set == FlowSet::Sparse {
                        if !tin.flows[i].q.is_empty() {
                            tin.sparse -= 1;
                            tin.bulk += 1;
                            tin.bulk_hosts(i, mode, true);
                            tin.hot[i].set = FlowSet::Bulk;
                        } else {
                            tin.hot[i].set = FlowSet::SparseWait;
                        }
                    }
                    let refill = tin.scaled_quantum(i, mode);
                    // Linux dithers with the top 16 bits of a random u32.
                    let dither = self.uniforms.next_top16();
                    tin.hot[i].deficit += ((refill + dither) >> 16) as i64;
                    tin.move_tail(i as u32, ListId::Old);
                    continue;
                }
                let cobalt = tin.cobalt;
                let pkt = loop {
                    let f = &mut tin.flows[i];
                    let Some(mut p) = f.q.pop_front() else {
                        // The queue was empty.
                        f.aqm.queue_empty(now_ns, &cobalt);
                        let resting =
                            f.aqm.pdrop == 0.0 && f.aqm.count == 0 && now_ns >= f.aqm.drop_next;
                        let set = tin.hot[i].set;
                        if !resting {
                            tin.move_tail(i as u32, ListId::Decaying);
                            match set {
                                FlowSet::Bulk => {
                                    tin.bulk -= 1;
                                    tin.bulk_hosts(i, mode, false);
                                    tin.decaying += 1;
                                }
                                FlowSet::Sparse | FlowSet::SparseWait => {
                                    tin.sparse -= 1;
                                    tin.decaying += 1;
                                }
                                _ => {}
                            }
                            tin.hot[i].set = FlowSet::Decaying;
                        } else {
                            tin.unlink(i as u32);
                            match set {
                                FlowSet::Sparse | FlowSet::SparseWait => tin.sparse -= 1,
                                FlowSet::Bulk => {
                                    tin.bulk -= 1;
                                    tin.bulk_hosts(i, mode, false);
                                }
                                _ => tin.decaying -= 1,
                            }
                            tin.hot[i].set = FlowSet::None;
                        }
                        continue 'begin;
                    };
                    let size = p.size_bytes as u64;
                    tin.backlog.packets -= 1;
                    tin.backlog.bytes -= size;
                    self.backlog.packets -= 1;
                    self.backlog.bytes -= size;
                    match f.aqm.should_drop(&mut p, now_ns, &cobalt, cx) {
                        // The last packet of a queue is sent even if COBALT would drop it.
                        Some(reason) if !f.q.is_empty() => cx.drop(p, Stage::Dequeue, reason),
                        _ => break p,
                    }
                };
                tin.sent.packets += 1;
                tin.sent.bytes += pkt.size_bytes as u64;
                let len = self.cfg.adjusted_len(pkt.size_bytes);
                self.charge(t, i, len, now_ns);
                if self.rate.ns != 0 && self.time_next > now_ns && self.backlog.packets > 0 {
                    let next = self.time_next.min(self.failsafe_next);
                    self.wake = Some(SimTime::from_nanos(next as u64));
                }
                return Some(pkt);
            }
        }
    }

    fn backlog(&self) -> Backlog {
        self.backlog
    }

    fn next_send_time(&self) -> Option<SimTime> {
        self.wake
    }

    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        let sum = |f: fn(&Tin) -> u32| self.tins.iter().map(f).sum::<u32>() as f64;
        visit("sparse_flows", sum(|t| t.sparse));
        visit("bulk_flows", sum(|t| t.bulk));
        visit("decaying_flows", sum(|t| t.decaying));
        visit("backlog_packets", self.backlog.packets as f64);
        visit("backlog_bytes", self.backlog.bytes as f64);
        visit("time_next_packet_ns", self.time_next as f64);
    }
}
