"""The hypothesis test ``regrade`` (docs/reproductions.md, "Hypothesis tests"): the hypothesis
that the source measured a numeric claim's quantity another way, tested by grading that other
measure, computed on the same runs, exactly as the claim grades ours
(:func:`aqmlab.reproduce.common.numeric`: the source's printed digits, then our seeds' 95 %
interval).

``reference`` names the number holding the other measure in the shape of the claim's metric
(a claim whose metric is ``_fitted.X.ct`` reads ``REFERENCE._fitted.X.ct``, its seeds'
half-width ``REFERENCE.`` + its ``spread``), over the run's seeds. The outcome:

* ``confirmed``: the other measure agrees (within the source's digits alone);
* ``cannot discriminate``: outside them, but within our seeds' interval of them;
* ``refuted``: it differs and closes less than half of our measure's gap to the source's
  value (the other way of measuring accounts for less of the difference than it leaves);
* ``unexplained``: it differs but closes half or more (the rest is unexplained), or has no
  value.

``text`` is the outcome's text, a template of ``{alt}`` (the other measure), ``{ours}`` (the
claim's own value), ``{published}``, ``{tolerance}``, ``{outcome}`` and ``{note}`` (the
grade's note in parentheses after a space, or nothing). After grading, a claim that differs
is explained only where the test confirms; otherwise it is unexplained, ``leaves`` (a text)
saying what is left. ``number`` (any test's key, hypotheses.record) writes the outcome into
results.json's numbers (consumer-edge's ``fairness_by_class.RATE.DIRECTION.outcome``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.hypotheses import Result, Test

#: The kind's name and the keys it adds to a hypothesis table (hypotheses.KINDS, TEST_KEYS).
KIND = "regrade"
KEYS = ("text", "leaves")
CONFIRMED, REFUTED, UNEXPLAINED = "confirmed", "refuted", "unexplained"
_FIELDS = ("alt", "ours", "published", "tolerance", "outcome", "note")


@dataclass
class RegradeTest(Test):
    text: str = ""
    leaves: str = ""
    #: Where results.json's numbers hold the outcome (hypotheses.record), or "".
    number: str = ""


def parse(t: Any, test: Test) -> RegradeTest:
    """A ``test = "regrade"`` table's keys (``t``: folder._Table), checked: errors name the
    file, the table and the key."""
    from aqmlab.reproduce.hypotheses import TEST_KEYS

    allowed = ("test", "reference", "reference_name", "number", *KEYS)
    extra = [k for k in TEST_KEYS if k in t.doc and k not in allowed]
    if extra:
        raise t.error(extra[0], f"no such key for test = '{KIND}'")
    text = t.str("text")
    try:
        text.format(**dict.fromkeys(_FIELDS, ""))
    except (KeyError, IndexError, ValueError) as e:
        fields = ", ".join("{" + f + "}" for f in _FIELDS)
        raise t.error("text", f"a template of {fields} ({e})") from None
    return RegradeTest(
        **vars(test), text=text, leaves=t.str("leaves", ""), number=t.str("number", "")
    )


def run(t: RegradeTest, c: Any, ctx: Any, where: str) -> Result:
    """The test for numeric claim ``c`` on the run's numbers."""
    from aqmlab.reproduce import loader
    from aqmlab.reproduce.common import AGREES, CANNOT, fmt, numeric
    from aqmlab.reproduce.hypotheses import reference_number

    alt = reference_number(ctx, c, t.reference, KIND, where)
    if alt is None:
        raise AqmlabError(f"{where}: reference: no number {t.reference}.{c.metric}")
    spread = loader._named(ctx, f"{t.reference}.{c.spread}") if c.spread else None
    ours = loader._number(ctx, c, where)
    g = numeric("", "", "", c.published, alt, spread=spread, seeds=len(ctx.seeds))
    pub = float(c.published)
    if alt != alt:
        outcome = UNEXPLAINED
    elif g.verdict == AGREES:
        outcome = CONFIRMED
    elif g.verdict == CANNOT:
        outcome = CANNOT
    elif abs(alt - pub) > abs(ours - pub) / 2:
        outcome = REFUTED
    else:
        outcome = UNEXPLAINED
    text = t.text.format(
        alt=fmt(alt),
        ours=fmt(ours),
        published=c.published,
        tolerance=g.tolerance,
        outcome=outcome,
        note=f" ({g.note})" if g.note else "",
    )
    return Result(t, text, {"": {"outcome": outcome, "alt": alt}}, record=outcome)


def settle(c: Any, results: list[Result], verdict: str = "", keep_own: bool = False) -> None:
    """After grading: claim ``c`` whose verdict is ``verdict`` (default ``differs``) is
    explained only where every one of ``results`` (its tests of one kind) confirms, else
    unexplained by their ``leaves``; with ``keep_own``, a claim its own ``unexplained`` already
    leaves so (a hypothesis no run tests) keeps that. The rule of regrade, toward,
    paired_test and axis_test."""
    from aqmlab.reproduce.common import DIFFERS, explanation_text

    if not results or c.verdict != (verdict or DIFFERS) or not c.hypotheses:
        return
    if keep_own and c.unexplained:
        return
    c.unexplained = any(r.points[""]["outcome"] != CONFIRMED for r in results)
    why = "; ".join(r.test.leaves for r in results if r.test.leaves)  # type: ignore[attr-defined]
    c.explanation = explanation_text(c.hypotheses, c.unexplained, why if c.unexplained else "")
