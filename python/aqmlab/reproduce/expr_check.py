"""What an expression written in a TOML file may use: the one check behind a claim's predicate
(``predicate.py``) and an experiment's columns and numbers (``metrics.py``).

Each says its :class:`Grammar` (the names, calls, operators and values it accepts) and how an
error reads; the check walks the parsed expression and refuses anything else (no attribute of
a value, no subscript, no lambda, no call of anything not listed), so a TOML file cannot run
code. Evaluating is each one's own: a predicate is scalar with a tie rule, a metric column-wise.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass

from aqmlab.exceptions import AqmlabError


@dataclass(frozen=True)
class Grammar:
    """What an expression may use besides numbers, ``+ - * /`` (``binops``), unary ``-`` and
    ``not``, ``and``/``or`` and comparisons (``compares``)."""

    #: The functions it may call, each with its number of arguments (None: any number).
    calls: Mapping[str, int | None]
    #: Said when something else is called.
    calls_error: str
    binops: tuple[type[ast.operator], ...]
    compares: tuple[type[ast.cmpop], ...]
    #: Said when another comparison is used.
    compares_error: str
    #: The names it may use besides ``calls``; None: any name (a column).
    names: Container[str] | None = None
    #: Texts, lists of values (``x in [1, 2]``) and dotted names (``flow.rate``) too.
    texts: bool = False
    #: ``x in NAME`` too, ``NAME`` a list (a report's ``point in `claim.ID.failing_points```).
    in_names: bool = False


def check(node: ast.AST, grammar: Grammar, bad: Callable[[str], AqmlabError]) -> None:
    """Raises ``bad(what)`` at the first part of ``node`` that ``grammar`` does not allow."""
    g = grammar
    if isinstance(node, ast.Attribute) and g.texts:
        base: ast.AST = node
        while isinstance(base, ast.Attribute):
            base = base.value
        if not isinstance(base, ast.Name):
            raise bad("an attribute of something not a name")
    elif isinstance(node, ast.Name):
        if g.names is not None and node.id not in g.names and node.id not in g.calls:
            raise bad(f"unknown name {node.id!r}")
    elif isinstance(node, ast.Constant):
        kinds = (int, float, str) if g.texts else (int, float)
        if isinstance(node.value, bool) or not isinstance(node.value, kinds):
            raise bad(f"{node.value!r} is not a number" + (" or a text" if g.texts else ""))
    elif isinstance(node, (ast.List, ast.Tuple)) and g.texts:
        for e in node.elts:
            if not isinstance(e, ast.Constant):
                raise bad("a list holds numbers or texts only")
            check(e, g, bad)
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in g.calls or node.keywords:
            raise bad(g.calls_error)
        arity = g.calls[node.func.id]
        if arity is not None and len(node.args) != arity:
            raise bad(f"{node.func.id}() takes {arity} arguments")
        for a in node.args:
            check(a, g, bad)
    elif isinstance(node, ast.BinOp):
        if not isinstance(node.op, g.binops):
            raise bad(f"operator {type(node.op).__name__} is not allowed")
        check(node.left, g, bad)
        check(node.right, g, bad)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.Not)):
            raise bad(f"operator {type(node.op).__name__} is not allowed")
        check(node.operand, g, bad)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            check(v, g, bad)
    elif isinstance(node, ast.Compare):
        if not all(isinstance(op, g.compares) for op in node.ops):
            raise bad(g.compares_error)
        for op, right in zip(node.ops, node.comparators):
            listed = isinstance(right, (ast.List, ast.Tuple))
            named = g.in_names and isinstance(right, (ast.Name, ast.Attribute))
            if isinstance(op, (ast.In, ast.NotIn)) and not (listed or named):
                raise bad(
                    "'in' takes a list of values, [1, 2]"
                    + (", or a name holding a list" if g.in_names else "")
                )
        for v in (node.left, *node.comparators):
            check(v, g, bad)
    else:
        raise bad(f"{type(node).__name__} is not allowed")
