"""CoDel vs tail drop on the CoDel paper's dynamic link, over several seeds.

For each seed, runs ``scenarios/codel-dynamic-link.toml`` with CoDel (as written) and with tail
drop on the bottleneck, and prints the ratio of bytes delivered over the whole run and in each
50-s rate phase, then the mean and standard deviation over the seeds.

    python examples/dynamic_link_seeds.py            # seeds 1-10
    python examples/dynamic_link_seeds.py --seeds 3  # seeds 1-3
    python examples/dynamic_link_seeds.py --set flows[4].size_mean=50KB  # a heavier web load
"""

from __future__ import annotations

import argparse
import pathlib
import statistics

import aqmlab

SCENARIO = pathlib.Path(__file__).resolve().parent.parent / "scenarios" / "codel-dynamic-link.toml"
PHASE_S = 50
RATES_MBPS = [100, 10, 1, 50, 1, 100]


def bytes_per_phase(result: aqmlab.RunResult) -> list[float]:
    """Bottleneck egress bytes in each rate phase."""
    links = result.links
    b = links[links["link"] == "bottleneck"]
    phase = (b["t_s"] // PHASE_S).astype(int).clip(upper=len(RATES_MBPS) - 1)
    per = b.groupby(phase)["egress_bytes"].sum()
    return [float(per.get(i, 0.0)) for i in range(len(RATES_MBPS))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="run seeds 1..N (default 10)")
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a scenario key in both runs (as aqmlab run --set)",
    )
    a = ap.parse_args()
    n = a.seeds
    if n < 1:
        ap.error(f"--seeds must be at least 1, got {n}")
    bad = [kv for kv in a.set if "=" not in kv]
    if bad:
        ap.error(f"--set expects KEY=VALUE, got {bad[0]!r}")
    # Values as `aqmlab run --set` reads them (10 a number, 10Mbps a string).
    sets = {k: aqmlab.TomlText(v) for k, v in (kv.split("=", 1) for kv in a.set)} or None
    head = " ".join(f"{r:>5}M" for r in RATES_MBPS)
    print(f"{'seed':>4} {'CoDel/DT':>9} | per phase: {head}")
    totals, phases = [], []
    for seed in range(1, n + 1):
        codel = aqmlab.run(SCENARIO, seed=seed, set=sets, progress=False)
        tail = aqmlab.run(
            SCENARIO, seed=seed, set=sets, qdisc={"bottleneck": "droptail"}, progress=False
        )
        c, t = (r.summary["links"]["bottleneck"]["delivered_bytes"] for r in (codel, tail))
        per = [a / b for a, b in zip(bytes_per_phase(codel), bytes_per_phase(tail))]
        totals.append(c / t)
        phases.append(per)
        print(f"{seed:>4} {c / t:>9.3f} |            " + " ".join(f"{x:>6.3f}" for x in per))
    sd = statistics.pstdev(totals) if n > 1 else 0.0
    mean_per = [statistics.mean(p[i] for p in phases) for i in range(len(RATES_MBPS))]
    print(
        f"mean {statistics.mean(totals):>9.3f} |            "
        + " ".join(f"{x:>6.3f}" for x in mean_per)
    )
    print(f"sd   {sd:>9.3f} | min {min(totals):.3f} max {max(totals):.3f}")


if __name__ == "__main__":
    main()
