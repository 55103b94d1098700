"""The report's discussion declared in ``experiment.toml`` (docs/reproductions.md, "Report
tables and discussion as data"): ``discussion`` is a list of paragraphs, each a text (filled
with the mode's parameters, as before) or a table ``{ text, when }`` (``[[discussion]]``):
``text`` a template of :mod:`aqmlab.reproduce.report_text`'s fields (numbers, claims' verdicts
and tests, parameters: ``"tail drop delivers {100 * taildrop_extra_bytes:+.1f} % more"``),
printed only where ``when`` (an expression of the same names, ``"`claim.x.verdict` !=
'agrees'"``) holds: verdict-dependent paragraphs;
``none``: the text of a field with no value (default ``–``: l4s-dualq's ``"stalled"``);
``lists``: fields that are lists over a table's rows (:mod:`aqmlab.reproduce.report_list`:
static-rates' utilization per rate, red-bursty's tail-drop runs at a claim's failing points).
``each`` (a table of NAME = [values] moving together, as a ``[[derive]]``'s) repeats the
paragraph once per combination, ``{NAME}`` filled in its ``text`` and ``when`` first (in a
backticked name too: ```ns2."{case}".ratio_packmime```) and ``NAME`` a row field of its
expressions: codel-dynamic's ns-2.35 comparison, one paragraph per RED arm.
Every error is one line naming the file, ``discussion[i]`` and the key (``{ module = true }``,
which placed a module's ``discussion(ctx)`` paragraphs, is refused: the loader no longer calls
it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aqmlab.exceptions import AqmlabError
from aqmlab.reproduce import report_list, report_text

#: A paragraph's keys, its texts first.
TEXTS = ("text", "when", "none")
KEYS = (*TEXTS, "each", "lists")


@dataclass
class Paragraph:
    where: str  # "FILE: discussion[i]"
    text: str
    when: str = ""
    #: The text of a field with no value (default "–").
    none: str = "–"
    #: NAME -> [values] moving together: one paragraph per combination.
    each: dict[str, list[Any]] = field(default_factory=dict)
    #: Fields that are lists over a table's rows (report_list).
    lists: list[report_list.ListDef] = field(default_factory=list)

    def combinations(self) -> list[dict[str, Any]]:
        """``each``'s combinations, in order (one, empty, without ``each``)."""
        if not self.each:
            return [{}]
        n = len(next(iter(self.each.values())))
        return [{k: v[i] for k, v in self.each.items()} for i in range(n)]


def load(path: str, doc: Any, frames: Sequence[str] = ()) -> list[str | Paragraph]:
    """``discussion``: texts (as before) and ``{ text, when }`` tables, checked (``frames``:
    the sweeps' and frames' names a list's ``frame`` may give)."""
    if not isinstance(doc, list):
        raise AqmlabError(
            f"{path}: discussion: expected a list of texts or [[discussion]] tables, got {doc!r}"
        )
    out: list[str | Paragraph] = []
    for i, d in enumerate(doc):
        where = f"{path}: discussion[{i}]"
        if isinstance(d, str):
            out.append(d)
            continue
        if isinstance(d, dict) and "module" in d:
            raise AqmlabError(
                f"{where}.module: the loader no longer calls a module's discussion(ctx), whose "
                "paragraphs this placed: write them here as { text, when }"
            )
        if not isinstance(d, dict):
            raise AqmlabError(f"{where}: expected a text or a table {{ text, when }}, got {d!r}")
        for k in d:
            if k not in KEYS:
                raise AqmlabError(f"{where}.{k}: unknown key (expected one of {', '.join(KEYS)})")
        for k in TEXTS:
            if not isinstance(d.get(k, ""), str):
                raise AqmlabError(f"{where}.{k}: expected a text, got {d[k]!r}")
        if not d.get("text"):
            raise AqmlabError(f"{where}.text: expected a text")
        from aqmlab.reproduce.metrics import _each

        p = Paragraph(where, d["text"], d.get("when", ""), d.get("none", "–"))
        p.each = _each(where, d.get("each"))
        # Its syntax and grammar, before anything runs (each combination's).
        for fields in p.combinations():
            report_text.check_template(_fill(p.text, fields), f"{where}.text")
            if p.when:
                report_text.compile_text(_fill(p.when, fields), f"{where}.when")
        if "lists" in d:
            p.lists = report_list.load(f"{where}.lists", d["lists"], list(frames))
        out.append(p)
    return out


def paragraphs(items: list[str | Paragraph], ctx: Any) -> list[str]:
    """The paragraphs after the run: texts filled with the parameters, each table's text
    filled from the run where its ``when`` holds."""
    out = []
    for p in items:
        if isinstance(p, str):
            out.append(ctx.fill(p))
        else:
            lists = report_list.values(p.lists, ctx)
            for f in p.combinations():
                fields = {**lists, **f}
                when = _fill(p.when, f)
                if not when or report_text.condition(ctx, when, fields, f"{p.where}.when"):
                    filled = _fill(p.text, f)
                    text = report_text.fill(ctx, filled, fields, f"{p.where}.text", p.none)
                    out.append(str(text))
    return out


def _fill(text: str, fields: dict[str, Any]) -> str:
    """``text`` with each ``{NAME}`` of ``each`` replaced by its value."""
    for k, v in fields.items():
        text = text.replace("{" + k + "}", str(v))
    return text
