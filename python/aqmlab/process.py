"""Whether a process runs: the one liveness check that sweeps (a worker watching its sweep)
and ``aqmlab shell`` (a namespace left by a run that died) share."""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs. A zombie (ended, not yet reaped by its parent) does not;
    a process of another user (``EPERM``) does."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            # pid (comm) state ...: the state follows the last ")" (comm may hold one).
            return f.read().rpartition(")")[2].split()[:1] != ["Z"]
    except OSError:
        return True  # no /proc, or it ended since the signal: the signal's answer stands
