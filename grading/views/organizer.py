"""Organizer pages of the jury: selection, groups, assignment, rubrics, progress, totals, marks."""

from __future__ import annotations

import json
from collections.abc import Callable

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ioleval.errors import AppError
from ioleval.http import (
    HtmxHttpRequest,
    Outcome,
    attachment,
    form_data,
    post_redirect,
    post_rerender,
)
from ioleval.roles import organizer_required
from ioleval.tables import table_response
from ioleval.uploads import upload_stream
from puzzles.selectors import competition_get

from .. import access, services
from ..errors import GradingError
from ..forms import (
    AssignForm,
    CriterionFormSet,
    GroupForm,
    MarksUploadForm,
    RubricConfirmForm,
    RubricForm,
    RubricUploadForm,
    SelectionForm,
    TagsConfigForm,
)
from ..rubric_uploads import (
    RubricUpload,
    rubric_edit_previewed,
    rubric_edit_token,
    rubric_upload_confirmed,
    rubric_upload_fields,
    rubric_upload_read,
)
from ..scale import scale_moves
from ..selectors import (
    group_candidates,
    jury_overview_page,
    jury_scale,
    papers_recognisable,
    rubric_criteria,
    rubrics_scale_lines,
    totals_page,
)

# The group and assign forms both have "allow_seen": distinct ids.
ASSIGN_FORM_IDS = "id_assign_%s"


@require_GET
@organizer_required
def jury_overview(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return _overview(request, competition_get(slug))


def _overview(
    request: HtmxHttpRequest,
    competition,
    *,
    tags_form: TagsConfigForm | None = None,
    group_form: GroupForm | None = None,
    assign_form: AssignForm | None = None,
) -> HttpResponse:
    """Render the jury page; a refused form with typed text comes back bound."""
    page = jury_overview_page(competition)
    context = {
        "competition": competition,
        "page": page,
        "selection_form": SelectionForm(
            systems=page.systems, initial={"systems": sorted(page.selected)}
        ),
        "assign_form": assign_form or AssignForm(auto_id=ASSIGN_FORM_IDS),
        "group_form": group_form or GroupForm(candidates=group_candidates(competition)),
        # Two forms of the page have a field "file": distinct ids for their labels.
        "rubric_form": RubricUploadForm(auto_id="id_rubric_%s"),
        "marks_form": MarksUploadForm(auto_id="id_marks_%s"),
        "tags_form": tags_form or TagsConfigForm(initial={"names": "\n".join(page.tags)}),
    }
    return render(request, "grading/jury_overview.html", context)


def _back(request: HtmxHttpRequest, slug: str, action: Callable[[], Outcome]) -> HttpResponse:
    """Run an organizer action; report its outcome or its error on the jury page."""
    return post_redirect(request, action, reverse("grading:jury", args=[slug]))


@require_POST
@organizer_required
def select_systems(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    form = SelectionForm(request.POST, systems=competition.systems.all())

    def action() -> str:
        names = form_data(form)["systems"]
        papers = services.papers_create(competition=competition, system_names=names)
        for recognisable in papers_recognisable(competition, names):
            messages.warning(request, recognisable.text)
        return f"{len(papers)} papers created"

    return _back(request, slug, action)


@require_POST
@organizer_required
def set_group(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)

    # Typed text: refused, the jury page comes back with the bound form and the error.
    def action(data: dict) -> str:
        problem = competition.problems.filter(number=data["problem"]).first()
        if problem is None:
            raise GradingError(f"no problem {data['problem']}", field="problem")
        names = data["jurors"]
        if "remove" in request.POST:
            gone = services.problem_jurors_remove(problem=problem, usernames=names)
            return f"problem {problem.number}: {', '.join(names)} out of its group ({gone} unmarked papers unassigned)"
        services.problem_jurors_set(
            problem=problem,
            usernames=names,
            allow_seen=data["allow_seen"],
            confirmed_by=request.user,
        )
        return f"problem {problem.number}: jurors {', '.join(names)} in its group"

    return post_rerender(
        request,
        GroupForm(request.POST, candidates=group_candidates(competition)),
        action,
        reverse("grading:jury", args=[slug]),
        page=lambda form: _overview(request, competition, group_form=form),
    )


@require_POST
@organizer_required
def assign(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)

    # Typed text: refused, the jury page comes back with the bound form and the error.
    def action(data: dict) -> list[str]:
        return services.jurors_assign(
            competition=competition,
            per_paper=data["per_paper"],
            allow_seen=data["allow_seen"],
            confirmed_by=request.user,
        ).lines()

    return post_rerender(
        request,
        AssignForm(request.POST, auto_id=ASSIGN_FORM_IDS),
        action,
        reverse("grading:jury", args=[slug]),
        page=lambda form: _overview(request, competition, assign_form=form),
    )


@require_http_methods(["GET", "POST"])
@organizer_required
def rubric_edit(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    """Edit a problem's criteria. A change that touches marks is applied only as previewed:
    saving it first shows its effect with a signed token of the rows and that effect, and
    applying checks both (a mark saved since that changes the effect refuses it)."""
    problem = access.problem_get(slug, number)
    tasks = list(problem.tasks.order_by("number").values_list("external_id", flat=True))
    current = services.rubrics_export(problem.competition)
    existing = next((p["criteria"] for p in current["problems"] if p["problem"] == number), [])
    initial = [{**c, "items": ",".join(map(str, c.get("items", [])))} for c in existing]
    form = RubricForm(request.POST or None)
    formset = CriterionFormSet(
        request.POST or None, initial=initial, form_kwargs={"tasks": tasks}, prefix="criteria"
    )
    change, specs = None, None
    scale_lines: list[str] = []
    if request.method == "POST" and form.is_valid() and formset.is_valid():
        criteria = [spec for row in formset.forms if (spec := row.as_spec())]
        new_version = form.cleaned_data["new_version"]
        try:
            specs = services.rubric_specs(problem=problem, criteria=criteria, where="rubric")
            if request.POST.get("apply"):
                effect = rubric_edit_previewed(
                    form.cleaned_data["token"], specs, problem_id=problem.pk
                )
                if effect is None:  # not previewed: apply at once only what touches no mark
                    change = services.rubric_change_preview(problem=problem, specs=specs)
                    if not change.needs_new_version:
                        effect = services.rubrics_effect_digest([change])
                if effect is not None:
                    before = jury_scale(problem.competition)
                    rubric, change = services.rubric_replace(
                        problem=problem,
                        specs=specs,
                        new_version=new_version,
                        user=request.user,
                        expected_effect=effect,
                    )
                    moves = scale_moves(before, jury_scale(problem.competition))
                    messages.success(
                        request,
                        "; ".join(
                            [f"Rubric v{rubric.version} saved", *_effect_lines(change), *moves]
                        ),
                    )
                    return redirect("grading:rubric", slug=slug, number=number)
                messages.info(
                    request, "Marks exist: nothing is saved yet. Check the effect, then apply it."
                )
            else:
                change = services.rubric_change_preview(problem=problem, specs=specs)
        except services.RubricEffectChanged:
            messages.warning(
                request, "The marks changed since the preview: check the effect again."
            )
            change = services.rubric_change_preview(problem=problem, specs=specs)
        except AppError as exc:
            form.add_error(None, exc.for_page)
    token = ""
    if change is not None and specs is not None:
        effect = services.rubrics_effect_digest([change])
        token = rubric_edit_token(specs, problem_id=problem.pk, effect=effect)
        scale_lines = rubrics_scale_lines(problem.competition, [change])
    context = {
        "problem": problem,
        "form": form,
        "formset": formset,
        "change": change,
        "token": token,
        "scale_lines": scale_lines,
        "criteria": rubric_criteria(problem),
        "rubric": services.rubric_current(problem),
    }
    return render(request, "grading/rubric.html", context)


@require_GET
@organizer_required
def rubrics_json(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    data = json.dumps(services.rubrics_export(competition), indent=2, ensure_ascii=False)
    return attachment(data, f"{competition.slug}-rubrics.json", "application/json")


# A rubric file is a few kilobytes; its text travels back in the confirmation form.
@require_POST
@organizer_required
def rubrics_upload(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Import a rubrics file: when it touches marks, preview the effect and ask to confirm."""
    competition = competition_get(slug)
    confirming = "token" in request.POST
    form = (RubricConfirmForm if confirming else RubricUploadForm)(request.POST, request.FILES)
    try:
        data = form_data(form)
        if confirming:
            upload = rubric_upload_confirmed(**data)
        else:
            upload = rubric_upload_read(data["file"], new_version=data["new_version"])
            changes = services.rubrics_preview(
                upload.text,
                competition=competition,
                new_version=upload.new_version,
                file=upload.name,
            )
            if any(change.needs_new_version for change in changes):
                return _rubrics_preview_page(request, competition, upload, changes)
            upload.effect = services.rubrics_effect_digest(changes)
        before = jury_scale(competition)
        results = services.rubrics_import(
            upload.text,
            competition=competition,
            new_version=upload.new_version,
            user=request.user,
            file=upload.name,
            expected_effect=upload.effect,
        )
    except services.RubricEffectChanged:
        messages.warning(request, "The marks changed since the preview: check the effect again.")
        return _rubrics_preview_again(request, competition, upload)
    except AppError as exc:
        messages.error(request, exc.for_page)
    else:
        moves = scale_moves(before, jury_scale(competition))
        messages.success(request, "; ".join([*_rubrics_applied(results), *moves]))
    return redirect("grading:jury", slug=slug)


def _rubrics_preview_page(
    request: HtmxHttpRequest, competition, upload: RubricUpload, changes: list
) -> HttpResponse:
    effect = services.rubrics_effect_digest(changes)
    form = RubricConfirmForm(initial=rubric_upload_fields(upload, effect=effect))
    context = {
        "competition": competition,
        "name": upload.name,
        "form": form,
        "rows": [
            {"change": c, "after": c.version_after(new_version=upload.new_version)} for c in changes
        ],
        "scale_lines": rubrics_scale_lines(competition, changes),
    }
    return render(request, "grading/rubric_upload.html", context)


def _rubrics_preview_again(request: HtmxHttpRequest, competition, upload: RubricUpload):
    try:
        changes = services.rubrics_preview(
            upload.text, competition=competition, new_version=upload.new_version, file=upload.name
        )
    except AppError as exc:
        messages.error(request, exc.for_page)
        return redirect("grading:jury", slug=competition.slug)
    return _rubrics_preview_page(request, competition, upload, changes)


def _rubrics_applied(results) -> list[str]:
    lines = []
    for rubric, change in results:
        lines += [f"problem {rubric.problem.number}: rubric v{rubric.version}"]
        lines += _effect_lines(change)
    return lines


def _effect_lines(change) -> list[str]:
    """Return what a rubric change did to existing marks, if there were any."""
    return change.lines()[1:] if change.needs_new_version else []


@require_POST
@organizer_required
def marks_upload(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    form = MarksUploadForm(request.POST, request.FILES)

    def action() -> list[str]:
        data = form_data(form)
        upload = data["file"]
        return services.marks_import(
            competition=competition,
            stream=upload_stream(upload),
            file=upload.name,
            final=data["final"],
        ).lines()

    return _back(request, slug, action)


@require_GET
@organizer_required
def marks_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    competition = competition_get(slug)
    # Organizers are not blind by role; the record keeps it should the role be taken away.
    services.pairs_seen_record(
        user=request.user, competition=competition, source=f"the marks export ({fmt})"
    )
    header, rows = services.marks_rows(competition)
    name = f"{competition.slug}-marks"
    return table_response(header, rows, fmt, name=name, title="marks", freeze_panes=None)


@require_GET
@organizer_required
def totals(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    page = totals_page(competition, provisional=request.GET.get("provisional") == "1")
    return render(request, "grading/totals.html", {"page": page, "competition": competition})


@require_POST
@organizer_required
def tags_config(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)

    def action(data: dict) -> str:
        tags = services.tags_configure(competition=competition, names=data["names"].splitlines())
        return f"{len(tags)} observation tags"

    return post_rerender(
        request,
        TagsConfigForm(request.POST),
        action,
        reverse("grading:jury", args=[slug]),
        page=lambda form: _overview(request, competition, tags_form=form),
    )
