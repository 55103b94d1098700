"""codel-dynamic's ns-2.35 comparison as declared data (experiment.toml: numbers._phase_ratio,
the two ns-2.35 [[report_table]]s and the [[discussion]] paragraphs): both branches of "which of
the control's and RED's ratios is further from 1", the phase-by-phase ratios with a phase
ns-2.35 has no median for left out, and the full run's 50-s phases in the headers, on a
constructed run (a quick run prints one branch and 10-s phases only)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

TD, RED, ARED = "tail drop 830p", "RED (ns-2.35 defaults)", "Adaptive RED (ns-2.35 defaults)"

#: Per ns-2 discipline: ns-2.35's phase medians, ours (PackMime), and the medians' ratio.
PHASES = {
    TD: ([90.0, 800.0, 5000.0, 100.0, 5000.0, 30.0], [75.0, 720.0, 5000.0, 150.0, 5000.0, 30.0]),
    RED: ([6.0, 150.0, 0.0, 2.0, 2400.0, 0.25], [0.12, 67.0, 1500.0, 2.5, 3000.0, 0.25]),
    ARED: ([5.0, 100.0, 1000.0, 1.5, 3000.0, 0.5], [1.0, 300.0, 1500.0, 3.0, 3000.0, 0.5]),
}
RATIO = {TD: 1.1, RED: 0.95, ARED: 1.25}  # RED's |log| under tail drop's, ARED's over it


def _ns2(case: str) -> dict:
    n, o = PHASES[case]
    return {
        "ns2": {
            "seeds": [1, 2, 3],
            "p50_ms": 60.0,
            "p50_seeds": [50.0, 60.0, 72.5],
            "p75_ms": 99.0,
            "mb": 320.0,
            "drops": 1000.0,
            "phase_p50_ms": n,
            "phase_drops": [900.0, 50.0, 20.0, 10.0, 20.0, 0.0],
        },
        "ours_packmime": {"p50_ms": 66.0, "p75_ms": 97.5, "mb": 316.0, "drops": 50.0,
                          "phase_p50_ms": o},
        "ours_standin": {"p50_ms": 38.0, "p75_ms": 70.0, "mb": 317.0, "drops": 48.0},
        "ratio_packmime": RATIO[case],
        "ratio_standin": 0.625,
        "ratio_mb_packmime": 0.9875,
    }  # fmt: skip


@pytest.fixture(scope="module")
def run():
    from aqmlab.reproduce import builtin_folder, metrics
    from aqmlab.reproduce.discussion import Paragraph
    from aqmlab.reproduce.folder import load

    exp = load(builtin_folder("codel-dynamic"))
    ns2 = {c: _ns2(c) for c in (TD, RED, ARED)}
    numbers = {
        "ns2": ns2,
        "_packmime_phases": {c: PHASES[c][1] for c in ns2},
        "_ns2_phases": {c: {"phase_p50_ms": PHASES[c][0]} for c in ns2},
    }
    (nd,) = [n for n in exp.numbers if n.name == "_phase_ratio"]
    numbers["_phase_ratio"] = metrics.compute(nd, {}, lambda t: t, numbers)
    params = {"phase_s": 50}
    ctx = SimpleNamespace(
        experiment=exp, numbers=numbers, params=params, claims={}, tests={}, quick=False,
        seeds=[1, 2, 3], out="/o", table=None, frames={}, fill=lambda t: t.format(**params),
        value=lambda v: v,
    )  # fmt: skip
    paragraphs = [
        p
        for p in exp.discussion
        if isinstance(p, Paragraph) and p.text.startswith(("{case} against ns-2.35", "ns-2.35 "))
    ]
    tables = [t for t in exp.report_tables if "ns-2.35" in t.title]
    return SimpleNamespace(ctx=ctx, exp=exp, paragraphs=paragraphs, tables=tables)


def test_the_phase_ratios_leave_out_a_phase_without_a_reference_median(run):
    got = run.ctx.numbers["_phase_ratio"]
    assert got[TD] == [720 / 800, 1.0, 1.5, 1.0, 1.0]  # phases 2-6
    assert got[RED] == [67 / 150, 2.5 / 2, 3000 / 2400, 1.0]  # phase 3: ns-2.35's median is 0


def test_the_ns2_paragraphs_say_which_ratio_is_further_from_1(run):
    from aqmlab.reproduce.discussion import paragraphs

    red, ared, drops = paragraphs(run.paragraphs, run.ctx)
    head = (
        " against ns-2.35's on the same link (tests/fidelity/ns2/codel_dynamic.py: "
        "PackMime-HTTP/1.1 web in both, ns-2.35's seeds 1, 2, 3): median 66.0 ms against 60.0 "
        "(ns-2.35's seeds 50.0-72.5), ours ÷ ns-2.35's {r}; with our stand-in web load 0.625. MB "
        "sent: 316 against 320, ours ÷ ns-2.35's 0.988 (tail drop 0.988). Tail drop, the "
        "control, gives 1.10 (66.0 against 60.0 ms): its ratio is {verdict}. Phase by phase "
        "after the first, ours ÷ ns-2.35's median is {span} (0.900-1.50 for tail drop). Not "
        "graded: no tolerance has a basis here (the two TCPs differ, below)."
    )
    no_further = (
        "no further from ns-2.35's than the control's: where the two differ, the traffic "
        "differs, not RED"
    )
    assert red == RED + head.format(r="0.950", verdict=no_further, span="0.447-1.25")
    further = "further from 1 than the control's"
    assert ared == ARED + head.format(r="1.25", verdict=further, span="1.00-3.00")
    assert drops.startswith(
        "ns-2.35 drops 20.0 times as many packets as ours under tail drop (90.0 % of them in the "
        "first phase): its Agent/TCP/Linux CUBIC flows"
    )


def test_the_ns2_tables_three_rows_per_discipline_and_the_full_runs_phases(run):
    from aqmlab.reproduce import report_table

    whole, phases = report_table.build(run.tables, run.ctx)
    assert whole.title.endswith("ns-2.35's means over seeds 1, 2, 3, ours over ours)")
    assert whole.rows[3:6] == [
        [RED, "ns-2.35", 60.0, 99.0, 320.0, 1000.0, "1"],
        [RED, "ours, PackMime", 66.0, 97.5, 316.0, 50.0, "0.950"],
        [RED, "ours, stand-in", 38.0, 70.0, 317.0, 48.0, "0.625"],
    ]
    assert [r[:2] for r in whole.rows[::3]] == [
        [TD, "ns-2.35"],
        [RED, "ns-2.35"],
        [ARED, "ns-2.35"],
    ]
    assert phases.header == [
        "discipline", "simulator", "100 Mb/s, 0-50 s", "10 Mb/s, 50-100 s", "1 Mb/s, 100-150 s",
        "50 Mb/s, 150-200 s", "1 Mb/s, 200-250 s", "100 Mb/s, 250-300 s",
    ]  # fmt: skip
    assert phases.rows[3:6] == [
        [RED, "ns-2.35", *PHASES[RED][0]],
        [RED, "ours, PackMime", *PHASES[RED][1]],
        [RED, "ns-2.35 drops", 900.0, 50.0, 20.0, 10.0, 20.0, 0.0],
    ]
