"""red-vs-codel's quick mode (30 applications, 60 s) against ns-2.35 (kuhn14.tcl): why our tail
drop and RED hold a longer queue there. Each of our runs changes one thing at a time from the
reproduction's set-up, then all of them together; ns-2.35's runs are kuhn14.tcl's own (skipped
without `ns`). Mean bottleneck delay in ms at 127 packets, over seeds 1..N.

  python3 tests/fidelity/ns2/kuhn14_quick.py [--seeds N]     # N = 10: about 2 min + ns-2's 3

The changes (tests/fidelity/ns2/README.md, "red-vs-codel's set-up in ns-2.35"):
  iw 2            ns-2.35's initial window (Agent/TCP windowInit_ 2); ours 10
  no delack       ns-2.35's sinks acknowledge every packet; ours delay ACKs
  no handshake    ns-2.35's agents send without one
and, ruled out, our idle restart off, SACK off (ns-2.35's Vegas has none) and the sources'
starts spread over the first second (ns-2.35's send one packet at 0 s, then an idle period).
Our on/off source offered more than ns-2.35's (34.9 kb/s a source against 31.7) until branch
`onoff13`, which took ns-2.35's rule (pareto.cc: a burst of int(pareto(burst_time/interval·
(shape-1)/shape) + 0.5) packets, at least 1, where ours wrote for ceil(on/interval) write slots
of each on period); "on_time 413ms", the change that brought the old source to ns-2.35's load,
is no longer one. offered_kbps() models both rules.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
SCENARIO = os.path.join(ROOT, "python/aqmlab/reproduce/builtin/red-vs-codel/scenario.toml")
APPS, DURATION, BUFFER = 30, 60, 127
WRITE, RATE, SHAPE = 1460, 64000, 1.5


def _both(key: str, value: object) -> dict:
    return {f"flows[0].{key}": value, f"flows[1].{key}": value}


CHANGES = {
    "iw 2": _both("initial_cwnd", 2),
    "no delack": _both("delayed_ack", False),
    "no handshake": _both("handshake", False),
}
ALL = {k: v for c in CHANGES.values() for k, v in c.items()}
VARIANTS = {
    "as the reproduction": {},
    **CHANGES,
    "no idle restart": {"flows[1].idle_restart": False},
    "all three": ALL,
    "all three, no SACK": {**ALL, **_both("sack", False)},
    "all three, starts in [0, 1 s)": {**ALL, "flows[1].start": "uniform(0s, 1s)"},
}


def offered_kbps(on_s: float, off_s: float = 0.5, n: int = 4_000_000, seed: int = 1) -> dict:
    """Long-run payload rate of one source (kb/s) by drawing n bursts: ns-2.35's rule (ours
    since branch `onoff13`), and the ceil rule our source followed before."""
    rng = np.random.default_rng(seed)
    interval = WRITE * 8 / RATE
    scale = (SHAPE - 1) / SHAPE

    def pareto(mean: float) -> np.ndarray:
        return mean * scale / rng.random(n) ** (1 / SHAPE)

    def rate(writes: np.ndarray, idle: np.ndarray) -> float:
        return writes.sum() * WRITE * 8 / (writes.sum() * interval + idle.sum()) / 1e3

    ns2 = np.maximum(1, (pareto(on_s / interval) + 0.5).astype(int))
    ceil = np.ceil(pareto(on_s) / interval)
    return {"ns-2.35": rate(ns2, pareto(off_s)), "ceil": rate(ceil, pareto(off_s))}


def ours(tcp: str, qdisc: str, extra: dict, seeds: int) -> float:
    from aqmlab.run import run

    s = {
        "flows[0].cc": tcp,
        "flows[1].cc": tcp,
        "dumbbell.bottleneck.buffer": f"{BUFFER}p",
        "duration": f"{DURATION}s",
        "dumbbell.senders": APPS + 1,
        "flows[1].count": APPS,
        "flows[1].from": [f"s{i}" for i in range(2, APPS + 2)],
        "flows[1].to": [f"r{i}" for i in range(2, APPS + 2)],
        **extra,
    }
    if qdisc == "red":
        s["dumbbell.bottleneck.params.mean_pkt_size"] = 1500
    d = []
    for seed in range(1, seeds + 1):
        r = run(SCENARIO, seed=seed, qdisc={"bottleneck": qdisc}, set=s, keep=False, progress=False)
        d.append(r.summary["links"]["bottleneck"]["sojourn_ms"]["mean"])
    return float(np.mean(d))


def ns2(tcp: str, qdisc: str, seeds: int) -> float:
    d = []
    for seed in range(1, seeds + 1):
        args = [tcp, qdisc, str(BUFFER), str(seed), str(APPS), str(DURATION)]
        out = subprocess.run(
            ["ns", os.path.join(HERE, "kuhn14.tcl"), *args], capture_output=True, text=True
        ).stdout
        line = [x for x in out.splitlines() if not x.startswith("cmd ")][-1].split()
        d.append(float(line[4]))
    return float(np.mean(d))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    a = ap.parse_args()
    if a.seeds < 1:
        print("kuhn14_quick.py: --seeds: expected at least 1", file=sys.stderr)
        return 2
    k = offered_kbps(0.5)
    print(
        f"one source offers (payload, kb/s): ns-2.35's rule (ours) {k['ns-2.35']:.1f}, "
        f"the old ceil rule {k['ceil']:.1f} (burst_time_ / on_time 0.5 s)"
    )
    cols = [(t, q) for t in ("cubic", "vegas") for q in ("droptail", "red")]
    print(
        f"{'mean delay ms, 127 p, seeds 1-' + str(a.seeds):34}"
        + "".join(f"{t + ' ' + q:>15} " for t, q in cols)
    )
    for name, extra in VARIANTS.items():
        print(
            f"{'ours, ' + name:34}"
            + "".join(f"{ours(t, q, extra, a.seeds):15.0f} " for t, q in cols),
            flush=True,
        )
    if shutil.which("ns"):
        print(
            f"{'ns-2.35 (kuhn14.tcl)':34}"
            + "".join(f"{ns2(t, q, a.seeds):15.0f} " for t, q in cols)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
