"""consumer-edge-drops' figure: the slides' drop rates beside ours, by buffer and count.

experiment.toml declares the rest (docs/reproductions.md, "Metrics as data"): the drop % counted
three ways (``[[derive]]``s: a ``sum`` over a list of flows, then ``div``), the seeds' spread of
each (``[numbers.ci]``, the claims' ``spread``); claims.toml holds the slides' values, which the
figure reads from it.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.style import colour, title

#: The figure's cells: (rate, direction) -> the claim ids' middle part.
CELLS = {
    ("512 kb/s", "down"): "512-down",
    ("512 kb/s", "up"): "512-up",
    ("1.5 Mb/s", "down"): "15-down",
    ("1.5 Mb/s", "up"): "15-up",
}


def _published(ctx: Any, cell: tuple[str, str], disc: str) -> float:
    """The slides' drop % of a cell: claims.toml's ``published`` of ``drop-CELL-DISC``."""
    cid = f"drop-{CELLS[cell]}-{'codel' if disc == 'CoDel' else 'taildrop'}"
    return float(next(c.published for c in ctx.experiment.claims if c.id == cid))


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    cells = list(CELLS)
    labels = [f"{r}\n{d}" for r, d in cells]
    x = range(len(cells))
    for ax, disc in ((axes[0], "CoDel"), (axes[1], "tail drop")):
        ax.plot(list(x), [_published(ctx, c, disc) for c in cells], "k*", ms=12, label="slides")
        for buf, marker in (("13p", "o"), ("25p", "s")):
            for name, alpha in (("all", 1.0), ("data", 0.45)):
                vals = []
                for r, d in cells:
                    row = g[(g["point"] == f"{r}, {buf}") & (g["discipline"] == disc)]
                    vals.append(float(row[f"{name}_{d}"].iloc[0]) if len(row) else float("nan"))
                ax.plot(
                    list(x),
                    vals,
                    marker,
                    color=colour(disc),
                    alpha=alpha,
                    ls="none",
                    label=f"{buf}, {name} packets",
                )
        ax.set_xticks(list(x), labels, fontsize=8)
        ax.set(title=disc, ylabel="packet drop %")
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    title(
        fig,
        "Consumer-edge drop rates by buffer and count",
        "BITAG slide 'Consumer Edge type example': its table",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "drop_rates")
    return [f for f in files if f.endswith(".png")]
