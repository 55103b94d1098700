"""A claim's predicate, written in ``claims.toml`` as a small arithmetic expression.

The expression names the claim's arms ``a``, ``b``, ``c`` ... (in the order ``arms`` lists
them) and may use numbers, ``+ - * /``, comparisons (chained too), ``and``/``or``/``not``,
parentheses and the functions ``abs``, ``min`` and ``max`` (NaN when any value is NaN): ``"a < b"``,
``"max(a, b) <= 2 * min(a, b) + 5.0"``, ``"a < c and b < c"``. Nothing else is accepted (no
attribute, no other name, no call of anything else), so a claims file cannot run code; a
predicate that needs more is a function of the reproduction's module (``"py:NAME"``).

**Ties** (docs/reproductions.md, "Ties and stalled runs"). An ordering comparison (``<``,
``<=``, ``>``, ``>=``) between two sides that both depend on the arms, whose sides are equal
within the claim's ``resolution`` (the quantity's stated resolution; 0: exactly equal), is a
:data:`TIE`: equality is evidence for neither order, so "0 vs 0 ms" passes neither ``a < b`` nor
``a <= 0.5 * b``. A comparison with a constant (``a >= 0.9``, ``a - b <= 0.05``) is never an
exact tie: a value equal to the threshold passes ``>=``.
``and`` is false when any part is false, else a tie when any part is a tie; ``or`` is true when
any part is true, else a tie when any part is; ``not`` keeps a tie. A tie is not a pass.

**Noise** (docs/reproductions.md, "Ties and stalled runs"). Where the arms' values come with
their per-seed values (``per_seed``: a point's ``per_seed`` attribute, one list per arm in seed
order), every ordering comparison with a side that depends on the arms is also evaluated seed
by seed, paired by seed (a constant side is the same on every seed): with ``d`` the difference
of its sides on the means and ``h`` the 95 % Student-t half-width of the per-seed differences
(:func:`aqmlab.reproduce.common.seed_spread`; none under two paired seeds), it is a
:class:`Noise` tie when ``|d| <= resolution + h`` (the resolution only between two
arm-dependent sides, as for the exact tie): an order within our seeds' scatter is evidence for
neither order either. So ``0.9 <= a / b``, ``0.9 * b <= a`` and ``a >= 0.85`` all have the
band, however the claim is written. An exact tie outranks a noise one in ``and``/``or``.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.expr_check import Grammar, check

#: The names an expression may give its arms, in order.
ARM_NAMES = "abcdefgh"
#: What a predicate returns where its comparison is between equal values: not a pass.
TIE = "tie"
#: What a predicate returns where every arm's run delivered (almost) nothing: not a pass.
STALLED = "stalled"
#: What a predicate returns where its comparison's order is within our seeds' scatter.
NOISE = "noise"


class Noise(str):
    """:data:`NOISE`, with the comparison that was within noise: the difference of its sides
    on the means ``d``, the per-seed differences' 95 % half-width ``h`` over ``seeds`` paired
    seeds, and the claim's ``resolution``."""

    d: float
    h: float
    seeds: int
    resolution: float

    def __new__(cls, d: float, h: float, seeds: int, resolution: float) -> Noise:
        t = super().__new__(cls, NOISE)
        t.d, t.h, t.seeds, t.resolution = float(d), float(h), int(seeds), float(resolution)
        return t


def is_tie(r: Any) -> bool:
    """Whether a predicate's result is a tie (equal values, runs that delivered nothing, or an
    order within our seeds' noise)."""
    return isinstance(r, str) and r in (TIE, STALLED, NOISE)


def ordering_on_arms(text: str) -> bool:
    """Whether the predicate ``text`` (well formed) has an ordering comparison with a side that
    depends on the arms: the comparisons seed noise can tie."""
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(
                isinstance(op, _ORDER) and (_uses_arms(sides[i]) or _uses_arms(sides[i + 1]))
                for i, op in enumerate(node.ops)
            ):
                return True
    return False


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
_GRAMMAR = Grammar(
    calls={"abs": 1, "min": None, "max": None},
    calls_error="only abs(), min() and max() may be called",
    binops=tuple(_BIN),
    compares=tuple(_CMP),
    compares_error="only < <= > >= == != compare",
)


def compile_predicate(
    text: str, n_arms: int, where: str, resolution: float = 0.0, names: Any = None
) -> Callable[[tuple[Any, ...]], Any]:
    """``text`` as a function of the arms' values (a tuple, ``a`` first): True, False,
    :data:`TIE` (two arm-dependent sides of an ordering comparison within ``resolution`` of
    each other) or :class:`Noise` (an ordering comparison with an arm-dependent side within the
    seeds' noise, where the values carry ``per_seed``). Errors name ``where`` (the file and the
    claim) and what was expected.
    ``names``: the values' names instead of the arms' (a test's quantities: sample_claims.py)."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise AqmlabError(f"{where}: predicate {text!r} is not an expression: {e.msg}") from None
    names = tuple(names) if names else ARM_NAMES[:n_arms]
    _check(tree.body, names, text, where)

    def run(values: tuple[Any, ...]) -> Any:
        env = dict(zip(names, values))
        seeds = _seed_envs(names, getattr(values, "per_seed", None))
        try:
            return _eval(tree.body, env, resolution, seeds)
        except ZeroDivisionError:
            # Not NaN: a NaN side would make `a != b` or `not (a < b)` pass.
            shown = ", ".join(f"{k} = {v!r}" for k, v in env.items())
            raise AqmlabError(
                f"{where}: predicate {text!r} divides by 0 at {shown}: guard it "
                "(e.g. 'b != 0 and a / b < 1')"
            ) from None

    return run


def _check(node: ast.AST, names: str, text: str, where: str) -> None:
    def bad(what: str) -> AqmlabError:
        return AqmlabError(
            f"{where}: predicate {text!r}: {what} (expected arms {', '.join(names)}, numbers, "
            "+ - * /, comparisons, and/or/not, abs/min/max)"
        )

    check(node, replace(_GRAMMAR, names=names), bad)


_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _seed_envs(names: str, per_seed: Any) -> list[dict[str, Any]]:
    """One environment per seed from each arm's per-seed values (lists in seed order), paired
    by seed; none where there are no such values or the arms' lists differ in length (no
    pairing: no noise band)."""
    if not per_seed:
        return []
    lists = [list(v) for v in per_seed]
    if len({len(v) for v in lists}) != 1:
        return []
    return [dict(zip(names, vals)) for vals in zip(*lists)]


def _noise(
    left: ast.AST, right: ast.AST, d: float, res: float, seeds: list[dict[str, Any]]
) -> Noise | None:
    """A :class:`Noise` tie where ``|d|`` is within ``res`` plus the 95 % half-width of the
    per-seed differences of the two sides (paired by seed; a seed where either side has no
    value left out); None where it is not, under two seeds pair, or where the differences do
    not scatter (``h`` 0: a value equal to a constant threshold passes ``>=``)."""
    from aqmlab.reproduce.common import seed_spread

    diffs = []
    for env in seeds:
        try:
            diffs.append(float(_eval(left, env, res)) - float(_eval(right, env, res)))
        except (ZeroDivisionError, TypeError):
            continue  # a seed whose side divides by 0, or has no value, has no difference
    diffs = [x for x in diffs if x == x]
    h = seed_spread(diffs)
    if not h or not abs(d) <= res + h:
        return None
    return Noise(d, h, len(diffs), res)


def _uses_arms(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id not in _FUNCS for n in ast.walk(node))


def _eval(
    node: ast.AST, env: dict[str, Any], res: float = 0.0, seeds: list[dict[str, Any]] | None = None
) -> Any:
    """``node``'s value in ``env``; ``seeds``: the same arms' values seed by seed (a point's
    ``per_seed``), for the noise band of an ordering comparison with an arm-dependent side."""
    seeds = seeds or []
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Call):
        return _FUNCS[node.func.id](*(_eval(a, env, res) for a in node.args))  # type: ignore[attr-defined]
    if isinstance(node, ast.BinOp):
        return _BIN[type(node.op)](_eval(node.left, env, res), _eval(node.right, env, res))
    if isinstance(node, ast.UnaryOp):
        v = _eval(node.operand, env, res, seeds)
        if isinstance(node.op, ast.USub):
            return -v
        return v if is_tie(v) else not v
    if isinstance(node, ast.BoolOp):
        # Left to right, stopping as Python does (``b != 0 and a / b < 1`` divides only when
        # b is not 0); a tie is remembered and decides only when nothing else does.
        is_and = isinstance(node.op, ast.And)
        ties: list[Any] = []
        r: Any = is_and
        for part in node.values:
            v = _eval(part, env, res, seeds)
            if is_tie(v):
                ties.append(v)
                continue
            r = v
            if bool(v) != is_and:
                return v
        return _tie_of(ties) if ties else r
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        vals = [_eval(v, env, res) for v in sides]
        tie: Any = None
        for i, op in enumerate(node.ops):
            left, right = vals[i], vals[i + 1]
            arms = [_uses_arms(sides[i]), _uses_arms(sides[i + 1])]
            ordering = isinstance(op, _ORDER) and any(arms)
            # The resolution only between two arm-dependent sides: a constant is exact.
            r = res if all(arms) else 0.0
            if ordering and all(arms) and abs(left - right) <= r:
                tie = TIE  # equal values: evidence for neither order
                continue
            noise = _noise(sides[i], sides[i + 1], left - right, r, seeds) if ordering else None
            if noise is not None:
                # An order within our seeds' scatter: neither order. Of a chain's comparisons
                # within noise, the nearest (_nearness) is the one told (a band's near edge).
                if tie is None or (isinstance(tie, Noise) and _nearness(noise) < _nearness(tie)):
                    tie = noise
            elif not _CMP[type(op)](left, right):
                return False
        return tie or True
    raise AssertionError(type(node))


def _nearness(t: Noise) -> float:
    """How near a comparison within noise is to its edge, in its own half-widths (``|d|`` less
    its resolution, over ``h``): comparable across the parts of an ``and``/``or`` in different
    units."""
    return (abs(t.d) - t.resolution) / t.h if t.h > 0 else abs(t.d)


def _tie_of(ties: list[Any]) -> str:
    """Stalled when every tied part is stalled; else a tie when a part is one (equal values);
    else the part within noise nearest its edge (:func:`_nearness`)."""
    if all(t == STALLED for t in ties):
        return STALLED
    if any(t == TIE for t in ties):
        return TIE
    return min((t for t in ties if t == NOISE), key=_nearness)
