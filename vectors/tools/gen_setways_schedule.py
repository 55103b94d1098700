#!/usr/bin/env python3
"""Writes vectors/fq_setways.schedule.csv (standard library only, seeded: the same file on every
run), the input of the ns-3 3.37 FqCoDel vector with its set-associative hash (SetWays 8):

    python3 vectors/tools/gen_setways_schedule.py [OUTDIR]     # default: vectors/

Format as the other fq_* schedules (header t_ns,op,size,flow). Fourteen flows crowd the first
set of eight queues: flow ids 0, 1024, ..., 11264 (all with direct queue 0) and 3 and 5 (direct
queues 3 and 5), plus flow 9 in the next set. Each flow sends bursts of 1-12 packets of 200-1500
B at random times; the link serves one packet per 1.2 ms, so queues fill, empty and go inactive
again and again: ways are taken by tag, by an uncreated or inactive queue, and (more than eight
active flows in the set) the set's first queue is shared.
"""

import random
import sys
from pathlib import Path

MS = 1_000_000


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    rng = random.Random(20261128)
    flows = [k * 1024 for k in range(12)] + [3, 5, 9]
    rows = []
    end = 3000 * MS
    for f in flows:
        t = rng.randrange(0, 200 * MS)
        while t < end:
            for _ in range(rng.randint(1, 12)):
                rows.append((t, 0, "enq", rng.randint(200, 1500), f))
                t += rng.randrange(50_000, 400_000)
            t += rng.randrange(20 * MS, 150 * MS)
    t = 0
    while t < end + 200 * MS:
        rows.append((t, 1, "deq", 0, 0))
        t += 1_200_000
    rows.sort(key=lambda r: (r[0], r[1]))
    with open(out / "fq_setways.schedule.csv", "w") as fh:
        fh.write("t_ns,op,size,flow\n")
        for t, _, op, size, flow in rows:
            fh.write(f"{t},{op},{size},{flow}\n")


if __name__ == "__main__":
    main()
