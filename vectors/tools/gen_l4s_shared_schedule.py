#!/usr/bin/env python3
"""Writes vectors/l4s_shared.schedule.csv, a schedule on which L4S (ECT(1)/CE) and classic
(not-ECT/ECT(0)) packets share flow queues of FQ-PIE, FQ-CoDel and FQ-COBALT (standard library
only; the same file on every run: seeded random.Random).

    python3 vectors/tools/gen_l4s_shared_schedule.py [OUTDIR]     # default: vectors/

In L4S mode (ns-3 3.37 `UseL4s`, `CeThreshold`) an ECT(1)/CE packet is only marked at the CE
threshold and leaves the flow queue's AQM state alone: PIE's delay estimate
(`PieQueueDisc::DoDequeue`), CoDel's and COBALT's dropping state. On the other FQ vectors
(`fq_ecn`, `l4s_sparse`) the L4S packets sit in ECT(1)-only flow queues, where skipping the state
makes no difference; here they share a queue with classic packets whose drops and marks follow
that state. The driver (tools/fq_replay.cc) puts flow id F in queue F mod 1024, as aqmlab's
`hash=flow_id`. 1500-B packets unless said otherwise:

* flow 1: one sender whose packets alternate codepoints at random (ECT(1) 40 %, CE 5 %, ECT(0)
  25 %, not-ECT 30 %): queue 1 mixes both kinds packet by packet;
* flows 4 and 1028: a classic sender (half ECT(0), half not-ECT) and an L4S one (ECT(1), 1000 B)
  hashed into the same queue 4;
* flow 2: a classic not-ECT sender alone in queue 2 (the scheduler shares the link three ways);
* flow 3: a sparse ECT(1) sender, 200 B every 10-40 ms, alone in queue 3.

Loads, as multiples of the link's packet rate (a `deq` every 1.2 ms, 10 Mbit/s for 1500 B; a
1000-B flow's load counts bytes), for flows 1 / 4 / 1028 / 2:

* 0-1.5 s: 0.4 / 0.3 / 0.1 / 0.3, jittered (queues 1 and 4 a little over their third of the
  link: PIE's probability rises, classic packets are dropped and marked);
* 1.5-3 s: 0.35 / 0.2 / 0.1 / 0.3, Poisson; 3-4 s: 0.5 / 0.35 / 0.15 / 0.3; 4-5 s: 0.33 / 0.2
  / 0.1 / 0.27, Poisson; 5-5.5 s: 0.2 / 0.1 / 0.1 / 0.1.
* 5.5-8 s: flow 1 silent; flow 4 at 0.45 and flow 2 at 0.5 of the link, and flow 1028 in bursts
  of ten packets every 300 ms. A burst's last packets are the first of queue 4 to wait longer
  than CoDel's target (5 ms); the classic packets behind them wait as long, and the queue stays
  above target for more than an interval (100 ms). So there, and hardly anywhere else, CoDel's
  `first_above_time` depends on whether an L4S departure may set it: in a FIFO an L4S packet
  and the classic packet behind it wait about as long, and CoDel's state only moves when the
  sojourn crosses the target.

The L4S part of each queue stays under its share of the link, so the classic drops keep the
queue bounded. Header t_ns,op,size,flow,ecn.
"""

import random
import sys
from pathlib import Path

from gen_fq_schedules import MS, link, write

LINK_NS = 1_200_000  # one 1500-B slot at 10 Mbit/s


def mixed(rng):
    """Flow 1's codepoint for one packet."""
    u = rng.random()
    return "ect1" if u < 0.40 else "ce" if u < 0.45 else "ect0" if u < 0.70 else "not_ect"


def l4s_shared():
    rng = random.Random(9)
    arr = []
    # (start ms, end ms, {flow: load}, Poisson)
    phases = [
        (0, 1_500, {1: 0.4, 4: 0.3, 1028: 0.1, 2: 0.3}, False),
        (1_500, 3_000, {1: 0.35, 4: 0.2, 1028: 0.1, 2: 0.3}, True),
        (3_000, 4_000, {1: 0.5, 4: 0.35, 1028: 0.15, 2: 0.3}, False),
        (4_000, 5_000, {1: 0.33, 4: 0.2, 1028: 0.1, 2: 0.27}, True),
        (5_000, 5_500, {1: 0.2, 4: 0.1, 1028: 0.1, 2: 0.1}, False),
    ]
    for t0, t1, loads, poisson in phases:
        for flow, load in loads.items():
            size = 1000 if flow == 1028 else 1500
            # The load counts bytes: a 1000-B flow sends 1.5 packets per 1500-B slot.
            mean_gap = LINK_NS * size / 1500 / load
            t = t0 * MS + rng.randint(0, 1_000_000)
            while t < t1 * MS:
                if flow == 1:
                    ecn = mixed(rng)
                elif flow == 4:
                    ecn = "ect0" if rng.random() < 0.5 else "not_ect"
                elif flow == 1028:
                    ecn = "ect1"
                else:
                    ecn = "not_ect"
                arr.append((int(t), size, flow, ecn))
                if poisson:
                    t += rng.expovariate(1 / mean_gap)
                else:
                    t += mean_gap + rng.randint(-150_000, 150_000)
    # 5.5-8 s: queue 4's classic sender just under its half of the link beside flow 2, and
    # the L4S sender in bursts of ten packets every 300 ms: the burst's last packets are the
    # first of queue 4 to wait longer than CoDel's target, the classic packets behind them wait
    # as long, and the queue stays above target for more than an interval (100 ms).
    for flow, load in [(4, 0.45), (2, 0.5)]:
        t = 5_500 * MS + rng.randint(0, 1_000_000)
        while t < 8_000 * MS:
            ecn = "not_ect" if flow == 2 else "ect0" if rng.random() < 0.5 else "not_ect"
            arr.append((t, 1500, flow, ecn))
            t += int(LINK_NS / load) + rng.randint(-150_000, 150_000)
    for burst in range(8):
        t = 5_650 * MS + burst * 300 * MS + rng.randint(0, 5_000_000)
        arr += [(t + i * 10_000, 1000, 1028, "ect1") for i in range(10)]
    t = 7 * MS
    while t < 8_000 * MS:
        arr.append((t, 200, 3, "ect1"))
        t += rng.randint(10, 40) * MS
    arr.sort(key=lambda a: a[0])
    return arr, link(LINK_NS, 8_200 * MS, LINK_NS)


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    arr, deqs = l4s_shared()
    write(out / "l4s_shared.schedule.csv", arr, deqs, True)


if __name__ == "__main__":
    main()
