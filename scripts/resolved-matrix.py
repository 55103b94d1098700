#!/usr/bin/env python3
"""Writes `scenario.resolved.toml` (or the one-line error) of every bundled scenario, as given
and with each discipline swapped onto every link, each under a few `--set` edits, one file per
combination in the folder OUT: a change to the loader that must not move the resolved scenarios
is checked by writing OUT with the build before it and with the build after it, and diffing:

    PYTHONPATH=python scripts/resolved-matrix.py /tmp/before    # with the old _core
    PYTHONPATH=python scripts/resolved-matrix.py /tmp/after     # with the new _core
    diff -r /tmp/before /tmp/after

Then, without the discipline swaps, the edits in EDGES: the topology's, a TCP flow's and a
repeated transfer's keys, each valid and each wrong, so that the errors of those keys (and the
order they come in) are compared too.
"""

import importlib
import os
import sys
from pathlib import Path

import tomllib

run = importlib.import_module("aqmlab.run")

KINDS = ["droptail", "red", "codel", "lstf_codel", "fq_codel", "pie", "fq_pie", "cobalt"]
KINDS += ["fq_cobalt", "dualpi2", "cake"]
SETS: list[dict[str, str]] = [
    {},
    {"dumbbell.bottleneck.params.target": "7ms"},
    {"dumbbell.bottleneck.params.mtu": "1200B"},
    {"dumbbell.bottleneck.params.variant": "linux"},
    {"dumbbell.bottleneck.jitter": "uniform(0ms, 1ms)"},
    {"dumbbell.bottleneck.buffer": "150000B"},
    {"links[5].params.delay": "3ms"},
    {"links[5].jitter": "uniform(0ms, 1ms)"},
    {"links[5].buffer": "60000B"},
    {"links[5].params.w_q": "0.002"},
    {"dumbbell.bottleneck.params.limit": "30000B"},
]


ONE_HOST = {"sender_delay": "1ms", "receiver_delay": "1ms", "bottleneck": {"delay": "1ms"}}
RED_NODES = ["n1", "n2", "n3", "n4", "n5", "gw", "sink"]
# Some of a topology's keys, read by `links.rs` `read_topology`: (scenario, --set, --unset).
EDGES: list[tuple[str, dict[str, object], list[str]]] = [
    ("bulk-dumbbell", {"nodes": ["a", "b"]}, []),
    ("bulk-dumbbell", {"dumbbell.senders": 0}, []),
    ("bulk-dumbbell", {"dumbbell.senders": 1001}, []),
    ("bulk-dumbbell", {"dumbbell.senders": 2}, []),
    ("bulk-dumbbell", {"dumbbell.sender_delay": ["1ms", "2ms"]}, []),
    ("bulk-dumbbell", {"dumbbell.receiver_delay": [f"{i}ms" for i in range(1, 9)]}, []),
    ("bulk-dumbbell", {"dumbbell.sender_delay": [f"{i}ms" for i in range(1, 9)]}, []),
    ("bulk-dumbbell", {"dumbbell.bottleneck.name": "x"}, []),
    ("bulk-dumbbell", {"dumbbell.bottleneck.from": "s1"}, []),
    ("bulk-dumbbell", {}, ["dumbbell.bottleneck.delay"]),
    ("bulk-dumbbell", {"dumbbell.bottleneck.reverse": {"rate": "10Mbps"}}, []),
    ("bulk-dumbbell", {"dumbbell.bottleneck.reverse": {"reverse": {}}}, []),
    ("bulk-dumbbell", {"dumbbell.bottleneck.reverse": {"to": "r1"}}, []),
    ("red-bursty", {"nodes": []}, []),
    ("red-bursty", {}, ["nodes"]),
    ("red-bursty", {"nodes": [f"n{i}" for i in range(4001)]}, []),
    ("red-bursty", {"nodes": ["n1", " ", "n3", "n4", "n5", "gw", "sink"]}, []),
    ("red-bursty", {"nodes": ["n1", "n2\t", "n3", "n4", "n5", "gw", "sink"]}, []),
    ("red-bursty", {"nodes": ["n1", "n2", "n1", "n4", "n5", "gw", "sink"]}, []),
    ("red-bursty", {"nodes": ["n1", "n2", "n3", "n4", "n5", "gw", "sink", "x"]}, []),
    ("red-bursty", {}, ["links[0].from"]),
    ("red-bursty", {}, ["links[0].to"]),
    ("red-bursty", {}, ["links[0].name"]),
    ("red-bursty", {}, ["links[1].from", "links[1].name"]),
    ("red-bursty", {}, ["links[1].to", "links[1].from"]),
    ("red-bursty", {"links[0].from": "nosuch", "links[0].to": "nosuch2"}, []),
    ("red-bursty", {}, ["links[2].delay"]),
    ("red-bursty", {"links[0].from": "nosuch"}, []),
    ("red-bursty", {"links[0].to": "nosuch"}, []),
    ("red-bursty", {"links[0].to": "n1"}, []),
    ("red-bursty", {"links[0].name": "x.rev"}, []),
    ("red-bursty", {"links[0].name": ""}, []),
    ("red-bursty", {"links[1].name": "n1"}, []),
    ("red-bursty", {"links[3].name": "n1.rev"}, []),
    ("red-bursty", {"links[5].reverse": {"delay": "2ms", "buffer": "5p"}}, []),
    ("red-bursty", {"links[5].reverse": {"from": "n1"}}, []),
    ("red-bursty", {"links[5].reverse": {"reverse": {"delay": "1ms"}}}, []),
    ("red-bursty", {"dumbbell": {"senders": 1, "access_rate": "1Gbps", **ONE_HOST}}, []),
    ("red-bursty", {"nodes": [*RED_NODES, *(f"x{i}" for i in range(3993))]}, []),
]
# A TCP flow's keys (`tcp.rs` `tcp_config` and its steps), each on bulk-dumbbell's first flow
# (cc = "newreno" unless set).
TCP: list[dict[str, object]] = [{"flows[0].cc": cc} for cc in ["tahoe", "reno", "cubic"]]
TCP += [{"flows[0].cc": cc} for cc in ["vegas", "dctcp", "bbr", "bbr3", "prague", "ledbat"]]
TCP += [{"flows[0].cc": "nope"}, {"flows[0].cc": "Cubic"}]
TCP += [{"flows[0].mss": n} for n in [99, 100, 536, 65495, 65496]]
TCP += [{"flows[0].max_window": n} for n in [0, 1, 1 << 24, (1 << 24) + 1]]
TCP += [{"flows[0].initial_cwnd": n} for n in [0, 1, 10, 1 << 16, (1 << 16) + 1]]
TCP += [{"flows[0].delayed_ack": False}, {"flows[0].sack": False}, {"flows[0].ecn": True}]
TCP += [{"flows[0].cc": "prague", "flows[0].ecn": False}, {"flows[0].accecn": True}]
TCP += [{"flows[0].cc": "prague", "flows[0].accecn": False}, {"flows[0].handshake": False}]
TCP += [{"flows[0].cc": "vegas", "flows[0].hystart": True}]
TCP += [{"flows[0].cc": "vegas", "flows[0].hystart": False}]
TCP += [{"flows[0].hystart": True}, {"flows[0].hystart": False}]
TCP += [{"flows[0].min_rto": v} for v in ["0s", "1ms", "60s", "61s", "x", 5]]
TCP += [{"flows[0].delack_timeout": v} for v in ["0s", "1ms", "499ms", "500ms", "x"]]
TCP += [{"flows[0].min_rto": "0s", "flows[0].mss": 99, "flows[0].cc": "nope"}]
TCP += [{"flows[0].min_rto": "0s", "flows[0].delack_timeout": "0s", "flows[0].hystart": True}]
TCP += [{"flows[0].delack_timeout": "0s", "flows[0].initial_ssthresh": 1}]
TCP += [{"flows[0].initial_ssthresh": n} for n in [1, 2, 100, 1 << 24, (1 << 24) + 1]]
TCP += [{"flows[0].initial_ssthresh": 10, "flows[0].mss": 500}]
TCP += [{"flows[0].dupack_threshold": n} for n in [0, 1, 3, 1000, 1001]]
TCP += [{"flows[0].prr": b} for b in [True, False]]
TCP += [{"flows[0].prr": b, "flows[0].sack": False} for b in [True, False]]
TCP += [{"flows[0].recovery": v} for v in ["rack", "rfc6675", "nope", 1]]
TCP += [{"flows[0].recovery": "rack", "flows[0].sack": False}]
TCP += [{"flows[0].rescue": b} for b in [True, False]]
TCP += [{"flows[0].recover_guard": True}, {"flows[0].recover_guard": True, "flows[0].cc": "reno"}]
TCP += [
    {"flows[0].recover_guard": b, "flows[0].cc": "reno", "flows[0].sack": False}
    for b in [True, False]
]
TCP += [{"flows[0].rto_ssthresh": v} for v in ["rfc5681", "ns2", "x"]]
TCP += [{"flows[0].rto_ssthresh": "ns2", "flows[0].cc": cc} for cc in ["tahoe", "reno", "cubic"]]
TCP += [{"flows[0].pacing": b} for b in [True, False]]
TCP += [{"flows[0].prr": True, "flows[0].sack": False, "flows[0].dupack_threshold": 0}]
TCP += [{"flows[0].recovery": "x", "flows[0].rto_ssthresh": "x", "flows[0].recover_guard": True}]
TCP += [{"flows[0].rto_ssthresh": "x", "flows[0].max_rto": "0s", "flows[0].vegas_alpha": 1}]
# A repeated transfer's keys (`apps.rs` `repeat` and its steps), on consumer-edge's second flow
# (app = "repeat", bytes = "1MB", idle = ["5s", "15s"]).
REPEAT: list[tuple[dict[str, object], list[str]]] = [
    ({"flows[1].size_mean": "10KB"}, []),
    ({"flows[1].size_dist": "pareto"}, []),
    ({"flows[1].size_dist": "pareto", "flows[1].size_mean": "10KB"}, []),
    ({}, ["flows[1].bytes"]),
    ({"flows[1].size_mean": "10KB"}, ["flows[1].bytes"]),
    ({"flows[1].size_mean": "10KB", "flows[1].size_dist": "pareto"}, ["flows[1].bytes"]),
    ({"flows[1].size_mean": "0B"}, ["flows[1].bytes"]),
    ({"flows[1].bytes": "0B"}, []),
    ({"flows[1].bytes": "x"}, []),
    ({}, ["flows[1].idle"]),
    ({}, ["flows[1].idle", "flows[1].bytes"]),
    ({"flows[1].idle": ["15s", "5s"]}, []),
    ({"flows[1].idle": ["5s", "5s"]}, []),
    ({"flows[1].idle": ["5s", "x"]}, []),
    ({"flows[1].idle": ["x", "y"]}, []),
    ({"flows[1].idle": ["1s", "2s", "3s"]}, []),
    ({"flows[1].idle": []}, []),
    ({"flows[1].idle": "10s"}, []),
    ({"flows[1].idle": "x"}, []),
    ({"flows[1].idle": 10}, []),
    ({"flows[1].idle": "10s", "flows[1].idle_dist": "constant"}, []),
    ({"flows[1].idle": "10s", "flows[1].idle_dist": "exponential"}, []),
    ({"flows[1].idle": "x", "flows[1].idle_dist": "exponential"}, []),
    ({"flows[1].idle": "10s", "flows[1].idle_dist": "uniform"}, []),
    ({"flows[1].idle": "10s", "flows[1].idle_dist": "nope"}, []),
    ({"flows[1].idle_dist": "uniform"}, []),
    ({"flows[1].idle_dist": "constant"}, []),
    ({"flows[1].idle_dist": "exponential"}, []),
    ({"flows[1].idle_dist": "nope"}, []),
    ({"flows[1].idle": ["15s", "5s"], "flows[1].idle_dist": "nope"}, []),
    ({"flows[1].idle_restart": False}, []),
    ({"flows[1].idle_restart": True, "flows[1].idle": "x"}, []),
    ({"flows[1].reuse": True}, []),
    ({"flows[1].reuse": True, "flows[1].idle_restart": False}, []),
    ({"flows[1].reuse": False, "flows[1].idle_restart": True}, []),
    ({"flows[1].bytes": "0B", "flows[1].idle": "x"}, []),
]


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    root = Path(__file__).resolve().parent.parent
    for path in sorted((root / "scenarios").glob("*.toml")):
        links = [
            link["name"] for link in tomllib.loads(run.resolve(str(path)).resolved_toml())["links"]
        ]
        for kind in [None, *KINDS]:
            qdisc = {name: kind for name in links} if kind else None
            for i, sets in enumerate(SETS):
                try:
                    text = run.resolve(str(path), qdisc=qdisc, set=sets).resolved_toml()
                except Exception as e:  # the error is part of what must not move
                    text = f"ERROR {type(e).__name__}: {e}\n".replace(str(root) + "/", "")
                name = f"{path.stem}.{kind or 'file'}.{i}.toml"
                Path(out, name).write_text(text)
    edges = [(s, sets, unset) for s, sets, unset in EDGES]
    edges += [("bulk-dumbbell", sets, []) for sets in TCP]
    edges += [("consumer-edge", sets, unset) for sets, unset in REPEAT]
    for i, (stem, sets, unset) in enumerate(edges):
        path = root / "scenarios" / f"{stem}.toml"
        try:
            text = run.resolve(str(path), set=sets, unset=unset).resolved_toml()
        except Exception as e:
            text = f"ERROR {type(e).__name__}: {e}\n".replace(str(root) + "/", "")
        Path(out, f"edge.{i}.toml").write_text(text)
    print(len(os.listdir(out)), "files in", out)


if __name__ == "__main__":
    main(sys.argv[1])
