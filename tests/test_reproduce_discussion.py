"""The discussion declared in experiment.toml (docs/reproductions.md, "Report tables and
discussion as data"; aqmlab.reproduce.discussion and report_text): paragraphs filled from the
numbers, the claims' verdicts and the parameters, printed where their `when` holds; one-line
errors naming the file, the paragraph and the key."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from aqmlab.exceptions import AqmlabError

PATH = "/r/experiment.toml"
NUMBERS = {
    "extra": 0.0423,
    "cases": {"tail drop": {"p50_ms": 241.6}, "CoDel": {"p50_ms": 7.25, "mb": None}},
    "by_load": "web +4.1 %, pages +9.9 %",
    "phases": [{"p50": 1.5}, {"p50": 2.5}],
}


def _ctx(verdict="differs", quick=False, params=None):
    from aqmlab.reproduce.common import Claim

    claim = Claim("c", "s", "12", 4.2, verdict, unexplained=True)
    rerun = SimpleNamespace(text="confirmed: 500 ms → 0.91")
    params = {"duration_s": 30.0, "label": "Verizon", "verizon": True, **(params or {})}
    return SimpleNamespace(
        numbers=NUMBERS,
        params=params,
        claims={"extra-bytes": claim},
        tests={"extra-bytes": [None, rerun]},
        quick=quick,
        seeds=[1, 2, 3],
        out="/o",
        fill=lambda t: t.format(**params),
    )


def _paragraphs(doc, ctx):
    from aqmlab.reproduce import discussion

    return discussion.paragraphs(discussion.load(PATH, doc), ctx)


DOC = [
    "Over {duration_s:g} s.",  # a text, as before: the parameters only
    {"text": "Tail drop delivers {100 * extra:+.1f} % more; medians "
             "{`cases.\"tail drop\".p50_ms`:.0f} and {cases.CoDel.p50_ms} ms, "
             "{cases.CoDel.mb} MB; by load: {by_load}."},
    {"when": "`claim.extra-bytes.verdict` != 'agrees'",
     "text": "It {`claim.extra-bytes.verdict`} (ours {`claim.extra-bytes.ours`}); test: "
             "{`claim.extra-bytes.test`}."},
    {"when": "quick", "text": "Quick run: {duration_s:g} s, {seeds} seeds."},
    {"when": "not verizon", "text": "Not the Verizon trace."},
    {"when": "`phases.1.p50` > 2 and max(`phases.0.p50`, 3) == 3",
     "text": "Phase 2: {`phases.1.p50`}."},
]  # fmt: skip


def test_paragraphs_filled_and_chosen_by_the_run():
    assert _paragraphs(DOC, _ctx()) == [
        "Over 30 s.",
        "Tail drop delivers +4.2 % more; medians 242 and 7.25 ms, – MB; by load: web +4.1 %, "
        "pages +9.9 %.",
        "It differs (ours 4.20); test: confirmed: 500 ms → 0.91.",
        "Phase 2: 2.50.",
    ]


def test_the_counterfactual_runs_print_the_other_paragraphs():
    got = _paragraphs(DOC, _ctx(verdict="agrees", quick=True, params={"verizon": False}))
    assert got[2:] == ["Quick run: 30 s, 3 seeds.", "Not the Verizon trace.", "Phase 2: 2.50."]
    assert len(got) == 5  # the verdict's paragraph left out


def test_not_is_a_truth_value():
    """`not x` of a value (metrics' scalar evaluation): ~True would be -2, always true."""
    from aqmlab.reproduce import report_text

    ctx = _ctx()
    assert report_text.condition(ctx, "not verizon", {}, "w") is False
    assert report_text.condition(ctx, "not (extra > 1)", {}, "w") is True
    assert report_text.condition(ctx, "cases.CoDel.mb > 0", {}, "w") is False  # no value


def test_lists_joined_counted_and_a_reference_tests_points():
    """A list field prints its items as numbers are (or with the spec), joined by ", "; len()
    counts them; claim.ID.test_true / test_false are the points of its first test, a
    reference one, where the predicate is true / false (red-bursty's "true at 3 of 3")."""
    ctx = _ctx()
    ctx.numbers = {**NUMBERS, "pts": ["RED min_th 3", "RED min_th 5"], "xs": [0.12345, 1234.5]}
    ref = SimpleNamespace(text="t", named={"td 20p (queue 13.9)": False, "td 8p": True,
                                           "td 22p (queue 14.0)": False})  # fmt: skip
    ctx.tests = {"extra-bytes": [ref]}
    doc = [
        {"text": "{len(pts)} stalled ({pts}); {xs}; {xs:.1f}."},
        {"text": "True at {len(`claim.extra-bytes.test_true`)}, false at "
                 "{`claim.extra-bytes.test_false`}."},
        {"when": "len(pts) == 0", "text": "none"},
    ]  # fmt: skip
    assert _paragraphs(doc, ctx) == [
        "2 stalled (RED min_th 3, RED min_th 5); 0.123, 1,234; 0.1, 1234.5.",
        "True at 1, false at td 20p (queue 13.9), td 22p (queue 14.0).",
    ]
    ctx.tests = {}  # no test: no points
    assert _paragraphs(doc[1:2], ctx) == ["True at 0, false at ."]
    with pytest.raises(AqmlabError) as e:
        _paragraphs([{"text": "{len(extra)}"}], ctx)
    assert str(e.value) == (
        "/r/experiment.toml: discussion[0].text: 'len(extra)': len() of float: expected a list"
    )


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([3],
         "/r/experiment.toml: discussion[0]: expected a text or a table { text, when }, got 3"),
        ([{"text": "x", "if": "quick"}],
         "/r/experiment.toml: discussion[0].if: unknown key (expected one of text, when, none, "
         "each, lists)"),
        ([{"text": "x", "each": {"c": ["a", "b"], "d": [1]}}],
         "/r/experiment.toml: discussion[0].each: expected a table of NAME = [values], every list "
         "of one length, got {'c': ['a', 'b'], 'd': [1]}"),
        ([{"text": "{`cases.{c}.x`!r}", "each": {"c": ["CoDel"]}}],
         "/r/experiment.toml: discussion[0].text: '{`cases.CoDel.x`!r}': expected fields of "
         "expressions, like {cases.CoDel.mb} or {100 * x:+.1f} (a comparison belongs in `when`)"),
        ([{"when": "quick"}], "/r/experiment.toml: discussion[0].text: expected a text"),
        (["a", {"text": "{x!r}"}],
         "/r/experiment.toml: discussion[1].text: '{x!r}': expected fields of expressions, like "
         "{cases.CoDel.mb} or {100 * x:+.1f} (a comparison belongs in `when`)"),
        ("text", "/r/experiment.toml: discussion: expected a list of texts or [[discussion]] "
                 "tables, got 'text'"),
    ],
)  # fmt: skip
def test_declaration_errors_are_one_line(doc, message):
    from aqmlab.reproduce import discussion

    with pytest.raises(AqmlabError) as e:
        discussion.load(PATH, doc)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"text": "{cases.PIE.p50_ms}"},
         "/r/experiment.toml: discussion[0].text: 'cases.PIE.p50_ms': no such row field, claim, "
         "parameter or number"),
        ({"text": "{`claim.nope.verdict`}"},
         "/r/experiment.toml: discussion[0].text: 'claim.nope.verdict': no claim 'nope' in "
         "claims.toml"),
        ({"text": "{`claim.extra-bytes.colour`}"},
         "/r/experiment.toml: discussion[0].text: 'claim.extra-bytes.colour': a claim has no field "
         "'colour'"),
        ({"text": "x", "when": "by_load"},
         "/r/experiment.toml: discussion[0].when: 'by_load': expected a condition, got the text "
         "'web +4.1 %, pages +9.9 %'"),
        ({"text": "{by_load:.1f}"},
         "/r/experiment.toml: discussion[0].text: {by_load:.1f}: Unknown format code 'f' for "
         "object of type 'str'"),
        ({"text": "x", "when": "__import__('os')"},
         "/r/experiment.toml: discussion[0].when: \"__import__('os')\": only abs(), div(), "
         "number(), split(), min(), max(), choose(), len() and join() may be called "
         "(expected numbers, "
         "parameters, row "
         "fields, claim.ID.FIELD, texts, + - * /, comparisons, in [...], and/or/not, "
         "abs/div/number/split/min/max/choose/len/join)"),
    ],
)  # fmt: skip
def test_errors_after_the_run_name_the_paragraph(item, message):
    with pytest.raises(AqmlabError) as e:
        _paragraphs([item], _ctx())
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([{"text": "x", "when": "quick and"}],
         "/r/experiment.toml: discussion[0].when: 'quick and' is not an expression: invalid "
         "syntax"),
        ([{"text": "{round(x)}"}],
         "/r/experiment.toml: discussion[0].text: 'round(x)': only abs(), div(), number(), "
         "split(), min(), max(), choose(), len() and join() may be called "
         "(expected numbers, parameters, "
         "row fields, "
         "claim.ID.FIELD, texts, + - * /, comparisons, in [...], and/or/not, "
         "abs/div/number/split/min/max/choose/len/join)"),
    ],
)  # fmt: skip
def test_grammar_is_checked_before_anything_runs(doc, message):
    from aqmlab.reproduce import discussion

    with pytest.raises(AqmlabError) as e:
        discussion.load(PATH, doc)
    assert str(e.value) == message


def test_choose_takes_one_branch_and_none_names_no_value():
    from aqmlab.reproduce import discussion

    doc = [
        {
            "text": "A {choose(extra > 0.04, 'more', 'less')}, "
            "B {choose(extra > 0, 'yes', cases.PIE.nope)}, "  # the other branch is not read
            "C {choose(extra < 0, 1, cases.CoDel.mb)}, D {cases.CoDel.mb}",
            "none": "stalled",
        }
    ]
    assert discussion.paragraphs(discussion.load(PATH, doc), _ctx()) == [
        "A more, B yes, C stalled, D stalled"
    ]


def test_module_true_is_refused_now_the_module_writes_no_paragraphs():
    """``{ module = true }`` placed a module's ``discussion(ctx)`` paragraphs; the loader no
    longer calls that hook (docs/reproductions.md, "The module"), so the entry is one line
    saying what to write instead."""
    from aqmlab.reproduce import discussion

    for bad in (["first", {"module": True}], [{"module": True, "text": "x"}]):
        with pytest.raises(AqmlabError) as e:
            discussion.load(PATH, bad)
        msg = str(e.value)
        assert msg.startswith(f"{PATH}: discussion[") and ".module: the loader no longer" in msg
        assert "{ text, when }" in msg and "\n" not in msg


def test_each_repeats_a_paragraph_its_fields_filled_first():
    """codel-dynamic's ns-2.35 comparison, one paragraph per RED arm: ``{NAME}`` filled in the
    text and ``when`` (in a backticked name too), ``NAME`` a row field of the expressions."""
    doc = [
        {
            "each": {"c": ["tail drop", "CoDel", "CoDel"], "n": [1, 2, 3]},
            "when": "n < 3 and `cases.{c}.p50_ms` > 0",
            "text": "{c} ({n}): {`cases.{c}.p50_ms`} ms, {choose(c == 'CoDel', 'low', 'high')}.",
        }
    ]
    assert _paragraphs(doc, _ctx()) == ["tail drop (1): 242 ms, high.", "CoDel (2): 7.25 ms, low."]
