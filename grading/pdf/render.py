"""Rendering with WeasyPrint: the paper stylesheet once per thread, then one paper, several
papers, or a juror's packet as one PDF."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable

from django.conf import settings
from django.template.loader import render_to_string
from weasyprint import CSS, HTML
from weasyprint.text.fonts import FontConfiguration

from puzzles.models import Problem

from ..errors import GradingError
from ..models import Paper
from .fetch import StaticFetcher
from .sheets import Sheet, paper_sheets

# WeasyPrint logs every rendering step at INFO; keep workers' and commands' logs readable
# unless the LOGGING setting chose a level for it.
_progress_logger = logging.getLogger("weasyprint.progress")
if _progress_logger.level == logging.NOTSET:
    _progress_logger.setLevel(logging.WARNING)


_local = threading.local()


def _paper_style() -> tuple[CSS, FontConfiguration]:
    # Parsing the stylesheet and loading its fonts is a third of a paper's rendering time:
    # do it once per thread (and on every call while DEBUG, so that edits show).
    style = getattr(_local, "style", None)
    if style is None or settings.DEBUG:
        fonts = FontConfiguration()
        # A template, not a static file: collectstatic's manifest storage would try to
        # hash the ioleval-static: font URLs in it as if they were relative paths.
        css = CSS(
            string=render_to_string("grading/pdf/paper.css"),
            base_url=None,
            url_fetcher=StaticFetcher(),
            font_config=fonts,
        )
        style = _local.style = (css, fonts)
    return style


def render_pdf(html: str) -> bytes:
    """Render HTML with the paper stylesheet (paper.css), no base URL and the static-only fetcher."""
    css, fonts = _paper_style()
    document = HTML(string=html, base_url=None, url_fetcher=StaticFetcher())
    return document.write_pdf(stylesheets=[css], font_config=fonts)


def sheets_pdf(sheets: list[Sheet], *, title: str) -> bytes:
    """Render sheets into one PDF, each paper starting on a new page."""
    html = render_to_string("grading/pdf/paper.html", {"sheets": sheets, "title": title})
    return render_pdf(html)


def paper_pdf(paper: Paper) -> bytes:
    """Return the PDF of one paper."""
    return sheets_pdf(paper_sheets([paper]), title=f"Paper {paper.code}")


def papers_pdf(papers: Iterable[Paper]) -> bytes:
    """Return one PDF of several papers, each starting on a new page."""
    sheets = paper_sheets(papers)
    return sheets_pdf(sheets, title=f"{len(sheets)} papers")


def packet_pdf(juror, problem: Problem) -> bytes:
    """Return the juror's papers for the problem in one PDF, ordered by code."""
    papers = Paper.objects.filter(problem=problem, assignments__juror=juror).order_by("code")
    sheets = paper_sheets(papers)
    if not sheets:
        raise GradingError(f"{juror} has no papers of problem {problem.number}")
    return sheets_pdf(sheets, title=f"Problem {problem.number}: papers of {juror}")
