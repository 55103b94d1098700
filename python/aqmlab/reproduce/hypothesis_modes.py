"""A hypothesis of one mode's runs (docs/reproductions.md, "claims.toml"): an explanation table
(or ``[hypothesis.NAME]``) with ``modes = ["quick"]`` explains a claim only in the runs of those
modes, where it is a hypothesis of its own (codel-dynamic's quick run: its 10-s phases, beside
the web load), and is left out of every other run's explanation.
"""

from __future__ import annotations

from typing import Any

KEY = "modes"


def attach(t: Any, texts: dict[str, Any]) -> dict[str, Any]:
    """``texts`` with the table ``t``'s ``modes`` (checked: a list of quick / full), if any."""
    from aqmlab.reproduce.folder import MODES

    if KEY not in t.doc:
        return texts
    m = t.doc[KEY]
    if not isinstance(m, list) or not m or not all(x in MODES for x in m):
        raise t.error(KEY, f"a list of the modes whose runs it explains ({', '.join(MODES)})")
    return {**texts, KEY: tuple(m)}


def in_mode(hypotheses: list[dict[str, Any]], tests: list[Any], quick: bool) -> list[tuple]:
    """``(hypothesis without its modes, test)`` for each hypothesis of this run's mode."""
    mode = "quick" if quick else "full"
    return [
        ({k: v for k, v in h.items() if k != KEY}, r)
        for h, r in zip(hypotheses, tests)
        if mode in h.get(KEY, (mode,))
    ]
