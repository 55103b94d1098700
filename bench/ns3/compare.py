#!/usr/bin/env python3
"""Runs the ns-3 3.37 dumbbell (dumbbell.cc) and aqmlab (dumbbell.toml) with DropTail, CoDel and
PIE at the bottleneck, and prints whole-run metrics side by side.

    python3 bench/ns3/compare.py                 # canonical run: every flow starts at 0
    python3 bench/ns3/compare.py --runs 10       # + 9 runs with random start offsets in [0, 1 s)
    python3 bench/ns3/compare.py --variants newreno,linuxreno,newreno-prr

Needs Debian's ns3 and libns3-dev (ns-3 3.37), g++, and aqmlab installed (`make install`).
Everything is written under --out (default bench/ns3/out/); results.json holds every number.
ns-3 variants (all with SACK, no timestamps, MSS 1460, IW 10, delayed ACK 2 segments / 40 ms,
min RTO 200 ms):
  newreno      ns3::TcpNewReno, TcpClassicRecovery (cwnd = ssthresh, RFC 6675 pipe) — the
               comparison the README's first table reports
  linuxreno    ns3::TcpLinuxReno, TcpClassicRecovery: window growth per acknowledged segment,
               as aqmlab's byte counting (explains most of the differences)
  newreno-prr  ns3::TcpNewReno with ns-3's default recovery, TcpPrrRecovery
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
N_FLOWS = 4
DURATION = 60.0
QDISCS = ["droptail", "codel", "pie"]
NS3_LIBS = [
    "ns3-core",
    "ns3-network",
    "ns3-internet",
    "ns3-point-to-point",
    "ns3-applications",
    "ns3-traffic-control",
]
NS3_VARIANTS = {
    "newreno": ["--cc=newreno", "--recovery=classic"],
    "linuxreno": ["--cc=linuxreno", "--recovery=classic"],
    "newreno-prr": ["--cc=newreno", "--recovery=prr"],
}
# aqmlab: the discipline and its parameters, set on top of dumbbell.toml (droptail as written).
AQMLAB_SETS = {
    "droptail": [],
    "codel": [
        "dumbbell.bottleneck.qdisc=codel",
        "dumbbell.bottleneck.params.variant=ns3",
        "dumbbell.bottleneck.params.target=5ms",
        "dumbbell.bottleneck.params.interval=100ms",
    ],
    "pie": ["dumbbell.bottleneck.qdisc=pie", "dumbbell.bottleneck.params.variant=ns3"],
}


def build_ns3(out: Path) -> Path:
    """Compiles dumbbell.cc against the system ns-3 unless the binary is newer than the source."""
    src = HERE / "dumbbell.cc"
    exe = out / "dumbbell"
    if exe.exists() and exe.stat().st_mtime > src.stat().st_mtime:
        return exe
    cxx = os.environ.get("CXX", "g++")
    # Debian's .pc files carry a broken "-I/usr;" flag, so name the libraries directly.
    cmd = [
        cxx,
        "-O2",
        "-std=c++17",
        "-I/usr/include",
        str(src),
        "-o",
        str(exe),
        "-Wl,--no-as-needed",
    ] + ["-l" + lib for lib in NS3_LIBS]
    print("building:", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)
    return exe


def start_offsets(run: int) -> list[int]:
    """Flow start times in microseconds: all 0 for run 1, else uniform in [0, 1 s) (seeded)."""
    if run == 1:
        return [0] * N_FLOWS
    rng = random.Random(run)
    return [rng.randrange(0, 1_000_000) for _ in range(N_FLOWS)]


def quantiles(ms: np.ndarray) -> dict:
    if len(ms) == 0:
        return {"mean": None, "p50": None, "p95": None, "p99": None}
    q = np.percentile(ms, [50, 95, 99], method="inverted_cdf")
    return {"mean": float(ms.mean()), "p50": float(q[0]), "p95": float(q[1]), "p99": float(q[2])}


def jain(xs) -> float:
    xs = np.asarray(xs, dtype=float)
    return float(xs.sum() ** 2 / (len(xs) * (xs**2).sum())) if (xs**2).sum() > 0 else 0.0


def window_metrics(rx_at, t0: float, t1: float, starts_s, delay_t_s, delay_ms, drop_t_s) -> dict:
    """Metrics over [t0, t1): goodput from cumulative in-order bytes, delays of packets whose
    transmission started in the window, drops in the window."""
    gp = []
    for i in range(N_FLOWS):
        begin = max(t0, starts_s[i])
        gp.append((rx_at(i, t1) - rx_at(i, t0)) * 8 / (t1 - begin))
    sel = (delay_t_s >= t0) & (delay_t_s < t1)
    return {
        "goodput_mbps": [g / 1e6 for g in gp],
        "total_goodput_mbps": sum(gp) / 1e6,
        "jain_goodput": jain(gp),
        "delay_ms": quantiles(delay_ms[sel]),
        "drops": int(((drop_t_s >= t0) & (drop_t_s < t1)).sum()),
    }


def run_aqmlab(
    out: Path, qdisc: str, run: int, starts_us: list[int], label: str = "aqmlab", params: tuple = ()
) -> dict:
    d = out / f"run{run}" / f"{label}-{qdisc}".replace("/", "_")
    cmd = [
        "aqmlab",
        "run",
        str(HERE / "dumbbell.toml"),
        "--out",
        str(d),
        "--quiet",
        "--seed",
        str(run),
        "--packet-log",
        "bottleneck",
    ]
    for s in AQMLAB_SETS[qdisc]:
        cmd += ["--set", s]
    for kv in params:
        cmd += ["--set", f"dumbbell.bottleneck.params.{kv}"]
    for i, us in enumerate(starts_us):
        cmd += ["--set", f"flows[{i}].start={us}us"]
    t = time.monotonic()
    subprocess.run(cmd, check=True)
    wall = time.monotonic() - t
    s = json.loads((d / "summary.json").read_text())
    b = s["links"]["bottleneck"]
    flows = pd.read_parquet(d / "flows.parquet")
    pk = pd.read_parquet(d / "packets.parquet")
    pk = pk[pk.link == "bottleneck"]
    links = pd.read_parquet(d / "links.parquet")
    lb = links[links.link == "bottleneck"]
    bin_s = s["bin_s"]
    cum = {}
    for i in range(N_FLOWS):
        f = flows[flows.flow == i].sort_values("t_s")
        cum[i] = dict(
            zip(np.rint(f.t_s.to_numpy() / bin_s).astype(int), f.cumulative_bytes.to_numpy())
        )

    def rx_at(i, t):  # cumulative bytes at time t (end of the bin that ends at t)
        k = int(round(t / bin_s)) - 1
        return (
            0
            if k < 0
            else int(cum[i].get(k, max((v for kk, v in cum[i].items() if kk <= k), default=0)))
        )

    # Drops per bin, spread at the bin's start (windows are whole numbers of bins).
    drop_t = np.repeat(lb.t_s.to_numpy(), lb.drops.to_numpy().astype(int))
    starts_s = [u / 1e6 for u in starts_us]
    delay_t = pk.t_ns.to_numpy() / 1e9
    delay_ms = pk.sojourn_ns.to_numpy() / 1e6
    reasons = b.get("drops_by_reason", {})
    res = {
        "sim": label,
        "qdisc": qdisc,
        "run": run,
        "starts_us": starts_us,
        "wall_s": wall,
        "utilization": b["utilization"],
        "drops_total": b["dropped_pkts"],
        "drops_overlimit": reasons.get("overlimit", 0),
        "drops_aqm": b["dropped_pkts"] - reasons.get("overlimit", 0),
        "retransmits": sum(f["retransmits"] for f in s["flows"]),
        "goodput_summary_mbps": [f["goodput_bps"] / 1e6 for f in s["flows"]],
        "jain_summary": s["fairness"]["jain_goodput"],
        "sketch_sojourn_ms": b["sojourn_ms"],
    }
    res["whole"] = window_metrics(rx_at, 0.0, DURATION, starts_s, delay_t, delay_ms, drop_t)
    res["steady"] = window_metrics(rx_at, 10.0, DURATION, starts_s, delay_t, delay_ms, drop_t)
    return res


def run_ns3(exe: Path, out: Path, variant: str, qdisc: str, run: int, starts_us) -> dict:
    d = out / f"run{run}"
    d.mkdir(parents=True, exist_ok=True)
    log = d / f"ns3-{variant}-{qdisc}-packets.csv"
    starts = ",".join(f"{u / 1e6:.6f}" for u in starts_us)
    cmd = [
        str(exe),
        f"--qdisc={qdisc}",
        f"--run={run}",
        f"--starts={starts}",
        f"--packetLog={log}",
    ] + NS3_VARIANTS[variant]
    t = time.monotonic()
    p = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.monotonic() - t
    (d / f"ns3-{variant}-{qdisc}.json").write_text(p.stdout)
    s = json.loads(p.stdout)
    b = s["bottleneck"]
    ev = pd.read_csv(log)
    tx = ev[ev.event == "tx"]
    drops = ev[ev.event != "tx"]
    series = s["rx_bytes_each_s"]

    def rx_at(i, t):
        k = int(round(t))
        if k >= int(round(DURATION)):
            return s["flows"][i]["delivered_bytes"]
        return 0 if k <= 0 else series[i][k - 1]

    starts_s = [u / 1e6 for u in starts_us]
    delay_t = tx.t_ns.to_numpy() / 1e9
    delay_ms = tx.queue_delay_ns.to_numpy() / 1e6
    soj_ms = tx.qdisc_sojourn_ns.to_numpy() / 1e6
    drop_t = drops.t_ns.to_numpy() / 1e9
    overlimit = sum(
        v
        for k, v in b["drops_by_reason"].items()
        if k in ("Queue disc limit exceeded", "Overlimit drop", "Forced drop")
    )
    res = {
        "sim": f"ns3-{variant}",
        "qdisc": qdisc,
        "run": run,
        "starts_us": list(starts_us),
        "wall_s": wall,
        "utilization": b["utilization"],
        "drops_total": b["dropped_pkts"],
        "drops_overlimit": overlimit,
        "drops_aqm": b["dropped_pkts"] - overlimit,
        "drops_by_reason": b["drops_by_reason"],
        "device_queue_drops": b["device_queue_drops"],
        "retransmits": sum(f["retransmits"] for f in s["flows"]),
        "rtos": sum(f["rtos"] for f in s["flows"]),
        "fast_recoveries": sum(f["fast_recoveries"] for f in s["flows"]),
        "goodput_summary_mbps": [f["goodput_bps"] / 1e6 for f in s["flows"]],
        "jain_summary": s["fairness"]["jain_goodput"],
    }
    for name, t0 in (("whole", 0.0), ("steady", 10.0)):
        w = window_metrics(rx_at, t0, DURATION, starts_s, delay_t, delay_ms, drop_t)
        sel = (delay_t >= t0) & (delay_t < DURATION)
        w["qdisc_sojourn_ms"] = quantiles(soj_ms[sel])
        res[name] = w
    return res


def fmt(x, nd=2):
    return "-" if x is None else f"{x:.{nd}f}"


def table(rows: list[dict], window: str) -> str:
    hdr = (
        f"{'qdisc':9} {'simulator':20} {'goodput':>7} {'util':>6} {'Jain':>6} "
        f"{'per-flow Mb/s':>23} {'drops':>5} {'(aqm/lim)':>9} {'retx':>5} "
        f"{'delay p50':>9} {'p95':>6} {'mean':>6} {'qdisc p50':>9}"
    )
    lines = [hdr, "-" * len(hdr)]
    for r in rows:
        w = r[window]
        soj = w.get("qdisc_sojourn_ms", {}).get("p50")
        per = " ".join(f"{g:5.2f}" for g in w["goodput_mbps"])
        if window == "whole":
            drops, split, retx = (
                r["drops_total"],
                f"{r['drops_aqm']}/{r['drops_overlimit']}",
                str(r["retransmits"]),
            )
        else:
            drops, split, retx = w["drops"], "", ""
        lines.append(
            f"{r['qdisc']:9} {r['sim']:20} {w['total_goodput_mbps']:7.3f} "
            f"{r['utilization'] if window == 'whole' else float('nan'):6.4f} "
            f"{w['jain_goodput']:6.4f} {per:>23} {drops:5d} {split:>9} {retx:>5} "
            f"{fmt(w['delay_ms']['p50']):>9} {fmt(w['delay_ms']['p95']):>6} "
            f"{fmt(w['delay_ms']['mean']):>6} {fmt(soj):>9}".replace(" nan", "   -")
        )
    return "\n".join(lines)


def spread(rows: list[dict]) -> str:
    """Mean ± sd over runs of each (qdisc, simulator)."""
    keys = [
        ("goodput", lambda r: r["whole"]["total_goodput_mbps"], 3),
        ("util", lambda r: r["utilization"], 4),
        ("Jain", lambda r: r["whole"]["jain_goodput"], 3),
        ("drops", lambda r: r["drops_total"], 0),
        ("drops 10-60s", lambda r: r["steady"]["drops"], 0),
        ("retx", lambda r: r["retransmits"], 0),
        ("delay p50", lambda r: r["whole"]["delay_ms"]["p50"], 2),
        ("delay p95", lambda r: r["whole"]["delay_ms"]["p95"], 2),
    ]
    hdr = f"{'qdisc':9} {'simulator':20} " + " ".join(f"{k:>15}" for k, _, _ in keys)
    lines = [hdr, "-" * len(hdr)]
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault((r["qdisc"], r["sim"]), []).append(r)
    for (q, sim), rs in groups.items():
        cells = []
        for _, f, nd in keys:
            v = np.array([f(r) for r in rs], dtype=float)
            cells.append(f"{v.mean():.{nd}f} ± {v.std(ddof=1) if len(v) > 1 else 0:.{nd}f}")
        lines.append(f"{q:9} {sim:20} " + " ".join(f"{c:>15}" for c in cells))
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--runs",
        type=int,
        default=1,
        help="run 1 starts every flow at 0; runs 2..N draw start offsets in [0, 1 s)",
    )
    ap.add_argument(
        "--variants",
        default="newreno,linuxreno",
        help="ns-3 variants, comma-separated: " + ", ".join(NS3_VARIANTS),
    )
    ap.add_argument("--qdiscs", default=",".join(QDISCS))
    ap.add_argument(
        "--aqmlab-extra",
        action="append",
        default=[],
        metavar="QDISC:K=V[,K=V]",
        help="also run aqmlab with these discipline parameters on top "
        "(e.g. codel:target=6.2ms); a sensitivity check, labelled in the table",
    )
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument(
        "--tables",
        type=Path,
        metavar="RESULTS.json",
        help="only print the tables of a results.json",
    )
    args = ap.parse_args()
    if args.tables:
        print_tables(json.loads(args.tables.read_text()))
        return 0
    variants = [v for v in args.variants.split(",") if v]
    for v in variants:
        if v not in NS3_VARIANTS:
            ap.error(f"unknown variant {v!r}")
    qdiscs = [q for q in args.qdiscs.split(",") if q]
    if shutil.which("aqmlab") is None:
        ap.error("aqmlab is not installed (make install)")
    args.out.mkdir(parents=True, exist_ok=True)
    exe = build_ns3(args.out)

    rows = []
    for run in range(1, args.runs + 1):
        starts = start_offsets(run)
        for q in qdiscs:
            print(f"run {run} {q}: aqmlab", file=sys.stderr, flush=True)
            rows.append(run_aqmlab(args.out, q, run, starts))
            for extra in args.aqmlab_extra:
                eq, _, kvs = extra.partition(":")
                if eq == q:
                    print(f"run {run} {q}: aqmlab {kvs}", file=sys.stderr, flush=True)
                    rows.append(
                        run_aqmlab(args.out, q, run, starts, f"aqmlab {kvs}", tuple(kvs.split(",")))
                    )
            for v in variants:
                print(f"run {run} {q}: ns-3 {v}", file=sys.stderr, flush=True)
                rows.append(run_ns3(exe, args.out, v, q, run, starts))
    (args.out / "results.json").write_text(json.dumps(rows, indent=1))
    print_tables(rows)
    print(f"\nEvery number: {args.out / 'results.json'}")
    return 0


def print_tables(rows: list[dict]) -> None:
    runs = max(r["run"] for r in rows)
    first = [r for r in rows if r["run"] == 1]
    print(
        "Run 1 (every flow starts at 0), whole run 0-60 s. goodput Mb/s (all flows), "
        "delay = enqueue -> start of transmission (ms),\nqdisc p50 = ns-3's sojourn in the "
        "discipline alone (the device queue holds one more packet)."
    )
    print(table(first, "whole"))
    print("\nRun 1, steady state 10-60 s:")
    print(table(first, "steady"))
    if runs > 1:
        print(
            f"\nMean ± sd over runs 1-{runs} (runs 2-{runs}: random flow starts "
            "in [0, 1 s); PIE also changes seed):"
        )
        print(spread(rows))


if __name__ == "__main__":
    sys.exit(main())
