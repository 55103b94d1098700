"""``join(x, sep)`` in a report's fields and conditions (docs/reproductions.md, "Report tables
and discussion as data"; :mod:`aqmlab.reproduce.report_text`): a list's items, or a table's
keys in their order, as texts joined by ``sep`` (``""`` for an empty one): consumer-edge's
noise paragraph names the cells of ``drops_noise_test.cells``,
``{join(drops_noise_test.cells, ', ')}``. A number, a text or no value is an error naming the
file, the paragraph or table and the key: a text joined by accident would print letter by
letter.
"""

from __future__ import annotations

from typing import Any

from aqmlab.exceptions import AqmlabError


def join(value: Any, sep: Any, where: str) -> str:
    """``value``'s items (a list) or keys (a table) as texts, joined by ``sep``."""
    if not isinstance(sep, str):
        raise AqmlabError(f"{where}: join(x, sep): expected sep a text, got {sep!r}")
    if isinstance(value, dict):
        value = list(value)
    if not isinstance(value, list):
        raise AqmlabError(f"{where}: join(x, sep): expected x a list or a table, got {value!r}")
    return sep.join(str(v) for v in value)
