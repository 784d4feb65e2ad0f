"""The review page never computes the review while an organizer waits (with a worker): it
shows the latest review, says the marks have moved, has a task compute the new one, polls,
and reloads once it is in. Without a broker (Celery eager), the task runs in the request."""

from __future__ import annotations

import time
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.urls import reverse

from grading.review import build, refresh
from ioleval import shared_cache
from puzzles.models import Competition
from tests.faults import UNREACHABLE, broker_at, redis_cache_at, silent_server

PAGE = reverse("grading:review", args=["rv"])
PROGRESS = reverse("grading:review_progress", args=["rv"])
CHART = reverse("grading:review_chart", args=["rv", "scatter"])


@pytest.fixture
def queued(monkeypatch):
    """A worker that takes tasks but has not run them yet: the ids queued."""
    calls = []
    monkeypatch.setattr(refresh.review_refresh_task, "delay", lambda *args: calls.append(args))
    return calls


def _gold(value: str) -> None:
    Competition.objects.filter(slug="rv").update(gold_threshold=Decimal(value))


def test_without_a_worker_the_page_is_computed_in_the_request(organizer_client, built):
    page = organizer_client.get(PAGE).content.decode()
    assert "gold 8" in page
    assert PROGRESS not in page  # fresh: nothing to poll
    assert "have changed since" not in page


def test_a_change_shows_the_last_review_and_queues_one_computation(organizer_client, built, queued):
    refresh.review_refresh(competition_id=built.competition.pk, resamples=10_000)
    _gold("7.25")
    page = organizer_client.get(PAGE).content.decode()
    assert "gold 8" in page and "gold 7.25" not in page  # the last review, as it was
    assert "have changed since these figures were computed" in page
    assert PROGRESS in page  # polled
    assert queued == [(built.competition.pk, 10_000)]
    organizer_client.get(PAGE)
    organizer_client.get(PROGRESS, HTTP_HX_REQUEST="true")
    assert len(queued) == 1  # one computation at a time, however many look


def test_the_poll_stops_and_reloads_once_the_new_review_is_in(organizer_client, built, queued):
    refresh.review_refresh(competition_id=built.competition.pk, resamples=10_000)
    _gold("7.25")
    organizer_client.get(PAGE)
    polled = organizer_client.get(PROGRESS, HTTP_HX_REQUEST="true")
    assert polled.status_code == 200 and "HX-Refresh" not in polled
    refresh.review_refresh(competition_id=queued[0][0], resamples=queued[0][1])  # the worker
    done = organizer_client.get(PROGRESS, HTTP_HX_REQUEST="true")
    assert done.status_code == 286 and done["HX-Refresh"] == "true"
    page = organizer_client.get(PAGE).content.decode()
    assert "gold 7.25" in page and PROGRESS not in page


def test_before_any_review_the_page_says_it_is_being_computed(organizer_client, built, queued):
    page = organizer_client.get(PAGE).content.decode()
    assert "The review is being computed" in page
    assert "Jury against automatic" not in page
    assert organizer_client.get(CHART).status_code == 404  # nothing to draw yet


def test_the_charts_are_those_of_the_review_shown(organizer_client, built, queued):
    refresh.review_refresh(competition_id=built.competition.pk, resamples=10_000)
    Competition.objects.filter(slug="rv").update(name="Renamed review")
    chart = organizer_client.get(CHART)
    assert chart.status_code == 200 and chart["Content-Type"] == "image/svg+xml"
    assert len(queued) == 1


def test_a_lost_computation_is_shown_as_stalled(organizer_client, built, queued):
    refresh.review_refresh(competition_id=built.competition.pk, resamples=10_000)
    _gold("7.25")
    organizer_client.get(PAGE)
    lock = refresh._lock_key(built.competition, 10_000)
    cache.set(lock, time.time() - refresh.STALLED_SECONDS - 1, 60)
    page = organizer_client.get(PAGE).content.decode()
    assert "has not finished after 2 minutes" in page
    assert len(queued) == 1  # not queued again until the lock expires


def test_the_lock_is_released_when_the_computation_fails(built, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(build, "review_build", broken)
    cache.add(refresh._lock_key(built.competition, 10_000), time.time(), 60)
    with pytest.raises(RuntimeError):
        refresh.review_refresh(competition_id=built.competition.pk, resamples=10_000)
    assert cache.get(refresh._lock_key(built.competition, 10_000)) is None


def test_a_broker_that_is_down_means_computing_it_in_the_request(organizer_client, built):
    with broker_at(UNREACHABLE):
        started = time.monotonic()
        page = organizer_client.get(PAGE)
        assert time.monotonic() - started < 10  # not Celery's 20 s of retries
        chart = organizer_client.get(CHART)
    assert page.status_code == 200
    assert "gold 8" in page.content.decode() and PROGRESS not in page.content.decode()
    assert chart.status_code == 200
    assert cache.get(refresh._lock_key(built.competition, 10_000)) is None


def test_a_broker_that_hangs_costs_seconds(organizer_client, built):
    with silent_server() as url, broker_at(url):
        started = time.monotonic()
        page = organizer_client.get(PAGE)
        assert time.monotonic() - started < 15
    assert "gold 8" in page.content.decode()


def test_a_cache_that_is_down_means_computing_it_in_the_request(organizer_client, built):
    with redis_cache_at(UNREACHABLE):
        page = organizer_client.get(PAGE)
        chart = organizer_client.get(CHART)
        json = organizer_client.get(PAGE, {"format": "json"})
    assert page.status_code == 200
    assert "gold 8" in page.content.decode() and PROGRESS not in page.content.decode()
    assert chart.status_code == 200 and chart["Content-Type"] == "image/svg+xml"
    assert json.status_code == 200


def test_a_cache_that_hangs_costs_seconds(organizer_client, built):
    with silent_server() as url, redis_cache_at(url):
        started = time.monotonic()
        page = organizer_client.get(PAGE)
        assert time.monotonic() - started < 30  # a few reads of 2 s each, not 5 s each
    assert "gold 8" in page.content.decode()


class _TimedCache:
    """Django's cache, each call timed into `calls` as (method, seconds)."""

    def __init__(self, calls: list):
        self.calls = calls

    def __getattr__(self, name):
        method = getattr(cache, name)

        def timed(*args, **kwargs):
            started = time.monotonic()
            try:
                return method(*args, **kwargs)
            finally:
                self.calls.append((name, time.monotonic() - started))

        return timed


def test_a_cache_that_hangs_is_waited_for_once(organizer_client, built, monkeypatch):
    """Each call to a hanging cache costs its socket timeout: the page's state, body,
    review and charts each paid it. After the first, the process leaves the cache alone."""
    calls = []
    monkeypatch.setattr(shared_cache, "cache", _TimedCache(calls))
    with silent_server() as url, redis_cache_at(url):
        page = organizer_client.get(PAGE)
        chart = organizer_client.get(CHART)
        json = organizer_client.get(PAGE, {"format": "json"})
    assert "gold 8" in page.content.decode() and PROGRESS not in page.content.decode()
    assert chart.status_code == 200 and json.status_code == 200
    slow = [name for name, seconds in calls if seconds >= 1]
    assert slow == ["has_key"], calls
    assert len(calls) == 1  # nothing asked of it after it failed


@pytest.mark.django_db(transaction=True)
def test_finalizing_with_redis_down_is_reported_as_done(client, built, monkeypatch, caplog):
    """The finalization commits; the review's refresh after it fails (no broker, no cache),
    is logged, and the chair is told the problem is finalized."""
    from grading.models import ProblemJury

    client.force_login(built.chair)
    url = reverse("grading:finalize", args=["rv", 2])
    with broker_at(UNREACHABLE), redis_cache_at(UNREACHABLE):
        response = client.post(url, follow=True)
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert shown == ["Problem 2 finalized."]
    assert ProblemJury.objects.get(problem=built.problems[2]).finalized_at is not None
    assert any("on_commit" in r.getMessage() for r in caplog.records if r.levelname == "ERROR")


@pytest.mark.django_db(transaction=True)
def test_finalizing_with_the_broker_down_leaves_the_review_to_the_page(client, built, caplog):
    client.force_login(built.chair)
    with broker_at(UNREACHABLE):
        started = time.monotonic()
        client.post(reverse("grading:finalize", args=["rv", 2]))
        assert time.monotonic() - started < 10
    assert cache.get(refresh._lock_key(built.competition, 10_000)) is None  # not stuck
    assert "left to the page" in caplog.text


def test_finalizing_queues_the_review_when_a_worker_runs(
    built, queued, monkeypatch, django_capture_on_commit_callbacks
):
    from grading.services import problem_finalize

    monkeypatch.setattr(refresh, "_with_worker", lambda: True)
    with django_capture_on_commit_callbacks(execute=True):
        problem_finalize(problem=built.problems[1], chair=built.chair)
    assert queued == [(built.competition.pk, 10_000)]


def test_finalizing_without_a_worker_leaves_the_review_to_the_page(built, queued):
    from grading.services import problem_finalize

    problem_finalize(problem=built.problems[1], chair=built.chair)
    assert queued == []


def test_a_failing_computation_without_a_worker_is_an_error_once(
    organizer_client, built, monkeypatch
):
    calls = []

    def broken(**kwargs):
        calls.append(kwargs)
        raise RuntimeError("boom")

    monkeypatch.setattr(build, "review_build", broken)
    with pytest.raises(RuntimeError):
        organizer_client.get(PAGE)
    assert len(calls) == 1  # not computed a second time as if the broker were down
    assert cache.get(refresh._lock_key(built.competition, 10_000)) is None
