"""Simulation against emulation: one bulk CUBIC flow through a 12 Mb/s link, 40 ms RTT, CoDel
and tail drop with a 100-packet buffer (``scenarios/emu-vs-sim.toml``), simulated with
aqmlab's CUBIC and emulated (``aqmlab shell``, root needed) with Linux's cubic; prints goodput
and median sojourn of both and plots the sojourn over time side by side.

    sudo python examples/emu_vs_sim.py                     # writes docs/figures/emu-vs-sim.png
    sudo python examples/emu_vs_sim.py --out fig.png --no-rt
"""

from __future__ import annotations

import argparse
import pathlib

from aqmlab.emucompare import compare, plot, table

ROOT = pathlib.Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=str(ROOT / "scenarios" / "emu-vs-sim.toml"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "emu-vs-sim.png"))
    ap.add_argument("--no-rt", action="store_true", help="no real-time priority for the forwarder")
    a = ap.parse_args()
    arms = compare(a.scenario, rt=None if a.no_rt else 50)
    print(table(arms))
    print(f"figure written to {plot(arms, a.out)}")


if __name__ == "__main__":
    main()
