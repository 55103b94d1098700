"""lstf-reordering's figure: utilization and recoveries per lost segment, by loss detection.

experiment.toml declares the rest (docs/reproductions.md, "Metrics as data"): the 4 bulk
flows' sums (``[[derive]]``s with ``sum`` over flows 0-3) and recoveries per lost segment
(``div``); claims.toml grades them.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.style import colour, title

DETECTION = ["DupThresh 3", "DupThresh 10", "DupThresh 50", "DupThresh 500", "RACK"]


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table.set_index("case")
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    x = list(range(len(DETECTION)))
    for d, off in (("CoDel", -0.2), ("LSTF-CoDel", 0.2)):
        rows = [g.loc[f"{d}, {k}"] for k in DETECTION]
        axes[0].bar([i + off for i in x], [r["util"] for r in rows], 0.4, color=colour(d), label=d)
        axes[1].bar(
            [i + off for i in x], [r["fr_per_loss"] for r in rows], 0.4, color=colour(d), label=d
        )
    for ax, label in zip(axes, ("utilization", "fast recoveries per lost segment")):
        # One word a line: "DupThresh 50" and "DupThresh 500" side by side would overlap.
        ax.set_xticks(x, [k.replace(" ", "\n") for k in DETECTION], fontsize=8)
        ax.set(ylabel=label, xlabel="the bulk flows' loss detection")
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].legend(fontsize=8)
    title(fig, "LSTF-CoDel's reordering and TCP's loss detection", "NJ12 Fig. 7's link")
    files = _save(fig, os.path.join(ctx.out, "figures"), "reordering")
    return [f for f in files if f.endswith(".png")]
