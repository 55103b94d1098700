"""The CoDel dynamic link with PackMime-HTTP web traffic instead of the simple stand-in.

``scenarios/codel-dynamic-link.toml`` stands in for the ns-2 script's PackMime web traffic
(5 connections/s) with Poisson arrivals, 600-B requests and Pareto responses of mean 8 kB. This
runs the same scenario with that web flow replaced by ``model = "packmime"`` (HTTP/1.0, and
HTTP/1.1 as the script uses), with CoDel and with tail drop, over seeds 1..N, and prints the
CoDel/tail-drop byte ratio, the web flow's goodput and CoDel's median delay for each.

    python examples/dynamic_link_packmime.py            # seeds 1-5
    python examples/dynamic_link_packmime.py --seeds 10
"""

from __future__ import annotations

import argparse
import pathlib
import statistics

import aqmlab

SCENARIO = pathlib.Path(__file__).resolve().parent.parent / "scenarios" / "codel-dynamic-link.toml"

PACKMIME = """[[flows]]
kind = "tcp"
from = "s5"
to = "r5"
cc = "cubic"
app = "web"
model = "packmime"
conns_per_s = 5.0
initial_cwnd = 4
delayed_ack = false
"""


def variants() -> dict[str, str]:
    """The scenario text with each web model (the web flow is the file's last table)."""
    text = SCENARIO.read_text()
    web = text[text.rindex("[[flows]]") :]
    return {
        "stand-in": text,
        "packmime 1.0": text.replace(web, PACKMIME),
        "packmime 1.1": text.replace(web, PACKMIME + 'http = "1.1"\n'),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="run seeds 1..N (default 5)")
    a = ap.parse_args()
    if a.seeds < 2:
        ap.error(f"--seeds must be at least 2, got {a.seeds}")
    print(f"{'web model':14} {'CoDel/DT bytes':>24} {'web Mb/s':>9} {'CoDel p50 ms':>13}")
    for name, text in variants().items():
        ratios, web, p50 = [], [], []
        for seed in range(1, a.seeds + 1):
            codel = aqmlab.run(text, seed=seed, progress=False, keep=False).summary
            tail = aqmlab.run(
                text, seed=seed, qdisc={"bottleneck": "droptail"}, progress=False, keep=False
            ).summary
            b = codel["links"]["bottleneck"]
            ratios.append(b["delivered_bytes"] / tail["links"]["bottleneck"]["delivered_bytes"])
            web.append(codel["flows"][4]["goodput_bps"] / 1e6)
            p50.append(b["sojourn_ms"]["p50"])
        spread = f"{statistics.mean(ratios):.3f} ± {statistics.stdev(ratios):.3f}"
        print(
            f"{name:14} {spread:>15} ({min(ratios):.2f}-{max(ratios):.2f})"
            f" {statistics.mean(web):>9.3f} {statistics.mean(p50):>13.2f}"
        )


if __name__ == "__main__":
    main()
