"""A list over a table's rows in a ``[[discussion]]`` paragraph (docs/reproductions.md, "Report
tables and discussion as data"): ``lists = { NAME = { frame | rows, where, item } }`` makes
``NAME`` a field of the paragraph's ``text`` and ``when``, the list of ``item`` (a template of
:mod:`aqmlab.reproduce.report_text`'s fields and the row's) written for each row where
``where`` (an expression of the same) holds, in the rows' order. The rows are those of a
``[[report_table]]`` (:func:`aqmlab.reproduce.report_table.row_source`): ``frame``, a sweep's
or a ``[frames.NAME]``'s rows (none where this mode did not run it), or ``rows``, laid out
from the parameters and the numbers. A list prints as its items joined by ``", "``;
``join(NAME, sep)`` joins them otherwise and ``len(NAME)`` counts them.

static-rates: CoDel's utilization at the longest RTT, per rate, over its grid of medians,
``{ frame = "grid", where = "discipline == 'CoDel' and rtt_ms == max(rtts_ms)", item =
"{rate_kbps / 1000:g} Mb/s: {util}" }``; red-bursty: the tail-drop runs at a claim's failing
points, ``where = "kind == 'tail drop' and point in `claim.ID.failing_points`"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import report_text

KEYS = ("frame", "rows", "where", "item")


@dataclass
class ListDef:
    name: str
    table: Any  # report_table.ReportTableDef: its rows (no columns)
    item: str
    where_expr: str = ""


def load(where: str, doc: Any, frames: list[str]) -> list[ListDef]:
    """A paragraph's ``lists``, checked (``frames``: the sweeps' and frames' names)."""
    from aqmlab.reproduce.report_table import ReportTableDef, row_source

    if not isinstance(doc, dict) or not doc:
        raise AqmlabError(f"{where}: expected a table of NAME = {{ frame | rows, where, item }}")
    out = []
    for name, d in doc.items():
        w = f"{where}.{name}"
        if not name.isidentifier():
            raise AqmlabError(f"{w}: expected a name of letters, digits and _ (a field's name)")
        if not isinstance(d, dict):
            raise AqmlabError(f"{w}: expected a table {{ frame | rows, where, item }}")
        for k in d:
            if k not in KEYS:
                raise AqmlabError(f"{w}.{k}: unknown key (expected one of {', '.join(KEYS)})")
        for k in ("where", "item"):
            if not isinstance(d.get(k, ""), str):
                raise AqmlabError(f"{w}.{k}: expected a text, got {d[k]!r}")
        if not d.get("item"):
            raise AqmlabError(f"{w}.item: expected a text (each row's item, a template)")
        levels, names, frame = row_source(w, d, frames)
        report_text.check_template(d["item"], f"{w}.item")
        if d.get("where"):
            report_text.compile_text(d["where"], f"{w}.where")
        table = ReportTableDef(w, "", "", levels, [], "", names, frame)
        out.append(ListDef(name, table, d["item"], d.get("where", "")))
    return out


def values(defs: list[ListDef], ctx: Any) -> dict[str, list[Any]]:
    """Each list's items (``item`` filled at each row where ``where`` holds), by name."""
    from aqmlab.reproduce.report_table import row_fields

    out: dict[str, list[Any]] = {}
    for ld in defs:
        w = ld.table.where
        rows = row_fields(ctx, ld.table)
        if ld.where_expr:
            rows = [r for r in rows if report_text.condition(ctx, ld.where_expr, r, f"{w}.where")]
        out[ld.name] = [report_text.fill(ctx, ld.item, r, f"{w}.item") for r in rows]
    return out
