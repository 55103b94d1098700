"""A table's rows as a number (docs/reproductions.md, "Metrics as data": ``[numbers.NAME]``
with ``rows``): ``sweeps = [TABLE]`` (one sweep's results or ``[frames.NAME]``), ``where``
and ``rows = [columns]`` give ``results.json`` the list of the table's rows, each a table of
those columns (red-bursty's ``part1``: each point's means over seeds), in the table's order.
"""

from __future__ import annotations

from typing import Any

from aqmlab.exceptions import AqmlabError


def number(name: str, where: str, d: dict[str, Any], sweeps: list[str]) -> Any:
    """A ``[numbers.NAME]`` of ``rows``, checked."""
    from aqmlab.reproduce.metrics import NumberDef, _err, one_sweep, where_of

    other = [k for k in d if k not in ("rows", "sweeps", "where")]
    if other:
        raise AqmlabError(f"{where}.{other[0]}: not with rows (only sweeps and where)")
    cols = d.get("rows")
    if not isinstance(cols, list) or not cols or not all(isinstance(c, str) for c in cols):
        raise _err(where, "rows", "a list of the columns each row holds", cols)
    sw = one_sweep(where, d, sweeps, "one table")
    wh = where_of(where, d)
    return NumberDef(name, sw, wh, [], {}, [], None, {}, where, rows=list(cols))


def value(nd: Any, frames: dict[str, Any], fill: Any) -> list[dict[str, Any]]:
    """The rows of ``nd``'s table (where ``where`` holds), each a table of its ``rows``."""
    from aqmlab.reproduce.metrics import compile_expr

    if nd.sweeps[0] not in frames:
        raise AqmlabError(f"{nd.where}.sweeps: {nd.sweeps[0]!r} did not run in this mode")
    df, what = frames[nd.sweeps[0]], repr(nd.sweeps[0])
    if nd.where_expr:
        df = df[compile_expr(fill(nd.where_expr), f"{nd.where}.where").eval(df, what).astype(bool)]
    missing = [c for c in nd.rows if c not in df.columns]
    if missing:
        raise AqmlabError(f"{nd.where}.rows: no column {missing[0]!r} in the results of {what}")
    return df[nd.rows].to_dict("records")
