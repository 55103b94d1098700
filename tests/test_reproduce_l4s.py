"""aqmlab reproduce l4s-dualq (issue 22 item 7) in its quick form: every claim is graded on
DualPI2 and on its counterfactual, and fails there (one PIE queue, one tail-drop FIFO, Reno's
halving in the L queue); the queue-delay metric's base is the path's propagation and one
packet's transmission per link, exactly; a stalled run is no win."""

import json
import math
from pathlib import Path

import pytest
from aqmlab.reproduce import common as cm

CLAIMS = ["l-queue-median", "l-queue-p99", "l4s-no-loss", "full-utilization", "rate-balance-k2"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    from aqmlab.reproduce import reproduce

    out = tmp_path_factory.mktemp("l4s") / "l4s-dualq"
    reproduce("l4s-dualq", str(out), quick=True)
    return json.loads((out / "results.json").read_text()), out


def _claim(doc, cid):
    (c,) = [c for c in doc["claims"] if c.get("id") == cid]
    return c


def test_every_claim_is_graded_and_fails_on_its_counterfactual(quick):
    doc, _ = quick
    assert sorted(c["id"] for c in doc["claims"]) == sorted(CLAIMS)
    for cid in CLAIMS:
        c = _claim(doc, cid)
        assert c["kind"] == "range" and c["counterfactual"], c
        assert c["counterfactual_verdict"] == cm.FAILS, c
        # Every point of the range is evaluated: both RTT pairs at the quick run's rate (the
        # rate balance only at equal RTTs, as RFC 9332 states it).
        assert len(c["points"]) == (1 if cid == "rate-balance-k2" else 2), c["points"]


def test_dualpi2_gives_the_l4s_service(quick):
    # What the sources claim, on our DualPI2 at 40 Mb/s; the counterfactuals above fail.
    doc, _ = quick
    for cid in CLAIMS:
        assert _claim(doc, cid)["verdict"] == cm.HOLDS, _claim(doc, cid)


def test_the_trouble_cases_are_reported_as_findings(quick):
    doc, out = quick
    cells = {(r["aqm"], r["rtts"]): r for r in doc["numbers"]["cells"]}
    # Prague's queue in one classic queue or under FQ-CoDel is a classic queue's, tens of times
    # DualPI2's L queue.
    for case in ("PIE, ECN (one queue)", "tail drop (one FIFO)", "FQ-CoDel"):
        assert cells[(case, "equal")]["l_p50_ms"] > 10 * cells[("DualPI2", "equal")]["l_p50_ms"]
    # Prague's classic-ECN-AQM fallback brings its share in the one PIE queue toward CUBIC's.
    pie = cells[("PIE, ECN (one queue)", "equal")]["ratio"]
    fallback = cells[("PIE, ECN (one queue), Prague's fallback", "equal")]["ratio"]
    assert abs(math.log(fallback)) < abs(math.log(pie)), (fallback, pie)
    md = (out / "report.md").read_text()
    assert "findings, not verdicts" in md and "Prague's fallback" in md


def test_the_base_delay_is_propagation_and_one_transmission_per_link():
    """experiment.toml's [[derive]]s take each flow's base one-way delay off its quantiles: the
    propagation delays of its path and one 1500-B packet's transmission on each of its three
    links, as scenario.toml and the sweep's axes set them (a change to either that the derives
    do not follow fails here)."""
    import pandas as pd
    from aqmlab.reproduce import builtin_folder
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.metrics import derive
    from aqmlab.sweepspec import _toml_loads

    folder = builtin_folder("l4s-dualq")
    exp = load(folder)
    sc = _toml_loads((Path(folder) / "scenario.toml").read_text())
    d = sc["dumbbell"]
    axes = {a.keys[0]: a.cases for a in exp.sweeps[0].axes}
    assert d["access_rate"] == "1Gbps" and d["receiver_delay"] == "1ms"
    assert d["bottleneck"]["delay"] == "2ms"
    # 1500 B: 0.012 ms at 1 Gb/s (twice), 0.3 ms at 40 Mb/s, 0.1 ms at 120 Mb/s.
    tx = {"40Mbps": 0.3, "120Mbps": 0.1}
    rows, want = [], []
    for rate, rc in axes["rate_mbps"].items():
        for rtts, tc in axes["rtts"].items():
            senders = [float(x.removesuffix("ms")) for x in tc["dumbbell.sender_delay"]]
            fixed = 2.0 + 1.0 + 2 * 0.012 + tx[rc["dumbbell.bottleneck.rate"]]
            base = [s + fixed for s in senders]
            want.append(base)
            rows.append(
                {
                    "rate_mbps": rate,
                    "rtts": rtts,
                    "flows[0].one_way_delay_ms.p50": base[0] + 0.25,
                    "flows[0].one_way_delay_ms.p99": base[0] + 1.5,
                    "flows[1].one_way_delay_ms.p50": base[1] + 7.0,
                    "windows.after_warmup.links.bottleneck.utilization": 0.98,
                    "flows[0].data_pkts_lost": 0,
                    "flows[0].data_pkts_sent": 0,
                    "windows.after_warmup.flows[0].goodput_bps": 2e7,
                    "windows.after_warmup.flows[1].goodput_bps": 1e7,
                }
            )
    assert [b for w in want for b in w] == pytest.approx(
        [5.324, 5.324, 5.324, 25.324, 5.124, 5.124, 5.124, 25.124], abs=1e-12
    )
    df = derive(pd.DataFrame(rows), exp.derives, "sweep", lambda t: t)
    assert list(df["l_p50_ms"]) == pytest.approx([0.25] * 4, abs=1e-9)
    assert list(df["l_p99_ms"]) == pytest.approx([1.5] * 4, abs=1e-9)
    assert list(df["c_p50_ms"]) == pytest.approx([7.0] * 4, abs=1e-9)
    # No data packet sent: no loss rate (not 0); the ratio of the goodputs after the warm-up.
    assert df["l_loss"].isna().all() and list(df["ratio"]) == [2.0] * 4
    assert list(df["util"]) == [0.98] * 4


#: Per claim: its metric, a value that passes on DualPI2, and one its counterfactual gives.
_GOOD_BAD = {
    "l-queue-median": ("l_p50_ms", 0.17, 15.0),
    "l-queue-p99": ("l_p99_ms", 0.4, 50.0),
    "l4s-no-loss": ("l_loss", 0.0, 0.01),
    "full-utilization": ("util", 0.999, 0.5),
    "rate-balance-k2": ("ratio", 1.05, 5.6),
}


def _graded(cid, dual, other, util=0.99):
    """Claim ``cid`` graded on a two-point table: DualPI2 at ``dual``, every other arm at
    ``other``, every run's utilization ``util`` (DualPI2's first point's may differ)."""
    import pandas as pd
    from aqmlab.reproduce import builtin_folder
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(builtin_folder("l4s-dualq"))
    c = {x.id: x for x in exp.claims}[cid]
    metric = _GOOD_BAD[cid][0]
    rows = []
    for arm in (*c.arms, *c.counterfactual_arms):
        for rtts in ("equal", "unequal"):
            v = dual if arm == "DualPI2" else other
            u = util if (arm == "DualPI2" and rtts == "equal") else 0.99
            row = {"aqm": arm, "rate_mbps": "40", "rtts": rtts, "util": u, metric: v}
            if metric == "util":
                row["util"] = v if u == 0.99 else u
            rows.append(row)
    ctx = Context(exp, "/nonexistent", True, [1], None, False, {}, {})
    ctx.table = pd.DataFrame(rows)
    return grade(c, ctx, None)


@pytest.mark.parametrize("cid", CLAIMS)
def test_a_stalled_run_is_no_win(cid):
    """Each claim reads the generic `delivered` (the run's utilization), no private check: a
    run under 10 % of the link is a stalled point, no pass, whatever its value (a claim whose
    every other point passes, or whose only point is stalled, cannot discriminate: a stalled
    point is evidence for neither side); the same value on a live run passes, and the
    counterfactual's fails."""
    _, good, bad = _GOOD_BAD[cid]
    c = _graded(cid, good, bad)
    assert (c.verdict, c.counterfactual_verdict) == (cm.HOLDS, cm.FAILS), c
    c = _graded(cid, good, bad, util=0.05)
    assert c.failing[0].endswith("(stalled)") and c.points[0]["stalled"], c
    if cid == "rate-balance-k2":  # one point (equal RTTs), stalled: a claim of ties only
        assert c.verdict == cm.CANNOT and "every point is a tie" in c.note, c
    else:
        assert c.verdict == cm.CANNOT and c.points[1]["ok"], c
        assert "1 stalled (every arm's run delivered almost nothing): " in c.note, c


def test_the_predicates_bounds_are_the_stated_tolerances():
    from aqmlab.reproduce import builtin_folder
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.predicate import compile_predicate

    claims = {c.id: c for c in load(builtin_folder("l4s-dualq")).claims}
    for c in claims.values():
        assert c.delivered == "util" and not c.predicate.startswith("py:"), c.id

    def p(cid):
        return lambda v: compile_predicate(claims[cid].predicate, 1, cid)((v,)) is True

    # The bounds as claims.toml's notes state them.
    med = p("l-queue-median")
    assert med(0.05) and med(0.35) and not med(0.049) and not med(0.351)
    assert p("l-queue-p99")(1.999) and not p("l-queue-p99")(2.0)
    assert p("l4s-no-loss")(1e-4) and not p("l4s-no-loss")(1.1e-4)
    assert p("full-utilization")(0.95) and not p("full-utilization")(0.9499)
    bal = p("rate-balance-k2")
    assert bal(1.5) and bal(1 / 1.5) and not bal(1.51) and not bal(0.66)
