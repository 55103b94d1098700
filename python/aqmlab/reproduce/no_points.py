"""A range claim's ``no_points`` (docs/reproductions.md, "claims.toml"): why the claim is not
graded when this run has none of its points (a quick run without the rates it names). Its
text may hold ``{param}`` fields (``"this run has no rate ≥ 45 Mb/s (rates {rates_kbps}
kb/s)"``)."""

from __future__ import annotations

from typing import Any


def parse(t: Any, kind: str) -> str:
    """The key of claim table ``t`` (a :class:`aqmlab.reproduce.folder._Table`): a text, for a
    range claim only; errors name the file, the claim and the key."""
    text = t.str("no_points", "")
    if text and kind != "range":
        raise t.error("no_points", "only on a range claim (kind = 'range')")
    return text


def apply(claim: Any, c: Any, fill: Any) -> Any:
    """``claim`` (graded), or, where it is a range with no point and ``c`` says why, a claim
    not graded for that reason."""
    from aqmlab.reproduce.common import not_graded

    if c.kind != "range" or not c.no_points or claim.points:
        return claim
    return not_graded(c.claim, c.source, c.published, fill(c.no_points))
