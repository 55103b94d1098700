//! No heap allocation per packet in steady state: a counting global allocator (its own test
//! binary, since a global allocator applies to the whole binary) around a window of a bulk run.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build_with_sets, Overrides, Scenario};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::path::PathBuf;

// The system allocator, counting. This file holds one test, so no other test thread allocates
// while it counts.
#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocations and reallocations made while `f` runs.
fn allocations(f: impl FnOnce()) -> u64 {
    let region = Region::new(GLOBAL);
    f();
    let c = region.change();
    (c.allocations + c.reallocations) as u64
}

/// scenarios/bulk-dumbbell.toml (8 NewReno flows through a 100 Mb/s, 1000-packet tail-drop
/// bottleneck, 100 ms RTT) with `--set` edits.
fn bulk(sets: &[(&str, &str)]) -> Scenario {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios"));
    let text = std::fs::read_to_string(dir.join("bulk-dumbbell.toml")).unwrap();
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    build_with_sets(
        &text,
        "bulk-dumbbell.toml",
        &dir,
        "bulk",
        &sets,
        &Overrides::default(),
    )
    .unwrap()
}

/// Packets every link direction finished sending so far (each packet counts once per hop).
fn hops(s: &Scenario) -> u64 {
    s.sim
        .report()
        .links
        .iter()
        .map(|l| l.m.delivered_pkts)
        .sum()
}

#[test]
fn steady_state_packets_allocate_nothing() {
    // Warm up for 6 s: slow start's overshoot (the largest window, queue and number of packets
    // alive of the run) is over by then, so every queue, pipe, arena and the event heap have
    // reached the capacity they need; then count the allocations of the next 10 simulated
    // seconds.
    let warm = SimTime::from_secs(6);
    let end = SimTime::from_secs(16);

    // With one 100-s time-series bin no series grows in the window either: nothing at all may
    // allocate, over about 380 000 packet hops (8333 data packets/s across 3 hops and their
    // ACKs, one per two segments, across 3 more).
    let mut s = bulk(&[("bin", "100s")]);
    s.sim.run_until(warm);
    let before = hops(&s);
    let n = allocations(|| s.sim.run_until(end));
    let window_hops = hops(&s) - before;
    assert!(window_hops > 300_000, "{window_hops} hops");
    assert_eq!(n, 0, "{n} allocations over {window_hops} packet hops");

    // With the default 100-ms bins the per-bin series grow with simulated time: one vector per
    // link direction (8 × 4 access directions + 2 bottleneck directions = 34) and one per flow
    // (rows of delivered bytes and sRTT samples: 8), each reallocating when it outgrows
    // its capacity (doubling: 4, 8, …, 64, 128, 256). From 7 s to 12.7 s every series already
    // holds between 65 and 127 bins (all carry traffic every bin), within a capacity of 128:
    // not one allocation, over about 215 000 packet hops.
    let mut s = bulk(&[]);
    s.sim.run_until(SimTime::from_secs(7));
    let before = hops(&s);
    let n = allocations(|| s.sim.run_until(SimTime::from_millis(12_700)));
    let window_hops = hops(&s) - before;
    assert!(window_hops > 150_000, "{window_hops} hops");
    assert_eq!(n, 0, "{n} allocations over {window_hops} packet hops");
    // Crossing bin 128 (12.8 s), each series doubles once: at most 34 + 8 = 42 allocations,
    // however many packets pass (measured: exactly 42).
    let n = allocations(|| s.sim.run_until(SimTime::from_millis(13_500)));
    assert!(n > 0 && n <= 34 + 8, "{n} allocations");

    // On/off applications over TCP write into their open connections (an event and a
    // `TcpSender::write` per write) without allocating either: the eight flows as on/off
    // applications writing at 25 Mb/s, on and off 1 s on average.
    let mut sets = vec![("bin".to_string(), "100s".to_string())];
    for i in 0..8 {
        for (k, v) in [
            ("app", "\"onoff\""),
            ("rate", "\"25Mbps\""),
            ("on_time", "\"1s\""),
            ("off_time", "\"1s\""),
        ] {
            sets.push((format!("flows[{i}].{k}"), v.to_string()));
        }
    }
    let sets: Vec<(&str, &str)> = sets.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    // Random periods reach new peaks of window, backlog and packets alive for longer than a
    // bulk run's slow start, and each new peak grows a queue, pipe or arena once. With ns-2's
    // burst rule (branch `onoff13`) the growth falls, in 5-s windows over 0-120 s (measured),
    // at 0-10 s (382), then one each at 15-20, 35-40 and 70-75 s, never after. Count from 80 s
    // to 110 s: over a million packet hops.
    let mut s = bulk(&sets);
    s.sim.run_until(SimTime::from_secs(80));
    let before = hops(&s);
    let n = allocations(|| s.sim.run_until(SimTime::from_secs(110)));
    let window_hops = hops(&s) - before;
    assert!(window_hops > 1_000_000, "{window_hops} hops");
    assert_eq!(
        n, 0,
        "{n} allocations over {window_hops} packet hops (on/off)"
    );

    // Taken between steps, as `aqmlab run` takes them, the series cost a step one vector of
    // rows per series handed out (34 link directions, 8 flows) and the chunk's 6 lists, each
    // made at its size, and nothing per packet: each series sending on keeps its room for the
    // next step's rows. Steps of 1 s (10 bins), ending at a bin's start and within a bin. A
    // flow's series handed out whole, or left the room of the rows after the step
    // (`split_off`), grew again by doubling every step (2 or 3 allocations a flow more), and
    // the lists grew by doubling (18 more; issue 24 item 3).
    let mut s = bulk(&[]);
    for t in 1..=8 {
        s.sim.run_until(SimTime::from_secs(t));
        drop(s.sim.take_series(false));
    }
    for end in [9_000, 10_050, 11_050] {
        let n = allocations(|| {
            s.sim.run_until(SimTime::from_millis(end));
            drop(s.sim.take_series(false));
        });
        assert_eq!(n, 34 + 8 + 6, "{n} allocations in the step to {end} ms");
    }

    // A flow that keeps no series (`[output] flow_series`) costs a step nothing: with one of
    // the 8 flows' series kept, a step makes the 34 link directions' vectors, the one flow's
    // and the chunk's 6 lists (issue 24 item 3).
    let mut s = bulk(&[("output.flow_series", "[3]")]);
    for t in 1..=8 {
        s.sim.run_until(SimTime::from_secs(t));
        drop(s.sim.take_series(false));
    }
    for end in [9_000, 10_050, 11_050] {
        let n = allocations(|| {
            s.sim.run_until(SimTime::from_millis(end));
            drop(s.sim.take_series(false));
        });
        assert_eq!(n, 34 + 1 + 6, "{n} allocations in the step to {end} ms");
    }

    // The counter counts: a report copies every series.
    assert!(allocations(|| drop(s.sim.report())) > 34);
}
