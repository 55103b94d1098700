"""Reference tables as results (docs/reproductions.md, "Metrics as data": ``[frames.NAME]``).

A ``[frames.NAME]`` of ``experiment.toml`` names a CSV file of the folder (``csv``), one row
per run of another simulator or a published table, read as if it were a sweep's results:
``ctx.frames[NAME]`` holds it, a ``[[derive]]`` whose ``sweeps`` names it adds columns to it,
and a ``[numbers.NAME]`` whose ``sweeps`` names it reduces it, with the same code as our runs
(red-bursty: ns-2.35's runs of the same set-ups). A ``[[derive]]`` or a ``[numbers.NAME]``
without ``sweeps`` reads the sweeps only, so declaring a frame changes no other number.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The keys a ``[frames.NAME]`` may hold.
KEYS = ("csv",)


@dataclass
class FrameDef:
    """One ``[frames.NAME]``: a CSV file of the folder read as a results table."""

    name: str
    csv: str  # an absolute path
    where: str  # "FILE: frames.NAME" for errors


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
        csv = d.get("csv")
        if (
            not isinstance(csv, str)
            or not csv.endswith(".csv")
            or not os.path.isfile(os.path.join(folder, csv))
        ):
            raise AqmlabError(f"{where}.csv: expected a CSV file of the folder, got {csv!r}")
        out.append(FrameDef(name, os.path.join(folder, csv), where))
    return out


def read(fd: FrameDef) -> Any:
    """The frame's CSV as a DataFrame (a row per line, its header the columns)."""
    import pandas as pd

    try:
        return pd.read_csv(fd.csv)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
        msg = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        raise AqmlabError(f"{fd.where}.csv: {os.path.basename(fd.csv)}: {msg}") from None


def frames(defs: list[FrameDef], derives: list[Any], fill: Any) -> dict[str, Any]:
    """Each frame read, with the ``[[derive]]`` columns whose ``sweeps`` name it."""
    from aqmlab.reproduce import metrics

    return {
        fd.name: metrics.derive(
            read(fd), [d for d in derives if fd.name in d.sweeps], fd.name, fill
        )
        for fd in defs
    }
