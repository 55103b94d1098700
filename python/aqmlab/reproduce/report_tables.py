"""Report tables declared as data (docs/reproductions.md, ``[[report_table]]``): a results
table or a ``[frames.NAME]`` printed one row per row, its ``columns`` (a table of HEADER =
column, in order), and beside them the columns of other tables matched on a key column
(``beside``: ns-2.35's runs of the same points next to ours; no value where it has no row).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError

KEYS = ("title", "frame", "columns", "beside", "note")
BESIDE_KEYS = ("frame", "on", "columns")


@dataclass
class Beside:
    frame: str
    on: str
    columns: dict[str, str]  # header -> column


@dataclass
class ReportTable:
    title: str
    frame: str
    columns: dict[str, str]  # header -> column
    beside: list[Beside] = field(default_factory=list)
    note: str = ""
    where: str = ""  # "FILE: report_table[i]" for errors


def _columns(where: str, v: Any) -> dict[str, str]:
    if not isinstance(v, dict) or not v or not all(isinstance(c, str) and c for c in v.values()):
        raise AqmlabError(f'{where}: expected a table of HEADER = "column", got {v!r}')
    return dict(v)


def _frame(where: str, v: Any, tables: list[str]) -> str:
    if v not in tables:
        raise AqmlabError(
            f"{where}: expected a [[sweep]] or a [frames.NAME] ({', '.join(tables)}), got {v!r}"
        )
    return v


def split(doc: Any) -> tuple[Any, Any]:
    """The ``[[report_table]]`` tables in two lists of the same length, each holding its own
    form's tables in their places and None in the other's (so that errors keep the table's
    index): a sweep's or a frame's rows (``frame``: this file) and a table of numbers
    (``rows``: ``report_table.py``)."""
    if not isinstance(doc, list):
        return [], doc
    frame = [d if isinstance(d, dict) and "frame" in d else None for d in doc]
    return frame, [None if f is not None else d for d, f in zip(doc, frame)]


def load(path: str, doc: Any, tables: list[str]) -> list[ReportTable]:
    """The ``[[report_table]]`` tables, checked (``tables``: the sweeps' and frames' names)."""
    if not isinstance(doc, list):
        raise AqmlabError(f"{path}: report_table: expected [[report_table]] tables")
    out = []
    for i, d in enumerate(doc):
        where = f"{path}: report_table[{i}]"
        if d is None:  # a table of numbers (split)
            continue
        if not isinstance(d, dict):
            raise AqmlabError(f"{where}: expected a table")
        for k in d:
            if k not in KEYS:
                raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(KEYS)})")
        for k in ("title", "note"):
            if not isinstance(d.get(k, ""), str) or (k == "title" and not d.get(k)):
                raise AqmlabError(f"{where}.{k}: expected a text, got {d.get(k)!r}")
        t = ReportTable(
            d["title"],
            _frame(f"{where}.frame", d.get("frame"), tables),
            _columns(f"{where}.columns", d.get("columns")),
            note=d.get("note", ""),
            where=where,
        )
        beside = d.get("beside", [])
        if not isinstance(beside, list):
            raise AqmlabError(f"{where}.beside: expected a list of {{ frame, on, columns }}")
        for j, b in enumerate(beside):
            bw = f"{where}.beside[{j}]"
            if not isinstance(b, dict):
                raise AqmlabError(f"{bw}: expected a table {{ frame, on, columns }}")
            for k in b:
                if k not in BESIDE_KEYS:
                    raise AqmlabError(f"{bw}.{k}: unknown key (expected one of frame, on, columns)")
            on = b.get("on")
            if not isinstance(on, str) or not on:
                raise AqmlabError(f"{bw}.on: expected the column both tables are matched on")
            t.beside.append(
                Beside(
                    _frame(f"{bw}.frame", b.get("frame"), tables),
                    on,
                    _columns(f"{bw}.columns", b.get("columns")),
                )
            )
        out.append(t)
    return out


def _need(where: str, df: Any, cols: list[str], name: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise AqmlabError(f"{where}: no column {missing[0]!r} in the results of {name!r}")


def tables(defs: list[ReportTable], frames: dict[str, Any], fill: Any) -> list[Any]:
    """The report's tables (:class:`aqmlab.reproduce.common.Table`); one whose table did not
    run in this mode is left out, and a table beside it that did not is empty."""
    from aqmlab.reproduce.common import Table

    out = []
    for t in defs:
        if t.frame not in frames:
            continue
        df = frames[t.frame]
        _need(f"{t.where}.columns", df, list(t.columns.values()), t.frame)
        others = []
        for j, b in enumerate(t.beside):
            bdf = frames.get(b.frame)
            rows: dict[Any, dict[str, Any]] = {}
            if bdf is not None:
                _need(f"{t.where}.beside[{j}]", bdf, [b.on, *b.columns.values()], b.frame)
                _need(f"{t.where}.beside[{j}].on", df, [b.on], t.frame)
                for r in bdf.to_dict("records"):
                    rows.setdefault(r[b.on], r)
            others.append((b, rows))
        body = []
        for r in df.to_dict("records"):
            row = [r[c] for c in t.columns.values()]
            for b, rows in others:
                match = rows.get(r[b.on])
                row += [None if match is None else match[c] for c in b.columns.values()]
            body.append(row)
        header = [*t.columns, *(h for b in t.beside for h in b.columns)]
        out.append(Table(fill(t.title), header, body, fill(t.note) if t.note else ""))
    return out
