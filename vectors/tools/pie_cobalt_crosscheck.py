#!/usr/bin/env python3
"""Random cross-check of aqmlab's cobalt, fq_cobalt and fq_pie against ns-3 3.37, beyond the
committed vectors: N random schedules (fq_crosscheck.py's generator: 1-12 colliding flows, random
sizes and ECN codepoints, bursts and idle gaps) with random parameters (limit, flows, quantum,
drop batch, UseEcn, target, interval, BLUE's increment 1/256, 1/64 or 1/16, L4S mode with a
1 or 3 ms CE threshold in 30 %), each replayed by ns-3 (our driver) and by `aqmlab replay` with
ns-3's uniforms; prints the schedules that differ and the totals, BLUE drops included.

    g++ -O2 -std=c++17 vectors/tools/fq_replay.cc -o /tmp/fq_replay -Wl,--no-as-needed \\
        -lns3-core -lns3-network -lns3-internet -lns3-traffic-control
    PYTHONPATH=python python3 vectors/tools/pie_cobalt_crosscheck.py /tmp/fq_replay /tmp/pcx \\
        cobalt 100 [FIRST_SEED]

Standard library and aqmlab only. Not run by CI (it needs ns-3).
"""

import csv
import json
import random
import subprocess
import sys
from pathlib import Path

from fq_crosscheck import one

UNIFORMS = Path(__file__).resolve().parent.parent / "ns3-uniforms.txt"


def decisions(path):
    with open(path) as f:
        return {r["id"]: r for r in csv.DictReader(f)}


def check(driver, out, kind, seed):
    """Returns (packets, differing packets, ns-3's BLUE drops) for one random schedule."""
    rng = random.Random(seed)
    rows, p = one(rng)
    l4s = rng.random() < 0.3
    ce = rng.choice([1, 3]) if l4s else None
    inc = rng.choice([1 / 256, 1 / 64, 1 / 16])
    sched = out / f"{kind}{seed}.schedule.csv"
    sched.write_text(
        "t_ns,op,size,flow,ecn\n" + "".join(f"{a},{b},{c},{d},{e}\n" for a, b, c, d, e in rows)
    )
    ecn = "true" if p["ecn"] else "false"
    ns = [driver, f"--kind={kind}", f"--schedule={sched}", f"--out={out / 'ns3.csv'}"]
    ns += [f"--summary={out / 'ns3.json'}", f"--limit={p['limit']}", f"--useEcn={int(p['ecn'])}"]
    ns += [f"--useL4s={int(l4s)}"]
    ours = [sys.executable, "-m", "aqmlab", "replay", str(sched), "--qdisc", kind]
    ours += ["--uniforms", str(UNIFORMS), "-o", str(out / "ours.csv"), "-p"]
    ours += [f"limit={p['limit']}p", f"ecn={ecn}", f"l4s={'true' if l4s else 'false'}"]
    if ce:
        ns.append(f"--ceThreshold={ce}ms")
        ours.append(f"ce_threshold={ce}ms")
    if kind != "cobalt":
        ns += [f"--flows={p['flows']}", f"--quantum={p['quantum']}"]
        ns.append(f"--dropBatch={p['drop_batch']}")
        ours += [f"flows={p['flows']}", f"quantum={p['quantum']}", f"drop_batch={p['drop_batch']}"]
    if kind != "fq_pie":
        ns += [f"--target={p['target']}ms", f"--interval={p['interval']}ms"]
        ns.append(f"--increment={inc!r}")
        ours += [f"target={p['target']}ms", f"interval={p['interval']}ms", f"increment={inc!r}"]
    subprocess.run(ns, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(ours, check=True)
    a, b = decisions(out / "ours.csv"), decisions(out / "ns3.csv")
    blue = json.loads((out / "ns3.json").read_text()).get("blue_drops", 0)
    return len(a), sum(a[k] != b.get(k) for k in a), blue


def main():
    driver, out, kind = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    first = int(sys.argv[5]) if len(sys.argv) > 5 else 100
    out.mkdir(parents=True, exist_ok=True)
    packets = bad = blue = with_blue = 0
    for seed in range(first, first + n):
        pk, d, b = check(driver, out, kind, seed)
        packets, blue, with_blue = packets + pk, blue + b, with_blue + (b > 0)
        if d:
            bad += 1
            print(f"seed {seed}: {d} of {pk} packets differ")
    print(
        f"{kind}: {n} schedules, {packets} packets, {bad} schedules differ; "
        f"ns-3 BLUE drops {blue} (in {with_blue} schedules)"
    )


if __name__ == "__main__":
    main()
