"""A hypothesis's outcome from one change of the set-up (docs/reproductions.md, "Metrics as
data": ``[numbers.NAME]`` with ``setup_change``): the exact text from four set-ups' values, each
branch of the outcome, and the one-line errors naming the file and the key."""

from __future__ import annotations

import pytest

PATH = "/r/experiment.toml"
TEXT = {
    "measured": "m",
    "ours": "us",
    "reference": "ref",
    "runs": "3 seeds",
    "before": "with B",
    "after": "with A",
    "change": "the change",
    "cause": "the cause",
    "cause_short": "C",
    "otherwise": "else",
}
DOC = {
    "setup_change": "vals",
    "ours": "us B",
    "reference": "ref B",
    "ours_changed": "us A",
    "reference_changed": "ref A",
    "points": {"p1": "one", "p2": "two", "p3": "three"},
    "band": [0.5, 2],
    "band_name": "band",
    "text": TEXT,
}


def _outcome(vals, doc=DOC):
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"t": doc}, ["sweep"])
    return compute(nd, {}, lambda t: t, {"vals": vals})


def test_the_outcome_names_what_the_reference_and_the_change_explain():
    vals = {
        "us B": {"p1": 3.0, "p2": 4.0, "p3": 5.0},
        "ref B": {"p1": 3.5, "p2": 2.5, "p3": 1.0},
        "us A": {"p1": 1.0, "p2": 4.0, "p3": 5.0},
        "ref A": {"p1": 1.5, "p2": 3.0},
    }
    assert _outcome(vals) == (
        "m, us | ref (3 seeds) with B → with A: one: 3.00 | 3.50 → 1.00 | 1.50; "
        "two: 4.00 | 2.50 → 4.00 | 3.00; three: 5.00 | 1.00 → 5.00 | –. "
        "ref on the same set-up is out of band too at p1, p2: there the set-up, not us's model, "
        "fails the claim; at p1 the change brings both simulators in band: the cause is the "
        "cause (supports); at p2 ref stays out of band with A too: there it is another part of "
        "the set-up, not C (not tested further); at p3 ref is in band and ours is not: not C "
        "(else)."
    )


def test_a_reference_out_of_the_band_within_its_seeds_noise_cannot_tell():
    """``reference_seeds``: at p2 the reference's seeds 1.5, 2.5, 3.5 (mean 2.5, half-width
    4.303 / √3 = 2.48) reach across the band's edge 2: no longer "the set-up, not our
    model", but "cannot tell" (red-bursty's min_th 4: ns-2.35's 1.67 against 4/3, ±1.12);
    at p1 its seeds 3.4, 3.5, 3.6 (±0.25) stay 1.5 beyond it."""
    vals = {
        "us B": {"p1": 3.0, "p2": 4.0, "p3": 5.0},
        "ref B": {"p1": 3.5, "p2": 2.5, "p3": 1.0},
        "us A": {"p1": 1.0, "p2": 4.0, "p3": 5.0},
        "ref A": {"p1": 1.5, "p2": 3.0},
    }
    seeds = {"p1": [3.4, 3.5, 3.6], "p2": [1.5, 2.5, 3.5]}
    from aqmlab.reproduce.metrics import compute, load_numbers

    (nd,) = load_numbers(PATH, {"t": {**DOC, "reference_seeds": "s.ref"}}, ["sweep"])
    got = compute(nd, {}, lambda t: t, {"vals": vals, "s": {"ref": seeds}})
    assert got == (
        "m, us | ref (3 seeds) with B → with A: one: 3.00 | 3.50 → 1.00 | 1.50; "
        "two: 4.00 | 2.50 → 4.00 | 3.00; three: 5.00 | 1.00 → 5.00 | –. "
        "ref's mean at p2 (2.50 ±2.5) is within its seeds' noise of the band's edge: it cannot "
        "tell there; "
        "ref on the same set-up is out of band too at p1: there the set-up, not us's model, "
        "fails the claim; at p1 the change brings both simulators in band: the cause is the "
        "cause (supports); at p3 ref is in band and ours is not: not C (else)."
    )
    # Every point of the reference within its noise: no "refuted" (it is not in band).
    seeds["p1"] = [1.0, 3.5, 6.0]
    got = compute(nd, {}, lambda t: t, {"vals": vals, "s": {"ref": seeds}})
    assert "refuted" not in got and "ref's mean at p1 (3.50 ±6.2), p2 (2.50 ±2.5) is" in got
    assert got.endswith("at p3 ref is in band and ours is not: not C (else)."), got
    # A reference inside the band but within its noise of the edge (p3: 1.0, seeds 0, 1, 2,
    # ±2.5, edge 2 at 1.0): not "not the cause" either.
    seeds["p3"] = [0.0, 1.0, 2.0]
    got = compute(nd, {}, lambda t: t, {"vals": vals, "s": {"ref": seeds}})
    assert "p3 (1.00 ±2.5)" in got and "not C" not in got, got


def test_every_point_inside_and_a_reference_inside_refute_and_no_changed_run_is_a_dash():
    inside = {"us B": {"p1": 1.0}, "ref B": {"p1": 1.0}, "ref A": {}}
    assert _outcome(inside).endswith(". every point of ours is in band.")
    refuted = {"us B": {"p1": 3.0}, "ref B": {"p1": 1.0}, "ref A": {"p1": 1.0}}
    got = _outcome(refuted)
    assert "one: 3.00 | 1.00 → – | 1.00" in got
    assert got.endswith(
        "ref on the same set-up is in band at every point where ours is not: refuted."
    )


@pytest.mark.parametrize(
    "doc, expected",
    [
        ({**DOC, "setup_change": 1}, "numbers.t.setup_change: expected a text, got 1"),
        (
            {**DOC, "by": ["x"]},
            "numbers.t.by: not with setup_change (expected one of setup_change, ours",
        ),
        (
            {**DOC, "points": []},
            'numbers.t.points: expected a table of POINT = "its label", got []',
        ),
        ({**DOC, "band": [2, 1]}, "numbers.t.band: expected [low, high], two numbers, low < high"),
        (
            {**DOC, "text": {**TEXT, "cause": 3}},
            "numbers.t.text.cause: expected a text: the cause tested",
        ),
        (
            {**DOC, "text": {**TEXT, "x": "y"}},
            "numbers.t.text.x: unknown key (expected one of measured",
        ),
    ],
)
def test_a_bad_setup_change_is_one_line_naming_the_file_and_key(doc, expected):
    from aqmlab.exceptions import AqmlabError
    from aqmlab.reproduce.metrics import load_numbers

    with pytest.raises(AqmlabError) as e:
        load_numbers(PATH, {"t": doc}, ["sweep"])
    msg = str(e.value)
    assert msg.startswith(f"{PATH}: ") and expected in msg and "\n" not in msg, msg


def test_a_missing_number_or_set_up_is_one_line_at_run_time():
    from aqmlab.exceptions import AqmlabError

    with pytest.raises(AqmlabError) as e:
        _outcome({"us B": {}, "ref B": {}})
    assert str(e.value) == (
        f"{PATH}: numbers.t.reference_changed: no set-up 'ref A' in 'vals' (it has us B, ref B)"
    )
    with pytest.raises(
        AqmlabError, match=r"numbers\.t\.setup_change: no number 'x' \(declared above"
    ):
        _outcome({}, {**DOC, "setup_change": "x"})
