"""Numbers of runs paired across arms (docs/reproductions.md, "Metrics as data"): a
``[numbers.NAME]`` with ``pair`` (the column the runs are paired by, ``"seed"``), ``arm_column``
and ``arms`` (a table of NAME = that column's value) computes, for each value of ``pair``, an
expression ``expr`` of the arms' values of ``column`` (one run each), and reduces those per-pair
values with ``reduce`` (as a ``[numbers.NAME]``'s, with ``q`` and ``then``): the seeds' 95 %
half-width of a ratio of two cases taken seed by seed (codel-dynamic's ``_spread.ratio``),
where the ratio of two means has no spread of its own. ``values = { NAME = { expr, reduce,
... } }`` names several; ``sweeps`` and ``where`` select the runs as a ``[numbers.NAME]``'s do.
A pair missing an arm gives no value (left out of the reduction, as a NaN is).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError

KEYS = ("sweeps", "where", "pair", "arm_column", "arms", "column", "values", "expr")
LEAF_KEYS = ("expr", "reduce", "q", "then")


@dataclass
class PairedDef:
    """One ``[numbers.NAME]`` of paired runs."""

    name: str
    sweeps: list[str]
    where_expr: str
    pair: str
    arm_column: str
    arms: dict[str, Any]
    column: str
    values: dict[str, tuple[str, Any]]  # NAME -> (expr, metrics.Leaf); "" for one number
    where: str

    def compute(self, frames: dict[str, Any], fill: Any, numbers: dict[str, Any]) -> Any:
        return compute(self, frames, fill)


def load(name: str, where: str, d: dict[str, Any], sweeps: list[str]) -> PairedDef | None:
    """``d`` as a paired number (it has ``pair``), checked, or None."""
    from aqmlab.reproduce.metrics import _err, _known, _leaf, _strs, compile_expr

    if "pair" not in d:
        return None
    _known(where, d, (*KEYS, *LEAF_KEYS[1:]))
    for k in ("pair", "arm_column", "column"):
        if not isinstance(d.get(k), str) or not d[k]:
            raise _err(where, k, "a column of the results (a text)", d.get(k))
    arms = d.get("arms")
    if not isinstance(arms, dict) or not arms:
        raise _err(where, "arms", "a table of NAME = a value of arm_column", arms)
    sw = _strs(where, "sweeps", d.get("sweeps", []))
    unknown = [s for s in sw if s not in sweeps]
    if unknown:
        raise _err(where, "sweeps", f"names of [[sweep]]s ({', '.join(sweeps)})", unknown)
    wh = d.get("where", "")
    if not isinstance(wh, str):
        raise _err(where, "where", "an expression of the results' columns (a text)", wh)
    if wh and "{" not in wh:  # one with {param} fields is checked once they are filled
        compile_expr(wh, f"{where}.where")
    if "values" in d:
        if any(k in d for k in LEAF_KEYS):
            raise AqmlabError(f"{where}: expected values or expr + reduce, not both")
        if not isinstance(d["values"], dict) or not d["values"]:
            raise _err(where, "values", "a table of NAME = { expr, reduce }", d["values"])
        docs = {k: (f"{where}.values.{k}", v) for k, v in d["values"].items()}
    else:
        docs = {"": (where, {k: d[k] for k in LEAF_KEYS if k in d})}
    values = {}
    for k, (w, v) in docs.items():
        if not isinstance(v, dict):
            raise AqmlabError(f"{w}: expected a table {{ expr = ..., reduce = ... }}")
        _known(w, v, LEAF_KEYS)
        text = v.get("expr")
        if not isinstance(text, str) or not text:
            raise _err(w, "expr", f"an expression of the arms ({', '.join(arms)})", text)
        if "{" not in text:
            bad = [c for c in compile_expr(text, f"{w}.expr").columns() if c not in arms]
            if bad:
                raise _err(w, "expr", f"an expression of the arms ({', '.join(arms)})", bad[0])
        leaf = _leaf(w, {"column": d["column"], **{x: v[x] for x in LEAF_KEYS[1:] if x in v}})
        if leaf.reduce in ("value", "count"):
            raise _err(w, "reduce", "a reduction of the pairs' values (not value or count)")
        values[k] = (text, leaf)
    return PairedDef(name, sw, wh, d["pair"], d["arm_column"], arms, d["column"], values, where)


def compute(p: PairedDef, frames: dict[str, Any], fill: Any) -> Any:
    """The per-pair expressions reduced (one number, or a table of ``values``' names)."""
    import pandas as pd

    from aqmlab.reproduce.metrics import _eval, compile_expr, reduce

    names = p.sweeps or list(frames)
    ran = [frames[s] for s in names if s in frames]
    if not ran:
        raise AqmlabError(f"{p.where}.sweeps: none of {names} ran in this mode")
    df = ran[0] if len(ran) == 1 else pd.concat(ran, ignore_index=True)
    what = f"sweep(s) {', '.join(repr(s) for s in names if s in frames)}"
    if p.where_expr:
        df = df[compile_expr(fill(p.where_expr), f"{p.where}.where").eval(df, what).astype(bool)]
    for k in ("pair", "arm_column", "column"):
        col = getattr(p, k)
        if col not in df.columns:
            raise AqmlabError(f"{p.where}.{k}: no column {col!r} in the results of {what}")
    per_arm = {}
    for name, value in p.arms.items():
        rows = df[df[p.arm_column] == value]
        if rows[p.pair].duplicated().any():
            raise AqmlabError(
                f"{p.where}.arms.{name}: several runs of {value!r} share a value of "
                f"{p.pair!r} (pair by a column that tells them apart, or narrow where)"
            )
        per_arm[name] = rows.set_index(p.pair)[p.column]
    table = pd.DataFrame(per_arm).sort_index()
    out = {}
    for k, (text, leaf) in p.values.items():
        e = compile_expr(fill(text), f"{leaf.where}.expr")
        bad = [c for c in e.columns() if c not in p.arms]
        if bad:
            raise AqmlabError(f"{leaf.where}.expr: no arm {bad[0]!r} ({', '.join(p.arms)})")
        per_pair = _eval(e.tree, table, e.names)
        out[k] = reduce(per_pair, leaf, fill)
    return out.get("", out)
