"""The review's PDF report and its tables as CSV and XLSX: routes, command, neutralized cells."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook
from pypdf import PdfReader

from grading.review.cache import review_cached
from grading.review.report import TABLES, review_pdf, review_table
from ioleval.spreadsheet import csv_cell_read
from tests.grading.review.builders import review_competition

pytestmark = pytest.mark.django_db

EVIL = '=HYPERLINK("http://x","y")'
SYSTEM_COLUMNS = [
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


def _pdf_text(data: bytes) -> str:
    assert data.startswith(b"%PDF-")
    reader = PdfReader(io.BytesIO(data))
    # Extracted lines may break anywhere: compare with all whitespace folded.
    return " ".join(" ".join(page.extract_text() or "" for page in reader.pages).split())


def _urls(slug: str = "rv") -> list[str]:
    return [reverse("grading:review_pdf", args=[slug])] + [
        reverse("grading:review_table", args=[slug, name, fmt])
        for name in TABLES
        for fmt in ("csv", "xlsx")
    ]


# --- the PDF -------------------------------------------------------------------------------


def test_the_pdf_has_the_systems_the_correlation_and_no_banner_when_final():
    review_competition()
    page = review_cached(competition=_competition(), resamples=200)
    assert not page.review.provisional
    text = _pdf_text(review_pdf(page.review, page.charts))
    for system in page.review.systems:
        assert system.system in text
    assert "Over 5 systems, the jury's ranking and the automatic one agree" in text
    assert page.review.ranges.sentence in text
    assert "provisional" not in text.lower()
    assert "Juror agreement" in text and "observations" in text
    assert "Per problem" in text and "Problem 2" in text  # the per-problem correlations


def test_the_pdf_says_provisional_and_carries_the_notes():
    review_competition(finalize=False, contestants=False)
    page = review_cached(competition=_competition(), resamples=200)
    assert page.review.provisional
    text = _pdf_text(review_pdf(page.review, page.charts))
    assert "Provisional: problems 1, 2 are not finalized yet" in text
    assert "PROVISIONAL" in text  # the running header
    assert "No contestant totals have been imported" in text


def test_the_pdf_renders_the_charts_as_vectors_and_escapes_names():
    built = review_competition()
    built.systems[1].name = "<b>Bold</b> & co"
    built.systems[1].save()
    page = review_cached(competition=_competition(), resamples=200)
    data = review_pdf(page.review, page.charts)
    text = _pdf_text(data)
    assert "<b>Bold</b> & co" in text  # shown as text, not markup
    reader = PdfReader(io.BytesIO(data))
    # Five charts (scatter, divergence, placement, difficulty, agreement) and no raster image.
    assert sum(len(p.images) for p in reader.pages) == 0
    assert len(reader.pages) >= 5


def test_the_pdf_route_for_organizer_and_chair(client, organizer_client):
    built = review_competition(finalize=False)
    response = organizer_client.get(reverse("grading:review_pdf", args=["rv"]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert 'filename="rv-review-provisional.pdf"' in response["Content-Disposition"]
    assert "provisional" in _pdf_text(response.content).lower()
    client.force_login(built.chair)
    assert client.get(reverse("grading:review_pdf", args=["rv"])).status_code == 200


# --- the challenge analytics at the end of the PDF ------------------------------------------

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "</svg><script>alert(2)</script>"


def _with_runs(built, team: str = "Computed", technique: str = "chain of thought") -> None:
    """Two runs of `team` (a system of the review), the first tagged with `technique`."""
    from puzzles.analytics.runs.imports import runs_import
    from puzzles.analytics.techniques.services import runs_tag

    runs = (
        "team,run,submitted_at,status,failure,public,private,selected\n"
        f'"{team}",1,2026-03-01T10:00:00Z,scored,,0.5,0.4,1\n'
        f'"{team}",2,2026-03-02T10:00:00Z,scored,,0.6,0.7,0\n'
    )
    runs_import(competition=built.competition, stream=io.StringIO(runs), file="runs.csv")
    runs_tag(competition=built.competition, team=team, runs=[1], technique=technique)


def _after_the_review(text: str) -> str:
    """The PDF's text after the review's last section."""
    assert "The jury's observations" in text
    return text.split("The jury's observations", 1)[1]


def test_the_command_ends_with_the_challenge_analytics_and_the_download_does_not(
    organizer_client, tmp_path
):
    built = review_competition()
    _with_runs(built)
    target = tmp_path / "review.pdf"
    call_command("report", "rv", "--format", "pdf", "--out", str(target), "--resamples", "200")
    analytics = _after_the_review(_pdf_text(target.read_bytes()))
    assert "Challenge analytics" in analytics
    for heading in ("Runs and teams", "Scores by tier", "Format failures", "Techniques"):
        assert heading in analytics, heading
    assert "chain of thought" in analytics
    # An analysis without data: its note, as the JSON report gives it.
    assert "No probe results imported" in analytics
    # The download is drawn in the request: the review alone.
    downloaded = organizer_client.get(reverse("grading:review_pdf", args=["rv"])).content
    text = _pdf_text(downloaded)
    assert "The jury's observations" in text and "Challenge analytics" not in text


def test_only_a_rendered_analytics_part_goes_in_as_markup():
    """review_pdf inserts a SafeString (a rendered template) as markup; other text is text."""
    review_competition()
    page = review_cached(competition=_competition(), resamples=200, with_charts=False)
    text = _pdf_text(review_pdf(page.review, None, analytics_html="<h2>Injected</h2>"))
    assert "<h2>Injected</h2>" in text


def test_the_analytics_part_comes_with_data(tmp_path):
    from puzzles.models import Output, System

    # A system with outputs or imported figures is on the leaderboard (tiers, formats):
    # here the one system is held elsewhere, without figures.
    built = review_competition(externals=0)
    Output.objects.filter(system__competition=built.competition).delete()
    System.objects.filter(competition=built.competition).update(external=True)
    target = tmp_path / "review.pdf"
    call_command("report", "rv", "--format", "pdf", "--out", str(target), "--resamples", "200")
    text = _pdf_text(target.read_bytes())
    assert "The jury's observations" in text and "Challenge analytics" not in text
    # Runs make the part: runs, techniques; the other analyses say why they have nothing.
    _with_runs(built)
    call_command("report", "rv", "--format", "pdf", "--out", str(target), "--resamples", "200")
    analytics = _after_the_review(_pdf_text(target.read_bytes()))
    assert "Challenge analytics" in analytics and "Runs and teams" in analytics
    assert "No system with a leaderboard score." in analytics


def test_hostile_names_in_the_analytics_are_text_in_the_pdf(tmp_path):
    from puzzles.models import System

    built = review_competition()
    System.objects.filter(competition=built.competition, name="Computed").update(name=IMG)
    _with_runs(built, team=IMG, technique=SCRIPT)
    target = tmp_path / "review.pdf"
    call_command("report", "rv", "--format", "pdf", "--out", str(target), "--resamples", "200")
    analytics = _after_the_review(_pdf_text(target.read_bytes()))
    assert "Challenge analytics" in analytics
    assert IMG in analytics and SCRIPT in analytics  # shown as text, not markup


def test_the_page_links_the_pdf_and_every_table(organizer_client):
    review_competition()
    page = organizer_client.get(reverse("grading:review", args=["rv"])).content.decode()
    for url in _urls():
        assert f'href="{url}"' in page


# --- permissions ---------------------------------------------------------------------------


def test_a_juror_gets_403_on_the_report_and_the_tables(client):
    built = review_competition(finalize=False)
    client.force_login(built.jurors[1][0])
    for url in _urls():
        response = client.get(url)
        assert response.status_code == 403, url
        assert b"Ext 0" not in response.content


def test_anonymous_goes_to_login(client):
    review_competition()
    for url in _urls():
        assert client.get(url).status_code == 302, url


def test_unknown_table_or_format_is_404(organizer_client):
    review_competition()
    for url in (
        "/c/rv/review/secrets.csv",
        "/c/rv/review/systems.pdf",
        "/c/rv/review/systems.json",
        "/c/rv/review/contestants.xlsx",
    ):
        assert organizer_client.get(url).status_code == 404, url
    # The explanation screen's export keeps its own route.
    explanations = reverse("grading:explanations_export", args=["rv", "csv"])
    assert explanations == "/c/rv/review/explanations.csv"
    assert organizer_client.get(explanations).status_code == 200


def test_post_is_refused(organizer_client):
    review_competition()
    for url in _urls():
        assert organizer_client.post(url).status_code == 405, url


# --- the exports ---------------------------------------------------------------------------


def _evil_competition(**kwargs):
    built = review_competition(**kwargs)
    built.systems[1].name = EVIL
    built.systems[1].save()
    return built


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _csv_rows(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8"))))


def test_the_systems_csv_neutralizes_formulas_and_has_the_columns(organizer_client):
    _evil_competition()
    response = organizer_client.get(reverse("grading:review_table", args=["rv", "systems", "csv"]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="rv-review-systems.csv"' in response["Content-Disposition"]
    rows = _csv_rows(response.content)
    assert rows[0] == SYSTEM_COLUMNS
    names = [row[0] for row in rows[1:]]
    assert "'" + EVIL in names and EVIL not in names
    assert EVIL in [csv_cell_read(n) for n in names]
    computed = next(row for row in rows[1:] if row[0] == "Computed")
    assert computed[1] == "no" and float(computed[2]) == 100.0


def test_the_systems_xlsx_keeps_the_name_text(organizer_client):
    _evil_competition()
    response = organizer_client.get(reverse("grading:review_table", args=["rv", "systems", "xlsx"]))
    assert response.status_code == 200
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = list(sheet.iter_rows())
    assert [c.value for c in rows[0]] == SYSTEM_COLUMNS
    evil = next(row[0] for row in rows[1:] if row[0].value == EVIL)
    assert evil.data_type == "s" and evil.quotePrefix
    assert not any(c.data_type == "f" for row in rows for c in row)


def test_every_table_neutralizes_the_name_and_is_marked_provisional(organizer_client):
    _evil_competition(finalize=False)
    expected = {
        "systems": SYSTEM_COLUMNS,
        "divergent-papers": ["paper", "problem", "system", "auto_score", "jury", "auto_minus_jury"],
        "criterion-difficulty": ["criterion", "models", "humans"],
        "agreement": ["problem", "title", "finalized", "discrepant", "compared"],
    }
    for name, columns in expected.items():
        response = organizer_client.get(reverse("grading:review_table", args=["rv", name, "csv"]))
        assert response.status_code == 200, name
        assert f'filename="rv-review-{name}-provisional.csv"' in response["Content-Disposition"]
        rows = _csv_rows(response.content)
        assert rows[0][: len(columns)] == columns, name
        assert rows[0][-1] == "provisional"
        assert rows[1:], name
        assert all(row[-1] == "yes" for row in rows[1:]), name
        # Only numbers may start with a sign: text never does unquoted.
        texts = [cell for row in rows for cell in row if not _number(cell)]
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in texts), name
        response = organizer_client.get(reverse("grading:review_table", args=["rv", name, "xlsx"]))
        assert response.status_code == 200, name
        assert "-provisional.xlsx" in response["Content-Disposition"]
        sheet = load_workbook(io.BytesIO(response.content)).active
        assert sheet.title.startswith("Provisional ")
        assert [c.value for c in next(sheet.iter_rows())][-1] == "provisional"


def test_the_divergent_papers_name_the_evil_system_as_text():
    _evil_competition()
    review = review_cached(competition=_competition(), resamples=100, with_charts=False).review
    header, rows = review_table(review, "divergent-papers")
    assert "provisional" not in header
    assert EVIL in [row[2] for row in rows]


# --- the command ---------------------------------------------------------------------------


def test_the_command_writes_a_pdf(tmp_path):
    review_competition(finalize=False)
    target = tmp_path / "review.pdf"
    out = io.StringIO()
    call_command(
        "report", "rv", "--format", "pdf", "--out", str(target), "--resamples", "100", stdout=out
    )
    assert out.getvalue() == ""
    text = _pdf_text(target.read_bytes())
    assert "Computed" in text and "Provisional" in text


def test_the_command_writes_pdf_bytes_to_stdout_buffer():
    review_competition()

    class Binary(io.StringIO):
        def __init__(self):
            super().__init__()
            self.buffer = io.BytesIO()

    out = Binary()
    call_command("report", "rv", "--format", "pdf", "--resamples", "100", stdout=out)
    assert out.buffer.getvalue().startswith(b"%PDF-")
    assert out.getvalue() == ""


def _competition():
    from puzzles.models import Competition

    return Competition.objects.get(slug="rv")
