"""Per-run columns and named numbers declared in ``experiment.toml`` (docs/reproductions.md,
"Metrics as data"): ``[[derive]]`` adds a column to a sweep's results, ``[numbers.NAME]``
reduces the runs to named numbers for the claims and ``results.json``.

A ``[[derive]]`` is ``name`` and one of ``expr`` (an expression of the results' columns) or
``from`` + ``map`` (a column's values renamed); ``sweeps`` limits it to the sweeps it names and
``each`` (a table of NAME = [values], every list of one length, moving together) repeats it
with ``{NAME}`` filled in its name and expression.

An expression (:func:`compile_expr`) names columns as Python names, dotted names
(``bottleneck.sojourn_ms.p50``) or any name in backticks (```qdisc:bottleneck```), and may use
numbers, texts in quotes, ``+ - * /``, comparisons, ``in [..]``, ``and``/``or``/``not``,
parentheses and the functions ``abs(x)``, ``div(a, b)`` (``a / b``, NaN where ``b`` is 0),
``min(a, b)`` and ``max(a, b)`` (of two, NaN where either is: red-vs-codel's threshold rule),
``number(x)`` (a text's leading number: ``"10 Mb/s"`` -> 10.0) and ``split(x, sep, i)`` (the
``i``-th part of a text cut at ``sep``). Nothing else is accepted (no attribute call, no
other function), so an experiment file cannot run code.

A ``[numbers.NAME]`` takes the runs of ``sweeps`` (default every sweep run; those not run in
this mode are left out) where ``where`` holds, groups them by the columns ``by`` and reduces a
column per group (``reduce``: mean, median, min, max, sum, count, quantile with ``q``,
``spread``: the seeds' 95 % half-width, Student's t, None under two values, or ``value``: the
group's one run's value, its type kept, an error for a group of several runs). ``key`` lays the
groups out as nested tables, one level per template (``"{rate_kbps:g}"``, ``"{discipline}"``;
``"{value}"`` the level of ``values``' names); ``values`` names several reductions (nested
tables allowed), ``column`` + ``reduce`` is one. No ``by`` and no ``key``: one number.
``all`` lists a column's values whose keys exist even with no run (empty below).
A reduction may add ``then``, an expression of ``x`` (the reduced value) and ``{param}``
fields computed after it (``"x / 1e6"``: the mean bytes in MB, divided after the mean as a
module would; no value stays no value), ``default`` (the value where the results have no such
column), ``omit = true`` (a group with no value gets no key) and ``integer = true`` (a whole
number as an integer). A ``[numbers.NAME]`` with ``test`` is a two-sample test
(:mod:`aqmlab.reproduce.two_sample`). A ``[numbers.NAME]`` of ``of`` (a table of NAME =
the path of a number declared above it, as a claim's ``metric`` spells it) and ``expr`` (an
expression of those names) is one number computed from others: a ratio of two groups' means.
With ``arm_column`` + ``arms`` its reductions are of runs paired across arms (``paired.py``).
``reduce = "crossing"`` (with ``x`` and ``level``) is where a curve first reaches a level
(``crossing.py``); a ``[numbers.NAME]`` of ``text`` is a text of numbers (``number_text.py``).
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import (
    crossing,
    derive_format,
    derive_sum,
    fit,
    gather,
    jain,
    matched,
    paired,
    setup_change,
    table_rows,
    two_sample,
)
from aqmlab.reproduce.expr_check import Grammar, check

#: The reductions a ``[numbers.NAME]`` may name.
REDUCERS = ("mean", "median", "min", "max", "sum", "count", "quantile", "spread", "value")
REDUCERS = (*REDUCERS, "list")  # lists.py
REDUCERS = (*REDUCERS, "crossing")  # crossing.py
_GRAMMAR = Grammar(
    calls={"abs": 1, "div": 2, "number": 1, "split": 3, "min": 2, "max": 2},
    calls_error="only abs(), div(), min(), max(), number() and split() may be called",
    binops=(ast.Add, ast.Sub, ast.Mult, ast.Div),
    compares=(ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.In, ast.NotIn),
    compares_error="only < <= > >= == != in compare",
    texts=True,
)
#: A paired number's expressions (paired.py) may also take an arm's mean over its runs.
PAIRED_GRAMMAR = Grammar(
    calls={"abs": 1, "div": 2, "mean": 1},
    calls_error="only abs(), div() and mean() may be called",
    binops=_GRAMMAR.binops,
    compares=_GRAMMAR.compares,
    compares_error=_GRAMMAR.compares_error,
    texts=True,
)
_TICK = re.compile(r"`([^`]*)`")


@dataclass
class Expr:
    """An expression of a frame's columns, checked; :meth:`eval` computes it on a frame."""

    text: str
    tree: ast.AST
    names: dict[str, str]  # placeholder -> column (backtick-quoted names)
    where: str

    def columns(self) -> list[str]:
        """The columns it names, in order (a dotted name is one column)."""
        out: list[str] = []

        def walk(node: ast.AST) -> None:
            if isinstance(node, (ast.Name, ast.Attribute)):
                col = _column(node, self.names)
                if col is not None and col not in out:
                    out.append(col)
                return
            if isinstance(node, ast.Call):
                node = ast.Tuple(elts=node.args)  # the function's name is no column
            for child in ast.iter_child_nodes(node):
                walk(child)

        walk(self.tree)
        return out

    def eval(self, df: Any, what: str) -> Any:
        import pandas as pd

        missing = [c for c in self.columns() if c not in df.columns]
        if missing:
            raise AqmlabError(f"{self.where}: no column {missing[0]!r} in the results of {what}")
        v = _eval(self.tree, df, self.names)
        if not isinstance(v, pd.Series):
            v = pd.Series(
                [v] * len(df), index=df.index, dtype=object if isinstance(v, str) else None
            )
        return v


def compile_expr(text: str, where: str, grammar: Grammar = _GRAMMAR) -> Expr:
    """``text`` checked as an expression of columns (see the module's docstring); errors name
    ``where`` (the file and the key) and what was expected."""
    names: dict[str, str] = {}

    def tick(m: re.Match) -> str:
        key = f"__col{len(names)}"
        names[key] = m.group(1)
        return key

    src = _TICK.sub(tick, text)
    try:
        tree = ast.parse(src.strip(), mode="eval").body
    except SyntaxError as e:
        raise AqmlabError(f"{where}: {text!r} is not an expression: {e.msg}") from None
    _check(tree, text, where, grammar)
    return Expr(text, tree, names, where)


def _column(node: ast.AST, names: dict[str, str]) -> str | None:
    """The column a name or dotted name stands for."""
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id)
    if isinstance(node, ast.Attribute):
        base = _column(node.value, names)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _check(node: ast.AST, text: str, where: str, grammar: Grammar = _GRAMMAR) -> None:
    def bad(what: str) -> AqmlabError:
        return AqmlabError(
            f"{where}: {text!r}: {what} (expected columns, numbers, texts, + - * /, "
            "comparisons, in [...], and/or/not, abs/div/min/max/number/split)"
        )

    check(node, grammar, bad)


def _number(x: Any) -> float:
    m = re.match(r"\s*([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?)", str(x))
    return float(m.group(1)) if m else float("nan")


def _eval(node: ast.AST, df: Any, names: dict[str, str]) -> Any:
    import pandas as pd

    if isinstance(node, (ast.Name, ast.Attribute)):
        return df[_column(node, names)]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    if isinstance(node, ast.Call):
        args = [_eval(a, df, names) for a in node.args]
        fn = node.func.id  # type: ignore[attr-defined]
        if fn == "abs":
            return abs(args[0])
        if fn == "div":
            a, b = args
            if isinstance(b, pd.Series):
                b = b.astype(float)
                return a / b.where(b != 0)
            return a / b if b else float("nan")
        if fn == "mean":  # paired.py's: an arm's runs
            return args[0].mean()
        if fn == "trace_period_s":  # param_expr.py's: a mahimahi trace's period
            from aqmlab.reproduce import mahimahi

            return mahimahi.period_s(str(args[0]))
        if fn in ("min", "max"):  # of two: no value where either has none
            if not any(isinstance(a, pd.Series) for a in args):
                if any(isinstance(a, float) and math.isnan(a) for a in args):
                    return float("nan")
                return min(args) if fn == "min" else max(args)
            both = pd.concat([pd.Series(a, index=df.index) for a in args], axis=1)
            return getattr(both, fn)(axis=1, skipna=False)
        if fn == "number":
            one = _number
        else:
            sep, i = args[1], int(args[2])
            if not isinstance(sep, str) or not sep:
                raise AqmlabError(
                    f"split: expected a separator text that is not empty, got {sep!r}"
                )

            def one(t: Any) -> Any:
                return (str(t).split(sep) + [""] * (i + 1))[i]

        if isinstance(df, dict):  # a number's expression (`then`, `expr`): values, not columns
            return one(args[0])
        s = (
            args[0]
            if isinstance(args[0], pd.Series)
            else pd.Series([args[0]] * len(df), index=df.index)
        )
        return s.map(one).astype(float) if fn == "number" else s.map(one)
    if isinstance(node, ast.BinOp):
        a, b = _eval(node.left, df, names), _eval(node.right, df, names)
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
        if not isinstance(b, pd.Series) and b == 0 and not isinstance(a, pd.Series):
            return float("nan")  # a number over 0 has no value, as div() gives
        return a / b
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, df, names)
        if isinstance(node.op, ast.USub):
            return -v
        b = _bool(v)
        return not b if isinstance(b, bool) else ~b  # ~True is -2: a value's not is `not`
    if isinstance(node, ast.BoolOp):
        vals = [_bool(_eval(v, df, names)) for v in node.values]
        out = vals[0]
        for v in vals[1:]:
            out = (out & v) if isinstance(node.op, ast.And) else (out | v)
        return out
    if isinstance(node, ast.Compare):
        left = _eval(node.left, df, names)
        out = None
        for op, right_node in zip(node.ops, node.comparators):
            right = _eval(right_node, df, names)
            r = _compare(op, left, right)
            out = r if out is None else (out & r)
            left = right
        return out
    raise AssertionError(type(node))  # _check refused it


def _bool(v: Any) -> Any:
    import pandas as pd

    return v.astype(bool) if isinstance(v, pd.Series) else bool(v)


def _compare(op: ast.cmpop, a: Any, b: Any) -> Any:
    import pandas as pd

    if isinstance(op, (ast.In, ast.NotIn)):
        if not isinstance(b, (list, tuple, pd.Series)):  # a name holding no list (report_text)
            raise TypeError(f"'in' takes a list, got {b!r}")
        s = a if isinstance(a, pd.Series) else pd.Series([a])
        r = s.isin(b)
        return ~r if isinstance(op, ast.NotIn) else r
    return {
        ast.Lt: lambda: a < b,
        ast.LtE: lambda: a <= b,
        ast.Gt: lambda: a > b,
        ast.GtE: lambda: a >= b,
        ast.Eq: lambda: a == b,
        ast.NotEq: lambda: a != b,
    }[type(op)]()


# --- experiment.toml's declarations ---------------------------------------------------------


@dataclass
class DeriveDef:
    """One ``[[derive]]``: a per-run column (each ``each`` combination one column)."""

    name: str
    expr: str = ""
    source: str = ""  # ``from``
    map: dict[str, Any] = field(default_factory=dict)
    format: dict[str, str] = field(default_factory=dict)  # from + format: derive_format
    sweeps: list[str] = field(default_factory=list)
    each: dict[str, list[Any]] = field(default_factory=dict)
    where: str = ""  # "FILE: derive[i]" for errors
    sum: str = ""  # a family of columns summed (derive_sum.py)
    jain: Any = None  # a jain.JainDef: Jain's index over groups of flows


@dataclass
class Leaf:
    column: str
    reduce: str
    q: float = 0.5
    then: str = ""  # an expression of x, the reduced value
    where: str = ""  # "FILE: numbers.NAME.values.V" for errors
    default: Any = None  # the value where the results have no such column
    omit: bool = False  # a group with no value (None, NaN) gets no key
    integer: bool = False  # a whole number as an integer (a count column stored as floats)
    expr: str = ""  # a paired number's expression of its arms (paired.py)
    x: str = ""  # crossing: the column of the abscissa (crossing.py)
    level: float | None = None  # crossing: the level the column reaches


@dataclass
class NumberDef:
    """One ``[numbers.NAME]``."""

    name: str
    sweeps: list[str]
    where_expr: str
    by: list[str]
    each: dict[str, list[Any]]
    key: list[str]
    values: Any  # a Leaf, or a (nested) dict of Leafs
    all: dict[str, list[Any]]
    where: str  # "FILE: numbers.NAME" for errors
    of: dict[str, str] = field(default_factory=dict)  # name -> path of a number declared above
    expr: str = ""  # an expression of ``of``'s names
    match: Any = None  # a matched.Match
    rows: list[str] = field(default_factory=list)  # table_rows: the columns of each row
    gather: dict[str, str] = field(default_factory=dict)  # gather: KEY -> a number's path
    setup_change: Any = None  # a setup_change.SetupChange
    sort: bool = True  # the groups sorted by ``by`` (False: in the order they first appear)
    pairing: Any = None  # a paired.Pairing: runs paired across arms


def _err(where: str, key: str, expected: str, got: Any = None) -> AqmlabError:
    tail = f", got {got!r}" if got is not None else ""
    return AqmlabError(f"{where}.{key}: expected {expected}{tail}")


def _each(where: str, doc: Any) -> dict[str, list[Any]]:
    if doc is None:
        return {}
    lens = (
        {len(v) if isinstance(v, list) else -1 for v in doc.values()}
        if isinstance(doc, dict)
        else {-1}
    )
    if not isinstance(doc, dict) or -1 in lens or 0 in lens or len(lens) > 1:
        raise _err(where, "each", "a table of NAME = [values], every list of one length", doc)
    return doc


def _strs(where: str, key: str, v: Any) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _err(where, key, "a list of texts", v)
    return v


def _sweeps(where: str, v: Any, sweeps: list[str]) -> list[str]:
    """``v`` checked as a list of the names of ``sweeps``."""
    sw = _strs(where, "sweeps", v)
    unknown = [s for s in sw if s not in sweeps]
    if unknown:
        raise _err(where, "sweeps", f"names of [[sweep]]s ({', '.join(sweeps)})", unknown)
    return sw


def _known(where: str, doc: dict[str, Any], keys: tuple[str, ...]) -> None:
    for k in doc:
        if k not in keys:
            raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(keys)})")


def where_of(where: str, d: dict[str, Any]) -> str:
    """A table's ``where`` (an expression of the results' columns; default none), checked now
    unless it holds ``{param}`` fields, which are filled first."""
    wh = d.get("where", "")
    if not isinstance(wh, str):
        raise _err(where, "where", "an expression of the results' columns (a text)", wh)
    if wh and "{" not in wh:
        compile_expr(wh, f"{where}.where")
    return wh


def one_sweep(where: str, d: dict[str, Any], sweeps: list[str], what: str) -> list[str]:
    """A table's ``sweeps`` naming exactly one of ``sweeps`` (``what`` it must be: "one table
    of points"), checked."""
    sw = _strs(where, "sweeps", d.get("sweeps", []))
    if len(sw) != 1 or sw[0] not in sweeps:
        raise _err(where, "sweeps", f"{what} ({', '.join(sweeps)})", sw)
    return sw


def load_derives(path: str, doc: Any, sweeps: list[str]) -> list[DeriveDef]:
    """The ``[[derive]]`` tables, checked (expressions parsed, sweeps known)."""
    if not isinstance(doc, list):
        raise AqmlabError(f"{path}: derive: expected [[derive]] tables")
    out = []
    for i, d in enumerate(doc):
        where = f"{path}: derive[{i}]"
        if not isinstance(d, dict):
            raise AqmlabError(f"{where}: expected a table")
        _known(where, d, ("name", "expr", "from", "map", "format", "sweeps", "each", "sum", "jain"))
        name = d.get("name")
        if not isinstance(name, str) or not name:
            raise _err(where, "name", "the new column's name, a text", name)
        where = f"{path}: derive[{i}] ({name!r})"
        kinds = [k for k in ("expr", "map", "format", "sum", "jain") if k in d]
        if len(kinds) != 1:
            raise AqmlabError(
                f"{where}: expected one of expr or from + map or from + format or sum or jain"
            )
        dd = DeriveDef(name, where=where, each=_each(where, d.get("each")))
        if "jain" in d:
            dd.jain = jain.parse(where, d["jain"])
        elif "expr" in d:
            if not isinstance(d["expr"], str) or "from" in d:
                raise _err(
                    where, "expr", "an expression of the results' columns (a text)", d["expr"]
                )
            dd.expr = d["expr"]
            first = _fill_each(dd.expr, dd.each, 0)
            if "{" not in first:  # one with {param} fields is checked once they are filled
                compile_expr(first, f"{where}.expr")
        elif "sum" in d:
            dd.sum = derive_sum.parse(where, d["sum"])
        elif "format" in d:
            dd.source, dd.format = derive_format.load(where, d)
        else:
            if not isinstance(d.get("from"), str) or not isinstance(d["map"], dict) or not d["map"]:
                raise _err(where, "map", 'from = "COLUMN" and map = { value = new value, ... }')
            dd.source, dd.map = d["from"], d["map"]
        dd.sweeps = _sweeps(where, d.get("sweeps", []), sweeps)
        out.append(dd)
    return out


#: A reduction's keys besides column, reduce, q and then.
_LEAF_EXTRA = ("default", "omit", "integer")


def _leaf(where: str, doc: Any, pairing: Any = None, reducers: tuple = REDUCERS) -> Leaf:
    if not isinstance(doc, dict):
        raise AqmlabError(f"{where}: expected a table {{ column = ..., reduce = ... }}")
    paired_keys = ("expr",) if pairing else ()
    _known(
        where, doc, ("column", "reduce", "q", "then", *_LEAF_EXTRA, *paired_keys, *crossing.KEYS)
    )
    col, red = doc.get("column"), doc.get("reduce", "mean")
    if (red != "count" or pairing) and (not isinstance(col, str) or not col):
        raise _err(where, "column", "the column to reduce (a text)", col)
    if red not in reducers:
        raise _err(where, "reduce", " or ".join(reducers), red)
    q = doc.get("q", 0.5 if red != "quantile" else None)
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q <= 1:
        raise _err(where, "q", "the quantile, a number from 0 to 1", q)
    then = doc.get("then", "")
    if not isinstance(then, str):
        raise _err(where, "then", "an expression of x, the reduced value (a text)", then)
    if then:
        e = compile_expr(then if "{" not in then else "x", f"{where}.then")
        if [c for c in e.columns() if c != "x"]:
            raise _err(where, "then", "an expression of x alone", then)
    default, omit = doc.get("default"), doc.get("omit", False)
    if default is not None and (isinstance(default, bool) or not isinstance(default, (int, float))):
        raise _err(where, "default", "a number (the value where the column is missing)", default)
    if not isinstance(omit, bool):
        raise _err(where, "omit", "true or false (a group with no value gets no key)", omit)
    integer = doc.get("integer", False)
    if not isinstance(integer, bool):
        raise _err(where, "integer", "true or false (a whole number as an integer)", integer)
    leaf = Leaf(col or "", red, float(q), then, where, default, omit, integer)
    leaf.x, leaf.level = crossing.parse(where, doc, red)
    if pairing and red == "crossing":
        raise _err(where, "reduce", "a reduction of the pairs' values (not crossing)")
    return paired.with_expr(leaf, doc, pairing) if pairing else leaf


_LEAF_KEYS = ("column", "reduce", "q", "then", "expr")


def _values(where: str, doc: Any, pairing: Any = None) -> Any:
    if not isinstance(doc, dict) or not doc:
        raise AqmlabError(f"{where}: expected a table of NAME = {{ column = ..., reduce = ... }}")
    if any(k in doc for k in _LEAF_KEYS):
        return _leaf(where, doc, pairing)
    return {k: _values(f"{where}.{k}", v, pairing) for k, v in doc.items()}


def load_numbers(path: str, doc: Any, sweeps: list[str]) -> list[NumberDef]:
    """The ``[numbers.NAME]`` tables, checked."""
    if not isinstance(doc, dict):
        raise AqmlabError(f"{path}: numbers: expected [numbers.NAME] tables")
    out = []
    for name, d in doc.items():
        where = f"{path}: numbers.{name}"
        if not isinstance(d, dict):
            raise AqmlabError(f"{where}: expected a table")
        from aqmlab.reproduce import assemble, number_text

        pairing = paired.parse(where, d)
        kind = None if pairing else assemble.load(name, where, d)
        if kind is not None:  # numbers of numbers: their own file
            out.append(kind)
            continue
        if "setup_change" in d:  # a hypothesis's outcome from a set-up's change: setup_change.py
            out.append(setup_change.number(name, where, d))
            continue
        if "text" in d:  # a text of numbers: number_text.py
            out.append(number_text.load(name, where, d))
            continue
        keys = ("sweeps", "where", "by", "each", "key", "values", "column", "reduce", "q", "then")
        keys = (*keys, "all", "of", "expr", "fit", "published", "match", "sort", "rows")
        keys = (*keys, "gather", *_LEAF_EXTRA, *crossing.KEYS)
        keys = (*keys, *paired.KEYS)
        if "test" in d:  # Welch's t and the F-test of two samples (two_sample.py)
            out.append(two_sample.load(name, where, d))
            continue
        _known(where, d, keys)
        if "published" in d:  # the sources' published values: published.py
            from aqmlab.reproduce import published

            out.append(published.parse(name, where, d))
            continue
        if "fit" in d and not pairing:
            out.append(fit.parse(name, where, d))
            continue
        if "match" in d:  # two curves compared at the same abscissa: matched.py
            out.append(matched.number(name, where, d, sweeps))
            continue
        if "rows" in d:  # a table's rows: table_rows.py
            out.append(table_rows.number(name, where, d, sweeps))
            continue
        if "gather" in d:  # numbers above under one name: gather.py
            out.append(gather.number(name, where, d))
            continue
        if ("of" in d or "expr" in d) and not pairing:
            out.append(_of_numbers(name, where, d))
            continue
        if pairing and ("of" in d or "fit" in d):
            k = "of" if "of" in d else "fit"
            raise AqmlabError(f"{where}.{k}: not with arm_column + arms (runs paired across arms)")
        sw = _sweeps(where, d.get("sweeps", []), sweeps)
        wh = where_of(where, d)
        by = _strs(where, "by", d.get("by", []))
        key = _strs(where, "key", d.get("key", []))
        each = _each(where, d.get("each"))
        if "values" in d:
            if any(k in d for k in (*_LEAF_KEYS, *crossing.KEYS)):
                raise AqmlabError(f"{where}: expected values or column + reduce, not both")
            values = _values(f"{where}.values", d["values"], pairing)
        else:
            leaf_keys = (*_LEAF_KEYS, *_LEAF_EXTRA, *crossing.KEYS)
            values = _leaf(where, {k: d[k] for k in leaf_keys if k in d}, pairing)
        if (by or each) and not key:
            raise _err(where, "key", 'one template per level, like ["{rate}", "{qdisc}"]')
        fields = {f for k in key for f in re.findall(r"\{(\w+)", k)}
        known = {*by, *each, "value"}
        if fields - known:
            raise _err(where, "key", f"fields among {sorted(known)}", sorted(fields - known))
        if "value" in fields and not isinstance(values, dict):
            raise _err(where, "key", "no {value} level: there is one value (use values = {...})")
        al = d.get("all", {})
        if not isinstance(al, dict) or not all(isinstance(v, list) for v in al.values()):
            raise _err(where, "all", "a table of COLUMN = [the values always keyed]", al)
        if set(al) - set(by):
            raise _err(where, "all", f"columns of by ({', '.join(by)})", sorted(set(al) - set(by)))
        srt = d.get("sort", True)  # false: the groups in the order they first appear
        if not isinstance(srt, bool):
            raise _err(where, "sort", "true or false (false: groups in first-seen order)", srt)
        out.append(
            NumberDef(name, sw, wh, by, each, key, values, al, where, sort=srt, pairing=pairing)
        )
    return out


def _of_numbers(name: str, where: str, d: dict[str, Any]) -> NumberDef:
    """A ``[numbers.NAME]`` of ``of`` + ``expr``: one number from numbers declared above."""
    other = [k for k in d if k not in ("of", "expr")]
    if other:
        raise AqmlabError(f"{where}.{other[0]}: not with of + expr (one number from others)")
    of, text = d.get("of"), d.get("expr")
    if not isinstance(of, dict) or not of or not all(isinstance(v, str) for v in of.values()):
        raise _err(where, "of", 'a table of NAME = "the path of a number declared above"', of)
    if not isinstance(text, str) or not text:
        raise _err(where, "expr", "an expression of the names of of (a text)", text)
    if "{" not in text:
        unknown = [c for c in compile_expr(text, f"{where}.expr").columns() if c not in of]
        if unknown:
            raise _err(where, "expr", f"an expression of {', '.join(of)}", unknown[0])
    return NumberDef(name, [], "", [], {}, [], None, {}, where, of, text)


# --- computing them --------------------------------------------------------------------------


def _fill_each(text: str, each: dict[str, list[Any]], i: int) -> str:
    for k, v in each.items():
        text = text.replace("{" + k + "}", str(v[i]))
    return text


def derive(df: Any, defs: list[DeriveDef], sweep: str, fill: Any) -> Any:
    """``df`` (a sweep's results) with the columns of ``defs`` that apply to ``sweep``, added
    in one step (one by one fragments a wide frame). ``fill`` fills ``{param}`` fields."""
    import pandas as pd

    new: dict[str, Any] = {}
    for d in defs:
        if d.sweeps and sweep not in d.sweeps:
            continue
        n = len(next(iter(d.each.values()))) if d.each else 1
        for i in range(n):
            name = _fill_each(d.name, d.each, i)
            view = pd.concat([df, pd.DataFrame(new, index=df.index)], axis=1) if new else df
            if d.jain:
                new[name] = jain.column(view, d.jain, lambda t, i=i, e=d.each: _fill_each(t, e, i))
            elif d.expr:
                e = compile_expr(fill(_fill_each(d.expr, d.each, i)), f"{d.where}.expr")
                new[name] = e.eval(view, f"sweep {sweep!r}")
            elif d.sum:
                new[name] = derive_sum.total(view, _fill_each(d.sum, d.each, i), d.where, sweep)
            elif d.format:
                src = _fill_each(d.source, d.each, i)
                new[name] = derive_format.column(view, src, d.format, d.where, f"sweep {sweep!r}")
            else:
                src = _fill_each(d.source, d.each, i)
                if src not in view.columns:
                    raise AqmlabError(
                        f"{d.where}.from: no column {src!r} in the results of sweep {sweep!r}"
                    )
                missing = sorted({str(v) for v in view[src].unique()} - set(map(str, d.map)))
                if missing:
                    raise AqmlabError(
                        f"{d.where}.map: no new value for {missing[0]!r} of column {src!r}"
                    )
                m = {str(k): v for k, v in d.map.items()}
                new[name] = view[src].map(lambda v, m=m: m[str(v)])
    if not new:
        return df
    keep = df.drop(columns=[c for c in new if c in df.columns])
    # Consolidated (one block per type): a frame of a block per column warns as fragmented
    # at the module's next column.
    return pd.concat([keep, pd.DataFrame(new, index=df.index)], axis=1).copy()


def reduce(values: Any, leaf: Leaf, fill: Any = None) -> Any:
    """One group's ``leaf.column`` reduced (NaNs left out, as pandas' reductions do), then
    ``leaf.then`` on it (``fill`` fills its ``{param}`` fields)."""
    from aqmlab.reproduce.common import seed_spread

    r = leaf.reduce
    if r == "count":
        v: Any = int(len(values))
    elif r == "spread":
        v = seed_spread(values)
    elif r == "quantile":
        v = quantile(values, leaf.q)
    elif r == "value":
        v = one_value(values, leaf)
    elif r == "list":
        from aqmlab.reproduce import lists

        v = lists.values(values)
    else:
        v = float(getattr(values, r)())
    v = v if not leaf.then or v is None else then(leaf, v, fill)
    return as_integer(v, leaf) if leaf.integer else v


def _crossing(rows: Any, column: str, leaf: Leaf, fill: Any, what: str) -> Any:
    """``reduce = "crossing"`` over one group's rows (crossing.py), then ``leaf.then``."""
    assert leaf.level is not None
    v = crossing.value(rows, column, leaf.x, leaf.level, what, leaf.where)
    v = then(leaf, v, fill) if leaf.then else v
    return as_integer(v, leaf) if leaf.integer else v


def as_integer(v: Any, leaf: Leaf) -> Any:
    """``integer = true``: a whole number as an integer (no value stays none); a fraction is
    an error, naming the key."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return v
    if float(v) != int(float(v)):
        raise _err(leaf.where, "integer", "a column of whole numbers", v)
    return int(float(v))


def then(leaf: Leaf, x: Any, fill: Any = None) -> float:
    """``leaf.then`` with ``x`` the reduced value (Python floats: the arithmetic a module's
    ``mean / 1e6`` does)."""
    text = fill(leaf.then) if fill is not None else leaf.then
    e = compile_expr(text, f"{leaf.where}.then")
    if [c for c in e.columns() if c != "x"]:
        raise _err(leaf.where, "then", "an expression of x alone", text)
    return float(_eval(e.tree, {"x": x}, e.names))


def one_value(values: Any, leaf: Leaf) -> Any:
    """A group's one run's value as Python gives it (an integer column's stays an integer: a
    one-seed reproduction's per-run counters), refusing a group of several runs."""
    if len(values) != 1:
        raise AqmlabError(
            f"{leaf.where}.reduce: 'value' takes a group of one run, got {len(values)} "
            f"(add their column to by, or reduce them)"
        )
    v = values.iloc[0]
    return v.item() if hasattr(v, "item") else v


def quantile(values: Any, q: float) -> float:
    """The ``q`` quantile, interpolated linearly between the two values around it as
    ``lo + (hi - lo) * frac`` (pandas' grouped quantile; NumPy's rounds differently above the
    middle), NaNs left out; NaN with no value."""
    v = sorted(float(x) for x in values if x == x)
    if not v:
        return float("nan")
    pos = q * (len(v) - 1)
    i = math.floor(pos)
    if i + 1 >= len(v):
        return v[-1]
    return v[i] + (v[i + 1] - v[i]) * (pos - i)


def compute(
    nd: NumberDef, frames: dict[str, Any], fill: Any, numbers: dict[str, Any] | None = None
) -> Any:
    """The number ``nd`` names, over ``frames`` (sweep name -> results with derived columns);
    one of ``of`` + ``expr`` over ``numbers`` (those declared above it)."""
    import pandas as pd

    if isinstance(nd, two_sample.TwoSampleDef):
        return nd.compute(numbers or {})
    if hasattr(nd, "compute"):  # assemble.py
        return nd.compute(frames, fill, numbers or {})
    if nd.expr:
        return _of_value(nd, numbers or {}, fill)
    if nd.match is not None:
        return matched.value(nd, frames, fill)
    if nd.rows:
        return table_rows.value(nd, frames, fill)
    if nd.gather:
        return gather.value(nd, numbers or {})
    if nd.setup_change is not None:
        return setup_change.value(nd, numbers or {})
    names = nd.sweeps or list(frames)
    ran = [frames[s] for s in names if s in frames]
    if not ran:
        raise AqmlabError(f"{nd.where}.sweeps: none of {names} ran in this mode")
    df = ran[0] if len(ran) == 1 else pd.concat(ran, ignore_index=True)
    what = f"sweep(s) {', '.join(repr(s) for s in names if s in frames)}"
    if nd.where_expr:
        sel = compile_expr(fill(nd.where_expr), f"{nd.where}.where").eval(df, what)
        df = df[sel.astype(bool)]
    missing = [c for c in nd.by if c not in df.columns]
    if missing:
        raise AqmlabError(f"{nd.where}.by: no column {missing[0]!r} in the results of {what}")
    if nd.pairing:
        paired.check_columns(nd.pairing, df, what)
    n = len(next(iter(nd.each.values()))) if nd.each else 1
    leaves = _leaves(nd.values)
    for i in range(n):
        for path, leaf in leaves:
            col = _fill_each(leaf.column, nd.each, i)
            if leaf.reduce != "count" and col not in df.columns and leaf.default is None:
                raise AqmlabError(
                    f"{nd.where}.{'.'.join(['values', *path]) if path else 'column'}: no column "
                    f"{col!r} in the results of {what}"
                )
            if leaf.x and leaf.x not in df.columns:
                raise AqmlabError(f"{leaf.where}.x: no column {leaf.x!r} in the results of {what}")
    groups = df.groupby(nd.by, sort=nd.sort) if nd.by else [((), df)]
    out: dict[str, Any] = {}
    for gkey, rows in groups:
        gkey = gkey if isinstance(gkey, tuple) else (gkey,)
        for i in range(n):
            fields = {**dict(zip(nd.by, gkey)), **{k: v[i] for k, v in nd.each.items()}}
            cols = {path: _fill_each(leaf.column, nd.each, i) for path, leaf in leaves}
            vals = {
                path: paired.value(rows, cols[path], leaf, nd.pairing, fill)
                if nd.pairing
                else _crossing(rows, cols[path], leaf, fill, what)
                if leaf.x
                else reduce(rows[cols[path]] if leaf.column else rows, leaf, fill)
                if not leaf.column or cols[path] in rows
                else leaf.default
                for path, leaf in leaves
            }
            vals = {p: v for p, v in vals.items() if not (dict(leaves)[p].omit and _none(v))}
            if not nd.key:
                if () in vals:
                    return vals[()]
                nested: dict[str, Any] = {}  # `values` without `key`: their names' tables
                for path, v in vals.items():
                    at = nested
                    for k in path[:-1]:
                        at = at.setdefault(k, {})
                    at[path[-1]] = v
                return nested
            _place(out, nd, fields, vals)
    _pad(out, nd, 0)
    from aqmlab.reproduce import lists

    return lists.levels(out, nd.key)


def _of_value(nd: NumberDef, numbers: dict[str, Any], fill: Any) -> Any:
    from aqmlab.reproduce.loader import split_path

    vals: dict[str, Any] = {}
    for name, path in nd.of.items():
        v: Any = numbers
        for k in split_path(path):
            if not isinstance(v, dict) or k not in v:
                raise AqmlabError(
                    f"{nd.where}.of.{name}: no number {path!r} (declared above this one)"
                )
            v = v[k]
        if isinstance(v, (dict, list)):
            raise _err(nd.where, f"of.{name}", "the path of one number", path)
        vals[name] = v
    if any(v is None for v in vals.values()):
        return None
    e = compile_expr(fill(nd.expr), f"{nd.where}.expr")
    unknown = [c for c in e.columns() if c not in nd.of]
    if unknown:
        raise _err(nd.where, "expr", f"an expression of {', '.join(nd.of)}", unknown[0])
    return float(_eval(e.tree, vals, e.names))


def _none(v: Any) -> bool:
    """No value: None or NaN (``omit``)."""
    return v is None or (isinstance(v, float) and math.isnan(v))


def _leaves(v: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Leaf]]:
    if isinstance(v, Leaf):
        return [(path, v)]
    return [x for k, sub in v.items() for x in _leaves(sub, (*path, k))]


def _place(out: dict[str, Any], nd: NumberDef, fields: dict[str, Any], vals: dict) -> None:
    for path, v in vals.items():
        node: Any = out
        levels = ["\0" if k == "{value}" else k.format(**fields) for k in nd.key]
        rest = list(path)
        keys = []
        for lv in levels:
            if lv == "\0":  # a value's whole name, nested names too (spread.median_ms)
                keys += rest
                rest = []
            else:
                keys.append(lv)
        keys += rest
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = v


def _pad(node: dict[str, Any], nd: NumberDef, level: int) -> None:
    """Every entry ``all`` (or ``{value}``) knows of, from the top down to the first level
    whose keys are not known in advance."""
    if level >= len(nd.key):
        return
    k = nd.key[level]
    m = re.fullmatch(r"\{(\w+)\}", k)
    if not m:
        return
    if m.group(1) == "value" and isinstance(nd.values, dict):
        known = list(nd.values)
    elif m.group(1) in nd.all:
        known = [str(x) for x in nd.all[m.group(1)]]
    else:
        return
    for x in known:
        node.setdefault(x, {})
    for x in known:
        if isinstance(node[x], dict):
            _pad(node[x], nd, level + 1)
