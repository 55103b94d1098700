#!/usr/bin/env python3
"""Writes `scenario.resolved.toml` (or the one-line error) of every bundled scenario, as given
and with each discipline swapped onto every link, each under a few `--set` edits, one file per
combination in the folder OUT: a change to the loader that must not move the resolved scenarios
is checked by writing OUT with the build before it and with the build after it, and diffing:

    PYTHONPATH=python scripts/resolved-matrix.py /tmp/before    # with the old _core
    PYTHONPATH=python scripts/resolved-matrix.py /tmp/after     # with the new _core
    diff -r /tmp/before /tmp/after
"""

import importlib
import os
import sys
from pathlib import Path

import tomllib

run = importlib.import_module("aqmlab.run")

KINDS = ["droptail", "red", "codel", "lstf_codel", "fq_codel", "pie", "fq_pie", "cobalt"]
KINDS += ["fq_cobalt", "dualpi2", "cake"]
SETS: list[dict[str, str]] = [
    {},
    {"dumbbell.bottleneck.params.target": "7ms"},
    {"dumbbell.bottleneck.params.mtu": "1200B"},
    {"dumbbell.bottleneck.params.variant": "linux"},
    {"dumbbell.bottleneck.jitter": "uniform(0ms, 1ms)"},
    {"dumbbell.bottleneck.buffer": "150000B"},
    {"links[5].params.delay": "3ms"},
    {"links[5].jitter": "uniform(0ms, 1ms)"},
    {"links[5].buffer": "60000B"},
    {"links[5].params.w_q": "0.002"},
    {"dumbbell.bottleneck.params.limit": "30000B"},
]


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    root = Path(__file__).resolve().parent.parent
    for path in sorted((root / "scenarios").glob("*.toml")):
        links = [
            link["name"] for link in tomllib.loads(run.resolve(str(path)).resolved_toml())["links"]
        ]
        for kind in [None, *KINDS]:
            qdisc = {name: kind for name in links} if kind else None
            for i, sets in enumerate(SETS):
                try:
                    text = run.resolve(str(path), qdisc=qdisc, set=sets).resolved_toml()
                except Exception as e:  # the error is part of what must not move
                    text = f"ERROR {type(e).__name__}: {e}\n".replace(str(root) + "/", "")
                name = f"{path.stem}.{kind or 'file'}.{i}.toml"
                Path(out, name).write_text(text)
    print(len(os.listdir(out)), "files in", out)


if __name__ == "__main__":
    main(sys.argv[1])
