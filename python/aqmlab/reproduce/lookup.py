"""Fields read from numbers (docs/reproductions.md, "Metrics as data", ``lookup``): in a
``[numbers.NAME]`` laid out from numbers (``of`` with ``each`` and ``key``,
:mod:`aqmlab.reproduce.assemble`), ``lookup = { NAME = PATH }`` adds the field ``{NAME}``, the
value of the number at ``PATH`` (a path declared above, spelt as a claim's ``metric``, a
template of ``each``'s fields), to each combination's fields, for ``of``'s paths and ``key``:
a number read at another number's value. consumer-edge's ``_fitted``, ``lookup = { b =
'best_buffer."{rate}"' }`` and ``of.codel = '_tested_cells."{rate}|{b}|codel|{d}"'``: each
cell at the buffer fitted for its rate.

A value is filled as a key is written: an integral number without its ``.0`` (a buffer of 13
packets, ``13``), a text as it is. A path naming no number, or a table, a list or no value
there, is an error naming the file, the table and the key.
"""

from __future__ import annotations

from typing import Any

from aqmlab.exceptions import AqmlabError


def parse(where: str, doc: Any) -> dict[str, str]:
    """``lookup``'s table checked: NAME = a path (a non-empty text)."""
    if doc is None:
        return {}
    if (
        not isinstance(doc, dict)
        or not doc
        or not all(isinstance(k, str) and isinstance(v, str) and v for k, v in doc.items())
    ):
        raise AqmlabError(
            f'{where}.lookup: expected a table of NAME = "the path of a number declared above", '
            f"got {doc!r}"
        )
    return doc


def _key(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def fields(
    where: str, lookup: dict[str, str], outer: dict[str, Any], numbers: dict[str, Any]
) -> dict[str, Any]:
    """``outer`` with each ``lookup`` field added: the number at its path, ``outer``'s
    ``{field}`` s filled in the path first."""
    from aqmlab.reproduce.loader import split_path

    out = dict(outer)
    for name, template in lookup.items():
        path = template
        for k, v in outer.items():
            path = path.replace("{" + k + "}", str(v))
        v: Any = numbers
        for k in split_path(path):
            if not isinstance(v, dict) or k not in v:
                raise AqmlabError(
                    f"{where}.lookup.{name}: no number {path!r} (declared above this one)"
                )
            v = v[k]
        if v is None or isinstance(v, (dict, list)) or (isinstance(v, float) and v != v):
            raise AqmlabError(
                f"{where}.lookup.{name}: {path!r}: expected one number or text, got {v!r}"
            )
        out[name] = _key(v)
    return out
