"""red-vs-codel's own code: the goodput metric, the verdict-dependent comparison and the figure.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder").
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import FAILS
from aqmlab.reproduce.style import colour, title

CCS = ["cubic", "vegas"]
QDISCS = ["tail drop", "RED", "CoDel"]


def derive(df: Any, ctx: Any) -> Any:
    """``goodput_mbps``: every flow's bytes over one time base, the run's length. The flows'
    own goodputs are over each flow's lifetime, and summing them overstates the link (1.03
    Mb/s on 1 Mb/s)."""
    n_flows = ctx.params["apps"] + 1
    bytes_cols = [f"flows[{i}].delivered_bytes" for i in range(n_flows)]
    df["goodput_mbps"] = df[bytes_cols].sum(axis=1) * 8 / ctx.params["duration_s"] / 1e6
    return df


def discussion(ctx: Any) -> list[str]:
    if ctx.claims["delay-comparable"].verdict != FAILS:
        return []
    g = ctx.table
    red_d = g[g["discipline"] == "RED"]["delay_mean"].median()
    codel_d = g[g["discipline"] == "CoDel"]["delay_mean"].median()
    return [
        f"Here RED holds a longer queue than CoDel (median over cells of the mean delay: "
        f"{red_d:.0f} ms against {codel_d:.0f} ms), so their delays are not comparable as "
        "the summary of the paper says. Probable cause: RED's thresholds. Ours are ns-2's "
        "automatic ones; the paper's RED settings are not in our documents, and a RED "
        "configured for this link's 540 ms RTT would hold a different queue."
    ]


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
    title(fig, "RED vs CoDel vs tail drop under Pareto on/off TCP traffic", "Kuhn et al. 2014")
    fig.tight_layout()  # the top row's axis labels were drawn over the bottom row's titles
    files = _save(fig, os.path.join(ctx.out, "figures"), "delay_goodput_fct")
    return [f for f in files if f.endswith(".png")]
