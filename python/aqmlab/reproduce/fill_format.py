"""The ``fmt`` format of a text's ``{field}`` (docs/reproductions.md, "A reproduction's
folder"): ``{tests[welch_df]:fmt}`` prints a number as the report prints numbers
(:func:`aqmlab.reproduce.common.fmt`: three significant digits, integers in full), ``:fmtN``
with N significant digits (``{runs[CoDel][delay_s][mean]:fmt4}``), a list's numbers joined by
", " (``[499, 499]`` -> ``499, 499``). Every other format (``{duration_s:g}``) is Python's.

A claim's ``describe`` template (:func:`describe`) prints a field without a format with
``fmt`` (``"{a} vs {b} ms"``; with more digits where two unequal arms would print equal:
``13.553 vs 13.552``), and one with a format as that format says (``"{a:d} drops"``:
the count as it is, no thousands separator).
"""

from __future__ import annotations

import re
import string
from typing import Any

SPEC = re.compile(r"fmt(\d*)")


class Formatter(string.Formatter):
    def format_field(self, value: Any, format_spec: str) -> str:
        from aqmlab.reproduce.common import fmt

        m = SPEC.fullmatch(format_spec)
        if m is None:
            return super().format_field(value, format_spec)
        digits = int(m.group(1)) if m.group(1) else 3
        if isinstance(value, (list, tuple)):
            return ", ".join(fmt(v, digits) for v in value)
        return fmt(value, digits)


FORMATTER = Formatter()


class _Describe(Formatter):
    def __init__(self, digits: int = 3) -> None:
        self.digits = digits

    def format_field(self, value: Any, format_spec: str) -> str:
        return super().format_field(value, format_spec or f"fmt{self.digits}")


def describe(template: str, values: dict[str, Any]) -> str:
    """A claim's ``describe`` template filled with the arms' values (``a``, ``b`` ...), each
    with the digits that print unequal values unequal (:func:`common.telling_digits`)."""
    from aqmlab.reproduce.common import telling_digits

    return _Describe(telling_digits(values.values())).vformat(template, (), values)
