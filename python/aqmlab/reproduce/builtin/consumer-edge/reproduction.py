"""consumer-edge's own code: what is not yet data, and the figures.

experiment.toml declares each run's columns (rate, buffer, and per direction the drop % of what
was enqueued, the median sojourn, MB, Jain's index of the flows' drop rates and of the traffic
classes' (``jain``), the delivered share, the peak backlog), each cell's means, seeds'
half-widths and peak (numbers ``cells`` and ``_tested_cells``), the C/T ratios per flow and
per class with their seed-by-seed half-widths (``_ct``: runs paired by seed), and the buffer fitted
to the slides' tail-drop medians and each median's held-out one (``best_buffer``,
``held_out_buffer``: ``fit``) and the claims' numbers at those buffers (``_fitted``,
``_held_out``, ``_by_class``, ``fairness_by_class``: ``lookup``). claims.toml holds the slides'
table (the published values, which ``_slides`` reads: ``published``), the per-class test
(``test = "regrade"``) and the C/T describe (``"{a / b}"``). What stays here, and why:

* the claims' table (the cells by direction, for the range claims): a ``[table]`` cannot lay
  the directions (an ``each``) out as rows;
* the buffer test (:func:`buffer_test`) and the noise test's verdict (:func:`noise_test`,
  over experiment.toml's ``_drop_pairs``: each cell's drop % differences paired by seed):
  their outcomes are sentences over every buffer run (the gap buffers too) and over the cells
  where CoDel's mean is above, whose results.json numbers (``drops_noise_test``) name the
  arms; a data-declared form needs a "value over an axis" and a "paired difference" test kind;
* ``annotate``, which explains a verdict from those two outcomes and copies the per-class
  test's outcome into results.json's ``fairness_by_class`` (the per-class report table's last
  column), and the figures. The report tables (``[[report_table]]``; the slides' values from
  ``_slides``: ``published``) and the discussion (``join``, the fit's ``ties_text``) are
  experiment.toml's.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.reproduce.common import (
    DIFFERS,
    FAILS,
    explanation_text,
    fmt,
)
from aqmlab.reproduce.style import colour, delay_axis, log_ticks, title

RATES = ["512 kb/s", "1.5 Mb/s"]
DIRECTIONS = {"down": "bottleneck", "up": "bottleneck.rev"}
QDISC = "qdisc:bottleneck"
METRICS = {
    "drop_pct": "pkt drop %",
    "median_ms": "median delay ms",
    "mb": "total MB",
    "fairness": "fairness of drops (Jain)",
}
#: claims.toml's id of a cell: RATE-DIRECTION-QDISC-METRIC.
RATE_IDS = {"512 kb/s": "512kbs", "1.5 Mb/s": "1_5mbs"}
METRIC_IDS = {"drop_pct": "drop-pct", "median_ms": "median-ms", "fairness": "fairness", "mb": "mb"}


#: The slides' columns (experiment.toml's ``_slides``, their values as printed) by discipline.
SIDE = {"codel": "C", "droptail": "T"}


def _cells(numbers: Any) -> dict[tuple[str, int, str, str], dict[str, Any]]:
    """experiment.toml's cells (``"RATE|BUFFER|QDISC|DIRECTION"`` -> the cell's means,
    half-widths and peak backlog) keyed by ``(rate, buffer, qdisc, direction)``."""
    out = {}
    for k, v in numbers.items():
        r, b, q, d = k.split("|")
        out[(r, int(b), q, d)] = v
    return out


def paired_interval(p: dict[str, Any]) -> dict[str, Any]:
    """One cell of experiment.toml's ``_drop_pairs`` (CoDel's drop % minus tail drop's, seed by
    seed) with the differences' 95 % interval: ``lo``, ``hi``, ``interval`` (whether two or more
    seeds give one) and ``decided`` (whether it excludes 0: if it does not, the seeds cannot
    tell which of the two drops more there, and 'never higher' cannot be decided at that
    cell)."""
    mean, half = p["mean"], p["half"]
    lo, hi = (mean - half, mean + half) if half is not None else (float("nan"),) * 2
    return {
        **{k: p[k] for k in ("seeds", "codel_higher", "codel", "droptail", "mean")},
        "lo": lo,
        "hi": hi,
        "decided": half is not None and (lo > 0 or hi < 0),
        "interval": half is not None,
    }


def noise_test(pairs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The outcome of the noise hypothesis of ``codel-no-more-drops``: at every cell where
    CoDel's mean drop % is above tail drop's (``pairs``: cell name -> :func:`paired_interval`),
    whether the seeds' paired interval includes 0. ``supports`` when it does at every such
    cell (each is within our seeds' scatter: undecided, not a counter-example), ``refuted``
    when CoDel is above tail drop beyond the scatter at one or more (named), not tested where
    fewer than two seeds give no interval; with no such cell
    it accounts for nothing (a failing point is then something else: no value), so it does not
    support."""
    higher = {k: p for k, p in pairs.items() if p["mean"] > 0}
    each = [
        f"{k}: CoDel {fmt(p['codel'])} % vs tail drop {fmt(p['droptail'])} %, CoDel higher in "
        f"{p['codel_higher']} of {p['seeds']} seeds, paired C−T {p['mean']:+.3g} points "
        + (f"(95 % CI {p['lo']:+.3g} to {p['hi']:+.3g})" if p["interval"] else "(no interval)")
        for k, p in higher.items()
    ]
    beyond = [k for k, p in higher.items() if p["decided"]]
    untested = [k for k, p in higher.items() if not p["interval"]]
    if not higher:
        verdict = (
            "no cell has CoDel's mean drop % above tail drop's: noise accounts for no failing cell"
        )
        supports = False
    elif beyond:
        verdict = (
            f"refuted: at {', '.join(beyond)} the interval excludes 0, CoDel drops at a higher "
            "rate than tail drop beyond our seeds' scatter"
        )
        supports = False
    elif untested:
        verdict = f"not tested at {', '.join(untested)}: fewer than two seeds give no interval"
        supports = False
    else:
        verdict = (
            "supports: every interval includes 0, so at these cells our seeds cannot tell "
            "which drops more and 'never higher' is undecided there (noise), not contradicted"
        )
        supports = True
    return {
        "supports": supports,
        "cells": list(higher),
        "beyond_noise": beyond,
        "text": "; ".join([*each, verdict]),
    }


def numbers(ctx: Any) -> dict[str, Any]:
    import pandas as pd

    buffers = ctx.params["buffers"]
    every = _cells(ctx.numbers["_tested_cells"])
    cells = {
        (rate, b, q, d): every[(rate, b, q, d)]
        for rate in RATES
        for b in buffers
        for q in ("codel", "droptail")
        for d in DIRECTIONS
    }

    # The buffer hypothesis' test also reads the gap buffers (experiment.toml's gap_buffers,
    # per rate: between those swept, where the slides' tail-drop medians put their buffer, and
    # every buffer between two that bracket a slides' cell); the fit, the table and the figures
    # keep the swept ones.
    gap_buffers = ctx.params.get("gap_buffers") or {}
    if not isinstance(gap_buffers, dict) or set(gap_buffers) - set(RATES):
        raise ValueError(
            f"consumer-edge: gap_buffers {gap_buffers!r}: expected a table of rate -> buffers, "
            f"the rates among {RATES}"
        )
    gaps = {rate: [b for b in gap_buffers.get(rate, []) if b not in buffers] for rate in RATES}
    tested = {rate: sorted([*buffers, *gaps[rate]]) for rate in RATES}
    tested_cells = {k: v for k, v in every.items() if k[1] in tested[k[0]]}
    slides = ctx.numbers["_slides"]  # the slides' table as printed (experiment.toml)

    ctx.state["cells"] = cells
    ctx.table = pd.DataFrame(
        [
            {
                "rate": r,
                "buffer": b,
                "qdisc": q,
                "direction": d,
                **{m: v[m] for m in METRICS},
                "delivered": v["delivered"],
            }
            for (r, b, q, d), v in cells.items()
        ]
    )
    # codel-no-more-drops' noise hypothesis: experiment.toml's _drop_pairs (CoDel's drop % against
    # tail drop's, paired by seed) at each cell, in the rates' and buffers' order.
    pairs = {
        k: paired_interval(ctx.numbers["_drop_pairs"][k])
        for k in (f"{rate} {d} {b}p" for rate in RATES for b in buffers for d in DIRECTIONS)
    }
    noise = noise_test(pairs)
    ctx.state["noise_test"] = noise
    return {
        # codel-no-more-drops' noise hypothesis (claims.toml): the cells where CoDel's mean drop
        # % is above tail drop's, their paired differences and the outcome.
        "drops_noise_test": {
            "cells": {k: pairs[k] for k in noise["cells"]},
            "beyond_noise": noise["beyond_noise"],
            "supports": noise["supports"],
        },
        "_drops_noise_test": noise["text"],
        # Which cells each buffer was fitted to (results.json says so beside the buffers).
        "fitted_on": {
            "best_buffer": "the slides' tail-drop median delays, down and up, per rate",
            "held_out_buffer": "per rate and direction: the other direction's tail-drop median "
            "delay only; the four tail-drop medians are graded at it",
        },
        "buffer_test_buffers": tested,
        "_buffer_test": {
            rate: {
                d: {
                    q: {
                        m: buffer_test(tested_cells, tested[rate], rate, d, q, m, slides)
                        for m in BUFFER_TESTED
                    }
                    for q in ("codel", "droptail")
                }
                for d in DIRECTIONS
            }
            for rate in RATES
        },
    }


#: The cells whose buffer hypothesis claims.toml tests with the buffer sweep (the tail-drop
#: medians have their own, held out).
BUFFER_TESTED = ("median_ms", "fairness", "mb")


def half_unit(v: float) -> float:
    """Half a unit in the last digit the slides printed (``_slides`` holds them as printed)."""
    text = repr(v)
    return 0.5 * 10.0 ** -(len(text.split(".")[1]) if "." in text else 0)


def buffer_test(
    cells: dict, buffers: list[int], rate: str, d: str, q: str, m: str, slides: dict
) -> str:
    """The outcome of the buffer hypothesis for one cell: its value at every buffer run (sorted),
    and whether any gives the slides' value. ``supports`` when a buffer's mean is within the
    slides' printed digits, or within those plus our seeds' 95 % interval there (the cell's
    ``spread``: our seeds cannot tell that buffer's value from the slides'); ``not tested`` when
    the slides' value lies between the values at two buffers with buffers between them not run;
    ``refuted`` otherwise: outside every buffer's value, or between the values at two adjacent
    buffers (no buffer in packets lies between them), over the buffers run only
    (:func:`buffer_range`). ``slides``: experiment.toml's ``_slides``."""
    pub = slides[rate][d][m][SIDE[q]]
    tol = half_unit(pub)
    vals = [(b, cells[(rate, b, q, d)][m]) for b in buffers]
    spread = {b: (cells[(rate, b, q, d)].get("spread") or {}).get(m) for b in buffers}
    hit = [b for b, v in vals if v == v and abs(v - pub) <= tol]
    near = [
        b for b, v in vals if v == v and spread[b] is not None and abs(v - pub) <= tol + spread[b]
    ]
    each = ", ".join(f"{fmt(v)} at {b}p" for b, v in vals)
    live = [(b, v) for b, v in vals if v == v]
    between = [
        (b1, b2)
        for (b1, v1), (b2, v2) in zip(live, live[1:])
        if min(v1, v2) - tol <= pub <= max(v1, v2) + tol
    ]
    untested = [(b1, b2) for b1, b2 in between if b2 - b1 > 1]
    over = buffer_range(cells, buffers, rate, d, q, slides)
    if hit:
        verdict = (
            f"the slides' {pub:g} (±{tol:g}) is reached at {', '.join(f'{b}p' for b in hit)}: "
            "supports (a buffer the slides do not give could account for it)"
        )
    elif near:
        verdict = (
            f"the slides' {pub:g} (±{tol:g}) is within our seeds' 95 % interval at "
            + ", ".join(f"{b}p (±{spread[b]:.2g})" for b in near)
            + ": supports (our seeds cannot tell the value there from the slides', so a buffer "
            "the slides do not give could account for it)"
        )
    elif untested:
        verdict = (
            f"the slides' {pub:g} lies between the values at "
            + ", ".join(f"{b1}p and {b2}p" for b1, b2 in untested)
            + ": a buffer between them, not run, may give it (not tested)"
        )
    elif between:
        verdict = (
            f"the slides' {pub:g} (±{tol:g}) lies between the values at "
            + ", ".join(f"{b1}p and {b2}p" for b1, b2 in between)
            + ", adjacent buffers (none in packets lies between them), and outside our seeds' "
            f"95 % interval at each: refuted, over {over}"
        )
    else:
        verdict = (
            f"the slides' {pub:g} (±{tol:g}) is outside the range of every swept buffer's "
            f"value and our seeds' 95 % interval there: refuted, over {over}"
        )
    return f"{each}; {verdict}"


def buffer_list(buffers: list[int]) -> str:
    """Sorted buffers in packets, each run of consecutive ones as a range: ``13-18, 25, 50``."""
    runs: list[list[int]] = []
    for b in buffers:
        if runs and b == runs[-1][-1] + 1:
            runs[-1].append(b)
        else:
            runs.append([b])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def buffer_range(cells: dict, buffers: list[int], rate: str, d: str, q: str, slides: dict) -> str:
    """What a refuted buffer test covers: the buffers run only, and why buffers outside them
    matter or not. Above the largest, a discipline whose queue never filled it would run the
    same (CoDel's peak is its largest ``max_backlog``); the slides' tail-drop medians (where not
    0) lie between ours at the buffers named, so buffers far outside those do not give the
    slides' set-up."""
    top = buffers[-1]
    peak = cells.get((rate, top, q, d), {}).get("max_backlog", float("nan"))
    text = f"the buffers run ({buffer_list(buffers)} packets) only"
    if peak == peak and peak < top:
        text += (
            f", not between them or below {buffers[0]}p; above {top}p none is needed, this "
            f"queue peaking at {peak:g} packets at {top}p (a larger buffer is never reached)"
        )
    else:
        text += f", not between them, below {buffers[0]}p or above {top}p"
    lo, hi = median_bracket(cells, slides)
    if lo is not None:
        text += (
            f"; the slides' tail-drop medians lie between ours at {lo}p and {hi}p, the range "
            "where their buffer would be"
        )
    return text


def median_bracket(cells: dict, slides: dict) -> tuple[int | None, int | None]:
    """The least and greatest buffers run between whose tail-drop medians the slides' lie, over
    every rate and direction whose slides' median is not 0, each over the buffers ``cells``
    holds for it (``None`` when none is bracketed)."""
    lo: int | None = None
    hi: int | None = None
    for rate, d, pub in ((r, d, p) for r, v in slides.items() for d, p in v.items()):
        target = pub["median_ms"]["T"]
        if not target:
            continue
        run = sorted(b for (r, b, q, dd) in cells if (r, q, dd) == (rate, "droptail", d))
        vals = [(b, cells[(rate, b, "droptail", d)].get("median_ms")) for b in run]
        vals = [(b, v) for b, v in vals if v is not None and v == v]
        for (b1, v1), (b2, v2) in zip(vals, vals[1:]):
            if min(v1, v2) <= target <= max(v1, v2):
                lo = b1 if lo is None else min(lo, b1)
                hi = b2 if hi is None else max(hi, b2)
    return lo, hi


def annotate(ctx: Any) -> None:
    """A cell that differs and whose buffer test found a buffer giving the slides' value is
    explained by the buffer; one that found none stays unexplained. ``codel-no-more-drops``
    is explained by noise only where its noise test supports it."""
    for rate in RATES:
        for d in DIRECTIONS:
            for q in ("codel", "droptail"):
                for m in BUFFER_TESTED:
                    cid = f"{RATE_IDS[rate]}-{d}-{q}-{METRIC_IDS[m]}"
                    c = ctx.claims.get(cid)
                    if c is None or c.verdict != DIFFERS or not c.hypotheses:
                        continue
                    outcome = ctx.numbers["_buffer_test"][rate][d][q][m]
                    # The totals have a second hypothesis no run tests: the run length.
                    c.unexplained = m == "mb" or "supports" not in outcome
                    why = (
                        "the run length, which no run tests (the slides do not give theirs)"
                        if m == "mb"
                        else "what the buffer leaves"
                    )
                    c.explanation = explanation_text(
                        c.hypotheses, c.unexplained, why if c.unexplained else ""
                    )

    # CoDel never drops more: explained only where every cell against it is within the noise.
    c = ctx.claims.get("codel-no-more-drops")
    if c is not None and c.verdict == FAILS and c.hypotheses:
        c.unexplained = not ctx.state["noise_test"]["supports"]
        c.explanation = explanation_text(
            c.hypotheses,
            c.unexplained,
            "CoDel above tail drop beyond our seeds' scatter" if c.unexplained else "",
        )

    # The per-class test's outcome (claims.toml's class-index, test = "regrade") beside its
    # numbers in results.json.
    for rate, v in ctx.numbers["fairness_by_class"].items():
        for d, cell in v.items():
            (r,) = [r for r in ctx.tests[f"{RATE_IDS[rate]}-{d}-fairness-ct"] if r is not None]
            cell["outcome"] = r.points[""]["outcome"]


def figures(ctx: Any) -> list[str]:
    from aqmlab.plot import _plt, _save

    cells, buffers = ctx.state["cells"], ctx.params["buffers"]
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
            for qi, name in (("T", "tail drop"), ("C", "CoDel")):
                ax.axhline(
                    ctx.numbers["_slides"][rate][d]["median_ms"][qi],
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
    title(
        fig,
        "Consumer edge: median delay vs buffer",
        "BITAG slide 'Consumer Edge type example': its table",
    )
    files = _save(fig, os.path.join(ctx.out, "figures"), "median_vs_buffer")
    files += _fairness_figure(ctx, plt, _save)
    return [f for f in files if f.endswith(".png")]


def _fairness_figure(ctx: Any, plt: Any, save: Any) -> list[str]:
    """The slides' 'Interesting "Fairness" Results': whether drops fall on the flows in
    proportion to their use of the link, as Jain's index (Σx)²/(n·Σx²) of each flow's drops ÷
    its packets (1 when every flow loses the same share), CoDel and tail drop against the
    buffer, per rate and direction, beside the slides' table values (dotted). The buffer the
    slides' cells are graded at is ringed."""
    cells, buffers, best = ctx.state["cells"], ctx.params["buffers"], ctx.numbers["best_buffer"]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True, sharey=True)
    for i, rate in enumerate(RATES):
        for j, d in enumerate(DIRECTIONS):
            ax = axes[i][j]
            for q, name in (("codel", "CoDel"), ("droptail", "tail drop")):
                ys = [cells[(rate, b, q, d)]["fairness"] for b in buffers]
                ax.plot(buffers, ys, "o-", color=colour(name), label=f"{name}, aqmlab")
                ax.plot(
                    [best[rate]],
                    [cells[(rate, best[rate], q, d)]["fairness"]],
                    "o",
                    ms=12,
                    mfc="none",
                    color=colour(name),
                    label=f"{name}, graded buffer" if i == j == 0 else "_",
                )
                ax.axhline(
                    ctx.numbers["_slides"][rate][d]["fairness"][SIDE[q]],
                    color=colour(name),
                    ls=":",
                    label=f"{name}, slides",
                )
            ax.set(title=f"{rate}, {d}", ylim=(0, 1.05))
            ax.set_xscale("log")
            log_ticks(ax, buffers)
            ax.grid(True, alpha=0.3)
    for ax in axes[-1]:
        ax.set_xlabel("buffer (packets)")
    for ax in axes[:, 0]:
        ax.set_ylabel("Jain's index of drop rates")
    axes[0][0].legend(fontsize=7, loc="lower left")
    title(
        fig,
        "Consumer edge: are drops in proportion to use?",
        "BITAG slide 'Interesting \"Fairness\" Results'",
    )
    return save(fig, os.path.join(ctx.out, "figures"), "fairness_vs_buffer")
