"""Benchmark of ``aqmlab sweep`` (figures, not a timed test): README "Speed", "Sweeps".

1. Per-run overhead: a sweep of many very short runs on one worker; the overhead is the sweep's
   wall time minus the simulators' own time (``wall_s`` of each run's summary), per run.
2. Parallel speed-up: dynamic-link runs (seeds 1-4, then 1-16) with ``--jobs 1`` and
   ``--jobs 2`` (worker processes, and threads), each into a fresh folder so nothing comes from
   the cache: of the whole command, and of its runs' phase alone (``sweep.json``'s
   ``timing.runs_s``: the command's fixed cost, interpreter start, imports, planning and the
   tables, does not shrink with more workers).

    python bench/sweep_bench.py            # from the repository root, after make install
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DYN = os.path.join(ROOT, "scenarios", "codel-dynamic-link.toml")
BULK = os.path.join(ROOT, "scenarios", "bulk-dumbbell.toml")


def sweep(args: list[str], out: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "aqmlab", "sweep", *args, "--out", out, "-q"], check=True)
    return time.perf_counter() - t0


def sim_seconds(out: str) -> float:
    total = 0.0
    for key in os.listdir(os.path.join(out, "runs")):
        with open(os.path.join(out, "runs", key, "summary.json"), encoding="utf-8") as f:
            total += json.load(f)["wall_s"]
    return total


def runs_phase_seconds(out: str) -> float:
    with open(os.path.join(out, "sweep.json"), encoding="utf-8") as f:
        return json.load(f)["timing"]["runs_s"]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        n = 40
        out = os.path.join(tmp, "short")
        args = [BULK, "--set", "duration=0.2s", "--seeds", f"1-{n}", "-j", "1"]
        wall = sweep(args, out)
        sim = sim_seconds(out)
        t_cached = sweep(args, out)
        # The cached rerun is the fixed cost: interpreter start, imports, loading every point,
        # the tables. What is left beyond the simulator is the cost of each run.
        per_run = (wall - t_cached - sim) / n
        print(
            f"{n} runs of 0.2 s simulated, one worker: {wall:.2f} s wall = {t_cached:.2f} s "
            f"fixed (the same sweep again, every run from the cache) + {sim:.2f} s simulating "
            f"+ {per_run * 1000:.1f} ms per run (its series, summary and folder)"
        )
        for n_runs in (4, 16):
            rows = []
            for label, extra in (
                ("1 worker", ["-j", "1"]),
                ("2 worker processes", ["-j", "2"]),
                ("2 threads", ["-j", "2", "--threads"]),
            ):
                out = os.path.join(tmp, f"{n_runs}_{label.replace(' ', '_')}")
                wall = sweep([DYN, "--seeds", f"1-{n_runs}", *extra], out)
                rows.append((label, wall, runs_phase_seconds(out), sim_seconds(out)))
            base, base_runs = rows[0][1], rows[0][2]
            print(f"{n_runs} dynamic-link runs (300 s simulated each, seeds 1-{n_runs}):")
            for label, wall, runs, sim in rows:
                print(
                    f"  {label:<20} {wall:6.2f} s wall  speed-up {base / wall:4.2f}x  "
                    f"| runs' phase {runs:6.2f} s  speed-up {base_runs / runs:4.2f}x  "
                    f"(simulator {sim:.2f} s)"
                )


if __name__ == "__main__":
    main()
