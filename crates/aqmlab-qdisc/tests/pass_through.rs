//! `Qdisc::pass_through` and `Qdisc::dequeue_when_idle` are shortcuts a link takes for a packet
//! crossing an idle queue: they must leave the discipline exactly as the calls they stand for
//! (an enqueue and a dequeue at the same instant, or an empty dequeue) would. Checked against a
//! twin that always makes the calls, on random schedules, for every discipline.

use aqmlab_core::{FlowId, Packet, SimTime};
use aqmlab_qdisc::{registry, Qdisc, QdiscEvent, UniformSource};
use proptest::prelude::*;

fn build(kind: &str, given: &[(&str, &str)]) -> Qdisc<aqmlab_qdisc::AnyQdisc> {
    let given: Vec<(String, String)> = given
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Qdisc::new(registry::build(kind, &given, UniformSource::seeded(7)).expect("valid config"))
}

#[derive(Clone, Debug)]
enum Op {
    /// A packet arrives; if the queue is empty the link is idle and sends it at once.
    Arrive { dt_ns: u64, size: u32, flow: u32 },
    /// The link is free and asks for a packet.
    Dequeue { dt_ns: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u64..2_000_000, 40u32..=3000, 0u32..4).prop_map(|(dt_ns, size, flow)| Op::Arrive {
            dt_ns,
            size,
            flow
        }),
        (0u64..2_000_000).prop_map(|dt_ns| Op::Dequeue { dt_ns }),
    ]
}

/// Drives `fast` with the shortcuts and `slow` with the plain calls; every outcome must match.
fn run_twins(kind: &str, given: &[(&str, &str)], ops: &[Op]) -> Result<u64, TestCaseError> {
    let (mut fast, mut slow) = (build(kind, given), build(kind, given));
    let mut now = 0u64;
    let mut shortcuts = 0;
    for (i, o) in ops.iter().enumerate() {
        match *o {
            Op::Arrive { dt_ns, size, flow } => {
                now += dt_ns;
                let t = SimTime::from_nanos(now);
                let pkt = Packet::new(i as u64, size, FlowId(flow));
                let idle = slow.backlog().packets == 0;
                slow.enqueue(t, pkt);
                let slow_events: Vec<QdiscEvent> = slow.events().to_vec();
                let slow_out = if idle { slow.dequeue(t) } else { None };
                let mut p = pkt;
                let fast_out = if idle && fast.pass_through(t, &mut p) {
                    shortcuts += 1;
                    prop_assert!(slow_events.is_empty() && slow.events().is_empty());
                    Some(p)
                } else {
                    fast.enqueue(t, pkt);
                    prop_assert_eq!(fast.events(), &slow_events[..]);
                    if idle {
                        fast.dequeue(t)
                    } else {
                        None
                    }
                };
                prop_assert_eq!(fast_out, slow_out);
            }
            Op::Dequeue { dt_ns } => {
                now += dt_ns;
                let t = SimTime::from_nanos(now);
                let idle = slow.backlog().packets == 0;
                let slow_out = slow.dequeue(t);
                let fast_out = if idle {
                    fast.dequeue_when_idle(t)
                } else {
                    fast.dequeue(t)
                };
                prop_assert_eq!(fast_out, slow_out);
                prop_assert_eq!(fast.events(), slow.events());
            }
        }
        prop_assert_eq!(fast.stats(), slow.stats());
        prop_assert_eq!(fast.backlog(), slow.backlog());
        prop_assert!(fast.conserved());
    }
    Ok(shortcuts)
}

proptest! {
    #[test]
    fn shortcuts_match_the_calls_for_every_discipline(ops in proptest::collection::vec(op(), 1..300)) {
        for (kind, given) in [
            ("droptail", &[("limit", "5p")][..]),
            ("droptail", &[("limit", "4500B")][..]),
            ("droptail", &[("limit", "2000B"), ("head_drop", "true")][..]),
            ("red", &[("limit", "5p")][..]),
            ("codel", &[][..]),
            ("pie", &[][..]),
            ("fq_codel", &[][..]),
            ("lstf_codel", &[][..]),
        ] {
            run_twins(kind, given, &ops)?;
        }
    }
}

#[test]
fn only_a_stateless_fifo_takes_the_shortcut() {
    let arrivals = [
        Op::Arrive {
            dt_ns: 0,
            size: 1500,
            flow: 0,
        },
        Op::Dequeue { dt_ns: 1 },
    ];
    let ops: Vec<Op> = arrivals.iter().cycle().take(20).cloned().collect();
    assert_eq!(run_twins("droptail", &[], &ops).unwrap(), 10);
    for kind in ["red", "codel", "pie", "fq_codel", "lstf_codel"] {
        assert_eq!(run_twins(kind, &[], &ops).unwrap(), 0, "{kind}");
    }
    // A packet larger than a byte limit is refused even by an empty tail drop: no shortcut.
    assert_eq!(
        run_twins("droptail", &[("limit", "1000B")], &ops).unwrap(),
        0
    );
}

#[test]
fn the_shortcut_stamps_and_counts_the_packet() {
    let mut q = build("droptail", &[]);
    let mut p = Packet::new(1, 1500, FlowId(0));
    assert!(q.pass_through(SimTime::from_nanos(42), &mut p));
    assert_eq!(p.enqueue_ns, 42);
    assert_eq!(
        (q.stats().received.packets, q.stats().delivered.bytes),
        (1, 1500)
    );
    assert_eq!(q.backlog().packets, 0);
    // With a packet queued the shortcut is refused and nothing changes.
    q.enqueue(SimTime::from_nanos(50), Packet::new(2, 100, FlowId(0)));
    let before = q.stats().clone();
    assert!(!q.pass_through(SimTime::from_nanos(60), &mut Packet::new(3, 100, FlowId(0))));
    assert_eq!(q.stats(), &before);
    assert_eq!(
        q.dequeue_when_idle(SimTime::from_nanos(70)).map(|p| p.id),
        Some(2)
    );
    assert_eq!(q.dequeue_when_idle(SimTime::from_nanos(80)), None);
    assert_eq!(q.stats().empty_dequeues, 1);
}
