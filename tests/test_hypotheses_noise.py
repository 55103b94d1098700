"""The hypothesis tests under the seed-noise rule (issue 19; docs/reproductions.md,
"Hypothesis tests" and "Ties and stalled runs"): where the runs a ``reference``, ``rerun`` or
``arms`` test reads carry per-seed values (the claim's ``per_seed``), its predicate reads them
as the claim's own grading does, so an order within the seeds' noise (|d| <= resolution + h,
h the 95 % Student-t half-width of the per-seed differences) is neither a pass nor a failure:
a test whose outcome rests on such points cannot tell, and explains nothing. Each kind on
made-up numbers with exact values: within noise (the new outcome), beyond it, and one seed
(no half-width: the means decide, as before)."""

from __future__ import annotations

import pytest
from conftest import example_folder

pd = pytest.importorskip("pandas")

from aqmlab.reproduce import common as cm  # noqa: E402
from aqmlab.reproduce import hypotheses  # noqa: E402
from aqmlab.reproduce.hypotheses import NOISY  # noqa: E402

#: The 97.5 % quantile of Student's t with 2 degrees of freedom (3 seeds), in closed form:
#: t = (2p - 1)·√(2 / (4p(1 - p))); h = T2 · sd / √3.
T2 = 0.95 * (2 / (4 * 0.975 * 0.025)) ** 0.5


def _h(sd: float, n: int = 3) -> float:
    return T2 * sd / n**0.5


def test_half_width_constant():
    from scipy import stats

    assert stats.t.ppf(0.975, 2) == pytest.approx(T2, rel=1e-9)


def _graded(tmp_path, claims: str, numbers: dict):
    """The loader's steps on made-up numbers: the tests, the grading, the tests' rules."""
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(example_folder(tmp_path, claims)))
    ctx = Context(exp, "/nonexistent", False, [1, 2, 3], None, False, {}, {})
    ctx.numbers.update(numbers)
    ctx.tests = hypotheses.run(ctx, None)
    for c in exp.claims:
        ctx.claims[c.id] = grade(c, ctx, None)
    hypotheses.settle(ctx)
    return ctx, ctx.claims["x"]


CLAIM = """
[[claim]]
id = "x"
claim = "RED above tail drop"
source = "S"
kind = "range"
published = "RED > tail drop"
metric = "_m.{arm}"
per_seed = "_s.{arm}"
arms = ["RED", "tail drop"]
predicate = "a > b"
stalls = "made-up numbers: no run stalls"
why = "'above' read as strictly above"
counterfactual = "the arms swapped"
counterfactual_arms = ["tail drop", "RED"]
"""


def _seeds(**arms: dict[str, list[float]]) -> tuple[dict, dict]:
    """Per arm {point: per-seed values}: the means (``_m``) and the lists (``_s``)."""
    means = {a: {p: sum(v) / len(v) for p, v in pts.items()} for a, pts in arms.items()}
    return means, {a: dict(pts) for a, pts in arms.items()}


# test = "reference": the reference's per-seed values under REFERENCE + the claim's per_seed.

REFERENCE = (
    """
[hypothesis.setup]
hypothesis = "the set-up"
tested_by = "the reference on the same set-up"
test = "reference"
reference = "_ref"
reference_name = "ns-2.35"
"""
    + CLAIM
    + 'explanation = "setup"\n'
)

#: Ours fails at 8p beyond our seeds' noise (0.9 vs 0.95 on every seed: h = 0) and passes
#: at 10p.
OURS = dict(
    RED={"8p": [0.9] * 3, "10p": [0.8] * 3}, **{"tail drop": {"8p": [0.95] * 3, "10p": [0.7] * 3}}
)


def _reference(tmp_path, ref_red_8p: list[float], ref_td_8p: list[float]):
    m, s = _seeds(**OURS)
    rm, rs = _seeds(
        RED={"8p": ref_red_8p, "10p": [0.9] * len(ref_red_8p)},
        **{"tail drop": {"8p": ref_td_8p, "10p": [0.8] * len(ref_td_8p)}},
    )
    return _graded(tmp_path, REFERENCE, {"_m": m, "_s": s, "_ref": {"_m": rm, "_s": rs}})


def test_reference_within_its_seeds_noise_cannot_tell_and_explains_nothing(tmp_path):
    # ns-2.35 fails at 8p on its means (0.5 > 0.6 is false: before, the claim was explained),
    # but its per-seed differences -0.3, -0.1, +0.1 (sd 0.2) give h = 0.497 >= |d| = 0.1.
    ctx, c = _reference(tmp_path, [0.3, 0.5, 0.7], [0.6] * 3)
    assert c.verdict == cm.FAILS and c.failing == ["8p"]
    h = _h(0.2)
    assert h == pytest.approx(0.4969, abs=1e-4)
    n = cm.seeds_for(3, h, 0.1)
    assert n == 75  # ceil(3 · (0.4969 / 0.1)²) = ceil(74.07)
    want = f"8p: -0.1 ±{h:.3g}, 3 seeds, about {n} would decide"
    assert c.hypotheses[0]["outcome"] == (
        "true at 1 of 2 points on ns-2.35's runs; at 8p: cannot tell: within ns-2.35's seeds' "
        f"noise ({want})"
    )
    assert c.unexplained
    assert c.explanation.startswith(
        "unexplained (ns-2.35's runs cannot tell: within its seeds' noise at 8p)"
    )
    assert "the setup hypothesis's test (reference) cannot tell: within ns-2.35's seeds' " in c.note
    assert want in c.note
    # Neither true nor false for a module's text (report_text's test_true / test_false).
    assert hypotheses.is_noise(ctx.tests["x"][0].named["8p"])


def test_reference_beyond_its_seeds_noise_or_on_one_seed_still_explains(tmp_path):
    # The same means, the differences -0.11, -0.10, -0.09 (h = 0.0248 < 0.1): false at 8p.
    _, c = _reference(tmp_path, [0.49, 0.5, 0.51], [0.6] * 3)
    assert c.hypotheses[0]["outcome"] == "true at 1 of 2 points on ns-2.35's runs, false at 8p"
    assert not c.unexplained and c.explanation.startswith("hypothesis: the set-up")
    assert "cannot tell" not in c.note
    # One seed: no half-width, the means decide.
    _, c = _reference(tmp_path / "b", [0.5], [0.6])
    assert c.hypotheses[0]["outcome"] == "true at 1 of 2 points on ns-2.35's runs, false at 8p"
    assert not c.unexplained


# test = "arms" on numbers: the other arms' per-seed values under the claim's per_seed.

ARMS = (
    """
[hypothesis.settings]
hypothesis = "RED's settings"
tested_by = "RED set otherwise, beside the same tail drop"
test = "arms"
leaves = "no RED set otherwise passes everywhere"
[hypothesis.settings.compare.other]
arms = ["RED other", "tail drop"]
explains = true
numbers = { outcome = "tests.other" }
"""
    + CLAIM
    + 'explanation = "settings"\n'
)


def _arms(tmp_path, other_p: list[float], td_p: list[float]):
    """Ours fails at p beyond noise (1 > 3 on every seed); RED set otherwise at p."""
    k = len(td_p)
    m, s = _seeds(
        RED={"p": [1.0] * k, "r": [5.0] * k},
        **{"tail drop": {"p": td_p, "r": [4.0] * k}},
        **{"RED other": {"p": other_p, "r": [5.0] * k}},
    )
    return _graded(tmp_path, ARMS, {"_m": m, "_s": s})


def test_arms_within_our_seeds_noise_cannot_tell_and_explains_nothing(tmp_path):
    # RED set otherwise 3.5 > 3.0 on the means (before: confirmed, the claim explained); its
    # per-seed differences -0.5, +0.5, +1.5 (sd 1) give h = 2.48 >= d = 0.5.
    ctx, c = _arms(tmp_path, [2.5, 3.5, 4.5], [3.0] * 3)
    assert c.verdict == cm.FAILS and c.failing == ["p"]
    assert ctx.numbers["tests"]["other"] == NOISY
    h = _h(1.0)
    n = cm.seeds_for(3, h, 0.5)
    assert n == 75  # ceil(3 · (2.484 / 0.5)²) = ceil(74.05)
    want = f"p: +0.5 ±{h:.3g}, 3 seeds, about {n} would decide"
    assert c.hypotheses[0]["outcome"] == (f"p: 3.50 vs 3.00: {NOISY}; {NOISY} at p ({want})")
    assert c.unexplained
    assert c.explanation.startswith("unexplained (no RED set otherwise passes everywhere)")
    assert "the settings hypothesis's test (arms) cannot tell: within our seeds' noise at p" in (
        c.note
    )


def test_arms_beyond_our_seeds_noise_or_on_one_seed_still_confirms(tmp_path):
    # The same means, the differences +0.4, +0.5, +0.6 (h = 0.248 < 0.5): confirmed.
    ctx, c = _arms(tmp_path, [3.4, 3.5, 3.6], [3.0] * 3)
    assert ctx.numbers["tests"]["other"] == "confirmed" and not c.unexplained
    assert "cannot tell" not in c.note
    # One seed: no half-width, the means decide.
    ctx, c = _arms(tmp_path / "b", [3.5], [3.0])
    assert ctx.numbers["tests"]["other"] == "confirmed" and not c.unexplained


def test_arms_refutes_only_beyond_noise(tmp_path):
    # RED set otherwise 2.5 < 3.0 on the means: before, refuted; its per-seed differences
    # -1.5, -0.5, +0.5 (h = 2.48): within noise, neither refuted nor confirmed.
    ctx, _ = _arms(tmp_path, [1.5, 2.5, 3.5], [3.0] * 3)
    assert ctx.numbers["tests"]["other"] == NOISY
    ctx, _ = _arms(tmp_path / "b", [2.4, 2.5, 2.6], [3.0] * 3)
    assert ctx.numbers["tests"]["other"] == "refuted"


def test_outcome_rule_with_points_within_noise():
    o = hypotheses.outcome
    assert o(["p", "q"], ["p", "q"], ["p"], ["q"]) == NOISY
    assert o(["p"], ["p"], [], ["p"]) == NOISY
    # A point that truly fails beside one within noise: neither confirmed nor refuted.
    assert o(["p", "q"], ["p", "q"], [], ["q"]) == "unexplained"
    assert o(["p", "q"], ["p"], ["p"], []) == "unexplained"  # a run missing
    assert o(["p", "q"], ["p", "q"], [], []) == "refuted"
    assert o(["p", "q"], ["p", "q"], ["p", "q"], []) == "confirmed"


# test = "rerun" (static-rates' slow-buffer): the claim's per_seed (_grid_seeds) is computed
# again over the swapped runs, as its metric is.

W = "4 FTPs + web"
SLOW = "codel-delay-below-taildrop"


def _static_rates(seeds: list[int], codel_10ms: list[float], ours_10ms: list[float] | None = None):
    """static-rates' codel-delay-below-taildrop on made-up '4 FTPs + web' runs, each seed of
    ``seeds``: at 64 kb/s every discipline's median is 62.8 ms (a tie) but CoDel's at RTT
    100 ms, 66 ms (the claim truly fails there, so it does not hold rather than cannot
    discriminate), at 10 Mb/s CoDel's 5 ms against tail drop's 90. sweep-slow-buffer reruns 64 kb/s:
    tail drop at 400 ms, CoDel at ``codel_10ms`` (one per seed) at RTT 10 ms and 90 ms at
    RTT 100 ms; ``ours_10ms``: CoDel's own medians at 64 kb/s and RTT 10 ms, one per seed."""
    from aqmlab.reproduce import builtin_folder, builtin_module, rerun
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, declared_numbers, grade

    exp, mod = load(builtin_folder("static-rates")), builtin_module("static-rates")
    cols = ["load", "discipline", "rate_kbps", "rtt_ms", "seed", "p50_ms", "util"]

    def frame(rows):
        df = pd.DataFrame(rows, columns=cols)
        df[["rate_kbps", "rtt_ms"]] = df[["rate_kbps", "rtt_ms"]].astype(float)
        df["rate_mbps"] = df["rate_kbps"] / 1000
        return df

    qdiscs, rtts = ("tail drop", "RED", "CoDel"), (10, 100)
    grid = [
        (W, d, 64, t, s, 66.0 if (d, t) == ("CoDel", 100) else 62.8, 0.9)
        for d in qdiscs
        for t in rtts
        for s in seeds
    ]
    if ours_10ms:
        grid = [g for g in grid if (g[1], g[3]) != ("CoDel", 10)]
        grid += [(W, "CoDel", 64, 10, s, v, 0.9) for s, v in zip(seeds, ours_10ms)]
    grid += [
        (W, d, 10000, t, s, 5.0 if d == "CoDel" else 90.0, 0.9)
        for d in qdiscs
        for t in rtts
        for s in seeds
    ]
    slow = [(W, "tail drop", 64, t, s, 400.0, 0.9) for t in rtts for s in seeds]
    slow += [(W, "CoDel", 64, 10, s, v, 0.9) for s, v in zip(seeds, codel_10ms)]
    slow += [(W, "CoDel", 64, 100, s, 90.0, 0.9) for s in seeds]
    params = {"rates_kbps": [64, 10000], "rtts_ms": [10, 100, 500], "duration_s": 1.0}
    ctx = Context(exp, "/nonexistent", False, seeds, None, False, {}, params)
    ctx.frames = {"sweep-4FTPs_web": frame(grid), "sweep-slow-buffer": frame(slow)}
    declared_numbers(ctx)
    ctx.tests = hypotheses.run(ctx, mod)
    c = next(c for c in exp.claims if c.id == SLOW)
    ctx.claims[SLOW] = grade(c, ctx, mod)
    hypotheses.settle(ctx)
    return rerun.result(ctx, SLOW), ctx.claims[SLOW]


P10 = "0.064 Mb/s, RTT 10 ms"


def test_rerun_within_our_seeds_noise_cannot_tell_and_explains_nothing():
    # CoDel's rerun medians 350, 380, 460 ms against tail drop's 400: 380 < 400 on the
    # medians over seeds (before: passes, confirmed, the claim explained), the per-seed
    # differences -50, -20, +60 (sd 56.86, h = 141.3) >= |d| = 20.
    r, c = _static_rates([1, 2, 3], [350.0, 380.0, 460.0])
    assert c.verdict == cm.FAILS
    assert c.failing == [f"{P10} (tie)", "0.064 Mb/s, RTT 100 ms"]
    sd = pd.Series([-50.0, -20.0, 60.0]).std()
    h = _h(sd)
    assert h == pytest.approx(141.26, abs=0.01)
    n = cm.seeds_for(3, h, 20.0)
    assert n == 150  # ceil(3 · (141.26 / 20)²) = ceil(149.65)
    want = f"-20 ±{h:.3g}, 3 seeds, about {n} would decide"
    assert f"{P10}: 62.8 vs 62.8 → 380 vs 400 (within noise: {want})" in r.text
    assert r.text.endswith(f"passes at 1 of 2 failing points rerun: {NOISY}"), r.text
    assert not r.explains and c.unexplained
    assert f"{NOISY} with sweep-slow-buffer (8 packets): {P10}" in c.explanation
    assert (
        f"the slow-buffer hypothesis's test (rerun) cannot tell: within our seeds' noise at {P10}"
        in c.note
    )


def test_rerun_beyond_our_seeds_noise_or_on_one_seed_still_explains():
    # CoDel 200, 210, 220 ms: the differences -200, -190, -180 (h = 24.8 < 190): confirmed.
    r, c = _static_rates([1, 2, 3], [200.0, 210.0, 220.0])
    assert r.text.endswith("passes at 2 of 2 failing points rerun: confirmed"), r.text
    assert r.explains and not c.unexplained
    # One seed, CoDel 380 ms: no half-width, 380 < 400 passes as before.
    r, c = _static_rates([1], [380.0])
    assert r.text.endswith("passes at 2 of 2 failing points rerun: confirmed"), r.text
    assert r.explains and not c.unexplained


# test = "arms" on a [table] claim (red-vs-codel's delay-comparable, per_seed = "delay_mean"):
# the [table] read seed by seed, as the claim's own grading reads it.

RVC_POINT = "cubic, 45"


def _red_vs_codel(variant: list[float]):
    """red-vs-codel's delay-comparable at one cell on made-up runs, one per seed: RED 300 ms
    and CoDel 60 ms on every seed (not comparable: 300 > 2·60 + 5, beyond noise), tail drop
    far above, 'RED, 1 s w_q' at ``variant`` (one per seed). The settings test's outcome."""
    from aqmlab.reproduce import builtin_folder, reference_frames
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, declared_numbers, grade

    exp = load(builtin_folder("red-vs-codel"))
    k = len(variant)
    cells = {"RED": [300.0] * k, "CoDel": [60.0] * k, "tail drop": [5000.0] * k}
    cells["RED, 1 s w_q"] = variant
    runs = pd.DataFrame(
        [
            {"tcp": "cubic", "buffer": "45", "discipline": d, "seed": s + 1}
            | {"delay_mean": v, "bottleneck.sojourn_ms.mean": v, "util": 0.9}
            for d, vals in cells.items()
            for s, v in enumerate(vals)
        ]
    )
    by = ["tcp", "buffer", "discipline"]
    ctx = Context(exp, "/nonexistent", False, list(range(1, k + 1)), None, False, {}, {})
    ctx.params.update({"apps": 100, "duration_s": 200.0})
    cols = ["delay_mean", "bottleneck.sojourn_ms.mean", "util"]
    ctx.table = runs.groupby(by, sort=False)[cols].mean().reset_index()
    ctx.table_seeds = runs.groupby(by, sort=False)[cols].agg(list).reset_index()
    ctx.frames = reference_frames.frames(exp.frames, exp.derives, ctx.fill, {})
    ctx.frames["cell_means"] = ctx.table
    declared_numbers(ctx)
    ctx.tests = hypotheses.run(ctx, None)
    c = next(c for c in exp.claims if c.id == "delay-comparable")
    ctx.claims[c.id] = grade(c, ctx, None)
    hypotheses.settle(ctx)
    return ctx.numbers, ctx.claims[c.id]


def test_arms_on_a_table_claim_reads_the_table_seed_by_seed():
    # 'RED, 1 s w_q' 100, 120, 140 ms beside CoDel's 60: max ≤ 2·min + 5 reads 120 ≤ 125 on
    # the means (before: comparable, confirmed); the per-seed differences of the sides -25,
    # -5, +15 (sd 20, h = 49.7) >= |d| = 5: cannot tell.
    n, c = _red_vs_codel([100.0, 120.0, 140.0])
    assert c.failing == [RVC_POINT]
    assert n["settings_test"]["RED, 1 s w_q"] == NOISY
    h = _h(20.0)
    want = f"{RVC_POINT}: -5 ±{h:.3g}, 3 seeds, about {cm.seeds_for(3, h, 5.0)} would decide"
    assert n["_settings_test"]["RED, 1 s w_q"].endswith(f"{NOISY} at {RVC_POINT} ({want})")
    # Beyond noise (119, 120, 121: h = 2.48 < 5): comparable, confirmed; one seed: the same.
    n, _ = _red_vs_codel([119.0, 120.0, 121.0])
    assert n["settings_test"]["RED, 1 s w_q"] == "confirmed"
    n, _ = _red_vs_codel([120.0])
    assert n["settings_test"]["RED, 1 s w_q"] == "confirmed"


def test_rerun_leaves_a_point_ours_has_within_noise():
    # Ours at 64 kb/s, RTT 10 ms: CoDel 60, 63, 66 ms against tail drop's 62.8 (63 < 62.8 is
    # false on the medians, the differences -2.8, +0.2, +3.2 within h = 7.45): within noise,
    # no failure to explain, so the rerun is not asked to make it pass (before, it was
    # rerun: 2 failing points); the failure at RTT 100 ms is.
    r, c = _static_rates([1, 2, 3], [200.0, 210.0, 220.0], ours_10ms=[60.0, 63.0, 66.0])
    assert c.failing == [f"{P10} (within noise)", "0.064 Mb/s, RTT 100 ms"]
    assert r.text.endswith("passes at 1 of 1 failing point rerun: confirmed"), r.text
    assert P10 not in r.text and r.explains and not c.unexplained


def test_red_bursty_reference_reads_ns2_seeds_for_every_claim_it_tests():
    """red-bursty's reference tests (ns-2.35's runs, seeds 1-3) read ns-2.35's per-seed values
    under _ns2 in the shape of each tested claim's per_seed: its [numbers._ns2] gathers them,
    each from a declaration over ns-2.35's rows seed by seed."""
    from aqmlab.reproduce import builtin_folder
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import split_path

    exp = load(builtin_folder("red-bursty"))
    numbers = {n.name: n for n in exp.numbers}
    gathered = numbers["_ns2"].gather
    tested = [
        c for c in exp.claims if any(t is not None and t.kind == "reference" for t in c.tests)
    ]
    assert len(tested) >= 6
    for c in tested:
        assert c.per_seed, c.id  # every tested claim, the node-5 ratios' band too
        ours = split_path(c.per_seed)[0]
        assert ours in gathered, c.id
        theirs = numbers[gathered[ours]]
        assert theirs.sweeps and all("ns2" in s and s.endswith("_seeds") for s in theirs.sweeps)
