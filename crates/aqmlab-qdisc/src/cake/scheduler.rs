//! The flow scheduler (paper §3.1, §3.4; `cake_enqueue`, `cake_dequeue`, `cake_drop`): DRR++
//! over each tin's queues with the new, old and decaying lists, COBALT per queue, and overflow
//! from the longest queue.

use super::ack_filter::redundant_ack;
use super::tins::Tin;
use super::Cake;
use crate::cobalt::CobaltState;
use crate::contract::{Backlog, DropReason, QdiscCx, QueueDisc, Stage};
use crate::fifo::PacketFifo;
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
    Old = 1,
    Decaying = 2,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct DList {
    pub(super) head: u32,
    pub(super) tail: u32,
}

#[derive(Debug)]
pub(super) struct Flow {
    pub(super) q: PacketFifo,
    pub(super) deficit: i64,
    /// The queue's scaled quantum, `flow_quantum · ⌊65535 / host_load⌋` (before Linux's
    /// `>> 16`), valid while `refill_gen` is the tin's `hosts_gen`.
    pub(super) refill: u64,
    pub(super) refill_gen: u64,
    pub(super) aqm: CobaltState,
    pub(super) prev: u32,
    pub(super) next: u32,
    pub(super) on: Option<ListId>,
    pub(super) set: FlowSet,
    pub(super) srchost: u16,
    pub(super) dsthost: u16,
}

impl Tin {
    pub(super) fn unlink(&mut self, i: u32) {
        let Some(l) = self.flows[i as usize].on else {
            return;
        };
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

    /// Makes queue `p` of list `l` its head, keeping the cyclic order: what moving each queue
    /// ahead of it to the tail, in order, does (`list_move_tail`).
    pub(super) fn rotate_to(&mut self, l: ListId, p: u32) {
        let DList { head, tail } = self.lists[l as usize];
        if p == head {
            return;
        }
        let prev = self.flows[p as usize].prev;
        self.flows[tail as usize].next = head;
        self.flows[head as usize].prev = tail;
        self.flows[prev as usize].next = NIL;
        self.flows[p as usize].prev = NIL;
        self.lists[l as usize] = DList {
            head: p,
            tail: prev,
        };
    }

    /// `list_move_tail` (and `list_add_tail` for a queue on no list).
    pub(super) fn move_tail(&mut self, i: u32, l: ListId) {
        self.unlink(i);
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

impl Cake {
    /// `cake_drop`: the head of the longest queue (bytes, all tins; ties to the lowest tin,
    /// then the new list before the old, in list order) is dropped, and its COBALT told.
    pub(super) fn drop_fattest(&mut self, now: i64, cx: &mut QdiscCx) {
        let mut best: Option<(usize, u32, u64)> = None;
        for (t, tin) in self.tins.iter().enumerate() {
            for l in [ListId::New, ListId::Old] {
                let mut i = tin.head(l);
                while i != NIL {
                    let f = &tin.flows[i as usize];
                    let b = f.q.bytes();
                    if !f.q.is_empty() && best.is_none_or(|(_, _, bb)| b > bb) {
                        best = Some((t, i, b));
                    }
                    i = f.next;
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
        match tin.flows[i].set {
            FlowSet::None | FlowSet::Decaying => {
                if tin.flows[i].set == FlowSet::Decaying {
                    tin.decaying -= 1;
                }
                tin.move_tail(i as u32, ListId::New);
                tin.flows[i].set = FlowSet::Sparse;
                tin.sparse += 1;
                tin.flows[i].deficit = (tin.scaled_quantum(i, mode) >> 16) as i64;
            }
            FlowSet::SparseWait => {
                tin.flows[i].set = FlowSet::Bulk;
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
                if tin.flows[i].deficit <= 0
                    && l == ListId::Old
                    && tin.flows[i].set != FlowSet::Sparse
                {
                    // Linux refills the head queue and moves it to the tail, one queue per pass
                    // of this loop, until a head has deficit left (or is sparse and changes
                    // set). Along the old list that is a walk in list order, wrapping, with
                    // the same refills and dither draws in the same order; the list ends up
                    // rotated to the queue the walk stopped at, in one relinking. Triple
                    // isolation between two hosts takes ~65 refills per packet this way.
                    // Host loads do not change during the walk, and between walks only when a
                    // bulk count does: each queue's scaled quantum is cached (`scaled_quantum`).
                    let mut p = i;
                    let head = tin.head(ListId::Old) as usize;
                    loop {
                        let refill = tin.scaled_quantum(p, mode);
                        // Linux dithers with the top 16 bits of a random u32.
                        let dither = self.uniforms.next_top16();
                        let f = &mut tin.flows[p];
                        f.deficit += ((refill + dither) >> 16) as i64;
                        p = match f.next {
                            NIL => head,
                            n => n as usize,
                        };
                        let f = &tin.flows[p];
                        if f.deficit > 0 || f.set == FlowSet::Sparse {
                            break;
                        }
                    }
                    tin.rotate_to(ListId::Old, p as u32);
                    continue;
                }
                if tin.flows[i].deficit <= 0 {
                    // DRR++: a sparse queue that used its deficit becomes bulk.
                    if tin.flows[i].set == FlowSet::Sparse {
                        if !tin.flows[i].q.is_empty() {
                            tin.sparse -= 1;
                            tin.bulk += 1;
                            tin.bulk_hosts(i, mode, true);
                            tin.flows[i].set = FlowSet::Bulk;
                        } else {
                            tin.flows[i].set = FlowSet::SparseWait;
                        }
                    }
                    let refill = tin.scaled_quantum(i, mode);
                    // Linux dithers with the top 16 bits of a random u32.
                    let dither = self.uniforms.next_top16();
                    tin.flows[i].deficit += ((refill + dither) >> 16) as i64;
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
                        let set = f.set;
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
                            tin.flows[i].set = FlowSet::Decaying;
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
                            tin.flows[i].set = FlowSet::None;
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
