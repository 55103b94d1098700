"""RFC 7928 Fig. 4's requirement levels: the one table (``aqmlab.characterize.fig4``) against
the project's reference notes, every bundled template against the table, a template that
contradicts it refused, and the report's Fig. 4 section."""

import collections
import pathlib

import pytest
from aqmlab.characterize import fig4
from aqmlab.characterize.catalog import templates
from aqmlab.characterize.report import _fig4_html
from aqmlab.exceptions import ScenarioError

# The reference notes (/work/shared/reference/today.md, "RFC 7928 ... in short"): "must — 5.1,
# 5.2, 5.3, 6.2, 7.2, 8.2.5, 8.2.6 (and ECN must be discussed if supported); should —
# scheduling, parameter sensitivity; recommended — 9.1; may — 5.4, 9.2, 10.2".
NOTES = {
    "must": ["5.1", "5.2", "5.3", "6.2", "7.2", "8.2.5", "8.2.6", "4.5"],
    "recommended": ["9.1"],
    "may": ["5.4", "9.2", "10.2"],
}


def test_the_table_is_the_reference_notes():
    assert {s: lvl for lvl, ss in NOTES.items() for s in ss} == fig4.BY_SECTION
    assert [(lvl, topic) for lvl, topic, _ in fig4.DISCUSSION] == [
        ("should", "scheduling"),
        ("should", "parameter sensitivity"),
    ]
    assert "supports" in fig4.CONDITIONS["4.5"]


def test_every_template_has_its_fig4_level():
    got = collections.Counter()
    for t in templates():
        lvl, basis = fig4.level(t.meta["section"])
        assert t.meta["requirement"] == lvl, (t.id, basis)
        got[lvl] += 1
    # 4.5, 5.1.1, 5.1.2, 5.2, 5.3 (two), 6.2, 7.2, 8.2.5, 8.2.6 must; 9.1 recommended;
    # 5.4, 9.2, 10.2 may; 4.4 and 8.2.2-8.2.4 not listed.
    assert got == {"must": 10, "recommended": 1, "may": 3, "not listed": 4}


@pytest.mark.parametrize(
    "section,level,row",
    [
        ("5.1.2", "must", "5.1"),  # a part of a listed section takes its row's level
        ("5.1.1", "must", "5.1"),
        ("8.2.5", "must", "8.2.5"),
        ("4.5", "must", "4.5"),
        ("10.2", "may", "10.2"),
        ("4.4", "not listed", None),  # Fig. 4 is silent: never a level of our own
        ("8.2.2", "not listed", None),
        ("8.2.4", "not listed", None),
        ("8.2", "not listed", None),  # a row's parent does not inherit it
        ("10.1", "not listed", None),
        ("10.3", "not listed", None),
    ],
)
def test_level_of_a_section(section, level, row):
    assert fig4.level(section)[0] == level
    assert fig4.row_of(section) == row
    if row is None:
        assert "names" in fig4.level(section)[1]


def test_a_template_contradicting_fig4_is_refused(tmp_path, monkeypatch):
    src = next(t for t in templates() if t.id == "5.2-cubic").path
    text = pathlib.Path(src).read_text()
    (tmp_path / "a.toml").write_text(text.replace('requirement = "must"', 'requirement = "may"'))
    with pytest.raises(ScenarioError, match=r"'may' for §5.2: expected 'must' \(RFC 7928 Fig"):
        templates(str(tmp_path))
    # Counterfactual on the table: were §5.3 "should", the bundled §5.3 templates would fail.
    monkeypatch.setitem(fig4.BY_SECTION, "5.3", "should")
    with pytest.raises(ScenarioError, match="expected 'should'"):
        templates()


def test_the_reports_fig4_section_lists_every_row():
    entries = [
        {"id": "5.1.2-app-limited-iw3", "section": "5.1.2"},
        {"id": "8.2.2-mild", "section": "8.2.2"},
        {"id": "4.4-packet-size", "section": "4.4"},
    ]
    page = _fig4_html({"scenarios": entries})
    for sec in fig4.BY_SECTION:
        assert f'<td class="l">§{sec}</td>' in page, sec
    assert page.count('<td class="l">should</td>') == 2
    # §5.1's row holds the §5.1.2 scenario; the silent sections are listed with why.
    row51 = page.split("§5.1</td>", 1)[1].split("</tr>", 1)[0]
    assert "5.1.2-app-limited-iw3" in row51
    assert "8.2.2-mild" in page and "no level for each alone" in page
    assert "no level for packet sizes" in page
    assert "none in this report" in page.split("§9.1</td>", 1)[1].split("</tr>", 1)[0]
