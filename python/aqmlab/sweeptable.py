"""A sweep's tables built and written without pandas, pyarrow, scipy or numpy (issue 24: importing
them was most of a sweep command's fixed cost).

:func:`results_table` makes of the runs' rows the table pandas made of them before: the same
columns in the same order, each of the type pandas inferred (``pd.DataFrame(rows)`` and the
conversions of :func:`aqmlab.sweepresult.results_frame`, which stays as the reference and as the
fallback for the few shapes modelled nowhere here: :class:`Unmodelled`). :func:`write_csv`
writes a table byte for byte as pandas' ``to_csv`` did; :func:`write_parquet` writes it with
the native module's ``ParquetFile`` as pyarrow's ``Table.from_pandas`` and ``write_table`` did
(the same Arrow types, :mod:`aqmlab.arrow_schema`; a NaN a null; and pandas' own metadata, so
``pd.read_parquet`` gives back the same dtypes). :func:`summarize` is
:func:`aqmlab.stats.summarize` over such a table, :func:`means_text` the terminal's table.
``tests/test_sweeptable.py`` holds each against pandas.

A table's column kinds, as pandas' dtypes: ``int64``, ``float64`` (None is NaN), ``bool``,
``str`` (pandas' default string dtype), ``string`` (``astype("string")``), ``Int64`` (nullable
integers) and ``null`` (an object column of None only).
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


class Unmodelled(Exception):
    """A column pandas would hold as a mixed ``object`` column (or another shape not modelled
    here): the caller builds the tables with pandas instead."""


#: A row's missing key: pandas reads it as NaN.
MISSING = object()

#: Each kind as an Arrow type (``ParquetFile``'s names) and as pandas' metadata names it
#: (``pandas_type``, ``numpy_type``), as ``pa.Table.from_pandas`` writes them.
_ARROW = {
    "int64": ("int64", "int64", "int64"),
    "float64": ("float64", "float64", "float64"),
    "bool": ("bool", "bool", "bool"),
    "str": ("string", "object", "str"),
    "string": ("string", "object", "string"),
    "Int64": ("int64", "int64", "Int64"),
    "null": ("null", "empty", "object"),
}


@dataclass
class Table:
    """Columns in order: each one's kind and values (None a missing value)."""

    names: list[str] = field(default_factory=list)
    kinds: dict[str, str] = field(default_factory=dict)
    values: dict[str, list[Any]] = field(default_factory=dict)

    def add(self, name: str, kind: str, values: list[Any]) -> None:
        if name not in self.kinds:
            self.names.append(name)
        self.kinds[name] = kind
        self.values[name] = values

    def __len__(self) -> int:
        return len(self.values[self.names[0]]) if self.names else 0

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame of the same dtypes."""
        import pandas as pd

        dtypes = {"null": object, "str": "str"}
        cols = {}
        for n in self.names:
            kind, vals = self.kinds[n], self.values[n]
            if kind == "float64":
                vals = [math.nan if v is None else v for v in vals]
            cols[n] = pd.Series(vals, dtype=dtypes.get(kind, kind))
        return pd.DataFrame(cols, columns=self.names)


def _is_nan(v: Any) -> bool:
    return v is MISSING or (type(v) is float and v != v)


def infer(values: Sequence[Any]) -> tuple[str, list[Any]]:
    """The kind pandas infers for a column of Python values (``MISSING`` a row without the
    key, read as NaN), and the values in that kind (None missing)."""
    seen = _kinds_seen(values)
    if seen is None:
        seen = _kinds_seen_slowly(values)
    if seen == {"none"}:
        return "null", [None] * len(values)
    if seen == {"int"}:
        if all(-(2**63) <= v < 2**63 for v in values):
            return "int64", list(values)
        raise Unmodelled("an integer beyond int64")
    if seen == {"bool"}:
        return "bool", list(values)
    if seen and seen <= {"int", "float", "nan", "none"}:
        return "float64", [None if v is None or _is_nan(v) else float(v) for v in values]
    if "str" in seen and seen <= {"str", "nan", "none"}:
        return "str", [None if v is None or _is_nan(v) else v for v in values]
    raise Unmodelled(f"a column mixing {sorted(seen)}")


#: What :func:`infer` calls each value's exact type (``object``: ``MISSING``).
_KIND = {type(None): "none", bool: "bool", int: "int", float: "float", str: "str", object: "nan"}


def _kinds_seen(values: Sequence[Any]) -> set[str] | None:
    """The kinds of ``values`` by their exact types (a float NaN is "nan"); None if some value
    is of another type (a subclass), which :func:`_kinds_seen_slowly` sorts out."""
    try:
        seen = {_KIND[t] for t in set(map(type, values))}
    except KeyError:
        return None
    if "float" in seen:
        nans = [v != v for v in values if type(v) is float]
        if any(nans):
            seen.add("nan")
        if all(nans):
            seen.discard("float")
    return seen


def _kinds_seen_slowly(values: Sequence[Any]) -> set[str]:
    seen = set()
    for v in values:
        if v is None:
            seen.add("none")
        elif _is_nan(v):
            seen.add("nan")
        elif isinstance(v, bool):
            seen.add("bool")
        elif isinstance(v, int):
            seen.add("int")
        elif isinstance(v, float):
            seen.add("float")
        elif isinstance(v, str):
            seen.add("str")
        else:
            raise Unmodelled(f"a value of type {type(v).__name__}")
    return seen


def as_string(kind: str, values: list[Any]) -> list[Any]:
    """``astype("string")`` of a column: each value's text, None missing."""
    if kind == "bool":
        return [str(v) for v in values]
    if kind in ("str", "string", "null", "int64", "Int64", "object"):
        return [None if v is None else str(v) for v in values]
    if kind == "float64" and all(v is None for v in values):
        return list(values)
    raise Unmodelled(f"a {kind} column as text")


def results_table(
    columns: Sequence[str],
    rows: list[dict[str, Any]],
    zero_filled: Callable[[str], bool],
) -> Table:
    """A sweep's results table of ``rows`` (each a run's ``{column: value}``: the axes'
    ``columns``, ``seed``, ``run``, ``error`` and the run's metrics), as
    :func:`aqmlab.sweepresult.results_frame` makes it with pandas."""
    if not rows:
        raise Unmodelled("no rows")
    names = list(dict.fromkeys(k for r in rows for k in r))
    t = Table()
    for n in names:
        column = [r.get(n, MISSING) for r in rows]
        try:
            kind, vals = infer(column)
        except Unmodelled:
            if n not in columns:
                raise
            # An axis mixing kinds (1 and "a"): an object column, which becomes text below.
            kind, vals = "object", column
        t.add(n, kind, vals)
    for c in ("run", "error"):
        t.add(c, "string", as_string(t.kinds[c], t.values[c]))
    for c in columns:
        if t.kinds[c] not in ("int64", "float64"):
            t.add(c, "string", as_string(t.kinds[c], t.values[c]))
    ok = [e is None for e in t.values["error"]]
    for c in list(t.names):
        if zero_filled(c):
            if t.kinds[c] == "float64":
                t.values[c] = [0.0 if v is None and o else v for v, o in zip(t.values[c], ok)]
            elif t.kinds[c] != "int64":
                raise Unmodelled(f"{c}: a {t.kinds[c]} column filled with zeros")
        if c.endswith(".qdisc"):
            t.add(c, "string", as_string(t.kinds[c], t.values[c]))
    seeds = t.values["seed"]
    if t.kinds["seed"] == "float64":
        seeds = [None if v is None else int(v) for v in seeds]
    elif t.kinds["seed"] not in ("int64", "null"):
        raise Unmodelled(f"a {t.kinds['seed']} seed column")
    t.add("seed", "Int64" if None in seeds else "int64", seeds)
    return t


# --- the summary over seeds -------------------------------------------------------------------


def summarize(results: Table, by: Sequence[str]) -> Table:
    """:func:`aqmlab.stats.summarize` of a results table (failed runs left out): per point and
    metric (every numeric column but the point's, ``seed``, ``run`` and ``error``), the mean,
    sample standard deviation, n and the 95 % t interval over seeds."""
    from aqmlab.stats import SUMMARY_COLUMNS, summary_row

    if set(by) & {*SUMMARY_COLUMNS}:
        raise Unmodelled("an axis named as a summary column")  # pandas keeps both columns
    keep = [i for i, e in enumerate(results.values["error"]) if e is None]
    skip = {*by, "seed", "run", "error"}
    numeric = ("int64", "float64", "bool", "Int64")
    metrics = [c for c in results.names if c not in skip and results.kinds[c] in numeric]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i in keep:
        groups.setdefault(tuple(results.values[c][i] for c in by), []).append(i)
    if not by:
        groups = {(): keep}
    rows: list[dict[str, Any]] = []
    for key, idx in groups.items():
        for m in metrics:
            col = results.values[m]
            values = [math.nan if col[i] is None else col[i] for i in idx]
            rows.append(summary_row(dict(zip(by, key)), m, values))
    out = Table()
    for c in [*by, *SUMMARY_COLUMNS]:
        if rows:
            kind, vals = infer([r[c] for r in rows])
        else:
            kind, vals = "null", []
        out.add(c, kind, vals)
    return out


def no_spread(summary: Table) -> list[bool]:
    """Per row: whether its seeds gave one value (:func:`aqmlab.sweepresult.no_spread`)."""
    return [
        (0.0 if s is None or s != s else s) <= 1e-9 * (0.0 if m is None or m != m else abs(m))
        for s, m in zip(summary.values["std"], summary.values["mean"])
    ]


def seeds_identical(summary: Table) -> bool:
    """:attr:`aqmlab.sweepresult.SweepResult.seeds_identical` of a summary table."""
    flat = no_spread(summary)
    multi = [f for f, n in zip(flat, summary.values["n"]) if n is not None and n >= 2]
    return len(multi) > 0 and all(multi)


# --- writing ----------------------------------------------------------------------------------


def _text(kind: str, v: Any) -> Any:
    """A cell as pandas' ``to_csv`` writes it: missing empty, a float as its repr."""
    if v is None:
        return ""
    if kind == "float64" or type(v) is float:
        return "" if v != v else repr(float(v))
    return v


def write_csv(path: str, table: Table) -> None:
    """``table`` as CSV, byte for byte as pandas' ``to_csv(path, index=False)`` writes it."""
    import csv

    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        w.writerow(table.names)
        cols = [[_text(table.kinds[n], v) for v in table.values[n]] for n in table.names]
        w.writerows(zip(*cols))


def _version(name: str) -> str:
    """An installed package's version, from its ``NAME-VERSION.dist-info`` folder beside it
    (``importlib.metadata`` would take tens of milliseconds to import); "unknown" when absent."""
    import importlib.util

    with contextlib.suppress(ImportError, ValueError, OSError):
        spec = importlib.util.find_spec(name)
        for where in (spec.submodule_search_locations or []) if spec else []:
            prefix = f"{name}-"
            folder = os.path.dirname(where)
            for entry in os.listdir(folder):
                if entry.startswith(prefix) and entry.endswith(".dist-info"):
                    return entry[len(prefix) : -len(".dist-info")]
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "unknown"


def pandas_metadata(table: Table) -> str:
    """The ``pandas`` metadata ``pa.Table.from_pandas`` gives a table: how each column was
    held in pandas, so that ``pd.read_parquet`` restores the same dtypes."""
    import json

    arrow, pandas = _version("pyarrow"), _version("pandas")
    columns = [
        {
            "name": n,
            "field_name": n,
            "pandas_type": _ARROW[table.kinds[n]][1],
            "numpy_type": _ARROW[table.kinds[n]][2],
            "metadata": None,
        }
        for n in table.names
    ]
    return json.dumps(
        {
            "index_columns": [],
            "column_indexes": [],
            "columns": columns,
            "attributes": {},
            "creator": {"library": "pyarrow", "version": arrow},
            "pandas_version": pandas,
        }
    )


def write_parquet(path: str, table: Table) -> None:
    """``table`` as Parquet, as ``pq.write_table(pa.Table.from_pandas(df))`` wrote it: one row
    group, every column nullable, a float's NaN a null."""
    from aqmlab import _core
    from aqmlab.arrow_schema import schema_message

    columns = [(n, _ARROW[table.kinds[n]][0]) for n in table.names]
    pandas = pandas_metadata(table)
    # Parquet says only "UTF-8" of a text column: the Arrow schema says large_string, as
    # pyarrow wrote it for pandas' string columns.
    arrow = [(n, "large_string" if k == "string" else k) for n, k in columns]
    f = _core.ParquetFile(
        path,
        columns,
        max(1, len(table)),
        [("pandas", pandas), ("ARROW:schema", schema_message(arrow, {"pandas": pandas}))],
    )
    try:
        f.write_columns({n: table.values[n] for n in table.names})
    finally:
        f.close()


def put(out: str, name: str, write: Callable[[str], None]) -> None:
    """Writes ``out/name`` under a hidden temporary name, then renames it into place."""
    tmp = os.path.join(out, f".{name}.partial")
    try:
        write(tmp)
        os.replace(tmp, os.path.join(out, name))
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


# --- the terminal's table ---------------------------------------------------------------------


def means_text(summary: Table, columns: Sequence[str], show: Sequence[str]) -> str | None:
    """The means over seeds of the metrics ``show`` at each point, laid out as pandas'
    ``to_string(float_format="{:.4g}")`` lays out the pivot table ``aqmlab sweep`` printed
    before (:func:`aqmlab.cli._print_sweep`); None where that layout is not modelled here (a
    float axis, which pandas prints with digits of its own choosing): the caller asks pandas."""
    metrics: list[str] = []
    means: dict[tuple[Any, ...], dict[str, Any]] = {}
    for i, m in enumerate(summary.values["metric"]):
        if m not in show:
            continue
        if m not in metrics:
            metrics.append(m)
        point = tuple(summary.values[c][i] for c in columns)
        means.setdefault(point, {})[m] = summary.values["mean"][i]
    if not means or not columns:
        return None
    for c in columns:
        if summary.kinds[c] not in ("str", "int64", "float64"):
            return None
    cells = [[str(v) for v in p] for p in means]
    for k, c in enumerate(columns):
        if summary.kinds[c] == "float64":
            level = list(dict.fromkeys(p[k] for p in means))
            if any(v is None or v != v or v in (math.inf, -math.inf) for v in level):
                return None
            texts = dict(zip(level, _float_texts(level)))
            for row, p in zip(cells, means):
                row[k] = texts[p[k]]
    cols = [
        [
            "NaN" if means[p].get(m) is None or means[p][m] != means[p][m] else f"{means[p][m]:.4g}"
            for p in means
        ]
        for m in metrics
    ]
    # pandas leaves a MultiIndex's outer level blank where it repeats the row above's.
    shown = []
    for i, row in enumerate(cells):
        out = list(row)
        for k in range(len(row) - 1):
            if i > 0 and cells[i - 1][: k + 1] == row[: k + 1]:
                out[k] = ""
        shown.append(out)
    widths = [max(len(columns[k]), *(len(r[k]) for r in cells)) for k in range(len(columns))]
    if len(columns) == 1:
        widths[0] = max(widths[0], len("metric"))
    elif sum(widths) + len(widths) - 1 < len("metric"):
        return None
    index_w = sum(widths) + len(widths) - 1
    col_w = [max(len(m), *(len(v) for v in col)) for m, col in zip(metrics, cols)]
    lines = ["metric".ljust(index_w) + "".join(f"  {m:>{w}}" for m, w in zip(metrics, col_w))]
    total = index_w + sum(2 + w for w in col_w)
    lines.append(" ".join(c.ljust(w) for c, w in zip(columns, widths)).ljust(total))
    for i, row in enumerate(shown):
        index = " ".join(v.ljust(w) for v, w in zip(row, widths))
        lines.append(index + "".join(f"  {col[i]:>{w}}" for col, w in zip(cols, col_w)))
    return "\n".join(lines)


def _float_texts(values: list[float], digits: int = 6) -> list[str]:
    """Float index values as pandas prints them (``FloatArrayFormatter``, fixed width, a space
    for the sign where some value has a minus): ``digits`` decimals, the trailing zeros every
    value has trimmed (one kept after the point); scientific notation when a nonzero value
    would print as 0, or when a value above 1e6 makes the text longer than ``digits + 6``."""
    import re

    number = re.compile(r"^\s*[\+-]?[0-9]+\.[0-9]*$")

    def trimmed(texts: list[str]) -> list[str]:
        while True:
            numbers = [x for x in texts if number.match(x)]
            if not numbers or not all(x.endswith("0") for x in numbers):
                break
            texts = [x[:-1] if number.match(x) else x for x in texts]
        return [x + "0" if number.match(x) and x.endswith(".") else x for x in texts]

    # Formatted with a space for the sign, as pandas does before stripping it.
    texts = trimmed([f"{v: .{digits}f}" for v in values])
    too_long = max(len(x) for x in texts) > digits + 6
    large = any(abs(v) > 1e6 for v in values)
    small = any(0 < abs(v) < 10**-digits for v in values)
    if small or (too_long and large):
        texts = trimmed([f"{v: .{digits}e}" for v in values])
    if all(x.startswith(" ") for x in texts):
        texts = [x[1:] for x in texts]  # no value has a sign: no room kept for one
    return texts
