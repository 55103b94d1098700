//! `count = N` on a flow: the same as writing the N flows out, per-instance values from lists,
//! and errors that name the table as written.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, Overrides, Scenario};
use aqmlab_sim::summary::summary;
use aqmlab_sim::world::FlowSpec;
use std::path::Path;

const TOP: &str = r#"duration = "3s"
[dumbbell]
senders = 3
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"
[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "codel"
"#;

fn load(text: &str) -> Result<Scenario, String> {
    build(text, "t.toml", Path::new("."), "t", &Overrides::default()).map_err(|e| e.to_string())
}

fn err(text: &str) -> String {
    match load(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e,
    }
}

fn result(text: &str) -> serde_json::Value {
    let mut s = load(text).unwrap_or_else(|e| panic!("{e}"));
    s.sim.run_until(SimTime::ZERO + s.duration);
    let mut v = summary("t", 1, &s.sim.report(), 0.0);
    v.as_object_mut().unwrap().remove("wall_s");
    v
}

#[test]
fn a_count_is_the_flows_written_out() {
    let counted = format!(
        "{TOP}[[flows]]\nkind = \"tcp\"\ncount = 3\nfrom = [\"s1\", \"s2\", \"s3\"]\nto = [\"r1\", \"r2\", \"r3\"]\ncc = \"reno\"\nstart = [\"0s\", \"0.5s\", \"1s\"]\nname = \"bulk\"\n\n[[flows]]\nkind = \"udp\"\nfrom = \"s1\"\nto = \"r2\"\nrate = \"1Mbps\"\n"
    );
    let mut written = TOP.to_string();
    for (i, start) in ["0s", "0.5s", "1s"].iter().enumerate() {
        written += &format!(
            "[[flows]]\nkind = \"tcp\"\nfrom = \"s{n}\"\nto = \"r{n}\"\ncc = \"reno\"\nstart = \"{start}\"\nname = \"bulk-{n}\"\n",
            n = i + 1
        );
    }
    written += "[[flows]]\nkind = \"udp\"\nfrom = \"s1\"\nto = \"r2\"\nrate = \"1Mbps\"\n";
    assert_eq!(result(&counted), result(&written));
    let s = load(&counted).unwrap();
    let parse = |t: &str| t.parse::<toml::Table>().unwrap();
    let w = load(&written).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parse(&s.resolved), parse(&w.resolved));
    assert!(!s.resolved.contains("count"));
}

#[test]
fn count_errors_name_the_table_as_written() {
    let flow = |extra: &str| {
        format!("{TOP}[[flows]]\nkind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"1Mbps\"\n\n[[flows]]\nkind = \"udp\"\nto = \"r1\"\nrate = \"1Mbps\"\n{extra}")
    };
    let e = err(&flow("count = 0\nfrom = \"s1\"\n"));
    assert_eq!(
        e,
        "t.toml:21: flows[1].count: expected a number of flows from 1 to 100000, got 0"
    );
    let e = err(&flow("count = 2\nfrom = [\"s1\", \"s2\", \"s3\"]\n"));
    assert!(e.starts_with("t.toml:22: flows[1].from: expected one value, or a list of 2 (one per flow of count = 2), got 3 values"), "{e}");
    let e = err(&flow("count = 2\nfrom = [\"s1\", \"x\"]\n"));
    assert!(
        e.starts_with("t.toml: flows[1] (flow 2 of count = 2).from: expected one of the nodes"),
        "{e}"
    );
    let e = err(&flow("count = 100001\nfrom = \"s1\"\n"));
    assert!(
        e.contains("flows[1].count: expected a number of flows from 1 to 100000"),
        "{e}"
    );
    // An error elsewhere keeps its line.
    let e =
        err(&flow("count = 2\nfrom = \"s1\"\n")
            .replace("delay = \"10ms\"", "delay = \"10 parsecs\""));
    assert!(e.starts_with("t.toml:9: dumbbell.bottleneck.delay"), "{e}");
}

/// `count = N` without lists: one table stamped N times by the loader (issue 24), which must
/// give the flows N written-out tables give. The draws are per flow: a random start comes from
/// each flow's own stream, named by its index (unnamed) or its name (`NAME-k`), and a web
/// flow's arrivals likewise; the flow after the group moves by N − 1 places.
#[test]
fn a_stamped_count_is_the_flows_written_out() {
    let unnamed = "kind = \"tcp\"\nfrom = \"s1\"\nto = \"r1\"\ncc = \"reno\"\napp = \"finite\"\nbytes = \"20kB\"\nstart = \"uniform(0s, 2s)\"\n";
    let named = "kind = \"tcp\"\nname = \"web\"\nfrom = \"s2\"\nto = \"r2\"\napp = \"web\"\nconns_per_s = 20.0\nstart = \"exponential(0.2s)\"\n";
    let last = "[[flows]]\nkind = \"udp\"\nfrom = \"s3\"\nto = \"r3\"\nrate = \"1Mbps\"\nstart = \"uniform(0s, 1s)\"\n";
    let counted =
        format!("{TOP}[[flows]]\ncount = 4\n{unnamed}\n[[flows]]\ncount = 3\n{named}\n{last}");
    let mut written = TOP.to_string();
    for _ in 0..4 {
        written += &format!("[[flows]]\n{unnamed}");
    }
    for k in 1..=3 {
        written += &format!(
            "[[flows]]\n{}",
            named.replace("\"web\"\nfrom", &format!("\"web-{k}\"\nfrom"))
        );
    }
    written += last;
    let s = load(&counted).unwrap_or_else(|e| panic!("{e}"));
    let w = load(&written).unwrap_or_else(|e| panic!("{e}"));
    // The same resolved file, byte for byte: the same starts, names and settings, in order.
    assert_eq!(s.resolved, w.resolved);
    // The same drawn starts, and they differ from flow to flow (the test would pass on copies
    // of one flow otherwise).
    let starts = |sc: &Scenario| -> Vec<SimTime> {
        (0..8)
            .map(|i| match sc.sim.flow_spec(i).expect("8 flows") {
                FlowSpec::Udp(u) => u.start,
                FlowSpec::Tcp(t) => t.start,
            })
            .collect()
    };
    assert_eq!(starts(&s), starts(&w));
    let mut distinct = starts(&s);
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 8, "{:?}", starts(&s));
    assert!(s.resolved.contains("name = \"web-3\""));
    assert_eq!(result(&counted), result(&written));
}

#[test]
fn stamped_count_errors_name_the_flow_as_written() {
    let flow = |extra: &str| {
        format!("{TOP}[[flows]]\nkind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"1Mbps\"\n\n[[flows]]\nkind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\ncount = 3\n{extra}")
    };
    // A value the reader refuses, and one the resolution refuses: both are the group's first
    // flow's, after the flow before it.
    let e = err(&flow("rate = 5\n"));
    assert!(
        e.starts_with("t.toml: flows[1] (flow 1 of count = 3).rate: "),
        "{e}"
    );
    let e = err(&flow("rate = \"0kbps\"\n"));
    assert_eq!(
        e,
        "t.toml: flows[1] (flow 1 of count = 3).rate: expected a rate > 0"
    );
    // After another group, the reader's error is still the erring group's first flow (the
    // edited text holds each group once, the flows that follow it by N places).
    let two = flow("rate = \"1Mbps\"\n")
        + "\n[[flows]]\nkind = \"udp\"\nfrom = \"s2\"\nto = \"r2\"\ncount = 2\nrate = 5\n";
    let e = err(&two);
    assert!(
        e.starts_with("t.toml: flows[2] (flow 1 of count = 2).rate: "),
        "{e}"
    );
    // The flow after a group is named by its place in the file.
    let e = err(&format!(
        "{}\n[[flows]]\nkind = \"udp\"\nfrom = \"s1\"\nto = \"x\"\nrate = \"1Mbps\"\n",
        flow("rate = \"1Mbps\"\n")
    ));
    assert!(e.starts_with("t.toml:"), "{e}");
    assert!(
        e.contains(": flows[2].to: expected one of the nodes"),
        "{e}"
    );
    // A stamped name that a written flow has already.
    let e = err(&flow("rate = \"1Mbps\"\nname = \"g\"\n").replace(
        "kind = \"udp\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"1Mbps\"\n\n",
        "kind = \"udp\"\nname = \"g-2\"\nfrom = \"s1\"\nto = \"r1\"\nrate = \"1Mbps\"\n\n",
    ));
    assert_eq!(
        e,
        "t.toml: flows[1] (flow 2 of count = 3).name: flows[0] is named \"g-2\" already: expected a unique name"
    );
}
