"""A ``[[derive]]``'s ``sum`` (docs/reproductions.md, "Metrics as data"): the sum of a family of
per-run columns, ``"flows[*].delivered_bytes"`` naming every flow's column, ``*`` standing for
an index (red-vs-codel's every flow's bytes), or ``"flows[0, 2].links.bottleneck.arrived_pkts"``
naming only the columns of those indices (consumer-edge-drops' packets of the direction's data
flows; ``"flows[1]..."``, a list of one, is that one column). They are added in the index's
order; a missing value, or a listed index without the column (a flow that never crossed that
link), counts as none, as pandas' sum does. A pattern holding ``{NAME}`` fields (``each``'s)
is checked once they are filled."""

from __future__ import annotations

import re
from typing import Any

from aqmlab.exceptions import AqmlabError

#: An index's place in a pattern: ``[*]`` (any index) or ``[0, 2]`` (those indices).
_PLACE = re.compile(r"\[(\*|\d+(?:\s*,\s*\d+)*)\]")


def parse(where: str, v: Any) -> str:
    """The key's pattern: a text with one ``*`` or one list of indices in brackets; errors
    name the file, the table and the key."""
    if not isinstance(v, str) or ("{" not in v and _place(v) is None):
        raise _bad(where, v)
    return v


def _bad(where: str, v: Any) -> AqmlabError:
    return AqmlabError(
        f"{where}.sum: expected a column name with one * standing for an index "
        f'("flows[*].delivered_bytes") or one list of indices ("flows[0, 2].delivered_bytes"), '
        f"got {v!r}"
    )


def _place(pattern: str) -> Any:
    """The pattern's one index place (a regex match), or None when it has none or several (or
    a ``*`` outside it)."""
    places = list(_PLACE.finditer(pattern))
    if len(places) != 1 or pattern.count("*") != (places[0].group(1) == "*"):
        return None
    return places[0]


def columns(names: Any, pattern: str) -> list[str]:
    """The columns of ``names`` that ``pattern`` names, in the order of their index."""
    m = _place(pattern)
    if m is None:
        return []
    head, tail = pattern[: m.start()], pattern[m.end() :]
    wanted = None if m.group(1) == "*" else {int(i) for i in m.group(1).split(",")}
    rx = re.compile(re.escape(head) + r"\[(\d+)\]" + re.escape(tail) + r"\Z")
    found = [(int(k.group(1)), c) for c in names if (k := rx.match(str(c)))]
    return [c for i, c in sorted(found) if wanted is None or i in wanted]


def total(df: Any, pattern: str, where: str, sweep: str) -> Any:
    """Each run's sum of the columns ``pattern`` names (a missing value counts as none, as
    pandas' sum does)."""
    if _place(pattern) is None:
        raise _bad(where, pattern)
    cols = columns(df.columns, pattern)
    if not cols:
        raise AqmlabError(f"{where}.sum: no column {pattern!r} in the results of sweep {sweep!r}")
    return df[cols].sum(axis=1)
