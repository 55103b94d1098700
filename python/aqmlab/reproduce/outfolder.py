"""A reproduction's output folder: locked and checked as a run's and a sweep's are.

A reproduction writes into its folder (``--out``) the files :mod:`aqmlab.reproduce.common`
describes (``results.json``, ``report.md``, ``report.html``, ``figures/``), one sweep folder
and one scenario copy per ``[[sweep]]``; ``all`` writes one such folder per reproduction and
``index.html``. Before anything runs, :func:`claim` takes the folder's lock (the one lock of
that folder, whoever writes it: :func:`aqmlab.outdir.lock_beside`), so a second reproduction,
run or sweep into it is refused, and refuses a folder holding anything this reproduction does
not write (a user's ``experiment.toml`` when ``--out`` names the reproduction's own folder):
nothing of the user's is written over, and nothing is written at all.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable

from aqmlab.outdir import FolderLock, OutputError, final_path, lock_beside

#: What every reproduction writes at the top of its folder.
REPORT_FILES = ("results.json", "report.md", "report.html", "figures")


def _ours(entry: str, names: set[str]) -> bool:
    """True when ``entry`` is one of ``names``, or what writing one leaves beside it: a file
    being replaced (``NAME.partial``), a lock (``.NAME.lock``, left by a killed writer)."""
    if entry in names:
        return True
    if entry.endswith(".partial") and entry[: -len(".partial")] in names:
        return True
    return entry.startswith(".") and entry.endswith(".lock") and entry[1:-5] in names


def claim(out: str, names: Iterable[str]) -> FolderLock:
    """The lock of the output folder ``out``, whose entries may only be ``names`` (what the
    reproduction writes there); raises :class:`OutputError` naming the first other entry.
    The caller releases the lock when its files are written."""
    final = final_path(out)
    lock = lock_beside(final, out, "reproduction")
    try:
        if os.path.lexists(final):
            if not os.path.isdir(final):
                raise OutputError(errno.ENOTDIR, "exists and is not a folder", out)
            allowed = set(names)
            other = sorted(e for e in os.listdir(final) if not _ours(e, allowed))
            if other:
                more = f" (and {len(other) - 1} more)" if len(other) > 1 else ""
                raise OutputError(
                    errno.EEXIST,
                    f"holds {other[0]!r}{more}, which an aqmlab reproduction does not write, so "
                    "a reproduction will not write into it: choose another output folder, or "
                    "empty it",
                    out,
                )
    except BaseException:
        lock.release()
        raise
    return lock
