"""Determinism across builds and machines: the installed package (its native module built with
profile-guided optimisation by ``make install``) gives exactly the summaries committed in
``tests/reference/``, which the plain Rust build is held to as well
(``crates/aqmlab-sim/tests/reference.rs``, where re-recording them is explained)."""

import json

import aqmlab
import pytest
from conftest import ROOT

REFERENCES = sorted((ROOT / "tests" / "reference").glob("*.json"))


def test_references_exist():
    assert len(REFERENCES) >= 4


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda p: p.stem)
def test_installed_build_gives_the_reference_summary(reference):
    name, duration = reference.stem.split(".", 1)
    got = aqmlab.run(
        ROOT / "scenarios" / f"{name}.toml", set={"duration": duration}, progress=False
    ).summary
    got.pop("wall_s")
    # Python reads each float back exactly (shortest round-trip form), so equal means bit-equal.
    assert got == json.loads(reference.read_text())
