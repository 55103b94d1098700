"""cellular-uplink's own code: the figure.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder"):
the MB through the downlink (``[[derive]]``) and tail drop's extra over CoDel (``[numbers]``).
"""

from __future__ import annotations

from typing import Any

#: The uplinks in the figure's order (experiment.toml's cases).
UPLINKS = ["constant 12.032 Mb/s", "Verizon LTE uplink trace"]


def figures(ctx: Any) -> list[str]:
    import os

    from aqmlab.plot import _plt, _save
    from aqmlab.reproduce.style import colour, title

    g = ctx.table
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    uplinks = UPLINKS
    x = range(len(uplinks))
    for d, off in (("tail drop", -0.2), ("CoDel", 0.2)):
        vals = [g[(g["uplink"] == u) & (g["discipline"] == d)] for u in uplinks]
        axes[0].bar(
            [i + off for i in x],
            [float(v["mb"].iloc[0]) for v in vals],
            0.4,
            color=colour(d),
            label=d,
        )
        axes[1].bar(
            [i + off for i in x],
            [float(v["median_ms"].iloc[0]) for v in vals],
            0.4,
            color=colour(d),
            label=d,
        )
    for ax, label in zip(axes, ("MB through the downlink", "median sojourn (ms)")):
        ax.set_xticks(list(x), uplinks, fontsize=8)
        ax.set(ylabel=label, xlabel="reverse link")
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    title(
        fig,
        "Verizon LTE downlink with a constant or a traced uplink",
        "CS244 2015's text beside its plots 'delay-4g', 'mbytes-4g'",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "uplink")
    return [f for f in files if f.endswith(".png")]
