//! DualPI2 (RFC 9332) through the public API: invariants under random calls, and a replayed
//! overload of ECT(1) and Not-ECT traffic (the rules themselves, with exact values, are tested
//! in `src/dualpi2/tests.rs`).

use aqmlab_core::{Ecn, FlowId, Packet, SimTime};
use aqmlab_qdisc::replay::{self, Outcome};
use aqmlab_qdisc::{registry, Params, Qdisc, QdiscEvent, UniformSource};
use proptest::prelude::*;
use std::collections::BTreeMap;

const CONFIGS: &[&[&str]] = &[
    &["limit=20p", "tupdate=1ms", "target=1ms"],
    &[
        "limit=20p",
        "tupdate=1ms",
        "target=1ms",
        "drop_at=enqueue",
        "drop_on_overload=false",
    ],
    &[
        "limit=20000B",
        "tupdate=1ms",
        "target=1ms",
        "step_thresh=2p",
        "ecn_mask=any_ect",
        "min_qlen_step=1",
    ],
    &[
        "limit=20p",
        "tupdate=1ms",
        "target=1ms",
        "variant=rfc",
        "step_thresh=200us",
        "step_range=300us",
    ],
    &[
        "limit=20p",
        "tupdate=1ms",
        "target=1ms",
        "variant=rfc",
        "coupling_factor=1",
        "classic_protection=0",
    ],
    &[
        "limit=20p",
        "tupdate=1ms",
        "target=1ms",
        "classic_protection=100",
        "beta=50",
    ],
];

fn build(cfg: &[&str], seed: u64) -> Qdisc<aqmlab_qdisc::AnyQdisc> {
    let pairs = Params::split_pairs(cfg).unwrap();
    Qdisc::new(registry::build("dualpi2", &pairs, UniformSource::seeded(seed)).unwrap())
}

fn in_l(e: Ecn, any_ect: bool) -> bool {
    matches!(e, Ecn::Ect1 | Ecn::Ce) || (any_ect && e == Ecn::Ect0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Every packet has one fate; a delivered packet keeps its codepoint or becomes CE (only
    /// from ECT); each queue is FIFO; marks are reported exactly for the packets turned CE.
    #[test]
    fn invariants_under_random_calls(
        cfg in 0..CONFIGS.len(),
        ops in prop::collection::vec((0u8..4, 0u8..4, 40u32..1500, 0u64..3_000_000), 1..400),
    ) {
        let any_ect = CONFIGS[cfg].contains(&"ecn_mask=any_ect");
        let mut q = build(CONFIGS[cfg], 7);
        let mut now = 0;
        let mut sent: BTreeMap<u64, Ecn> = BTreeMap::new();
        let (mut last_l, mut last_c) = (None::<u64>, None::<u64>);
        let mut marked = 0u64;
        for (i, (op, e, size, dt)) in ops.into_iter().enumerate() {
            now += dt;
            let t = SimTime::from_nanos(now);
            if op < 2 {
                let mut p = Packet::new(i as u64, size, FlowId(0));
                p.ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][e as usize];
                sent.insert(p.id, p.ecn);
                q.enqueue(t, p);
            } else if let Some(p) = q.dequeue(t) {
                let orig = sent[&p.id];
                prop_assert!(p.ecn == orig || (p.ecn == Ecn::Ce && orig.is_ect()), "{orig:?} -> {:?}", p.ecn);
                let last = if in_l(orig, any_ect) { &mut last_l } else { &mut last_c };
                prop_assert!(last.is_none_or(|l| l < p.id), "queue order");
                *last = Some(p.id);
            }
            for ev in q.events() {
                if let QdiscEvent::Marked { pkt, .. } = ev {
                    prop_assert!(sent[&pkt.id].is_ect());
                    marked += 1;
                }
            }
            prop_assert!(q.conserved());
        }
        prop_assert_eq!(q.stats().marked().packets, marked);
        let s = q.stats();
        prop_assert_eq!(
            s.received.packets,
            s.delivered.packets + s.dropped().packets + q.backlog().packets as u64
        );
    }
}

/// A 10 Mb/s link (1.2 ms per 1500-byte packet) offered 60 % in unresponsive ECT(1) and 60 %
/// in Not-ECT for 4 s: the L queue is served first and keeps a sub-millisecond sojourn, the
/// C queue absorbs the overload, PI2 drops C packets and (past 1/k) L packets too.
fn overload_schedule() -> String {
    let mut s = String::from("t_ns,op,size,flow,ecn\n");
    let end = 4_000_000_000u64;
    let (gap, serve) = (2_000_000u64, 1_200_000u64); // each source: one 1500 B packet per 2 ms
    let mut rows = vec![];
    let mut t = 0;
    while t < end {
        rows.push((t, 0, "enq,1500,1,ect1"));
        rows.push((t + 1000, 0, "enq,1500,2,not_ect"));
        t += gap;
    }
    let mut t = serve;
    while t < end {
        rows.push((t, 1, "deq,0,0,not_ect"));
        t += serve;
    }
    rows.sort_by_key(|r| (r.0, r.1));
    for (t, _, r) in rows {
        s.push_str(&format!("{t},{r}\n"));
    }
    s
}

#[test]
fn overload_of_l4s_and_classic_traffic_replays_deterministically() {
    let rows = replay::parse_schedule(overload_schedule().as_bytes()).unwrap();
    let run = |params: &[&str], seed| {
        let mut q = build(params, seed);
        let out = replay::replay(&mut q, &rows, false).unwrap();
        assert!(q.conserved());
        (out, q.stats().clone())
    };
    for params in [&[][..], &["variant=rfc"][..]] {
        let (out, stats) = run(params, 1);
        let s = out.summary;
        assert_eq!(s.packets, 4000);
        let per = |flow_ect1: bool, f: &dyn Fn(Outcome) -> bool| {
            out.decisions
                .iter()
                .filter(|d| (d.id % 2 == 0) == flow_ect1 && f(d.outcome))
                .count()
        };
        // The L queue (even ids, ECT(1)): sojourns stay short; the C queue's grow towards target.
        let sojourn = |ect1: bool| {
            let mut v: Vec<i64> = out
                .decisions
                .iter()
                .filter(|d| (d.id % 2 == 0) == ect1 && d.deq_t_ns >= 0)
                .filter(|d| matches!(d.outcome, Outcome::Delivered | Outcome::Marked))
                .map(|d| d.deq_t_ns - d.enq_t_ns as i64)
                .collect();
            v.sort();
            v[v.len() / 2]
        };
        assert!(
            sojourn(true) < 2_000_000,
            "{params:?} L median {}",
            sojourn(true)
        );
        assert!(sojourn(false) > 5 * sojourn(true), "{params:?}");
        // Classic traffic pays with drops; L4S traffic with marks.
        assert!(
            per(false, &|o| o == Outcome::DroppedDequeue) > 100,
            "{params:?}"
        );
        assert!(per(true, &|o| o == Outcome::Marked) > 100, "{params:?}");
        assert_eq!(per(true, &|o| o == Outcome::DroppedEnqueue), 0);
        assert_eq!(stats.received.packets, 4000);
        // Same seed, same decisions; the rfc variant draws nothing, so any seed.
        let (again, _) = run(params, if params.is_empty() { 1 } else { 99 });
        assert_eq!(again.decisions, out.decisions);
    }
}
