"""Issue 22 item 1: ``pacing = true`` runs through the engine (the sender's pacing timer is
woken and cleared) and changes what the flows do."""

import json

from conftest import ROOT, run_cli

SCENARIO = ROOT / "tests" / "fidelity" / "dctcp-2x-k20.toml"


def test_paced_flows_finish_and_differ_from_unpaced(tmp_path):
    sent = {}
    for pacing in ("false", "true"):
        out = tmp_path / pacing
        args = ["run", str(SCENARIO), "--out", str(out), "--quiet", "--set", "duration=5s"]
        args += ["--set", "warmup=1s"]
        for i in range(2):
            args += ["--set", f"flows[{i}].pacing={pacing}"]
        # A held-back segment whose timer is never cleared would spin the engine at one
        # instant: the subprocess's timeout catches it.
        r = run_cli(*args)
        assert r.returncode == 0, r.stderr
        summary = json.loads((out / "summary.json").read_text())
        flows = summary["flows"]
        assert all(f["sent_pkts"] > 1000 for f in flows), flows
        sent[pacing] = [f["sent_pkts"] for f in flows]
    assert sent["true"] != sent["false"], sent
