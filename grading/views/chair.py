"""Discussion and consensus: the comparison sheet, criterion threads, decisions, finalizing."""

from __future__ import annotations

from decimal import Decimal

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ioleval.roles import CHAIR, JUROR, ORGANIZER, has_role, role_required
from puzzles.models import Problem

from .. import services
from ..errors import GradingError
from ..forms import CommentForm, DecideForm, ReviseForm, ToleranceForm
from ..models import Assignment, Criterion, DiscussionComment, Mark, Paper, Resolution
from ..selectors import (
    comparison_sheet,
    paper_answers_of,
    paper_held_elsewhere,
    problem_jury,
    thread_access,
)
from ..text import explanation_html, points_text

chair_required = role_required(CHAIR, ORGANIZER)


def _problem(slug: str, number: int) -> Problem:
    return get_object_or_404(
        Problem.objects.select_related("competition"), competition__slug=slug, number=number
    )


@require_GET
@chair_required
def sheet(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = _problem(slug, number)
    if Assignment.objects.filter(
        paper__problem=problem, juror=request.user, submitted_at__isnull=True
    ).exists():
        # Whoever still grades this problem (chair or organizer too) waits for the sheet.
        raise PermissionDenied("submit your own papers of this problem first")
    jury = problem_jury(problem)
    tolerance = jury.tolerance
    criteria, rows = comparison_sheet(problem, tolerance=tolerance)
    only = request.GET.get("only") == "discrepancies"
    juror = request.GET.get("juror", "")
    status = request.GET.get("status", "")
    if only:
        rows = [r for r in rows if r.discrepancies]
    if juror:
        rows = [r for r in rows if any(j.username == juror for j in r.jurors)]
    if status in ("complete", "incomplete"):
        rows = [r for r in rows if (len(r.submitted) == len(r.jurors)) == (status == "complete")]
    jurors = sorted({j.username for r in rows for j in r.jurors})
    context = {
        "problem": problem,
        "jury": jury,
        "criteria": criteria,
        "rows": rows,
        "jurors": jurors,
        "filters": {"only": only, "juror": juror, "status": status},
        "tolerance_form": ToleranceForm(initial={"tolerance": points_text(tolerance)}),
    }
    return render(request, "grading/sheet.html", context)


@require_GET
@role_required(JUROR, CHAIR, ORGANIZER)
def thread(request: HttpRequest, code: str, criterion_id: int) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.select_related("problem__competition"), code=code)
    criterion = get_object_or_404(Criterion, pk=criterion_id, rubric__problem=paper.problem)
    own = thread_access(request.user, paper)
    marks = list(
        Mark.objects.filter(
            assignment__paper=paper, criterion=criterion, assignment__submitted_at__isnull=False
        )
        .select_related("assignment__juror")
        .order_by("assignment__juror__username")
    )
    resolution = Resolution.objects.filter(paper=paper, criterion=criterion).first()
    is_chair = has_role(request.user, CHAIR)
    finalized = problem_jury(paper.problem).finalized_at is not None
    history = []
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
    context = {
        "paper": paper,
        "criterion": criterion,
        "answers": answers,
        "held_elsewhere": paper_held_elsewhere(paper),
        "marks": marks,
        "own": own,
        "resolution": resolution,
        "comments": DiscussionComment.objects.filter(
            paper=paper, criterion=criterion
        ).select_related("author"),
        "is_chair": is_chair,
        "may_comment": (own is not None or is_chair) and not finalized,
        "still_grading": paper.assignments.filter(submitted_at__isnull=True).count(),
        "finalized": finalized,
        "history": _with_old_values(history),
        "decision_history": _decisions_with_old_values(resolution)
        if resolution and is_chair
        else [],
        "comment_form": CommentForm(),
        "revise_form": ReviseForm(),
        "decide_form": DecideForm(),
    }
    return render(request, "grading/thread.html", context)


def _decisions_with_old_values(resolution: Resolution) -> list[dict]:
    """Pair each recorded decision with the agreed mark before it."""
    rows, old = [], None
    for record in resolution.history.select_related("history_user").order_by("history_date"):
        rows.append(
            {
                "when": record.history_date,
                "who": record.history_user,
                "old": old,
                "new": record.points,
                "reason": record.history_change_reason or record.reason or "",
            }
        )
        old = record.points
    return rows


def _with_old_values(history: list) -> list[dict]:
    """Pair each historical mark with the value before it (per juror)."""
    last: dict[int, Decimal | None] = {}
    rows = []
    for record in history:
        old = last.get(record.assignment_id)
        if old != record.points:
            rows.append(
                {
                    "when": record.history_date,
                    "who": record.history_user,
                    "juror": record.assignment.juror,
                    "old": old,
                    "new": record.points,
                    "reason": record.history_change_reason or "",
                }
            )
        last[record.assignment_id] = record.points
    return rows


@require_http_methods(["POST"])
@role_required(JUROR, CHAIR, ORGANIZER)
def thread_post(request: HttpRequest, code: str, criterion_id: int, action: str) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.select_related("problem"), code=code)
    criterion = get_object_or_404(Criterion, pk=criterion_id, rubric__problem=paper.problem)
    own = thread_access(request.user, paper)
    try:
        if action == "comment":
            form = CommentForm(request.POST)
            if own is None and not has_role(request.user, CHAIR):
                raise PermissionDenied  # organizers read threads; they know the systems
            if not form.is_valid():
                raise GradingError(form.errors.as_text(), field="text")
            services.comment_post(
                paper=paper,
                criterion=criterion,
                author=request.user,
                text=form.cleaned_data["text"],
            )
        elif action == "revise":
            form = ReviseForm(request.POST)
            if own is None:
                raise PermissionDenied
            if not form.is_valid():
                raise GradingError(form.errors.as_text(), field="points")
            services.mark_revise(assignment=own, criterion=criterion, **form.cleaned_data)
            messages.success(request, "Your mark is revised.")
        elif action == "decide":
            form = DecideForm(request.POST)
            if not has_role(request.user, CHAIR):
                raise PermissionDenied
            if not form.is_valid():
                raise GradingError(form.errors.as_text(), field="points")
            services.criterion_decide(
                paper=paper, criterion=criterion, chair=request.user, **form.cleaned_data
            )
            messages.success(request, "Decision recorded.")
        else:
            raise PermissionDenied
    except GradingError as exc:
        messages.error(request, exc.message)
    return redirect("grading:thread", code=code, criterion_id=criterion.pk)


@require_POST
@role_required(CHAIR)
def finalize(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = _problem(slug, number)
    try:
        if request.POST.get("reopen"):
            services.problem_reopen(problem=problem, chair=request.user)
            messages.success(request, f"Problem {number} reopened.")
        else:
            services.problem_finalize(problem=problem, chair=request.user)
            messages.success(request, f"Problem {number} finalized.")
    except GradingError as exc:
        messages.error(request, exc.message)
    return redirect("grading:sheet", slug=slug, number=number)


@require_POST
@role_required(CHAIR)
def tolerance(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = _problem(slug, number)
    form = ToleranceForm(request.POST)
    if form.is_valid():
        services.problem_set_tolerance(problem=problem, tolerance=form.cleaned_data["tolerance"])
        messages.success(request, "Tolerance saved.")
    else:
        messages.error(request, form.errors.as_text())
    return redirect("grading:sheet", slug=slug, number=number)
