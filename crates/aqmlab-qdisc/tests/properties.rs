//! Properties every discipline must have on random schedules (proptest):
//! conservation (each packet has exactly one fate, and received = delivered + dropped + backlog
//! after every call), no packet delivered or dropped twice, FIFO order for FIFO disciplines
//! (per flow for FQ-CoDel), sojourn ≥ 0, and a backlog that never exceeds the limit.

use aqmlab_core::{Ecn, FlowId, Packet, SimTime};
use aqmlab_qdisc::{registry, Params, Qdisc, QdiscEvent, UniformSource};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Enq {
        dt_ns: u64,
        size: u32,
        flow: u32,
        ect: bool,
    },
    Deq {
        dt_ns: u64,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u64..3_000_000, 40u32..=1500, 0u32..6, any::<bool>()).prop_map(
            |(dt_ns, size, flow, ect)| Op::Enq {
                dt_ns,
                size,
                flow,
                ect
            }
        ),
        (0u64..3_000_000).prop_map(|dt_ns| Op::Deq { dt_ns }),
    ]
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Fate {
    Queued,
    Delivered,
    Dropped,
}

#[derive(Clone, Copy, PartialEq)]
enum Order {
    Fifo,
    FifoPerFlow,
    Any,
}

fn check(
    kind: &str,
    limit: &str,
    extra: &[&str],
    order: Order,
    ops: &[Op],
    seed: u64,
) -> Result<(), TestCaseError> {
    let mut items = vec![format!("limit={limit}")];
    items.extend(extra.iter().map(|s| s.to_string()));
    let pairs = Params::split_pairs(&items).unwrap();
    let mut q = Qdisc::new(registry::build(kind, &pairs, UniformSource::seeded(seed)).unwrap());
    let (lim_pkts, lim_bytes) = match aqmlab_core::units::parse_size(limit).unwrap() {
        aqmlab_core::units::Size::Packets(n) => (n, u64::MAX),
        aqmlab_core::units::Size::Bytes(b) => (u64::MAX, b),
    };
    let mut fates: Vec<Fate> = vec![];
    let mut flows: Vec<u32> = vec![];
    let mut last_delivered: Vec<Option<u64>> = vec![None; 8];
    let mut t = 0u64;
    for o in ops {
        match *o {
            Op::Enq {
                dt_ns,
                size,
                flow,
                ect,
            } => {
                t += dt_ns;
                let id = fates.len() as u64;
                fates.push(Fate::Queued);
                flows.push(flow);
                let mut p = Packet::new(id, size, FlowId(flow));
                if ect {
                    p.ecn = Ecn::Ect0;
                }
                q.enqueue(SimTime::from_nanos(t), p);
            }
            Op::Deq { dt_ns } => {
                t += dt_ns;
                if let Some(p) = q.dequeue(SimTime::from_nanos(t)) {
                    prop_assert!(p.enqueue_ns <= t, "negative sojourn");
                    prop_assert_eq!(
                        fates[p.id as usize],
                        Fate::Queued,
                        "packet {} left twice",
                        p.id
                    );
                    fates[p.id as usize] = Fate::Delivered;
                    let slot = match order {
                        Order::Fifo => Some(0),
                        Order::FifoPerFlow => Some(flows[p.id as usize] as usize),
                        Order::Any => None,
                    };
                    if let Some(s) = slot {
                        if let Some(prev) = last_delivered[s] {
                            prop_assert!(p.id > prev, "order broken: {} after {}", p.id, prev);
                        }
                        last_delivered[s] = Some(p.id);
                    }
                }
            }
        }
        for e in q.events() {
            if let QdiscEvent::Dropped { pkt, .. } = e {
                prop_assert_eq!(
                    fates[pkt.id as usize],
                    Fate::Queued,
                    "packet {} left twice",
                    pkt.id
                );
                fates[pkt.id as usize] = Fate::Dropped;
            }
        }
        prop_assert!(q.conserved());
        let b = q.backlog();
        prop_assert!(
            (b.packets as u64) <= lim_pkts && b.bytes <= lim_bytes,
            "backlog {:?} over {}",
            b,
            limit
        );
        let queued = fates.iter().filter(|f| **f == Fate::Queued).count();
        prop_assert_eq!(
            queued,
            b.packets as usize,
            "queued packets disagree with backlog"
        );
    }
    let s = q.stats();
    let delivered = fates.iter().filter(|f| **f == Fate::Delivered).count() as u64;
    let dropped = fates.iter().filter(|f| **f == Fate::Dropped).count() as u64;
    prop_assert_eq!(s.delivered.packets, delivered);
    prop_assert_eq!(s.dropped().packets, dropped);
    prop_assert_eq!(s.received.packets, fates.len() as u64);
    Ok(())
}

macro_rules! props {
    ($($name:ident: $kind:literal, $limits:expr, $extra:expr, $order:expr;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            $(
            #[test]
            fn $name(ops in prop::collection::vec(op(), 1..400), seed in 0u64..1000) {
                for limit in $limits {
                    check($kind, limit, $extra, $order, &ops, seed)?;
                }
            }
            )*
        }
    };
}

/// Every discipline is checked with a packet limit and (where it has one) a byte limit.
/// FQ-CoDel's limit is in packets only (bytes are bounded by its memory_limit).
const BOTH: &[&str] = &["20p", "12000B"];
const PACKETS: &[&str] = &["20p"];

props! {
    droptail_properties: "droptail", BOTH, &[], Order::Fifo;
    droptail_head_drop_properties: "droptail", BOTH, &["head_drop=true"], Order::Fifo;
    red_properties: "red", BOTH, &["min_th=2", "max_th=6", "mode=packet", "w_q=0.2"], Order::Fifo;
    red_ecn_properties: "red", BOTH, &["min_th=2", "max_th=6", "mode=packet", "w_q=0.2", "ecn=true"], Order::Fifo;
    codel_rfc_properties: "codel", BOTH, &["variant=rfc", "target=1ms", "interval=5ms"], Order::Fifo;
    codel_linux_properties: "codel", BOTH, &["variant=linux", "target=1ms", "interval=5ms", "ecn=true"], Order::Fifo;
    codel_ns3_properties: "codel", BOTH, &["variant=ns3", "target=1ms", "interval=5ms"], Order::Fifo;
    pie_properties: "pie", BOTH, &["target=1ms", "t_update=2ms", "burst_allowance=0ms"], Order::Fifo;
    fq_codel_properties: "fq_codel", PACKETS, &["target=1ms", "interval=5ms", "quantum=300", "flows=4", "hash=perturbed"], Order::FifoPerFlow;
    lstf_codel_as_described_properties: "lstf_codel", BOTH, &["target=1ms", "interval=5ms", "order=as_described"], Order::Any;
    lstf_codel_as_coded_properties: "lstf_codel", BOTH, &["target=1ms", "interval=5ms", "order=as_coded"], Order::Any;
}
