"""The hypothesis test ``test = "axis"`` (docs/reproductions.md, "Hypothesis tests"): the
hypothesis that a numeric claim differs because of a setting the source does not give (a
buffer), tested on the claim's quantity at every value of that sweep axis the run has: does
any value give the published number?

``reference`` names the quantity over the axis in the shape of the claim's metric
(``REFERENCE.METRIC``: ``{axis value: number}``, the values' keys numbers as texts, ``"13"``)
and our seeds' 95 % half-widths there (``REFERENCE.`` + the claim's ``spread``, when it has
one); ``reach`` (optional) names, beside the metric's last key, ``{axis value: how much of the
axis the run used}`` (a queue's peak backlog at that buffer); ``step`` the axis's resolution
(default 1: no buffer in packets lies between 13 and 14); ``unit`` is printed after an axis
value (``"p"``: ``13p``). With ``tol`` half a unit in the published value's last printed digit
(claims.toml's ``published``, as printed):

* ``confirmed`` ("supports"): a value's number is within ``tol`` of the published one
  (``texts.hit``), or within ``tol`` plus our seeds' half-width there (``texts.near``);
* ``unexplained`` (not tested): the published number lies between the numbers at two axis
  values more than ``step`` apart (a value between them, not run, may give it:
  ``texts.untested``);
* ``refuted``: it lies between the numbers at adjacent values only (``texts.between``), or
  outside every value's (``texts.outside``).

The outcome's text is each value's number (``fmt`` at ``VALUE+unit``, joined by ", "), ``; ``,
then the verdict, a template of ``{published}`` (a number), ``{tol}``, ``{at}`` (the values it
names: ``13p``; ``13p (±0.12)`` for ``near``; ``13p and 50p`` for the pairs) and ``{over}``:
``texts.over`` (or ``texts.over_reached`` where the reach at the largest value is under it:
a larger one is never reached), a template of ``{values}`` (the values run, consecutive ones
as ranges: ``13-18, 25, 50``), ``{first}``, ``{last}`` and ``{reach}``, followed by
``texts.bracket`` (``{lo}``, ``{hi}``) where the published values of the claims ``bracket``
names (their own ``REFERENCE.METRIC``, a published 0 left out) lie between the numbers at two
values: the least and greatest such values. After grading, a claim that differs is explained
only where the test confirms (``leaves`` names what is left); a claim whose own
``unexplained`` says what no run tests stays unexplained by it. ``number`` (hypotheses.record)
writes the outcome into results.json's numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError

KIND = "axis"
KEYS = ("reach", "step", "unit", "bracket")
#: The texts ``texts`` must give.
TEXTS = ("hit", "near", "untested", "between", "outside", "over", "over_reached", "bracket")


@dataclass
class AxisTest:
    name: str
    kind: str
    reference: str
    reference_name: str = ""
    reach: str = ""
    step: float = 1.0
    unit: str = ""
    bracket: list[str] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    leaves: str = ""
    number: str = ""


def parse(t: Any, name: str) -> AxisTest:
    """The test's keys (``t``: the hypothesis's folder._Table), checked."""
    from aqmlab.reproduce.hypotheses import TEST_KEYS

    allowed = ("test", "reference", "leaves", "number", "texts", *KEYS)
    extra = [k for k in TEST_KEYS if k in t.doc and k not in allowed]
    if extra:
        raise t.error(extra[0], f"no such key for test = '{KIND}' ({', '.join(allowed)})")
    texts = t.table("texts")
    for k in [*TEXTS, *texts]:
        if k not in TEXTS:
            raise t.error(f"texts.{k}", f"one of the texts {', '.join(TEXTS)}")
        if not isinstance(texts.get(k), str):
            raise t.error(f"texts.{k}", "a text")
    step = t.num("step", 1.0)
    if step <= 0:
        raise t.error("step", "the axis's resolution, a number above 0")
    return AxisTest(
        name,
        KIND,
        t.str("reference"),
        reach=t.str("reach", ""),
        step=step,
        unit=t.str("unit", ""),
        bracket=t.strs("bracket"),
        texts=dict(texts),
        leaves=t.str("leaves", ""),
        number=t.str("number", ""),
    )


def _curve(ctx: Any, path: str, where: str) -> list[tuple[float, str, Any]]:
    """``{axis value: number}`` at ``path`` as ``(value, key, number)``, by value."""
    from aqmlab.reproduce import loader

    v = loader._named(ctx, path)
    if not isinstance(v, dict):
        raise AqmlabError(f"{where}: reference: no table of axis values at {path!r}")
    try:
        return sorted((float(k), k, x) for k, x in v.items())
    except ValueError:
        raise AqmlabError(f"{where}: reference: {path!r}: axis values must be numbers") from None


def ranges(keys: list[tuple[float, str]], step: float) -> str:
    """Sorted axis values, each run of three or more consecutive ones (``step`` apart) as a
    range: ``13-18, 25, 50``."""
    runs: list[list[tuple[float, str]]] = []
    for x in keys:
        if runs and abs(x[0] - runs[-1][-1][0] - step) < 1e-9 * step:
            runs[-1].append(x)
        else:
            runs.append([x])
    return ", ".join(
        f"{r[0][1]}-{r[-1][1]}" if len(r) > 2 else ", ".join(k for _, k in r) for r in runs
    )


def bracket(ctx: Any, t: AxisTest, where: str) -> tuple[str, str] | None:
    """The least and greatest axis values between whose numbers the published values of the
    claims ``t.bracket`` names lie (a published 0 left out), or None."""
    claims = {c.id: c for c in ctx.experiment.claims}
    lo: tuple[float, str] | None = None
    hi: tuple[float, str] | None = None
    for cid in t.bracket:
        c = claims.get(cid)
        if c is None:
            raise AqmlabError(f"{where}: bracket: no claim {cid!r}")
        target = float(c.published)
        if not target:
            continue
        live = [(x, k, v) for x, k, v in _curve(ctx, f"{t.reference}.{c.metric}", where) if v == v]
        for (x1, k1, v1), (x2, k2, v2) in zip(live, live[1:]):
            if min(v1, v2) <= target <= max(v1, v2):
                lo = (x1, k1) if lo is None or x1 < lo[0] else lo
                hi = (x2, k2) if hi is None or x2 > hi[0] else hi
    return None if lo is None or hi is None else (lo[1], hi[1])


def run(t: AxisTest, c: Any, ctx: Any, where: str) -> Any:
    """The test for numeric claim ``c`` on the run's numbers (a :class:`hypotheses.Result`)."""
    from aqmlab.reproduce import loader
    from aqmlab.reproduce.common import fmt, printed_precision
    from aqmlab.reproduce.fill_format import FORMATTER
    from aqmlab.reproduce.hypotheses import CONFIRMED, REFUTED, UNEXPLAINED, Result

    if c.kind != "numeric":
        raise AqmlabError(f"{where}: test = '{KIND}' tests a numeric claim, not a {c.kind} one")
    vals = _curve(ctx, f"{t.reference}.{c.metric}", where)
    spread = (loader._named(ctx, f"{t.reference}.{c.spread}") if c.spread else None) or {}
    pub = float(c.published)
    tol = printed_precision(c.published)[0]
    u = t.unit
    at = {k: f"{k}{u}" for _, k, _ in vals}
    hit = [k for _, k, v in vals if v == v and abs(v - pub) <= tol]
    near = [
        (k, spread[k])
        for _, k, v in vals
        if v == v and spread.get(k) is not None and spread[k] == spread[k]
        if abs(v - pub) <= tol + spread[k]
    ]
    live = [(x, k, v) for x, k, v in vals if v == v]
    between = [
        (a, b)
        for a, b in zip(live, live[1:])
        if min(a[2], b[2]) - tol <= pub <= max(a[2], b[2]) + tol
    ]
    untested = [(a, b) for a, b in between if b[0] - a[0] > t.step * (1 + 1e-9)]
    pairs = ", ".join(f"{at[a[1]]} and {at[b[1]]}" for a, b in (untested or between))

    def over() -> str:
        first, last = vals[0], vals[-1]
        peak = None
        if t.reach:
            parent = loader.split_path(f"{t.reference}.{c.metric}")[:-1]
            r = loader._named(ctx, ".".join(f'"{k}"' for k in [*parent, t.reach]))
            peak = r.get(last[1]) if isinstance(r, dict) else None
        fields = {"values": ranges([(x, k) for x, k, _ in vals], t.step), "first": first[1]}
        fields |= {"last": last[1], "reach": peak}
        reached = peak is not None and peak == peak and peak < last[0]
        text = FORMATTER.vformat(t.texts["over_reached" if reached else "over"], (), fields)
        b = bracket(ctx, t, where)
        if b is not None:
            text += t.texts["bracket"].format(lo=b[0], hi=b[1])
        return text

    fields: dict[str, Any] = {"published": pub, "tol": tol}
    if hit:
        status, key = CONFIRMED, "hit"
        fields["at"] = ", ".join(at[k] for k in hit)
    elif near:
        status, key = CONFIRMED, "near"
        fields["at"] = ", ".join(f"{at[k]} (±{s:.2g})" for k, s in near)
    elif untested:
        status, key = UNEXPLAINED, "untested"
        fields["at"] = pairs
    else:
        status, key = REFUTED, "between" if between else "outside"
        fields["at"] = pairs
        fields["over"] = over()
    each = ", ".join(f"{fmt(v)} at {at[k]}" for _, k, v in vals)
    text = f"{each}; {FORMATTER.vformat(t.texts[key], (), {'over': '', **fields})}"
    return Result(t, text, {"": {"outcome": status}}, record=status)  # type: ignore[arg-type]


def settle(c: Any, results: list[Any]) -> None:
    """After grading: claim ``c`` that differs is explained only where every axis test of it
    confirms (else unexplained by ``leaves``); one whose own ``unexplained`` names what no run
    tests stays so, with its own text."""
    from aqmlab.reproduce import regrade

    regrade.settle(c, results, keep_own=True)
