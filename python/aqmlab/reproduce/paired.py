"""Numbers of runs paired across arms (docs/reproductions.md, "Metrics as data"): a
``[numbers.NAME]`` with ``arm_column``, ``arms`` (a table of NAME = a value of that column) and
``pair`` (the column the runs are paired by, default ``"seed"``: the same seed draws the same
traffic in every arm) is a ``[numbers.NAME]`` (``sweeps``, ``where``, ``by``, ``each``, ``key``,
``values``) whose every reduction is ``column`` + ``expr``, an expression of the arms' names:

* an arm's name is its runs' values of ``column`` (one run per value of ``pair`` within a
  group), so ``expr`` is computed pair by pair and then ``reduce``d (default ``mean``; ``q``,
  ``then`` as a reduction's; ``count``: the pairs with a value): codel-dynamic's
  ``_spread.ratio``, ``expr = "codel / td"``, ``reduce = "spread"``, the seeds' 95 %
  half-width of CoDel ÷ tail drop taken seed by seed (the ratio of two means has none of its
  own); consumer-edge's ``_ct``, ``div(100 * c, t)`` (a pair whose ``t`` is 0 has no value);
* ``mean(ARM)`` is that arm's mean over its runs, so an expression whose arms all sit in
  ``mean()`` is one number, with no ``reduce`` (``then`` may follow): consumer-edge's C/T %,
  ``100 * mean(c) / mean(t)`` (none where ``mean(t)`` is 0).

A pair missing an arm gives no value (left out of the reduction, as a NaN is); two runs of an
arm in one pair are an error.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The keys that make a ``[numbers.NAME]`` one of paired runs.
KEYS = ("pair", "arm_column", "arms")


@dataclass
class Pairing:
    """How a ``[numbers.NAME]``'s runs pair across its arms."""

    pair: str
    arm_column: str
    arms: dict[str, Any]  # NAME (in expressions) -> a value of arm_column
    where: str


def parse(where: str, d: dict[str, Any]) -> Pairing | None:
    """The pairing of the ``[numbers.NAME]`` ``d``, checked, or None when it has none of
    :data:`KEYS`."""
    from aqmlab.reproduce.metrics import _err

    if not any(k in d for k in KEYS):
        return None
    pair = d.get("pair", "seed")
    for k, v in (("pair", pair), ("arm_column", d.get("arm_column"))):
        if not isinstance(v, str) or not v:
            raise _err(where, k, "a column of the results (a text)", v)
    arms = d.get("arms")
    if not isinstance(arms, dict) or not arms:
        raise _err(where, "arms", "a table of NAME = a value of arm_column", arms)
    return Pairing(pair, d["arm_column"], arms, where)


def _per_pair(e: Any, arms: dict[str, Any]) -> bool:
    """Whether the checked expression ``e`` names an arm outside ``mean()`` (so is computed
    pair by pair)."""
    from aqmlab.reproduce.metrics import _column

    def walk(node: ast.AST) -> bool:
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "mean":
            return False
        if isinstance(node, (ast.Name, ast.Attribute)):
            return _column(node, e.names) in arms
        return any(walk(c) for c in ast.iter_child_nodes(node))

    return walk(e.tree)


def _compile(text: str, where: str, arms: dict[str, Any]) -> Any:
    """``text`` checked as an expression of ``arms``' names (``mean()`` of a name alone);
    errors name ``where`` (the reduction) and its key ``expr``."""
    from aqmlab.reproduce.metrics import PAIRED_GRAMMAR, _err, compile_expr

    e = compile_expr(text, f"{where}.expr", PAIRED_GRAMMAR)
    want = f"an expression of the arms ({', '.join(arms)})"
    bad = [c for c in e.columns() if c not in arms]
    if bad:
        raise _err(where, "expr", want, bad[0])
    for node in ast.walk(e.tree):
        if (
            isinstance(node, ast.Call)
            and node.func.id == "mean"  # type: ignore[attr-defined]
            and not isinstance(node.args[0], (ast.Name, ast.Attribute))
        ):
            raise _err(where, "expr", f"mean() of an arm's name ({want})", text)
    return e


def with_expr(leaf: Any, doc: dict[str, Any], p: Pairing) -> Any:
    """The reduction ``leaf`` (metrics.Leaf, read from ``doc``) with its ``expr`` checked."""
    from aqmlab.reproduce.metrics import _err

    w = leaf.where
    text = doc.get("expr")
    if not isinstance(text, str) or not text:
        raise _err(w, "expr", f"an expression of the arms ({', '.join(p.arms)})", text)
    if leaf.reduce == "value":
        raise _err(w, "reduce", "a reduction of the pairs' values (not value)")
    # One with {param} fields is checked once they are filled.
    if "{" not in text and not _per_pair(_compile(text, w, p.arms), p.arms) and "reduce" in doc:
        raise _err(w, "reduce", "none: an expression of mean()s is one number", leaf.reduce)
    leaf.expr = text
    return leaf


def check_columns(p: Pairing, df: Any, what: str) -> None:
    """An error naming the key when the results lack the pairing's columns."""
    for k in ("pair", "arm_column"):
        col = getattr(p, k)
        if col not in df.columns:
            raise AqmlabError(f"{p.where}.{k}: no column {col!r} in the results of {what}")


def value(rows: Any, column: str, leaf: Any, p: Pairing, fill: Any) -> Any:
    """``leaf``'s number over one group's ``rows``: its expression of the arms' values of
    ``column``, pair by pair then reduced, or one number (an expression of ``mean()``s)."""
    import pandas as pd

    from aqmlab.reproduce.metrics import _eval, reduce, then

    per_arm = {}
    for name, v in p.arms.items():
        runs = rows[rows[p.arm_column] == v]
        if runs[p.pair].duplicated().any():
            raise AqmlabError(
                f"{p.where}.arms.{name}: several runs of {v!r} share a value of {p.pair!r} "
                "(pair by a column that tells them apart, add theirs to by, or narrow where)"
            )
        per_arm[name] = runs.set_index(p.pair)[column]
    e = _compile(fill(leaf.expr), leaf.where, p.arms)
    # An arm is a Series indexed by pair: arithmetic of two arms pairs their runs.
    v = _eval(e.tree, per_arm, e.names)
    if not isinstance(v, pd.Series):  # an expression of mean()s: one number
        return then(leaf, float(v), fill) if leaf.then else float(v)
    each = v.sort_index()
    return reduce(each.dropna() if leaf.reduce == "count" else each, leaf, fill)
