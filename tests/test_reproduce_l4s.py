"""aqmlab reproduce l4s-dualq (issue 22 item 7) in its quick form: every claim is graded on
DualPI2 and on its counterfactual, and fails there (one PIE queue, one tail-drop FIFO, Reno's
halving in the L queue); the queue-delay metric's base is the path's propagation and one
packet's transmission per link, exactly; a stalled run is no win."""

import json
import math

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
    from aqmlab.reproduce import builtin_module

    m = builtin_module("l4s-dualq")
    sc = {
        "dumbbell": {
            "access_rate": "1Gbps",
            "receiver_delay": "1ms",
            "bottleneck": {"delay": "2ms"},
        }
    }
    # 1500 B: 0.012 ms at 1 Gb/s (twice), 0.3 ms at 40 Mb/s, 0.1 ms at 120 Mb/s.
    assert m._base_owd_ms(sc, ["2ms", "22ms"], "40Mbps") == pytest.approx(
        [5.324, 25.324], abs=1e-12
    )
    assert m._base_owd_ms(sc, ["2ms"], "120Mbps") == pytest.approx([5.124], abs=1e-12)


def test_a_stalled_run_is_no_win():
    from aqmlab.reproduce import builtin_module

    m = builtin_module("l4s-dualq")
    for pred in (m.around_100_300_us, m.below_2_ms, m.near_zero_loss, m.close_to_full):
        assert pred((math.nan,)) == cm.STALLED
    assert m.about_equal((math.nan,)) == cm.STALLED
    # The bounds as claims.toml states them.
    assert m.around_100_300_us((0.05,)) and m.around_100_300_us((0.35,))
    assert not m.around_100_300_us((0.049,)) and not m.around_100_300_us((0.351,))
    assert m.below_2_ms((1.999,)) and not m.below_2_ms((2.0,))
    assert m.near_zero_loss((1e-4,)) and not m.near_zero_loss((1.1e-4,))
    assert m.about_equal((1.5,)) and m.about_equal((1 / 1.5,)) and not m.about_equal((1.51,))
