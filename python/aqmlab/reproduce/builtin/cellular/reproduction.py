"""cellular's own code: the trace (``--trace``) and what it can carry, the per-load metrics,
the claims' notes and web-load explanations (annotate) and the figures. experiment.toml (the
report's table and discussion too) and claims.toml hold the rest.
"""

from __future__ import annotations

import bisect
import os
from typing import Any

from aqmlab.reproduce.common import (
    FAILS,
    explanation_text,
    fmt,
    link_series,
    packet_sojourns_ms,
)
from aqmlab.reproduce.style import colour, delay_axis, title

LINK = "bottleneck"
OPPORTUNITY_BYTES = 1504
#: Web load -> its sweep (experiment.toml), in the order of the tables.
LOADS = {
    "stand-in web": "sweep-stand-in-web",
    "PackMime web": "sweep-packmime-web",
    "CS244 pages": "sweep-cs244-pages",
}
CASES = ["tail drop", "CoDel", "FQ-CoDel", "PIE"]
#: The load whose numbers are compared with CS244's.
MAIN_LOAD = "CS244 pages"


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
    with open(path, encoding="ascii") as f:
        return [int(line) for line in f if line.strip()]


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
    # verizon_trace: experiment.toml's discussion says when the published number is not ours.
    ctx.params.update(trace=trace, trace_label=label, trace_ms=trace_ms)
    ctx.params["verizon_trace"] = "Verizon" in label
    ctx.params["cap_bytes"] = capacity_bytes(trace_ms, ctx.params["duration_s"])


def _per_case(df: Any, cap: float) -> dict[str, dict[str, float]]:
    out = {}
    for case in CASES:
        rows = df[df["case"] == case]
        out[case] = {
            "p50_ms": float(rows[f"{LINK}.sojourn_ms.p50"].mean()),
            "p75_ms": float(rows[f"{LINK}.sojourn_ms.p75"].mean()),
            "p95_ms": float(rows[f"{LINK}.sojourn_ms.p95"].mean()),
            "drops": float(rows[f"{LINK}.dropped_pkts"].mean()),
            "mb": float(rows[f"{LINK}.delivered_bytes"].mean()) / 1e6,
            "pct_of_capacity": 100.0 * float(rows[f"{LINK}.delivered_bytes"].mean()) / cap,
            # The same as a fraction: the claims' delivered share.
            "delivered": float(rows[f"{LINK}.delivered_bytes"].mean()) / cap,
            "goodput_mbps": float(rows["total.goodput_bps"].mean()) / 1e6,
        }
    return out


def numbers(ctx: Any) -> dict[str, Any]:
    cap = ctx.params["cap_bytes"]
    per_load = {load: _per_case(ctx.frames[sweep], cap) for load, sweep in LOADS.items()}
    per_case = per_load[MAIN_LOAD]
    more = per_case["tail drop"]["mb"] / per_case["CoDel"]["mb"] - 1
    extra = {load: c["tail drop"]["mb"] / c["CoDel"]["mb"] - 1 for load, c in per_load.items()}
    return {
        "cases": per_case,
        "loads": per_load,
        "trace_capacity_mb": cap / 1e6,
        "taildrop_extra_bytes": more,
        "taildrop_extra_bytes_by_load": extra,
        # The web-load hypothesis's outcome (claims.toml's explanation).
        "_by_load": ", ".join(f"{k} {100 * v:+.1f} %" for k, v in extra.items()),
        # The same hypothesis for the two qualitative claims: each load's values and whether
        # the claim's comparison is true there.
        "_by_load_claims": {
            cid: by_load(per_load, key, first, unit)
            for cid, (key, first, unit) in LOAD_TESTED.items()
        },
    }


#: The qualitative claims (claims.toml) the other web loads test: their metric, the arm that
#: must be larger, the unit.
LOAD_TESTED = {
    "codel-median-below-taildrop": ("p50_ms", "tail drop", "ms"),
    "taildrop-busier": ("pct_of_capacity", "tail drop", "% of capacity"),
}


def by_load(per_load: dict, key: str, larger: str, unit: str) -> str:
    """Per web load, CoDel's and tail drop's ``key`` and whether ``larger``'s is the larger
    (the comparison the claim makes)."""
    other = "CoDel" if larger == "tail drop" else "tail drop"
    parts = []
    for load, c in per_load.items():
        a, b = c[larger][key], c[other][key]
        parts.append(
            f"{load}: {larger} {fmt(a)} vs {other} {fmt(b)} {unit} ({'true' if a > b else 'false'})"
        )
    return "; ".join(parts)


def annotate(ctx: Any) -> None:
    label = ctx.params["trace_label"]
    trace_note = "" if ctx.params["verizon_trace"] else f"run on {label}, not the Verizon trace"
    ctx.claims["taildrop-extra-bytes"].add_note(trace_note)
    # A qualitative claim that fails with CS244's load is explained by the web load only if
    # another load makes its comparison true.
    for cid in LOAD_TESTED:
        c = ctx.claims.get(cid)
        if c is None or c.verdict != FAILS or not c.hypotheses:
            continue
        outcome = ctx.numbers["_by_load_claims"][cid]
        c.unexplained = "(true)" not in outcome
        c.explanation = explanation_text(
            c.hypotheses, c.unexplained, "no web load makes it true" if c.unexplained else ""
        )


def figures(ctx: Any) -> list[str]:
    import numpy as np
    from aqmlab.plot import _plt, _save

    runs_dir = os.path.join(ctx.out, LOADS[MAIN_LOAD], "runs")
    df = ctx.frames[LOADS[MAIN_LOAD]]
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
