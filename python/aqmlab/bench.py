"""``aqmlab bench``: the speed benchmark.

Each scenario runs in a fresh subprocess that imports only the native module, so its peak
memory is the simulator's own. Figures are reported, not asserted: this is a benchmark, not a
timed test.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time

BENCHMARKS = [
    ("bulk-dumbbell", "scenarios/bulk-dumbbell.toml"),
    ("codel-dynamic-link", "scenarios/codel-dynamic-link.toml"),
]


def _one(path: str) -> dict:
    """Run one scenario in this process (called in the subprocess)."""
    from aqmlab import _core

    r = _core.load_scenario(path)
    half = r.duration_s / 2
    t0 = time.perf_counter()
    r.advance(half)
    rss_half = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    r.advance(r.duration_s)
    wall = time.perf_counter() - t0
    s = json.loads(r.summary_json())
    delivered = sum(f["delivered_pkts"] for f in s["flows"])
    return {
        "name": s["scenario"],
        "sim_time_s": s["sim_time_s"],
        "delivered_pkts": delivered,
        "events": s["events"],
        "wall_s": wall,
        "pkts_per_s": delivered / wall,
        "events_per_s": s["events"] / wall,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "peak_rss_at_half_time_mb": rss_half,
    }


def run_benchmarks(root: str) -> list[dict]:
    """Run every benchmark scenario under ``root`` in its own subprocess."""
    out = []
    for _, rel in BENCHMARKS:
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"{path}: benchmark scenario not found (run from the repository)"
            )
        p = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import json,aqmlab.bench as b; print(json.dumps(b._one({path!r})))",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if p.returncode != 0:
            raise RuntimeError(
                p.stderr.strip().splitlines()[-1] if p.stderr else "benchmark failed"
            )
        out.append(json.loads(p.stdout))
    return out


def format_table(rows: list[dict]) -> str:
    hdr = (
        f"{'scenario':<20} {'sim s':>6} {'delivered pkts':>15} {'events':>11} {'wall s':>7} "
        f"{'pkts/s':>11} {'events/s':>11} {'peak MB':>8}"
    )
    lines = [hdr, "-" * len(hdr)]
    for r in rows:
        lines.append(
            f"{r['name']:<20} {r['sim_time_s']:>6.0f} {r['delivered_pkts']:>15,} "
            f"{r['events']:>11,} "
            f"{r['wall_s']:>7.2f} {r['pkts_per_s']:>11,.0f} {r['events_per_s']:>11,.0f} "
            f"{r['peak_rss_mb']:>8.1f}"
        )
    lines.append(
        "delivered pkts: packets that reached their destination host (TCP data and ACKs, UDP); "
        "peak MB: the run's peak resident memory (half-way value in --json)"
    )
    return "\n".join(lines)
