"""Fields read from numbers (docs/reproductions.md, "Metrics as data", ``lookup``): a number laid
out from numbers at another number's value, with exact values; errors in one line naming the
file, the table and the key."""

from __future__ import annotations

import pytest

PATH = "/r/experiment.toml"

NUMBERS = {
    "best": {"slow": 13, "fast": 50.0, "none": None, "t": {"x": 1}},
    "cells": {
        "slow|13|down": {"ms": 1.5},
        "slow|50|down": {"ms": 9.0},
        "fast|13|down": {"ms": 2.5},
        "fast|50|down": {"ms": 7.0},
    },
}


def _number(doc, numbers=None):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, ["sweep"])
    return compute(nd, {}, lambda t: t, numbers or NUMBERS)


def test_a_number_at_another_numbers_value():
    doc = {
        "each": {"rate": ["slow", "fast"]},
        "lookup": {"b": 'best."{rate}"'},
        "key": ["{rate}", "{b}"],
        "of": {"ms": 'cells."{rate}|{b}|down".ms'},
    }
    # 13 at slow, 50.0 (integral, written 50) at fast: not the other buffer's cell.
    assert _number(doc) == {"slow": {"13": {"ms": 1.5}}, "fast": {"50": {"ms": 7.0}}}
    other = {**NUMBERS, "best": {"slow": 50, "fast": 13}}
    assert _number(doc, other) == {"slow": {"50": {"ms": 9.0}}, "fast": {"13": {"ms": 2.5}}}
    # With expr, one number per combination.
    one = {**doc, "key": ["{rate}"], "of": {"v": 'cells."{rate}|{b}|down".ms'}, "expr": "2 * v"}
    assert _number(one) == {"slow": 3.0, "fast": 14.0}


@pytest.mark.parametrize(
    "doc, message",
    [
        (
            {
                "each": {"r": ["slow"]},
                "key": ["{r}"],
                "lookup": {"b": 'nope."{r}"'},
                "of": {"a": "best.slow"},
            },
            "/r/experiment.toml: numbers.x.lookup.b: "
            "no number 'nope.\"slow\"' (declared above this one)",
        ),
        (
            {
                "each": {"r": ["none"]},
                "key": ["{r}"],
                "lookup": {"b": 'best."{r}"'},
                "of": {"a": "best.slow"},
            },
            "/r/experiment.toml: numbers.x.lookup.b: "
            "'best.\"none\"': expected one number or text, got None",
        ),
        (
            {
                "each": {"r": ["t"]},
                "key": ["{r}"],
                "lookup": {"b": "best.{r}"},
                "of": {"a": "best.slow"},
            },
            "/r/experiment.toml: numbers.x.lookup.b: "
            "'best.t': expected one number or text, got {'x': 1}",
        ),
    ],
)
def test_lookup_errors_name_the_key(doc, message):
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _number(doc)
    assert str(e.value) == message


@pytest.mark.parametrize(
    "doc, key",
    [
        ({"of": {"a": "best.slow"}, "lookup": {"b": "best.slow"}}, "numbers.x.lookup"),
        (
            {"each": {"r": ["a"]}, "key": ["{r}"], "of": {"a": "best.slow"}, "lookup": ["b"]},
            "numbers.x.lookup",
        ),
        (
            {"each": {"r": ["a"]}, "key": ["{r}"], "of": {"a": "best.slow"}, "lookup": {"b": ""}},
            "numbers.x.lookup",
        ),
    ],
)
def test_lookup_declaration_errors(doc, key):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"x": doc}, ["sweep"])
    text = str(e.value)
    assert text.startswith(f"/r/experiment.toml: {key}") and "\n" not in text
