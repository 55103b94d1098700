"""Per-run columns cut from a run's own log by time window (docs/reproductions.md, "Windows of
a run"): a ``[[window]]`` of ``experiment.toml`` reduces one link's packet log and series, and
the flows' series, over consecutive windows of each run (a link whose rate changes every
phase: codel-dynamic's six) or over one window (what a run did after a warm-up, where the
summary counts the whole run: red-bursty's), one column per window and value, added to its
sweep's results before the ``[[derive]]``s (which may use them).

A ``[[window]]`` is ``name`` (a template of ``{i}``, the window's number from 1: ``"phase{i}"``
gives the columns ``phase1.p50_ms`` ...; a plain name for one window), ``link``, ``start_s``
(default 0; a number, or ``"{param}"``) and either ``length_s`` (a number, or ``"{param}"``) with
``count`` (default: the length of ``fields``' lists, else 1: window ``i`` is
``[start + (i-1)·length, start + i·length)``) or ``end_s`` (one window ``[start, end)``),
``fields`` (a table of NAME = [one value per window], filled as ``{NAME}`` in ``then``, beside
``{t0}`` and ``{t1}``), ``sweeps`` (default all), ``where`` (only the runs where an expression
of the results' columns holds; the others get no value, and are not read), and ``values``:
NAME = ``{ column, reduce, q, then }`` as a ``[numbers.NAME]``'s, where ``column`` is

* ``sojourn_ms``: every packet of the link's packet log that left in the window;
* a column of the link's series (``egress_bytes``, ``released_pkts``, ``drops``, ...: the bins
  that start in the window), or ``total_sojourn_ms``, a bin's ``released_pkts`` ×
  ``mean_sojourn_ms`` (0 for a bin that released none): summed and divided by the window's
  length, the average queue by Little's law (``then = "x / 1e3 / ({t1} - {t0})"``);
* ``flows.COLUMN``: a column of the flows' series (``flows.delivered_bytes``), reduced per flow
  into the columns ``NAME(i).flows[F].VALUE``, one per flow any run of the sweep has in the
  window (a run without that flow's bins reduces none: a ``sum`` 0);
* an expression of the link series' columns (``"released_pkts == 0"``: 1 for a bin that
  released no packet, so its ``mean`` is the share of idle bins; red-traffic-check's), in the
  grammar of "Metrics as data";

and ``reduce`` one of :data:`REDUCERS` (``quantile``: NumPy's linear one, as the packet log is
long; ``std``: the values' standard deviation as a population, ÷ n, NumPy's; a window without a
value gives NaN, a ``sum`` 0).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The reductions a window's value may name.
REDUCERS = ("mean", "median", "min", "max", "sum", "count", "quantile", "std")
#: A value's column that is one name (a series' or the packet log's column), not an expression.
_NAME = re.compile(r"[\w.]+")
#: The packet log's columns (the rest are the link series', or the flows' after ``flows.``).
PACKET_COLUMNS = ("sojourn_ms",)
#: A series column computed from two: the summed sojourns of the packets a bin released.
TOTAL_SOJOURN = "total_sojourn_ms"
FLOWS = "flows."
_KEYS = (
    *("name", "link", "start_s", "length_s", "count", "end_s", "fields", "sweeps", "where"),
    "values",
)


@dataclass
class WindowDef:
    """One ``[[window]]``."""

    name: str
    link: str
    length_s: Any  # a number or a "{param}" text; None: one window to end_s
    count: int
    start_s: Any  # a number or a "{param}" text
    fields: dict[str, list[Any]]
    sweeps: list[str]
    values: dict[str, Any]  # NAME -> metrics.Leaf
    where: str  # "FILE: window[i] ('NAME')" for errors
    end_s: Any = None  # a number or a "{param}" text (in place of length_s)
    where_expr: str = ""  # only the runs where it holds


def load(path: str, doc: Any, sweeps: list[str]) -> list[WindowDef]:
    """The ``[[window]]`` tables, checked; every error one line naming the file and the key."""
    from aqmlab.reproduce.metrics import _err, _known, _leaf, _sweeps, compile_expr, where_of

    if not isinstance(doc, list):
        raise AqmlabError(f"{path}: window: expected [[window]] tables")
    out = []
    for i, d in enumerate(doc):
        where = f"{path}: window[{i}]"
        if not isinstance(d, dict):
            raise AqmlabError(f"{where}: expected a table")
        _known(where, d, _KEYS)
        name = d.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][\w]*(\{i\}[\w]*)?", name):
            raise _err(where, "name", 'a template of {i}, the window\'s number ("phase{i}")', name)
        where = f"{path}: window[{i}] ({name!r})"
        link = d.get("link")
        if not isinstance(link, str) or not link:
            raise _err(where, "link", "the link whose log is cut (a text)", link)
        start, end = d.get("start_s", 0), d.get("end_s")
        if not (_number(start) and start >= 0) and not _param(start):
            raise _err(where, "start_s", 'a number of seconds >= 0, or "{param}"', start)
        if ("length_s" in d) == (end is not None):
            raise AqmlabError(f"{where}: expected one of length_s or end_s")
        length = d.get("length_s")
        if end is not None:
            if not _number(end) and not _param(end):
                raise _err(where, "end_s", 'a number of seconds, or "{param}"', end)
            if _number(start) and _number(end) and not start < end:
                raise _err(where, "end_s", f"a time after start_s ({start:g})", end)
        elif not _number(length) and not _param(length):
            raise _err(where, "length_s", 'a positive number of seconds, or "{param}"', length)
        elif _number(length) and length <= 0:
            raise _err(where, "length_s", "a positive number of seconds", length)
        fields = d.get("fields", {})
        lens = {len(v) for v in fields.values() if isinstance(v, list)}
        if (
            not isinstance(fields, dict)
            or any(not isinstance(v, list) for v in fields.values())
            or len(lens) > 1
            or {"i", "t0", "t1"} & set(fields)
        ):
            raise _err(
                where, "fields", "a table of NAME = [one value per window] (not i, t0, t1)", fields
            )
        count = d.get("count", next(iter(lens)) if lens else 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise _err(where, "count", "the number of windows, a whole number from 1", count)
        if end is not None and count != 1:
            raise _err(where, "count", "1 with end_s (one window)", count)
        if count > 1 and "{i}" not in name:
            raise _err(where, "name", 'a template of {i}, the window\'s number ("phase{i}")', name)
        if lens and lens != {count}:
            raise _err(where, "fields", f"lists of count ({count}) values", fields)
        sw = _sweeps(where, d.get("sweeps", []), sweeps)
        wh = where_of(where, d)
        vals = d.get("values")
        if not isinstance(vals, dict) or not vals:
            raise _err(where, "values", "a table of NAME = { column, reduce, q, then }", vals)
        leaves = {}
        for k, v in vals.items():
            leaf = _leaf(f"{where}.values.{k}", v, reducers=REDUCERS)
            if not _NAME.fullmatch(leaf.column):
                compile_expr(leaf.column, f"{where}.values.{k}.column")
            leaves[k] = leaf
        out.append(WindowDef(name, link, length, count, start, fields, sw, leaves, where, end, wh))
    return out


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _param(x: Any) -> bool:
    return isinstance(x, str) and x.startswith("{")


def _seconds(w: WindowDef, key: str, v: Any, fill: Any, as_int: bool = True) -> Any:
    """``v`` (``w``'s ``key``), a ``"{param}"`` filled, as a number of seconds."""
    if not isinstance(v, str):
        return v
    text = fill(v)
    try:
        return int(text) if as_int else float(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise AqmlabError(
                f"{w.where}.{key}: {v!r} is {text!r}, not a number of seconds"
            ) from None


def bounds(w: WindowDef, fill: Any) -> list[tuple[Any, Any]]:
    """Each window's ``(t0, t1)`` in seconds."""
    start = _seconds(w, "start_s", w.start_s, fill, as_int=False)
    if w.end_s is not None:
        end = _seconds(w, "end_s", w.end_s, fill, as_int=False)
        if not start < end:
            raise AqmlabError(
                f"{w.where}.end_s: expected a time after start_s ({start:g}), got {end:g}"
            )
        return [(start, end)]
    length = _seconds(w, "length_s", w.length_s, fill)
    if isinstance(w.length_s, str) and not length > 0:
        raise AqmlabError(
            f"{w.where}.length_s: {w.length_s!r} is {fill(w.length_s)!r}, not positive"
        )
    return [(start + i * length, start + (i + 1) * length) for i in range(w.count)]


def columns(df: Any, defs: list[WindowDef], sweep: str, runs_dir: str, fill: Any) -> Any:
    """``df`` (a sweep's results, one row per run, its ``run`` the run's folder in
    ``runs_dir``) with the columns of ``defs`` that apply to ``sweep``."""
    import numpy as np
    import pandas as pd

    from aqmlab.reproduce.metrics import compile_expr

    defs = [w for w in defs if not w.sweeps or sweep in w.sweeps]
    if not defs:
        return df
    new: dict[str, Any] = {}
    for w in defs:
        wins = bounds(w, fill)
        sel = pd.Series(True, index=df.index)
        if w.where_expr:
            e = compile_expr(fill(w.where_expr), f"{w.where}.where")
            sel = e.eval(df, f"sweep {sweep!r}").astype(bool)
        got: dict[Any, dict[str, float]] = {}
        for i, run in df.loc[sel, "run"].items():
            got[i] = run_values(w, os.path.join(runs_dir, str(run)), wins, fill)
        for prefix, each in _windows(w, wins):
            for name, leaf in w.values.items():
                if not leaf.column.startswith(FLOWS):
                    k = f"{prefix}.{name}"
                    new[k] = pd.Series(
                        {i: v[k] for i, v in got.items()}, index=df.index, dtype=float
                    )
                    continue
                # Every flow some run has in the window, by number; a run without its bins
                # reduces nothing there (a sum 0).
                keys = {k for v in got.values() for k in v if k.startswith(f"{prefix}.flows[")}
                nothing = _then(leaf, _reduce(np.array([]), leaf.reduce, leaf.q, np), each, fill)
                for k in sorted(keys, key=lambda k: int(k.split("[", 1)[1].split("]", 1)[0])):
                    if not k.endswith(f"].{name}"):
                        continue
                    new[k] = pd.Series(
                        {i: v.get(k, nothing) for i, v in got.items()}, index=df.index, dtype=float
                    )
    if not new:
        return df
    keep = df.drop(columns=[c for c in new if c in df.columns])
    return pd.concat([keep, pd.DataFrame(new, index=df.index)], axis=1).copy()


def _windows(w: WindowDef, wins: list[tuple[Any, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Each window's prefix of its columns and its fields (``fields``, ``t0``, ``t1``)."""
    return [
        (
            w.name.replace("{i}", str(i + 1)),
            {**{k: v[i] for k, v in w.fields.items()}, "t0": t0, "t1": t1},
        )
        for i, (t0, t1) in enumerate(wins)
    ]


def run_values(
    w: WindowDef, run_dir: str, wins: list[tuple[Any, Any]], fill: Any
) -> dict[str, float]:
    """One run's columns of ``w``: ``{name(i).value: number}``."""
    import numpy as np

    from aqmlab.results import Run

    cols = [leaf.column for leaf in w.values.values()]
    t = soj = series = flows = None
    try:
        r = Run(run_dir)
        if any(c in PACKET_COLUMNS for c in cols):
            t, soj = r.sojourns_ms(w.link)
        series = r.link_series(w.link)
        if not len(series):
            raise AqmlabError(f"the run has no series of link {w.link!r}: not its link")
        if any(c.startswith(FLOWS) for c in cols):
            flows = r.table("flows")
    except (OSError, KeyError, ValueError, AqmlabError) as e:
        raise AqmlabError(f"{w.where}: run {run_dir}: {e}") from None
    if TOTAL_SOJOURN in cols:
        series = series.assign(
            **{TOTAL_SOJOURN: series["released_pkts"] * series["mean_sojourn_ms"].fillna(0.0)}
        )
    exprs = {c: _expr(w, c) for c in cols if not _NAME.fullmatch(c)}
    missing = [c for c in cols if c not in PACKET_COLUMNS and c not in series.columns]
    missing = [c for c in missing if not c.startswith(FLOWS) and c not in exprs]
    missing += [n for e in exprs.values() for n in e.columns() if n not in series.columns]
    missing += [c for c in cols if c.startswith(FLOWS) and c[len(FLOWS) :] not in flows.columns]
    if missing:
        raise AqmlabError(
            f"{w.where}.values: no column {missing[0]!r} in link {w.link!r}'s series "
            f"(nor the packet log's {', '.join(PACKET_COLUMNS)}, nor the flows' series as "
            "flows.COLUMN)"
        )
    if exprs:
        series = series.assign(
            **{c: e.eval(series, f"link {w.link!r}'s series") for c, e in exprs.items()}
        )
    out: dict[str, float] = {}
    for prefix, each in _windows(w, wins):
        t0, t1 = each["t0"], each["t1"]
        for name, leaf in w.values.items():
            if leaf.column.startswith(FLOWS):
                inside = (flows["t_s"] >= t0 - 1e-9) & (flows["t_s"] < t1 - 1e-9)
                by = flows.loc[inside].groupby("flow")[leaf.column[len(FLOWS) :]]
                for f, x in by:
                    v = _then(leaf, _reduce(x.to_numpy(), leaf.reduce, leaf.q, np), each, fill)
                    out[f"{prefix}.flows[{int(f)}].{name}"] = v
                continue
            if leaf.column in PACKET_COLUMNS:
                x = soj[(t >= t0) & (t < t1)]
            else:
                inside = (series["t_s"] >= t0 - 1e-9) & (series["t_s"] < t1 - 1e-9)
                x = series.loc[inside, leaf.column].to_numpy()
            out[f"{prefix}.{name}"] = _then(leaf, _reduce(x, leaf.reduce, leaf.q, np), each, fill)
    return out


def _expr(w: WindowDef, column: str) -> Any:
    """A value's ``column`` that is an expression of the series' columns, checked."""
    from aqmlab.reproduce.metrics import compile_expr

    name = next(k for k, leaf in w.values.items() if leaf.column == column)
    return compile_expr(column, f"{w.where}.values.{name}.column")


def _then(leaf: Any, v: float, each: dict[str, Any], fill: Any) -> float:
    """``v`` through the value's ``then``, the window's fields filled in first."""
    from aqmlab.reproduce.metrics import _fill_each, then

    if not leaf.then or math.isnan(v):
        return v
    filled = leaf.then
    for k, fv in each.items():
        filled = _fill_each(filled, {k: [fv]}, 0)
    return then(leaf, v, lambda s, f=filled: fill(f))


def _reduce(x: Any, how: str, q: float, np: Any) -> float:
    if how == "count":
        return float(len(x))
    if how == "sum":
        return float(x.sum())
    if len(x) == 0:
        return math.nan
    if how == "quantile":
        return float(np.quantile(x, q))
    if how == "median":
        return float(np.quantile(x, 0.5))
    if how == "std":
        return float(np.std(x))
    return float(getattr(x, how)())
