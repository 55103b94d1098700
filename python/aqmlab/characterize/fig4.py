"""RFC 7928's requirement levels (its Fig. 4, in section 13): the one section → level table the
catalog checks every template against and the report prints.

Source: the project's reference notes (``/work/shared/reference/today.md``, "RFC 7928
(Characterization Guidelines for AQM), in short"), which give Fig. 4's rows: must for §5.1,
5.2, 5.3, 6.2, 7.2, 8.2.5 and 8.2.6 (and ECN, §4.5, must be discussed where it is supported);
should for scheduling and parameter sensitivity; recommended for §9.1; may for §5.4, 9.2 and
10.2. The RFC's own text could not be read here (the stored copies hold its first page only),
so nothing in this table goes beyond those notes: a section they do not name is "not listed",
never given a level of our own.
"""

from __future__ import annotations

#: The levels as Fig. 4 words them, and "not listed" where it names none.
LEVELS = ("must", "should", "recommended", "may", "not listed")
NOT_LISTED = "not listed"

#: Fig. 4's rows that are scenario sections: section → level.
BY_SECTION = {
    "4.5": "must",
    "5.1": "must",
    "5.2": "must",
    "5.3": "must",
    "6.2": "must",
    "7.2": "must",
    "8.2.5": "must",
    "8.2.6": "must",
    "9.1": "recommended",
    "5.4": "may",
    "9.2": "may",
    "10.2": "may",
}

#: A row's condition, as the notes give it.
CONDITIONS = {"4.5": "ECN must be discussed where the discipline supports it"}

#: Fig. 4's rows that no scenario runs (the notes give them no section number): level, topic,
#: and what the report offers instead.
DISCUSSION = [
    (
        "should",
        "scheduling",
        "no scenario: aqmlab characterize runs each discipline alone on the bottleneck; a "
        "scheduler with an AQM per queue (fq_codel, cake...) is characterized as a discipline",
    ),
    (
        "should",
        "parameter sensitivity",
        "no scenario: 'Disciplines' gives each discipline's parameters as run and which of "
        "them are auto-derived or adapted (RFC 7928 §12); --param reruns with other values, "
        "`aqmlab sweep` varies one",
    ),
]

#: Why a section Fig. 4 is silent on prints "not listed" (beside the generic reason).
SILENT = {
    "4.4": "Fig. 4 names no level for packet sizes (§4.4)",
    "8.2.2": "Fig. 4 names §8.2.5 (must), which runs mild, medium and heavy congestion in "
    "turn, but no level for each alone (§8.2.2-8.2.4)",
    "8.2.3": "Fig. 4 names §8.2.5 (must), which runs mild, medium and heavy congestion in "
    "turn, but no level for each alone (§8.2.2-8.2.4)",
    "8.2.4": "Fig. 4 names §8.2.5 (must), which runs mild, medium and heavy congestion in "
    "turn, but no level for each alone (§8.2.2-8.2.4)",
}


def row_of(section: str) -> str | None:
    """The Fig. 4 row that covers ``section``: its own, else the nearest section holding it
    (§5.1.2 is in §5.1's row); None where Fig. 4 is silent."""
    parts = str(section).split(".")
    for k in range(len(parts), 0, -1):
        row = ".".join(parts[:k])
        if row in BY_SECTION:
            return row
    return None


def level(section: str) -> tuple[str, str]:
    """The Fig. 4 level of ``section`` and where it comes from (its row, or why "not
    listed"). Never a level the notes do not give."""
    s = str(section)
    row = row_of(s)
    if row is None:
        return NOT_LISTED, SILENT.get(s, f"Fig. 4 names no level for §{s} nor a section holding it")
    lvl = BY_SECTION[row]
    basis = f"RFC 7928 Fig. 4: §{row} {lvl}"
    if row != s:
        basis += f" (§{s} is part of §{row})"
    if row in CONDITIONS:
        basis += f"; {CONDITIONS[row]}"
    return lvl, basis
