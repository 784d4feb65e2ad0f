"""The challenge analytics as a part of the PDF report: one section per analysis, in the
order of `report.SECTIONS`, each with its sentences, its chart as inline SVG and its main
table, compact (the first TOP_ROWS rows; the page's CSV export holds them all).

Every figure comes from the selector the analysis's page and `report.py` use, every chart
from the function the page's chart view calls (`*_page_chart`, `tier_strips`,
`probes_scatter`, `oracle_chart`; the format heat map in charts of a dozen systems,
`formats_pdf_charts`); an analysis without data shows the note `report.py`
gives it. Team, system, technique, condition and model names are untrusted: the template
escapes them; only the charts' SVG, in which matplotlib escapes every label
(`ioleval.charts`), is marked safe. No Django request, no `grading`: the review's PDF
(grading.review.report) takes the rendered HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from ..models import Competition
from .ablations import ablations_page, ablations_page_chart
from .formats import formats_page, formats_pdf_charts
from .oracle import competition_figures, oracle_chart
from .probes import probes_page, probes_scatter
from .report import NOTES, SECTIONS, oracle_json
from .runs import runs_page, runs_page_chart
from .stats.probes import sentence as probe_sentence
from .stats.runs import agreement_sentence, correlation_sentence
from .techniques import techniques_page, techniques_page_chart
from .tiers import tier_strips, tiers_page

TOP_ROWS = 15  # rows of a long table in the PDF; the page's CSV export holds them all
TEMPLATE = "puzzles/analytics/report_pdf.html"


@dataclass
class Rows:
    """The first TOP_ROWS rows of a table and how many more the export holds."""

    shown: list
    more: int

    @classmethod
    def of(cls, rows: Sequence) -> Rows:
        return cls(list(rows[:TOP_ROWS]), max(0, len(rows) - TOP_ROWS))


@dataclass
class Part:
    """One analysis in the PDF: its heading and either its figures (`context`, the chart's
    SVG) or the note saying why it has none."""

    name: str
    heading: str
    note: str = ""
    chart: SafeString | None = None
    context: dict = field(default_factory=dict)

    @property
    def available(self) -> bool:
        return not self.note


def _svg(svg: str) -> SafeString:
    # matplotlib escapes every label of the analytics charts (ioleval.charts); nothing else
    # of this part is marked safe.
    return mark_safe(svg)  # noqa: S308


# Each builder returns the part's context and chart, or None when its page has no data (the
# condition report.py's section tests), in which case the part shows that section's NOTES.
Built = tuple[dict, str] | None


def _runs(competition: Competition) -> Built:
    page = runs_page(competition)
    if not page.runs:
        return None
    context = {
        "page": page,
        "sentences": [agreement_sentence(page.agreement), correlation_sentence(page.correlation)],
        "checks": Rows.of(page.checks),
    }
    return context, runs_page_chart(page)


def _tiers(competition: Competition) -> Built:
    page = tiers_page(competition)
    if not page.groups:
        return None
    return {"page": page}, tier_strips(page.strips())


def _formats(competition: Competition) -> Built:
    page = formats_page(competition)
    if not page.rows:
        return None
    charts = [_svg(svg) for svg in formats_pdf_charts(page)]
    return {"page": page, "rows": Rows.of(page.rows), "charts": charts}, charts[0]


def _techniques(competition: Competition) -> Built:
    page = techniques_page(competition)
    if not page.has_effects:
        return None
    parts = [{"part": part, "rows": Rows.of(part.rows)} for part in page.scores]
    return {"page": page, "scores": parts}, techniques_page_chart(page)


def _probes(competition: Competition) -> Built:
    page = probes_page(competition)
    if not page.rows:
        return None
    context = {
        "page": page,
        "rows": Rows.of(page.rows),
        "sentences": [probe_sentence(c) for c in page.correlations],
    }
    return context, probes_scatter(page.points)


def _ablations(competition: Competition) -> Built:
    page = ablations_page(competition)
    if not page.conditions:
        return None
    overall = [c for c in page.changes if c.problem is None]
    context = {"page": page, "overall": Rows.of(overall)}
    return context, ablations_page_chart(page)


def _oracle(competition: Competition, part: Part) -> None:
    """Fill the oracle part: each saved oracle as `report.oracle_json` gives it (members'
    shares, the note on members gone), with the chart the oracle page draws for its members."""
    figures = competition_figures(competition)
    section = oracle_json(competition, figures=figures)
    if not section["available"]:
        part.note = section["note"]
        return
    oracles = []
    for entry in section["oracles"]:
        chart = None
        if "shares" in entry:
            chart = _svg(oracle_chart(figures.combine(entry["members"])))
        oracles.append({**entry, "chart": chart})
    part.context = {"oracles": oracles}


BUILDERS: dict[str, tuple[str, Callable[[Competition], Built] | None]] = {
    "runs": ("Runs and teams", _runs),
    "tiers": ("Scores by tier", _tiers),
    "formats": ("Format failures", _formats),
    "oracle": ("Oracle ensembles", None),  # one chart per saved oracle: _oracle
    "techniques": ("Techniques", _techniques),
    "probes": ("Knowledge probes", _probes),
    "ablations": ("Ablations", _ablations),
}


def analytics_parts(competition: Competition) -> list[Part]:
    """Return one part per section of `report.SECTIONS`, in its order."""
    parts = []
    for name, _ in SECTIONS:
        heading, build = BUILDERS[name]
        part = Part(name=name, heading=heading)
        if build is None:
            _oracle(competition, part)
        else:
            built = build(competition)
            if built is None:
                part.note = NOTES[name]  # the page is empty: the JSON report's note says why
            else:
                part.context, chart = built
                part.chart = _svg(chart)
        parts.append(part)
    return parts


def analytics_report_html(competition: Competition) -> SafeString:
    """Return the "Challenge analytics" part of the PDF report as HTML (rendered, so safe to
    insert as markup), or "" when no analysis has data."""
    parts = analytics_parts(competition)
    if not any(p.available for p in parts):
        return SafeString("")
    return render_to_string(
        TEMPLATE, {"competition": competition, "parts": parts, "top_rows": TOP_ROWS}
    )
