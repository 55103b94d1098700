"""Node 5's drop rate at the bottleneck against all flows', ns-2.35 and aqmlab, Reno, seeds 1-3.

    python3 tests/fidelity/ns2/node5_drops.py SIZE [guard]

Tail drop of SIZE packets; aqmlab with the test's ``NS2_FLOW_KEYS`` for Reno, or with
``guard`` the guard alone (``recover_guard``, without ``rto_ssthresh``). Drop rate: packets
dropped ÷ packets offered to the bottleneck over the whole run (ns-2: ``fj93.tcl``'s
``FJ93_TRACE`` queue trace; aqmlab: the summary's ``flows[i].links.bottleneck``); ``xN``: node
5's rate over all flows'. README.md, "What remains at tail drop 8".
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

import aqmlab  # noqa: E402
import test_fidelity_nosack as t  # noqa: E402


def ns2_rates(size: int, seed: int, d: str) -> tuple[float, float, int]:
    env = dict(os.environ, FJ93_TRACE=f"{d}/ns2")
    tcl = os.path.join(HERE, "fj93.tcl")
    cmd = ["ns", tcl, "reno", "droptail", str(size), str(seed)]
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    offered: dict[int, int] = {}
    dropped: dict[int, int] = {}
    with open(f"{d}/ns2.queue", encoding="utf-8") as f:
        for line in f:
            ev, flow = line[0], int(line.split()[7])
            if ev in "+d":
                c = offered if ev == "+" else dropped
                c[flow] = c.get(flow, 0) + 1
    return (
        dropped.get(4, 0) / offered[4],
        sum(dropped.values()) / sum(offered.values()),
        dropped.get(4, 0),
    )


def aqmlab_rates(size: int, seed: int, guard: bool, d: str) -> tuple[float, float, int]:
    qd, s = t.overrides("reno", "droptail", size)
    keys = {"recover_guard": True} if guard else t.NS2_FLOW_KEYS["reno"]
    for k, v in keys.items():
        for i in range(5):
            s[f"flows[{i}].{k}"] = v
    r = aqmlab.run(t.SCENARIO, f"{d}/aqmlab", seed=seed, qdisc=qd, set=s, progress=False)
    links = [f["links"]["bottleneck"] for f in r.summary["flows"]]
    offered = [x["arrived_pkts"] for x in links]
    dropped = [x["dropped_pkts"] for x in links]
    return dropped[4] / offered[4], sum(dropped) / sum(offered), dropped[4]


def main(args: list[str]) -> None:
    size, guard = int(args[0]), "guard" in args[1:]
    for seed in t.SEEDS:
        with tempfile.TemporaryDirectory() as d:
            out = []
            for name, (n5, avg, n) in (
                ("ns-2", ns2_rates(size, seed, d)),
                ("aqmlab", aqmlab_rates(size, seed, guard, d)),
            ):
                out.append(f"{name} {100 * n5:.2f} % ({n}; all {100 * avg:.2f} %, x{n5 / avg:.2f})")
        print(f"tail drop {size}, seed {seed}: node 5 " + "; ".join(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
