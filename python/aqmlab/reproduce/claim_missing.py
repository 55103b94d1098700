"""A claim's ``missing`` (docs/reproductions.md, "claims.toml"): why the claim is not graded
when its metric has no number in this run, a point the mode does not run (a quick run's
subset of a parameter's values). Only a metric that is a path of named numbers can be missing
so; without ``missing`` a claim whose number is absent is an error, as before.
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
