"""Named queries (CONVENTIONS.md, pattern 9): "current rubric", "finalized problems",
"submitted" and "open" papers and "submitted marks" are methods of their querysets (and,
through relations, conditions on their models), spelled nowhere else in grading/; the
cells of the sheet, of a juror's "needs you" and of a submitted paper come from one
function (selectors.cell_inputs)."""

from __future__ import annotations

import ast
import random
import re
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

# What an inline spelling of a named query looks like, and what to use instead.
SUBMITTED = (
    "Assignment.objects.submitted()/.open(), Mark.objects.submitted()"
    " or Assignment.submitted_q()/.open_q()"
)
FINALIZED = "ProblemJury.objects.finalized() or ProblemJury.finalized_q()"
CURRENT = "Rubric.objects.current(), Criterion.objects.current() or Rubric.current_q()"
LOOKUPS = {"submitted_at__isnull": SUBMITTED, "finalized_at__isnull": FINALIZED}
# Reads that take a lookup: submitted_at=None in them is "open" spelled again.
READS = {"filter", "exclude", "get", "Q", "When"}
# Calls that rank a rubric's versions: with "version" they pick the current one again.
RANKS = {"order_by", "latest", "earliest", "Max", "Min", "Greatest"}
RANKING_LOOKUPS = [["version", r] for r in ("gt", "gte", "lt", "lte")]
SQL_WORDS = re.compile(r"\b(SELECT|JOIN|WHERE)\b")
SQL_NAMES = re.compile(r"submitted_at|finalized_at|\bversion\b", re.IGNORECASE)


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _field(lookup: str) -> str:
    """Return the field a lookup names: "-rubric__version" -> "version"."""
    return lookup.lstrip("-").split("__")[-1]


def _docstrings(tree: ast.AST) -> set[int]:
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def _spellings(source: str) -> list[str]:
    """Return where the source spells a named query inline, and what to use instead."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node)
            for given in node.keywords:
                arg = given.arg or ""
                for lookup, named in LOOKUPS.items():
                    if arg == lookup or arg.endswith("__" + lookup):
                        found.append(f"line {node.lineno}: {arg}: use {named}")
                if (
                    name in READS
                    and _field(arg) in ("submitted_at", "finalized_at")
                    and isinstance(given.value, ast.Constant)
                    and given.value.value is None
                ):
                    found.append(f"line {node.lineno}: {arg}=None: use {SUBMITTED}")
                if arg.split("__")[-2:] in RANKING_LOOKUPS:
                    found.append(f"line {node.lineno}: {arg}: use {CURRENT}")
            if name in RANKS:
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        if _field(arg.value) == "version":
                            found.append(
                                f"line {node.lineno}: {name}({arg.value!r}): use {CURRENT}"
                            )
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
        ):
            text = node.value
            for lookup, named in LOOKUPS.items():
                if lookup in text:
                    found.append(f"line {node.lineno}: {lookup!r}: use {named}")
            if SQL_WORDS.search(text) and SQL_NAMES.search(text):
                found.append(
                    f"line {node.lineno}: SQL that reads submissions, finalizations or rubric"
                    " versions: build it from the named queries (as services/drafts.py does)"
                )
    return found


def test_the_named_queries_are_not_spelled_again():
    """Outside grading/models.py (and migrations), no module of grading/ spells "submitted",
    "open", "finalized" or "current rubric" again: as a lookup, a ranking of versions or SQL."""
    paths = [p for p in GRADING.rglob("*.py") if "migrations" not in p.parts]
    found = {}
    for path in paths:
        name = path.relative_to(GRADING).as_posix()
        if name == "models.py":
            continue
        spelled = _spellings(path.read_text(encoding="utf-8"))
        if spelled:
            found[name] = spelled
    assert not found, found


# The inline spellings grading/ had before the named queries, and the forms that are fine.
SPELLED = [
    "Assignment.objects.filter(juror=user, submitted_at__isnull=True).exists()",
    "Mark.history.filter(assignment__paper=paper, assignment__submitted_at__isnull=False)",
    "papers.filter(Q(submitted_at__isnull=False) | Q(marks__isnull=False))",
    'Count("assignments", filter=Q(assignments__submitted_at__isnull=False))',
    'Count("pk", filter=Q(submitted_at__isnull=False))',
    "paper.assignments.filter(submitted_at=None).count()",
    "ProblemJury.objects.exclude(finalized_at__isnull=True)",
    "Problem.objects.filter(jury__finalized_at__isnull=False)",
    'Q(**{"submitted_at__isnull": False})',
    'Rubric.objects.filter(problem=problem).order_by("-version").first()',
    'Rubric.objects.filter(problem__in=problems).order_by("problem_id", "version")',
    'Criterion.objects.filter(rubric__problem=p).latest("rubric__version")',
    'Rubric.objects.values("problem").annotate(latest=Max("version"))',
    'Rubric.objects.filter(problem=OuterRef("problem"), version__gt=OuterRef("version"))',
    '_READ = """SELECT MAX(v.version) FROM rubric v WHERE v.problem_id = %s"""',
    'sql = "SELECT a.id FROM assignment a WHERE a.submitted_at IS NULL"',
    'sql = "SELECT j.finalized_at FROM jury j JOIN paper p ON p.problem_id = j.problem_id"',
]
FINE = [
    "Assignment.objects.of(user).open().filter(paper__problem=problem).exists()",
    'Count("assignments", filter=Assignment.submitted_q("assignments"))',
    "Assignment.objects.submitted().filter(paper__problem=problem).update(submitted_at=None)",
    'ProblemJury.objects.update_or_create(problem=problem, defaults={"finalized_at": now})',
    "Rubric.objects.create(problem=problem, version=old.version + 1)",
    'dict(Rubric.objects.filter(pk__in=ids).values_list("pk", "version"))',
    'def f():\n    """SELECT the rubric version WHERE a docstring says so."""',
]


@pytest.mark.parametrize("source", SPELLED)
def test_the_check_finds_an_inline_spelling(source):
    assert _spellings(source), source


@pytest.mark.parametrize("source", FINE)
def test_the_check_lets_named_queries_and_writes_pass(source):
    assert not _spellings(source), source


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


def test_the_current_rubric_of_one_problem_and_of_many(db, django_assert_num_queries):
    """The current rubric is each problem's latest version, whatever order the versions were
    made in; a problem without a rubric has none; its criteria are the current criteria."""
    from django.db.models import Count

    from grading.models import Criterion, Rubric
    from grading.selectors import current_rubrics, rubric_current
    from puzzles.models import Problem
    from tests.puzzles.factories import ProblemFactory

    many, one, none = ProblemFactory(), ProblemFactory(), ProblemFactory()
    v2 = rubric_with(many, ("a", 2, "1"), ("b", 1, "1"), version=2)
    v3 = rubric_with(many, ("b", 1, "1"), ("a", 2, "1"), ("c", 3, "1"), version=3)
    rubric_with(many, ("a", 2, "1"), version=1)
    only = rubric_with(one, ("x", 1, "0.5"), version=1)
    assert set(Rubric.objects.current()) == {v3, only}
    assert rubric_current(many) == v3 and rubric_current(one) == only
    assert rubric_current(none) is None
    # "current" looks at every version, not only those a filter before it kept.
    assert list(Rubric.objects.filter(version__in=[1, 2]).current()) == [only]
    assert set(Criterion.objects.current()) == set(v3.criteria.all()) | set(only.criteria.all())
    with django_assert_num_queries(1):
        criteria = current_rubrics([many, one, none])
    assert {p: [c.code for c in cs] for p, cs in criteria.items()} == {
        many.pk: ["b", "a", "c"],
        one.pk: ["x"],
    }
    assert current_rubrics([many.pk]) == {many.pk: list(v3.criteria.order_by("order"))}
    # Through a relation: the papers' marks of current criteria, the problems with a rubric.
    old = v2.criteria.get(code="a")
    paper = PaperFactory(problem=many)
    mark = Mark.objects.create(
        assignment=Assignment.objects.create(paper=paper, juror=JurorFactory()),
        criterion=v3.criteria.get(code="a"),
        points=1,
    )
    Mark.objects.create(assignment=mark.assignment, criterion=old, points=1)
    assert list(Mark.objects.filter(Rubric.current_q("criterion__rubric"))) == [mark]
    counted = Problem.objects.annotate(current=Count("rubrics", filter=Rubric.current_q("rubrics")))
    assert {p.pk: p.current for p in counted} == {many.pk: 1, one.pk: 1, none.pk: 0}


def test_a_jurors_open_assignments(db):
    """Open is not submitted; of(juror) is the juror's own (user or id); through relations
    the conditions count and filter the same rows."""
    from django.db.models import Count

    from grading.models import Paper

    anna, boris = JurorFactory(), JurorFactory()
    papers = [PaperFactory() for _ in range(3)]
    done = Assignment.objects.create(paper=papers[0], juror=anna, submitted_at=timezone.now())
    mine = [Assignment.objects.create(paper=p, juror=anna) for p in papers[1:]]
    theirs = Assignment.objects.create(paper=papers[0], juror=boris)
    assert set(Assignment.objects.of(anna).open()) == set(mine)
    assert set(Assignment.objects.open().of(anna.pk)) == set(mine)
    assert set(Assignment.objects.open()) == {*mine, theirs}
    assert list(Assignment.objects.of(anna).submitted()) == [done]
    assert list(Assignment.objects.of(boris).submitted()) == []
    assert papers[0].assignments.open().get() == theirs
    counted = Paper.objects.annotate(
        submitted=Count("assignments", filter=Assignment.submitted_q("assignments")),
        still=Count("assignments", filter=Assignment.open_q("assignments")),
    )
    assert {p.pk: (p.submitted, p.still) for p in counted} == {
        papers[0].pk: (1, 1),
        papers[1].pk: (0, 1),
        papers[2].pk: (0, 1),
    }
    assert set(
        Paper.objects.filter(Assignment.open_q("assignments"), assignments__juror=anna)
    ) == set(papers[1:])


def test_the_finalized_juries_through_a_relation(db):
    from puzzles.models import Problem

    done, open_ = ProblemJuryFactory(finalized_at=timezone.now()), ProblemJuryFactory()
    assert list(Problem.objects.filter(ProblemJury.finalized_q("jury"))) == [done.problem]
    assert list(ProblemJury.objects.exclude(ProblemJury.finalized_q())) == [open_]
