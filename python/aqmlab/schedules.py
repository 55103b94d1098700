"""Schedules for ``aqmlab replay``, generated rather than shipped as large files."""

from __future__ import annotations

import os

__all__ = ["overload", "write_schedule"]


def overload() -> list[tuple[int, str, int]]:
    """The ``overload`` schedule of the ns-3 reference vectors.

    1500-byte packets arrive every 1.0 ms for 20 s (1.2x the service rate of a 10 Mbit/s link,
    which asks for a packet every 1.2 ms), then every 2.4 ms for 10 s (half the service rate), so
    a standing queue builds and then drains. Rows at equal times put the arrival first.
    """
    ms = 1_000_000
    rows: list[tuple[int, str, int]] = []
    arrivals = [k * ms for k in range(20_000)]
    arrivals += [20_000 * ms + k * 2_400_000 for k in range(int(10_000 / 2.4) + 1)]
    departures = [k * 1_200_000 for k in range(1, 25_001)]
    i = j = 0
    while i < len(arrivals) or j < len(departures):
        if j >= len(departures) or (i < len(arrivals) and arrivals[i] <= departures[j]):
            rows.append((arrivals[i], "enq", 1500))
            i += 1
        else:
            rows.append((departures[j], "deq", 0))
            j += 1
    return rows


def write_schedule(rows: list[tuple[int, str, int]], path: str | os.PathLike[str]) -> None:
    """Write ``rows`` as a schedule CSV (``t_ns,op,size``)."""
    with open(path, "w", encoding="ascii", newline="\n") as f:
        f.write("t_ns,op,size\n")
        for t, op, size in rows:
            f.write(f"{t},{op},{size}\n")
