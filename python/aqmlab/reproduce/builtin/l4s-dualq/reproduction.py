"""l4s-dualq's own code: the figure.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder"):
the per-run metrics the claims read (``[[derive]]``: the L queue's delay, each flow's one-way
delay less its base; Prague's loss; the rate ratio; the utilization), the claims' predicates,
tolerances and stalled-run rule, and the report table and discussion that show the known
trouble cases as findings, not verdicts.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce import common as cm
from aqmlab.reproduce.style import colour, log_ticks, title


def _cell(g: Any, case: str, rate: str, rtts: str, col: str) -> float:
    """The cell's value; NaN where the run stalled or is missing."""
    r = g[(g["aqm"] == case) & (g["rate_mbps"] == rate) & (g["rtts"] == rtts)]
    if len(r) != 1 or cm.stalled(float(r["util"].iloc[0])):
        return float("nan")
    return float(r[col].iloc[0])


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    plt = _plt()
    points = list(dict.fromkeys(zip(g["rate_mbps"], g["rtts"])))
    cases = list(dict.fromkeys(g["aqm"]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    width = 0.8 / len(cases)
    for i, case in enumerate(cases):
        rows = [_cell(g, case, r, t, "l_p99_ms") for r, t in points]
        ratios = [_cell(g, case, r, t, "ratio") for r, t in points]
        xs = [j + (i - (len(cases) - 1) / 2) * width for j in range(len(points))]
        hatch = "//" if case.startswith("DualPI2,") or case.endswith("fallback") else ""
        for ax, ys in ((axes[0], rows), (axes[1], ratios)):
            ax.bar(xs, ys, width, color=colour(case), hatch=hatch, edgecolor="black", label=case)
    labels = [f"{r} Mb/s\n{t} RTTs" for r, t in points]
    axes[0].set(ylabel="Prague's queue delay p99 (ms)", yscale="log")
    axes[0].axhline(2.0, color="black", ls=":", lw=1)
    log_ticks(axes[0], [0.1, 0.3, 1, 2, 10, 30, 100, 300], axis="y")
    # A ratio on a log axis: 2:1 and 1:2 are as far from balance.
    axes[1].set(ylabel="Prague / CUBIC rate (after the warm-up)", yscale="log")
    axes[1].axhline(1.0, color="black", ls=":", lw=1)
    log_ticks(axes[1], [0.1, 0.3, 1, 3, 10, 30], axis="y")
    for ax in axes:
        ax.set_xticks(range(len(points)), labels, fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=3, fontsize=7)
    fig.subplots_adjust(bottom=0.24, wspace=0.3)
    title(
        fig,
        "Prague beside CUBIC: its queue and the rate balance",
        "De Schepper et al., arXiv 2209.01078; RFC 9332: no figure in the stored source",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "l4s-dualq")
    return [f for f in files if f.endswith(".png")]
