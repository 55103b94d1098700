"""The ``fmt`` format of a text's ``{field}`` (docs/reproductions.md, "A reproduction's
folder"): ``{tests[welch_df]:fmt}`` prints a number as the report prints numbers
(:func:`aqmlab.reproduce.common.fmt`: three significant digits, integers in full), ``:fmtN``
with N significant digits (``{runs[CoDel][delay_s][mean]:fmt4}``), a list's numbers joined by
", " (``[499, 499]`` -> ``499, 499``). Every other format (``{duration_s:g}``) is Python's.
"""

from __future__ import annotations

import re
import string
from typing import Any

_SPEC = re.compile(r"fmt(\d*)")


class Formatter(string.Formatter):
    def format_field(self, value: Any, format_spec: str) -> str:
        from aqmlab.reproduce.common import fmt

        m = _SPEC.fullmatch(format_spec)
        if m is None:
            return super().format_field(value, format_spec)
        digits = int(m.group(1)) if m.group(1) else 3
        if isinstance(value, (list, tuple)):
            return ", ".join(fmt(v, digits) for v in value)
        return fmt(value, digits)


FORMATTER = Formatter()
