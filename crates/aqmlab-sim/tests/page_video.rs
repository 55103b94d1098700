//! Web pages (`app = "page"`, RFC 7928 §7.2: 50 objects over 6 connections) and adaptive video
//! (`app = "video"`) through the engine: exact object counts, conservation of bytes, the page
//! time against the simple web model, and the video's playout identity.

use aqmlab_core::SimTime;
use aqmlab_report::Report;
use aqmlab_sim::scenario::{build, Overrides};
use aqmlab_sim::world::page_objects;
use std::path::Path;

fn run(text: &str) -> Report {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let mut s = match build(text, "t.toml", dir, "t", &Overrides::default()) {
        Ok(s) => s,
        Err(e) => panic!("{e}"),
    };
    s.sim.run_until(SimTime::ZERO + s.duration);
    let r = s.sim.report();
    if !text.contains("app = \"video\"") {
        assert_eq!(s.sim.tcp_connections_open(), 0, "every connection is freed");
    }
    r
}

/// One sender and one receiver across a `rate` bottleneck (20 ms one way, 1-ms access links):
/// base RTT 44 ms.
fn dumbbell(rate: &str, flow: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[dumbbell]
senders = 1
access_rate = "1Gbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "{rate}"
delay = "20ms"
qdisc = "droptail"
buffer = "1000p"
[[flows]]
kind = "tcp"
from = "s1"
to = "r1"
initial_cwnd = 10
{flow}
"#
    )
}

fn error(text: &str) -> String {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    match build(text, "t.toml", dir, "t", &Overrides::default()) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_page_of_50_objects_over_6_connections_splits_9_9_8_8_8_8() {
    let per: Vec<Vec<u32>> = (0..6).map(|j| page_objects(50, 6, j).collect()).collect();
    assert_eq!(
        per.iter().map(Vec::len).collect::<Vec<_>>(),
        [9, 9, 8, 8, 8, 8]
    );
    let mut all: Vec<u32> = per.concat();
    all.sort_unstable();
    assert_eq!(all, (0..50).collect::<Vec<_>>(), "every object once");
    assert_eq!(per[1][..3], [1, 7, 13]);
}

#[test]
fn every_object_of_every_page_is_fetched_and_its_bytes_delivered() {
    // Pages every 5 s from 0 to 20 s: 4 pages of 50 objects of 2000 B.
    let flow = "app = \"page\"\ninterval = \"5s\"\nsize_dist = \"constant\"\nsize_mean = \"2000B\"\nstop = \"20s\"";
    let r = run(&dumbbell("10Mbps", flow, "25s"));
    let m = &r.flows[0];
    assert_eq!(r.flow_info[0].app, "page");
    assert_eq!(
        (m.pages_started, m.pages_completed, m.pages_failed),
        (4, 4, 0)
    );
    assert_eq!((m.transfers_started, m.transfers_completed), (200, 200));
    assert_eq!(m.delivered_bytes, 4 * 50 * 2000);
    assert_eq!(m.page_time_ns.count(), 4);
    // The longest connection carries 9 objects, one after another: a handshake and 9 request/
    // response round trips of at least the 44-ms base RTT each.
    assert!(
        m.page_time_ns.quantile(0.0) > 10.0 * 44e6,
        "{}",
        m.page_time_ns.quantile(0.0)
    );
    assert!(
        m.page_time_ns.max() < 12.0 * 44e6,
        "{}",
        m.page_time_ns.max()
    );
    // Counterfactual: the same page over one connection takes 50 round trips, not 9.
    let one = run(&dumbbell("10Mbps", &format!("{flow}\nparallel = 1"), "25s"));
    let m1 = &one.flows[0];
    assert_eq!((m1.pages_completed, m1.transfers_completed), (4, 200));
    assert!(
        m1.page_time_ns.quantile(0.0) > 51.0 * 44e6,
        "{}",
        m1.page_time_ns.quantile(0.0)
    );
}

#[test]
fn a_page_of_one_object_takes_what_one_web_exchange_takes() {
    // The page model's one connection, one object is the web model's exchange, to the ns.
    let keys = "interval = \"1s\"\nsize_dist = \"constant\"\nsize_mean = \"30000B\"\nstop = \"3s\"";
    let page = run(&dumbbell(
        "10Mbps",
        &format!("app = \"page\"\nobjects = 1\n{keys}"),
        "4s",
    ));
    let web = run(&dumbbell("10Mbps", &format!("app = \"web\"\n{keys}"), "4s"));
    let (p, w) = (&page.flows[0], &web.flows[0]);
    assert_eq!((p.pages_completed, w.transfers_completed), (3, 3));
    assert_eq!(p.page_time_ns.mean(), w.fct_ns.mean());
    assert_eq!(p.page_time_ns.max(), w.fct_ns.max());
    assert_eq!(p.delivered_bytes, w.delivered_bytes);
}

#[test]
fn page_and_video_keys_are_checked() {
    let e = error(&dumbbell(
        "10Mbps",
        "app = \"page\"\nsize_mean = \"2000B\"",
        "1s",
    ));
    assert!(
        e.contains("flows[0].conns_per_s") && e.contains("web pages need"),
        "{e}"
    );
    let e = error(&dumbbell(
        "10Mbps",
        "app = \"page\"\ninterval = \"1s\"\nparallel = 0",
        "1s",
    ));
    assert!(
        e.contains("flows[0].parallel") && e.contains("from 1 to 100000"),
        "{e}"
    );
    let e = error(&dumbbell(
        "10Mbps",
        "app = \"web\"\ninterval = \"1s\"\nobjects = 5",
        "1s",
    ));
    assert!(
        e.contains("flows[0].objects") && e.contains("app = \"page\""),
        "{e}"
    );
    let e = error(&dumbbell("10Mbps", "app = \"video\"", "1s"));
    assert!(e.contains("flows[0].ladder"), "{e}");
    let e = error(&dumbbell(
        "10Mbps",
        "app = \"video\"\nladder = [\"2Mbps\", \"1Mbps\"]",
        "1s",
    ));
    assert!(
        e.contains("flows[0].ladder[1]") && e.contains("increasing"),
        "{e}"
    );
    let e = error(&dumbbell(
        "10Mbps",
        "app = \"video\"\nladder = [\"1Mbps\"]\nsafety = 1.5",
        "1s",
    ));
    assert!(e.contains("flows[0].safety"), "{e}");
    let e = error(&dumbbell(
        "10Mbps",
        "app = \"bulk\"\nladder = [\"1Mbps\"]",
        "1s",
    ));
    assert!(
        e.contains("flows[0].ladder") && e.contains("app = \"video\""),
        "{e}"
    );
}

#[test]
fn a_video_that_stops_delivers_exactly_its_segments() {
    // Ladder 1, 2, 4 Mb/s, 1-s segments: a segment at r is r/8 bytes. Requests stop at 20 s;
    // the run goes on to 30 s, so every segment asked for has arrived and been acknowledged.
    let flow = "app = \"video\"\nladder = [\"1Mbps\", \"2Mbps\", \"4Mbps\"]\nsegment = \"1s\"\nplayout_buffer = \"4s\"\nstop = \"20s\"";
    let r = run(&dumbbell("10Mbps", flow, "30s"));
    let m = &r.flows[0];
    assert_eq!(r.flow_info[0].app, "video");
    assert!(m.video_segments >= 20, "{}", m.video_segments);
    assert_eq!(m.transfers_completed, m.video_segments);
    assert_eq!(m.delivered_bytes * 8, m.video_bitrate_sum_bps);
    // On an idle 10-Mb/s path with a 4-s buffer the video plays without a stall, and climbs
    // above its lowest rung.
    assert_eq!((m.video_rebuffers, m.video_rebuffer_ns), (0, 0));
    assert!(m.video_bitrate_sum_bps > 1_000_000 * m.video_segments);
    // Counterfactual: a 1.5-Mb/s path cannot carry the 2-Mb/s rung at 0.9 of its throughput.
    let slow = run(&dumbbell("1500kbps", flow, "30s"));
    let s = &slow.flows[0];
    assert_eq!(s.video_bitrate_sum_bps, 1_000_000 * s.video_segments);
    assert_eq!(s.video_switches, 0);
}

#[test]
fn a_video_above_its_path_stalls_for_exactly_the_time_not_played() {
    // Its one rung (4 Mb/s) is twice the path's rate: the buffer is dry at every arrival and at
    // the end. Then the run's time after the first segment is media played plus stalls:
    // T − start − startup = segments × 1 s + rebuffer time, to the nanosecond.
    let flow = "app = \"video\"\nladder = [\"4Mbps\"]\nsegment = \"1s\"\nstart = \"1s\"";
    let r = run(&dumbbell("2Mbps", flow, "30s"));
    let m = &r.flows[0];
    let startup = m.video_startup_ns.expect("the first segment came");
    assert!(m.video_segments >= 10, "{}", m.video_segments);
    assert_eq!(
        m.video_rebuffers, m.video_segments,
        "a stall before each later segment, and one going on"
    );
    assert_eq!(
        29_000_000_000 - startup,
        m.video_segments * 1_000_000_000 + m.video_rebuffer_ns
    );
}
