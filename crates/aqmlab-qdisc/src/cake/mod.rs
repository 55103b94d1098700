//! CAKE, Common Applications Kept Enhanced (Høiland-Jørgensen, Täht, Morton, "Piece of CAKE: A
//! Comprehensive Queue Management Solution for Home Gateways", IEEE LANMAN 2018; Linux
//! `net/sched/sch_cake.c`). In the order a packet meets the parts (one file each):
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
//!   here the [`FlowId`], or for each connection a flow opens while another of its connections
//!   is open, a web page's, the connection's number: [`Packet::class_key`]), `srchost`/`dsthost`/`hosts`
//!   (addresses only), `flowblind` (one queue), and the isolation modes `dual-srchost`,
//!   `dual-dsthost`, `triple-isolate` (flows, plus per-host fairness). As in Linux, where the
//!   flow hash covers the 5-tuple and the host hashes the addresses alone, a page's connections
//!   are flows of their own but count as one host's: under the dual modes its 6 bulk connections
//!   share their host's quantum (each gets a sixth).
//! * Host isolation (paper §3.2; "triple isolation (modified DRR++)" in `cake_dequeue`): each
//!   host slot (set-associative too) counts the bulk flows of that source / destination; a
//!   flow's quantum is `flow_quantum · ⌊65535 / host_load⌋ >> 16` (with Linux's random dither of
//!   up to one byte), `host_load` = the larger bulk count of its hosts under the dual modes. A
//!   host with 8 bulk flows then gets per flow an eighth of the quantum of a host with 1.
//! * DRR++ (paper §3.1; `cake_enqueue` "flowchain", `cake_dequeue`): a newly active flow is
//!   *sparse* and joins the new list; a flow that uses up its deficit is *bulk* on the old list;
//!   an emptied flow whose COBALT state has not decayed to rest stays on a *decaying* list (one
//!   decaying flow is visited at the start of each dequeue), otherwise it leaves the lists.
//!   The new and decaying lists are linked through the queues; the old list, which queues leave
//!   only at its head, is a ring of queue indices (`ring.rs`), so DRR's refill loop steps
//!   through slots.
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
//! * ACK filter (paper §4.3; `cake_ack_filter`): [`redundant_ack`] in `ack_filter.rs`.
//!
//! Not modelled: `ingress` mode, autorate,
//! `nat`, `wash`, fwmark/priority overrides, GSO splitting, `precedence`/`diffserv8` tins;
//! `memlimit` counts packet bytes (Linux counts skb truesize). See `docs/models/cake.md`.

mod ack_filter;
mod hash;
mod ring;
mod scheduler;
mod shaper;
mod tins;

pub use ack_filter::{redundant_ack, AckFilter};
pub use hash::{FlowMode, SET_WAYS};
pub use scheduler::FlowSet;
pub use shaper::{Framing, Rate};
pub use tins::{Diffserv, TinStats};

use crate::contract::Backlog;
use crate::params::{ConfigError, ParamSpec, Params};
use crate::uniform::UniformSource;
use aqmlab_core::units::Size;
use aqmlab_core::{FlowId, Packet, SimTime};
use tins::Tin;

/// Queues per tin (`CAKE_QUEUES`).
pub const QUEUES: usize = 1024;

/// What the discipline costs to run (RFC 7928 §11), beside [`PARAMS`].
pub const FACTS: crate::facts::Facts = crate::facts::Facts {
    state: "the shaper's next send time, the tins (1 to 4, each with its rate, quantum and DRR++ lists), the host slots and the queued bytes for memlimit (Piece of CAKE §3)",
    per_flow: "per flow queue (1024 per tin, allocated at construction, 8-way set-associative): a packet ring, the DRR++ deficit and list state, a set tag and a COBALT state; per host slot its bulk-flow count (§3.1-§3.2)",
    per_packet: "the DSCP's tin, a set-associative lookup of up to 8 ways, host-slot bookkeeping, the adjusted size (overhead, mpu, ATM or PTM framing), the shaper's fixed-point time step, DRR++ accounting and COBALT's work (a timestamp, a random draw while BLUE's pdrop > 0); with ack_filter a scan of the flow's queue for a redundant ACK; on overflow the longest queue's head (§3-§4)",
    timers: "none: the shaper says when to dequeue next (next_send_time)",
    spec: "Høiland-Jørgensen, Täht & Morton, 'Piece of CAKE', IEEE LANMAN 2018 §3-§4; Linux sch_cake",
};

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
    .within(-64.0, 256.0)
    .unit("bytes"),
    ParamSpec::bytes(
        "mpu",
        "0B",
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
    .le(4_294_967_295.0)
    .derived("per tin, from its rate: max(target, 1.5 × the time to send one mtu at the tin's rate) (Linux cake_set_rate)"),
    ParamSpec::duration("rtt", "100ms", "COBALT's interval (tc: rtt)")
        .gt(0.0)
        .le(4_294_967_295.0)
    .derived("per tin, COBALT's interval: max(rtt + the target's rise, 2 × the tin's target) (Linux cake_set_rate)"),
    ParamSpec::bytes(
        "mtu",
        "1514B",
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
    .or("auto")
    .derived("auto: 4 × bandwidth × rtt, at least 4 MiB, at most limit × mtu (Linux cake_reconfigure)"),
    ParamSpec::choice(
        "ack_filter",
        "no-ack-filter",
        "no-ack-filter|ack-filter|ack-filter-aggressive",
        "drop a queued pure ACK made redundant by a newer one of its flow (Piece of CAKE §4.3; aggressive: also a lone one just ahead)",
    ),
    ParamSpec::choice(
        "hash",
        "flow_id",
        "flow_id|perturbed",
        "flow_id: the flow (host) number is the hash, so queue = id mod 1024 before the ways (a web page's connections: their numbers, which follow the flows' ids); perturbed: salted hash",
    ),
];

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
    /// The ACK filter.
    pub ack_filter: AckFilter,
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
            ack_filter: [AckFilter::Off, AckFilter::On, AckFilter::Aggressive]
                [p.choice("ack_filter")],
        })
    }
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
    /// Unshaped: every tin but `cur_tin` was idle with credit when the tin was last chosen, and
    /// nothing that could change that has happened since (a packet for another tin, a choice
    /// by the full loop): `choose_tin` need not look at them again.
    others_idle: bool,
    backlog: Backlog,
    perturbation: u64,
    /// When a dequeue refused by the shaper should be retried.
    wake: Option<SimTime>,
    uniforms: UniformSource,
}

impl Cake {
    /// The ACK filter is on: queued packets' [`aqmlab_core::TcpHint`]s are read.
    pub fn reads_tcp_hint(&self) -> bool {
        self.cfg.ack_filter != AckFilter::Off
    }
    /// Builds CAKE: `1024` queues per tin, each with its own COBALT and random source copy.
    pub fn new(cfg: CakeConfig, mut uniforms: UniformSource) -> Self {
        let perturbation = if cfg.perturbed {
            (uniforms.next_f64() * 18_446_744_073_709_551_616.0) as u64
        } else {
            0
        };
        let tins: Vec<Tin> = cfg
            .tins()
            .into_iter()
            .enumerate()
            .map(|(t, (rate_b, quantum))| Tin::new(&cfg, t, rate_b, quantum, &mut uniforms))
            .collect();
        let rate = tins[0].rate;
        Cake {
            cfg,
            tins,
            rate,
            time_next: 0,
            failsafe_next: 0,
            cur_tin: 0,
            others_idle: false,
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

    /// Queue `q` of tin `t`: its packets and bytes, DRR++ set, deficit and host slots.
    pub fn queue(&self, t: usize, q: usize) -> (Backlog, FlowSet, i64, u16, u16) {
        let (f, h) = (&self.tins[t].flows[q], &self.tins[t].hot[q]);
        (f.q.backlog(), h.set, h.deficit, f.srchost, f.dsthost)
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
