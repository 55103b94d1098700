"""red-traffic-check's figure: the switch's departures in 10-ms bins over the measured window.

experiment.toml declares the rest (docs/reproductions.md, "Windows of a run" and "Metrics as
data"): each run's bins (a ``[[window]]`` of the switch's series over [t0, duration)), their
rate, idle share and coefficient of variation (``std`` ÷ ``mean``), the numbers and the report
table; claims.toml grades them.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import link_series
from aqmlab.reproduce.style import colour, title

LINK = "switch"


def _series(ctx: Any, case: str) -> tuple[list[float], list[float]]:
    """The switch's packets per 10-ms bin over [t0, duration) of the case's (first) run."""
    p, df = ctx.params, ctx.frames["sweep"]
    run = df[df["case"] == case]["run"].iloc[0]
    s = link_series(os.path.join(ctx.out, "sweep", "runs", run), LINK)
    w = s[(s["t_s"] >= p["t0_s"] - 1e-9) & (s["t_s"] < p["duration_s"] - 1e-9)]
    return list(w["t_s"]), list(w["released_pkts"].astype(float))


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    plt = _plt()
    fig, axes = plt.subplots(2, 1, figsize=(9, 5.5), sharex=True)
    for ax, (case, style) in zip(axes, (("window 8", "-"), ("window 240", "--"))):
        t, pkts = _series(ctx, case)
        ax.step(t, pkts, style, where="post", color=colour("tail drop"), lw=0.9)
        ax.set_ylim(bottom=0)
        ax.set_ylabel("packets / 10 ms")
        ax.set_title(f"{case} (tail drop switch)", fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    title(fig, "One sender, window capped, 45 Mb/s 16 ms + 2 ms", "CS244 Seeing RED Fig. 1")
    files = _save(fig, os.path.join(ctx.out, "figures"), "traffic")
    return [f for f in files if f.endswith(".png")]
