"""Every subcommand's ``--help`` prints its description as written: argparse fills ``%`` only in
arguments' help, not in a parser's description, so a doubled ``%%`` there was printed as is
(``aqmlab sweep --help`` said "95%% CI")."""

from __future__ import annotations

import pytest
from conftest import run_cli

COMMANDS = ["run", "sweep", "plot", "report", "reproduce", "replay", "export", "characterize"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_prints_no_doubled_percent(command):
    r = run_cli(command, "--help")
    assert r.returncode == 0, r.stderr
    assert "%%" not in r.stdout


def test_the_sweep_and_plot_descriptions_say_95_percent():
    assert "95% CI over seeds" in " ".join(run_cli("sweep", "--help").stdout.split())
    assert "95% confidence intervals" in " ".join(run_cli("plot", "--help").stdout.split())
