"""Response helpers shared by the apps' views."""

from __future__ import annotations

from django.http import HttpResponse

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def attachment(content: bytes | str, filename: str, content_type: str) -> HttpResponse:
    """Return a download: the content with a Content-Disposition naming the file."""
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
