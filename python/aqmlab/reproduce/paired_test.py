"""The hypothesis test ``test = "paired"`` (docs/reproductions.md, "Hypothesis tests"): the
hypothesis that a range claim fails only within our seeds' scatter, tested by the difference of
its arms paired by seed at each point (a ``[numbers.NAME]`` with ``arm_column``:
:mod:`aqmlab.reproduce.paired`).

``reference`` names those numbers, one table per point keyed by the claim's point names, each
holding ``mean`` (the paired differences' mean) and ``half`` (their 95 % half-width, Student's
t: ``reduce = "spread"``, no value under two pairs) beside any other numbers the texts print;
``at`` is an expression of those fields selecting the points tested (consumer-edge's
``"mean > 0"``: where CoDel's mean drop % is above tail drop's; default every point). At each,
the interval ``mean ± half`` is ``decided`` when it excludes 0 (the seeds tell the arms apart
there). The outcome:

* ``confirmed``: every interval includes 0 (each point is within the scatter: undecided, not a
  counter-example);
* ``refuted``: one or more excludes 0 (named);
* ``unexplained``: a point has no interval (fewer than two pairs: not tested), or no point is
  selected (noise then accounts for nothing).

``texts`` words it: ``point`` (each tested point, a template of its fields and ``{point}``,
followed by `` (95 % CI LO to HI)`` or `` (no interval)``), ``none``, ``refuted``,
``untested`` and ``supports`` (the verdict, ``{points}`` the points it names); the outcome's
text is the points' then the verdict, joined by "; ". After grading, a claim that does not hold
is explained only where the test confirms, else unexplained by ``leaves``. The numbers the
test writes under its ``number`` (hypotheses.py) are ``cells`` (each tested point's numbers
but ``half``, with ``lo``, ``hi``, ``decided`` and ``interval``: whether it has one),
``beyond_noise`` (the points decided) and ``supports`` (confirmed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError

KIND = "paired"
KEYS = ("at", "texts")
#: The verdicts ``texts`` words, beside ``point``.
VERDICTS = ("none", "refuted", "untested", "supports")


@dataclass
class PairedTest:
    name: str
    kind: str
    reference: str
    reference_name: str = ""
    at: str = ""
    texts: dict[str, str] = field(default_factory=dict)
    leaves: str = ""
    number: str = ""


def parse(t: Any, name: str) -> PairedTest:
    """The test's keys (``t``: the hypothesis's folder._Table), checked: errors name the file,
    the table and the key."""
    from aqmlab.reproduce.fill_format import FORMATTER
    from aqmlab.reproduce.hypotheses import TEST_KEYS
    from aqmlab.reproduce.metrics import compile_expr

    allowed = ("test", "reference", "leaves", "number", *KEYS)
    extra = [k for k in TEST_KEYS if k in t.doc and k not in allowed]
    if extra:
        raise t.error(extra[0], f"no such key for test = '{KIND}' ({', '.join(allowed)})")
    at = t.str("at", "")
    if at:
        compile_expr(at, f"{t.path}: {t.where}.at")
    texts = t.table("texts")
    want = ("point", *VERDICTS)
    for k in [*want, *texts]:
        if k not in want:
            raise t.error(f"texts.{k}", f"one of the texts {', '.join(want)}")
        if not isinstance(texts.get(k), str) or not texts[k]:
            raise t.error(f"texts.{k}", "a text")
    for k in VERDICTS:
        try:
            FORMATTER.vformat(texts[k], (), {"points": ""})
        except (KeyError, IndexError, ValueError) as e:
            raise t.error(f"texts.{k}", f"a template of {{points}} ({e})") from None
    return PairedTest(
        name,
        KIND,
        t.str("reference"),
        at=at,
        texts=dict(texts),
        leaves=t.str("leaves", ""),
        number=t.str("number", ""),
    )


def interval(p: dict[str, Any]) -> dict[str, Any]:
    """One point's paired numbers (``mean``, ``half`` and the rest) as the test records them:
    every field but ``half``, then ``lo``, ``hi`` (NaN without an interval), ``decided`` (the
    interval excludes 0) and ``interval`` (there is one)."""
    mean, half = p["mean"], p.get("half")
    half = None if half is None or half != half else half
    lo, hi = (mean - half, mean + half) if half is not None else (float("nan"),) * 2
    return {
        **{k: v for k, v in p.items() if k != "half"},
        "lo": lo,
        "hi": hi,
        "decided": half is not None and (lo > 0 or hi < 0),
        "interval": half is not None,
    }


def outcome(t: PairedTest, pairs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The test over ``pairs`` (point -> its paired numbers): ``outcome``, ``text`` and the
    record (``cells``, ``beyond_noise``, ``supports``)."""
    import pandas as pd

    from aqmlab.reproduce.fill_format import FORMATTER
    from aqmlab.reproduce.hypotheses import CONFIRMED, REFUTED, UNEXPLAINED
    from aqmlab.reproduce.metrics import compile_expr

    names = list(pairs)
    if t.at and names:
        rows = pd.DataFrame([pairs[p] for p in names])
        keep = compile_expr(t.at, f"hypothesis {t.name!r}: at").eval(rows, "the paired numbers")
        names = [p for p, k in zip(names, keep.fillna(False).astype(bool)) if k]
    cells = {p: interval(pairs[p]) for p in names}
    each = [
        FORMATTER.vformat(t.texts["point"], (), {**v, "point": p})
        + (f" (95 % CI {v['lo']:+.3g} to {v['hi']:+.3g})" if v["interval"] else " (no interval)")
        for p, v in cells.items()
    ]
    beyond = [p for p, v in cells.items() if v["decided"]]
    untested = [p for p, v in cells.items() if not v["interval"]]
    if not cells:
        status, verdict = UNEXPLAINED, t.texts["none"]
    elif beyond:
        status, verdict = REFUTED, t.texts["refuted"].format(points=", ".join(beyond))
    elif untested:
        status, verdict = UNEXPLAINED, t.texts["untested"].format(points=", ".join(untested))
    else:
        status, verdict = CONFIRMED, t.texts["supports"].format(points=", ".join(cells))
    record = {"cells": cells, "beyond_noise": beyond, "supports": status == CONFIRMED}
    return {"outcome": status, "text": "; ".join([*each, verdict]), "record": record}


def run(t: PairedTest, c: Any, ctx: Any, where: str) -> Any:
    """The test for range claim ``c`` on the run's numbers (a :class:`hypotheses.Result`)."""
    from aqmlab.reproduce import loader
    from aqmlab.reproduce.hypotheses import Result

    if c.kind != "range":
        raise AqmlabError(f"{where}: test = '{KIND}' tests a range claim, not a {c.kind} one")
    pairs = loader._named(ctx, t.reference)
    if not isinstance(pairs, dict) or not all(
        isinstance(v, dict) and "mean" in v for v in pairs.values()
    ):
        raise AqmlabError(
            f"{where}: reference: {t.reference!r} is not a table of points, each with a mean "
            "(a [numbers.NAME] with arm_column, keyed by the claim's points)"
        )
    r = outcome(t, pairs)
    return Result(t, r["text"], {"": {"outcome": r["outcome"]}}, record=r["record"])  # type: ignore[arg-type]


def settle(c: Any, results: list[Any]) -> None:
    """After grading: claim ``c`` that does not hold is explained only where every paired test
    of it confirms; otherwise unexplained, by ``leaves``."""
    from aqmlab.reproduce import regrade
    from aqmlab.reproduce.common import FAILS

    regrade.settle(c, results, FAILS)
