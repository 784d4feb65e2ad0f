"""The organizer page for the review's inputs: automatic figures computed elsewhere, contestants.

Contestant data is organizer-only: chairs and jurors get 403 here.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.files.uploadedfile import UploadedFile
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from ioleval.http import HtmxHttpRequest, form_data, post_redirect
from ioleval.roles import organizer_required
from ioleval.uploads import upload_stream
from puzzles.selectors import competition_get
from puzzles.services import system_scores_import

from .. import services
from ..forms import ContestantsUploadForm, SystemScoresUploadForm
from ..selectors import review_inputs_page


@require_GET
@organizer_required
def review_inputs(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    competition = competition_get(slug)
    context = {
        "competition": competition,
        "page": review_inputs_page(competition),
        "scores_form": SystemScoresUploadForm(),
        "contestants_form": ContestantsUploadForm(),
    }
    return render(request, "grading/review_inputs.html", context)


def _upload(
    request: HtmxHttpRequest, slug: str, form_class: type, importer: Callable[..., object]
) -> HttpResponse:
    """Import the uploaded file; report its outcome or its error on the inputs page."""
    competition = competition_get(slug)

    def act() -> list[str]:
        upload: UploadedFile = form_data(form_class(request.POST, request.FILES))["file"]
        return importer(
            competition=competition, stream=upload_stream(upload), file=upload.name
        ).lines()

    return post_redirect(request, act, reverse("grading:review_inputs", args=[slug]))


@require_POST
@organizer_required
def system_scores_upload(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return _upload(request, slug, SystemScoresUploadForm, system_scores_import)


@require_POST
@organizer_required
def contestants_upload(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return _upload(request, slug, ContestantsUploadForm, services.contestants_import)
