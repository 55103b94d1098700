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
    noise test, none where the claim holds, after the paragraph on which cells were fitted."""
    import os

    import aqmlab.reproduce
    from aqmlab.reproduce import discussion
    from aqmlab.reproduce.common import Claim
    from aqmlab.reproduce.folder import load

    folder = os.path.join(os.path.dirname(aqmlab.reproduce.__file__), "builtin", "consumer-edge")
    items = load(folder).discussion
    ctx = _ctx()
    ctx.numbers = {
        "drops_noise_test": noise,
        "best_buffer": {"512 kb/s": 50, "1.5 Mb/s": 13},
        "held_out_buffer": {"512 kb/s": {"down": 13, "up": 50}, "1.5 Mb/s": {"down": 13, "up": 13}},
        "_held_out_ties": [],
    }
    ctx.claims = {"codel-no-more-drops": Claim("c", "s", "C ≤ T", None, verdict)}
    ctx.fill = lambda t: "FILLED"
    got = discussion.paragraphs(items, ctx)
    assert got[:3] == ["FILLED"] * 3 and got[3].startswith("Which cells were fitted: ")
    assert got[4:] == expected


def test_a_colon_or_bang_in_a_fields_quoted_text_is_the_texts():
    """``:`` and ``!`` inside a quoted text of a field are the text's (the format parser would
    read a spec or a conversion there); outside quotes, a spec still formats."""
    from aqmlab.reproduce.report_text import parse

    doc = [{"text": "{choose(n > 3, ' (' + join(ties, ', ') + '): taken!', 'none: 0')} {n:.2f}"}]
    assert _paragraphs(doc) == [" (512 kb/s up, 13): taken! 3.50"]
    assert parse('{`a."b:c".d`:g} {{x}}', "w") == [
        ("", '`a."b:c".d`', "g"),
        (" {", None, ""),
        ("x}", None, ""),
    ]


@pytest.mark.parametrize(
    ("ties", "tail"),
    [
        ([], ""),
        (["512 kb/s up, fitted to the down median", "1.5 Mb/s up, fitted to the down median"],
         " The fit cannot choose where the other direction's median is the same at every buffer "
         "(512 kb/s up, fitted to the down median, 1.5 Mb/s up, fitted to the down median): "
         "the smallest buffer is taken there."),
    ],
)  # fmt: skip
def test_consumer_edge_fitted_paragraph(ties, tail):
    """consumer-edge's declared paragraph on which cells were fitted: the fitted buffers, and
    the held-out fit's ties only where there are some."""
    import os

    import aqmlab.reproduce
    from aqmlab.reproduce import discussion
    from aqmlab.reproduce.common import Claim
    from aqmlab.reproduce.folder import load

    folder = os.path.join(os.path.dirname(aqmlab.reproduce.__file__), "builtin", "consumer-edge")
    ctx = _ctx()
    ctx.numbers = {
        "best_buffer": {"512 kb/s": 50, "1.5 Mb/s": 13},
        "held_out_buffer": {
            "512 kb/s": {"down": 13, "up": 50},
            "1.5 Mb/s": {"down": 25, "up": 200},
        },
        "_held_out_ties": ties,
        "drops_noise_test": {"cells": {}, "beyond_noise": [], "supports": False},
    }
    ctx.claims = {"codel-no-more-drops": Claim("c", "s", "C ≤ T", None, "holds")}
    ctx.fill = lambda t: "FILLED"
    got = discussion.paragraphs(load(folder).discussion, ctx)
    assert got[:3] == ["FILLED"] * 3 and len(got) == 4
    assert got[3] == (
        "Which cells were fitted: the buffer of each rate (512 kb/s: 50p, 1.5 Mb/s: 13p) is "
        "fitted to the slides' two tail-drop median delays of that rate, and the other 28 cells "
        "are graded at it. Those four tail-drop medians are not graded at a buffer fitted to "
        "themselves: each is graded held out, at the buffer fitted to the other direction's "
        "tail-drop median alone (512 kb/s down: 13p; 512 kb/s up: 50p; 1.5 Mb/s down: 25p; "
        "1.5 Mb/s up: 200p). The table 'Every buffer' gives every cell at every buffer, the "
        "script's own 13 packets among them." + tail
    )
