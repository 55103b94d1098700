"""codel-dynamic's link in ns-2.35 (codel_dynamic.tcl): runs it for tail drop, RED and Adaptive
RED as ns-2.35 ships them, seeds 1-3, in the reproduction's quick mode (10-s phases) and its full
mode (50-s phases), and writes the table the reproduction reads
(python/aqmlab/reproduce/builtin/codel-dynamic/ns2-codel-dynamic.csv).

    python3 tests/fidelity/ns2/codel_dynamic.py [--phases 10,50] [--seeds 3] [--web packmime]
        [--tcp linux] [--out CSV] [--append]

The committed table is the default run (Agent/TCP/Linux CUBIC, both modes: 18 runs, about 15
min on 2 busy cores) and, appended, ns-2's own Agent/TCP/Sack1 in the quick mode (the start-up's
evidence, tests/fidelity/ns2/README.md):

    python3 tests/fidelity/ns2/codel_dynamic.py
    python3 tests/fidelity/ns2/codel_dynamic.py --phases 10 --tcp sack1 --append

Each run's figures come from the bottleneck's queue trace (gw1 -> gw2), as our summary's
bottleneck.sojourn_ms and delivered_bytes: the sojourn of every packet the queue sent, its "-"
time less its "+" time (matched by uid, the trace's field 12; the time in the discipline, as
ours); p50 and p75 of those sojourns (numpy's linear interpolation);
the bytes it sent ("-" events, wire bytes); its drops ("d"); and the same per phase.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "codel_dynamic.tcl")
OUT = os.path.join(
    HERE,
    "..",
    "..",
    "..",
    "python",
    "aqmlab",
    "reproduce",
    "builtin",
    "codel-dynamic",
    "ns2-codel-dynamic.csv",
)
QDISCS = ("droptail", "red", "ared")
PHASES = 6
HEADER = [
    "phase_s",
    "web",
    "tcp",
    "qdisc",
    "seed",
    "p50_ms",
    "p75_ms",
    "mean_ms",
    "delivered_bytes",
    "drops",
    "sent_pkts",
] + [f"{k}_{i}" for i in range(1, PHASES + 1) for k in ("p50_ms", "p75_ms", "bytes", "drops")]


def figures(trace: str, phase: float) -> dict[str, float]:
    """The bottleneck's figures from an ns-2 queue trace: the whole run's, and each phase's
    (``_1`` .. ``_6``: the packets that left in it, as the reproduction's per-phase table, and
    the drops in it)."""
    ev, t, size, uid = [], [], [], []
    with open(trace) as f:
        for line in f:
            p = line.split()
            ev.append(p[0])
            t.append(float(p[1]))
            size.append(int(p[5]))
            uid.append(int(p[11]))
    ev_a, t_a, size_a, uid_a = np.array(ev), np.array(t), np.array(size), np.array(uid)
    enq, deq = ev_a == "+", ev_a == "-"
    arrived = dict(zip(uid_a[enq].tolist(), t_a[enq].tolist()))
    sojourn = np.array([(tt - arrived[u]) * 1e3 for u, tt in zip(uid_a[deq], t_a[deq])])
    left, sizes, dropped = t_a[deq], size_a[deq], t_a[ev_a == "d"]
    out: dict[str, float] = {
        "p50_ms": round(float(np.quantile(sojourn, 0.5)), 6),
        "p75_ms": round(float(np.quantile(sojourn, 0.75)), 6),
        "mean_ms": round(float(sojourn.mean()), 6),
        "delivered_bytes": int(sizes.sum()),
        "drops": int(dropped.size),
        "sent_pkts": int(deq.sum()),
    }
    for i in range(PHASES):
        t0, t1 = i * phase, (i + 1) * phase
        sel = (left >= t0) & (left < t1)
        soj = sojourn[sel]
        out[f"p50_ms_{i + 1}"] = round(float(np.quantile(soj, 0.5)), 6) if soj.size else ""
        out[f"p75_ms_{i + 1}"] = round(float(np.quantile(soj, 0.75)), 6) if soj.size else ""
        out[f"bytes_{i + 1}"] = int(sizes[sel].sum())
        out[f"drops_{i + 1}"] = int(((dropped >= t0) & (dropped < t1)).sum())
    return out


def run(qdisc: str, seed: int, phase: int, web: str, tcp: str) -> dict[str, object]:
    fd, trace = tempfile.mkstemp(prefix="codel_dynamic.", suffix=".tr")
    os.close(fd)
    try:
        p = subprocess.run(
            ["ns", SCRIPT, qdisc, str(seed), str(phase), web, trace],
            capture_output=True,
            text=True,
            env={**os.environ, "CODEL_DYNAMIC_TCP": tcp},
        )
        if p.returncode != 0:
            sys.exit(f"codel_dynamic.tcl {qdisc} {seed} {phase} {web}: {p.stderr.strip()}")
        row: dict[str, object] = {
            "phase_s": phase,
            "web": web,
            "tcp": tcp,
            "qdisc": qdisc,
            "seed": seed,
        }
        row.update(figures(trace, phase))
        return row
    finally:
        os.unlink(trace)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--phases", default="10,50", help="phase lengths in s (default 10,50)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--web", default="packmime", choices=["packmime", "none"])
    ap.add_argument("--qdiscs", default=",".join(QDISCS))
    ap.add_argument(
        "--tcp",
        default="linux",
        help="bulk flows' TCPs, comma-separated: linux (Agent/TCP/Linux CUBIC, the default), "
        "sack1 (ns-2's Agent/TCP/Sack1)",
    )
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--append", action="store_true", help="add the rows to OUT's")
    a = ap.parse_args()
    rows = []
    for phase in (int(x) for x in a.phases.split(",")):
        for tcp in a.tcp.split(","):
            for qdisc in a.qdiscs.split(","):
                for seed in range(1, a.seeds + 1):
                    r = run(qdisc, seed, phase, a.web, tcp)
                    rows.append(r)
                    print(" ".join(f"{k}={r[k]}" for k in HEADER[:11]), flush=True)
    if a.append:
        with open(a.out, newline="") as f:
            rows = list(csv.DictReader(f)) + rows
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, HEADER)
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
