"""Lists among a ``[numbers.NAME]``'s results (docs/reproductions.md, "Metrics as data"):
``reduce = "list"`` gives a group's values themselves, in the order of its runs (the seeds'
own values beside their mean), and a ``key`` level in square brackets (``"[{i}]"``) lays its
entries out as a list instead of a table, in the order the groups come (sorted by ``by``, then
``each``'s order): codel-dynamic's ``cases.CASE.phases``, one table per phase.
"""

from __future__ import annotations

from typing import Any


def values(col: Any) -> list[Any]:
    """A group's values as Python gives them (an integer column's stay integers), NaNs kept."""
    return [v.item() if hasattr(v, "item") else v for v in col]


def is_level(template: str) -> bool:
    """Whether a ``key`` level is a list's (written in square brackets)."""
    return template.startswith("[") and template.endswith("]")


def levels(out: Any, key: list[str], depth: int = 0) -> Any:
    """``out`` (nested tables, one level per template of ``key``) with each level written in
    square brackets turned into a list of its entries, in their order."""
    if not isinstance(out, dict) or depth >= len(key):
        return out
    inner = {k: levels(v, key, depth + 1) for k, v in out.items()}
    return list(inner.values()) if is_level(key[depth]) else inner
