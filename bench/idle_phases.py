"""Resident memory of a run of ``bench/idle-flows.toml`` phase by phase (issue 24): after the
load, the run, the series, the summary and the resolved text, as ``(now, peak)`` MB from
/proc/self/status. ``python3 bench/idle_phases.py 50000``."""

import re
import sys

from aqmlab.run import load


def rss() -> tuple[int, int]:
    with open("/proc/self/status", encoding="ascii") as f:
        s = f.read()
    now = re.search(r"VmRSS:\s+(\d+)", s)
    peak = re.search(r"VmHWM:\s+(\d+)", s)
    assert now and peak
    return int(now[1]) // 1024, int(peak[1]) // 1024


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    print("start", rss())
    r = load("bench/idle-flows.toml", set={"flows[0].count": n})
    print("load", rss())
    r.advance(1.0)
    print("advance", rss())
    r.take_series()
    print("take_series", rss())
    b = r.summary_file("{}")
    print("summary_file", rss(), f"{len(b) / n:.0f} B/flow")
    r.take_series(to_end=True)
    print("take_series(to_end)", rss())
    t = r.resolved_toml()
    print("resolved_toml", rss(), f"{len(t) / n:.0f} B/flow")


if __name__ == "__main__":
    main()
