"""How every reproduction's figures look: one colour per discipline across all of them, delay
axes that start at 0 (on a symmetric log scale, labelled 0, 1, 10, 100 ...), log axes whose tick
labels are the values plotted and never overlap, and titles that name the paper figure each one
reproduces."""

from __future__ import annotations

import math
from typing import Any

#: Discipline -> colour, used by every reproduction's figures (variants of one discipline, e.g.
#: tail drop's buffer sizes or LSTF's orders, share its colour and differ in line or marker).
COLOURS = {
    "tail drop": "#1f77b4",
    "CoDel": "#ff7f0e",
    "FQ-CoDel": "#2ca02c",
    "RED": "#d62728",
    "Adaptive RED": "#e377c2",
    "PIE": "#9467bd",
    "LSTF-CoDel": "#8c564b",
    "DualPI2": "#17becf",
}
#: Anything that is not a discipline (a trace's capacity, a reference line).
OTHER = "#7f7f7f"


def discipline(label: str) -> str | None:
    """The discipline a series label names ("tail drop 830p", "LSTF α=0.5 as_coded", "RED
    min_th 5"), or ``None``."""
    s = label.lower().replace("_", "-")
    if "fq-codel" in s:
        return "FQ-CoDel"
    if "dualpi2" in s:
        return "DualPI2"
    if "lstf" in s:
        return "LSTF-CoDel"
    if "adaptive red" in s or s.startswith("ared"):
        return "Adaptive RED"
    if "codel" in s:
        return "CoDel"
    if "pie" in s.split() or s.startswith("pie"):
        return "PIE"
    if "tail drop" in s or "droptail" in s or "drop-tail" in s:
        return "tail drop"
    if s.startswith("red") or " red" in s:
        return "RED"
    return None


def colour(label: str) -> str:
    """The colour of a series: its discipline's, or :data:`OTHER`."""
    d = discipline(label)
    return COLOURS[d] if d else OTHER


def delay_axis(ax: Any, axis: str = "y", symlog: bool = False) -> None:
    """A delay axis (or any axis of a quantity that is never negative) starts at 0.

    ``symlog``: on a symmetric log scale, linear below 1 (a log axis has no 0, and a delay of 0
    is common), labelled as plain numbers, 0, 1, 10, 100, 1000, where matplotlib writes
    ``10^n``; its autoscaling would otherwise run the axis below 0 too."""
    a = ax.yaxis if axis == "y" else ax.xaxis
    if symlog:
        from matplotlib.ticker import FuncFormatter

        (ax.set_yscale if axis == "y" else ax.set_xscale)("symlog", linthresh=1.0)
        a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    if axis == "y":
        ax.set_ylim(bottom=0)
    else:
        ax.set_xlim(left=0)


def log_ticks(ax: Any, values: list[float], axis: str = "x", min_ratio: float = 1.6) -> None:
    """A log axis labelled with the plotted ``values`` themselves (plain numbers, no minor
    labels), skipping any value within a factor ``min_ratio`` of the last labelled one so
    neighbouring labels never overlap."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    keep: list[float] = []
    for v in sorted(v for v in set(values) if v > 0 and math.isfinite(v)):
        if not keep or v / keep[-1] >= min_ratio:
            keep.append(v)
    a = ax.xaxis if axis == "x" else ax.yaxis
    a.set_major_locator(FixedLocator(keep))
    a.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    a.set_minor_locator(NullLocator())


def title(ax_or_fig: Any, text: str, figure: str) -> None:
    """Title ``text``, naming the paper ``figure`` it reproduces ("FJ93 Figs. 5-6")."""
    full = f"{text} ({figure})" if figure else text
    if hasattr(ax_or_fig, "suptitle"):
        ax_or_fig.suptitle(full)
    else:
        ax_or_fig.set_title(full)
