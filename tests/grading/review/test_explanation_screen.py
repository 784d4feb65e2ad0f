"""The explanation screen: shares per system, sorting, escaped excerpts, exports, roles, queries."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from grading.review.screen import (
    EXCERPT_CHARS,
    excerpt,
    explanation_rows_sorted,
    explanation_screen_rows,
    sort_key_parse,
)
from tests.grading.factories import PaperFactory
from tests.puzzles.factories import (
    CompetitionFactory,
    OutputFactory,
    ProblemFactory,
    SystemFactory,
    TaskFactory,
)

pytestmark = pytest.mark.django_db

HOSTILE = '=HYPERLINK("http://evil.example","x") <script>alert(1)</script> ' + "long " * 80
# Said twice, so that the screen flags it (templated) and the page shows its excerpt.
HOSTILE_TWICE = f"{HOSTILE}end. {HOSTILE}end."
REPEATED = "The suffix marks plural. The suffix marks plural. The suffix marks plural."


@pytest.fixture
def screened():
    """Four tasks over two problems, and systems that fail the screen in known ways."""
    competition = CompetitionFactory(slug="screen")
    p1 = ProblemFactory(competition=competition, number=1)
    p2 = ProblemFactory(competition=competition, number=2)
    tasks = [
        TaskFactory(problem=p1, number=1),
        TaskFactory(problem=p1, number=2),
        TaskFactory(problem=p2, number=1),
        TaskFactory(problem=p2, number=2),
    ]

    def system(name, explanations, **kwargs):
        made = SystemFactory(competition=competition, name=name, **kwargs)
        for task, text in zip(tasks, explanations, strict=True):
            if text is not None:
                OutputFactory(system=made, task=task, explanation=text)
        return made

    good = system("Good", ["Prefix ma- is 'my'.", "Base six.", "Tense is a suffix.", "Ok -ek."])
    system("Silent", [None, None, "", "Base six."])
    system("Copycat", ["Same words.", "same words", REPEATED, HOSTILE_TWICE])
    system("=cmd|' /C calc'!A0", ["One.", "Two.", "Three.", "Four."])
    SystemFactory(competition=competition, name="Held elsewhere", external=True)
    PaperFactory(system=good, problem=p1)
    return competition


def _rows(competition):
    return {row.system: row for row in explanation_screen_rows(competition)}


def test_shares_count_missing_empty_duplicated_and_templated(screened):
    rows = _rows(screened)
    assert set(rows) == {"Good", "Silent", "Copycat", "=cmd|' /C calc'!A0", "Held elsewhere"}
    silent = rows["Silent"]
    assert silent.screen.n == 4
    assert silent.share("missing") == 0.5
    assert silent.share("empty") == 0.25
    assert silent.share("flagged") == 0.75
    copycat = rows["Copycat"]
    assert copycat.share("duplicated") == 0.5
    assert copycat.share("templated") == 0.5
    assert copycat.share("missing") == 0
    good = rows["Good"]
    assert good.shares == dict.fromkeys(
        ("missing", "empty", "duplicated", "templated", "flagged"), 0
    )
    assert good.flagged == ()
    assert good.selected and not rows["Silent"].selected
    # A system held elsewhere has no outputs: every task is missing.
    held = rows["Held elsewhere"]
    assert held.external and held.share("missing") == 1


def test_flagged_tasks_name_the_task_and_the_problems(screened):
    silent = _rows(screened)["Silent"]
    assert [(t.label, t.kinds, t.excerpt) for t in silent.flagged] == [
        ("1.1", ("missing",), None),
        ("1.2", ("missing",), None),
        ("2.1", ("empty",), ""),
    ]
    copycat = _rows(screened)["Copycat"]
    assert [(t.label, t.kinds) for t in copycat.flagged] == [
        ("1.1", ("duplicated",)),
        ("1.2", ("duplicated",)),
        ("2.1", ("templated",)),
        ("2.2", ("templated",)),
    ]


def test_excerpts_are_bounded():
    assert excerpt(None) is None
    assert excerpt("  a\n\n b  ") == "a b"
    long = excerpt("word " * 100)
    assert len(long) <= EXCERPT_CHARS and long.endswith("…")


def test_a_task_without_an_output_counts_as_missing_even_with_no_system_outputs():
    competition = CompetitionFactory(slug="empty")
    SystemFactory(competition=competition, name="Lonely")
    (row,) = explanation_screen_rows(competition)
    assert row.screen.n == 0 and row.share("missing") is None and row.flagged == ()


# --- sorting ---------------------------------------------------------------------------


def test_sort_whitelist():
    assert sort_key_parse("missing") == "missing"
    assert sort_key_parse("-templated") == "-templated"
    assert sort_key_parse("system") == "system"
    for bad in (None, "", "pk", "-system__name", "share", "--missing", "explanation"):
        assert sort_key_parse(bad) == "-flagged"


def test_rows_sort_by_each_column(screened):
    rows = explanation_screen_rows(screened)

    def names(sort):
        return [r.system for r in explanation_rows_sorted(rows, sort)]

    assert names("system") == ["=cmd|' /C calc'!A0", "Copycat", "Good", "Held elsewhere", "Silent"]
    assert names("-system") == list(reversed(names("system")))
    assert names("-missing")[:2] == ["Held elsewhere", "Silent"]
    assert names("missing")[-2:] == ["Silent", "Held elsewhere"]
    assert names("-duplicated")[0] == "Copycat"
    assert names("-templated")[0] == "Copycat"
    assert names("templated")[-1] == "Copycat"
    assert names("-empty")[0] == "Silent"
    # Copycat and Held elsewhere both flag every task: names break the tie.
    assert names("-flagged")[:3] == ["Copycat", "Held elsewhere", "Silent"]
    assert names("tier") == names("system")  # one tier: names break the tie


def test_the_page_sorts_on_the_server(organizer_client, screened):
    url = reverse("grading:explanations", args=["screen"])
    html = organizer_client.get(url, {"sort": "-empty"}).content.decode()
    assert html.index("Silent") < html.index("Copycat") < html.index("Good")
    assert 'href="?sort=empty"' in html  # the current column's link turns the order round
    assert 'aria-sort="descending"' in html
    # Anything off the whitelist falls back to the default order, never into the ORM.
    response = organizer_client.get(url, {"sort": "system__competition__slug"})
    assert response.status_code == 200
    html = response.content.decode()
    assert html.index("Copycat") < html.index("Silent") < html.index("Good")


# --- the page shows untrusted text escaped and bounded ------------------------------------


def test_excerpts_are_escaped_and_short_on_the_page(organizer_client, screened):
    html = organizer_client.get(reverse("grading:explanations", args=["screen"])).content.decode()
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "long long" in html
    assert "long " * 60 not in html  # the excerpt stops near 200 characters
    assert "end." not in html
    # The system's name is escaped too.
    assert "=cmd|&#x27; /C calc&#x27;!A0" in html
    assert "<details>" in html  # rows expand without JS


def test_excerpt_escaping_where_it_fits(organizer_client, screened):
    system = SystemFactory(competition=screened, name="Tagger")
    task = screened.problems.get(number=1).tasks.get(number=1)
    OutputFactory(system=system, task=task, explanation="<b>bold</b>. <b>bold</b>. <b>bold</b>.")
    html = organizer_client.get(reverse("grading:explanations", args=["screen"])).content.decode()
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "<b>bold</b>" not in html


# --- exports ---------------------------------------------------------------------------


def test_csv_export_neutralizes_formulas(organizer_client, screened):
    response = organizer_client.get(reverse("grading:explanations_export", args=["screen", "csv"]))
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="screen-explanations.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    header, body = rows[0], rows[1:]
    assert header[:5] == ["system", "tier", "external", "selected", "tasks"]
    by_name = {row[0]: dict(zip(header, row, strict=True)) for row in body}
    assert "'=cmd|' /C calc'!A0" in by_name
    assert "=cmd|' /C calc'!A0" not in by_name
    silent = by_name["Silent"]
    assert float(silent["missing_share"]) == 0.5
    assert silent["missing_tasks"] == "1.1 1.2"
    assert silent["empty_tasks"] == "2.1"
    assert by_name["Held elsewhere"]["external"] == "yes"
    assert by_name["Good"]["selected"] == "yes"


def test_xlsx_export_keeps_text_text(organizer_client, screened):
    response = organizer_client.get(
        reverse("grading:explanations_export", args=["screen", "xlsx"]), {"sort": "system"}
    )
    assert response.status_code == 200
    sheet = load_workbook(io.BytesIO(response.content)).active
    first = sheet["A2"]
    assert first.value == "=cmd|' /C calc'!A0"
    assert first.data_type == "s" and first.quotePrefix
    assert isinstance(sheet["F2"].value, float | int)


def test_unknown_export_format_is_404(organizer_client, screened):
    url = reverse("grading:explanations_export", args=["screen", "csv"])
    assert organizer_client.get(url.replace(".csv", ".json")).status_code == 404


# --- roles and queries -------------------------------------------------------------------


@pytest.mark.parametrize("who", ["juror", "chair"])
def test_jurors_and_chairs_are_refused(client, screened, who, request):
    client.force_login(request.getfixturevalue(who))
    for url in (
        reverse("grading:explanations", args=["screen"]),
        reverse("grading:explanations_export", args=["screen", "csv"]),
        reverse("grading:explanations_export", args=["screen", "xlsx"]),
    ):
        response = client.get(url)
        assert response.status_code == 403, url
        assert b"Copycat" not in response.content


def test_anonymous_is_sent_to_login(client, screened):
    response = client.get(reverse("grading:explanations", args=["screen"]))
    assert response.status_code == 302 and "login" in response["Location"]


def test_post_is_refused(organizer_client, screened):
    response = organizer_client.post(reverse("grading:explanations", args=["screen"]))
    assert response.status_code == 405


def test_the_jury_page_links_the_screen(organizer_client, screened):
    html = organizer_client.get(reverse("grading:jury", args=["screen"])).content.decode()
    assert reverse("grading:explanations", args=["screen"]) in html


def _more_systems(competition, n):
    tasks = list(competition.problems.get(number=1).tasks.all())
    for i in range(n):
        system = SystemFactory(competition=competition, name=f"Extra {i}")
        for task in tasks:
            OutputFactory(system=system, task=task, explanation=f"Reason {i}.")


def test_the_selector_reads_in_constant_queries(screened, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        explanation_screen_rows(screened)
    _more_systems(screened, 10)
    with django_assert_max_num_queries(4):
        rows = explanation_screen_rows(screened)
    assert len(rows) == 15


def test_the_page_queries_do_not_grow_with_systems(
    organizer_client, screened, django_assert_max_num_queries
):
    url = reverse("grading:explanations", args=["screen"])
    organizer_client.get(url)
    with django_assert_max_num_queries(12) as few:
        organizer_client.get(url)
    _more_systems(screened, 10)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert organizer_client.get(url).status_code == 200


def test_the_demo_screen_lists_every_system(demo, client):
    from django.contrib.auth import get_user_model

    from puzzles.models import System

    client.force_login(get_user_model().objects.get(username="organizer"))
    response = client.get(reverse("grading:explanations", args=["demo"]))
    assert response.status_code == 200
    rows = {row.system: row for row in response.context["rows"]}
    assert set(rows) == set(System.objects.values_list("name", flat=True))
    # The external system's answers are held elsewhere; the baseline explains nothing.
    assert rows["Frontier-X (held elsewhere)"].share("missing") == 1
    assert rows["Baseline-echo"].share("empty") == 1
    assert rows["Frontier-A"].selected and not rows["Ensemble-3"].selected
    # Each kind of trouble shows up somewhere, and a careful system shows none.
    assert rows["Frontier-A"].flagged == ()
    assert rows["Frontier-B"].share("duplicated") > 0
    assert rows["Team Lexicon"].share("templated") > 0
    html = response.content.decode()
    assert "<script>" not in html.split("</head>", 1)[1] and " onclick=" not in html
