"""Expressions in a claim's ``describe`` template (docs/reproductions.md, "claims.toml"): a field
may be an expression of the arms (``"{100 * a} % less"``: the first arm as a percentage), not
only an arm's name; each is computed (``+ - * /``, ``abs``, numbers: the expressions of
``[numbers.NAME]``) and printed as a report prints numbers.
"""

from __future__ import annotations

import re
from typing import Any

from aqmlab.exceptions import AqmlabError

_FIELD = re.compile(r"\{([^{}]*)\}")


def make(template: str, arms: int, where: str) -> Any:
    """A describe function for ``template`` when a field is an expression (None when every
    field is an arm's name, the plain template); an expression of anything but the claim's
    ``arms`` arms is one line naming the claim."""
    from aqmlab.reproduce.common import fmt
    from aqmlab.reproduce.metrics import _eval, compile_expr
    from aqmlab.reproduce.predicate import ARM_NAMES

    fields = _FIELD.findall(template)
    names = ARM_NAMES[:arms]
    if all(f in names for f in fields):
        return None
    exprs = {}
    for f in fields:
        e = compile_expr(f, f"{where}: describe {template!r}")
        bad = [c for c in e.columns() if c not in names]
        if bad:
            raise AqmlabError(
                f"{where}: describe {template!r}: {bad[0]!r} is not an arm "
                f"(expected an expression of {', '.join(names)})"
            )
        exprs[f] = e

    def describe(values: tuple) -> str:
        vals = dict(zip(names, values))
        return _FIELD.sub(lambda m: fmt(_value(exprs[m.group(1)], vals, _eval)), template)

    return describe


def _value(e: Any, vals: dict[str, Any], ev: Any) -> Any:
    return ev(e.tree, vals, e.names)
