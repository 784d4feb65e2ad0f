"""Model text that would stall or crash rendering: cut, flattened or shown as plain text.

Every case is an input that took the grading page or the paper PDF down before (a
RecursionError, or seconds to minutes of Python-Markdown or WeasyPrint). The tests assert
what a juror sees (no error, the note, the text cut); the times are in benchmarks/.
"""

from __future__ import annotations

import io
import os
import re
import unicodedata
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from django.utils.safestring import SafeString
from pypdf import PdfReader

from grading.models import Assignment, Paper
from grading.pdf import Sheet, SheetItem, SheetTask, paper_pdf, paper_text, papers_write, sheets_pdf
from grading.text import (
    ANSWER_LIMIT,
    BREAK_EVERY,
    ELEMENT_LIMIT,
    EXPLANATION_LIMIT,
    HTML_DEPTH_LIMIT,
    LINE_LIMIT,
    MARKUP_BUDGET,
    NESTING_LIMIT,
    ZERO_WIDTH_SPACE,
    breakable_html,
    breakable_text,
    explanation_html,
    flatten_nesting,
    html_depth,
    html_elements,
    markup_load,
    scan_cost,
)
from puzzles.models import Output, System
from tests.grading.render_faults import paper_fails_to_render

BIG = 30_000  # characters: three times the limit

# name -> text; each over a bound of grading.text, some over several.
PATHOLOGICAL = {
    "list nested 500 deep by indentation": "".join("    " * i + "- x\n" for i in range(500)),
    "list nested 5000 deep on one line": "- " * 5000 + "deepest",
    "ordered list nested 3000 deep": "1. " * 3000 + "deepest",
    "blockquote nested 5000 deep": "> " * 5000 + "deepest",
    "blockquote markers without spaces": ">" * 20_000 + "deepest",
    "quotes and lists mixed": "> - 1. " * 2000 + "deepest",
    "a run of [": "[" * BIG,
    "a run of ![": "![" * (BIG // 2),
    "brackets nested 5000 deep": "[" * 5000 + "x" + "]" * 5000,
    "unclosed link destinations": "[a](" * (BIG // 4),
    "escaped brackets": "- \\][" * (BIG // 5),
    "escaped backticks": "\\``" * (BIG // 3),
    "unclosed HTML tags": "<a " * (BIG // 3),
    "HTML comments after unclosed tags": "<b><!-->" * (BIG // 8),
    "code spans of uneven backtick runs": "```:`" * (BIG // 5),
    "code spans around footnote references": "```#]```[^</p></p>" * (BIG // 18),
    "HTML lists nested 2000 deep": "<ul><li>" * 2000 + "deepest",
    "HTML blockquotes nested 1000 deep": "<blockquote>" * 1000 + "deepest",
    "a huge single line": "a" * 1_000_000,
    "a huge line of words": "lorem ipsum " * 100_000,
    "many lines": "line\n" * 100_000,
    "many paragraphs": "paragraph\n\n" * 50_000,
    "many links": "[link](http://x.invalid/) " * 3000,
    "many emphasis markers": "*a* **b** _c_ " * 3000,
    "emphasis markers unclosed": "**a " * 10_000,
    "a table of 5000 rows": "|a|b|\n|-|-|\n" + "|a|b|\n" * 5000,
    "a code block of one long line": "```\n" + "x" * BIG + "\n```",
    "a mixture": "> - [a](`<b *c* ![d] \\]\n" * 2000,
    # Whitespace to Python, no break to WeasyPrint: 2-3 s a paper before they were broken.
    "runs of U+2007 figure spaces": "x\u2007" * (BIG // 2),
    "runs of U+202F narrow no-break spaces": "x\u202f" * (BIG // 2),
    "a long combining run": "e" + "\u0301" * BIG,
}


@pytest.mark.parametrize("text", PATHOLOGICAL.values(), ids=PATHOLOGICAL.keys())
def test_any_explanation_renders_bounded(text):
    html = explanation_html(text)
    assert html  # rendered, not lost
    assert html_depth(html) <= HTML_DEPTH_LIMIT
    assert html_elements(html) <= max(ELEMENT_LIMIT, 2 * LINE_LIMIT) + 4
    # The shown part is at most the limit (escaping and markup aside).
    assert len(html) < 6 * EXPLANATION_LIMIT
    if len(text) > EXPLANATION_LIMIT or text.count("\n") >= LINE_LIMIT:
        assert f"explanation truncated ({len(text)} characters)" in html
        assert "full text in the download" in html


def test_deep_nesting_is_flattened_at_the_limit_and_keeps_the_text():
    html = explanation_html("- " * 50 + "deepest")
    assert html.count("<ul>") == NESTING_LIMIT
    assert "deepest" in html
    assert "- - -" in html  # the markers beyond the limit are shown as text


def test_flatten_nesting_escapes_the_markers_beyond_the_limit():
    line = "> " * (NESTING_LIMIT + 2) + "x"
    assert flatten_nesting(line) == "> " * NESTING_LIMIT + "\\> \\> x"
    assert flatten_nesting("1. " * (NESTING_LIMIT + 1) + "x").endswith("1\\. x")
    indented = " " * (4 * NESTING_LIMIT + 20) + "code"
    assert flatten_nesting(indented) == " " * (4 * NESTING_LIMIT + 3) + "code"
    shallow = "    - a\n> > b\n- - c"
    assert flatten_nesting(shallow) == shallow


def test_over_the_scan_budget_the_text_is_shown_escaped_and_whole():
    text = "[" * 5000 + "<b>kept</b> & <script>x</script>"
    html = explanation_html(text)
    assert "shown as plain text" in html
    assert "[" * 5000 in html
    assert "&lt;script&gt;" in html and "<script" not in html
    assert "&lt;b&gt;kept&lt;/b&gt; &amp;" in html


def test_markup_load_weighs_markup_by_the_length_of_its_block():
    prose = "The plural of *sorel* 'house' is *sorel-ek* (see [1]). " * 30
    assert markup_load(prose) < MARKUP_BUDGET // 10
    assert markup_load("```:`" * 2000) > MARKUP_BUDGET  # dense markup in one long block
    assert markup_load("\n\n".join(["```:`" * 20] * 100)) < MARKUP_BUDGET  # short blocks


def test_too_many_elements_for_a_pdf_are_shown_as_the_text_written():
    html = explanation_html("*a* **b** `c` " * 200)
    assert "shown as plain text" in html
    assert "*a* **b** `c`" in html
    assert "<em>a</em>" not in html


def test_scan_cost_is_small_for_prose_and_quadratic_for_unclosed_openers():
    prose = "The suffix [ek] marks plurals (see [1]); `sorel-ek` <b>houses</b>. " * 100
    assert scan_cost(prose) < 10 * len(prose)
    assert scan_cost("[" * 1000) == sum(range(1, 1001))
    assert scan_cost("\\[" * 1000) == 0  # escaped: no link pattern scans from them
    assert scan_cost("[x][y]\n\n" * 1000) == 4000  # blocks end at blank lines
    # Comments search the rest of the block for each inline tag left open.
    assert scan_cost("<b>x</b> <!-- c --> " * 100) < 10_000
    assert scan_cost("<b><!-->" * 1000) > 1_000_000


def test_ordinary_markdown_still_renders():
    html = explanation_html(
        "**ma-** is *my*; see [the table](http://x.invalid/).\n\n"
        "- plural `-ek`\n    - after vowels `-k`\n\n> a quote\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    assert "<strong>ma-</strong>" in html and "the table" in html
    assert html.count("<ul>") == 2 and "<blockquote>" in html and "<td>1</td>" in html
    assert "plain text" not in html and "truncated" not in html


def test_breakable_html_breaks_long_runs_and_keeps_character_references():
    html = breakable_html("<p>" + "a&amp;" * 40 + "</p><p>short words</p>")
    assert ZERO_WIDTH_SPACE in html
    assert html.replace(ZERO_WIDTH_SPACE, "") == "<p>" + "a&amp;" * 40 + "</p><p>short words</p>"
    assert "&am" + ZERO_WIDTH_SPACE not in html
    assert "<p>short words</p>" in html


# Where WeasyPrint may break a line: a space (not a no-break one) or a zero-width space.
_BREAKS = re.compile("[ \\t\\n\\r\\u200b]")


def _longest_unbreakable(text: str) -> int:
    return max(len(part) for part in _BREAKS.split(text))


@pytest.mark.parametrize(
    "run",
    [
        "x\u2007" * 500,
        "x\u202f" * 500,
        "x\u00a0" * 500,
        "12\u2060" * 300,
        "e" + "\u0301" * 1000,
        "\u0301" * 1000,
        "ŋ̃̀" * 400,
    ],
    ids=["U+2007", "U+202F", "U+00A0", "U+2060", "combining", "marks alone", "clusters"],
)
def test_runs_that_only_look_spaced_get_break_opportunities(run):
    html = f"<p>{run}</p>"
    for before, after in ((run, breakable_text(run)), (html, breakable_html(html))):
        assert _longest_unbreakable(after) <= 2 * BREAK_EVERY + 4
        assert _unbroken(after) == _unbroken(before)  # only breaks (and mark bases) added


def _unbroken(text: str) -> str:
    return text.replace(ZERO_WIDTH_SPACE, "").replace("\u00a0", "")


def test_a_break_never_parts_a_letter_from_its_marks():
    word = "ŋ̃̀" * 40  # clusters of three code points, no space: 32 falls inside one
    broken = breakable_text(word)
    assert ZERO_WIDTH_SPACE in broken
    assert all(
        not unicodedata.category(part[0]).startswith("M") for part in broken.split(ZERO_WIDTH_SPACE)
    )


def test_marks_after_a_break_inside_a_long_cluster_stand_on_a_no_break_space():
    broken = breakable_text("e" + "\u0301" * 100)
    parts = broken.split(ZERO_WIDTH_SPACE)
    assert parts[0] == "e" + "\u0301" * (BREAK_EVERY - 1)
    assert all(part.startswith("\u00a0\u0301") for part in parts[1:])
    assert broken.count("\u0301") == 100


# --- the grading page and the PDF -----------------------------------------------------------


@pytest.fixture
def assignment(demo):
    return (
        Assignment.objects.filter(juror__username="juror3")
        .select_related("paper__problem")
        .order_by("paper__code")
        .first()
    )


def _output(paper: Paper) -> Output:
    return (
        Output.objects.filter(system_id=paper.system_id, task__problem=paper.problem_id)
        .order_by("task__number")
        .first()
    )


def _pdf_text(data: bytes) -> str:
    text = "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)
    return " ".join(text.replace(ZERO_WIDTH_SPACE, "").split())  # lines wrap anywhere


PAGE_CASES = [
    "list nested 500 deep by indentation",
    "blockquote nested 5000 deep",
    "a run of [",
    "a huge single line",
    "many links",
    "many emphasis markers",
    "HTML lists nested 2000 deep",
    "a mixture",
]


@pytest.mark.parametrize("case", PAGE_CASES)
def test_grading_page_shows_a_hostile_explanation_cut_with_the_note(client, assignment, case):
    output = _output(assignment.paper)
    output.explanation = PATHOLOGICAL[case] + "\nTHE-END-MARKER"
    output.save(update_fields=["explanation"])
    client.force_login(assignment.juror)

    response = client.get(reverse("grading:grade", args=[assignment.paper.code]))

    assert response.status_code == 200
    body = response.content.decode()
    assert f"explanation truncated ({len(output.explanation)} characters)" in body
    assert "THE-END-MARKER" not in body  # cut
    assert reverse("grading:paper_text", args=[assignment.paper.code]) in body


@pytest.mark.parametrize("case", PAGE_CASES)
def test_paper_pdf_renders_a_hostile_explanation_cut_with_the_note(assignment, case):
    output = _output(assignment.paper)
    output.explanation = PATHOLOGICAL[case] + "\nTHE-END-MARKER"
    output.save(update_fields=["explanation"])

    text = _pdf_text(paper_pdf(assignment.paper))

    assert assignment.paper.code in text
    assert f"explanation truncated ({len(output.explanation)} characters)" in text
    assert "THE-END-MARKER" not in text


def test_a_huge_answer_is_cut_on_the_page_and_in_the_pdf(client, assignment):
    output = _output(assignment.paper)
    huge = "x" * 1_000_000
    items = list(output.parsed_items or [""])
    items[0] = huge
    output.parsed_items = items
    output.extracted_items = items
    output.save(update_fields=["parsed_items", "extracted_items"])
    client.force_login(assignment.juror)

    body = client.get(reverse("grading:grade", args=[assignment.paper.code])).content.decode()
    assert "answer truncated (1000000 characters)" in body
    assert "x" * ANSWER_LIMIT in body and "x" * (ANSWER_LIMIT + 1) not in body

    text = _pdf_text(paper_pdf(assignment.paper))
    assert "answer truncated (1000000 characters)" in text
    assert "full text in the download" in text


def test_the_full_text_download_holds_everything_and_no_system(client, assignment):
    output = _output(assignment.paper)
    output.explanation = "word " * 10_000 + "THE-END-MARKER"
    output.save(update_fields=["explanation"])
    client.force_login(assignment.juror)

    response = client.get(reverse("grading:paper_text", args=[assignment.paper.code]))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert f'filename="{assignment.paper.code}.txt"' in response["Content-Disposition"]
    body = response.content.decode()
    assert output.explanation in body
    assert body == paper_text(assignment.paper)
    for system in System.objects.all():
        assert system.name not in body
        assert not system.team or system.team not in body


def test_the_full_text_download_follows_who_may_read_the_paper(client, demo):
    paper = Paper.objects.exclude(assignments__juror__username="juror3").first()
    url = reverse("grading:paper_text", args=[paper.code])
    client.force_login(get_user_model().objects.get(username="juror3"))
    assert client.get(url).status_code == 404  # not their paper
    client.force_login(get_user_model().objects.get(username="organizer"))
    assert client.get(url).status_code == 200  # as on the paper's discussion threads


def test_render_papers_writes_every_pdf_of_a_problem_with_a_hostile_explanation(demo, tmp_path):
    paper = Paper.objects.filter(problem__number=1).order_by("code").first()
    output = _output(paper)
    output.explanation = PATHOLOGICAL["list nested 500 deep by indentation"]
    output.save(update_fields=["explanation"])

    call_command(
        "render_papers", "demo", "--out", str(tmp_path), "--problem", "1", stdout=StringIO()
    )

    codes = set(Paper.objects.filter(problem__number=1).values_list("code", flat=True))
    assert {p.name for p in tmp_path.glob("*.pdf")} == {f"{c}.pdf" for c in codes}
    assert "explanation truncated" in _pdf_text((tmp_path / f"{paper.code}.pdf").read_bytes())


@pytest.fixture
def one_paper_fails(demo, monkeypatch):
    """Make one paper of problem 1 fail to render, as a shape the bounds missed would."""
    victim = Paper.objects.filter(problem__number=1).order_by("code").first()
    paper_fails_to_render(
        monkeypatch, victim.code, RecursionError("maximum recursion depth exceeded")
    )
    return victim


def test_papers_write_writes_the_others_and_records_the_failure(one_paper_fails, tmp_path):
    papers = list(Paper.objects.filter(problem__number=1).order_by("code"))

    written = papers_write(papers, tmp_path)

    assert len(written) == len(papers) - 1
    assert not (tmp_path / f"{one_paper_fails.code}.pdf").exists()
    reason = (tmp_path / f"{one_paper_fails.code}.error").read_text()
    assert reason.startswith("RecursionError: maximum recursion depth exceeded")
    for path in written:
        assert path.read_bytes().startswith(b"%PDF")


def test_render_papers_exits_non_zero_naming_the_failed_paper_after_writing_the_rest(
    one_paper_fails, tmp_path
):
    out, err = StringIO(), StringIO()
    with pytest.raises(
        CommandError, match=f"1 of 12 papers failed to render: {one_paper_fails.code}"
    ):
        call_command("render_papers", "demo", "--out", str(tmp_path), stdout=out, stderr=err)

    assert out.getvalue().startswith("11 PDF papers written")
    assert f"{one_paper_fails.code}: RecursionError" in err.getvalue()
    assert len(list(tmp_path.glob("*.pdf"))) == 11


def test_render_papers_renders_afresh_into_a_folder_it_wrote_before(demo, tmp_path):
    call_command(
        "render_papers", "demo", "--out", str(tmp_path), "--problem", "2", stdout=StringIO()
    )
    stale = next(tmp_path.glob("*.pdf"))
    os.utime(stale, (0, 0))

    printed = StringIO()
    call_command("render_papers", "demo", "--out", str(tmp_path), "--problem", "2", stdout=printed)

    assert printed.getvalue().startswith("4 PDF papers written")
    assert stale.stat().st_mtime > 0


def test_every_page_of_a_long_paper_names_its_code():
    sheet = Sheet(
        code="P2-WWNH",
        competition="Demo Olympiad 2026",
        problem_number=2,
        problem_title="Oskrunic numerals",
        language="Oskrunic (invented)",
        context="ot 1\n" * 80,  # problem data that fills the first page
        tasks=[
            SheetTask(
                number=1,
                kind="Translation",
                query="Translate.",
                items=[SheetItem("1", "", "ot")],
                has_prompts=False,
                explanation=SafeString("<p>One.</p>" * 30),
                explanation_same_as=None,
            )
        ],
        grid=[],
    )

    reader = PdfReader(io.BytesIO(sheets_pdf([sheet], title="Paper P2-WWNH")))

    assert len(reader.pages) > 2
    # The running header, now that the code box is positioned rather than floated.
    for page in reader.pages:
        assert "Paper P2-WWNH" in page.extract_text()
