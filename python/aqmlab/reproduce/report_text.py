"""Report text filled from a reproduction's run: the fields and conditions of a declared report
table (:mod:`aqmlab.reproduce.report_table`) and of a ``[[discussion]]`` paragraph
(:mod:`aqmlab.reproduce.discussion`); docs/reproductions.md, "Report tables and discussion as
data".

A field (``{...}`` in a text) and a condition (``when``) are expressions as
:func:`aqmlab.reproduce.metrics.compile_expr` reads them (numbers, texts, ``+ - * /``,
comparisons, ``in [..]``, ``and``/``or``/``not``, ``abs``/``div``/``number``/``split``),
``x in NAME`` (``NAME`` a list: red-bursty's ``point in `claim.ID.failing_points```),
``min``/``max`` (of numbers, or of a list: ``min(rtts_ms)``), ``choose(condition, a, b)``
(``a`` where the condition holds, else ``b``), ``len`` (a list's items) and ``join(x, sep)`` (a
list's items or a table's keys joined: :mod:`aqmlab.reproduce.report_join`); nothing else, so an
experiment file runs no code. Their names are, in this order:

* a row's fields (a report table's ``rows``);
* ``claim.ID.FIELD``: a graded claim's field (``verdict``, ``ours``, ``published``,
  ``unexplained``, ...; ``test``: the outcome text of the first hypothesis test its
  explanation declares; ``test_true`` / ``test_false``: the points, by their full names, where
  that test, a ``reference`` one, found the predicate true / false: red-bursty's "true at 3
  of 3 points"; ``test_noise``: those within the reference's seeds' noise (neither);
  ``failing_points``: the failing points by name (those within our seeds' noise left out),
  what follows the first
  `` (`` left out, as a reference test matches them); an id holding ``-`` is written in
  backticks, ```claim.taildrop-extra-bytes.verdict```;
* the mode's parameters, ``quick`` (true in a quick run), ``seeds`` (how many) and ``out``;
* a number of ``ctx.numbers``, as a claim's ``metric`` spells it (``cases.CoDel.p50_ms``; in
  backticks, a key holding a dot or a space in double quotes: ```cases."tail drop".mb```), a
  key of digits indexing a list (```cases.CoDel.phases.0.p50_ms```, in backticks too).

A row field that is a table (a ``[[window]]``'s row) is read as ``FIELD.KEY`` (``w.t0``).

A name that is none of these is an error naming the file, the key and the name. A field is
printed as the report prints numbers (``common.fmt``: three significant digits), or with its
format spec (``{100 * more:+.1f}``; ``:fmt4``: as the report prints numbers, with four
significant digits: :mod:`aqmlab.reproduce.fill_format`), a list's items so, joined by
``", "`` (a claim's failing points, the rows a number lists); a field with no value (a
missing arm, a division by 0) prints ``–``. ``!`` has a meaning in a field's syntax: a
comparison belongs in ``when``.
"""

from __future__ import annotations

import ast
import math
import re
import string
from dataclasses import replace
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import metrics
from aqmlab.reproduce.expr_check import check


class _Env(dict):
    """The names an expression reads (see the module's docstring), resolved on demand."""

    def __init__(self, ctx: Any, fields: dict[str, Any], where: str):
        super().__init__()
        self.ctx, self.fields, self.where = ctx, fields, where

    def __missing__(self, name: str) -> Any:
        v = resolve(self.ctx, name, self.fields, self.where)
        if v is None:
            return math.nan  # no value: a comparison with it is false, arithmetic gives none
        return v


def resolve(ctx: Any, name: str, fields: dict[str, Any], where: str) -> Any:
    """The value ``name`` stands for (see the module's docstring); an error where none."""
    from aqmlab.reproduce.loader import split_path

    if name in fields:
        return fields[name]
    head, _, rest = name.partition(".")
    if rest and isinstance(fields.get(head), dict):  # a row field that is a table: FIELD.KEY
        if rest not in fields[head]:
            raise AqmlabError(f"{where}: {name!r}: row field {head!r} has no {rest!r}")
        return fields[head][rest]
    if name.startswith("claim."):
        parts = split_path(name)
        if len(parts) != 3:
            raise AqmlabError(f"{where}: {name!r}: expected claim.ID.FIELD")
        _, cid, key = parts
        claim = ctx.claims.get(cid)
        if claim is None:
            raise AqmlabError(f"{where}: {name!r}: no claim {cid!r} in claims.toml")
        if key == "failing_points":  # the failing points by name, as a reference test reads them
            from aqmlab.reproduce.hypotheses import failing_points

            return failing_points(claim)
        if key in ("test", "test_true", "test_false", "test_noise"):
            tests = [r for r in getattr(ctx, "tests", {}).get(cid, []) if r is not None]
            if key == "test":
                return tests[0].text if tests else None
            # A reference test's points where the claim's predicate is true / false there, or
            # within the reference's seeds' noise (neither).
            from aqmlab.reproduce.hypotheses import is_noise

            named = tests[0].named if tests else {}
            if key == "test_noise":
                return [p for p, ok in named.items() if is_noise(ok)]
            return [p for p, ok in named.items() if ok is (key == "test_true")]
        if key not in type(claim).__dataclass_fields__:
            raise AqmlabError(f"{where}: {name!r}: a claim has no field {key!r}")
        return getattr(claim, key)
    if name in ctx.params:
        return ctx.params[name]
    if name == "quick":
        return bool(ctx.quick)
    if name == "seeds":
        return len(ctx.seeds)
    if name == "out":
        return ctx.out
    if name in ctx.numbers:
        return ctx.numbers[name]
    found, v = walk(ctx.numbers, split_path(name))
    if not found:
        raise AqmlabError(
            f"{where}: {name!r}: no such row field, claim, parameter or number"
            + (f" (row fields: {', '.join(fields)})" if fields else "")
        )
    return v


def walk(numbers: dict[str, Any], keys: list[str]) -> tuple[bool, Any]:
    """Whether the path exists, and its value (None: no value); a key of digits indexes a
    list (``cases.CoDel.phases.0.p50_ms``: the first phase's)."""
    v: Any = numbers
    for k in keys:
        if isinstance(v, dict) and k in v:
            v = v[k]
        elif isinstance(v, (list, tuple)) and k.isdigit() and int(k) < len(v):  # JSON's list
            v = v[int(k)]
        else:
            return False, None
    return True, v


#: metrics' grammar, and ``min``/``max`` (of numbers or of a list) and ``choose``, and
#: ``x in NAME`` (``NAME`` a list).
_GRAMMAR = replace(
    metrics._GRAMMAR,
    in_names=True,
    calls={**metrics._GRAMMAR.calls, "min": None, "max": None, "choose": 3, "len": 1, "join": 2},
    calls_error=(
        "only abs(), div(), number(), split(), min(), max(), choose(), len() and join() may be "
        "called"
    ),
)


def compile_text(text: str, where: str) -> tuple[ast.AST, dict[str, str]]:
    """``text`` checked as an expression (see the module's docstring): its tree and the names
    its backticks stand for."""
    names: dict[str, str] = {}

    def tick(m: re.Match) -> str:
        names[f"__col{len(names)}"] = m.group(1)
        return f"__col{len(names) - 1}"

    try:
        tree = ast.parse(metrics._TICK.sub(tick, text).strip(), mode="eval").body
    except SyntaxError as e:
        raise AqmlabError(f"{where}: {text!r} is not an expression: {e.msg}") from None

    def bad(what: str) -> AqmlabError:
        return AqmlabError(
            f"{where}: {text!r}: {what} (expected numbers, parameters, row fields, claim.ID.FIELD, "
            "texts, + - * /, comparisons, in [...], and/or/not, "
            "abs/div/number/split/min/max/choose/len/join)"
        )

    check(tree, _GRAMMAR, bad)
    return tree, names


def evaluate(ctx: Any, text: str, fields: dict[str, Any], where: str) -> Any:
    """Expression ``text``'s value (None where it has none: NaN)."""
    import pandas as pd

    tree, names = compile_text(text, where)
    env = _Env(ctx, fields, where)
    try:
        v = metrics._eval(_MinMax(env, names).visit(tree), env, names)
    except TypeError as e:
        raise AqmlabError(f"{where}: {text!r}: {e}") from None
    if isinstance(v, pd.Series):  # `x in [..]` compares as a column of one value
        v = bool(v.iloc[0]) if len(v) else False
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


class _MinMax(ast.NodeTransformer):
    """Each ``min(...)`` / ``max(...)`` replaced by its value (metrics' evaluator has none):
    of its arguments, a list's values counted one by one; no value where one has none. Each
    ``choose(condition, a, b)`` replaced by ``a`` where the condition holds, else ``b`` (no
    value is false); the other is not evaluated."""

    def __init__(self, env: _Env, names: dict[str, str]):
        self.env, self.names = env, names

    def visit_Call(self, node: ast.Call) -> ast.AST:
        fn = node.func.id  # type: ignore[attr-defined]
        if fn == "choose":
            import pandas as pd

            c = metrics._eval(self.visit(node.args[0]), self.env, self.names)
            if isinstance(c, pd.Series):  # `x in [..]`
                c = bool(c.iloc[0])
            holds = not (isinstance(c, float) and math.isnan(c)) and bool(c)
            return self.visit(node.args[1] if holds else node.args[2])
        self.generic_visit(node)
        if fn == "len":  # a list's items (a claim's failing points, a number that is a list)
            v = metrics._eval(node.args[0], self.env, self.names)
            if not isinstance(v, (list, tuple, dict)):
                raise TypeError(f"len() of {type(v).__name__}: expected a list")
            return ast.Constant(len(v))
        if fn == "join":  # a list's items or a table's keys as one text: report_join.py
            from aqmlab.reproduce.report_join import join

            x, sep = (metrics._eval(a, self.env, self.names) for a in node.args)
            return ast.Constant(join(x, sep, self.env.where))
        if fn not in ("min", "max"):
            return node
        vals: list[Any] = []
        for a in node.args:
            v = metrics._eval(a, self.env, self.names)
            vals += v if isinstance(v, list) else [v]
        if not vals or any(isinstance(v, float) and math.isnan(v) for v in vals):
            return ast.Constant(math.nan)
        return ast.Constant(min(vals) if fn == "min" else max(vals))


def condition(ctx: Any, text: str, fields: dict[str, Any], where: str) -> bool:
    """``when``: whether the expression is true (no value is false)."""
    v = evaluate(ctx, text, fields, where)
    if v is None:
        return False
    if isinstance(v, str):
        raise AqmlabError(f"{where}: {text!r}: expected a condition, got the text {v!r}")
    return bool(v)


#: A ``:`` or ``!`` inside a field's quoted text is the text's, not a format spec's or a
#: conversion's (``{choose(x, '', 'y): z')}``): hidden from the format parser, then shown.
_HIDDEN = {":": "\x00", "!": "\x01"}
_SHOWN = str.maketrans({v: k for k, v in _HIDDEN.items()})


def _hide(template: str) -> str:
    """``template`` with each ``:`` and ``!`` inside a quoted text of a field (``'...'``,
    ``"..."`` or a backticked name) replaced by a control character."""
    out, depth, quote, i = [], 0, "", 0
    while i < len(template):
        c = template[i]
        if depth == 0 and template.startswith(("{{", "}}"), i):
            out.append(template[i : i + 2])
            i += 2
            continue
        if quote:
            quote = "" if c == quote else quote
            c = _HIDDEN.get(c, c) if quote else c
        elif depth and c in "'\"`":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        out.append(c)
        i += 1
    return "".join(out)


def parse(template: str, where: str) -> list[tuple[str, str | None, str]]:
    """``template`` as (literal, field expression or None, format spec) parts."""
    try:
        parts = list(string.Formatter().parse(_hide(template)))
    except ValueError as e:
        raise AqmlabError(f"{where}: {template!r}: {e}") from None
    out = []
    for literal, field, spec, conv in parts:
        field = field if field is None else field.translate(_SHOWN)
        if field is not None and (conv or not field.strip()):
            raise AqmlabError(
                f"{where}: {template!r}: expected fields of expressions, like {{cases.CoDel.mb}} "
                "or {100 * x:+.1f} (a comparison belongs in `when`)"
            )
        out.append((literal, field, spec or ""))
    return out


def check_template(template: str, where: str) -> None:
    """``template``'s syntax and its fields' grammar, before anything runs (the names they
    read are known only after the run)."""
    for _, field, _ in parse(template, where):
        if field is not None:
            compile_text(field, where)


def fill(ctx: Any, template: str, fields: dict[str, Any], where: str, none: str = "–") -> Any:
    """``template`` with its fields filled (``none`` where a field has no value); a template
    that is one field and nothing else, with no format spec, is that field's value, its type
    kept (a table's cell)."""
    from aqmlab.reproduce.common import fmt
    from aqmlab.reproduce.fill_format import FORMATTER
    from aqmlab.reproduce.fill_format import SPEC as _FMT

    parts = parse(template, where)
    if len(parts) == 1 and parts[0][0] == "" and parts[0][1] is not None and not parts[0][2]:
        return evaluate(ctx, parts[0][1], fields, where)
    out = []
    for literal, field, spec in parts:
        out.append(literal)
        if field is None:
            continue
        v = evaluate(ctx, field, fields, where)
        if v is None:
            out.append(none)
        elif spec and _FMT.fullmatch(spec):  # fmt / fmtN: as the report prints numbers
            out.append(FORMATTER.format_field(v, spec))
        elif isinstance(v, (list, tuple)):  # its items, each as a number is, joined by ", "
            try:
                out.append(", ".join(format(x, spec) if spec else fmt(x) for x in v))
            except (ValueError, TypeError) as e:
                raise AqmlabError(f"{where}: {{{field}:{spec}}}: {e}") from None
        elif spec:
            try:
                out.append(format(v, spec))
            except (ValueError, TypeError) as e:
                raise AqmlabError(f"{where}: {{{field}:{spec}}}: {e}") from None
        else:
            out.append(fmt(v))
    return "".join(out)
