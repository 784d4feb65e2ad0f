"""Reads of the jury: a juror's papers, the grading page, the comparison sheet, totals.

Every function here runs a fixed number of queries whatever the number of papers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from urllib.parse import urlencode

from django.core.exceptions import PermissionDenied
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse

from ioleval.roles import CHAIR, ORGANIZER, has_role
from puzzles.jury import ScaleStatus
from puzzles.models import Competition, Output, Problem, System
from puzzles.questions import item_prompts

from .access import chair_access, chair_refusal
from .consensus import AGREED, DECIDED, DISCREPANT, PENDING, CellState, cell_state
from .models import (
    Assignment,
    Criterion,
    DiscussionComment,
    Mark,
    ObservationTag,
    Paper,
    PaperTag,
    ProblemJuror,
    ProblemJury,
    Resolution,
    Rubric,
    ThreadRead,
)
from .scale import MEDALS, JuryScale, scale_moves
from .selectors_blind import NotBlind, not_blind
from .sheet_rules import DEFAULT_SORT, SORTS, absolute_differences, sort_rows
from .text import explanation_html, points_text


def assignment_for(user, code: str) -> Assignment:
    """Return the user's own assignment of the paper with this code, or 404."""
    return get_object_or_404(
        Assignment.objects.select_related("paper__problem__competition"),
        paper__code=code,
        juror=user,
    )


def paper_for_pdf(user, code: str) -> Paper:
    """Return the paper with this code if the user may have its PDF, or 404.

    Its jurors may, and organizers may open any paper's (the PDF holds the answers and an
    empty marking table, no juror's marks)."""
    own = Assignment.objects.filter(paper__code=code, juror=user)
    if has_role(user, ORGANIZER) or own.exists():
        return get_object_or_404(Paper.objects.select_related("problem__competition"), code=code)
    raise Http404("no such paper of yours")


def thread_access(user, paper: Paper) -> Assignment | None:
    """Return the user's own assignment of the paper (None for a chair or organizer).

    A juror reaches the threads of their own papers once they submitted them; a chair or
    organizer reaches a problem's threads once they grade none of its papers any longer,
    the sheet's rule (grading.access). Anyone else gets 404, or 403 while still grading.
    """
    own = Assignment.objects.filter(paper=paper, juror=user).first()
    if own is None:
        if not has_role(user, CHAIR, ORGANIZER):
            raise Http404("no such paper of yours")
        chair_access(user, paper.problem, act=False)
    elif not own.is_submitted:
        raise PermissionDenied("submit your own marks of this paper first")
    return own


def rubric_current(problem: Problem) -> Rubric | None:
    """Return the problem's latest rubric version, or None."""
    return Rubric.objects.filter(problem=problem).order_by("-version").first()


def rubric_criteria(problem: Problem) -> list[Criterion]:
    """Return the criteria of the problem's current rubric, in order."""
    rubric = rubric_current(problem)
    if rubric is None:
        return []
    return list(rubric.criteria.select_related("task").order_by("order"))


def current_rubrics(problems) -> dict[int, list[Criterion]]:
    """Return each problem's current criteria in two queries."""
    latest: dict[int, int] = {}
    for problem_id, rubric_id in (
        Rubric.objects.filter(problem__in=problems)
        .values_list("problem_id", "pk")
        .order_by("problem_id", "version")
    ):
        latest[problem_id] = rubric_id
    criteria: dict[int, list[Criterion]] = defaultdict(list)
    by_rubric = {r: p for p, r in latest.items()}
    for criterion in Criterion.objects.filter(rubric_id__in=by_rubric).order_by("order"):
        criteria[by_rubric[criterion.rubric_id]].append(criterion)
    return criteria


# --- answers held elsewhere -------------------------------------------------------------------

# What a paper of an external system says in place of its answers, to its jurors: never the
# system, only where the answers are.
HELD_ELSEWHERE_NOTE = (
    "The answers of this paper are held elsewhere: the organizers keep them outside this site,"
    " so no answer or explanation is shown here (the paper is not blank). Grade it from the"
    " copy the organizers give you; if it is graded elsewhere, the organizers import its marks."
)


def answers_held_elsewhere(*, external: bool, has_outputs: bool) -> bool:
    """Return whether a paper's answers are held elsewhere: an external system's, no output here.

    An external system was created by an import of automatic figures; once outputs of the
    problem are imported for it, its paper shows them like any other.
    """
    return external and not has_outputs


def external_system_ids(system_ids: Iterable[int]) -> set[int]:
    """Return which of these systems are external (one query)."""
    return set(
        System.objects.filter(pk__in=set(system_ids), external=True).values_list("pk", flat=True)
    )


def papers_held_elsewhere(papers):
    """Keep the papers whose answers are held elsewhere (answers_held_elsewhere's rule as a
    query): an external system's, without an output of the paper's problem here."""
    outputs = Output.objects.filter(
        system=OuterRef("system_id"), task__problem=OuterRef("problem_id")
    )
    return papers.filter(system__external=True).exclude(Exists(outputs))


def paper_held_elsewhere(paper: Paper) -> bool:
    """Return whether the paper's answers are held elsewhere (one query)."""
    return papers_held_elsewhere(Paper.objects.filter(pk=paper.pk)).exists()


@dataclass(frozen=True)
class Recognisable:
    """A selected system whose papers of some problems hold no answers here: their jurors
    see it, so these papers do not look like the others."""

    system: str
    problems: list[int]

    def line(self) -> str:
        """Return the warning as a command prints it."""
        return f"warning: {self.text}"

    @property
    def text(self) -> str:
        numbers = ", ".join(map(str, self.problems))
        plural = "s" if len(self.problems) != 1 else ""
        return (
            f"the papers of {self.system} (problem{plural} {numbers}) will be"
            " recognisable: their answers are held elsewhere, so their jurors read a note in"
            " place of the answers and can tell them from every other paper. Import the"
            " system's outputs (Import outputs, or manage.py import_outputs) and its papers"
            " look like every other paper"
        )


def papers_recognisable(
    competition: Competition, system_names: Iterable[str] | None = None
) -> list[Recognisable]:
    """Return the systems with papers held elsewhere (of these systems, or of all), by name,
    with their problems (one query)."""
    papers = Paper.objects.filter(problem__competition=competition)
    if system_names is not None:
        papers = papers.filter(system__name__in=list(system_names))
    problems: dict[str, list[int]] = defaultdict(list)
    for name, number in (
        papers_held_elsewhere(papers)
        .order_by("system__name", "problem__number")
        .values_list("system__name", "problem__number")
    ):
        problems[name].append(number)
    return [Recognisable(name, numbers) for name, numbers in problems.items()]


@dataclass
class JurorPaper:
    assignment: Assignment
    criteria: int
    marked: int

    @property
    def status(self) -> str:
        if self.assignment.is_submitted:
            return "submitted"
        return "draft" if self.marked else "not started"


def juror_papers(user) -> dict[Problem, list[JurorPaper]]:
    """Return the juror's papers grouped by problem with their progress."""
    assignments = list(
        Assignment.objects.filter(juror=user)
        .select_related("paper__problem__competition")
        .annotate(marked=Count("marks", filter=Q(marks__points__isnull=False)))
        .order_by("paper__problem__competition__slug", "paper__problem__number", "paper__code")
    )
    criteria = current_rubrics({a.paper.problem_id for a in assignments})
    grouped: dict[Problem, list[JurorPaper]] = defaultdict(list)
    for a in assignments:
        grouped[a.paper.problem].append(
            JurorPaper(a, len(criteria.get(a.paper.problem_id, [])), a.marked)
        )
    return dict(grouped)


def chair_sheets(user) -> list[tuple[Problem, bool]]:
    """Return every problem with papers, and whether the user may open its sheet now."""
    problems = list(
        Problem.objects.filter(papers__isnull=False)
        .distinct()
        .select_related("competition")
        .order_by("competition__slug", "number")
    )
    grading = set(
        Assignment.objects.filter(juror=user, submitted_at__isnull=True).values_list(
            "paper__problem_id", flat=True
        )
    )
    return [(p, p.pk not in grading) for p in problems]


@dataclass
class GradingPage:
    assignment: Assignment
    paper: Paper
    problem: Problem
    criteria: list[Criterion]
    marks: dict[int, Mark]
    outputs: list[Output]
    tasks: list
    tags: list
    chosen_tags: set[int]
    others: dict[int, PaperCell] = field(default_factory=dict)  # once submitted
    held_elsewhere: bool = False  # its answers are outside ioleval (HELD_ELSEWHERE_NOTE)
    suggestions: dict[int, Decimal] = field(default_factory=dict)  # criterion id -> points
    next_code: str | None = None  # the juror's next unfinished paper of this problem

    @property
    def first_unmarked(self) -> int | None:
        """Return the id of the first criterion, in the rubric's order, without points."""
        for criterion in self.criteria:
            mark = self.marks.get(criterion.pk)
            if mark is None or mark.points is None:
                return criterion.pk
        return None


@dataclass(frozen=True)
class PaperCell:
    """One criterion of one paper as a juror sees it after submitting: marks and state."""

    marks: dict[str, Decimal | None]  # juror name -> submitted points
    state: CellState

    @property
    def text(self) -> str:
        return " · ".join(f"{name} {points_text(p)}" for name, p in self.marks.items())


def paper_cells(paper: Paper, criteria: list[Criterion]) -> dict[int, PaperCell]:
    """Return per criterion of one paper every submitted mark, by juror name, and the cell's
    state, as the sheet judges it (cell_inputs; four queries)."""
    names = dict(
        Assignment.objects.filter(paper=paper)
        .order_by("juror__username")
        .values_list("juror_id", "juror__username")
    )
    inputs = cell_inputs([paper.pk], [c.pk for c in criteria])
    tolerance = problem_jury(paper.problem).tolerance
    cells = {}
    for criterion in criteria:
        submitted, state = inputs.cell(paper.pk, list(names), criterion, tolerance=tolerance)
        cells[criterion.pk] = PaperCell({names[j]: p for j, p in submitted.items()}, state)
    return cells


def grading_page(assignment: Assignment) -> GradingPage:
    """Return what the grading page shows: problem, key, rubric, the paper, own marks."""
    paper = assignment.paper
    problem = paper.problem
    criteria = rubric_criteria(problem)
    marks = {m.criterion_id: m for m in Mark.objects.filter(assignment=assignment)}
    tasks = list(problem.tasks.order_by("number"))
    outputs = {
        o.task_id: o
        for o in Output.objects.filter(system_id=paper.system_id, task__problem=problem).only(
            "task_id", "source", "parsed_items", "extracted_items", "explanation", "scores"
        )
    }
    shown = [outputs.get(t.pk) for t in tasks]
    tags = list(ObservationTag.objects.filter(competition_id=problem.competition_id))
    chosen = set(PaperTag.objects.filter(assignment=assignment).values_list("tag_id", flat=True))
    has_outputs = any(o is not None for o in shown)
    # Only a paper without outputs may be held elsewhere: ask about its system then alone.
    external = not has_outputs and paper.system_id in external_system_ids([paper.system_id])
    held_elsewhere = answers_held_elsewhere(external=external, has_outputs=has_outputs)
    from .selectors_criterion import page_suggestions  # it builds on this module

    answers = paper_answers(paper, tasks, shown)
    for row, output in zip(answers, shown, strict=True):
        row["has_output"] = output is not None
    return GradingPage(
        assignment=assignment,
        paper=paper,
        problem=problem,
        criteria=criteria,
        marks=marks,
        outputs=shown,
        tasks=tasks,
        tags=tags,
        chosen_tags=chosen,
        others=paper_cells(paper, criteria) if assignment.is_submitted else {},
        held_elsewhere=held_elsewhere,
        suggestions=page_suggestions(criteria, answers, held_elsewhere=held_elsewhere),
        next_code=next_unfinished_code(assignment),
    )


def next_unfinished_code(assignment: Assignment) -> str | None:
    """Return the code of the juror's next paper of the same problem not yet submitted.

    Next in the juror's home order (by code) after this paper, wrapping around to the
    first; never this paper; None when every other one is submitted. One query."""
    code = assignment.paper.code
    return (
        Assignment.objects.filter(
            juror_id=assignment.juror_id,
            paper__problem_id=assignment.paper.problem_id,
            submitted_at__isnull=True,
        )
        .exclude(pk=assignment.pk)
        .annotate(wraps=Case(When(paper__code__gt=code, then=Value(0)), default=Value(1)))
        .order_by("wraps", "paper__code")
        .values_list("paper__code", flat=True)
        .first()
    )


def paper_answers_of(paper: Paper) -> list[dict]:
    """Return the paper's answers as paper_answers does, loading its tasks and outputs."""
    tasks = list(paper.problem.tasks.order_by("number"))
    outputs = {
        o.task_id: o
        for o in Output.objects.filter(system_id=paper.system_id, task__problem=paper.problem_id)
    }
    return paper_answers(paper, tasks, [outputs.get(t.pk) for t in tasks])


def paper_answers(paper: Paper, tasks: list, outputs: list) -> list[dict]:
    """Return per task the items with their question, the key and the exact-match flag the
    paper earned, and the explanation (with the earlier assignment it repeats, if any)."""
    rows = []
    earlier: dict[str, int] = {}  # explanation -> the first assignment that gave it
    for task, output in zip(tasks, outputs, strict=True):
        items = []
        stage = output.official_stage if output else "parsed"
        answer = (
            (output.extracted_items if stage == "extracted" else output.parsed_items)
            if output
            else []
        )
        flags = output.scores.get("iol2026", {}).get(stage, {}).get("item_em", []) if output else []
        prompts = item_prompts(task.query, len(task.answer_key))
        for index, key in enumerate(task.answer_key):
            items.append(
                {
                    "number": index + 1,
                    "label": prompts[index][0] if prompts else str(index + 1),
                    "prompt": prompts[index][1] if prompts else "",
                    "answer": answer[index] if index < len(answer) else "",
                    "key": key,
                    "exact": bool(flags[index]) if index < len(flags) else False,
                }
            )
        explanation = output.explanation if output else ""
        shared = (explanation or "").strip()
        same_as = earlier.get(shared) if shared else None
        if shared and same_as is None:
            earlier[shared] = task.number
        rows.append(
            {
                "task": task,
                "items": items,
                "has_prompts": prompts is not None,
                "explanation": explanation,
                "explanation_same_as": same_as,
            }
        )
    return rows


# --- the comparison sheet -------------------------------------------------------------------


# A cell's state as a symbol and a word, so that no state is told by colour alone.
STATE_WORDS = {
    DISCREPANT: ("≠", "discrepant"),
    AGREED: ("=", "agreed"),
    DECIDED: ("✓", "decided"),
    PENDING: ("…", "waiting"),
}


@dataclass
class SheetCell:
    criterion: Criterion
    marks: dict[int, Decimal | None]  # juror id -> submitted points
    state: CellState
    comments: int = 0
    url: str = ""  # the criterion's thread
    names: dict[int, str] = field(default_factory=dict)  # juror id -> username (the row's)
    paper_code: str = ""
    decide_url: str = ""  # the chair's decision of it from the sheet

    @property
    def text(self) -> str:
        """Return the submitted marks as the sheet shows them: '2.5 · 3'."""
        return " · ".join(points_text(p) for p in self.marks.values()) or "…"

    @property
    def symbol(self) -> str:
        return STATE_WORDS[self.state.status][0]

    @property
    def word(self) -> str:
        return STATE_WORDS[self.state.status][1]

    @property
    def state_text(self) -> str:
        """Return the state as the sheet shows it: '≠ discrepant', '= agreed → 1.5'."""
        text = f"{self.symbol} {self.word}"
        if self.state.final is not None:
            text += f" → {points_text(self.state.final)}"
        return text

    @property
    def label(self) -> str:
        """Return the cell in words: 'P1-7KQ2 1b: anna 1.5, boris 0.5: discrepant' (and
        the mark that counts)."""
        marks = ", ".join(
            f"{self.names.get(j, '?')} {points_text(p) if p is not None else 'cleared'}"
            for j, p in self.marks.items()
        )
        text = (
            f"{self.paper_code} {self.criterion.code}: {marks or 'no mark submitted'}: {self.word}"
        )
        if self.state.final is not None:
            text += f", {points_text(self.state.final)} counts"
        return text

    @property
    def differences(self) -> Decimal:
        return absolute_differences(self.marks.values())

    @property
    def is_open(self) -> bool:
        """Whether the chair has a discrepancy to settle here."""
        return self.state.status == DISCREPANT

    @property
    def decidable(self) -> bool:
        """Whether the chair may decide it from the sheet (again, once decided)."""
        return self.state.status in (DISCREPANT, DECIDED)

    @property
    def dom_id(self) -> str:
        return f"cell-{self.paper_code}-{self.criterion.pk}"


@dataclass
class SheetRow:
    paper: Paper
    jurors: list  # assigned users
    submitted: set[int]
    juror_names: str = ""
    cells: list[SheetCell] = field(default_factory=list)
    totals: dict[int, Decimal] = field(default_factory=dict)  # juror id -> total
    held_elsewhere: bool = False  # its answers are outside ioleval (HELD_ELSEWHERE_NOTE)

    @property
    def discrepancies(self) -> int:
        return sum(c.state.status == DISCREPANT for c in self.cells)

    @property
    def differences(self) -> Decimal:
        """Return the sum over criteria of the absolute differences between its jurors."""
        return sum((c.differences for c in self.cells), Decimal(0))

    @property
    def juror_totals(self) -> list[tuple[str, Decimal]]:
        """Return (username, total) of each juror with submitted marks, in the jurors' order."""
        return [(j.username, self.totals[j.pk]) for j in self.jurors if j.pk in self.totals]

    @property
    def spread(self) -> Decimal | None:
        values = [t for j, t in self.totals.items() if j in self.submitted]
        return max(values) - min(values) if len(values) > 1 else None

    @property
    def final_total(self) -> Decimal | None:
        if not self.cells or not all(c.state.resolved for c in self.cells):
            return None
        return sum((c.state.final for c in self.cells), Decimal(0))


_CODE = "P0-CODE"


def problem_jury(problem: Problem) -> ProblemJury:
    """Return the problem's jury settings (an unsaved default when it has none yet): as
    select_related("jury") loaded them with the problem, else read (one query)."""
    if not Problem.jury.is_cached(problem):
        return ProblemJury.objects.filter(problem=problem).first() or ProblemJury(problem=problem)
    try:
        return problem.jury
    except ProblemJury.DoesNotExist:
        return ProblemJury(problem=problem)


@dataclass(frozen=True)
class CellInputs:
    """What the consensus rule judges the cells of some papers by (cell_inputs)."""

    # (paper id, criterion id) -> juror id -> points: the marks of submitted papers only
    marks: dict[tuple[int, int], dict[int, Decimal | None]]
    decisions: dict[tuple[int, int], Decimal | None]  # (paper id, criterion id) -> the chair's

    def cell(
        self, paper_id: int, jurors: list[int], criterion: Criterion, *, tolerance: Decimal
    ) -> tuple[dict[int, Decimal | None], CellState]:
        """Return one cell's submitted marks by juror, in the order of `jurors` (every juror
        assigned the paper: as many marks are expected), and its state."""
        found = self.marks.get((paper_id, criterion.pk), {})
        submitted = {juror: found[juror] for juror in jurors if juror in found}
        return submitted, cell_state(
            submitted=submitted,
            expected=len(jurors),
            decision=self.decisions.get((paper_id, criterion.pk)),
            tolerance=tolerance,
            step=criterion.step,
        )


def cell_inputs(paper_ids: Iterable[int], criterion_ids: Iterable[int]) -> CellInputs:
    """Return the submitted marks and the chair's decisions of these papers' cells (two
    queries): what the sheet and a juror's "needs you" both judge cells by."""
    paper_ids, criterion_ids = list(paper_ids), list(criterion_ids)
    marks: dict[tuple[int, int], dict[int, Decimal | None]] = defaultdict(dict)
    for paper_id, criterion_id, juror_id, points in (
        Mark.objects.submitted()
        .filter(assignment__paper_id__in=paper_ids, criterion_id__in=criterion_ids)
        .values_list("assignment__paper_id", "criterion_id", "assignment__juror_id", "points")
    ):
        marks[(paper_id, criterion_id)][juror_id] = points
    decisions = {
        (paper_id, criterion_id): points
        for paper_id, criterion_id, points in Resolution.objects.filter(
            paper_id__in=paper_ids, criterion_id__in=criterion_ids
        ).values_list("paper_id", "criterion_id", "points")
    }
    return CellInputs(marks=dict(marks), decisions=decisions)


def comparison_sheet(
    problem: Problem, *, tolerance: Decimal | None = None, paper: Paper | None = None
) -> tuple[list[Criterion], list[SheetRow]]:
    """Return papers x criteria with every submitted mark, discrepancy states and totals
    (of one paper's row alone with `paper`, as the chair's inline decision re-renders it)."""
    if tolerance is None:
        tolerance = problem_jury(problem).tolerance
    criteria = rubric_criteria(problem)
    one = Q(paper=paper) if paper is not None else Q()
    papers = list(
        Paper.objects.filter(problem=problem, **({"pk": paper.pk} if paper else {}))
        .select_related("system")
        .prefetch_related(
            Prefetch(
                "assignments",
                queryset=Assignment.objects.select_related("juror").order_by("juror__username"),
            )
        )
        .order_by("code")
    )
    inputs = cell_inputs([p.pk for p in papers], [c.pk for c in criteria])
    threads = dict(
        ((p, c), n)
        for p, c, n in DiscussionComment.objects.filter(one, paper__problem=problem)
        .values_list("paper_id", "criterion_id")
        .annotate(n=Count("pk"))
    )
    external = {p.system_id for p in papers if p.system.external}
    answered = (
        set(
            Output.objects.filter(system_id__in=external, task__problem=problem).values_list(
                "system_id", flat=True
            )
        )
        if external
        else set()
    )
    thread_base = reverse("grading:thread", args=[_CODE, 0])
    decide_base = reverse(
        "grading:sheet_decide", args=[problem.competition.slug, problem.number, _CODE, 0]
    )
    rows = []
    for paper in papers:
        assignments = list(paper.assignments.all())
        row = SheetRow(
            paper=paper,
            jurors=[a.juror for a in assignments],
            submitted={a.juror_id for a in assignments if a.submitted_at},
            juror_names=" · ".join(a.juror.username for a in assignments),
            held_elsewhere=answers_held_elsewhere(
                external=paper.system_id in external, has_outputs=paper.system_id in answered
            ),
        )
        # One reverse() per sheet, not per cell: at 300 papers x 10 criteria it showed.
        thread_url = thread_base.replace(_CODE, paper.code)
        names = {a.juror_id: a.juror.username for a in assignments}  # shared by the row's cells
        decide_url = decide_base.replace(_CODE, paper.code)
        jurors = [a.juror_id for a in assignments]  # the row's order: columns line up
        for criterion in criteria:
            submitted, state = inputs.cell(paper.pk, jurors, criterion, tolerance=tolerance)
            row.cells.append(
                SheetCell(
                    criterion,
                    submitted,
                    state,
                    threads.get((paper.pk, criterion.pk), 0),
                    thread_url.replace("/0/", f"/{criterion.pk}/"),
                    names,
                    paper.code,
                    decide_url.replace("/0/", f"/{criterion.pk}/"),
                )
            )
            for juror_id, points in submitted.items():
                row.totals[juror_id] = row.totals.get(juror_id, Decimal(0)) + (points or 0)
        rows.append(row)
    return criteria, rows


def problem_unresolved(problem: Problem) -> list[str]:
    """List 'CODE criterion' cells that keep the problem from being finalized."""
    _, rows = comparison_sheet(problem)
    if not rows:
        return ["no papers"]
    return [
        f"{row.paper.code} {cell.criterion.code} ({cell.state.status})"
        for row in rows
        for cell in row.cells
        if not cell.state.resolved
    ] or ([] if all(row.cells for row in rows) else ["no rubric"])


# --- totals -------------------------------------------------------------------------------


@dataclass
class SystemTotal:
    system_id: int
    system: str
    tier: str
    by_problem: dict[int, Decimal | None]
    counted: frozenset[int] = frozenset()  # problems the jury grades (with papers)

    @property
    def total(self) -> Decimal | None:
        values = [v for n, v in self.by_problem.items() if n in self.counted]
        if any(v is None for v in values):
            return None
        return sum(values, Decimal(0))


def final_totals(competition: Competition, *, finalized_only: bool = True) -> list[SystemTotal]:
    """Return each selected system's final points per problem and total (None: not final).

    A problem without papers (not given to the jury) neither counts nor blocks a total.
    """
    problems = list(competition.problems.order_by("number").select_related("jury"))
    sheets = {problem.number: comparison_sheet(problem)[1] for problem in problems}
    counted = frozenset(number for number, rows in sheets.items() if rows)
    totals: dict[int, SystemTotal] = {}
    for problem in problems:
        finalized = problem_jury(problem).finalized_at is not None
        for row in sheets[problem.number]:
            system = row.paper.system
            entry = totals.setdefault(
                system.pk,
                SystemTotal(
                    system.pk, system.name, system.tier, {p.number: None for p in problems}, counted
                ),
            )
            if finalized or not finalized_only:
                entry.by_problem[problem.number] = row.final_total
    return sorted(
        totals.values(), key=lambda t: (t.total is None, -(t.total or 0), t.system.casefold())
    )


def rubric_totals(problems, criteria=None) -> tuple[tuple[int, Decimal | None], ...]:
    """Return (number, current rubric's maxima summed or None) per problem, by number."""
    if criteria is None:
        criteria = current_rubrics(problems)
    return tuple(
        (
            p.number,
            sum((c.maximum for c in criteria[p.pk]), Decimal(0)) if criteria.get(p.pk) else None,
        )
        for p in sorted(problems, key=lambda p: p.number)
    )


def jury_scale(competition: Competition) -> JuryScale:
    """Return the competition's jury scale with its thresholds (grading.scale's rule), as the
    given competition object holds them (three queries)."""
    return JuryScale(
        set_points=competition.jury_scale,
        problems=rubric_totals(list(competition.problems.all())),
        thresholds=tuple((key, getattr(competition, f"{key}_threshold")) for key in MEDALS),
    )


def scale_status(scale: JuryScale) -> ScaleStatus:
    """Return the scale as puzzles' pages take it (puzzles.jury)."""
    return ScaleStatus(
        points=scale.points,
        explicit=scale.explicit,
        text=scale.text,
        thresholds_text=scale.thresholds_text,
        warnings=scale.warnings,
        not_applied=scale.not_applied,
    )


def rubrics_scale_lines(competition: Competition, changes: Iterable) -> list[str]:
    """Say what new rubrics (RubricChange previews) would do to the scale and thresholds."""
    before = jury_scale(competition)
    new = {c.problem.number: c.maximum for c in changes if c.maximum is not None}
    after = replace(before, problems=tuple((n, new.get(n, t)) for n, t in before.problems))
    return scale_moves(before, after)


@dataclass(frozen=True)
class TotalsPage:
    competition: Competition
    problems: list
    totals: list[SystemTotal]
    scale: JuryScale
    provisional: bool

    @property
    def columns(self) -> int:
        """The table's columns: system, tier, one a problem, total."""
        return len(self.problems) + 3


def totals_page(competition: Competition, *, provisional: bool) -> TotalsPage:
    """The jury totals page: final totals (or provisional ones), the scale they are out of and
    what is wrong with it or with the thresholds on it."""
    return TotalsPage(
        competition=competition,
        problems=list(competition.problems.order_by("number")),
        totals=final_totals(competition, finalized_only=not provisional),
        scale=jury_scale(competition),
        provisional=provisional,
    )


# --- the comparison sheet and a criterion's thread, as pages ------------------------------


@dataclass(frozen=True)
class SheetFilters:
    """The comparison sheet's filters, read from its query string."""

    only: bool = False  # only rows with a discrepancy
    juror: str = ""  # only rows this juror (username) is assigned
    status: str = ""  # "complete" (all submitted), "incomplete", or "" for both
    sort: str = DEFAULT_SORT  # one of sheet_rules.SORTS

    STATUSES = ("complete", "incomplete")

    @classmethod
    def from_query(cls, query) -> SheetFilters:
        status = query.get("status", "")
        sort = query.get("sort", DEFAULT_SORT)
        return cls(
            only=query.get("only") == "discrepancies",
            juror=query.get("juror", ""),
            status=status if status in cls.STATUSES else "",
            sort=sort if sort in SORTS else DEFAULT_SORT,
        )

    def query(self, **changes) -> str:
        """Return these filters (with `changes`) as a query string, defaults left out."""
        values = {
            "only": "discrepancies" if self.only else "",
            "juror": self.juror,
            "status": self.status,
            "sort": "" if self.sort == DEFAULT_SORT else self.sort,
        }
        values.update(changes)
        if values["sort"] == DEFAULT_SORT:
            values["sort"] = ""
        return urlencode({k: v for k, v in values.items() if v})

    def apply(self, rows: list[SheetRow]) -> list[SheetRow]:
        """Return the rows these filters keep, in their sort order."""
        rows = sort_rows(rows, self.sort)
        if self.only:
            rows = [r for r in rows if r.discrepancies]
        if self.juror:
            rows = [r for r in rows if any(j.username == self.juror for j in r.jurors)]
        if self.status:
            complete = self.status == "complete"
            rows = [r for r in rows if (len(r.submitted) == len(r.jurors)) == complete]
        return rows


@dataclass(frozen=True)
class SheetSort:
    """One of the sheet's sort links."""

    value: str
    label: str
    query: str  # the sheet's query string with this order and the current filters
    current: bool


@dataclass(frozen=True)
class SheetPage:
    problem: Problem
    jury: ProblemJury
    criteria: list[Criterion]
    rows: list[SheetRow]
    jurors: list[str]  # the usernames on the rows shown, for the juror filter
    filters: SheetFilters

    @property
    def sorts(self) -> list[SheetSort]:
        return [
            SheetSort(value, label, self.filters.query(sort=value), value == self.filters.sort)
            for value, label in SORTS.items()
        ]

    @property
    def columns(self) -> int:
        """The table's columns: paper, jurors, one a criterion, totals, differences, spread,
        final."""
        return len(self.criteria) + 6

    @property
    def open_cells(self) -> int:
        """The discrepancies on the rows shown that the chair has yet to settle."""
        return open_count(self.rows)


def open_count(rows: list[SheetRow]) -> int:
    """Count the discrepancies the chair has yet to settle on these rows of the sheet."""
    return sum(c.is_open for r in rows for c in r.cells)


def sheet_page(problem: Problem, user, filters: SheetFilters) -> SheetPage:
    """The comparison sheet of a problem for a chair or organizer who grades none of its
    papers any longer (403 while they still do: grading.access, the chair's one rule)."""
    chair_access(user, problem, act=False)
    jury = problem_jury(problem)
    criteria, rows = comparison_sheet(problem, tolerance=jury.tolerance)
    rows = filters.apply(rows)
    return SheetPage(
        problem=problem,
        jury=jury,
        criteria=criteria,
        rows=rows,
        jurors=sorted({j.username for r in rows for j in r.jurors}),
        filters=filters,
    )


@dataclass(frozen=True)
class MarkChange:
    """One change of a mark or a decision, with the value before it."""

    when: object
    who: object
    old: Decimal | None
    new: Decimal | None
    reason: str
    juror: object = None
    from_suggestion: bool = False  # the new value was the suggested mark, accepted


@dataclass(frozen=True)
class ThreadPage:
    paper: Paper
    criterion: Criterion
    answers: list[dict]
    held_elsewhere: bool
    marks: list[Mark]  # submitted marks
    own: Assignment | None  # the user's own assignment of the paper
    resolution: Resolution | None
    comments: list[DiscussionComment]
    is_chair: bool  # the user may act here as the chair (grading.access)
    finalized: bool
    still_grading: int  # jurors of the paper who have not submitted it
    history: list[MarkChange]  # the chair's view of the marks' changes
    decision_history: list[MarkChange]
    chair_waits: str = ""  # why a chair may not act here yet (grading.access)

    @property
    def may_comment(self) -> bool:
        return (self.own is not None or self.is_chair) and not self.finalized

    @property
    def last_post(self) -> int:
        """The id of the latest post shown (0: none): how far its reader has read."""
        return max((c.pk for c in self.comments), default=0)


def thread_page(paper: Paper, criterion: Criterion, user) -> ThreadPage:
    """A criterion's discussion of one paper, for whoever thread_access lets in."""
    own = thread_access(user, paper)
    marks = list(
        Mark.objects.submitted()
        .filter(assignment__paper=paper, criterion=criterion)
        .select_related("assignment__juror")
        .order_by("assignment__juror__username")
    )
    resolution = Resolution.objects.filter(paper=paper, criterion=criterion).first()
    # The chair's part of the page (decision, history) follows the chair's one rule: a chair
    # who grades another paper of the problem reads their own thread as a juror.
    chair_waits = chair_refusal(user, paper.problem, act=True) if has_role(user, CHAIR) else ""
    is_chair = has_role(user, CHAIR) and not chair_waits
    history: list = []
    if is_chair:
        # Submitted papers only (a draft is its juror's until submitted), and the criterion's
        # code across rubric versions (a new version moves the marks to a new criterion).
        history = list(
            Mark.history.filter(
                assignment__paper=paper,
                assignment__submitted_at__isnull=False,
                criterion__rubric__problem_id=paper.problem_id,
                criterion__code=criterion.code,
            )
            .select_related("history_user", "assignment__juror")
            .order_by("history_date", "history_id")
        )
    answers = paper_answers_of(paper)
    for row in answers:
        row["explanation_html"] = explanation_html(row["explanation"])
    return ThreadPage(
        paper=paper,
        criterion=criterion,
        answers=answers,
        held_elsewhere=paper_held_elsewhere(paper),
        marks=marks,
        own=own,
        resolution=resolution,
        comments=list(
            DiscussionComment.objects.filter(paper=paper, criterion=criterion).select_related(
                "author"
            )
        ),
        is_chair=is_chair,
        finalized=problem_jury(paper.problem).finalized_at is not None,
        still_grading=paper.assignments.filter(submitted_at__isnull=True).count(),
        history=mark_changes(history),
        decision_history=decision_changes(resolution) if resolution and is_chair else [],
        chair_waits=chair_waits,
    )


def decision_changes(resolution: Resolution) -> list[MarkChange]:
    """Pair each recorded decision with the agreed mark before it."""
    rows, old = [], None
    for record in resolution.history.select_related("history_user").order_by("history_date"):
        reason = record.history_change_reason or record.reason or ""
        rows.append(
            MarkChange(record.history_date, record.history_user, old, record.points, reason)
        )
        old = record.points
    return rows


def mark_changes(history: list) -> list[MarkChange]:
    """Pair each historical mark with the value before it (per juror); saves that change
    neither the points nor whether they are an accepted suggestion drop."""
    last: dict[int, tuple[Decimal | None, bool]] = {}
    rows = []
    for record in history:
        old = last.get(record.assignment_id, (None, False))
        if old != (record.points, record.from_suggestion):
            rows.append(
                MarkChange(
                    when=record.history_date,
                    who=record.history_user,
                    old=old[0],
                    new=record.points,
                    reason=record.history_change_reason or "",
                    juror=record.assignment.juror,
                    from_suggestion=record.from_suggestion,
                )
            )
        last[record.assignment_id] = (record.points, record.from_suggestion)
    return rows


def competition_still_grading(competition: Competition) -> bool:
    """Whether some problem of the competition has papers and is not finalized (asked by
    puzzles through puzzles.jury: the public board warns then)."""
    with_papers = Paper.objects.filter(problem__competition=competition).values("problem_id")
    finalized = (
        ProblemJury.objects.finalized()
        .filter(problem__competition=competition)
        .values("problem_id")
    )
    return with_papers.exclude(problem_id__in=finalized).exists()


def problems_finalized(competition: Competition) -> set[int]:
    """Return the ids of the competition's finalized problems (asked by puzzles through
    puzzles.jury: the answer-key page says an amendment there leaves the jury's finals)."""
    return set(
        ProblemJury.objects.finalized()
        .filter(problem__competition=competition)
        .values_list("problem_id", flat=True)
    )


# --- the organizer's jury page -------------------------------------------------------------


@dataclass(frozen=True)
class ProblemProgress:
    """One problem's row on the organizer's jury page."""

    problem: Problem  # annotated with n_papers, n_assignments, n_submitted
    criteria: int
    jurors: list[str]  # its grading group's usernames
    discrepancies: int
    final: int  # papers with a final total
    finalized: object  # when the chair finalized it, or None


@dataclass(frozen=True)
class JuryOverviewPage:
    competition: Competition
    systems: list  # every system, by tier and name, for the selection form
    selected: set[str]  # names of the systems with papers
    progress: list[ProblemProgress]
    not_blind: list[NotBlind]  # group members and juror accounts not blind for it, and why
    tags: list[str]  # the observation tags' names
    recognisable: list[Recognisable]  # selected systems whose papers hold no answers here


def jury_overview_page(competition: Competition) -> JuryOverviewPage:
    """The organizer's jury page: selection, per-problem progress, groups, who is not blind."""
    selected = set(
        Paper.objects.filter(problem__competition=competition).values_list(
            "system__name", flat=True
        )
    )
    problems = list(
        competition.problems.order_by("number")
        .select_related("jury")
        .annotate(
            n_papers=Count("papers", distinct=True),
            n_assignments=Count("papers__assignments", distinct=True),
            n_submitted=Count(
                "papers__assignments",
                filter=Q(papers__assignments__submitted_at__isnull=False),
                distinct=True,
            ),
        )
    )
    members = ProblemJuror.objects.filter(problem__competition=competition)
    groups: dict[int, list[str]] = defaultdict(list)
    for problem_id, username in members.values_list("problem_id", "juror__username"):
        groups[problem_id].append(username)
    progress = []
    for problem in problems:
        criteria, rows = comparison_sheet(problem)
        progress.append(
            ProblemProgress(
                problem=problem,
                criteria=len(criteria),
                jurors=sorted(groups[problem.pk]),
                discrepancies=sum(r.discrepancies for r in rows),
                final=sum(r.final_total is not None for r in rows),
                finalized=problem_jury(problem).finalized_at,
            )
        )
    return JuryOverviewPage(
        competition=competition,
        systems=list(competition.systems.order_by("tier", "name")),
        selected=selected,
        progress=progress,
        not_blind=not_blind(competition),
        tags=list(competition.tags.values_list("name", flat=True)),
        recognisable=papers_recognisable(competition),
    )


def criteria_not_marked(
    assignment_ids: list[int], *, problems: dict[int, int] | None = None
) -> dict[int, list[str]]:
    """Return, for each of these assignments that lacks one, the codes of the current
    rubric's criteria it has no points for, in the rubric's order (the rule of submitting
    a paper, by hand or by import). Four queries, however many assignments; three when the
    caller gives each assignment's problem id (`problems`)."""
    if problems is None:
        problems = dict(
            Assignment.objects.filter(pk__in=assignment_ids).values_list("pk", "paper__problem_id")
        )
    criteria = current_rubrics(Problem.objects.filter(pk__in=set(problems.values())))
    marked: dict[int, set[int]] = defaultdict(set)
    for assignment_id, criterion_id in Mark.objects.filter(
        assignment_id__in=problems, points__isnull=False
    ).values_list("assignment_id", "criterion_id"):
        marked[assignment_id].add(criterion_id)
    missing = {}
    for assignment_id, problem_id in problems.items():
        codes = [c.code for c in criteria.get(problem_id, []) if c.pk not in marked[assignment_id]]
        if codes:
            missing[assignment_id] = codes
    return missing


# --- what awaits a juror (their home's "needs you") ----------------------------------------


@dataclass(frozen=True)
class Awaiting:
    """A criterion of one of the juror's submitted papers that needs them: its marks are
    discrepant, or its thread has posts by others they have not read. Names the paper by
    its code only, never its system."""

    problem: Problem
    paper_code: str
    criterion: Criterion
    discrepant: bool
    unread: int  # posts by others after the last one the juror was shown
    url: str  # the criterion's thread


def juror_awaiting(user, *, criteria: dict[int, list[Criterion]] | None = None) -> list[Awaiting]:
    """Return what awaits the juror on the papers they submitted, by competition, problem,
    paper and criterion: discrepant criteria (the consensus rule of the sheet) and threads
    with posts they have not read (ThreadRead). Finalized problems await nothing (their
    discussion is closed). Five queries, however many papers, and two more unless the
    caller gives the current criteria of the juror's problems (`criteria`)."""
    finalized = ProblemJury.objects.finalized().values("problem_id")
    papers = {
        a.paper_id: a.paper
        for a in Assignment.objects.submitted()
        .filter(juror=user)
        .exclude(paper__problem_id__in=finalized)
        .select_related("paper__problem__competition", "paper__problem__jury")
    }
    if not papers:
        return []
    if criteria is None:
        criteria = current_rubrics({p.problem_id for p in papers.values()})
    by_id = {c.pk: c for p in {p.problem_id for p in papers.values()} for c in criteria.get(p, [])}
    # The sheet's cells (comparison_sheet): the same inputs, judged by the same rule.
    jurors: dict[int, list[int]] = defaultdict(list)
    for paper_id, juror_id in Assignment.objects.filter(paper_id__in=papers).values_list(
        "paper_id", "juror_id"
    ):
        jurors[paper_id].append(juror_id)
    inputs = cell_inputs(papers, by_id)
    unread = threads_unread(user, papers, by_id)
    thread_base = reverse("grading:thread", args=[_CODE, 0])
    found = []
    for paper in papers.values():
        tolerance = problem_jury(paper.problem).tolerance
        for criterion in criteria.get(paper.problem_id, []):
            key = (paper.pk, criterion.pk)
            _, state = inputs.cell(paper.pk, jurors[paper.pk], criterion, tolerance=tolerance)
            discrepant = state.status == DISCREPANT
            if discrepant or unread.get(key):
                found.append(
                    Awaiting(
                        problem=paper.problem,
                        paper_code=paper.code,
                        criterion=criterion,
                        discrepant=discrepant,
                        unread=unread.get(key, 0),
                        url=thread_base.replace(_CODE, paper.code).replace(
                            "/0/", f"/{criterion.pk}/"
                        ),
                    )
                )
    return sorted(
        found,
        key=lambda a: (
            a.problem.competition.slug,
            a.problem.number,
            a.paper_code,
            a.criterion.order,
        ),
    )


def threads_unread(user, paper_ids, criterion_ids) -> dict[tuple[int, int], int]:
    """Return, per (paper id, criterion id) among these, how many posts by others the user
    has not been shown: those after the last post of their ThreadRead, or all (one query)."""
    seen = ThreadRead.objects.filter(
        juror=user, paper=OuterRef("paper_id"), criterion_code=OuterRef("criterion__code")
    ).values("last_post")[:1]
    return dict(
        ((paper_id, criterion_id), n)
        for paper_id, criterion_id, n in DiscussionComment.objects.filter(
            paper_id__in=paper_ids, criterion_id__in=criterion_ids
        )
        .exclude(author=user)
        .annotate(seen=Coalesce(Subquery(seen), 0))
        .filter(pk__gt=F("seen"))
        .values_list("paper_id", "criterion_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
