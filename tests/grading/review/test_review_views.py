"""The review page, its charts and its JSON: who may see them, what they show."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from grading.models import Assignment
from tests.grading.factories import AssignmentFactory, JurorFactory, PaperFactory
from tests.grading.review.builders import review_competition

pytestmark = pytest.mark.django_db


CHARTS = ("scatter", "divergence", "placement", "difficulty", "agreement")


def _urls(slug: str = "rv") -> list[str]:
    return [
        reverse("grading:review", args=[slug]),
        reverse("grading:review", args=[slug]) + "?format=json",
        reverse("grading:review_json", args=[slug]),
        *(reverse("grading:review_chart", args=[slug, name]) for name in CHARTS),
    ]


def test_a_juror_gets_403_everywhere(client, built):
    juror = built.jurors[1][0]
    client.force_login(juror)
    for url in _urls():
        response = client.get(url)
        assert response.status_code == 403, url
        assert b"Ext 0" not in response.content


def test_a_user_without_a_role_gets_403_and_anonymous_goes_to_login(client, built):
    for url in _urls():
        assert client.get(url).status_code == 302
    client.force_login(JurorFactory(roles=[]))
    for url in _urls():
        assert client.get(url).status_code == 403


def test_the_organizer_sees_the_page(organizer_client, built):
    response = organizer_client.get(reverse("grading:review", args=["rv"]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Result review · Review rv" in page
    assert "Provisional: problems 1, 2 are not finalized yet" in page
    assert 'class="pill"' in page and "external" in page  # external systems labelled
    assert "Spearman rho" in page and "n = 5" in page
    assert (
        "The jury&#x27;s totals span 90% of its 10-point scale (9.0 points), "
        "the automatic scores 90% of theirs (0-100)."
    ) in page
    assert "exact permutation, all 120 orderings" in page
    assert "3rd of 10" in page
    # The five charts are images of their own URL, each with its alternative text.
    for name in CHARTS:
        assert f'src="{reverse("grading:review_chart", args=["rv", name])}"' in page
    assert page.count('alt="') >= 5 and "<svg" not in page
    assert "Juror agreement" in page and "Krippendorff" in page
    assert "Juror severity (cell + juror model" in page
    assert "<li><strong>" in page and ("on the cells they share" in page or "shared papers" in page)
    assert "ICC(A,1)" in page and "resample papers, each with all its cells" in page
    assert "&lt;svg" not in page  # not escaped
    assert reverse("grading:review_inputs", args=["rv"]) in page
    assert "/c/rv/jury/problems/2/sheet/#paper-" in page


def test_system_names_are_escaped_outside_the_charts(organizer_client, built):
    system = built.systems[1]
    system.name = "<script>alert(1)</script>"
    system.save()
    page = organizer_client.get(reverse("grading:review", args=["rv"])).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    chart = organizer_client.get(reverse("grading:review_chart", args=["rv", "scatter"]))
    svg = chart.content.decode()
    assert "<script>" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;" in svg


def test_each_chart_is_an_svg_drawn_once_per_state(organizer_client, built, monkeypatch):
    from grading.review import services

    drawn = []
    real = services.review_charts
    monkeypatch.setattr(services, "review_charts", lambda r: drawn.append(r) or real(r))
    for name in CHARTS:
        response = organizer_client.get(reverse("grading:review_chart", args=["rv", name]))
        assert response.status_code == 200
        assert response["Content-Type"] == "image/svg+xml"
        assert response.content.lstrip().startswith((b"<svg", b"<?xml"))
    assert len(drawn) == 1  # the first request drew all five; the others read the cache
    assert organizer_client.get("/c/rv/review/charts/nope.svg").status_code == 404


def test_the_chair_sees_the_page_and_the_json(client, built):
    client.force_login(built.chair)
    assert client.get(reverse("grading:review", args=["rv"])).status_code == 200
    for url in _urls()[1:3]:
        response = client.get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        data = response.json()
        assert data["provisional"] is True
        assert data["systems"][0]["system"] == "Computed"
        assert [a["problem"] for a in data["agreement"]] == [1, 2]
        assert all(a["provisional"] for a in data["agreement"])


def test_a_chair_still_grading_waits(client, built):
    paper = PaperFactory(problem=built.problems[1], system__competition=built.competition)
    AssignmentFactory(paper=paper, juror=built.chair)
    client.force_login(built.chair)
    for url in _urls():
        assert client.get(url).status_code == 403
    Assignment.objects.filter(juror=built.chair).delete()
    assert client.get(_urls()[0]).status_code == 200


def test_unknown_competition_is_404(organizer_client, built):
    assert organizer_client.get(reverse("grading:review", args=["nope"])).status_code == 404


def test_post_is_refused(organizer_client, built):
    assert organizer_client.post(reverse("grading:review", args=["rv"])).status_code == 405


def test_linked_from_the_competition_and_jury_pages(organizer_client, built):
    url = reverse("grading:review", args=["rv"])
    for page in ("puzzles:competition", "grading:jury"):
        assert url in organizer_client.get(reverse(page, args=["rv"])).content.decode()


def test_linked_from_the_chairs_home(client, built):
    client.force_login(built.chair)
    assert (
        reverse("grading:review", args=["rv"])
        in client.get(reverse("grading:home")).content.decode()
    )


def test_the_page_takes_as_many_queries_for_6_systems_as_for_3(organizer_client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    counts = []
    for slug, externals in (("three", 2), ("six", 5)):
        review_competition(slug=slug, externals=externals)
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            response = organizer_client.get(reverse("grading:review", args=[slug]))
        assert response.status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_cached_page_follows_the_marks_state_and_the_role(organizer_client, client, built):
    from decimal import Decimal

    from puzzles.models import Competition

    url = reverse("grading:review", args=["rv"])
    inputs = reverse("grading:review_inputs", args=["rv"])
    first = organizer_client.get(url).content.decode()
    assert inputs in first  # organizers get the inputs link
    client.force_login(built.chair)
    assert inputs not in client.get(url).content.decode()  # the chair's copy has none
    Competition.objects.filter(pk=built.competition.pk).update(gold_threshold=Decimal("7.25"))
    again = organizer_client.get(url).content.decode()
    assert "gold 7.25" in again and again != first
