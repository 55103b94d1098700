"""mtu-low-rates' own code: the 1500-B ÷ 500-B delay ratio per rate, and the figure.

experiment.toml and claims.toml hold the rest (docs/reproductions.md, "A reproduction's folder").
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.style import colour, log_ticks, title

KBPS = {
    "64 kb/s": 64,
    "128 kb/s": 128,
    "256 kb/s": 256,
    "512 kb/s": 512,
    "1 Mb/s": 1000,
    "1.5 Mb/s": 1500,
}


def numbers(ctx: Any) -> dict[str, Any]:
    """``mtu_ratio``: rate -> median sojourn with 1500-B packets ÷ with 500-B packets;
    ``mtu_diff_ms``: the same as a difference in ms."""
    g = ctx.table
    out, diff = {}, {}
    for rate in dict.fromkeys(g["rate"]):
        big = g[(g["rate"] == rate) & (g["packet"] == "1500 B")]["median_ms"]
        small = g[(g["rate"] == rate) & (g["packet"] == "500 B")]["median_ms"]
        if len(big) == 1 and len(small) == 1 and float(small.iloc[0]) > 0:
            out[rate] = float(big.iloc[0]) / float(small.iloc[0])
            diff[rate] = float(big.iloc[0]) - float(small.iloc[0])
    return {"mtu_ratio": out, "mtu_diff_ms": diff}


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    g = ctx.table
    plt = _plt()
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for packet, style in (("500 B", "o-"), ("1500 B", "s--")):
        sub = g[g["packet"] == packet]
        x = [KBPS[r] for r in sub["rate"]]
        axes[0].plot(
            x, sub["median_ms"], style, color=colour("CoDel"), label=f"CoDel, {packet} packets"
        )
        axes[1].plot(x, sub["util"], style, color=colour("CoDel"), label=f"CoDel, {packet} packets")
    for ax, label in zip(axes, ("median sojourn (ms)", "utilization")):
        ax.set_xscale("log")
        log_ticks(ax, list(KBPS.values()))
        ax.set(xlabel="bottleneck rate (kb/s)", ylabel=label)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    title(
        fig,
        "500-B against 1500-B packets at low rates",
        "BITAG slide 'Results: Range of static link rates', low",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "mtu_low_rates")
    return [f for f in files if f.endswith(".png")]
