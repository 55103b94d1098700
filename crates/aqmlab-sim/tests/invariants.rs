//! Engine invariants on whole scenarios: links never send faster than their rate (checked over
//! every pair of departures in the per-packet log), packets are conserved at every link and node
//! during a run, the summary's fairness indices, per-host access delays of a dumbbell, and
//! randomness that belongs to each component.

use aqmlab_core::SimTime;
use aqmlab_qdisc::{DropReason, MarkReason};
use aqmlab_report::{FlowMetrics, Report};
use aqmlab_sim::rate::MAHIMAHI_OPPORTUNITY_BYTES;
use aqmlab_sim::scenario::{build, build_with_sets, Overrides, Scenario};
use aqmlab_sim::summary::summary;
use aqmlab_sim::world::{jain, PacketRecord, Sim};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn scenario(text: &str, ov: &Overrides) -> Scenario {
    match build(text, "t.toml", &root(), "t", ov) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

/// `scenarios/FILE` with `--set KEY=VALUE` edits.
fn scenario_file(file: &str, sets: &[(&str, &str)], ov: &Overrides) -> Scenario {
    let dir = root().join("scenarios");
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    match build_with_sets(&text, file, &dir, file, &sets, ov) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    }
}

fn logging(links: &[&str]) -> Overrides {
    Overrides {
        packet_log: links.iter().map(|s| s.to_string()).collect(),
        ..Overrides::default()
    }
}

fn log_of<'a>(sim: &'a Sim, name: &str) -> &'a [PacketRecord] {
    sim.packet_logs().find(|(n, _)| *n == name).unwrap().1
}

fn run(s: &mut Scenario) -> Report {
    s.sim.run_until(SimTime::ZERO + s.duration);
    s.sim.report()
}

// ---------------------------------------------------------------------------------------------
// 1. A link never sends faster than its rate.
// ---------------------------------------------------------------------------------------------

/// Units of the rate checks: bit·ns, i.e. bits × 10^9 on the packet side and bit/s × ns on the
/// capacity side, so that both are exact integers and nothing is rounded.
const BIT_NS_PER_BYTE: u128 = 8 * 1_000_000_000;

/// Checks, for every pair of departures `i < j` in `log` (a link's per-packet log: `t_ns` is
/// when a packet's transmission started), that the packets `i..j` (all of which have left by
/// `t_j`: a link sends one packet at a time) fit in the link's capacity over `[t_i, t_j]`:
///
/// `8e9 · Σ_{i ≤ k < j} size_k  ≤  cap_through(t_j) − cap_before(t_i)`
///
/// where `cap_before(t)` is the capacity (bit·ns) of `[0, t)` and `cap_through(t)` of `[0, t]`
/// (they differ only for a trace, whose delivery opportunities are instants). With `B_j` the
/// bit·ns of the packets before `j`, all pairs hold iff
/// `B_j − cap_through(t_j) ≤ min_{i<j} (B_i − cap_before(t_i))`, which one pass checks.
///
/// Returns, for each departure but the last, whether the next one followed it "tightly": the
/// capacity of `[t_k, t_{k+1})` exceeded packet `k` by less than `tight_bytes`. A backlogged link
/// is tight nearly everywhere, so this shows the bound above was met with (almost) no slack
/// and the check is not vacuous.
fn check_never_faster(
    what: &str,
    log: &[PacketRecord],
    cap_before: impl Fn(u64) -> u128,
    cap_through: impl Fn(u64) -> u128,
    tight_bytes: u128,
) -> Vec<bool> {
    assert!(log.len() > 1000, "{what}: only {} packets", log.len());
    let mut b: i128 = 0;
    let mut min_lhs = i128::MAX;
    let mut tight = Vec::with_capacity(log.len());
    for (j, p) in log.iter().enumerate() {
        if j > 0 {
            let q = &log[j - 1];
            assert!(p.t_ns >= q.t_ns, "{what}: departures out of order at {j}");
            let rhs = b - cap_through(p.t_ns) as i128;
            assert!(
                rhs <= min_lhs,
                "{what}: the packets before #{j} (t = {} ns) exceed the capacity since an \
                 earlier departure by {} bit·ns",
                p.t_ns,
                rhs - min_lhs
            );
            let slack = cap_before(p.t_ns) as i128
                - cap_before(q.t_ns) as i128
                - (q.size as u128 * BIT_NS_PER_BYTE) as i128;
            tight.push(slack < (tight_bytes * BIT_NS_PER_BYTE) as i128);
        }
        min_lhs = min_lhs.min(b - cap_before(p.t_ns) as i128);
        b += (p.size as u128 * BIT_NS_PER_BYTE) as i128;
    }
    tight
}

/// `log` as a link `1 − 1/speedup` faster would have sent it: every departure time scaled by
/// `1/speedup`. The checks must reject it (so they can fail).
fn faster(log: &[PacketRecord], speedup: f64) -> Vec<PacketRecord> {
    log.iter()
        .map(|p| PacketRecord {
            t_ns: (p.t_ns as f64 / speedup) as u64,
            ..*p
        })
        .collect()
}

/// Whether `f` panics (a check rejecting a doctored log).
fn rejects(f: impl FnOnce()) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err()
}

/// The fraction of `true` in `v`.
fn fraction(v: &[bool]) -> f64 {
    v.iter().filter(|&&x| x).count() as f64 / v.len() as f64
}

/// The capacity (bit·ns) of `[0, t)` of a step schedule `[(from_ns, bps)]`, integrated here.
fn steps_capacity(steps: &[(u64, u64)], t: u64) -> u128 {
    let mut c = 0u128;
    for (i, &(from, bps)) in steps.iter().enumerate() {
        let to = steps.get(i + 1).map_or(u64::MAX, |s| s.0).min(t);
        if to > from {
            c += bps as u128 * (to - from) as u128;
        }
    }
    c
}

/// The utilization of link direction `name` in `r` lies in `(min, 1]`: it was busy, and never
/// more than its capacity.
fn assert_busy(r: &Report, name: &str, min: f64) {
    let u = r.links.iter().find(|l| l.name == name).unwrap().utilization;
    assert!(u > min && u <= 1.0, "{name}: utilization {u}");
}

const UDP_FLOW: &str = "[[flows]]\nkind = \"udp\"\n";

#[test]
fn a_constant_rate_link_never_sends_faster_than_its_rate() {
    // 10 Mb/s bottleneck carrying a bulk CUBIC flow, a web server's responses and the ACKs of
    // its requests, and 300-B UDP packets at 4 Mb/s: saturated, with packets of several sizes.
    let text = format!(
        r#"
duration = "8s"
[dumbbell]
senders = 3
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "2ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "droptail"
buffer = "60p"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
cc = "cubic"
[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
app = "web"
conns_per_s = 10.0
size_mean = "20KB"
{UDP_FLOW}from = "s3"
to = "r3"
rate = "4Mbps"
size = 300
"#
    );
    let mut s = scenario(&text, &logging(&["bottleneck"]));
    let r = run(&mut s);
    let log = log_of(&s.sim, "bottleneck");
    let bps: u64 = 10_000_000;
    let cap = |t: u64| bps as u128 * t as u128;
    // A backlogged link starts the next packet exactly when the last one has left (the
    // transmission time rounds up to a whole ns, under 1 byte of capacity): most gaps are tight.
    let tight = fraction(&check_never_faster("10 Mb/s", log, cap, cap, 1));
    assert!(tight > 0.9, "tight fraction {tight}");
    // The check fails for a link 0.1 % too fast, and for one departure 1 ns early after a
    // back-to-back one.
    assert!(rejects(|| {
        check_never_faster("0.1 % fast", &faster(log, 1.001), cap, cap, 1);
    }));
    let k = (1..log.len())
        .find(|&k| log[k].t_ns - log[k - 1].t_ns == log[k - 1].size as u64 * 800)
        .unwrap();
    let mut early = log.to_vec();
    early[k].t_ns -= 1;
    assert!(rejects(|| {
        check_never_faster("1 ns early", &early, cap, cap, 1);
    }));
    // Consecutive departures are at least a transmission time ceil(8e9·size / rate) ns apart.
    let mut sizes = std::collections::BTreeSet::new();
    for w in log.windows(2) {
        let tx = (w[0].size as u64 * 8_000_000_000).div_ceil(bps);
        assert!(
            w[1].t_ns - w[0].t_ns >= tx,
            "{:?} then {:?}: {} ns < {tx} ns",
            w[0],
            w[1],
            w[1].t_ns - w[0].t_ns
        );
        sizes.insert(w[0].size);
    }
    assert!(
        sizes.contains(&1500) && sizes.contains(&300) && sizes.contains(&40),
        "{sizes:?}"
    );
    assert_busy(&r, "bottleneck", 0.95);
}

#[test]
fn a_step_schedule_link_never_sends_faster_than_its_schedule() {
    // codel-dynamic-link.toml (4 CUBIC flows + web, CoDel on both directions) shortened to
    // 210 s: it crosses the changes 100 → 10 → 1 → 50 → 1 Mb/s at 50, 100, 150 and 200 s.
    // The capacity is integrated here from the file's schedule.
    let schedule: Vec<(u64, u64)> = [
        (0, 100),
        (50, 10),
        (100, 1),
        (150, 50),
        (200, 1),
        (250, 100),
    ]
    .iter()
    .map(|&(s, mbps)| (s * 1_000_000_000, mbps * 1_000_000))
    .collect();
    let mut s = scenario_file(
        "codel-dynamic-link.toml",
        &[("duration", "210s")],
        &logging(&["bottleneck", "bottleneck.rev"]),
    );
    let r = run(&mut s);
    let cap = |t: u64| steps_capacity(&schedule, t);
    let log = log_of(&s.sim, "bottleneck");
    let tight = check_never_faster("dynamic link", log, cap, cap, 1);
    // The reverse direction has the same schedule and carries ACKs and web requests.
    check_never_faster(
        "dynamic link, reverse",
        log_of(&s.sim, "bottleneck.rev"),
        cap,
        cap,
        1,
    );
    assert!(rejects(|| {
        check_never_faster("0.1 % fast", &faster(log, 1.001), cap, cap, 1);
    }));
    // Not vacuous: in each phase the link was mostly backlogged (the next packet started the
    // instant the last one left), so a link sending even slightly too fast would fail above.
    for w in schedule.windows(2).take(5) {
        let (from, to) = (w[0].0, w[1].0.min(210_000_000_000));
        let in_phase: Vec<bool> = log[..log.len() - 1]
            .iter()
            .zip(&tight)
            .filter(|(p, _)| p.t_ns >= from && p.t_ns < to)
            .map(|(_, &t)| t)
            .collect();
        let f = fraction(&in_phase);
        assert!(f > 0.7, "phase from {from} ns: tight fraction {f}");
    }
    assert_busy(&r, "bottleneck", 0.85);
}

#[test]
fn a_schedule_with_an_outage_and_odd_rates_never_sends_too_fast() {
    // A small schedule whose changes fall mid-packet, including an outage (rate 0) during which
    // the packet in flight pauses: 15 Mb/s of 1500-B and 1 Mb/s of 210-B UDP packets keep the
    // link backlogged throughout.
    let schedule: Vec<(u64, u64)> = vec![
        (0, 8_000_000),
        (333_700_000, 0),
        (500_000_000, 2_500_000),
        (1_123_456_789, 12_000_000),
        (1_700_000_001, 3_000_000),
    ];
    let sched = schedule
        .iter()
        .map(|(t, r)| format!("[\"{t}ns\", \"{r}bps\"]"))
        .collect::<Vec<_>>()
        .join(", ");
    let text = format!(
        "duration = \"2500ms\"\nnodes = [\"a\", \"b\"]\n[[links]]\nname = \"ab\"\nfrom = \"a\"\nto = \"b\"\nschedule = [{sched}]\ndelay = \"3ms\"\nbuffer = \"50p\"\n{}{}",
        udp("a", "b", "15Mbps", 1500),
        udp("a", "b", "1Mbps", 210)
    );
    let mut s = scenario(&text, &logging(&["ab"]));
    let r = run(&mut s);
    let cap = |t: u64| steps_capacity(&schedule, t);
    let log = log_of(&s.sim, "ab");
    let tight = fraction(&check_never_faster("outage schedule", log, cap, cap, 1));
    assert!(tight > 0.95, "tight fraction {tight}");
    assert!(rejects(|| {
        check_never_faster("0.1 % fast", &faster(log, 1.001), cap, cap, 1);
    }));
    // The packet in flight when the outage starts pauses and ends only after 500 ms, so no
    // transmission starts in (333.7 ms, 500 ms]: the link does not send while it is down.
    assert!(log
        .iter()
        .all(|p| !(333_700_001..=500_000_000).contains(&p.t_ns)));
    let sizes: std::collections::BTreeSet<u32> = log.iter().map(|p| p.size).collect();
    assert_eq!(sizes.into_iter().collect::<Vec<_>>(), [210, 1500]);
    assert_busy(&r, "ab", 0.99);
}

/// Delivery opportunities (ms) of a mahimahi trace file.
fn trace_ms(path: &str) -> Vec<u64> {
    std::fs::read_to_string(root().join(path))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// Opportunities of a repeating trace (`opps` in ms, period = the last) at times `< t_ns`:
/// cycle `c` has its opportunities at `c·period + opps[i]`.
fn opportunities_before(opps: &[u64], t_ns: u64) -> u64 {
    let period = opps.last().unwrap() * 1_000_000;
    let n = opps.len() as u64;
    let before = |x: u64| opps.partition_point(|&ms| ms * 1_000_000 < x) as u64;
    let q = t_ns / period;
    // Cycle c spans [c·period, (c+1)·period] (a trace's last opportunity is at its period).
    // With q = ⌊t/period⌋, cycles before q − 1 end before t; cycle q − 1 ends at q·period ≤ t
    // (its last opportunity is before t unless t = q·period); cycle q starts at q·period ≤ t;
    // later cycles start after t.
    let full = q.saturating_sub(1) * n;
    let prev = if q >= 1 {
        before(t_ns - (q - 1) * period)
    } else {
        0
    };
    full + prev + before(t_ns - q * period)
}

#[test]
fn a_trace_link_never_sends_more_than_its_delivery_opportunities() {
    // cellular-trace.toml shortened to 20 s: two CUBIC downloads and web over a Verizon LTE
    // trace. Each opportunity carries at most 1504 B (mm-link), so the bytes of the packets
    // started in [t_i, t_j) are at most 1504 × the opportunities at instants in [t_i, t_j]
    // (a packet may share the opportunity at its own start with the one before it, and the
    // packet before t_j leaves at the latest at the opportunity at t_j).
    let mut s = scenario_file(
        "cellular-trace.toml",
        &[("duration", "20s")],
        &logging(&["bottleneck", "bottleneck.rev"]),
    );
    let r = run(&mut s);
    assert_eq!(MAHIMAHI_OPPORTUNITY_BYTES, 1504);
    for (link, file) in [
        ("bottleneck", "traces/Verizon-LTE-short.down"),
        ("bottleneck.rev", "traces/Verizon-LTE-short.up"),
    ] {
        let opps = trace_ms(file);
        let per = 1504 * BIT_NS_PER_BYTE;
        let before = |t: u64| opportunities_before(&opps, t) as u128 * per;
        let through = |t: u64| opportunities_before(&opps, t + 1) as u128 * per;
        let log = log_of(&s.sim, link);
        let tight = fraction(&check_never_faster(link, log, before, through, 1504));
        // A link 1 % faster than its trace is caught (each opportunity leaves 4 B of a
        // 1500-B packet's unused, 0.27 %, so a smaller speed-up could pass).
        assert!(rejects(|| {
            check_never_faster("1 % fast", &faster(log, 1.01), before, through, 1504);
        }));
        if link == "bottleneck" {
            // The downloads keep the downlink busy: most departures use the next opportunity.
            assert!(tight > 0.5, "{link}: tight fraction {tight}");
            assert_busy(&r, link, 0.6);
        }
    }
    // The independent count agrees with the engine's trace arithmetic at a few instants.
    let opps = trace_ms("traces/Verizon-LTE-short.down");
    let trace = aqmlab_sim::rate::DeliveryTrace::parse(
        &std::fs::read_to_string(root().join("traces/Verizon-LTE-short.down")).unwrap(),
    )
    .unwrap();
    let period = trace.period_ms() * 1_000_000;
    for t in [
        0,
        1,
        999_999,
        1_000_000,
        7_654_321_000,
        period,
        period + 1,
        2 * period + 5,
    ] {
        assert_eq!(
            opportunities_before(&opps, t),
            trace.first_at_or_after(SimTime::from_nanos(t)),
            "t = {t}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 2. Packet conservation at every link and node, during a run.
// ---------------------------------------------------------------------------------------------

/// A dumbbell of `n` sender/receiver pairs: link directions into and out of each router, and
/// each pair's two access links, by name (`sN.access`: sN → gw1, `rN.access`: gw2 → rN).
struct Dumbbell {
    routers: Vec<(&'static str, Vec<String>, Vec<String>)>,
    n: usize,
}

impl Dumbbell {
    fn new(n: usize) -> Dumbbell {
        let s = |suffix: &str| {
            (1..=n)
                .map(|i| format!("s{i}.access{suffix}"))
                .collect::<Vec<_>>()
        };
        let r = |suffix: &str| {
            (1..=n)
                .map(|i| format!("r{i}.access{suffix}"))
                .collect::<Vec<_>>()
        };
        let with = |mut v: Vec<String>, x: &str| {
            v.push(x.to_string());
            v
        };
        Dumbbell {
            routers: vec![
                (
                    "gw1",
                    with(s(""), "bottleneck.rev"),
                    with(s(".rev"), "bottleneck"),
                ),
                (
                    "gw2",
                    with(r(".rev"), "bottleneck"),
                    with(r(""), "bottleneck.rev"),
                ),
            ],
            n,
        }
    }

    /// The names above are the engine's: the route of flow sI → rI crosses sI.access,
    /// bottleneck, rI.access, and back rI.access.rev, bottleneck.rev, sI.access.rev (nodes are
    /// s1..sN, gw1, gw2, r1..rN).
    fn check_names(&self, sim: &Sim, r: &Report) {
        let n = self.n as u32;
        for i in 0..n {
            let names = |a: u32, b: u32| -> Vec<String> {
                sim.path(a, b)
                    .iter()
                    .map(|&l| r.links[l].name.clone())
                    .collect()
            };
            let k = i + 1;
            assert_eq!(
                names(i, n + 2 + i),
                [
                    format!("s{k}.access"),
                    "bottleneck".into(),
                    format!("r{k}.access")
                ]
            );
            assert_eq!(
                names(n + 2 + i, i),
                [
                    format!("r{k}.access.rev"),
                    "bottleneck.rev".into(),
                    format!("s{k}.access.rev")
                ]
            );
        }
    }
}

/// Every conservation law the report exposes, at any instant of a run. `pairs`: flow `i` is
/// the only one between sI and rI (so its packets, both ways, are all that enter sI.access and
/// rI.access.rev). Returns the packets propagating (alive and not queued).
fn check_conservation(r: &Report, d: &Dumbbell, pairs: &[usize], when: &str) -> u64 {
    let link = |name: &str| {
        r.links
            .iter()
            .find(|l| l.name == name)
            .unwrap_or_else(|| panic!("no link {name}"))
    };
    // Per link direction: every packet offered to the discipline was dropped by it, is queued,
    // is being transmitted, or was transmitted (lost on the wire or not).
    let mut backlog = 0u64;
    let mut link_drops = 0u64;
    let mut lost = 0u64;
    for l in &r.links {
        let m = &l.m;
        assert_eq!(
            m.enqueued_pkts,
            m.delivered_pkts + m.dropped_pkts + l.backlog_pkts as u64 + l.in_flight as u64,
            "{when}: link {}",
            l.name
        );
        assert_eq!(
            m.drops_by_reason.iter().sum::<u64>(),
            m.dropped_pkts,
            "{when}: {}",
            l.name
        );
        assert!(l.in_flight <= 1);
        // Random loss strikes packets as they are sent.
        assert!(
            m.lost_pkts <= m.delivered_pkts + l.in_flight as u64,
            "{when}: {}",
            l.name
        );
        backlog += l.backlog_pkts as u64;
        link_drops += m.dropped_pkts;
        lost += m.lost_pkts;
    }
    // Globally: a packet a source sent was delivered, dropped by a discipline, lost on a wire,
    // or is alive (queued or on a link).
    let sum = |f: fn(&FlowMetrics) -> u64| r.flows.iter().map(f).sum::<u64>();
    let alive = r.packets_alive as u64;
    assert_eq!(
        sum(|f| f.sent_pkts),
        sum(|f| f.delivered_pkts) + sum(|f| f.dropped_pkts) + alive,
        "{when}: global"
    );
    assert_eq!(sum(|f| f.dropped_pkts), link_drops + lost, "{when}: drops");
    assert!(alive >= backlog, "{when}: {alive} alive, {backlog} queued");
    let propagating = alive - backlog;
    // Hosts: everything a host sends is offered to its access link at once.
    for (i, &f) in pairs.iter().enumerate() {
        let k = i + 1;
        assert_eq!(
            link(&format!("s{k}.access")).m.enqueued_pkts
                + link(&format!("r{k}.access.rev")).m.enqueued_pkts,
            r.flows[f].sent_pkts,
            "{when}: hosts s{k}, r{k}"
        );
    }
    // Routers: a packet that has crossed a link into a router (transmission started, not lost,
    // no longer propagating) was at once offered to one of its outgoing links. The packets still
    // propagating towards the router are not in the report, but they are some of those
    // propagating anywhere: 0 ≤ arrived-so-far − forwarded ≤ propagating.
    let started = |name: &String| {
        let l = link(name);
        l.m.delivered_pkts + l.in_flight as u64 - l.m.lost_pkts
    };
    let mut towards_routers = 0;
    for (node, ins, outs) in &d.routers {
        let crossed: u64 = ins.iter().map(started).sum();
        let forwarded: u64 = outs.iter().map(|n| link(n).m.enqueued_pkts).sum();
        assert!(
            forwarded <= crossed && crossed - forwarded <= propagating,
            "{when}: {node}: {crossed} crossed its in-links, {forwarded} forwarded, \
             {propagating} propagating"
        );
        towards_routers += crossed - forwarded;
    }
    // Likewise towards the hosts, where every packet arriving is delivered. The propagating
    // packets are exactly those heading to routers and to hosts.
    let into_hosts: u64 = (1..=d.n)
        .map(|k| started(&format!("s{k}.access.rev")) + started(&format!("r{k}.access")))
        .sum();
    let delivered = sum(|f| f.delivered_pkts);
    assert!(into_hosts >= delivered, "{when}: hosts");
    assert_eq!(
        towards_routers + into_hosts - delivered,
        propagating,
        "{when}: propagating packets"
    );
    propagating
}

/// Runs `s` to its end in checkpoints of `step_ms`, checking conservation at each; returns the
/// last report.
fn run_checking(s: &mut Scenario, d: &Dumbbell, pairs: &[usize], step_ms: u64) -> Report {
    let end = SimTime::ZERO + s.duration;
    let mut t = SimTime::ZERO;
    let mut propagating = 0;
    let mut in_flight = 0;
    while t < end {
        t = (t + aqmlab_core::SimDuration::from_millis(step_ms)).min(end);
        s.sim.run_until(t);
        let r = s.sim.report();
        propagating += check_conservation(&r, d, pairs, &format!("t = {t}"));
        in_flight += r.links.iter().map(|l| l.in_flight as u64).sum::<u64>();
    }
    // Not vacuous: the checkpoints saw packets on the wires and transmissions under way.
    assert!(
        propagating > 0 && in_flight > 0,
        "{propagating} {in_flight}"
    );
    s.sim.report()
}

/// NewReno, CUBIC with ECN and 4 Mb/s of 700-byte UDP (with `udp_extra` keys) from s1-s3 to
/// r1-r3: the traffic of the newer disciplines' conservation tests.
fn mixed_flows(udp_extra: &str) -> String {
    format!(
        r#"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
cc = "newreno"
[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
cc = "cubic"
ecn = true
[[flows]]
kind = "udp"
from = "s3"
to = "r3"
rate = "4Mbps"
size = 700
{udp_extra}"#
    )
}

fn dumbbell3(bottleneck_extra: &str, flows: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
seed = 5
[dumbbell]
senders = 3
access_rate = "100Mbps"
sender_delay = ["1ms", "3ms", "5ms"]
receiver_delay = "2ms"
access_buffer = "200p"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "15ms"
buffer = "40p"
{bottleneck_extra}
{flows}
"#
    )
}

#[test]
fn packets_are_conserved_at_every_link_and_node_with_web_bulk_and_udp() {
    let flows = r#"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
cc = "newreno"
[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
app = "web"
conns_per_s = 15.0
size_mean = "30KB"
[[flows]]
kind = "udp"
from = "s3"
to = "r3"
rate = "3Mbps"
size = 700
"#;
    let d = Dumbbell::new(3);
    let mut s = scenario(
        &dumbbell3("qdisc = \"droptail\"", flows, "10s"),
        &Overrides::default(),
    );
    d.check_names(&s.sim, &s.sim.report());
    let r = run_checking(&mut s, &d, &[0, 1, 2], 1000);
    // Not vacuous: the bottleneck dropped packets and web exchanges ran.
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert!(b.m.dropped_pkts > 0);
    assert!(r.flows[1].transfers_completed > 50);
}

#[test]
fn packets_are_conserved_with_random_loss_and_nothing_is_left_after_a_drain() {
    // Random loss on both directions of the bottleneck (2 % of data, 1 % of ACKs and requests).
    // The sources stop (web and UDP at 6 s; the finite transfer completes), and by 40 s every
    // packet has been delivered, dropped or lost: then every router forwarded exactly what
    // crossed its in-links.
    let flows = r#"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
app = "finite"
bytes = "1MB"
[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
app = "web"
conns_per_s = 10.0
size_mean = "20KB"
stop = "6s"
[[flows]]
kind = "udp"
from = "s3"
to = "r3"
rate = "2Mbps"
on_time = "300ms"
off_time = "200ms"
stop = "6s"
"#;
    let d = Dumbbell::new(3);
    let text = dumbbell3(
        "qdisc = \"codel\"\nloss = 0.02\nreverse = { loss = 0.01 }",
        flows,
        "40s",
    );
    let mut s = scenario(&text, &Overrides::default());
    let r = run_checking(&mut s, &d, &[0, 1, 2], 1000);
    let total_lost: u64 = r.links.iter().map(|l| l.m.lost_pkts).sum();
    assert!(total_lost > 20, "{total_lost} lost");
    assert_eq!(
        r.flows[0].transfers_completed, 1,
        "the finite transfer completes"
    );
    // Drained: nothing alive, nothing queued or on a wire, no connection left.
    assert_eq!(r.packets_alive, 0);
    assert_eq!(s.sim.tcp_connections_open(), 0);
    let link = |name: &String| r.links.iter().find(|l| &l.name == name).unwrap();
    for (node, ins, outs) in &d.routers {
        let crossed: u64 = ins
            .iter()
            .map(|n| link(n).m.delivered_pkts - link(n).m.lost_pkts)
            .sum();
        let forwarded: u64 = outs.iter().map(|n| link(n).m.enqueued_pkts).sum();
        assert_eq!(crossed, forwarded, "{node}");
    }
    let sent: u64 = r.flows.iter().map(|f| f.sent_pkts).sum();
    let delivered: u64 = r.flows.iter().map(|f| f.delivered_pkts).sum();
    let dropped: u64 = r.flows.iter().map(|f| f.dropped_pkts).sum();
    assert_eq!(sent, delivered + dropped);
}

/// Every discipline added with the FQ scheduler's AQMs (FQ-PIE, COBALT, FQ-COBALT) and CoDel's
/// and FQ-CoDel's L4S mode, as a scenario's bottleneck: packets are conserved at every link and
/// node at every checkpoint (arrivals = departures + drops + backlog), and the AQM itself, not
/// only the buffer limit, dropped packets.
#[test]
fn packets_are_conserved_under_fq_pie_cobalt_fq_cobalt_and_l4s_codel() {
    let flows = &mixed_flows("");
    let d = Dumbbell::new(3);
    for qdisc in [
        "qdisc = \"fq_pie\"",
        "qdisc = \"cobalt\"",
        "qdisc = \"fq_cobalt\"",
        "qdisc = \"codel\"\nparams = { l4s = true, ce_threshold = \"1ms\", ecn = true }",
        "qdisc = \"fq_codel\"\nparams = { l4s = true, ce_threshold = \"1ms\" }",
    ] {
        let mut s = scenario(&dumbbell3(qdisc, flows, "8s"), &Overrides::default());
        let r = run_checking(&mut s, &d, &[0, 1, 2], 500);
        let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
        let limit_drops = b.m.drops_by_reason[aqmlab_qdisc::DropReason::Overlimit.index()];
        assert!(
            b.m.dropped_pkts > limit_drops,
            "{qdisc}: {} drops, {limit_drops} at the limit",
            b.m.dropped_pkts
        );
    }
}

/// CAKE (unshaped: the 10 Mb/s link is the bottleneck) with diffserv3 tins — the UDP flow is
/// marked EF (`dscp = 46`, the Voice tin) — conserves packets at every link and node, and its
/// COBALT, not only the memory limit, drops packets; shaped to 5 Mb/s as well.
#[test]
fn packets_are_conserved_under_cake() {
    let flows = &mixed_flows("dscp = 46\n");
    let d = Dumbbell::new(3);
    let mut s = scenario(
        &dumbbell3("qdisc = \"cake\"", flows, "8s"),
        &Overrides::default(),
    );
    let r = run_checking(&mut s, &d, &[0, 1, 2], 500);
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let memory = b.m.drops_by_reason[DropReason::FqMemoryFattest.index()];
    assert!(
        b.m.dropped_pkts > memory,
        "{} drops, {memory} at the memory limit",
        b.m.dropped_pkts
    );
    // Shaped below the link's rate (5 of 10 Mb/s): the link wakes at the shaper's next send
    // time, and packets are conserved at every checkpoint as well.
    let shaped = dumbbell3(
        "qdisc = \"cake\"\nparams = { bandwidth = \"5Mbps\" }",
        flows,
        "8s",
    );
    let mut s = scenario(&shaped, &Overrides::default());
    let r = run_checking(&mut s, &d, &[0, 1, 2], 500);
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    assert!(
        b.utilization < 0.5,
        "shaped to half the link: {}",
        b.utilization
    );
    assert!(b.utilization > 0.4, "{}", b.utilization);
    let bad = dumbbell3(
        "qdisc = \"cake\"",
        &flows.replace("dscp = 46", "dscp = 64"),
        "8s",
    );
    let e = build(&bad, "t.toml", &root(), "t", &Overrides::default())
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("dscp") && e.contains("0 to 63"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// 3. Jain's fairness index of goodput and drops.
// ---------------------------------------------------------------------------------------------

/// Three independent paths: a → b and e → f at 10 Mb/s with 20-packet tail-drop buffers, c → d
/// at 100 Mb/s; 1 ms delays. `flows` are UDP sources on them.
fn three_paths(flows: &str) -> String {
    let link = |name: &str, from: &str, to: &str, rate: &str| {
        format!(
            "[[links]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\nrate = \"{rate}\"\ndelay = \"1ms\"\nqdisc = \"droptail\"\nbuffer = \"20p\"\n"
        )
    };
    format!(
        "duration = \"10s\"\nnodes = [\"a\", \"b\", \"c\", \"d\", \"e\", \"f\"]\n{}{}{}{flows}",
        link("ab", "a", "b", "10Mbps"),
        link("cd", "c", "d", "100Mbps"),
        link("ef", "e", "f", "10Mbps"),
    )
}

fn udp(from: &str, to: &str, rate: &str, size: u32) -> String {
    format!("{UDP_FLOW}from = \"{from}\"\nto = \"{to}\"\nrate = \"{rate}\"\nsize = {size}\n")
}

#[test]
fn fairness_indices_match_hand_computed_values() {
    // A: 15 Mb/s of 1500-B packets into the 10 Mb/s a → b from t = 0. Its queue never empties
    // (a packet every 0.8 ms, one sent every 1.2 ms), so packet k leaves at (k+1)·1.2 ms and
    // arrives 1 ms later; by 10 s (events before 10 s) 8332 have arrived ((8332·1.2 + 1) ms =
    // 9999.4 ms; the next at 10000.6 ms): 12 498 000 B, a goodput of 9 998 400 b/s.
    // B: 1 Mb/s of 1250-B packets on the idle 100 Mb/s c → d: one every 10 ms, each arriving
    // 1.1 ms later; the 1000 sent before 10 s all arrive: exactly 1 000 000 b/s, no drops.
    let (ga, gb) = (9_998_400.0_f64, 1_000_000.0_f64);
    let a = udp("a", "b", "15Mbps", 1500);
    let b = udp("c", "d", "1Mbps", 1250);
    let mut s = scenario(&three_paths(&(a.clone() + &b)), &Overrides::default());
    let r = run(&mut s);
    let j = summary(&s.name, s.seed, &r, 0.0);
    let fair = &j["fairness"];
    let (jg, jd) = (
        fair["jain_goodput"].as_f64().unwrap(),
        fair["jain_drops"].as_f64().unwrap(),
    );
    let goodputs: Vec<f64> = (0..2)
        .map(|i| j["flows"][i]["goodput_bps"].as_f64().unwrap())
        .collect();
    assert_eq!(goodputs, [ga, gb]);
    // (ga + gb)² / (2 (ga² + gb²)) ≈ 0.59903.
    let sq = |x: f64| x * x;
    let expected = sq(ga + gb) / (2.0 * (ga * ga + gb * gb));
    assert!((jg - expected).abs() < 1e-12, "{jg} vs {expected}");
    assert!((jg - 0.599).abs() < 1e-3, "{jg}");
    // Only A loses packets (about a third of its 12 500), B none: one flow has every drop, so
    // Jain's index is 1/n = 0.5 exactly.
    assert!(r.flows[0].dropped_pkts > 4000 && r.flows[1].dropped_pkts == 0);
    assert_eq!(jd, 0.5);
    assert_eq!(jain(&[r.flows[0].dropped_pkts as f64, 0.0]), 0.5);

    // With C: 20 Mb/s of 1500-B packets into the 10 Mb/s e → f. It delivers exactly what A does
    // (same link, also never idle). Drops: a flow sending N packets into a link that sends
    // 8333 (8334 with the one in transmission) keeps 20 queued: A sent 12 500 (one per 0.8 ms
    // before 10 s), C 16 667 (one per 0.6 ms), so drops ≈ 12 500 − 8354 = 4146 and
    // 16 667 − 8354 = 8313 (± a packet or two of edge effects), and B 0.
    let c = udp("e", "f", "20Mbps", 1500);
    let mut s = scenario(&three_paths(&(a + &b + &c)), &Overrides::default());
    let r = run(&mut s);
    let j = summary(&s.name, s.seed, &r, 0.0);
    let fair = &j["fairness"];
    let (jg, jd) = (
        fair["jain_goodput"].as_f64().unwrap(),
        fair["jain_drops"].as_f64().unwrap(),
    );
    let g = [ga, gb, ga];
    let expected_g = sq(2.0 * ga + gb) / (3.0 * (2.0 * ga * ga + gb * gb)); // ≈ 0.73135
    assert!((jg - expected_g).abs() < 1e-12, "{jg} vs {expected_g}");
    assert!((jain(&g) - expected_g).abs() < 1e-12);
    let (da, dc) = (4146.0_f64, 8313.0_f64);
    let expected_d = sq(da + dc) / (3.0 * (da * da + dc * dc)); // ≈ 0.59960
    assert!((jd - expected_d).abs() < 1e-3, "{jd} vs {expected_d}");
    // The summary's index is Jain's of the report's drop counts.
    let drops: Vec<f64> = r.flows.iter().map(|f| f.dropped_pkts as f64).collect();
    assert!((jd - jain(&drops)).abs() < 1e-15, "{drops:?}");
    for (i, f) in r.flows.iter().enumerate() {
        let expected = [da, 0.0, dc][i];
        assert!(
            (f.dropped_pkts as f64 - expected).abs() <= 3.0,
            "flow {i}: {}",
            f.dropped_pkts
        );
    }
    // Neither index is trivially 1 (or 1/n).
    assert!(jg < 0.9 && jd < 0.9 && jd > 1.0 / 3.0);
}

// ---------------------------------------------------------------------------------------------
// 4. Per-host access delays of a dumbbell.
// ---------------------------------------------------------------------------------------------

#[test]
fn per_host_access_delays_set_each_flows_round_trip() {
    // Three pairs with different sender and receiver delays, each a one-segment transfer
    // (100 B, no delayed ACK) started 1 s apart so they never meet in a queue. Each FCT is
    // that of tcp_engine's one_packet_transfer_pays_the_handshake with the pair's own one-way
    // propagation p = sender_delay + 20 ms + receiver_delay: SYN, SYN-ACK, ACK (40 B: 320 ns per
    // 1 Gb/s hop, 32 µs on the 10 Mb/s bottleneck) and the 140-B data packet (1.12 µs per
    // access hop, 112 µs on the bottleneck), then its ACK: FCT = 4p + 3·(2·320 + 32 000) ns
    // + (2·1120 + 112 000) ns. Using one delay for every host (or swapping the lists) would
    // change p: 24, 38 and 27 ms here.
    let sd = [1u64, 7, 2];
    let rd = [3u64, 11, 5];
    let flows: String = (1..=3)
        .map(|i| {
            format!(
                "[[flows]]\nkind = \"tcp\"\nfrom = \"s{i}\"\nto = \"r{i}\"\napp = \"finite\"\nbytes = \"100B\"\ndelayed_ack = false\nstart = \"{}s\"\n",
                i - 1
            )
        })
        .collect();
    let text = format!(
        r#"
duration = "4s"
[dumbbell]
senders = 3
access_rate = "1Gbps"
sender_delay = ["1ms", "7ms", "2ms"]
receiver_delay = ["3ms", "11ms", "5ms"]
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "20ms"
qdisc = "droptail"
buffer = "100p"
{flows}"#
    );
    let mut s = scenario(&text, &Overrides::default());
    let r = run(&mut s);
    let ctl: u64 = 2 * 320 + 32_000;
    let data: u64 = 2 * 1_120 + 112_000;
    for i in 0..3 {
        let p = (sd[i] + 20 + rd[i]) * 1_000_000;
        let f = &r.flows[i];
        assert_eq!(
            (f.transfers_started, f.transfers_completed),
            (1, 1),
            "flow {i}"
        );
        let fct = 4 * p + 3 * ctl + data;
        assert_eq!(f.fct_ns.max(), fct as f64, "flow {i}");
        // The sender's first RTT sample is its SYN's: out and back, p + ctl each way; the
        // smoothed RTT starts there, and the data segment's sample (its ACK, FCT − 2p − 2ctl
        // after it left) is larger.
        let syn_rtt = 2 * (p + ctl);
        let data_rtt = fct - syn_rtt;
        assert!(data_rtt > syn_rtt);
        assert_eq!(f.srtt_ns.count(), 2, "flow {i}");
        let srtt = f.srtt_ns.max();
        assert!(
            srtt > syn_rtt as f64 && srtt < data_rtt as f64,
            "flow {i}: {srtt} not in ({syn_rtt}, {data_rtt})"
        );
        // RFC 6298: srtt = 7/8·srtt + 1/8·sample.
        let rfc = (7 * syn_rtt + data_rtt) as f64 / 8.0;
        assert!((srtt - rfc).abs() <= 1.0, "flow {i}: {srtt} vs {rfc}");
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Each component has its own random stream.
// ---------------------------------------------------------------------------------------------

/// Web traffic (Poisson arrivals, Pareto sizes) and an on/off UDP source from srv to cli over
/// a lossy CoDel bottleneck; with `extra`, a disjoint pair x → y (its own nodes and a lossy
/// link) carrying more randomised traffic, appended after the first flows.
fn component_scenario(seed: u64, extra: bool) -> String {
    let mut t = format!(
        r#"
duration = "15s"
seed = {seed}
nodes = ["srv", "g", "cli"{}]
[[links]]
name = "up"
from = "srv"
to = "g"
rate = "100Mbps"
delay = "2ms"
[[links]]
name = "bn"
from = "g"
to = "cli"
rate = "6Mbps"
delay = "10ms"
qdisc = "codel"
buffer = "100p"
loss = 0.01
"#,
        if extra { ", \"x\", \"y\"" } else { "" }
    );
    if extra {
        t += "[[links]]\nname = \"xy\"\nfrom = \"x\"\nto = \"y\"\nrate = \"3Mbps\"\ndelay = \"5ms\"\nbuffer = \"20p\"\nloss = 0.05\n";
    }
    t += r#"
[[flows]]
kind = "tcp"
from = "srv"
to = "cli"
app = "web"
conns_per_s = 8.0
size_mean = "25KB"
[[flows]]
kind = "udp"
from = "srv"
to = "cli"
rate = "2Mbps"
on_time = "400ms"
off_time = "600ms"
"#;
    if extra {
        t += r#"
[[flows]]
kind = "tcp"
from = "x"
to = "y"
app = "web"
conns_per_s = 20.0
size_mean = "10KB"
[[flows]]
kind = "udp"
from = "x"
to = "y"
rate = "1Mbps"
on_time = "100ms"
off_time = "100ms"
onoff_shape = 1.5
[[flows]]
kind = "tcp"
from = "x"
to = "y"
cc = "cubic"
"#;
    }
    t
}

/// Everything observable about flows 0 and 1 and links up/bn (and their reverses).
fn old_components(r: &Report) -> String {
    let mut v = String::new();
    for f in &r.flows[..2] {
        v += &format!(
            "{} {} {} {} {} {} {} {} {} {} {:?} {} {} {} {}\n",
            f.sent_pkts,
            f.sent_bytes,
            f.delivered_pkts,
            f.delivered_bytes,
            f.dropped_pkts,
            f.retransmits,
            f.timeouts,
            f.transfers_started,
            f.transfers_completed,
            f.transfers_failed,
            f.delivered_bytes_per_bin(),
            f.fct_ns.count(),
            f.fct_ns.mean(),
            f.srtt_ns.count(),
            f.srtt_ns.mean(),
        );
    }
    for l in r.links.iter().filter(|l| !l.name.starts_with("xy")) {
        let m = &l.m;
        v += &format!(
            "{} {} {} {} {} {} {:?}\n",
            l.name,
            m.enqueued_pkts,
            m.delivered_pkts,
            m.dropped_pkts,
            m.lost_pkts,
            m.sojourn_ns.mean(),
            m.egress_bytes_per_bin
        );
    }
    v
}

#[test]
fn adding_a_disjoint_flow_leaves_the_other_flows_random_draws_alone() {
    let report = |seed: u64, extra: bool| {
        let mut s = scenario(&component_scenario(seed, extra), &Overrides::default());
        run(&mut s)
    };
    let base = report(3, false);
    let more = report(3, true);
    // The new flows ran, drawing on their own streams (web arrivals, on/off periods, losses)...
    assert_eq!(more.flows.len(), 5);
    assert!(more.flows[2].transfers_started > 100 && more.flows[3].sent_pkts > 100);
    assert!(
        more.links
            .iter()
            .find(|l| l.name == "xy")
            .unwrap()
            .m
            .lost_pkts
            > 0
    );
    // ...and the first flows and their links are exactly as without them: web arrivals and
    // sizes, on/off periods and the bottleneck's losses come from streams of their own.
    assert_eq!(old_components(&base), old_components(&more));
    // Those counters do depend on the random draws: another seed changes them.
    let other = report(4, false);
    assert_ne!(old_components(&base), old_components(&other));
    assert_ne!(
        base.flows[0].transfers_started,
        other.flows[0].transfers_started
    );
    assert_ne!(base.flows[1].sent_pkts, other.flows[1].sent_pkts);
    assert!(
        base.links
            .iter()
            .find(|l| l.name == "bn")
            .unwrap()
            .m
            .lost_pkts
            > 0
    );
}

#[test]
fn packets_are_conserved_through_dualpi2_with_l4s_udp_and_classic_tcp() {
    // A DualPI2 bottleneck (RFC 9332) fed by a classic TCP flow (Not-ECT: C queue), an ECN TCP
    // flow (ECT(0): C queue, marked with p_C = p'^2) and an unresponsive ECT(1) UDP flow at 60 %
    // of the link (L queue). Conservation holds at every checkpoint, at every link and node.
    let flows = r#"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
cc = "newreno"
[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
cc = "newreno"
ecn = true
[[flows]]
kind = "udp"
from = "s3"
to = "r3"
rate = "6Mbps"
size = 1000
ecn_codepoint = "ect1"
"#;
    let d = Dumbbell::new(3);
    let text = dumbbell3("qdisc = \"dualpi2\"\nbuffer = \"200p\"", flows, "20s")
        .replace("buffer = \"40p\"\n", "");
    let mut s = scenario(&text, &Overrides::default());
    let r = run_checking(&mut s, &d, &[0, 1, 2], 1000);
    let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let mark = |x: MarkReason| b.m.marks_by_reason[x.index()];
    let drop = |x: DropReason| b.m.drops_by_reason[x.index()];
    // Not vacuous: every mechanism acted. The L4S flow is marked (coupled and by the step), the
    // ECN TCP flow is marked with p_C, the classic flow is dropped with p_C; nothing overflowed.
    assert!(
        mark(MarkReason::Dualpi2Coupled) + mark(MarkReason::Dualpi2Step) > 100,
        "{:?}",
        b.m.marks_by_reason
    );
    assert!(
        mark(MarkReason::Dualpi2Classic) > 0,
        "{:?}",
        b.m.marks_by_reason
    );
    assert!(
        drop(DropReason::Dualpi2Classic) > 0,
        "{:?}",
        b.m.drops_by_reason
    );
    assert_eq!(drop(DropReason::Overlimit), 0);
    // ECT(1) datagrams are marked, never dropped, except in overload (p' >= 1/k), which also
    // drops ECT(0) packets of the C queue.
    assert!(r.flows[2].dropped_pkts <= drop(DropReason::Dualpi2Overload));
    assert!(
        r.flows[2].dropped_pkts * 1000 < r.flows[2].sent_pkts,
        "{}",
        r.flows[2].dropped_pkts
    );
    // Same scenario, same seed: the same report.
    let mut again = scenario(&text, &Overrides::default());
    again.sim.run_until(SimTime::ZERO + again.duration);
    assert_eq!(
        format!("{:?}", again.sim.report().links),
        format!("{:?}", r.links)
    );
}

/// CoDel's and FQ-CoDel's L4S mode with ECT(1) traffic in the scenario (the test above has none,
/// so its L4S path never runs): an unresponsive ECT(1) UDP flow beside classic and ECN TCP.
/// Packets are conserved at every checkpoint; ECT(1) packets are marked at the shallow
/// `ce_threshold` and never by CoDel's control law (ns-3 `UseL4s`), so the L4S flow's marks are
/// all threshold marks; with `l4s = false` the same flow is also marked by the control law.
#[test]
fn l4s_mode_marks_ect1_at_the_threshold_and_conserves_packets() {
    let flows = &mixed_flows("ecn_codepoint = \"ect1\"\n");
    let d = Dumbbell::new(3);
    for (qdisc, l4s) in [
        ("codel", "l4s = true, ecn = true"),
        ("fq_codel", "l4s = true"),
        ("codel", "l4s = false, ecn = true"),
        ("fq_codel", "l4s = false"),
    ] {
        let extra = format!("qdisc = \"{qdisc}\"\nparams = {{ {l4s}, ce_threshold = \"1ms\" }}");
        let mut s = scenario(&dumbbell3(&extra, flows, "8s"), &Overrides::default());
        let r = run_checking(&mut s, &d, &[0, 1, 2], 500);
        let b = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
        // Marks of flow `f` (all links; only the bottleneck marks) for reason `x`.
        let marks = |f: usize, x: MarkReason| -> u64 {
            r.flows[f]
                .at_links
                .iter()
                .map(|(_, c)| c.marks_by_reason()[x.index()])
                .sum()
        };
        let (threshold, law) = (MarkReason::CodelCeThreshold, MarkReason::CodelTarget);
        let what = format!(
            "{qdisc} {l4s}: ECT(1) UDP {} threshold, {} control-law marks; ECT(0) CUBIC {} threshold marks",
            marks(2, threshold),
            marks(2, law),
            marks(1, threshold)
        );
        assert!(marks(2, threshold) > 1000, "{what}");
        if l4s.starts_with("l4s = true") {
            // ns-3 UseL4s: ECT(1) skips CoDel (threshold only); ECT(0) is classic (no threshold).
            assert_eq!(marks(2, law), 0, "{what}");
            assert_eq!(marks(1, threshold), 0, "{what}");
            assert!(b.m.marks_by_reason[law.index()] > 0, "{what}");
        } else {
            // Counterfactual: classic ce_threshold marks every ECT packet, ECT(0) included.
            assert!(marks(1, threshold) > 0, "{what}");
        }
    }
}
