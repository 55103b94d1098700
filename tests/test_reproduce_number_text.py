"""A ``[numbers.NAME]`` of ``text`` (docs/reproductions.md, "Metrics as data";
aqmlab.reproduce.number_text): a text filled from the numbers above it and the parameters,
``otherwise`` where ``when`` does not hold, for a claim's ``{NAME}``; errors in one line naming
the file and the key."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from aqmlab.exceptions import AqmlabError

PATH = "/r/experiment.toml"

DOC = {
    "when": "t.u100 >= 0 and t.u200 >= 0",
    "text": "{choose(t.u200 >= 0.9 and t.u100 < 0.9, 'supported', choose(t.u200 > t.u100, "
    "'in part', 'not supported'))}: {t.u100:.3f} and {t.u200:.3f} over {duration_s:g} s",
    "otherwise": "RTT {rtt} ms was not run",
}


def _text(doc, numbers, params=None):
    from aqmlab.reproduce import number_text
    from aqmlab.reproduce.metrics import load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    assert isinstance(nd, number_text.TextDef)
    params = {"duration_s": 300.0, "rtt": 300, **(params or {})}
    ctx = SimpleNamespace(numbers=numbers, params=params, claims={}, quick=False, seeds=[1])
    return number_text.compute(nd, ctx)


@pytest.mark.parametrize(
    "u100, u200, expected",
    [
        (0.788, 0.946, "supported: 0.788 and 0.946 over 300 s"),
        (0.788, 0.846, "in part: 0.788 and 0.846 over 300 s"),
        (0.788, 0.7, "not supported: 0.788 and 0.700 over 300 s"),
        (0.95, 0.97, "in part: 0.950 and 0.970 over 300 s"),  # 100 ms reaches 0.9 already
        (math.nan, 0.97, "RTT 300 ms was not run"),  # no value: when does not hold
    ],
)
def test_the_text_is_filled_from_the_numbers_or_is_otherwise(u100, u200, expected):
    assert _text(DOC, {"t": {"u100": u100, "u200": u200}}) == expected


def test_without_when_it_is_the_text_and_without_otherwise_no_value():
    assert _text({"text": "{n:.1f} s"}, {"n": 2.25}) == "2.2 s"
    assert _text({"text": "{n}", "when": "n > 3"}, {"n": 2.25}) is None


@pytest.mark.parametrize(
    "doc, expected",
    [
        ({"text": ""}, "numbers.x.text: expected a text"),
        ({"text": "a", "sweeps": ["sweep"]}, "numbers.x.sweeps: not with text"),
        ({"text": "a", "otherwise": "b"}, "numbers.x.otherwise: only with when"),
        ({"text": "{x.y()}"}, "numbers.x.text: 'x.y()': only abs()"),
        ({"text": "a", "when": 3}, "numbers.x.when: expected a text"),
    ],
)
def test_a_bad_text_is_one_line_naming_the_key(doc, expected):
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"x": doc}, ["sweep"])
    assert str(e.value).startswith(PATH) and expected in str(e.value)
    assert "\n" not in str(e.value)


def test_a_name_above_it_that_is_missing_is_one_line_at_run_time():
    with pytest.raises(AqmlabError, match=r"numbers\.x\.text: 'nope': no such row field"):
        _text({"text": "{nope}"}, {})
