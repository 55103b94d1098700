"""``join(x, sep)`` in a report's fields and conditions (docs/reproductions.md, "Report tables
and discussion as data"; aqmlab.reproduce.report_join): a list's items or a table's keys joined,
with exact texts; errors in one line naming the file, the paragraph and the key."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from aqmlab.exceptions import AqmlabError

PATH = "/r/experiment.toml"
NUMBERS = {
    "noise": {"cells": {"1.5 Mb/s up 13p": {"mean": 0.2}, "512 kb/s down 50p": {"mean": 0.1}}},
    "ties": ["512 kb/s up", 13],
    "none": [],
    "n": 3.5,
}


def _ctx():
    return SimpleNamespace(
        numbers=NUMBERS,
        params={"duration_s": 100.0},
        claims={},
        tests={},
        quick=True,
        seeds=[1],
        out="/o",
        fill=lambda t: t,
    )


def _paragraphs(doc):
    from aqmlab.reproduce import discussion

    return discussion.paragraphs(discussion.load(PATH, doc), _ctx())


def test_join_a_tables_keys_and_a_lists_items():
    doc = [
        {"text": "At {join(noise.cells, ', ')}; ties {join(ties, ' and ')}."},
        {"text": "Empty: [{join(none, ', ')}]."},
        {"when": "join(none, ', ') == ''", "text": "No tie."},
        {"when": "join(ties, '') == ''", "text": "Never printed."},
    ]
    assert _paragraphs(doc) == [
        "At 1.5 Mb/s up 13p, 512 kb/s down 50p; ties 512 kb/s up and 13.",
        "Empty: [].",
        "No tie.",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{join(n, ', ')}",
         "/r/experiment.toml: discussion[0].text: join(x, sep): expected x a list or a table, "
         "got 3.5"),
        ("{join(ties, 1)}",
         "/r/experiment.toml: discussion[0].text: join(x, sep): expected sep a text, got 1"),
        ("{join(ties)}",
         "/r/experiment.toml: discussion[0].text: 'join(ties)': join() takes 2 arguments"),
    ],
)  # fmt: skip
def test_join_errors_name_the_paragraph(text, message):
    with pytest.raises(AqmlabError) as e:
        _paragraphs([{"text": text}])
    assert str(e.value).startswith(message) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("verdict", "noise", "expected"),
    [
        ("holds", {"cells": {"a": {}}, "beyond_noise": [], "supports": True}, []),
        ("does not hold", {"cells": {}, "beyond_noise": [], "supports": False},
         ["CoDel's drop % has no value at some cell: see the table."]),
        ("does not hold", {"cells": {"1.5 Mb/s up 13p": {}, "x 50p": {}}, "beyond_noise": [],
                           "supports": True},
         ["CoDel's mean drop % is above tail drop's at 1.5 Mb/s up 13p, x 50p, against the "
          "slides' claim, but within our seeds' scatter there (each seed's CoDel against the "
          "same seed's tail drop: the paired interval includes 0), so those cells cannot decide "
          "it: see the claim's explanation."]),
        ("does not hold", {"cells": {"a 13p": {}, "b 50p": {}}, "beyond_noise": ["b 50p"],
                           "supports": False},
         ["CoDel drops at a higher rate than tail drop beyond our seeds' scatter at b 50p, "
          "against the slides' claim: see the table and the claim's explanation."]),
    ],
)  # fmt: skip
def test_consumer_edge_noise_paragraphs(verdict, noise, expected):
    """consumer-edge's declared noise paragraphs (its experiment.toml), one per outcome of its
    noise test, none where the claim holds; the module's paragraph stands before them."""
    import os

    import aqmlab.reproduce
    from aqmlab.reproduce import discussion
    from aqmlab.reproduce.common import Claim
    from aqmlab.reproduce.folder import load

    folder = os.path.join(os.path.dirname(aqmlab.reproduce.__file__), "builtin", "consumer-edge")
    items = load(folder).discussion
    ctx = _ctx()
    ctx.numbers = {"drops_noise_test": noise}
    ctx.claims = {"codel-no-more-drops": Claim("c", "s", "C ≤ T", None, verdict)}
    ctx.fill = lambda t: "FILLED"
    got = discussion.paragraphs(items, ctx, ["MODULE"])
    assert got == ["FILLED"] * 3 + ["MODULE"] + expected
