"""Two curves compared at the same abscissa (docs/reproductions.md, "Metrics as data":
``[numbers.NAME]`` with ``match``), over a table of points a ``[frames.NAME]`` of ``means``
makes from the runs: exact values, interpolated points, stalled points as ties, and the
one-line errors naming the file and the key."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")

PATH = "/r/experiment.toml"
MATCH = {
    "column": "kind",
    "curves": ["A", "B"],
    "x": "q",
    "y": "tput",
    "delivered": "tput",
    "at": "queues",
    "x_name": "queue",
    "delivered_key": "util",
}


def _points():
    """Curve A: (q, tput) = (2, 0.5), (4, 0.9), and a stalled point (1, 0.05); curve B:
    (3, 0.6), (5, 0.95) (outside A's live range) and (1.5, 0.04) (stalled)."""
    return pd.DataFrame(
        {
            "point": ["a2", "a4", "a1", "b3", "b5", "b1"],
            "kind": ["A", "A", "A", "B", "B", "B"],
            "q": [2.0, 4.0, 1.0, 3.0, 5.0, 1.5],
            "tput": [0.5, 0.9, 0.05, 0.6, 0.95, 0.04],
        }
    )


def _number(doc, frames):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"x": doc}, list(frames))
    return compute(nd, frames, lambda t: t)


def test_each_point_of_one_curve_against_the_other_interpolated():
    got = _number({"sweeps": ["pts"], "match": MATCH}, {"pts": _points()})
    # A interpolated at B's live points inside A's live range [2, 4]: at q 3, 0.5 + 0.4 / 2;
    # b5 (q 5) is outside it; the stalled points are themselves on both arms.
    assert got["A at B's queues"] == {"b3 (queue 3.00)": 0.7, "b1": 0.04, "a1": 0.05}
    assert got["B"] == {"b3 (queue 3.00)": 0.6, "b1": 0.04, "a1": 0.05}
    # The counterfactual: B (live: q 3 and 5) interpolated at A's points inside [3, 5]
    # (0.6 + 0.35 / 2, as NumPy's interp rounds it).
    assert got["B at A's queues"] == {"a4 (queue 4.00)": 0.7749999999999999, "a1": 0.05, "b1": 0.04}
    assert got["A"] == {"a4 (queue 4.00)": 0.9, "a1": 0.05, "b1": 0.04}
    assert got["util"]["A at B's queues"] == got["A at B's queues"]
    assert got["util"]["B"] == got["B"]


def test_where_selects_the_points_and_the_delivered_column_is_its_own():
    pts = _points().assign(d=[0.5, 0.5, 0.5, 0.5, 0.5, 0.05])
    m = {**MATCH, "delivered": "d", "x_name": "q"}
    del m["delivered_key"]
    got = _number({"sweeps": ["pts"], "where": "point != 'a1'", "match": m}, {"pts": pts})
    # a1 left out, so A's live range is [2, 4]; only b1 is stalled (d 0.05), its own value.
    assert got["A at B's queues"] == {"b3 (q 3.00)": 0.7, "b1": 0.04}
    assert got["delivered"]["A at B's queues"] == {"b3 (q 3.00)": 0.5, "b1": 0.05}
    assert got["B at A's queues"] == {"a4 (q 4.00)": 0.7749999999999999, "b1": 0.04}


def test_a_means_frame_is_the_runs_grouped_means_in_first_seen_order(tmp_path):
    from aqmlab.reproduce.reference_frames import frames, load

    runs = pd.DataFrame(
        {
            "point": ["p2", "p1", "p2", "p1", "p2"],
            "tcp": ["t", "t", "t", "t", "r"],
            "x": [1.0, 10.0, 2.0, 20.0, 100.0],
            "y": [3, 4, 5, 6, 7],
        }
    )
    defs = load(
        PATH,
        {
            "m": {"means": "sweep", "by": ["point"], "columns": ["x"], "where": "tcp == 't'"},
            "mm": {"means": "m", "by": ["point"], "columns": ["x"]},
        },
        str(tmp_path),
        ["sweep"],
    )
    got = frames(defs, [], lambda t: t, {"sweep": runs})
    assert got["m"].to_dict("records") == [{"point": "p2", "x": 1.5}, {"point": "p1", "x": 15.0}]
    assert got["mm"].equals(got["m"])
    assert frames(defs, [], lambda t: t, {}) == {}  # the sweep did not run: left out


def test_a_means_frame_of_several_sweeps_and_another_reduction(tmp_path):
    """``means`` a list: the rows of those of its sweeps this mode ran, one after another;
    ``reduce``: each group's median (min, max) in place of its mean (static-rates' grid of
    medians over loads and seeds, then its lowest over the short RTTs)."""
    from aqmlab.reproduce.reference_frames import frames, load

    a = pd.DataFrame({"rate": [1, 1, 2], "rtt": [10, 500, 10], "u": [0.1, 0.2, 0.3]})
    b = pd.DataFrame({"rate": [1, 1, 2, 1], "rtt": [10, 500, 10, 10], "u": [0.5, 0.4, 0.6, 0.9]})
    doc = {
        "grid": {"means": ["a", "b", "c"], "reduce": "median", "by": ["rate", "rtt"],
                 "columns": ["u"]},
        "short": {"means": "grid", "where": "rtt <= 300", "reduce": "min", "by": ["rate"],
                  "columns": ["u"]},
        "top": {"means": ["a"], "reduce": "max", "by": ["rate"], "columns": ["u"]},
    }  # fmt: skip
    defs = load(PATH, doc, str(tmp_path), ["a", "b", "c"])
    got = frames(defs, [], lambda t: t, {"a": a, "b": b})
    # (1, 10): 0.1, 0.5, 0.9; (1, 500): 0.2, 0.4; (2, 10): 0.3, 0.6; in first-seen order.
    assert got["grid"].to_dict("records") == [
        {"rate": 1, "rtt": 10, "u": 0.5},
        {"rate": 1, "rtt": 500, "u": 0.30000000000000004},
        {"rate": 2, "rtt": 10, "u": 0.44999999999999996},
    ]
    assert got["short"].to_dict("records") == [
        {"rate": 1, "u": 0.5},
        {"rate": 2, "u": 0.44999999999999996},
    ]
    assert got["top"].to_dict("records") == [{"rate": 1, "u": 0.2}, {"rate": 2, "u": 0.3}]
    # Only b ran: its rows alone (top, of a alone, is left out); none ran: every one is.
    only_b = frames(defs, [], lambda t: t, {"b": b})
    assert only_b["grid"]["u"].tolist() == [0.7, 0.4, 0.6] and "top" not in only_b
    assert frames(defs, [], lambda t: t, {}) == {}


@pytest.mark.parametrize(
    "doc, expected",
    [
        (
            {"sweeps": ["pts"], "match": {**MATCH, "curves": ["A"]}},
            "numbers.x.match.curves: expected two distinct values of column, got ['A']",
        ),
        (
            {"sweeps": ["pts"], "match": {**MATCH, "curves": ["A", "A"]}},
            "numbers.x.match.curves: expected two distinct values",
        ),
        (
            {"sweeps": ["pts"], "match": {**MATCH, "x": 3}},
            "numbers.x.match.x: expected a text, got 3",
        ),
        (
            {"sweeps": ["pts"], "match": {**MATCH, "z": 3}},
            "numbers.x.match.z: unknown key (expected one of column, curves",
        ),
        ({"sweeps": ["pts"], "match": 3}, "numbers.x.match: expected a table"),
        (
            {"sweeps": ["pts", "other"], "match": MATCH},
            "numbers.x.sweeps: expected one table of points (pts, other)",
        ),
        (
            {"sweeps": ["pts"], "by": ["kind"], "match": MATCH},
            "numbers.x.by: not with match (only sweeps and where)",
        ),
        (
            {"sweeps": ["pts"], "where": "a =", "match": MATCH},
            "numbers.x.where: 'a =' is not an expression",
        ),
    ],
)
def test_a_bad_match_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"x": doc}, ["pts", "other"])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


@pytest.mark.parametrize(
    "doc, expected",
    [
        (
            {"csv": "a.csv", "means": "sweep"},
            "frames.m: expected csv (a file of the folder) or means, not both",
        ),
        (
            {"means": "nope", "by": ["p"], "columns": ["x"]},
            "frames.m.means: expected a [[sweep]] or a frame declared above (sweep), or a list "
            "of them, got 'nope'",
        ),
        (
            {"means": ["sweep", 3], "by": ["p"], "columns": ["x"]},
            "frames.m.means: expected a [[sweep]] or a frame declared above (sweep), or a list "
            "of them, got ['sweep', 3]",
        ),
        (
            {"means": "sweep", "by": ["p"], "columns": ["x"], "reduce": "sum"},
            "frames.m.reduce: expected mean or median or min or max, got 'sum'",
        ),
        ({"means": "sweep", "columns": ["x"]}, "frames.m.by: expected a list of columns, got None"),
        (
            {"means": "sweep", "by": ["p"], "columns": []},
            "frames.m.columns: expected a list of columns, got []",
        ),
        (
            {"means": "sweep", "by": ["p"], "columns": ["x"], "where": 1},
            "frames.m.where: expected an expression of the columns, got 1",
        ),
    ],
)
def test_a_bad_means_frame_is_one_line_naming_the_file_and_key(tmp_path, doc, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.reference_frames import load

    with pytest.raises(AqmlabError) as e:
        load(PATH, {"m": doc}, str(tmp_path), ["sweep"])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_missing_columns_are_one_line_at_run_time(tmp_path):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.reference_frames import frames, load

    with pytest.raises(
        AqmlabError, match=r"numbers\.x\.match: no column 'q' in the results of 'pts'$"
    ):
        _number({"sweeps": ["pts"], "match": MATCH}, {"pts": _points().drop(columns="q")})
    with pytest.raises(AqmlabError, match=r"numbers\.x\.sweeps: 'pts' did not run in this mode$"):
        from aqmlab.reproduce.metrics import compute, load_numbers

        (nd,) = load_numbers(PATH, {"x": {"sweeps": ["pts"], "match": MATCH}}, ["pts", "o"])
        compute(nd, {"o": _points()}, lambda t: t)
    defs = load(PATH, {"m": {"means": "s", "by": ["p"], "columns": ["x"]}}, str(tmp_path), ["s"])
    with pytest.raises(AqmlabError, match=r"frames\.m\.by: no column 'p' in the results of 's'$"):
        frames(defs, [], lambda t: t, {"s": pd.DataFrame({"x": [1.0]})})


def test_seeds_makes_the_match_on_each_seeds_rows_as_lists_by_point_name():
    """``seeds = "seed"``: the same match on each seed's points alone, each arm's value at a
    point the list of its seeds' values in seed order (a claim's per_seed), the point named
    without its abscissa (which differs seed by seed); a seed without the point: NaN."""
    one = _points().assign(seed=1)
    # Seed 2: A's curve 0.1 higher, B's q 3 point at 3.5 (A at it: 0.6 + 0.4 · 0.75 = 0.9),
    # and no b5 point's twin in A's range either.
    two = _points().assign(seed=2, tput=[0.6, 1.0, 0.05, 0.6, 0.95, 0.04])
    two.loc[two["point"] == "b3", "q"] = 3.5
    got = _number(
        {"sweeps": ["pts"], "match": {**MATCH, "seeds": "seed"}},
        {"pts": pd.concat([two, one])},  # out of order: the lists are in seed order
    )
    assert got["A at B's queues"]["b3"] == [0.7, pytest.approx(0.9)]
    assert got["B"]["b3"] == [0.6, 0.6]
    assert got["A at B's queues"]["a1"] == [0.05, 0.05]
    assert got["util"]["B"]["b3"] == [0.6, 0.6]
    # Seed 2's A at q 4 is 1.0 against B interpolated there: the counterfactual's lists.
    assert got["A"]["a4"] == [0.9, 1.0]
