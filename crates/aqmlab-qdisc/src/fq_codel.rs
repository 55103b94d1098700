//! FQ-CoDel, Flow Queue CoDel (RFC 8290): packets are sorted into `flows` queues by flow, the
//! queues are served by deficit round robin with a byte `quantum`, newly active queues are served
//! before old ones (the sparse-flow optimisation), and each queue is controlled by its own CoDel.
//!
//! * Classification (RFC 8290 §4.1): the packet's [`FlowId`] is the caller's flow identifier.
//!   `hash=flow_id` (default) uses bucket = id mod `flows`, so flows numbered `0..flows` get one
//!   queue each; `hash=perturbed` hashes the id with a salt drawn once from the discipline's
//!   random source, so unrelated flows collide as they do in Linux (whose flow hash is salted
//!   with a random seed).
//! * Enqueue (RFC 8290 §4.1, Linux `fq_codel_enqueue`): the packet joins its queue; a queue that
//!   was on neither list joins the tail of the new list with a deficit of one quantum. If the
//!   total packets then exceed `limit`, or the queued bytes exceed `memory_limit`, packets are
//!   dropped from the *head* of the queue with the most bytes (the arrival counts, so it may be
//!   the one dropped): up to `drop_batch` packets, stopping once half of that queue's bytes are
//!   gone (Linux's batch; `drop_batch=1` is the single drop RFC 8290 describes), and (with
//!   `overflow_count=bump`) the queue's CoDel `count` grows by the number dropped (Linux: "tell
//!   codel to increase its signal").
//!   One batch per arrival: afterwards the packet limit holds again, but the bytes may still
//!   exceed `memory_limit` (as in Linux); each further arrival then drops another batch.
//! * Dequeue (RFC 8290 §4.2, Linux `fq_codel_dequeue`): take the head of the new list, else of
//!   the old list. A queue whose deficit is used up gets another quantum and moves to the tail of
//!   the old list. Otherwise its CoDel ([`CodelState::dequeue`], the same control loop as the
//!   [`crate::codel`] discipline) returns a packet, whose size is charged to the deficit. If the
//!   queue had nothing left, it leaves its list, except that an emptied *new* queue moves to the
//!   tail of the old list (with `empty_new_flow=remove_if_no_old`, Linux's rule, only while old
//!   queues exist), so that a flow cannot starve the old queues by re-entering the new list again
//!   and again (RFC 8290 §4.2).
//!
//! Each queue has its own [`CodelState`]; all share one [`CodelParams`] read by
//! [`codel::codel_params_from`], so `target`, `interval`, `mtu`, `ecn`, `ce_threshold` and
//! `variant` mean what they mean for CoDel, except that `ecn` defaults to `true`
//! (RFC 8290 §5.2.6, Linux). CoDel's "at least one MTU left" test compares `mtu` with the whole
//! discipline's byte backlog (`mtu_scope=total`, Linux, which passes `sch->qstats.backlog`) or
//! with the queue's own bytes (`mtu_scope=flow`, ns-3, whose per-flow child CoDel counts its own
//! bytes).
//!
//! Data structures: the queues live in one `Vec` indexed by bucket, allocated at construction;
//! the new and old lists are singly linked through the queues (head, tail and length), so every
//! list operation is O(1) and nothing is allocated per packet (a queue's ring buffer grows to its
//! largest backlog and keeps that capacity). The fattest-queue search on overflow is a linear
//! scan, like Linux's, but over the queues on the two lists (every queue holding packets is on
//! one) rather than over all buckets; ties go by `fattest_tie`.
//!
//! Linux and ns-3 3.37 differ on five rules besides CoDel's arithmetic; each has a switch whose
//! default, `auto`, follows `variant` (ns-3's rule with `variant=ns3`, Linux's otherwise), so
//! `variant=ns3` is the ns-3 preset, checked packet by packet against ns-3 3.37's
//! `FqCoDelQueueDisc` (`tests/vectors.rs`): `empty_new_flow` (an emptied new queue always goes
//! to the old list, RFC 8290 §4.2 and ns-3, or leaves the lists when the old list is empty,
//! Linux), `overflow_count` (the overflow batch adds to CoDel's count, Linux, or not, ns-3),
//! `fattest_tie` (lowest bucket, Linux, or the queue created first, ns-3), `flow_limit` (ns-3's
//! child CoDel refuses an arrival to a queue holding `limit` packets) and `mtu_scope`.
//!
//! Deviations (see `docs/models/fq_codel.md`):
//! * `memory_limit` counts the bytes of queued packets (`size_bytes`); Linux counts each skb's
//!   `truesize` (buffer overhead included, several times the length of a small packet), so
//!   Linux reaches its 32 MiB earlier, especially with small packets. ns-3 has no memory limit.

use crate::codel::{self, CodelParams, CodelQueue, CodelState, Variant};
use crate::contract::{Backlog, DropReason, QdiscCx, QueueDisc, Stage};
use crate::fifo::PacketFifo;
use crate::params::{ConfigError, ParamSpec, Params};
use crate::uniform::UniformSource;
use aqmlab_core::units::Size;
use aqmlab_core::{FlowId, Packet, SimTime};

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// CoDel's spec for `name`, so the shared parameters are documented once (in [`codel::PARAMS`]).
const fn codel_spec(name: &str) -> ParamSpec {
    let mut i = 0;
    while i < codel::PARAMS.len() {
        if str_eq(codel::PARAMS[i].name, name) {
            return codel::PARAMS[i];
        }
        i += 1;
    }
    panic!("not a CoDel parameter")
}

/// FQ-CoDel's parameters. `target`, `interval`, `mtu`, `ce_threshold` and `variant` are CoDel's
/// (same spec as [`codel::PARAMS`]); `ecn` too, but on by default (RFC 8290 §5.2.6, Linux).
pub const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "limit",
        default: "10240p",
        kind: "size",
        help: "packets over all flows; beyond it, drop from the fattest flow (packets only)",
    },
    ParamSpec {
        name: "flows",
        default: "1024",
        kind: "integer",
        help: "flow queues (hash buckets), 1 to 65536",
    },
    ParamSpec {
        name: "quantum",
        default: "1514",
        kind: "bytes",
        help: "DRR quantum: bytes a flow may send per round, 256 to 1MiB",
    },
    ParamSpec {
        name: "memory_limit",
        default: "32MiB",
        kind: "bytes",
        help: "bytes over all flows before dropping from the fattest (Linux: skb truesize)",
    },
    codel_spec("target"),
    codel_spec("interval"),
    codel_spec("mtu"),
    ParamSpec {
        default: "true",
        ..codel_spec("ecn")
    },
    codel_spec("ce_threshold"),
    codel_spec("variant"),
    ParamSpec {
        name: "drop_batch",
        default: "64",
        kind: "integer",
        help: "most packets one overflow drops from the fattest flow (stops at half its bytes)",
    },
    ParamSpec {
        name: "mtu_scope",
        default: "auto",
        kind: "one of auto|total|flow",
        help: "bytes CoDel compares with mtu: the whole qdisc's (Linux) or the flow's own (ns-3); auto = flow with variant=ns3, else total",
    },
    ParamSpec {
        name: "empty_new_flow",
        default: "auto",
        kind: "one of auto|old|remove_if_no_old",
        help: "an emptied new flow goes to the old list (RFC 8290, ns-3) or leaves the lists when the old list is empty (Linux); auto = old with variant=ns3, else remove_if_no_old",
    },
    ParamSpec {
        name: "overflow_count",
        default: "auto",
        kind: "one of auto|bump|keep",
        help: "an overflow batch adds its drops to the flow's CoDel count (Linux) or not (ns-3); auto = keep with variant=ns3, else bump",
    },
    ParamSpec {
        name: "fattest_tie",
        default: "auto",
        kind: "one of auto|lowest_bucket|first_created",
        help: "equal-byte fattest flows: the lowest bucket wins (Linux) or the flow queue created first (ns-3); auto = first_created with variant=ns3, else lowest_bucket",
    },
    ParamSpec {
        name: "flow_limit",
        default: "auto",
        kind: "one of auto|none|limit",
        help: "limit: an arrival to a flow already holding `limit` packets is tail-dropped (ns-3's child CoDel limit); none: no per-flow limit (Linux); auto = limit with variant=ns3, else none",
    },
    ParamSpec {
        name: "hash",
        default: "flow_id",
        kind: "one of flow_id|perturbed",
        help: "flow_id: bucket = id mod flows; perturbed: salted hash, collisions as in Linux",
    },
];

/// Whose bytes CoDel's "at least one MTU left" test looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MtuScope {
    /// The whole discipline's byte backlog (Linux `sch_fq_codel`).
    Total,
    /// The flow queue's own bytes (ns-3 `FqCoDelQueueDisc`, whose flows are child CoDel queues).
    Flow,
}

/// What happens to a queue taken from the new list that turns out to be empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmptyNewFlow {
    /// It moves to the tail of the old list (RFC 8290 §4.2; ns-3 `FqCoDelQueueDisc::DoDequeue`,
    /// whose test "the new list is not empty" holds exactly when the queue came from it).
    Old,
    /// It moves to the old list only if the old list is not empty, else it leaves the lists
    /// (Linux `fq_codel_dequeue`: `if (head == &q->new_flows && !list_empty(&q->old_flows))`).
    RemoveIfNoOld,
}

/// Whether an overflow batch adds to the flow's CoDel count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverflowCount {
    /// `count += dropped` (Linux `fq_codel_drop`: "tell codel to increase its signal").
    Bump,
    /// The CoDel state is left alone (ns-3 `FqCoDelQueueDisc::FqCoDelDrop` takes the packets
    /// straight from the child CoDel's internal queue; RFC 8290 §4.1 says nothing of CoDel here).
    Keep,
}

/// Which of several equally fat queues an overflow drops from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FattestTie {
    /// The lowest bucket (Linux scans buckets 0.. and keeps the first strict maximum).
    LowestBucket,
    /// The queue that received its first packet earliest (ns-3 creates a flow queue class on a
    /// bucket's first packet and scans its classes in creation order, keeping the first strict
    /// maximum).
    FirstCreated,
}

/// How a packet's [`FlowId`] picks its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowHash {
    /// Bucket = flow id mod `flows`: flows numbered `0..flows` never share a queue.
    FlowId,
    /// Bucket = a 64-bit mix of (flow id XOR a salt drawn once at construction), scaled to
    /// `flows` with a multiply-shift (Linux's `reciprocal_scale`): collisions as with a random hash.
    Perturbed,
}

/// Validated FQ-CoDel configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelConfig {
    /// Total packet limit over all flows (RFC 8290 §5.2.3).
    pub limit: u32,
    /// Number of flow queues (RFC 8290 §5.2.5).
    pub flows: u32,
    /// DRR quantum in bytes (RFC 8290 §5.2.4).
    pub quantum: u32,
    /// Byte limit over all queued packets (Linux `memory_limit`, counted here in packet bytes).
    pub memory_limit: u64,
    /// Most packets one overflow drops from the fattest queue (Linux `drop_batch_size`).
    pub drop_batch: u32,
    /// Scope of CoDel's MTU test.
    pub mtu_scope: MtuScope,
    /// The emptied-new-queue rule.
    pub empty_new_flow: EmptyNewFlow,
    /// Whether overflow drops add to CoDel's count.
    pub overflow_count: OverflowCount,
    /// Fattest-queue tie rule.
    pub fattest_tie: FattestTie,
    /// Tail-drop an arrival to a queue that already holds `limit` packets (ns-3).
    pub flow_limit: bool,
    /// Classification.
    pub hash: FlowHash,
    /// The CoDel parameters every queue shares.
    pub codel: CodelParams,
}

/// Reads `name` as a whole number in `lo..=hi`.
fn int_in(p: &Params, name: &'static str, lo: u64, hi: u64) -> Result<u64, ConfigError> {
    let v = p.u64(name)?;
    if !(lo..=hi).contains(&v) {
        return Err(p.invalid(
            name,
            format!("expected an integer in [{lo}, {hi}], got {v}"),
        ));
    }
    Ok(v)
}

impl FqCodelConfig {
    /// Reads and checks the parameters.
    pub fn from_params(p: &Params) -> Result<Self, ConfigError> {
        let limit = match p.size("limit")? {
            Size::Packets(n) if n <= u32::MAX as u64 => n as u32,
            Size::Packets(n) => {
                return Err(p.invalid(
                    "limit",
                    format!("expected at most {} packets, got {n}", u32::MAX),
                ))
            }
            Size::Bytes(_) => {
                return Err(p.invalid(
                    "limit",
                    format!(
                        "expected a packet count like \"10240p\" (bytes are limited by memory_limit), got {:?}",
                        p.raw_value("limit")
                    ),
                ))
            }
        };
        let flows = int_in(p, "flows", 1, 65536)? as u32;
        let quantum = p.bytes("quantum")?;
        if !(256..=1 << 20).contains(&quantum) {
            return Err(p.invalid(
                "quantum",
                format!("expected 256 to 1048576 bytes, got {quantum}"),
            ));
        }
        let memory_limit = p.bytes("memory_limit")?;
        if memory_limit == 0 {
            return Err(p.invalid("memory_limit", "expected a byte count > 0, got 0"));
        }
        let drop_batch = int_in(p, "drop_batch", 1, u32::MAX as u64)? as u32;
        let codel = codel::codel_params_from(p)?;
        // `auto`: variant=ns3 selects ns-3 3.37's rule on each point, rfc and linux Linux's
        // (docs/models/fq_codel.md, "Linux's rules and ns-3's").
        let ns3 = codel.variant == Variant::Ns3;
        let mtu_scope = match p.choice("mtu_scope", &["auto", "total", "flow"])? {
            0 if ns3 => MtuScope::Flow,
            0 | 1 => MtuScope::Total,
            _ => MtuScope::Flow,
        };
        let empty_new_flow =
            match p.choice("empty_new_flow", &["auto", "old", "remove_if_no_old"])? {
                0 if ns3 => EmptyNewFlow::Old,
                0 | 2 => EmptyNewFlow::RemoveIfNoOld,
                _ => EmptyNewFlow::Old,
            };
        let overflow_count = match p.choice("overflow_count", &["auto", "bump", "keep"])? {
            0 if ns3 => OverflowCount::Keep,
            0 | 1 => OverflowCount::Bump,
            _ => OverflowCount::Keep,
        };
        let fattest_tie =
            match p.choice("fattest_tie", &["auto", "lowest_bucket", "first_created"])? {
                0 if ns3 => FattestTie::FirstCreated,
                0 | 1 => FattestTie::LowestBucket,
                _ => FattestTie::FirstCreated,
            };
        let flow_limit = match p.choice("flow_limit", &["auto", "none", "limit"])? {
            0 => ns3,
            1 => false,
            _ => true,
        };
        let hash =
            [FlowHash::FlowId, FlowHash::Perturbed][p.choice("hash", &["flow_id", "perturbed"])?];
        Ok(FqCodelConfig {
            limit,
            flows,
            quantum: quantum as u32,
            memory_limit,
            drop_batch,
            mtu_scope,
            empty_new_flow,
            overflow_count,
            fattest_tie,
            flow_limit,
            hash,
            codel,
        })
    }
}

/// Which scheduling list a flow queue is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowList {
    /// On neither list: its next packet makes it a new flow.
    Inactive,
    /// On the new list (served first).
    New,
    /// On the old list.
    Old,
}

/// A snapshot of one flow queue, for tests and tracing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowInfo {
    /// Packets and bytes queued in this flow.
    pub backlog: Backlog,
    /// DRR deficit (credits) in bytes; may be negative.
    pub deficit: i64,
    /// Which list the queue is on.
    pub list: FlowList,
    /// Its CoDel state.
    pub codel: CodelState,
}

/// End of an intrusive list.
const NIL: u32 = u32::MAX;

/// One flow queue: packets, DRR deficit, list link, CoDel state (RFC 8290 §5.1).
#[derive(Clone, Debug)]
struct Flow {
    q: PacketFifo,
    deficit: i64,
    /// Next queue on the same list, or [`NIL`].
    next: u32,
    list: FlowList,
    codel: CodelState,
    /// Order in which the queue received its first packet (0, 1, …), or [`NIL`] before that:
    /// ns-3's class index, for [`FattestTie::FirstCreated`].
    created: u32,
}

impl Flow {
    fn new() -> Self {
        Flow {
            q: PacketFifo::default(),
            deficit: 0,
            next: NIL,
            list: FlowList::Inactive,
            codel: CodelState::new(),
            created: NIL,
        }
    }
}

/// A FIFO list of flow queues, linked through [`Flow::next`].
#[derive(Clone, Copy, Debug)]
struct List {
    head: u32,
    tail: u32,
    len: u32,
}

impl List {
    const EMPTY: List = List {
        head: NIL,
        tail: NIL,
        len: 0,
    };

    #[inline]
    fn push_back(&mut self, flows: &mut [Flow], i: u32, tag: FlowList) {
        let f = &mut flows[i as usize];
        f.next = NIL;
        f.list = tag;
        if self.tail == NIL {
            self.head = i;
        } else {
            flows[self.tail as usize].next = i;
        }
        self.tail = i;
        self.len += 1;
    }

    /// Unlinks the head (the list must not be empty) and marks it inactive.
    #[inline]
    fn pop_front(&mut self, flows: &mut [Flow]) -> u32 {
        let i = self.head;
        debug_assert!(i != NIL, "pop from an empty flow list");
        let f = &mut flows[i as usize];
        self.head = f.next;
        f.next = NIL;
        f.list = FlowList::Inactive;
        if self.head == NIL {
            self.tail = NIL;
        }
        self.len -= 1;
        i
    }
}

/// The view of one flow queue that the shared CoDel loop pops from: popping also updates the
/// discipline's totals, and the MTU test sees the bytes `scope` says.
struct FlowQueue<'a> {
    q: &'a mut PacketFifo,
    backlog: &'a mut Backlog,
    active: &'a mut u32,
    scope: MtuScope,
}

impl CodelQueue for FlowQueue<'_> {
    #[inline]
    fn pop(&mut self, _dropping: bool) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.backlog.packets -= 1;
        self.backlog.bytes -= p.size_bytes as u64;
        if self.q.is_empty() {
            *self.active -= 1;
        }
        Some(p)
    }
    #[inline]
    fn bytes_for_mtu_test(&self) -> u64 {
        match self.scope {
            MtuScope::Total => self.backlog.bytes,
            MtuScope::Flow => self.q.bytes(),
        }
    }
}

/// splitmix64's finaliser: a bijective 64-bit mix with full avalanche.
#[inline]
fn mix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The FQ-CoDel discipline.
#[derive(Debug)]
pub struct FqCodel {
    cfg: FqCodelConfig,
    flows: Vec<Flow>,
    new_flows: List,
    old_flows: List,
    /// Totals over all queues.
    backlog: Backlog,
    /// Queues holding at least one packet.
    active: u32,
    /// Times a queue joined the new list (Linux `new_flow_count`).
    new_flow_count: u64,
    /// Salt of the `perturbed` hash (0 with `hash=flow_id`).
    perturbation: u64,
    /// Queues that have ever held a packet (the next [`Flow::created`] rank).
    created: u32,
    uniforms: UniformSource,
}

impl FqCodel {
    /// Builds the discipline, allocating its `flows` queues. With `hash=perturbed` one draw is
    /// taken from `uniforms` for the hash salt; otherwise `uniforms` is not used.
    pub fn new(cfg: FqCodelConfig, mut uniforms: UniformSource) -> Self {
        let perturbation = match cfg.hash {
            FlowHash::FlowId => 0,
            // U(0,1) has 53 random bits; scaled to the u64 range (the cast saturates at 1.0).
            FlowHash::Perturbed => (uniforms.next_f64() * 18_446_744_073_709_551_616.0) as u64,
        };
        FqCodel {
            flows: (0..cfg.flows).map(|_| Flow::new()).collect(),
            cfg,
            new_flows: List::EMPTY,
            old_flows: List::EMPTY,
            backlog: Backlog::default(),
            active: 0,
            new_flow_count: 0,
            perturbation,
            created: 0,
            uniforms,
        }
    }

    /// The random source (drawn from once, at construction, with `hash=perturbed`).
    pub fn uniforms(&self) -> &UniformSource {
        &self.uniforms
    }

    /// The configuration.
    pub fn config(&self) -> &FqCodelConfig {
        &self.cfg
    }

    /// The queue (bucket, `0..flows`) that packets of `flow` join (RFC 8290 §4.1).
    #[inline]
    pub fn bucket_of(&self, flow: FlowId) -> usize {
        match self.cfg.hash {
            FlowHash::FlowId => (flow.0 % self.cfg.flows) as usize,
            FlowHash::Perturbed => {
                let h = mix64(flow.0 as u64 ^ self.perturbation) >> 32;
                ((h * self.cfg.flows as u64) >> 32) as usize
            }
        }
    }

    /// A snapshot of queue `bucket`, or `None` if `bucket >= flows`.
    pub fn flow(&self, bucket: usize) -> Option<FlowInfo> {
        self.flows.get(bucket).map(|f| FlowInfo {
            backlog: f.q.backlog(),
            deficit: f.deficit,
            list: f.list,
            codel: f.codel,
        })
    }

    /// The buckets on `list`, head first (empty for [`FlowList::Inactive`]).
    pub fn flows_on(&self, list: FlowList) -> impl Iterator<Item = usize> + '_ {
        let mut i = match list {
            FlowList::New => self.new_flows.head,
            FlowList::Old => self.old_flows.head,
            FlowList::Inactive => NIL,
        };
        std::iter::from_fn(move || {
            if i == NIL {
                return None;
            }
            let cur = i;
            i = self.flows[cur as usize].next;
            Some(cur as usize)
        })
    }

    /// Overflow (RFC 8290 §4.1, §5.2.3; Linux `fq_codel_drop`, ns-3 `FqCoDelDrop`): drops from
    /// the head of the queue with the most bytes until `drop_batch` packets or half its bytes are
    /// gone, and (`overflow_count=bump`) adds the number dropped to its CoDel count.
    fn drop_from_fattest(&mut self, reason: DropReason, cx: &mut QdiscCx) {
        // Linear scan over the queues on the lists (every non-empty queue is on one). Linux scans
        // all buckets in index order, ns-3 its flow classes in creation order, and both keep the
        // first strict maximum: ties go to the lower bucket or the earlier-created queue.
        // Zero-byte packets are allowed, so "non-empty" is tested on packets.
        let by_creation = self.cfg.fattest_tie == FattestTie::FirstCreated;
        let mut fat = NIL;
        let mut fat_rank = NIL;
        let mut fat_bytes = 0u64;
        for head in [self.new_flows.head, self.old_flows.head] {
            let mut i = head;
            while i != NIL {
                let f = &self.flows[i as usize];
                let b = f.q.bytes();
                let rank = if by_creation { f.created } else { i };
                if !f.q.is_empty()
                    && (fat == NIL || b > fat_bytes || (b == fat_bytes && rank < fat_rank))
                {
                    fat = i;
                    fat_rank = rank;
                    fat_bytes = b;
                }
                i = f.next;
            }
        }
        debug_assert!(fat != NIL, "overflow with no packet queued");
        if fat == NIL {
            return;
        }
        let threshold = fat_bytes / 2;
        let f = &mut self.flows[fat as usize];
        let mut dropped = 0u32;
        let mut len = 0u64;
        while let Some(p) = f.q.pop_front() {
            self.backlog.packets -= 1;
            self.backlog.bytes -= p.size_bytes as u64;
            len += p.size_bytes as u64;
            dropped += 1;
            cx.drop(p, Stage::Enqueue, reason);
            if dropped >= self.cfg.drop_batch || len >= threshold {
                break;
            }
        }
        if f.q.is_empty() {
            self.active -= 1;
        }
        // The queue stays on its list even if emptied; dequeue unlinks it (Linux, ns-3).
        if self.cfg.overflow_count == OverflowCount::Bump {
            f.codel.bump_count(dropped);
        }
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, _now: SimTime, pkt: Packet, cx: &mut QdiscCx) {
        // RFC 8290 §4.1: classify, append, and make an idle queue a new flow with one quantum.
        let i = self.bucket_of(pkt.flow);
        let f = &mut self.flows[i];
        if f.created == NIL {
            // ns-3 creates the queue's class now (FqCoDelQueueDisc::DoEnqueue).
            f.created = self.created;
            self.created += 1;
        }
        if self.cfg.flow_limit && f.q.len() >= self.cfg.limit as usize {
            // ns-3 3.37: each flow is a child CoDelQueueDisc whose MaxSize is the parent's limit,
            // and it refuses the arrival (tail drop) before FqCoDel's overflow rule looks at the
            // total, which then does not exceed the limit. A queue holding packets is on a list
            // already, so ns-3's "make an inactive flow new" step changes nothing here. (The
            // memory test below still runs; ns-3 has no memory limit.)
            cx.drop(pkt, Stage::Enqueue, DropReason::Overlimit);
        } else {
            if f.q.is_empty() {
                self.active += 1;
            }
            f.q.push_back(pkt);
            self.backlog.packets += 1;
            self.backlog.bytes += pkt.size_bytes as u64;
            if f.list == FlowList::Inactive {
                f.deficit = self.cfg.quantum as i64;
                self.new_flows
                    .push_back(&mut self.flows, i as u32, FlowList::New);
                self.new_flow_count += 1;
            }
        }
        // Limits are checked after the packet is in, so the arrival may itself be dropped.
        let over_memory = self.backlog.bytes > self.cfg.memory_limit;
        if self.backlog.packets > self.cfg.limit || over_memory {
            // Linux counts every such drop in drop_overlimit and, when over memory, also in
            // drop_overmemory: report the more specific reason.
            let reason = if over_memory {
                DropReason::FqMemoryFattest
            } else {
                DropReason::FqOverlimitFattest
            };
            self.drop_from_fattest(reason, cx);
        }
    }

    fn dequeue(&mut self, now: SimTime, cx: &mut QdiscCx) -> Option<Packet> {
        let quantum = self.cfg.quantum as i64;
        loop {
            // RFC 8290 §4.2: the new list first, then the old list.
            let from_new = self.new_flows.head != NIL;
            let i = if from_new {
                self.new_flows.head
            } else if self.old_flows.head != NIL {
                self.old_flows.head
            } else {
                return None;
            };
            let flows = &mut self.flows;
            if flows[i as usize].deficit <= 0 {
                // Credits used up: one more quantum, and to the back of the old list.
                flows[i as usize].deficit += quantum;
                if from_new {
                    self.new_flows.pop_front(flows);
                } else {
                    self.old_flows.pop_front(flows);
                }
                self.old_flows.push_back(flows, i, FlowList::Old);
                continue;
            }
            let f = &mut flows[i as usize];
            let mut q = FlowQueue {
                q: &mut f.q,
                backlog: &mut self.backlog,
                active: &mut self.active,
                scope: self.cfg.mtu_scope,
            };
            if let Some(p) = f.codel.dequeue(now, &self.cfg.codel, &mut q, cx) {
                f.deficit -= p.size_bytes as i64;
                return Some(p);
            }
            // The queue is empty (CoDel may have dropped its last packets). An emptied new queue
            // goes to the back of the old list so it cannot starve old queues by re-entering as
            // new (RFC 8290 §4.2, ns-3); Linux skips this when there is no old queue to starve
            // (`empty_new_flow=remove_if_no_old`), and the queue leaves the lists.
            if from_new {
                self.new_flows.pop_front(flows);
                if self.old_flows.len > 0 || self.cfg.empty_new_flow == EmptyNewFlow::Old {
                    self.old_flows.push_back(flows, i, FlowList::Old);
                }
            } else {
                self.old_flows.pop_front(flows);
            }
        }
    }

    fn backlog(&self) -> Backlog {
        self.backlog
    }

    fn visit_state(&self, visit: &mut dyn FnMut(&'static str, f64)) {
        visit("new_flows", self.new_flows.len as f64);
        visit("old_flows", self.old_flows.len as f64);
        visit("active_flows", self.active as f64);
        visit("backlog_packets", self.backlog.packets as f64);
        visit("backlog_bytes", self.backlog.bytes as f64);
        visit("new_flow_count", self.new_flow_count as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_codel_parameters_have_codel_specs() {
        for name in [
            "target",
            "interval",
            "mtu",
            "ce_threshold",
            "variant",
            "ecn",
        ] {
            let ours = PARAMS.iter().find(|s| s.name == name).unwrap();
            let theirs = codel::PARAMS.iter().find(|s| s.name == name).unwrap();
            assert_eq!((ours.kind, ours.help), (theirs.kind, theirs.help), "{name}");
            if name == "ecn" {
                assert_eq!(ours.default, "true");
            } else {
                assert_eq!(ours.default, theirs.default, "{name}");
            }
        }
    }

    #[test]
    fn lists_push_and_pop_in_order() {
        let mut flows: Vec<Flow> = (0..4).map(|_| Flow::new()).collect();
        let mut l = List::EMPTY;
        for i in [2, 0, 3] {
            l.push_back(&mut flows, i, FlowList::Old);
        }
        assert_eq!(l.len, 3);
        assert_eq!(flows[0].list, FlowList::Old);
        assert_eq!(l.pop_front(&mut flows), 2);
        l.push_back(&mut flows, 2, FlowList::Old);
        let order: Vec<u32> =
            std::iter::from_fn(|| (l.len > 0).then(|| l.pop_front(&mut flows))).collect();
        assert_eq!(order, [0, 3, 2]);
        assert_eq!((l.head, l.tail), (NIL, NIL));
        assert!(flows.iter().all(|f| f.list == FlowList::Inactive));
    }
}
