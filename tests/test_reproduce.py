"""``aqmlab reproduce``: each reproduction in its quick form writes its report, data and figures,
and the papers' qualitative findings hold (the tests fail when they stop holding)."""

import json
import re

import pytest
from conftest import run_cli


@pytest.fixture(scope="module")
def codel_dynamic(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro") / "codel-dynamic"
    r = run_cli("reproduce", "codel-dynamic", "--quick", "--out", str(out))
    assert r.returncode == 0, r.stderr
    return out, r.stdout


def _claims(out) -> dict:
    doc = json.loads((out / "results.json").read_text())
    return {c["claim"]: c for c in doc["claims"]}


def test_list_names_every_reproduction():
    r = run_cli("reproduce", "--list")
    assert r.returncode == 0
    assert "codel-dynamic" in r.stdout and "all" in r.stdout


def test_unknown_reproduction_is_one_line():
    r = run_cli("reproduce", "nope", "--quick")
    assert r.returncode == 2 and "no reproduction named 'nope'" in r.stderr


def test_codel_dynamic_writes_report_data_and_figures(codel_dynamic):
    out, stdout = codel_dynamic
    doc = json.loads((out / "results.json").read_text())
    assert doc["quick"] is True and doc["seeds"] == [1]
    for c in doc["claims"]:
        assert {"claim", "source", "published", "ours", "verdict"} <= set(c)
        assert c["verdict"] in ("agrees", "differs", "holds", "does not hold")
    md = (out / "report.md").read_text()
    assert "| discipline | median ms |" in md and "The paper's claims beside ours" in md
    # Every figure the reports reference exists, as PNG and SVG.
    for ref in re.findall(r"\]\((figures/[^)]+)\)", md):
        assert (out / ref).exists(), ref
        assert (out / ref).with_suffix(".svg").exists(), ref
    assert len(doc["figures"]) >= 4
    html = (out / "report.html").read_text()
    assert all(s.startswith("data:image/png") for s in re.findall(r'src="([^"]*)"', html))
    assert (out / "sweep" / "results.parquet").exists() and (out / "scenario.toml").exists()
    assert "published" in stdout and "aqmlab" in stdout


def test_codel_dynamic_qualitative_findings_hold(codel_dynamic):
    out, _ = codel_dynamic
    nums = json.loads((out / "results.json").read_text())["numbers"]["cases"]
    codel, td, td10 = nums["CoDel"], nums["tail drop 830p"], nums["tail drop 10p"]
    # CoDel's median delay far below tail drop's (the paper's Fig. 7a).
    assert codel["p50_ms"] < td["p50_ms"] / 10
    # The undersized buffer loses most of the throughput (slides: about 75 %).
    assert td10["mb"] < 0.5 * td["mb"]
    # Tail drop with a BDP buffer keeps the link busy: near the capacity, never above it.
    assert 90 < td["pct_of_max"] <= 100
    claims = _claims(out)
    assert claims["CoDel's median delay is far below tail drop's (< 1/10)"]["verdict"] == "holds"
