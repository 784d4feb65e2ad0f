"""The result review in Django's cache: `review_cached` serves the review of the marks as they
stand, with its charts, building what is missing (grading.review.build).

Cache key: ``ioleval:review:v<CACHE_VERSION>:<competition id>:<resamples>:<fingerprint>`` for
the review, the same with ``:charts`` appended for its SVG charts (and ``:body:<role>`` for
the page's rendered body), where the fingerprint is
`grading.review.selectors.review_fingerprint` (one query over the latest marks, submissions,
decisions, finalizations, rubrics, contestants, automatic figures, systems and thresholds).
Any change to what the review reads makes a new key, so nothing has to be deleted: stale
entries age out after CACHE_SECONDS. ``...:latest`` names the latest review kept, which the
page shows while the new one is computed (grading.review.refresh); for that the worker and
the web processes share one cache (CACHE_URL).

Faults: while the shared cache cannot be reached, reviews are kept in the process's own
memory (`review_cache`); after a failure the process leaves the shared cache alone for a
while (`ioleval.shared_cache`), so that a cache that hangs costs a page one timeout, not one
per read.
"""

from __future__ import annotations

from ioleval.shared_cache import FallbackCache
from puzzles.models import Competition

from . import build
from .model import Review, ReviewCharts, ReviewPage
from .selectors import review_fingerprint

CACHE_VERSION = 3  # 3: exact small-sample p-values, methods named, ranges as shares
CACHE_SECONDS = 24 * 60 * 60

# Reviews while the shared cache is down: this process's memory, a few at a time
# (ioleval.shared_cache says how a cache that fails is left alone for a while).
review_cache = FallbackCache("the review", timeout=CACHE_SECONDS, max_entries=60)


def review_cache_key(competition: Competition, *, resamples: int, fingerprint: str) -> str:
    """Return the review's cache key (the module docstring explains it)."""
    return f"ioleval:review:v{CACHE_VERSION}:{competition.pk}:{resamples}:{fingerprint}"


def review_key(competition: Competition, *, resamples: int) -> str:
    """Return the cache key of the review of the marks as they stand (one query)."""
    return review_cache_key(
        competition, resamples=resamples, fingerprint=review_fingerprint(competition)
    )


def review_cached(
    *, competition: Competition, resamples: int = 10_000, with_charts: bool = True
) -> ReviewPage:
    """Return the review of the marks as they stand (and its charts) from the cache, building
    what is missing here and now (the JSON, the PDF, the exports and `manage.py report`)."""
    key = review_key(competition, resamples=resamples)
    review = review_cache.get(key)
    if review is None:
        review = build.review_build(competition=competition, resamples=resamples)
        _keep(competition, key, review)
    drawn = None
    if with_charts:
        drawn = review_charts_of(key, review)
    return ReviewPage(review, drawn, key)


def review_charts_of(key: str, review: Review) -> ReviewCharts:
    """Return the charts of the review cached under key, drawing them once."""
    drawn = review_cache.get(f"{key}:charts")
    if drawn is None:
        drawn = build.review_charts(review)
        review_cache.set(f"{key}:charts", drawn, CACHE_SECONDS)
    return drawn


def review_load(key: str) -> Review | None:
    """Return the review cached under key (None once it has aged out)."""
    return review_cache.get(key) if key else None


def latest_key(competition: Competition, resamples: int) -> str:
    """Return the key under which the key of the competition's latest review is kept."""
    return f"ioleval:review:v{CACHE_VERSION}:{competition.pk}:{resamples}:latest"


def _keep(competition: Competition, key: str, review: Review) -> None:
    """Cache a review under its key and remember it as the competition's latest."""
    review_cache.set(key, review, CACHE_SECONDS)
    review_cache.set(latest_key(competition, review.resamples), key, CACHE_SECONDS)
