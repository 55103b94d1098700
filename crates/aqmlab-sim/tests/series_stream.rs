//! Streaming the time series: a run that hands its series out in chunks between steps
//! (`Sim::take_series`), so that its memory stays flat, must give exactly the series and totals
//! of the same run reported once at the end; and the series it keeps in memory must not grow
//! with the simulated time.

use aqmlab_core::{SimDuration, SimTime};
use aqmlab_report::{FlowBin, Report};
use aqmlab_sim::scenario::{apply_sets, build, Overrides, Scenario};
use aqmlab_sim::summary::summary;
use aqmlab_sim::world::{DropRecord, LinkBin, PacketRecord, SeriesChunk};
use std::path::Path;

fn load(name: &str, duration: &str, ov: &Overrides) -> Scenario {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let test_only = root
        .join("tests/reference/scenarios")
        .join(format!("{name}.toml"));
    let path = if test_only.exists() {
        test_only
    } else {
        root.join("scenarios").join(format!("{name}.toml"))
    };
    let file = path.display().to_string();
    let text = std::fs::read_to_string(&path).unwrap();
    let text = apply_sets(&text, &file, &[("duration".into(), duration.into())]).unwrap();
    build(&text, &file, path.parent().unwrap(), name, ov).unwrap()
}

/// Every series of `r` as rows, padded to `bins` bins (a report's flow series stop at their
/// last active bin). The per-column vectors of the report's metrics must agree with the rows.
fn rows_of(r: &Report, bins: usize) -> (Vec<Vec<LinkBin>>, Vec<Vec<FlowBin>>) {
    let pad = |v: &[u64]| {
        let mut v = v.to_vec();
        v.resize(bins, 0);
        v
    };
    let links: Vec<Vec<LinkBin>> = r
        .link_rows
        .iter()
        .zip(&r.links)
        .map(|(rows, l)| {
            let mut rows = rows.clone();
            rows.resize(bins, LinkBin::default());
            let col = |f: fn(&LinkBin) -> u64| rows.iter().map(f).collect::<Vec<_>>();
            assert_eq!(col(|b| b.ingress_bytes), pad(&l.m.ingress_bytes_per_bin));
            assert_eq!(col(|b| b.egress_bytes), pad(&l.m.egress_bytes_per_bin));
            assert_eq!(col(|b| b.max_backlog_pkts), pad(&l.m.max_backlog_per_bin));
            assert_eq!(col(|b| b.drops), pad(&l.m.drops_per_bin));
            assert_eq!(col(|b| b.released_pkts), pad(&l.m.released_per_bin));
            assert_eq!(col(|b| b.sojourn_sum_ns), pad(&l.m.sojourn_sum_ns_per_bin));
            rows
        })
        .collect();
    let flows = r
        .flow_rows
        .iter()
        .zip(&r.flows)
        .map(|(rows, f)| {
            let mut rows = rows.clone();
            rows.resize(bins, FlowBin::default());
            let col = |g: fn(&FlowBin) -> u64| rows.iter().map(g).collect::<Vec<_>>();
            assert_eq!(col(|b| b.delivered_bytes), pad(f.delivered_bytes_per_bin()));
            assert_eq!(col(|b| b.srtt_samples), pad(f.srtt_samples_per_bin()));
            rows
        })
        .collect();
    (links, flows)
}

/// Link rows, flow bins and packet records per link, gathered from chunks.
type Gathered = (
    Vec<Vec<LinkBin>>,
    Vec<Vec<FlowBin>>,
    Vec<Vec<PacketRecord>>,
    Vec<Vec<DropRecord>>,
);

/// Appends `c` to the series gathered so far, checking that it starts where they end.
fn append(all: &mut Gathered, c: SeriesChunk) {
    let have = all.0.first().map_or(0, Vec::len);
    if all.0.is_empty() {
        all.0 = vec![vec![]; c.links.len()];
        all.1 = vec![vec![]; c.flows.len()];
        all.2 = vec![vec![]; c.packets.len()];
        all.3 = vec![vec![]; c.drops.len()];
    }
    assert_eq!(c.first_bin, have, "chunks follow each other");
    for (a, b) in all.0.iter_mut().zip(c.links) {
        assert_eq!(b.len(), c.bins);
        a.extend(b);
    }
    for (a, b) in all.1.iter_mut().zip(c.flows) {
        assert_eq!(b.len(), c.bins);
        a.extend(b);
    }
    for (a, b) in all.2.iter_mut().zip(c.packets) {
        a.extend(b);
    }
    for (a, b) in all.3.iter_mut().zip(c.drops) {
        a.extend(b);
    }
}

#[test]
fn streamed_series_equal_the_series_reported_at_the_end() {
    // Steps that end inside bins, on bin edges, and span several bins; a run that ends inside
    // a bin (1.25 s steps on a 100 ms bin do not, 0.37 s steps do).
    let cases = [
        ("codel-dynamic-link", "55s", "1.37s"),
        ("mixed", "20s", "0.5s"),
        ("cellular-trace", "10s", "0.37s"),
        ("red-bursty", "10.05s", "3s"),
        ("bulk-dumbbell", "5s", "0.1s"),
    ];
    for (name, duration, step) in cases {
        let ov = Overrides {
            packet_log: vec!["bottleneck".into()],
            ..Overrides::default()
        };
        let ov = if name == "red-bursty" || name == "mixed" {
            Overrides::default()
        } else {
            ov
        };
        let mut whole = load(name, duration, &ov);
        let end = SimTime::ZERO + whole.duration;
        whole.sim.run_until(end);
        let report = whole.sim.report();
        let bins = end.as_nanos().div_ceil(report.bin.as_nanos()) as usize;
        let want = rows_of(&report, bins);
        let want_packets: Vec<Vec<PacketRecord>> = {
            let logs: Vec<(String, Vec<PacketRecord>)> = whole
                .sim
                .packet_logs()
                .map(|(n, v)| (n.to_string(), v.to_vec()))
                .collect();
            report
                .links
                .iter()
                .map(|l| {
                    logs.iter()
                        .find(|(n, _)| *n == l.name)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default()
                })
                .collect()
        };

        let mut streamed = load(name, duration, &ov);
        let step = aqmlab_core::units::parse_duration(step).unwrap();
        let mut all = (vec![], vec![], vec![], vec![]);
        let mut t = SimTime::ZERO;
        let mut peak_rows = 0;
        while t < end {
            t = (t + step).min(end);
            streamed.sim.run_until(t);
            let c = streamed.sim.take_series(false);
            // Memory: what stays behind is at most the current bin.
            let kept = streamed.sim.report();
            peak_rows = peak_rows.max(
                kept.links
                    .iter()
                    .map(|l| l.m.egress_bytes_per_bin.len())
                    .max()
                    .unwrap_or(0),
            );
            append(&mut all, c);
        }
        let tail_report = streamed.sim.report();
        append(&mut all, streamed.sim.take_series(true));
        assert_eq!(all.0.first().map_or(0, Vec::len), bins, "{name}: every bin");
        assert!(all.0 == want.0, "{name}: link series differ");
        assert!(all.1 == want.1, "{name}: flow series differ");
        assert!(all.2 == want_packets, "{name}: packet logs differ");
        let want_drops: Vec<Vec<DropRecord>> = report
            .links
            .iter()
            .map(|l| {
                whole
                    .sim
                    .drop_logs()
                    .find(|(n, _)| *n == l.name)
                    .map(|(_, v)| v.to_vec())
                    .unwrap_or_default()
            })
            .collect();
        assert!(all.3 == want_drops, "{name}: drop logs differ");
        assert!(peak_rows <= 1, "{name}: {peak_rows} bins kept after a take");
        // Totals, quantiles and rates are those of the run reported once.
        let mut a = summary(name, 1, &report, 0.0);
        let mut b = summary(name, 1, &tail_report, 0.0);
        a.as_object_mut().unwrap().remove("wall_s");
        b.as_object_mut().unwrap().remove("wall_s");
        assert_eq!(a, b, "{name}: summaries differ");
    }
}

#[test]
fn series_kept_in_memory_do_not_grow_with_simulated_time() {
    // A long run taken in steps keeps one step's bins at most, whether it ran 10 s or 100 s.
    let kept_rows = |duration: &str| {
        let mut s = load("bulk-dumbbell", duration, &Overrides::default());
        let end = SimTime::ZERO + s.duration;
        let mut t = SimTime::ZERO;
        let mut most = 0usize;
        while t < end {
            t = (t + SimDuration::from_secs(2)).min(end);
            s.sim.run_until(t);
            let r = s.sim.report();
            most = most.max(
                r.links
                    .iter()
                    .map(|l| l.m.egress_bytes_per_bin.len())
                    .max()
                    .unwrap(),
            );
            s.sim.take_series(false);
        }
        most
    };
    let short = kept_rows("10s");
    let long = kept_rows("100s");
    // 2 s steps of 100 ms bins: 20 bins before each take (21 with the current bin's row).
    assert!(short <= 21 && long <= 21, "{short} {long}");
    assert_eq!(short, long);
}

#[test]
#[should_panic(expected = "the run is over")]
fn a_run_cannot_go_on_after_its_series_were_taken_to_the_end() {
    let mut s = load("bulk-dumbbell", "1s", &Overrides::default());
    s.sim.run_until(SimTime::from_millis(500));
    s.sim.take_series(true);
    s.sim.run_until(SimTime::from_millis(900));
}
