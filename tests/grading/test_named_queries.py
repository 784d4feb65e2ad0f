"""Named queries (CONVENTIONS.md, pattern 9): "finalized problems", "submitted papers" and
"submitted marks" are methods of their querysets, and the cells of the sheet, of a juror's
"needs you" and of a submitted paper come from one function (selectors.cell_inputs)."""

from __future__ import annotations

import ast
import random
from decimal import Decimal
from pathlib import Path

import pytest
from django.utils import timezone

from grading import selectors
from grading.consensus import DISCREPANT
from grading.models import Assignment, Mark, ProblemJury
from grading.selectors import comparison_sheet, juror_awaiting, paper_cells, rubric_criteria
from grading.services import criterion_decide
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    PaperFactory,
    ProblemJuryFactory,
    paper_graded,
    rubric_with,
)

D = Decimal
GRADING = Path(selectors.__file__).resolve().parent.parent

# model -> (the keyword spelled inline, the named query to use instead)
NAMED = {
    "Mark": ("assignment__submitted_at__isnull", "Mark.objects.submitted()"),
    "Assignment": ("submitted_at__isnull", "Assignment.objects.submitted()"),
    "ProblemJury": ("finalized_at__isnull", "ProblemJury.objects.finalized()"),
}


def _root(node: ast.AST) -> list[str]:
    """Return the names a call chain starts with: Mark.objects.filter(...) -> [Mark, objects]."""
    names: list[str] = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            names.append(node.id)
            return names[::-1]
        else:
            return []


def _spelled_inline(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        chain = _root(node.func)
        if len(chain) < 2 or chain[1] != "objects" or chain[0] not in NAMED:
            continue
        keyword, named = NAMED[chain[0]]
        for given in node.keywords:
            if (
                given.arg == keyword
                and isinstance(given.value, ast.Constant)
                and given.value.value is False
            ):
                found.append(f"line {node.lineno}: use {named}")
    return found


def test_the_named_queries_are_not_spelled_again():
    paths = [p for p in GRADING.rglob("*.py") if "migrations" not in p.parts]
    found = {}
    for path in paths:
        name = path.relative_to(GRADING).as_posix()
        if name == "models.py":
            continue
        spelled = _spelled_inline(path)
        if spelled:
            found[name] = spelled
    assert not found, found


def test_the_finalized_juries_and_the_submitted_marks(db):
    problem = ProblemJuryFactory().problem
    rubric_with(problem, ("a", 2, "0.5"))
    anna, boris = JurorFactory(), JurorFactory()
    paper = PaperFactory(problem=problem)
    paper_graded(paper, {anna: {"a": 2}})
    paper_graded(paper, {boris: {"a": 1}}, submit=False)
    assert list(Mark.objects.submitted().values_list("assignment__juror", "points")) == [
        (anna.pk, D(2))
    ]
    assert list(Assignment.objects.submitted().values_list("juror", flat=True)) == [anna.pk]
    assert not ProblemJury.objects.finalized().exists()
    ProblemJury.objects.filter(problem=problem).update(finalized_at=timezone.now())
    assert list(ProblemJury.objects.finalized().values_list("problem", flat=True)) == [problem.pk]
    # On related managers too: a paper's submitted assignments.
    assert paper.assignments.submitted().count() == 1


@pytest.mark.parametrize("seed", range(4))
def test_needs_you_and_the_paper_page_judge_cells_as_the_sheet_does(db, seed):
    """Random marks, drafts, decisions and a tolerance: every juror's "needs you" lists
    exactly the sheet's discrepant cells among the papers they submitted, and the paper page
    shows each of those cells with the sheet's state and marks."""
    rng = random.Random(seed)
    problem = ProblemJuryFactory(tolerance=D(rng.choice(["0", "0.5", "1"]))).problem
    rubric_with(problem, ("a", 2, "0.5"), ("b", 3, "1"), ("c", 1, "0.5"))
    criteria = rubric_criteria(problem)
    jurors = [JurorFactory() for _ in range(4)]
    chair = ChairFactory()
    for _ in range(6):
        paper = PaperFactory(problem=problem)
        for juror in rng.sample(jurors, rng.randint(1, 3)):
            points = {
                c.code: c.step * rng.randint(0, int(c.maximum / c.step))
                for c in criteria
                if rng.random() < 0.9
            }
            # Only a paper with every criterion marked can be submitted; the rest stay drafts.
            submit = len(points) == len(criteria) and rng.random() < 0.8
            paper_graded(paper, {juror: points}, submit=submit)
        submitted = Mark.objects.submitted().filter(assignment__paper=paper)
        if rng.random() < 0.3 and submitted.exists():
            criterion = submitted.first().criterion
            criterion_decide(paper=paper, criterion=criterion, points="0", reason="r", chair=chair)
    _, rows = comparison_sheet(problem)
    sheet = {(row.paper.code, cell.criterion.code): cell for row in rows for cell in row.cells}
    for juror in jurors:
        mine = set(
            Assignment.objects.submitted().filter(juror=juror).values_list("paper__code", flat=True)
        )
        expected = sorted(
            (code, criterion)
            for (code, criterion), cell in sheet.items()
            if code in mine and cell.state.status == DISCREPANT
        )
        needs = sorted(
            (a.paper_code, a.criterion.code) for a in juror_awaiting(juror) if a.discrepant
        )
        assert needs == expected, juror
    for row in rows:
        cells = paper_cells(row.paper, criteria)
        for cell in row.cells:
            shown = cells[cell.criterion.pk]
            assert shown.state == cell.state
            assert list(shown.marks.values()) == list(cell.marks.values())
