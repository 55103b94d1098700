"""red-vs-codel's ARED arm (full mode: 100 applications, 200 s) with RED's gentle_slope
"current" (ours, the default) and "initial" (ns-2.35's: the gentle segment keeps the slope of
the initial max_p, red.cc REDQueue::reset), beside ns-2.35's ARED in the same configuration
(the reproduction's ns2-kuhn14.csv, qdisc "ared", written by kuhn14.sh). Prints a markdown table
of mean queueing delay (ms, mean over seeds) and ours ÷ ns-2.35's per point.

    python3 tests/fidelity/ns2/kuhn14_ared_slope.py --seeds 3

tests/fidelity/ns2/README.md ("red-vs-codel's set-up in ns-2.35", the ARED table) has the output.
"""

from __future__ import annotations

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FOLDER = os.path.join(HERE, "..", "..", "..", "python/aqmlab/reproduce/builtin/red-vs-codel")
SCENARIO = os.path.join(FOLDER, "scenario.toml")
NS2_TABLE = os.path.join(FOLDER, "ns2-kuhn14.csv")
#: The points where our ARED arm (gentle_slope current) is not comparable with CoDel.
POINTS = [("cubic", 45), ("cubic", 127), ("vegas", 45)]
SLOPES = ["current", "initial"]


def ours(tcp: str, buffer: int, slope: str, seed: int) -> float:
    """The ARED arm as experiment.toml sets it, with ``gentle_slope`` = ``slope``."""
    from aqmlab.run import run

    s = {
        "flows[0].cc": tcp,
        "flows[1].cc": tcp,
        "dumbbell.bottleneck.buffer": f"{buffer}p",
        "dumbbell.bottleneck.params.mean_pkt_size": 1500,
        "dumbbell.bottleneck.params.adaptive": True,
        "dumbbell.bottleneck.params.gentle_slope": slope,
    }
    r = run(SCENARIO, seed=seed, qdisc={"bottleneck": "red"}, set=s, keep=False, progress=False)
    return float(r.summary["links"]["bottleneck"]["sojourn_ms"]["mean"])


def ns2(tcp: str, buffer: int, seeds: int) -> list[float]:
    import pandas as pd

    d = pd.read_csv(NS2_TABLE)
    d = d[(d["apps"] == 100) & (d["duration_s"] == 200) & (d["qdisc"] == "ared")]
    d = d[(d["tcp"] == tcp) & (d["buffer"] == buffer) & (d["seed"] <= seeds)]
    return [float(v) for v in d.sort_values("seed")["delay_mean_ms"]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N (ns-2.35's table has 1-3)")
    a = ap.parse_args()
    seeds = range(1, a.seeds + 1)
    print(
        "| point | ns-2 `ared` (seeds) | ours, current (seeds) | ÷ ns-2 | ours, initial (seeds) "
        "| ÷ ns-2 |"
    )
    print("|---|---|---|---|---|---|")
    for tcp, buffer in POINTS:
        n = ns2(tcp, buffer, a.seeds)
        if len(n) != a.seeds:
            print(f"ns2-kuhn14.csv lacks ared {tcp} {buffer} seeds 1-{a.seeds}", file=sys.stderr)
            return 1
        nm = sum(n) / len(n)
        cells = [f"{tcp.capitalize() if tcp == 'vegas' else 'CUBIC'} {buffer}"]
        cells.append(f"{nm:.0f} ({', '.join(f'{v:.0f}' for v in n)})")
        for slope in SLOPES:
            o = [ours(tcp, buffer, slope, s) for s in seeds]
            om = sum(o) / len(o)
            cells.append(f"{om:.0f} ({', '.join(f'{v:.0f}' for v in o)})")
            cells.append(f"{om / nm:.2f}")
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
