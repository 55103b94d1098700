#!/usr/bin/env python3
"""Writes vectors/active.schedule.csv, a schedule on which ns-3 3.37's PIE `ActiveThreshold`
switches PIE on and off again and again (standard library only; the same file on every run:
seeded random.Random).

    python3 vectors/tools/gen_active_schedule.py [OUTDIR]     # default: vectors/

`ActiveThreshold` is ns-3's, not RFC 8033's (docs/models/pie.md): an inactive PIE does no early
drop; an accepted arrival that finds the delay estimate at or above the threshold makes it active
(probability 0, full burst allowance), and one that finds the probability 0 and both delay
estimates under 1 ms makes it inactive. So the schedule alternates congestion, with the delay far
above 10-20 ms, and calm, long enough for the probability to decay to 0 and the queue to empty,
with phases near the link's rate in between, where the delay wanders around 1 ms and around the
thresholds:

* 0-1.2 s: 1.4 times the link; 1.2-4 s: 0.5 times (PIE calms down, goes inactive);
* 4-5 s: 0.97 times, Poisson (delays of a few ms, now and then above 10 ms);
* 5-6 s: 1.6 times; 6-9 s: 0.3 times; 9-9.5 s: 2 times; 9.5-12 s: 0.9 times, Poisson;
* 12-20 s: trains of 2-4 packets 0.2-0.9 ms apart every 6-15 ms, with 1.5 times the link from
  13 to 13.4 s and from 16 to 16.3 s. A train's first departure leaves the rest queued, so the
  delay estimate is often a sojourn under 1 ms but not 0: there ns-3's deactivation rule, which
  compares whole milliseconds, tells "under 1 ms" from "0".
* 20-20.5 s: 1.15 times the link (PIE active, its probability above 0). Then the link speeds up
  fourfold (a dequeue every 0.3 ms) until 21 s: nothing arrives until 20.52 s (the queue
  drains), then one 1500-B packet of flow 1 50 us after every dequeue slot, with one extra at
  the start, so the queue never empties and every sojourn is about 0.35 ms: the probability
  decays to 0 while the delay estimate stays under 1 ms and above 0, where ns-3 deactivates PIE
  and a rule waiting for a delay of exactly 0 would not. 21-22.5 s: the slow link again at 1.3
  times its rate.

Until 20 s the load is carried by two bulk flows (1: 1500 B, 2: 1000 B; half of each ECT(0), half
not-ECT), a third of the bulk rate each way, beside a sparse flow (3: 200 B not-ECT every
10-40 ms). Under FQ-PIE each flow's PIE sees only its own flow's delay. The link asks for a
packet every 1.2 ms (10 Mbit/s for 1500 B). Header t_ns,op,size,flow,ecn.
"""

import random
import sys
from pathlib import Path

from gen_fq_schedules import MS, link, write

LINK_NS = 1_200_000  # one 1500-B slot at 10 Mbit/s


def active():
    rng = random.Random(21)
    arr = []
    # (start ms, end ms, load as a multiple of the link's packet rate, Poisson or jittered)
    phases = [
        (0, 1_200, 1.4, False),
        (1_200, 4_000, 0.5, False),
        (4_000, 5_000, 0.97, True),
        (5_000, 6_000, 1.6, False),
        (6_000, 9_000, 0.3, False),
        (9_000, 9_500, 2.0, False),
        (9_500, 12_000, 0.9, True),
        (13_000, 13_400, 1.5, False),
        (16_000, 16_300, 1.5, False),
        (20_000, 20_500, 1.15, False),
        (21_000, 22_500, 1.3, False),
    ]
    for t0, t1, load, poisson in phases:
        mean_gap = LINK_NS / load
        t = t0 * MS
        while t < t1 * MS:
            # Two thirds of the bulk packets are flow 1's (1500 B), one third flow 2's (1000 B).
            flow, size = (1, 1500) if rng.random() < 2 / 3 else (2, 1000)
            arr.append((int(t), size, flow, "ect0" if rng.random() < 0.5 else "not_ect"))
            if poisson:
                t += rng.expovariate(1 / mean_gap)
            else:
                t += mean_gap + rng.randint(-100_000, 100_000)
    t = 12_000 * MS
    while t < 20_000 * MS:
        for _ in range(rng.randint(2, 4)):
            flow, size = (1, 1500) if rng.random() < 2 / 3 else (2, 1000)
            arr.append((t, size, flow, "ect0" if rng.random() < 0.5 else "not_ect"))
            t += rng.randint(200_000, 900_000)
        t += rng.randint(6, 15) * MS
    t = 3 * MS
    while t < 20_000 * MS:
        arr.append((t, 200, 3, "not_ect"))
        t += rng.randint(10, 40) * MS
    fast = 300_000
    t = 20_520 * MS + 50_000
    arr.append((t, 1500, 1, "not_ect"))
    while t < 21_000 * MS:
        arr.append((t, 1500, 1, "ect0" if rng.random() < 0.5 else "not_ect"))
        t += fast
    arr.sort(key=lambda a: a[0])
    deqs = link(LINK_NS, 20_500 * MS, LINK_NS)
    deqs += link(20_500 * MS, 21_000 * MS, fast)
    deqs += link(21_000 * MS, 22_550 * MS, LINK_NS)
    return arr, deqs


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    arr, deqs = active()
    write(out / "active.schedule.csv", arr, deqs, True)


if __name__ == "__main__":
    main()
