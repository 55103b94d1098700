"""The bundled scenarios, by name: ``aqmlab run codel-dynamic-link`` runs
``codel-dynamic-link.toml`` from any directory.

:func:`resolve` turns a name into the path of its file (a path that exists, or TOML text, is
returned as it is). The scenarios are package data (``aqmlab/data/scenarios``, with the traces
they name in ``aqmlab/data/traces``), so a plain ``pip install`` carries them; the source
checkout's ``scenarios/`` and ``traces/`` are links to those folders.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["bundled_dirs", "names", "resolve"]

_PACKAGE = Path(__file__).resolve().parent


def bundled_dirs() -> list[Path]:
    """The folders bundled scenarios are looked up in, in order (those that exist)."""
    dirs = [_PACKAGE / "data" / "scenarios"]
    return [d for d in dirs if d.is_dir()]


def names() -> list[str]:
    """The names of the bundled scenarios (the first folder's wins a name found twice)."""
    seen: dict[str, None] = {}
    for d in bundled_dirs():
        for p in sorted(d.glob("*.toml")):
            seen.setdefault(p.stem, None)
    return list(seen)


def resolve(name_or_path: str | os.PathLike[str]) -> str:
    """The path of scenario ``name_or_path``: the path itself when it is a file (or is TOML
    text, or names no bundled scenario, for the loader to report), else the bundled scenario of
    that name (``codel-dynamic-link`` or ``codel-dynamic-link.toml``). A folder of that name
    (an output folder ``out/NAME`` run from ``out/``, say) does not hide the bundled one."""
    p = os.fspath(name_or_path)
    if os.path.isfile(p) or "\n" in p or "=" in p:
        return p
    stem = p[: -len(".toml")] if p.endswith(".toml") else p
    if not stem or "/" in stem or os.sep in stem:
        return p
    for d in bundled_dirs():
        cand = d / f"{stem}.toml"
        if cand.is_file():
            return str(cand)
    return p
