"""Per-run columns cut from a run's own log by time window (docs/reproductions.md, "Windows of
a run"): a ``[[window]]`` of ``experiment.toml`` reduces one link's packet log and series over
consecutive windows of each run (a link whose rate changes every phase: codel-dynamic's six),
one column per window and value, added to its sweep's results before the ``[[derive]]``s.

A ``[[window]]`` is ``name`` (a template of ``{i}``, the window's number from 1: ``"phase{i}"``
gives the columns ``phase1.p50_ms`` ...), ``link``, ``length_s`` (a number, or ``"{param}"``),
``count`` (default: the length of ``fields``' lists), ``start_s`` (default 0: window ``i`` is
``[start + (i-1)·length, start + i·length)``), ``fields`` (a table of NAME = [one value per
window], filled as ``{NAME}`` in ``then``, beside ``{t0}`` and ``{t1}``), ``sweeps`` (default
all), and ``values``: NAME = ``{ column, reduce, q, then }`` as a ``[numbers.NAME]``'s, where
``column`` is ``sojourn_ms`` (every packet of the link's packet log that left in the window)
or a column of the link's series (``egress_bytes``, ``drops``, ...: the bins that start in it),
and ``reduce`` one of :data:`REDUCERS` (``quantile``: NumPy's linear one, as the packet log is
long; a window without a value gives NaN, a ``sum`` 0).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The reductions a window's value may name.
REDUCERS = ("mean", "median", "min", "max", "sum", "count", "quantile")
#: The packet log's columns (the rest are the link series').
PACKET_COLUMNS = ("sojourn_ms",)
_KEYS = ("name", "link", "length_s", "count", "start_s", "fields", "sweeps", "values")


@dataclass
class WindowDef:
    """One ``[[window]]``."""

    name: str
    link: str
    length_s: Any  # a number or a "{param}" text
    count: int
    start_s: float
    fields: dict[str, list[Any]]
    sweeps: list[str]
    values: dict[str, Any]  # NAME -> metrics.Leaf
    where: str  # "FILE: window[i] ('NAME')" for errors


def load(path: str, doc: Any, sweeps: list[str]) -> list[WindowDef]:
    """The ``[[window]]`` tables, checked; every error one line naming the file and the key."""
    from aqmlab.reproduce.metrics import _err, _known, _leaf, _sweeps

    if not isinstance(doc, list):
        raise AqmlabError(f"{path}: window: expected [[window]] tables")
    out = []
    for i, d in enumerate(doc):
        where = f"{path}: window[{i}]"
        if d is None:  # a table of the other form (series_window.split)
            continue
        if not isinstance(d, dict):
            raise AqmlabError(f"{where}: expected a table")
        _known(where, d, _KEYS)
        name = d.get("name")
        if not isinstance(name, str) or "{i}" not in name:
            raise _err(where, "name", 'a template of {i}, the window\'s number ("phase{i}")', name)
        where = f"{path}: window[{i}] ({name!r})"
        link = d.get("link")
        if not isinstance(link, str) or not link:
            raise _err(where, "link", "the link whose log is cut (a text)", link)
        length = d.get("length_s")
        if not _number(length) and not (isinstance(length, str) and length.startswith("{")):
            raise _err(where, "length_s", 'a positive number of seconds, or "{param}"', length)
        if _number(length) and length <= 0:
            raise _err(where, "length_s", "a positive number of seconds", length)
        start = d.get("start_s", 0)
        if not _number(start):
            raise _err(where, "start_s", "a number of seconds", start)
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
        count = d.get("count", next(iter(lens)) if lens else None)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise _err(where, "count", "the number of windows, a whole number from 1", count)
        if lens and lens != {count}:
            raise _err(where, "fields", f"lists of count ({count}) values", fields)
        sw = _sweeps(where, d.get("sweeps", []), sweeps)
        vals = d.get("values")
        if not isinstance(vals, dict) or not vals:
            raise _err(where, "values", "a table of NAME = { column, reduce, q, then }", vals)
        leaves = {}
        for k, v in vals.items():
            leaf = _leaf(f"{where}.values.{k}", v)
            if leaf.reduce not in REDUCERS:
                raise _err(f"{where}.values.{k}", "reduce", " or ".join(REDUCERS), leaf.reduce)
            leaves[k] = leaf
        out.append(WindowDef(name, link, length, count, start, fields, sw, leaves, where))
    return out


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def bounds(w: WindowDef, fill: Any) -> list[tuple[Any, Any]]:
    """Each window's ``(t0, t1)`` in seconds."""
    length = w.length_s
    if isinstance(length, str):
        text = fill(length)
        try:
            length = int(text)
        except ValueError:
            try:
                length = float(text)
            except ValueError:
                raise AqmlabError(
                    f"{w.where}.length_s: {w.length_s!r} is {text!r}, not a number of seconds"
                ) from None
        if not length > 0:
            raise AqmlabError(f"{w.where}.length_s: {w.length_s!r} is {text!r}, not positive")
    return [(w.start_s + i * length, w.start_s + (i + 1) * length) for i in range(w.count)]


def columns(df: Any, defs: list[WindowDef], sweep: str, runs_dir: str, fill: Any) -> Any:
    """``df`` (a sweep's results, one row per run, its ``run`` the run's folder in
    ``runs_dir``) with the columns of ``defs`` that apply to ``sweep``."""
    import pandas as pd

    defs = [w for w in defs if not w.sweeps or sweep in w.sweeps]
    if not defs:
        return df
    new: dict[str, list[Any]] = {}
    for w in defs:
        wins = bounds(w, fill)
        for run in df["run"]:
            for k, v in run_values(w, os.path.join(runs_dir, str(run)), wins, fill).items():
                new.setdefault(k, []).append(v)
    keep = df.drop(columns=[c for c in new if c in df.columns])
    return pd.concat([keep, pd.DataFrame(new, index=df.index)], axis=1).copy()


def run_values(
    w: WindowDef, run_dir: str, wins: list[tuple[Any, Any]], fill: Any
) -> dict[str, float]:
    """One run's columns of ``w``: ``{name(i).value: number}``."""
    import numpy as np

    from aqmlab.reproduce.metrics import _fill_each, then
    from aqmlab.results import Run

    r = Run(run_dir)
    need_packets = any(leaf.column in PACKET_COLUMNS for leaf in w.values.values())
    need_series = any(leaf.column not in PACKET_COLUMNS for leaf in w.values.values())
    t = soj = series = None
    try:
        if need_packets:
            t, soj = r.sojourns_ms(w.link)
        if need_series:
            series = r.link_series(w.link)
    except (OSError, AqmlabError) as e:
        raise AqmlabError(f"{w.where}: run {run_dir}: {e}") from None
    if series is not None:
        missing = [
            leaf.column
            for leaf in w.values.values()
            if leaf.column not in PACKET_COLUMNS and leaf.column not in series.columns
        ]
        if missing:
            raise AqmlabError(
                f"{w.where}.values: no column {missing[0]!r} in link {w.link!r}'s series "
                f"(nor the packet log's {', '.join(PACKET_COLUMNS)})"
            )
    out: dict[str, float] = {}
    for i, (t0, t1) in enumerate(wins):
        each = {**{k: v[i] for k, v in w.fields.items()}, "t0": t0, "t1": t1}
        prefix = w.name.replace("{i}", str(i + 1))
        for name, leaf in w.values.items():
            if leaf.column in PACKET_COLUMNS:
                x = soj[(t >= t0) & (t < t1)]
            else:
                inside = (series["t_s"] >= t0 - 1e-9) & (series["t_s"] < t1 - 1e-9)
                x = series.loc[inside, leaf.column].to_numpy()
            v = _reduce(x, leaf.reduce, leaf.q, np)
            if leaf.then and not math.isnan(v):
                filled = leaf.then
                for k, fv in each.items():
                    filled = _fill_each(filled, {k: [fv]}, 0)
                v = then(leaf, v, lambda s, f=filled: fill(f))
            out[f"{prefix}.{name}"] = v
    return out


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
    return float(getattr(x, how)())
