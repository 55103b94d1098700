"""A reproduction's command-line options as data: ``[options.NAME]`` in experiment.toml
(docs/reproductions.md, "Options"). ``aqmlab reproduce`` offers ``--NAME FILE`` for every
option a built-in reproduction declares, refuses it for one that declares none, and
``reproduce all`` passes it to those that do.

An option names a file: ``param`` is set to its absolute path (``default``: a file of the
aqmlab package, its package data, when the option is not given), ``label`` to its name (the
default's ``default_label``), and ``kind = "mahimahi"`` reads it as a mahimahi trace when the
reproduction starts (:mod:`aqmlab.reproduce.mahimahi`), so a file that is not one is one error
naming the option and the line before anything runs. cellular's ``--trace``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from aqmlab.exceptions import AqmlabError

KEYS = ("help", "metavar", "param", "default", "label", "default_label", "kind")
KINDS = ("file", "mahimahi")


@dataclass
class OptionDef:
    name: str
    help: str
    metavar: str
    param: str
    default: str
    label: str
    default_label: str
    kind: str


def load(path: str, doc: Any) -> list[OptionDef]:
    """``[options.NAME]`` tables, checked; errors name the file and the key."""
    if not isinstance(doc, dict):
        raise AqmlabError(f"{path}: options: expected tables [options.NAME]")
    out = []
    for name, d in doc.items():
        where = f"{path}: options.{name}"
        if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
            raise AqmlabError(f"{where}: expected a name of lower-case letters, digits and -")
        if not isinstance(d, dict):
            raise AqmlabError(f"{where}: expected a table")
        for k, v in d.items():
            if k not in KEYS:
                raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(KEYS)})")
            if not isinstance(v, str):
                raise AqmlabError(f"{where}.{k}: expected a text, got {v!r}")
        for k in ("help", "param"):
            if not d.get(k):
                raise AqmlabError(f"{where}.{k}: expected a text")
        kind = d.get("kind", "file")
        if kind not in KINDS:
            raise AqmlabError(f"{where}.kind: expected {' or '.join(KINDS)}, got {kind!r}")
        default = d.get("default", "")
        if default and not os.path.isfile(_package_file(default)):
            raise AqmlabError(
                f"{where}.default: expected a file of the aqmlab package, got {default!r}"
            )
        out.append(
            OptionDef(
                name, d["help"], d.get("metavar", "FILE"), d["param"], default,
                d.get("label", ""), d.get("default_label", os.path.basename(default)), kind,
            )
        )  # fmt: skip
    return out


def _package_file(rel: str) -> str:
    import aqmlab

    return os.path.join(os.path.dirname(os.path.abspath(aqmlab.__file__)), rel)


def apply(defs: list[OptionDef], given: dict[str, Any], params: dict[str, Any]) -> None:
    """Each declared option's parameters from its value in ``given`` (or its default); an
    option given that none declares is an error."""
    unknown = [k for k in given if k not in {d.name for d in defs}]
    if unknown:
        raise AqmlabError(f"--{unknown[0]}: not an option of this reproduction")
    for d in defs:
        value = given.get(d.name)
        if not value and not d.default:
            continue
        path = os.path.abspath(value) if value else _package_file(d.default)
        if not os.path.isfile(path):
            raise AqmlabError(f"--{d.name} {path}: no such file")
        if d.kind == "mahimahi":
            from aqmlab.reproduce import mahimahi

            mahimahi.read_ms(path, f"--{d.name} {path}")
        params[d.param] = path
        if d.label:
            params[d.label] = os.path.basename(path) if value else d.default_label


def builtin() -> dict[str, tuple[str, str, list[str]]]:
    """Every option a built-in reproduction declares: ``name -> (help, metavar, the
    reproductions declaring it)``, read from their experiment.toml alone (for the CLI's
    parser)."""
    from aqmlab.reproduce import BUILTIN, REPRODUCTIONS
    from aqmlab.reproduce.folder import _read

    out: dict[str, tuple[str, str, list[str]]] = {}
    for rep in REPRODUCTIONS:
        doc = _read(os.path.join(BUILTIN, rep, "experiment.toml")).get("options", {})
        for name, d in doc.items():
            help_, metavar, owners = out.get(name, (d["help"], d.get("metavar", "FILE"), []))
            out[name] = (help_, metavar, [*owners, rep])
    return out


def given(values: dict[str, Any], name: str) -> dict[str, str]:
    """The options a command line gave (``values``: option -> its value or None) for the
    reproduction ``name`` (a built-in's name, ``all`` or a folder): those given, or one
    :class:`AqmlabError` line naming the first that ``name`` does not declare."""
    from aqmlab.reproduce.folder import is_folder, load

    out: dict[str, str] = {}
    for opt, (_, _, owners) in builtin().items():
        value = values.get(opt)
        if not value:
            continue
        if name not in (*owners, "all") and not (
            is_folder(name) and opt in [o.name for o in load(name).options]
        ):
            raise AqmlabError(
                f"--{opt} is an option of the {', '.join(owners)} reproduction, not of {name}"
            )
        out[opt] = value
    return out
