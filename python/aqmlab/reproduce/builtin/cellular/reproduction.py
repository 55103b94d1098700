"""cellular's figures: the per-packet delay, the cumulative bytes and each discipline's rate
beside the trace's capacity.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's
folder"): the ``--trace`` option and a full run's length, the trace's period (``[options.trace]``,
``[full]``'s ``trace_period_s``: "Options"), what the trace can carry in the run (``cap_bytes``,
from each run's utilization), the per-load metrics (``[[derive]]`` ``load``, ``[numbers]``), the
report's table and discussion, the note of a run on another trace (a claim's ``note = { text,
when }``) and the web-load hypotheses (``test = "rerun"``: the other loads' runs in place of
CS244's pages'). The figures read the trace again for its capacity curve.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import fmt, link_series, packet_sojourns_ms
from aqmlab.reproduce.mahimahi import capacity_bytes, read_ms
from aqmlab.reproduce.style import colour, delay_axis, title

LINK = "bottleneck"
#: The load whose numbers are compared with CS244's, and its sweep (experiment.toml).
MAIN_LOAD, MAIN_SWEEP = "CS244 pages", "sweep-cs244-pages"


def figures(ctx: Any) -> list[str]:
    import numpy as np
    from aqmlab.plot import _plt, _save

    runs_dir = os.path.join(ctx.out, MAIN_SWEEP, "runs")
    df = ctx.frames[MAIN_SWEEP]
    per_case = ctx.numbers["cases"]
    trace_ms, duration = read_ms(ctx.params["trace"]), ctx.params["duration_s"]
    plt = _plt()
    figdir = os.path.join(ctx.out, "figures")
    first = {case: df[df["case"] == case]["run"].iloc[0] for case in per_case}
    files: list[str] = []
    fig, axes = plt.subplots(
        len(per_case), 1, figsize=(9, 2.3 * len(per_case)), sharex=True, sharey=True
    )
    for ax, case in zip(axes, per_case):
        t, s = packet_sojourns_ms(os.path.join(runs_dir, first[case]), LINK)
        step = max(1, len(t) // 60_000)
        ax.plot(t[::step], s[::step], ".", ms=1.2, alpha=0.5, color=colour(case), rasterized=True)
        delay_axis(ax, symlog=True)
        ax.set(ylabel="delay (ms)", title=f"{case}: median {fmt(per_case[case]['p50_ms'])} ms")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    title(
        fig,
        f"Per-packet queueing delay at the LTE bottleneck ({MAIN_LOAD}, seed 1)",
        "CS244 2015's plot 'delay-4g'",
    )
    files += _save(fig, figdir, "delay_vs_time")

    fig, ax = plt.subplots(figsize=(9, 4))
    for case in per_case:
        s = link_series(os.path.join(runs_dir, first[case]), LINK)
        ax.plot(s["t_s"], s["egress_bytes"].cumsum() / 1e6, color=colour(case), label=case)
    ts = np.linspace(0, duration, 300)
    ax.plot(
        ts, [capacity_bytes(trace_ms, t) / 1e6 for t in ts], "k--", lw=1, label="trace capacity"
    )
    ax.set(xlabel="time (s)", ylabel="cumulative MB sent")
    ax.set_ylim(bottom=0)
    title(
        ax, "Cumulative bytes through the LTE bottleneck (seed 1)", "CS244 2015's plot 'mbytes-4g'"
    )
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    files += _save(fig, figdir, "cumulative_mb")

    fig, ax = plt.subplots(figsize=(9, 3.5))
    edges = np.arange(0, duration + 1e-9, 1.0)
    caps = [
        capacity_bytes(trace_ms, b) - capacity_bytes(trace_ms, a)
        for a, b in zip(edges[:-1], edges[1:])
    ]
    ax.step(
        edges[:-1], np.array(caps) * 8 / 1e6, where="post", color="k", lw=1, label="trace capacity"
    )
    for case in ("tail drop", "CoDel"):
        s = link_series(os.path.join(runs_dir, first[case]), LINK)
        per_s = s.groupby(np.floor(s["t_s"]))["egress_bytes"].sum()
        ax.plot(per_s.index, per_s * 8 / 1e6, color=colour(case), lw=1, label=f"{case} egress")
    ax.set(xlabel="time (s)", ylabel="Mb/s (1-s bins)")
    ax.set_ylim(bottom=0)
    title(
        ax,
        "Trace capacity and what each discipline used",
        "as CS244 2015's plot 'paper-codel-capacity'",
    )
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    files += _save(fig, figdir, "capacity")
    return [f for f in files if f.endswith(".png")]
