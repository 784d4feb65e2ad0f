"""PDF papers: sanitized explanations, the static-only URL fetcher, IPA glyphs, anonymity."""

from __future__ import annotations

import http.server
import io
import threading
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.utils.safestring import SafeString
from fontTools.ttLib import TTFont
from pypdf import PdfReader

from grading import pdf
from grading.errors import GradingError
from grading.models import Assignment, Criterion, Paper, Rubric
from grading.pdf import (
    StaticFetcher,
    packet_pdf,
    paper_pdf,
    papers_pdf,
    render_pdf,
    url_fetcher,
)
from grading.pdf import render as pdf_render
from grading.text import explanation_html, points_text
from puzzles.models import Output, System
from puzzles.questions import item_prompts
from tests.puzzles.factories import CompetitionFactory, ProblemFactory, TaskFactory

IPA = ["ɮ", "ʁ", "ɣ", "ː", "ˈ", "ɨ", "χ", "ə", "ɬ"]
FONTS = Path(settings.BASE_DIR) / "static" / "fonts"


# --- explanation_html -----------------------------------------------------------------------


def test_explanation_drops_script_with_its_content():
    html = explanation_html("Before <script>alert('x')</script> after")
    assert "<script" not in html
    assert "alert" not in html
    assert "Before" in html and "after" in html


def test_explanation_drops_images_and_event_handlers():
    html = explanation_html('See <img src=x onerror="alert(1)"> and ![pic](http://evil/x.png)')
    assert "<img" not in html
    assert "onerror" not in html
    assert "evil" not in html


def test_explanation_keeps_link_text_but_no_href():
    html = explanation_html('[x](javascript:alert(1)) and <a href="http://evil">click</a>')
    assert "<a" not in html
    assert "href" not in html
    assert "javascript" not in html
    assert "x" in html and "click" in html


def test_explanation_strips_attributes_styles_and_stylesheets():
    html = explanation_html(
        '<p style="color:red" onclick="x()" class="c" id="i">text</p>'
        '<style>p { color: red }</style><link rel="stylesheet" href="file:///etc/passwd">'
        "<iframe src='file:///etc/passwd'></iframe><base href='file:///'>"
    )
    assert html.startswith("<p>text</p>")
    for gone in ["style", "color", "onclick", "class", "id=", "<link", "<iframe", "<base", "file:"]:
        assert gone not in html, gone


def test_explanation_keeps_markdown_bold_lists_code_and_tables():
    html = explanation_html(
        "**ma-** is *my*\n\n- plural `-ek`\n- location `-un`\n\n"
        "```\nma + sorel\n```\n\n| form | gloss |\n|---|---|\n| sorel | house |"
    )
    assert "<strong>ma-</strong>" in html
    assert "<em>my</em>" in html
    assert "<ul>" in html and "<li>plural <code>-ek</code></li>" in html
    assert "<pre><code>ma + sorel\n</code></pre>" in html
    assert "<td>sorel</td>" in html


def test_explanation_escapes_text_and_is_safe_string():
    html = explanation_html("a < b & c")
    assert isinstance(html, SafeString)
    assert html == "<p>a &lt; b &amp; c</p>"
    assert explanation_html("") == "" and explanation_html("  \n") == ""


# --- the URL fetcher ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "http://127.0.0.1:9/x",
        "https://example.invalid/x.css",
        "ftp://example.invalid/x",
        "javascript:alert(1)",
        "fonts/DejaVuSans.ttf",
        "/static/fonts/DejaVuSans.ttf",
        "ioleval-static:../../../../etc/passwd",
        "ioleval-static:fonts/../../../../etc/passwd",
        "ioleval-static:%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "ioleval-static:/etc/passwd",
        "ioleval-static:fonts\\..\\..\\settings.py",
        "ioleval-static:fonts/DejaVuSans.ttf?x=1",
        "ioleval-static:fonts/missing.ttf",
        "ioleval-static:",
    ],
)
def test_fetcher_refuses_everything_but_data_and_static_files(url):
    with pytest.raises(ValueError, match="refused"):
        url_fetcher(url)


def test_fetcher_reads_data_urls_and_static_files():
    assert url_fetcher("data:text/plain,hello").read() == b"hello"
    font = url_fetcher("ioleval-static:fonts/DejaVuSans.ttf")
    assert font.read() == (FONTS / "DejaVuSans.ttf").read_bytes()
    css = url_fetcher("ioleval-static:css/ioleval.css")
    assert css.content_type == "text/css"
    assert css.charset == "utf-8"


def test_fetcher_refuses_a_symlink_out_of_the_static_folders(settings, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    static = tmp_path / "static"
    static.mkdir()
    (static / "leak.txt").symlink_to(secret)
    (static / "fine.txt").write_text("public")
    settings.STATICFILES_DIRS = [static]
    assert url_fetcher("ioleval-static:fine.txt").read() == b"public"
    with pytest.raises(ValueError, match="outside the static folders"):
        url_fetcher("ioleval-static:leak.txt")


class _Recorder(StaticFetcher):
    """Record every URL WeasyPrint asks for and whether it was served."""

    log: list[tuple[str, bool]] = []

    def fetch(self, url, headers=None):
        try:
            response = super().fetch(url, headers)
        except ValueError:
            self.log.append((url, False))
            raise
        self.log.append((url, True))
        return response


@pytest.fixture
def recorder(monkeypatch):
    _Recorder.log = []
    monkeypatch.setattr(pdf_render, "StaticFetcher", _Recorder)
    monkeypatch.setattr(pdf_render, "_local", threading.local())  # fonts are fetched again
    return _Recorder.log


@pytest.fixture
def listener():
    """A local HTTP server that counts the requests it gets (none are expected)."""
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", hits
    server.shutdown()
    server.server_close()


def _text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def test_hostile_html_fetches_nothing_from_disk_or_network(recorder, listener):
    base, hits = listener
    hostile = [
        "file:///etc/passwd",
        f"{base}/image.png",
        f"{base}/import.css",
        f"{base}/link.css",
        f"{base}/background.png",
        "ioleval-static:../../../../etc/passwd",
    ]
    data = render_pdf(
        f"""<html><head>
        <link rel="stylesheet" href="{base}/link.css">
        <link rel="stylesheet" href="file:///etc/hostname">
        <style>@import url({base}/import.css); body {{ background: url({base}/background.png) }}</style>
        </head><body><p>still here</p>
        <img src="file:///etc/passwd"><img src="{base}/image.png"><img src="relative.png">
        <img src="ioleval-static:../../../../etc/passwd">
        <object data="file:///etc/passwd"></object><embed src="file:///etc/passwd">
        <a rel="attachment" href="file:///etc/passwd">attachment</a>
        </body></html>"""
    )
    assert data.startswith(b"%PDF")
    assert "still here" in _text(data)
    assert "root:" not in _text(data)
    assert hits == []
    served = [url for url, ok in recorder if ok]
    assert served and all(url.startswith("ioleval-static:") for url in served)
    refused = {url for url, ok in recorder if not ok}
    assert {"file:///etc/passwd", f"{base}/image.png", f"{base}/link.css"} <= refused
    assert not any(ok for url, ok in recorder if url in hostile)


# --- papers -----------------------------------------------------------------------------------


@pytest.fixture
def paper(db):
    competition = CompetitionFactory(slug="ipa", name="Phonetics Olympiad 2026")
    problem = ProblemFactory(
        competition=competition,
        number=1,
        title="Kelvani sounds",
        language="Kelvani (invented)",
        context="1. [ˈɮaʁ.ɣɨː] | river bank\n2. [χəˈɬuː] | snow",
    )
    task = TaskFactory(
        problem=problem,
        number=1,
        query="Transcribe:\n1. lhargy\n2. kheluu",
        answer_key=[["KEYONLY-ONE"], ["KEYONLY-TWO"]],
    )
    system = System.objects.create(
        competition=competition,
        name="SECRET-SYSTEM-XYZ",
        team="SECRET-TEAM-QRS",
        tier=System.Tier.FRONTIER,
        metadata={"rank": 1, "model": "SECRET-MODEL-ABC"},
    )
    Output.objects.create(
        system=system,
        task=task,
        parsed_items=["[ˈɮaʁ.ɣɨː]", "[χəˈɬuː]"],
        explanation="The stress mark **ˈ** precedes the stressed syllable; *ː* marks length.",
        scores={"iol2026": {"parsed": {"item_em": [1, 0]}}},
    )
    rubric = Rubric.objects.create(problem=problem)
    Criterion.objects.create(
        rubric=rubric, order=1, code="1a", title="Transcriptions", maximum=Decimal("3")
    )
    Criterion.objects.create(
        rubric=rubric,
        order=2,
        code="1b",
        title="Stress rule",
        kind=Criterion.Kind.THEORY,
        maximum=Decimal("2.5"),
        step=Decimal("0.25"),
    )
    return Paper.objects.create(system=system, problem=problem, code="P1-7KQ2")


def test_ipa_survives_into_the_pdf_text(paper):
    text = _text(paper_pdf(paper))
    for char in IPA:
        assert char in text, char
    assert "ˈɮaʁ.ɣɨː" in text
    assert "χəˈɬuː" in text


def test_every_font_in_the_pdf_is_the_bundled_dejavu(paper):
    reader = PdfReader(io.BytesIO(paper_pdf(paper)))
    names = set()
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
            embedded = TTFont(io.BytesIO(descriptor["/FontFile2"].get_object().get_data()))
            names.add((str(font["/BaseFont"]).split("+")[-1], embedded["name"].getDebugName(1)))
    assert names
    assert all(base.startswith("ioleval-") and family == "DejaVu Sans" for base, family in names)


@pytest.mark.parametrize("name", ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf"])
def test_bundled_fonts_have_real_ipa_glyphs(name):
    cmap = TTFont(FONTS / name).getBestCmap()
    assert [c for c in IPA if ord(c) not in cmap] == []
    assert (FONTS / "LICENSE").is_file()


def test_paper_shows_code_data_assignments_answers_explanation_and_grid(paper):
    text = _text(paper_pdf(paper))
    for expected in [
        "P1-7KQ2",
        "Problem 1: Kelvani sounds",
        "Language: Kelvani (invented)",
        "Problem data",
        "river bank",
        "Transcribe:",
        "lhargy",
        "Explanation",
        "precedes the stressed syllable",
        "Marking",
        "Transcriptions",
        "Stress rule",
        "0.25",
        "Total",
        "5.5",
    ]:
        assert expected in text, expected


def test_paper_never_shows_the_system_its_team_tier_or_the_key(paper):
    data = paper_pdf(paper)
    reader = PdfReader(io.BytesIO(data))
    text = _text(data)
    metadata = " ".join(str(v) for v in (reader.metadata or {}).values())
    assert reader.metadata.title == "Paper P1-7KQ2"
    for secret in ["SECRET", "frontier", "KEYONLY"]:
        assert secret.lower() not in text.lower()
        assert secret.lower() not in metadata.lower()
        assert secret.encode() not in data


def test_hostile_explanation_fetches_only_static_files(paper, recorder, listener):
    base, hits = listener
    Output.objects.filter(task__problem=paper.problem).update(
        explanation=(
            f'<img src="file:///etc/passwd"> ![x]({base}/md.png) <img src="{base}/i.png">\n\n'
            f"<style>@import url({base}/x.css);</style>"
            '<link rel="stylesheet" href="file:///etc/hostname">'
            f'<a href="{base}/link" rel="attachment">kept text</a>'
        )
    )
    text = _text(paper_pdf(paper))
    assert "kept text" in text
    assert hits == []
    assert recorder and all(url.startswith("ioleval-static:") for url, _ in recorder)


def test_no_rubric_and_no_output_still_render(paper):
    Rubric.objects.filter(problem=paper.problem).delete()
    Output.objects.filter(task__problem=paper.problem).delete()
    text = _text(paper_pdf(paper))
    assert "no rubric yet" in text
    assert "no answer" in text
    assert "No explanation given." in text


def _second_paper(paper, code: str) -> Paper:
    system = System.objects.create(competition=paper.problem.competition, name=f"Other {code}")
    return Paper.objects.create(system=system, problem=paper.problem, code=code)


def test_packet_has_the_jurors_papers_each_on_its_own_pages(paper, juror, django_user_model):
    other = _second_paper(paper, "P1-M4NB")
    unassigned = _second_paper(paper, "P1-ZZZZ")
    Assignment.objects.create(paper=paper, juror=juror)
    Assignment.objects.create(paper=other, juror=juror)
    Assignment.objects.create(
        paper=unassigned, juror=django_user_model.objects.create_user("someone-else")
    )
    reader = PdfReader(io.BytesIO(packet_pdf(juror, paper.problem)))
    pages = [
        {c for c in ("P1-7KQ2", "P1-M4NB", "P1-ZZZZ") if c in page.extract_text()}
        for page in reader.pages
    ]
    assert all(len(found) == 1 for found in pages)  # no page holds two papers
    sequence = [found.pop() for found in pages]
    assert sequence == sorted(sequence)
    assert set(sequence) == {"P1-7KQ2", "P1-M4NB"}


def test_packet_without_papers_is_an_error(paper, juror):
    with pytest.raises(GradingError):
        packet_pdf(juror, paper.problem)


def test_papers_pdf_holds_every_paper(paper):
    other = _second_paper(paper, "P1-M4NB")
    text = _text(papers_pdf([paper, other]))
    assert "P1-7KQ2" in text and "P1-M4NB" in text
    assert "Other" not in text


def test_paper_sheets_run_a_fixed_number_of_queries(paper, django_assert_max_num_queries):
    papers = [paper] + [_second_paper(paper, f"P1-{c}AAA") for c in "BCDEFG"]
    # Problems, tasks, outputs, the rubrics and criteria, their versions (each paper states
    # its rubric's), systems held elsewhere: the same for one paper or seven.
    with django_assert_max_num_queries(7):
        sheets = pdf.paper_sheets(papers)
    assert [s.code for s in sheets] == [p.code for p in papers]


def test_points_text():
    assert [points_text(Decimal(v)) for v in ["3.00", "0.50", "10.00", "2.25"]] == [
        "3",
        "0.5",
        "10",
        "2.25",
    ]


def test_item_prompts_read_labels_only_when_they_fit():
    query = "Translate into English:\n\n7. sutalke\n8. amokra\n9. nipen"
    assert item_prompts(query, 3) == [("7", "sutalke"), ("8", "amokra"), ("9", "nipen")]
    assert item_prompts(query, 2) is None
    assert item_prompts("Write in Oskrunic:\nd. 9\ne. 20", 2) == [("d", "9"), ("e", "20")]
    assert item_prompts("Explain the rule: ____", 1) is None
