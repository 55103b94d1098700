"""The ``rerun`` hypothesis test (aqmlab.reproduce.rerun; docs/reproductions.md, "Hypothesis
tests"): a sweep's runs replace the matching runs of the claim's sweeps, the claim's numbers
are computed again and its predicate evaluated again at its failing points. Exercised through
static-rates' claims.toml (its slow-buffer and interval hypotheses) on runs made up here, each
case beside the one that turns its outcome."""

from __future__ import annotations

from pathlib import Path

import pytest

pd = pytest.importorskip("pandas")

from aqmlab.exceptions import AqmlabError  # noqa: E402
from aqmlab.reproduce import builtin_folder, builtin_module, hypotheses, rerun  # noqa: E402
from aqmlab.reproduce.folder import load, load_claims  # noqa: E402
from aqmlab.reproduce.loader import Context, declared_numbers, grade  # noqa: E402

EXP = load(builtin_folder("static-rates"))
MOD = builtin_module("static-rates")
QDISCS = ("tail drop", "RED", "CoDel")


def frame(rows: list[tuple]) -> object:
    """Runs (load, discipline, rate kb/s, RTT ms, seed, p50 ms, util) with experiment.toml's
    columns."""
    cols = ["load", "discipline", "rate_kbps", "rtt_ms", "seed", "p50_ms", "util"]
    df = pd.DataFrame(rows, columns=cols)
    df["rate_kbps"] = df["rate_kbps"].astype(float)
    df["rtt_ms"] = df["rtt_ms"].astype(float)
    df["rate_mbps"] = df["rate_kbps"] / 1000
    return df


def graded(frames: dict[str, object], ids: list[str]) -> tuple[Context, dict]:
    """static-rates' claims ``ids`` graded on ``frames``, their tests run and settled."""
    params = {"rates_kbps": [64, 10000], "rtts_ms": [10, 100, 500], "duration_s": 1.0}
    ctx = Context(EXP, "/nonexistent", False, [1, 2], None, False, {}, params)
    ctx.frames = dict(frames)
    declared_numbers(ctx)
    ctx.tests = hypotheses.run(ctx, MOD)
    by_id = {c.id: c for c in EXP.claims}
    for cid in ids:
        ctx.claims[cid] = grade(by_id[cid], ctx, MOD)
    hypotheses.settle(ctx)
    return ctx, ctx.claims


W = "4 FTPs + web"
SLOW = "codel-delay-below-taildrop"


def grid(codel_fast: float = 5.0) -> object:
    """The grid's '4 FTPs + web' runs: at 64 kb/s CoDel's median is 66.0 ms against tail
    drop's and RED's 62.8 ms (a true failure: a tie there, with the other rate passing, would
    make the claim cannot discriminate, no failure to explain), at 10 Mb/s CoDel's is
    ``codel_fast`` against tail drop's 90 ms."""
    rows = [
        (W, d, 64, t, 1, 66.0 if d == "CoDel" else 62.8, 0.9) for d in QDISCS for t in (10, 100)
    ]
    rows += [
        (W, d, 10000, t, 1, {"CoDel": codel_fast}.get(d, 90.0), 0.9)
        for d in QDISCS
        for t in (10, 100)
    ]
    return frame(rows)


def slow(codel: dict[int, float], qdiscs=("tail drop", "CoDel")) -> object:
    """sweep-slow-buffer: 64 kb/s, tail drop at 400 ms and CoDel at ``codel[rtt]``."""
    return frame(
        [
            (W, d, 64, t, 1, 400.0 if d == "tail drop" else c, 0.9)
            for t, c in codel.items()
            for d in qdiscs
        ]
    )


def test_rerun_confirms_where_the_swapped_runs_pass_at_every_failing_point():
    # Another load at 100 ms: the grid's medians over both loads are 83.0 vs 81.4; the test
    # compares the '4 FTPs + web' runs (where) as run, 66.0 vs 62.8, with the rerun's.
    other = frame([("1 FTP", d, 64, t, 1, 100.0, 0.9) for d in QDISCS for t in (10, 100)])
    frames = {"sweep-4FTPs_web": grid(), "sweep-1FTP": other}
    ctx, claims = graded({**frames, "sweep-slow-buffer": slow({10: 70.0, 100: 90.0})}, [SLOW])
    c = claims[SLOW]
    assert c.failing == ["0.064 Mb/s, RTT 10 ms", "0.064 Mb/s, RTT 100 ms"]
    assert c.points[0]["ours"] == "83.0 vs 81.4"
    r = rerun.result(ctx, SLOW)
    assert r.text.endswith("passes at 2 of 2 failing points rerun: confirmed"), r.text
    assert "0.064 Mb/s, RTT 10 ms: 66.0 vs 62.8 → 70.0 vs 400" in r.text
    assert "over the runs where load = '4 FTPs + web'" in r.text
    assert r.explains and not c.unexplained
    assert c.hypotheses[0]["outcome"] == r.text


def test_rerun_refutes_where_no_failing_point_passes_and_leaves_some_unexplained():
    frames = {"sweep-4FTPs_web": grid()}
    _, claims = graded({**frames, "sweep-slow-buffer": slow({10: 500.0, 100: 450.0})}, [SLOW])
    assert claims[SLOW].unexplained
    assert (
        claims[SLOW]
        .hypotheses[0]["outcome"]
        .endswith("passes at 0 of 2 failing points rerun: refuted")
    )
    ctx, claims = graded({**frames, "sweep-slow-buffer": slow({10: 70.0, 100: 450.0})}, [SLOW])
    r = rerun.result(ctx, SLOW)
    assert r.text.endswith(": unexplained") and "passes at 1 of 2" in r.text
    assert claims[SLOW].unexplained
    assert "still failing with sweep-slow-buffer (8 packets): 0.064 Mb/s, RTT 100 ms" in (
        claims[SLOW].explanation
    )


def test_a_failing_point_the_rerun_does_not_reach_stays_unexplained():
    # CoDel above tail drop at 10 Mb/s too: the 64 kb/s sweep cannot account for it.
    ctx, claims = graded(
        {
            "sweep-4FTPs_web": grid(codel_fast=95.0),
            "sweep-slow-buffer": slow({10: 70.0, 100: 90.0}),
        },
        [SLOW],
    )
    r = rerun.result(ctx, SLOW)
    assert "passes at 2 of 2 failing points rerun: confirmed" in r.text
    assert r.text.endswith("; not rerun: 10 Mb/s, RTT 10 ms, 10 Mb/s, RTT 100 ms")
    assert not r.explains and claims[SLOW].unexplained


def test_blames_a_rerun_that_leaves_some_of_the_blamed_runs_is_no_explanation():
    # Only tail drop rerun: CoDel's 66.0 ms is below tail drop's 400 and the predicate passes,
    # but the CoDel runs the hypothesis blames were never rerun.
    ctx, claims = graded(
        {
            "sweep-4FTPs_web": grid(),
            "sweep-slow-buffer": slow({10: 70.0, 100: 90.0}, ("tail drop",)),
        },
        [SLOW],
    )
    r = rerun.result(ctx, SLOW)
    assert "confirmed" in r.text
    assert (
        "it reruns 2 of the 4 runs where rate_kbps = 64, discipline = 'tail drop' or 'CoDel'"
        in r.text
    )
    assert claims[SLOW].unexplained


def test_a_rerun_sweep_this_mode_did_not_run():
    ctx, claims = graded({"sweep-4FTPs_web": grid()}, [SLOW])
    assert rerun.result(ctx, SLOW).text == "sweep-slow-buffer (8 packets) was not run"
    assert claims[SLOW].unexplained


POOLED = "pooled-codel-util-09"


LOW = ((30, 0.95), (100, 0.5))


def pool(util500: float, other_load: bool) -> dict[str, object]:
    """CoDel at 10 Mb/s, seeds 1-2: 0.95 at RTT 30 ms, 0.5 at 100 ms, ``util500`` at 500 ms,
    and with ``other_load`` a '1 FTP' run at 500 ms (0.9, each seed) that the interval sweep
    does not rerun. Each seed's median is the pool's (0.5, or 0.7 with ``other_load``): a
    failure beyond our seeds' noise (the claim's per_seed), which the rerun is to explain."""
    rows = [(W, d, 10000, t, s, 5.0, u) for d in QDISCS for s in (1, 2) for t, u in LOW]
    rows += [(W, d, 10000, 500, s, 5.0, 0.5) for d in QDISCS for s in (1, 2)]
    frames = {"sweep-4FTPs_web": frame(rows)}
    if other_load:
        rows1 = [("1 FTP", d, 10000, 500, s, 5.0, 0.9) for d in QDISCS for s in (1, 2)]
        frames["sweep-1FTP"] = frame(rows1)
    frames["sweep-interval"] = frame([(W, "CoDel", 10000, 500, s, 5.0, util500) for s in (1, 2)])
    return frames


def test_rerun_recomputes_a_pooled_number_with_the_runs_swapped():
    # The pool [0.95, 0.95, 0.5, 0.5, 0.5, 0.5]: median 0.5; with the rerun
    # [0.95, 0.95, 0.5, 0.5, 0.9, 0.9]: 0.9.
    ctx, claims = graded(pool(0.9, other_load=False), [POOLED])
    r = rerun.result(ctx, POOLED)
    assert claims[POOLED].failing == ["10 Mb/s"]
    assert "10 Mb/s: 0.500 → 0.900; passes at 1 of 1 failing point rerun: confirmed" in r.text
    assert not claims[POOLED].unexplained
    # The counterfactual: a longer interval that does not help.
    ctx, claims = graded(pool(0.5, other_load=False), [POOLED])
    assert rerun.result(ctx, POOLED).text.endswith(
        "0.500 → 0.500; passes at 0 of 1 failing point rerun: refuted"
    )
    assert claims[POOLED].unexplained


def test_rerun_keeps_the_runs_it_does_not_match_and_counts_those_blamed():
    # Another load's runs at 500 ms stay in the pool: [0.95, 0.5, 0.5, 0.9] a seed has median
    # 0.7 (fails); rerun, [0.95, 0.5, 0.9, 0.9] 0.9: the predicate passes on each seed alike,
    # but 2 of the 4 blamed runs were not rerun.
    ctx, claims = graded(pool(0.9, other_load=True), [POOLED])
    r = rerun.result(ctx, POOLED)
    assert "0.700 → 0.900" in r.text and "confirmed" in r.text
    assert "it reruns 2 of the 4 runs where rtt_ms = 500, discipline = 'CoDel'" in r.text
    assert claims[POOLED].unexplained and "it reruns 2 of the 4 runs" in claims[POOLED].explanation


def test_rerun_errors_name_the_file_the_table_and_the_key(tmp_path):
    text = Path(builtin_folder("static-rates"), "claims.toml").read_text(encoding="utf-8")

    def claims(old: str, new: str) -> None:
        assert old in text
        p = tmp_path / "claims.toml"
        p.write_text(text.replace(old, new, 1), encoding="utf-8")
        load_claims(str(p))

    with pytest.raises(
        AqmlabError, match=r"claims\.toml: hypothesis\.slow-buffer\.sweeps: expected the names"
    ):
        claims('sweeps = ["sweep-slow-buffer"]\n', "")
    with pytest.raises(AqmlabError, match=r"hypothesis\.slow-buffer\.match: expected the columns"):
        claims('match = ["load", "rate_kbps", "rtt_ms", "discipline", "seed"]\n', "")
    with pytest.raises(
        AqmlabError, match=r"hypothesis\.slow-buffer\.where: expected a table of column"
    ):
        claims('where = { load = "4 FTPs + web" }', "where = { load = [] }")
    with pytest.raises(
        AqmlabError,
        match=r"hypothesis\.slow-buffer\.draws: expected a key of test = 'rerun' \(sweeps, match",
    ):
        claims('test = "rerun"\n', 'test = "rerun"\ndraws = 100\n')
    with pytest.raises(
        AqmlabError,
        match=r"hypothesis\.slow-buffer\.test: expected reference or bootstrap or rerun",
    ):
        claims('test = "rerun"\n', 'test = "rerunn"\n')


def test_rerun_run_time_errors_are_one_line(monkeypatch):
    from dataclasses import replace

    t = next(t for c in EXP.claims if c.id == SLOW for t in c.tests)
    frames = {"sweep-4FTPs_web": grid(), "sweep-slow-buffer": slow({10: 70.0, 100: 90.0})}

    def run_with(test):
        c = next(c for c in EXP.claims if c.id == SLOW)
        ctx = Context(EXP, "/x", False, [1], None, False, {}, {"rates_kbps": [64], "rtts_ms": [10]})
        ctx.frames = dict(frames)
        declared_numbers(ctx)
        return rerun.run(test, c, ctx, MOD)

    with pytest.raises(
        AqmlabError, match=r"hypothesis\.slow-buffer\.sweeps: no \[\[sweep\]\] named 'nope'"
    ):
        run_with(replace(t, sweeps=["nope"]))
    with pytest.raises(AqmlabError, match=r"hypothesis\.slow-buffer\.match: no column 'buffer'"):
        run_with(replace(t, match=["buffer"]))
    # Two rerun runs with the same values of match: which one replaces a run is undecided.
    with pytest.raises(
        AqmlabError, match=r"hypothesis\.slow-buffer\.match: two runs of sweep-slow-buffer share"
    ):
        run_with(replace(t, match=["load", "rate_kbps", "rtt_ms", "seed"]))


def test_rerun_on_a_qualitative_claim_and_a_claim_it_cannot_recompute():
    from dataclasses import replace

    c = next(c for c in EXP.claims if c.id == POOLED)
    ctx = Context(EXP, "/x", False, [1, 2], None, False, {}, {"rates_kbps": [10000]})
    ctx.frames = pool(0.9, other_load=False)
    declared_numbers(ctx)
    # One point: pooled_by_rate's CoDel median at 10 Mb/s, a number per arm.
    one = replace(
        c,
        kind="qualitative",
        metric="pooled_by_rate.10000.{arm}.util",
        delivered="pooled_by_rate.10000.{arm}.util",
        per_seed="_pooled_seeds.{arm}.util.10 Mb/s",
    )
    r = rerun.run(c.tests[0], one, ctx, MOD)
    assert "ours: 0.500 → 0.900; passes at 1 of 1 failing point rerun: confirmed" in r.text
    assert r.explains
    # A [table] column is not a number the test can compute again: one line, naming the key.
    with pytest.raises(AqmlabError, match=r"explanation\[0\]\.test: test = 'rerun' needs claim"):
        rerun.run(c.tests[0], replace(c, metric="delay_mean"), ctx, MOD)


def test_a_range_undecided_by_its_ties_keeps_its_rerun_in_the_discussion():
    """At 64 kb/s every discipline's median is 62.8 ms (ties) and 10 Mb/s passes: the claim
    cannot discriminate (issue 19: ties among passes), so it carries no explanation, and
    static-rates' discussion says which points are undecided and what the slow-buffer rerun
    found there."""
    from aqmlab.reproduce.discussion import paragraphs

    rows = [(W, d, 64, t, 1, 62.8, 0.9) for d in QDISCS for t in (10, 100)]
    rows += [
        (W, d, 10000, t, 1, {"CoDel": 5.0}.get(d, 90.0), 0.9) for d in QDISCS for t in (10, 100)
    ]
    frames = {"sweep-4FTPs_web": frame(rows), "sweep-slow-buffer": slow({10: 70.0, 100: 90.0})}
    ctx, claims = graded(frames, [SLOW])
    c = claims[SLOW]
    assert c.verdict == "cannot discriminate" and not c.hypotheses and c.explanation == ""
    mine = [p for p in EXP.discussion if getattr(p, "text", "").startswith("CoDel's median delay")]
    text = paragraphs(mine, ctx)
    assert text == [
        "CoDel's median delay below tail drop's at every grid point cannot discriminate: every "
        "point passes but 0.064 Mb/s, RTT 10 ms (tie), 0.064 Mb/s, RTT 100 ms (tie), evidence "
        "for neither order. The slow-buffer hypothesis (the buffer of one BDP at 100 ms is 2 "
        "packets at 64 kb/s, so CoDel has nothing to shorten; a larger one lets tail drop's "
        "queue grow where CoDel keeps it short), tested with 8 packets (sweep-slow-buffer/): "
        + rerun.result(ctx, SLOW).text
        + "."
    ]
    assert rerun.result(ctx, SLOW).text.endswith("passes at 2 of 2 failing points rerun: confirmed")
