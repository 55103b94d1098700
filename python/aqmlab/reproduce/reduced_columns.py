"""A reduced sweep's ``reduced.json`` as columns of its results (docs/reproductions.md,
"Metrics as data", "A reduced sweep"): a sweep with a ``reduce`` (``[sweep.reduce.packet_log]``
or ``"FILE.py:FUNCTION"``) keeps, per run, only what its reducer returned; each of its keys
becomes the column ``reduced.KEY`` of the sweep's results, and each key of a table in it
``reduced.KEY.SUBKEY`` (at any depth), before any ``[[derive]]``, so that ``[numbers.NAME]``
and expressions read them as any other column. A value is kept as the reducer wrote it (a
number, a table, a list: a table's ``reduce = "value"`` is that table); a run whose
``reduced.json`` lacks a key has no value there (NaN).
"""

from __future__ import annotations

from typing import Any

#: The prefix of the columns (``reduced.delay_s``): apart from the summary's columns.
PREFIX = "reduced."


def add(df: Any, sweep_out: str) -> Any:
    """``df`` (a sweep's results, one row per run, its ``run`` column naming the run's folder
    under ``sweep_out``) with a ``reduced.KEY`` column for every key of the runs'
    ``reduced.json``, in the order the runs first name them."""
    import pandas as pd

    from aqmlab.results import Sweep

    if df.empty:
        return df
    folder = Sweep(sweep_out)
    docs = [_flat(folder.run(key).reduced) for key in df["run"]]
    keys: dict[str, None] = {}
    for d in docs:
        keys.update(dict.fromkeys(d))
    cols = {}
    for k in keys:
        vals = [d.get(k, float("nan")) for d in docs]
        plain = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals)
        # Numbers as a number column (integers stay integers), anything else as Python objects.
        cols[PREFIX + k] = pd.Series(vals, index=df.index, dtype=None if plain else object)
    return pd.concat([df, pd.DataFrame(cols, index=df.index)], axis=1)


def _flat(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every key of ``doc`` (its value as it is), then those of a table in it, dotted."""
    out: dict[str, Any] = {}
    for k, v in doc.items():
        out[prefix + k] = v
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
    return out
