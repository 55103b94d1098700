//! CAKE against the rules of the paper (Høiland-Jørgensen, Täht, Morton 2018) and of Linux
//! `sch_cake.c`, with exact values where the rule gives them: the shaper's wire rate with
//! overhead/MPU/ATM/PTM (`cake_calc_overhead`, `cake_advance_shaper`), host fairness under the
//! isolation modes (`cake_hash`, `quantum_div`), tin priority and rate thresholds (`cake_dequeue`,
//! `cake_config_diffserv3`), set-associative placement, DRR++ sparse-flow priority, overflow
//! and conservation.

use aqmlab_core::{SimTime, TcpHint};
use aqmlab_qdisc::cake::{packet, Cake, CakeConfig, FlowSet, PARAMS};
use aqmlab_qdisc::{Params, Qdisc, UniformSource};

fn cake(params: &[&str]) -> Qdisc<Cake> {
    let pairs = Params::split_pairs(params).unwrap();
    let cfg = CakeConfig::from_params(&Params::new("cake", PARAMS, &pairs).unwrap()).unwrap();
    Qdisc::new(Cake::new(cfg, UniformSource::seeded(7)))
}

fn err(params: &[&str]) -> String {
    let pairs = Params::split_pairs(params).unwrap();
    match Params::new("cake", PARAMS, &pairs) {
        Err(e) => e.to_string(),
        Ok(p) => CakeConfig::from_params(&p).unwrap_err().to_string(),
    }
}

/// Dequeues `n` packets from a shaped CAKE, each at the first time the shaper allows (asking
/// again at [`Cake::next_send_time`]); returns (departure ns, packet).
fn drain_shaped(q: &mut Qdisc<Cake>, n: usize) -> Vec<(u64, aqmlab_core::Packet)> {
    let mut now = SimTime::ZERO;
    let mut out = Vec::new();
    while out.len() < n {
        match q.dequeue(now) {
            Some(p) => out.push((now.as_nanos(), p)),
            None => {
                now = q
                    .inner()
                    .next_send_time()
                    .expect("a refused dequeue with packets queued names a time");
            }
        }
    }
    out
}

/// Departure spacing of back-to-back 1500-byte packets under the shaper.
fn spacing(params: &[&str], size: u32) -> Vec<u64> {
    let mut q = cake(params);
    for id in 0..20 {
        q.enqueue(SimTime::ZERO, packet(id, size, 1, 1, 2, 0));
    }
    let out = drain_shaped(&mut q, 20);
    out.windows(2).map(|w| w[1].0 - w[0].0).collect()
}

#[test]
fn shaper_charges_atm_cells_with_overhead() {
    // 1500 + 18 = 1518 bytes → ⌈1518/48⌉ = 32 cells × 53 = 1696 bytes on the wire; at
    // 10 Mb/s (800 ns per byte) that is 1,356,800 ns per packet: IP goodput 1500/1696 × 10 Mb/s.
    let d = spacing(
        &[
            "bandwidth=10Mbps",
            "overhead=18",
            "atm=atm",
            "diffserv=besteffort",
        ],
        1500,
    );
    assert!(d.iter().all(|&x| x == 1_356_800), "{d:?}");
    // Counterfactuals: without ATM 1518 × 800; PTM 1518 + ⌈1518/64⌉ = 1542 bytes; raw 1500.
    let d = spacing(
        &["bandwidth=10Mbps", "overhead=18", "diffserv=besteffort"],
        1500,
    );
    assert!(d.iter().all(|&x| x == 1_214_400), "{d:?}");
    let d = spacing(
        &[
            "bandwidth=10Mbps",
            "overhead=18",
            "atm=ptm",
            "diffserv=besteffort",
        ],
        1500,
    );
    assert!(d.iter().all(|&x| x == 1_233_600), "{d:?}");
    let d = spacing(&["bandwidth=10Mbps", "diffserv=besteffort"], 1500);
    assert!(d.iter().all(|&x| x == 1_200_000), "{d:?}");
}

#[test]
fn shaper_applies_mpu_after_overhead() {
    // 40-byte ACKs + overhead 14 = 54 < mpu 64 → charged 64 bytes = 51,200 ns at 10 Mb/s;
    // with ATM, 64 → 2 cells = 106 bytes = 84,800 ns.
    let d = spacing(
        &[
            "bandwidth=10Mbps",
            "overhead=14",
            "mpu=64",
            "diffserv=besteffort",
        ],
        40,
    );
    assert!(d.iter().all(|&x| x == 51_200), "{d:?}");
    let d = spacing(
        &[
            "bandwidth=10Mbps",
            "overhead=14",
            "mpu=64",
            "atm=atm",
            "diffserv=besteffort",
        ],
        40,
    );
    assert!(d.iter().all(|&x| x == 84_800), "{d:?}");
    let d = spacing(
        &["bandwidth=10Mbps", "overhead=14", "diffserv=besteffort"],
        40,
    );
    assert!(d.iter().all(|&x| x == 43_200), "{d:?}");
}

#[test]
fn shaper_holds_packets_until_their_time() {
    let mut q = cake(&["bandwidth=10Mbps", "diffserv=besteffort"]);
    q.enqueue(SimTime::ZERO, packet(0, 1500, 1, 1, 2, 0));
    q.enqueue(SimTime::ZERO, packet(1, 1500, 1, 1, 2, 0));
    assert_eq!(q.dequeue(SimTime::ZERO).map(|p| p.id), Some(0));
    // 1 ns early: refused, told when to come back.
    assert_eq!(q.dequeue(SimTime::from_nanos(1_199_999)), None);
    assert_eq!(
        q.inner().next_send_time(),
        Some(SimTime::from_nanos(1_200_000))
    );
    assert_eq!(
        q.dequeue(SimTime::from_nanos(1_200_000)).map(|p| p.id),
        Some(1)
    );
    // An idle shaper restarts from the arrival (no burst credit for the idle time).
    q.enqueue(SimTime::from_millis(50), packet(2, 1500, 1, 1, 2, 0));
    q.enqueue(SimTime::from_millis(50), packet(3, 1500, 1, 1, 2, 0));
    assert_eq!(q.dequeue(SimTime::from_millis(50)).map(|p| p.id), Some(2));
    assert_eq!(q.dequeue(SimTime::from_millis(50)), None);
    assert_eq!(
        q.inner().next_send_time(),
        Some(SimTime::from_nanos(51_200_000))
    );
    // Unshaped: never refuses.
    let mut q = cake(&["diffserv=besteffort"]);
    for id in 0..3 {
        q.enqueue(SimTime::ZERO, packet(id, 1500, 1, 1, 2, 0));
    }
    for _ in 0..3 {
        assert!(q.dequeue(SimTime::ZERO).is_some());
    }
}

/// Shares of host A (one flow, source 1) and host B (eight flows, source 2), every flow to its
/// own destination, all backlogged, over `n` packets.
fn host_shares(mode: &str, n: usize) -> (usize, usize) {
    let mode = format!("flow_mode={mode}");
    let mut q = cake(&[&mode, "diffserv=besteffort"]);
    let mut id = 0;
    for k in 0..1200 {
        q.enqueue(SimTime::ZERO, packet(id, 1500, 0, 1, 100, 0));
        id += 1;
        if k >= 400 {
            continue;
        }
        for f in 1..=8u32 {
            q.enqueue(SimTime::ZERO, packet(id, 1500, f, 2, 100 + f as u16, 0));
            id += 1;
        }
    }
    let mut a = 0;
    for _ in 0..n {
        let p = q.dequeue(SimTime::ZERO).unwrap();
        if p.src_host == 1 {
            a += 1;
        }
    }
    (a, n - a)
}

#[test]
fn triple_isolate_shares_equally_between_hosts_flows_mode_per_flow() {
    // triple-isolate and dual-srchost: host B's 8 flows each get ⌊65535/8⌋/65536 of a quantum,
    // so the two hosts share equally. flows and dual-dsthost (every destination distinct): 1:8.
    for mode in ["triple-isolate", "dual-srchost", "srchost"] {
        let (a, b) = host_shares(mode, 1800);
        assert!((880..=920).contains(&a), "{mode}: host A {a}, host B {b}");
    }
    for mode in ["flows", "dual-dsthost"] {
        let (a, b) = host_shares(mode, 1800);
        assert_eq!(a, 200, "{mode}: host A {a}, host B {b}");
    }
}

/// Host A's bulk flow (flow 0, host 1 to 100) against host B's web page (flow 1, host 2 to
/// 101), all backlogged. With `own_queue` the page's packets are its 6 connections' (numbered
/// 2..8, after the flows: `TcpHint::OWN_QUEUE`), else all one flow's. Returns the queues
/// holding packets and host A's share of `n` departures.
fn page_shares(mode: &str, own_queue: bool, n: usize) -> (usize, usize) {
    let mode = format!("flow_mode={mode}");
    let mut q = cake(&[&mode, "diffserv=besteffort"]);
    let mut id = 0;
    for k in 0..1200 {
        q.enqueue(SimTime::ZERO, packet(id, 1500, 0, 1, 100, 0));
        id += 1;
        if k >= 400 {
            continue;
        }
        for c in 2..8u16 {
            let mut p = packet(id, 1500, 1, 2, 101, 0);
            if own_queue {
                p.tcp.bits = TcpHint::OWN_QUEUE | TcpHint::ACK | TcpHint::DATA;
                p.tcp.conn = c;
            }
            q.enqueue(SimTime::ZERO, p);
            id += 1;
        }
    }
    let busy = (0..1024)
        .filter(|&k| q.inner().queue(0, k).0.packets > 0)
        .count();
    let a = (0..n)
        .filter(|_| q.dequeue(SimTime::ZERO).unwrap().src_host == 1)
        .count();
    (busy, a)
}

#[test]
fn a_pages_connections_are_flows_of_their_own_but_one_hosts_traffic() {
    // Linux's cake_hash: the flow hash covers the 5-tuple (a page's connections differ by
    // port), the host hashes the addresses alone. In `flows` mode each connection is a flow
    // (host A gets 1/7); under host isolation the page is one host's, however many
    // connections it opens (host A gets half), as it was when they shared a queue.
    assert_eq!(page_shares("flows", true, 700), (7, 100));
    assert_eq!(page_shares("flows", false, 700), (2, 350));
    for mode in ["triple-isolate", "dual-srchost", "dual-dsthost"] {
        let (busy, a) = page_shares(mode, true, 1400);
        assert_eq!(busy, 7, "{mode}");
        assert!((680..=720).contains(&a), "{mode}: host A {a} of 1400");
        let (busy, a) = page_shares(mode, false, 1400);
        assert_eq!((busy, a), (2, 700), "{mode}");
    }
}

/// Backlogged flows in tins by `dscp`, shaped at 10 Mb/s (1500-byte packets): packets sent per
/// DSCP over `n` departures.
fn tin_counts(params: &[&str], dscps: &[u8], n: usize) -> Vec<usize> {
    let mut q = cake(params);
    let mut id = 0;
    for _ in 0..n {
        for (f, &d) in dscps.iter().enumerate() {
            q.enqueue(SimTime::ZERO, packet(id, 1500, f as u32, 1, 2, d));
            id += 1;
        }
    }
    let mut counts = vec![0; dscps.len()];
    let out = if params.iter().any(|p| p.starts_with("bandwidth")) {
        drain_shaped(&mut q, n)
    } else {
        (0..n)
            .map(|_| (0, q.dequeue(SimTime::ZERO).unwrap()))
            .collect()
    };
    for (_, p) in out {
        counts[dscps.iter().position(|&d| d == p.dscp).unwrap()] += 1;
    }
    counts
}

#[test]
fn diffserv3_voice_has_priority_up_to_a_quarter_of_the_rate() {
    // Shaped, both backlogged: Voice (EF) is served whenever its own shaper at rate/4 allows,
    // Best Effort otherwise: exactly one packet in four is Voice.
    let c = tin_counts(&["bandwidth=10Mbps", "memlimit=100MB"], &[0, 46], 400);
    assert_eq!(c, [300, 100]);
    // Bulk (CS1) beside Best Effort: its threshold is rate/16.
    let c = tin_counts(&["bandwidth=10Mbps", "memlimit=100MB"], &[0, 8], 400);
    assert_eq!(c, [375, 25]);
    // besteffort (counterfactual): one tin, the two flows share equally.
    let c = tin_counts(
        &["bandwidth=10Mbps", "memlimit=100MB", "diffserv=besteffort"],
        &[0, 46],
        400,
    );
    assert_eq!(c, [200, 200]);
    // diffserv4: Video (AF41) up to half, Voice (EF) a quarter.
    let c = tin_counts(
        &["bandwidth=10Mbps", "memlimit=100MB", "diffserv=diffserv4"],
        &[0, 34],
        400,
    );
    assert_eq!(c, [200, 200]);
}

#[test]
fn diffserv3_voice_alone_may_use_the_whole_rate() {
    // Above its threshold a tin loses priority, not capacity: alone, Voice gets every slot.
    let mut q = cake(&["bandwidth=10Mbps"]);
    for id in 0..10 {
        q.enqueue(SimTime::ZERO, packet(id, 1500, 1, 1, 2, 46));
    }
    let out = drain_shaped(&mut q, 10);
    assert!(out.windows(2).all(|w| w[1].0 - w[0].0 == 1_200_000));
}

#[test]
fn light_voice_traffic_jumps_the_best_effort_backlog() {
    // One EF packet every 10 ms (10 % of 10 Mb/s) beside a Best Effort backlog: each leaves at
    // the first dequeue after it arrives.
    let mut q = cake(&["bandwidth=10Mbps"]);
    for id in 0..200 {
        q.enqueue(SimTime::ZERO, packet(id, 1500, 1, 1, 2, 0));
    }
    let mut now = SimTime::ZERO;
    let mut next_voice = SimTime::from_millis(5);
    let mut id = 1000;
    let mut worst = 0;
    let end = SimTime::from_millis(200);
    while now < end {
        if now >= next_voice {
            q.enqueue(next_voice, packet(id, 1500, 2, 1, 3, 46));
            id += 1;
            next_voice += aqmlab_core::SimDuration::from_millis(10);
        }
        match q.dequeue(now) {
            Some(p) if p.dscp == 46 => worst = worst.max(now.as_nanos() - p.enqueue_ns),
            Some(_) => {}
            None => now = q.inner().next_send_time().unwrap().min(next_voice),
        }
    }
    // At most one 1500-byte packet time (1.2 ms) of waiting.
    assert!(worst <= 1_200_000, "worst voice sojourn {worst} ns");
}

#[test]
fn unshaped_tins_share_by_their_drr_quanta() {
    // Unshaped, tins share by DRR with quanta 1024 (Best Effort) and 256 (Voice): Voice gets
    // 256/1280 = 20 % of the bytes.
    let c = tin_counts(&[], &[0, 46], 1000);
    assert!((195..=205).contains(&c[1]), "{c:?}");
}

#[test]
fn set_associative_hash_places_colliding_flows_in_free_ways() {
    // flow_id hash: flows 0, 1024, 2048 … all map to queue 0; the set (queues 0–7) gives them
    // ways 0, 1, 2 … while free; a ninth active flow collides into queue 0.
    let mut q = cake(&["flow_mode=flows", "diffserv=besteffort"]);
    for k in 0..9u32 {
        q.enqueue(SimTime::ZERO, packet(k as u64, 100, k * 1024, 1, 2, 0));
    }
    for way in 1..8 {
        let (b, set, ..) = q.inner().queue(0, way);
        assert_eq!((b.packets, set), (1, FlowSet::Sparse), "way {way}");
    }
    assert_eq!(
        q.inner().queue(0, 0).0.packets,
        2,
        "the ninth flow collides"
    );
    assert_eq!(q.inner().queue(0, 8).0.packets, 0, "never leaves its set");
    // A flow keeps its way: flow 2048's next packet joins queue 2.
    q.enqueue(SimTime::ZERO, packet(99, 100, 2048, 1, 2, 0));
    assert_eq!(q.inner().queue(0, 2).0.packets, 2);
}

#[test]
fn a_new_sparse_flow_goes_before_the_bulk_backlog() {
    let mut q = cake(&["diffserv=besteffort"]);
    for id in 0..40 {
        q.enqueue(SimTime::ZERO, packet(id, 1500, (id % 4) as u32, 1, 2, 0));
    }
    for _ in 0..10 {
        q.dequeue(SimTime::ZERO).unwrap();
    }
    q.enqueue(SimTime::ZERO, packet(500, 200, 9, 1, 2, 0));
    assert_eq!(q.dequeue(SimTime::ZERO).unwrap().id, 500);
}

#[test]
fn overflow_drops_from_the_longest_queue_and_conserves_packets() {
    // memlimit 30,000 bytes: a 40-packet burst of one flow beside a 2-packet flow loses only
    // packets of the long one, from its head.
    let mut q = cake(&["diffserv=besteffort", "memlimit=30000"]);
    q.enqueue(SimTime::ZERO, packet(1000, 1500, 2, 1, 2, 0));
    q.enqueue(SimTime::ZERO, packet(1001, 1500, 2, 1, 2, 0));
    for id in 0..40 {
        q.enqueue(SimTime::ZERO, packet(id, 1500, 1, 1, 2, 0));
    }
    assert_eq!(q.stats().dropped().packets, 22);
    assert_eq!(q.inner().queue(0, 2).0.packets, 2);
    assert!(q.backlog().bytes <= 30_000);
    // Qdisc checks received = delivered + dropped + backlog after every call.
    let mut ids = Vec::new();
    while let Some(p) = q.dequeue(SimTime::from_millis(1)) {
        ids.push(p.id);
    }
    assert!(ids.contains(&39) && !ids.contains(&0), "head drops");
    assert_eq!(ids.len() + 22, 42);
}

#[test]
fn cobalt_drops_a_standing_queue_but_never_the_last_packet() {
    // One flow, 200 packets queued at 0, drained 2 ms apart: sojourn exceeds 5 ms for over
    // 100 ms, so COBALT drops; the queue's last packet is delivered regardless.
    let mut q = cake(&["diffserv=besteffort"]);
    for id in 0..200 {
        q.enqueue(SimTime::ZERO, packet(id, 1500, 1, 1, 2, 0));
    }
    let mut last = None;
    let mut t = 0;
    while q.backlog().packets > 0 {
        t += 2;
        if let Some(p) = q.dequeue(SimTime::from_millis(t)) {
            last = Some(p.id);
        }
    }
    assert!(q.stats().dropped().packets > 0);
    assert_eq!(last, Some(199));
}

#[test]
fn bad_parameters_name_the_field() {
    assert!(err(&["atm=yes"]).contains("atm"));
    assert!(err(&["overhead=1000"]).contains("overhead"));
    assert!(err(&["flow_mode=per-flow"]).contains("triple-isolate"));
    assert!(err(&["bandwidth=10"]).contains("bandwidth"));
    assert!(err(&["memlimit=0"]).contains("memlimit"));
}

#[test]
fn replay_carries_dscp_and_hosts_to_cake() {
    use aqmlab_qdisc::registry;
    use aqmlab_qdisc::replay::{parse_schedule, replay};
    // 40 Best Effort and 40 EF packets at 0, then a dequeue every 1.2 ms (one 1500-byte packet
    // time at 10 Mb/s): Voice takes one slot in four, as in the direct test above.
    let mut csv = String::from("t_ns,op,size,flow,dscp,src,dst\n");
    for _ in 0..40 {
        csv.push_str("0,enq,1500,1,0,1,2\n0,enq,1500,2,46,1,3\n");
    }
    for k in 0..40u64 {
        csv.push_str(&format!("{},deq,0,0,0,0,0\n", k * 1_200_000));
    }
    let rows = parse_schedule(csv.as_bytes()).unwrap();
    let run = |params: &[(&str, &str)]| {
        let pairs: Vec<(String, String)> = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut q = Qdisc::new(registry::build("cake", &pairs, UniformSource::seeded(1)).unwrap());
        let out = replay(&mut q, &rows, false).unwrap();
        // Ids alternate BE (even) and EF (odd).
        let sent = |odd: u64| {
            out.decisions
                .iter()
                .filter(|d| d.deq_t_ns >= 0 && d.id % 2 == odd)
                .count()
        };
        (sent(0), sent(1))
    };
    assert_eq!(run(&[("bandwidth", "10Mbps")]), (30, 10));
    assert_eq!(
        run(&[("bandwidth", "10Mbps"), ("diffserv", "besteffort")]),
        (20, 20)
    );
}

/// The refill walk along the old list (`scheduler.rs`) is an optimisation of Linux's one-queue-
/// per-pass loop: the departure order, drops and dither draws are pinned to those of the
/// one-queue-per-pass code (commit 337e81a) under triple isolation with uneven hosts, sparse
/// arrivals between bulk ones, and packet sizes from 40 to 1500 bytes.
#[test]
fn refill_walk_departs_in_the_order_of_one_refill_per_pass() {
    let mut got = Vec::new();
    for (mode, want) in [
        ("flow_mode=triple-isolate", DIGEST_TRIPLE),
        ("flow_mode=dual-dsthost", DIGEST_DUAL_DST),
        ("flow_mode=flows", DIGEST_FLOWS),
    ] {
        let mut q = cake(&[mode, "memlimit=200000"]);
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |x: u64| {
            h ^= x;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        let mut id = 0u64;
        for step in 0..30_000u64 {
            let now = SimTime::from_nanos(step * 50_000);
            // Bulk flows 0..40 from host 1 (to hosts 10..13), flows 40..48 from host 2, and a
            // sparse flow 99 now and then.
            for _ in 0..(step % 3) {
                let f = (id * 7 % 48) as u32;
                let src = if f < 40 { 1 } else { 2 };
                let size = [1500, 40, 576, 1500, 1200][(id % 5) as usize];
                q.enqueue(now, packet(id, size, f, src, 10 + (f % 4) as u16, 0));
                id += 1;
            }
            if step % 97 == 0 {
                q.enqueue(now, packet(id, 200, 99, 3, 10, 0));
                id += 1;
            }
            if let Some(p) = q.dequeue(now) {
                mix(p.id);
            }
        }
        mix(q.stats().dropped().packets);
        got.push((mode, h, want));
    }
    for (mode, h, want) in got {
        assert_eq!(h, want, "{mode}: departure digest");
    }
}

const DIGEST_TRIPLE: u64 = 3_606_573_774_955_695_119;
const DIGEST_DUAL_DST: u64 = 5_312_255_669_797_325_909;
const DIGEST_FLOWS: u64 = 15_120_648_454_571_819_197;

/// Unshaped, the tins share by DRR with their quanta (`choose_tin`): departures of traffic in
/// every tin, each tin idle by turns (bursts in Bulk and Voice, Video under diffserv4, steady
/// Best Effort that pauses), pinned to those of commit e5a4783 (before the tin choice kept
/// anything between dequeues) under diffserv3 and diffserv4, flows and triple isolation.
#[test]
fn unshaped_tins_depart_as_pinned() {
    let mut got = Vec::new();
    for (params, want) in [
        (
            ["diffserv=diffserv3", "flow_mode=flows"],
            DIGEST_TINS3_FLOWS,
        ),
        (
            ["diffserv=diffserv3", "flow_mode=triple-isolate"],
            DIGEST_TINS3_TRIPLE,
        ),
        (
            ["diffserv=diffserv4", "flow_mode=flows"],
            DIGEST_TINS4_FLOWS,
        ),
    ] {
        let mut q = cake(&[params[0], params[1], "memlimit=300000"]);
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut mix = |x: u64| {
            h ^= x;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        };
        let mut id = 0u64;
        for step in 0..40_000u64 {
            let now = SimTime::from_nanos(step * 20_000);
            let mut arrive = |f: u32, size: u32, dscp: u8| {
                q.enqueue(now, packet(id, size, f, 1 + (f >= 8) as u16, 9, dscp));
                id += 1;
            };
            // Best Effort: 12 flows (8 from one host, 4 from another), paused in one phase of
            // 400 steps in 5.
            if (step / 400) % 5 != 3 {
                arrive((step % 12) as u32, [1500, 40, 1000][(step % 3) as usize], 0);
            }
            // Bulk (CS1) and Voice (EF) in bursts; Video (AF41) only diffserv4 separates.
            if (step / 300) % 3 == 0 && step % 3 == 0 {
                arrive(20 + (step / 3 % 4) as u32, 1500, 8);
            }
            if (step / 700) % 4 == 1 && step % 5 == 0 {
                arrive(30 + (step / 5 % 2) as u32, 200, 46);
            }
            if (step / 500) % 2 == 1 && step % 7 == 0 {
                arrive(40, 1200, 34);
            }
            // Three dequeues in four steps: the queues build up while Best Effort sends.
            if step % 4 != 0 {
                if let Some(p) = q.dequeue(now) {
                    mix(p.id);
                }
            }
        }
        mix(q.stats().dropped().packets);
        got.push((params, h, want));
    }
    let differ: Vec<_> = got.iter().filter(|(_, h, want)| h != want).collect();
    assert!(
        differ.is_empty(),
        "departure digests (got, pinned): {differ:?}"
    );
}

const DIGEST_TINS3_FLOWS: u64 = 8_905_969_350_865_760_263;
const DIGEST_TINS3_TRIPLE: u64 = 4_052_523_676_399_372_272;
const DIGEST_TINS4_FLOWS: u64 = 14_992_987_508_201_501_935;
