//! CAKE against ns-3 3.37 where ns-3 has the part (issue 21 item 3; `docs/models/cake.md`,
//! "CAKE against ns-3"). ns-3 has no CAKE; it has COBALT (`CobaltQueueDisc`) and, in
//! `FqCoDelQueueDisc`/`FqCobaltQueueDisc`, a set-associative hash (`SetWays`, after CAKE's).
//!
//! * One flow: CAKE (`diffserv=besteffort flow_mode=flows`, unshaped) runs one queue under one
//!   COBALT, so its decisions must be ns-3's `CobaltQueueDisc`'s where the rules coincide. They
//!   agree on every packet of `tiny` and `overload`.
//! * The hash: ns-3's rule (our `fq_cobalt hash=set_associative`, tied to ns-3 by
//!   `fq_setways.fq_cobalt`) and Linux's `cake_hash` put a ninth flow of a full set in different
//!   queues; `crowded_set_shares_the_direct_queue_not_the_first` shows the exact packets.

mod common;
use aqmlab_qdisc::replay::{self, Decision, Outcome};
use aqmlab_qdisc::{registry, Qdisc};
use common::*;

/// CAKE reduced to what ns-3's `CobaltQueueDisc` has: one tin, one queue per flow, no shaper
/// (so `mtu_time` is 0 and `cake_set_rate` leaves target 5 ms and interval 100 ms), and a byte
/// limit no vector reaches (ns-3's 1000-packet limit is not reached on `overload` either).
const CAKE: &[&str] = &[
    "diffserv=besteffort",
    "flow_mode=flows",
    "target=5ms",
    "rtt=100ms",
    "memlimit=1000000000",
];

/// CAKE's per-flow COBALT agrees with ns-3 3.37's `CobaltQueueDisc` on every packet of the
/// one-flow vectors `tiny` (10 packets) and `overload` (24,167 packets, 3,330 CoDel drops).
/// The counterfactual: CAKE's `rtt` 90 ms (COBALT's interval) disagrees on thousands of them.
#[test]
fn cake_one_flow_agrees_with_ns3_cobalt() {
    for schedule in ["tiny", "overload"] {
        let ours = run(schedule, "cake", CAKE, ns3_uniforms());
        let theirs = reference(schedule, "cobalt");
        assert_same(&ours.decisions, &theirs);
        assert_eq!(outcome_counts(&ours.decisions), outcome_counts(&theirs));
        eprintln!(
            "{schedule}: CAKE agrees with ns-3 COBALT on all {} packets",
            theirs.len()
        );
    }
    let mut p = CAKE.to_vec();
    p[3] = "rtt=90ms";
    let ours = run("overload", "cake", &p, ns3_uniforms());
    let n = differing(&ours.decisions, &reference("overload", "cobalt"));
    eprintln!("overload with rtt=90ms: {n} packets differ");
    assert!(n > 1000, "{n}");
}

/// ns-3's set-associative hash as our `fq_cobalt hash=set_associative` implements it agrees with
/// ns-3 3.37's `FqCobaltQueueDisc` (`EnableSetAssociativeHash`, `SetWays` 8) on every packet of
/// `fq_setways` (fourteen flows crowding one set): the reference for the hash test below.
#[test]
fn ns3_set_associative_fq_cobalt_agrees_with_ns3() {
    let fq = [
        "limit=10240p",
        "flows=1024",
        "quantum=1514",
        "drop_batch=64",
        "target=5ms",
        "interval=100ms",
        "ecn=true",
        "hash=set_associative",
        "set_ways=8",
    ];
    let ours = run("fq_setways", "fq_cobalt", &fq, ns3_uniforms());
    let theirs = reference("fq_setways", "fq_cobalt");
    assert_same(&ours.decisions, &theirs);
    assert_eq!(
        outcome_counts(&ours.decisions),
        ns3_counts("fq_setways", "fq_cobalt")
    );
    // Without the set-associative hash (flow id mod 1024: the twelve flows of queue 0 share it).
    let plain: Vec<&str> = fq[..7].to_vec();
    let ours = run("fq_setways", "fq_cobalt", &plain, ns3_uniforms());
    assert!(differing(&ours.decisions, &theirs) > 1000);
}

/// Replays an inline schedule (`t_ns,op,size,flow`) through `kind`.
fn replay_inline(schedule: &str, kind: &str, params: &[&str]) -> Vec<Decision> {
    let rows = replay::parse_schedule(schedule.as_bytes()).unwrap();
    let pairs = aqmlab_qdisc::Params::split_pairs(params).unwrap();
    let mut q = Qdisc::new(registry::build(kind, &pairs, ns3_uniforms()).unwrap());
    replay::replay(&mut q, &rows, false).unwrap().decisions
}

/// Packet ids in the order they were delivered.
fn delivery_order(d: &[Decision]) -> Vec<u64> {
    let mut v: Vec<&Decision> = d
        .iter()
        .filter(|x| x.outcome == Outcome::Delivered)
        .collect();
    v.sort_by_key(|x| (x.deq_t_ns, x.id));
    v.iter().map(|x| x.id).collect()
}

/// A full set: flows 0, 1024, …, 7168 (direct queue 0) take the eight queues of set 0, one
/// 500-B packet each (packets 0-7); then flow 3 (direct queue 3) sends two (packets 8, 9).
/// Both hashes give the eight flows the eight ways. With no way free, Linux's `cake_hash`
/// ("default to the original queue, accept the collision") puts flow 3 in its *direct* queue 3,
/// which holds flow 3072's packet (the fourth to arrive), while ns-3's `SetAssociativeHash`
/// (`fq-codel-queue-disc.cc`: no queue of the set free or tagged → the set's first queue) puts
/// it in queue 0, behind flow 0's packet. DRR then serves queue 0 first with a 1514-B quantum:
/// under ns-3's rule packets 8 and 9 leave 2nd and 3rd, under CAKE's 5th and 6th, behind
/// packet 3 (flow 3072). Everything else here is the same in both (one tin, unshaped, no
/// AQM signal: sojourns stay below 5 ms).
#[test]
fn crowded_set_shares_the_direct_queue_not_the_first() {
    let mut s = String::from("t_ns,op,size,flow\n");
    for k in 0..8u32 {
        s += &format!("{},enq,500,{}\n", 1000 + k, k * 1024);
    }
    s += "1010,enq,500,3\n1011,enq,500,3\n";
    for k in 0..10u64 {
        s += &format!("{},deq,0,0\n", 2000 + k * 100_000);
    }
    let ns3_rule = replay_inline(
        &s,
        "fq_cobalt",
        &[
            "flows=1024",
            "quantum=1514",
            "hash=set_associative",
            "set_ways=8",
        ],
    );
    let cake = replay_inline(&s, "cake", CAKE);
    assert_eq!(delivery_order(&ns3_rule), [0, 8, 9, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(delivery_order(&cake), [0, 1, 2, 3, 8, 9, 4, 5, 6, 7]);
}

/// Where CAKE's scheduler is not ns-3's FQ: on `fq_sparse` (ns-3 3.37 `FqCobaltQueueDisc`) the
/// first packet that differs is packet 2, and the reason is Linux's `cake_dequeue`, which
/// returns at once when the whole qdisc is empty (`begin: if (!sch->q.qlen) return NULL;`).
/// Flow 1's packet 0 leaves at 0.6 ms; the dequeue at 1.8 ms finds nothing. ns-3 (RFC 8290
/// §4.2) moves the emptied new queue to the old list and removes it, so flow 1's next packet
/// (1, at 1.848 ms) makes it a new flow again with a full 1514-B quantum: after packet 1 (sent
/// at 3.0 ms) it has 14 B of deficit left and stays at the head of the new list, and its
/// packet 4 leaves at 4.2 ms. CAKE leaves the queue on the new list with its deficit (14 B),
/// so packet 1 takes it to −1486 B, the queue turns bulk, and flow 9's packet 2 (100 B) leaves
/// at 4.2 ms instead. The other `fq_*` vectors differ for the same rule and for CAKE's other
/// DRR++ rules (the decaying list; one head drop per `memlimit` overflow instead of ns-3's
/// batch; BLUE raised by sojourn above 400 ms in ns-3 only); the counts are printed.
#[test]
fn cake_scheduler_differs_from_ns3_fq_cobalt_after_an_idle_dequeue() {
    let ours = run("fq_sparse", "cake", CAKE, ns3_uniforms());
    let theirs = reference("fq_sparse", "fq_cobalt");
    let first = ours
        .decisions
        .iter()
        .zip(&theirs)
        .find(|(a, b)| a != b)
        .map(|(a, _)| a.id);
    assert_eq!(first, Some(2));
    let at = |d: &[Decision], id: usize| d[id].deq_t_ns;
    assert_eq!((at(&theirs, 4), at(&theirs, 2)), (4_200_000, 5_400_000));
    assert_eq!(at(&ours.decisions, 2), 4_200_000);
    for (schedule, limit) in [
        ("fq_sizes", "memlimit=1000000000"),
        ("fq_sparse", "memlimit=1000000000"),
        ("fq_ecn", "memlimit=1000000000"),
        ("sparse", "memlimit=1000000000"),
        ("fq_setways", "memlimit=1000000000"),
    ] {
        let mut p = CAKE.to_vec();
        p[4] = limit;
        let ours = run(schedule, "cake", &p, ns3_uniforms());
        let theirs = reference(schedule, "fq_cobalt");
        let n = differing(&ours.decisions, &theirs);
        eprintln!(
            "{schedule}: CAKE differs from ns-3 FQ-COBALT on {n} of {} packets",
            theirs.len()
        );
        assert!(n > 0);
    }
}
