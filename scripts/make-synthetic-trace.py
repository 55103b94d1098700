#!/usr/bin/env python3
"""Write aqmlab's own synthetic cellular-like mahimahi trace (python/aqmlab/data/traces/).

The capacity follows a mean-reverting random walk in log-rate (an Ornstein-Uhlenbeck process
sampled every 100 ms) with a median of 8 Mb/s (mean 9.7 Mb/s), between 0.5 and 30 Mb/s, with a 2-second outage every
~40 s: the shape of a cellular downlink (fast fluctuation, occasional fades), made here from a
fixed seed so that the package carries a trace with no third-party licence. Each line of a
mahimahi trace is one delivery opportunity (1504 bytes) at that millisecond; the trace repeats
with its last timestamp as its period.

    python scripts/make-synthetic-trace.py          # rewrites the bundled file (same bytes)
"""

import math
import os
import random

PERIOD_MS = 60_000
OPPORTUNITY_BITS = 1504 * 8


def rates_bps(seed: int = 2026) -> list[float]:
    rng = random.Random(seed)
    mean, theta, sigma = math.log(8e6), 0.15, 0.35  # per 100-ms step
    x, out = mean, []
    for step in range(PERIOD_MS // 100):
        x += theta * (mean - x) + sigma * rng.gauss(0.0, 1.0)
        rate = min(30e6, max(0.5e6, math.exp(x)))
        if step % 400 in range(200, 220):  # a 2-s fade every 40 s
            rate = 0.0
        out.append(rate)
    return out


def opportunities(rates: list[float]) -> list[int]:
    """Millisecond timestamps: one each time OPPORTUNITY_BITS of capacity accumulate."""
    out, credit = [], 0.0
    for ms in range(1, PERIOD_MS + 1):
        credit += rates[(ms - 1) // 100] / 1000.0
        while credit >= OPPORTUNITY_BITS:
            credit -= OPPORTUNITY_BITS
            out.append(ms)
    if not out or out[-1] != PERIOD_MS:
        out.append(PERIOD_MS)  # the period: the trace's last timestamp
    return out


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "python", "aqmlab", "data", "traces", "aqmlab-synthetic.down")
    ops = opportunities(rates_bps())
    with open(path, "w", encoding="ascii") as f:
        f.write("".join(f"{t}\n" for t in ops))
    mbps = len(ops) * OPPORTUNITY_BITS / (PERIOD_MS / 1000) / 1e6
    print(f"{path}: {len(ops)} opportunities over {PERIOD_MS / 1000:.0f} s, mean {mbps:.2f} Mb/s")


if __name__ == "__main__":
    main()
