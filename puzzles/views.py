"""Organizer pages: competitions, imports, leaderboard, answer keys."""

from __future__ import annotations

from celery.result import AsyncResult
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from ioleval.celery import app as celery_app
from ioleval.http import HtmxHttpRequest, post_redirect, post_rerender
from ioleval.progress import (
    DONE,
    FAILED,
    RUNNING,
    UNKNOWN,
    UNREACHABLE,
    Progress,
    job_start,
    poll_response,
    task_progress,
)
from ioleval.roles import organizer_required
from ioleval.tables import table_response
from ioleval.uploads import upload_stream

from . import jury, services
from .errors import ImportFailure
from .exports import board_table
from .forms import (
    AmendmentForm,
    CompetitionNamesForm,
    IolaiImportForm,
    LeaderboardForm,
    OutputsImportForm,
    ProposalRejectForm,
    ScaleForm,
    ThresholdsForm,
)
from .jury import jury_still_grading
from .leaderboard import board_sort
from .models import AnswerAmendment, Competition, Task
from .selectors import (
    answer_key_tasks,
    competition_get,
    competition_tasks,
    extraction_effect,
    leaderboard,
)
from .tasks import competition_rescore_task


@require_GET
@organizer_required
def competition_list(request: HtmxHttpRequest) -> HttpResponse:
    competitions = Competition.objects.all()
    return render(request, "puzzles/competition_list.html", {"competitions": competitions})


def _competition_page(
    request: HtmxHttpRequest,
    competition: Competition,
    *,
    thresholds_form: ThresholdsForm | None = None,
    scale_form: ScaleForm | None = None,
    names_form: CompetitionNamesForm | None = None,
) -> HttpResponse:
    """Render the competition page; a refused form comes back bound, with its errors."""
    context = {
        "competition": competition,
        "tasks": competition_tasks(competition),
        "systems": competition.systems.order_by("tier", "name"),
        "names_form": names_form
        or CompetitionNamesForm(
            initial={"name": competition.name}, problems=list(competition.problems.all())
        ),
        "scale": jury.jury_scale(competition),
        "scale_form": scale_form or ScaleForm(initial={"points": competition.jury_scale}),
        "thresholds_form": thresholds_form
        or ThresholdsForm(
            initial={
                "gold": competition.gold_threshold,
                "silver": competition.silver_threshold,
                "bronze": competition.bronze_threshold,
                "honourable_mention": competition.honourable_mention_threshold,
            }
        ),
    }
    return render(request, "puzzles/competition_detail.html", context)


@require_GET
@organizer_required
def competition_detail(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return _competition_page(request, competition_get(slug))


@require_POST
@organizer_required
def competition_thresholds(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Set the medal thresholds on the jury's scale (the jury checks them against it)."""
    competition = competition_get(slug)

    def act(data: dict) -> str:
        scale = jury.thresholds_set(competition=competition, **data)
        return f"Medal thresholds saved: {scale.thresholds_text} (out of {scale.text})."

    return post_rerender(
        request,
        ThresholdsForm(request.POST),
        act,
        reverse("puzzles:competition", args=[slug]),
        page=lambda form: _competition_page(request, competition, thresholds_form=form),
    )


@require_POST
@organizer_required
def competition_scale(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Set the jury's scale in points, or let it follow the sum of the rubrics again."""
    competition = competition_get(slug)
    form = ScaleForm(request.POST)

    def act(data: dict) -> str:
        said = "; ".join(jury.scale_set(competition=competition, points=form.scale_points()))
        return f"{said[:1].upper()}{said[1:]}."

    return post_rerender(
        request,
        form,
        act,
        reverse("puzzles:competition", args=[slug]),
        page=lambda form: _competition_page(request, competition, scale_form=form),
    )


@require_POST
@organizer_required
def competition_names(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Save the competition's name and its problems' titles and language names."""
    competition = competition_get(slug)
    form = CompetitionNamesForm(request.POST, problems=list(competition.problems.all()))

    def act(data: dict) -> str:
        changed = services.competition_names_save(competition=competition, **form.names())
        return f"Saved: {', '.join(changed)}." if changed else "No name changed."

    return post_rerender(
        request,
        form,
        act,
        reverse("puzzles:competition", args=[slug]),
        page=lambda form: _competition_page(request, competition, names_form=form),
    )


def _board_context(request: HtmxHttpRequest, competition: Competition) -> dict:
    options = LeaderboardForm(request.GET).cleaned_or_default()
    tasks, rows = leaderboard(
        competition,
        metric=options["metric"],
        stage=options["stage"],
        rank_by=options["split"],
        tiers=options["tier"],
    )
    rows = board_sort(rows, sort=options["sort"], group=bool(options["group"]))
    return {"options": options, "tasks": tasks, "rows": rows, "competition": competition}


@require_GET
@organizer_required
def leaderboard_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    context = _board_context(request, competition)
    context["form"] = LeaderboardForm(request.GET or None)
    context["extraction"] = extraction_effect(competition, metric=context["options"]["metric"])
    template = "puzzles/leaderboard.html"
    if request.htmx:
        template += "#board"
    return render(request, template, context)


@require_GET
@organizer_required
def leaderboard_export(request: HtmxHttpRequest, slug: str, fmt: str) -> HttpResponse:
    competition = competition_get(slug)
    context = _board_context(request, competition)
    task_ids = [t.external_id for t in context["tasks"]]
    o = context["options"]
    stem = f"{competition.slug}-leaderboard-{o['metric']}-{o['stage']}-{o['split']}"
    header, rows = board_table(context["rows"], task_ids)
    return table_response(header, rows, fmt, name=stem, title="leaderboard")


@require_POST
@organizer_required
def competition_rescore(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Start rescoring every output in the background; the page polls its state."""
    competition = competition_get(slug)
    return job_start(
        request,
        lambda: competition_rescore_task.delay(competition.pk).id,
        follow=lambda task_id: _rescore_status(request, competition, task_id),
        refused=reverse("puzzles:competition", args=[slug]),
    )


@require_GET
@organizer_required
def competition_rescore_status(request: HtmxHttpRequest, slug: str, task_id: str) -> HttpResponse:
    competition = competition_get(slug)
    return _rescore_status(request, competition, task_id)


def _rescore_status(
    request: HtmxHttpRequest, competition: Competition, task_id: str
) -> HttpResponse:
    # Without a broker the task has run in-process already and its result is kept in this
    # process (CELERY_TASK_STORE_EAGER_RESULT); an id it does not know is no longer known.
    progress = task_progress(AsyncResult(task_id, app=celery_app))
    if celery_app.conf.task_always_eager and progress.state == RUNNING:
        progress = Progress(UNKNOWN)
    context = {
        "competition": competition,
        "progress": progress,
        "poll_id": "rescore",
        "poll_url": reverse("puzzles:rescore_status", args=[competition.slug, task_id]),
        "body": "puzzles/partials/_rescore_status.html",
    }
    if request.htmx:
        return poll_response(request, "puzzles/competition_detail.html", context)
    if progress.state == DONE:
        messages.success(request, f"Rescored {progress.done} outputs.")
    elif progress.state == FAILED:
        messages.error(request, "Rescoring failed.")
    elif progress.state == UNKNOWN:
        messages.info(request, "No record of that rescoring: it ended before a restart.")
    elif progress.state == UNREACHABLE:
        messages.warning(
            request, "The task queue cannot be reached: the rescoring's state is unknown for now."
        )
    else:
        messages.info(request, "Rescoring runs in the background; reload to see it finish.")
    return redirect("puzzles:competition", slug=competition.slug)


@require_POST
@organizer_required
def competition_publish(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Publish or withdraw the public board."""
    competition = competition_get(slug)
    competition.public_board = request.POST.get("publish") == "1"
    competition.save(update_fields=["public_board"])
    messages.success(
        request,
        "Public board published." if competition.public_board else "Public board withdrawn.",
    )
    # Jurors see each answer's exact-match flag: with the board public they could match a
    # paper to a system by its automatic score while grading.
    if competition.public_board and jury_still_grading(competition):
        messages.warning(
            request,
            "The jury is still grading: jurors could recognise a system on the public board"
            " by its automatic score. Withdraw the board until every problem is finalized.",
        )
    return redirect("puzzles:competition", slug=slug)


@require_GET
def public_board(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Show the public-split figures only, to anyone."""
    competition = competition_get(slug)
    if not competition.public_board:
        raise Http404("this competition's board is not published")
    _, rows = leaderboard(competition, rank_by="public", oracles=False)
    return render(request, "puzzles/public_board.html", {"competition": competition, "rows": rows})


@require_http_methods(["GET", "POST"])
@organizer_required
def import_iolai(request: HtmxHttpRequest) -> HttpResponse:
    """Import an IOL-AI layout zip; refused, the form again with the slug and name typed."""

    def page(form: IolaiImportForm) -> HttpResponse:
        return render(request, "puzzles/import_iolai.html", {"form": form})

    if request.method == "GET":
        return page(IolaiImportForm())
    form = IolaiImportForm(request.POST, request.FILES)

    def done(summary: services.ImportSummary) -> HttpResponse:
        messages.success(request, f"Imported: {summary}")
        return redirect("puzzles:competition", slug=form.cleaned_data["slug"])

    return post_rerender(request, form, _import_archive, page=page, done=done)


def _import_archive(data: dict) -> services.ImportSummary:
    upload = data["archive"]
    return services.competition_import_iolai_archive(
        archive=upload, archive_name=upload.name, slug=data["slug"], name=data.get("name") or ""
    )


@require_http_methods(["GET", "POST"])
@organizer_required
def import_outputs(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Import one system's outputs; refused, the form again with the names typed."""
    competition = competition_get(slug)

    def page(form: OutputsImportForm) -> HttpResponse:
        context = {"form": form, "competition": competition}
        return render(request, "puzzles/import_outputs.html", context)

    if request.method == "GET":
        return page(OutputsImportForm())

    def act(data: dict) -> str:
        upload = data["file"]
        importer = services.outputs_import_jsonl if data["raw"] else services.outputs_import_csv
        summary = importer(
            competition=competition,
            stream=upload_stream(upload),
            system_name=data["system"],
            file=upload.name,
            team=data["team"],
            tier=data["tier"] or None,
        )
        return f"Imported: {summary}"

    form = OutputsImportForm(request.POST, request.FILES)
    to = reverse("puzzles:leaderboard", args=[slug])
    return post_rerender(request, form, act, to, page=page)


def _answer_key_page(
    request: HtmxHttpRequest,
    competition,
    *,
    amend_form: AmendmentForm | None = None,
    report=None,
    reject_form: ProposalRejectForm | None = None,
    reject_id: int | None = None,
) -> HttpResponse:
    """Render the answer key; a refused amendment or rejection comes back bound (what was
    typed, the error beside it): the rejection in the row of proposal `reject_id`."""
    context = {
        "competition": competition,
        "tasks": answer_key_tasks(competition),
        "report": report,
        "amend_form": amend_form,
        "amendments": AnswerAmendment.objects.filter(
            task__problem__competition=competition
        ).select_related("task", "created_by")[:200],
        "proposals": jury.proposals_pending(competition),
        "reject_form": reject_form,
        "reject_id": reject_id,
    }
    return render(request, "puzzles/answer_key.html", context)


@require_http_methods(["GET", "POST"])
@organizer_required
def answer_key(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The key, item by item, with a form per item to amend it. An amendment shows its effect
    on this page (the systems whose score or rank moved); refused, the page comes back
    (422) with the alternative as typed in its item's form and the error beside it."""
    competition = competition_get(slug)

    def page(form: AmendmentForm | None = None, report=None) -> HttpResponse:
        return _answer_key_page(request, competition, amend_form=form, report=report)

    if request.method == "GET":
        return page()

    def amend(data: dict):
        task = Task.objects.filter(
            problem__competition=competition, external_id=data["task"]
        ).first()
        if task is None:
            raise ImportFailure(f"unknown task {data['task']!r}", field="task")
        return services.answer_key_amend(
            task=task,
            item_number=data["item_number"],
            add=data["text"] if data["action"] == "add" else None,
            remove=data["text"] if data["action"] == "remove" else None,
            user=request.user,
        )

    def amended(report) -> HttpResponse:
        messages.success(request, report.lines()[0])
        return page(report=report)

    return post_rerender(request, AmendmentForm(request.POST), amend, page=page, done=amended)


@require_POST
@organizer_required
def proposal_accept(request: HtmxHttpRequest, slug: str, proposal_id: int) -> HttpResponse:
    """Accept a juror's proposed alternative: the answer-key amendment, which rescores."""
    competition = competition_get(slug)

    def act() -> list[str]:
        return jury.proposal_accept(
            competition=competition, proposal_id=proposal_id, user=request.user
        )

    to = reverse("puzzles:answer_key", args=[slug])
    return post_redirect(request, act, to, each_line=True)


@require_POST
@organizer_required
def proposal_reject(request: HtmxHttpRequest, slug: str, proposal_id: int) -> HttpResponse:
    """Reject a juror's proposed alternative with a reason the juror reads."""
    competition = competition_get(slug)

    # Typed text: refused, the key comes back with the reason as typed, in its proposal's row.
    def act(data: dict) -> str:
        return jury.proposal_reject(
            competition=competition,
            proposal_id=proposal_id,
            user=request.user,
            reason=data["reason"],
        )

    def page(form: ProposalRejectForm) -> HttpResponse:
        return _answer_key_page(request, competition, reject_form=form, reject_id=proposal_id)

    form = ProposalRejectForm(request.POST, auto_id=f"reject-{proposal_id}-%s")
    to = reverse("puzzles:answer_key", args=[slug])
    return post_rerender(request, form, act, to, page=page)
