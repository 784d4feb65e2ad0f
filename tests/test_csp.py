"""The Content-Security-Policy, and pages that keep to it (no inline script or handler)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from grading.models import Assignment

pytestmark = pytest.mark.django_db

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I)
HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)


def test_every_page_sends_the_policy(client):
    policy = client.get(reverse("login"))["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "object-src 'none'" in policy
    assert "unsafe-eval" not in policy and "script-src 'self' 'unsafe-inline'" not in policy


@pytest.mark.parametrize("username", ["juror1", "chair", "organizer"])
def test_pages_have_no_inline_script_or_handler(demo, client, username):
    user = get_user_model().objects.get(username=username)
    client.force_login(user)
    urls = [reverse("grading:home")]
    if username == "juror1":
        code = Assignment.objects.filter(juror=user).values_list("paper__code", flat=True)[0]
        urls.append(reverse("grading:grade", args=[code]))
        paper = Assignment.objects.filter(juror=user).select_related("paper").first().paper
        criterion = paper.problem.rubrics.order_by("-version").first().criteria.first()
        urls.append(reverse("grading:by_criterion", args=[paper.problem_id, criterion.pk]))
        problem_id = Assignment.objects.filter(juror=user).values_list(
            "paper__problem_id", flat=True
        )[0]
        urls.append(reverse("grading:distinct_first", args=[problem_id]))
    if username == "chair":
        urls.append(reverse("grading:sheet", args=["demo", 1]))
        urls.append(reverse("grading:sheet", args=["demo", 1]) + "?sort=differences")
        urls.append(reverse("grading:chair_overview", args=["demo", 1]))
    if username == "organizer":
        urls = [
            reverse("puzzles:leaderboard", args=["demo"]),
            reverse("puzzles:answer_key", args=["demo"]),
            reverse("puzzles:analytics_formats", args=["demo"]),
            reverse("grading:jury", args=["demo"]),
            reverse("grading:rubric", args=["demo", 1]),
            reverse("grading:review", args=["demo"]),
            reverse("accounts:list"),
            reverse("puzzles:context_corpus"),
            reverse("puzzles:context_puzzle", args=["demo-tolmeric"]),
            reverse("puzzles:context_results"),
            reverse("puzzles:context_judges"),
            reverse("puzzles:analytics_probes", args=["demo"]),
            reverse("puzzles:analytics_oracle", args=["demo"]),
            reverse("puzzles:analytics_oracle", args=["demo"]) + _oracle_preview_query(),
            reverse("puzzles:analytics_tiers", args=["demo"]),
            reverse("puzzles:analytics_runs", args=["demo"]),
            reverse("puzzles:analytics_techniques", args=["demo"]),
            reverse("puzzles:analytics_ablations", args=["demo"]),
        ]
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert not INLINE_SCRIPT.search(html), url
        assert not HANDLER.search(html), url


def _oracle_preview_query() -> str:
    """Return the oracle page's query previewing the demo's first two systems."""
    from urllib.parse import urlencode

    from puzzles.models import System

    names = System.objects.filter(competition__slug="demo").values_list("name", flat=True)[:2]
    return "?" + urlencode({"members": list(names)}, doseq=True)
