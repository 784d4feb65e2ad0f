"""Organizer pages of the jury: selection, groups, assignment, rubrics, progress, totals, marks."""

from __future__ import annotations

import io
import json

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ioleval.roles import ORGANIZER, role_required
from puzzles.errors import ImportFailure
from puzzles.models import Problem
from puzzles.selectors import competition_get

from .. import services
from ..errors import GradingError
from ..forms import (
    AssignForm,
    CriterionFormSet,
    GroupForm,
    MarksUploadForm,
    RubricForm,
    RubricUploadForm,
    SelectionForm,
    TagsConfigForm,
)
from ..models import Paper, ProblemJuror
from ..selectors import comparison_sheet, final_totals, rubric_criteria

organizer_required = role_required(ORGANIZER)


@require_GET
@organizer_required
def jury_overview(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    systems = list(competition.systems.order_by("tier", "name"))
    selected = set(
        Paper.objects.filter(problem__competition=competition).values_list(
            "system__name", flat=True
        )
    )
    problems = list(
        competition.problems.order_by("number").annotate(
            n_papers=Count("papers", distinct=True),
            n_assignments=Count("papers__assignments", distinct=True),
            n_submitted=Count(
                "papers__assignments",
                filter=Q(papers__assignments__submitted_at__isnull=False),
                distinct=True,
            ),
        )
    )
    groups = {}
    for member in ProblemJuror.objects.filter(problem__competition=competition).select_related(
        "juror", "problem"
    ):
        groups.setdefault(member.problem.number, []).append(member.juror.username)
    progress = []
    for problem in problems:
        criteria, rows = comparison_sheet(problem)
        progress.append(
            {
                "problem": problem,
                "criteria": len(criteria),
                "jurors": sorted(groups.get(problem.number, [])),
                "discrepancies": sum(r.discrepancies for r in rows),
                "final": sum(r.final_total is not None for r in rows),
                "finalized": getattr(getattr(problem, "jury", None), "finalized_at", None),
            }
        )
    context = {
        "competition": competition,
        "selection_form": SelectionForm(systems=systems, initial={"systems": sorted(selected)}),
        "selected": selected,
        "progress": progress,
        "assign_form": AssignForm(),
        "group_form": GroupForm(),
        "rubric_form": RubricUploadForm(),
        "marks_form": MarksUploadForm(),
        "tags_form": TagsConfigForm(
            initial={"names": "\n".join(competition.tags.values_list("name", flat=True))}
        ),
    }
    return render(request, "grading/jury_overview.html", context)


def _done(request: HttpRequest, slug: str, lines: list[str] | str) -> HttpResponse:
    messages.success(request, "; ".join(lines) if isinstance(lines, list) else lines)
    return redirect("grading:jury", slug=slug)


@require_POST
@organizer_required
def select_systems(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    form = SelectionForm(request.POST, systems=competition.systems.all())
    if not form.is_valid():
        messages.error(request, form.errors.as_text())
        return redirect("grading:jury", slug=slug)
    try:
        papers = services.papers_create(
            competition=competition, system_names=form.cleaned_data["systems"]
        )
    except ImportFailure as exc:
        messages.error(request, exc.message)
        return redirect("grading:jury", slug=slug)
    return _done(request, slug, f"{len(papers)} papers created")


@require_POST
@organizer_required
def set_group(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    form = GroupForm(request.POST)
    try:
        if not form.is_valid():
            raise GradingError(form.errors.as_text(), field="jurors")
        problem = competition.problems.filter(number=form.cleaned_data["problem"]).first()
        if problem is None:
            raise GradingError(f"no problem {form.cleaned_data['problem']}", field="problem")
        names = [n.strip() for n in form.cleaned_data["jurors"].split(",") if n.strip()]
        services.problem_jurors_set(problem=problem, usernames=names)
    except ImportFailure as exc:
        messages.error(request, exc.message)
        return redirect("grading:jury", slug=slug)
    return _done(request, slug, f"problem {problem.number}: jurors {', '.join(names)} in its group")


@require_POST
@organizer_required
def assign(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    form = AssignForm(request.POST)
    if not form.is_valid():
        messages.error(request, form.errors.as_text())
        return redirect("grading:jury", slug=slug)
    try:
        report = services.jurors_assign(
            competition=competition, per_paper=form.cleaned_data["per_paper"]
        )
    except ImportFailure as exc:
        messages.error(request, exc.message)
        return redirect("grading:jury", slug=slug)
    return _done(request, slug, report.lines())


@require_http_methods(["GET", "POST"])
@organizer_required
def rubric_edit(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    problem = get_object_or_404(
        Problem.objects.select_related("competition"), competition__slug=slug, number=number
    )
    tasks = list(problem.tasks.order_by("number").values_list("external_id", flat=True))
    current = services.rubrics_export(problem.competition)
    existing = next((p["criteria"] for p in current["problems"] if p["problem"] == number), [])
    initial = [{**c, "items": ",".join(map(str, c.get("items", [])))} for c in existing]
    form = RubricForm(request.POST or None)
    formset = CriterionFormSet(
        request.POST or None, initial=initial, form_kwargs={"tasks": tasks}, prefix="criteria"
    )
    change = None
    if request.method == "POST" and form.is_valid() and formset.is_valid():
        criteria = [spec for row in formset.forms if (spec := row.as_spec())]
        document = json.dumps({"problem": number, "criteria": criteria})
        try:
            specs = services.rubrics_read(document, competition=problem.competition, file="rubric")
            specs = specs[problem]
            if request.POST.get("apply"):
                rubric, change = services.rubric_replace(
                    problem=problem,
                    specs=specs,
                    new_version=form.cleaned_data["new_version"],
                    user=request.user,
                )
                messages.success(request, f"Rubric v{rubric.version} saved.")
                return redirect("grading:rubric", slug=slug, number=number)
            change = services.rubric_change_preview(problem=problem, specs=specs)
        except ImportFailure as exc:
            form.add_error(None, str(exc))
    context = {
        "problem": problem,
        "form": form,
        "formset": formset,
        "change": change,
        "criteria": rubric_criteria(problem),
        "rubric": services.rubric_current(problem),
    }
    return render(request, "grading/rubric.html", context)


@require_GET
@organizer_required
def rubrics_json(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    response = JsonResponse(
        services.rubrics_export(competition), json_dumps_params={"indent": 2, "ensure_ascii": False}
    )
    response["Content-Disposition"] = f'attachment; filename="{competition.slug}-rubrics.json"'
    return response


@require_POST
@organizer_required
def rubrics_upload(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    form = RubricUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, form.errors.as_text())
        return redirect("grading:jury", slug=slug)
    upload = form.cleaned_data["file"]
    try:
        text = upload.read().decode("utf-8-sig")
        results = services.rubrics_import(
            text,
            competition=competition,
            new_version=form.cleaned_data["new_version"],
            user=request.user,
            file=upload.name,
        )
    except UnicodeDecodeError:
        messages.error(request, f"{upload.name}: not UTF-8 text")
        return redirect("grading:jury", slug=slug)
    except ImportFailure as exc:
        messages.error(request, str(exc))
        return redirect("grading:jury", slug=slug)
    return _done(
        request, slug, [f"problem {r.problem.number}: rubric v{r.version}" for r, _ in results]
    )


@require_POST
@organizer_required
def marks_upload(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    form = MarksUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, form.errors.as_text())
        return redirect("grading:jury", slug=slug)
    upload = form.cleaned_data["file"]
    try:
        result = services.marks_import(
            competition=competition,
            stream=io.TextIOWrapper(upload.file, encoding="utf-8-sig", newline=""),
            file=upload.name,
            final=form.cleaned_data["final"],
        )
    except ImportFailure as exc:
        messages.error(request, str(exc))
        return redirect("grading:jury", slug=slug)
    return _done(request, slug, result.lines())


@require_GET
@organizer_required
def marks_export(request: HttpRequest, slug: str, fmt: str) -> HttpResponse:
    competition = competition_get(slug)
    if fmt == "xlsx":
        response = HttpResponse(
            services.marks_xlsx(competition),
            content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )
    elif fmt == "csv":
        response = HttpResponse(services.marks_csv(competition), content_type="text/csv")
    else:
        return HttpResponse(status=404)
    response["Content-Disposition"] = f'attachment; filename="{competition.slug}-marks.{fmt}"'
    return response


@require_GET
@organizer_required
def totals(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    show_all = request.GET.get("provisional") == "1"
    context = {
        "competition": competition,
        "problems": list(competition.problems.order_by("number")),
        "totals": final_totals(competition, finalized_only=not show_all),
        "provisional": show_all,
    }
    return render(request, "grading/totals.html", context)


@require_POST
@organizer_required
def tags_config(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    form = TagsConfigForm(request.POST)
    try:
        if not form.is_valid():
            raise GradingError(form.errors.as_text(), field="tags")
        tags = services.tags_configure(
            competition=competition, names=form.cleaned_data["names"].splitlines()
        )
    except ImportFailure as exc:
        messages.error(request, exc.message)
        return redirect("grading:jury", slug=slug)
    return _done(request, slug, f"{len(tags)} observation tags")
