"""mahimahi link traces as a reproduction reads them (docs/reproductions.md, "Options"): one
delivery opportunity of 1504 bytes a line, in whole ms, the trace repeating with its last
timestamp as its period (mm-link's format; the simulator's own reader is
``aqmlab_link::rate::DeliveryTrace``). cellular's ``--trace`` is read here when the
reproduction starts, its period is the parameter function ``trace_period_s(path)`` and its
figures draw :func:`capacity_bytes`."""

from __future__ import annotations

import bisect

from aqmlab.exceptions import AqmlabError

#: Bytes one delivery opportunity carries (mm-link's ``PACKET_SIZE``).
OPPORTUNITY_BYTES = 1504


def read_ms(path: str, what: str = "") -> list[int]:
    """A mahimahi trace's delivery times (ms, one a line); a line that is not one, or a trace
    with no time after 0, is one error naming the file (``what``, default the path) and the
    line."""
    what = what or path
    out: list[int] = []
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    out.append(int(line))
                except ValueError:
                    raise AqmlabError(
                        f"{what}: line {n}: expected a delivery time in whole ms, "
                        f"got {line.strip()!r}"
                    ) from None
    except OSError as e:
        raise AqmlabError(f"{what}: {e.strerror or 'cannot be read'}") from None
    if not out or out[-1] <= 0:
        raise AqmlabError(f"{what}: expected delivery times in ms ending after 0")
    return out


def period_s(path: str) -> float:
    """The trace's period in s (its last timestamp): ``trace_period_s(path)``."""
    return read_ms(path, f"trace_period_s({path!r})")[-1] / 1000.0


def capacity_bytes(trace_ms: list[int], t_s: float) -> float:
    """Bytes the trace can deliver in (0, t_s]: 1504 per opportunity at or before ``t_s``, the
    trace repeating with its last timestamp as its period."""
    period = trace_ms[-1]
    whole, rest = divmod(t_s * 1000.0, period)
    return OPPORTUNITY_BYTES * (whole * len(trace_ms) + bisect.bisect_right(trace_ms, rest))
