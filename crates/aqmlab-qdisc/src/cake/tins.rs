//! Tins (paper §3.3; `cake_select_tin`, `cake_config_besteffort/diffserv3/diffserv4`): the
//! DSCP tables, each tin's rate and quantum, and the choice of tin at dequeue.

use super::hash::Host;
use super::ring::Ring;
use super::scheduler::{DList, Flow, Hot, ListId, NIL};
use super::shaper::Rate;
use super::{Cake, CakeConfig, QUEUES};
use crate::cobalt::{CobaltParams, CobaltState};
use crate::contract::Backlog;
use crate::fifo::PacketFifo;
use crate::uniform::UniformSource;
use aqmlab_core::Packet;

/// `diffserv`: the tin layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diffserv {
    /// One tin.
    BestEffort,
    /// Best Effort, Bulk, Voice.
    Diffserv3,
    /// Best Effort, Bulk, Video, Voice.
    Diffserv4,
}

/// DSCP → tin, `diffserv3[]` of `sch_cake.c` (index: the 6-bit codepoint).
pub(super) const DIFFSERV3: [u8; 64] = {
    let mut t = [0u8; 64];
    t[1] = 1; // LE
    t[8] = 1; // CS1
    t[4] = 2; // TOS4
    t[44] = 2; // VA
    t[46] = 2; // EF
    t[48] = 2; // CS6
    t[56] = 2; // CS7
    t
};

/// DSCP → tin, `diffserv4[]` of `sch_cake.c`.
pub(super) const DIFFSERV4: [u8; 64] = {
    let mut t = [0u8; 64];
    t[1] = 1; // LE
    t[8] = 1; // CS1
    t[4] = 2; // TOS4
    t[16] = 2; // CS2
    let mut d = 18; // AF21..AF43 and CS3 (18..=38, even)
    while d <= 38 {
        t[d] = 2;
        d += 2;
    }
    t[32] = 3; // CS4
    t[40] = 3; // CS5
    t[44] = 3; // VA
    t[46] = 3; // EF
    t[48] = 3; // CS6
    t[56] = 3; // CS7
    t
};

impl CakeConfig {
    /// Tin rates (bytes/s) and DRR quanta (`cake_config_*`).
    pub(super) fn tins(&self) -> Vec<(u64, u32)> {
        let r = self.rate_bytes_per_s;
        match self.diffserv {
            Diffserv::BestEffort => vec![(r, 65535)],
            Diffserv::Diffserv3 => vec![(r, 1024), (r >> 4, 64), (r >> 2, 256)],
            Diffserv::Diffserv4 => vec![(r, 1024), (r >> 4, 64), (r >> 1, 512), (r >> 2, 256)],
        }
    }
}

#[derive(Debug)]
pub(super) struct Tin {
    /// The queues; fixed in number, so an index taken `% QUEUES` needs no bounds check.
    pub(super) flows: Box<[Flow; QUEUES]>,
    /// Each queue's DRR++ state, by the same index.
    pub(super) hot: Box<[Hot; QUEUES]>,
    pub(super) tags: Vec<u32>,
    pub(super) hosts: Vec<Host>,
    /// The new and decaying lists, by [`ListId`] (linked through [`Flow`]'s `prev`, `next`).
    pub(super) lists: [DList; 2],
    /// The old list.
    pub(super) old: Ring,
    pub(super) sparse: u32,
    pub(super) bulk: u32,
    pub(super) decaying: u32,
    pub(super) flow_quantum: u64,
    /// Bumped whenever a host's bulk count or a queue's host slot changes: a queue's cached
    /// scaled quantum ([`Hot::refill`]) is good while its `refill_gen` equals this.
    pub(super) hosts_gen: u64,
    pub(super) cobalt: CobaltParams,
    pub(super) rate: Rate,
    pub(super) time_next: i64,
    pub(super) quantum: i64,
    pub(super) deficit: i64,
    pub(super) backlog: Backlog,
    pub(super) sent: Backlog,
}

impl Tin {
    /// One tin at `rate_b` bytes/s (0: unshaped) with DRR quantum `quantum` (`cake_set_rate`):
    /// `1024` queues, each with its own COBALT and random source copy.
    pub(super) fn new(
        cfg: &CakeConfig,
        t: usize,
        rate_b: u64,
        quantum: u32,
        uniforms: &mut UniformSource,
    ) -> Tin {
        // cake_set_rate.
        let rate = Rate::from_bytes_per_s(rate_b);
        let flow_quantum = if rate_b > 0 {
            (rate_b >> 12).clamp(300, 1514)
        } else {
            1514
        };
        let mtu_time = rate.duration(cfg.mtu);
        let target = (mtu_time * 3 / 2).max(cfg.target_ns);
        let interval = (cfg.rtt_ns + target - cfg.target_ns).max(2 * target);
        let cobalt = CobaltParams {
            target_ns: target as i64,
            interval_ns: interval.min(u32::MAX as u64) as i64,
            ecn: true,
            ce_threshold_ns: None,
            l4s: false,
            l4s_skips_state: true,
            pdrop: 0.0,
            increment: 1.0 / 256.0,
            decrement: 1.0 / 4096.0,
            // Linux's BLUE rises only on overflow (cobalt_queue_full).
            blue_threshold_ns: i64::MAX,
            mtu_time_ns: mtu_time as i64,
        };
        let flows = (0..QUEUES as u32)
            .map(|i| Flow {
                q: PacketFifo::default(),
                aqm: CobaltState::new(&cobalt, uniforms.copy_for(t as u32 * QUEUES as u32 + i)),
                prev: NIL,
                next: NIL,
                on: None,
                srchost: 0,
                dsthost: 0,
            })
            .collect::<Vec<_>>()
            .into_boxed_slice()
            .try_into()
            .expect("QUEUES queues");
        Tin {
            flows,
            hot: Box::new([Hot::IDLE; QUEUES]),
            tags: vec![0; QUEUES],
            hosts: vec![Host::default(); QUEUES],
            lists: [DList {
                head: NIL,
                tail: NIL,
            }; 2],
            old: Ring::default(),
            sparse: 0,
            bulk: 0,
            decaying: 0,
            flow_quantum,
            hosts_gen: 0,
            cobalt,
            rate,
            time_next: 0,
            quantum: quantum as i64,
            deficit: 0,
            backlog: Backlog::default(),
            sent: Backlog::default(),
        }
    }

    pub(super) fn active(&self) -> bool {
        self.sparse + self.bulk > 0
    }

    pub(super) fn head(&self, l: ListId) -> u32 {
        match l {
            ListId::Old => self.old.front(),
            _ => self.lists[l as usize].head,
        }
    }
}

/// Per-tin counters, for tests and traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TinStats {
    /// Queued now.
    pub backlog: Backlog,
    /// Sent so far.
    pub sent: Backlog,
    /// Sparse (and sparse-wait) queues.
    pub sparse: u32,
    /// Bulk queues.
    pub bulk: u32,
    /// Decaying queues.
    pub decaying: u32,
}

impl Cake {
    /// The tin a packet goes to (`cake_select_tin`).
    pub fn tin_of(&self, pkt: &Packet) -> usize {
        let t = match self.cfg.diffserv {
            Diffserv::BestEffort => 0,
            Diffserv::Diffserv3 => DIFFSERV3[(pkt.dscp & 63) as usize],
            Diffserv::Diffserv4 => DIFFSERV4[(pkt.dscp & 63) as usize],
        } as usize;
        if t >= self.tins.len() {
            0
        } else {
            t
        }
    }

    /// Number of tins.
    pub fn tin_count(&self) -> usize {
        self.tins.len()
    }

    /// Counters of tin `t`.
    pub fn tin_stats(&self, t: usize) -> TinStats {
        let tin = &self.tins[t];
        TinStats {
            backlog: tin.backlog,
            sent: tin.sent,
            sparse: tin.sparse,
            bulk: tin.bulk,
            decaying: tin.decaying,
        }
    }

    /// Chooses the tin to serve, or `None` (`cake_dequeue`, "Choose a class to work on").
    pub(super) fn choose_tin(&mut self, now: i64) -> Option<usize> {
        let n = self.tins.len();
        if self.rate.ns == 0 {
            // One tin active, in debt, and every other idle with credit: the loop below would
            // only pass the others by and refill this one until its deficit is not negative.
            // The others change only when one gets a packet or is served, which this path never
            // does: once found idle with credit they stay so until `others_idle` is cleared.
            let c = self.cur_tin;
            let b = &self.tins[c];
            if b.active()
                && b.deficit < 0
                && (self.others_idle
                    || self
                        .tins
                        .iter()
                        .enumerate()
                        .all(|(t, o)| t == c || (!o.active() && o.deficit > 0)))
            {
                self.others_idle = true;
                let b = &mut self.tins[c];
                // k = ⌈−deficit / quantum⌉ quanta; one (the common case, a packet not much
                // larger than the quantum) without the division.
                let k = if -b.deficit <= b.quantum {
                    1
                } else {
                    (-b.deficit + b.quantum - 1) / b.quantum
                };
                b.deficit += k * b.quantum;
                return Some(c);
            }
            self.others_idle = false;
            let mut wrapped = false;
            let mut empty = true;
            let mut c = self.cur_tin;
            while self.tins[c].deficit < 0 || !self.tins[c].active() {
                let b = &mut self.tins[c];
                if b.deficit <= 0 {
                    b.deficit += b.quantum;
                }
                if b.active() {
                    empty = false;
                }
                c += 1;
                if c >= n {
                    c = 0;
                    if wrapped {
                        if empty {
                            self.cur_tin = c;
                            return None;
                        }
                    } else {
                        wrapped = true;
                    }
                }
            }
            self.cur_tin = c;
            Some(c)
        } else {
            // The highest tin whose schedule allows a packet now, else the earliest scheduled.
            let mut best_time = i64::MAX;
            let mut best = 0;
            for (t, b) in self.tins.iter().enumerate() {
                if b.active() {
                    let to_pkt = b.time_next - now;
                    if to_pkt <= 0 || to_pkt <= best_time {
                        best_time = to_pkt;
                        best = t;
                    }
                }
            }
            self.cur_tin = best;
            self.tins[best].active().then_some(best)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffserv_tables_agree_with_linux_classes() {
        // diffserv3: CS1 and LE to Bulk (1), EF/VA/CS6/CS7/TOS4 to Voice (2), the rest Best Effort.
        for (d, t) in [
            (0, 0),
            (1, 1),
            (8, 1),
            (4, 2),
            (44, 2),
            (46, 2),
            (48, 2),
            (56, 2),
            (10, 0),
            (34, 0),
            (40, 0),
        ] {
            assert_eq!(DIFFSERV3[d], t, "diffserv3 dscp {d}");
        }
        // diffserv4: AF4x/AF3x/CS3/AF2x/CS2/TOS4 to Video (2); CS4/CS5/EF/VA/CS6/CS7 to Voice (3).
        for (d, t) in [
            (0, 0),
            (10, 0),
            (8, 1),
            (1, 1),
            (18, 2),
            (26, 2),
            (24, 2),
            (34, 2),
            (38, 2),
            (16, 2),
            (4, 2),
            (32, 3),
            (40, 3),
            (46, 3),
            (44, 3),
            (48, 3),
            (56, 3),
            (2, 0),
        ] {
            assert_eq!(DIFFSERV4[d], t, "diffserv4 dscp {d}");
        }
    }
}
