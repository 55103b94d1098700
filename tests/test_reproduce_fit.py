"""A value fitted to claims' published numbers: a [numbers.NAME] with fit
(docs/reproductions.md, "Metrics as data"; aqmlab.reproduce.fit): exact choices on made-up
numbers, ties, and one-line errors naming the file, the table and the key."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

PATH = "/r/experiment.toml"


class _Ctx:
    """What a fit reads: the numbers declared above it, the claims, the parameters."""

    def __init__(self, numbers, published, params=None):
        self.numbers = numbers
        self.params = params or {"buffers": [10, 20, 40]}
        claims = [SimpleNamespace(id=k, published=v) for k, v in published.items()]
        self.experiment = SimpleNamespace(claims=claims)

    def value(self, v):
        return self.params[v[1:-1]] if isinstance(v, str) else v


#: At buffers 10, 20, 40: rate "r1" has down 5, 9, 30 and up 1, 4, 8; rate "r2" has down 7 at
#: every buffer and up 2, 3, 4.
CELLS = {
    "r1|10|down": {"ms": 5.0},
    "r1|20|down": {"ms": 9.0},
    "r1|40|down": {"ms": 30.0},
    "r1|10|up": {"ms": 1.0},
    "r1|20|up": {"ms": 4.0},
    "r1|40|up": {"ms": 8.0},
    "r2|10|down": {"ms": 7.0},
    "r2|20|down": {"ms": 7.0},
    "r2|40|down": {"ms": 7.0},
    "r2|10|up": {"ms": 2.0},
    "r2|20|up": {"ms": 3.0},
    "r2|40|up": {"ms": 4.0},
}
#: The source's values: r1 down 10, up 5; r2 down 7, up 3.9.
PUBLISHED = {"r1-down": "10", "r1-up": "5", "r2-down": "7", "r2-up": "3.9", "q": "a finding"}

BOTH = {
    "candidates": "{buffers}",
    "each": {"rate": ["r1", "r2"]},
    "key": ["{rate}"],
    "terms": [
        {"number": '_c."{rate}|{candidate}|down".ms', "published": "{rate}-down"},
        {"number": '_c."{rate}|{candidate}|up".ms', "published": "{rate}-up"},
    ],
}
HELD_OUT = {
    "candidates": [10, 20, 40],
    "each": {"rate": ["r1", "r1", "r2", "r2"], "d": ["down", "up"] * 2, "o": ["up", "down"] * 2},
    "key": ["{rate}", "{d}"],
    "terms": [{"number": '_c."{rate}|{candidate}|{o}".ms', "published": "{rate}-{o}"}],
    "ties": "_ties",
}


def _fit(doc, numbers=None, published=PUBLISHED):
    from aqmlab.reproduce import fit
    from aqmlab.reproduce.metrics import load_numbers

    (fd,) = load_numbers(PATH, {"b": {"fit": doc}}, ["sweep"])
    ctx = _Ctx({"_c": CELLS} if numbers is None else numbers, published)
    return fit.compute(fd, ctx), ctx.numbers


def test_the_candidate_with_the_least_summed_error():
    out, _ = _fit(BOTH)
    # r1: errors 5 + 4 = 9 at 10, 1 + 1 = 2 at 20, 20 + 3 = 23 at 40 -> 20
    # r2: errors 0 + 1.9 at 10, 0 + 0.9 at 20, 0 + 0.1 at 40 -> 40 (the down term is flat)
    assert out == {"r1": 20, "r2": 40}


def test_one_term_each_and_the_fits_that_cannot_choose():
    out, numbers = _fit(HELD_OUT)
    # r1 down, fitted to up (5): |1-5|, |4-5|, |8-5| -> 20; r1 up, fitted to down (10) -> 20 (1)
    # r2 down, fitted to up (3.9) -> 40; r2 up, fitted to down (7 everywhere): a tie -> 10
    assert out == {"r1": {"down": 20, "up": 20}, "r2": {"down": 40, "up": 10}}
    assert numbers["_ties"] == ["r2 up"]


def test_ties_text_writes_each_tie_from_each_fields():
    """``ties_text``: each tie's entry from its template (the other direction named), not the
    joined keys; the same fits otherwise."""
    out, numbers = _fit(dict(HELD_OUT, ties_text="{rate} {d}, fitted to the {o} median"))
    assert out["r2"]["up"] == 10
    assert numbers["_ties"] == ["r2 up, fitted to the down median"]


def test_the_first_candidate_wins_a_tie_and_order_matters():
    """The counterfactual of the order: the same tie, candidates reversed, takes 40."""
    doc = dict(HELD_OUT, candidates=[40, 20, 10])
    out, _ = _fit(doc)
    assert out["r2"]["up"] == 40 and out["r1"]["down"] == 20


def test_one_fit_without_each_is_one_value():
    doc = {
        "candidates": [10, 20, 40],
        "terms": [{"number": '_c."r1|{candidate}|down".ms', "published": "r1-down"}],
    }
    out, _ = _fit(doc)
    assert out == 20  # |9 - 10| = 1 is the least


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("x", "numbers.b.fit: expected a table"),
        (dict(BOTH, extra=1), "numbers.b.fit.extra: unknown key"),
        (dict(BOTH, candidates=[]), "numbers.b.fit.candidates: expected a list of values or"),
        (dict(BOTH, terms=[]), "numbers.b.fit.terms: expected a list of"),
        (dict(BOTH, terms=[{"number": "x.{candidate}"}]), "numbers.b.fit.terms[0]: expected {"),
        (
            dict(BOTH, terms=[{"number": "x", "published": "q"}]),
            "numbers.b.fit.terms[0].number: expected {candidate}",
        ),
        (dict(BOTH, each={"rate": []}), "numbers.b.fit.each: expected a table of NAME"),
        (dict(BOTH, key=[]), "numbers.b.fit.key: expected one template per level with each"),
        (dict(BOTH, key=["{x}"]), "numbers.b.fit.key: fields among ['rate'], got ['x']"),
        (dict(BOTH, ties=1), "numbers.b.fit.ties: expected the name of a number"),
        (dict(BOTH, ties_text="x"), "numbers.b.fit.ties_text: expected a text (with ties"),
        (
            dict(BOTH, ties="_t", ties_text="{rate} {q}"),
            "numbers.b.fit.ties_text: fields among ['rate'], got ['q']",
        ),
    ],
)
def test_a_bad_fit_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _fit(doc)
    assert str(e.value).startswith(f"{PATH}: {expected}")
    assert "\n" not in str(e.value)


def test_fit_with_other_keys_is_refused():
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"b": {"fit": BOTH, "by": ["x"]}}, ["sweep"])
    assert str(e.value) == f"{PATH}: numbers.b.by: not with fit (the fit's keys go in fit)"


@pytest.mark.parametrize(
    ("published", "numbers", "expected"),
    [
        ({}, None, "numbers.b.fit.terms[0].published: no claim 'r1-down'"),
        (dict(PUBLISHED, **{"r1-down": "a lot"}), None, "claim 'r1-down''s published 'a lot' is"),
        (PUBLISHED, {"_c": {}}, "numbers.b.fit.terms[0].number: no number '_c.\"r1|10|down\".ms'"),
    ],
)
def test_a_missing_claim_or_number_is_one_line_at_run_time(published, numbers, expected):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _fit(BOTH, numbers, published)
    assert str(e.value).startswith(f"{PATH}: ") and expected in str(e.value)
