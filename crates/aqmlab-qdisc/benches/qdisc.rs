//! One enqueue+dequeue pair at steady state, per discipline (criterion).
//!
//! Each discipline holds a standing backlog (about 100 packets; 1000 for LSTF-CoDel), time
//! advances 10 µs per pair (so CoDel's sojourn, ~1 ms, stays below target and the measurement is
//! the common path), and packets are topped up if an AQM drop shrinks the backlog. FQ-CoDel,
//! FQ-PIE and FQ-COBALT spread packets over 64 flows. The packets are Not-ECT, so DualPI2 runs its
//! C queue and PI2 (two draws per packet once p' > 0). Run: `make bench` (or `cargo bench -p aqmlab-qdisc`).

use aqmlab_core::{FlowId, Packet, SimTime, Xoshiro256pp};
use aqmlab_qdisc::{registry, Params, Qdisc, UniformSource};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

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

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("enqueue_dequeue_pair");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .sample_size(30);
    for case in CASES {
        let mut d = Driver::new(case);
        g.bench_function(case.name, |b| b.iter(|| d.pair()));
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

criterion_group!(benches, bench);
criterion_main!(benches);
