"""Expressions in a claim's describe template (docs/reproductions.md, "claims.toml"): a field
``{100 * a}`` is computed from the arms and printed as numbers are; a plain template is
unchanged; a field naming no arm is one line naming the claim."""

from __future__ import annotations

import pytest


def _describe(template, arms=2):
    from aqmlab.reproduce.describe_expr import make

    return make(template, arms, "claims.toml: claim 'x'")


def test_fields_are_expressions_of_the_arms():
    d = _describe("{100 * a} % less, {a / b} of b, {abs(b - a)}")
    assert d((0.25, 0.5)) == "25.0 % less, 0.500 of b, 0.250"
    assert _describe("{100 * a} %", arms=1)((0.8137,)) == "81.4 %"


def test_a_plain_template_is_left_to_the_plain_describe():
    assert _describe("{a} vs {b} ms") is None and _describe("no field") is None


@pytest.mark.parametrize(
    "template, expected",
    [
        ("{100 * c}", "'c' is not an arm (expected an expression of a, b)"),
        ("{a.b()}", "only abs(), div(), number() and split() may be called"),
        ("{a +}", "is not an expression"),
    ],
)
def test_a_bad_field_is_one_line_naming_the_claim(template, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _describe(template)
    msg = str(e.value)
    assert (
        "\n" not in msg and msg.startswith("claims.toml: claim 'x': describe") and expected in msg
    ), msg
