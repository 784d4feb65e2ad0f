"""Who may read or act on what in the jury: the one place that refuses (403) or hides (404).

Views ask here first (`access.<thing>(request.user, ...)`), get back the object the user
may touch, and hand it to a selector that never refuses. The rule, path by path:

- A juror's paper (its grading page, marks, submit, observations; grading by criterion;
  distinct answers and proposals of its problem): its jurors alone.
- A paper's PDF: its jurors, and organizers (it holds the answers and an empty marking
  table, no juror's marks). A problem's packet: a juror with a paper of it.
- A paper's full text (paper.txt): its jurors, submitted or not, and whoever reads its
  threads.
- A criterion's thread: the paper's jurors once they submitted it; chairs and organizers
  under the chair's rule below. Commenting takes being its juror or the chair; revising,
  being its juror; deciding, the chair's rule to act.
- The chair's rule (a problem's sheet, overview, next discrepancy, decisions from the
  sheet or a thread, tolerance, finalize, reopen; `chair_refusal`): reading takes the chair
  or organizer role, acting the chair role; neither while the user still grades a paper of
  the problem, since the sheet shows every juror's marks. Services that act as the chair
  (grading.services.consensus) check the same rule again under their lock.
- The result review: chairs and organizers (the views' role check), and not while the user
  still grades a paper of the competition, since it names the system behind papers.

404 or 403: a paper code is a blind juror's only handle on a paper, so whatever would tell
a user that a code is a paper, or someone else's, is a 404 ("no such paper of yours"), as
for a code that does not exist. Problems and competitions are no secret: refusing one the
user knows of, for a role they lack or for papers they must submit first, is a 403 whose
text says why and, where it can, what opens it. The 403 and 404 texts here are the only
ones the jury's views give (tests/grading/test_blindness.py walks them as a blind juror).

Functions named `*_refusal` return a reason ("" to let through) and never raise: services
and pages that show the rule (the thread's "the chair's part waits") ask them. Every other
function here raises Http404 or PermissionDenied; selectors and services never call them
(tests/grading/test_access.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from django.core.exceptions import PermissionDenied
from django.db.models import Exists
from django.http import Http404
from django.shortcuts import get_object_or_404

from ioleval.roles import CHAIR, ORGANIZER, has_role
from puzzles.models import Competition, Problem, Task
from puzzles.selectors import competition_get

from .models import Assignment, Criterion, Paper
from .selectors.blind import papers_still_graded, review_closed_text
from .selectors.rubrics import rubric_criteria

NOT_YOURS = "no such paper of yours"  # the 404 of a paper code, whoever asks


# --- the chair's rule ----------------------------------------------------------------------


def chair_refusal(user, problem: Problem, *, act: bool) -> str:
    """Return why the user may not read (act=False) or act on (act=True) a problem as its
    chair, or "" if they may.

    Reading takes the chair or organizer role, acting the chair role; neither is open to
    whoever still grades a paper of the problem, since the sheet shows every juror's marks.
    """
    if not has_role(user, *((CHAIR,) if act else (CHAIR, ORGANIZER))):
        return "only the chair acts on a problem" if act else "only the chair and organizers"
    if Assignment.objects.of(user).open().filter(paper__problem=problem).exists():
        return (
            f"you still grade papers of problem {problem.number}: submit them first, then"
            " its sheet, decisions, tolerance and finalizing open to you"
        )
    return ""


def chair_access(user, problem: Problem, *, act: bool) -> None:
    """Refuse (403, with chair_refusal's reason) what chair_refusal does not allow."""
    reason = chair_refusal(user, problem, act=act)
    if reason:
        raise PermissionDenied(reason)


def problem_get(slug: str, number: int) -> Problem:
    """Return the competition's problem of this number, or 404 (problems are no secret)."""
    return get_object_or_404(
        Problem.objects.select_related("competition"), competition__slug=slug, number=number
    )


def chair_problem(user, slug: str, number: int, *, act: bool) -> Problem:
    """Return the problem if the user may read (act=False) or act on (act=True) it as its
    chair; 404 for no such problem, 403 with chair_refusal's reason."""
    found = problem_get(slug, number)
    chair_access(user, found, act=act)
    return found


@dataclass(frozen=True)
class ChairCell:
    """A cell of a problem's sheet (a paper and a criterion of its current rubric) that the
    user may decide as its chair."""

    problem: Problem
    paper: Paper
    criterion_id: int


def chair_cell(user, slug: str, number: int, code: str, criterion_id: int) -> ChairCell:
    """Return a cell of the sheet for the chair to decide: 403 unless the user may act on
    the problem as its chair, then 404 for a paper not of the problem or a criterion not of
    its current rubric (one query for both)."""
    found = chair_problem(user, slug, number, act=True)
    of_rubric = Criterion.objects.current().filter(pk=criterion_id, rubric__problem=found)
    paper = get_object_or_404(
        Paper.objects.select_related("problem__competition").annotate(in_rubric=Exists(of_rubric)),
        code=code,
        problem=found,
    )
    if not paper.in_rubric:
        raise Http404("no such criterion of this problem's rubric")
    return ChairCell(found, paper, criterion_id)


# --- a juror's papers, their PDFs and texts -------------------------------------------------


def paper_hidden() -> Http404:
    """Return the 404 of a paper code that is not the user's (raise it)."""
    return Http404(NOT_YOURS)


def juror_assignment(user, code: str) -> Assignment:
    """Return the user's own assignment of the paper with this code, or 404."""
    return get_object_or_404(
        Assignment.objects.of(user).select_related("paper__problem__competition"),
        paper__code=code,
    )


def pdf_paper(user, code: str) -> Paper:
    """Return the paper with this code if the user may have its PDF (its jurors, and
    organizers any paper's), or 404."""
    own = Assignment.objects.of(user).filter(paper__code=code)
    if has_role(user, ORGANIZER) or own.exists():
        return get_object_or_404(Paper.objects.select_related("problem__competition"), code=code)
    raise paper_hidden()


def packet_problem(user, problem_id: int) -> Problem:
    """Return the problem if the user has a paper of it (their packet), 404 for no such
    problem, else 403."""
    found = get_object_or_404(Problem, pk=problem_id)
    if not Assignment.objects.of(user).filter(paper__problem=found).exists():
        raise PermissionDenied
    return found


def text_paper(user, code: str) -> Paper:
    """Return the paper with this code if the user may download its full text: its jurors,
    and whoever reads its threads (chairs and organizers under the chair's rule); else 404,
    or 403 with the chair's rule's reason."""
    paper = get_object_or_404(Paper.objects.select_related("problem"), code=code)
    if not Assignment.objects.of(user).filter(paper=paper).exists():
        _reader_of_threads(user, paper)
    return paper


def _reader_of_threads(user, paper: Paper) -> None:
    """Refuse the threads of a paper to a user who is not its juror: 404 unless a chair or
    organizer, then the chair's rule to read."""
    if not has_role(user, CHAIR, ORGANIZER):
        raise paper_hidden()
    chair_access(user, paper.problem, act=False)


# --- a criterion's thread -------------------------------------------------------------------

THREAD_ACTIONS = ("comment", "revise", "decide")


@dataclass(frozen=True)
class Thread:
    """A criterion's discussion of one paper that the user may read."""

    user: object
    paper: Paper
    criterion: Criterion
    own: Assignment | None  # the user's own (submitted) assignment; None for chair, organizer

    @cached_property
    def chair_waits(self) -> str:
        """Why the user, a chair, may not act here yet ("" if they may, or hold no chair
        role): a chair who grades another paper of the problem reads it as a juror."""
        if not has_role(self.user, CHAIR):
            return ""
        return chair_refusal(self.user, self.paper.problem, act=True)

    @property
    def is_chair(self) -> bool:
        """The user may act here as the chair (decide, see the marks' history)."""
        return has_role(self.user, CHAIR) and not self.chair_waits


def thread(user, code: str, criterion_id: int, *, action: str = "") -> Thread:
    """Return a criterion's thread of a paper for the user to read, or to post `action`
    (comment, revise, decide) to.

    404 for no such paper or criterion of its problem, or a paper the user neither grades
    nor reaches as chair or organizer; 403 for their own paper not submitted yet, the
    chair's rule, or an action their part does not allow (organizers read threads only:
    they know the systems).
    """
    paper = get_object_or_404(Paper.objects.select_related("problem__competition"), code=code)
    criterion = get_object_or_404(Criterion, pk=criterion_id, rubric__problem=paper.problem)
    own = Assignment.objects.of(user).filter(paper=paper).first()
    if own is None:
        _reader_of_threads(user, paper)
    elif not own.is_submitted:
        raise PermissionDenied("submit your own marks of this paper first")
    found = Thread(user, paper, criterion, own)
    if not action:
        return found
    if action == "decide":
        chair_access(user, paper.problem, act=True)  # the sheet's rule, one place
    allowed = {
        "comment": own is not None or has_role(user, CHAIR),
        "revise": own is not None,
        "decide": True,
    }
    if not allowed.get(action):
        raise PermissionDenied
    return found


# --- grading by criterion, distinct answers, proposals --------------------------------------


@dataclass(frozen=True)
class CriterionPapers:
    """One criterion of a problem's current rubric and the user's papers of the problem."""

    problem: Problem
    criteria: list[Criterion]  # the current rubric's, in order
    criterion: Criterion
    assignments: list[Assignment]  # the user's, by paper code
    position: int | None  # index of the paper asked for by code (None: none asked)


def criterion_papers(user, problem_id: int, criterion_id: int, code: str = "") -> CriterionPapers:
    """Return one criterion of a problem across the user's papers of it, or 404: no such
    problem, a criterion not of its current rubric, no paper of it the user's, or a `code`
    that is not one of them."""
    found = get_object_or_404(Problem.objects.select_related("competition"), pk=problem_id)
    criteria = rubric_criteria(found)
    criterion = next((c for c in criteria if c.pk == criterion_id), None)
    if criterion is None:
        raise Http404("no such criterion of this problem")
    assignments = list(
        Assignment.objects.of(user)
        .filter(paper__problem=found)
        .select_related("paper")
        .order_by("paper__code")
    )
    if not assignments:
        raise Http404("no paper of this problem is yours")
    position = None
    if code:
        position = next((i for i, a in enumerate(assignments) if a.paper.code == code), None)
        if position is None:
            raise paper_hidden()
    return CriterionPapers(found, criteria, criterion, assignments, position)


@dataclass(frozen=True)
class DistinctItem:
    """An item of a task that the user grades papers of, for its distinct answers."""

    problem_id: int
    own: list[tuple[str, int]]  # (paper code, system id) of the user's papers of the problem
    tasks: list[Task]  # the problem's tasks with items, in order
    task: Task
    item_number: int


def distinct_item(
    user, problem_id: int, task_number: int | None = None, item_number: int | None = None
) -> DistinctItem:
    """Return an item of the problem (without task and item: the first item of the first
    task) for a user with papers of the problem, or 404: no paper of theirs, no such item."""
    own = list(
        Assignment.objects.of(user)
        .filter(paper__problem_id=problem_id)
        .values_list("paper__code", "paper__system_id")
    )
    if not own:
        raise Http404("no paper of yours in this problem")
    tasks = [
        t
        for t in Task.objects.filter(problem_id=problem_id)
        .select_related("problem__competition")
        .order_by("number")
        if t.n_items
    ]
    if task_number is None:
        task, item_number = (tasks[0], 1) if tasks else (None, 0)
    else:
        task = next((t for t in tasks if t.number == task_number), None)
    if task is None or not 1 <= (item_number or 0) <= task.n_items:
        raise Http404("no such item in this problem")
    return DistinctItem(problem_id, own, tasks, task, item_number)


def proposal_task(user, problem_id: int, task_number: int, item_number: int) -> Task:
    """Return the task of an item the user may propose an alternative for, or 404: they
    have a paper of the problem, and the task has that item."""
    if not Assignment.objects.of(user).filter(paper__problem_id=problem_id).exists():
        raise Http404("no paper of yours in this problem")
    task = Task.objects.filter(problem_id=problem_id, number=task_number).first()
    if task is None or not 1 <= item_number <= task.n_items:
        raise Http404("no such item in this problem")
    return task


# --- the result review ----------------------------------------------------------------------


def review_competition(user, slug: str) -> Competition:
    """Return the competition for its result review, 404 for none, 403 while the user still
    grades a paper of it (the review would tell them whose it is): the refusal says why,
    and when the review opens."""
    competition = competition_get(slug)
    codes = papers_still_graded(user, competition).get(competition.pk)
    if codes:
        raise PermissionDenied(review_closed_text(codes))
    return competition
