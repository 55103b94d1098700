//! Runs enqueue+dequeue pairs through one discipline as `benches/qdisc.rs` does (1500-byte
//! packets, round-robin over `flows` flows, a backlog kept near `backlog`, 10 µs apart), for an
//! instruction count under callgrind:
//!
//! ```text
//! cargo build --profile profiling -p aqmlab-qdisc --example pairs
//! valgrind --tool=callgrind --callgrind-out-file=cg.out target/profiling/examples/pairs \
//!     cake 64 100 1000000 flow_mode=flows
//! ```
//!
//! Arguments: KIND FLOWS BACKLOG PAIRS [PARAM=VALUE ...]. Prints the pairs run.

use aqmlab_core::{FlowId, Packet, SimTime};
use aqmlab_qdisc::{registry, Params, Qdisc, UniformSource};
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: pairs KIND FLOWS BACKLOG PAIRS [PARAM=VALUE ...]";
    let [kind, flows, backlog, pairs, params @ ..] = &args[..] else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let num = |s: &str, what: &str| -> u64 {
        s.parse().unwrap_or_else(|_| {
            eprintln!("pairs: {what} = {s}: expected a whole number ({usage})");
            std::process::exit(2)
        })
    };
    let (flows, backlog, pairs) = (
        num(flows, "FLOWS").max(1),
        num(backlog, "BACKLOG") as u32,
        num(pairs, "PAIRS"),
    );
    let params: Vec<&str> = params.iter().map(String::as_str).collect();
    let q = Params::split_pairs(&params)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            registry::build(kind, &p, UniformSource::seeded(1)).map_err(|e| e.to_string())
        });
    let mut q = Qdisc::new(q.unwrap_or_else(|e| {
        eprintln!("pairs: {e}");
        std::process::exit(2)
    }));
    let (mut now, mut id) = (0u64, 0u64);
    let mut push = |q: &mut Qdisc<_>, now: u64| {
        let flow = FlowId((id % flows) as u32);
        q.enqueue(SimTime::from_nanos(now), Packet::new(id, 1500, flow));
        id += 1;
    };
    while q.backlog().packets < backlog {
        push(&mut q, now);
    }
    for _ in 0..pairs {
        now += 10_000;
        push(&mut q, now);
        black_box(q.dequeue(SimTime::from_nanos(now)));
        if q.backlog().packets < backlog - backlog / 10 {
            while q.backlog().packets < backlog {
                push(&mut q, now);
            }
        }
    }
    println!("{pairs}");
}
