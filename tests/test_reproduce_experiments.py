"""The reproductions added for issue 19 items 4 and 6 (codel-target, mtu-low-rates,
lstf-reordering, consumer-edge-drops, concatenated-queues, cellular-uplink, red-traffic-check,
and red-bursty's claims on FJ93's Fig. 5 queue axis and Figs. 12 and 14), in their quick
form: every qualitative or range claim is also evaluated on its counterfactual, and the claims
built to discriminate fail there; every numeric claim's tolerance rejects the value of a
neighbouring cell (the claim fails when fed the counterfactual's number)."""

import json

import pytest
from aqmlab.reproduce import common as cm

NEW = [
    "codel-target",
    "mtu-low-rates",
    "lstf-reordering",
    "consumer-edge-drops",
    "concatenated-queues",
    "cellular-uplink",
    "red-traffic-check",
    "red-bursty",
]

#: (reproduction, claim id) whose counterfactual is the opposite case by construction (the arms
#: swapped, FIFO for LSTF's reordering, tail drop's full buffer for CoDel's delay): the
#: counterfactual must not hold, whatever our arms give.
DISCRIMINATING = [
    ("codel-target", "excellent-delay"),
    ("mtu-low-rates", "larger-mtu-more-delay"),
    ("mtu-low-rates", "effect-diminishes-ms"),
    ("lstf-reordering", "recoveries-without-loss"),
    ("lstf-reordering", "dupthresh-recovers-lstf"),
    ("lstf-reordering", "dupthresh-near-codel"),
    ("lstf-reordering", "rack-does-not-help"),
    ("concatenated-queues", "upstream-codel-no-help"),
    ("cellular-uplink", "codel-delay-below"),
    ("red-traffic-check", "bursty-idle-bins"),
    ("red-traffic-check", "bursty-variation"),
    ("red-bursty", "red-shorter-queue-same-throughput"),
    ("red-bursty", "red-higher-utilization-same-queue"),
    ("red-bursty", "red-higher-utilization-same-queue-small"),
    ("red-bursty", "red-shorter-queue-same-utilization"),
]

#: A numeric claim fed a neighbouring cell's value must differ: (reproduction, claim id, the
#: table row (column -> value) and column whose value is the counterfactual number).
NUMERIC_CF = [
    (
        "codel-target",
        "reno-no-standing-queue",
        {"case": "1 flow, target 50 ms", "rtt_ms": "100"},
        "util_pct",
    ),
    (
        "consumer-edge-drops",
        "drop-15-down-codel",
        {"point": "1.5 Mb/s, 25p", "discipline": "CoDel"},
        "all_down",
    ),
    (
        "consumer-edge-drops",
        "drop-512-up-taildrop",
        {"point": "512 kb/s, 25p", "discipline": "CoDel"},
        "all_up",
    ),
]


@pytest.fixture(scope="module")
def quick_new(tmp_path_factory):
    from aqmlab.reproduce import reproduce

    out = tmp_path_factory.mktemp("repro-new")
    docs = {}
    for name in NEW:
        reproduce(name, str(out / name), quick=True)
        docs[name] = json.loads((out / name / "results.json").read_text())
    return docs


def _claim(doc, cid):
    (c,) = [c for c in doc["claims"] if c.get("id") == cid]
    return c


@pytest.mark.parametrize("name", NEW)
def test_every_claim_is_graded_with_a_counterfactual(quick_new, name):
    doc = quick_new[name]
    assert doc["claims"], name
    for c in doc["claims"]:
        v = c["verdict"].split(":")[0]
        assert v in (*cm.VERDICTS, cm.NOT_GRADED), c
        if c["kind"] in ("qualitative", "range"):
            assert c["counterfactual"] and c["counterfactual_verdict"] in (cm.HOLDS, cm.FAILS), c
            # A claim true on its counterfactual is never reported as holding.
            if c["counterfactual_verdict"] == cm.HOLDS:
                assert v in (cm.CANNOT, cm.FAILS), c
        if c["kind"] == "numeric" and v == cm.DIFFERS:
            assert c["explanation"], c


@pytest.mark.parametrize("name,cid", DISCRIMINATING)
def test_claim_fails_on_its_counterfactual(quick_new, name, cid):
    c = _claim(quick_new[name], cid)
    assert c["counterfactual_verdict"] == cm.FAILS, c


@pytest.mark.parametrize("name,cid,row,col", NUMERIC_CF)
def test_numeric_claim_fails_on_a_neighbouring_cell(quick_new, name, cid, row, col):
    doc = quick_new[name]
    c = _claim(doc, cid)
    cells = doc["numbers"]["cells"]
    (r,) = [r for r in cells if all(r[k] == v for k, v in row.items())]
    own = cm.numeric(c["claim"], c["source"], c["metric"], c["published"], float(c["ours"]))
    cf = cm.numeric(c["claim"], c["source"], c["metric"], c["published"], float(r[col]))
    assert cf.verdict == cm.DIFFERS, (cf.ours, c["published"])
    # The same tolerance (without our seeds' spread) on our own value, for the record.
    assert own.verdict in (cm.AGREES, cm.DIFFERS)


def test_lstf_reordering_counts_recoveries_and_losses(quick_new):
    """The table's counts are the bulk flows' sums, and LSTF-CoDel recovers more often per lost
    segment than CoDel with the default DupThresh (the hypothesis' first observation)."""
    cells = {r["case"]: r for r in quick_new["lstf-reordering"]["numbers"]["cells"]}
    lstf, codel = cells["LSTF-CoDel, DupThresh 3"], cells["CoDel, DupThresh 3"]
    for r in (lstf, codel):
        assert r["lost"] > 0 and r["fr"] > 0
        assert r["fr_per_loss"] == pytest.approx(r["fr"] / r["lost"])
    assert lstf["fr_per_loss"] > 3 * codel["fr_per_loss"]


def test_red_traffic_check_rate_is_window_over_rtt(quick_new):
    """The window-limited sender carries 8 packets per RTT: 8 x 8,000 bits over 36 ms plus two
    1000-B packet times at 45 Mb/s (0.178 ms each) and two 40-B ACK times, exactly; the claim
    agrees, and fed the counterfactual's rate (window 240, the whole link) it differs."""
    doc = quick_new["red-traffic-check"]
    t = doc["numbers"]["traffic"]
    rtt = 0.036 + 2 * 8000 / 45e6 + 2 * 320 / 45e6
    assert t["w8"]["rate_mbps"] == pytest.approx(64000 / rtt / 1e6, rel=2e-3)
    c = _claim(doc, "window-limited-rate")
    assert c["verdict"] == cm.AGREES, c
    cf = cm.numeric(c["claim"], c["source"], c["metric"], c["published"], t["w240"]["rate_mbps"])
    assert cf.verdict == cm.DIFFERS
    assert t["w240"]["share_of_link_pct"] > 99


def test_red_bursty_ties_at_full_rate_are_not_wins(quick_new):
    """Figs. 12 and 14 "at every buffer": where tail drop and RED both run the link at its full
    rate the comparison is a tie, listed as failing, never counted as RED's win; ns-2.35's runs
    of the same set-up fail the same points."""
    doc = quick_new["red-bursty"]
    c = _claim(doc, "red-higher-utilization-same-queue")
    part2 = {r["point"]: r for r in doc["numbers"]["part2"]}
    for p in c["points"]:
        name = p["point"].split(" (")[0]
        if name in part2 and part2[name]["utilization"] > 0.9999 and "22p" in name:
            assert not p["ok"], p
    ns2 = {r["point"]: r for r in doc["numbers"]["part2_ns2"]}
    assert ns2["tail drop 22p"]["drops"] == 0 and ns2["RED min_th 14"]["drops"] == 0


def test_red_bursty_matched_interpolates_and_marks_stalled_runs():
    """matched.points (red-bursty's [numbers._fig56] and the like): the other arm interpolated
    at each run's x inside its live range, with both arms' utilizations; a stalled run is
    itself on both arms, so that the common rule (every arm under the stalled fraction) makes
    it a tie, no pass; a tie of live runs is none either."""
    import pandas as pd
    from aqmlab.reproduce.matched import load, points

    a = pd.DataFrame({"point": ["a1", "a2"], "avg_queue": [2.0, 6.0], "throughput": [0.5, 0.9]})
    b = pd.DataFrame(
        {"point": ["b1", "b2", "b3"], "avg_queue": [4.0, 9.0, 1.0], "throughput": [0.6, 0.95, 0.05]}
    )
    from aqmlab.reproduce.loader import _Point, _unless_stalled
    from aqmlab.reproduce.predicate import compile_predicate

    def passes(predicate, pts):
        """The claims' rule, as a reference test applies it (a tie, or a point whose runs
        are both stalled, is no pass)."""
        pred = _unless_stalled(compile_predicate(predicate, 2, "test"))
        return {p: pred(_Point(v[:2], v[2:])) is True for p, v in pts.items()}

    def matched(x="avg_queue", y="throughput"):
        doc = {"column": "kind", "curves": ["a", "b"], "x": x, "y": y, "at": "queues"}
        doc |= {"delivered": "throughput", "x_name": "queue" if x == "avg_queue" else x}
        return points(load("test", doc), a, b)

    pts = matched()
    assert pts["b1 (queue 4.00)"] == pytest.approx((0.7, 0.6, 0.7, 0.6))
    assert "b2" not in " ".join(pts)  # outside a's queues: not compared
    assert pts["b3"] == (0.05, 0.05, 0.05, 0.05)
    assert passes("a > b", pts) == {"b1 (queue 4.00)": True, "b3": False}
    q = matched(x="throughput", y="avg_queue")
    assert q["b3"] == (1.0, 1.0, 0.05, 0.05) and passes("a < b", q)["b3"] is False
    # A stalled run is no pass even where its values would win.
    assert passes("a > b", {"s": (0.06, 0.05, 0.06, 0.05)}) == {"s": False}
    assert passes("a > b", {"t": (0.8, 0.8, 0.8, 0.8)}) == {"t": False}
    assert passes("a > b", {"w": (0.8, 0.7, 0.8, 0.7)}) == {"w": True}
