"""The analytics pages' query check, shared by their tests: a page, its chart and its export
answer in the same number of SQL queries for a small and a large competition."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse


def query_count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200, url
    return len(captured)


def assert_constant_queries(client, competitions, analysis: str) -> None:
    """`analysis` names the routes analytics_<analysis>, _chart and _export (as CSV)."""
    for name, extra in (
        (f"analytics_{analysis}", []),
        (f"analytics_{analysis}_chart", []),
        (f"analytics_{analysis}_export", ["csv"]),
    ):
        counts = {
            query_count(client, reverse(f"puzzles:{name}", args=[c.slug, *extra]))
            for c in competitions
        }
        assert len(counts) == 1, (name, counts)
