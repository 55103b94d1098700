"""Issue 14: ``aqmlab run`` says when the seed cannot matter, and random start times make it."""

import aqmlab
from conftest import run_cli

SCENARIO = """
name = "no-randomness"
duration = "1s"
seed = 1

[dumbbell]
senders = 2
access_rate = "100Mbps"
sender_delay = "1ms"
receiver_delay = "1ms"

[dumbbell.bottleneck]
rate = "10Mbps"
delay = "10ms"
qdisc = "codel"
buffer = "100p"

[[flows]]
kind = "tcp"
from = "s1"
to = "r1"

[[flows]]
kind = "tcp"
from = "s2"
to = "r2"
{start}
"""

WARNING = (
    "aqmlab: warning: {path}: no random element (random start, traffic, loss, jitter or "
    'discipline), so the seed changes nothing; a flow\'s start = "uniform(0s, 1s)" varies the '
    "runs"
)


def test_run_warns_when_nothing_is_random(tmp_path):
    p = tmp_path / "fixed.toml"
    p.write_text(SCENARIO.format(start=""))
    r = run_cli("run", str(p), "--out", str(tmp_path / "out"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [WARNING.format(path=p)]


def test_a_random_start_silences_the_warning_and_the_seed_matters(tmp_path):
    p = tmp_path / "random.toml"
    p.write_text(SCENARIO.format(start='start = "uniform(0s, 1s)"'))
    r = run_cli("run", str(p), "--out", str(tmp_path / "out"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    sent = [
        aqmlab.run(str(p), seed=seed, keep=False).summary["flows"][1]["sent_pkts"]
        for seed in (1, 2)
    ]
    assert sent[0] != sent[1], sent


def test_compare_names_the_arm_without_randomness(tmp_path):
    # RED draws random numbers, CoDel does not: only the CoDel arm is warned about.
    p = tmp_path / "fixed.toml"
    p.write_text(SCENARIO.format(start=""))
    r = run_cli(
        "run", str(p), "--out", str(tmp_path / "out"), "--quiet", "--compare", "bottleneck=red"
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [WARNING.format(path=f"{p} (as written)")]
