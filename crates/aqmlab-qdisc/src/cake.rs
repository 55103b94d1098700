//! CAKE, Common Applications Kept Enhanced (Høiland-Jørgensen, Täht, Morton, "Piece of CAKE: A
//! Comprehensive Queue Management Solution for Home Gateways", IEEE LANMAN 2018; Linux
//! `net/sched/sch_cake.c`). One module, in the order a packet meets the parts:
//!
//! * Tins (paper §3.3; `cake_select_tin`, `cake_config_diffserv3/4`, `cake_config_besteffort`):
//!   the packet's DSCP ([`Packet::dscp`]) picks a tin through Linux's tables. `besteffort`: one
//!   tin; `diffserv3`: Best Effort / Bulk (CS1, LE) / Voice (TOS4, VA, EF, CS6, CS7), rates
//!   1, 1/16, 1/4 of `bandwidth`, DRR quanta 1024/64/256; `diffserv4`: Best Effort / Bulk /
//!   Video (AF2x–AF4x, CS2, CS3, TOS4) / Voice (CS4–CS7, EF, VA), rates 1, 1/16, 1/2, 1/4,
//!   quanta 1024/64/512/256. Shaped, the dequeue serves the highest-index tin whose own shaper
//!   allows a packet now, else the earliest-scheduled one (`cake_dequeue`): a tin above its rate
//!   threshold loses its priority but can still use idle capacity. Unshaped, tins share by DRR
//!   with their quanta.
//! * Flow hashing (paper §3.1; `cake_hash`): 1024 queues per tin, 8-way set-associative: a flow
//!   takes the queue of its set already tagged with its hash, else an idle one, else (all 8 busy)
//!   its direct queue, collision accepted. `flow_mode` chooses what a "flow" is: `flows` (5-tuple,
//!   here the [`FlowId`]), `srchost`/`dsthost`/`hosts` (addresses only), `flowblind` (one queue),
//!   and the isolation modes `dual-srchost`, `dual-dsthost`, `triple-isolate` (flows, plus
//!   per-host fairness).
//! * Host isolation (paper §3.2; "triple isolation (modified DRR++)" in `cake_dequeue`): each
//!   host slot (set-associative too) counts the bulk flows of that source / destination; a
//!   flow's quantum is `flow_quantum · ⌊65535 / host_load⌋ >> 16` (with Linux's random dither of
//!   up to one byte), `host_load` = the larger bulk count of its hosts under the dual modes. A
//!   host with 8 bulk flows then gets per flow an eighth of the quantum of a host with 1.
//! * DRR++ (paper §3.1; `cake_enqueue` "flowchain", `cake_dequeue`): a newly active flow is
//!   *sparse* and joins the new list; a flow that uses up its deficit is *bulk* on the old list;
//!   an emptied flow whose COBALT state has not decayed to rest stays on a *decaying* list (one
//!   decaying flow is visited at the start of each dequeue), otherwise it leaves the lists.
//! * AQM (paper §3.4): each queue has its own COBALT ([`crate::cobalt::CobaltState`], CoDel +
//!   BLUE) with ECN marking, Linux's extra "over target" test `sojourn > 4 · mtu_time`, and
//!   BLUE raised only by overflow drops; the last packet of a queue is never dropped
//!   (`cake_dequeue`: "Last packet in queue may be marked, shouldn't be dropped").
//! * Overflow (`cake_drop`): while the queued bytes exceed `memlimit`, the head of the longest
//!   queue (bytes, over all tins) is dropped and that queue's BLUE is told the queue was full.
//! * Shaper (paper §3.5; `cake_advance_shaper`, `cake_calc_overhead`, `cake_set_rate`): deficit
//!   mode, no burst parameter: every sent packet advances `time_next_packet` by its *adjusted*
//!   length times the time per byte (`(len · rate_ns) >> rate_shft`, Linux's fixed point); a
//!   dequeue before that time returns nothing ([`Cake::next_send_time`] says when to come back).
//!   The adjusted length is `size + overhead`, at least `mpu`, then ATM (`⌈len/48⌉ · 53`) or PTM
//!   (`len + ⌈len/64⌉`) framing. [`Packet::size_bytes`] is the IP packet, so `overhead` is
//!   everything below IP (Linux with `overhead N` strips the MAC header first: the same thing).
//!
//! Not modelled: the ACK filter (our packets carry no TCP header), `ingress` mode, autorate,
//! `nat`, `wash`, fwmark/priority overrides, GSO splitting, `precedence`/`diffserv8` tins;
//! `memlimit` counts packet bytes (Linux counts skb truesize). See `docs/models/cake.md`.

use crate::cobalt::{CobaltParams, CobaltState};
use crate::contract::{Backlog, DropReason, QdiscCx, QueueDisc, Stage};
use crate::fifo::PacketFifo;
use crate::params::{ConfigError, ParamSpec, Params};
use crate::uniform::UniformSource;
use aqmlab_core::units::Size;
use aqmlab_core::{FlowId, Packet, SimTime};

/// Queues per tin (`CAKE_QUEUES`).
pub const QUEUES: usize = 1024;
/// Ways of the set-associative hash (`CAKE_SET_WAYS`).
pub const SET_WAYS: usize = 8;

/// CAKE's parameters (names as `tc-cake(8)` spells them, `-` as `_` where tc has a keyword).
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec::rate(
        "bandwidth",
        "unlimited",
        "shaper rate (tc: bandwidth); unlimited = no shaping, tins share by DRR; at least 512bps (Linux's MIN_RATE)",
    )
    .or("unlimited"),
    ParamSpec::number(
        "overhead",
        "0",
        "bytes added to each IP packet's size for the shaper (framing below IP), a whole number",
    )
    .within(-64.0, 256.0),
    ParamSpec::bytes(
        "mpu",
        "0",
        "minimum packet unit: a packet's adjusted size is at least this (after overhead)",
    )
    .le(256.0),
    ParamSpec::choice(
        "atm",
        "noatm",
        "noatm|atm|ptm",
        "link-layer cell framing: atm = 53-byte cells per 48 bytes, ptm = 65 per 64 (VDSL2)",
    ),
    ParamSpec::choice(
        "flow_mode",
        "triple-isolate",
        "flowblind|srchost|dsthost|hosts|flows|dual-srchost|dual-dsthost|triple-isolate",
        "what a flow queue isolates, and whether hosts get fair shares (dual-*, triple-isolate)",
    ),
    ParamSpec::choice(
        "diffserv",
        "diffserv3",
        "besteffort|diffserv3|diffserv4",
        "tin layout: DSCP-selected priority tins with rate thresholds (Linux's tables)",
    ),
    ParamSpec::duration(
        "target",
        "5ms",
        "COBALT's target (raised to 1.5 MTU times at low rates, as cake_set_rate)",
    )
    .gt(0.0)
    .le(4_294_967_295.0),
    ParamSpec::duration("rtt", "100ms", "COBALT's interval (tc: rtt)")
        .gt(0.0)
        .le(4_294_967_295.0),
    ParamSpec::bytes(
        "mtu",
        "1514",
        "the device MTU used for mtu_time and the default target (Linux psched_mtu: 1500 + 14)",
    )
    .within(68.0, 65535.0),
    ParamSpec::size(
        "limit",
        "10240p",
        "Linux's packet limit, which caps memlimit=auto at limit x mtu (bytes: the cap itself)",
    ),
    ParamSpec::bytes(
        "memlimit",
        "auto",
        "queued bytes before dropping from the longest queue; auto = Linux's: 4 x bandwidth x rtt (at least 4 MiB), at most limit x mtu",
    )
    .gt(0.0)
    .or("auto"),
    ParamSpec::choice(
        "hash",
        "flow_id",
        "flow_id|perturbed",
        "flow_id: the flow (host) number is the hash, so queue = id mod 1024 before the ways; perturbed: salted hash",
    ),
];

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
    const ALL: [FlowMode; 8] = [
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
    fn dual_src(self) -> bool {
        self as u8 & 5 == 5
    }
    /// `cake_ddst`: per-destination-host fairness.
    fn dual_dst(self) -> bool {
        self as u8 & 6 == 6
    }
}

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

/// `atm`: cell framing of the link below IP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Framing {
    /// None.
    NoAtm,
    /// ATM: 48 payload bytes per 53-byte cell.
    Atm,
    /// PTM (64b/65b): one byte per 64 or part thereof.
    Ptm,
}

/// DSCP → tin, `diffserv3[]` of `sch_cake.c` (index: the 6-bit codepoint).
const DIFFSERV3: [u8; 64] = {
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
const DIFFSERV4: [u8; 64] = {
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

/// A byte rate as Linux keeps it: nanoseconds per byte in fixed point, `ns >> shift`
/// (`cake_set_rate`). `ns == 0`: unlimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Scaled nanoseconds per byte.
    pub ns: u64,
    /// The scale.
    pub shift: u8,
}

impl Rate {
    /// `bytes_per_s` (0: unlimited) as `cake_set_rate` converts it: `(1e9 << 34) / rate`, then
    /// halved (and the shift decreased) until it fits 34 bits. Rates below 64 B/s count as 64.
    pub fn from_bytes_per_s(bytes_per_s: u64) -> Rate {
        if bytes_per_s == 0 {
            return Rate { ns: 0, shift: 0 };
        }
        let mut shift = 34u8;
        let mut ns = ((1_000_000_000u128 << 34) / bytes_per_s.max(64) as u128) as u64;
        while ns >> 34 != 0 {
            ns >>= 1;
            shift -= 1;
        }
        Rate { ns, shift }
    }
    /// Time to send `len` bytes, ns (`(len · rate_ns) >> rate_shft`).
    #[inline]
    pub fn duration(self, len: u32) -> u64 {
        (len as u64 * self.ns) >> self.shift
    }
}

/// Validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct CakeConfig {
    /// Shaper rate, bytes per second (0: unlimited).
    pub rate_bytes_per_s: u64,
    /// Bytes added per packet.
    pub overhead: i32,
    /// Minimum adjusted size.
    pub mpu: u32,
    /// Cell framing.
    pub framing: Framing,
    /// Flow isolation mode.
    pub flow_mode: FlowMode,
    /// Tin layout.
    pub diffserv: Diffserv,
    /// COBALT target, ns.
    pub target_ns: u64,
    /// COBALT interval (`rtt`), ns.
    pub rtt_ns: u64,
    /// Device MTU, bytes.
    pub mtu: u32,
    /// Byte limit over all queues.
    pub memlimit: u64,
    /// Salted flow hash.
    pub perturbed: bool,
}

impl CakeConfig {
    /// Reads and checks [`PARAMS`].
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        let rate_bytes_per_s = match p.word("bandwidth") {
            Some(_) => 0,
            None => {
                let bps = p.bitrate("bandwidth").as_bps();
                if bps != 0 && bps < 8 * 64 {
                    return Err(p.invalid(
                        "bandwidth",
                        format!("expected at least 512bps (64 B/s, Linux's MIN_RATE) or unlimited, got {bps}bps"),
                    ));
                }
                bps / 8
            }
        };
        let overhead = p.f64("overhead");
        if overhead.fract() != 0.0 {
            return Err(p.invalid(
                "overhead",
                format!("expected a whole number of bytes, got {overhead}"),
            ));
        }
        let overhead = overhead as i32;
        let mpu = p.bytes("mpu");
        let framing = [Framing::NoAtm, Framing::Atm, Framing::Ptm][p.choice("atm")];
        let flow_mode = FlowMode::ALL[p.choice("flow_mode")];
        let diffserv = [
            Diffserv::BestEffort,
            Diffserv::Diffserv3,
            Diffserv::Diffserv4,
        ][p.choice("diffserv")];
        let target_ns = p.duration("target").as_nanos();
        let rtt_ns = p.duration("rtt").as_nanos();
        let mtu = p.bytes("mtu") as u32;
        let cap = match p.size("limit") {
            Size::Packets(n) => n.saturating_mul(mtu as u64),
            Size::Bytes(b) => b,
        };
        let memlimit = match p.opt_bytes("memlimit") {
            // cake_reconfigure: 4 x rate x rtt, at least 4 MiB, then at most limit x mtu.
            None => {
                let by_rate = if rate_bytes_per_s > 0 {
                    ((rate_bytes_per_s as u128 * (rtt_ns / 1000) as u128 / 250_000) as u64)
                        .max(4 << 20)
                } else {
                    u64::MAX
                };
                by_rate.min(cap)
            }
            Some(b) => b,
        };
        let perturbed = p.choice("hash") == 1;
        Ok(CakeConfig {
            rate_bytes_per_s,
            overhead,
            mpu: mpu as u32,
            framing,
            flow_mode,
            diffserv,
            target_ns,
            rtt_ns,
            mtu,
            memlimit,
            perturbed,
        })
    }

    /// The size the shaper charges for a packet of `size` bytes (`cake_calc_overhead`): plus
    /// `overhead`, at least `mpu`, then ATM cells (`⌈len/48⌉·53`) or PTM (`len + ⌈len/64⌉`).
    pub fn adjusted_len(&self, size: u32) -> u32 {
        let mut len = (size as i64 + self.overhead as i64).max(0) as u64;
        len = len.max(self.mpu as u64);
        len = match self.framing {
            Framing::NoAtm => len,
            Framing::Atm => len.div_ceil(48) * 53,
            Framing::Ptm => len + len.div_ceil(64),
        };
        len.min(u32::MAX as u64) as u32
    }

    /// Tin rates (bytes/s) and DRR quanta (`cake_config_*`).
    fn tins(&self) -> Vec<(u64, u32)> {
        let r = self.rate_bytes_per_s;
        match self.diffserv {
            Diffserv::BestEffort => vec![(r, 65535)],
            Diffserv::Diffserv3 => vec![(r, 1024), (r >> 4, 64), (r >> 2, 256)],
            Diffserv::Diffserv4 => vec![(r, 1024), (r >> 4, 64), (r >> 1, 512), (r >> 2, 256)],
        }
    }
}

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

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ListId {
    New = 0,
    Old = 1,
    Decaying = 2,
}

#[derive(Clone, Copy, Debug)]
struct DList {
    head: u32,
    tail: u32,
}

#[derive(Debug)]
struct Flow {
    q: PacketFifo,
    deficit: i64,
    aqm: CobaltState,
    prev: u32,
    next: u32,
    on: Option<ListId>,
    set: FlowSet,
    srchost: u16,
    dsthost: u16,
}

#[derive(Clone, Copy, Debug, Default)]
struct Host {
    src_tag: u32,
    dst_tag: u32,
    src_bulk: u16,
    dst_bulk: u16,
}

#[derive(Debug)]
struct Tin {
    flows: Vec<Flow>,
    tags: Vec<u32>,
    hosts: Vec<Host>,
    lists: [DList; 3],
    sparse: u32,
    bulk: u32,
    decaying: u32,
    flow_quantum: u64,
    cobalt: CobaltParams,
    rate: Rate,
    time_next: i64,
    quantum: i64,
    deficit: i64,
    backlog: Backlog,
    sent: Backlog,
}

impl Tin {
    fn active(&self) -> bool {
        self.sparse + self.bulk > 0
    }

    fn head(&self, l: ListId) -> u32 {
        self.lists[l as usize].head
    }

    fn unlink(&mut self, i: u32) {
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

    /// `list_move_tail` (and `list_add_tail` for a queue on no list).
    fn move_tail(&mut self, i: u32, l: ListId) {
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

    /// The larger bulk count of the queue's hosts under the dual modes, at least 1.
    fn host_load(&self, i: usize, mode: FlowMode) -> u64 {
        let f = &self.flows[i];
        let mut load = 1u64;
        if mode.dual_src() {
            load = load.max(self.hosts[f.srchost as usize].src_bulk as u64);
        }
        if mode.dual_dst() {
            load = load.max(self.hosts[f.dsthost as usize].dst_bulk as u64);
        }
        load
    }

    fn bulk_hosts(&mut self, i: usize, mode: FlowMode, up: bool) {
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
fn quantum_div(n: u64) -> u64 {
    65535 / n.max(1)
}

/// splitmix64's finaliser, for the `perturbed` hash.
#[inline]
fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Set-associative lookup (`cake_hash`): the way of `hash`'s set whose tag is `hash`, else
/// the first (from the direct way on) for which `free` holds, else the direct way; `Err` when it
/// is not tagged `hash` yet.
#[inline]
fn set_lookup(
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

/// The CAKE discipline.
#[derive(Debug)]
pub struct Cake {
    cfg: CakeConfig,
    tins: Vec<Tin>,
    rate: Rate,
    time_next: i64,
    failsafe_next: i64,
    cur_tin: usize,
    backlog: Backlog,
    perturbation: u64,
    /// When a dequeue refused by the shaper should be retried.
    wake: Option<SimTime>,
    uniforms: UniformSource,
}

impl Cake {
    /// Builds CAKE: `1024` queues per tin, each with its own COBALT and random source copy.
    pub fn new(cfg: CakeConfig, mut uniforms: UniformSource) -> Self {
        let perturbation = if cfg.perturbed {
            (uniforms.next_f64() * 18_446_744_073_709_551_616.0) as u64
        } else {
            0
        };
        let mut tins = Vec::new();
        for (t, (rate_b, quantum)) in cfg.tins().into_iter().enumerate() {
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
                    deficit: 0,
                    aqm: CobaltState::new(&cobalt, uniforms.copy_for(t as u32 * QUEUES as u32 + i)),
                    prev: NIL,
                    next: NIL,
                    on: None,
                    set: FlowSet::None,
                    srchost: 0,
                    dsthost: 0,
                })
                .collect();
            tins.push(Tin {
                flows,
                tags: vec![0; QUEUES],
                hosts: vec![Host::default(); QUEUES],
                lists: [DList {
                    head: NIL,
                    tail: NIL,
                }; 3],
                sparse: 0,
                bulk: 0,
                decaying: 0,
                flow_quantum,
                cobalt,
                rate,
                time_next: 0,
                quantum: quantum as i64,
                deficit: 0,
                backlog: Backlog::default(),
                sent: Backlog::default(),
            });
        }
        let rate = tins[0].rate;
        Cake {
            cfg,
            tins,
            rate,
            time_next: 0,
            failsafe_next: 0,
            cur_tin: 0,
            backlog: Backlog::default(),
            perturbation,
            wake: None,
            uniforms,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &CakeConfig {
        &self.cfg
    }

    /// The dither source.
    pub fn uniforms(&self) -> &UniformSource {
        &self.uniforms
    }

    /// True when a list random source ran dry.
    pub fn uniforms_exhausted(&self) -> bool {
        self.uniforms.exhausted()
            || self
                .tins
                .iter()
                .any(|t| t.flows.iter().any(|f| f.aqm.uniforms().exhausted()))
    }

    /// The global shaper's rate in Linux's fixed point.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// After a dequeue that returned nothing because the shaper holds packets back: when to
    /// dequeue again (Linux's watchdog time). `None` otherwise.
    pub fn next_send_time(&self) -> Option<SimTime> {
        self.wake
    }

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

    /// Queue `q` of tin `t`: its packets and bytes, DRR++ set, deficit and host slots.
    pub fn queue(&self, t: usize, q: usize) -> (Backlog, FlowSet, i64, u16, u16) {
        let f = &self.tins[t].flows[q];
        (f.q.backlog(), f.set, f.deficit, f.srchost, f.dsthost)
    }

    fn hashes(&self, pkt: &Packet) -> (u32, u32, u32) {
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
            h(pkt.flow.0 as u64, 0)
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
        if tin.tags[direct] == flow_hash && tin.flows[direct].set != FlowSet::None {
            return direct;
        }
        let (idx, allocate) = match set_lookup(
            flow_hash,
            |k| tin.tags[k],
            |k| tin.flows[k].set == FlowSet::None,
        ) {
            Ok(k) => (k, tin.flows[k].set == FlowSet::None),
            Err(k) => {
                if tin.flows[k].set == FlowSet::Bulk {
                    // A collision: the bulk count moves to the new flow's hosts below.
                    tin.bulk_hosts(k, mode, false);
                }
                (k, true)
            }
        };
        tin.tags[idx] = flow_hash;
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
            if tin.flows[idx].set == FlowSet::Bulk {
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
            if tin.flows[idx].set == FlowSet::Bulk {
                tin.hosts[h].dst_bulk += 1;
            }
            tin.flows[idx].dsthost = h as u16;
        }
        idx
    }

    /// `cake_drop`: the head of the longest queue (bytes, all tins; ties to the lowest tin,
    /// then the new list before the old, in list order) is dropped, and its COBALT told.
    fn drop_fattest(&mut self, now: i64, cx: &mut QdiscCx) {
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

    /// Charges a sent packet to the shapers (`cake_advance_shaper`) and deficits.
    fn charge(&mut self, t: usize, i: usize, len: u32, now: i64) {
        let shaped = self.rate.ns != 0;
        let tin = &mut self.tins[t];
        if shaped {
            let tin_dur = tin.rate.duration(len) as i64;
            let global = self.rate.duration(len) as i64;
            if tin.time_next < now {
                tin.time_next += tin_dur;
            } else if tin.time_next < now + tin_dur {
                tin.time_next = now + tin_dur;
            }
            self.time_next += global;
            self.failsafe_next += global + (global >> 1);
        }
        tin.flows[i].deficit -= len as i64;
        tin.deficit -= len as i64;
    }

    /// Chooses the tin to serve, or `None` (`cake_dequeue`, "Choose a class to work on").
    fn choose_tin(&mut self, now: i64) -> Option<usize> {
        let n = self.tins.len();
        if self.rate.ns == 0 {
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
        // The flowchain.
        match tin.flows[i].set {
            FlowSet::None | FlowSet::Decaying => {
                if tin.flows[i].set == FlowSet::Decaying {
                    tin.decaying -= 1;
                }
                tin.move_tail(i as u32, ListId::New);
                tin.flows[i].set = FlowSet::Sparse;
                tin.sparse += 1;
                let load = tin.host_load(i, mode);
                tin.flows[i].deficit = ((tin.flow_quantum * quantum_div(load)) >> 16) as i64;
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
                    let load = tin.host_load(i, mode);
                    // Linux dithers with the top 16 bits of a random u32.
                    let dither = (self.uniforms.next_f64() * 65536.0) as u64;
                    tin.flows[i].deficit +=
                        ((tin.flow_quantum * quantum_div(load) + dither) >> 16) as i64;
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

/// A flow id helper for tests and tools: packet of `size` bytes in `flow`, from host `src` to
/// host `dst`, with `dscp`.
pub fn packet(id: u64, size: u32, flow: u32, src: u16, dst: u16, dscp: u8) -> Packet {
    let mut p = Packet::new(id, size, FlowId(flow));
    p.src_host = src;
    p.dst_host = dst;
    p.dscp = dscp;
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_fixed_point_matches_cake_set_rate() {
        // 10 Mb/s = 1.25e6 B/s = 800 ns per byte exactly: (1e9 << 34) / 1.25e6 = 800 << 34,
        // halved 10 times to fit 34 bits.
        let r = Rate::from_bytes_per_s(1_250_000);
        assert_eq!(
            r,
            Rate {
                ns: 800 << 24,
                shift: 24
            }
        );
        assert_eq!(r.duration(1696), 1_356_800);
        assert_eq!(Rate::from_bytes_per_s(0).duration(1500), 0);
    }

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
