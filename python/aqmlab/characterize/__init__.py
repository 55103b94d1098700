"""``aqmlab characterize``: RFC 7928's characterization of queue disciplines, side by side.

For every scenario of the catalog (:mod:`aqmlab.characterize.catalog`: TOML templates in
``scenarios/``) and each of its variants, one sweep runs every discipline named over the seeds
(``DIR/runs/<scenario>/``: cached and resumable as any sweep, local workers or Dask); each run
is reduced in its worker to RFC 7928 §2's metrics (:mod:`aqmlab.characterize.measures`). The
folder then holds:

* ``characterization.json``: per scenario its id, section, title, requirement level (RFC 7928
  Fig. 4), status (``run`` / ``not run`` and why), parameters, and per discipline and metric
  the mean, the 95 % Student-t interval over seeds and n (``docs/data-format.md``);
* ``scenarios/``: each concrete scenario as run (``aqmlab run`` repeats one);
* ``figures/`` and ``report.html`` (:mod:`aqmlab.characterize.report`).

With ``emulate``, every scenario that needs only bulk TCP and constant-rate UDP over one path
also runs through ``aqmlab shell``'s emulated link with real Linux TCP
(:mod:`aqmlab.characterize.emulated`), as a second entry marked ``"emulated": true`` beside
the simulated one; the others say why they are not emulated (``"emulation"``).
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from typing import Any

from aqmlab.characterize import fig4
from aqmlab.characterize.catalog import (
    Built,
    Template,
    bps,
    build,
    duration_text,
    seconds,
    templates,
)
from aqmlab.characterize.measures import CDF_POINTS
from aqmlab.exceptions import AqmlabError, ScenarioError

DEFAULT_RATE = "10Mbps"
DEFAULT_RTT = "100ms"
#: Seeds a full run uses by default (the issue asks for at least 5), and a quick run.
FULL_SEEDS = 5
QUICK_SEEDS = 2
#: The discipline every scenario with ``with_droptail`` is compared with.
TAIL_DROP = "droptail"
REDUCER = "aqmlab.characterize.measures:reduce_run"


def parse_params(items: list[str] | None, qdiscs: list[str]) -> dict[str, dict[str, Any]]:
    """``["codel.target=10ms", ...]`` as ``{"codel": {"target": "10ms"}}``, checked against
    the disciplines named and their parameters (``aqmlab replay --list``)."""
    from aqmlab._core import list_qdiscs
    from aqmlab.sweepspec import literal

    known = {q["name"]: {p["name"] for p in q["params"]} for q in list_qdiscs()}
    out: dict[str, dict[str, Any]] = {q: {} for q in qdiscs}
    for item in items or []:
        lhs, sep, value = item.partition("=")
        qdisc, dot, key = lhs.partition(".")
        if not sep or not dot or not key or not value:
            raise ScenarioError(f"--param {item}: expected QDISC.KEY=VALUE, like codel.target=10ms")
        if qdisc not in out:
            raise ScenarioError(
                f"--param {item}: {qdisc!r} is not one of the disciplines named "
                f"({', '.join(qdiscs)})"
            )
        if key not in known.get(qdisc, set()):
            raise ScenarioError(
                f"--param {item}: {qdisc} has no parameter {key!r} "
                f"(it has {', '.join(sorted(known[qdisc]))})"
            )
        out[qdisc][key] = literal(value)
    return out


def check_qdiscs(qdiscs: list[str]) -> None:
    from aqmlab._core import list_qdiscs

    known = [q["name"] for q in list_qdiscs()]
    if not qdiscs:
        raise ScenarioError("characterize: name at least one discipline")
    for q in qdiscs:
        if q not in known:
            raise ScenarioError(
                f"characterize: unknown discipline {q!r} (one of {', '.join(known)})"
            )
    if len(set(qdiscs)) != len(qdiscs):
        raise ScenarioError("characterize: a discipline is named twice")


def cases_for(
    b: Built, qdiscs: list[str], params: dict[str, dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The sweep's cases of one scenario: per discipline its swap and its parameters (ECN on
    where the scenario asks for it and the discipline has an ``ecn`` parameter); with two AQMs
    in a row (§10), the first AQM's discipline and parameters as the pairing says. Returns the
    cases and, per discipline left out, why."""
    from aqmlab._core import list_qdiscs

    table = {q["name"]: q["params"] for q in list_qdiscs()}
    names = list(qdiscs)
    if b.with_droptail and TAIL_DROP not in names:
        names.append(TAIL_DROP)
    keys = b.params_keys

    def given(q: str) -> dict[str, Any]:
        p = dict(params.get(q, {}))
        if b.ecn and any(x["name"] == "ecn" for x in table[q]):
            p.setdefault("ecn", True)
        return p

    cases, skipped = {}, {}
    for q in names:
        c: dict[str, Any] = {"qdisc:bottleneck": q}
        c.update({f"{keys['bottleneck']}.{k}": v for k, v in given(q).items()})
        if b.first_aqm:
            first = paired(b.pairing or "same", q, names, table, given)
            if isinstance(first, str):
                skipped[q] = first
                continue
            q1, p1 = first
            c[f"qdisc:{b.first_aqm}"] = q1
            c.update({f"{keys[b.first_aqm]}.{k}": v for k, v in p1.items()})
        cases[q] = c
    return cases, skipped


#: §10's "different" pairing when only one discipline is characterized: the first AQM runs
#: CoDel (PIE beside CoDel itself).
OTHER_AQM = {"codel": "pie"}


def paired(
    pairing: str,
    q: str,
    names: list[str],
    table: dict[str, list[dict[str, Any]]],
    given: Any,
) -> tuple[str, dict[str, Any]] | str:
    """RFC 7928 §10.2's first AQM in front of bottleneck discipline ``q``: ``same`` (``q``,
    its parameters), ``other-params`` (``q`` with every time parameter doubled: its delay
    target and control interval), ``different`` (the next discipline characterized, or CoDel
    when ``q`` is alone). A string says why the pairing does not exist for ``q``."""
    if pairing == "same":
        return q, given(q)
    if pairing == "other-params":
        from aqmlab.sweepspec import literal

        p = given(q)
        doubled = {}
        for spec in table[q]:
            if spec["type"] != "duration":
                continue
            value = p.get(spec["name"], spec["default"])
            try:
                doubled[spec["name"]] = duration_text(2 * seconds(value, spec["name"]))
            except ScenarioError:
                continue
        if not doubled:
            return f"{q} has no time parameter to change"
        return q, {**p, **{k: literal(v) for k, v in doubled.items()}}
    if pairing == "different":
        others = [n for n in names if n != q]
        other = others[names.index(q) % len(others)] if others else OTHER_AQM.get(q, "codel")
        return other, given(other) if other in names else {}
    raise ScenarioError(
        f"characterize.pairing: expected same, other-params or different, got {pairing!r}"
    )


def slug(b: Built) -> str:
    return b.id + (f"-{b.variant}" if b.variant else "")


def run_metrics(reduced: dict[str, Any], ratios: list[list[str]]) -> dict[str, Any]:
    """A run's metrics, with the template's goodput ratios added."""
    m = dict(reduced["metrics"])
    for a, b in ratios:
        ga, gb = m.get(f"goodput_mbps[{a}]"), m.get(f"goodput_mbps[{b}]")
        m[f"goodput_ratio[{a}/{b}]"] = ga / gb if ga is not None and gb else None
    return m


def statistics(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per metric over the runs (seeds): mean, the 95 % t interval cut to the metric's range
    (:mod:`aqmlab.characterize.bounds`; ``"clipped"`` names the ends cut) and n (JSON-safe:
    null where undefined)."""
    from aqmlab.characterize.bounds import clip
    from aqmlab.stats import mean_ci

    names: list[str] = []
    for r in runs:
        names += [k for k in r if k not in names]
    out = {}
    for k in names:
        vals = [r.get(k) for r in runs]
        mean, _, n, half = mean_ci([float(v) for v in vals if isinstance(v, (int, float))])
        lo, hi, cut = clip(k, mean - half, mean + half)
        out[k] = {"mean": _num(mean), "ci95": [_num(lo), _num(hi)], "n": n}
        if cut:
            out[k]["clipped"] = cut
    return out


def distributions(reduced: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per distribution of :data:`measures.CDFS` (queueing delay, one-way delay, PDV, goodput
    per 10·minRTT sample), the quantiles at p = 0, 0.01, ..., 1 averaged over the runs
    (seeds) that have it, and how many did: ``{"quantiles": [...], "n": runs}``; left out
    where no run has it."""
    from aqmlab.characterize.measures import CDFS

    out = {}
    for name, key in CDFS.items():
        qs = [r[key] for r in reduced if r.get(key)]
        if qs:
            k = len(qs[0])
            out[name] = {
                "quantiles": [math.fsum(q[i] for q in qs) / len(qs) for i in range(k)],
                "n": len(qs),
            }
    return out


def _num(v: float) -> float | None:
    return None if v is None or math.isnan(v) else float(v)


def characterize(
    qdiscs: list[str],
    out: str,
    *,
    params: list[str] | None = None,
    rate: str = DEFAULT_RATE,
    rtt: str = DEFAULT_RTT,
    seeds: int | None = None,
    quick: bool = False,
    jobs: int | None = None,
    dask: str | None = None,
    progress: bool = False,
    only: list[str] | None = None,
    catalog: str | None = None,
    scenarios: list[str] | None = None,
    command: str | None = None,
    emulate: bool = False,
    bench: str | None = None,
) -> dict[str, Any]:
    """Run the characterization of ``qdiscs`` into ``out``; return ``characterization.json``'s
    document (the report is written beside it). ``only`` keeps the scenarios whose id or
    section starts with one of its items; ``catalog`` is a folder of templates to use instead
    of the bundled ones, ``scenarios`` folders of a user's own templates run beside them
    (``--scenarios DIR``); ``emulate`` runs the scenarios that allow it in the emulator too;
    ``bench`` is criterion's folder of ``make bench`` (``target/criterion``), whose measured time
    per packet the report shows with its provenance (RFC 7928 §11); without it, the folder's
    earlier measurement is kept, and with none the report says "not measured"."""
    from aqmlab import __version__
    from aqmlab.results import Run
    from aqmlab.run import toml_text
    from aqmlab.sweep import run_sweep
    from aqmlab.sweepspec import Axis, SweepSpec

    t_start = time.monotonic()
    check_qdiscs(qdiscs)
    par = parse_params(params, qdiscs)
    rate_bps = bps(rate, "--rate")
    rtt_s = seconds(rtt, "--rtt")
    n_seeds = seeds if seeds is not None else (QUICK_SEEDS if quick else FULL_SEEDS)
    if n_seeds < 1:
        raise AqmlabError(f"--seeds: expected at least 1, got {n_seeds}")
    if not quick and n_seeds < FULL_SEEDS:
        print(
            f"aqmlab: warning: characterize: {n_seeds} seed(s) in full mode, where the "
            f"characterization's 95 % intervals are meant over at least {FULL_SEEDS}; with "
            "fewer they are wide (and none with one)",
            file=sys.stderr,
        )
    seed_list = list(range(1, n_seeds + 1))
    if bench is not None:  # a bad folder is one line now, not after the simulations
        from aqmlab.characterize import bench as bench_mod

        measured = bench_mod.read(bench)
    else:  # the folder's earlier measurement, with its provenance, if it had one
        measured = _earlier(out).get("bench")
    if emulate:  # one line now if this host cannot emulate, not after the simulations
        from aqmlab.shell import _check_host, forwarder_path

        _check_host()
        forwarder_path()
    chosen = [t for t in templates(catalog, scenarios) if _wanted(t, only)]
    if only and not chosen:
        raise ScenarioError(f"--only {','.join(only)}: no scenario matches")
    os.makedirs(os.path.join(out, "scenarios"), exist_ok=True)
    entries: list[dict[str, Any]] = []
    for t in chosen:
        if t.needs:
            entries.append(
                {
                    "id": t.id,
                    "template": t.id,
                    "section": str(t.meta["section"]),
                    "title": t.meta["title"],
                    "requirement": t.meta["requirement"],
                    "requirement_basis": fig4.level(str(t.meta["section"]))[1],
                    "variant": "",
                    "status": "not run",
                    "reason": f"needs {t.needs}",
                    "parameters": {},
                    "results": {},
                }
            )
            continue
        for v in t.variants(quick):
            b = build(t, v, rate_bps, rtt_s, quick)
            name = slug(b)
            path = os.path.join(out, "scenarios", f"{name}.toml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(toml_text(b.scenario))
            cases, skipped = cases_for(b, qdiscs, par)
            if not cases:
                entries.append(
                    {
                        "id": name,
                        "template": t.id,
                        "section": b.section,
                        "title": b.title,
                        "requirement": b.requirement,
                        "requirement_basis": fig4.level(b.section)[1],
                        "variant": b.variant,
                        "status": "not run",
                        "reason": "; ".join(skipped.values()),
                        "parameters": b.parameters,
                        "results": {},
                    }
                )
                continue
            spec = SweepSpec(path, [Axis.of_cases(cases, "qdisc")], {}, seed_list, reduce=REDUCER)
            folder = os.path.join(out, "runs", name)
            res = run_sweep(spec, folder, jobs=jobs, dask=dask, progress=progress, command=command)
            results: dict[str, Any] = {}
            dists: dict[str, Any] = {}
            runs: dict[str, list[str]] = {}
            errors: dict[str, str] = {}
            for q in cases:
                rows = res.results[res.results["qdisc"] == q]
                bad = rows[rows["error"].notna()]
                if len(bad):
                    errors[q] = str(bad["error"].iloc[0])
                ok = rows[rows["error"].isna()]
                runs[q] = [str(k) for k in ok["run"]]
                metrics, reduced_runs = [], []
                for key in runs[q]:
                    reduced = Run(os.path.join(folder, "runs", key)).reduced
                    metrics.append(run_metrics(reduced, b.ratios))
                    reduced_runs.append(reduced)
                results[q] = statistics(metrics)
                dists[q] = distributions(reduced_runs)
            entry = {
                "id": name,
                "template": t.id,
                "section": b.section,
                "title": b.title,
                "requirement": b.requirement,
                "requirement_basis": fig4.level(b.section)[1],
                "variant": b.variant,
                "status": "run" if not errors else "failed",
                "parameters": {
                    **b.parameters,
                    "disciplines": {q: c for q, c in cases.items()},
                    "scenario": os.path.relpath(path, out),
                    "seeds": seed_list,
                },
                "results": results,
                "distributions": dists,
                "runs": {
                    q: [os.path.join("runs", name, "runs", k) for k in ks] for q, ks in runs.items()
                },
            }
            if errors:
                entry["errors"] = errors
            if skipped:
                entry["skipped"] = skipped
            entries.append(entry)
            if emulate:
                emu = _emulated_entry(b, cases, seed_list, out, progress)
                if isinstance(emu, str):
                    entry["emulation"] = f"not emulated: {emu}"
                else:
                    entry["emulation"] = f"emulated: {emu['id']}"
                    entries.append(emu)
    settings = {
        "emulate": emulate,
        "quick": quick,
        "rate": rate,
        "rtt": rtt,
        "seeds": seed_list,
        "disciplines": list(qdiscs),
        "params": par,
    }
    if only:
        entries = _merge(out, settings, chosen, entries, templates(catalog, scenarios))
    # The variants quick mode leaves out, per template in the report (which says so).
    present = {e["template"] for e in entries}
    left_out = {
        t.id: [str(v.get("name", "")) for v in t.variants() if v not in t.variants(True)]
        for t in (templates(catalog, scenarios) if only else chosen)
        if quick and t.id in present and len(t.variants(True)) < len(t.variants())
    }
    doc = {
        "format_version": 1,
        "aqmlab_version": __version__,
        "rfc": "RFC 7928",
        "command": command,
        **settings,
        "wall_s": round(time.monotonic() - t_start, 1),
        "bench": measured,
        "quick_left_out": left_out,
        "quantile_p": [i / (CDF_POINTS - 1) for i in range(CDF_POINTS)],
        "scenarios": entries,
    }
    with open(os.path.join(out, ".characterization.json.partial"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    os.replace(
        os.path.join(out, ".characterization.json.partial"),
        os.path.join(out, "characterization.json"),
    )
    from aqmlab.characterize.report import write_report

    write_report(out)
    return doc


def _emulated_entry(
    b: Built,
    cases: dict[str, dict[str, Any]],
    seed_list: list[int],
    out: str,
    progress: bool | None,
) -> dict[str, Any] | str:
    """Scenario ``b`` emulated with each discipline of ``cases`` over the seeds: its entry, or
    why it is not emulated."""
    import sys

    from aqmlab.characterize import emulated

    reason = emulated.why_not(b)
    if reason:
        return reason
    name = slug(b) + emulated.SUFFIX
    prefix = b.params_keys["bottleneck"] + "."
    results: dict[str, Any] = {}
    runs: dict[str, list[str]] = {}
    errors: dict[str, str] = {}
    for q, case in cases.items():
        params = {k[len(prefix) :]: v for k, v in case.items() if k.startswith(prefix)}
        metrics = []
        for seed in seed_list:
            rel = os.path.join("runs-emulated", name, f"{q}-s{seed}")
            if progress is not False:
                print(f"emulating {name} {q} seed {seed} ...", file=sys.stderr, flush=True)
            try:
                m = emulated.run_one(b, q, params, seed, os.path.join(out, rel))
            except AqmlabError as e:
                errors[q] = str(e)
                break
            metrics.append(run_metrics({"metrics": m}, b.ratios))
            runs.setdefault(q, []).append(rel)
        results[q] = statistics(metrics)
    entry: dict[str, Any] = {
        "id": name,
        "template": b.id,
        "section": b.section,
        "title": b.title,
        "requirement": b.requirement,
        "requirement_basis": fig4.level(b.section)[1],
        "variant": b.variant,
        "emulated": True,
        "status": "run" if not errors else "failed",
        "parameters": {
            **emulated.parameters(b),
            "disciplines": cases,
            "scenario": os.path.join("scenarios", f"{slug(b)}.toml"),
            "seeds": seed_list,
        },
        "results": results,
        "emulated_runs": runs,
    }
    if errors:
        entry["errors"] = errors
    return entry


def _earlier(out: str) -> dict[str, Any]:
    """The folder's earlier ``characterization.json``, or ``{}``."""
    try:
        with open(os.path.join(out, "characterization.json"), encoding="utf-8") as f:
            old = json.load(f)
    except (OSError, ValueError):
        return {}
    return old if isinstance(old, dict) else {}


def _merge(
    out: str,
    settings: dict[str, Any],
    chosen: list[Template],
    entries: list[dict[str, Any]],
    every: list[Template],
) -> list[dict[str, Any]]:
    """With ``--only``: the scenarios not run now are kept from the folder's earlier
    ``characterization.json`` when it was made with the same settings (disciplines,
    parameters, rate, RTT, seeds, mode), so a partial run updates the report in place."""
    old = _earlier(out)
    if not old or any(old.get(k) != v for k, v in settings.items()):
        return entries
    ran = {t.id for t in chosen}
    merged = []
    for t in every:
        source = entries if t.id in ran else old.get("scenarios", [])
        merged += [e for e in source if e.get("template") == t.id]
    return merged


def _wanted(t: Template, only: list[str] | None) -> bool:
    if not only:
        return True
    return any(t.id.startswith(o) or str(t.meta["section"]).startswith(o) for o in only)


__all__ = ["characterize", "parse_params"]
