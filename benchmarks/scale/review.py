"""The result review at scale: agreement and tags, the whole dashboard, the page itself."""

from __future__ import annotations

from .bulk import contestants_add
from .database import HOST, analyze
from .report import agreement_line, review_targets_line
from .timing import Stopwatch, query_count, timed

AGREEMENT_CASES = {
    "agreement, 0 resamples (loading + point estimates)": dict(resamples=0),
    "agreement, 2,000 resamples": dict(resamples=2_000),
    "agreement, 10,000 resamples": dict(resamples=10_000),
    "agreement, 10,000 resamples, 10,000 per criterion": dict(
        resamples=10_000, criterion_resamples=10_000
    ),
    "agreement, 2,000 resamples, per-criterion ICC": dict(resamples=2_000, criterion_icc=True),
    "agreement, 10,000 resamples, per-criterion ICC": dict(resamples=10_000, criterion_icc=True),
}
FIGURES = ("problem", "alpha", "icc", "discrepancy_rate", "compared", "revised")


def agreement(competition, repeats: int, result: dict, say) -> None:
    """Count the queries of problem_agreement and tag_counts, time them, keep the figures."""
    from grading.review.agreement import problem_agreement
    from grading.review.observations import tag_counts

    found = problem_agreement(competition, resamples=0)
    result["queries"] = {
        "problem_agreement": query_count(lambda: problem_agreement(competition, resamples=0)),
        "tag_counts": query_count(lambda: tag_counts(competition)),
    }
    say(
        f"queries: problem_agreement {result['queries']['problem_agreement']},"
        f" tag_counts {result['queries']['tag_counts']}"
    )
    result["times"] = {}
    for label, kwargs in AGREEMENT_CASES.items():
        result["times"][label] = timed(
            lambda kw=kwargs: problem_agreement(competition, **kw), repeats
        )
        say(f"{label}: {result['times'][label]}")
    result["times"]["tag_counts"] = timed(lambda: tag_counts(competition), repeats)
    say(f"tag_counts: {result['times']['tag_counts']}")
    result["figures"] = [{k: v for k, v in p.as_json().items() if k in FIGURES} for p in found]
    for f in result["figures"]:
        say(agreement_line(f))


def dashboard(competition, args, result: dict, say, rng) -> None:
    """Time the whole review: figures, agreement, tags, charts, cold and cached."""
    from django.core.cache import cache

    from grading.review.build import review_build, review_charts
    from grading.review.cache import review_cached
    from grading.review.selectors import review_data

    contestants_add(competition, args.contestants, rng)
    analyze()
    result["queries"]["review_data"] = query_count(lambda: review_data(competition))
    review = review_build(competition=competition, resamples=10_000)
    say(
        f"dashboard: {len(review.systems)} systems, {len(review.contestant_totals)} contestants,"
        f" review_data {result['queries']['review_data']} queries"
    )

    def cold():
        cache.clear()
        review_cached(competition=competition, resamples=10_000)

    cases = {
        "review_build, 10,000 resamples": lambda: review_build(
            competition=competition, resamples=10_000
        ),
        "review_charts": lambda: review_charts(review),
        "review_cached, cold (build and charts)": cold,
        "review_cached, cached": lambda: review_cached(competition=competition, resamples=10_000),
    }
    for label, fn in cases.items():
        result["times"][label] = timed(fn, args.repeats)
        say(f"{label}: {result['times'][label]}")
    for label, figures in page_requests(competition, args.repeats).items():
        result["times"][label] = figures
        say(f"{label}: {figures}")
    cold_ms = max(
        result["times"][label]["median_ms"]
        for label in (
            "GET review page, first view (nothing computed yet: queued)",
            "GET review page, computed (its body rendered)",
            "GET review page after a change (the last review shown)",
        )
    )
    cached_ms = result["times"]["GET review page, cached"]["median_ms"]
    result["targets"] = {"cold_under_1s": cold_ms < 1000, "cached_under_100ms": cached_ms < 100}
    say(review_targets_line(cold_ms, cached_ms))


def page_requests(competition, repeats: int) -> dict[str, dict]:
    """Time the dashboard as a browser asks for it, through Django's whole request cycle, with
    a worker (the broker is in memory: the page queues the computation and does not wait):
    the first view with an empty cache, the computation the worker does, the page and its
    five charts once computed, the page cached, and the page after a change (the last review
    shown while the new one is computed)."""
    from django.core.cache import cache
    from django.test import Client
    from django.urls import reverse

    from grading.review.model import CHARTS
    from grading.review.refresh import review_refresh
    from puzzles.models import Competition
    from tests.grading.factories import OrganizerFactory

    # An organizer of our own, who grades none of the papers (the page waits for those).
    organizer = OrganizerFactory(username="bench-organizer")
    client = Client(SERVER_NAME=HOST)  # django_setup allows only this host
    client.force_login(organizer)
    page = reverse("grading:review", args=[competition.slug])
    charts = [reverse("grading:review_chart", args=[competition.slug, n]) for n in CHARTS]
    gold = competition.gold_threshold

    def get(urls, expect=None):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
            if expect:
                assert expect in response.content.decode(), (url, expect)

    steps = {
        "GET review page, first view (nothing computed yet: queued)": lambda: get(
            [page], "being computed"
        ),
        "the worker's computation (review and charts)": lambda: review_refresh(
            competition_id=competition.pk, resamples=10_000
        ),
        "GET review page, computed (its body rendered)": lambda: get([page], "Jury against"),
        "GET the five charts": lambda: get(charts),
        "GET review page, cached": lambda: get([page], "Jury against"),
        "GET review page after a change (the last review shown)": lambda: get(
            [page], "have changed since"
        ),
    }
    watches = {label: Stopwatch() for label in steps}
    for i in range(repeats):
        cache.clear()
        Competition.objects.filter(pk=competition.pk).update(gold_threshold=gold)
        for label, step in steps.items():
            if label.startswith("GET review page after a change"):
                moved = gold + i + 1 if gold is not None else i + 1
                Competition.objects.filter(pk=competition.pk).update(gold_threshold=moved)
            with watches[label]:
                step()
    Competition.objects.filter(pk=competition.pk).update(gold_threshold=gold)
    return {label: watch.medians() for label, watch in watches.items()}
