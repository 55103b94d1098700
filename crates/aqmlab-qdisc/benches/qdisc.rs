//! One enqueue+dequeue pair at steady state, per discipline (criterion).
//!
//! Each discipline holds a standing backlog (about 100 packets; 1000 for LSTF-CoDel), time
//! advances 10 µs per pair (so CoDel's sojourn, ~1 ms, stays below target and the measurement is
//! the common path), and packets are topped up if an AQM drop shrinks the backlog. FQ-CoDel,
//! FQ-PIE, FQ-COBALT and CAKE spread packets over 64 flows (CAKE with its default diffserv3:
//! `flow_mode=flows` unshaped and shaped, and its default triple-isolate, every flow between
//! the same two hosts). The packets are Not-ECT, so DualPI2 runs its C queue and PI2 (two draws
//! per packet once p' > 0). Run: `make bench` (or `cargo bench -p aqmlab-qdisc`).
//!
//! Beside criterion's `<criterion>/enqueue_dequeue_pair/<case>/new/estimates.json` (ns per pair),
//! each case measured writes `<case>/aqmlab.json`: the discipline and parameters, and the
//! provenance of the figure (commit, whether the tree was modified, host, CPU, load average, the
//! time). `aqmlab characterize --bench <criterion>` reads both (RFC 7928 §11's cost). The
//! criterion folder is criterion's own: `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`,
//! else `criterion` in the target folder this bench was built in.

use aqmlab_core::{FlowId, Packet, SimTime, Xoshiro256pp};
use aqmlab_qdisc::{registry, Params, Qdisc, UniformSource};
use criterion::{Criterion, Throughput};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

struct Case {
    name: &'static str,
    kind: &'static str,
    params: &'static [&'static str],
    backlog: u32,
    flows: u32,
}

const CASES: &[Case] = &[
    Case {
        name: "droptail",
        kind: "droptail",
        params: &["limit=1000p"],
        backlog: 100,
        flows: 1,
    },
    Case {
        name: "red",
        kind: "red",
        params: &[
            "limit=1000p",
            "mode=packet",
            "min_th=50",
            "max_th=150",
            "w_q=0.002",
            "bandwidth=1Gbps",
        ],
        backlog: 100,
        flows: 1,
    },
    Case {
        name: "codel",
        kind: "codel",
        params: &["limit=1000p"],
        backlog: 100,
        flows: 1,
    },
    Case {
        name: "codel_linux",
        kind: "codel",
        params: &["limit=1000p", "variant=linux"],
        backlog: 100,
        flows: 1,
    },
    Case {
        name: "pie",
        kind: "pie",
        params: &["limit=1000p"],
        backlog: 100,
        flows: 1,
    },
    Case {
        name: "fq_codel_64flows",
        kind: "fq_codel",
        params: &["limit=10240p"],
        backlog: 100,
        flows: 64,
    },
    Case {
        name: "fq_pie_64flows",
        kind: "fq_pie",
        params: &["limit=10240p"],
        backlog: 100,
        flows: 64,
    },
    Case {
        name: "cobalt",
        kind: "cobalt",
        params: &["limit=1000p"],
        backlog: 100,
        flows: 1,
    },
    Case {
        name: "fq_cobalt_64flows",
        kind: "fq_cobalt",
        params: &["limit=10240p"],
        backlog: 100,
        flows: 64,
    },
    Case {
        name: "cake_64flows",
        kind: "cake",
        params: &["flow_mode=flows"],
        backlog: 100,
        flows: 64,
    },
    // The shaper on (diffserv3, flows) at 2 Gb/s, above the 1.2 Gb/s the driver offers (1500 B
    // per 10 µs): it never holds a packet back, but times every one (`charge`, the tin choice
    // by schedule).
    Case {
        name: "cake_64flows_shaped",
        kind: "cake",
        params: &["flow_mode=flows", "bandwidth=2Gbps"],
        backlog: 100,
        flows: 64,
    },
    // The default triple-isolate with every flow between the same two hosts: each of the 64 bulk
    // flows gets 1/64 of a quantum (23 bytes), so a 1500-byte packet takes ~65 DRR refills.
    Case {
        name: "cake_triple_64flows_1host",
        kind: "cake",
        params: &[],
        backlog: 100,
        flows: 64,
    },
    Case {
        name: "dualpi2",
        kind: "dualpi2",
        params: &["limit=1000p"],
        backlog: 100,
        flows: 1,
    },
    Case {
        name: "lstf_codel_backlog1000",
        kind: "lstf_codel",
        params: &["limit=2000p"],
        backlog: 1000,
        flows: 1,
    },
];

struct Driver {
    q: Qdisc<aqmlab_qdisc::AnyQdisc>,
    now_ns: u64,
    next_id: u64,
    backlog: u32,
    flows: u32,
}

impl Driver {
    fn new(c: &Case) -> Self {
        let pairs = Params::split_pairs(c.params).unwrap();
        let q = Qdisc::new(registry::build(c.kind, &pairs, UniformSource::seeded(1)).unwrap());
        let mut d = Driver {
            q,
            now_ns: 0,
            next_id: 0,
            backlog: c.backlog,
            flows: c.flows,
        };
        d.top_up();
        // Warm up to steady state (RED's average, PIE's probability, buffers at full size).
        for _ in 0..200_000 {
            d.pair();
        }
        d
    }
    #[inline]
    fn push(&mut self) {
        let flow = FlowId((self.next_id % self.flows as u64) as u32);
        self.q.enqueue(
            SimTime::from_nanos(self.now_ns),
            Packet::new(self.next_id, 1500, flow),
        );
        self.next_id += 1;
    }
    fn top_up(&mut self) {
        while self.q.backlog().packets < self.backlog {
            self.push();
        }
    }
    #[inline]
    fn pair(&mut self) {
        self.now_ns += 10_000;
        self.push();
        black_box(self.q.dequeue(SimTime::from_nanos(self.now_ns)));
        if self.q.backlog().packets < self.backlog - self.backlog / 10 {
            self.top_up();
        }
    }
}

fn bench(c: &mut Criterion, dir: &Path) {
    let mut g = c.benchmark_group("enqueue_dequeue_pair");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(30);
    for case in CASES {
        let case_dir = dir.join("enqueue_dequeue_pair").join(case.name);
        let estimates = case_dir.join("new").join("estimates.json");
        let before = modified(&estimates);
        // Built on first use, so a case the filter leaves out costs nothing.
        let mut d: Option<Driver> = None;
        g.bench_function(case.name, |b| {
            let d = d.get_or_insert_with(|| Driver::new(case));
            b.iter(|| d.pair())
        });
        // Only a new measurement gets a provenance (not a filtered-out case, nor a test-mode run
        // of `cargo test --benches`, which measures nothing).
        let after = modified(&estimates);
        if after.is_some() && after != before {
            write_provenance(&case_dir, case);
        }
    }
    // The floor under `cake_triple_64flows_1host`: the ~63 refills a packet takes there each
    // draw a dither (Linux's `prandom_u32() >> 16`), and xoshiro256++'s draws are serial. The
    // draws and their deficit updates alone, with no queue around them (1,548,822 = 1514 ·
    // ⌊65535 / 64⌋, the scaled quantum of a flow among 64 between two hosts).
    let mut r = Xoshiro256pp::seed_from_u64(1);
    let mut deficits = [0i64; 64];
    g.bench_function("cake_floor_63_dither_draws", |b| {
        b.iter(|| {
            for d in deficits.iter_mut().take(63) {
                *d += ((1_548_822 + (r.next_u64() >> 48)) >> 16) as i64;
            }
            black_box(&mut deficits);
        })
    });
    g.finish();
}

/// Criterion's output folder, found as criterion finds it (`CRITERION_HOME`, then
/// `CARGO_TARGET_DIR/criterion`), else from where this binary is (`<target>/release/deps/`), and
/// given to criterion so that both agree.
fn criterion_dir() -> PathBuf {
    if let Some(h) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(h);
    }
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(t).join("criterion");
    }
    std::env::current_exe()
        .ok()
        .and_then(|e| e.ancestors().nth(3).map(|t| t.join("criterion")))
        .unwrap_or_else(|| PathBuf::from("target/criterion"))
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn json_str(s: &str) -> String {
    let mut o = String::from('"');
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn read_trim(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// `<case dir>/aqmlab.json`: what was measured and where the figure comes from.
fn write_provenance(case_dir: &Path, case: &Case) {
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_default();
    // Tracked files changed since the commit: the figure is then not the commit's.
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).map(|s| !s.is_empty());
    let cpu = read_trim("/proc/cpuinfo")
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default();
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    #[allow(clippy::disallowed_methods)] // the date of the measurement, not the model's time
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let params: Vec<String> = case.params.iter().map(|p| json_str(p)).collect();
    let text = format!(
        "{{\n  \"case\": {},\n  \"kind\": {},\n  \"params\": [{}],\n  \"backlog_packets\": {},\n  \
         \"flows\": {},\n  \"measures\": \"one enqueue and one dequeue at steady state, ns per pair\",\n  \
         \"commit\": {},\n  \"modified\": {},\n  \"host\": {},\n  \"cpu\": {},\n  \"cpus\": {},\n  \
         \"loadavg\": {},\n  \"unix_time\": {}\n}}\n",
        json_str(case.name),
        json_str(case.kind),
        params.join(", "),
        case.backlog,
        case.flows,
        json_str(&commit),
        dirty.map_or("null".to_string(), |d| d.to_string()),
        json_str(&read_trim("/proc/sys/kernel/hostname")),
        json_str(&cpu),
        cpus,
        json_str(&read_trim("/proc/loadavg")),
        now,
    );
    if std::fs::create_dir_all(case_dir).is_ok() {
        let _ = std::fs::write(case_dir.join("aqmlab.json"), text);
    }
}

fn main() {
    let dir = criterion_dir();
    let mut c = Criterion::default()
        .output_directory(&dir)
        .configure_from_args();
    bench(&mut c, &dir);
    c.final_summary();
}
