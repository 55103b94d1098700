"""The example's figure: median and p99 sojourn by buffer, one line per discipline."""

from __future__ import annotations

import os
from typing import Any


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save
    from aqmlab.reproduce.style import colour, title

    g = ctx.table
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 4))
    for d in ("tail drop", "CoDel"):
        sub = g[g["discipline"] == d]
        ax.plot(list(sub["buffer"]), sub["median_ms"], "o-", color=colour(d), label=f"{d} median")
        ax.plot(list(sub["buffer"]), sub["p99_ms"], "s--", color=colour(d), label=f"{d} p99")
    ax.set(xlabel="buffer (packets)", ylabel="queueing delay (ms)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    title(ax, "Bottleneck delay by buffer size", "RFC 8289 §1")
    files = _save(fig, os.path.join(ctx.out, "figures"), "delay_by_buffer")
    return [f for f in files if f.endswith(".png")]
