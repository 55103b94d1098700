"""cellular's claims as data (its folder's claims.toml and experiment.toml) on runs made up
here: the web-load hypotheses of its qualitative claims (test = "rerun": another load's runs
in place of CS244's pages', docs/reproductions.md "Hypothesis tests") and the note of a run on
another trace (a claim's ``note = { text, when }``)."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")

from aqmlab.reproduce import builtin_folder, builtin_module, hypotheses  # noqa: E402
from aqmlab.reproduce.folder import load  # noqa: E402
from aqmlab.reproduce.loader import Context, declared_numbers, grade  # noqa: E402

EXP = load(builtin_folder("cellular"))
MOD = builtin_module("cellular")
CASES = ("tail drop", "CoDel", "FQ-CoDel", "PIE")
SWEEPS = {
    "sweep-stand-in-web": "stand-in web",
    "sweep-packmime-web": "PackMime web",
    "sweep-cs244-pages": "CS244 pages",
}
CAP = 20e6  # bytes the trace can carry in the run


def runs(load: str, p50: dict[str, float], mb: dict[str, float]) -> object:
    """One seed of a web load's runs: each discipline's median sojourn (ms) and MB delivered
    (every other metric the same)."""
    return pd.DataFrame(
        [
            {
                "case": c,
                "seed": 1,
                "load": load,
                "bottleneck.sojourn_ms.p50": p50.get(c, 10.0),
                "bottleneck.sojourn_ms.p75": 20.0,
                "bottleneck.sojourn_ms.p95": 30.0,
                "bottleneck.dropped_pkts": 100,
                "bottleneck.delivered_bytes": mb.get(c, 15.0) * 1e6,
                "total.goodput_bps": 4e6,
                "cap_bytes": CAP,  # experiment.toml's [[derive]]: delivered ÷ utilization
                # experiment.toml's [[derive]] for the claims' per_seed: % of what it could carry
                "pct_of_capacity": 100.0 * mb.get(c, 15.0) * 1e6 / CAP,
            }
            for c in CASES
        ]
    )


def graded(loads: dict[str, tuple[dict, dict]], verizon: bool = True) -> dict:
    """cellular's claims graded on one seed per load (sweep -> (p50 by case, MB by case)),
    its hypothesis tests run and settled."""
    params = {
        "duration_s": 30.0,
        "trace_label": "Verizon-LTE-short.down (mahimahi)" if verizon else "flat.down",
    }
    ctx = Context(EXP, "/nonexistent", True, [1], None, False, {}, params)
    ctx.frames = {s: runs(SWEEPS[s], *v) for s, v in loads.items()}
    declared_numbers(ctx)
    ctx.tests = hypotheses.run(ctx, MOD)
    for c in EXP.claims:
        ctx.claims[c.id] = grade(c, ctx, MOD)
    hypotheses.settle(ctx)
    return ctx.claims


MEDIAN = "codel-median-below-taildrop"
BUSIER = "taildrop-busier"
#: CS244's pages: CoDel's median above tail drop's, CoDel carrying more (both claims fail).
PAGES = ({"tail drop": 50.0, "CoDel": 60.0}, {"tail drop": 19.0, "CoDel": 19.5})
#: A load where both claims hold, and one where neither does.
HOLDS = ({"tail drop": 900.0, "CoDel": 15.0}, {"tail drop": 19.9, "CoDel": 16.0})
FAILS = ({"tail drop": 40.0, "CoDel": 70.0}, {"tail drop": 17.0, "CoDel": 18.0})


def test_numbers_per_load_and_the_extra_bytes():
    claims = graded(
        {"sweep-stand-in-web": HOLDS, "sweep-packmime-web": FAILS, "sweep-cs244-pages": PAGES}
    )
    c = claims["taildrop-extra-bytes"]
    # tail drop ÷ CoDel − 1 on CS244's pages: 19 / 19.5 - 1.
    assert c.ours == f"{19 / 19.5 - 1:.3}"
    assert c.verdict == "differs" and c.unexplained
    assert c.hypotheses[0]["outcome"] == (
        "tail drop's extra bytes per load: stand-in web +24.4 %, PackMime web -5.6 %, "
        "CS244 pages -2.6 %"
    )


@pytest.mark.parametrize(("taildrop_mb", "verdict"), [(11.34, "agrees"), (11.36, "differs")])
def test_around_12_percent_is_read_as_cellular_uplink_reads_it(taildrop_mb, verdict):
    """CS244's 'around 12% more': ±1 point read off on top of the printed digits, as
    cellular-uplink's claims on the same sentence read it (±1.5 points in all: 13.4 % agrees,
    13.6 % does not)."""
    uplink = load(builtin_folder("cellular-uplink")).claims[0]
    pages = (PAGES[0], {"tail drop": taildrop_mb, "CoDel": 10.0})
    loads = {"sweep-stand-in-web": HOLDS, "sweep-packmime-web": FAILS, "sweep-cs244-pages": pages}
    c = graded(loads)["taildrop-extra-bytes"]
    assert c.verdict == verdict, c.tolerance
    assert c.why.split("; ")[0] == uplink.why == "'around 12%': read as ±1 point"
    assert "read-off ±0.01" in c.tolerance and uplink.read_off == 1.0


def test_a_qualitative_claim_is_explained_by_a_load_that_makes_it_true():
    claims = graded(
        {"sweep-stand-in-web": HOLDS, "sweep-packmime-web": FAILS, "sweep-cs244-pages": PAGES}
    )
    for cid in (MEDIAN, BUSIER):
        c = claims[cid]
        assert c.verdict == "does not hold" and not c.unexplained, (cid, c.explanation)
        stand_in, packmime = (h["outcome"] for h in c.hypotheses)
        assert stand_in.endswith("passes at 1 of 1 failing point rerun: confirmed"), stand_in
        assert packmime.endswith("passes at 0 of 1 failing point rerun: refuted"), packmime
    m = claims[MEDIAN].hypotheses[0]["outcome"]
    assert "ours: 60.0 vs 50.0 ms → 15.0 vs 900 ms" in m, m
    b = claims[BUSIER].hypotheses[0]["outcome"]
    assert "ours: 95.0 % vs 97.5 % → 99.5 % vs 80.0 %" in b, b


def test_a_qualitative_claim_no_load_makes_true_stays_unexplained():
    claims = graded(
        {"sweep-stand-in-web": FAILS, "sweep-packmime-web": FAILS, "sweep-cs244-pages": PAGES}
    )
    for cid in (MEDIAN, BUSIER):
        c = claims[cid]
        assert c.verdict == "does not hold" and c.unexplained, cid
        left = "still failing with sweep-stand-in-web; still failing with sweep-packmime-web"
        assert c.explanation.startswith(f"unexplained ({left}); hypothesis"), c.explanation


def test_a_run_on_another_trace_is_noted_on_the_numeric_claim_only():
    loads = {"sweep-stand-in-web": HOLDS, "sweep-packmime-web": HOLDS, "sweep-cs244-pages": HOLDS}
    other = graded(loads, verizon=False)
    assert other["taildrop-extra-bytes"].note == "run on flat.down, not the Verizon trace"
    # The orders, held on one seed, say only that (test_an_order_decided_where_...).
    assert all(other[cid].note == "seed noise not assessed: one seed" for cid in (MEDIAN, BUSIER))
    assert not other["wifi-9-6"].note
    assert not graded(loads)["taildrop-extra-bytes"].note


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1\nx\n3\n", "line 2: expected a delivery time in whole ms, got 'x'"),
        ("\n", "expected delivery times in ms ending after 0"),
        ("0\n0\n", "expected delivery times in ms ending after 0"),
    ],
)
def test_a_trace_that_is_not_one_is_one_line_and_nothing_written(tmp_path, text, message):
    from conftest import run_cli

    trace = tmp_path / "bad.down"
    trace.write_text(text)
    out = tmp_path / "out"
    r = run_cli("reproduce", "cellular", "--quick", "--trace", str(trace), "--out", str(out))
    assert r.returncode == 2 and r.stderr.strip() == f"aqmlab: error: --trace {trace}: {message}"
    assert not out.exists()


def graded_seeds(mb: list[dict[str, float]], deterministic: bool = False) -> dict:
    """cellular's claims on seeds 1..len(mb) of every load, seed k's MB by case ``mb[k-1]``
    (each discipline's median sojourn the same on every seed: HOLDS')."""
    from dataclasses import replace

    params = {"duration_s": 30.0, "trace_label": "Verizon-LTE-short.down (mahimahi)"}
    seeds = list(range(1, len(mb) + 1))
    exp = replace(EXP, deterministic=deterministic)
    ctx = Context(exp, "/nonexistent", False, seeds, None, False, {}, params)
    ctx.frames = {
        s: pd.concat([runs(load, HOLDS[0], m).assign(seed=k) for k, m in zip(seeds, mb)])
        for s, load in SWEEPS.items()
    }
    declared_numbers(ctx)
    ctx.tests = hypotheses.run(ctx, MOD)
    for c in exp.claims:
        ctx.claims[c.id] = grade(c, ctx, MOD)
    return ctx.claims


#: A load where tail drop is busier than CoDel (MB).
BUSY = {"tail drop": 19.9, "CoDel": 16.0}


def test_an_order_decided_on_one_seed_says_its_noise_was_not_assessed():
    """Issue 19: a holds / does not hold on an order between arms decided from one seed says
    "seed noise not assessed" (quick red-bursty's red-node5-larger-share, 3.10 against 1.01
    %, was a bare holds)."""
    one = graded_seeds([BUSY])
    assert one[BUSIER].verdict == "holds"
    assert one[BUSIER].note == "seed noise not assessed: one seed"
    # A does not hold on one seed too (CoDel busier: 19.5 against 19.0 MB).
    fails = graded_seeds([{"tail drop": 19.0, "CoDel": 19.5}])[BUSIER]
    assert fails.verdict == "does not hold" and fails.note == "seed noise not assessed: one seed"
    # A number carries no such clause.
    assert "seed noise" not in one["taildrop-extra-bytes"].note


def test_an_order_decided_on_identical_seeds_says_its_noise_was_not_assessed():
    """Seeds whose values are identical (cellular's main load draws nothing: full cellular's
    taildrop-busier, 99.3 against 98.8 %, was a bare holds) are one run repeated."""
    same = graded_seeds([BUSY] * 3)
    assert same[BUSIER].verdict == "holds"
    assert same[BUSIER].note == "seed noise not assessed: seeds 1-3 identical"


def test_an_order_decided_on_seeds_that_differ_says_nothing():
    """Three seeds whose shares differ, the order clear of their noise: assessed, nothing to
    say; the medians, the same on every seed, were never measured against any scatter."""
    seeds = graded_seeds([BUSY, {"tail drop": 19.8, "CoDel": 16.1}, {"tail drop": 19.95}])
    assert (seeds[BUSIER].verdict, seeds[BUSIER].note) == ("holds", "")
    assert seeds[MEDIAN].note == "seed noise not assessed: seeds 1-3 identical"


def test_a_deterministic_reproductions_order_says_nothing_of_seeds():
    """A deterministic reproduction draws nothing: no noise to assess, nothing said."""
    det = graded_seeds([BUSY], deterministic=True)
    assert (det[BUSIER].verdict, det[BUSIER].note, det[MEDIAN].note) == ("holds", "", "")
