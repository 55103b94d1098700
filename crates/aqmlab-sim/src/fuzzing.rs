//! Fuzz bodies, shared by the cargo-fuzz target `scenario_text` in `fuzz/` and by a stable-Rust
//! property test (`tests/fuzz_scenarios.rs`). The body must never panic, hang or allocate without
//! bound on any input: a scenario that cannot be used is a one-line [`ScenarioError`] naming the
//! file (and line and key path when there is one); one that loads runs for a short simulated time
//! and its report and summary keep their invariants.
//!
//! Most inputs are *structured mutations* of the bundled scenarios: the bytes pick a scenario,
//! then a few edits — replace the value at a key path (one the scenario has, one it could have,
//! or a nonsensical one) with an adversarial value (0, negative and huge numbers, NaN, wrong
//! types, `"0bps"`, `"-1ms"`, empty strings, unreadable traces…), or remove a key — applied the way
//! `--set` applies them, then `--seed`, `--qdisc LINK=KIND` and `--packet-log` overrides.

use crate::scenario::{apply_sets, build, Overrides, ScenarioError};
use crate::summary::summary;
use aqmlab_core::{SimDuration, SimTime};
use aqmlab_qdisc::Kind;
use std::path::{Path, PathBuf};

/// The longest simulated time a fuzz case runs (the scenario's duration if shorter).
pub const RUN_CAP: SimDuration = SimDuration::from_millis(50);

/// A run stops early (at the end of a [`STEP`]) after this many events.
pub const EVENT_BUDGET: u64 = 200_000;

/// The run advances in steps of this much simulated time.
pub const STEP: SimDuration = SimDuration::from_micros(100);

/// A scenario exercising what the bundled ones do not: UDP CBR and on/off sources, a finite
/// Vegas transfer with ECN and no handshake, lognormal web traffic, random loss, a schedule with
/// an outage, and the other disciplines with parameters.
pub const EXTRA: &str = r#"
name = "fuzz-extra"
duration = "2s"
seed = 3
bin = "10ms"
nodes = ["a", "b", "c", "d"]

[[links]]
name = "ab"
from = "a"
to = "b"
rate = "50Mbps"
delay = "2ms"
qdisc = "fq_codel"
buffer = "200p"
params = { flows = 16, quantum = 300, target = "2ms", interval = "40ms" }

[[links]]
name = "bc"
from = "b"
to = "c"
schedule = [["0s", "10Mbps"], ["10ms", "0bps"], ["20ms", "2Mbps"], ["30ms", "20Mbps"]]
delay = "5ms"
qdisc = "pie"
buffer = "100p"
params = { target = "5ms", t_update = "5ms", ecn = true }
loss = 0.01
reverse = { trace = "../traces/Verizon-LTE-short.up", qdisc = "lstf_codel", buffer = "30KB" }

[[links]]
name = "bd"
from = "b"
to = "d"
rate = "5Mbps"
delay = "1ms"
qdisc = "red"
buffer = "60p"
params = { mode = "byte", ecn = true }

[[flows]]
kind = "udp"
from = "a"
to = "c"
rate = "4Mbps"
size = 200
start = "1ms"
stop = "40ms"

[[flows]]
kind = "udp"
from = "a"
to = "d"
rate = "8Mbps"
on_time = "5ms"
off_time = "5ms"
onoff_shape = 1.5

[[flows]]
kind = "tcp"
from = "a"
to = "c"
cc = "vegas"
app = "finite"
bytes = "200KB"
ecn = true
handshake = false
mss = 536
initial_cwnd = 2
min_rto = "10ms"

[[flows]]
kind = "tcp"
from = "d"
to = "a"
cc = "reno"
app = "web"
conns_per_s = 200.0
size_dist = "lognormal"
size_mean = "5KB"
size_sigma = 2.0
request_size = "1B"
stop = "30ms"
"#;

/// The bundled scenarios (`scenarios/*.toml`) and [`EXTRA`], as `(file name, text)`.
pub const BASES: &[(&str, &str)] = &[
    (
        "bulk-dumbbell.toml",
        include_str!("../../../scenarios/bulk-dumbbell.toml"),
    ),
    (
        "cellular-trace.toml",
        include_str!("../../../scenarios/cellular-trace.toml"),
    ),
    (
        "codel-dynamic-link.toml",
        include_str!("../../../scenarios/codel-dynamic-link.toml"),
    ),
    (
        "red-bursty.toml",
        include_str!("../../../scenarios/red-bursty.toml"),
    ),
    ("fuzz-extra.toml", EXTRA),
];

/// The directory scenario paths (traces) resolve against: the bundled scenarios'.
pub fn scenario_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios")).to_path_buf()
}

const ROOT_KEYS: &[&str] = &[
    "name",
    "description",
    "duration",
    "seed",
    "bin",
    "nodes",
    "dumbbell",
    "links",
    "flows",
    "output",
];
const ROOT_LIKELY: &[&str] = &["duration", "seed", "bin"];
const DUMBBELL_KEYS: &[&str] = &[
    "senders",
    "access_rate",
    "sender_delay",
    "receiver_delay",
    "access_buffer",
    "bottleneck",
];
const DUMBBELL_LIKELY: &[&str] = &[
    "senders",
    "access_rate",
    "sender_delay",
    "receiver_delay",
    "access_buffer",
];
const DIRECTION_KEYS: &[&str] = &[
    "name", "from", "to", "rate", "schedule", "trace", "delay", "qdisc", "buffer", "params",
    "loss", "reverse",
];
const DIRECTION_LIKELY: &[&str] = &["rate", "delay", "qdisc", "buffer", "loss"];
/// Replacing the rate of a direction that has a schedule or trace is an error (two of them);
/// these are the rate keys to set after removing the others.
const RATE_KEYS: &[&str] = &["rate", "schedule", "trace"];
/// Every key a flow table takes (the flow-key table's).
static FLOW_KEYS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| crate::scenario::FLOW_KEYS.iter().map(|k| k.name).collect());
const TCP_LIKELY: &[&str] = &[
    "start",
    "cc",
    "mss",
    "max_window",
    "initial_cwnd",
    "delayed_ack",
    "sack",
    "ecn",
    "handshake",
    "hystart",
    "min_rto",
    "delack_timeout",
    "syn_retries",
];
const WEB_LIKELY: &[&str] = &[
    "stop",
    "conns_per_s",
    "size_dist",
    "size_mean",
    "size_shape",
    "size_sigma",
    "request_size",
    "mss",
    "initial_cwnd",
    "min_rto",
    "interval",
    "model",
];
const REPEAT_LIKELY: &[&str] = &[
    "stop",
    "bytes",
    "size_dist",
    "size_mean",
    "idle",
    "idle_dist",
    "reuse",
    "idle_restart",
];
const ONOFF_LIKELY: &[&str] = &[
    "stop",
    "rate",
    "size",
    "on_time",
    "off_time",
    "onoff_shape",
    "idle_restart",
];
const UDP_LIKELY: &[&str] = &[
    "start",
    "stop",
    "rate",
    "size",
    "on_time",
    "off_time",
    "onoff_shape",
];

/// Values anything may get (as `--set` reads them: a TOML value when the text is one, else a
/// string).
const ANY: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "1e308",
    "-1e308",
    "5e-324",
    "nan",
    "inf",
    "-inf",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "4294967295",
    "4294967296",
    "\"\"",
    "\" \"",
    "\"nan\"",
    "\"inf\"",
    "true",
    "false",
    "[]",
    "{}",
    "[1, 2]",
    "[[]]",
    "{ a = 1 }",
    "1979-05-27T07:32:00Z",
    "\"\u{e9}\"",
    "\"\\u0000\"",
];

/// A kind of value: extreme values that should be accepted, and ones that should be refused.
struct Pool {
    ok: &'static [&'static str],
    bad: &'static [&'static str],
}

const RATE: Pool = Pool {
    ok: &[
        "1bps",
        "7bps",
        "1kbps",
        "64kbps",
        "1Mbps",
        "10Mbps",
        "1Gbps",
        "40Gbps",
        "1000Gbps",
        "999.999999Mbps",
        "10 Mbps",
    ],
    bad: &[
        "0bps",
        "0.4bps",
        "1001Gbps",
        "1e30Gbps",
        "18446744073709551615bps",
        "18446744073709551616bps",
        "18446744073Gbps",
        "99999999999999999999999Gbps",
        "-1Mbps",
        "1.5.5Mbps",
        "Mbps",
        "10MB",
        "10",
    ],
};

const DURATION: Pool = Pool {
    ok: &[
        "0s", "1ns", "1us", "1ms", "10ms", "45ms", "1s", "86400s", "1000000s", "0.4ns",
    ],
    bad: &[
        "-1ms",
        "1000001s",
        "1000000000s",
        "18446744073709551615ns",
        "18446744073s",
        "18446744074s",
        "1e30s",
        "5",
        "ms",
    ],
};

const DELAY_LIST: Pool = Pool {
    ok: &[
        "\"0s\"",
        "\"1000000s\"",
        "[\"1ms\"]",
        "[\"1ms\", \"0s\", \"3ms\"]",
        "[\"1ms\", \"2ms\", \"3ms\", \"4ms\", \"1000000s\"]",
        "[\"1ms\", \"2ms\", \"3ms\", \"4ms\", \"5ms\", \"6ms\", \"7ms\", \"8ms\"]",
    ],
    bad: &["[]", "[1, 2]", "[\"-1ms\", \"1ms\"]", "\"1000001s\""],
};

const SIZE: Pool = Pool {
    ok: &[
        "1B",
        "1p",
        "2p",
        "40B",
        "1499B",
        "1500B",
        "64KiB",
        "1GB",
        "1000000p",
        "4294967295p",
    ],
    bad: &[
        "0p",
        "0B",
        "4294967296p",
        "18446744073709551615p",
        "18446744073709551615B",
        "1e30GB",
        "1.5p",
        "-1p",
        "100",
    ],
};

const BYTES: Pool = Pool {
    ok: &["1", "1B", "40B", "1500B", "1MB", "1GB", "1000000GB"],
    bad: &["0B", "0", "10p", "18446744073709551615", "-1", "1e30GB"],
};

const SENDERS: Pool = Pool {
    ok: &["1", "2", "8", "1000"],
    bad: &["0", "1001", "-1", "4294967296", "1.5"],
};
const MSS: Pool = Pool {
    ok: &["100", "536", "1460", "65495"],
    bad: &["0", "1", "99", "65496", "70000", "-1", "1.5"],
};
const UDP_SIZE: Pool = Pool {
    ok: &["20", "40", "1500", "65535"],
    bad: &["0", "19", "65536", "-1"],
};
const WINDOW: Pool = Pool {
    ok: &["1", "2", "65536", "16777216"],
    bad: &["0", "16777217", "-1", "9223372036854775807"],
};
const SYN_RETRIES: Pool = Pool {
    ok: &["0", "1", "6", "127"],
    bad: &["-1", "128", "1.5", "\"6\""],
};
const SEED: Pool = Pool {
    ok: &["0", "1", "9223372036854775807"],
    bad: &["-1", "18446744073709551615", "1.5"],
};
const SHAPE: Pool = Pool {
    ok: &["1.0000001", "1.2", "2.5", "100.0", "1e308"],
    bad: &["1.0", "0.5", "nan", "inf", "-2.0", "1"],
};
const SIGMA: Pool = Pool {
    ok: &["0.0", "1.0", "2.5", "3.0"],
    bad: &["-1.0", "nan", "inf", "3.001", "1000.0", "1e308"],
};
const CONNS: Pool = Pool {
    ok: &["1e-300", "1e-9", "0.5", "1000.0", "1e6"],
    bad: &["0.0", "-1.0", "1000001.0", "nan", "inf", "5"],
};
const LOSS: Pool = Pool {
    ok: &["0.0", "0.5", "0.999999"],
    bad: &["1.0", "-0.1", "nan", "1"],
};
const BOOL: Pool = Pool {
    ok: &["true", "false"],
    bad: &["\"yes\"", "1"],
};
const KIND: Pool = Pool {
    ok: &["\"udp\"", "\"tcp\""],
    bad: &["\"x\""],
};
const CC: Pool = Pool {
    ok: &[
        "\"reno\"",
        "\"newreno\"",
        "\"cubic\"",
        "\"vegas\"",
        "\"bbr\"",
        "\"bbr3\"",
        "\"ledbat\"",
    ],
    bad: &["\"bbr2\""],
};
const APP: Pool = Pool {
    ok: &[
        "\"bulk\"",
        "\"finite\"",
        "\"web\"",
        "\"repeat\"",
        "\"onoff\"",
        "\"page\"",
        "\"video\"",
    ],
    bad: &["\"ftp\""],
};
const DIST: Pool = Pool {
    ok: &["\"pareto\"", "\"lognormal\"", "\"constant\""],
    bad: &["\"weibull\""],
};
const IDLE: Pool = Pool {
    ok: &[
        "\"0s\"",
        "\"10s\"",
        "[\"5s\", \"15s\"]",
        "[\"1ns\", \"1ns\"]",
    ],
    bad: &["[\"15s\", \"5s\"]", "[\"5s\"]", "[1, 2]", "\"5\""],
};
const IDLE_DIST: Pool = Pool {
    ok: &["\"constant\"", "\"uniform\"", "\"exponential\""],
    bad: &["\"gamma\""],
};
const HTTP: Pool = Pool {
    ok: &["\"1.0\"", "\"1.1\""],
    bad: &["\"2\"", "1.1"],
};
const MODEL: Pool = Pool {
    ok: &["\"simple\"", "\"packmime\""],
    bad: &["\"packmine\""],
};
const QDISC: Pool = Pool {
    ok: &[
        "\"droptail\"",
        "\"red\"",
        "\"codel\"",
        "\"lstf_codel\"",
        "\"fq_codel\"",
        "\"pie\"",
    ],
    bad: &["\"blue\"", "\"\""],
};
const NODE: Pool = Pool {
    ok: &[
        "\"s1\"", "\"r1\"", "\"r2\"", "\"gw1\"", "\"gw2\"", "\"n1\"", "\"n5\"", "\"gw\"",
        "\"sink\"", "\"a\"", "\"b\"", "\"d\"",
    ],
    bad: &["\"zz\"", "\"\""],
};
const NODES: Pool = Pool {
    ok: &[
        "[\"a\", \"b\", \"c\", \"d\", \"e\"]",
        "[\"n1\", \"n2\", \"n3\", \"n4\", \"n5\", \"gw\", \"sink\", \"x\"]",
    ],
    bad: &["[\"a\", \"a\"]", "[]", "[\"\"]", "\"a\""],
};
const NAME: Pool = Pool {
    ok: &["\"x\"", "\"\u{e9}\"", "\"a b\""],
    bad: &["\"x.rev\"", "\"\"", "\"ab\"", "\"bottleneck\""],
};
const TRACE: Pool = Pool {
    ok: &[
        "\"../traces/Verizon-LTE-short.down\"",
        "\"../traces/Verizon-LTE-short.up\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/crlf.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/one.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/slow.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/dense.trace\"",
    ],
    bad: &[
        "\"does-not-exist.trace\"",
        "\"\"",
        "\".\"",
        "\"../traces\"",
        "\"/\"",
        "\"../README.md\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/empty.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/blank.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/words.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/zero.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/decreasing.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/too-long.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/binary.trace\"",
        "\"../crates/aqmlab-sim/tests/fuzz-traces/negative.trace\"",
    ],
};
const SCHEDULE: Pool = Pool {
    ok: &[
        "[[\"0s\", \"1bps\"]]",
        "[[\"0s\", \"1000Gbps\"]]",
        "[[\"0s\", \"10Mbps\"], [\"1ms\", \"0bps\"], [\"2ms\", \"1Mbps\"]]",
        "[[\"0s\", \"0bps\"], [\"1000000s\", \"10Mbps\"]]",
        "[[\"0s\", \"0bps\"], [\"10ms\", \"10Mbps\"]]",
        "[[\"0s\", \"1Mbps\"], [\"1ns\", \"1000Gbps\"], [\"2ns\", \"1bps\"]]",
        "[[\"0s\", \"10Mbps\"], [\"10ms\", \"0bps\"], [\"10000001ns\", \"10Mbps\"]]",
        "[[\"0s\", \"1bps\"], [\"1ns\", \"2bps\"], [\"2ns\", \"3bps\"], [\"3ns\", \"1Gbps\"]]",
    ],
    bad: &[
        "[]",
        "[[]]",
        "[[\"0s\"]]",
        "[[\"0s\", \"10Mbps\", \"1s\"]]",
        "[[\"0s\", \"0bps\"]]",
        "[[\"1ms\", \"10Mbps\"]]",
        "[[\"0s\", \"10Mbps\"], [\"0s\", \"1Mbps\"]]",
        "[[\"0s\", \"10Mbps\"], [\"20ms\", \"1Mbps\"], [\"10ms\", \"5Mbps\"]]",
        "[[\"0s\", \"10Mbps\"], [\"1ms\", \"0bps\"]]",
        "[[\"0s\", \"0bps\"], [\"18446744073709551615ns\", \"10Mbps\"]]",
        "[[\"0s\", 10]]",
        "[\"0s\", \"10Mbps\"]",
        "\"10Mbps\"",
    ],
};
/// Discipline parameter values (each is valid for some parameter).
const PARAM: Pool = Pool {
    ok: &[
        "1",
        "\"1ns\"",
        "\"1000000s\"",
        "\"1p\"",
        "\"1B\"",
        "\"4294967295p\"",
        "\"1bps\"",
        "\"1000Gbps\"",
        "4294967295",
        "1000000000",
        "0.0",
        "1.0",
        "1e-300",
        "\"auto\"",
        "\"off\"",
        "\"rfc\"",
        "\"linux\"",
        "\"ns3\"",
        "\"byte\"",
        "\"packet\"",
        "\"as_coded\"",
        "\"perturbed\"",
        "true",
    ],
    bad: &[
        "0",
        "\"0s\"",
        "\"18446744073709551615ns\"",
        "\"0p\"",
        "\"18446744073709551615p\"",
        "\"18446744073709551615B\"",
        "\"0bps\"",
        "\"18446744073709551615bps\"",
        "-1.0",
        "1e308",
        "nan",
        "[1]",
    ],
};

/// The kind of value a key holds.
fn pool(key: &str, in_params: bool) -> &'static Pool {
    if in_params {
        return &PARAM;
    }
    match key {
        "rate" | "access_rate" => &RATE,
        "duration" | "bin" | "delay" | "start" | "stop" | "on_time" | "off_time" | "min_rto"
        | "delack_timeout" | "interval" | "segment" | "playout_buffer" => &DURATION,
        "idle" => &IDLE,
        "idle_dist" => &IDLE_DIST,
        "model" => &MODEL,
        "http" => &HTTP,
        "sender_delay" | "receiver_delay" => &DELAY_LIST,
        "buffer" | "access_buffer" => &SIZE,
        "bytes" | "size_mean" | "request_size" => &BYTES,
        "senders" => &SENDERS,
        "mss" => &MSS,
        "size" => &UDP_SIZE,
        "max_window" | "initial_cwnd" => &WINDOW,
        "seed" => &SEED,
        "onoff_shape" | "size_shape" => &SHAPE,
        "size_sigma" => &SIGMA,
        "conns_per_s" => &CONNS,
        "loss" => &LOSS,
        "delayed_ack" | "sack" | "ecn" | "handshake" | "hystart" | "reuse" | "idle_restart" => {
            &BOOL
        }
        "syn_retries" => &SYN_RETRIES,
        "kind" => &KIND,
        "cc" => &CC,
        "app" => &APP,
        "size_dist" => &DIST,
        "qdisc" => &QDISC,
        "from" | "to" => &NODE,
        "nodes" => &NODES,
        "trace" => &TRACE,
        "schedule" => &SCHEDULE,
        _ => &NAME,
    }
}

/// Key paths that make no sense (unknown keys, bad syntax, indices out of range).
const BAD_PATHS: &[&str] = &[
    "",
    ".",
    "..",
    "a..b",
    "[0]",
    "flows[",
    "flows[]",
    "flows[-1].rate",
    "flows[99].rate",
    "flows[18446744073709551616].rate",
    "flows[0]",
    "flows[0][0]",
    "links[0]",
    "links[99].rate",
    "nodes[99]",
    "nodes[0].x",
    "duration.x",
    "duration[0]",
    "dumbbell.bottleneck.schedule[9]",
    "dumbbell.bottleneck.schedule[0]",
    "dumbbell.sender_delay[0]",
    "dumbbell.receiver_delay[7]",
    "dumbbell.bottleneck.params.x.y",
    "dumbbell.bottleneck.reverse.reverse.rate",
    "dumbbell.bottleneck.reverse.name",
    "links[0].reverse.from",
    "links[5].params.w_q.x",
    "unknown",
    "flows[0].unknown",
    "dumbbell.unknown.x",
    "flows.x",
    "\u{e9}.\u{e9}",
    "a\nb",
];

/// Reads input bytes one at a time; zeros once they run out.
struct Bytes<'a> {
    data: &'a [u8],
}

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }
    fn pick<'b, T>(&mut self, xs: &'b [T]) -> &'b T {
        let i = (self.u8() as usize) | ((self.u8() as usize) << 8);
        &xs[i % xs.len()]
    }
    /// Up to 255 raw bytes, as text.
    fn text(&mut self) -> String {
        let n = self.u8() as usize;
        let n = n.min(self.data.len());
        let (t, rest) = self.data.split_at(n);
        self.data = rest;
        String::from_utf8_lossy(t).into_owned()
    }
}

/// A table a scenario has or could have: its path, the keys it is likely to hold (edits that
/// keep the scenario usable more often), and every key it may hold.
struct Table {
    prefix: String,
    likely: Vec<&'static str>,
    all: &'static [&'static str],
}

/// Every table of `doc` a scenario can have.
fn tables(doc: &toml_edit::DocumentMut) -> Vec<Table> {
    let t = |prefix: String, likely: &[&'static str], all: &'static [&'static str]| Table {
        prefix,
        likely: likely.to_vec(),
        all,
    };
    let mut out = vec![t(String::new(), ROOT_LIKELY, ROOT_KEYS)];
    let direction = |p: String, d: Option<&dyn toml_edit::TableLike>, out: &mut Vec<Table>| {
        let kind = d
            .and_then(|d| d.get("qdisc"))
            .and_then(|q| q.as_str())
            .and_then(|q| Kind::from_name(q).ok())
            .unwrap_or(Kind::DropTail);
        let own: Vec<&'static str> = kind.params().iter().map(|s| s.name).collect();
        out.push(t(format!("{p}.reverse"), DIRECTION_LIKELY, DIRECTION_KEYS));
        out.push(t(format!("{p}.params"), &own, param_names()));
        out.push(t(p, DIRECTION_LIKELY, DIRECTION_KEYS));
    };
    if let Some(d) = doc.get("dumbbell").and_then(|d| d.as_table_like()) {
        out.push(t("dumbbell".into(), DUMBBELL_LIKELY, DUMBBELL_KEYS));
        let b = d.get("bottleneck").and_then(|b| b.as_table_like());
        direction("dumbbell.bottleneck".into(), b, &mut out);
    }
    if let Some(ls) = doc.get("links").and_then(|i| i.as_array_of_tables()) {
        for (i, l) in ls.iter().enumerate() {
            direction(format!("links[{i}]"), Some(l), &mut out);
        }
    }
    if let Some(fs) = doc.get("flows").and_then(|i| i.as_array_of_tables()) {
        for (i, f) in fs.iter().enumerate() {
            let s = |k: &str| f.get(k).and_then(|v| v.as_str()).unwrap_or("");
            let likely = match (s("kind"), s("app")) {
                ("udp", _) => UDP_LIKELY,
                (_, "web") => WEB_LIKELY,
                (_, "repeat") => REPEAT_LIKELY,
                (_, "onoff") => ONOFF_LIKELY,
                _ => TCP_LIKELY,
            };
            out.push(t(format!("flows[{i}]"), likely, &FLOW_KEYS));
        }
    }
    out
}

/// Every discipline's parameter names, and two that none has.
fn param_names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let mut v: Vec<&'static str> = vec!["unknown_param", ""];
        for k in Kind::ALL {
            for p in k.params() {
                if !v.contains(&p.name) {
                    v.push(p.name);
                }
            }
        }
        v
    })
}

/// Names a `--qdisc`/`--packet-log` override can use for `doc`: its links (some of them) and
/// their reverse directions.
fn link_names(doc: &toml_edit::DocumentMut) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    if let Some(d) = doc.get("dumbbell").and_then(|d| d.as_table_like()) {
        v.push("bottleneck".into());
        let n = d
            .get("senders")
            .and_then(|s| s.as_integer())
            .unwrap_or(1)
            .clamp(1, 3);
        for i in 1..=n {
            v.push(format!("s{i}.access"));
            v.push(format!("r{i}.access"));
        }
    }
    if let Some(ls) = doc.get("links").and_then(|l| l.as_array_of_tables()) {
        for l in ls.iter() {
            if let Some(n) = l.get("name").and_then(|n| n.as_str()) {
                v.push(n.to_string());
            }
        }
    }
    let revs: Vec<String> = v.iter().map(|n| format!("{n}.rev")).collect();
    v.extend(revs);
    v
}

/// Names of no link direction.
const BAD_LINK_NAMES: &[&str] = &["nope", "", ".rev", "bottleneck.rev.rev", "s0.access"];

/// Builds the scenario from `text` with `ov`; if it loads, runs it for up to [`RUN_CAP`] and
/// checks the report and summary. Returns the error when it does not load, after checking that
/// the error is one well-formed line.
pub fn check_text(text: &str, file: &str, ov: &Overrides) -> Result<(), ScenarioError> {
    let dir = scenario_dir();
    let stem = file.strip_suffix(".toml").unwrap_or(file);
    let mut s = match build(text, file, &dir, stem, ov) {
        Ok(s) => s,
        Err(e) => {
            check_error(&e, text, file, text);
            return Err(e);
        }
    };
    // In steps, so a case that is merely expensive (a UDP source sending a packet every
    // nanosecond) stops after EVENT_BUDGET events; a simulation that stops advancing hangs
    // inside a step, and the fuzzer's time limit reports it.
    let end = SimTime::ZERO + s.duration.min(RUN_CAP);
    let mut until = SimTime::ZERO;
    while until < end && s.sim.events_processed() < EVENT_BUDGET {
        until = (until + STEP).min(end);
        s.sim.run_until(until);
    }
    let r = s.sim.report();
    assert_eq!(r.sim_time, until);
    // Every packet sent is delivered, dropped (or lost on the wire), or still in the network.
    let sent: u64 = r.flows.iter().map(|f| f.sent_pkts).sum();
    let done: u64 = r
        .flows
        .iter()
        .map(|f| f.delivered_pkts + f.dropped_pkts)
        .sum();
    assert_eq!(sent, done + r.packets_alive as u64, "packet conservation");
    for l in &r.links {
        assert!(
            l.utilization.is_finite() && (0.0..=1.0 + 1e-9).contains(&l.utilization),
            "{}: utilization {}",
            l.name,
            l.utilization
        );
        assert!(l.m.delivered_pkts <= l.m.enqueued_pkts, "{}", l.name);
    }
    let json = summary(&s.name, s.seed, &r, 0.0).to_string();
    assert!(json.starts_with('{'));
    Ok(())
}

/// An error must be one line that starts with the file name, with a line number within `text`
/// and a key path a scenario can have; `input` is everything the user wrote.
fn check_error(e: &ScenarioError, text: &str, file: &str, input: &str) {
    let shown = e.to_string();
    assert!(!shown.contains('\n'), "an error is one line: {shown:?}");
    assert!(shown.starts_with(file), "{shown:?}");
    assert!(!e.msg.trim().is_empty(), "{shown:?}");
    // serde_spanned's internal key never shows (unless the input wrote it).
    assert!(
        !shown.contains("__serde") || input.contains("__serde"),
        "{shown:?}"
    );
    if !e.path.starts_with("--") {
        let unknown = e.msg.starts_with("unknown field");
        assert!(
            plausible_path(&e.path, unknown),
            "the key path of {shown:?} is not one a scenario can have"
        );
    }
    if let Some(l) = e.line {
        assert!(
            l >= 1 && l <= text.lines().count().max(1) + 1,
            "line {l} of {}: {shown:?}",
            text.lines().count()
        );
    }
}

/// True if `path` (`links[1].reverse.rate`) names a key a scenario can have; the last key may be
/// one it cannot have when `unknown_last` (an "unknown field" error).
fn plausible_path(path: &str, unknown_last: bool) -> bool {
    if path.is_empty() {
        return true;
    }
    let segs: Vec<&str> = path.split('.').collect();
    let (mut allowed, mut any): (&[&str], bool) = (ROOT_KEYS, false);
    for (i, seg) in segs.iter().enumerate() {
        let key = seg.split('[').next().unwrap_or("");
        let last = i + 1 == segs.len();
        if !(any || allowed.contains(&key) || (last && unknown_last)) {
            return false;
        }
        (allowed, any) = match (key, any) {
            (_, true) => (&[][..], false),
            ("dumbbell", _) => (DUMBBELL_KEYS, false),
            ("bottleneck" | "reverse" | "links", _) => (DIRECTION_KEYS, false),
            ("flows", _) => (&FLOW_KEYS[..], false),
            ("params", _) => (&[][..], true),
            _ => (&[][..], false),
        };
    }
    true
}

/// Applies `sets` like `--set` and builds and runs the result (see [`check_text`]).
pub fn check_with_sets(
    base: &str,
    file: &str,
    sets: &[(String, String)],
    ov: &Overrides,
) -> Result<(), ScenarioError> {
    let text = match apply_sets(base, file, sets) {
        Ok(t) => t,
        Err(e) => {
            check_error(&e, base, file, &format!("{base}{sets:?}"));
            return Err(e);
        }
    };
    check_text(&text, file, ov)
}

/// One decoded fuzz input: a scenario text (a bundled one after key removals, or raw text), the
/// `--set` edits and the overrides.
#[derive(Clone, Debug)]
pub struct Case {
    /// The file name errors show.
    pub file: &'static str,
    /// The scenario text before the `--set` edits.
    pub text: String,
    /// `--set PATH=VALUE` edits.
    pub sets: Vec<(String, String)>,
    /// `--seed`, `--qdisc`, `--packet-log`.
    pub ov: Overrides,
}

impl Case {
    /// Applies the edits, builds, and runs (see [`check_with_sets`]).
    pub fn check(&self) -> Result<(), ScenarioError> {
        check_with_sets(&self.text, self.file, &self.sets, &self.ov)
    }
}

/// Decodes fuzz input. The first byte chooses the mode: raw text (`0xf0` and above), or a
/// bundled scenario with edits (see the module documentation) and overrides.
pub fn decode(data: &[u8]) -> Case {
    let mut b = Bytes { data };
    let mode = b.u8();
    if mode >= 0xf0 {
        return Case {
            file: "fuzz.toml",
            text: String::from_utf8_lossy(b.data).into_owned(),
            sets: Vec::new(),
            ov: Overrides::default(),
        };
    }
    let (file, base) = BASES[mode as usize % BASES.len()];
    let mut doc: toml_edit::DocumentMut = base.parse().expect("bundled scenarios parse");
    let n_edits = 1 + b.u8() % 3;
    let mut sets: Vec<(String, String)> = Vec::new();
    for _ in 0..n_edits {
        let op = b.u8();
        let ts = tables(&doc);
        let t = b.pick(&ts);
        let key = if b.u8() < 32 || t.likely.is_empty() {
            *b.pick(t.all)
        } else {
            *b.pick(&t.likely)
        };
        let path = if t.prefix.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", t.prefix)
        };
        let p = pool(key, t.prefix.ends_with("params"));
        match op {
            // Remove the key (for a key the file does not have, a no-op).
            0..16 => remove(&mut doc, &path),
            // A value from the generic pool.
            16..24 => sets.push((path, b.pick(ANY).to_string())),
            // Raw bytes as the value.
            24..28 => sets.push((path, b.text())),
            // A nonsensical path.
            28..36 => sets.push((b.pick(BAD_PATHS).to_string(), b.pick(ANY).to_string())),
            // A raw path.
            36..40 => sets.push((b.text(), b.pick(ANY).to_string())),
            // A new rate of another kind: the others removed first.
            40..64 if t.prefix.ends_with("bottleneck") || t.prefix.starts_with("links[") => {
                let new = *b.pick(RATE_KEYS);
                for k in RATE_KEYS {
                    remove(&mut doc, &format!("{}.{k}", t.prefix));
                }
                let p = pool(new, false);
                let v = if b.u8() < 192 { p.ok } else { p.bad };
                sets.push((format!("{}.{new}", t.prefix), b.pick(v).to_string()));
            }
            // A value of the key's own kind, usually one that should be accepted.
            _ => {
                let v = if b.u8() < 192 { p.ok } else { p.bad };
                sets.push((path, b.pick(v).to_string()));
            }
        }
    }
    let names = link_names(&doc);
    let link = |b: &mut Bytes<'_>| -> String {
        if b.u8() < 16 || names.is_empty() {
            b.pick(BAD_LINK_NAMES).to_string()
        } else {
            b.pick(&names).clone()
        }
    };
    let flags = b.u8();
    let mut ov = Overrides {
        seed: match flags & 3 {
            0 => None,
            1 => Some(0),
            2 => Some(u64::MAX),
            _ => Some(b.u8() as u64),
        },
        ..Overrides::default()
    };
    for _ in 0..(flags >> 2) & 3 {
        let name = link(&mut b);
        let kind = match b.u8() {
            0..16 => "blue",
            16..24 => "",
            x => Kind::ALL[x as usize % Kind::ALL.len()].name(),
        };
        ov.qdisc.push((name, kind.to_string()));
    }
    if flags & 0x10 != 0 {
        let name = link(&mut b);
        ov.packet_log.push(name);
    }
    Case {
        file,
        text: doc.to_string(),
        sets,
        ov,
    }
}

/// The cargo-fuzz target's body: [`decode`], then [`Case::check`]; panics only on a bug.
pub fn scenario_text(data: &[u8]) {
    let _ = decode(data).check();
}

/// Removes the key at dotted `path` (with `[i]` indices) from `doc`, if it is there.
fn remove(doc: &mut toml_edit::DocumentMut, path: &str) {
    let mut t: &mut dyn toml_edit::TableLike = doc.as_table_mut();
    let segs: Vec<&str> = path.split('.').collect();
    for (i, seg) in segs.iter().enumerate() {
        let (key, idx) = match seg.split_once('[') {
            Some((k, rest)) => (k, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (*seg, None),
        };
        if i + 1 == segs.len() {
            t.remove(key);
            return;
        }
        let next = match (t.get_mut(key), idx) {
            (Some(toml_edit::Item::ArrayOfTables(a)), Some(i)) => {
                a.get_mut(i).map(|x| x as &mut dyn toml_edit::TableLike)
            }
            (Some(it), None) => it.as_table_like_mut(),
            _ => None,
        };
        match next {
            Some(n) => t = n,
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_base_loads_and_runs() {
        for (file, text) in BASES {
            check_text(text, file, &Overrides::default()).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}
