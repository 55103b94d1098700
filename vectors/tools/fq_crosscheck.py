#!/usr/bin/env python3
"""Random cross-check of aqmlab's fq_codel (variant=ns3) against ns-3 3.37's FqCoDelQueueDisc,
beyond the four committed vectors. Writes N random schedules and ns-3's decisions on them to
OUTDIR, with OUTDIR/manifest.txt giving each one's aqmlab parameters; then run the ignored test
that replays them through aqmlab and counts the differing packets:

    g++ -O2 -std=c++17 vectors/tools/fq_replay.cc -o /tmp/fq_replay -Wl,--no-as-needed \\
        -lns3-core -lns3-network -lns3-internet -lns3-traffic-control
    python3 vectors/tools/fq_crosscheck.py /tmp/fq_replay /tmp/fqx 200 [FIRST_SEED]
    AQMLAB_FQ_XCHECK=/tmp/fqx cargo test -p aqmlab-qdisc --test vectors -- --ignored --nocapture
    # AQMLAB_FQ_XCHECK_EXTRA="fattest_tie=lowest_bucket" adds parameters (to see a rule matter)

Each schedule draws (from its own seeded random.Random, so a seed always gives the same files):
1-12 flows with ids 0-40 and Flows 1, 2, 4, 8 or 1024 (so ids collide), a packet size per flow
(or random 20-1500 B per packet), random ECN codepoints (CE included) or none, UseEcn on or off,
limit 4p-10240p, quantum 256-3000, DropBatchSize 1-64, target 1-10 ms, interval 20-200 ms,
sometimes a CE threshold; bursty arrivals with idle gaps and a mostly periodic link.
Standard library only. Not run by CI (it needs ns-3); the committed vectors are.
"""

import random
import subprocess
import sys
from pathlib import Path


def one(rng):
    ids = [rng.randint(0, 40) for _ in range(rng.randint(1, 12))]
    fsize = {f: rng.choice([40, 64, 100, 576, 1000, 1500, None]) for f in ids}
    with_ecn = rng.random() < 0.5
    n = rng.randint(200, 3000)
    deq_gap = rng.choice([200_000, 500_000, 1_000_000, 1_200_000])
    next_deq = rng.randint(0, 2_000_000)
    rows, t, enqs = [], 0, 0
    while enqs < n:
        if rng.random() < 0.05:  # an idle gap, sometimes long
            t += rng.randint(0, 200_000_000) if rng.random() < 0.1 else rng.randint(0, 5_000_000)
        t += rng.choice([0, 0, rng.randint(0, 2_000_000)])
        while next_deq <= t:
            rows.append((next_deq, "deq", 0, 0, "not_ect"))
            next_deq += deq_gap if rng.random() < 0.9 else rng.randint(0, 5 * deq_gap)
        f = rng.choice(ids)
        e = rng.choice(["not_ect", "ect0", "ect1", "ce"]) if with_ecn else "not_ect"
        rows.append((t, "enq", fsize[f] or rng.randint(20, 1500), f, e))
        enqs += 1
    end = t + rng.randint(0, 500_000_000)
    while next_deq <= end:
        rows.append((next_deq, "deq", 0, 0, "not_ect"))
        next_deq += deq_gap
    rows.sort(key=lambda r: r[0])  # stable: same-time rows keep their order
    target = rng.choice([1, 2, 5, 10])
    interval = rng.choice([20, 50, 100, 200])
    p = {
        "limit": rng.choice([4, 8, 16, 32, 64, 200, 10240]),
        "flows": rng.choice([1, 2, 4, 8, 1024]),
        "quantum": rng.choice([256, 300, 1000, 1514, 3000]),
        "drop_batch": rng.choice([1, 2, 3, 8, 64]),
        "target": target,
        "interval": interval,
        "ecn": rng.random() < 0.8,
        "ce_threshold": rng.choice([None, None, None, 1, 3]),
    }
    return rows, p


def main():
    driver, out = sys.argv[1], Path(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    first = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for seed in range(first, first + n):
        rows, p = one(random.Random(seed))
        name = f"x{seed}"
        sched = out / f"{name}.schedule.csv"
        sched.write_text(
            "t_ns,op,size,flow,ecn\n" + "".join(f"{a},{b},{c},{d},{e}\n" for a, b, c, d, e in rows)
        )
        ce = f"{p['ce_threshold']}ms" if p["ce_threshold"] else "off"
        subprocess.run(
            [
                driver,
                f"--schedule={sched}",
                f"--out={out / (name + '.fq_codel.ns3.csv')}",
                f"--limit={p['limit']}",
                f"--flows={p['flows']}",
                f"--quantum={p['quantum']}",
                f"--dropBatch={p['drop_batch']}",
                f"--useEcn={int(p['ecn'])}",
                f"--target={p['target']}ms",
                f"--interval={p['interval']}ms",
                f"--ceThreshold={ce}",
            ],
            check=True,
        )
        manifest.append(
            f"{name} limit={p['limit']}p flows={p['flows']} quantum={p['quantum']} "
            f"drop_batch={p['drop_batch']} ecn={'true' if p['ecn'] else 'false'} "
            f"target={p['target']}ms interval={p['interval']}ms ce_threshold={ce}"
        )
    (out / "manifest.txt").write_text("\n".join(manifest) + "\n")
    print(f"{n} schedules in {out}")


if __name__ == "__main__":
    main()
