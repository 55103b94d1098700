"""Two commands timed side by side as whole processes: A B A B …, one warm-up of each first,
the CPU time (user + system, from the kernel's accounting of each finished child) and the wall
time of every run, and the ratio A/B pair by pair, whose median holds when the machine's speed
drifts during the session (a shared machine's does).

    python3 bench/paired.py [-n PAIRS] --vs 'COMMAND B' -- COMMAND A [ARG ...]

Example (issue 24's figure against ns-2.35, untraced, on the bulk benchmark):

    cargo build --profile profiling -p aqmlab-sim --example run_scenario
    python3 bench/paired.py -n 7 --vs 'ns bench/ns2/bulk-dumbbell.tcl' -- \\
        target/profiling/examples/run_scenario scenarios/bulk-dumbbell.toml

Prints each pair, then the median CPU ratio and its range. Output of the commands is discarded.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


def one(cmd: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of ``cmd``."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"paired.py: {shlex.join(cmd)} exited {p.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=7, help="pairs counted (default 7)")
    ap.add_argument("--vs", required=True, help="command B, split as a shell splits words")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="command A (after --)")
    args = ap.parse_args()
    a = [x for x in args.command if x != "--"] if args.command[:1] == ["--"] else args.command
    if not a or args.n < 1:
        ap.error("give command A after --, and -n of at least 1")
    b = shlex.split(args.vs)
    one(a), one(b)  # warm-up: caches, page cache
    ratios = []
    for i in range(args.n):
        (ca, wa), (cb, wb) = one(a), one(b)
        ratios.append(ca / max(cb, 1e-9))
        print(
            f"pair {i + 1}: A cpu {ca:.3f} s wall {wa:.3f} s, B cpu {cb:.3f} s wall {wb:.3f} s, "
            f"A/B {ca / max(cb, 1e-9):.3f}"
        )
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        f"median CPU ratio A/B {statistics.median(ratios):.3f} "
        f"({min(ratios):.3f}-{max(ratios):.3f}); B/A {1 / statistics.median(ratios):.2f}x"
    )


if __name__ == "__main__":
    main()
