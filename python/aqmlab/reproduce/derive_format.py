"""A ``[[derive]]`` of ``from`` + ``format`` (docs/reproductions.md, "Metrics as data"): a
text per value of a column, its ``{column}`` fields filled from the same row
(``from = "qdisc"``, ``format = { droptail = "tail drop {size}p", red = "RED min_th {size}" }``:
a point's name spelt as another table spells it). ``from`` + ``map`` renames a value; this
writes one from several columns.
"""

from __future__ import annotations

import re
import string
from typing import Any

from aqmlab.exceptions import AqmlabError


def load(where: str, d: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """``from`` and ``format`` of the derive table ``d``, checked: a table of VALUE = a
    template, each template a text of ``{column}`` fields (``{size:g}`` formats too)."""
    src, fmt = d.get("from"), d.get("format")
    if not isinstance(src, str) or not src:
        raise AqmlabError(
            f"{where}.from: expected the column whose values pick a format, got {src!r}"
        )
    if not isinstance(fmt, dict) or not fmt or not all(isinstance(v, str) for v in fmt.values()):
        raise AqmlabError(
            f'{where}.format: expected a table of value = "a text with {{column}} fields", '
            f"got {fmt!r}"
        )
    for k, v in fmt.items():
        try:
            fields = [f for _, f, _, _ in string.Formatter().parse(v) if f is not None]
        except ValueError as e:
            raise AqmlabError(f"{where}.format.{k}: {v!r}: {e}") from None
        bad = [f for f in fields if not re.fullmatch(r"[^\[\].{}]+", f)]
        if bad:
            raise AqmlabError(
                f"{where}.format.{k}: {v!r}: expected {{column}} fields, got {{{bad[0]}}}"
            )
    return src, {str(k): v for k, v in fmt.items()}


def column(view: Any, source: str, fmt: dict[str, str], where: str, what: str) -> Any:
    """The new column over ``view`` (a results frame): each row's ``fmt[row[source]]`` filled
    from the row; errors name ``where`` (the derive) and ``what`` (the sweep or frame)."""
    import pandas as pd

    if source not in view.columns:
        raise AqmlabError(f"{where}.from: no column {source!r} in the results of {what}")
    missing = sorted({str(v) for v in view[source].unique()} - set(fmt))
    if missing:
        raise AqmlabError(f"{where}.format: no format for {missing[0]!r} of column {source!r}")
    out = []
    for row in view.to_dict("records"):
        template = fmt[str(row[source])]
        try:
            out.append(template.format_map(row))
        except KeyError as e:
            raise AqmlabError(
                f"{where}.format.{row[source]}: no column {e} in the results of {what}"
            ) from None
        except ValueError as e:
            raise AqmlabError(f"{where}.format.{row[source]}: {template!r}: {e}") from None
    return pd.Series(out, index=view.index, dtype=object)
