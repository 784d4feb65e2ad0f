"""The review is out of the jury's scale: its jury maximum, its medals, its page, JSON and PDF.

The builder's rubrics add up to 10 (its thresholds: gold 8, silver 6, bronze 4). Before,
the review's maximum was the rubrics' sum whatever the competition's total said, and a
threshold above it was applied (no one reached it, and nothing said why)."""

from __future__ import annotations

import io
import json
from decimal import Decimal as D
from html import unescape

import pytest
from django.core.management import call_command
from django.urls import reverse
from pypdf import PdfReader

from grading.review.build import review_build
from grading.review.report import review_pdf
from grading.review.selectors import review_fingerprint
from grading.services import competition_set_scale
from puzzles.models import Competition
from tests.grading.factories import OrganizerFactory
from tests.grading.review.builders import review_competition

pytestmark = pytest.mark.django_db
R = 200
RUBRIC_SCALE = "10 (the sum of the rubrics' maxima)"


def _review(built):
    return review_build(competition=Competition.objects.get(pk=built.competition.pk), resamples=R)


def test_the_review_is_out_of_the_rubrics_sum_and_says_so():
    built = review_competition()
    review = _review(built)
    assert (review.jury_maximum, review.scale) == (10.0, RUBRIC_SCALE)
    assert review.as_json()["scale"] == {
        "points": 10.0,
        "source": "the sum of the rubrics' maxima",
    }
    assert review.thresholds == {
        "gold": 8.0,
        "silver": 6.0,
        "bronze": 4.0,
        "honourable_mention": None,
    }


def test_an_organizers_scale_is_the_reviews_maximum_and_its_difference_is_noted():
    built = review_competition()
    before = review_fingerprint(built.competition)
    competition_set_scale(competition=built.competition, points=D(20))
    assert review_fingerprint(built.competition) != before  # the cached review is stale
    review = _review(built)
    assert review.jury_maximum == 20.0 and review.scale == "20 (set by an organizer)"
    assert review.as_json()["scale"]["source"] == "set by an organizer"
    assert any(n.startswith("The rubrics add up to 10 points but the scale") for n in review.notes)


def test_a_threshold_above_the_scale_gives_no_medal_and_the_review_says_why():
    built = review_competition()
    Competition.objects.filter(pk=built.competition.pk).update(gold_threshold=D(12))
    review = _review(built)
    assert review.thresholds["gold"] is None  # not applied
    by_name = {s.system: s for s in review.systems}
    assert by_name["Computed"].jury_total == 9.5 and by_name["Computed"].medal == "silver"
    assert (
        "The gold threshold 12 is above the jury's scale, 10 (the sum of the rubrics' maxima): "
        "no gold is given until you set the thresholds again (competition page or "
        "set_thresholds) or set the scale (competition page or set_scale)."
    ) in review.notes
    data = json.loads(_report_json(built.competition.slug))
    assert data["medal_thresholds"]["gold"] is None
    assert any("gold threshold 12 is above the jury's scale" in n for n in data["notes"])


def _report_json(slug: str) -> str:
    out = io.StringIO()
    call_command("report", slug, "--format", "json", "--resamples", str(R), stdout=out)
    return out.getvalue()


def test_the_review_page_and_pdf_name_the_scale(client):
    built = review_competition()
    competition_set_scale(competition=built.competition, points=D(20))
    client.force_login(OrganizerFactory())
    response = client.get(reverse("grading:review", args=[built.competition.slug]))
    html = unescape(response.content.decode())
    if "Thresholds in points" not in html:  # the body may come in a second request
        body = client.get(reverse("grading:review", args=[built.competition.slug]))
        html = unescape(body.content.decode())
    assert "Thresholds in points out of the jury's scale, 20 (set by an organizer):" in html
    assert "/20</span>" in html  # the systems table's jury total column
    text = " ".join(
        " ".join(
            page.extract_text() or ""
            for page in PdfReader(io.BytesIO(review_pdf(_review(built), None))).pages
        ).split()
    )
    assert "Thresholds in points out of the jury's scale, 20 (set by an organizer)" in text
