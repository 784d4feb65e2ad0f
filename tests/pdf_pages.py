"""What each page of a PDF report holds, read back with pypdf: its lines of text without the
running header and footer, so tests can check where pages break (issue 19, section 7).

A report names its headings and its tables' header rows in its HTML; `breaks` matches them
against each page's lines: a heading that ends a page, a table header with no row after it
on its page, a table row alone on a page.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from lxml import html as lxml_html
from pypdf import PdfReader

_SPACE = re.compile(r"\s+")
_FOOTER = re.compile(r"page \d+ of \d+$")


def squeeze(text: str) -> str:
    """Text without whitespace: pypdf joins a table's cells, or an SVG's glyphs, either way."""
    return _SPACE.sub("", text)


def page_lines(pdf: bytes) -> list[list[str]]:
    """Return each page's non-empty lines, the running header and footer left out."""
    pages = []
    for page in PdfReader(io.BytesIO(pdf)).pages:
        lines = [line.strip() for line in page.extract_text().splitlines()]
        lines = [line for line in lines if line and line != "•"]
        # The margin boxes come last: the header (competition, title) and the footer
        # (section, "page n of m").
        while lines and (_FOOTER.search(lines[-1]) or "Result review" in lines[-1]):
            lines.pop()
        pages.append(lines)
    return pages


@dataclass(frozen=True)
class Landmarks:
    """The report's headings that open more than sentences (each with the text of the
    paragraphs that open its section) and its tables' header rows and body rows, squeezed."""

    headings: dict[str, str]
    table_headers: frozenset[str]
    rows: frozenset[str]


def landmarks(report_html: str) -> Landmarks:
    """Read the headings (h1-h3) with their opening paragraphs, and the tables' header and
    body rows, of a report's HTML."""
    tree = lxml_html.fromstring(report_html)

    def text_of(element) -> str:
        return squeeze(element.text_content())

    headings = {}
    for heading in tree.xpath("//h1 | //h2 | //h3"):
        opening, more = [], False
        for sibling in heading.itersiblings():
            if sibling.tag not in ("p", "ul"):
                more = sibling.tag in ("table", "figure")
                break
            opening.append(text_of(sibling))
        # A heading over sentences alone (a note that there is no data) may end a page; one
        # over a table or a chart may not.
        if text_of(heading) and more:
            headings[text_of(heading)] = "".join(opening)
    headers = {text_of(tr) for tr in tree.xpath("//thead/tr")}
    rows = {text_of(tr) for tr in tree.xpath("//tbody/tr")}
    return Landmarks(headings, frozenset(h for h in headers if h), frozenset(r for r in rows if r))


def _row_at(squeezed: list[str], i: int, rows: frozenset[str]) -> int:
    """Return how many lines from i make one table row (a cell may wrap), or 0."""
    for span in range(1, 5):
        if "".join(squeezed[i : i + span]) in rows:
            return span
    return 0


def breaks(pdf: bytes, report_html: str) -> list[str]:
    """Return every bad page break of the PDF, described: a heading that ends its page or is
    followed there only by its opening sentences, a table header with no row after it on
    its page, one row of a table alone on a page."""
    marks = landmarks(report_html)
    faults = []
    pages = [[squeeze(line) for line in lines] for lines in page_lines(pdf)]
    runs = []  # (page, header, rows, at top, at bottom) of every table part
    for number, squeezed in enumerate(pages, start=1):
        for i, line in enumerate(squeezed):
            if line in marks.headings:
                rest = "".join(squeezed[i + 1 :])
                if marks.headings[line].startswith(rest):
                    faults.append(f"page {number}: the heading {line!r} ends the page")
            if line in marks.table_headers:
                j, count = i + 1, 0
                while (span := _row_at(squeezed, j, marks.rows)) > 0:
                    j, count = j + span, count + 1
                if not count:
                    faults.append(f"page {number}: table header {line!r} without a row")
                runs.append((number, line, count, i == 0, j == len(squeezed)))
    pairs = zip(runs, runs[1:], strict=False)
    for (page, header, count, _top, bottom), (next_page, next_header, next_count, top, _) in pairs:
        # A table split over two pages (its header repeated on the second): neither part
        # may hold one row alone.
        if bottom and top and next_page == page + 1 and next_header == header:
            if 1 in (count, next_count):
                faults.append(f"pages {page}-{next_page}: {header!r} split leaving one row alone")
    return faults
