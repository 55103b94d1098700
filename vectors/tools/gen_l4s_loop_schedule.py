#!/usr/bin/env python3
"""Writes vectors/l4s_loop.schedule.csv, a schedule on which CoDel's dropping loop reaches L4S
(ECT(1)/CE) packets, for single-queue CoDel and FQ-CoDel in ns-3 3.37's L4S mode (standard
library only; the same file on every run: seeded random.Random).

    python3 vectors/tools/gen_l4s_loop_schedule.py [OUTDIR]     # default: vectors/

ns-3 3.37 `CoDelQueueDisc::DoDequeue` tests only the packet a dequeue pops first for L4S: an
ECT(1)/CE head is sent at once (CE-marked when its sojourn exceeds `CeThreshold`) and CoDel's
state is left alone. A packet popped later in the same call, after CoDel dropped the one before
it, goes through CoDel as a classic packet, whatever its codepoint: its sojourn moves
`first_above_time` and the dropping state, it is dropped (or, with `UseEcn`, CE-marked with
"Target exceeded mark") when another drop is due, and it never gets the CE-threshold mark (that
test is off in L4S mode). So the schedule keeps CoDel in its dropping state with not-ECT packets
at the head and ECT(1) packets right behind them, and stalls the link now and then so that
several drops fall due in one dequeue (the loop then reaches ECT(1) packets with a drop still
due). Its L4S heads (the mirror case) take the other branch.

Two senders of 1500-B packets (the driver puts flow F in FQ-CoDel queue F mod 1024):

* flow 1: codepoints at random per packet (not-ECT 40 %, ECT(1) 40 %, ECT(0) 12 %, CE 8 %);
* flow 2: not-ECT, a fifth of the link, Poisson (in FQ-CoDel it takes a share of the link; in
  the single queue its packets sit between flow 1's).

Cycles of 1.5 s, eight of them (12 s): 0.9 s with flow 1 at 1.0-1.15 times the link's packet
rate (jittered, so the single queue's total is 1.2-1.35 times the link and FQ-CoDel's flow 1
queue is over its share), then 0.6 s with flow 1 at 0.4 (the queues drain and CoDel leaves its
dropping state). The link sends one packet per 1.2 ms (10 Mbit/s), except for stalls during the
congested part: every 150-300 ms no dequeue for 10-80 ms. Header t_ns,op,size,flow,ecn.
"""

import random
import sys
from pathlib import Path

from gen_fq_schedules import MS, write

LINK_NS = 1_200_000  # one 1500-B slot at 10 Mbit/s
CYCLE_MS = 1_500
BUSY_MS = 900
CYCLES = 8


def codepoint(rng):
    """Flow 1's codepoint for one packet."""
    u = rng.random()
    return "not_ect" if u < 0.40 else "ect1" if u < 0.80 else "ect0" if u < 0.92 else "ce"


def l4s_loop():
    rng = random.Random(21)
    arr = []
    stalls = []  # (start, end) ns: no dequeue row in [start, end)
    for c in range(CYCLES):
        t0 = c * CYCLE_MS * MS
        busy_end = t0 + BUSY_MS * MS
        load = rng.uniform(1.0, 1.15)
        t = t0 + rng.randint(0, 1_000_000)
        while t < t0 + CYCLE_MS * MS:
            arr.append((t, 1500, 1, codepoint(rng)))
            gap = LINK_NS / (load if t < busy_end else 0.4)
            t += int(gap) + rng.randint(-200_000, 200_000)
        s = t0 + rng.randint(150, 300) * MS
        while s < busy_end:
            stalls.append((s, s + rng.randint(10, 80) * MS))
            s = stalls[-1][1] + rng.randint(150, 300) * MS
    t = rng.randint(0, 1_000_000)
    while t < CYCLES * CYCLE_MS * MS:
        arr.append((int(t), 1500, 2, "not_ect"))
        t += rng.expovariate(1 / (LINK_NS / 0.2))
    arr.sort(key=lambda a: a[0])
    end = CYCLES * CYCLE_MS * MS + 200 * MS
    deqs = [d for d in range(LINK_NS, end, LINK_NS) if not any(s <= d < e for s, e in stalls)]
    return arr, deqs


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    arr, deqs = l4s_loop()
    write(out / "l4s_loop.schedule.csv", arr, deqs, True)


if __name__ == "__main__":
    main()
