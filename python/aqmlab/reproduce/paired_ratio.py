"""One arm's value over another's, paired run by run: the reductions ``ratio``,
``ratio_spread`` and ``ratio_pairs`` of a ``[numbers.NAME]`` (docs/reproductions.md, "Metrics
as data").

A group of runs holding two arms (``arms = { COLUMN = [numerator's value, denominator's
value] }``: ``{ qdisc = ["codel", "droptail"] }``) gives:

* ``ratio``: ``scale × mean(numerator arm) ÷ mean(denominator arm)``, the ratio of the arms'
  means over their runs (what a table of means prints as C/T); no value when the denominator's
  mean is 0 or either arm has no run;
* ``ratio_spread``: the 95 % half-width (Student's t, ``common.seed_spread``) of the per-pair
  ratios ``scale × numerator ÷ denominator``, the runs paired on the column ``pair`` (default
  ``seed``: the same seed draws the same traffic in both arms), a pair whose denominator is
  not above 0 left out; none under two pairs;
* ``ratio_pairs``: how many pairs that half-width is over.

``scale`` (default 1) multiplies the numerator before dividing (``100``: a percentage, as
``100 × C ÷ T``; scaling after the division may differ in the last bit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The reductions this module computes.
REDUCERS = ("ratio", "ratio_spread", "ratio_pairs")
#: The keys a leaf of these reductions may add.
KEYS = ("arms", "pair", "scale")


@dataclass
class PairedDef:
    """The arms, the pairing column and the scale of a ratio reduction."""

    arm_column: str
    arms: tuple[Any, Any]
    pair: str
    scale: float | int
    where: str


def parse(where: str, doc: dict[str, Any], reduce: str) -> PairedDef | None:
    """The paired-ratio keys of a leaf ``doc`` (its ``reduce`` one of :data:`REDUCERS`), or
    None for another reduction (which may not have them); errors name ``where`` and the key."""
    if reduce not in REDUCERS:
        extra = [k for k in KEYS if k in doc]
        if extra:
            raise AqmlabError(
                f"{where}.{extra[0]}: only for reduce = {' or '.join(REDUCERS)}, got {reduce!r}"
            )
        return None
    arms = doc.get("arms")
    if (
        not isinstance(arms, dict)
        or len(arms) != 1
        or not isinstance(next(iter(arms.values())), list)
        or len(next(iter(arms.values()))) != 2
    ):
        raise AqmlabError(
            f"{where}.arms: expected {{ COLUMN = [numerator's value, denominator's value] }}, "
            f"got {arms!r}"
        )
    (col, (a, b)) = next(iter(arms.items()))
    if a == b:
        raise AqmlabError(f"{where}.arms: the two arms are the same value {a!r}")
    pair = doc.get("pair", "seed")
    if not isinstance(pair, str) or not pair:
        raise AqmlabError(f"{where}.pair: expected the column runs are paired on, got {pair!r}")
    scale = doc.get("scale", 1)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale == 0:
        raise AqmlabError(f"{where}.scale: expected a number other than 0, got {scale!r}")
    return PairedDef(col, (a, b), pair, scale, where)


def select(rows: Any, column: str, pd_: PairedDef) -> Any:
    """The group's ``column`` with the arm and pair columns (the frame :func:`reduce` takes)."""
    missing = [c for c in (pd_.arm_column, pd_.pair) if c not in rows.columns]
    if missing:
        raise AqmlabError(f"{pd_.where}: no column {missing[0]!r} in the results")
    return rows[[column, pd_.arm_column, pd_.pair]].set_axis(["x", "arm", "pair"], axis=1)


def reduce(frame: Any, pd_: PairedDef, kind: str) -> Any:
    """The reduction ``kind`` of :data:`REDUCERS` over ``frame`` (from :func:`select`)."""
    from aqmlab.reproduce.common import seed_spread

    num, den = (frame[frame["arm"] == arm].set_index("pair")["x"].astype(float) for arm in pd_.arms)
    if kind == "ratio":
        d = den.mean()
        return float(pd_.scale * num.mean() / d) if d else float("nan")
    if num.index.has_duplicates or den.index.has_duplicates:
        raise AqmlabError(
            f"{pd_.where}: several runs of one arm share a {pd_.pair!r}: they cannot be paired "
            "(add their column to by)"
        )
    each = (pd_.scale * num / den.where(den > 0)).dropna()
    return seed_spread(each) if kind == "ratio_spread" else int(len(each))
