"""A value fitted to the source's published numbers: a ``[numbers.NAME]`` with ``fit``
(docs/reproductions.md, "Metrics as data"). Among ``candidates`` (the buffers run, say), the
one whose numbers come closest to the published values of named claims, in the sum of the
absolute differences; the first candidate wins a tie (the smallest buffer, candidates in
order). consumer-edge fits the buffer, which its slides do not give, to their tail-drop
medians.

``fit`` keys: ``candidates`` (a list, or ``"{param}"``), ``terms`` (a list of ``{ number =
PATH, published = CLAIM ID }``: ``PATH`` a number declared above, spelt as a claim's
``metric``, with ``{candidate}`` standing for each candidate; ``CLAIM ID`` a numeric claim of
claims.toml whose ``published`` is the target), ``each`` (a table of NAME = [values] moving
together: one fit per position, ``{NAME}`` filled in the terms and the key) with ``key`` (one
template per level of the nested tables the fits are laid out in, fields of ``each``), and
``ties`` (the name of a number listing, keys joined by a space, the fits where every candidate
came out equal, so that the fit could not choose: a report says so), each entry written from
``ties_text`` where given (a template of ``each``'s fields: consumer-edge's ``"{rate}
{direction}, fitted to the {other} median"``, which its discussion joins).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError


@dataclass
class FitDef:
    name: str
    candidates: Any  # a list, or a "{param}" text
    terms: list[tuple[str, str]]  # (number path, claim id), with {candidate} and each's fields
    each: dict[str, list[Any]] = field(default_factory=dict)
    key: list[str] = field(default_factory=list)
    ties: str = ""
    where: str = ""  # "FILE: numbers.NAME.fit"
    ties_text: str = ""  # each tie's entry, a template of each's fields (default: the keys)


def parse(name: str, where: str, doc: dict[str, Any]) -> FitDef:
    """A ``[numbers.NAME]`` of ``fit``, checked; errors name the file, the table and the key."""
    other = [k for k in doc if k != "fit"]
    if other:
        raise AqmlabError(f"{where}.{other[0]}: not with fit (the fit's keys go in fit)")
    where = f"{where}.fit"
    d = doc["fit"]
    if not isinstance(d, dict):
        raise AqmlabError(f"{where}: expected a table {{ candidates = ..., terms = [...] }}")
    for k in d:
        if k not in ("candidates", "terms", "each", "key", "ties", "ties_text"):
            raise AqmlabError(
                f"{where}.{k}: unknown key (expected one of candidates, terms, each, key, ties, "
                "ties_text)"
            )
    cand = d.get("candidates")
    if not (isinstance(cand, list) and cand) and not (
        isinstance(cand, str) and re.fullmatch(r"\{\w+\}", cand)
    ):
        raise AqmlabError(
            f'{where}.candidates: expected a list of values or "{{param}}", got {cand!r}'
        )
    terms = d.get("terms")
    if not isinstance(terms, list) or not terms:
        raise AqmlabError(f"{where}.terms: expected a list of {{ number = ..., published = ... }}")
    parsed = []
    for i, t in enumerate(terms):
        if (
            not isinstance(t, dict)
            or set(t) != {"number", "published"}
            or not all(isinstance(v, str) and v for v in t.values())
        ):
            raise AqmlabError(
                f"{where}.terms[{i}]: expected {{ number = PATH with {{candidate}}, "
                f"published = CLAIM ID }}, got {t!r}"
            )
        if "{candidate}" not in t["number"]:
            raise AqmlabError(
                f"{where}.terms[{i}].number: expected {{candidate}} in {t['number']!r}"
            )
        parsed.append((t["number"], t["published"]))
    each = d.get("each", {})
    lens = (
        {len(v) if isinstance(v, list) else -1 for v in each.values()}
        if isinstance(each, dict)
        else {-1}
    )
    if not isinstance(each, dict) or -1 in lens or 0 in lens or len(lens) > 1:
        raise AqmlabError(
            f"{where}.each: expected a table of NAME = [values], every list of one length, "
            f"got {each!r}"
        )
    key = d.get("key", [])
    if not isinstance(key, list) or not all(isinstance(k, str) for k in key):
        raise AqmlabError(f"{where}.key: expected a list of templates, got {key!r}")
    if bool(each) != bool(key):
        raise AqmlabError(f"{where}.key: expected one template per level with each, and only then")
    fields = {f for k in key for f in re.findall(r"\{(\w+)", k)}
    if fields - set(each):
        raise AqmlabError(
            f"{where}.key: fields among {sorted(each)}, got {sorted(fields - set(each))}"
        )
    ties = d.get("ties", "")
    if not isinstance(ties, str):
        raise AqmlabError(f"{where}.ties: expected the name of a number (a text), got {ties!r}")
    text = d.get("ties_text", "")
    if not isinstance(text, str) or ("ties_text" in d and not ties):
        raise AqmlabError(
            f"{where}.ties_text: expected a text (with ties: each tie's entry), got {text!r}"
        )
    unknown = set(re.findall(r"\{(\w+)\}", text)) - set(each)
    if unknown:
        raise AqmlabError(f"{where}.ties_text: fields among {sorted(each)}, got {sorted(unknown)}")
    return FitDef(name, cand, parsed, each, key, ties, where, ties_text=text)


def _fill(text: str, fields: dict[str, Any]) -> str:
    for k, v in fields.items():
        text = text.replace("{" + k + "}", str(v))
    return text


def _value(ctx: Any, fd: FitDef, j: int, fields: dict[str, Any]) -> Any:
    """Term ``j``'s number at one candidate (``fields`` holding it as ``candidate``)."""
    from aqmlab.reproduce.loader import _named

    path = _fill(fd.terms[j][0], fields)
    v = _named(ctx, path)
    if v is None or isinstance(v, (bool, str, dict, list)):
        raise AqmlabError(f"{fd.where}.terms[{j}].number: no number {path!r}")
    return v


def compute(fd: FitDef, ctx: Any) -> Any:
    """The fitted candidate(s) over ``ctx.numbers`` (those declared above) and the claims'
    published values; a ``ties`` list into ``ctx.numbers`` too."""
    cands = ctx.value(fd.candidates)
    if not isinstance(cands, list) or not cands:
        raise AqmlabError(f"{fd.where}.candidates: expected a list of values, got {cands!r}")
    published = {c.id: c.published for c in ctx.experiment.claims}
    n = len(next(iter(fd.each.values()))) if fd.each else 1
    out: Any = {}
    ties: list[str] = []
    for i in range(n):
        fields = {k: v[i] for k, v in fd.each.items()}
        targets = []
        for j, (_, cid) in enumerate(fd.terms):
            cid = _fill(cid, fields)
            if cid not in published:
                raise AqmlabError(f"{fd.where}.terms[{j}].published: no claim {cid!r}")
            try:
                targets.append(float(published[cid]))
            except (TypeError, ValueError):
                raise AqmlabError(
                    f"{fd.where}.terms[{j}].published: claim {cid!r}'s published "
                    f"{published[cid]!r} is not a number"
                ) from None

        err = {
            c: sum(
                abs(_value(ctx, fd, j, {**fields, "candidate": c}) - t)
                for j, t in enumerate(targets)
            )
            for c in cands
        }
        best = min(err, key=err.get)  # the first of equal errors: candidates in order
        if len(set(err.values())) == 1:
            tie = " ".join(_fill(k, fields) for k in fd.key) or fd.name
            ties.append(_fill(fd.ties_text, fields) if fd.ties_text else tie)
        if not fd.key:
            out = best
            continue
        node = out
        levels = [_fill(k, fields) for k in fd.key]
        for k in levels[:-1]:
            node = node.setdefault(k, {})
        node[levels[-1]] = best
    if fd.ties:
        ctx.numbers[fd.ties] = ties
    return out
