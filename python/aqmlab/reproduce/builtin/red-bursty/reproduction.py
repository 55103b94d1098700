"""red-bursty's own code: the figures.

experiment.toml declares every metric (docs/reproductions.md, "Metrics as data"): the
throughput, Little's-law average queue and node 5's share after the 1-s warm-up ([[window]],
[[derive]]), ns-2.35's runs of the same set-ups read from its CSVs and named as ours
([frames.ns2-*], derive ``from`` + ``format``), each point's means over seeds ([frames] of
``means``), the range claims' arms with one discipline's curve interpolated at the other's
points (``match``), node 5's ratios and means ([numbers._small], [numbers._ratios], ``sort =
false``), ours and ns-2.35's by the same declarations (``gather``: ns-2.35's under ``_ns2``,
the shape the reference tests read), the buffer hypothesis's outcome ([numbers._buffer_test],
``setup_change``: ours and ns-2.35 on the set-up and with a 100-packet buffer), the report's
tables ([[report_table]]: ours beside ns-2.35's) and its discussion, with ``when`` where a
paragraph depends on the verdicts and the tests, and Figs. 12 and 14's paragraphs naming the
tail-drop runs at each point a claim fails (a paragraph's ``lists`` over part 2's rows);
claims.toml the hypotheses' tests (each claim's predicate on ns-2.35's runs, the bootstrap over
ns-2.35's seeds).
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import STALLED_FRACTION, stalled
from aqmlab.reproduce.style import colour, delay_axis, title


def figures(ctx: Any) -> list[str]:
    f = ctx.frames
    return _figures(ctx.out, f["part1"], f["part2"], f["part1-ns2"]) + _fig1214(
        ctx.out, f["part2"], f["part2-ns2"]
    )


def _figures(out, g1, g2, n1) -> list[str]:
    from aqmlab.plot import _plt, _save

    plt = _plt()
    figdir = os.path.join(out, "figures")
    files: list[str] = []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for kind, style in (("tail drop", "s--"), ("RED", "o-")):
        g = g1[g1["kind"] == kind].sort_values("avg_queue")
        live = g[~g["throughput"].map(stalled)]
        dead = g[g["throughput"].map(stalled)]
        ax.plot(live["avg_queue"], live["throughput"], style, color=colour(kind), label=kind)
        if len(dead):
            ax.plot(
                dead["avg_queue"],
                dead["throughput"],
                "x",
                ms=9,
                color=colour(kind),
                label=f"{kind}: {len(dead)} stalled runs (< {STALLED_FRACTION:g} of the link)",
            )
        n = n1[n1["kind"] == kind]
        ax.plot(
            n["avg_queue"],
            n["throughput"],
            style[0],
            mfc="none",
            color=colour(kind),
            label=f"{kind} (ns-2.35)",
        )
    ax.set(xlabel="average queue (packets)", ylabel="throughput (fraction of 45 Mb/s)")
    ax.set_xlim(left=0)
    ax.set_ylim(0, 1.05)
    title(ax, "Throughput vs average queue", "FJ93 Fig. 5; CS244 Seeing RED Fig. 4")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    files += _save(fig, figdir, "throughput_vs_queue")

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=False)
    for i, kind in enumerate(("tail drop", "RED")):
        g = g2[g2["kind"] == kind]
        x = [int(p.split()[-1].rstrip("p")) for p in g["point"]]
        c = colour(kind)
        axes[i].plot(x, g["n5_share_pct"], "o-", color=c, label="node 5 throughput %")
        axes[i].plot(
            x, g["n5_drop_share_pct"], "s--", color=c, alpha=0.6, label="node 5 drop share %"
        )
        axes[i].set(
            xlabel="buffer (packets)" if kind == "tail drop" else "min_th (packets)",
            ylabel="%",
            title=f"{kind}: node 5",
        )
        axes[i].set_ylim(bottom=0)
        ax2 = axes[i].twinx()
        ax2.plot(x, g["avg_queue"], ":", color="grey", label="average queue")
        ax2.set_ylabel("average queue (packets)")
        delay_axis(ax2)
        axes[i].legend(fontsize=8, loc="upper left")
        axes[i].grid(True, alpha=0.3)
    title(fig, "Bias against bursty traffic", "FJ93 Figs. 11-14")
    # Room between the panels for the twin axes' label, which would otherwise be drawn over
    # the next panel's.
    fig.tight_layout()
    files += _save(fig, figdir, "node5")
    return [f for f in files if f.endswith(".png")]


def _fig1214(out: str, g2: Any, ns2: Any) -> list[str]:
    """FJ93's Figs. 12 (tail drop) and 14 (RED) as they draw them: node 5's throughput, the
    average queue and the link's utilization against the buffer (min_th), ours in lines and
    ns-2.35's on the same set-up in hollow markers, one colour per discipline."""
    from aqmlab.plot import _plt, _save

    plt = _plt()
    fig, axes = plt.subplots(3, 2, figsize=(11, 8.5), sharex="col")
    rows = (
        ("n5_share_pct", "node 5 throughput (%)"),
        ("avg_queue", "average queue (packets)"),
        ("utilization", "utilization"),
    )
    for j, (kind, fig_no) in enumerate((("tail drop", "Fig. 12"), ("RED", "Fig. 14"))):
        g, n = g2[g2["kind"] == kind], ns2[ns2["kind"] == kind]
        x = [int(p.split()[-1].rstrip("p")) for p in g["point"]]
        xn = [int(p.split()[-1].rstrip("p")) for p in n["point"]]
        c = colour(kind)
        for i, (col, label) in enumerate(rows):
            ax = axes[i][j]
            ax.plot(x, g[col], "o-", color=c, label=f"{kind} (aqmlab)")
            ax.plot(xn, n[col], "s", mfc="none", color=c, label=f"{kind} (ns-2.35)")
            ax.set_ylabel(label)
            if col == "utilization":
                ax.set_ylim(0.8, 1.01)
            else:
                delay_axis(ax)
            ax.grid(True, alpha=0.3)
        axes[0][j].set_title(f"{kind} ({fig_no})", fontsize=10)
        axes[0][j].legend(fontsize=8)
        axes[-1][j].set_xlabel("buffer (packets)" if kind == "tail drop" else "min_th (packets)")
    title(fig, "Node 5, average queue and utilization", "FJ93 Figs. 12 and 14")
    files = _save(fig, os.path.join(out, "figures"), "fig12_fig14")
    return [f for f in files if f.endswith(".png")]
