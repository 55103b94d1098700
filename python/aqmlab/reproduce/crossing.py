"""Where a curve first reaches a level (docs/reproductions.md, "Metrics as data"): a reduction
``reduce = "crossing"`` with ``x`` (the column of the abscissa) and ``level`` is, over one
group's runs, the first ``x`` at which ``column`` reaches ``level`` (``>=``), linear between that
point and the one before it: the group's runs averaged per value of ``x`` (its seeds), the
points in increasing ``x``, a run with no ``x`` or no value of ``column`` left out. A first
point already at the level is its own ``x``; a curve that never reaches it has no value (NaN).
codel-target's ``target_pct_at_90``: one flow's utilization against CoDel's target as a % of
the RTT, the target at which it first reaches 0.9 (the slides: "it reaches 90 % with a target
that is about 30 % of the RTT"). A falling curve's crossing is that of its negation (a
``[[derive]]`` of ``-column`` and ``level = -L``).
"""

from __future__ import annotations

import math
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The reduction's own keys (beside column, then, ...).
KEYS = ("x", "level")


def parse(where: str, doc: dict[str, Any], reduce: str) -> tuple[str, float | None]:
    """``x`` and ``level`` of a reduction, checked: both with ``reduce = "crossing"``, neither
    without."""
    if reduce != "crossing":
        extra = [k for k in KEYS if k in doc]
        if extra:
            raise AqmlabError(f'{where}.{extra[0]}: only with reduce = "crossing"')
        return "", None
    x, level = doc.get("x"), doc.get("level")
    if not isinstance(x, str) or not x:
        raise AqmlabError(f"{where}.x: expected the column of the abscissa (a text), got {x!r}")
    if isinstance(level, bool) or not isinstance(level, (int, float)):
        raise AqmlabError(f"{where}.level: expected the level the column reaches, got {level!r}")
    return x, float(level)


def first(xs: list[float], ys: list[float], level: float) -> float:
    """The first ``x`` (``xs`` increasing) at which ``ys`` reaches ``level``, linear between it
    and the point before; NaN when none does."""
    for i, (x, y) in enumerate(zip(xs, ys)):
        if y >= level:
            if i == 0:
                return x
            x0, y0 = xs[i - 1], ys[i - 1]
            return x0 + (level - y0) * (x - x0) / (y - y0)
    return math.nan


def value(rows: Any, column: str, x: str, level: float, what: str, where: str) -> float:
    """The crossing over one group's ``rows`` (a frame holding ``x`` and ``column``)."""
    if x not in rows.columns:
        raise AqmlabError(f"{where}.x: no column {x!r} in the results of {what}")
    pts = rows[[x, column]].astype(float).dropna()
    curve = pts.groupby(x, sort=True)[column].mean()
    return first([float(v) for v in curve.index], [float(v) for v in curve], level)
