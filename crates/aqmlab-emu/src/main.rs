//! `aqmlab-emu`: the live emulator's forwarder, started by `aqmlab shell` (python/aqmlab/shell.py),
//! which makes the network namespaces, moves the devices into them and configures them.
//!
//! ```text
//! aqmlab-emu --scenario FILE --link NAME --client-dev DEV --server-dev DEV --out DIR
//!            [--qdisc KIND] [--bin DURATION] [--slack DURATION] [--packet-log] [--rt PRIORITY]
//! ```
//!
//! It takes link `NAME` from the scenario file (its forward direction is the downlink, server →
//! client; `NAME.rev` the uplink; `--qdisc` swaps its discipline keeping the buffer), creates the two TUN devices, prints `ready` on standard
//! output, and forwards until standard input is closed or a line is written to it. Then it
//! writes `emu-summary.json` (the `summary.json` of a run, with an `emulation` section),
//! `emu-series.json` (the links' time series as columns) and, with `--packet-log`,
//! `emu-packets.csv` into DIR, for `aqmlab shell` to turn into the output folder of `aqmlab run`.
//! `--slack` is the timer slack of its waits (default 250us; `1ns` wakes it for every delivery,
//! at more CPU). Bad input is one line on standard error and exit status 2.

mod flows;
mod forwarder;
mod ip;
mod pool;
mod sys;

use aqmlab_core::SimDuration;
use aqmlab_link::{ClockedLink, LinkBin, LinkReport};
use aqmlab_report::{FlowBin, FlowMetrics, Report};
use aqmlab_sim::resolved::ResolvedDirection;
use forwarder::Forwarder;
use serde_json::{json, Value};
use std::io::{BufWriter, Write};
use std::os::fd::AsRawFd;
use std::path::PathBuf;

struct Args {
    scenario: PathBuf,
    link: String,
    client_dev: String,
    server_dev: String,
    out: PathBuf,
    bin: Option<SimDuration>,
    qdisc: Option<String>,
    slack_ns: u64,
    packet_log: bool,
    rt: Option<i32>,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let (mut scenario, mut link, mut client_dev, mut server_dev, mut out) =
        (None, None, None, None, None);
    let (mut bin, mut qdisc, mut packet_log, mut rt) = (None, None, false, None);
    // A wait may end up to 250 µs late, which lets a busy kernel wake the forwarder once for
    // several deliveries: at 100 Mb/s 14-15 % of a core against 19-20 % with Linux's default
    // 50 µs (bench/emu_bench.py), while an idle link's deliveries stay on time (median
    // lateness 60 µs, the same with either).
    let mut slack_ns = 250_000;
    while let Some(a) = it.next() {
        let mut val = |what: &str| it.next().ok_or_else(|| format!("{a} needs {what}"));
        match a.as_str() {
            "--scenario" => scenario = Some(PathBuf::from(val("a file")?)),
            "--link" => link = Some(val("a link name")?),
            "--client-dev" => client_dev = Some(val("a device name")?),
            "--server-dev" => server_dev = Some(val("a device name")?),
            "--out" => out = Some(PathBuf::from(val("a folder")?)),
            "--bin" => {
                let v = val("a duration")?;
                let d =
                    aqmlab_core::units::parse_duration(&v).map_err(|e| format!("--bin: {e}"))?;
                if d == SimDuration::ZERO {
                    return Err("--bin: expected a duration > 0".into());
                }
                bin = Some(d);
            }
            "--qdisc" => qdisc = Some(val("a discipline")?),
            "--slack" => {
                let v = val("a duration")?;
                let d =
                    aqmlab_core::units::parse_duration(&v).map_err(|e| format!("--slack: {e}"))?;
                slack_ns = d.as_nanos().max(1);
            }
            "--packet-log" => packet_log = true,
            "--rt" => {
                let v = val("a priority")?;
                rt = Some(
                    v.parse::<i32>()
                        .ok()
                        .filter(|p| (1..=99).contains(p))
                        .ok_or(format!("--rt: expected a priority from 1 to 99, got {v:?}"))?,
                );
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    fn need<T>(v: Option<T>, flag: &str) -> Result<T, String> {
        v.ok_or(format!("{flag} is required"))
    }
    Ok(Args {
        scenario: need(scenario, "--scenario")?,
        link: need(link, "--link")?,
        client_dev: need(client_dev, "--client-dev")?,
        server_dev: need(server_dev, "--server-dev")?,
        out: need(out, "--out")?,
        bin,
        qdisc,
        slack_ns,
        packet_log,
        rt,
    })
}

/// The link's two directions from the scenario file: (downlink, uplink, series bin).
fn load_link(a: &Args) -> Result<(ClockedLink, ClockedLink, SimDuration), String> {
    let (down, up, seed, bin) = resolved_link(a)?;
    let mut down = ClockedLink::new(down.link_parts(seed), bin);
    let mut up = ClockedLink::new(up.link_parts(seed), bin);
    down.set_name("downlink");
    up.set_name("uplink");
    if a.packet_log {
        down.log_packets();
        up.log_packets();
    }
    Ok((down, up, bin))
}

/// The link's two directions as the resolved scenario has them, their disciplines' parameters
/// typed and checked once, as the simulator's (downlink, uplink, seed, series bin).
fn resolved_link(
    a: &Args,
) -> Result<(ResolvedDirection, ResolvedDirection, u64, SimDuration), String> {
    // `--qdisc KIND` swaps the link's discipline keeping its buffer, as `aqmlab run --qdisc`.
    let ov = aqmlab_sim::scenario::Overrides {
        qdisc: a
            .qdisc
            .iter()
            .map(|k| (a.link.clone(), k.clone()))
            .collect(),
        ..Default::default()
    };
    // Resolved, not built: the two directions are made from the resolved scenario.
    let r = aqmlab_sim::scenario::resolve_file(&a.scenario, &ov).map_err(|e| e.to_string())?;
    let names: Vec<String> = r.directions.iter().map(|d| d.name.clone()).collect();
    let bin = a.bin.unwrap_or(r.bin);
    let rev = format!("{}.rev", a.link);
    let take = |name: &str| r.directions.iter().find(|d| d.name == name).cloned();
    let (Some(down), Some(up)) = (take(&a.link), take(&rev)) else {
        let links: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| !n.ends_with(".rev"))
            .collect();
        return Err(format!(
            "{}: no link named {:?}; links: {}",
            a.scenario.display(),
            a.link,
            links.join(", ")
        ));
    };
    Ok((down, up, r.seed, bin))
}

/// The links' and flows' series as the columns of `aqmlab run`'s `links` and `flows` tables.
fn series_json(
    links: &[LinkReport],
    rows: &[Vec<LinkBin>],
    flows: &[FlowMetrics],
    bin: SimDuration,
    now: aqmlab_core::SimTime,
) -> Value {
    let mut cols: [Vec<Value>; 12] = Default::default();
    // A value per second of the bin (the last one may be partly covered); null for none.
    let per_s = |x: f64, k: usize| {
        let start = k as u64 * bin.as_nanos();
        let secs = (start + bin.as_nanos())
            .min(now.as_nanos())
            .saturating_sub(start) as f64
            / 1e9;
        if secs > 0.0 {
            json!(x / secs)
        } else {
            Value::Null
        }
    };
    for (l, rows) in links.iter().zip(rows) {
        let m = &l.m;
        for k in 0..m.egress_bytes_per_bin.len() {
            let r = rows.get(k).copied().unwrap_or_default();
            cols[9].push(per_s(r.queue_pkt_ns as f64 / 1e9, k));
            cols[10].push(per_s(r.queue_byte_ns as f64 / 1e9, k));
            cols[11].push(per_s(r.capacity_bits as f64, k));
            let released = m.released_per_bin[k];
            cols[0].push(json!(l.name));
            cols[1].push(json!((k as u64 * bin.as_nanos()) as f64 / 1e9));
            cols[2].push(json!(m.ingress_bytes_per_bin[k]));
            cols[3].push(json!(m.egress_bytes_per_bin[k]));
            cols[4].push(json!(m.max_backlog_per_bin[k]));
            cols[5].push(json!(m.max_backlog_bytes_per_bin[k]));
            cols[6].push(json!(m.drops_per_bin[k]));
            cols[7].push(json!(released));
            cols[8].push(if released == 0 {
                Value::Null
            } else {
                json!(m.sojourn_sum_ns_per_bin[k] as f64 / released as f64 / 1e6)
            });
        }
    }
    let names = [
        "link",
        "t_s",
        "ingress_bytes",
        "egress_bytes",
        "max_backlog_pkts",
        "max_backlog_bytes",
        "drops",
        "released_pkts",
        "mean_sojourn_ms",
        "mean_backlog_pkts",
        "mean_backlog_bytes",
        "capacity_bps",
    ];
    let mut m = serde_json::Map::new();
    for (n, c) in names.iter().zip(cols) {
        m.insert(n.to_string(), Value::Array(c));
    }
    let mut f: [Vec<Value>; 8] = Default::default();
    for (i, fl) in flows.iter().enumerate() {
        let mut cumulative = 0u64;
        for (k, &b) in fl.delivered_bytes_per_bin().iter().enumerate() {
            cumulative += b;
            f[0].push(json!(i));
            f[1].push(json!((k as u64 * bin.as_nanos()) as f64 / 1e9));
            f[2].push(json!(b));
            f[3].push(json!(cumulative));
            // No RTT, window or name: the senders are the programs' own.
            for c in &mut f[4..8] {
                c.push(Value::Null);
            }
        }
    }
    let mut fm = serde_json::Map::new();
    let flow_names = [
        "flow",
        "t_s",
        "delivered_bytes",
        "cumulative_bytes",
        "srtt_ms",
        "name",
        "cwnd_bytes",
        "ssthresh_bytes",
    ];
    for (n, c) in flow_names.iter().zip(f) {
        fm.insert(n.to_string(), Value::Array(c));
    }
    json!({ "links": Value::Object(m), "flows": Value::Object(fm) })
}

fn run(a: &Args) -> Result<(), String> {
    let (down, up, bin) = load_link(a)?;
    let need = "aqmlab-emu needs root or CAP_NET_ADMIN to create TUN devices";
    let open = |name: &str| {
        sys::open_tun(name).map_err(|e| match e.raw_os_error() {
            Some(libc::EPERM) | Some(libc::EACCES) => need.to_string(),
            _ => format!("cannot create TUN device {name:?}: {e}"),
        })
    };
    let client = open(&a.client_dev)?;
    let server = open(&a.server_dev)?;
    if let Some(p) = a.rt {
        sys::set_realtime(p).map_err(|e| format!("--rt {p}: cannot switch to SCHED_FIFO: {e}"))?;
    }
    sys::set_timer_slack(a.slack_ns);
    std::fs::create_dir_all(&a.out).map_err(|e| format!("{}: {e}", a.out.display()))?;
    // The packet log as `aqmlab run` keeps it: released packets, and beside them the drops.
    let csv = |name: &str, header: &str| -> Result<BufWriter<std::fs::File>, String> {
        let p = a.out.join(name);
        let f = std::fs::File::create(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let mut w = BufWriter::with_capacity(1 << 16, f);
        writeln!(w, "{header}").map_err(|e| format!("{}: {e}", p.display()))?;
        Ok(w)
    };
    let mut log_file = if a.packet_log {
        Some((
            csv("emu-packets.csv", "link,t_ns,sojourn_ns,size,flow")?,
            csv("emu-drops.csv", "link,t_ns,sojourn_ns,size,flow,reason")?,
        ))
    } else {
        None
    };
    let mut fwd = Forwarder::new(client, server, down, up, bin);
    println!("ready");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let cpu0 = sys::cpu_time_ns();
    let t0 = sys::monotonic_ns();
    let stdin = std::io::stdin();
    let fd = stdin.as_raw_fd();
    let mut log =
        |name: &str, recs: &[aqmlab_link::PacketRecord], drops: &[aqmlab_link::DropRecord]| {
            if let Some((w, wd)) = &mut log_file {
                for r in recs {
                    writeln!(
                        w,
                        "{name},{},{},{},{}",
                        r.t_ns, r.sojourn_ns, r.size, r.flow
                    )?;
                }
                for r in drops {
                    let reason = r.reason.map_or("wire_loss", |x| x.as_str());
                    writeln!(
                        wd,
                        "{name},{},{},{},{},{reason}",
                        r.t_ns, r.sojourn_ns, r.size, r.flow
                    )?;
                }
            }
            Ok(())
        };
    let now = fwd
        .run(&mut stdin.lock(), fd, &mut log)
        .map_err(|e| format!("forwarding stopped: {e}"))?;
    let wall_ns = sys::monotonic_ns() - t0;
    let cpu_ns = sys::cpu_time_ns() - cpu0;
    if let Some((mut w, mut wd)) = log_file {
        w.flush().map_err(|e| e.to_string())?;
        wd.flush().map_err(|e| e.to_string())?;
    }
    let (down, down_rows) = fwd.down.report_with_rows(now);
    let (up, up_rows) = fwd.up.report_with_rows(now);
    let links = vec![down, up];
    let link_rows = vec![down_rows, up_rows];
    let (flows, flow_info) = fwd.flows.report();
    let series = series_json(&links, &link_rows, &flows, bin, now);
    let flow_rows = flows
        .iter()
        .map(|f| {
            f.delivered_bytes_per_bin()
                .iter()
                .map(|&b| FlowBin {
                    delivered_bytes: b,
                    ..FlowBin::default()
                })
                .collect()
        })
        .collect();
    let report = Report {
        sim_time: now,
        events: fwd.written.0 + fwd.written.1,
        links,
        flows,
        flow_info,
        bin,
        first_bin: 0,
        packets_alive: fwd.packets_held(),
        link_rows,
        flow_rows,
        owd: None,
    };
    let mut summary = aqmlab_sim::summary::summary("shell", 0, &report, wall_ns as f64 / 1e9);
    let l = &fwd.lateness_ns;
    let ms = |ns: f64| {
        if ns.is_finite() {
            json!(ns / 1e6)
        } else {
            Value::Null
        }
    };
    summary["emulation"] = json!({
        "lateness_ms": {
            "mean": ms(l.mean()), "p50": ms(l.quantile(0.5)), "p99": ms(l.quantile(0.99)),
            "p999": ms(l.quantile(0.999)), "max": ms(l.max()),
        },
        "deliveries": l.count(),
        "write_errors": fwd.write_errors,
        "cpu_s": cpu_ns as f64 / 1e9,
        "cpu_share": if wall_ns > 0 { cpu_ns as f64 / wall_ns as f64 } else { 0.0 },
        "realtime_priority": a.rt,
    });
    let write = |name: &str, v: &Value| {
        let p = a.out.join(name);
        std::fs::write(&p, serde_json::to_string(v).expect("JSON values serialize"))
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    write("emu-series.json", &series)?;
    write("emu-summary.json", &summary)
}

fn main() {
    let r = parse_args().and_then(|a| run(&a));
    if let Err(e) = r {
        eprintln!("aqmlab-emu: error: {e}");
        std::process::exit(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(scenario: PathBuf) -> Args {
        Args {
            scenario,
            link: "bottleneck".into(),
            client_dev: "c".into(),
            server_dev: "s".into(),
            out: PathBuf::from("/nonexistent"),
            bin: None,
            qdisc: None,
            slack_ns: 0,
            packet_log: false,
            rt: None,
        }
    }

    #[test]
    fn cakes_ack_filter_is_accepted() {
        // The forwarder reads each TCP segment's header facts (`ip::tcp_hint`), so CAKE's ACK
        // filter works there as in the simulator.
        let dir = std::env::temp_dir().join(format!("aqmlab-emu-ackf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let base = include_str!("../../../scenarios/emu-vs-sim.toml");
        for filter in ["no-ack-filter", "ack-filter", "ack-filter-aggressive"] {
            let text = base.replace(
                "qdisc = \"codel\"",
                &format!("qdisc = \"cake\"\nparams = {{ ack_filter = \"{filter}\" }}"),
            );
            let path = dir.join(format!("{filter}.toml"));
            std::fs::write(&path, text).unwrap();
            if let Err(e) = load_link(&args(path)) {
                panic!("{filter}: {e}");
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_link_is_the_resolved_scenarios_with_its_parameters_typed_once() {
        let path = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../scenarios/emu-vs-sim.toml"
        ));
        let tables = aqmlab_qdisc::tables_parsed();
        let (down, up, seed, _) = resolved_link(&args(path.clone())).unwrap();
        // One table per direction of the scenario, parsed once: none parsed again for the two
        // the emulator drives.
        let sim = aqmlab_sim::scenario::resolve_file(&path, &Default::default()).unwrap();
        assert_eq!(
            aqmlab_qdisc::tables_parsed() - tables,
            2 * sim.directions.len() as u64
        );
        assert_eq!(seed, sim.seed);
        for (emu, name) in [(&down, "bottleneck"), (&up, "bottleneck.rev")] {
            let s = sim.directions.iter().find(|d| d.name == name).unwrap();
            // The simulator's typed configuration, CoDel's mtu derived from the traffic.
            assert_eq!(emu.qdisc, s.qdisc);
            assert_eq!(emu.params.resolved(), s.params.resolved());
            assert!(matches!(
                emu.params.value("mtu"),
                aqmlab_qdisc::Value::Bytes(_)
            ));
        }
        // A bad value is refused as `aqmlab run` refuses it, naming its key.
        let dir = std::env::temp_dir().join(format!("aqmlab-emu-params-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.toml");
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("buffer = \"100p\"", "params = { target = \"5\" }");
        std::fs::write(&bad, text).unwrap();
        let e = resolved_link(&args(bad)).unwrap_err();
        std::fs::remove_dir_all(&dir).ok();
        assert!(
            e.contains("dumbbell.bottleneck.params.target: codel: parameter target = 5: expected a duration"),
            "{e}"
        );
    }
}
