"""Per-run columns from each run's time series over a window (docs/reproductions.md, "Metrics
as data": ``[[window]]``): what a run did after a warm-up, where the summary counts the whole
run.

A ``[[window]]`` of ``experiment.toml`` names a link and the window ``[from_s, to_s)``; each run
of its sweeps (``sweeps``, default all; ``where``: only the runs where an expression of the
results' columns holds, the others get no value) gains the columns

* ``NAME.bytes``, ``NAME.pkts``, ``NAME.drops``: what the link sent, released and dropped in
  the window's bins (:func:`aqmlab.reproduce.common.window_stats`);
* ``NAME.avg_queue``: the average queue by Little's law, the summed sojourns of the packets
  released in the window ÷ its length;
* with ``flows = true``, ``NAME.flows[I].delivered_bytes``: the bytes each flow delivered in
  the window's bins (:func:`aqmlab.reproduce.common.flow_bytes`; 0 for a flow that delivered
  none in a run where another did).

They are added before the ``[[derive]]`` columns, which may use them
(``utilization = "w.bytes * 8 / 45e6 / 9"``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError

KEYS = ("name", "link", "from_s", "to_s", "flows", "sweeps", "where")
#: The columns every window adds, after its name and a dot.
COLUMNS = ("bytes", "pkts", "drops", "avg_queue")


@dataclass
class WindowDef:
    name: str
    link: str
    from_s: float | str  # a number, or a "{param}" text filled when the runs are read
    to_s: float | str
    flows: bool = False
    sweeps: list[str] = field(default_factory=list)
    where_expr: str = ""
    where: str = ""  # "FILE: window[i]" for errors


def _time(where: str, key: str, v: Any) -> float | str:
    if isinstance(v, str) and re.fullmatch(r"\{\w+(:[^{}]*)?\}", v):
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise AqmlabError(
            f'{where}.{key}: expected a time in seconds (a number >= 0, or "{{param}}"), got {v!r}'
        )
    return float(v)


def split(path: str, doc: Any) -> tuple[Any, Any]:
    """The ``[[window]]`` tables in two lists of the same length, each holding its own form's
    tables in their places and None in the other's (so that errors keep the table's index):
    ``count`` windows of ``length_s`` over the packet log and series (``windows.py``), and one
    window ``from_s`` to ``to_s`` of the series (this file)."""
    if not isinstance(doc, list):
        return doc, []
    one = [d if isinstance(d, dict) and ("from_s" in d or "to_s" in d) else None for d in doc]
    return [None if o is not None else d for d, o in zip(doc, one)], one


def load(path: str, doc: Any, sweeps: list[str]) -> list[WindowDef]:
    """The ``[[window]]`` tables, checked."""
    from aqmlab.reproduce.metrics import compile_expr

    if not isinstance(doc, list):
        raise AqmlabError(f"{path}: window: expected [[window]] tables")
    out = []
    for i, d in enumerate(doc):
        where = f"{path}: window[{i}]"
        if d is None:  # a table of the other form (series_window.split)
            continue
        if not isinstance(d, dict):
            raise AqmlabError(f"{where}: expected a table")
        for k in d:
            if k not in KEYS:
                raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(KEYS)})")
        name, link = d.get("name"), d.get("link")
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][\w]*", name):
            raise AqmlabError(f"{where}.name: expected the columns' prefix (a name), got {name!r}")
        if not isinstance(link, str) or not link:
            raise AqmlabError(f"{where}.link: expected a link's name (a text), got {link!r}")
        t0, t1 = _time(where, "from_s", d.get("from_s")), _time(where, "to_s", d.get("to_s"))
        if isinstance(t0, float) and isinstance(t1, float) and not t0 < t1:
            raise AqmlabError(f"{where}.to_s: expected a time after from_s ({t0:g}), got {t1:g}")
        flows = d.get("flows", False)
        if not isinstance(flows, bool):
            raise AqmlabError(f"{where}.flows: expected true or false, got {flows!r}")
        sw = d.get("sweeps", [])
        if not isinstance(sw, list) or not all(isinstance(s, str) and s in sweeps for s in sw):
            raise AqmlabError(
                f"{where}.sweeps: expected names of [[sweep]]s ({', '.join(sweeps)}), got {sw!r}"
            )
        wh = d.get("where", "")
        if not isinstance(wh, str):
            raise AqmlabError(f"{where}.where: expected an expression of the results' columns")
        if wh and "{" not in wh:
            compile_expr(wh, f"{where}.where")
        out.append(WindowDef(name, link, t0, t1, flows, sw, wh, where))
    return out


def add(df: Any, defs: list[WindowDef], sweep: str, runs: str, fill: Any) -> Any:
    """``df`` (sweep ``sweep``'s results, its runs in the folder ``runs``) with the columns
    of the ``defs`` that apply to it."""
    import pandas as pd

    from aqmlab.reproduce.common import flow_bytes, link_series, window_stats
    from aqmlab.reproduce.metrics import compile_expr

    new: dict[str, Any] = {}
    for w in defs:
        if w.sweeps and sweep not in w.sweeps:
            continue
        t0, t1 = (float(fill(t)) if isinstance(t, str) else t for t in (w.from_s, w.to_s))
        if not t0 < t1:
            raise AqmlabError(f"{w.where}.to_s: expected a time after from_s ({t0:g}), got {t1:g}")
        sel = pd.Series(True, index=df.index)
        if w.where_expr:
            e = compile_expr(fill(w.where_expr), f"{w.where}.where")
            sel = e.eval(df, f"sweep {sweep!r}").astype(bool)
        stats: dict[Any, dict[str, float]] = {}
        fb: dict[Any, dict[int, float]] = {}
        for i, key in df.loc[sel, "run"].items():
            run_dir = os.path.join(runs, str(key))
            try:
                if not stats and not len(link_series(run_dir, w.link)):
                    raise AqmlabError(f"the run has no series of link {w.link!r}: not its link")
                stats[i] = window_stats(run_dir, w.link, t0, t1)
                if w.flows:
                    fb[i] = flow_bytes(run_dir, t0, t1)
            except (AqmlabError, OSError, KeyError, ValueError) as e:
                raise AqmlabError(f"{w.where}: run {key} of sweep {sweep!r}: {e}") from None
        for c in COLUMNS:
            new[f"{w.name}.{c}"] = pd.Series(
                {i: s[c] for i, s in stats.items()}, index=df.index, dtype=float
            )
        ids = sorted({f for b in fb.values() for f in b})
        for f in ids:
            new[f"{w.name}.flows[{f}].delivered_bytes"] = pd.Series(
                {i: b.get(f, 0.0) for i, b in fb.items()}, index=df.index, dtype=float
            )
    if not new:
        return df
    keep = df.drop(columns=[c for c in new if c in df.columns])
    return pd.concat([keep, pd.DataFrame(new, index=df.index)], axis=1).copy()
