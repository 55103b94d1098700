"""A text made of numbers (docs/reproductions.md, "Metrics as data"): a ``[numbers.NAME]`` of
``text``, a template of :mod:`aqmlab.reproduce.report_text`'s fields (``choose``, ``min``,
``max``, format specs: a ``[[discussion]]`` paragraph's), filled from the parameters and the
numbers declared above it, for a claim's texts to name (``outcome = "{NAME}"``): a hypothesis's
outcome in words that the run decides. ``when`` (a condition of the same names) and
``otherwise`` (a text, filled the same way) give the text where ``when`` does not hold; without
``otherwise`` it has no value there. codel-target's ``_interval_test``: the interval
hypothesis's verdict from the four flows' utilization at RTT 300 ms with CoDel's interval 100
and 200 ms, ``otherwise = "RTT 300 ms was not run"`` in a quick run. The claims are graded after
the numbers, so a ``claim.ID.FIELD`` has nothing to read here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import report_text

KEYS = ("text", "when", "otherwise")


@dataclass
class TextDef:
    """One ``[numbers.NAME]`` of ``text``."""

    name: str
    where: str  # "FILE: numbers.NAME"
    text: str
    when: str = ""
    otherwise: str | None = None


def load(name: str, where: str, d: dict[str, Any]) -> TextDef:
    """``text`` (+ ``when``, ``otherwise``), checked before anything runs."""
    other = [k for k in d if k not in KEYS]
    if other:
        raise AqmlabError(f"{where}.{other[0]}: not with text (a text of numbers)")
    for k in KEYS:
        if k in d and (not isinstance(d[k], str) or (k != "otherwise" and not d[k])):
            raise AqmlabError(f"{where}.{k}: expected a text, got {d[k]!r}")
    if "otherwise" in d and "when" not in d:
        raise AqmlabError(f"{where}.otherwise: only with when")
    report_text.check_template(d["text"], f"{where}.text")
    if "otherwise" in d:
        report_text.check_template(d["otherwise"], f"{where}.otherwise")
    if "when" in d:
        report_text.compile_text(d["when"], f"{where}.when")
    return TextDef(name, where, d["text"], d.get("when", ""), d.get("otherwise"))


def compute(td: TextDef, ctx: Any) -> str | None:
    """The text, filled from ``ctx`` (its parameters and the numbers computed so far)."""
    if td.when and not report_text.condition(ctx, td.when, {}, f"{td.where}.when"):
        if td.otherwise is None:
            return None
        return str(report_text.fill(ctx, td.otherwise, {}, f"{td.where}.otherwise"))
    return str(report_text.fill(ctx, td.text, {}, f"{td.where}.text"))
