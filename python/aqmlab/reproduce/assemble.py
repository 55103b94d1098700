"""Numbers made of numbers, beyond one (docs/reproductions.md, "Metrics as data"): a
``[numbers.NAME]`` of ``of`` (NAME = the path of a number or table declared above it) with
``each`` (a table of NAME = [values] moving together, ``{NAME}`` filled in ``of``'s paths and in
``expr``) and ``key`` (one template per level, as a ``[numbers.NAME]``'s) is one number per
``each`` combination; ``of`` without ``expr`` is a table of the named numbers (a path's table
copied whole; a list of paths: their tables merged, in order; a table of paths: a table),
after the tables ``merge`` names merged, which is how a reproduction lays its numbers out for
``results.json``; ``expr`` without ``of`` is a number of the mode's
parameters (``"{phase_s} * 262 / 8"``). A path's key of digits indexes a list
(``'_packmime_phases."{case}".{i}'``); ``omit = true`` (with ``each`` and ``expr``): a
combination with no value (none, NaN: a division by 0 in ``div``) gets no key, so a list level
holds only the values there are (codel-dynamic's ``_phase_ratio``: ours ÷ ns-2.35's median per
phase, a phase where ns-2.35's is 0 left out).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError

KEYS = ("of", "expr", "each", "key", "merge", "lookup", "omit")


@dataclass
class AssembleDef:
    """One ``[numbers.NAME]`` assembled from numbers declared above it."""

    name: str
    of: dict[str, Any]  # NAME -> a path, a list of paths (tables merged) or a table of them
    expr: str
    each: dict[str, list[Any]]
    key: list[str]
    where: str
    merge: list[str] = field(default_factory=list)  # paths of tables merged into the result
    lookup: dict[str, str] = field(default_factory=dict)  # fields read from numbers (lookup.py)
    sweeps: list[str] = field(default_factory=list)
    values: Any = None
    omit: bool = False  # a combination with no value (None, NaN) gets no key

    def compute(self, frames: dict[str, Any], fill: Any, numbers: dict[str, Any]) -> Any:
        return compute(self, fill, numbers)


def wanted(d: dict[str, Any]) -> bool:
    """Whether ``d`` is an assembled number rather than ``of`` + ``expr``'s one number."""
    return ("of" in d or "expr" in d or "merge" in d) and (
        "expr" not in d or "of" not in d or "each" in d or "key" in d
    )


def load(name: str, where: str, d: dict[str, Any]) -> AssembleDef | None:
    from aqmlab.reproduce.metrics import _each, _err, compile_expr

    if not wanted(d):
        return None
    other = [k for k in d if k not in KEYS]
    if other:
        raise AqmlabError(f"{where}.{other[0]}: not with of / expr (numbers from others)")
    of = d.get("of", {})

    def path_ok(v: Any) -> bool:
        if isinstance(v, list):
            return bool(v) and all(isinstance(x, str) and x for x in v)
        if isinstance(v, dict):
            return bool(v) and all(path_ok(x) for x in v.values())
        return isinstance(v, str) and bool(v)

    if not isinstance(of, dict) or not all(path_ok(v) for v in of.values()):
        raise _err(
            where, "of", 'a table of NAME = "the path of a number declared above" (or [paths])', of
        )
    if "of" in d and not of:
        raise _err(where, "of", "one or more NAME = path", of)
    text = d.get("expr", "")
    if not isinstance(text, str) or ("expr" in d and not text):
        raise _err(where, "expr", "an expression of the names of of (a text)", text)
    if text and not of and "{" not in text:
        cols = compile_expr(text, f"{where}.expr").columns()
        if cols:
            raise _err(where, "expr", "an expression of numbers and {param} fields", cols[0])
    if text and any(isinstance(v, (list, dict)) for v in of.values()):
        raise _err(where, "of", "one path per name with expr (a list merges tables)", of)
    merge = d.get("merge", [])
    if not isinstance(merge, list) or not all(isinstance(x, str) and x for x in merge):
        raise _err(where, "merge", "a list of paths of tables declared above", merge)
    if merge and text:
        raise _err(where, "merge", "no merge with expr (one number)", merge)
    each = _each(where, d.get("each"))
    key = d.get("key", [])
    if not isinstance(key, list) or not all(isinstance(k, str) for k in key):
        raise _err(where, "key", "a list of texts", key)
    if each and not key:
        raise _err(where, "key", 'one template per level, like ["{case}"]')
    from aqmlab.reproduce import lookup

    found = lookup.parse(where, d.get("lookup"))
    if found and not each:
        raise _err(where, "lookup", "fields of each's combinations (with each and key)", found)
    omit = d.get("omit", False)
    if not isinstance(omit, bool) or (omit and not (each and text)):
        raise _err(where, "omit", "true or false, with each and expr (no key where no value)", omit)
    return AssembleDef(name, of, text, each, key, where, merge=merge, lookup=found, omit=omit)


def _fill(text: str, fields: dict[str, Any]) -> str:
    for k, v in fields.items():
        text = text.replace("{" + k + "}", str(v))
    return text


def _at(a: AssembleDef, numbers: dict[str, Any], name: str, path: str) -> Any:
    from aqmlab.reproduce.loader import split_path

    v: Any = numbers
    for k in split_path(path):
        if isinstance(v, list) and k.isdigit() and int(k) < len(v):  # a list's item
            v = v[int(k)]
            continue
        if not isinstance(v, dict) or k not in v:
            raise AqmlabError(f"{a.where}.{name}: no number {path!r} (declared above this one)")
        v = v[k]
    return v


def one(a: AssembleDef, fields: dict[str, Any], fill: Any, numbers: dict[str, Any]) -> Any:
    """The number (or table) for one ``each`` combination."""
    from aqmlab.reproduce.metrics import _err, _eval, compile_expr

    def merged(name: str, paths: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for p in paths:
            t = _at(a, numbers, name, _fill(p, fields))
            if not isinstance(t, dict):
                raise _err(a.where, name, "paths of tables, to merge", p)
            out.update(copy.deepcopy(t))
        return out

    def value(name: str, path: Any) -> Any:
        if isinstance(path, list):
            return merged(f"of.{name}", path)
        if isinstance(path, dict):
            return {k: value(f"{name}.{k}", p) for k, p in path.items()}
        return copy.deepcopy(_at(a, numbers, f"of.{name}", _fill(path, fields)))

    if not a.expr:
        return {**merged("merge", a.merge), **{n: value(n, p) for n, p in a.of.items()}}
    vals = {name: value(name, path) for name, path in a.of.items()}
    for name, v in vals.items():
        if isinstance(v, (dict, list)):
            raise _err(a.where, f"of.{name}", "the path of one number", a.of[name])
    if any(v is None for v in vals.values()):
        return None
    e = compile_expr(fill(_fill(a.expr, fields)), f"{a.where}.expr")
    unknown = [c for c in e.columns() if c not in a.of]
    if unknown:
        raise _err(a.where, "expr", f"an expression of {', '.join(a.of) or 'numbers'}", unknown[0])
    v = _eval(e.tree, vals, e.names)
    return v if isinstance(v, str) else float(v)  # a text in quotes is that text


def compute(a: AssembleDef, fill: Any, numbers: dict[str, Any]) -> Any:
    from aqmlab.reproduce import lists

    if not a.each:
        out: Any = one(a, {}, fill, numbers)
        for k in reversed(a.key):
            out = {k: out}
        return out
    out = {}
    n = len(next(iter(a.each.values())))
    for i in range(n):
        fields = {k: v[i] for k, v in a.each.items()}
        if a.lookup:  # fields read from numbers: lookup.py
            from aqmlab.reproduce import lookup

            fields = lookup.fields(a.where, a.lookup, fields, numbers)
        node = out
        keys = [_fill(k, fields) for k in a.key]
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        v = one(a, fields, fill, numbers)
        if a.omit and (v is None or v != v):  # no value: no key (its table stays)
            continue
        node[keys[-1]] = v
    return lists.levels(out, a.key)
