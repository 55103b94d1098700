"""codel-dynamic's RED arms against ns-2.35 on the same link (issue 19, Deliver 4).

The committed table ``ns2-codel-dynamic.csv`` (``tests/fidelity/ns2/codel_dynamic.py``) holds
ns-2.35's tail drop, Queue/RED and Queue/RED with ``adaptive_ 1`` as it ships them on the
reproduction's dynamic link, quick mode (10-s phases), PackMime-HTTP/1.1 web, seeds 1-3. These
tests run our arms as the reproduction's ``sweep-packmime`` defines them (read from its
experiment.toml, so a change to an arm's configuration is what they test) on the same seeds.

The figure held is the bytes the bottleneck sent: RED as ns-2.35 ships it sends about half of
tail drop's in the quick mode, in both simulators. The median sojourn is printed, not held: RED in
packet mode (the counterfactual) is no further from ns-2.35's median than our byte-mode arm is
(``python3 tests/test_fidelity_codel_dynamic.py``), so it cannot tell the two configurations
apart here.

The band: ns-2.35's own seeds' figures span a factor ``f`` (largest ÷ smallest, from the
committed table); our mean over the seeds must lie within ns-2.35's seeds' range widened by that
factor, [min ÷ f, max × f]. The basis: a second simulator's mean cannot be held closer to one
simulator than that simulator's seeds are to each other. It is a test of the arms'
configuration, not a fidelity claim (the two simulators' TCPs differ on this link:
tests/fidelity/ns2/README.md, "codel-dynamic"). Its counterfactual: RED in packet mode
(``mode = "packet"``, our default; ns-2.35's ``bytes_ false``) sends more, outside the band.

    python3 tests/test_fidelity_codel_dynamic.py     # prints the comparison
"""

from __future__ import annotations

import csv
import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
NS2_SCRIPT = os.path.join(HERE, "fidelity", "ns2", "codel_dynamic.tcl")
SEEDS = (1, 2, 3)
PHASE_S = 10  # the quick mode
ARMS = {
    "tail drop 830p": "droptail",
    "RED (ns-2.35 defaults)": "red",
    "Adaptive RED (ns-2.35 defaults)": "ared",
}
RED = "RED (ns-2.35 defaults)"
ARED = "Adaptive RED (ns-2.35 defaults)"


def _experiment():
    from aqmlab.reproduce import builtin_folder
    from aqmlab.reproduce.folder import load

    return load(builtin_folder("codel-dynamic"))


def ns2_table() -> str:
    from aqmlab.reproduce import builtin_folder

    return os.path.join(builtin_folder("codel-dynamic"), "ns2-codel-dynamic.csv")


def ns2_rows() -> dict[tuple[str, int], dict[str, str]]:
    """The committed table's quick-mode rows (Linux CUBIC, PackMime), by (qdisc, seed)."""
    with open(ns2_table(), encoding="utf-8") as f:
        return {
            (r["qdisc"], int(r["seed"])): r
            for r in csv.DictReader(f)
            if int(r["phase_s"]) == PHASE_S and r["web"] == "packmime" and r["tcp"] == "linux"
        }


def band(medians: list[float]) -> tuple[float, float]:
    """ns-2.35's seeds' range widened by the factor that separates its own seeds."""
    lo, hi = min(medians), max(medians)
    f = hi / lo
    return lo / f, hi * f


def ours(case: str, seed: int, extra: dict | None = None) -> dict[str, float]:
    """Our bottleneck's median sojourn (ms) and MB sent for the quick mode's sweep-packmime arm
    ``case``, with ``extra`` overrides on top (a counterfactual)."""
    import aqmlab

    exp = _experiment()
    sweep = next(s for s in exp.sweeps if s.name == "sweep-packmime")
    overrides = dict(sweep.axes[0].cases[case])
    qdisc = {}
    if "qdisc:bottleneck" in overrides:
        qdisc["bottleneck"] = overrides.pop("qdisc:bottleneck")
    sets = {
        **{k: v for k, v in sweep.sets.items() if k != "output.packet_log"},
        **exp.modes["quick"]["set"],
        **overrides,
        **(extra or {}),
    }
    r = aqmlab.run(
        sweep.scenario,
        seed=seed,
        qdisc=qdisc,
        set=sets,
        unset=sweep.unset,
        progress=False,
        keep=False,
    )
    link = r.summary["links"]["bottleneck"]
    return {"p50_ms": float(link["sojourn_ms"]["p50"]), "mb": link["delivered_bytes"] / 1e6}


def compare(case: str, extra: dict | None = None) -> dict[str, tuple[float, list[float], tuple]]:
    """Per figure (p50_ms, mb): our mean over SEEDS, ns-2.35's seeds, and the band."""
    rows = ns2_rows()
    runs = [ours(case, s, extra) for s in SEEDS]
    out = {}
    for key, col, scale in (("p50_ms", "p50_ms", 1.0), ("mb", "delivered_bytes", 1e-6)):
        ns2 = [float(rows[(ARMS[case], s)][col]) * scale for s in SEEDS]
        out[key] = (sum(r[key] for r in runs) / len(runs), ns2, band(ns2))
    return out


def test_the_packmime_arms_are_the_main_sweeps():
    """The arms held here (sweep-packmime's) are the reproduction's RED arms (the main sweep's)
    with the web flow alone changed."""
    sweeps = {s.name: s for s in _experiment().sweeps}
    for case in ARMS:
        assert sweeps["sweep-packmime"].axes[0].cases[case] == sweeps["sweep"].axes[0].cases[case]


def test_the_table_has_the_quick_mode_rows():
    rows = ns2_rows()
    assert {(q, s) for q in ARMS.values() for s in SEEDS} <= set(rows)


@pytest.mark.parametrize("case", [RED, ARED])
def test_our_red_arms_send_what_ns2s_send(case):
    mine, ns2, (lo, hi) = compare(case)["mb"]
    assert lo <= mine <= hi, f"{case}: ours {mine:.4g} MB, ns-2.35 {ns2}, band [{lo:.4g}, {hi:.4g}]"


def test_red_in_packet_mode_leaves_the_band():
    """The counterfactual: our RED arm with packet mode in place of ns-2.35's byte mode."""
    mine, ns2, (lo, hi) = compare(RED, {"dumbbell.bottleneck.params.mode": "packet"})["mb"]
    assert not lo <= mine <= hi, f"packet mode: ours {mine:.4g} MB inside [{lo:.4g}, {hi:.4g}]"


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 (Debian's ns2) is not installed")
def test_the_ns2_table_is_what_codel_dynamic_tcl_gives(tmp_path):
    """One committed row re-run (ns-2 is deterministic for a seed): RED, seed 1, quick."""
    sys.path.insert(0, os.path.join(HERE, "fidelity", "ns2"))
    try:
        import codel_dynamic
    finally:
        sys.path.pop(0)
    row = codel_dynamic.run("red", 1, PHASE_S, "packmime", "linux")
    want = ns2_rows()[("red", 1)]
    assert {k: str(v) for k, v in row.items()} == {k: want[k] for k in row}


def main() -> None:
    """Ours (mean over seeds 1-3) beside ns-2.35's seeds, each arm and the counterfactual."""
    arms = [(c, c, None) for c in ARMS]
    arms.append(("RED in packet mode", RED, {"dumbbell.bottleneck.params.mode": "packet"}))
    for name, case, extra in arms:
        for key, (mine, ns2, (lo, hi)) in compare(case, extra).items():
            seeds = ", ".join(f"{x:.4g}" for x in ns2)
            mean = sum(ns2) / len(ns2)
            print(
                f"{name:32} {key:6} ours {mine:8.4g}, ns-2.35 {mean:8.4g} ({seeds}), "
                f"ours ÷ ns-2.35 {mine / mean:.2f}, band [{lo:.4g}, {hi:.4g}]"
            )


if __name__ == "__main__":
    main()
