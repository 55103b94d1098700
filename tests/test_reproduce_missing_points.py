"""A range claim's ``missing`` (aqmlab.reproduce.claim_missing; docs/reproductions.md,
"claims.toml"): a run with none of the claim's points does not grade it, and says why; a run
with points grades it as before; without the key a range with no point fails, as before."""

from __future__ import annotations

import pytest
from aqmlab.reproduce import common as cm
from aqmlab.reproduce.folder import load, load_claims
from aqmlab.reproduce.loader import Context, grade

CLAIM = """
[[claim]]
id = "c"
claim = "a below b at every rate"
source = "s"
kind = "range"
published = "a < b"
metric = "_m.{arm}"
arms = ["a", "b"]
predicate = "a < b"
why = "our reading"
stalls = "none can stall"
counterfactual = "swapped"
counterfactual_arms = ["b", "a"]
unexplained = true
missing = "this run has no rate ≥ {lowest} kb/s (rates {rates})"
"""


def graded(tmp_path, points: dict, claim: str = CLAIM) -> cm.Claim:
    (tmp_path / "claims.toml").write_text(claim, encoding="utf-8")
    (c,) = load_claims(str(tmp_path / "claims.toml"))
    exp = load(str(tmp_path.parent / "folder"))
    params = {"lowest": 3000, "rates": [512]}
    ctx = Context(exp, "/nonexistent", True, [1], None, False, {}, params)
    ctx.numbers["_m"] = {
        "a": {p: v[0] for p, v in points.items()},
        "b": {p: v[1] for p, v in points.items()},
    }
    return grade(c, ctx, None)


@pytest.fixture
def folder(tmp_path):
    """A minimal folder for the Context (examples/reproduction's experiment.toml)."""
    from conftest import ROOT

    d = tmp_path / "folder"
    d.mkdir()
    src = ROOT / "examples" / "reproduction"
    for f in src.iterdir():
        if f.is_file():
            (d / f.name).write_bytes(f.read_bytes())
    (tmp_path / "c").mkdir()
    return tmp_path / "c"


def test_a_range_with_no_point_is_not_graded_with_its_reason(folder):
    c = graded(folder, {})
    assert c.verdict == cm.NOT_GRADED + ": this run has no rate ≥ 3000 kb/s (rates [512])"
    assert c.id == "c" and c.kind == "not graded"
    # With points the claim is graded as before: the key changes nothing.
    c = graded(folder, {"10 Mb/s": (1.0, 2.0)})
    assert c.verdict == cm.HOLDS and [p["point"] for p in c.points] == ["10 Mb/s"]


def test_without_missing_a_range_with_no_point_is_graded(folder):
    claim = CLAIM.replace('missing = "this run has no rate ≥ {lowest} kb/s (rates {rates})"\n', "")
    assert claim != CLAIM
    c = graded(folder, {}, claim)
    assert c.kind == "range" and not c.verdict.startswith(cm.NOT_GRADED)
