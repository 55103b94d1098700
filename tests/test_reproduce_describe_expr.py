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


@pytest.mark.parametrize(
    ("template", "values", "expected"),
    [
        # red-bursty's red-shorter-queue-same-utilization at "tail drop 20p": a fails a < b
        # by 0.001 packet, which three digits would print as a tie.
        ("{a} vs {b} packets", (13.553, 13.552), "13.553 vs 13.552 packets"),
        ("{a} vs {b} packets", (13.6, 13.6), "13.6 vs 13.6 packets"),
        ("{a} vs {b} packets", (13.6, 12.0), "13.6 vs 12.0 packets"),
        ("{a} vs {b} ({c})", (0.1, 0.10004, 5.0), "0.10000 vs 0.10004 (5.0000)"),
        ("{a:.1f} vs {b}", (13.553, 13.552), "13.6 vs 13.552"),  # a format is kept as it says
        ("{a / 2} vs {b / 2}", (13.554, 13.552), "6.777 vs 6.776"),
        ("{a - b} apart: {a} vs {b}", (13.553, 13.552), "0.0010000 apart: 13.553 vs 13.552"),
    ],
)
def test_unequal_values_never_print_equal(template, values, expected):
    """Issue 19's D5: a claim's numbers print with the significant digits their comparison
    needs (common.telling_digits), on both of the loader's paths (plain fields, arithmetic)."""
    from aqmlab.reproduce.folder import ClaimDef
    from aqmlab.reproduce.loader import _describe as loader_describe

    c = ClaimDef.__new__(ClaimDef)
    c.describe, c.arms, c.sample_test = template, ["x", "y", "z"][: len(values)], ""
    assert loader_describe(c, None, WHERE)(values) == expected
