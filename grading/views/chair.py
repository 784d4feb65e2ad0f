"""Discussion and consensus: the comparison sheet, criterion threads, decisions, finalizing."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ioleval.http import HtmxHttpRequest, post_redirect, post_rerender
from ioleval.roles import CHAIR, JUROR, ORGANIZER, role_required

from .. import access, services
from ..access import Thread
from ..forms import CommentForm, DecideForm, ReviseForm, ToleranceForm
from ..selectors import (
    DecidePanel,
    SheetFilters,
    ThreadPage,
    chair_overview_page,
    decide_panel,
    next_discrepancy,
    sheet_page,
    thread_page,
)
from ..text import points_text

chair_required = role_required(CHAIR, ORGANIZER)
SHEET_FORM_IDS = "sheet_%s"  # the ids of the sheet's decision form (sheet_points, …)


@require_GET
@chair_required
def sheet(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    problem = access.chair_problem(request.user, slug, number, act=False)
    return _sheet_response(request, problem)


def _sheet_response(request: HtmxHttpRequest, problem, tolerance_form=None) -> HttpResponse:
    """Render the comparison sheet; a refused tolerance form comes back bound, with its error."""
    page = sheet_page(problem, SheetFilters.from_query(request.GET))
    if tolerance_form is None:
        tolerance_form = ToleranceForm(initial={"tolerance": points_text(page.jury.tolerance)})
    context = {
        "page": page,
        "tolerance_form": tolerance_form,
        "problem": problem,
        "query": _query(page.filters.query()),
        "next_query": _query(page.filters.query()),
    }
    return render(request, "grading/sheet.html", context)


@require_GET
@role_required(JUROR, CHAIR, ORGANIZER)
def thread(request: HtmxHttpRequest, code: str, criterion_id: int) -> HttpResponse:
    found = access.thread(request.user, code, criterion_id)
    page = thread_page(found)
    if page.own is not None:  # a juror of the paper: their home's "needs you" list reads it
        services.thread_mark_read(
            juror=request.user,
            paper=found.paper,
            criterion=found.criterion,
            last_post=page.last_post,
        )
    return _thread_response(request, found, page=page)


def _thread_response(
    request: HtmxHttpRequest,
    found: Thread,
    *,
    page: ThreadPage | None = None,
    **forms,
) -> HttpResponse:
    """Render the thread page; a refused form (`forms`) comes back bound, with its error."""
    context = {
        "page": page or thread_page(found),
        "comment_form": CommentForm(),
        "revise_form": ReviseForm(auto_id="revise_%s"),
        "decide_form": DecideForm(auto_id="decide_%s"),
        **forms,
    }
    return render(request, "grading/thread.html", context)


@require_http_methods(["POST"])
@role_required(JUROR, CHAIR, ORGANIZER)
def thread_post(
    request: HtmxHttpRequest, code: str, criterion_id: int, action: str
) -> HttpResponse:
    found = access.thread(request.user, code, criterion_id, action=action)
    paper, criterion, own = found.paper, found.criterion, found.own

    # Typed text all three: refused, the page comes back with the bound form and the error
    # beside its field, not a redirect that would wipe what was typed.
    def act(data: dict) -> str:
        if action == "comment":
            services.comment_post(paper=paper, criterion=criterion, author=request.user, **data)
            return ""
        if action == "revise":
            services.mark_revise(assignment=own, criterion=criterion, **data)
            return "Your mark is revised."
        services.criterion_decide(paper=paper, criterion=criterion, chair=request.user, **data)
        return "Decision recorded."

    form_class = {"comment": CommentForm, "revise": ReviseForm, "decide": DecideForm}[action]
    auto_id = "id_%s" if action == "comment" else f"{action}_%s"
    return post_rerender(
        request,
        form_class(request.POST, auto_id=auto_id),
        act,
        reverse("grading:thread", args=[code, criterion.pk]),
        page=lambda form: _thread_response(request, found, **{f"{action}_form": form}),
    )


@require_POST
@role_required(CHAIR)
def finalize(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    problem = access.chair_problem(request.user, slug, number, act=True)

    def act() -> str:
        if request.POST.get("reopen"):
            services.problem_reopen(problem=problem, chair=request.user)
            return f"Problem {number} reopened."
        services.problem_finalize(problem=problem, chair=request.user)
        return f"Problem {number} finalized."

    return post_redirect(request, act, reverse("grading:sheet", args=[slug, number]))


@require_POST
@role_required(CHAIR)
def tolerance(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    problem = access.chair_problem(request.user, slug, number, act=True)

    # Typed text: refused, the sheet comes back with the bound form and the error beside it.
    def act(data: dict) -> str:
        services.problem_set_tolerance(
            problem=problem, tolerance=data["tolerance"], chair=request.user
        )
        return "Tolerance saved."

    return post_rerender(
        request,
        ToleranceForm(request.POST),
        act,
        reverse("grading:sheet", args=[slug, number]),
        page=lambda form: _sheet_response(request, problem, form),
    )


@require_GET
@chair_required
def chair_overview(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    page = chair_overview_page(access.chair_problem(request.user, slug, number, act=False))
    return render(request, "grading/chair_overview.html", {"page": page})


def _query(query: str) -> str:
    """Return a query string for a link: '?' and the query, or nothing."""
    return f"?{query}" if query else ""


def _panel(request: HtmxHttpRequest, panel: DecidePanel, form: DecideForm, **extra) -> HttpResponse:
    """Render the sheet's decision panel for one cell (htmx)."""
    filters = SheetFilters.from_query(request.GET)
    context = {
        "panel": panel,
        "form": form,
        "problem": panel.problem,
        "query": _query(filters.query()),
        "next_query": _query(filters.query(after=f"{panel.paper.code}:{panel.criterion.pk}")),
        **extra,
    }
    return render(request, "grading/sheet.html#panel", context)


@require_http_methods(["GET", "POST"])
@role_required(CHAIR)
def sheet_decide(
    request: HtmxHttpRequest, slug: str, number: int, code: str, criterion_id: int
) -> HttpResponse:
    """Open a cell of the sheet for a decision (GET) and decide it (POST) through the same
    service as the thread page; without htmx, the thread page and the sheet as before."""
    cell = access.chair_cell(request.user, slug, number, code, criterion_id)
    panel = decide_panel(cell.problem, cell.paper, criterion_id)
    if request.method == "GET":
        if not request.htmx:
            return redirect(panel.cell.url)
        return _panel(request, panel, DecideForm(auto_id=SHEET_FORM_IDS))
    # As on the thread page: a refused decision keeps what was typed, its error tied to
    # its field: in the panel (htmx), or on the thread page without htmx.

    def act(data: dict) -> str:
        services.criterion_decide(
            paper=panel.paper, criterion=panel.criterion, chair=request.user, **data
        )
        return f"Decision recorded: {code} {panel.criterion.code}."

    form = DecideForm(request.POST, auto_id=SHEET_FORM_IDS)
    if not request.htmx:
        query = _query(SheetFilters.from_query(request.GET).query())  # as it was sorted
        sheet_url = reverse("grading:sheet", args=[slug, number]) + query
        return post_rerender(
            request,
            form,
            act,
            f"{sheet_url}#{panel.cell.dom_id}",
            page=lambda form: _thread_response(
                request,
                access.thread(request.user, code, criterion_id, action="decide"),
                decide_form=form,
            ),
        )

    def decided(message: str) -> HttpResponse:
        # The cell as it is now, and the caption's count of open discrepancies under the
        # sheet's filters, which goes out of band with the row (without htmx the sheet
        # counts again).
        filters = SheetFilters.from_query(request.GET)
        now = decide_panel(cell.problem, cell.paper, criterion_id, filters=filters)
        return _panel(
            request,
            now,
            DecideForm(auto_id=SHEET_FORM_IDS),
            message=message,
            open_cells=now.open_cells,
        )

    return post_rerender(
        request, form, act, page=lambda form: _panel(request, panel, form), done=decided
    )


@require_GET
@role_required(CHAIR)
def sheet_next(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    """Open the next open discrepancy after the cell `after`, in the sheet's order."""
    problem = access.chair_problem(request.user, slug, number, act=True)
    filters = SheetFilters.from_query(request.GET)
    found = next_discrepancy(problem, filters, request.GET.get("after", ""))
    if found is None:
        message = "No open discrepancy left on this sheet."
        if request.htmx:
            context = {
                "panel": None,
                "problem": problem,
                "message": message,
                "query": _query(filters.query()),
                "next_query": _query(filters.query()),
            }
            return render(request, "grading/sheet.html#panel", context)
        messages.info(request, message)
        return redirect(reverse("grading:sheet", args=[slug, number]) + _query(filters.query()))
    cell = access.chair_cell(request.user, slug, number, *found)
    panel = decide_panel(cell.problem, cell.paper, cell.criterion_id)
    if not request.htmx:
        return redirect(panel.cell.url)
    return _panel(request, panel, DecideForm(auto_id=SHEET_FORM_IDS))
