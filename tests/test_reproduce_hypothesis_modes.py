"""A hypothesis of one mode's runs (docs/reproductions.md, "claims.toml"): ``modes =
["quick"]`` explains a claim in a quick run and is left out of a full run's explanation; a bad
``modes`` is one line naming the file, the table and the key."""

from __future__ import annotations

import pytest
from conftest import example_folder, refused_in_one_line

CLAIMS = """
[hypothesis.short]
hypothesis = "the quick run's short phases"
tested_by = "the full run"
outcome = "not known from a quick run"
modes = ["quick"]

[[claim]]
id = "x"
claim = "the median (ms)"
source = "S"
kind = "numeric"
published = "5"
metric = "m"
explanation = ["short", { hypothesis = "the load", tested_by = "a rerun", outcome = "none" }]
unexplained = "what the load leaves"
"""


def _folder(tmp_path, claims=CLAIMS):
    return example_folder(tmp_path, claims)


def _graded(tmp_path, quick):
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(_folder(tmp_path / ("quick" if quick else "full"))))
    ctx = Context(exp, "/nonexistent", quick, [1], None, False, {}, {})
    ctx.numbers["m"] = 9.0  # differs from 5
    return grade(exp.claims[0], ctx, None)


def test_a_quick_hypothesis_explains_only_quick_runs(tmp_path):
    quick, full = _graded(tmp_path, True), _graded(tmp_path, False)
    assert quick.verdict == full.verdict == "differs"
    assert [h["hypothesis"] for h in quick.hypotheses] == [
        "the quick run's short phases",
        "the load",
    ]
    assert [h["hypothesis"] for h in full.hypotheses] == ["the load"]
    assert all("modes" not in h for h in quick.hypotheses)
    assert quick.explanation.startswith("unexplained (what the load leaves); hypothesis: the quick")
    assert "short phases" not in full.explanation


@pytest.mark.parametrize("bad", ['modes = "quick"', "modes = []", 'modes = ["fast"]'])
def test_a_bad_modes_is_one_line(tmp_path, bad):
    folder = _folder(tmp_path, CLAIMS.replace('modes = ["quick"]', bad))
    refused_in_one_line(folder, "claims.toml", "hypothesis.short.modes: expected a list of the")
