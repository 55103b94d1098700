"""red-vs-codel's own code: the figure. experiment.toml and claims.toml hold the rest: the
hypothesis tests of the delay claim (claims.toml's test = "arms", ns-2.35's runs of
ns2-kuhn14.csv read as experiment.toml's [frames.ns2]), their outcomes in results.json's
numbers, the threshold rule and ARED's band, and the goodput per run (a ``[[derive]]``'s
``sum``); docs/reproductions.md, "A reproduction's folder" and "Hypothesis tests".
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.style import colour, title

CCS = ["cubic", "vegas"]
QDISCS = ["tail drop", "RED", "CoDel"]


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    plt = _plt()
    fig, axes = plt.subplots(2, 3, figsize=(13, 7))
    for i, cc in enumerate(CCS):
        for j, (col, label) in enumerate(
            (
                ("delay_mean", "mean queueing delay (ms)"),
                ("goodput", "goodput (Mb/s)"),
                ("fct", "FTP completion time (s)"),
            )
        ):
            ax = axes[i][j]
            for d in QDISCS:
                sub = g[(g["tcp"] == cc) & (g["discipline"] == d)]
                ax.plot(list(sub["buffer"]), sub[col], "o-", color=colour(d), label=d)
            ax.set(title=f"{cc}", xlabel="buffer (packets)", ylabel=label)
            ax.set_ylim(bottom=0)
            ax.grid(True, alpha=0.3)
    axes[0][0].legend(fontsize=8)
    title(
        fig,
        "RED vs CoDel vs tail drop under Pareto on/off TCP traffic",
        "Kuhn et al. 2014; no figure in the stored source, slides 1-10 of 21",
    )
    fig.tight_layout()  # the top row's axis labels were drawn over the bottom row's titles
    files = _save(fig, os.path.join(ctx.out, "figures"), "delay_goodput_fct")
    return [f for f in files if f.endswith(".png")]
