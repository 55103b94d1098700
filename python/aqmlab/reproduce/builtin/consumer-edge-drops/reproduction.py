"""consumer-edge-drops' own code: drop % counted three ways, and the seeds' spread of each.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder").
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import seed_spread
from aqmlab.reproduce.style import colour, title

FLOWS = range(5)  # download, uploads, web, voip-down, voip-up
DIRECTIONS = {"down": "bottleneck", "up": "bottleneck.rev"}
COUNTS = {
    "all": {"down": [0, 1, 2, 3, 4], "up": [0, 1, 2, 3, 4]},
    "tcp": {"down": [0, 1, 2], "up": [0, 1, 2]},
    "data": {"down": [0, 2], "up": [1]},
}
PUBLISHED = {
    ("512 kb/s", "down"): (8, 8),
    ("512 kb/s", "up"): (1.5, 5.8),
    ("1.5 Mb/s", "down"): (3.5, 4.7),
    ("1.5 Mb/s", "up"): (1.4, 2.5),
}


def derive(df: Any, ctx: Any) -> Any:
    """``drop_<count>_<direction>``: the flows' drops over their arrivals at the bottleneck's
    direction, in %."""
    for d, link in DIRECTIONS.items():
        for name, flows in COUNTS.items():

            def col(i: int, k: str, link: str = link) -> Any:
                c = f"flows[{i}].links.{link}.{k}"
                return df[c].astype(float).fillna(0.0) if c in df.columns else 0.0

            arrived = sum(col(i, "arrived_pkts") for i in flows[d])
            dropped = sum(col(i, "dropped_pkts") for i in flows[d])
            df[f"drop_{name}_{d}"] = 100.0 * dropped / arrived.where(arrived > 0)
    return df


def numbers(ctx: Any) -> dict[str, Any]:
    """``ci POINT DISCIPLINE METRIC``: the 95 % half-width of each cell's per-seed values."""
    df = ctx.frames["sweep"]
    out: dict[str, Any] = {}
    for (p, disc), g in df.groupby(["point", "discipline"], sort=False):
        for d in DIRECTIONS:
            for name in COUNTS:
                out[f"ci {p} {disc} {name}_{d}"] = seed_spread(g[f"drop_{name}_{d}"])
    return out


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
    cells = list(PUBLISHED)
    labels = [f"{r}\n{d}" for r, d in cells]
    x = range(len(cells))
    for ax, disc, k in ((axes[0], "CoDel", 0), (axes[1], "tail drop", 1)):
        ax.plot(list(x), [PUBLISHED[c][k] for c in cells], "k*", ms=12, label="slides")
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
