//! Flow hashing and host isolation (paper §3.1-3.2; `cake_hash`, "triple isolation" in
//! `cake_dequeue`): the 8-way set-associative queue lookup, the flow modes, host slots and
//! their bulk counts, and the host-scaled quantum.

use super::scheduler::{Flow, FlowSet, Hot};
use super::tins::Tin;
use super::{Cake, QUEUES};
use aqmlab_core::Packet;

/// Ways of the set-associative hash (`CAKE_SET_WAYS`).
pub const SET_WAYS: usize = 8;

/// `flow_mode`: Linux's `CAKE_FLOW_*` values (bit 0 source host, bit 1 destination host, bit 2
/// flows; the dual modes are flows plus one host bit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FlowMode {
    /// One queue for everything.
    Flowblind = 0,
    /// Queues by source host.
    SrcHost = 1,
    /// Queues by destination host.
    DstHost = 2,
    /// Queues by host pair.
    Hosts = 3,
    /// Queues by flow.
    Flows = 4,
    /// Flows, fair between source hosts.
    DualSrcHost = 5,
    /// Flows, fair between destination hosts.
    DualDstHost = 6,
    /// Flows, fair between source and between destination hosts.
    TripleIsolate = 7,
}

impl FlowMode {
    pub(super) const ALL: [FlowMode; 8] = [
        FlowMode::Flowblind,
        FlowMode::SrcHost,
        FlowMode::DstHost,
        FlowMode::Hosts,
        FlowMode::Flows,
        FlowMode::DualSrcHost,
        FlowMode::DualDstHost,
        FlowMode::TripleIsolate,
    ];
    /// `cake_dsrc`: per-source-host fairness.
    pub(super) fn dual_src(self) -> bool {
        self as u8 & 5 == 5
    }
    /// `cake_ddst`: per-destination-host fairness.
    pub(super) fn dual_dst(self) -> bool {
        self as u8 & 6 == 6
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Host {
    pub(super) src_tag: u32,
    pub(super) dst_tag: u32,
    pub(super) src_bulk: u16,
    pub(super) dst_bulk: u16,
}

/// The larger bulk count of queue `f`'s hosts under the dual modes, at least 1.
pub(super) fn host_load(f: &Flow, hosts: &[Host], mode: FlowMode) -> u64 {
    let mut load = 1u64;
    if mode.dual_src() {
        load = load.max(hosts[f.srchost as usize].src_bulk as u64);
    }
    if mode.dual_dst() {
        load = load.max(hosts[f.dsthost as usize].dst_bulk as u64);
    }
    load
}

/// Queue `f`'s scaled quantum, `flow_quantum · ⌊65535 / host_load⌋`, from its cache `h` while
/// no host count or slot has changed since it was computed (`gen` is the tin's `hosts_gen`).
#[inline]
pub(super) fn scaled_quantum(
    h: &mut Hot,
    f: &Flow,
    hosts: &[Host],
    gen: u64,
    flow_quantum: u64,
    mode: FlowMode,
) -> u64 {
    if h.refill_gen != gen {
        rescale(h, f, hosts, gen, flow_quantum, mode);
    }
    h.refill
}

/// [`scaled_quantum`]'s cache miss, out of the refill walk's loop.
#[cold]
#[inline(never)]
fn rescale(h: &mut Hot, f: &Flow, hosts: &[Host], gen: u64, flow_quantum: u64, mode: FlowMode) {
    h.refill = flow_quantum * quantum_div(host_load(f, hosts, mode));
    h.refill_gen = gen;
}

impl Tin {
    /// [`scaled_quantum`] of queue `i`.
    #[inline]
    pub(super) fn scaled_quantum(&mut self, i: usize, mode: FlowMode) -> u64 {
        scaled_quantum(
            &mut self.hot[i],
            &self.flows[i],
            &self.hosts,
            self.hosts_gen,
            self.flow_quantum,
            mode,
        )
    }

    pub(super) fn bulk_hosts(&mut self, i: usize, mode: FlowMode, up: bool) {
        self.hosts_gen += 1;
        let (s, d) = (
            self.flows[i].srchost as usize,
            self.flows[i].dsthost as usize,
        );
        if mode.dual_src() {
            let c = &mut self.hosts[s].src_bulk;
            *c = if up {
                c.wrapping_add(1)
            } else {
                c.wrapping_sub(1)
            };
        }
        if mode.dual_dst() {
            let c = &mut self.hosts[d].dst_bulk;
            *c = if up {
                c.wrapping_add(1)
            } else {
                c.wrapping_sub(1)
            };
        }
    }
}

/// `quantum_div[n] = 65535 / n` (`cake_init`).
#[inline]
pub(super) fn quantum_div(n: u64) -> u64 {
    65535 / n.max(1)
}

/// splitmix64's finaliser, for the `perturbed` hash.
#[inline]
pub(super) fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Set-associative lookup (`cake_hash`): the way of `hash`'s set whose tag is `hash`, else
/// the first (from the direct way on) for which `free` holds, else the direct way; `Err` when it
/// is not tagged `hash` yet.
#[inline]
pub(super) fn set_lookup(
    hash: u32,
    tag: impl Fn(usize) -> u32,
    free: impl Fn(usize) -> bool,
) -> Result<usize, usize> {
    let direct = hash as usize % QUEUES;
    let inner = direct % SET_WAYS;
    let outer = direct - inner;
    for w in 0..SET_WAYS {
        let k = outer + (inner + w) % SET_WAYS;
        if tag(k) == hash {
            return Ok(k);
        }
    }
    for w in 0..SET_WAYS {
        let k = outer + (inner + w) % SET_WAYS;
        if free(k) {
            return Err(k);
        }
    }
    Err(direct)
}

impl Cake {
    pub(super) fn hashes(&self, pkt: &Packet) -> (u32, u32, u32) {
        let h = |x: u64, salt: u64| -> u32 {
            if self.cfg.perturbed {
                (mix64(x ^ self.perturbation ^ salt) >> 32) as u32
            } else {
                x as u32
            }
        };
        let src = h(pkt.src_host as u64, 0x5352_4300_0000_0000);
        let dst = h(pkt.dst_host as u64, 0x4453_5400_0000_0000);
        let mode = self.cfg.flow_mode as u8;
        let flow = if mode & 4 != 0 {
            // The flow, or one of its open connections ([`Packet::class_key`]): Linux hashes the
            // 5-tuple for the flow and the addresses alone for the hosts (`cake_hash`), so a
            // page's connections are flows of their own but of one host pair.
            h(pkt.class_key() as u64, 0)
        } else {
            let mut f = 0;
            if mode & 1 != 0 {
                f ^= src;
            }
            if mode & 2 != 0 {
                f ^= dst;
            }
            f
        };
        (flow, src, dst)
    }

    /// The queue of tin `t` that `pkt` joins (`cake_hash`), updating tags and host slots.
    pub fn classify(&mut self, t: usize, pkt: &Packet) -> usize {
        let mode = self.cfg.flow_mode;
        if mode == FlowMode::Flowblind {
            return 0;
        }
        let (flow_hash, src_hash, dst_hash) = self.hashes(pkt);
        let tin = &mut self.tins[t];
        let direct = flow_hash as usize % QUEUES;
        // Fast path: the direct queue is this flow's and active.
        if tin.tags[direct] == flow_hash && tin.hot[direct].set != FlowSet::None {
            return direct;
        }
        let (idx, allocate) = match set_lookup(
            flow_hash,
            |k| tin.tags[k],
            |k| tin.hot[k].set == FlowSet::None,
        ) {
            Ok(k) => (k, tin.hot[k].set == FlowSet::None),
            Err(k) => {
                if tin.hot[k].set == FlowSet::Bulk {
                    // A collision: the bulk count moves to the new flow's hosts below.
                    tin.bulk_hosts(k, mode, false);
                }
                (k, true)
            }
        };
        tin.tags[idx] = flow_hash;
        if allocate && (mode.dual_src() || mode.dual_dst()) {
            // Host slots and counts may change below.
            tin.hosts_gen += 1;
        }
        if allocate && mode.dual_src() {
            let h = match set_lookup(
                src_hash,
                |k| tin.hosts[k].src_tag,
                |k| tin.hosts[k].src_bulk == 0,
            ) {
                Ok(k) => k,
                Err(k) => {
                    tin.hosts[k].src_tag = src_hash;
                    k
                }
            };
            if tin.hot[idx].set == FlowSet::Bulk {
                tin.hosts[h].src_bulk += 1;
            }
            tin.flows[idx].srchost = h as u16;
        }
        if allocate && mode.dual_dst() {
            let h = match set_lookup(
                dst_hash,
                |k| tin.hosts[k].dst_tag,
                |k| tin.hosts[k].dst_bulk == 0,
            ) {
                Ok(k) => k,
                Err(k) => {
                    tin.hosts[k].dst_tag = dst_hash;
                    k
                }
            };
            if tin.hot[idx].set == FlowSet::Bulk {
                tin.hosts[h].dst_bulk += 1;
            }
            tin.flows[idx].dsthost = h as u16;
        }
        idx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_lookup_prefers_tag_then_free_then_direct() {
        let tags = [0u32; QUEUES];
        // Set 0 (queues 0..8), hash 1026 → direct queue 2.
        assert_eq!(set_lookup(1026, |k| tags[k], |_| true), Err(2));
        assert_eq!(set_lookup(1026, |k| tags[k], |k| k == 5), Err(5));
        // Wraps within the set: from way 7 the next free is way 1.
        assert_eq!(set_lookup(7, |k| tags[k], |k| k == 1), Err(1));
        assert_eq!(set_lookup(1026, |k| tags[k], |_| false), Err(2));
        let mut t2 = [0u32; QUEUES];
        t2[6] = 1026;
        assert_eq!(set_lookup(1026, |k| t2[k], |_| true), Ok(6));
    }
}
