"""The live emulator's benchmark (not a timed test; root needed): the forwarder's CPU share of
one core with one bulk TCP flow through a 100 Mb/s link, and the highest link rate it carries
at full goodput without a drop in either TUN device.

    sudo python bench/emu_bench.py                    # 100 Mb/s, then 200 500 1000 2000 Mb/s
    sudo python bench/emu_bench.py --rates 100 --seconds 10
    sudo python bench/emu_bench.py --rates 500 1000 1500 --delay-ms 2

Each run: a 20 ms one-way delay (``--delay-ms``), a tail-drop buffer of 2 x the
bandwidth-delay product, one Linux cubic flow from the server to the client for SECONDS
(python -m aqmlab.emutool), the forwarder at normal priority (``--rt N`` for SCHED_FIFO).
A row gives the goodput against the ideal (rate x 1448/1500), the forwarder's CPU share (its
user + system time over the run's wall time, from getrusage), the TUN devices' dropped
counters (``ip -s link``: the kernel drops there when the forwarder does not read fast
enough) and the link's own drops.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from aqmlab.shell import emulate


def tun_drops(stats_file: str) -> int:
    """Dropped packets (rx + tx) of the TUN devices in an `ip -s -j link` dump."""
    with open(stats_file, encoding="utf-8") as f:
        links = json.load(f)
    return sum(
        link["stats64"]["rx"]["dropped"] + link["stats64"]["tx"]["dropped"]
        for link in links
        if link["ifname"] != "lo"
    )


def one(rate_mbps: int, seconds: float, rt: int | None, delay_ms: float = 20.0) -> dict:
    py = sys.executable
    bdp = max(100, int(rate_mbps * 1e6 * 2 * delay_ms / 1e3 / 12000))
    with tempfile.TemporaryDirectory() as tmp:
        sink, cs, ss = (os.path.join(tmp, n) for n in ("sink.json", "c.json", "s.json"))
        client = (
            f"{py} -m aqmlab.emutool sink 5001 {seconds} > {sink}; "
            f"ip -s -j link show > {cs}; ip -n $AQMLAB_SERVER_NETNS -s -j link show > {ss}"
        )
        res = emulate(
            ["sh", "-c", client],
            downlink=f"{rate_mbps}Mbps",
            delay=f"{delay_ms}ms",
            buffer=f"{2 * bdp}p",
            server=f"{py} -m aqmlab.emutool bulk $AQMLAB_PEER_ADDR 5001 {seconds + 2} cubic",
            rt=rt,
        )
        with open(sink, encoding="utf-8") as f:
            m = json.load(f)
        drops = tun_drops(cs) + tun_drops(ss)
    goodput = m["warm_bytes"] * 8 / m["warm_seconds"]
    e = res.summary["emulation"]
    return {
        "rate_mbps": rate_mbps,
        "goodput_mbps": goodput / 1e6,
        "of_ideal": goodput / (rate_mbps * 1e6 * 1448 / 1500),
        "cpu_share": e["cpu_share"],
        "tun_drops": drops,
        "link_drops": res.summary["links"]["downlink"]["dropped_pkts"],
        "lateness_p99_ms": e["lateness_ms"]["p99"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rates", type=int, nargs="+", default=[100, 200, 500, 1000, 2000])
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--rt", type=int, default=None, help="forwarder SCHED_FIFO priority")
    ap.add_argument(
        "--delay-ms",
        type=float,
        default=20.0,
        help="one-way delay (default 20; above about 500 Mb/s, Linux's default receive buffer "
        "(tcp_rmem max 6 MB) caps one flow at 40 ms RTT: use 2)",
    )
    a = ap.parse_args()
    print(
        f"{'Mb/s':>6} {'goodput':>8} {'of ideal':>8} {'CPU %':>6} {'TUN drops':>9} "
        f"{'link drops':>10} {'late p99 ms':>11}"
    )
    for r in a.rates:
        row = one(r, a.seconds, a.rt, a.delay_ms)
        print(
            f"{row['rate_mbps']:>6} {row['goodput_mbps']:>8.1f} {row['of_ideal']:>8.3f} "
            f"{100 * row['cpu_share']:>6.1f} {row['tun_drops']:>9} {row['link_drops']:>10} "
            f"{row['lateness_p99_ms']:>11.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
