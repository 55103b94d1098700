"""The hypothesis test ``test = "toward"`` (docs/reproductions.md, "Hypothesis tests"): a rerun
that changes what the hypothesis names (codel-dynamic's web load: PackMime in place of the
stand-in) tested on a numeric claim: does it move our value toward the published one, and far
enough to agree? ``reference`` names the rerun's numbers in the shape of the claim's metric
(``REFERENCE.METRIC``, as a ``reference`` test reads them), ``label`` how our own run is named
in the text (``"with the stand-in"``). The outcome, against the claim's published number and
its allowance (printed precision + ``read_off``, as the claim is graded):

* ``confirmed``: the rerun is closer and within the allowance ("closer ..., and agrees");
* ``unexplained``: closer but still outside it ("closer ... but not enough to agree");
* ``refuted``: no closer ("no closer ...: not the cause"), or without the rerun's number.

After grading, a claim that differs is explained only where the test confirms; otherwise it is
unexplained, ``leaves`` (a text) saying what is left: regrade's rule (:func:`regrade.settle`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.hypotheses import Test

KIND = "toward"
KEYS = ("test", "reference", "label", "leaves")


@dataclass
class TowardTest(Test):
    #: What a claim the test does not confirm is left unexplained by (regrade.settle).
    leaves: str = ""


def parse(t: Any, test: Any) -> Any:
    """The test's keys, checked (``t`` the hypothesis's table)."""
    from aqmlab.reproduce.hypotheses import TEST_KEYS

    extra = [k for k in TEST_KEYS if k in t.doc and k not in KEYS]
    if extra:
        raise t.error(extra[0], f"no such key for test = '{KIND}' ({', '.join(KEYS)})")
    if not test.reference:
        raise t.error("reference", "the name of the rerun's numbers, in the claim metric's shape")
    return TowardTest(**{**vars(test), "label": t.str("label", "")}, leaves=t.str("leaves", ""))


def run(t: Any, c: Any, ctx: Any) -> Any:
    """The outcome for numeric claim ``c`` (a :class:`hypotheses.Result`)."""
    from aqmlab.reproduce import common as cm
    from aqmlab.reproduce import hypotheses
    from aqmlab.reproduce.loader import _named

    where = f"{ctx.experiment.folder}/claims.toml: claim {c.id!r}: hypothesis {t.name!r}"
    rerun = hypotheses.reference_number(ctx, c, t.reference, KIND, where)
    ours = _named(ctx, c.metric)
    if isinstance(ours, (dict, list)):
        raise AqmlabError(f"{where}: {c.metric}: not one number")
    published = float(c.published)
    if rerun is None or ours is None or rerun != rerun:
        text = f"no value for {t.reference}.{c.metric}: not tested"
        return hypotheses.Result(t, text, {"": {"outcome": hypotheses.UNEXPLAINED}})
    allowance = cm.printed_precision(c.published)[0] + (c.read_off or 0.0)
    moved = abs(rerun - published) < abs(ours - published)
    head = f"{cm.fmt(rerun)} against {cm.fmt(ours)}" + (f" {t.label}" if t.label else "")
    if not moved:
        status = hypotheses.REFUTED
        text = f"{head}, no closer to the published {published:g}: not the cause"
    elif abs(rerun - published) <= allowance * (1 + 1e-12):
        status = hypotheses.CONFIRMED
        text = f"{head}, closer to the published {published:g}, and agrees"
    else:
        status = hypotheses.UNEXPLAINED
        text = f"{head}, closer to the published {published:g} but not enough to agree"
    return hypotheses.Result(t, text, {"": {"outcome": status}})
