"""``consumer-edge``: the CoDel article's consumer edge (Nichols & Jacobson 2012; the BITAG
slides' table, seed 001), ``scenarios/consumer-edge.toml``.

A symmetric 512 kb/s or 1.5 Mb/s edge link carries two-way 64 kb/s CBR, one infinite FTP
download, web browsing at 2 connections/s and 1-MB uploads separated by 5-15 s of idle time;
CoDel against tail drop. Below 1 Mb/s the TCP flows use 500-byte packets, as the authors'
script does. The slides do not give the buffer: it is swept, and the table is shown at the
buffer that brings tail drop's median delays closest to the slides'.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from aqmlab.reproduce.common import (
    FAILS,
    Reproduction,
    Table,
    fmt,
    numeric,
    over_range,
    seed_spread,
)
from aqmlab.reproduce.style import colour, delay_axis, log_ticks, title

NAME = "consumer-edge"
TITLE = "The consumer edge: CoDel vs tail drop at 512 kb/s and 1.5 Mb/s (Nichols & Jacobson 2012)"
RATES = {"512 kb/s": 512_000, "1.5 Mb/s": 1_500_000}
BUFFERS = [13, 25, 50, 100, 200]
BUFFERS_QUICK = [13, 50]
TCP_FLOWS = [0, 1, 2]  # download, uploads, web
DIRECTIONS = {"down": "bottleneck", "up": "bottleneck.rev"}
SOURCES = [
    "K. Nichols, V. Jacobson, Controlling Queue Delay, ACM Queue 2012, 'Consumer Edge'",
    "Nichols, CoDel slides (seed 001): the table of drop %, median delay, total MB and "
    "fairness of drops, CoDel (C) vs tail drop (T)",
]
METRICS = {
    "drop_pct": "pkt drop %",
    "median_ms": "median delay ms",
    "mb": "total MB",
    "fairness": "fairness of drops (Jain)",
}
#: "Much smaller queue": CoDel's median at most this fraction of tail drop's (the slides' C/T
#: are 17-25 %).
MUCH_SMALLER = 0.5
#: "Similar amounts of data": the slides' own C/T range, 92-103 %, ± half a printed percent.
SIMILAR_MB = (0.915, 1.035)
FIT_NOTE = (
    "the buffer was chosen to bring tail drop's medians closest to these; the slides do not give it"
)
#: The drop-rate differences' hypotheses and the run that tests them.
DROP_NOTE = (
    "hypotheses: the slides' buffer (the script's 13-packet BDP, not the fitted one) or what "
    "they counted (TCP packets only, or the direction's data flows only); test: `aqmlab "
    "reproduce consumer-edge-drops` grades the eight drop rates at 13 packets and tabulates "
    "every count at 13 and 25 packets: the 13-packet buffer moves our rates up toward the "
    "slides' but neither hypothesis brings all eight within their digits; the rest is "
    "unexplained"
)
# The slides' table: (CoDel, tail drop) per rate and direction.
PUBLISHED = {
    ("512 kb/s", "down"): {
        "drop_pct": (8, 8),
        "median_ms": (18, 73),
        "mb": (17, 18),
        "fairness": (0.87, 0.89),
    },
    ("512 kb/s", "up"): {
        "drop_pct": (1.5, 5.8),
        "median_ms": (9, 37),
        "mb": (12.8, 13.9),
        "fairness": (0.93, 0.89),
    },
    ("1.5 Mb/s", "down"): {
        "drop_pct": (3.5, 4.7),
        "median_ms": (8, 49),
        "mb": (37, 40),
        "fairness": (0.81, 0.96),
    },
    ("1.5 Mb/s", "up"): {
        "drop_pct": (1.4, 2.5),
        "median_ms": (0, 0),
        "mb": (22, 21),
        "fairness": (0.6, 0.71),
    },
}


def _rate_case(rate: str, bps: int, buffer: int) -> dict[str, Any]:
    sets: dict[str, Any] = {
        "dumbbell.bottleneck.rate": f"{bps}bps",
        "dumbbell.access_rate": f"{10 * bps}bps",
        "dumbbell.bottleneck.buffer": f"{buffer}p",
        "dumbbell.access_buffer": f"{10 * buffer}p",
    }
    if bps < 1_000_000:  # the script's 500-byte packets below 1 Mb/s
        for i in TCP_FLOWS:
            sets[f"flows[{i}].mss"] = 460
    return sets


def run(
    out: str,
    quick: bool,
    seeds: list[int],
    jobs: int | None,
    progress: bool,
    options: dict[str, Any],
) -> Reproduction:
    from aqmlab.reproduce.common import bundled_scenario, run_sweep_or_fail
    from aqmlab.sweepspec import QDISC_PREFIX, Axis, SweepSpec

    buffers = BUFFERS_QUICK if quick else BUFFERS
    duration = 100.0 if quick else 300.0
    os.makedirs(out, exist_ok=True)
    scenario = os.path.join(out, "scenario.toml")
    shutil.copyfile(bundled_scenario("consumer-edge"), scenario)
    cases = {
        f"{rate}, {b}p": _rate_case(rate, bps, b) for rate, bps in RATES.items() for b in buffers
    }
    qaxis = Axis([QDISC_PREFIX + "bottleneck"], [("codel",), ("droptail",)])
    spec = SweepSpec(
        scenario, [Axis.of_cases(cases, "point"), qaxis], {"duration": f"{duration:g}s"}, seeds
    )
    res = run_sweep_or_fail(spec, os.path.join(out, "sweep"), NAME, quick, jobs, progress)
    df = res.results

    def cell(rate: str, b: int, qdisc: str, direction: str) -> dict[str, float]:
        rows = df[(df["point"] == f"{rate}, {b}p") & (df[QDISC_PREFIX + "bottleneck"] == qdisc)]
        link = DIRECTIONS[direction]
        enq = rows[f"{link}.enqueued_pkts"].astype(float)
        per_seed = {
            "drop_pct": 100 * rows[f"{link}.dropped_pkts"] / enq.where(enq > 0),
            "median_ms": rows[f"{link}.sojourn_ms.p50"],
            "mb": rows[f"{link}.delivered_bytes"] / 1e6,
        }
        if f"{link}.jain_drop_rate" in rows:
            per_seed["fairness"] = rows[f"{link}.jain_drop_rate"]
        out = {m: float(per_seed[m].mean()) if m in per_seed else float("nan") for m in METRICS}
        out["spread"] = {m: seed_spread(v) for m, v in per_seed.items()}
        return out

    table_cells = {
        (rate, b, q, d): cell(rate, b, q, d)
        for rate in RATES
        for b in buffers
        for q in ("codel", "droptail")
        for d in DIRECTIONS
    }
    # The buffer whose tail-drop medians are closest to the slides' (sum of |error| in ms).
    best = {}
    for rate in RATES:
        err = {
            b: sum(
                abs(
                    table_cells[(rate, b, "droptail", d)]["median_ms"]
                    - PUBLISHED[(rate, d)]["median_ms"][1]
                )
                for d in DIRECTIONS
            )
            for b in buffers
        }
        best[rate] = min(err, key=err.get)

    rows, claims = [], []
    for rate in RATES:
        b = best[rate]
        for d in DIRECTIONS:
            c, t = table_cells[(rate, b, "codel", d)], table_cells[(rate, b, "droptail", d)]
            pub = PUBLISHED[(rate, d)]
            for m, label in METRICS.items():
                ratio = c[m] / t[m] if t[m] else float("nan")
                pratio = pub[m][0] / pub[m][1] if pub[m][1] else float("nan")
                rows.append(
                    [f"{rate} {d} ({b}p)", label, c[m], t[m], ratio, pub[m][0], pub[m][1], pratio]
                )
    # Every cell of the sweep (every rate, direction and buffer): the slides' claims are about
    # the edge link, not about the buffer we fitted.
    pairs = {
        f"{rate} {d} {b}p": (
            table_cells[(rate, b, "codel", d)],
            table_cells[(rate, b, "droptail", d)],
        )
        for rate in RATES
        for b in buffers
        for d in DIRECTIONS
    }
    swapped = {k: (t, c) for k, (c, t) in pairs.items()}
    lo, hi = SIMILAR_MB

    def no_more_drops(x: Any) -> bool:
        return x[0]["drop_pct"] <= x[1]["drop_pct"]

    def much_smaller(x: Any) -> bool:
        return x[0]["median_ms"] <= MUCH_SMALLER * x[1]["median_ms"]

    def similar(x: Any) -> bool:
        return bool(x[1]["mb"]) and lo <= x[0]["mb"] / x[1]["mb"] <= hi

    claims += [
        over_range(
            "CoDel never drops at a higher rate than tail drop",
            "slides (seed 001)",
            "packet drop %, CoDel ≤ tail drop, every rate × direction × buffer",
            "C ≤ T everywhere",
            no_more_drops,
            pairs,
            "the arms swapped (tail drop never drops more than CoDel)",
            swapped,
            describe=lambda x: f"{fmt(x[0]['drop_pct'])} vs {fmt(x[1]['drop_pct'])} %",
        ),
        over_range(
            "CoDel keeps a much smaller queue",
            "slides (seed 001)",
            f"median delay, CoDel ≤ {MUCH_SMALLER:g} × tail drop's, every rate × direction × "
            "buffer",
            "C/T 17-25 % (0/0 at 1.5 Mb/s up)",
            much_smaller,
            pairs,
            "the arms swapped",
            swapped,
            describe=lambda x: f"{fmt(x[0]['median_ms'])} vs {fmt(x[1]['median_ms'])} ms",
            note=f"'much smaller' read as at most {MUCH_SMALLER:g} × (the slides' C/T are "
            "17-25 %); where both medians are 0 (as the slides' 1.5 Mb/s up) it holds on "
            "both arms",
        ),
        over_range(
            "CoDel transfers similar amounts of data",
            "slides (seed 001)",
            f"total MB, C/T within {lo:g}-{hi:g}, every rate × direction × buffer",
            "C/T 92-103 %",
            similar,
            pairs,
            "the arms swapped (T/C)",
            swapped,
            describe=lambda x: fmt(x[0]["mb"] / x[1]["mb"]) if x[1]["mb"] else "–",
            note=f"'similar' read as the slides' own C/T range, 92-103 % printed to the "
            f"percent: {lo:g}-{hi:g}; a ratio band holds on the swapped arms too when C ≈ T",
        ),
    ]
    # The slides' 32 numbers, each graded at the best-fitting buffer.
    for rate in RATES:
        b = best[rate]
        for d in DIRECTIONS:
            pub = PUBLISHED[(rate, d)]
            for qi, (q, qname) in enumerate((("codel", "CoDel"), ("droptail", "tail drop"))):
                ours = table_cells[(rate, b, q, d)]
                for m, label in METRICS.items():
                    claims.append(
                        numeric(
                            f"{rate} {d}, {qname}: {label}",
                            "slides (seed 001) table",
                            f"{label} at the {DIRECTIONS[d]} link, buffer {b}p (fitted)",
                            str(pub[m][qi]),
                            ours[m],
                            spread=ours["spread"].get(m),
                            explanation=FIT_NOTE
                            if m == "median_ms" and q == "droptail"
                            else (
                                f"hypothesis: run length (the slides do not give theirs; "
                                f"ours {duration:g} s); test: the full run (300 s) scales "
                                "it"
                            )
                            if m == "mb"
                            else DROP_NOTE
                            if m == "drop_pct"
                            else "",
                        )
                    )
    if quick:
        for c in claims:
            c.add_note(f"quick run: {duration:g} s")
    table = Table(
        "CoDel (C) vs tail drop (T) at the best-fitting buffer, beside the slides",
        [
            "rate, direction (buffer)",
            "metric",
            "C",
            "T",
            "C/T",
            "slides C",
            "slides T",
            "slides C/T",
        ],
        rows,
        note="Fairness of drops: Jain's index of the flows' drop rates at that "
        "direction (drops ÷ packets each flow offered there), 1 when every flow "
        "loses the same share of what it sends.",
    )
    sweep_rows = [
        [rate, b, q, d, v["drop_pct"], v["median_ms"], v["mb"], v["fairness"]]
        for (rate, b, q, d), v in table_cells.items()
    ]
    sweep_table = Table(
        "Every buffer (means over seeds)",
        ["rate", "buffer p", "qdisc", "direction", "drop %", "median ms", "MB", "fairness"],
        sweep_rows,
    )
    discussion = [
        "The slides give neither the buffer nor the run length; we ran "
        f"{duration:g} s and swept the buffer ({buffers} packets), and show the table at the "
        f"buffer whose tail-drop medians come closest to the slides' ({best}).",
        "Web traffic is aqmlab's model of ns-2's PackMime-HTTP at 2 connections/s "
        "(HTTP/1.0, docs/models/packmime.md), as the authors' script used; the slides do not "
        "say which PackMime options they ran, and their totals and fairness depend on it.",
    ]
    if claims[0].verdict == FAILS:
        discussion.append(
            "CoDel drops at a higher rate than tail drop in some cells here, "
            "against the slides' claim: see the table."
        )
    figures = _figures(out, table_cells, buffers)
    return Reproduction(
        NAME,
        TITLE,
        SOURCES,
        {
            "rates": RATES,
            "buffers": buffers,
            "duration_s": duration,
            "scenario": "scenarios/consumer-edge.toml",
            "tcp_mss": "1460 (460 below 1 Mb/s)",
        },
        claims,
        [table, sweep_table],
        figures,
        {
            "best_buffer": best,
            "cells": {f"{r}|{b}|{q}|{d}": v for (r, b, q, d), v in table_cells.items()},
        },
        discussion,
        quick,
        seeds,
        commands=[f"aqmlab reproduce {NAME}" + (" --quick" if quick else "")],
    )


def _figures(out, cells, buffers) -> list[str]:
    from aqmlab.plot import _plt, _save

    plt = _plt()
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    for i, rate in enumerate(RATES):
        for j, d in enumerate(DIRECTIONS):
            ax = axes[i][j]
            for q, name in (("droptail", "tail drop"), ("codel", "CoDel")):
                ax.plot(
                    buffers,
                    [cells[(rate, b, q, d)]["median_ms"] for b in buffers],
                    "o-",
                    color=colour(name),
                    label=f"{name}, aqmlab",
                )
            for qi, name in ((1, "tail drop"), (0, "CoDel")):
                ax.axhline(
                    PUBLISHED[(rate, d)]["median_ms"][qi],
                    color=colour(name),
                    ls=":",
                    label=f"{name}, slides",
                )
            ax.set(title=f"{rate}, {d}", ylabel="median delay (ms)")
            ax.set_xscale("log")
            log_ticks(ax, buffers)
            delay_axis(ax)
            ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("buffer (packets)")
    axes[0][0].legend(fontsize=7)
    title(fig, "Consumer edge: median delay vs buffer", "NJ12 'Consumer Edge' table")
    files = _save(fig, os.path.join(out, "figures"), "median_vs_buffer")
    return [f for f in files if f.endswith(".png")]
