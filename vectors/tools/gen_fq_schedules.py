#!/usr/bin/env python3
"""Writes the multi-flow FQ-CoDel schedules vectors/fq_*.schedule.csv (standard library only;
the same files on every run: each schedule has its own seeded random.Random).

    python3 vectors/tools/gen_fq_schedules.py [OUTDIR]     # default: vectors/

Format (README "aqmlab replay", vectors/README.md): header t_ns,op,size,flow[,ecn]; `deq` rows
carry 0 in the size, flow and ecn columns (they are ignored). Rows are sorted by time; an arrival
and a dequeue at the same nanosecond keep the order they were generated in (arrivals first).

Each schedule aims at one of the rules where Linux and ns-3 3.37 FQ-CoDel differ
(docs/models/fq_codel.md), and all of them exercise per-flow CoDel:

* fq_sizes: four backlogged flows of 1500, 1000, 576 and 64 B that start one after the other
  (flow ids 7, 3, 12, 2: creation order differs from bucket order), a 150 ms silence in the middle
  (every queue empties while the old list is empty or not), then all four again.
* fq_sparse: two bulk 1500-B flows that switch on and off (300 ms on, 100 ms off) and four sparse
  flows of 100-300 B packets at random 10-60 ms gaps; while the bulk flows are off, the sparse
  flows empty their queues with no old flow present.
* fq_overflow: limit 64 packets; three 1000-B flows that arrive together at 1.8 times the link's
  rate (ids 9, 6, 2, created in that order, the reverse of bucket order; their byte backlogs are
  often equal when the limit overflows, so the fattest-queue tie rule decides), an unresponsive
  1500-B flow for 200 ms and a 30-packet burst of a fifth flow; overflow batches drop from the
  fattest queue and CoDel works on the same queues. At the end, with the queues empty, one flow
  sends 80 packets back to back: more than the limit in a single queue.
* fq_ecn: ECN-capable and not-ECT flows together (ect0 bulk, ect1 bulk, not_ect bulk, a sparse
  ect0 flow); a few of the ect0 bulk flow's packets arrive already CE-marked.
"""

import random
import sys
from pathlib import Path

MS = 1_000_000


def periodic(t0, t1, gap_ns, jitter_ns, rng):
    """Arrival times from t0 to t1 about every gap_ns, each moved by up to +-jitter_ns."""
    out = []
    t = t0
    while t < t1:
        out.append(max(t0, t + (rng.randint(-jitter_ns, jitter_ns) if jitter_ns else 0)))
        t += gap_ns
    return out


def link(t0, t1, gap_ns):
    """A dequeue every gap_ns (a link that sends one packet per slot)."""
    return list(range(t0, t1, gap_ns))


def write(path, arrivals, deqs, with_ecn):
    """arrivals: (t, size, flow, ecn) tuples; deqs: times. Arrivals sort before dequeues at the
    same time, arrivals among themselves by (t, generation order)."""
    rows = [
        (t, 0, i, f"{t},enq,{s},{fl}" + (f",{e}" if with_ecn else ""))
        for i, (t, s, fl, e) in enumerate(arrivals)
    ]
    rows += [(t, 1, i, f"{t},deq,0,0" + (",0" if with_ecn else "")) for i, t in enumerate(deqs)]
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    header = "t_ns,op,size,flow" + (",ecn" if with_ecn else "")
    path.write_text(header + "\n" + "\n".join(r[3] for r in rows) + "\n")
    n = len(arrivals)
    print(f"{path}: {n} packets, {len(deqs)} dequeues, {path.stat().st_size} bytes")


def fq_sizes():
    rng = random.Random(1)
    arr = []
    # (flow, size, start ms): created in the order 7, 3, 12, 2.
    for fl, size, start in [(7, 1500, 0), (3, 1000, 7), (12, 576, 19), (2, 64, 31)]:
        for a, b in [(start, 420), (570 + start // 2, 1000)]:
            arr += [
                (t, size, fl, "not_ect") for t in periodic(a * MS, b * MS, 3 * MS, 300_000, rng)
            ]
    # The link: 10 Mb/s-ish slots of 1 ms.
    return arr, link(500_000, 1_060 * MS, MS)


def fq_sparse():
    rng = random.Random(2)
    arr = []
    for fl, start in [(1, 0), (4, 3)]:
        t = start
        while t < 1_500:
            arr += [
                (x, 1500, fl, "not_ect")
                for x in periodic(t * MS, (t + 300) * MS, 2 * MS, 200_000, rng)
            ]
            t += 400
    for fl in [9, 20, 33, 40]:
        t = rng.randint(0, 40) * MS
        while t < 1_500 * MS:
            arr.append((t, rng.choice([100, 200, 300]), fl, "not_ect"))
            t += rng.randint(10, 60) * MS
    return arr, link(600_000, 1_560 * MS, 1_200_000)


def fq_overflow():
    rng = random.Random(3)
    arr = []
    # Three 1000-B flows that arrive together (same nanosecond, in the order 9, 6, 2, which is
    # also their creation order, the reverse of their bucket order), 1.8 times what the link
    # carries: their byte backlogs are often equal when an arrival overflows the limit.
    for t in periodic(0, 1_000 * MS, 2 * MS, 0, rng):
        arr += [(t, 1000, fl, "not_ect") for fl in (9, 6, 2)]
    # An unresponsive 1500-B flow from 300 to 500 ms, and a burst of a fifth flow at 700 ms.
    arr += [(t, 1500, 11, "not_ect") for t in periodic(300 * MS, 500 * MS, 1_500_000, 100_000, rng)]
    arr += [(700 * MS + i * 10_000, 1000, 14, "not_ect") for i in range(30)]
    # When everything has drained: 80 packets of flow 5 in 0.8 ms, more than the limit alone.
    arr += [(1_150 * MS + i * 10_000, 1000, 5, "not_ect") for i in range(80)]
    return arr, link(1_000_000, 1_250 * MS, 1_200_000)


def fq_ecn():
    rng = random.Random(4)
    arr = []
    for fl, size, ecn, start in [
        (1, 1500, "ect0", 0),
        (2, 1500, "not_ect", 2),
        (3, 1000, "ect1", 5),
    ]:
        for t in periodic(start * MS, 1_200 * MS, 3 * MS, 500_000, rng):
            e = "ce" if ecn == "ect0" and rng.random() < 0.03 else ecn
            arr.append((t, size, fl, e))
    t = 10 * MS
    while t < 1_200 * MS:
        arr.append((t, 150, 8, "ect0"))
        t += rng.randint(15, 45) * MS
    return arr, link(700_000, 1_250 * MS, 1_200_000)


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    for name, gen, ecn in [
        ("fq_sizes", fq_sizes, False),
        ("fq_sparse", fq_sparse, False),
        ("fq_overflow", fq_overflow, False),
        ("fq_ecn", fq_ecn, True),
    ]:
        arr, deqs = gen()
        write(out / f"{name}.schedule.csv", arr, deqs, ecn)


if __name__ == "__main__":
    main()
