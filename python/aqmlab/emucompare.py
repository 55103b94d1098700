"""Simulation against emulation: the same link and load simulated with aqmlab's TCP and
emulated (``aqmlab shell``) with Linux's, side by side (examples/emu_vs_sim.py,
tests/test_shell.py).

The link comes from a scenario file with one bulk TCP flow across it (as
``scenarios/emu-vs-sim.toml``); the emulation takes the same link with ``--link FILE:LINK`` and
runs one bulk flow of Linux's congestion control of the same name across it, from the server
to the client (the link's forward direction), for the scenario's duration; both namespaces
take that congestion control (``aqmlab shell --cc``), so no connection depends on the host's
default.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

from aqmlab.run import RunResult
from aqmlab.run import run as simulate_scenario
from aqmlab.shell import ShellError, emulate


@dataclass
class Arm:
    """One discipline simulated and emulated: goodput (b/s) and median sojourn (ms) of each,
    and both results."""

    qdisc: str
    sim_goodput_bps: float
    emu_goodput_bps: float
    sim_p50_ms: float
    emu_p50_ms: float
    sim: RunResult
    emu: RunResult

    def describe(self) -> str:
        """The figures compared, and how late the emulator's forwarder delivered packets: a
        loaded host (other builds on its cores) shows as lateness, which tells a disagreement
        caused by the machine from one caused by the model."""
        lat = self.emu.summary.get("emulation", {}).get("lateness_ms", {})
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        return (
            f"{self.qdisc}: goodput {self.emu_goodput_bps / 1e6:.3f} Mb/s emulated against "
            f"{self.sim_goodput_bps / 1e6:.3f} simulated; median sojourn {self.emu_p50_ms:.2f} ms "
            f"against {self.sim_p50_ms:.2f}; forwarder lateness p50 {lat.get('p50')}, "
            f"p99 {lat.get('p99')}, max {lat.get('max')} ms; load average {load}"
        )


def _emulate_bulk(scenario: str, link: str, qdisc: str, seconds: float, cc: str, rt: int | None):
    with tempfile.TemporaryDirectory(prefix="aqmlab-emucompare-") as tmp:
        sink = os.path.join(tmp, "sink.json")
        py = sys.executable
        res = emulate(
            ["sh", "-c", f"{py} -m aqmlab.emutool sink 5001 {seconds} > {sink}"],
            link=f"{scenario}:{link}",
            link_qdisc=qdisc,
            server=f"{py} -m aqmlab.emutool bulk $AQMLAB_PEER_ADDR 5001 {seconds + 2} {cc}",
            rt=rt,
            cc=cc,
        )
        with open(sink, encoding="utf-8") as f:
            measured = json.load(f)
    return res, measured


def compare(
    scenario: str,
    link: str = "bottleneck",
    qdiscs: tuple[str, ...] = ("codel", "droptail"),
    rt: int | None = 50,
) -> list[Arm]:
    """Simulates and emulates ``scenario``'s ``link`` with each discipline of ``qdiscs``.
    ``rt``: the forwarder's SCHED_FIFO priority (None: normal scheduling; used anyway when the
    system refuses real-time scheduling), so that a loaded machine delays deliveries less."""
    arms = []
    for q in qdiscs:
        sim = simulate_scenario(scenario, qdisc={link: q})
        flow = sim.summary["flows"][0]
        seconds = sim.summary["sim_time_s"]
        try:
            emu, measured = _emulate_bulk(scenario, link, q, seconds, flow["cc"] or "cubic", rt)
        except ShellError as e:
            if rt is None or "SCHED_FIFO" not in str(e):
                raise
            emu, measured = _emulate_bulk(scenario, link, q, seconds, flow["cc"] or "cubic", None)
        arms.append(
            Arm(
                qdisc=q,
                sim_goodput_bps=flow["goodput_bps"],
                emu_goodput_bps=measured["bytes"] * 8 / measured["seconds"],
                sim_p50_ms=sim.summary["links"][link]["sojourn_ms"]["p50"],
                emu_p50_ms=emu.summary["links"]["downlink"]["sojourn_ms"]["p50"],
                sim=sim,
                emu=emu,
            )
        )
    return arms


def table(arms: list[Arm]) -> str:
    """The comparison as text."""
    rows = [
        f"{'qdisc':<10} {'goodput Mb/s sim':>17} {'emu':>6} {'p50 sojourn ms sim':>19} {'emu':>6}"
    ]
    for a in arms:
        rows.append(
            f"{a.qdisc:<10} {a.sim_goodput_bps / 1e6:>17.2f} {a.emu_goodput_bps / 1e6:>6.2f} "
            f"{a.sim_p50_ms:>19.2f} {a.emu_p50_ms:>6.2f}"
        )
    return "\n".join(rows)


def plot(arms: list[Arm], path: str, link: str = "bottleneck") -> Any:
    """Sojourn over time, simulated and emulated, one panel per discipline; saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(arms), figsize=(5.5 * len(arms), 3.6), squeeze=False)
    for ax, a in zip(axes[0], arms):
        s = a.sim.links[a.sim.links.link == link]
        e = a.emu.links[a.emu.links.link == "downlink"]
        # The emulation's flow starts when its sender connects: align its first busy bin with 0.
        start = e.t_s[e.egress_bytes > 0].min()
        ax.plot(
            s.t_s, s.mean_sojourn_ms, label=f"simulated (aqmlab CUBIC), p50 {a.sim_p50_ms:.1f} ms"
        )
        ax.plot(
            e.t_s - start,
            e.mean_sojourn_ms,
            label=f"emulated (Linux cubic), p50 {a.emu_p50_ms:.1f} ms",
        )
        ax.set_title(
            f"{a.qdisc}: goodput {a.sim_goodput_bps / 1e6:.2f} (sim) vs "
            f"{a.emu_goodput_bps / 1e6:.2f} Mb/s (emu)",
            fontsize=10,
        )
        ax.set_xlabel("time (s)")
        ax.set_ylabel("mean sojourn per 100 ms (ms)")
        ax.set_xlim(0, a.sim.summary["sim_time_s"])
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
