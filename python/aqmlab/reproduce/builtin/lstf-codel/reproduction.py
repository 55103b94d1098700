"""lstf-codel's figure. experiment.toml declares every number (docs/reproductions.md,
"Metrics as data"): ``runs`` (each case's packet-log statistics, ``[sweep.reduce.packet_log]``,
read from its reduced.json as the columns ``reduced.KEY``, beside the FTP's and the link's
counters), ``_samples``, ``_dx`` and the paper's Welch t- and F-tests (``tests``,
``tests_by_alpha``, ``_f_ci``: ``test = "two-sample"``), the report's tables
(``[[report_table]]``) and its discussion (the verdict- and mode-dependent paragraphs with
``when``); claims.toml holds the published values and grades the numbers (the significance
claims with ``sample_test``, the range claims against CoDel's one run as a baseline), a table
row at an α the mode does not run is not graded (``missing``). What stays here is the figure.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.style import colour, log_ticks, title

ALPHAS = [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875]
ORDERS = ["as_coded", "as_described"]
UNITS = ["author (5 s / 100 s)", "intended (5 ms / 100 ms)"]


def _published(ctx: Any, alpha: float | None, suffix: str) -> float:
    return float(_printed(ctx, alpha, suffix))  # type: ignore[arg-type]


def _printed(ctx: Any, alpha: float | None, suffix: str) -> str | None:
    """The paper's value of a table row as printed: claims.toml's ``published`` of the claim
    ``codel-SUFFIX`` or ``lstf-ALPHA-SUFFIX`` (every α, run or not)."""
    cid = "codel-" + suffix if alpha is None else f"lstf-{alpha:g}-{suffix}"
    return next((c.published for c in ctx.experiment.claims if c.id == cid), None)


def figures(ctx: Any) -> list[str]:
    pub = {s: {a: _published(ctx, a, s) for a in ALPHAS} for s in ("delay-mean", "delay-std")}
    return _figures(ctx.out, ctx.numbers["runs"], ctx.params["alphas"], pub)


def _figures(out, stats, alphas, pub) -> list[str]:
    """Mean and std of the delay and the FTP's goodput across α; ``pub``: the paper's LSTF
    delay (``delay-mean``, ``delay-std``: α -> s)."""
    from aqmlab.plot import _plt, _save

    plt = _plt()
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for i, unit in enumerate(UNITS):
        for j, order in enumerate(ORDERS):
            ss = [stats[f"LSTF α={a:g} {order}, {unit}"] for a in alphas]
            style = dict(
                color=colour("LSTF-CoDel"),
                ls="-" if i == 0 else ":",
                marker="o" if j == 0 else "s",
                label=f"LSTF {order}, {unit}",
            )
            axes[0].plot(alphas, [s["delay_s"]["mean"] * 1e3 for s in ss], **style)
            axes[1].plot(alphas, [s["delay_s"]["std"] * 1e3 for s in ss], **style)
            axes[2].plot(alphas, [s["goodput_mbps"] for s in ss], **style)
        c = stats[f"CoDel, {unit}"]
        for ax, v in zip(
            axes, (c["delay_s"]["mean"] * 1e3, c["delay_s"]["std"] * 1e3, c["goodput_mbps"])
        ):
            ax.axhline(
                v, color=colour("CoDel"), ls="--" if i == 0 else "-.", lw=1, label=f"CoDel, {unit}"
            )
    axes[0].plot(
        ALPHAS,
        [pub["delay-mean"][a] * 1e3 for a in ALPHAS],
        "^:",
        color=colour("LSTF-CoDel"),
        mfc="white",
        label="paper, LSTF",
    )
    axes[1].plot(
        ALPHAS,
        [pub["delay-std"][a] * 1e3 for a in ALPHAS],
        "^:",
        color=colour("LSTF-CoDel"),
        mfc="white",
        label="paper, LSTF",
    )
    for ax, yl in zip(
        axes, ("mean queueing delay (ms)", "std of queueing delay (ms)", "FTP goodput (Mb/s)")
    ):
        ax.set(xlabel="forgetfulness α", ylabel=yl)
        ax.grid(True, alpha=0.3)
    axes[0].set_yscale("log")
    # Labelled with round values in the plotted range (style.log_ticks), not matplotlib's
    # "3×10¹".
    lo, hi = axes[0].get_ylim()
    nice = [m * 10.0**e for e in range(-3, 6) for m in (1, 2, 5)]
    log_ticks(axes[0], [v for v in nice if lo <= v <= hi], axis="y")
    axes[1].set_ylim(bottom=0)
    axes[2].set_ylim(bottom=0)
    axes[2].legend(fontsize=7, loc="lower right")
    title(
        fig,
        "LSTF-CoDel vs CoDel across α (CoDel: dashed, author units; dash-dot, intended)",
        "Ford 2020 Tables II, V",
    )
    files = _save(fig, os.path.join(out, "figures"), "alpha_sweep")
    return [f for f in files if f.endswith(".png")]
