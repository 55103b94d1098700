"""Writes the bulk benchmark (`scenarios/bulk-dumbbell.toml`) with N NewReno flows sharing
min(N, 1000) sender/receiver pairs, or with `--disjoint`, N disjoint copies of its dumbbell
with one flow each, for measuring the cost per delivered packet against the flow count and
the network's size (issue 24 item 3).

    python3 bench/scale_dumbbell.py N DURATION_S > /tmp/scale.toml
    python3 bench/scale_dumbbell.py --disjoint N DURATION_S > /tmp/disjoint.toml

Instructions per packet at a flow count are the difference of two runs, so that set-up is
left out: callgrind totals at durations D1 < D2 over the difference of their delivered
packets (`run_scenario` prints them).
"""

import sys
from pathlib import Path

from aqmlab.bench import disjoint_scenario, scale_scenario

BASE = Path(__file__).resolve().parent.parent / "scenarios" / "bulk-dumbbell.toml"


def scenario(n: int, duration_s: int, disjoint: bool = False) -> str:
    # The same text as `aqmlab bench`'s scale rows (python/aqmlab/bench.py).
    make = disjoint_scenario if disjoint else scale_scenario
    try:
        return make(BASE.read_text(), n, duration_s)
    except (ValueError, KeyError) as e:
        raise SystemExit(f"scale_dumbbell: {BASE}: {e}") from None


def main() -> None:
    args = sys.argv[1:]
    disjoint = "--disjoint" in args
    if disjoint:
        args.remove("--disjoint")
    try:
        n, duration_s = int(args[0]), int(args[1])
    except (IndexError, ValueError):
        raise SystemExit(
            "usage: scale_dumbbell.py [--disjoint] N DURATION_S (whole numbers)"
        ) from None
    if n < 1 or duration_s < 1:
        raise SystemExit("scale_dumbbell: N and DURATION_S must be at least 1")
    sys.stdout.write(scenario(n, duration_s, disjoint))


if __name__ == "__main__":
    main()
