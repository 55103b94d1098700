"""concatenated-queues' own code: the figure of the two hops' queues.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder").
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.style import colour, title


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    plt = _plt()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    cases = list(g["case"])
    x = range(len(cases))
    for off, col, hatch, label in (
        (-0.2, "hop1_ms", "", "hop1 (10 Mb/s)"),
        (0.2, "hop2_ms", "//", "hop2 (5 Mb/s)"),
    ):
        ax.bar(
            [i + off for i in x],
            g[col],
            0.4,
            color=[colour(c) for c in cases],
            hatch=hatch,
            edgecolor="black",
            label=label,
        )
    ax.set_xticks(list(x), [c.replace(" (", "\n(") for c in cases], fontsize=8)
    ax.set(ylabel="median sojourn (ms)")
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    title(
        fig,
        "Where the queue forms with two hops in series",
        "BITAG slide 'CoDel Can't Fix Concatenated Queues'",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "concatenated")
    return [f for f in files if f.endswith(".png")]
