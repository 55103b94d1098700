"""Numbers gathered under one name (docs/reproductions.md, "Metrics as data":
``[numbers.NAME]`` with ``gather``): exact values whatever their shape, paths with quoted
keys, and the one-line errors naming the file and the key."""

from __future__ import annotations

import pytest

PATH = "/r/experiment.toml"


def _gather(doc, numbers):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"g": doc}, ["sweep"])
    return compute(nd, {}, lambda t: t, numbers)


def test_gather_is_a_table_of_numbers_declared_above():
    numbers = {
        "_ns2_fig56": {"RED": {"p1": 0.9}, "tail drop": {"p1": 0.8}},
        "cells": {"1.5 Mb/s": {"down": 3.0}},
        "runs": 4,
    }
    got = _gather(
        {"gather": {"_fig56": "_ns2_fig56", "down": 'cells."1.5 Mb/s".down', "n": "runs"}},
        numbers,
    )
    assert got == {"_fig56": numbers["_ns2_fig56"], "down": 3.0, "n": 4}
    assert list(got) == ["_fig56", "down", "n"]


@pytest.mark.parametrize(
    "doc, expected",
    [
        (
            {"gather": {}},
            'numbers.g.gather: expected a table of KEY = "the path of a number declared above", '
            "got {}",
        ),
        ({"gather": {"a": 1}}, "numbers.g.gather: expected a table of KEY = "),
        (
            {"gather": {"a": "x"}, "by": ["k"]},
            "numbers.g.by: not with gather (a table of numbers above)",
        ),
    ],
)
def test_a_bad_gather_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"g": doc}, ["sweep"])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_a_path_not_declared_above_is_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _gather({"gather": {"a": "x.y"}}, {"x": {"z": 1}})
    assert str(e.value) == f"{PATH}: numbers.g.gather.a: no number 'x.y' (declared above this one)"
