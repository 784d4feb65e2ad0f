"""Fixtures of the review's tests: an empty cache around every test (the review is cached by
the state of the marks, and each test builds its own), a competition graded but not
finalized."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.grading.review.builders import review_competition


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def built(db):
    return review_competition(finalize=False)
