"""Juror pages: the distinct answers of one item across the juror's papers, and proposing
an accepted alternative for it."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ioleval.errors import AppError
from ioleval.http import HtmxHttpRequest, form_data, post_redirect

from .. import access, services
from ..forms import ProposalForm
from ..selectors import distinct_page
from .juror import juror_required


def _refusal_key(task_id: int, item_number: int) -> str:
    """Where a refused proposal waits in the session for the page to show it at its field."""
    return f"grading:proposal:{task_id}:{item_number}"


@require_GET
@juror_required
def distinct_answers(
    request: HtmxHttpRequest,
    problem_id: int,
    task_number: int | None = None,
    item_number: int | None = None,
) -> HttpResponse:
    item = access.distinct_item(request.user, problem_id, task_number, item_number)
    page = distinct_page(item, request.user)
    refused = request.session.pop(_refusal_key(page.task.pk, page.item_number), None)
    if refused:
        form = ProposalForm(refused["data"])
        form.is_valid()
        field = refused["field"] if refused["field"] in form.fields else None
        form.add_error(field, refused["message"])
    else:
        form = ProposalForm(initial={"answer": request.GET.get("answer", "")[:2000]})
    return render(request, "grading/distinct.html", {"page": page, "form": form})


@require_POST
@juror_required
def proposal_create(
    request: HtmxHttpRequest, problem_id: int, task_number: int, item_number: int
) -> HttpResponse:
    task = access.proposal_task(request.user, problem_id, task_number, item_number)

    def act() -> str:
        try:
            data = form_data(ProposalForm(request.POST))
            proposal = services.proposal_create(
                juror=request.user,
                task=task,
                item_number=item_number,
                answer=data["answer"],
                reason=data["reason"],
            )
        except AppError as exc:
            request.session[_refusal_key(task.pk, item_number)] = {
                "field": exc.field,
                "message": exc.message,
                "data": {k: request.POST.get(k, "")[:2000] for k in ("answer", "reason")},
            }
            raise
        return (
            f"Proposed {proposal.answer!r} for assignment {task.number}, item {item_number}:"
            " an organizer will accept or reject it."
        )

    url = reverse("grading:distinct", args=[problem_id, task_number, item_number])
    return post_redirect(request, act, url)
