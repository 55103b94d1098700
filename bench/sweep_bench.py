"""Benchmark of ``aqmlab sweep`` (figures, not a timed test): README "Speed", "Sweeps".

1. Per-run overhead: a sweep of many very short runs on one worker; the overhead is the sweep's
   wall time minus the simulators' own time (``wall_s`` of each run's summary), per run.
2. Parallel speed-up: dynamic-link runs (seeds 1-4, then 1-16) with ``--jobs 1`` and
   ``--jobs 2`` (worker processes, and threads), each into a fresh folder so nothing comes from
   the cache: of the whole command, and of its runs' phase alone (``sweep.json``'s
   ``timing.runs_s``: the command's fixed cost, interpreter start, imports, planning and the
   tables, does not shrink with more workers).
3. The machine's own ceiling, measured the same way: the same runs simulated bare (the
   simulator alone, no series, files or Python beyond the call), one after another in one
   process against half of them in each of two processes at once. On a virtual machine two
   busy cores slow each other (shared caches, memory bandwidth, the host's other guests), so
   this is the most two workers can give here.

The machine's speed drifts by tens of percent over seconds, so each round runs one worker, then
each configuration, then the same again in reverse order, and takes each speed-up within the
round (the sum of its one-worker times over the sum of its own); the median over the rounds is
reported with the range.

4. With ``--compare LABEL=PYTHONPATH ...``, only the fixed cost, side by side for each tree
   (``python/`` folders of checkouts holding a built ``_core``), in alternating rounds (A B, then
   B A): a 4-run dynamic-link sweep on two worker processes, fresh; the same command again, every
   run from the cache (its fixed cost: interpreter, imports, planning, tables); the same sweep on
   one worker; and ``python -X importtime`` of the cached command (the imports' total, and the
   heaviest top-level packages). Each command's wall time is set against the sum of its runs'
   simulation (``wall_s`` of each run's summary).

    python bench/sweep_bench.py [ROUNDS]     # from the repository root, after make install
    python bench/sweep_bench.py --per-run [REPEATS]     # item 1 alone
    python bench/sweep_bench.py --compare main=../main/python new=python [ROUNDS]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DYN = os.path.join(ROOT, "scenarios", "codel-dynamic-link.toml")
BULK = os.path.join(ROOT, "scenarios", "bulk-dumbbell.toml")


def sweep(args: list[str], out: str, env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "aqmlab", "sweep", *args, "--out", out, "-q"], check=True, env=env
    )
    return time.perf_counter() - t0


def import_times(args: list[str], out: str, env: dict[str, str]) -> tuple[float, list[str]]:
    """``-X importtime`` of a sweep command: the seconds its top-level imports took, and the
    five heaviest top-level packages."""
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "aqmlab", "sweep", *args, "--out", out, "-q"],
        check=True,
        env=env,
        capture_output=True,
        text=True,
    )
    top: dict[str, int] = {}
    for line in r.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:") :].split("|")
        if not name[1:].startswith(" "):  # a top-level import (nested ones are indented)
            pkg = name.strip().split(".")[0]
            top[pkg] = top.get(pkg, 0) + int(cumulative)
    heavy = sorted(top.items(), key=lambda kv: -kv[1])[:5]
    return sum(top.values()) / 1e6, [f"{k} {v / 1000:.0f} ms" for k, v in heavy]


def compare(trees: list[tuple[str, str]], rounds: int) -> None:
    """Item 4 of the module's docstring."""
    args = [DYN, "--seeds", "1-4"]
    keys = ("fresh", "cached", "one", "sim", "sim1", "imports")
    got: dict[str, dict[str, list[float]]] = {t: {k: [] for k in keys} for t, _ in trees}
    heavy: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(rounds):
            order = trees if k % 2 == 0 else trees[::-1]
            for label, path in order:
                env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                g = got[label]
                out = os.path.join(tmp, f"{label}-{k}-2")
                g["fresh"].append(sweep([*args, "-j", "2"], out, env))
                g["sim"].append(sim_seconds(out))
                g["cached"].append(sweep([*args, "-j", "2"], out, env))
                total, heavy[label] = import_times([*args, "-j", "2"], out, env)
                g["imports"].append(total)
                out1 = os.path.join(tmp, f"{label}-{k}-1")
                g["one"].append(sweep([*args, "-j", "1"], out1, env))
                g["sim1"].append(sim_seconds(out1))
    med = statistics.median
    print(
        f"4 dynamic-link runs (300 s simulated each), medians of {rounds} alternating rounds; "
        f"load average before/after: see uptime"
    )
    for label, _ in trees:
        g = got[label]
        ratio = [s / w for s, w in zip(g["sim"], g["fresh"])]
        speedup = [o / w for o, w in zip(g["one"], g["fresh"])]
        print(
            f"  {label:<6} fixed cost (cached rerun) {med(g['cached']):.3f} s "
            f"({min(g['cached']):.3f}-{max(g['cached']):.3f}); imports {med(g['imports']):.3f} s "
            f"[{', '.join(heavy[label])}]\n"
            f"         -j 2: {med(g['fresh']):.2f} s wall for {med(g['sim']):.2f} s of simulation: "
            f"{spread(ratio)} the runs' simulation; -j 1: {med(g['one']):.2f} s "
            f"(simulation {med(g['sim1']):.2f} s); two workers over one {spread(speedup)}"
        )


def sim_seconds(out: str) -> float:
    total = 0.0
    for key in os.listdir(os.path.join(out, "runs")):
        with open(os.path.join(out, "runs", key, "summary.json"), encoding="utf-8") as f:
            total += json.load(f)["wall_s"]
    return total


def runs_phase_seconds(out: str) -> float:
    with open(os.path.join(out, "sweep.json"), encoding="utf-8") as f:
        return json.load(f)["timing"]["runs_s"]


BARE = """
import sys
from aqmlab import _core
for seed in sys.argv[2:]:
    r = _core.load_scenario(sys.argv[1], seed=int(seed))
    r.advance(r.duration_s)
"""


def bare(seeds: list[int], processes: int) -> float:
    """Wall seconds to simulate ``seeds`` bare, split over ``processes`` processes at once."""
    t0 = time.perf_counter()
    procs = [
        subprocess.Popen([sys.executable, "-c", BARE, DYN, *map(str, seeds[i::processes])])
        for i in range(processes)
    ]
    for p in procs:
        if p.wait() != 0:
            raise SystemExit("bare simulation failed")
    return time.perf_counter() - t0


def spread(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"{statistics.median(xs):4.2f}x ({xs[0]:.2f}-{xs[-1]:.2f})"


def per_run(tmp: str) -> None:
    """Item 1 of the module's docstring."""
    n = 40
    out = os.path.join(tmp, "short")
    args = [BULK, "--set", "duration=0.2s", "--seeds", f"1-{n}", "-j", "1"]
    wall = sweep(args, out)
    sim = sim_seconds(out)
    t_cached = sweep(args, out)
    # The cached rerun is the fixed cost: interpreter start, imports, loading every point,
    # the tables. What is left beyond the simulator is the cost of each run.
    each = (wall - t_cached - sim) / n
    print(
        f"{n} runs of 0.2 s simulated, one worker: {wall:.2f} s wall = {t_cached:.2f} s "
        f"fixed (the same sweep again, every run from the cache) + {sim:.2f} s simulating "
        f"+ {each * 1000:.1f} ms per run (its series, summary and folder)"
    )


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] == "--compare":
        trees = [tuple(a.split("=", 1)) for a in argv[1:] if "=" in a]
        rest = [a for a in argv[1:] if "=" not in a]
        compare(trees, int(rest[0]) if rest else 5)
        return
    if argv and argv[0] == "--per-run":
        for _ in range(int(argv[1]) if len(argv) > 1 else 1):
            with tempfile.TemporaryDirectory() as tmp:
                per_run(tmp)
        return
    rounds = int(argv[0]) if argv else 5
    with tempfile.TemporaryDirectory() as tmp:
        per_run(tmp)
        configs = (
            ("2 worker processes", ["-j", "2"]),
            ("2 threads", ["-j", "2", "--threads"]),
        )
        for n_runs in (4, 16):
            seeds = list(range(1, n_runs + 1))
            command = {label: [] for label, _ in configs}
            runs = {label: [] for label, _ in configs}
            ceiling, beyond = [], []
            for k in range(rounds if n_runs == 4 else max(1, rounds // 2)):
                # One worker, each configuration, then the same in reverse order (A B C C B A):
                # a drift of the machine's speed during the round weighs on both sides alike.
                order = [("1 worker", ["-j", "1"]), *configs]
                times: dict[str, list[tuple[float, float, float]]] = {}
                for j, (label, extra) in enumerate(order + order[::-1]):
                    out = os.path.join(tmp, f"{n_runs}_{k}_{j}")
                    wall = sweep([DYN, "--seeds", f"1-{n_runs}", *extra], out)
                    times.setdefault(label, []).append(
                        (wall, runs_phase_seconds(out), sim_seconds(out))
                    )
                base = times["1 worker"]
                base_wall = sum(t[0] for t in base)
                base_runs = sum(t[1] for t in base)
                # Each run's cost beyond its simulator, on one worker.
                beyond.append((base_runs - sum(t[2] for t in base)) / (2 * n_runs))
                for label, _ in configs:
                    command[label].append(base_wall / sum(t[0] for t in times[label]))
                    runs[label].append(base_runs / sum(t[1] for t in times[label]))
                # The bare simulator the same way: one process, two, two, one.
                a1, b1, b2, a2 = (bare(seeds, p) for p in (1, 2, 2, 1))
                ceiling.append((a1 + a2) / (b1 + b2))
            print(
                f"{n_runs} dynamic-link runs (300 s simulated each), speed-up of two workers "
                f"over one, median (range) of {len(ceiling)} rounds; a run's cost beyond its "
                f"simulator on one worker: {statistics.median(beyond) * 1000:.0f} ms"
            )
            for label, _ in configs:
                print(
                    f"  {label:<20} command {spread(command[label])}  "
                    f"runs' phase {spread(runs[label])}"
                )
            print(f"  {'bare simulator':<20} {spread(ceiling)} (the machine's ceiling)")


if __name__ == "__main__":
    main()
