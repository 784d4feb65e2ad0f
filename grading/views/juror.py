"""Juror pages: my papers, grading with autosave, submit, tags."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from ioleval.errors import AppError
from ioleval.http import HtmxHttpRequest, form_data, post_redirect
from ioleval.roles import CHAIR, JUROR, has_role, role_required

from .. import access, services
from ..errors import GradingError, JuryBusy
from ..forms import MarkForm, TagsForm
from ..models import Assignment
from ..selectors import (
    chair_sheets,
    current_rubrics,
    grading_page,
    juror_awaiting,
    juror_papers,
    next_unfinished_code,
    paper_answers,
    papers_still_graded,
)
from ..text import explanation_html

juror_required = role_required(JUROR, CHAIR)


@require_GET
@juror_required
def juror_home(request: HtmxHttpRequest) -> HttpResponse:
    groups = juror_papers(request.user)
    criteria = current_rubrics(groups)
    context = {
        "groups": groups,
        "criteria": criteria,
        "awaiting": juror_awaiting(request.user, criteria=criteria),
    }
    if has_role(request.user, CHAIR):
        context["sheets"] = chair_sheets(request.user)
        context["review_waits"] = papers_still_graded(request.user)  # review closed till in
    return render(request, "grading/juror_home.html", context)


@require_GET
@juror_required
def grade(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _grading_response(request, access.juror_assignment(request.user, code))


def _grading_response(
    request: HtmxHttpRequest, assignment: Assignment, *, submit_error: str = "", status: int = 200
) -> HttpResponse:
    """Render the grading page; a refused submit shows its reason and where to go on."""
    page = grading_page(assignment)
    answers = paper_answers(page.paper, page.tasks, page.outputs)
    for row in answers:
        shown = row["explanation"] if row["explanation_same_as"] is None else ""
        row["explanation_html"] = explanation_html(shown)
    context = {
        "page": page,
        "assignment": assignment,
        "answers": answers,
        "held_elsewhere": page.held_elsewhere,
        "rows": [(c, page.marks.get(c.pk), page.others.get(c.pk)) for c in page.criteria],
        "tags_form": TagsForm(tags=page.tags, initial={"tags": list(page.chosen_tags)}),
        "submit_error": submit_error,
        # A refused submit sends the juror to the first criterion still without points.
        "focus_criterion": page.first_unmarked if submit_error else None,
    }
    return render(request, "grading/grade.html", context, status=status)


@require_POST
@juror_required
def mark_save(request: HtmxHttpRequest, code: str, criterion_id: int) -> HttpResponse:
    form = MarkForm(request.POST)
    error = None
    if form.is_valid():
        try:
            services.mark_save_by_code(
                juror=request.user,
                code=code,
                criterion_id=criterion_id,
                points=form.cleaned_data["points"],
                comment=form.cleaned_data["comment"],
                from_suggestion=form.cleaned_data["from_suggestion"],
            )
        except Assignment.DoesNotExist:
            raise access.paper_hidden() from None
        except JuryBusy as exc:
            busy = exc.message
            if request.htmx:  # not swapped in: the page says "not saved" with this text
                return HttpResponse(busy, status=409, content_type="text/plain; charset=utf-8")
            error = busy
        except GradingError as exc:
            error = exc.message
    else:
        access.juror_assignment(request.user, code)  # a stranger's paper: 404, whatever sent
        error = form.errors.as_text()
    if not request.htmx:  # a plain form post: back to the same criterion
        if error:
            messages.error(request, error)
        else:
            messages.success(request, "Saved.")
        back = request.POST.get("back", "")
        if back.startswith("/jury/problems/") and url_has_allowed_host_and_scheme(back, None):
            return redirect(back)  # the grade-by-criterion page it was saved from
        return redirect(reverse("grading:grade", args=[code]) + f"#criterion-{criterion_id}")
    response = render(
        request,
        "grading/grade.html#mark_status",
        {"error": error, "saved": error is None},
        status=422 if error else 200,
    )
    return trigger_client_event(response, "markSaved") if not error else response


@require_POST
@juror_required
def submit(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Submit the paper; then stay on it (its other marks) or, with `then=next`, go on to the
    next unfinished paper of the problem. A refusal re-renders the page (422) with the
    reason announced and focus on the first unmarked criterion."""
    assignment = access.juror_assignment(request.user, code)
    try:
        services.assignment_submit(assignment=assignment)
    except AppError as exc:
        return _grading_response(request, assignment, submit_error=exc.message, status=422)
    if request.POST.get("then") != "next":
        messages.success(
            request,
            f"{code} submitted. Beside each criterion: the marks other jurors submitted"
            " and whether they agree; open its discussion to talk it over.",
        )
        return redirect("grading:grade", code)
    following = next_unfinished_code(assignment)
    if following is None:
        number = assignment.paper.problem.number
        messages.success(
            request, f"{code} submitted. Every paper of problem {number} of yours is submitted."
        )
        return redirect("grading:home")
    messages.success(
        request,
        f"{code} submitted (its page shows the other jurors' marks). Next unfinished: {following}.",
    )
    return redirect("grading:grade", following)


@require_POST
@juror_required
def tags_save(request: HtmxHttpRequest, code: str) -> HttpResponse:
    assignment = access.juror_assignment(request.user, code)
    page = grading_page(assignment)

    def act() -> str:
        tags = form_data(TagsForm(request.POST, tags=page.tags))["tags"]
        services.tags_set(assignment=assignment, tag_ids=tags)
        return "Observations saved."

    return post_redirect(request, act, reverse("grading:grade", args=[code]))
