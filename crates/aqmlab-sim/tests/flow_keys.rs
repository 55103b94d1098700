//! The flow-key table (`scenario/flow_keys.rs`) is what the loader enforces: every key given
//! where its row says it does not apply is refused in one line naming the key and where it
//! belongs.

use aqmlab_sim::scenario::{build, Applies, Overrides, FLOW_KEYS};
use std::path::Path;

fn err(flow: &str) -> String {
    let text = format!(
        "duration = \"2s\"\n[dumbbell]\nsenders = 1\naccess_rate = \"100Mbps\"\n\
         sender_delay = \"1ms\"\nreceiver_delay = \"1ms\"\n\
         [dumbbell.bottleneck]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
         [[flows]]\nfrom = \"s1\"\nto = \"r1\"\n{flow}\n"
    );
    match build(&text, "t.toml", Path::new(""), "t", &Overrides::default()) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

/// `flow` with `key` given a value of the type it reads (the first of a few that is not a type
/// error), and the loader's error.
fn err_with(flow: &str, key: &str) -> String {
    for v in ["\"1s\"", "1", "1.5", "true", "[\"1Mbps\"]"] {
        let e = err(&format!("{flow}\n{key} = {v}"));
        if !e.contains("invalid type") {
            return e;
        }
    }
    panic!("{key}: no value of the right type")
}

#[test]
fn every_key_is_refused_where_its_row_says_it_does_not_apply() {
    let mut checked = 0;
    for k in FLOW_KEYS {
        let (flow, want) = match k.applies {
            a if a.tcp_only() => {
                // A udp flow refuses every key only a tcp flow takes.
                let e = err_with("kind = \"udp\"\nrate = \"1Mbps\"", k.name);
                assert!(
                    e.ends_with(&format!(
                        "flows[0].{0}: {0} belongs to tcp flows; this flow has kind = \"udp\"",
                        k.name
                    )),
                    "{}: {e}",
                    k.name
                );
                checked += 1;
                match a {
                    Applies::Cc(kind) if !k.own_check => (
                        "kind = \"tcp\"\ncc = \"newreno\"".to_string(),
                        format!(
                            "flows[0].{0}: {0} applies to cc = \"{1}\"; this flow has cc = \"newreno\"",
                            k.name,
                            kind.as_str()
                        ),
                    ),
                    Applies::App(_) if !k.own_check => (
                        "kind = \"tcp\"\napp = \"bulk\"".to_string(),
                        format!("flows[0].{0}: {0} belongs to {1}", k.name, a.describe()),
                    ),
                    _ => continue,
                }
            }
            a @ Applies::UdpOrApp(_) => (
                "kind = \"tcp\"\napp = \"bulk\"".to_string(),
                format!("flows[0].{0}: {0} belongs to {1}", k.name, a.describe()),
            ),
            _ => continue,
        };
        let e = err_with(&flow, k.name);
        assert!(e.contains(&want), "{}:\n{e}\nexpected: {want}", k.name);
        checked += 1;
    }
    // 50 TCP keys on a udp flow, 36 on a tcp flow of another application or algorithm.
    assert!(checked > 80, "{checked}");
}

#[test]
fn the_errors_keep_their_meaning() {
    // An application's key on another application, at the key's line, naming where it belongs.
    assert_eq!(
        err("kind = \"tcp\"\napp = \"finite\"\nbytes = \"1MB\"\nconns_per_s = 2.0"),
        "t.toml:16: flows[0].conns_per_s: conns_per_s belongs to app = \"web\" and \"page\""
    );
    // A boolean keeps no place: the app's line.
    assert_eq!(
        err("kind = \"tcp\"\napp = \"bulk\"\nidle_restart = false"),
        "t.toml:14: flows[0].idle_restart: idle_restart belongs to app = \"repeat\" and \"onoff\" (with reuse = true on a repeat)"
    );
    // Another algorithm's parameter, at the flow's kind.
    assert_eq!(
        err("kind = \"tcp\"\ncc = \"cubic\"\nvegas_beta = 4"),
        "t.toml:13: flows[0].vegas_beta: vegas_beta applies to cc = \"vegas\"; this flow has cc = \"cubic\""
    );
    // An unknown key: serde's error from the struct the table declares.
    let e = err("kind = \"tcp\"\nvegas_betta = 4");
    assert!(
        e.contains("flows[0]") && e.contains("unknown field `vegas_betta`"),
        "{e}"
    );
}
