"""The sheet's decision panel: what the jurors said of the cell (their comments on their
marks, the thread's posts) and the count of open discrepancies after a decision."""

from __future__ import annotations

import re
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.urls import reverse

from grading import services
from grading.models import Mark
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    PaperFactory,
    ProblemJuryFactory,
    paper_graded,
    rubric_with,
)

D = Decimal
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def cells(db):
    """Two papers graded by anna and boris with tolerance 0: P1 a 2/0 and b 0/2, P2 a 1/0.5
    (three open discrepancies); cy has a draft of P2 with a comment on a."""
    problem = ProblemJuryFactory(tolerance=D(0)).problem
    rubric = rubric_with(problem, ("a", 2, "0.5"), ("b", 2, "0.5"))
    anna, boris, cy = (JurorFactory(username=n) for n in ("anna", "boris", "cy"))
    papers = [PaperFactory(problem=problem, code=f"P8-000{i}") for i in (1, 2)]
    paper_graded(papers[0], {anna: {"a": 2, "b": 0}, boris: {"a": 0, "b": 2}})
    paper_graded(papers[1], {anna: {"a": 1, "b": 1}, boris: {"a": "0.5", "b": 1}})
    paper_graded(papers[1], {cy: {"a": 2}}, submit=False)
    criteria = {c.code: c for c in rubric.criteria.all()}
    Mark.objects.filter(assignment__juror=anna, assignment__paper=papers[1]).filter(
        criterion=criteria["a"]
    ).update(comment="Item 1 is a <b>plural</b>:\nfull marks.")
    Mark.objects.filter(assignment__juror=cy, criterion=criteria["a"]).update(
        comment="cy's draft thought"
    )
    services.comment_post(
        paper=papers[1], criterion=criteria["a"], author=boris, text="Half: the tense is wrong."
    )
    return SimpleNamespace(problem=problem, papers=papers, criteria=criteria, chair=ChairFactory())


def _decide_url(cells, paper, code="a"):
    args = [cells.problem.competition.slug, cells.problem.number, paper.code]
    return reverse("grading:sheet_decide", args=[*args, cells.criteria[code].pk])


def test_the_panel_shows_the_jurors_comments_and_the_threads_posts(client, cells):
    client.force_login(cells.chair)
    body = client.get(_decide_url(cells, cells.papers[1]), **HX).content.decode()
    comments = re.search(r'<dl class="panel-marks">.*?</dl>', body, re.S)
    assert comments, body
    # anna's comment, escaped, its lines kept; boris gave none; cy's draft is cy's alone.
    assert "anna · 1" in comments.group()
    assert "Item 1 is a &lt;b&gt;plural&lt;/b&gt;:<br>full marks." in comments.group()
    assert "boris" not in comments.group()
    assert "draft thought" not in body
    assert "Discussion (1 post)" in body
    assert "Half: the tense is wrong." in body
    thread = reverse("grading:thread", args=[cells.papers[1].code, cells.criteria["a"].pk])
    assert f'<a href="{thread}">Discussion of P8-0002 a</a>' in body
    # A cell nobody commented on or discussed says so.
    body = client.get(_decide_url(cells, cells.papers[0], "b"), **HX).content.decode()
    assert "No juror commented on their mark." in body
    assert "Discussion (0 posts)" in body and "No post yet." in body


def _open_count(body: str) -> str | None:
    found = re.search(r'<span id="open-count"( hx-swap-oob="outerHTML")?>(.*?)</span>', body)
    return found and found.group(2)


def test_a_decision_sends_the_new_count_of_open_discrepancies_out_of_band(client, cells):
    client.force_login(cells.chair)
    args = [cells.problem.competition.slug, cells.problem.number]
    sheet = client.get(reverse("grading:sheet", args=args)).content.decode()
    assert _open_count(sheet) == "3 open discrepancies."
    response = client.post(
        _decide_url(cells, cells.papers[0]), {"points": "1", "reason": "r"}, **HX
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert '<span id="open-count" hx-swap-oob="outerHTML">2 open discrepancies.</span>' in body
    # Under the sheet's filters: only P2's rows (cy's), where one discrepancy is open.
    response = client.post(
        _decide_url(cells, cells.papers[0], "b") + "?juror=cy",
        {"points": "1", "reason": "r"},
        **HX,
    )
    assert _open_count(response.content.decode()) == "1 open discrepancy."
    response = client.post(
        _decide_url(cells, cells.papers[1]), {"points": "1", "reason": "r"}, **HX
    )
    assert _open_count(response.content.decode()) == "No open discrepancy."
    # Opening a cell or a refused decision leaves the count alone.
    body = client.get(_decide_url(cells, cells.papers[1]), **HX).content.decode()
    assert _open_count(body) is None
    refused = client.post(_decide_url(cells, cells.papers[1]), {"points": "9", "reason": "r"}, **HX)
    assert refused.status_code == 422 and _open_count(refused.content.decode()) is None


def test_without_htmx_the_sheet_it_returns_to_counts_again(client, cells):
    client.force_login(cells.chair)
    response = client.post(_decide_url(cells, cells.papers[0]), {"points": "1", "reason": "r"})
    assert response.status_code == 302
    sheet = client.get(response["Location"]).content.decode()
    assert _open_count(sheet) == "2 open discrepancies."


def test_the_final_column_and_the_legend_are_marked_for_the_layout(client, cells):
    """The Final column's cells carry the class the stylesheet keeps in view; the legend is
    outside the table (a caption as wide as the table was clipped by its region)."""
    client.force_login(cells.chair)
    args = [cells.problem.competition.slug, cells.problem.number]
    body = client.get(reverse("grading:sheet", args=args)).content.decode()
    assert '<th scope="col" class="num final">Final</th>' in body
    assert body.count('<td class="num final">') == 2
    caption = re.search(r"<caption>(.*?)</caption>", body, re.S).group(1)
    assert "Each cell" not in caption
    assert 'aria-describedby="sheet-legend"' in body and '<p id="sheet-legend"' in body
