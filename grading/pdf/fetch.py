"""What WeasyPrint may fetch for a PDF: `data:` URLs and the app's own static files, nothing
else (no base URL, no network, no file outside the static folders)."""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path
from urllib.parse import unquote

from django.contrib.staticfiles import finders
from weasyprint.urls import URLFetcher, URLFetcherResponse

# Templates name static files as `ioleval-static:fonts/DejaVuSans.ttf`: a scheme of our
# own, so that no base URL is needed and every relative reference stays unresolved.
STATIC_SCHEME = "ioleval-static"

_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")

_STATIC_PATH = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$")


class StaticFetcher(URLFetcher):
    """Fetch `data:` URLs and the app's static files; refuse every other URL."""

    def __init__(self) -> None:
        super().__init__(timeout=5, allowed_protocols={"data"}, allow_redirects=False)

    def fetch(self, url: str, headers=None) -> URLFetcherResponse:
        match = _SCHEME.match(url)
        scheme = match[1].lower() if match else ""
        if scheme == "data":
            return super().fetch(url, headers)
        if scheme == STATIC_SCHEME:
            return _static_response(url, url[match.end() :])
        raise ValueError(
            f"refused: only data: and {STATIC_SCHEME}: URLs are fetched ({url[:60]!r})"
        )


def url_fetcher(url: str) -> URLFetcherResponse:
    """Fetch a URL the way paper PDFs do: data: and static files only, else ValueError."""
    return StaticFetcher().fetch(url)


def _static_roots() -> list[Path]:
    roots = []
    for finder in finders.get_finders():
        for storage in getattr(finder, "storages", {}).values():
            location = getattr(storage, "location", None)
            if location:
                roots.append(Path(location).resolve())
    return roots


def _static_response(url: str, rest: str) -> URLFetcherResponse:
    path = unquote(rest)
    if not _STATIC_PATH.match(path) or any(part in {".", ".."} for part in path.split("/")):
        raise ValueError(f"refused: not a static file path ({rest[:60]!r})")
    found = finders.find(path)
    if not found:
        raise ValueError(f"refused: no static file {path!r}")
    real = Path(found).resolve()
    # A symlink inside a static folder must not lead out of it.
    if not real.is_file() or not any(real.is_relative_to(root) for root in _static_roots()):
        raise ValueError(f"refused: {path!r} is outside the static folders")
    content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
    if content_type.startswith("text/"):
        content_type += "; charset=utf-8"
    return URLFetcherResponse(url, real.read_bytes(), {"Content-Type": content_type})
