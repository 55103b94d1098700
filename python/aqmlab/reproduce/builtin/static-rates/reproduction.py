"""static-rates' own code: the figures (box plots of each run's median delay and utilization
per rate, pooled over RTTs as the slides draw them, and against rate and RTT as the article's
Figs. 5-6).

experiment.toml declares everything else: the per-run columns (load, discipline, rate, RTT,
median sojourn, utilization), every number the claims read (the grid's medians by rate and by
RTT, the slides' pooled boxes, the claims' {arm} paths), the three tables ([[report_table]])
and the discussion, its long-RTT paragraph listing the grid's utilization per rate (a
paragraph's ``lists`` over [frames.grid]'s medians) and the interval test's outcome;
claims.toml declares the hypothesis tests (the interval sweep's, on the grid and on the pooled
boxes, and the slow-buffer sweep's: test = "rerun", docs/reproductions.md "Hypothesis tests")
and why a claim over rates a run left out is not graded (missing); the three scenarios hold
the rest.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.style import colour, log_ticks, title

#: The slides split the rates in two: "Results: Range of static link rates (high)" (the
#: article's 3-100 Mb/s) and "(low)" (below).
HIGH_KBPS = 3000
RTT_SWEEP_KBPS = 10_000
#: The disciplines, in the tables' order (experiment.toml's discipline column).
QDISCS = ("tail drop", "RED", "CoDel")
#: The grid's sweeps (experiment.toml's numbers read the same; sweep-interval and
#: sweep-slow-buffer test hypotheses: not part of the grid, the tables or the figures).
GRID_SWEEPS = ("sweep-1FTP", "sweep-4FTPs_web", "sweep-4FTPs_web_CBR")


def _all(ctx: Any) -> Any:
    """Every run of the grid (the sweeps this mode ran), with experiment.toml's columns."""
    import pandas as pd

    return pd.concat([ctx.frames[s] for s in GRID_SWEEPS if s in ctx.frames], ignore_index=True)


def figures(ctx: Any) -> list[str]:
    df = _all(ctx)
    rates = list(ctx.params["rates_kbps"])
    rtts = list(ctx.params["rtts_ms"])
    by_rate = df[df["rtt_ms"] == 100]
    by_rtt = df[df["rate_kbps"] == RTT_SWEEP_KBPS]
    return _figures(ctx.out, df, by_rate, by_rtt, rates, rtts)


def _figures(out, df, by_rate, by_rtt, rates, rtts) -> list[str]:
    import numpy as np
    from aqmlab.plot import _plt, _save

    plt = _plt()
    figdir = os.path.join(out, "figures")
    files: list[str] = []
    rtt_span = f"RTTs {min(rtts):g}-{max(rtts):g} ms pooled"
    high = [r for r in rates if r >= HIGH_KBPS]
    low = [r for r in rates if r < HIGH_KBPS]
    views = [
        (
            df,
            "rate_kbps",
            part,
            "bottleneck rate (Mb/s)",
            f"pooled_{which}",
            f"Each run's median delay and utilization per rate, {rtt_span}",
            # The slide's title, its "(high)"/"(low)" without the parentheses a title's
            # source reference cannot nest.
            f"BITAG 2013 slide 'Results: Range of static link rates', {which}",
        )
        for which, part in (("high", high), ("low", low))
        if part
    ]
    views += [
        (
            by_rate,
            "rate_kbps",
            rates,
            "bottleneck rate (Mb/s)",
            "vs_rate",
            "Median delay and utilization of each run vs rate at RTT 100 ms",
            "NJ12 Figs. 5-6",
        ),
        (
            by_rtt,
            "rtt_ms",
            rtts,
            "RTT (ms)",
            "vs_rtt",
            f"Median delay and utilization of each run vs RTT at {RTT_SWEEP_KBPS / 1000:g} Mb/s",
            "NJ12 Figs. 5-6",
        ),
    ]
    for frame, key, values, label, stem, text, figref in views:
        fig, axes = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
        width = 0.8 / len(QDISCS)
        for i, d in enumerate(QDISCS):
            sub = frame[frame["discipline"] == d]
            pos = [j + (i - 1) * width for j in range(len(values))]
            for ax, col in zip(axes, ("p50_ms", "util")):
                data = [sub.loc[sub[key] == v, col].dropna().to_numpy() for v in values]
                c = colour(d)
                bp = ax.boxplot(
                    data,
                    positions=pos,
                    widths=width * 0.9,
                    patch_artist=True,
                    manage_ticks=False,
                    boxprops={"facecolor": c, "edgecolor": c, "alpha": 0.6},
                    whiskerprops={"color": c},
                    capprops={"color": c},
                    flierprops={"markeredgecolor": c},
                    medianprops={"color": "black", "lw": 1.5},
                )
                for med, v in zip(bp["medians"], data):
                    if len(v) and np.percentile(v, 75) == np.percentile(v, 25):
                        med.set_color(c)  # a flat box: its median is all that shows of it
                # Each run as a dot in the discipline's colour over its box: a box of one run
                # (or of equal runs, as a quick run gives) is drawn flat, its colour lost.
                xs = [p for p, v in zip(pos, data) for _ in v]
                ys = [y for v in data for y in v]
                ax.scatter(xs, ys, s=10, color=c, edgecolors="black", linewidths=0.3, zorder=3)
            axes[0].plot([], [], color=colour(d), lw=6, alpha=0.6, label=d)
        axes[0].set_yscale("log")
        # Labelled with round values in the plotted range, not matplotlib's "6×10^1".
        d = frame.loc[frame[key].isin(values), "p50_ms"].dropna()
        d = d[d > 0]
        if len(d):
            lo, hi = float(d.min()), float(d.max())
            nice = [m * 10.0**e for e in range(-2, 5) for m in (1, 2, 5)]
            log_ticks(axes[0], [v for v in nice if lo / 2 <= v <= hi * 2], axis="y")
        axes[0].set(ylabel="median queueing delay (ms)")
        axes[1].set(ylabel="utilization", xlabel=label)
        ticks = (
            [f"{v / 1000:g}" for v in values] if key == "rate_kbps" else [f"{v:g}" for v in values]
        )
        axes[1].set_xticks(range(len(values)), ticks)
        axes[0].legend(fontsize=8)
        for ax in axes:
            ax.grid(True, alpha=0.3)
        axes[1].set_ylim(0, 1.05)
        title(fig, f"{text}:\nbox plots over loads and seeds", figref)
        files += _save(fig, figdir, f"delay_utilization_{stem}")
    return [f for f in files if f.endswith(".png")]
