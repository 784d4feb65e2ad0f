"""The organizer page for the review's inputs: automatic figures computed elsewhere, contestants.

Contestant data is organizer-only: chairs and jurors get 403 here.
"""

from __future__ import annotations

import io
from collections.abc import Callable

from django.contrib import messages
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from ioleval.errors import AppError
from ioleval.roles import ORGANIZER, role_required
from puzzles.selectors import competition_get
from puzzles.services import system_scores_import

from .. import services
from ..contestants import review_inputs_page
from ..errors import GradingError
from ..forms import ContestantsUploadForm, SystemScoresUploadForm

organizer_required = role_required(ORGANIZER)


@require_GET
@organizer_required
def review_inputs(request: HttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    context = {
        "competition": competition,
        "page": review_inputs_page(competition),
        "scores_form": SystemScoresUploadForm(),
        "contestants_form": ContestantsUploadForm(),
    }
    return render(request, "grading/review_inputs.html", context)


def _upload(
    request: HttpRequest, slug: str, form_class: type, importer: Callable[..., object]
) -> HttpResponse:
    """Import the uploaded file; report its outcome or its error on the inputs page."""
    competition = competition_get(slug)
    form = form_class(request.POST, request.FILES)
    try:
        if not form.is_valid():
            raise GradingError(form.errors.as_text(), field="file")
        upload: UploadedFile = form.cleaned_data["file"]
        stream = io.TextIOWrapper(upload.file, encoding="utf-8-sig", newline="")
        result = importer(competition=competition, stream=stream, file=upload.name)
    except AppError as exc:
        messages.error(request, exc.for_page)
    else:
        messages.success(request, "; ".join(result.lines()))
    return redirect("grading:review_inputs", slug=slug)


@require_POST
@organizer_required
def system_scores_upload(request: HttpRequest, slug: str) -> HttpResponse:
    return _upload(request, slug, SystemScoresUploadForm, system_scores_import)


@require_POST
@organizer_required
def contestants_upload(request: HttpRequest, slug: str) -> HttpResponse:
    return _upload(request, slug, ContestantsUploadForm, services.contestants_import)
