"""The sources' published values as numbers (docs/reproductions.md, "Metrics as data",
``published``): a ``[numbers.NAME]`` of ``published = { values, each, key }`` is, for each
``each`` combination (NAME = [values] moving together), a table laid out as ``values`` (NAME = a
claim id of claims.toml, a template of ``each``'s fields; nested tables allowed) of each named
claim's ``published``, as printed: ``"8"`` is 8, ``"12.8"`` is 12.8 (a whole number stays an
integer, as the source printed it), under ``key`` (one template per level). consumer-edge's
``_slides``: the slides' CoDel and tail-drop values per rate, direction and metric, beside ours
in its first report table.

A claim that is not in claims.toml, or whose ``published`` is not a number, is an error naming
the file, the table and the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError


@dataclass
class PublishedDef:
    name: str
    values: Any  # NAME -> a claim id template, or a table of them
    each: dict[str, list[Any]] = field(default_factory=dict)
    key: list[str] = field(default_factory=list)
    where: str = ""  # "FILE: numbers.NAME.published"


def parse(name: str, where: str, doc: dict[str, Any]) -> PublishedDef:
    from aqmlab.reproduce.metrics import _each

    other = [k for k in doc if k != "published"]
    if other:
        raise AqmlabError(f"{where}.{other[0]}: not with published (its keys go in published)")
    where = f"{where}.published"
    d = doc["published"]
    if not isinstance(d, dict) or "values" not in d:
        raise AqmlabError(f"{where}: expected a table {{ values = {{ NAME = CLAIM ID }}, ... }}")
    for k in d:
        if k not in ("values", "each", "key"):
            raise AqmlabError(f"{where}.{k}: unknown key (expected one of values, each, key)")

    def ok(v: Any) -> bool:
        if isinstance(v, dict):
            return bool(v) and all(ok(x) for x in v.values())
        return isinstance(v, str) and bool(v)

    if not isinstance(d["values"], dict) or not ok(d["values"]):
        raise AqmlabError(
            f"{where}.values: expected a table of NAME = CLAIM ID (or tables of them), "
            f"got {d['values']!r}"
        )
    each = _each(where, d.get("each"))
    key = d.get("key", [])
    if not isinstance(key, list) or not all(isinstance(k, str) for k in key):
        raise AqmlabError(f"{where}.key: expected a list of texts, got {key!r}")
    if bool(each) != bool(key):
        raise AqmlabError(f"{where}.key: one template per level with each, and each with key")
    return PublishedDef(name, d["values"], each, key, where)


def printed(text: Any, where: str) -> int | float:
    """A published value as printed: ``"8"`` -> 8, ``"12.8"`` -> 12.8."""
    if isinstance(text, str) and re.fullmatch(r"-?\d+", text.strip()):
        return int(text)
    try:
        return float(text)
    except (TypeError, ValueError):
        raise AqmlabError(f"{where}: {text!r} is not a number") from None


def compute(pd_: PublishedDef, claims: list[Any]) -> Any:
    """``pd_``'s tables of the claims' published values."""
    published = {c.id: c.published for c in claims}

    def fill(text: str, fields: dict[str, Any]) -> str:
        for k, v in fields.items():
            text = text.replace("{" + k + "}", str(v))
        return text

    def table(v: Any, fields: dict[str, Any], where: str) -> Any:
        if isinstance(v, dict):
            return {k: table(x, fields, f"{where}.{k}") for k, x in v.items()}
        cid = fill(v, fields)
        if cid not in published:
            raise AqmlabError(f"{where}: no claim {cid!r} in claims.toml")
        return printed(published[cid], f"{where}: claim {cid!r}'s published")

    if not pd_.each:
        return table(pd_.values, {}, f"{pd_.where}.values")
    out: dict[str, Any] = {}
    for i in range(len(next(iter(pd_.each.values())))):
        fields = {k: v[i] for k, v in pd_.each.items()}
        keys = [fill(k, fields) for k in pd_.key]
        node = out
        for k in keys[:-1]:
            node = node.setdefault(k, {})
        node[keys[-1]] = table(pd_.values, fields, f"{pd_.where}.values")
    return out
