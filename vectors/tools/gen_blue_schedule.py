#!/usr/bin/env python3
"""Writes vectors/blue.schedule.csv, a schedule on which COBALT's BLUE part draws and drops
(standard library only; the same file on every run: seeded random.Random).

    python3 vectors/tools/gen_blue_schedule.py [OUTDIR]     # default: vectors/

Run with a limit of 100 packets (make_fq_vectors.sh). BLUE (Palmei et al. 2019; ns-3
CobaltQueueDisc) raises its drop probability by 1/256 when an arrival finds the queue full (at
most once per target, 5 ms) and lowers it by 1/4096 when a dequeue finds the queue empty; while it
is above 0, every packet examined at dequeue costs one U(0,1) draw and is dropped when the draw is
below it, ECN-capable or not. So:

* 0-0.6 s: a bulk flow (1) of 1500-B packets at twice the link's rate (every 0.6 ms, jittered):
  the queue overflows again and again and the probability climbs;
* 0.6-3 s: the bulk flow at 0.8 times the link: the queue drains and empties; the probability
  decays slowly, so BLUE keeps drawing and now and then drops;
* 3-3.5 s: twice the link again; 3.5-6 s: half the link. The last phase crosses 4.29 s, where
  ns-3's 32-bit `m_lastUpdateTimeBlue` wraps.

Half of the bulk flow's packets are ECT(0) and half not-ECT (BLUE drops both; with UseEcn CoDel
marks the ECT(0) ones), and a sparse flow (2) sends a 200-B not-ECT packet every 10-30 ms. The link
asks for a packet every 1.2 ms (10 Mbit/s for 1500 B). Header t_ns,op,size,flow,ecn.
"""

import random
import sys
from pathlib import Path

from gen_fq_schedules import MS, link, periodic, write


def blue():
    rng = random.Random(5)
    arr = []
    for t0, t1, gap in [
        (0, 600, 600_000),
        (600, 3_000, 1_500_000),
        (3_000, 3_500, 600_000),
        (3_500, 6_000, 2_400_000),
    ]:
        for t in periodic(t0 * MS, t1 * MS, gap, 200_000, rng):
            arr.append((t, 1500, 1, "ect0" if rng.random() < 0.5 else "not_ect"))
    t = 5 * MS
    while t < 6_000 * MS:
        arr.append((t, 200, 2, "not_ect"))
        t += rng.randint(10, 30) * MS
    return arr, link(1_000_000, 6_050 * MS, 1_200_000)


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    arr, deqs = blue()
    write(out / "blue.schedule.csv", arr, deqs, True)


if __name__ == "__main__":
    main()
