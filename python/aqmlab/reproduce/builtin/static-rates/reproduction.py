"""static-rates' own code: the two hypothesis tests (the interval sweep's, on the grid and on the
pooled boxes, and the slow-buffer sweep's), what annotate() does with their outcomes, the
tables, the verdict-free discussion of long RTTs and the figures.

experiment.toml declares the per-run columns (load, discipline, rate, RTT, median sojourn,
utilization) and every number the claims read (the grid's medians by rate and by RTT, the
slides' pooled boxes, the claims' {arm} paths); the three scenarios and claims.toml hold the
rest (docs/reproductions.md, "A reproduction's folder"). What stays here cannot be data: the
hypothesis tests compare two sweeps' runs after swapping some of them and name their outcome
in words (issue 19's data-declared hypothesis tests are another job's), annotate() rewrites
verdicts' explanations from those outcomes, and the tables, the discussion and the figures
are the report's layout.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import FAILS, Table, explanation_text, fmt, not_graded
from aqmlab.reproduce.style import colour, log_ticks, title

#: The slides split the rates in two: "Results: Range of static link rates (high)" (the
#: article's 3-100 Mb/s) and "(low)" (below).
HIGH_KBPS = 3000
RTT_SWEEP_KBPS = 10_000
#: The disciplines, in the tables' order (experiment.toml's discipline column).
QDISCS = ("tail drop", "RED", "CoDel")
#: The grid's sweeps (experiment.toml's numbers read the same).
GRID_SWEEPS = ("sweep-1FTP", "sweep-4FTPs_web", "sweep-4FTPs_web_CBR")
#: The sweep that tests the interval hypothesis (CoDel's interval 500 ms at RTT 500 ms, load
#: "4 FTPs + web"): not part of the grid, the tables or the figures.
INTERVAL_SWEEP = "sweep-interval"
INTERVAL_LOAD = "4 FTPs + web"
#: The sweep that tests the slow-rate hypothesis ([hypothesis.slow-buffer]: 64 kb/s with an
#: 8-packet buffer, tail drop and CoDel, the same load): not part of the grid either.
SLOW_SWEEP = "sweep-slow-buffer"
#: The claims whose failing points are the slowest rate's ties, which that sweep tests.
SLOW_TIE_CLAIMS = (
    "codel-delay-not-above-taildrop",
    "codel-delay-below-taildrop",
    "pooled-codel-delay-below-taildrop",
)
CONFIRMED, REFUTED, UNEXPLAINED = "confirmed", "refuted", "unexplained"
#: "About 0.9" (claims.toml): 0.9 less half a unit of its one printed digit.
ABOUT_09 = 0.85


def _all(ctx: Any) -> Any:
    """Every run of the grid (the sweeps this mode ran), with experiment.toml's columns."""
    return pd_concat([ctx.frames[s] for s in GRID_SWEEPS if s in ctx.frames])


def _mbps(r: float) -> str:
    return f"{r / 1000:g} Mb/s"


def _cell(r: float, t: float) -> str:
    """A grid point's name in experiment.toml's _grid (its key's last template)."""
    return f"{_mbps(r)}, RTT {t:g} ms"


def grid_value(ctx: Any, r: float, t: float, d: str, col: str) -> float:
    """The grid's median of ``col`` at rate ``r``, RTT ``t``, discipline ``d``."""
    return float(ctx.numbers["_grid"][d][col][_cell(r, t)])


def numbers(ctx: Any) -> dict[str, Any]:
    """The hypothesis tests' outcomes (claims.toml's explanations read them)."""
    df = _all(ctx)
    rates = list(ctx.params["rates_kbps"])
    fast = [r for r in rates if r >= HIGH_KBPS]
    ctx.state["df"] = df
    return {
        "_slow_buffer_test": slow_buffer_test(
            ctx.numbers["_grid"], ctx.frames.get(SLOW_SWEEP), min(rates)
        ),
        "_interval_test": interval_test(df, ctx.frames.get(INTERVAL_SWEEP)),
        "_pooled_interval_test": pooled_interval_test(
            df, ctx.frames.get(INTERVAL_SWEEP), fast, int(df["load"].nunique())
        ),
    }


def pooled_interval_test(df: Any, longer: Any, rates: list[float], loads: int) -> str:
    """The interval hypothesis on the pooled claim (claims.toml, pooled-codel-util-09): CoDel's
    pooled median utilization per rate as run, and with the runs the interval sweep repeats
    (RTT 500 ms, load '4 FTPs + web', each seed) replaced by those with a 500 ms interval."""
    if longer is None or not len(longer):
        return "the interval sweep was not run"
    codel = df[(df["discipline"] == "CoDel") & df["rate_kbps"].isin(rates)]
    rerun = (codel["load"] == INTERVAL_LOAD) & (codel["rtt_ms"] == 500)
    swapped = pd_concat([codel[~rerun], longer[longer["rate_kbps"].isin(rates)]])
    before = codel.groupby("rate_kbps")["util"].median()
    after = swapped.groupby("rate_kbps")["util"].median()
    pairs = [(r, float(before[r]), float(after[r])) for r in before.index if r in after.index]
    if not pairs:
        return "no rate ≥ 3 Mb/s was run"
    low_before = [r for r, b, _ in pairs if b < ABOUT_09]
    low_after = [r for r, _, a in pairs if a < ABOUT_09]
    if not low_before:
        verdict = f"nothing to explain: every pooled median is ≥ {ABOUT_09:g} as run"
    elif not low_after:
        verdict = f"supports: with the longer interval every pooled median reaches {ABOUT_09:g}"
    elif len(low_after) < len(low_before):
        verdict = f"explains part: still under {ABOUT_09:g} at " + ", ".join(
            _mbps(r) for r in low_after
        )
    else:
        verdict = f"refuted: under {ABOUT_09:g} at the same rates"
    each = ", ".join(f"{_mbps(r)} {fmt(b)} → {fmt(a)}" for r, b, a in pairs)
    rest = (
        f"; the sweep reruns only '{INTERVAL_LOAD}' at RTT 500 ms, so the other "
        f"{loads - 1} loads' runs at 500 ms keep the 100 ms interval in the pool"
        if loads > 1
        else ""
    )
    return (
        f"{verdict}: CoDel's pooled median utilization, with the {INTERVAL_LOAD} runs at RTT "
        f"500 ms as run → rerun with a 500 ms interval: {each}{rest}"
    )


def pd_concat(frames: list[Any]) -> Any:
    import pandas as pd

    return pd.concat(frames, ignore_index=True)


def interval_test(df: Any, longer: Any) -> str:
    """The outcome of the interval hypothesis (claims.toml, codel-util-09): CoDel's median
    utilization at RTT 500 ms, load '4 FTPs + web', with its 100 ms interval (the grid) and with
    500 ms (the interval sweep), per rate."""
    if longer is None or not len(longer):
        return "the interval sweep was not run"
    base = df[(df["load"] == INTERVAL_LOAD) & (df["rtt_ms"] == 500) & (df["discipline"] == "CoDel")]
    before = base.groupby("rate_kbps")["util"].median()
    after = longer[longer["load"] == INTERVAL_LOAD].groupby("rate_kbps")["util"].median()
    pairs = [(r, float(before[r]), float(after[r])) for r in after.index if r in before.index]
    if not pairs:
        return "the grid has no run at RTT 500 ms with that load"
    if all(a >= ABOUT_09 for _, _, a in pairs) and any(b < ABOUT_09 for _, b, _ in pairs):
        verdict = "supported"
    elif all(a > b for _, b, a in pairs):
        verdict = f"in part (the longer interval gains at every rate, not all reach {ABOUT_09:g})"
    else:
        verdict = "not supported"
    each = ", ".join(f"{_mbps(r)} {fmt(b)} → {fmt(a)}" for r, b, a in pairs)
    return (
        f"{verdict}: CoDel's median utilization at RTT 500 ms ({INTERVAL_LOAD}), "
        f"interval 100 ms → 500 ms: {each}"
    )


def slow_buffer_test(grid: dict[str, Any], bigger: Any, rate: float) -> dict[str, Any]:
    """The outcome of [hypothesis.slow-buffer] (claims.toml): at the slowest rate the grid's
    buffer (one BDP at 100 ms) is 2 packets, so CoDel has no queue to shorten and ties tail
    drop. With 8 packets (the slow-buffer sweep, load '4 FTPs + web'), per RTT: does CoDel's
    median delay fall below tail drop's? ``confirmed`` where it does at every RTT at which the
    grid ties, ``refuted`` at none, ``unexplained`` at some; the grid's ties are checked too
    (a failing point that is no tie is not what the hypothesis is about)."""
    out: dict[str, Any] = {"outcome": UNEXPLAINED, "rtts": []}
    if bigger is None or not len(bigger):
        out["text"] = "the slow-buffer sweep was not run"
        return out
    runs = bigger[bigger["load"] == INTERVAL_LOAD]
    med = runs.groupby(["rtt_ms", "discipline"])["p50_ms"].median()
    rows, ties, passed = [], [], []
    for rtt in sorted(set(runs["rtt_ms"])):
        cell = _cell(rate, rtt)
        if cell not in grid.get("CoDel", {}).get("p50_ms", {}) or (rtt, "CoDel") not in med.index:
            continue
        g_c, g_t = (float(grid[d]["p50_ms"][cell]) for d in ("CoDel", "tail drop"))
        b_c, b_t = (float(med.loc[(rtt, d)]) for d in ("CoDel", "tail drop"))
        tie = g_c == g_t
        ties += [rtt] if tie else []
        passed += [rtt] if tie and b_c < b_t else []
        rows.append(
            f"RTT {rtt:g} ms: {fmt(g_c)} vs {fmt(g_t)} in the grid, {fmt(b_c)} vs {fmt(b_t)} with 8"
        )
    if ties and len(passed) == len(ties):
        outcome = CONFIRMED
    elif ties and not passed:
        outcome = REFUTED
    else:
        outcome = UNEXPLAINED
    out.update(outcome=outcome, rtts=passed)
    out["text"] = (
        f"CoDel vs tail drop median delay (ms) at {rate:g} kb/s, in the grid (2 packets, every "
        f"load) and with 8 packets ({INTERVAL_LOAD}): {'; '.join(rows) or 'no RTT run in both'}; "
        f"CoDel below tail drop with 8 "
        f"packets at {len(passed)} of the {len(ties)} RTTs where the grid ties: {outcome}"
    )
    return out


#: Claims over rates this run may not have: (their published value, the lowest rate they name).
_RATE_CLAIMS = {
    "codel-above-red-higher": ("CoDel > RED", "45 Mb/s"),
    "pooled-codel-util-09": ("≥ ~0.9", "3 Mb/s"),
}


def annotate(ctx: Any) -> None:
    """A claim over rates this run did not include is not graded, and says why."""
    rates = ctx.params["rates_kbps"]
    for cid, (published, text) in _RATE_CLAIMS.items():
        c = ctx.claims[cid]
        if not c.points:
            ng = not_graded(
                c.claim,
                c.source,
                published,
                f"this run has no rate ≥ {text} (rates {rates} kb/s)",
            )
            ng.id, ng.location = c.id, c.location
            ctx.claims[cid] = ng
    # The slowest rate's ties: the slow-buffer sweep accounts for a claim only when every failing
    # point is at that rate and the larger buffer takes CoDel below tail drop at every RTT.
    test = ctx.numbers.get("_slow_buffer_test", {"outcome": UNEXPLAINED})
    slowest = _mbps(min(rates))
    for cid in SLOW_TIE_CLAIMS:
        c = ctx.claims.get(cid)
        if c is None or c.verdict != FAILS or not c.hypotheses:
            continue
        elsewhere = [p for p in c.failing if not p.startswith(slowest)]
        c.unexplained = test["outcome"] != CONFIRMED or bool(elsewhere)
        c.explanation = explanation_text(
            c.hypotheses,
            c.unexplained,
            ("failing points at other rates: " + "; ".join(elsewhere)) if elsewhere else "",
        )
    # The pooled claim: the interval sweep accounts for it only when it brings every pooled
    # median to 0.85 and reran every run at RTT 500 ms of the pool (one load).
    c = ctx.claims.get("pooled-codel-util-09")
    if c is not None and c.verdict == FAILS and c.hypotheses:
        outcome = ctx.numbers["_pooled_interval_test"]
        loads = int(ctx.state["df"]["load"].nunique())
        c.unexplained = not (outcome.startswith("supports") and loads == 1)
        c.explanation = explanation_text(
            c.hypotheses,
            c.unexplained,
            "what the interval leaves, and the other loads' runs at RTT 500 ms, which the sweep "
            "does not rerun"
            if c.unexplained
            else "",
        )


def tables(ctx: Any) -> list[Any]:
    """experiment.toml's medians and the pooled boxes' quartiles, as the report's tables."""
    n = ctx.numbers
    med, med_rtt, pooled, boxes = (
        n[k] for k in ("median_by_rate", "median_by_rtt", "pooled_by_rate", "_pooled_boxes")
    )
    rates = list(ctx.params["rates_kbps"])
    rtts = list(ctx.params["rtts_ms"])
    rate_rows = [
        [f"{r / 1000:g}", d, med[f"{r:g}"][d]["p50_ms"], med[f"{r:g}"][d]["util"]]
        for r in rates
        for d in QDISCS
    ]
    rtt_rows = [
        [t, d, med_rtt[f"{t:g}"][d]["p50_ms"], med_rtt[f"{t:g}"][d]["util"]]
        for t in rtts
        for d in QDISCS
    ]
    pooled_rows = [
        [
            f"{r / 1000:g}",
            d,
            boxes[f"{r:g}"][d]["runs"],
            boxes[f"{r:g}"][d]["p50_q1"],
            pooled[f"{r:g}"][d]["p50_ms"],
            boxes[f"{r:g}"][d]["p50_q3"],
            boxes[f"{r:g}"][d]["util_q1"],
            pooled[f"{r:g}"][d]["util"],
            boxes[f"{r:g}"][d]["util_q3"],
        ]
        for r in rates
        for d in QDISCS
    ]
    return [
        Table(
            f"Pooled over RTTs {min(rtts):g}-{max(rtts):g} ms, loads and seeds, by link rate "
            "(the slides' boxes: quartiles and median)",
            [
                "rate Mb/s",
                "discipline",
                "runs",
                "delay q1 ms",
                "median delay ms",
                "delay q3 ms",
                "util q1",
                "utilization",
                "util q3",
            ],
            pooled_rows,
        ),
        Table(
            "Median over loads and seeds, by link rate (RTT 100 ms)",
            ["rate Mb/s", "discipline", "median delay ms", "utilization"],
            rate_rows,
        ),
        Table(
            f"Median over loads and seeds, by RTT ({RTT_SWEEP_KBPS / 1000:g} Mb/s)",
            ["RTT ms", "discipline", "median delay ms", "utilization"],
            rtt_rows,
        ),
    ]


def discussion(ctx: Any) -> list[str]:
    rates = list(ctx.params["rates_kbps"])
    rtts = list(ctx.params["rtts_ms"])
    longest = max(rtts)
    short = [t for t in rtts if t <= 300]

    def at_longest(d: str) -> str:
        return ", ".join(
            f"{r / 1000:g} Mb/s: {fmt(grid_value(ctx, r, longest, d, 'util'))}" for r in rates
        )

    codel_short = ", ".join(
        f"{r / 1000:g} Mb/s: {fmt(min(grid_value(ctx, r, t, 'CoDel', 'util') for t in short))}"
        for r in rates
    )
    out = [
        f"CoDel's median utilization at RTT {longest:g} ms, per rate: {at_longest('CoDel')}; "
        f"its lowest over RTTs {min(short):g}-{max(short):g} ms: {codel_short}. Tail drop's "
        f"at RTT {longest:g} ms: {at_longest('tail drop')} (its buffer of one BDP at 100 ms is "
        f"a fraction of the BDP at {longest:g} ms). Our hypothesis: CoDel's 100 ms interval "
        "is shorter than a 500 ms round trip, so it drops again before the senders' response "
        "to its first drop reaches the queue. Tested by rerunning CoDel with a 500 ms interval "
        f"at RTT 500 ms (sweep-interval/): {ctx.numbers['_interval_test']}. The slides "
        "claim 'excellent performance' for RTTs 10-300 ms only, and their pooled boxes, like "
        "ours, mix the long-RTT runs with the rest of the rate's: the pooled claims are graded "
        "on that mix, the per-point claim at every grid point.",
        "The slides' boxes pool every RTT of a rate; the pooled table gives our quartiles and "
        "medians, and the 'pooled over RTTs' claims grade what the slides state about them.",
    ]
    if ctx.quick:
        out.append(
            f"Quick run: rates {ctx.params['rates_kbps']} kb/s, RTTs {ctx.params['rtts_ms']} ms, "
            f"one load, {ctx.params['duration_s']:g} s per run."
        )
    return out


def figures(ctx: Any) -> list[str]:
    df = ctx.state["df"]
    rates = list(ctx.params["rates_kbps"])
    rtts = list(ctx.params["rtts_ms"])
    by_rate = df[df["rtt_ms"] == 100]
    by_rtt = df[df["rate_kbps"] == RTT_SWEEP_KBPS]
    return _figures(ctx.out, df, by_rate, by_rtt, rates, rtts)


def _figures(out, df, by_rate, by_rtt, rates, rtts) -> list[str]:
    import numpy as np
    from aqmlab.plot import _plt, _save

    plt = _plt()
    figdir = os.path.join(out, "figures")
    files: list[str] = []
    rtt_span = f"RTTs {min(rtts):g}-{max(rtts):g} ms pooled"
    high = [r for r in rates if r >= HIGH_KBPS]
    low = [r for r in rates if r < HIGH_KBPS]
    views = [
        (
            df,
            "rate_kbps",
            part,
            "bottleneck rate (Mb/s)",
            f"pooled_{which}",
            f"Each run's median delay and utilization per rate, {rtt_span}",
            # The slide's title, its "(high)"/"(low)" without the parentheses a title's
            # source reference cannot nest.
            f"BITAG 2013 slide 'Results: Range of static link rates', {which}",
        )
        for which, part in (("high", high), ("low", low))
        if part
    ]
    views += [
        (
            by_rate,
            "rate_kbps",
            rates,
            "bottleneck rate (Mb/s)",
            "vs_rate",
            "Median delay and utilization of each run vs rate at RTT 100 ms",
            "NJ12 Figs. 5-6",
        ),
        (
            by_rtt,
            "rtt_ms",
            rtts,
            "RTT (ms)",
            "vs_rtt",
            f"Median delay and utilization of each run vs RTT at {RTT_SWEEP_KBPS / 1000:g} Mb/s",
            "NJ12 Figs. 5-6",
        ),
    ]
    for frame, key, values, label, stem, text, figref in views:
        fig, axes = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
        width = 0.8 / len(QDISCS)
        for i, d in enumerate(QDISCS):
            sub = frame[frame["discipline"] == d]
            pos = [j + (i - 1) * width for j in range(len(values))]
            for ax, col in zip(axes, ("p50_ms", "util")):
                data = [sub.loc[sub[key] == v, col].dropna().to_numpy() for v in values]
                c = colour(d)
                bp = ax.boxplot(
                    data,
                    positions=pos,
                    widths=width * 0.9,
                    patch_artist=True,
                    manage_ticks=False,
                    boxprops={"facecolor": c, "edgecolor": c, "alpha": 0.6},
                    whiskerprops={"color": c},
                    capprops={"color": c},
                    flierprops={"markeredgecolor": c},
                    medianprops={"color": "black", "lw": 1.5},
                )
                for med, v in zip(bp["medians"], data):
                    if len(v) and np.percentile(v, 75) == np.percentile(v, 25):
                        med.set_color(c)  # a flat box: its median is all that shows of it
                # Each run as a dot in the discipline's colour over its box: a box of one run
                # (or of equal runs, as a quick run gives) is drawn flat, its colour lost.
                xs = [p for p, v in zip(pos, data) for _ in v]
                ys = [y for v in data for y in v]
                ax.scatter(xs, ys, s=10, color=c, edgecolors="black", linewidths=0.3, zorder=3)
            axes[0].plot([], [], color=colour(d), lw=6, alpha=0.6, label=d)
        axes[0].set_yscale("log")
        # Labelled with round values in the plotted range, not matplotlib's "6×10^1".
        d = frame.loc[frame[key].isin(values), "p50_ms"].dropna()
        d = d[d > 0]
        if len(d):
            lo, hi = float(d.min()), float(d.max())
            nice = [m * 10.0**e for e in range(-2, 5) for m in (1, 2, 5)]
            log_ticks(axes[0], [v for v in nice if lo / 2 <= v <= hi * 2], axis="y")
        axes[0].set(ylabel="median queueing delay (ms)")
        axes[1].set(ylabel="utilization", xlabel=label)
        ticks = (
            [f"{v / 1000:g}" for v in values] if key == "rate_kbps" else [f"{v:g}" for v in values]
        )
        axes[1].set_xticks(range(len(values)), ticks)
        axes[0].legend(fontsize=8)
        for ax in axes:
            ax.grid(True, alpha=0.3)
        axes[1].set_ylim(0, 1.05)
        title(fig, f"{text}:\nbox plots over loads and seeds", figref)
        files += _save(fig, figdir, f"delay_utilization_{stem}")
    return [f for f in files if f.endswith(".png")]
