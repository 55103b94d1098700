"""A claim's ``note = { text, when }`` (aqmlab.reproduce.claim_note; docs/reproductions.md,
"claims.toml"): added only where its condition holds, its errors one line naming the file, the
claim and the key. Exercised on the worked example's folder, its numeric claim's note
changed here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce.folder import load

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "reproduction"
NUMERIC = 'id = "codel-near-target"\n'


def _claims(tmp_path: Path, note: str) -> Path:
    """The example's folder with ``note`` (a TOML value) on its numeric claim."""
    d = tmp_path / "repro"
    shutil.copytree(EXAMPLE, d)
    claims = (d / "claims.toml").read_text()
    assert NUMERIC in claims
    (d / "claims.toml").write_text(claims.replace(NUMERIC, f"{NUMERIC}note = {note}\n"))
    return d


def _graded(folder: Path, params: dict) -> str:
    """The numeric claim's note, graded on a made-up table (CoDel's median 5 ms)."""
    import pandas as pd
    from aqmlab.reproduce.loader import Context, grade

    exp = load(str(folder))
    (c,) = [c for c in exp.claims if c.id == "codel-near-target"]
    ctx = Context(exp, "/nonexistent", True, [1], None, False, {}, params)
    ctx.table = pd.DataFrame(
        [{"buffer": "200", "discipline": "CoDel", "median_ms": 5.0, "util": 0.9}]
    )
    return grade(c, ctx, None).note


def test_a_note_is_added_only_where_its_condition_holds(tmp_path):
    d = _claims(tmp_path, '{ text = "run on {trace}", when = "not verizon and rate >= 2" }')
    assert _graded(d, {"trace": "flat.down", "verizon": False, "rate": 2}) == "run on flat.down"
    assert _graded(d, {"trace": "flat.down", "verizon": True, "rate": 2}) == ""
    assert _graded(d, {"trace": "flat.down", "verizon": False, "rate": 1}) == ""


def test_a_plain_note_is_always_added(tmp_path):
    d = _claims(tmp_path / "plain", '"read at {trace}"')
    assert _graded(d, {"trace": "x"}) == "read at x"


@pytest.mark.parametrize(
    ("note", "message"),
    [
        ("3", "claim 'codel-near-target'.note: expected a text, or a table { text, when }"),
        (
            '{ text = "x", when = "y", if = "z" }',
            "claim 'codel-near-target'.note: expected a text, or a table { text, when }",
        ),
        ('{ text = "x" }', "claim 'codel-near-target'.note: expected a table { text, when } with"),
        ('{ text = "x", when = "a +" }', "claim 'codel-near-target'.note.when: "),
    ],
)
def test_a_bad_note_is_one_line_naming_the_claim_and_the_key(tmp_path, note, message):
    with pytest.raises(AqmlabError) as e:
        load(str(_claims(tmp_path, note)))
    assert message in str(e.value) and "\n" not in str(e.value), str(e.value)
    assert "claims.toml" in str(e.value)
