"""Two curves compared at the same abscissa (docs/reproductions.md, "Metrics as data":
``[numbers.NAME]`` with ``match``): the arms of a range claim "for the same X, A's Y is above
B's" from a table of points (one row per point: a ``[frames.NAME]`` of means over seeds).

``match = { column, curves = [A, B], x, y, delivered, at, x_name, delivered_key }``: the rows
whose ``column`` is ``A`` are curve A, ``B`` curve B. At each point of B whose ``x`` lies in
the range of A's live points, A's ``y`` (and its ``delivered``) interpolated linearly at that
``x`` (NumPy's ``interp`` over A's live points in order of ``x``) is the arm
``"A at B's AT"``, B's own value the arm ``"B"``; the counterfactual swaps the curves (arms
``"B at A's AT"`` and ``"A"``). A point is named ``"POINT (X_NAME x)"`` (``x`` printed as the
report prints numbers). A stalled point (its ``delivered`` under the stalled fraction of its
link: :func:`aqmlab.reproduce.common.stalled`) is no point of either curve: it is its own
value on both arms, named ``POINT``, so the claims' rule (every arm stalled) makes it a tie.
``DELIVERED_KEY`` (default ``delivered``) holds each arm's ``delivered`` at the same points,
for the claims' ``delivered``.

``seeds = COLUMN`` (a table of points per seed: a ``[frames.NAME]`` whose ``by`` has the seed)
makes the same match on each seed's rows alone, each arm's value at a point the list of its
seeds' values in seed order (none where a seed has no such point), a point named without its
``(X_NAME x)``: a range claim's ``per_seed`` (its points are matched by their name up to the
first `` (``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError

KEYS = (
    "column",
    "curves",
    "x",
    "y",
    "delivered",
    "at",
    "x_name",
    "delivered_key",
    "point",
    "seeds",
)


@dataclass
class Match:
    column: str
    curves: tuple[str, str]
    x: str
    y: str
    delivered: str
    at: str
    x_name: str
    delivered_key: str
    point: str
    where: str  # "FILE: numbers.NAME.match" for errors
    seeds: str = ""


def number(name: str, where: str, d: dict[str, Any], sweeps: list[str]) -> Any:
    """A ``[numbers.NAME]`` of ``match`` (:mod:`aqmlab.reproduce.matched`): ``sweeps`` (one
    table of points) and ``where`` beside it."""
    from aqmlab.reproduce.metrics import NumberDef, one_sweep, where_of

    other = [k for k in d if k not in ("match", "sweeps", "where")]
    if other:
        raise AqmlabError(f"{where}.{other[0]}: not with match (only sweeps and where)")
    sw = one_sweep(where, d, sweeps, "one table of points")
    wh = where_of(where, d)
    m = load(where, d["match"])
    return NumberDef(name, sw, wh, [], {}, [], None, {}, where, match=m)


def value(nd: Any, frames: dict[str, Any], fill: Any) -> Any:
    from aqmlab.reproduce.metrics import compile_expr

    if nd.sweeps[0] not in frames:
        raise AqmlabError(f"{nd.where}.sweeps: {nd.sweeps[0]!r} did not run in this mode")
    df, what = frames[nd.sweeps[0]], f"{nd.sweeps[0]!r}"
    if nd.where_expr:
        df = df[compile_expr(fill(nd.where_expr), f"{nd.where}.where").eval(df, what).astype(bool)]
    return compute(nd.match, df, what)


def load(where: str, doc: Any) -> Match:
    """A ``match`` table, checked."""
    where = f"{where}.match"
    if not isinstance(doc, dict):
        raise AqmlabError(f"{where}: expected a table {{ column, curves, x, y, delivered, at }}")
    for k in doc:
        if k not in KEYS:
            raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(KEYS)})")
    curves = doc.get("curves")
    if (
        not isinstance(curves, list)
        or len(curves) != 2
        or not all(isinstance(c, str) and c for c in curves)
        or curves[0] == curves[1]
    ):
        raise AqmlabError(f"{where}.curves: expected two distinct values of column, got {curves!r}")
    texts = {}
    for k in ("column", "x", "y", "delivered", "at"):
        v = doc.get(k)
        if not isinstance(v, str) or not v:
            raise AqmlabError(f"{where}.{k}: expected a text, got {v!r}")
        texts[k] = v
    for k, default in (
        ("x_name", texts["x"]),
        ("delivered_key", "delivered"),
        ("point", "point"),
        ("seeds", ""),
    ):
        if k == "seeds" and k not in doc:
            texts[k] = ""
            continue
        v = doc.get(k, default)
        if not isinstance(v, str) or not v:
            raise AqmlabError(f"{where}.{k}: expected a text, got {v!r}")
        texts[k] = v
    return Match(curves=(curves[0], curves[1]), where=where, **texts)


def compute(m: Match, df: Any, what: str) -> dict[str, Any]:
    """The four arms and their delivered shares over ``df`` (a table of points; ``what`` names
    it in errors); with ``m.seeds``, each seed's, as lists in seed order."""
    if m.seeds:
        return _per_seed(m, df, what)
    need = [m.point, m.column, m.x, m.y, m.delivered]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise AqmlabError(f"{m.where}: no column {missing[0]!r} in the results of {what}")
    a_name, b_name = m.curves
    a, b = df[df[m.column] == a_name], df[df[m.column] == b_name]
    names = (f"{a_name} at {b_name}'s {m.at}", b_name, f"{b_name} at {a_name}'s {m.at}", a_name)
    out: dict[str, Any] = {}
    for (n1, n2), pts in (
        ((names[0], names[1]), points(m, a, b)),
        ((names[2], names[3]), points(m, b, a)),
    ):
        out[n1] = {k: v[0] for k, v in pts.items()}
        out[n2] = {k: v[1] for k, v in pts.items()}
        out.setdefault(m.delivered_key, {})[n1] = {k: v[2] for k, v in pts.items()}
        out[m.delivered_key][n2] = {k: v[3] for k, v in pts.items()}
    return out


def points(m: Match, a: Any, b: Any) -> dict[str, tuple]:
    """Every point of ``b`` as ``(a's y, its own y, a's delivered, its own delivered)``, ``a``'s
    interpolated at its ``x`` inside the range of ``a``'s live points; a stalled point of
    either as itself on both arms."""
    import numpy as np

    from aqmlab.reproduce.common import fmt, stalled

    x, y, d = m.x, m.y, m.delivered

    def dead(r: dict) -> tuple:
        return (r[y], r[y], r[d], r[d])

    live = a[~a[d].map(stalled)].sort_values(x)
    pts: dict[str, tuple] = {}
    for r in b.to_dict("records"):
        if stalled(r[d]):
            pts[r[m.point]] = dead(r)
        elif len(live) and live[x].min() <= r[x] <= live[x].max():
            v = float(np.interp(r[x], live[x], live[y]))
            ua = float(np.interp(r[x], live[x], live[d]))
            pts[f"{r[m.point]} ({m.x_name} {fmt(r[x])})"] = (v, r[y], ua, r[d])
    for r in a.to_dict("records"):
        if stalled(r[d]):
            pts[r[m.point]] = dead(r)
    return pts


def _per_seed(m: Match, df: Any, what: str) -> dict[str, Any]:
    """:func:`compute` on each seed's rows of ``df`` (its ``m.seeds`` column), each leaf the
    list of the seeds' values in seed order (NaN where a seed has no such point), the points
    named up to the first `` (``."""
    from dataclasses import replace

    if m.seeds not in df.columns:
        raise AqmlabError(f"{m.where}.seeds: no column {m.seeds!r} in the results of {what}")
    one = replace(m, seeds="")
    runs = [compute(one, g, what) for _, g in df.groupby(m.seeds, sort=True)]

    def merge(parts: list[Any]) -> Any:
        tables = [p for p in parts if isinstance(p, dict)]
        if tables and all(isinstance(v, (int, float)) for t in tables for v in t.values()):
            names = {k.split(" (")[0]: None for t in tables for k in t}
            base = [{k.split(" (")[0]: v for k, v in t.items()} for t in parts]
            return {n: [b.get(n, math.nan) for b in base] for n in names}
        keys = {k: None for t in tables for k in t}
        return {k: merge([t.get(k, {}) for t in parts]) for k in keys}

    return merge(runs)
