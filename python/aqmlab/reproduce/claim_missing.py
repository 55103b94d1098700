"""A claim's ``missing`` (docs/reproductions.md, "claims.toml"): why the claim is not graded
when this run lacks what it grades, a point the mode does not run (a quick run's subset of a
parameter's values): its metric's number (a path of named numbers; lstf-codel's α a quick run
leaves out), or, for a range claim, every one of its points (static-rates' claims about the
rates from 45 Mb/s, which a quick run does not have). Its text may hold ``{param}`` fields.
Without ``missing`` a claim whose number is absent is an error, and a range with no point
fails, as before.
"""

from __future__ import annotations

import math
from typing import Any


def absent(ctx: Any, c: Any) -> bool:
    """Whether claim ``c`` declares ``missing`` and its metric (with ``{arm}``: any arm's, or
    counterfactual arm's) names no number in ``ctx.numbers``."""
    from aqmlab.reproduce.loader import _named

    if not c.missing:
        return False
    paths = [c.metric]
    if "{arm}" in c.metric:
        paths = [c.metric.replace("{arm}", a) for a in [*c.arms, *c.counterfactual_arms]]
    for p in paths:
        v = _named(ctx, p)
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return True
    return False


def not_graded(ctx: Any, c: Any) -> Any:
    """Claim ``c`` not graded, with its ``missing`` reason (``{param}`` fields filled)."""
    from aqmlab.reproduce import common as cm

    claim = cm.not_graded(c.claim, c.source, c.published, ctx.fill(c.missing))
    claim.id, claim.location = c.id, c.location
    return claim


def no_points(claim: Any, c: Any, fill: Any) -> Any:
    """``claim`` (graded), or, where it is a range with no point and ``c`` says why it may be
    missing, a claim not graded for that reason."""
    from aqmlab.reproduce import common as cm

    if c.kind != "range" or not c.missing or claim.points:
        return claim
    return cm.not_graded(c.claim, c.source, c.published, fill(c.missing))
