"""Determinism across builds and machines: the installed package (its native module built with
profile-guided optimisation by ``make install``) gives exactly the summaries committed in
``tests/reference/``, which the plain Rust build is held to as well
(``crates/aqmlab-sim/tests/reference.rs``, where re-recording them is explained)."""

import json

import aqmlab
import pytest
from aqmlab import _core
from conftest import ROOT

REFERENCES = sorted((ROOT / "tests" / "reference").glob("*.json"))


def test_references_exist():
    assert len(REFERENCES) >= 5


# The test ids name the build under test (`pytest -v`): "profile-guided" after `make install`,
# "plain" without llvm-profdata or with AQMLAB_PGO=0.
@pytest.mark.parametrize("reference", REFERENCES, ids=lambda p: f"{p.stem}-{_core.BUILD}")
def test_installed_build_gives_the_reference_summary(reference):
    name, duration = reference.stem.split(".", 1)
    # A test-only scenario (tests/reference/scenarios/) or a bundled one.
    scenario = ROOT / "tests" / "reference" / "scenarios" / f"{name}.toml"
    if not scenario.exists():
        scenario = ROOT / "scenarios" / f"{name}.toml"
    got = aqmlab.run(scenario, set={"duration": duration}, progress=False).summary
    got.pop("wall_s")
    got.pop("provenance")  # the version, build and paths of this run: not a result
    # Python reads each float back exactly (shortest round-trip form), so equal means bit-equal.
    assert got == json.loads(reference.read_text())
