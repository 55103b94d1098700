"""A claim's ``describe`` whose fields are arithmetic of the arms (docs/reproductions.md,
"claims.toml": ``describe``): ``"C/T {a / b}"`` prints the ratio of the arms' values as the
report prints numbers (``common.fmt``: three significant digits, more where two unequal
fields would print equal: ``common.telling_digits``), ``–`` where it has no value
(a division by 0, or a missing arm). A field may use the arms (``a``, ``b``, ...), numbers,
``+ - * /``, parentheses and ``abs``/``min``/``max``, the arithmetic of a predicate without its
comparisons; nothing else, so a claims file runs no code. A template whose every field is an
arm's name is printed as before (``"{a} vs {b} ms"``).
"""

from __future__ import annotations

import ast
import string
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import predicate
from aqmlab.reproduce.expr_check import check


def has_expressions(template: str, names: str) -> bool:
    """Whether a field of ``template`` is more than an arm's name (``names``: the arms')."""
    return any(f is not None and f not in tuple(names) for _, f, _, _ in _fields(template, ""))


def _fields(template: str, where: str) -> list[tuple[str, Any, str, Any]]:
    try:
        return list(string.Formatter().parse(template))
    except ValueError as e:
        raise AqmlabError(f"{where}: describe {template!r}: {e}") from None


def compile_describe(template: str, names: str, where: str) -> Callable[[tuple], str]:
    """``template`` as a function of the arms' values (a tuple, ``a`` first) to a text; errors
    name ``where`` (the file and the claim) and what was expected."""
    from aqmlab.reproduce.common import fmt, telling_digits

    parts: list[tuple[str, Any, str]] = []
    for literal, field, spec, conv in _fields(template, where):
        tree = None
        if field is not None:
            if conv or field == "":
                raise AqmlabError(
                    f"{where}: describe {template!r}: expected fields of the arms "
                    f"({', '.join(names)}) or their arithmetic, like {{a / b}}"
                )
            tree = _compile(field, names, template, where)
        parts.append((literal, tree, spec or ""))

    def value(tree: Any, env: dict[str, Any]) -> Any:
        try:
            return predicate._eval(tree, env)
        except (ZeroDivisionError, TypeError):
            return None  # a division by 0, or an arm with no value: no value

    def describe(values: tuple) -> str:
        env = dict(zip(names, values))
        shown = [
            (lit, value(tree, env) if tree is not None else None, tree, spec)
            for lit, tree, spec in parts
        ]
        # Fields that differ are printed with the digits that show it (common.telling_digits).
        digits = telling_digits(v for _, v, tree, _ in shown if tree is not None)
        out = []
        for literal, v, tree, spec in shown:
            out.append(literal)
            if tree is not None:
                out.append(format(fmt(v, digits), spec))
        return "".join(out)

    return describe


def _compile(field: str, names: str, template: str, where: str) -> ast.AST:
    def bad(what: str) -> AqmlabError:
        return AqmlabError(
            f"{where}: describe {template!r}: field {{{field}}}: {what} (expected arms "
            f"{', '.join(names)}, numbers, + - * /, abs/min/max)"
        )

    try:
        tree = ast.parse(field.strip(), mode="eval").body
    except SyntaxError as e:
        raise bad(f"not an expression: {e.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, (ast.Compare, ast.BoolOp)) or (
            isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)
        ):
            raise bad("a comparison or and/or/not (a describe prints numbers)")
    check(tree, replace(predicate._GRAMMAR, names=tuple(names)), bad)
    return tree
