"""Juror pages: the distinct answers of one item across the juror's papers, and proposing
an accepted alternative for it."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ioleval.http import HtmxHttpRequest, post_rerender

from .. import access, services
from ..forms import ProposalForm
from ..selectors import distinct_page
from .juror import juror_required


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
    form = ProposalForm(initial={"answer": request.GET.get("answer", "")[:2000]})
    return render(request, "grading/distinct.html", {"page": page, "form": form})


@require_POST
@juror_required
def proposal_create(
    request: HtmxHttpRequest, problem_id: int, task_number: int, item_number: int
) -> HttpResponse:
    """Propose an accepted alternative; refused, the page again with what was typed (422)."""
    task = access.proposal_task(request.user, problem_id, task_number, item_number)

    def act(data: dict) -> str:
        proposal = services.proposal_create(
            juror=request.user, task=task, item_number=item_number, **data
        )
        return (
            f"Proposed {proposal.answer!r} for assignment {task.number}, item {item_number}:"
            " an organizer will accept or reject it."
        )

    def again(form: ProposalForm) -> HttpResponse:
        item = access.distinct_item(request.user, problem_id, task_number, item_number)
        return render(
            request,
            "grading/distinct.html",
            {"page": distinct_page(item, request.user), "form": form},
        )

    url = reverse("grading:distinct", args=[problem_id, task_number, item_number])
    return post_rerender(request, ProposalForm(request.POST), act, url, page=again)
