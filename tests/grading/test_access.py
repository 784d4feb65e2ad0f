"""grading.access: the one place that refuses (403) or hides (404) the jury's reads.

First the layout (nothing below the views refuses on its own), then each access function
for the users it must tell apart: a juror of the paper (submitted or not), a juror of
another paper, a chair who grades nothing or still grades a paper of the problem, an
organizer, and an outsider in no role at all.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils import timezone

from grading import access
from grading.models import Assignment
from puzzles.models import Competition, Problem
from tests.grading.factories import (
    AssignmentFactory,
    ChairFactory,
    JurorFactory,
    OrganizerFactory,
    PaperFactory,
    UserFactory,
    rubric_with,
)
from tests.puzzles.factories import ProblemFactory, TaskFactory

ROOT = Path(__file__).resolve().parents[2]
GRADING = ROOT / "grading"
REFUSALS = {"Http404", "PermissionDenied"}
LOOKUPS = {"get_object_or_404", "get_list_or_404", "competition_get"}  # each a hidden 404


# --- the layout: selectors, services and the rest never refuse ------------------------------


def _is_view(path: Path) -> bool:
    relative = path.relative_to(GRADING).parts
    return relative[0] == "views" or relative == ("review", "views.py")


def _is_access(path: Path) -> bool:
    return path.relative_to(GRADING).parts[0] in ("access.py", "access")


def _name(node: ast.AST) -> str:
    """The last name of a Name or attribute chain (`http.Http404` -> 'Http404')."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def refusals(source: str) -> list[str]:
    """Return what in this source refuses a request by itself: a raised or imported Http404
    or PermissionDenied, a lookup that 404s, and any name taken from grading.access but a
    `*_refusal` (those return a reason and never raise)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None and _name(node.exc) in REFUSALS:
            found.append(f"line {node.lineno}: raise {_name(node.exc)}")
        elif isinstance(node, ast.Call) and _name(node) in LOOKUPS:
            found.append(f"line {node.lineno}: {_name(node)}()")
        elif isinstance(node, ast.ImportFrom):
            names = {a.name for a in node.names}
            if names & (REFUSALS | LOOKUPS):
                found.append(f"line {node.lineno}: imports {sorted(names & (REFUSALS | LOOKUPS))}")
            module = node.module or ""
            if (
                module == "access"
                or module.endswith(".access")
                or module.startswith("grading.access")
            ):
                raising = sorted(n for n in names if not n.endswith("_refusal"))
                if raising:
                    found.append(f"line {node.lineno}: from access imports {raising}")
            elif "access" in names:
                found.append(f"line {node.lineno}: imports the access module")
    return found


def test_the_check_finds_every_way_of_refusing():
    assert refusals("from django.http import Http404\nraise Http404('x')\n") == [
        "line 1: imports ['Http404']",
        "line 2: raise Http404",
    ]
    assert refusals("raise exceptions.PermissionDenied\n") == ["line 1: raise PermissionDenied"]
    assert refusals("x = shortcuts.get_object_or_404(Paper, pk=1)\n") == [
        "line 1: get_object_or_404()"
    ]
    assert refusals("from ..access import thread\n") == ["line 1: from access imports ['thread']"]
    assert refusals("from .. import access\n") == ["line 1: imports the access module"]
    assert refusals("from ..access import chair_refusal\nraise GradingError('no')\n") == []


def test_only_access_and_the_views_refuse():
    """Selectors, services, the review's reads, the PDFs and the rest never raise 403/404
    nor look up with a 404: they are handed what grading.access let through."""
    checked, found = 0, {}
    for path in sorted(GRADING.rglob("*.py")):
        if _is_view(path) or _is_access(path):
            continue
        checked += 1
        if hits := refusals(path.read_text(encoding="utf-8")):
            found[str(path.relative_to(ROOT))] = hits
    assert checked > 50
    assert found == {}


def test_the_views_refuse_only_through_access():
    """A view asks grading.access; it neither looks an object up with a 404 nor raises 403
    itself. (It may raise 404 for what is no one's to see: an unknown export format, chart
    or batch.)"""
    views = [p for p in GRADING.rglob("*.py") if _is_view(p)]
    assert len(views) > 5
    found = {}
    for path in views:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        hits = [
            f"line {node.lineno}"
            for node in ast.walk(tree)
            if (
                isinstance(node, ast.Call)
                and _name(node) in {"get_object_or_404", "get_list_or_404"}
            )
            or (
                isinstance(node, ast.Raise)
                and node.exc is not None
                and _name(node.exc) == "PermissionDenied"
            )
        ]
        if hits:
            found[str(path.relative_to(ROOT))] = hits
    assert found == {}


# --- one problem, its papers and the people around it ---------------------------------------


@dataclass
class Jury:
    problem: Problem
    other_problem: Problem
    paper: object  # P: anna submitted it, ben has it in draft
    second: object  # Q: cleo's, and busy's in draft
    anna: object
    ben: object
    cleo: object
    chair: object  # grades nothing
    busy: object  # a chair who still grades Q
    organizer: object
    outsider: object  # in no role, no paper
    criterion: object  # of the current rubric
    old_criterion: object  # of the rubric's first version


@pytest.fixture
def jury(db) -> Jury:
    problem = ProblemFactory()
    old = rubric_with(problem, ("a", 2, "0.5"), version=1).criteria.get()
    criterion = rubric_with(problem, ("a", 2, "0.5"), ("b", 2, "0.5"), version=2).criteria.get(
        code="a"
    )
    TaskFactory(problem=problem, number=1, answer_key=[["one"], ["two"]])
    paper, second = PaperFactory(problem=problem), PaperFactory(problem=problem)
    anna, ben, cleo = JurorFactory(), JurorFactory(), JurorFactory()
    busy = ChairFactory()
    AssignmentFactory(paper=paper, juror=anna, submitted_at=timezone.now())
    AssignmentFactory(paper=paper, juror=ben)
    AssignmentFactory(paper=second, juror=cleo, submitted_at=timezone.now())
    AssignmentFactory(paper=second, juror=busy)
    return Jury(
        problem=problem,
        other_problem=ProblemFactory(competition=problem.competition),
        paper=paper,
        second=second,
        anna=anna,
        ben=ben,
        cleo=cleo,
        chair=ChairFactory(),
        busy=busy,
        organizer=OrganizerFactory(),
        outsider=UserFactory(),
        criterion=criterion,
        old_criterion=old,
    )


def _slug(jury: Jury) -> tuple[str, int]:
    return jury.problem.competition.slug, jury.problem.number


STILL_GRADING = "you still grade papers of problem"


# --- the chair's rule -----------------------------------------------------------------------


def test_the_chair_reads_and_acts_on_a_problem_once_he_grades_none_of_its_papers(jury):
    for act in (False, True):
        assert access.chair_problem(jury.chair, *_slug(jury), act=act) == jury.problem
        assert access.chair_refusal(jury.chair, jury.problem, act=act) == ""
        with pytest.raises(PermissionDenied, match=STILL_GRADING):
            access.chair_problem(jury.busy, *_slug(jury), act=act)


def test_an_organizer_reads_a_problem_as_its_chair_but_does_not_act(jury):
    assert access.chair_problem(jury.organizer, *_slug(jury), act=False) == jury.problem
    with pytest.raises(PermissionDenied, match="^only the chair acts on a problem$"):
        access.chair_problem(jury.organizer, *_slug(jury), act=True)


@pytest.mark.parametrize("who", ["anna", "outsider"])
def test_a_juror_or_an_outsider_gets_no_chairs_page(jury, who):
    user = getattr(jury, who)
    with pytest.raises(PermissionDenied, match="^only the chair and organizers$"):
        access.chair_problem(user, *_slug(jury), act=False)
    with pytest.raises(PermissionDenied, match="^only the chair acts on a problem$"):
        access.chair_problem(user, *_slug(jury), act=True)


def test_a_problem_that_does_not_exist_is_a_404_before_any_rule(jury):
    with pytest.raises(Http404):
        access.chair_problem(jury.outsider, jury.problem.competition.slug, 99, act=True)
    with pytest.raises(Http404):
        access.problem_get("no-such-competition", 1)


def test_a_cell_of_the_sheet_is_a_paper_of_the_problem_and_a_criterion_of_its_rubric(jury):
    cell = access.chair_cell(jury.chair, *_slug(jury), jury.paper.code, jury.criterion.pk)
    assert (cell.problem, cell.paper, cell.criterion_id) == (
        jury.problem,
        jury.paper,
        jury.criterion.pk,
    )
    with pytest.raises(Http404, match="no such criterion of this problem's rubric"):
        access.chair_cell(jury.chair, *_slug(jury), jury.paper.code, jury.old_criterion.pk)
    elsewhere = PaperFactory(problem=jury.other_problem)
    with pytest.raises(Http404):
        access.chair_cell(jury.chair, *_slug(jury), elsewhere.code, jury.criterion.pk)
    with pytest.raises(PermissionDenied, match="^only the chair acts on a problem$"):
        access.chair_cell(jury.organizer, *_slug(jury), jury.paper.code, jury.criterion.pk)
    with pytest.raises(PermissionDenied, match=STILL_GRADING):  # the rule before the paper
        access.chair_cell(jury.busy, *_slug(jury), "P9-NONE", jury.criterion.pk)


# --- a juror's papers, their PDFs, packets and texts ----------------------------------------


def test_a_jurors_paper_is_his_own_and_anyone_elses_is_a_404(jury):
    assert access.juror_assignment(jury.ben, jury.paper.code).juror == jury.ben
    for user in (jury.cleo, jury.chair, jury.organizer, jury.outsider):
        with pytest.raises(Http404):
            access.juror_assignment(user, jury.paper.code)
    with pytest.raises(Http404):
        access.juror_assignment(jury.ben, "P1-NONE")
    assert str(access.paper_hidden()) == access.NOT_YOURS == "no such paper of yours"


def test_a_papers_pdf_is_for_its_jurors_and_organizers(jury):
    assert access.pdf_paper(jury.ben, jury.paper.code) == jury.paper
    assert access.pdf_paper(jury.organizer, jury.paper.code) == jury.paper
    for user in (jury.cleo, jury.chair, jury.outsider):
        with pytest.raises(Http404, match=access.NOT_YOURS):
            access.pdf_paper(user, jury.paper.code)
    with pytest.raises(Http404):
        access.pdf_paper(jury.organizer, "P1-NONE")


def test_a_problems_packet_is_for_a_juror_with_papers_of_it(jury):
    assert access.packet_problem(jury.ben, jury.problem.pk) == jury.problem
    for user in (jury.chair, jury.organizer, jury.outsider):
        with pytest.raises(PermissionDenied):
            access.packet_problem(user, jury.problem.pk)
    with pytest.raises(PermissionDenied):
        access.packet_problem(jury.ben, jury.other_problem.pk)
    with pytest.raises(Http404):
        access.packet_problem(jury.ben, 999_999)


def test_a_papers_text_is_for_its_jurors_and_whoever_reads_its_threads(jury):
    for user in (jury.anna, jury.ben, jury.chair, jury.organizer):  # ben has not submitted
        assert access.text_paper(user, jury.paper.code) == jury.paper
    with pytest.raises(PermissionDenied, match=STILL_GRADING):
        access.text_paper(jury.busy, jury.paper.code)
    for user in (jury.cleo, jury.outsider):
        with pytest.raises(Http404, match=access.NOT_YOURS):
            access.text_paper(user, jury.paper.code)


# --- a criterion's thread -------------------------------------------------------------------


def test_a_thread_is_read_by_its_submitted_jurors_and_the_chairs(jury):
    code, criterion = jury.paper.code, jury.criterion.pk
    mine = access.thread(jury.anna, code, criterion)
    assert (mine.own.juror, mine.is_chair, mine.chair_waits) == (jury.anna, False, "")
    chair = access.thread(jury.chair, code, criterion)
    assert (chair.own, chair.is_chair, chair.chair_waits) == (None, True, "")
    organizer = access.thread(jury.organizer, code, criterion)
    assert (organizer.own, organizer.is_chair) == (None, False)
    # A thread of a criterion of an older rubric version is still the paper's.
    assert access.thread(jury.anna, code, jury.old_criterion.pk).criterion == jury.old_criterion


def test_a_thread_is_refused_to_a_draft_a_busy_chair_and_hidden_from_others(jury):
    code, criterion = jury.paper.code, jury.criterion.pk
    with pytest.raises(PermissionDenied, match="^submit your own marks of this paper first$"):
        access.thread(jury.ben, code, criterion)
    with pytest.raises(PermissionDenied, match=STILL_GRADING):
        access.thread(jury.busy, code, criterion)
    for user in (jury.cleo, jury.outsider):
        with pytest.raises(Http404, match=access.NOT_YOURS):
            access.thread(user, code, criterion)
    elsewhere = rubric_with(jury.other_problem, ("z", 1, 1)).criteria.get()
    with pytest.raises(Http404):
        access.thread(jury.anna, code, elsewhere.pk)


def test_a_chair_who_grades_the_paper_reads_its_thread_as_a_juror_till_he_is_done(jury):
    """Busy submitted the paper but still grades another of the problem: he reads the
    thread as its juror, and the chair's part waits, with the reason."""
    AssignmentFactory(paper=jury.paper, juror=jury.busy, submitted_at=timezone.now())
    found = access.thread(jury.busy, jury.paper.code, jury.criterion.pk)
    assert found.own is not None and not found.is_chair
    assert found.chair_waits.startswith(STILL_GRADING)
    with pytest.raises(PermissionDenied, match=STILL_GRADING):
        access.thread(jury.busy, jury.paper.code, jury.criterion.pk, action="decide")
    assert access.thread(jury.busy, jury.paper.code, jury.criterion.pk, action="revise")


@pytest.mark.parametrize(
    ("who", "action", "refusal"),
    [
        ("anna", "comment", None),
        ("anna", "revise", None),
        ("anna", "decide", "^only the chair acts on a problem$"),
        ("chair", "comment", None),
        ("chair", "revise", ""),
        ("chair", "decide", None),
        ("organizer", "comment", ""),
        ("organizer", "revise", ""),
        ("organizer", "decide", "^only the chair acts on a problem$"),
        ("chair", "bogus", ""),
    ],
)
def test_what_each_may_post_to_a_thread(jury, who, action, refusal):
    """Commenting takes being the paper's juror or the chair, revising being its juror,
    deciding the chair's rule; organizers read only (a bare 403)."""
    user = getattr(jury, who)
    if refusal is None:
        found = access.thread(user, jury.paper.code, jury.criterion.pk, action=action)
        assert found.paper == jury.paper
        return
    with pytest.raises(PermissionDenied, match=refusal or None) as refused:
        access.thread(user, jury.paper.code, jury.criterion.pk, action=action)
    if not refusal:  # a bare 403: the part the user plays here does not post this
        assert refused.value.args == ()


# --- grading by criterion, distinct answers, proposals --------------------------------------


def test_one_criterion_across_the_jurors_papers(jury):
    AssignmentFactory(paper=jury.second, juror=jury.ben)
    asked = access.criterion_papers(jury.ben, jury.problem.pk, jury.criterion.pk)
    assert [a.paper for a in asked.assignments] == sorted(
        [jury.paper, jury.second], key=lambda p: p.code
    )
    assert (asked.criterion, asked.position) == (jury.criterion, None)
    assert [c.code for c in asked.criteria] == ["a", "b"]
    chosen = access.criterion_papers(jury.ben, jury.problem.pk, jury.criterion.pk, jury.second.code)
    assert chosen.assignments[chosen.position].paper == jury.second


def test_one_criterion_is_hidden_from_who_has_no_paper_or_asks_for_anothers(jury):
    problem, criterion = jury.problem.pk, jury.criterion.pk
    with pytest.raises(Http404, match=access.NOT_YOURS):
        access.criterion_papers(jury.ben, problem, criterion, jury.second.code)
    for user in (jury.chair, jury.organizer, jury.outsider):
        with pytest.raises(Http404, match="no paper of this problem is yours"):
            access.criterion_papers(user, problem, criterion)
    with pytest.raises(Http404, match="no such criterion of this problem"):
        access.criterion_papers(jury.ben, problem, jury.old_criterion.pk)
    with pytest.raises(Http404):
        access.criterion_papers(jury.ben, 999_999, criterion)


def test_distinct_answers_are_of_an_item_the_juror_has_papers_of(jury):
    first = access.distinct_item(jury.ben, jury.problem.pk)
    assert (first.task.number, first.item_number, first.own) == (
        1,
        1,
        [(jury.paper.code, jury.paper.system_id)],
    )
    assert access.distinct_item(jury.ben, jury.problem.pk, 1, 2).item_number == 2
    with pytest.raises(Http404, match="no such item in this problem"):
        access.distinct_item(jury.ben, jury.problem.pk, 1, 3)
    with pytest.raises(Http404, match="no such item in this problem"):
        access.distinct_item(jury.ben, jury.problem.pk, 2, 1)
    for user in (jury.chair, jury.organizer, jury.outsider):
        with pytest.raises(Http404, match="no paper of yours in this problem"):
            access.distinct_item(user, jury.problem.pk, 1, 1)


def test_a_proposal_is_for_an_item_of_a_problem_the_juror_grades(jury):
    task = access.proposal_task(jury.anna, jury.problem.pk, 1, 2)
    assert (task.problem, task.number) == (jury.problem, 1)
    with pytest.raises(Http404, match="no such item in this problem"):
        access.proposal_task(jury.anna, jury.problem.pk, 1, 0)
    with pytest.raises(Http404, match="no paper of yours in this problem"):
        access.proposal_task(jury.outsider, jury.problem.pk, 1, 1)


# --- the result review ----------------------------------------------------------------------


def test_the_review_waits_till_the_users_papers_of_the_competition_are_in(jury):
    competition: Competition = jury.problem.competition
    assert access.review_competition(jury.chair, competition.slug) == competition
    assert access.review_competition(jury.organizer, competition.slug) == competition
    with pytest.raises(
        PermissionDenied, match=f"submit your 1 paper still in progress \\({jury.second.code}\\)"
    ):
        access.review_competition(jury.busy, competition.slug)
    Assignment.objects.filter(juror=jury.busy).update(submitted_at=timezone.now())
    assert access.review_competition(jury.busy, competition.slug) == competition
    with pytest.raises(Http404):
        access.review_competition(jury.chair, "no-such-competition")
