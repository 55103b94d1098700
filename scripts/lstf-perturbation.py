"""Issue 19 item 4: are lstf-codel's 'differs' within the spread of a deterministic run?

Nothing in Ford's scenario is drawn at random (fixed start times, a CBR, one FTP), so ns-2's
printed digits are not one seed's draw, and neither are ours: seeds give identical runs. What
moves a deterministic run is its timing; this script shifts the FTP's start by 0-3 ms (ns-2 and
aqmlab differ by more than that in how they time a packet: header sizes, event order) and
measures how much each statistic of Tables II-VI moves, at DURATION simulated seconds per run.
The spread of one run is the standard deviation over the shifts; a published value within
t(0.975, n-1)·sd·sqrt(1 + 1/n) of our mean is within what one shifted run could give.

    python3 scripts/lstf-perturbation.py [DURATION_S] [OUT]

(defaults: 20000 s, out/lstf-perturbation).
"""

from __future__ import annotations

import json
import math
import os
import sys

from aqmlab.reproduce import builtin_folder
from aqmlab.reproduce.folder import CLAIMS, load_claims
from aqmlab.sweep import REDUCED, run_sweep
from aqmlab.sweepspec import QDISC_PREFIX, Axis, SweepSpec

ALPHAS = [0.125, 0.5, 0.875]
SHIFTS = ["0s", "1ms", "2ms", "3ms"]
#: Table column -> (reduce.py's statistic, its moment, the claim id's suffix in claims.toml).
STATS = {
    "delay mean s": ("delay_s_changes", "mean", "delay-mean"),
    "delay std s": ("delay_s_changes", "std", "delay-std"),
    "queue mean B": ("queue_bytes_changes", "mean", "queue-mean"),
    "queue std B": ("queue_bytes_changes", "std", "queue-std"),
}


def main() -> None:
    import numpy as np
    from scipy import stats

    duration = sys.argv[1] if len(sys.argv) > 1 else "20000"
    out = sys.argv[2] if len(sys.argv) > 2 else "out/lstf-perturbation"
    os.makedirs(out, exist_ok=True)
    # The reproduction's own scenario, reducer and published digits (its claims).
    folder = builtin_folder("lstf-codel")
    published = {c.id: c.published for c in load_claims(os.path.join(folder, CLAIMS))}
    scenario = os.path.join(folder, "scenario.toml")
    p = "links[2].params"
    author = {f"{p}.target": "5s", f"{p}.interval": "100s"}
    cases = {"CoDel": {QDISC_PREFIX + "bottleneck": "codel", **author}}
    for a in ALPHAS:
        cases[f"a={a:g}"] = {f"{p}.alpha": a, f"{p}.order": "as_coded", **author}
    shifts = Axis(["flows[0].start"], [(s,) for s in SHIFTS])
    spec = SweepSpec(
        scenario,
        [Axis.of_cases(cases, "case"), shifts],
        {"duration": f"{duration}s"},
        [1],
        reduce=os.path.join(folder, "reduce.py") + ":reduce_run",
    )
    res = run_sweep(
        spec, os.path.join(out, "sweep"), jobs=2, progress=False, command="lstf-perturbation"
    )
    df = res.results
    print(
        f"{duration} s per run, FTP start shifted by {', '.join(SHIFTS)}; author's units, as coded"
    )
    print(
        "| case | statistic | published | our mean | sd over shifts | one-run 95 % "
        "| |pub - mean| | within |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for case in cases:
        rows = df[df["case"] == case]
        reds = []
        for run in rows["run"]:
            with open(os.path.join(out, "sweep", "runs", run, REDUCED), encoding="utf-8") as f:
                reds.append(json.load(f))
        for name, (key, moment, suffix) in STATS.items():
            vals = np.array([r[key][moment] for r in reds], dtype=float)
            printed = published[
                "codel-" + suffix if case == "CoDel" else f"lstf-{case[2:]}-{suffix}"
            ]
            pub = float(printed)
            n = len(vals)
            sd = float(vals.std(ddof=1))
            pi = float(stats.t.ppf(0.975, n - 1) * sd * math.sqrt(1 + 1 / n))
            diff = abs(pub - float(vals.mean()))
            print(
                f"| {case} | {name} | {printed} | {vals.mean():.6g} | {sd:.3g} | ±{pi:.3g} | "
                f"{diff:.3g} | {'yes' if diff <= pi else 'no'} |"
            )


if __name__ == "__main__":
    main()
