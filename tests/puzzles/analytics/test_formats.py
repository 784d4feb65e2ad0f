"""Format failures (issue 12, item 3): detection per family, the matrix, the gain, the pages."""

from __future__ import annotations

import csv
import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from openpyxl import load_workbook

from puzzles.analytics.formats.selectors import formats_page
from puzzles.analytics.stats.formats import (
    FAMILIES,
    FLAGS_KEY,
    RULES,
    Failures,
    SystemTasks,
    failures_stored,
    format_failures,
    naive_lines,
    prevalence,
)
from puzzles.extraction import extract_answer
from puzzles.models import Output, System, Task
from puzzles.services import answer_key_amend, competition_rescore
from puzzles.services.imports import ImportSummary, outputs_write
from tests.puzzles.factories import (
    CompetitionFactory,
    OutputFactory,
    ProblemFactory,
    SystemFactory,
    TaskFactory,
)

QUERY = "Translate:\n1. ka\n2. ba"


def _failures(text: str):
    return format_failures(text, 2, extract_answer(text, 2, QUERY).items)


@pytest.mark.parametrize(
    ("text", "before", "after"),
    [
        ('["one", "two"]', set(), set()),
        ("one\ntwo", set(), set()),
        ("1. one\n2. two", set(), set()),
        ("   \n", {"empty"}, {"empty"}),
        ("one", {"wrong_count"}, {"wrong_count"}),
        ("(a) one\n(b) two", {"labels"}, set()),
        ("ka → one\nba → two", {"labels"}, set()),
        ("**one**\n`two`", {"markdown"}, set()),
        ('{"answers": ["one", "two"]}', {"json_one_line", "wrong_count"}, set()),
        ('Answers: ["one", "two"]', {"json_one_line", "text_around", "wrong_count"}, set()),
        ("Sure! Here are the answers:\none\ntwo", {"text_around", "wrong_count"}, set()),
    ],
)
def test_each_family_is_detected_before_and_after_extraction(text, before, after):
    failures = _failures(text)
    assert set(failures.before) == before
    assert set(failures.after) == after


def test_after_extraction_reads_the_extracted_items():
    failures = format_failures("x", 2, ["**one**", "(b) two"])
    assert set(failures.after) == {"markdown", "labels"}
    assert set(format_failures("x", 2, ["", ""]).after) == {"empty"}
    assert set(format_failures("x", 2, ['["one", "two"]', ""]).after) == {
        "json_one_line",
        "wrong_count",
    }


def test_the_naive_reading_cuts_line_numbers_and_says_whether_it_read_a_json_list():
    assert naive_lines("1. kayé\n2) tovak\n", 2) == (["kayé", "tovak"], False)
    assert naive_lines('["kayé", "tovak"]', 2) == (["kayé", "tovak"], True)
    assert naive_lines("", 2) == ([], False)
    assert naive_lines(None, 2) == ([], False)


@pytest.mark.parametrize(
    ("item", "after"),
    [
        # Each markdown mark alone is markdown.
        ("**kayé**", {"markdown"}),
        ("`kayé`", {"markdown"}),
        ("# kayé", {"markdown"}),
        ("```", {"markdown"}),
        ("- kayé", {"markdown"}),  # a bullet is no label
        ("| kayé |", {"markdown"}),  # a table row: a pipe first and at least two
        ("|kayé|", {"markdown"}),
        ("kayé | tovak | sanu", set()),  # pipes inside text are no table
        # A line ending in a colon is text around the answers, unless it is a labelled item.
        ("kayé tovak:", {"text_around"}),
        ("kayé tovak：", {"text_around"}),
        ("b) kayé:", {"labels"}),
        # JSON: an object, or a list of more than one value, read as one item.
        ('["kayé"]', set()),
        ('[["kayé", "tovak"], ["sanu", "xam"]]', {"json_one_line"}),
        ('{"a": {"b": "kayé"}}', {"json_one_line"}),
    ],
)
def test_one_extracted_item_shows_exactly_its_families(item, after):
    assert set(format_failures("x", 1, [item]).after) == after


def test_prevalence_counts_missing_tasks_as_empty_on_top_of_empty_outputs():
    # Three tasks: one output empty at both stages, one with labels before only, one missing.
    entry = SystemTasks(
        system_id=1,
        failures=[
            Failures(frozenset({"empty"}), frozenset({"empty"})),
            Failures(frozenset({"labels"}), frozenset()),
        ],
        n_tasks=3,
    )
    shares = prevalence(entry)
    assert shares["before"]["empty"] == shares["after"]["empty"] == round(2 / 3, 4) == 0.6667
    assert shares["before"]["labels"] == 0.3333 and shares["after"]["labels"] == 0.0
    assert prevalence(SystemTasks(system_id=2, failures=[], n_tasks=0)) == {
        stage: dict.fromkeys(FAMILIES, 0.0) for stage in ("before", "after")
    }


def _competition(n_extra_systems: int = 0, slug: str = "fmt"):
    """Two tasks of two items; A answers both (one clean, one chatty), B one with labels."""
    competition = CompetitionFactory(slug=slug)
    problem = ProblemFactory(competition=competition, number=1)
    t1 = TaskFactory(problem=problem, number=1, query=QUERY, answer_key=[["one"], ["two"]])
    t2 = TaskFactory(problem=problem, number=2, query=QUERY, answer_key=[["three"], ["four"]])
    a = SystemFactory(competition=competition, name="A", tier="challenge")
    b = SystemFactory(competition=competition, name="B", tier="baseline")
    OutputFactory(system=a, task=t1, raw_text='["one", "two"]')
    OutputFactory(system=a, task=t2, raw_text="Sure! Here are the answers:\n**three**\nfour")
    OutputFactory(system=b, task=t1, raw_text="(a) one\n(b) <script>alert(1)</script>")
    for i in range(n_extra_systems):
        extra = SystemFactory(competition=competition, name=f"X{i:03d}")
        OutputFactory(system=extra, task=t1, raw_text="one\ntwo")
        OutputFactory(system=extra, task=t2, raw_text="- three\n- four")
    competition_rescore(competition=competition)
    return competition, a, b


@pytest.mark.django_db
def test_matrix_and_gain_on_a_small_competition():
    competition, a, b = _competition()
    page = formats_page(competition)
    rows = {r.system: r for r in page.rows}
    assert list(rows) == ["A", "B"]
    zero = dict.fromkeys(FAMILIES, 0.0)
    assert rows["A"].shares["before"] == {
        **zero,
        "wrong_count": 0.5,
        "markdown": 0.5,
        "text_around": 0.5,
    }
    assert rows["A"].shares["after"] == zero
    # B answered one task of two (labelled); the missing task is empty at both stages.
    assert rows["B"].shares["before"] == {**zero, "labels": 0.5, "empty": 0.5}
    assert rows["B"].shares["after"] == {**zero, "empty": 0.5}
    # A: before, task 1 right (EM 1) and task 2 read as chatter (EM 0): EM 0.5; after, all right.
    assert rows["A"].score_after == 1.0
    assert rows["A"].score_before < 0.75
    assert rows["A"].gain == round(1.0 - rows["A"].score_before, 4)
    header, body = page.table()
    assert header[:4] == ["system", "tier", "empty_before", "empty_after"]
    assert body[0][-1] == rows["A"].gain


@pytest.fixture
def formats_client(client, organizer):
    client.force_login(organizer)
    return client


@pytest.mark.django_db
def test_page_for_organizers_only(client, organizer, juror):
    competition, a, _ = _competition()
    urls = [
        reverse("puzzles:analytics_formats", args=[competition.slug]),
        reverse("puzzles:analytics_formats_chart", args=[competition.slug]),
        reverse("puzzles:analytics_formats_export", args=[competition.slug, "csv"]),
        reverse("puzzles:analytics_formats_cell", args=[competition.slug, a.pk, "markdown"]),
    ]
    client.force_login(juror)
    assert [client.get(u).status_code for u in urls] == [403] * 4
    client.force_login(organizer)
    assert [client.get(u).status_code for u in urls] == [200] * 4
    page = client.get(urls[0]).content.decode()
    assert urls[3] in page  # the cell links to its drill-down
    chart = client.get(urls[1])
    assert chart["Content-Type"] == "image/svg+xml"
    assert b"<svg" in chart.content and b'role="img"' in chart.content
    detail = client.get(reverse("puzzles:competition", args=[competition.slug])).content
    assert urls[0].encode() in detail


@pytest.mark.django_db
def test_drill_down_lists_the_outputs_behind_a_cell_escaped(formats_client):
    competition, a, b = _competition()
    url = reverse("puzzles:analytics_formats_cell", args=[competition.slug, b.pk, "labels"])
    response = formats_client.get(url)
    html = response.content.decode()
    page = response.context["page"]
    assert [(o.task, o.before, o.after) for o in page.outputs] == [
        (b.outputs.get().task.external_id, True, False)
    ]
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert (
        formats_client.get(
            reverse("puzzles:analytics_formats_cell", args=[competition.slug, a.pk, "nonsense"])
        ).status_code
        == 404
    )
    other = SystemFactory(name="elsewhere")
    assert (
        formats_client.get(
            reverse("puzzles:analytics_formats_cell", args=[competition.slug, other.pk, "labels"])
        ).status_code
        == 404
    )


@pytest.mark.django_db
def test_exports_carry_the_matrix(formats_client):
    competition, _, _ = _competition()
    base = [competition.slug]
    text = formats_client.get(
        reverse("puzzles:analytics_formats_export", args=[*base, "csv"])
    ).content.decode()
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][:2] == ["system", "tier"] and rows[0][-1] == "gain"
    assert [r[0] for r in rows[1:]] == ["A", "B"]
    assert float(rows[2][rows[0].index("labels_before")]) == 0.5
    data = formats_client.get(
        reverse("puzzles:analytics_formats_export", args=[*base, "xlsx"])
    ).content
    sheet = load_workbook(io.BytesIO(data)).active
    values = list(sheet.values)
    assert values[0][0] == "system" and values[2][0] == "B"
    assert (
        formats_client.get(
            reverse("puzzles:analytics_formats_export", args=[*base, "pdf"])
        ).status_code
        == 404
    )


@pytest.mark.django_db
def test_pages_take_as_many_queries_at_both_sizes(formats_client):
    counts = []
    for size, slug in ((0, "small"), (30, "large")):
        competition, a, _ = _competition(size, slug=slug)
        assert System.objects.filter(competition=competition).count() == size + 2
        for name, args in (
            ("puzzles:analytics_formats", [slug]),
            ("puzzles:analytics_formats_chart", [slug]),
            ("puzzles:analytics_formats_export", [slug, "xlsx"]),
            ("puzzles:analytics_formats_cell", [slug, a.pk, "markdown"]),
        ):
            with CaptureQueriesContext(connection) as queries:
                assert formats_client.get(reverse(name, args=args)).status_code == 200
            counts.append((name, len(queries)))
    half = len(counts) // 2
    assert counts[:half] == counts[half:]


# --- stored failures: detected once as the output is prepared or rescored ----------------


def _detector_forbidden(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the page re-detected a stored output's failures")

    monkeypatch.setattr("puzzles.analytics.formats.selectors.format_failures", refuse)


def _detector_counted(monkeypatch) -> list:
    calls: list = []

    def counted(*args, **kwargs):
        calls.append(args)
        return format_failures(*args, **kwargs)

    monkeypatch.setattr("puzzles.analytics.formats.selectors.format_failures", counted)
    return calls


def _shares(competition):
    return {r.system: r.shares for r in formats_page(competition).rows}


@pytest.mark.django_db
def test_outputs_store_their_failures_and_the_pages_read_them(formats_client, monkeypatch):
    competition, a, _ = _competition()
    for output in Output.objects.filter(system__competition=competition).select_related("task"):
        n_items = len(output.task.answer_key)
        detected = format_failures(output.raw_text, n_items, output.extracted_items)
        assert failures_stored(output.format_flags, n_items) == detected
        assert output.format_flags[FLAGS_KEY]["items"] == n_items
    expected = _shares(competition)
    _detector_forbidden(monkeypatch)
    assert _shares(competition) == expected
    for name, args in (
        ("puzzles:analytics_formats", [competition.slug]),
        ("puzzles:analytics_formats_cell", [competition.slug, a.pk, "markdown"]),
    ):
        assert formats_client.get(reverse(name, args=args)).status_code == 200


@pytest.mark.django_db
def test_outputs_without_stored_failures_are_detected_until_a_rescore_stores_them(
    monkeypatch,
):
    competition, _, _ = _competition(3)
    expected = _shares(competition)
    outputs = Output.objects.filter(system__competition=competition)
    for output in outputs:  # as stored before the failures were kept
        output.format_flags.pop(FLAGS_KEY)
        output.save(update_fields=["format_flags"])
    calls = _detector_counted(monkeypatch)
    assert _shares(competition) == expected
    assert len(calls) == outputs.count()
    competition_rescore(competition=competition)
    calls.clear()
    assert _shares(competition) == expected
    assert calls == []
    # the rescore kept the other flags
    assert all("item_count_matches" in o.format_flags for o in outputs)


@pytest.mark.django_db
def test_a_changed_answer_key_is_detected_afresh_and_amendment_refreshes_it(monkeypatch):
    competition, a, _ = _competition()
    task = Task.objects.get(problem__competition=competition, number=1)
    output = Output.objects.get(system=a, task=task)
    assert "wrong_count" not in output.format_flags[FLAGS_KEY]["raw"]
    # a third item: the stored families were detected against two and no longer hold
    task.answer_key = [["one"], ["two"], ["three"]]
    task.save(update_fields=["answer_key"])
    calls = _detector_counted(monkeypatch)
    row = {r.system: r for r in formats_page(competition).rows}["A"]
    assert row.shares["before"]["wrong_count"] == 1.0  # task 2 was already chatty
    assert len(calls) == 2  # the two outputs of task 1
    answer_key_amend(task=task, item_number=3, add="drei")
    output.refresh_from_db()
    assert output.format_flags[FLAGS_KEY] == {
        "raw": ["wrong_count"],
        "extracted": ["wrong_count"],
        "items": 3,
        "rules": RULES,
    }
    calls.clear()
    assert {r.system: r for r in formats_page(competition).rows}["A"].shares == row.shares
    assert calls == []


@pytest.mark.django_db
def test_reimported_outputs_store_their_new_failures():
    competition, a, _ = _competition()
    task = Task.objects.get(problem__competition=competition, number=1)
    summary = ImportSummary(competition=competition.slug)
    outputs_write(
        system=a, rows=[(task, "**one**\n**two**", "")], source="submission", summary=summary
    )
    output = Output.objects.get(system=a, task=task)
    assert output.format_flags[FLAGS_KEY]["raw"] == ["markdown"]


def test_a_chart_is_drawn_once_per_process_for_the_same_data(monkeypatch):
    from ioleval import charts as base
    from puzzles.analytics import charts
    from puzzles.analytics.formats.charts import format_heatmap

    drawn = []
    real = base.render

    def counted(*args, **kwargs):
        drawn.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(base, "render", counted)
    monkeypatch.setattr(charts, "_drawn", type(charts._drawn)())
    first = format_heatmap(["A", "B"], ["empty_before"], [[0.5], [0.0]])
    assert format_heatmap(["A", "B"], ["empty_before"], [[0.5], [0.0]]) == first
    assert len(drawn) == 1
    other = format_heatmap(["A", "B"], ["empty_before"], [[0.5], [1.0]])
    assert other != first and len(drawn) == 2


@pytest.mark.django_db
def test_a_rescore_detects_only_outputs_whose_stored_failures_are_out_of_date(monkeypatch):
    competition, a, _ = _competition(2)
    detected = []

    def counted(*args, **kwargs):
        detected.append(args)
        return format_failures(*args, **kwargs)

    monkeypatch.setattr("puzzles.services.scoring.format_failures", counted)
    task = Task.objects.get(problem__competition=competition, number=2)
    answer_key_amend(task=task, item_number=1, add="drei")  # alternatives: nothing to detect
    assert detected == []
    monkeypatch.setattr("puzzles.analytics.stats.formats.RULES", RULES + 1)  # new rules
    competition_rescore(competition=competition)
    outputs = Output.objects.filter(system__competition=competition)
    assert len(detected) == outputs.count()
    assert {o.format_flags[FLAGS_KEY]["rules"] for o in outputs} == {RULES + 1}
