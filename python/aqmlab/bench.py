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
import tempfile
import time

# (name, scenario file, qdisc overrides). The tail-drop run of the dynamic link is there because
# its 830-packet queue makes windows of hundreds of segments: the case where per-ACK work that
# grows with the window shows.
BENCHMARKS = [
    ("bulk-dumbbell", "scenarios/bulk-dumbbell.toml", []),
    ("codel-dynamic-link", "scenarios/codel-dynamic-link.toml", []),
    (
        "codel-dynamic-link/droptail",
        "scenarios/codel-dynamic-link.toml",
        [("bottleneck", "droptail")],
    ),
    # Thousands of web connections open at once (an overloaded FQ-CoDel link), each with its
    # timers: the case where the event queue's size shows.
    ("web-overload", "scenarios/web-overload.toml", []),
]


# The scale rows (issue 24): the bulk benchmark with N NewReno flows sharing min(N, 1000)
# sender/receiver pairs, 20 s simulated. Their "ns/pkt" beside the 1-flow row's is how the cost
# per delivered packet grows with the flow count (set-up left out: only the run is timed).
SCALE_FLOWS = (1, 100, 10_000)
SCALE_DURATION_S = 20
SCALE_MAX_PAIRS = 1000


def scale_scenario(base: str, n: int, duration_s: int) -> str:
    """The bulk benchmark's text ``base`` with ``n`` NewReno flows over min(n, 1000) sender and
    receiver pairs for ``duration_s`` seconds (``bench/scale_dumbbell.py`` prints it)."""
    head = base[: base.index("[[flows]]")]
    pairs = min(n, SCALE_MAX_PAIRS)
    for old, new in (
        ('name = "bulk-dumbbell"', f'name = "scale-{n}"'),
        ('duration = "60s"', f'duration = "{duration_s}s"'),
        ("senders = 8", f"senders = {pairs}"),
    ):
        if old not in head:
            raise ValueError(f"the bulk benchmark's scenario: expected the line `{old}`")
        head = head.replace(old, new)
    flows = "".join(
        f'[[flows]]\nkind = "tcp"\nfrom = "s{i % pairs + 1}"\nto = "r{i % pairs + 1}"\n'
        'cc = "newreno"\n\n'
        for i in range(n)
    )
    return head + flows


def disjoint_scenario(base: str, k: int, duration_s: int) -> str:
    """``k`` disjoint copies of the bulk benchmark's dumbbell (text ``base``: its access rate,
    buffer and delays and its bottleneck), each with one sender, one receiver and one NewReno
    flow, for ``duration_s`` seconds (``bench/scale_dumbbell.py --disjoint`` prints it): the
    network grows with ``k`` (4 nodes, 6 link directions and one flow each) while each
    dumbbell's traffic stays that of ``scale_scenario(base, 1, ...)``. At ``k = 1`` it is that
    scenario with other node and link names."""
    import tomllib

    top = tomllib.loads(base)
    d = top["dumbbell"]
    b = d["bottleneck"]
    if not 1 <= k <= 1000:
        # 4 nodes a dumbbell, and a scenario holds at most 4000.
        raise ValueError(f"expected 1 to 1000 dumbbells, got {k}")
    access = f'rate = "{d["access_rate"]}"\nbuffer = "{d["access_buffer"]}"\n'
    lines = [
        f'name = "disjoint-{k}"\nduration = "{duration_s}s"\nseed = {top["seed"]}\n',
        "nodes = ["
        + ", ".join(f'"s{i}", "a{i}", "b{i}", "r{i}"' for i in range(1, k + 1))
        + "]\n\n",
    ]
    for i in range(1, k + 1):
        lines.append(
            f'[[links]]\nname = "s{i}"\nfrom = "s{i}"\nto = "a{i}"\n'
            f'delay = "{d["sender_delay"]}"\n{access}\n'
            f'[[links]]\nname = "bottleneck{i}"\nfrom = "a{i}"\nto = "b{i}"\n'
            f'rate = "{b["rate"]}"\ndelay = "{b["delay"]}"\nqdisc = "{b["qdisc"]}"\n'
            f'buffer = "{b["buffer"]}"\n\n'
            f'[[links]]\nname = "r{i}"\nfrom = "b{i}"\nto = "r{i}"\n'
            f'delay = "{d["receiver_delay"]}"\n{access}\n'
        )
    lines += [
        f'[[flows]]\nkind = "tcp"\nfrom = "s{i}"\nto = "r{i}"\ncc = "newreno"\n\n'
        for i in range(1, k + 1)
    ]
    return "".join(lines)


def _one(path: str, qdisc: list | None = None) -> dict:
    """Run one scenario in this process (called in the subprocess)."""
    from aqmlab import _core

    r = _core.load_scenario(path, None, [tuple(q) for q in qdisc or []])
    # As `aqmlab run` does: in steps, each step's time series taken out of the simulator (and
    # here dropped), so its memory stays flat in simulated time.
    steps = 20
    t0 = time.perf_counter()
    for k in range(1, steps + 1):
        r.advance(r.duration_s * k / steps)
        r.take_series()
        if k == steps // 2:
            rss_half = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall = time.perf_counter() - t0
    s = json.loads(r.summary_json())
    delivered = sum(f["delivered_pkts"] for f in s["flows"])
    return {
        "name": s["scenario"] + "".join(f"/{kind}" for _, kind in qdisc or []),
        "sim_time_s": s["sim_time_s"],
        "delivered_pkts": delivered,
        "n_flows": len(s["flows"]),
        "events": s["events"],
        "wall_s": wall,
        "pkts_per_s": delivered / wall,
        "ns_per_pkt": wall / delivered * 1e9 if delivered else float("nan"),
        "events_per_s": s["events"] / wall,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "peak_rss_at_half_time_mb": rss_half,
        # Which compilation of the core ran: "profile-guided" (make install) or "plain".
        "build": _core.BUILD,
    }


def _subprocess_run(path: str, qdisc: list) -> dict:
    p = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import json,aqmlab.bench as b; print(json.dumps(b._one({path!r}, {qdisc!r})))",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr else "benchmark failed")
    return json.loads(p.stdout)


def run_benchmarks(root: str | None = None, repeat: int = 3) -> list[dict]:
    """Run every benchmark scenario under ``root`` (default: the bundled ones, found by
    :func:`aqmlab.scenarios.resolve` from any directory) ``repeat`` times, each in its own
    subprocess, and report the run with the median wall time (the lower of the two middle runs
    for an even count), with the fastest and slowest wall times beside it: on a shared machine
    one run's time can be off by tens of percent, and the simulated results are identical."""
    if repeat < 1:
        raise ValueError(f"--repeat must be at least 1, got {repeat}")
    paths = []
    for _, rel, qdisc in BENCHMARKS:
        if root is None:
            from aqmlab.scenarios import resolve

            path = resolve(os.path.splitext(os.path.basename(rel))[0])
        else:
            path = os.path.join(root, rel)
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"{path}: benchmark scenario not found (give --root, the repository's folder)"
            )
        paths.append((path, qdisc))
    out = [_median_row(path, qdisc, repeat) for path, qdisc in paths]
    with open(paths[0][0], encoding="utf-8") as f:
        base = f.read()
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-") as tmp:
        for n in SCALE_FLOWS:
            path = os.path.join(tmp, f"scale-{n}.toml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(scale_scenario(base, n, SCALE_DURATION_S))
            row = _median_row(path, [], repeat)
            row["flows"] = n
            out.append(row)
    one = next(r for r in out if r.get("flows") == 1)
    for r in out:
        if "flows" in r:
            # Within one invocation, so that the machine's drift between days cancels.
            r["ns_per_pkt_vs_1_flow"] = r["ns_per_pkt"] / one["ns_per_pkt"]
    return out


def _median_row(path: str, qdisc: list, repeat: int) -> dict:
    runs = sorted((_subprocess_run(path, qdisc) for _ in range(repeat)), key=lambda r: r["wall_s"])
    row = runs[(len(runs) - 1) // 2]
    row["runs"] = repeat
    row["wall_s_min"] = runs[0]["wall_s"]
    row["wall_s_max"] = runs[-1]["wall_s"]
    # The fastest run's rate: a shared machine's noise only ever adds time, so this is the
    # closest to the speed on an idle core.
    row["pkts_per_s_best"] = runs[0]["pkts_per_s"]
    return row


def format_table(rows: list[dict]) -> str:
    hdr = (
        f"{'scenario':<28} {'sim s':>6} {'delivered pkts':>15} {'events':>11} {'wall s':>7} "
        f"{'range s':>11} {'pkts/s':>11} {'best pkts/s':>12} {'events/s':>11} {'peak MB':>8} "
        f"{'ns/pkt':>8} {'vs 1 flow':>10}"
    )
    lines = [hdr, "-" * len(hdr)]
    for r in rows:
        span = f"{r.get('wall_s_min', r['wall_s']):.2f}-{r.get('wall_s_max', r['wall_s']):.2f}"
        lines.append(
            f"{r['name']:<28} {r['sim_time_s']:>6.0f} {r['delivered_pkts']:>15,} "
            f"{r['events']:>11,} "
            f"{r['wall_s']:>7.2f} {span:>11} {r['pkts_per_s']:>11,.0f} "
            f"{r.get('pkts_per_s_best', r['pkts_per_s']):>12,.0f} "
            f"{r['events_per_s']:>11,.0f} {r['peak_rss_mb']:>8.1f} {r['ns_per_pkt']:>8.0f}"
            + (f" {r['ns_per_pkt_vs_1_flow']:>9.2f}x" if "flows" in r else "")
        )
    runs = rows[0].get("runs", 1) if rows else 1
    build = rows[0].get("build", "plain") if rows else "plain"
    lines.append(
        f"core build: {build}; wall s: the median of {runs} run(s), range s: fastest-slowest, "
        "pkts/s: at the median, best pkts/s: of the fastest run; "
        "delivered pkts: packets that reached their destination host (TCP data and ACKs, UDP); "
        "peak MB: the run's peak resident memory (--json also gives it at half the simulated "
        "time); "
        "ns/pkt: wall time per delivered packet; scale-N: the bulk benchmark with N NewReno "
        f"flows over min(N, {SCALE_MAX_PAIRS}) sender pairs for {SCALE_DURATION_S} s, "
        "vs 1 flow: its ns/pkt "
        "over scale-1's in this invocation"
    )
    return "\n".join(lines)
