"""The result review as a PDF report and its tables as CSV and XLSX.

`review_pdf` renders the whole review (tables, the charts' inline SVG from
grading.review.charts, the provisional banner and the notes) through grading.pdf's renderer,
so WeasyPrint gets no base URL and the fetcher that reads only data: and static files.
System names are untrusted text: the template escapes them; only the charts' SVG, which
grading.review.charts builds from escaped labels, is marked safe, and the challenge analytics
part, which puzzles.analytics.report_pdf renders through an autoescaping template.

`review_table` gives one table as a header and rows, which the export writes through
ioleval.tables (formulas neutralized by ioleval.spreadsheet). While the review is provisional
every table has `provisional` = "yes" in its last column and its file name ends in
`-provisional`.
"""

from __future__ import annotations

from collections.abc import Callable

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString

from ..pdf import render_pdf
from .model import Review, ReviewCharts


def review_pdf(
    review: Review, charts: ReviewCharts | None, *, analytics_html: SafeString | str = ""
) -> bytes:
    """Return the PDF report of the review (charts left out when `charts` is None), ending
    with `analytics_html`, the challenge analytics as puzzles.analytics.report_pdf renders
    them, on a page of its own when given. Only a SafeString (a rendered template) goes in
    as markup; any other text would be escaped."""
    return render_pdf(review_pdf_html(review, charts, analytics_html=analytics_html))


def review_pdf_html(
    review: Review, charts: ReviewCharts | None, *, analytics_html: SafeString | str = ""
) -> str:
    """Return the HTML that review_pdf renders (its headings and tables are what the page
    breaks are checked against)."""
    return render_to_string(
        "grading/review/report_pdf.html",
        {
            "review": review,
            "charts": charts,
            "analytics_html": analytics_html,
            "title": f"Result review · {review.competition}",
            "generated": timezone.now(),
        },
    )


def review_pdf_filename(review: Review) -> str:
    return f"{review.slug}-review{'-provisional' if review.provisional else ''}.pdf"


# --- tables --------------------------------------------------------------------------------


def _r(value: float | None, digits: int = 2) -> float | str:
    """A number rounded for a spreadsheet; a missing one is an empty cell."""
    return "" if value is None else round(value, digits)


def _n(value) -> object:
    return "" if value is None else value


def _systems(review: Review) -> tuple[list[str], list[list]]:
    header = [
        "system",
        "external",
        "auto_score",
        "exact_match",
        "chrf",
        "jury_total",
        "auto_rank",
        "jury_rank",
        "medal",
        "equivalent_rank",
        "percentile",
    ]
    rows = [
        [
            s.system,
            "yes" if s.external else "no",
            _r(s.auto_score),
            _r(s.exact_match),
            _r(s.chrf),
            _r(s.jury_total),
            _n(s.auto_rank),
            _n(s.jury_rank),
            s.medal_text,
            _n(s.equivalent_rank),
            _r(s.percentile),
        ]
        for s in review.systems
    ]
    return header, rows


def _divergent(review: Review) -> tuple[list[str], list[list]]:
    header = ["paper", "problem", "system", "auto_score", "jury", "auto_minus_jury"]
    rows = [
        [d.paper, d.problem, d.system, _r(d.auto), _r(d.jury), _r(d.difference)]
        for d in review.divergent_papers
    ]
    return header, rows


def _criteria(review: Review) -> tuple[list[str], list[list]]:
    header = ["criterion", "models", "humans"]
    rows = [[c.criterion, _r(c.models, 4), _r(c.humans, 4)] for c in review.criteria]
    return header, rows


def _agreement(review: Review) -> tuple[list[str], list[list]]:
    header = [
        "problem",
        "title",
        "finalized",
        "discrepant",
        "compared",
        "discrepancy_rate",
        "alpha",
        "alpha_ci_low",
        "alpha_ci_high",
        "icc",
        "icc_ci_low",
        "icc_ci_high",
        "k",
        "icc_single",
        "icc_single_ci_low",
        "icc_single_ci_high",
        "scale",
        "alpha_interval",
        "jurors",
    ]
    rows = []
    for a in review.agreement:
        alpha_ci = a.alpha.ci or (None, None)
        icc_ci = a.icc.ci or (None, None)
        single = a.icc_single
        single_ci = (single.ci if single else None) or (None, None)
        rows.append(
            [
                a.problem,
                a.title,
                "yes" if a.finalized else "no",
                a.discrepancy.discrepant,
                a.discrepancy.compared,
                _r(a.discrepancy.rate, 4),
                _r(a.alpha.value, 4),
                _r(alpha_ci[0], 4),
                _r(alpha_ci[1], 4),
                _r(a.icc.value, 4),
                _r(icc_ci[0], 4),
                _r(icc_ci[1], 4),
                a.k,
                _r(single.value if single else None, 4),
                _r(single_ci[0], 4),
                _r(single_ci[1], 4),
                a.scale,
                a.alpha.method or "",
                "; ".join(f"{j.name} {j.sentence}" for j in a.jurors),
            ]
        )
    return header, rows


# The table names the export route accepts, in the order the page lists them.
TABLES: dict[str, tuple[str, Callable[[Review], tuple[list[str], list[list]]]]] = {
    "systems": ("Systems", _systems),
    "divergent-papers": ("Most divergent papers", _divergent),
    "criterion-difficulty": ("Criterion difficulty", _criteria),
    "agreement": ("Juror agreement per problem", _agreement),
}


def review_table(review: Review, name: str) -> tuple[list[str], list[list]]:
    """Return the header and rows of one of TABLES (KeyError for another name).

    While the review is provisional a last column `provisional` says "yes" on every row.
    """
    header, rows = TABLES[name][1](review)
    if review.provisional:
        header = [*header, "provisional"]
        rows = [[*row, "yes"] for row in rows]
    return header, rows


def review_table_filename(review: Review, name: str) -> str:
    """Return the table's file name, without its extension."""
    provisional = "-provisional" if review.provisional else ""
    return f"{review.slug}-review-{name}{provisional}"


def review_table_title(review: Review, name: str) -> str:
    """Return the table's sheet title."""
    # Sheet titles stop at 31 characters: the mark goes first so that it stays.
    return ("Provisional " if review.provisional else "") + TABLES[name][0]
