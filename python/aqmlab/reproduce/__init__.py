"""``aqmlab reproduce``: the seed documents' experiments, one command each.

A reproduction is a folder (docs/reproductions.md, "A reproduction's folder"): its
``experiment.toml``, ``claims.toml``, scenarios and an optional module, read by
:mod:`aqmlab.reproduce.folder` and run by :mod:`aqmlab.reproduce.loader`. The built-in ones are
the folders of ``aqmlab/reproduce/builtin/``; ``aqmlab reproduce PATH`` runs any other.
:func:`reproduce` runs one and writes its output folder (:mod:`aqmlab.reproduce.common`
describes it); ``all`` runs every built-in one and writes an index page.
"""

from __future__ import annotations

import os
import time
from typing import Any

from aqmlab.exceptions import AqmlabError

#: The built-in reproductions (the folders builtin/NAME/), in the order ``--list`` and ``all``
#: use.
REPRODUCTIONS = (
    "codel-dynamic",
    "consumer-edge",
    "static-rates",
    "red-bursty",
    "red-vs-codel",
    "lstf-codel",
    "cellular",
    "codel-target",
    "lstf-reordering",
    "consumer-edge-drops",
    "mtu-low-rates",
    "concatenated-queues",
    "cellular-uplink",
    "red-traffic-check",
    "l4s-dualq",
)
#: The built-in reproductions' folders.
BUILTIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "builtin")


def builtin_folder(name: str) -> str:
    """The folder of built-in reproduction ``name``."""
    if name not in REPRODUCTIONS:
        raise AqmlabError(
            f"no reproduction named {name!r} (aqmlab reproduce --list names them: "
            f"{', '.join(REPRODUCTIONS)}, or all; or give the path of a folder holding an "
            "experiment.toml)"
        )
    return os.path.join(BUILTIN, name)


def builtin_module(name: str) -> Any:
    """The Python module of built-in reproduction ``name``'s folder (its figures)."""
    from aqmlab.reproduce.folder import load
    from aqmlab.reproduce.loader import load_module

    folder = builtin_folder(name)
    return load_module(load(folder))


def _title(name: str) -> str:
    from aqmlab.reproduce.folder import load

    return load(builtin_folder(name)).title


def listing() -> list[tuple[str, str]]:
    return [(name, _title(name)) for name in REPRODUCTIONS]


def _is_path(name: str) -> bool:
    return (
        os.sep in name
        or name.startswith(".")
        or (name not in REPRODUCTIONS and os.path.isdir(name))
    )


def reproduce(
    name: str,
    out: str,
    *,
    quick: bool = False,
    seeds: int | None = None,
    jobs: int | None = None,
    progress: bool = False,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run reproduction ``name`` (or ``all``) into ``out``; return what it wrote (for ``all``,
    one entry per reproduction and the index page). ``options`` are a reproduction's own
    (its ``[options.NAME]``: cellular's ``trace``; ``all`` gives each those it declares)."""
    from aqmlab.reproduce.common import identical_seed_points, write

    if seeds is not None and seeds < 1:
        raise AqmlabError(f"--seeds: expected at least 1, got {seeds}")
    if name == "all":
        from aqmlab.reproduce.outfolder import claim

        lock = claim(out, (*REPRODUCTIONS, "index.html"))
        try:
            return _all(out, quick, seeds, jobs, progress, dict(options or {}))
        finally:
            lock.release()
    t0 = time.monotonic()
    from aqmlab.reproduce import folder as fmt
    from aqmlab.reproduce import loader
    from aqmlab.reproduce.outfolder import REPORT_FILES, claim

    exp = fmt.load(name if _is_path(name) else builtin_folder(name))
    n = 1 if quick and seeds is None else (exp.seeds if seeds is None else seeds)
    n = 1 if exp.deterministic else n  # seeds would give identical runs
    command = f"aqmlab reproduce {name}" + (" --quick" if quick else "")
    # Locked and checked before anything runs: a folder holding a user's files (the
    # reproduction's own folder given as --out) is refused with nothing written.
    lock = claim(
        out, (*REPORT_FILES, *(s.name for s in exp.sweeps), *(s.written_as for s in exp.sweeps))
    )
    try:
        rep = loader.run(
            exp, out, quick, list(range(1, n + 1)), jobs, progress, dict(options or {}), command
        )
        rep.wall_s = time.monotonic() - t0
        rep.identical_seeds = identical_seed_points(out)
        paths = write(rep, out)
    finally:
        lock.release()
    return {"reproduction": rep, **paths}


def _all(
    out: str,
    quick: bool,
    seeds: int | None,
    jobs: int | None,
    progress: bool,
    options: dict[str, Any],
) -> dict[str, Any]:
    """Every built-in reproduction into ``out/NAME``, and the index page; each takes the
    ``options`` it declares."""
    from aqmlab.reproduce.common import RunsFailed
    from aqmlab.reproduce.options import builtin as builtin_options

    owners = {name: o for name, (_, _, o) in builtin_options().items()} if options else {}

    done: dict[str, Any] = {}
    failed: dict[str, str] = {}
    t0 = time.monotonic()
    for each in REPRODUCTIONS:
        # A reproduction whose runs failed (a full disk, a killed worker) does not stop
        # the others: each keeps its report, and the failure is said at the end.
        try:
            done[each] = reproduce(
                each,
                os.path.join(out, each),
                quick=quick,
                seeds=seeds,
                jobs=jobs,
                progress=progress,
                options={k: v for k, v in options.items() if each in owners.get(k, ())},
            )
        except RunsFailed as e:
            failed[each] = str(e)
    done["index.html"] = _index(out, done, time.monotonic() - t0, failed)
    if failed:
        raise RunsFailed(
            f"{len(failed)} of {len(REPRODUCTIONS)} reproductions failed "
            f"({', '.join(failed)}; the others' reports are in {out}/index.html): "
            + " | ".join(failed.values())
        )
    return done


def _index(
    out: str, done: dict[str, Any], wall_s: float, failed: dict[str, str] | None = None
) -> str:
    from aqmlab.report import _e, _page

    rows = []
    failed = failed or {}
    # In REPRODUCTIONS' order, a failed one in its place (not first).
    for name in (n for n in REPRODUCTIONS if n in done or n in failed):
        if name in failed:
            rows.append(
                f'<tr><td class="l">{_e(name)}</td><td class="l">failed: {_e(failed[name])}</td>'
                "<td>–</td></tr>"
            )
            continue
        rep = done[name]["reproduction"]
        verdicts = [c.verdict.split(":")[0] for c in rep.claims]
        summary = ", ".join(f"{verdicts.count(v)} {v}" for v in dict.fromkeys(verdicts))
        rows.append(
            f'<tr><td class="l"><a href="{_e(name)}/report.html">{_e(rep.title)}</a></td>'
            f'<td class="l">{_e(summary)}</td><td>{rep.wall_s:.1f} s</td></tr>'
        )
    body = (
        f"<p>Every reproduction, {wall_s:.1f} s wall in all.</p><table><tr>"
        '<th class="l">reproduction</th><th class="l">claims</th><th>wall</th></tr>'
        + "".join(rows)
        + "</table>"
    )
    path = os.path.join(out, "index.html")
    with open(path, "w", encoding="utf-8") as f:
        f.write(_page("aqmlab reproductions", body))
    return path
