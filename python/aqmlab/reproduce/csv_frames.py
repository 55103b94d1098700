"""A CSV file of the reproduction's folder read as a sweep's results (docs/reproductions.md,
"Metrics as data"): ``[csv.NAME]`` with ``file`` (a path relative to the folder) makes a table
named ``NAME`` that a ``[[derive]]`` naming it in ``sweeps`` adds columns to and a
``[numbers.NAME]`` naming it in ``sweeps`` reduces, exactly as a sweep's runs: another
simulator's runs of the same set-up (codel-dynamic's ns-2.35 table) become numbers beside ours.
A ``[[derive]]`` or ``[numbers.NAME]`` without ``sweeps`` reads the sweeps only.
"""

from __future__ import annotations

import os
from typing import Any

from aqmlab.exceptions import AqmlabError


def load(path: str, folder: str, doc: Any, sweeps: list[str]) -> dict[str, str]:
    """``[csv.NAME]`` tables, checked: NAME -> the file's path."""
    if not isinstance(doc, dict):
        raise AqmlabError(f"{path}: csv: expected [csv.NAME] tables")
    out = {}
    for name, d in doc.items():
        where = f"{path}: csv.{name}"
        if name in sweeps:
            raise AqmlabError(f"{where}: a [[sweep]] has this name (expected a name of its own)")
        if not isinstance(d, dict) or set(d) != {"file"}:
            extra = sorted(set(d) - {"file"}) if isinstance(d, dict) else []
            if extra:
                raise AqmlabError(f"{where}.{extra[0]}: unknown key (expected file)")
            raise AqmlabError(f"{where}.file: expected a CSV file of the folder (a text)")
        f = d["file"]
        full = os.path.join(folder, f) if isinstance(f, str) else ""
        if not isinstance(f, str) or not f.endswith(".csv") or not os.path.isfile(full):
            raise AqmlabError(f"{where}.file: expected a CSV file of the folder, got {f!r}")
        out[name] = full
    return out


def default_sweeps(numbers: list[Any], sweeps: list[str]) -> None:
    """A ``[numbers.NAME]`` over runs without ``sweeps`` reads every sweep, not the CSVs."""
    for nd in numbers:
        # Only numbers over runs (a fit, a number of numbers, has no sweeps of its own).
        if hasattr(nd, "sweeps") and not nd.sweeps and getattr(nd, "values", None) is not None:
            nd.sweeps = list(sweeps)


def read(ctx: Any) -> None:
    """Each ``[csv.NAME]`` into ``ctx.frames[NAME]``, with the ``[[derive]]`` columns that name
    it."""
    import pandas as pd

    from aqmlab.reproduce.metrics import derive

    for name, f in ctx.experiment.csvs.items():
        try:
            df = pd.read_csv(f)
        except (OSError, ValueError) as e:
            raise AqmlabError(f"{f}: not a CSV table: {e}") from None
        defs = [d for d in ctx.experiment.derives if name in d.sweeps]
        ctx.frames[name] = derive(df, defs, name, ctx.fill)
