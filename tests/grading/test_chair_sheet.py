"""The chair's overview and sheet: orders, states in words, deciding a cell in place,
the next discrepancy."""

from __future__ import annotations

import re
from decimal import Decimal
from types import SimpleNamespace

import pytest
from django.urls import reverse

from grading import services
from grading.consensus import DECIDED, DISCREPANT
from grading.models import Resolution
from grading.selectors import (
    SheetFilters,
    chair_overview_page,
    juror_progress,
    next_discrepancy,
    sheet_page,
)
from grading.sheet_rules import absolute_differences, next_open, sort_rows
from tests.grading.factories import (
    ChairFactory,
    JurorFactory,
    OrganizerFactory,
    PaperFactory,
    ProblemJuryFactory,
    paper_graded,
    rubric_with,
)
from tests.puzzles.factories import OutputFactory, TaskFactory

D = Decimal
HX = {"HTTP_HX_REQUEST": "true"}

# --- pure rules ------------------------------------------------------------------------------


def test_absolute_differences_add_every_pair_and_leave_out_cleared_marks():
    assert absolute_differences([D(2), D(0)]) == D(2)
    assert absolute_differences([D(1), D("0.5"), None]) == D("0.5")
    assert absolute_differences([D(0), D(1), D(2)]) == D(4)  # 1 + 2 + 1
    assert absolute_differences([]) == D(0)


def _row(code, discrepancies, differences):
    return SimpleNamespace(
        paper=SimpleNamespace(code=code), discrepancies=discrepancies, differences=D(differences)
    )


def test_sorts_rank_by_discrepant_criteria_or_by_differences_and_keep_code_order_in_ties():
    rows = [_row("A", 1, "0.5"), _row("B", 2, "4"), _row("C", 0, "0"), _row("D", 2, "1")]
    assert [r.paper.code for r in sort_rows(rows, "code")] == ["A", "B", "C", "D"]
    assert [r.paper.code for r in sort_rows(rows, "discrepancies")] == ["B", "D", "A", "C"]
    assert [r.paper.code for r in sort_rows(rows, "differences")] == ["B", "D", "A", "C"]
    tied = [_row("A", 1, "3"), _row("B", 2, "3")]
    assert [r.paper.code for r in sort_rows(tied, "differences")] == ["B", "A"]


def test_next_open_goes_forward_wraps_around_and_skips_closed_cells():
    cells = [("a", False), ("b", True), ("c", False), ("d", True)]
    assert next_open(cells, None) == "b"
    assert next_open(cells, "b") == "d"
    assert next_open(cells, "c") == "d"
    assert next_open(cells, "d") == "b"  # wraps around
    assert next_open(cells, "gone") == "b"  # a cell no longer shown: from the start
    assert next_open([("a", True)], "a") is None  # the one open cell is the current one
    assert next_open([("a", False)], None) is None


def test_juror_progress_counts_submitted_in_progress_and_not_started():
    rows = [("bo", True, 3), ("an", False, 1), ("an", False, 0), ("an", True, 3)]
    found = juror_progress(rows)
    assert [(j.username, j.submitted, j.in_progress, j.not_started) for j in found] == [
        ("an", 1, 1, 1),
        ("bo", 1, 0, 0),
    ]


# --- a problem with three papers ---------------------------------------------------------------


@pytest.fixture
def sheet(db):
    """Three papers graded by anna and boris (cy joins two of them):

    P1: a 2/0, b 0/2 (discrepant, cancelling out in the totals), c 1/1;
    P2: a 1/0.5 (discrepant), b and c 1/1, cy not started;
    P3: a 1/1 and the rest agreed, cy with a draft mark.
    """
    task = TaskFactory(answer_key=[["one"], ["two"]])
    problem = task.problem
    ProblemJuryFactory(problem=problem, tolerance=D(0))
    rubric = rubric_with(problem, ("a", 2, "0.5"), ("b", 2, "0.5"), ("c", 2, "0.5"))
    rubric.criteria.filter(code="a").update(task=task, items=[1])
    anna, boris, cy = (JurorFactory(username=n) for n in ("anna", "boris", "cy"))
    papers = [PaperFactory(problem=problem, code=f"P9-000{i}") for i in (1, 2, 3)]
    for paper in papers:
        OutputFactory(system=paper.system, task=task, raw_text='["uno-answer", "dos-answer"]')
    paper_graded(papers[0], {anna: {"a": 2, "b": 0, "c": 1}, boris: {"a": 0, "b": 2, "c": 1}})
    paper_graded(papers[1], {anna: {"a": 1, "b": 1, "c": 1}, boris: {"a": "0.5", "b": 1, "c": 1}})
    paper_graded(papers[2], {anna: {"a": 1, "b": 1, "c": 1}, boris: {"a": 1, "b": 1, "c": 1}})
    paper_graded(papers[1], {cy: {}}, submit=False)
    paper_graded(papers[2], {cy: {"a": 1}}, submit=False)
    criteria = {c.code: c for c in rubric.criteria.all()}
    return SimpleNamespace(
        problem=problem, papers=papers, criteria=criteria, chair=ChairFactory(), anna=anna
    )


def _codes(page):
    return [row.paper.code for row in page.rows]


def test_differences_rank_a_paper_whose_differences_cancel_out_in_the_totals(sheet):
    by_code = sheet_page(sheet.problem, SheetFilters())
    p1, p2, _ = by_code.rows
    assert p1.spread == 0 and p2.spread == D("0.5")  # the spread of totals hides P1
    assert p1.differences == D(4) and p2.differences == D("0.5")
    page = sheet_page(sheet.problem, SheetFilters(sort="differences"))
    assert _codes(page) == ["P9-0001", "P9-0002", "P9-0003"]
    page = sheet_page(sheet.problem, SheetFilters(sort="discrepancies", only=True))
    assert _codes(page) == ["P9-0001", "P9-0002"]


def test_sort_is_read_from_the_query_and_links_keep_the_filters(client, sheet):
    client.force_login(sheet.chair)
    url = reverse("grading:sheet", args=[sheet.problem.competition.slug, sheet.problem.number])
    response = client.get(url, {"sort": "differences", "only": "discrepancies"})
    page = response.context["page"]
    assert page.filters.sort == "differences" and page.filters.only
    links = {s.value: s.query for s in page.sorts}
    assert links["discrepancies"] == "only=discrepancies&sort=discrepancies"
    assert links["code"] == "only=discrepancies"
    assert 'aria-current="true">largest differences between jurors</a>' in response.content.decode()
    assert SheetFilters.from_query({"sort": "bogus"}).sort == "code"


def test_overview_counts_papers_per_juror_and_cells_by_state(client, sheet):
    paper, criterion = sheet.papers[1], sheet.criteria["a"]
    services.criterion_decide(
        paper=paper, criterion=criterion, points="1", reason="half", chair=sheet.chair
    )
    page = chair_overview_page(sheet.problem)
    progress = {j.username: (j.submitted, j.in_progress, j.not_started) for j in page.jurors}
    assert progress == {"anna": (3, 0, 0), "boris": (3, 0, 0), "cy": (0, 1, 1)}
    # P1: ≠ ≠ =; P2: ✓ … …; P3: … … …
    assert (page.discrepant, page.decided, page.agreed, page.waiting) == (2, 1, 1, 5)
    assert page.open == 7 and page.papers == 3 and page.criteria == 3
    client.force_login(sheet.chair)
    args = [sheet.problem.competition.slug, sheet.problem.number]
    body = client.get(reverse("grading:chair_overview", args=args)).content.decode()
    assert reverse("grading:sheet", args=args) in body
    assert '<th scope="row">cy</th>' in body


def test_sheet_says_each_state_in_words_and_names_jurors_and_values(client, sheet):
    client.force_login(sheet.chair)
    args = [sheet.problem.competition.slug, sheet.problem.number]
    body = client.get(reverse("grading:sheet", args=args)).content.decode()
    assert "<caption>" in body
    assert "{#" not in body  # no template comment shown (a {# #} spans one line only)
    assert '/?"' not in body  # no link ending in a bare "?"
    assert body.count('<th scope="row" class="paper">') == 3
    a = sheet.criteria["a"]
    cell = re.search(rf'<td id="cell-P9-0001-{a.pk}" class="cell discrepant">.*?</td>', body, re.S)
    assert cell, body
    assert "≠ discrepant" in cell.group()
    # Heard: the cell in words; the marks and the symbol shown are hidden from it.
    assert '<span class="visually-hidden">P9-0001 a: anna 2, boris 0: discrepant</span>' in (
        cell.group()
    )
    assert '<span aria-hidden="true">2 · 0<br>≠ discrepant</span>' in cell.group()
    assert "aria-label" not in cell.group()  # its name must hold the visible text (axe)
    c = sheet.criteria["c"]
    agreed = re.search(rf'<td id="cell-P9-0001-{c.pk}" class="cell agreed">.*?</td>', body, re.S)
    # An agreed cell shows the mark that goes into the total.
    assert "= agreed → 1" in agreed.group()
    assert "anna 1, boris 1: agreed, 1 counts" in agreed.group()
    assert 'title="anna' not in body  # the jurors are no hover tooltip


def _decide_url(sheet, paper, code="a", query=""):
    args = [sheet.problem.competition.slug, sheet.problem.number, paper.code]
    url = reverse("grading:sheet_decide", args=[*args, sheet.criteria[code].pk])
    return f"{url}?{query}" if query else url


def test_a_discrepant_cell_opens_a_form_with_the_answers_of_its_items(client, sheet):
    client.force_login(sheet.chair)
    response = client.get(_decide_url(sheet, sheet.papers[0]), **HX)
    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="sheet_points"' in body and 'id="sheet_reason"' in body
    assert "uno-answer" in body and "dos-answer" not in body  # criterion a is item 1
    assert "anna 2, boris 0: discrepant" in body
    # Without htmx the cell is its thread page, as before.
    plain = client.get(_decide_url(sheet, sheet.papers[0]))
    thread = reverse("grading:thread", args=[sheet.papers[0].code, sheet.criteria["a"].pk])
    assert plain.status_code == 302 and plain["Location"] == thread


def test_deciding_from_the_sheet_rerenders_the_row_in_place(client, sheet, monkeypatch):
    calls = []
    decide = services.criterion_decide

    def spy(**kwargs):
        calls.append(kwargs)
        return decide(**kwargs)

    monkeypatch.setattr(services, "criterion_decide", spy)  # the thread page's write path
    client.force_login(sheet.chair)
    paper = sheet.papers[0]
    response = client.post(
        _decide_url(sheet, paper, query="sort=differences"),
        {"points": "1.5", "reason": "half the rule"},
        **HX,
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert len(calls) == 1 and calls[0]["chair"] == sheet.chair
    resolution = Resolution.objects.get(paper=paper, criterion=sheet.criteria["a"])
    assert resolution.points == D("1.5") and resolution.reason == "half the rule"
    row = re.search(
        r'<template>\s*<tr id="paper-P9-0001" hx-swap-oob="outerHTML">.*?</tr>', body, re.S
    )
    assert row, body
    a = sheet.criteria["a"]
    assert f'<td id="cell-P9-0001-{a.pk}" class="cell decided">' in row.group()
    assert "✓ decided → 1.5" in row.group()
    assert 'hx-swap-oob="innerHTML">Decision recorded: P9-0001 a.' in body
    # "Next discrepancy" goes on from this cell, in the same order.
    assert f"after=P9-0001%3A{a.pk}" in body and "sort=differences" in body


@pytest.mark.parametrize(
    ("points", "reason", "field", "message"),
    [
        ("9", "too much", "points", "9"),
        ("0.3", "off the step", "points", "0.3"),
        ("1", "", "reason", "1"),
    ],
)
def test_a_refused_decision_keeps_the_typed_values_and_ties_the_error_to_its_field(
    client, sheet, points, reason, field, message
):
    client.force_login(sheet.chair)
    response = client.post(
        _decide_url(sheet, sheet.papers[0]), {"points": points, "reason": reason}, **HX
    )
    body = response.content.decode()
    assert response.status_code == 422
    assert not Resolution.objects.exists()
    assert f'value="{points}"' in body
    assert f'value="{reason}"' in body if reason else 'name="reason" value=' not in body
    invalid = re.findall(r"<input [^>]*aria-invalid=\"true\"[^>]*>", body)
    assert len(invalid) == 1 and f'id="sheet_{field}"' in invalid[0]
    assert f'aria-describedby="sheet_{field}_error"' in invalid[0]
    assert re.search(rf'<p class="error" id="sheet_{field}_error" role="alert">', body)
    assert "<template>" not in body  # the row stays as it was


def test_without_htmx_a_decision_returns_to_the_sheet_at_its_cell(client, sheet):
    client.force_login(sheet.chair)
    paper = sheet.papers[1]
    response = client.post(_decide_url(sheet, paper), {"points": "1", "reason": "r"})
    args = [sheet.problem.competition.slug, sheet.problem.number]
    cell = f"#cell-{paper.code}-{sheet.criteria['a'].pk}"
    assert response["Location"] == reverse("grading:sheet", args=args) + cell
    assert Resolution.objects.get().points == 1


def test_only_a_chair_who_grades_none_of_the_problem_decides_from_the_sheet(client, sheet):
    url = _decide_url(sheet, sheet.papers[0])
    for user in (sheet.anna, OrganizerFactory()):
        client.force_login(user)
        assert client.get(url, **HX).status_code == 403
        assert client.post(url, {"points": "1", "reason": "r"}, **HX).status_code == 403
    # A chair still grading a paper of the problem is refused too.
    grading_chair = ChairFactory()
    paper_graded(sheet.papers[2], {grading_chair: {}}, submit=False)
    client.force_login(grading_chair)
    assert client.post(url, {"points": "1", "reason": "r"}, **HX).status_code == 403
    assert not Resolution.objects.exists()
    # A paper of another problem, or a criterion of none, is a 404.
    client.force_login(sheet.chair)
    other = PaperFactory()
    args = [sheet.problem.competition.slug, sheet.problem.number]
    stranger = reverse("grading:sheet_decide", args=[*args, other.code, sheet.criteria["a"].pk])
    assert client.get(stranger, **HX).status_code == 404
    nowhere = reverse("grading:sheet_decide", args=[*args, sheet.papers[0].code, 999999])
    assert client.get(nowhere, **HX).status_code == 404


def test_next_discrepancy_follows_the_sheets_order_and_wraps_around(sheet):
    a, b = sheet.criteria["a"].pk, sheet.criteria["b"].pk
    by_code = SheetFilters()
    assert next_discrepancy(sheet.problem, by_code) == ("P9-0001", a)
    assert next_discrepancy(sheet.problem, by_code, f"P9-0001:{a}") == ("P9-0001", b)
    assert next_discrepancy(sheet.problem, by_code, f"P9-0001:{b}") == ("P9-0002", a)
    assert next_discrepancy(sheet.problem, by_code, f"P9-0002:{a}") == ("P9-0001", a)
    assert next_discrepancy(sheet.problem, by_code, "nonsense") == ("P9-0001", a)
    services.criterion_decide(
        paper=sheet.papers[0],
        criterion=sheet.criteria["b"],
        points="1",
        reason="r",
        chair=sheet.chair,
    )
    assert next_discrepancy(sheet.problem, by_code, f"P9-0001:{a}") == ("P9-0002", a)


def test_next_discrepancy_opens_its_form_or_says_none_is_left(client, sheet):
    client.force_login(sheet.chair)
    args = [sheet.problem.competition.slug, sheet.problem.number]
    url = reverse("grading:sheet_next", args=args)
    a = sheet.criteria["a"].pk
    body = client.get(url, {"after": f"P9-0001:{sheet.criteria['b'].pk}"}, **HX).content.decode()
    assert f'data-cell="cell-P9-0002-{a}"' in body and 'id="sheet_points"' in body
    plain = client.get(url)
    assert plain["Location"] == reverse("grading:thread", args=["P9-0001", a])
    for paper, code in ((sheet.papers[0], "a"), (sheet.papers[0], "b"), (sheet.papers[1], "a")):
        services.criterion_decide(
            paper=paper, criterion=sheet.criteria[code], points="1", reason="r", chair=sheet.chair
        )
    body = client.get(url, **HX).content.decode()
    assert "No open discrepancy left on this sheet." in body
    assert client.get(url)["Location"] == reverse("grading:sheet", args=args)


@pytest.mark.parametrize("criterion", ["\u00b2", "\u0661", "9" * 5000, "-1", " 1", ""])
def test_a_malformed_after_starts_from_the_first_open_discrepancy(client, sheet, criterion):
    # "²" and "١" pass str.isdigit() but int() refuses them; 5,000 digits pass its limit.
    client.force_login(sheet.chair)
    url = reverse("grading:sheet_next", args=[sheet.problem.competition.slug, sheet.problem.number])
    response = client.get(url, {"after": f"P9-0001:{criterion}"})
    first = reverse("grading:thread", args=["P9-0001", sheet.criteria["a"].pk])
    assert (response.status_code, response["Location"]) == (302, first)


def test_cell_states_are_what_the_consensus_rule_says(sheet):
    page = sheet_page(sheet.problem, SheetFilters())
    states = [[c.state.status for c in row.cells] for row in page.rows]
    assert states[0][:2] == [DISCREPANT, DISCREPANT]
    assert all(
        c.decidable == (c.state.status in (DISCREPANT, DECIDED)) for r in page.rows for c in r.cells
    )


def _luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    low, high = sorted((_luminance(a), _luminance(b)))
    return (high + 0.05) / (low + 0.05)


def test_state_words_on_their_backgrounds_have_a_contrast_of_at_least_4_5():
    from pathlib import Path

    css = (Path(__file__).resolve().parents[2] / "static/css/ioleval.css").read_text()
    ink = re.search(r"--ink: (#[0-9a-f]{6})", css).group(1)
    muted = re.search(r"--muted: (#[0-9a-f]{6})", css).group(1)
    for state, text in (("discrepant", ink), ("agreed", ink), ("decided", ink), ("pending", muted)):
        background = re.search(rf"\.cell\.{state} \{{ background: (#[0-9a-f]{{6}})", css).group(1)
        assert _contrast(text, background) >= 4.5, state
    # States are outlined as well (outlines stay in forced-colours mode, backgrounds go).
    for state in ("discrepant", "decided", "pending"):
        assert re.search(rf"\.cell\.{state} \{{ outline: \d+px (dashed|solid|dotted)", css), state
