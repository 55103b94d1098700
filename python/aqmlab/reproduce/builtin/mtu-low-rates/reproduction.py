"""mtu-low-rates' figure: median sojourn and utilization by rate, 500-B against 1500-B packets.

experiment.toml declares the rest (docs/reproductions.md, "Metrics as data"): the 1500-B ÷
500-B median per rate and their difference (``[numbers.mtu_ratio]``, ``[numbers.mtu_diff_ms]``:
runs paired across the packet sizes); claims.toml grades them.
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
