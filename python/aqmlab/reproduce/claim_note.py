"""A claim's ``note`` printed only where a condition holds (docs/reproductions.md,
"claims.toml"): ``note = { text, when }``, ``when`` an expression of the report's fields
(:mod:`aqmlab.reproduce.report_text`: the mode's parameters, numbers, claims), as a
``[[discussion]]`` paragraph's: cellular's ``{ text = "run on {trace_label}, not the Verizon
trace", when = "split(trace_label, 'Verizon', 0) == trace_label" }`` notes a run on a trace
whose name does not hold 'Verizon'. A plain text is always
added. Every error is one line naming the file, the claim and the key.
"""

from __future__ import annotations

from typing import Any

from aqmlab.reproduce import report_text

KEYS = ("text", "when")


def load(t: Any) -> tuple[str, str]:
    """``note`` of claim table ``t`` (a :class:`aqmlab.reproduce.folder._Table`): its text and
    its condition (``""``: always), the condition's grammar checked before anything runs."""
    v = t.doc.get("note", "")
    if isinstance(v, str):
        return v, ""
    if (
        not isinstance(v, dict)
        or set(v) - set(KEYS)
        or not all(isinstance(x, str) for x in v.values())
    ):
        raise t.error("note", "a text, or a table { text, when } of texts")
    if not v.get("text") or not v.get("when"):
        raise t.error("note", "a table { text, when } with both (a note without when: a text)")
    report_text.compile_text(v["when"], f"{t.path}: {t.where}.note.when")
    return v["text"], v["when"]


def add(claim: Any, text: str, when: str, ctx: Any, where: str) -> None:
    """Add ``text`` (its ``{param}`` fields filled) to ``claim``'s note where ``when`` holds."""
    if text and (not when or report_text.condition(ctx, when, {}, f"{where}.note.when")):
        claim.add_note(ctx.fill(text))
