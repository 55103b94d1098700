"""A claim's predicate, written in ``claims.toml`` as a small arithmetic expression.

The expression names the claim's arms ``a``, ``b``, ``c`` ... (in the order ``arms`` lists
them) and may use numbers, ``+ - * /``, comparisons (chained too), ``and``/``or``/``not``,
parentheses and the functions ``abs``, ``min`` and ``max`` (NaN when any value is NaN): ``"a < b"``,
``"max(a, b) <= 2 * min(a, b) + 5.0"``, ``"a < c and b < c"``. Nothing else is accepted (no
attribute, no other name, no call of anything else), so a claims file cannot run code; a
predicate that needs more is a function of the reproduction's module (``"py:NAME"``).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The names an expression may give its arms, in order.
ARM_NAMES = "abcdefgh"


def _nan_or(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``min``/``max`` that return NaN when any value is NaN (Python's depend on the order),
    so that a comparison with a missing value is false whichever arm is missing."""

    def f(*vals: Any) -> Any:
        return next((v for v in vals if v != v), None) if any(v != v for v in vals) else fn(*vals)

    return f


_FUNCS: dict[str, Callable[..., Any]] = {"abs": abs, "min": _nan_or(min), "max": _nan_or(max)}
_BIN = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_CMP = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


def compile_predicate(text: str, n_arms: int, where: str) -> Callable[[tuple[Any, ...]], Any]:
    """``text`` as a function of the arms' values (a tuple, ``a`` first). Errors name
    ``where`` (the file and the claim) and what was expected."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise AqmlabError(f"{where}: predicate {text!r} is not an expression: {e.msg}") from None
    names = ARM_NAMES[:n_arms]
    _check(tree.body, names, text, where)

    def run(values: tuple[Any, ...]) -> Any:
        return _eval(tree.body, dict(zip(names, values)))

    return run


def _check(node: ast.AST, names: str, text: str, where: str) -> None:
    def bad(what: str) -> AqmlabError:
        return AqmlabError(
            f"{where}: predicate {text!r}: {what} (expected arms {', '.join(names)}, numbers, "
            "+ - * /, comparisons, and/or/not, abs/min/max)"
        )

    if isinstance(node, ast.Name):
        if node.id not in names and node.id not in _FUNCS:
            raise bad(f"unknown name {node.id!r}")
    elif isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
            raise bad(f"{node.value!r} is not a number")
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCS or node.keywords:
            raise bad("only abs(), min() and max() may be called")
        for a in node.args:
            _check(a, names, text, where)
    elif isinstance(node, ast.BinOp):
        if type(node.op) not in _BIN:
            raise bad(f"operator {type(node.op).__name__} is not allowed")
        _check(node.left, names, text, where)
        _check(node.right, names, text, where)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.Not)):
            raise bad(f"operator {type(node.op).__name__} is not allowed")
        _check(node.operand, names, text, where)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            _check(v, names, text, where)
    elif isinstance(node, ast.Compare):
        if not all(type(op) in _CMP for op in node.ops):
            raise bad("only < <= > >= == != compare")
        for v in (node.left, *node.comparators):
            _check(v, names, text, where)
    else:
        raise bad(f"{type(node).__name__} is not allowed")


def _eval(node: ast.AST, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Call):
        return _FUNCS[node.func.id](*(_eval(a, env) for a in node.args))  # type: ignore[attr-defined]
    if isinstance(node, ast.BinOp):
        return _BIN[type(node.op)](_eval(node.left, env), _eval(node.right, env))
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env)
        return -v if isinstance(node.op, ast.USub) else not v
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            r: Any = True
            for v in node.values:
                r = _eval(v, env)
                if not r:
                    return r
            return r
        r = False
        for v in node.values:
            r = _eval(v, env)
            if r:
                return r
        return r
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, comp in zip(node.ops, node.comparators):
            right = _eval(comp, env)
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    raise AssertionError(type(node))
