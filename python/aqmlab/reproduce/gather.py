"""Numbers gathered under one name (docs/reproductions.md, "Metrics as data":
``[numbers.NAME]`` with ``gather``): ``gather = { KEY = "PATH", ... }`` is a table of numbers
declared above it (each PATH spelt as a claim's ``metric``: ``"_ns2_fig56"``,
``'cells."1.5 Mb/s"'``), whatever their shape, under KEY. red-bursty's ``_ns2`` gathers
ns-2.35's metrics in the shape of ours, the shape a ``reference`` test reads
(``_ns2._fig56.{arm}`` beside ``_fig56.{arm}``).
"""

from __future__ import annotations

from typing import Any

from aqmlab.exceptions import AqmlabError


def number(name: str, where: str, d: dict[str, Any]) -> Any:
    """A ``[numbers.NAME]`` of ``gather``, checked."""
    from aqmlab.reproduce.metrics import NumberDef

    other = [k for k in d if k != "gather"]
    if other:
        raise AqmlabError(f"{where}.{other[0]}: not with gather (a table of numbers above)")
    g = d["gather"]
    if not isinstance(g, dict) or not g or not all(isinstance(v, str) and v for v in g.values()):
        raise AqmlabError(
            f'{where}.gather: expected a table of KEY = "the path of a number declared above", '
            f"got {g!r}"
        )
    return NumberDef(name, [], "", [], {}, [], None, {}, where, gather=dict(g))


def value(nd: Any, numbers: dict[str, Any]) -> dict[str, Any]:
    """The gathered table: each KEY the number at its PATH (one declared above)."""
    from aqmlab.reproduce.loader import split_path

    out: dict[str, Any] = {}
    for key, path in nd.gather.items():
        v: Any = numbers
        for k in split_path(path):
            if not isinstance(v, dict) or k not in v:
                raise AqmlabError(
                    f"{nd.where}.gather.{key}: no number {path!r} (declared above this one)"
                )
            v = v[k]
        out[key] = v
    return out
