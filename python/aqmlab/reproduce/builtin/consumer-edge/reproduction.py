"""consumer-edge's own code: its figures only.

Everything else is data (docs/reproductions.md). experiment.toml declares each run's columns
(rate, buffer, and per direction the drop % of what was enqueued, the median sojourn, MB,
Jain's index of the flows' drop rates and of the traffic classes' (``jain``), the delivered
share, the peak backlog), each cell's means, seeds' half-widths and peak (numbers ``cells``,
``_tested_cells``), the range claims' cells per discipline (``_range``), the C/T ratios per
flow and per class (``_ct``: runs paired by seed), the buffer fitted to the slides' tail-drop
medians and each median's held-out one (``best_buffer``, ``held_out_buffer``: ``fit``), the
claims' numbers at those buffers (``lookup``), each cell at every buffer run (``_by_buffer``),
the drop % paired by seed (``_drop_pairs``), the slides' table (``_slides``: ``published``),
the report tables and the discussion. claims.toml declares the hypothesis tests: the
per-class index (``test = "regrade"``, its outcome written into results.json's
``fairness_by_class``), the buffer (``test = "axis"``: the cell's value at every buffer run)
and codel-no-more-drops' noise (``test = "paired"``: CoDel minus tail drop seed by seed, its
numbers results.json's ``drops_noise_test``).
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.style import colour, delay_axis, log_ticks, title

RATES = ["512 kb/s", "1.5 Mb/s"]
DIRECTIONS = {"down": "bottleneck", "up": "bottleneck.rev"}
#: The slides' columns (experiment.toml's ``_slides``, their values as printed) by discipline.
SIDE = {"codel": "C", "droptail": "T"}


def _cells(ctx: Any) -> dict[tuple[str, int, str, str], dict[str, Any]]:
    """experiment.toml's ``cells`` (``"RATE|BUFFER|QDISC|DIRECTION"`` -> the cell's means over
    seeds) keyed by ``(rate, buffer, qdisc, direction)``."""
    out = {}
    for k, v in ctx.numbers["cells"].items():
        r, b, q, d = k.split("|")
        out[(r, int(b), q, d)] = v
    return out


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    cells, buffers = _cells(ctx), ctx.params["buffers"]
    plt = _plt()
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    for i, rate in enumerate(RATES):
        for j, d in enumerate(DIRECTIONS):
            ax = axes[i][j]
            for q, name in (("droptail", "tail drop"), ("codel", "CoDel")):
                ax.plot(
                    buffers,
                    [cells[(rate, b, q, d)]["median_ms"] for b in buffers],
                    "o-",
                    color=colour(name),
                    label=f"{name}, aqmlab",
                )
            for qi, name in (("T", "tail drop"), ("C", "CoDel")):
                ax.axhline(
                    ctx.numbers["_slides"][rate][d]["median_ms"][qi],
                    color=colour(name),
                    ls=":",
                    label=f"{name}, slides",
                )
            ax.set(title=f"{rate}, {d}", ylabel="median delay (ms)")
            ax.set_xscale("log")
            log_ticks(ax, buffers)
            delay_axis(ax)
            ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("buffer (packets)")
    axes[0][0].legend(fontsize=7)
    title(
        fig,
        "Consumer edge: median delay vs buffer",
        "BITAG slide 'Consumer Edge type example': its table",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "median_vs_buffer")
    files += _fairness_figure(ctx, plt, _save)
    return [f for f in files if f.endswith(".png")]


def _fairness_figure(ctx: Any, plt: Any, save: Any) -> list[str]:
    """The slides' 'Interesting "Fairness" Results': whether drops fall on the flows in
    proportion to their use of the link, as Jain's index (Σx)²/(n·Σx²) of each flow's drops ÷
    its packets (1 when every flow loses the same share), CoDel and tail drop against the
    buffer, per rate and direction, beside the slides' table values (dotted). The buffer the
    slides' cells are graded at is ringed."""
    cells, buffers, best = _cells(ctx), ctx.params["buffers"], ctx.numbers["best_buffer"]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True, sharey=True)
    for i, rate in enumerate(RATES):
        for j, d in enumerate(DIRECTIONS):
            ax = axes[i][j]
            for q, name in (("codel", "CoDel"), ("droptail", "tail drop")):
                ys = [cells[(rate, b, q, d)]["fairness"] for b in buffers]
                ax.plot(buffers, ys, "o-", color=colour(name), label=f"{name}, aqmlab")
                ax.plot(
                    [best[rate]],
                    [cells[(rate, best[rate], q, d)]["fairness"]],
                    "o",
                    ms=12,
                    mfc="none",
                    color=colour(name),
                    label=f"{name}, graded buffer" if i == j == 0 else "_",
                )
                ax.axhline(
                    ctx.numbers["_slides"][rate][d]["fairness"][SIDE[q]],
                    color=colour(name),
                    ls=":",
                    label=f"{name}, slides",
                )
            ax.set(title=f"{rate}, {d}", ylim=(0, 1.05))
            ax.set_xscale("log")
            log_ticks(ax, buffers)
            ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("buffer (packets)")
    for ax in axes[:, 0]:
        ax.set_ylabel("Jain's index of drop rates")
    axes[0][0].legend(fontsize=7, loc="lower left")
    title(
        fig,
        "Consumer edge: are drops in proportion to use?",
        "BITAG slide 'Interesting \"Fairness\" Results'",
    )
    return save(fig, os.path.join(ctx.out, "figures"), "fairness_vs_buffer")
