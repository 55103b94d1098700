"""Pareto on/off applications over TCP through DropTail, RED and CoDel (Kuhn, Lochin & Mehani).

"Revisiting Old Friends: Is CoDel Really Achieving What RED Cannot?" (CSWS '14) loads a 1 Mb/s
bottleneck (10 Mb/s wings) with 100 applications generating Pareto on/off traffic over TCP
(CUBIC or Vegas), with bottleneck buffers of 10, 45 (about a BDP), 127 packets and "infinite".
This builds that dumbbell with one ``app = "onoff"`` TCP flow per application and prints, for
each buffer and discipline, the bottleneck's utilization, median and 99th-percentile queueing
delay, drops and the applications' total goodput.

The slides do not give the applications' parameters or the delays; the defaults here are
assumptions, each a command-line option: ns-2's ``Application/Traffic/Pareto`` defaults (on and
off periods of mean 500 ms, shape 1.5, 64 kb/s while on, so 3.2 Mb/s offered by 100
applications), and delays that make 45 packets one BDP (wings 10 ms, bottleneck 250 ms: an RTT
of 540 ms, 45 × 1500 B at 1 Mb/s).

    python examples/pareto_onoff_tcp.py                      # CUBIC, 60 s
    python examples/pareto_onoff_tcp.py --cc vegas --duration 120s
"""

from __future__ import annotations

import argparse

import aqmlab


def scenario(a: argparse.Namespace, qdisc: str, buffer: str) -> str:
    """The scenario text: ``a.apps`` senders, one on/off application each."""
    head = f"""
name = "pareto-onoff-tcp"
duration = "{a.duration}"
seed = {a.seed}

[dumbbell]
senders = {a.apps}
access_rate = "10Mbps"
sender_delay = "{a.wing_delay}"
receiver_delay = "{a.wing_delay}"
access_buffer = "100000p"

[dumbbell.bottleneck]
rate = "1Mbps"
delay = "{a.bottleneck_delay}"
qdisc = "{qdisc}"
buffer = "{buffer}"
"""
    if qdisc == "red":
        head += 'params = { bandwidth = "1Mbps", mean_pkt_size = 1500 }\n'
    flows = "".join(
        f"""
[[flows]]
kind = "tcp"
from = "s{i}"
to = "r{i}"
cc = "{a.cc}"
app = "onoff"
rate = "{a.rate}"
on_time = "{a.on_time}"
off_time = "{a.off_time}"
onoff_shape = {a.shape}
"""
        for i in range(1, a.apps + 1)
    )
    return head + flows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--apps", type=int, default=100)
    ap.add_argument("--cc", default="cubic", choices=["cubic", "vegas", "reno", "newreno"])
    ap.add_argument("--duration", default="60s")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", default="64kbps", help="each application's rate while on")
    ap.add_argument("--on-time", dest="on_time", default="500ms")
    ap.add_argument("--off-time", dest="off_time", default="500ms")
    ap.add_argument("--shape", type=float, default=1.5, help="Pareto shape of the periods")
    ap.add_argument("--wing-delay", dest="wing_delay", default="10ms")
    ap.add_argument("--bottleneck-delay", dest="bottleneck_delay", default="250ms")
    a = ap.parse_args()
    if a.apps < 1:
        ap.error(f"--apps must be at least 1, got {a.apps}")
    print(
        f"{'buffer':>8} {'qdisc':>9} {'util':>6} {'p50 ms':>8} {'p99 ms':>9} "
        f"{'drops':>7} {'goodput kb/s':>13}"
    )
    for buffer in ["10p", "45p", "127p", "100000p"]:
        for qdisc in ["droptail", "red", "codel"]:
            s = aqmlab.run(scenario(a, qdisc, buffer), progress=False, keep=False).summary
            b = s["links"]["bottleneck"]
            soj = b["sojourn_ms"] or {"p50": float("nan"), "p99": float("nan")}
            goodput = sum(f["goodput_bps"] for f in s["flows"]) / 1e3
            shown = "inf" if buffer == "100000p" else buffer
            print(
                f"{shown:>8} {qdisc:>9} {b['utilization']:>6.3f} {soj['p50']:>8.1f} "
                f"{soj['p99']:>9.1f} {b['dropped_pkts']:>7} {goodput:>13.1f}"
            )


if __name__ == "__main__":
    main()
