//! Fuzz bodies, shared by the cargo-fuzz targets in `fuzz/` and by a stable-Rust test that feeds
//! them random bytes. Each must never panic on any input: bad schedules are `Err`s, and the
//! disciplines keep their invariants (conservation is `debug_assert!`ed by [`Qdisc`]) whatever
//! the sequence of calls.

use crate::registry::{self, Kind};
use crate::replay;
use crate::stats::Qdisc;
use crate::uniform::UniformSource;
use aqmlab_core::{Ecn, FlowId, Packet, SimTime};

/// Parses arbitrary bytes as a schedule; replays it through CoDel when it parses.
pub fn schedule_parser(data: &[u8]) {
    if let Ok(rows) = replay::parse_schedule(data) {
        let mut q = Qdisc::new(
            registry::build("codel", &[], UniformSource::seeded(1)).expect("defaults build"),
        );
        let out = replay::replay(&mut q, &rows, true).expect("no uniforms list, cannot run out");
        assert_eq!(
            out.decisions.len(),
            rows.iter().filter(|r| r.op == replay::Op::Enq).count()
        );
    }
}

/// Small parameter sets per discipline that make every code path reachable with few packets.
const CONFIGS: &[(&str, &[&str])] = &[
    ("droptail", &["limit=8p"]),
    ("droptail", &["limit=6000B", "head_drop=true"]),
    (
        "red",
        &[
            "limit=16p",
            "mode=packet",
            "min_th=2",
            "max_th=6",
            "w_q=0.2",
            "bandwidth=10Mbps",
        ],
    ),
    (
        "red",
        &[
            "limit=20000B",
            "mode=byte",
            "min_th=2000",
            "max_th=6000",
            "w_q=0.1",
            "ecn=true",
            "gentle=false",
        ],
    ),
    (
        "codel",
        &["limit=16p", "target=1ms", "interval=4ms", "variant=rfc"],
    ),
    (
        "codel",
        &[
            "limit=16p",
            "target=1ms",
            "interval=4ms",
            "variant=linux",
            "ecn=true",
            "ce_threshold=500us",
        ],
    ),
    (
        "codel",
        &["limit=16p", "target=1ms", "interval=4ms", "variant=ns3"],
    ),
    (
        "pie",
        &[
            "limit=16p",
            "target=1ms",
            "t_update=1ms",
            "burst_allowance=2ms",
        ],
    ),
    (
        "pie",
        &[
            "limit=16p",
            "target=1ms",
            "t_update=1ms",
            "derandomize=true",
            "ecn=true",
        ],
    ),
    (
        "fq_codel",
        &[
            "limit=16p",
            "flows=4",
            "quantum=300",
            "target=1ms",
            "interval=4ms",
        ],
    ),
    (
        "fq_codel",
        &[
            "limit=16p",
            "flows=3",
            "quantum=256",
            "memory_limit=5000B",
            "hash=perturbed",
        ],
    ),
    (
        // ns-3's rules: emptied new flows parked, no count bump, creation-order ties, the
        // per-flow limit (reachable with 6 packets in one queue), per-flow MTU test.
        "fq_codel",
        &[
            "limit=6p",
            "flows=3",
            "quantum=256",
            "target=1ms",
            "interval=4ms",
            "variant=ns3",
            "drop_batch=2",
        ],
    ),
    (
        // L4S mode: ECT(1)/CE heads bypass the control law.
        "codel",
        &[
            "limit=16p",
            "target=1ms",
            "interval=4ms",
            "variant=ns3",
            "ecn=true",
            "l4s=true",
            "ce_threshold=200us",
        ],
    ),
    (
        "fq_codel",
        &[
            "limit=8p",
            "flows=3",
            "quantum=256",
            "target=1ms",
            "interval=4ms",
            "l4s=true",
            "ce_threshold=200us",
        ],
    ),
    (
        // One PIE per flow, each with its own timer and stream; ns-3's rules.
        "fq_pie",
        &[
            "limit=8p",
            "flows=3",
            "quantum=256",
            "target=1ms",
            "t_update=1ms",
            "burst_allowance=2ms",
            "drop_batch=2",
        ],
    ),
    (
        "fq_pie",
        &[
            "limit=16p",
            "flows=4",
            "quantum=300",
            "target=1ms",
            "t_update=1ms",
            "ecn=true",
            "derandomize=true",
            "estimator=dq_rate",
            "dq_threshold=2000",
            "memory_limit=6000B",
        ],
    ),
    (
        // BLUE active from the start (a draw per examined packet).
        "cobalt",
        &[
            "limit=8p",
            "target=1ms",
            "interval=4ms",
            "pdrop=0.2",
            "increment=0.1",
            "decrement=0.05",
            "blue_threshold=5ms",
        ],
    ),
    (
        "cobalt",
        &[
            "limit=3000B",
            "target=1ms",
            "interval=4ms",
            "ecn=true",
            "ce_threshold=500us",
        ],
    ),
    (
        "cobalt",
        &[
            "limit=16p",
            "target=1ms",
            "interval=4ms",
            "l4s=true",
            "ce_threshold=200us",
        ],
    ),
    (
        "fq_cobalt",
        &[
            "limit=8p",
            "flows=3",
            "quantum=256",
            "target=1ms",
            "interval=4ms",
            "pdrop=0.1",
            "blue_threshold=3ms",
            "drop_batch=2",
        ],
    ),
    (
        "lstf_codel",
        &[
            "limit=16p",
            "target=1ms",
            "interval=4ms",
            "order=as_described",
        ],
    ),
    (
        "lstf_codel",
        &[
            "limit=16p",
            "target=1ms",
            "interval=4ms",
            "order=as_coded",
            "alpha=0.9",
        ],
    ),
];

/// DualPI2 configurations for [`dualpi2_ops`]: both variants, small buffers and a short
/// `tupdate` so that updates, overload, the step and the scheduler are all reached quickly.
const DUALPI2_CONFIGS: &[&[&str]] = &[
    &["limit=12p", "tupdate=1ms", "target=1ms", "beta=40"],
    &[
        "limit=12p",
        "tupdate=1ms",
        "target=1ms",
        "drop_at=enqueue",
        "drop_on_overload=false",
        "mtu=200",
    ],
    &[
        "limit=9000B",
        "tupdate=1ms",
        "step_thresh=2p",
        "ecn_mask=any_ect",
        "min_qlen_step=1",
        "mtu=100",
    ],
    &[
        "limit=12p",
        "tupdate=1ms",
        "target=1ms",
        "variant=rfc",
        "beta=40",
        "step_thresh=100us",
        "step_range=400us",
    ],
    &[
        "limit=12p",
        "tupdate=1ms",
        "variant=rfc",
        "coupling_factor=1",
        "classic_protection=0",
        "beta=100",
    ],
    &[
        "limit=12p",
        "max_rtt=5ms",
        "classic_protection=100",
        "coupling_factor=4",
    ],
];

/// Like [`qdisc_ops`] for DualPI2, checking its own invariants as well: a delivered packet keeps
/// its codepoint or became CE from ECT, each of the two queues is FIFO, and a mark is reported
/// only for an ECN-capable packet.
pub fn dualpi2_ops(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let params = DUALPI2_CONFIGS[sel as usize % DUALPI2_CONFIGS.len()];
    let q = build("dualpi2", params, sel);
    let any_ect = params.contains(&"ecn_mask=any_ect");
    let mut q = Qdisc::new(q);
    let mut now = 0u64;
    let mut sent: Vec<Ecn> = Vec::new();
    let (mut last_l, mut last_c) = (None::<u64>, None::<u64>);
    for c in rest.chunks_exact(4) {
        now += (c[3] as u64) * (c[3] as u64) * 1000;
        let t = SimTime::from_nanos(now);
        if c[0] & 1 == 0 {
            let size = (u16::from_be_bytes([c[1], c[2]]) % 1500) as u32 + 1;
            let mut p = Packet::new(sent.len() as u64, size, FlowId(0));
            p.ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][((c[0] >> 1) & 3) as usize];
            sent.push(p.ecn);
            q.enqueue(t, p);
        } else if let Some(p) = q.dequeue(t) {
            let orig = sent[p.id as usize];
            assert!(p.ecn == orig || (p.ecn == Ecn::Ce && orig.is_ect()));
            let to_l = matches!(orig, Ecn::Ect1 | Ecn::Ce) || (any_ect && orig == Ecn::Ect0);
            let last = if to_l { &mut last_l } else { &mut last_c };
            assert!(last.is_none_or(|l| l < p.id), "each queue is FIFO");
            *last = Some(p.id);
        }
        for e in q.events() {
            if let crate::QdiscEvent::Marked { pkt, .. } = e {
                assert!(sent[pkt.id as usize].is_ect());
            }
        }
        assert!(q.conserved());
    }
}

/// The first byte picks a discipline configuration; every following 4 bytes are one call:
/// `[op|flow|ecn, size_hi, size_lo, dt]` (enqueue or dequeue, after `dt²·1000` ns).
/// The discipline `kind` with one of the fuzzer's fixed `NAME=VALUE` configurations, seeded by
/// the configuration's selector byte; every configuration must build.
fn build(kind: &str, params: &[&str], sel: u8) -> crate::AnyQdisc {
    crate::Params::split_pairs(params)
        .and_then(|pairs| registry::build(kind, &pairs, UniformSource::seeded(sel as u64)))
        .unwrap_or_else(|e| panic!("fuzz configuration for {kind} must build: {params:?}: {e}"))
}

pub fn qdisc_ops(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let (kind, params) = CONFIGS[sel as usize % CONFIGS.len()];
    let q = build(kind, params, sel);
    debug_assert!(Kind::from_name(kind).is_ok());
    let mut q = Qdisc::new(q);
    let mut now = 0u64;
    let mut id = 0u64;
    let mut left = 0u64; // packets that have not yet had a fate
    for c in rest.chunks_exact(4) {
        now += (c[3] as u64) * (c[3] as u64) * 1000;
        let t = SimTime::from_nanos(now);
        if c[0] & 1 == 0 {
            let size = (u16::from_be_bytes([c[1], c[2]]) % 1500) as u32 + 1;
            let mut p = Packet::new(id, size, FlowId(((c[0] >> 1) & 7) as u32));
            p.ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][((c[0] >> 4) & 3) as usize];
            id += 1;
            left += 1;
            q.enqueue(t, p);
        } else if let Some(p) = q.dequeue(t) {
            assert!(p.enqueue_ns <= now);
            left -= 1;
        }
        left -= q
            .events()
            .iter()
            .filter(|e| matches!(e, crate::QdiscEvent::Dropped { .. }))
            .count() as u64;
        assert!(q.conserved());
        assert_eq!(left, q.backlog().packets as u64);
    }
}

/// CAKE configurations for [`cake_ops`]: shaped and unshaped, every isolation mode, the tin
/// layouts, framing, and a memory limit small enough to overflow.
const CAKE_CONFIGS: &[&[&str]] = &[
    &["memlimit=6000"],
    &[
        "bandwidth=2Mbps",
        "overhead=18",
        "atm=atm",
        "memlimit=20000",
    ],
    &[
        "bandwidth=5Mbps",
        "atm=ptm",
        "mpu=64",
        "diffserv=diffserv4",
        "flow_mode=dual-srchost",
    ],
    &[
        "flow_mode=dual-dsthost",
        "diffserv=besteffort",
        "memlimit=9000",
        "target=1ms",
        "rtt=4ms",
    ],
    &["flow_mode=flowblind", "memlimit=5000"],
    &["flow_mode=srchost", "bandwidth=1Mbps", "overhead=-20"],
    &["flow_mode=hosts", "hash=perturbed", "memlimit=12000"],
    &[
        "flow_mode=flows",
        "bandwidth=64kbps",
        "memlimit=4000",
        "target=1ms",
        "rtt=2ms",
    ],
];

/// Like [`qdisc_ops`] for CAKE, with DSCP and host numbers drawn from the input, and its own
/// invariants: packets of one queue leave in order, a refused dequeue with packets queued names
/// a later time, and an unshaped CAKE never refuses while it holds packets.
/// Calls as [`qdisc_ops`]: `[op|flow|ecn, size_hi, size_lo, dt]`; hosts and DSCP are the flow's.
pub fn cake_ops(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let params = CAKE_CONFIGS[sel as usize % CAKE_CONFIGS.len()];
    let q = build("cake", params, sel);
    let shaped = params.iter().any(|p| p.starts_with("bandwidth"));
    let mut q = Qdisc::new(q);
    let mut now = 0u64;
    let mut id = 0u64;
    let mut last_of_flow = [None::<u64>; 8];
    for c in rest.chunks_exact(4) {
        now += (c[3] as u64) * (c[3] as u64) * 1000;
        let t = SimTime::from_nanos(now);
        if c[0] & 1 == 0 {
            let flow = ((c[0] >> 1) & 7) as u32;
            let size = (u16::from_be_bytes([c[1], c[2]]) % 1500) as u32 + 1;
            let mut p = Packet::new(id, size, FlowId(flow));
            // Hosts and DSCP follow the flow, so a flow's packets share one queue in every mode.
            p.src_host = (flow % 3) as u16;
            p.dst_host = (flow % 5) as u16;
            p.dscp = [0, 8, 46, 34, 1, 48, 0, 10][flow as usize];
            p.ecn = [Ecn::NotEct, Ecn::Ect0][((c[0] >> 4) & 1) as usize];
            id += 1;
            q.enqueue(t, p);
        } else {
            match q.dequeue(t) {
                Some(p) => {
                    let f = p.flow.0 as usize;
                    assert!(last_of_flow[f].is_none_or(|l| l < p.id), "per-flow FIFO");
                    last_of_flow[f] = Some(p.id);
                }
                None if q.backlog().packets > 0 => {
                    assert!(shaped, "an unshaped CAKE refused with packets queued");
                    let cake = match q.inner() {
                        crate::AnyQdisc::Cake(c) => c,
                        _ => unreachable!(),
                    };
                    let next = cake.next_send_time().expect("a refusal names a time");
                    assert!(next > t);
                }
                None => {}
            }
        }
        assert!(q.conserved());
    }
}

/// CAKE configurations for [`ack_filter_ops`]: each ACK filter mode, unshaped and shaped, with
/// the flow modes, COBALT and the memory limit dropping too.
const ACK_FILTER_CONFIGS: &[&[&str]] = &[
    &["ack_filter=ack-filter", "flow_mode=flows"],
    &["ack_filter=ack-filter-aggressive", "flow_mode=flows"],
    &["ack_filter=no-ack-filter", "flow_mode=flows"],
    &[
        "ack_filter=ack-filter",
        "memlimit=3000",
        "target=1ms",
        "rtt=4ms",
    ],
    &[
        "ack_filter=ack-filter-aggressive",
        "bandwidth=1Mbps",
        "flow_mode=flows",
        "memlimit=5000",
    ],
    &[
        "ack_filter=ack-filter-aggressive",
        "diffserv=diffserv4",
        "flow_mode=flows",
        "target=1ms",
        "rtt=2ms",
    ],
];

/// CAKE with its ACK filter under arbitrary TCP headers. Calls are 5 bytes,
/// `[op|flow|conn|pure, flags, ack_step, size, dt]`: op bit 0 clear enqueues a packet of flow
/// `bits 1-3`, connection `bit 4`; with bit 5 set it is a pure ACK (ACK plus `flags`' ECN
/// feedback bits), else `flags` are [`aqmlab_core::TcpHint`]'s bits as given. Each connection's ACK number
/// moves by `ack_step - 64` (so it also goes back), starting just below 2^32 so serial
/// arithmetic wraps. Against a shadow copy of every flow's queue it checks the filter's rules
/// (module `cake::ack_filter`): only an enqueue drops an ACK, at most one, never with the filter
/// off; the dropped packet is an older pure ACK without SACK of the trigger's connection, not
/// acknowledging beyond it, the trigger being an ACK without SYN; the conservative filter keeps
/// another such ACK with the dropped one's ECN bits, and the aggressive one otherwise only drops
/// the packet just ahead of the trigger with the trigger's ECN bits. Returns how many ACKs the
/// filter dropped.
pub fn ack_filter_ops(data: &[u8]) -> u64 {
    use crate::cake::AckFilter;
    use crate::contract::{DropReason, QdiscEvent, Stage};
    use aqmlab_core::TcpHint;
    use std::collections::VecDeque;

    let Some((&sel, rest)) = data.split_first() else {
        return 0;
    };
    let params = ACK_FILTER_CONFIGS[sel as usize % ACK_FILTER_CONFIGS.len()];
    let q = build("cake", params, sel);
    let mode = match &q {
        crate::AnyQdisc::Cake(c) => c.config().ack_filter,
        _ => unreachable!(),
    };
    let mut q = Qdisc::new(q);
    // Flows' queues as they should be (each flow has its own queue: its own tin and hash).
    let mut shadow: [VecDeque<Packet>; 8] = Default::default();
    let mut ack = [u32::MAX - 300; 16];
    let (mut now, mut id) = (0u64, 0u64);
    let remove = |shadow: &mut [VecDeque<Packet>; 8], p: &Packet| {
        let s = &mut shadow[p.flow.0 as usize];
        let k = s
            .iter()
            .position(|x| x.id == p.id)
            .expect("a queued packet");
        s.remove(k);
    };
    let pure = |h: TcpHint| h.bits & !TcpHint::ECN_FEEDBACK == TcpHint::ACK;
    let mut total = 0;
    for c in rest.chunks_exact(5) {
        now += (c[4] as u64) * (c[4] as u64) * 1000;
        let t = SimTime::from_nanos(now);
        if c[0] & 1 == 0 {
            let flow = ((c[0] >> 1) & 7) as usize;
            let conn = ((c[0] >> 4) & 1) as u16;
            let a = &mut ack[flow * 2 + conn as usize];
            *a = a.wrapping_add(c[2] as u32).wrapping_sub(64);
            let bits = if c[0] & 0x20 != 0 {
                TcpHint::ACK | (c[1] as u16 & TcpHint::ECN_FEEDBACK)
            } else {
                c[1] as u16
            };
            let size = if bits & TcpHint::DATA != 0 {
                c[3] as u32 * 5 + 41
            } else {
                40
            };
            let mut p = Packet::new(id, size, FlowId(flow as u32));
            p.src_host = (flow % 3) as u16;
            p.dst_host = (flow % 5) as u16;
            // One tin per flow under diffserv4 too: the DSCP follows the flow.
            p.dscp = [0, 8, 46, 34, 0, 10, 0, 8][flow];
            p.ecn = [Ecn::NotEct, Ecn::Ect0][((c[3]) & 1) as usize];
            p.tcp = TcpHint {
                ack: *a,
                bits,
                conn,
            };
            id += 1;
            shadow[flow].push_back(p);
            q.enqueue(t, p);
            let trig = p.tcp;
            let mut filtered = 0;
            for e in q.events() {
                let QdiscEvent::Dropped { pkt: d, reason, .. } = e else {
                    continue;
                };
                if *reason != DropReason::AckFilter {
                    continue;
                }
                filtered += 1;
                assert!(mode != AckFilter::Off, "an ACK dropped with the filter off");
                assert!(trig.bits & (TcpHint::ACK | TcpHint::SYN) == TcpHint::ACK);
                assert!(d.id < p.id && d.flow == p.flow && d.tcp.conn == conn);
                assert!(pure(d.tcp), "only a pure ACK without SACK: {:?}", d.tcp);
                assert!(!d.tcp.ack_after(trig), "it acknowledges beyond the trigger");
                let s = &shadow[flow];
                let k = s.iter().position(|x| x.id == d.id).expect("queued");
                let fb = d.tcp.bits & TcpHint::ECN_FEEDBACK;
                let another = s.iter().enumerate().any(|(j, x)| {
                    j != k
                        && x.id != p.id
                        && x.tcp.conn == conn
                        && pure(x.tcp)
                        && x.tcp.bits & TcpHint::ECN_FEEDBACK == fb
                        && !x.tcp.ack_after(trig)
                });
                let just_ahead = k + 2 == s.len() && fb == trig.bits & TcpHint::ECN_FEEDBACK;
                assert!(
                    another || (mode == AckFilter::Aggressive && just_ahead),
                    "{mode:?} dropped ACK {:?} with no other like it queued",
                    d.tcp
                );
            }
            assert!(filtered <= 1, "one ACK at most per enqueue");
            total += filtered;
            for e in q.events() {
                if let QdiscEvent::Dropped { pkt, .. } = e {
                    remove(&mut shadow, pkt);
                }
            }
        } else {
            let out = q.dequeue(t);
            for e in q.events() {
                if let QdiscEvent::Dropped { pkt, stage, reason } = e {
                    assert!(*reason != DropReason::AckFilter && *stage == Stage::Dequeue);
                    remove(&mut shadow, pkt);
                }
            }
            if let Some(p) = out {
                let s = &mut shadow[p.flow.0 as usize];
                assert_eq!(s.front().map(|x| x.id), Some(p.id), "per-flow FIFO");
                s.pop_front();
            }
        }
        assert!(q.conserved());
        let queued: usize = shadow.iter().map(VecDeque::len).sum();
        assert_eq!(queued, q.backlog().packets as usize);
    }
    total
}
