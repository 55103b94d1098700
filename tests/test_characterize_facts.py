"""The characterization report's RFC 7928 §11-12 section: every discipline's operator control,
auto-tuning and cost facts come from its parameter table (through ``_core.list_qdiscs``), and the
time per packet from a ``make bench`` measurement with its provenance, or "not measured".

``tests/criterion`` is a real criterion folder: ``cargo bench -p aqmlab-qdisc --bench qdisc --
'^enqueue_dequeue_pair/(codel|droptail)$'`` run at a commit of this repository, trimmed to
criterion's ``new/estimates.json`` and the bench's ``aqmlab.json`` of those two cases."""

import html
import json
import pathlib
import re
import shutil

import aqmlab._core
import pytest
from aqmlab.characterize import bench
from aqmlab.characterize.report import write_report
from conftest import run_cli

CRITERION = pathlib.Path(__file__).parent / "criterion"
KINDS = [q["name"] for q in aqmlab._core.list_qdiscs()]


def _folder(tmp_path, measured=None):
    """A characterization folder with every discipline and no scenario run: the report's
    discipline section without simulating."""
    out = tmp_path / "out"
    out.mkdir()
    doc = {
        "format_version": 1,
        "aqmlab_version": "test",
        "command": None,
        "emulate": False,
        "quick": True,
        "rate": "10Mbps",
        "rtt": "100ms",
        "seeds": [1],
        "disciplines": KINDS,
        "params": {},
        "wall_s": 0,
        "bench": measured,
        "scenarios": [
            {
                "id": "5.1-tcp-friendly",
                "template": "5.1-tcp-friendly",
                "section": "5.1",
                "title": "TCP-friendly sender",
                "requirement": "must",
                "variant": "",
                "status": "not run",
                "reason": "needs nothing: a test",
                "parameters": {},
                "results": {},
            }
        ],
    }
    (out / "characterization.json").write_text(json.dumps(doc))
    return out


def _sections(out):
    """The report's text per discipline, tags removed and entities decoded."""
    page = pathlib.Path(write_report(str(out))).read_text()
    tail = page.split("<h2>Disciplines</h2>")[1].split("<h2>")[0]
    raw = {q: tail.split(f"<h3>{q}</h3>")[1].split("<h3>")[0] for q in KINDS}
    text = {q: re.sub(r"<[^>]+>", "", s.replace("</li>", "\n")) for q, s in raw.items()}
    return {q: html.unescape(s) for q, s in text.items()}


def test_every_discipline_shows_its_tables_facts_and_not_measured(tmp_path):
    sec = _sections(_folder(tmp_path))
    for q in aqmlab._core.list_qdiscs():
        s = sec[q["name"]]
        assert "Operator control and auto-tuning (RFC 7928 §12)" in s
        assert "Implementation cost (RFC 7928 §11)" in s
        # Every fact of the table, non-empty, is on the page.
        for key in ("state", "per_flow", "per_packet", "timers", "spec"):
            text = q["facts"][key]
            assert len(text) > 3 and text in s, (q["name"], key)
        tuned = [p for p in q["params"] if p["tuning"] != "fixed"]
        for p in tuned:
            assert f"{p['tuning']} {p['name']}: {p['tuning_how']}" in s, (q["name"], p["name"])
        if not tuned:
            assert "none derived or adapted" in s
        assert "time per packet, measured: not measured (run `make bench`" in s, q["name"]
    # The automatic values the brief names are in the tables, hence on the page.
    assert "derived min_th: auto: max(5, target_delay·C/2)" in sec["red"]
    assert "adapted max_p: with adaptive=true" in sec["red"]
    assert "adapted alpha:" in sec["pie"] and "RFC 8033 §4.2" in sec["pie"]
    assert "derived tupdate: with max_rtt or typical_rtt" in sec["dualpi2"]
    assert "derived target: per tin, from its rate" in sec["cake"]
    assert "none derived or adapted" in sec["droptail"]


def test_the_section_is_read_from_the_table(tmp_path, monkeypatch):
    # Counterfactual: a discipline whose table says something else shows that, and one whose
    # table lacks its facts fails the report's test above.
    real = aqmlab._core.list_qdiscs()
    codel = next(q for q in real if q["name"] == "codel")
    codel["facts"]["state"] = "SENTINEL STATE"
    monkeypatch.setattr(aqmlab._core, "list_qdiscs", lambda: real)
    sec = _sections(_folder(tmp_path))
    assert "state: SENTINEL STATE" in sec["codel"]
    assert "dropping, count, lastcount" not in sec["codel"]


def _estimate(case):
    est = json.loads((CRITERION / bench.GROUP / case / "new" / "estimates.json").read_text())
    prov = json.loads((CRITERION / bench.GROUP / case / "aqmlab.json").read_text())
    return est["slope"] or est["mean"], prov  # what criterion prints


def test_the_cost_row_shows_the_measured_figure_and_its_provenance(tmp_path):
    measured = bench.read(str(CRITERION))
    assert {c["kind"] for c in measured["cases"]} == {"codel", "droptail"}
    sec = _sections(_folder(tmp_path, measured))
    for q in ("codel", "droptail"):
        typical, prov = _estimate(q)
        lo = typical["confidence_interval"]["lower_bound"]
        hi = typical["confidence_interval"]["upper_bound"]
        row = sec[q].split("time per packet, measured: ")[1].split("\n")[0]
        assert row.startswith(f"{typical['point_estimate']:.1f} ns per enqueue+dequeue pair"), row
        assert f"[{lo:.1f}, {hi:.1f}]" in row
        assert f"commit {prov['commit'][:12]}" in row and prov["host"] in row
        assert "not measured" not in row
    # A discipline the bench folder has no case of says so.
    assert "not measured (" in sec["pie"] and "has no case of pie" in sec["pie"]


def test_a_case_without_provenance_is_not_reported(tmp_path):
    folder = tmp_path / "criterion"
    shutil.copytree(CRITERION, folder)
    (folder / bench.GROUP / "droptail" / "aqmlab.json").unlink()
    measured = bench.read(str(tmp_path))  # the target folder above criterion's is accepted
    assert [c["case"] for c in measured["cases"]] == ["codel"]
    assert measured["without_provenance"] == ["droptail"]
    sec = _sections(_folder(tmp_path, measured))
    assert "not measured" in sec["droptail"] and "not measured" not in sec["codel"]


@pytest.mark.parametrize("make", ["missing", "empty", "bad"])
def test_a_bad_bench_folder_is_one_line(tmp_path, make):
    folder = tmp_path / "b"
    if make != "missing":
        (folder / bench.GROUP / "codel" / "new").mkdir(parents=True)
    if make == "bad":
        (folder / bench.GROUP / "codel" / "new" / "estimates.json").write_text("{")
        (folder / bench.GROUP / "codel" / "aqmlab.json").write_text("{}")
    r = run_cli("characterize", "codel", "--bench", str(folder), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert f"--bench {folder}" in r.stderr
    assert not (tmp_path / "o" / "runs").exists(), "refused before simulating"
