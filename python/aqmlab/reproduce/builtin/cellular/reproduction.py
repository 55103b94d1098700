"""cellular's own code: the trace (``--trace``) and what it can carry, and the figures.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's
folder"): the per-load metrics (``[[derive]]`` ``load``, ``[numbers]``), the report's table and
discussion, the note of a run on another trace (a claim's ``note = { text, when }``) and the
web-load hypotheses (``test = "rerun"``: the other loads' runs in place of CS244's pages').

``prepare`` stays: it reads the trace file, whose period sets a full run's length (60-300 s)
and whose delivery opportunities give ``cap_bytes``, what the trace can carry in the run (the
claims' delivered share and the table's % of capacity divide by it). Declared keys could map
``--trace`` to a parameter, but no expression reads a file, so that mapping alone would leave
this function; the figures read the same trace for its capacity curve.
"""

from __future__ import annotations

import bisect
import os
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.common import link_series, packet_sojourns_ms
from aqmlab.reproduce.style import colour, delay_axis, title

LINK = "bottleneck"
OPPORTUNITY_BYTES = 1504
#: The load whose numbers are compared with CS244's, and its sweep (experiment.toml).
MAIN_LOAD, MAIN_SWEEP = "CS244 pages", "sweep-cs244-pages"


def default_trace() -> tuple[str, str]:
    """The Verizon LTE downlink mahimahi ships (package data, GPL-3.0-or-later data: see
    ``aqmlab/data/traces/LICENSE-NOTE.md``): ``(path, label)``."""
    import aqmlab

    pkg = os.path.dirname(os.path.abspath(aqmlab.__file__))
    return (
        os.path.join(pkg, "data", "traces", "Verizon-LTE-short.down"),
        "Verizon-LTE-short.down (mahimahi)",
    )


def read_trace_ms(path: str) -> list[int]:
    """A mahimahi trace's delivery times (ms, one a line); a line that is not one, or a trace
    with no time after 0, is one error naming the file and the line."""
    out: list[int] = []
    with open(path, encoding="ascii", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(int(line))
            except ValueError:
                raise AqmlabError(
                    f"--trace {path}: line {n}: expected a delivery time in whole ms, "
                    f"got {line.strip()!r}"
                ) from None
    if not out or out[-1] <= 0:
        raise AqmlabError(f"--trace {path}: expected delivery times in ms ending after 0")
    return out


def capacity_bytes(trace_ms: list[int], t_s: float) -> float:
    """Bytes the trace can deliver in (0, t_s]: 1504 per opportunity at or before ``t_s``, the
    trace repeating with its last timestamp as its period."""
    period = trace_ms[-1]
    t = t_s * 1000.0
    whole, rest = divmod(t, period)
    return OPPORTUNITY_BYTES * (whole * len(trace_ms) + bisect.bisect_right(trace_ms, rest))


def prepare(ctx: Any) -> None:
    """The trace (``--trace FILE`` or the default), a full run's length (the trace's period,
    60-300 s) and what the trace can carry in the run."""
    opt = ctx.options.get("trace")
    trace, label = (opt, os.path.basename(opt)) if opt else default_trace()
    trace = os.path.abspath(trace)
    if not os.path.isfile(trace):
        raise FileNotFoundError(f"--trace {trace}: no such file")
    trace_ms = read_trace_ms(trace)
    if not ctx.quick:
        ctx.params["duration_s"] = min(300.0, max(60.0, trace_ms[-1] / 1000.0))
    # verizon_trace: experiment.toml's discussion and claims.toml's note say when the published
    # number is not for this trace.
    ctx.params.update(trace=trace, trace_label=label, trace_ms=trace_ms)
    ctx.params["verizon_trace"] = "Verizon" in label
    ctx.params["cap_bytes"] = capacity_bytes(trace_ms, ctx.params["duration_s"])


def figures(ctx: Any) -> list[str]:
    import numpy as np
    from aqmlab.plot import _plt, _save

    runs_dir = os.path.join(ctx.out, MAIN_SWEEP, "runs")
    df = ctx.frames[MAIN_SWEEP]
    per_case = ctx.numbers["cases"]
    trace_ms, duration = ctx.params["trace_ms"], ctx.params["duration_s"]
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
        ax.set_yscale("symlog", linthresh=1.0)
        delay_axis(ax)
        ax.set(ylabel="delay (ms)", title=f"{case}: median {per_case[case]['p50_ms']:.1f} ms")
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
