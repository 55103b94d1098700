"""A claim's describe with fields that are arithmetic of the arms (docs/reproductions.md,
"claims.toml"; aqmlab.reproduce.describe_expr): exact texts, and one-line errors."""

from __future__ import annotations

import pytest

WHERE = "/r/claims.toml: claim 'x'"


def _describe(template, values, n=2):
    from aqmlab.reproduce.describe_expr import compile_describe

    return compile_describe(template, "abcdefgh"[:n], WHERE)(values)


def test_fields_are_printed_as_numbers_are():
    assert _describe("{a / b}", (1.0, 1.04)) == "0.962"
    assert _describe("C/T {100 * a / b} % ({a} vs {b})", (3.0, 4.0)) == "C/T 75.0 % (3.00 vs 4.00)"
    assert _describe("{abs(a - b)} apart, {max(a, b)} most", (2.0, 5.5)) == "3.50 apart, 5.50 most"
    assert _describe("{{a}} is {a}", (2,), n=1) == "{a} is 2"


def test_no_value_prints_a_dash():
    assert _describe("{a / b}", (1.0, 0.0)) == "–"  # tail drop carried nothing
    assert _describe("{a / b}", (1.0, 0)) == "–"
    assert _describe("{a / b}", (None, 1.0)) == "–"
    assert _describe("{a / b}", (1.0, float("nan"))) == "–"


def test_plain_templates_keep_their_old_path():
    from aqmlab.reproduce.describe_expr import has_expressions

    assert not has_expressions("{a} vs {b} ms", "ab")
    assert has_expressions("{a / b}", "ab")
    assert has_expressions("{ab}", "ab")  # not an arm: a name the check then refuses


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{a / c}", "field {a / c}: unknown name 'c'"),
        ("{a < b}", "field {a < b}: a comparison or and/or/not"),
        ("{a and b}", "field {a and b}: a comparison or and/or/not"),
        ("{len(a)}", "field {len(a)}: only abs(), min() and max() may be called"),
        ("{a +}", "field {a +}: not an expression"),
        ("{a!r}", "expected fields of the arms (a, b) or their arithmetic"),
        ("{}", "expected fields of the arms (a, b) or their arithmetic"),
        ("{a", "describe '{a': expected '}'"),
    ],
)
def test_a_bad_field_is_one_line_naming_the_claim(template, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _describe(template, (1.0, 2.0))
    assert str(e.value).startswith(f"{WHERE}: describe {template!r}")
    assert expected in str(e.value)
    assert "\n" not in str(e.value)


def test_the_loader_uses_it_for_a_claims_describe():
    """The claim's describe as the loader builds it (not the module's py: function)."""
    from aqmlab.reproduce.folder import ClaimDef
    from aqmlab.reproduce.loader import _describe as loader_describe

    c = ClaimDef.__new__(ClaimDef)
    c.describe, c.arms = "{a / b}", ["codel", "droptail"]
    assert loader_describe(c, None, WHERE)((3.0, 4.0)) == "0.750"
    c.describe = "{a} vs {b}"
    assert loader_describe(c, None, WHERE)((3.0, 4.0)) == "3.00 vs 4.00"
