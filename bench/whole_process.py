"""The whole `aqmlab run` process against its own simulation time (issue 24's "whole process
≤ 1.5× its simulation"), for one or more checkouts run in turn, round by round.

    python3 bench/whole_process.py [--rounds N] [--csv] CHECKOUT [CHECKOUT ...]

Each round runs `python -m aqmlab run bulk-dumbbell -q --out TMP` once per checkout (its
``python/`` first on PYTHONPATH, its own native module), timing the process from outside and
reading the simulation's ``wall_s`` from the run's ``summary.json``. The interpreter is this
one's real binary (``sys.executable``, not a pyenv shim, whose shell script adds tens of
milliseconds), and bytecode caching is allowed (PYTHONDONTWRITEBYTECODE unset) as in an
installed package; one warm-up run per checkout writes the caches. Prints each run and the
median ratio and overhead per checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def one(checkout: str, out: str, csv: bool) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=os.path.join(checkout, "python"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-m", "aqmlab", "run", "bulk-dumbbell", "-q", "--out", out]
    if csv:
        cmd.append("--csv")
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stderr=subprocess.DEVNULL)
    whole = time.perf_counter() - start
    with open(os.path.join(out, "summary.json")) as f:
        sim = json.load(f)["wall_s"]
    return whole, sim


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkouts", nargs="+")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--csv", action="store_true", help="write CSV instead of Parquet")
    a = p.parse_args()
    got: dict[str, list[tuple[float, float]]] = {c: [] for c in a.checkouts}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds + 1):
            for i, c in enumerate(a.checkouts):
                out = os.path.join(tmp, f"{r}-{i}")
                whole, sim = one(c, out, a.csv)
                if r:  # round 0 warms the caches
                    got[c].append((whole, sim))
                    print(f"{c}: whole {whole:.3f} s, simulation {sim:.3f} s, {whole / sim:.2f}x")
    print(f"load average {os.getloadavg()[0]:.1f}")
    for c, runs in got.items():
        ratios = [w / s for w, s in runs]
        over = [w - s for w, s in runs]
        print(
            f"{c}: median {statistics.median(ratios):.2f}x "
            f"({min(ratios):.2f}-{max(ratios):.2f}), whole minus simulation "
            f"{statistics.median(over) * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
