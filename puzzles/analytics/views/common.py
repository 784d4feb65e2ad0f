"""What every analytics page does alike: answer an SVG chart, export a table as CSV or
XLSX, and take a CSV upload that replaces what the page shows."""

from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.http import HttpResponse

from ioleval.http import HtmxHttpRequest, form_data, post_redirect
from ioleval.tables import table_response
from ioleval.uploads import upload_stream

__all__ = ["csv_upload", "svg_response", "table_response"]

SVG = "image/svg+xml"


def svg_response(svg: str) -> HttpResponse:
    """A chart, never cached by the browser (the figures behind it change on import)."""
    response = HttpResponse(svg, content_type=SVG)
    response["Cache-Control"] = "private, no-cache"
    return response


def csv_upload(
    request: HtmxHttpRequest,
    form_class: type[forms.Form],
    importer: Callable[..., object],
    *,
    to: str,
    **kwargs,
) -> HttpResponse:
    """Import the form's uploaded CSV with `importer(stream=, file=, **options, **kwargs)`,
    `options` being the form's other fields (its result's lines become the flash message; an
    ImportFailure becomes the error) and go back to `to`."""
    form = form_class(request.POST, request.FILES)

    def act() -> list[str]:
        options = dict(form_data(form))
        upload = options.pop("file")
        stream = upload_stream(upload)
        return importer(stream=stream, file=upload.name, **options, **kwargs).lines()

    return post_redirect(request, act, to)
