"""A report table declared in ``experiment.toml`` (``[[report_table]]``, docs/reproductions.md,
"Report tables and discussion as data"): rows laid out from
``ctx.numbers``, or a sweep's or a frame's rows, written as data.

* ``frame`` (in place of ``rows``): one row per row of the ``[[sweep]]`` or ``[frames.NAME]``
  of that name, its fields the row's columns, in the frame's order (a table whose frame did
  not run in this mode is left out).
* ``rows``: the rows' fields, a list of levels, outer first (one table: one level). Within a
  level the fields move together (as ``each``), across levels every combination is a row, in
  the order given. A field's values are a list, a ``"{param}"`` that is a list, or
  ``{ keys = "PATH" }``: the keys of the numbers table at ``PATH`` in their order, a template
  of the outer levels' fields (``{ keys = "loads.{load}" }``), or ``{ column = "NAME" }``: the
  values of the ``[table]``'s column ``NAME`` in its rows' order, among the rows that match the
  outer fields named as its columns, or ``{ window = "NAME" }``: one table per window of the
  ``[[window]]`` named ``NAME`` (``i`` from 1, ``t0``, ``t1`` and its ``fields``: ``{w.t0:g}``),
  or ``{ value = "TEMPLATE" }``: computed per row from the row's other fields, after them (it
  sets no count of its level's rows).
  The keys of a list are its indices (``"0"``, ``"1"``, ...: a path's key of digits indexes it).
* ``columns``: one table a column, ``header`` and one of ``value`` (a text template of
  :mod:`aqmlab.reproduce.report_text`'s fields: ``"{case}"``, ``"{rate / 1000:g}"``; a template
  that is one field is that value, its type kept), ``number`` (the path of a number, a
  template of the row's fields with their format specs: ``"median_by_rate.{rate:g}.{d}.p50_ms"``;
  no such number is an error, a number with none prints ``–``), ``table`` (a column of the
  ``[table]``, at its one row that matches the row's fields named as its columns), ``column``
  (with ``frame``: the row's column of that name, as it is; with ``beside = { frame, on }``:
  that column of the first row of the other frame whose column ``on`` equals this row's, no
  value where it has none or that frame did not run: ns-2.35's runs of the same points beside
  ours) or ``expr``
  (an expression of ``report_text``'s names, ``{field}`` filled in first:
  ``"100 * traffic.{arm}.share"``, a ``[table]`` column's name standing for its cell);
  ``digits``: the cell printed with that many significant digits (``common.fmt``) instead of
  the report's three, or an expression of them (row fields filled first); ``blank_when`` +
  ``blank``: the cell is that text where the expression holds (``"util < 0.1"``,
  ``"stalled"``; ``blank_when`` alone: no value there); ``none``: the text of a cell with no
  value, or ``nan``: the cell kept with no value, NaN (results.json's NaN beside a module's
  tables); ``format = "p"``: a p value, one that is 0 (it underflowed: scipy's F-test of
  very unequal variances) printed as the bound it is below, ``"< 4.94e-324"``
  (:func:`aqmlab.reproduce.two_sample.p_text`, as the claims print it), any other as the
  column prints it. A cell whose value is a list (a tuple) is its items as numbers joined by
  ``", "``.
* ``title``, ``note`` and each column's ``header``: text templates (the row fields aside:
  codel-dynamic's per-phase headers, ``"10 Mb/s, {phase_s:g}-{2 * phase_s:g} s"``); ``when``:
  the table is printed only where the expression holds.

Every error is one line naming the file, ``report_table[i]`` and the key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import report_text

KEYS = ("title", "note", "rows", "frame", "columns", "when")
COLUMN_KEYS = (
    "header",
    "value",
    "number",
    "table",
    "expr",
    "digits",
    "blank_when",
    "blank",
    "none",
    "column",
    "beside",
    "format",
)
#: A column's ``format``: ``"p"``, a p value (:func:`aqmlab.reproduce.two_sample.p_text`).
FORMATS = ("p",)
KINDS = ("value", "number", "table", "column", "expr")


@dataclass
class Column:
    header: str
    kind: str  # one of KINDS
    text: str
    digits: int | str | None = None  # a text: an expression of the row's fields
    blank_when: str = ""
    blank: str | None = None  # None: blank_when alone, the cell has no value
    none: str | float | None = None  # a text, or NaN (nan: no value kept)
    beside: tuple[str, str] | None = None  # column: (frame, on), the other frame's matching row
    format: str = ""  # "p": a p value, one that underflowed to 0 printed as the bound it is below


@dataclass
class ReportTableDef:
    where: str  # "FILE: report_table[i]"
    title: str
    note: str
    levels: list[dict[str, Any]]
    columns: list[Column]
    when: str = ""
    fields: list[str] = field(default_factory=list)
    frame: str = ""  # the sweep or frame whose rows are the table's (in place of ``levels``)


def _err(where: str, key: str, expected: str, got: Any = None) -> AqmlabError:
    tail = f", got {got!r}" if got is not None else ""
    return AqmlabError(f"{where}.{key}: expected {expected}{tail}")


def load(path: str, doc: Any, frames: list[str]) -> list[ReportTableDef]:
    """The ``[[report_table]]`` tables of ``experiment.toml`` at ``path``, checked
    (``frames``: the sweeps' and frames' names)."""
    if not isinstance(doc, list):
        raise AqmlabError(f"{path}: report_table: expected [[report_table]] tables")
    return [_one(f"{path}: report_table[{i}]", d, frames) for i, d in enumerate(doc)]


def _frame(where: str, v: Any, frames: list[str]) -> str:
    if v not in frames:
        raise AqmlabError(
            f"{where}: expected a [[sweep]] or a [frames.NAME] ({', '.join(frames)}), got {v!r}"
        )
    return v


def _one(where: str, d: Any, frames: list[str]) -> ReportTableDef:
    if not isinstance(d, dict):
        raise AqmlabError(f"{where}: expected a table")
    for k in d:
        if k not in KEYS:
            raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(KEYS)})")
    for k in ("title", "note", "when"):
        if not isinstance(d.get(k, ""), str):
            raise _err(where, k, "a text", d[k])
    if not d.get("title"):
        raise _err(where, "title", "a text")
    levels, names, frame = row_source(where, d, frames)
    cols = d.get("columns")
    if not isinstance(cols, list) or not cols:
        raise _err(where, "columns", "a list of { header, value | number | table | expr } tables")
    # The templates' and expressions' syntax and grammar, before anything runs.
    for k in ("title", "note"):
        report_text.check_template(d.get(k, ""), f"{where}.{k}")
    if d.get("when"):
        report_text.compile_text(d["when"], f"{where}.when")
    return ReportTableDef(
        where,
        d["title"],
        d.get("note", ""),
        levels,
        [_column(f"{where}.columns[{i}]", c, frame, frames) for i, c in enumerate(cols)],
        d.get("when", ""),
        names,
        frame,
    )


def row_source(
    where: str, d: dict[str, Any], frames: list[str]
) -> tuple[list[dict[str, Any]], list[str], str]:
    """A table's ``rows`` (its levels and their fields' names) or ``frame``, checked: one of
    them (a report table's, and a discussion list's: :mod:`aqmlab.reproduce.report_list`)."""
    if ("rows" in d) == ("frame" in d):
        got = "both" if "rows" in d else "neither"
        raise AqmlabError(f"{where}: expected one of rows or frame, got {got}")
    frame = _frame(f"{where}.frame", d["frame"], frames) if "frame" in d else ""
    rows = d.get("rows")
    levels = [] if frame else [rows] if isinstance(rows, dict) else rows
    if not frame and (
        not isinstance(levels, list) or not levels or not all(isinstance(x, dict) for x in levels)
    ):
        raise _err(where, "rows", "a table of FIELD = values, or a list of them (outer first)")
    names: list[str] = []
    for i, level in enumerate(levels):
        if not level:
            raise _err(where, f"rows[{i}]", "a table of FIELD = values")
        for name, vals in level.items():
            ok = isinstance(vals, list) or (isinstance(vals, str) and vals.startswith("{"))
            if isinstance(vals, dict):
                ok = len(vals) == 1 and isinstance(next(iter(vals.values())), str)
                ok = ok and next(iter(vals)) in ("keys", "column", "window", "value")
                if ok and "value" in vals:
                    report_text.check_template(vals["value"], f"{where}.rows.{name}.value")
            if not ok:
                raise _err(
                    where,
                    f"rows.{name}",
                    'a list of values, a "{param}" list, { keys = "PATH" }, { column = "NAME" }, '
                    '{ window = "NAME" } or { value = "TEMPLATE" }',
                    vals,
                )
            if name in names:
                raise _err(where, f"rows.{name}", "a field named once")
            names.append(name)
    return levels, names, frame


def _column(where: str, c: Any, frame: str, frames: list[str]) -> Column:
    if not isinstance(c, dict):
        raise AqmlabError(f"{where}: expected a table {{ header, value | number | table | expr }}")
    for k in c:
        if k not in COLUMN_KEYS:
            raise AqmlabError(
                f"{where}.{k}: unknown key (expected one of {', '.join(COLUMN_KEYS)})"
            )
    if not isinstance(c.get("header"), str):
        raise _err(where, "header", "a text", c.get("header"))
    kinds = [k for k in KINDS if k in c]
    if len(kinds) != 1:
        raise AqmlabError(
            f"{where}: expected one of value, number, table, column or expr, got {kinds or 'none'}"
        )
    text = c[kinds[0]]
    if not isinstance(text, str) or not text:
        raise _err(where, kinds[0], "a text", text)
    if kinds[0] == "column" and not frame:
        raise AqmlabError(f"{where}.column: a frame's column, only in a table of frame = NAME")
    beside = c.get("beside")
    if beside is not None:
        if kinds[0] != "column":
            raise AqmlabError(f"{where}.beside: only with column")
        if not isinstance(beside, dict) or sorted(beside) != ["frame", "on"]:
            raise _err(where, "beside", 'a table { frame = "NAME", on = "COLUMN" }', beside)
        if not isinstance(beside["on"], str) or not beside["on"]:
            raise _err(where, "beside.on", "the column both frames are matched on", beside["on"])
        beside = (_frame(f"{where}.beside.frame", beside["frame"], frames), beside["on"])
    digits = c.get("digits")
    if isinstance(digits, str) and digits:
        if "{" not in digits:
            report_text.compile_text(digits, f"{where}.digits")
    elif digits is not None and (
        isinstance(digits, bool) or not isinstance(digits, int) or digits < 1
    ):
        raise _err(
            where, "digits", "a number of significant digits (1 or more), or an expression", digits
        )
    if "blank" in c and "blank_when" not in c:
        raise AqmlabError(f"{where}: blank needs blank_when")
    for k in ("blank_when", "blank"):
        if not isinstance(c.get(k, ""), str):
            raise _err(where, k, "a text", c[k])
    if c.get("format", "") not in ("", *FORMATS):
        raise _err(where, "format", f"one of {', '.join(FORMATS)} (p: a p value)", c["format"])
    none = c.get("none")
    if not (none is None or isinstance(none, str) or (isinstance(none, float) and none != none)):
        raise _err(where, "none", "a text, or nan (the cell kept with no value)", none)
    report_text.check_template(c["header"], f"{where}.header")
    if kinds[0] == "value":
        report_text.check_template(text, f"{where}.value")
    for k in ("expr", "blank_when"):
        if c.get(k) and "{" not in c[k]:  # one with {field}s is checked once they are filled
            report_text.compile_text(c[k], f"{where}.{k}")
    return Column(
        c["header"],
        kinds[0],
        text,
        digits,
        c.get("blank_when", ""),
        c.get("blank"),
        c.get("none"),
        beside,
        c.get("format", ""),
    )


def build(defs: list[ReportTableDef], ctx: Any) -> list[Any]:
    """The declared tables as the report's :class:`common.Table` s (those whose ``when``
    holds)."""
    from aqmlab.reproduce.common import Table

    out = []
    for t in defs:
        if t.when and not report_text.condition(ctx, t.when, {}, f"{t.where}.when"):
            continue
        if t.frame and t.frame not in ctx.frames:  # its sweep did not run in this mode
            continue
        fields = row_fields(ctx, t)
        rows = [[_cell(ctx, t, i, c, f) for i, c in enumerate(t.columns)] for f in fields]
        title = report_text.fill(ctx, t.title, {}, f"{t.where}.title")
        note = report_text.fill(ctx, t.note, {}, f"{t.where}.note") if t.note else ""
        headers = [
            str(report_text.fill(ctx, c.header, {}, f"{t.where}.columns[{i}].header"))
            for i, c in enumerate(t.columns)
        ]
        out.append(Table(str(title), headers, rows, str(note)))
    return out


def row_fields(ctx: Any, t: ReportTableDef) -> list[dict[str, Any]]:
    """Each row's fields: ``t.frame``'s rows (none where this mode did not run it), or those
    ``t``'s ``rows`` lay out."""
    if t.frame:
        return _frame_rows(ctx, t) if t.frame in ctx.frames else []
    return _rows(ctx, t)


def _need(where: str, df: Any, cols: list[str], name: str) -> None:
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise AqmlabError(f"{where}: no column {missing[0]!r} in the results of {name!r}")


def _frame_rows(ctx: Any, t: ReportTableDef) -> list[dict[str, Any]]:
    """The rows of ``t.frame``, each its columns, and for each ``beside`` column the other
    frame's matching row under the key ``(frame, on)`` (None: no such row)."""
    df = ctx.frames[t.frame]
    cols = [c for c in t.columns if c.kind == "column"]
    _need(f"{t.where}.columns", df, [c.text for c in cols if c.beside is None], t.frame)
    matches: dict[tuple[str, str], dict[Any, dict[str, Any]]] = {}
    for k, c in enumerate(t.columns):
        if c.kind != "column" or c.beside is None:
            continue
        name, on = c.beside
        where = f"{t.where}.columns[{k}].beside"
        other = ctx.frames.get(name)
        found = matches.setdefault(c.beside, {})
        if other is not None:
            _need(where, other, [on, c.text], name)
            _need(f"{where}.on", df, [on], t.frame)
            if not found:
                for r in other.to_dict("records"):
                    found.setdefault(r[on], r)
    out = []
    for r in df.to_dict("records"):
        out.append({**r, _BESIDE: {k: m.get(r[k[1]]) for k, m in matches.items()}})
    return out


#: A frame row's key holding its matching rows of the ``beside`` frames.
_BESIDE = "\0beside"


def _rows(ctx: Any, t: ReportTableDef) -> list[dict[str, Any]]:
    """Every row's fields, outer level first, in the declared order."""
    rows: list[dict[str, Any]] = [{}]
    for i, level in enumerate(t.levels):
        nxt = []
        for outer in rows:
            computed = {n: v for n, v in level.items() if isinstance(v, dict) and "value" in v}
            vals = {n: _values(ctx, t, n, v, outer) for n, v in level.items() if n not in computed}
            lengths = {len(v) for v in vals.values()}
            if len(lengths) != 1:
                raise _err(
                    t.where,
                    f"rows[{i}]",
                    "fields of one level with as many values each (they move together)",
                    {n: len(v) for n, v in vals.items()},
                )
            for j in range(lengths.pop() if lengths else 1):
                row = {**outer, **{n: v[j] for n, v in vals.items()}}
                for n, v in computed.items():  # filled from the row's other fields, in order
                    row[n] = report_text.fill(ctx, v["value"], row, f"{t.where}.rows.{n}.value")
                nxt.append(row)
        rows = nxt
    return rows


def _values(ctx: Any, t: ReportTableDef, name: str, v: Any, outer: dict[str, Any]) -> list:
    where = f"{t.where}.rows.{name}"
    if isinstance(v, dict) and "window" in v:
        from aqmlab.reproduce import windows

        ws = [w for w in ctx.experiment.windows if w.name == v["window"]]
        if not ws:
            names = ", ".join(w.name for w in ctx.experiment.windows) or "none"
            raise AqmlabError(f"{where}.window: no [[window]] named {v['window']!r} ({names})")
        w = ws[0]
        return [
            {"i": i + 1, "t0": t0, "t1": t1, **{k: x[i] for k, x in w.fields.items()}}
            for i, (t0, t1) in enumerate(windows.bounds(w, ctx.fill))
        ]
    if isinstance(v, dict) and "column" in v:
        rows = _table_rows(ctx, outer, f"{where}.column")
        if v["column"] not in rows.columns:
            raise AqmlabError(f"{where}.column: no column {v['column']!r} in the [table]")
        return list(dict.fromkeys(rows[v["column"]]))
    if isinstance(v, dict):
        path = _format(v["keys"], outer, where)
        table = report_text.resolve(ctx, path, {}, where)
        if isinstance(table, list):  # a list's indices: its items' paths
            return [str(i) for i in range(len(table))]
        if not isinstance(table, dict):
            raise AqmlabError(f"{where}: keys {path!r}: not a table or list of numbers")
        return list(table)
    if isinstance(v, str):
        v = ctx.value(v)
        if not isinstance(v, list):
            raise _err(t.where, f"rows.{name}", "a parameter that is a list", v)
    return v


def _format(text: str, fields: dict[str, Any], where: str) -> str:
    """A path or expression with the row's ``{field}`` s (and their format specs) filled."""
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError, AttributeError) as e:
        raise AqmlabError(
            f"{where}: {text!r}: no row field {e} (fields: {', '.join(fields) or 'none'})"
        ) from None


def _table_rows(ctx: Any, fields: dict[str, Any], where: str) -> Any:
    """The ``[table]``'s rows that match ``fields`` named as its columns."""
    g = ctx.table
    if g is None:
        raise AqmlabError(f"{where}: the experiment has no [table]")
    for k, v in fields.items():
        if k in g.columns:
            g = g[g[k] == v]
    return g


def _table_cell(ctx: Any, column: str, fields: dict[str, Any], where: str) -> Any:
    """``column`` at the one row of the ``[table]`` that matches ``fields``."""
    rows = _table_rows(ctx, fields, where)
    if column not in rows.columns:
        raise AqmlabError(f"{where}: no column {column!r} in the [table]")
    if len(rows) != 1:
        raise AqmlabError(
            f"{where}: expected one row of the [table] where {fields}, found {len(rows)}"
        )
    return rows[column].iloc[0]


def _cell(ctx: Any, t: ReportTableDef, i: int, c: Column, fields: dict[str, Any]) -> Any:
    import math

    from aqmlab.reproduce.common import fmt

    where = f"{t.where}.columns[{i}].{c.kind}"
    row = fields
    if ctx.table is not None and (c.blank_when or c.kind == "expr"):
        # A [table] column's name stands for its cell at the row's one [table] row.
        cells = _table_rows(ctx, row, where)
        if len(cells) == 1:
            fields = {**cells.iloc[0].to_dict(), **row}
    if c.blank_when and report_text.condition(
        ctx, _format(c.blank_when, fields, where), fields, f"{t.where}.columns[{i}].blank_when"
    ):
        return c.blank if c.blank is not None else (c.none if c.none is not None else None)
    if c.kind == "value":
        v = report_text.fill(ctx, c.text, fields, where)
    elif c.kind == "number":
        path = _format(c.text, fields, where)
        v = report_text.resolve(ctx, path, {}, where)
        if isinstance(v, dict):
            raise AqmlabError(f"{where}: {path!r}: a table of numbers, not a number")
    elif c.kind == "table":
        v = _table_cell(ctx, c.text, row, where)
    elif c.kind == "column" and c.beside is not None:
        match = row[_BESIDE][c.beside]
        v = None if match is None else match[c.text]
    elif c.kind == "column":
        v = row[c.text]
    else:
        v = report_text.evaluate(ctx, _format(c.text, fields, where), fields, where)
    if c.none is not None and (v is None or (isinstance(v, float) and math.isnan(v))):
        return c.none
    if c.format == "p" and isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0:
        from aqmlab.reproduce.two_sample import p_text

        return p_text(0.0)  # underflowed: below the smallest positive double, not 0
    digits = c.digits
    if isinstance(digits, str):
        dw = f"{t.where}.columns[{i}].digits"
        n = report_text.evaluate(ctx, _format(digits, fields, dw), fields, dw)
        if isinstance(n, float) and n.is_integer():
            n = int(n)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise AqmlabError(
                f"{dw}: {digits!r}: expected a number of significant digits, got {n!r}"
            )
        digits = n
    if isinstance(v, (list, tuple)):  # a list's items as the report prints numbers, joined by ", "
        return ", ".join(fmt(x, digits) if digits is not None else fmt(x) for x in v)
    return fmt(v, digits) if digits is not None else v
