//! `count = N` on a flow: the same as writing the N flows out, per-instance values from lists,
//! and errors that name the table as written.

use aqmlab_core::SimTime;
use aqmlab_sim::scenario::{build, Overrides, Scenario};
use aqmlab_sim::summary::summary;
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
