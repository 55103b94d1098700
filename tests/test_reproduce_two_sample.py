"""Two-sample tests as data (docs/reproductions.md, "Metrics as data" and "claims.toml"):
a ``[numbers.NAME]`` with ``test = "two-sample"`` (Welch's t and the F-test of two declared
samples) and a claim with ``sample_test``, whose predicate and description name the test's
quantities; exact values, and one-line errors naming the file, the table and the key."""

from __future__ import annotations

import math
import textwrap

import pytest

pytest.importorskip("scipy")

PATH = "/r/experiment.toml"
A = [1.0, 2.0, 3.0, 4.0, 5.0]  # mean 3, variance 2.5
B = [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]  # mean 7, variance 14


def test_the_quantities_are_welchs_and_the_f_tests_by_their_definitions():
    from aqmlab.reproduce.two_sample import QUANTITIES, tests
    from scipy import stats

    q = tests(A, B)
    assert tuple(q) == QUANTITIES
    va, vb = 2.5 / 5, 14 / 6  # each mean's variance
    t = (3 - 7) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / 4 + vb**2 / 5)
    assert q["t"] == pytest.approx(t, rel=1e-12) and q["t"] < 0
    assert q["t_df"] == pytest.approx(df, rel=1e-12)
    assert q["t_p"] == pytest.approx(2 * stats.t.cdf(t, df), rel=1e-9)
    # One-sided: a's mean is smaller, so "a larger" is near 1 and "a smaller" half the p.
    assert q["t_p_less"] == pytest.approx(stats.t.cdf(t, df), rel=1e-9)
    assert q["t_p_greater"] == pytest.approx(1 - stats.t.cdf(t, df), rel=1e-9)
    half = stats.t.ppf(0.95, df) * math.sqrt(va + vb)
    assert q["t_low"] == pytest.approx(-4 - half, rel=1e-12)
    assert q["t_high"] == pytest.approx(-4 + half, rel=1e-12)
    assert q["f"] == 2.5 / 14 and q["f_df"] == (4, 5)
    assert q["f_p"] == pytest.approx(2 * stats.f.cdf(2.5 / 14, 4, 5), rel=1e-9)
    lo, hi = (2.5 / 14) / stats.f.ppf(0.975, 4, 5), (2.5 / 14) / stats.f.ppf(0.025, 4, 5)
    assert (q["f_low"], q["f_high"]) == (pytest.approx(lo), pytest.approx(hi))
    assert q["f_ci"] == (q["f_low"], q["f_high"])
    # Swapped samples: the statistic's sign, the one-sided p's and the ratio swap.
    r = tests(B, A)
    assert r["t"] == -q["t"] and r["t_p_greater"] == q["t_p_less"] and r["f"] == 14 / 2.5
    # A narrower confidence narrows the bounds.
    assert tests(A, B, 0.5)["t_low"] > q["t_low"]


def _number(doc, numbers):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return compute(nd, {}, lambda t: t, numbers)


def test_a_declared_test_runs_at_every_sample_its_fields_match():
    from aqmlab.reproduce.two_sample import tests

    numbers = {
        "_s": {
            "base": {"x": A, "y": B},
            "arm 0.25": {"z": A},  # no sample "z" of a: left out
            "arm 0.5": {"x": B, "y": A},
            "arm 1": {"x": A},
            "other": {"x": B},
        }
    }
    doc = {
        "test": "two-sample",
        "a": "_s.base.{kind}",
        "b": '_s."arm {alpha}".{kind}',
        "key": ["{alpha}", "{kind}"],
        "values": {"t": "t", "ratio": "f"},
    }
    got = _number(doc, numbers)
    assert list(got) == ["0.5", "1"] and list(got["0.5"]) == ["x", "y"]
    assert got["0.5"]["x"] == {"t": tests(A, B)["t"], "ratio": 2.5 / 14}
    assert got["0.5"]["y"]["ratio"] == 14 / 2.5
    assert got["1"] == {"x": {"t": 0.0, "ratio": 1.0}}
    # Without fields: one table, every quantity by default; a sample missing: an empty table.
    one = _number({"test": "two-sample", "a": "_s.base.x", "b": '_s."arm 0.5".x'}, numbers)
    assert one == tests(A, B)
    assert _number({"test": "two-sample", "a": "_s.base.x", "b": "_s.nope.x"}, numbers) == {}


def test_a_p_value_that_underflows_is_printed_as_a_bound(tmp_path):
    """A p value scipy returns as 0 (lstf-codel's f-significant: F 0.00585 over 500 samples
    each) is below the smallest positive double: printed as that bound, not as "p 0"."""
    from types import SimpleNamespace

    from aqmlab.reproduce.loader import Context, grade
    from aqmlab.reproduce.two_sample import tests

    text = CLAIM.replace('describe = "t {t}, p {t_p}, df {f_df}"', 'describe = "F {f}, p {f_p}"')
    (c,) = _claims(tmp_path, text)
    exp = SimpleNamespace(folder=str(tmp_path), claims=[c])
    ctx = Context(exp, "/nonexistent", True, [1], None, False, {}, {})
    wide, narrow = [float(i) for i in range(300)], [i * 1e-6 for i in range(300)]
    assert tests(narrow, wide)["f_p"] == 0.0
    ctx.numbers = {"_s": {"a sample": wide, "b sample": narrow}}
    assert grade(c, ctx, None).ours == "F 1.00e-12, p < 4.94e-324"


@pytest.mark.parametrize(
    "edit, expected",
    [
        ({"speed": 1}, "numbers.x.speed: unknown key for test = 'two-sample'"),
        ({"test": "welch"}, "numbers.x.test: expected 'two-sample', got 'welch'"),
        ({"a": 3}, "numbers.x.a: expected the path of a sample"),
        ({"a": "_s.{other}.x"}, "numbers.x.a: field {other} is not one of b's"),
        ({"key": []}, "numbers.x.key: expected one template per level"),
        ({"key": ["{nope}"]}, "numbers.x.key: field {nope} is not one of b's"),
        ({"values": {"t": "z"}}, "numbers.x.values.t: expected one of t, t_df"),
        ({"confidence": 1.5}, "numbers.x.confidence: expected a number between 0 and 1"),
    ],
)
def test_a_bad_test_is_one_line_naming_the_key(edit, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    doc = {"test": "two-sample", "a": "_s.base", "b": "_s.{arm}", "key": ["{arm}"], **edit}
    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"x": doc}, ["sweep"])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_a_sample_that_is_not_a_list_or_too_short_is_one_line():
    from aqmlab.exceptions import AqmlabError

    doc = {"test": "two-sample", "a": "_s.a", "b": "_s.b"}
    with pytest.raises(AqmlabError, match=r"numbers\.x: a = '_s.a', b = '_s.b': a is not a"):
        _number(doc, {"_s": {"a": 3.0, "b": B}})
    with pytest.raises(AqmlabError, match="each sample needs two values at least"):
        _number(doc, {"_s": {"a": [1.0], "b": B}})


CLAIM = """
[[claim]]
id = "x"
claim = "a's mean is significantly larger than b's"
source = "s"
kind = "qualitative"
published = "significant"
metric = '_s."{arm}"'
sample_test = "two-sample"
arms = ["b sample", "a sample"]
predicate = "t > 0 and t_p_greater < 0.05"
describe = "t {t}, p {t_p}, df {f_df}"
why = "the paper's own test at 5 %"
stalls = "no run"
counterfactual = "the arms swapped"
counterfactual_arms = ["a sample", "b sample"]
unexplained = true
"""


def _claims(tmp_path, text):
    from aqmlab.reproduce.folder import load_claims

    path = tmp_path / "claims.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_claims(str(path))


def test_a_sample_test_claim_is_graded_on_the_tests_quantities(tmp_path):
    from types import SimpleNamespace

    from aqmlab.reproduce import common as cm
    from aqmlab.reproduce.loader import Context, grade
    from aqmlab.reproduce.two_sample import tests

    (c,) = _claims(tmp_path, CLAIM)
    exp = SimpleNamespace(folder=str(tmp_path), claims=[c])
    ctx = Context(exp, "/nonexistent", True, [1], None, False, {}, {})
    ctx.numbers = {"_s": {"a sample": A, "b sample": B}}
    g = grade(c, ctx, None)
    q = tests(B, A)
    assert (g.verdict, g.counterfactual_verdict) == (cm.HOLDS, cm.FAILS)
    assert g.ours == f"t {cm.fmt(q['t'])}, p {cm.fmt(q['t_p'])}, df 5, 4"
    assert g.counterfactual_ours.startswith(f"t {cm.fmt(-q['t'])}, ")
    # The arms the other way round: the predicate fails on ours.
    ctx.numbers = {"_s": {"a sample": B, "b sample": A}}
    assert grade(c, ctx, None).verdict == cm.FAILS
    # A sample too short to test: no pass, described as "–".
    ctx.numbers = {"_s": {"a sample": [1.0], "b sample": B}}
    g = grade(c, ctx, None)
    assert (g.verdict, g.ours) == (cm.FAILS, "–")


@pytest.mark.parametrize(
    "edit, expected",
    [
        (('sample_test = "two-sample"', 'sample_test = "welch"'), "claim 'x'.sample_test"),
        (('kind = "qualitative"', 'kind = "range"'), "claim 'x'.kind: expected qualitative"),
        (('predicate = "t > 0', 'predicate = "a > 0'), "unknown name 'a'"),
        (('predicate = "t > 0 and t_p_greater < 0.05"', 'predicate = "py:f"'), "not py:"),
        (('describe = "t {t}', 'describe = "t {x}'), "claim 'x'.describe: expected fields"),
    ],
)
def test_a_bad_sample_test_claim_is_one_line_naming_the_key(tmp_path, edit, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _claims(tmp_path, CLAIM.replace(*edit))
    msg = str(e.value)
    assert msg.startswith(str(tmp_path / "claims.toml")) and expected in msg, msg
    assert "\n" not in msg
