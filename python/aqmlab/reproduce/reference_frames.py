"""Tables read as results (docs/reproductions.md, "Metrics as data": ``[frames.NAME]``).

A ``[frames.NAME]`` of ``experiment.toml`` names a CSV file of the folder (``csv``), one row
per run of another simulator or a published table, or the means over runs of a sweep or an
earlier frame (``means``: its runs grouped by the columns ``by``, where ``where`` holds, each
of ``columns`` averaged, in the order the groups first appear: a point's means over seeds as a
module computes them; ``means`` a list: those of its sweeps and frames this mode has, their
rows one after another; ``reduce``: ``median``, ``min`` or ``max`` in place of the mean:
static-rates' grid of medians over loads and seeds, then its lowest over the short RTTs), read
as if it were a sweep's results:
``ctx.frames[NAME]`` holds it, a ``[[derive]]`` whose ``sweeps`` names it adds columns to it,
and a ``[numbers.NAME]`` whose ``sweeps`` names it reduces it, with the same code as our runs
(red-bursty: ns-2.35's runs of the same set-ups). A ``[[derive]]`` or a ``[numbers.NAME]``
without ``sweeps`` reads the sweeps only, so declaring a frame changes no other number.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The keys a ``[frames.NAME]`` may hold.
KEYS = ("csv", "means", "by", "where", "columns", "reduce")
#: A ``means`` frame's reductions of each group (pandas' grouped ones).
REDUCERS = ("mean", "median", "min", "max")


@dataclass
class FrameDef:
    """One ``[frames.NAME]``: a CSV file of the folder read as a results table."""

    name: str
    csv: str  # an absolute path, or ""
    where: str  # "FILE: frames.NAME" for errors
    #: ``means``: the sweeps or earlier frames averaged (their rows one after another), by
    #: ``by``, their rows where ``where_expr`` holds, ``columns`` reduced by ``reduce``.
    means: list[str] = field(default_factory=list)
    by: list[str] = field(default_factory=list)
    where_expr: str = ""
    columns: list[str] = field(default_factory=list)
    reduce: str = "mean"


def load(path: str, doc: Any, folder: str, sweeps: list[str]) -> list[FrameDef]:
    """The ``[frames.NAME]`` tables of ``path`` (an experiment file in ``folder``), checked:
    each names a CSV file of the folder and is named unlike every ``[[sweep]]``."""
    if not isinstance(doc, dict):
        raise AqmlabError(f"{path}: frames: expected [frames.NAME] tables")
    out = []
    for name, d in doc.items():
        where = f"{path}: frames.{name}"
        if not isinstance(d, dict):
            raise AqmlabError(f'{where}: expected a table {{ csv = "FILE.csv" }}')
        for k in d:
            if k not in KEYS:
                raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(KEYS)})")
        if name in sweeps:
            raise AqmlabError(f"{where}: expected a name no [[sweep]] has ({', '.join(sweeps)})")
        if ("csv" in d) == ("means" in d):
            raise AqmlabError(f"{where}: expected csv (a file of the folder) or means, not both")
        if "means" in d:
            out.append(_means(where, name, d, [*sweeps, *(f.name for f in out)]))
            continue
        extra = [k for k in d if k != "csv"]
        if extra:
            raise AqmlabError(f"{where}.{extra[0]}: only with means, not csv")
        csv = d.get("csv")
        if (
            not isinstance(csv, str)
            or not csv.endswith(".csv")
            or not os.path.isfile(os.path.join(folder, csv))
        ):
            raise AqmlabError(f"{where}.csv: expected a CSV file of the folder, got {csv!r}")
        out.append(FrameDef(name, os.path.join(folder, csv), where))
    return out


def _means(where: str, name: str, d: dict[str, Any], known: list[str]) -> FrameDef:
    from aqmlab.reproduce.metrics import compile_expr

    of = d.get("means")
    names = of if isinstance(of, list) and of else [of]
    if not all(isinstance(n, str) and n in known for n in names):
        raise AqmlabError(
            f"{where}.means: expected a [[sweep]] or a frame declared above ({', '.join(known)}), "
            f"or a list of them, got {of!r}"
        )
    reduce = d.get("reduce", "mean")
    if reduce not in REDUCERS:
        raise AqmlabError(f"{where}.reduce: expected {' or '.join(REDUCERS)}, got {reduce!r}")
    lists = {}
    for k in ("by", "columns"):
        v = d.get(k)
        if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v):
            raise AqmlabError(f"{where}.{k}: expected a list of columns, got {v!r}")
        lists[k] = v
    wh = d.get("where", "")
    if not isinstance(wh, str):
        raise AqmlabError(f"{where}.where: expected an expression of the columns, got {wh!r}")
    if wh and "{" not in wh:
        compile_expr(wh, f"{where}.where")
    return FrameDef(name, "", where, names, lists["by"], wh, lists["columns"], reduce)


def mean_frame(fd: FrameDef, df: Any, fill: Any) -> Any:
    """``df``'s rows (where ``fd.where_expr`` holds) grouped by ``fd.by``, each of
    ``fd.columns`` reduced by ``fd.reduce`` (pandas' grouped mean, median, min or max), in the
    order the groups first appear."""
    from aqmlab.reproduce.metrics import compile_expr

    what = ", ".join(repr(n) for n in fd.means)
    if fd.where_expr:
        sel = compile_expr(fill(fd.where_expr), f"{fd.where}.where").eval(df, what)
        df = df[sel.astype(bool)]
    for k in ("by", "columns"):
        missing = [c for c in getattr(fd, k) if c not in df.columns]
        if missing:
            raise AqmlabError(f"{fd.where}.{k}: no column {missing[0]!r} in the results of {what}")
    return getattr(df.groupby(fd.by, sort=False)[fd.columns], fd.reduce)().reset_index()


def read(fd: FrameDef) -> Any:
    """The frame's CSV as a DataFrame (a row per line, its header the columns)."""
    import pandas as pd

    try:
        return pd.read_csv(fd.csv)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        msg = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        raise AqmlabError(f"{fd.where}.csv: {os.path.basename(fd.csv)}: {msg}") from None


def frames(
    defs: list[FrameDef], derives: list[Any], fill: Any, results: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Each frame, in order (a ``means`` of ``results``, the sweeps' results, or of frames
    above it), with the ``[[derive]]`` columns whose ``sweeps`` name it. A ``means`` of sweeps
    the mode did not run is left out, as those sweeps are (of a list, those it ran are read)."""
    import pandas as pd

    from aqmlab.reproduce import metrics

    out: dict[str, Any] = {}
    for fd in defs:
        if fd.means:
            have = {**(results or {}), **out}
            srcs = [have[n] for n in fd.means if n in have]
            if not srcs:
                continue
            src = srcs[0] if len(srcs) == 1 else pd.concat(srcs, ignore_index=True)
            df = mean_frame(fd, src, fill)
        else:
            df = read(fd)
        out[fd.name] = metrics.derive(
            df, [d for d in derives if fd.name in d.sweeps], fd.name, fill
        )
    return out
