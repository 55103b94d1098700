"""A ``[[derive]]``'s ``sum`` (docs/reproductions.md, "Metrics as data"): the sum of a family of
per-run columns, ``"flows[*].delivered_bytes"`` naming every flow's column, ``*`` standing for
an index; they are added in the index's order (red-vs-codel's every flow's bytes)."""

from __future__ import annotations

import re
from typing import Any

from aqmlab.exceptions import AqmlabError


def parse(where: str, v: Any) -> str:
    """The key's pattern: a text with one ``*``; errors name the file, the table and the key."""
    if not isinstance(v, str) or v.count("*") != 1:
        raise AqmlabError(
            f"{where}.sum: expected a column name with one * standing for an index "
            f'("flows[*].delivered_bytes"), got {v!r}'
        )
    return v


def columns(names: Any, pattern: str) -> list[str]:
    """The columns of ``names`` that ``pattern`` names, in the order of their index."""
    rx = re.compile(re.escape(pattern).replace(r"\*", r"(\d+)") + r"\Z")
    found = [(int(m.group(1)), c) for c in names if (m := rx.match(str(c)))]
    return [c for _, c in sorted(found)]


def total(df: Any, pattern: str, where: str, sweep: str) -> Any:
    """Each run's sum of the columns ``pattern`` names (a missing value counts as none, as
    pandas' sum does)."""
    cols = columns(df.columns, pattern)
    if not cols:
        raise AqmlabError(f"{where}.sum: no column {pattern!r} in the results of sweep {sweep!r}")
    return df[cols].sum(axis=1)
