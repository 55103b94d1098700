"""A claim graded by a test of two samples (docs/reproductions.md, "claims.toml"):
``sample_test = "two-sample"`` makes a qualitative claim's two arms samples (its ``metric``, a
path with ``{arm}``, names a list of numbers for each arm, as ``[numbers.NAME]`` declares them)
and its ``predicate`` and ``describe`` name the quantities of Welch's t- and the F-test of
arm ``a`` against arm ``b`` (:mod:`aqmlab.reproduce.two_sample`: ``t``, ``t_p_greater``,
``f``, ``f_p`` ...) instead of the arms: ``predicate = "t > 0 and t_p_greater < 0.05"`` (a's
mean significantly larger), ``describe = "t {t}, p {t_p}"`` (each printed as the report prints
numbers; a p value that underflowed to 0 as ``< 4.94e-324``, :func:`two_sample.p_text`).
The counterfactual's arms are tested the same way (the arms swapped: b against a).
A sample of fewer than two values has no test: the predicate is false, the description "–".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from aqmlab.reproduce import two_sample

KINDS = (two_sample.KIND,)
_FIELD = re.compile(r"\{(\w+)\}")


def check(t: Any, c: Any) -> None:
    """A claim's ``sample_test`` keys, checked as the claim is read (``t``: its
    :class:`aqmlab.reproduce.folder._Table`); errors name the file, the claim and the key."""
    from aqmlab.reproduce.predicate import compile_predicate

    if c.sample_test not in KINDS:
        raise t.error("sample_test", " or ".join(repr(k) for k in KINDS))
    if c.kind != "qualitative":
        raise t.error("kind", "qualitative (a claim with sample_test compares two samples)")
    if len(c.arms) != 2 or "{arm}" not in c.metric:
        raise t.error("arms", "two arms, each a sample at the metric's {arm} path (sample_test)")
    if c.predicate.startswith("py:"):
        raise t.error("predicate", "an expression of the test's quantities, not py:")
    compile_predicate(
        c.predicate, 2, f"{t.path}: {t.where}", c.resolution, names=two_sample.QUANTITIES
    )
    unknown = [f for f in _FIELD.findall(c.describe) if f not in two_sample.QUANTITIES]
    if unknown:
        raise t.error(
            "describe", f"fields among {', '.join(two_sample.QUANTITIES)}, not {{{unknown[0]}}}"
        )


def _tests(values: tuple) -> dict[str, Any] | None:
    a, b = (list(v) for v in values)
    return two_sample.tests(a, b) if len(a) > 1 and len(b) > 1 else None


def predicate(c: Any, where: str) -> Callable[[tuple], Any]:
    """The claim's predicate as a function of its two arms' samples."""
    from aqmlab.reproduce.predicate import compile_predicate

    pred = compile_predicate(c.predicate, 2, where, c.resolution, names=two_sample.QUANTITIES)

    def run(values: tuple) -> Any:
        q = _tests(values)
        return False if q is None else pred(tuple(q[n] for n in two_sample.QUANTITIES))

    return run


def describe(c: Any) -> Callable[[tuple], str]:
    """The claim's ``describe`` (default: the predicate's quantities) filled with the test's
    quantities of the two arms' samples."""
    from aqmlab.reproduce.common import fmt

    template = c.describe or ", ".join(
        f"{n} {{{n}}}" for n in two_sample.QUANTITIES if re.search(rf"\b{n}\b", c.predicate)
    )

    def run(values: tuple) -> str:
        q = _tests(values)
        if q is None:
            return "–"
        shown = {
            k: ", ".join(fmt(x) for x in v) if isinstance(v, tuple) else fmt(v)
            for k, v in q.items()
        }
        shown.update({k: two_sample.p_text(q[k]) for k in two_sample.P_VALUES})
        return template.format(**shown)

    return run


def points(ctx: Any, c: Any, arms: list[str], where: str) -> dict[str, tuple]:
    """The one point's arms: each arm's sample (a list of numbers) at the metric's path."""
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.loader import _named

    vals = []
    for a in arms:
        v = _named(ctx, c.metric.replace("{arm}", a))
        if not isinstance(v, (list, tuple)):
            raise AqmlabError(
                f"{where}: metric {c.metric!r}: no sample (a list of numbers) for arm {a!r}"
            )
        vals.append(tuple(v))
    return {"": tuple(vals)}
