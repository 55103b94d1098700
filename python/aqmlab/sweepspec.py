"""What a sweep runs: a base scenario, axes of values, fixed overrides and seeds.

Two spellings give the same :class:`SweepSpec`:

* the command line: ``aqmlab sweep SCENARIO --vary KEY=V1,V2 --qdisc LINK=K1,K2 --zip KEY=...
  --set KEY=V --unset KEY --seeds 1-10``;
* a file (``aqmlab sweep SWEEP.toml``)::

      scenario = "../scenarios/codel-dynamic-link.toml"   # relative to this file
      seeds = "1-5"                                         # or [1, 2, 7]
      unset = ["flows[0].stop"]                             # removed at every point
      [set]                                                 # fixed for every point
      duration = "60s"
      [vary]                                                # one axis per key
      "dumbbell.bottleneck.rate" = ["10Mbps", "100Mbps"]
      [qdisc]                                               # one axis per link
      bottleneck = ["droptail", "codel", "pie"]
      [[zip]]                                               # keys that move together: one axis
      "dumbbell.bottleneck.delay" = ["5ms", "50ms"]
      "dumbbell.bottleneck.buffer" = ["20p", "200p"]
      [case."tail drop, 10 packets"]                        # named cases: one axis, "case"
      "qdisc:bottleneck" = "droptail"
      "dumbbell.bottleneck.buffer" = "10p"

The points are the cartesian product of the axes, the first axis varying slowest. An axis's
column in the results is its key as written (a ``--set`` key path) or ``qdisc:LINK``.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import ScenarioError

#: Prefix of the column of a discipline axis (``qdisc:bottleneck``).
QDISC_PREFIX = "qdisc:"
#: The most runs (points × seeds) one sweep may plan: a typo like ``--seeds 1-1000000`` is
#: refused instead of filling the disk.
MAX_RUNS = 100_000


#: The column of a cases axis.
CASE_COLUMN = "case"


@dataclass
class Axis:
    """One dimension of the product: one key, or several zipped keys whose i-th values go
    together (``values[i]`` holds one value per key); or named cases (``cases``: a label's
    overrides, any keys and discipline swaps), whose one column is ``case`` unless named
    otherwise."""

    keys: list[str]
    values: list[tuple[Any, ...]]
    cases: dict[str, dict[str, Any]] | None = None
    #: The option that varies the keys, which errors about them name.
    flag: str = "--vary"
    #: The command line's text of each of ``values`` (``--vary``, ``--zip``), which the native
    #: loader reads as it reads ``aqmlab run --set`` values; ``values`` then hold what the
    #: results table shows (:func:`literal`). None: ``values`` are Python values (a sweep file,
    #: the API), written once as TOML where the sweep hands them to the loader.
    texts: list[tuple[str, ...]] | None = None

    @classmethod
    def of_cases(cls, cases: dict[str, dict[str, Any]], column: str = CASE_COLUMN) -> Axis:
        return cls([column], [(label,) for label in cases], dict(cases))


@dataclass
class SweepSpec:
    scenario: str
    axes: list[Axis] = field(default_factory=list)
    sets: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] | None = None  # None: the scenario's own seed
    #: "module:function(run_dir, point, sets) -> dict" (or "/path/file.py:function"), run in
    #: the worker on each finished
    #: run; its numbers are the run's ``reduced.json`` and its packet log is not kept.
    reduce: str | None = None
    #: The keyword arguments ``reduce`` is called with (a ``[sweep.reduce.packet_log]``'s);
    #: in the run key beside it.
    reduce_args: dict[str, Any] = field(default_factory=dict)
    #: Keys removed from the scenario before any override (``--unset``), for every point.
    unset: list[str] = field(default_factory=list)

    @property
    def columns(self) -> list[str]:
        return [k for a in self.axes for k in a.keys]

    def varied(self, point: dict[str, Any]) -> dict[str, str]:
        """The ``set`` keys the axes vary at ``point``, each with the option that varies it,
        which errors about the key name (``--vary``, ``--zip``; a case's keys by its label,
        ``case "NAME":``; discipline swaps are no ``set`` keys)."""
        out: dict[str, str] = {}
        for a in self.axes:
            if a.cases is None:
                keys = {k: a.flag for k in a.keys}
            else:
                label = point[a.keys[0]]
                keys = {k: f"case {json.dumps(str(label))}:" for k in a.cases[label]}
            out.update((k, o) for k, o in keys.items() if not k.startswith(QDISC_PREFIX))
        return out

    def combos(self) -> list[tuple[int, ...]]:
        """Every point as the index of its value on each axis, the first axis varying
        slowest."""
        return list(itertools.product(*(range(len(a.values)) for a in self.axes)))

    def point(self, combo: tuple[int, ...]) -> dict[str, Any]:
        """The point ``combo`` as ``{column: value}`` (as the results table shows it)."""
        point: dict[str, Any] = {}
        for axis, i in zip(self.axes, combo):
            point.update(zip(axis.keys, axis.values[i]))
        return point

    def points(self) -> list[dict[str, Any]]:
        """Every point, as ``{column: value}``, the first axis varying slowest."""
        return [self.point(c) for c in self.combos()]

    def check(self) -> None:
        seen: set[str] = set()
        for k in self.columns:
            if k in seen:
                raise ScenarioError(f"sweep: {k} is varied twice")
            seen.add(k)
            if k in self.sets:
                raise ScenarioError(f"sweep: {k} is both varied and fixed with --set")
        n = len(self.points()) * len(self.seeds or [0])
        if n > MAX_RUNS:
            raise ScenarioError(f"sweep: {n} runs planned; at most {MAX_RUNS} are allowed")
        self._check_disciplines()

    def _check_disciplines(self) -> None:
        """Every discipline an axis swaps in is one aqmlab has: an unknown name is refused
        before any folder is made (as ``aqmlab run --compare`` refuses it), not a failed row."""
        from aqmlab import _core

        known = [q["name"] for q in _core.list_qdiscs()]
        for axis in self.axes:
            swaps = []
            if axis.cases is not None:
                for label, case in axis.cases.items():
                    swaps += [
                        (f"case {label}: {k}", v)
                        for k, v in case.items()
                        if k.startswith(QDISC_PREFIX)
                    ]
            else:
                for i, k in enumerate(axis.keys):
                    if k.startswith(QDISC_PREFIX):
                        link = k.removeprefix(QDISC_PREFIX)
                        where = f"--qdisc {link}" if axis.flag == "--qdisc" else f"qdisc.{link}"
                        swaps += [(where, vals[i]) for vals in axis.values]
            for where, kind in swaps:
                if kind not in known:
                    raise ScenarioError(
                        f"{where}: unknown queue discipline {json.dumps(str(kind))}: expected "
                        f"one of {', '.join(known)}"
                    )


def parse_seeds(text: Any, where: str = "--seeds") -> list[int]:
    """``"1-10"``, ``"1,3,5"``, ``"1-3,9"``, ``7`` or ``[1, 2]`` as a list of seeds."""
    if isinstance(text, bool):
        raise ScenarioError(f"{where}: expected seeds like 1-10 or 1,3,5, got {text!r}")
    if isinstance(text, int):
        items: list[Any] = [text]
    elif isinstance(text, list):
        items = text
    elif isinstance(text, str):
        items = [p.strip() for p in text.split(",")]
    else:
        raise ScenarioError(f"{where}: expected seeds like 1-10 or 1,3,5, got {text!r}")
    seeds: list[int] = []
    for it in items:
        lo = hi = None
        if isinstance(it, int) and not isinstance(it, bool):
            lo = hi = it
        elif isinstance(it, str):
            a, dash, b = it.partition("-")
            try:
                lo = int(a)
                hi = int(b) if dash else lo
            except ValueError:
                lo = None
        if lo is None or hi is None or lo < 0 or hi < lo or hi >= 2**63:
            raise ScenarioError(
                f"{where}: expected seeds like 1-10 or 1,3,5 (whole numbers, a range low-high), "
                f"got {it!r}"
            )
        if hi - lo >= MAX_RUNS:
            raise ScenarioError(f"{where}: {it} is more than {MAX_RUNS} seeds")
        seeds.extend(range(lo, hi + 1))
    if len(set(seeds)) != len(seeds):
        raise ScenarioError(f"{where}: a seed is listed twice in {text!r}")
    if not seeds:
        raise ScenarioError(f"{where}: no seeds in {text!r}")
    return seeds


def literal(text: str) -> Any:
    """A command-line value as the table shows it: the TOML value when it is one (``7``,
    ``true``, ``1.5``), else the text (``10Mbps``), as ``--set`` reads it."""
    try:
        v = _toml_loads(f"v = {text}")["v"]
    except Exception:  # noqa: BLE001 - anything that is not a TOML value is text
        return text
    return v if isinstance(v, (bool, int, float, str, list)) else text


def read_input(path: str, what: str = "scenario") -> bytes:
    """The bytes of the scenario or sweep file at ``path``, read as ``aqmlab run`` reads its
    scenario: up to the same size cap, refused with the same one-line error
    (:class:`ScenarioError`, calling the file ``what``), so an endless or huge file stops at
    once."""
    from aqmlab import _core

    return _core.read_scenario_file(path, what)


def read_text(path: str, what: str = "scenario") -> str:
    """The text of the TOML file at ``path`` (:func:`read_input`); not UTF-8: one line."""
    try:
        return read_input(path, what).decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not UTF-8 text: expected a TOML file") from None


def read_toml(path: str, what: str = "sweep file") -> dict[str, Any]:
    """The TOML file at ``path`` (:func:`read_text`; its errors call it ``what``) as a dict
    (:func:`toml_doc`)."""
    return toml_doc(path, read_text(path, what))


def toml_doc(path: str, text: str) -> dict[str, Any]:
    """``text``, the file ``path``, read as TOML. A syntax error is one line said as ``aqmlab
    run`` says a scenario's (``FILE:LINE: not valid TOML at column C: what was expected (found
    what)``: the core's words, :func:`aqmlab._core.check_toml`), :class:`ScenarioError`."""
    try:
        return _toml_loads(text)
    except Exception as e:  # noqa: BLE001 - said in the core's words below
        from aqmlab import _core

        _core.check_toml(path, text)  # raises ScenarioError
        # Python's reader refuses what the core's accepts (a corner of TOML they read apart).
        raise ScenarioError(f"{path}: not valid TOML: {e}") from None


def _toml_loads(text: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


def from_cli(
    scenario: str,
    vary: list[str],
    qdisc: list[str],
    zipped: list[str],
    sets: list[str],
    seeds: str | None,
    unset: list[str] | None = None,
) -> SweepSpec:
    """The spec the command line describes (values typed as ``--set`` types them)."""
    from aqmlab.run import TomlText

    axes = []
    # Each value's text goes to the loader as typed; `literal` gives the table's value.
    for item in vary:
        k, vals = _axis_values(item, "--vary")
        axes.append(Axis([k], [(literal(x),) for x in vals], texts=[(x,) for x in vals]))
    for item in qdisc:
        k, vals = _axis_values(item, "--qdisc")
        axes.append(Axis([QDISC_PREFIX + k], [(x,) for x in vals], flag="--qdisc"))
    if zipped:
        group = {}
        for item in zipped:
            k, vals = _axis_values(item, "--zip")
            group[k] = vals
        axes.append(_zip_axis({k: [literal(x) for x in v] for k, v in group.items()}))
        axes[-1].texts = list(zip(*group.values()))
    fixed = {}
    for item in sets:
        k, _, v = item.partition("=")
        if not _ or not k.strip():
            raise ScenarioError(f"--set {item!r}: expected KEY=VALUE")
        fixed[k.strip()] = TomlText(v.strip())
    from aqmlab.scenarios import resolve

    for k in unset or []:
        if not k.strip():
            raise ScenarioError("--unset: expected a key path, like flows[0].stop")
    spec = SweepSpec(
        _existing(resolve(scenario), "the scenario"),
        axes,
        fixed,
        None if seeds is None else parse_seeds(seeds),
        unset=[k.strip() for k in unset or []],
    )
    spec.check()
    return spec


def _existing(path: str, what: str) -> str:
    """``path`` when it is a file, else the one-line error naming it (before any run is
    planned, so no point is recorded as failed for want of the base scenario)."""
    if not os.path.exists(path) or os.path.isdir(path):
        from aqmlab.scenarios import names

        bundled = ", ".join(names()) or "none found"
        raise ScenarioError(
            f"{path}: {what}: no such file, nor a bundled scenario of that name ({bundled})"
        )
    return path


def _axis_values(item: str, flag: str) -> tuple[str, list[str]]:
    """``KEY=V1,V2,...`` (``flag``'s value) as the key and its values' texts, each as typed."""
    k, sep, v = item.partition("=")
    if not sep or not k.strip() or not v.strip():
        raise ScenarioError(f"{flag} {item!r}: expected KEY=V1,V2,...")
    k, text = k.strip(), v.strip()
    # Split at the commas outside brackets and quotes, so a TOML array or a quoted string stays
    # one value (``["0s","1Mbps"],["0s","2Mbps"]``).
    vals, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            vals.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    vals.append("".join(cur).strip())
    if any(x == "" for x in vals):
        raise ScenarioError(f"{flag} {k}: an empty value in {text!r}")
    if len(set(vals)) != len(vals):
        raise ScenarioError(f"{flag} {k}: a value is listed twice in {text!r}")
    return k, vals


def _zip_axis(group: dict[str, list[Any]], where: str = "--zip") -> Axis:
    lengths = {len(v) for v in group.values()}
    if len(lengths) != 1:
        detail = ", ".join(f"{k}: {len(v)}" for k, v in group.items())
        raise ScenarioError(f"{where}: zipped keys need the same number of values ({detail})")
    keys = list(group)
    return Axis(keys, list(zip(*group.values())), flag="--zip")


def from_file(path: str) -> SweepSpec:
    """The spec a sweep file describes. Errors name the file and the key."""
    doc = read_toml(path)
    known = {
        "scenario", "seeds", "set", "unset", "vary", "qdisc", "zip", "case", "name", "description",
    }  # fmt: skip
    for k in doc:
        if k not in known:
            raise ScenarioError(
                f"{path}: unknown key {k!r} (a sweep file has {', '.join(sorted(known))})"
            )
    base = doc.get("scenario")
    if not isinstance(base, str) or not base:
        raise ScenarioError(f"{path}: scenario: expected the base scenario's path or name")
    here = os.path.dirname(os.path.abspath(path))
    scen = base if os.path.isabs(base) else os.path.join(here, base)
    if not os.path.exists(scen):
        from aqmlab.scenarios import resolve

        scen = resolve(base)  # a bundled scenario's name, or a path relative to the cwd
        if not os.path.isfile(scen):
            raise ScenarioError(
                f"{path}: scenario: {base!r} is no file (relative to {here}), nor a bundled "
                "scenario's name"
            )
    axes = []
    for table, prefix in (("vary", ""), ("qdisc", QDISC_PREFIX)):
        t = doc.get(table, {})
        if not isinstance(t, dict):
            raise ScenarioError(f"{path}: [{table}]: expected a table of KEY = [values]")
        for k, v in t.items():
            axes.append(Axis([prefix + k], [(x,) for x in listed(v, f"{path}: {table}.{k}")]))
    cases = doc.get("case", {})
    if not isinstance(cases, dict) or not all(isinstance(v, dict) for v in cases.values()):
        raise ScenarioError(f'{path}: case: expected [case."NAME"] tables of KEY = VALUE')
    if cases:
        axes.append(Axis.of_cases(cases))
    zips = doc.get("zip", [])
    if not isinstance(zips, list):
        raise ScenarioError(f"{path}: zip: expected [[zip]] tables")
    for i, group in enumerate(zips):
        if not isinstance(group, dict) or not group:
            raise ScenarioError(f"{path}: zip[{i}]: expected a table of KEY = [values]")
        vals = {k: listed(v, f"{path}: zip[{i}].{k}") for k, v in group.items()}
        axes.append(_zip_axis(vals, f"{path}: zip[{i}]"))
    sets = doc.get("set", {})
    if not isinstance(sets, dict):
        raise ScenarioError(f"{path}: [set]: expected a table of KEY = VALUE")
    unset = doc.get("unset", [])
    if not isinstance(unset, list) or not all(isinstance(k, str) and k for k in unset):
        raise ScenarioError(f'{path}: unset: expected a list of key paths, like ["flows[0].stop"]')
    seeds = doc.get("seeds")
    spec = SweepSpec(
        scen,
        axes,
        dict(sets),
        None if seeds is None else parse_seeds(seeds, f"{path}: seeds"),
        unset=list(unset),
    )
    try:
        spec.check()
    except ScenarioError as e:
        raise ScenarioError(f"{path}: {e}") from None
    return spec


def listed(values: Any, where: str) -> list[Any]:
    """An axis's values as a list: a sweep file's ``[vary]`` list or the API's ``vary=``,
    ``qdisc=`` and ``zip=`` values (any iterable but a string). Errors name ``where`` (the
    file and key, or the argument and key)."""
    if isinstance(values, (str, bytes, dict)) or not isinstance(values, Iterable):
        raise ScenarioError(f"{where}: expected a non-empty list of values, got {values!r}")
    out = list(values)
    if not out:
        raise ScenarioError(f"{where}: expected a non-empty list of values, got none")
    return out
