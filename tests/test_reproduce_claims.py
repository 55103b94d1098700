"""The reproductions' claim model (aqmlab.reproduce.common): every kind of claim fails on its
counterfactual, tolerances come from the printed digits, ties of stalled runs are no wins, and
numbers print with the digits a comparison needs."""

import math

import pytest
from aqmlab.reproduce import common as cm
from aqmlab.reproduce import style


def test_printed_precision_is_half_a_unit_in_the_last_digit():
    assert cm.printed_precision("2.7") == (pytest.approx(0.05), 2)
    assert cm.printed_precision("97") == (pytest.approx(0.5), 2)
    assert cm.printed_precision("0.03532900") == (pytest.approx(5e-9), 7)
    assert cm.printed_precision("7593.77") == (pytest.approx(0.005), 6)
    assert cm.printed_precision("1.5e3") == (pytest.approx(50.0), 2)


def test_numeric_agrees_within_the_printed_digit_and_differs_beyond():
    ok = cm.numeric("m", "src", "metric", "2.7", 2.74)
    assert ok.verdict == cm.AGREES and ok.explanation == ""
    assert "printed as 2.7" in ok.tolerance and "one seed" in ok.tolerance
    # Three seeds and no declared spread (cellular's byte advantage): not "one seed".
    three = cm.numeric("m", "src", "metric", "2.7", 2.74, seeds=3).tolerance
    assert three.endswith("no CI over our 3 seeds (the claim declares no spread)"), three
    # The counterfactual of a number: any value outside half a unit of its last digit.
    bad = cm.numeric("m", "src", "metric", "2.7", 2.76)
    assert bad.verdict == cm.DIFFERS
    # A differs without a hypothesis says so.
    assert bad.explanation == cm.UNEXPLAINED
    # A read-off error widens the source's allowance, and says so.
    wide = cm.numeric("m", "src", "metric", "2.7", 2.76, read_off=0.1, why="read off Fig. 1")
    assert wide.verdict == cm.AGREES and "read-off" in wide.tolerance
    assert wide.why == "read off Fig. 1"
    spread = cm.seed_spread([1.0, 1.2, 1.1])
    assert spread == pytest.approx(4.303 * 0.1 / math.sqrt(3), rel=1e-3)
    assert cm.numeric("m", "s", "x", "1.0", 1.2).verdict == cm.DIFFERS
    assert cm.numeric("m", "s", "x", "1.0", None).verdict.startswith(cm.NOT_GRADED)


def test_our_seeds_interval_never_makes_a_number_agree():
    """Issue 19 ("verdicts that can fail"): agrees only within the source's own allowance
    (printed digits + read-off); outside it but within it plus our seeds' 95 % interval,
    cannot discriminate; outside both, differs. The old rule (allowance + interval, agrees)
    said "agrees" in the middle band."""
    spread = cm.seed_spread([1.0, 1.2, 1.1])  # ±0.248 over 3 seeds
    # 1.2 against "1.0" (±0.05): 0.2 is outside the allowance, inside ±0.05 + 0.248. The old
    # rule's tolerance 0.298 passed it.
    mid = cm.numeric("m", "s", "x", "1.0", 1.2, spread=spread, seeds=3)
    assert 0.05 < 0.2 <= 0.05 + spread
    assert mid.verdict == cm.CANNOT and mid.explanation == ""
    assert "±0.05" in mid.tolerance and "seeds' 95 % CI ±0.25" in mid.tolerance
    assert "allowance ±0.05" in mid.note and "interval ±0.25 (3 seeds)" in mid.note
    # Counterfactual either way: within the allowance it agrees with or without the seeds'
    # interval, outside the allowance plus interval it differs with or without it.
    for s in (None, spread):
        n = 3 if s else None
        assert cm.numeric("m", "s", "x", "1.0", 1.04, spread=s, seeds=n).verdict == cm.AGREES
        assert cm.numeric("m", "s", "x", "1.0", 0.96, spread=s, seeds=n).verdict == cm.AGREES
        assert cm.numeric("m", "s", "x", "1.0", 1.31, spread=s, seeds=n).verdict == cm.DIFFERS
        assert cm.numeric("m", "s", "x", "1.0", 0.69, spread=s, seeds=n).verdict == cm.DIFFERS
    # The middle band on both sides, read-off counted as the source's.
    assert cm.numeric("m", "s", "x", "1.0", 0.8, spread=spread, seeds=3).verdict == cm.CANNOT
    ro = cm.numeric("m", "s", "x", "1.0", 1.2, read_off=0.2, spread=spread, seeds=3)
    assert ro.verdict == cm.AGREES
    # A spread needs its seed count (the estimate is over it).
    with pytest.raises(ValueError, match="number of seeds"):
        cm.numeric("m", "s", "x", "1.0", 1.2, spread=spread)


def test_the_seed_count_estimate_is_n_times_the_squared_ratio_rounded_up():
    # codel-dynamic's p75 as the last full run had it: 3.94 against "5" (±0.5) with ±1.1 over
    # 3 seeds. By hand: 3 × (1.1 / 0.5)² = 14.52 → 15 to bring the interval under ±0.5;
    # |3.94 − 5| − 0.5 = 0.56 from the allowance's edge: 3 × (1.1 / 0.56)² = 11.58 → 12.
    assert cm.seeds_for(3, 1.1, 0.5) == 15
    assert cm.seeds_for(3, 1.1, 0.56) == 12
    c = cm.numeric("p75", "s", "x", "5", 3.94, spread=1.1, seeds=3)
    assert c.verdict == cm.CANNOT
    assert "about 15 seeds would bring our interval under the allowance" in c.note
    assert "about 12 seeds under our distance from its edge, 0.56" in c.note
    assert "estimate" in c.note
    # An exact square is not rounded up past itself; an interval already under the width
    # needs no more seeds than ran.
    assert cm.seeds_for(3, 1.0, 0.5) == 12
    assert cm.seeds_for(5, 0.1, 0.5) == 5
    with pytest.raises(ValueError):
        cm.seeds_for(3, 1.0, 0.0)


def test_an_agreement_within_a_wide_interval_says_so_and_still_agrees():
    # 0.93 against "0.93" (±0.005) with ±0.2 over 3 seeds: agrees, the note says the interval
    # is 40 times the allowance and 3 × 40² = 4800 seeds would bring it under.
    c = cm.numeric("f", "s", "x", "0.93", 0.931, spread=0.2, seeds=3)
    assert c.verdict == cm.AGREES
    assert "40 times" in c.note and "about 4800 seeds" in c.note
    # An interval under the allowance: no note.
    assert cm.numeric("f", "s", "x", "0.93", 0.931, spread=0.004, seeds=3).note == ""


def test_qualitative_claim_fails_on_its_counterfactual():
    def below(x):
        return x[0] < x[1] / 10

    # CoDel far below tail drop, and the counterfactual (CoDel replaced by tail drop) fails.
    c = cm.qualitative("c", "s", "m", "p", below, (1.0, 60.0), "CoDel → tail drop", (60.0, 60.0))
    assert c.verdict == cm.HOLDS and c.counterfactual_verdict == cm.FAILS
    # Given the counterfactual's numbers as ours (both arms equal), the claim does not hold.
    c = cm.qualitative("c", "s", "m", "p", below, (60.0, 60.0), "x", (60.0, 60.0))
    assert c.verdict == cm.FAILS
    # A non-strict predicate that equal arms satisfy cannot tell CoDel from tail drop.
    c = cm.qualitative("c", "s", "m", "p", lambda x: x[0] <= x[1], (5.0, 5.0), "swap", (5.0, 5.0))
    assert c.verdict == cm.CANNOT
    # numpy booleans count as booleans.
    np = pytest.importorskip("numpy")
    c = cm.qualitative("c", "s", "m", "p", lambda x: np.float64(x) > 1, 2.0, "cf", 0.5)
    assert c.verdict == cm.HOLDS


def test_range_claim_is_evaluated_at_every_point_and_lists_the_failing_ones():
    pts = {"a": (1.0, 2.0), "b": (1.0, 2.0), "c": (3.0, 2.0)}
    swapped = {k: (v[1], v[0]) for k, v in pts.items()}

    def lower(x):
        return x[0] < x[1]

    c = cm.over_range("c", "s", "m", "p", lower, pts, "swap", swapped)
    assert c.verdict == cm.FAILS and c.failing == ["c"]
    assert [p["ok"] for p in c.points] == [True, True, False]
    # "In most scenarios": two of three is most; the swapped arms hold at one of three.
    c = cm.over_range("c", "s", "m", "p", lower, pts, "swap", swapped, most=True)
    assert c.verdict == cm.HOLDS and c.counterfactual_verdict == cm.FAILS
    # Equal arms: a ≤ predicate holds on both sides, so it cannot discriminate.
    same = {k: (1.0, 1.0) for k in pts}
    c = cm.over_range("c", "s", "m", "p", lambda x: x[0] <= x[1], same, "swap", same)
    assert c.verdict == cm.CANNOT
    # An empty range never holds.
    assert cm.over_range("c", "s", "m", "p", lower, {}, "cf", {}).verdict == cm.FAILS


def test_ties_between_stalled_runs_are_not_wins():
    def wins(x):
        if cm.stalled(x[0]) or cm.stalled(x[1]):
            return cm.STALLED
        return x[0] >= x[1]

    pts = {"75p": (0.0498, 0.0498), "60p": (0.62, 0.53)}
    c = cm.over_range("c", "s", "m", "p", wins, pts, "swap", {"60p": (0.53, 0.62)})
    # No win at 75p, and no point truly false: evidence for neither order, it cannot tell.
    assert c.verdict == cm.CANNOT
    assert c.failing == ["75p (stalled)"] and "1 stalled" in c.ours
    # A true loss beside it (0.40 < 0.53 at 45p) does not hold.
    c = cm.over_range("c", "s", "m", "p", wins, {**pts, "45p": (0.40, 0.53)}, "swap", {})
    assert c.verdict == cm.FAILS and c.failing == ["75p (stalled)", "45p"]
    assert cm.stalled(0.0498) and not cm.stalled(cm.STALLED_FRACTION)
    assert cm.stalled(float("nan"))


def test_the_predicate_evaluator_calls_equal_sides_a_tie_not_a_pass():
    from aqmlab.reproduce.predicate import TIE, compile_predicate

    def ev(text, values, resolution=0.0):
        return compile_predicate(text, len(values), "t", resolution)(values)

    # Equal sides of an ordering comparison between arms: a tie, whichever the operator.
    for text in ("a < b", "a > b", "a <= b", "a >= b", "a <= 0.5 * b"):
        assert ev(text, (0.0, 0.0)) == TIE, text
    assert ev("a < b", (3.0, 3.0)) == TIE and ev("a >= b", (3.0, 3.0)) == TIE
    # A real win passes, a real loss fails.
    assert ev("a < b", (1.0, 2.0)) is True and ev("a < b", (2.0, 1.0)) is False
    assert ev("a <= 0.5 * b", (1.0, 4.0)) is True and ev("a <= 0.5 * b", (3.0, 4.0)) is False
    # Within the quantity's resolution: 1.0 vs 1.4 at 0.5 is a tie; 1.0 vs 1.6 is a win.
    assert ev("a < b", (1.0, 1.4), 0.5) == TIE and ev("a < b", (1.0, 1.6), 0.5) is True
    assert ev("a > b", (1.0, 1.4), 0.5) == TIE and ev("a > b", (1.0, 1.6), 0.5) is False
    # A comparison with a constant is no comparison of two runs: never an exact tie.
    assert ev("a >= 0.9", (0.9,)) is True and ev("a - b <= 0.25", (1.0, 0.75)) is True
    assert ev("0.915 <= a / b <= 1.035", (1.0, 1.0)) is True
    # and: false if any part is; else a tie if any part is. or: true if any part is.
    assert ev("a < c and b < c", (1.0, 1.0, 1.0)) == TIE
    assert ev("a < c and b < c", (1.0, 2.0, 2.0)) == TIE
    assert ev("a < c and b < c", (1.0, 3.0, 2.0)) is False
    assert ev("a < c and b < c", (1.0, 1.5, 2.0)) is True
    assert ev("a < b or b < c", (1.0, 1.0, 2.0)) is True
    assert ev("a < b or a > b", (1.0, 1.0)) == TIE and ev("not a < b", (1.0, 1.0)) == TIE
    # Python's order of evaluation is kept: b is 0, so a / b is never computed.
    assert ev("b != 0 and 0.915 <= a / b <= 1.035", (1.0, 0.0)) is False
    # NaN is no tie: a comparison with a missing value fails.
    nan = float("nan")
    assert ev("a < b", (nan, nan)) is False


def test_a_tie_is_not_a_pass_and_a_claim_of_ties_cannot_discriminate():
    from aqmlab.reproduce.predicate import compile_predicate

    lt = compile_predicate("a < b", 2, "t")

    # Qualitative: a tie is "cannot discriminate", with the values in the note.
    def vs(x):
        return f"{cm.fmt(x[0])} vs {cm.fmt(x[1])} ms"

    c = cm.qualitative("c", "s", "m", "p", lt, (0.0, 0.0), "swap", (0.0, 0.0), describe=vs)
    assert c.verdict == cm.CANNOT and c.note.startswith("a tie: 0 vs 0 ms")
    # Its counterfactual: a real win holds and the swap fails; the tie is not its pass either.
    c = cm.qualitative("c", "s", "m", "p", lt, (1.0, 2.0), "swap", (2.0, 1.0))
    assert (c.verdict, c.counterfactual_verdict) == (cm.HOLDS, cm.FAILS)
    c = cm.qualitative("c", "s", "m", "p", lt, (1.0, 2.0), "swap", (2.0, 2.0))
    assert (c.verdict, c.counterfactual_verdict) == (cm.HOLDS, cm.FAILS)
    # Range: a tie at one point is no pass there, named a tie; with no point truly false the
    # range cannot discriminate.
    pts = {"13p": (0.0, 0.0), "50p": (2.0, 9.0)}
    swap = {k: (v[1], v[0]) for k, v in pts.items()}
    c = cm.over_range("c", "s", "m", "p", lt, pts, "swap", swap)
    assert (
        c.verdict == cm.CANNOT and c.failing == ["13p (tie)"] and c.ours == "1 of 2 points (1 tie)"
    )
    # ... which the old rule (a tie taken for a pass) would have let hold.
    c = cm.over_range("c", "s", "m", "p", lambda x: x[0] <= x[1], pts, "swap", swap)
    assert c.verdict == cm.HOLDS
    # Every point a tie: cannot discriminate, and the note names them.
    ties = {"13p": (0.0, 0.0), "50p": (3.0, 3.0)}
    c = cm.over_range("c", "s", "m", "p", lt, ties, "swap", ties)
    assert c.verdict == cm.CANNOT and c.note.endswith(": 13p, 50p")
    # A range of real wins holds; its swap fails at every point.
    wins = {"13p": (1.0, 2.0), "50p": (2.0, 9.0)}
    c = cm.over_range("c", "s", "m", "p", lt, wins, "swap", {k: v[::-1] for k, v in wins.items()})
    assert (c.verdict, c.counterfactual_ours) == (cm.HOLDS, "0 of 2 points")


def test_not_graded_says_why():
    c = cm.not_graded("box plots", "slides", "boxes", "the values are not printed")
    assert c.verdict == "not graded: the values are not printed" and c.kind == "not graded"


def test_fmt_prints_the_significant_digits_a_comparison_needs():
    assert cm.fmt(1.029) == "1.03"
    assert cm.fmt(0.04983) == "0.0498"
    assert cm.fmt(45.67) == "45.7"
    assert cm.fmt(7593.77) == "7,594"
    assert cm.fmt(9.996) == "10.0"
    assert cm.fmt(0.0) == "0" and cm.fmt(3) == "3" and cm.fmt(float("nan")) == "–"
    assert cm.fmt(1.029, 4) == "1.029"
    assert cm.fmt(3.2e-6) == "3.20e-06"


def test_identical_seeds_are_found_in_a_sweeps_summary(tmp_path):
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "summary.csv").write_text(
        "case,metric,mean,std,n,ci95_low,ci95_high\n"
        "tail drop,x,1.0,0.0,3,1.0,1.0\n"
        "tail drop,y,2.0,2.7e-13,3,2.0,2.0\n"
        "CoDel,x,1.0,0.5,3,0.5,1.5\n"
        "CoDel,y,2.0,0.0,3,2.0,2.0\n"
    )
    assert cm.identical_seed_points(str(tmp_path)) == ["sweep: tail drop"]
    # One seed per point: nothing to say.
    (tmp_path / "sweep" / "summary.csv").write_text(
        "case,metric,mean,std,n,ci95_low,ci95_high\ntail drop,x,1.0,,1,,\n"
    )
    assert cm.identical_seed_points(str(tmp_path)) == []


def test_one_colour_per_discipline():
    assert style.colour("tail drop 830p") == style.colour("tail drop 10p")
    assert style.colour("tail drop") == style.COLOURS["tail drop"]
    assert style.colour("CoDel") != style.colour("FQ-CoDel") != style.colour("LSTF α=0.5")
    assert style.colour("RED (ns-2.35 defaults)") == style.COLOURS["RED"]
    assert style.colour("Adaptive RED (ns-2.35 defaults)") == style.COLOURS["Adaptive RED"]
    assert style.colour("PIE") == style.COLOURS["PIE"]
    assert style.colour("trace capacity") == style.OTHER
    assert len(set(style.COLOURS.values())) == len(style.COLOURS)


def test_static_rates_pooled_claims_are_graded_at_every_rate_against_their_counterfactual():
    """The slides' boxes per rate (every RTT pooled), graded by static-rates' claims.toml on its
    module's numbers: CoDel's pooled median utilization about 0.9 or more at every rate ≥ 3 Mb/s
    (RED in its place fails), and CoDel's pooled median delay below tail drop's at every rate
    (tail drop in its place fails)."""
    pd = pytest.importorskip("pandas")
    from aqmlab.reproduce import builtin_folder, builtin_module, hypotheses
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, declared_numbers, grade

    exp = load(builtin_folder("static-rates"))
    mod = builtin_module("static-rates")
    by_id = {c.id: c for c in exp.claims}

    def graded(rows, rates):
        """The pooled claims on a pooled table of (rate, discipline, p50_ms, util) rows, the
        rest of the grid being the same rows at one RTT."""
        frame = pd.DataFrame(
            [
                {"rate": f"{r:g} kb/s", "rtt": "100 ms", "load": "x", "discipline": d}
                | {"p50_ms": p, "util": u}
                for r, d, p, u in rows
            ]
        )
        frame["rate_kbps"] = [float(r.split()[0]) for r in frame["rate"]]
        frame["rate_mbps"] = frame["rate_kbps"] / 1000
        frame["rtt_ms"] = 100.0
        frame["seed"] = 1  # one seed: no noise band (the claims' per_seed, _pooled_seeds)
        params = {"rates_kbps": rates, "rtts_ms": [100], "duration_s": 1.0}
        ctx = Context(exp, "/nonexistent", True, [1], None, False, {}, params)
        ctx.frames["sweep-4FTPs_web"] = frame
        declared_numbers(ctx)  # experiment.toml's _pooled and _pooled_fast
        ctx.tests = hypotheses.run(ctx, mod)  # claims.toml's rerun tests: no sweep to rerun
        for cid in ("pooled-codel-util-09", "pooled-codel-delay-below-taildrop"):
            ctx.claims[cid] = grade(by_id[cid], ctx, mod)
        hypotheses.settle(ctx)
        return ctx.claims["pooled-codel-util-09"], ctx.claims["pooled-codel-delay-below-taildrop"]

    rates = [512, 10_000, 100_000]
    rows = [
        (r, d, p, u)
        for r in rates
        for d, p, u in (("CoDel", 5.0, 0.93), ("tail drop", 90.0, 0.97), ("RED", 3.0, 0.7))
    ]
    util, delay = graded(rows, rates)
    assert util.verdict == cm.HOLDS and util.counterfactual_verdict == cm.FAILS
    # The utilization claim names the slides' "high" rates only: 512 kb/s is not a point.
    assert [p["point"] for p in util.points] == ["10 Mb/s", "100 Mb/s"]
    assert delay.verdict == cm.HOLDS and delay.counterfactual_verdict == cm.FAILS
    assert len(delay.points) == 3

    # CoDel at 0.84 at 100 Mb/s (below 0.9 less half its printed digit) and its delay above
    # tail drop's at 512 kb/s: both fail, at that rate only, and name their explanation.
    def codel_at_512(p50):
        return [
            (r, d, p50 if (r, d) == (512, "CoDel") else p)
            + (0.84 if (r, d) == (100_000, "CoDel") else u,)
            for r, d, p, u in rows
        ]

    util, delay = graded(codel_at_512(95.0), rates)
    assert util.verdict == cm.FAILS and util.failing == ["100 Mb/s"]
    assert delay.verdict == cm.FAILS and delay.failing == ["0.512 Mb/s"]
    assert util.unexplained and util.explanation.startswith(cm.UNEXPLAINED)
    # Equal to tail drop's there (the full run's 64 kb/s): a tie, no pass, the others passing:
    # cannot discriminate, the note naming the tie.
    _, delay = graded(codel_at_512(90.0), rates)
    assert delay.verdict == cm.CANNOT and delay.failing == ["0.512 Mb/s (tie)"]
    assert "1 tie (equal values within the claim's resolution): 0.512 Mb/s" in delay.note
    # A run without a rate ≥ 3 Mb/s does not grade the utilization claim, and says why
    # (claims.toml's missing).
    util, _ = graded([x for x in rows if x[0] == 512], [512])
    assert util.verdict == cm.NOT_GRADED + ": this run has no rate ≥ 3 Mb/s (rates [512] kb/s)"


def test_a_predicate_that_divides_by_zero_is_one_line_naming_the_arms():
    # It raised a bare ZeroDivisionError; a NaN instead would make `a != b` pass.
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.predicate import compile_predicate

    run = compile_predicate("a / b < 1", 2, "x/claims.toml: claim c")
    assert run((1.0, 2.0)) is True
    with pytest.raises(AqmlabError) as e:
        run((1.0, 0))
    assert str(e.value) == (
        "x/claims.toml: claim c: predicate 'a / b < 1' divides by 0 at a = 1.0, b = 0: guard "
        "it (e.g. 'b != 0 and a / b < 1')"
    )
    assert compile_predicate("b != 0 and a / b < 1", 2, "w")((1.0, 0)) is False


def test_a_range_whose_every_point_passes_or_is_undecided_cannot_discriminate():
    """Issue 19: a tie, a stalled point and a point within our seeds' noise are all undecided
    (evidence for neither order): a range whose every point passes or is undecided, one or more
    undecided, cannot discriminate (with `most`: the passes alone no majority, with the
    undecided points one); a point that is truly false still makes it "does not hold". Before,
    an exact tie or a stalled point among passes was "does not hold", harsher than a tie within
    noise; and with `most` only the noise points counted toward the majority."""
    from aqmlab.reproduce.predicate import Noise

    # Each point's predicate result, as the evaluator returns it.
    noise = Noise(d=1.0, h=2.0, seeds=3, resolution=0.0)
    result = {"pass": True, "fail": False, "tie": cm.TIE, "stalled": cm.STALLED, "noise": noise}

    def graded(points, most=False):
        pts = {p: p.split("-")[0] for p in points}
        return cm.over_range(
            "c", "s", "m", "p", result.get, pts, "swap", {"x": "fail"}, lambda v: v, most=most
        )

    # Passes and one exact tie.
    c = graded(["pass-1", "pass-2", "tie-1"])
    assert (c.verdict, c.ours, c.failing) == (cm.CANNOT, "2 of 3 points (1 tie)", ["tie-1 (tie)"])
    assert c.note == (
        "1 of 3 points undecided (every other point passes), evidence for neither order: 1 tie "
        "(equal values within the claim's resolution): tie-1"
    )
    # Passes and one stalled point.
    c = graded(["pass-1", "stalled-1"])
    assert (c.verdict, c.failing) == (cm.CANNOT, ["stalled-1 (stalled)"])
    assert c.note == (
        "1 of 2 points undecided (every other point passes), evidence for neither order: "
        "1 stalled (every arm's run delivered almost nothing): stalled-1"
    )
    # Each kind counted and named, the noise point with its numbers.
    c = graded(["pass-1", "tie-1", "tie-2", "stalled-1", "noise-1"])
    assert c.verdict == cm.CANNOT and c.ours == "1 of 5 points (2 ties, 1 stalled, 1 within noise)"
    assert c.note == (
        "4 of 5 points undecided (every other point passes), evidence for neither order: "
        "2 ties (equal values within the claim's resolution): tie-1, tie-2; 1 stalled (every "
        "arm's run delivered almost nothing): stalled-1; 1 within our seeds' noise "
        f"({cm.NOISE_HOW}) at noise-1: +1 ±2, 3 seeds, about 12 would decide"
    )
    # Passes, a tie and a true failure: does not hold, the tie listed among the failing points.
    c = graded(["pass-1", "tie-1", "fail-1"])
    assert (c.verdict, c.failing, c.note) == (cm.FAILS, ["tie-1 (tie)", "fail-1"], "")
    # most: 1 pass, 1 tie, 1 failure of 3: the pass alone is no majority, with the tie it is.
    c = graded(["pass-1", "tie-1", "fail-1"], most=True)
    assert c.verdict == cm.CANNOT
    assert c.note.startswith(
        "1 of 3 points undecided (1 pass, no majority alone, a majority with the undecided; "
        "1 fail), evidence for neither order: 1 tie"
    )
    c = graded(["pass-1", "stalled-1", "fail-1"], most=True)
    assert c.verdict == cm.CANNOT
    # ... 1 pass, 1 tie, 2 failures of 4: no majority even with the tie: does not hold.
    assert graded(["pass-1", "tie-1", "fail-1", "fail-2"], most=True).verdict == cm.FAILS
    # ... 2 passes, 1 tie of 3: the passes are a majority alone, and the swap fails: holds.
    assert graded(["pass-1", "pass-2", "tie-1"], most=True).verdict == cm.HOLDS
